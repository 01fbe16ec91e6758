"""``tf.make_template`` and ``tf.train.init_from_checkpoint``: two TF1 ways of reaching
variables made elsewhere.

- ``make_template(name, func, **kwargs)``: a callable that runs ``func`` in a variable
  scope opened at its first call (``name``, made unique as TF does) and re-entered with
  ``reuse=True`` at every later call, so every call shares the first call's variables;
  ``template.variables``/``trainable_variables``, ``variable_scope`` and
  ``variable_scope_name`` as TF's.
- ``init_from_checkpoint(ckpt, assignment_map)``: the initial values of existing
  variables come from a checkpoint ``tf.train.Saver`` wrote (the warm start of BERT's
  fine-tuning scripts), so the next ``global_variables_initializer()`` loads them.
  ``assignment_map`` maps a checkpoint name to a variable (or its name), or a
  checkpoint scope ``"old/"`` (``"/"``: all) to a scope ``"new/"``; a shape mismatch
  or a name found on neither side is TF's ValueError.

Sits in ``compat``; imports ``scopes``, ``variables`` and ``runtime``.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     scale = tf.make_template("scale", lambda x: x * tf.get_variable("w", [], initializer=tf.ones_initializer()))
...     a, b = scale(1.0), scale(2.0)
...     print([v.name for v in tf.global_variables()])
['scale/w:0']
"""
from __future__ import annotations

import numpy as np

from ..graph import Node
from .runtime import CheckpointReader
from .scopes import variable_scope
from .variables import VariableOwner, global_variables

__all__ = ["make_template", "init_from_checkpoint"]


class Template(VariableOwner):
    """What ``make_template`` returns (module docstring)."""

    def __init__(self, name, func, kwargs):
        self._name, self._func, self._kwargs = name, func, kwargs
        self._scope, self._variables = None, []

    def __call__(self, *args, **kwargs):
        return self._making(lambda: self._run(args, kwargs))

    def _run(self, args, kwargs):
        if self._scope is None:
            with variable_scope(None, default_name=self._name) as scope:
                self._scope = scope
                return self._func(*args, **dict(self._kwargs, **kwargs))
        with variable_scope(self._scope, reuse=True):
            return self._func(*args, **dict(self._kwargs, **kwargs))

    @property
    def variable_scope(self):
        return self._scope

    @property
    def variable_scope_name(self):
        """The scope's name with a "/" at the end (TF's, against partial matches)."""
        return None if self._scope is None else self._scope.name.rstrip("/") + "/"

    global_variables = VariableOwner.variables


def make_template(name_, func_, create_scope_now_=False, unique_name_=None,
                  custom_getter_=None, **kwargs):
    """``tf.make_template``: ``func_`` with its variables shared across calls."""
    if custom_getter_ is not None:
        raise ValueError("tf.make_template(custom_getter_=...) is not supported; share the "
                         "variables with tf.variable_scope(..., reuse=tf.AUTO_REUSE)")
    return Template(unique_name_ or name_, func_, kwargs)


def _load(variable, value, ckpt_name):
    if tuple(value.shape) != tuple(variable.shape):
        raise ValueError(f"Shape of variable {variable.name} ({tuple(variable.shape)}) "
                         f"doesn't match with shape of tensor {ckpt_name} "
                         f"({tuple(value.shape)}) from checkpoint reader.")
    variable.initial = np.array(value, dtype=variable.dtype)


def init_from_checkpoint(ckpt_dir_or_file, assignment_map):
    """``tf.train.init_from_checkpoint`` (module docstring)."""
    reader = CheckpointReader(ckpt_dir_or_file)
    saved = reader.get_variable_to_shape_map()
    current = {v.op_name: v for v in global_variables()}
    for source, target in assignment_map.items():
        if isinstance(target, Node) or not (source.endswith("/") or source == "/"):
            if source not in saved:
                raise ValueError(f"Tensor {source} is not found in {ckpt_dir_or_file} "
                                 "checkpoint")
            name = target[:-2] if not isinstance(target, Node) and target.endswith(":0") else target
            variable = target if isinstance(target, Node) else current.get(name)
            if variable is None:
                raise ValueError(f"Tensor {target} is not found in current graph")
            _load(variable, reader.get_tensor(source), source)
            continue
        prefix = "" if source == "/" else source
        into = "" if target == "/" else target
        for name in saved:
            if name.startswith(prefix) and into + name[len(prefix):] in current:
                _load(current[into + name[len(prefix):]], reader.get_tensor(name), name)
