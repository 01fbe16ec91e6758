"""Round-13 probe c: tf.keras idioms of TF1-era programs that symgrad lacked --
``Masking`` and ``Embedding(mask_zero=True)`` with the mask reaching LSTM/GRU/SimpleRNN
(masked steps keep the state), ``Bidirectional``, ``TimeDistributed``, the merges,
``GlobalAveragePooling1D`` and the masked training loss; ``keras.backend.rnn``;
``keras.layers.RNN`` with ``SimpleRNNCell``, ``LSTMCell``, ``GRUCell``,
``StackedRNNCells`` and cells written by users -- each against the numbers, names and
shapes TensorFlow 2.21's graph-mode Keras (tf_keras, compat.v1, v2 behaviour disabled)
prints for the same program at the same set weights."""
import numpy as np
import pytest

import symgrad.compat.v1 as tf

keras = tf.keras
K = keras.backend
L = keras.layers


def _fill(model):
    """Weights that need no random numbers: sin of the position, per weight."""
    model.set_weights([(np.sin(np.arange(w.size) * 0.7 + i) * 0.5).reshape(w.shape)
                       .astype(np.float32) for i, w in enumerate(model.get_weights())])


_X = np.array([[[1., 2.], [0., 0.], [3., -1.], [0., 0.]],
               [[0., 0.], [0.5, 1.], [1., 1.], [2., 0.]],
               [[1., 1.], [1., -1.], [0., 0.], [0., 0.]]], np.float32)
_Y = np.array([[1., 0.], [0., 1.], [1., 1.]], np.float32)
_IDS = np.array([[0, 0, 3, 4], [1, 2, 0, 5], [6, 0, 0, 0]])

# (the layer; TF's predictions of Masking -> layer(3, return_sequences=True) ->
# TimeDistributed(Dense(2)) for sample 0, then the masked mse of 3 SGD(0.1) steps
# and evaluate's)
_MASKED = [
    ("LSTM", [[-0.529997, -0.505273], [-0.529997, -0.505273], [-0.201052, -0.343751],
              [-0.201052, -0.343751]], [1.3565035, 1.086923, 0.8793556, 0.7206133]),
    ("GRU", [[-0.27802, -0.31606], [-0.27802, -0.31606], [-0.213355, -0.223416],
             [-0.213355, -0.223416]], [1.1491466, 0.9334319, 0.76976746, 0.6460721]),
    ("SimpleRNN", [[-0.654475, -1.052779], [-0.654475, -1.052779], [-0.961314, -0.89208],
                   [-0.961314, -0.89208]], [2.4341977, 1.5643371, 1.0821968, 0.78795666]),
]


@pytest.mark.parametrize("kind, first, losses", _MASKED)
def test_masked_steps_keep_the_state_and_leave_the_loss(kind, first, losses):
    # Masking(0.) before a recurrent layer: a step of zeros keeps the state and repeats
    # the output before (zeros before any), and the loss is the mean over kept steps
    with tf.Graph().as_default():
        model = keras.Sequential([L.Masking(mask_value=0., input_shape=(4, 2)),
                                  getattr(L, kind)(3, return_sequences=True),
                                  L.TimeDistributed(L.Dense(2))])
        model.compile(keras.optimizers.SGD(0.1), "mse")
        _fill(model)
        np.testing.assert_allclose(model.predict(_X)[0], first, atol=2e-6)
        target = np.repeat(_Y[:, None], 4, 1)
        got = [model.train_on_batch(_X, target) for _ in range(3)]
        got.append(model.evaluate(_X, target, verbose=0))
        np.testing.assert_allclose(got, losses, rtol=2e-6)


def test_masked_last_output_states_and_stacks_as_tf():
    with tf.Graph().as_default():
        model = keras.Sequential([L.Masking(input_shape=(4, 2)), L.LSTM(3),
                                  L.Dense(2)])
        model.compile(keras.optimizers.SGD(0.1), "mse")
        _fill(model)
        np.testing.assert_allclose(model.predict(_X), [[-0.201052, -0.343751],
                                   [-0.313991, -0.343906], [-0.322113, -0.408433]],
                                   atol=2e-6)
        assert [model.train_on_batch(_X, _Y) for _ in range(3)] == pytest.approx(
            [1.1995047, 0.9498021, 0.7631677], rel=2e-6)
    with tf.Graph().as_default():
        inp = keras.Input(shape=(4, 2))
        out = L.LSTM(2, return_state=True)(L.Masking()(inp))
        model = keras.Model(inp, out)
        _fill(model)
        o, h, c = model.predict(_X)
        np.testing.assert_allclose(o, [[-0.030998, -0.201764], [-0.020762, -0.189714],
                                       [-0.168017, -0.228274]], atol=2e-6)
        np.testing.assert_allclose(h, o)
        np.testing.assert_allclose(c, [[-0.117999, -0.65357], [-0.063718, -0.566188],
                                       [-0.395015, -0.438298]], atol=2e-6)
    with tf.Graph().as_default():
        model = keras.Sequential([L.Masking(input_shape=(4, 2)),
                                  L.LSTM(3, return_sequences=True), L.LSTM(2)])
        _fill(model)
        np.testing.assert_allclose(model.predict(_X), [[0.161066, 0.120434],
                                   [0.173614, 0.135644], [0.154072, 0.117729]], atol=2e-6)


def test_masks_in_bidirectional_and_go_backwards_as_tf():
    with tf.Graph().as_default():   # (keras: a masked step of a sequence gives zeros)
        model = keras.Sequential([L.Masking(input_shape=(4, 2)),
                                  L.Bidirectional(L.LSTM(2, return_sequences=True))])
        _fill(model)
        np.testing.assert_allclose(model.predict(_X)[0], [
            [0.072795, -0.0355, -0.18801, 0.076771], [0, 0, 0, 0],
            [-0.030998, -0.201764, 0.070238, 0.134206], [0, 0, 0, 0]], atol=2e-6)
    with tf.Graph().as_default():
        model = keras.Sequential([L.Masking(input_shape=(4, 2)),
                                  L.Bidirectional(L.GRU(2))])
        _fill(model)
        np.testing.assert_allclose(model.predict(_X)[2], [-0.18673, -0.238767, 0.128627,
                                                          0.263604], atol=2e-6)
    with tf.Graph().as_default():   # (the outputs stay in the order they were read)
        model = keras.Sequential([L.Masking(input_shape=(4, 2)),
                                  L.GRU(2, go_backwards=True, return_sequences=True)])
        _fill(model)
        np.testing.assert_allclose(model.predict(_X)[0], [
            [0, 0], [-0.100824, -0.145759], [-0.100824, -0.145759], [0.128408, 0.195032]],
            atol=2e-6)


def test_embedding_mask_zero_reaches_the_lstm_and_training():
    with tf.Graph().as_default():
        inp = keras.Input(shape=(4,))
        h = L.LSTM(2)(L.Embedding(7, 3, mask_zero=True)(inp))
        model = keras.Model(inp, L.Dense(1, activation="sigmoid")(h))
        model.compile(keras.optimizers.Adam(0.01), "binary_crossentropy")
        _fill(model)
        np.testing.assert_allclose(model.predict(_IDS)[:, 0], [0.39847, 0.374373,
                                                               0.384163], atol=2e-6)
        got = [model.train_on_batch(_IDS, np.array([[1.], [0.], [1.]])) for _ in range(3)]
        np.testing.assert_allclose(got, [0.7819374, 0.7755565, 0.76902753], rtol=2e-6)


def test_masked_average_pooling_masking_layer_and_merges():
    with tf.Graph().as_default():   # (the fastText idiom: the mean over kept words)
        model = keras.Sequential([L.Embedding(7, 3, mask_zero=True, input_length=4),
                                  L.GlobalAveragePooling1D(),
                                  L.Dense(2, activation="softmax")])
        model.compile("adam", "sparse_categorical_crossentropy", metrics=["accuracy"])
        _fill(model)
        np.testing.assert_allclose(model.predict(_IDS)[:, 0], [0.581846, 0.529313,
                                                               0.607392], atol=2e-6)
        got = [model.train_on_batch(_IDS, np.array([1, 0, 1]))[0] for _ in range(3)]
        np.testing.assert_allclose(got, [0.8143415, 0.8127492, 0.811162], rtol=2e-6)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 4, 2])
        masking = L.Masking(mask_value=1.)
        y = masking(x)
        assert (y.name, y.shape.as_list()) == ("masking/mul:0", [None, 4, 2])
        with tf.Session() as sess:
            got, mask = sess.run([y, masking.compute_mask(x)], {x: _X})
        assert got[2, 0].tolist() == [0, 0] and mask.tolist() == [
            [True, True, True, True], [True, True, False, True], [False, True, True, True]]
    with tf.Graph().as_default():   # Add: kept where every mask keeps; Concatenate
        a, b = keras.Input(shape=(4,)), keras.Input(shape=(4, 3))   # with an unmasked one
        ea, mb = L.Embedding(7, 3, mask_zero=True)(a), L.Masking()(b)
        outs = [L.SimpleRNN(2, return_sequences=True)(L.Add()([ea, mb])),
                L.SimpleRNN(2, return_sequences=True)(L.Concatenate()([ea, b]))]
        model = keras.Model([a, b], outs)
        _fill(model)
        B = np.array([[[1, 1, 1], [0, 0, 0], [2, 2, 2], [1, 0, 0]]] * 3, np.float32)
        added, joined = model.predict([_IDS, B])
        np.testing.assert_allclose(added[1], [[0.672293, 0.066054]] * 3 + [
            [0.487409, 0.263944]], atol=2e-6)
        np.testing.assert_allclose(joined[1], [[-0.483751, -0.554738]] + [
            [0.324465, 0.243052]] * 2 + [[0.436989, 0.51663]], atol=2e-6)
    with tf.Graph().as_default():   # (a layer without masking drops the mask, as TF1's)
        e = L.Embedding(7, 3, mask_zero=True)(keras.Input(shape=(4,)))
        assert L.Flatten()(e).shape.as_list() == [None, 12]
        assert L.Lambda(lambda t: t * 2)(e).shape.as_list() == [None, 4, 3]


def test_masked_sequence_tagging_fit_as_tf():
    with tf.Graph().as_default():
        model = keras.Sequential([
            L.Embedding(7, 3, mask_zero=True, input_length=4),
            L.LSTM(4, return_sequences=True),
            L.TimeDistributed(L.Dense(3, activation="softmax"))])
        model.compile(keras.optimizers.RMSprop(0.01), "sparse_categorical_crossentropy",
                      metrics=["acc"])
        _fill(model)
        tags = np.array([[0, 0, 1, 2], [1, 1, 0, 2], [2, 0, 0, 0]])[..., None]
        h = model.fit(_IDS, tags, epochs=3, batch_size=3, verbose=0)
        np.testing.assert_allclose(h.history["loss"], [0.99106, 0.967836, 0.950998],
                                   rtol=2e-6)
        assert model.evaluate(_IDS, tags, verbose=0) == pytest.approx([0.9364143, 0.5],
                                                                       rel=2e-6)


def test_backend_rnn_with_mask_and_go_backwards_as_tf():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3, 2])

        def step(x_t, states):
            h = tf.tanh(x_t[:, :1] + 0.5 * states[0])
            return h * 2.0, [h]
        last, outs, states = K.rnn(step, x, [tf.zeros_like(x[:, 0, :1])])
        mask = tf.constant([[True, False, True], [False, True, True]])
        last2, outs2, states2 = K.rnn(step, x, [tf.zeros_like(x[:, 0, :1])],
                                      go_backwards=True, mask=mask)
        grad = tf.gradients(tf.reduce_sum(outs2), x)[0]
        with tf.Session() as sess:
            got = sess.run([last, outs, states[0], last2, outs2, states2[0], grad],
                           {x: np.arange(12, dtype=np.float32).reshape(2, 3, 2) / 10})
    want = [[[0.922169], [1.768293]], [[[0], [0.394751], [0.922169]],
                                       [[1.074099], [1.57781], [1.768293]]],
            [[0.461084], [0.884147]], [[0.375443], [1.655406]],
            [[[0.759898], [0.759898], [0.375443]], [[1.523188], [1.655406], [1.655406]]],
            [[0.187722], [0.827703]],
            [[[1.929521, 0], [0, 0], [4.248042, 0]], [[0, 0], [1.259633, 0],
                                                      [1.104455, 0]]]]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, atol=2e-6)


class MinimalRNNCell(L.Layer):
    """The cell of keras's RNN documentation."""

    def __init__(self, units, **kwargs):
        self.units = units
        self.state_size = units
        super().__init__(**kwargs)

    def build(self, input_shape):
        self.kernel = self.add_weight(shape=(input_shape[-1], self.units),
                                      initializer="uniform", name="kernel")
        self.recurrent_kernel = self.add_weight(shape=(self.units, self.units),
                                                initializer="uniform",
                                                name="recurrent_kernel")
        self.built = True

    def call(self, inputs, states):
        output = K.dot(inputs, self.kernel) + K.dot(states[0], self.recurrent_kernel)
        return output, [output]


# (the RNN; TF's weight names after the RNN's scope, shapes, the output shape, the
# first sample's prediction through Flatten + Dense(2), the mse of 2 SGD(0.1) steps)
_CELLS = [
    ("L.RNN(L.SimpleRNNCell(3))", ["simple_rnn_cell/kernel:0 2,3",
                                   "simple_rnn_cell/recurrent_kernel:0 3,3",
                                   "simple_rnn_cell/bias:0 3"],
     (None, 3), [-0.285533, -0.573825], [2.023939, 1.3665013]),
    ("L.RNN(L.LSTMCell(3), return_sequences=True)",
     ["lstm_cell/kernel:0 2,12", "lstm_cell/recurrent_kernel:0 3,12",
      "lstm_cell/bias:0 12"], (None, 4, 3), [-0.643854, -0.732121],
     [1.5975448, 1.2661154]),
    ("L.RNN(L.GRUCell(3), go_backwards=True)",
     ["gru_cell/kernel:0 2,9", "gru_cell/recurrent_kernel:0 3,9", "gru_cell/bias:0 9"],
     (None, 3), [-0.383376, -0.310844], [1.3880674, 1.0788878]),
    ("L.RNN(L.StackedRNNCells([L.LSTMCell(3), L.GRUCell(2)]))",
     ["stacked_rnn_cells/lstm_cell/kernel:0 2,12",
      "stacked_rnn_cells/lstm_cell/recurrent_kernel:0 3,12",
      "stacked_rnn_cells/lstm_cell/bias:0 12", "stacked_rnn_cells/gru_cell/kernel:0 3,6",
      "stacked_rnn_cells/gru_cell/recurrent_kernel:0 2,6",
      "stacked_rnn_cells/gru_cell/bias:0 6"], (None, 2), [0.436619, 0.765259],
     [0.25139758, 0.24335419]),
    ("L.RNN([L.SimpleRNNCell(3), L.LSTMCell(2)], return_sequences=True)",
     ["stacked_rnn_cells/simple_rnn_cell/kernel:0 2,3",
      "stacked_rnn_cells/simple_rnn_cell/recurrent_kernel:0 3,3",
      "stacked_rnn_cells/simple_rnn_cell/bias:0 3",
      "stacked_rnn_cells/lstm_cell/kernel:0 3,8",
      "stacked_rnn_cells/lstm_cell/recurrent_kernel:0 2,8",
      "stacked_rnn_cells/lstm_cell/bias:0 8"], (None, 4, 2), [0.403745, 0.467483],
     [0.2608287, 0.24755938]),
    ("L.RNN(MinimalRNNCell(3))", ["minimal_rnn_cell/kernel:0 2,3",
                                  "minimal_rnn_cell/recurrent_kernel:0 3,3"],
     (None, 3), [-0.079101, -0.047923], [1.229504, 0.8990528]),
    ("L.RNN([MinimalRNNCell(3), MinimalRNNCell(2)])",
     ["stacked_rnn_cells/minimal_rnn_cell/kernel:0 2,3",
      "stacked_rnn_cells/minimal_rnn_cell/recurrent_kernel:0 3,3",
      "stacked_rnn_cells/minimal_rnn_cell_1/kernel:0 3,2",
      "stacked_rnn_cells/minimal_rnn_cell_1/recurrent_kernel:0 2,2"], (None, 2),
     [-0.967423, -0.505842], [1.3934742, 0.96717834]),
]


@pytest.mark.parametrize("make, names, shape, first, losses", _CELLS)
def test_rnn_layer_runs_cells_as_tf(make, names, shape, first, losses):
    with tf.Graph().as_default():
        model = keras.Sequential([L.InputLayer(input_shape=(4, 2)), eval(make),
                                  L.Flatten(), L.Dense(2)])
        model.compile(keras.optimizers.SGD(0.1), "mse")
        _fill(model)
        assert [f"{w.name} {','.join(map(str, w.shape.as_list()))}"
                for w in model.weights[:-2]] == ["rnn/" + n for n in names]
        assert model.layers[0].output_shape == shape
        np.testing.assert_allclose(model.predict(_X)[0], first, atol=2e-6)
        got = [model.train_on_batch(_X, _Y) for _ in range(2)]
        np.testing.assert_allclose(got, losses, rtol=2e-6)


def test_rnn_cells_states_masks_and_bidirectional_as_tf():
    with tf.Graph().as_default():   # (the states nested as the stack's state_size)
        inp = keras.Input(shape=(4, 2))
        out, gru, (h, c) = L.RNN([L.GRUCell(2), L.LSTMCell(2)], return_state=True,
                                 return_sequences=True)(inp)
        assert [t.shape.as_list() for t in (out, gru, h, c)] == [
            [None, 4, 2], [None, 2], [None, 2], [None, 2]]
        model = keras.Model(inp, [out, gru, h, c])
        _fill(model)
        got = model.predict(_X)
        np.testing.assert_allclose(got[0][2, 0], [0.097186, 0.076283], atol=2e-6)
        np.testing.assert_allclose(got[1][:, 0], [-0.279487, -0.101537, -0.372378],
                                   atol=2e-6)
        np.testing.assert_allclose(got[2], got[0][:, -1])
        np.testing.assert_allclose(got[3][:, 1], [0.432317, 0.424713, 0.464677],
                                   atol=2e-6)
    with tf.Graph().as_default():
        model = keras.Sequential([L.Masking(input_shape=(4, 2)),
                                  L.RNN(L.LSTMCell(2), return_sequences=True)])
        _fill(model)
        np.testing.assert_allclose(model.predict(_X)[2], [[0.018704, -0.078615]] + [
            [-0.168017, -0.228274]] * 3, atol=2e-6)
    with tf.Graph().as_default():
        inp, h0 = keras.Input(shape=(4, 2)), keras.Input(shape=(3,))
        model = keras.Model([inp, h0], L.RNN(L.SimpleRNNCell(3))(inp, initial_state=[h0]))
        _fill(model)
        np.testing.assert_allclose(model.predict([_X, np.ones((3, 3), np.float32)])[0],
                                   [0.223734, -0.031141, -0.268489], atol=2e-6)
    with tf.Graph().as_default():
        model = keras.Sequential([L.Bidirectional(L.RNN(L.GRUCell(2),
                                                        return_sequences=True),
                                                  input_shape=(4, 2))])
        _fill(model)
        assert [w.name for w in model.weights][::3] == [
            "bidirectional/forward_rnn/gru_cell/kernel:0",
            "bidirectional/backward_rnn/gru_cell/kernel:0"]
        np.testing.assert_allclose(model.predict(_X)[1, 0], [-0.188421, -0.154934,
                                                             0.272546, 0.231662], atol=2e-6)
    with tf.Graph().as_default():   # (go_backwards: the outputs in the order read)
        model = keras.Sequential([L.TimeDistributed(L.Dense(2), input_shape=(4, 2)),
                                  L.RNN(L.LSTMCell(2), go_backwards=True,
                                        return_sequences=True)])
        _fill(model)
        np.testing.assert_allclose(model.predict(_X)[0, 3], [-0.260789, -0.245452],
                                   atol=2e-6)
        grad = tf.gradients(model.output, model.input)[0]
        np.testing.assert_allclose(K.get_session().run(grad, {model.input: _X})[0], [
            [-0.041452, -0.130238], [-0.092073, -0.257073], [-0.110741, -0.310272],
            [-0.114579, -0.325106]], atol=2e-6)


def test_cells_called_directly_names_and_refusals_as_tf():
    with tf.Graph().as_default():
        layer, cell, gru, gru_cell = L.LSTM(2), L.LSTMCell(2), L.GRU(2), L.GRUCell(2)
        # (the layers' cells take no name of their own, as in TF1 keras)
        assert (layer.cell.name, cell.name, gru.cell.name, gru_cell.name,
                L.LSTMCell(2).name) == ("lstm_cell", "lstm_cell", "gru_cell", "gru_cell",
                                        "lstm_cell_1")
        x = tf.placeholder(tf.float32, [None, 2])
        out, (h, c) = cell(x, [tf.zeros([3, 2]), tf.ones([3, 2])])
        assert list(cell.state_size) == [2, 2] and out.name == "lstm_cell/mul_5:0"
        assert [w.name for w in cell.weights] == [
            "lstm_cell/kernel:0", "lstm_cell/recurrent_kernel:0", "lstm_cell/bias:0"]
        for bad in (3, object()):
            with pytest.raises(ValueError, match="Argument `cell` should have a `call`"):
                L.RNN(bad)
        with pytest.raises(TypeError, match="dynamic_rnn"):   # (TF cells: not here)
            L.RNN(tf.nn.rnn_cell.LSTMCell(2))


_IMAGES = np.sin(np.arange(2 * 2 * 6 * 6)).reshape(2, 2, 6, 6).astype(np.float32)

# (the layers on [N, C, H, W]; TF's output shapes, predictions and 2 SGD losses)
_CHANNELS_FIRST = [
    ("[L.Conv2D(3, 3, data_format='channels_first', input_shape=(2, 6, 6), "
     "activation='relu'), L.MaxPooling2D(2, data_format='channels_first'), "
     "L.Flatten(data_format='channels_first'), L.Dense(2)]",
     [(None, 3, 4, 4), (None, 3, 2, 2), (None, 12), (None, 2)],
     [[-0.441204, -1.689055], [0.221703, -0.421392]], [1.7498705, 0.92979205]),
    ("[L.Conv2D(3, (3, 2), strides=2, padding='same', data_format='channels_first', "
     "input_shape=(2, 6, 6)), L.AveragePooling2D((2, 1), data_format='channels_first', "
     "padding='same'), L.Flatten(), L.Dense(2)]",
     [(None, 3, 3, 3), (None, 3, 2, 3), (None, 18), (None, 2)],
     [[-1.03539, -1.353949], [1.069126, 0.436409]], [1.8591645, 1.1795981]),
    # (keras's Flatten moves the channels last before flattening)
    ("[L.Flatten(data_format='channels_first', input_shape=(2, 6, 6)), L.Dense(2)]",
     [(None, 72), (None, 2)], [[0.101524, 0.325668], [0.764362, 0.739058]],
     [0.39141446, 0.16475545]),
    ("[L.Conv2D(2, 1, data_format='channels_first', input_shape=(2, 6, 6)), "
     "L.GlobalAveragePooling2D(data_format='channels_first'), L.Dense(2)]",
     [(None, 2, 6, 6), (None, 2), (None, 2)],
     [[0.197429, -0.383758], [0.201481, -0.37265]], [0.6790384, 0.66427547]),
]


@pytest.mark.parametrize("layers, shapes, predicted, losses", _CHANNELS_FIRST)
def test_channels_first_images_as_tf(layers, shapes, predicted, losses):
    with tf.Graph().as_default():
        model = keras.Sequential(eval(layers))
        model.compile("sgd", "mse")
        _fill(model)
        assert [layer.output_shape for layer in model.layers] == shapes
        np.testing.assert_allclose(model.predict(_IMAGES), predicted, atol=3e-6)
        got = [model.train_on_batch(_IMAGES, np.eye(2, dtype=np.float32))
               for _ in range(2)]
        np.testing.assert_allclose(got, losses, rtol=1e-6)


# (keras: `epsilon or backend.epsilon()`, so 0 means 1e-7 too; the losses of 3 steps)
_EPSILON_ZERO = [
    ("Adam(0.1, epsilon=0)", [0.12987973, 0.039303206, 0.046024088], [-0.289643, 0.516764]),
    ("RMSprop(0.1, epsilon=0)", [0.12987973, 0.3049957, 0.17690541], [-0.413032, 0.520785]),
    ("Adagrad(0.1, epsilon=0)", [0.12987973, 0.05341864, 0.040069386],
     [-0.119462, 0.441007]),
    ("Nadam(0.1, epsilon=0)", [0.12987973, 0.038214836, 0.02169354], [-0.262814, 0.455]),
]


@pytest.mark.parametrize("make, losses, kernel", _EPSILON_ZERO)
def test_optimizer_epsilon_zero_is_the_backend_epsilon(make, losses, kernel):
    with tf.Graph().as_default():
        model = keras.Sequential([L.Dense(1, input_shape=(2,))])
        optimizer = eval("keras.optimizers." + make)
        assert optimizer.epsilon == 1e-7
        model.compile(optimizer, "mse")
        _fill(model)
        x = np.array([[1., 2.], [0.5, -1.], [0., 3.]], np.float32)
        y = np.array([[1.], [0.], [2.]], np.float32)
        got = [model.train_on_batch(x, y) for _ in range(3)]
        np.testing.assert_allclose(got, losses, rtol=1e-6)
        np.testing.assert_allclose(model.get_weights()[0].ravel(), kernel, atol=2e-6)


def test_channels_first_resizing_and_1d_layers_as_tf():
    images = np.sin(np.arange(2 * 2 * 4 * 5)).reshape(2, 2, 4, 5).astype(np.float32)
    cases = [("L.UpSampling2D((2, 1), data_format='channels_first')", [None, 2, 8, 5],
              [[0.17055, 2.13564], [1.57248, -0.85224]]),
             ("L.ZeroPadding2D(((1, 0), (0, 2)), data_format='channels_first')",
              [None, 2, 5, 7], [[0.08528, 1.06782], [0.78624, -0.42612]]),
             ("L.Cropping2D(((1, 0), (2, 1)), data_format='channels_first')",
              [None, 2, 3, 2], [[-0.18245, 2.43145], [2.16691, -0.6629]])]
    for make, shape, sums in cases:
        with tf.Graph().as_default():
            x = tf.placeholder(tf.float32, [None, 2, 4, 5])
            y = eval(make)(x)
            assert y.shape.as_list() == shape
            got = K.get_session().run(y, {x: images}).sum(axis=(2, 3))
            np.testing.assert_allclose(got, sums, atol=2e-5)
    with tf.Graph().as_default():
        model = keras.Sequential([
            L.Conv1D(2, 3, data_format="channels_first", input_shape=(3, 6)),
            L.MaxPooling1D(2, data_format="channels_first"),
            L.GlobalAveragePooling1D(data_format="channels_first")])
        _fill(model)
        assert [layer.output_shape for layer in model.layers] == [(None, 2, 4), (None, 2, 2),
                                                                   (None, 2)]
        steps = np.sin(np.arange(2 * 3 * 6)).reshape(2, 3, 6).astype(np.float32)
        np.testing.assert_allclose(model.predict(steps), [[0.74097, 1.08652],
                                                          [0.37721, 0.67601]], atol=2e-5)


# (the layers; TF's weight shapes, output shapes, predictions, 2 SGD(0.05) losses and
# the first numbers of the gradient of sum(output²) with respect to the input)
_LOCAL = [
    ("[L.LocallyConnected2D(3, (2, 3), strides=(1, 2), activation='relu', "
     "input_shape=(5, 6, 2)), L.Flatten(), L.Dense(2)]", (2, 5, 6, 2),
     [[8, 12, 3], [4, 2, 3], [24, 2], [2]], [(None, 4, 2, 3), (None, 24), (None, 2)],
     [[0.088221, -0.760458], [-0.050237, -1.005475]], [1.3585229, 0.39023328],
     [-0.141901, 0.298569, -0.171366, -0.111468, 0.32261, -0.154408]),
    # (channels first: keras adds the bias reshaped to [filters, rows, cols])
    ("[L.LocallyConnected2D(2, 2, data_format='channels_first', input_shape=(5, 6, 2)), "
     "L.Flatten(), L.Dense(2)]", (2, 5, 6, 2), [[5, 20, 2], [5, 1, 2], [10, 2], [2]],
     [(None, 2, 5, 1), (None, 10), (None, 2)],
     [[-0.126064, -0.603702], [0.248682, -0.42955]], [0.9344826, 0.3593493],
     [0.040887, 0.344546, 0.187164, 0.178459, 0.243868, -0.856589]),
    ("[L.LocallyConnected1D(4, 3, strides=2, input_shape=(7, 3)), "
     "L.LocallyConnected1D(2, 2, use_bias=False), L.Flatten(), L.Dense(2)]", (2, 7, 3),
     [[3, 9, 4], [3, 4], [2, 8, 2], [4, 2], [2]],
     [(None, 3, 4), (None, 2, 2), (None, 4), (None, 2)],
     [[-0.334005, -0.450442], [-0.332045, -0.448001]], [1.0473571, 0.72421527],
     [-0.006683, 0.00289, -0.000481, -0.005215, 0.005853, -0.011095]),
]


@pytest.mark.parametrize("layers, shape, weights, shapes, predicted, losses, grad", _LOCAL)
def test_locally_connected_as_tf(layers, shape, weights, shapes, predicted, losses, grad):
    x = np.sin(np.arange(np.prod(shape)) * 0.3).reshape(shape).astype(np.float32)
    with tf.Graph().as_default():
        model = keras.Sequential(eval(layers))
        model.compile(keras.optimizers.SGD(0.05), "mse")
        _fill(model)
        assert [w.shape.as_list() for w in model.weights] == weights
        assert [layer.output_shape for layer in model.layers] == shapes
        assert model.weights[0].name.endswith("/kernel:0")
        np.testing.assert_allclose(model.predict(x), predicted, atol=2e-6)
        got = [model.train_on_batch(x, np.eye(2, dtype=np.float32)) for _ in range(2)]
        np.testing.assert_allclose(got, losses, rtol=1e-6)
        g = tf.gradients(tf.reduce_sum(model.output ** 2), model.input)[0]   # (trained)
        np.testing.assert_allclose(K.get_session().run(g, {model.input: x}).ravel()[:6],
                                   grad, atol=2e-6)


def test_locally_connected_refusals():
    x = tf.placeholder(tf.float32, [None, 5, 6, 2])
    with pytest.raises(ValueError, match='only "valid" is supported'):
        L.LocallyConnected2D(2, 2, padding="same")(x)
    with pytest.raises(ValueError, match="implementation=1"):
        L.LocallyConnected2D(2, 2, implementation=2)


# (the optimizer; TF's losses of 4 train_on_batch steps alternating two batches of
# Embedding ids, and embeddings[2:5] after: keras's sparse updates decay every row's
# moments, and Adam moves every row)
_SPARSE = [
    ("Adam(0.05)", [0.1513208, 0.34150022, 0.0134048965, 0.14964662],
     [0.02567786, -0.33287847, -0.2803897, -0.3283605, -0.1944028, 0.12927113]),
    ("Adam(0.05, amsgrad=True)", [0.1513208, 0.34150022, 0.01340764, 0.14965372],
     [0.02570668, -0.33284453, -0.2804028, -0.32835898, -0.19442134, 0.12925293]),
    ("RMSprop(0.05)", [0.1513208, 0.6355152, 0.022592615, 0.04765619],
     [0.01346701, -0.24993218, -0.148542, -0.2677606, -0.29666504, 0.02722743]),
    ("RMSprop(0.05, centered=True)", [0.1513208, 0.66855997, 0.027700435, 0.04600103],
     [0.01614637, -0.19565473, -0.1442456, -0.26762158, -0.29222515, 0.0312365]),
    ("RMSprop(0.05, momentum=0.5)", [0.1513208, 0.6355224, 0.091691405, 0.12594151],
     [-0.02326417, -0.25389457, 0.04014957, -0.1626077, -0.22347, 0.09670702]),
    ("Nadam(0.05)", [0.1513208, 0.34646505, 0.04503168, 0.16366453],
     [0.09084632, -0.28225568, -0.29702356, -0.3504731, -0.26615092, 0.05803768]),
    ("Adamax(0.05)", [0.1513208, 0.34149998, 0.020506898, 0.19782919],
     [0.0957678, -0.25270858, -0.31771347, -0.3645994, -0.24457537, 0.07971154]),
]


@pytest.mark.parametrize("make, losses, rows", _SPARSE)
def test_keras_optimizers_on_embedding_gradients_as_tf(make, losses, rows):
    ids = np.array([[0, 0, 3, 4], [1, 2, 0, 5], [6, 0, 0, 0], [3, 3, 1, 0]])
    y = np.array([[1.], [0.], [1.], [0.]], np.float32)
    with tf.Graph().as_default():
        model = keras.Sequential([L.Embedding(7, 2, input_length=4), L.Flatten(),
                                  L.Dense(1)])
        model.compile(eval("keras.optimizers." + make), "mse")
        _fill(model)
        got = [model.train_on_batch(ids[r], y[r]) for r in [slice(0, 2), slice(2, 4)] * 2]
        np.testing.assert_allclose(got, losses, rtol=2e-6)
        np.testing.assert_allclose(model.get_weights()[0].ravel()[4:10], rows, atol=2e-7)


def test_temporal_sample_weights_and_more_masks_as_tf():
    ids = np.array([[0, 0, 3, 4], [1, 2, 0, 5], [6, 0, 0, 0], [3, 3, 1, 0]])
    tags = np.array([[0, 0, 1, 2], [1, 1, 0, 2], [2, 0, 0, 0], [1, 2, 1, 0]])[..., None]
    weights = np.array([[1., 2., 0.5, 1.], [1., 1., 1., 0.], [2., 2., 2., 2.],
                        [0., 1., 3., 1.]], np.float32)
    with tf.Graph().as_default():   # (sample_weight_mode="temporal": per step)
        model = keras.Sequential([L.Embedding(7, 3, input_length=4),
                                  L.GRU(4, return_sequences=True),
                                  L.TimeDistributed(L.Dense(3, activation="softmax"))])
        model.compile(keras.optimizers.Adam(0.05), "sparse_categorical_crossentropy",
                      sample_weight_mode="temporal", metrics=["acc"])
        _fill(model)
        h = model.fit(ids, tags, sample_weight=weights, batch_size=2, epochs=2, verbose=0,
                      shuffle=False)
        np.testing.assert_allclose(h.history["loss"], [1.528645, 1.323048], rtol=2e-6)
        assert model.evaluate(ids, tags, sample_weight=weights, verbose=0) == \
            pytest.approx([1.2099494, 0.4375], rel=2e-6)
        with pytest.raises(ValueError, match="per sample and step"):
            model.train_on_batch(ids, tags, sample_weight=np.ones(4))
    with tf.Graph().as_default():   # (with a mask: the weights times the kept steps)
        model = keras.Sequential([L.Masking(input_shape=(4, 2)),
                                  L.SimpleRNN(3, return_sequences=True),
                                  L.TimeDistributed(L.Dense(1))])
        model.compile("sgd", "mse", sample_weight_mode="temporal")
        _fill(model)
        got = [model.train_on_batch(_X, np.ones((3, 4, 1), np.float32),
                                    sample_weight=weights[:3]) for _ in range(2)]
        np.testing.assert_allclose(got, [2.8138745, 2.5500252], rtol=2e-6)
    with tf.Graph().as_default():   # (a number of steps known only when run)
        model = keras.Sequential([L.Embedding(7, 3, mask_zero=True), L.Dropout(0.5),
                                  L.GRU(2, return_sequences=True), L.Dense(1)])
        _fill(model)
        np.testing.assert_allclose(model.predict(_IDS)[..., 0], [
            [-0.479462, -0.479462, -0.533362, -0.448879],
            [-0.417056, -0.435624, -0.435624, -0.448036], [-0.53286] * 4], atol=2e-6)
    with tf.Graph().as_default():   # (a model called on new inputs passes masks on)
        inp = keras.Input(shape=(4,))
        encoder = keras.Model(inp, L.LSTM(2)(L.Embedding(7, 3, mask_zero=True)(inp)))
        a, b = keras.Input(shape=(4,)), keras.Input(shape=(4,))
        model = keras.Model([a, b], L.Dot(axes=1)([encoder(a), encoder(b)]))
        _fill(model)
        np.testing.assert_allclose(model.predict([_IDS, _IDS[::-1]]).ravel(),
                                   [0.002359, 0.026526, 0.002359], atol=2e-6)


def test_image_data_format_set_for_the_backend_as_tf():
    images = np.sin(np.arange(2 * 2 * 6 * 6)).reshape(2, 2, 6, 6).astype(np.float32)
    K.set_image_data_format("channels_first")
    try:
        with tf.Graph().as_default():
            model = keras.Sequential([L.Conv2D(2, 3, input_shape=(2, 6, 6)),
                                      L.MaxPooling2D(), L.Flatten(), L.Dense(1)])
            _fill(model)
            assert [layer.output_shape for layer in model.layers] == [
                (None, 2, 4, 4), (None, 2, 2, 2), (None, 8), (None, 1)]
            np.testing.assert_allclose(model.predict(images).ravel(), [-0.16185, -0.22485],
                                       atol=1e-5)
    finally:
        K.set_image_data_format("channels_last")
    with pytest.raises(ValueError, match="channels_last"):
        K.set_image_data_format("NCHW")


def test_stateful_recurrent_layers_carry_states_as_tf():
    x = np.sin(np.arange(2 * 3 * 1) * 0.9).reshape(2, 3, 1).astype(np.float32)
    y = np.array([[0.5], [-0.5]], np.float32)
    with tf.Graph().as_default():
        model = keras.Sequential([L.LSTM(3, stateful=True, batch_input_shape=(2, 3, 1)),
                                  L.Dense(1)])
        model.compile(keras.optimizers.SGD(0.1), "mse")
        _fill(model)
        assert len(model.weights) == 5 and [v.name for v in model.layers[0].states] == [
            "lstm/Variable:0", "lstm/Variable_1:0"]
        first = [-0.412936, -0.480416]
        np.testing.assert_allclose(model.predict(x, batch_size=2).ravel(), first, atol=2e-6)
        np.testing.assert_allclose(model.predict(x, batch_size=2).ravel(),
                                   [-0.409826, -0.487994], atol=2e-6)
        model.reset_states()
        np.testing.assert_allclose(model.predict(x, batch_size=2).ravel(), first, atol=2e-6)
        got = [model.train_on_batch(x, y) for _ in range(3)]
        np.testing.assert_allclose(got, [0.4139635, 0.3282813, 0.27207485], rtol=2e-6)
        model.layers[0].reset_states()
        got = [model.evaluate(x, y, batch_size=2, verbose=0) for _ in range(2)]
        np.testing.assert_allclose(got, [0.24089177, 0.23460838], rtol=2e-6)
        h = model.fit(x, y, batch_size=2, epochs=2, shuffle=False, verbose=0)
        np.testing.assert_allclose(h.history["loss"], [0.2338687926530838,
                                                       0.20846036076545715], rtol=2e-6)
    with tf.Graph().as_default():
        model = keras.Sequential([L.GRU(2, stateful=True, return_sequences=True,
                                        batch_input_shape=(2, 3, 1)),
                                  L.SimpleRNN(2, stateful=True)])
        _fill(model)
        got = [model.predict(x, batch_size=2).ravel() for _ in range(2)]
        np.testing.assert_allclose(got, [[-0.31334, 0.030847, -0.375776, 0.005424],
                                         [-0.238878, 0.138518, -0.313365, 0.106318]],
                                   atol=2e-6)
    with tf.Graph().as_default():
        model = keras.Sequential([L.RNN(L.LSTMCell(2), stateful=True,
                                        batch_input_shape=(2, 3, 1))])
        _fill(model)
        got = [model.predict(x, batch_size=2).ravel() for _ in range(2)]
        model.layers[0].reset_states([np.ones((2, 2)), np.zeros((2, 2))])
        got.append(model.predict(x, batch_size=2).ravel())
        np.testing.assert_allclose(got, [[-0.143197, -0.171447, -0.251764, -0.053357],
                                         [-0.152849, -0.170884, -0.259512, -0.043948],
                                         [-0.162603, -0.196868, -0.263641, -0.067946]],
                                   atol=2e-6)
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="needs to know its batch size"):
            keras.Sequential([L.LSTM(2, stateful=True, input_shape=(3, 1))])
        with pytest.raises(AttributeError, match="Layer must be stateful"):
            L.SimpleRNN(2).reset_states()


def test_masked_seq2seq_weights_in_keras_order_as_tf():
    # lstm_seq2seq.py with Embedding(mask_zero=True) on both sides: the encoder's states
    # start the masked decoder; the weights follow model.layers (depth from the
    # outputs), where the calls' order put the decoder's embedding first
    src = np.array([[0, 0, 3, 4], [1, 2, 0, 5], [6, 0, 0, 0]])
    tgt_in = np.array([[1, 2, 3, 0], [1, 4, 0, 0], [1, 5, 6, 2]])
    tgt_out = np.array([[2, 3, 0, 0], [4, 0, 0, 0], [5, 6, 2, 0]])[..., None]
    with tf.Graph().as_default():
        enc_in, dec_in = keras.Input(shape=(None,)), keras.Input(shape=(None,))
        _, h, c = L.LSTM(4, return_state=True)(L.Embedding(7, 3, mask_zero=True)(enc_in))
        d = L.Embedding(7, 3, mask_zero=True)(dec_in)
        seq, _, _ = L.LSTM(4, return_sequences=True, return_state=True)(
            d, initial_state=[h, c])
        model = keras.Model([enc_in, dec_in], L.Dense(7, activation="softmax")(seq))
        model.compile(keras.optimizers.RMSprop(0.01), "sparse_categorical_crossentropy",
                      metrics=["acc"])
        assert [w.name for w in model.weights][:3] == [
            "embedding/embeddings:0", "embedding_1/embeddings:0", "lstm/lstm_cell/kernel:0"]
        _fill(model)
        np.testing.assert_allclose(model.predict([src, tgt_in])[:, :, 2], [
            [0.100502, 0.107725, 0.107059, 0.107059],
            [0.098837, 0.101334, 0.101334, 0.101334],
            [0.100734, 0.107737, 0.107065, 0.109597]], atol=2e-6)
        h = model.fit([src, tgt_in], tgt_out, batch_size=3, epochs=3, verbose=0)
        np.testing.assert_allclose(h.history["loss"], [1.942394, 1.901798, 1.873002],
                                   rtol=2e-6)
        np.testing.assert_allclose(h.history["acc"], [1 / 9, 3 / 9, 2 / 9], rtol=1e-6)


def test_masked_reset_after_gru_into_unrolled_rnn_as_tf():
    with tf.Graph().as_default():
        model = keras.Sequential([
            L.Embedding(7, 3, mask_zero=True, input_length=4),
            L.GRU(2, reset_after=True, recurrent_activation="sigmoid", return_sequences=True),
            L.RNN(L.SimpleRNNCell(2), unroll=True)])
        _fill(model)
        np.testing.assert_allclose(model.predict(_IDS), [[0.035029, 0.407173],
                                                         [0.005539, 0.45521],
                                                         [-0.117043, 0.24861]], atol=2e-6)


# (the keras cell; TF's weight names, the last step's outputs and the gradient of their
# sum at the first step of sample 0)
_DYNAMIC = [
    ("L.LSTMCell(2)", ["rnn/while/lstm_cell/" + n for n in
                       ("kernel:0", "recurrent_kernel:0", "bias:0")],
     [[-0.394607, -0.217921], [-0.385635, -0.255204]], [-0.013941, 0.194527, 0.315678]),
    ("L.GRUCell(2)", ["rnn/while/gru_cell/" + n for n in
                      ("kernel:0", "recurrent_kernel:0", "bias:0")],
     [[-0.371697, -0.305846], [-0.352511, -0.295186]], [-0.057112, 0.431829, -0.366306]),
    ("L.StackedRNNCells([L.LSTMCell(2), L.GRUCell(3)])",
     ["rnn/while/stacked_rnn_cells/" + c + n for c in ("lstm_cell/", "gru_cell/")
      for n in ("kernel:0", "recurrent_kernel:0", "bias:0")],
     [[-0.20036, -0.424645, -0.46042], [-0.196162, -0.420961, -0.457769]],
     [-0.015918, 0.241262, 0.390148]),
]


@pytest.mark.parametrize("make, names, last, grad", _DYNAMIC)
def test_keras_cells_in_dynamic_rnn_as_tf(make, names, last, grad):
    # TF 1.15 told users that tf.nn.rnn_cell.LSTMCell "will be replaced by"
    # tf.keras.layers.LSTMCell: tf.nn.dynamic_rnn runs keras cells too
    x_value = np.sin(np.arange(2 * 4 * 3) * 0.5).reshape(2, 4, 3).astype(np.float32)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 4, 3])
        out, state = tf.nn.dynamic_rnn(eval(make), x, dtype=tf.float32)
        assert [v.name for v in tf.global_variables()] == names
        if make == "L.GRUCell(2)":   # (a single state is a tensor, as TF's)
            assert state.shape.as_list() == [None, 2]
        grad_t = tf.gradients(tf.reduce_sum(out), x)[0]
        with tf.Session() as sess:
            sess.run([v.assign((np.sin(np.arange(np.prod(v.shape.as_list())) * 0.7 + i)
                                * 0.5).reshape(v.shape.as_list()))
                      for i, v in enumerate(tf.global_variables())])
            got, g = sess.run([out, grad_t], {x: x_value})
        np.testing.assert_allclose(got[:, -1], last, atol=2e-6)
        np.testing.assert_allclose(g[0, 0], grad, atol=2e-6)


@pytest.mark.parametrize("make", [
    "L.RNN(L.LSTMCell(2), time_major=True, return_sequences=True)",
    "L.LSTM(2, time_major=True, return_sequences=True)"])
def test_masks_of_time_major_inputs_as_tf(make):
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [4, None, 2])
        layer = eval(make)
        y = layer(L.Masking()(x))
        sess = K.get_session()
        sess.run([v.assign((np.sin(np.arange(np.prod(v.shape.as_list())) * 0.7 + i) * 0.5)
                           .reshape(v.shape.as_list())) for i, v in enumerate(layer.weights)])
        got = sess.run(y, {x: _X.transpose(1, 0, 2)})
    np.testing.assert_allclose(got.ravel()[:12], [
        0.072795, -0.0355, 0, 0, 0.018704, -0.078615, 0.072795, -0.0355, 0.002815,
        -0.065871, -0.168017, -0.228274], atol=2e-6)


class _ContextCell(L.Layer):
    """A cell reading ``constants`` (keras's attention decoders)."""

    def __init__(self, units, **kwargs):
        self.units, self.state_size = units, units
        super().__init__(**kwargs)

    def build(self, input_shape):
        self.k = self.add_weight(name="k", shape=(input_shape[-1], self.units),
                                 initializer="ones")
        self.built = True

    def call(self, inputs, states, constants):
        h = K.tanh(K.dot(inputs, self.k) + states[0] + K.mean(constants[0], axis=1))
        return h, [h]


def test_rnn_hands_constants_to_the_cell_as_tf():
    with tf.Graph().as_default():
        x, c = keras.Input(shape=(3, 2)), keras.Input(shape=(5, 3))
        model = keras.Model([x, c], L.RNN(_ContextCell(3))(x, constants=c))
        assert model.count_params() == 6
        got = model.predict([np.sin(np.arange(12)).reshape(2, 3, 2).astype(np.float32),
                             np.cos(np.arange(30)).reshape(2, 5, 3).astype(np.float32)])
        np.testing.assert_allclose(got, [[-0.516093, -0.546852, -0.668664],
                                         [-0.623423, -0.689276, -0.621179]], atol=2e-6)


# (the layer; TF's losses of 3 SGD(0.5) steps, the kernel's and recurrent kernel's
# first numbers after)
_RNN_CONSTRAINTS = [
    ("L.LSTM(2, kernel_constraint=keras.constraints.max_norm(0.5), "
     "recurrent_constraint='non_neg', bias_constraint=keras.constraints.unit_norm())",
     [1.1328185, 1.0056503, 1.0022604], [0.000487, 0.317047, 0.415691, 0.325793],
     [0.420893, 0.495494, 0.33776, 0.020167]),
    ("L.RNN(L.GRUCell(2, kernel_constraint='non_neg'))",
     [1.0987643, 1.0053278, 0.9948514], [0.000125, 0.324104, 0.493926, 0.430897],
     [0.420145, 0.497525, 0.337766, 0.020746]),
]


@pytest.mark.parametrize("make, losses, kernel, recurrent", _RNN_CONSTRAINTS)
def test_recurrent_constraints_apply_after_each_step_as_tf(make, losses, kernel, recurrent):
    x = np.sin(np.arange(12)).reshape(2, 3, 2).astype(np.float32)
    with tf.Graph().as_default():
        model = keras.Sequential([L.InputLayer(input_shape=(3, 2)), eval(make), L.Dense(1)])
        model.compile(keras.optimizers.SGD(0.5), "mse")
        _fill(model)
        got = [model.train_on_batch(x, np.array([[1.], [-1.]], np.float32))
               for _ in range(3)]
        np.testing.assert_allclose(got, losses, rtol=2e-6)
        np.testing.assert_allclose(model.get_weights()[0].ravel()[:4], kernel, atol=2e-6)
        np.testing.assert_allclose(model.get_weights()[1].ravel()[:4], recurrent, atol=2e-6)
