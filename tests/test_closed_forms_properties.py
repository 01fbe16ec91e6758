"""Property: simplifying a closed form never changes its value (hypothesis-generated programs)."""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import symgrad as sg
from symgrad.ops.functions import numeric
from symgrad.forms.simplify import size

UNARY = ["sin", "cos", "tanh", "sigmoid", "softplus", "square", "exp", "atan"]
BINARY = ["add", "sub", "mul"]

programs = st.recursive(
    st.sampled_from(["x", "y", "c"]),
    lambda inner: st.one_of(st.tuples(st.sampled_from(UNARY), inner),
                            st.tuples(st.sampled_from(BINARY), inner, inner)),
    max_leaves=6)


def build(program, leaves):
    if isinstance(program, str):
        return leaves[program]
    op, *args = program
    return getattr(sg, op)(*[build(a, leaves) for a in args])


@settings(max_examples=40, deadline=None)
@given(program=programs, point=st.tuples(st.floats(-1, 1), st.floats(-1, 1)))
def test_auto_equals_raw_and_the_evaluator(program, point):
    with sg.Graph().as_default():
        x = sg.Variable(point[0], name="x")
        y = sg.Variable(point[1], name="y")
        leaves = {"x": x, "y": y, "c": sg.constant(0.5, name="c")}
        out = build(program, leaves) + x * y   # always connected to both
        (g,) = sg.gradients(out, x)
        raw = sg.closed_form(g, simplify="none")
        auto = sg.closed_form(g)
        assert size(auto) <= size(raw)
        syms = tuple(raw.free_symbols | auto.free_symbols | {sg.closed_form(x), sg.closed_form(y)})
        named = {"x": point[0], "y": point[1], "c": 0.5}
        values = {s: named[s.name] for s in syms}
        args = [values[s] for s in syms]
        want = float(sg.evaluate(g))
        np.testing.assert_allclose(numeric(raw, syms)(*args), want, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(numeric(auto, syms)(*args), want, rtol=1e-9, atol=1e-12)
