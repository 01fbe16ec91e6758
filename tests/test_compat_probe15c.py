"""Round-15 probe c: the examples of TensorFlow's API documentation (the docstrings of
tf.compat.v1's ops as tensorflow.org shows them: tf.math's segment, cumulative and
reduction ops, the array ops -- gather with batch_dims, scatters, masks, pads, slices,
splits, diagonals, one_hot -- and tf.nn's softmax, losses, convolutions and pools),
each run with only the import changed and compared, with the gradient of a weighted
sum, against TF 2.21 (compat.v1, v2 behaviour disabled).  The numbers below are TF's
printed output for the same programs."""
import numpy as np
import pytest

import symgrad.compat.v1 as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default() as g:
        yield g


def _run(fetches, feed=None):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return sess.run(fetches, feed_dict=feed)


# ---- gather / gather_nd with batch_dims (each example picks from its own slice) ----

def test_gather_and_gather_nd_with_batch_dims():
    p = tf.Variable(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    a = tf.gather(p, [[0, 2], [1, 1]], axis=1, batch_dims=1)
    i = tf.placeholder(tf.int32, [2, 2])
    b = tf.gather(p, i, axis=2, batch_dims=1)
    j = tf.placeholder(tf.int64, [2, 2, 1])
    c = tf.gather_nd(p, j, batch_dims=1)
    g = tf.gradients(tf.reduce_sum(a * [[[1.], [2.]]]) + tf.reduce_sum(b * [1., 2])
                     + tf.reduce_sum(c * [[[3.]]]), p)[0]
    va, vb, vc, vg = _run([a, b, c, g], {i: [[3, 0], [1, 2]], j: [[[2], [0]], [[1], [1]]]})
    np.testing.assert_array_equal(va, [[[0, 1, 2, 3], [8, 9, 10, 11]],
                                       [[16, 17, 18, 19], [16, 17, 18, 19]]])
    np.testing.assert_array_equal(vb, [[[3, 0], [7, 4], [11, 8]],
                                       [[13, 14], [17, 18], [21, 22]]])
    np.testing.assert_array_equal(vc, [[[8, 9, 10, 11], [0, 1, 2, 3]],
                                       [[16, 17, 18, 19], [16, 17, 18, 19]]])
    np.testing.assert_array_equal(vg, [[[6, 4, 4, 5], [2, 0, 0, 1], [7, 5, 5, 6]],
                                       [[0, 1, 2, 0], [9, 10, 11, 9], [0, 1, 2, 0]]])


def test_gather_with_batch_dims_checks_the_fed_ids_of_each_example():
    p = tf.constant(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    i = tf.placeholder(tf.int32, [2, 2])
    out = tf.gather(p, i, axis=2, batch_dims=1)
    # TF: "indices[1,0] = 4 is not in [0, 4)" (not a row of the next example)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"indices\[1,0\] = 4 is not"):
        _run(out, {i: [[3, 0], [4, 2]]})
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"= -1 is not in \[0, 4\)"):
        _run(out, {i: [[3, 0], [-1, 2]]})


def test_top_k_of_integers_keeps_their_dtype():
    v, i = tf.nn.top_k(tf.constant([[3, 1, 2], [1, 1, 1]]), k=2)
    assert v.dtype == tf.int32
    vv, vi = _run([v, i])
    assert vv.dtype == np.int32    # TF: int32 values [[3 2] [1 1]], indices [[0 2] [0 1]]
    np.testing.assert_array_equal(vv, [[3, 2], [1, 1]])
    np.testing.assert_array_equal(vi, [[0, 2], [0, 1]])


# ---- one diagonal k of tf.linalg.diag / diag_part / set_diag; list diagonals ----

def test_diagonals_at_an_offset_k_and_their_gradients():
    x = tf.Variable(np.arange(12, dtype=np.float32).reshape(3, 4))
    d = tf.Variable([[1., 2], [3, 4]])
    a = tf.linalg.diag_part(x, k=1)
    c = tf.linalg.diag(d, k=-1)
    e = tf.linalg.set_diag(x, [7., 8, 9], k=1)
    h = tf.matrix_set_diag(tf.transpose(x), [7., 8, 9])   # a float list into float32
    loss = (tf.reduce_sum(a * [1., 2, 3]) + tf.reduce_sum(c * np.arange(18.).reshape(2, 3, 3))
            + tf.reduce_sum(e * e) + tf.reduce_sum(h * np.arange(12.).reshape(4, 3)))
    va, vc, ve, vh, gx, gd = _run([a, c, e, h] + tf.gradients(loss, [x, d]))
    np.testing.assert_array_equal(va, [1, 6, 11])
    np.testing.assert_array_equal(vc, [[[0, 0, 0], [1, 0, 0], [0, 2, 0]],
                                       [[0, 0, 0], [3, 0, 0], [0, 4, 0]]])
    np.testing.assert_array_equal(ve, [[0, 7, 2, 3], [4, 5, 8, 7], [8, 9, 10, 9]])
    np.testing.assert_array_equal(vh, [[7, 4, 8], [1, 8, 9], [2, 6, 9], [3, 7, 11]])
    assert vh.dtype == np.float32
    np.testing.assert_array_equal(gx, [[0, 4, 10, 15], [9, 10, 9, 24], [18, 23, 20, 14]])
    np.testing.assert_array_equal(gd, [[3, 7], [12, 16]])


def test_where_takes_a_list_of_bools_beside_float32_tensors():
    x = tf.Variable([[1., 2], [3, 4]])
    y = tf.where([True, False], x, -x)            # TF1: a rank-1 condition picks rows
    z = tf.where_v2([[True], [False]], tf.constant([1., 2, 3]), 0.5)
    vy, vz, g = _run([y, z, tf.gradients(tf.reduce_sum(y * [[1., 2], [3, 4]]), x)[0]])
    np.testing.assert_array_equal(vy, [[1, 2], [-3, -4]])
    np.testing.assert_array_equal(vz, [[1, 2, 3], [0.5, 0.5, 0.5]])
    np.testing.assert_array_equal(g, [[1, 2], [-3, -4]])


# ---- segment sums over rows whose count is known at run time ----

def test_dynamic_stitch_puts_dynamic_partitions_back():
    x = tf.Variable([[1., 2], [3, 4], [5, 6], [7, 8]])
    idx = tf.constant([0, 1, 0, 1])
    parts = tf.dynamic_partition(x, idx, 2)
    cond = tf.dynamic_partition(tf.range(4), idx, 2)
    y = tf.dynamic_stitch(cond, [parts[0] * 10, parts[1]])
    v = tf.Variable([10., 20, 30, 40, 50])
    vp = tf.dynamic_partition(v, [0, 0, 1, 1, 0], 2)
    st = tf.dynamic_stitch([[0, 1, 4], [2, 3]], vp)     # constant indices, unknown parts
    vy, gx, vst = _run([y, tf.gradients(tf.reduce_sum(y * [[1., 2]]), x)[0], st])
    np.testing.assert_array_equal(vy, [[10, 20], [3, 4], [50, 60], [7, 8]])
    np.testing.assert_array_equal(gx, [[10, 20], [1, 2], [10, 20], [1, 2]])
    np.testing.assert_array_equal(vst, [10, 20, 30, 40, 50])


def test_segment_sum_checks_fed_rows_against_its_ids():
    x = tf.placeholder(tf.float32, [None])
    s = tf.math.unsorted_segment_sum(x, [0, 1, 0], 2)
    np.testing.assert_array_equal(_run(s, {x: [1., 2, 3]}), [4, 2])   # TF: [4. 2.]
    with pytest.raises(tf.errors.InvalidArgumentError, match="segment_ids of shape"):
        _run(s, {x: [1., 2, 3, 4]})


# ---- tf.pad: TF1's argument order; mirrored pads within TF's bounds ----

def test_pad_takes_name_fourth_and_refuses_mirrors_wider_than_the_axis():
    x = tf.constant([[1., 2, 3], [4, 5, 6]])
    y = tf.pad(tf.constant([[1., 2]]), [[1, 0], [0, 1]], "CONSTANT", "padded")
    assert y.name == "padded:0"                             # TF: padded:0
    np.testing.assert_array_equal(_run(y), [[0, 0, 0], [1, 2, 0]])
    edge = tf.pad(x, [[2, 2], [3, 0]], "SYMMETRIC")         # as wide as the axis: fine
    np.testing.assert_array_equal(_run(edge)[:, :4], [[6, 5, 4, 4], [3, 2, 1, 1],
                                                      [3, 2, 1, 1], [6, 5, 4, 4],
                                                      [6, 5, 4, 4], [3, 2, 1, 1]])
    # TF: InvalidArgumentError (its MirrorPad kernel), where numpy would wrap round
    with pytest.raises(tf.errors.InvalidArgumentError, match="paddings"):
        _run(tf.pad(x, [[2, 0], [0, 0]], "REFLECT"))
    with pytest.raises(tf.errors.InvalidArgumentError, match="paddings"):
        _run(tf.pad(x, [[0, 0], [4, 0]], "SYMMETRIC"))


def test_one_hot_refuses_on_and_off_values_of_different_dtypes():
    i = tf.constant([0, 2])
    ok = tf.one_hot(i, 3, on_value=1, off_value=0, dtype=tf.float32)   # 1 fits float32
    assert ok.dtype == tf.float32 and tf.one_hot(i, 3, off_value=-1).dtype == tf.int32
    np.testing.assert_array_equal(_run(ok), [[1, 0, 0], [0, 0, 1]])
    # TF: TypeError "dtype int32 of on_value does not match dtype float32 of off_value"
    with pytest.raises(TypeError, match="int32 of on_value does not match dtype float32"):
        tf.one_hot([0, 1], 3, on_value=1, off_value=0.0)
    with pytest.raises(TypeError, match="float32 of on_value does not match the dtype"):
        tf.one_hot([0, 1], 3, on_value=1.5, dtype=tf.int32)


# ---- the sorted segment ops refuse unsorted or negative ids when the graph runs ----

def test_sorted_segment_ops_refuse_unsorted_ids_at_run_time():
    c = tf.constant([1., 2, 3])
    bad = tf.math.segment_sum(c, [1, 0, 0])         # TF builds it, its kernel refuses
    with pytest.raises(tf.errors.InvalidArgumentError, match="segment ids are not increasing"):
        _run(bad)
    with pytest.raises(tf.errors.InvalidArgumentError, match="segment ids are not increasing"):
        _run(tf.math.segment_max(c, [1, 0, 0]))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Segment id -1 out of range"):
        _run(tf.math.segment_mean(c, [-1, 0, 0]))
    np.testing.assert_array_equal(_run(tf.math.segment_sum(c, [0, 0, 2])), [3, 0, 3])


def test_unstack_refuses_a_num_that_is_not_the_axis_length():
    x = tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
    assert len(tf.unstack(x, num=3, axis=1)) == 3
    # TF: ValueError "Dimension must be 3 but is 2 ... Unpack[num=3]"
    with pytest.raises(ValueError, match="num=3 does not match axis 0 of length 2"):
        tf.unstack(x, num=3)


# ---- scatters at indices outside the shape; empty groups of sparse_reduce_max ----

def test_scatter_nd_refuses_constant_indices_outside_the_shape():
    # TF: InvalidArgumentError "indices[0] = [-1] does not index into shape [3]"
    # (numpy's indexing would wrap -1 round to the last entry)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[-1\] does not index into"):
        _run(tf.scatter_nd([[-1]], [1.], [3]))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[3\] does not index into"):
        _run(tf.tensor_scatter_nd_update(tf.zeros([3]), [[3]], [1.]))
    u = tf.Variable([9., 10])
    y = tf.scatter_nd([[2], [0]], u, [3])
    vy, g = _run([y, tf.gradients(tf.reduce_sum(y * [1., 2, 3]), u)[0]])
    np.testing.assert_array_equal(vy, [10, 0, 9])
    np.testing.assert_array_equal(g, [3, 1])


def test_sparse_reduce_max_is_zero_where_nothing_is_stored():
    st = tf.SparseTensor(indices=[[0, 0], [1, 2], [1, 3]], values=[-1., -2., -5],
                         dense_shape=[3, 4])
    by_row, by_col = _run([tf.sparse.reduce_max(st, 1), tf.sparse.reduce_max(st, 0)])
    np.testing.assert_array_equal(by_row, [-1, -2, 0])       # TF: [-1. -2.  0.]
    np.testing.assert_array_equal(by_col, [-1, 0, -2, -5])   # TF: [-1.  0. -2. -5.]


def test_conv2d_takes_explicit_padding():
    x = tf.Variable(np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1))
    k = tf.Variable(np.array([[1., 2], [3, -1]], np.float32).reshape(2, 2, 1, 1))
    y = tf.nn.conv2d(x, k, strides=[1, 2, 1, 1], padding=[[0, 0], [1, 0], [0, 2], [0, 0]])
    vy, gx, gk = _run([y] + tf.gradients(tf.reduce_sum(y * y), [x, k]))
    np.testing.assert_array_equal(vy.squeeze(), [[-1, 1, 3, 9, 0], [29, 34, 39, 40, 0]])
    np.testing.assert_array_equal(gx.squeeze(), [[-6, 8, 16, 48], [58, 184, 214, 236],
                                                 [174, 146, 166, 162], [0, 0, 0, 0]])
    np.testing.assert_array_equal(gk.squeeze(), [[1600, 1244], [2804, 2080]])
    # TF: ValueError "Nonzero explicit padding in the batch or depth dimensions ..."
    with pytest.raises(ValueError, match="zero for the batch and channel axes"):
        tf.nn.conv2d(x, k, strides=1, padding=[[1, 0], [1, 2], [0, 1], [0, 0]])


def test_stateless_dropout_draws_tfs_mask_for_the_seed():
    x = tf.Variable(np.ones((3, 4), np.float32))
    a = tf.nn.experimental.stateless_dropout(x, rate=0.5, seed=[1, 2])
    b = tf.nn.experimental.stateless_dropout(x, rate=0.5, seed=[1, 2], noise_shape=[3, 1])
    g = tf.gradients(tf.reduce_sum(a * [[1., 2, 3, 4]]) + tf.reduce_sum(b), x)[0]
    va, vb, vg = _run([a, b, g])
    np.testing.assert_array_equal(va, [[2, 0, 2, 0], [0, 2, 0, 0], [0, 0, 0, 0]])
    np.testing.assert_array_equal(vb, [[2, 2, 2, 2], [0, 0, 0, 0], [2, 2, 2, 2]])
    np.testing.assert_array_equal(vg, [[4, 2, 8, 2], [0, 4, 0, 0], [2, 2, 2, 2]])
    with pytest.raises(ValueError, match="rate must be"):
        tf.nn.experimental.stateless_dropout(x, rate=1.0, seed=[1, 2])


def test_softmax_axis_outside_the_rank_is_tfs_invalid_argument():
    x = tf.constant([[1., 2]])
    # TF: InvalidArgumentError "`dim` must be in the range [-2, 2) where 2 is the number
    # of dimensions in the input. Received: dim=2", raised when the graph is built
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"range \[-2, 2\).*dim=2"):
        tf.nn.softmax(x, axis=2)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"dim=-3"):
        tf.nn.log_softmax(x, axis=-3)
    np.testing.assert_allclose(_run(tf.nn.softmax(x, dim=0)), [[1, 1]])


def test_running_sums_and_products_over_a_fed_batch_axis():
    x = tf.placeholder(tf.float32, [None, 2])
    w = tf.Variable([[1., 2]])
    y = x * w
    a = tf.cumsum(y, 0, exclusive=True, reverse=True)
    b = tf.math.cumprod(y, 0, exclusive=True)
    c = tf.cumsum(y, 0)
    g = tf.gradients(tf.reduce_sum(a * a) + tf.reduce_sum(c * c), w)[0]
    va, vb, vc, vg = _run([a, b, c, g], {x: [[1., 2], [3, 4], [5, 6]]})
    np.testing.assert_array_equal(va, [[8, 20], [5, 12], [0, 0]])
    np.testing.assert_array_equal(vb, [[1, 1], [1, 4], [3, 32]])
    np.testing.assert_array_equal(vc, [[1, 4], [4, 12], [9, 24]])
    np.testing.assert_array_equal(vg, [[374, 1280]])


def test_windows_over_the_batch_or_channels_are_refused_when_the_graph_runs():
    x = tf.constant(np.ones((2, 4, 4, 2), np.float32))
    k = tf.ones([2, 2, 2, 1])
    # TF builds each of these; its CPU kernels refuse them when the graph runs
    with pytest.raises(tf.errors.UnimplementedError, match="not yet supported on the batch"):
        _run(tf.nn.avg_pool(x, [1, 2, 2, 1], [2, 1, 1, 1], "VALID"))
    with pytest.raises(tf.errors.UnimplementedError, match="not yet supported on the batch"):
        _run(tf.nn.max_pool(x, [2, 2, 2, 1], [1, 1, 1, 1], "VALID"))
    with pytest.raises(tf.errors.UnimplementedError, match="strides in the batch and depth"):
        _run(tf.nn.conv2d(x, k, [2, 1, 1, 1], "VALID"))
    with pytest.raises(tf.errors.InvalidArgumentError, match="dilations in the batch and"):
        _run(tf.nn.conv2d(x, k, [1, 1, 1, 1], "VALID", dilations=[1, 1, 1, 2]))
    np.testing.assert_array_equal(_run(tf.nn.conv2d(x, k, [1, 2, 2, 1], "VALID")),
                                  np.full((2, 2, 2, 1), 8.0))


def test_in_top_k_is_false_for_rows_it_cannot_rank():
    p = tf.constant([[0.1, float("nan"), 0.3], [float("inf"), 0.1, 0.2],
                     [0.5, 0.1, -0.2], [0.5, 0.1, -0.2]])
    t = tf.placeholder(tf.int32, [4])
    top1, top3 = tf.nn.in_top_k(p, t, 1), tf.nn.in_top_k(p, t, 3)
    # TF: a non-finite prediction in the row, or a target outside [0, 3), gives False
    a1, a3 = _run([top1, top3], {t: [2, 0, 3, -1]})
    np.testing.assert_array_equal(a1, [False] * 4)
    np.testing.assert_array_equal(a3, [False] * 4)
    b1, b3 = _run([top1, top3], {t: [2, 0, 0, 2]})
    np.testing.assert_array_equal(b1, [False, False, True, False])
    np.testing.assert_array_equal(b3, [False, False, True, True])


# ---- the documented bad inputs: TF's error classes, where symgrad ran or crashed ----

def test_documented_bad_inputs_raise_tfs_error_classes():
    x4 = tf.constant(np.ones((1, 5, 5, 2), np.float32))
    # TF: ValueError "all values of `dilation_rate` must be positive"
    with pytest.raises(ValueError, match="rate must be a positive"):
        tf.nn.atrous_conv2d(x4, tf.ones([2, 2, 2, 1]), 0, "SAME")
    # TF: ValueError "Dimensions 2 and 1 are not compatible" (a pointwise filter not 1x1)
    with pytest.raises(ValueError, match="pointwise_filter must be"):
        tf.nn.separable_conv2d(x4, tf.ones([2, 2, 2, 2]), tf.ones([2, 1, 4, 2]),
                               [1, 1, 1, 1], "SAME")
    with pytest.raises(tf.errors.InvalidArgumentError, match="axis 2 is not in"):
        tf.roll(tf.ones([2, 3]), 1, 2)          # TF: its Roll kernel's InvalidArgumentError
    # TF: ValueError "Negative dimension size caused by subtracting 5 from 4"
    with pytest.raises(ValueError, match="crops"):
        tf.batch_to_space_nd(tf.ones([4, 2, 2, 1]), [2, 2], [[0, 5], [0, 0]])
    # TF: TypeError "... DataType int32 not in list of allowed values: float16, ..."
    with pytest.raises(TypeError, match="takes floats only"):
        tf.nn.softmax(tf.constant([1, 2]))
    with pytest.raises(TypeError, match="takes floats only"):
        tf.reduce_logsumexp(tf.constant([1, 2]))
    with pytest.raises(ValueError, match="cannot be a scalar"):   # TF: ValueError
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.constant(1),
                                                       logits=tf.constant(1.))
    with pytest.raises(ValueError, match="maxlen must be a scalar"):   # TF: ValueError
        tf.sequence_mask([1, 2], maxlen=[3, 4])
    # TF: ValueError "indices.shape[-1] must be <= params.rank"
    with pytest.raises(ValueError, match="address at most the 2 axes"):
        tf.gather_nd(tf.ones([2, 2]), [[0, 1, 0]])
    with pytest.raises(TypeError, match="segment_ids must be integers"):   # TF: TypeError
        tf.math.unsorted_segment_sum(tf.ones([2]), tf.constant([0., 1.]), 2)
    with pytest.raises(TypeError, match="needs integer class indices"):    # TF: TypeError
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.constant([1.]),
                                                       logits=tf.constant([[1., 2]]))


def test_top_k_of_zero_is_empty():
    v, i = tf.nn.top_k(tf.constant([[1., 2]]), 0)
    vv, vi = _run([v, i])                    # TF: shapes (1, 0), float32 and int32
    assert vv.shape == (1, 0) and vi.shape == (1, 0) and vi.dtype == np.int32
