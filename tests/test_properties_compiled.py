"""Compiled evaluator vs the reference evaluator on random programs, scalar and batched.

Each example compiles (Numba), so this property draws fewer examples than the
others: a third of the active profile's ``max_examples``.
"""
import numpy as np
import pytest
from hypothesis import given, settings

import symgrad as sg

from .programs import programs

pytestmark = pytest.mark.skipif(not hasattr(sg, "compile"), reason="compiler not available")

FEW = max(3, settings.default.max_examples // 3)


def _outputs(p):
    grads = [g for g in sg.gradients(p.ys, p.leaves, grad_ys=p.grad_ys) if g is not None]
    return list(p.ys) + grads


@settings(max_examples=FEW)
@given(programs(max_steps=5, control=()))
def test_compiled_matches_reference(p):
    outputs = _outputs(p)
    f = sg.compile(outputs, p.leaves)
    got = f(*[leaf.value for leaf in p.leaves])
    expected = sg.evaluate(outputs)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(np.asarray(g, dtype=float), np.asarray(e, dtype=float),
                                   rtol=1e-12, atol=1e-12, equal_nan=True, err_msg=p.code)


@settings(max_examples=FEW)
@given(programs(max_steps=5, control=()))
def test_batched_matches_one_at_a_time(p):
    outputs = _outputs(p)
    f = sg.compile(outputs, p.leaves)
    rng = np.random.default_rng(0)
    batch = [np.stack([leaf.value + rng.uniform(-0.5, 0.5, leaf.shape) for _ in range(3)])
             for leaf in p.leaves]
    got = f.batched(*batch)
    for k in range(3):
        one = f(*[b[k] for b in batch])
        for g, e in zip(got, one):
            np.testing.assert_allclose(np.asarray(g)[k], np.asarray(e, dtype=float),
                                       rtol=1e-12, atol=1e-12, equal_nan=True, err_msg=p.code)
