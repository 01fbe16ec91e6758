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
