"""Round-8 probe: tf.keras's training loop in a TF1 graph (compile, fit, evaluate,
*_on_batch, keras optimizers and callbacks), against the numbers graph-mode Keras
prints under TensorFlow 2.21 (tf_keras, compat.v1, v2 behaviour disabled)."""
import numpy as np
import pytest

import symgrad.compat.v1 as tf

keras = tf.keras


def _fixed(model, seed):
    r = np.random.RandomState(seed)
    model.set_weights([r.normal(size=w.shape).astype(np.float32) * 0.5
                       for w in model.get_weights()])


def _data():
    rng = np.random.RandomState(0)
    X = rng.randn(32, 4).astype(np.float32)
    y = (X @ np.array([1.0, -2.0, 0.5, 0.3]) + 0.1).reshape(-1, 1).astype(np.float32)
    return X, y, (X[:, 0] + X[:, 1] > 0).astype(np.int64)


def test_sequential_fit_evaluate_predict_and_batches():
    X, y, _ = _data()
    with tf.Graph().as_default():
        model = keras.Sequential([keras.layers.Dense(8, activation="relu", input_shape=(4,)),
                                  keras.layers.Dense(1)])
        _fixed(model, 0)
        model.compile(optimizer=keras.optimizers.SGD(lr=0.05), loss="mse", metrics=["mae"])
        hist = model.fit(X, y, batch_size=8, epochs=3, shuffle=False, verbose=0)
        assert sorted(hist.history) == ["loss", "mean_absolute_error"]
        np.testing.assert_allclose(hist.history["loss"], [10.011119, 3.464302, 1.981803],
                                   rtol=2e-5)
        np.testing.assert_allclose(hist.history["mean_absolute_error"],
                                   [2.53866, 1.502137, 1.060181], rtol=2e-5)
        np.testing.assert_allclose(model.evaluate(X, y, batch_size=32, verbose=0),
                                   [1.336158, 0.858461], rtol=2e-5)
        np.testing.assert_allclose(model.predict(X[:4])[:, 0],
                                   [3.113612, 3.80666, -0.83358, 0.889573], rtol=2e-5)
        # graph-mode Keras's metrics are stateful: evaluate's count into this mae
        np.testing.assert_allclose(model.train_on_batch(X[:8], y[:8]), [0.520332, 0.812088],
                                   rtol=2e-5)
        np.testing.assert_allclose(model.test_on_batch(X[:8], y[:8]), [0.370035, 0.551205],
                                   rtol=2e-5)
        assert model.metrics_names == ["loss", "mean_absolute_error"]


def test_classifiers_with_validation():
    X, _, yc = _data()
    with tf.Graph().as_default():
        m2 = keras.models.Sequential()
        m2.add(keras.layers.Dense(6, input_dim=4, activation="tanh"))
        m2.add(keras.layers.Dense(2, activation="softmax"))
        _fixed(m2, 1)
        m2.compile(loss="sparse_categorical_crossentropy",
                   optimizer=keras.optimizers.Adam(lr=0.01), metrics=["accuracy"])
        h2 = m2.fit(X, yc, batch_size=16, epochs=4, shuffle=False, verbose=0,
                    validation_split=0.25)
        np.testing.assert_allclose(h2.history["loss"], [0.943109, 0.864564, 0.792374, 0.72463],
                                   rtol=2e-5)
        np.testing.assert_allclose(h2.history["val_loss"],
                                   [0.505091, 0.468432, 0.435115, 0.404792], rtol=2e-5)
        assert h2.history["acc"] == pytest.approx([0.458333] * 4, rel=1e-5)
        assert h2.history["val_acc"] == [0.75] * 4
        m3 = keras.Sequential([keras.layers.Dense(3, activation="softmax", input_shape=(4,))])
        _fixed(m3, 2)
        m3.compile(loss="categorical_crossentropy", optimizer=keras.optimizers.RMSprop(lr=0.01),
                   metrics=["accuracy"])
        Y3 = keras.utils.to_categorical(np.arange(32) % 3, 3)
        h3 = m3.fit(X, Y3, batch_size=32, epochs=3, verbose=0, validation_data=(X[:8], Y3[:8]))
        np.testing.assert_allclose(h3.history["loss"], [1.459975, 1.399496, 1.358694], rtol=2e-5)
        np.testing.assert_allclose(h3.history["val_loss"], [1.248892, 1.218766, 1.196519],
                                   rtol=2e-5)
        np.testing.assert_allclose(h3.history["acc"], [0.40625, 0.4375, 0.4375])


@pytest.mark.parametrize("make, losses, kernel", [
    (lambda: keras.optimizers.Adagrad(0.1), [5.706527, 4.655221], [0.451264, -0.085177, 0.213952]),
    (lambda: keras.optimizers.RMSprop(0.01, momentum=0.5), [5.787257, 5.17897],
     [0.440365, 0.027277, 0.088778]),
    (lambda: keras.optimizers.RMSprop(0.01, centered=True), [5.788102, 5.380747],
     [0.472629, 0.085095, 0.021204]),
    (lambda: keras.optimizers.SGD(0.05, decay=0.1), [5.112975, 2.92446],
     [0.615618, -0.174755, 0.797978]),
    (lambda: keras.optimizers.Adam(0.05, decay=0.01), [5.748807, 4.860556],
     [0.442946, -0.065142, 0.174426]),
    (lambda: "rmsprop", [5.828704, 5.79116], [0.497246, 0.189788, -0.089282]),
])
def test_keras_optimizers_update_as_keras(make, losses, kernel):
    X = np.random.RandomState(0).randn(12, 3).astype(np.float32)
    y = X @ np.array([[1.0], [-1.0], [2.0]], np.float32)
    with tf.Graph().as_default():
        m = keras.Sequential([keras.layers.Dense(1, input_shape=(3,))])
        m.set_weights([np.array([[0.5], [0.2], [-0.1]], np.float32), np.array([0.1], np.float32)])
        m.compile(make(), "mse")
        h = m.fit(X, y, batch_size=4, epochs=2, verbose=0, shuffle=False)
        np.testing.assert_allclose(h.history["loss"], losses, rtol=2e-5)
        np.testing.assert_allclose(m.get_weights()[0].ravel(), kernel, rtol=2e-5, atol=2e-6)


class _Scale(keras.layers.Layer):
    """A custom layer as Keras tutorials write them: a weight per feature."""

    def build(self, input_shape):
        self.alpha = self.add_weight(name="alpha", shape=(int(input_shape[-1]),),
                                     initializer="ones", trainable=True)
        super().build(input_shape)

    def call(self, x):
        return x * self.alpha


def test_functional_two_outputs_loss_weights_and_callbacks():
    rng = np.random.RandomState(1)
    Xa, Xb = rng.randn(24, 3).astype(np.float32), rng.randn(24, 2).astype(np.float32)
    y1 = (Xa.sum(1, keepdims=True) - Xb[:, :1]).astype(np.float32)
    y2 = (Xa[:, 0] > 0).astype(np.float32).reshape(-1, 1)
    with tf.Graph().as_default():
        in_a, in_b = keras.Input(shape=(3,), name="a"), keras.Input(shape=(2,), name="b")
        h = keras.layers.Dense(6, activation="relu", name="hidden")(
            keras.layers.concatenate([in_a, in_b]))
        h = _Scale(name="scale")(h)
        model = keras.Model([in_a, in_b], [keras.layers.Dense(1, name="reg")(h),
                                           keras.layers.Dense(1, activation="sigmoid",
                                                              name="cls")(h)])
        r = np.random.RandomState(5)
        model.set_weights([r.normal(size=w.shape).astype(np.float32) * 0.4 if w.ndim > 1 else
                           np.full(w.shape, 0.1, np.float32) for w in model.get_weights()])
        model.compile(keras.optimizers.Adam(0.01), loss=["mse", "binary_crossentropy"],
                      loss_weights=[1.0, 0.5], metrics=["accuracy"])
        assert model.metrics_names == ["loss", "reg_loss", "cls_loss", "reg_acc", "cls_acc"]
        seen = []
        log = keras.callbacks.LambdaCallback(on_epoch_end=lambda e, logs: seen.append(e))
        hist = model.fit([Xa, Xb], [y1, y2], batch_size=8, epochs=3, shuffle=False, verbose=0,
                         callbacks=[log])
        assert seen == hist.epoch == [0, 1, 2]
        np.testing.assert_allclose(hist.history["loss"], [4.954327, 4.907347, 4.849681],
                                   rtol=2e-5)
        np.testing.assert_allclose(hist.history["cls_loss"], [0.713594, 0.711447, 0.709416],
                                   rtol=2e-5)
        np.testing.assert_allclose(model.evaluate({"a": Xa, "b": Xb}, {"reg": y1, "cls": y2},
                                                  verbose=0),
                                   [4.808424, 4.454439, 0.70797, 0.0, 0.333333], rtol=2e-5,
                                   atol=1e-7)
        with pytest.raises(ValueError, match=r"evaluate\(y\): no data for \['cls'\]"):
            model.evaluate([Xa, Xb], {"reg": y1}, verbose=0)


def test_early_stopping_and_refusals():
    X = np.random.RandomState(1).randn(24, 3).astype(np.float32)
    y = X.sum(1, keepdims=True)
    with tf.Graph().as_default():
        m = keras.Sequential([keras.layers.Dense(1, input_shape=(3,))])
        m.compile("sgd", "mse")
        es = keras.callbacks.EarlyStopping(monitor="loss", patience=1, min_delta=10.0)
        h = m.fit(X, y, epochs=10, batch_size=24, verbose=0, callbacks=[es])
        assert len(h.history["loss"]) == 2 and es.stopped_epoch == 1   # (TF's)
        with pytest.raises(ValueError, match="steps_per_epoch=...\\) is not supported"):
            m.fit(X, y, steps_per_epoch=3, verbose=0)
        with pytest.raises(ValueError, match="fit: 3 sample weights for 24 samples"):
            m.fit(X, y, sample_weight=np.ones(3), verbose=0)
        with pytest.raises(ValueError, match="datasets and generators are not supported"):
            m.fit(iter([X]), y, verbose=0)
        with pytest.raises(ValueError, match="keras metric objects are not supported"):
            m.compile("sgd", "mse", metrics=[type("M", (), {"update_state": 1,
                                                             "__call__": 1})()])
    with tf.Graph().as_default():
        fresh = keras.Sequential([keras.layers.Dense(1, input_shape=(3,))])
        with pytest.raises(RuntimeError, match="must compile the model"):
            fresh.fit(X, y)
        with pytest.raises(ValueError, match="clipnorm=...\\) is not supported"):
            keras.optimizers.SGD(0.1, clipnorm=1.0)


def test_learning_rate_is_a_variable_schedules_change_it():
    X = np.random.RandomState(2).randn(20, 3).astype(np.float32)
    y = (X @ np.array([1.0, -1.0, 0.5]) > 0).astype(np.float32)
    K = keras.backend
    with tf.Graph().as_default():
        model = keras.Sequential([keras.layers.Dense(1, activation="sigmoid", input_shape=(3,))])
        model.compile(keras.optimizers.SGD(0.1), "binary_crossentropy", metrics=["accuracy"])
        assert K.get_value(model.optimizer.lr) == pytest.approx(0.1)
        K.set_value(model.optimizer.lr, 0.5)
        assert K.get_value(model.optimizer.lr) == 0.5
        assert model.optimizer.lr not in tf.trainable_variables()
        seen = []
        cb = keras.callbacks.LambdaCallback(
            on_epoch_end=lambda e, logs: seen.append(float(K.get_value(model.optimizer.lr))))
        sched = keras.callbacks.LearningRateScheduler(lambda epoch: 0.5 * (0.5 ** epoch))
        h = model.fit(X, y, epochs=3, batch_size=20, verbose=0, callbacks=[sched, cb])
        # TF: [0.5, 0.25, 0.125], history keys acc, loss, lr; get_config's rate 0.125
        assert seen == [0.5, 0.25, 0.125] and sorted(h.history) == ["acc", "loss", "lr"]
        assert model.optimizer.get_config()["learning_rate"] == 0.125


def test_rate_change_moves_the_update():
    with tf.Graph().as_default():
        w = tf.Variable(1.0)
        opt = keras.optimizers.SGD(0.1)
        step = opt.minimize(w * w)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(step)
            opt.lr.load(0.25, sess)
            sess.run(step)
            assert sess.run(w) == pytest.approx(0.8 - 0.25 * 1.6)


def test_more_keras_layers_as_tf():
    with tf.Graph().as_default():
        x = tf.constant(np.linspace(-2, 2, 24, dtype=np.float32).reshape(2, 3, 4))
        img = tf.constant(np.arange(60, dtype=np.float32).reshape(2, 5, 6, 1))
        pre = keras.layers.PReLU(alpha_initializer=keras.initializers.Constant(0.25),
                                 shared_axes=[1])
        ln = keras.layers.LayerNormalization()
        outs = [keras.layers.ELU(0.5)(x), pre(x), ln(x),
                keras.layers.LayerNormalization(axis=[1, 2], epsilon=1e-5)(x),
                keras.layers.Dot(axes=(2, 2))([x, x]),
                keras.layers.Dot(axes=1, normalize=True)([x[:, 0], x[:, 1]]),
                keras.layers.Dot(axes=(1, 1))([x, x]),
                keras.layers.Cropping2D(((1, 2), (0, 3)))(img),
                keras.layers.Cropping1D((1, 0))(x), keras.layers.GaussianNoise(0.5)(x)]
        assert [w.name for w in pre.weights + ln.weights] == [
            "p_re_lu/alpha:0", "layer_normalization/gamma:0", "layer_normalization/beta:0"]
        assert [o.shape.as_list() for o in outs] == [
            [2, 3, 4], [2, 3, 4], [2, 3, 4], [2, 3, 4], [2, 3, 3], [2, 1], [2, 4, 4],
            [2, 2, 3, 1], [2, 2, 4], [2, 3, 4]]
        g = tf.gradients(tf.reduce_sum(outs[1] * outs[2]) + tf.reduce_sum(outs[3] ** 2) +
                         tf.reduce_sum(outs[5]), pre.weights + ln.weights)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            o, gv = sess.run([outs, g])
    xs = np.linspace(-2, 2, 24, dtype=np.float32).reshape(2, 3, 4)
    # TF 2.21's numbers
    np.testing.assert_allclose(o[0][0, 0], [-0.43233, -0.41948, -0.40418, -0.38598], rtol=1e-4)
    np.testing.assert_allclose(o[1][0, 0], [-0.5, -0.45652, -0.41304, -0.36957], rtol=1e-4)
    np.testing.assert_allclose(o[2][1, 2], [-1.32424, -0.44141, 0.44141, 1.32424], rtol=1e-4)
    np.testing.assert_allclose(o[3][0, 0], [-1.59323, -1.30355, -1.01388, -0.7242], rtol=1e-4)
    np.testing.assert_allclose(o[4][0, 0], [12.24953, 7.41021, 2.57089], rtol=1e-4)
    np.testing.assert_allclose(o[5][:, 0], [0.99734, 0.94749], rtol=1e-4)
    np.testing.assert_allclose(o[6][0, 0], [6.07183, 5.3913, 4.71078, 4.03025], rtol=1e-4)
    assert o[7][0, :, :, 0].tolist() == [[6.0, 7.0, 8.0], [12.0, 13.0, 14.0]]
    np.testing.assert_array_equal(o[8], xs[:, 1:]) and np.testing.assert_array_equal(o[9], xs)
    np.testing.assert_allclose(gv[0], [[5.18182, 1.49697, -1.26667, -3.10909]], rtol=1e-4)
    np.testing.assert_allclose(gv[1], [-1.81364, -0.89242, 1.1803, 4.40454], rtol=1e-4)
    np.testing.assert_allclose(gv[2], [1.36957, 2.02174, 2.67391, 3.32609], rtol=1e-4)


def test_gaussian_noise_only_while_training():
    K = keras.backend
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 1000])
        y = keras.layers.GaussianNoise(0.5)(x)
        sess = K.get_session()
        a = sess.run(y, {x: np.zeros((4, 1000)), K.learning_phase(): True})
        b = sess.run(y, {x: np.zeros((4, 1000)), K.learning_phase(): True})
        assert abs(a.std() - 0.5) < 0.02 and abs(a.mean()) < 0.02 and (a != b).any()
        assert sess.run(y, {x: np.ones((2, 1000))}).tolist() == np.ones((2, 1000)).tolist()


TEXTS = ["The cat sat on the mat.", "The dog ate my homework!", "Cats and dogs; the end",
         "a b c a b a"]


def test_tokenizer_as_keras():
    T = keras.preprocessing.text
    t = T.Tokenizer()
    t.fit_on_texts(TEXTS)
    assert sorted(t.word_index.items())[:6] == [("a", 2), ("and", 13), ("ate", 9), ("b", 3),
                                                ("c", 16), ("cat", 4)]
    assert t.document_count == 4 and t.word_counts["the"] == 4
    assert t.texts_to_sequences(["the cat and the unknown dog", "A b!"]) == [[1, 4, 13, 1, 8],
                                                                             [2, 3]]
    tfidf = t.texts_to_matrix(["the cat the", "b b a"], mode="tfidf")[:, :6]
    np.testing.assert_allclose(tfidf, [[0.0, 1.1736, 0.0, 0.0, 1.09861, 0.0],
                                       [0.0, 0.0, 1.09861, 1.86011, 0.0, 0.0]], rtol=1e-5)
    assert t.texts_to_matrix(["the cat the"], mode="count")[0, :6].tolist() == [0, 2, 0, 0, 1, 0]
    o = T.Tokenizer(num_words=6, oov_token="<OOV>")
    o.fit_on_texts(TEXTS)
    assert o.texts_to_sequences(["the cat and the unknown dog", "A b!"]) == [[2, 5, 1, 2, 1, 1],
                                                                             [3, 4]]
    assert o.sequences_to_texts([[1, 2, 3, 9]]) == ["<OOV> the a <OOV>"]   # (TF's)
    assert T.text_to_word_sequence("Hello, World!  Hi--there") == ["hello", "world", "hi",
                                                                   "there"]
    with pytest.raises(ValueError, match="Unknown vectorization mode: bits"):
        t.texts_to_matrix(["a"], mode="bits")


def test_summary_wraps_long_names_and_fit_reports_as_keras(capsys):
    with tf.Graph().as_default():
        model = keras.Sequential([keras.layers.Embedding(20, 8, input_length=6),
                                  keras.layers.GlobalAveragePooling1D(),
                                  keras.layers.Dense(1, activation="sigmoid")])
        lines = []
        model.summary(print_fn=lines.append)
        # TF 2.21's table (tf_keras): the long layer name continues on the next line
        assert lines[6] == (" global_average_pooling1d (  (None, 8)                 0"
                            "         ")
        assert lines[7] == " GlobalAveragePooling1D)" + " " * 41   # (65 columns)
        assert lines[-4:-1] == ["Total params: 169 (676.00 Byte)",
                                "Trainable params: 169 (676.00 Byte)",
                                "Non-trainable params: 0 (0.00 Byte)"]
        model.compile("sgd", "binary_crossentropy")
        x, y = np.ones((6, 6), np.int32), np.ones(6)
        model.fit(x, y, epochs=1, verbose=1, validation_data=(x[:2], y[:2]))
        out = capsys.readouterr().out.splitlines()
        assert out[:2] == ["Train on 6 samples, validate on 2 samples", "Epoch 1/1"]
        assert out[2].startswith("6/6 [==============================] - loss: ")


@pytest.mark.parametrize("weighting, history, kernel, weighted, plain", [
    ("sample", [0.343187, 0.193936], [0.8772, 0.64828, -0.073392], 0.144764, 0.216947),
    ("class", [1.060307, 0.362188], [1.398503, 0.441334, -0.331572], 0.066799, 0.0817),
])
def test_sample_and_class_weights_as_keras(weighting, history, kernel, weighted, plain):
    # Keras: loss = sum(weight * loss) / batch size; metrics unweighted (TF's numbers)
    X = np.random.RandomState(0).randn(8, 3).astype(np.float32)
    y = (X[:, 0] > 0).astype(np.float32)
    sw = np.array([1.0, 2.0, 0.0, 0.5, 1.0, 3.0, 0.0, 1.0], np.float32)
    given = dict(sample_weight=sw) if weighting == "sample" else \
        dict(class_weight={0: 1.0, 1: 3.0})
    with tf.Graph().as_default():
        m = keras.Sequential([keras.layers.Dense(1, activation="sigmoid", input_shape=(3,))])
        m.set_weights([np.array([[0.5], [0.2], [-0.1]], np.float32),
                       np.array([0.1], np.float32)])
        m.compile(keras.optimizers.SGD(0.5), "binary_crossentropy", metrics=["acc"])
        h = m.fit(X, y, batch_size=4, epochs=2, verbose=0, shuffle=False, **given)
        np.testing.assert_allclose(h.history["loss"], history, rtol=2e-5)
        assert h.history["acc"] == [1.0, 1.0]
        np.testing.assert_allclose(m.get_weights()[0].ravel(), kernel, rtol=2e-5)
        np.testing.assert_allclose(m.evaluate(X, y, sample_weight=sw, verbose=0),
                                   [weighted, 1.0], rtol=2e-5)
        np.testing.assert_allclose(m.evaluate(X, y, verbose=0), [plain, 1.0], rtol=2e-5)
        h2 = m.fit(X, y, epochs=1, verbose=0, validation_data=(X, y, sw))
        assert h2.history["val_loss"][0] == pytest.approx(m.evaluate(X, y, sample_weight=sw,
                                                                     verbose=0)[0], rel=1e-5)


def test_mean_of_booleans():
    # a custom Keras metric K.mean(K.equal(...)): TF casts to floatx (0.75 here), while
    # tf.reduce_mean/sum/max of a bool tensor is TF's TypeError (symgrad gave 0.25 / True)
    K = keras.backend
    with tf.Graph().as_default():
        b = tf.constant([True, False, True, True])
        assert K.get_session().run(K.mean(b)) == 0.75
        for reduce in (tf.reduce_mean, tf.reduce_sum, tf.reduce_max, tf.reduce_prod, K.sum):
            with pytest.raises(TypeError, match="is a bool tensor.*cast it first"):
                reduce(b)
        assert K.get_session().run(tf.reduce_any(b))


def test_more_backend_functions_as_tf():
    K = keras.backend
    with tf.Graph().as_default():
        x = tf.constant(np.arange(12, dtype=np.float32).reshape(2, 3, 2) - 5)
        m = tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3) - 2)
        img = tf.constant(np.arange(64, dtype=np.float32).reshape(2, 4, 4, 2) / 10)
        outs = [K.switch(m > 0, m, -m), K.switch(K.constant(True), lambda: m * 2, lambda: m),
                K.any(m > 3, axis=1), K.all(m > -3), K.round(m / 4), K.not_equal(m, 0),
                K.cumsum(m, axis=1), K.cumprod(m + 3, axis=0), K.batch_dot(m, m),
                K.batch_dot(x, x, axes=(1, 1)), K.batch_dot(x, m, axes=(1, 1)),
                K.pool2d(img, (2, 2), strides=(2, 2))[0, 0, 0], K.reverse(m, 1),
                K.arange(1, 7, 2), K.temporal_padding(x, (1, 2))[0, :, 0],
                K.map_fn(lambda r: r * 2, m), K.foldl(lambda a, r: a + r, m)]
        g = K.gradients(K.sum(outs[0]) + K.sum(K.batch_dot(x, x, axes=(1, 1))), [m, x])
        sess = K.get_session()
        o, gv = sess.run(outs), sess.run(g)
    expect = [[[2, 1, 0], [1, 2, 3]], [[-4, -2, 0], [2, 4, 6]], [False, False], True,
              [[0, 0, 0], [0, 0, 1]], [[True, True, False], [True, True, True]],
              [[-2, -3, -3], [1, 3, 6]], [[1, 2, 3], [4, 10, 18]], [[5], [14]],
              [[[35, 26], [26, 20]], [[35, 44], [44, 56]]], [[13, 10], [22, 28]],
              [1.0, 1.1], [[0, -1, -2], [3, 2, 1]], [1, 3, 5], [0, -5, -3, -1, 0, 0],
              [[-4, -2, 0], [2, 4, 6]], [-1, 1, 3]]
    for got, want in zip(o, expect):   # (TF 2.21's values)
        np.testing.assert_allclose(np.asarray(got, dtype=float), np.asarray(want, dtype=float),
                                   rtol=1e-6)
    np.testing.assert_allclose(gv[0], [[-1, -1, -1], [1, 1, 1]])
    np.testing.assert_allclose(gv[1][0], [[-18, -18], [-10, -10], [-2, -2]])


def test_update_of_an_uninitialised_variable_is_tfs_error():
    with tf.Graph().as_default():
        v = tf.Variable([1.0, 2.0], name="v")
        with tf.Session() as sess:
            for op in (tf.assign_add(v, [1.0, 1.0]), tf.scatter_add(v, [0], [1.0])):
                with pytest.raises(tf.errors.FailedPreconditionError,
                                   match="uninitialized value v"):
                    sess.run(op)
            assert sess.run(tf.assign(v, [5.0, 6.0])).tolist() == [5.0, 6.0]   # (allowed)
            assert sess.run(tf.assign_add(v, [1.0, 1.0])).tolist() == [6.0, 7.0]
