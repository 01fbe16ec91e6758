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

import functools
from typing import Any, Protocol, Sequence, Union

import numpy as np

from ..errors import DtypeError, ShapeError
from ..graph import Dim, Node, is_static, shape_size
from ..ops import REGISTRY, as_node, common_graph, literal, normalize_axis
from ..ops.base import filled
from ..ops.deferred import deferrable
from ..ops.sizes import sizes_of
from ..ops.valued import size_from_values
from .arguments import checked, tensor_signature
from . import tensor as _tensor
from .tensor import Graph, apply, as_dtype, as_tensor, constant, get_default_graph  # noqa: F401
from .tensor import DTypeLike, Tensor, TensorLike

_EXPORTS: list[str] = []   # the public names, in order (``__all__`` at the end)
Axis = Union[int, Sequence[int], None]
"""An axis or axes to reduce over (None: all)."""


class Unary(Protocol):
    """An elementwise op function of one tensor: ``sg.sin(x, name=None)``."""

    def __call__(self, x: TensorLike, name: str | None = None) -> Tensor: ...


class Binary(Protocol):
    """An elementwise op function of two tensors: ``sg.add(x, y, name=None)``."""

    def __call__(self, x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor: ...


def _public(fn):
    """Export ``fn`` as an op function whose arity and argument kinds are checked."""
    _EXPORTS.append(fn.__name__)
    # a tensor of unknown rank among the arguments: the call is recorded (ops.deferred)
    return checked(deferrable()(fn))


def _public_applied(fn):
    """Export ``fn``, one ``apply`` of a registry op: ``apply`` records a call meeting a
    tensor of unknown rank with the op's dtype rule (a cast's target dtype)."""
    _EXPORTS.append(fn.__name__)
    return checked(fn)


def _lift(values: list[Any]) -> list[Tensor]:
    for v in values:
        if not isinstance(v, Node):
            break
    else:   # tensors only: nothing to lift
        return values
    # a list holding tensors is packed, as TF's convert_to_tensor packs it
    # (tf.reduce_mean([loss_t for each step]))
    values = [stack(v) if isinstance(v, (list, tuple)) and _holds_tensor(v) else
              v.as_graph_tensor() if hasattr(v, "as_graph_tensor") else v   # TF1 assigns
              for v in values]
    graph = common_graph(values) or get_default_graph()
    nodes = [v for v in values if hasattr(v, "graph")]
    like = next((v for v in nodes if v.is_float), nodes[0] if nodes else None)
    return [as_node(v, graph, like) for v in values]


def _holds_tensor(items):
    return any(isinstance(v, Node) or hasattr(v, "as_graph_tensor") or
               isinstance(v, (list, tuple)) and _holds_tensor(v) for v in items)


def _elementwise(op_name):
    """The public function of registry op ``op_name``: ``(x[, y, ...], name=None)``.

    (``apply`` here records calls meeting a tensor of unknown rank.)
    """
    nargs = REGISTRY[op_name].nargs
    params = ["x", "y", "z"][:nargs] if nargs <= 3 else [f"x{i}" for i in range(nargs)]

    def op(*args, name=None):
        if name is None and len(args) == nargs + 1 and isinstance(args[-1], str):
            *args, name = args   # TF's signature (x, name) with the name given by position
        return apply(op_name, _lift(list(args)), name=name)
    op.__name__ = op.__qualname__ = op_name
    op.__doc__ = f"Elementwise ``{op_name}`` (see ``sg.ops.REGISTRY[{op_name!r}].doc``)."
    _EXPORTS.append(op_name)
    return checked(op, tensor_signature(params))


# One public function per elementwise registry op, declared one by one so that type
# checkers and editors see each name and its signature.
neg: Unary = _elementwise("neg")
abs: Unary = _elementwise("abs")  # noqa: A001
sin: Unary = _elementwise("sin")
cos: Unary = _elementwise("cos")
tan: Unary = _elementwise("tan")
asin: Unary = _elementwise("asin")
acos: Unary = _elementwise("acos")
atan: Unary = _elementwise("atan")
sinh: Unary = _elementwise("sinh")
cosh: Unary = _elementwise("cosh")
tanh: Unary = _elementwise("tanh")
exp: Unary = _elementwise("exp")
expm1: Unary = _elementwise("expm1")
log: Unary = _elementwise("log")
log1p: Unary = _elementwise("log1p")
sqrt: Unary = _elementwise("sqrt")
square: Unary = _elementwise("square")
reciprocal: Unary = _elementwise("reciprocal")
sign: Unary = _elementwise("sign")
sigmoid: Unary = _elementwise("sigmoid")
softplus: Unary = _elementwise("softplus")
relu: Unary = _elementwise("relu")
erf: Unary = _elementwise("erf")
erfc: Unary = _elementwise("erfc")
lgamma: Unary = _elementwise("lgamma")
digamma: Unary = _elementwise("digamma")
identity: Unary = _elementwise("identity")
stop_gradient: Unary = _elementwise("stop_gradient")
logical_not: Unary = _elementwise("logical_not")
add: Binary = _elementwise("add")
sub: Binary = _elementwise("sub")
mul: Binary = _elementwise("mul")
div: Binary = _elementwise("div")
pow: Binary = _elementwise("pow")  # noqa: A001
maximum: Binary = _elementwise("maximum")
minimum: Binary = _elementwise("minimum")
less: Binary = _elementwise("less")
less_equal: Binary = _elementwise("less_equal")
greater: Binary = _elementwise("greater")
greater_equal: Binary = _elementwise("greater_equal")
equal: Binary = _elementwise("equal")
not_equal: Binary = _elementwise("not_equal")
logical_and: Binary = _elementwise("logical_and")
logical_or: Binary = _elementwise("logical_or")
negative, subtract, multiply, divide, truediv, realdiv = neg, sub, mul, div, div, div
arcsin, arccos, arctan, power = asin, acos, atan, pow
_EXPORTS += ["negative", "subtract", "multiply", "divide", "truediv", "realdiv", "arcsin",
             "arccos", "arctan", "power"]


@_public
def where(condition: TensorLike, x: TensorLike, y: TensorLike,
          name: str | None = None) -> Tensor:
    """``x`` where ``condition`` else ``y``; no NaN leaks from the untaken branch's gradient.

    >>> with Graph().as_default():
    ...     v = constant([-1.0, 2.0])
    ...     where(v > 0, v, 0.0).numpy().tolist()
    [0.0, 2.0]
    """
    # (the condition is lifted alone: a list of bools next to float32 x stays bool)
    (c,), (a, b) = _lift([condition]), _lift([x, y])
    if c.dtype.kind != "b":
        raise DtypeError(f"where(condition): needs a boolean tensor, got {c.dtype}; "
                         "compare first, e.g. sg.where(x > 0, a, b)")
    return apply("where", [c, a, b], name=name)


@_public_applied
def cast(x: TensorLike, dtype: DTypeLike, name: str | None = None) -> Tensor:
    """``x`` converted to ``dtype``; casting to an integer type cuts the gradient.

    >>> with Graph().as_default():
    ...     cast(constant(2.7), "int64").numpy()
    np.int64(2)
    """
    (x,) = _lift([x])
    dt = as_dtype(dtype, "cast(dtype)")
    if dt is None:
        raise DtypeError("cast(dtype): give the dtype to cast to, e.g. np.float32")
    return apply("cast", [x], dtype=dt.name, name=name)


def _reduce(op_name, x, axis, keepdims, name):
    (x,) = _lift([x])
    axes = normalize_axis(axis, x.ndim, op_name)
    return apply(op_name, [x], axis=axes, keepdims=bool(keepdims), name=name)


@_public
def reduce_sum(input_tensor: TensorLike, axis: Axis = None, keepdims: bool = False,
               name: str | None = None) -> Tensor:
    """Sum over ``axis`` (all axes by default)."""
    return _reduce("reduce_sum", input_tensor, axis, keepdims, name)


@_public
def reduce_prod(input_tensor: TensorLike, axis: Axis = None, keepdims: bool = False,
                name: str | None = None) -> Tensor:
    """Product over ``axis``; its gradient is exact with zeros."""
    return _reduce("reduce_prod", input_tensor, axis, keepdims, name)


@_public
def reduce_max(input_tensor: TensorLike, axis: Axis = None, keepdims: bool = False,
               name: str | None = None) -> Tensor:
    """Maximum over ``axis``; ties share the gradient (TF)."""
    return _reduce("reduce_max", input_tensor, axis, keepdims, name)


@_public
def reduce_min(input_tensor: TensorLike, axis: Axis = None, keepdims: bool = False,
               name: str | None = None) -> Tensor:
    """Minimum over ``axis``; ties share the gradient (TF)."""
    return _reduce("reduce_min", input_tensor, axis, keepdims, name)


@_public
def reduce_logsumexp(input_tensor: TensorLike, axis: Axis = None, keepdims: bool = False,
                     name: str | None = None) -> Tensor:
    """log(sum(exp(x))) over ``axis``, computed stably."""
    return _reduce("logsumexp", input_tensor, axis, keepdims, name)


logsumexp = reduce_logsumexp
_EXPORTS.append("logsumexp")


@_public
def reduce_mean(input_tensor: TensorLike, axis: Axis = None, keepdims: bool = False,
                name: str | None = None) -> Tensor:
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
def softmax(logits: TensorLike, axis: int = -1, name: str | None = None) -> Tensor:
    """exp(x) / sum(exp(x)) along one axis."""
    (x,) = _lift([logits])
    return apply("softmax", [x], axis=normalize_axis(axis, x.ndim, "softmax"), name=name)


@_public
def norm(tensor: TensorLike, ord: str | float = "euclidean", axis: Axis = None,
         keepdims: bool = False, name: str | None = None) -> Tensor:
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
def transpose(a: TensorLike, perm: Sequence[int] | None = None,
              name: str | None = None) -> Tensor:
    """Axes permuted by ``perm`` (reversed by default)."""
    (x,) = _lift([a])
    perm = tuple(reversed(range(x.ndim))) if perm is None else tuple(int(p) % max(x.ndim, 1)
                                                                     for p in perm)
    return apply("transpose", [x], perm=perm, name=name)


@_public
def reshape(tensor: TensorLike, shape: int | Sequence[int], name: str | None = None) -> Tensor:
    """The same elements in ``shape`` (one entry may be -1)."""
    (x,) = _lift([tensor])
    dims: tuple[Any, ...] = _dims(shape)
    if dims.count(-1) > 1:
        raise ShapeError(f"reshape: at most one -1 in shape {dims}")
    if -1 in dims:
        known = shape_size([d for d in dims if d != -1])
        if known == 0 or not isinstance(x.size, Dim) and not isinstance(known, Dim) \
                and x.size % known:
            raise ShapeError(f"reshape: cannot reshape size {x.size} into {dims}")
        dims = tuple(x.size // known if d == -1 else d for d in dims)
    return apply("reshape", [x], shape=dims, name=name)


def _dims(shape, what="reshape(shape)"):
    """A shape argument as a tuple of ints and Dims (a Dim is kept: ``x.shape[0]``, and
    so is a size read at run time: ``tf.shape(x)[0]``, see ``ops.sizes``)."""
    found = sizes_of(shape)
    if found is not None:
        return found
    # entries computed from values: each a size bound when its count runs (ops.valued)
    if isinstance(shape, Node) and shape.ndim == 0:
        entries = [shape]
    elif isinstance(shape, Node):
        if shape.ndim != 1 or not isinstance(shape.shape[0], int):
            raise ShapeError(f"{what} must be a vector of known length, got {shape.name!r} "
                             f"of shape {shape.shape}")
        entries = [apply("index", [shape], index=(k,)) for k in range(shape.shape[0])]
    elif isinstance(shape, (list, tuple)):
        entries = list(shape)
    else:
        entries = [shape]
    return tuple(_one_size(e, what) for e in entries)


def _one_size(entry, what):
    known = sizes_of([entry])
    if known is not None:
        return known[0]
    if not isinstance(entry, Node):
        raise ShapeError(f"{what}: {entry!r} is not a size")
    return size_from_values(cast(entry, np.int64) if entry.dtype.kind in "iu" else entry)


@_public
def expand_dims(input: TensorLike, axis: int, name: str | None = None) -> Tensor:
    """A new axis of length 1 at ``axis`` (an int, or a list of one int as TF takes it:
    BERT's ``tf.expand_dims(ids, axis=[-1])``), in ``[-rank - 1, rank]``."""
    (x,) = _lift([input])
    axes = np.reshape(axis, -1)
    if axes.size != 1 or not -x.ndim - 1 <= int(axes[0]) <= x.ndim:
        raise ShapeError(f"expand_dims: axis {axis} is not one value in [{-x.ndim - 1}, "
                         f"{x.ndim}] (for a tensor of rank {x.ndim})")
    axis = int(axes[0]) % (x.ndim + 1)
    return reshape(x, x.shape[:axis] + (1,) + x.shape[axis:], name=name)


@_public
def squeeze(input: TensorLike, axis: Axis = None, name: str | None = None) -> Tensor:
    """Axes of length 1 removed (all of them, or those in ``axis``)."""
    (x,) = _lift([input])
    axes = [i for i, d in enumerate(x.shape) if d == 1] if axis is None else \
        list(normalize_axis(axis, x.ndim, "squeeze"))
    if any(x.shape[a] != 1 and not isinstance(x.shape[a], Dim) for a in axes):
        raise ShapeError(f"squeeze: axes {axes} of shape {x.shape} are not all of length 1")
    return reshape(x, tuple(d for i, d in enumerate(x.shape) if i not in axes), name=name)


@_public
def broadcast_to(input: TensorLike, shape: Sequence[int], name: str | None = None) -> Tensor:
    """``input`` repeated to ``shape`` (numpy broadcasting rules)."""
    (x,) = _lift([input])
    return apply("broadcast_to", [x], shape=_dims(shape), name=name)


@_public
def concat(values: Sequence[TensorLike], axis: int, name: str | None = None) -> Tensor:
    """Tensors joined along ``axis``; a single tensor (not a list) is itself, as in TF
    (Udacity's char-RNN: ``tf.concat(outputs, axis=1)`` of dynamic_rnn's one tensor)."""
    xs = _lift(list(values) if isinstance(values, (list, tuple)) else [values])
    if not xs:
        raise ValueError("concat(values): needs at least one tensor")
    axis = normalize_axis(axis, xs[0].ndim, "concat")[0]
    return apply("concat", xs, axis=axis, name=name)


@_public
def stack(values: Sequence[TensorLike], axis: int = 0, name: str | None = None) -> Tensor:
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
def einsum(equation: str, *inputs: TensorLike, name: str | None = None) -> Tensor:
    """Einstein summation, e.g. ``einsum('ij,jk->ik', a, b)``.

    >>> with Graph().as_default():
    ...     float(einsum("i,i->", constant([1.0, 2.0]), constant([3.0, 4.0])).numpy())
    11.0
    """
    xs = _lift(list(inputs))
    return apply("einsum", xs, subscripts=equation.replace(" ", ""), name=name)


@_public
def tensordot(a: TensorLike, b: TensorLike, axes: int | Sequence[Any] = 2,
              name: str | None = None) -> Tensor:
    """numpy's tensordot (sum over the last/first ``axes`` axes, or explicit lists)."""
    a, b = _lift([a, b])
    pairs: Any = axes
    if np.ndim(axes) == 0:
        n = int(np.asarray(axes))
        pairs = (list(range(a.ndim - n, a.ndim)), list(range(n)))
    ax_a, ax_b = ([int(i) % a.ndim for i in np.atleast_1d(s)] for s in pairs)
    letters = iter("abcdefghijklmnopqrstuvwxyz")
    sa = [next(letters) for _ in range(a.ndim)]
    sb = [next(letters) for _ in range(b.ndim)]
    for i, j in zip(ax_a, ax_b):
        sb[j] = sa[i]
    out = [c for i, c in enumerate(sa) if i not in ax_a] + \
          [c for j, c in enumerate(sb) if j not in ax_b]
    return einsum(f"{''.join(sa)},{''.join(sb)}->{''.join(out)}", a, b, name=name)


@_public
def trace(x: TensorLike, name: str | None = None) -> Tensor:
    """Sum of the diagonal of a matrix (of the last two axes)."""
    (x,) = _lift([x])
    n = x.shape[-1]
    if x.ndim < 2 or x.shape[-2] != n:
        raise ShapeError(f"trace: needs square matrices in the last two axes, got {x.shape}")
    eye = literal(x.graph, np.eye(n, dtype=x.dtype if x.is_float else np.float64))
    return reduce_sum(x * eye, axis=(-2, -1), name=name)


def _full(shape, value, dtype, name, default_name, what):
    """A named constant of ``shape`` holding ``value``; over a size read at run time,
    the value broadcast to it (``ops.base.filled``)."""
    dims = _dims(shape, what)
    if not is_static(dims):
        return identity(filled(get_default_graph(), value, dims, dtype), name=name)
    return constant(np.full(dims, value, dtype), dtype=dtype, name=name or default_name)


@_public
def zeros(shape: int | Sequence[int], dtype: DTypeLike = np.float64,
          name: str | None = None) -> Tensor:
    """A constant of zeros (a named leaf); of a size read at run time, 0 broadcast."""
    return _full(shape, 0, as_dtype(dtype), name, "zeros", "zeros(shape)")


@_public
def ones(shape: int | Sequence[int], dtype: DTypeLike = np.float64,
         name: str | None = None) -> Tensor:
    """A constant of ones (a named leaf); of a size read at run time, 1 broadcast."""
    return _full(shape, 1, as_dtype(dtype), name, "ones", "ones(shape)")


@_public
def fill(dims: int | Sequence[int], value: float | int | bool,
         name: str | None = None) -> Tensor:
    """A constant of ``dims`` filled with ``value`` (broadcast, for a size read at run
    time); a scalar tensor ``value`` is broadcast to ``dims``."""
    if isinstance(value, Node):
        if value.shape != ():
            raise ShapeError(f"fill(value): needs a scalar, got shape {value.shape}")
        return apply("broadcast_to", [value], shape=_dims(dims, "fill(dims)"), name=name)
    return _full(dims, value, np.asarray(value).dtype, name, "Fill", "fill(dims)")


@_public
def zeros_like(tensor: TensorLike, dtype: DTypeLike = None, name: str | None = None) -> Tensor:
    """Literal zeros of the tensor's shape (appear as 0 in closed forms)."""
    (x,) = _lift([tensor])
    return _filled_like(x, 0, dtype, name)


@_public
def ones_like(tensor: TensorLike, dtype: DTypeLike = None, name: str | None = None) -> Tensor:
    """Literal ones of the tensor's shape."""
    (x,) = _lift([tensor])
    return _filled_like(x, 1, dtype, name)


def _filled_like(x, value, dtype, name):
    out = filled(x.graph, value, x.shape, as_dtype(dtype) or x.dtype)
    return x.graph.rename(out, name) if name else out   # (a session fetches it by name)


@_public
def convert_to_tensor(value: TensorLike, dtype: DTypeLike = None,
                      name: str | None = None) -> Tensor:
    """``value`` as a tensor (tensors pass through unchanged; a list holding tensors is
    stacked, as TF packs it)."""
    (t,) = _lift([value]) if isinstance(value, (list, tuple)) else (as_tensor(value),)
    return t if dtype is None or t.dtype == as_dtype(dtype) else cast(t, dtype)


@functools.wraps(_tensor.matmul)
def _matmul(a, b, *args, **kwargs):
    # a list holding tensors is packed first, as TF's convert_to_tensor packs it
    # (xDeepFM's CIN: tf.matmul(tf.split(x0, k, 2), tf.split(xl, k, 2), transpose_b=True))
    a, b = (stack(v) if isinstance(v, (list, tuple)) and _holds_tensor(v) else v
            for v in (a, b))
    return _tensor.matmul(a, b, *args, **kwargs)


matmul = _public(_matmul)

# Spelled out so that type checkers see the names (tests/test_types.py checks it against
# the names registered above).
__all__ = ["neg", "abs", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh",
           "tanh", "exp", "expm1", "log", "log1p", "sqrt", "square", "reciprocal", "sign",
           "sigmoid", "softplus", "relu", "erf", "erfc", "lgamma", "digamma", "identity", "stop_gradient", "logical_not",
           "add", "sub", "mul", "div", "pow", "maximum", "minimum", "less", "less_equal",
           "greater", "greater_equal", "equal", "not_equal", "logical_and", "logical_or",
           "negative", "subtract", "multiply", "divide", "truediv", "realdiv", "arcsin",
           "arccos", "arctan", "power", "where", "cast", "reduce_sum", "reduce_prod",
           "reduce_max", "reduce_min", "reduce_logsumexp", "logsumexp", "reduce_mean",
           "softmax", "norm", "transpose", "reshape", "expand_dims", "squeeze",
           "broadcast_to", "concat", "stack", "einsum", "tensordot", "trace", "zeros",
           "ones", "fill", "zeros_like", "ones_like", "convert_to_tensor", "matmul"]
