"""Round-8 probe: Hands-On ML's recurrent programs (``OutputProjectionWrapper`` and the
other cell wrappers) against TensorFlow 2.21's numbers (compat.v1)."""
import numpy as np
import pytest

import symgrad.compat.v1 as tf


def test_output_projection_wrapper_names_values_and_gradients():
    # Geron ch14's time-series RNN; TF's numbers (its OutputProjectionWrapper as
    # tf.contrib.rnn had it: the cell and a dense layer in the wrapper's scope)
    with tf.Graph().as_default():
        X = tf.placeholder(tf.float32, [None, 3, 1])
        cell = tf.contrib.rnn.OutputProjectionWrapper(tf.contrib.rnn.BasicRNNCell(2),
                                                      output_size=1)
        out, state = tf.nn.dynamic_rnn(cell, X, dtype=tf.float32)
        variables = tf.trainable_variables()
        grads = tf.gradients(tf.reduce_sum(out ** 2), variables)
        assert [v.op.name for v in variables] == [
            "rnn/output_projection_wrapper/basic_rnn_cell/kernel",
            "rnn/output_projection_wrapper/basic_rnn_cell/bias",
            "rnn/output_projection_wrapper/kernel", "rnn/output_projection_wrapper/bias"]
        values = [[[0.5, -0.4], [0.3, 0.2], [-0.1, 0.6]], [0.1, -0.2], [[0.7], [-0.5]], [0.05]]
        with tf.Session() as sess:
            for v, x in zip(variables, values):
                v.load(np.array(x), sess)
            o, s, g = sess.run([out, state, grads], {X: [[[1.], [2.], [-1.]],
                                                         [[0.5], [0.], [3.]]]})
    np.testing.assert_allclose(o[..., 0], [[0.6944595, 1.0749027, 0.0749884],
                                           [0.4754374, 0.3870373, 1.162974]], rtol=2e-6)
    np.testing.assert_allclose(s, [[-0.0564809, -0.1290501], [0.9360215, -0.915518]], rtol=2e-6)
    np.testing.assert_allclose(g[0], [[2.3149638, -2.1717184], [0.5224094, -0.4424945],
                                      [-0.5652574, 0.4813876]], rtol=2e-6)
    np.testing.assert_allclose(g[1], [2.5983334, -2.4083717], rtol=2e-6)
    np.testing.assert_allclose(g[2], [[5.2765627], [-5.3254929]], rtol=2e-6)
    np.testing.assert_allclose(g[3], [7.7395983], rtol=2e-6)


def test_residual_and_device_wrappers():
    with tf.Graph().as_default():
        x = tf.constant([[1.0, -2.0]])
        cell = tf.nn.rnn_cell.BasicRNNCell(2)
        h0 = cell.zero_state(1, tf.float32)
        out, _ = tf.nn.rnn_cell.ResidualWrapper(cell)(x, h0)
        same, _ = tf.nn.rnn_cell.DeviceWrapper(cell, "/cpu:0")(x, h0)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            o, s = sess.run([out, same])
        np.testing.assert_allclose(o, s + [[1.0, -2.0]], rtol=1e-6)
        with pytest.raises(ValueError, match="ResidualWrapper: the cell's input size 2 and "
                                             "output size 3 differ"):
            tf.nn.rnn_cell.ResidualWrapper(tf.nn.rnn_cell.BasicRNNCell(3))(x, tf.zeros([1, 3]))
        with pytest.raises(ValueError, match="output_size must be a positive integer"):
            tf.contrib.rnn.OutputProjectionWrapper(cell, 0)
