"""``tf.keras.backend`` as TF1 graph-mode programs use it: the per-graph state keras
layers share (their default names, the learning phase, the session) and ``K.*``.

- Layer names: ``dense``, ``dense_1``, ... counted per graph and per class name
  (``unique_object_name``), reset by ``clear_session``.
- ``learning_phase()``: TF1 keras's ``keras_learning_phase``, a boolean scalar that is
  False unless fed (``{K.learning_phase(): 1}``); ``Dropout`` and
  ``BatchNormalization`` called without ``training=`` read it.
  ``set_learning_phase(0 or 1)`` fixes it.
- ``get_session()``: the default session (``with tf.Session() as sess:``), else one
  keras keeps; as in TF it first initialises the variables keras layers made that
  no session has initialised yet, so ``layer.get_weights()`` works before
  ``tf.global_variables_initializer()``.

Sits in ``compat``; imports ``tracing`` and ``compat``'s session, state, tensor and
variables modules.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     print(unique_object_name("dense"), unique_object_name("dense"))
dense dense_1
"""
from __future__ import annotations

import re
import weakref

import numpy as np

from .. import tracing as _t
from .session import Session, initialized_anywhere
from .state import DEFAULT_SESSIONS
from .tensor import constant, tf_dtype_arg
from .variables import Variable

_STATES = weakref.WeakKeyDictionary()
_SESSION = [None]          # the session get_session() made or set_session() set
_SETTINGS = {"epsilon": 1e-7, "floatx": "float32", "image_data_format": "channels_last"}


class KerasState:
    """What keras keeps per graph: name counts, the learning phase, its variables and
    the record of layer calls (for ``tf.keras.Model`` to replay) and the masks layers
    gave their outputs."""

    def __init__(self):
        self.uids, self.phase, self.fixed_phase = {}, None, None
        self.variables, self.calls, self.inputs, self.masks = [], {}, {}, {}


def state():
    """The keras state of the default graph (made on first use)."""
    graph = _t.get_default_graph()
    found = _STATES.get(graph)
    if found is None:
        found = _STATES[graph] = KerasState()
    return found


def mask_of(tensor):
    """The keras mask a layer gave ``tensor`` (boolean, [batch, time]), or None."""
    found = state().masks.get(id(tensor))
    return found[1] if found is not None and found[0] is tensor else None


def set_mask(tensor, mask):
    """Record ``mask`` as ``tensor``'s keras mask (None: it has none)."""
    if mask is None:
        state().masks.pop(id(tensor), None)
    else:
        state().masks[id(tensor)] = (tensor, mask)   # (kept, so that the id stays its own)


def snake_case(name):
    """Keras's default layer name of a class name: ``MaxPooling2D`` -> ``max_pooling2d``."""
    name = re.sub(r"(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower()


def get_uid(prefix=""):
    """``K.get_uid``: 1, 2, ... per ``prefix`` in the default graph."""
    uids = state().uids
    uids[prefix] = uids.get(prefix, 0) + 1
    return uids[prefix]


def unique_object_name(prefix, zero_based=True):
    """``prefix``, then ``prefix_1``, ``prefix_2``... (``prefix_1`` first if not
    ``zero_based``, as keras names its inputs ``input_1``)."""
    n = get_uid(prefix) - (1 if zero_based else 0)
    return prefix if n == 0 else f"{prefix}_{n}"


def reset_uids():
    state().uids.clear()


def learning_phase():
    """``K.learning_phase()``: a boolean scalar tensor, False unless fed, or the 0/1
    that ``set_learning_phase`` fixed."""
    found = state()
    if found.fixed_phase is not None:
        return found.fixed_phase
    if found.phase is None:
        graph = _t.get_default_graph()
        with graph.absolute_scope(""):
            found.phase = _t.identity(constant(np.bool_(False)), name="keras_learning_phase")
    return found.phase


def set_learning_phase(value):
    """``K.set_learning_phase(0 or 1)``: later layers use that phase."""
    if value not in (0, 1):
        raise ValueError(f"set_learning_phase: expected 0 (test) or 1 (train), got {value!r}")
    state().fixed_phase = int(value)


def training_value(training):
    """A layer's ``training`` argument as ``tf.layers`` takes it: a bool or a boolean
    tensor (the learning phase when None)."""
    if training is None:
        training = learning_phase()
    if isinstance(training, (int, np.integer, np.bool_)):
        return bool(training)
    return training


def track_variable(variable):
    """Note a variable a keras layer made (``get_session`` initialises it)."""
    state().variables.append(variable)


def get_session():
    """``K.get_session()``: the default session, else keras's own; the keras variables no
    session has initialised yet are initialised in it first (TF1 keras)."""
    graph = _t.get_default_graph()
    sessions = [s for s in DEFAULT_SESSIONS if s.graph is graph]
    session = sessions[-1] if sessions else _SESSION[0]
    if session is None or session.graph is not graph or session._closed:
        session = _SESSION[0] = Session(graph=graph)
    fresh = [v for v in state().variables if not getattr(v, "keras_initialized", False)]
    for v in fresh:
        v.keras_initialized = True
        if v in session._initialized:
            continue
        if initialized_anywhere(v):
            # another session set it: this one takes a copy of that value (TF would give
            # this session the initial value instead)
            session.mark_initialized(v)
        else:
            session.run(v.initializer)
    return session


def set_session(session):
    """``K.set_session(sess)``: the session ``get_session`` gives outside ``with`` blocks."""
    _SESSION[0] = session


def clear_session():
    """``K.clear_session()``: a new default graph, names counted afresh."""
    _SESSION[0] = None
    _t.reset_default_graph()


def epsilon():
    return _SETTINGS["epsilon"]


def set_epsilon(value):
    _SETTINGS["epsilon"] = float(value)


def floatx():
    return _SETTINGS["floatx"]


def set_floatx(value):
    if value not in ("float16", "float32", "float64"):
        raise ValueError(f"set_floatx: {value!r}; use 'float16', 'float32' or 'float64'")
    _SETTINGS["floatx"] = value


def image_data_format():
    return _SETTINGS["image_data_format"]


def set_image_data_format(data_format):
    """``K.set_image_data_format``: the default ``data_format`` of the image layers made
    afterwards."""
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError(f"set_image_data_format: {data_format!r}; use 'channels_last' or "
                         "'channels_first'")
    _SETTINGS["image_data_format"] = data_format


def get_value(x):
    """``K.get_value``: a variable's value in ``get_session()``."""
    return get_session().run(x)


def batch_get_value(tensors):
    return get_session().run(list(tensors)) if tensors else []


def set_value(x, value):
    """``K.set_value``: assign ``value`` to variable ``x`` in ``get_session()``."""
    batch_set_value([(x, value)])


def batch_set_value(pairs):
    session = get_session()
    for x, value in pairs:
        value = np.asarray(value, dtype=x.dtype)
        if value.shape != tuple(x.shape):
            raise ValueError(f"set_value: {x.name!r} has shape {tuple(x.shape)}, the value "
                             f"has shape {value.shape}")
        x.load(value, session)


def int_shape(x):
    """``K.int_shape``: the static shape, None for unknown sizes."""
    shape = _t.as_tensor(x).shape
    return None if shape is None else tuple(d if isinstance(d, int) else None for d in shape)


def cast_to_floatx(x):
    return np.asarray(x, dtype=floatx())


def variable(value, dtype=None, name=None, constraint=None):
    """``K.variable``: a trainable variable, initialised by ``get_session``."""
    v = Variable(np.asarray(value, dtype=tf_dtype_arg(dtype) or floatx()), name=name,
                 constraint=constraint)
    track_variable(v)
    return v


class Function:
    """``K.function(inputs, outputs)``: ``f(values)`` runs ``outputs`` in ``get_session()``
    with ``inputs`` fed (a learning phase among the inputs takes 0 or 1)."""

    def __init__(self, inputs, outputs, updates=None, name=None, **kwargs):
        self.inputs, self.outputs = list(inputs), outputs
        self.updates = list(updates or [])

    def __call__(self, inputs):
        if len(inputs) != len(self.inputs):
            raise ValueError(f"K.function: {len(self.inputs)} inputs expected, got "
                             f"{len(inputs)}")
        feed = {k: v for k, v in zip(self.inputs, inputs) if not isinstance(k, int)}
        fetches = list(self.outputs) if isinstance(self.outputs, (list, tuple)) else \
            [self.outputs]
        found = get_session().run(fetches + self.updates, feed)
        return found[:len(fetches)]


def function(inputs, outputs, updates=None, name=None, **kwargs):
    return Function(inputs, outputs, updates, name, **kwargs)
