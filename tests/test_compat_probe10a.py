"""What the tenth differential probe (round a: Hvass-Labs, nlintz, golbin and
MorvanZhou's TF1 tutorials, Géron's Hands-On ML 1st edition) found, against real
TensorFlow 2.21 (compat.v1, v2 behaviour disabled).  The numbers are TF 2.21's."""
import numpy as np
import pytest

import symgrad.compat.v1 as tf


def test_seeded_dropout_of_a_seeded_dropout_with_a_fed_keep_prob():
    # nlintz's modern net: dropout(relu(matmul(dropout(X, p_keep), w)), p_keep) with
    # p_keep = tf.placeholder("float"); 1 - p_keep had an unknown shape, so the outer
    # dropout lost x's shape and drew its own mask instead of TF's
    with tf.Graph().as_default():
        x = tf.placeholder("float", [None, 3])
        keep = tf.placeholder("float")
        out = tf.nn.dropout(tf.nn.dropout(x, keep, seed=1), keep, seed=2)
        assert out.shape.as_list() == [None, 3]
        value = tf.Session().run(out, {x: np.ones((4, 3)), keep: 0.5})
    # TF 2.21
    np.testing.assert_array_equal(value, [[0, 4, 0], [0, 0, 0], [0, 0, 0], [4, 4, 0]])


def test_layers_dropout_draws_no_mask_in_runs_that_do_not_train():
    # Géron ch. 11: tf.layers.dropout(X, 0.5, training=training) with training a
    # placeholder_with_default(False); TF chooses by tf.cond, so evaluation runs leave
    # the seeded mask's stream where it was (the mask was drawn in every run before)
    with tf.Graph().as_default():
        training = tf.placeholder_with_default(False, shape=(), name="training")
        d = tf.layers.dropout(tf.ones([2, 4]), 0.5, training=training, seed=1)
        with tf.Session() as sess:
            first = sess.run(d, {training: True})
            assert (sess.run(d) == 1).all() and (sess.run(d) == 1).all()
            second = sess.run(d, {training: True})
    # TF 2.21
    np.testing.assert_array_equal(first, [[0, 2, 0, 0], [2, 0, 0, 0]])
    np.testing.assert_array_equal(second, [[0, 2, 2, 0], [0, 2, 0, 0]])


def test_hello_tensorflow_string_constant_is_fetched_as_bytes():
    # golbin's and aymericdamien's first program: hello = tf.constant('Hello, TensorFlow!')
    # raised symgrad's DtypeError; TF prints the tensor and fetches bytes
    with tf.Graph().as_default():
        hello = tf.constant("Hello, TensorFlow!")
        words = tf.constant(["ab", "c"], name="words")
        assert str(hello) == 'Tensor("Const:0", shape=(), dtype=string)'   # TF 2.21
        assert str(words) == 'Tensor("words:0", shape=(2,), dtype=string)'
        assert hello.dtype == tf.string and words.shape.as_list() == [2]
        with tf.Session() as sess:
            value, both = sess.run(hello), sess.run([words, tf.constant(3)])
            assert hello.eval() == value == b"Hello, TensorFlow!"
        assert list(both[0]) == [b"ab", b"c"] and both[1] == 3
        with pytest.raises(TypeError, match="tf.string constant.*no op computes on text"):
            tf.add(hello, hello)


def test_feeding_an_lstm_state_tuple_and_a_nested_one():
    # MorvanZhou's RNN regression: feed_dict={model.cell_init_state: state} with the
    # LSTMStateTuple of arrays the previous run fetched (a tuple key was refused)
    with tf.Graph().as_default():
        state = tf.nn.rnn_cell.LSTMStateTuple(tf.zeros([1, 2]), tf.ones([1, 2]))
        nested = (state, tf.nn.rnn_cell.LSTMStateTuple(tf.zeros([1, 2]), tf.zeros([1, 2])))
        total = state.c * 2 + state.h + nested[1].h
        with tf.Session() as sess:
            fed = sess.run(total, {state: (np.array([[1., 2.]]), np.array([[3., 4.]]))})
            value = sess.run(nested)
            value[1].h[:] = 5
            again = sess.run(total, {nested: value})
            with pytest.raises(ValueError):
                sess.run(total, {state: np.array([[1., 2.]])})
    # TF 2.21
    np.testing.assert_array_equal(fed, [[5, 8]])
    np.testing.assert_array_equal(again, [[6, 6]])


def test_moments_are_named_as_tf_names_them_so_their_moving_averages_are():
    # MorvanZhou's hand-made batch norm: ema.apply([fc_mean, fc_var]) on tf.nn.moments;
    # the averages' variables (checkpoint keys) were named reshape_6/ExponentialMovingAverage
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3])
        names = [t.name for t in tf.nn.moments(x, [0]) + tf.nn.moments(x, [0], keep_dims=True)]
        with tf.name_scope("bn"):
            names += [t.name for t in tf.nn.moments(x, [0], name="m")]
        m, v = tf.nn.moments(tf.constant([[1., 2.], [3., 6.]]), axes=[0])
        tf.train.ExponentialMovingAverage(0.9).apply([m, v])
        names += [u.name for u in tf.global_variables()]
    # TF 2.21
    assert names == ["moments/Squeeze:0", "moments/Squeeze_1:0", "moments_1/mean:0",
                     "moments_1/variance:0", "bn/m/Squeeze:0", "bn/m/Squeeze_1:0",
                     "moments_2/Squeeze/ExponentialMovingAverage:0",
                     "moments_2/Squeeze_1/ExponentialMovingAverage:0"]


def test_seeded_image_distortions_draw_tfs_numbers():
    # Hvass-Labs 06 (CIFAR-10): tf.random_crop and tf.image.random_brightness / contrast /
    # saturation / hue with seed= drew symgrad's own numbers; TF takes them from its
    # random_uniform (the crop: int32 numbers modulo the room left on each axis)
    with tf.Graph().as_default():
        im = tf.reshape(tf.range(48.0) / 48.0, [4, 4, 3])
        ops = [tf.random_crop(im, size=[2, 3, 3], seed=1)[:, :, 0],
               tf.image.random_brightness(im, 0.2, seed=5)[0, 0],
               tf.image.random_contrast(im, 0.3, 1.0, seed=4)[0, 0],
               tf.image.random_saturation(im, 0.0, 2.0, seed=6)[1, 1],
               tf.image.random_hue(im, 0.05, seed=3)[1, 1]]
        with tf.Session() as sess:
            runs = [sess.run(ops), sess.run(ops)]
    # TF 2.21, two runs
    expected = [
        [[[0.5, 0.5625, 0.625], [0.75, 0.8125, 0.875]], [-0.044676, -0.023842, -0.003009],
         [0.014247, 0.03508, 0.055913], [0.300558, 0.327362, 0.354167],
         [0.3125, 0.33616, 0.354167]],
        [[[0.5625, 0.625, 0.6875], [0.8125, 0.875, 0.9375]], [-0.073252, -0.052419, -0.031586],
         [0.155568, 0.176402, 0.197235], [0.352506, 0.353336, 0.354167],
         [0.3125, 0.32925, 0.354167]]]
    for got, want in zip(runs, expected):
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, atol=2e-6)


def test_running_an_initializer_again_in_a_session_draws_new_random_values():
    # Hvass-Labs 05 (ensemble) re-runs tf.global_variables_initializer() in one session
    # to start each network afresh; every initialisation set the first draw again
    with tf.Graph().as_default():
        a = tf.Variable(tf.truncated_normal([3], stddev=0.05, seed=1))
        b = tf.Variable(tf.random_normal([3], seed=2))
        c = tf.get_variable("c", [3], initializer=tf.glorot_uniform_initializer(seed=3))
        d = tf.layers.dense(tf.ones([1, 2]), 2,
                            kernel_initializer=tf.truncated_normal_initializer(seed=4))
        e = tf.Variable(tf.random_uniform([2], seed=5))
        kernel = tf.trainable_variables()[3]
        init = tf.global_variables_initializer()
        runs = []
        with tf.Session() as sess:
            for _ in range(3):
                sess.run(init)
                runs.append(sess.run([a, b, c, e, kernel[0]]))
            sess.run(a.initializer)
            a_fourth = sess.run(a)
        with tf.Session() as sess:   # a new session starts the sequence over
            sess.run(init)
            a_new_session = sess.run(a)
    # TF 2.21: three initialisations, then a's own initializer once more
    expected = [
        [[-0.04057, 0.07423, 0.00327], [-0.85811, -0.19662, 0.13895],
         [-0.22614, -0.27995, 0.95376], [0.38831, 0.66368], [0.2963, -0.03141]],
        [[0.02759, -0.00655, -0.00224], [-0.02249, 0.82325, 0.25806],
         [0.88434, 0.16023, -0.27158], [0.42907, 0.95828], [0.01902, 0.39926]],
        [[-0.0338, 0.01433, 0.01608], [0.37645, -0.20388, 0.42203],
         [-0.44092, 0.27696, 0.87822], [0.70747, 0.49705], [0.87908, -0.16329]]]
    for got, want in zip(runs, expected):
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, atol=6e-6)
    np.testing.assert_allclose(a_fourth, [0.06205, 0.02244, 0.01657], atol=6e-6)
    np.testing.assert_allclose(a_new_session, expected[0][0], atol=6e-6)


def test_seeded_multinomial_draws_tfs_samples():
    # Géron ch. 16's policy gradients: action = tf.multinomial(tf.log(p_left_and_right),
    # num_samples=1) drew Gumbel-max samples of symgrad's own, not TF's, with seed=
    rng = np.random.RandomState(0)
    with tf.Graph().as_default():
        ops = [tf.multinomial(tf.constant(rng.randn(b, c).astype(np.float32)), n, seed=7)
               for b, c, n in [(1, 2, 1), (3, 4, 5)]]
        p = tf.placeholder(tf.float32, [None, 3])
        ops.append(tf.multinomial(tf.log(p), 2, seed=3, output_dtype=tf.int32))
        ops.append(tf.random.categorical(tf.constant([[0., -np.inf, 1.], [np.inf, 0., 0.]]),
                                         3, seed=4))
        with tf.Session() as sess:
            feed = {p: [[0.2, 0.3, 0.5], [0.0, 0.5, 0.5]]}
            runs = [sess.run(ops, feed), sess.run(ops, feed)]
    # TF 2.21, two runs
    expected = [[[[1]], [[2, 0, 1, 2, 1], [1, 2, 0, 0, 0], [0, 1, 0, 0, 2]], [[0, 2], [1, 2]],
                 [[2, 2, 0], [2, 2, 1]]],
                [[[0]], [[1, 2, 2, 1, 2], [3, 1, 3, 2, 2], [2, 0, 1, 1, 1]], [[2, 0], [1, 2]],
                 [[2, 2, 0], [2, 1, 1]]]]
    for got, want in zip(runs, expected):
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)
        assert [g.dtype for g in got] == [np.int64, np.int64, np.int32, np.int64]


def test_tf_losses_are_named_as_tf_names_them():
    # MorvanZhou's and Géron's tf.losses results were where_N:0; TF builds each loss in a
    # name scope and names its result value (Sum, Mul for the SUM and NONE reductions)
    with tf.Graph().as_default():
        a, b = tf.constant([[0.2, 0.8]]), tf.constant([[0.3, 0.7]])
        losses = [tf.losses.absolute_difference(a, b), tf.losses.huber_loss(a, b),
                  tf.losses.cosine_distance(a, b, axis=1),
                  tf.losses.sparse_softmax_cross_entropy(tf.constant([1]), b),
                  tf.losses.compute_weighted_loss(a), tf.losses.mean_squared_error(a, b),
                  tf.losses.log_loss(a, b, scope="loss"), tf.losses.mean_squared_error(a, b),
                  tf.losses.mean_squared_error(a, b, reduction=tf.losses.Reduction.SUM),
                  tf.losses.mean_squared_error(a, b, reduction=tf.losses.Reduction.NONE)]
        with tf.name_scope("outer"):
            losses.append(tf.losses.log_loss(a, b))
    # TF 2.21
    assert [t.name for t in losses] == [
        "absolute_difference/value:0", "huber_loss/value:0", "cosine_distance_loss/value:0",
        "sparse_softmax_cross_entropy_loss/value:0", "weighted_loss/value:0",
        "mean_squared_error/value:0", "loss/value:0", "mean_squared_error_1/value:0",
        "mean_squared_error_2/Sum:0", "mean_squared_error_3/Mul:0", "outer/log_loss/value:0"]
