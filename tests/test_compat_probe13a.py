"""What the thirteenth differential probe (a) found in TF1 programs written as popular
standalone repositories write them (dennybritz's cnn-text-classification-tf,
sherjilozair's char-rnn-tensorflow, carpedm20's DCGAN-tensorflow, jmetzen's VAE
notebook, anishathalye's neural-style, lengstrom's fast-style-transfer,
affinelayer's pix2pix-tensorflow, openai/baselines' TF1 utilities, hardmaru's
mixture density network tutorial), against real TensorFlow 2.21 (compat.v1, v2
behaviour disabled).  The numbers are TF 2.21's."""
import numpy as np

import symgrad.compat.v1 as tf


def test_graph_device_and_colocate_blocks_and_graph_seed():
    # neural-style computes its features in
    # ``with g.as_default(), g.device('/cpu:0'), tf.Session() as sess:``
    g = tf.Graph()
    assert g.seed is None
    with g.as_default(), g.device('/cpu:0'), tf.Session():
        image = tf.placeholder('float', shape=(1, 3, 3, 1))
        kernel = tf.constant(np.ones((2, 2, 1, 1), np.float32))
        conv = tf.nn.conv2d(image, kernel, strides=(1, 1, 1, 1), padding='SAME')
        with g.colocate_with(conv.op):
            y = tf.nn.relu(tf.nn.bias_add(conv, np.array([-10.0], np.float32)))
        got = y.eval(feed_dict={image: np.arange(9.0).reshape(1, 3, 3, 1)})
        np.testing.assert_array_equal(got.ravel(), [0, 2, 0, 10, 14, 3, 3, 5, 0])
        tf.set_random_seed(5)
        assert g.seed == 5
