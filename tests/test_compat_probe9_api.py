"""The ninth differential probe of TF1 programs against TensorFlow 2.21 (compat.v1, v2
behaviour disabled), continued: arguments that were accepted and ignored (custom getters,
activity regularizers, channels-first windows, summary scopes and families, preferred
dtypes), and the API names the tutorials and migration guides print (tf.nest,
tf.version, Optimizer.variables(), a variable's repr).  The numbers are TF 2.21's."""
import numpy as np
import pytest

import symgrad.compat.v1 as tf


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
