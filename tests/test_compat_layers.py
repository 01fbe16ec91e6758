"""tf.layers beyond dense: a small convolutional network as TF's tutorials build it,
against numpy (cross-correlation with SAME padding, 2x2 max pooling)."""
import numpy as np

from .tf1_programs import run_tf1

CNN = """
import numpy as np
import tensorflow as tf
x = tf.placeholder(tf.float32, [2, 6, 6, 1])
training = tf.placeholder_with_default(False, shape=[])
h = tf.layers.conv2d(x, filters=3, kernel_size=3, padding="same", activation=tf.nn.relu)
p = tf.layers.max_pooling2d(h, pool_size=2, strides=2)
f = tf.layers.flatten(p)
d = tf.layers.dropout(f, rate=0.5, training=training, seed=1)
logits = tf.layers.dense(d, 2)
names = [v.name for v in tf.trainable_variables()]
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    k, b = sess.run(["conv2d/kernel:0", "conv2d/bias:0"])
    hv, pv, fv, dv = sess.run([h, p, f, d], {x: data})
    dropped = sess.run(d, {x: data, training: True})
"""


def test_small_cnn_matches_numpy():
    data = np.random.default_rng(3).normal(size=(2, 6, 6, 1)).astype(np.float32)
    out = run_tf1(CNN, data=data)
    assert out["names"] == ["conv2d/kernel:0", "conv2d/bias:0", "dense/kernel:0",
                            "dense/bias:0"]
    k = out["k"]
    assert k.shape == (3, 3, 1, 3) and np.abs(k).max() <= np.sqrt(6 / (9 + 27))
    padded = np.pad(data, [(0, 0), (1, 1), (1, 1), (0, 0)])
    conv = np.zeros((2, 6, 6, 3))
    for i in range(6):
        for j in range(6):
            conv[:, i, j, :] = np.tensordot(padded[:, i:i + 3, j:j + 3, :], k, axes=3)
    h = np.maximum(conv + out["b"], 0)
    np.testing.assert_allclose(out["hv"], h, rtol=1e-5, atol=1e-6)
    pooled = h.reshape(2, 3, 2, 3, 2, 3).max(axis=(2, 4))
    np.testing.assert_allclose(out["pv"], pooled, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out["fv"], pooled.reshape(2, 27), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(out["dv"], out["fv"])          # training=False: unchanged
    kept = out["dropped"] != 0
    np.testing.assert_allclose(out["dropped"][kept], 2 * out["fv"][kept], rtol=1e-6)
