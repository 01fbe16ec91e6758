"""Indexed closed forms: ``Sum(v[k]**2, (k, 0, n_v - 1))`` where there is no matrix notation.

A tensor whose sizes are unknown (``placeholder(shape=(None,))``) has no elementwise
expansion, and matrix notation covers only what matrix algebra writes.  Its
*indexed* form writes one entry with symbolic indices: element ``i`` of each
node is a scalar SymPy expression in ``i`` (leaves are ``IndexedBase`` entries
``v[i]``, reductions ``Sum`` over a fresh index up to the symbolic size, a
scatter ``KroneckerDelta``/``Piecewise``).  A tensor's form is that expression
over ``ArrayComprehension`` bounds (``[... for i = 0 … n_v − 1]``); a scalar's is
the expression.  Work is bounded: each (node, index) is built once, and more than
``MAX_TERMS`` of them raise :class:`~symgrad.forms.lifting.Unsupported`.

Imports the graph, ``lifting`` (``Unsupported``, ``size_of``) and ``symbolic``.

>>> import symgrad as sg
>>> with sg.Graph().as_default():
...     v = sg.placeholder(sg.float64, shape=(None,), name="v")
...     indexed_form(sg.reduce_sum(v * v))
Sum(v[k]**2, (k, 0, n_v - 1))
"""
from __future__ import annotations

import numpy as np
import sympy
from sympy.tensor.array import ArrayComprehension

from .lifting import Unsupported, size_of
from .symbolic import is_symbolic_leaf, to_number

MAX_TERMS = 5000      # (node, index) pairs built for one form: bounds time and size
_SUMS = "klmpqr"


class _Builder:
    """Element ``idx`` of each node as a scalar expression, built once per (node, idx)."""

    def __init__(self):
        self.memo, self.count = {}, 0

    def fresh(self):
        name = _SUMS[self.count % 6] + (f"_{self.count // 6}" if self.count >= 6 else "")
        self.count += 1
        return sympy.Symbol(name, integer=True)

    def at(self, node, idx):
        key = (node, tuple(idx))
        if key not in self.memo:
            if len(self.memo) >= MAX_TERMS:
                raise Unsupported(f"the indexed form needs more than {MAX_TERMS} terms")
            rule = RULES.get(node.opdef.name) or (_elementwise if node.opdef.kind == "elementwise"
                                               else _no_rule)
            self.memo[key] = _leaf(node, idx) if node.is_leaf else rule(self, node, list(idx))
        return self.memo[key]


def _leaf(node, idx):
    if is_symbolic_leaf(node):
        if not node.shape:
            return sympy.Symbol(node.op_name, real=True)
        return sympy.IndexedBase(node.op_name, shape=tuple(size_of(d) for d in node.shape))[
            tuple(idx)]
    flat = np.asarray(node.value).reshape(-1)
    if flat.size and np.all(flat == flat[0]):
        return to_number(flat[0])
    raise Unsupported(f"the literal {node.name!r} is an array of different numbers")


def _no_rule(b, node, idx):
    raise Unsupported(f"op {node.opdef.name!r} (node {node.name!r}) has no indexed form here")


def _aligned(x, out_shape, idx):
    """Index of input ``x`` for output element ``idx`` under numpy broadcasting."""
    lead = len(out_shape) - x.ndim
    return [0 if isinstance(d, (int, np.integer)) and d == 1 and out_shape[lead + a] != 1
            else idx[lead + a] for a, d in enumerate(x.shape)]


def _elementwise(b, node, idx):
    expr, syms = node.opdef.expr([x.dtype for x in node.inputs], **node.attrs)
    args = [b.at(x, _aligned(x, node.shape, idx)) for x in node.inputs]
    return expr.xreplace(dict(zip(syms, args)))


def _reduced(b, node, idx, combine):
    x, axis = node.inputs[0], tuple(node.attrs["axis"])
    keep = node.attrs.get("keepdims")
    it, full, limits = iter(idx), [], []
    for a in range(x.ndim):
        if a in axis:
            k = b.fresh()
            full.append(k)
            limits.append((k, 0, size_of(x.shape[a]) - 1))
            if keep:
                next(it)
        else:
            full.append(next(it))
    return combine(b.at(x, full), *limits)


def _reduce_sum(b, node, idx):
    return _reduced(b, node, idx, sympy.Sum)


def _reduce_prod(b, node, idx):
    return _reduced(b, node, idx, sympy.Product)


def _matmul(b, node, idx):
    x, y = node.inputs
    if x.ndim != 2 or y.ndim not in (1, 2):
        raise Unsupported("matmul of batches has no indexed form here")
    k = b.fresh()
    right = [k] if y.ndim == 1 else [k, idx[-1]]
    return sympy.Sum(b.at(x, [idx[0], k]) * b.at(y, right), (k, 0, size_of(x.shape[1]) - 1))


def _transpose(b, node, idx):
    src = [None] * node.ndim
    for out_axis, in_axis in enumerate(node.attrs["perm"]):
        src[in_axis] = idx[out_axis]
    return b.at(node.inputs[0], src)


def _reshape(b, node, idx):
    # Only reshapes that add or drop axes of size 1 (or rename an unknown size)
    x = node.inputs[0]
    inner = [i for i, d in zip(idx, node.shape) if not (isinstance(d, int) and d == 1)]
    kept = [d for d in x.shape if not (isinstance(d, int) and d == 1)]
    if len(kept) != len(inner) or any(isinstance(p, int) and isinstance(q, int) and p != q
                                      for p, q in zip(kept, [d for d in node.shape if not (
                                          isinstance(d, int) and d == 1)])):
        raise Unsupported(f"reshape from {x.shape} to {node.shape} has no indexed form here")
    it = iter(inner)
    return b.at(x, [0 if isinstance(d, int) and d == 1 else next(it) for d in x.shape])


def _broadcast_to(b, node, idx):
    x = node.inputs[0]
    return b.at(x, _aligned(x, node.shape, idx))


def _expand_index(index, ndim):
    if any(i is Ellipsis for i in index):
        at = index.index(Ellipsis)
        fill = ndim - sum(1 for i in index if i is not None and i is not Ellipsis)
        index = index[:at] + (slice(None),) * fill + index[at + 1:]
    used = sum(1 for i in index if i is not None)
    return tuple(index) + (slice(None),) * (ndim - used)


def _start_step(item, size):
    if isinstance(item, np.ndarray):
        raise Unsupported("indexing with an integer array has no indexed form here")
    step = 1 if item.step is None else item.step
    if step <= 0:
        raise Unsupported("a negative slice step has no indexed form here")
    start = 0 if item.start is None else item.start
    return (start + size if start < 0 else start), step


def _index(b, node, idx):
    x = node.inputs[0]
    it, src = iter(idx), []
    for item in _expand_index(node.attrs["index"], x.ndim):
        if item is None:                     # a new axis of size 1
            next(it)
        elif isinstance(item, int):
            src.append(item + size_of(x.shape[len(src)]) if item < 0 else item)
        else:
            start, step = _start_step(item, size_of(x.shape[len(src)]))
            src.append(start + step * next(it))
    return b.at(x, src)


def _index_add(b, node, idx):
    # out[i] = g[i - start] where i is inside the slice (at the integer), else 0
    g = node.inputs[0]
    it, src, cond = iter(zip(idx, node.shape)), [], []
    for item in _expand_index(node.attrs["index"], node.ndim):
        if item is None:                     # g has a size-1 axis here
            src.append(0)
            continue
        i, d = next(it)
        if isinstance(item, int):
            cond.append(sympy.Eq(i, item + size_of(d) if item < 0 else item))
            continue
        start, step = _start_step(item, size_of(d))
        if step != 1:
            raise Unsupported("a scatter with a slice step has no indexed form here")
        stop = size_of(d) if item.stop is None else item.stop
        stop = stop + size_of(d) if isinstance(stop, int) and stop < 0 else stop
        cond += [c for c, trivial in ((i >= start, start == 0), (i < stop, stop == size_of(d)))
                 if not trivial]          # 0 <= i < d holds already
        src.append(i - start)
    return sympy.Piecewise((b.at(g, src), sympy.And(*cond)), (0, True))


RULES = {"reduce_sum": _reduce_sum, "reduce_prod": _reduce_prod, "matmul": _matmul,
         "transpose": _transpose, "reshape": _reshape, "broadcast_to": _broadcast_to,
         "index": _index, "index_add": _index_add,
         "dim_size": lambda b, node, idx: sympy.Mul(*[size_of(node.inputs[0].shape[a])
                                                      for a in node.attrs["axis"]]),
         # drawn numbers are named, as leaves are (their values exist per size only)
         "random_draw": lambda b, node, idx: sympy.IndexedBase(
             node.op_name, shape=tuple(size_of(d) for d in node.shape))[tuple(idx)],
         "positions": lambda b, node, idx: idx[0]}


def out_indices(ndim):
    names = "ij" if ndim <= 2 else [f"i_{a}" for a in range(ndim)]
    return [sympy.Symbol(n, integer=True) for n in names[:ndim]]


def indexed_form(t):
    """The indexed closed form of ``t``: a scalar expression, or an ArrayComprehension.

    Raises :class:`~symgrad.forms.lifting.Unsupported` naming the op without one.
    """
    idx = out_indices(t.ndim)
    expr = _Builder().at(t, idx)
    if not idx:
        return expr
    return ArrayComprehension(expr, *[(i, 0, size_of(d) - 1) for i, d in zip(idx, t.shape)])
