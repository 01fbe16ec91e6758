"""Round-12 probe: Keras 2.2's example programs run as TF1 users ran them (graph mode,
``tf.keras``), against the numbers TensorFlow 2.21's graph-mode Keras (tf_keras,
compat.v1, v2 behaviour disabled) prints for the same programs at set weights."""
import numpy as np
import pytest

import symgrad.compat.v1 as tf

keras = tf.keras
K = keras.backend


def _fixed(model, seed, scale=0.5):
    r = np.random.RandomState(seed)
    model.set_weights([r.normal(size=w.shape).astype(np.float32) * scale
                       for w in model.get_weights()])


# (the optimizer, the losses of 3 epochs of 2 batches, the first kernel's sum after)
_OPTIMIZERS = [
    ("keras.optimizers.Adadelta()", [1.069559, 1.069555, 1.069552], -0.609644),
    ("keras.optimizers.Adadelta(lr=1.0, rho=0.95, epsilon=1e-6)",
     [1.066626, 1.05729, 1.050105], -0.839653),
    ("keras.optimizers.Adamax(lr=0.05)", [1.041459, 1.018114, 1.020711], -0.859619),
    ("keras.optimizers.Nadam(lr=0.05)", [1.040339, 1.029043, 1.023361], -0.325142),
    ("keras.optimizers.Adam(lr=0.05, decay=1e-2, amsgrad=True)",
     [1.041474, 1.018842, 1.023771], -0.730753),
    ("'adadelta'", [1.069559, 1.069555, 1.069552], -0.609644),
    ("'nadam'", [1.068799, 1.066807, 1.065157], -0.653928),
]


@pytest.mark.parametrize("make, losses, kernel_sum", _OPTIMIZERS)
def test_more_keras_optimizers_step_as_tf(make, losses, kernel_sum):
    # mnist_cnn.py trains with keras.optimizers.Adadelta(); Adamax, Nadam and
    # Adam(amsgrad=True) are the other legacy optimizers of the 2.2 examples' era
    rng = np.random.RandomState(0)
    x = rng.rand(16, 6).astype("float32")
    y = keras.utils.to_categorical(rng.randint(0, 3, 16), 3)
    L = keras.layers
    with tf.Graph().as_default():
        model = keras.models.Sequential([L.Dense(4, activation="tanh", input_shape=(6,)),
                                         L.Dense(3, activation="softmax")])
        model.compile(loss="categorical_crossentropy", optimizer=eval(make))
        _fixed(model, 1)
        h = model.fit(x, y, batch_size=8, epochs=3, verbose=0, shuffle=False)
        np.testing.assert_allclose(h.history["loss"], losses, rtol=1e-5)
        np.testing.assert_allclose(model.get_weights()[0].sum(), kernel_sum, rtol=1e-5,
                                   atol=1e-6)


# (imdb_lstm.py's LSTM(dropout=0.2, recurrent_dropout=0.2)); TF's predictions (test
# phase: no dropout) at set weights: the first values and the sum
_RNN_DROPOUT = [
    ("L.LSTM(3, dropout=0.2, recurrent_dropout=0.3)",
     [0.145271, 0.279372, -0.294796, 0.177168, 0.334162, -0.083599], 0.833232),
    ("L.GRU(3, dropout=0.2, recurrent_dropout=0.3, return_sequences=True)",
     [-0.261831, -0.316932, -0.344071, -0.433142, -0.56122, -0.454171], -19.638334),
    ("L.GRU(3, dropout=0.2, recurrent_dropout=0.3, reset_after=True)",
     [-0.553384, -0.707775, -0.652962, -0.420616, -0.76337, -0.522124], -4.719211),
    ("L.SimpleRNN(3, dropout=0.4, recurrent_dropout=0.1)",
     [0.416354, 0.742394, -0.855579, 0.815336, 0.399069, -0.763712], 1.846176),
]


@pytest.mark.parametrize("make, first, total", _RNN_DROPOUT)
def test_recurrent_layers_take_dropout_and_predict_as_tf(make, first, total):
    L = keras.layers
    x = np.random.RandomState(0).rand(3, 5, 4).astype("float32")
    with tf.Graph().as_default():
        inp = L.Input(shape=(5, 4))
        model = keras.models.Model(inp, eval(make)(inp))
        _fixed(model, 1)
        y = model.predict(x)
        np.testing.assert_allclose(y.ravel()[:6], first, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(y.sum(), total, rtol=1e-5)


def test_recurrent_dropout_masks_are_drawn_once_per_sequence():
    # TF (learning phase 1): linear SimpleRNN, kernel 1, recurrent 0, rate 0.5 -> each
    # row all 0 or all 2 over time; with recurrent_dropout and recurrent kernel 1 and
    # x = [1, 0, 0, 0] -> rows 1 2 4 8 or 1 0 0 0 (the state's mask kept over time)
    L = keras.layers
    x = np.ones((64, 4, 1), np.float32)
    x2 = np.zeros((64, 4, 1), np.float32)
    x2[:, 0] = 1
    with tf.Graph().as_default():
        inp = L.Input(shape=(4, 1))
        kw = dict(activation="linear", use_bias=False, return_sequences=True)
        out = L.SimpleRNN(1, dropout=0.5, **kw)(inp)
        out2 = L.SimpleRNN(1, recurrent_dropout=0.5, **kw)(inp)
        model = keras.models.Model(inp, [out, out2])
        model.set_weights([np.ones((1, 1), np.float32), np.zeros((1, 1), np.float32),
                           np.ones((1, 1), np.float32), np.ones((1, 1), np.float32)])
        run = K.function([inp, K.learning_phase()], [out, out2])
        rows = {tuple(r) for r in run([x, 1])[0][..., 0]}
        assert rows == {(0.0,) * 4, (2.0,) * 4}
        rows = {tuple(r) for r in run([x2, 1])[1][..., 0]}
        assert rows == {(1.0, 2.0, 4.0, 8.0), (1.0, 0.0, 0.0, 0.0)}
        np.testing.assert_array_equal(run([x, 0])[0][..., 0], np.ones((64, 4)))


# TF's numbers for each layer at set weights: the weights' names (after the layer's
# scope) and shapes, the output shape, the output's first values, loss = sum(out * c)
# and (sum, sum of |.|) of d loss / d (input, weights...)
_CONV_LAYERS = [
    ('L.SeparableConv2D(4, 3)',
     ['depthwise_kernel:0', 'pointwise_kernel:0', 'bias:0'], [(3, 3, 3, 1), (1, 1, 3, 4), (4,)], (2, 5, 4, 4),
     [-0.15437, 0.64565, -0.5884, -2.37022, 0.05823], -29.2583,
     [(-43.6898, 72.4777), (-111.119, 164.58), (-30.9447, 160.609), (73.4111, 73.4111)]),
    ("L.SeparableConv2D(5, (3, 2), strides=2, padding='same', depth_multiplier=2, activation='relu')",
     ['depthwise_kernel:0', 'pointwise_kernel:0', 'bias:0'], [(3, 2, 3, 2), (1, 1, 6, 5), (5,)], (2, 4, 3, 5),
     [0.8918, 1.25406, 0.8608, 0.0, 0.0], 30.2331,
     [(10.6469, 51.206), (63.9718, 106.464), (-33.503, 89.6635), (28.1527, 28.1527)]),
    ('L.SeparableConv2D(4, 3, dilation_rate=2, use_bias=False)',
     ['depthwise_kernel:0', 'pointwise_kernel:0'], [(3, 3, 3, 1), (1, 1, 3, 4)], (2, 3, 2, 4),
     [-0.42568, 1.14433, -0.23195, -2.43637, -0.11881], -7.98963,
     [(-15.5704, 41.9973), (-26.1971, 53.0358), (-3.63776, 46.0589)]),
    ('L.DepthwiseConv2D(3)',
     ['depthwise_kernel:0', 'bias:0'], [(3, 3, 3, 1), (3,)], (2, 5, 4, 3),
     [0.49378, 0.30469, -1.56257, 0.15195, 0.05049], -12.0174,
     [(-12.2897, 103.568), (227.715, 227.715), (54.4468, 54.4468)]),
    ("L.DepthwiseConv2D((2, 3), strides=(2, 1), padding='same', depth_multiplier=2, activation='tanh')",
     ['depthwise_kernel:0', 'bias:0'], [(2, 3, 3, 2), (6,)], (2, 4, 6, 6),
     [-0.0933, -0.55173, 0.74964, -0.50293, -0.10362], -2.90811,
     [(-4.57366, 68.8984), (215.563, 215.563), (94.3167, 94.3167)]),
    ('L.DepthwiseConv2D(3, dilation_rate=2, use_bias=False)',
     ['depthwise_kernel:0'], [(3, 3, 3, 1)], (2, 3, 2, 3),
     [0.78962, 0.36197, -2.46031, 0.15876, 0.25694], -0.746952,
     [(-2.22467, 51.7351), (66.9548, 66.9548)]),
    ("L.SeparableConv1D(4, 3, padding='same', depth_multiplier=2)",
     ['depthwise_kernel:0', 'pointwise_kernel:0', 'bias:0'], [(3, 3, 2), (1, 6, 4), (4,)], (2, 9, 4),
     [-1.57785, 0.39165, -0.62159, 1.04201, -2.0686], -5.33166,
     [(-12.257, 32.0074), (-7.32478, 43.3023), (-18.133, 107.634), (28.0759, 28.0759)]),
    ("L.Conv1D(4, 3, padding='causal')",
     ['kernel:0', 'bias:0'], [(3, 3, 4), (4,)], (2, 9, 4),
     [-0.62472, -0.32781, 0.22066, -0.1413, -1.48111], -0.900685,
     [(-12.622, 18.2453), (122.659, 122.659), (28.0759, 28.0759)]),
    ("L.Conv1D(4, 2, padding='causal', dilation_rate=3, activation='relu')",
     ['kernel:0', 'bias:0'], [(2, 3, 4), (4,)], (2, 9, 4),
     [0.0, 0.0, 0.7956, 0.0, 0.06773], 10.7424,
     [(17.363, 18.1011), (35.5843, 35.5843), (14.4706, 14.4706)]),
    ("L.Conv1D(4, 3, padding='causal', strides=2)",
     ['kernel:0', 'bias:0'], [(3, 3, 4), (4,)], (2, 5, 4),
     [-0.62472, -0.32781, 0.22066, -0.1413, 0.45974], -1.64798,
     [(-10.844, 20.319), (80.1633, 80.1633), (17.2613, 17.2613)]),
]


@pytest.mark.parametrize("make, names, shapes, out_shape, first, loss, grads", _CONV_LAYERS)
def test_depthwise_separable_and_causal_convolutions_as_tf(make, names, shapes, out_shape,
                                                           first, loss, grads):
    # keras's SeparableConv2D/1D, DepthwiseConv2D and Conv1D(padding="causal")
    # (WaveNet-style programs): values and K.gradients at set weights
    L = keras.layers
    rng = np.random.RandomState(0)
    x2 = rng.rand(2, 7, 6, 3).astype("float32")
    x = rng.rand(2, 9, 3).astype("float32") if "1D" in make else x2
    with tf.Graph().as_default():
        inp = L.Input(shape=x.shape[1:])
        layer = eval(make)
        out = layer(inp)
        model = keras.models.Model(inp, out)
        _fixed(model, 1)
        assert [w.name.split("/", 1)[1] for w in layer.weights] == names
        assert [tuple(w.shape) for w in layer.weights] == shapes
        assert layer.output_shape == (None,) + out_shape[1:]
        c = K.constant(np.random.RandomState(2).rand(*out_shape[1:]).astype("float32"))
        total = K.sum(out * c)
        values = K.get_session().run([out, total] + K.gradients(total, [inp] + layer.weights),
                                     {inp: x})
        np.testing.assert_allclose(values[0].ravel()[:5], first, rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(values[1], loss, rtol=1e-5)
        np.testing.assert_allclose([(g.sum(), np.abs(g).sum()) for g in values[2:]], grads,
                                   rtol=1e-5)


def test_compile_without_a_loss_trains_on_add_loss_as_tf():
    # variational_autoencoder.py: vae.add_loss(vae_loss); vae.compile(optimizer='adam');
    # vae.fit(x_train, epochs=..., validation_data=(x_test, None)); and an output left
    # without a loss (loss={'pred': 'mse'}) has no target
    L = keras.layers
    rng = np.random.RandomState(0)
    x = rng.rand(12, 5).astype("float32")
    y2 = rng.rand(12, 2).astype("float32")
    with tf.Graph().as_default():
        inp = L.Input(shape=(5,))
        out = L.Dense(5, name="recon")(L.Dense(3, activation="tanh")(inp))
        model = keras.models.Model(inp, out)
        model.add_loss(K.mean(K.sum(K.square(out - inp), axis=-1)))
        model.compile(optimizer=keras.optimizers.SGD(lr=0.05))
        _fixed(model, 1)
        assert model.metrics_names == ["loss"]
        hist = model.fit(x, epochs=3, batch_size=4, shuffle=False, verbose=0,
                         validation_data=(x[:4], None))
        np.testing.assert_allclose(hist.history["loss"], [2.283991, 0.843089, 0.484331],
                                   rtol=1e-5)
        np.testing.assert_allclose(hist.history["val_loss"], [1.071553, 0.517971, 0.366519],
                                   rtol=1e-5)
        np.testing.assert_allclose(model.evaluate(x, None, verbose=0), 0.388997, rtol=1e-5)
        np.testing.assert_allclose(model.train_on_batch(x[:4], None), 0.366519, rtol=1e-5)
    with tf.Graph().as_default():
        inp = L.Input(shape=(5,))
        code = L.Dense(3, activation="tanh", name="code")(inp)
        model = keras.models.Model(inp, [code, L.Dense(2, name="pred")(code)])
        model.compile(optimizer=keras.optimizers.SGD(lr=0.05), loss={"pred": "mse"},
                      metrics=["mae"])
        _fixed(model, 1)
        assert model.metrics_names == ["loss", "pred_loss", "pred_mean_absolute_error"]
        hist = model.fit(x, [y2], epochs=2, batch_size=4, shuffle=False, verbose=0)
        np.testing.assert_allclose(hist.history["loss"], [0.466854, 0.309027], rtol=1e-5)
        np.testing.assert_allclose(hist.history["pred_mean_absolute_error"],
                                   [0.604554, 0.476791], rtol=1e-5)
    with tf.Graph().as_default(), pytest.raises(ValueError, match="add_loss"):
        model = keras.models.Sequential([L.Dense(1, input_shape=(2,))])
        model.compile("sgd")


def test_backend_placeholder_is_tfs_plain_placeholder():
    # neural_style_transfer.py: combination_image = K.placeholder((1, h, w, 3)) before
    # Input(tensor=...); TF names them Placeholder:0 and abc:0, and the Input input_1:0
    with tf.Graph().as_default():
        p = K.placeholder((None, 3))
        q = K.placeholder(ndim=2, name="abc")
        assert (p.name, q.name, K.int_shape(p), K.int_shape(q)) == \
            ("Placeholder:0", "abc:0", (None, 3), (None, None))
        assert keras.layers.Input((3,)).name == "input_1:0"
        run = K.function([p], [K.sum(p * 2.0)])
        assert run([np.ones((2, 3), np.float32)])[0] == 12.0


def test_gan_updates_output_names_and_layer_order_as_tf():
    # mnist_acgan.py: a Sequential with BatchNormalization built on its own input
    # (input_dim=), called inside the generator; combined = Model(z, disc(gen(z))) with
    # the discriminator frozen. TF: every call's updates in .updates (6), the step
    # runs those of this model's inputs; the two outputs of one nested model are named
    # model_1, model_1_1; layers by depth, ties in keras's walk order
    L = keras.layers
    rng = np.random.RandomState(0)
    x = rng.rand(6, 4).astype("float32")
    y = rng.rand(6, 1).astype("float32")
    c = rng.randint(0, 3, 6)
    with tf.Graph().as_default():
        cnn = keras.models.Sequential([L.Dense(5, input_dim=4), L.BatchNormalization(),
                                       L.Dense(3)])
        latent = L.Input(shape=(4,))
        gen = keras.models.Model(latent, cnn(L.multiply([latent, L.Dense(4)(latent)])))
        disc_in = L.Input(shape=(3,))
        disc = keras.models.Model(disc_in, [
            L.Dense(1, name="generation")(disc_in),
            L.Dense(3, activation="softmax", name="auxiliary")(disc_in)])
        z = L.Input(shape=(4,))
        disc.trainable = False
        combined = keras.models.Model(z, list(disc(gen(z))))
        combined.compile("sgd", loss=["mse", "sparse_categorical_crossentropy"])
        assert combined.metrics_names == ["loss", "model_1_loss", "model_1_1_loss"]
        assert (len(combined.updates), len(gen.updates), len(cnn.updates)) == (6, 6, 6)
        assert [layer.name for layer in gen.layers] == \
            ["input_1", "dense_2", "multiply", "sequential"]
        r = np.random.RandomState(1)
        for m in (gen, disc):
            m.set_weights([r.normal(size=w.shape).astype(np.float32) * 0.5
                           for w in m.get_weights()])
        np.testing.assert_allclose(combined.train_on_batch(x, [y, c]),
                                   [1.999538, 0.779236, 1.220302], rtol=1e-5)
        np.testing.assert_allclose(combined.train_on_batch(x, [y, c]),
                                   [1.992566, 0.775407, 1.217159], rtol=1e-5)
        np.testing.assert_allclose(cnn.layers[1].get_weights()[2],
                                   [0.28378, 0.415279, 0.457643, 0.143487, 0.421837],
                                   rtol=1e-5)


def test_merging_tensors_of_different_ranks_and_model_input_checks_as_tf():
    # mnist_acgan.py multiplies latent [N, 6] with the class embedding; without its
    # Flatten the embedding is [N, 1, 6]: keras adds the axis after the batch (TF:
    # [N, 1, 6]), where broadcasting gave [N, N, 6]; then the generator's Sequential,
    # built for [N, 6], refuses the [N, 1, 6] (TF's ValueError)
    L = keras.layers
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.arange(6, dtype=np.float32).reshape(2, 1, 3) + 1
    expected = {"multiply": [[[0, 2, 6]], [[12, 20, 30]]], "add": [[[1, 3, 5]], [[7, 9, 11]]],
                "subtract": [[[-1, -1, -1]], [[-1, -1, -1]]],
                "maximum": [[[1, 2, 3]], [[4, 5, 6]]],
                "average": [[[0.5, 1.5, 2.5]], [[3.5, 4.5, 5.5]]]}
    with tf.Graph().as_default():
        x, y = L.Input(shape=(3,)), L.Input(shape=(1, 3))
        for name, want in expected.items():
            out = getattr(L, name)([x, y])
            assert K.int_shape(out) == (None, 1, 3)
            np.testing.assert_array_equal(K.get_session().run(out, {x: a, y: b}), want)
        model = keras.models.Sequential([L.Dense(2, input_dim=3)])
        with pytest.raises(ValueError, match=r"expected shape=\(None, 3\), found shape="
                                             r"\(None, 1, 3\)"):
            model(y)


# conv_lstm.py's layers: TF's names after the layer scope, shapes, output_shape, the
# value's shape, first values, loss = sum(out * c), (sum, sum |.|) of the gradients
# with respect to the input and the weights
_CONV_LSTM = [
    ("L.ConvLSTM2D(filters=3, kernel_size=(3, 3), padding='same', return_sequences=True)",
     ['kernel:0', 'recurrent_kernel:0', 'bias:0'], [(3, 3, 2, 12), (3, 3, 3, 12), (12,)], (None, None, 5, 5, 3), (2, 3, 5, 5, 3),
     [0.09676, 0.00793, 0.07178, 0.14617, -0.07866], 33.9054,
     [(24.6684, 39.8415), (377.04, 377.04), (108.449, 108.449), (55.8944, 55.8944)]),
    ("L.ConvLSTM2D(3, (3, 2), padding='valid')",
     ['kernel:0', 'recurrent_kernel:0', 'bias:0'], [(3, 2, 2, 12), (3, 2, 3, 12), (12,)], (None, 3, 4, 3), (2, 3, 4, 3),
     [0.23907, -0.09273, -0.23704, 0.31882, -0.32837], -1.40825,
     [(4.94759, 19.3528), (44.464, 74.4536), (-0.856621, 20.1907), (6.92119, 11.488)]),
    ("L.ConvLSTM2D(2, 3, strides=2, padding='same', return_sequences=True, go_backwards=True)",
     ['kernel:0', 'recurrent_kernel:0', 'bias:0'], [(3, 3, 2, 8), (3, 3, 2, 8), (8,)], (None, None, 3, 3, 2), (2, 3, 3, 3, 2),
     [-0.10001, -0.15143, -0.28139, 0.11418, -0.23331], -5.03697,
     [(-10.4568, 27.9238), (44.6692, 84.7968), (-4.65542, 11.6126), (8.98307, 16.2639)]),
    ("L.Conv3D(filters=2, kernel_size=(3, 3, 3), activation='sigmoid', padding='same', data_format='channels_last')",
     ['kernel:0', 'bias:0'], [(3, 3, 3, 2, 2), (2,)], (None, 3, 5, 5, 2), (2, 3, 5, 5, 2),
     [0.51669, 0.63751, 0.56572, 0.92919, 0.28141], 87.5998,
     [(29.4979, 65.1721), (400.533, 400.533), (26.8994, 26.8994)]),
    ('L.Conv3D(4, (2, 3, 1), strides=(1, 2, 1))',
     ['kernel:0', 'bias:0'], [(2, 3, 1, 2, 4), (4,)], (None, 2, 2, 5, 4), (2, 2, 2, 5, 4),
     [0.3322, -1.5702, 1.4201, -0.35859, 0.30798], 2.89528,
     [(-6.78479, 109.145), (440.236, 440.236), (73.4111, 73.4111)]),
]
_TIME_GIVEN = {1: 3, 3: 3, 4: 3}   # (cases whose Input has 3 time steps; others None)


@pytest.mark.parametrize("case", range(len(_CONV_LSTM)))
def test_conv_lstm2d_and_conv3d_as_tf(case):
    make, names, shapes, out_shape, value_shape, first, loss, grads = _CONV_LSTM[case]
    L = keras.layers
    x = np.random.RandomState(0).rand(2, 3, 5, 5, 2).astype("float32")
    with tf.Graph().as_default():
        inp = L.Input(shape=(_TIME_GIVEN.get(case), 5, 5, 2))
        layer = eval(make)
        out = layer(inp)
        _fixed(keras.models.Model(inp, out), 1)
        assert [w.name.split("/", 1)[1] for w in layer.weights] == names
        assert [tuple(w.shape) for w in layer.weights] == shapes
        assert layer.output_shape == out_shape
        c = K.constant(np.random.RandomState(2).rand(*value_shape[1:]).astype("float32"))
        total = K.sum(out * c)
        values = K.get_session().run([out, total] + K.gradients(total, [inp] + layer.weights),
                                     {inp: x})
        assert values[0].shape == value_shape
        np.testing.assert_allclose(values[0].ravel()[:5], first, rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(values[1], loss, rtol=1e-5)
        np.testing.assert_allclose([(g.sum(), np.abs(g).sum()) for g in values[2:]], grads,
                                   rtol=1e-5)



# TF's summary() of variational_autoencoder.py's encoder (not a chain: 98 columns and
# "Connected to") and decoder (a chain: 65 columns, the InputLayer row), lines stripped
_VAE_SUMMARIES = """
Model: "encoder"
__________________________________________________________________________________________________
 Layer (type)                Output Shape                 Param #   Connected to
==================================================================================================
 encoder_input (InputLayer)  [(None, 36)]                 0         []

 dense (Dense)               (None, 12)                   444       ['encoder_input[0][0]']

 z_mean (Dense)              (None, 2)                    26        ['dense[0][0]']

 z_log_var (Dense)           (None, 2)                    26        ['dense[0][0]']

 z (Lambda)                  (None, 2)                    0         ['z_mean[0][0]',
                                                                     'z_log_var[0][0]']

==================================================================================================
Total params: 496 (1.94 KB)
Trainable params: 496 (1.94 KB)
Non-trainable params: 0 (0.00 Byte)
__________________________________________________________________________________________________
Model: "decoder"
_________________________________________________________________
 Layer (type)                Output Shape              Param #
=================================================================
 z_sampling (InputLayer)     [(None, 2)]               0

 dense_1 (Dense)             (None, 12)                36

 dense_2 (Dense)             (None, 36)                468

=================================================================
Total params: 504 (1.97 KB)
Trainable params: 504 (1.97 KB)
Non-trainable params: 0 (0.00 Byte)
_________________________________________________________________
"""


def test_functional_summaries_as_tf():
    L = keras.layers
    lines = []
    with tf.Graph().as_default():
        inputs = L.Input(shape=(36,), name="encoder_input")
        x = L.Dense(12, activation="relu")(inputs)
        z_mean, z_log_var = L.Dense(2, name="z_mean")(x), L.Dense(2, name="z_log_var")(x)
        z = L.Lambda(lambda a: a[0] + K.exp(0.5 * a[1]), output_shape=(2,),
                     name="z")([z_mean, z_log_var])
        keras.models.Model(inputs, [z_mean, z_log_var, z], name="encoder").summary(
            print_fn=lines.append)
        latent = L.Input(shape=(2,), name="z_sampling")
        hidden = L.Dense(12, activation="relu")(latent)
        decoder = keras.models.Model(latent, L.Dense(36, activation="sigmoid")(hidden),
                                     name="decoder")
        decoder.summary(print_fn=lines.append)
        assert decoder.layers[0].output_shape == [(None, 2)]
    assert [line.rstrip() for line in lines] == _VAE_SUMMARIES.strip("\n").split("\n")


def test_seq2seq_initial_state_belongs_to_the_model_as_tf():
    # lstm_seq2seq.py: the decoder LSTM starts from the encoder's states, passed as
    # initial_state=; TF's model holds the encoder (its weights train), connects
    # lstm_1 to lstm[0][1] and lstm[0][2]; babi_memnn.py's layers.dot function
    L = keras.layers
    rng = np.random.RandomState(0)
    with tf.Graph().as_default():
        encoder_inputs = L.Input(shape=(None, 5))
        _, state_h, state_c = L.LSTM(4, return_state=True)(encoder_inputs)
        decoder_inputs = L.Input(shape=(None, 6))
        decoder_outputs, _, _ = L.LSTM(4, return_sequences=True, return_state=True)(
            decoder_inputs, initial_state=[state_h, state_c])
        model = keras.models.Model([encoder_inputs, decoder_inputs],
                                   L.Dense(6, activation="softmax")(decoder_outputs))
        model.compile(optimizer="rmsprop", loss="categorical_crossentropy")
        assert [w.name for w in model.weights] == [
            "lstm/lstm_cell/kernel:0", "lstm/lstm_cell/recurrent_kernel:0",
            "lstm/lstm_cell/bias:0", "lstm_1/lstm_cell/kernel:0",
            "lstm_1/lstm_cell/recurrent_kernel:0", "lstm_1/lstm_cell/bias:0",
            "dense/kernel:0", "dense/bias:0"]
        assert [layer.name for layer in model.layers] == \
            ["input_1", "input_2", "lstm", "lstm_1", "dense"]
        _fixed(model, 1)
        ei, di = rng.rand(3, 4, 5).astype("float32"), rng.rand(3, 5, 6).astype("float32")
        dt = keras.utils.to_categorical(rng.randint(0, 6, (3, 5)), 6)
        h = model.fit([ei, di], dt, batch_size=3, epochs=3, shuffle=False, verbose=0)
        np.testing.assert_allclose(h.history["loss"], [1.696706, 1.692433, 1.689363],
                                   rtol=1e-5)
        lines = []
        model.summary(print_fn=lines.append)
        i = [n for n, line in enumerate(lines) if "lstm_1 (LSTM)" in line][0]
        assert [line.rstrip() for line in lines[i:i + 3]] == [
            " lstm_1 (LSTM)               [(None, None, 4),            176       "
            "['input_2[0][0]',",
            "                              (None, 4),                             "
            "'lstm[0][1]',",
            "                              (None, 4)]                             "
            "'lstm[0][2]']"]
        ones = np.ones((2, 3, 4), "float32")
        out = L.dot([K.constant(ones), K.constant(np.ones((2, 5, 4), "float32"))], axes=(2, 2))
        assert K.get_session().run(out).shape == (2, 3, 5)


def test_spatial_and_gaussian_dropout_upsampling1d_and_zeropadding1d_as_tf():
    # Keras layers the examples of the era used that were missing; the dropouts are the
    # identity when predicting, and a SpatialDropout1D mask is one number per sample and
    # channel, shared over the steps
    with tf.Graph().as_default():
        keras = tf.keras
        L = keras.layers
        inp = L.Input((4, 3))
        h = L.UpSampling1D(2)(inp)
        h = L.ZeroPadding1D((1, 2))(h)
        h = L.SpatialDropout1D(0.4)(h)
        h = L.GaussianDropout(0.2)(h)
        h = L.Conv1D(2, 3, kernel_initializer=keras.initializers.Constant(0.1),
                     bias_initializer="zeros")(h)
        m = keras.Model(inp, h)
        x = np.arange(24, dtype=np.float32).reshape(2, 4, 3) / 10
        names = [l.name for l in m.layers]
        shapes = [tuple(l.output_shape) for l in m.layers[1:]]
        pred = m.predict(x)
        g = keras.backend.gradients(keras.backend.sum(m.output ** 2), m.input)[0]
        grad = keras.backend.function([m.input], [g])([x])[0]
        spatial = L.SpatialDropout1D(0.5)(inp, training=True)
        masked = keras.backend.get_session().run(spatial, {inp: np.ones((3, 4, 3))})
    # TF 2.21 (legacy keras)
    assert names == ["input_1", "up_sampling1d", "zero_padding1d", "spatial_dropout1d",
                     "gaussian_dropout", "conv1d"]
    assert shapes == [(None, 8, 3), (None, 11, 3), (None, 11, 3), (None, 11, 3), (None, 9, 2)]
    tf_pred = [[0.06, 0.18, 0.27, 0.45, 0.54, 0.72, 0.81, 0.6, 0.3],
               [0.78, 1.26, 1.35, 1.53, 1.62, 1.8, 1.89, 1.32, 0.66]]
    np.testing.assert_allclose(pred, np.repeat(np.array(tf_pred)[..., None], 2, -1), rtol=1e-5)
    tf_grad = [[0.3, 0.864, 1.512, 1.536], [2.172, 3.456, 4.104, 3.552]]
    np.testing.assert_allclose(grad, np.repeat(np.array(tf_grad)[..., None], 3, -1), rtol=1e-5)
    np.testing.assert_array_equal(masked, np.broadcast_to(masked[:, :1], masked.shape))
