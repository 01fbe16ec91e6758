"""``tf.test.compute_gradient`` and ``compute_gradient_error``: TF1's gradient checker,
and the few ``tf.test`` helpers scripts call around it.

The two Jacobians come back in TF's layout: shape ``(x size, y size)``, row i the
derivatives of every entry of y with respect to entry i of x (C order).

- theoretical: symgrad's own derivatives, ``tf.gradients`` of y (reshaped to
  ``y_shape``) with respect to x seeded with each unit vector in turn (TF's way),
  run in the default session with x fed;
- numerical: TF's central differences, ``(y(x + delta e_i) - y(x - delta e_i)) /
  (2 delta)`` in y's dtype, one pair of runs per entry of x.

Both are of x's dtype.  ``x`` may be any float tensor that can be fed (a
placeholder, a variable: its stored value is untouched); ``x_init_value`` defaults
to ``np.random.random_sample(x_shape)`` (numpy's global generator, as TF draws it).
For a list of xs, each x's pair is computed with only that x fed: other
placeholders go in ``extra_feed_dict``, as in TF.  Differs from TF: a y that does
not depend on x raises AssertionError with the reason (TF's says ``dx = None``),
and no default session raises a ValueError saying how to open one.

Sits in ``compat``; imports numpy, the tracing layer, ``differentiate`` and ``compat.state``.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     x = tf.placeholder(tf.float64, [2])
...     y = x * x
...     with tf.Session():
...         theoretical, numerical = tf.test.compute_gradient(
...             x, [2], y, [2], x_init_value=np.array([1.0, 3.0]))
>>> theoretical
array([[2., 0.],
       [0., 6.]])
>>> bool(abs(theoretical - numerical).max() < 1e-9)
True
"""
from __future__ import annotations

import tempfile

import numpy as np

from .. import tracing as _t
from ..differentiate import gradients
from .state import DEFAULT_SESSIONS


def compute_gradient(x, x_shape, y, y_shape, x_init_value=None, delta=1e-3,
                     init_targets=None, extra_feed_dict=None):
    """``(theoretical, numerical)`` Jacobians of ``y`` with respect to ``x``, each of
    shape ``(x size, y size)``; a list of such pairs when ``x`` is a list.

    Raises:
        ValueError: no default session, or shapes that disagree with x's or y's.
        AssertionError: an integer x or y, or y independent of x (as TF asserts).
    """
    sess = _default_session()
    if isinstance(y, (list, tuple)):
        raise TypeError("compute_gradient: y must be one tensor (sum a list with tf.add_n)")
    if init_targets is not None:
        sess.run(init_targets)
    if not isinstance(x, list):
        return _pair(sess, x, x_shape, y, y_shape, x_init_value, delta, extra_feed_dict)
    inits = [None] * len(x) if x_init_value is None else list(x_init_value)
    if not len(x) == len(x_shape) == len(inits):
        raise ValueError(f"compute_gradient: {len(x)} xs need as many x_shapes and "
                         f"x_init_values; got {len(x_shape)} and {len(inits)}")
    return [_pair(sess, xi, si, y, y_shape, vi, delta, extra_feed_dict)
            for xi, si, vi in zip(x, x_shape, inits)]


def compute_gradient_error(x, x_shape, y, y_shape, x_init_value=None, delta=1e-3,
                           init_targets=None, extra_feed_dict=None):
    """The largest ``|theoretical - numerical|`` over the Jacobians of
    :func:`compute_gradient` (of x's dtype; 0 for empty ones)."""
    found = compute_gradient(x, x_shape, y, y_shape, x_init_value, delta, init_targets,
                             extra_feed_dict)
    error = 0
    for theoretical, numerical in found if isinstance(found, list) else [found]:
        if theoretical.size or numerical.size:
            error = np.maximum(error, np.fabs(theoretical - numerical).max())
    return error


def _default_session():
    if not DEFAULT_SESSIONS:
        raise ValueError("compute_gradient runs the graph in the default session, and none "
                         "is registered: call it inside `with tf.Session():` (or `with "
                         "sess.as_default():`)")
    return DEFAULT_SESSIONS[-1]


def _pair(sess, x, x_shape, y, y_shape, x_init_value, delta, extra_feed_dict):
    x_shape, y_shape = _shape(x_shape, "x_shape"), _shape(y_shape, "y_shape")
    _check_float(x, "x")
    _check_float(y, "y")
    x_data = _initial(x, x_shape, x_init_value)
    _check_known(x, x_shape, "x")
    _check_known(y, y_shape, "y")
    extra = dict(extra_feed_dict or {})
    return (_theoretical(sess, x, x_data, y, y_shape, extra),
            _numerical(sess, x, x_data, y, int(np.prod(y_shape)), delta, extra))


def _shape(shape, what):
    try:
        return tuple(int(n) for n in shape)
    except TypeError:
        raise TypeError(f"compute_gradient: {what} must be a list of ints (the fed shape), "
                        f"got {shape!r}") from None


def _check_float(t, what):
    if not isinstance(t, _t.Tensor):
        raise TypeError(f"compute_gradient: {what} must be a tensor of the graph, got "
                        f"{type(t).__name__}")
    if not np.issubdtype(t.dtype, np.floating):
        raise AssertionError(f"Don't support type {t.dtype} for {what}: gradients are "
                             "checked for float tensors only")


def _check_known(t, shape, what):
    """The static sizes of ``t`` (where known) against the shape given for it."""
    ok = t.shape is None or (len(t.shape) == len(shape) and all(
        not isinstance(d, int) or d == n for d, n in zip(t.shape, shape)))
    if not ok:
        raise ValueError(f"compute_gradient: {what}_shape {list(shape)} does not match the "
                         f"shape of {what} ({t.name!r}), {t.shape}")


def _initial(x, x_shape, x_init_value):
    if x_init_value is None:   # (TF's draw: numpy's global generator)
        return np.random.random_sample(x_shape).astype(x.dtype)
    x_data = np.asarray(x_init_value, dtype=x.dtype)
    if x_data.shape != x_shape:
        raise AssertionError(f"x_shape = {list(x_shape)}, init_data shape = "
                             f"{list(x_data.shape)}")
    return x_data


def _theoretical(sess, x, x_data, y, y_shape, extra):
    """``d y / d x`` from symgrad's derivatives, as (x size, y size): column j is the
    gradient of y seeded with the j-th unit vector (TF's way; any float dtype)."""
    seed = _t.placeholder(y.dtype, y_shape, name="compute_gradient_dy")
    (dx,) = gradients(_t.reshape(y, y_shape), x, grad_ys=seed)
    if dx is None:
        raise AssertionError(f"dx = None: y ({y.name!r}) does not depend on x ({x.name!r}), "
                             "so it has no gradient to check")
    y_size = int(np.prod(y_shape))
    out = np.zeros((x_data.size, y_size), dtype=x.dtype)
    for j in range(y_size):
        unit = np.zeros(y_size, dtype=y.dtype)
        unit[j] = 1
        value = sess.run(dx, {**extra, x: x_data, seed: unit.reshape(y_shape)})
        out[:, j] = np.asarray(value).ravel()
    return out


def _numerical(sess, x, x_data, y, y_size, delta, extra):
    """TF's central differences, one row per entry of x."""
    y_dtype = np.dtype(y.dtype)
    scale = np.asarray(2 * delta, dtype=y_dtype)[()]
    rows = []
    for i in range(x_data.size):
        up, down = x_data.copy(), x_data.copy()
        up.reshape(-1)[i] += delta
        down.reshape(-1)[i] -= delta
        y_up = np.asarray(sess.run(y, {**extra, x: up}), y_dtype)
        y_down = np.asarray(sess.run(y, {**extra, x: down}), y_dtype)
        rows.append(((y_up - y_down) / scale).ravel())
    return np.array(rows, dtype=x.dtype).reshape(x_data.size, y_size)


def is_gpu_available(cuda_only=False, min_cuda_compute_capability=None):
    """``tf.test.is_gpu_available``: False (symgrad runs on the CPU)."""
    return False


def gpu_device_name():
    """``tf.test.gpu_device_name``: ``''``, no GPU."""
    return ""


def is_built_with_cuda():
    return False


def get_temp_dir():
    """``tf.test.get_temp_dir``: a fresh temporary directory."""
    return tempfile.mkdtemp()


TEST = dict(compute_gradient=compute_gradient, compute_gradient_error=compute_gradient_error,
            is_gpu_available=is_gpu_available, gpu_device_name=gpu_device_name,
            is_built_with_cuda=is_built_with_cuda, is_built_with_gpu_support=is_built_with_cuda,
            get_temp_dir=get_temp_dir)
