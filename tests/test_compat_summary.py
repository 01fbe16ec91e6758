"""tf.summary: a TF1 training loop's summaries land in a TensorBoard event file.

Oracles: CRC-32C's published check value, the values the same sess.run fetched, and
numpy for histograms.  (TensorBoard's own EventAccumulator read these files back in a
manual check; it is not a test dependency.)"""
import glob

import numpy as np
import pytest

import symgrad.compat.v1 as tf
from symgrad.compat.summary import crc32c, read_events

from .tf1_programs import run_tf1


def test_crc32c_check_value():
    assert crc32c(b"123456789") == 0xE3069283   # the CRC-32C (Castagnoli) check value
    assert crc32c(b"") == 0


def test_a_training_loop_writes_its_scalars_and_histograms(tmp_path):
    out = run_tf1(f"""
    import numpy as np
    import tensorflow as tf
    x = tf.placeholder(tf.float32, [None, 2])
    y = tf.placeholder(tf.float32, [None])
    w = tf.Variable(tf.zeros([2]), name="w")
    with tf.name_scope("train"):
        loss = tf.reduce_mean((tf.reduce_sum(x * w, 1) - y) ** 2)
        tf.summary.scalar("loss", loss)
    tf.summary.histogram("w", w)
    merged = tf.summary.merge_all()
    step = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    X = np.random.RandomState(0).randn(40, 2)
    Y = X.dot([2.0, -1.0])
    losses, weights = [], []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        writer = tf.summary.FileWriter({str(tmp_path / "logs")!r}, sess.graph)
        for i in range(4):
            summary, _, l, wv = sess.run([merged, step, loss, w], {{x: X, y: Y}})
            writer.add_summary(summary, i)
            losses.append(l)
            weights.append(wv)
        writer.add_summary(tf.Summary(value=[tf.Summary.Value(tag="lr", simple_value=0.1)]),
                           4)
        writer.close()
    """)
    (path,) = glob.glob(str(tmp_path / "logs" / "events.out.tfevents.*"))
    events = read_events(path)
    assert [step for step, _ in events] == [0, 1, 2, 3, 4]
    # the fetched w is the variable after the step (TF1's reference); the histogram, a
    # tensor computed from w, reads it before the step: the previous step's w
    before = [np.zeros(2)] + out["weights"][:-1]
    for (step, values), l, wv in zip(events[:4], out["losses"], before):
        assert values["train/loss"] == pytest.approx(float(l), rel=1e-7)
        # (TF's tag: a name scope unique in the graph, "w_1" beside the variable w)
        assert values["w_1"] == pytest.approx((2.0, float(np.sum(wv))), rel=1e-7)
    assert events[4][1] == {"lr": pytest.approx(0.1)}
    assert out["losses"][-1] < out["losses"][0]


def test_summary_edges_say_what_to_do(tmp_path):
    import symgrad.compat.v1 as tf
    with tf.Graph().as_default():
        assert tf.summary.merge_all() is None            # TF: no summaries, no op
        writer = tf.summary.FileWriter(str(tmp_path))
        with pytest.raises(ValueError, match="what sess.run of a summary returns"):
            writer.add_summary(3.0, 1)
        writer.close()
        with pytest.raises(ValueError, match="closed"):
            writer.add_summary(b"", 1)
        with pytest.raises(AttributeError, match="audio summaries are not written"):
            tf.summary.audio
        s = tf.summary.scalar("v", tf.constant([1.0, 2.0]))
        with tf.Session() as sess, pytest.raises(ValueError, match="one value"):
            sess.run(s)


def test_summary_tags_are_cleaned_and_unique_as_tfs(tmp_path):
    # checked against TF 2.21's compat.v1: loss_1 (a constant holds "loss"), loss__raw_
    import symgrad.compat.v1 as tf
    with tf.Graph().as_default():
        x = tf.constant(2.0, name="loss")
        ops = [tf.summary.scalar("loss", x), tf.summary.scalar("loss (raw)", x),
               tf.summary.scalar("loss", x)]
        with tf.Session() as sess:
            writer = tf.summary.FileWriter(str(tmp_path))
            for i, op in enumerate(ops):
                writer.add_summary(sess.run(op), i)
            writer.close()
    (path,) = glob.glob(str(tmp_path / "events.out.tfevents.*"))
    assert [list(values) for _, values in read_events(path)] == [
        ["loss_1"], ["loss__raw_"], ["loss_2"]]


def test_a_summary_run_reads_back_with_tf_summary_from_string():
    import symgrad.compat.v1 as tf
    with tf.Graph().as_default():
        x = tf.constant(2.5)
        w = tf.Variable([1.0, 2.0, 3.0], name="w")
        merged = tf.summary.merge([tf.summary.scalar("x", x), tf.summary.histogram("w", w)])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            data = sess.run(merged)
    parsed = tf.Summary()
    assert parsed.ParseFromString(data) == len(data)
    (scalar, hist) = parsed.value
    assert (scalar.tag, scalar.WhichOneof("value"), scalar.simple_value) == \
        ("x", "simple_value", 2.5)
    assert hist.tag == "w_1" and hist.HasField("histo") and not hist.HasField("simple_value")
    h = hist.histo
    assert (h.min, h.max, h.num, h.sum, h.sum_squares, sum(h.bucket)) == (1, 3, 3, 6, 14, 3)
    assert tf.Summary.FromString(data).SerializeToString() == data


def test_histogram_buckets_as_tf_writes_them():
    # TF 2.21's bytes for these values: a value on a limit counts in the next bucket up,
    # and each run of empty buckets is written as one, at the run's last limit
    with tf.Graph().as_default():
        h = tf.summary.histogram("h", tf.constant([0.5, 0.5, 2.0, -1.0, 0.0]))
        with tf.Session() as sess:
            histo = tf.Summary.FromString(sess.run(h)).value[0].histo
    assert (histo.min, histo.max, histo.num, histo.sum, histo.sum_squares) == (
        -1.0, 2.0, 5.0, 2.0, 5.5)
    assert list(histo.bucket_limit) == [
        -1.0089710279437536, -0.917246389039776, 0.0, 1e-12, 0.47069243095356195,
        0.5177616740489182, 1.9661990955585713, 2.1628190051144287, 1.7976931348623157e+308]
    assert list(histo.bucket) == [0.0, 1.0, 0.0, 1.0, 0.0, 2.0, 0.0, 1.0, 0.0]
