"""Contractions: matmul (numpy semantics for rank >= 2) and einsum.

The tracing layer reshapes vectors so ``matmul`` here always sees rank >= 2,
with broadcast batch axes.  einsum takes explicit subscripts without ellipsis.

>>> import numpy as np
>>> REGISTRY["matmul"].impl(np.eye(2), np.ones((2, 3))).shape
(2, 3)
"""
from __future__ import annotations

import numpy as np

from ..errors import ShapeError
from ..graph import Dim
from .base import REGISTRY, Example, F, Op, broadcast_shapes, register, unbroadcast


def _matmul_shape(in_shapes):
    a, b = in_shapes
    if len(a) < 2 or len(b) < 2:
        raise ShapeError(f"matmul: needs rank >= 2 operands here, got {a} and {b}")
    if a[-1] != b[-2] and not isinstance(a[-1], Dim) and not isinstance(b[-2], Dim):
        raise ShapeError(f"matmul: inner dimensions differ: {a} @ {b} "
                         f"({a[-1]} != {b[-2]})")
    return broadcast_shapes(a[:-2], b[:-2], op="matmul") + (a[-2], b[-1])


def matrix_t(t):
    """``t`` with its last two axes swapped (the matrix rules' transpose)."""
    perm = tuple(range(t.ndim - 2)) + (t.ndim - 1, t.ndim - 2)
    return F.transpose(t, perm=perm)


def _matmul_grad(node, g):
    # C = A B: dA = G B^T, dB = A^T G, summed over broadcast batch axes.
    a, b = node.inputs
    return [unbroadcast(F.matmul(g, matrix_t(b)), a.shape),
            unbroadcast(F.matmul(matrix_t(a), g), b.shape)]


register(Op("matmul", kind="contract", shape=_matmul_shape, impl=np.matmul,
            grad=_matmul_grad,
            examples=[Example((2, 3), (3, 4)), Example((2, 2, 3), (3, 1)), Example((1, 3), (3, 1))],
            doc="matrix product; dA = G B^T and dB = A^T G"))


def parse_subscripts(subscripts, nargs):
    """Split ``"ij,jk->ik"`` into input and output index strings, checking them."""
    spec = subscripts.replace(" ", "")
    if "." in spec:
        raise ShapeError("einsum: ellipsis ('...') is not supported; name every axis")
    if "->" in spec:
        ins, out = spec.split("->")
    else:
        ins = spec
        letters = ins.replace(",", "")
        out = "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    parts = ins.split(",")
    if len(parts) != nargs:
        raise ShapeError(f"einsum: {subscripts!r} names {len(parts)} operands, got {nargs}")
    for p in parts:
        if len(set(p)) != len(p):
            raise ShapeError(f"einsum: repeated index within {p!r} (a diagonal or trace) is "
                             "not supported; use sg.trace or multiply by an identity")
    if not set(out) <= set("".join(parts)) or len(set(out)) != len(out):
        raise ShapeError(f"einsum: output indices {out!r} must be distinct input indices")
    return parts, out


def _einsum_shape(in_shapes, subscripts):
    parts, out = parse_subscripts(subscripts, len(in_shapes))
    sizes = {}
    for p, shape in zip(parts, in_shapes):
        if len(p) != len(shape):
            raise ShapeError(f"einsum: {p!r} has {len(p)} indices for a tensor of shape {shape}")
        for c, d in zip(p, shape):  # a known size wins; unknown ones are checked later
            known = sizes.setdefault(c, d)
            if known != d and not isinstance(known, Dim) and not isinstance(d, Dim):
                raise ShapeError(f"einsum: index {c!r} has sizes {sizes[c]} and {d}")
            if isinstance(known, Dim) and not isinstance(d, Dim):
                sizes[c] = d
    return tuple(sizes[c] for c in out)


def _einsum_grad(node, g):
    # d/dX_i of einsum: contract g with the other operands onto X_i's indices;
    # indices summed only within X_i come back by broadcasting.
    parts, out = parse_subscripts(node.attrs["subscripts"], len(node.inputs))
    grads = []
    for i, x in enumerate(node.inputs):
        others = [p for j, p in enumerate(parts) if j != i]
        present = set(out).union(*others) if others else set(out)
        keep = "".join(c for c in parts[i] if c in present)
        spec = ",".join([out] + others) + "->" + keep
        inputs = [g] + [t for j, t in enumerate(node.inputs) if j != i]
        r = F.einsum(*inputs, subscripts=spec)
        if keep != parts[i]:
            r = F.reshape(r, shape=tuple(d if c in present else 1 for c, d in zip(parts[i], x.shape)))
            r = F.broadcast_to(r, shape=x.shape)
        grads.append(r)
    return grads


def _einsum_impl(*xs, subscripts):
    if xs[0].dtype == object:
        return np.asarray(np.einsum(subscripts, *xs), dtype=object)
    return np.asarray(np.einsum(subscripts, *xs, optimize=_worth_blas(xs, subscripts)))


# A contraction whose loop nest runs over more entries than this is handed to BLAS
# (numpy's optimize=True: tensordot), 5-10x faster there (a fed-index gather is a
# one-hot contraction over the table's rows); below it the path search costs more.
BLAS_WORK = 1 << 17


def _worth_blas(xs, subscripts):
    if len(xs) < 2 or "." in subscripts:
        return False
    sizes = {}
    for letters, x in zip(subscripts.split("->")[0].split(","), xs):
        sizes.update(zip(letters, np.shape(x)))
    return int(np.prod(list(sizes.values()), dtype=np.float64)) > BLAS_WORK


register(Op("einsum", kind="contract", shape=_einsum_shape, impl=_einsum_impl,
            grad=_einsum_grad,
            examples=[Example((2, 3), (3, 4), subscripts="ij,jk->ik"),
                      Example((3,), (3,), subscripts="i,i->"),
                      Example((2, 3), subscripts="ij->j"),
                      Example((2, 3), (4,), subscripts="ij,k->ikj")],
            doc="Einstein summation over named axes"))


def _matmul_subscripts(in_shapes):
    # For the compiler: the axes of A (..., i, k), B (..., k, j) and out (..., i, j) as
    # letters; a batch axis of size 1 that broadcasts has None (stride 0).
    out = _matmul_shape(in_shapes)
    batch = [f"b{n}" for n in range(len(out) - 2)]

    def spec(shape, last_two):
        lead = len(out) - len(shape)
        return [None if d == 1 and out[lead + n] != 1 else batch[lead + n]
                for n, d in enumerate(shape[:-2])] + last_two
    return [spec(in_shapes[0], ["i", "k"]), spec(in_shapes[1], ["k", "j"])], batch + ["i", "j"]


def _einsum_subscripts(in_shapes, subscripts):
    parts, out = parse_subscripts(subscripts, len(in_shapes))
    return [list(p) for p in parts], list(out)


REGISTRY["matmul"].subscripts = _matmul_subscripts
REGISTRY["einsum"].subscripts = _einsum_subscripts
