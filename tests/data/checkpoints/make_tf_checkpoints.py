"""Writes the TF-made checkpoints tests/test_compat_checkpoint*.py read (not a test).

Run from this folder with TensorFlow 2.21:
    TF_CPP_MIN_LOG_LEVEL=3 python make_tf_checkpoints.py
Each folder holds what ``tf.compat.v1.train.Saver().save(sess, "<folder>/model.ckpt",
global_step=..., write_meta_graph=False)`` wrote.  The tests build the same graphs with
symgrad: they read these values, and symgrad's own save must give the same bytes.
It also prints the sha256 of a 12,000-tensor index (more than one 256 KiB data block),
which the tests hold as literals instead of the 320 KB file.
"""
import hashlib
import os

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()


def save(folder, step):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        yield sess
        tf.train.Saver().save(sess, f"{folder}/model.ckpt", global_step=step,
                              write_meta_graph=False)


def mixed():
    """Each dtype the tests need, a scope, scalars."""
    tf.Variable(np.array([[1.5, -2.25, 3.0], [0.1, 0.2, 0.3]], np.float32), name="b")
    tf.Variable(np.arange(4, dtype=np.float64) / 3, name="a")
    with tf.variable_scope("layer"):
        tf.Variable(np.array([1, -2, 3], np.int32), name="kernel")
    tf.Variable(7, dtype=tf.int64, name="step")
    tf.Variable(np.array([True, False, True]), name="flag")
    tf.Variable(2.5, name="scalar")
    for _ in save("mixed", 3):
        pass


def bits():
    """Values whose bits matter: nan, inf, -0.0, a denormal, integer extremes, an
    empty tensor, bytes."""
    tf.Variable(np.array([np.nan, np.inf, -0.0, 1e-45], np.float32), name="f32")
    tf.Variable(np.array([[1, -2**31], [2**31 - 1, 0]], np.int32), name="i32")
    tf.Variable(np.array(2**40 + 3, np.int64), name="i64")
    tf.Variable(np.array([-np.inf, 5e-324, np.pi]), name="f64")
    tf.Variable(np.zeros((2, 0), np.float32), name="empty")
    tf.Variable(np.array([0, 255, 7], np.uint8), name="u8")
    for _ in save("bits", 1):
        pass


def adam():
    """Five Adam steps of a linear model: the slots, beta powers and global step."""
    x = tf.constant([[0.0, 1.0], [1.0, 0.5], [2.0, -1.0], [3.0, 0.25]])
    y = tf.constant([[1.0], [2.0], [0.5], [3.0]])
    w = tf.get_variable("w", [2, 1], initializer=tf.constant_initializer([[0.5], [-0.25]]))
    b = tf.get_variable("b", [1], initializer=tf.zeros_initializer())
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
    step = tf.train.get_or_create_global_step()
    train = tf.train.AdamOptimizer(0.1).minimize(loss, global_step=step)
    for sess in save("adam", step):
        for _ in range(5):
            sess.run(train)
        print("adam:", sess.run([w, b, loss] + tf.gradients(loss, [w, b])))


def sliced():
    """A partitioned variable, saved by TF in slices: rows 0-1 and 2-3 of "p"."""
    p = tf.get_variable("p", [4, 2], initializer=tf.zeros_initializer(),
                        partitioner=tf.fixed_size_partitioner(2))
    tf.Variable([1.0, 2.0], name="whole")
    value = np.arange(8, dtype=np.float32).reshape(4, 2) + 0.5
    for sess in save("sliced", 0):
        sess.run([p_i.assign(value[2 * i:2 * i + 2]) for i, p_i in enumerate(p)])


def sharded():
    """Saver(sharded=True) over two CPU devices: two data files."""
    with tf.device("/cpu:0"):
        tf.Variable(np.arange(3, dtype=np.float32), name="a")
    with tf.device("/cpu:1"):
        tf.Variable(np.arange(4, dtype=np.int64), name="b")
        tf.Variable(np.eye(2), name="c")
    os.makedirs("sharded", exist_ok=True)   # (a sharded save does not make it)
    with tf.Session(config=tf.ConfigProto(device_count={"CPU": 2})) as sess:
        sess.run(tf.global_variables_initializer())
        tf.train.Saver(sharded=True).save(sess, "sharded/model.ckpt", global_step=2,
                                          write_meta_graph=False)


def v1():
    """TF's older V1 format (one file at the prefix): dtypes, extremes, a scalar and a
    partitioned variable."""
    tf.Variable(np.array([[1.5, -2.25], [0.1, 3.0]], np.float32), name="f")
    tf.Variable(np.array([-np.inf, 5e-324, np.pi]), name="d")
    tf.Variable(np.array([1, -2, 2**31 - 1, -2**31], np.int32), name="i")
    tf.Variable(np.array(-(2**40) - 3, np.int64), name="step")
    tf.Variable(np.array([True, False]), name="flag")
    tf.Variable(np.array([0, 255], np.uint8), name="u8")
    p = tf.get_variable("p", [4, 2], initializer=tf.zeros_initializer(),
                        partitioner=tf.fixed_size_partitioner(2))
    value = np.arange(8, dtype=np.float32).reshape(4, 2) + 0.5
    os.makedirs("v1", exist_ok=True)   # (a V1 save does not make it)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run([p_i.assign(value[2 * i:2 * i + 2]) for i, p_i in enumerate(p)])
        tf.train.Saver(write_version=tf.train.SaverDef.V1).save(
            sess, "v1/model.ckpt", global_step=1, write_meta_graph=False)


def many():
    n = 12000
    names = [f"layer_{i:05d}/kernel" for i in range(n)]
    tensors = [tf.constant(np.float32(i)) for i in range(n)]
    with tf.Session() as sess:
        sess.run(tf.raw_ops.SaveV2(prefix="/tmp/many_ckpt/m", tensor_names=names,
                                   shape_and_slices=[""] * n, tensors=tensors))
    for suffix in (".index", ".data-00000-of-00001"):
        with open("/tmp/many_ckpt/m" + suffix, "rb") as f:
            print("many", suffix, hashlib.sha256(f.read()).hexdigest())


if __name__ == "__main__":
    np.set_printoptions(precision=9)
    for make in (mixed, bits, adam, sliced, sharded, v1, many):
        with tf.Graph().as_default():
            make()
    print(sorted(os.listdir(".")))
