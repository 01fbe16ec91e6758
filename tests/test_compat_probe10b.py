"""What the tenth differential probe (b) of TF1 programs found: reinforcement learning
(MorvanZhou's actor-critic and DQN, awjuliani's dueling DQN), GANs (wiseodd's WGAN)
and the like, against real TensorFlow 2.21 (compat.v1, v2 behaviour disabled).  The
numbers are TF 2.21's."""
import numpy as np
import pytest

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


def test_seeded_dropout_of_a_shapeless_keep_prob_keeps_the_shape():
    # dennybritz's TextCNN: dropout_keep_prob = tf.placeholder(tf.float32); with an op
    # seed the result had unknown rank, so tf.layers.dense refused it and the embedding's
    # gradient was dense instead of TF's IndexedSlices
    with tf.Graph().as_default():
        h = tf.constant([[1., 2., 3.], [4., 5., 6.]])
        k = tf.placeholder(tf.float32)
        d = tf.nn.dropout(h, k, seed=1)
        y = tf.layers.dense(d, 2, kernel_initializer=tf.glorot_uniform_initializer(seed=2))
        table = tf.Variable(tf.ones([5, 3]))
        e = tf.nn.dropout(tf.nn.embedding_lookup(table, tf.constant([[1, 3]])), k, seed=3)
        g = tf.gradients(tf.reduce_sum(e), table)[0]
        assert (d.shape, y.shape, e.shape) == ((2, 3), (2, 2), (1, 2, 3))
        assert type(g).__name__ == "IndexedSlices"
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            d_value, y_value, rows = sess.run([d, y, g.values], {k: 0.5})
    # TF 2.21
    np.testing.assert_array_equal(d_value, [[0., 4., 0.], [0., 10., 0.]])
    np.testing.assert_allclose(y_value, [[-0.2645111, -0.1580095], [-0.6612778, -0.3950238]],
                               rtol=1e-6)
    np.testing.assert_array_equal(rows, [[0., 0., 2.], [0., 2., 0.]])


def test_legacy_rnn_decoder_with_a_loop_function_and_a_fed_tuple_state():
    # sherjilozair/char-rnn-tensorflow: legacy_seq2seq.rnn_decoder (missing before) and
    # sample.py's feed {model.initial_state: state} (a tuple key was refused)
    with tf.Graph().as_default():
        tf.get_variable_scope().set_initializer(tf.glorot_uniform_initializer(seed=4))
        cell = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.BasicLSTMCell(3),
                                            tf.nn.rnn_cell.GRUCell(2)])
        table = tf.get_variable("table", [4, 2])
        ids = tf.placeholder(tf.int32, [2, 3])
        steps = [tf.squeeze(s, [1]) for s in tf.split(tf.nn.embedding_lookup(table, ids), 3, 1)]

        def loop(prev, i):
            return tf.nn.embedding_lookup(table, tf.stop_gradient(tf.argmax(prev, 1)))
        init = cell.zero_state(2, tf.float32)
        outputs, state = tf.contrib.legacy_seq2seq.rnn_decoder(steps, init, cell,
                                                               loop_function=loop, scope="dec")
        names = [v.name for v in tf.trainable_variables()]
        g = tf.convert_to_tensor(tf.gradients(tf.reduce_sum(outputs[-1]), table)[0])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            s0 = sess.run(init)
            s0 = (s0[0]._replace(c=s0[0].c + 0.5), s0[1] - 0.25)
            out, st, gv = sess.run([outputs, state, g], {ids: [[1, 2, 3], [0, 3, 1]], init: s0})
    # TF 2.21 (TF 1.15's rnn_decoder written with its core ops: TF 2.21 has no contrib)
    assert names == ['table:0', 'dec/multi_rnn_cell/cell_0/basic_lstm_cell/kernel:0',
                     'dec/multi_rnn_cell/cell_0/basic_lstm_cell/bias:0',
                     'dec/multi_rnn_cell/cell_1/gru_cell/gates/kernel:0',
                     'dec/multi_rnn_cell/cell_1/gru_cell/gates/bias:0',
                     'dec/multi_rnn_cell/cell_1/gru_cell/candidate/kernel:0',
                     'dec/multi_rnn_cell/cell_1/gru_cell/candidate/bias:0']
    np.testing.assert_allclose(out, [[[-0.1527327, -0.2135183], [-0.1646704, -0.2180952]],
                                     [[-0.0801492, -0.2039358], [-0.1034389, -0.2119496]],
                                     [[-0.0326315, -0.2127412], [-0.0593176, -0.2231032]]],
                               rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(st[0].h, [[0.3301422, -0.2364936, -0.0582486],
                                         [0.3457161, -0.188393, 0.0272454]], rtol=1e-5)
    np.testing.assert_allclose(gv, [[-0.1309789, 0.1373178], [0.0337116, 0.0354146],
                                    [0, 0], [0, 0]], rtol=1e-5, atol=1e-7)


def test_the_global_step_is_named_in_the_open_variable_scope():
    # the PTB model makes it inside tf.variable_scope("Model") under tf.name_scope("Train")
    with tf.Graph().as_default():
        with tf.variable_scope("Model"):
            with tf.name_scope("Train"):
                step = tf.train.get_or_create_global_step()
        assert step.name == "Model/global_step:0"          # TF 2.21
        assert tf.train.get_global_step() is step


def test_seeded_multinomial_draws_tfs_samples_run_after_run():
    # REINFORCE agents sample actions with tf.multinomial(logits, 1, seed=...): the
    # samples were symgrad's own (Gumbel-max); now TF's kernel's, from TF's stream
    logits = np.array([[0., 1., 2., 3.], [1., 1., 1., 1.], [-1., 5., 0., -np.inf],
                       [2., -3., 0.5, 0.]], np.float32)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 4])
        s1 = tf.multinomial(x, 3, seed=5)
        s2 = tf.random.categorical(x, 7, seed=6, dtype=tf.int32)
        tf.set_random_seed(3)
        s3 = tf.multinomial(tf.log([[0.1, 0.2, 0.7], [0.5, 0.5, 0.0]]), 5, seed=1)
        assert (s1.dtype, s2.dtype) == (np.int64, np.int32)
        with tf.Session() as sess:
            runs = [sess.run([s1, s2, s3], {x: logits}) for _ in range(2)]
    # TF 2.21, two runs of one session
    want = [([[1, 3, 3], [2, 0, 2], [1, 1, 1], [2, 2, 0]],
             [[2, 2, 3, 3, 3, 3, 3], [3, 1, 1, 0, 1, 2, 3], [1, 1, 1, 1, 1, 1, 1],
              [2, 0, 2, 3, 0, 2, 0]],
             [[1, 0, 2, 2, 2], [1, 1, 1, 1, 0]]),
            ([[3, 3, 3], [3, 3, 0], [1, 1, 1], [0, 0, 0]],
             [[0, 0, 3, 3, 2, 3, 3], [3, 2, 3, 1, 1, 2, 3], [1, 1, 1, 1, 1, 1, 1],
              [0, 2, 2, 0, 0, 3, 2]],
             [[0, 2, 2, 2, 2], [0, 0, 0, 1, 1]])]
    for got, expected in zip(runs, want):
        for value, w in zip(got, expected):
            np.testing.assert_array_equal(value, w)


def test_range_input_producer_as_the_ptb_reader_uses_it():
    # tensorflow/models' ptb_producer: i = range_input_producer(epoch_size,
    # shuffle=False).dequeue(), then strided slices at i; it was refused as a queue
    with tf.Graph().as_default():
        i = tf.train.range_input_producer(3, num_epochs=2, shuffle=False).dequeue()
        j = tf.train.range_input_producer(tf.constant(2), shuffle=False).dequeue()
        data = tf.reshape(tf.range(12), [2, 6])
        x = tf.strided_slice(data, [0, j * 2], [2, (j + 1) * 2])
        assert i.dtype == np.int32 and i.shape == ()
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            out = []
            with pytest.raises(tf.errors.OutOfRangeError):
                for _ in range(8):
                    out.append(sess.run([i, j, x]))
        with pytest.raises(ValueError, match="shuffle=False"):
            tf.train.range_input_producer(3)
    # TF 2.21: six runs, then OutOfRangeError
    assert [(int(a), int(b)) for a, b, _ in out] == [(0, 0), (1, 1), (2, 0), (0, 1), (1, 0),
                                                     (2, 1)]
    np.testing.assert_array_equal(out[1][2], [[2, 3], [8, 9]])


def test_seeded_dropout_in_dynamic_rnn_draws_a_mask_per_step_as_tf():
    # TF's dynamic_rnn is a while_loop: its body's dropout op runs once per step, its
    # counter moving on (a new mask each step); symgrad unrolls the steps, which each made
    # an op of the same seed (the same mask every step).  A DropoutWrapper with a seed
    # used symgrad's own stream; now TF's seeds (MD5 of seed and role).  TF 2.21 with
    # parallel_iterations=1 (with more, TF's steps race for the counter)
    with tf.Graph().as_default():
        cell = tf.nn.rnn_cell.DropoutWrapper(
            tf.nn.rnn_cell.GRUCell(3, kernel_initializer=tf.constant_initializer(0.2)),
            input_keep_prob=0.8, output_keep_prob=0.7, seed=1)
        out, _ = tf.nn.dynamic_rnn(cell, tf.constant(np.sin(np.arange(24) * 0.3).reshape(
            2, 3, 4).astype(np.float32)), dtype=tf.float32, parallel_iterations=1)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            first, second = sess.run(out), sess.run(out)
    np.testing.assert_allclose(first, [[[0.10903, 0.10903, 0.10903], [0.16951, 0.16951, 0],
                                        [0.23644, 0.23644, 0.23644]],
                                       [[-0.39419, -0.39419, -0.39419], [0, -0.58829, -0.58829],
                                        [0, -0.42734, -0.42734]]], atol=1e-5)
    np.testing.assert_allclose(second, [[[0, 0.10903, 0], [0.2257, 0.2257, 0],
                                         [0.21914, 0.21914, 0.21914]],
                                        [[-0.29188, 0, -0.29188], [-0.56499, -0.56499, 0],
                                         [0, 0, -0.40916]]], atol=1e-5)


def test_seeded_normal_distribution_samples_are_tfs():
    # MorvanZhou's continuous actor: tf.distributions.Normal(mu, sigma).sample(1, seed=...)
    with tf.Graph().as_default():
        d = tf.distributions.Normal(loc=tf.constant([0.5, -1.0]), scale=tf.constant([2.0, 0.1]))
        s = d.sample(3, seed=64)
        with tf.Session() as sess:
            first, second = sess.run(s), sess.run(s)
    # TF 2.21
    np.testing.assert_allclose(first, [[4.3556337, -0.9962667], [2.347642, -1.1520003],
                                       [-1.0432118, -0.933008]], rtol=1e-6)
    np.testing.assert_allclose(second, [[-2.5673158, -1.1300498], [0.618602, -0.9968429],
                                        [1.5613539, -0.8373969]], rtol=1e-6)


def test_uint8_pixels_convert_and_turn_gray_as_tf():
    # dennybritz's DQN StateProcessor: tf.image.rgb_to_grayscale of uint8 frames was
    # truncated without TF's round trip through [0, 1] (off by one on many pixels), and
    # convert_image_dtype divided by 255 where TF multiplies by 1/255 (the last bit)
    rgb_values = np.random.RandomState(3).randint(0, 256, (50, 3)).astype(np.uint8)
    with tf.Graph().as_default():
        f = tf.image.convert_image_dtype(tf.constant(np.arange(256, dtype=np.uint8)), tf.float32)
        rgb = tf.constant(rgb_values)
        gray = tf.image.rgb_to_grayscale(rgb)
        gray_int = tf.image.rgb_to_grayscale(tf.cast(rgb, tf.int32) * 1000)
        a, b, c = tf.Session().run([f, gray, gray_int])
    # TF 2.21 (the sum of the float32 bit patterns of the 256 converted levels)
    assert a.view(np.int32).astype(np.int64).sum() == 268502433469
    assert b.dtype == np.uint8 and b.shape == (50, 1)
    assert b.ravel()[:12].tolist() == [149, 170, 41, 175, 189, 133, 173, 142, 98, 161, 119, 154]
    assert c.ravel()[:5].tolist() == [149293, 169963, 41169, 174710, 189361]
