"""tf.train.Supervisor and basic_train_loop.  The expected outputs were printed by
TensorFlow 2.21 (``tensorflow.compat.v1``) running the same program: train until
step 3 and stop, reopen the logdir (restored or not, by ``save_model_secs``), then run
basic_train_loop for two steps."""
import numpy as np
import pytest

import symgrad.compat.v1 as tf

TF_OUT = {0: [[0.512, -1.024], True, (0, [1.0, -2.0]), [0, 1]],
          600: [[0.512, -1.024], True, (3, [0.512, -1.024]), [3, 4]]}


def _build():
    gs = tf.train.get_or_create_global_step()
    w = tf.Variable([1.0, -2.0], name="w")
    loss = tf.reduce_sum(w * w)
    return gs, w, tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=gs)


def _supervisor(d, secs):
    return tf.train.Supervisor(logdir=d, save_model_secs=secs, save_summaries_secs=0,
                               summary_op=None)


def _program(d, secs):
    out = []
    with tf.Graph().as_default():
        gs, w, train = _build()
        sv = _supervisor(d, secs)
        with sv.managed_session() as sess:
            while not sv.should_stop():
                step, _ = sess.run([gs, train])
                if step >= 3:
                    sv.request_stop()
            out.append([round(float(v), 6) for v in sess.run(w)])
        out.append(sv.should_stop())
    with tf.Graph().as_default():
        gs, w, train = _build()
        with _supervisor(d, secs).managed_session() as sess:
            out.append((int(sess.run(gs)), [round(float(v), 6) for v in sess.run(w)]))
    with tf.Graph().as_default():
        gs, w, train = _build()
        calls, sv = [], _supervisor(d, secs)

        def step_fn(sess):
            calls.append(int(sess.run(gs)))
            sess.run(train)
            if len(calls) == 2:
                sv.request_stop()
        tf.train.basic_train_loop(sv, step_fn)
        out.append(calls)
    return out


@pytest.mark.parametrize("secs", [0, 600])
def test_supervisor_program_matches_tf(tmp_path, secs):
    assert _program(str(tmp_path), secs) == TF_OUT[secs]


def test_managed_session_ends_cleanly_at_a_datasets_end(tmp_path):
    data = tf.data.Dataset.from_tensor_slices(np.arange(3.0)).make_one_shot_iterator()
    x = data.get_next()
    seen = []
    sv = tf.train.Supervisor(logdir=str(tmp_path), summary_op=None)
    with sv.managed_session() as sess:
        while not sv.should_stop():
            seen.append(float(sess.run(x)))
    assert seen == [0.0, 1.0, 2.0] and sv.should_stop()


def test_summary_computed_needs_a_writer():
    sv = tf.train.Supervisor(summary_op=None)
    with sv.managed_session() as sess:
        with pytest.raises(RuntimeError, match="summary writer"):
            sv.summary_computed(sess, b"")
