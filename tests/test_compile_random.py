"""Random programs: compiled value and gradients agree with the reference evaluator.

Each seed builds a batch of random expressions (unary and binary ops with
broadcasting, reductions, indexing, matmul) over three inputs and compiles them
all at once, with their gradients and two Hessians, so the test costs one compile
per seed.
"""
import os

import numpy as np
import pytest

import symgrad as sg

UNARY = [sg.sin, sg.cos, sg.tanh, sg.exp, sg.sigmoid, sg.softplus, sg.abs, sg.relu,
         sg.square, lambda t: sg.sqrt(sg.abs(t) + 0.5), lambda t: sg.log(sg.abs(t) + 1.0),
         lambda t: -t, lambda t: t[..., ::-1] if t.ndim else t]
BINARY = [lambda a, b: a + b, lambda a, b: a - b, lambda a, b: a * b,
          lambda a, b: a / (sg.abs(b) + 1.0), sg.maximum, sg.minimum,
          lambda a, b: sg.where(a > b, a, b * 2.0)]


def _random_expr(rng, leaves, depth):
    if depth == 0:
        return leaves[rng.integers(len(leaves))]
    kind = rng.integers(4)
    if kind == 0:
        return UNARY[rng.integers(len(UNARY))](_random_expr(rng, leaves, depth - 1))
    if kind == 1:
        a, b = _random_expr(rng, leaves, depth - 1), _random_expr(rng, leaves, depth - 1)
        try:
            np.broadcast_shapes(a.shape, b.shape)
        except ValueError:
            b = sg.reduce_sum(b)
        return BINARY[rng.integers(len(BINARY))](a, b)
    if kind == 2:
        t = _random_expr(rng, leaves, depth - 1)
        axis = int(rng.integers(t.ndim)) if t.ndim else None
        reduce = [sg.reduce_sum, sg.reduce_max, sg.reduce_prod][rng.integers(3)]
        return reduce(t, axis=axis, keepdims=bool(rng.integers(2)))
    t = _random_expr(rng, leaves, depth - 1)
    if t.ndim == 2:
        return sg.matmul(sg.matmul(t, sg.transpose(t)), t)
    return t * leaves[0][0, 1]


@pytest.mark.parametrize("seed", [0, 1, 2] if not os.environ.get("SYMGRAD_MANY_SEEDS")
                         else range(100))
def test_random_programs_match_reference(seed):
    rng = np.random.default_rng(seed)
    with sg.Graph().as_default():
        a = sg.placeholder(shape=(2, 3), name="a")
        b = sg.placeholder(shape=(3,), name="b")
        c = sg.placeholder(name="c")
        leaves = [a, b, c]
        fetches = []
        ys = []
        for _ in range(12):
            y = _random_expr(rng, leaves, int(rng.integers(1, 5)))
            ys.append(y)
            fetches.append(y)
            fetches += [g for g in sg.gradients(y, leaves) if g is not None]
        fetches += sg.hessians([sg.reduce_sum(y) for y in ys[:4]], [b, c])
        f = sg.compile(fetches, leaves)
        values = [rng.normal(size=(2, 3)), rng.normal(size=3), float(rng.normal())]
        expected = sg.evaluate(fetches, dict(zip(leaves, values)))
    got = f(*values)
    for node, g, e in zip(fetches, got, expected):
        np.testing.assert_allclose(g, e, rtol=1e-10, atol=1e-12, err_msg=node.name)
