"""tf.data in compat.v1: datasets over values in memory and the four kinds of iterator,
checked against what the same pipeline gives when written out in numpy (TF's
documented semantics: slicing, batching with a smaller last batch, repeat, the
shuffle buffer's permutation), and TF1 training programs fed by datasets."""
import numpy as np
import pytest

import symgrad as sg
import symgrad.compat.v1 as tf

from .tf1_programs import run_tf1


def drain(tensors, session=None, feed_dict=None, limit=1000):
    """Every value ``tensors`` takes until OutOfRangeError."""
    out, sess = [], session or tf.Session()
    for _ in range(limit):
        try:
            out.append(sess.run(tensors, feed_dict))
        except tf.errors.OutOfRangeError:
            return out
    raise AssertionError("the dataset did not end")


def ragged(*lengths):
    """Sequences of these lengths, each filled with its length, from a generator."""
    def gen():
        for n in lengths:
            yield [n] * n
    return tf.data.Dataset.from_generator(gen, tf.int64, tf.TensorShape([None]))


def elements(ds):
    return drain(ds.make_one_shot_iterator().get_next())


@pytest.fixture(autouse=True)
def graph():
    with sg.Graph().as_default() as g:
        yield g


def test_slices_batch_and_the_smaller_last_batch():
    x, y = np.arange(10.0).reshape(5, 2), np.arange(5)
    ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(2)
    assert ds.output_types == (np.float64, np.int64)
    assert [s.as_list() for s in ds.output_shapes] == [[None, 2], [None]]
    got = elements(ds)
    assert [len(b) for b, _ in got] == [2, 2, 1]
    np.testing.assert_array_equal(np.concatenate([b for b, _ in got]), x)
    np.testing.assert_array_equal(np.concatenate([c for _, c in got]), y)
    assert len(elements(tf.data.Dataset.from_tensor_slices(x).batch(2, drop_remainder=True))) == 2


def test_python_lists_are_tensors_of_tf_dtypes_and_dicts_are_structures():
    ds = tf.data.Dataset.from_tensor_slices({"a": [1.0, 2.0], "b": [[1, 2], [3, 4]]})
    assert ds.output_types == {"a": np.float32, "b": np.int32}
    got = elements(ds)
    assert [float(e["a"]) for e in got] == [1.0, 2.0]
    assert [e["b"].tolist() for e in got] == [[1, 2], [3, 4]]


def test_get_next_tensors_share_one_element_per_run_and_each_call_advances():
    it = tf.data.Dataset.range(10).make_one_shot_iterator()
    a = it.get_next()
    b = it.get_next()
    with tf.Session() as sess:
        assert sess.run([a, a * 2]) == [0, 0]
        assert sess.run([a, b]) == [1, 2]
        assert sess.run(b) == 3


def test_shuffle_is_a_permutation_reshuffled_each_pass_and_seeded():
    ds = tf.data.Dataset.range(50).shuffle(10, seed=3).repeat(2)
    got = [int(v) for v in elements(ds)]
    first, second = got[:50], got[50:]
    assert sorted(first) == list(range(50)) and sorted(second) == list(range(50))
    assert first != list(range(50)) and first != second
    assert [int(v) for v in elements(ds)] == got          # seed=: the same each time
    fixed = tf.data.Dataset.range(20).shuffle(5, seed=1, reshuffle_each_iteration=False)
    again = [int(v) for v in elements(fixed.repeat(2))]
    assert again[:20] == again[20:]


def test_shuffle_buffer_bounds_how_far_an_element_moves_forward():
    # TF's algorithm: element i cannot come out before position i - buffer_size + 1
    got = [int(v) for v in elements(tf.data.Dataset.range(200).shuffle(4))]
    assert sorted(got) == list(range(200))
    assert all(pos >= v - 3 for pos, v in enumerate(got))


def test_take_skip_shard_enumerate_concatenate_zip_filter():
    r = tf.data.Dataset.range
    assert [int(v) for v in elements(r(10).skip(3).take(4))] == [3, 4, 5, 6]
    assert [int(v) for v in elements(r(10).shard(3, 1))] == [1, 4, 7]
    assert [tuple(map(int, e)) for e in elements(r(3, 6).enumerate())] == [
        (0, 3), (1, 4), (2, 5)]
    assert [int(v) for v in elements(r(2).concatenate(r(5, 7)))] == [0, 1, 5, 6]
    pairs = tf.data.Dataset.zip((r(5), r(10, 20))).filter(lambda a, b: tf.equal(a % 2, 0))
    assert [tuple(map(int, e)) for e in elements(pairs)] == [(0, 10), (2, 12), (4, 14)]
    assert [int(v) for v in elements(r(3).repeat(2))] == [0, 1, 2, 0, 1, 2]
    assert elements(r(0).repeat()) == []                  # an empty pass ends it


def test_map_flat_map_unbatch_and_padded_batch():
    r = tf.data.Dataset.range
    squares = r(4).map(lambda x: (x * x, tf.cast(x, tf.float32) / 2.0))
    assert squares.output_types == (np.int64, np.float32)
    assert [(int(a), float(b)) for a, b in elements(squares)] == [
        (0, 0.0), (1, 0.5), (4, 1.0), (9, 1.5)]
    flat = r(4).flat_map(lambda x: tf.data.Dataset.from_tensors(x).repeat(x))
    assert [int(v) for v in elements(flat)] == [1, 2, 2, 3, 3, 3]
    rows = tf.data.Dataset.from_tensors(np.arange(6).reshape(3, 2)).unbatch()
    assert [v.tolist() for v in elements(rows)] == [[0, 1], [2, 3], [4, 5]]
    padded = elements(ragged(1, 2, 3).padded_batch(2, padded_shapes=[None],
                                                   padding_values=-1))
    assert [b.tolist() for b in padded] == [[[1, -1], [2, 2]], [[3, 3, 3]]]


def test_map_random_ops_draw_anew_for_each_element():
    noisy = tf.data.Dataset.from_tensors(0.0).repeat(5).map(
        lambda x: x + tf.random_uniform([]))
    got = [float(v) for v in elements(noisy)]
    assert len(set(got)) == 5 and all(0.0 <= v < 1.0 for v in got)


def test_map_captures_tensors_of_the_graph():
    scale = tf.constant(3.0)
    ds = tf.data.Dataset.from_tensor_slices(np.array([1.0, 2.0], np.float32))
    assert [float(v) for v in elements(ds.map(lambda x: x * scale))] == [3.0, 6.0]


def test_cache_replays_the_first_pass():
    ds = tf.data.Dataset.from_tensors(0.0).repeat(3).map(
        lambda x: x + tf.random_uniform([])).cache().repeat(2)
    got = [float(v) for v in elements(ds)]
    assert got[:3] == got[3:] and len(set(got[:3])) == 3


def test_initializable_iterator_reads_placeholders_when_initialized():
    data = tf.placeholder(tf.float32, [None, 2])
    size = tf.placeholder(tf.int64, [])
    it = tf.data.Dataset.from_tensor_slices(data).batch(size).make_initializable_iterator()
    nxt = it.get_next()
    with tf.Session() as sess:
        with pytest.raises(tf.errors.FailedPreconditionError, match="initializer"):
            sess.run(nxt)
        sess.run(it.initializer, {data: np.ones((5, 2)), size: 2})
        assert [len(b) for b in drain(nxt, sess)] == [2, 2, 1]
        with pytest.raises(tf.errors.OutOfRangeError):
            sess.run(nxt)
        sess.run(it.initializer, {data: np.zeros((3, 2)), size: 3})   # again, anew
        np.testing.assert_array_equal(sess.run(nxt), np.zeros((3, 2)))


def test_iterators_keep_their_position_per_session():
    nxt = tf.data.Dataset.range(5).make_one_shot_iterator().get_next()
    with tf.Session() as one, tf.Session() as two:
        assert [one.run(nxt), one.run(nxt), two.run(nxt)] == [0, 1, 0]


def test_reinitializable_and_feedable_iterators():
    train = tf.data.Dataset.range(100).map(lambda x: x * 10).repeat()
    valid = tf.data.Dataset.range(3)
    it = tf.data.Iterator.from_structure(train.output_types, train.output_shapes)
    nxt = it.get_next()
    to_train, to_valid = it.make_initializer(train), it.make_initializer(valid)
    with tf.Session() as sess:
        sess.run(to_train)
        assert [sess.run(nxt) for _ in range(2)] == [0, 10]
        sess.run(to_valid)
        assert [int(v) for v in drain(nxt, sess)] == [0, 1, 2]
    with pytest.raises(TypeError, match="types"):
        it.make_initializer(tf.data.Dataset.from_tensors(1.0))

    handle = tf.placeholder(tf.string, shape=[])
    fed = tf.data.Iterator.from_string_handle(handle, train.output_types, train.output_shapes)
    element = fed.get_next()
    train_it, valid_it = train.make_one_shot_iterator(), valid.make_initializable_iterator()
    with tf.Session() as sess:
        th, vh = sess.run([train_it.string_handle(), valid_it.string_handle()])
        assert isinstance(th, bytes) and th != vh
        sess.run(valid_it.initializer)
        got = [sess.run(element, {handle: h}) for h in (th, th, vh, th, vh)]
        assert got == [0, 10, 0, 20, 1]
        with pytest.raises(tf.errors.InvalidArgumentError, match="handle"):
            sess.run(element)


def test_bad_input_says_what_to_do():
    x = tf.placeholder(tf.float32, [None])
    with pytest.raises(ValueError, match="make_initializable_iterator"):
        tf.data.Dataset.from_tensor_slices(x).make_one_shot_iterator()
    with pytest.raises(ValueError, match="different first sizes"):
        tf.data.Dataset.from_tensor_slices((np.ones(3), np.ones(4)))
    with pytest.raises(TypeError, match="through an iterator"):
        iter(tf.data.Dataset.range(3))
    with pytest.raises(tf.errors.InvalidArgumentError, match="padded_batch"):
        elements(ragged(1, 2).batch(2))

    def gen():
        yield np.ones(3)
    bad = tf.data.Dataset.from_generator(gen, tf.float32, tf.TensorShape([2]))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"shape \[3\].*\[2\]"):
        elements(bad)
    with pytest.raises(AttributeError, match="numpy"):
        tf.data.TextLineDataset  # noqa: B018


def test_from_generator_runs_the_generator_anew_each_pass():
    calls = []

    def gen():
        calls.append(1)
        for i in range(1, 4):
            yield i, [float(i)] * i
    ds = tf.data.Dataset.from_generator(gen, (tf.int64, tf.float32),
                                        (tf.TensorShape([]), tf.TensorShape([None])))
    got = elements(ds.repeat(2))
    assert len(calls) == 2 and [int(a) for a, _ in got] == [1, 2, 3, 1, 2, 3]
    assert got[2][1].dtype == np.float32 and got[2][1].tolist() == [3.0, 3.0, 3.0]


def test_sgd_on_dataset_batches_equals_numpy():
    """Linear regression by minibatch SGD: the program reads batches from a dataset
    (epochs ended by OutOfRangeError); numpy replays the same batches."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 3)).astype(np.float32)
    Y = (X @ np.array([[1.0], [-2.0], [0.5]]) + 0.3).astype(np.float32)
    ns = run_tf1("""
        import tensorflow as tf
        features = tf.placeholder(tf.float32, [None, 3])
        labels = tf.placeholder(tf.float32, [None, 1])
        dataset = tf.data.Dataset.from_tensor_slices((features, labels)).batch(16)
        iterator = dataset.make_initializable_iterator()
        x, y = iterator.get_next()
        W = tf.Variable(tf.zeros([3, 1]))
        b = tf.Variable(0.0)
        loss = tf.reduce_mean(tf.square(tf.matmul(x, W) + b - y))
        train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        losses = []
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for epoch in range(5):
                sess.run(iterator.initializer, feed_dict={features: X, labels: Y})
                while True:
                    try:
                        _, l = sess.run([train_op, loss])
                        losses.append(l)
                    except tf.errors.OutOfRangeError:
                        break
            W_final, b_final = sess.run([W, b])
        """, X=X, Y=Y)
    w, b, expected = np.zeros((3, 1)), 0.0, []
    for _ in range(5):
        for s in range(0, 50, 16):
            xb, yb = X[s:s + 16].astype(np.float64), Y[s:s + 16].astype(np.float64)
            r = xb @ w + b - yb
            expected.append(np.mean(r ** 2))   # fetched with the step: the loss before it
            w, b = w - 0.1 * 2 * xb.T @ r / len(xb), b - 0.1 * 2 * np.mean(r)
    np.testing.assert_allclose(ns["losses"], expected, rtol=2e-5)
    np.testing.assert_allclose(ns["W_final"], w, rtol=2e-5, atol=1e-6)
    np.testing.assert_allclose(ns["b_final"], b, rtol=2e-5, atol=1e-6)


def test_the_guide_pipeline_map_shuffle_repeat_batch_trains():
    rng = np.random.default_rng(1)
    images = rng.integers(0, 256, size=(120, 6)).astype(np.uint8)
    classes = (images[:, 0] > 127).astype(np.int64)
    ns = run_tf1("""
        import tensorflow as tf
        def parse(image, label):
            return tf.cast(image, tf.float32) / 255.0, tf.one_hot(label, 2)
        dataset = tf.data.Dataset.from_tensor_slices((images, classes))
        dataset = dataset.map(parse, num_parallel_calls=4)
        dataset = dataset.shuffle(buffer_size=100).repeat().batch(30).prefetch(1)
        image_batch, label_batch = tf.compat.v1.data.make_one_shot_iterator(dataset).get_next()
        logits = tf.layers.dense(image_batch, 2)
        loss = tf.losses.softmax_cross_entropy(label_batch, logits)
        step = tf.train.AdamOptimizer(0.1).minimize(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            shape = sess.run(tf.shape(image_batch))
            first = sess.run(loss)
            for _ in range(60):
                sess.run(step)
            last = sess.run(loss)
        """, images=images, classes=classes)
    assert ns["shape"].tolist() == [30, 6]
    assert ns["last"] < 0.5 * ns["first"]


def test_window_and_interleave_give_the_orders_tfs_documentation_shows():
    r = tf.data.Dataset.range
    windows = r(7).window(3, shift=2).flat_map(lambda w: w.batch(3))
    assert [b.tolist() for b in elements(windows)] == [[0, 1, 2], [2, 3, 4], [4, 5, 6], [6]]
    strided = r(7).window(3, shift=1, stride=2, drop_remainder=True)
    assert [b.tolist() for b in elements(strided.flat_map(lambda w: w.batch(3)))] == [
        [0, 2, 4], [1, 3, 5], [2, 4, 6]]
    pairs = tf.data.Dataset.zip((r(5), r(5).map(lambda v: v * 10))).window(2, drop_remainder=True)
    got = elements(pairs.flat_map(lambda a, b: tf.data.Dataset.zip((a.batch(2), b.batch(2)))))
    assert [(a.tolist(), b.tolist()) for a, b in got] == [([0, 1], [0, 10]), ([2, 3], [20, 30])]
    with pytest.raises(TypeError, match="flat_map"):
        r(3).window(2).make_one_shot_iterator()
    mixed = r(1, 6).interleave(lambda x: tf.data.Dataset.from_tensors(x).repeat(6),
                               cycle_length=2, block_length=4)
    assert [int(v) for v in elements(mixed)] == [1, 1, 1, 1, 2, 2, 2, 2, 1, 1, 2, 2, 3, 3, 3,
                                                3, 4, 4, 4, 4, 3, 3, 4, 4, 5, 5, 5, 5, 5, 5]


def test_tensor_arguments_are_read_when_the_iterator_starts():
    limit = tf.placeholder(tf.int64, shape=[])
    it = tf.data.Dataset.range(limit).make_initializable_iterator()
    nxt = it.get_next()
    sess = tf.Session()
    sess.run(it.initializer, {limit: 3})
    assert [int(v) for v in drain(nxt, sess)] == [0, 1, 2]
    padded = ragged(1, 3).padded_batch(2, padded_shapes=[4],
                                       padding_values=tf.constant(-1, tf.int64))
    assert [b.tolist() for b in elements(padded)] == [[[1, -1, -1, -1], [3, 3, 3, -1]]]


def test_size_of_a_tensor_with_sizes_known_at_run_time():
    x = tf.placeholder(tf.int32, [None, 2])
    lengths = ragged(1, 3).map(lambda seq: (seq, tf.size(seq)))
    with tf.Session() as sess:
        assert sess.run(tf.size(x), {x: np.ones((3, 2))}) == 6
    assert [int(n) for _, n in elements(lengths)] == [1, 3]


def test_a_fetch_sized_by_the_next_batch_takes_the_batch():
    # tf.ones_like(batch) and tf.shape(batch) read only the batch's size, but TF reads the
    # batch for them (and moves the iterator on), as TF 2.21 prints for this program
    with tf.Graph().as_default():
        data = np.arange(10, dtype=np.float32).reshape(5, 2)
        batch = tf.data.make_one_shot_iterator(
            tf.data.Dataset.from_tensor_slices(data).batch(2)).get_next()
        with tf.Session() as sess:
            ones = sess.run(tf.ones_like(batch))
            zeros = sess.run(tf.zeros_like(batch, dtype=tf.int32))
            size, last = sess.run([tf.shape(batch), batch])
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(tf.ones_like(batch))
    assert ones.tolist() == [[1.0, 1.0], [1.0, 1.0]] and zeros.tolist() == [[0, 0], [0, 0]]
    assert size.tolist() == [1, 2] and last.tolist() == [[8.0, 9.0]]
