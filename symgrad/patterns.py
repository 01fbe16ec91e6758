"""Structural sparsity: of any tensor, and of Jacobians/Hessians as index sets.

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

These masks are dense booleans of each node's shape.  For a derivative at size,
``seed_pattern(out, seed)`` works on the *unbatched* sweep instead: each node that
depends on the seed leaf carries the set of seed entries each of its elements
depends on (a sparse boolean matrix, rows = elements), composed through the ops'
local dependence rules (``ops.links``; elementwise ops through their SymPy partials
with the structurally zero inputs substituted).  Memory and time are proportional
to the nonzeros: this is the pattern behind ``sparse=True`` (Rosenbrock with
10**5 variables in about a second).  Colourings live in ``symgrad.coloring``.

Imports graph, ops, elementwise symbols and ``seed_sets`` (the index sets); scipy for
``seed_pattern``.

>>> from symgrad import tracing as t
>>> with t.Graph().as_default():
...     x = t.Variable([1.0, 2.0, 3.0], name="x")
...     sparsity(t.concat([x[:1] * 0.0, x[1:] + 1.0], axis=0)).tolist()
[False, True, True]
"""
from __future__ import annotations

import numpy as np
import sympy

from .coloring import column_coloring, star_coloring, star_recovery  # noqa: F401 (re-export)
from .errors import NotATensorError, ShapeError
from .graph import Node, ancestors, is_static
from .seed_sets import _Rows, _sorted_unique
from .values import is_sparse_result

_RNG_SEED = 20260
_SUBS_CACHE: dict = {}


def sparsity(t):
    """The structural nonzero pattern of tensor ``t``: a boolean array of t's shape.

    For a Jacobian (``sg.jacobian``) or Hessian (``sg.hessians``) this is the
    derivative's sparsity pattern, read from index sets on its unbatched sweep (memory
    and time follow the nonzeros, plus the returned array itself).
    """
    if not isinstance(t, Node):
        hint = " (a sparse result's pattern is its .pattern)" if is_sparse_result(t) else ""
        raise NotATensorError(f"sparsity(t): {type(t).__name__} is not a tensor of the graph"
                              f"{hint}; pass a tensor such as sg.hessians(f, x)[0]")
    require_known_sizes([t], "sparsity(t)")
    found = _unit_sweep_pattern(t)
    return _Analysis([t]).run()[t] if found is None else found


def require_known_sizes(outputs, what):
    """ShapeError naming the placeholders of unknown size below ``outputs``, if any: a
    pattern is read element by element (a Hessian in w is 4 x 4, but its sweep runs
    through ``X @ w`` with X of shape (None, 4))."""
    unknown = [n for n in ancestors(outputs) if n.shape is None or not is_static(n.shape)]
    if not unknown:
        return
    named = [n for n in unknown if n.is_leaf] or unknown
    listed = ", ".join(f"{n.name!r} of shape {'any' if n.shape is None else n.shape}"
                       for n in named[:3])
    raise ShapeError(f"{what}: the graph below it has sizes known only when values arrive "
                     f"({listed}); a structural pattern is read element by element, so "
                     "give those placeholders fixed sizes (the dense result serves every "
                     "size)")


def _unit_sweep_pattern(t):
    """The pattern of a dense Jacobian or Hessian (reshapes and transposes of a sweep
    batched over unit seeds) from index sets on its unbatched sweep: no n x n mask per
    node.  None for any other tensor."""
    chain, node = [], t
    while node not in node.graph.batches and node.opdef.name in ("reshape", "transpose"):
        chain.append(node)
        node = node.inputs[0]
    entry = node.graph.batches.get(node)
    if entry is None:
        return None
    one, seed, batch = entry
    if not is_unit_batch(batch, seed.size) or \
            not all(is_static(n.shape) for n in ancestors([one])):
        return None
    value = seed_pattern(one, seed).T.toarray().reshape(node.shape)  # row b: one at e_b
    for c in reversed(chain):
        value = np.asarray(c.opdef.impl(value, **c.attrs))
    return value


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
            masks[node] = self.visit(node, masks, known)
            if node in self.outputs:
                out[node] = np.broadcast_to(masks[node], node.shape).copy()
            self.release(node, masks)
        return out

    def release(self, node, *tables):
        """Forget the entries of inputs that no later node reads."""
        for x in node.inputs:
            if self.last_use.get(x) is node and x not in self.outputs:
                for table in tables:
                    table.pop(x, None)

    def visit(self, node, masks, known):
        """The mask of ``node`` (and its value in ``known`` when all inputs are known)."""
        if not node.inputs:
            value = node.value if node.opdef.name == "const" else None
            if value is not None:
                known[node] = np.asarray(value)
            return (known[node] != 0) if node in known else np.ones(node.shape, dtype=bool)
        if all(x in known for x in node.inputs):
            known[node] = np.asarray(node.opdef.impl(*[known[x] for x in node.inputs],
                                                  **node.attrs))
            return known[node] != 0
        if node.opdef.kind == "elementwise" and hasattr(node.opdef, "expr"):
            return _elementwise_mask(node, [masks[x] for x in node.inputs])
        return self.probe(node, masks, known)

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
                    value = np.asarray(node.opdef.impl(*args, **node.attrs))
            except Exception:  # noqa: BLE001 (an op that refuses these values: conservative)
                return np.ones(node.shape, dtype=bool)
            hits |= np.broadcast_to(value != 0, node.shape)
        return hits


def _zero_codes(node, masks):
    """Per element, a bit per input (set: may be nonzero), and the codes that occur."""
    code = np.zeros(node.shape, dtype=np.int64)
    for i, m in enumerate(masks):
        code |= np.broadcast_to(m, node.shape).astype(np.int64) << i
    return code, np.flatnonzero(np.bincount(code.ravel(), minlength=1 << len(masks)))


def _elementwise_mask(node, masks):
    """Where substituting the zero inputs' 0 (false) into the rule leaves it nonzero."""
    strong = node.attrs.get("strong")
    code, present = _zero_codes(node, masks)
    table = np.zeros(1 << len(masks), dtype=bool)
    for c in present:
        zero = [i for i in range(len(masks)) if not (c >> i) & 1]
        table[c] = not (strong is not None and strong in zero) and _nonzero(node, tuple(zero))
    return table[code]


def _nonzero(node, zero, wrt=None):
    """False when the rule is identically 0 with the inputs ``zero`` set to 0 (false);
    with ``wrt``: False when the rule then no longer reads input ``wrt`` (so its
    partial in that input is 0: a conservative test, never a missed dependence)."""
    dtypes = tuple(x.dtype.str for x in node.inputs)
    attrs = tuple(sorted((k, v) for k, v in node.attrs.items() if k != "label"))
    try:
        hash(attrs)   # (SymPy expressions hash; printing them cost more than the rest)
    except TypeError:
        attrs = repr(attrs)
    key = (node.opdef.name, dtypes, attrs, zero, wrt)
    hit = _SUBS_CACHE.get(key)
    if hit is None:
        hit = _SUBS_CACHE[key] = _substituted_nonzero(node, zero, wrt)
    return hit


def _substituted_nonzero(node, zero, wrt):
    expr, syms = node.opdef.expr([x.dtype for x in node.inputs], **node.attrs)
    subs = {syms[i]: sympy.false if node.inputs[i].dtype.kind == "b" else sympy.S.Zero
            for i in zero}
    try:
        value = sympy.sympify(expr).xreplace(subs)
        if wrt is not None:
            return syms[wrt] in value.free_symbols
        return not (value == 0 or value is sympy.false)
    except Exception:  # noqa: BLE001 (an undecidable substitution: conservative)
        return True


# -- patterns of derivatives: index sets on the unbatched sweep ----------------------------

def is_unit_batch(batch, n):
    """True when ``batch`` is ``seeds.identity_seeds``: reshape(index_add(ones, (n, n), (k, k)))."""
    node = batch
    while node.opdef.name == "reshape":
        node = node.inputs[0]
    if node.opdef.name != "index_add" or tuple(node.attrs["shape"]) != (n, n):
        return False
    index, ones = node.attrs["index"], node.inputs[0]
    k = np.arange(n)
    if len(index) != 2 or not all(isinstance(i, np.ndarray) and np.array_equal(i, k)
                                  for i in index):
        return False
    while ones.opdef.name in ("broadcast_to", "reshape"):
        ones = ones.inputs[0]
    return ones.is_leaf and ones.value is not None and np.all(np.asarray(ones.value) == 1)


def seed_pattern(output, seed, limit=None):
    """Which entries of ``seed`` each element of ``output`` depends on, structurally.

    Returns a ``scipy.sparse.csr_matrix`` of booleans, shape (output.size, seed.size),
    with sorted indices: for a tangent sweep ``output = J seed`` it is J's pattern.
    With ``limit``: None as soon as an element of some node on the way depends on
    more than ``limit`` seed entries (the caller's sign that compression will not pay).
    """
    found = seed_sets(output, seed, limit)
    return None if found is None else found.matrix()


def seed_sets(output, seed, limit=None):
    """:func:`seed_pattern` without scipy: the same pattern as index sets (``.shape``,
    ``.nnz``, ``.nonzero()``, ``.matrix()``), or None.  A dense Jacobian or Hessian
    reads its colouring from them (importing scipy.sparse cost its build ~8 ms)."""
    found = _SeedAnalysis([output], seed, limit).run_sets()
    return None if found is None else found[output]


def index_sets(rows, cols, m, n):
    """The index sets (m rows of entries in [0, n)) holding the pairs (rows[k], cols[k])."""
    return _Rows.union(m, n, [(np.asarray(rows, np.int64), np.asarray(cols, np.int64))])


def symmetric(sets):
    """The index sets of ``sets`` + its transpose (a square pattern), without scipy."""
    rows, cols = sets.nonzero()
    n = sets.shape[0]
    return _Rows.union(n, n, [(rows, cols), (cols, rows)])


class _SeedAnalysis(_Analysis):
    """Masks for nodes free of the seed, sparse dependence sets for the others."""

    def __init__(self, outputs, seed, limit=None):
        super().__init__(outputs)
        self.seed, self.limit = seed, limit

    def run_sets(self):
        masks, known, sets = {}, {}, {}
        n = self.seed.size
        for node in self.order:
            if node is self.seed:
                sets[node] = _Rows.identity(n)
            elif any(x in sets for x in node.inputs):
                sets[node] = self.combine(node, masks, sets)
            else:
                masks[node] = self.visit(node, masks, known)
                self.release(node, masks, sets)
                continue
            counts = sets[node].counts()
            if self.limit is not None and counts.size and counts.max() > self.limit:
                return None
            masks[node] = (counts > 0).reshape(node.shape)
            self.release(node, masks, sets)
        return {o: sets[o] if o in sets else _Rows.empty(o.size, n) for o in self.outputs}

    def combine(self, node, masks, sets):
        """The union over inputs of (local dependence pattern) applied to the input's sets."""
        ins = [np.broadcast_to(masks[x], x.shape) for x in node.inputs]
        elementwise = node.opdef.kind == "elementwise" and hasattr(node.opdef, "expr")
        rule = getattr(node.opdef, "links", None)
        parts = []
        for i, x in enumerate(node.inputs):
            if x not in sets:
                continue
            pairs = _elementwise_links(node, ins, i) if elementwise else \
                rule(node, i, ins) if rule is not None else None
            if pairs is None:  # no rule: every element reads every element of x
                cols = _sorted_unique(sets[x].indices, self.seed.size)
                pairs = (np.repeat(np.arange(node.size, dtype=np.int64), len(cols)),
                         np.tile(cols, node.size))
                parts.append(pairs)
                continue
            parts.append(sets[x].gather(*pairs))
        return _Rows.union(node.size, self.seed.size, parts)


def _elementwise_links(node, masks, i):
    """Elements of an elementwise node that depend on input i: where the rule, with
    the structurally zero inputs substituted, still reads input i."""
    strong = node.attrs.get("strong")
    code, present = _zero_codes(node, masks)
    table = np.zeros(1 << len(masks), dtype=bool)
    for c in present:
        zero = tuple(j for j in range(len(masks)) if not (c >> j) & 1)
        table[c] = not (strong is not None and strong in zero) and \
            _nonzero(node, zero, wrt=i)
    out = np.flatnonzero(table[code.ravel()])
    x = node.inputs[i]
    src = np.arange(x.size, dtype=np.int64).reshape(x.shape)
    src = np.broadcast_to(src.reshape((1,) * (node.ndim - x.ndim) + x.shape), node.shape)
    return out, src.ravel()[out]
