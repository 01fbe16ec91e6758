"""Preaccumulation of 0-d reverse sweeps (``lower.preaccumulate``): each step of a
scalar chain multiplies its cotangent once, by a factor made of forward values only.

Values: against the reference evaluator (rounding only: 1e-12) and against the kernel
built without the rewrite; the strong-zero rule exactly (bit for bit with the
reference) where a partial on the way is 0 and the next one inf or NaN, and where
``where`` hides a NaN.
"""
import numpy as np
import pytest

import symgrad as sg
from symgrad.graph import Node
from symgrad.lower import program as lowering
from symgrad.lower.preaccumulate import preaccumulated
from symgrad.ops.elementwise import GENERIC

from .programs import sine_chain


def _strong(node):
    return isinstance(node, Node) and node.opdef is GENERIC and "strong" in node.attrs


def _below(node):
    seen, stack = set(), [node]
    while stack:
        n = stack.pop()
        if n not in seen:
            seen.add(n)
            stack.extend(n.inputs)
    return seen


def test_a_chain_step_multiplies_its_cotangent_once():
    steps = 12
    with sg.Graph().as_default():
        x = sg.placeholder(shape=(steps,), name="x")
        (g,) = sg.gradients(sine_chain(x, steps), x)
        (out,) = preaccumulated([g], [x])
    nodes = _below(out)
    products = [n for n in nodes if _strong(n)]
    cotangents = {n for n in products if _strong(n.inputs[n.attrs["strong"]])}
    # one product per step after the first is on the cotangent's chain ...
    assert len(cotangents) == steps - 2
    for n in cotangents:   # ... and its factor comes from forward values only
        (factor,) = [v for k, v in enumerate(n.inputs) if k != n.attrs["strong"]]
        assert not any(_strong(m) and m in cotangents for m in _below(factor))
    assert all(n.graph is not None and n not in n.graph.nodes
               for n in nodes if n.attrs.get("label") == "preaccumulated")


def _compile(build, monkeypatch=None):
    """``(evaluator, outputs, inputs)`` of the scalar program ``build(*placeholders)``."""
    with sg.Graph().as_default():
        xs = [sg.placeholder(shape=(), name=f"x{k}") for k in range(build.__code__.co_argcount)]
        y = build(*xs)
        outputs = [y] + sg.gradients(y, xs)
        if monkeypatch is not None:
            monkeypatch.setattr(lowering, "preaccumulated", lambda o, i=(): list(o))
        return sg.compile(outputs, xs, cache=False, wait=True), outputs, xs


def test_chain_values_against_the_reference_and_the_sweep_op_by_op(monkeypatch, rng):
    steps = 30
    with sg.Graph().as_default():
        x = sg.placeholder(shape=(steps,), name="x")
        y = sine_chain(x, steps)
        outputs = [y, sg.gradients(y, x)[0]]
        f = sg.compile(outputs, [x], cache=False, wait=True)
        monkeypatch.setattr(lowering, "preaccumulated", lambda o, i=(): list(o))
        plain = sg.compile(outputs, [x], cache=False, wait=True)
    assert "0.0 if" in f.source
    for v in [rng.uniform(-1, 1, steps) for _ in range(5)] + [np.zeros(steps)]:
        want = sg.evaluate(outputs, {x: v})
        for a, b, w in zip(f(v), plain(v), want):
            np.testing.assert_allclose(a, w, rtol=1e-12, atol=1e-12)
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


EDGES = [0.0, -0.0, 1.5, -2.0, np.inf, -np.inf, np.nan]


@pytest.mark.parametrize("build", [
    lambda t, s: sg.sqrt(t) * s,                 # s = 0: sqrt's partial at t = 0 is inf
    lambda t, s: sg.sqrt(t) * s + sg.sin(t) * s,
    lambda t, s: sg.log(sg.sin(t) * s) * s,
    lambda t, s: sg.where(t > 0.0, sg.log(t), 0.0) * s + sg.cos(s * t),
], ids=["sqrt", "sum", "log", "where"])
def test_strong_zero_rule_holds_exactly_at_the_edges(build):
    f, outputs, xs = _compile(build)
    for t in EDGES:
        for s in EDGES:
            want = sg.evaluate(outputs, {xs[0]: t, xs[1]: s})
            for got, w in zip(f(t, s), want):
                if np.isfinite(w) and w != 0:
                    assert got == pytest.approx(float(w), rel=1e-12), (t, s)
                else:   # 0, inf and NaN exactly as the sweep op by op gives them
                    np.testing.assert_array_equal(got, w, err_msg=f"t={t}, s={s}")
