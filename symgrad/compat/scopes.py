"""``tf.variable_scope`` and ``tf.get_variable``: variables shared by name.

A variable scope prefixes the names of the variables ``get_variable`` makes
(``"layer1/W"``) and also opens a name scope for the ops made inside.  With
``reuse=True`` ``get_variable`` returns the existing variable of that name (and
refuses to make a new one); without it, asking twice for one name is TF's
ValueError.  ``reuse=tf.AUTO_REUSE`` makes or reuses.  Reuse is inherited by
inner scopes.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     with tf.variable_scope("foo"):
...         v = tf.get_variable("v", [1])
...     with tf.variable_scope("foo", reuse=True):
...         v1 = tf.get_variable("v", [1])
...     print(v1 is v, v.name)
True foo/v:0
"""
from __future__ import annotations

import contextlib
import functools

import numpy as np

from .. import tracing as _t
from ..evaluate import evaluate
from ..graph import Node
from . import initializers as _init
from .state import state_of
from .tensor import tf_dtype_arg
from .partitioned import partitioned, takes_partition_info
from .state import check_initializer_outside
from .variables import GraphKeys, Variable, tf_dtype

AUTO_REUSE = "AUTO_REUSE"


class VariableScope:
    """A variable scope: its full name, reuse flag, default initializer and dtype."""

    def __init__(self, name="", reuse=None, initializer=None, regularizer=None, dtype=None,
                 name_scope="", partitioner=None, custom_getter=None):
        self.name, self.reuse = name, False if reuse is None else reuse   # (TF: False)
        self.initializer, self.regularizer, self.dtype = initializer, regularizer, dtype
        self.original_name_scope, self.partitioner = name_scope, partitioner
        self.custom_getter = custom_getter

    def set_custom_getter(self, custom_getter):
        self.custom_getter = custom_getter

    def reuse_variables(self):
        """Later ``get_variable`` calls in this scope reuse (``scope.reuse_variables()``)."""
        self.reuse = True

    def set_initializer(self, initializer):
        self.initializer = initializer

    def __repr__(self):
        return f"<VariableScope {self.name!r} reuse={self.reuse}>"


def get_variable_scope():
    """The innermost variable scope (the root one, named "", outside every block)."""
    stack = state_of(_t.get_default_graph()).var_scopes
    if not stack:
        stack.append(VariableScope())
    return stack[-1]


@contextlib.contextmanager
def variable_scope(name_or_scope, default_name=None, values=None, initializer=None,
                   regularizer=None, caching_device=None, partitioner=None, custom_getter=None,
                   reuse=None, dtype=None, use_resource=None, constraint=None,
                   auxiliary_name_scope=True):
    """Enter a variable scope (and a name scope of the same name)."""
    graph = _t.get_default_graph()
    parent = get_variable_scope()
    if isinstance(name_or_scope, VariableScope):
        full, base = name_or_scope.name, name_or_scope
    elif name_or_scope is None and default_name is None:
        raise TypeError("variable_scope: pass name_or_scope or default_name")
    else:
        short = name_or_scope if name_or_scope is not None else \
            _unique_scope(graph, parent, default_name)
        full, base = (f"{parent.name}/{short}" if parent.name and short else
                      short or parent.name), None   # ("": the enclosing scope's name)
    inherit = base if base is not None else parent
    scope = VariableScope(full, reuse or inherit.reuse,
                          initializer or inherit.initializer,
                          regularizer or inherit.regularizer, dtype or inherit.dtype,
                          partitioner=partitioner or inherit.partitioner,
                          custom_getter=_wrapped_getter(custom_getter, inherit.custom_getter))
    state = state_of(graph)
    stack, counts = state.var_scopes, state.scope_counts
    saved = dict(counts) if base is not None else None
    counts[full] = counts.get(full, 0) + 1
    stack.append(scope)
    try:
        label = full.split("/")[-1]
        # the root scope re-entered (tf.variable_scope(tf.get_variable_scope()), the
        # multi-tower pattern) opens no name scope, as in TF: names stay where they are
        with graph.name_scope(label) if label else contextlib.nullcontext() as ops_scope:
            scope.original_name_scope = ops_scope + "/" if label else ""
            yield scope
    finally:
        stack.pop()
        # TF1: leaving a scope forgets which default names were taken inside it, so a
        # model built twice under one reused scope gets the same "rnn", "dense" scopes
        # (and so the same variables); re-entering a scope object restores the counts
        if saved is not None:
            counts.clear()
            counts.update(saved)
        else:
            inside = full + "/"
            for key in [k for k in counts if k.startswith(inside)]:
                counts[key] = 0


def _wrapped_getter(custom_getter, outer_getter):
    """A scope's custom getter: ``custom_getter`` calling the enclosing scope's around
    the true getter, as TF nests them."""
    if custom_getter is None or outer_getter is None:
        return custom_getter if custom_getter is not None else outer_getter

    def wrapped(getter, *args, **kwargs):
        return custom_getter(functools.partial(outer_getter, getter), *args, **kwargs)
    return wrapped


def _unique_scope(graph, parent, default_name):
    """``default_name``, else ``default_name_1``, ``_2`` ...: the first not opened yet
    inside the parent scope (since the parent was last entered)."""
    counts = state_of(graph).scope_counts
    prefix = f"{parent.name}/{default_name}" if parent.name else default_name
    if not counts.get(prefix):
        return default_name
    k = 1
    while counts.get(f"{prefix}_{k}"):
        k += 1
    return f"{default_name}_{k}"


def loop_name_scope(looped=True):
    """TF's ``while`` name scope of a loop (``dynamic_rnn``'s), where a keras cell builds
    its weights (``rnn/while/lstm_cell/kernel:0``); ``get_variable`` ignores it, as TF's
    own cells' ``rnn/lstm_cell/kernel:0`` do.  No scope unless ``looped``."""
    if not looped:
        return contextlib.nullcontext()
    return _t.get_default_graph().name_scope("while")


def get_variable(name, shape=None, dtype=None, initializer=None, regularizer=None,
                 trainable=None, collections=None, caching_device=None, partitioner=None,
                 validate_shape=True, use_resource=None, custom_getter=None, constraint=None,
                 synchronization=None, aggregation=None):
    """The variable ``scope/name``: made, or with reuse the existing one; through the
    scope's (or this call's) ``custom_getter`` if there is one, which TF calls with the
    true getter, the full name and the other arguments as keywords."""
    scope = get_variable_scope()
    full = f"{scope.name}/{name}" if scope.name else name
    kwargs = dict(shape=shape, dtype=dtype, initializer=initializer, regularizer=regularizer,
                  reuse=scope.reuse, trainable=trainable, collections=collections,
                  caching_device=caching_device, partitioner=partitioner,
                  validate_shape=validate_shape, use_resource=use_resource,
                  constraint=constraint, synchronization=synchronization,
                  aggregation=aggregation)
    getter = custom_getter if custom_getter is not None else scope.custom_getter
    if getter is None:
        return _true_getter(full, **kwargs)
    return getter(getter=_true_getter, name=full, **kwargs)


def missing_variable(full):
    """TF's error for a variable a ``reuse=True`` scope should find but does not."""
    return ValueError(f"Variable {full} does not exist, or was not created with "
                      "tf.get_variable(). Did you mean to set reuse=tf.AUTO_REUSE in VarScope?")


def _true_getter(name, shape=None, dtype=None, initializer=None, regularizer=None,
                 reuse=None, trainable=None, collections=None, partitioner=None,
                 constraint=None, **ignored):
    """``get_variable`` of the full name ``name`` (what custom getters call)."""
    scope = get_variable_scope()
    full, (path, _, name) = name, name.rpartition("/")
    shape = None if shape is None else _init.shape_tuple(shape)
    reuse = scope.reuse if reuse is None else reuse
    store = state_of(_t.get_default_graph()).variables
    found_in = _store_holding(full)
    if found_in is not None:
        store = found_in
        if not reuse:
            raise ValueError(f"Variable {full} already exists, disallowed. Did you mean to set "
                             "reuse=True or reuse=tf.AUTO_REUSE in VarScope?")
        found = store[full]
        want = np.dtype(tf_dtype_arg(dtype) or scope.dtype or np.float32)
        if getattr(found, "dtype", want) != want:   # (TF's check, the scope's float32 too)
            raise ValueError(f"Trying to share variable {full}, but specified dtype "
                             f"{want.name} and found dtype {found.dtype.name}.")
        if shape is not None and tuple(shape) != found.shape:
            raise ValueError(f"Trying to share variable {full}, but specified shape "
                             f"{tuple(shape)} and found shape {found.shape}.")
        return found
    if reuse is True:
        raise missing_variable(full)
    dtype = tf_dtype_arg(dtype) or scope.dtype
    initializer = initializer if initializer is not None else scope.initializer
    keys = collections or [GraphKeys.GLOBAL_VARIABLES]
    graph = _t.get_default_graph()

    def make(value, short):
        with graph.absolute_scope(path):
            return Variable(value, trainable=True if trainable is None else trainable,
                            collections=keys, name=short, constraint=constraint)
    partitioner = partitioner or scope.partitioner
    if partitioner is not None:
        store[full] = _partitioned(full, name, shape, dtype, initializer, partitioner, make)
        return store[full]
    var = store[full] = make(_initial_value(full, shape, dtype, initializer), name)
    if isinstance(_resolved(initializer, dtype), _init.Initializer) and shape is not None:
        dt = np.dtype(dtype or np.float32)   # (a new draw at each re-initialisation)
        var.redraw = _init.drawn_again(var, _resolved(initializer, dtype),
                                       tuple(int(d) for d in shape), dt).drawn_again
    regularizer = regularizer or scope.regularizer
    if regularizer is not None:
        with graph.absolute_scope(full + "/Regularizer"):   # (TF's name for the loss)
            loss = regularizer(var)
        if loss is not None:
            state_of(graph).add_to_collection(GraphKeys.REGULARIZATION_LOSSES, loss)
    return var


def _store_holding(full):
    """The variable store holding ``full``: the default graph's, or an enclosing graph's
    (a while_loop body or cond branch reusing a layer's variables, as TF lets it)."""
    graph = _t.get_default_graph()
    while graph is not None:
        store = state_of(graph).variables
        if full in store:
            return store
        graph = graph.outer
    return None


def _partitioned(full, name, shape, dtype, initializer, partitioner, make):
    """``get_variable`` with a partitioner (``compat.partitioned``)."""
    whole = []
    if shape is None and not callable(initializer) and initializer is not None:
        # a tensor or array initializer gives the shape (TF's rule, as without partitioner)
        whole.append(_initial_value(full, None, dtype, initializer))
        shape = np.shape(whole[0])

    def value(part_shape, info, piece):
        if not isinstance(initializer, _init.Initializer) and takes_partition_info(initializer):
            return _initial_value(full, part_shape, dtype, initializer, partition_info=info)
        resolved = _resolved(initializer, dtype)
        drawn = resolved.part(tuple(part_shape), np.dtype(dtype or np.float32), shape) \
            if isinstance(resolved, _init.Initializer) else None
        if drawn is not None:   # (TF calls a random initializer once per part)
            return drawn
        if not whole:
            whole.append(_initial_value(full, shape, dtype, initializer))
        return whole[0][piece]
    return partitioned(name, shape, dtype, partitioner, value, make)


def _resolved(initializer, dtype):
    """The initializer object get_variable uses: TF's default (glorot uniform for floats,
    zeros otherwise) for None, an instance for an Initializer class."""
    if initializer is None or isinstance(initializer, type) and issubclass(
            initializer, _init.Initializer):
        dt = np.dtype(dtype or np.float32)
        return (initializer() if initializer is not None else
                _init.glorot_uniform_initializer() if dt.kind == "f" else _init.Zeros())
    return initializer


def _initial_value(full, shape, dtype, initializer, partition_info=None):
    """The initial numpy value from an initializer object/function, a tensor or a number
    (a function with a ``partition_info`` argument gets it: one part's value)."""
    initializer = _resolved(initializer, dtype)
    if isinstance(initializer, _init.Initializer) or callable(initializer) and not isinstance(
            initializer, Node):
        if shape is None:
            raise ValueError(f"Shape of a new variable ({full}) must be fully defined, but "
                             "instead was None.")
        dt = np.dtype(dtype or np.float32)
        if isinstance(initializer, _init.Initializer):
            return initializer.array(tuple(int(d) for d in shape), dt)
        extra = {} if partition_info is None else {"partition_info": partition_info}
        made = initializer(tuple(shape), dtype=dt, **extra)
        return np.asarray(made.value if isinstance(made, Node) else made, dtype=dt)
    value = initializer
    if isinstance(initializer, Node):   # a tensor: its value now, computed if not a leaf
        check_initializer_outside(initializer, full)
        value = initializer.value if initializer.value is not None else evaluate(initializer)
    arr = np.asarray(value, dtype=tf_dtype(value, dtype))
    if shape is not None and tuple(shape) != arr.shape:
        raise ValueError(f"get_variable {full}: the initial value has shape {arr.shape}, not "
                         f"{tuple(shape)}; with a constant initializer leave out shape")
    return arr
