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
