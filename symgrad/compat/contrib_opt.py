"""``tf.contrib.opt.ScipyOptimizerInterface``: a loss minimised by
``scipy.optimize.minimize`` (L-BFGS-B by default), as physics-informed neural networks
and Gaussian-process code of 2017-2019 trained after (or instead of) Adam.

TF1's semantics: the variables (``var_list``, the trainable ones by default) are
packed into one vector, each flattened in order; every evaluation runs the session
with the variables fed those values (nothing is assigned), returning the loss and the
packed gradient (a variable the loss does not reach gets zeros); ``loss_callback``
receives the values of ``fetches`` at each evaluation and ``step_callback`` the packed
vector after each iteration; at the end the variables are assigned the result.
``equalities`` (held at zero) and ``inequalities`` (held non-negative) become scipy's
constraints and ``var_to_bounds`` its bounds.  Options reach scipy unchanged
(``method``, ``options={'maxiter': ...}``); ``jac``, ``callback``, ``constraints`` and
``bounds`` are set here, and passing one is TF's ValueError.  The result's summary goes
to ``tf.logging.info``.  Needs scipy.

Imports numpy, scipy (when minimising), ``compat.variables`` and the gradients.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     x = tf.Variable([1.0, 2.0])
...     opt = tf.contrib.opt.ScipyOptimizerInterface(tf.reduce_sum((x - 3.0) ** 2))
...     with tf.Session() as sess:
...         sess.run(tf.global_variables_initializer())
...         opt.minimize(sess)
...         print(sess.run(x).round(4).tolist())
[3.0, 3.0]
"""
from __future__ import annotations

import logging

import numpy as np

from .. import tracing as _t
from ..differentiate import gradients
from .state import default_session
from .variables import assign, trainable_variables

_SET_HERE = ("jac", "callback", "method", "constraints", "bounds")


class ScipyOptimizerInterface:
    """``tf.contrib.opt.ScipyOptimizerInterface(loss, var_list=None, equalities=None,
    inequalities=None, var_to_bounds=None, **optimizer_kwargs)`` (module docstring)."""

    _DEFAULT_METHOD = "L-BFGS-B"

    def __init__(self, loss, var_list=None, equalities=None, inequalities=None,
                 var_to_bounds=None, **optimizer_kwargs):
        self._loss = loss
        self._vars = trainable_variables() if var_list is None else list(var_list)
        if not self._vars:
            raise ValueError("ScipyOptimizerInterface: no variables to optimize (var_list is "
                             "empty and the graph has no trainable variables)")
        self._equalities, self._inequalities = list(equalities or []), list(inequalities or [])
        for key in _SET_HERE:
            if key in optimizer_kwargs and key != "method":
                raise ValueError("Bounds must be set using the var_to_bounds argument"
                                 if key == "bounds" else
                                 f"Optimizer keyword arg '{key}' is set automatically and "
                                 "cannot be injected manually")
        self.optimizer_kwargs = optimizer_kwargs
        self._packed_bounds = self._bounds(var_to_bounds) if var_to_bounds else None
        self._loss_grad = [loss, self._pack(_grads(loss, self._vars))]
        self._constraint_grads = [self._pack(_grads(c, self._vars))
                                  for c in self._equalities + self._inequalities]
        self._fed_values = [_t.placeholder(v.dtype, tuple(v.shape)) for v in self._vars]
        self._updates = [assign(v, p) for v, p in zip(self._vars, self._fed_values)]
        sizes = [int(np.prod(v.shape, dtype=np.int64)) for v in self._vars]
        ends = np.cumsum(sizes)
        self._slices = [slice(int(e - n), int(e)) for n, e in zip(sizes, ends)]

    def _bounds(self, var_to_bounds):
        low, high = [], []
        for v in self._vars:
            lo, hi = var_to_bounds.get(v, (-np.inf, np.inf))
            low += list(np.broadcast_to(-np.inf if lo is None else lo, v.shape).flat)
            high += list(np.broadcast_to(np.inf if hi is None else hi, v.shape).flat)
        return list(zip(low, high))

    @staticmethod
    def _pack(tensors):
        return _t.concat([_t.reshape(t, (-1,)) for t in tensors], axis=0)

    def _feed(self, x, feed_dict):
        fed = {v: np.reshape(x[s], v.shape).astype(v.dtype)
               for v, s in zip(self._vars, self._slices)}
        fed.update(feed_dict)
        return fed

    def _eval_func(self, tensors, session, feed_dict, fetches, callback=None):
        def evaluate(x):
            values = session.run(list(tensors) + list(fetches), self._feed(x, feed_dict))
            if callback is not None:
                callback(*values[len(tensors):])
            return values[:len(tensors)]
        return evaluate

    def minimize(self, session=None, feed_dict=None, fetches=None, step_callback=None,
                 loss_callback=None, **run_kwargs):
        """Run scipy's minimiser from the variables' values in ``session`` and assign
        the result to them."""
        try:
            import scipy.optimize
        except ImportError:   # (scipy is not a dependency of symgrad itself)
            raise ImportError("tf.contrib.opt.ScipyOptimizerInterface runs scipy.optimize: "
                              "install scipy (pip install scipy, or symgrad[sparse])") from None
        session = session or default_session()
        feed_dict, fetches = feed_dict or {}, list(fetches or [])
        loss_grad = self._eval_func(self._loss_grad, session, feed_dict, fetches,
                                    loss_callback or (lambda *values: None))
        kwargs = dict(jac=True, callback=step_callback, method=self._DEFAULT_METHOD,
                      constraints=self._constraints(session, feed_dict, fetches),
                      bounds=self._packed_bounds)
        kwargs.update(self.optimizer_kwargs)
        if kwargs["method"] == "SLSQP":   # (TF: SLSQP takes no step callback)
            kwargs.pop("callback")
        if not kwargs["constraints"]:
            kwargs.pop("constraints")     # (scipy warns for methods without them)
        initial = np.concatenate([np.ravel(v) for v in session.run(self._vars)])
        result = scipy.optimize.minimize(lambda x: _as_float64(loss_grad(x)), initial,
                                         **kwargs)
        _log(result)
        session.run(self._updates, {p: np.reshape(result.x[s], p.shape).astype(p.dtype)
                                    for p, s in zip(self._fed_values, self._slices)})

    def _constraints(self, session, feed_dict, fetches):
        n_eq, out = len(self._equalities), []
        for i, (c, grad) in enumerate(zip(self._equalities + self._inequalities,
                                          self._constraint_grads)):
            fun = self._eval_func([c], session, feed_dict, fetches)
            jac = self._eval_func([grad], session, feed_dict, fetches)
            out.append({"type": "eq" if i < n_eq else "ineq",
                        "fun": lambda x, f=fun: np.float64(f(x)[0]),
                        "jac": lambda x, j=jac: np.asarray(j(x)[0], np.float64)})
        return out


def _grads(tensor, variables):
    # a variable the tensor does not reach gets zeros (TF's _compute_gradients)
    return [g if g is not None else _t.zeros_like(v)
            for v, g in zip(variables, gradients(tensor, variables))]


def _as_float64(values):
    loss, grad = values
    return np.float64(loss), np.asarray(grad, np.float64)


def _log(result):
    lines, args = ["Optimization terminated with:", "  Message: %s",
                   "  Objective function value: %f"], [result.message, result.fun]
    if hasattr(result, "nit"):
        lines.append("  Number of iterations: %d")
        args.append(result.nit)
    if hasattr(result, "nfev"):
        lines.append("  Number of functions evaluations: %d")
        args.append(result.nfev)
    logging.getLogger("tensorflow").info("\n".join(lines), *args)
