"""TF's internal protocol for ``tf.train.Optimizer`` subclasses (AdamW, LARS, RAdam
written for TF1): ``_create_slots(var_list)``, ``_prepare()``, ``_apply_dense(grad,
var)`` (``_resource_apply_dense``, ``_apply_sparse`` for IndexedSlices) returning update
operations built from ``tf.assign`` and friends, ``_finish(update_ops, name)``; and the
slot helpers they call (``_zeros_slot``, ``_get_or_make_slot``, ``get_slot``,
``_create_non_slot_variable``, ``_get_non_slot_variable``, ``_call_if_callable``).

``apply_gradients`` of such a subclass runs that protocol as TF's does: the slots made
once, ``_prepare``, one update per variable, ``_finish`` (by default a ``tf.group``),
then ``global_step`` incremented after them.  The updates are the subclass's own graph
operations, so a session runs them as it runs any ``tf.assign``.  A subclass of a
built-in optimizer (``tf.train.AdamOptimizer``) that overrides these hooks is refused:
symgrad's built-ins apply TF's formulas in numpy and have no ``_apply_dense`` to extend.

Sits in ``compat``; imports ``variables`` and ``slices``.
"""
from __future__ import annotations

from .scopes import get_variable_scope
from .slices import IndexedSlices, convert_to_tensor
from .variables import Variable, assign_add, control_dependencies, group

HOOKS = ("_apply_dense", "_resource_apply_dense", "_apply_sparse", "_resource_apply_sparse",
         "_prepare", "_finish", "_create_slots")


def gradient_arguments(loss, var_list, gate_gradients):
    """``compute_gradients``' (loss, var_list), each called first when it is a function
    (TF's), after TF's check of ``gate_gradients``."""
    if gate_gradients not in (0, 1, 2):   # GATE_NONE, GATE_OP, GATE_GRAPH
        raise ValueError("gate_gradients must be one of: Optimizer.GATE_NONE, "
                         f"Optimizer.GATE_OP, Optimizer.GATE_GRAPH.  Not {gate_gradients}")
    return (loss() if callable(loss) else loss,
            var_list() if callable(var_list) else var_list)


def user_hooks(optimizer):
    """The TF hooks a class outside symgrad defines on ``optimizer``."""
    found = []
    for cls in type(optimizer).__mro__:
        if cls.__module__.startswith("symgrad."):
            continue
        found += [h for h in HOOKS if h in vars(cls) and h not in found]
    return found


def apply(optimizer, pairs, global_step, name):
    """``apply_gradients`` by TF's protocol (module docstring)."""
    variables = [v for _, v in pairs]
    scope = name or optimizer.get_name()
    with variables[0].graph.as_default():
        if "_create_slots" in user_hooks(optimizer):
            optimizer._create_slots(variables)
        optimizer._prepare()
        try:
            updates = [_apply_one(optimizer, g, v) for g, v in pairs]
        except AttributeError as e:
            if "dtype" not in str(e):
                raise
            raise AttributeError(f"{e}: symgrad's dtypes are numpy's, without TF's DType "
                                 f"attributes; for var.dtype.base_dtype write var.dtype, for "
                                 f".is_floating var.dtype.kind == 'f', for .as_numpy_dtype "
                                 f"var.dtype.type") from e
        finish = optimizer._finish(updates, scope)
        if global_step is None:
            return finish
        with control_dependencies([finish]):
            return assign_add(global_step, 1, name=scope)


def _apply_one(optimizer, g, v):
    kind = type(optimizer)
    if isinstance(g, IndexedSlices):
        for hook in ("_apply_sparse", "_resource_apply_sparse"):
            if hook in user_hooks(optimizer):
                return getattr(optimizer, hook)(g, v) if hook == "_apply_sparse" else \
                    optimizer._resource_apply_sparse(g.values, v, g.indices)
        g = convert_to_tensor(g)
    hook = "_apply_dense" if "_apply_dense" in user_hooks(optimizer) else "_resource_apply_dense"
    if hook not in user_hooks(optimizer):
        raise NotImplementedError(f"{kind.__name__} defines no _apply_dense for the gradient "
                                  f"of {v.name}")
    return getattr(optimizer, hook)(g, v)


def finish(optimizer, update_ops, name_scope):
    """TF's default ``_finish``: one group of the updates."""
    return group(*update_ops, name=name_scope)


def prepare(optimizer):
    """TF's default ``_prepare``: nothing."""


def zeros_slot(optimizer, var, slot_name, op_name):
    """The slot ``slot_name`` of ``var``: zeros shaped like it, named ``var/op_name``."""
    return get_or_make_slot(optimizer, var, var.initial * 0, slot_name, op_name)


def get_or_make_slot(optimizer, var, val, slot_name, op_name):
    """The slot ``slot_name`` of ``var``, made with initial value ``val`` if new."""
    table = optimizer._slots.setdefault(slot_name, {})
    if var not in table:
        with var.graph.as_default(), var.graph.absolute_scope(get_variable_scope().name):
            table[var] = Variable(val, trainable=False, name=f"{var.op_name}/{op_name}",
                                  dtype=var.dtype)
    return table[var]


def get_or_make_slot_with_initializer(optimizer, var, initializer, shape, dtype, slot_name,
                                      op_name):
    """A slot whose initial value comes from ``initializer(shape, dtype)``."""
    return get_or_make_slot(optimizer, var, initializer(list(shape), dtype=dtype), slot_name,
                            op_name)


def create_non_slot_variable(optimizer, initial_value, name, colocate_with=None):
    """A variable of the optimizer (``beta1_power``), one per graph and name."""
    graph = colocate_with.graph if colocate_with is not None else None
    store = optimizer.__dict__.setdefault("_non_slot", {})
    key = (name, graph)
    if key not in store:
        with (graph.as_default() if graph is not None else _nothing()):
            store[key] = Variable(initial_value, trainable=False, name=name)
    return store[key]


def get_non_slot_variable(optimizer, name, graph=None):
    store = optimizer.__dict__.get("_non_slot", {})
    for (found, g), v in store.items():
        if found == name and (graph is None or g is None or g is graph):
            return v
    return None


def call_if_callable(optimizer, param):
    return param() if callable(param) else param


class _nothing:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False
