"""Printable forms of tensors and gradient lists: str, unicode pretty, LaTeX, MathML.

All text comes from SymPy's printers applied to closed forms; a list (as
``gradients`` returns) prints entry by entry, ``None`` as ``None``.

>>> import symgrad as sg
>>> with sg.Graph().as_default():
...     x = sg.Variable(2.0, name="x")
...     print(latex(x ** 2))
x^{2}
"""
from __future__ import annotations

import sympy

from .simplify import closed_form


def _forms(t, simplify):
    if isinstance(t, (list, tuple)):
        return [closed_form(v, simplify) for v in t]
    return closed_form(t, simplify)


def _render(form, printer):
    if isinstance(form, list):
        return "[" + ", ".join("None" if f is None else printer(f) for f in form) + "]"
    return "None" if form is None else printer(form)


def latex(t, simplify="auto"):
    """LaTeX of the closed form of a tensor (or of each entry of a list)."""
    return _render(_forms(t, simplify), sympy.latex)


def mathml(t, simplify="auto"):
    """Presentation MathML of the closed form."""
    return _render(_forms(t, simplify), lambda f: sympy.mathml(f, printer="presentation"))


def pretty(t, simplify="auto"):
    """Unicode 2-d text of the closed form."""
    return _render(_forms(t, simplify), lambda f: sympy.pretty(f, use_unicode=True))


def pprint(t, simplify="auto"):
    """Print :func:`pretty` of ``t``."""
    print(pretty(t, simplify))
