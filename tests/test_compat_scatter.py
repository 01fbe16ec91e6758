"""``tf.scatter_*`` state ops and variables' ``scatter_*`` methods, and what TF1 code does
with an IndexedSlices gradient besides optimizers.  The numbers are TensorFlow 2.21's
(``tensorflow.compat.v1``) for the same programs."""
import numpy as np
import pytest

import symgrad.compat.v1 as tf

START = np.arange(12, dtype=np.float32).reshape(4, 3)
TF = {   # each op run once on START with indices [0, 2, 0] and the rows below
    "update": [[0.5, 10, -1], [3, 4, 5], [4, 5, 6], [9, 10, 11]],
    "add": [[1.5, 13, 4], [3, 4, 5], [10, 12, 14], [9, 10, 11]],
    "sub": [[-1.5, -11, 0], [3, 4, 5], [2, 2, 2], [9, 10, 11]],
    "mul": [[0, 20, -6], [3, 4, 5], [24, 35, 48], [9, 10, 11]],
    "div": [[0, 0.05, -0.6666667], [3, 4, 5], [1.5, 1.4, 1.3333334], [9, 10, 11]],
    "max": [[1, 10, 3], [3, 4, 5], [6, 7, 8], [9, 10, 11]],
    "min": [[0, 1, -1], [3, 4, 5], [4, 5, 6], [9, 10, 11]],
}


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


@pytest.mark.parametrize("kind", sorted(TF))
def test_scatter_ops_change_the_rows_as_tf(kind):
    v = tf.Variable(START)
    i, u = tf.placeholder(tf.int32, [None]), tf.placeholder(tf.float32, [None, 3])
    op = getattr(tf, f"scatter_{kind}")(v, i, u)
    with tf.Session() as sess:
        sess.run(v.initializer)
        got = sess.run(op, {i: [0, 2, 0], u: [[1, 2, 3], [4, 5, 6], [0.5, 10, -1]]})
        np.testing.assert_allclose(got, TF[kind], rtol=1e-6)
        np.testing.assert_allclose(sess.run(v), TF[kind], rtol=1e-6)


def test_scatter_nd_and_the_variable_methods():
    v = tf.Variable(START)
    rows = tf.IndexedSlices(tf.constant([[1.0, 1.0, 1.0]]), tf.constant([2]))
    ops = [tf.scatter_nd_update(v, [[0, 1], [3, 2]], [100.0, 200.0]),
           tf.scatter_nd_add(v, [[0, 1], [0, 1]], [1.0, 2.0]),
           tf.scatter_nd_sub(v, [[2]], [[1.0, 1.0, 1.0]]),
           v.scatter_sub(rows), v.scatter_add(rows), v.scatter_update(rows),
           tf.scatter_update(v, 1, [7.0, 8.0, 9.0])]
    changed = [((0, 1), 100.0), ((0, 1), 4.0), ((2, 0), 5.0), ((2, 0), 5.0), ((2, 0), 7.0),
               ((2, 0), 1.0), ((1, 0), 7.0)]
    with tf.Session() as sess:
        for op, (at, value) in zip(ops, changed):
            sess.run(v.initializer)
            got = sess.run(op)
            assert got[at] == value and np.count_nonzero(got != START) <= 3
        sess.run(v.initializer)
        assert sess.run(ops[0])[3, 2] == 200.0
    with pytest.raises(TypeError, match="ref must be a tf.Variable"):
        tf.scatter_add(tf.constant(START), [0], [[1.0, 1.0, 1.0]])
    with pytest.raises(TypeError, match="indices must be integers"):
        tf.scatter_add(v, [0.5], [[1.0, 1.0, 1.0]])
    with tf.Session() as sess:
        sess.run(v.initializer)
        with pytest.raises(ValueError, match="do not fit"):
            sess.run(tf.scatter_add(v, [0, 1], [[1.0, 1.0, 1.0]]))


def test_what_programs_do_with_an_indexed_slices_gradient():
    W = tf.Variable(np.arange(8, dtype=np.float32).reshape(4, 2) / 10)
    (g,) = tf.gradients(tf.reduce_sum(tf.square(tf.nn.embedding_lookup(W, [1, 1, 3]))), W)
    acc = tf.Variable(np.zeros((4, 2), np.float32), trainable=False)
    dense = [[0.0, 0.0], [0.8, 1.2], [0.0, 0.0], [1.2, 1.4]]     # TF's, for each below
    outs = {"assign_add": acc.assign_add(g), "plus tensor": tf.ones([4, 2]) + g,
            "add_n": tf.add_n([g, g]), "multiply": tf.multiply(g, 0.5),
            "scatter_sub": tf.scatter_sub(W, g.indices, g.values)}
    kept = tf.identity(g)
    assert isinstance(kept, tf.IndexedSlices)       # TF: identity keeps the slices
    with pytest.raises(TypeError):
        g * 0.5                                     # TF: no arithmetic on slices
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run(outs)
        np.testing.assert_allclose(got["assign_add"], dense, rtol=1e-6)
        np.testing.assert_allclose(got["plus tensor"], np.add(dense, 1), rtol=1e-6)
        np.testing.assert_allclose(got["add_n"], np.multiply(dense, 2), rtol=1e-6)
        np.testing.assert_allclose(got["multiply"], np.multiply(dense, 0.5), rtol=1e-6)
        np.testing.assert_allclose(got["scatter_sub"], [[0, .1], [-.6, -.9], [.4, .5],
                                                        [-.6, -.7]], rtol=1e-6, atol=1e-7)
        assert sess.run(kept).indices.tolist() == [1, 1, 3]
