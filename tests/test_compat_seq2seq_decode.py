"""``tf.contrib.seq2seq``'s decoders (TrainingHelper, GreedyEmbeddingHelper, BasicDecoder,
dynamic_decode) against TF 2.21 running tensorflow_addons 0.23's ``tfa.seq2seq`` (the
port of contrib.seq2seq: TF 2.21 has no contrib) on the same weights.  The numbers are
TF 2.21's."""
import numpy as np

import symgrad.compat.v1 as tf


def _pattern(n, shape, shift=None):
    return np.sin(np.arange(n) * 0.37 + (n if shift is None else shift)).reshape(shape) * 1.5


def test_training_and_greedy_decoding_with_imputed_finished_rows():
    with tf.Graph().as_default():
        emb = tf.constant(_pattern(12, (4, 3)).astype(np.float32))
        cell = tf.nn.rnn_cell.GRUCell(
            3, kernel_initializer=tf.constant_initializer(_pattern(18, (6, 3))))
        proj = tf.layers.Dense(4, use_bias=False,
                               kernel_initializer=tf.constant_initializer(_pattern(12, (3, 4), 0)))
        init = tf.constant([[0.1, -0.2, 0.3], [0.5, 0.0, -0.5]])
        x = tf.nn.embedding_lookup(emb, tf.constant([[1, 2, 3], [3, 0, 0]]))
        s2s = tf.contrib.seq2seq
        out, state, lengths = s2s.dynamic_decode(
            s2s.BasicDecoder(cell, s2s.TrainingHelper(x, tf.constant([3, 1])), init,
                             output_layer=proj))
        greedy = s2s.BasicDecoder(cell, s2s.GreedyEmbeddingHelper(emb, tf.constant([0, 2]), 0),
                                  init, output_layer=proj)
        g_out, g_state, g_lengths = s2s.dynamic_decode(greedy, maximum_iterations=4,
                                                       impute_finished=True)
        grad = tf.gradients(tf.reduce_sum(out.rnn_output), init)[0]
        assert out.rnn_output.shape.as_list() == [2, None, 4]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got = sess.run([out.rnn_output, out.sample_id, state, lengths, grad,
                            g_out.rnn_output, g_out.sample_id, g_state, g_lengths])
    want = [[[[0.785375, 0.682407, 0.487078, 0.225825],
              [1.217403, 0.84865, 0.365036, -0.167983],
              [0.005176, -0.245611, -0.463155, -0.618014]],
             [[-0.188106, 0.292884, 0.734233, 1.076207],
              [0.627487, 0.962329, 1.166925, 1.213583],
              [0.762334, 1.265075, 1.596594, 1.712021]]],
            [[0, 0, 0], [3, 3, 3]],
            [[-0.341273, -0.018431, 0.120741], [0.826279, 0.537417, -0.149401]],
            [3, 1],
            [[5.037487, 5.835473, -0.446369], [5.65317, 6.442914, -4.916842]],
            [[[0.429536, 0.584958, 0.661209, 0.647968], [0.885086, 0.822518, 0.648625, 0.386945],
              [0, 0, 0, 0], [0, 0, 0, 0]],
             [[0.207635, 0.643812, 0.992852, 1.207514], [-0.021227, 0.321833, 0.621334, 0.836741],
              [-0.128943, 0.159755, 0.426831, 0.636138], [-0.200104, 0.046468, 0.28675, 0.488223]]],
            [[2, 0, 0, 0], [3, 3, 3, 3]],
            [[0.403593, 0.508673, 0.462243], [0.111182, -0.074007, -0.330573]],
            [2, 4]]
    for value, expected in zip(got, want):
        np.testing.assert_allclose(value, expected, rtol=2e-5, atol=2e-6)
    assert got[1].dtype == np.int32 and got[3].dtype == np.int32


def test_greedy_decoding_needs_a_bound_here():
    with tf.Graph().as_default():
        cell = tf.nn.rnn_cell.BasicRNNCell(2)
        helper = tf.contrib.seq2seq.GreedyEmbeddingHelper(tf.ones([3, 2]), tf.constant([0]), 1)
        decoder = tf.contrib.seq2seq.BasicDecoder(cell, helper, cell.zero_state(1, tf.float32))
        try:
            tf.contrib.seq2seq.dynamic_decode(decoder)
        except ValueError as exc:
            assert "maximum_iterations" in str(exc)
        else:
            raise AssertionError("dynamic_decode without a bound was accepted")
