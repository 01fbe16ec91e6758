"""What the tenth differential probe (b) of TF1 programs found: reinforcement learning
(MorvanZhou's actor-critic and DQN, awjuliani's dueling DQN), GANs (wiseodd's WGAN)
and the like, against real TensorFlow 2.21 (compat.v1, v2 behaviour disabled).  The
numbers are TF 2.21's."""
import numpy as np

import symgrad.compat.v1 as tf


def test_an_index_fed_through_a_placeholder_of_any_shape():
    # MorvanZhou's actor: a = tf.placeholder(tf.int32, None); tf.log(acts_prob[0, a])
    # raised a TypeError (len() of an unknown shape)
    with tf.Graph().as_default():
        probs = tf.constant([[0.2, 0.5, 0.3]])
        a = tf.placeholder(tf.int32, None, "act")
        picked = probs[0, a]
        g = tf.gradients(tf.log(picked), probs)[0]
        assert picked.get_shape().as_list() == []
        value, grad = tf.Session().run([picked, g], {a: 1})
    assert value == np.float32(0.5)                       # TF 2.21: 0.5, [[0, 2, 0]]
    np.testing.assert_array_equal(grad, [[0.0, 2.0, 0.0]])


def test_variable_value_called_as_tf1_does():
    # awjuliani's updateTargetGraph: t.assign(e.value() * tau + (1 - tau) * t.value());
    # v.value is symgrad's array, so calling it raised "ndarray is not callable"
    with tf.Graph().as_default():
        v = tf.Variable([1.0, 3.0])
        t = tf.Variable([0.0, 0.0])
        up = t.assign(v.value() * 0.5 + (1 - 0.5) * t.value())
        assert v.value() is v
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(up)
            first, second = sess.run(t), sess.run(up)
    np.testing.assert_array_equal(first, [0.5, 1.5])      # TF 2.21
    np.testing.assert_array_equal(second, [0.75, 2.25])
    assert type(first) is np.ndarray and type(v.value * 2) is np.ndarray


def test_seeded_draws_with_tensor_parameters():
    # wiseodd's xavier_init: tf.random_normal(shape, stddev=1. / tf.sqrt(in_dim / 2.))
    with tf.Graph().as_default():
        n = tf.constant(8.0)
        z = tf.random_normal([2, 3], mean=tf.constant(1.0), stddev=1. / tf.sqrt(n / 2.),
                             seed=1)
        u = tf.random_uniform([3], minval=tf.constant(-1.0), maxval=tf.constant(2.0),
                              seed=2)
        z_value, u_value = tf.Session().run([z, u])
    # TF 2.21
    np.testing.assert_allclose(z_value, [[0.5943409, 1.7422993, 1.0326647],
                                         [-0.2213521, 1.0496242, 1.2956121]], rtol=1e-6)
    np.testing.assert_allclose(u_value, [1.0362396, 1.1424527, 0.4094508], rtol=1e-6)


def test_a_clip_fetched_beside_the_step_does_not_undo_the_step():
    # wiseodd's WGAN: sess.run([D_solver, D_loss, clip_D]).  symgrad acted in fetch
    # order with the clip's value read before the step, so the clip overwrote the step
    # and the critic never learned.  TF's order is a race of its scheduler: across runs
    # TF 2.21 gave either clip(p - g) = [1, -0.74927, -1] (the step, then the clip) or
    # clip(p) - g = [0.79684, -0.74927, -1.27211] (the clip, then the step), never
    # clip(p) = [1, -0.5, -1]; symgrad acts the cheaper operation (the clip) first
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [2, 3])
        h = x
        for _ in range(4):
            h = tf.tanh(tf.matmul(h, tf.constant(np.eye(3, dtype=np.float32) * 0.5 + 0.1)))
        p = tf.Variable([3.0, -0.5, -2.0])
        train = tf.train.GradientDescentOptimizer(1.0).minimize(
            tf.reduce_sum(p * tf.reduce_mean(h, 0)))
        clip = p.assign(tf.clip_by_value(p, -1.0, 1.0))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run([train, clip], {x: [[1., 2., 3.], [-1., 0.5, 2.]]})
            np.testing.assert_allclose(sess.run(p), [0.79684, -0.74927, -1.27211],
                                       rtol=1e-4)
