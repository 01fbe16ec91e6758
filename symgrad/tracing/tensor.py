"""Tensors, graphs and leaves: what a user's program is traced into.

A :class:`Tensor` is a graph node with Python operators.  Leaves are made by
:func:`constant`, :class:`Variable` and :func:`placeholder`; every other tensor
by applying a registry op.  The default graph is explicit and resettable:
``get_default_graph()``, ``reset_default_graph()``, ``with Graph().as_default():``.

>>> with Graph().as_default():
...     x = Variable(2.0, name="x")
...     (x * x + 1).shape
()
"""
from __future__ import annotations

import contextlib
from typing import Any, Iterator, Mapping, Sequence, Union, cast

import numpy as np
import numpy.typing as npt

from .. import display
from .. import graph as _graph
from ..errors import DtypeError, NotATensorError, ShapeError
from ..evaluate import evaluate
from ..ops import apply as _apply
from ..ops import check_value, normalize_index
from ..ops.deferred import applied_name, defer, deferrable, meets_unknown_rank

_deferring_apply = deferrable(name=applied_name)(_apply)


def apply(op: Any, inputs: list, name: str | None = None, **attrs: Any) -> Tensor:
    """``ops.apply``; a tensor of unknown rank among the inputs records the application
    (``ops.deferred``).  Tensors of known rank and numbers go straight to ``ops.apply``
    (every traced operator comes here)."""
    for v in inputs:
        if isinstance(v, _graph.Node):
            if v.shape is None:
                return _deferring_apply(op, inputs, name=name, **attrs)
        elif isinstance(v, (list, tuple, dict)):
            return _deferring_apply(op, inputs, name=name, **attrs)
    if attrs and meets_unknown_rank(attrs.values()):
        return _deferring_apply(op, inputs, name=name, **attrs)
    return _apply(op, inputs, name=name, **attrs)


class Tensor(_graph.Node):
    """A node of a traced graph, with Python and numpy operators."""

    # x[index] with tensors in the index: tracing.arrays.index_by_tensors (set there)
    _index_by_tensors: Any = None

    def __add__(self, other: TensorLike) -> Tensor:
        return apply("add", [self, other])

    def __radd__(self, other: TensorLike) -> Tensor:
        return apply("add", [other, self])

    def __sub__(self, other: TensorLike) -> Tensor:
        return apply("sub", [self, other])

    def __rsub__(self, other: TensorLike) -> Tensor:
        return apply("sub", [other, self])

    def __mul__(self, other: TensorLike) -> Tensor:
        return apply("mul", [self, other])

    def __rmul__(self, other: TensorLike) -> Tensor:
        return apply("mul", [other, self])

    def __truediv__(self, other: TensorLike) -> Tensor:
        return apply("div", [self, other])

    def __rtruediv__(self, other: TensorLike) -> Tensor:
        return apply("div", [other, self])

    def __floordiv__(self, other: TensorLike) -> Tensor:
        return apply("floordiv", [self, other])

    def __rfloordiv__(self, other: TensorLike) -> Tensor:
        return apply("floordiv", [other, self])

    def __mod__(self, other: TensorLike) -> Tensor:
        return apply("floormod", [self, other])

    def __rmod__(self, other: TensorLike) -> Tensor:
        return apply("floormod", [other, self])

    def __pow__(self, other: TensorLike) -> Tensor:
        return apply("pow", [self, other])

    def __rpow__(self, other: TensorLike) -> Tensor:
        return apply("pow", [other, self])

    def __matmul__(self, other: TensorLike) -> Tensor:
        return matmul(self, other)

    def __rmatmul__(self, other: TensorLike) -> Tensor:
        return matmul(other, self)

    def __neg__(self) -> Tensor:
        return apply("neg", [self])

    def __pos__(self) -> Tensor:
        return self

    def __abs__(self) -> Tensor:
        return apply("abs", [self])

    def __lt__(self, other: TensorLike) -> Tensor:
        return apply("less", [self, other])

    def __le__(self, other: TensorLike) -> Tensor:
        return apply("less_equal", [self, other])

    def __gt__(self, other: TensorLike) -> Tensor:
        return apply("greater", [self, other])

    def __ge__(self, other: TensorLike) -> Tensor:
        return apply("greater_equal", [self, other])

    def __and__(self, other: TensorLike) -> Tensor:
        return apply("logical_and", [self, other])

    def __or__(self, other: TensorLike) -> Tensor:
        return apply("logical_or", [self, other])

    def __invert__(self) -> Tensor:
        return apply("logical_not", [self])

    def __getitem__(self, index: Any) -> Tensor:
        shape = self.shape
        if shape is None:  # unknown rank: recorded until values arrive
            return defer(Tensor.__getitem__, (self, index), {}, name="index")
        # tensors as indices or slice bounds (TF's strided_slice)
        if type(index) is not int and _holds_node(index):
            return self._index_by_tensors(index)   # (tracing.arrays sets it)
        index = normalize_index(index, shape)
        if len(index) == 1 and type(index[0]) is int:   # x[k]: nothing can be deferred
            return _apply("index", [self], index=index)
        return apply("index", [self], index=index)

    def __iter__(self) -> Iterator[Tensor]:
        if not self.shape:
            raise TypeError("iterating over a 0-d tensor is not allowed")
        return (self[i] for i in range(self.shape[0]))

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def __bool__(self) -> bool:
        raise TypeError(
            f"using tensor {self.name!r} as a Python bool is not allowed: its value is only "
            "known at evaluation; use sg.where(cond, a, b) for a choice inside the graph")

    def __array__(self, dtype=None, copy=None):
        raise TypeError(
            f"tensor {self.name!r} is symbolic and cannot become a numpy array; "
            "evaluate it with t.numpy() or sg.evaluate(t, feed_dict)")

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return NUMPY_PROTOCOL["ufunc"](ufunc, method, inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        return NUMPY_PROTOCOL["function"](func, args, kwargs)

    @property
    def T(self) -> Tensor:
        if self.shape is None:
            return defer(lambda t: t.T, (self,), {}, name="transpose")
        return apply("transpose", [self], perm=tuple(reversed(range(self.ndim))))

    def numpy(self, feed_dict: FeedDict | None = None) -> Any:
        """The value by the reference evaluator (placeholders need ``feed_dict``)."""
        return evaluate(self, feed_dict)

    def eval(self, feed_dict: FeedDict | None = None, session: Any = None) -> Any:
        """TF1's ``Tensor.eval``: the same as :meth:`numpy`."""
        return evaluate(self, feed_dict)

    def get_shape(self) -> TensorShape:
        """The static shape as a :class:`TensorShape` (``as_list()`` gives ``[None, 3]``)."""
        return TensorShape(self.shape)

    def __str__(self) -> str:
        return display.show("str", self)  # the closed form, by symgrad.forms.printing

    def __repr__(self):
        return f"<Tensor {self.name!r} shape={self.shape} dtype={self.dtype.name}>"


    def _repr_latex_(self):
        return display.show("latex", self)

    def _repr_html_(self):
        return display.show("html", self)


# numpy's protocols (np.sin(x), np.sum(x)) are served by numpy_interop, which builds on
# the op functions that build on this module; it fills this table when imported.
NUMPY_PROTOCOL: dict = {}


class TensorShape(tuple):
    """A static shape as TF shows it: a tuple with ``None`` for unknown dimensions.

    >>> TensorShape((None, 3)).as_list(), TensorShape((2, 3)).num_elements()
    ([None, 3], 6)
    """

    def as_list(self):
        return [None if d is None or isinstance(d, _graph.Dim) else int(d) for d in self]

    @property
    def ndims(self):
        return len(self)

    rank = ndims

    def is_fully_defined(self):
        return _graph.is_static(self)

    def num_elements(self):
        return int(np.prod(self, dtype=np.int64)) if self.is_fully_defined() else None

    def __repr__(self):
        return f"TensorShape({self.as_list()})"


TensorLike = Union[Tensor, float, int, bool, np.ndarray, np.generic, Sequence[Any]]
"""What op functions and operators accept: a tensor, or a value made a literal constant."""
DTypeLike = Union[np.dtype, type, str, None]
"""A dtype: ``np.float64``, ``"float32"``, a numpy dtype, or None for the default."""
FeedDict = Mapping[Any, Any]
"""``{placeholder or variable: value}``."""


class Graph(_graph.Graph):
    """A traced graph whose nodes are :class:`Tensor` objects."""

    node_class = Tensor

    @contextlib.contextmanager
    def as_default(self) -> Iterator[Graph]:
        """Make this the graph new leaves go into, inside the ``with`` block."""
        _STACK.append(self)
        try:
            yield self
        finally:
            _STACK.pop()


_STACK: list = []
_GLOBAL = [Graph()]


def get_default_graph() -> Graph:
    """The graph new leaves go into: the innermost ``as_default`` or the global one."""
    return _STACK[-1] if _STACK else _GLOBAL[0]


def reset_default_graph() -> Graph:
    """Replace the global default graph by a new, empty one and return it."""
    if _STACK:
        raise RuntimeError("reset_default_graph() inside a `with graph.as_default()` block")
    _GLOBAL[0] = Graph()
    return _GLOBAL[0]


def as_dtype(dtype: DTypeLike, what: str = "dtype") -> np.dtype | None:
    """A numpy dtype from a numpy type, a string or a TF-style name."""
    if dtype is None:
        return None
    name = getattr(dtype, "name", None) if not isinstance(dtype, (str, type)) else None
    try:
        out = np.dtype(name or dtype)
    except TypeError:
        raise DtypeError(f"{what}={dtype!r} is not a dtype; use e.g. np.float64 or 'float32'") from None
    if out.kind not in "biuf":
        raise DtypeError(f"{what}={out} is not supported: symgrad tensors are float, int or bool")
    return out


def _leaf(op_name, value, name, dtype, shape, cls=None, **attrs):
    graph = get_default_graph()
    from ..ops import REGISTRY
    return graph.add_node(REGISTRY[op_name], (), attrs, shape, dtype, name=name, value=value,
                          cls=cls)


def _leaf_value(value, dtype, shape, what):
    if isinstance(value, _graph.Node):
        value = evaluate(value)
    arr = check_value(value, what)
    if arr.dtype.kind == "f" and dtype is None:
        arr = arr.astype(np.float64) if arr.dtype != np.float32 else arr
    if dtype is not None:
        arr = arr.astype(dtype)
    if shape is not None:
        shape = tuple(shape)
        if arr.size == 1 or arr.shape == ():
            arr = np.full(shape, arr.reshape(()), dtype=arr.dtype)
        elif int(np.prod(shape)) == arr.size:
            arr = arr.reshape(shape)
        else:
            raise ShapeError(f"{what}: a value of shape {arr.shape} does not fit shape {shape}")
    return np.array(arr)


def _holds_node(index):
    items = index if isinstance(index, tuple) else (index,)
    return any(isinstance(i, _graph.Node) or isinstance(i, slice) and any(
        isinstance(b, _graph.Node) for b in (i.start, i.stop, i.step)) for i in items)


def constant(value: TensorLike, dtype: DTypeLike = None, shape: Sequence[int] | None = None,
             name: str | None = None) -> Tensor:
    """A leaf with a fixed value; shown as a symbol (its name) in closed forms.

    Python ints give an integer tensor, floats float64.
    """
    arr = _leaf_value(value, as_dtype(dtype), shape, "constant(value)")
    return _leaf("const", arr, name or "Const", arr.dtype, arr.shape)


class Variable(Tensor):
    """A leaf whose value can be re-assigned (``assign``, ``assign_add``, ``assign_sub``)."""

    def __new__(cls, initial_value: TensorLike, name: str | None = None, dtype: DTypeLike = None,
                trainable: bool = True, **kwargs: Any) -> Variable:
        arr = _leaf_value(initial_value, as_dtype(dtype), None, "Variable(initial_value)")
        return _leaf("variable", arr, name or "Variable", arr.dtype, arr.shape, cls=cls,
                     trainable=trainable)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass  # the node is fully built in __new__

    def assign(self, value: npt.ArrayLike) -> Variable:
        """Set the value (same shape; cast to the variable's dtype); returns the variable."""
        arr = check_value(value, f"the value assigned to {self.name!r}")
        if arr.shape != self.shape:
            raise ShapeError(f"assign: {self.name!r} has shape {self.shape}, the value has "
                             f"shape {arr.shape}")
        self.value = np.array(arr, dtype=self.dtype)
        return self

    def assign_add(self, delta: npt.ArrayLike) -> Variable:
        return self.assign(self.value + np.asarray(delta))

    def assign_sub(self, delta: npt.ArrayLike) -> Variable:
        return self.assign(self.value - np.asarray(delta))

    @property
    def initial_value(self) -> Any:
        return self.value


def placeholder(dtype: DTypeLike = None, shape: int | Sequence[int | None] | None = None,
                name: str | None = None) -> Tensor:
    """A leaf without a value, fed at evaluation (``feed_dict={p: value}``).

    ``None`` in ``shape`` is a dimension known only when a value is fed (TF's
    ``[None, 3]``): one graph, and one compiled function, serve every size.
    ``shape=None`` means a scalar here (``compat.v1.placeholder`` reads it as any
    shape, as TF1 does).

    >>> with Graph().as_default():
    ...     X = placeholder(shape=(None, 3), name="X")
    ...     X.shape, X.get_shape().as_list()
    ((None, 3), [None, 3])
    """
    unspecified = shape is None
    if unspecified:
        shape = ()
    if isinstance(shape, int) or shape is None:
        shape = (shape,)
    shape = tuple(shape)
    for d in shape:
        if d is not None and (not isinstance(d, (int, np.integer)) or d < -1):
            raise ShapeError(f"placeholder shape {shape}: every dimension must be a "
                             "non-negative int, or None for a size known when values are fed")
    dt = as_dtype(dtype, "placeholder(dtype)") or np.dtype(np.float64)
    shape = tuple(None if d is None or d == -1 else int(d) for d in shape)
    attrs = {"unspecified_shape": True} if unspecified else {}
    return _leaf("placeholder", None, name or "Placeholder", dt, shape, **attrs)


@deferrable()
def matmul(a: TensorLike, b: TensorLike, transpose_a: bool = False, transpose_b: bool = False,
           adjoint_a: bool = False, adjoint_b: bool = False, a_is_sparse: bool = False,
           b_is_sparse: bool = False, output_type: DTypeLike = None,
           name: str | None = None) -> Tensor:
    """Matrix product with numpy's rules for vectors (1-D operands); ``transpose_a/b``
    (``adjoint_a/b``: the same for real tensors) swap the last two axes first."""
    from ..ops import as_node, common_graph
    graph = common_graph([a, b], "matmul's operands") or get_default_graph()
    # a number, list or array operand is typed like the tensor one, as the elementwise
    # ops' are (TF1: tf.matmul(x, np.random.randn(3, 2)) and tf.matmul([[80., 25.]], W)
    # are float32 for a float32 x or W)
    nodes = [v for v in (a, b) if isinstance(v, _graph.Node)]
    like = next((v for v in nodes if v.is_float), nodes[0] if nodes else None)
    a, b = cast(Tensor, as_node(a, graph, like)), cast(Tensor, as_node(b, graph, like))
    if transpose_a or adjoint_a:
        a = a.T if a.ndim == 2 else apply("transpose", [a], perm=_swap_perm(a.ndim))
    if transpose_b or adjoint_b:
        b = b.T if b.ndim == 2 else apply("transpose", [b], perm=_swap_perm(b.ndim))
    if a.ndim == 0 or b.ndim == 0:
        raise ShapeError("matmul: operands must be at least 1-d; use * for scalars")
    a2 = apply("reshape", [a], shape=(1,) + a.shape) if a.ndim == 1 else a
    b2 = apply("reshape", [b], shape=b.shape + (1,)) if b.ndim == 1 else b
    if a.ndim > 1 and b.ndim > 1:
        return apply("matmul", [a2, b2], name=name)
    out = apply("matmul", [a2, b2])
    shape = out.shape[:-2] + out.shape[-1:] if a.ndim == 1 else out.shape
    return apply("reshape", [out], shape=shape[:-1] if b.ndim == 1 else shape, name=name)


def _swap_perm(ndim):
    return tuple(range(ndim - 2)) + (ndim - 1, ndim - 2)


def as_tensor(value: TensorLike, what: str = "value") -> Tensor:
    """``value`` if it is a tensor, else a literal constant in the default graph."""
    if isinstance(value, _graph.Node):
        return value
    if hasattr(value, "as_graph_tensor"):   # a TF1 assign's result, an IndexedSlices
        return value.as_graph_tensor()
    from ..ops import literal
    return literal(get_default_graph(), value)


__all__ = ["Tensor", "Graph", "Variable", "constant", "placeholder", "matmul",
           "get_default_graph", "reset_default_graph", "as_dtype", "as_tensor",
           "NotATensorError"]
