"""What the eleventh differential probe (hunkim's DeepLearningZeroToAll, nfmcclure's
TensorFlow Machine Learning Cookbook) found, against real TensorFlow 2.21 (compat.v1,
v2 behaviour disabled).  The numbers are TF 2.21's."""
import numpy as np
import pytest

import symgrad.compat.v1 as tf


def _siamese(net):
    # the cookbook's Siamese address matcher: the same net on two inputs, the second
    # call in the reused scope (scope.reuse_variables())
    x1 = tf.constant(np.linspace(-1, 1, 12).reshape(2, 2, 3), tf.float32)
    with tf.variable_scope("siamese", initializer=tf.glorot_uniform_initializer(seed=3)) as scope:
        o1 = net(x1)
        scope.reuse_variables()
        o2 = net(x1 * 0.5)
    return o1, o2


def test_static_bidirectional_rnn_reuses_its_variables_in_a_reused_scope():
    # static_bidirectional_rnn opened default_name="bidirectional_rnn", a fresh
    # bidirectional_rnn_1 on the second call, whose variables did not exist
    def net(x):
        fw, bw = tf.nn.rnn_cell.BasicLSTMCell(2), tf.nn.rnn_cell.BasicLSTMCell(2)
        out, _, _ = tf.nn.static_bidirectional_rnn(fw, bw, tf.unstack(x, axis=1),
                                                   dtype=tf.float32)
        return out[-1]
    with tf.Graph().as_default():
        o1, o2 = _siamese(net)
        assert [v.name for v in tf.global_variables()] == [
            "siamese/bidirectional_rnn/fw/basic_lstm_cell/kernel:0",
            "siamese/bidirectional_rnn/fw/basic_lstm_cell/bias:0",
            "siamese/bidirectional_rnn/bw/basic_lstm_cell/kernel:0",
            "siamese/bidirectional_rnn/bw/basic_lstm_cell/bias:0"]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            first, second = sess.run([o1, o2])
    # TF 2.21
    np.testing.assert_allclose(first, [[-0.2286846, 0.1855832, -0.0727375, 0.0784446],
                                       [0.0265135, -0.0536024, 0.024816, -0.0493106]],
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(second, [[-0.1009539, 0.091218, -0.0334019, 0.0359671],
                                        [0.0233192, -0.0355014, 0.0219053, -0.0327233]],
                               rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("kind", ["static", "dynamic", "bidirectional"])
def test_rnn_scope_is_a_name_not_a_default_name(kind):
    # TF opens `scope or "rnn"`: reused as is in a reused scope, and a second rnn in
    # the same scope without reuse is TF's "already exists" error, not a fresh rnn_1
    def net(x):
        cell = tf.nn.rnn_cell.BasicLSTMCell(2)
        if kind == "static":
            return tf.nn.static_rnn(cell, tf.unstack(x, axis=1), dtype=tf.float32)[0][-1]
        if kind == "dynamic":
            return tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)[0]
        return tf.nn.bidirectional_dynamic_rnn(cell, tf.nn.rnn_cell.BasicLSTMCell(2), x,
                                               dtype=tf.float32)[0][0]
    prefix = "siamese/bidirectional_rnn/fw" if kind == "bidirectional" else "siamese/rnn"
    with tf.Graph().as_default():
        _siamese(net)
        assert tf.global_variables()[0].name == f"{prefix}/basic_lstm_cell/kernel:0"
        with tf.variable_scope("other"):
            net(tf.ones([1, 2, 3]))
            with pytest.raises(ValueError, match="already exists"):
                net(tf.ones([1, 2, 3]))
