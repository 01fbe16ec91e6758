"""Cotangent terms that are scatters into zeros, fused before they are summed: disjoint
slices along one axis become one concat (tf.split's gradient, an LSTM's gates)."""
import numpy as np

import symgrad as sg
from symgrad.graph import ancestors


def _ops(t):
    return [n.opdef.name for n in ancestors([t])]


def test_split_parts_gradient_is_one_concat(rng):
    x = sg.placeholder(shape=(5, 8), name="x")
    a, b, c, d = (x[:, 2 * k:2 * k + 2] for k in range(4))
    y = sg.reduce_sum(sg.sigmoid(a) * sg.tanh(b) + sg.exp(c) * d)
    (g,) = sg.gradients(y, x)
    ops = _ops(g)
    assert ops.count("concat") == 1 and "index_add" not in ops and "add" not in ops
    v = rng.normal(size=(5, 8))
    s = 1 / (1 + np.exp(-v[:, 0:2]))
    want = np.concatenate([s * (1 - s) * np.tanh(v[:, 2:4]), s * (1 - np.tanh(v[:, 2:4]) ** 2),
                           np.exp(v[:, 4:6]) * v[:, 6:8], np.exp(v[:, 4:6])], axis=1)
    np.testing.assert_allclose(sg.evaluate(g, {x: v}), want, rtol=1e-12)
    np.testing.assert_allclose(sg.compile(g, [x], wait=True)(v), want, rtol=1e-12)


def test_gaps_are_zeros_and_order_does_not_matter(rng):
    x = sg.placeholder(shape=(3, 10), name="x")
    y = sg.reduce_sum(sg.sin(x[:, 6:9])) + sg.reduce_sum(x[:, 1:3] ** 2) + \
        sg.reduce_sum(x[:, :1] * 3.0)
    (g,) = sg.gradients(y, x)
    assert _ops(g).count("concat") == 1 and "index_add" not in _ops(g)
    v = rng.normal(size=(3, 10))
    want = np.zeros((3, 10))
    want[:, 6:9], want[:, 1:3], want[:, :1] = np.cos(v[:, 6:9]), 2 * v[:, 1:3], 3.0
    np.testing.assert_array_equal(sg.evaluate(g, {x: v}), want)
    # a negative zero of a part stays negative (TF's split gradient is a concat too)
    z = sg.placeholder(shape=(4,), name="z")
    (gz,) = sg.gradients(sg.reduce_sum(z[:2] * -0.0) + sg.reduce_sum(z[2:]), z)
    assert np.signbit(sg.evaluate(gz, {z: np.ones(4)})[:2]).all()


def test_overlapping_strided_and_run_time_gaps_stay_scatters(rng):
    x = sg.placeholder(shape=(7,), name="x")
    # Rosenbrock's x[1:] and x[:-1] overlap
    (g1,) = sg.gradients(sg.reduce_sum(x[1:] * x[:-1]), x)
    assert "concat" not in _ops(g1)
    (g2,) = sg.gradients(sg.reduce_sum(x[::2] ** 2) + sg.reduce_sum(x[1::2]), x)
    assert "concat" not in _ops(g2)
    v = rng.normal(size=7)
    np.testing.assert_allclose(sg.evaluate(g1, {x: v}),
                               np.r_[0, v[:-1]] + np.r_[v[1:], 0], rtol=1e-12)
    np.testing.assert_allclose(sg.evaluate(g2, {x: v}),
                               np.where(np.arange(7) % 2 == 0, 2 * v, 1.0), rtol=1e-12)
    # a batch of unknown size: parts covering the axis are a concat, gaps stay scatters
    u = sg.placeholder(shape=(None, 4), name="u")
    (g3,) = sg.gradients(sg.reduce_sum(u[:, :2] * 2.0) + sg.reduce_sum(u[:, 2:]), u)
    (g4,) = sg.gradients(sg.reduce_sum(u[:, :1] * 2.0) + sg.reduce_sum(u[:, 2:]), u)
    assert "concat" in _ops(g3) and "concat" not in _ops(g4)
    for n in (1, 3):
        np.testing.assert_array_equal(sg.evaluate(g3, {u: np.ones((n, 4))}),
                                      np.tile([2.0, 2.0, 1.0, 1.0], (n, 1)))
        np.testing.assert_array_equal(sg.evaluate(g4, {u: np.ones((n, 4))}),
                                      np.tile([2.0, 0.0, 1.0, 1.0], (n, 1)))
