"""What the seventh differential probe of TF1 programs found in tf.image (unsigned
pixels, HSV and colour jitter, the CIFAR-10 distortions, bicubic and area resizing,
ROI crops, non-max suppression), against numbers taken from real TensorFlow 2.21
(compat.v1, v2 behaviour disabled) or finite differences where TF has no gradient."""
import numpy as np
import pytest

import symgrad.compat.v1 as tf


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
