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
        with tf.Session():
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


def test_gather_nd_of_whole_rows_gives_indexed_slices_that_momentum_applies_sparsely():
    # TF's gradient of gather_nd with indices [n, 1] is IndexedSlices, so Momentum moves
    # only the rows a step touched; a dense gradient kept the other rows moving
    with tf.Graph().as_default():
        emb = tf.Variable(np.arange(8, dtype=np.float32).reshape(4, 2))
        idx = tf.placeholder(tf.int32, [None, 1])
        loss = tf.reduce_sum(tf.square(tf.gather_nd(emb, idx)))
        assert isinstance(tf.gradients(loss, emb)[0], tf.IndexedSlices)
        step = tf.train.MomentumOptimizer(0.1, 0.9).minimize(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for ids in ([[0], [2]], [[1]], [[1]]):
                sess.run(step, {idx: ids})
            value = sess.run(emb)
    np.testing.assert_allclose(value, [[0., 0.8], [0.92, 1.38], [3.2, 4.], [6., 7.]],
                               rtol=1e-6)   # TF 2.21
