"""The partial derivatives of the elementwise ops, derived once and shipped.

``ElementwiseOp.partials`` differentiates each op's rule with ``sympy.diff`` (or
builds its hand-written convention) the first time a process meets it.  In a fresh
process that is SymPy's slowest work (its caches are cold): 1-5 ms per op, most of
a small program's first gradient.  ``partials.json`` beside this module holds the
same expressions, derived by that code and written as ``sympy.srepr`` text (for
float inputs and no attributes, the common case), so a new process rebuilds them
from text instead of deriving them.  The table is only a cache of the derivation:

- an entry is used only under the SymPy version that wrote it (else: derived);
- ops and dtypes not in it are derived as before (adding an op touches one file);
- ``tests/test_derived_table.py`` derives every entry again and requires the
  same expression, ``srepr`` for ``srepr``.

Regenerate it after changing a rule or SymPy (the test says so):
``python -c "from symgrad.ops import derived; derived.write_table()"``.
Imports json and SymPy (with ``ops.elementwise``, which uses it).

>>> import sympy
>>> entry = lookup("sin", ("f",))
>>> entry is None or entry[0] == sympy.cos(sympy.Symbol("_x0", real=True))
True
"""
from __future__ import annotations

import json
import os

import sympy

PATH = os.path.join(os.path.dirname(__file__), "partials.json")
_TABLE: list = []   # [the loaded table or {}]
_GENERIC: list = []  # [the loaded second-order table or {}]
_NAMES: dict = {}   # the namespace srepr text is read in


def lookup(name, kinds):
    """The shipped partials of op ``name`` for inputs of dtype kinds ``kinds`` (SymPy
    expressions or None, one per input), or None when the table has no entry."""
    if not _TABLE:
        _TABLE.append(_load())
    texts = _TABLE[0].get(f"{name}:{''.join(kinds)}")
    if texts is None:
        return None
    return [None if t is None else eval(t, _NAMES) for t in texts]  # noqa: S307 (our file)


def lookup_generic(expr, nargs):
    """The shipped partials of the generic elementwise op of expression ``expr`` over
    ``nargs`` float inputs, or None.  Its entries are the nodes the derivative rules
    build, ``g * partial`` of each op above: their partials are what a Hessian
    (forward over reverse) differentiates, SymPy's ~5 ms per rule otherwise."""
    if not _GENERIC:
        _GENERIC.append(_load("generic"))
    if not _GENERIC[0]:
        return None
    texts = _GENERIC[0].get(f"{nargs}:{sympy.srepr(expr)}")
    if texts is None:
        return None
    return [None if t is None else eval(t, _NAMES) for t in texts]  # noqa: S307 (our file)


def _load(section="partials"):
    try:
        with open(PATH, encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return {}
    if data.get("sympy") != sympy.__version__:   # another SymPy may write other forms
        return {}
    _load_names()
    return data.get(section, {})


def derive_table():
    """``{"op:kinds": [srepr text or None, ...]}``: every elementwise op without
    attributes, float inputs, derived now (entries that do not read back equal are left
    out)."""
    import numpy as np
    from .base import REGISTRY
    out = {}
    for name, op in sorted(REGISTRY.items()):   # ElementwiseOps (they have ``_derived``)
        if not hasattr(op, "_derived") or op.nargs < 1:
            continue
        try:
            parts, _ = op._derived((np.dtype(np.float64),) * op.nargs)
        except TypeError:   # a rule that needs attributes
            continue
        texts = [None if p is None else sympy.srepr(sympy.sympify(p)) for p in parts]
        if not _NAMES:
            _load_names()
        if all(t is None or sympy.srepr(eval(t, _NAMES)) == t for t in texts):  # noqa: S307
            out[f"{name}:{'f' * op.nargs}"] = texts
    return out


def derive_generic(table):
    """``{"nargs:srepr of g * partial": [srepr text or None, ...]}``: the partials of the
    generic op's node that each entry of ``table`` (``derive_table``) makes in a
    reverse sweep (``ElementwiseOp.cotangent_rule``), derived now."""
    import numpy as np
    from .base import REGISTRY
    f8, generic, out = np.dtype(np.float64), REGISTRY["elementwise"], {}
    for key in sorted(table):
        name, kinds = key.split(":")
        dtypes = (f8,) * len(kinds)
        parts, syms = REGISTRY[name]._derived(dtypes)
        for part in parts:
            rule = generic.cotangent_rule(part, syms, dtypes, f8)
            if not isinstance(rule, tuple):   # None, zeros, g or -g: no generic node
                continue
            used, expr = rule
            second, _ = generic._derived((f8,) * (len(used) + 1), expr=expr)
            texts = [None if p is None else sympy.srepr(sympy.sympify(p)) for p in second]
            if all(t is None or "Dummy(" not in t and   # (a Dummy's text differs per run)
                   sympy.srepr(eval(t, _NAMES)) == t for t in texts):  # noqa: S307
                out[f"{len(used) + 1}:{sympy.srepr(expr)}"] = texts
    return out


def _load_names():
    """The names srepr text uses: SymPy's, and symgrad's own functions (sigmoid...)."""
    from . import functions
    from sympy.functions.elementary.piecewise import ExprCondPair
    _NAMES.update(vars(sympy))
    _NAMES.update({n: getattr(functions, n) for n in functions.__all__}, ExprCondPair=ExprCondPair)


def write_table(path=PATH):
    """Derive the table and write it to ``path`` (``partials.json`` by default)."""
    table = derive_table()
    data = {"sympy": sympy.__version__, "partials": table, "generic": derive_generic(table)}
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(data, fh, indent=0, sort_keys=True)
        fh.write("\n")
    return data

