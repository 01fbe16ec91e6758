"""What the eleventh differential probe (hunkim's DeepLearningZeroToAll, nfmcclure's
TensorFlow Machine Learning Cookbook) found, against real TensorFlow 2.21 (compat.v1,
v2 behaviour disabled).  The numbers are TF 2.21's."""
import numpy as np
import pytest

import symgrad.compat.v1 as tf


def _siamese(net):
    # the cookbook's Siamese address matcher: the same net on two inputs, the second
    # call in the reused scope (scope.reuse_variables())
    x1 = tf.constant(np.linspace(-1, 1, 12).reshape(2, 2, 3), tf.float32)
    with tf.variable_scope("siamese", initializer=tf.glorot_uniform_initializer(seed=3)) as scope:
        o1 = net(x1)
        scope.reuse_variables()
        o2 = net(x1 * 0.5)
    return o1, o2


def test_static_bidirectional_rnn_reuses_its_variables_in_a_reused_scope():
    # static_bidirectional_rnn opened default_name="bidirectional_rnn", a fresh
    # bidirectional_rnn_1 on the second call, whose variables did not exist
    def net(x):
        fw, bw = tf.nn.rnn_cell.BasicLSTMCell(2), tf.nn.rnn_cell.BasicLSTMCell(2)
        out, _, _ = tf.nn.static_bidirectional_rnn(fw, bw, tf.unstack(x, axis=1),
                                                   dtype=tf.float32)
        return out[-1]
    with tf.Graph().as_default():
        o1, o2 = _siamese(net)
        assert [v.name for v in tf.global_variables()] == [
            "siamese/bidirectional_rnn/fw/basic_lstm_cell/kernel:0",
            "siamese/bidirectional_rnn/fw/basic_lstm_cell/bias:0",
            "siamese/bidirectional_rnn/bw/basic_lstm_cell/kernel:0",
            "siamese/bidirectional_rnn/bw/basic_lstm_cell/bias:0"]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            first, second = sess.run([o1, o2])
    # TF 2.21
    np.testing.assert_allclose(first, [[-0.2286846, 0.1855832, -0.0727375, 0.0784446],
                                       [0.0265135, -0.0536024, 0.024816, -0.0493106]],
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(second, [[-0.1009539, 0.091218, -0.0334019, 0.0359671],
                                        [0.0233192, -0.0355014, 0.0219053, -0.0327233]],
                               rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("kind", ["static", "dynamic", "bidirectional"])
def test_rnn_scope_is_a_name_not_a_default_name(kind):
    # TF opens `scope or "rnn"`: reused as is in a reused scope, and a second rnn in
    # the same scope without reuse is TF's "already exists" error, not a fresh rnn_1
    def net(x):
        cell = tf.nn.rnn_cell.BasicLSTMCell(2)
        if kind == "static":
            return tf.nn.static_rnn(cell, tf.unstack(x, axis=1), dtype=tf.float32)[0][-1]
        if kind == "dynamic":
            return tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)[0]
        return tf.nn.bidirectional_dynamic_rnn(cell, tf.nn.rnn_cell.BasicLSTMCell(2), x,
                                               dtype=tf.float32)[0][0]
    prefix = "siamese/bidirectional_rnn/fw" if kind == "bidirectional" else "siamese/rnn"
    with tf.Graph().as_default():
        _siamese(net)
        assert tf.global_variables()[0].name == f"{prefix}/basic_lstm_cell/kernel:0"
        with tf.variable_scope("other"):
            net(tf.ones([1, 2, 3]))
            with pytest.raises(ValueError, match="already exists"):
                net(tf.ones([1, 2, 3]))


def test_truncated_normal_draws_anew_at_each_run():
    # the cookbook's "Working with Matrices": A = tf.truncated_normal([2,3]); print
    # sess.run(A) then sess.run(A + B); symgrad drew A once, so the second run printed
    # the first run's numbers again (and a shape known only at run time was refused)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 2])
        a = tf.truncated_normal([2, 3], seed=1001)
        r = tf.truncated_normal(tf.shape(x), mean=1.0, stddev=0.5, seed=7)
        with tf.Session() as sess:
            first, second = sess.run(a), sess.run(a + 5.0)
            fed = sess.run(r, {x: np.zeros((3, 2))})
    # TF 2.21
    np.testing.assert_allclose(first, [[-1.126882, -0.8090848, -0.6569597],
                                       [0.5227453, 0.2682545, 0.9647047]], rtol=1e-6)
    np.testing.assert_allclose(second, [[4.131318, 4.4851546, 5.1691933],
                                        [4.1300035, 4.7968683, 5.683183]], rtol=1e-6)
    np.testing.assert_allclose(fed, [[0.9765272, 0.3980488], [1.5834177, 1.5853102],
                                     [1.3583131, 1.2855668]], rtol=1e-6)


def test_unseeded_truncated_normal_is_truncated_and_redrawn():
    # (symgrad's own numbers without an op seed: within two standard deviations, new
    # at each run, the same again in a new session, as random_normal's)
    with tf.Graph().as_default():
        tf.set_random_seed(5)
        t = tf.truncated_normal([400], mean=3.0, stddev=0.5)
        with tf.Session() as sess:
            one, two = sess.run(t), sess.run(t)
        with tf.Session() as sess:
            again = sess.run(t)
    assert not np.array_equal(one, two) and np.array_equal(one, again)
    assert np.abs(np.concatenate([one, two]) - 3.0).max() < 1.0
    assert abs(np.std(one) - 0.5 * 0.8796) < 0.06   # a 2-sigma truncated normal's std


def test_top_k_over_a_last_axis_known_at_run_time():
    # the cookbook's k-nearest-neighbours: distances between a fed test batch and a fed
    # training set ([None, None]), then tf.nn.top_k(-distance, k); the bound check
    # compared k with the unknown size (TypeError) when the graph was built
    r = np.random.RandomState(0)
    train, test = r.rand(5, 3).astype(np.float32), r.rand(2, 3).astype(np.float32)
    with tf.Graph().as_default():
        a, b = tf.placeholder(tf.float32, [None, 3]), tf.placeholder(tf.float32, [None, 3])
        distance = tf.reduce_sum(tf.abs(tf.subtract(a, tf.expand_dims(b, 1))), axis=2)
        values, indices = tf.nn.top_k(tf.negative(distance), k=2)
        pred = tf.reduce_mean(tf.gather(tf.constant([10., 20., 30., 40., 50.]), indices), 1)
        assert values.shape.as_list() == indices.shape.as_list() == [None, 2]
        with tf.Session() as sess:
            got = sess.run([values, indices, pred], {a: train, b: test})
            # TF: InvalidArgumentError (input must have at least k columns)
            with pytest.raises(ValueError, match="at least k=2 columns"):
                sess.run(values, {a: train[:1], b: test})
    # TF 2.21
    np.testing.assert_allclose(got[0], [[-1.047916, -1.3530555], [-0.37728596, -0.76002103]],
                               rtol=1e-6)
    np.testing.assert_array_equal(got[1], [[1, 2], [2, 0]])
    np.testing.assert_array_equal(got[2], [25.0, 20.0])


def _png_pixels(data):
    """The pixels of a PNG without filters (what symgrad writes), read by hand."""
    import struct
    import zlib
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    at, idat = 8, b""
    while at < len(data):
        n = struct.unpack(">I", data[at:at + 4])[0]
        kind, body = data[at + 4:at + 8], data[at + 8:at + 8 + n]
        if kind == b"IHDR":
            width, height, _, color = struct.unpack(">IIBB", body[:10])
        idat += body if kind == b"IDAT" else b""
        at += 12 + n
    channels = {0: 1, 2: 3, 6: 4}[color]
    raw = np.frombuffer(zlib.decompress(idat), np.uint8).reshape(height, 1 + width * channels)
    return raw[:, 1:].reshape(-1).tolist()


def test_summary_image_writes_tf_pixels():
    # hunkim's lab-13 (TensorBoard): tf.summary.image('input', x_image, 3) raised
    # AttributeError; TF writes the first max_outputs images as PNGs, floats scaled
    # per image (255 / max, or 127 / max|x| + 128 with negatives), NaN pixels red
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 2, 3, 1])
        tf.summary.image("input", x, 3)
        tf.summary.image("rgb", tf.constant(
            [[[[0.5, -1.0, 2.0], [1.0, 0.0, 0.25]], [[1.0, np.nan, 0.0], [3.0, 4.0, 0.5]]]]), 1)
        tf.summary.image("u8", tf.constant(np.arange(12, dtype=np.uint8).reshape(1, 2, 2, 3) * 20),
                         2)
        merged = tf.summary.merge_all()
        batch = np.array([[[0.1, 0.5, 1.0], [0.0, 0.2, 0.3]], [[0.0] * 3, [0.0] * 3],
                          [[-2.0, 1.0, 0.5], [0.25, -0.1, 3.0]], [[9.0] * 3, [9.0] * 3]],
                         np.float32)[..., None]
        with tf.Session() as sess:
            summary = tf.Summary.FromString(sess.run(merged, {x: batch}))
        with pytest.raises(ValueError, match="channels"):
            tf.summary.image("bad", tf.ones([2, 4, 4, 2]))
    got = [(v.tag, v.image.height, v.image.width, v.image.colorspace,
            _png_pixels(v.image.encoded_image_string)) for v in summary.value]
    # TF 2.21 (its PNGs decoded with tf.image.decode_png)
    assert got == [
        ("input/image/0", 2, 3, 1, [25, 127, 255, 0, 51, 76]),
        ("input/image/1", 2, 3, 1, [0, 0, 0, 0, 0, 0]),
        ("input/image/2", 2, 3, 1, [43, 170, 149, 138, 123, 255]),
        ("rgb/image", 2, 2, 3, [143, 96, 191, 159, 128, 135, 255, 0, 0, 223, 255, 143]),
        ("u8/image/0", 2, 2, 3, [0, 20, 40, 60, 80, 100, 120, 140, 160, 180, 200, 220])]


def test_vocabulary_processor(tmp_path):
    # the cookbook's bag of words and spam RNN: VocabularyProcessor(sentence_size,
    # min_frequency=...).fit_transform(texts) gave AttributeError (tf.contrib.learn).
    # TF 2.21 has no contrib: the rows follow TF 1.x's text.py rules, worked by hand
    # (ids from 1 in the order met, 0 for unknown words and padding; with
    # min_frequency the words seen more often, renumbered by falling count, ties by word)
    learn = tf.contrib.learn
    docs = ["the cat sat", "the dog sat down", "a cat"]
    plain = learn.preprocessing.VocabularyProcessor(3)
    assert [r.tolist() for r in plain.fit_transform(docs)] == [[1, 2, 3], [1, 4, 3], [6, 2, 0]]
    assert len(plain.vocabulary_) == 7
    assert [r.tolist() for r in plain.transform(["a bird sat"])] == [[6, 0, 3]]
    assert list(plain.reverse([[1, 0, 2]])) == ["the <UNK> cat"]
    trimmed = learn.preprocessing.VocabularyProcessor(5, min_frequency=1)
    rows = np.array(list(trimmed.fit_transform(docs)))
    assert rows.dtype == np.int64 and len(trimmed.vocabulary_) == 4
    np.testing.assert_array_equal(rows, [[3, 1, 2, 0, 0], [3, 0, 2, 0, 0], [0, 1, 0, 0, 0]])
    trimmed.save(str(tmp_path / "vocab"))
    again = learn.preprocessing.VocabularyProcessor.restore(str(tmp_path / "vocab"))
    assert [r.tolist() for r in again.transform(["sat cat"])] == [[2, 1, 0, 0, 0]]
    assert list(learn.preprocessing.tokenizer(["IBMPowerPC isn't well-known, OK?"])) == [
        ["IBM", "Power", "PC", "isn't", "well-known", "OK"]]


@pytest.mark.parametrize("name", ["image.decode_png", "image.decode_jpeg", "io.decode_image",
                                  "image.encode_png"])
def test_image_codecs_say_to_decode_in_python(name):
    # the cookbook's TensorBoard recipe: tf.image.decode_png(plot_buf.getvalue()) said
    # only "not implemented"; encoded images are string tensors, which symgrad has not
    owner, attr = name.split(".")
    with pytest.raises(AttributeError, match=f"tf.{name}: encoded images are string "
                       "tensors.*decode the bytes in Python"):
        getattr(getattr(tf, owner), attr)
