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
