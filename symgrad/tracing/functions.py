"""The public op functions: ``sg.sin``, ``sg.reduce_sum``, ``sg.concat`` and friends.

Thin wrappers that normalise arguments (axes, shapes, lists) and apply registry
ops; composites (reduce_mean, norm, stack, tensordot, ...) are built from
primitives here, so they need no derivative rules of their own.

>>> with Graph().as_default():
...     x = constant([[1.0, 2.0], [3.0, 4.0]], name="x")
...     reduce_sum(x, axis=1).numpy()
array([3., 7.])
"""
from __future__ import annotations

import numpy as np

from ..errors import DtypeError, ShapeError
from ..graph import Dim, is_static, shape_size
from ..ops import REGISTRY, common_graph, literal, normalize_axis
from ..ops.base import filled
from ..ops.deferred import deferrable
from .arguments import checked, tensor_signature
from . import tensor as _tensor
from .tensor import Graph, apply, as_dtype, as_tensor, constant, get_default_graph  # noqa: F401

__all__ = []


def _public(fn):
    """Export ``fn`` as an op function whose arity and argument kinds are checked."""
    __all__.append(fn.__name__)
    # a tensor of unknown rank among the arguments: the call is recorded (ops.deferred)
    return checked(deferrable()(fn))


def _lift(values):
    graph = common_graph(values) or get_default_graph()
    from ..ops import as_node
    nodes = [v for v in values if hasattr(v, "graph")]
    like = next((v for v in nodes if v.is_float), nodes[0] if nodes else None)
    return [as_node(v, graph, like) for v in values]


def _elementwise(op_name):
    """The public function of registry op ``op_name``: ``(x[, y, ...], name=None)``.

    (``apply`` here records calls meeting a tensor of unknown rank.)
    """
    nargs = REGISTRY[op_name].nargs
    params = ["x", "y", "z"][:nargs] if nargs <= 3 else [f"x{i}" for i in range(nargs)]

    def op(*args, name=None):
        return apply(op_name, _lift(list(args)), name=name)
    op.__name__ = op_name
    op.__doc__ = f"Elementwise ``{op_name}`` (see ``sg.ops.REGISTRY[{op_name!r}].doc``)."
    return checked(op, tensor_signature(params))


_UNARY = ["neg", "abs", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh",
          "exp", "expm1", "log", "log1p", "sqrt", "square", "reciprocal", "sign", "sigmoid",
          "softplus", "relu", "erf", "identity", "stop_gradient", "logical_not"]
_BINARY = ["add", "sub", "mul", "div", "pow", "maximum", "minimum", "less", "less_equal",
           "greater", "greater_equal", "equal", "not_equal", "logical_and", "logical_or"]
for _name in _UNARY + _BINARY:
    globals()[_name] = _elementwise(_name)
    __all__.append(_name)
_ALIASES = {"negative": "neg", "subtract": "sub", "multiply": "mul", "divide": "div",
            "truediv": "div", "realdiv": "div", "arcsin": "asin", "arccos": "acos",
            "arctan": "atan", "power": "pow"}
for _alias, _name in _ALIASES.items():
    globals()[_alias] = globals()[_name]
    __all__.append(_alias)


@_public
def where(condition, x, y, name=None):
    """``x`` where ``condition`` else ``y``; no NaN leaks from the untaken branch's gradient.

    >>> with Graph().as_default():
    ...     v = constant([-1.0, 2.0])
    ...     where(v > 0, v, 0.0).numpy().tolist()
    [0.0, 2.0]
    """
    c, a, b = _lift([condition, x, y])
    if c.dtype.kind != "b":
        raise DtypeError(f"where(condition): needs a boolean tensor, got {c.dtype}; "
                         "compare first, e.g. sg.where(x > 0, a, b)")
    return apply("where", [c, a, b], name=name)


@_public
def cast(x, dtype, name=None):
    """``x`` converted to ``dtype``; casting to an integer type cuts the gradient.

    >>> with Graph().as_default():
    ...     cast(constant(2.7), "int64").numpy()
    np.int64(2)
    """
    (x,) = _lift([x])
    return apply("cast", [x], dtype=as_dtype(dtype).name, name=name)


def _reduce(op_name, x, axis, keepdims, name):
    (x,) = _lift([x])
    axes = normalize_axis(axis, x.ndim, op_name)
    return apply(op_name, [x], axis=axes, keepdims=bool(keepdims), name=name)


@_public
def reduce_sum(input_tensor, axis=None, keepdims=False, name=None):
    """Sum over ``axis`` (all axes by default)."""
    return _reduce("reduce_sum", input_tensor, axis, keepdims, name)


@_public
def reduce_prod(input_tensor, axis=None, keepdims=False, name=None):
    """Product over ``axis``; its gradient is exact with zeros."""
    return _reduce("reduce_prod", input_tensor, axis, keepdims, name)


@_public
def reduce_max(input_tensor, axis=None, keepdims=False, name=None):
    """Maximum over ``axis``; ties share the gradient (TF)."""
    return _reduce("reduce_max", input_tensor, axis, keepdims, name)


@_public
def reduce_min(input_tensor, axis=None, keepdims=False, name=None):
    """Minimum over ``axis``; ties share the gradient (TF)."""
    return _reduce("reduce_min", input_tensor, axis, keepdims, name)


@_public
def reduce_logsumexp(input_tensor, axis=None, keepdims=False, name=None):
    """log(sum(exp(x))) over ``axis``, computed stably."""
    return _reduce("logsumexp", input_tensor, axis, keepdims, name)


logsumexp = reduce_logsumexp
__all__.append("logsumexp")


@_public
def reduce_mean(input_tensor, axis=None, keepdims=False, name=None):
    """Mean over ``axis`` (a float result, also for integer input)."""
    (x,) = _lift([input_tensor])
    total = reduce_sum(x, axis, keepdims)
    axes = normalize_axis(axis, x.ndim)
    dims = [x.shape[a] for a in axes]
    if not is_static(dims):  # the count is read when values arrive
        count = apply("dim_size", [x], axis=axes)
        count = count if total.dtype == count.dtype or not total.is_float else cast(count, total.dtype)
    else:
        count = literal(x.graph, float(np.prod(dims, dtype=np.int64)),
                        total.dtype if total.is_float else None)
    return apply("div", [total, count], name=name)


@_public
def softmax(logits, axis=-1, name=None):
    """exp(x) / sum(exp(x)) along one axis."""
    (x,) = _lift([logits])
    return apply("softmax", [x], axis=normalize_axis(axis, x.ndim, "softmax"), name=name)


@_public
def norm(tensor, ord="euclidean", axis=None, keepdims=False, name=None):
    """Vector norm over ``axis``: ``'euclidean'``/2 (default), 1 or ``np.inf``.

    >>> with Graph().as_default():
    ...     float(norm(constant([3.0, 4.0])).numpy())
    5.0
    """
    (x,) = _lift([tensor])
    if ord in ("euclidean", "fro", 2, None):
        return sqrt(reduce_sum(square(x), axis, keepdims), name=name)
    if ord == 1:
        return reduce_sum(abs(x), axis, keepdims)
    if ord in (np.inf, "inf"):
        return reduce_max(abs(x), axis, keepdims)
    raise ValueError(f"norm(ord={ord!r}): supported orders are 'euclidean', 2, 1 and np.inf")


@_public
def transpose(a, perm=None, name=None):
    """Axes permuted by ``perm`` (reversed by default)."""
    (x,) = _lift([a])
    perm = tuple(reversed(range(x.ndim))) if perm is None else tuple(int(p) % max(x.ndim, 1)
                                                                     for p in perm)
    return apply("transpose", [x], perm=perm, name=name)


@_public
def reshape(tensor, shape, name=None):
    """The same elements in ``shape`` (one entry may be -1)."""
    (x,) = _lift([tensor])
    shape = _dims(shape)
    if shape.count(-1) > 1:
        raise ShapeError(f"reshape: at most one -1 in shape {shape}")
    if -1 in shape:
        known = shape_size([d for d in shape if d != -1])
        if known == 0 or not isinstance(x.size, Dim) and not isinstance(known, Dim) \
                and x.size % known:
            raise ShapeError(f"reshape: cannot reshape size {x.size} into {shape}")
        shape = tuple(x.size // known if d == -1 else d for d in shape)
    return apply("reshape", [x], shape=shape, name=name)


def _dims(shape):
    """A shape argument as a tuple of ints and Dims (a Dim is kept: ``x.shape[0]``)."""
    if isinstance(shape, Dim) or np.ndim(shape) == 0:
        shape = (shape,)
    return tuple(d if isinstance(d, Dim) else int(d) for d in shape)


@_public
def expand_dims(input, axis, name=None):
    """A new axis of length 1 at ``axis``."""
    (x,) = _lift([input])
    axis = int(axis) % (x.ndim + 1)
    return reshape(x, x.shape[:axis] + (1,) + x.shape[axis:], name=name)


@_public
def squeeze(input, axis=None, name=None):
    """Axes of length 1 removed (all of them, or those in ``axis``)."""
    (x,) = _lift([input])
    axes = [i for i, d in enumerate(x.shape) if d == 1] if axis is None else \
        list(normalize_axis(axis, x.ndim, "squeeze"))
    if any(x.shape[a] != 1 for a in axes):
        raise ShapeError(f"squeeze: axes {axes} of shape {x.shape} are not all of length 1")
    return reshape(x, tuple(d for i, d in enumerate(x.shape) if i not in axes), name=name)


@_public
def broadcast_to(input, shape, name=None):
    """``input`` repeated to ``shape`` (numpy broadcasting rules)."""
    (x,) = _lift([input])
    return apply("broadcast_to", [x], shape=_dims(shape), name=name)


@_public
def concat(values, axis, name=None):
    """Tensors joined along ``axis``."""
    xs = _lift(list(values))
    if not xs:
        raise ValueError("concat(values): needs at least one tensor")
    axis = normalize_axis(axis, xs[0].ndim, "concat")[0]
    return apply("concat", xs, axis=axis, name=name)


@_public
def stack(values, axis=0, name=None):
    """Tensors of one shape stacked along a new axis.

    >>> with Graph().as_default():
    ...     stack([constant(1.0), constant(2.0)]).shape
    (2,)
    """
    xs = _lift(list(values))
    if not xs:
        raise ValueError("stack(values): needs at least one tensor")
    ndim = xs[0].ndim + 1
    axis = int(axis) % ndim
    return concat([expand_dims(x, axis) for x in xs], axis, name=name)


@_public
def einsum(equation, *inputs, name=None):
    """Einstein summation, e.g. ``einsum('ij,jk->ik', a, b)``.

    >>> with Graph().as_default():
    ...     float(einsum("i,i->", constant([1.0, 2.0]), constant([3.0, 4.0])).numpy())
    11.0
    """
    xs = _lift(list(inputs))
    return apply("einsum", xs, subscripts=equation.replace(" ", ""), name=name)


@_public
def tensordot(a, b, axes=2, name=None):
    """numpy's tensordot (sum over the last/first ``axes`` axes, or explicit lists)."""
    a, b = _lift([a, b])
    if np.ndim(axes) == 0:
        axes = (list(range(a.ndim - int(axes), a.ndim)), list(range(int(axes))))
    ax_a, ax_b = ([int(i) % a.ndim for i in np.atleast_1d(s)] for s in axes)
    letters = iter("abcdefghijklmnopqrstuvwxyz")
    sa = [next(letters) for _ in range(a.ndim)]
    sb = [next(letters) for _ in range(b.ndim)]
    for i, j in zip(ax_a, ax_b):
        sb[j] = sa[i]
    out = [c for i, c in enumerate(sa) if i not in ax_a] + \
          [c for j, c in enumerate(sb) if j not in ax_b]
    return einsum(f"{''.join(sa)},{''.join(sb)}->{''.join(out)}", a, b, name=name)


@_public
def trace(x, name=None):
    """Sum of the diagonal of a matrix (of the last two axes)."""
    (x,) = _lift([x])
    n = x.shape[-1]
    if x.ndim < 2 or x.shape[-2] != n:
        raise ShapeError(f"trace: needs square matrices in the last two axes, got {x.shape}")
    eye = literal(x.graph, np.eye(n, dtype=x.dtype if x.is_float else np.float64))
    return reduce_sum(x * eye, axis=(-2, -1), name=name)


@_public
def zeros(shape, dtype=np.float64, name=None):
    """A constant of zeros (a named leaf)."""
    return constant(np.zeros(shape, as_dtype(dtype)), name=name or "zeros")


@_public
def ones(shape, dtype=np.float64, name=None):
    """A constant of ones (a named leaf)."""
    return constant(np.ones(shape, as_dtype(dtype)), name=name or "ones")


@_public
def fill(dims, value, name=None):
    """A constant of ``dims`` filled with ``value``."""
    return constant(np.full(dims, value), name=name or "Fill")


@_public
def zeros_like(tensor, dtype=None, name=None):
    """Literal zeros of the tensor's shape (appear as 0 in closed forms)."""
    (x,) = _lift([tensor])
    return filled(x.graph, 0, x.shape, as_dtype(dtype) or x.dtype)


@_public
def ones_like(tensor, dtype=None, name=None):
    """Literal ones of the tensor's shape."""
    (x,) = _lift([tensor])
    return filled(x.graph, 1, x.shape, as_dtype(dtype) or x.dtype)


@_public
def convert_to_tensor(value, dtype=None, name=None):
    """``value`` as a tensor (tensors pass through unchanged)."""
    t = as_tensor(value)
    return t if dtype is None or t.dtype == as_dtype(dtype) else cast(t, dtype)


matmul = _public(_tensor.matmul)
