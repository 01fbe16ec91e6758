"""TF's checkpoint format (V2, the "tensor bundle"): ``prefix.index`` and
``prefix.data-00000-of-00001``.

The index is a table (``compat.sstable``) whose key ``""`` holds a
``BundleHeaderProto`` (number of data shards, byte order, format version) and whose
key for each tensor name holds a ``BundleEntryProto``: dtype, shape, shard, offset and
size of the tensor's bytes in the data file, and their masked CRC-32C.  The data file
is the tensors' little-endian bytes one after another, in key order.  The few protocol
buffer messages are encoded here by hand (varint and length-delimited fields).

A partitioned variable is saved as TF saves it: an entry for the whole tensor listing
its slices (``TensorSliceProto`` extents) and no bytes, and one entry per slice under
a key that encodes the name and the extents (TF's "ordered code"); reading such a
tensor assembles the whole from its slices.  Numbers and booleans of every width TF
has in numpy are read and written; strings and resources are refused with an error
saying so.

Sits in ``compat``; imports numpy, ``compat.sstable`` and ``compat.crc32c``.

>>> import tempfile, os, numpy as np
>>> prefix = os.path.join(tempfile.mkdtemp(), "model.ckpt")
>>> write_bundle(prefix, {"w": np.array([1.5, 2.0], np.float32)})
>>> Bundle(prefix).tensor("w")
array([1.5, 2. ], dtype=float32)
"""
from __future__ import annotations

import os
import struct

import numpy as np

from .crc32c import masked_crc32c
from .protobuf import message_fields
from .sstable import encode_varint, read_table, write_table

__all__ = ["write_bundle", "Sliced", "Bundle", "bundle_exists", "data_path", "index_path",
           "message_fields", "slice_key", "slice_extents", "numpy_dtype", "listed_dtype"]

# TF's DataType enum numbers (types.proto) for the dtypes numpy also has
_DTYPES = {1: np.float32, 2: np.float64, 3: np.int32, 4: np.uint8, 5: np.int16,
           6: np.int8, 8: np.complex64, 9: np.int64, 10: np.bool_, 17: np.uint16,
           18: np.complex128, 19: np.float16, 22: np.uint32, 23: np.uint64}
_ENUMS = {np.dtype(t): n for n, t in _DTYPES.items()}
_STRING = 7
_TF_NAMES = {_STRING: "string", 14: "bfloat16", 20: "resource", 21: "variant"}
_PRODUCER = 1   # TF's tensor bundle format version


def numpy_dtype(enum, name):
    """The numpy dtype of TF's DataType number ``enum`` (of tensor ``name``).

    Raises:
        TypeError: strings, resources and the like, which symgrad does not read.
    """
    if enum not in _DTYPES:
        kind = _TF_NAMES.get(enum, f"DataType {enum}")
        raise TypeError(f"checkpoint tensor {name!r} holds {kind} values, which symgrad "
                        "does not read (numbers and booleans only)")
    return np.dtype(_DTYPES[enum])


def listed_dtype(enum, name):
    """The dtype a checkpoint's listing gives a tensor: :func:`numpy_dtype`, or numpy's
    object dtype (``tf.string``) for strings, whose values symgrad does not read."""
    return np.dtype(object) if enum == _STRING else numpy_dtype(enum, name)


def index_path(prefix):
    return f"{prefix}.index"


def data_path(prefix, shard=0, shards=1):
    return f"{prefix}.data-{shard:05d}-of-{shards:05d}"


def bundle_exists(prefix):
    """Whether a checkpoint in TF's format is at ``prefix`` (its index file exists)."""
    return os.path.isfile(index_path(prefix))


# ---- protocol buffer fields: (field number, wire type) keys, then the payload

def _field(number, value):
    """One field: an int is a varint, bytes are length-delimited."""
    if isinstance(value, int):
        return encode_varint(number << 3) + encode_varint(value)
    return encode_varint(number << 3 | 2) + encode_varint(len(value)) + bytes(value)


def _header():
    """``BundleHeaderProto``: one shard, little-endian (0, the default, left out), and
    ``version {producer: 1}``."""
    return _field(1, 1) + _field(3, _field(1, _PRODUCER))


def _entry(dtype, shape, offset=0, size=0, crc=None):
    """``BundleEntryProto`` (proto3: zeros left out); without ``crc``, the entry of a
    sliced tensor, whose slices hold the bytes."""
    dims = b"".join(_field(2, _field(1, n) if n else b"") for n in shape)
    out = _field(1, _ENUMS[np.dtype(dtype)]) + _field(2, dims)
    if crc is None:
        return out
    if offset:
        out += _field(4, offset)
    if size:
        out += _field(5, size)
    return out + encode_varint(6 << 3 | 5) + struct.pack("<I", crc)


def _checked(name, value):
    """``value`` as a little-endian numpy array TF's format can hold."""
    array = np.asarray(value)
    if array.dtype not in _ENUMS:
        raise TypeError(f"tf.train.Saver: variable {name!r} has dtype {array.dtype}, which "
                        "symgrad does not write in TF's checkpoint format (numbers and "
                        "booleans only; strings are not supported)")
    return array.astype(array.dtype.newbyteorder("<"), order="C", copy=False)


class Sliced:
    """A tensor saved in slices (a partitioned variable): its whole ``shape`` and
    ``parts``, ``(offsets, numpy value)`` pairs that tile it."""

    def __init__(self, shape, parts):
        self.shape, self.parts = [int(n) for n in shape], list(parts)


def _string_key(text):
    """TF's ordered code of a string: 0 and 255 bytes escaped, then ``00 01``."""
    escaped = {0: b"\x00\xff", 255: b"\xff\x00"}
    return b"".join(escaped.get(c, bytes([c])) for c in text) + b"\x00\x01"


def _number_key(n):
    """TF's ordered code of a non-negative int: its byte count, then its bytes."""
    body = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([len(body)]) + body


def _signed_key(n):
    """TF's ordered code of a signed int: a run of leading 1 bits gives the length
    (1 to 10 bytes), then the number sign-extended, so bytewise order is numeric order."""
    magnitude = ~n if n < 0 else n
    length = next(k for k in range(1, 11) if magnitude < 1 << (7 * k - 1))
    body = bytearray((n & ((1 << 80) - 1)).to_bytes(10, "big")[10 - length:])
    header = (((1 << length) - 1) << (16 - length)).to_bytes(2, "big")   # length 1 bits
    for i in range(min(length, 2)):
        body[i] ^= header[i]
    return bytes(body)


def slice_key(name, starts, lengths):
    """The table key of one slice of tensor ``name`` (TF's EncodeTensorNameSlice)."""
    key = _number_key(0) + _string_key(name.encode()) + _number_key(len(starts))
    return key + b"".join(_signed_key(a) + _signed_key(n) for a, n in zip(starts, lengths))


def _slice_proto(starts, lengths):
    """``TensorSliceProto``: one extent per axis (a zero start left out)."""
    return b"".join(_field(1, (_field(1, a) if a else b"") + _field(2, n))
                    for a, n in zip(starts, lengths))


def _records(name, value):
    """``[(key, entry without its place in the data, bytes or None)]`` for one tensor:
    its own entry, and for a sliced tensor one more per slice."""
    if not isinstance(value, Sliced):
        array = _checked(name, value)
        return [(name.encode(), array, array.tobytes())]
    parts = [(list(map(int, at)), _checked(name, part)) for at, part in value.parts]
    slices = b"".join(_field(7, _slice_proto(at, part.shape)) for at, part in parts)
    records = [(name.encode(), _entry(parts[0][1].dtype, value.shape) + slices, None)]
    return records + [(slice_key(name, at, part.shape), part, part.tobytes())
                      for at, part in parts]


def write_bundle(prefix, tensors):
    """Write ``tensors`` (``{name: numpy value or Sliced}``) as TF's checkpoint at
    ``prefix``: ``prefix.index`` and ``prefix.data-00000-of-00001``, byte for byte as TF
    writes them."""
    records = sorted((r for name in tensors for r in _records(name, tensors[name])),
                     key=lambda r: r[0])
    entries, offset = [(b"", _header())], 0
    with open(data_path(prefix), "wb") as f:
        for key, array, data in records:
            if data is None:       # a sliced tensor's own entry: shape and slices only
                entries.append((key, array))
                continue
            entries.append((key, _entry(array.dtype, array.shape, offset, len(data),
                                        masked_crc32c(data))))
            f.write(data)
            offset += len(data)
    with open(index_path(prefix), "wb") as f:
        f.write(write_table(entries))


def slice_extents(slice_fields, shape):
    """``(starts, lengths)`` of a ``TensorSliceProto`` (an extent without a length is
    the whole axis)."""
    starts, lengths = [0] * len(shape), [-1] * len(shape)
    for axis, extent in enumerate(slice_fields.get(1, [])):
        extent = message_fields(extent)
        starts[axis] = extent.get(1, [0])[0]
        lengths[axis] = extent[2][0] if 2 in extent else -1
    return starts, lengths


class _Entry:
    """Where a tensor's bytes are and what they hold (a decoded ``BundleEntryProto``)."""

    def __init__(self, name, message):
        fields = message_fields(message)
        self.name, self.enum = name, fields.get(1, [0])[0]
        shape = message_fields(fields.get(2, [b""])[0])
        self.shape = [message_fields(d).get(1, [0])[0] for d in shape.get(2, [])]
        self.shard, self.offset = fields.get(3, [0])[0], fields.get(4, [0])[0]
        self.size, self.crc = fields.get(5, [0])[0], fields.get(6, [None])[0]
        self.slices = [slice_extents(message_fields(proto), self.shape) for proto in fields.get(7, [])]

    @property
    def dtype(self):
        return listed_dtype(self.enum, self.name)


class Bundle:
    """A checkpoint in TF's format, opened for reading: its index is read at once, a
    tensor's bytes when asked for (and checked against the stored checksum).

    Raises:
        FileNotFoundError: there is no ``prefix.index``.
        ValueError: the index is not TF's (``sstable.TableError``) or names a
            data shard that is missing.
    """

    def __init__(self, prefix):
        self.prefix = str(prefix)
        with open(index_path(self.prefix), "rb") as f:
            table = read_table(f.read())
        if not table or table[0][0] != b"":
            raise ValueError(f"{index_path(self.prefix)}: no bundle header (key '')")
        header = message_fields(table[0][1])
        self._shards = header.get(1, [1])[0]
        self._order = ">" if header.get(2, [0])[0] == 1 else "<"
        # keys starting with a zero byte are the slices of partitioned tensors
        self._entries = {k.decode(): _Entry(k.decode(), v) for k, v in table[1:]
                         if not k.startswith(b"\x00")}
        self._slices = {k: v for k, v in table[1:] if k.startswith(b"\x00")}

    def names(self):
        """The tensor names, sorted as TF sorts them (bytewise)."""
        return list(self._entries)

    def __contains__(self, name):
        return name in self._entries

    def shape(self, name):
        return list(self._entries[name].shape)

    def dtype(self, name):
        return self._entries[name].dtype

    def tensor(self, name):
        """The value of tensor ``name`` (a numpy array in native byte order).

        Raises:
            KeyError: no such tensor.
            ValueError: its bytes are missing or do not match their checksum.
        """
        entry = self._entries[name]
        return self._assembled(entry) if entry.slices else self._value_of(entry)

    def _value_of(self, entry):
        """The value an entry's bytes hold, checked against its checksum."""
        name, dtype = entry.name, numpy_dtype(entry.enum, entry.name)
        data = self._read(entry)
        if entry.crc is not None and masked_crc32c(data) != entry.crc:
            raise ValueError(f"checkpoint tensor {name!r}: its bytes in "
                             f"{data_path(self.prefix, entry.shard, self._shards)} do not "
                             "match their checksum (corrupt file)")
        array = np.frombuffer(data, dtype=dtype.newbyteorder(self._order))
        return array.astype(dtype).reshape(entry.shape)

    def _assembled(self, entry):
        """The whole of a tensor saved in slices (a partitioned variable)."""
        whole = np.zeros(entry.shape, dtype=entry.dtype)
        for starts, lengths in entry.slices:
            key = slice_key(entry.name, starts, lengths)
            if key not in self._slices:
                raise ValueError(f"checkpoint tensor {entry.name!r}: the index lacks its "
                                 f"slice at {starts} (corrupt file)")
            part = _Entry(entry.name, self._slices[key])
            place = tuple(slice(a, None if n < 0 else a + n) for a, n in zip(starts, lengths))
            whole[place] = self._value_of(part)
        return whole

    def _read(self, entry):
        path = data_path(self.prefix, entry.shard, self._shards)
        try:
            with open(path, "rb") as f:
                f.seek(entry.offset)
                data = f.read(entry.size)
        except OSError as e:
            raise ValueError(f"checkpoint {self.prefix!r}: cannot read its data file "
                             f"{path} ({e.strerror})") from None
        if len(data) != entry.size:
            raise ValueError(f"checkpoint tensor {entry.name!r}: {path} is truncated")
        return data
