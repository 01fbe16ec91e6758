"""More ``tf.keras.backend`` functions custom losses and layers call, as TF's Keras
backend defines them on top of the TF1 ops: ``switch``, ``any``/``all``, ``round``,
the comparisons, ``cumsum``/``cumprod``, ``repeat_elements``, ``batch_dot``, the random
draws, ``dropout``, ``update``/``update_add``/``update_sub``, ``bias_add``, ``conv2d``,
``pool2d``, ``reverse``, ``arange``, ``eye``, ``print_tensor``, ``map_fn``, ``foldl``,
``temporal_padding``, ``spatial_2d_padding``, ``name_scope``.

Sits in ``compat``; imports the tracing functions and ``compat``'s keras backend,
control flow, variables, distributions and state.

>>> import symgrad.compat.v1 as tf
>>> K = tf.keras.backend
>>> with tf.Graph().as_default():
...     x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
...     print(K.get_session().run(K.repeat_elements(x, 2, axis=1)).tolist())
[[1.0, 1.0, 2.0, 2.0], [3.0, 3.0, 4.0, 4.0]]
"""
from __future__ import annotations

import numpy as np

from .. import tracing as _t
from ..tracing import functions as _f
from ..tracing import nn as _nn
from . import control as _control
from . import distributions as _distributions
from . import initializers as _init
from . import keras_backend as K
from . import variables as _variables
from .state import state_of
from .tensor import constant, tf_dtype_arg


def switch(condition, then_expression, else_expression):
    """``then`` where ``condition`` holds, else ``else`` (``tf.cond`` for a scalar
    condition; an elementwise pick, the condition broadcast, otherwise)."""
    cond = _t.as_tensor(condition)
    cond = _t.cast(cond, np.bool_) if cond.dtype != np.bool_ else cond   # (Keras casts)
    pick = [e() if callable(e) else e for e in (then_expression, else_expression)]
    if cond.ndim == 0:
        return _control.cond(cond, lambda: pick[0], lambda: pick[1])
    target = _t.as_tensor(pick[0])
    while cond.ndim < target.ndim:
        cond = _t.expand_dims(cond, -1)
    cond = _t.logical_and(cond, _t.ones_like(target, dtype=np.bool_))
    return _t.where(cond, pick[0], pick[1])


def any(x, axis=None, keepdims=False):  # noqa: A001
    return _t.reduce_any(_t.cast(x, np.bool_), axis=axis, keepdims=keepdims)


def all(x, axis=None, keepdims=False):  # noqa: A001
    return _t.reduce_all(_t.cast(x, np.bool_), axis=axis, keepdims=keepdims)


def repeat_elements(x, rep, axis):
    """Each slice along ``axis`` repeated ``rep`` times (np.repeat)."""
    x = _t.as_tensor(x)
    axis = axis % x.ndim
    multiples = [1] * (axis + 1) + [rep] + [1] * (x.ndim - axis - 1)
    tiled = _t.tile(_t.expand_dims(x, axis + 1), multiples)
    shape = list(x.shape)   # (a size known at run time stays a Dim: [None, steps, C])
    shape[axis] = shape[axis] * rep
    return _t.reshape(tiled, tuple(shape))


def batch_dot(x, y, axes=None):
    """Keras's batched dot product of two batches over ``axes`` (2-D with 2-D gives
    shape (batch, 1); 3-D with 3-D a batched matmul; 3-D with 2-D a batch of vectors)."""
    x, y = _t.as_tensor(x), _t.as_tensor(y)
    if axes is None:
        axes = (x.ndim - 1, y.ndim - 2 if y.ndim > 2 else y.ndim - 1)
    ax, ay = (axes, axes) if isinstance(axes, int) else tuple(axes)
    ax, ay = ax % x.ndim, ay % y.ndim
    if x.ndim == 2 and y.ndim == 2:
        return _t.reduce_sum(x * y, axis=1, keepdims=True)
    if x.ndim == 3 and y.ndim == 3:
        return _t.matmul(x, y, transpose_a=ax == 1, transpose_b=ay == 2)
    if x.ndim == 3 and y.ndim == 2:
        out = _t.matmul(x, _t.expand_dims(y, -1), transpose_a=ax == 1)
        return _t.squeeze(out, [-1])
    raise ValueError(f"batch_dot: inputs of rank {x.ndim} and {y.ndim} are not supported; "
                     "use tf.einsum for them")


def update(x, new_x):
    return _variables.assign(x, new_x)


def update_add(x, increment):
    return _variables.assign_add(x, increment)


def update_sub(x, decrement):
    return _variables.assign_sub(x, decrement)


def dropout(x, level, noise_shape=None, seed=None):
    return _nn.dropout(x, rate=level, noise_shape=noise_shape, rng=_init.rng(seed),
                       per_run=True)   # (a new mask at each run, as TF's)


def _drawn(shape, dist, seed, dtype, a, b):
    """Drawn at each run, as tf.random_normal's (TF's numbers where ``seed`` is given)."""
    return _distributions.scaled_draw(_f._dims(shape, "shape"), dist, seed,
                                      tf_dtype_arg(dtype or K.floatx()), a, b)


def random_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    return _drawn(shape, "normal", seed, dtype, mean, stddev)


def random_uniform(shape, minval=0.0, maxval=1.0, dtype=None, seed=None):
    return _drawn(shape, "uniform", seed, dtype, minval, maxval)


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    """Normal numbers redrawn beyond two standard deviations, drawn once (a fixed shape,
    as tf.truncated_normal's)."""
    dtype = tf_dtype_arg(dtype or K.floatx())
    value = _init.TruncatedNormal(mean, stddev, seed).array(
        tuple(int(d) for d in shape), np.dtype(dtype))
    return constant(value, dtype=dtype)


def bias_add(x, bias, data_format=None):
    if data_format == "channels_first":
        raise ValueError("bias_add: data_format='channels_first' is not supported; "
                         "use channels_last")
    return _t.as_tensor(x) + bias


def _padding(padding):
    return str(padding).upper()


def conv2d(x, kernel, strides=(1, 1), padding="valid", data_format=None,
           dilation_rate=(1, 1)):
    """``tf.nn.conv2d`` over channels_last images (Keras's strides and padding names)."""
    return _nn.conv2d(x, kernel, [1, *strides, 1], _padding(padding),
                      dilations=[1, *dilation_rate, 1])


def pool2d(x, pool_size, strides=(1, 1), padding="valid", data_format=None, pool_mode="max"):
    if pool_mode not in ("max", "avg"):
        raise ValueError(f"pool2d: pool_mode must be 'max' or 'avg', got {pool_mode!r}")
    pool = _nn.max_pool if pool_mode == "max" else _nn.avg_pool
    return pool(x, [1, *pool_size, 1], [1, *strides, 1], _padding(padding))


def reverse(x, axes):
    return _t.reverse(x, [axes] if isinstance(axes, int) else list(axes))


def arange(start, stop=None, step=1, dtype="int32"):
    if stop is None:
        start, stop = 0, start
    return _t.range(start, stop, step, dtype=np.dtype(dtype))


def eye(size, dtype=None, name=None):
    """A variable holding the identity matrix (Keras's ``eye`` is a variable)."""
    return K.variable(np.eye(size), dtype, name)


def print_tensor(x, message=""):
    """``x``; each run that evaluates it prints ``message`` and x's entries (tf.Print)."""
    x = _t.as_tensor(x)
    out = _f.identity(x, name="print_tensor")
    state_of(x.graph).prints[out] = ([x], message, None, 3)
    return out


def map_fn(fn, elems, name=None, dtype=None):
    return _control.map_fn(fn, elems, dtype=dtype)


def foldl(fn, elems, initializer=None, name=None):
    return _control.foldl(fn, elems, initializer=initializer)


def temporal_padding(x, padding=(1, 1)):
    return _t.pad(x, [[0, 0], list(padding), [0, 0]])


def spatial_2d_padding(x, padding=((1, 1), (1, 1)), data_format=None):
    return _t.pad(x, [[0, 0], list(padding[0]), list(padding[1]), [0, 0]])


def name_scope(name):
    return _t.get_default_graph().name_scope(name)


BACKEND_MORE = dict(
    switch=switch, any=any, all=all, round=lambda x: _t.round(x),
    not_equal=lambda x, y: _t.not_equal(x, y),
    greater_equal=lambda x, y: _t.greater_equal(x, y),
    less_equal=lambda x, y: _t.less_equal(x, y),
    cumsum=lambda x, axis=0: _t.cumsum(x, axis=axis),
    cumprod=lambda x, axis=0: _t.cumprod(x, axis=axis), repeat_elements=repeat_elements,
    batch_dot=batch_dot, update=update, update_add=update_add, update_sub=update_sub,
    dropout=dropout, random_normal=random_normal, random_uniform=random_uniform,
    truncated_normal=truncated_normal, bias_add=bias_add, conv2d=conv2d, pool2d=pool2d,
    reverse=reverse, arange=arange, eye=eye, print_tensor=print_tensor, map_fn=map_fn,
    foldl=foldl, temporal_padding=temporal_padding, spatial_2d_padding=spatial_2d_padding,
    name_scope=name_scope)
