"""What the thirteenth differential probe (a) found in TF1 programs written as popular
standalone repositories write them (dennybritz's cnn-text-classification-tf,
sherjilozair's char-rnn-tensorflow, carpedm20's DCGAN-tensorflow, jmetzen's VAE
notebook, anishathalye's neural-style, lengstrom's fast-style-transfer,
affinelayer's pix2pix-tensorflow, openai/baselines' TF1 utilities, hardmaru's
mixture density network tutorial), against real TensorFlow 2.21 (compat.v1, v2
behaviour disabled).  The numbers are TF 2.21's."""
import re

import numpy as np
import pytest

import symgrad.compat.v1 as tf


def test_graph_device_and_colocate_blocks_and_graph_seed():
    # neural-style computes its features in
    # ``with g.as_default(), g.device('/cpu:0'), tf.Session() as sess:``
    g = tf.Graph()
    assert g.seed is None
    with g.as_default(), g.device('/cpu:0'), tf.Session():
        image = tf.placeholder('float', shape=(1, 3, 3, 1))
        kernel = tf.constant(np.ones((2, 2, 1, 1), np.float32))
        conv = tf.nn.conv2d(image, kernel, strides=(1, 1, 1, 1), padding='SAME')
        with g.colocate_with(conv.op):
            y = tf.nn.relu(tf.nn.bias_add(conv, np.array([-10.0], np.float32)))
        got = y.eval(feed_dict={image: np.arange(9.0).reshape(1, 3, 3, 1)})
        np.testing.assert_array_equal(got.ravel(), [0, 2, 0, 10, 14, 3, 3, 5, 0])
        tf.set_random_seed(5)
        assert g.seed == 5


def test_dtype_constants_are_dtypes_so_sets_of_them_hold_tensor_dtypes():
    # baselines' CategoricalPd.neglogp one-hot encodes integer actions under
    # ``if x.dtype in {tf.uint8, tf.int32, tf.int64}``: with tf.int32 the numpy type,
    # which hashes apart from np.dtype('int32'), the set never held a tensor's dtype
    with tf.Graph().as_default():
        logits = tf.constant([[1.0, 2.0, 0.5], [0.1, -1.0, 2.0]])
        x = tf.placeholder(tf.int32, [2])
        assert x.dtype in {tf.uint8, tf.int32, tf.int64} and x.dtype in {tf.dtypes.int32}
        assert logits.dtype in {tf.float32} and {tf.float32: 1}[logits.dtype] == 1
        assert (tf.float32.name, tf.int64.name, tf.bool.name) == ("float32", "int64", "bool")
        labels = tf.one_hot(x, logits.get_shape().as_list()[-1])
        neglogp = tf.nn.softmax_cross_entropy_with_logits_v2(logits=logits, labels=labels)
        with tf.Session() as sess:
            np.testing.assert_allclose(sess.run(neglogp, {x: [1, 2]}),
                                       [0.4643687903881073, 0.1817845106124878], rtol=1e-6)


def test_static_shapes_check_their_rank_and_equal_lists_of_sizes():
    # TF1 model code checks ranks with x.get_shape().with_rank(2) and compares a shape
    # with a list (x.get_shape() == [None, 5]); TF 2.21's answers and messages
    with tf.Graph().as_default():
        shape = tf.placeholder(tf.float32, [None, 5]).get_shape()
        assert shape.with_rank(2).as_list() == [None, 5]
        assert shape.with_rank_at_least(2).as_list() == [None, 5]
        assert tf.placeholder(tf.float32).get_shape().with_rank(3).as_list() == [None] * 3
        for check, message in ((lambda: shape.with_rank(3), "Shape (?, 5) must have rank 3"),
                               (lambda: shape.with_rank_at_least(3),
                                "Shape (?, 5) must have rank at least 3"),
                               (lambda: shape.with_rank_at_most(1),
                                "Shape (?, 5) must have rank at most 1")):
            with pytest.raises(ValueError, match=re.escape(message)):
                check()
        assert [shape == [None, 5], shape != [None, 5], shape == [3, 5],
                tf.TensorShape([2, 3]) == [2, 3], shape[1:] == [5]] == [
                    True, False, False, True, True]


def test_fetching_an_operation_name_runs_it_and_gives_none():
    # sess.run("y") names the operation, sess.run("y:0") its tensor: TF gives None for
    # the first (textcnn's eval.py reads graph.get_operation_by_name(...).outputs[0])
    with tf.Graph().as_default():
        w = tf.Variable([1.0, 2.0], name="w")
        tf.identity(w * 2.0, name="y")
        sess = tf.Session()
        assert sess.run(tf.global_variables_initializer().name) is None
        assert sess.run("y") is None and sess.run("w") is None
        first, second = sess.run(["y", "y:0"])
        assert first is None
        np.testing.assert_array_equal(second, [2.0, 4.0])


def test_set_shape_takes_back_a_list_of_the_tensors_own_dimensions():
    # pix2pix's check_image: shape = list(image.get_shape()); shape[-1] = 3;
    # image.set_shape(shape), where the unknown sizes are the shape's own entries
    with tf.Graph().as_default():
        image = tf.identity(tf.placeholder(tf.float32, [None, None, 3]))
        shape = list(image.get_shape())
        shape[-1] = 3
        image.set_shape(shape)
        assert str(image.get_shape()) == "(?, ?, 3)"


def test_crop_to_bounding_box_at_offsets_computed_when_run():
    # pix2pix's transform crops at offsets drawn by tf.random_uniform in the graph
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [4, 5, 1])
        offset = tf.placeholder(tf.int32, [2])
        crop = tf.image.crop_to_bounding_box(x, offset[0], offset[1], 2, 3)
        grad = tf.gradients(tf.reduce_sum(crop * crop), x)[0]
        assert crop.get_shape().as_list() == [2, 3, 1]
        with tf.Session() as sess:
            got, got_grad = sess.run([crop, grad], {
                x: np.arange(20, dtype=np.float32).reshape(4, 5, 1), offset: [1, 2]})
        np.testing.assert_array_equal(got[..., 0], [[7, 8, 9], [12, 13, 14]])
        np.testing.assert_array_equal(got_grad[..., 0], [
            [0, 0, 0, 0, 0], [0, 0, 14, 16, 18], [0, 0, 24, 26, 28], [0, 0, 0, 0, 0]])


def test_numbers_next_to_an_integer_tensor_convert_as_tf_converts_them():
    # TF converts a number to the tensor's dtype: a Python float next to an int32
    # tensor is a TypeError, a numpy float array is truncated to int32
    with tf.Graph().as_default():
        i = tf.constant([1, 2])
        for make in (lambda: i * 0.5, lambda: tf.maximum(i, 0.5), lambda: i < 0.5):
            with pytest.raises(TypeError, match="Expected int32"):
                make()
        j = i + np.array([0.5, 1.7])
        assert j.dtype.name == "int32"
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(j), [1, 3])


def test_matmul_types_an_array_operand_like_the_tensor():
    # tf.matmul(x, np.array(...)) with a float64 array is float32 for a float32 x
    with tf.Graph().as_default():
        x = tf.constant([[1.0, 2.0]])
        m = tf.matmul(x, np.array([[0.1], [0.2]]))
        m2 = tf.matmul(x, [[1], [3]])
        assert (m.dtype.name, m2.dtype.name) == ("float32", "float32")
        with tf.Session() as sess:
            np.testing.assert_allclose(sess.run(m), [[0.5]], rtol=1e-7)
            np.testing.assert_array_equal(sess.run(m2), [[7.0]])
