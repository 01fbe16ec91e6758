"""Argument checking for the public op functions: arity and kinds, before any work.

Every public op function (``sg.sin``, ``sg.reduce_sum``, ...) goes through
:func:`checked`: the call is bound to the function's signature (too many or too
few tensors is an :class:`~symgrad.errors.ArgumentTypeError` naming the
function and its parameters), then each argument whose *name* has a known kind is
checked -- ``axis`` an int or ints, ``keepdims`` a bool, ``name`` a string,
shapes and permutations ints.  The checks go by parameter name, so a new op
function gets them by using the usual names.  ``sg.sin(x, y)`` is thus an error
(``y`` would have been taken as the op's ``name``), and no extra tensor can reach
a numpy function as its ``out=`` array.

>>> def reduce_it(input_tensor, axis=None, keepdims=False, name=None):
...     return axis
>>> f = checked(reduce_it)
>>> f(1.0, axis=True)
Traceback (most recent call last):
...
symgrad.errors.ArgumentTypeError: reduce_it(axis=True): axis must be an int or a list of ints, not bool
"""
from __future__ import annotations

import functools
import inspect
import numbers
from typing import Any, Callable, TypeVar, cast

import numpy as np

from ..errors import ArgumentTypeError
from ..graph import Dim, Node
from ..ops.deferred import scalar_by_contract
from ..ops.sizes import sizes_of


def _is_int(value):
    return isinstance(value, (numbers.Integral, np.integer)) and not isinstance(
        value, (bool, np.bool_))


def _ints(value):
    """True for an int, or a list/tuple/1-d array of ints."""
    if _is_int(value):
        return True
    if isinstance(value, np.ndarray):
        return value.ndim <= 1 and value.dtype.kind in "iu"
    return isinstance(value, (list, tuple)) and all(_is_int(v) for v in value)


def _sizes(value):
    """Like ``_ints``, also allowing unknown sizes (``Dim``) taken from a tensor's
    shape, as ops built on a ``(None, d)`` tensor pass ``x.shape`` on, and 0-d tensors
    (``tf.shape(x)[0]``: ``ops.sizes`` reads them), or tensors of a rank not known yet
    (a size of a shapeless placeholder: the call is recorded, ``ops.deferred``)."""
    if isinstance(value, (list, tuple)):
        return all(_is_int(v) or isinstance(v, Dim) or
                   isinstance(v, Node) and (v.shape == () or v.shape is None) for v in value)
    return _ints(value)


_KINDS = {
    # parameter name: (test, what it must be)
    "axis": (lambda v: v is None or _ints(v), "an int or a list of ints"),
    "keepdims": (lambda v: isinstance(v, (bool, np.bool_)), "a bool (True or False)"),
    "transpose_a": (lambda v: isinstance(v, (bool, np.bool_)), "a bool (True or False)"),
    "transpose_b": (lambda v: isinstance(v, (bool, np.bool_)), "a bool (True or False)"),
    "name": (lambda v: v is None or isinstance(v, str), "a string or None"),
    "perm": (lambda v: v is None or (_ints(v) and not _is_int(v)), "a list of ints"),
    # a constant tensor may give a shape (TF's docs: scatter_nd(..., tf.constant([8])))
    "shape": (lambda v: _sizes(v) or isinstance(v, Node), "an int or a list of ints"),
    "dims": (lambda v: _sizes(v) or isinstance(v, Node), "an int or a list of ints"),
    "equation": (lambda v: isinstance(v, str), "a string such as 'ij,jk->ik'"),
}


def _describe(value):
    if isinstance(value, Node):
        return f"tensor {value.name!r}"
    return f"{type(value).__name__}" if not isinstance(value, (bool, np.bool_)) else "bool"


def _tensor_params(sig):
    """The parameters that take tensors: the required ones without a known kind."""
    return [p.name + ("..." if p.kind is p.VAR_POSITIONAL else "")
            for p in sig.parameters.values()
            if p.name not in _KINDS and p.name != "dtype" and p.kind is not p.KEYWORD_ONLY
            and (p.default is p.empty or p.kind is p.VAR_POSITIONAL)]


def _arity_error(fname, sig, args, detail):
    params = _tensor_params(sig)
    return ArgumentTypeError(
        f"{fname}{_plain(sig)} takes {len(params)} tensor argument{'s' * (len(params) != 1)} "
        f"({', '.join(params)}), got {len(args)} positional argument"
        f"{'s' * (len(args) != 1)}: {detail}")


def _plain(sig):
    """``sig`` as users write the call: ``(x, name=None)``, without type annotations."""
    empty = inspect.Parameter.empty
    return sig.replace(parameters=[p.replace(annotation=empty) for p in sig.parameters.values()],
                       return_annotation=inspect.Signature.empty)


def check_call(fname, sig, args, kwargs, fast=None):
    """Bind ``args``/``kwargs`` to ``sig`` and check each known argument's kind.

    ``fast``: ``_positional(sig)``, when the caller has it: calls with positional
    arguments only bind without ``Signature.bind`` (the cost of every traced op).
    """
    if fast is not None and _binds(fast, args, kwargs):
        arguments = dict(zip(fast[1], args))
        arguments.update(kwargs)
    else:
        try:
            arguments = sig.bind(*args, **kwargs).arguments
        except TypeError as exc:
            raise ArgumentTypeError(f"{fname}{_plain(sig)}: {exc}") from None
    for pname, value in arguments.items():
        test, what = _KINDS.get(pname, _NO_KIND)
        if test is None or test(value):
            continue
        if pname in list(sig.parameters)[:len(args)] and (isinstance(value, Node)
                                                          or pname == "name"):
            # A tensor (or any non-string) in a non-tensor slot: one argument too many.
            raise _arity_error(fname, sig, args, f"{_describe(value)} landed on '{pname}'")
        raise ArgumentTypeError(f"{fname}({pname}={value!r}): {pname} must be {what}, "
                                f"not {_describe(value)}")


_NO_KIND = (None, None)


def _binds(fast, args, kwargs):
    """Whether ``args``/``kwargs`` bind to the plain parameters ``fast`` = (number
    required, names): no more positionals than names, keywords only after them, every
    required one given."""
    required, names = fast
    if len(args) > len(names):
        return False
    if not kwargs:
        return len(args) >= required
    rest = names[len(args):]
    return all(k in rest for k in kwargs) and all(n in kwargs for n in names[len(args):required])


F = TypeVar("F", bound=Callable[..., Any])


def checked(fn: F, signature: inspect.Signature | None = None) -> F:
    """``fn`` with its arity and argument kinds checked on every call (see the module)."""
    sig = signature or inspect.signature(fn)
    fast = _positional(sig)
    plain = _unchecked_counts(fast)

    at = list(sig.parameters).index("axis") if "axis" in sig.parameters else None
    sized = next((i for i, n in enumerate(sig.parameters) if n in _SIZE_LISTS), None)

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        if sized is not None:
            _sizes_by_contract(args, kwargs, sized, list(sig.parameters)[sized])
        if kwargs or len(args) not in plain:
            if at is not None:
                args, kwargs = _known_axis(args, kwargs, at)
            check_call(fn.__name__, sig, args, kwargs, fast)
        return fn(*args, **kwargs)
    setattr(call, "__signature__", sig)
    return cast(F, call)


# the parameters that take a list of sizes (reshape's shape, fill's dims)
_SIZE_LISTS = ("shape", "dims")


def _sizes_by_contract(args, kwargs, at, name):
    """Narrow TF1's ``placeholder(tf.int32)`` (any shape) among the entries of a list of
    sizes to a scalar, as each entry is by contract (``ops.deferred``): TF's
    ``tf.reshape(x, [batch, length, h])`` with ``length`` fed so keeps rank 3 (Juliani's
    DRQN), where the call would otherwise wait for values as one of unknown rank."""
    value = kwargs[name] if name in kwargs else args[at] if len(args) > at else None
    if isinstance(value, (list, tuple)):
        for entry in value:
            if isinstance(entry, Node) and entry.dtype.kind in "iu":
                scalar_by_contract(entry)


def _known_axis(args, kwargs, at):
    """``args``/``kwargs`` with an ``axis`` given as a tensor whose value is known now
    (``tf.constant(1)``, ``tf.range(1, tf.rank(x))``, ``tf.rank(x) - 1``) read as the
    ints it holds, as TF reads such axes when the graph is built."""
    if "axis" in kwargs and isinstance(kwargs["axis"], Node):
        return args, dict(kwargs, axis=_axis_value(kwargs["axis"]))
    if len(args) > at and isinstance(args[at], Node):
        return args[:at] + (_axis_value(args[at]),) + args[at + 1:], kwargs
    return args, kwargs


def _axis_value(node):
    """The ints of an integer tensor known now (else the tensor, for the usual error)."""
    if node.dtype.kind not in "iu" or node.shape is None or len(node.shape) > 1:
        return node
    found = sizes_of(node)
    if found is None or not all(isinstance(v, int) for v in found):
        return node
    return found[0] if node.shape == () else list(found)


def _positional(sig):
    """``(number required, names)`` when every parameter of ``sig`` is plain positional-
    or-keyword (binding positional arguments is then a zip), else None."""
    params = list(sig.parameters.values())
    if any(p.kind is not inspect.Parameter.POSITIONAL_OR_KEYWORD for p in params):
        return None
    required = [p for p in params if p.default is inspect.Parameter.empty]
    if params[:len(required)] != required:
        return None
    return len(required), tuple(p.name for p in params)


def _unchecked_counts(fast):
    """The numbers of positional arguments (without keywords) that bind to the plain
    parameters ``fast`` and land on none whose kind is checked: such calls (``sg.sin(x)``,
    every traced elementwise op) have nothing to check."""
    if fast is None:
        return frozenset()
    required, names = fast
    return frozenset(n for n in range(required, len(names) + 1)
                     if not any(p in _KINDS for p in names[:n]))


def tensor_signature(params: list[str]) -> inspect.Signature:
    """The signature ``(x, y, ..., name=None)`` of an op function over ``params`` tensors."""
    kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
    ps = [inspect.Parameter(p, kind, annotation="TensorLike") for p in params]
    ps.append(inspect.Parameter("name", kind, default=None, annotation="str | None"))
    return inspect.Signature(ps, return_annotation="Tensor")


def publish(namespace, counts=None, own=(), unchecked=(), results=None):
    """Wrap every function a module exports (``__all__``), in place: its arity and
    argument kinds are checked (:func:`checked`), and a call meeting a tensor of unknown
    rank is recorded until values arrive (``ops.deferred``), as ``functions.py``'s are.

    ``counts``: name -> how many tensors its list result holds (or a function of the
    call's arguments that says); ``results``: name -> what makes its result from that
    list (a named pair); ``own``: functions that
    meet unknown ranks themselves (or return a list of a length known only then);
    ``unchecked``: functions whose arguments the name rules would misjudge.
    """
    from ..ops.deferred import deferrable
    counts, results = counts or {}, results or {}
    for name in namespace["__all__"]:
        fn = namespace[name]
        if hasattr(fn, "__wrapped__") or name in unchecked:
            continue
        if name not in own:
            n = counts.get(name)
            if n is not None and not callable(n):
                n = (lambda k: lambda *args, **kwargs: k)(n)
            fn = deferrable(n, results.get(name))(fn)
        namespace[name] = checked(fn)


def check_module(module):
    """Give every function a module exports (``__all__``) the checks, in place.

    For op functions written outside ``functions.py`` (``nn``, ``linalg``, ...):
    one call at the package's import covers what they export now and later.
    Returns ``{unchecked function: checked function}`` for rebinding imports.
    """
    done = {}
    for name in getattr(module, "__all__", ()):
        fn = getattr(module, name, None)
        if inspect.isfunction(fn) and not hasattr(fn, "__wrapped__"):
            done[fn] = done.get(fn) or checked(fn)
            setattr(module, name, done[fn])
    return done
