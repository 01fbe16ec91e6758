"""What the seventh differential probe of TF1 programs (tf.data, classic MNIST/CNN
scripts, while-loop numerics, RNNs, attention, GP regression, checkpoints, tf.image,
tf.losses, segment pooling, seq2seq slicing) found, against numbers taken from real
TensorFlow 2.21 (compat.v1, v2 behaviour disabled)."""
import os

import numpy as np
import pytest

import symgrad.compat.v1 as tf

LOWEST = -3.4028234663852886e+38   # float32's lowest, TF's fill for an empty max segment


def test_segment_max_min_prod_sqrt_n_values_and_gradients_as_tf():
    # graph networks pool messages per node with these; ties share the gradient
    with tf.Graph().as_default():
        d = tf.Variable(np.array([[1., 5., 2.], [3., 5., 0.], [2., -1., 4.], [0.5, 2., 4.]],
                                 np.float32))
        ids = tf.constant([2, 0, 2, 2])
        w = tf.constant(np.array([[1., -2., 0.5], [3., 1., -1.]], np.float32))
        outs = [tf.unsorted_segment_max(d, ids, 3), tf.unsorted_segment_min(d, ids, 3),
                tf.unsorted_segment_prod(d, ids, 3), tf.math.unsorted_segment_sqrt_n(d, ids, 3),
                tf.segment_max(d, [0, 0, 2, 2]), tf.segment_min(d, [0, 0, 2, 2]),
                tf.math.segment_prod(d, [0, 0, 2, 2])]
        gs = [tf.gradients(tf.reduce_sum(o[-1:] * w[:1]) + tf.reduce_sum(o[:1] * w[1:]), d)[0]
              for o in outs]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got, grads = sess.run(outs), sess.run(gs)
    want = [[[3, 5, 0], [LOWEST] * 3, [2, 5, 4]], [[3, 5, 0], [-LOWEST] * 3, [0.5, -1, 2]],
            [[3, 5, 0], [1, 1, 1], [1, -10, 32]],
            [[3, 5, 0], [0, 0, 0], [2.020725965499878, 3.464101552963257, 5.773502349853516]],
            [[3, 5, 2], [0, 0, 0], [2, 2, 4]], [[1, 5, 0], [0, 0, 0], [0.5, -1, 4]],
            [[3, 25, 0], [1, 1, 1], [1, -2, 16]]]
    r3 = 0.5773502588272095
    want_g = [[[0, -2, 0], [3, 1, -1], [1, 0, 0.25], [0, 0, 0.25]],
              [[0, 0, 0.5], [3, 1, -1], [0, -2, 0], [1, 0, 0]],
              [[1, 4, 8], [3, 1, -1], [0.5, -20, 4], [2, 10, 4]],
              [[r3, -2 * r3, r3 / 2], [3, 1, -1], [r3, -2 * r3, r3 / 2], [r3, -2 * r3, r3 / 2]],
              [[0, 0.5, -1], [3, 0.5, 0], [1, 0, 0.25], [0, -2, 0.25]],
              [[3, 0.5, 0], [0, 0.5, -1], [0, -2, 0.25], [1, 0, 0.25]],
              [[9, 5, 0], [3, 5, -2], [0.5, -4, 2], [2, 2, 2]]]
    for g, w_ in zip(got + grads, want + want_g):
        assert g.dtype == np.float32
        np.testing.assert_allclose(g, np.array(w_, np.float32), rtol=1e-6)


def test_segment_ops_bad_ids_say_what_to_do():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="sorted vector.*tf.unsorted_segment_max"):
            tf.segment_max(tf.ones([3]), [1, 0, 2])
        with pytest.raises(ValueError, match=r"segment_ids of shape \(2,\) must match"):
            tf.unsorted_segment_min(tf.ones([3]), [1, 0], 2)
        with pytest.raises(TypeError, match="segment_ids must be integers"):
            tf.unsorted_segment_prod(tf.ones([2]), tf.constant([0.0, 1.0]), 2)


def test_strided_slice_masks_values_shapes_and_gradient_as_tf():
    with tf.Graph().as_default():
        X = tf.Variable(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
        s1 = tf.strided_slice(X, [1, -1, 0], [0, 0, 4], [1, -1, 3], begin_mask=1, end_mask=4,
                              shrink_axis_mask=1)
        s2 = tf.strided_slice(X, [0, 1], [0, 3], [1, 1], ellipsis_mask=1)
        s3 = tf.strided_slice(X, [0, 0, 1], [2, 1, 3], [1, 1, 1], new_axis_mask=2)
        gX = tf.gradients(tf.reduce_sum(s1 ** 2) + tf.reduce_sum(s2 * 3.0) + tf.reduce_sum(s3),
                          X)[0]
        # the seq2seq idiom: drop each target's last step, the batch size read at run time
        t = tf.placeholder(tf.int32, [None, 5])
        dec = tf.strided_slice(t, [0, 0], [tf.shape(t)[0], -1], [1, 1])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            v1, v2, v3, g = sess.run([s1, s2, s3, gX])
            d = sess.run(dec, {t: np.arange(10).reshape(2, 5)})
    assert v1.tolist() == [[20.0, 23.0], [16.0, 19.0]]
    assert v2.tolist() == [[[1, 2], [5, 6], [9, 10]], [[13, 14], [17, 18], [21, 22]]]
    assert v3.tolist() == [[[[4, 5, 6, 7], [8, 9, 10, 11]]], [[[16, 17, 18, 19], [20, 21, 22, 23]]]]
    assert [s.shape.as_list() for s in (s1, s2, s3)] == [[2, 2], [2, 3, 2], [2, 1, 2, 4]]
    assert g.tolist() == [[[0, 3, 3, 0], [1, 4, 4, 1], [1, 4, 4, 1]],
                          [[0, 3, 3, 0], [33, 4, 4, 39], [41, 4, 4, 47]]]
    assert d.tolist() == [[0, 1, 2, 3], [5, 6, 7, 8]] and dec.dtype == np.int32


def test_matrix_solve_ls_over_and_underdetermined_with_gradient_as_tf():
    with tf.Graph().as_default():
        A = tf.Variable(np.array([[1.0, 0.0], [1.0, 1.0], [1.0, 2.0], [2.0, -1.0]]))
        b = tf.constant([[1.0], [2.0], [4.0], [0.5]], tf.float64)
        x1 = tf.matrix_solve_ls(A, b, l2_regularizer=0.3)
        x2 = tf.linalg.lstsq(tf.transpose(A), tf.constant([[1.0], [2.0]], tf.float64))
        gA = tf.gradients(tf.reduce_sum(x1 * [[1.0], [-2.0]]) + tf.reduce_sum(tf.sin(x2)), A)[0]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got = sess.run([x1, x2, gA])
    want = [[[0.90909091], [1.36363636]], [[0.09756098], [0.41463415], [0.73170732],
                                           [-0.12195122]],
            [[-0.17961538, -0.1843621], [-0.15611673, 0.30821964], [0.04296511, 0.42512534],
             [-0.58013283, -1.02970636]]]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-7, atol=1e-8)


def test_add_n_and_total_loss_refuse_different_shapes_as_tf():
    # tf.losses.*(reduction=NONE) left in the LOSSES collection: TF's add_n raises
    with tf.Graph().as_default():
        y, p = tf.constant([[1.0], [0.0]]), tf.constant([[0.5], [0.5]])
        tf.losses.mean_squared_error(y, p)
        tf.losses.mean_squared_error(y, p, reduction=tf.losses.Reduction.NONE)
        with pytest.raises(ValueError, match=r"same shape.*\(\) .*\(2, 1\)"):
            tf.losses.get_total_loss()
        with pytest.raises(ValueError, match=r"tf.add_n: .*inputs\[1\]"):
            tf.add_n([tf.ones([2]), tf.ones([2, 1])])
        x = tf.placeholder(tf.float32, [None, 3])
        total = tf.add_n([x, tf.ones([4, 3]), 2.0 * x])   # an unknown size agrees
        with tf.Session() as sess:
            assert sess.run(total, {x: np.ones((4, 3))}).tolist() == [[4.0] * 3] * 4


def test_unsigned_constants_keep_their_dtype_and_images_convert_as_tf():
    with tf.Graph().as_default():
        f = tf.constant(np.array([0.0, 0.2, 0.5, 0.999, 1.0, 1.3, -0.2], np.float32))
        u8 = tf.constant(np.array([0, 1, 127, 128, 255], np.uint8))
        i32 = tf.constant(np.array([0, 2 ** 24, 2 ** 31 - 1, -5], np.int32))
        conv = tf.image.convert_image_dtype
        outs = [conv(f[:5], tf.uint8), conv(f, tf.uint8, saturate=True), conv(f[:5], tf.int16),
                conv(u8, tf.int32), conv(u8, tf.uint16), conv(i32, tf.uint8),
                conv(u8, tf.float64), conv(u8, tf.uint8), tf.Variable(u8.value)]
        assert u8.dtype == np.uint8 and outs[-1].dtype == np.uint8
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got = sess.run(outs)
    want = [[0, 51, 127, 255, 255], [0, 51, 127, 255, 255, 255, 0], [0, 6553, 16383, 32734, 32767],
            [0, 8388608, 1065353216, 1073741824, 2139095040], [0, 256, 32512, 32768, 65280],
            [0, 2, 255, 255], [0.0, 1 / 255, 127 / 255, 128 / 255, 1.0], [0, 1, 127, 128, 255],
            [0, 1, 127, 128, 255]]
    dtypes = [np.uint8, np.uint8, np.int16, np.int32, np.uint16, np.uint8, np.float64, np.uint8,
              np.uint8]
    for g, w, dt in zip(got, want, dtypes):
        assert g.dtype == dt
        np.testing.assert_allclose(g, w, rtol=1e-15)


def test_checkpoint_reader_and_checkpoint_exists(tmp_path):
    with tf.Graph().as_default():
        tf.Variable([[1.0, 2.0]], name="w")
        step = tf.Variable(4, name="step")
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            path = saver.save(sess, os.path.join(str(tmp_path), "model.ckpt"), global_step=step)
    reader = tf.train.NewCheckpointReader(path)
    assert reader.get_variable_to_shape_map() == {"w": [1, 2], "step": []}
    assert reader.get_variable_to_dtype_map()["w"] == np.float32
    assert reader.has_tensor("step") and not reader.has_tensor("b")
    assert reader.get_tensor("step") == 4 and reader.get_tensor("w").tolist() == [[1.0, 2.0]]
    assert tf.train.load_checkpoint(str(tmp_path)).get_tensor("step") == 4
    with pytest.raises(tf.errors.NotFoundError, match="Key b not found"):
        reader.get_tensor("b")
    assert tf.train.checkpoint_exists(path)
    assert not tf.train.checkpoint_exists(os.path.join(str(tmp_path), "model.ckpt-5"))


def test_dtype_names_and_as_dtype():
    assert tf.as_dtype("float") == np.float32 and tf.as_dtype(tf.float64) == np.float64
    assert tf.dtypes.as_dtype(np.uint8) == np.uint8 and tf.dtypes.int16 is np.int16
    assert (tf.int8, tf.uint16, tf.double, tf.half) == (np.int8, np.uint16, np.float64,
                                                        np.float16)
    with pytest.raises(TypeError, match="'foo' is not a dtype"):
        tf.as_dtype("foo")
    with tf.Graph().as_default():
        v = tf.Variable(1.0)
        assert tf.all_variables() == [v]


PIXELS = np.array([[[0.2, 0.4, 0.8], [0.9, 0.1, 0.3], [0.5, 0.5, 0.5]],
                   [[0.0, 0.0, 0.0], [1.0, 0.0, 0.2], [0.3, 0.7, 0.1]]], np.float32)


def test_hsv_saturation_and_hue_as_tf_for_float_and_uint8_images():
    # colour jitter of TF1 input pipelines; greys and black are the edge cases
    with tf.Graph().as_default():
        u8 = (PIXELS * 255).astype(np.uint8)
        outs = [tf.image.rgb_to_hsv(PIXELS), tf.image.adjust_saturation(PIXELS, 0.4),
                tf.image.adjust_saturation(PIXELS, 2.5), tf.image.adjust_hue(PIXELS, 0.2),
                tf.image.adjust_hue(PIXELS, -0.45), tf.image.adjust_saturation(u8, 1.7),
                tf.image.adjust_hue(u8, 0.3),
                tf.image.hsv_to_rgb(tf.image.rgb_to_hsv(PIXELS))]
        with tf.Session() as sess:
            got = sess.run(outs)
    want = [  # TF 2.21
        [[[0.611111, 0.75, 0.8], [0.958333, 0.888889, 0.9], [0.0, 0.0, 0.5]],
         [[0.0, 0.0, 0.0], [0.966667, 1.0, 1.0], [0.277778, 0.857143, 0.7]]],
        [[[0.56, 0.64, 0.8], [0.9, 0.58, 0.66], [0.5, 0.5, 0.5]],
         [[0.0, 0.0, 0.0], [1.0, 0.6, 0.68], [0.54, 0.7, 0.46]]],
        [[[0.0, 0.266667, 0.8], [0.9, 0.0, 0.225], [0.5, 0.5, 0.5]],
         [[0.0, 0.0, 0.0], [1.0, 0.0, 0.2], [0.233333, 0.7, 0.0]]],
        [[[0.72, 0.2, 0.8], [0.9, 0.86, 0.1], [0.5, 0.5, 0.5]],
         [[0.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.1, 0.7, 0.62]]],
        [[[0.8, 0.78, 0.2], [0.1, 0.86, 0.9], [0.5, 0.5, 0.5]],
         [[0.0, 0.0, 0.0], [0.0, 0.9, 1.0], [0.68, 0.1, 0.7]]],
        [[[0, 68, 204], [229, 0, 57], [127, 127, 127]], [[0, 0, 0], [255, 0, 51], [59, 178, 0]]],
        [[[204, 51, 132], [117, 229, 25], [127, 127, 127]],
         [[0, 0, 0], [102, 255, 0], [25, 106, 178]]],
        PIXELS]
    for i, (g, w) in enumerate(zip(got, want)):
        assert g.dtype == (np.uint8 if i in (5, 6) else np.float32)
        np.testing.assert_allclose(g, w, atol=1e-6 if i < 5 or i == 7 else 0)


def test_saturation_and_hue_gradients_match_finite_differences():
    # TF 2.21 defines no gradient for AdjustSaturation/AdjustHue; symgrad's comes from
    # the HSV round trip: checked by central differences away from the kinks (greys)
    rgb = np.array([[0.2, 0.4, 0.8], [0.9, 0.1, 0.3], [0.3, 0.7, 0.15]])
    weights = np.array([[1.0, -2.0, 0.5], [0.3, 1.0, 2.0], [-1.0, 0.7, 1.5]])
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [3, 3])
        f = tf.reduce_sum(tf.image.adjust_saturation(x, 0.6) ** 2) + \
            tf.reduce_sum(tf.image.adjust_hue(x, 0.15) * weights)
        g = tf.gradients(f, x)[0]
        with tf.Session() as sess:
            grad = sess.run(g, {x: rgb})
            fd = np.zeros_like(rgb)
            for idx in np.ndindex(rgb.shape):
                step = np.zeros_like(rgb)
                step[idx] = 1e-6
                fd[idx] = (sess.run(f, {x: rgb + step}) - sess.run(f, {x: rgb - step})) / 2e-6
    np.testing.assert_allclose(grad, fd, rtol=1e-6, atol=1e-7)


def test_crop_or_pad_and_random_distortions_of_the_cifar10_tutorial():
    with tf.Graph().as_default():
        grid = tf.reshape(tf.range(20.0), [4, 5, 1])
        fitted = tf.image.resize_image_with_crop_or_pad(grid, 3, 8)[..., 0]
        img = tf.constant(PIXELS)
        tf.set_random_seed(3)
        crop = tf.random_crop(tf.reshape(tf.range(30.0), [5, 6]), [2, 3], seed=1)
        bright = tf.image.random_brightness(img, 0.25, seed=2) - img
        contrast = tf.image.random_contrast(img, 0.2, 1.8, seed=4)
        jitter = tf.image.random_hue(tf.image.random_saturation(img, 0.5, 1.5, seed=5), 0.1)
        g = tf.gradients(tf.reduce_sum(crop * crop), [])  # (no xs: nothing to check)
        assert g == [] and crop.shape.as_list() == [2, 3]
        with tf.Session() as sess:
            # TF 2.21's numbers for the centred crop and pad
            assert sess.run(fitted).tolist() == [[0, 0, 1, 2, 3, 4, 0, 0], [0, 5, 6, 7, 8, 9, 0, 0],
                                                 [0, 10, 11, 12, 13, 14, 0, 0]]
            windows = set()
            for _ in range(12):
                c, b, k, j = sess.run([crop, bright, contrast, jitter])
                assert c[0, 1] - c[0, 0] == 1 and c[1, 0] - c[0, 0] == 6   # a window
                windows.add(c[0, 0])
                assert np.ptp(b) < 1e-6 and abs(b.flat[0]) <= 0.25   # one delta per image
                assert 0.0 <= j.min() and j.max() <= 1.0
        assert len(windows) > 1 and windows <= {r * 6.0 + q for r in range(4) for q in range(4)}
    with pytest.raises(ValueError, match="random_contrast: the lower bound 1.5 must be below"):
        tf.image.random_contrast(PIXELS, 1.5, 0.5)
    with pytest.raises(ValueError, match=r"random_crop: size \[6, 3\]"):
        tf.random_crop(tf.ones([5, 6]), [6, 3])


def test_coordinator_around_a_tf_data_loop_and_queue_pipelines_refused():
    X = np.arange(12, dtype=np.float32).reshape(6, 2)
    with tf.Graph().as_default():
        batch = tf.data.Dataset.from_tensor_slices(X).batch(4).make_one_shot_iterator().get_next()
        seen = []
        with tf.Session() as sess:
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess=sess, coord=coord)
            try:
                while not coord.should_stop():
                    seen.append(sess.run(batch).shape[0])
            except tf.errors.OutOfRangeError:
                coord.request_stop()
            finally:
                coord.request_stop()
            coord.join(threads)
        assert seen == [4, 2] and threads == [] and coord.should_stop()
    coord = tf.train.Coordinator()
    with coord.stop_on_exception():
        raise RuntimeError("reader failed")
    assert coord.should_stop()
    with pytest.raises(RuntimeError, match="reader failed"):
        coord.join()
    coord.clear_stop()
    coord.request_stop(tf.errors.OutOfRangeError(None, None, "end"))   # a clean stop
    coord.join()
    for name in ("slice_input_producer", "shuffle_batch", "string_input_producer"):
        with pytest.raises(AttributeError, match=f"tf.train.{name}: TF1's queue-based input "
                                                 "pipelines .*Dataset.from_tensor_slices"):
            getattr(tf.train, name)
    with pytest.raises(AttributeError, match="tf.FIFOQueue: .*tf.data"):
        tf.FIFOQueue


def test_a_missing_name_says_what_to_do():
    with pytest.raises(AttributeError, match=r"tf.nn has no attribute 'fractional_max_pool' in "
                                             r"symgrad: it is not implemented; build it from the "
                                             r"ops symgrad has \(dir\(tf.nn\) lists them\)"):
        tf.nn.fractional_max_pool
    with pytest.raises(AttributeError, match=r"'no_such_op' in symgrad: .*\(dir\(tf\) lists"):
        tf.no_such_op


def test_layer_objects_share_their_variables_across_calls_as_tf():
    # one Conv2D and one Dense object applied to two inputs; TF 2.21's numbers
    rng = np.random.RandomState(3)
    xa, xb = rng.rand(2, 4, 4, 1).astype(np.float32), rng.rand(2, 4, 4, 1).astype(np.float32)
    with tf.Graph().as_default():
        conv = tf.layers.Conv2D(2, 2, activation=tf.nn.relu, kernel_initializer=(
            tf.constant_initializer([0.5, -1.0, 0.25, 2.0, 1.0, 0.0, -0.5, 1.5])),
            bias_initializer=tf.constant_initializer([0.1, -0.2]))
        bn = tf.layers.BatchNormalization(momentum=0.5)
        fc = tf.layers.Dense(1, kernel_initializer=tf.ones_initializer())
        ha = fc(tf.layers.Flatten()(tf.layers.AveragePooling2D(3, 3)(
            bn(conv(tf.constant(xa)), training=True))))
        hb = fc(tf.layers.Flatten()(tf.layers.MaxPooling2D(2, 2)(conv(tf.constant(xb)))[:, :1, :1]))
        loss = tf.reduce_sum(ha) + tf.reduce_sum(hb)
        g = tf.gradients(loss, conv.variables)
        assert [v.name for v in tf.global_variables()] == [
            'conv2d/kernel:0', 'conv2d/bias:0', 'batch_normalization/gamma:0',
            'batch_normalization/beta:0', 'batch_normalization/moving_mean:0',
            'batch_normalization/moving_variance:0', 'dense/kernel:0', 'dense/bias:0']
        assert (len(conv.variables), len(bn.variables), len(fc.variables)) == (2, 4, 2)
        assert len(bn.trainable_variables) == 2
        with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
            step = tf.identity(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got = sess.run([ha, hb, step])
            grads = sess.run(g)
            moving = sess.run(bn.variables[2:])
    np.testing.assert_allclose(got[0].ravel(), [-0.222309, 0.222308], atol=2e-6)
    np.testing.assert_allclose(got[1].ravel(), [2.562774, 2.539646], rtol=2e-6)
    np.testing.assert_allclose(got[2], 5.1024194, rtol=2e-6)
    np.testing.assert_allclose(grads[0].reshape(-1), [
        1.1808117628097534, 0.990063488483429, 1.3003729581832886, 1.329336404800415,
        1.1674461364746094, 1.4001572132110596, 0.6450700759887695, 1.2489336729049683],
        rtol=2e-6)
    np.testing.assert_allclose(grads[1], [2.0, 2.0], rtol=2e-6)   # (TF: exactly 2)
    np.testing.assert_allclose(moving, [[0.348889, 0.494103], [0.563874, 0.77004]], rtol=2e-6)


def test_a_layer_reused_inside_a_while_loop_finds_its_variables():
    # greedy decoding: the decoder's projection (made outside) applied in the loop body
    with tf.Graph().as_default():
        proj = tf.layers.Dense(2, kernel_initializer=tf.constant_initializer([1.0, -1.0, 0.5, 2.0]))
        x0 = tf.constant([[1.0, 0.5]])
        first = proj(x0)
        w = tf.get_variable("w", [2], initializer=tf.ones_initializer())

        def body(i, h):
            with tf.variable_scope(tf.get_variable_scope(), reuse=True):
                scale = tf.get_variable("w")
            return i + 1, tf.tanh(proj(h)) * scale
        _, h = tf.while_loop(lambda i, h: i < 3, body, [0, x0])
        g = tf.gradients(tf.reduce_sum(h), [w, proj.kernel])
        assert len(tf.global_variables()) == 3
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got = sess.run([first, h] + g)
    # the same recurrence in numpy; its gradient by central differences
    def run(wv, kv):
        hv = np.array([[1.0, 0.5]])
        for _ in range(3):
            hv = np.tanh(hv @ kv) * wv
        return hv
    kv, wv = np.array([[1.0, -1.0], [0.5, 2.0]]), np.ones(2)
    np.testing.assert_allclose(got[0], [[1.25, 0.0]])
    np.testing.assert_allclose(got[1], run(wv, kv), rtol=1e-6)
    for i, want in enumerate(got[2]):
        e = np.eye(2)[i] * 1e-6
        fd = (run(wv + e, kv).sum() - run(wv - e, kv).sum()) / 2e-6
        np.testing.assert_allclose(want, fd, rtol=1e-4)


def test_set_shape_on_a_shapeless_placeholder_and_its_checks():
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float32)
        p.set_shape([None, 3])
        assert str(p.shape) == "(?, 3)"
        y = tf.layers.dense(p, 2)   # needs the last size
        q = tf.placeholder(tf.float32, [None, 3])
        q.set_shape([5, 3])   # compatible: accepted (values are checked when fed)
        with pytest.raises(ValueError, match=r"Shapes \(\?, 3\) and \(5, 4\) are incompatible"):
            q.set_shape([5, 4])
        r = tf.placeholder(tf.float32)
        r2 = r * 2.0
        with pytest.raises(ValueError, match="already used .* call set_shape right after"):
            r.set_shape([2])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run(y, {p: np.ones((4, 3))}).shape == (4, 2)
            assert sess.run(r2, {r: [1.0, 2.0]}).tolist() == [2.0, 4.0]
            with pytest.raises(ValueError, match="shape"):
                sess.run(y, {p: np.ones((4, 2))})


def test_convert_to_tensor_names_its_constant_and_takes_tfs_dtypes():
    with tf.Graph().as_default():
        w = tf.convert_to_tensor([[1, 2]], name="w")
        assert (w.name, w.dtype) == ("w:0", np.int32)
        assert tf.convert_to_tensor(1.5).dtype == np.float32
        assert tf.convert_to_tensor(np.ones(2)).dtype == np.float64
        assert tf.convert_to_tensor([1.0, 2.0], dtype=tf.float64).dtype == np.float64
        x = tf.constant(1.0)
        assert tf.convert_to_tensor([x, 2.0]).shape.as_list() == [2]


def test_einsum_implicit_outputs_ellipses_and_diagonals_as_tf():
    with tf.Graph().as_default():
        A = tf.Variable(np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 10)
        B = tf.Variable(np.arange(20, dtype=np.float32).reshape(4, 5) / 7 - 1)
        S = tf.Variable(np.arange(18, dtype=np.float32).reshape(2, 3, 3) / 5 - 1)
        outs = [tf.einsum("...ij,jk->...ik", A, B), tf.einsum("bij,jk", A, B),
                tf.einsum("bii->bi", S), tf.einsum("bii", S), tf.linalg.einsum("...ii->...", S),
                tf.einsum("ij,...j->...i", B[:, :4], A)]
        loss = sum(tf.reduce_sum(tf.sin(o)) for o in outs)
        g = tf.gradients(loss, [A, B, S])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got, grads = sess.run(outs), sess.run(g)
    # TF 2.21's shapes, sums and gradients
    assert [o.shape for o in got] == [(2, 3, 5), (2, 3, 5), (2, 3), (2,), (2,), (2, 3, 4)]
    np.testing.assert_allclose([o.sum() for o in got], [60.0, 60.0, 4.2, 4.2, 4.2, 33.25714],
                               rtol=1e-5)
    np.testing.assert_allclose(got[2].ravel(), [-1.0, -0.2, 0.6, 0.8, 1.6, 2.4], atol=1e-6)
    np.testing.assert_allclose(grads[2].ravel(), [
        2.19097, 0, 0, 0, 2.63074, 0, 0, 0, 2.47601, 0.87171, 0, 0, 0, 0.1458, 0, 0, 0, -0.5624],
        atol=1e-5)
    np.testing.assert_allclose(grads[1].ravel()[:6], [9.5683, -0.4085, -6.73483, -4.21534,
                                                      0.62718, 14.51234], atol=3e-5)
    np.testing.assert_allclose(grads[0].ravel()[:4], [-6.19488, 0.26209, 6.71907, 13.17604],
                               atol=2e-5)
    with pytest.raises(ValueError, match="names 2 operands, 1 given"):
        tf.einsum("ij,jk->ik", tf.ones([2, 2]))


def test_a_fetched_variable_is_read_when_the_run_ends_as_tf1s_reference_variables():
    # cnn-text-classification-tf prints `step, loss` from sess.run([train_op,
    # global_step, loss]): TF1 shows step 1 first; a computed tensor keeps the value
    # the step read (TF 2.21 with v2 behaviour disabled: reference variables)
    with tf.Graph().as_default():
        v = tf.Variable(0, name="v")
        w = tf.Variable(1.0, name="w")
        inc = tf.assign_add(v, 1)
        upd = tf.assign(w, w * 3.0)
        x = tf.Variable(5.0)
        gs = tf.train.get_or_create_global_step()
        train = tf.train.GradientDescentOptimizer(0.1).minimize(tf.square(x), global_step=gs)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got = [sess.run([v, inc]), sess.run([inc, v]), sess.run([w, upd]),
                   sess.run([train, gs, x]), sess.run([train, gs, x]),
                   sess.run([gs, train, x * 1.0]), sess.run(v)]
    want = [[1, 1], [2, 2], [3.0, 3.0], [None, 1, 4.0], [None, 2, 3.2], [3, None, 3.2], [2]]
    got[-1] = [got[-1]]
    for fetched, expected in zip(got, want):
        assert [a is None for a in fetched] == [b is None for b in expected]
        np.testing.assert_allclose([a for a in fetched if a is not None],
                                   [b for b in expected if b is not None], rtol=1e-6)


def test_meshgrid_roll_div_no_nan_and_xw_plus_b_as_tf():
    with tf.Graph().as_default():
        a = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3) - 2)
        b = tf.Variable(np.array([[1., 0., 2.], [0., -1., 0.5]], np.float32))
        xg, yg = tf.meshgrid(tf.range(3.0), tf.range(2.0) * 10)
        ig, jg = tf.meshgrid(tf.range(3.0), tf.range(2.0) * 10, indexing="ij")
        r = tf.roll(a, shift=[1, -1, 2], axis=[1, 0, 1])
        d = tf.div_no_nan(a, b)
        xw = tf.nn.xw_plus_b(a, tf.transpose(b), [0.5, -0.5])
        loss = tf.reduce_sum(r * [1., 2., 3.]) + tf.reduce_sum(d * d) + tf.reduce_sum(xw ** 2)
        g = tf.gradients(loss, [a, b])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got = sess.run([xg, yg, ig, jg, r, d, xw] + g)
    want = [  # TF 2.21
        [[0, 1, 2], [0, 1, 2]], [[0, 0, 0], [10, 10, 10]], [[0, 0], [1, 1], [2, 2]],
        [[0, 10], [0, 10], [0, 10]], [[1, 2, 3], [-2, -1, 0]], [[-2, 0, 0], [0, -2, 6]],
        [[-1.5, 0.5], [7.5, -1.0]], [[-6, 1, -2.5], [16, 8, 56]], [[13, 33, 45], [-4, 3, -150]]]
    for g_, w in zip(got, want):
        assert g_.tolist() == w


def test_nn_convolution_and_pool_dispatch_by_rank_as_tf():
    # WaveNet-style code calls the N-d forms; TF 2.21's values and gradients
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 5, 2])
        L = tf.placeholder(tf.int32, [None])
        w = tf.Variable(np.array([[[1.0, -1.0], [0.5, 2.0]], [[0.0, 1.0], [-1.5, 0.5]]],
                                 np.float32))
        c = tf.nn.convolution(x, w, padding="VALID", dilation_rate=[2])
        c2 = tf.nn.convolution(tf.expand_dims(x, 1), tf.expand_dims(w, 0), padding="SAME",
                               strides=[1, 2])
        pm = tf.nn.pool(x, [2], "MAX", "VALID", strides=[1])
        pa = tf.nn.pool(tf.expand_dims(x, 1), [1, 2], "AVG", "SAME", strides=[1, 2])
        last = tf.gather_nd(x * w[0, 0], tf.stack([tf.range(tf.shape(x)[0]), L - 1], axis=1))
        loss = tf.reduce_sum(c ** 2) + tf.reduce_sum(c2) + tf.reduce_sum(pm) + \
            tf.reduce_sum(pa) + tf.reduce_sum(last * [1.0, 3.0])
        gx, gw = tf.gradients(loss, [x, w])
        xv = np.arange(20, dtype=np.float32).reshape(2, 5, 2) / 5 - 1
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got = sess.run([c, c2, pm, pa, last, gx, gw], {x: xv, L: [5, 2]})
    want = [
        [[[-1.4, -0.8], [-1.4, 0.2], [-1.4, 1.2]], [[-1.4, 4.2], [-1.4, 5.2], [-1.4, 6.2]]],
        [[[[-0.8, -1.4], [-0.8, 0.6], [1.0, 1.0]]], [[[-0.8, 3.6], [-0.8, 5.6], [4.0, 3.0]]]],
        [[[-0.6, -0.4], [-0.2, 0.0], [0.2, 0.4], [0.6, 0.8]],
         [[1.4, 1.6], [1.8, 2.0], [2.2, 2.4], [2.6, 2.8]]],
        [[[[-0.8, -0.6], [0.0, 0.2], [0.6, 0.8]]], [[[1.2, 1.4], [2.0, 2.2], [2.6, 2.8]]]],
        [[0.6, -0.8], [1.4, -1.6]],
        [[[-0.7, -1.6], [-0.7, -0.1], [-5.3, 10.8], [2.9, 4.9], [5.4, 6.9]],
         [[-10.7, 18.4], [-9.7, 16.9], [-5.3, 35.8], [12.9, 9.9], [14.4, 14.9]]],
        [[[0.08, 58.16], [-4.08, 58.64]], [[-16.96, 75.28], [-19.52, 82.56]]]]
    for g, w_ in zip(got, want):
        np.testing.assert_allclose(g, w_, atol=2e-5)
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="spatial sizes when the graph is built"):
            tf.nn.conv1d(tf.placeholder(tf.float32, [None, None, 2]), tf.ones([2, 2, 2]), 1,
                         "VALID")


def test_gather_nd_over_two_run_time_sizes():
    # the last relevant output of [batch, time, units] with batch and time unknown
    with tf.Graph().as_default():
        out = tf.placeholder(tf.float32, [None, None, 3])
        lengths = tf.placeholder(tf.int32, [None])
        idx = tf.stack([tf.range(tf.shape(out)[0]), lengths - 1], axis=1)
        last = tf.gather_nd(out * 2.0, idx)
        g = tf.gradients(tf.reduce_sum(last * [1.0, 2.0, 3.0]), out)[0]
        assert last.shape.as_list() == [None, 3]
        with tf.Session() as sess:
            for b, t in ((2, 4), (3, 2)):
                ov = np.arange(b * t * 3, dtype=np.float32).reshape(b, t, 3)
                lv = np.array([t, 1, 2][:b], np.int32)
                got, grad = sess.run([last, g], {out: ov, lengths: lv})
                np.testing.assert_array_equal(got, 2 * ov[np.arange(b), lv - 1])
                want = np.zeros_like(ov)
                want[np.arange(b), lv - 1] = [2.0, 4.0, 6.0]
                np.testing.assert_array_equal(grad, want)


def test_a_growing_tensor_array_is_refused_with_the_size_to_give():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=r"size=0, dynamic_size=True\): symgrad's arrays do "
                                             r"not grow; .*size=tf.shape\(inputs\)\[0\]"):
            tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        ta = tf.TensorArray(tf.float32, size=3, dynamic_size=True)   # a size: accepted
        assert tf.Session().run(ta.write(1, 2.0).stack()).tolist() == [0.0, 2.0, 0.0]


def test_sgdr_linear_cosine_and_cycled_polynomial_schedules_as_tf():
    with tf.Graph().as_default():
        gs = tf.placeholder(tf.int64, [])
        scheds = [tf.train.cosine_decay_restarts(0.1, gs, 10),
                  tf.train.cosine_decay_restarts(0.1, gs, 10, t_mul=1.0, m_mul=0.5, alpha=0.1),
                  tf.train.cosine_decay_restarts(0.1, gs, 7, t_mul=3.0, m_mul=0.8),
                  tf.train.linear_cosine_decay(0.1, gs, 40),
                  tf.train.linear_cosine_decay(0.1, gs, 40, num_periods=2.0, alpha=0.1,
                                               beta=0.01),
                  tf.train.polynomial_decay(0.1, gs, 20, end_learning_rate=0.01, power=2.0,
                                            cycle=True)]
        with tf.Session() as sess:
            got = {step: sess.run(scheds, {gs: step}) for step in (0, 9, 11, 29, 45, 100)}
    want = {  # TF 2.21
        0: [0.1, 0.1, 0.1, 0.1001, 0.111, 0.1],
        9: [0.0024472, 0.0122025, 0.0782229, 0.0683157, 0.0031413, 0.037225],
        11: [0.0993844, 0.0538988, 0.0730495, 0.0598925, 0.0030189, 0.028225],
        29: [0.0006156, 0.0105506, 0.0639602, 0.0049201, 0.0019177, 0.0168062],
        45: [0.0691342, 0.0128125, 0.0531739, 0.0001, 0.011, 0.015625],
        100: [0.0691342, 0.0100879, 0.0509141, 0.0001, 0.011, 0.01]}
    for step in want:
        np.testing.assert_allclose(got[step], want[step], rtol=2e-5, atol=2e-7)


def test_make_template_shares_and_init_from_checkpoint_warm_starts(tmp_path):
    with tf.Graph().as_default():
        def affine(x, units):
            w = tf.get_variable("w", [2, units], initializer=tf.constant_initializer(
                [1.0, 2.0, 3.0, -1.0, 0.5, 0.0]))
            return tf.matmul(x, w)
        enc = tf.make_template("encoder", affine, units=3)
        ea, eb = enc(tf.ones([1, 2])), enc(tf.zeros([1, 2]))
        assert [v.name for v in tf.global_variables()] == ["encoder/w:0"]
        assert enc.variable_scope_name == "encoder/" and len(enc.trainable_variables) == 1
        t1, t2 = tf.tuple([ea, None])
        (i1,) = tf.identity_n([eb])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run(t1).tolist() == [[0.0, 2.5, 3.0]] and t2 is None
            assert sess.run(i1).tolist() == [[0.0, 0.0, 0.0]]
            path = tf.train.Saver().save(sess, str(tmp_path / "pre"))
    with tf.Graph().as_default():
        with tf.variable_scope("finetune"):
            w = tf.get_variable("w", [2, 3])
        other = tf.get_variable("other", [2, 3])
        wrong = tf.get_variable("wrong", [3])
        tf.train.init_from_checkpoint(str(tmp_path), {"encoder/": "finetune/"})
        tf.train.init_from_checkpoint(path, {"encoder/w": "other"})
        with pytest.raises(ValueError, match="Shape of variable wrong:0"):
            tf.train.init_from_checkpoint(path, {"encoder/w": wrong})
        with pytest.raises(ValueError, match="Tensor encoder/b is not found"):
            tf.train.init_from_checkpoint(path, {"encoder/b": other})
        with pytest.raises(ValueError, match="Tensor nope is not found in current graph"):
            tf.train.init_from_checkpoint(path, {"encoder/w": "nope"})
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            want = [[1.0, 2.0, 3.0], [-1.0, 0.5, 0.0]]
            assert sess.run(w).tolist() == want and sess.run(other).tolist() == want


def test_a_session_block_makes_its_graph_the_default_as_tf1():
    # the Udacity Deep Learning assignments build in `graph`, then initialise inside
    # `with tf.Session(graph=graph)` (TF 2.21: losses 2.25, 1.1025, 0.540225)
    graph = tf.Graph()
    with graph.as_default():
        weights = tf.Variable(np.full((3, 2), 0.5, np.float32))
        loss = tf.reduce_mean(tf.matmul(tf.ones([4, 3]), weights) ** 2)
        optimizer = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    outer = tf.get_default_graph()
    with tf.Session(graph=graph) as session:
        tf.global_variables_initializer().run()
        assert tf.get_default_graph() is graph
        losses = [session.run([optimizer, loss])[1] for _ in range(3)]
        assert session.run(tf.reduce_sum(weights)) == pytest.approx(1.0289999, rel=1e-6)
        assert session.run(tf.is_variable_initialized(weights))
    assert tf.get_default_graph() is outer
    np.testing.assert_allclose(losses, [2.25, 1.1025, 0.540225], rtol=1e-6)


def test_is_variable_initialized_and_train_global_step():
    with tf.Graph().as_default():
        a, b = tf.Variable(1.0), tf.Variable(2.0)
        step = tf.Variable(7, trainable=False)
        with tf.Session() as sess:
            sess.run(tf.variables_initializer([a, step]))
            got = sess.run([tf.is_variable_initialized(a), tf.is_variable_initialized(b)])
            assert [bool(g) for g in got] == [True, False]
            assert tf.train.global_step(sess, step) == 7


def test_tensor_scatter_updates_batch_gather_and_switch_case_as_tf():
    with tf.Graph().as_default():
        T = tf.Variable(np.arange(12, dtype=np.float32).reshape(4, 3) / 4 - 1)
        U = tf.Variable(np.array([[1., -2., 3.], [0.5, 0.25, -1.]], np.float32))
        u1 = tf.tensor_scatter_nd_update(T, [[1], [3]], U)
        u2 = tf.tensor_scatter_nd_add(T, [[0, 0], [2, 1]], [1.0, 2.0])
        u3 = tf.tensor_scatter_nd_sub(T, [[1]], U[:1])
        P = tf.placeholder(tf.float32, [None, 4, 2])
        I = tf.placeholder(tf.int32, [None, 3])
        bg = tf.batch_gather(P, I)
        loss = tf.reduce_sum(u1 * u1) + tf.reduce_sum(u2 ** 3) + \
            tf.reduce_sum(u3 * [1., 2., 3.]) + tf.reduce_sum(bg * bg)
        grads = tf.gradients(loss, [T, U, P])
        k = tf.placeholder(tf.int32, [])
        sw = tf.switch_case(k, [lambda: tf.constant(1.0), lambda: tf.constant(2.0)])
        sw2 = tf.switch_case(k, {0: lambda: tf.constant(10.0)}, default=lambda: tf.constant(-1.0))
        with pytest.raises(ValueError, match=r"contiguous range of \[0 to 2\) but found \[0, 2\]"):
            tf.switch_case(k, {0: lambda: tf.constant(1.0), 2: lambda: tf.constant(2.0)})
        pv = np.arange(16, dtype=np.float32).reshape(2, 4, 2) - 8
        iv = np.array([[3, 0, 3], [1, 2, 1]], np.int32)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got = sess.run([u1, u2, u3, bg] + grads, {P: pv, I: iv})
            switched = [sess.run([sw, sw2], {k: i}) for i in (0, 1, 7)]
    want = [  # TF 2.21
        [[-1.0, -0.75, -0.5], [1.0, -2.0, 3.0], [0.5, 0.75, 1.0], [0.5, 0.25, -1.0]],
        [[0.0, -0.75, -0.5], [-0.25, 0.0, 0.25], [0.5, 2.75, 1.0], [1.25, 1.5, 1.75]],
        [[-1.0, -0.75, -0.5], [-1.25, 2.0, -2.75], [0.5, 0.75, 1.0], [1.25, 1.5, 1.75]],
        [[[-2.0, -1.0], [-8.0, -7.0], [-2.0, -1.0]], [[2.0, 3.0], [4.0, 5.0], [2.0, 3.0]]],
        [[-1.0, 2.1875, 2.75], [1.1875, 2.0, 3.1875], [2.75, 26.1875, 8.0],
         [5.6875, 8.75, 12.1875]],
        [[1.0, -6.0, 3.0], [1.0, 0.5, -2.0]],
        [[[-16.0, -14.0], [0.0, 0.0], [0.0, 0.0], [-8.0, -4.0]],
         [[0.0, 0.0], [8.0, 12.0], [8.0, 10.0], [0.0, 0.0]]]]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-6)
    assert [[float(a), float(b)] for a, b in switched] == [[1.0, 10.0], [2.0, -1.0], [2.0, -1.0]]


def test_bicubic_and_area_resizing_and_preserved_aspect_ratio_as_tf():
    with tf.Graph().as_default():
        img = tf.Variable((np.arange(20, dtype=np.float32).reshape(1, 4, 5, 1) % 7) / 7)
        outs = [tf.image.resize_bicubic(img, [7, 3]),
                tf.image.resize_bicubic(img, [3, 8], align_corners=True),
                tf.image.resize_area(img, [3, 2]),
                tf.image.resize_images(img, [6, 6], method=tf.image.ResizeMethod.AREA,
                                       preserve_aspect_ratio=True)]
        w = tf.constant(np.linspace(-1, 1, 21).astype(np.float32).reshape(1, 7, 3, 1))
        g = tf.gradients(tf.reduce_sum(outs[0] * w) + tf.reduce_sum(outs[1] ** 2), img)[0]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got = [v[0, ..., 0] for v in sess.run(outs + [g])]
    want = [  # TF 2.21
        [[0.0, 0.23284, 0.48937], [0.44428, 0.20756, 0.28169], [0.73968, 0.31586, 0.22909],
         [0.56664, 0.58825, 0.48214], [0.32181, 0.62963, 0.6548], [0.17362, 0.41542, 0.63398],
         [0.11287, 0.34572, 0.63524]],
        [[0.0, 0.06787, 0.16947, 0.2386, 0.33283, 0.40196, 0.50356, 0.57143],
         [0.66518, 0.79535, 0.76296, 0.46695, 0.36535, 0.51231, 0.32562, 0.04911],
         [0.14286, 0.21073, 0.31232, 0.38145, 0.47569, 0.54482, 0.64642, 0.71429]],
        [[0.24286, 0.38571], [0.58571, 0.32857], [0.32857, 0.57143]],
        [[0.0, 0.11429, 0.22857, 0.34286, 0.45714, 0.57143],
         [0.53571, 0.65, 0.31429, 0.12857, 0.24286, 0.35714],
         [0.57143, 0.68571, 0.5, 0.41429, 0.42857, 0.14286],
         [0.35714, 0.47143, 0.58571, 0.7, 0.66429, 0.17857],
         [0.14286, 0.25714, 0.37143, 0.48571, 0.6, 0.71429]],
        [[-1.35838, -0.19348, 0.06899, 0.7947, 1.13512],
         [0.21018, 1.35687, 0.37125, 0.54786, -0.02102],
         [1.16388, 1.72724, 1.05848, 1.22778, 0.29128],
         [1.51146, 1.34022, 2.43317, 3.25714, 2.39151]]]
    for v, w_ in zip(got, want):
        np.testing.assert_allclose(v, w_, atol=1e-5)


def test_crop_and_resize_values_extrapolation_and_gradients_as_tf():
    # Faster R-CNN's ROI crops; TF 2.21 differentiates the feature map and the boxes
    with tf.Graph().as_default():
        feat = tf.Variable((np.arange(24, dtype=np.float32).reshape(2, 3, 4, 1) % 5) / 4)
        boxes = tf.Variable(np.array([[0.1, 0.2, 0.7, 0.9], [-0.2, 0.3, 0.5, 1.2]], np.float32))
        crops = tf.image.crop_and_resize(feat, boxes, [0, 1], [2, 3], extrapolation_value=-1.0)
        weights = tf.constant(np.arange(6, dtype=np.float32).reshape(1, 2, 3, 1))
        gf, gb = tf.gradients(tf.reduce_sum(crops * weights), [feat, boxes])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            c, g1, g2 = sess.run([crops, gf, gb])
    np.testing.assert_allclose(c[..., 0], [[[0.2, 0.3625, 0.625], [0.6, 0.2375, 0.325]],
                                           [[-1.0, -1.0, -1.0], [0.475, 0.8125, -1.0]]],
                               atol=1e-6)
    np.testing.assert_allclose(g1[..., 0], [
        [[0.0, 0.28, 1.0, 1.12], [0.72, 1.99, 2.71, 2.38], [0.48, 1.28, 1.64, 1.4]],
        [[0.0, 0.0, 0.0, 0.0], [0.3, 2.7, 3.0, 1.0], [0.0, 0.0, 0.0, 0.0]]], atol=1e-5)
    np.testing.assert_allclose(g2, [[-1.5, -5.625, 2.0, 4.125], [0.0, 3.75, 0.0, 1.5]],
                               atol=1e-5)


def test_fused_batch_norm_training_and_inference_as_tf():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3, 2, 2])
        sc = tf.Variable(np.array([1.5, 0.5], np.float32))
        of = tf.Variable(np.array([0.1, -0.2], np.float32))
        y, m, v = tf.nn.fused_batch_norm(x, sc, of, epsilon=1e-3)
        yi, mi, vi = tf.nn.fused_batch_norm(x, sc, of, mean=[0.5, 1.0], variance=[2.0, 0.5],
                                            is_training=False)
        g = tf.gradients(tf.reduce_sum(y ** 3) + tf.reduce_sum(yi * 2.0), [x, sc, of])
        xv = (np.arange(24, dtype=np.float32).reshape(2, 3, 2, 2) % 7) / 3
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got = [np.ravel(o)[:8] for o in sess.run([y, m, v, yi] + g, {x: xv})]
    want = [  # TF 2.21 (v: the batch variance with Bessel's correction, as TF's kernel)
        [-1.94607, -0.63141, -0.50179, -0.11372, 0.9425, 0.40398, 2.38679, -0.89026],
        [0.94444, 0.88889], [0.52189, 0.45118],
        [-0.4302, -0.67093, 0.27673, -0.2, 0.98366, 0.27093, 1.69059, -0.9064],
        [18.04903, 1.36577, -9.14416, 0.82906, -9.22282, 1.54108, 17.81307, 2.1024],
        [31.79164, -9.16952], [105.19106, 34.41829]]
    for g_, w in zip(got, want):
        np.testing.assert_allclose(g_, w, rtol=2e-6, atol=2e-5)


def test_an_optimizer_written_to_tfs_protocol_steps_as_in_tf():
    # slots (_zeros_slot, _get_or_make_slot), a non-slot beta power updated in _finish,
    # _prepare, _call_if_callable: the tf.contrib.opt way of writing optimizers
    class MyAdam(tf.train.Optimizer):
        def __init__(self, lr=0.1, b1=0.9, b2=0.999, eps=1e-8, name="MyAdam"):
            super(MyAdam, self).__init__(False, name)
            self._lr, self._b1, self._b2, self._eps = lr, b1, b2, eps

        def _create_slots(self, var_list):
            first = min(var_list, key=lambda x: x.name)
            self._create_non_slot_variable(initial_value=self._b1, name="beta1_power",
                                           colocate_with=first)
            for v in var_list:
                self._zeros_slot(v, "m", self._name)
                self._get_or_make_slot(v, tf.ones_like(v) * 0.01, "v", self._name + "_v")

        def _prepare(self):
            self._lr_t = tf.convert_to_tensor(self._call_if_callable(self._lr), name="lr")

        def _apply_dense(self, grad, var):
            b1p = self._get_non_slot_variable("beta1_power", graph=var.graph)
            m, v = self.get_slot(var, "m"), self.get_slot(var, "v")
            m_t = tf.assign(m, self._b1 * m + (1 - self._b1) * grad)
            v_t = tf.assign(v, self._b2 * v + (1 - self._b2) * grad * grad)
            step = self._lr_t * m_t / (1 - b1p) / (tf.sqrt(v_t) + self._eps)
            return tf.group(tf.assign_sub(var, step), m_t, v_t)

        def _finish(self, update_ops, name_scope):
            with tf.control_dependencies(update_ops):
                b1p = self._get_non_slot_variable("beta1_power", graph=tf.get_default_graph())
                upd = b1p.assign(b1p * self._b1)
            return tf.group(*update_ops + [upd], name=name_scope)

    with tf.Graph().as_default():
        w = tf.Variable(np.array([1.0, -2.0], np.float32), name="w")
        b = tf.Variable(0.5, name="b")
        loss = tf.reduce_sum((w - [3.0, 1.0]) ** 2) + (b + 1.0) ** 2
        gs = tf.train.get_or_create_global_step()
        opt = MyAdam(0.1)
        train = opt.minimize(loss, global_step=gs)
        assert sorted(v.name for v in tf.global_variables()) == [
            'b/MyAdam:0', 'b/MyAdam_v:0', 'b:0', 'beta1_power:0', 'global_step:0',
            'w/MyAdam:0', 'w/MyAdam_v:0', 'w:0'] and opt.get_slot_names() == ['m', 'v']
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            losses = [sess.run([loss, train])[0] for _ in range(4)]
            got = sess.run([w, b, gs, opt.get_slot(w, "v"),
                            opt._get_non_slot_variable("beta1_power", w.graph)])
    # TF 2.21's numbers
    np.testing.assert_allclose(losses, [15.25, 0.730734, 4.617177, 5.239279], rtol=2e-6)
    np.testing.assert_allclose(got[0], [3.866544008255005, 2.5739030838012695], rtol=1e-6)
    np.testing.assert_allclose(got[1], -1.432076, rtol=1e-6)
    assert got[2] == 4
    np.testing.assert_allclose(got[3], [0.040346, 0.063134], atol=1e-6)
    np.testing.assert_allclose(got[4], 0.59049, rtol=1e-6)


def test_a_protocol_optimizer_reading_base_dtype_is_told_what_to_write():
    class Plain(tf.train.Optimizer):
        def _apply_dense(self, grad, var):
            return tf.assign_sub(var, tf.cast(0.1, var.dtype.base_dtype) * grad)

    with tf.Graph().as_default():
        w = tf.Variable(1.0)
        with pytest.raises(AttributeError, match="base_dtype.*for var.dtype.base_dtype write "
                                                 "var.dtype"):
            Plain(False, "Plain").minimize(w * w)


def test_separable_conv2d_layers_names_values_and_gradients_as_tf():
    rng = np.random.RandomState(39)
    xv = rng.rand(2, 6, 6, 3).astype(np.float32)

    def init(shape, seed):
        values = np.random.RandomState(seed).randn(*shape).astype(np.float32).ravel() * 0.3
        return tf.constant_initializer(values)
    with tf.Graph().as_default():
        x = tf.constant(xv)
        y1 = tf.layers.separable_conv2d(x, 4, 3, padding="same", depth_multiplier=2,
                                        activation=tf.nn.relu,
                                        depthwise_initializer=init((3, 3, 3, 2), 1),
                                        pointwise_initializer=init((1, 1, 6, 4), 2))
        layer = tf.layers.SeparableConv2D(5, (2, 2), strides=(2, 2),
                                          depthwise_initializer=init((2, 2, 4, 1), 3),
                                          pointwise_initializer=init((1, 1, 4, 5), 4),
                                          bias_initializer=tf.constant_initializer(0.1))
        y2 = layer(y1)
        y3 = tf.layers.separable_conv2d(x, 2, 3, dilation_rate=2, name="dil",
                                        depthwise_initializer=init((3, 3, 3, 1), 5),
                                        pointwise_initializer=init((1, 1, 3, 2), 6))
        assert [(v.name, v.shape.as_list()) for v in tf.global_variables()][3:6] == [
            ('separable_conv2d_1/depthwise_kernel:0', [2, 2, 4, 1]),
            ('separable_conv2d_1/pointwise_kernel:0', [1, 1, 4, 5]),
            ('separable_conv2d_1/bias:0', [5])]
        assert [y.shape.as_list() for y in (y1, y2, y3)] == [[2, 6, 6, 4], [2, 3, 3, 5],
                                                             [2, 2, 2, 2]]
        g = tf.gradients(tf.reduce_sum(y2 ** 2) + tf.reduce_sum(y3), tf.trainable_variables())
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            v2, v3, grads = sess.run([y2, y3, g])
    # TF 2.21
    np.testing.assert_allclose(v2[0, 0], [[0.072196, 0.068734, 0.155372, 0.126505, 0.079276],
                                          [0.049257, 0.087682, 0.101783, 0.123291, 0.052015],
                                          [0.10264, 0.062442, 0.185331, 0.138287, 0.09249]],
                               atol=2e-6)
    np.testing.assert_allclose(v3[1, :, 0, 1], [0.297261, -0.03576], atol=2e-6)
    np.testing.assert_allclose([gv.sum() for gv in grads], [
        -0.29383, -0.59431, -0.31749, 1.05799, 0.98164, 13.48707, -20.41051, -1.24902, 16.0],
        atol=2e-5)


def test_non_max_suppression_keeps_what_tf_keeps():
    rng = np.random.RandomState(40)
    centers = rng.rand(12, 2).astype(np.float32)
    sizes = (rng.rand(12, 2) * 0.4 + 0.1).astype(np.float32)
    with tf.Graph().as_default():
        logits = tf.placeholder(tf.float32, [12])
        wh = tf.constant(sizes)
        boxes = tf.concat([centers - wh / 2, centers + wh / 2], axis=1)
        scores = tf.sigmoid(logits)
        keep = tf.image.non_max_suppression(boxes, scores, max_output_size=5, iou_threshold=0.3)
        keep2 = tf.image.non_max_suppression(boxes, scores, 10, iou_threshold=0.1,
                                             score_threshold=0.5)
        flipped = tf.image.non_max_suppression(tf.gather(boxes, [2, 3, 0, 1], axis=1), scores,
                                               12, 0.3)
        assert keep.dtype == np.int32
        with tf.Session() as sess:
            got = []
            for _ in range(2):
                got.append([v.tolist() for v in sess.run(
                    [keep, keep2, flipped], {logits: rng.randn(12).astype(np.float32) * 2})])
    assert got == WANT_NMS


WANT_NMS = [  # TF 2.21
    [[5, 3, 0, 1, 8], [5, 3, 0, 1], [5, 3, 0, 1, 8, 2, 4, 7, 10, 6, 11]],
    [[2, 8, 0, 6, 10], [2, 6, 10, 1], [2, 8, 0, 6, 10, 1, 4, 5, 11, 7, 3]]]


def test_version_profiling_options_and_gpu_queries_of_tf1_scripts():
    # print(tf.__version__) opens many scripts; TF 1.14-1.15 ones loop over GPUs to set
    # memory growth; profiling passes RunOptions/RunMetadata to sess.run
    assert tf.__version__ == tf.VERSION == "1.15.0" and tf.__version__.startswith("1.")
    gpus = tf.config.experimental.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    assert gpus == [] and [d.device_type for d in tf.config.list_physical_devices()] == ["CPU"]
    options = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
    jit = tf.ConfigProto(graph_options=tf.GraphOptions(
        optimizer_options=tf.OptimizerOptions(global_jit_level=tf.OptimizerOptions.ON_1)))
    with tf.Graph().as_default():
        x = tf.constant(2.0)
        with tf.Session(config=jit) as sess:
            metadata = tf.RunMetadata()
            assert sess.run(x * 3, options=options, run_metadata=metadata) == 6.0
            assert metadata.step_stats is None and options.trace_level == 3


def test_a_tf_layers_layer_subclass_builds_its_weights_once():
    class ScaleShift(tf.layers.Layer):
        def __init__(self, units, **kwargs):
            super(ScaleShift, self).__init__(**kwargs)
            self.units = units

        def build(self, input_shape):
            self.w = self.add_weight("w", shape=[int(input_shape[-1]), self.units],
                                     initializer=tf.constant_initializer(0.5))
            super(ScaleShift, self).build(input_shape)

        def call(self, x):
            return tf.matmul(x, self.w)

    with tf.Graph().as_default():
        layer = ScaleShift(2)
        a, b = layer(tf.constant([[1.0, -2.0, 3.0]])), layer(tf.constant([[1.0, 1.0, 1.0]]))
        assert [v.name for v in tf.global_variables()] == ["scale_shift/w:0"]   # TF's name
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run([a, b])[1].tolist() == [[1.5, 1.5]]


def test_string_ops_and_feature_columns_are_refused_with_what_to_do():
    for name in ("strings", "string_split", "tables_initializer", "decode_csv"):
        with pytest.raises(AttributeError, match=f"tf.{name}: symgrad tensors hold real "
                                                 "numbers.*integer ids"):
            getattr(tf, name)
    with pytest.raises(AttributeError, match="tf.feature_column: .*Estimators"):
        tf.feature_column.numeric_column
