"""Compiled vs reference evaluator for every registry op example, value and gradient.

One compile per op (all its examples, values and gradients together), shared by the
op's cases through a module-scoped cache.  The oracle is ``sg.evaluate``.
"""
import numpy as np
import pytest

import symgrad as sg
from symgrad.errors import CompileError
from symgrad.ops import REGISTRY, apply

from .oracles import example_values

# sizes read from values (ops.valued): sg.compile refuses them (tested below)
VALUE_SIZED = sorted(n for n, op in REGISTRY.items() if getattr(op, "value_sized", False))
OPS = sorted(n for n, op in REGISTRY.items() if op.examples and n not in VALUE_SIZED)


def _build(name, rng):
    """Every example of op ``name``: outputs, their gradients, leaves and leaf values."""
    graph = sg.Graph()
    with graph.as_default():
        leaves, values, fetches = [], [], []
        for i, example in enumerate(REGISTRY[name].examples):
            ins = []
            for k, v in enumerate(example_values(example, rng)):
                ins.append(sg.placeholder(dtype=v.dtype, shape=v.shape, name=f"e{i}_in{k}"))
                values.append(v)
            leaves += ins
            out = apply(name, ins, **example.attrs)
            fetches.append(out)
            if out.is_float:
                u = sg.constant(rng.normal(size=out.shape), name=f"u{i}")
                fetches += [g for g in sg.gradients(out, ins, grad_ys=u) if g is not None]
    return graph, fetches, leaves, values


@pytest.fixture(scope="module")
def compiled():
    cache = {}

    def get(name):
        if name not in cache:
            rng = np.random.default_rng(99)
            graph, fetches, leaves, values = _build(name, rng)
            with graph.as_default():
                f = sg.compile(fetches, leaves)
                expected = sg.evaluate(fetches, dict(zip(leaves, values)))
            cache[name] = (f, fetches, values, expected)
        return cache[name]
    return get


def assert_matches_reference(name, fetches, got, expected):
    """Values (float32 to 1e-5, else 1e-12), shapes and array dtypes of an op's outputs."""
    assert len(got) == len(expected)
    for node, g, e in zip(fetches, got, expected):
        rtol = 1e-5 if node.dtype == np.float32 else 1e-12
        assert np.shape(g) == np.shape(e), node.name
        np.testing.assert_allclose(np.asarray(g, dtype=float), np.asarray(e, dtype=float),
                                   rtol=rtol, atol=1e-12, err_msg=f"{name}: {node.name}")
        if node.shape:
            assert g.dtype == node.dtype, node.name


@pytest.mark.parametrize("name", OPS)
def test_compiled_op_matches_reference(name, compiled):
    f, fetches, values, expected = compiled(name)
    assert_matches_reference(name, fetches, f(*values), expected)


@pytest.mark.parametrize("name", OPS)
def test_compiled_op_batched_matches_loop(name, compiled):
    f, fetches, values, expected = compiled(name)
    batch = [np.stack([v, v]) for v in values]
    got = f.batched(*batch)
    for node, g, e in zip(fetches, got, expected):
        for b in range(2):
            np.testing.assert_allclose(np.asarray(g[b], dtype=float), np.asarray(e, dtype=float),
                                       rtol=1e-5 if node.dtype == np.float32 else 1e-12,
                                       atol=1e-12, err_msg=f"{name}: {node.name}")


@pytest.mark.parametrize("name", VALUE_SIZED)
def test_ops_with_sizes_read_from_values_are_refused_with_what_to_do(name, rng):
    example = REGISTRY[name].examples[0]
    with sg.Graph().as_default():
        leaves = [sg.Variable(v, name=f"in{k}")
                  for k, v in enumerate(example_values(example, rng))]
        out = apply(name, leaves, **example.attrs)
        with pytest.raises(CompileError, match="read from values.*sg.evaluate"):
            sg.compile(out, [])
