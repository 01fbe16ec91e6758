"""Edges of the reference path: inf/NaN inputs, empty tensors, integer and float32 inputs,
0-d vs 1-element tensors.  Values follow numpy's error model and never raise."""
import warnings

import numpy as np
import pytest

import symgrad as sg

SPECIAL = np.array([np.inf, -np.inf, np.nan, 0.0, -1.0, 1.0])
UNARY = ["sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "exp", "expm1",
         "log", "log1p", "sqrt", "square", "reciprocal", "sign", "sigmoid", "softplus", "relu",
         "erf", "abs", "neg"]


@pytest.mark.parametrize("name", UNARY)
def test_special_values_propagate_like_numpy_without_warnings(name):
    x = sg.Variable(SPECIAL, name="x")
    y = getattr(sg, name)(x)
    (g,) = sg.gradients(y, x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        value, grad = sg.evaluate([y, g])
    nan_in = np.isnan(SPECIAL)
    assert np.isnan(value[nan_in]).all() or name == "sign"
    constant_slope = name in ("sign", "neg")  # their derivative does not read x
    if name == "relu":   # "g where x > 0" (SEMANTICS), a mask as TF's ReluGrad: 0 at nan
        assert (grad[nan_in] == 0).all()
    else:
        assert np.isnan(grad[nan_in]).all() or constant_slope
    with np.errstate(all="ignore"):
        reference = {"neg": np.negative, "abs": np.abs, "asin": np.arcsin, "acos": np.arccos,
                     "atan": np.arctan}.get(name, getattr(np, name, None))
        if reference is not None and name not in ("sign",):
            np.testing.assert_array_equal(value, reference(SPECIAL))


@pytest.mark.parametrize("build", [
    lambda e: sg.reduce_sum(e), lambda e: sg.reduce_max(e, axis=0),
    lambda e: sg.reduce_prod(e, axis=0), lambda e: sg.softmax(e),
    lambda e: sg.logsumexp(e, axis=0), lambda e: e[1:], lambda e: sg.concat([e, e], 0),
    lambda e: e @ np.ones((3, 2)), lambda e: sg.reduce_mean(e * e)])
def test_empty_tensors(build):
    e = sg.Variable(np.zeros((0, 3)), name="e")
    y = build(e)
    (g,) = sg.gradients(y, e)
    assert sg.evaluate(g).shape == (0, 3)
    sg.evaluate(y)


def test_empty_reductions_take_numpy_identities():
    e = sg.Variable(np.zeros((0, 2)), name="e")
    np.testing.assert_array_equal(sg.evaluate(sg.reduce_sum(e, axis=0)), [0.0, 0.0])
    np.testing.assert_array_equal(sg.evaluate(sg.reduce_prod(e, axis=0)), [1.0, 1.0])
    np.testing.assert_array_equal(sg.evaluate(sg.reduce_max(e, axis=0)), [-np.inf, -np.inf])


def test_integer_inputs_compute_but_carry_no_gradient():
    i = sg.constant([1, 2, 3], name="i")
    np.testing.assert_array_equal(sg.evaluate(i * 2), [2, 4, 6])
    assert sg.evaluate(i * 2).dtype == np.int64
    np.testing.assert_allclose(sg.evaluate(sg.sin(i)), np.sin([1, 2, 3]))
    assert sg.gradients(sg.sin(i), i) == [None]
    assert sg.evaluate(sg.gradients(sg.sin(i), i, unconnected_gradients="zero")[0]).dtype == \
        np.int64


def test_float32_stays_float32():
    x = sg.Variable(np.float32([1.0, 2.0]), name="x")
    y = sg.sin(x) * 2 + 1
    (g,) = sg.gradients(y, x)
    assert sg.evaluate(y).dtype == np.float32 and sg.evaluate(g).dtype == np.float32
    np.testing.assert_allclose(sg.evaluate(g), 2 * np.cos(np.float32([1.0, 2.0])), rtol=1e-6)


def test_zero_d_versus_one_element():
    one = sg.Variable([3.0], name="one")
    z = sg.Variable(3.0, name="z")
    g_one, g_z = sg.gradients(one * z, [one, z])
    assert g_one.shape == (1,) and g_z.shape == ()
    np.testing.assert_array_equal(sg.evaluate(g_one), [3.0])
    assert sg.evaluate(g_z) == 3.0
