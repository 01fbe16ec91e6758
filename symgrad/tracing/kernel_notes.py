"""Notes of what TF's kernels refuse at run time, kept on the nodes they concern.

symgrad's ops are total: a gather by a one-hot contraction gives zeros for an id
outside ``[0, n)`` (its one-hot row is zeros), a segment sum drops such an id, and
the reference evaluator and the compiled code agree on that.  TF's CPU kernels raise
``InvalidArgumentError`` instead.  The functions that build such ops note here what
TF would check -- the kind of check and the nodes whose values it reads -- and a
front end that reproduces TF's run-time errors (``compat``'s Session) reads the notes
of the nodes it computes.  ``sg.evaluate`` and ``sg.compile`` ignore them.

Kinds (``info`` in brackets):

- ``"index"``: every id of ``nodes[0]`` is in ``[0, n)``, n the size of axis
  ``axis`` of ``nodes[1]`` (``label``: ``"gather"`` or ``"slice:<axis>"``, which message;
  ``"tensor_array_write"``, ``"_grows"``, ``"_scatter"`` or ``"_read"``: a TensorArray's,
  ``nodes[1]`` its stacked elements).
- ``"nd"``: every index tuple (last axis) of ``nodes[0]`` addresses ``nodes[1]``.
- ``"segment"``: every id of ``nodes[0]`` is below ``num`` (negative ids are dropped;
  a ``num`` known only at run time, a Dim, is the first size of ``named``'s value).
- ``"refused"``: TF's kernel refuses the op whatever the values (``message``;
  ``unimplemented``: as its UnimplementedError), e.g. conv2d strides on the batch axis;
  ``nodes[0]`` is the op's input.
- ``"sorted"``: the ids ``nodes[0]`` of a ``tf.segment_*`` op are sorted and not
  negative (ids known when tracing too: TF's kernel checks them when the graph runs).
- ``"scatter_nd"``: every index tuple of ``nodes[0]`` addresses ``shape``.
- ``"slice"``: the begins ``nodes[0]`` of ``tf.slice``'s windows ``nodes[2:]`` along
  ``axes`` fit the input ``nodes[1]`` (lengths and sizes read off the run's values).
- ``"labels"``: the class ids ``nodes[0]`` are in ``[0, n)``, n the last size of the
  logits ``nodes[1]`` (sparse softmax cross entropy).
- ``"partitions"``: the partitions ``nodes[0]`` are in ``[0, num)``.
- ``"stitch"``: the run-time indices ``nodes[0]`` of a dynamic stitch are not negative
  (and, for symgrad's static result, a permutation).
- ``"seq_lens"``: no length ``nodes[0]`` exceeds axis ``seq`` of ``nodes[1]``
  (``tf.reverse_sequence``).
- ``"range"``: the run-time bounds ``nodes`` (start, limit, delta) of a ``range``
  have a nonzero delta walking from start toward limit.
- ``"nonzero"``: no entry of ``nodes[0]`` is 0 (``message``; ``internal``: TF raises
  its InternalError, as for ``truncatediv`` by zero).

``named`` is the node whose op name TF's message gives; :func:`carry` copies notes to
rebuilt nodes (map_fn's batched body).  Imports ``ops.onehot`` (its ``own``).

>>> class N: pass
>>> out, ids, table = N(), N(), N()
>>> note(out, "index", [ids, table], named=out, axis=0, label="gather")
>>> [c.kind for c in notes_of(out)], notes_of(ids)
(['index'], ())
"""
from __future__ import annotations

from typing import NamedTuple

from ..ops.onehot import own


class Note(NamedTuple):
    kind: str
    nodes: tuple
    named: object
    info: dict


def note(node, kind, nodes, named=None, **info):
    """Record on ``node`` that TF checks ``kind`` over the values of ``nodes``.  A node
    of an enclosing graph (the ids of a gather in a loop body or cond branch, fed
    outside) is recorded as the stand-in ``node``'s graph captured for it: the Session
    reads the body's values there."""
    if getattr(node, "graph", None) is not None:   # (a graph's node: onehot.own)
        nodes = [own(node, x) for x in nodes]
    node.__dict__.setdefault("kernel_notes", []).append(
        Note(kind, tuple(nodes), node if named is None else named, info))


def notes_of(node):
    """The notes recorded on ``node`` (empty for most)."""
    return tuple(node.__dict__.get("kernel_notes", ()))


# the kinds whose check reads the same values when a leading batch axis joins the ids
# (map_fn's rows, control.vectorize); the others are dropped there
_CARRIED = ("index", "nd", "segment", "labels", "scatter_nd", "nonzero", "sorted", "refused")


def carry(copies, batched=()):
    """Note on each copy in ``copies`` ({node: its copy}) what its original's notes say,
    over the copies of their nodes; a table in ``batched`` gained a leading axis."""
    for old, new in copies.items():
        if new is old:
            continue
        for c in notes_of(old):
            if c.kind not in _CARRIED or c.kind == "nd" and c.nodes[1] in batched:
                continue
            info = dict(c.info)
            if c.kind == "index" and c.nodes[1] in batched:
                info["axis"] += 1
            note(new, c.kind, [copies.get(n, n) for n in c.nodes],
                 named=copies.get(c.named, c.named), **info)
