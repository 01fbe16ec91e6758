"""tf.feature_column: the columns TF 1.x's estimator tutorials use, read by input_layer
and linear_model.  The numbers are TF 2.15's (tensorflow-cpu 2.15.1,
``tf.compat.v1.feature_column``) printed by the same program."""
import numpy as np
import pytest

import symgrad.compat.v1 as tf

fc = tf.feature_column
FEATURES = {"a": np.array([-1.0, 0.5, 2.0, 7.0], np.float32),
            "b": np.array([[1, 2], [3, 4], [5, 6], [7, 8]], np.float64),
            "c": np.array([0, 2, 1, 2], np.int64),
            "d": np.array([10, 30, 99, -1], np.int64),
            "e": np.array([[0, 1], [2, -1], [-1, -1], [1, 1]], np.int64)}
TABLE = tf.constant_initializer(np.arange(6.0).reshape(3, 2) / 10)


def columns():
    a = fc.numeric_column("a")
    b = fc.numeric_column("b", shape=(2,), normalizer_fn=lambda x: x / 2.0)
    ab = fc.bucketized_column(a, boundaries=[0.0, 1.0, 5.0])
    c = fc.categorical_column_with_identity("c", num_buckets=3)
    d = fc.categorical_column_with_vocabulary_list("d", [10, 20, 30])
    e = fc.categorical_column_with_identity("e", num_buckets=3)
    return a, b, ab, c, d, e


def test_names_and_fields_are_tf_s():
    a, b, ab, c, d, e = columns()
    assert [col.name for col in (b, fc.indicator_column(c), ab, fc.embedding_column(e, 2))] \
        == ["b", "c_indicator", "a_bucketized", "e_embedding"]
    assert (a.key, a.shape, a.default_value, a.dtype) == ("a", (1,), None, np.float32)
    assert (ab.boundaries, c.num_buckets, d.vocabulary_list) == ((0.0, 1.0, 5.0), 3,
                                                                 (10, 20, 30))


def test_input_layer_concatenates_the_columns_sorted_by_name():
    a, b, ab, c, d, e = columns()
    cols = [b, fc.indicator_column(c), a, ab, fc.indicator_column(d), fc.indicator_column(e),
            fc.embedding_column(e, 2, initializer=TABLE),
            fc.embedding_column(c, 2, combiner="sum", initializer=TABLE)]
    with tf.Graph().as_default():
        made = {}
        out = fc.input_layer(FEATURES, cols, cols_to_vars=made)
        assert out.shape.as_list() == [4, 20] and out.dtype == np.float32
        assert {c.name: [v.name for v in vs] for c, vs in made.items() if vs} == {
            "c_embedding": ["input_layer/c_embedding/embedding_weights:0"],
            "e_embedding": ["input_layer/e_embedding/embedding_weights:0"]}
        assert made[a] == [] and len(made) == 8
        assert sorted(v.name for v in tf.trainable_variables()) == [
            "input_layer/c_embedding/embedding_weights:0",
            "input_layer/e_embedding/embedding_weights:0"]
        with tf.Session() as sess:
            sess.run([tf.global_variables_initializer(), tf.tables_initializer()])
            value = sess.run(out)
    # TF 2.15: a | a_bucketized | b/2 | c_embedding (sum) | c_indicator | d_indicator
    # (99 and -1 dropped) | e_embedding (mean) | e_indicator (counts, -1 dropped)
    np.testing.assert_allclose(value, [
        [-1, 1, 0, 0, 0, .5, 1, 0, .1, 1, 0, 0, 1, 0, 0, .1, .2, 1, 1, 0],
        [.5, 0, 1, 0, 0, 1.5, 2, .4, .5, 0, 0, 1, 0, 0, 1, .4, .5, 0, 0, 1],
        [2, 0, 0, 1, 0, 2.5, 3, .2, .3, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        [7, 0, 0, 0, 1, 3.5, 4, .4, .5, 0, 0, 1, 0, 0, 0, .2, .3, 0, 2, 0]], atol=1e-6)


def test_defaults_for_unknown_values_and_the_sqrtn_combiner():
    d2 = fc.categorical_column_with_vocabulary_list("d", [10, 20, 30], default_value=0)
    e = fc.categorical_column_with_identity("e", num_buckets=3)
    with tf.Graph().as_default():
        out = fc.input_layer(FEATURES, [fc.indicator_column(d2), fc.embedding_column(
            e, 2, combiner="sqrtn", initializer=TABLE)])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            value = sess.run(out)
    np.testing.assert_allclose(value, [[1, 0, 0, 0.14142, 0.28284], [0, 0, 1, 0.4, 0.5],
                                       [1, 0, 0, 0, 0], [0, 0, 0, 0.28284, 0.42426]],
                               atol=1e-5)   # TF 2.15


def test_linear_model_weights_and_sum():
    a, b, ab, c, d, e = columns()
    with tf.Graph().as_default():
        out = fc.linear_model(FEATURES, [a, b, c, ab, e], units=2)
        names = sorted(v.name for v in tf.global_variables())
        assert names == ["linear_model/a/weights:0", "linear_model/a_bucketized/weights:0",
                         "linear_model/b/weights:0", "linear_model/bias_weights:0",
                         "linear_model/c/weights:0", "linear_model/e/weights:0"]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for v in tf.global_variables():
                size = int(np.prod(v.shape.as_list()))
                sess.run(v.assign(np.arange(size, dtype=np.float32)
                                  .reshape(v.shape.as_list()) / 10 + 0.1))
            value = sess.run(out)
    np.testing.assert_allclose(value, [[0.95, 1.5], [2.2, 3.0], [2.25, 3.3], [4.15, 6.1]],
                               atol=1e-5)   # TF 2.15


def test_embedding_rows_get_the_gradient_of_their_examples():
    c = fc.categorical_column_with_identity("c", num_buckets=3)
    with tf.Graph().as_default():
        ids = tf.placeholder(tf.int64, [None])
        y = fc.input_layer({"c": ids}, [fc.embedding_column(c, 2, initializer=TABLE)])
        table = tf.trainable_variables()[0]
        grad = tf.gradients(tf.reduce_sum(y * y), table)[0]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            g = sess.run(tf.convert_to_tensor(grad), {ids: [0, 2, 2]})
    # d/dW of sum over examples of |W[id]|^2: 2 W[id] per example that reads the row
    np.testing.assert_allclose(g, [[0, 0.2], [0, 0], [1.6, 2.0]], atol=1e-6)


def test_an_identity_id_out_of_range_fails_when_run():
    c = fc.categorical_column_with_identity("c", num_buckets=3)
    with tf.Graph().as_default():
        out = fc.input_layer({"c": np.array([0, 5])}, [fc.indicator_column(c)])
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError,
                                                 match="outside \\[0, 3\\)"):
            sess.run(out)


# TF 2.15 raises ValueError with these messages (combiner "max" is symgrad's own check)
ERRORS = [
    (lambda: fc.input_layer(FEATURES, [fc.categorical_column_with_identity("c", 3)]),
     "must be a _DenseColumn"),
    (lambda: fc.bucketized_column(fc.numeric_column("a"), [1.0, 0.0]),
     "boundaries must be a sorted list"),
    (lambda: fc.numeric_column("x", dtype=tf.string), "dtype must be convertible to float"),
    (lambda: fc.input_layer(FEATURES, []), "feature_columns must not be empty"),
    (lambda: fc.embedding_column(fc.categorical_column_with_identity("c", 3), 2,
                                 combiner="max"), "combiner must be one of"),
    (lambda: fc.categorical_column_with_identity("c", 0), "num_buckets 0 < 1"),
    (lambda: fc.categorical_column_with_vocabulary_list("w", ["a", "b"]),
     "string vocabularies are not supported.*integer"),
]


@pytest.mark.parametrize("call, message", ERRORS)
def test_bad_columns_raise(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_identity_default_value_takes_ids_out_of_range_but_not_missing_ones():
    c = fc.categorical_column_with_identity("c", 4, default_value=3)
    with tf.Graph().as_default():
        out = fc.input_layer({"c": np.array([[0, 7], [-1, 2], [-2, -1]])},
                             [fc.indicator_column(c)])
        value = tf.Session().run(out)
    # TF 2.15: 7 and -2 count for id 3, -1 is missing
    assert value.tolist() == [[1, 0, 0, 1], [0, 0, 1, 0], [0, 0, 0, 1]]


def test_a_feature_of_the_wrong_size_or_without_shape_is_refused_by_name():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="numeric_column\\('a'\\) of shape \\(1,\\).*"
                                             "shape \\(3, 2\\)"):
            fc.input_layer({"a": np.ones((3, 2), np.float32)}, [fc.numeric_column("a")])
        with pytest.raises(ValueError, match="feature 'a' has no known shape"):
            fc.input_layer({"a": tf.placeholder(tf.float32)}, [fc.numeric_column("a")])
        ids = tf.placeholder(tf.int64, [None])
        out = fc.input_layer({"c": ids}, [fc.indicator_column(
            fc.categorical_column_with_identity("c", 3))])
        assert out.shape.as_list() == [None, 3]
        assert tf.Session().run(out, {ids: [1, 2]}).tolist() == [[0, 1, 0], [0, 0, 1]]


WEIGHTED = {"e": np.array([[0, 1], [2, -1], [-1, -1], [1, 1]], np.int64),
            "w": np.array([[0.5, 2.0], [3.0, 0.0], [0.0, 0.0], [1.0, 0.5]], np.float32),
            "d": np.array([[10, 99], [30, -1], [-1, -1], [20, 20]], np.int64)}


def test_weighted_categorical_columns_as_tf():
    e = fc.weighted_categorical_column(fc.categorical_column_with_identity("e", 3), "w")
    d = fc.weighted_categorical_column(
        fc.categorical_column_with_vocabulary_list("d", [10, 20, 30]), "w")
    assert (e.name, d.name) == ("e_weighted_by_w", "d_weighted_by_w")
    with tf.Graph().as_default():
        outs = [fc.input_layer(WEIGHTED, [fc.indicator_column(e), fc.indicator_column(d)])]
        outs += [fc.input_layer(WEIGHTED, [fc.embedding_column(e, 2, combiner=c,
                                                               initializer=TABLE)])
                 for c in ("sum", "mean", "sqrtn")]
        linear = fc.linear_model(WEIGHTED, [e, d], units=1)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for v in tf.global_variables():
                if v.name.startswith("linear_model"):
                    size = int(np.prod(v.shape.as_list()))
                    sess.run(v.assign(np.arange(size, dtype=np.float32)
                                      .reshape(v.shape.as_list()) / 10 + 0.1))
            values = sess.run(outs + [linear])
    # TF 2.15 (d_weighted_by_w sorts before e_weighted_by_w)
    expected = [[[0.5, 0, 0, 0.5, 2, 0], [0, 0, 3, 0, 0, 3], [0] * 6, [0, 1.5, 0, 0, 1.5, 0]],
                [[0.4, 0.65], [1.2, 1.5], [0, 0], [0.3, 0.45]],
                [[0.16, 0.26], [0.4, 0.5], [0, 0], [0.2, 0.3]],
                [[0.19403, 0.3153], [0.4, 0.5], [0, 0], [0.26833, 0.40249]],
                [[0.6], [1.9], [0.1], [0.7]]]
    for got, want in zip(values, expected):
        np.testing.assert_allclose(got, want, atol=1e-5)


def test_two_columns_of_one_name_are_refused_as_tf():
    c = fc.categorical_column_with_identity("c", 3)
    with tf.Graph().as_default(), pytest.raises(ValueError,
                                                match="Duplicate feature column name"):
        fc.input_layer(FEATURES, [fc.embedding_column(c, 2), fc.embedding_column(c, 3)])


def test_shared_embedding_columns_share_one_table_as_tf():
    features = {"a": np.array([0, 1, 2]), "b": np.array([[2, -1], [1, 0], [-1, -1]])}
    cols = fc.shared_embedding_columns([fc.categorical_column_with_identity("b", 3),
                                        fc.categorical_column_with_identity("a", 3)], 2,
                                       initializer=TABLE)
    assert [c.name for c in cols] == ["b_shared_embedding", "a_shared_embedding"]
    with tf.Graph().as_default():
        outs = [fc.input_layer(features, cols), fc.input_layer(features, cols)]
        # TF 2.15: one table, made by the first input layer, read by the second
        assert [v.name for v in tf.global_variables()] == [
            "input_layer/a_b_shared_embedding/embedding_weights:0"]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            first, second = sess.run(outs)
    want = [[0, 0.1, 0.4, 0.5], [0.2, 0.3, 0.1, 0.2], [0.4, 0.5, 0, 0]]
    np.testing.assert_allclose(first, want, atol=1e-6)
    np.testing.assert_allclose(second, want, atol=1e-6)
    with pytest.raises(ValueError, match="same number of buckets"):
        fc.shared_embedding_columns([fc.categorical_column_with_identity("a", 3),
                                     fc.categorical_column_with_identity("b", 4)], 2)
