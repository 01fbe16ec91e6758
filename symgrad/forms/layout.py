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
from .sparseform import SPARSE_EXPAND_LIMIT, SparseForm

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
        entries: entries of an array shown (leading rows; the rest counted), or stored
            entries of a sparse result.
        chars: characters of text shown.
        sparse_limit: largest scalar size of a sparse result's vector of stored
            entries expanded (``forms.sparseform``).
    """
    expand_limit: int = EXPAND_LIMIT
    budget: float = 2.0
    entries: int = 400
    chars: int = 200_000
    sparse_limit: int = SPARSE_EXPAND_LIMIT


PRINT = Limits()                                                     # str, sg.text, ...
REPR = Limits(expand_limit=300, budget=0.3, entries=100, chars=30_000,   # Jupyter
              sparse_limit=SPARSE_EXPAND_LIMIT // 8)


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
    if isinstance(form, SparseForm):
        return _sparse(form, target, limits, names)
    form = rename_symbols(form, names)

    def text(entries):
        shown, left = _leading(form, entries) if isinstance(form, sympy.NDimArray) else (form, 0)
        more = " " + note(f"… ({left:,} more entries)", target) if left else ""
        return _printed(shown, target) + more
    return _fitted(text, target, limits, isinstance(form, sympy.NDimArray), "closed form")


def _fitted(text, target, limits, shrinks, what, entries=None):
    """``text(entries)`` for ``entries`` entries (``limits.entries`` by default), within
    ``limits.chars``: plain text is cut with a count; LaTeX and MathML, whose markup
    cannot be cut, are laid out again with a quarter of the entries (where ``shrinks``),
    else replaced by a note."""
    entries = limits.entries if entries is None else entries
    while True:
        out = text(entries)
        if len(out) <= limits.chars:
            return out
        if target in ("latex", "mathml"):
            if shrinks and entries > 1:
                entries = max(1, entries // 4)
                continue
            return note(f"{what} of {len(out):,} characters not shown", target)
        cut = len(out) - limits.chars
        return out[:limits.chars] + f" … ({cut:,} more characters)"


def _sparse(form, target, limits, names):
    """A sparse result's stored entries, one ``[i, j] = ...`` per line (rows of an
    aligned block in LaTeX and MathML), the rest counted, within ``limits.chars``."""
    entries = [rename_symbols(e, names) for e in form.entries]

    def text(shown):
        left = form.total - shown
        more = {"latex": r"\quad ", "mathml": ""}.get(target, "\n") + \
            note(f"… ({left:,} more stored entries)", target) if left else ""
        return _entry_lines(form.places[:shown], entries[:shown], target) + more
    return _fitted(text, target, limits, True, "stored entries",
                   min(limits.entries, len(entries)))


def _entry_lines(places, entries, target):
    if not entries:
        return note("(no stored entries)", target)
    printer = TARGETS[target]
    # shared parts named when the entries are large on average (small ones read better
    # whole, even where a neighbour repeats them: a Hessian's (i, j) and (j, i))
    large = tree_size(entries) > CSE_OPS * len(entries)
    pairs, entries = shared(entries) if large else ([], entries)
    if target == "latex":
        # braced: after "\\\\" or "\\begin{aligned}" a "[" would be read as an option
        rows = r" \\ ".join(f"{{[{i}, {j}]}} &= {printer(e)}" for (i, j), e in zip(places, entries))
        return r"\begin{aligned}" + rows + r"\end{aligned}" + _where(pairs, target, printer)
    if target == "mathml":
        rows = "".join(f"<mtr><mtd><mtext>[{i}, {j}]</mtext></mtd><mtd><mo>=</mo>"
                       f"{printer(e)}</mtd></mtr>" for (i, j), e in zip(places, entries))
        return f"<mtable>{rows}</mtable>" + _where(pairs, target, printer)
    if target == "pretty":
        lines = [printer(sympy.Eq(sympy.Symbol(f"[{i}, {j}]"), e, evaluate=False))
                 for (i, j), e in zip(places, entries)]
    else:
        lines = [f"[{i}, {j}] = {printer(e)}" for (i, j), e in zip(places, entries)]
    return "\n".join(lines) + _where(pairs, target, printer)
