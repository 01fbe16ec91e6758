"""tf.nn in TF1 programs (import changed only), against TF's documented numbers or
hand derivations (numpy oracles written next to each program)."""
import numpy as np
import pytest

from .tf1_programs import run_tf1


def _softmax(z):
    e = np.exp(z - z.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def test_softmax_cross_entropy_documented_values_and_gradients():
    ns = run_tf1("""
        import tensorflow as tf
        logits = tf.constant([[4.0, 2.0, 1.0], [0.0, 5.0, 1.0]])
        labels = tf.constant([[1.0, 0.0, 0.0], [0.0, 0.8, 0.2]])
        loss_v1 = tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits)
        loss_v2 = tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits)
        g_logits = tf.gradients(tf.reduce_sum(loss_v2), logits)
        g_labels_v1 = tf.gradients(loss_v1, labels)
        g_labels_v2 = tf.gradients(loss_v2, labels)
        with tf.Session() as sess:
            v1, v2, dz, dy2 = sess.run([loss_v1, loss_v2, g_logits[0], g_labels_v2[0]])
    """)
    np.testing.assert_allclose(ns["v1"], [0.16984604, 0.82474494], rtol=1e-6)  # TF's docs
    np.testing.assert_allclose(ns["v2"], ns["v1"])
    z = np.array([[4.0, 2.0, 1.0], [0.0, 5.0, 1.0]])
    y = np.array([[1.0, 0.0, 0.0], [0.0, 0.8, 0.2]])
    np.testing.assert_allclose(ns["dz"], _softmax(z) - y, atol=1e-6)
    np.testing.assert_allclose(ns["dy2"], -np.log(_softmax(z)), rtol=1e-5)
    assert ns["g_labels_v1"] == [None]          # TF1's function stops the labels' gradient
    assert ns["v1"].dtype == np.float32


def test_softmax_cross_entropy_v1_needs_named_arguments():
    with pytest.raises(ValueError, match="named arguments"):
        run_tf1("""
            import tensorflow as tf
            tf.nn.softmax_cross_entropy_with_logits([[1.0, 0.0]], [[0.0, 0.0]])
        """)


def test_sparse_softmax_cross_entropy_documented_values():
    ns = run_tf1("""
        import tensorflow as tf
        logits = tf.constant([[2., -5., .5, -.1], [0., 0., 1.9, 1.4], [-100., 100., -100., -100.]])
        labels = tf.constant([0, 3, 1])
        loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
        grad = tf.gradients(loss, [logits, labels])
        with tf.Session() as sess:
            value, dz = sess.run([loss, grad[0]])
    """)
    np.testing.assert_allclose(ns["value"], [0.29750752, 1.1448325, 0.0], atol=1e-6)
    z = np.array([[2., -5., .5, -.1], [0., 0., 1.9, 1.4], [-100., 100., -100., -100.]])
    np.testing.assert_allclose(ns["dz"], _softmax(z) - np.eye(4)[[0, 3, 1]], atol=1e-6)
    assert ns["grad"][1] is None                # integer labels: no gradient


def test_sigmoid_cross_entropy_documented_values():
    ns = run_tf1("""
        import tensorflow as tf
        logits = tf.constant([1., -1., 0., 1., -1., 0., 0.])
        labels = tf.constant([0., 0., 0., 1., 1., 1., 0.5])
        loss = tf.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits)
        (dz,) = tf.gradients(loss, logits)
        with tf.Session() as sess:
            value, grad = sess.run([loss, dz])
    """)
    np.testing.assert_allclose(ns["value"], [1.3132616, 0.3132617, 0.6931472, 0.3132617,
                                             1.3132616, 0.6931472, 0.6931472], rtol=1e-6)
    z = np.array([1., -1., 0., 1., -1., 0., 0.])
    y = np.array([0., 0., 0., 1., 1., 1., 0.5])
    np.testing.assert_allclose(ns["grad"], 1 / (1 + np.exp(-z)) - y, atol=1e-6)


def test_softmax_regression_training_step():
    # the MNIST-for-beginners model on four examples: with W = b = 0 the loss is log 2
    # and one step moves W by -lr * x^T (softmax - onehot) / n, softmax = 1/2
    ns = run_tf1("""
        import numpy as np
        import tensorflow as tf
        x = tf.placeholder(tf.float32, [4, 3])
        y_ = tf.placeholder(tf.int32, [4])
        W = tf.Variable(tf.zeros([3, 2]))
        b = tf.Variable(tf.zeros([2]))
        y = tf.matmul(x, W) + b
        cross_entropy = tf.reduce_mean(
            tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y_, logits=y))
        train_step = tf.train.GradientDescentOptimizer(0.5).minimize(cross_entropy)
        correct = tf.equal(tf.argmax(y, 1), tf.cast(y_, tf.int64))
        accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))
        xs = np.array([[1., 0., 2.], [0., 1., 1.], [1., 1., 0.], [2., 0., 1.]], np.float32)
        ys = np.array([0, 1, 1, 0], np.int32)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            loss0 = sess.run(cross_entropy, feed_dict={x: xs, y_: ys})
            sess.run(train_step, feed_dict={x: xs, y_: ys})
            W1, acc = sess.run([W, accuracy], feed_dict={x: xs, y_: ys})
    """)
    xs, ys = ns["xs"], ns["ys"]
    assert ns["loss0"] == pytest.approx(np.log(2), rel=1e-6)
    expected = -0.5 * xs.T @ (0.5 - np.eye(2)[ys]) / 4
    np.testing.assert_allclose(ns["W1"], expected, rtol=1e-6)
    logits = xs @ expected + (-0.5 * (0.5 - np.eye(2)[ys]).mean(0))
    assert ns["acc"] == pytest.approx(np.mean(logits.argmax(1) == ys))


def test_activations_documented_values_and_kinks():
    ns = run_tf1("""
        import tensorflow as tf
        x = tf.constant([-2., 0., 1., 6., 7.])
        ys = [tf.nn.relu6(x), tf.nn.leaky_relu(x), tf.nn.elu(x), tf.nn.selu(x),
              tf.nn.softsign(x)]
        grads = [tf.gradients(y, x)[0] for y in ys]
        with tf.Session() as sess:
            values, slopes = sess.run([ys, grads])
    """)
    x = np.array([-2., 0., 1., 6., 7.])
    relu6, leaky, elu, selu, softsign = ns["values"]
    np.testing.assert_allclose(relu6, [0, 0, 1, 6, 6])
    np.testing.assert_allclose(leaky, [-0.4, 0, 1, 6, 7], rtol=1e-6)
    np.testing.assert_allclose(elu, np.where(x > 0, x, np.expm1(x)), rtol=1e-6)
    alpha, scale = 1.6732632423543772, 1.0507009873554805
    np.testing.assert_allclose(selu, scale * np.where(x > 0, x, alpha * np.expm1(x)), rtol=1e-6)
    np.testing.assert_allclose(softsign, x / (1 + np.abs(x)), rtol=1e-6)
    d_relu6, d_leaky, d_elu, d_selu, d_softsign = ns["slopes"]
    np.testing.assert_allclose(d_relu6, [0, 0, 1, 0, 0])     # 0 at both kinks (TF)
    np.testing.assert_allclose(d_leaky, [0.2, 0.2, 1, 1, 1], rtol=1e-6)  # alpha at 0
    np.testing.assert_allclose(d_elu, [np.exp(-2), 1, 1, 1, 1], rtol=1e-6)
    np.testing.assert_allclose(d_selu, scale * np.array([alpha * np.exp(-2), 1, 1, 1, 1]),
                               rtol=1e-6)
    np.testing.assert_allclose(d_softsign, 1 / (1 + np.abs(x)) ** 2, rtol=1e-6)


def test_l2_loss_l2_normalize_bias_add_log_softmax():
    ns = run_tf1("""
        import tensorflow as tf
        v = tf.constant([3.0, 4.0])
        m = tf.constant([[1.0, 2.0], [3.0, 4.0]])
        out = [tf.nn.l2_loss(v), tf.nn.l2_normalize(v, 0), tf.nn.bias_add(m, [10.0, 20.0]),
               tf.nn.log_softmax([[0.0, 0.0]])]
        grads = tf.gradients(tf.nn.l2_loss(v), v)
        with tf.Session() as sess:
            loss, unit, biased, logp = sess.run(out)
            (dv,) = sess.run(grads)
    """)
    assert ns["loss"] == 12.5
    np.testing.assert_allclose(ns["unit"], [0.6, 0.8], rtol=1e-6)
    np.testing.assert_allclose(ns["biased"], [[11, 22], [13, 24]])
    np.testing.assert_allclose(ns["logp"], np.log([[0.5, 0.5]]), rtol=1e-6)
    np.testing.assert_allclose(ns["dv"], [3.0, 4.0])


def _correlate_nhwc(x, f, stride, pads):
    """A direct loop oracle: TF's conv2d is a cross-correlation."""
    (top, bottom), (left, right) = pads
    xp = np.pad(x, [(0, 0), (top, bottom), (left, right), (0, 0)])
    kh, kw, _, co = f.shape
    oh = (xp.shape[1] - kh) // stride + 1
    ow = (xp.shape[2] - kw) // stride + 1
    out = np.zeros((x.shape[0], oh, ow, co))
    for i in range(oh):
        for j in range(ow):
            win = xp[:, i * stride:i * stride + kh, j * stride:j * stride + kw, :]
            out[:, i, j, :] = np.einsum("nijc,ijco->no", win, f)
    return out


def test_conv2d_same_and_valid_with_gradients():
    ns = run_tf1("""
        import numpy as np
        import tensorflow as tf
        rng = np.random.RandomState(0)
        image = rng.randn(2, 5, 5, 3).astype(np.float32)
        kernel = rng.randn(3, 3, 3, 4).astype(np.float32)
        x = tf.placeholder(tf.float32, [2, 5, 5, 3])
        W = tf.Variable(kernel)
        same = tf.nn.conv2d(x, W, strides=[1, 2, 2, 1], padding="SAME")
        valid = tf.nn.conv2d(x, W, strides=[1, 1, 1, 1], padding="VALID")
        (dW,) = tf.gradients(tf.reduce_sum(valid), W)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            s, v, g = sess.run([same, valid, dW], feed_dict={x: image})
    """)
    image, kernel = ns["image"].astype(float), ns["kernel"].astype(float)
    # SAME, stride 2 on 5: output 3, total padding (3-1)*2 + 3 - 5 = 2, one on each side
    np.testing.assert_allclose(ns["s"], _correlate_nhwc(image, kernel, 2, [(1, 1), (1, 1)]),
                               rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(ns["v"], _correlate_nhwc(image, kernel, 1, [(0, 0), (0, 0)]),
                               rtol=1e-4, atol=1e-5)
    # d sum(valid) / dW[i, j, c, o] = sum of the input under tap (i, j) of channel c
    expected = np.stack([image[:, i:i + 3, j:j + 3, :].sum((0, 1, 2))
                         for i in range(3) for j in range(3)]).reshape(3, 3, 3, 1)
    np.testing.assert_allclose(ns["g"], np.broadcast_to(expected, (3, 3, 3, 4)), rtol=1e-4)


def test_pooling_documented_values_and_max_pool_gradient_to_first_max():
    ns = run_tf1("""
        import tensorflow as tf
        x = tf.constant([[1., 2., 3.], [4., 5., 6.], [7., 8., 9.]])
        x = tf.reshape(x, [1, 3, 3, 1])
        mx = tf.nn.max_pool(x, ksize=[1, 2, 2, 1], strides=[1, 1, 1, 1], padding="VALID")
        av = tf.nn.avg_pool(x, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME")
        flat = tf.reshape(tf.constant([1., 1., 0., 1.]), [1, 2, 2, 1])
        tie = tf.nn.max_pool(flat, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
        (d_tie,) = tf.gradients(tie, flat)
        with tf.Session() as sess:
            m, a, dt = sess.run([mx, av, d_tie])
    """)
    np.testing.assert_allclose(ns["m"].reshape(2, 2), [[5., 6.], [8., 9.]])
    # SAME averages over the real elements only: 3 = (1+2+4+5)/4, 4.5 = (3+6)/2, ...
    np.testing.assert_allclose(ns["a"].reshape(2, 2), [[3., 4.5], [7.5, 9.]])
    np.testing.assert_allclose(ns["dt"].reshape(4), [1., 0., 0., 0.])  # the first max only


def test_conv1d_matches_a_direct_sum():
    ns = run_tf1("""
        import tensorflow as tf
        signal = tf.reshape(tf.constant([1., 2., 3., 4., 5.]), [1, 5, 1])
        taps = tf.reshape(tf.constant([1., 0., -1.]), [3, 1, 1])
        y = tf.nn.conv1d(signal, taps, stride=1, padding="VALID")
        with tf.Session() as sess:
            out = sess.run(y)
    """)
    np.testing.assert_allclose(ns["out"].ravel(), [1 - 3, 2 - 4, 3 - 5])


def test_dropout_keeps_scaled_entries_and_is_seeded():
    ns = run_tf1("""
        import tensorflow as tf
        x = tf.ones([1000])
        a = tf.nn.dropout(x, keep_prob=0.5, seed=3)
        b = tf.nn.dropout(x, keep_prob=0.5, seed=3)
        c = tf.nn.dropout(x, rate=0.0)
        (g,) = tf.gradients(tf.reduce_sum(a), x)
        with tf.Session() as sess:
            va, vb, vc, vg = sess.run([a, b, c, g])
    """)
    assert set(np.unique(ns["va"])) <= {0.0, 2.0}
    assert 400 < np.count_nonzero(ns["va"]) < 600
    np.testing.assert_array_equal(ns["va"], ns["vb"])
    np.testing.assert_array_equal(ns["vc"], 1.0)
    np.testing.assert_array_equal(ns["vg"], ns["va"])   # the gradient is the mask / keep


def test_embedding_lookup_with_fed_ids_and_scatter_add_gradient():
    ns = run_tf1("""
        import numpy as np
        import tensorflow as tf
        embeddings = tf.Variable(np.arange(12.0, dtype=np.float32).reshape(4, 3))
        ids = tf.placeholder(tf.int32, shape=[3])
        looked = tf.nn.embedding_lookup(embeddings, ids)
        (d,) = tf.gradients(tf.reduce_sum(looked), embeddings)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            rows, grad, dense = sess.run([looked, d, tf.convert_to_tensor(d)],
                                         feed_dict={ids: [3, 0, 3]})
    """)
    table = np.arange(12.0).reshape(4, 3)
    np.testing.assert_allclose(ns["rows"], table[[3, 0, 3]])
    # TF's IndexedSlices: a row per id; densified, id 3 (looked up twice) counts twice
    assert (ns["grad"].values.tolist(), ns["grad"].indices.tolist()) == ([[1] * 3] * 3,
                                                                          [3, 0, 3])
    np.testing.assert_allclose(ns["dense"], [[1] * 3, [0] * 3, [0] * 3, [2] * 3])


def test_conv2d_transpose_is_the_adjoint_of_conv2d():
    # <conv2d(x, W), y> == <x, conv2d_transpose(y, W, x.shape)>: TF defines the transpose
    # as conv2d's gradient with respect to its input
    ns = run_tf1("""
        import numpy as np
        import tensorflow as tf
        rng = np.random.RandomState(1)
        x_val = rng.randn(2, 7, 6, 3)
        y_val = rng.randn(2, 4, 3, 5)
        W = tf.constant(rng.randn(3, 3, 3, 5))
        x = tf.constant(x_val)
        y = tf.constant(y_val)
        conv = tf.nn.conv2d(x, W, strides=[1, 2, 2, 1], padding="SAME")
        deconv = tf.nn.conv2d_transpose(y, W, output_shape=[2, 7, 6, 3],
                                        strides=[1, 2, 2, 1], padding="SAME")
        (dy,) = tf.gradients(tf.reduce_sum(deconv * x), y)
        with tf.Session() as sess:
            c, d, g = sess.run([conv, deconv, dy])
    """)
    assert ns["d"].shape == (2, 7, 6, 3) and ns["c"].shape == (2, 4, 3, 5)
    assert np.sum(ns["c"] * ns["y_val"]) == pytest.approx(np.sum(ns["x_val"] * ns["d"]),
                                                          rel=1e-10)
    np.testing.assert_allclose(ns["g"], ns["c"], rtol=1e-10)   # and back: its gradient is conv2d


def test_conv2d_transpose_to_a_batch_size_read_at_run_time():
    # the autoencoder's decoder: output_shape=[tf.shape(x)[0], ...], as a list or a stack;
    # values and gradients equal those of the same layer over a known batch
    ns = run_tf1("""
        import numpy as np
        import tensorflow as tf
        rng = np.random.RandomState(2)
        W = tf.constant(rng.randn(3, 3, 8, 4).astype(np.float32))
        x = tf.placeholder(tf.float32, [None, 2, 2, 4])
        known = tf.placeholder(tf.float32, [3, 2, 2, 4])
        outs = [tf.nn.conv2d_transpose(x, W, output_shape=[tf.shape(x)[0], 4, 4, 8],
                                       strides=[1, 2, 2, 1], padding="SAME"),
                tf.nn.conv2d_transpose(x, W, tf.stack([tf.shape(x)[0], 4, 4, 8]),
                                       [1, 2, 2, 1], "SAME"),
                tf.nn.conv2d_transpose(known, W, [3, 4, 4, 8], [1, 2, 2, 1], "SAME"),
                tf.nn.conv2d_transpose(x, W, [3, 4, 4, 8], [1, 2, 2, 1], "SAME")]
        grads = [tf.gradients(tf.reduce_sum(o ** 2), [W, i])
                 for o, i in zip(outs, [x, x, known, x])]
        value = rng.randn(3, 2, 2, 4).astype(np.float32)
        with tf.Session() as sess:
            got = sess.run([outs, grads], {x: value, known: value})
    """)
    (a, b, ref, c), (ga, gb, gref, gc) = ns["got"]
    assert ns["outs"][0].shape.as_list() == [None, 4, 4, 8] and ref.shape == (3, 4, 4, 8)
    for u in (a, b, c):
        np.testing.assert_array_equal(u, ref)
    for g in (ga, gb, gc):
        for u, v in zip(g, gref):
            np.testing.assert_allclose(u, v, rtol=1e-6)


def test_mnist_for_beginners_with_tf1_keyword_names():
    # the TF1 tutorial's lines: softmax of logits, reduction_indices=[1], one train step;
    # with W = b = 0 the model predicts 1/2 and the step is -lr x^T (1/2 - y) / n
    ns = run_tf1("""
        import numpy as np
        import tensorflow as tf
        x = tf.placeholder(tf.float32, [4, 3])
        W = tf.Variable(tf.zeros([3, 2]))
        b = tf.Variable(tf.zeros([2]))
        y = tf.nn.softmax(tf.matmul(x, W) + b)
        y_ = tf.placeholder(tf.float32, [4, 2])
        cross_entropy = tf.reduce_mean(-tf.reduce_sum(y_ * tf.log(y), reduction_indices=[1]))
        train_step = tf.train.GradientDescentOptimizer(0.5).minimize(cross_entropy)
        xs = np.array([[1., 0., 2.], [0., 1., 1.], [1., 1., 0.], [2., 0., 1.]], np.float32)
        ys = np.eye(2, dtype=np.float32)[[0, 1, 1, 0]]
        sess = tf.InteractiveSession()
        tf.global_variables_initializer().run()
        sess.run(train_step, feed_dict={x: xs, y_: ys})
        W1, kept = sess.run([W, tf.reduce_mean(x, 0, keep_dims=True)], feed_dict={x: xs})
        sess.close()   # (an open InteractiveSession stays the default one: later tests)
    """)
    xs, ys = ns["xs"], ns["ys"]
    np.testing.assert_allclose(ns["W1"], -0.5 * xs.T @ (0.5 - ys) / 4, rtol=1e-6)
    assert ns["kept"].shape == (1, 3)


def test_dropout_with_a_fed_keep_prob_as_the_tf1_tutorials_write_it():
    ns = run_tf1("""
        import numpy as np
        import tensorflow as tf
        x = tf.placeholder(tf.float32, [40, 25])
        keep_prob = tf.placeholder(tf.float32)
        fed = tf.nn.dropout(x, keep_prob, seed=7)
        fixed = tf.nn.dropout(x, keep_prob=0.5, seed=7)
        (g,) = tf.gradients(tf.reduce_sum(fed * x), x)
        data = np.random.RandomState(0).rand(40, 25).astype(np.float32) + 0.5
        with tf.Session() as sess:
            train, grad, same = sess.run([fed, g, fixed], {x: data, keep_prob: 0.5})
            test = sess.run(fed, {x: data, keep_prob: 1.0})
    """)
    data, train = ns["data"], ns["train"]
    np.testing.assert_allclose(ns["test"], data)                # keep 1.0: unchanged
    kept = train != 0
    assert 0.35 < kept.mean() < 0.65
    np.testing.assert_allclose(train[kept], 2 * data[kept])     # kept entries scaled
    np.testing.assert_array_equal(train, ns["same"])           # the mask of keep_prob=0.5
    np.testing.assert_allclose(ns["grad"], 2 * train, rtol=1e-6)  # d/dx (x * mask x)


def test_dropout_over_a_batch_of_unknown_size_keeps_one_mask_per_row():
    # the deep-MNIST tutorial's tf.nn.dropout(h_fc1, keep_prob) with h_fc1: [None, 1024]
    ns = run_tf1("""
        import numpy as np
        import tensorflow as tf
        known = tf.placeholder(tf.float32, [40, 25])
        unknown = tf.placeholder(tf.float32, [None, 25])
        keep_prob = tf.placeholder(tf.float32)
        a = tf.nn.dropout(known, keep_prob, seed=7)
        b = tf.nn.dropout(unknown, keep_prob, seed=7)
        c = tf.nn.dropout(unknown, 0.5, seed=7)
        (g,) = tf.gradients(tf.reduce_sum(b * unknown), unknown)
        data = np.random.RandomState(0).rand(40, 25).astype(np.float32) + 0.5
        with tf.Session() as sess:
            full, rows40, fixed, grad = sess.run([a, b, c, g], {known: data, unknown: data,
                                                                keep_prob: 0.5})
            again = sess.run(b, {unknown: data, keep_prob: 0.5})
            test = sess.run(b, {unknown: data, keep_prob: 1.0})
        with tf.Session() as sess:
            rows10 = sess.run(b, {unknown: data[:10], keep_prob: 0.5})
    """)
    full, data = ns["full"], ns["data"]
    assert 0.35 < np.mean(full != 0) < 0.65
    np.testing.assert_array_equal(ns["rows40"], full)        # the numbers a known size draws
    np.testing.assert_array_equal(ns["fixed"], full)         # a fixed 0.5 keeps the same
    assert 0.35 < np.mean((ns["again"] != 0) != (full != 0)) < 0.65   # a new mask each run
    np.testing.assert_array_equal(ns["rows10"], full[:10])   # a row's numbers, whatever the size
    np.testing.assert_allclose(ns["test"], data)
    np.testing.assert_allclose(ns["grad"], 2 * full, rtol=1e-6)


def test_deep_mnist_style_training_with_dropout_and_accuracy():
    # written as TF1's "Deep MNIST for experts" writes it (smaller, synthetic data)
    ns = run_tf1("""
        import numpy as np
        import tensorflow as tf
        rng = np.random.RandomState(0)
        images = rng.randn(300, 20).astype(np.float32)
        labels = np.eye(3, dtype=np.float32)[images[:, :3].argmax(1)]
        x = tf.placeholder(tf.float32, shape=[None, 20])
        y_ = tf.placeholder(tf.float32, shape=[None, 3])
        W_fc1 = tf.Variable(tf.truncated_normal([20, 32], stddev=0.1))
        b_fc1 = tf.Variable(tf.constant(0.1, shape=[32]))
        h_fc1 = tf.nn.relu(tf.matmul(x, W_fc1) + b_fc1)
        keep_prob = tf.placeholder(tf.float32)
        h_fc1_drop = tf.nn.dropout(h_fc1, keep_prob)
        W_fc2 = tf.Variable(tf.truncated_normal([32, 3], stddev=0.1))
        b_fc2 = tf.Variable(tf.constant(0.1, shape=[3]))
        y_conv = tf.matmul(h_fc1_drop, W_fc2) + b_fc2
        cross_entropy = tf.reduce_mean(
            tf.nn.softmax_cross_entropy_with_logits(labels=y_, logits=y_conv))
        train_step = tf.train.AdamOptimizer(1e-2).minimize(cross_entropy)
        correct_prediction = tf.equal(tf.argmax(y_conv, 1), tf.argmax(y_, 1))
        accuracy = tf.reduce_mean(tf.cast(correct_prediction, tf.float32))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            before = accuracy.eval(feed_dict={x: images, y_: labels, keep_prob: 1.0})
            for i in range(150):
                batch = rng.randint(0, 300, 50)
                train_step.run(feed_dict={x: images[batch], y_: labels[batch], keep_prob: 0.5})
            after = accuracy.eval(feed_dict={x: images, y_: labels, keep_prob: 1.0})
    """)
    assert ns["before"] < 0.6 and ns["after"] > 0.9


def test_dense_after_dropout_with_placeholders_of_any_shape():
    # keep_prob = tf.placeholder(tf.float32) and training = tf.placeholder(tf.bool) have
    # any shape in TF1; the dropout output keeps its input's shape, so dense can follow
    ns = run_tf1("""
        import numpy as np
        import tensorflow as tf
        tf.set_random_seed(1)
        x = tf.placeholder(tf.float32, [None, 6])
        keep_prob = tf.placeholder(tf.float32)
        training = tf.placeholder(tf.bool)
        h = tf.layers.dense(x, 8, activation=tf.nn.relu)
        h_drop = tf.nn.dropout(h, keep_prob)
        logits = tf.layers.dense(h_drop, 3)
        out = tf.layers.dropout(logits, rate=0.5, training=training)
        shapes = (h_drop.shape.as_list(), out.shape.as_list(), keep_prob.shape.as_list())
        (dk,) = tf.gradients(tf.reduce_sum(h_drop), keep_prob)
        data = np.random.RandomState(0).rand(5, 6).astype(np.float32)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            plain, dropped, hv, dkv, same = sess.run(   # (one run: one dropout mask)
                [h, h_drop, logits, dk, out], {x: data, keep_prob: 0.5, training: False})
            other = sess.run(out, {x: data, keep_prob: 0.5, training: True})
            try:
                sess.run(h_drop, {x: data, keep_prob: [0.5, 0.5]})
            except ValueError as exc:
                message = str(exc)
    """)
    assert ns["shapes"] == ([None, 8], [None, 3], [])
    plain, dropped = ns["plain"], ns["dropped"]
    kept = dropped != 0
    np.testing.assert_allclose(dropped[kept], 2 * plain[kept], rtol=1e-6)
    np.testing.assert_allclose(ns["dkv"], -np.sum(dropped) / 0.5, rtol=1e-5)  # d(m x/k)/dk
    np.testing.assert_array_equal(ns["same"], ns["hv"])        # training False: unchanged
    assert 0 < np.mean(ns["other"] == 0) < 1
    assert "shape ()" in ns["message"]


def test_convolution_and_pooling_over_a_batch_of_unknown_size():
    # the deep-MNIST CNN's x_image = tf.reshape(x, [-1, 28, 28, 1]) with x: [None, 784]
    ns = run_tf1("""
        import numpy as np
        import tensorflow as tf
        rng = np.random.RandomState(0)
        x = tf.placeholder(tf.float32, [None, 64])
        x_image = tf.reshape(x, [-1, 8, 8, 1])
        W = tf.constant(rng.randn(3, 3, 1, 2).astype(np.float32))
        h = tf.nn.relu(tf.nn.conv2d(x_image, W, strides=[1, 1, 1, 1], padding='SAME'))
        pooled = tf.nn.max_pool(h, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding='SAME')
        mean = tf.nn.avg_pool(h, ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1], padding='VALID')
        loss = tf.reduce_sum(pooled) + tf.reduce_sum(mean)
        (dx,) = tf.gradients(loss, x)
        shapes = (h.shape.as_list(), pooled.shape.as_list(), mean.shape.as_list())
        known = tf.placeholder(tf.float32, [3, 64])
        k_image = tf.reshape(known, [-1, 8, 8, 1])
        kh = tf.nn.relu(tf.nn.conv2d(k_image, W, strides=[1, 1, 1, 1], padding='SAME'))
        k_loss = tf.reduce_sum(tf.nn.max_pool(kh, [1, 2, 2, 1], [1, 2, 2, 1], 'SAME')) + \\
            tf.reduce_sum(tf.nn.avg_pool(kh, [1, 3, 3, 1], [1, 2, 2, 1], 'VALID'))
        (k_dx,) = tf.gradients(k_loss, known)
        data = rng.rand(5, 64).astype(np.float32)
        with tf.Session() as sess:
            out5 = sess.run([loss, dx], {x: data})
            out3 = sess.run([loss, dx], {x: data[:3]})
            ref3 = sess.run([k_loss, k_dx], {known: data[:3]})
    """)
    assert ns["shapes"] == ([None, 8, 8, 2], [None, 4, 4, 2], [None, 3, 3, 2])
    np.testing.assert_allclose(ns["out3"][0], ns["ref3"][0], rtol=1e-6)
    np.testing.assert_allclose(ns["out3"][1], ns["ref3"][1], rtol=1e-6)
    assert ns["out5"][1].shape == (5, 64)
    np.testing.assert_allclose(ns["out5"][1][:3], ns["ref3"][1], rtol=1e-6)


def test_sizes_read_at_run_time_are_taken_back_as_shapes():
    # batch_size = tf.shape(x)[0] in reshape, zeros and arithmetic; the VAE's
    # eps = tf.random_normal(tf.shape(z_mean))
    ns = run_tf1("""
        import numpy as np
        import tensorflow as tf
        tf.set_random_seed(3)
        x = tf.placeholder(tf.float32, [None, 6])
        batch_size = tf.shape(x)[0]
        grid = tf.reshape(x, [batch_size, 2, -1])
        state = tf.zeros([batch_size, 4])
        mean_row = tf.reduce_sum(x, 0) / tf.cast(batch_size, tf.float32)
        z_mean = tf.layers.dense(x, 2)
        eps = tf.random_normal(tf.shape(z_mean), 0, 1, dtype=tf.float32)
        z = z_mean + eps
        (dz,) = tf.gradients(tf.reduce_sum(z * z), z_mean)
        shapes = [t.shape.as_list() for t in (grid, state, eps)]
        data = np.arange(30, dtype=np.float32).reshape(5, 6)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            n, shape, g, s, m = sess.run([batch_size, tf.shape(x), grid, state, mean_row],
                                         {x: data})
            e5, zm, dz5 = sess.run([eps, z_mean, dz], {x: data})
            e2 = sess.run(eps, {x: data[:2]})
        with tf.Session() as sess:   # runs 0, 1 and 2 again, the third on two rows
            sess.run(tf.global_variables_initializer())
            sess.run(batch_size, {x: data})
            third2 = sess.run(eps, {x: data[:2]})
    """)
    assert ns["shapes"] == [[None, 2, 3], [None, 4], [None, 2]]
    assert ns["n"] == 5 and ns["shape"].tolist() == [5, 6]
    np.testing.assert_array_equal(ns["g"], ns["data"].reshape(5, 2, 3))
    np.testing.assert_array_equal(ns["s"], np.zeros((5, 4)))
    np.testing.assert_allclose(ns["m"], ns["data"].mean(0))
    e5 = ns["e5"]
    assert e5.dtype == np.float32 and 0.3 < e5.std() < 2.0
    assert not np.array_equal(ns["e2"], e5[:2])              # new numbers at each run
    np.testing.assert_array_equal(ns["third2"], e5[:2])      # a row's, whatever the batch
    np.testing.assert_allclose(ns["dz5"], 2 * (ns["zm"] + e5), rtol=1e-5)
