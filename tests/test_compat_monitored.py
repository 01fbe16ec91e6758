"""tf.train.MonitoredTrainingSession and session-run hooks: TF1 training loops in the
guide's form, run with only the import changed."""
import logging

import numpy as np
import pytest

from .tf1_programs import run_tf1


def test_the_guides_loop_ends_with_the_dataset_and_hooks_see_every_run(tmp_path):
    ns = run_tf1("""
        import numpy as np
        import tensorflow as tf
        x = np.arange(40.0, dtype=np.float32).reshape(20, 2)
        batch = tf.data.Dataset.from_tensor_slices(x).batch(6).repeat(2) \\
            .make_one_shot_iterator().get_next()
        w = tf.get_variable("w", [2, 1], initializer=tf.ones_initializer())
        loss = tf.reduce_mean(tf.matmul(batch, w))
        step = tf.train.get_or_create_global_step()
        train_op = tf.train.GradientDescentOptimizer(0.001).minimize(loss, global_step=step)

        class Recorder(tf.train.SessionRunHook):
            def begin(self):
                self.rows, self.ended = [], False
            def before_run(self, run_context):
                return tf.train.SessionRunArgs({"rows": tf.shape(batch)[0]})
            def after_run(self, run_context, run_values):
                self.rows.append(run_values.results["rows"])
            def end(self, session):
                self.ended = True

        recorder, final = Recorder(), tf.train.FinalOpsHook(w)
        runs = 0
        with tf.train.MonitoredTrainingSession(checkpoint_dir=ckpt, hooks=[recorder, final],
                                               save_checkpoint_steps=3) as sess:
            while not sess.should_stop():
                sess.run(train_op)
                runs += 1
        w_trained = final.final_ops_values
        with tf.train.MonitoredTrainingSession(checkpoint_dir=ckpt) as sess:
            restored_step, restored_w = sess.run([step, w])
        """, ckpt=str(tmp_path))
    assert ns["runs"] == 8 and ns["recorder"].rows == [6, 6, 6, 2] * 2
    assert ns["recorder"].ended
    assert ns["restored_step"] == 8
    np.testing.assert_array_equal(ns["restored_w"], ns["w_trained"])
    assert (tmp_path / "checkpoint").exists()


def test_stop_at_step_logging_and_nan_hooks(caplog):
    with caplog.at_level(logging.INFO, logger="tensorflow"):
        ns = run_tf1("""
            import tensorflow as tf
            step = tf.train.get_or_create_global_step()
            v = tf.Variable(1.0)
            bump = tf.group(tf.assign_add(v, 1.0), tf.assign_add(step, 1))
            hooks = [tf.train.StopAtStepHook(last_step=5),
                     tf.train.LoggingTensorHook({"v": v}, every_n_iter=2)]
            with tf.train.MonitoredTrainingSession(hooks=hooks) as sess:
                while not sess.should_stop():
                    sess.run(bump)
                final = sess.run(v)
            nan = tf.log(v - 6.0) * 0.0 + tf.sqrt(-1.0)
            try:
                with tf.train.MonitoredSession(hooks=[tf.train.NanTensorHook(nan)]) as sess:
                    sess.run(v)
                raised = None
            except tf.train.NanLossDuringTrainingError as e:
                raised = str(e)
            """)
    assert ns["final"] == 6.0
    logged = [r.getMessage() for r in caplog.records if r.name == "tensorflow"]
    assert all(m.startswith("v = ") for m in logged) and len(logged) == 3   # runs 0, 2, 4
    assert np.diff([float(m[4:]) for m in logged]).tolist() == [2.0, 2.0]
    assert ns["raised"] == "NaN loss during training."


def test_stop_at_step_needs_a_global_step():
    with pytest.raises(RuntimeError, match="global_step"):
        run_tf1("""
            import tensorflow as tf
            v = tf.Variable(1.0)
            with tf.train.MonitoredTrainingSession(hooks=[tf.train.StopAtStepHook(2)]) as s:
                pass
            """)
