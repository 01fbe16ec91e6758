"""TF-Slim's variable functions: ``slim.variable``, ``slim.model_variable`` and the
``get_variables*`` look-ups checkpoint-restoring code relies on.

- ``variable(name, shape, ...)``: ``tf.get_variable`` in the current variable scope,
  in ``collections`` (default the global variables); ``model_variable`` also puts it in
  ``tf.GraphKeys.MODEL_VARIABLES`` (float32 by default).  Both take arg_scope defaults.
- ``get_variables(scope=None, suffix=None, collection=GLOBAL_VARIABLES)``: the members
  whose name matches ``scope`` at its start (a regular expression, as
  ``tf.get_collection``), ending in ``suffix``; ``get_model_variables``,
  ``get_trainable_variables``, ``get_local_variables`` look in those collections;
  ``get_variables_by_name("weights")`` finds ``*/weights:0``;
  ``get_variables_to_restore(include, exclude)`` lists by scopes;
  ``get_unique_variable("a/b")`` the one variable named so.
- ``assign_from_checkpoint_fn(path, var_list, ignore_missing_vars)``: a function of a
  session restoring ``var_list`` from a ``tf.train.Saver`` checkpoint (the fine-tuning
  ``init_fn``); ``assign_from_values_fn({name: value})`` sets variables by name.

Imports the compat scopes, variables and the Saver.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     with tf.variable_scope("net"):
...         w = model_variable("w", [2])
...     print([v.name for v in get_model_variables("net")], get_unique_variable("net/w") is w)
['net/w:0'] True
"""
from __future__ import annotations

import numpy as np

from . import variables as _v
from .arg_scopes import add_arg_scope
from . import tf_logging
from .runtime import CheckpointReader, Saver
from .scopes import VariableScope, get_variable
from .variables import GraphKeys

GLOBAL = GraphKeys.GLOBAL_VARIABLES


@add_arg_scope
def variable(name, shape=None, dtype=None, initializer=None, regularizer=None, trainable=True,
             collections=None, caching_device=None, device=None, partitioner=None,
             custom_getter=None, use_resource=None, synchronization=None, aggregation=None):
    """``tf.get_variable`` made in ``collections`` (default: the global variables)."""
    if custom_getter is not None:
        raise ValueError(f"slim.variable({name!r}): custom_getter is not supported by "
                         "symgrad; call the getter yourself, or use tf.get_variable")
    keys = list(dict.fromkeys(collections if collections is not None else [GLOBAL]))
    return get_variable(name, shape, dtype=dtype, initializer=initializer,
                        regularizer=regularizer, trainable=trainable, collections=keys,
                        partitioner=partitioner)


@add_arg_scope
def model_variable(name, shape=None, dtype=np.float32, initializer=None, regularizer=None,
                   trainable=True, collections=None, caching_device=None, device=None,
                   partitioner=None, custom_getter=None, use_resource=None,
                   synchronization=None, aggregation=None):
    """``variable`` also put in ``tf.GraphKeys.MODEL_VARIABLES``."""
    keys = list(collections or []) + [GLOBAL, GraphKeys.MODEL_VARIABLES]
    return variable(name, shape, dtype, initializer, regularizer, trainable, keys,
                    partitioner=partitioner, custom_getter=custom_getter)


def add_model_variable(var):
    if not any(v is var for v in _v.get_collection(GraphKeys.MODEL_VARIABLES)):
        _v.add_to_collection(GraphKeys.MODEL_VARIABLES, var)


def local_variable(initial_value, validate_shape=True, name=None, use_resource=None):
    """A non-trainable variable in ``tf.GraphKeys.LOCAL_VARIABLES``."""
    return _v.Variable(initial_value, trainable=False, name=name,
                       collections=[GraphKeys.LOCAL_VARIABLES])


def global_variable(initial_value, validate_shape=True, name=None, use_resource=None):
    """A non-trainable variable in the global variables."""
    return _v.Variable(initial_value, trainable=False, name=name, collections=[GLOBAL])


def get_variables(scope=None, suffix=None, collection=GLOBAL):
    """The members of ``collection`` whose names match ``scope`` (from the start) and end
    in ``suffix`` (both regular expressions, as TF-Slim builds them)."""
    if isinstance(scope, VariableScope):
        scope = scope.name
    if suffix is not None:
        if ":" not in suffix:
            suffix += ":"
        scope = (scope or "") + ".*" + suffix
    return _v.get_collection(collection, scope)


def get_model_variables(scope=None, suffix=None):
    return get_variables(scope, suffix, GraphKeys.MODEL_VARIABLES)


def get_local_variables(scope=None, suffix=None):
    return get_variables(scope, suffix, GraphKeys.LOCAL_VARIABLES)


def get_trainable_variables(scope=None, suffix=None):
    return get_variables(scope, suffix, GraphKeys.TRAINABLE_VARIABLES)


def get_variables_by_suffix(suffix, scope=None):
    return get_variables(scope=scope, suffix=suffix)


def get_variables_by_name(given_name, scope=None):
    """The variables whose last name part is ``given_name`` (``.../weights:0``)."""
    return get_variables(scope=scope, suffix=f"/{given_name}:|^{given_name}:")


def get_variables_to_restore(include=None, exclude=None):
    """The global variables under the ``include`` scopes (all if None) and under none of
    the ``exclude`` scopes."""
    for what, value in (("include", include), ("exclude", exclude)):
        if value is not None and not isinstance(value, (list, tuple)):
            raise TypeError(f"get_variables_to_restore: {what} must be a list or tuple of "
                            f"scope names, got {type(value).__name__}")
    found = get_variables() if include is None else \
        [v for scope in include for v in get_variables(scope)]
    dropped = {id(v) for scope in exclude or [] for v in get_variables(scope)}
    return [v for v in found if id(v) not in dropped]


def get_unique_variable(var_op_name):
    """The global variable whose name (without ``:0``) is ``var_op_name``."""
    candidates = get_variables(scope=var_op_name)
    if not candidates:
        raise ValueError(f"Couldn't find variable {var_op_name}")
    for candidate in candidates:
        if candidate.name.split(":")[0] == var_op_name:
            return candidate
    raise ValueError(f"Variable {var_op_name} does not uniquely identify a variable")


def get_variable_full_name(var):
    return var.name.split(":")[0]


def assign_from_checkpoint_fn(model_path, var_list, ignore_missing_vars=False,
                              reshape_variables=False):
    """A function of a session that restores ``var_list`` (a list, or a dict of checkpoint
    names to variables) from the ``tf.train.Saver`` checkpoint ``model_path``; with
    ``ignore_missing_vars`` the variables the checkpoint lacks are left alone (a warning
    names them), as when fine-tuning a network with a new last layer."""
    if not var_list:
        raise ValueError("assign_from_checkpoint_fn: var_list cannot be empty")
    named = dict(var_list) if isinstance(var_list, dict) else \
        {get_variable_full_name(v): v for v in var_list}
    if ignore_missing_vars:
        saved = CheckpointReader(model_path)
        for name in [n for n in named if not saved.has_tensor(n)]:
            tf_logging.warning("Variable %s missing in checkpoint %s", name, model_path)
            del named[name]
    if not named:
        tf_logging.warning("No Variables to restore")
        return None
    saver = Saver(named)

    def callback(session):
        saver.restore(session, model_path)
    return callback


def assign_from_values_fn(var_names_to_values):
    """A function of a session that sets the variables named in the dict (``"a/w"``) to
    the given values."""
    found = {}
    for name, value in var_names_to_values.items():
        candidates = [v for v in _v.get_collection(GLOBAL, name)
                      if get_variable_full_name(v) == name]
        if not candidates:
            raise ValueError(f"Variable {name} wasn't found")
        found[name] = (candidates[0], np.asarray(value))

    def callback(session):
        for var, value in found.values():
            var.load(value.reshape(var.shape), session)
    return callback
