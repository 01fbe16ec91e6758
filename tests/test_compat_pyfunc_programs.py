"""TF1 programs with Python functions in the graph, as TF's docs and users write them:
Dataset.map preprocessing, a loop body, a numpy feature under a trained dense layer,
the "numpy op with a custom gradient" idiom, tf.custom_gradient, tf.py_function's
eager values.

The expected numbers are TF 2.21's (tensorflow.compat.v1 with disable_v2_behavior),
printed by the same programs with the TF import.
"""
import numpy as np
import pytest

import symgrad.compat.v1 as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


def _parse(v):
    return (v * 10).astype(np.float32), np.int64(v.sum() > 1)


def test_dataset_map_runs_the_function_per_element():
    ds = tf.data.Dataset.from_tensor_slices(np.arange(6, dtype=np.float32).reshape(3, 2))
    ds = ds.map(lambda v: tf.py_func(_parse, [v], [tf.float32, tf.int64]))
    nxt = ds.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        got = [sess.run(nxt) for _ in range(3)]
        with pytest.raises(tf.errors.OutOfRangeError):
            sess.run(nxt)
    # TF 2.21: ([0., 10.], 0), ([20., 30.], 1), ([40., 50.], 1); float32 and int64
    assert [(a.tolist(), int(b)) for a, b in got] == [([0, 10], 0), ([20, 30], 1), ([40, 50], 1)]
    assert got[0][0].dtype == np.float32 and np.asarray(got[0][1]).dtype == np.int64


def test_dataset_map_then_batch():
    ds = tf.data.Dataset.range(5).map(
        lambda i: tf.py_func(lambda k: np.float32(k) ** 2, [i], tf.float32)).batch(2)
    nxt = ds.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        got = [sess.run(nxt).tolist() for _ in range(3)]
    assert got == [[0.0, 1.0], [4.0, 9.0], [16.0]]   # TF 2.21


def test_while_loop_body_calls_the_function_at_every_iteration():
    calls = []

    def step(v):
        calls.append(1)
        return (v * 0.5 + 1).astype(np.float32)

    def body(i, x):
        y = tf.py_func(step, [x], tf.float32)
        y.set_shape([2])
        return i + 1, y
    _, xf = tf.while_loop(lambda i, x: i < 3, body, [tf.constant(0), tf.constant([1., 2.])])
    with tf.Session() as sess:
        # TF 2.21: [1.875 2.] after 3 calls, then 6
        assert sess.run(xf).tolist() == [1.875, 2.0] and len(calls) == 3
        assert sess.run(xf).tolist() == [1.875, 2.0] and len(calls) == 6


def test_while_loop_body_result_needs_a_shape():
    with pytest.raises(ValueError, match="enters the loop with shape .*but has shape "
                                         "<unknown> after one iteration"):
        # TF 2.21: ValueError "Input tensor 'Const_1:0' enters the loop with shape (2,),
        # but has shape <unknown> after one iteration."
        tf.while_loop(lambda i, v: i < 2,
                      lambda i, v: (i + 1, tf.py_func(lambda a: a * 2, [v], tf.float32)),
                      [0, tf.constant([1., 2.])])


X = np.array([[0.1, 0.2, 0.3], [0.5, -0.4, 0.2], [-0.3, 0.8, 0.1], [0.9, 0.1, -0.6]],
             np.float32)
Y = np.array([[0.5], [-0.2], [0.3], [0.1]], np.float32)


def test_numpy_feature_under_a_trained_dense_layer():
    x = tf.placeholder(tf.float32, [None, 3])
    y = tf.placeholder(tf.float32, [None, 1])
    feat = tf.py_func(lambda a: np.tanh(a), [x], tf.float32)
    assert feat.get_shape().ndims is None
    feat.set_shape([None, 3])
    assert feat.shape.as_list() == [None, 3]    # TF 2.21: (?, 3)
    out = tf.layers.dense(feat, 1, kernel_initializer=tf.constant_initializer(0.5),
                          bias_initializer=tf.constant_initializer(0.1))
    loss = tf.reduce_mean(tf.square(out - y))
    assert tf.gradients(loss, [x])[0] is None    # TF 2.21: None
    opt = tf.train.GradientDescentOptimizer(0.5)
    gv = opt.compute_gradients(loss)
    assert [(g is None, v.name) for g, v in gv] == [(False, "dense/kernel:0"),
                                                     (False, "dense/bias:0")]
    train = opt.apply_gradients(gv)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        losses = [sess.run([loss, train], {x: X, y: Y})[0] for _ in range(5)]
        kernel, bias = sess.run(tf.trainable_variables())
        pred = sess.run(out, {x: X[:2]})
    # TF 2.21
    np.testing.assert_allclose(losses, [0.056339055, 0.03200532, 0.027424237, 0.02474405,
                                        0.023079906], rtol=2e-6)
    np.testing.assert_allclose(kernel.ravel(), [0.3730138838291168, 0.668844997882843,
                                                0.4960171580314636], rtol=2e-6)
    np.testing.assert_allclose(bias, [-0.018900178372859955], rtol=2e-5)
    np.testing.assert_allclose(pred.ravel(), [0.2947869300842285, -0.0027494728565216064],
                               rtol=2e-5)


def _numpy_op(func, inp, Tout, grad, name=None):  # noqa: N803
    """The classic idiom: a py_func whose gradient a registered function gives."""
    rnd_name = "PyFuncGrad" + str(np.random.randint(0, 1E+8))
    tf.RegisterGradient(rnd_name)(grad)
    with tf.get_default_graph().gradient_override_map({"PyFunc": rnd_name}):
        return tf.py_func(func, inp, Tout, stateful=True, name=name)


def test_gradient_override_map_gives_a_numpy_op_its_gradient():
    def square_grad(op, grad):
        x = op.inputs[0]
        return grad * 20 * x
    x = tf.constant([1., 2.])
    y = _numpy_op(np.square, [x], [tf.float32], square_grad, name="MySquare")
    assert y[0].name == "MySquare:0"
    g = tf.gradients(y, x)
    with tf.Session() as sess:
        got = sess.run([y[0], g])
    # TF 2.21: [array([1., 4.]), [array([20., 40.])]]
    assert got[0].tolist() == [1.0, 4.0] and got[1][0].tolist() == [20.0, 40.0]


def test_override_gradient_with_a_known_shape_and_a_placeholder():
    def cube_grad(op, grad):
        return grad * 3 * tf.square(op.inputs[0])
    x = tf.placeholder(tf.float32, [None])
    y = _numpy_op(lambda a: a ** 3, [x], tf.float32, cube_grad)
    y.set_shape([None])
    g = tf.gradients(tf.reduce_sum(y * y), x)[0]   # d(x^6)/dx = 6 x^5
    with tf.Session() as sess:
        assert sess.run(g, {x: [1.0, 2.0]}).tolist() == [6.0, 192.0]


def test_custom_gradient_around_a_py_func():
    @tf.custom_gradient
    def cube(x):
        y = tf.py_func(lambda a: a ** 3, [x], tf.float32)

        def grad(dy):
            return dy * 3 * x * x
        return y, grad
    xc = tf.constant([1., 2., 3.])
    yc = cube(xc)
    gc = tf.gradients(tf.reduce_sum(yc), xc)
    with tf.Session() as sess:
        got = sess.run([yc, gc])
    # TF 2.21: [array([ 1.,  8., 27.]), [array([ 3., 12., 27.])]]
    assert got[0].tolist() == [1.0, 8.0, 27.0] and got[1][0].tolist() == [3.0, 12.0, 27.0]


def test_py_function_gets_eager_values():
    seen = {}

    def ef(a, b):
        seen.update(kind=type(a + b).__name__, prod=(a * b).numpy(), shape=a.shape,
                    dtype=a.dtype, first=float(a[0]))
        return a + b, tf.reduce_sum(a * b)
    p = tf.placeholder(tf.float32, [None])
    q = tf.placeholder(tf.float32, [None])
    e1, e2 = tf.py_function(ef, [p, q], [tf.float32, tf.float32])
    with tf.Session() as sess:
        got = sess.run([e1, e2], {p: [1, 2, 3], q: [1.2, 2.9, 3.1]})
    # TF 2.21: [2.2, 4.9, 6.1] and 16.3; inside, EagerTensors: a * b = [1.2 5.8 9.299999],
    # shape (3,), dtype float32
    np.testing.assert_allclose(got[0], [2.2, 4.9, 6.1], rtol=1e-6)
    assert got[1] == np.float32(16.3) and got[0].dtype == np.float32
    np.testing.assert_allclose(seen["prod"], np.float32([1.2, 5.8, 9.299999]), rtol=1e-6)
    assert seen["kind"] == "EagerValue" and seen["shape"].as_list() == [3]
    assert seen["dtype"] == np.float32 and seen["first"] == 1.0


def test_map_fn_over_a_py_func_with_a_shape():
    def row_sum(r):
        s = tf.py_func(lambda v: np.float32(v.sum()), [r], tf.float32)
        s.set_shape([])
        return s
    m = tf.map_fn(row_sum, tf.constant([[1., 2.], [3., 4.], [5., 6.]]))
    with tf.Session() as sess:
        assert sess.run(m).tolist() == [3.0, 7.0, 11.0]   # TF 2.21: [ 3.  7. 11.]


def test_a_function_without_inputs():
    c = tf.py_func(lambda: np.arange(3, dtype=np.int64), [], tf.int64)
    with tf.Session() as sess:
        # TF 2.21: [0 1 2] [1 2 3]
        assert sess.run(c).tolist() == [0, 1, 2] and sess.run(c + 1).tolist() == [1, 2, 3]


def test_cond_branch_with_a_shaped_py_func():
    x = tf.placeholder(tf.float32, [2])

    def doubled():
        y = tf.py_func(lambda a: a * 2, [x], tf.float32)
        y.set_shape([2])
        return y
    c = tf.cond(tf.reduce_sum(x) > 0, doubled, lambda: x * 0)
    with tf.Session() as sess:
        # TF 2.21: [2. 4.] [-0. -0.]
        assert sess.run(c, {x: [1., 2.]}).tolist() == [2.0, 4.0]
        assert sess.run(c, {x: [-1., -2.]}).tolist() == [0.0, 0.0]


def test_map_fn_over_a_py_func_without_a_shape():
    calls = []

    def row_sum(v):
        calls.append(v.shape)
        return np.float32(v.sum()) * np.ones(2, np.float32)
    e = tf.constant([[1., 2.], [3., 4.], [5., 6.]])
    m = tf.map_fn(lambda r: tf.py_func(row_sum, [r], tf.float32), e, dtype=tf.float32)
    assert m.get_shape().ndims is None and tf.gradients(tf.reduce_sum(m), e) == [None]
    p = tf.placeholder(tf.float32)
    m2 = tf.map_fn(lambda r: tf.py_func(lambda v: v * 2, [r], tf.float32) + 1, p,
                   dtype=tf.float32)
    w = tf.constant(3.0)
    m3 = tf.map_fn(lambda r: tuple(tf.py_func(lambda v, k: (v * k, np.int64(v.size)), [r, w],
                                              [tf.float32, tf.int64])),
                   e, dtype=(tf.float32, tf.int64))
    with tf.Session() as sess:
        # TF 2.21: <unknown> [None]; [[3 3] [7 7] [11 11]] after 3 calls, then 6
        assert sess.run(m).tolist() == [[3, 3], [7, 7], [11, 11]] and len(calls) == 3
        assert sess.run(m).tolist() == [[3, 3], [7, 7], [11, 11]] and len(calls) == 6
        # TF 2.21: [[3. 5.] [7. 9.]] and [ 3.  5. 11.]
        assert sess.run(m2, {p: [[1., 2.], [3., 4.]]}).tolist() == [[3, 5], [7, 9]]
        assert sess.run(m2, {p: [1., 2., 5.]}).tolist() == [3, 5, 11]
        got = sess.run(m3)
    # TF 2.21: ([[3, 6], [9, 12], [15, 18]], [2, 2, 2])
    assert got[0].tolist() == [[3, 6], [9, 12], [15, 18]] and got[1].tolist() == [2, 2, 2]


def test_map_fn_and_cond_need_the_shape_of_a_py_func_made_inside():
    # symgrad differs: TF stacks (map_fn) or merges (cond) shapes known at run time; here
    # a gradient flows around the call (through r), so the map must be a loop
    rows = tf.constant([[1., 2.], [3., 4.]])
    with pytest.raises(ValueError, match="map_fn's fn returns a result of unknown shape.*"
                                         "set_shape"):
        tf.map_fn(lambda r: tf.py_func(lambda v: v, [r], tf.float32) * r, rows)
    x = tf.placeholder(tf.float32, [None])

    def sized():
        y = tf.py_func(lambda a: a * 2, [x], tf.float32)
        y.set_shape([None])
        return y
    with pytest.raises(ValueError, match="size a tf.py_func inside it gives"):
        tf.cond(tf.reduce_sum(x) > 0, sized, lambda: x * 0)
    with pytest.raises(ValueError, match="cond's branch returns a result of unknown shape"):
        tf.cond(tf.reduce_sum(x) > 0, lambda: tf.py_func(lambda a: a, [x], tf.float32),
                lambda: x)


def test_registered_gradient_reads_outputs_and_gets_one_grad_per_output():
    @tf.RegisterGradient("NumpyExpGradTest")
    def _exp_grad(op, grad):
        return grad * op.outputs[0]

    @tf.RegisterGradient("TwoOutputsGradTest")
    def _two_grad(op, g0, g1):
        return g0 * 2 + g1 * 3 * op.inputs[0] ** 2
    x = tf.placeholder(tf.float32)
    graph = tf.get_default_graph()
    with graph.gradient_override_map({"PyFunc": "NumpyExpGradTest"}):
        y = tf.py_func(np.exp, [x], tf.float32)
    g = tf.gradients(tf.reduce_sum(y * 2), x)
    w = tf.constant([1., 2.])
    with graph.gradient_override_map({"PyFunc": "TwoOutputsGradTest"}):
        a, b = tf.py_func(lambda v: (v * 2, v ** 3), [w], [tf.float32, tf.float32])
    with tf.Session() as sess:
        got = sess.run([g, tf.gradients(a + b, w), tf.gradients(b, w)], {x: [0., 1.]})
    # TF 2.21: [2. 5.436564]; [5. 14.]; [3. 12.] (the output not used gets zeros)
    np.testing.assert_allclose(got[0][0], [2.0, 5.436564], rtol=1e-6)
    assert got[1][0].tolist() == [5.0, 14.0] and got[2][0].tolist() == [3.0, 12.0]


def test_dataset_batch_then_map_runs_the_function_per_batch():
    seen = []

    def doubled(b):
        seen.append(b.shape)
        return (b * 2).astype(np.float32)
    ds = tf.data.Dataset.from_tensor_slices(np.arange(5, dtype=np.float32)).batch(2).map(
        lambda b: tf.py_func(doubled, [b], tf.float32) + 1)
    nxt = ds.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        got = [sess.run(nxt).tolist() for _ in range(3)]
    # TF 2.21: [[1.0, 3.0], [5.0, 7.0], [9.0]], the function seeing (2,), (2,), (1,)
    assert got == [[1.0, 3.0], [5.0, 7.0], [9.0]] and seen == [(2,), (2,), (1,)]
