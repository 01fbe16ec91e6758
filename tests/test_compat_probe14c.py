"""Round-14 probe c: answers symgrad gave where TensorFlow 2.21 (compat.v1, v2
behaviour disabled) raises or answers otherwise -- each session holding its own
variable values, an assign's ``.op`` fetched as None, integer powers and divisions
TF refuses, and indices out of range.  The numbers are TF's printed output for the
same programs."""
import os

import numpy as np
import pytest

import symgrad.compat.v1 as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default() as g:
        yield g


# ---- each session holds its own variable values (TF1's) ----

def test_sessions_hold_their_own_values():
    v = tf.Variable(1.0, name="v")
    inc = tf.assign_add(v, 1.0)
    init = tf.global_variables_initializer()
    s1, s2 = tf.Session(), tf.Session()
    s1.run(init)
    with pytest.raises(tf.errors.FailedPreconditionError):
        s2.run(v)
    assert [s1.run(inc), s1.run(inc)] == [2.0, 3.0]
    s2.run(init)
    # TF: s2 starts at 1.0; s1 keeps 3.0 through s2's initializer and increment
    assert s2.run(v) == 1.0 and s1.run(v) == 3.0
    assert s2.run(inc) == 2.0 and s1.run(v) == 3.0
    v.load(10.0, s2)
    assert s2.run(v) == 10.0 and s1.run(v) == 3.0
    with s1.as_default():
        assert v.eval() == 3.0
    assert v.eval(session=s2) == 10.0


def test_restore_and_close_touch_one_session(tmp_path):
    v = tf.Variable(1.0, name="v")
    inc = tf.assign_add(v, 1.0)
    init = tf.global_variables_initializer()
    s1, s2 = tf.Session(), tf.Session()
    s1.run(init), s1.run(inc), s1.run(inc)
    s2.run(init)
    v.load(10.0, s2)
    path = tf.train.Saver().save(s1, os.path.join(str(tmp_path), "m"))
    s3 = tf.Session()
    with pytest.raises(tf.errors.FailedPreconditionError):
        s3.run(v)
    tf.train.Saver().restore(s3, path)
    assert s3.run(v) == 3.0 and s3.run(inc) == 4.0     # TF: 3.0, 4.0
    assert s1.run(v) == 3.0 and s2.run(v) == 10.0      # TF: unchanged
    s1.close()
    with pytest.raises(tf.errors.FailedPreconditionError):
        tf.Session().run(v)
    s5 = tf.Session()
    assert s5.run(tf.assign(v, 7.0)) == 7.0 and s2.run(v) == 10.0
    sess = tf.InteractiveSession()
    init.run()
    inc.eval()
    assert v.eval() == 2.0 and s2.run(v) == 10.0       # TF: 2.0, 10.0
    sess.close()


def test_training_in_one_session_leaves_another():
    w = tf.Variable([1.0, 2.0], name="w")
    train = tf.train.AdamOptimizer(0.1).minimize(tf.reduce_sum(w * w))
    init = tf.global_variables_initializer()
    a, b = tf.Session(), tf.Session()
    a.run(init), b.run(init)
    for _ in range(3):
        a.run(train)
    np.testing.assert_allclose(a.run(w), [0.7015873, 1.7006245], rtol=1e-6)
    np.testing.assert_array_equal(b.run(w), [1.0, 2.0])
    b.run(train)
    np.testing.assert_allclose(b.run(w), [0.90000004, 1.9], rtol=1e-6)
    np.testing.assert_allclose(a.run(w), [0.7015873, 1.7006245], rtol=1e-6)


# ---- an assign's .op is an Operation: fetched, it gives None ----

def test_assign_op_fetches_none():
    v = tf.Variable(3.0, name="v")
    w = tf.Variable([1.0, 2.0], name="w")
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    assert sess.run(tf.assign(v, 1.0).op) is None
    assert sess.run(tf.assign(v, 2.0)) == 2.0
    assert sess.run(tf.assign_add(v, 1.0).op) is None and sess.run(v) == 3.0
    assert sess.run(tf.scatter_update(w, [0], [9.0]).op) is None
    assert sess.run(w.assign_sub([1.0, 1.0]).op) is None
    np.testing.assert_array_equal(sess.run(w), [8.0, 1.0])
    got = sess.run({"a": tf.assign_add(v, 1.0).op, "g": tf.group(tf.assign(w, [0., 0.]).op)})
    assert got == {"a": None, "g": None} and sess.run(v) == 4.0
    # the view runs the assign itself: fetched with it, the update happens once
    up = tf.assign_add(v, 1.0)
    assert sess.run([up, up.op])[1] is None and sess.run(v) == 5.0


# ---- integer pow and division: TF's kernels refuse what numpy would answer ----

def _raises(sess, fetch, feed=None, cls=None):
    with pytest.raises(cls or tf.errors.InvalidArgumentError) as info:
        sess.run(fetch, feed)
    return info.value.message.splitlines()[0]


def test_integer_pow_to_negative_power_raises():
    x = tf.placeholder(tf.int32, [None])
    e = tf.placeholder(tf.int32, [])
    sess = tf.Session()
    assert _raises(sess, tf.pow(x, e), {x: [2, 3], e: -2}) == \
        "Integers to negative integer powers are not allowed"
    assert _raises(sess, tf.pow(x, tf.constant([1, -1])), {x: [1, 3]}) == \
        "Integers to negative integer powers are not allowed"
    # (TF's grappler turns a constant -1 into Reciprocal, which has no integer kernel:
    # NotFoundError there; symgrad raises the message above for every negative power)
    _raises(sess, x ** -1, {x: [2, 3]}, tf.errors.OpError)
    np.testing.assert_array_equal(sess.run(tf.pow(x, e), {x: [2, 3], e: 2}), [4, 9])
    np.testing.assert_allclose(sess.run(tf.pow(tf.constant([2.0]), -1.0)), [0.5])


@pytest.mark.parametrize("op", [tf.math.floordiv, tf.math.floormod, tf.div,
                                lambda a, b: a // b, lambda a, b: a % b])
def test_integer_division_by_zero_raises(op):
    x, y = tf.placeholder(tf.int32, [None]), tf.placeholder(tf.int32, [None])
    sess = tf.Session()
    assert _raises(sess, op(x, y), {x: [7, -7], y: [2, 0]}) == "Integer division by zero"
    assert sess.run(op(x, y), {x: [7, -7], y: [2, 3]}).tolist() in ([3, -3], [1, 2])


def test_truncated_division_by_zero_is_tf_internal_error():
    x, y = tf.placeholder(tf.int32, [None]), tf.placeholder(tf.int32, [None])
    sess = tf.Session()
    for op in (tf.truncatediv, tf.truncatemod):
        assert _raises(sess, op(x, y), {x: [7, -7], y: [2, 0]}, tf.errors.InternalError) == \
            "Unexpected error in binary operator (only integer div and mod should have errors)"
    assert sess.run(tf.truncatediv(x, y), {x: [7, -7], y: [2, 3]}).tolist() == [3, -2]
    assert sess.run(tf.truncatemod(x, y), {x: [7, -7], y: [2, 3]}).tolist() == [1, -1]
    np.testing.assert_array_equal(sess.run(tf.math.floordiv(tf.constant([3.0]),
                                                            tf.constant([0.0]))), [np.inf])


# ---- indices out of range: TF's InvalidArgumentError, not zeros ----

def test_gathers_out_of_range_raise():
    params = tf.constant(np.arange(10.0).reshape(5, 2), tf.float32)
    i = tf.placeholder(tf.int32, [None])
    i22 = tf.placeholder(tf.int32, [2, 2])
    sess = tf.Session()
    assert _raises(sess, tf.gather(params, i), {i: [0, 7]}) == "indices[1] = 7 is not in [0, 5)"
    assert _raises(sess, tf.gather(params, i), {i: [0, -1]}) == "indices[1] = -1 is not in [0, 5)"
    assert _raises(sess, tf.gather(params, i, axis=1), {i: [0, 2]}) == \
        "indices[1] = 2 is not in [0, 2)"
    assert _raises(sess, tf.gather(params, i22), {i22: [[0, 1], [7, 0]]}) == \
        "indices[1,0] = 7 is not in [0, 5)"
    assert _raises(sess, tf.nn.embedding_lookup(params, i), {i: [1, 9]}) == \
        "indices[1] = 9 is not in [0, 5)"
    assert _raises(sess, tf.gather(params[:, 0], tf.placeholder_with_default(12, []))) == \
        "indices = 12 is not in [0, 5)"
    assert _raises(sess, tf.gather_nd(params, i22), {i22: [[0, 1], [5, 0]]}).startswith(
        "indices[1] = [5, 0] does not index into param shape [5,2], node name: ")
    # a tuple whose flat position would be in range: [1, 2] is row 2's first entry
    assert _raises(sess, tf.gather_nd(params, i22), {i22: [[0, 1], [1, 2]]}).startswith(
        "indices[1] = [1, 2] does not index into param shape [5,2]")
    # the gradient reads the same ids
    g = tf.gradients(tf.reduce_sum(tf.gather(params, i)), params)[0]
    _raises(sess, tf.convert_to_tensor(g), {i: [0, 7]})
    np.testing.assert_array_equal(sess.run(tf.gather(params, i), {i: [0, 4]}),
                                  [[0.0, 1.0], [8.0, 9.0]])
    # one_hot is not a gather: TF gives zeros for ids outside [0, depth)
    np.testing.assert_array_equal(sess.run(tf.one_hot(i, 3), {i: [0, 5, -1]}),
                                  [[1, 0, 0], [0, 0, 0], [0, 0, 0]])


def test_run_time_index_counts_from_the_end_and_raises_past_it():
    v = tf.constant(np.arange(10.0))
    params = tf.constant(np.arange(10.0).reshape(5, 2), tf.float32)
    s = tf.placeholder(tf.int32, [])
    i = tf.placeholder(tf.int32, [3])
    sess = tf.Session()
    assert sess.run(v[s], {s: -1}) == 9.0                       # TF: 9.0 (symgrad gave 0)
    np.testing.assert_array_equal(sess.run(params[i[0]], {i: [-1, 0, 0]}), [8.0, 9.0])
    assert sess.run(params[i[0], i[1]], {i: [-1, -2, 0]}) == 8.0
    assert _raises(sess, v[s], {s: 12}) == "slice index 12 of dimension 0 out of bounds."
    assert _raises(sess, v[s], {s: -11}) == "slice index -1 of dimension 0 out of bounds."
    np.testing.assert_array_equal(sess.run(v[s:s + 3], {s: 8}), [8.0, 9.0])
    b = tf.placeholder(tf.int32, [2])
    np.testing.assert_array_equal(sess.run(tf.slice(v, b[:1], [3]), {b: [7, 0]}), [7, 8, 9])
    assert _raises(sess, tf.slice(v, b[:1], [3]), {b: [8, 0]}) == \
        "Expected size[0] in [0, 2], but got 3"
    assert _raises(sess, tf.slice(v, b[:1], [3]), {b: [-2, 0]}) == \
        "Expected begin[0] in [0, 10], but got -2"


def test_segments_and_scatters_out_of_range():
    data = tf.constant([1.0, 2.0, 3.0])
    i = tf.placeholder(tf.int32, [3])
    i1 = tf.placeholder(tf.int32, [2, 1])
    sess = tf.Session()
    assert _raises(sess, tf.unsorted_segment_sum(data, i, 2), {i: [0, 1, 2]}) == \
        "segment_ids[2] = 2 is out of range [0, 2)"
    assert _raises(sess, tf.unsorted_segment_max(data, i, 2), {i: [0, 1, 2]}) == \
        "segment_ids[2] = 2 is out of range [0, 2)"
    assert _raises(sess, tf.unsorted_segment_mean(data, i, 2), {i: [0, 5, 1]}) == \
        "segment_ids[1] = 5 is out of range [0, 2)"
    # a negative id is dropped (TF's)
    np.testing.assert_array_equal(sess.run(tf.unsorted_segment_sum(data, i, 2),
                                           {i: [0, 1, -1]}), [1.0, 2.0])
    upd = tf.constant([1.0, 2.0])
    assert _raises(sess, tf.scatter_nd(i1, upd, [4]), {i1: [[0], [4]]}) == \
        "indices[1] = [4] does not index into shape [4]"
    assert _raises(sess, tf.scatter_nd(i1, upd, [4]), {i1: [[0], [-1]]}) == \
        "indices[1] = [-1] does not index into shape [4]"
    np.testing.assert_array_equal(sess.run(tf.scatter_nd(i1, upd, [4]), {i1: [[0], [3]]}),
                                  [1.0, 0.0, 0.0, 2.0])
    v = tf.constant(np.arange(10.0))
    assert _raises(sess, tf.tensor_scatter_nd_update(v, i1, tf.constant([1.0, 2.0], tf.float64)),
                   {i1: [[0], [10]]}) == "indices[1] = [10] does not index into shape [10]"
    var = tf.Variable(tf.zeros([4]))
    sess.run(var.initializer)
    j = tf.placeholder(tf.int32, [2])
    assert _raises(sess, tf.scatter_update(var, j, upd), {j: [0, 4]}) == \
        "indices[1] = 4 is not in [0, 4)"
    assert _raises(sess, tf.scatter_update(var, j, upd), {j: [0, -1]}) == \
        "indices[1] = -1 is not in [0, 4)"
    assert _raises(sess, tf.scatter_add(var, j, upd), {j: [0, 5]}) == \
        "indices[1] = 5 is not in [0, 4)"
    assert _raises(sess, tf.scatter_nd_update(var, i1, upd), {i1: [[0], [4]]}) == \
        "indices[1] = [4] does not index into shape [4]"


def test_constant_indices_out_of_range_raise_when_run():
    # TF builds these and raises InvalidArgumentError when they run (symgrad raised
    # numpy's IndexError while building)
    params = tf.constant(np.arange(10.0).reshape(5, 2), tf.float32)
    gathered = tf.gather(params, [0, 7])
    nd = tf.gather_nd(params, [[0, 1], [5, 0]])
    looked = tf.nn.embedding_lookup(params, [1, 9])
    sess = tf.Session()
    assert _raises(sess, gathered) == "indices[1] = 7 is not in [0, 5)"
    assert _raises(sess, nd).startswith(
        "indices[1] = [5, 0] does not index into param shape [5,2]")
    assert _raises(sess, looked) == "indices[1] = 9 is not in [0, 5)"
    np.testing.assert_array_equal(sess.run(tf.gather(params, [4, -0])), [[8, 9], [0, 1]])


def test_core_pick_at_negative_run_time_index_counts_from_the_end():
    # numpy and TF: x[-1] is the last entry; a run-time -1 picked zeros in the
    # reference evaluator and in the compiled code alike
    import symgrad as sg
    with sg.Graph().as_default():
        x = sg.placeholder(shape=(5,), name="x")
        i = sg.placeholder(shape=(), dtype=np.int64, name="i")
        y = x[i] * 2.0
        g = sg.gradients(y, x)[0]
        f = sg.compile(outputs=[y, g], inputs=[x, i], wait=True)
        xs = np.arange(5.0)
        for k, want, hot in ((1, 2.0, 1), (-1, 8.0, 4), (-5, 0.0, 0)):
            for got in (sg.evaluate([y, g], feed_dict={x: xs, i: np.int64(k)}),
                        f(xs, np.int64(k))):
                assert got[0] == want
                np.testing.assert_array_equal(got[1], np.eye(5)[hot] * 2.0)


def test_sparse_labels_partitions_and_stitches_out_of_range():
    lab = tf.placeholder(tf.int32, [2])
    logits = tf.constant([[1.0, 2.0, 3.0], [1.0, 0.0, -1.0]])
    sess = tf.Session()
    xent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=lab, logits=logits)
    assert _raises(sess, xent, {lab: [0, 5]}) == (
        "Received a label value of 5 which is outside the valid range of [0, 3).  "
        "Label values: 0 5")
    assert _raises(sess, xent, {lab: [0, -1]}).startswith("Received a label value of -1 ")
    loss = tf.losses.sparse_softmax_cross_entropy(labels=lab, logits=logits)
    assert _raises(sess, loss, {lab: [0, 3]}).startswith("Received a label value of 3 ")
    np.testing.assert_allclose(sess.run(xent, {lab: [0, 2]}), [2.407606, 2.407606], rtol=1e-6)
    parts = tf.dynamic_partition(tf.constant([1.0, 2.0]), lab, 2)
    assert _raises(sess, parts, {lab: [0, 2]}) == "partitions[1] = 2 is not in [0, 2)"
    stitched = tf.dynamic_stitch([lab], [tf.constant([1.0, 2.0])])
    assert _raises(sess, stitched, {lab: [0, -1]}) == "indices[1] is out of range"
    # TF gives [1, 0, 0, 2] (size max + 1); symgrad's static size cannot: refused
    with pytest.raises(tf.errors.UnimplementedError):
        sess.run(stitched, {lab: [0, 3]})
    np.testing.assert_array_equal(sess.run(stitched, {lab: [1, 0]}), [2.0, 1.0])


def test_gathers_in_loop_bodies_and_map_fn_raise():
    params = tf.constant([[1.0], [2.0], [3.0]])
    i = tf.placeholder(tf.int32, [2])
    sess = tf.Session()
    mapped = tf.map_fn(lambda k: tf.gather(params, k), i, dtype=tf.float32)

    def body(t, acc):
        return t + 1, acc + tf.gather(params, i[t])
    looped = tf.while_loop(lambda t, a: t < 2, body, [0, tf.zeros([1])])[1]
    # TF: map/while/GatherV2 and while/GatherV2 'indices = 5 is not in [0, 3)'
    assert _raises(sess, mapped, {i: [0, 5]}).endswith("= 5 is not in [0, 3)")
    assert _raises(sess, looped, {i: [0, 5]}) == "indices = 5 is not in [0, 3)"
    np.testing.assert_array_equal(sess.run(mapped, {i: [0, 2]}), [[1.0], [3.0]])
    np.testing.assert_array_equal(sess.run(looped, {i: [0, 2]}), [4.0])


def test_reverse_sequence_length_past_the_axis_raises():
    lengths = tf.placeholder(tf.int64, [2])
    rev = tf.reverse_sequence(tf.reshape(tf.range(6.0), [2, 3]), lengths, 1, 0)
    sess = tf.Session()
    assert _raises(sess, rev, {lengths: [1, 5]}) == "seq_lens(1) > input.dims(1)"
    np.testing.assert_array_equal(sess.run(rev, {lengths: [1, 3]}), [[0, 1, 2], [5, 4, 3]])


def test_range_with_run_time_bounds_the_step_walks_away_from_raises():
    lim, d = tf.placeholder(tf.int32, []), tf.placeholder(tf.int32, [])
    fl = tf.placeholder(tf.float32, [])
    sess = tf.Session()
    assert _raises(sess, tf.range(lim), {lim: -3}) == \
        "Requires start <= limit when delta > 0: 0/-3"
    assert _raises(sess, tf.range(5, lim), {lim: 2}) == \
        "Requires start <= limit when delta > 0: 5/2"
    assert _raises(sess, tf.range(0, 5, d), {d: -1}) == \
        "Requires start >= limit when delta < 0: 0/5"
    assert _raises(sess, tf.range(0, 5, d), {d: 0}) == "Requires delta != 0: 0"
    assert _raises(sess, tf.range(1.5, fl, 0.5), {fl: 0.5}) == \
        "Requires start <= limit when delta > 0: 1.5/0.5"
    assert sess.run(tf.range(lim), {lim: 0}).tolist() == []
    assert sess.run(tf.range(5, 0, d), {d: -2}).tolist() == [5, 3, 1]
