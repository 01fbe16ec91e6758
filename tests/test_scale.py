"""Tracing, differentiation and evaluation are iterative: long chains hit no recursion limit."""

import numpy as np
import pytest

import symgrad as sg


@pytest.mark.parametrize("n", [1000, 10000])
def test_long_chain_traces_differentiates_and_evaluates(n):
    x = sg.Variable(0.1, name="x")
    f = x
    for _ in range(n):
        f = sg.sin(f) * 0.5 + x
    (g,) = sg.gradients(f, x)
    value = sg.evaluate(g)
    # forward-mode reference: d f_k = 0.5 cos(f_{k-1}) d f_{k-1} + 1
    fv, dv = 0.1, 1.0
    for _ in range(n):
        fv, dv = np.sin(fv) * 0.5 + 0.1, 0.5 * np.cos(fv) * dv + 1.0
    assert value == pytest.approx(dv, rel=1e-12)
