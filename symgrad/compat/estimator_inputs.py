"""``tf.estimator.inputs``: input functions over numpy arrays and pandas frames.

``numpy_input_fn(x, y, batch_size, num_epochs, shuffle)`` returns an ``input_fn``
whose features are a dict of batches of ``x``'s arrays (or one batch tensor when ``x``
is an array) and whose labels are batches of ``y``.  As TF's queues do, the examples
run on across epochs: ten examples in batches of four for two epochs are five
batches, and only the last batch of the last epoch may be short; ``num_epochs=None``
repeats forever.  ``shuffle`` must be given (TF's rule); a shuffled epoch is a random
permutation of the examples (not TF's order, whose random stream differs).  Arrays
keep their dtypes.  ``pandas_input_fn`` reads a DataFrame's columns the same way
(pandas is needed only to call it).

Sits in ``compat``; imports numpy and ``compat.datasets``.

>>> import numpy as np
>>> fn = numpy_input_fn({"a": np.arange(5.0)}, np.arange(5), batch_size=2, shuffle=False)
>>> features, labels = fn()
>>> sorted(features), labels.shape.as_list()
(['a'], [None])
"""
from __future__ import annotations

import numpy as np

from .datasets import Dataset

_DIRECT = "__direct_np_input__"


def numpy_input_fn(x, y=None, batch_size=128, num_epochs=1, shuffle=None,
                   queue_capacity=1000, num_threads=1):
    """``tf.estimator.inputs.numpy_input_fn`` (module docstring)."""
    if not isinstance(shuffle, bool):
        raise ValueError("shuffle must be provided and explicitly set as boolean (it is "
                         f"recommended to set it as True for training); got {shuffle}")
    _check_count(batch_size, "batch_size")
    if num_epochs is not None:
        _check_count(num_epochs, "num_epochs")

    def input_fn():
        data, feature_keys, target_keys = _columns(x, y)
        batch = _batches(data, batch_size, num_epochs, shuffle)
        features = (batch[_DIRECT] if feature_keys == [_DIRECT] else
                    {k: batch[k] for k in feature_keys})
        if target_keys is None:
            return features
        if isinstance(target_keys, str):
            return features, batch[target_keys]
        return features, {k: batch[k] for k in target_keys}
    return input_fn


def _check_count(value, what):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"numpy_input_fn: {what} must be a positive integer, got "
                         f"{value!r}")


def _columns(x, y):
    """The arrays by name (features sorted, then targets), the feature names, and the
    target's name (or names, for a dict ``y``; None without ``y``)."""
    if isinstance(x, dict):
        if not x:
            raise ValueError("x cannot be an empty dict")
        data = {k: np.asarray(x[k]) for k in sorted(x)}
    elif isinstance(x, np.ndarray):
        if x.size == 0:
            raise ValueError("x cannot be an empty array")
        data = {_DIRECT: x}
    else:
        raise TypeError(f"x must be a dict or array; got {type(x).__name__}")
    feature_keys = list(data)
    if y is None:
        target_keys = None
    elif isinstance(y, dict):
        if not y:
            raise ValueError("y cannot be empty dict, use None instead.")
        both = set(feature_keys) & set(y)
        if both:
            raise ValueError(f"{len(both)} duplicate keys are found in both x and y: {both}")
        target_keys = sorted(y)
        data.update({k: np.asarray(y[k]) for k in target_keys})
    else:
        target_keys = "__target_key__"
        while target_keys in data:
            target_keys = "_" + target_keys
        data[target_keys] = np.asarray(y)
    _check_lengths(data, feature_keys, target_keys)
    return data, feature_keys, target_keys


def _check_lengths(data, feature_keys, target_keys):
    if any(np.ndim(v) == 0 for v in data.values()) or \
            len({v.shape[0] for v in data.values()}) != 1:
        if target_keys is None or isinstance(target_keys, str):
            of_y = None if target_keys is None else data[target_keys].shape
        else:
            of_y = {k: data[k].shape for k in target_keys}
        raise ValueError(
            "Length of tensors in x and y is mismatched. All elements in x and y must "
            f"have the same length.\nShapes in x: "
            f"{ {k: data[k].shape for k in feature_keys} }\nShapes in y: {of_y}\n")


def _batches(data, batch_size, num_epochs, shuffle):
    """The next batch's tensors by name, the examples running on across epochs."""
    ds = Dataset.from_tensor_slices(data)
    if shuffle:
        ds = ds.shuffle(len(next(iter(data.values()))))
    return ds.repeat(num_epochs).batch(batch_size).make_one_shot_iterator().get_next()


def pandas_input_fn(x, y=None, batch_size=128, num_epochs=1, shuffle=None,
                    queue_capacity=1000, num_threads=1, target_column="target"):
    """``tf.estimator.inputs.pandas_input_fn``: a DataFrame's columns as features, and
    ``y`` (a Series, or a DataFrame's columns as a dict) as labels."""
    try:
        import pandas as pd
    except ImportError:
        raise TypeError("pandas_input_fn should not be called without pandas installed")
    if not isinstance(shuffle, bool):
        raise ValueError("shuffle must be provided and explicitly set as boolean (it is "
                         f"recommended to set it as True for training); got {shuffle}")
    if not isinstance(x, pd.DataFrame):
        raise TypeError(f"pandas_input_fn: x must be a pandas DataFrame, got "
                        f"{type(x).__name__}")
    features = {str(c): x[c].to_numpy() for c in x.columns}
    labels = None
    if y is not None:
        if not np.array_equal(x.index, y.index):
            raise ValueError(f"Index for x and y are mismatched.\nIndex for x: {x.index}\n"
                             f"Index for y: {y.index}\n")
        labels = ({str(c): y[c].to_numpy() for c in y.columns}
                  if isinstance(y, pd.DataFrame) else y.to_numpy())
    return numpy_input_fn(features, labels, batch_size, num_epochs, shuffle,
                          queue_capacity, num_threads)
