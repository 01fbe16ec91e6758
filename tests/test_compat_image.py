"""tf.image against numpy replicas of TF's formulas (TF1's legacy resize sampling,
per_image_standardization's floor on the deviation, the grayscale weights)."""
import numpy as np
import pytest

import symgrad.compat.v1 as tf


def legacy_bilinear(im, oh, ow, align_corners=False):
    ih, iw = im.shape[1:3]
    sy = (ih - 1) / (oh - 1) if align_corners else ih / oh
    sx = (iw - 1) / (ow - 1) if align_corners else iw / ow
    out = np.zeros((im.shape[0], oh, ow, im.shape[3]))
    for y in range(oh):
        for x in range(ow):
            fy, fx = y * sy, x * sx
            y0, x0 = int(fy), int(fx)
            y1, x1 = min(y0 + 1, ih - 1), min(x0 + 1, iw - 1)
            dy, dx = fy - y0, fx - x0
            top = im[:, y0, x0] * (1 - dx) + im[:, y0, x1] * dx
            bottom = im[:, y1, x0] * (1 - dx) + im[:, y1, x1] * dx
            out[:, y, x] = top * (1 - dy) + bottom * dy
    return out


def test_image_ops_match_tfs_formulas_over_a_batch_of_unknown_size():
    img = np.random.RandomState(0).rand(2, 4, 6, 3)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [None, 4, 6, 3])
        ops = {"lr": tf.image.flip_left_right(x), "ud": tf.image.flip_up_down(x),
               "tr": tf.image.transpose_image(x), "r90": tf.image.rot90(x[0]),
               "std": tf.image.per_image_standardization(x),
               "gray": tf.image.rgb_to_grayscale(x), "tv": tf.image.total_variation(x),
               "bil": tf.image.resize_images(x, [8, 3]),
               "ac": tf.image.resize_images(x, [7, 11], align_corners=True),
               "nn": tf.image.resize_images(x, [8, 3],
                                            method=tf.image.ResizeMethod.NEAREST_NEIGHBOR),
               "crop": tf.image.central_crop(x, 0.5),
               "pad": tf.image.pad_to_bounding_box(x, 1, 2, 6, 9),
               "contrast": tf.image.adjust_contrast(x, 2.0)}
        (g,) = tf.gradients(tf.reduce_sum(ops["bil"] * ops["bil"]), x)
        with tf.Session() as sess:
            r, grad = sess.run([ops, g], {x: img})
    np.testing.assert_array_equal(r["lr"], img[:, :, ::-1])
    np.testing.assert_array_equal(r["ud"], img[:, ::-1])
    np.testing.assert_array_equal(r["tr"], img.transpose(0, 2, 1, 3))
    np.testing.assert_array_equal(r["r90"], np.rot90(img[0]))
    mean, dev = img.mean((1, 2, 3), keepdims=True), img.std((1, 2, 3), keepdims=True)
    np.testing.assert_allclose(r["std"], (img - mean) / np.maximum(dev, 1 / np.sqrt(72)))
    np.testing.assert_allclose(r["gray"][..., 0], img @ [0.2989, 0.5870, 0.1140])
    np.testing.assert_allclose(r["tv"], np.abs(np.diff(img, axis=1)).sum((1, 2, 3))
                               + np.abs(np.diff(img, axis=2)).sum((1, 2, 3)))
    np.testing.assert_allclose(r["bil"], legacy_bilinear(img, 8, 3))
    np.testing.assert_allclose(r["ac"], legacy_bilinear(img, 7, 11, True))
    rows, cols = np.minimum(np.arange(8) // 2, 3), np.arange(3) * 2
    np.testing.assert_array_equal(r["nn"], img[:, rows][:, :, cols])
    np.testing.assert_array_equal(r["crop"], img[:, 1:3, 1:5])
    assert r["pad"].shape == (2, 6, 9, 3) and np.array_equal(r["pad"][:, 1:5, 2:8], img)
    channel_mean = img.mean((1, 2), keepdims=True)
    np.testing.assert_allclose(r["contrast"], (img - channel_mean) * 2 + channel_mean)
    # resizing is linear: the gradient of |R x|^2 is 2 R^T R x, R from the replica
    R = np.stack([legacy_bilinear(np.eye(24).reshape(24, 4, 6, 1)[k:k + 1], 8, 3)[0, ..., 0]
                  .reshape(-1) for k in range(24)], 1)   # (24 out, 24 in)
    want = np.einsum("oi,oj,bjc->bic", R, R, img.reshape(2, 24, 3) * 2).reshape(img.shape)
    np.testing.assert_allclose(grad, want, rtol=1e-10)


def test_random_flips_and_dtype_conversion():
    img = np.arange(2 * 2 * 3 * 1, dtype=np.float32).reshape(2, 2, 3, 1)
    with tf.Graph().as_default():
        tf.set_random_seed(5)
        x = tf.placeholder(tf.float32, [None, 2, 3, 1])
        flipped = tf.image.random_flip_left_right(x)
        pixels = tf.placeholder(tf.uint8, [1, 1, 3])
        scaled = tf.image.convert_image_dtype(pixels, tf.float32)
        with tf.Session() as sess:
            seen = [sess.run(flipped, {x: img}) for _ in range(40)]
            s = sess.run(scaled, {pixels: np.array([[[255, 0, 51]]], np.uint8)})
    for image in range(2):   # each image is itself or its mirror, both seen over the runs
        kinds = {0 if np.array_equal(f[image], img[image]) else
                 1 if np.array_equal(f[image], img[image, :, ::-1]) else 2 for f in seen}
        assert kinds == {0, 1}
    np.testing.assert_allclose(s, [[[1.0, 0.0, 0.2]]])
    # (AREA and BICUBIC are there since probe 7: test_compat_probe7)
    with pytest.raises(ValueError, match="BILINEAR, NEAREST_NEIGHBOR, BICUBIC and AREA"):
        tf.image.resize_images(tf.zeros([2, 2, 1]), [3, 3], method="lanczos3")
