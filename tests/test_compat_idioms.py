"""TF1 idioms a differential run against TensorFlow 2.21's compat.v1 found broken: each
expected value below is what TF printed for the same program."""
import numpy as np
import pytest

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


def test_moments_takes_tf1s_keep_dims():
    x = tf.constant([[1.0, 2.0], [3.0, 5.0]])
    m, v = tf.nn.moments(x, axes=[1], keep_dims=True)
    with tf.Session() as sess:
        got = sess.run([m, v])
    np.testing.assert_allclose(got, [[[1.5], [4.0]], [[0.25], [1.0]]])


def test_partitioned_embedding_reads_rows_as_tf_lays_them_out():
    # TF: three parts emb/part_0..2 of 4, 3, 3 rows; 'mod' reads id i from part i % 3
    table = (np.arange(10)[:, None] * [1.0, 1.0]).astype(np.float32)
    seen = []

    def init(shape, dtype=None, partition_info=None):
        off = partition_info.var_offset[0]
        seen.append((off, shape[0], partition_info.full_shape))
        return tf.constant(table[off:off + shape[0]])
    emb = tf.get_variable("emb", [10, 2], initializer=init,
                          partitioner=lambda shape, dtype: [3, 1])
    assert seen == [(0, 4, [10, 2]), (4, 3, [10, 2]), (7, 3, [10, 2])]
    assert [v.op.name for v in tf.global_variables()] == ["emb/part_0", "emb/part_1",
                                                          "emb/part_2"]
    ids = [1, 4, 8]
    look = tf.nn.embedding_lookup(emb, ids)
    contiguous = tf.nn.embedding_lookup(emb, ids, partition_strategy="div")
    grads = tf.gradients(tf.reduce_sum(look[:, 0]), list(emb))
    whole = tf.matmul(tf.ones([1, 10]), emb)            # other ops see the whole table
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(look)[:, 0].tolist() == [4.0, 5.0, 9.0]
        assert sess.run(contiguous)[:, 0].tolist() == [1.0, 4.0, 8.0]
        # each part's gradient holds its rows looked up (TF: IndexedSlices; none for part 0)
        assert all(isinstance(g, tf.IndexedSlices) for g in grads)
        assert [g.indices.tolist() for g in sess.run(grads)] == [[], [0, 1], [2]]
        assert [g[:, 0].tolist() for g in sess.run([tf.convert_to_tensor(g) for g in grads])
                ] == [[0, 0, 0, 0], [1, 1, 0], [0, 0, 1]]
        assert sess.run(whole).tolist() == [[45.0, 45.0]]
    with tf.variable_scope("s", partitioner=tf.fixed_size_partitioner(2)):
        w = tf.get_variable("w", [5, 3], initializer=tf.constant_initializer(1.0))
    assert [v.shape.as_list() for v in w] == [[3, 3], [2, 3]] and w.get_shape() == (5, 3)
    parts = tf.min_max_variable_partitioner(max_partitions=4, min_slice_size=64)([100, 4],
                                                                               np.float32)
    assert parts == [4, 1]
    assert tf.variable_axis_size_partitioner(160)([100, 4], np.float32) == [10, 1]


def test_apply_gradients_takes_an_indexed_slices_a_user_built():
    w = tf.Variable(np.ones((3, 2), np.float32))
    g = tf.IndexedSlices(tf.constant([[1.0, 2.0], [3.0, 4.0]]), tf.constant([0, 0]),
                         tf.constant([3, 2]))
    step = tf.train.GradientDescentOptimizer(0.5).apply_gradients([(g, w)])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(step)
        assert sess.run(w).tolist() == [[-1.0, -2.0], [1.0, 1.0], [1.0, 1.0]]


def test_heads_split_and_stacked_on_a_batch_axis_of_unknown_size():
    # a Transformer's multi-head attention (Kyubyong's): heads stacked on the batch
    # axis and split back off it, gradient included; and its causal mask
    x = tf.placeholder(tf.float32, [None, 3, 4])
    stacked = tf.concat(tf.split(x, 2, axis=2), axis=0)        # (2 n, 3, 2)
    back = tf.concat(tf.split(stacked, 2, axis=0), axis=2)     # (n, 3, 4)
    assert stacked.get_shape().as_list() == [None, 3, 2]
    w = np.arange(12.0).reshape(3, 4)
    (g,) = tf.gradients(tf.reduce_sum(back * back * w), x)
    mask = tf.linalg.LinearOperatorLowerTriangular(tf.ones([3, 3])).to_dense()
    v = np.random.default_rng(0).random((5, 3, 4))
    with tf.Session() as sess:
        got, grad = sess.run([back, g], {x: v})
        assert sess.run(mask).tolist() == [[1, 0, 0], [1, 1, 0], [1, 1, 1]]
    np.testing.assert_allclose(got, v, rtol=1e-6)
    np.testing.assert_allclose(grad, 2 * v * w, rtol=1e-5)
    halves = tf.split(x, 2, axis=0)     # n itself, not known to be even: TF checks at run
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(halves[1], {x: v[:4]}), v[2:4], rtol=1e-6)
        with pytest.raises(tf.errors.InvalidArgumentError):
            sess.run(halves[0], {x: v})


def test_float_ranges_step_as_tf_computes_them():
    # TF's Range kernel writes start + i * delta in the result's dtype; numpy's arange of
    # float32 ended range(1, 2, 0.3) with 1.5999999 and 1.8999999
    with tf.Graph().as_default(), tf.Session() as sess:
        got = sess.run([tf.range(1.0, 2.0, 0.3), tf.range(3.0, 1.0, -0.7),
                        tf.range(0.0, 10.0, 0.1), tf.range(2.0, 1.0, 0.5)])
    assert got[0].dtype == np.float32
    # TF 2.21
    assert got[0].tolist() == [1.0, 1.2999999523162842, 1.600000023841858, 1.9000000953674316]
    assert got[1].tolist() == [3.0, 2.299999952316284, 1.600000023841858]
    assert len(got[2]) == 100 and got[2][-1] == np.float32(9.900001) and got[2][3] == np.float32(0.3)
    assert got[3].size == 0


def test_tensors_named_by_the_caller_are_found_by_name():
    # a composite (conv2d, a where, a filled literal) names its last node after it is
    # made; get_tensor_by_name and sess.run("conv:0") did not find it, and zeros_like
    # ignored its name (TF 2.21 finds each by the name given)
    with tf.Graph().as_default() as graph:
        x = tf.placeholder(tf.float32, [1, 4, 4, 1], name="image")
        y = tf.nn.conv2d(x, np.ones((2, 2, 1, 1), np.float32), [1, 1, 1, 1], "SAME",
                         name="conv")
        z = tf.zeros_like(y, name="zeros")
        o = tf.ones_like(y, name="ones")
        assert (y.name, z.name, o.name) == ("conv:0", "zeros:0", "ones:0")
        assert graph.get_tensor_by_name("conv:0") is y
        assert graph.get_tensor_by_name("ones:0") is o
        with tf.Session() as sess:
            total, zeros = sess.run(["conv:0", "zeros:0"], {"image:0": np.ones((1, 4, 4, 1))})
    assert total.sum() == 49.0 and not zeros.any()


def test_dropout_noise_shape_shares_the_mask_along_its_unit_axes():
    # tf.nn.dropout(x, noise_shape=[batch, 1, channels]) keeps or drops a whole channel
    # over time: an unseeded mask drew a number per element (x's shape); a noise shape
    # of tf.shape(x)[0] raised; seeded masks are TF 2.21's
    with tf.Graph().as_default():
        tf.set_random_seed(3)
        x = tf.placeholder(tf.float32, [None, 4, 3])
        a = tf.nn.dropout(x, rate=0.5, noise_shape=[2, 1, 3], seed=7)
        b = tf.nn.dropout(x, keep_prob=0.5, noise_shape=[tf.shape(x)[0], 1, 3], seed=8)
        c = tf.nn.dropout(x, rate=0.5, noise_shape=[None, 1, 3])
        d = tf.layers.dropout(x, 0.5, noise_shape=[2, 1, 3], training=True)
        with tf.Session() as sess:
            runs = [sess.run([a, b, c, d], {x: np.ones((2, 4, 3))}) for _ in range(2)]
    for values in runs:
        for v in values:
            np.testing.assert_array_equal(v, np.broadcast_to(v[:, :1], v.shape))
    # TF 2.21
    assert runs[0][0][:, 0].tolist() == [[2.0, 2.0, 0.0], [0.0, 2.0, 0.0]]
    assert runs[0][1][:, 0].tolist() == [[0.0, 0.0, 2.0], [0.0, 0.0, 0.0]]
    assert runs[1][0][:, 0].tolist() == [[0.0, 0.0, 0.0], [2.0, 0.0, 2.0]]
    assert runs[1][1][:, 0].tolist() == [[0.0, 0.0, 0.0], [0.0, 2.0, 2.0]]
