"""Compiled evaluators at the kinks and edges of SEMANTICS.md, against the reference.

Every case is compiled once (module scope) with value and gradients together, then
compared with ``sg.evaluate`` (the oracle) and, where SEMANTICS.md fixes a number,
with that number.  Nothing may raise: numpy's error model throughout.
"""
import numpy as np
import pytest

import symgrad as sg

INF, NAN = np.inf, np.nan


def _unary_cases():
    """name -> function of a placeholder; each is differentiated w.r.t. it."""
    return {
        "relu": sg.relu,
        "abs": sg.abs, "sqrt": sg.sqrt, "log": sg.log, "sign": sg.sign,
        "reciprocal": lambda x: 1.0 / x, "exp": sg.exp, "tanh": sg.tanh,
        "sigmoid": sg.sigmoid, "softplus": sg.softplus,
        "where_log": lambda x: sg.where(x > 0, sg.log(x), sg.zeros_like(x)),
        "max0": lambda x: sg.maximum(x, 0.0), "min0": lambda x: sg.minimum(x, 0.0),
        "pow_y": lambda x: sg.pow(x, x), "erf": sg.erf, "expm1": sg.expm1,
        "log1p": sg.log1p, "square": sg.square, "atan": sg.atan,
    }


POINTS = np.array([-2.0, -1.0, -0.0, 0.0, 0.5, 1.0, INF, -INF, NAN])


@pytest.fixture(scope="module")
def unary():
    with sg.Graph().as_default():
        x = sg.placeholder(shape=POINTS.shape, name="x")
        fetches = []
        for fn in _unary_cases().values():
            y = fn(x)
            fetches += [y, sg.gradients(y, x)[0]]
        f = sg.compile(fetches, [x])
        expected = sg.evaluate(fetches, {x: POINTS})
    return f, fetches, expected


def test_unary_edges_match_reference(unary):
    f, fetches, expected = unary
    with np.errstate(all="raise"):  # nothing in the compiled path may raise
        got = f(POINTS)
    for node, g, e in zip(fetches, got, expected):
        np.testing.assert_allclose(g, e, rtol=1e-13, atol=0, equal_nan=True, err_msg=node.name)


def test_unary_edges_follow_semantics(unary):
    f, _, _ = unary
    got = dict(zip([n for name in _unary_cases() for n in (name, name + "'")], f(POINTS)))
    at0 = 3  # POINTS[3] == 0.0
    assert got["relu'"][at0] == 0.0           # relu: 0 at the kink (TF)
    assert got["max0'"][at0] == 1.0           # maximum(x, 0): the tie goes to x
    assert got["min0'"][at0] == 1.0           # minimum(x, 0): the tie goes to x
    assert got["abs'"][at0] == 0.0            # sign(0) = 0
    assert got["sqrt'"][at0] == INF           # +inf at 0, no exception
    assert got["log"][at0] == -INF
    assert got["reciprocal"][at0] == INF
    assert got["where_log'"][at0] == 0.0      # no NaN leaks from the branch not taken
    assert got["where_log"][at0] == 0.0
    assert np.isnan(got["log"][0])            # log(-2) is NaN
    for name in set(_unary_cases()) - {"where_log"}:  # NaN propagates (nan > 0 is False)
        assert np.isnan(got[name][-1]), name
    assert got["where_log"][-1] == 0.0


def test_pow_gradient_in_exponent_is_zero_where_base_not_positive():
    with sg.Graph().as_default():
        x = sg.placeholder(shape=(4,), name="x")
        p = sg.placeholder(shape=(4,), name="p")
        y = sg.pow(x, p)
        fetches = [y] + sg.gradients(y, [x, p])
        f = sg.compile(fetches, [x, p])
        xv, pv = np.array([-2.0, 0.0, 0.0, 3.0]), np.array([2.0, 2.0, 0.5, 1.5])
        got = f(xv, pv)
        expected = sg.evaluate(fetches, {x: xv, p: pv})
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=1e-13, equal_nan=True)
    np.testing.assert_array_equal(got[2][:3], 0.0)  # d/dp x**p = 0 where x <= 0 (TF)


def test_maximum_minimum_ties_go_to_first_argument():
    with sg.Graph().as_default():
        a = sg.placeholder(shape=(3,), name="a")
        b = sg.placeholder(shape=(3,), name="b")
        fetches = sg.gradients(sg.maximum(a, b), [a, b]) + sg.gradients(sg.minimum(a, b), [a, b])
        f = sg.compile(fetches, [a, b])
        av, bv = np.array([1.0, 2.0, 3.0]), np.array([1.0, 1.0, 4.0])
        got = f(av, bv)
        expected = sg.evaluate(fetches, {a: av, b: bv})
    for g, e in zip(got, expected):
        np.testing.assert_array_equal(g, e)
    assert got[0][0] == 1.0 and got[1][0] == 0.0  # max tie: all to a
    assert got[2][0] == 1.0 and got[3][0] == 0.0  # min tie: all to a


@pytest.mark.parametrize("values", [[2.0, 0.0, 3.0], [0.0, 0.0, 5.0], [1.0, 2.0, 3.0]])
def test_reduce_prod_gradient_is_exact_with_zeros(values, prod_fn):
    f, expected_fn = prod_fn
    v = np.array(values)
    got = f(v)
    others = [np.prod(np.delete(v, i)) for i in range(3)]
    np.testing.assert_array_equal(got[1], others)
    for g, e in zip(got, expected_fn(v)):
        np.testing.assert_array_equal(g, e)


@pytest.fixture(scope="module")
def prod_fn():
    graph = sg.Graph()
    with graph.as_default():
        x = sg.placeholder(shape=(3,), name="x")
        y = sg.reduce_prod(x)
        fetches = [y, sg.gradients(y, x)[0]]
        f = sg.compile(fetches, [x])

    def expected(v):
        with graph.as_default():
            return sg.evaluate(fetches, {x: v})
    return f, expected


def test_division_by_zero_and_overflow_do_not_raise():
    with sg.Graph().as_default():
        x = sg.placeholder(name="x")
        y = sg.placeholder(name="y")
        fetches = [x / y, sg.exp(x) * 0.0, sg.log(y), sg.gradients(x / y, [y])[0]]
        f = sg.compile(fetches, [x, y])
        got = f(1.0, 0.0)
        assert got[0] == INF and got[2] == -INF and got[3] == -INF
        got = f(1000.0, 1.0)
        assert np.isnan(got[1])  # exp overflows to inf; inf * 0 is NaN, as numpy
        assert isinstance(got[0], float)


def test_second_order_and_jacobians_match_reference():
    """Hessians reshape one tensor two ways ((n, 1) and (1, n)): they share memory but
    must not be mistaken for each other."""
    rng = np.random.default_rng(5)
    with sg.Graph().as_default():
        X = sg.placeholder(shape=(4, 3), name="X")
        d = sg.reshape(X, (4, 1, 3)) - sg.reshape(X, (1, 4, 3))
        r2 = sg.reduce_sum(d * d, axis=2) + sg.constant(np.eye(4))
        inv6 = 1.0 / r2 ** 3
        energy = 0.5 * sg.reduce_sum(sg.constant(1 - np.eye(4)) * 4.0 * (inv6 * inv6 - inv6))
        v = sg.placeholder(shape=(3,), name="v")
        pair = sg.reduce_sum((sg.reshape(v, (3, 1)) - sg.reshape(v, (1, 3))) ** 2 * sg.sin(v))
        fetches = [energy, sg.hessians(energy, X)[0], sg.hessians(pair, v)[0],
                   sg.jacobian(sg.tanh(v) * v[0], v)]
        f = sg.compile(fetches, [X, v])
        feed = {X: rng.normal(size=(4, 3)) * 2, v: rng.normal(size=3)}
        expected = sg.evaluate(fetches, feed)
    for g, e in zip(f(feed[X], feed[v]), expected):
        np.testing.assert_allclose(g, e, rtol=1e-10, atol=1e-12)


def test_large_contractions_and_heap_temporaries():
    """Wide matrices take the streamed loop order; 100x100 temporaries live on the heap."""
    rng = np.random.default_rng(6)
    with sg.Graph().as_default():
        a = sg.placeholder(shape=(100, 90), name="a")
        b = sg.placeholder(shape=(90, 100), name="b")
        y = sg.reduce_sum(sg.tanh(a @ b) * sg.einsum("ij,jk->ik", a, b))
        fetches = [y] + sg.gradients(y, [a, b])
        f = sg.compile(fetches, [a, b])
        feed = {a: rng.normal(size=(100, 90)) * 0.1, b: rng.normal(size=(90, 100)) * 0.1}
        expected = sg.evaluate(fetches, feed)
    for g, e in zip(f(feed[a], feed[b]), expected):
        np.testing.assert_allclose(g, e, rtol=1e-10, atol=1e-12)
