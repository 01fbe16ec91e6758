"""TF1 variables, scopes, names and errors: programs from TF's documentation, run with only
the import changed."""
import numpy as np
import pytest

import symgrad as sg
from .tf1_programs import run_tf1


def test_variable_scope_reuse_as_documented():
    out = run_tf1("""
    import numpy as np
    import tensorflow as tf
    with tf.variable_scope("foo"):
        with tf.variable_scope("bar"):
            v = tf.get_variable("v", [1])
    with tf.variable_scope("foo", reuse=True):
        v1 = tf.get_variable("bar/v", [1])
    with tf.variable_scope("foo") as scope:
        w = tf.get_variable("w", [1])
        scope.reuse_variables()
        w1 = tf.get_variable("w", [1])
    with tf.variable_scope("shared", reuse=tf.AUTO_REUSE):
        a = tf.get_variable("a", [2], initializer=tf.constant_initializer(3.0))
        a1 = tf.get_variable("a", [2])
    """)
    assert out["v"].name.startswith("foo/bar/v") and out["v1"] is out["v"]
    assert out["w1"] is out["w"] and out["a1"] is out["a"]
    np.testing.assert_array_equal(out["a"].initial, [3.0, 3.0])


def test_variable_scope_errors_are_tfs():
    import symgrad.compat.v1 as tf
    with tf.variable_scope("foo"):
        tf.get_variable("v", [1])
    with pytest.raises(ValueError, match="Variable foo/v already exists, disallowed"):
        with tf.variable_scope("foo"):
            tf.get_variable("v", [1])
    with pytest.raises(ValueError, match="Variable foo/u does not exist"):
        with tf.variable_scope("foo", reuse=True):
            tf.get_variable("u", [1])
    with pytest.raises(ValueError, match="must be fully defined"):
        tf.get_variable("no_shape")


def test_shared_layer_function_builds_one_set_of_variables():
    out = run_tf1("""
    import numpy as np
    import tensorflow as tf
    def my_layer(x):
        W = tf.get_variable("W", [3, 2], initializer=tf.random_normal_initializer(seed=1))
        b = tf.get_variable("b", [2], initializer=tf.zeros_initializer())
        return tf.nn.relu(tf.matmul(x, W) + b)
    x1 = tf.placeholder(tf.float32, [4, 3])
    x2 = tf.placeholder(tf.float32, [4, 3])
    with tf.variable_scope("layer1") as scope:
        y1 = my_layer(x1)
        scope.reuse_variables()
        y2 = my_layer(x2)
    n_vars = len(tf.trainable_variables())
    data = np.arange(12.0).reshape(4, 3)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        r1, r2 = sess.run([y1, y2], feed_dict={x1: data, x2: data})
        W_value = sess.run(tf.get_default_graph().get_tensor_by_name("layer1/W:0"))
    """)
    assert out["n_vars"] == 2
    np.testing.assert_allclose(out["r1"], out["r2"])
    np.testing.assert_allclose(out["r1"], np.maximum(np.arange(12.0).reshape(4, 3)
                                                     @ out["W_value"], 0), rtol=1e-6)


def test_default_scope_names_restart_when_their_parent_scope_is_entered_again():
    """TF1 counts default names (``rnn``, ``dense``) per enclosing scope since it was
    entered: a model built twice under one reused scope shares its variables, and two
    unnamed layers side by side get ``dense`` and ``dense_1``."""
    out = run_tf1("""
    import numpy as np
    import tensorflow as tf
    x = tf.placeholder(tf.float32, [None, 5, 4])
    outs = []
    for _ in range(2):
        with tf.variable_scope("model", reuse=tf.AUTO_REUSE):
            out, _ = tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(8), x, dtype=tf.float32)
            outs.append(tf.layers.dense(out[:, -1], 2))
    shared = [v.name for v in tf.global_variables()]
    with tf.variable_scope("side"):
        a = tf.layers.dense(x[:, 0], 3)
        b = tf.layers.dense(x[:, 0], 3)
        with tf.variable_scope(None, default_name="block"):
            pass
        with tf.variable_scope(None, default_name="block") as second:
            pass
    side = [v.name for v in tf.global_variables() if v.name.startswith("side")]
    data = np.random.default_rng(0).normal(size=(3, 5, 4))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first, again = sess.run(outs, {x: data})
    """)
    assert out["shared"] == [
        "model/rnn/gru_cell/gates/kernel:0", "model/rnn/gru_cell/gates/bias:0",
        "model/rnn/gru_cell/candidate/kernel:0", "model/rnn/gru_cell/candidate/bias:0",
        "model/dense/kernel:0", "model/dense/bias:0"]
    np.testing.assert_array_equal(out["first"], out["again"])
    assert out["side"] == ["side/dense/kernel:0", "side/dense/bias:0",
                           "side/dense_1/kernel:0", "side/dense_1/bias:0"]
    assert out["second"].name == "side/block_1"


def test_initializers_follow_tfs_distributions():
    import symgrad.compat.v1 as tf
    w = tf.get_variable("w", [40, 60], initializer=tf.glorot_uniform_initializer(seed=3))
    n = tf.get_variable("n", [4000], initializer=tf.truncated_normal_initializer(stddev=0.5,
                                                                                 seed=3))
    g = tf.get_variable("g", [200, 300])                # default: Glorot uniform
    c = tf.get_variable("c", [2, 3], initializer=tf.constant_initializer([1.0, 2.0]))
    limit = np.sqrt(6 / (40 + 60))
    assert np.abs(w.initial).max() <= limit and np.abs(w.initial).max() > 0.9 * limit
    assert np.abs(n.initial).max() <= 1.0 and abs(n.initial.std() - 0.5 * 0.8796) < 0.03
    assert np.abs(g.initial).max() <= np.sqrt(6 / 500) and g.dtype == np.float32
    np.testing.assert_array_equal(c.initial, [[1, 2, 2], [2, 2, 2]])   # padded with the last
    he = tf.initializers.he_normal(seed=0).array((500, 400), np.float32)
    assert abs(he.std() - np.sqrt(2 / 500)) < 0.002                  # rescaled truncation
    q = tf.orthogonal_initializer(seed=0).array((5, 3), np.float64)
    np.testing.assert_allclose(q.T @ q, np.eye(3), atol=1e-12)


def test_dense_layers_name_and_compute():
    out = run_tf1("""
    import numpy as np
    import tensorflow as tf
    x = tf.placeholder(tf.float32, shape=[2, 3])
    h = tf.layers.dense(x, 4, activation=tf.nn.relu)
    y = tf.layers.dense(h, 1)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        kernel, bias, k2, b2 = sess.run(tf.trainable_variables())
        result = sess.run(y, feed_dict={x: data})
    names = [v.name for v in tf.trainable_variables()]
    """, data=np.arange(6.0).reshape(2, 3))
    assert [n.split(":")[0] for n in out["names"]] == ["dense/kernel", "dense/bias",
                                                        "dense_1/kernel", "dense_1/bias"]
    hidden = np.maximum(np.arange(6.0).reshape(2, 3) @ out["kernel"] + out["bias"], 0)
    np.testing.assert_allclose(out["result"], hidden @ out["k2"] + out["b2"], rtol=1e-5)
    np.testing.assert_array_equal(out["bias"], np.zeros(4))


def test_fetch_and_feed_by_name_and_name_scopes():
    out = run_tf1("""
    import numpy as np
    import tensorflow as tf
    with tf.name_scope("inputs"):
        x = tf.placeholder(tf.float32, shape=[3], name="x")
    with tf.name_scope("layer1"):
        W = tf.Variable([1.0, 2.0, 3.0], name="W")
        y = tf.reduce_sum(W * x, name="y")
    graph = tf.get_default_graph()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        by_name = sess.run("layer1/y:0", feed_dict={"inputs/x:0": [1.0, 1.0, 2.0]})
        W_again = graph.get_tensor_by_name("layer1/W:0")
    """)
    assert out["by_name"] == pytest.approx(9.0) and out["W_again"] is out["W"]
    import symgrad.compat.v1 as tf
    with tf.Session() as sess, pytest.raises(ValueError, match="cannot be interpreted"):
        sess.run("nothing:0")


def test_control_dependencies_and_group():
    out = run_tf1("""
    import numpy as np
    import tensorflow as tf
    x = tf.Variable(0.0)
    x_plus_1 = tf.assign_add(x, 1)
    with tf.control_dependencies([x_plus_1]):
        y = tf.identity(x)
    a = tf.Variable(1.0)
    b = tf.Variable(5.0)
    both = tf.group(tf.assign(a, 10.0), tf.assign_sub(b, 2.0))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        ys = [sess.run(y) for _ in range(3)]
        assert sess.run(both) is None
        ab = sess.run([a, b])
    """)
    assert out["ys"] == [1.0, 2.0, 3.0] and out["ab"] == [10.0, 3.0]


def test_a_group_of_assigns_reads_every_value_before_any_assign_acts():
    # velocity Verlet's update: both new values come from the old state (TF1 computes
    # each tensor once per run); an assign waiting on another reads after it
    out = run_tf1("""
    import tensorflow as tf
    pos, vel = tf.Variable(1.0), tf.Variable(0.5)
    new_pos = pos + 0.1 * vel
    new_vel = vel - 0.1 * pos
    step = tf.group(tf.assign(pos, new_pos), tf.assign(vel, new_vel))
    c = tf.Variable(0.0)
    inc = tf.assign_add(c, 1.0)
    with tf.control_dependencies([inc]):
        double = tf.assign(c, c * 2.0)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(step)
        first = sess.run([pos, vel])
        sess.run(step)
        second = sess.run([pos, vel])
        sess.run(double)
        doubled = sess.run(c)
    """)
    p, v = 1.0, 0.5
    want = []
    for _ in range(2):
        p, v = p + 0.1 * v, v - 0.1 * p
        want.append([p, v])
    assert out["first"] == pytest.approx(want[0]) and out["second"] == pytest.approx(want[1])
    assert out["doubled"] == 2.0


def test_tf_errors_where_tf_raises_them():
    import symgrad.compat.v1 as tf
    x = tf.placeholder(tf.float32, shape=[2], name="x")
    v = tf.Variable(1.0, name="v")
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="must feed a value for "
                           "placeholder tensor 'x'"):
            sess.run(x * 2)
        with pytest.raises(sg.FeedError):                 # also symgrad's own class
            sess.run(x * 2)
        with pytest.raises(tf.errors.FailedPreconditionError,
                           match="uninitialized value v"):
            sess.run(v + 1)
        sess.run(v.initializer)
        assert sess.run(v + 1) == 2.0
    with tf.Session() as other:                            # initialisation is per session
        with pytest.raises(sg.StateError):
            other.run(v)
    for name in ("OpError", "InvalidArgumentError", "FailedPreconditionError", "NotFoundError",
                 "OutOfRangeError", "UnimplementedError", "ResourceExhaustedError"):
        assert issubclass(getattr(tf.errors, name), sg.SymgradError)
    assert issubclass(tf.errors.InvalidArgumentError, sg.ArgumentError)


def test_placeholder_with_default_and_initializers_of_collections():
    import symgrad.compat.v1 as tf
    p = tf.placeholder_with_default(tf.constant([1.0, 2.0]), shape=[2])
    s = tf.reduce_sum(p * 3)
    step = tf.train.get_or_create_global_step()
    assert tf.train.get_or_create_global_step() is step and step.dtype == np.int64
    assert step in tf.global_variables() and step not in tf.trainable_variables()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(s) == 9.0 and sess.run(s, {p: [0.0, 1.0]}) == 3.0
        assert sess.run(tf.assign_add(step, 1)) == 1


def test_tf1_names_shapes_and_dtype_mixing():
    out = run_tf1("""
    import numpy as np
    import tensorflow as tf
    with tf.variable_scope("foo"):
        v = tf.get_variable("v", [1])
    x = tf.placeholder(tf.float32, shape=[4, 3], name="x")
    y = tf.reduce_sum(tf.matmul(x, tf.ones([3, 2])), name="y")
    g = tf.gradients(y, x)[0]
    names = [v.name, x.name, y.name, v.op_name]
    dims = x.get_shape().as_list(), x.shape.as_list(), y.get_shape().as_list()
    try:
        tf.constant(1.0, dtype=tf.float64) + tf.constant(2.0)
    except TypeError as e:
        mixed = str(e)
    try:
        tf.constant(1) * tf.constant(2.0)
    except TypeError as e:
        int_float = str(e)
    scaled = x * 2 + 1.5                        # Python numbers adapt: still float32
    """)
    assert out["names"] == ["foo/v:0", "x:0", "y:0", "foo/v"]
    assert out["dims"] == ([4, 3], [4, 3], [])
    assert "float32" in out["mixed"] and "float64" in out["mixed"]
    assert "int32" in out["int_float"] and out["scaled"].dtype == np.float32
    assert out["g"].name.endswith(":0") and out["g"].dtype == np.float32
    assert repr(out["x"]) == "<tf.Tensor 'x:0' shape=(4, 3) dtype=float32>"


def test_interactive_session_eval_and_run():
    out = run_tf1("""
    import numpy as np
    import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()
    sess = tf.InteractiveSession()
    x = tf.Variable(3.0)
    p = tf.placeholder(tf.float32, shape=[])
    tf.global_variables_initializer().run()
    y = x * x + p
    value = y.eval(feed_dict={p: 1.0})
    tf.assign_add(x, 1.0).run()
    after = x.eval()
    same = tf.compat.v1.placeholder is tf.placeholder
    sess.close()
    """)
    assert out["value"] == 10.0 and out["after"] == 4.0 and out["same"]
    import symgrad.compat.v1 as tf
    with pytest.raises(ValueError, match="No default session"):
        tf.no_op().run()


def test_to_scipy_assign_sets_compat_variables_at_once():
    import symgrad.compat.v1 as tf
    w = tf.Variable([1.0, 2.0])
    objective = sg.to_scipy(tf.reduce_sum(w * w), w)
    objective.assign(np.array([3.0, 4.0]))
    np.testing.assert_array_equal(w.value, [3.0, 4.0])


def test_an_assigns_result_is_the_new_value_as_a_tensor():
    # TF1 returns a tensor from tf.assign: arithmetic on it runs the assign first, once per
    # run, and reads the variable after it
    out = run_tf1("""
    import tensorflow as tf
    counter = tf.Variable(0)
    increment = tf.assign_add(counter, 1)
    doubled = increment * 2
    both = tf.reduce_sum([increment, increment])
    moved = tf.square(tf.assign(tf.Variable(3.0), 4.0))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = [sess.run(doubled), sess.run(doubled), sess.run(both), sess.run(moved)]
        final = sess.run(counter)
        meta = (increment.dtype.name, increment.get_shape().as_list(), increment.eval())
    """)
    assert out["got"] == [2, 4, 6, 16.0] and out["final"] == 3
    assert out["meta"] == ("int32", [], 4)


def test_an_operation_without_a_value_has_no_dtype_or_shape():
    # TF's Operation has no dtype or shape attribute: hasattr/getattr probes give False and
    # the default (code that prints "name, shape, dtype" of a mixed list of fetches)
    import symgrad.compat.v1 as tf
    with tf.Graph().as_default():
        w = tf.Variable(1.0)
        step = tf.train.GradientDescentOptimizer(0.1).minimize(tf.square(w))
        init = tf.global_variables_initializer()
        for op in (step, init, tf.no_op()):
            assert not hasattr(op, "dtype") and getattr(op, "shape", None) is None
        with pytest.raises(AttributeError, match="fetch it with sess.run"):
            step.get_shape()
        with pytest.raises(TypeError):
            tf.reduce_sum(step)
