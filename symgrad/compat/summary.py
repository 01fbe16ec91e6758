"""``tf.summary``: scalar and histogram summaries written as TensorBoard event files.

``tf.summary.scalar(name, t)`` and ``histogram`` are operations: ``sess.run`` of one
(or of ``merge_all()``) gives the serialized ``Summary`` protocol buffer, as in TF1,
and ``tf.summary.FileWriter(logdir).add_summary(s, step)`` appends it to an event
file that TensorBoard reads (``events.out.tfevents.<time>.<host>``: TFRecord frames
with masked CRC-32C checksums around ``Event`` messages).  The few message types
needed are encoded here by hand (protobuf's wire format: varints, 64-bit doubles,
32-bit floats, length-delimited fields), so neither TF nor protobuf is needed.
``tf.Summary(value=[tf.Summary.Value(tag=..., simple_value=...)])`` builds one by
hand, as TF1 programs do for values computed outside the graph.  The graph itself is
not written (TensorBoard's graph tab stays empty).

Imports numpy and the compat state.

>>> len(_record(b"abc")), hex(crc32c(b"123456789"))
(19, '0xe3069283')
"""
from __future__ import annotations

import os
import re
import socket
import struct
import time

import numpy as np

from ..errors import ArgumentError
from ..tracing import get_default_graph
from .slices import convert_to_tensor
from .state import Operation, state_of
from .protobuf import encode_varint, message_fields
from .protobuf import key as _key
from .variables import GraphKeys

# -- the wire format ----------------------------------------------------------------------


def _double(field, x):
    return _key(field, 1) + struct.pack("<d", float(x))


def _float(field, x):
    return _key(field, 5) + struct.pack("<f", float(x))


def _bytes(field, data):
    data = data.encode() if isinstance(data, str) else bytes(data)
    return _key(field, 2) + encode_varint(len(data)) + data


def _packed_doubles(field, xs):
    return _bytes(field, struct.pack(f"<{len(xs)}d", *map(float, xs)))


_TABLE = []


def crc32c(data):
    """CRC-32C (Castagnoli, reflected polynomial 0x82F63B78) of ``data``."""
    if not _TABLE:
        for n in range(256):
            c = n
            for _ in range(8):
                c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
            _TABLE.append(c)
    crc = 0xFFFFFFFF
    for byte in data:
        crc = _TABLE[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def _masked(crc):
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def _record(data):
    """One TFRecord frame: length, its masked CRC, the data, the data's masked CRC."""
    head = struct.pack("<Q", len(data))
    return head + struct.pack("<I", _masked(crc32c(head))) + data + \
        struct.pack("<I", _masked(crc32c(data)))


# -- summaries ------------------------------------------------------------------------------
def _scalar_value(tag, value):
    """A ``Summary.Value`` with ``simple_value`` (field 1 tag, field 2 float)."""
    return _bytes(1, _bytes(1, tag) + _float(2, value))


def _bucket_limits():
    positive, v = [], 1e-12
    while v < 1e20:
        positive.append(v)
        v *= 1.1
    return np.array([-x for x in reversed(positive)] + [0.0] + positive +
                    [np.finfo(np.float64).max])


_LIMITS = []


def _histogram_value(tag, values):
    """A ``Summary.Value`` with a ``HistogramProto`` (TF's default exponential
    buckets; each run of empty buckets written as one, as TF writes them)."""
    x = np.asarray(values, dtype=np.float64).reshape(-1)
    if not _LIMITS:
        _LIMITS.append(_bucket_limits())
    limits = _LIMITS[0]
    where = np.minimum(np.searchsorted(limits, x, side="right"), len(limits) - 1)  # (TF)
    counts = np.bincount(where, minlength=len(limits))
    # TF's EncodeToProto: a run of empty buckets becomes one, at the run's last limit
    empty = counts <= 0
    kept = ~empty | np.append(~empty[1:], True)
    histo = (_double(1, x.min() if x.size else 0.0) + _double(2, x.max() if x.size else 0.0)
             + _double(3, x.size) + _double(4, x.sum()) + _double(5, np.dot(x, x))
             + _packed_doubles(6, limits[kept]) + _packed_doubles(7, counts[kept]))
    return _bytes(1, _bytes(1, tag) + _bytes(5, histo))


_INVALID_TAG = re.compile(r"[^-/\w.]")


def _summary_op(name, tensor, collections, encode, family=None):
    graph = get_default_graph()
    tensor = convert_to_tensor(tensor)   # (an IndexedSlices: its dense tensor, as TF)
    # TF's tag: the name with characters other than letters, digits, _ - / . made _,
    # as a name scope unique in the graph ("w_1" beside a variable w, "loss__raw_");
    # a family is the scope's first part and, again, the tag's ("train/train/loss")
    base = _INVALID_TAG.sub("_", name).lstrip("/") or "summary"
    if family is not None:
        family = _INVALID_TAG.sub("_", family).lstrip("/")
        base = f"{family}/{base}"
    tag = graph.unique_name(base)
    if family is not None:
        tag = f"{family}/{tag}"
    # (the operation is named as TF names it: its tag, so merge_all(scope=) finds it)
    op = Operation(tag, inputs=[tensor], graph=graph,
                   result=lambda values: encode(tag, values[0]))
    for key in [GraphKeys.SUMMARIES] if collections is None else collections:
        state_of(graph).add_to_collection(key, op)
    return op


def scalar(name, tensor, collections=None, family=None):
    """``tf.summary.scalar``: running it gives a Summary holding the scalar's value."""
    def encode(tag, value):
        if np.size(value) != 1:
            raise ArgumentError(f"tf.summary.scalar({name!r}): the tensor must hold one "
                                f"value, got shape {np.shape(value)}")
        return _scalar_value(tag, np.asarray(value).reshape(()))
    return _summary_op(name, tensor, collections, encode, family)


def histogram(name, values, collections=None, family=None):
    """``tf.summary.histogram``: running it gives a Summary holding the values'
    histogram."""
    return _summary_op(name, values, collections, _histogram_value, family)


def merge(inputs, collections=None, name=None):
    """One summary operation running ``inputs`` (Summaries concatenate, as protobuf
    merges repeated fields)."""
    parts = [op for op in inputs if op is not None]
    bounds = np.cumsum([0] + [len(op.inputs) for op in parts])
    op = Operation(name or "Merge", inputs=[t for op in parts for t in op.inputs],
                   graph=get_default_graph(),
                   result=lambda values: b"".join(
                       op.result(values[a:b]) for op, a, b in zip(parts, bounds, bounds[1:])))
    for key in collections or []:
        state_of(get_default_graph()).add_to_collection(key, op)
    return op


def merge_all(key=GraphKeys.SUMMARIES, scope=None, name=None):
    """Every summary of collection ``key`` (whose name matches ``scope``, as
    ``tf.get_collection`` filters) merged; None when there is none (TF)."""
    found = state_of(get_default_graph()).collection(key)
    if scope is not None:
        found = [op for op in found if re.match(scope, getattr(op, "name", "") or "")]
    return merge(found, name=name) if found else None


class Histogram:
    """A ``HistogramProto`` read back: ``min``, ``max``, ``num``, ``sum``,
    ``sum_squares``, ``bucket_limit`` and ``bucket``."""

    def __init__(self, fields):
        for field, name in enumerate(("min", "max", "num", "sum", "sum_squares"), 1):
            found = fields.get(field)
            setattr(self, name, struct.unpack("<d", found[0])[0] if found else 0.0)
        for field, name in ((6, "bucket_limit"), (7, "bucket")):
            packed = b"".join(fields.get(field, []))
            setattr(self, name, list(struct.unpack(f"<{len(packed) // 8}d", packed)))


class Image:
    """A parsed ``Summary.Image`` (``tf.summary.image``'s): height, width, colorspace
    (channels) and ``encoded_image_string`` (a PNG)."""

    def __init__(self, fields):
        self.height, self.width, self.colorspace = (fields.get(k, [0])[0] for k in (1, 2, 3))
        self.encoded_image_string = fields.get(4, [b""])[0]


class Summary:
    """``tf.Summary(value=[tf.Summary.Value(tag="loss", simple_value=0.5)])``: a summary
    built by hand (``SerializeToString`` gives what ``sess.run`` of a summary gives);
    ``tf.Summary.FromString(s)`` / ``ParseFromString(s)`` read what ``sess.run`` of a
    summary gave (scalars as ``simple_value``, histograms as ``histo``, images as
    ``image``)."""

    class Value:
        def __init__(self, tag="", simple_value=None, histo=None, image=None, **kwargs):
            if simple_value is None and histo is None and image is None:
                raise ArgumentError("tf.Summary.Value: symgrad writes simple_value summaries "
                                    "only (images, audio and tensors are not written)")
            self.tag, self.histo, self.image = tag, histo, image
            self.simple_value = None if simple_value is None else float(simple_value)

        def HasField(self, name):  # noqa: N802  (protobuf's name)
            return getattr(self, name, None) is not None

        def WhichOneof(self, group):  # noqa: N802
            return next(f for f in ("simple_value", "histo", "image")
                        if getattr(self, f) is not None)

        def __repr__(self):
            return f"<Summary.Value tag={self.tag!r} {self.WhichOneof('value')}>"

    def __init__(self, value=()):
        self.value = list(value)

    def SerializeToString(self):  # noqa: N802  (protobuf's name)
        return b"".join(v._raw if v.simple_value is None else
                        _scalar_value(v.tag, v.simple_value) for v in self.value)

    def ParseFromString(self, data):  # noqa: N802
        """Read a serialized Summary (replacing this one's values); returns its length."""
        self.value = []
        for body in _fields(bytes(data)).get(1, []):
            v = _fields(body)
            simple = struct.unpack("<f", v[2][0])[0] if 2 in v else None
            histo = Histogram(_fields(v[5][0])) if 5 in v else None
            image = Image(_fields(v[4][0])) if 4 in v else None
            value = Summary.Value(v[1][0].decode() if 1 in v else "", simple, histo, image)
            value._raw = _bytes(1, body)
            self.value.append(value)
        return len(data)

    @classmethod
    def FromString(cls, data):  # noqa: N802
        out = cls()
        out.ParseFromString(data)
        return out


class FileWriter:
    """``tf.summary.FileWriter(logdir, graph)``: appends summaries to a new event file
    in ``logdir`` (made if missing), each written through at once."""

    def __init__(self, logdir, graph=None, max_queue=10, flush_secs=120, graph_def=None,
                 filename_suffix=None, session=None):
        self._logdir = str(logdir)
        os.makedirs(self._logdir, exist_ok=True)
        name = f"events.out.tfevents.{int(time.time())}.{socket.gethostname()}" + \
            (filename_suffix or "")
        self._path = os.path.join(self._logdir, name)
        self._file = open(self._path, "ab")
        self._event(_bytes(3, "brain.Event:2"))

    def _event(self, body, step=None):
        if self._file is None:
            raise ArgumentError("FileWriter: the writer is closed; make a new one")
        event = _double(1, time.time()) + (_key(2, 0) + encode_varint(int(step) & (2**64 - 1))
                                           if step is not None else b"") + body
        self._file.write(_record(event))
        self._file.flush()

    def add_summary(self, summary, global_step=None):
        """Write ``summary`` (what ``sess.run`` of a summary gave, or a ``tf.Summary``)
        at ``global_step``."""
        if isinstance(summary, Summary):
            summary = summary.SerializeToString()
        if not isinstance(summary, (bytes, bytearray)):
            raise ArgumentError(f"FileWriter.add_summary: pass what sess.run of a summary "
                                f"returns (bytes) or a tf.Summary, not {type(summary).__name__}")
        self._event(_bytes(5, summary), global_step)

    def add_graph(self, graph, global_step=None):
        """Accepted; the graph is not written."""

    def add_run_metadata(self, run_metadata, tag, global_step=None):
        """Write an event tagged ``tag`` holding ``run_metadata`` (empty here: symgrad
        records no step statistics), as TF's tutorials do after a traced run; a tag
        given twice is TF's ValueError."""
        used = self.__dict__.setdefault("_run_tags", set())
        if tag in used:
            raise ValueError(f"FileWriter.add_run_metadata: the provided tag {tag!r} was "
                             "already used for this event type; give each run its own tag")
        used.add(tag)
        # Event.tagged_run_metadata (8): TaggedRunMetadata{tag = 1, run_metadata = 2}
        self._event(_bytes(8, _bytes(1, tag) + _bytes(2, b"")), global_step)

    def add_session_log(self, session_log, global_step=None):
        """Accepted; session logs are not written."""

    def get_logdir(self):
        return self._logdir

    def flush(self):
        if self._file is not None:
            self._file.flush()

    def close(self):
        if self._file is not None:
            self._file.close()
            self._file = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def read_events(path):
    """The ``(step, {tag: value})`` of each summary event in an event file (scalars as
    floats, histograms as ``(num, sum)``), checking every frame's checksums."""
    out, data, at = [], open(path, "rb").read(), 0
    while at < len(data):
        (n,) = struct.unpack_from("<Q", data, at)
        if struct.unpack_from("<I", data, at + 8)[0] != _masked(crc32c(data[at:at + 8])) or \
                struct.unpack_from("<I", data, at + 12 + n)[0] != \
                _masked(crc32c(data[at + 12:at + 12 + n])):
            raise ValueError(f"{path}: a corrupt record at byte {at}")
        event, at = _fields(data[at + 12:at + 12 + n]), at + 16 + n
        if 5 in event:
            values = {}
            for raw in _fields(event[5][0]).get(1, []):
                v = _fields(raw)
                tag = v[1][0].decode()
                if 2 in v:
                    values[tag] = struct.unpack("<f", v[2][0])[0]
                elif 5 in v:
                    h = _fields(v[5][0])
                    values[tag] = tuple(struct.unpack("<d", h[k][0])[0] for k in (3, 4))
            out.append((event.get(2, [0])[0], values))
    return out


def _fields(message):
    """{field number: [raw values]} of a protobuf message (varints as ints, fixed
    fields as their bytes)."""
    return message_fields(message, raw_fixed=True)
