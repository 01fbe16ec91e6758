"""TF1's control flow signatures on symgrad's: ``tf.cond``, ``tf.while_loop``, ``tf.map_fn``, ``tf.scan``.

TF1 differences from ``sg.*``: ``tf.cond`` also takes the old ``fn1``/``fn2``
names and ``strict`` (without it, branches returning one-element lists give the
element, as in TF1) and branches may return dicts; ``tf.while_loop`` unwraps a lone loop var
(``return_same_structure=False``) and turns Python numbers into float32/int32
tensors, as every TF1 constant does.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     i = tf.constant(0)
...     r = tf.while_loop(lambda i: tf.less(i, 10), lambda i: tf.add(i, 1), [i])
...     with tf.Session() as sess:
...         print(sess.run(r))
10
"""
from __future__ import annotations

import numpy as np

from .. import control as _control
from ..control.function import flatten
from ..control.function import trace as _trace
from ..control.vectorize import map_rows as _map_rows
from ..errors import ArgumentError
from ..graph import Node
from ..ops.deferred import scalar_by_contract, unknown_rank
from ..tracing import constant, get_default_graph
from . import cond_updates as _cond_updates
from .control_checks import check_shape_invariants, recorded as _recorded, \
    structured as _structured, tf_branches, tf_tensor as _tf_tensor
from .state import state_of
from .variables import GraphKeys
from .tensor import as_tf1
from .tensor_array import TensorArray, as_loop_vars

__all__ = ["cond", "case", "while_loop", "map_fn", "scan"]


def _tf_structure(values):
    flat, structure = flatten(values)
    return structure([_tf_tensor(v) for v in flat])


def _pure(fn, what, recorder=None):
    """``fn``, refusing to make an operation that changes a variable: symgrad's branches
    and loop bodies are functions of their inputs, traced once, so an update made in
    one (``tf.assign_add`` under ``control_dependencies``, batch norm's moving averages)
    would never run -- a silently different program.  With a ``recorder`` (a cond's
    branch), assigns are recorded instead, to be lifted out (``cond_updates``), and the
    traced function returns ``(out, recorder)``."""
    if fn is None or not callable(fn):
        return fn
    state = state_of(get_default_graph())

    def traced(*args, **kwargs):
        for arg in flatten([args, kwargs])[0]:   # (the body's loop vars, map_fn's rows:
            as_tf1(arg)                         # TF1 tensors, x.shape.as_list() and all)
        before = len(state.operations)
        inner = state_of(get_default_graph())   # (the branch's or body's own graph)
        waits = len(inner.control_of)
        owned = _variable_count(state)
        out = fn(*args, **kwargs)
        made = [op for op in list(state.operations.values())[before:] if op.effect is not None]
        waited = [op for ops in list(inner.control_of.values())[waits:] for op in ops
                  if _changes_state(op)]
        # (lifted: assigns the outputs wait for, all of them; an assign nothing waits
        # for would not run in TF either, and stays refused)
        # (a branch making variables, ema.apply's shadows, is not traced twice: refused)
        if recorder is not None and made and all(_cond_updates.liftable(op) for op in made) \
                and set().union(*(_effects(op) for op in waited)) == set(made) \
                and _variable_count(state) == owned \
                and not _cond_updates.reads_updated(out, made):
            for op in made:   # (never run as they are: their values leave the branch)
                state.operations.pop(op.name, None)
            local = _cond_updates.Recorder()
            local.ops = made
            recorder.ops += made
            return out, local
        if made:
            raise ArgumentError(
                f"{what} makes {made[0].name!r}, an operation that changes a variable; "
                "symgrad traces it as a function of its inputs, so the change would never "
                "run.  Compute the new value inside and assign it outside, e.g. "
                "v.assign(tf.cond(p, lambda: v + 1.0, lambda: v)); for moving averages, "
                "make ema.apply(...) outside, run it with the training step "
                "(tf.group(train_op, ema_apply_op)) and let the branch pick the values")
        if waited:
            raise ArgumentError(
                f"{what} uses tf.control_dependencies on {waited[0].name!r}, an operation "
                "that changes variables; inside a branch or loop body it would never run.  "
                "Run it outside, with the training step: e.g. tf.group(train_op, "
                "ema_apply_op), and let the branch only pick values")
        return (out, _cond_updates.Recorder()) if recorder is not None else out
    return traced


def _variable_count(state):
    return sum(len(state.collection(key)) for key in
               (GraphKeys.GLOBAL_VARIABLES, GraphKeys.LOCAL_VARIABLES))


def _effects(op, seen=None):
    """The operations with an effect that running ``op`` runs (itself, its control inputs)."""
    seen = set() if seen is None else seen
    if id(op) in seen:
        return set()
    seen.add(id(op))
    found = {op} if op.effect is not None else set()
    for o in op.control_inputs:
        found |= _effects(o, seen)
    return found


def _changes_state(op, seen=None):
    seen = set() if seen is None else seen
    if id(op) in seen:
        return False
    seen.add(id(op))
    return op.effect is not None or any(_changes_state(o, seen) for o in op.control_inputs)


def cond(pred, true_fn=None, false_fn=None, strict=False, name=None, fn1=None, fn2=None):
    """``tf.cond``: only the branch taken runs; its gradient flows, the other's gets zeros."""
    true_fn = true_fn if true_fn is not None else fn1
    false_fn = false_fn if false_fn is not None else fn2
    true_fn, false_fn = tf_branches(true_fn, false_fn)
    if isinstance(pred, (bool, np.bool_)):   # TF1 refuses it (tf.cond(i % 2 == 0, ...)
        # compares the tensor itself: False, and the false branch always, had it run)
        raise TypeError("'pred' must not be a Python bool. tf.cond takes a boolean tensor: "
                        "compare tensors with tf.equal, tf.less, ... (== and != between "
                        "tensors compare the objects in TF1); for a Python bool, call the "
                        "branch you want yourself")
    # (TF1's is_training = tf.placeholder(tf.bool) has any shape; pred is a scalar; a
    # predicate or branches of unknown rank are recorded by control.cond itself)
    pred = pred if unknown_rank(pred) and "call" in pred.attrs else scalar_by_contract(pred)
    out = _cond_lifting(pred, true_fn, false_fn, name)
    if not strict and isinstance(out, (list, tuple)) and len(out) == 1:
        return out[0]   # (TF1 unpacks a branch's one-element list unless strict=True)
    return out


def _cond_lifting(pred, true_fn, false_fn, name):
    """``control.cond`` of the branches, their variable updates lifted out of them
    (``cond_updates``): traced once to find what they assign, again to return it."""
    if not (callable(true_fn) and callable(false_fn)):
        return _control.cond(pred, true_fn, false_fn, name=name)
    recorder = _cond_updates.Recorder()
    first = [_pure(fn, f"cond({side})", recorder)
             for fn, side in ((true_fn, "true_fn"), (false_fn, "false_fn"))]
    out = _control.cond(pred, *[_first_only(fn) for fn in first], name=name)
    variables = recorder.variables()
    if not variables:
        return out
    again = [_cond_updates.with_new_values(
        _pure(fn, f"cond({side})", _cond_updates.Recorder()), variables)
        for fn, side in ((true_fn, "true_fn"), (false_fn, "false_fn"))]
    out, news = _control.cond(pred, *again, name=name)
    return _cond_updates.assign_then(out, variables, news)


def _first_only(traced):
    return lambda *args, **kwargs: traced(*args, **kwargs)[0]


def case(pred_fn_pairs, default=None, exclusive=False, strict=False, name="case"):
    """``tf.case``: the function of the first pair whose predicate holds, else
    ``default``; as nested ``tf.cond``, so only the function chosen runs.  With
    ``exclusive=True`` a run where more than one predicate holds raises TF's
    InvalidArgumentError."""
    pairs = list(pred_fn_pairs.items()) if isinstance(pred_fn_pairs, dict) else \
        list(pred_fn_pairs)
    if not pairs:
        raise ArgumentError("case(pred_fn_pairs): give at least one (predicate, function) pair")
    if exclusive and len(pairs) > 1:
        pairs = _exclusive(pairs)
    if default is None:   # TF: the last pair's function serves as the default
        *pairs, (_, default) = pairs
        if not pairs:
            return default()

    def branch(k):
        if k == len(pairs):
            return default()
        pred, fn = pairs[k]
        return cond(pred, fn, lambda: branch(k + 1))
    return branch(0)


def _exclusive(pairs):
    """``pairs`` whose predicates, when read, first check that at most one holds (TF's
    ``case(exclusive=True)``: InvalidArgumentError at run time otherwise, for the value
    and for its gradient alike, since both read the predicates)."""
    from ..tracing import cast, reduce_sum, stack
    from .debugging import Assert
    from .state import state_of
    preds = [_tf_tensor(p) for p, _ in pairs]
    held = cast(stack(preds), np.int32)
    names = ", ".join(p.name for p in preds)
    check = Assert(reduce_sum(held) <= 1, [f"Input error: exclusive=True: more than 1 "
                                           f"conditions ({names}) evaluated as True:", held])
    with state_of(get_default_graph()).control_dependencies([check]):
        from ..tracing import identity
        return [(identity(p), fn) for p, (_, fn) in zip(preds, pairs)]


def while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10,
               back_prop=True, swap_memory=False, name=None, maximum_iterations=None,
               return_same_structure=False):
    """``tf.while_loop`` with TF1's defaults (a lone loop var comes back unwrapped);
    TensorArrays among the loop vars travel as their stacked tensors.  The result has
    the structure the body returns (TF packs the loop's values in it: loop vars
    ``[i, x]`` and a body returning ``(i + 1, x * 2)`` give a tuple)."""
    cond, body = _pure(cond, "while_loop(cond)"), _recorded(_pure(body, "while_loop(body)"))
    flat, structure = flatten(loop_vars)
    flat = [v if isinstance(v, TensorArray) else _tf_tensor(v) for v in flat]
    single = not isinstance(loop_vars, (list, tuple))
    check_shape_invariants(structure(flat), shape_invariants)
    tensors, rebuild = as_loop_vars(
        flat, lambda vs: body(structure(vs)) if single else body(*structure(vs)))
    if rebuild is None:
        out = _control.while_loop(cond, body, structure(flat), shape_invariants,
                                  parallel_iterations, back_prop, swap_memory,
                                  maximum_iterations, name, True)
    else:
        def arrays_in(fn, out_too):
            def call(*args):
                values = structure(rebuild(flatten(list(args))[0]))
                out = fn(values) if single else fn(*values)
                if not out_too:
                    return out
                done, again = flatten(out)
                return again([o.stack() if isinstance(o, TensorArray) else o for o in done])
            return call
        result = _control.while_loop(arrays_in(cond, False), arrays_in(body, True),
                                     structure(tensors), shape_invariants,
                                     parallel_iterations, back_prop, swap_memory,
                                     maximum_iterations, name, True)
        out = structure(rebuild(flatten(result)[0]))
    if single:
        return out
    made = body.made[0] if isinstance(body.made[0], (list, tuple)) else [body.made[0]]
    out = flatten(made)[1](flatten(out)[0])
    return out if return_same_structure or len(flat) != 1 else out[0]


def map_fn(fn, elems, dtype=None, parallel_iterations=None, back_prop=True, swap_memory=False,
           infer_shape=True, name=None, fn_output_signature=None):
    """``tf.map_fn``: fn applied to each row of elems, results stacked.  fn must return
    the structure of ``dtype`` (or ``fn_output_signature``), or of elems when neither
    is given -- TF's check: a tuple of elems mapped to one tensor needs ``dtype=``."""
    signature = fn_output_signature if fn_output_signature is not None else dtype
    expected = (signature, "dtype") if signature is not None else (elems, "elems")
    return _control.map_fn(_structured(_pure(fn, "map_fn(fn)"), "map_fn", *expected, True),
                           _tf_structure(elems), dtype, parallel_iterations, back_prop,
                           swap_memory, infer_shape, name)


def vectorized_map(fn, elems, fallback_to_while_loop=True, warn=True):
    """``tf.vectorized_map``: ``map_fn``, which runs fn's body over all rows at once when
    its ops allow (``control.vectorize``) and loops over the rows otherwise; with
    ``fallback_to_while_loop=False`` a body that cannot be batched is an error, as TF's."""
    if fallback_to_while_loop:
        return map_fn(fn, elems)
    flat, structure = flatten(_tf_structure(elems))
    graph = flat[0].graph if isinstance(flat[0], Node) else get_default_graph()
    nodes = [v if isinstance(v, Node) else constant(v) for v in flat]
    probe = _trace(graph, "vectorized_map_probe", lambda *rows: _pure(fn, "vectorized_map(fn)")(
        structure(list(rows))), [(e.shape[1:], e.dtype) for e in nodes])
    outs = _map_rows(probe, nodes, graph, True, "vectorized_map")
    if outs is None:
        raise ArgumentError("vectorized_map(fn): fn has an op that cannot run over all rows at "
                            "once (a cond or loop reading the row, a variable made in fn...); "
                            "pass fallback_to_while_loop=True to loop over the rows instead")
    return probe.structure(outs)


def scan(fn, elems, initializer=None, parallel_iterations=10, back_prop=True,
         swap_memory=False, infer_shape=True, reverse=False, name=None):
    """``tf.scan``: the accumulators of ``acc = fn(acc, row)``, stacked; with
    ``reverse=True`` the rows are taken last to first and ``result[i]`` still belongs
    to ``elems[i]`` (TF's): a scan of the flipped rows, flipped back."""
    init = None if initializer is None else _tf_structure(initializer)
    elems = _tf_structure(elems)
    if reverse:
        elems = _flip_rows(elems)
    expected = (elems, "elems") if init is None else (init, "initializer")
    out = _control.scan(_structured(_pure(fn, "scan(fn)"), "scan", *expected), elems, init,
                        parallel_iterations, back_prop, swap_memory, infer_shape, False, name)
    return _flip_rows(out) if reverse else out


def _flip_rows(structure):
    """Every tensor of ``structure`` with its rows (axis 0) in reverse order."""
    from ..tracing import reverse as flip
    leaves, rebuild = flatten(structure)
    return rebuild([flip(x, [0]) for x in leaves])


def foldl(fn, elems, initializer=None, parallel_iterations=10, back_prop=True,
          swap_memory=False, name=None):
    """``tf.foldl``: ``acc = fn(acc, row)`` over the rows of elems, first to last; the
    last accumulator (the first row starts it without an initializer)."""
    return _fold(fn, elems, initializer, "foldl", False, back_prop, name)


def foldr(fn, elems, initializer=None, parallel_iterations=10, back_prop=True,
          swap_memory=False, name=None):
    """``tf.foldr``: as foldl, from the last row to the first."""
    return _fold(fn, elems, initializer, "foldr", True, back_prop, name)


def _fold(fn, elems, initializer, what, reverse, back_prop, name):
    from ..tracing import reverse as flip
    leaves, rebuild = flatten(_tf_structure(elems))
    if reverse:
        leaves = [flip(x, [0]) for x in leaves]
    if initializer is None:
        if any(x.shape[0] == 0 for x in leaves):
            raise ArgumentError(f"{what}: elems is empty and no initializer is given")
        initializer = rebuild([x[0] for x in leaves])
        leaves = [x[1:] for x in leaves]
    accs, back = flatten(scan(fn, rebuild(leaves), initializer, back_prop=back_prop,
                              name=name))
    return back([a[-1] for a in accs])
