"""What the seventh differential probe of TF1 programs found in tensor ops (segment
pooling, strided_slice, least squares, einsum's notations, grids, rolls, N-d
convolution, gathers over run-time sizes, tensor scatter updates, fused batch norm),
against numbers taken from real TensorFlow 2.21 (compat.v1, v2 behaviour disabled)."""
import numpy as np
import pytest

import symgrad.compat.v1 as tf


LOWEST = -3.4028234663852886e+38   # float32's lowest, TF's fill for an empty max segment


def test_segment_max_min_prod_sqrt_n_values_and_gradients_as_tf():
    # graph networks pool messages per node with these; ties share the gradient
    with tf.Graph().as_default():
        d = tf.Variable(np.array([[1., 5., 2.], [3., 5., 0.], [2., -1., 4.], [0.5, 2., 4.]],
                                 np.float32))
        ids = tf.constant([2, 0, 2, 2])
        w = tf.constant(np.array([[1., -2., 0.5], [3., 1., -1.]], np.float32))
        outs = [tf.unsorted_segment_max(d, ids, 3), tf.unsorted_segment_min(d, ids, 3),
                tf.unsorted_segment_prod(d, ids, 3), tf.math.unsorted_segment_sqrt_n(d, ids, 3),
                tf.segment_max(d, [0, 0, 2, 2]), tf.segment_min(d, [0, 0, 2, 2]),
                tf.math.segment_prod(d, [0, 0, 2, 2])]
        gs = [tf.gradients(tf.reduce_sum(o[-1:] * w[:1]) + tf.reduce_sum(o[:1] * w[1:]), d)[0]
              for o in outs]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got, grads = sess.run(outs), sess.run(gs)
    want = [[[3, 5, 0], [LOWEST] * 3, [2, 5, 4]], [[3, 5, 0], [-LOWEST] * 3, [0.5, -1, 2]],
            [[3, 5, 0], [1, 1, 1], [1, -10, 32]],
            [[3, 5, 0], [0, 0, 0], [2.020725965499878, 3.464101552963257, 5.773502349853516]],
            [[3, 5, 2], [0, 0, 0], [2, 2, 4]], [[1, 5, 0], [0, 0, 0], [0.5, -1, 4]],
            [[3, 25, 0], [1, 1, 1], [1, -2, 16]]]
    r3 = 0.5773502588272095
    want_g = [[[0, -2, 0], [3, 1, -1], [1, 0, 0.25], [0, 0, 0.25]],
              [[0, 0, 0.5], [3, 1, -1], [0, -2, 0], [1, 0, 0]],
              [[1, 4, 8], [3, 1, -1], [0.5, -20, 4], [2, 10, 4]],
              [[r3, -2 * r3, r3 / 2], [3, 1, -1], [r3, -2 * r3, r3 / 2], [r3, -2 * r3, r3 / 2]],
              [[0, 0.5, -1], [3, 0.5, 0], [1, 0, 0.25], [0, -2, 0.25]],
              [[3, 0.5, 0], [0, 0.5, -1], [0, -2, 0.25], [1, 0, 0.25]],
              [[9, 5, 0], [3, 5, -2], [0.5, -4, 2], [2, 2, 2]]]
    for g, w_ in zip(got + grads, want + want_g):
        assert g.dtype == np.float32
        np.testing.assert_allclose(g, np.array(w_, np.float32), rtol=1e-6)


def test_segment_ops_bad_ids_say_what_to_do():
    with tf.Graph().as_default():
        # (TF builds it; its kernel refuses the unsorted ids when the graph runs)
        with pytest.raises(tf.errors.InvalidArgumentError, match="ids are not increasing"):
            tf.Session().run(tf.segment_max(tf.ones([3]), [1, 0, 2]))
        with pytest.raises(ValueError, match=r"segment_ids of shape \(2,\) must match"):
            tf.unsorted_segment_min(tf.ones([3]), [1, 0], 2)
        with pytest.raises(TypeError, match="segment_ids must be integers"):
            tf.unsorted_segment_prod(tf.ones([2]), tf.constant([0.0, 1.0]), 2)


def test_strided_slice_masks_values_shapes_and_gradient_as_tf():
    with tf.Graph().as_default():
        X = tf.Variable(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
        s1 = tf.strided_slice(X, [1, -1, 0], [0, 0, 4], [1, -1, 3], begin_mask=1, end_mask=4,
                              shrink_axis_mask=1)
        s2 = tf.strided_slice(X, [0, 1], [0, 3], [1, 1], ellipsis_mask=1)
        s3 = tf.strided_slice(X, [0, 0, 1], [2, 1, 3], [1, 1, 1], new_axis_mask=2)
        gX = tf.gradients(tf.reduce_sum(s1 ** 2) + tf.reduce_sum(s2 * 3.0) + tf.reduce_sum(s3),
                          X)[0]
        # the seq2seq idiom: drop each target's last step, the batch size read at run time
        t = tf.placeholder(tf.int32, [None, 5])
        dec = tf.strided_slice(t, [0, 0], [tf.shape(t)[0], -1], [1, 1])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            v1, v2, v3, g = sess.run([s1, s2, s3, gX])
            d = sess.run(dec, {t: np.arange(10).reshape(2, 5)})
    assert v1.tolist() == [[20.0, 23.0], [16.0, 19.0]]
    assert v2.tolist() == [[[1, 2], [5, 6], [9, 10]], [[13, 14], [17, 18], [21, 22]]]
    assert v3.tolist() == [[[[4, 5, 6, 7], [8, 9, 10, 11]]], [[[16, 17, 18, 19], [20, 21, 22, 23]]]]
    assert [s.shape.as_list() for s in (s1, s2, s3)] == [[2, 2], [2, 3, 2], [2, 1, 2, 4]]
    assert g.tolist() == [[[0, 3, 3, 0], [1, 4, 4, 1], [1, 4, 4, 1]],
                          [[0, 3, 3, 0], [33, 4, 4, 39], [41, 4, 4, 47]]]
    assert d.tolist() == [[0, 1, 2, 3], [5, 6, 7, 8]] and dec.dtype == np.int32


def test_matrix_solve_ls_over_and_underdetermined_with_gradient_as_tf():
    with tf.Graph().as_default():
        A = tf.Variable(np.array([[1.0, 0.0], [1.0, 1.0], [1.0, 2.0], [2.0, -1.0]]))
        b = tf.constant([[1.0], [2.0], [4.0], [0.5]], tf.float64)
        x1 = tf.matrix_solve_ls(A, b, l2_regularizer=0.3)
        x2 = tf.linalg.lstsq(tf.transpose(A), tf.constant([[1.0], [2.0]], tf.float64))
        gA = tf.gradients(tf.reduce_sum(x1 * [[1.0], [-2.0]]) + tf.reduce_sum(tf.sin(x2)), A)[0]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got = sess.run([x1, x2, gA])
    want = [[[0.90909091], [1.36363636]], [[0.09756098], [0.41463415], [0.73170732],
                                           [-0.12195122]],
            [[-0.17961538, -0.1843621], [-0.15611673, 0.30821964], [0.04296511, 0.42512534],
             [-0.58013283, -1.02970636]]]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-7, atol=1e-8)


def test_add_n_and_total_loss_refuse_different_shapes_as_tf():
    # tf.losses.*(reduction=NONE) left in the LOSSES collection: TF's add_n raises
    with tf.Graph().as_default():
        y, p = tf.constant([[1.0], [0.0]]), tf.constant([[0.5], [0.5]])
        tf.losses.mean_squared_error(y, p)
        tf.losses.mean_squared_error(y, p, reduction=tf.losses.Reduction.NONE)
        with pytest.raises(ValueError, match=r"same shape.*\(\) .*\(2, 1\)"):
            tf.losses.get_total_loss()
        with pytest.raises(ValueError, match=r"tf.add_n: .*inputs\[1\]"):
            tf.add_n([tf.ones([2]), tf.ones([2, 1])])
        x = tf.placeholder(tf.float32, [None, 3])
        total = tf.add_n([x, tf.ones([4, 3]), 2.0 * x])   # an unknown size agrees
        with tf.Session() as sess:
            assert sess.run(total, {x: np.ones((4, 3))}).tolist() == [[4.0] * 3] * 4


def test_einsum_implicit_outputs_ellipses_and_diagonals_as_tf():
    with tf.Graph().as_default():
        A = tf.Variable(np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 10)
        B = tf.Variable(np.arange(20, dtype=np.float32).reshape(4, 5) / 7 - 1)
        S = tf.Variable(np.arange(18, dtype=np.float32).reshape(2, 3, 3) / 5 - 1)
        outs = [tf.einsum("...ij,jk->...ik", A, B), tf.einsum("bij,jk", A, B),
                tf.einsum("bii->bi", S), tf.einsum("bii", S), tf.linalg.einsum("...ii->...", S),
                tf.einsum("ij,...j->...i", B[:, :4], A)]
        loss = sum(tf.reduce_sum(tf.sin(o)) for o in outs)
        g = tf.gradients(loss, [A, B, S])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got, grads = sess.run(outs), sess.run(g)
    # TF 2.21's shapes, sums and gradients
    assert [o.shape for o in got] == [(2, 3, 5), (2, 3, 5), (2, 3), (2,), (2,), (2, 3, 4)]
    np.testing.assert_allclose([o.sum() for o in got], [60.0, 60.0, 4.2, 4.2, 4.2, 33.25714],
                               rtol=1e-5)
    np.testing.assert_allclose(got[2].ravel(), [-1.0, -0.2, 0.6, 0.8, 1.6, 2.4], atol=1e-6)
    np.testing.assert_allclose(grads[2].ravel(), [
        2.19097, 0, 0, 0, 2.63074, 0, 0, 0, 2.47601, 0.87171, 0, 0, 0, 0.1458, 0, 0, 0, -0.5624],
        atol=1e-5)
    np.testing.assert_allclose(grads[1].ravel()[:6], [9.5683, -0.4085, -6.73483, -4.21534,
                                                      0.62718, 14.51234], atol=3e-5)
    np.testing.assert_allclose(grads[0].ravel()[:4], [-6.19488, 0.26209, 6.71907, 13.17604],
                               atol=2e-5)
    with pytest.raises(ValueError, match="names 2 operands, 1 given"):
        tf.einsum("ij,jk->ik", tf.ones([2, 2]))


def test_meshgrid_roll_div_no_nan_and_xw_plus_b_as_tf():
    with tf.Graph().as_default():
        a = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3) - 2)
        b = tf.Variable(np.array([[1., 0., 2.], [0., -1., 0.5]], np.float32))
        xg, yg = tf.meshgrid(tf.range(3.0), tf.range(2.0) * 10)
        ig, jg = tf.meshgrid(tf.range(3.0), tf.range(2.0) * 10, indexing="ij")
        r = tf.roll(a, shift=[1, -1, 2], axis=[1, 0, 1])
        d = tf.div_no_nan(a, b)
        xw = tf.nn.xw_plus_b(a, tf.transpose(b), [0.5, -0.5])
        loss = tf.reduce_sum(r * [1., 2., 3.]) + tf.reduce_sum(d * d) + tf.reduce_sum(xw ** 2)
        g = tf.gradients(loss, [a, b])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got = sess.run([xg, yg, ig, jg, r, d, xw] + g)
    want = [  # TF 2.21
        [[0, 1, 2], [0, 1, 2]], [[0, 0, 0], [10, 10, 10]], [[0, 0], [1, 1], [2, 2]],
        [[0, 10], [0, 10], [0, 10]], [[1, 2, 3], [-2, -1, 0]], [[-2, 0, 0], [0, -2, 6]],
        [[-1.5, 0.5], [7.5, -1.0]], [[-6, 1, -2.5], [16, 8, 56]], [[13, 33, 45], [-4, 3, -150]]]
    for g_, w in zip(got, want):
        assert g_.tolist() == w


def test_nn_convolution_and_pool_dispatch_by_rank_as_tf():
    # WaveNet-style code calls the N-d forms; TF 2.21's values and gradients
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 5, 2])
        L = tf.placeholder(tf.int32, [None])
        w = tf.Variable(np.array([[[1.0, -1.0], [0.5, 2.0]], [[0.0, 1.0], [-1.5, 0.5]]],
                                 np.float32))
        c = tf.nn.convolution(x, w, padding="VALID", dilation_rate=[2])
        c2 = tf.nn.convolution(tf.expand_dims(x, 1), tf.expand_dims(w, 0), padding="SAME",
                               strides=[1, 2])
        pm = tf.nn.pool(x, [2], "MAX", "VALID", strides=[1])
        pa = tf.nn.pool(tf.expand_dims(x, 1), [1, 2], "AVG", "SAME", strides=[1, 2])
        last = tf.gather_nd(x * w[0, 0], tf.stack([tf.range(tf.shape(x)[0]), L - 1], axis=1))
        loss = tf.reduce_sum(c ** 2) + tf.reduce_sum(c2) + tf.reduce_sum(pm) + \
            tf.reduce_sum(pa) + tf.reduce_sum(last * [1.0, 3.0])
        gx, gw = tf.gradients(loss, [x, w])
        xv = np.arange(20, dtype=np.float32).reshape(2, 5, 2) / 5 - 1
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got = sess.run([c, c2, pm, pa, last, gx, gw], {x: xv, L: [5, 2]})
    want = [
        [[[-1.4, -0.8], [-1.4, 0.2], [-1.4, 1.2]], [[-1.4, 4.2], [-1.4, 5.2], [-1.4, 6.2]]],
        [[[[-0.8, -1.4], [-0.8, 0.6], [1.0, 1.0]]], [[[-0.8, 3.6], [-0.8, 5.6], [4.0, 3.0]]]],
        [[[-0.6, -0.4], [-0.2, 0.0], [0.2, 0.4], [0.6, 0.8]],
         [[1.4, 1.6], [1.8, 2.0], [2.2, 2.4], [2.6, 2.8]]],
        [[[[-0.8, -0.6], [0.0, 0.2], [0.6, 0.8]]], [[[1.2, 1.4], [2.0, 2.2], [2.6, 2.8]]]],
        [[0.6, -0.8], [1.4, -1.6]],
        [[[-0.7, -1.6], [-0.7, -0.1], [-5.3, 10.8], [2.9, 4.9], [5.4, 6.9]],
         [[-10.7, 18.4], [-9.7, 16.9], [-5.3, 35.8], [12.9, 9.9], [14.4, 14.9]]],
        [[[0.08, 58.16], [-4.08, 58.64]], [[-16.96, 75.28], [-19.52, 82.56]]]]
    for g, w_ in zip(got, want):
        np.testing.assert_allclose(g, w_, atol=2e-5)
    with tf.Graph().as_default():   # a length known at run time (it was refused)
        seq = tf.placeholder(tf.float32, [None, None, 2])
        y = tf.nn.conv1d(seq, tf.ones([2, 2, 2]), 1, "VALID")
        assert y.shape.as_list() == [None, None, 2]
        with tf.Session() as sess:
            got = sess.run(y, {seq: xv})
    summed = xv.sum(-1)   # all-ones filters: each output channel sums the window
    np.testing.assert_allclose(got, np.repeat((summed[:, :-1] + summed[:, 1:])[..., None], 2,
                                              -1), atol=1e-6)


def test_gather_nd_over_two_run_time_sizes():
    # the last relevant output of [batch, time, units] with batch and time unknown
    with tf.Graph().as_default():
        out = tf.placeholder(tf.float32, [None, None, 3])
        lengths = tf.placeholder(tf.int32, [None])
        idx = tf.stack([tf.range(tf.shape(out)[0]), lengths - 1], axis=1)
        last = tf.gather_nd(out * 2.0, idx)
        g = tf.gradients(tf.reduce_sum(last * [1.0, 2.0, 3.0]), out)[0]
        assert last.shape.as_list() == [None, 3]
        with tf.Session() as sess:
            for b, t in ((2, 4), (3, 2)):
                ov = np.arange(b * t * 3, dtype=np.float32).reshape(b, t, 3)
                lv = np.array([t, 1, 2][:b], np.int32)
                got, grad = sess.run([last, g], {out: ov, lengths: lv})
                np.testing.assert_array_equal(got, 2 * ov[np.arange(b), lv - 1])
                want = np.zeros_like(ov)
                want[np.arange(b), lv - 1] = [2.0, 4.0, 6.0]
                np.testing.assert_array_equal(grad, want)


def test_tensor_scatter_updates_batch_gather_and_switch_case_as_tf():
    with tf.Graph().as_default():
        T = tf.Variable(np.arange(12, dtype=np.float32).reshape(4, 3) / 4 - 1)
        U = tf.Variable(np.array([[1., -2., 3.], [0.5, 0.25, -1.]], np.float32))
        u1 = tf.tensor_scatter_nd_update(T, [[1], [3]], U)
        u2 = tf.tensor_scatter_nd_add(T, [[0, 0], [2, 1]], [1.0, 2.0])
        u3 = tf.tensor_scatter_nd_sub(T, [[1]], U[:1])
        P = tf.placeholder(tf.float32, [None, 4, 2])
        I = tf.placeholder(tf.int32, [None, 3])
        bg = tf.batch_gather(P, I)
        loss = tf.reduce_sum(u1 * u1) + tf.reduce_sum(u2 ** 3) + \
            tf.reduce_sum(u3 * [1., 2., 3.]) + tf.reduce_sum(bg * bg)
        grads = tf.gradients(loss, [T, U, P])
        k = tf.placeholder(tf.int32, [])
        sw = tf.switch_case(k, [lambda: tf.constant(1.0), lambda: tf.constant(2.0)])
        sw2 = tf.switch_case(k, {0: lambda: tf.constant(10.0)}, default=lambda: tf.constant(-1.0))
        with pytest.raises(ValueError, match=r"contiguous range of \[0 to 2\) but found \[0, 2\]"):
            tf.switch_case(k, {0: lambda: tf.constant(1.0), 2: lambda: tf.constant(2.0)})
        pv = np.arange(16, dtype=np.float32).reshape(2, 4, 2) - 8
        iv = np.array([[3, 0, 3], [1, 2, 1]], np.int32)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got = sess.run([u1, u2, u3, bg] + grads, {P: pv, I: iv})
            switched = [sess.run([sw, sw2], {k: i}) for i in (0, 1, 7)]
    want = [  # TF 2.21
        [[-1.0, -0.75, -0.5], [1.0, -2.0, 3.0], [0.5, 0.75, 1.0], [0.5, 0.25, -1.0]],
        [[0.0, -0.75, -0.5], [-0.25, 0.0, 0.25], [0.5, 2.75, 1.0], [1.25, 1.5, 1.75]],
        [[-1.0, -0.75, -0.5], [-1.25, 2.0, -2.75], [0.5, 0.75, 1.0], [1.25, 1.5, 1.75]],
        [[[-2.0, -1.0], [-8.0, -7.0], [-2.0, -1.0]], [[2.0, 3.0], [4.0, 5.0], [2.0, 3.0]]],
        [[-1.0, 2.1875, 2.75], [1.1875, 2.0, 3.1875], [2.75, 26.1875, 8.0],
         [5.6875, 8.75, 12.1875]],
        [[1.0, -6.0, 3.0], [1.0, 0.5, -2.0]],
        [[[-16.0, -14.0], [0.0, 0.0], [0.0, 0.0], [-8.0, -4.0]],
         [[0.0, 0.0], [8.0, 12.0], [8.0, 10.0], [0.0, 0.0]]]]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-6)
    assert [[float(a), float(b)] for a, b in switched] == [[1.0, 10.0], [2.0, -1.0], [2.0, -1.0]]


def test_fused_batch_norm_training_and_inference_as_tf():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3, 2, 2])
        sc = tf.Variable(np.array([1.5, 0.5], np.float32))
        of = tf.Variable(np.array([0.1, -0.2], np.float32))
        y, m, v = tf.nn.fused_batch_norm(x, sc, of, epsilon=1e-3)
        yi, mi, vi = tf.nn.fused_batch_norm(x, sc, of, mean=[0.5, 1.0], variance=[2.0, 0.5],
                                            is_training=False)
        g = tf.gradients(tf.reduce_sum(y ** 3) + tf.reduce_sum(yi * 2.0), [x, sc, of])
        xv = (np.arange(24, dtype=np.float32).reshape(2, 3, 2, 2) % 7) / 3
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got = [np.ravel(o)[:8] for o in sess.run([y, m, v, yi] + g, {x: xv})]
    want = [  # TF 2.21 (v: the batch variance with Bessel's correction, as TF's kernel)
        [-1.94607, -0.63141, -0.50179, -0.11372, 0.9425, 0.40398, 2.38679, -0.89026],
        [0.94444, 0.88889], [0.52189, 0.45118],
        [-0.4302, -0.67093, 0.27673, -0.2, 0.98366, 0.27093, 1.69059, -0.9064],
        [18.04903, 1.36577, -9.14416, 0.82906, -9.22282, 1.54108, 17.81307, 2.1024],
        [31.79164, -9.16952], [105.19106, 34.41829]]
    for g_, w in zip(got, want):
        np.testing.assert_allclose(g_, w, rtol=2e-6, atol=2e-5)
