"""tf.math and array functions in TF1 programs (import changed only), against TF's
documented numbers or hand derivations."""
import numpy as np
import pytest

from .tf1_programs import run_tf1


def test_argmax_documented_values_ties_and_no_gradient():
    ns = run_tf1("""
        import tensorflow as tf
        A = tf.constant([2, 20, 30, 3, 6])
        B = tf.constant([[2, 20, 30, 3, 6], [3, 11, 16, 1, 8], [14, 45, 23, 5, 27]])
        x = tf.Variable([1.0, 3.0, 3.0, 0.0])
        outs = [tf.argmax(A), tf.argmax(B, 0), tf.argmax(B, 1), tf.argmin(B, 1), tf.argmax(x)]
        grads = tf.gradients(tf.cast(tf.argmax(x), tf.float32), x)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            a, b0, b1, m1, tie = sess.run(outs)
    """)
    assert ns["a"] == 2
    assert ns["b0"].tolist() == [2, 2, 0, 2, 2] and ns["b1"].tolist() == [2, 2, 1]
    assert ns["m1"].tolist() == [0, 3, 3]
    assert ns["tie"] == 1 and ns["b1"].dtype == np.int64      # ties: the first index
    assert ns["grads"] == [None]                              # integer output


def test_argmax_skips_nans_and_string_dtypes_are_tfs():
    """A diverged softmax (all NaN) in the old MNIST tutorial's accuracy: TF's argmax
    skips NaNs (index 0 when all are NaN), where the composed max-and-compare gave the
    axis length, an index out of range; ``"float"`` is float32 in TF (numpy: float64).
    TF 2.21's numbers."""
    ns = run_tf1("""
        import numpy as np
        import tensorflow as tf
        nan = float("nan")
        x = tf.constant([[nan, nan, nan], [1.0, nan, 3.0], [1.0, 5.0, 2.0], [nan, 2.0, 1.0],
                         [4.0, 4.0, nan]], dtype=tf.float64)
        correct = tf.equal(tf.argmax(x, 1), tf.constant([0, 0, 1, 1, 2], tf.int64))
        accuracy = tf.reduce_mean(tf.cast(correct, "float"))
        dtypes = [tf.cast(x, "float").dtype, tf.zeros([2], "float").dtype,
                  tf.ones([1], dtype="double").dtype]
        with tf.Session() as sess:
            amax, amin, amax0, acc = sess.run([tf.argmax(x, 1), tf.argmin(x, 1),
                                               tf.argmax(x, 0), accuracy])
    """)
    assert ns["amax"].tolist() == [0, 2, 1, 1, 0] and ns["amin"].tolist() == [0, 0, 0, 2, 0]
    assert ns["amax0"].tolist() == [4, 2, 1]
    assert ns["acc"] == pytest.approx(0.6) and ns["acc"].dtype == np.float32
    assert [np.dtype(d) for d in ns["dtypes"]] == [np.float32, np.float32, np.float64]


def test_arg_min_over_a_batch_of_unknown_size_nearest_neighbour():
    """TensorFlow-Examples' nearest_neighbor.py: tf.arg_min over the distances to a
    [None, 784] training set (the axis of unknown size raised a TypeError)."""
    ns = run_tf1("""
        import numpy as np
        import tensorflow as tf
        rng = np.random.RandomState(18)
        Xtr = rng.rand(30, 8).astype(np.float32)
        Xte = rng.rand(5, 8).astype(np.float32)
        xtr = tf.placeholder("float", [None, 8])
        xte = tf.placeholder("float", [8])
        distance = tf.reduce_sum(tf.abs(tf.add(xtr, tf.negative(xte))), reduction_indices=1)
        pred = tf.arg_min(distance, 0)
        far = tf.argmax(distance, 0)
        with tf.Session() as sess:
            got = [sess.run([pred, far], {xtr: Xtr[:n], xte: Xte[i]})
                   for i, n in enumerate([30, 30, 12, 7, 1])]
    """)
    for i, (n, (near, far)) in enumerate(zip([30, 30, 12, 7, 1], ns["got"])):
        d = np.abs(ns["Xtr"][:n] - ns["Xte"][i]).sum(axis=1)
        assert near == np.argmin(d) and far == np.argmax(d)


def test_clip_by_value_documented_values_and_gradient_at_the_bounds():
    ns = run_tf1("""
        import tensorflow as tf
        t = tf.constant([[-10., -1., 0.], [0., 2., 10.]])
        clipped = tf.clip_by_value(t, clip_value_min=-1, clip_value_max=1)
        x = tf.constant([-2., -1., 0., 1., 2.])
        (g,) = tf.gradients(tf.clip_by_value(x, -1., 1.), x)
        with tf.Session() as sess:
            c, dg = sess.run([clipped, g])
    """)
    np.testing.assert_array_equal(ns["c"], [[-1., -1., 0.], [0., 1., 1.]])
    np.testing.assert_array_equal(ns["dg"], [0., 1., 1., 1., 0.])  # lo <= x <= hi passes


def test_clip_by_norm_and_global_norm():
    ns = run_tf1("""
        import tensorflow as tf
        t = tf.constant([[3.0, 4.0]])
        a = tf.clip_by_norm(t, 2.5)
        b = tf.clip_by_norm(t, 10.0)
        (clipped, norm) = tf.clip_by_global_norm([tf.constant([3.0, 4.0]),
                                                  tf.constant([12.0])], 6.5)
        z = tf.Variable([0.0, 0.0])
        (dz,) = tf.gradients(tf.reduce_sum(tf.clip_by_norm(z, 1.0)), z)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            va, vb, vc, vn, vdz = sess.run([a, b, clipped, norm, dz])
    """)
    np.testing.assert_allclose(ns["va"], [[1.5, 2.0]], rtol=1e-6)
    np.testing.assert_allclose(ns["vb"], [[3.0, 4.0]])
    assert ns["vn"] == pytest.approx(13.0)
    np.testing.assert_allclose(ns["vc"][0], [1.5, 2.0], rtol=1e-6)
    np.testing.assert_allclose(ns["vc"][1], [6.0], rtol=1e-6)
    assert np.all(np.isfinite(ns["vdz"]))                     # no NaN at the zero tensor


def test_rounding_and_elementwise_documented_values():
    ns = run_tf1("""
        import tensorflow as tf
        x = tf.constant([0.9, 2.5, 2.3, 1.5, -4.5])
        outs = [tf.round(x), tf.floor(x), tf.ceil(x), tf.sign(x), tf.rsqrt(tf.constant(4.0)),
                tf.squared_difference(tf.constant(3.0), tf.constant(5.0)),
                tf.atan2(tf.constant(1.0), tf.constant(-1.0)), tf.log_sigmoid(tf.constant(0.0))]
        grads = tf.gradients(tf.reduce_sum(tf.round(x) + tf.floor(x)), x)
        with tf.Session() as sess:
            r, f, c, s, rs, sd, at, ls = sess.run(outs)
    """)
    np.testing.assert_array_equal(ns["r"], [1.0, 2.0, 2.0, 2.0, -4.0])   # half to even
    np.testing.assert_array_equal(ns["f"], [0., 2., 2., 1., -5.])
    np.testing.assert_array_equal(ns["c"], [1., 3., 3., 2., -4.])
    np.testing.assert_array_equal(ns["s"], [1., 1., 1., 1., -1.])
    assert ns["rs"] == 0.5 and ns["sd"] == 4.0
    assert ns["at"] == pytest.approx(3 * np.pi / 4)
    assert ns["ls"] == pytest.approx(np.log(0.5))
    assert ns["grads"] == [None]                              # TF registers no gradient


def test_cumsum_documented_values_and_reverse_gradient():
    ns = run_tf1("""
        import tensorflow as tf
        x = tf.constant([2., 4., 6., 8.])
        outs = [tf.cumsum(x), tf.cumsum(x, exclusive=True), tf.cumsum(x, reverse=True),
                tf.cumsum(x, exclusive=True, reverse=True)]
        w = tf.constant([1., 10., 100., 1000.])
        (g,) = tf.gradients(tf.reduce_sum(tf.cumsum(x) * w), x)
        with tf.Session() as sess:
            a, b, c, d = sess.run(outs)
            dg = sess.run(g)
    """)
    np.testing.assert_array_equal(ns["a"], [2, 6, 12, 20])
    np.testing.assert_array_equal(ns["b"], [0, 2, 6, 12])
    np.testing.assert_array_equal(ns["c"], [20, 18, 14, 8])
    np.testing.assert_array_equal(ns["d"], [18, 14, 8, 0])
    np.testing.assert_array_equal(ns["dg"], [1111, 1110, 1100, 1000])   # reverse cumsum

def test_cumprod_documented_values_and_gradient_through_a_zero():
    # TF's docs: cumprod([a, b, c]) = [a, a*b, a*b*c]; exclusive and reverse as cumsum's
    ns = run_tf1("""
        import numpy as np
        import tensorflow as tf
        x = tf.constant([2., 3., 4.])
        outs = [tf.cumprod(x), tf.cumprod(x, exclusive=True), tf.cumprod(x, reverse=True),
                tf.math.cumprod(x, exclusive=True, reverse=True)]
        m = tf.Variable(np.array([[2., 0., 3.], [1.5, -1., 2.]]))
        (g,) = tf.gradients(tf.reduce_sum(tf.cumprod(m, axis=1)), m)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            a, b, c, d = sess.run(outs)
            dg = sess.run(g)
    """)
    np.testing.assert_array_equal(ns["a"], [2, 6, 24])
    np.testing.assert_array_equal(ns["b"], [1, 2, 6])
    np.testing.assert_array_equal(ns["c"], [24, 12, 4])
    np.testing.assert_array_equal(ns["d"], [12, 4, 1])
    # d/dm of m0 + m0 m1 + m0 m1 m2 per row: exact at the zero (no 0/0)
    np.testing.assert_allclose(ns["dg"], [[1.0, 8.0, 0.0], [-2.0, 4.5, -1.5]])



def test_one_hot_tile_pad_documented_values():
    ns = run_tf1("""
        import tensorflow as tf
        oh = tf.one_hot([0, 2, -1, 1], depth=3, on_value=5.0, off_value=0.0, axis=-1)
        a = tf.constant([[1, 2, 3], [4, 5, 6]])
        tiled = tf.tile(a, [1, 2])
        t = tf.constant([[1, 2, 3], [4, 5, 6]])
        paddings = tf.constant([[1, 1], [2, 2]])
        pads = [tf.pad(t, paddings, "CONSTANT"), tf.pad(t, paddings, "REFLECT"),
                tf.pad(t, paddings, "SYMMETRIC")]
        with tf.Session() as sess:
            o, ti, (pc, pr, ps) = sess.run([oh, tiled, pads])
    """)
    np.testing.assert_array_equal(ns["o"], [[5, 0, 0], [0, 0, 5], [0, 0, 0], [0, 5, 0]])
    assert ns["o"].dtype == np.float32
    np.testing.assert_array_equal(ns["ti"], [[1, 2, 3, 1, 2, 3], [4, 5, 6, 4, 5, 6]])
    np.testing.assert_array_equal(ns["pc"], [[0, 0, 0, 0, 0, 0, 0], [0, 0, 1, 2, 3, 0, 0],
                                             [0, 0, 4, 5, 6, 0, 0], [0, 0, 0, 0, 0, 0, 0]])
    np.testing.assert_array_equal(ns["pr"], [[6, 5, 4, 5, 6, 5, 4], [3, 2, 1, 2, 3, 2, 1],
                                             [6, 5, 4, 5, 6, 5, 4], [3, 2, 1, 2, 3, 2, 1]])
    np.testing.assert_array_equal(ns["ps"], [[2, 1, 1, 2, 3, 3, 2], [2, 1, 1, 2, 3, 3, 2],
                                             [5, 4, 4, 5, 6, 6, 5], [5, 4, 4, 5, 6, 6, 5]])


def test_gather_gather_nd_split_unstack_boolean_mask_and_gradients():
    ns = run_tf1("""
        import tensorflow as tf
        params = tf.Variable([[0., 1., 2.], [10., 11., 12.], [20., 21., 22.]])
        idx = tf.placeholder(tf.int32, [2])
        rows = tf.gather(params, idx)
        cols = tf.gather(params, [2, 0], axis=1)
        picks = tf.gather_nd(params, [[0, 0], [2, 1]])
        parts = tf.split(params, [1, 2], axis=0)
        a, b, c = tf.unstack(params, axis=1)
        masked = tf.boolean_mask(params, [True, False, True])
        (d_rows,) = tf.gradients(tf.reduce_sum(rows), params)
        (d_nd,) = tf.gradients(tf.reduce_sum(picks), params)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            feed = {idx: [2, 2]}
            r, co, p, (p0, p1), bb, m, dr, dn = sess.run(
                [rows, cols, picks, parts, b, masked, d_rows, d_nd], feed_dict=feed)
    """)
    np.testing.assert_array_equal(ns["r"], [[20, 21, 22], [20, 21, 22]])
    np.testing.assert_array_equal(ns["co"], [[2, 0], [12, 10], [22, 20]])
    np.testing.assert_array_equal(ns["p"], [0, 21])
    assert ns["p0"].shape == (1, 3) and ns["p1"].shape == (2, 3)
    np.testing.assert_array_equal(ns["bb"], [1, 11, 21])
    np.testing.assert_array_equal(ns["m"], [[0, 1, 2], [20, 21, 22]])
    # TF's IndexedSlices: one row per index looked up (densified: the rows added)
    assert (ns["dr"].values.tolist(), ns["dr"].indices.tolist()) == ([[1, 1, 1]] * 2, [2, 2])
    np.testing.assert_array_equal(ns["dn"], [[1, 0, 0], [0, 0, 0], [0, 1, 0]])


def test_shape_size_rank_range_linspace_eye_any_all():
    ns = run_tf1("""
        import tensorflow as tf
        x = tf.zeros([2, 3])
        b = tf.constant([[True, False], [True, True]])
        outs = [tf.shape(x), tf.size(x), tf.rank(x), tf.range(3, 18, 3), tf.range(5),
                tf.linspace(10.0, 12.0, 3), tf.eye(2), tf.reduce_any(b, 1), tf.reduce_all(b, 0)]
        with tf.Session() as sess:
            sh, sz, rk, r1, r2, ls, ey, an, al = sess.run(outs)
    """)
    assert ns["sh"].tolist() == [2, 3] and ns["sh"].dtype == np.int32
    assert ns["sz"] == 6 and ns["rk"] == 2
    assert ns["r1"].tolist() == [3, 6, 9, 12, 15] and ns["r1"].dtype == np.int32
    assert ns["r2"].tolist() == [0, 1, 2, 3, 4]
    assert ns["ls"].tolist() == [10.0, 11.0, 12.0] and ns["ls"].dtype == np.float32
    assert ns["ey"].tolist() == [[1, 0], [0, 1]] and ns["ey"].dtype == np.float32
    assert ns["an"].tolist() == [True, True] and ns["al"].tolist() == [True, False]


def test_matmul_transposes_and_names():
    ns = run_tf1("""
        import tensorflow as tf
        a = tf.constant([[1., 2., 3.], [4., 5., 6.]])
        b = tf.constant([[7., 8.], [9., 10.], [11., 12.]])
        c = tf.matmul(a, b, transpose_a=True, transpose_b=True, name="product")
        with tf.Session() as sess:
            out = sess.run(c)
    """)
    a = np.array([[1., 2., 3.], [4., 5., 6.]])
    b = np.array([[7., 8.], [9., 10.], [11., 12.]])
    np.testing.assert_array_equal(ns["out"], a.T @ b.T)
    assert ns["c"].name.split(":")[0].endswith("product")


def test_linalg_old_and_new_names_with_textbook_gradients():
    ns = run_tf1("""
        import numpy as np
        import tensorflow as tf
        A = tf.Variable([[4.0, 1.0], [2.0, 3.0]])
        S = tf.constant([[4.0, 2.0], [2.0, 3.0]])
        b = tf.constant([[1.0], [2.0]])
        outs = [tf.matrix_inverse(A), tf.matrix_determinant(A), tf.linalg.inv(A),
                tf.linalg.det(A), tf.linalg.slogdet(A)[1], tf.cholesky(S), tf.linalg.logdet(S),
                tf.matrix_solve(A, b), tf.matrix_triangular_solve(A, b, lower=True),
                tf.linalg.trace(A), tf.linalg.diag_part(A), tf.diag(tf.constant([1.0, 2.0]))]
        d_det = tf.gradients(tf.matrix_determinant(A), A)[0]
        d_inv = tf.gradients(tf.reduce_sum(tf.matrix_inverse(A)), A)[0]
        d_logdet = tf.gradients(tf.linalg.logdet(S), S)[0]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            values = sess.run(outs)
            dd, di, dl = sess.run([d_det, d_inv, d_logdet])
    """)
    a = np.array([[4.0, 1.0], [2.0, 3.0]])
    s = np.array([[4.0, 2.0], [2.0, 3.0]])
    inv, det, inv2, det2, logabs, chol, logdet, x, xt, tr, dp, dg = ns["values"]
    a_inv = np.linalg.inv(a)
    np.testing.assert_allclose(inv, a_inv, rtol=1e-6)
    np.testing.assert_allclose(inv2, a_inv, rtol=1e-6)
    assert det == pytest.approx(10.0) and det2 == pytest.approx(10.0)
    assert logabs == pytest.approx(np.log(10.0))
    np.testing.assert_allclose(chol, [[2.0, 0.0], [1.0, np.sqrt(2.0)]], rtol=1e-6)
    assert logdet == pytest.approx(np.log(8.0))
    np.testing.assert_allclose(x.ravel(), a_inv @ [1.0, 2.0], rtol=1e-6)
    np.testing.assert_allclose(xt.ravel(), [0.25, (2.0 - 2 * 0.25) / 3], rtol=1e-6)
    assert tr == 7.0 and dp.tolist() == [4.0, 3.0]
    np.testing.assert_array_equal(dg, [[1.0, 0.0], [0.0, 2.0]])
    np.testing.assert_allclose(ns["dd"], 10.0 * a_inv.T, rtol=1e-6)    # d det = det A⁻ᵀ
    ones = np.ones((2, 2))
    np.testing.assert_allclose(ns["di"], -a_inv.T @ ones @ a_inv.T, rtol=1e-5)
    np.testing.assert_allclose(ns["dl"], np.linalg.inv(s), rtol=1e-6)  # TF: symmetric A⁻¹


def test_slice_reverse_nan_checks_count_and_batch_normalization():
    ns = run_tf1("""
        import numpy as np
        import tensorflow as tf
        t = tf.constant([[[1, 1, 1], [2, 2, 2]], [[3, 3, 3], [4, 4, 4]], [[5, 5, 5], [6, 6, 6]]])
        s1 = tf.slice(t, [1, 0, 0], [1, 1, 3])
        s2 = tf.slice(t, [1, 0, 0], [1, 2, 3])
        r = tf.reverse(tf.constant([[1, 2, 3], [4, 5, 6]]), [1])
        x = tf.constant([1.0, np.nan, np.inf, 0.0])
        checks = [tf.is_nan(x), tf.is_inf(x), tf.is_finite(x), tf.count_nonzero(x)]
        v = tf.Variable([1.0, 2.0, 3.0, 4.0])
        mean, var = tf.nn.moments(v, axes=[0])
        bn = tf.nn.batch_normalization(v, mean, var, offset=0.0, scale=1.0, variance_epsilon=0.0)
        (dv,) = tf.gradients(tf.reduce_sum(bn * v), v)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            a, b, rv, (nan, inf, fin, nz), m, vv, out, grad = sess.run(
                [s1, s2, r, checks, mean, var, bn, dv])
    """)
    assert ns["a"].tolist() == [[[3, 3, 3]]]                       # TF's slice docs
    assert ns["b"].tolist() == [[[3, 3, 3], [4, 4, 4]]]
    assert ns["rv"].tolist() == [[3, 2, 1], [6, 5, 4]]
    assert ns["nan"].tolist() == [False, True, False, False]
    assert ns["inf"].tolist() == [False, False, True, False]
    assert ns["fin"].tolist() == [True, False, False, True]
    assert ns["nz"] == 3
    assert ns["m"] == 2.5 and ns["vv"] == 1.25
    z = (np.arange(1.0, 5.0) - 2.5) / np.sqrt(1.25)
    np.testing.assert_allclose(ns["out"], z, rtol=1e-6)
    # d/dv sum(z * v) with z = (v - mean) / std: by hand, z + (v - z.v z / n - mean(v)) / std
    v, n, std = np.arange(1.0, 5.0), 4, np.sqrt(1.25)
    expected = z + (v - v.mean() - (z @ v) * z / n) / std
    np.testing.assert_allclose(ns["grad"], expected, rtol=1e-5)


def test_top_k_in_top_k_scatter_nd_and_segment_sums():
    ns = run_tf1("""
        import tensorflow as tf
        x = tf.Variable([[1.0, 5.0, 3.0, 5.0], [2.0, 0.0, 1.0, 4.0]])
        values, indices = tf.nn.top_k(x, k=2)
        (dx,) = tf.gradients(tf.reduce_sum(values), x)
        hits = tf.nn.in_top_k(x, tf.constant([3, 1]), 2)
        scattered = tf.scatter_nd(tf.constant([[4], [3], [1], [7]]),
                                  tf.constant([9, 10, 11, 12]), tf.constant([8]))
        c = tf.constant([[1, 2, 3, 4], [5, 6, 7, 8], [4, 3, 2, 1]])
        seg = tf.unsorted_segment_sum(c, tf.constant([0, 1, 0]), num_segments=2)
        sorted_seg = tf.segment_sum(c, tf.constant([0, 0, 1]))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            v, i, d, h, s, u, ss = sess.run([values, indices, dx, hits, scattered, seg,
                                             sorted_seg])
    """)
    assert ns["v"].tolist() == [[5.0, 5.0], [4.0, 2.0]]
    assert ns["i"].tolist() == [[1, 3], [3, 0]]                    # ties: lower index first
    assert ns["d"].tolist() == [[0, 1, 0, 1], [1, 0, 0, 1]]        # gradient to the chosen
    assert ns["h"].tolist() == [True, False]
    assert ns["s"].tolist() == [0, 11, 0, 10, 9, 0, 0, 12]          # TF's scatter_nd docs
    assert ns["u"].tolist() == [[5, 5, 5, 5], [5, 6, 7, 8]]          # TF's segment docs
    assert ns["ss"].tolist() == [[6, 8, 10, 12], [4, 3, 2, 1]]
