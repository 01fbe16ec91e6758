"""Batching rules of ``cond``, ``while_loop`` and ``while_vjp`` (``control/batching.py``).

Oracles: each rule against the op applied seed by seed (``ops.batching.unrolled``)
by the reference evaluator, for every choice of batched inputs; a Hessian through a
loop against finite differences of its gradient, with a graph whose size does not
grow with the number of seeds; a condition that reads a batched value falls back to
the seed-by-seed form, and stays right.
"""
import itertools

import numpy as np
import pytest

import symgrad as sg
from symgrad.graph import ancestors
from symgrad.ops import REGISTRY
from symgrad.ops import batching

SIZE = 3


def _control_node(out, name):
    (node,) = [n for n in ancestors([out]) if n.opdef.name == name]
    return node


def _programs():
    """(name, the control node, which inputs may be batched) for each control op."""
    made = []
    a = sg.Variable(np.array([0.3, -0.2]), name="a")
    b = sg.Variable(np.array([0.5, 0.1]), name="b")
    c = sg.cond(sg.reduce_sum(a) > 0.0, lambda: a * b, lambda: sg.sin(a) - b)
    made.append(("cond", _control_node(c, "cond")))
    k, v = sg.while_loop(lambda k, v: k < 4, lambda k, v: (k + 1, v * sg.cos(b) + 0.1 * a),
                         [sg.constant(0), a])
    made.append(("while_loop", _control_node(v, "while_loop")))
    (g,) = sg.gradients(sg.reduce_sum(v * v), [b])
    made.append(("while_vjp", _control_node(g, "while_vjp")))
    return made


@pytest.fixture(scope="module")
def programs():
    with sg.Graph().as_default():
        yield _programs()


def _cases():
    with sg.Graph().as_default():
        for name, node in _programs():
            floats = [i for i, x in enumerate(node.inputs) if x.is_float]
            for count in range(1, len(floats) + 1):
                for which in itertools.combinations(floats, count):
                    yield name, which


@pytest.mark.parametrize("name,which", list(_cases()))
def test_control_op_batched_over_seeds_equals_seed_by_seed(programs, name, which, rng):
    (node,) = [n for k, n in programs if k == name]
    with node.graph.as_default():
        inputs = [sg.constant(rng.uniform(-0.5, 0.5, (SIZE,) + x.shape)) if i in which else x
                  for i, x in enumerate(node.inputs)]
        batched = [i in which for i in range(len(inputs))]
        got = REGISTRY[name].batch(node, inputs, batched, SIZE)   # the rule: no fallback
        assert got is not None and got.shape == (SIZE,) + node.shape
        made = [n for n in ancestors([got]) if n.opdef.name == name]
        assert len(made) == 1 and made[0] is not node   # one op over the batch
        want = batching.unrolled(node, inputs, batched, SIZE)
        np.testing.assert_allclose(sg.evaluate(got), sg.evaluate(want), rtol=1e-13,
                                   atol=1e-13)


def test_a_condition_reading_a_batched_value_is_applied_seed_by_seed(rng):
    with sg.Graph().as_default():
        v0 = sg.Variable(np.array([0.2, 0.4]), name="v0")
        (out,) = sg.while_loop(lambda v: sg.reduce_sum(v) < 3.0, lambda v: [v * 1.5 + 0.1], [v0])
        node = _control_node(out, "while_loop")
        starts = sg.constant(np.array([[0.2, 0.4], [1.0, 1.5], [2.9, 0.0]]))
        assert REGISTRY["while_loop"].batch(node, [starts], [True], 3) is None
        got = batching.batch_node(node, [starts], [True], 3)   # unrolled: each its own trips
        for k, start in enumerate(sg.evaluate(starts)):
            v, trips = start, 0
            while v.sum() < 3.0:
                v, trips = v * 1.5 + 0.1, trips + 1
            np.testing.assert_allclose(sg.evaluate(got)[k], np.append(v, trips), rtol=1e-14)


def _loop_loss(n):
    x = sg.placeholder(shape=(n,), name="x")
    w = sg.constant(np.linspace(0.5, 1.5, n))

    def body(i, acc):
        step = sg.cond(sg.reduce_sum(acc) > 0.0, lambda: sg.sin(acc * x), lambda: acc * x * w)
        return i + 1, acc + 0.2 * step
    _, y = sg.while_loop(lambda i, a: i < 4, body, [sg.constant(0), x * w])
    return x, sg.reduce_sum(y * y * w)


def test_hessian_through_loops_and_conds_is_one_batched_sweep(monkeypatch, rng):
    """The graph of the Hessian does not grow with the number of seeds (no op is
    unrolled), and it equals finite differences of the gradient."""
    unrolled = []
    real = batching.unrolled
    monkeypatch.setattr(batching, "unrolled", lambda node, *a: unrolled.append(node) or
                        real(node, *a))
    sizes = []
    for n in (3, 7):
        with sg.Graph().as_default():
            x, loss = _loop_loss(n)
            (h,) = sg.hessians(loss, x)
            sizes.append(len(ancestors([h])))
            if n == 3:
                (g,) = sg.gradients(loss, x)
                v = rng.uniform(-0.6, 0.6, n)
                fd = np.stack([(sg.evaluate(g, {x: v + 1e-6 * e}) -
                                sg.evaluate(g, {x: v - 1e-6 * e})) / 2e-6 for e in np.eye(n)])
                np.testing.assert_allclose(sg.evaluate(h, {x: v}), fd, rtol=1e-6, atol=1e-7)
                (hv,) = sg.hvp(loss, x, np.arange(1.0, n + 1))
                np.testing.assert_allclose(sg.evaluate(hv, {x: v}),
                                           sg.evaluate(h, {x: v}) @ np.arange(1.0, n + 1),
                                           rtol=1e-12)
    assert not unrolled
    assert sizes[0] == sizes[1]


def test_compiled_hessian_through_a_loop_equals_the_reference(rng):
    with sg.Graph().as_default():
        x, loss = _loop_loss(5)
        (h,) = sg.hessians(loss, x)
        (hs,) = sg.hessians(loss, x, sparse=True)
        f = sg.compile([loss, h, hs], [x])
        for _ in range(2):
            v = rng.uniform(-0.6, 0.6, 5)
            value, dense, sparse = f(v)
            want = sg.evaluate(h, {x: v})
            np.testing.assert_allclose(dense, want, rtol=1e-12, atol=1e-12)
            np.testing.assert_allclose(sparse.toarray(), want, rtol=1e-12, atol=1e-12)


def test_hessian_and_jacobian_through_nested_loops_and_a_cond(monkeypatch):
    unrolled = []
    real = batching.unrolled
    monkeypatch.setattr(batching, "unrolled", lambda node, *a: unrolled.append(node) or
                        real(node, *a))
    with sg.Graph().as_default():
        x = sg.placeholder(shape=(3,), name="x")

        def outer(i, a):
            def inner(j, b):
                return j + 1, b * sg.cos(a) + sg.sin(x * b)
            _, b = sg.while_loop(lambda j, b: j < 2, inner, [sg.constant(0), a])
            b = sg.cond(sg.reduce_sum(b) > 0, lambda: b * x, lambda: b - x ** 2)
            return i + 1, a + 0.3 * b
        _, y = sg.while_loop(lambda i, a: i < 3, outer, [sg.constant(0), x * 0.5])
        loss = sg.reduce_sum(y ** 2)
        (h,) = sg.hessians(loss, x)
        (g,) = sg.gradients(loss, x)
        jac = sg.jacobian(y, x)
        v = np.array([0.3, -0.2, 0.5])
        steps = [1e-6 * e for e in np.eye(3)]
        fd = np.stack([(sg.evaluate(g, {x: v + d}) - sg.evaluate(g, {x: v - d})) / 2e-6
                       for d in steps])
        np.testing.assert_allclose(sg.evaluate(h, {x: v}), fd, rtol=1e-6, atol=1e-7)
        fdj = np.stack([(sg.evaluate(y, {x: v + d}) - sg.evaluate(y, {x: v - d})) / 2e-6
                        for d in steps], axis=1)
        np.testing.assert_allclose(sg.evaluate(jac, {x: v}), fdj, rtol=1e-6, atol=1e-7)
    assert not unrolled
