"""Probe 15b: generative models written for TF1 -- DCGAN (carpedm20's ops: deconv by
conv2d_transpose, batch norm by moments and an ExponentialMovingAverage, leaky relu
by maximum, separate optimizers over name-prefixed var_lists), WGAN (clipping) and
WGAN-GP (the gradient penalty, a second-order program), LSGAN, VAEs and conditional
models, pix2pix/CycleGAN pieces (instance norm, reflection padding, nearest-neighbour
upsampling), RealNVP/Glow couplings, PixelCNN masks and spectral norm.

Every expected number, name and exception class below was printed by TensorFlow 2.21
(``tensorflow.compat.v1`` with ``disable_v2_behavior()``) running the same program.
"""
import numpy as np
import pytest

import symgrad.compat.v1 as tf


@pytest.fixture(autouse=True)
def fresh_graph():
    tf.reset_default_graph()
    yield


# -- DCGAN's batch_norm: moments averaged by an EMA inside the layer's variable scope --

def test_ema_of_moments_is_named_inside_the_variable_scope():
    x = tf.placeholder(tf.float32, [4, 3])
    with tf.variable_scope("d"):
        m, v = tf.nn.moments(x, [0])
        ema = tf.train.ExponentialMovingAverage(0.9)
        ema.apply([m, v])
        w = tf.get_variable("w", [3], initializer=tf.ones_initializer())
        ema.apply([w])
    assert ema.average(m).name == "d/d/moments/Squeeze/ExponentialMovingAverage:0"
    assert ema.average(w).name == "d/d/w/ExponentialMovingAverage:0"
    assert ema.average_name(m) == "d/d/moments/Squeeze/ExponentialMovingAverage"
    with tf.variable_scope("e", reuse=tf.AUTO_REUSE):
        m3, _ = tf.nn.moments(x * 2., [0])
        ema.apply([m3])
    assert ema.average(m3).name == "e/e/moments/Squeeze/ExponentialMovingAverage:0"


def test_ema_apply_in_a_reusing_scope_is_tf_s_missing_variable_error():
    # The discriminator called a second time with scope.reuse_variables(): TF's
    # slot for the new moments is a get_variable that must already exist.
    x = tf.placeholder(tf.float32, [4, 3])
    ema = tf.train.ExponentialMovingAverage(0.9)
    with tf.variable_scope("d"):
        ema.apply(list(tf.nn.moments(x, [0])))
    with tf.variable_scope("d", reuse=True):
        m2, _ = tf.nn.moments(x * 2., [0])
        with pytest.raises(ValueError, match="Variable d/d_1/moments/Squeeze/"
                           "ExponentialMovingAverage/ does not exist"):
            ema.apply([m2])


# -- wiseodd's xavier_init: tf.random_normal(shape, stddev=1. / tf.sqrt(in_dim / 2.)) --

def _stats(t, n=1):
    v = tf.Session().run(t)
    return v.dtype.name, v.shape, round(float(v.std()), n), round(float(v.mean()), n)


def test_random_ops_take_float32_tensor_parameters():
    sd = 1. / tf.sqrt(8 / 2.)
    # TF: float32 (2000, 3) 0.5 1.0 / 0.4 0.0 / 0.3 0.0
    assert _stats(tf.random_normal([2000, 3], mean=tf.constant(1.0), stddev=sd)) == \
        ("float32", (2000, 3), 0.5, 1.0)
    assert _stats(tf.truncated_normal([2000, 3], stddev=sd)) == ("float32", (2000, 3), 0.4, 0.0)
    assert _stats(tf.random_uniform([2000, 3], minval=-sd, maxval=sd)) == \
        ("float32", (2000, 3), 0.3, 0.0)
    w = tf.Variable(tf.random_normal(shape=[5, 4], stddev=sd))
    assert w.get_shape().as_list() == [5, 4]


def test_random_ops_refuse_a_parameter_of_another_dtype():
    with pytest.raises(ValueError, match="stddev: Tensor conversion requested dtype float32"):
        tf.random_normal([2, 3], stddev=tf.constant(0.5, tf.float64))
    with pytest.raises(ValueError, match="stddev: Tensor conversion requested dtype float64"):
        tf.random_normal([2, 3], stddev=1. / tf.sqrt(4.), dtype=tf.float64)
    with pytest.raises(TypeError, match="Expected int64, but got 2.0 of type 'float'"):
        tf.random_uniform([2], minval=-3, maxval=2., dtype=tf.int64)


def test_integer_uniform_draws_take_tensor_bounds_and_cover_the_range_evenly():
    v = tf.Session().run(tf.random_uniform([20000], minval=0, maxval=tf.constant(5),
                                           dtype=tf.int32))
    assert v.dtype == np.int32 and (v.min(), v.max()) == (0, 4)      # TF: int32 0 4
    assert np.round(np.bincount(v) / len(v), 1).tolist() == [0.2] * 5
    v = tf.Session().run(tf.random_uniform([20000], minval=-3, maxval=2, dtype=tf.int64))
    assert v.dtype == np.int64 and (v.min(), v.max()) == (-3, 1)     # TF: int64 -3 1
    assert np.round(np.bincount(v + 3) / len(v), 1).tolist() == [0.2] * 5


# -- BEGAN: AE_G, AE_x = tf.split(D(tf.concat([G, x], 0)), 2), both batches fed ---------

def test_split_in_two_of_a_concat_of_two_fed_batches():
    a = tf.placeholder(tf.float32, [None, 3])
    b = tf.placeholder(tf.float32, [None, 3])
    c = tf.concat([a, b], 0) * 2.
    p0, p1 = tf.split(c, 2)
    assert p0.get_shape().as_list() == [None, 3]                  # TF: (?, 3)
    g = tf.gradients(tf.reduce_sum(p0 * 3. + p1), [a, b])
    sess = tf.Session()
    got = sess.run([p0, p1] + g, {a: np.ones((2, 3)), b: np.zeros((2, 3))})
    assert [v.tolist() for v in got] == [[[2.] * 3] * 2, [[0.] * 3] * 2,
                                         [[6.] * 3] * 2, [[2.] * 3] * 2]
    # TF: InvalidArgumentError "Number of ways to split should evenly divide ..."
    with pytest.raises(tf.errors.InvalidArgumentError):
        sess.run(p0, {a: np.ones((2, 3)), b: np.zeros((1, 3))})


# -- carpedm20's deconv2d: tf.reshape(deconv, deconv.get_shape()) -------------------------

def test_a_partially_known_tensorshape_is_no_tensor_argument():
    # TF 2.21's conv2d_transpose leaves the batch unknown when its input's is, so the
    # reshape is TF's ValueError (symgrad reshaped to the unknown size)
    z = tf.placeholder(tf.float32, [None, 5])
    h0 = tf.reshape(tf.matmul(z, tf.ones([5, 64])), [-1, 2, 2, 16])
    d = tf.nn.conv2d_transpose(h0, tf.ones([3, 3, 8, 16]), output_shape=[4, 4, 4, 8],
                               strides=[1, 2, 2, 1])
    assert str(d.get_shape()) == "(?, 4, 4, 8)"
    partial = "Cannot convert a partially known TensorShape"
    with pytest.raises(ValueError, match="Tried to convert 'shape' to a tensor and failed. "
                       "Error: " + partial + r" \(\?, 4, 4, 8\)"):
        tf.reshape(d, d.get_shape())
    with pytest.raises(ValueError, match="'shape'.*" + partial):
        tf.zeros(z.get_shape())
    with pytest.raises(ValueError, match="'shape'.*" + partial):
        tf.random_normal(z.get_shape())
    with pytest.raises(ValueError, match="'dims'.*" + partial):
        tf.fill(tf.TensorShape([2, None]), 1.0)
    with pytest.raises(ValueError, match=partial + r" \(\?, 5\)"):
        tf.convert_to_tensor(z.get_shape())
    with pytest.raises(ValueError, match=partial + " <unknown>"):
        tf.convert_to_tensor(tf.placeholder(tf.float32).get_shape())
    known = tf.convert_to_tensor(tf.TensorShape([2, 3]))
    assert known.dtype == np.int32 and tf.Session().run(known).tolist() == [2, 3]
    assert tf.reshape(z, z.get_shape()[1:]).get_shape().as_list() == [5]


def test_placeholders_take_a_tensor_s_partially_known_shape():
    # CycleGAN's fake_A_sample = tf.placeholder(tf.float32, real_A.get_shape())
    z = tf.placeholder(tf.float32, [None, 4])
    p = tf.placeholder(tf.float32, z.get_shape())
    assert str(p.get_shape()) == "(?, 4)"                           # TF: (?, 4)
    assert tf.Session().run(p * 2., {p: np.ones((3, 4))}).shape == (3, 4)
    # TF: the default need only be compatible with the shape
    d = tf.placeholder_with_default(tf.zeros([2, 4]), [None, 4])
    assert tf.Session().run(d).shape == (2, 4)
    with pytest.raises(ValueError):
        tf.placeholder_with_default(tf.zeros([2, 4]), [3, 4])
