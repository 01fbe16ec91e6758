"""TF1's checks inside the graph: ``tf.Assert``, ``tf.assert_equal`` and the other
``tf.assert_*`` (also under ``tf.debugging``), ``tf.check_numerics``.

An assertion is an operation: running it (fetched, or through
``tf.control_dependencies``) raises ``tf.errors.InvalidArgumentError`` when its
condition fails, with TF's message (``assertion failed: [message] [Condition x < y
did not hold element-wise:] [x (x:0) = ] [0.5 1 3...] ...``); otherwise it does
nothing.  As in TF, what is decided when the graph is built is checked then: the
comparisons of constants raise InvalidArgumentError at once, ``assert_rank`` of a
known shape a ValueError, ``assert_type`` a TypeError, and passing ones give a no-op.

``check_numerics(t, message)`` is ``t`` (its gradient passes through, itself checked)
and raises InvalidArgumentError (``message : Tensor had NaN values``) when a session
computes a NaN or Inf in it.

Sits in ``compat``; imports the tracing layer and ``compat.state``/``printing``/``runtime``
(``NAMESPACE`` is ``tf.debugging``).

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     x = tf.placeholder(tf.float32, [None])
...     with tf.control_dependencies([tf.assert_positive(x, message="x > 0")]):
...         y = tf.sqrt(x)
...     with tf.Session() as sess:
...         try:
...             sess.run(y, {x: [1.0, -1.0]})
...         except tf.errors.InvalidArgumentError as e:
...             print(str(e)[:36])
assertion failed: [x > 0] [Condition
"""
from __future__ import annotations

import numpy as np

from .. import tracing as _t
from ..graph import Node
from ..ops import apply
from ..tracing.arrays import known_now, static_value
from . import errors
from .printing import summary
from .runtime import namespace
from .state import Operation, state_of
from .tensor import as_tf1, constant
from .variables import tf_dtype


def _tensor(value, name, like=None):
    """``value`` as a tensor: tensors (and assigns) as they are, Python values as
    constants of ``like``'s dtype (TF converts them to the other operand's)."""
    if isinstance(value, Node):
        return value
    if hasattr(value, "as_graph_tensor"):
        return value.as_graph_tensor()
    return constant(value, dtype=like.dtype if like is not None else tf_dtype(value, None),
                    name=name)


def _operands(x, y):
    like = next((v for v in (x, y) if isinstance(v, Node)), None)
    return _tensor(x, "x", like), _tensor(y, "y", like)


def _prefix(message):
    return f"{message}.  " if message else ""


def _done(scope, what="NoOp"):
    """The operation a check decided when the graph was built gives: it does nothing."""
    return _typed(Operation(f"{scope}/{what}", graph=_t.get_default_graph()), "NoOp")


def _typed(op, type_name):
    op.type = type_name   # TF's op type (op.type)
    return op


def _assertion(scope, condition, data, summarize):
    """The operation that raises TF's error when the scalar ``condition`` is False at
    run time, with ``data`` (strings and tensors) in the message."""
    tensors, parts = [condition], []
    for d in data:
        if isinstance(d, str):
            parts.append(d)
        else:
            tensors.append(_tensor(d, "data"))
            parts.append(len(tensors) - 1)
    limit = 3 if summarize is None else int(summarize)

    def effect(values, session):
        holds = np.asarray(values[0])
        if holds.shape != ():
            raise errors.InvalidArgumentError(
                None, None, f"In[0] should be a scalar: {list(holds.shape)} (reduce the "
                "condition with tf.reduce_all)")
        if not holds:
            shown = (p if isinstance(p, str) else summary(values[p], limit) for p in parts)
            raise errors.InvalidArgumentError(
                None, None, "assertion failed: " + " ".join(f"[{s}]" for s in shown))
    return _typed(Operation(f"{scope}/Assert", inputs=tensors, effect=effect,
                            graph=condition.graph), "Assert")


def Assert(condition, data, summarize=None, name=None):  # noqa: N802  (TF's name)
    """``tf.Assert``: an operation that raises InvalidArgumentError, showing ``data``
    (at most ``summarize`` entries of each tensor, 3 by default), when a session runs
    it and the boolean scalar ``condition`` is False."""
    with _t.get_default_graph().name_scope(name or "Assert") as scope:
        cond = _tensor(condition, "condition")
        if cond.dtype.kind != "b":
            raise TypeError(f"Value passed to parameter 'condition' has DataType "
                            f"{cond.dtype.name} not in list of allowed values: bool")
        return _assertion(scope, cond, list(data), summarize)


# name -> (comparison, its symbol in TF's message)
_BINARY = {"assert_equal": (_t.equal, "=="), "assert_none_equal": (_t.not_equal, "!="),
           "assert_less": (_t.less, "<"), "assert_less_equal": (_t.less_equal, "<="),
           "assert_greater": (_t.greater, ">"), "assert_greater_equal": (_t.greater_equal, ">=")}


def _check(kind, x, y, data, summarize, message, name, unary=None):
    """An assertion that ``compare(x, y)`` holds everywhere (``unary``: the text
    ``x > 0`` of a check against zero, where y is that zero)."""
    compare, symbol = _BINARY[kind]
    with _t.get_default_graph().name_scope(name or (unary[0] if unary else kind)) as scope:
        x, y = _operands(x, y)
        holds = compare(x, y)   # (shapes that do not broadcast: TF's ValueError, here)
        condition = unary[1] if unary else f"x {symbol} y"
        text = f"Condition {condition} did not hold element-wise:"
        shown = [("x", x)] if unary else [("x", x), ("y", y)]
        if known_now(x) and known_now(y):
            if not np.all(holds.numpy()):
                lines = ([message] if message else []) + [text]
                for label, t in shown:
                    lines += [f"{label} ({t.name}) = ", str(np.asarray(t.value))]
                raise errors.InvalidArgumentError(None, None, "\n".join(lines))
            return _done(scope)
        if data is None:
            data = ([message or ""] if unary or message else []) + [text]
            for label, t in shown:
                data += [f"{label} ({t.name}) = ", t]
        elif message:
            data = [message] + list(data)
        return _assertion(scope, _t.reduce_all(holds), data, summarize)


def _binary(kind):
    def check(x, y, data=None, summarize=None, message=None, name=None):
        return _check(kind, x, y, data, summarize, message, name)
    check.__name__ = check.__qualname__ = kind
    check.__doc__ = (f"``tf.{kind}(x, y)``: an operation raising InvalidArgumentError "
                     f"where ``x {_BINARY[kind][1]} y`` fails (at once for constants).")
    return check


def _unary(fn_name, kind, text):
    def check(x, data=None, summarize=None, message=None, name=None):
        return _check(kind, x, 0, data, summarize, message, name, unary=(fn_name, text))
    check.__name__ = check.__qualname__ = fn_name
    check.__doc__ = (f"``tf.{fn_name}(x)``: an operation raising InvalidArgumentError where "
                     f"``{text}`` fails (at once for constants).")
    return check


assert_equal, assert_none_equal = _binary("assert_equal"), _binary("assert_none_equal")
assert_less, assert_less_equal = _binary("assert_less"), _binary("assert_less_equal")
assert_greater = _binary("assert_greater")
assert_greater_equal = _binary("assert_greater_equal")
assert_positive = _unary("assert_positive", "assert_greater", "x > 0")
assert_negative = _unary("assert_negative", "assert_less", "x < 0")
assert_non_negative = _unary("assert_non_negative", "assert_greater_equal", "x >= 0")
assert_non_positive = _unary("assert_non_positive", "assert_less_equal", "x <= 0")


def assert_near(x, y, rtol=None, atol=None, data=None, summarize=None, message=None,
                name=None):
    """``tf.assert_near``: ``|x - y| <= atol + rtol * |y|`` everywhere, checked at run
    time (tolerances: 10 machine epsilons of the dtype by default)."""
    with _t.get_default_graph().name_scope(name or "assert_near") as scope:
        x, y = _operands(x, y)
        if x.dtype.kind != "f":
            raise TypeError(f"assert_near(x): needs floating-point tensors, got "
                            f"{x.dtype.name}; cast them with tf.cast")
        eps = 10 * float(np.finfo(x.dtype).eps)
        rtol, atol = (eps if v is None else v for v in (rtol, atol))
        holds = _t.less_equal(_t.abs(x - y), atol + rtol * _t.abs(y))
        if data is None:
            data = [message or "", f"x and y not equal to tolerance rtol = {rtol}, atol = "
                    f"{atol}", f"x ({x.name}) = ", x, f"y ({y.name}) = ", y]
        return _assertion(scope, _t.reduce_all(holds), data, summarize)


def _rank_check(x, ranks, text, message, name, what):
    """A rank condition: decided now for a known shape, else at run time."""
    with _t.get_default_graph().name_scope(name or what) as scope:
        x = _tensor(x, "x")
        if x.shape is not None:
            if not ranks(len(x.shape)):
                raise ValueError(f"{_prefix(message)}Tensor {x.name} must have {text}.  "
                                 f"Received rank {len(x.shape)}, shape {x.shape}")
            return _done(scope, "static_checks_determined_all_ok")

        def effect(values, session):
            shape = np.shape(values[0])
            if not ranks(len(shape)):
                raise errors.InvalidArgumentError(
                    None, None, f"assertion failed: [{message or ''}] [Tensor {x.name} "
                    f"must have {text}] [Received shape: ] [{' '.join(map(str, shape))}]")
        return _typed(Operation(f"{scope}/Assert", inputs=[x], effect=effect,
                                graph=x.graph), "Assert")


def assert_rank(x, rank, message=None, name=None):
    """``tf.assert_rank``: a ValueError now if x's known rank is not ``rank``."""
    want = int(static_value(rank, "assert_rank(rank)"))
    return _rank_check(x, lambda r: r == want, f"rank {want}", message, name, "assert_rank")


def assert_rank_at_least(x, rank, message=None, name=None):
    """``tf.assert_rank_at_least``: a ValueError now if x's known rank is smaller."""
    want = int(static_value(rank, "assert_rank_at_least(rank)"))
    return _rank_check(x, lambda r: r >= want, f"rank at least {want}", message, name,
                       "assert_rank_at_least")


def assert_rank_in(x, ranks, message=None, name=None):
    """``tf.assert_rank_in``: x's rank is one of ``ranks``."""
    wants = [int(static_value(r, "assert_rank_in(ranks)")) for r in ranks]
    return _rank_check(x, lambda r: r in wants, f"rank in {wants}", message, name,
                       "assert_rank_in")


def assert_scalar(tensor, name=None, message=None):
    """``tf.assert_scalar``: the tensor itself; a ValueError if its shape is not ()."""
    x = _tensor(tensor, "tensor")
    if x.shape is not None and len(x.shape) != 0:
        raise ValueError(f"{_prefix(message)}Expected scalar shape for {x.name}, saw shape: "
                         f"{x.shape}.")
    return x


def assert_type(tensor, tf_type, message=None, name=None):
    """``tf.assert_type``: a TypeError now unless ``tensor`` has dtype ``tf_type``."""
    x, want = _tensor(tensor, "tensor"), np.dtype(tf_type)
    if x.dtype != want:
        raise TypeError(f"{_prefix(message)}{x.name} must be of type tf.{want.name}; got "
                        f"tf.{x.dtype.name}")
    with _t.get_default_graph().name_scope(name or "assert_type") as scope:
        return _done(scope, "statically_determined_correct_type")


def assert_integer(x, message=None, name=None):
    """``tf.assert_integer``: a TypeError now unless ``x`` has an integer dtype."""
    x = _tensor(x, "x")
    if x.dtype.kind not in "iu":
        raise TypeError(f'{_prefix(message)}Expected "x" to be integer type.  Found: '
                        f"{x.name} of dtype tf.{x.dtype.name}")
    with _t.get_default_graph().name_scope(name or "assert_integer") as scope:
        return _done(scope, "statically_determined_was_integer")


def check_numerics(tensor, message, name=None):
    """``tf.check_numerics``: ``tensor`` itself; a session computing a NaN or Inf in it
    raises InvalidArgumentError (``message : Tensor had NaN values``).  The gradient
    passes through, checked the same way."""
    x = _tensor(tensor, "tensor")
    if x.dtype.kind != "f":
        raise TypeError(f"Value passed to parameter 'tensor' has DataType {x.dtype.name} not "
                        "in list of allowed values: float16, float32, float64")
    graph = x.graph
    check = _typed(Operation(graph.scoped(name or "CheckNumerics") + "/check", inputs=[x],
                             effect=_finite(message), graph=graph), "CheckNumerics")

    def grad(g):
        return [check_numerics(g, "Not a number (NaN) or infinity (Inf) values detected in "
                                  f"gradient. {message}")]
    with state_of(graph).control_dependencies([check]):
        return as_tf1(apply("custom_gradient", [x, x], name=name or "CheckNumerics",
                            grad=grad))


def _finite(message):
    def effect(values, session):
        v = np.asarray(values[0])
        found = [what for what, test in (("Inf", np.isinf), ("NaN", np.isnan))
                 if test(v).any()]
        if found:
            raise errors.InvalidArgumentError(
                None, None, f"{message} : Tensor had {' and '.join(found)} values")
    return effect


def verify_tensor_all_finite(t, msg, name=None, x=None, message=None):
    """``tf.verify_tensor_all_finite`` (``tf.debugging.assert_all_finite``): see
    :func:`check_numerics`."""
    return check_numerics(t if x is None else x, msg if message is None else message,
                          name=name or "VerifyFinite")


def _flat_pairs(x):
    v = _t.reshape(_tensor(x, "x"), [-1])
    return v[1:], v[:-1]


def is_non_decreasing(x, name=None):
    """``tf.debugging.is_non_decreasing``: True when each entry (in C order) is at least
    the one before."""
    later, earlier = _flat_pairs(x)
    return _t.reduce_all(_t.greater_equal(later, earlier), name=name)


def is_strictly_increasing(x, name=None):
    """``tf.debugging.is_strictly_increasing``: each entry exceeds the one before."""
    later, earlier = _flat_pairs(x)
    return _t.reduce_all(_t.greater(later, earlier), name=name)


def is_numeric_tensor(tensor):
    """``tf.debugging.is_numeric_tensor``: a tensor of a number dtype."""
    return isinstance(tensor, Node) and tensor.dtype.kind in "iuf"


__all__ = ["Assert", "assert_equal", "assert_none_equal", "assert_less", "assert_less_equal",
           "assert_greater", "assert_greater_equal", "assert_positive", "assert_negative",
           "assert_non_negative", "assert_non_positive", "assert_near", "assert_rank",
           "assert_rank_at_least", "assert_rank_in", "assert_scalar", "assert_type",
           "assert_integer", "check_numerics", "verify_tensor_all_finite",
           "is_non_decreasing", "is_strictly_increasing", "is_numeric_tensor"]

NAMESPACE = namespace("debugging", **{n: globals()[n] for n in __all__},
                      assert_all_finite=verify_tensor_all_finite,
                      **{n: getattr(_t, n) for n in ("is_finite", "is_inf", "is_nan")})
