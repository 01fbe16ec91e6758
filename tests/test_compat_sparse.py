"""tf.SparseTensor, tf.sparse_placeholder and the sparse ops of TF1 bag-of-words and
linear models, against TF 2.21's numbers (compat.v1; the probe's prog8*.py)."""
import numpy as np
import pytest

import symgrad.compat.v1 as tf


def test_a_constant_sparse_tensor_densifies_multiplies_and_sums_as_tf():
    with tf.Graph().as_default():
        W = tf.Variable(np.random.RandomState(4).randn(4, 2).astype(np.float32))
        st = tf.SparseTensor(indices=[[0, 0], [1, 2], [2, 3]], values=[1.0, 2.0, 3.0],
                             dense_shape=[3, 4])
        prod = tf.sparse_tensor_dense_matmul(st, W)
        prod_t = tf.sparse_tensor_dense_matmul(st, tf.transpose(W), adjoint_b=True)
        g = tf.gradients(tf.reduce_sum(prod * prod), W)[0]
        assert st.shape.as_list() == [3, 4] and st.dtype == np.float32
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            dense, p, pt, grad, rows, total, value = sess.run(
                [tf.sparse_tensor_to_dense(st), prod, prod_t, g,
                 tf.sparse_reduce_sum(st, axis=1), tf.sparse_reduce_sum(st), st])
            kept = sess.run(tf.sparse_reduce_sum(st, axis=0, keepdims=True))
    assert dense.tolist() == [[1, 0, 0, 0], [0, 0, 2, 0], [0, 0, 0, 3]]
    want = [[0.05056, 0.49995], [-0.8366, -3.16915], [-1.94312, 1.79573]]
    np.testing.assert_allclose(p, want, atol=1e-5)
    np.testing.assert_allclose(pt, want, atol=1e-5)
    np.testing.assert_allclose(grad, [[0.10112, 0.9999], [0.0, 0.0], [-3.34641, -12.67662],
                                      [-11.65872, 10.77435]], atol=1e-4)
    assert rows.tolist() == [1.0, 2.0, 3.0] and total == 6.0 and kept.tolist() == [[1, 0, 2, 3]]
    assert type(value).__name__ == "SparseTensorValue"
    assert value.indices.tolist() == [[0, 0], [1, 2], [2, 3]]
    assert value.values.tolist() == [1.0, 2.0, 3.0] and value.dense_shape.tolist() == [3, 4]


def test_gradients_reach_the_values_of_a_sparse_tensor():
    with tf.Graph().as_default():
        v = tf.Variable([1.0, 2.0, 3.0])
        W = tf.constant(np.arange(8, dtype=np.float32).reshape(4, 2) / 4)
        st = tf.SparseTensor([[0, 0], [1, 2], [2, 3]], v, [3, 4])
        prod = tf.sparse_tensor_dense_matmul(st, W)
        prod_a = tf.sparse_tensor_dense_matmul(st, tf.ones([3, 2]), adjoint_a=True)
        loss = (tf.reduce_sum(prod ** 2) + tf.reduce_sum(tf.sparse_tensor_to_dense(st) * 0.5)
                + tf.reduce_sum(prod_a))
        g = tf.gradients(loss, v)[0]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run(prod_a).tolist() == [[1, 1], [0, 0], [2, 2], [3, 3]]
            assert sess.run(loss) == 73.125 and sess.run(g).tolist() == [2.625, 12.75, 34.375]


def bag_of_words():
    docs = [[0, 2, 2], [1, 3], [4, 5, 5, 0], [3]]
    idx, vals = [], []
    for r, d in enumerate(docs):
        for c in sorted(set(d)):
            idx.append([r, c])
            vals.append(float(d.count(c)))
    counts = tf.SparseTensorValue(np.array(idx, np.int64), np.array(vals, np.float32),
                                  np.array([4, 6], np.int64))
    ids = ([[r, j] for r, d in enumerate(docs) for j in range(len(d))],
           [c for d in docs for c in d], [4, 4])
    return counts, ids


def test_a_sparse_placeholder_feeds_a_logistic_regression_as_tf():
    rng = np.random.RandomState(4)
    rng.randn(4, 2)
    with tf.Graph().as_default():
        sp = tf.sparse_placeholder(tf.float32)
        y = tf.placeholder(tf.float32, [None])
        w = tf.Variable(rng.randn(6, 1).astype(np.float32) * 0.1)
        b = tf.Variable(0.0)
        unused = tf.Variable(1.0)   # minimize skips it, as TF
        logits = tf.squeeze(tf.sparse_tensor_dense_matmul(sp, w), 1) + b
        loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=logits))
        train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
        counts, _ = bag_of_words()
        losses = []
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(5):
                losses.append(sess.run([train, loss], {sp: counts, y: [1, 0, 1, 0]})[1])
            # a different batch size: made again for the new dense shape
            small = tf.SparseTensorValue([[0, 1]], [2.0], [1, 6])
            assert sess.run(logits, {sp: small}).shape == (1,)
            assert sess.run(unused) == 1.0
    np.testing.assert_allclose(losses, [0.641091, 0.527948, 0.446751, 0.385693, 0.338156],
                               atol=2e-6)


def test_embedding_lookup_sparse_combines_rows_as_tf():
    with tf.Graph().as_default():
        table = tf.constant(np.arange(12, dtype=np.float32).reshape(6, 2))
        ids = tf.SparseTensor([[0, 0], [0, 1], [2, 0]], tf.constant([1, 3, 5], tf.int64), [4, 2])
        w = tf.SparseTensor([[0, 0], [0, 1], [2, 0]], [1.0, 3.0, 2.0], [4, 2])
        fed = tf.sparse_placeholder(tf.int64)
        emb = tf.Variable(np.random.RandomState(4).randn(6, 3).astype(np.float32))
        bag = tf.nn.embedding_lookup_sparse(emb, fed, None, combiner="mean")
        g = tf.gradients(tf.reduce_sum(bag * bag), emb)[0]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got = sess.run([tf.nn.embedding_lookup_sparse(table, ids, None),
                            tf.nn.embedding_lookup_sparse(table, ids, w, combiner="sqrtn"),
                            tf.nn.embedding_lookup_sparse(table, ids, w, combiner="sum")])
            _, id_value = bag_of_words()
            assert sess.run(bag, {fed: id_value}).shape == (4, 3)
            # (TF: IndexedSlices; here the ids' shape is known only when fed, and a
            # gradient taken then is dense, compat.rows)
            assert sess.run(tf.convert_to_tensor(g), {fed: id_value}).shape == (6, 3)
    # three rows: max(row) + 1, the empty row 1 zeros (TF's)
    assert got[0].tolist() == [[4.0, 5.0], [0.0, 0.0], [10.0, 11.0]]
    np.testing.assert_allclose(got[1], [[6.324555, 7.589466], [0, 0], [10, 11]], rtol=1e-6)
    assert got[2].tolist() == [[20.0, 24.0], [0.0, 0.0], [20.0, 22.0]]


def test_sparse_placeholder_shapes_defaults_and_bad_feeds():
    with tf.Graph().as_default():
        sp = tf.sparse_placeholder(tf.float32, shape=[None, 3])
        d = tf.sparse_tensor_to_dense(sp, default_value=-1.0)
        assert str(sp.shape) == "(?, 3)"
        with tf.Session() as sess:
            value = tf.SparseTensorValue([[0, 0], [1, 2]], [5.0, 6.0], [2, 3])
            assert sess.run(d, {sp: value}).tolist() == [[5, -1, -1], [-1, -1, 6]]
            assert sess.run(d, {sp: ([[0, 0]], [5.0], [1, 3])}).tolist() == [[5, -1, -1]]
            assert type(sess.run(sp, {sp: value})).__name__ == "SparseTensorValue"
            with pytest.raises(TypeError, match="fed with a tf.SparseTensorValue"):
                sess.run(d, {sp: np.ones((2, 3))})
        with pytest.raises(ValueError, match="sp_input must be a tf.SparseTensor"):
            tf.sparse_tensor_to_dense(tf.ones([2, 2]))
