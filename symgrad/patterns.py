"""Structural sparsity of any tensor, and colourings that compress sparse derivatives.

``sparsity(t)`` is t's *structural* nonzero pattern: an entry outside it is 0 at
every value of the variables and placeholders; an entry inside may still be 0 at
some point.  It is read from the graph, with no evaluation at a point:

- constants are known exactly, and a node whose inputs are all constants is folded;
- an elementwise node is 0 where substituting 0 (false) for its structurally zero
  inputs makes its SymPy rule 0 (so ``x * 0`` is 0, ``x + 0`` is not, ``where``
  follows a known condition); a strong-zero product is 0 where its factor is;
- other ops (moves, scatters, sums, products, matmul, max/min, softmax, ...) run on
  the pattern with random magnitudes of either sign in [1, 2] placed at its
  nonzeros: sums of such terms cannot cancel, so moves, sums and contractions are
  exact; an input that must be known exactly (an integer tensor) that is not a
  constant makes the whole output nonzero (conservative, never a missed entry).

The masks are dense booleans, so a Hessian pattern costs n**2 bits per node.

Colourings (Gebremedhin, Manne & Pothen, SIAM Review 2005): column colouring
(forward seeds) or row colouring (reverse seeds) for a Jacobian, greedy star
colouring for a symmetric Hessian, which lets every nonzero be read directly from
one compressed column.

Imports graph, ops and elementwise symbols.

>>> from symgrad import tracing as t
>>> with t.Graph().as_default():
...     x = t.Variable([1.0, 2.0, 3.0], name="x")
...     sparsity(t.concat([x[:1] * 0.0, x[1:] + 1.0], axis=0)).tolist()
[False, True, True]
"""
from __future__ import annotations

import numpy as np
import sympy

from .errors import NotATensorError
from .graph import Node, ancestors

_RNG_SEED = 20260
_SUBS_CACHE: dict = {}


def sparsity(t):
    """The structural nonzero pattern of tensor ``t``: a boolean array of t's shape.

    For a Jacobian (``sg.jacobian``) or Hessian (``sg.hessians``) this is the
    derivative's sparsity pattern.
    """
    if not isinstance(t, Node):
        raise NotATensorError(f"sparsity(t): {type(t).__name__} is not a tensor of the graph; "
                              "pass a tensor such as sg.hessians(f, x)[0]")
    return _Analysis([t]).run()[t]


class _Analysis:
    """Masks (and, for constant subgraphs, values) of every node below some outputs."""

    def __init__(self, outputs):
        self.order = ancestors(outputs)
        self.outputs = set(outputs)
        self.rng = np.random.default_rng(_RNG_SEED)
        last = {}
        for node in self.order:
            for x in node.inputs:
                last[x] = node
        self.last_use = last

    def run(self):
        masks, known, out = {}, {}, {}
        for node in self.order:
            if not node.inputs:
                value = node.value if node.op.name == "const" else None
                if value is not None:
                    known[node] = np.asarray(value)
                masks[node] = (known[node] != 0) if node in known else \
                    np.ones(node.shape, dtype=bool)
            elif all(x in known for x in node.inputs):
                known[node] = np.asarray(node.op.impl(*[known[x] for x in node.inputs],
                                                      **node.attrs))
                masks[node] = known[node] != 0
            elif node.op.kind == "elementwise" and hasattr(node.op, "expr"):
                masks[node] = _elementwise_mask(node, [masks[x] for x in node.inputs])
            else:
                masks[node] = self.probe(node, masks, known)
            if node in self.outputs:
                out[node] = np.broadcast_to(masks[node], node.shape).copy()
            for x in node.inputs:  # free masks no later node reads
                if self.last_use.get(x) is node and x not in self.outputs:
                    masks.pop(x, None)
        return out

    def probe(self, node, masks, known):
        hits = np.zeros(node.shape, dtype=bool)
        for sign in (1.0, -1.0):
            args = []
            for x in node.inputs:
                if x in known:
                    args.append(known[x])
                elif not x.is_float:
                    return np.ones(node.shape, dtype=bool)
                else:
                    mag = self.rng.uniform(1.0, 2.0, size=x.shape)
                    args.append((sign * mag * masks[x]).astype(x.dtype))
            try:
                with np.errstate(all="ignore"):
                    value = np.asarray(node.op.impl(*args, **node.attrs))
            except Exception:  # noqa: BLE001 (an op that refuses these values: conservative)
                return np.ones(node.shape, dtype=bool)
            hits |= np.broadcast_to(value != 0, node.shape)
        return hits


def _elementwise_mask(node, masks):
    """Where substituting the zero inputs' 0 (false) into the rule leaves it nonzero."""
    strong = node.attrs.get("strong")
    shape = node.shape
    bits = [np.broadcast_to(m, shape) for m in masks]
    code = np.zeros(shape, dtype=np.int64)
    for i, m in enumerate(bits):
        code |= m.astype(np.int64) << i
    present = np.flatnonzero(np.bincount(code.ravel(), minlength=1 << len(bits)))
    table = np.zeros(1 << len(bits), dtype=bool)
    for c in present:
        zero = [i for i in range(len(bits)) if not (c >> i) & 1]
        table[c] = not (strong is not None and strong in zero) and _nonzero(node, tuple(zero))
    return table[code]


def _nonzero(node, zero):
    """False when the rule is identically 0 with the inputs ``zero`` set to 0 (false)."""
    dtypes = tuple(x.dtype.str for x in node.inputs)
    key = (node.op.name, dtypes, repr(sorted((k, v) for k, v in node.attrs.items()
                                             if k != "label")), zero)
    hit = _SUBS_CACHE.get(key)
    if hit is None:
        expr, syms = node.op.expr([x.dtype for x in node.inputs], **node.attrs)
        subs = {syms[i]: sympy.false if node.inputs[i].dtype.kind == "b" else sympy.S.Zero
                for i in zero}
        try:
            value = sympy.sympify(expr).xreplace(subs)
            hit = not (value == 0 or value is sympy.false)
        except Exception:  # noqa: BLE001 (an undecidable substitution: conservative)
            hit = True
        _SUBS_CACHE[key] = hit
    return hit


# -- colourings -------------------------------------------------------------------

def _smallest_free(forbidden):
    c = 0
    while c in forbidden:
        c += 1
    return c


def column_coloring(pattern):
    """Colours of the columns of a 2-D pattern such that columns sharing a row differ."""
    pattern = np.asarray(pattern, dtype=bool)
    rows_of = [np.flatnonzero(pattern[:, j]) for j in range(pattern.shape[1])]
    cols_of = [np.flatnonzero(pattern[i]) for i in range(pattern.shape[0])]
    colors = np.full(pattern.shape[1], -1, dtype=np.int64)
    order = sorted(range(pattern.shape[1]), key=lambda j: -len(rows_of[j]))
    for j in order:
        forbidden = {int(colors[k]) for i in rows_of[j] for k in cols_of[i] if colors[k] >= 0}
        colors[j] = _smallest_free(forbidden)
    return colors


def star_coloring(pattern):
    """A greedy star colouring of the graph of a symmetric pattern (diagonal ignored).

    Adjacent vertices differ and every path on four vertices uses at least three
    colours, so each nonzero H[i, j] is alone in its colour in row i or in row j.
    """
    pattern = np.asarray(pattern, dtype=bool)
    n = pattern.shape[0]
    adj = [set(np.flatnonzero(pattern[i] | pattern[:, i]).tolist()) - {i} for i in range(n)]
    colors = np.full(n, -1, dtype=np.int64)
    for v in sorted(range(n), key=lambda i: -len(adj[i])):
        forbidden = set()
        for w in adj[v]:
            if colors[w] >= 0:
                forbidden.add(int(colors[w]))
            for x in adj[w] - {v}:
                if colors[x] < 0:
                    continue
                if colors[w] < 0:
                    forbidden.add(int(colors[x]))
                elif any(colors[y] == colors[w] for y in adj[x] - {w}):
                    forbidden.add(int(colors[x]))
        colors[v] = _smallest_free(forbidden)
    return colors


def star_recovery(pattern, colors):
    """For each nonzero (i, j) in row-major order: where it sits in H @ S.

    Returns ``(rows, cols, seed, at)``: the nonzero (i, j) is entry ``at`` of seed
    ``seed`` of the compressed product (``H S[:, seed]``)[at].
    """
    pattern = np.asarray(pattern, dtype=bool)
    rows, cols = np.nonzero(pattern)
    count = {}
    for i, j in zip(rows.tolist(), cols.tolist()):
        count[i, int(colors[j])] = count.get((i, int(colors[j])), 0) + 1
    seed, at = np.empty(len(rows), np.int64), np.empty(len(rows), np.int64)
    for k, (i, j) in enumerate(zip(rows.tolist(), cols.tolist())):
        if count[i, int(colors[j])] == 1:
            seed[k], at[k] = colors[j], i
        else:
            if count.get((j, int(colors[i])), 0) != 1:
                raise AssertionError("internal: the colouring is not a star colouring")
            seed[k], at[k] = colors[i], j
    return rows, cols, seed, at
