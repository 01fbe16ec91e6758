"""What the eighth differential probe of TF1 programs (Hands-On ML's TF1 chapters,
CS20-style scripts, Keras in graph mode, odd corners) found in gradients, sessions,
variables and layers, against real TensorFlow 2.21 (compat.v1, v2 behaviour disabled)."""
import numpy as np
import pytest

import symgrad.compat.v1 as tf


def test_stop_gradient_under_a_labels_placeholder_of_unknown_rank():
    # Geron ch11 freezes lower layers with tf.stop_gradient while the labels are
    # tf.placeholder(tf.int32, shape=(None)): the loss has unknown rank, yet TF knows
    # the frozen layers get None, and minimize() trains the rest.
    with tf.Graph().as_default():
        X = tf.placeholder(tf.float32, shape=(None, 2))
        y = tf.placeholder(tf.int32, shape=(None))
        h = tf.layers.dense(X, 3, activation=tf.nn.relu, name="h", kernel_initializer=(
            tf.constant_initializer([[0.5, -0.2, 0.3], [0.1, 0.4, -0.6]])))
        logits = tf.layers.dense(tf.stop_gradient(h), 2, name="out", kernel_initializer=(
            tf.constant_initializer([[1., -1.], [0.5, 0.2], [-0.3, 0.7]])))
        loss = tf.reduce_mean(
            tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
        variables = tf.trainable_variables()
        assert [g is None for g in tf.gradients(loss, variables)] == [True, True, False, False]
        assert all(g is None for g in tf.gradients(loss, variables, stop_gradients=[logits]))
        step = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(step, {X: [[1., 2.], [3., -1.]], y: [0, 1]})
            kernel, bias = sess.run(variables[2:])
    np.testing.assert_allclose(kernel, [[0.754847, -0.754847], [0.525619, 0.174381],
                                        [-0.594688, 0.994688]], rtol=1e-5)
    np.testing.assert_allclose(bias, [-0.15376, 0.15376], rtol=1e-5)


def test_regularization_losses_are_named_under_the_variable_and_regularizer():
    # TF names a get_variable regularizer's loss "<variable>/Regularizer/<op>"
    reg = lambda w: tf.reduce_sum(tf.abs(w), name="l1")
    with tf.Graph().as_default():
        with tf.variable_scope("outer"):
            tf.get_variable("w", [2], regularizer=reg)
            tf.layers.dense(tf.zeros([1, 2]), 2, kernel_regularizer=reg, name="h")
        names = [t.name for t in tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)]
    assert names == ["outer/w/Regularizer/l1:0", "outer/h/kernel/Regularizer/l1:0"]


def test_adam_variables_named_and_ordered_as_tf():
    # Geron's autoencoders train phases under name scopes: TF makes beta1_power in the
    # name scope open at minimize() (before the slots), slots in the variable scope
    with tf.Graph().as_default():
        w = tf.Variable([1.0, 2.0], name="w")
        loss = tf.reduce_sum(w ** 2)
        with tf.name_scope("phase1"):
            tf.train.AdamOptimizer(0.1).minimize(loss)
        with tf.variable_scope("train"):
            tf.train.AdamOptimizer(0.1).minimize(loss)
        tf.train.AdamOptimizer(0.1).minimize(loss)
        tf.train.AdamOptimizer(0.1).minimize(loss)
        with tf.name_scope("outer"):
            with tf.name_scope("inner"):
                tf.train.AdamOptimizer(0.1, name="MyAdam").minimize(loss)
        names = [v.op.name for v in tf.global_variables()]
    assert names == [
        "w", "phase1/beta1_power", "phase1/beta2_power", "w/Adam", "w/Adam_1",
        "train/beta1_power", "train/beta2_power", "train/w/Adam", "train/w/Adam_1",
        "beta1_power", "beta2_power", "w/Adam_2", "w/Adam_3", "beta1_power_1",
        "beta2_power_1", "w/Adam_4", "w/Adam_5", "outer/inner/beta1_power",
        "outer/inner/beta2_power", "w/MyAdam", "w/MyAdam_1"]


def test_cs20_huber_loss_cond_on_shapeless_placeholders():
    # CS20's huber_loss: tf.cond(residual < delta, f1, f2) where X and Y are
    # tf.placeholder(tf.float32) (no shape); the comparison was a float "tensor" and
    # cond refused it.  TF's numbers.
    with tf.Graph().as_default():
        X = tf.placeholder(tf.float32, name="X")
        Y = tf.placeholder(tf.float32, name="Y")
        w = tf.get_variable("w", initializer=tf.constant(0.5))
        b = tf.get_variable("b", initializer=tf.constant(0.0))
        residual = tf.abs(Y - (w * X + b))
        small = residual < 2.0
        loss = tf.cond(small, lambda: 0.5 * tf.square(residual),
                       lambda: 2.0 * residual - 0.5 * tf.square(2.0))
        step = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        grads = tf.gradients(loss, [w, b])
        assert small.dtype == np.bool_ and small.get_shape().ndims is None
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            seen = []
            for x, y in [(1.0, 1.2), (2.0, 8.0), (3.0, 2.0), (-1.0, 4.0)]:
                seen.append(sess.run([loss] + grads, {X: x, Y: y}))
                sess.run(step, {X: x, Y: y})
            np.testing.assert_allclose(seen, [[0.245, -0.7, -0.7], [11.58, -4.0, -2.0],
                                              [0.6962001, 3.54, 1.18], [6.9279995, 2.0, -2.0]],
                                       rtol=1e-6)
            np.testing.assert_allclose(sess.run([w, b]), [0.416, 0.352], rtol=1e-6)
            with pytest.raises(tf.errors.InvalidArgumentError, match="predicate must be a scalar"):
                sess.run(loss, {X: [1.0, 2.0], Y: [1.0, 2.0]})


def test_ops_on_shapeless_placeholders_keep_their_names():
    with tf.Graph().as_default():
        X = tf.placeholder(tf.float32, name="X")
        Y = tf.placeholder(tf.float32, name="Y")
        sq = tf.square(Y - X, name="loss")
        assert sq.name == "loss:0"
        assert tf.cast(X, tf.int32).dtype == np.int32
        with tf.Session() as sess:
            assert sess.run("loss:0", {"X:0": 2.0, "Y:0": 1.5}) == 0.25


def test_unknown_tensor_shape():
    with tf.Graph().as_default():
        s = tf.placeholder(tf.float32).get_shape()
    assert (str(s), s.ndims, s.dims, s.is_fully_defined(), s.num_elements()) == (
        "<unknown>", None, None, False, None)
    assert s == tf.TensorShape(None) and tf.TensorShape(None).ndims is None
    with pytest.raises(ValueError, match="as_list\\(\\) is not defined on an unknown TensorShape"):
        s.as_list()


def test_partial_run_and_file_reading_say_what_to_do():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [])
        with tf.Session() as sess:
            with pytest.raises(tf.errors.UnimplementedError,
                               match="partial_run_setup / partial_run: .* one sess.run"):
                sess.partial_run_setup([x * 2], [x])
            with pytest.raises(tf.errors.UnimplementedError, match="partial runs"):
                sess.partial_run(None, x)
    with pytest.raises(AttributeError, match="tf.read_file: .*read the file in Python"):
        tf.read_file
    with pytest.raises(AttributeError, match="tf.decode_csv: .*np.loadtxt"):
        tf.decode_csv


def test_cond_whose_branches_read_a_shapeless_placeholder():
    # tf.cond(is_training, lambda: x * w * 2, lambda: x * w * 3) with x made by
    # tf.placeholder(tf.float32): TF gives 4.0 and [4, 6] below, grads 6 and 9
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32)
        training = tf.placeholder(tf.bool, [])
        w = tf.Variable(1.0)
        r = tf.abs(x - 1.0) * w
        out = tf.cond(training, lambda: r * 2, lambda: r * 3)
        g = tf.gradients(tf.reduce_sum(out), w)[0]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run(out, {x: 3.0, training: True}) == 4.0
            assert sess.run(out, {x: [3.0, 4.0], training: True}).tolist() == [4.0, 6.0]
            assert sess.run(g, {x: [2.0, 3.0], training: True}) == 6.0
            assert sess.run(g, {x: [2.0, 3.0], training: False}) == 9.0


def test_assign_of_another_shape_is_a_clear_error():
    with tf.Graph().as_default():
        v = tf.Variable([1.0, 2.0], validate_shape=False, name="dyn")
        with pytest.raises(ValueError, match="shapes of 'dyn:0' \\(2,\\) and the value \\(3,\\) "
                                             "are incompatible: tf.assign\\(validate_shape="
                                             "False\\) cannot change a variable's shape"):
            tf.assign(v, [1.0, 2.0, 3.0], validate_shape=False)
        with pytest.raises(ValueError, match="are incompatible$"):
            tf.assign(v, [1.0, 2.0, 3.0])


def test_count_up_to():
    with tf.Graph().as_default():
        counter = tf.Variable(0, name="counter")
        step = tf.count_up_to(counter, 3)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert [sess.run(step) for _ in range(3)] == [0, 1, 2]   # (TF's)
            with pytest.raises(tf.errors.OutOfRangeError, match="Reached limit of 3"):
                sess.run(step)
            assert sess.run(counter) == 3
        with pytest.raises(TypeError, match="integer Variable"):
            tf.count_up_to(tf.Variable(1.0), 2)


def test_distributed_names_say_to_run_in_one_process():
    for name in ("ClusterSpec", "Server", "replica_device_setter", "SyncReplicasOptimizer"):
        with pytest.raises(AttributeError, match=f"tf.train.{name}: distributed TensorFlow .* "
                                                 "plain tf.Session"):
            getattr(tf.train, name)
    assert callable(tf.train.Supervisor)   # (single-process: the breadth round's)


def test_graph_control_dependencies_collections_and_name_scope():
    g = tf.Graph()
    with g.as_default():
        a = tf.placeholder(tf.float32, [2], name="a")
        v = tf.Variable([1.0, 2.0], name="v")
        with g.control_dependencies([tf.assign_add(v, [1.0, 1.0])]):
            b = tf.identity(v, name="b")
        with g.name_scope("s1"):
            with tf.name_scope("s2"):
                assert g.get_name_scope() == "s1/s2"
        assert g.get_name_scope() == ""
        c = tf.add(a, b, name="c")
        g.add_to_collection("mine", c)
        g.add_to_collections(["m2", "m3"], b)
        assert g.get_collection("mine") == [c] and g.get_collection_ref("m3") == [b]
        assert {"mine", "m2", "m3"} <= set(g.get_all_collection_keys())
        g.clear_collection("mine")
        assert g.get_collection("mine") == []
        assert [t.name[-2:] for t in (b * 2).op.inputs] == [":0", ":0"]   # (TF1 tensors)
        init = tf.global_variables_initializer()
    with tf.Session(graph=g) as sess:
        sess.run(init)
        # TF: each run of c runs the assign first: [12, 23] then [3, 4]
        assert sess.run(c, {a: [10.0, 20.0]}).tolist() == [12.0, 23.0]
        assert sess.run(c, {a: [0.0, 0.0]}).tolist() == [3.0, 4.0]
