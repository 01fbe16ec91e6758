"""tf.contrib.slim's other layers, batch_norm's modes, slim.losses, slim.learning.train and
arg_scope, against TF 2.21 running the tf-slim package (see test_compat_slim.py)."""
import numpy as np
import pytest

import symgrad.compat.v1 as tf

from .tf1_programs import run_tf1

LAYERS = """
import numpy as np
import tensorflow as tf
slim = tf.contrib.slim
rs = np.random.RandomState(1)
X = rs.randn(2, 4, 4, 2).astype(np.float32)
S = rs.randn(2, 5, 3).astype(np.float32)
x = tf.constant(X)
init = slim.xavier_initializer(seed=3)
with slim.arg_scope([slim.conv2d_transpose, slim.separable_conv2d, slim.conv1d],
                    weights_initializer=init, biases_initializer=tf.constant_initializer(0.1)):
    t1 = slim.conv2d_transpose(x, 3, 3, stride=2)
    t2 = slim.conv2d_transpose(x, 2, [3, 2], stride=2, padding="VALID", activation_fn=None)
    s1 = slim.separable_conv2d(x, 3, [3, 3], depth_multiplier=2)
    s2 = slim.separable_conv2d(x, None, [2, 2], depth_multiplier=2, stride=2,
                               activation_fn=tf.nn.tanh)
    c1 = slim.conv1d(tf.constant(S), 4, 3, rate=2)
oh = slim.one_hot_encoding(tf.constant([0, 2, 1]), 3)
ap = slim.avg_pool2d(x, 3, stride=1, padding="SAME")
y = (tf.reduce_sum(t1 * t1) + tf.reduce_sum(tf.sin(t2)) + tf.reduce_sum(s1 ** 2) +
     tf.reduce_sum(s2) + tf.reduce_sum(c1 ** 2))
g = tf.gradients(y, tf.trainable_variables())
names = [(v.name, v.get_shape().as_list()) for v in tf.global_variables()]
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    outs = sess.run([t1, t2, s1, s2, c1])
    ohv, apv, yv = sess.run([oh, ap, y])
    gv = [a.ravel()[:3] for a in sess.run(g)]
"""


def test_transpose_separable_conv1d_one_hot_and_pooling_layers():
    ns = run_tf1(LAYERS)
    # TF 2.21 (tf_slim): variables, output shapes, first values and sums, gradients
    assert ns["names"] == [
        ('Conv2d_transpose/weights:0', [3, 3, 3, 2]), ('Conv2d_transpose/biases:0', [3]),
        ('Conv2d_transpose_1/weights:0', [3, 2, 2, 2]), ('Conv2d_transpose_1/biases:0', [2]),
        ('SeparableConv2d/depthwise_weights:0', [3, 3, 2, 2]),
        ('SeparableConv2d/pointwise_weights:0', [1, 1, 4, 3]),
        ('SeparableConv2d/biases:0', [3]),
        ('SeparableConv2d_1/depthwise_weights:0', [2, 2, 2, 2]),
        ('SeparableConv2d_1/biases:0', [4]), ('Conv/weights:0', [3, 3, 4]),
        ('Conv/biases:0', [4])]
    outs = ns["outs"]
    assert [list(o.shape) for o in outs] == [[2, 8, 8, 3], [2, 9, 8, 2], [2, 4, 4, 3],
                                             [2, 2, 2, 4], [2, 5, 4]]
    firsts = [[0.028405, 0.85043, 0.167725, 0.0, 0.006889],
              [0.001964, 1.127568, 0.192737, -0.082885, 0.309908], [0.0] * 5,
              [-0.774767, 0.534755, 0.696064, 0.964895, -0.578717],
              [0.579123, 0.0, 0.0, 0.0, 0.0]]
    sums = [70.72257, 27.23262, 26.59515, 0.84852, 10.98633]
    for o, first, total in zip(outs, firsts, sums):
        np.testing.assert_allclose(o.ravel()[:5], first, atol=2e-6)
        assert o.sum() == pytest.approx(total, abs=1e-4)
    assert ns["ohv"].tolist() == [[1, 0, 0], [0, 0, 1], [0, 1, 0]]
    assert ns["ohv"].dtype == np.float32
    np.testing.assert_allclose(ns["apv"].ravel()[:6], [0.71933, -0.998559, 0.570052,
                                                       -1.113305, 0.725918, -1.279967],
                               atol=2e-6)
    assert ns["yv"] == pytest.approx(87.5353, abs=1e-3)
    tf_grads = [[4.097964, -3.209092, 21.0371], [50.254311, 52.143929, 39.046898],
                [4.005697, -3.022157, -0.225127], [133.399231, 128.983307],
                [-2.536613, -1.429686, 15.099505], [1.164024, -1.223143, 7.203358],
                [17.651978, 19.896053, 15.642268], [-2.226347, -1.75522, -2.117787],
                [6.310816, 7.345385, 6.026401], [0.337442, -0.787206, 4.616388],
                [4.657711, 5.883753, 6.771494]]
    for got, want in zip(ns["gv"], tf_grads):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


BATCH_NORM = """
import numpy as np
import tensorflow as tf
slim = tf.contrib.slim
rs = np.random.RandomState(4)
A = rs.randn(5, 3).astype(np.float32) * 2 + 1
B = rs.randn(2, 3, 3, 2).astype(np.float32)
a = tf.placeholder(tf.float32, [None, 3]); b = tf.constant(B)
flag = tf.placeholder(tf.bool, [])
o1 = slim.batch_norm(a, decay=0.5, scope="bn1")
o2 = slim.batch_norm(b, decay=0.5, scale=True, updates_collections=None, scope="bn2",
                     param_initializers={"gamma": tf.constant_initializer(2.0)})
o3 = slim.batch_norm(a, decay=0.5, fused=False, center=False, scale=True, is_training=flag,
                     updates_collections=[tf.GraphKeys.UPDATE_OPS], scope="bn3",
                     activation_fn=tf.nn.relu)
o4 = slim.batch_norm(a, is_training=False, scope="bn4",
                     param_regularizers={"beta": slim.l2_regularizer(1.0)})
d = slim.dropout(b, 0.7, seed=5)
upd = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
names = [v.name for v in tf.global_variables()]
n_reg = len(tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES))
g = tf.gradients(tf.reduce_sum(o1 ** 3) + tf.reduce_sum(o3 ** 2), a)[0]
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    v1 = sess.run(o1, {a: A})[:2]
    v2 = sess.run(o2).ravel()[:6]
    v3 = sess.run(o3, {a: A, flag: True})[:2], sess.run(o3, {a: A, flag: False})[:2]
    v4 = sess.run(o4, {a: A})[:2]
    gv = sess.run(g, {a: A, flag: True})[:2]
    sess.run(upd, {a: A, flag: True}); sess.run(upd, {a: A, flag: False})
    moving = {s: sess.run([s + "/moving_mean:0", s + "/moving_variance:0"])
              for s in ("bn1", "bn2", "bn3")}
    dv = sess.run(d)
"""


def test_batch_norm_modes_and_moving_averages():
    ns = run_tf1(BATCH_NORM)
    # TF 2.21 (tf_slim): rank 2 (fused: n/(n-1) moving variance), rank 4 updated in place
    # (updates_collections=None, three runs of o2), fused=False (biased), a training
    # tensor, inference, and a seeded dropout
    assert ns["names"] == [
        'bn1/beta:0', 'bn1/moving_mean:0', 'bn1/moving_variance:0', 'bn2/beta:0',
        'bn2/gamma:0', 'bn2/moving_mean:0', 'bn2/moving_variance:0', 'bn3/gamma:0',
        'bn3/moving_mean:0', 'bn3/moving_variance:0', 'bn4/beta:0', 'bn4/moving_mean:0',
        'bn4/moving_variance:0']
    assert len(ns["upd"]) == 4 and ns["n_reg"] == 1

    def close(got, want):
        np.testing.assert_allclose(np.ravel(got), want, atol=2e-5)
    close(ns["v1"], [0.25782, 0.4499, -0.41877, 1.20113, -1.92818, -1.24795])
    close(ns["v2"], [0.39375, -1.36111, 2.7929, 1.04648, -0.21781, -2.04182])
    close(ns["v3"][0], [0.25782, 0.4499, 0.0, 1.20113, 0.0, 0.0])
    close(ns["v3"][1], [1.10057, 1.9989, 0.0, 2.386, 0.16332, 0.0])
    close(ns["v4"], [1.10057, 1.9989, -0.99132, 2.386, 0.16332, -2.16807])
    close(ns["gv"], [-2.32757, -1.02275, -1.80678, 2.12881, 1.41153, 2.27329])
    m = ns["moving"]
    close(m["bn1"], [0.56221, 1.23934, -0.29791, 1.99164, 0.80818, 2.13911])
    close(m["bn2"], [0.07736, 0.07257, 1.02572, 1.14593])
    close(m["bn3"], [0.37481, 0.82623, -0.19861, 1.42887, 0.79769, 1.50752])
    close(ns["dv"].ravel()[:8], [0.50142, -0.86698, 0.0, 1.03335, 0.06591, -1.40427,
                                 0.07776, 0.22842])
    assert int((ns["dv"] == 0).sum()) == 10


LOSSES = """
import numpy as np
import tensorflow as tf
slim = tf.contrib.slim
rs = np.random.RandomState(2)
L = tf.constant(rs.randn(4, 3).astype(np.float32))
Y = tf.constant(np.eye(3, dtype=np.float32)[[0, 2, 1, 1]])
P = tf.constant(rs.rand(4, 3).astype(np.float32))
T = tf.constant((rs.rand(4, 3) > 0.5).astype(np.float32))
w4 = tf.constant([1.0, 0.0, 2.0, 0.5])
out = [
    slim.losses.softmax_cross_entropy(L, Y),
    slim.losses.softmax_cross_entropy(L, Y, weights=w4, label_smoothing=0.1),
    slim.losses.sparse_softmax_cross_entropy(L, tf.constant([[0], [2], [1], [1]])),
    slim.losses.sparse_softmax_cross_entropy(L, tf.constant([0, 2, 1, 1]), weights=2.0),
    slim.losses.sigmoid_cross_entropy(L, T, weights=tf.constant([[1.0], [2.0], [0.0], [1.0]]),
                                      label_smoothing=0.2),
    slim.losses.mean_squared_error(P, T, weights=0.0),
    slim.losses.mean_squared_error(P, T, weights=tf.constant(rs.rand(4, 3).astype(np.float32))),
    slim.losses.absolute_difference(P, T, weights=w4),
    slim.losses.log_loss(P, T),
    slim.losses.cosine_distance(tf.nn.l2_normalize(P, 1), tf.nn.l2_normalize(T + 0.1, 1),
                                axis=1),
]
h = slim.losses.hinge_loss(L, T)
tot = slim.losses.get_total_loss()
n_losses = len(slim.losses.get_losses())
g = tf.gradients(tot, L)[0]
with tf.Session() as sess:
    values, hv, tv, gv = sess.run([out, h, tot, g])
"""


def test_contrib_losses_take_logits_first_and_weigh_as_contrib():
    ns = run_tf1(LOSSES)
    # TF 2.21 (tf_slim.losses)
    np.testing.assert_allclose(ns["values"], [1.890448, 1.995581, 1.890448, 3.780896,
                                              1.060738, 0.0, 0.195438, 0.446023, 0.734721,
                                              0.121182], atol=2e-6)
    np.testing.assert_allclose(ns["hv"].ravel(), [
        0.583242, 1.056267, 0.0, 2.640271, 0.0, 0.158253, 1.502881, 0.0, 2.057952, 0.090992,
        0.448546, 3.292208], atol=2e-6)
    assert ns["tv"] == pytest.approx(12.11548, abs=2e-5) and ns["n_losses"] == 10
    np.testing.assert_allclose(ns["gv"].ravel(), [
        -0.767848, 0.674569, 0.080931, 1.06009, 0.038396, -0.880398, 1.18197, -1.412582,
        0.230611, 0.054303, -1.0168, 1.043598], atol=3e-6)


TRAIN_LOOP = """
import os
import numpy as np
import tensorflow as tf
slim = tf.contrib.slim
rs = np.random.RandomState(5)
X = rs.randn(8, 3).astype(np.float32)
Y = (X @ np.array([1.0, -2.0, 0.5], np.float32) + 0.3).reshape(-1, 1)
def build():
    pred = slim.fully_connected(tf.constant(X), 1, activation_fn=None,
                                weights_initializer=tf.zeros_initializer(), scope="lin")
    slim.losses.mean_squared_error(pred, tf.constant(Y))
    total = slim.losses.get_total_loss()
    return slim.learning.create_train_op(total, tf.train.GradientDescentOptimizer(0.1))
with tf.Graph().as_default():
    final = slim.learning.train(build(), logdir, number_of_steps=5, log_every_n_steps=0)
with tf.Graph().as_default():   # a second run continues from the checkpoint
    final2 = slim.learning.train(build(), logdir, number_of_steps=8, log_every_n_steps=0)
with tf.Graph().as_default():
    build()
    w = slim.get_unique_variable("lin/weights")
    restore = slim.assign_from_checkpoint_fn(tf.train.latest_checkpoint(logdir),
                                             slim.get_model_variables())
    with tf.Session() as sess:
        restore(sess)
        wv = sess.run(w).ravel()
"""


def test_learning_train_runs_steps_saves_and_resumes(tmp_path):
    ns = run_tf1(TRAIN_LOOP, logdir=str(tmp_path))
    # TF 2.21 (tf_slim.learning.train): the last step's loss (before its update) after 5
    # steps, then after steps 6..8 resumed from the checkpoint, and the saved weights
    assert ns["final"] == pytest.approx(1.04309, abs=1e-5)
    assert ns["final2"] == pytest.approx(0.47464, abs=1e-5)
    np.testing.assert_allclose(ns["wv"], [0.55813, -1.33252, 0.57587], atol=1e-5)


def test_arg_scope_nests_overrides_and_reenters():
    slim = tf.contrib.slim
    with tf.Graph().as_default():
        x = tf.ones([1, 4, 4, 2])
        with slim.arg_scope([slim.conv2d, slim.max_pool2d], padding="VALID") as outer:
            with slim.arg_scope([slim.conv2d], padding="SAME", activation_fn=None):
                same = slim.conv2d(x, 3, 3)
                valid = slim.conv2d(x, 3, 3, padding="VALID")
                pooled = slim.max_pool2d(x, 3, stride=1)        # the outer scope's VALID
            inner_gone = slim.conv2d(x, 3, 3)
        with slim.arg_scope(outer):
            again = slim.conv2d(x, 3, 3)
        plain = slim.conv2d(x, 3, 3)
        assert [t.shape.as_list() for t in (same, valid, pooled, inner_gone, again, plain)] == \
            [[1, 4, 4, 3], [1, 2, 2, 3], [1, 2, 2, 2], [1, 2, 2, 3], [1, 2, 2, 3], [1, 4, 4, 3]]
        assert "Relu" not in same.name and same.name.endswith("BiasAdd:0")

        @slim.add_arg_scope
        def scaled(t, factor=1.0):
            return t * factor
        with slim.arg_scope([scaled], factor=3.0):
            assert tf.Session().run(scaled(tf.constant(2.0))) == 6.0
        assert slim.has_arg_scope(scaled) and not slim.has_arg_scope(tf.nn.relu)
        assert "factor" in slim.arg_scoped_arguments(scaled)
        with pytest.raises(ValueError, match="add_arg_scope"):
            with slim.arg_scope([tf.nn.relu], alpha=1):
                pass
        with pytest.raises(TypeError, match="list or tuple"):
            with slim.arg_scope(slim.conv2d, padding="SAME"):
                pass


def test_reuse_shares_variables_and_bad_calls_say_what_to_do():
    slim = tf.contrib.slim
    with tf.Graph().as_default():
        x = tf.ones([2, 3])
        a = slim.fully_connected(x, 4, scope="fc")
        b = slim.fully_connected(x, 4, scope="fc", reuse=True)
        assert [v.name for v in tf.global_variables()] == ["fc/weights:0", "fc/biases:0"]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            np.testing.assert_array_equal(*sess.run([a, b]))
        with pytest.raises(ValueError, match="already exists"):
            slim.fully_connected(x, 4, scope="fc")
        with pytest.raises(ValueError, match="num_outputs must be an int"):
            slim.fully_connected(x, 4.0)
        with pytest.raises(ValueError, match="rank 4"):
            slim.conv2d(x, 4, 3)
        with pytest.raises(ValueError, match="channels-last"):
            slim.conv2d(tf.ones([1, 2, 4, 4]), 4, 3, data_format="NCHW")
        with pytest.raises(ValueError, match="renorm is not supported"):
            slim.batch_norm(x, renorm=True)
    with pytest.raises(AttributeError, match="layer_norm"):
        getattr(slim, "conv2d_in_plane")
    with pytest.raises(AttributeError, match="model zoo"):
        getattr(slim, "nets")
    with pytest.raises(AttributeError, match="tf.losses"):
        getattr(tf.contrib.losses, "mean_pairwise_squared_error")


OPTIMIZE = """
import numpy as np
import tensorflow as tf
layers, framework = tf.contrib.layers, tf.contrib.framework
rs = np.random.RandomState(6)
X = rs.randn(6, 2, 4).astype(np.float32)
T = rs.randn(6, 2, 3).astype(np.float32)
x = tf.constant(X)
gs = framework.get_or_create_global_step()
h = layers.layer_norm(x, activation_fn=tf.nn.tanh)
h2 = layers.layer_norm(x, begin_norm_axis=-1, center=False, scope="ln2")
y = layers.fully_connected(h + h2, 3, activation_fn=None,
                           weights_initializer=tf.glorot_uniform_initializer(seed=2))
loss = tf.reduce_mean(tf.square(y - T))
ops = {}
decay = lambda lr, s: tf.train.exponential_decay(lr, s, 1, 0.5)
for name, kw in [("SGD", dict(clip_gradients=0.5)), ("Adam", dict(learning_rate_decay_fn=decay)),
                 ("Momentum", dict(gradient_multipliers={"fully_connected/weights:0": 2.0})),
                 ("RMSProp", {}), ("Adagrad", {}), ("Ftrl", {})]:
    ops[name] = layers.optimize_loss(loss, gs, 0.05, name, name="opt_" + name, **kw)
rates = [v.name for v in tf.global_variables() if "learning_rate" in v.name]
n_summaries = len(tf.get_collection(tf.GraphKeys.SUMMARIES))
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    hv, h2v = sess.run(h)[0], sess.run(h2)[1]
    losses = {name: [sess.run(op) for _ in range(3)] for name, op in ops.items()}
    step, w0 = sess.run(gs), sess.run("fully_connected/weights:0")[0]
"""


def test_layer_norm_and_optimize_loss_with_each_optimizer_name():
    ns = run_tf1(OPTIMIZE)
    # TF 2.21 (tf_slim.layers.layer_norm and optimize_loss): three steps of each optimizer
    # in turn on one model (each step's loss is the one before it)
    assert ns["rates"] == [f"opt_{n}/learning_rate:0" for n in
                           ("SGD", "Adam", "Momentum", "RMSProp", "Adagrad", "Ftrl")]
    assert ns["n_summaries"] == 14
    np.testing.assert_allclose(ns["hv"], [[-0.02817, 0.68682, 0.39234, -0.47706],
                                          [-0.95141, 0.75989, 0.82577, -0.77523]], atol=2e-5)
    np.testing.assert_allclose(ns["h2v"], [[0.46261, -1.34802, 1.33064, -0.44523],
                                           [-1.07056, 1.64044, -0.30046, -0.26941]], atol=2e-5)
    tf_losses = {"SGD": [2.35385, 2.28429, 2.21685], "Adam": [2.15149, 2.09053, 2.06082],
                 "Momentum": [2.04617, 1.58018, 1.0977], "RMSProp": [0.89294, 0.86789, 0.84894],
                 "Adagrad": [0.83438, 0.81015, 0.79774], "Ftrl": [0.78977, 0.99203, 0.98808]}
    for name, want in tf_losses.items():
        np.testing.assert_allclose(ns["losses"][name], want, atol=2e-5, err_msg=name)
    assert ns["step"] == 18
    np.testing.assert_allclose(ns["w0"], [0.00778, 0.00244, 0.01245], atol=2e-5)


def test_bias_add_and_embed_sequence():
    slim = tf.contrib.slim
    with tf.Graph().as_default():
        x = tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3) - 2.5)
        y = slim.bias_add(x, activation_fn=tf.nn.relu, regularizer=slim.l1_regularizer(0.5),
                          initializer=tf.constant_initializer([1.0, -1.0, 0.5]))
        y2 = slim.bias_add(y, scope="b2")
        table = np.arange(12, dtype=np.float32).reshape(4, 3)
        ids = tf.constant([[3, 0], [1, 1]])
        e = tf.contrib.layers.embed_sequence(ids, 4, 3, initializer=tf.constant_initializer(table))
        e2 = tf.contrib.layers.embed_sequence(ids[:, :1], scope="EmbedSequence", reuse=True)
        # TF 2.21 (tf_slim.bias_add): names, the regularizer's name, values
        assert [v.name for v in slim.get_model_variables()] == [
            'BiasAdd/biases:0', 'b2/biases:0', 'EmbedSequence/embeddings:0']
        reg = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
        assert [t.name for t in reg] == ['BiasAdd/biases/Regularizer/l1_regularizer:0']
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run(y2).tolist() == [[0.0, 0.0, 0.0], [1.5, 0.5, 3.0]]
            assert sess.run(reg[0]) == pytest.approx(1.25)
            np.testing.assert_array_equal(sess.run(e), table[[[3, 0], [1, 1]]])
            np.testing.assert_array_equal(sess.run(e2), table[[[3], [1]]])
        with pytest.raises(ValueError, match="vocab_size and embed_dim"):
            tf.contrib.layers.embed_sequence(ids, 4)


def test_fine_tuning_restores_all_but_the_new_layer(tmp_path):
    slim = tf.contrib.slim
    with tf.Graph().as_default():
        x = tf.ones([1, 2])
        slim.fully_connected(slim.fully_connected(x, 3, scope="body"), 2, scope="logits")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            body = sess.run("body/weights:0")
            path = tf.train.Saver().save(sess, str(tmp_path / "model.ckpt"))
    with tf.Graph().as_default():   # the same body, a new head of another size
        x = tf.ones([1, 2])
        slim.fully_connected(slim.fully_connected(x, 3, scope="body"), 5, scope="head")
        everything = slim.get_variables_to_restore()
        with pytest.raises(tf.errors.NotFoundError, match="head"):   # (TF's restore error)
            with tf.Session() as sess:
                slim.assign_from_checkpoint_fn(path, everything)(sess)
        init_fn = slim.assign_from_checkpoint_fn(path, everything, ignore_missing_vars=True)
        set_bias = slim.assign_from_values_fn({"head/biases": np.arange(5.0)})
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            init_fn(sess)
            set_bias(sess)
            np.testing.assert_array_equal(sess.run("body/weights:0"), body)
            assert sess.run("head/biases:0").tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
        with pytest.raises(ValueError, match="wasn't found"):
            slim.assign_from_values_fn({"nothing/here": 1.0})


def test_trainable_variables_collections_and_regularizers_once():
    slim = tf.contrib.slim
    with tf.Graph().as_default():
        x = tf.ones([2, 4, 4, 3])
        reg = slim.l2_regularizer(0.5)
        slim.conv2d(x, 2, 1, trainable=False, scope="frozen",
                    variables_collections={"weights": ["w_only"]})
        slim.conv2d(x, 2, 1, scope="tuned", variables_collections=["mine"],
                    weights_regularizer=reg, biases_regularizer=reg)
        for _ in range(2):   # a tower built twice shares, and regularizes once
            with tf.variable_scope("tower", reuse=tf.AUTO_REUSE):
                slim.fully_connected(tf.ones([2, 3]), 2, weights_regularizer=reg)
        names = lambda key: [v.name for v in tf.get_collection(key)]
        assert names(tf.GraphKeys.TRAINABLE_VARIABLES) == [
            "tuned/weights:0", "tuned/biases:0", "tower/fully_connected/weights:0",
            "tower/fully_connected/biases:0"]
        assert names(tf.GraphKeys.MODEL_VARIABLES)[:2] == ["frozen/weights:0",
                                                           "frozen/biases:0"]
        assert names("w_only") == ["frozen/weights:0"]
        assert names("mine") == ["tuned/weights:0", "tuned/biases:0"]
        assert names(tf.GraphKeys.REGULARIZATION_LOSSES) == [
            "tuned/kernel/Regularizer/l2_regularizer:0",
            "tuned/bias/Regularizer/l2_regularizer:0",
            "tower/fully_connected/kernel/Regularizer/l2_regularizer:0"]
        # TF 2.21 (tf_slim) for all of the above, and for a reuse without a scope:
        with pytest.raises(ValueError, match="reuse=True cannot be used without a name"):
            slim.fully_connected(tf.ones([2, 3]), 2, reuse=True)


EVALUATE = """
import os
import numpy as np
import tensorflow as tf
slim = tf.contrib.slim
rs = np.random.RandomState(12)
X = rs.randn(10, 3).astype(np.float32); Y = (X[:, 0] > 0).astype(np.int64)
def model():
    ds = tf.data.Dataset.from_tensor_slices((X, Y)).batch(5)
    xb, yb = tf.data.make_one_shot_iterator(ds).get_next()
    logits = slim.fully_connected(xb, 2, activation_fn=None, scope="m",
                                  weights_initializer=tf.glorot_uniform_initializer(seed=3))
    return logits, yb
with tf.Graph().as_default():
    logits, yb = model()
    slim.losses.sparse_softmax_cross_entropy(logits, yb)
    gs = tf.train.get_or_create_global_step()
    op = slim.learning.create_train_op(slim.losses.get_total_loss(),
                                       tf.train.GradientDescentOptimizer(0.5))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(2):
            sess.run(op)
        path = tf.train.Saver().save(sess, os.path.join(logdir, "model.ckpt"), global_step=gs)
with tf.Graph().as_default():
    logits, yb = model()
    tf.train.get_or_create_global_step()
    pred = tf.argmax(logits, 1)
    names_to_values, names_to_updates = slim.metrics.aggregate_metric_map({
        "acc": slim.metrics.streaming_accuracy(pred, yb),
        "mse": slim.metrics.streaming_mean_squared_error(tf.nn.softmax(logits)[:, 1],
                                                         tf.cast(yb, tf.float32)),
        "rec": slim.metrics.streaming_recall(pred, yb)})
    for name, value in names_to_values.items():
        tf.summary.scalar(name, value)
    values = slim.evaluation.evaluate_once("", path, logdir, num_evals=2,
                                           eval_op=list(names_to_updates.values()),
                                           final_op=names_to_values)
    looped = slim.evaluation.evaluation_loop("", logdir, logdir, num_evals=1,
                                             eval_op=list(names_to_updates.values()),
                                             final_op=names_to_values["acc"],
                                             max_number_of_evaluations=1)
"""


def test_streaming_metrics_and_evaluate_once_on_a_checkpoint(tmp_path):
    ns = run_tf1(EVALUATE, logdir=str(tmp_path))
    # TF 2.21 (tf_slim.evaluation.evaluate_once with tf_slim.metrics): after 2 SGD steps,
    # the metrics over both batches of the checkpointed model; evaluation_loop's one
    # evaluation of one batch
    values = ns["values"]
    assert sorted(values) == ["acc", "mse", "rec"]
    assert values["acc"] == pytest.approx(0.6) and values["rec"] == pytest.approx(0.6)
    assert values["mse"] == pytest.approx(0.17457, abs=1e-5)
    assert ns["looped"] == pytest.approx(0.8)   # (the first batch alone, a new session)
    assert any(p.name.startswith("events.out.tfevents") for p in tmp_path.iterdir())


def test_apply_regularization_with_summed_regularizers():
    layers = tf.contrib.layers
    with tf.Graph().as_default():
        w1 = tf.Variable([[1.0, -2.0], [3.0, 0.5]], name="w1")
        w2 = tf.Variable([0.5, -1.5], name="w2")
        tf.add_to_collection(tf.GraphKeys.WEIGHTS, w1)
        tf.add_to_collection(tf.GraphKeys.WEIGHTS, w2)
        r1 = layers.apply_regularization(layers.l1_l2_regularizer(0.1, 0.2))
        r2 = layers.apply_regularization(layers.sum_regularizer(
            [layers.l2_regularizer(1.0), layers.l1_regularizer(0.5)]), [w2])
        assert tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES) == [r1, r2]
        g = tf.gradients(r1 + r2, [w1, w2])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            # TF 2.21 (tf_slim): the penalties and their gradients
            np.testing.assert_allclose(sess.run([r1, r2]), [2.525, 2.25], rtol=1e-6)
            gv = sess.run(g)
        np.testing.assert_allclose(gv[0], [[0.3, -0.5], [0.7, 0.2]], rtol=1e-6)
        np.testing.assert_allclose(gv[1], [1.2, -2.4], rtol=1e-6)
        with pytest.raises(ValueError, match="no weights to regularize"):
            with tf.Graph().as_default():
                layers.apply_regularization(layers.l2_regularizer(1.0))


def test_loss_names_and_get_losses_by_scope():
    slim = tf.contrib.slim
    with tf.Graph().as_default():
        L = tf.constant(np.ones((2, 3), np.float32))
        with tf.name_scope("tower_0"):
            a = slim.losses.softmax_cross_entropy(L, L)
        b = slim.losses.mean_squared_error(L, L, scope="mse")
        c = slim.losses.compute_weighted_loss(L)
        d = slim.losses.sparse_softmax_cross_entropy(L, tf.constant([0, 1]))
        # TF 2.21 (tf_slim.losses)
        assert [t.name for t in (a, b, c, d)] == [
            'tower_0/softmax_cross_entropy_loss/value:0', 'mse/value:0', 'weighted_loss/value:0',
            'sparse_softmax_cross_entropy_loss/value:0']
        assert slim.losses.get_losses("tower_0") == [a]
        assert slim.losses.get_total_loss().name == "total_loss:0"


def test_create_train_op_summarizes_gradients():
    slim = tf.contrib.slim
    with tf.Graph().as_default():
        w = tf.Variable([3.0, 4.0], name="w")
        tf.Variable(1.0, name="unused")
        op = slim.learning.create_train_op(tf.reduce_sum(w * w),
                                           tf.train.GradientDescentOptimizer(0.1),
                                           summarize_gradients=True)
        summaries = tf.get_collection(tf.GraphKeys.SUMMARIES)
        assert len(summaries) == 2   # w's histogram and norm; "unused" has no gradient
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run(op) == pytest.approx(25.0)
            merged = sess.run(tf.summary.merge_all())
            assert merged is not None
            np.testing.assert_allclose(sess.run(w), [2.4, 3.2], rtol=1e-6)


def test_arguments_symgrad_cannot_honour_are_refused_by_name(tmp_path):
    slim = tf.contrib.slim
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="custom_getter is not supported"):
            slim.model_variable("w", [2], custom_getter=lambda getter, *a, **k: None)
        with pytest.raises(ValueError, match="sync_optimizer"):
            slim.learning.train(tf.constant(1.0), None, sync_optimizer=object())
        with pytest.raises(ValueError, match="hooks are not supported"):
            slim.evaluation.evaluate_once("", str(tmp_path), None, hooks=[object()])
        with pytest.raises(ValueError, match="gradient_noise_scale"):
            tf.contrib.layers.optimize_loss(tf.constant(1.0), None, 0.1, "SGD",
                                            gradient_noise_scale=1.0)


def test_volume_layers_conv3d_and_3d_pools():
    slim = tf.contrib.slim
    with tf.Graph().as_default():
        x = tf.constant(np.random.RandomState(2).randn(2, 5, 4, 4, 2).astype(np.float32))
        h = slim.conv3d(x, 3, [2, 3, 3], stride=[1, 2, 1],
                        weights_initializer=slim.xavier_initializer(seed=4))
        h2 = slim.conv3d(x, 2, 2, rate=2, padding="VALID", activation_fn=None,
                         weights_initializer=slim.xavier_initializer(seed=5))
        p = slim.max_pool3d(h, [2, 2, 2], stride=1, padding="SAME")
        a = slim.avg_pool3d(h, 2)
        g = tf.gradients(tf.reduce_sum(p * p) + tf.reduce_sum(a) + tf.reduce_sum(h2 ** 2),
                         tf.trainable_variables())
        # TF 2.21 (tf_slim): names, shapes, sums of absolute values of outputs and gradients
        assert [v.name for v in tf.trainable_variables()] == [
            'Conv/weights:0', 'Conv/biases:0', 'Conv_1/weights:0', 'Conv_1/biases:0']
        assert [t.shape.as_list() for t in (h, h2, p, a)] == [
            [2, 5, 2, 4, 3], [2, 3, 2, 2, 2], [2, 5, 2, 4, 3], [2, 2, 1, 2, 3]]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            outs, grads = sess.run([h, h2, p, a]), sess.run(g)
        np.testing.assert_allclose([np.abs(v).sum() for v in outs],
                                   [67.2613, 36.1253, 187.8379, 6.9734], rtol=1e-5)
        np.testing.assert_allclose([np.abs(v).sum() for v in grads],
                                   [3216.2456, 386.1758, 345.4075, 10.1061], rtol=1e-5)


def test_model_analyzer_prints_the_variables_as_tf_slim(capsys):
    slim = tf.contrib.slim
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 8, 8, 1])
        slim.fully_connected(slim.flatten(slim.conv2d(x, 8, [3, 3])), 10)
        sizes = slim.model_analyzer.analyze_vars(tf.model_variables(), print_info=True)
    assert sizes == (5210, 20840)
    # TF 2.21 (tf_slim.model_analyzer) prints
    assert capsys.readouterr().out.splitlines() == [
        "---------", "Variables: name (type shape) [size]", "---------",
        "Conv/weights:0 (float32_ref 3x3x1x8) [72, bytes: 288]",
        "Conv/biases:0 (float32_ref 8) [8, bytes: 32]",
        "fully_connected/weights:0 (float32_ref 512x10) [5120, bytes: 20480]",
        "fully_connected/biases:0 (float32_ref 10) [10, bytes: 40]",
        "Total size of variables: 5210", "Total bytes of variables: 20840"]
