"""Printable forms of tensors and gradient lists: str, unicode pretty, LaTeX, MathML, Jupyter.

All text comes from the printers of ``symgrad.notation`` (SymPy printer
subclasses) applied to closed forms.  A list (as ``gradients`` returns) prints
entry by entry, ``None`` as ``None``.  A form larger than ``cseprint.CSE_OPS``
operations prints with its shared subexpressions named (``where t1 = ...``).
``form="matrix"`` prints matrix notation where the graph has one.

Tensors and the lists ``gradients``/``hessians`` return (``display.GradientList``)
reach these printers through their own ``__str__``/``_repr_*``: this module
registers its functions with ``symgrad.display`` when imported.

Imports the rest of ``forms``, ``evaluate``, ``graph`` and ``display``.

>>> import symgrad as sg
>>> with sg.Graph().as_default():
...     x = sg.Variable(2.0, name="x")
...     print(latex(x ** 2), pretty(sg.sigmoid(x)), text(x - 1 / x))
x^{2} σ(x) x − 1/x
"""
from __future__ import annotations

import html

from typing import Sequence

import numpy as np

from .. import display
from ..errors import ArgumentError, NoClosedFormError
from ..evaluate import evaluate
from ..graph import Node, ancestors
from ..values import is_sparse_result
from .elided import Elided
from .layout import PRINT, REPR, TARGETS, Limits, render_form
from .names import renames, user_name
from .select import FORMS, choose
from .sparseform import sparse_form


class _Said(Elided):
    """Text that stands instead of a closed form: a loop's recurrence, and why."""

    def __init__(self, text):
        self.text = text

    def __str__(self):
        return self.text


def _forms(t, simplify, form, limits):
    def one(v):
        try:
            if is_sparse_result(v):              # its stored entries, whatever the form
                return sparse_form(v, simplify, None if form == "elementwise" else
                                   limits.sparse_limit, limits.budget, limits.entries)
            if v is not None and _node(v).shape is None:   # tf.placeholder(dtype), no shape
                return _Said(f"<{_node(v).name}: a tensor of any shape (made when a value "
                             "is fed); run it in a session to see its values>")
            return choose(v, simplify, form, limits.expand_limit, limits.budget)
        except NoClosedFormError as exc:  # say why, with the recurrence
            return _Said(str(exc))
        except RecursionError:            # SymPy builds and walks expressions recursively
            return _Said(f"<closed form of {_node(v).name} not shown: it nests deeper than "
                         "SymPy can build; evaluate it with sg.evaluate or sg.compile>")
    if isinstance(t, (list, tuple)):
        return [None if v is None else one(v) for v in t]
    return one(t)


def render(t, target="str", simplify="auto", form="auto", limits=PRINT):
    """Text of tensor ``t`` (or of each entry of a list) for ``target``.

    Args:
        t: a tensor, None, or a list of them (as ``gradients`` returns).
        target: ``"str"``, ``"text"`` (textbook unicode), ``"pretty"``, ``"latex"``
            or ``"mathml"``.
        simplify: the closed form's strategy.
        form: ``"auto"`` (elementwise for small tensors, else matrix notation where
            it exists; see ``forms.select``), ``"elementwise"`` or ``"matrix"``.
        limits: a ``forms.layout.Limits`` (what is expanded, simplified, shown).
    Returns:
        the text; a list prints as ``[a, b]``.
    """
    if target not in TARGETS:
        raise ArgumentError(f"target={target!r} is not one of {sorted(TARGETS)}")
    if form not in FORMS:
        raise ArgumentError(f"form={form!r} is not one of {FORMS}")
    forms = _forms(t, simplify, form, limits)
    names = renames([_node(v) for v in (t if isinstance(t, (list, tuple)) else [t])])
    if not isinstance(forms, list):
        return render_form(forms, target, limits, names)
    items = [render_form(f, target, limits, names) for f in forms]
    if target == "latex":
        return r"\left[" + r",\ ".join(r"\text{None}" if i == "None" else i
                                          for i in items) + r"\right]"
    if target == "mathml":
        sep = "<mo>,</mo>"
        return f"<mrow><mo>[</mo>{sep.join(items)}<mo>]</mo></mrow>"
    return "[" + ", ".join(items) + "]"


def latex(t: Node | Sequence[Node | None] | None, simplify: str = "auto", form: str = "auto") -> str:
    """LaTeX of the closed form of a tensor (or of each entry of a list)."""
    return render(t, "latex", simplify, form)


def mathml(t: Node | Sequence[Node | None] | None, simplify: str = "auto", form: str = "auto") -> str:
    """Presentation MathML of the closed form."""
    return render(t, "mathml", simplify, form)


def pretty(t: Node | Sequence[Node | None] | None, simplify: str = "auto", form: str = "auto") -> str:
    """Unicode 2-d text of the closed form."""
    return render(t, "pretty", simplify, form)


def text(t: Node | Sequence[Node | None] | None, simplify: str = "auto", form: str = "auto") -> str:
    """One-line textbook unicode (``σ(x)``, ``Xᵀ(σ(X w) − y)``)."""
    return render(t, "text", simplify, form)


def pprint(t: Node | Sequence[Node | None] | None, simplify: str = "auto", form: str = "auto") -> None:
    """Print :func:`pretty` of ``t``."""
    print(pretty(t, simplify, form))


def _node(t):
    """The tensor of the graph behind ``t``: a sparse result's vector of stored entries."""
    return t.values if is_sparse_result(t) else t


def known_value(t):
    """The value of ``t`` if every leaf below it has one (no unfed placeholder), else None."""
    if any(n.is_leaf and n.value is None for n in ancestors([_node(t)])):
        return None
    return evaluate(t)


def _value_text(value):
    if hasattr(value, "tocsr"):          # a sparse result's csr_matrix: its stored values
        return (f"{value.shape[0]}×{value.shape[1]}, {value.nnz:,} stored: "
                + np.array2string(value.data, precision=6, threshold=20))
    return np.array2string(np.asarray(value), precision=6, threshold=20)


def repr_latex(t):
    """Jupyter LaTeX of a tensor: its name (if the user gave one), closed form, shape and
    value when known."""
    value = known_value(t)
    formula = render(t, "latex", limits=REPR)
    label = user_name(_node(t))
    head = formula if label is None else rf"\mathtt{{{_tt(label)}}} = {formula}"
    parts = [head, rf"\text{{shape }} {_tt(str(t.shape))}"]
    if value is not None:
        parts.append(rf"\text{{value }} {_tt(_value_text(value))}")
    return "$\\displaystyle " + r",\quad ".join(parts) + "$"


def _tt(s):
    return s.replace("_", r"\_").replace("\n", " ")


def repr_html(t):
    """Jupyter HTML of a tensor: one table row (name, formula as MathML, shape, dtype, value)."""
    return "<table>" + _row_header() + _row(t, limits=REPR) + "</table>"


def _row_header():
    return "<tr><th>tensor</th><th>closed form</th><th>shape</th><th>dtype</th><th>value</th></tr>"


def _shared(limits, parts):
    """``limits`` for one of ``parts`` forms shown together (time and text divided)."""
    n = max(1, parts)
    return Limits(limits.expand_limit, limits.budget / n, limits.entries,
                  max(1000, limits.chars // n), limits.sparse_limit)


def _unfed(t):
    """The user-facing names of the placeholders ``t`` needs a value for."""
    names = renames([_node(t)])
    return [names.get(n.name, n.name) for n in ancestors([_node(t)])
            if n.is_leaf and n.value is None]


def _row(t, label=None, limits=REPR):
    if t is None:
        empty = "<td></td>" * 3
        return f"<tr><td>{html.escape(label or '')}</td><td>None</td>{empty}</tr>"
    value = known_value(t)
    if value is None:
        shown = f"<i>feed {html.escape(', '.join(_unfed(t)))} to see it</i>"
    else:
        shown = f"<pre>{html.escape(_value_text(value))}</pre>"
    formula = render(t, "mathml", limits=limits)
    formula = f'<math xmlns="http://www.w3.org/1998/Math/MathML">{formula}</math>'
    label = label or user_name(_node(t)) or ""
    return (f"<tr><td>{html.escape(label)}</td><td>{formula}</td>"
            f"<td>{t.shape}</td><td>{_node(t).dtype.name}</td><td>{shown}</td></tr>")


def _list_latex(values):
    return f"$\\displaystyle {render(values, 'latex', limits=_shared(REPR, len(values)))}$"


def _list_html(values):
    limits = _shared(REPR, len(values))
    rows = "".join(_row(g, f"[{i}]" + ("" if g is None or user_name(_node(g)) is None
                                       else f" {user_name(_node(g))}"), limits)
                   for i, g in enumerate(values))
    return "<table>" + _row_header() + rows + "</table>"


# Tensors and gradient lists reach these through their own __str__/_repr_* (display.py).
display.register(str=render, latex=repr_latex, html=repr_html,
                 list_latex=_list_latex, list_html=_list_html)
