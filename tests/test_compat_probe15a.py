"""What the fifteenth differential probe (a) found in TF1 reinforcement-learning code
(OpenAI baselines' deepq, a2c and ppo2; spinningup's ppo, trpo and sac; Morvan Zhou's
DQN, policy-gradient, A3C and DDPG tutorials; Arthur Juliani's "Simple RL" agents;
TRFL-style value ops), written as those sources write them at small sizes, against
real TensorFlow 2.21 (compat.v1, v2 behaviour disabled).  The numbers are TF 2.21's."""
import numpy as np
import pytest

import symgrad.compat.v1 as tf


def test_squeeze_of_named_axes_whose_size_is_known_only_at_run_time():
    # Morvan's A3C: tf.squeeze(normal_dist.sample(1), axis=[0, 1]) with mu of shape
    # [None, 1]: the batch axis is squeezed though its size is unknown when built
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [1, None, 1])
        y = tf.squeeze(x, axis=[0, 1])
        z = tf.squeeze(x, [1])
        assert y.get_shape().as_list() == [1] and z.get_shape().as_list() == [1, 1]
        g = tf.gradients(tf.reduce_sum(y * 3.), x)[0]
        with tf.Session() as sess:
            vy, vz, vg = sess.run([y, z, g], {x: [[[2.]]]})
            assert vy.tolist() == [2.] and vz.tolist() == [[2.]] and vg.tolist() == [[[3.]]]
            # TF: "Can not squeeze dim[1], expected a dimension of 1, got 3"
            for t in (y, z):
                with pytest.raises(tf.errors.InvalidArgumentError):
                    sess.run(t, {x: np.ones((1, 3, 1))})
        with pytest.raises(ValueError):
            tf.squeeze(tf.placeholder(tf.float32, [2, None]), axis=[0])


def test_categorical_probs_mode_event_size_and_batch_shapes():
    # policies read pd.probs, pd.mode() (greedy action), pd.batch_shape, pd.event_size
    with tf.Graph().as_default():
        logits = tf.placeholder(tf.float32, [None, 3])
        cat = tf.distributions.Categorical(logits=logits)
        catp = tf.distributions.Categorical(probs=[[0.2, 0.5, 0.3]])
        norm = tf.distributions.Normal(tf.placeholder(tf.float32, [None, 2]), [1.0, 2.0])
        assert cat.batch_shape.as_list() == [None] and cat.event_shape.as_list() == []
        assert norm.batch_shape.as_list() == [None, 2] and norm.event_shape.as_list() == []
        assert catp.batch_shape.as_list() == [1]
        assert cat.mode().dtype == tf.int32 and cat.mode().get_shape().as_list() == [None]
        assert cat.probs.get_shape().as_list() == [None, 3] and cat.event_size.dtype == tf.int32
        g = tf.gradients(tf.reduce_sum(cat.probs * [1., 2., 3.]), logits)[0]
        with tf.Session() as sess:
            probs, mode, size, batch, pp, pl, pm, vg = sess.run(
                [cat.probs, cat.mode(), cat.event_size, cat.batch_shape_tensor(), catp.probs,
                 catp.logits, catp.mode(), g], {logits: [[1., 2., 0.5], [0., 0., -1.]]})
        np.testing.assert_allclose(probs, [[0.23122391, 0.6285317, 0.14024438],
                                           [0.42231882, 0.42231882, 0.15536243]], rtol=1e-6)
        assert mode.tolist() == [1, 0] and mode.dtype == np.int32   # ties: the first
        assert size == 3 and batch.tolist() == [2]
        np.testing.assert_allclose(pp, [[0.2, 0.5, 0.3]])
        np.testing.assert_allclose(pl, [[-1.609438, -0.6931472, -1.2039728]], rtol=1e-6)
        assert pm.tolist() == [1]
        np.testing.assert_allclose(vg, [[-0.21018726, 0.05718355, 0.15300375],
                                        [-0.30957812, 0.11274068, 0.19683741]], rtol=1e-5)


def test_shapes_of_dirichlet_gamma_and_categorical_of_unknown_classes():
    with tf.Graph().as_default():
        c = tf.placeholder(tf.float32, [None, 3])
        u = tf.placeholder(tf.float32, [None, None])
        d = tf.distributions.Dirichlet(c)
        cat = tf.distributions.Categorical(logits=u)
        gam = tf.distributions.Gamma(tf.ones([2, 1]), tf.ones([3]))
        assert (d.batch_shape.as_list(), d.event_shape.as_list()) == ([None], [3])
        assert (gam.batch_shape.as_list(), gam.event_shape.as_list()) == ([2, 3], [])
        with tf.Session() as sess:
            got = sess.run([d.batch_shape_tensor(), d.event_shape_tensor(), cat.event_size,
                            gam.batch_shape_tensor(), gam.event_shape_tensor()],
                           {c: np.ones((5, 3)), u: np.zeros((2, 4))})
        assert [np.asarray(v).tolist() for v in got] == [[5], [3], 4, [2, 3], []]


def test_layers_take_an_initializer_given_as_none_from_get_variable():
    # Juliani's A3C: tf.layers.dense(rnn_out, 1, ..., bias_initializer=None): TF's bias
    # is then get_variable's default (the scope's initializer, else Glorot uniform),
    # not zeros; the kernel's None is the scope's initializer too
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3])
        with tf.variable_scope("s", initializer=tf.constant_initializer(0.5)):
            tf.layers.dense(x, 4, bias_initializer=None, name="d")
            tf.layers.conv2d(tf.zeros([1, 4, 4, 2]), 3, 2, bias_initializer=None)
            tf.layers.dense(x, 2, name="zeros_by_default")
        tf.layers.dense(x, 4, bias_initializer=None, name="glorot")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got = {v.op.name: sess.run(v) for v in tf.global_variables()}
        for name in ("s/d/kernel", "s/d/bias", "s/conv2d/kernel", "s/conv2d/bias",
                     "s/zeros_by_default/kernel"):
            assert (got[name] == 0.5).all(), name
        assert (got["s/zeros_by_default/bias"] == 0).all()
        bias = got["glorot/bias"]   # Glorot uniform over (4,): |b| < sqrt(6 / 8)
        assert bias.shape == (4,) and (bias != 0).all() and (abs(bias) < 0.8661).all()
