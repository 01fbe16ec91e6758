"""TF1 control flow written the way TF's API docs write it; only the import is changed.

Each snippet is the documented example of ``tf.cond``, ``tf.while_loop``,
``tf.map_fn`` or ``tf.scan`` (TF 1.15 docs), with the documented result.
"""
import numpy as np
import pytest

import symgrad.compat.v1 as tf

from .oracles import central_difference
from .tf1_programs import run_tf1


@pytest.fixture(autouse=True)
def fresh_graph():
    with tf.Graph().as_default() as g:
        yield g


def run(fetches, feed_dict=None):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return sess.run(fetches, feed_dict=feed_dict)


def test_cond_doc_example():
    x = tf.constant(2)
    y = tf.constant(5)

    def f1():
        return tf.multiply(x, 17)

    def f2():
        return tf.add(y, 23)
    r = tf.cond(tf.less(x, y), f1, f2)
    assert run(r) == 34  # r is set to f1(); operations in f2 (e.g., tf.add) are not executed


def test_cond_gradient_with_lambdas():
    x = tf.placeholder(tf.float32, shape=())
    y = tf.cond(x > 0, lambda: tf.square(x), lambda: tf.sin(x))
    g = tf.gradients(y, x)
    assert run(g, {x: 3.0})[0] == pytest.approx(6.0)
    assert run(g, {x: -1.0})[0] == pytest.approx(np.cos(-1.0))


def test_while_loop_doc_example():
    i = tf.constant(0)
    c = lambda i: tf.less(i, 10)  # noqa: E731
    b = lambda i: tf.add(i, 1)  # noqa: E731
    r = tf.while_loop(c, b, [i])
    assert run(r) == 10


def test_while_loop_doc_nested_structure():
    ijk_0 = (tf.constant(0), (tf.constant(1), tf.constant(2)))
    c = lambda i, p: i < 10  # noqa: E731
    b = lambda i, p: (i + 1, (p[0] + p[1], p[0] - p[1]))  # noqa: E731
    ijk_final = tf.while_loop(c, b, ijk_0)
    i, (j, k) = run(ijk_final)
    a, d = 1, 2
    for _ in range(10):
        a, d = a + d, a - d
    assert (i, j, k) == (10, a, d)


def test_while_loop_summing_a_series_and_its_gradient():
    # exp(x) = sum x**n / n!, summed until the term is negligible
    x = tf.placeholder(tf.float64, shape=())

    def body(n, term, total):
        return n + 1, term * x / tf.cast(n + 1, tf.float64), total + term
    _, _, total = tf.while_loop(lambda n, term, total: tf.abs(term) > 1e-12, body,
                                [tf.constant(0), tf.constant(1.0, tf.float64),
                                 tf.constant(0.0, tf.float64)])
    (g,) = tf.gradients(total, x)
    value, grad = run([total, g], {x: 1.5})
    assert value == pytest.approx(np.exp(1.5), rel=1e-12)
    assert grad == pytest.approx(np.exp(1.5), rel=1e-10)


def test_map_fn_doc_examples():
    elems = np.array([1, 2, 3, 4, 5, 6])
    squares = tf.map_fn(lambda x: x * x, elems)
    assert run(squares).tolist() == [1, 4, 9, 16, 25, 36]
    elems = (np.array([1, 2, 3]), np.array([-1, 1, -1]))
    alternate = tf.map_fn(lambda x: x[0] * x[1], elems, dtype=tf.int64)
    assert run(alternate).tolist() == [-1, 2, -3]


def test_map_fn_over_rows_with_gradient():
    W = tf.Variable(np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]), dtype=tf.float32)
    norms = tf.map_fn(lambda row: tf.reduce_sum(row * row), W)
    (g,) = tf.gradients(tf.reduce_sum(norms), W)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        n, gw = sess.run([norms, g])
    assert n.tolist() == [5.0, 25.0, 61.0] and n.dtype == np.float32
    np.testing.assert_allclose(gw, 2 * W.value)


def test_scan_doc_examples():
    elems = np.array([1, 2, 3, 4, 5, 6])
    cumsum = tf.scan(lambda a, x: a + x, elems)
    assert run(cumsum).tolist() == [1, 3, 6, 10, 15, 21]
    elems = np.array([1, 2, 3, 4, 5, 6])
    initializer = np.array(0)
    sum_one = tf.scan(lambda a, x: x[0] - x[1] + a, (elems + 1, elems), initializer)
    assert run(sum_one).tolist() == [1, 2, 3, 4, 5, 6]
    elems = np.array([1, 0, 0, 0, 0, 0])
    initializer = (np.array(0), np.array(1))
    fibonaccis = tf.scan(lambda a, _: (a[1], a[0] + a[1]), elems, initializer)
    first, second = run(fibonaccis)
    # fibonaccis == ([1, 1, 2, 3, 5, 8], [1, 2, 3, 5, 8, 13])
    assert first.tolist() == [1, 1, 2, 3, 5, 8] and second.tolist() == [1, 2, 3, 5, 8, 13]


def test_scan_cumulative_recurrence_gradient():
    # an exponential moving average; d(sum of outputs)/d(decay) by hand
    xs = tf.placeholder(tf.float64, shape=(4,))
    decay = tf.Variable(0.5, dtype=tf.float64)
    ema = tf.scan(lambda acc, x: decay * acc + (1 - decay) * x, xs,
                  initializer=tf.constant(0.0, tf.float64))
    (g,) = tf.gradients(tf.reduce_sum(ema), decay)
    x0 = np.array([1.0, 2.0, -1.0, 0.5])

    def total(d):
        acc, out = 0.0, 0.0
        for v in x0:
            acc = d * acc + (1 - d) * v
            out += acc
        return out
    h = 1e-6
    assert run(g, {xs: x0}) == pytest.approx((total(0.5 + h) - total(0.5 - h)) / (2 * h),
                                             rel=1e-7)


def test_while_loop_back_prop_false_and_float32_dtypes():
    x = tf.Variable(1.5)
    y = tf.while_loop(lambda v: v < 100.0, lambda v: v * x, [x], back_prop=False,
                      shape_invariants=[x.get_shape()], parallel_iterations=1)
    assert y.dtype == np.float32
    assert tf.gradients(y, x) == [None]


def test_an_is_training_flag_of_any_shape_picks_a_branch():
    # is_training = tf.placeholder(tf.bool), as TF1 scripts write it (no shape)
    is_training = tf.placeholder(tf.bool)
    x = tf.placeholder(tf.float32, [3])
    out = tf.cond(is_training, lambda: x * 2.0, lambda: x - 1.0)
    assert out.shape.as_list() == [3]
    data = np.array([1.0, 2.0, 3.0], np.float32)
    np.testing.assert_allclose(run(out, {is_training: True, x: data}), data * 2)
    np.testing.assert_allclose(run(out, {is_training: False, x: data}), data - 1)


def test_a_variable_update_inside_a_branch_is_refused_and_the_outside_form_works():
    # a branch is traced as a function of its inputs: an assign made inside would never
    # run (it silently left v unchanged); the error says how to write it
    v = tf.Variable(0.0)
    p = tf.placeholder(tf.bool, [])

    def increment():
        u = tf.assign_add(v, 1.0)
        with tf.control_dependencies([u]):
            return tf.identity(v)
    with pytest.raises(ValueError, match=r"cond\(true_fn\) makes 'AssignAdd'.*assign it outside"):
        tf.cond(p, increment, lambda: tf.identity(v))
    def body(i):
        with tf.control_dependencies([tf.assign_add(v, 1.0)]):
            return i + 1.0
    with pytest.raises(ValueError, match=r"while_loop\(body\) makes"):
        tf.while_loop(lambda i: i < 3, body, [tf.constant(0.0)])
    step = v.assign(tf.cond(p, lambda: v + 1.0, lambda: v))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for flag in (True, True, False, True):
            sess.run(step, {p: flag})
        assert sess.run(v) == 3.0


def test_case_doc_example():
    # TF's docs: f1 if x < y, f2 if x > z, else r = -1 (x, y, z fed here)
    x, y, z = (tf.placeholder(tf.float32, []) for _ in range(3))

    def f1():
        return tf.constant(17.0)

    def f2():
        return x * 2.0
    r = tf.case([(tf.less(x, y), f1), (tf.greater(x, z), f2)],
                default=lambda: tf.constant(-1.0), exclusive=True)
    (dx,) = tf.gradients(r, x)
    for (xv, yv, zv), want, grad in (((1.0, 2.0, 5.0), 17.0, 0.0), ((3.0, 2.0, 0.0), 6.0, 2.0),
                                     ((3.0, 2.0, 5.0), -1.0, 0.0)):
        got = run([r, dx], {x: xv, y: yv, z: zv})
        assert got[0] == want and got[1] == grad
    # both predicates true (x=1 < 2 and 1 > 0): TF 2.21 raises (exclusive=True)
    with pytest.raises(tf.errors.InvalidArgumentError):
        run([r, dx], {x: 1.0, y: 2.0, z: 0.0})


def test_tensor_array_rnn_over_an_unknown_batch_matches_numpy_and_finite_differences():
    # the TF1 RNN idiom: unstack the inputs into one TensorArray, write each step's state
    # into another inside tf.while_loop, stack it after; the batch size is fed
    T, D, H = 4, 3, 2
    rng = np.random.RandomState(0)
    W0, U0 = rng.randn(D, H) * 0.5, rng.randn(H, H) * 0.5
    X = rng.randn(T, 3, D)
    ns = run_tf1("""
    import tensorflow as tf
    x = tf.placeholder(tf.float64, [T, None, D])
    W, U = tf.Variable(W0), tf.Variable(U0)
    inputs = tf.TensorArray(tf.float64, size=T).unstack(x)
    states = tf.TensorArray(tf.float64, size=T)
    def step(t, h, ta):
        h = tf.tanh(tf.matmul(inputs.read(t), W) + tf.matmul(h, U))
        return t + 1, h, ta.write(t, h)
    _, last, states = tf.while_loop(lambda t, h, ta: t < T, step,
                                    [tf.constant(0), tf.zeros([tf.shape(x)[1], H], tf.float64),
                                     states])
    outputs = states.stack()
    loss = tf.reduce_sum(outputs ** 2) + tf.reduce_sum(states.read(T - 1))
    gW = tf.gradients(loss, W)[0]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        o, l, g, n = sess.run([outputs, loss, gW, states.size()], {x: X})
    """, T=T, D=D, H=H, W0=W0, U0=U0, X=X)

    def run(w):
        h, outs = np.zeros((3, H)), []
        for t in range(T):
            h = np.tanh(X[t] @ w + h @ U0)
            outs.append(h)
        return np.array(outs)

    def loss(w):
        o = run(w)
        return (o ** 2).sum() + o[-1].sum()
    np.testing.assert_allclose(ns["o"], run(W0), rtol=1e-12)
    assert ns["l"] == pytest.approx(loss(W0), rel=1e-12) and ns["n"] == T
    np.testing.assert_allclose(ns["g"], central_difference(loss, W0), atol=1e-7)


def test_tensor_array_outside_loops_and_its_errors():
    with tf.Graph().as_default():
        ta = tf.TensorArray(tf.float32, size=3, element_shape=[2])
        ta = ta.write(1, [1.0, 2.0]).write(2, tf.constant([3.0, 4.0]))
        with tf.Session() as sess:
            assert sess.run(ta.stack()).tolist() == [[0, 0], [1, 2], [3, 4]]
            assert sess.run(ta.read(2)).tolist() == [3, 4]
            assert sess.run(ta.concat()).tolist() == [0, 0, 1, 2, 3, 4]
        with pytest.raises(ValueError, match="give its size"):
            tf.TensorArray(tf.float32, dynamic_size=True)
        with pytest.raises(ValueError, match="elements have shape"):
            ta.write(0, [1.0, 2.0, 3.0])
        with pytest.raises(ValueError, match="nothing was written"):
            tf.TensorArray(tf.float32, size=2).stack()


def test_tensor_array_running_mean_with_python_number_loop_vars():
    # the loop vars 0 and 0.0 become int32 and float32, as TF converts them, also while
    # the body is traced once for the array's element shape
    with tf.Graph().as_default():
        data = tf.constant(np.arange(1, 9, dtype=np.float32))
        out = tf.TensorArray(tf.float32, size=8)

        def body(i, acc, out):
            acc = acc + data[i]
            return i + 1, acc, out.write(i, acc / tf.cast(i + 1, tf.float32))
        _, _, out = tf.while_loop(lambda i, *_: i < 8, body, [0, 0.0, out])
        with tf.Session() as sess:
            got = sess.run(out.stack())
    np.testing.assert_allclose(got, np.cumsum(np.arange(1, 9)) / np.arange(1, 9))


def test_draws_in_a_while_loop_body_are_new_at_every_step_and_the_gradient_uses_them():
    # TF draws anew at each iteration (dropout in a dynamic_rnn cell: a mask per step);
    # the reverse sweep must read the same numbers the forward sweep drew
    import symgrad.compat.v1 as tf
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [])
        _, picks, total = tf.while_loop(
            lambda i, p, t: i < 3,
            lambda i, p, t: (i + 1, p + tf.one_hot(i, 3) * tf.random_uniform([]),
                             t + x * x * tf.random_uniform([])),
            [0, tf.zeros([3]), tf.constant(0.0)])
        (grad,) = tf.gradients(total, x)
        with tf.Session() as sess:
            first, t1, g1 = sess.run([picks, total, grad], {x: 2.0})
            second = sess.run(picks, {x: 2.0})
    assert len(set(np.round(first, 7))) == 3            # three different draws in one run
    assert not np.allclose(first, second)              # and new ones in the next run
    np.testing.assert_allclose(g1, 2 * t1 / 2.0, rtol=1e-5)   # d(x² S)/dx = 2xS = 2 t / x


def test_cond_refuses_a_python_bool_as_tf1_does():
    # tf.cond(i % 2 == 0, ...): in TF1, == between tensors compares the objects (False),
    # and TF raises rather than always taking the false branch; tf.equal is the test
    import symgrad.compat.v1 as tf
    with tf.Graph().as_default():
        v = tf.Variable([2.0, 3.0])

        def body(i, a):
            return i + 1, tf.cond(tf.equal(i % 2, 0), lambda: a * v[0], lambda: a + v[1])
        _, a = tf.while_loop(lambda i, a: i < 5, body, [tf.constant(0), tf.constant(1.0)])
        (g,) = tf.gradients(a, v)
        with pytest.raises(TypeError, match="'pred' must not be a Python bool"):
            tf.cond(tf.constant(0) % 2 == 0, lambda: v[0], lambda: v[1])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            value, grad = sess.run([a, g])
    assert value == 26.0   # TF 2.21: 26.0 and [27, 6]
    np.testing.assert_array_equal(grad, [27.0, 6.0])


def test_gathers_and_top_k_of_outer_tensors_inside_branches_and_loop_bodies():
    # tf.cond(p, lambda: tf.gather(table, outer_ids), ...) raised KeyError: the evaluator's
    # fast ways (a gather from its indices, top_k by one sort) read the outer tensors
    # where the branch holds its stand-ins for them.  TF 2.21's numbers.
    with tf.Graph().as_default():
        d = tf.constant(np.array([3, 1, 4, 1, 5, 9], np.int64))
        at = tf.placeholder(tf.int32, [3])
        x = tf.placeholder(tf.float32, [4])
        ids = tf.placeholder(tf.int32, [2])
        _, idx = tf.nn.top_k(tf.constant([1.0, 3.0, 2.0]), 2)
        fetches = [
            tf.cond(tf.constant(True), lambda: tf.gather(d, at), lambda: d[:3]),
            tf.cond(tf.constant(True), lambda: tf.gather(d, idx), lambda: d[:2]),
            tf.cond(tf.constant(True), lambda: tf.nn.top_k(x, 2).values, lambda: x[:2]),
            tf.while_loop(lambda i, s: i < 2, lambda i, s: (i + 1, s + tf.nn.top_k(x, 2).values),
                          (0, tf.zeros([2])))[1],
            tf.while_loop(lambda i, s: i < 2, lambda i, s: (i + 1, s + tf.gather(x, ids)),
                          (0, tf.zeros([2])))[1]]
        got = tf.Session().run(fetches, {at: [0, 2, 1], x: [1, 5, 3, 2], ids: [1, 3]})
    want = [[3, 4, 1], [1, 4], [5.0, 3.0], [10.0, 6.0], [10.0, 4.0]]
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def test_tensor_array_writes_and_reads_past_the_end_raise_in_a_session():
    # the one-hot write dropped a write past the end silently ([0, 2, 4] for five
    # writes into three); TF 2.21 raises, and grows a dynamic_size=True array
    with tf.Graph().as_default():
        n = tf.placeholder(tf.int32, [])

        def doubled(ta):
            def body(i, ta):
                return i + 1, ta.write(i, tf.cast(i, tf.float32) * 2.0)
            return tf.while_loop(lambda i, ta: i < n, body, (0, ta))[1].stack()
        fixed = doubled(tf.TensorArray(tf.float32, size=3))
        grows = doubled(tf.TensorArray(tf.float32, size=3, dynamic_size=True))
        read = tf.TensorArray(tf.float32, size=2).unstack([1.0, 2.0]).read(tf.constant(2))
        scattered = tf.TensorArray(tf.float32, size=2).scatter([0, 2], [1.0, 2.0]).stack()
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(fixed, {n: 3}), [0.0, 2.0, 4.0])
            np.testing.assert_array_equal(sess.run(grows, {n: 3}), [0.0, 2.0, 4.0])
            with pytest.raises(tf.errors.InvalidArgumentError, match="Tried to write to "
                               "index 3 but array is not resizeable and size is: 3"):
                sess.run(fixed, {n: 5})
            with pytest.raises(tf.errors.UnimplementedError, match="size="):
                sess.run(grows, {n: 5})
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match="Tried to read from index 2 but array size is: 2"):
                sess.run(read)
            with pytest.raises(tf.errors.InvalidArgumentError, match=r"Max scatter index "
                               r"must be < array size \(2 vs. 2\)"):
                sess.run(scattered)


def test_run_time_index_checks_reach_bodies_that_read_outer_tensors():
    # a gather or tf.slice in a loop body or cond branch by ids fed outside gave zeros
    # past the edge (the checks read the outer nodes, not the body's stand-ins), and
    # tf.slice at a fed begin inside a while body was refused; TF 2.21's messages
    with tf.Graph().as_default():
        x = tf.constant(np.arange(10.0, dtype=np.float32))
        ids = tf.placeholder(tf.int32, [2])
        begin = tf.placeholder(tf.int32, [1])

        def loop(body):
            return tf.while_loop(lambda i, s: i < 2, lambda i, s: (i + 1, s + body()),
                                 (0, tf.zeros([2 if body is gathered else 3])))[1]
        gathered = lambda: tf.gather(x, ids)          # noqa: E731
        sliced = lambda: tf.slice(x, begin, [3])      # noqa: E731
        in_loop, in_cond = loop(gathered), tf.cond(tf.constant(True), gathered, lambda: x[:2])
        slice_loop = loop(sliced)
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(slice_loop, {begin: [2]}), [4.0, 6.0, 8.0])
            np.testing.assert_array_equal(sess.run(in_loop, {ids: [1, 9]}), [2.0, 18.0])
            for t in (in_loop, in_cond):
                with pytest.raises(tf.errors.InvalidArgumentError,
                                   match=r"indices\[1\] = 12 is not in \[0, 10\)"):
                    sess.run(t, {ids: [1, 12]})
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=r"Expected size\[0\] in \[0, 2\], but got 3"):
                sess.run(slice_loop, {begin: [8]})
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=r"Expected begin\[0\] in \[0, 10\], but got -1"):
                sess.run(slice_loop, {begin: [-1]})
