"""``tf.train``: TF1's optimizers with TF's exact update formulas, and learning-rate decays.

Each optimizer's ``apply_gradients`` builds one operation: when a session runs it,
the gradients (and a learning rate that is a tensor) are read in one snapshot, then
every variable and slot is updated in numpy, in the variable's dtype, by the
formula of TF's ``training_ops`` kernel (quoted beside each); a variable made with a
``constraint`` is then set to ``constraint(variable)``, as TF does.  Slots are TF1
variables named as TF names them (``W/Adam``, ``W/Adam_1``, ``beta1_power``), so
``tf.global_variables_initializer()`` made after ``minimize`` resets them.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     w = tf.Variable(0.0)
...     step = tf.train.GradientDescentOptimizer(0.1).minimize((w - 3.0) ** 2)
...     with tf.Session() as sess:
...         sess.run(tf.global_variables_initializer())
...         _ = sess.run(step)
...         print(sess.run(w))
0.6
"""
from __future__ import annotations

import math

import numpy as np

from .. import tracing as _t
from ..differentiate import gradients as _gradients
from ..graph import Node
from . import optimizer_protocol as _protocol
from . import rows as _rows
from . import in_place as _in_place
from .in_place import fresh as _fresh, plain as _plain, writable as _writable
from .in_place import sole_owner as _sole_owner  # noqa: F401  (tests read it here)
from .row_scatter import rows_at
from .slices import IndexedSlices
from .scopes import get_variable_scope
from .state import Operation, state_of
from .tensor import constant
from .variables import (GraphKeys, Variable, assign, control_dependencies,
                        create_global_step, get_global_step, get_or_create_global_step,
                        group, trainable_variables)


def _constrained(step, variables, graph):
    """``step``, then ``v.assign(v.constraint(v))`` for each variable made with a
    constraint (``tf.Variable(constraint=)``, a keras layer's ``kernel_constraint``), as
    TF1's optimizers project them after the update."""
    owned = [v for v in variables if getattr(v, "constraint", None) is not None]
    if not owned:
        return step
    with graph.as_default(), control_dependencies([step]):
        projections = [assign(v, v.constraint(v)) for v in owned]
    return group(step, *projections, name=f"{step.name}_constrained")


class Optimizer:
    """TF1's ``tf.train.Optimizer``: ``minimize`` = ``compute_gradients`` + ``apply_gradients``.

    Subclasses list their slots as (slot name, initial value) in ``SLOTS`` and write
    ``update(var, g, slots, hyper)`` in numpy; ``finish`` updates non-slot state.
    """

    GATE_NONE, GATE_OP, GATE_GRAPH = 0, 1, 2
    SLOTS = ()

    def __init__(self, use_locking=False, name="Optimizer"):
        self._name, self._use_locking = name, use_locking
        self._slots = {}            # slot name -> {variable: slot variable}
        self._hyper = {}            # hyperparameter name -> float or tensor

    def get_name(self):
        return self._name

    def compute_gradients(self, loss, var_list=None, gate_gradients=GATE_OP,
                          aggregation_method=None, colocate_gradients_with_ops=False,
                          grad_loss=None):
        """[(gradient or None, variable)] for ``var_list`` (default: trainable variables).
        ``loss`` and ``var_list`` may be functions returning them (TF's)."""
        loss, var_list = _protocol.gradient_arguments(loss, var_list, gate_gradients)
        if isinstance(loss, Node) and not loss.is_float:
            raise ValueError(f"Invalid type {loss.dtype.name} for {loss.name}, expected: "
                             "float32, float64")
        var_list = list(var_list) if var_list is not None else trainable_variables()
        if not var_list:
            raise ValueError("No variables to optimize.")
        grads = _rows.gradients(_gradients, loss, var_list, grad_loss, "gradients", False,
                                aggregation_method, None, "none", False)
        return list(zip(grads, var_list))

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        """An operation applying the gradients (and adding 1 to ``global_step``) when run.
        An ``IndexedSlices`` gradient updates the rows it holds as TF's sparse kernels do
        (``update_rows``)."""
        _check_protocol(self)
        pairs = [(g.as_graph_tensor() if hasattr(g, "as_graph_tensor") and
                  not isinstance(g, IndexedSlices) else g, v)
                 for g, v in grads_and_vars if g is not None]
        if not pairs:
            raise ValueError("No gradients provided for any variable: "
                             f"{[v.name for _, v in grads_and_vars]}")
        if _protocol.user_hooks(self) and type(self).update is Optimizer.update:
            return _train_op(_protocol.apply(self, pairs, global_step, name),
                             pairs[0][1].graph)   # TF's _apply_dense
        variables = [v for _, v in pairs]
        graph = variables[0].graph
        with graph.as_default():   # (TF makes beta1_power before the slots)
            self._create_non_slots(variables[0])
            for v in variables:
                self._create_slots(v)
        names = [k for k, h in self._hyper.items() if isinstance(h, Node)]
        inputs = [t for g, _ in pairs for t in
                  ((g.values, g.indices) if isinstance(g, IndexedSlices) else (g,))]
        count = len(inputs)
        inputs += [self._hyper[k] for k in names]

        def effect(values, session):
            hyper = dict(self._hyper, **dict(zip(names, values[count:])))
            read = iter(values[:count])
            for g, v in pairs:
                slots = {s: self._slots[s][v] for s, _ in self.SLOTS}
                typed = _typed(hyper, v.dtype)
                if isinstance(g, IndexedSlices):
                    rows = np.asarray(next(read))
                    self.update_rows(v, rows, np.asarray(next(read)).reshape(-1), slots, typed)
                else:
                    _set(v, self.update(v.value, np.asarray(next(read)), slots, typed))
            self.finish(_typed(hyper, variables[0].dtype))
            if global_step is not None:
                global_step.value = np.array(global_step.value + 1, dtype=global_step.dtype)
        step = Operation(name or self._name, inputs=inputs, effect=effect, graph=graph)
        return _train_op(_constrained(step, variables, graph), graph)

    def minimize(self, loss, global_step=None, var_list=None, gate_gradients=GATE_OP,
                 aggregation_method=None, colocate_gradients_with_ops=False, name=None,
                 grad_loss=None):
        """One training step: an operation that moves ``var_list`` down ``loss``'s gradient."""
        pairs = self.compute_gradients(loss, var_list, grad_loss=grad_loss)
        if all(g is None for g, _ in pairs):
            raise ValueError(
                "No gradients provided for any variable, check your graph for ops that do not "
                f"support gradients, between variables {[v.name for _, v in pairs]} and loss "
                f"{loss!r}.")
        return self.apply_gradients(pairs, global_step=global_step, name=name)

    def _create_slots(self, var):
        for slot, initial in self.SLOTS:
            table = self._slots.setdefault(slot, {})
            if var not in table:
                table[var] = _slot_variable(var, initial, f"{var.op_name}/{self._name}")

    def _create_non_slots(self, var):
        pass

    def get_slot(self, var, name):
        return self._slots.get(name, {}).get(var)

    def get_slot_names(self):
        return sorted(self._slots)

    def variables(self):
        """The slots (and Adam's powers), sorted by name as TF returns them."""
        return sorted(self._own_variables(), key=lambda v: v.name)

    def _own_variables(self):
        return [s for table in self._slots.values() for s in table.values()]

    def update(self, var, g, slots, hyper):
        raise NotImplementedError

    def update_rows(self, var, values, indices, slots, hyper):
        """An IndexedSlices gradient: rows with the same index summed, then ``update`` on
        those rows of the variable and its slots alone (TF's ``sparse_apply_*`` kernels:
        rows not looked up keep their value and their slots)."""
        rows, summed = _deduplicate(values, indices)
        views = {s: _Rows(slot, rows) for s, slot in slots.items()}
        new = self.update(var.value[rows], summed, views, hyper)
        _put_rows(var, rows, new)
        for view in views.values():
            view.write_back()

    def finish(self, hyper):
        pass

    # TF's protected API, for subclasses written to TF's protocol (compat.optimizer_protocol)
    _prepare = _protocol.prepare
    _finish = _protocol.finish
    _zeros_slot = _protocol.zeros_slot
    _get_or_make_slot = _protocol.get_or_make_slot
    _get_or_make_slot_with_initializer = _protocol.get_or_make_slot_with_initializer
    _create_non_slot_variable = _protocol.create_non_slot_variable
    _get_non_slot_variable = _protocol.get_non_slot_variable
    _call_if_callable = _protocol.call_if_callable


def _check_protocol(optimizer):
    """A subclass of a built-in optimizer that overrides TF's internal hooks would have
    them ignored (the built-ins update in numpy): say so, with what works.  A subclass
    of ``tf.train.Optimizer`` itself runs TF's protocol (``compat.optimizer_protocol``)."""
    hooks = _protocol.user_hooks(optimizer)
    if hooks and type(optimizer).update is not Optimizer.update:
        raise NotImplementedError(
            f"{type(optimizer).__name__} overrides {', '.join(hooks)} of a built-in optimizer: "
            "symgrad's built-in optimizers apply TF's update formulas in numpy and have no "
            "_apply_dense to extend. Subclass tf.train.Optimizer itself (TF's protocol: "
            "_create_slots, _prepare, _apply_dense with tf.assign ops), or override "
            "update(var, g, slots, hyper) (numpy)")


def _deduplicate(values, indices):
    """The distinct indices and the sum of the values at each (TF's
    ``_deduplicate_indexed_slices``)."""
    rows, inverse = np.unique(indices, return_inverse=True)
    summed = np.zeros((len(rows),) + values.shape[1:], dtype=values.dtype)
    rows_at(np.add, summed, inverse.reshape(-1), values)
    return rows, summed


def _put_rows(holder, rows, new):
    """``holder.value`` with ``rows`` replaced by ``new`` (:func:`in_place.writable`)."""
    _writable(holder)[rows] = new


class _Rows:
    """Some rows of a slot variable, standing for it in ``update``."""

    def __init__(self, slot, rows):
        self.slot, self.rows, self.dtype = slot, rows, slot.dtype
        self.value = slot.value[rows]

    def write_back(self):
        _put_rows(self.slot, self.rows, self.value)


def _slot_variable(var, initial, name):
    # TF names a slot in the variable scope open at minimize(): train/w/Adam
    with var.graph.absolute_scope(get_variable_scope().name):
        return Variable(np.full(var.shape, initial, dtype=var.dtype), trainable=False,
                        name=name, dtype=var.dtype)


def _typed(hyper, dtype):
    """Hyperparameters as numpy scalars of the variable's dtype (TF casts them so).  TF
    first makes a Python number a float32 tensor, so a float64 variable sees
    ``learning_rate=0.001`` as float32(0.001) = 0.0010000000474974513."""
    return {k: np.asarray(np.float32(v) if _python_number(v) else v, dtype=dtype)
            for k, v in hyper.items()}


def _python_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, (np.generic, bool))


def _set(var, value):
    var.value = value if _fresh(value, var.dtype) else np.array(value, dtype=var.dtype)


def _slot_set(slot, value):
    slot.value = value if _fresh(value, slot.dtype) else np.array(value, dtype=slot.dtype)
    return slot.value


class GradientDescentOptimizer(Optimizer):
    """var -= lr * g."""

    def __init__(self, learning_rate, use_locking=False, name="GradientDescent"):
        super().__init__(use_locking, name)
        self._hyper = {"lr": learning_rate}

    def update(self, var, g, slots, h):
        return var - h["lr"] * g

    def update_rows(self, var, values, indices, slots, h):
        # TF: scatter_sub of lr * values, one row after another (no summing first)
        rows_at(np.subtract, _writable(var), indices, (h["lr"] * values).astype(var.dtype))


class MomentumOptimizer(Optimizer):
    """accum = accum * momentum + g; var -= lr * accum, or with Nesterov
    var -= g * lr + accum * momentum * lr (ApplyMomentum)."""

    SLOTS = (("momentum", 0.0),)

    def __init__(self, learning_rate, momentum, use_locking=False, name="Momentum",
                 use_nesterov=False):
        super().__init__(use_locking, name)
        self._hyper = {"lr": learning_rate, "momentum": momentum}
        self._nesterov = use_nesterov

    def update(self, var, g, slots, h):
        accum = _slot_set(slots["momentum"], slots["momentum"].value * h["momentum"] + g)
        if self._nesterov:
            return var - (g * h["lr"] + accum * h["momentum"] * h["lr"])
        return var - accum * h["lr"]


class AdamOptimizer(Optimizer):
    """lr_t = lr * sqrt(1 - beta2^t) / (1 - beta1^t); m += (g - m)(1 - beta1);
    v += (g^2 - v)(1 - beta2); var -= lr_t * m / (sqrt(v) + epsilon) (ApplyAdam: the
    epsilon is "epsilon hat", added after the square root and not bias-corrected)."""

    SLOTS = (("m", 0.0), ("v", 0.0))

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-08,
                 use_locking=False, name="Adam"):
        super().__init__(use_locking, name)
        self._hyper = {"lr": learning_rate, "beta1": beta1, "beta2": beta2, "epsilon": epsilon}
        self._powers = None

    def _create_non_slots(self, var):
        if self._powers is None:   # (in the name scope open at minimize(), as TF's)
            # (TF: float32 variables for Python betas, cast where used)
            self._powers = [Variable(np.asarray(
                self._hyper[b], np.float32 if _python_number(self._hyper[b]) else var.dtype),
                trainable=False, name=f"{b}_power") for b in ("beta1", "beta2")]

    def _lr_t(self, h):
        """lr * sqrt(1 - beta2^t) / (1 - beta1^t), the powers cast to lr's dtype (TF)."""
        b1p, b2p = (np.asarray(p.value, h["lr"].dtype) for p in self._powers)
        return h["lr"] * np.sqrt(1 - b2p) / (1 - b1p)

    def update(self, var, g, slots, h):
        lr_t = self._lr_t(h)
        if _plain(var, g, slots["m"], slots["v"]):
            return _in_place.adam(var, g, slots["m"], slots["v"], lr_t, h["beta1"], h["beta2"],
                                  h["epsilon"])
        m = _slot_set(slots["m"], slots["m"].value + (g - slots["m"].value) * (1 - h["beta1"]))
        v = _slot_set(slots["v"], slots["v"].value + (g * g - slots["v"].value) * (1 - h["beta2"]))
        return var - lr_t * m / (np.sqrt(v) + h["epsilon"])

    def update_rows(self, var, values, indices, slots, h):
        # TF's _apply_sparse: every row's m and v decay, the rows looked up add their
        # (summed) gradient, and every row moves: m = m * beta1, then scatter_add
        rows, g = _deduplicate(values, indices)
        lr = self._lr_t(h)
        m = _slot_set(slots["m"], slots["m"].value * h["beta1"])
        rows_at(np.add, m, rows, (g * (1 - h["beta1"])).astype(m.dtype))
        v = _slot_set(slots["v"], slots["v"].value * h["beta2"])
        rows_at(np.add, v, rows, ((g * g) * (1 - h["beta2"])).astype(v.dtype))
        _set(var, var.value - lr * m / (np.sqrt(v) + h["epsilon"]))

    def finish(self, h):
        for power, beta in zip(self._powers, (h["beta1"], h["beta2"])):
            _slot_set(power, power.value * beta)

    def _own_variables(self):
        return super()._own_variables() + list(self._powers or [])


class RMSPropOptimizer(Optimizer):
    """ms += (g^2 - ms)(1 - decay); [centered: mg += (g - mg)(1 - decay), ms - mg^2 below]
    mom = mom * momentum + lr * g / sqrt(ms + epsilon); var -= mom (ApplyRMSProp).
    TF1 starts ``ms`` at ones, not zeros."""

    def __init__(self, learning_rate, decay=0.9, momentum=0.0, epsilon=1e-10,
                 use_locking=False, centered=False, name="RMSProp"):
        super().__init__(use_locking, name)
        self._hyper = {"lr": learning_rate, "decay": decay, "momentum": momentum,
                       "epsilon": epsilon}
        self.SLOTS = (("rms", 1.0),) + ((("mg", 0.0),) if centered else ()) + (("momentum", 0.0),)
        self._centered = centered

    def update(self, var, g, slots, h):
        rho = h["decay"]
        ms = _slot_set(slots["rms"], slots["rms"].value + (g * g - slots["rms"].value) * (1 - rho))
        denominator = ms + h["epsilon"]
        if self._centered:
            mg = _slot_set(slots["mg"], slots["mg"].value + (g - slots["mg"].value) * (1 - rho))
            denominator = ms - mg * mg + h["epsilon"]
        mom = _slot_set(slots["momentum"], slots["momentum"].value * h["momentum"]
                        + g * h["lr"] / np.sqrt(denominator))
        return var - mom


class AdagradOptimizer(Optimizer):
    """accum += g^2; var -= lr * g / sqrt(accum), accum starting at 0.1 (ApplyAdagrad)."""

    def __init__(self, learning_rate, initial_accumulator_value=0.1, use_locking=False,
                 name="Adagrad"):
        if initial_accumulator_value <= 0.0:
            raise ValueError("initial_accumulator_value must be positive: "
                             f"{initial_accumulator_value}")
        super().__init__(use_locking, name)
        self._hyper = {"lr": learning_rate}
        self.SLOTS = (("accumulator", initial_accumulator_value),)

    def update(self, var, g, slots, h):
        accum = _slot_set(slots["accumulator"], slots["accumulator"].value + g * g)
        return var - h["lr"] * g / np.sqrt(accum)


class AdadeltaOptimizer(Optimizer):
    """accum = rho accum + (1 - rho) g^2; update = sqrt(accum_update + eps) /
    sqrt(accum + eps) * g; accum_update = rho accum_update + (1 - rho) update^2;
    var -= lr * update (ApplyAdadelta)."""

    SLOTS = (("accum", 0.0), ("accum_update", 0.0))

    def __init__(self, learning_rate=0.001, rho=0.95, epsilon=1e-08, use_locking=False,
                 name="Adadelta"):
        super().__init__(use_locking, name)
        self._hyper = {"lr": learning_rate, "rho": rho, "epsilon": epsilon}

    def update(self, var, g, slots, h):
        rho, eps = h["rho"], h["epsilon"]
        accum = _slot_set(slots["accum"], rho * slots["accum"].value + (1 - rho) * g * g)
        step = np.sqrt(slots["accum_update"].value + eps) / np.sqrt(accum + eps) * g
        _slot_set(slots["accum_update"],
                  rho * slots["accum_update"].value + (1 - rho) * step * step)
        return var - h["lr"] * step


class FtrlOptimizer(Optimizer):
    """FTRL-Proximal (McMahan et al. 2013), TF's ApplyFtrl / ApplyFtrlV2, with p =
    -learning_rate_power: g' = g + 2 l2_shrinkage var; n' = n + g^2;
    z += g' - (n'^p - n^p) / lr * var; var = (l1 sign(z) - z) / (n'^p / lr + 2 l2) where
    |z| > l1, else 0; n = n'.  Slots ``accum`` (n, from initial_accumulator_value) and
    ``linear`` (z); ``beta`` adds beta / (2 lr) to l2, as TF."""

    def __init__(self, learning_rate, learning_rate_power=-0.5, initial_accumulator_value=0.1,
                 l1_regularization_strength=0.0, l2_regularization_strength=0.0,
                 use_locking=False, name="Ftrl", accum_name=None, linear_name=None,
                 l2_shrinkage_regularization_strength=0.0, beta=None):
        for what, value, ok in (
                ("learning_rate_power", learning_rate_power, learning_rate_power <= 0.0),
                ("initial_accumulator_value", initial_accumulator_value,
                 initial_accumulator_value >= 0.0),
                ("l1_regularization_strength", l1_regularization_strength,
                 l1_regularization_strength >= 0.0),
                ("l2_regularization_strength", l2_regularization_strength,
                 l2_regularization_strength >= 0.0),
                ("l2_shrinkage_regularization_strength", l2_shrinkage_regularization_strength,
                 l2_shrinkage_regularization_strength >= 0.0)):
            if not ok:
                sign = "non-positive" if what == "learning_rate_power" else "non-negative"
                raise ValueError(f"FtrlOptimizer: {what}={value} must be {sign}")
        super().__init__(use_locking, name)
        l2 = l2_regularization_strength + (0.0 if beta is None else beta / (2.0 * learning_rate))
        self._hyper = {"lr": learning_rate, "lr_power": learning_rate_power,
                       "l1": l1_regularization_strength, "l2": l2,
                       "l2_shrinkage": l2_shrinkage_regularization_strength}
        self.SLOTS = ((accum_name or "accum", initial_accumulator_value),
                      (linear_name or "linear", 0.0))

    def update(self, var, g, slots, h):
        accum_slot, linear_slot = (slots[name] for name, _ in self.SLOTS)
        accum = accum_slot.value
        shrunk = g + 2 * h["l2_shrinkage"] * var if h["l2_shrinkage"] > 0 else g
        new_accum = accum + g * g
        powered = _ftrl_power(new_accum, h["lr_power"])
        linear = _slot_set(linear_slot, linear_slot.value + shrunk
                           - (powered - _ftrl_power(accum, h["lr_power"])) / h["lr"] * var)
        x = h["l1"] * np.sign(linear) - linear
        y = powered / h["lr"] + 2 * h["l2"]
        _slot_set(accum_slot, new_accum)
        return np.where(np.abs(linear) > h["l1"], x / y, np.zeros_like(var))


def _ftrl_power(accum, lr_power):
    # TF's kernel takes sqrt for the usual -0.5 and pow otherwise (the roundings differ)
    return np.sqrt(accum) if lr_power == -0.5 else accum ** -lr_power


def _train_op(op, graph):
    """``op``, added to the graph's TRAIN_OP collection as TF1's apply_gradients adds it
    (``tf.get_collection(tf.GraphKeys.TRAIN_OP)`` in scripts and hooks)."""
    state = state_of(graph)
    if not any(t is op for t in state.collection(GraphKeys.TRAIN_OP)):
        state.add_to_collection(GraphKeys.TRAIN_OP, op)
    return op
