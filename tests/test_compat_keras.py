"""tf.keras inside a TF1 Session (compat.keras*): TF1 programs as tutorials write them,
run with only the import changed.  Names, collections and numbers are what real
TensorFlow (2.21, tf_keras, graph mode via tf.compat.v1) printed for the same program,
written here as literals; weights are constants or assigned so numbers compare."""
import numpy as np
import pytest

from .tf1_programs import run_tf1


def test_layer_names_collections_and_weights_as_tf1_keras():
    ns = run_tf1("""
        import numpy as np
        import tensorflow as tf
        x = tf.placeholder(tf.float32, [None, 4])
        d = tf.keras.layers.Dense(3, activation='relu')
        y = d(x)
        y2 = d(x)                      # the same weights; a second name scope, dense_1
        d2 = tf.keras.layers.Dense(2, kernel_regularizer=tf.keras.regularizers.l2(0.01))
        z = d2(y)
        with tf.variable_scope("foo"):
            w = tf.keras.layers.Dense(2)(x)
        with tf.name_scope("bar"):
            w2 = tf.keras.layers.Dense(2)(x)
        names = [v.name for v in tf.global_variables()]
        trainable = [v.name for v in tf.trainable_variables()]
        layer_names = (d.name, d2.name, d.kernel.name, [v.name for v in d.weights])
        reg = ([l.name for l in d2.losses], tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES))
        bn = tf.keras.layers.BatchNormalization()
        b = bn(y)
        bn_names = ([v.name for v in bn.weights], [v.name for v in bn.trainable_weights],
                    len(bn.updates), tf.get_collection(tf.GraphKeys.UPDATE_OPS))
        phase = tf.keras.backend.learning_phase().name
        with tf.Session() as sess:
            same = tf.keras.backend.get_session() is sess
            sess.run(tf.global_variables_initializer())
            shapes = [a.shape for a in d.get_weights()]
            d2.set_weights([np.ones((3, 2)), np.zeros(2)])
            k2 = sess.run(d2.kernel)
    """)
    assert ns["names"] == ns["trainable"] == [
        "dense/kernel:0", "dense/bias:0", "dense_1_1/kernel:0", "dense_1_1/bias:0",
        "foo/dense_2/kernel:0", "foo/dense_2/bias:0", "bar/dense_3/kernel:0",
        "bar/dense_3/bias:0"]
    assert ns["layer_names"] == ("dense", "dense_1", "dense/kernel:0",
                                 ["dense/kernel:0", "dense/bias:0"])
    # (op names inside differ: symgrad names a relu "relu", TF "Relu")
    assert ns["y2"].name.startswith("dense_1/") and ns["y"].name.startswith("dense/")
    assert ns["reg"] == (["dense_1_1/kernel/Regularizer/mul:0"], [])
    assert ns["bn_names"] == (
        ["batch_normalization/gamma:0", "batch_normalization/beta:0",
         "batch_normalization/moving_mean:0", "batch_normalization/moving_variance:0"],
        ["batch_normalization/gamma:0", "batch_normalization/beta:0"], 2, [])
    assert ns["phase"] == "keras_learning_phase:0" and ns["same"]
    assert ns["shapes"] == [(4, 3), (3,)]
    np.testing.assert_array_equal(ns["k2"], np.ones((3, 2)))


SEQUENTIAL = """
    import numpy as np
    import tensorflow as tf
    C = tf.keras.initializers.Constant
    x = tf.placeholder(tf.float32, [None, 4])
    model = tf.keras.Sequential([
        tf.keras.layers.Dense(3, activation='relu', kernel_initializer=C(0.1)),
        tf.keras.layers.Dense(2, kernel_initializer=C(-0.2), bias_initializer=C(0.5))])
    y = model(x)
    inp = tf.keras.Input(shape=(4,))
    h = tf.keras.layers.Dense(5, name="hid", kernel_initializer=C(0.3))(inp)
    out = tf.keras.layers.Dense(1, kernel_initializer=C(0.7))(h)
    m = tf.keras.Model(inputs=inp, outputs=out)
    z = m(x)                                    # the functional model called again
    seq2 = tf.keras.Sequential()
    seq2.add(tf.keras.layers.Dense(2, input_shape=(4,)))
    loss = tf.reduce_sum(y * y) + tf.reduce_sum(z)
    grads = tf.gradients(loss, model.trainable_weights)
    names = [v.name for v in tf.global_variables()]
    xv = np.array([[1., -2., 3., 0.5], [0.2, 0.1, -1., 2.]], np.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        yv, zv = sess.run([y, z], {x: xv})
        gv = sess.run(grads, {x: xv})
        predicted = m.predict(xv)
"""


def test_sequential_and_functional_model_called_on_a_placeholder():
    ns = run_tf1(SEQUENTIAL)
    assert ns["names"] == ["sequential/dense/kernel:0", "sequential/dense/bias:0",
                     "sequential/dense_1/kernel:0", "sequential/dense_1/bias:0",
                     "hid/kernel:0", "hid/bias:0", "dense_2/kernel:0", "dense_2/bias:0",
                     "dense_3/kernel:0", "dense_3/bias:0"]
    assert [layer.name for layer in ns["model"].layers] == ["dense", "dense_1"]
    assert ns["inp"].name == "input_1:0" and ns["m"].output_shape == (None, 1)
    assert [type(layer).__name__ for layer in ns["m"].layers] == ["InputLayer", "Dense",
                                                                  "Dense"]
    assert ns["seq2"].inputs[0].name == "dense_3_input:0"
    assert ns["seq2"].output_shape == (None, 2)
    np.testing.assert_allclose(ns["yv"], [[0.35, 0.35], [0.422, 0.422]], rtol=1e-6)
    np.testing.assert_allclose(ns["zv"], [[2.625], [1.365]], rtol=1e-6)
    np.testing.assert_allclose(ns["predicted"], [[2.625], [1.365]], rtol=1e-6)
    gk, gb, gk2, gb2 = ns["gv"]
    np.testing.assert_allclose(gk[:, 0], [-0.34752, 0.52624, -0.50240004, -0.8152], rtol=1e-5)
    np.testing.assert_allclose(gb, [-0.61759996] * 3, rtol=1e-5)
    np.testing.assert_allclose(gk2, np.full((3, 2), 0.28472), rtol=1e-5)
    np.testing.assert_allclose(gb2, [1.5439999] * 2, rtol=1e-5)


CNN = """
    import numpy as np
    import tensorflow as tf
    L = tf.keras.layers
    rng = np.random.RandomState(0)
    xv = rng.randn(2, 6, 6, 2).astype(np.float32)
    labels = np.array([[1., 0, 0], [0, 0, 1]], np.float32)
    x = tf.placeholder(tf.float32, [None, 6, 6, 2])
    y_ = tf.placeholder(tf.float32, [None, 3])
    h = L.Conv2D(4, 3, padding='same', activation='relu')(x)
    p = L.MaxPooling2D()(h)
    bn = L.BatchNormalization()
    hb = bn(p, training=True)
    a = L.AveragePooling2D(pool_size=(1, 2))(hb)
    c1 = L.Conv1D(2, 2, strides=1)(tf.reshape(a, [-1, 3, 4]))
    f = L.Flatten()(c1)
    d = L.Dropout(0.5)(f)                       # the learning phase: not fed, so off
    lr = L.LeakyReLU()(d)
    logits = L.Dense(3)(lr)
    probs = L.Activation('softmax')(logits)
    loss = tf.reduce_mean(tf.keras.losses.categorical_crossentropy(y_, probs))
    shapes = [v.shape.as_list() for v in tf.global_variables()]
    names = [v.name for v in tf.global_variables()]
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    gs = tf.gradients(loss, tf.trainable_variables())
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for v in tf.global_variables():
            if "moving" not in v.name:
                n = int(np.prod(v.shape.as_list()))
                sess.run(v.assign(np.sin(np.arange(n) * 0.37 + len(v.name)).reshape(
                    v.shape.as_list()).astype(np.float32)))
        before = sess.run(loss, {x: xv, y_: labels})
        gv = sess.run(gs, {x: xv, y_: labels})
        sess.run(train, {x: xv, y_: labels})
        sess.run(bn.updates, {x: xv})
        after = sess.run(loss, {x: xv, y_: labels})
        moving_variance = sess.run(bn.moving_variance)
"""


def test_small_keras_cnn_trained_with_a_tf_train_optimizer_matches_tf():
    ns = run_tf1(CNN)
    assert ns["names"] == [
        "conv2d/kernel:0", "conv2d/bias:0", "batch_normalization/gamma:0",
        "batch_normalization/beta:0", "batch_normalization/moving_mean:0",
        "batch_normalization/moving_variance:0", "conv1d/kernel:0", "conv1d/bias:0",
        "dense/kernel:0", "dense/bias:0"]
    assert ns["shapes"] == [[3, 3, 2, 4], [4], [4], [4], [4], [4], [2, 4, 2], [2], [4, 3],
                            [3]]
    assert [t.shape.as_list() for t in (ns["p"], ns["a"], ns["c1"], ns["f"])] == [
        [None, 3, 3, 4], [None, 3, 1, 4], [None, 2, 2], [None, 4]]
    np.testing.assert_allclose(ns["before"], 1.2194015, rtol=1e-5)
    np.testing.assert_allclose(ns["after"], 1.137908, rtol=1e-5)
    sums = [float(np.abs(g).sum()) for g in ns["gv"]]
    np.testing.assert_allclose(sums[2:], [0.6165327, 0.05000868, 1.6869268, 0.10818925,
                                          1.6110184, 0.62311208], rtol=1e-4)
    np.testing.assert_allclose(sums[0], 1.946238, rtol=1e-4)
    assert sums[1] < 1e-6   # the conv bias feeds a batch norm: no gradient up to rounding
    np.testing.assert_allclose(ns["gv"][0].ravel()[:6],
                               [0.01418, -0.00623, 0.02783, 0.0052, -0.04635, 0.0481],
                               atol=1e-5)
    # TF's fused kernel on 4-d inputs: the moving variance takes var * n / (n - 1)
    np.testing.assert_allclose(ns["moving_variance"],
                               [1.0143678, 1.0183533, 1.0139791, 1.0069094], rtol=1e-5)


def test_batch_normalization_numbers_and_its_updates_in_layer_updates():
    ns = run_tf1("""
        import numpy as np
        import tensorflow as tf
        bn = tf.keras.layers.BatchNormalization(momentum=0.9)
        xb = tf.placeholder(tf.float32, [None, 3])
        ob = bn(xb, training=True)
        test = bn(xb)                           # learning phase, False unless fed
        data = np.arange(12, dtype=np.float32).reshape(4, 3) ** 1.5
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out = sess.run(ob, {xb: data})
            sess.run(bn.updates[:2], {xb: data})
            moving = sess.run([bn.moving_mean, bn.moving_variance])
            inference = sess.run(test, {xb: data})
    """)
    np.testing.assert_allclose(ns["out"][:, 0], [-1.1410037, -0.6352721, 0.28942132,
                                                 1.4868549], rtol=1e-5)
    np.testing.assert_allclose(ns["moving"][0], [1.1723273, 1.478576, 1.8279765], rtol=1e-5)
    np.testing.assert_allclose(ns["moving"][1], [11.456489, 14.2381315, 16.885021],
                               rtol=1e-5)
    data, (mean, var) = ns["data"], ns["moving"]
    np.testing.assert_allclose(ns["inference"], (data - mean) / np.sqrt(var + 1e-3),
                               rtol=1e-5)


def test_dropout_reads_the_learning_phase_fed_as_one():
    ns = run_tf1("""
        import numpy as np
        import tensorflow as tf
        K = tf.keras.backend
        x = tf.placeholder(tf.float32, [None, 4])
        d = tf.keras.layers.Dropout(0.5, seed=1)(x)
        explicit = tf.keras.layers.Dropout(0.5)(x, training=False)
        with tf.Session() as sess:
            off = sess.run(d, {x: np.ones((3, 4))})
            on = sess.run(d, {x: np.ones((3, 4)), K.learning_phase(): 1})
            never = sess.run(explicit, {x: np.ones((3, 4)), K.learning_phase(): 1})
    """)
    np.testing.assert_array_equal(ns["off"], np.ones((3, 4)))
    np.testing.assert_array_equal(ns["never"], np.ones((3, 4)))
    assert set(np.unique(ns["on"])) <= {0.0, 2.0} and 0 < (ns["on"] == 0).sum() < 12


def test_subclassed_layer_and_model_and_get_session_initialising_keras_variables():
    ns = run_tf1("""
        import numpy as np
        import tensorflow as tf
        K = tf.keras.backend
        class Scale(tf.keras.layers.Layer):
            def __init__(self, units, **kwargs):
                super(Scale, self).__init__(**kwargs)
                self.units = units
            def build(self, input_shape):
                self.w = self.add_weight(name="w", shape=(int(input_shape[-1]), self.units),
                                         initializer=tf.keras.initializers.Constant(0.5))
                self.c = self.add_weight(name="c", shape=(self.units,), initializer="ones",
                                         trainable=False)
                super(Scale, self).build(input_shape)
            def call(self, x):
                return tf.matmul(x, self.w) * self.c
        class Net(tf.keras.Model):
            def __init__(self):
                super(Net, self).__init__()
                self.d1 = tf.keras.layers.Dense(3, kernel_initializer="ones")
                self.s = Scale(2)
            def call(self, x):
                return self.s(tf.nn.relu(self.d1(x)))
        x = tf.placeholder(tf.float32, [None, 4])
        net = Net()
        y = net(x)
        trainable = [w.name for w in tf.trainable_variables()]
        f = K.function([x, K.learning_phase()], [y])
        m = tf.keras.layers.Dense(2, kernel_initializer="ones",
                                  bias_initializer=tf.keras.initializers.Constant(0.25))
        u = m(x)
        with tf.Session() as sess:
            weights = m.get_weights()           # get_session initialises keras variables
            uv, yv = sess.run([u, y], {x: np.ones((1, 4))})
            fv = f([np.ones((2, 4)), 0])
            means = K.get_value(K.mean(tf.constant([[1., 2.], [3., 5.]]), axis=1))
    """)
    net = ns["net"]
    assert net.name == "net"
    assert [w.name for w in net.weights] == ["net/dense/kernel:0", "net/dense/bias:0",
                                             "net/scale/w:0", "net/scale/c:0"]
    assert ns["trainable"] == [
        "net/dense/kernel:0", "net/dense/bias:0", "net/scale/w:0"]
    assert [a.tolist() for a in ns["weights"]] == [[[1.0, 1.0]] * 4, [0.25, 0.25]]
    np.testing.assert_array_equal(ns["uv"], [[4.25, 4.25]])
    np.testing.assert_array_equal(ns["yv"], [[6.0, 6.0]])
    np.testing.assert_array_equal(ns["fv"][0], [[6.0, 6.0], [6.0, 6.0]])
    np.testing.assert_array_equal(ns["means"], [1.5, 4.0])


def test_keras_losses_and_activations_against_tf():
    ns = run_tf1("""
        import tensorflow as tf
        L = tf.keras.losses
        yt = tf.constant([[0., 1., 0.], [1., 0., 0.]])
        yp = tf.constant([[0.2, 0.5, 0.3], [0.9, 0.05, 0.05]])
        lg = tf.constant([[1., 2., 3.], [3., -1., 0.5]])
        big = tf.constant([[100., 0., 0.]])
        with tf.Session() as s:
            values = s.run([
                L.categorical_crossentropy(yt, yp),
                L.categorical_crossentropy(yt, lg, from_logits=True),
                L.sparse_categorical_crossentropy(tf.constant([1, 0]), yp),
                L.mean_squared_error(yt, yp), L.binary_crossentropy(yt, yp),
                L.binary_crossentropy(yt, lg, from_logits=True),
                L.CategoricalCrossentropy()(yt, yp), L.MeanSquaredError()(yt, yp),
                tf.keras.regularizers.l2(0.01)(lg), tf.keras.regularizers.l1(0.01)(lg)])
            # a softmax (sigmoid) output is read back as logits: no clipping at 1e-7
            saturated = s.run([
                L.categorical_crossentropy(yt[:1], tf.nn.softmax(big)),
                L.binary_crossentropy(yt[:1], tf.nn.sigmoid(big)),
                L.sparse_categorical_crossentropy(tf.constant([1]), tf.nn.softmax(big))])
            grad = s.run(tf.gradients(L.categorical_crossentropy(yt[:1], tf.nn.softmax(big)),
                                      big))
            acts = s.run([tf.keras.activations.hard_sigmoid(tf.constant([-3., 0., 1., 3.])),
                          tf.keras.activations.relu(tf.constant([-3., 0., 1., 8.]), alpha=0.1,
                                                    max_value=6.)])
    """)
    expected = [[0.6931472, 0.10536055], [1.4076059, 0.09567437], [0.6931472, 0.10536056],
                [0.12666667, 0.005], [0.42432174, 0.06931559], [1.4962591, 0.4453087],
                0.39925388, 0.06583333, 0.24249999, 0.105]
    for got, want in zip(ns["values"], expected):
        np.testing.assert_allclose(got, want, rtol=1e-5)
    np.testing.assert_allclose(np.ravel(ns["saturated"]), [100.0, 33.79543, 100.0], rtol=1e-5)
    np.testing.assert_allclose(ns["grad"][0], [[1.0, -1.0, 0.0]], atol=1e-6)
    np.testing.assert_allclose(ns["acts"][0], [0.0, 0.5, 0.7, 1.0], rtol=1e-6)
    np.testing.assert_allclose(ns["acts"][1], [-0.3, 0.0, 1.0, 6.0], rtol=1e-6)


def test_merges_reshape_embedding_and_lambda():
    ns = run_tf1("""
        import numpy as np
        import tensorflow as tf
        L = tf.keras.layers
        a = tf.placeholder(tf.float32, [None, 2, 3])
        b = tf.placeholder(tf.float32, [None, 2, 3])
        cat = L.concatenate([a, b])
        added = L.Add()([a, b])
        r = L.Reshape((-1,))(cat)
        perm = L.Permute((2, 1))(a)
        lam = L.Lambda(lambda t, k: t * k, arguments={"k": 3.0})(a)
        ids = tf.placeholder(tf.int32, [None, 2])
        emb = L.Embedding(10, 4, embeddings_initializer="uniform")
        e = emb(ids)
        av, bv = np.ones((1, 2, 3), np.float32), 2 * np.ones((1, 2, 3), np.float32)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            rv, addv, lamv = sess.run([r, added, lam], {a: av, b: bv})
            table, ev = sess.run([emb.embeddings, e], {ids: [[3, 7]]})
    """)
    assert ns["cat"].shape.as_list() == [None, 2, 6] and ns["r"].shape.as_list() == [None, 12]
    assert ns["perm"].shape.as_list() == [None, 3, 2]
    assert ns["e"].shape.as_list() == [None, 2, 4]
    assert ns["emb"].embeddings.name == "embedding/embeddings:0"
    np.testing.assert_array_equal(ns["rv"], [[1, 1, 1, 2, 2, 2] * 2])
    np.testing.assert_array_equal(ns["addv"], np.full((1, 2, 3), 3.0))
    np.testing.assert_array_equal(ns["lamv"], np.full((1, 2, 3), 3.0))
    assert np.abs(ns["table"]).max() <= 0.05          # keras's uniform(-0.05, 0.05)
    np.testing.assert_array_equal(ns["ev"][0], ns["table"][[3, 7]])


@pytest.mark.parametrize("line, words", [
    ("tf.keras.layers.CuDNNLSTM(2)", ["tf.keras.layers.CuDNNLSTM", "LSTM("]),
    ("tf.keras.datasets.mnist.load_data()", ["tf.keras.datasets", "numpy"]),
    ("tf.keras.callbacks.ModelCheckpoint('w.h5')", ["tf.keras.callbacks.ModelCheckpoint",
                                                  "LambdaCallback"]),
    ("tf.keras.layers.AdditiveAttention()", ["tf.keras.layers.AdditiveAttention",
                                                  "tf.layers"]),
    ("tf.keras.Sequential([tf.keras.layers.Dense(1)]).fit_generator",
     ["tf.keras.Model.fit_generator", "train_on_batch"]),
    ("tf.keras.Sequential([tf.keras.layers.Dense(1)]).save",
     ["tf.keras.Model.save", "tf.train.Saver"]),
])
def test_what_is_missing_says_what_to_use(line, words):
    with pytest.raises(AttributeError) as info:
        run_tf1(f"import tensorflow as tf\n{line}\n")
    for word in words:
        assert word in str(info.value)


def test_bad_arguments_are_named():
    with pytest.raises(TypeError, match="'units_'"):
        run_tf1("import tensorflow as tf\ntf.keras.layers.Dense(3, units_=2)\n")
    with pytest.raises(ValueError, match="Unknown activation function: 'relux'"):
        run_tf1("import tensorflow as tf\ntf.keras.layers.Dense(3, activation='relux')\n")
    with pytest.raises(ValueError, match="Lambda"):
        run_tf1("""
            import tensorflow as tf
            inp = tf.keras.Input(shape=(3,))
            h = tf.keras.layers.Dense(2)(inp) * 2.0      # a TF op between layers
            tf.keras.Model(inp, tf.keras.layers.Dense(1)(h))
        """)
    with pytest.raises(ValueError, match="set_weights: layer 'dense' has 2 weights"):
        run_tf1("""
            import tensorflow as tf
            d = tf.keras.layers.Dense(2)
            d(tf.zeros([1, 3]))
            d.set_weights([[1.0]])
        """)


KERAS_AS_TF_INTERFACE = """
import numpy as np
import symgrad.compat.v1 as tf
from symgrad.compat.v1.keras.layers import Dense, Dropout
from symgrad.compat.v1.keras import backend as K
from symgrad.compat.v1.keras.metrics import categorical_accuracy as accuracy
from symgrad.compat.v1.keras.losses import categorical_crossentropy
sess = tf.Session()
K.set_session(sess)
img = tf.placeholder(tf.float32, shape=(None, 8))
C = tf.keras.initializers.Constant
x = Dense(16, activation='relu', kernel_initializer=C(np.sin(np.arange(128)).reshape(8, 16)))(img)
x = Dropout(0.5)(x)
preds = Dense(3, activation='softmax',
              kernel_initializer=C(np.cos(np.arange(48)).reshape(16, 3)))(x)
labels = tf.placeholder(tf.float32, shape=(None, 3))
loss = tf.reduce_mean(categorical_crossentropy(labels, preds))
train_step = tf.train.GradientDescentOptimizer(0.05).minimize(loss)
sess.run(tf.global_variables_initializer())
rng = np.random.RandomState(0)
X = rng.randn(30, 8).astype(np.float32)
Y = np.eye(3, dtype=np.float32)[rng.randint(0, 3, 30)]
with sess.as_default():
    for i in range(20):
        train_step.run(feed_dict={img: X, labels: Y, K.learning_phase(): 0})
acc_value = accuracy(labels, preds)
with sess.as_default():          # a second block: as_default leaves the session open
    acc = acc_value.eval(feed_dict={img: X, labels: Y}).mean()
    final = loss.eval(feed_dict={img: X, labels: Y})
same = K.get_session() is sess
"""


def test_keras_as_a_simplified_interface_to_tensorflow():
    # F. Chollet's 2016 post, with tf.keras imported the TF1 way; TF printed 0.6 0.95014393
    import symgrad as sg
    ns = {}
    with sg.Graph().as_default():
        exec(compile(KERAS_AS_TF_INTERFACE, "<keras program>", "exec"), ns)
    np.testing.assert_allclose(ns["acc"], 0.6, rtol=1e-6)
    np.testing.assert_allclose(ns["final"], 0.95014393, rtol=1e-5)
    assert ns["same"]


@pytest.mark.parametrize("statement, words", [
    ("from symgrad.compat.v1.keras.optimizers import Ftrl", ["tf.keras.optimizers.Ftrl",
                                                            "RMSprop"]),
    ("from symgrad.compat.v1.keras.layers import CuDNNLSTM", ["tf.keras.layers.CuDNNLSTM",
                                                        "recurrent_activation"]),
    ("from symgrad.compat.v1.keras.callbacks import ModelCheckpoint",
     ["tf.keras.callbacks.ModelCheckpoint"]),
    ("from symgrad.compat.v1.keras.metrics import Accuracy", ["metric objects",
                                                             "tf.metrics"]),
])
def test_importing_what_is_missing_says_what_to_use(statement, words):
    with pytest.raises(ImportError) as info:
        exec(statement, {})
    for word in words:
        assert word in str(info.value)


def test_frozen_layers_dtypes_default_names_and_shapes_as_tf1_keras():
    ns = run_tf1("""
        import numpy as np
        import tensorflow as tf
        x64 = tf.placeholder(tf.float64, [None, 2])
        d = tf.keras.layers.Dense(2, kernel_initializer="ones")
        y = d(x64)                                   # float64 in: float64 weights
        y2 = tf.keras.layers.Dense(2)(tf.ones([1, 2]), training=True)   # dropped
        bn = tf.keras.layers.BatchNormalization(trainable=False)
        xb = tf.placeholder(tf.float32, [None, 2])
        o = bn(xb, training=True)
        frozen = (len(bn.updates), bn.trainable_weights,
                  [w.name for w in tf.trainable_variables()][-2:])
        m = tf.keras.Sequential([tf.keras.layers.Conv2D(2, 3, input_shape=(5, 5, 1)),
                                 tf.keras.layers.Flatten(), tf.keras.layers.Dense(1)])
        m(tf.placeholder(tf.float32, [None, 5, 5, 1]))
        shapes = (m.inputs[0].name, m.output_shape, [l.output_shape for l in m.layers],
                  m.count_params())
        names = [tf.keras.layers.Dense(3).name, tf.keras.layers.LeakyReLU().name,
                 tf.keras.layers.MaxPool2D().name,
                 tf.keras.layers.GlobalAveragePooling2D().name]
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            ov = s.run(o, {xb: [[1., 2.], [3., 5.]]})
    """)
    assert ns["y"].dtype == np.float64 and ns["d"].kernel.dtype == np.float64
    assert ns["y2"].shape.as_list() == [1, 2]
    # TF1 keras: a frozen layer has no updates nor trainable_weights, but its weights
    # stay in TRAINABLE_VARIABLES; training=True still normalizes with the batch
    assert ns["frozen"] == (0, [], ["batch_normalization/gamma:0",
                                    "batch_normalization/beta:0"])
    np.testing.assert_allclose(ns["ov"], [[-0.9995004, -0.9997778], [0.9995005, 0.99977803]],
                               rtol=1e-6)
    assert ns["shapes"] == ("conv2d_input:0", (None, 1),
                            [(None, 3, 3, 2), (None, 18), (None, 1)], 39)
    assert ns["names"] == ["dense_3", "leaky_re_lu", "max_pooling2d",
                           "global_average_pooling2d"]


RECURRENT = """
    import numpy as np
    import tensorflow as tf
    L = tf.keras.layers
    C = tf.keras.initializers.Constant
    def w(shape, k):
        return C(np.sin(np.arange(int(np.prod(shape))) * 0.7 + k).reshape(shape) * 0.5)
    x = tf.placeholder(tf.float32, [None, 4, 3])
    xd = tf.placeholder(tf.float32, [None, None, 3])     # steps known at run time
    layers = [
        L.SimpleRNN(2, kernel_initializer=w((3, 2), 1), recurrent_initializer=w((2, 2), 2),
                    bias_initializer=w((2,), 3)),
        L.LSTM(2, kernel_initializer=w((3, 8), 1), recurrent_initializer=w((2, 8), 2),
               bias_initializer=w((2,), 3), return_sequences=True, return_state=True),
        L.GRU(2, kernel_initializer=w((3, 6), 1), recurrent_initializer=w((2, 6), 2),
              bias_initializer=w((6,), 3), go_backwards=True),
        L.GRU(2, kernel_initializer=w((3, 6), 1), recurrent_initializer=w((2, 6), 2),
              bias_initializer=w((2, 6), 3), reset_after=True, recurrent_activation="sigmoid"),
        L.LSTM(3)]
    outs = [layers[0](x), layers[1](x), layers[2](xd), layers[3](x)]
    layers[4](x)
    names = [(w.name, w.shape.as_list()) for l in layers for w in l.weights]
    flat = [outs[0], outs[1][0], outs[1][1], outs[1][2], outs[2], outs[3]]
    loss = sum(tf.reduce_sum(o * o) for o in flat)
    gs = tf.gradients(loss, [w for l in layers[:4] for w in l.trainable_weights])
    xv = np.cos(np.arange(24) * 1.3).reshape(2, 4, 3).astype(np.float32)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        values = s.run(flat, {x: xv, xd: xv})
        grads = s.run(gs, {x: xv, xd: xv})
        forget_bias = s.run(layers[4].cell.bias)
"""


def test_simple_rnn_lstm_and_gru_as_tf1_keras():
    ns = run_tf1(RECURRENT)
    assert [n for n, _ in ns["names"]] == [
        f"{layer}/{cell}/{w}:0" for layer, cell in (
            ("simple_rnn", "simple_rnn_cell"), ("lstm", "lstm_cell"), ("gru", "gru_cell"),
            ("gru_1", "gru_cell"), ("lstm_1", "lstm_cell"))
        for w in ("kernel", "recurrent_kernel", "bias")]
    assert [s for _, s in ns["names"]][-6:] == [[3, 6], [2, 6], [2, 6], [3, 12], [3, 12],
                                                [12]]
    expected = [  # what TF printed (hard_sigmoid, reset before the product: TF1 keras)
        [[0.574266, 0.023071], [-0.313699, -0.26187]],
        [[[-0.112707, -0.167032], [0.009491, -0.090859], [-0.023534, -0.086283],
          [-0.033185, -0.165032]],
         [[0.111471, 0.048987], [-0.086463, -0.104411], [0.014423, -0.102383],
          [0.08373, -0.065857]]],
        [[-0.033185, -0.165032], [0.08373, -0.065857]],
        [[-0.104966, -0.4977], [0.142132, -0.120966]],
        [[-0.105367, 0.105947], [-0.192354, 0.388077]],
        [[-0.148798, -0.036519], [-0.240548, 0.08804]]]
    for got, want in zip(ns["values"], expected):
        np.testing.assert_allclose(got, want, atol=2e-6)
    np.testing.assert_allclose([np.abs(g).sum() for g in ns["grads"]],
                               [2.99286, 0.97026, 0.66632, 2.00149, 0.20903, 2.19507,
                                1.31182, 0.16324, 1.21088, 0.67046, 0.10534, 1.01359],
                               atol=2e-5)
    np.testing.assert_array_equal(ns["forget_bias"], [0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0])


def test_two_input_two_output_model_and_nested_sequentials():
    ns = run_tf1("""
        import tensorflow as tf
        L = tf.keras.layers
        C = tf.keras.initializers.Constant
        a = tf.keras.Input(shape=(3,), name="a")
        b = tf.keras.Input(shape=(2,), name="b")
        h = L.concatenate([L.Dense(4, kernel_initializer=C(0.1))(a), b])
        bn = L.BatchNormalization()(h)
        o1 = L.Dense(1, kernel_initializer=C(0.2), name="o1")(bn)
        o2 = L.Dense(2, kernel_initializer=C(-0.3), name="o2")(h)
        m = tf.keras.Model(inputs=[a, b], outputs=[o1, o2])
        xa = tf.placeholder(tf.float32, [None, 3])
        xb = tf.placeholder(tf.float32, [None, 2])
        y1, y2 = m([xa, xb])
        outer = tf.keras.Sequential([tf.keras.Sequential([L.Dense(3, kernel_initializer=C(0.5))]),
                                     L.Dense(1, kernel_initializer=C(1.0))])
        z = outer(xa)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            values = s.run([y1, y2, z], {xa: [[1., 2., 3.]], xb: [[4., 5.]]})
    """)
    m, outer = ns["m"], ns["outer"]
    assert [layer.name for layer in m.layers] == ["a", "dense", "b", "concatenate",
                                                 "batch_normalization", "o1", "o2"]
    assert [w.name for w in m.weights] == [
        "dense/kernel:0", "dense/bias:0", "batch_normalization/gamma:0",
        "batch_normalization/beta:0", "batch_normalization/moving_mean:0",
        "batch_normalization/moving_variance:0", "o1/kernel:0", "o1/bias:0", "o2/kernel:0",
        "o2/bias:0"]
    assert [w.name for w in m.trainable_weights] == [
        "dense/kernel:0", "dense/bias:0", "batch_normalization/gamma:0",
        "batch_normalization/beta:0", "o1/kernel:0", "o1/bias:0", "o2/kernel:0", "o2/bias:0"]
    # (the batch norm ran twice, on the Inputs and on the placeholders: TF also has 4)
    assert m.output_shape == [(None, 1), (None, 2)] and len(m.updates) == 4
    assert [w.name for w in outer.weights] == [
        "sequential_1/sequential/dense_1/kernel:0", "sequential_1/sequential/dense_1/bias:0",
        "sequential_1/dense_2/kernel:0", "sequential_1/dense_2/bias:0"]
    assert [layer.name for layer in outer.layers] == ["sequential", "dense_2"]
    y1, y2, z = ns["values"]
    np.testing.assert_allclose(y1, [[2.2788608]], rtol=1e-6)
    np.testing.assert_allclose(y2, [[-3.42, -3.42]], rtol=1e-6)
    np.testing.assert_allclose(z, [[9.0]], rtol=1e-6)


WRAPPERS = """
    import numpy as np
    import tensorflow as tf
    L = tf.keras.layers
    C = tf.keras.initializers.Constant
    def w(shape, k):
        return C(np.sin(np.arange(int(np.prod(shape))) * 0.7 + k).reshape(shape) * 0.5)
    x = tf.placeholder(tf.float32, [None, 3, 3, 2])
    ct = L.Conv2DTranspose(2, 3, strides=2, padding='same', kernel_initializer=w((3, 3, 2, 2), 1),
                           bias_initializer=w((2,), 2))
    y1 = ct(x)
    ct2 = L.Conv2DTranspose(1, 2, strides=1, padding='valid', kernel_initializer=w((2, 2, 1, 2), 3))
    y2 = ct2(x)
    up = L.UpSampling2D()(x)
    zp = L.ZeroPadding2D(((1, 0), (2, 1)))(x)
    v = tf.placeholder(tf.float32, [None, 3])
    rv = L.RepeatVector(4)(v)
    s = tf.placeholder(tf.float32, [None, 4, 3])
    bi = L.Bidirectional(L.LSTM(2, return_sequences=True, kernel_initializer=w((3, 8), 1),
                                recurrent_initializer=w((2, 8), 2)))
    yb = bi(s)
    bi2 = L.Bidirectional(L.GRU(2, kernel_initializer=w((3, 6), 1),
                                recurrent_initializer=w((2, 6), 2)), merge_mode="sum")
    yb2 = bi2(s)
    td = L.TimeDistributed(L.Dense(2, kernel_initializer=w((3, 2), 4)))
    yt = td(s)
    names = [(w.name, w.shape.as_list()) for l in (ct, ct2, bi, bi2, td) for w in l.weights]
    shapes = [t.shape.as_list() for t in (y1, y2, up, zp, rv, yb, yb2, yt)]
    xv = np.cos(np.arange(36) * 1.3).reshape(2, 3, 3, 2).astype(np.float32)
    sv = np.cos(np.arange(24) * 0.9).reshape(2, 4, 3).astype(np.float32)
    with tf.Session() as ss:
        ss.run(tf.global_variables_initializer())
        values = ss.run([y1, y2, up, zp, rv, yb, yb2, yt], {x: xv, v: [[1., 2., 3.]], s: sv})
"""


def test_transposed_convolution_upsampling_and_the_wrappers_as_tf1_keras():
    ns = run_tf1(WRAPPERS)
    bi = [f"bidirectional{k}/{d}_{r}/{r}_cell/{w}:0" for k, r in (("", "lstm"), ("_1", "gru"))
          for d in ("forward", "backward") for w in ("kernel", "recurrent_kernel", "bias")]
    assert [n for n, _ in ns["names"]] == [
        "conv2d_transpose/kernel:0", "conv2d_transpose/bias:0", "conv2d_transpose_1/kernel:0",
        "conv2d_transpose_1/bias:0", *bi, "time_distributed/kernel:0",
        "time_distributed/bias:0"]
    assert [s for _, s in ns["names"]][:4] == [[3, 3, 2, 2], [2], [2, 2, 1, 2], [1]]
    assert ns["shapes"] == [[None, 6, 6, 2], [None, 4, 4, 1], [None, 6, 6, 2], [None, 4, 6, 2],
                            [None, 4, 3], [None, 4, 4], [None, 2], [None, 4, 2]]
    # TF's values: the first entries and the sum of magnitudes of each output
    firsts = [[1.00802, 0.55698, 0.01798, -0.27804, 0.0037, 0.49255],
              [-0.00031, -0.46778, 0.51809, -0.67499, 0.05135, 0.85331],
              [1.0, 0.2675, 1.0, 0.2675, -0.85689, -0.72593],
              [0.0] * 6, [1.0, 2.0, 3.0, 1.0, 2.0, 3.0],
              [-0.07825, -0.15726, -0.07027, -0.15108, -0.00238, -0.01872],
              [-0.04343, -0.19339, 0.14513, 0.29006],
              [-0.67471, -0.66314, 0.63652, 0.43482, -0.4762, -0.12307]]
    sums = [74.8136, 13.0113, 91.2797, 22.8199, 24.0, 2.1446, 0.672, 7.7625]
    for value, first, total in zip(ns["values"], firsts, sums):
        np.testing.assert_allclose(value.ravel()[:len(first)], first, atol=1e-5)
        np.testing.assert_allclose(np.abs(value).sum(), total, atol=2e-4)


def test_get_weights_outside_the_training_session_keeps_the_trained_values():
    # symgrad's sessions share the graph's values: keras's own session (no default
    # session here) must not reset what the training session set
    ns = run_tf1("""
        import tensorflow as tf
        d = tf.keras.layers.Dense(1, kernel_initializer="ones")
        y = d(tf.constant([[1., 1.]]))
        sess = tf.Session()
        sess.run(tf.global_variables_initializer())
        sess.run(d.kernel.assign([[5.], [6.]]))
        kernel = d.get_weights()[0]
        after = sess.run(y)
    """)
    np.testing.assert_array_equal(ns["kernel"].ravel(), [5.0, 6.0])
    np.testing.assert_array_equal(ns["after"], [[11.0]])


def test_input_layer_in_a_sequential_and_layers_held_in_a_list():
    ns = run_tf1("""
        import numpy as np
        import tensorflow as tf
        L = tf.keras.layers
        m = tf.keras.Sequential([L.InputLayer(input_shape=(4,)),
                                 L.Dense(2, kernel_initializer="ones")])
        class Stack(tf.keras.Model):
            def __init__(self):
                super(Stack, self).__init__()
                self.blocks = [L.Dense(3, kernel_initializer="ones"),
                               L.Dense(1, kernel_initializer="ones")]
            def call(self, x):
                for b in self.blocks:
                    x = b(x)
                return x
        st = Stack()
        y = st(tf.ones([2, 4]))
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            yv, predicted = s.run(y), m.predict(np.ones((3, 4)))
    """)
    m, st = ns["m"], ns["st"]
    assert (m.inputs[0].name, m.output_shape, [l.name for l in m.layers]) == (
        "input_1:0", (None, 2), ["dense"])
    assert [w.name for w in st.weights] == ["stack/dense_1/kernel:0", "stack/dense_1/bias:0",
                                            "stack/dense_2/kernel:0", "stack/dense_2/bias:0"]
    assert [l.name for l in st.layers] == ["dense_1", "dense_2"]
    np.testing.assert_array_equal(ns["yv"], [[12.0], [12.0]])
    np.testing.assert_array_equal(ns["predicted"], np.full((3, 2), 4.0))


def test_functional_model_through_a_layer_with_several_outputs():
    ns = run_tf1("""
        import numpy as np
        import tensorflow as tf
        L = tf.keras.layers
        inp = tf.keras.Input(shape=(4, 3))
        seq, h, c = L.LSTM(2, return_sequences=True, return_state=True,
                           kernel_initializer='ones', recurrent_initializer='ones')(inp)
        out = L.Dense(1, kernel_initializer='ones')(L.concatenate([h, c]))
        m = tf.keras.Model(inp, [out, seq])
        x = tf.placeholder(tf.float32, [None, 4, 3])
        o, sq = m(x)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            ov = s.run(o, {x: np.ones((1, 4, 3)) * 0.1})
    """)
    assert [l.name for l in ns["m"].layers] == ["input_1", "lstm", "concatenate", "dense"]
    assert ns["sq"].shape.as_list() == [None, 4, 2]
    np.testing.assert_allclose(ns["ov"], [[3.8024096]], rtol=1e-6)   # TF's value


def test_keras_layers_under_a_reused_variable_scope_and_beside_tf_layers():
    # keras layers ignore variable-scope reuse (new weights each call), as in TF1
    ns = run_tf1("""
        import tensorflow as tf
        x = tf.placeholder(tf.float32, [None, 4])
        def net(x):
            with tf.variable_scope("net", reuse=tf.AUTO_REUSE):
                return tf.keras.layers.Dense(3)(x)
        net(x); net(x)
        a = tf.keras.layers.Dense(2)(x)
        b = tf.layers.dense(x, 2)
        c = tf.layers.dense(x, 2, name="dense_1")
        names = [v.name for v in tf.global_variables()]
    """)
    assert ns["names"] == ["net/dense/kernel:0", "net/dense/bias:0", "net_1/dense_1/kernel:0",
                           "net_1/dense_1/bias:0", "dense_2/kernel:0", "dense_2/bias:0",
                           "dense/kernel:0", "dense/bias:0", "dense_1/kernel:0",
                           "dense_1/bias:0"]


TEXT_CLASSIFIER = """
    import numpy as np
    import tensorflow as tf
    pad_sequences = tf.keras.preprocessing.sequence.pad_sequences
    L = tf.keras.layers
    C = tf.keras.initializers.Constant
    def w(shape, k):
        return C(np.sin(np.arange(int(np.prod(shape))) * 0.7 + k).reshape(shape) * 0.3)
    docs = [[3, 5, 1], [2, 9, 9, 4, 1], [7], [8, 2, 6, 6]]
    y = np.array([[1.], [0.], [1.], [0.]], np.float32)
    X = pad_sequences(docs, maxlen=4)
    ids = tf.placeholder(tf.int32, [None, 4])
    labels = tf.placeholder(tf.float32, [None, 1])
    model = tf.keras.Sequential([
        L.Embedding(10, 3, embeddings_initializer=w((10, 3), 0)),
        L.LSTM(4, kernel_initializer=w((3, 16), 1), recurrent_initializer=w((4, 16), 2)),
        L.Dense(1, activation="sigmoid", kernel_initializer=w((4, 1), 3))])
    probs = model(ids)
    loss = tf.reduce_mean(tf.keras.losses.binary_crossentropy(labels, probs))
    acc = tf.reduce_mean(tf.keras.metrics.binary_accuracy(labels, probs))
    train = tf.train.AdamOptimizer(0.1).minimize(loss)
    names = [v.name for v in tf.trainable_variables()]
    history = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step in range(5):
            l, a, _ = sess.run([loss, acc, train], {ids: X, labels: y})
            history.append((l, a))
        final = sess.run(probs, {ids: X})
"""


def test_embedding_lstm_text_classifier_trained_with_adam_matches_tf():
    ns = run_tf1(TEXT_CLASSIFIER)
    assert ns["X"].tolist() == [[0, 3, 5, 1], [9, 9, 4, 1], [0, 0, 0, 7], [8, 2, 6, 6]]
    # a Sequential starting with an Embedding is built at once (keras gives Embedding
    # an input_shape): its weights are outside the "sequential" scope, as in TF
    assert ns["names"] == ["embedding/embeddings:0", "lstm/lstm_cell/kernel:0",
                           "lstm/lstm_cell/recurrent_kernel:0", "lstm/lstm_cell/bias:0",
                           "dense/kernel:0", "dense/bias:0"]
    losses, accuracies = zip(*ns["history"])
    np.testing.assert_allclose(losses, [0.692914, 0.677955, 0.633946, 0.531917, 0.410135],
                               atol=2e-6)
    assert list(accuracies) == [0.25, 0.5, 0.75, 1.0, 1.0]
    np.testing.assert_allclose(ns["final"].ravel(), [0.745006, 0.256287, 0.752471, 0.250095],
                               atol=2e-6)


def test_regularizer_and_activity_losses_and_the_weights_argument_as_tf1_keras():
    ns = run_tf1("""
        import numpy as np
        import tensorflow as tf
        L = tf.keras.layers
        R = tf.keras.regularizers
        x = tf.placeholder(tf.float32, [None, 3])
        d = L.Dense(2, kernel_initializer="ones", bias_regularizer=R.l1(0.1),
                    kernel_regularizer=R.l1_l2(0.01, 0.02), activity_regularizer=R.l2(0.5),
                    bias_initializer=tf.keras.initializers.Constant([1., -2.]))
        m = tf.keras.Sequential([d])
        y = m(x)
        names = [l.name for l in m.losses]
        total = tf.add_n(m.losses)
        g = tf.gradients(total, d.kernel)[0]
        ids = tf.placeholder(tf.int32, [None, 2])
        matrix = np.arange(12, dtype=np.float32).reshape(4, 3)
        with tf.Session() as sess:
            e = L.Embedding(4, 3, weights=[matrix], trainable=False)
            out = e(ids)
            before_init = sess.run(out, {ids: [[1, 3]]})
            sess.run(tf.global_variables_initializer())
            kept = np.array_equal(sess.run(e.embeddings), matrix)
            xv = [[1., 2., 3.], [0., 1., 0.]]
            tv, gv = sess.run([total, g], {x: xv})
    """)
    # TF lists the activity term first; its value is l2(out) / batch size
    assert [n.split("/")[2] for n in ns["names"]] == ["ActivityRegularizer", "kernel", "bias"]
    np.testing.assert_allclose(ns["tv"], 17.98, rtol=1e-6)
    np.testing.assert_allclose(ns["gv"], [[3.55, 2.05], [8.05, 3.55], [10.55, 6.05]],
                               rtol=1e-6)
    # weights= holds until an initializer runs (TF1's pitfall, kept)
    np.testing.assert_array_equal(ns["before_init"], [[[3, 4, 5], [9, 10, 11]]])
    assert not ns["kept"]
    assert ns["e"].trainable_weights == []


def test_backend_ops_as_tf1_keras():
    ns = run_tf1("""
        import tensorflow as tf
        K = tf.keras.backend
        a = K.constant([[1., -2., 3.], [4., 0.5, -6.]])
        b = K.constant([[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]])
        t = K.constant([[0., 0., 1.], [1., 0., 0.]])
        ops = [K.mean(a, axis=1), K.sum(a, axis=0, keepdims=True), K.std(a), K.var(a, axis=1),
               K.clip(a, -1, 1), K.dot(a, K.transpose(a)),
               K.batch_flatten(K.reshape(a, (2, 3, 1))), K.concatenate([a, b]),
               K.categorical_crossentropy(t, b), K.binary_crossentropy(t, b),
               K.l2_normalize(a, axis=1), K.argmax(a), K.max(a), K.square(a),
               K.sqrt(K.abs(a)), K.softmax(a), K.relu(a, alpha=0.1),
               K.sparse_categorical_crossentropy(K.constant([2., 0.]), b),
               K.in_train_phase(a * 2, a), K.in_test_phase(a * 2, a)]
        zeros = K.zeros((2, 2))                      # a variable, as in keras
        with tf.Session() as s:
            values = s.run(ops, {K.learning_phase(): True})
            zv = K.get_value(zeros)
        facts = (K.int_shape(a), K.ndim(a), K.dtype(a), zeros.name)
    """)
    expected = [  # what TF printed (rounded to 5 places)
        [0.66667, -0.5], [[5.0, -1.5, -3.0]], 3.32186, [4.22222, 17.16667],
        [[1.0, -1.0, 1.0], [1.0, 0.5, -1.0]], [[14.0, -15.0], [-15.0, 52.25]],
        [[1.0, -2.0, 3.0], [4.0, 0.5, -6.0]],
        [[1.0, -2.0, 3.0, 0.2, 0.3, 0.5], [4.0, 0.5, -6.0, 0.1, 0.1, 0.8]],
        [0.69315, 2.30259], [[0.22314, 0.35667, 0.69315], [2.30258, 0.10536, 1.60944]],
        [[0.26726, -0.53452, 0.80178], [0.55337, 0.06917, -0.83006]], [2.0, 0.0], 4.0,
        [[1.0, 4.0, 9.0], [16.0, 0.25, 36.0]],
        [[1.0, 1.41421, 1.73205], [2.0, 0.70711, 2.44949]],
        [[0.1185, 0.0059, 0.8756], [0.97064, 0.02931, 4e-05]],
        [[1.0, -0.2, 3.0], [4.0, 0.5, -0.6]], [0.69315, 2.30259],
        [[2.0, -4.0, 6.0], [8.0, 1.0, -12.0]], [[1.0, -2.0, 3.0], [4.0, 0.5, -6.0]]]
    for got, want in zip(ns["values"], expected):
        np.testing.assert_allclose(np.asarray(got, np.float64), want, atol=1e-5)
    np.testing.assert_array_equal(ns["zv"], np.zeros((2, 2)))
    assert ns["facts"] == ((2, 3), 2, "float32", "Variable:0")


def test_batch_normalization_on_the_learning_phase():
    # no training= : the learning phase picks the moments and gates the updates
    ns = run_tf1("""
        import numpy as np
        import tensorflow as tf
        K = tf.keras.backend
        x = tf.placeholder(tf.float32, [None, 2, 2, 3])
        bn = tf.keras.layers.BatchNormalization(momentum=0.5)
        y = bn(x)
        data = np.sin(np.arange(24)).reshape(2, 2, 2, 3).astype(np.float32)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            test_out = s.run(y, {x: data})
            s.run(bn.updates, {x: data})                 # phase False: no change
            unchanged = s.run([bn.moving_mean, bn.moving_variance])
            train_out, _ = s.run([y, bn.updates], {x: data, K.learning_phase(): 1})
            moved = s.run([bn.moving_mean, bn.moving_variance])
    """)
    np.testing.assert_allclose(ns["test_out"].ravel()[:6], [0.0, 0.84105, 0.90884, 0.14105,
                                                            -0.75642, -0.95845], atol=1e-5)
    np.testing.assert_array_equal(ns["unchanged"], [[0, 0, 0], [1, 1, 1]])
    np.testing.assert_allclose(ns["train_out"].ravel()[:6], [-0.11222, 1.46897, 0.95457,
                                                             0.15551, -1.53102, -1.01633],
                               atol=1e-5)
    np.testing.assert_allclose(ns["moved"], [[0.02958, 0.02943, 0.00223],
                                             [0.65819, 0.66162, 1.01287]], atol=1e-5)


def test_constraints_are_applied_by_tf_train_optimizers_as_in_tf():
    # TF1's optimizers set a variable with a constraint to constraint(variable) after
    # each step: keras's kernel_constraint, tf.Variable's and get_variable's alike
    ns = run_tf1("""
        import numpy as np
        import tensorflow as tf
        Kc = tf.keras.constraints
        C = tf.keras.initializers.Constant
        x = tf.constant([[1., -2., 0.5], [0.3, 1., 2.]])
        layers = [tf.keras.layers.Dense(2, kernel_initializer=C(np.sin(np.arange(6)).reshape(3, 2)),
                                        kernel_constraint=c, bias_constraint=b)
                  for c, b in ((Kc.NonNeg(), None), (Kc.MaxNorm(0.5), "non_neg"),
                               (Kc.UnitNorm(axis=1), None),
                               (Kc.MinMaxNorm(0.2, 0.6, rate=0.5), Kc.max_norm(1.0)))]
        loss = sum(tf.reduce_sum(tf.square(l(x) - 3.0)) for l in layers)
        v = tf.Variable([3., -4.], constraint=lambda t: tf.clip_by_value(t, -1., 1.))
        w = tf.get_variable("w", [2], initializer=tf.constant_initializer([5., -5.]),
                            constraint=lambda t: t * 0.5)
        loss = loss + tf.reduce_sum(v * w)
        train = tf.train.AdamOptimizer(0.3).minimize(loss)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            history = [s.run([loss, train])[0] for _ in range(2)]
            values = s.run([t for l in layers for t in l.weights] + [v, w])
    """)
    np.testing.assert_allclose(ns["history"], [310.9869, 153.0498], rtol=1e-6)
    expected = [  # TF's values after the two steps
        [0.59137, 1.42362, 0.31377, 0.0, 0.28675, 0.28159], [0.58958, 0.58186],
        [0.47489, 0.44706, 0.08598, -0.22221, 0.01574, 0.02757], [0.59307, 0.59382],
        [0.40181, 0.91572, 0.92553, -0.37868, -0.46275, -0.88649], [0.5977, 0.59639],
        [0.54897, 0.84314, 0.23498, -0.26529, -0.09925, -0.13784], [0.59468, 0.59383],
        [0.72309, -0.72309], [1.04434, -1.05041]]
    for got, want in zip(ns["values"], expected):
        np.testing.assert_allclose(got.ravel(), want, atol=2e-5)


def test_tf_layers_constraints_are_applied_too():
    ns = run_tf1("""
        import numpy as np
        import tensorflow as tf
        x = tf.constant(np.cos(np.arange(32)).reshape(2, 4, 4, 1).astype(np.float32))
        nonneg = lambda w: tf.maximum(w, 0.)
        h = tf.layers.conv2d(x, 2, 2, kernel_initializer=tf.constant_initializer(0.3),
                             kernel_constraint=nonneg, bias_constraint=nonneg)
        y = tf.layers.dense(tf.layers.flatten(h), 1,
                            kernel_initializer=tf.constant_initializer(0.1),
                            kernel_constraint=nonneg)
        b = tf.layers.batch_normalization(y, training=True,
                                          gamma_constraint=lambda g: tf.minimum(g, 1.))
        loss = tf.reduce_sum(y) - tf.reduce_sum(b * tf.constant([[1.], [2.]]))
        train = tf.train.GradientDescentOptimizer(1.0).minimize(loss)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            s.run(train)
            values = {v.name: s.run(v).ravel()[:6] for v in tf.trainable_variables()}
    """)
    expected = {  # TF's values after the step
        "conv2d/kernel:0": [0.98183, 0.98183, 1.94478, 1.94478, 0.0, 0.0],
        "conv2d/bias:0": [0.0, 0.0], "dense/kernel:0": [0.0] * 6, "dense/bias:0": [-2.0],
        "batch_normalization/gamma:0": [0.65963], "batch_normalization/beta:0": [3.0]}
    assert list(ns["values"]) == list(expected)
    for name, want in expected.items():
        np.testing.assert_allclose(ns["values"][name], want, atol=1e-5)
