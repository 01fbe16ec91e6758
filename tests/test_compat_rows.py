"""``tf.gradients`` of tables read through ``tf.gather`` / ``tf.nn.embedding_lookup``:
TF's ``IndexedSlices``, and what TF does with them (norms, clipping, optimizers' sparse
updates).  The numbers are TensorFlow 2.21's (``tensorflow.compat.v1``, v2 behaviour
off), run on the same programs."""
import numpy as np
import pytest

import symgrad.compat.v1 as tf

W0 = np.arange(12, dtype=np.float32).reshape(4, 3) / 10


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


def _run(fetch, feed=None):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return sess.run(fetch, feed)


def test_a_table_looked_up_gets_its_rows_as_indexed_slices():
    W = tf.Variable(W0, name="W")
    ids = tf.placeholder(tf.int32, [None])
    e = tf.nn.embedding_lookup(W, ids)
    (g,) = tf.gradients(tf.reduce_sum(e * e), W)
    assert isinstance(g, tf.IndexedSlices) and not isinstance(g, tf.Tensor)
    got = _run(g, {ids: [2, 0, 2]})
    assert type(got).__name__ == "IndexedSlicesValue"
    np.testing.assert_allclose(got.values, [[1.2, 1.4, 1.6], [0.0, 0.2, 0.4], [1.2, 1.4, 1.6]],
                               rtol=1e-6)
    assert (got.indices.tolist(), got.indices.dtype, got.dense_shape.tolist(),
            got.dense_shape.dtype) == ([2, 0, 2], np.int32, [4, 3], np.int32)
    # the dense gradient sums the duplicate rows
    np.testing.assert_allclose(_run(tf.convert_to_tensor(g), {ids: [2, 0, 2]}),
                               [[0, .2, .4], [0, 0, 0], [2.4, 2.8, 3.2], [0, 0, 0]], rtol=1e-6)


def test_which_lookups_give_slices_and_which_dense_tensors():
    W = tf.Variable(W0, name="W")
    x = tf.placeholder(tf.float32, [5])
    ids2 = tf.placeholder(tf.int32, [None, 2])
    kinds = {
        "identity": tf.gradients(tf.reduce_sum(tf.gather(tf.identity(W), [2, 0, 2])), W)[0],
        "scalar id": tf.gradients(tf.reduce_sum(tf.gather(W, 3)), W)[0],
        "2-d ids": tf.gradients(tf.reduce_sum(tf.gather(W, ids2) ** 2), W)[0],
        "placeholder": tf.gradients(tf.reduce_sum(tf.gather(x, [0, 0, 4])), x)[0],
        "scaled table": tf.gradients(tf.reduce_sum(tf.gather(W * 2.0, [0, 2, 2])), W)[0],
        "axis 1": tf.gradients(tf.reduce_sum(tf.gather(W, [0, 2], axis=1)), W)[0],
        "slice": tf.gradients(tf.reduce_sum(W[3]), W)[0],
        "gather_nd": tf.gradients(tf.reduce_sum(tf.gather_nd(W, [[0, 1]])), W)[0],
    }
    assert {k: isinstance(g, tf.IndexedSlices) for k, g in kinds.items()} == {
        "identity": True, "scalar id": True, "2-d ids": True, "placeholder": True,
        "scaled table": False, "axis 1": False, "slice": False, "gather_nd": False}
    got = _run(kinds, {x: np.ones(5), ids2: [[0, 1], [1, 3]]})
    assert (got["scalar id"].values.tolist(), got["scalar id"].indices.tolist()) == (
        [[1.0, 1.0, 1.0]], [3])
    assert got["2-d ids"].indices.tolist() == [0, 1, 1, 3]
    np.testing.assert_allclose(got["2-d ids"].values, [[0, .2, .4], [.6, .8, 1], [.6, .8, 1],
                                                       [1.8, 2, 2.2]], rtol=1e-6)
    assert (got["placeholder"].values.tolist(), got["placeholder"].indices.tolist(),
            got["placeholder"].dense_shape.tolist()) == ([1.0] * 3, [0, 0, 4], [5])
    assert got["scaled table"].tolist() == [[2] * 3, [0] * 3, [4] * 3, [0] * 3]


def test_lookups_concatenate_and_another_use_makes_the_sum_dense():
    W = tf.Variable(W0, name="W")
    ids = tf.placeholder(tf.int32, [None])
    loss1 = tf.reduce_sum(tf.square(tf.nn.embedding_lookup(W, ids)))
    loss2 = tf.reduce_sum(tf.sin(tf.gather(W, [1, 1])))
    loss3 = tf.reduce_sum(tf.matmul(tf.constant([[1., 2., 3.], [4., 5., 6.]]), W,
                                    transpose_b=True))
    two, mixed = tf.gradients(loss1 + loss2, W)[0], tf.gradients(loss1 + loss3, W)[0]
    assert isinstance(two, tf.IndexedSlices) and not isinstance(mixed, tf.IndexedSlices)
    got = _run([two, mixed], {ids: [2, 0, 2]})
    # TF: indices [1, 1, 2, 0, 2] (its backward sweep's order); here the lookups' order
    assert sorted(got[0].indices.tolist()) == [0, 1, 1, 2, 2]
    assert got[0].indices.tolist() == [2, 0, 2, 1, 1]
    np.testing.assert_allclose(got[0].values[3:], [[0.955336, 0.921061, 0.877583]] * 2,
                               rtol=1e-6)
    np.testing.assert_allclose(got[1], [[5.0, 7.2, 9.4], [5, 7, 9], [7.4, 9.8, 12.2], [5, 7, 9]],
                               rtol=1e-6)


def test_stop_gradients_and_several_xs():
    E = tf.Variable(W0, name="E")
    a, b = tf.placeholder(tf.int32, [None]), tf.placeholder(tf.int32, [None])
    ea, eb = tf.nn.embedding_lookup(E, a), tf.nn.embedding_lookup(E, b)
    loss = tf.reduce_mean(tf.square(tf.reduce_sum(ea * eb, axis=1) - 1.0))
    both = tf.gradients(loss, [ea, E, eb])
    stopped = tf.gradients(loss, E, stop_gradients=[eb])[0]
    twice = tf.gradients(loss, [E, E])
    assert all(isinstance(g, tf.IndexedSlices) for g in twice)
    got = _run([both, stopped, twice], {a: [0, 1], b: [2, 2]})
    assert [g.indices.tolist() for g in got[2]] == [[0, 1, 2, 2]] * 2
    assert [type(v).__name__ for v in got[0]] == ["ndarray", "IndexedSlicesValue", "ndarray"]
    assert got[0][1].indices.tolist() == [0, 1, 2, 2]      # TF's
    assert got[1].indices.tolist() == [0, 1]
    np.testing.assert_allclose(got[1].values, [[-0.462, -0.539, -0.616],
                                               [-0.084, -0.098, -0.112]], rtol=1e-5)


def test_clipping_counts_each_row_looked_up_as_tf():
    W = tf.Variable(W0, name="W")
    ids = tf.placeholder(tf.int32, [None])
    (g,) = tf.gradients(tf.reduce_sum(tf.square(tf.nn.embedding_lookup(W, ids))), W)
    (clipped,), norm = tf.clip_by_global_norm([g], 1.0)
    by_norm, by_value = tf.clip_by_norm(g, 1.0), tf.clip_by_value(g, -0.5, 0.5)
    assert all(isinstance(t, tf.IndexedSlices) for t in (clipped, by_norm, by_value))
    got = _run([norm, by_norm, by_value, tf.norm(g), tf.nn.zero_fraction(g)],
               {ids: [2, 0, 2]})
    assert got[0] == pytest.approx(3.481379, rel=1e-6)          # TF: the rows apart
    np.testing.assert_allclose(got[1].values[:2], [[0.344691, 0.40214, 0.459588],
                                                   [0.0, 0.057448, 0.114897]], rtol=1e-5)
    np.testing.assert_allclose(got[2].values, [[0.5] * 3, [0.0, 0.2, 0.4], [0.5] * 3],
                               rtol=1e-6)
    assert got[3:] == [pytest.approx(4.9030604), pytest.approx(0.5833334)]   # dense, as TF


TF_AFTER_FOUR_STEPS = {  # TF 2.21: the table and V after the four steps
    'gd': ([[0.228571, 0.371429], [-0.05052, 0.163847], [0.171429, 0.314286], [0.339334, 0.507221], [0.596819, 0.749081]],
        [0.50311, 0.739037]),
    'momentum': ([[0.228571, 0.371429], [-0.015387, 0.253348], [0.171429, 0.314286], [0.219871, 0.464393], [0.579918, 0.765247]],
        [-0.610807, 0.098397]),
    'nesterov': ([[0.948571, 1.091428], [-0.332228, 0.118501], [0.325714, 0.468571], [0.045608, 0.487154], [0.41531, 0.748264]],
        [-0.726097, 0.223861]),
    'adam': ([[-0.3102, -0.167343], [-0.05684, 0.086062], [0.261229, 0.404086], [0.343827, 0.486684], [0.45522, 0.598078]],
        [0.700204, 0.71658]),
    'rmsprop': ([[-0.275335, -0.132478], [0.010734, 0.165265], [0.156893, 0.29975], [0.353219, 0.503154], [0.582508, 0.726185]],
        [0.698815, 0.790307]),
    'rmsprop_mom': ([[-0.275335, -0.132478], [0.074647, 0.235423], [0.156893, 0.29975], [0.345579, 0.502409], [0.59884, 0.74502]],
        [0.450968, 0.61058]),
    'rmsprop_c': ([[-0.261435, -0.118578], [0.076283, 0.24022], [0.15886, 0.301717], [0.344252, 0.502526], [0.599946, 0.746693]],
        [0.432493, 0.602523]),
    'adagrad': ([[-0.471507, -0.328649], [-0.121955, 0.021105], [0.098341, 0.241198], [0.375695, 0.518719], [0.510066, 0.652707]],
        [0.874807, 0.888695]),
    'adadelta': ([[-0.570981, -0.428124], [-0.284814, -0.141957], [0.000447, 0.143304], [0.286162, 0.429019], [0.570981, 0.713838]],
        [0.999304, 0.999359]),
}


def _embedding_model():
    """A 5 x 2 table looked up at fed ids, projected by V: the model both TF runs used."""
    W = tf.Variable((np.arange(10, dtype=np.float32).reshape(5, 2) - 4) / 7, name="emb")
    V = tf.Variable(np.ones((2, 1), np.float32), name="V")
    ids = tf.placeholder(tf.int32, [None])
    loss = tf.reduce_sum(tf.square(tf.matmul(tf.nn.embedding_lookup(W, ids), V) - 1.0))
    return W, V, ids, loss


@pytest.mark.parametrize("name", sorted(TF_AFTER_FOUR_STEPS))
def test_optimizers_update_the_rows_looked_up_as_tfs_sparse_kernels(name):
    make = {
        "gd": lambda: tf.train.GradientDescentOptimizer(0.1),
        "momentum": lambda: tf.train.MomentumOptimizer(0.1, 0.9),
        "nesterov": lambda: tf.train.MomentumOptimizer(0.1, 0.9, use_nesterov=True),
        "adam": lambda: tf.train.AdamOptimizer(0.1),
        "rmsprop": lambda: tf.train.RMSPropOptimizer(0.1),
        "rmsprop_mom": lambda: tf.train.RMSPropOptimizer(0.1, momentum=0.5),
        "rmsprop_c": lambda: tf.train.RMSPropOptimizer(0.1, momentum=0.5, centered=True),
        "adagrad": lambda: tf.train.AdagradOptimizer(0.1),
        "adadelta": lambda: tf.train.AdadeltaOptimizer(1.0),
    }[name]
    W, V, ids, loss = _embedding_model()
    step = make().minimize(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for batch in ([0, 0, 2], [1], [1, 4], [3]):
            sess.run(step, {ids: batch})
        table, v = sess.run([W, V])
    expected_table, expected_v = TF_AFTER_FOUR_STEPS[name]
    np.testing.assert_allclose(table, expected_table, atol=2e-6)
    np.testing.assert_allclose(v.ravel(), expected_v, atol=2e-6)


def test_ptb_style_clipping_of_all_gradients():
    # the PTB language model's idiom: clip_by_global_norm(tf.gradients(cost, tvars))
    W, V, ids, loss = _embedding_model()
    tvars = tf.trainable_variables()
    grads, norm = tf.clip_by_global_norm(tf.gradients(loss, tvars), 0.5)
    train = tf.train.GradientDescentOptimizer(1.0).apply_gradients(zip(grads, tvars))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        norms = [sess.run([train, norm], {ids: b})[1] for b in ([0, 0, 2, 2, 2], [1, 1], [3])]
        table = sess.run(W)
    np.testing.assert_allclose(norms, [10.47796, 4.7842, 1.09278], rtol=1e-5)  # (5 places)
    np.testing.assert_allclose(table, [[-0.189675, -0.046818], [0.154838, 0.34818],
                                       [0.245413, 0.38827], [0.560488, 0.778622],
                                       [0.571429, 0.714286]], atol=2e-6)


def test_partitioned_table_gives_each_part_its_rows():
    P = tf.get_variable("P", initializer=tf.constant(
        (np.arange(10, dtype=np.float32).reshape(5, 2) - 4) / 7),
        partitioner=tf.fixed_size_partitioner(2))
    ids = tf.placeholder(tf.int32, [None])
    loss = tf.reduce_sum(tf.square(tf.nn.embedding_lookup(P, ids)))
    pairs = tf.train.GradientDescentOptimizer(0.1).compute_gradients(loss)
    assert [(type(g).__name__, v.name) for g, v in pairs] == [
        ("IndexedSlices", "P/part_0:0"), ("IndexedSlices", "P/part_1:0")]
    got = _run([g for g, _ in pairs], {ids: [0, 3, 3, 4]})
    assert [(r.indices.tolist(), r.dense_shape.tolist()) for r in got] == [
        ([0, 2], [3, 2]), ([1, 1], [2, 2])]
    np.testing.assert_allclose(got[0].values, [[-1.142857, -0.857143], [0.0, 0.285714]],
                               rtol=1e-5)
    np.testing.assert_allclose(got[1].values, [[1.142857, 1.428572]] * 2, rtol=1e-5)


@pytest.mark.parametrize("strategy", ["div", "mod"])
def test_a_list_of_shards_gives_each_its_rows(strategy):
    T = (np.arange(14, dtype=np.float32).reshape(7, 2) - 4) / 7
    parts = [tf.Variable(T[0:3]), tf.Variable(T[3:5]), tf.Variable(T[5:7])]
    ids = tf.placeholder(tf.int32, [None])
    e = tf.nn.embedding_lookup(parts, ids, partition_strategy=strategy)
    g = tf.gradients(tf.reduce_sum(tf.square(e) * tf.constant([1.0, 2.0])), parts)
    got = _run(g, {ids: [6, 0, 3, 3, 5]})
    expected = {   # TF 2.21: (values, indices) per shard
        "div": [([[-1.14286, -1.71429]], [0]),
                ([[0.57143, 1.71429], [0.57143, 1.71429]], [0, 0]),
                ([[2.28571, 5.14286], [1.71429, 4.0]], [1, 0])],
        "mod": [([[0.0, 0.57143], [-1.14286, -1.71429], [-0.57143, -0.57143],
                  [-0.57143, -0.57143]], [2, 0, 1, 1]),
                (np.zeros((0, 2)), []),
                ([[2.28571, 5.14286]], [1])]}[strategy]
    for r, (values, indices) in zip(got, expected):
        assert r.indices.tolist() == indices and r.values.shape == np.shape(values)
        np.testing.assert_allclose(r.values, values, atol=1e-5)
    assert [r.dense_shape.tolist() for r in got] == [[3, 2], [2, 2], [2, 2]]


def test_lookups_inside_control_flow_give_dense_gradients_equal_to_tfs_rows_summed():
    # TF gives IndexedSlices here too; symgrad's are dense (documented), with TF's values
    W = tf.Variable(np.arange(8, dtype=np.float32).reshape(4, 2) / 10)
    p = tf.placeholder(tf.bool, [])
    e = tf.cond(p, lambda: tf.gather(W, [0, 0]), lambda: tf.gather(W, [3, 1]))
    _, total = tf.while_loop(lambda i, a: i < 3, lambda i, a: (
        i + 1, a + tf.reduce_sum(tf.gather(W, [i, i]))), [tf.constant(0), tf.constant(0.0)])
    rows = tf.map_fn(lambda r: tf.reduce_sum(tf.nn.embedding_lookup(W, r)),
                     tf.constant([[0, 1], [1, 1]]), dtype=tf.float32)
    grads = [tf.gradients(tf.reduce_sum(e * e), W)[0], tf.gradients(total, W)[0],
             tf.gradients(tf.reduce_sum(rows), W)[0]]
    got = _run([tf.convert_to_tensor(g) for g in grads], {p: True})
    np.testing.assert_allclose(got[0], [[0, 0.4], [0, 0], [0, 0], [0, 0]], rtol=1e-6)
    np.testing.assert_allclose(got[1], [[2, 2], [2, 2], [2, 2], [0, 0]])
    np.testing.assert_allclose(got[2], [[1, 1], [3, 3], [0, 0], [0, 0]])


def test_a_table_of_unknown_size_gives_slices_that_densify_when_fed():
    x = tf.placeholder(tf.float32, [None, 3])
    (g,) = tf.gradients(tf.reduce_sum(tf.gather(x, [0, 0])), x)
    (mixed,) = tf.gradients(tf.reduce_sum(tf.gather(x, [0, 0])) + tf.reduce_sum(x * x), x)
    assert isinstance(g, tf.IndexedSlices) and g.shape.as_list() == [None, 3]
    got = _run([g, tf.convert_to_tensor(g), mixed], {x: np.ones((2, 3))})
    assert (got[0].indices.tolist(), got[0].dense_shape.tolist()) == ([0, 0], [2, 3])
    np.testing.assert_array_equal(got[1], [[2] * 3, [0] * 3])
    np.testing.assert_array_equal(got[2], [[4] * 3, [2] * 3])


def test_sampled_losses_and_sparse_lookups_give_their_tables_slices_as_tf():
    # word2vec's nce_loss (sampled_values given, so the classes are TF's) and
    # embedding_lookup_sparse; Momentum then moves only the rows looked up (TF 2.21)
    V, D = 8, 3
    emb = tf.Variable(np.arange(V * D, dtype=np.float32).reshape(V, D) / 20 - 0.5)
    nce_w = tf.Variable(np.cos(np.arange(V * D, dtype=np.float32)).reshape(V, D) / 3)
    nce_b = tf.Variable(np.zeros(V, np.float32))
    inputs, labels = tf.placeholder(tf.int32, [None]), tf.placeholder(tf.int64, [None, 1])
    sampled = tf.placeholder(tf.int64, [3])
    values = (sampled, tf.fill([tf.shape(inputs)[0], 1], 0.3), tf.fill([3], 0.2))
    loss = tf.reduce_mean(tf.nn.nce_loss(nce_w, nce_b, labels, tf.nn.embedding_lookup(
        emb, inputs), num_sampled=3, num_classes=V, sampled_values=values))
    ids = tf.SparseTensor(indices=[[0, 0], [0, 1], [1, 0]],
                          values=tf.constant([1, 5, 5], tf.int64), dense_shape=[2, 2])
    bag = tf.nn.embedding_lookup_sparse(emb, ids, None, combiner="mean")
    grads = tf.gradients(loss, [emb, nce_w, nce_b]) + tf.gradients(tf.reduce_sum(bag), emb)
    assert all(isinstance(g, tf.IndexedSlices) for g in grads)
    step = tf.train.MomentumOptimizer(0.5, 0.9).minimize(loss + tf.reduce_sum(bag))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run(grads[1], {inputs: [1, 2, 2], labels: [[3], [4], [3]],
                                  sampled: [0, 6, 7]})
        assert got.indices.tolist() == [3, 4, 3, 0, 6, 7]      # labels, then sampled (TF)
        for i in range(3):
            sess.run(step, {inputs: [1, 2, 2][:3 - i], labels: [[3], [4], [3]][:3 - i],
                            sampled: [0, 6, 7 - i]})
        table, weights = sess.run([emb, nce_w])
    np.testing.assert_allclose(table, [
        [-0.5, -0.45, -0.4], [-2.29791, -2.10876, -1.66833], [-0.56898, -0.41108, -0.05469],
        [-0.05, 0.0, 0.05], [0.1, 0.15, 0.2], [-3.9575, -3.9075, -3.8575], [0.4, 0.45, 0.5],
        [0.55, 0.6, 0.65]], atol=2e-5)
    np.testing.assert_allclose(weights, [
        [1.09621, 0.81184, 0.31633], [-0.33, -0.21788, 0.09455], [0.32006, 0.2513, -0.0485],
        [-0.46492, -0.42099, -0.10944], [0.24686, 0.27864, 0.03474],
        [0.38226, 0.2675, 0.35828], [1.1818, 1.10763, 0.67686], [-0.0759, -0.24794, -0.11352]],
        atol=2e-5)


def test_a_large_table_looks_up_and_updates_rows_exactly():
    # a fed-index lookup is a one-hot contraction; above ops.linalg.BLAS_WORK it runs as
    # BLAS, whose results must still be the rows themselves (one-hot sums are exact)
    rng = np.random.RandomState(3)
    table = rng.randn(3000, 8).astype(np.float32)
    W = tf.Variable(table)
    ids = tf.placeholder(tf.int32, [None])
    rows = tf.nn.embedding_lookup(W, ids)
    step = tf.train.GradientDescentOptimizer(0.5).minimize(tf.reduce_sum(rows))
    picked = rng.randint(0, 3000, 64)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_array_equal(sess.run(rows, {ids: picked}), table[picked])
        sess.run(step, {ids: picked})
        expected = table.copy()
        np.subtract.at(expected, picked, np.float32(0.5))
        np.testing.assert_array_equal(sess.run(W), expected)


def test_row_updates_in_passes_equal_numpys_one_row_at_a_time():
    # the sparse optimizers' scatters (row_scatter.rows_at): repeated indices see each
    # of their rows in order, bit for bit as ufunc.at; float32 tables, float64 rows,
    # index arrays of any shape, empty ones, out-of-range ones (ufunc.at's IndexError)
    from symgrad.compat.row_scatter import rows_at
    r = np.random.default_rng(1)
    for trial in range(300):
        V, E = int(r.integers(1, 8)), int(r.integers(1, 4))
        table = r.normal(size=(V, E)).astype([np.float32, np.float64][trial % 2])
        shape = tuple(int(s) for s in r.integers(0, 4, size=r.integers(1, 3)))
        idx = r.integers(0, V, size=shape)
        rows = (r.normal(size=shape + (E,)) * 10.0 ** r.integers(-3, 4, size=shape + (E,))
                ).astype([np.float32, np.float64][trial % 3 == 0])
        for ufunc in (np.add, np.subtract):
            want, got = table.copy(), table.copy()
            ufunc.at(want, idx, rows)
            rows_at(ufunc, got, idx, rows)
            assert got.dtype == want.dtype and np.array_equal(got, want), (trial, idx)
    with pytest.raises(IndexError):
        rows_at(np.add, np.zeros((3, 2)), np.array([1, 3]), np.ones((2, 2)))
