"""Round-13 probe (b): TF1 books' example programs ("Learning TensorFlow", "TensorFlow for
Deep Learning", "TensorFlow for Machine Intelligence", the TF 1.x cookbook, "Pro Deep
Learning with TensorFlow", "Deep Learning with TensorFlow") run with only the import
changed, and ``tf.bitwise``, against the numbers TensorFlow 2.21 (compat.v1, v2 behaviour
disabled) prints for the same programs."""
import re

import numpy as np
import pytest

import symgrad as sg
import symgrad.compat.v1 as tf

B = tf.bitwise

# TF 2.21's results for a = [lo, 3, 12, 100, 127], b = [1, 5, 10, 7, 1], s = [0, 1, 3, 6, 9]
# (lo = -5 for signed types, 0 for unsigned): and, or, xor, invert(a), a << s, a >> s
_BITWISE = {
    "int8": [[1, 1, 8, 4, 1], [-5, 7, 14, 103, 127], [-6, 6, 6, 99, 126],
             [4, -4, -13, -101, -128], [-5, 6, 96, 0, -128], [-5, 1, 1, 1, 0]],
    "int16": [[1, 1, 8, 4, 1], [-5, 7, 14, 103, 127], [-6, 6, 6, 99, 126],
              [4, -4, -13, -101, -128], [-5, 6, 96, 6400, -512], [-5, 1, 1, 1, 0]],
    "int64": [[1, 1, 8, 4, 1], [-5, 7, 14, 103, 127], [-6, 6, 6, 99, 126],
              [4, -4, -13, -101, -128], [-5, 6, 96, 6400, 65024], [-5, 1, 1, 1, 0]],
    "uint8": [[0, 1, 8, 4, 1], [1, 7, 14, 103, 127], [1, 6, 6, 99, 126],
              [255, 252, 243, 155, 128], [0, 6, 96, 0, 128], [0, 1, 1, 1, 0]],
    "uint16": [[0, 1, 8, 4, 1], [1, 7, 14, 103, 127], [1, 6, 6, 99, 126],
               [65535, 65532, 65523, 65435, 65408], [0, 6, 96, 6400, 65024], [0, 1, 1, 1, 0]],
}


@pytest.mark.parametrize("dtype", sorted(_BITWISE))
def test_bitwise_ops_in_each_integer_dtype_as_tf(dtype):
    dt = np.dtype(dtype)
    lo = -5 if dt.kind == "i" else 0
    with tf.Graph().as_default():
        a = tf.constant([lo, 3, 12, 100, 127], dtype=dt)
        b = tf.constant([1, 5, 10, 7, 1], dtype=dt)
        s = tf.constant([0, 1, 3, 6, 9], dtype=dt)
        ops = [B.bitwise_and(a, b), B.bitwise_or(a, b), B.bitwise_xor(a, b), B.invert(a),
               B.left_shift(a, s), B.right_shift(a, s)]
        assert [t.name for t in ops] == ["BitwiseAnd:0", "BitwiseOr:0", "BitwiseXor:0",
                                         "Invert:0", "LeftShift:0", "RightShift:0"]
        got = tf.Session().run(ops)
    for value, expected in zip(got, _BITWISE[dtype]):
        assert value.dtype == dt
        np.testing.assert_array_equal(value, expected)


def test_shifts_clamp_the_shift_and_wrap_as_tf():
    with tf.Graph().as_default():
        big = tf.constant([-1, 0, 7, 8, 9, 100, -3], dtype=tf.int8)
        u = tf.constant([1, 7, 8, 9], tf.uint8)
        fetches = [B.left_shift(tf.constant(1, tf.int8), big),
                   B.right_shift(tf.constant(-100, tf.int8), big),
                   B.left_shift(tf.constant(3), tf.constant([30, 31, 32, 33, -1])),
                   B.right_shift(tf.constant(200, tf.uint8), u),
                   B.left_shift(tf.constant(200, tf.uint8), u)]
        got = tf.Session().run(fetches)
    expected = [[1, 1, -128, -128, -128, -128, 1], [-100, -100, -1, -1, -1, -1, -100],
                [-1073741824, -2147483648, -2147483648, -2147483648, 3], [100, 1, 1, 1],
                [144, 0, 0, 0]]
    for value, e in zip(got, expected):
        np.testing.assert_array_equal(value, e)


def test_bitwise_arguments_converted_as_tf():
    with tf.Graph().as_default():
        sess = tf.Session()
        out = [B.bitwise_and(np.array([5, 6], np.int64), 3), B.bitwise_or(5, 3),
               B.invert(5), B.left_shift(tf.constant([1, 2]), np.array([1, 2], np.int8)),
               B.bitwise_xor([1, 2, 3], [3, 3, 3]),
               B.bitwise_and(tf.constant([1], tf.int8), 300),
               B.bitwise_and(tf.constant([1], tf.uint8), -1),
               B.bitwise_or(tf.constant([[1], [2]]), tf.constant([4, 8, 16]))]
        assert [t.dtype for t in out] == [np.int64, np.int32, np.int32, np.int32, np.int32,
                                          np.int8, np.uint8, np.int32]
        got = sess.run(out)
        p = tf.placeholder(tf.int32)
        shifted = sess.run(B.left_shift(p, 2), {p: [[1, 2], [3, 4]]})
        assert B.bitwise_and(tf.placeholder(tf.int32, [None, 3]),
                             tf.constant([1, 2, 3])).shape.as_list() == [None, 3]
        with tf.name_scope("sc"):
            assert B.bitwise_and(1, 2).name == "sc/BitwiseAnd:0"
        assert B.left_shift(1, 2, name="sh").name == "sh:0"
    expected = [[1, 2], 7, -6, [2, 8], [2, 1, 0], [0], [1], [[5, 9, 17], [6, 10, 18]]]
    for value, e in zip(got, expected):
        np.testing.assert_array_equal(value, e)
    np.testing.assert_array_equal(shifted, [[4, 8], [12, 16]])


@pytest.mark.parametrize("call, message", [
    (lambda: B.bitwise_and(tf.constant(1.0), tf.constant(2.0)),
     "parameter 'x' has DataType float32 not in list of allowed values: int8, int16"),
    (lambda: B.bitwise_or(tf.constant(True), tf.constant(False)),
     "parameter 'x' has DataType bool not in list"),
    (lambda: B.invert(2.0), "parameter 'x' has DataType float32"),
    (lambda: B.bitwise_and(tf.constant(1), tf.constant(2, tf.int64)),
     "Input 'y' of 'BitwiseAnd' Op has type int64 that does not match type int32 of "
     "argument 'x'"),
    (lambda: B.bitwise_and(5, tf.constant(3, tf.int8)),
     "Input 'y' of 'BitwiseAnd' Op has type int8 that does not match type int32"),
    (lambda: B.left_shift(tf.constant(1), 2.5),
     "Expected int32 passed to parameter 'y' of op 'LeftShift', got 2.5 of type 'float'"),
])
def test_bitwise_refuses_what_tf_refuses(call, message):
    with tf.Graph().as_default():
        with pytest.raises(TypeError, match=re.escape(message)):
            call()


def test_bitwise_carries_no_gradient_and_compiles():
    with tf.Graph().as_default():
        x = tf.Variable(3.0)
        y = tf.cast(B.bitwise_and(tf.cast(x, tf.int32), 1), tf.float32) * x
        (g,) = tf.gradients(y, x)
        sess = tf.Session()
        sess.run(tf.global_variables_initializer())
        assert sess.run(g) == 1.0   # TF: only the product's path
        a = tf.placeholder(tf.int8, [5])
        s = tf.placeholder(tf.int8, [5])
        outs = [B.bitwise_and(a, s), B.bitwise_xor(a, s), B.left_shift(a, s),
                B.right_shift(a, s), B.invert(a)]
        f = sg.compile(outs, [a, s], wait=True)
    got = f(np.int8([1, -5, 100, 127, 1]), np.int8([7, 1, 6, 9, -1]))
    expected = [[1, 1, 4, 9, 1], [6, -6, 98, 118, -2], [-128, -10, 0, -128, 1],
                [0, -3, 1, 0, 1], [-2, 4, -101, -128, -2]]   # (TF 2.21, fed the same)
    for value, e in zip(got, expected):
        np.testing.assert_array_equal(value, e)


def test_summary_of_an_assign_as_tf():
    # "TensorFlow for Machine Intelligence" ch3: tf.summary.scalar(
    # 'Sum_of_outputs_over_time', total_output.assign_add(output)); symgrad's
    # convert_to_tensor refused the assign (constant(value) has dtype object)
    with tf.Graph().as_default():
        v = tf.Variable(1.5, name="total")
        up = v.assign_add(2.0)
        s = tf.summary.scalar("Sum_of_outputs", up)
        t = tf.convert_to_tensor(up)
        sess = tf.Session()
        sess.run(tf.global_variables_initializer())
        assert sess.run(s) == b"\n\x15\n\x0eSum_of_outputs\x15\x00\x00`@"   # (3.5, TF's bytes)
        assert sess.run(t) == 5.5
        assert sess.run(tf.summary.merge([s])) == b"\n\x15\n\x0eSum_of_outputs\x15\x00\x00\xf0@"


@pytest.mark.parametrize("box, message", [
    ((1, 0, 2, 2), "height must be >= target + offset"),
    ((0, 2, 1, 2), "width must be >= target + offset"),
    ((-1, 0, 1, 2), "offset_height must be >= 0"),
    ((0, 0, 0, 2), "target_height must be > 0"),
])
def test_crop_to_bounding_box_outside_the_image_is_tf_value_error(box, message):
    # TF for Machine Intelligence ch5's image ops: a box past the image's edge gave a
    # smaller crop silently
    with tf.Graph().as_default():
        img = tf.constant(np.arange(18, dtype=np.float32).reshape(2, 3, 3))
        with pytest.raises(ValueError, match=re.escape(message)):
            tf.image.crop_to_bounding_box(img, *box)
        np.testing.assert_array_equal(
            tf.Session().run(tf.image.crop_to_bounding_box(img, 1, 1, 1, 2)).ravel(),
            [12, 13, 14, 15, 16, 17])


def test_dtype_given_as_tf_enum_number():
    # TF's PDE example (raindrops, in "Deep Learning with TensorFlow"):
    # tf.constant(a, dtype=1) is a float32 constant (DataType 1)
    with tf.Graph().as_default():
        got = [(tf.as_dtype(e), tf.constant([1], dtype=e).dtype, tf.zeros([2], e).dtype)
               for e in (1, 2, 3, 4, 5, 6, 9, 17, 19)]
        assert [a.name for a, _, _ in got] == ["float32", "float64", "int32", "uint8",
                                                "int16", "int8", "int64", "uint16", "float16"]
        assert all(a == b == c for a, b, c in got)
        assert (tf.placeholder(1, [2]).dtype, tf.Variable([1.0], dtype=2).dtype,
                tf.ones([1], dtype=3).dtype) == (np.float32, np.float64, np.int32)


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float16])
def test_zeros_and_ones_keep_a_narrow_dtype(dtype):
    # tf.zeros([2], tf.uint8) was int64 and tf.ones([2], tf.float16) float32
    with tf.Graph().as_default():
        made = [tf.zeros([2], dtype), tf.ones([2], dtype), tf.zeros_like(tf.constant([1], dtype)),
                tf.ones_like(tf.constant([1], dtype))]
        assert [t.dtype for t in made] == [dtype] * 4
        values = tf.Session().run(made)
    assert [v.dtype for v in values] == [dtype] * 4
    np.testing.assert_array_equal(values[1], [1, 1])


def test_slice_with_a_begin_computed_at_run_time_as_tf():
    # the TF 1.x cookbook's self-organizing map: tf.slice(locations, tf.pad(tf.reshape(
    # tf.argmin(d, 0), [1]), [[0, 1]]), [1, 2]) was refused ("slice(begin) must be known
    # when the graph is built")
    with tf.Graph().as_default():
        x = tf.Variable(np.arange(12, dtype=np.float32).reshape(3, 4))
        i = tf.placeholder(tf.int32, [2])
        s = tf.slice(x, i, [2, 2])
        assert s.shape.as_list() == [2, 2]
        (g,) = tf.gradients(tf.reduce_sum(s * s), x)
        j = tf.argmax(tf.constant([0.1, 0.9, 0.3]), output_type=tf.int32)
        grid = tf.constant([[0, 0], [0, 1], [0, 2], [1, 0]])
        start = tf.pad(tf.reshape(tf.argmin([3.0, 1.0, 2.0, 5.0], 0), [1]), np.array([[0, 1]]))
        sess = tf.Session()
        sess.run(tf.global_variables_initializer())
        np.testing.assert_array_equal(sess.run(s, {i: [1, 2]}), [[6, 7], [10, 11]])
        np.testing.assert_array_equal(sess.run(g, {i: [1, 1]}),
                                      [[0, 0, 0, 0], [0, 10, 12, 0], [0, 18, 20, 0]])
        np.testing.assert_array_equal(sess.run(tf.slice(x, [j, 0], [1, 3])), [[4, 5, 6]])
        np.testing.assert_array_equal(sess.run(tf.slice(x, tf.stack([0, j]), [3, 2])),
                                      [[1, 2], [5, 6], [9, 10]])
        np.testing.assert_array_equal(sess.run(tf.slice(grid, start, [1, 2])), [[0, 1]])
        # (a size of -1 with this begin: tests/test_compat_probe14a.py)


def test_matmul_of_a_python_list_takes_the_tensors_dtype():
    # TF for Machine Intelligence ch4's evaluate(): sess.run(inference([[80., 25.]])) with
    # inference(X) = tf.matmul(X, W) + b raised a float64/float32 TypeError
    with tf.Graph().as_default():
        W = tf.Variable([[2.0], [3.0]])
        b = tf.Variable(0.5)
        y = tf.matmul([[80., 25.]], W) + b
        assert y.dtype == np.float32
        assert tf.matmul(W, [[1., 2.]]).dtype == np.float32
        assert tf.matmul([[80, 25]], tf.constant([[1], [2]])).dtype == np.int32
        sess = tf.Session()
        sess.run(tf.global_variables_initializer())
        np.testing.assert_array_equal(sess.run(y), [[235.5]])


def test_true_division_of_integers_in_tfs_float_types():
    # TF divides 8- and 16-bit integers in float32, wider ones in float64, and Python ints
    # are int32 (tf.truediv(7, 2) is float64); symgrad gave float64 and float32
    with tf.Graph().as_default():
        a = tf.constant([7, -3])
        made = [tf.truediv(7, 2), tf.divide(7, 2), a / 2, tf.truediv(a, a),
                tf.constant([7], tf.int8) / 2, tf.constant([7], tf.uint8) / 2,
                tf.constant([7], tf.int16) / tf.constant([2], tf.int16),
                tf.constant([7], tf.int64) / 2, tf.realdiv(7., 2.),
                tf.constant([7.], tf.float16) / 2]
        assert [t.dtype.name for t in made] == [
            "float64", "float64", "float64", "float64", "float32", "float32", "float32",
            "float64", "float32", "float16"]
        values = tf.Session().run(made)
    assert [np.asarray(v).dtype.name for v in values] == [t.dtype.name for t in made]
    np.testing.assert_array_equal(values[2], [3.5, -1.5])
    np.testing.assert_array_equal(values[5], [3.5])


def test_seeded_orthogonal_and_unit_scaling_initializers_give_tfs_numbers():
    # with seed= the initializers give TF's own numbers (compat.initializers); these two
    # drew from numpy's generator instead
    with tf.Graph().as_default():
        o = tf.get_variable("o", [2, 3], initializer=tf.orthogonal_initializer(seed=5))
        u = tf.get_variable("u", [2, 3], initializer=tf.uniform_unit_scaling_initializer(seed=11))
        d = tf.get_variable("d", [2, 3], dtype=tf.float64,
                            initializer=tf.orthogonal_initializer(seed=2))
        sess = tf.Session()
        sess.run(tf.global_variables_initializer())
        got = sess.run([o, u, d])
    expected = [[-0.55517, -0.82381, 0.11453, -0.7164, 0.40366, -0.56906],
                [-1.00539, -0.27029, 0.01155, 1.1539, -0.51272, -0.71999],
                [-0.9099, -0.29351, 0.29316, -0.40166, 0.80001, -0.44571]]
    for value, e in zip(got, expected):
        np.testing.assert_allclose(value.ravel(), e, atol=1e-5)


def test_sigmoid_cross_entropy_broadcasts_labels_of_unknown_shape():
    # "Learning TensorFlow" ch3's logistic regression: y_true = tf.placeholder(tf.float32,
    # shape=None) fed (N,) against logits (1, N); TF's static check passes an unknown
    # shape and the elementwise loss broadcasts; symgrad raised when the values came
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, shape=[None, 2])
        y_true = tf.placeholder(tf.float32, shape=None)
        w = tf.Variable([[0.5, -0.25]])
        y_pred = tf.matmul(w, tf.transpose(x)) + 0.1
        loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=y_true,
                                                                      logits=y_pred))
        (g,) = tf.gradients(loss, w)
        sess = tf.Session()
        sess.run(tf.global_variables_initializer())
        got = sess.run([loss, g], {x: [[1., 2.], [3., -1.], [0.5, 0.5]], y_true: [1., 0., 1.]})
        with pytest.raises(ValueError, match="must have the same shape"):
            tf.nn.sigmoid_cross_entropy_with_logits(labels=tf.zeros([3]), logits=tf.zeros([1, 3]))
    np.testing.assert_allclose(got[0], 1.0757980346679688, rtol=1e-6)
    np.testing.assert_allclose(got[1], [[0.6317891478538513, -0.6787205934524536]], rtol=1e-6)


def test_reentering_the_root_variable_scope_opens_no_name_scope():
    # TensorFlow for Deep Learning's multi-tower training: with tf.variable_scope(
    # tf.get_variable_scope()): ... tf.name_scope('tower_%d' % i) named ops
    # "scope/tower_0/..." instead of TF's "tower_0/..."
    with tf.Graph().as_default():
        with tf.variable_scope("foo") as s:
            a = tf.constant(1, name="a")
        with tf.variable_scope(s):
            b = tf.constant(1, name="b")
        with tf.variable_scope(tf.get_variable_scope()) as root:
            d = tf.constant(1, name="d")
            with tf.name_scope("tower_0"):
                e = tf.constant(1, name="e")
        with tf.name_scope("ns"):
            with tf.variable_scope(tf.get_variable_scope()):
                f = tf.constant(1, name="f")
        with tf.variable_scope("outer"):
            with tf.variable_scope(tf.get_variable_scope()):
                g = tf.constant(1, name="g")
        assert [t.name for t in (a, b, d, e, f, g)] == [
            "foo/a:0", "foo_1/b:0", "d:0", "tower_0/e:0", "ns/f:0", "outer/outer/g:0"]
        assert root.original_name_scope == ""


def test_file_writer_add_run_metadata(tmp_path):
    # TF's mnist_with_summaries (and Learning TensorFlow ch5): a traced run's metadata is
    # written with train_writer.add_run_metadata(run_metadata, 'step%03d' % i)
    from symgrad.compat.protobuf import message_fields
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 2])
        y = tf.matmul(x, tf.constant([[1.0], [2.0]]))
        sess = tf.Session()
        writer = tf.summary.FileWriter(str(tmp_path), sess.graph)
        meta = tf.RunMetadata()
        sess.run(y, {x: [[1., 1.]]},
                 options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE), run_metadata=meta)
        writer.add_run_metadata(meta, "step001")
        with pytest.raises(ValueError, match="already used"):
            writer.add_run_metadata(meta, "step001")
        writer.close()
    data = next(tmp_path.iterdir()).read_bytes()
    events, at = [], 0
    while at < len(data):
        n = int.from_bytes(data[at:at + 8], "little")
        events.append(message_fields(data[at + 12:at + 12 + n], raw_fixed=True))
        at += 16 + n
    tagged = [e for e in events if 8 in e]
    assert len(tagged) == 1   # (TF's reader: one tagged_run_metadata event, tag step001)
    assert message_fields(tagged[0][8][0], raw_fixed=True)[1][0] == b"step001"


def test_tf_print_writes_values_as_tf(capsys):
    # tf.Print (Zaccone's debugging idiom) wrote numpy's str of each entry ("1.0 2.0",
    # "True", a matrix flattened); TF writes its SummarizeValue form
    with tf.Graph().as_default():
        x = tf.constant([1.5, 2.25, 1e-7, 123456789.0, -0.0])
        y = tf.Print(x, [x, tf.constant([1, 2]), tf.constant(True),
                         tf.constant([[1., 2.], [3., 4.]])], message="m: ", summarize=10)
        m = tf.constant([[1., 2., 3.], [4., 5., 6.]])
        z = tf.Print(tf.constant(0), [m, tf.constant(3.14159274, tf.float64), tf.range(7)],
                     message="p: ", summarize=4)
        sess = tf.Session()
        sess.run(y)
        sess.run(z)
    lines = capsys.readouterr().err.splitlines()
    assert lines == ["m: [1.5 2.25 1e-07 123456792 -0][1 2][1][[1 2][3 4]]",
                     "p: [[1 2 3][4...]...][3.14159274][0 1 2 3...]"]
