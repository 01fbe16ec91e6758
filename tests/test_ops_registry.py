"""Registry-driven tests: every op's shape rule, value, closed form and derivative.

For each Example of each op: the shape rule against the numpy result; the
numeric value against the SymPy rule's closed form; the gradient against central
finite differences of a random projection <u, f(x)>; and the second derivative
(the gradient of <v, gradient>) against finite differences of the gradient.
"""
import numpy as np
import pytest

import symgrad as sg
from symgrad.ops import REGISTRY, apply

from .oracles import central_difference, eval_closed_form, example_values

CASES = [(name, i) for name, op in sorted(REGISTRY.items())
         for i in range(len(op.examples))]
NO_EXAMPLES_OK = {"const", "variable", "placeholder", "elementwise",
                  "argument", "cond", "while_loop", "while_vjp"}  # sub-graph ops: tests/test_control*.py
# TF registers None for these (dim_size: a size, as tf.size)
NO_GRADIENT = {"stop_gradient", "floor", "ceil", "round", "floordiv", "dim_size"}


def _inputs(example, rng):
    return [sg.Variable(value, name=f"in{k}")
            for k, value in enumerate(example_values(example, rng))]


def _build(name, i, rng):
    example = REGISTRY[name].examples[i]
    leaves = _inputs(example, rng)
    return apply(name, leaves, **example.attrs), leaves


def test_every_op_has_examples():
    missing = [n for n, op in REGISTRY.items() if not op.examples and n not in NO_EXAMPLES_OK]
    assert missing == []


@pytest.mark.parametrize("name,i", CASES)
def test_shape_and_dtype_rules_match_numpy(name, i, rng):
    out, leaves = _build(name, i, rng)
    value = np.asarray(REGISTRY[name].impl(*[l.value for l in leaves], **out.attrs))
    assert value.shape == out.shape
    assert sg.evaluate(out).shape == out.shape


@pytest.mark.parametrize("name,i", CASES)
def test_value_matches_closed_form(name, i, rng):
    out, leaves = _build(name, i, rng)
    numeric = np.asarray(sg.evaluate(out), dtype=float)
    symbolic = eval_closed_form(out, leaves)
    rtol = 1e-6 if out.dtype == np.float32 else 1e-9
    np.testing.assert_allclose(numeric, symbolic, rtol=rtol, atol=1e-12)


def _projected(out, leaves, k, u):
    def f(v):
        old = leaves[k].value
        leaves[k].assign(v)
        try:
            return float(np.sum(u * sg.evaluate(out)))
        finally:
            leaves[k].assign(old)
    return f


@pytest.mark.parametrize("name,i", CASES)
def test_gradient_matches_finite_differences(name, i, rng):
    out, leaves = _build(name, i, rng)
    if not out.is_float:
        assert all(g is None for g in sg.gradients(out, leaves))
        return
    u = rng.normal(size=out.shape)
    grads = sg.gradients(out, leaves, grad_ys=sg.constant(u, name="u"))
    for k, (leaf, g) in enumerate(zip(leaves, grads)):
        if not leaf.is_float:
            assert g is None
            continue
        if g is None:  # only ops whose rule gives no gradient for this input
            assert name in NO_GRADIENT
            continue
        single = out.dtype == np.float32  # float32 output: a coarser difference quotient
        expected = central_difference(_projected(out, leaves, k, u), leaf.value,
                                      eps=1e-2 if single else 1e-6)
        np.testing.assert_allclose(sg.evaluate(g), expected, rtol=1e-2 if single else 1e-5,
                                   atol=1e-6, err_msg=f"{name} input {k}")


@pytest.mark.parametrize("name,i", CASES)
def test_second_derivative_matches_finite_differences(name, i, rng):
    out, leaves = _build(name, i, rng)
    if not out.is_float or name in NO_GRADIENT or out.dtype == np.float32:
        return
    u = rng.normal(size=out.shape)
    for k, leaf in enumerate(leaves):
        if not leaf.is_float:
            continue
        (g,) = sg.gradients(out, leaf, grad_ys=sg.constant(u, name="u"))
        v = rng.normal(size=leaf.shape)
        (h,) = sg.gradients(sg.reduce_sum(g * v), leaf, unconnected_gradients="zero")
        expected = central_difference(_projected(sg.reduce_sum(g * v), leaves, k, 1.0),
                                      leaf.value, eps=1e-5)
        np.testing.assert_allclose(sg.evaluate(h), expected, rtol=1e-4, atol=1e-5,
                                   err_msg=f"{name} input {k}")
