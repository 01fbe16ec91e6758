"""tf.distributions added for breadth (Uniform, Laplace, Exponential, Gamma, Beta, StudentT): log_prob, prob, cdf, mean, variance, stddev, entropy and their gradients against TensorFlow, concentration 1 included (sampling: test_compat_breadth_random).

The numbers in ``TF`` were printed by TensorFlow 2.21 (``tensorflow.compat.v1``, graph
mode) running the same case functions."""
# flake8: noqa: E501
import numpy as np

def _stats(tf, d, x, params):
    lp = d.log_prob(x)
    out = {"lp": lp, "p": d.prob(x), "mean": d.mean(), "var": d.variance(), "std": d.stddev(), "ent": d.entropy()}
    loss = tf.reduce_sum(lp * 1.5) + tf.reduce_sum(d.entropy()) + tf.reduce_sum(d.variance() * 0.5) + tf.reduce_sum(d.mean())
    out["g"] = tf.gradients(loss, params)
    return out

def c_uniform(tf):
    lo, hi = tf.constant([0.0, -1.0, 2.0]), tf.constant([1.0, 3.0, 2.5])
    d = tf.distributions.Uniform(low=lo, high=hi)
    x = tf.constant([0.5, 3.0, 2.2])
    out = _stats(tf, d, tf.constant([0.5, 0.0, 2.2]), [lo, hi])
    out["p_edge"] = d.prob(x); out["cdf"] = d.cdf(tf.constant([0.25, -2.0, 2.4]))
    return out

def c_laplace(tf):
    loc, sc = tf.constant([0.0, 1.0, -2.0]), tf.constant([1.0, 0.5, 2.0])
    d = tf.distributions.Laplace(loc=loc, scale=sc)
    out = _stats(tf, d, tf.constant([0.3, 2.0, -5.0]), [loc, sc])
    out["cdf"] = d.cdf(tf.constant([0.3, 0.2, -1.0]))
    out["gcdf"] = tf.gradients(d.cdf(tf.constant([0.3, 0.2, -1.0])), [loc, sc])
    return out

def c_exponential(tf):
    r = tf.constant([0.5, 1.0, 3.0])
    d = tf.distributions.Exponential(rate=r)
    out = _stats(tf, d, tf.constant([0.2, 1.0, 2.5]), [r])
    out["cdf"] = d.cdf(tf.constant([0.2, 1.0, 2.5]))
    return out

def c_gamma(tf):
    a, b = tf.constant([0.5, 1.0, 7.5]), tf.constant([1.0, 0.3, 2.0])
    return _stats(tf, tf.distributions.Gamma(concentration=a, rate=b), tf.constant([0.3, 4.0, 3.1]), [a, b])

def c_beta(tf):
    a, b = tf.constant([0.5, 1.0, 7.5]), tf.constant([1.5, 1.0, 2.0])
    return _stats(tf, tf.distributions.Beta(concentration1=a, concentration0=b), tf.constant([0.3, 0.9, 0.75]), [a, b])

def c_student(tf):
    df, loc, sc = tf.constant([3.0, 5.0, 30.0]), tf.constant([0.0, 1.0, -1.0]), tf.constant([1.0, 2.0, 0.5])
    d = tf.distributions.StudentT(df=df, loc=loc, scale=sc)
    out = _stats(tf, d, tf.constant([0.5, -2.0, -1.2]), [df, loc, sc])
    d2 = tf.distributions.StudentT(df=[0.8, 1.5, 2.5], loc=0.0, scale=1.0)
    out["mean2"] = d2.mean(); out["var2"] = d2.variance(); out["ent2"] = d2.entropy()
    return out


NAN, INF = float("nan"), float("inf")
TF = {'beta': {'ent': [-0.5484177, 0.0, -0.7486439],
          'g': [[4.636718, 1.736111, -0.1287809], [-0.5688056, -2.217766, 0.6889691]],
          'lp': [-0.02793378, 0.0, 0.8987408],
          'mean': [0.25, 0.5, 0.7894737],
          'p': [0.9724528, 1.0, 2.456508],
          'std': [0.25, 0.2886751, 0.1258135],
          'var': [0.0625, 0.08333334, 0.01582905]},
 'exponential': {'cdf': [0.09516259, 0.6321205, 0.9994469],
                 'ent': [1.693147, 1.0, -0.09861231],
                 'g': [[-11.3, -3.0, -3.731482]],
                 'lp': [-0.7931472, -1.0, -6.401388],
                 'mean': [2.0, 1.0, 0.3333333],
                 'p': [0.4524187, 0.3678795, 0.001659253],
                 'std': [2.0, 1.0, 0.3333333],
                 'var': [4.0, 1.0, 0.1111111]},
 'gamma': {'ent': [0.09060955, 2.203973, 1.687293],
           'g': [[6.106708, 8.948753, 0.5146842], [-1.7, -52.48148, -2.3375]],
           'lp': [-0.2703785, -2.403973, -1.181646],
           'mean': [0.5, 3.333333, 3.75],
           'p': [0.7630906, 0.09035826, 0.3067733],
           'std': [0.7071068, 3.333333, 1.369306],
           'var': [0.5, 11.11111, 1.875]},
 'laplace': {'cdf': [0.6295909, 0.1009483, 0.6967347],
             'ent': [1.693147, 1.0, 2.386294],
             'g': [[2.5, 4.0, 0.25], [1.95, 6.0, 4.875]],
             'gcdf': [[-0.3704091, -0.2018965, -0.1516327],
                      [-0.1111227, 0.3230344, -0.07581633]],
             'lp': [-0.9931472, -2.0, -2.886294],
             'mean': [0.0, 1.0, -2.0],
             'p': [0.3704091, 0.1353353, 0.05578254],
             'std': [1.414214, 0.7071068, 2.828427],
             'var': [2.0, 0.5, 8.0]},
 'student': {'ent': [1.773477, 2.320649, 0.7593995],
             'ent2': [2.816906, 2.149659, 1.84776],
             'g': [[-1.06659, -0.4722217, -0.0009092372], [1.923077, 0.06896555, -0.233422],
                   [2.961538, 4.479885, 0.02908325]],
             'lp': [-1.160974, -2.776457, -0.3165741],
             'mean': [0.0, 1.0, -1.0],
             'mean2': [NAN, 0.0, 0.0],
             'p': [0.3131809, 0.06225868, 0.728641],
             'std': [1.732051, 2.581989, 0.5175492],
             'var': [3.0, 6.666667, 0.2678571],
             'var2': [NAN, INF, 5.0]},
 'uniform': {'cdf': [0.25, 0.0, 0.8000002],
             'ent': [0.0, 1.386294, -0.6931472],
             'g': [[0.9166667, 0.2916667, 1.458333], [0.08333334, 0.7083334, -0.4583333]],
             'lp': [0.0, -1.386294, 0.6931472],
             'mean': [0.5, 1.0, 2.25],
             'p': [1.0, 0.25, 2.0],
             'p_edge': [1.0, 0.0, 2.0],
             'std': [0.2886751, 1.154701, 0.1443376],
             'var': [0.08333334, 1.333333, 0.02083333]}}


import pytest  # noqa: E402

from tests.breadth_check import assert_matches, run_case  # noqa: E402


@pytest.mark.parametrize("case", sorted(TF))
def test_matches_tensorflow(case):
    got = run_case(globals()["c_" + case])
    for key, want in TF[case].items():
        assert_matches(got[key], want, f"{case}.{key}")
