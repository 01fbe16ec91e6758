"""The breadth names' argument checks and the behaviour TF documents without numbers:
bad input gives a clear error naming the argument; no-op names accept what TF accepts."""
import numpy as np
import pytest

import symgrad.compat.v1 as tf


def test_repeat_rejects_wrong_count_list():
    with pytest.raises(ValueError, match="repeats must be"):
        tf.repeat(tf.constant([1.0, 2.0]), [1, 2, 3])


def test_ensure_shape_static_mismatch_raises_now():
    with pytest.raises(ValueError, match="incompatible"):
        tf.ensure_shape(tf.constant([1.0, 2.0]), [3])


def test_ensure_shape_checks_unknown_sizes_when_run():
    p = tf.placeholder(tf.float32, [None, 2])
    y = tf.ensure_shape(p, [3, 2])
    with tf.Session() as sess:
        assert sess.run(y, {p: np.ones((3, 2))}).shape == (3, 2)
        with pytest.raises(tf.errors.InvalidArgumentError):
            sess.run(y, {p: np.ones((4, 2))})


def test_unknown_dimension_and_static_value_of_fed_tensor():
    assert tf.Dimension(None).value is None
    assert tf.dimension_value(None) is None
    assert tf.get_static_value(tf.placeholder(tf.float32, [2]) * 2.0) is None


def test_no_gradient_accepts_op_type_names_only():
    tf.NoGradient("MyOp")
    tf.NotDifferentiable("MyOp")
    tf.no_gradient("MyOp")
    with pytest.raises(TypeError, match="op_type"):
        tf.no_gradient(3)


def test_broadcast_static_shape_rejects_incompatible():
    with pytest.raises(ValueError, match="Incompatible shapes for broadcasting"):
        tf.broadcast_static_shape(tf.TensorShape([2]), tf.TensorShape([3]))


def test_convert_to_tensor_or_indexed_slices_is_a_tensor():
    with tf.Session() as sess:
        assert sess.run(tf.convert_to_tensor_or_indexed_slices([1.0, 2.0])).tolist() == [1, 2]


def test_volume_ops_reject_channels_first_and_wrong_rank():
    x = tf.zeros([1, 2, 3, 3, 1])
    with pytest.raises(ValueError, match="NDHWC"):
        tf.nn.max_pool3d(x, 1, 1, "VALID", data_format="NCDHW")
    with pytest.raises(ValueError, match="5-D"):
        tf.nn.conv3d(tf.zeros([1, 3, 3, 1]), tf.zeros([1, 1, 1, 1, 1]), [1] * 5, "VALID")
    with pytest.raises(ValueError, match="NWC"):
        tf.nn.max_pool1d(tf.zeros([1, 2, 4]), 2, 2, "VALID", data_format="NCW")


def test_compute_average_loss_rejects_nonpositive_batch():
    with pytest.raises(ValueError, match="global_batch_size"):
        tf.nn.compute_average_loss(tf.constant([1.0]), global_batch_size=0)


def test_tridiagonal_rejects_bad_formats():
    with pytest.raises(ValueError, match="3, M"):
        tf.linalg.tridiagonal_matmul(tf.zeros([2, 4]), tf.zeros([4, 1]))
    with pytest.raises(ValueError, match="diagonals_format"):
        tf.linalg.tridiagonal_solve(tf.zeros([3, 4]), tf.zeros([4]), diagonals_format="band")


def test_pinv_needs_a_matrix():
    with pytest.raises(ValueError, match="matrix"):
        tf.linalg.pinv(tf.constant([1.0, 2.0]))


def test_image_functions_name_the_bad_argument():
    with pytest.raises(ValueError, match="filter_size"):
        tf.image.ssim(tf.zeros([5, 5, 1]), tf.zeros([5, 5, 1]), 1.0)
    with pytest.raises(ValueError, match="3 channels"):
        tf.image.rgb_to_yuv(tf.zeros([2, 2, 4]))
    with pytest.raises(ValueError, match="gamma"):
        tf.image.adjust_gamma(tf.zeros([2, 2, 3]), -1.0)
    with pytest.raises(ValueError, match=r"\[N, H, W, C\]"):
        tf.image.sobel_edges(tf.zeros([4, 4, 1]))


def test_at_k_metrics_reject_k_below_one():
    with pytest.raises(ValueError, match="k must be"):
        tf.metrics.recall_at_k(tf.constant([1]), [[0.2, 0.8]], 0)


def test_pairwise_loss_needs_a_batch_axis():
    with pytest.raises(ValueError, match="at least 2 axes"):
        tf.losses.mean_pairwise_squared_error([1.0, 2.0], [1.0, 3.0])


def test_at_k_metric_dtype_is_float64_as_tf():
    value, _ = tf.metrics.precision_at_k(tf.constant([1]), [[0.2, 0.8]], 1)
    assert value.dtype == np.float64


def test_noisy_linear_cosine_decay_is_noisy_seeded_and_centred():
    tf.set_random_seed(3)
    lr = tf.train.noisy_linear_cosine_decay(1.0, tf.constant(0), 100, initial_variance=1.0)
    with tf.Session() as sess:
        draws = np.array([sess.run(lr) for _ in range(400)])
    with tf.Session() as sess:
        again = np.array([sess.run(lr) for _ in range(400)])
    np.testing.assert_array_equal(draws, again)   # each session starts the sequence over
    # at step 0: (0 + 1 + eps) * 1 + 0.001 with eps ~ N(0, 1)
    assert abs(draws.mean() - 1.001) < 0.15 and 0.85 < draws.std() < 1.15


def test_checkpoint_files_mtimes_and_removal(tmp_path):
    v = tf.Variable([1.0, 2.0])
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        prefix = saver.save(sess, str(tmp_path / "model"))
    (mtime,) = tf.train.get_checkpoint_mtimes([prefix])
    assert mtime > 0
    tf.train.remove_checkpoint(prefix)
    assert not tf.train.checkpoint_exists(prefix)
    with pytest.raises(tf.errors.NotFoundError, match="model"):
        tf.train.get_checkpoint_mtimes([prefix])
    assert v is not None


def test_write_graph_writes_a_readable_listing_or_refuses_binary(tmp_path):
    x = tf.constant([1.0, 2.0], name="x")
    tf.multiply(x, 2.0, name="doubled")
    path = tf.train.write_graph(tf.get_default_graph(), str(tmp_path), "graph.pbtxt")
    text = open(path).read()
    assert "doubled" in text and "x" in text
    with pytest.raises(ValueError, match="as_text"):
        tf.train.write_graph(tf.get_default_graph(), str(tmp_path), "graph.pb", as_text=False)


def test_proximal_optimizers_reject_negative_strengths():
    with pytest.raises(ValueError, match="l1_regularization_strength"):
        tf.train.ProximalGradientDescentOptimizer(0.1, l1_regularization_strength=-1.0)
    with pytest.raises(ValueError, match="initial_accumulator_value"):
        tf.train.ProximalAdagradOptimizer(0.1, initial_accumulator_value=0.0)


def test_rate_targets_must_lie_in_the_unit_interval():
    with pytest.raises(ValueError, match="specificity must be in"):
        tf.metrics.sensitivity_at_specificity(tf.constant([True]), tf.constant([0.5]), 1.5)
    with pytest.raises(ValueError, match="sensitivity must be in"):
        tf.metrics.specificity_at_sensitivity(tf.constant([True]), tf.constant([0.5]), -0.1)


def test_transpose_conv_names_a_value_that_does_not_fit():
    with pytest.raises(ValueError, match="does not fit"):
        tf.nn.conv3d_transpose(tf.ones([1, 2, 2, 2, 1]), tf.ones([2, 2, 2, 1, 1]),
                               [1, 2, 2, 2, 1], [1, 1, 1, 1, 1], "VALID")
    with pytest.raises(ValueError, match="3, 4 or 5"):
        tf.nn.conv_transpose(tf.ones([1, 2]), tf.ones([1, 1]), [1, 2], 1)


def test_conv2d_backprop_v2_names_equal_the_tf_checked_backprops():
    # TF 2.21's CPU build has no kernel for the _v2 ops; they are the same adjoints
    rng = np.random.RandomState(0)
    x = tf.constant(rng.uniform(-1, 1, (2, 6, 5, 3)).astype(np.float32))
    f = tf.constant(rng.uniform(-1, 1, (3, 2, 3, 4)).astype(np.float32))
    dy = tf.constant(rng.uniform(-1, 1, (2, 3, 3, 4)).astype(np.float32))
    pairs = [(tf.conv2d_backprop_filter_v2(x, f, dy, [1, 2, 2, 1], "SAME"),
              tf.nn.conv2d_backprop_filter(x, [3, 2, 3, 4], dy, [1, 2, 2, 1], "SAME")),
             (tf.conv2d_backprop_input_v2(x, f, dy, [1, 2, 2, 1], "SAME"),
              tf.nn.conv2d_backprop_input([2, 6, 5, 3], f, dy, [1, 2, 2, 1], "SAME"))]
    with tf.Session() as sess:
        for a, b in sess.run(pairs):
            np.testing.assert_allclose(a, b, rtol=1e-6)


def test_space_to_batch_names_sizes_that_do_not_divide():
    with pytest.raises(ValueError, match="multiples"):
        tf.space_to_batch_nd(tf.zeros([1, 5, 4, 1]), [2, 2], [[0, 0], [0, 0]])
    with pytest.raises(ValueError, match="one positive block"):
        tf.space_to_batch_nd(tf.zeros([1, 4, 4, 1]), [2, 2], [[0, 0]])


def test_switches_and_blocks_are_accepted_and_change_nothing():
    for switch in (tf.disable_control_flow_v2, tf.disable_resource_variables,
                   tf.disable_tensor_equality, tf.disable_v2_tensorshape,
                   tf.enable_control_flow_v2, tf.enable_resource_variables,
                   tf.enable_v2_tensorshape):
        switch()
    assert not tf.executing_eagerly_outside_functions()
    assert not tf.control_flow_v2_enabled() and not tf.resource_variables_enabled()
    x = tf.constant(1.0)
    with tf.init_scope(), tf.colocate_with(x), tf.container("c"):
        y = x + 1.0
    with tf.op_scope([x], "outer"):
        z = tf.identity(y, name="z")
    with tf.variable_op_scope([x], "vs"):
        v = tf.get_variable("w", [1])
    assert z.name == "outer/z:0" and v.name == "vs/w:0"
    assert tf.is_symbolic_tensor(z) and not tf.is_symbolic_tensor(1.0)
    assert tf.no_regularizer(x) is None


def test_assert_same_float_dtype():
    a, b = tf.constant([1.0]), tf.constant([1.0], tf.float64)
    assert tf.assert_same_float_dtype([a, a]) == np.float32
    with pytest.raises(ValueError, match="one dtype"):
        tf.assert_same_float_dtype([a, b])
    with pytest.raises(ValueError, match="not a floating"):
        tf.assert_same_float_dtype([tf.constant([1])])


def test_assert_variables_initialized_fails_before_the_initializer():
    v = tf.Variable([1.0])
    check = tf.assert_variables_initialized([v])
    with tf.Session() as sess:
        with pytest.raises(tf.errors.FailedPreconditionError):
            sess.run(check)
        sess.run(tf.global_variables_initializer())
        sess.run(check)


def test_uniform_unit_scaling_initializer_bounds_and_spread():
    init = tf.uniform_unit_scaling_initializer(factor=2.0, seed=1)
    w = tf.get_variable("w", [300, 50], initializer=init)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run(w)
    limit = 2.0 * np.sqrt(3.0 / 300)
    assert np.abs(got).max() <= limit and np.abs(got).max() > 0.98 * limit
    assert abs(got.std() - limit / np.sqrt(3.0)) < 0.01 * limit


def test_scatter_extreme_rejects_too_deep_indices():
    with pytest.raises(ValueError, match="indices"):
        tf.tensor_scatter_nd_max(tf.zeros([2]), [[0, 1]], [1.0])


def test_ssim_multiscale_names_too_small_images():
    with pytest.raises(ValueError, match="halvings"):
        tf.image.ssim_multiscale(tf.zeros([100, 100, 1]), tf.zeros([100, 100, 1]), 1.0)


def test_sparse_ops_name_what_they_need():
    # (segment ids computed in the graph size the result when they are: probe 15d)
    summed = tf.sparse_segment_sum(tf.ones([2, 2]), [0, 1], tf.constant([0, 1]) * 1)
    assert tf.Session().run(summed).tolist() == [[1.0, 1.0], [1.0, 1.0]]
    a = tf.SparseTensor([[0, 0]], [1.0], [2, 2])
    with pytest.raises(ValueError, match="dense forms"):
        tf.sparse_add(a, a)
    with pytest.raises(ValueError, match="sizes off axis"):
        tf.sparse_concat(0, [a, tf.SparseTensor([[0, 0]], [1.0], [2, 3])])


def test_sparse_namespace_names():
    st = tf.SparseTensor([[0, 1], [0, 0]], [2.0, 1.0], [1, 2])
    with tf.Session() as sess:
        assert sess.run(tf.sparse.reorder(st)).values.tolist() == [1.0, 2.0]
        assert sess.run(tf.sparse.reduce_max(st)) == 2.0


def test_draw_bounding_boxes_checks_depth_and_colors():
    with pytest.raises(ValueError, match="depth 1, 3 or 4"):
        tf.image.draw_bounding_boxes(tf.zeros([1, 3, 3, 2]), [[[0.0, 0.0, 1.0, 1.0]]])
    with pytest.raises(ValueError, match="at least 3"):
        tf.image.draw_bounding_boxes(tf.zeros([1, 3, 3, 3]), [[[0.0, 0.0, 1.0, 1.0]]],
                                     colors=[[0.2, 0.4]])
