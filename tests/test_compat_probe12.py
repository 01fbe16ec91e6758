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
