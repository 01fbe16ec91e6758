"""How tensors and gradient lists reach the printers, without importing them.

The tracer and the reverse sweep sit below the closed-form printers
(``symgrad.forms``) in the pipeline, so a tensor's ``__str__`` and ``_repr_*``
methods call :func:`show`, and ``symgrad.forms.printing`` registers the functions
that do the work when it is imported (``import symgrad`` always imports it).
Until then a tensor shows its ``repr`` and Jupyter falls back to plain text.

Imports nothing from symgrad.

>>> GradientList([None]) == [None]
True
"""
from __future__ import annotations

# kind -> function(value) -> text; kinds: "str", "latex", "html" (a tensor),
# "list_latex", "list_html" (a GradientList).  Filled by symgrad.forms.printing.
_PRINTERS: dict = {}


def register(**printers):
    """Install the printers for the given kinds (the printing layer calls this once)."""
    _PRINTERS.update(printers)


def show(kind, value):
    """Text of ``value`` for display ``kind``; None (Jupyter: no such repr) without a printer."""
    printer = _PRINTERS.get(kind)
    if printer is None:
        return repr(value) if kind == "str" else None
    return printer(value)


class GradientList(list):
    """The list ``gradients``/``hessians`` return: a real list that prints as closed forms
    (``[3, 1]``) and shows in Jupyter as formulas."""

    def __str__(self):
        return show("str", self)

    def _repr_latex_(self):
        return show("list_latex", self)

    def _repr_html_(self):
        return show("list_html", self)
