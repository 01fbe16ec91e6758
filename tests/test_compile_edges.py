"""Edge values: the compiled evaluator agrees with the reference evaluator (numpy) at
infinities, signed zeros and unrepresentable integer feeds (issue 9).

Each case failed on main before the fix: compiled logsumexp([inf, inf]) was nan, the
gradient of x**0.5 at -0.0 was -inf, an int input fed nan gave -2**63 and 1e30 an
OverflowError, and batched() cast complex and string arrays silently.
"""
import numpy as np
import pytest

import symgrad as sg

EDGES = [-0.0, 0.0, -np.inf, np.inf, -1.0, np.nan, 0.3, 2.0]


def same(reference, compiled):
    """Equal values, NaN where NaN, and the same sign (so -0.0 and -inf are told apart)."""
    r, c = np.asarray(reference, dtype=float), np.asarray(compiled, dtype=float)
    return np.array_equal(np.isnan(r), np.isnan(c)) and np.allclose(
        r[~np.isnan(r)], c[~np.isnan(c)], rtol=1e-14, atol=0) and np.array_equal(
        np.signbit(r[~np.isnan(r)]), np.signbit(c[~np.isnan(c)]))


@pytest.fixture(scope="module")
def lse():
    with sg.Graph().as_default():
        v = sg.placeholder(shape=(2,), name="v")
        outs = [sg.reduce_logsumexp(v), sg.softmax(v)]
        outs.append(sg.gradients(outs[0], v)[0])
        yield v, outs, sg.compile(outs, [v])


@pytest.mark.parametrize("value", [[np.inf, np.inf], [-np.inf, -np.inf], [np.inf, 1.0],
                                   [-np.inf, 0.0], [np.nan, 1.0], [1.0, 2.0]])
def test_logsumexp_and_softmax_at_infinities_match_the_reference(lse, value):
    v, outs, f = lse
    for r, c in zip(sg.evaluate(outs, {v: value}), f(value)):
        assert same(r, c), (value, r, c)


def test_logsumexp_of_infinities_is_numpys():
    with np.errstate(all="ignore"):
        assert np.logaddexp(np.inf, np.inf) == np.inf
        assert np.logaddexp(-np.inf, -np.inf) == -np.inf


@pytest.fixture(scope="module")
def roots():
    with sg.Graph().as_default():
        x = sg.placeholder(name="x")
        cases = {"sqrt(x)": sg.sqrt(x), "x**0.5": x ** 0.5, "x**-0.5": x ** -0.5,
                 "1/sqrt(x)": 1.0 / sg.sqrt(x), "x**1.5": x ** 1.5}
        compiled = {}
        for name, y in cases.items():
            outs = [y, sg.gradients(y, x)[0]]
            compiled[name] = (outs, sg.compile(outs, [x]))
        yield x, compiled


@pytest.mark.parametrize("name", ["sqrt(x)", "x**0.5", "x**-0.5", "1/sqrt(x)", "x**1.5"])
def test_square_roots_and_their_gradients_at_edges_match_the_reference(roots, name):
    x, compiled = roots
    outs, f = compiled[name]
    for value in EDGES:
        with np.errstate(all="ignore"):
            reference = [float(r) for r in sg.evaluate(outs, {x: value})]
        assert same(reference, f(value)), (name, value, reference, f(value))


def test_gradient_of_x_to_the_half_at_minus_zero_is_plus_inf(roots):
    _, compiled = roots
    assert compiled["x**0.5"][1](-0.0)[1] == np.inf


@pytest.fixture(scope="module")
def int_input():
    with sg.Graph().as_default():
        i = sg.placeholder(sg.int64, shape=(), name="i")
        v = sg.placeholder(sg.int64, shape=(2,), name="v")
        yield i, v, i * 2, sg.compile(i * 2, [i]), sg.compile(v * 2, [v])


@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf, 1e30, -1e19, 2.0 ** 63])
def test_an_int_input_fed_an_unrepresentable_float_is_refused_everywhere(int_input, value):
    i, _, y, f, fv = int_input
    with pytest.raises(sg.FeedError, match="integer dtype int64 cannot hold"):
        sg.evaluate(y, {i: value})
    with pytest.raises(sg.ArgumentError, match="integer dtype int64 cannot hold"):
        f(value)
    with pytest.raises(sg.ArgumentError, match="integer dtype int64 cannot hold"):
        f.batched(np.array([1.0, value]))
    with pytest.raises(sg.ArgumentError, match="cannot hold"):
        fv(np.array([1.0, value]))


@pytest.mark.parametrize("value", [2.7, -2.7, 3, 2.0 ** 61, -2.0 ** 62])
def test_an_int_input_fed_a_float_truncates_like_numpy(int_input, value):
    i, _, y, f, _ = int_input
    expected = np.int64(value) * 2
    assert int(sg.evaluate(y, {i: value})) == expected
    assert f(value) == expected
    assert f.batched(np.array([value])).tolist() == [expected]


def test_batched_refuses_complex_and_strings_like_a_single_call(int_input):
    with sg.Graph().as_default():
        p = sg.placeholder(shape=(2,), name="p")
        f = sg.compile(p * 2, [p])
    for bad in (np.array([[1 + 2j, 3]]), np.array([["1", "2"]]), [[object(), 1]]):
        with pytest.raises(sg.ArgumentError, match="must be real numbers"):
            f.batched(bad)
        with pytest.raises(sg.ArgumentError, match="must be real numbers"):
            f(bad[0])
