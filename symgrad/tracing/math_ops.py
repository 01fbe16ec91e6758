"""``tf.math`` beyond the basics: rounding, clipping, argmax, cumsum, any/all.

Registry primitives where a new rule was needed (floor, ceil, round, atan2);
everything else is composed from primitives, so derivatives, closed forms and
the compiled lowering come for free and match TF's own compositions.

SEMANTICS (TF's behaviour at the edges, kept here):

- ``floor``, ``ceil``, ``round``: no gradient (TF registers ``None``); ``round``
  rounds half to even (``round(2.5) == 2``).
- ``clip_by_value(t, lo, hi)`` is ``maximum(minimum(t, hi), lo)`` as in TF: the
  gradient passes where ``lo <= t <= hi`` (both bounds included).
- ``argmax``/``argmin``: integer outputs, so no gradient flows through them; a tie
  gives the first index (TF's CPU kernel).
- ``clip_by_norm``: TF's formula ``t * clip_norm / maximum(l2norm, clip_norm)``
  with the all-zero tensor left unchanged (no NaN gradient at 0).

>>> with Graph().as_default():
...     x = constant([0.5, 1.5, 2.5, -0.5])
...     round(x).numpy().tolist()
[0.0, 2.0, 2.0, -0.0]
"""
from __future__ import annotations

import numpy as np

from ..errors import ShapeError
from ..graph import Dim, Node
from ..ops import apply, literal, normalize_axis
from ..ops.draws import band_mask, iota_of
from .arguments import publish
from .functions import (_lift, cast, div, equal, greater, logical_not, maximum, minimum,
                        neg, reciprocal, reduce_max, reduce_min, reduce_sum, softplus, sqrt,
                        square, sub, where)
from .tensor import Graph, constant  # noqa: F401  (doctests)

__all__ = ["floor", "ceil", "round", "atan2", "floordiv", "floormod", "mod",
           "floor_div", "rsqrt", "squared_difference", "log_sigmoid", "clip_by_value",
           "clip_by_norm", "clip_by_global_norm", "global_norm", "argmax", "argmin",
           "reduce_any", "reduce_all", "cumsum", "cumprod", "is_nan", "is_inf", "is_finite",
           "count_nonzero", "reduce_variance", "reduce_std"]


def named(t, name):
    """Give the last node of a composite the user's ``name`` (TF names the result)."""
    return t.graph.rename(t, name) if name else t


def _unary(op_name, doc):
    def fn(x, name=None):
        return apply(op_name, _lift([x]), name=name)
    fn.__name__, fn.__doc__ = op_name, doc
    return fn


floor = _unary("floor", "Largest integer <= x (same dtype); no gradient (TF).")
ceil = _unary("ceil", "Smallest integer >= x (same dtype); no gradient (TF).")
round = _unary("round",  # noqa: A001
               "Nearest integer, half to even (TF's round); no gradient (TF).")


def atan2(y, x, name=None):
    """The angle of the point (x, y): ``atan2(y, x)``, elementwise."""
    return apply("atan2", _lift([y, x]), name=name)


def floordiv(x, y, name=None):
    """floor(x / y), elementwise (Python's ``//``); no gradient (TF)."""
    return apply("floordiv", _lift([x, y]), name=name)


def floormod(x, y, name=None):
    """x - y * floor(x / y), elementwise (Python's ``%``: the sign of y)."""
    return apply("floormod", _lift([x, y]), name=name)


mod, floor_div = floormod, floordiv


def rsqrt(x, name=None):
    """1 / sqrt(x)."""
    return reciprocal(sqrt(x), name=name)


def squared_difference(x, y, name=None):
    """(x - y)**2, elementwise."""
    return square(sub(x, y), name=name)


def log_sigmoid(x, name=None):
    """log(sigmoid(x)) = -softplus(-x), computed stably (TF's formula)."""
    return neg(softplus(neg(x)), name=name)


def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    """``t`` clipped to [min, max]; the gradient passes where min <= t <= max (TF).

    >>> with Graph().as_default():
    ...     x = constant([-2.0, 0.0, 1.0, 3.0])
    ...     clip_by_value(x, 0.0, 1.0).numpy().tolist()
    [0.0, 0.0, 1.0, 1.0]
    """
    t, lo, hi = _lift([t, clip_value_min, clip_value_max])
    return maximum(minimum(t, hi), lo, name=name)


def _l2norm(t, axes):
    """TF's safe norm: sqrt(sum t**2) where the sum is > 0, else the (zero) sum."""
    l2sum = reduce_sum(square(t), axes, keepdims=True)
    positive = greater(l2sum, 0.0)
    return where(positive, sqrt(where(positive, l2sum, 1.0)), l2sum)


def clip_by_norm(t, clip_norm, axes=None, name=None):
    """``t * clip_norm / max(||t||, clip_norm)`` (norm over ``axes``, all by default)."""
    t, c = _lift([t, clip_norm])
    return div(t * c, maximum(_l2norm(t, axes), c), name=name)


def global_norm(t_list, name=None):
    """sqrt of the sum of squares of every entry of every tensor (None entries skipped)."""
    ts = [t for t in t_list if t is not None]
    if not ts:
        raise ValueError("global_norm(t_list): needs at least one tensor")
    total = reduce_sum(square(ts[0]))
    for t in ts[1:]:
        total = total + reduce_sum(square(t))
    return sqrt(total, name=name)


def tensor_sequence(t_list, what):
    """``t_list`` as a list; TF's TypeError for a tensor or other non-sequence (a tensor
    would be read as the list of its rows)."""
    if isinstance(t_list, (Node, str)) or not isinstance(t_list, (list, tuple)):
        raise TypeError(f"{what}: `t_list` should be a sequence of tensors, got "
                        f"{type(t_list).__name__}; pass a list, e.g. [t]")
    return list(t_list)


def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None):
    """``([t * clip_norm / max(global_norm, clip_norm) ...], global_norm)`` like TF.

    A NaN or inf global norm makes every clipped tensor NaN (TF adds ``norm - norm``).
    """
    t_list = tensor_sequence(t_list, "clip_by_global_norm")
    norm = global_norm(t_list) if use_norm is None else use_norm
    norm, c = _lift([norm, clip_norm])
    scale = c * minimum(reciprocal(norm), reciprocal(c)) + (norm - norm)
    return [None if t is None else t * scale for t in t_list], norm


def _arg_extreme(reducer, x, axis, output_type, name):
    (x,) = _lift([x])
    if x.ndim == 0:
        raise ShapeError("argmax/argmin: needs a tensor of rank >= 1, got a scalar")
    axis = normalize_axis(0 if axis is None else axis, x.ndim, "argmax")[0]
    n = x.shape[axis]
    shape = [1] * x.ndim
    shape[axis] = n
    if x.is_float:   # TF skips NaNs (all NaN: index 0); numpy would return the first NaN
        x = where(is_nan(x), float("-inf") if reducer is reduce_max else float("inf"), x)
    hit = equal(x, reducer(x, axis, keepdims=True))   # (every slice has a hit)
    if isinstance(n, Dim):   # a size known at run time: 0, 1, ..., n-1 made then
        iota = apply("reshape", [iota_of(x.graph, n, np.float64)], shape=tuple(shape))
        return cast(reduce_min(where(hit, iota, float("inf")), axis), output_type, name=name)
    iota = literal(x.graph, np.arange(n, dtype=np.float64).reshape(shape))
    first = reduce_min(where(hit, iota, float(n)), axis)
    return cast(first, output_type, name=name)


def argmax(input, axis=None, name=None, dimension=None, output_type=np.int64):
    """Index of the largest entry along ``axis`` (0 by default); ties: the first (TF).

    An integer tensor: no gradient flows through it.

    >>> with Graph().as_default():
    ...     argmax(constant([[1.0, 3.0, 3.0], [2.0, 0.0, 1.0]]), axis=1).numpy().tolist()
    [1, 0]
    """
    return _arg_extreme(reduce_max, input, dimension if axis is None else axis, output_type,
                        name)


def argmin(input, axis=None, name=None, dimension=None, output_type=np.int64):
    """Index of the smallest entry along ``axis`` (0 by default); ties: the first (TF)."""
    return _arg_extreme(reduce_min, input, dimension if axis is None else axis, output_type,
                        name)


def reduce_any(input_tensor, axis=None, keepdims=False, name=None):
    """Logical or over ``axis`` (False for an empty axis)."""
    (x,) = _lift([input_tensor])
    return greater(reduce_max(cast(x, np.float64), axis, keepdims), 0.0, name=name)


def reduce_all(input_tensor, axis=None, keepdims=False, name=None):
    """Logical and over ``axis`` (True for an empty axis)."""
    (x,) = _lift([input_tensor])
    return greater(reduce_min(cast(x, np.float64), axis, keepdims), 0.0, name=name)


def _running(x, axis, exclusive, reverse, what, dtype=None):
    """The tensor, its axis and the (n, n) mask of which entries each running total
    takes (``mask[i, j]``: entry i goes into total j), a tensor of ``dtype`` (x's by
    default); made when n is known if it is a size known at run time (an episode's
    rewards fed as ``[None]``)."""
    (x,) = _lift([x])
    if x.ndim == 0:
        raise ShapeError(f"{what}: needs a tensor of rank >= 1, got a scalar")
    axis = normalize_axis(axis, x.ndim, what)[0]
    return x, axis, _triangle(x.graph, x.shape[axis], exclusive, reverse, dtype or x.dtype)


def _triangle(graph, n, exclusive, reverse, dtype):
    if not isinstance(n, Dim):
        i, j = np.indices((n, n))
        keep = (i >= j if reverse else i <= j) & ((i != j) if exclusive else True)
        return literal(graph, keep.astype(dtype))
    # i <= j (i - j <= 0) forward, i >= j (j - i <= 0) reverse; an exclusive total
    # takes the complement of the other direction's inclusive one (i < j is not i >= j)
    forward = reverse == exclusive
    keep = band_mask(graph, n, n, 0 if forward else -1, -1 if forward else 0, np.bool_)
    return cast(logical_not(keep) if exclusive else keep, dtype)


def cumsum(x, axis=0, exclusive=False, reverse=False, name=None):
    """Running sums along ``axis``; the gradient is the reverse running sum (TF).

    A contraction with a constant triangular matrix (n**2 work along the axis).

    >>> with Graph().as_default():
    ...     cumsum(constant([1.0, 2.0, 3.0]), exclusive=True).numpy().tolist()
    [0.0, 1.0, 3.0]
    """
    x, axis, tri = _running(x, axis, exclusive, reverse, "cumsum",
                            x.dtype if x.dtype.kind != "b" else np.int64)
    letters = "abcdefghijklmnopqrstuvwxy"[:x.ndim]
    out = letters.replace(letters[axis], "z")
    return apply("einsum", [x, tri], subscripts=f"{letters},{letters[axis]}z->{out}",
                 name=name)


def cumprod(x, axis=0, exclusive=False, reverse=False, name=None):
    """Running products along ``axis`` (``tf.cumprod``), zeros included.

    Each entry is a ``reduce_prod`` over a triangle of the axis (n**2 work along it),
    so the gradient is the product rule's, exact where entries are 0.

    >>> with Graph().as_default():
    ...     cumprod(constant([2.0, 3.0, 4.0]), reverse=True).numpy().tolist()
    [24.0, 12.0, 4.0]
    """
    x, axis, mask = _running(x, axis, exclusive, reverse, "cumprod", np.bool_)
    order = [a for a in range(x.ndim) if a != axis] + [axis]
    last = apply("transpose", [x], perm=tuple(order)) if axis != x.ndim - 1 else x
    spread = apply("reshape", [last], shape=last.shape + (1,))
    picked = where(mask, spread, literal(x.graph, np.ones((), x.dtype)))
    out = apply("reduce_prod", [picked], axis=(x.ndim - 1,), keepdims=False)
    if axis != x.ndim - 1:
        out = apply("transpose", [out], perm=tuple(int(k) for k in np.argsort(order)))
    return named(out, name)


def is_nan(x, name=None):
    """True where x is NaN (x != x)."""
    (x,) = _lift([x])
    return apply("not_equal", [x, x], name=name)


def is_inf(x, name=None):
    """True where x is +inf or -inf."""
    (x,) = _lift([x])
    return equal(apply("abs", [x]), np.inf, name=name)


def is_finite(x, name=None):
    """True where x is neither NaN nor infinite."""
    (x,) = _lift([x])
    return apply("less", [apply("abs", [x]), np.inf], name=name)


def count_nonzero(input, axis=None, keepdims=False, dtype=np.int64, name=None):
    """The number of nonzero entries over ``axis`` (int64, as TF)."""
    (x,) = _lift([input])
    hits = cast(apply("not_equal", [x, literal(x.graph, np.zeros((), x.dtype))]), np.float64)
    return cast(reduce_sum(hits, axis, keepdims), dtype, name=name)


def reduce_variance(input_tensor, axis=None, keepdims=False, name=None):
    """The (biased) variance over ``axis``: mean((x - mean(x))**2)."""
    from .functions import reduce_mean
    (x,) = _lift([input_tensor])
    centred = sub(x, reduce_mean(x, axis, keepdims=True))
    return reduce_mean(square(centred), axis, keepdims, name=name)


def reduce_std(input_tensor, axis=None, keepdims=False, name=None):
    """sqrt of ``reduce_variance``."""
    return sqrt(reduce_variance(input_tensor, axis, keepdims), name=name)


# every public function checks its arity and argument kinds and records calls meeting a
# tensor of unknown rank (tracing.arguments)
publish(globals(), own=("clip_by_global_norm",))
