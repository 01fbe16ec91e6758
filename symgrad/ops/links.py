"""Local dependence rules: which input elements each output element of an op reads.

``op.links(node, i, masks) -> (out_ids, in_ids)`` lists the pairs (output element,
element of input ``i``) through which the output can depend on input ``i``, as flat
indices into ``node`` and into ``node.inputs[i]`` (a coordinate list of the op's
structural Jacobian pattern).  ``masks[j]`` is input j's structural nonzero pattern
(a boolean array of its shape): a contraction reads ``b[j, k]`` for ``out[i, k]``
only where ``a[i, j]`` can be nonzero.  ``symgrad.patterns`` composes these rules
into the sparsity of Jacobians and Hessians, with memory proportional to the number
of structural nonzeros.  Elementwise ops need no rule (the patterns module reads
their SymPy partials); an op without one is treated as reading every element of
the input (never a missed entry, possibly a denser pattern).

Rules are pure numpy over index arrays.

>>> import numpy as np
>>> from symgrad import tracing as t
>>> with t.Graph().as_default():
...     y = t.reduce_sum(t.Variable(np.ones((2, 2))), axis=1)
...     [a.tolist() for a in REGISTRY["reduce_sum"].links(y, 0, [np.ones((2, 2), bool)])]
[[0, 0, 1, 1], [0, 1, 2, 3]]
"""
from __future__ import annotations

import numpy as np

from .base import REGISTRY, normalize_axis
from .linalg import parse_subscripts


def _ids(shape, base=0):
    return np.arange(base, base + int(np.prod(shape, dtype=np.int64)),
                     dtype=np.int64).reshape(shape)


def _moved(node, i, masks):
    # A move (reshape, transpose, broadcast, index, concat) applied to element numbers:
    # each output element names the input element it copies (0: from another input).
    args = [_ids(x.shape, 1) if j == i else np.zeros(x.shape, np.int64)
            for j, x in enumerate(node.inputs)]
    src = np.asarray(node.opdef.impl(*args, **node.attrs)).ravel()
    out = np.flatnonzero(src)
    return out, src[out] - 1


def _scattered(node, i, masks):
    # index_add: g's element j lands at position pos[j] of zeros(shape) (with repeats)
    shape, index = tuple(node.attrs["shape"]), node.attrs["index"]
    pos = _ids(shape)[index]
    g = node.inputs[0]
    src = np.broadcast_to(_ids(g.shape).reshape((1,) * (pos.ndim - g.ndim) + g.shape),
                          pos.shape)
    return pos.ravel(), src.ravel()


def _groups(node):
    """Per input element, the flat index of the reduced group (output element) it joins."""
    x = node.inputs[0]
    axis = normalize_axis(node.attrs["axis"], x.ndim)
    kept = tuple(1 if a in axis else d for a, d in enumerate(x.shape))
    return np.broadcast_to(_ids(kept), x.shape).ravel()


def _reduced(node, i, masks):
    group = _groups(node)
    return group, np.arange(group.size, dtype=np.int64)


def _along_axis(node, i, masks):
    # softmax: each output element reads its whole group along the axis
    group = _groups(node)
    members = np.argsort(group, kind="stable")
    length = group.size // max(1, int(group.max(initial=-1)) + 1) if group.size else 0
    table = members.reshape(-1, length) if length else members.reshape(0, 0)
    out = np.repeat(np.arange(group.size, dtype=np.int64), length)
    return out, table[group].ravel()


def _contraction(letters, out_letters, dims, masks, ids, i):
    """Pairs for operand i of a contraction, from the other operands' masks."""
    order = sorted(dims)
    joint = np.ones([dims[c] for c in order], dtype=bool)
    for j, (m, lets) in enumerate(zip(masks, letters)):
        if j != i:
            perm = sorted(range(len(lets)), key=lambda k: order.index(lets[k]))
            shape = [dims[c] if c in lets else 1 for c in order]
            joint = joint & np.transpose(m, perm).reshape(shape)
    coords = np.nonzero(joint)
    at = {c: coords[k] for k, c in enumerate(order)}
    out = np.ravel_multi_index([at[c] for c in out_letters], [dims[c] for c in out_letters]) \
        if out_letters else np.zeros(len(coords[0]), np.int64)
    src = ids[tuple(at[c] for c in letters[i])]
    width = int(src.max()) + 1 if src.size else 1
    pairs = np.unique(out.astype(np.int64) * width + src)  # (1-D: unique(axis=1) sorts rows)
    return pairs // width, pairs % width


def _matmul(node, i, masks):
    a, b = node.inputs
    batch = node.shape[:-2]
    shapes = [batch + a.shape[-2:], batch + b.shape[-2:]]
    lead = "abcdefgh"[:len(batch)]
    letters = [lead + "ij", lead + "jk"]
    dims = dict(zip(lead + "ijk", batch + (a.shape[-2], a.shape[-1], b.shape[-1])))
    full = [np.broadcast_to(m.reshape((1,) * (len(s) - m.ndim) + m.shape), s)
            for m, s in zip(masks, shapes)]
    x = node.inputs[i]
    ids = np.broadcast_to(_ids(x.shape).reshape((1,) * (len(shapes[i]) - x.ndim) + x.shape),
                          shapes[i])
    return _contraction(letters, lead + "ik", dims, full, ids, i)


def _einsum(node, i, masks):
    letters, out = parse_subscripts(node.attrs["subscripts"], len(node.inputs))
    if any(len(set(p)) != len(p) for p in letters):
        return None  # a diagonal: left to the conservative rule
    dims = {c: d for p, x in zip(letters, node.inputs) for c, d in zip(p, x.shape)}
    return _contraction(letters, out, dims, masks, _ids(node.inputs[i].shape), i)


def _shape_only(node, i, masks):
    # a value made from the input's shape alone (dim_size, random_draw, positions) reads
    # no element
    empty = np.zeros(0, dtype=np.int64)
    return empty, empty


for _name in ("reshape", "transpose", "broadcast_to", "index", "concat"):
    REGISTRY[_name].links = _moved
for _name in ("dim_size", "random_draw", "positions"):
    REGISTRY[_name].links = _shape_only
REGISTRY["index_add"].links = _scattered
for _name in ("reduce_sum", "reduce_prod", "reduce_max", "reduce_min", "logsumexp"):
    REGISTRY[_name].links = _reduced
REGISTRY["softmax"].links = _along_axis
REGISTRY["matmul"].links = _matmul
REGISTRY["einsum"].links = _einsum
