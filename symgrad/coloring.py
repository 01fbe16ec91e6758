"""Colourings that compress sparse derivatives (Gebremedhin, Manne & Pothen 2005).

Column colouring (forward seeds) or row colouring (reverse seeds) for a Jacobian:
columns of one colour share no row, so one compressed sweep gives all of them.
Greedy star colouring for a symmetric Hessian: adjacent vertices differ and every
path on four vertices uses at least three colours, so each nonzero H[i, j] is alone
in its colour in row i or in row j and is read directly from one compressed column.

Patterns are boolean arrays, ``scipy.sparse`` matrices, or anything with
``.nonzero()`` and ``.shape`` listing each nonzero once (``patterns.seed_sets``);
the work is proportional to the nonzeros (and their neighbourhoods), so patterns of
10**5 rows colour in about a second.  Imports numpy only.

>>> import numpy as np
>>> tri = np.eye(5, dtype=bool) | np.eye(5, k=1, dtype=bool) | np.eye(5, k=-1, dtype=bool)
>>> int(star_coloring(tri).max()) + 1
3
"""
from __future__ import annotations

import numpy as np


def _coordinates(pattern):
    """(rows, columns, shape) of a pattern's nonzeros in row-major order."""
    if hasattr(pattern, "tocsr"):
        csr = pattern.tocsr()
        csr.sum_duplicates()
        csr.eliminate_zeros()
        rows, cols = csr.nonzero()
        shape = csr.shape
    elif hasattr(pattern, "nonzero") and not isinstance(pattern, np.ndarray):
        rows, cols = pattern.nonzero()   # (``patterns.seed_sets``: unique entries)
        shape = pattern.shape
    else:
        pattern = np.asarray(pattern, dtype=bool)
        rows, cols = np.nonzero(pattern)
        shape = pattern.shape
    order = np.lexsort((cols, rows))
    return rows[order].astype(np.int64), cols[order].astype(np.int64), tuple(shape)


def _neighbours(rows, cols, n):
    """Adjacency lists (sorted, unique) of the graph with edges (rows[k], cols[k])."""
    order = np.lexsort((cols, rows))
    rows, cols = rows[order], cols[order]
    keep = np.ones(len(rows), dtype=bool)
    keep[1:] = (rows[1:] != rows[:-1]) | (cols[1:] != cols[:-1])
    rows, cols = rows[keep], cols[keep]
    bounds = np.searchsorted(rows, np.arange(n + 1)).tolist()
    flat = cols.tolist()
    return [flat[a:b] for a, b in zip(bounds[:-1], bounds[1:])]


def _smallest_free(forbidden):
    c = 0
    while c in forbidden:
        c += 1
    return c


def column_coloring(pattern):
    """Colours of the columns of a 2-D pattern such that columns sharing a row differ."""
    rows, cols, (m, n) = _coordinates(pattern)
    rows_of = _neighbours(cols, rows, n)
    cols_of = _neighbours(rows, cols, m)
    colors = [-1] * n
    for j in _by_degree(rows_of):
        forbidden = set()
        for i in rows_of[j]:
            forbidden.update([colors[k] for k in cols_of[i]])
        colors[j] = _smallest_free(forbidden)
    return np.asarray(colors, dtype=np.int64)


def _forbidden_for(v, adj, colors, around, n):
    """Colours v may not take: its neighbours', and those closing a two-coloured P4.

    ``around[x * n + c]`` counts x's neighbours of colour c, so "x has a neighbour
    other than w coloured like w" is ``around[x * n + colors[w]] >= 2``.
    """
    forbidden = set()
    for w in adj[v]:
        cw = colors[w]
        if cw >= 0:
            forbidden.add(cw)
        for x in adj[w]:
            cx = colors[x]
            if x != v and cx >= 0 and (cw < 0 or around.get(x * n + cw, 0) >= 2):
                forbidden.add(cx)
    return forbidden


def star_coloring(pattern):
    """A greedy star colouring of the graph of a symmetric pattern (diagonal ignored)."""
    rows, cols, (n, _) = _coordinates(pattern)
    off = rows != cols
    cliques = _clique_colors(rows[off], cols[off], n)
    if cliques is not None:
        return cliques
    adj = _neighbours(np.concatenate([rows[off], cols[off]]),
                      np.concatenate([cols[off], rows[off]]), n)
    colors, around = [-1] * n, {}
    for v in _by_degree(adj):
        c = colors[v] = _smallest_free(_forbidden_for(v, adj, colors, around, n))
        for w in adj[v]:
            key = w * n + c
            around[key] = around.get(key, 0) + 1
    return np.asarray(colors, dtype=np.int64)


def _clique_colors(rows, cols, n):
    """Colours of a graph that is a disjoint union of cliques (a block-diagonal pattern,
    blocks in any order), else None: each vertex's rank in its clique.

    No fewer colours exist (a clique of k needs k), and it is a star colouring: a path
    on four vertices lies in one clique, so its colours differ.  ``rows``/``cols``:
    the edges, both directions, each once.  Vertex v's clique would be its closed
    neighbourhood, labelled by its least member; the graph is a union of cliques
    exactly when every edge joins two vertices of one label and every vertex is
    adjacent to all the others of its label.
    """
    if not np.array_equal(np.sort(cols * n + rows), rows * n + cols):
        return None   # (not symmetric: the greedy colouring decides)
    degree = np.bincount(rows, minlength=n)
    label = np.arange(n, dtype=np.int64)
    np.minimum.at(label, rows, cols)
    if not np.array_equal(label[rows], label[cols]) or \
            not np.array_equal(np.bincount(label, minlength=n)[label], degree + 1):
        return None
    return np.bincount(rows[cols < rows], minlength=n).astype(np.int64)


def _by_degree(adj):
    """Vertices by decreasing degree (ties: by number), the greedy order."""
    degree = np.fromiter(map(len, adj), dtype=np.int64, count=len(adj))
    return np.argsort(-degree, kind="stable").tolist()


def star_recovery(pattern, colors):
    """For each nonzero (i, j) in row-major order: where it sits in H @ S.

    Returns ``(rows, cols, seed, at)``: the nonzero (i, j) is entry ``at`` of seed
    ``seed`` of the compressed product (``H S[:, seed]``)[at].
    """
    rows, cols, _ = _coordinates(pattern)
    colors = np.asarray(colors, dtype=np.int64)
    ncolors = int(colors.max()) + 1 if len(colors) else 1
    keys, counts = np.unique(rows * ncolors + colors[cols], return_counts=True)

    def alone(key):
        at = np.clip(np.searchsorted(keys, key), 0, max(len(keys) - 1, 0))
        return (keys[at] == key) & (counts[at] == 1) if len(keys) else np.zeros_like(key, bool)

    in_row = alone(rows * ncolors + colors[cols])
    in_col = alone(cols * ncolors + colors[rows])
    if not np.all(in_row | in_col):
        raise AssertionError("internal: the colouring is not a star colouring")
    seed = np.where(in_row, colors[cols], colors[rows])
    at = np.where(in_row, rows, cols)
    return rows, cols, seed, at
