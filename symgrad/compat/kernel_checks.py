"""TF's run-time refusals that symgrad's total ops would answer: raised by the Session.

symgrad's ops give a value for every input (``tracing.kernel_notes``): a gather at an
id outside ``[0, n)`` gives zeros, ``7 // 0`` gives 0, ``2 ** -1`` of integers gives 0.
TF's CPU kernels raise instead, and a TF1 program relies on that (an off-by-one in a
vocabulary shows up as an error, not as zeros).  The Session computes a run's nodes
with numpy, then asks :func:`verify` about the nodes of the run that such a check
concerns (:func:`checks_in`, once per plan), with TF's error class and message:

- gathers, embedding lookups and picks ``x[i]`` at run-time ids out of range,
  ``gather_nd``/``scatter_nd`` tuples outside the shape, segment ids
  ``>= num_segments``, run-time ids of ``tf.segment_*`` that are not sorted or are
  negative (InvalidArgumentError, TF's text and the node's name);
- ``truncatediv``/``truncatemod`` of integers by zero: TF's InternalError
  ("Unexpected error in binary operator ...");
- integer ``pow`` with a negative exponent ("Integers to negative integer powers are
  not allowed"), integer ``floordiv``/``floormod`` by zero ("Integer division by
  zero"), both InvalidArgumentError.

The values of loop bodies and branches that a run computes with numpy are checked as
well (:func:`in_bodies`, through ``control.function.OBSERVERS``).  ``sg.evaluate`` and
``sg.compile`` keep the ops' own meaning (zeros), and agree with each other.

Imports numpy, ``tracing.kernel_notes``, ``control.function`` and ``compat.errors``.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     i = tf.placeholder(tf.int32, [2])
...     y = tf.gather(tf.constant([1.0, 2.0, 3.0]), i)
...     sess = tf.Session()
...     print(sess.run(y, {i: [2, 0]}))
...     try:
...         sess.run(y, {i: [2, 3]})
...     except tf.errors.InvalidArgumentError as e:
...         print(e.message.splitlines()[0])
[3. 1.]
indices[1] = 3 is not in [0, 3)
"""
from __future__ import annotations

import contextlib

import numpy as np

from ..control.function import OBSERVERS
from ..tracing.kernel_notes import notes_of
from . import errors

_INT_OPS = ("pow", "floordiv", "floormod")


def checks_in(order):
    """``[(node, note)]``: what TF checks among the nodes ``order`` computes ("int" notes
    for integer pow and division, which need none recorded)."""
    found, seen = [], set()
    for n in order:
        for c in notes_of(n):   # (one check for the notes a gather leaves on two nodes)
            key = (c.kind, tuple(map(id, c.nodes)), tuple(sorted(c.info.items())))
            if key not in seen:
                seen.add(key)
                found.append((n, c))
        name = getattr(n.opdef, "name", None)
        if name in _INT_OPS and n.dtype is not None and n.dtype.kind in "iu":
            found.append((n, None))
    return found


def verify(checks, values, feeds):
    """Raise TF's error for the first check the values of this run fail."""
    def value(node):
        for source in (values, feeds):
            if node in source:
                return np.asarray(source[node])
        held = getattr(node, "value", None) if not node.inputs else None
        return None if held is None else np.asarray(held)

    for node, c in checks:
        message = _int_check(node, value) if c is None else _check(c, value)
        if message is not None:
            named = node if c is None else c.named
            kind = errors.UnimplementedError if isinstance(message, _Unsupported) else \
                errors.InternalError if c is not None and c.info.get("internal") else \
                errors.InvalidArgumentError
            raise kind(
                None, None, f"{message}\n\t [[{{{{node {named.op_name}}}}}]]")


def _int_check(node, value):
    y = value(node.inputs[1])
    if y is None:
        return None
    if node.opdef.name == "pow":
        if (y < 0).any():
            return "Integers to negative integer powers are not allowed"
    elif (y == 0).any():
        return "Integer division by zero"
    return None


def _check(c, value):
    if c.kind == "refused":   # whatever the values (a convolution's batch strides)
        message = c.info["message"]
        return _Unsupported(message) if c.info.get("unimplemented") else message
    ids = value(c.nodes[0])
    if ids is None or ids.size == 0:
        return None
    if c.kind == "index":
        table = value(c.nodes[1])
        n = c.nodes[1].shape[c.info["axis"]] if table is None else table.shape[c.info["axis"]]
        if not isinstance(n, (int, np.integer)):
            return None
        label = c.info["label"]
        if label.startswith("tensor_array"):
            return _tensor_array(label, ids, n)
        if label.startswith("slice:"):
            bad = (ids < 0) | (ids >= n)
            return f"slice index {int(ids.reshape(-1)[np.argmax(bad)])} of dimension " \
                   f"{label[6:]} out of bounds." if bad.any() else None
        return out_of_range(ids, n)
    if c.kind == "segment":
        n = _segment_count(c, value)
        bad = None if n is None else (ids >= n).reshape(-1)
        if bad is None or not bad.any():
            return None
        k = int(np.argmax(bad))
        return f"segment_ids[{k}] = {int(ids.reshape(-1)[k])} is out of range [0, {n})"
    if c.kind == "slice":   # tf.slice at a run-time begin or size: TF's Slice kernel's
        table = value(c.nodes[1])
        for d, window in zip(c.info["axes"], c.nodes[2:]):
            taken = value(window)
            if table is None or taken is None:
                return None
            n, b, size = table.shape[d], int(ids[d]), taken.shape[d]
            if not 0 <= b <= n:
                return f"Expected begin[{d}] in [0, {n}], but got {b}"
            if size > n - b:
                return f"Expected size[{d}] in [0, {n - b}], but got {size}"
        return None
    if c.kind == "labels":   # sparse softmax cross entropy: TF's kernel's message
        logits = value(c.nodes[1])
        n = c.nodes[1].shape[-1] if logits is None else logits.shape[-1]
        if not isinstance(n, (int, np.integer)) or 0 <= ids.min() and ids.max() < n:
            return None
        bad = ids.reshape(-1)[np.argmax(((ids < 0) | (ids >= n)).reshape(-1))]
        return (f"Received a label value of {int(bad)} which is outside the valid range of "
                f"[0, {n}).  Label values: {' '.join(str(int(v)) for v in ids.reshape(-1))}")
    if c.kind == "sorted":   # the sorted segment ops' kernels
        return _unsorted(ids.reshape(-1)) if ids.size else None
    if c.kind == "partitions":
        flat = ids.reshape(-1)
        bad = (flat < 0) | (flat >= c.info["num"])
        if not bad.any():
            return None
        k = int(np.argmax(bad))
        return f"partitions[{k}] = {int(flat[k])} is not in [0, {c.info['num']})"
    if c.kind == "stitch":
        flat = ids.reshape(-1)
        if (flat < 0).any():
            return f"indices[{int(np.argmax(flat < 0))}] is out of range"
        if not np.array_equal(np.sort(flat), np.arange(flat.size)):
            raise errors.UnimplementedError(
                None, None, "tf.dynamic_stitch with indices computed at run time: symgrad "
                f"needs them to be a permutation of 0..{flat.size - 1} (what "
                "tf.dynamic_partition gives), got repeated or missing ones; give the "
                "indices as a constant, or scatter with tf.scatter_nd")
        return None
    if c.kind == "seq_lens":
        data = value(c.nodes[1])
        n = c.nodes[1].shape[c.info["seq"]] if data is None else data.shape[c.info["seq"]]
        flat = ids.reshape(-1)
        if not isinstance(n, (int, np.integer)) or not (flat > n).any():
            return None
        return f"seq_lens({int(np.argmax(flat > n))}) > input.dims({c.info['seq']})"
    if c.kind == "range":   # TF's Range kernel
        lo, hi, step = ids[()], value(c.nodes[1]), value(c.nodes[2])
        if hi is None or step is None:
            return None
        show = (lambda v: f"{v:g}" if isinstance(v, float) else str(v))
        lo, hi, step = (np.asarray(v)[()].item() for v in (lo, hi, step))
        if step == 0:
            return f"Requires delta != 0: {show(step)}"
        if step > 0 and lo > hi:
            return f"Requires start <= limit when delta > 0: {show(lo)}/{show(hi)}"
        if step < 0 and lo < hi:
            return f"Requires start >= limit when delta < 0: {show(lo)}/{show(hi)}"
        return None
    if c.kind == "nonzero":
        return c.info["message"] if (ids == 0).any() else None
    if c.kind == "scatter_nd":
        return outside(ids, c.info["shape"])
    shape = _shape_of(c.nodes[1], value)
    found = None if shape is None else outside(ids, shape, "param ")
    return None if found is None else f"{found}, node name: {c.named.op_name}"


def _segment_count(c, value):
    """The number of segments of a "segment" note: its ``num``, or for one known only
    at run time (a Dim) the length of the segments' axis (the first) of the run's
    value of the node it names; None when this run did not compute that node."""
    n = c.info["num"]
    if isinstance(n, (int, np.integer)):
        return n
    out = value(c.named)
    return None if out is None or out.ndim == 0 else out.shape[0]


def _unsorted(ids):
    """TF's message for segment ids a ``tf.segment_*`` kernel refuses, else None: it
    walks the runs of equal ids, checking at each run that the next run's id is larger,
    then that the run's id is in [0, last id + 1)."""
    n = int(ids[-1]) + 1
    if n <= 0:
        return "segment ids must be >= 0"
    runs = ids[np.r_[0, np.flatnonzero(np.diff(ids)) + 1]]
    outside = (runs < 0) | (runs >= n)
    falling = np.r_[runs[1:] < runs[:-1], False]
    if not (outside | falling).any():
        return None
    k = int(np.argmax(outside | falling))
    if falling[k]:
        return "segment ids are not increasing"
    return (f"Segment id {int(runs[k])} out of range [0, {n}), possibly because "
            "'segment_ids' input is not sorted.")


class _Unsupported(str):
    """A check's message for what TF does and symgrad cannot (raised as
    UnimplementedError, not as the InvalidArgumentError of a kernel's refusal)."""


def _tensor_array(label, ids, n):
    """TF's message for a TensorArray read or write at an index outside ``[0, n)``;
    for a write past the end of an array made with ``dynamic_size=True``, which TF
    grows, symgrad's (its arrays keep their size)."""
    i = ids.reshape(-1)
    bad = (i < 0) | (i >= n)
    if not bad.any():
        return None
    k = int(i[np.argmax(bad)])
    if label == "tensor_array_read":
        return f"Tried to read from index {k} but array size is: {n}"
    if label == "tensor_array_scatter":
        return f"Max scatter index must be < array size ({int(i.max())} vs. {n})"
    if label == "tensor_array_grows" and k >= n:
        return _Unsupported(
            f"TensorArray: a write to index {k} past the size {n} it was made with; TF grows "
            f"an array made with dynamic_size=True, symgrad's keep their size: make it with "
            f"size= the number of elements written (e.g. size=tf.shape(x)[0] or the loop's "
            f"maximum_iterations)")
    return f"Tried to write to index {k} but array is not resizeable and size is: {n}"


def out_of_range(ids, n):
    """TF's message for the first id outside ``[0, n)`` (``indices[1,0] = 7 is not in
    [0, 5)``), else None."""
    ids = np.asarray(ids)
    if ids.size == 0 or 0 <= ids.min() and ids.max() < n:   # (two passes, no temporaries)
        return None
    bad = (ids < 0) | (ids >= n)
    at = np.unravel_index(int(np.argmax(bad)), ids.shape)
    where = f"[{','.join(map(str, at))}]" if ids.ndim else ""
    return f"indices{where} = {int(ids[at])} is not in [0, {n})"


def outside(ids, shape, what=""):
    """TF's message for the first index tuple (last axis of ``ids``) outside ``shape``
    (``indices[1] = [4] does not index into shape [4]``), else None."""
    ids = np.asarray(ids)
    m = ids.shape[-1]
    tuples = ids.reshape(-1, m)
    bad = ((tuples < 0) | (tuples >= np.asarray(shape[:m]))).any(axis=1)
    if not bad.any():
        return None
    k = int(np.argmax(bad))
    where = "[" + ", ".join(str(int(v)) for v in tuples[k]) + "]"
    dims = "[" + ",".join(str(int(d)) for d in shape) + "]"
    return f"indices[{k}] = {where} does not index into {what}shape {dims}"


def _shape_of(node, value):
    got = value(node)
    if got is not None:
        return got.shape
    shape = node.shape
    return shape if shape is not None and all(isinstance(d, (int, np.integer))
                                              for d in shape) else None


_BODY_CHECKS: dict = {}   # id(order) -> (order, its checks): a body's plan is made once


def _check_body(order, values, feeds):
    """``control.function.OBSERVERS``' entry while a Session runs: the checks of a loop
    body's or branch's nodes, on the values of one of its runs."""
    found = _BODY_CHECKS.get(id(order))
    if found is None or found[0] is not order:
        found = _BODY_CHECKS[id(order)] = (order, checks_in(order))
    if found[1]:
        verify(found[1], values, feeds)


@contextlib.contextmanager
def in_bodies():
    """Inside the block, the sub-graphs that loops and branches run are checked too."""
    OBSERVERS.append(_check_body)
    try:
        yield
    finally:
        OBSERVERS.remove(_check_body)
