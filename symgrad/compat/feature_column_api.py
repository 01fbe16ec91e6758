"""The functions of ``tf.feature_column``: the columns' constructors with TF's checks,
``input_layer`` and ``linear_model`` (the columns themselves: ``compat.feature_columns``).

What TF has and symgrad does not — columns read from strings or hashed
(``categorical_column_with_hash_bucket``, ``_with_vocabulary_file``,
``crossed_column``) — is refused by name with what to do instead.

Sits in ``compat``; imports the tracing layer and ``compat.feature_columns``,
``scopes`` and ``initializers``.

>>> import numpy as np, symgrad.compat.v1 as tf
>>> cols = [tf.feature_column.numeric_column("b"), tf.feature_column.numeric_column("a")]
>>> x = tf.feature_column.input_layer({"a": np.ones(2), "b": np.zeros(2)}, cols)
>>> tf.Session().run(x).tolist()   # a before b: columns are sorted by name
[[1.0, 0.0], [1.0, 0.0]]
"""
from __future__ import annotations

import numpy as np

from .. import tracing as _t
from ..tracing import functions as _f
from . import feature_columns as _fc
from . import initializers as _init
from .scopes import get_variable, variable_scope
from .variables import global_variables

COMBINERS = ("mean", "sqrtn", "sum")


def numeric_column(key, shape=(1,), default_value=None, dtype=np.float32,
                   normalizer_fn=None):
    """``tf.feature_column.numeric_column``."""
    shape = (int(shape),) if np.ndim(shape) == 0 else tuple(int(d) for d in shape)
    if any(d < 1 for d in shape):
        raise ValueError(f"shape dimensions must be greater than 0. shape: {shape}, "
                         f"key: {key}")
    kind = np.dtype(dtype).kind if _numeric(dtype) else None
    if kind not in ("f", "i", "u"):
        raise ValueError(f"dtype must be convertible to float. dtype: {dtype}, key: {key}")
    if normalizer_fn is not None and not callable(normalizer_fn):
        raise TypeError(f"normalizer_fn must be a callable. Given: {normalizer_fn}")
    return _fc.NumericColumn(key, shape, default_value, np.dtype(dtype), normalizer_fn)


def _numeric(dtype):
    try:
        return np.dtype(dtype).kind in "fiub"
    except TypeError:
        return False


def bucketized_column(source_column, boundaries):
    """``tf.feature_column.bucketized_column`` of a ``numeric_column``."""
    if not isinstance(source_column, _fc.NumericColumn):
        raise ValueError(f"source_column must be a column generated with "
                         f"numeric_column(). Given: {source_column}")
    if len(source_column.shape) > 1:
        raise ValueError(f"source_column must be one-dimensional column. Given: "
                         f"{source_column}")
    boundaries = tuple(float(b) for b in boundaries)
    if not boundaries or any(a >= b for a, b in zip(boundaries, boundaries[1:])):
        raise ValueError("boundaries must be a sorted list.")
    return _fc.BucketizedColumn(source_column, boundaries)


def categorical_column_with_identity(key, num_buckets, default_value=None):
    """``tf.feature_column.categorical_column_with_identity``."""
    if num_buckets < 1:
        raise ValueError(f"num_buckets {num_buckets} < 1, column_name {key}")
    if default_value is not None and not 0 <= default_value < num_buckets:
        raise ValueError(f"default_value {default_value} not in range [0, {num_buckets}), "
                         f"column_name {key}")
    return _fc.IdentityCategoricalColumn(key, int(num_buckets), default_value)


def categorical_column_with_vocabulary_list(key, vocabulary_list, dtype=None,
                                            default_value=-1, num_oov_buckets=0):
    """``tf.feature_column.categorical_column_with_vocabulary_list`` of integers."""
    vocab = list(vocabulary_list)
    if not vocab:
        raise ValueError(f"vocabulary_list {vocabulary_list} must be non-empty, "
                         f"column_name: {key}")
    if any(isinstance(v, (str, bytes)) for v in vocab):
        raise ValueError(
            f"categorical_column_with_vocabulary_list({key!r}): symgrad tensors hold "
            "numbers, so string vocabularies are not supported; map the strings to "
            "integer ids in Python (e.g. {word: i for i, word in enumerate(vocab)}) and "
            "use categorical_column_with_identity, or give an integer vocabulary")
    if len(set(vocab)) != len(vocab):
        raise ValueError(f"Duplicate keys in vocabulary_list {vocab}, column_name: {key}")
    if num_oov_buckets:
        raise ValueError(f"categorical_column_with_vocabulary_list({key!r}): "
                         "num_oov_buckets hashes values into buckets, which symgrad does "
                         "not do; map values outside the vocabulary with default_value")
    if default_value is not None and not -1 <= default_value < len(vocab):
        raise ValueError(f"default_value {default_value} not in range [-1, {len(vocab)}), "
                         f"column_name {key}")
    return _fc.VocabularyListCategoricalColumn(key, tuple(int(v) for v in vocab),
                                               np.dtype(dtype or np.int64), default_value, 0)


def weighted_categorical_column(categorical_column, weight_feature_key, dtype=np.float32):
    """``tf.feature_column.weighted_categorical_column``: ids weighted by a feature."""
    _categorical(categorical_column, "weighted_categorical_column")
    if np.dtype(dtype).kind != "f":
        raise ValueError(f"dtype {dtype} is not convertible to float.")
    return _fc.WeightedCategoricalColumn(categorical_column, weight_feature_key,
                                         np.dtype(dtype))


def indicator_column(categorical_column):
    """``tf.feature_column.indicator_column``: multi-hot counts of the ids."""
    _categorical(categorical_column, "indicator_column")
    return _fc.IndicatorColumn(categorical_column)


def embedding_column(categorical_column, dimension, combiner="mean", initializer=None,
                     ckpt_to_load_from=None, tensor_name_in_ckpt=None, max_norm=None,
                     trainable=True, use_safe_embedding_lookup=True):
    """``tf.feature_column.embedding_column``."""
    _categorical(categorical_column, "embedding_column")
    if dimension is None or dimension < 1:
        raise ValueError(f"Invalid dimension {dimension}.")
    if combiner not in COMBINERS:
        raise ValueError(f"embedding_column: combiner must be one of {COMBINERS}, got "
                         f"{combiner!r}")
    if initializer is not None and not callable(initializer):
        raise ValueError("initializer must be callable if specified. Embedding of column_name: "
                         f"{categorical_column.name}")
    if ckpt_to_load_from is not None or max_norm is not None:
        raise ValueError("embedding_column: ckpt_to_load_from and max_norm are not "
                         "supported; restore the table with tf.train.init_from_checkpoint")
    return _fc.EmbeddingColumn(categorical_column, int(dimension), combiner,
                               initializer or _fc.embedding_initializer(dimension),
                               None, None, None, trainable)


def shared_embedding_columns(categorical_columns, dimension, combiner="mean",
                             initializer=None, shared_embedding_collection_name=None,
                             ckpt_to_load_from=None, tensor_name_in_ckpt=None,
                             max_norm=None, trainable=True, use_safe_embedding_lookup=True):
    """``tf.feature_column.shared_embedding_columns``: embedding columns of one table
    (the columns must have the same number of buckets)."""
    columns = list(categorical_columns)
    for column in columns:
        _categorical(column, "shared_embedding_columns")
    if len({c.num_buckets for c in columns}) > 1:
        raise ValueError(f"To use shared_embedding_column, all categorical_columns must "
                         f"have the same number of buckets. Given column: {columns[0]} "
                         f"with buckets: {columns[0].num_buckets}")
    checked = embedding_column(columns[0], dimension, combiner, initializer,
                               ckpt_to_load_from, tensor_name_in_ckpt, max_norm, trainable)
    name = shared_embedding_collection_name or \
        "_".join(sorted(c.name for c in columns)) + "_shared_embedding"
    return [_fc.SharedEmbeddingColumn(c, checked.dimension, combiner, checked.initializer,
                                      name, None, None, None, trainable) for c in columns]


def _categorical(column, what):
    if not isinstance(column, _fc.Categorical):
        raise ValueError(f"{what}: categorical_column must be a categorical column "
                         f"(categorical_column_with_*, or bucketized_column). Given: {column}")


def _columns(feature_columns):
    columns = list(feature_columns) if isinstance(feature_columns, (list, tuple, set)) \
        else [feature_columns]
    if not columns:
        raise ValueError("feature_columns must not be empty.")
    columns = sorted(columns, key=lambda c: c.name)
    for a, b in zip(columns, columns[1:]):
        if a.name == b.name:
            raise ValueError(f"Duplicate feature column name found for columns: {a} and "
                             f"{b}. This usually means that these columns refer to same "
                             "base feature. Either one must be discarded or a duplicated "
                             "but renamed item must be inserted in features dict.")
    return columns


def input_layer(features, feature_columns, weight_collections=None, trainable=True,
                cols_to_vars=None, cols_to_output_tensors=None):
    """``tf.feature_column.input_layer``: the dense columns' values side by side, in
    the order of their names, as a float32 ``[batch, total]`` tensor."""
    columns = _columns(feature_columns)
    for column in columns:
        if not hasattr(column, "dense"):
            raise ValueError(
                "Items of feature_columns must be a _DenseColumn. You can wrap a "
                "categorical column with an embedding_column or indicator_column. Given: "
                f"{column}")
    parts = []
    with variable_scope(None, default_name="input_layer"):
        for column in columns:
            with variable_scope(None, default_name=column.name):
                before = set(global_variables())
                parts.append(column.dense(features))
                if cols_to_vars is not None:   # (the variables the column made)
                    cols_to_vars[column] = [v for v in global_variables()
                                            if v not in before]
                if cols_to_output_tensors is not None:
                    cols_to_output_tensors[column] = parts[-1]
    return _f.concat(parts, axis=1)


def linear_model(features, feature_columns, units=1, sparse_combiner="sum",
                 weight_collections=None, trainable=True, cols_to_vars=None):
    """``tf.feature_column.linear_model``: the sum of each column times its weights
    (``linear_model/<name>/weights``, zeros) plus ``linear_model/bias_weights``; a
    categorical column's ids are combined with ``sparse_combiner``."""
    if sparse_combiner not in COMBINERS:
        raise ValueError(f"linear_model: sparse_combiner must be one of {COMBINERS}, got "
                         f"{sparse_combiner!r}")
    total = []
    with variable_scope(None, default_name="linear_model"):
        for column in _columns(feature_columns):
            with variable_scope(None, default_name=column.name):
                part, weights = _weighted(column, features, units, sparse_combiner,
                                          trainable)
                total.append(part)
                if cols_to_vars is not None:
                    cols_to_vars[column] = [weights]
        bias = get_variable("bias_weights", [units], dtype=np.float32,
                            initializer=_init.TABLE["zeros_initializer"](),
                            trainable=trainable)
        if cols_to_vars is not None:
            cols_to_vars["bias"] = [bias]
    return sum(total[1:], total[0]) + bias


def _weighted(column, features, units, combiner, trainable):
    if isinstance(column, _fc.Categorical):
        values, weight_sum, square_sum = column.weighted(features)
        size = column.num_buckets
    elif hasattr(column, "dense") and not isinstance(
            column, (_fc.EmbeddingColumn, _fc.SharedEmbeddingColumn)):
        values, size, combiner = column.dense(features), column.dense_size, "sum"
        weight_sum = square_sum = None
    else:
        raise ValueError(f"linear_model: {column.name} must be a numeric, bucketized, "
                         "categorical or indicator column (an embedding_column goes to "
                         "input_layer)")
    weights = get_variable("weights", [size, units], dtype=np.float32,
                           initializer=_init.TABLE["zeros_initializer"](),
                           trainable=trainable)
    return _fc.combined(_t.matmul(values, weights), weight_sum, square_sum,
                        combiner), weights


def _refused(what, instead):
    def refuse(*args, **kwargs):
        raise ValueError(f"tf.feature_column.{what} is not supported in symgrad: {instead}")
    refuse.__name__ = what
    return refuse


_HASHED = ("it hashes values into buckets (TF's fingerprint of their text); map the "
           "values to integer ids in Python and use categorical_column_with_identity")
categorical_column_with_hash_bucket = _refused("categorical_column_with_hash_bucket", _HASHED)
crossed_column = _refused("crossed_column", _HASHED)
categorical_column_with_vocabulary_file = _refused(
    "categorical_column_with_vocabulary_file",
    "symgrad tensors hold numbers and read no files; load the vocabulary in Python and "
    "use categorical_column_with_vocabulary_list with integer values")
