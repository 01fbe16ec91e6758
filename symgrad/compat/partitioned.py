"""Partitioned variables: ``tf.get_variable(..., partitioner=...)`` and the partitioners.

As in TF1, a partitioner ``f(shape, dtype) -> [parts per axis]`` splits a variable along
one axis into variables ``name/part_0``, ``name/part_1`` ... of contiguous slices (the
first ``size % k`` parts one row longer), listed in the variable collections one by one.
``tf.nn.embedding_lookup`` takes the :class:`PartitionedVariable` as its list of shards,
so with TF's default ``partition_strategy="mod"`` id ``i`` reads row ``i // k`` of part
``i % k``, TF's well-known layout (not row i of the whole table); other ops, and
``as_tensor()`` or ``tf.convert_to_tensor``, take the whole table, parts concatenated.  An initializer
function with a ``partition_info`` argument is called once per part with TF's
``var_offset`` and ``full_shape``; so are the random initializers (each part drawn with
the initializer's seed, variance scaling by the whole shape's fans, as TF); constants make
the whole value once and each part takes its slice.

Imports the compat variables.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     emb = tf.get_variable("emb", [5, 2], partitioner=tf.fixed_size_partitioner(2),
...                           initializer=tf.constant_initializer(1.0))
...     [v.op.name for v in emb], [v.shape.as_list() for v in emb]
(['emb/part_0', 'emb/part_1'], [[3, 2], [2, 2]])
"""
from __future__ import annotations

import inspect

import numpy as np

from .. import tracing as _t
from ..errors import ArgumentError
from .tensor import TensorShape


class PartitionInfo:
    """What an initializer of one part learns: the whole shape and the part's offset."""

    def __init__(self, full_shape, var_offset):
        self.full_shape, self.var_offset = list(full_shape), list(var_offset)

    def single_offset(self, shape):
        axis = next((a for a, n in enumerate(shape) if n != self.full_shape[a]), 0)
        return self.var_offset[axis]


class SaveSliceInfo:
    """Where a part sits in its partitioned variable (TF's ``Variable.SaveSliceInfo``):
    ``tf.train.Saver`` saves the parts as slices of one tensor ``full_name``, as TF does."""

    def __init__(self, full_name, full_shape, var_offset, var_shape):
        self.full_name, self.full_shape = full_name, list(full_shape)
        self.var_offset, self.var_shape = list(var_offset), list(var_shape)


class PartitionedVariable:
    """The parts of a partitioned variable (iterate over it, or ``as_tensor()``)."""

    def __init__(self, name, shape, dtype, parts, axis):
        self.name, self._shape, self.dtype = name, tuple(shape), dtype
        self._parts, self._axis = list(parts), axis

    def __iter__(self):
        return iter(self._parts)

    def __len__(self):
        return len(self._parts)

    def __getitem__(self, i):
        return self._parts[i]

    @property
    def shape(self):
        return TensorShape(self._shape)

    def get_shape(self):
        return self.shape

    @property
    def op(self):   # (TF: the operation of the concatenation)
        return self.as_tensor().op

    def _get_variable_list(self):
        return list(self._parts)

    def _get_partitions(self):
        return [len(self._parts) if a == self._axis else 1 for a in range(len(self._shape))]

    def as_tensor(self):
        """The whole variable: the parts concatenated along the partitioned axis."""
        return _t.concat(self._parts, self._axis, name=f"{self.name}/ConcatPartitions")

    as_graph_tensor = as_tensor   # (what ops do with it: tf.matmul(x, w), as TF converts)

    def __repr__(self):
        return f"<PartitionedVariable {self.name!r} shape={self._shape} parts={len(self)}>"


def partitioned(name, shape, dtype, partitioner, make_value, make_variable):
    """A :class:`PartitionedVariable`: ``partitioner`` splits ``shape``; each part's value
    from ``make_value(part_shape, partition_info_or_None, whole_slice)``, its variable from
    ``make_variable(value, part_name)``."""
    if shape is None or any(d is None for d in shape):
        raise ArgumentError(f"get_variable({name!r}, partitioner=...): a partitioned variable "
                            "needs a fully known shape")
    shape = tuple(int(d) for d in shape)
    counts = [int(c) for c in partitioner(shape=TensorShape(shape), dtype=dtype)]
    if len(counts) != len(shape) or any(c < 1 for c in counts):
        raise ArgumentError(f"get_variable({name!r}): the partitioner gave {counts} for shape "
                            f"{list(shape)}; it must give one count >= 1 per axis")
    split = [a for a, c in enumerate(counts) if c > 1]
    if len(split) > 1:
        raise ArgumentError(f"get_variable({name!r}): the partitioner splits axes {split}; "
                            "TF partitions one axis only")
    axis = split[0] if split else 0
    k = min(counts[axis], shape[axis]) if shape[axis] else 1
    base, extra = divmod(shape[axis], k)
    sizes = [base + (i < extra) for i in range(k)]
    offsets = np.cumsum([0] + sizes[:-1])
    parts = []
    for i, (size, offset) in enumerate(zip(sizes, offsets)):
        part_shape = shape[:axis] + (size,) + shape[axis + 1:]
        where = [0] * len(shape)
        where[axis] = int(offset)
        piece = (slice(None),) * axis + (slice(int(offset), int(offset) + size),)
        value = make_value(part_shape, PartitionInfo(shape, where), piece)
        parts.append(make_variable(value, f"{name}/part_{i}"))
        full_name = parts[-1].name.split(":")[0].rsplit("/part_", 1)[0]
        parts[-1]._save_slice_info = SaveSliceInfo(full_name, shape, where, part_shape)
    return PartitionedVariable(name, shape, parts[0].dtype, parts, axis)


def takes_partition_info(initializer):
    """Whether ``initializer`` (a function) has a ``partition_info`` argument."""
    try:
        return "partition_info" in inspect.signature(initializer).parameters
    except (TypeError, ValueError):
        return False


def fixed_size_partitioner(num_shards, axis=0):
    """``tf.fixed_size_partitioner``: ``num_shards`` parts along ``axis``."""
    def partitioner(shape, dtype=None):
        counts = [1] * len(shape)
        counts[axis] = int(num_shards)
        return counts
    return partitioner


def min_max_variable_partitioner(max_partitions=1, axis=0, min_slice_size=256 << 10,
                                 bytes_per_string_element=16):
    """``tf.min_max_variable_partitioner``: as many parts along ``axis`` as keep each at
    least ``min_slice_size`` bytes, at most ``max_partitions``."""
    def partitioner(shape, dtype=None):
        itemsize = np.dtype(dtype or np.float32).itemsize
        total = int(np.prod(shape)) * itemsize
        count = max(1, min(int(max_partitions), int(shape[axis]),
                           total // max(1, int(min_slice_size))))
        counts = [1] * len(shape)
        counts[axis] = count
        return counts
    return partitioner


def variable_axis_size_partitioner(max_shard_bytes, axis=0, bytes_per_string_element=16,
                                   max_shards=None):
    """``tf.variable_axis_size_partitioner``: parts along ``axis`` of at most
    ``max_shard_bytes`` each (at most ``max_shards``)."""
    if max_shard_bytes < 1:
        raise ArgumentError("variable_axis_size_partitioner: max_shard_bytes must be >= 1")

    def partitioner(shape, dtype=None):
        itemsize = np.dtype(dtype or np.float32).itemsize
        slice_bytes = int(np.prod(shape)) // max(1, int(shape[axis])) * itemsize
        per_shard = max(1, int(max_shard_bytes) // max(1, slice_bytes))
        count = -(-int(shape[axis]) // per_shard)
        if max_shards is not None:
            count = min(count, int(max_shards))
        counts = [1] * len(shape)
        counts[axis] = max(1, count)
        return counts
    return partitioner
