"""``slim.metrics`` and ``slim.evaluation``: TF-Slim's evaluation scripts.

- ``slim.metrics.streaming_accuracy(predictions, labels)`` and the other
  ``streaming_*`` functions are ``tf.metrics``' functions with the predictions first
  (contrib's order): each gives ``(value, update_op)`` over local variables;
  ``aggregate_metric_map({name: (value, update)})`` splits them into two dicts.
- ``slim.evaluation.evaluate_once(master, checkpoint_path, logdir, num_evals,
  eval_op=..., final_op=...)``: a session whose variables are initialized and then
  restored from the checkpoint (local variables initialized), runs ``initial_op``, then
  ``eval_op`` ``num_evals`` times, writes the summaries (``summary_op``, default all)
  to ``logdir`` and returns the value of ``final_op``.  ``evaluation_loop`` does that
  for each new checkpoint of a directory, every ``eval_interval_secs``, until
  ``max_number_of_evaluations`` or ``timeout``.

Imports the compat metrics, runtime (Saver, checkpoints), session, summary, variables.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     acc, update = streaming_accuracy(tf.constant([1, 2, 2]), tf.constant([1, 2, 0]))
...     with tf.Session() as sess:
...         _ = sess.run(tf.local_variables_initializer())
...         _ = sess.run(update)
...         print(round(float(sess.run(acc)), 4))
0.6667
"""
from __future__ import annotations

import time

from . import metrics as _m
from . import metrics_at_k as _k
from . import summary as _summary
from . import variables as _v
from .runtime import Saver, latest_checkpoint
from .session import Session

_USE_DEFAULT = 0


def _swapped(metric):
    """``metric(labels, predictions, ...)`` taken as contrib's ``f(predictions, labels, ...)``."""
    def streaming(predictions, labels, *args, **kwargs):
        return metric(labels, predictions, *args, **kwargs)
    streaming.__name__ = f"streaming_{metric.__name__}"
    streaming.__doc__ = f"``tf.metrics.{metric.__name__}`` with the predictions first."
    return streaming


streaming_accuracy = _swapped(_m.accuracy)
streaming_mean_squared_error = _swapped(_m.mean_squared_error)
streaming_mean_absolute_error = _swapped(_m.mean_absolute_error)
streaming_root_mean_squared_error = _swapped(_m.root_mean_squared_error)
streaming_precision = _swapped(_m.precision)
streaming_recall = _swapped(_m.recall)
streaming_auc = _swapped(_m.auc)
streaming_mean_iou = _swapped(_m.mean_iou)
streaming_sparse_recall_at_k = _swapped(_k.recall_at_k)
streaming_mean = _m.mean

METRICS = ("streaming_accuracy", "streaming_mean", "streaming_mean_squared_error",
           "streaming_mean_absolute_error", "streaming_root_mean_squared_error",
           "streaming_precision", "streaming_recall", "streaming_auc", "streaming_mean_iou",
           "streaming_sparse_recall_at_k", "aggregate_metrics", "aggregate_metric_map")


def aggregate_metrics(*value_update_tuples):
    """([values], [updates]) of the (value, update) pairs."""
    if not value_update_tuples:
        raise ValueError("aggregate_metrics: expected at least one (value, update_op) pair")
    values, updates = zip(*value_update_tuples)
    return list(values), list(updates)


def aggregate_metric_map(names_to_tuples):
    """({name: value}, {name: update}) of ``{name: (value, update)}``."""
    names = list(names_to_tuples)
    values, updates = zip(*names_to_tuples.values()) if names else ((), ())
    return dict(zip(names, values)), dict(zip(names, updates))


def _write_summaries(sess, summary_op, feed_dict, logdir):
    if summary_op is _USE_DEFAULT:
        summary_op = _summary.merge_all()
    if summary_op is None or not logdir:
        return
    step = _v.get_global_step()
    writer = _summary.FileWriter(logdir)
    writer.add_summary(sess.run(summary_op, feed_dict),
                       int(sess.run(step)) if step is not None else None)
    writer.flush()


def evaluate_once(master, checkpoint_path, logdir, num_evals=1, initial_op=None,
                  initial_op_feed_dict=None, eval_op=None, eval_op_feed_dict=None,
                  final_op=None, final_op_feed_dict=None, summary_op=_USE_DEFAULT,
                  summary_op_feed_dict=None, variables_to_restore=None, session_config=None,
                  hooks=None):
    """Evaluate the checkpoint ``checkpoint_path`` (module docstring): ``final_op``'s
    value."""
    if hooks:
        raise ValueError("slim.evaluation: hooks are not supported by symgrad; run what "
                         "they would do after evaluate_once returns")
    saver = Saver(variables_to_restore)
    with Session(config=session_config) as sess:
        sess.run(_v.global_variables_initializer())
        saver.restore(sess, checkpoint_path)
        sess.run(_v.local_variables_initializer())
        if initial_op is not None:
            sess.run(initial_op, initial_op_feed_dict)
        if eval_op is not None:
            for _ in range(int(num_evals)):
                sess.run(eval_op, eval_op_feed_dict)
        value = sess.run(final_op, final_op_feed_dict) if final_op is not None else None
        _write_summaries(sess, summary_op, summary_op_feed_dict, logdir)
    return value


def evaluation_loop(master, checkpoint_dir, logdir, num_evals=1, initial_op=None,
                    initial_op_feed_dict=None, init_fn=None, eval_op=None,
                    eval_op_feed_dict=None, final_op=None, final_op_feed_dict=None,
                    summary_op=_USE_DEFAULT, summary_op_feed_dict=None,
                    variables_to_restore=None, eval_interval_secs=60,
                    max_number_of_evaluations=None, session_config=None, timeout=None,
                    timeout_fn=None, hooks=None):
    """``evaluate_once`` for each new checkpoint of ``checkpoint_dir``; the last value."""
    done, value, waited_since = set(), None, time.time()
    while max_number_of_evaluations is None or len(done) < max_number_of_evaluations:
        path = latest_checkpoint(checkpoint_dir)
        if path is None or path in done:
            if timeout is not None and time.time() - waited_since > timeout:
                if timeout_fn is None or timeout_fn():
                    break
            time.sleep(eval_interval_secs)
            continue
        value = evaluate_once(master, path, logdir, num_evals, initial_op,
                              initial_op_feed_dict, eval_op, eval_op_feed_dict, final_op,
                              final_op_feed_dict, summary_op, summary_op_feed_dict,
                              variables_to_restore, session_config, hooks)
        done.add(path)
        waited_since = time.time()
    return value
