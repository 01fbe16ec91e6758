"""Results whose size is read from values (ops.valued): boolean masks computed in the
graph, one-argument where, slices with computed bounds, dynamic_partition.  Values
against numpy, gradients against finite differences and TF's documented gradient
(zeros where the mask is False), and the refusals where sizes must be known."""
import numpy as np
import pytest

import symgrad as sg
from symgrad.errors import CompileError

from .oracles import central_difference
from .tf1_programs import run_tf1

X = np.array([[1.0, -2.0, 3.0], [-4.0, 5.0, 6.0], [7.0, 8.0, -9.0], [0.5, -0.5, 2.0]])


def test_boolean_mask_of_a_computed_mask_values_gradient_and_hessian():
    with sg.Graph().as_default():
        x = sg.placeholder(shape=(4, 3), name="x")
        rows = sg.boolean_mask(x, sg.reduce_sum(x, axis=1) > 0)      # whole rows
        entries = sg.boolean_mask(x, x > 0)                           # a 2-D mask
        cols = sg.boolean_mask(x, sg.reduce_min(x, axis=0) < -1, axis=1)
        f = sg.reduce_sum(rows ** 3) + sg.reduce_sum(sg.sin(entries)) + sg.reduce_sum(cols ** 2)
        (g,) = sg.gradients(f, x)
        got_rows, got_entries, got_cols, got_g = sg.evaluate([rows, entries, cols, g], {x: X})
        assert rows.shape == (None, 3) and entries.shape == (None,) and cols.shape == (4, None)
        (h,) = sg.hessians(f, x)
        got_h = sg.evaluate(h, {x: X})
    np.testing.assert_array_equal(got_rows, X[X.sum(1) > 0])
    np.testing.assert_array_equal(got_entries, X[X > 0])
    np.testing.assert_array_equal(got_cols, X[:, X.min(0) < -1])

    def f_np(v):
        v = v.reshape(X.shape)
        m1, m2, m3 = X.sum(1) > 0, X > 0, X.min(0) < -1   # masks held at X's (as TF)
        return np.sum(v[m1] ** 3) + np.sum(np.sin(v[m2])) + np.sum(v[:, m3] ** 2)
    np.testing.assert_allclose(got_g.ravel(), central_difference(f_np, X.ravel()), rtol=1e-6)
    hess = np.stack([central_difference(lambda v, k=k: _grad_np(v, k), X.ravel(), eps=1e-5)
                     for k in range(X.size)])
    np.testing.assert_allclose(got_h.reshape(12, 12), hess, rtol=1e-5, atol=1e-6)


def _grad_np(v, k):
    v = v.reshape(X.shape)
    g = np.zeros_like(v)
    m1, m2, m3 = X.sum(1) > 0, X > 0, X.min(0) < -1
    g[m1] += 3 * v[m1] ** 2
    g[m2] += np.cos(v[m2])
    g[:, m3] += 2 * v[:, m3]
    return g.ravel()[k]


def test_a_gradient_fetched_alone_runs_the_mask_it_needs_the_size_of():
    with sg.Graph().as_default():
        x = sg.placeholder(shape=(4,), name="x")
        (g,) = sg.gradients(sg.reduce_sum(sg.boolean_mask(x, x > 0)), x)
        np.testing.assert_array_equal(sg.evaluate(g, {x: [1.0, -1.0, 2.0, 0.0]}),
                                      [1.0, 0.0, 1.0, 0.0])


def test_where_slices_with_computed_bounds_and_dynamic_partition():
    ns = run_tf1("""
        import numpy as np
        import tensorflow as tf
        x = tf.placeholder(tf.float32, [None, 3])
        i = tf.placeholder(tf.int32, [])
        j = tf.placeholder(tf.int32, [])
        where = tf.where(x > 0)
        picked = tf.gather_nd(x, where)
        window = x[i:j]
        tail = x[-i:, 1:]
        halves = tf.dynamic_partition(x, tf.cast(tf.reduce_sum(x, 1) > 0, tf.int32), 2)
        loss = tf.reduce_sum(window ** 2) + tf.reduce_sum(halves[1]) * 2.0
        grad = tf.gradients(loss, x)[0]
        with tf.Session() as sess:
            out = sess.run([where, picked, window, tail, halves, grad],
                           {x: data, i: 1, j: -1})
            empty = sess.run(window, {x: data, i: 3, j: 1})
        """, data=X.astype(np.float32))
    where, picked, window, tail, halves, grad = ns["out"]
    assert where.dtype == np.int64 and where.tolist() == np.argwhere(X > 0).tolist()
    np.testing.assert_array_equal(picked, X[X > 0].astype(np.float32))
    np.testing.assert_array_equal(window, X[1:-1].astype(np.float32))
    np.testing.assert_array_equal(tail, X[-1:, 1:].astype(np.float32))
    positive = X.sum(1) > 0
    np.testing.assert_array_equal(halves[0], X[~positive].astype(np.float32))
    np.testing.assert_array_equal(halves[1], X[positive].astype(np.float32))
    want = np.zeros_like(X)
    want[1:-1] = 2 * X[1:-1]
    want[positive] += 2.0
    np.testing.assert_allclose(grad, want, rtol=1e-6)
    assert ns["empty"].shape == (0, 3)


def test_masked_loss_training_program_matches_numpy():
    """A TF1 regression whose loss skips the rows with missing targets (NaN), the
    boolean_mask way; numpy replays the same gradient steps."""
    rng = np.random.default_rng(3)
    data = rng.normal(size=(8, 2)).astype(np.float32)
    target = (data @ np.array([1.5, -0.5], np.float32)).astype(np.float32)
    target[[1, 4]] = np.nan
    ns = run_tf1("""
        import tensorflow as tf
        x = tf.placeholder(tf.float32, [None, 2])
        y = tf.placeholder(tf.float32, [None])
        w = tf.Variable(tf.zeros([2]))
        known = tf.logical_not(tf.is_nan(y))
        pred = tf.reduce_sum(x * w, axis=1)
        loss = tf.reduce_mean(tf.square(tf.boolean_mask(pred, known) - tf.boolean_mask(y, known)))
        step = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(20):
                sess.run(step, {x: data, y: target})
            w_final = sess.run(w)
        """, data=data, target=target)
    keep = ~np.isnan(target)
    w = np.zeros(2)
    for _ in range(20):
        r = data[keep] @ w - target[keep]
        w = w - 0.1 * 2 * data[keep].T @ r / keep.sum()
    np.testing.assert_allclose(ns["w_final"], w, rtol=1e-5)


def test_sizes_that_must_agree_are_checked_when_values_arrive():
    with sg.Graph().as_default():
        x = sg.placeholder(shape=(4,), name="x")
        both = sg.boolean_mask(x, x > 0) + sg.boolean_mask(x, x > 1)
        assert sg.evaluate(both, {x: [2.0, 3.0, -1.0, 0.0]}).tolist() == [4.0, 6.0]
        with pytest.raises(sg.ShapeError):
            sg.evaluate(both, {x: [2.0, 0.5, -1.0, 0.0]})


def test_compile_sparsity_and_closed_forms_say_the_size_is_read_from_values():
    with sg.Graph().as_default():
        x = sg.placeholder(shape=(4,), name="x")
        f = sg.reduce_sum(sg.boolean_mask(x, x > 0) ** 2)
        (g,) = sg.gradients(f, x)
        with pytest.raises(CompileError, match="read from values"):
            sg.compile([f, g], [x])
        with pytest.raises(CompileError, match="read from values"):
            sg.compile(g, [x])      # the gradient alone holds the mask's transpose
        with pytest.raises(sg.ShapeError, match="values"):
            sg.hessians(f, x, sparse=True)
        assert "not expanded" in str(f)
        with pytest.raises(sg.ShapeError, match="known"):
            sg.jacobian(sg.boolean_mask(x, x > 0), x)


def test_sizes_computed_in_the_graph_in_shape_arguments_range_and_sequence_mask():
    ns = run_tf1("""
        import numpy as np
        import tensorflow as tf
        n = tf.placeholder(tf.int32, [])
        lengths = tf.placeholder(tf.int32, [None])
        x = tf.placeholder(tf.float32, [None, 2])
        filled = tf.fill([n], 2.5)
        zeros = tf.zeros(tf.stack([n, 3]))
        rows = tf.reshape(x, [n, -1])
        grad = tf.gradients(tf.reduce_sum(rows * 3.0), x)[0]
        counts = [tf.range(n), tf.range(1, n, 2), tf.range(n, 0, -2)]
        masks = [tf.sequence_mask(lengths), tf.sequence_mask(lengths, n, dtype=tf.float32),
                 tf.sequence_mask(lengths, tf.shape(x)[0])]
        ragged = tf.data.Dataset.range(1, 4).map(lambda k: tf.fill([tf.cast(k, tf.int32)], k))
        seqs = ragged.padded_batch(3, padded_shapes=[None]).make_one_shot_iterator().get_next()
        with tf.Session() as sess:
            got = sess.run([filled, zeros, rows, grad, counts, masks, seqs],
                           {n: 5, lengths: [1, 3], x: np.ones((5, 2))})
        """)
    filled, zeros, rows, grad, counts, masks, seqs = ns["got"]
    np.testing.assert_array_equal(filled, np.full(5, 2.5, np.float32))
    assert zeros.shape == (5, 3) and rows.shape == (5, 2)
    np.testing.assert_array_equal(grad, np.full((5, 2), 3.0))
    assert [c.tolist() for c in counts] == [[0, 1, 2, 3, 4], [1, 3], [5, 3, 1]]
    want = np.arange(5) < np.array([[1], [3]])
    np.testing.assert_array_equal(masks[0], want[:, :3])
    np.testing.assert_array_equal(masks[1], want.astype(np.float32))
    np.testing.assert_array_equal(masks[2], want)
    assert seqs.tolist() == [[1, 0, 0], [2, 2, 0], [3, 3, 3]]
