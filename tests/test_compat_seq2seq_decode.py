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


def test_attention_wrapper_with_two_masked_mechanisms():
    # BahdanauAttention(normalize=True) and LuongAttention(scale=True) over one memory with
    # lengths [4, 2], attention_layer_size=[3, 2], output_attention=False; every weight
    # set to a pattern of its shape on both sides (tfa names them differently)
    def pattern(shape, shift=0.0):
        n = int(np.prod(shape))
        return (np.sin(np.arange(n) * 0.37 + n + shift).reshape(shape) * 1.2).astype(np.float32)
    s2s = tf.contrib.seq2seq
    with tf.Graph().as_default():
        memory = tf.constant(pattern([2, 4, 3]))
        lengths = tf.constant([4, 2])
        mechanisms = [s2s.BahdanauAttention(3, memory, memory_sequence_length=lengths,
                                            normalize=True),
                      s2s.LuongAttention(3, memory, memory_sequence_length=lengths, scale=True)]
        cell = s2s.AttentionWrapper(tf.nn.rnn_cell.GRUCell(3), mechanisms,
                                    attention_layer_size=[3, 2], output_attention=False)
        x = tf.constant(pattern([2, 3, 2], 1.0))
        out, state, _ = s2s.dynamic_decode(s2s.BasicDecoder(
            cell, s2s.TrainingHelper(x, tf.constant([3, 2])), cell.zero_state(2, tf.float32)))
        loss = tf.reduce_sum(out.rnn_output * tf.constant(pattern([2, 3, 3], 2.0))) + \
            tf.reduce_sum(state.attention)
        grads = tf.gradients(loss, [memory, x])
        assert [v.name for v in tf.trainable_variables()][:3] == [
            "memory_layer/kernel:0", "memory_layer_1/kernel:0",
            "decoder/attention_wrapper/gru_cell/gates/kernel:0"]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for v in tf.trainable_variables():
                shape = v.shape.as_list()
                sess.run(v.assign(pattern(shape) if shape else np.float32(0.8)))
            rnn_output, alignments, attention, (g_memory, g_x) = sess.run(
                [out.rnn_output, state.alignments, state.attention, grads])
    # TF 2.21 (tfa.seq2seq)
    np.testing.assert_allclose(rnn_output, [
        [[-0.197868, -0.13147, -0.086662], [-0.701991, -0.667726, -0.622167],
         [-0.896556, -0.929001, -0.946122]],
        [[-0.213024, -0.245955, -0.239766], [-0.070103, -0.149754, -0.157164],
         [0.003024, -0.095506, -0.102584]]], rtol=2e-5, atol=2e-6)
    np.testing.assert_allclose(alignments[0], [[0.104038, 0.173397, 0.506674, 0.215891],
                                                [0.545866, 0.454134, 0, 0]], rtol=2e-5, atol=2e-6)
    np.testing.assert_allclose(alignments[1], [[0.000432, 0.080887, 0.879469, 0.039212],
                                                [0.536382, 0.463618, 0, 0]], rtol=2e-4, atol=2e-6)
    np.testing.assert_allclose(attention, [[-1.382625, -2.522049, -3.320126, 1.559396, -0.383921],
                                           [1.049127, 1.494061, 1.736782, -1.613281, -0.829424]],
                               rtol=2e-5)
    np.testing.assert_allclose(g_memory, [
        [[0.009366, -0.264862, -0.267162], [0.125806, -0.937126, -0.958537],
         [1.849364, -0.387745, -1.672064], [0.183622, -0.271439, -0.44257]],
        [[2.525912, 0.041788, -1.904213], [2.100726, -0.350711, -1.9317], [0, 0, 0],
         [0, 0, 0]]], rtol=2e-5, atol=2e-6)
    np.testing.assert_allclose(g_x, [[[-1.560051, 0.403558], [-0.499232, 0.432502],
                                      [-0.102016, 0.219344]],
                                     [[0.939646, 1.581353], [0.207683, -0.477329],
                                      [0.326226, -0.413913]]], rtol=2e-5, atol=2e-6)


def test_layer_objects_of_one_name_get_unique_scopes():
    # TF 2.21: tf.layers.Dense(name="d") twice makes d/ and d_1/ (the functional
    # tf.layers.dense(name="e") twice is refused: its name is the scope)
    with tf.Graph().as_default():
        x = tf.ones([2, 3])
        tf.layers.Dense(4, name="d")(x)
        tf.layers.Dense(4, name="d")(x)
        with tf.variable_scope("s"):
            tf.layers.Dense(2, name="d")(x)
        assert [v.name for v in tf.trainable_variables()] == [
            "d/kernel:0", "d/bias:0", "d_1/kernel:0", "d_1/bias:0", "s/d/kernel:0", "s/d/bias:0"]
        tf.layers.dense(x, 3, name="e")
        try:
            tf.layers.dense(x, 3, name="e")
        except ValueError as exc:
            assert "already exists" in str(exc)
        else:
            raise AssertionError("a second tf.layers.dense(name='e') was accepted")


def test_greedy_decoding_bounded_by_a_computed_length_over_a_fed_batch():
    # the NMT tutorial: maximum_iterations = round(max source length * factor), a batch
    # sized by tf.size(source_lengths); both sizes were refused or unbound in the loop
    with tf.Graph().as_default():
        src_len = tf.placeholder(tf.int32, [None])
        emb = tf.constant(_pattern(12, (4, 3)).astype(np.float32))
        cell = tf.nn.rnn_cell.GRUCell(
            3, kernel_initializer=tf.constant_initializer(_pattern(18, (6, 3))))
        proj = tf.layers.Dense(4, use_bias=False,
                               kernel_initializer=tf.constant_initializer(_pattern(12, (3, 4), 0)))
        batch = tf.size(src_len)
        init = cell.zero_state(batch, tf.float32) + 0.3
        limit = tf.to_int32(tf.round(tf.to_float(tf.reduce_max(src_len)) * 1.5))
        s2s = tf.contrib.seq2seq
        out, _, lengths = s2s.dynamic_decode(
            s2s.BasicDecoder(cell, s2s.GreedyEmbeddingHelper(emb, tf.fill([batch], 0), 1), init,
                             output_layer=proj), maximum_iterations=limit)
        assert out.sample_id.shape.as_list() == [None, None]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            small = sess.run([out.sample_id, lengths], {src_len: [2, 3]})
            large = sess.run([out.sample_id, lengths], {src_len: [1, 1, 2, 4]})
    # TF 2.21 (tfa.seq2seq): 4 steps for lengths up to 3, 6 for up to 4
    np.testing.assert_array_equal(small[0], np.full((2, 4), 3))
    np.testing.assert_array_equal(small[1], [4, 4])
    np.testing.assert_array_equal(large[0], np.full((4, 6), 3))
    np.testing.assert_array_equal(large[1], [6, 6, 6, 6])


def test_a_loop_over_a_tensor_sized_by_tf_size():
    with tf.Graph().as_default():
        p = tf.placeholder(tf.int32, [None])
        start = tf.fill([tf.size(p)], 0)
        _, out = tf.while_loop(lambda t, v: t < 3,
                               lambda t, v: (t + 1, tf.zeros_like(v) + (t + 1)),
                               (tf.constant(0), start))
        np.testing.assert_array_equal(tf.Session().run(out, {p: [1, 2]}), [3, 3])
