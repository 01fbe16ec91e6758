"""TF1 names added after a second probe, against numbers, dtypes and errors taken from
real TensorFlow (2.21, compat.v1 with v2 behaviour disabled): tf.test's gradient
checker, tf.sort/argsort, and the other ops and refusals of this round."""
import numpy as np
import pytest

import symgrad.compat.v1 as tf


# -- tf.test.compute_gradient ----------------------------------------------------------

def test_compute_gradient_layout_values_and_error_are_tfs():
    x = tf.placeholder(tf.float32, [2, 3])
    y = tf.reduce_sum(tf.square(x), axis=0) * tf.constant([1., 2., 3.])
    xv = np.arange(6, dtype=np.float32).reshape(2, 3)
    with tf.Session():
        theoretical, numerical = tf.test.compute_gradient(x, [2, 3], y, [3], x_init_value=xv)
        error = tf.test.compute_gradient_error(x, [2, 3], y, [3], x_init_value=xv)
    # rows: the entries of x; columns: the entries of y (TF's numbers)
    np.testing.assert_array_equal(theoretical, [[0, 0, 0], [0, 4, 0], [0, 0, 12],
                                                [6, 0, 0], [0, 16, 0], [0, 0, 30]])
    np.testing.assert_allclose(numerical, [[0, 0, 0], [0, 3.9997098, 0], [0, 0, 12.004851],
                                           [5.9995646, 0, 0], [0, 16.000748, 0],
                                           [0, 0, 29.998777]], rtol=1e-6)
    assert theoretical.dtype == numerical.dtype == np.float32
    assert error.dtype == np.float32 and error == pytest.approx(0.0048513412, rel=1e-5)


def test_compute_gradient_float64_delta_and_default_init():
    xd = tf.placeholder(tf.float64, [2])
    a = tf.placeholder(tf.float32, [2])
    b = tf.placeholder(tf.float32, [])
    with tf.Session():
        t, n = tf.test.compute_gradient(xd, [2], tf.sin(xd) * xd[0], [2],
                                        x_init_value=np.array([0.5, 1.5]))
        assert t.dtype == n.dtype == np.float64
        np.testing.assert_allclose(t, [[0.91821682, 0.99749499], [0, 0.0353686]], atol=1e-8)
        np.testing.assert_allclose(n, [[0.91821651, 0.99749499], [0, 0.03536859]], atol=1e-8)
        t, n = tf.test.compute_gradient(a, [2], tf.exp(a), [2], delta=0.1,
                                        x_init_value=np.array([0., 1.], np.float32))
        np.testing.assert_allclose(n, [[1.0016676, 0], [0, 2.7228153]], rtol=1e-6)
        np.testing.assert_allclose(t, [[1, 0], [0, 2.7182817]], rtol=1e-6)
        np.random.seed(0)     # TF draws x from numpy's global generator
        t, n = tf.test.compute_gradient(a, [2], a * b + b, [2], extra_feed_dict={b: 3.})
        np.testing.assert_allclose(n, [[3.0000207, 0], [0, 3.0000207]], rtol=1e-7)
        np.testing.assert_array_equal(t, 3 * np.eye(2))
        h = tf.placeholder(tf.float16, [2])
        t, n = tf.test.compute_gradient(h, [2], h * h, [2],
                                        x_init_value=np.array([1., 2.], np.float16))
        assert t.dtype == n.dtype == np.float16
        np.testing.assert_array_equal(t, [[2, 0], [0, 4]])


def test_compute_gradient_of_a_list_of_variables_feeds_each_alone():
    av, bv = tf.Variable([1., 2.]), tf.Variable(3.)
    z = av * bv + bv
    inits = [np.array([1., 5.], np.float32), np.array(3., np.float32)]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        found = tf.test.compute_gradient([av, bv], [[2], []], z, [2], x_init_value=inits)
        assert isinstance(found, list) and [type(p) for p in found] == [tuple, tuple]
        (ta, na), (tb, nb) = found
        np.testing.assert_array_equal(ta, [[3, 0], [0, 3]])
        np.testing.assert_allclose(na, [[3.0002592, 0], [0, 3.0002592]], rtol=1e-6)
        np.testing.assert_array_equal(tb, [[2, 3]])     # b = 3 fed, a its stored [1, 2]
        np.testing.assert_allclose(nb, [[1.9998549, 3.0002592]], rtol=1e-6)
        err = tf.test.compute_gradient_error([av, bv], [[2], []], z, [2], x_init_value=inits)
        assert err == pytest.approx(0.000259161, rel=1e-4)
        np.testing.assert_array_equal(sess.run(av), [1, 2])     # stored values untouched
        v = tf.Variable([1., 2.])
        t, n = tf.test.compute_gradient(v, [2], v * v, [2], init_targets=[
            tf.global_variables_initializer()], x_init_value=np.array([1., 2.], np.float32))
        np.testing.assert_array_equal(t, [[2, 0], [0, 4]])
        a, b = tf.placeholder(tf.float32, [2]), tf.placeholder(tf.float32, [])
        with pytest.raises(tf.errors.InvalidArgumentError, match="must feed a value"):
            tf.test.compute_gradient([a, b], [[2], []], a * b + b, [2])   # (as TF: b unfed)


def test_compute_gradient_of_a_constant_a_variable_and_a_sort_as_tf():
    np.random.seed(3)
    with tf.Session():
        x = tf.constant([[1., 2., 3.], [4., 5., 6.]], name="x")
        t, n = tf.test.compute_gradient(x, [2, 3], tf.nn.softmax(x), [2, 3])
        np.testing.assert_allclose(t[:3, :3], [[0.22439, -0.13527, -0.08912],
                                               [-0.13527, 0.23957, -0.10431],
                                               [-0.08912, -0.10431, 0.19343]], atol=1e-5)
        np.testing.assert_array_equal(t[:3, 3:], 0)
        np.testing.assert_allclose(n, t, atol=2e-4)
        err = tf.test.compute_gradient_error(
            x, [2, 3], tf.reduce_sum(tf.sort(x) * tf.constant([1., 2., 3.]), 1), [2],
            x_init_value=np.array([[3., 1., 2.], [0.5, 0.2, 0.9]], np.float32))
        assert err == pytest.approx(0.000549376, rel=1e-4)      # TF's
        w = tf.get_variable("w", [3, 2], initializer=tf.ones_initializer())
        tf.global_variables_initializer().run()
        t, n = tf.test.compute_gradient(w, [3, 2], tf.matmul(x, w), [2, 2])
        np.testing.assert_array_equal(t, [[1, 0, 4, 0], [0, 1, 0, 4], [2, 0, 5, 0],
                                          [0, 2, 0, 5], [3, 0, 6, 0], [0, 3, 0, 6]])


def test_compute_gradient_bad_input():
    x = tf.placeholder(tf.float32, [2, 3])
    y = tf.reduce_sum(x, 0)
    xv = np.zeros((2, 3), np.float32)
    with pytest.raises(ValueError, match="no.*default session|default session, and none"):
        tf.test.compute_gradient(x, [2, 3], y, [3], x_init_value=xv)
    with tf.Session():
        with pytest.raises(AssertionError, match=r"^x_shape = \[3, 2\], init_data shape = "
                                                 r"\[2, 3\]$"):
            tf.test.compute_gradient(x, [3, 2], y, [3], x_init_value=xv)
        with pytest.raises(ValueError, match=r"y_shape \[4\] does not match"):
            tf.test.compute_gradient(x, [2, 3], y, [4], x_init_value=xv)
        with pytest.raises(AssertionError, match="^dx = None"):
            tf.test.compute_gradient(tf.placeholder(tf.float32, [2]), [2], y, [3],
                                     extra_feed_dict={x: xv})
        xi = tf.placeholder(tf.int32, [2])
        with pytest.raises(AssertionError, match="^Don't support type int32 for x"):
            tf.test.compute_gradient(xi, [2], tf.cast(xi, tf.float32) * 2., [2])
        with pytest.raises(TypeError, match="y must be one tensor"):
            tf.test.compute_gradient(x, [2, 3], [y, y], [[3], [3]])


def test_test_helpers_and_refused_test_case():
    assert tf.test.is_gpu_available() is False and tf.test.gpu_device_name() == ""
    with pytest.raises(AttributeError, match="tf.test.TestCase is not supported; .*pytest"):
        tf.test.TestCase


# -- tf.sort / tf.argsort / tf.searchsorted ----------------------------------------------

def test_sort_and_argsort_values_ties_directions_and_axes():
    x = tf.constant([3., 1., 2., 1., 0., 5.])
    m = tf.constant([[3., 1., 2.], [0., 5., 4.]])
    i = tf.constant([3, -2147483648, 2147483647, 0, 3], tf.int32)
    p = tf.placeholder(tf.float32, [None, 3])
    with tf.Session() as sess:
        found = sess.run([tf.sort(x), tf.sort(x, direction="DESCENDING"), tf.argsort(x),
                          tf.argsort(x, direction="DESCENDING"), tf.argsort(x, stable=True),
                          tf.sort(i), tf.argsort(i), tf.sort(m, axis=0),
                          tf.argsort(m, axis=0), tf.sort(m, axis=1, direction="DESCENDING"),
                          tf.sort(tf.constant([3, 0, 255], tf.uint8))])
        by_rows = sess.run(tf.sort(p), {p: [[3., 1., 2.], [0., -1., 5.]]})
    expected = [[0, 1, 1, 2, 3, 5], [5, 3, 2, 1, 1, 0], [4, 1, 3, 2, 0, 5],
                [5, 0, 2, 1, 3, 4], [4, 1, 3, 2, 0, 5],
                [-2147483648, 0, 3, 3, 2147483647], [1, 3, 0, 4, 2],
                [[0, 1, 2], [3, 5, 4]], [[1, 0, 0], [0, 1, 1]], [[3, 2, 1], [5, 4, 0]],
                [0, 3, 255]]
    for got, want in zip(found, expected):
        np.testing.assert_array_equal(got, want)
    assert [f.dtype for f in found[:3]] == [np.float32, np.float32, np.int32]
    assert found[5].dtype == np.int32 and found[10].dtype == np.uint8
    np.testing.assert_array_equal(by_rows, [[1, 2, 3], [-1, 0, 5]])


def test_sort_gradient_goes_back_to_where_each_value_came_from():
    v = tf.Variable([[3., 1., 2.], [0., 5., 4.]])
    w = tf.constant([[1., 2., 3.], [4., 5., 6.]])
    ties = tf.Variable([1., 1., 2.])
    g1 = tf.gradients(tf.sort(v, axis=1) * w, v)
    g0 = tf.gradients(tf.sort(v, axis=0, direction="DESCENDING") * w, v)
    g2 = tf.gradients(tf.sort(ties) * tf.constant([1., 2., 3.]), ties)
    assert tf.gradients(tf.cast(tf.argsort(v), tf.float32), v) == [None]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        # TF's numbers
        np.testing.assert_array_equal(sess.run(g1)[0], [[3, 1, 2], [4, 6, 5]])
        np.testing.assert_array_equal(sess.run(g0)[0], [[1, 5, 6], [4, 2, 3]])
        np.testing.assert_array_equal(sess.run(g2)[0], [1, 2, 3])


def test_sort_nan_inf_order_and_bad_arguments():
    n = tf.constant([3., np.nan, 1., np.inf, -np.inf, np.nan, 0.])
    with tf.Session() as sess:
        up, down = sess.run([tf.sort(n), tf.sort(n, direction="DESCENDING")])
    # (TF's order with NaN is not defined; symgrad's puts them last, numpy's order)
    np.testing.assert_array_equal(up, [-np.inf, 0, 1, 3, np.inf, np.nan, np.nan])
    np.testing.assert_array_equal(down, [np.nan, np.nan, np.inf, 3, 1, 0, -np.inf])
    m = tf.constant([[3., 1., 2.]])
    with pytest.raises(ValueError, match="^Argument `direction` should be one of ASCENDING, "
                                         "DESCENDING. Received: direction=UP$"):
        tf.sort(m, direction="UP")
    with pytest.raises(ValueError, match="axis 2 is out of range"):
        tf.sort(m, axis=2)
    with pytest.raises(TypeError, match="dtype bool cannot be sorted"):
        tf.sort(tf.constant([True, False]))


def test_sort_and_the_other_ops_take_unknown_sizes_and_any_shape_placeholders():
    p = tf.placeholder(tf.float32, [None, None])
    s = tf.sort(p)
    g = tf.gradients(tf.reduce_sum(s * s[:, :1]), p)[0]
    q, r = tf.placeholder(tf.float32), tf.placeholder(tf.int32)
    anything = [tf.sort(q), tf.argsort(q), tf.nn.crelu(q), tf.bincount(r), *tf.setdiff1d(r, [1])]
    with tf.Session() as sess:
        feed = {p: [[2., 1.], [0., -1.], [7., 7.]]}
        np.testing.assert_array_equal(sess.run(s, feed), [[1, 2], [-1, 0], [7, 7]])
        np.testing.assert_array_equal(sess.run(tf.argsort(p, axis=0, direction="DESCENDING"),
                                               feed), [[2, 2], [0, 0], [1, 1]])
        np.testing.assert_array_equal(sess.run(g, feed), [[1, 4], [-1, -2], [21, 7]])
        got = sess.run(anything, {q: [[3., 1., 2.]], r: [1, 2, 2, 4]})
    for value, want in zip(got, [[[1, 2, 3]], [[1, 2, 0]], [[3, 1, 2, 0, 0, 0]],
                                 [0, 1, 2, 0, 1], [2, 2, 4], [1, 2, 3]]):
        np.testing.assert_array_equal(value, want)


def test_searchsorted_left_and_right():
    seq = tf.constant([[0., 3., 9., 9., 10.], [1., 2., 3., 4., 5.]])
    vals = tf.constant([[2., 9., 10.], [0., 5., 6.]])
    with tf.Session() as sess:
        left, right, flat = sess.run([tf.searchsorted(seq, vals),
                                      tf.searchsorted(seq, vals, side="right"),
                                      tf.searchsorted([1., 2., 3.], [2.5, 0.])])
    np.testing.assert_array_equal(left, [[1, 2, 4], [0, 4, 5]])
    np.testing.assert_array_equal(right, [[1, 4, 5], [0, 5, 5]])
    np.testing.assert_array_equal(flat, [2, 0])
    assert left.dtype == np.int32
    assert tf.searchsorted(seq, vals, out_type=tf.int64).dtype == np.int64
    with pytest.raises(ValueError, match="^Argument `side` must be either 'right' or 'left'"):
        tf.searchsorted(seq, vals, side="middle")


# -- cross, crelu, log_poisson_loss, bincount, setdiff1d ---------------------------------

def test_cross_and_crelu_with_gradients():
    a = tf.Variable([[1., 2., 3.], [4., 5., 6.]])
    b = tf.Variable([[0., 1., 0.], [7., 8., 9.]])
    c = tf.cross(a, b)
    w = tf.constant([[1., 0., 2.], [-1., 3., 1.]])
    ga, gb = tf.gradients(tf.reduce_sum(c * w), [a, b])
    r = tf.nn.crelu(a)
    gr = tf.gradients(tf.reduce_sum(tf.nn.crelu(a - 3.) * tf.range(6, dtype=tf.float32)), a)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_array_equal(sess.run(c), [[-3, 0, 1], [-3, 6, -3]])
        # d(w . a x b)/da = b x w, /db = w x a
        np.testing.assert_array_equal(sess.run(ga), np.cross(sess.run(b), sess.run(w)))
        np.testing.assert_array_equal(sess.run(gb), np.cross(sess.run(w), sess.run(a)))
        np.testing.assert_array_equal(sess.run(tf.linalg.cross([1., 0., 0.], [0., 1., 0.])),
                                      [0, 0, 1])
        np.testing.assert_array_equal(sess.run(tf.cross([1, 0, 0], [0, 1, 0])), [0, 0, 1])
        np.testing.assert_array_equal(sess.run(tf.nn.crelu(tf.constant([[-1., 2.], [3., -4.]]))),
                                      [[0, 2, 1, 0], [3, 0, 0, 4]])
        np.testing.assert_array_equal(
            sess.run(tf.nn.crelu(tf.constant([[-1., 2.], [3., -4.]]), axis=0)),
            [[0, 2], [3, 0], [1, 0], [0, 4]])
        assert sess.run(r).shape == (2, 6)
        # relu(x) gets weights 0..2, relu(-x) weights 3..5 (negated); 0 at x == 0 (TF)
        np.testing.assert_array_equal(sess.run(gr)[0], [[-3, -4, 0], [0, 1, 2]])
    with pytest.raises(ValueError, match="3 as the last dimension"):
        tf.cross([1., 0.], [0., 1.])
    with pytest.raises(ValueError, match="same shape"):
        tf.cross(tf.constant([[1., 0., 0.]]), tf.constant([0., 1., 0.]))


def test_log_poisson_loss_with_and_without_stirling_term():
    logits = tf.Variable([0.3, -1., 0.5, 1.2, 2., -0.5])
    targets = tf.Variable([0., 1., 2., 5., 0.5, 1.5])
    loss = tf.nn.log_poisson_loss(targets, logits)
    full = tf.nn.log_poisson_loss(targets=targets, log_input=logits, compute_full_loss=True)
    g_logits, g_targets = tf.gradients(tf.reduce_sum(full), [logits, targets])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_allclose(sess.run(loss), [1.3498589, 1.3678794, 0.6487212, -2.679883,
                                                    6.389056, 1.3565307], rtol=1e-6)
        np.testing.assert_allclose(sess.run(full), [1.3498589, 1.3678794, 1.3005277, 2.0909643,
                                                    6.389056, 1.5863993], rtol=1e-6)
        np.testing.assert_allclose(sess.run(g_logits), [1.3498589, -0.63212055, -0.35127878,
                                                        -1.679883, 6.889056, -0.89346933],
                                   rtol=1e-6)
        # TF: nan at target 0 (its where lets the log's NaN in); symgrad: -log_input there
        np.testing.assert_allclose(sess.run(g_targets), [-0.3, 1., 0.44314718, 0.5094378, -2.,
                                                         1.2387986], rtol=1e-6)
    with pytest.raises(ValueError, match=r"^`log_input` and `targets` must have the same "
                                         r"shape, received \(\(3,\) vs \(2,\)\)\.$"):
        tf.nn.log_poisson_loss(tf.constant([1., 2.]), tf.constant([1., 2., 3.]))


def test_bincount_lengths_weights_and_no_gradient():
    p = tf.placeholder(tf.int32, [None])
    w = tf.Variable([0.5, 1., 2.])
    with tf.Session() as sess:
        sess.run(w.initializer)
        got = sess.run([tf.bincount(tf.constant([1, 1, 3, 0, 7, 3])),
                        tf.bincount(tf.constant([1, 1, 3]), minlength=6),
                        tf.bincount(tf.constant([1, 1, 3, 7]), maxlength=3),
                        tf.bincount(tf.constant([1, 1, 3]), weights=w),
                        tf.bincount(tf.constant([1, 1, 3]), dtype=tf.float32),
                        tf.math.bincount(tf.constant([[1, 2], [2, 0]])),
                        tf.bincount(tf.constant([], tf.int32)),
                        tf.bincount(tf.constant([1., 2.]))])
        np.testing.assert_array_equal(sess.run(tf.bincount(p), {p: [0, 4, 4]}), [1, 0, 0, 0, 2])
        with pytest.raises(tf.errors.InvalidArgumentError, match="non-negative"):
            sess.run(tf.bincount(p), {p: [-1, 2]})
    want = [[1, 2, 0, 2, 0, 0, 0, 1], [0, 2, 0, 1, 0, 0], [0, 2, 0], [0, 1.5, 0, 2],
            [0, 2, 0, 1], [1, 1, 2], [], [0, 1, 1]]
    for g, v in zip(got, want):
        np.testing.assert_array_equal(g, v)
    assert [g.dtype for g in got[:5]] == [np.int32] * 3 + [np.float32] * 2
    with pytest.raises(ValueError, match="weights \\(2 entries\\) must have arr's shape"):
        tf.bincount(tf.constant([1, 1, 3]), weights=[1., 2.])
    with pytest.raises(LookupError, match="No gradient defined for operation 'bincount'"):
        tf.gradients(tf.bincount(tf.constant([1, 1, 3]), weights=w), w)


def test_setdiff1d_out_idx_dtypes_and_no_gradient():
    out, idx = tf.setdiff1d([1, 2, 3, 4, 5, 6, 3], [1, 3, 5])
    f = tf.setdiff1d(tf.constant([1., 2., 2., 4.]), tf.constant([4.]))
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(out), [2, 4, 6])
        np.testing.assert_array_equal(sess.run(idx), [1, 3, 5])
        np.testing.assert_array_equal(sess.run(f.out), [1, 2, 2])
        np.testing.assert_array_equal(sess.run(f.idx), [0, 1, 2])
    assert out.dtype == np.int32 and idx.dtype == np.int32
    assert [t.dtype for t in tf.setdiff1d([1, 2], [1], index_dtype=tf.int64)] == [np.int32,
                                                                                   np.int64]
    with pytest.raises(ValueError, match="must be vectors"):
        tf.setdiff1d([[1, 2]], [1])
    with pytest.raises(TypeError, match="Input 'y' of 'ListDiff' Op has type float32 that does "
                                        "not match type int32 of argument 'x'"):
        tf.setdiff1d(tf.constant([1, 2]), tf.constant([1.]))
    v = tf.Variable([1., 2.])
    with pytest.raises(LookupError, match="No gradient defined for operation 'ListDiff'"):
        tf.gradients(tf.setdiff1d(v, tf.constant([1.]))[0], v)


# -- refusals ----------------------------------------------------------------------------

@pytest.mark.parametrize("path, words", [
    ("GradientTape", "graph mode only.*tf.gradients"), ("function", "sg.compile"),
    ("enable_eager_execution", "graph mode only"),
    ("train.import_meta_graph", "rebuild the graph in Python.*tf.train.Saver"),
    ("train.export_meta_graph", "rebuild the graph"), ("saved_model", "rebuild the graph"),
    ("graph_util", "tf.train.Saver"), ("linalg.lu", "cholesky.*svd and qr.*no LU"),
    ("linalg.sqrtm", "no matrix square root"), ("nn.ctc_loss", "CTC loss")])
def test_missing_names_say_what_to_do(path, words):
    owner = tf
    *parents, last = path.split(".")
    for part in parents:
        owner = getattr(owner, part)
    with pytest.raises(AttributeError, match=f"^tf.{path}: .*{words}"):
        getattr(owner, last)


def test_executing_eagerly_is_false_as_in_tf1_graph_mode():
    assert tf.executing_eagerly() is False


# -- tf.distributions.Bernoulli and kl_divergence ----------------------------------------

def test_bernoulli_from_logits_values_gradients_and_samples():
    lg = tf.Variable([-1., 0., 2.5])
    b = tf.distributions.Bernoulli(logits=lg)
    v = tf.constant([1., 0., 1.])
    fetch = dict(probs=b.probs, log_prob=b.log_prob(v), log_prob_int=b.log_prob([1, 0, 1]),
                 both=b.log_prob([[1], [0]]), prob=b.prob(v), entropy=b.entropy(),
                 mean=b.mean(), variance=b.variance(), stddev=b.stddev(), mode=b.mode(),
                 g_log_prob=tf.gradients(tf.reduce_sum(b.log_prob(v)), lg)[0],
                 g_entropy=tf.gradients(tf.reduce_sum(b.entropy()), lg)[0],
                 freq=tf.reduce_mean(tf.cast(b.sample(20000, seed=1), tf.float32), 0))
    with tf.Session() as sess:
        sess.run(lg.initializer)
        got = sess.run(fetch)
    want = dict(probs=[0.26894143, 0.5, 0.9241418],
                log_prob=[-1.3132617, -0.6931472, -0.07888974],
                log_prob_int=[-1.3132617, -0.6931472, -0.07888974],
                both=[[-1.3132617, -0.6931472, -0.07888974], [-0.3132617, -0.6931472, -2.5788898]],
                prob=[0.2689414, 0.5, 0.9241418], entropy=[0.58220303, 0.6931472, 0.26853517],
                mean=[0.26894143, 0.5, 0.9241418], variance=[0.19661194, 0.25, 0.07010371],
                stddev=[0.44340944, 0.5, 0.26477104], mode=[0, 0, 1],
                g_log_prob=[0.7310586, -0.5, 0.07585818],
                g_entropy=[0.19661194, 0, -0.17525928])
    for key, value in want.items():
        np.testing.assert_allclose(got[key], value, rtol=2e-6, atol=1e-7, err_msg=key)
    assert got["log_prob"].dtype == np.float32 and got["mode"].dtype == np.int32
    np.testing.assert_allclose(got["freq"], got["probs"], atol=0.015)   # 20000 draws
    assert b.dtype == np.int32 and b.sample().dtype == np.int32
    assert [b.sample().shape, b.sample(5).shape, b.sample([2, 4]).shape] == [
        (3,), (5, 3), (2, 4, 3)]
    assert tf.distributions.Bernoulli(logits=[1.], dtype=tf.float32).sample().dtype == \
        np.float32


def test_bernoulli_from_probs_and_its_edges():
    p = tf.distributions.Bernoulli(probs=[0.2, 0.5, 0.9])
    edge = tf.distributions.Bernoulli(probs=[0., 1.])
    with tf.Session() as sess:
        logits, log_prob, entropy = sess.run([p.logits, p.log_prob([1, 0, 0]), p.entropy()])
        edges = sess.run([edge.log_prob([0, 1]), edge.entropy()])
    np.testing.assert_allclose(logits, [-1.3862944, 0, 2.1972244], rtol=1e-6)
    np.testing.assert_allclose(log_prob, [-1.609438, -0.6931472, -2.302585], rtol=1e-6)
    np.testing.assert_allclose(entropy, [0.50040245, 0.6931472, 0.32508302], rtol=1e-6)
    assert np.isnan(edges).all()        # TF: infinite logits give NaN here too
    with pytest.raises(ValueError, match="^Must pass probs or logits, but not both.$"):
        tf.distributions.Bernoulli(logits=[1.], probs=[0.5])
    with pytest.raises(ValueError, match="Must pass probs or logits"):
        tf.distributions.Bernoulli()


def test_kl_divergence_of_normals_bernoullis_and_categoricals():
    m, s = tf.Variable([0., 1.]), tf.Variable([1., 2.])
    n2 = tf.distributions.Normal(loc=[1., -1.], scale=[2., 0.5])
    kl_n = tf.distributions.kl_divergence(tf.distributions.Normal(m, s), n2)
    lg = tf.Variable([-1., 0., 2.5])
    b2 = tf.distributions.Bernoulli(probs=[0.3, 0.5, 0.6])
    kl_b = tf.distributions.kl_divergence(tf.distributions.Bernoulli(logits=lg), b2)
    kl_c = tf.distributions.kl_divergence(tf.distributions.Categorical(logits=[[0., 1., 2.]]),
                                          tf.distributions.Categorical(probs=[[0.2, 0.3, 0.5]]))
    fetch = [kl_n, tf.gradients(tf.reduce_sum(kl_n), [m, s]), kl_b,
             tf.gradients(tf.reduce_sum(kl_b), lg)[0], tf.distributions.kl_divergence(b2, b2),
             kl_c]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        kn, (gm, gs), kb, gb, same, kc = sess.run(fetch)
    np.testing.assert_allclose(kn, [0.44314718, 14.113706], rtol=1e-6)
    np.testing.assert_allclose(gm, [-0.25, 8.], rtol=1e-6)
    np.testing.assert_allclose(gs, [-0.75, 7.5], rtol=1e-6)
    np.testing.assert_allclose(kb, [0.00234534, 0., 0.2730483], rtol=2e-5, atol=1e-7)
    np.testing.assert_allclose(gb, [-0.03002305, 0., 0.14683467], rtol=2e-6)
    np.testing.assert_array_equal(same, [0, 0, 0])
    np.testing.assert_allclose(kc, [0.06825939], rtol=1e-5)
    with pytest.raises(NotImplementedError, match="^No KL\\(distribution_a \\|\\| "
                                                  "distribution_b\\) registered for "
                                                  "distribution_a type Normal and "
                                                  "distribution_b type Bernoulli"):
        tf.distributions.kl_divergence(n2, b2)
