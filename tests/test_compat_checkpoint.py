"""tf.train.Saver and the checkpoint readers against checkpoints TensorFlow 2.21 wrote.

The files under tests/data/checkpoints/ were written by TF 2.21's
``tf.compat.v1.train.Saver`` (``make_tf_checkpoints.py`` there).  symgrad builds the
same graphs: it must read TF's values bit for bit, and its own ``save`` must write the
very bytes TF wrote (TF's output is deterministic: the same variables give the same
files).
"""
import filecmp
import os
import shutil

import numpy as np
import pytest

import symgrad.compat.v1 as tf

DATA = os.path.join(os.path.dirname(__file__), "data", "checkpoints")
FILES = ("checkpoint", "model.ckpt-{}.index", "model.ckpt-{}.data-00000-of-00001")


def _mixed_graph():
    """The variables of data/checkpoints/mixed (each dtype, a scope, scalars)."""
    tf.Variable(np.array([[1.5, -2.25, 3.0], [0.1, 0.2, 0.3]], np.float32), name="b")
    tf.Variable(np.arange(4, dtype=np.float64) / 3, name="a")
    with tf.variable_scope("layer"):
        tf.Variable(np.array([1, -2, 3], np.int32), name="kernel")
    tf.Variable(7, dtype=tf.int64, name="step")
    tf.Variable(np.array([True, False, True]), name="flag")
    tf.Variable(2.5, name="scalar")


def _bits_values():
    """The values of data/checkpoints/bits: nan, inf, -0.0, denormals, extremes, empty."""
    return {"f32": np.array([np.nan, np.inf, -0.0, 1e-45], np.float32),
            "i32": np.array([[1, -2**31], [2**31 - 1, 0]], np.int32),
            "i64": np.array(2**40 + 3, np.int64),
            "f64": np.array([-np.inf, 5e-324, np.pi]),
            "empty": np.zeros((2, 0), np.float32),
            "u8": np.array([0, 255, 7], np.uint8)}


def _save_like_tf(tmp_path, monkeypatch, folder, step, make_graph):
    """Save ``make_graph``'s variables as the TF script did: ``folder/model.ckpt``
    relative to the working directory, at ``step``; returns the folder written."""
    monkeypatch.chdir(tmp_path)
    with tf.Graph().as_default():
        make_graph()
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            path = saver.save(sess, f"{folder}/model.ckpt", global_step=step)
    assert path == f"{folder}/model.ckpt-{step}"
    return tmp_path / folder


SLICED = np.arange(8, dtype=np.float32).reshape(4, 2) + 0.5   # data/checkpoints/sliced's "p"


def _sliced_graph(parts=2):
    """data/checkpoints/sliced's variables: "p" in ``parts`` partitions, and "whole"."""
    p = tf.get_variable("p", [4, 2], initializer=tf.constant_initializer(SLICED),
                        partitioner=tf.fixed_size_partitioner(parts) if parts else None)
    return p, tf.Variable([1.0, 2.0], name="whole")


@pytest.mark.parametrize("folder, step, make_graph", [
    ("mixed", 3, _mixed_graph), ("sliced", 0, _sliced_graph),
    ("bits", 1, lambda: [tf.Variable(v, name=n) for n, v in _bits_values().items()])])
def test_save_writes_the_bytes_tf_wrote(tmp_path, monkeypatch, folder, step, make_graph):
    written = _save_like_tf(tmp_path, monkeypatch, folder, step, make_graph)
    assert sorted(os.listdir(written)) == sorted(f.format(step) for f in FILES)   # no .meta
    for name in FILES:
        name = name.format(step)
        assert filecmp.cmp(written / name, os.path.join(DATA, folder, name), shallow=False), name


def test_tf_values_read_bit_for_bit():
    reader = tf.train.load_checkpoint(os.path.join(DATA, "bits"))
    for name, value in _bits_values().items():
        got = reader.get_tensor(name)
        assert got.dtype == value.dtype and got.shape == value.shape
        assert np.asarray(got).tobytes() == value.tobytes(), name
    assert tf.train.list_variables(os.path.join(DATA, "mixed")) == [
        ("a", [4]), ("b", [2, 3]), ("flag", [3]), ("layer/kernel", [3]), ("scalar", []),
        ("step", [])]
    mixed = tf.train.NewCheckpointReader(os.path.join(DATA, "mixed", "model.ckpt-3"))
    assert mixed.get_variable_to_dtype_map() == {
        "a": tf.float64, "b": tf.float32, "flag": tf.bool, "layer/kernel": tf.int32,
        "scalar": tf.float32, "step": tf.int64}
    assert mixed.get_tensor("step") == 7 and isinstance(mixed.get_tensor("step"), np.int64)
    assert mixed.get_tensor("b").tolist() == np.array(
        [[1.5, -2.25, 3.0], [0.1, 0.2, 0.3]], np.float32).tolist()
    assert tf.train.load_variable(os.path.join(DATA, "mixed"), "layer/kernel:0").tolist() == [
        1, -2, 3]


def test_partitioned_variables_restore_from_tfs_slices():
    # TF saved "p" as two slices of one [4, 2] tensor (data/checkpoints/sliced)
    reader = tf.train.load_checkpoint(os.path.join(DATA, "sliced"))
    assert reader.get_variable_to_shape_map() == {"p": [4, 2], "whole": [2]}
    assert reader.get_tensor("p").tolist() == SLICED.tolist()
    for parts in (2, 3, None):   # TF's partitions, others, none: each takes its rows
        with tf.Graph().as_default():
            p, _ = _sliced_graph(parts)
            with tf.Session() as sess:
                tf.train.Saver().restore(sess, tf.train.latest_checkpoint(
                    os.path.join(DATA, "sliced")))
                whole = p.as_tensor() if parts else p
                assert sess.run(whole).tolist() == SLICED.tolist()


def _adam_graph():
    """data/checkpoints/adam's model: a linear fit, five Adam steps in TF."""
    x = tf.constant([[0.0, 1.0], [1.0, 0.5], [2.0, -1.0], [3.0, 0.25]])
    y = tf.constant([[1.0], [2.0], [0.5], [3.0]])
    w = tf.get_variable("w", [2, 1], initializer=tf.constant_initializer([[0.5], [-0.25]]))
    b = tf.get_variable("b", [1], initializer=tf.zeros_initializer())
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
    step = tf.train.get_or_create_global_step()
    tf.train.AdamOptimizer(0.1).minimize(loss, global_step=step)
    return w, b, loss, step


def test_a_model_trained_by_tf_restores_and_gives_tfs_gradients(tmp_path):
    ckpt_dir = tmp_path / "adam"
    shutil.copytree(os.path.join(DATA, "adam"), ckpt_dir)
    with tf.Graph().as_default():
        w, b, loss, step = _adam_graph()
        grads = tf.gradients(loss, [w, b])
        assert [n for n, _ in tf.train.list_variables(str(ckpt_dir))] == sorted(
            v.op.name for v in tf.global_variables())   # the slots' names are TF's
        with tf.Session() as sess:
            assert os.path.exists(ckpt_dir / "model.ckpt-5.index")   # how programs check
            tf.train.Saver().restore(sess, tf.train.latest_checkpoint(str(ckpt_dir)))
            got = sess.run([w, b, step, loss] + grads)
    # TF 2.21 printed: w [[0.87517077] [0.24501693]], b [0.44045883], loss 0.63027257,
    # dloss/dw [[1.3556905] [-1.0047162]], dloss/db [0.34831128]
    assert got[0].ravel().tolist() == np.array([0.87517077, 0.24501693], np.float32).tolist()
    assert got[1].tolist() == np.array([0.44045883], np.float32).tolist() and got[2] == 5
    np.testing.assert_allclose(got[3], 0.63027257, rtol=1e-6)
    np.testing.assert_allclose(got[4].ravel(), [1.3556905, -1.0047162], rtol=1e-6)
    np.testing.assert_allclose(got[5], [0.34831128], rtol=1e-6)


def test_restore_errors_are_tfs(tmp_path):
    prefix = os.path.join(DATA, "mixed", "model.ckpt-3")
    cases = [(lambda: tf.Variable([1.0, 2.0], name="other"), tf.errors.NotFoundError,
              "Key other not found in checkpoint"),
             (lambda: tf.Variable([1.0], name="a"), tf.errors.InvalidArgumentError,
              "expected dtype float does not equal original dtype double"),
             (lambda: tf.Variable([1.0, 2.0], dtype=tf.float64, name="a"),
              tf.errors.InvalidArgumentError, r"lhs shape= \[2\] rhs shape= \[4\]")]
    for make, error, words in cases:
        with tf.Graph().as_default():
            make()
            with tf.Session() as sess, pytest.raises(error, match=words):
                tf.train.Saver().restore(sess, prefix)
    with tf.Graph().as_default():
        tf.Variable(1.0, name="v")
        with tf.Session() as sess, pytest.raises(ValueError, match="not a valid checkpoint"):
            tf.train.Saver().restore(sess, str(tmp_path / "nothing"))
