"""TF1 APIs a differential probe found missing, against numbers and messages taken from
real TensorFlow (2.21, compat.v1 with v2 behaviour disabled): tf.debugging and the
asserts, tf.print, graph introspection, old op names, checkpoints' readers,
IndexedSlices and streaming metrics."""
import io
import sys

import numpy as np
import pytest

import symgrad.compat.v1 as tf


def run_error(sess, fetch, feed=None):
    """The InvalidArgumentError a run raises, as its message."""
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        sess.run(fetch, feed)
    return str(info.value)


# -- 1. debugging -------------------------------------------------------------------

def test_assertions_fail_at_run_time_with_tfs_messages():
    p = tf.placeholder(tf.float32, [None])
    q = tf.placeholder(tf.int32, [None])
    checks = dict(eq=tf.assert_equal(p, 1.0), less=tf.assert_less(p, 2.0, message="lessmsg",
                                                                 summarize=2),
                  le=tf.assert_less_equal(p, 2.0), gt=tf.assert_greater(p, 0.0),
                  ge=tf.assert_greater_equal(p, 0.0), pos=tf.assert_positive(p),
                  neg=tf.assert_negative(p), nn=tf.assert_non_negative(p),
                  ne=tf.assert_none_equal(p, 1.0),
                  near=tf.assert_near(p, 1.0, rtol=0.1, atol=0.0), intp=tf.assert_positive(q))
    feed = {p: [0.5, 1.0, 3.0, 4.0, 5.0], q: [1, -2]}
    with tf.Session() as sess:
        for passing in ("gt", "ge", "pos", "nn"):
            assert sess.run(checks[passing], feed) is None
        # (TF's messages, up to the names symgrad gives the converted y)
        assert run_error(sess, checks["eq"], feed).startswith(
            "assertion failed: [Condition x == y did not hold element-wise:] "
            "[x (Placeholder:0) = ] [0.5 1 3...] [y (assert_equal/y:0) = ] [1]")
        assert run_error(sess, checks["less"], feed).startswith(
            "assertion failed: [lessmsg] [Condition x < y did not hold element-wise:] "
            "[x (Placeholder:0) = ] [0.5 1...] [y (assert_less/y:0) = ] [2]")
        assert "[Condition x <= y" in run_error(sess, checks["le"], feed)
        assert run_error(sess, checks["neg"], feed) == (
            "assertion failed: [] [Condition x < 0 did not hold element-wise:] "
            "[x (Placeholder:0) = ] [0.5 1 3...]")
        assert "[Condition x != y" in run_error(sess, checks["ne"], feed)
        assert "[x and y not equal to tolerance rtol = 0.1, atol = 0.0]" in \
            run_error(sess, checks["near"], feed)
        assert run_error(sess, checks["intp"], feed).endswith(
            "[Condition x > 0 did not hold element-wise:] [x (Placeholder_1:0) = ] [1 -2]")
        assert sess.run(checks["pos"], {p: [], q: []}) is None   # empty: holds


def test_asserts_under_control_dependencies_guard_what_is_made_inside():
    # the probe's program: a positive row sum and a known width guard z
    x = tf.placeholder(tf.float32, [None, 3], name="input_x")
    y = tf.reduce_sum(x, axis=1)
    with tf.control_dependencies([tf.assert_positive(y, message="rows must sum > 0"),
                                  tf.assert_equal(tf.shape(x)[1], 3)]):
        z = tf.identity(y * 2.0, name="z")
    xs = np.abs(np.random.RandomState(12).randn(3, 3)).astype(np.float32)
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(z, {x: xs}), 2 * xs.sum(1), rtol=1e-6)
        assert "rows must sum > 0" in run_error(sess, z, {x: -xs})
        assert sess.run(y, {x: -xs}).shape == (3,)    # y alone does not wait for them


def test_asserts_decided_when_the_graph_is_built():
    a, b = tf.constant([1., 2.]), tf.constant([1., 3.])
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        tf.assert_equal(a, b)
    assert str(info.value) == ("Condition x == y did not hold element-wise:\n"
                               "x (Const:0) = \n[1. 2.]\ny (Const_1:0) = \n[1. 3.]")
    with pytest.raises(tf.errors.InvalidArgumentError, match="^mymsg\nCondition x < y"):
        tf.assert_less(tf.constant([1., 5.]), 3., message="mymsg")
    with pytest.raises(tf.errors.InvalidArgumentError, match="Condition x > 0"):
        tf.assert_positive(tf.constant([1., -1.]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Condition x != y"):
        tf.assert_none_equal(tf.ones([2]), tf.ones([2]))
    ok = tf.assert_equal(a, a)
    assert isinstance(ok, tf.Operation) and ok.type == "NoOp"
    with pytest.raises(ValueError, match=r"^rk\.  Tensor ones_2:0 must have rank 2\.  "
                                         r"Received rank 1, shape \(2,\)$"):
        tf.assert_rank(tf.ones([2]), tf.constant(2), message="rk")
    with pytest.raises(ValueError, match="must have rank at least 2"):
        tf.assert_rank_at_least(tf.ones([2]), 2)
    with pytest.raises(ValueError, match=r"Expected scalar shape for ones_4:0, saw shape: "
                                         r"\(2,\)\."):
        tf.assert_scalar(tf.ones([2]))
    with pytest.raises(TypeError, match=r'Expected "x" to be integer type'):
        tf.assert_integer(tf.ones([2]))
    with pytest.raises(TypeError, match=r"^mm\.  ones_6:0 must be of type tf\.int32; got "
                                        r"tf\.float32$"):
        tf.assert_type(tf.ones([2]), tf.int32, message="mm")
    assert tf.assert_type(tf.constant([1, 2]), tf.int32).type == "NoOp"
    assert tf.assert_rank(a, 1).name.endswith("static_checks_determined_all_ok")
    s = tf.constant(2.0)
    assert tf.assert_scalar(s) is s
    with pytest.raises(TypeError, match="does not match type float32"):   # TF's TypeError
        tf.assert_equal(tf.constant(1.0), tf.constant(1))
    with pytest.raises(ValueError):                # shapes that do not broadcast
        tf.assert_equal(tf.ones([2]), tf.ones([3]))


def test_assert_op_and_unknown_ranks_check_when_run():
    b = tf.placeholder_with_default(False, [])
    m = tf.constant([[1., 2.], [3., 4.5]])
    shapeless = tf.placeholder(tf.float32)
    rank2 = tf.assert_rank(shapeless, 2)
    with tf.Session() as sess:
        # TF's flat summary: nested brackets, at most `summarize` entries
        assert run_error(sess, tf.Assert(b, [m])) == "assertion failed: [[1 2][3...]...]"
        got = run_error(sess, tf.Assert(b, [m, 1.5, 7, "s", tf.constant([True, False]),
                                            tf.constant(np.arange(30).reshape(2, 3, 5))],
                                        summarize=10))
        assert got == ("assertion failed: [[1 2][3 4.5]] [1.5] [7] [s] [1 0] "
                       "[[[0 1 2 3 4][5 6 7 8 9]]...]")
        assert run_error(sess, tf.Assert(b, [tf.constant(2.5), tf.zeros([0])])) == \
            "assertion failed: [2.5] []"
        assert sess.run(tf.Assert(tf.logical_not(b), ["never shown"])) is None
        assert "should be a scalar" in run_error(
            sess, tf.Assert(tf.placeholder_with_default([True, False], [2]), ["x"]))
        assert sess.run(rank2, {shapeless: np.ones((2, 2))}) is None
        assert run_error(sess, rank2, {shapeless: np.ones(3)}) == (
            "assertion failed: [] [Tensor Placeholder:0 must have rank 2] "
            "[Received shape: ] [3]")
    with pytest.raises(TypeError, match="bool"):
        tf.Assert(tf.constant(1.0), ["x"])


def test_check_numerics_passes_values_and_gradients_and_raises_on_nan_or_inf():
    x = tf.placeholder(tf.float32, [None])
    c = tf.check_numerics(x, "xmsg")
    assert c.name == "CheckNumerics:0" and c.dtype == np.float32
    (g,) = tf.gradients(tf.reduce_sum(tf.check_numerics(x * x, "sq") * 3.0), x)
    (g0,) = tf.gradients(tf.reduce_sum(tf.check_numerics(x * x, "sq") * 0.0 + tf.sqrt(x)), x)
    (gbad,) = tf.gradients(tf.reduce_sum(tf.sqrt(tf.check_numerics(x, "in"))), x)
    with tf.Session() as sess:
        assert sess.run(c, {x: [1., 2.]}).tolist() == [1.0, 2.0]
        assert run_error(sess, c, {x: [1., np.nan]}) == "xmsg : Tensor had NaN values"
        assert run_error(sess, c, {x: [np.inf, 1.]}) == "xmsg : Tensor had Inf values"
        assert run_error(sess, c, {x: [np.inf, np.nan]}) == \
            "xmsg : Tensor had Inf and NaN values"
        assert sess.run(g, {x: [1., 2.]}).tolist() == [6.0, 12.0]
        assert sess.run(g0, {x: [1., 0.]}).tolist() == [0.5, np.inf]   # (TF: the same)
        assert run_error(sess, gbad, {x: [0.0]}) == (   # the gradient is checked too
            "Not a number (NaN) or infinity (Inf) values detected in gradient. in : "
            "Tensor had Inf values")
        v = tf.verify_tensor_all_finite(x, "vmsg")
        assert v.name == "VerifyFinite:0"
        assert run_error(sess, v, {x: [np.nan]}) == "vmsg : Tensor had NaN values"
        assert run_error(sess, tf.debugging.assert_all_finite(x, "a"), {x: [np.inf]}) == \
            "a : Tensor had Inf values"
    with pytest.raises(TypeError, match="DataType int32 not in list of allowed values"):
        tf.check_numerics(tf.constant([1, 2]), "i")


def test_debugging_namespace_and_predicates():
    x = tf.constant([1., 2., 2., 5.])
    with tf.Session() as sess:
        assert sess.run([tf.debugging.is_non_decreasing(x), tf.is_strictly_increasing(x),
                         tf.debugging.is_strictly_increasing(x[:2])]) == [True, False, True]
    assert tf.debugging.check_numerics is tf.check_numerics or \
        tf.debugging.check_numerics.__name__ == "check_numerics"
    assert tf.is_numeric_tensor(x) and not tf.is_numeric_tensor(x > 1) and tf.is_tensor(x)
    assert not tf.is_tensor(np.ones(2))
    with pytest.raises(AttributeError, match="tf.debugging has no attribute 'nope'"):
        tf.debugging.nope


def test_tf_print_writes_tfs_text_when_run(capsys):
    a = tf.constant([1.5, 2.25, 3.0, 4.0, 5.0, 6.0, 7.0])
    m = tf.constant(np.arange(20).reshape(4, 5))
    p = tf.print("msg", a, m, tf.constant([True, False]), tf.constant(0.1),
                 tf.constant(0.1, tf.float64), 7, 2.5, [1, 2], {"k": tf.constant(0.1)},
                 output_stream=sys.stdout)
    assert isinstance(p, tf.Operation) and p.name == "PrintV2" and p.type == "PrintV2"
    x = tf.placeholder(tf.float32)
    with tf.control_dependencies([tf.print("x is", x, output_stream=sys.stdout)]):
        y = x * 2
    pi = tf.constant(3.14159265)
    with tf.Session() as sess:
        sess.run(p)
        sess.run(tf.print(a, summarize=-1, sep="|", end="END\n", output_stream=sys.stdout))
        sess.run(tf.print(m, summarize=1, output_stream=sys.stdout))
        sess.run(tf.print(tf.constant(np.float32(1e-8)), tf.constant([1e6, 2.0]),
                          tf.constant(np.arange(3, dtype=np.int64)), output_stream=sys.stdout))
        sess.run(tf.print(tf.constant(np.ones((2, 2, 2))), output_stream=sys.stdout))
        sess.run(tf.print(tf.zeros([0]), tf.constant(3), output_stream=sys.stdout))
        sess.run(tf.print(["a", pi], ("b", 2), {"z": 1, "a": pi}, output_stream=sys.stdout))
        sess.run(tf.print(pi, tf.constant(3.14159265, tf.float64), tf.constant(1e20),
                          tf.constant(-0.0), tf.constant(np.nan), tf.constant(-np.inf),
                          output_stream=sys.stdout))
        sess.run(tf.print(tf.constant(np.arange(7)), summarize=0, output_stream=sys.stdout))
        sess.run(tf.print(tf.constant(np.arange(16).reshape(2, 2, 2, 2)),
                          output_stream=sys.stdout))
        sess.run(tf.print("to stderr"))
        assert sess.run(y, {x: 3.0}) == 6.0
    out, err = capsys.readouterr()
    assert out == (   # what TF printed
        "msg [1.5 2.25 3 ... 5 6 7] [[0 1 2 3 4]\n [5 6 7 8 9]\n [10 11 12 13 14]\n"
        " [15 16 17 18 19]] [1 0] 0.1 0.1 7 2.5 [1, 2] {'k': 0.1}\n"
        "[1.5 2.25 3 4 5 6 7]END\n"
        "[[0 ... 4]\n ...\n [15 ... 19]]\n"
        "1e-08 [1e+06 2] [0 1 2]\n"
        "[[[1 1]\n  [1 1]]\n\n [[1 1]\n  [1 1]]]\n"
        "[] 3\n"
        "['a', 3.14159274] ('b', 2) {'a': 3.14159274, 'z': 1}\n"
        "3.14159274 3.14159265 1e+20 -0 nan -inf\n"
        "[ ...]\n"
        "[[[[0 1]\n   [2 3]]\n\n  [[4 5]\n   [6 7]]]\n\n\n [[[8 9]\n   [10 11]]\n\n"
        "  [[12 13]\n   [14 15]]]]\n"
        "x is 3\n")
    assert err == "to stderr\n"


def test_tf_print_streams_and_bad_arguments(tmp_path, caplog):
    path = tmp_path / "log.txt"
    with tf.Session() as sess:
        sess.run(tf.print("to file", 1, output_stream=f"file://{path}"))
        with caplog.at_level("INFO", logger="tensorflow"):
            sess.run(tf.print("to log", output_stream=tf.logging.info))
    assert path.read_text() == "to file 1\n" and "to log" in caplog.text
    with pytest.raises(ValueError, match="Unsupported output stream, logging level, or "
                                         "file.nowhere"):
        tf.print("x", output_stream="nowhere")
    with pytest.raises(ValueError, match=r"Unrecognized keyword arguments for tf.print: "
                                         r"\{'bogus': 1\}"):
        tf.print("x", bogus=1)
    buffer = io.StringIO()
    with tf.Session() as sess:   # a stream of one's own is not one of TF's
        with pytest.raises(ValueError, match="Unsupported output stream"):
            sess.run(tf.print("x", output_stream=buffer))


# -- 2. graph introspection --------------------------------------------------------

def test_operations_by_name_and_in_order():
    g = tf.get_default_graph()
    x = tf.placeholder(tf.float32, [2], name="x")
    with tf.name_scope("layer"):
        w = tf.Variable([1., 2.], name="W")
    y = tf.reduce_sum(x * w, name="y")
    init = tf.global_variables_initializer()
    op = g.get_operation_by_name("layer/W")
    assert (op.name, op.type) == ("layer/W", "VariableV2") and op == w.op
    assert g.get_operation_by_name("y").type == "Sum" and g.get_operation_by_name("y") == y.op
    assert g.get_operation_by_name(init.name) is init
    with pytest.raises(ValueError, match="Name 'y:0' appears to refer to a Tensor, not a "
                                         "Operation."):
        g.get_operation_by_name("y:0")
    with pytest.raises(KeyError, match="The name 'nope' refers to an Operation not in the "
                                       "graph."):
        g.get_operation_by_name("nope")
    with pytest.raises(TypeError, match="Operation names are strings"):
        g.get_operation_by_name(3)
    names = [o.name for o in g.get_operations()]
    assert names[:2] == ["x", "layer/W"] and "y" in names and names[-1] == init.name
    assert [o.type for o in g.get_operations()[:2]] == ["Placeholder", "VariableV2"]


def test_a_finalized_graph_runs_but_takes_no_new_ops():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [2])
        anything = tf.placeholder(tf.float32)        # ops made at the fed shape, when run
        w = tf.Variable([1., 2.])
        y = tf.reduce_sum(x * w)
        z = tf.reduce_sum(anything * 2.0)
        init = tf.global_variables_initializer()
        assert g.finalized is False
        g.finalize()
        assert g.finalized is True and isinstance(g, tf.Graph)
        for make in (lambda: tf.constant(1.0), lambda: x * 2, tf.no_op, lambda: tf.group(init),
                     tf.global_variables_initializer, lambda: tf.Variable(1.0),
                     lambda: tf.gradients(y, w)):
            with pytest.raises(RuntimeError, match="^Graph is finalized and cannot be "
                                                   "modified.$"):
                make()
        with tf.Session() as sess:
            sess.run(init)
            assert sess.run(y, {x: [1., 1.]}) == 3.0
            assert sess.run(z, {anything: [[1., 2.]]}) == 6.0 and sess.run(z, {anything: 3.}) \
                == 6.0
        g.finalize()   # (again: nothing changes)
    assert tf.get_default_graph().finalized is False
    with pytest.raises(AttributeError, match="not TensorFlow GraphDef protocol buffers"):
        g.as_graph_def()


# -- 3. ops -----------------------------------------------------------------------

def test_old_arg_max_names_and_set_diag_with_gradients():
    x = tf.constant([[1., 5., 3.], [4., 2., 6.]])
    am, an = tf.arg_max(x, 1), tf.arg_min(x, dimension=0, output_type=tf.int32)
    assert (am.name, am.dtype, an.name, an.dtype) == ("ArgMax:0", np.int64, "ArgMin:0",
                                                      np.int32)
    with pytest.raises(TypeError, match="dimension"):
        tf.arg_max(x)
    m = tf.constant(np.arange(12.).reshape(2, 2, 3), tf.float32)
    d = tf.constant([[9., 8.], [7., 6.]])
    sd, sd2 = tf.matrix_set_diag(m, d), tf.linalg.set_diag(tf.transpose(m, [0, 2, 1]), d)
    assert (sd.name, sd2.name) == ("set_diag:0", "set_diag_1:0")
    gm, gd = tf.gradients(tf.reduce_sum(sd * sd), [m, d])
    with tf.Session() as sess:
        assert [v.tolist() for v in sess.run([am, an])] == [[1, 2], [0, 1, 0]]
        s1, s2, gmv, gdv = sess.run([sd, sd2, gm, gd])
    assert s1.tolist() == [[[9, 1, 2], [3, 8, 5]], [[7, 7, 8], [9, 6, 11]]]
    assert s2.tolist() == [[[9, 3], [1, 8], [2, 5]], [[7, 9], [7, 6], [8, 11]]]
    assert gmv.tolist() == [[[0, 2, 4], [6, 0, 10]], [[0, 14, 16], [18, 0, 22]]]
    assert gdv.tolist() == [[18, 16], [14, 12]]
    with pytest.raises(ValueError, match="diagonal must have shape"):
        tf.matrix_set_diag(m, tf.constant([1., 2.]))


def test_zero_fraction_unique_and_lrn():
    zf = tf.nn.zero_fraction(tf.constant([[0., 1.], [0., 0.]]))
    zfi = tf.nn.zero_fraction(tf.constant([0, 1, 2]))
    assert zf.name == "zero_fraction/fraction:0" and zf.dtype == zfi.dtype == np.float32
    y, idx = tf.unique(tf.constant([1, 1, 2, 4, 4, 4, 7, 8, 8]))
    assert (y.name, y.dtype, idx.dtype, idx.shape.as_list()) == ("Unique:0", np.int32,
                                                                 np.int32, [9])
    assert y.shape.as_list() == [None]      # known when the values are, as TF's (?,)
    fed = tf.placeholder(tf.float32, [None])
    yf, idxf = tf.unique(fed, out_idx=tf.int64)
    yc, idxc, count = tf.unique_with_counts(fed)
    with pytest.raises(LookupError, match="No gradient defined for operation 'Unique'"):
        tf.gradients(tf.reduce_sum(yf), fed)
    with pytest.raises(ValueError, match="rank 1"):
        tf.unique(tf.constant([[1, 2]]))
    rs = np.random.RandomState(0)
    lx = tf.constant(rs.rand(1, 2, 2, 7).astype(np.float32))
    l1 = tf.nn.lrn(lx)
    l2 = tf.nn.local_response_normalization(lx, depth_radius=2, bias=2., alpha=0.5, beta=0.75)
    (gl,) = tf.gradients(tf.reduce_sum(l2 * tf.range(7, dtype=tf.float32)), lx)
    assert (l1.name, l2.name) == ("LRN:0", "LRN_1:0")
    with tf.Session() as sess:
        assert sess.run([zf, zfi]) == [0.75, pytest.approx(1 / 3)]
        assert [v.tolist() for v in sess.run([y, idx])] == [[1, 2, 4, 7, 8],
                                                              [0, 0, 1, 2, 2, 2, 3, 4, 4]]
        got = sess.run([yf, idxf, yc, idxc, count], {fed: [3., 1., 3., 2., 1.]})
        assert [v.tolist() for v in got] == [[3, 1, 2], [0, 1, 0, 2, 1], [3, 1, 2],
                                             [0, 1, 0, 2, 1], [2, 2, 1]]
        assert got[1].dtype == np.int64 and got[3].dtype == np.int32
        assert sess.run(yf, {fed: []}).tolist() == []
        v1, v2, g = sess.run([l1, l2, gl])
    np.testing.assert_allclose(v1[0, 0, 0], [0.313246, 0.3960424, 0.3337855, 0.3017339,
                                             0.2346026, 0.3576696, 0.2543483], rtol=2e-6)
    np.testing.assert_allclose(v2[0, 1, 1], [0.3762363, 0.2168436, 0.3474472, 0.0572188,
                                             0.2826498, 0.068666, 0.4533864], rtol=2e-6)
    np.testing.assert_allclose(g[0, 1, 1], [-0.1890406, 0.3381619, 0.4448569, 1.3724293,
                                            0.8872559, 2.2233565, 1.7948022], rtol=2e-6)
    with pytest.raises(ValueError, match="rank 4"):
        tf.nn.lrn(tf.ones([2, 2, 3]))
    with pytest.raises(TypeError, match="float64 not in list of allowed values"):
        tf.nn.lrn(tf.ones([1, 2, 2, 3], tf.float64))


def depthwise_inputs():
    rs = np.random.RandomState(1)
    x = np.round(rs.rand(1, 4, 5, 2), 2).astype(np.float32)
    f = np.round(rs.rand(3, 3, 2, 2) - 0.5, 2).astype(np.float32)
    return x, f, np.round(rs.rand(1, 1, 4, 3), 2).astype(np.float32)


def test_depthwise_and_separable_convolutions_with_gradients():
    xv, fv, pv = depthwise_inputs()
    x, f = tf.constant(xv), tf.constant(fv)
    dw = tf.nn.depthwise_conv2d(x, f, [1, 1, 1, 1], "SAME")
    dw2 = tf.nn.depthwise_conv2d(x, f, strides=[1, 2, 2, 1], padding="VALID")
    dw3 = tf.nn.depthwise_conv2d(x, f, [1, 1, 1, 1], "SAME", rate=[2, 2])
    sep = tf.nn.separable_conv2d(x, f, tf.constant(pv), [1, 1, 1, 1], "SAME")
    assert (dw.name, dw.shape.as_list(), dw2.shape.as_list()) == (
        "depthwise:0", [1, 4, 5, 4], [1, 1, 2, 4])
    assert (sep.name, sep.shape.as_list()) == ("separable_conv2d:0", [1, 4, 5, 3])
    gx, gf = tf.gradients(tf.reduce_sum(dw2 * dw2), [x, f])
    with tf.Session() as sess:
        r = sess.run([dw, dw2, dw3, sep, gx, gf])
    close = dict(rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(r[0][0, 1], [   # TF's numbers
        [0.0218, -0.0179, 0.6995, -0.6153], [-0.4859, 0.2129, 0.4632, -0.5652],
        [-0.1085, -0.0526, 0.4232, -0.508], [-0.5394, -0.1905, 0.0166, -0.4536],
        [-0.1446, -0.0992, 0.5152, -0.5403]], **close)
    np.testing.assert_allclose(r[1], [[[[-0.4859, 0.2129, 0.4632, -0.5652],
                                        [-0.5394, -0.1905, 0.0166, -0.4536]]]], **close)
    np.testing.assert_allclose(r[2][0, 0, :, 1], [0.1843, 0.0387, -0.0212, -0.046, -0.124],
                               **close)
    np.testing.assert_allclose(r[3][0, 1], [
        [-0.021938, -0.027876, -0.396571], [-0.45775, -0.063629, -0.649955],
        [-0.279103, -0.154583, -0.487403], [-1.036497, -0.545668, -0.953634],
        [-0.306764, -0.189915, -0.549538]], **close)
    np.testing.assert_allclose(r[4][0, 0], [
        [-0.36973, -0.53162], [0.36743, 0.61721], [-0.57733, -0.91854], [0.45057, 0.20412],
        [0.36752, -0.17923]], atol=1e-5)   # (TF's, to 5 decimals)
    np.testing.assert_allclose(r[5][:, :, 1, 1], [
        [-0.89554, -0.65664, -0.59162], [-1.3878, -1.50278, -0.93881],
        [-1.9039, -0.81626, -1.80439]], atol=1e-5)
    with pytest.raises(ValueError, match="input channels"):
        tf.nn.depthwise_conv2d(x, tf.ones([3, 3, 3, 1]), [1, 1, 1, 1], "SAME")


def test_resize_bilinear_and_nearest_neighbor_with_tf1_sampling():
    im = tf.constant(np.arange(24, dtype=np.float32).reshape(2, 3, 4, 1) ** 1.5)
    out = {}
    for ac, hp in ((False, False), (False, True), (True, False)):
        out["bil", ac, hp] = tf.image.resize_bilinear(im, [5, 3], align_corners=ac,
                                                      half_pixel_centers=hp)
        out["nn", ac, hp] = tf.image.resize_nearest_neighbor(im, [5, 7], align_corners=ac,
                                                             half_pixel_centers=hp)
    assert out["bil", False, False].name == "ResizeBilinear:0"
    assert out["nn", False, True].name == "ResizeNearestNeighbor_1:0"
    assert tf.image.resize_bilinear(tf.constant(np.ones((1, 2, 2, 1))), [3, 3]).dtype == \
        np.float32                                     # (TF: float32 from float64)
    (gb,) = tf.gradients(tf.reduce_sum(out["bil", False, False] ** 2), im)
    (gn,) = tf.gradients(tf.reduce_sum(out["nn", False, False] * 2), im)
    with tf.Session() as sess:
        r = sess.run(out)
        gbv, gnv = sess.run([gb, gn])
    want = {   # image 1 of the batch, from TF
        ("bil", False, False): [[41.569221, 48.709179, 56.190899],
                                [55.02768, 62.7943, 70.877502],
                                [69.088539, 77.457977, 86.121353],
                                [84.354179, 93.278831, 102.479691],
                                [89.442719, 98.552437, 107.932457]],
        ("bil", False, True): [[42.453041, 49.627682, 57.142818],
                               [51.478008, 59.06868, 66.983223],
                               [65.015457, 73.230164, 81.74382],
                               [80.35096, 89.119041, 98.16851],
                               [90.574623, 99.711617, 109.118294]],
        ("bil", True, False): [[41.569221, 49.627682, 58.09475],
                               [52.784611, 61.428921, 70.456909],
                               [64.0, 73.230164, 82.819077],
                               [76.721359, 86.470886, 96.5616],
                               [89.442719, 99.711617, 110.304123]]}
    for key, value in want.items():
        np.testing.assert_allclose(r[key][1, :, :, 0], value, rtol=2e-6)
    image1 = np.arange(12, 24, dtype=np.float32).reshape(3, 4) ** 1.5
    picks = {(False, False): ([0, 0, 1, 1, 2], [0, 0, 1, 1, 2, 2, 3]),
             (False, True): ([0, 0, 1, 2, 2], [0, 0, 1, 2, 2, 3, 3]),
             (True, False): ([0, 1, 1, 2, 2], [0, 1, 1, 2, 2, 3, 3])}   # (rounds halves up)
    for (ac, hp), (rows, cols) in picks.items():
        np.testing.assert_array_equal(r["nn", ac, hp][1, :, :, 0], image1[rows][:, cols])
    np.testing.assert_allclose(gbv[1, :, :, 0], [
        [127.1606, 98.4358, 105.5792, 112.7226], [210.3166, 157.7316, 166.8122, 175.8927],
        [341.4876, 251.5561, 263.8717, 276.1874]], rtol=2e-6)
    assert gnv[1, :, :, 0].tolist() == [[8, 8, 8, 4], [8, 8, 8, 4], [4, 4, 4, 2]]
    with pytest.raises(ValueError, match="rank 4"):
        tf.image.resize_bilinear(tf.ones([3, 3, 1]), [2, 2])
    with pytest.raises(tf.errors.InvalidArgumentError, match="half_pixel_centers is True"):
        tf.image.resize_bilinear(im, [2, 2], align_corners=True, half_pixel_centers=True)


# -- 4. checkpoints ---------------------------------------------------------------

def test_checkpoint_readers_last_checkpoints_and_uninitialized_variables(tmp_path):
    with tf.variable_scope("layer"):
        w = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3), name="w")
    b = tf.Variable(2.5, name="b")
    tf.Variable(0, name="step", dtype=tf.int64, trainable=False)
    tf.Variable(1.0, name="loc", collections=[tf.GraphKeys.LOCAL_VARIABLES])
    saver = tf.train.Saver(max_to_keep=2)
    report = tf.report_uninitialized_variables()
    some = tf.report_uninitialized_variables([w, b])
    with tf.Session() as sess:
        got = sess.run(report)
        assert got.dtype == object and got.tolist() == [b"layer/w", b"b", b"step", b"loc"]
        sess.run(w.initializer)
        assert sess.run(report).tolist() == [b"b", b"step", b"loc"]
        assert sess.run(some).tolist() == [b"b"]
        sess.run(tf.global_variables_initializer())
        assert sess.run(report).tolist() == [b"loc"]
        assert sess.run(tf.report_uninitialized_variables([])).tolist() == []
        assert saver.last_checkpoints == []
        for i in range(3):
            saver.save(sess, str(tmp_path / "model"), global_step=i)
        assert saver.last_checkpoints == [str(tmp_path / "model-1"), str(tmp_path / "model-2")]
    with tf.Session() as other:   # (each session initialises its own)
        assert other.run(some).tolist() == [b"layer/w", b"b"]
    listed = [("b", []), ("layer/w", [2, 3]), ("step", [])]
    assert tf.train.list_variables(str(tmp_path)) == listed
    assert tf.train.list_variables(str(tmp_path / "model-1")) == listed
    assert tf.train.load_variable(str(tmp_path), "layer/w").tolist() == [[0, 1, 2], [3, 4, 5]]
    assert tf.train.load_variable(str(tmp_path), "layer/w:0").dtype == np.float32
    scalar = tf.train.load_variable(str(tmp_path), "b")
    assert scalar == 2.5 and type(scalar) is np.float32
    assert type(tf.train.load_variable(str(tmp_path), "step")) is np.int64
    with pytest.raises(tf.errors.NotFoundError, match="Key nope not found in checkpoint"):
        tf.train.load_variable(str(tmp_path), "nope")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match="Couldn't find 'checkpoint' file or checkpoints"):
        tf.train.list_variables(str(tmp_path / "empty"))
    with pytest.raises(tf.errors.NotFoundError, match="Failed to find any matching files"):
        tf.train.list_variables(str(tmp_path / "model-7"))


# -- 5. IndexedSlices -------------------------------------------------------------

def test_indexed_slices_built_by_programs_behave_as_tfs():
    v, i = tf.constant([[1., 2.], [3., 4.], [5., 6.]]), tf.constant([0, 2, 0])
    rows = tf.IndexedSlices(v, i, dense_shape=tf.constant([4, 2]))
    assert isinstance(rows, tf.IndexedSlices) and not isinstance(rows, tf.Tensor)
    assert (rows.values is v, rows.indices is i, rows.dtype, rows.name, rows.op.name,
            rows.shape.as_list(), rows.graph is tf.get_default_graph()) == (
        True, True, np.float32, "Const:0", "Const", [4, 2], True)
    dense = tf.convert_to_tensor(rows)
    listed = tf.IndexedSlices(v, i, dense_shape=[4, 2])
    assert listed.dense_shape == [4, 2]
    clipped, norm = tf.clip_by_global_norm([rows, tf.constant([1.0])], 1.0)
    assert isinstance(clipped[0], tf.IndexedSlices) and clipped[0].indices is i
    emb = tf.Variable([[1.0], [2.0]])
    (g,) = tf.gradients(tf.reduce_sum(tf.nn.embedding_lookup(emb, [0, 0, 1])), emb)
    assert isinstance(g, tf.IndexedSlices)      # the rows looked up, as TF's (compat.rows)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(dense).tolist() == [[6, 8], [0, 0], [3, 4], [0, 0]]
        assert sess.run(tf.convert_to_tensor(listed)).tolist() == [[6, 8], [0, 0], [3, 4],
                                                                    [0, 0]]
        assert sess.run(tf.reduce_sum(rows, 0)).tolist() == [9, 12]   # densified, as TF
        assert sess.run((-rows).values).tolist() == [[-1, -2], [-3, -4], [-5, -6]]
        assert sess.run(tf.global_norm([rows])) == pytest.approx(9.539392)   # TF's
        assert sess.run(norm) == pytest.approx(np.sqrt(92.0))
        np.testing.assert_allclose(sess.run(clipped[0].values), sess.run(v) / np.sqrt(92.0),
                                   rtol=1e-6)
        assert sess.run(tf.convert_to_tensor(g)).tolist() == [[2.0], [1.0]]
        got = sess.run(g)
        assert (type(got).__name__, got.values.tolist(), got.indices.tolist(),
                got.dense_shape.tolist()) == ("IndexedSlicesValue", [[1.0]] * 3, [0, 0, 1],
                                              [2, 1])
    with pytest.raises(ValueError, match="without dense_shape"):
        tf.convert_to_tensor(tf.IndexedSlices(v, i))
    with pytest.raises(TypeError, match="unsupported operand"):   # (TF's too)
        rows * 2


# -- 6. metrics -------------------------------------------------------------------

def test_streaming_metrics_names_variables_and_values_are_tfs():
    labels, preds = tf.placeholder(tf.float32, [None]), tf.placeholder(tf.float32, [None])
    w = tf.placeholder(tf.float32, [None])
    bl, bp = tf.placeholder(tf.bool, [None]), tf.placeholder(tf.bool, [None])
    ms = {"mse": tf.metrics.mean_squared_error(labels, preds, name="my_metric"),
          "mae": tf.metrics.mean_absolute_error(labels, preds, weights=w),
          "rmse": tf.metrics.root_mean_squared_error(labels, preds),
          "prec": tf.metrics.precision(bl, bp), "rec": tf.metrics.recall(bl, bp, weights=w),
          "tp": tf.metrics.true_positives(bl, bp), "fp": tf.metrics.false_positives(bl, bp),
          "fn": tf.metrics.false_negatives(bl, bp), "tn": tf.metrics.true_negatives(bl, bp),
          "auc": tf.metrics.auc(labels, preds),
          "auc_pr": tf.metrics.auc(labels, preds, curve="PR", num_thresholds=5)}
    names = {k: (v.name, u.name) for k, (v, u) in ms.items()}
    assert names["mse"] == ("my_metric/value:0", "my_metric/update_op:0")
    assert names["rmse"] == ("Sqrt:0", "Sqrt_1:0")
    assert names["prec"] == ("precision/value:0", "precision/update_op:0")
    assert names["tp"] == ("true_positives/Identity:0", "true_positives/AssignAdd:0")
    assert names["auc_pr"] == ("auc_1/value:0", "auc_1/update_op:0")
    local = [v.name for v in tf.local_variables()]
    assert local == [v.name for v in tf.get_collection(tf.GraphKeys.METRIC_VARIABLES)]
    assert tf.GraphKeys.METRIC_VARIABLES == "metric_variables"
    assert local == [   # TF's names, in TF's order
        "my_metric/total:0", "my_metric/count:0", "mean_absolute_error/total:0",
        "mean_absolute_error/count:0", "root_mean_squared_error/total:0",
        "root_mean_squared_error/count:0", "precision/true_positives/count:0",
        "precision/false_positives/count:0", "recall/true_positives/count:0",
        "recall/false_negatives/count:0", "true_positives/count:0", "false_positives/count:0",
        "false_negatives/count:0", "true_negatives/count:0", "auc/true_positives:0",
        "auc/false_negatives:0", "auc/true_negatives:0", "auc/false_positives:0",
        "auc_1/true_positives:0", "auc_1/false_negatives:0", "auc_1/true_negatives:0",
        "auc_1/false_positives:0"]
    assert ms["auc"][0].shape.as_list() == [] and tf.local_variables()[-5].shape == (200,)
    batches = [([0., 1., 1., 0.], [0.2, 0.9, 0.4, 0.6], [1., 2., 1., 0.5]),
               ([1., 1., 0.], [0.7, 0.1, 0.3], [1., 1., 3.])]
    want = [   # TF 2.21 compat.v1, after each batch
        dict(mse=0.1925, mae=0.28888887, rmse=0.43874824, prec=0.5, rec=0.6666667, tp=1.0,
             fp=1.0, fn=1.0, tn=1.0, auc=0.74999976, auc_pr=0.79166633),
        dict(mse=0.25142857, mae=0.35789475, rmse=0.50142652, prec=0.6666667, rec=0.6,
             tp=2.0, fp=1.0, fn=2.0, tn=2.0, auc=0.66666657, auc_pr=0.76309514)]
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        assert sess.run([ms["mse"][0], ms["prec"][0], ms["auc"][0]]) == [0.0, 0.0, 0.0]
        for (lv, pv, wv), expected in zip(batches, want):
            feed = {labels: lv, preds: pv, w: wv, bl: np.array(lv) > 0.5,
                    bp: np.array(pv) > 0.5}
            got = sess.run({k: u for k, (v, u) in ms.items()}, feed)
            assert got == pytest.approx(expected, rel=1e-6)
        values = sess.run({k: v for k, (v, u) in ms.items()})   # reading adds nothing
        assert values == pytest.approx(want[1], rel=1e-6)


def test_metrics_collections_ranges_sums_and_uninitialized_counters():
    labels, preds = tf.placeholder(tf.float32, [None]), tf.placeholder(tf.float32, [None])
    value, update = tf.metrics.auc(labels, preds, metrics_collections=["m"],
                                   updates_collections=["u"], summation_method="minoring",
                                   num_thresholds=7)
    assert tf.get_collection("m") == [value] and tf.get_collection("u") == [update]
    others = [tf.metrics.auc(labels, preds, curve=c, summation_method=m, num_thresholds=7)[1]
              for c, m in (("ROC", "majoring"), ("PR", "minoring"), ("PR", "majoring"),
                           ("PR", "trapezoidal"))]
    others.append(tf.metrics.auc(labels, preds, thresholds=[0.5, 0.25, 0.75])[1])
    tp, tp_update = tf.metrics.true_positives(labels > 0.5, preds > 0.5)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.FailedPreconditionError):   # TF asks for the init
            sess.run(tp_update, {labels: [1.0], preds: [1.0]})
        sess.run(tf.local_variables_initializer())
        assert "predictions must be in [0, 1]" in run_error(
            sess, update, {labels: [1.0], preds: [1.5]})
        got = sess.run([update] + others, {labels: [0., 1., 1., 0., 1.],
                                           preds: [0.1, 0.8, 0.3, 0.45, 0.2]})
    # TF's: ROC minoring, majoring; PR minoring, majoring, trapezoidal; given thresholds
    assert got == pytest.approx([0.666666, 0.666666, 0.666667, 0.833333, 0.75, 0.666666],
                                abs=2e-6)
    with pytest.raises(ValueError, match="summation_method='simpson'"):
        tf.metrics.auc(labels, preds, curve="PR", summation_method="simpson")
    with pytest.raises(ValueError, match="curve='XY'"):
        tf.metrics.auc(labels, preds, curve="XY")


def test_confusion_matrix_mean_iou_and_mean_per_class_accuracy():
    labels, preds = tf.placeholder(tf.int64, [None]), tf.placeholder(tf.int64, [None])
    w = tf.placeholder(tf.float32, [None])
    miou, miou_op = tf.metrics.mean_iou(labels, preds, num_classes=4)
    wiou, wiou_op = tf.metrics.mean_iou(labels, preds, num_classes=4, weights=w, name="wiou")
    mpca, mpca_op = tf.metrics.mean_per_class_accuracy(labels, preds, num_classes=4)
    cm = tf.confusion_matrix(labels, preds, num_classes=4)
    cmw = tf.math.confusion_matrix(labels, preds, num_classes=3, weights=w, dtype=tf.float32)
    assert [(t.name, t.dtype) for t in (miou, miou_op, mpca, mpca_op, cm, cmw)] == [
        ("mean_iou/Select_1:0", np.float32), ("mean_iou/AssignAdd:0", np.float64),
        ("mean_accuracy/mean_accuracy:0", np.float32), ("mean_accuracy/update_op:0",
                                                        np.float32),
        ("confusion_matrix/ScatterNd:0", np.int32), ("confusion_matrix_1/ScatterNd:0",
                                                     np.float32)]
    assert [(v.name, v.shape, v.dtype) for v in tf.local_variables()] == [
        ("mean_iou/total_confusion_matrix:0", (4, 4), np.float64),
        ("wiou/total_confusion_matrix:0", (4, 4), np.float64),
        ("mean_accuracy/total:0", (4,), np.float32), ("mean_accuracy/count:0", (4,),
                                                      np.float32)]
    b1 = {labels: [0, 1, 1, 2, 0], preds: [0, 1, 2, 2, 1], w: [1., 2., 1., 0.5, 1.]}
    b2 = {labels: [2, 2, 1], preds: [2, 0, 1], w: [1., 1., 3.]}
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        first = sess.run([miou_op, wiou_op, mpca_op], b1)
        second = sess.run([miou_op, wiou_op, mpca_op], b2)
        final = sess.run([miou, wiou, mpca])
        counts = sess.run([cm, cmw], b1)
        assert "`labels` out of bound" in run_error(sess, cm, {labels: [4], preds: [0]})
        assert "`predictions` out of bound" in run_error(sess, cm, {labels: [0], preds: [-1]})
        assert sess.run(tf.confusion_matrix([0, 2, 1], [0, 1, 1])).tolist() == [
            [1, 0, 0], [0, 1, 0], [0, 1, 0]]          # (sized from constant values)
    # TF's: update_op of mean_iou gives the summed matrix, of mean_per_class_accuracy
    # the per-class accuracies
    assert first[0].tolist() == [[1, 1, 0, 0], [0, 1, 1, 0], [0, 0, 1, 0], [0, 0, 0, 0]]
    assert first[1].tolist() == [[1, 1, 0, 0], [0, 2, 1, 0], [0, 0, 0.5, 0], [0, 0, 0, 0]]
    assert first[2].tolist() == [0.5, 0.5, 1.0, 0.0]
    assert second[0].tolist() == [[1, 1, 0, 0], [0, 2, 1, 0], [1, 0, 2, 0], [0, 0, 0, 0]]
    assert second[1].tolist() == [[1, 1, 0, 0], [0, 5, 1, 0], [1, 0, 1.5, 0], [0, 0, 0, 0]]
    np.testing.assert_allclose(second[2], [0.5, 2 / 3, 2 / 3, 0.0], rtol=1e-6)
    assert final[0] == pytest.approx(0.44444445) and final[2] == pytest.approx(0.45833337)
    assert counts[0].tolist() == [[1, 1, 0, 0], [0, 1, 1, 0], [0, 0, 1, 0], [0, 0, 0, 0]]
    assert counts[1].tolist() == [[1, 1, 0], [0, 2, 1], [0, 0, 0.5]]
    with pytest.raises(ValueError, match="give num_classes"):
        tf.confusion_matrix(labels, preds)
    with pytest.raises(AttributeError, match="from tf.metrics.mean"):
        tf.metrics.streaming_auc   # (contrib's name: not a tf.metrics function)
