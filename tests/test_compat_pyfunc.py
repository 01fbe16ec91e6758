"""tf.py_func, tf.numpy_function and tf.py_function: shapes, outputs, dtypes, runs,
gradients and the compile refusal.

The expected values and messages are TF 2.21's (tensorflow.compat.v1 with
disable_v2_behavior), printed by the same programs with the TF import.
"""
import numpy as np
import pytest

import symgrad as sg
import symgrad.compat.v1 as tf
from symgrad.errors import CompileError


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


def test_numpy_metric_of_placeholders_in_a_session():
    p = tf.placeholder(tf.float32, [None])
    q = tf.placeholder(tf.float32, [None])

    def close(a, b):
        return np.float32(np.mean(np.abs(a - b) < 0.5))
    m = tf.numpy_function(close, [p, q], tf.float32)
    with tf.Session() as sess:
        # TF 2.21: 0.6666667
        assert sess.run(m, {p: [1, 2, 3], q: [1.2, 2.9, 3.1]}) == np.float32(2 / 3)


def test_results_have_unknown_shape_and_tout_says_list_or_single():
    x = tf.placeholder(tf.float32, name="x")
    y = tf.py_func(lambda a: a * 2, [x], tf.float32)
    ys = tf.py_func(lambda a: a * 2, [x], [tf.float32])
    z = tf.py_function(lambda a: a * 2, [x], tf.float32)
    # TF 2.21: Tensor("PyFunc:0") shape <unknown> (ndims None); a list of one; EagerPyFunc
    assert y.name == "PyFunc:0" and y.get_shape().ndims is None and y.dtype == np.float32
    assert isinstance(ys, list) and len(ys) == 1 and ys[0].name == "PyFunc_1:0"
    assert z.name == "EagerPyFunc:0" and z.op.type == "EagerPyFunc" and y.op.type == "PyFunc"
    with tf.Session() as sess:
        got = sess.run([y, ys, z], {x: [1.0, 2.0]})
    # TF 2.21: [array([2., 4.]), [array([2., 4.])], array([2., 4.])], all float32
    assert [np.asarray(v).tolist() for v in (got[0], got[1][0], got[2])] == [[2.0, 4.0]] * 3
    assert got[0].dtype == np.float32 and got[2].dtype == np.float32


def test_py_func_gets_numpy_values_a_scalar_for_a_0d_input():
    seen = []

    def f(a, b):
        seen.append((type(a), type(b)))
        b[0] = 100.0   # a copy: the constant keeps its value
        return np.float32(a * 3)
    c = tf.constant([1.0, 2.0])
    t = tf.py_func(f, [tf.constant(2.0), c], tf.float32)
    with tf.Session() as sess:
        assert sess.run(t) == 6.0 and sess.run(c).tolist() == [1.0, 2.0]
    # TF 2.21: <class 'numpy.float32'> <class 'numpy.ndarray'>
    assert seen[0] == (np.float32, np.ndarray)


def test_several_outputs_come_from_one_call_per_run():
    calls = []

    def two(a):
        calls.append(1)
        return a + 1, (a * 2).astype(np.int32)
    x = tf.placeholder(tf.float32, [3])
    p, q = tf.py_func(two, [x], [tf.float32, tf.int32])
    with tf.Session() as sess:
        got = sess.run([p, q, p * 2], {x: [1, 2, 3]})
        # TF 2.21: [2. 3. 4.], [2 4 6] (int32), [4. 6. 8.]; the function ran once
        assert [g.tolist() for g in got] == [[2, 3, 4], [2, 4, 6], [4, 6, 8]]
        assert got[1].dtype == np.int32 and len(calls) == 1
        assert sess.run(q, {x: [1, 2, 3]}).tolist() == [2, 4, 6] and len(calls) == 2


def test_stateful_function_runs_at_every_run():
    count = [0]

    def counted(a):
        count[0] += 1
        return a + np.float32(count[0])
    x = tf.placeholder(tf.float32, [None, 3])
    c = tf.py_func(counted, [x], tf.float32)
    row = np.array([[0.1, 0.2, 0.3]], np.float32)
    with tf.Session() as sess:
        # TF 2.21: [[1.1 1.2 1.3]] and [[2.2 2.4 2.6]] with count 1, then [[2.1 2.2 2.3]]
        a, b = sess.run([c, c * 2], {x: row})
        np.testing.assert_allclose(a, [[1.1, 1.2, 1.3]], rtol=1e-6)
        np.testing.assert_allclose(b, [[2.2, 2.4, 2.6]], rtol=1e-6)
        assert count == [1]
        np.testing.assert_allclose(sess.run(c, {x: row}), [[2.1, 2.2, 2.3]], rtol=1e-6)
    np.testing.assert_allclose(sg.evaluate(c, {x: row}), [[3.1, 3.2, 3.3]], rtol=1e-6)
    assert count == [3]


def test_a_constant_input_still_runs_each_time():
    count = [0]

    def tick(a):
        count[0] += 1
        return a * 0 + count[0]
    t = tf.py_func(tick, [tf.constant(np.array([1, 1], np.int64))], tf.int64)
    with tf.Session() as sess:
        assert [sess.run(t).tolist() for _ in range(3)] == [[1, 1], [2, 2], [3, 3]]


def _run_error(t, feed):
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            sess.run(t, feed)
    return str(info.value)


@pytest.mark.parametrize("fn, got", [
    (lambda a: a.astype(np.float64) * 1.5, "double"),
    (lambda a: 3, "int64"),
    (lambda a: 1.5, "double"),
    (lambda a: np.int32(2), "int32")])
def test_py_func_result_of_another_dtype_is_invalid_argument(fn, got):
    x = tf.placeholder(tf.float32)
    for make in (tf.py_func, tf.numpy_function):
        msg = _run_error(make(fn, [x], tf.float32), {x: [1.0, 2.0]})
        # TF 2.21: "0-th value returned by pyfunc_5 is double, but expects float"
        assert f"0-th value returned by <lambda> is {got}, but expects float" in msg


@pytest.mark.parametrize("fn, tout, msg", [
    (lambda a: [1.5, 2], tf.float32, "returns 2 values, but expects to see 1 values"),
    (lambda a: (a, a), tf.float32, "returns 2 values, but expects to see 1 values"),
    (lambda a: a, [tf.float32, tf.float32], "returns 1 values, but expects to see 2 values")])
def test_py_func_result_count_must_match_tout(fn, tout, msg):
    x = tf.placeholder(tf.float32)
    # TF 2.21: "pyfunc_8 returns 2 values, but expects to see 1 values."
    assert msg in _run_error(tf.py_func(fn, [x], tout), {x: [1.0, 2.0]})


def test_py_function_converts_results_to_tout():
    x = tf.placeholder(tf.float32)
    a = tf.py_function(lambda v: v.numpy().astype(np.float64), [x], tf.float32)
    b = tf.py_function(lambda v: 3, [x], tf.float32)
    with tf.Session() as sess:
        got = sess.run([a, b], {x: [1.0, 2.0]})
    # TF 2.21: [1. 2.] (float32) and 3.0
    assert got[0].tolist() == [1.0, 2.0] and got[0].dtype == np.float32 and got[1] == 3.0


def test_tout_empty_gives_an_operation_run_for_its_effect():
    log = []
    x = tf.placeholder(tf.float32, [3])
    shown = tf.py_func(lambda v: log.append(float(v.sum())), [x], [])
    with tf.control_dependencies([shown]):
        out = tf.identity(x * 3)
    with tf.Session() as sess:
        # TF 2.21: [3. 6. 9.] with the function run (log [6.0]); the op fetched gives None
        assert sess.run(out, {x: [1, 2, 3]}).tolist() == [3, 6, 9] and log == [6.0]
        assert sess.run(shown, {x: [1, 1, 1]}) is None and log == [6.0, 3.0]
    assert shown.type == "PyFunc"


def test_gradients_through_the_call_are_none():
    x = tf.placeholder(tf.float32)
    y = tf.py_func(lambda a: a * 2, [x], tf.float32)
    w = tf.numpy_function(lambda a: a * 2, [x], tf.float32)
    # TF 2.21: [None] [None] (PyFunc is not differentiable)
    assert tf.gradients(y, x) == [None] and tf.gradients(w, x) == [None]
    # TF differentiates py_function with a tape (symgrad: through the tf ops it calls)
    (g,) = tf.gradients(tf.py_function(lambda a: a * 2, [x], tf.float32), x)
    with tf.Session() as sess:
        assert sess.run(g, {x: [1.0, 2.0]}).tolist() == [2.0, 2.0]   # TF 2.21: [2. 2.]
    v = tf.constant([1.0, 2.0])
    u = tf.py_func(lambda a: a, [v], tf.float32)
    u.set_shape([2])
    assert tf.gradients(tf.reduce_sum(u * v), v)[0] is not None   # the direct path only
    with tf.Session() as sess:
        assert sess.run(tf.gradients(tf.reduce_sum(u * v), v)[0]).tolist() == [1.0, 2.0]


def test_set_shape_checks_the_value_and_gives_known_sizes():
    x = tf.placeholder(tf.float32, [None, 3])
    y = tf.py_func(lambda a: a[:, :2], [x], tf.float32)
    y.set_shape([None, 3])
    assert y.shape.as_list() == [None, 3]
    with tf.Session() as sess:
        with pytest.raises(ValueError, match=r"has shape \(2, 2\), but its shape was set to "
                                             r"\(None, 3\)"):
            sess.run(y, {x: np.zeros((2, 3))})
        assert sess.run(tf.shape(tf.py_func(lambda a: a, [x], tf.float32)),
                        {x: np.zeros((4, 3))}).tolist() == [4, 3]


def test_closed_form_shows_an_opaque_call():
    x = tf.placeholder(tf.float32, name="x")
    y = tf.py_func(np.square, [x], tf.float32)
    assert str(y) == "square(x)" and str(tf.py_func(np.sin, [2 * x], tf.float32)) == "sin(2*x)"
    v = tf.constant([1.0, 2.0], name="v")
    u = tf.py_func(np.square, [v], tf.float32)
    u.set_shape([2])
    assert "square[1](v)" in str(sg.closed_form(u * 2))


def test_compile_refuses_a_graph_running_python():
    with sg.Graph().as_default():
        x = sg.placeholder(shape=(2,), name="x")
        y = tf.py_func(np.square, [x], tf.float64)
        y.set_shape([2])
        with pytest.raises(CompileError, match=r"'PyFunc:0' \(py_func\) runs the Python "
                                               r"function 'square'.*sg.evaluate or a Session"):
            sg.compile(sg.reduce_sum(y * x), [x])
        with pytest.raises(CompileError, match="square"):
            sg.compile(tf.py_func(np.square, [x], tf.float64) * 2, [x])


def test_compile_refuses_python_inside_a_loop_body():
    with sg.Graph().as_default():
        x = sg.placeholder(shape=(2,), name="x")

        def body(i, v):
            out = tf.py_func(lambda a: a * 0.5, [v], tf.float64)
            out.set_shape([2])
            return i + 1, out
        _, final = tf.while_loop(lambda i, v: i < 3, body, [tf.constant(0), x])
        assert sg.evaluate(final, {x: [8.0, 4.0]}).tolist() == [1.0, 0.5]
        with pytest.raises(CompileError, match="runs the Python function '<lambda>'"):
            sg.compile(final, [x])


def test_forward_mode_and_jacobians_take_the_call_as_a_constant():
    with sg.Graph().as_default():
        x = sg.Variable([1.0, 2.0], name="x")
        y = tf.py_func(np.square, [x], tf.float64)
        y.set_shape([2])
        z = y * x    # d(z)/dx = y alone: nothing flows through the call
        assert sg.evaluate(sg.jvp([z], [x], [sg.constant([1.0, 1.0])]))[0].tolist() == [1, 4]
        assert sg.evaluate(sg.jacobian(z, x)).tolist() == [[1, 0], [0, 4]]
        assert "square[1](x)" in str(sg.jvp([z], [x], [sg.constant([1.0, 1.0])])[0])


def test_a_registered_gradient_that_calls_numpy_through_py_func():
    # TF1's "numpy op with its own gradient": the gradient function returns a py_func
    # result of unknown shape, which takes the input's shape (TF sets it too:
    # gradients/PyFunc_grad/PyFunc:0 has shape (3,)); TF 2.21 gives [4, 32, 108]
    import symgrad as sg

    with tf.Graph().as_default() as graph:
        @tf.RegisterGradient("NumpySquareGrad")
        def _grad(op, grad):
            return tf.py_func(lambda a, g: (2 * a * g).astype(np.float32),
                              [op.inputs[0], grad], tf.float32)

        x = tf.placeholder(tf.float32, [3])
        with graph.gradient_override_map({"PyFunc": "NumpySquareGrad"}):
            y = tf.py_func(lambda a: (a * a).astype(np.float32), [x], tf.float32)
        y.set_shape([3])
        g = tf.gradients(tf.reduce_sum(y * y), x)[0]
        jac = sg.jacobian(y, x)   # (its seeds through the py_func one at a time)
        assert g.get_shape().as_list() == [3]
        with tf.Session() as sess:
            assert sess.run(g, {x: [1.0, 2.0, 3.0]}).tolist() == [4.0, 32.0, 108.0]
            assert sess.run(jac, {x: [1.0, 2.0, 3.0]}).tolist() == [
                [2.0, 0.0, 0.0], [0.0, 4.0, 0.0], [0.0, 0.0, 6.0]]
