"""TF1 variables: ``tf.Variable``, ``assign``/``assign_add``/``assign_sub`` as operations,
initializer operations, collections and the global step.

A TF1 variable has no value in a session until an initializer (or an assign) runs
there: reading it before raises ``tf.errors.FailedPreconditionError``.  The
values belong to the sessions: each holds its own (``session_values``).
``v.assign(x)`` (and ``tf.assign(v, x)``) builds an operation; nothing changes
until a session runs it, as in TF1 (plain ``sg.Variable.assign`` sets at once).

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     w = tf.Variable(1.0, name="w")
...     step = tf.assign(w, w * 3)
...     with tf.Session() as sess:
...         sess.run(tf.global_variables_initializer())
...         print(sess.run(step), sess.run(step), sess.run(w))
3.0 9.0 9.0
"""
from __future__ import annotations

import re

import numpy as np

from .. import tracing as _t
from ..graph import Node
from .redraws import redraw_of, start_value
from .state import Operation, check_initializer_outside, outermost_scope, state_of
from .tensor import TF1Tensor, constant, tf_dtype_arg
from .variable_value import ValueSlot


class GraphKeys:
    """Names of TF1's standard collections."""
    GLOBAL_VARIABLES = "variables"
    VARIABLES = "variables"
    TRAINABLE_VARIABLES = "trainable_variables"
    LOCAL_VARIABLES = "local_variables"
    MODEL_VARIABLES = "model_variables"
    LOSSES = "losses"
    REGULARIZATION_LOSSES = "regularization_losses"
    UPDATE_OPS = "update_ops"
    GLOBAL_STEP = "global_step"
    SUMMARIES = "summaries"
    MOVING_AVERAGE_VARIABLES = "moving_average_variables"
    TRAIN_OP = "train_op"
    WEIGHTS, BIASES, ACTIVATIONS = "weights", "biases", "activations"
    QUEUE_RUNNERS, INIT_OP, LOCAL_INIT_OP = "queue_runners", "init_op", "local_init_op"
    READY_OP, SAVERS, EVAL_STEP = "ready_op", "savers", "eval_step"
    COND_CONTEXT, WHILE_CONTEXT = "cond_context", "while_context"


def tf_dtype(value, dtype):
    """TF's defaults: Python floats become float32, Python ints int32; numpy values and
    tensors keep their dtype (unsigned ones too: uint8 pixels stay uint8, as in TF)."""
    if dtype is None and isinstance(value, (np.ndarray, np.generic)) and \
            value.dtype.kind == "u":
        return value.dtype
    if dtype is not None or isinstance(value, (Node, np.ndarray, np.generic)):
        return dtype
    kind = np.asarray(value).dtype.kind
    return np.float32 if kind == "f" else np.int32 if kind in "iu" else None


class Variable(_t.Variable, TF1Tensor):
    """``tf.Variable``: float32 for Python floats; needs an initializer run in a session."""

    value = ValueSlot()   # the numbers, also callable: TF1's v.value() (variable_value)

    def tf_text(self):
        """TF1's ``str`` and ``repr`` of a variable: a reference variable's dtype ends in
        _ref (``print(tf.trainable_variables())`` in tutorials)."""
        return (f"<tf.Variable '{self.name}' shape={self.get_shape()} "
                f"dtype={self.dtype.name}_ref>")

    __repr__ = tf_text

    def __new__(cls, initial_value=None, trainable=True, collections=None, validate_shape=True,
                caching_device=None, name=None, variable_def=None, dtype=None,
                expected_shape=None, import_scope=None, constraint=None, use_resource=None,
                synchronization=None, aggregation=None, shape=None):
        if initial_value is None:
            raise ValueError("tf.Variable: initial_value must be specified")
        check_initializer_outside(initial_value, name or "Variable")
        if callable(initial_value) and not isinstance(initial_value, Node):
            initial_value = initial_value()
        with outermost_scope(_t.get_default_graph()):   # (TF's init_scope)
            node = super().__new__(cls, initial_value, name=name,
                                   dtype=tf_dtype(initial_value, tf_dtype_arg(dtype)),
                                   trainable=trainable)
        node.initial = np.array(node.value)
        node.redraw = redraw_of(initial_value)   # (a new draw at each re-initialisation)
        node._initializer_op = None
        node.constraint = constraint   # (tf.train optimizers project onto it after a step)
        state = state_of(node.graph)
        keys = collections or [GraphKeys.GLOBAL_VARIABLES]
        if trainable and GraphKeys.TRAINABLE_VARIABLES not in keys:
            keys = list(keys) + [GraphKeys.TRAINABLE_VARIABLES]
        for key in keys:
            state.add_to_collection(key, node)
        return node

    def __bool__(self):
        # TF1's variable is a Python object without a truth value of its own, so true
        # (``ema.average(v) or v``); a tensor's truth value is the TypeError
        return True

    @property
    def trainable(self):
        return self.attrs.get("trainable", True)

    @property
    def initializer(self):
        """``sess.run(v.initializer)``: set this variable to its initial value."""
        if self._initializer_op is None:   # (runs nothing else first, wherever it is made)
            with state_of(self.graph).control_dependencies(None):
                self._initializer_op = Operation(f"{self.op_name}/Assign", type="Assign",
                                                 effect=_initialize([self]), graph=self.graph)
        return self._initializer_op

    @property
    def initial_value(self):
        return constant(self.initial, name=f"{self.op_name}/initial_value")

    def initialized_value(self):
        return self.initial_value

    def assign(self, value, use_locking=None, name=None, read_value=True):
        """An operation setting this variable to ``value`` when a session runs it."""
        return assign(self, value, name=name)

    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        return assign_add(self, delta, name=name)

    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        return assign_sub(self, delta, name=name)

    def load(self, value, session=None):
        """Set the value now in ``session`` (default: the default session), TF1's
        ``Variable.load``; other sessions keep theirs."""
        from .session_values import acting
        from .state import default_session
        session = session or default_session(self.graph)
        with acting(session):
            _t.Variable.assign(self, value)
        session.mark_initialized(self)

    def read_value(self):
        return _t.identity(self)

    def set_shape(self, shape):
        if tuple(shape) != self.shape:
            raise ValueError(f"set_shape: {self.name!r} has shape {self.shape}, not {shape}")


def _initialize(variables):
    def effect(values, session):
        for v in variables:
            v.value = np.array(_start_value(v, session))
            session.mark_initialized(v)
    return effect


def _start_value(v, session):
    """The value ``v``'s initializer sets: its initial value, or for a variable made
    from another's ``initialized_value()`` (an average's shadow) that variable's value
    now if this session initialised it (TF reads it through ``initialized_value``)."""
    source = getattr(v, "initial_from", None)
    if source is not None and source in session._initialized:
        return np.array(source.value, dtype=v.dtype)
    return start_value(v, session, v.initial)


def _update(ref, combine, value, name, kind):
    if not isinstance(ref, _t.Variable):
        raise TypeError(f"{name}: ref must be a Variable, got {ref!r}")
    delta = _value_for(ref, value, name)

    def effect(values, session):
        if combine is not None:   # (tf.assign may set an uninitialised variable; += not)
            require_initialized(ref, session, kind)
        new = combine(ref.value, values[0]) if combine else values[0]
        ref.value = np.array(np.broadcast_to(new, ref.shape), dtype=ref.dtype)
        session.mark_initialized(ref)
    return Operation(name, inputs=[delta], effect=effect, value=ref, graph=ref.graph,
                     type=kind)


def require_initialized(ref, session, kind):
    """TF's FailedPreconditionError for an update that reads ``ref`` (AssignAdd, a
    scatter) before any initializer ran in ``session``: the old value is not defined."""
    if ref not in session._initialized:
        from .errors import FailedPreconditionError
        raise FailedPreconditionError(
            None, None, f"Attempting to use uninitialized value {ref.op_name} (in {kind}): run "
            "sess.run(tf.global_variables_initializer()) (or the variable's initializer) "
            "in this session first")


def _value_for(ref, value, name):
    """``value`` as a tensor of ``ref``'s dtype and shape (TF's TypeError on a dtype clash;
    an IndexedSlices is its dense tensor, as TF converts it)."""
    if hasattr(value, "as_graph_tensor") and not isinstance(value, Node):
        value = value.as_graph_tensor()
    if isinstance(value, Node):
        if value.dtype != ref.dtype:
            raise TypeError(f"{name}: the value has dtype {value.dtype.name} but the variable "
                            f"{ref.name!r} is {ref.dtype.name}; cast it: tf.cast(value, "
                            f"tf.{ref.dtype.name})")
        node = value
    else:
        with ref.graph.as_default():
            node = constant(np.asarray(value, dtype=ref.dtype))
    if not _fits(node.shape, ref.shape):
        raise ValueError(f"{name}: shapes of {ref.name!r} {ref.shape} and the value "
                         f"{node.shape} are incompatible")
    return node


def _fits(shape, target):
    """Whether a value of static ``shape`` can set a variable of ``target``'s shape: it
    broadcasts to it, or it may once its unknown dimensions arrive (a gradient through an
    unshaped placeholder has unknown rank; its value is checked when it is applied)."""
    if shape is None or shape == target:
        return True
    if len(shape) > len(target):
        return False
    tail = target[len(target) - len(shape):]
    return all(d is None or d == 1 or d == t for d, t in zip(shape, tail))


def assign(ref, value, validate_shape=None, use_locking=None, name=None):
    """``tf.assign(ref, value)``: an operation; running it sets ``ref`` and returns the value.
    A variable keeps its shape: ``validate_shape=False`` with a value of another shape
    is refused (TF lets the variable take the new shape)."""
    try:
        return _update(ref, None, value, name or "Assign", "Assign")
    except ValueError as error:
        if validate_shape is False:
            raise ValueError(f"{error}: tf.assign(validate_shape=False) cannot change a "
                             "variable's shape in symgrad (shapes are static); make a "
                             "variable of the new shape, or keep the largest shape and "
                             "slice it") from None
        raise


def assign_add(ref, value, use_locking=None, name=None):
    """``tf.assign_add``: ``ref += value`` when run (the value read at that moment)."""
    return _update(ref, np.add, value, name or "AssignAdd", "AssignAdd")


def assign_sub(ref, value, use_locking=None, name=None):
    return _update(ref, np.subtract, value, name or "AssignSub", "AssignSub")


def _graph():
    return _t.get_default_graph()


def get_collection(key, scope=None):
    """The members of a collection, those whose name matches ``scope`` if given."""
    items = state_of(_graph()).collection(key)
    if scope is None:
        return items
    return [v for v in items if hasattr(v, "name") and re.match(scope, v.name)]


def get_collection_ref(key):
    return state_of(_graph()).collections.setdefault(key, [])


def add_to_collection(name, value):
    state_of(_graph()).add_to_collection(name, value)


def add_to_collections(names, value):
    for name in ([names] if isinstance(names, str) else names):
        add_to_collection(name, value)


def global_variables(scope=None):
    return get_collection(GraphKeys.GLOBAL_VARIABLES, scope)


def trainable_variables(scope=None):
    return get_collection(GraphKeys.TRAINABLE_VARIABLES, scope)


def local_variables(scope=None):
    return get_collection(GraphKeys.LOCAL_VARIABLES, scope)


def moving_average_variables(scope=None):
    """The variables ``ExponentialMovingAverage.apply`` averages."""
    return get_collection(GraphKeys.MOVING_AVERAGE_VARIABLES, scope)


def model_variables(scope=None):
    return get_collection(GraphKeys.MODEL_VARIABLES, scope)


def variables_initializer(var_list, name="init"):
    """An operation that sets ``var_list`` to their initial values."""
    return Operation(name, effect=_initialize(list(var_list)), graph=_graph())


class VariableOwner:
    """Mixed into objects whose calls make variables (tf.layers' layer objects,
    ``make_template``'s templates): ``_making(call)`` runs ``call()`` and keeps the
    global variables it made, listed by ``variables`` and ``trainable_variables``."""

    def _making(self, call):
        before = set(global_variables())
        out = call()
        self._variables += [v for v in global_variables() if v not in before]
        return out

    @property
    def variables(self):
        return list(self._variables)

    @property
    def trainable_variables(self):
        return [v for v in self._variables if v in trainable_variables()]


def global_variables_initializer():
    """An operation initializing every global variable made so far."""
    return variables_initializer(global_variables())


def local_variables_initializer():
    return variables_initializer(local_variables(), name="init_1")


def group(*inputs, name=None):
    """``tf.group``: one operation that runs ``inputs`` (operations or tensors)."""
    from .state import _as_operation
    members = [_as_operation(x) for x in _flatten(inputs) if x is not None]
    return Operation(name or "group_deps", control_inputs=members, graph=_graph())


def _flatten(items):
    for item in items:
        if isinstance(item, (list, tuple)):
            yield from _flatten(item)
        else:
            yield item


def no_op(name=None):
    return Operation(name or "NoOp", graph=_graph())


def control_dependencies(control_inputs):
    """``with tf.control_dependencies(ops):`` what is made inside runs ``ops`` first."""
    return state_of(_graph()).control_dependencies(control_inputs)


def get_global_step(graph=None):
    """The GLOBAL_STEP collection's variable, else (as TF) the integer scalar variable
    named ``global_step`` (Mechanics 101 makes it with ``tf.Variable(0, name=...)``)."""
    graph = graph or _graph()
    found = state_of(graph).collection(GraphKeys.GLOBAL_STEP)
    if found:
        return found[0]
    named = [v for v in state_of(graph).collection(GraphKeys.GLOBAL_VARIABLES)
             if isinstance(v, Variable) and v.name == "global_step:0"]
    if named and (named[0].dtype.kind not in "iu" or named[0].shape != ()):
        raise TypeError(f"Existing \"global_step\" must be an integer scalar variable; "
                        f"it has dtype {named[0].dtype} and shape {named[0].shape}")
    return named[0] if named else None


def create_global_step(graph=None):
    """The int64 variable ``global_step`` (0), counted by optimizers' ``minimize``."""
    graph = graph or _graph()
    if get_global_step(graph) is not None:
        raise ValueError('"global_step" already exists.')
    # TF makes it with get_variable: named in the variable scope open now (PTB's
    # "Model/global_step"), whatever name scopes are open
    scopes = state_of(graph).var_scopes
    with graph.as_default(), graph.absolute_scope(scopes[-1].name if scopes else ""):
        step = Variable(np.int64(0), trainable=False, name="global_step",
                        collections=[GraphKeys.GLOBAL_VARIABLES, GraphKeys.GLOBAL_STEP])
    return step


def get_or_create_global_step(graph=None):
    step = get_global_step(graph)
    return step if step is not None else create_global_step(graph)


def global_step(sess, global_step_tensor):
    """``tf.train.global_step(sess, step)``: the step's value in ``sess``, a Python int."""
    return int(sess.run(global_step_tensor))
