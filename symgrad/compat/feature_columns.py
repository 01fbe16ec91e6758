"""``tf.feature_column``: how a model reads a dict of feature tensors (TF 1.x's v1 API).

- ``numeric_column(key, shape, default_value, dtype, normalizer_fn)``: the value as
  float32 (``normalizer_fn`` applied first), ``shape``'s elements per example;
- ``bucketized_column(source, boundaries)``: the bucket of each element (``b[i-1] <=
  x < b[i]`` is bucket ``i``), one-hot when dense;
- ``categorical_column_with_identity(key, num_buckets, default_value)`` and
  ``categorical_column_with_vocabulary_list(key, vocabulary_list, ...)`` with integer
  ids and vocabularies (symgrad tensors hold numbers, so string vocabularies are
  refused); as in TF, ``-1`` in the input is a missing id, an id outside the
  vocabulary gets ``default_value`` (-1: dropped), and an identity id outside
  ``[0, num_buckets)`` without a default is an error when run;
- ``weighted_categorical_column``: the ids weighted by another feature;
- ``indicator_column`` (each id's count: multi-hot) and ``embedding_column`` (the
  ``combiner`` — mean, sum or sqrtn — of the ids' rows of ``embedding_weights``;
  ``shared_embedding_columns`` read one table).

A categorical column is read as its counts, a float32 ``[batch, num_buckets]``
matrix (an example's ids, one-hot, weighted and summed, missing ones dropped);
indicator, embedding and linear weights are products with it.  ``input_layer`` concatenates the
dense columns *sorted by name* (TF's order) under the variable scope ``input_layer``
(``input_layer/<name>_embedding/embedding_weights``); ``linear_model`` sums each
column's product with its weights ``linear_model/<name>/weights`` (zeros) and
``linear_model/bias_weights``.

Sits in ``compat``; imports the tracing layer and ``compat.scopes``, ``debugging``,
``variables`` and ``initializers``.

>>> import numpy as np, symgrad.compat.v1 as tf
>>> col = tf.feature_column.bucketized_column(tf.feature_column.numeric_column("a"), [0.0, 1.0])
>>> x = tf.feature_column.input_layer({"a": np.array([-1.0, 0.5, 3.0], np.float32)}, [col])
>>> tf.Session().run(x).tolist()
[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
"""
from __future__ import annotations

import collections

import numpy as np

from .. import tracing as _t
from ..tracing import functions as _f
from ..tracing.arrays import one_hot, shape
from . import initializers as _init
from .debugging import assert_less
from .scopes import VariableScope, get_variable, get_variable_scope, variable_scope
from .variables import add_to_collection, control_dependencies, get_collection


class NumericColumn(collections.namedtuple(
        "NumericColumn", ["key", "shape", "default_value", "dtype", "normalizer_fn"])):
    """A real-valued feature (``numeric_column``)."""
    name = property(lambda self: self.key)
    dense_size = property(lambda self: int(np.prod(self.shape)))

    def dense(self, features):
        x = features[self.key]
        if self.normalizer_fn is not None:
            x = self.normalizer_fn(x)
        x = _f.cast(x, np.float32)
        _known_rank(x, self.key)
        per_row = x.shape[1:]
        if all(isinstance(d, int) for d in per_row) and \
                int(np.prod(per_row)) != self.dense_size:
            raise ValueError(f"numeric_column({self.key!r}) of shape {self.shape} reads "
                             f"{self.dense_size} value(s) per example, but the feature has "
                             f"shape {x.shape}; give numeric_column(shape=...) the shape "
                             "of one example")
        return _rows(x, self.dense_size, self.key)


class Categorical:
    """What categorical columns share: an example's ids as one-hot rows (``hots``, a
    float32 ``[batch, k, num_buckets]``, zero rows where an id is missing), summed."""

    def weighted(self, features):
        """``(counts, weight_sum, square_sum)``: the ids' counts ``[batch, n]`` and,
        per example, the sum of their weights and of their squares (``[batch, 1]``);
        each id weighs 1 here (``WeightedCategoricalColumn`` reads weights)."""
        counts = _f.reduce_sum(self.hots(features), axis=1)
        n = _f.reduce_sum(counts, axis=1, keepdims=True)
        return counts, n, n

    def counts(self, features):
        return self.weighted(features)[0]


class BucketizedColumn(Categorical, collections.namedtuple(
        "BucketizedColumn", ["source_column", "boundaries"])):
    """A numeric feature cut into buckets (``bucketized_column``): dense (one-hot) and
    categorical (element i's bucket b is id ``i * (len(boundaries) + 1) + b``)."""
    name = property(lambda self: f"{self.source_column.name}_bucketized")
    num_buckets = property(lambda self: (len(self.boundaries) + 1) *
                           self.source_column.dense_size)
    dense_size = num_buckets

    def dense(self, features):
        return self.counts(features)

    def hots(self, features):
        x = self.source_column.dense(features)
        # the bucket of x is the number of boundaries at or below it
        bucket = sum((_f.cast(x >= b, np.int64) for b in self.boundaries),
                     _f.zeros_like(x, np.int64))
        width = len(self.boundaries) + 1
        offsets = _t.constant(np.arange(self.source_column.dense_size, dtype=np.int64) * width)
        return one_hot(bucket + offsets, self.num_buckets, dtype=np.float32)


class IdentityCategoricalColumn(Categorical, collections.namedtuple(
        "IdentityCategoricalColumn", ["key", "number_buckets", "default_value"])):
    """Integer ids in ``[0, num_buckets)`` (``categorical_column_with_identity``)."""
    name = property(lambda self: self.key)
    num_buckets = property(lambda self: self.number_buckets)

    def hots(self, features):
        ids, valid = _ids(features, self.key)
        inside = _f.logical_and(ids >= 0, ids < self.number_buckets)
        if self.default_value is not None:
            ids = _f.where(inside, ids, _f.fill(shape(ids), np.int64(self.default_value)))
        else:
            outside = _f.logical_and(valid, _f.logical_not(inside))
            check = assert_less(_f.cast(outside, np.int32), 1, message=(
                f"categorical_column_with_identity({self.key!r}): an id lies outside "
                f"[0, {self.number_buckets}) and the column has no default_value"))
            with control_dependencies([check]):
                ids = _f.identity(ids)
        hot = one_hot(_f.where(valid, ids, _f.zeros_like(ids)), self.number_buckets,
                      dtype=np.float32)
        return hot * _f.expand_dims(_f.cast(valid, np.float32), -1)


class VocabularyListCategoricalColumn(Categorical, collections.namedtuple(
        "VocabularyListCategoricalColumn",
        ["key", "vocabulary_list", "dtype", "default_value", "num_oov_buckets"])):
    """Integer values mapped to their place in ``vocabulary_list``."""
    name = property(lambda self: self.key)
    num_buckets = property(lambda self: len(self.vocabulary_list))

    def hots(self, features):
        x, valid = _ids(features, self.key)
        vocab = _t.constant(np.asarray(self.vocabulary_list, np.int64))
        hits = _f.cast(_f.equal(_f.expand_dims(x, -1), vocab), np.float32)
        hits = hits * _f.expand_dims(_f.cast(valid, np.float32), -1)
        if self.default_value is not None and self.default_value >= 0:
            # a present value outside the vocabulary is default_value's id
            missed = _f.cast(valid, np.float32) - _f.reduce_sum(hits, axis=2)
            hits = hits + _f.expand_dims(missed, -1) * one_hot(
                self.default_value, self.num_buckets, dtype=np.float32)
        return hits


class WeightedCategoricalColumn(Categorical, collections.namedtuple(
        "WeightedCategoricalColumn", ["categorical_column", "weight_feature_key", "dtype"])):
    """A categorical column whose ids weigh what feature ``weight_feature_key`` says
    (one weight per id, in the same place; TF reads a weight 0 as missing)."""
    name = property(lambda self: f"{self.categorical_column.name}_weighted_by_"
                                 f"{self.weight_feature_key}")
    num_buckets = property(lambda self: self.categorical_column.num_buckets)

    def hots(self, features):
        return self.categorical_column.hots(features)

    def weighted(self, features):
        hots = self.hots(features)
        w = _f.cast(features[self.weight_feature_key], np.float32)
        _known_rank(w, self.weight_feature_key)
        # the weights of the ids present (a missing id's weight counts for nothing)
        w = _f.reshape(w, [shape(w)[0], -1]) * _f.reduce_sum(hots, axis=-1)
        counts = _f.reduce_sum(hots * _f.expand_dims(w, -1), axis=1)
        return (counts, _f.reduce_sum(w, axis=1, keepdims=True),
                _f.reduce_sum(w * w, axis=1, keepdims=True))


class IndicatorColumn(collections.namedtuple("IndicatorColumn", ["categorical_column"])):
    """A categorical column as counts of its ids (``indicator_column``)."""
    name = property(lambda self: f"{self.categorical_column.name}_indicator")
    dense_size = property(lambda self: self.categorical_column.num_buckets)

    def dense(self, features):
        return self.categorical_column.counts(features)


class EmbeddingColumn(collections.namedtuple("EmbeddingColumn", [
        "categorical_column", "dimension", "combiner", "initializer", "ckpt_to_load_from",
        "tensor_name_in_ckpt", "max_norm", "trainable"])):
    """The combined rows of ``embedding_weights`` of an example's ids."""
    name = property(lambda self: f"{self.categorical_column.name}_embedding")
    dense_size = property(lambda self: self.dimension)

    def dense(self, features):
        n = self.categorical_column.num_buckets
        table = get_variable("embedding_weights", [n, self.dimension], dtype=np.float32,
                             initializer=self.initializer, trainable=self.trainable)
        counts, weight_sum, square_sum = self.categorical_column.weighted(features)
        return combined(_t.matmul(counts, table), weight_sum, square_sum, self.combiner)


class SharedEmbeddingColumn(collections.namedtuple("SharedEmbeddingColumn", [
        "categorical_column", "dimension", "combiner", "initializer",
        "shared_embedding_collection_name", "ckpt_to_load_from", "tensor_name_in_ckpt",
        "max_norm", "trainable"])):
    """An embedding column whose table is shared with others
    (``shared_embedding_columns``): the first one read makes it, beside its own scope
    (``input_layer/<collection name>/embedding_weights``), and puts it in the graph
    collection of that name, where the others (and later input layers) find it."""
    name = property(lambda self: f"{self.categorical_column.name}_shared_embedding")
    dense_size = property(lambda self: self.dimension)

    def dense(self, features):
        counts, weight_sum, square_sum = self.categorical_column.weighted(features)
        return combined(_t.matmul(counts, self._table()), weight_sum, square_sum,
                        self.combiner)

    def _table(self):
        key = self.shared_embedding_collection_name
        found = get_collection(key)
        if found:
            return found[0]
        parent = get_variable_scope().name.rpartition("/")[0]
        with variable_scope(VariableScope(f"{parent}/{key}" if parent else key)):
            table = get_variable(
                "embedding_weights", [self.categorical_column.num_buckets, self.dimension],
                dtype=np.float32, initializer=self.initializer, trainable=self.trainable)
        add_to_collection(key, table)
        return table


def combined(total, weight_sum, square_sum, combiner):
    """``total`` (the weighted sum over an example's ids) as the ``combiner`` asks:
    ``sum``, ``mean`` (over the sum of the weights) or ``sqrtn`` (over the root of the
    sum of their squares); an example without ids gives zeros."""
    if combiner == "sum":
        return total
    scale = weight_sum if combiner == "mean" else _f.sqrt(square_sum)
    return _f.where(scale > 0, total / _f.maximum(scale, 1e-30), _f.zeros_like(total))


def _rows(x, size, key):
    """``x`` as a ``[batch, size]`` matrix (a ``[batch]`` feature is one column); a
    feature of another size fails when run, as TF's reshape does."""
    _known_rank(x, key)
    return _f.reshape(x, [shape(x)[0], size])


def _known_rank(x, key):
    if x.shape is None:
        raise ValueError(f"feature {key!r} has no known shape (a tf.placeholder "
                         "without shape); give it one, such as [None] or [None, k]")
    if x.ndim == 0:
        raise ValueError(f"feature {key!r}: a feature holds one row per example; got "
                         "a scalar")


def _ids(features, key):
    """An integer feature as ``[batch, k]`` int64 ids and where they are present (TF
    reads ``-1`` as a missing id)."""
    x = features[key]
    x = _t.as_tensor(x)
    if x.dtype.kind not in "iu":
        raise ValueError(f"feature {key!r}: a categorical column reads integer ids, got "
                         f"dtype {x.dtype}; symgrad tensors hold numbers, so map strings "
                         "to integers in Python before feeding")
    x = _f.cast(x, np.int64)
    _known_rank(x, key)
    x = _f.reshape(x, [shape(x)[0], -1])
    return x, _f.not_equal(x, -1)


def embedding_initializer(dimension):
    """TF's default: a truncated normal of standard deviation 1/sqrt(dimension)."""
    return _init.TABLE["truncated_normal_initializer"](mean=0.0,
                                                       stddev=1.0 / np.sqrt(dimension))
