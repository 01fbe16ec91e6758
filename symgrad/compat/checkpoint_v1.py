"""Reading TF's older checkpoint format (V1, one file at the prefix itself), the format
of TF1 checkpoints from before 2017 (many published pretrained models).

The file is a table (``compat.sstable``) like the V2 index.  Key ``""`` holds a
``SavedTensorSlices`` whose ``meta`` lists each tensor (name, shape, dtype, its slices);
each slice's key (TF's ordered code of name and extents, as in V2) holds a
``SavedTensorSlices`` whose ``data`` is a ``SavedSlice``: the slice's values as a
``TensorProto`` (a repeated field of the dtype's kind, or raw ``tensor_content``).
symgrad reads it; it writes only the V2 format.

Sits in ``compat``; imports numpy, ``compat.sstable`` and ``compat.tensor_bundle``.
"""
from __future__ import annotations

import struct

import numpy as np

from .sstable import MAGIC, decode_varint, read_table
from .tensor_bundle import (listed_dtype, message_fields, numpy_dtype, slice_extents,
                            slice_key)

__all__ = ["is_v1_checkpoint", "V1Checkpoint"]

# TensorProto's repeated field for each dtype's values: (field, how they are stored)
_VALUES = {"float32": (5, "<f4"), "float64": (6, "<f8"), "int32": (7, "varint"),
           "int16": (7, "varint"), "int8": (7, "varint"), "uint8": (7, "varint"),
           "uint16": (7, "varint"), "int64": (10, "varint"), "bool": (11, "varint"),
           "float16": (13, "varint"), "complex64": (9, "<f4"), "complex128": (12, "<f8"),
           "uint32": (16, "varint"), "uint64": (17, "varint")}


def is_v1_checkpoint(path):
    """Whether ``path`` is a file ending with the table magic number (a V1 checkpoint)."""
    try:
        with open(path, "rb") as f:
            f.seek(-8, 2)
            return struct.unpack("<Q", f.read(8))[0] == MAGIC
    except (OSError, struct.error):
        return False


def _varints(data):
    """The int64 values of a packed varint field (negative ones sign-extended)."""
    out, at = [], 0
    while at < len(data):
        value, at = decode_varint(data, at)
        out.append(value - (1 << 64) if value >= 1 << 63 else value)
    return out


def _numbers(raw, how):
    """One repeated field's values: packed bytes, or single values as ints."""
    out = []
    for item in raw:
        if how == "varint":
            out += _varints(item) if isinstance(item, bytes) else [
                item - (1 << 64) if item >= 1 << 63 else item]
        elif isinstance(item, bytes):
            out += np.frombuffer(item, dtype=how).tolist()
        else:   # an unpacked fixed32 / fixed64 arrives as its bits
            width = 4 if how == "<f4" else 8
            out += np.frombuffer(item.to_bytes(width, "little"), dtype=how).tolist()
    return out


def _tensor_values(proto, dtype, count):
    """The ``count`` values of a ``TensorProto`` (fields) as a flat numpy array."""
    if 4 in proto:
        return np.frombuffer(proto[4][0], dtype=dtype.newbyteorder("<")).astype(dtype)
    field, how = _VALUES[dtype.name]
    numbers = _numbers(proto.get(field, []), how)
    if dtype.name == "float16":   # half values travel as their 16 bits
        return np.array(numbers, dtype=np.uint16).view(np.float16)
    if dtype.kind == "c":
        numbers = np.array(numbers).reshape(-1, 2) @ np.array([1, 1j])
    values = np.array(numbers).astype(dtype)
    if values.size == 1 and count != 1:   # one value stands for all (TF's short form)
        values = np.full(count, values[0], dtype=dtype)
    return values


class V1Checkpoint:
    """A V1 checkpoint file, read like a ``tensor_bundle.Bundle``."""

    def __init__(self, path):
        self.path = str(path)
        with open(self.path, "rb") as f:
            self._table = dict(read_table(f.read()))
        meta = message_fields(message_fields(self._table.get(b"", b"")).get(1, [b""])[0])
        self._meta = {}
        for item in meta.get(1, []):
            fields = message_fields(item)
            name = fields[1][0].decode()
            dims = message_fields(fields.get(2, [b""])[0]).get(2, [])
            shape = [message_fields(d).get(1, [0])[0] for d in dims]
            slices = [slice_extents(message_fields(s), shape) for s in fields.get(4, [])]
            self._meta[name] = (shape, fields.get(3, [0])[0], slices)

    def names(self):
        return sorted(self._meta, key=str.encode)

    def __contains__(self, name):
        return name in self._meta

    def shape(self, name):
        return list(self._meta[name][0])

    def dtype(self, name):
        return listed_dtype(self._meta[name][1], name)

    def tensor(self, name):
        """The value of tensor ``name``, assembled from its slices."""
        shape, enum, slices = self._meta[name]
        dtype = numpy_dtype(enum, name)
        whole = np.zeros(shape, dtype=dtype)
        for starts, lengths in slices:
            key = slice_key(name, starts, lengths)
            if key not in self._table:
                raise ValueError(f"V1 checkpoint {self.path}: tensor {name!r} lacks its "
                                 f"slice at {starts} (corrupt file)")
            saved = message_fields(message_fields(self._table[key])[2][0])
            sizes = [n if n >= 0 else d for n, d in zip(lengths, shape)]   # -1: the whole axis
            place = tuple(slice(a, a + n) for a, n in zip(starts, sizes))
            values = _tensor_values(message_fields(saved.get(3, [b""])[0]), dtype,
                                    int(np.prod(sizes)))
            whole[place] = values.reshape(sizes)
        return whole
