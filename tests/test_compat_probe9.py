"""What the ninth differential probe of TF1 programs (TF 1.x's own tutorials and
programmer's guide, aymericdamien/TensorFlow-Examples in its TF1 style, the migration
guides' TF1 snippets, gradient questions) found, against real TensorFlow 2.21
(compat.v1, v2 behaviour disabled).  The numbers are TF 2.21's."""
import numpy as np
import pytest

import symgrad.compat.v1 as tf


def test_integer_div_and_mean_stay_integers_as_in_tf1():
    # TF1's tf.div is Python 2's division (floor for integers) and reduce_mean of
    # integers is an integer mean rounded toward zero; both gave float 3.5 / 1.5 before
    with tf.Graph().as_default():
        fetches = [tf.div(7, 2), tf.div(tf.constant([7, -7]), 2), tf.div(7., 2.),
                   tf.reduce_mean(tf.constant([1, 2])), tf.reduce_mean([-1, -2]),
                   tf.reduce_mean([-3, -2, 0]),
                   tf.reduce_mean(tf.constant([[1, 2], [4, 4]]), reduction_indices=0),
                   tf.reduce_mean(tf.constant([7, 8], tf.uint8)),
                   tf.math.reduce_mean(tf.constant([1, 2], tf.int64)),
                   tf.reduce_mean(tf.constant([[1, 2], [4, 5]]), 1, keep_dims=True)]
        values = tf.Session().run(fetches)
    # TF 2.21: 3 -4 3.5 1 -1 -1 [2 3] 7 1 [[1] [4]]
    expected = [(3, "int32"), ([3, -4], "int32"), (3.5, "float32"), (1, "int32"),
                (-1, "int32"), (-1, "int32"), ([2, 3], "int32"), (7, "uint8"),
                (1, "int64"), ([[1], [4]], "int32")]
    for value, (want, dtype) in zip(values, expected):
        np.testing.assert_array_equal(value, want)
        assert np.asarray(value).dtype == dtype


def test_integer_mean_over_a_batch_of_unknown_size():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.int32, [None, 2])
        m = tf.reduce_mean(x, 0)
        assert m.dtype == np.int32
        value = tf.Session().run(m, {x: [[1, -1], [2, -2], [4, 0]]})
    np.testing.assert_array_equal(value, [2, -1])   # 7 // 3, -3 / 3 (TF 2.21)


def test_argmax_of_a_python_list_is_int64():
    # a Python list made the result a "Python numbers" result, cast to int32
    with tf.Graph().as_default():
        a = tf.argmax([[1, 5], [7, 2]], axis=1)
        b = tf.argmin([1., 5.], 0, output_type=tf.int32)
        assert (a.dtype, b.dtype) == (np.int64, np.int32)


def test_an_unfed_placeholder_of_any_shape_is_tfs_invalid_argument_error():
    # the tensors guide: t = p + 1.0; t.eval() without a feed
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float32)
        t = p + 1.0
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError, match="Placeholder"):
                t.eval()
            assert t.eval(feed_dict={p: 2.0}) == 3.0


def test_get_variable_initializer_computed_from_another_variable():
    # the variables guide: initializer=v.initialized_value() + 1
    with tf.Graph().as_default():
        v = tf.get_variable("v", initializer=tf.constant(2.0))
        w = tf.get_variable("w", initializer=v.initialized_value() + 1)
        with tf.Session() as sess:
            sess.run(tf.variables_initializer([v, w]))
            assert sess.run(w) == 3.0
        assert tf.get_variable_scope().reuse is False


def test_get_global_step_finds_a_variable_named_global_step():
    # Mechanics 101 makes tf.Variable(0, name='global_step', trainable=False)
    with tf.Graph().as_default():
        assert tf.train.get_global_step() is None
        step = tf.Variable(0, name="global_step", trainable=False)
        assert tf.train.get_global_step() is step
        assert tf.train.get_or_create_global_step() is step
    with tf.Graph().as_default():
        tf.Variable(0.5, name="global_step")
        with pytest.raises(TypeError, match="integer scalar"):
            tf.train.get_global_step()


def test_fetching_a_tensor_of_another_graph_is_a_value_error():
    g1, g2 = tf.Graph(), tf.Graph()
    with g1.as_default():
        c = tf.constant(1.0)
        sess_1 = tf.Session()
    with g2.as_default():
        d = tf.constant(2.0)
    assert sess_1.run(c) == 1.0
    with pytest.raises(ValueError, match="not an element of this graph"):
        sess_1.run(d)


def test_aggregation_methods_give_the_same_gradient():
    with tf.Graph().as_default():
        x = tf.constant([1.0, -2.0, 0.0])
        y = x * x + tf.sin(x) + x
        methods = [tf.AggregationMethod.ADD_N, tf.AggregationMethod.EXPERIMENTAL_TREE,
                   tf.AggregationMethod.EXPERIMENTAL_ACCUMULATE_N,
                   tf.AggregationMethod.DEFAULT]
        grads = [tf.gradients(y, x, aggregation_method=m)[0] for m in methods]
        values = tf.Session().run(grads)
    for v in values:   # TF 2.21
        np.testing.assert_allclose(v, [3.5403, -3.41615, 2.0], rtol=1e-5)


def test_variable_synchronization_and_aggregation_arguments_are_accepted():
    with tf.Graph().as_default():
        v = tf.get_variable("v", [2], initializer=tf.ones_initializer(),
                            synchronization=tf.VariableSynchronization.ON_READ,
                            aggregation=tf.VariableAggregation.MEAN, trainable=False)
        w = tf.Variable(1.0, synchronization=tf.VariableSynchronization.AUTO,
                        aggregation=tf.VariableAggregation.SUM)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run(v).tolist() == [1.0, 1.0] and sess.run(w) == 1.0
    assert tf.VariableAggregation.ONLY_FIRST_REPLICA == 3   # TF's value


def test_tensor_consumers_lists_the_operations_reading_it():
    with tf.Graph().as_default():
        a = tf.placeholder(tf.float32, [2], name="a")
        b = tf.multiply(a, 2.0, name="b")
        c = tf.add(a, b, name="c")
        v = tf.Variable([1., 2.], name="v")
        tf.assign(v, a, name="asg")
        # TF 2.21: ['b', 'c', 'asg'] ['c'] [] ['Mul', 'AddV2', 'Assign']
        assert [o.name for o in a.consumers()] == ["b", "c", "asg"]
        assert [o.name for o in b.consumers()] == ["c"] and c.consumers() == []
        assert [o.type for o in a.consumers()] == ["Mul", "AddV2", "Assign"]


def test_tensor_shape_slices_and_tf1_methods():
    # TF1 flatten helpers: x.get_shape()[1:].num_elements(); TF 2.21's answers
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3, 4])
        tail = x.get_shape()[1:]
        assert tail.as_list() == [3, 4] and tail.num_elements() == 12
        flat = tf.reshape(x, [-1, x.get_shape()[1:].num_elements()])
        assert flat.shape.as_list() == [None, 12]
        assert x.shape.rank == 3 and x.shape[-1] == 4
    s = tf.TensorShape([None, 3]).concatenate([5])
    assert s.as_list() == [None, 3, 5] and s.rank == 3
    assert s.merge_with([2, None, 5]).as_list() == [2, 3, 5]
    assert tf.TensorShape([None, 3]).is_compatible_with([7, 3])
    assert not tf.TensorShape([None, 3]).is_compatible_with([7, 4])
    with pytest.raises(ValueError, match="incompatible"):
        tf.TensorShape([2, 3]).merge_with([2, 4])
    assert tf.TensorShape(None).is_compatible_with([1, 2])
    assert (tf.Dimension(None) + 1).value is None and tf.Dimension(5) + 1 == 6


def test_moving_average_shadow_starts_at_the_variables_value_when_initialised():
    # TF makes the shadow from var.initialized_value(): the value the variable has when
    # the shadow's initializer runs, if the session initialised it (TF 2.21's numbers)
    with tf.Graph().as_default():
        b = tf.Variable([0.1])
        loss = tf.reduce_sum(b * 3.)
        with tf.Session() as sess:
            sess.run(b.initializer)
            sess.run(tf.assign(b, [-1.0]))
            step = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
            ema = tf.train.ExponentialMovingAverage(decay=0.9)
            with tf.control_dependencies([step]):
                train_ema = ema.apply([b])
            sess.run(tf.variables_initializer([ema.average(b)]))
            seen = [sess.run(ema.average(b))]
            for _ in range(2):
                sess.run(train_ema)
                seen.append(sess.run(ema.average(b)))
        with tf.Session() as fresh:   # initialised together: the initial value
            fresh.run(tf.global_variables_initializer())
            assert fresh.run(ema.average(b)).tolist() == [np.float32(0.1)]
    np.testing.assert_allclose(np.ravel(seen), [-1.0, -1.03, -1.087], rtol=1e-6)


def test_name_scope_reentered_by_its_string_and_reset_by_none():
    # the graphs guide: a scope captured with `as scope` is re-entered as it is, and
    # name_scope(None) makes names at the top level (TF 2.21's names)
    g = tf.Graph()
    with g.as_default(), g.name_scope("top"):
        a = tf.constant(1, name="a")
        with tf.name_scope(None) as top:
            b = tf.constant(2, name="b")
        with tf.name_scope("inner") as scope:
            c = tf.constant(3, name="c")
        with tf.name_scope(scope):
            d = tf.constant(4, name="d")
    assert [t.name for t in (a, b, c, d)] == ["top/a:0", "b:0", "top/inner/c:0",
                                              "top/inner/d:0"]
    assert (top, scope) == ("", "top/inner/")


def test_default_session_outside_a_with_block_is_none_and_devices_are_listed():
    with tf.Graph().as_default():
        assert tf.get_default_session() is None
        x = tf.constant([1.0])
        with tf.Session() as sess:
            assert tf.get_default_session() is sess
            (cpu,) = sess.list_devices()
            assert cpu.name == "/job:localhost/replica:0/task:0/device:CPU:0"
            assert cpu.device_type == "CPU"
        assert tf.get_default_session() is None
        assert x.device == "" and x.value_index == 0


def test_cond_and_while_loop_carry_dicts_and_cond_unpacks_singletons():
    # TF 2.21: a branch's (tensor, dict) comes back as such; a one-element list is
    # unpacked unless strict=True; a dict of loop vars keeps its keys and their order
    with tf.Graph().as_default():
        p = tf.placeholder(tf.bool, [])
        x = tf.constant([1., 2.])
        r = tf.cond(p, lambda: (x * 2, {"b": x + 1, "a": x[0]}),
                    lambda: (x * 3, {"b": x - 1, "a": x[1]}))
        single = tf.cond(p, lambda: [x[0]], lambda: [x[1]])
        strict = tf.cond(p, lambda: [x[0]], lambda: [x[1]], strict=True)
        d = tf.while_loop(lambda d: d["i"] < 4,
                          lambda d: [{"i": d["i"] + 1,
                                      "acc": d["acc"] + tf.cast(d["i"], tf.float32)}],
                          [{"i": tf.constant(0), "acc": tf.constant(0.)}])
        g = tf.gradients(r[1]["a"] + tf.reduce_sum(r[1]["b"]), x)[0]
        with tf.Session() as sess:
            taken = sess.run(r, {p: False})
            assert isinstance(strict, list) and sess.run(single * 2, {p: True}) == 2.0
            (loop,) = sess.run(d)
            assert list(loop) == ["i", "acc"] and loop["i"] == 4 and loop["acc"] == 6.0
            np.testing.assert_allclose(sess.run(g, {p: True}), [2., 1.])
    np.testing.assert_allclose(taken[0], [3., 6.])
    assert list(taken[1]) == ["b", "a"]
    np.testing.assert_allclose(taken[1]["b"], [0., 1.])
    assert taken[1]["a"] == 2.0


def test_scan_in_reverse_with_structures_and_its_gradient():
    # tf.scan(reverse=True) was refused; TF 2.21's values
    with tf.Graph().as_default():
        a = tf.constant([[1., 2.], [3., 4.], [5., 6.]])
        sc = tf.scan(lambda acc, e: acc * e + 1., a, reverse=True)
        sc2 = tf.scan(lambda acc, e: {"p": acc["p"] * e[0], "n": acc["n"] + 1},
                      (a[:, 0], a[:, 1]), reverse=True,
                      initializer={"p": tf.constant(2.), "n": tf.constant(0)})
        w = tf.constant([[1., -1.], [2., 0.5], [0., 3.]])
        g = tf.gradients(tf.reduce_sum(sc * w), a)[0]
        values, structured, grad = tf.Session().run([sc, sc2, g])
    np.testing.assert_allclose(values, [[17., 51.], [16., 25.], [5., 6.]])
    np.testing.assert_allclose(structured["p"], [30., 30., 10.])
    np.testing.assert_array_equal(structured["n"], [3, 2, 1])
    np.testing.assert_allclose(grad, [[16., -25.], [15., -9.], [9., -3.]])


def test_custom_getters_of_scopes_and_calls():
    # variable_scope(custom_getter=) was ignored: the scaled weights of TF's answers
    # (TF 2.21) came out unscaled
    calls = []

    def outer(getter, name, *args, **kwargs):
        calls.append(("outer", name))
        return getter(name, *args, **kwargs) * 2.

    def inner(getter, name, *args, **kwargs):
        calls.append(("inner", name))
        return getter(name, *args, **kwargs) + 1.

    def arg_getter(getter, *args, **kwargs):
        calls.append(("arg", kwargs["name"], kwargs["reuse"], kwargs["shape"]))
        return getter(*args, **kwargs) * 10.

    with tf.Graph().as_default():
        with tf.variable_scope("o", custom_getter=outer):
            with tf.variable_scope("i", custom_getter=inner):
                a = tf.get_variable("a", [1], initializer=tf.ones_initializer())
            b = tf.get_variable("b", [1], initializer=tf.ones_initializer(),
                                custom_getter=arg_getter)
            d = tf.layers.dense(tf.constant([[1., 2.]]), 1,
                                kernel_initializer=tf.ones_initializer())
        with tf.variable_scope("o", reuse=True):
            a2 = tf.get_variable("i/a", [1])
        names = [v.name for v in tf.global_variables()]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            values = sess.run([a, b, a2, d])
    assert [float(np.ravel(v)[0]) for v in values] == [3.0, 10.0, 1.0, 6.0]
    assert calls[:3] == [("inner", "o/i/a"), ("outer", "o/i/a"), ("arg", "o/b", False, [1])]
    assert names == ["o/i/a:0", "o/b:0", "o/dense/kernel:0", "o/dense/bias:0"]


def test_the_ema_custom_getter_reads_the_averages():
    # the evaluation idiom: variable_scope("", reuse=True, custom_getter=ema_getter)
    with tf.Graph().as_default():
        ema = tf.train.ExponentialMovingAverage(0.5)
        x = tf.get_variable("x", [2], initializer=tf.constant_initializer(3.))
        update = ema.apply([x])

        def ema_getter(getter, name, *args, **kwargs):
            var = getter(name, *args, **kwargs)
            return ema.average(var) or var   # (a TF1 variable is true, as in TF)
        with tf.variable_scope("", reuse=True, custom_getter=ema_getter):
            x_avg = tf.get_variable("x", [2])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(tf.assign(x, [5., 7.]))
            sess.run(update)
            np.testing.assert_allclose(sess.run(x_avg), [4., 5.])   # TF 2.21


def test_functional_layers_collect_their_activity_regularizer():
    # tf.layers.dense/conv2d(activity_regularizer=) was ignored; TF 2.21: [3.0, 2.0]
    with tf.Graph().as_default():
        tf.layers.dense(tf.ones([2, 3]), 1, kernel_initializer=tf.ones_initializer(),
                        activity_regularizer=tf.reduce_sum)
        tf.layers.conv2d(tf.ones([2, 3, 3, 1]), 2, 2,
                         kernel_initializer=tf.constant_initializer(0.5),
                         activity_regularizer=lambda a: tf.reduce_mean(a ** 2))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            losses = sess.run(tf.losses.get_regularization_losses())
    np.testing.assert_allclose(losses, [3.0, 2.0])
    with tf.Graph().as_default():   # the layer objects too (TF 2.21: [3.0, 2.0])
        tf.layers.Dense(1, kernel_initializer=tf.ones_initializer(),
                        activity_regularizer=tf.reduce_sum)(tf.ones([2, 3]))
        tf.layers.Conv2D(2, 2, kernel_initializer=tf.constant_initializer(0.5),
                         activity_regularizer=lambda a: tf.reduce_mean(a ** 2))(
            tf.ones([2, 3, 3, 1]))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            losses = sess.run(tf.losses.get_regularization_losses())
    np.testing.assert_allclose(losses, [3.0, 2.0])


def test_channels_first_pooling_reads_ksize_and_strides_in_nchw_order():
    # tf.nn.max_pool(..., data_format="NCHW") took [1, 1, 2, 2] as NHWC's: a silently
    # wrong window.  TF 2.21's numbers (batch 1, channel 0)
    with tf.Graph().as_default():
        x = tf.constant(np.arange(2 * 2 * 4 * 5, dtype=np.float32).reshape(2, 2, 4, 5) % 7 - 3)
        mp = tf.nn.max_pool(x, [1, 1, 2, 2], [1, 1, 2, 1], "VALID", data_format="NCHW")
        ap = tf.nn.avg_pool(x, [1, 1, 3, 2], [1, 1, 1, 2], "SAME", data_format="NCHW")
        k = tf.constant(np.linspace(-1, 1, 24).reshape(2, 2, 2, 3).astype(np.float32))
        cv = tf.nn.conv2d(x, k, [1, 1, 2, 1], "SAME", data_format="NCHW")
        assert (mp.shape.as_list(), ap.shape.as_list(), cv.shape.as_list()) == (
            [2, 2, 2, 4], [2, 2, 4, 3], [2, 3, 2, 5])
        m, a, c = (v[1, 0] for v in tf.Session().run([mp, ap, cv]))
    np.testing.assert_allclose(m, [[3., 3., 3., 3.], [3., 0., 1., 2.]])
    np.testing.assert_allclose(a, [[1.5, 0., -2.], [0.5, 0.1667, -0.6667],
                                   [-0.3333, 0.5, -0.3333], [-0.75, -0.5, 1.]], atol=1e-4)
    np.testing.assert_allclose(c[0], [-4.3478, -1.6957, 6.1304, 6.6522, 3.2609], atol=1e-4)


def test_einsum_broadcasts_the_ellipsis_axes():
    # '...ij,...jk->...ik' with batch shapes (2, 1) and (3,) failed; TF 2.21's numbers
    with tf.Graph().as_default():
        a = tf.constant(np.linspace(-1, 1, 12).reshape(2, 1, 2, 3).astype(np.float32))
        b = tf.constant(np.linspace(0, 2, 18).reshape(3, 3, 2).astype(np.float32))
        e = tf.einsum('...ij,...jk->...ik', a, b)
        ga, gb = tf.gradients(tf.reduce_sum(e * e), [a, b])
        assert e.shape.as_list() == [2, 3, 2, 2]
        value, da, db = tf.Session().run([e, ga, gb])
    np.testing.assert_allclose(value[1, 2], [[1.4332, 1.5294], [4.1283, 4.4171]], atol=1e-4)
    np.testing.assert_allclose(da.ravel()[:4], [-31.625, -38.3139, -45.0028, -10.0182],
                               rtol=1e-5)
    np.testing.assert_allclose(db.ravel()[:4], [1.9757, 3.0258, 2.1001, 3.1502], atol=1e-4)


def test_transpose_takes_tf1s_conjugate_argument():
    with tf.Graph().as_default():
        t = tf.transpose(tf.constant([[1., 2.]]), conjugate=True)
        assert tf.Session().run(t).tolist() == [[1.0], [2.0]]   # TF 2.21


def test_tf_nest_walks_structures_as_tf():
    import collections
    Pair = collections.namedtuple("Pair", "c h")
    s = ({"b": 2, "a": 1}, [Pair(3, 4)])
    assert tf.nest.flatten(s) == [1, 2, 3, 4]   # TF 2.21: dicts by sorted key
    packed = tf.nest.pack_sequence_as(s, [10, 20, 30, 40])
    assert packed == ({"b": 20, "a": 10}, [Pair(30, 40)]) and list(packed[0]) == ["b", "a"]
    assert tf.nest.map_structure(lambda x, y: x + y, s, s) == ({"b": 4, "a": 2}, [Pair(6, 8)])
    assert tf.nest.is_nested([1]) and not tf.nest.is_nested(tf.constant(1.0))
    with pytest.raises(ValueError, match="same nested structure"):
        tf.nest.assert_same_structure([1, 2], [1])
    with tf.Graph().as_default():
        cell = tf.nn.rnn_cell.BasicLSTMCell(2)
        _, state = tf.nn.dynamic_rnn(cell, tf.ones([1, 2, 1]), dtype=tf.float32)
        assert [t.shape.as_list() for t in tf.nest.flatten(state)] == [[1, 2], [1, 2]]


def test_a_variable_shows_as_tf1_shows_it():
    # print(tf.trainable_variables()) in the tutorials (TF 2.21's text)
    with tf.Graph().as_default():
        v = tf.Variable([1., 2.], name="w")
        assert repr(tf.trainable_variables()) == \
            "[<tf.Variable 'w:0' shape=(2,) dtype=float32_ref>]"
        assert repr(tf.constant(3.0)) == "<tf.Tensor 'Const:0' shape=() dtype=float32>"
        assert bool(v)


def test_version_namespace_and_tables_initializer_alias():
    assert tf.version.VERSION == tf.__version__ == tf.VERSION
    with tf.Graph().as_default():
        tf.Session().run(tf.initializers.tables_initializer())   # no tables: runs, no-op


def test_optimizer_variables_are_sorted_by_name():
    # tf.variables_initializer(opt.variables()) and sess.run(opt.variables()): TF sorts
    # them by name (TF 2.21: b's m, b's v, the powers, then w's m and v)
    with tf.Graph().as_default():
        w = tf.Variable([1.0, -2.0], name="w")
        b = tf.Variable(0.5, name="b")
        opt = tf.train.AdamOptimizer(0.1)
        step = opt.minimize(tf.reduce_sum(w ** 2) + b ** 2)
        assert [v.name for v in opt.variables()] == [
            "b/Adam:0", "b/Adam_1:0", "beta1_power:0", "beta2_power:0", "w/Adam:0",
            "w/Adam_1:0"]
        with tf.Session() as sess:
            sess.run([w.initializer, b.initializer])
            sess.run(tf.variables_initializer(opt.variables()))
            for _ in range(2):
                sess.run(step)
            values = sess.run(opt.variables())
    np.testing.assert_allclose(values[:4], [0.17000005, 0.001638979, 0.7289999, 0.9970031],
                               rtol=1e-5)
    np.testing.assert_allclose(values[4], [0.36000007, -0.74000013], rtol=1e-5)
    np.testing.assert_allclose(values[5], [0.007235907, 0.030423608], rtol=1e-5)


def test_merge_all_keeps_the_summaries_of_a_scope():
    # tf.summary.merge_all(scope=) merged every summary; TF 2.21 keeps disc's alone
    with tf.Graph().as_default():
        with tf.name_scope("gen"):
            tf.summary.scalar("loss", tf.constant(1.))
        with tf.variable_scope("disc"):
            tf.summary.scalar("loss", tf.constant(2.))
        tf.summary.histogram("h", tf.constant([1., 2.]))
        merged = tf.summary.merge_all(scope="disc")
        summary = tf.Summary.FromString(tf.Session().run(merged))
        assert [v.tag for v in summary.value] == ["disc/loss"]
        assert tf.summary.merge_all(scope="nothing") is None
        assert [op.name for op in tf.get_collection(tf.GraphKeys.SUMMARIES, scope="gen")] \
            == ["gen/loss"]


def test_convert_to_tensor_takes_the_preferred_dtype_when_it_can():
    # TF 2.21: the hint is tried first; a Python float does not become an integer
    cases = [(1, tf.float32, "float32"), (1.5, tf.int32, "float32"),
             ([1, 2], tf.float64, "float64"), (np.array([1, 2]), tf.float32, "float32"),
             (True, tf.float32, "float32"), (3, tf.int64, "int64")]
    with tf.Graph().as_default():
        for value, hint, want in cases:
            assert tf.convert_to_tensor(value, preferred_dtype=hint).dtype == want
            assert tf.convert_to_tensor(value, dtype_hint=hint).dtype == want
        assert tf.convert_to_tensor(1.5).dtype == "float32"


def test_summary_family_prefixes_the_tag_as_tf():
    with tf.Graph().as_default():
        a = tf.summary.scalar("loss", tf.constant(1.), family="train")
        with tf.name_scope("outer"):
            b = tf.summary.histogram("w", tf.constant([1., 2.]), family="weights")
        c = tf.summary.scalar("loss", tf.constant(1.), family="train")
        summary = tf.Summary.FromString(tf.Session().run(tf.summary.merge([a, b, c])))
    # TF 2.21's tags
    assert [v.tag for v in summary.value] == ["train/train/loss", "weights/outer/weights/w",
                                              "train/train/loss_1"]
