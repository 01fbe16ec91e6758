"""Text of one closed form for one target, within limits on entries and characters.

A form with more entries than ``limits.entries`` prints its leading rows and says
how many entries it left out; a form larger than ``cseprint.CSE_OPS`` operations
prints with its shared parts named (``where t1 = ...``); text longer than
``limits.chars`` is cut (plain targets) or re-laid with fewer entries (LaTeX,
MathML, whose markup cannot be cut), and every cut says what it left out.

Imports ``notation``, ``cseprint``, ``elided`` and ``names``.

>>> import sympy
>>> x = sympy.Symbol("x")
>>> render_form(sympy.Array([x * i for i in range(1, 9)]), "str", Limits(entries=3))
'[x, 2*x, 3*x] … (5 more entries)'
"""
from __future__ import annotations

import html
from dataclasses import dataclass

import numpy as np
import sympy

from . import notation
from .cseprint import CSE_OPS, shared, tree_size
from .elided import EXPAND_LIMIT, Elided
from .names import rename_symbols

TARGETS = {"str": notation.to_str, "text": notation.to_text, "pretty": notation.to_pretty,
           "latex": notation.to_latex, "mathml": notation.to_mathml}
WHERE = {"latex": (r"\quad\text{where}\quad ", r",\quad ", " = "),
         "mathml": ("<mtext>  where  </mtext>", "<mtext>, </mtext>", "<mo>=</mo>")}


@dataclass(frozen=True)
class Limits:
    """Bounds of one printed form: what is expanded, simplified and shown.

    Attributes:
        expand_limit: largest scalar size expanded elementwise without matrix notation.
        budget: seconds of simplification passes.
        entries: entries of an array shown (leading rows; the rest counted).
        chars: characters of text shown.
    """
    expand_limit: int = EXPAND_LIMIT
    budget: float = 2.0
    entries: int = 400
    chars: int = 200_000


PRINT = Limits()                                                     # str, sg.text, ...
REPR = Limits(expand_limit=300, budget=0.3, entries=100, chars=30_000)  # Jupyter


def note(text, target):
    """``text`` as a remark in ``target``'s syntax."""
    if target == "latex":
        return r"\text{%s}" % text.replace("_", r"\_").replace("{", r"\{").replace("}", r"\}")
    if target == "mathml":
        return f"<mtext>{html.escape(text)}</mtext>"
    return text


def _leading(form, entries):
    """(leading rows of ``form`` holding at most ``entries`` entries, entries left out)."""
    values = np.asarray(form.tolist(), dtype=object).reshape(form.shape)
    total = values.size
    if total <= entries:
        return form, 0
    row = values[0].size if values.ndim > 1 else 1
    if values.ndim > 1 and row <= entries:
        kept = values[: entries // row]
    else:
        kept = values.reshape(-1)[:entries]
    return sympy.ImmutableDenseNDimArray(kept.tolist(), kept.shape), total - kept.size


def _printed(form, target):
    printer = TARGETS[target]
    if isinstance(form, sympy.NDimArray):
        items, shape = list(np.asarray(form.tolist(), dtype=object).reshape(-1)), form.shape
    else:
        items, shape = [form], None
    if tree_size(items) <= CSE_OPS:
        return printer(form)
    pairs, reduced = shared(items)
    body = sympy.ImmutableDenseNDimArray(reduced, shape) if shape else reduced[0]
    return printer(body) + _where(pairs, target, printer)


def _where(pairs, target, printer):
    if not pairs:
        return ""
    if target in WHERE:
        lead, sep, eq = WHERE[target]
        return lead + sep.join(f"{printer(s)}{eq}{printer(v)}" for s, v in pairs)
    return "\n  where\n" + "\n".join(f"    {printer(s)} = {printer(v)}" for s, v in pairs)


def render_form(form, target="str", limits=PRINT, names=None):
    """Text of one closed form (SymPy expression, array, MatrixForm, Elided) for ``target``;
    ``names`` renames leaves' symbols ({graph name: user name}, see ``forms.names``)."""
    if form is None:
        return "None"
    if hasattr(form, "form") and hasattr(form, "expr"):   # a MatrixForm
        form = form.expr
    if isinstance(form, Elided):
        return note(str(form), target)
    form = rename_symbols(form, names)
    entries = limits.entries
    while True:
        shown, left = _leading(form, entries) if isinstance(form, sympy.NDimArray) else (form, 0)
        text = _printed(shown, target)
        if left:
            text += " " + note(f"… ({left:,} more entries)", target)
        if len(text) <= limits.chars:
            return text
        if target in ("latex", "mathml"):
            if isinstance(form, sympy.NDimArray) and entries > 1:
                entries = max(1, entries // 4)
                continue
            return note(f"closed form of {len(text):,} characters not shown", target)
        cut = len(text) - limits.chars
        return text[:limits.chars] + f" … ({cut:,} more characters)"
