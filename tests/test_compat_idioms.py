"""TF1 idioms a differential run against TensorFlow 2.21's compat.v1 found broken: each
expected value below is what TF printed for the same program."""
import numpy as np

import symgrad as sg
import symgrad.compat.v1 as tf


def test_an_lstm_state_fetched_keeps_its_fields():
    x = tf.placeholder(tf.float32, [2, 3, 1])
    _, state = tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicLSTMCell(2), x, dtype=tf.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run(state, {x: np.ones((2, 3, 1))})
    assert type(got).__name__ == "LSTMStateTuple"
    assert got.c.shape == got.h.shape == (2, 2)
    c, h = got
    assert c is got.c and h is got.h


def test_gradient_through_a_mask_of_computed_length():
    # sequence_mask without maxlen: the mask's length is max(lens), read from values
    lens = tf.placeholder(tf.int32, [None])
    x = tf.placeholder(tf.float32, [None, None])
    w = tf.Variable(2.0)
    loss = tf.reduce_mean(tf.boolean_mask(x * w, tf.sequence_mask(lens)))
    (g,) = tf.gradients(loss, w)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run([loss, g], {lens: [3, 1], x: np.arange(6.0).reshape(2, 3)})
    np.testing.assert_allclose(got, [3.0, 1.5])


def test_gather_of_integers_at_computed_indices_stays_integer():
    params = tf.constant(np.arange(12).reshape(2, 3, 2).astype(np.int32))
    idx = tf.constant([[0, 2], [1, 0]])
    got = tf.gather_nd(params, idx)
    assert got.dtype == np.int32
    with tf.Session() as sess:
        assert sess.run(got).tolist() == [[4, 5], [6, 7]]
    with sg.Graph().as_default():
        out = sg.gather(sg.constant(np.arange(6).reshape(3, 2)), sg.constant([2, 0]))
        assert out.dtype == np.int64 and out.numpy().tolist() == [[4, 5], [0, 1]]


def test_reverse_sequence_over_a_time_axis_of_known_length():
    x = tf.constant(np.arange(12.0).reshape(3, 4).astype(np.float32))
    rs = tf.reverse_sequence(x, tf.constant([2, 4, 1]), seq_axis=1, batch_axis=0)
    inputs = tf.placeholder(tf.float32, [None, 4, 2])
    cell = tf.nn.rnn_cell.GRUCell(2)
    (fw, bw), _ = tf.nn.bidirectional_dynamic_rnn(cell, cell, inputs, sequence_length=[4, 2, 3],
                                                  dtype=tf.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(rs).tolist() == [[1, 0, 2, 3], [7, 6, 5, 4], [8, 9, 10, 11]]
        assert sess.run(bw, {inputs: np.ones((3, 4, 2))}).shape == (3, 4, 2)


def test_tile_and_range_with_sizes_read_off_shapes():
    q = tf.placeholder(tf.float32, [None, 5, 8])
    m = tf.ones([3, 5])
    t = tf.tile(tf.expand_dims(m, 1), [1, tf.shape(q)[1], 1])
    assert t.get_shape().as_list() == [3, 5, 5]
    u = tf.tile(tf.expand_dims(m, 0), [tf.shape(q)[0], 1, 1])    # a size known when fed
    r = tf.range(tf.shape(q)[2])
    assert r.get_shape().as_list() == [8]
    with tf.Session() as sess:
        feed = {q: np.zeros((2, 5, 8))}
        assert sess.run(tf.shape(t), feed).tolist() == [3, 5, 5]
        assert sess.run(u, feed).shape == (2, 3, 5)
        assert sess.run(r).tolist() == list(range(8))


def test_gradients_inside_map_fn_and_cond_with_respect_to_an_outer_variable():
    w = tf.Variable(2.0)
    xs = tf.constant([1.0, 2.0, 3.0])
    per_element = tf.map_fn(lambda x: tf.gradients(tf.square(w * x), w)[0], xs)
    p = tf.placeholder(tf.bool, [])
    branch = tf.cond(p, lambda: tf.gradients(tf.square(w * 3.0), w)[0],
                     lambda: tf.constant(0.0))
    unused = tf.map_fn(lambda x: tf.gradients(tf.square(x), w,
                                              unconnected_gradients="zero")[0], xs)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(per_element).tolist() == [4.0, 16.0, 36.0]   # 2 w x^2
        assert sess.run(branch, {p: True}) == 36.0
        assert sess.run(unused).tolist() == [0.0, 0.0, 0.0]
