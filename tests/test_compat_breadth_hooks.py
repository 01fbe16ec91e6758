"""tf.train.SecondOrStepTimer, SummarySaverHook, GlobalStepWaiterHook and
assert_global_step.  The expected sequences were printed by TensorFlow 2.21
(``tensorflow.compat.v1``) running the same programs."""
import glob

import numpy as np
import pytest

import symgrad.compat.v1 as tf
from symgrad.compat.summary import read_events

# (step, should_trigger, last_triggered_step) and, after each trigger, the steps since
# the last one; then last_triggered_step() after reset()
TF_TIMER = [(0, True, None), None, (0, False, 0), (1, False, 0), (2, False, 0), (3, True, 0),
            3, (3, False, 3), (4, False, 3), (6, True, 3), 3, (7, False, 6), (9, True, 6), 3,
            (10, False, 9), (20, True, 9), 11, None]

# TF's event file: the steps and losses SummarySaverHook(save_steps=2) wrote in 5 runs
TF_EVENTS = [(1, 1.0), (3, 0.4096), (5, 0.16777)]


def test_second_or_step_timer_matches_tf():
    timer = tf.train.SecondOrStepTimer(every_steps=3)
    out = []
    for s in [0, 0, 1, 2, 3, 3, 4, 6, 7, 9, 10, 20]:
        due = timer.should_trigger_for_step(s)
        out.append((s, due, timer.last_triggered_step()))
        if due:
            out.append(timer.update_last_triggered_step(s)[1])
    timer.reset()
    out.append(timer.last_triggered_step())
    assert out == TF_TIMER


def test_second_or_step_timer_needs_exactly_one_period():
    with pytest.raises(ValueError, match="exactly one"):
        tf.train.SecondOrStepTimer()
    with pytest.raises(ValueError, match="exactly one"):
        tf.train.SecondOrStepTimer(every_secs=1.0, every_steps=2)


def test_summary_saver_hook_writes_tf_steps_and_values(tmp_path):
    gs = tf.train.get_or_create_global_step()
    w = tf.Variable(1.0)
    loss = w * w
    tf.summary.scalar("loss", loss)
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=gs)
    hook = tf.train.SummarySaverHook(save_steps=2, output_dir=str(tmp_path),
                                     summary_op=tf.summary.merge_all())
    with tf.train.MonitoredSession(hooks=[hook]) as sess:
        for _ in range(5):
            sess.run(train)
    (path,) = glob.glob(str(tmp_path / "events*"))
    got = [(step, values["loss"]) for step, values in read_events(path)]
    assert [s for s, _ in got] == [s for s, _ in TF_EVENTS]
    np.testing.assert_allclose([v for _, v in got], [v for _, v in TF_EVENTS], rtol=1e-4)


def test_summary_saver_hook_arguments_as_tf():
    with pytest.raises(ValueError, match="exactly one of scaffold or summary_op"):
        tf.train.SummarySaverHook(save_steps=1, output_dir="/tmp/x")
    with pytest.raises(ValueError, match="output_dir or summary_writer"):
        tf.train.SummarySaverHook(save_steps=1, summary_op=tf.constant(1.0))


def test_global_step_waiter_hook_does_not_block_one_process():
    gs = tf.train.get_or_create_global_step()
    step = tf.assign_add(gs, 1)
    with tf.train.MonitoredSession(hooks=[tf.train.GlobalStepWaiterHook(5)]) as sess:
        assert sess.run(step) == 1


def test_assert_global_step():
    tf.train.assert_global_step(tf.train.get_or_create_global_step())
    with pytest.raises(TypeError, match="integer"):
        tf.train.assert_global_step(tf.Variable(0.0))
    with pytest.raises(TypeError, match="scalar"):
        tf.train.assert_global_step(tf.Variable([0, 1]))
