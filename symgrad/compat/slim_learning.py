"""``slim.learning``: ``create_train_op`` and the ``train`` loop.

``create_train_op(total_loss, optimizer)`` returns a tensor whose value is the loss and
whose running makes one optimizer step: the update ops (``tf.GraphKeys.UPDATE_OPS``,
e.g. ``slim.batch_norm``'s moving averages) run first, then the gradients of the loss
with respect to ``variables_to_train`` (the trainable variables), optionally scaled by
``gradient_multipliers`` ({variable or its name: factor}) and clipped to norm
``clip_gradient_norm``, are applied and the global step (made if missing) counts one;
``summarize_gradients`` adds each gradient's histogram and norm to the summaries.
With ``check_numerics`` a NaN or Inf loss is an InvalidArgumentError.

``train(train_op, logdir, number_of_steps=n)`` runs ``train_step`` until the global step
reaches ``n`` (or an input's end) in a ``tf.train.Supervisor`` session (restoring the
latest checkpoint of ``logdir`` if there is one, else initializing and calling
``init_fn``), saves a checkpoint in ``logdir`` at the end and returns the last loss.
symgrad differs: TF's background summary and checkpoint threads are not run.

Imports the compat variables, debugging, logging and Supervisor.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     w = tf.Variable(3.0)
...     op = create_train_op(tf.square(w), tf.train.GradientDescentOptimizer(0.25))
...     with tf.Session() as sess:
...         _ = sess.run(tf.global_variables_initializer())
...         print(sess.run(op), sess.run(w), sess.run(tf.train.get_global_step()))
9.0 1.5 1
"""
from __future__ import annotations

import numpy as np

from .. import tracing as _t
from . import errors, tf_logging
from . import summary as _summary
from . import variables as _v
from .debugging import check_numerics as _check_numerics
from .python_ops import py_func
from .state import Operation
from .supervisor import Supervisor
from .variables import GraphKeys

_USE_GLOBAL_STEP = object()
_USE_DEFAULT = 0


def clip_gradient_norms(gradients_to_variables, max_norm):
    """Each gradient clipped to Euclidean norm ``max_norm``."""
    return [(None if g is None else _t.clip_by_norm(g, max_norm), v)
            for g, v in gradients_to_variables]


def multiply_gradients(grads_and_vars, gradient_multipliers):
    """Each gradient whose variable (or its name) is in ``gradient_multipliers`` times
    its factor."""
    if not isinstance(grads_and_vars, list):
        raise ValueError("multiply_gradients: grads_and_vars must be a list")
    if not isinstance(gradient_multipliers, dict) or not gradient_multipliers:
        raise ValueError("multiply_gradients: gradient_multipliers must be a non-empty dict")
    out = []
    for g, v in grads_and_vars:
        keys = [k for k in gradient_multipliers
                if k is v or k == v.name.split(":")[0] or k == v.name]
        if keys:
            if g is None:
                raise ValueError(f"Requested multiple of `None` gradient ({v.name})")
            g = g * _t.cast(gradient_multipliers[keys[0]], g.dtype)
        out.append((g, v))
    return out


def add_gradients_summaries(grads_and_vars):
    """A histogram ``<var>/gradient`` and a scalar ``<var>/gradient_norm`` summary of each
    gradient; the summaries made."""
    made = []
    for g, v in grads_and_vars:
        if g is None:
            tf_logging.info("Var %s has no gradient", v.name.split(":")[0])
            continue
        g = g.values if hasattr(g, "indices") else g
        name = v.name.split(":")[0]
        made.append(_summary.histogram(name + "/gradient", g))
        made.append(_summary.scalar(name + "/gradient_norm", _t.global_norm([g])))
    return made


def _after(ops, tensor, name=None):
    """``tensor``'s value, computed once ``ops`` have run (TF's ``with_dependencies``)."""
    with _v.control_dependencies(list(ops)):
        return _t.identity(tensor, name=name)


def loss_before(step, total_loss):
    """A tensor that runs ``step`` and has the value ``total_loss`` had just before it.

    TF's train op is ``identity(total_loss)`` waiting for the step, and TF computes the
    loss once, before the step changes the variables; symgrad's session computes a tensor
    after what it waits for, so the loss is read by an operation the step waits for and
    handed to the result (one run at a time, as Session.run runs)."""
    held = {}

    def keep(values, session):
        held["loss"] = values[0]
    record = Operation("record_loss", inputs=[total_loss], effect=keep,
                       graph=total_loss.graph)
    step.control_inputs.append(record)

    def give():
        return np.asarray(held.pop("loss"), dtype=total_loss.dtype)
    with _v.control_dependencies([step]):
        out = py_func(give, [], total_loss.dtype, name="control_dependency")
    out.set_shape(total_loss.shape)
    return out


def _after_updates(total_loss, update_ops):
    """The loss computed after the update ops (default: ``tf.GraphKeys.UPDATE_OPS``)."""
    update_ops = _v.get_collection(GraphKeys.UPDATE_OPS) if update_ops is None \
        else list(update_ops)
    if not update_ops:
        return total_loss
    with _v.control_dependencies(update_ops):
        barrier = _v.no_op(name="update_barrier")
    return _after([barrier], total_loss)


def create_train_op(total_loss, optimizer, global_step=_USE_GLOBAL_STEP, update_ops=None,
                    variables_to_train=None, clip_gradient_norm=0, summarize_gradients=False,
                    gate_gradients=1, aggregation_method=None,
                    colocate_gradients_with_ops=False, gradient_multipliers=None,
                    check_numerics=True):
    """The loss tensor whose run makes one training step (module docstring)."""
    if global_step is _USE_GLOBAL_STEP:
        global_step = _v.get_or_create_global_step()
    total_loss = _after_updates(total_loss, update_ops)
    variables = _v.trainable_variables() if variables_to_train is None \
        else list(variables_to_train)
    if not variables:
        raise ValueError("create_train_op: there are no variables to train (make them "
                         "trainable, or pass variables_to_train)")
    grads = optimizer.compute_gradients(total_loss, variables,
                                        aggregation_method=aggregation_method)
    if gradient_multipliers:
        grads = multiply_gradients(grads, gradient_multipliers)
    if clip_gradient_norm > 0:
        grads = clip_gradient_norms(grads, clip_gradient_norm)
    if summarize_gradients:
        with _t.get_default_graph().name_scope("summarize_grads"):
            add_gradients_summaries(grads)
    step = optimizer.apply_gradients(grads, global_step=global_step)
    with _t.get_default_graph().name_scope("train_op"):
        if check_numerics:
            total_loss = _check_numerics(total_loss, "LossTensor is inf or nan")
        train_op = loss_before(step, total_loss)
    if not any(t is train_op for t in _v.get_collection(GraphKeys.TRAIN_OP)):
        _v.add_to_collection(GraphKeys.TRAIN_OP, train_op)
    return train_op


def train_step(sess, train_op, global_step, train_step_kwargs):
    """One step: ``(loss, should_stop)`` (``train_step_kwargs`` may hold the boolean
    tensors ``should_stop`` and ``should_log``, as ``train`` makes them)."""
    total_loss, np_global_step = sess.run([train_op, global_step])
    if "should_log" in train_step_kwargs and sess.run(train_step_kwargs["should_log"]):
        tf_logging.info("global step %d: loss = %.4f", np_global_step, total_loss)
    should_stop = bool(sess.run(train_step_kwargs["should_stop"])) \
        if "should_stop" in train_step_kwargs else False
    return total_loss, should_stop


def _step_kwargs(global_step, number_of_steps, log_every_n_steps):
    kwargs = {}
    if number_of_steps is not None:
        if number_of_steps <= 0:
            raise ValueError("train: number_of_steps must be positive (or None)")
        kwargs["should_stop"] = _t.greater_equal(global_step, _t.cast(number_of_steps,
                                                                        global_step.dtype))
    if log_every_n_steps > 0:
        kwargs["should_log"] = _t.equal(global_step % _t.cast(log_every_n_steps,
                                                              global_step.dtype), 0)
    return kwargs


def train(train_op, logdir, train_step_fn=train_step, train_step_kwargs=_USE_DEFAULT,
          log_every_n_steps=1, graph=None, master="", is_chief=True, global_step=None,
          number_of_steps=None, init_op=_USE_DEFAULT, init_feed_dict=None,
          local_init_op=_USE_DEFAULT, init_fn=None, ready_op=_USE_DEFAULT,
          summary_op=_USE_DEFAULT, save_summaries_secs=600, summary_writer=_USE_DEFAULT,
          startup_delay_steps=0, saver=None, save_interval_secs=600, sync_optimizer=None,
          session_config=None, session_wrapper=None, trace_every_n_steps=None,
          ignore_live_threads=False):
    """Run ``train_step_fn`` until it says stop (module docstring); the last loss."""
    if train_op is None:
        raise ValueError("train: train_op cannot be None")
    if sync_optimizer is not None:
        raise ValueError("slim.learning.train: sync_optimizer (synchronous replicas) is not "
                         "supported; symgrad trains in one process, so leave it out")
    global_step = global_step if global_step is not None else _v.get_global_step()
    if global_step is None:
        raise ValueError("train: there is no global step (create_train_op makes one)")
    if train_step_kwargs is _USE_DEFAULT:
        train_step_kwargs = _step_kwargs(global_step, number_of_steps, log_every_n_steps)
    sv = Supervisor(graph=graph, is_chief=is_chief, logdir=logdir, init_op=init_op,
                    init_feed_dict=init_feed_dict, local_init_op=local_init_op,
                    summary_op=summary_op, summary_writer=summary_writer,
                    global_step=global_step, saver=_USE_DEFAULT if saver is None else saver,
                    save_model_secs=0, init_fn=init_fn)
    total_loss = None
    with sv.managed_session(master, config=session_config) as sess:
        if session_wrapper is not None:
            sess = session_wrapper(sess)
        try:
            while not sv.should_stop():
                total_loss, should_stop = train_step_fn(sess, train_op, global_step,
                                                        train_step_kwargs)
                if should_stop:
                    sv.request_stop()
                    break
        except errors.OutOfRangeError:   # an input's end: a clean stop, as in TF
            tf_logging.info("Caught OutOfRangeError. Stopping Training.")
        if logdir and is_chief and sv.saver is not None:
            sv.saver.save(sess, sv.save_path, global_step=int(sess.run(global_step)))
    return total_loss
