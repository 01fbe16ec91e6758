"""tf.layers beyond dense: a small convolutional network as TF's tutorials build it,
against numpy (cross-correlation with SAME padding, 2x2 max pooling)."""
import numpy as np
import pytest

from .tf1_programs import run_tf1

CNN = """
import numpy as np
import tensorflow as tf
x = tf.placeholder(tf.float32, [2, 6, 6, 1])
training = tf.placeholder_with_default(False, shape=[])
h = tf.layers.conv2d(x, filters=3, kernel_size=3, padding="same", activation=tf.nn.relu)
p = tf.layers.max_pooling2d(h, pool_size=2, strides=2)
f = tf.layers.flatten(p)
d = tf.layers.dropout(f, rate=0.5, training=training, seed=1)
logits = tf.layers.dense(d, 2)
names = [v.name for v in tf.trainable_variables()]
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    k, b = sess.run(["conv2d/kernel:0", "conv2d/bias:0"])
    hv, pv, fv, dv = sess.run([h, p, f, d], {x: data})
    dropped = sess.run(d, {x: data, training: True})
"""


def test_small_cnn_matches_numpy():
    data = np.random.default_rng(3).normal(size=(2, 6, 6, 1)).astype(np.float32)
    out = run_tf1(CNN, data=data)
    assert out["names"] == ["conv2d/kernel:0", "conv2d/bias:0", "dense/kernel:0",
                            "dense/bias:0"]
    k = out["k"]
    assert k.shape == (3, 3, 1, 3) and np.abs(k).max() <= np.sqrt(6 / (9 + 27))
    padded = np.pad(data, [(0, 0), (1, 1), (1, 1), (0, 0)])
    conv = np.zeros((2, 6, 6, 3))
    for i in range(6):
        for j in range(6):
            conv[:, i, j, :] = np.tensordot(padded[:, i:i + 3, j:j + 3, :], k, axes=3)
    h = np.maximum(conv + out["b"], 0)
    np.testing.assert_allclose(out["hv"], h, rtol=1e-5, atol=1e-6)
    pooled = h.reshape(2, 3, 2, 3, 2, 3).max(axis=(2, 4))
    np.testing.assert_allclose(out["pv"], pooled, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out["fv"], pooled.reshape(2, 27), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(out["dv"], out["fv"])          # training=False: unchanged
    kept = out["dropped"] != 0
    np.testing.assert_allclose(out["dropped"][kept], 2 * out["fv"][kept], rtol=1e-6)


def test_batch_normalization_with_update_ops_as_tf_documents_it():
    # TF's docs: run the UPDATE_OPS with the train op (control_dependencies); training
    # is a placeholder.  Oracle: numpy moments and the moving-average update
    ns = run_tf1("""
        import numpy as np
        import tensorflow as tf
        rng = np.random.RandomState(0)
        x = tf.placeholder(tf.float32, [None, 3])
        training = tf.placeholder(tf.bool)
        out = tf.layers.batch_normalization(x, momentum=0.9, training=training)
        loss = tf.reduce_sum(out * tf.constant([1.0, 2.0, 3.0]))
        update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
        with tf.control_dependencies(update_ops):
            train_op = tf.identity(loss)
        names = sorted(v.name for v in tf.global_variables())
        trainable = sorted(v.name for v in tf.trainable_variables())
        batches = [rng.randn(8, 3).astype(np.float32) * [1, 2, 3] + [0, 1, -1]
                   for _ in range(2)]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            train_out = sess.run(out, {x: batches[0], training: True})
            for b in batches:
                sess.run(train_op, {x: b, training: True})
            sess.run(train_op, {x: batches[0], training: False})   # leaves them alone
            moving = sess.run(["batch_normalization/moving_mean:0",
                               "batch_normalization/moving_variance:0"])
            test_out = sess.run(out, {x: batches[1], training: False})
    """)
    assert ns["names"] == ["batch_normalization/beta:0", "batch_normalization/gamma:0",
                           "batch_normalization/moving_mean:0",
                           "batch_normalization/moving_variance:0"]
    assert ns["trainable"] == ["batch_normalization/beta:0", "batch_normalization/gamma:0"]
    b0, b1 = [np.asarray(b, np.float64) for b in ns["batches"]]
    np.testing.assert_allclose(ns["train_out"], (b0 - b0.mean(0)) / np.sqrt(b0.var(0) + 1e-3),
                               rtol=1e-4, atol=1e-5)
    mean, var = np.zeros(3), np.ones(3)
    for b in (b0, b1):
        mean, var = mean - (mean - b.mean(0)) * 0.1, var - (var - b.var(0)) * 0.1
    np.testing.assert_allclose(ns["moving"][0], mean, rtol=1e-5)
    np.testing.assert_allclose(ns["moving"][1], var, rtol=1e-5)
    np.testing.assert_allclose(ns["test_out"], (b1 - mean) / np.sqrt(var + 1e-3), rtol=1e-4,
                               atol=1e-5)


def test_conv2d_transpose_layer_is_nn_conv2d_transpose_plus_bias_with_tfs_sizes():
    ns = run_tf1("""
    import numpy as np
    import tensorflow as tf
    x = tf.placeholder(tf.float32, [None, 4, 4, 3])
    same = tf.layers.conv2d_transpose(x, 5, 3, strides=2, padding="same",
                                      bias_initializer=tf.constant_initializer(0.25))
    valid = tf.layers.conv2d_transpose(x, 2, (2, 3), strides=(1, 2), name="up")
    kernel = tf.get_default_graph().get_tensor_by_name("conv2d_transpose/kernel:0")
    ref = tf.nn.conv2d_transpose(x, kernel, [tf.shape(x)[0], 8, 8, 5], [1, 2, 2, 1],
                                 "SAME") + 0.25
    value = np.random.RandomState(3).randn(2, 4, 4, 3).astype(np.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        a, b, v = sess.run([same, ref, valid], {x: value})
    names = [w.name for w in tf.trainable_variables()]
    """)
    assert ns["same"].shape.as_list() == [None, 8, 8, 5]
    assert ns["valid"].shape.as_list() == [None, 5, 9, 2]   # (4-1)*1+2, (4-1)*2+3
    np.testing.assert_allclose(ns["a"], ns["b"], rtol=1e-6)
    assert ns["v"].shape == (2, 5, 9, 2)
    assert ns["names"] == ["conv2d_transpose/kernel:0", "conv2d_transpose/bias:0",
                           "up/kernel:0", "up/bias:0"]


def test_conv1d_layer_and_1d_pooling_over_an_unknown_batch():
    ns = run_tf1("""
    import numpy as np
    import tensorflow as tf
    x = tf.placeholder(tf.float32, [None, 7, 3])
    c = tf.layers.conv1d(x, 4, 3, padding="same", activation=tf.nn.relu)
    p = tf.layers.max_pooling1d(c, 2, 2)
    a = tf.layers.average_pooling1d(c, 3, 1, padding="valid")
    kernel = tf.get_default_graph().get_tensor_by_name("conv1d/kernel:0")
    ref = tf.nn.relu(tf.nn.conv1d(x, kernel, 1, "SAME"))
    value = np.random.RandomState(0).randn(2, 7, 3).astype(np.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        cv, rv, pv, av = sess.run([c, ref, p, a], {x: value})
    """)
    assert [t.shape.as_list() for t in (ns["c"], ns["p"], ns["a"])] == \
        [[None, 7, 4], [None, 3, 4], [None, 5, 4]]
    cv = ns["cv"]
    np.testing.assert_array_equal(cv, ns["rv"])
    np.testing.assert_array_equal(ns["pv"], np.maximum(cv[:, 0:6:2], cv[:, 1:7:2]))
    np.testing.assert_allclose(ns["av"], (cv[:, :5] + cv[:, 1:6] + cv[:, 2:7]) / 3, rtol=1e-6)


def test_contrib_layers_regularizers_initializers_and_fully_connected():
    ns = run_tf1("""
    import numpy as np
    import tensorflow as tf
    x = tf.placeholder(tf.float32, [None, 4])
    h = tf.layers.dense(x, 300, kernel_regularizer=tf.contrib.layers.l2_regularizer(0.1),
                        kernel_initializer=tf.contrib.layers.xavier_initializer(), name="h")
    out = tf.contrib.layers.fully_connected(h, 2, weights_regularizer=
                                            tf.contrib.layers.l1_regularizer(0.01))
    wide = tf.get_variable("wide", [400, 500],
                           initializer=tf.contrib.layers.variance_scaling_initializer())
    reg = tf.add_n(tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES))
    names = [v.name for v in tf.trainable_variables()]
    value = np.random.RandomState(0).randn(3, 4).astype(np.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        k, w, b, wv, r, o, hv = sess.run(["h/kernel:0", "fully_connected/weights:0",
                                          "fully_connected/biases:0", wide, reg, out, h],
                                         {x: value})
    """)
    k, w, b, wv = ns["k"], ns["w"], ns["b"], ns["wv"]
    assert ns["names"][2:] == ["fully_connected/weights:0", "fully_connected/biases:0",
                               "wide:0"]
    limit = np.sqrt(6 / (4 + 300))                      # xavier uniform: ±sqrt(6 / (in + out))
    assert np.abs(k).max() <= limit and np.abs(k).max() > 0.9 * limit
    # contrib's truncated normal has deviation sqrt(1.3 * 2 / 400) before truncation
    assert wv.std() == pytest.approx(np.sqrt(1.3 * 2 / 400) * 0.8796, rel=0.02)
    assert ns["r"] == pytest.approx(0.1 * (k ** 2).sum() / 2 + 0.01 * np.abs(w).sum(),
                                    rel=1e-5)
    np.testing.assert_allclose(ns["o"], np.maximum(ns["hv"] @ w + b, 0), rtol=1e-5,
                               atol=1e-6)


def test_dropout_of_a_shapeless_placeholder_and_layers_that_need_its_shape():
    import symgrad.compat.v1 as tf
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32)            # TF1: any shape
        keep = tf.placeholder(tf.float32)
        dropped = tf.nn.dropout(x, keep)
        (g,) = tf.gradients(tf.reduce_sum(dropped * 3.0), x)
        with tf.Session() as sess:
            d, gv = sess.run([dropped, g], {x: np.ones((40, 5)), keep: 0.5})
            whole = sess.run(dropped, {x: np.ones(7), keep: 1.0})
        assert set(np.unique(d)) == {0.0, 2.0} and 0.35 < np.mean(d == 0) < 0.65
        np.testing.assert_array_equal(gv, 3 * d)
        np.testing.assert_array_equal(whole, np.ones(7))
        for make in (lambda: tf.layers.dense(x, 3), lambda: tf.layers.conv2d(x, 3, 3)):
            with pytest.raises(ValueError, match="unknown shape"):
                make()


def test_dense_layer_objects_list_their_variables_as_tf():
    import symgrad.compat.v1 as tf
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3])
        names = []
        for trainable in (True, False):
            d = tf.layers.Dense(2, trainable=trainable)
            assert d.variables == d.weights == []
            d(x)
            names.append([[v.op.name for v in vs] for vs in (
                d.variables, d.weights, d.trainable_variables, d.trainable_weights,
                d.non_trainable_variables, d.non_trainable_weights)])
    # TF 2.21's lists
    k0, k1 = ["dense/kernel", "dense/bias"], ["dense_1/kernel", "dense_1/bias"]
    assert names == [[k0, k0, k0, k0, [], []], [k1, k1, [], [], k1, k1]]


def test_update_ops_are_named_in_their_scope_and_filtered_by_it():
    """DCGAN code runs only the generator's moving-average updates:
    tf.get_collection(UPDATE_OPS, scope="Generator") was empty (operations were named
    outside every scope).  Names as TF 2.21 gives them."""
    import symgrad.compat.v1 as tf
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3])
        with tf.variable_scope("G"):
            tf.layers.batch_normalization(tf.layers.dense(x, 2), training=True)
        with tf.variable_scope("D"):
            tf.layers.batch_normalization(x, training=True)
        with tf.name_scope("stuff"):
            counter = tf.Variable(0, name="counter")
            inc = tf.assign_add(counter, 1, name="inc")
            grp = tf.group(inc, name="grp")
        names = [op.name for op in tf.get_collection(tf.GraphKeys.UPDATE_OPS)]
        assert names == ["G/batch_normalization/AssignMovingAvg",
                         "G/batch_normalization/AssignMovingAvg_1",
                         "D/batch_normalization/AssignMovingAvg",
                         "D/batch_normalization/AssignMovingAvg_1"]
        assert len(tf.get_collection(tf.GraphKeys.UPDATE_OPS, scope="G")) == 2
        assert inc.op.name == "stuff/inc" and grp.name == "stuff/grp"
