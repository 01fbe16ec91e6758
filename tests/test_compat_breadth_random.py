"""The random ops and samplers added for breadth cannot reproduce TF's streams, so
these tests check what TF documents: the distribution (moments, frequencies, a
Kolmogorov–Smirnov distance), fresh numbers at each run, and reproducibility from
seeds (stateless ops: the same numbers at every run and in every session)."""
import math

import numpy as np
import pytest

import symgrad.compat.v1 as tf


def _ks_distance(samples, cdf):
    x = np.sort(samples)
    n = len(x)
    f = cdf(x)
    return max(np.max(np.arange(1, n + 1) / n - f), np.max(f - np.arange(n) / n))


def _gamma_cdf(a):
    # regularised lower incomplete gamma by its series (fine for the small x used here)
    def cdf(x):
        out = np.zeros_like(x, dtype=float)
        for i, v in enumerate(x):
            term = total = 1.0 / a
            k = 0
            while term > 1e-12 * total and k < 2000:
                k += 1
                term *= v / (a + k)
                total += term
            out[i] = total * math.exp(-v + a * math.log(v) - math.lgamma(a)) if v > 0 else 0.0
        return out
    return cdf


@pytest.mark.parametrize("alpha", [0.3, 1.0, 2.5, 9.0])
def test_gamma_samples_follow_the_gamma_distribution(alpha):
    x = tf.random.gamma([6000], alpha, seed=11)
    with tf.Session() as sess:
        got = sess.run(x)
    assert got.dtype == np.float32 and got.shape == (6000,)
    # the 99.9% KS critical value for n = 6000 is 1.95 / sqrt(n) ≈ 0.025
    assert _ks_distance(got.astype(float), _gamma_cdf(alpha)) < 0.025


def test_gamma_shape_rate_gradient_and_fresh_draws():
    beta = tf.constant([1.0, 4.0])
    x = tf.random.gamma([5000], [2.0, 3.0], beta=beta, seed=3)
    assert x.shape == (5000, 2)
    (g,) = tf.gradients(tf.reduce_sum(x), beta)
    with tf.Session() as sess:
        first, grad = sess.run([x, g])
        second = sess.run(x)
    np.testing.assert_allclose(first.mean(0), [2.0, 0.75], rtol=0.05)
    np.testing.assert_allclose(first.var(0), [2.0, 3.0 / 16], rtol=0.1)
    # d(z / beta)/d beta = -z / beta**2 = -sample / beta
    np.testing.assert_allclose(grad, -(first / [1.0, 4.0]).sum(0), rtol=1e-4)
    assert not np.array_equal(first, second)


def test_gamma_alpha_gets_no_gradient_as_documented():
    alpha = tf.constant(2.0)
    assert tf.gradients(tf.reduce_sum(tf.random.gamma([3], alpha)), alpha) == [None]


def test_gamma_is_reproducible_from_the_seed():
    a = tf.random.gamma([4], 2.0, seed=5)
    with tf.Session() as s1:
        v1 = s1.run(a)
    with tf.Session() as s2:
        v2 = s2.run(a)
    np.testing.assert_array_equal(v1, v2)


@pytest.mark.parametrize("lam", [0.0, 0.7, 4.0, 12.0, 150.0])
def test_poisson_frequencies_match_the_pmf(lam):
    x = tf.random.poisson(lam, [20000], seed=2)
    with tf.Session() as sess:
        got = sess.run(x)
    assert got.dtype == np.float32 and np.all(got == np.round(got)) and np.all(got >= 0)
    if lam == 0.0:
        assert np.all(got == 0)
        return
    ks = np.arange(int(lam + 4 * math.sqrt(lam)) + 1)
    pmf = np.exp(-lam + ks * math.log(lam) - np.array([math.lgamma(k + 1) for k in ks]))
    freq = np.array([(got == k).mean() for k in ks])
    # each frequency within 5 standard errors of its probability
    assert np.all(np.abs(freq - pmf) <= 5 * np.sqrt(pmf * (1 - pmf) / len(got)) + 1e-4)


def test_poisson_shape_is_shape_plus_lam_shape():
    x = tf.random_poisson([1.0, 30.0], [7, 3])
    assert x.shape == (7, 3, 2)


def test_stateless_ops_repeat_for_a_seed_and_differ_across_seeds():
    ops = [tf.random.stateless_uniform([500], seed=[1, 2]),
           tf.random.stateless_normal([500], seed=[1, 2], mean=1.0, stddev=2.0),
           tf.random.stateless_truncated_normal([500], seed=[1, 2]),
           tf.random.stateless_uniform([500], seed=[1, 2], minval=3, maxval=9, dtype=tf.int32),
           tf.random.stateless_categorical(tf.math.log([[0.2, 0.8]]), 500, seed=[4, 4])]
    other = tf.random.stateless_uniform([500], seed=[1, 3])
    with tf.Session() as s1:
        a, b = s1.run(ops), s1.run(ops)
        c = s1.run(other)
    with tf.Session() as s2:
        d = s2.run(ops)
    for x, y, z in zip(a, b, d):
        np.testing.assert_array_equal(x, y)
        np.testing.assert_array_equal(x, z)
    assert not np.array_equal(a[0], c)
    u, n, t, i, k = a
    assert 0.0 <= u.min() and u.max() < 1.0 and abs(u.mean() - 0.5) < 0.05
    assert abs(n.mean() - 1.0) < 0.3 and abs(n.std() - 2.0) < 0.3
    assert np.abs(t).max() <= 2.0
    assert i.dtype == np.int32 and i.min() >= 3 and i.max() < 9
    assert k.shape == (1, 500) and abs(k.mean() - 0.8) < 0.06


def test_stateless_seed_must_be_two_integers():
    with pytest.raises(ValueError, match="two integers"):
        tf.random.stateless_normal([2], seed=[1, 2, 3])
    with pytest.raises(ValueError, match="maxval"):
        tf.random.stateless_uniform([2], seed=[1, 2], dtype=tf.int32)


def test_random_multinomial_alias_samples_the_logits():
    x = tf.random.multinomial(tf.math.log([[0.1, 0.9]]), 4000, seed=1)
    with tf.Session() as sess:
        got = sess.run(x)
    assert got.shape == (1, 4000) and abs(got.mean() - 0.9) < 0.03


@pytest.mark.parametrize("make, mean, var", [
    (lambda: tf.distributions.Uniform(-1.0, 3.0), 1.0, 16.0 / 12),
    (lambda: tf.distributions.Laplace(2.0, 0.5), 2.0, 0.5),
    (lambda: tf.distributions.Exponential(2.0), 0.5, 0.25),
    (lambda: tf.distributions.Gamma(3.0, 2.0), 1.5, 0.75),
    (lambda: tf.distributions.Beta(2.0, 5.0), 2.0 / 7, 10.0 / (49 * 8)),
    (lambda: tf.distributions.StudentT(6.0, 1.0, 2.0), 1.0, 4.0 * 6.0 / 4.0),
])
def test_distribution_samples_have_the_documented_moments(make, mean, var):
    d = make()
    x = d.sample(20000, seed=7)
    with tf.Session() as sess:
        got = sess.run(x)
    assert got.shape == (20000,)
    assert abs(got.mean() - mean) < 0.05 * max(1.0, math.sqrt(var))
    assert abs(got.var() - var) < 0.1 * var


def test_reparameterised_samples_carry_gradients_to_loc_and_scale():
    loc, scale = tf.constant(1.0), tf.constant(2.0)
    x = tf.distributions.Laplace(loc, scale).sample(3, seed=1)
    gl, gs = tf.gradients(tf.reduce_sum(x), [loc, scale])
    with tf.Session() as sess:
        v, a, b = sess.run([x, gl, gs])
    assert a == 3.0
    np.testing.assert_allclose(b, ((v - 1.0) / 2.0).sum(), rtol=1e-5)


def test_dirichlet_samples_lie_on_the_simplex_with_the_documented_mean():
    d = tf.distributions.Dirichlet([2.0, 3.0, 5.0])
    x = d.sample(5000, seed=4)
    with tf.Session() as sess:
        got = sess.run(x)
    assert got.shape == (5000, 3) and np.all(got > 0)
    np.testing.assert_allclose(got.sum(1), 1.0, rtol=1e-5)
    np.testing.assert_allclose(got.mean(0), [0.2, 0.3, 0.5], atol=0.01)
