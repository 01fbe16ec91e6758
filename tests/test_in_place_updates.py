"""Optimizer updates in place (``compat.in_place``): the same bits as TF's formulas
written out in numpy, and no array anyone else holds is changed."""
import numpy as np
import pytest

import symgrad.compat.v1 as tf
from symgrad.compat import in_place


def _adam_formula(w, g, m, v, lr_t, b1, b2, eps):
    # ApplyAdam as train.AdamOptimizer wrote it before (new arrays at every step)
    m = m + (g - m) * (1 - b1)
    v = v + (g * g - v) * (1 - b2)
    return w - lr_t * m / (np.sqrt(v) + eps), m, v


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_adam_in_place_gives_the_formulas_bits(dtype):
    rng = np.random.default_rng(3)

    class Holder:
        def __init__(self, value):
            self.value = value
    w, g = rng.normal(size=(50, 7)).astype(dtype), rng.normal(size=(50, 7)).astype(dtype)
    m0, v0 = rng.normal(size=(50, 7)).astype(dtype), rng.uniform(size=(50, 7)).astype(dtype)
    scalars = [np.asarray(c, dtype) for c in (0.0316, 0.9, 0.999, 1e-8)]
    want = _adam_formula(w, g, m0, v0, *scalars)
    m, v = Holder(m0.copy()), Holder(v0.copy())
    m_array = m.value
    got = in_place.adam(w, g, m, v, *scalars)
    assert m.value is not m_array   # held here too (m_array): copied, not changed
    np.testing.assert_array_equal(m_array, m0)
    del m_array
    for a, b in zip((got, m.value, v.value), want):
        assert a.dtype == dtype
        np.testing.assert_array_equal(a, b)
    before = m.value.__array_interface__["data"][0]
    in_place.adam(w, g, m, v, *scalars)
    assert m.value.__array_interface__["data"][0] == before   # sole holder: in place


def test_adam_training_keeps_values_fetched_before_and_matches_the_formula():
    # a dense layer trained three steps: each fetched value stays what it was, and the
    # variable follows the formula step after step (float32 throughout, as TF)
    rng = np.random.default_rng(0)
    x_data = rng.normal(size=(8, 5)).astype(np.float32)
    with tf.Graph().as_default():
        w = tf.Variable(rng.normal(size=(5, 3)).astype(np.float32))
        x = tf.placeholder(tf.float32, [None, 5])
        loss = tf.reduce_sum(tf.tanh(tf.matmul(x, w)) ** 2)
        (grad,) = tf.gradients(loss, [w])
        opt = tf.train.AdamOptimizer(0.01)
        step = opt.minimize(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            m, v = opt.get_slot(w, "m"), opt.get_slot(w, "v")
            fetched, want_w = [], sess.run(w)
            want_m = want_v = np.zeros((5, 3), np.float32)
            for t in range(1, 4):
                g = sess.run(grad, {x: x_data})
                fetched.append((sess.run([w, m, v]), [a.copy() for a in sess.run([w, m, v])]))
                sess.run(step, {x: x_data})
                lr_t = np.float32(0.01) * np.sqrt(1 - np.float32(0.999) ** t) / \
                    (1 - np.float32(0.9) ** t)
                want_w, want_m, want_v = _adam_formula(
                    want_w, g, want_m, want_v, np.float32(lr_t), np.float32(0.9),
                    np.float32(0.999), np.float32(1e-8))
                np.testing.assert_allclose(sess.run(w), want_w, rtol=1e-5)   # (lr_t: powers)
            for held, copies in fetched:
                for a, b in zip(held, copies):
                    np.testing.assert_array_equal(a, b)
            assert sess.run(w).dtype == np.float32 and sess.run(m).dtype == np.float32


def test_mixed_precisions_and_scalars_keep_the_formula():
    assert not in_place.plain(np.zeros(3, np.float32), np.zeros(3))   # float64 gradient
    assert not in_place.plain(np.zeros(()), np.zeros(()))            # 0-d
    assert not in_place.plain(np.zeros((2, 3)), np.zeros(3))         # a broadcast
