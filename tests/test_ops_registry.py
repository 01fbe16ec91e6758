"""Registry-driven tests: every op's shape rule, value, closed form and derivative.

For each Example of each op: the shape rule against the numpy result; the
numeric value against the SymPy rule's closed form; the gradient against central
finite differences of a random projection <u, f(x)>; and the second derivative
(the gradient of <v, gradient>) against finite differences of the gradient.
"""
import numpy as np
import pytest
from hypothesis import given, settings

import symgrad as sg
from symgrad import differentiate
from symgrad.ops import REGISTRY, apply, elementwise
from symgrad.ops import shape as shape_ops
from symgrad.ops.base import derived_node
from symgrad.errors import FormTooLargeError, NoClosedFormError
from symgrad.values import fits

from .oracles import central_difference, eval_closed_form, example_values
from .programs import programs

CASES = [(name, i) for name, op in sorted(REGISTRY.items())
         for i in range(len(op.examples))]
NO_EXAMPLES_OK = {"const", "variable", "placeholder", "elementwise",
                  "argument", "cond", "while_loop", "while_vjp",  # sub-graph ops: tests/test_control*.py
                  "py_func", "eager_py_func"}  # a user's Python function: tests/test_compat_pyfunc*.py
# TF registers None for these (dim_size: a size, as tf.size; random_draw, positions: numbers made
# from the input's shape alone, as TF's random ops)
NO_GRADIENT = {"stop_gradient", "floor", "ceil", "round", "floordiv", "dim_size",
               "random_draw", "positions",
               "custom_gradient"}  # the user's rule: y, its last input, gets none by design


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


# sizes read from values (ops.valued): a Dim in the shape, bound when the op runs
VALUE_SIZED = {n for n, op in REGISTRY.items() if getattr(op, "value_sized", False)}


@pytest.mark.parametrize("name,i", CASES)
def test_shape_and_dtype_rules_match_numpy(name, i, rng):
    out, leaves = _build(name, i, rng)
    attrs = {k: v for k, v in out.attrs.items() if not (k == "size" and name in VALUE_SIZED)}
    value = np.asarray(REGISTRY[name].impl(*[l.value for l in leaves], **attrs))
    assert fits(value.shape, out.shape) and (value.shape == out.shape or name in VALUE_SIZED)
    assert sg.evaluate(out).shape == value.shape


@pytest.mark.parametrize("name,i", CASES)
def test_value_matches_closed_form(name, i, rng):
    out, leaves = _build(name, i, rng)
    if name in VALUE_SIZED:   # no closed form: the printers say so
        with pytest.raises((TypeError, FormTooLargeError), match="depends on values|unknown"):
            eval_closed_form(out, leaves)
        return
    if not getattr(REGISTRY[name], "closed_form", True):   # (eigh: none; it says to evaluate)
        with pytest.raises(NoClosedFormError, match="evaluate"):
            eval_closed_form(out, leaves)
        return
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


def _weighted_gradients(out, leaves, u):
    """The gradients of <u, out>: ``grad_ys=u``, or for a size read from values (which a
    fixed grad_ys cannot state) the gradients of ``reduce_sum(out * u)``."""
    if name_of_value_sized(out):
        return sg.gradients(sg.reduce_sum(out * sg.constant(u, name="u")), leaves)
    return sg.gradients(out, leaves, grad_ys=sg.constant(u, name="u"))


def name_of_value_sized(out):
    return out.opdef.name in VALUE_SIZED and not all(isinstance(d, int) for d in out.shape)


@pytest.mark.parametrize("name,i", CASES)
def test_gradient_matches_finite_differences(name, i, rng):
    out, leaves = _build(name, i, rng)
    if not out.is_float:
        assert all(g is None for g in sg.gradients(out, leaves))
        return
    u = rng.normal(size=np.shape(sg.evaluate(out)))
    grads = _weighted_gradients(out, leaves, u)
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
    u = rng.normal(size=np.shape(sg.evaluate(out)))
    for k, leaf in enumerate(leaves):
        if not leaf.is_float:
            continue
        (g,) = _weighted_gradients(out, [leaf], u)
        v = rng.normal(size=leaf.shape)
        (h,) = sg.gradients(sg.reduce_sum(g * v), leaf, unconnected_gradients="zero")
        expected = central_difference(_projected(sg.reduce_sum(g * v), leaves, k, 1.0),
                                      leaf.value, eps=1e-5)
        np.testing.assert_allclose(sg.evaluate(h), expected, rtol=1e-4, atol=1e-5,
                                   err_msg=f"{name} input {k}")


@settings(max_examples=40, deadline=None)
@given(programs(max_steps=8, control=()))
def test_derived_nodes_have_the_shapes_and_dtypes_the_op_rules_give(program):
    """Derivative rules make nodes with the shape and dtype they know (``derived_node``,
    skipping the op's rules): each is what the op's own rules say, to first and second
    order, through every op a random program reaches."""
    def checked(op, inputs, attrs, shape, dtype):
        assert shape == op.shape_rule([x.shape for x in inputs], **attrs), op.name
        assert dtype == op.dtype_rule([x.dtype for x in inputs], **attrs), op.name
        return derived_node(op, inputs, attrs, shape, dtype)
    floats = [x for x in program.xs if x.is_float]
    with pytest.MonkeyPatch.context() as patch, program.graph.as_default():
        for module in (elementwise, shape_ops, differentiate):
            patch.setattr(module, "derived_node", checked)
        grads = [g for g in sg.gradients(program.ys, floats, grad_ys=program.grad_ys)
                 if g is not None]
        if grads:   # second order: the rules again, over the first sweep's nodes
            sg.gradients([sg.reduce_sum(g * g) for g in grads], floats)
