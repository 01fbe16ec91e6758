"""TF-Slim's ``arg_scope``: default keyword arguments for chosen layer functions.

``with slim.arg_scope([slim.conv2d, slim.fully_connected], weights_regularizer=r):``
makes every call of those two functions inside the block take ``weights_regularizer=r``
unless the call passes it itself.  Scopes nest: an inner scope adds to (and overrides)
the outer one's defaults for the functions it lists; the others keep the outer ones.
``arg_scope(sc)`` with the dict an earlier scope yielded re-enters it.  Only functions
made with ``add_arg_scope`` (slim's layers are) can be listed; any other is TF's
ValueError.  As in TF, the stack of scopes is one per process, not one per graph
(every ``with`` block restores it on the way out).

Imports nothing from symgrad.

>>> @add_arg_scope
... def layer(x, scale=1):
...     return x * scale
>>> with arg_scope([layer], scale=10):
...     layer(2), layer(2, scale=3)
(20, 6)
"""
from __future__ import annotations

import contextlib
import functools

_STACK = [{}]          # the active scopes: {function key: {argument: default}}
_DECORATED = {}        # function key -> names of its keyword arguments


def current_arg_scope():
    """The innermost scope's dict (``{function key: {argument: default}}``)."""
    return _STACK[-1]


def arg_scope_func_key(op):
    """The key a function is known by in scopes (shared by its wrappers)."""
    return getattr(op, "_key_op", None) or str(op)


def has_arg_scope(func):
    """Whether ``func`` was made with ``add_arg_scope``."""
    return callable(func) and arg_scope_func_key(func) in _DECORATED


def arg_scoped_arguments(func):
    """The keyword arguments an arg_scope can give ``func``."""
    if not has_arg_scope(func):
        raise ValueError(f"{func!r} is not decorated with @add_arg_scope")
    return _DECORATED[arg_scope_func_key(func)]


def _keyword_names(func):
    code, defaults = func.__code__, func.__defaults__ or ()
    return code.co_varnames[code.co_argcount - len(defaults):code.co_argcount]


def add_arg_scope(func):
    """``func`` made to take its keyword defaults from the enclosing arg_scopes."""
    key = arg_scope_func_key(func)

    @functools.wraps(func)
    def with_scope(*args, **kwargs):
        defaults = current_arg_scope().get(key)
        if defaults:
            kwargs = {**defaults, **kwargs}
        return func(*args, **kwargs)

    _DECORATED[key] = _keyword_names(func)
    with_scope._key_op = key
    return with_scope


@contextlib.contextmanager
def arg_scope(list_ops_or_scope, **kwargs):
    """Give the functions in ``list_ops_or_scope`` the defaults ``kwargs`` inside the block
    (or re-enter the dict an earlier ``arg_scope`` yielded); yields the scope's dict."""
    if isinstance(list_ops_or_scope, dict):
        if kwargs:
            raise ValueError("arg_scope: when re-using a scope by passing its dict, pass no "
                             "keyword arguments")
        scope = dict(list_ops_or_scope)
    else:
        if not isinstance(list_ops_or_scope, (list, tuple)):
            raise TypeError("arg_scope: list_ops_or_scope must be a list or tuple of "
                            "functions (or a scope dict from an earlier arg_scope), got "
                            f"{type(list_ops_or_scope).__name__}")
        scope = dict(current_arg_scope())
        for op in list_ops_or_scope:
            if not has_arg_scope(op):
                raise ValueError(f"arg_scope: {getattr(op, '__name__', op)!r} is not "
                                 "decorated with @add_arg_scope (slim's layer functions "
                                 "are; decorate your own with slim.add_arg_scope)")
            key = arg_scope_func_key(op)
            scope[key] = {**scope.get(key, {}), **kwargs}
    _STACK.append(scope)
    try:
        yield scope
    finally:
        _STACK.pop()
