"""Forward mode, Hessian-vector products and batched sweeps against oracles.

Registry-driven (every op, every example): the tangent of the op satisfies the
adjoint identity <u, J t> = <J^T u, t> with the reverse sweep's J^T u and matches
finite differences; batching an op over a seed axis equals applying it seed by
seed.  Random programs (tests/programs.py): jvp against finite differences and
against J t from ``jacobian``; hvp against H v from ``hessians`` and against
finite differences of the gradient.
"""
import numpy as np
import pytest
from hypothesis import assume, given

import symgrad as sg
from symgrad.ops import REGISTRY, apply
from symgrad.ops.batching import batch_node, batch_rule, unrolled

from .oracles import central_difference, example_values
from .programs import programs
from .test_properties import fd_gradient, seeds, stop_nodes

CASES = [(name, i) for name, op in sorted(REGISTRY.items()) for i in range(len(op.examples))]


def _build(name, i, rng):
    example = REGISTRY[name].examples[i]
    leaves = [sg.Variable(v, name=f"in{k}") for k, v in enumerate(example_values(example, rng))]
    return apply(name, leaves, **example.attrs), leaves


def _value(t, shape):
    return np.zeros(shape) if t is None else np.asarray(sg.evaluate(t), dtype=float)


@pytest.mark.parametrize("name,i", CASES)
def test_op_tangent_is_the_transpose_of_its_gradient(name, i, rng):
    out, leaves = _build(name, i, rng)
    floats = [x for x in leaves if x.is_float]
    if not out.is_float or not floats or out.dtype == np.float32:
        return
    shape = np.shape(sg.evaluate(out))   # (a size read from values: known when run)
    u = rng.normal(size=shape)
    ts = [rng.normal(size=x.shape) for x in floats]
    (tangent,) = sg.jvp(out, floats, ts)
    grads = sg.gradients(sg.reduce_sum(out * sg.constant(u, name="u")), floats)
    lhs = float(np.sum(u * _value(tangent, shape)))
    rhs = sum(float(np.sum(_value(g, x.shape) * t)) for g, x, t in zip(grads, floats, ts))
    np.testing.assert_allclose(lhs, rhs, rtol=1e-9, atol=1e-9, err_msg=name)
    if tangent is not None and name != "custom_gradient":  # and against a difference
        # quotient along the tangents (a custom gradient is not the derivative: by design)
        def along(eps):
            old = [x.value for x in floats]
            for x, t in zip(floats, ts):
                x.assign(x.value + eps * t)
            try:
                return np.asarray(sg.evaluate(out), dtype=float)
            finally:
                for x, v in zip(floats, old):
                    x.assign(v)
        fd = (along(1e-6) - along(-1e-6)) / 2e-6
        np.testing.assert_allclose(_value(tangent, out.shape), fd, rtol=1e-5, atol=1e-6,
                                   err_msg=name)


# Ops without a batching rule, and why; every other op must have one (a Hessian
# through an op without one grows with the number of seeds).
UNBATCHED = {
    "nonzero": "integer positions of a condition: no seed flows through it, and a condition "
               "per seed would give each seed its own count",
    "arange_of": "integers up to a computed count: no seed flows through it",
    "py_func": "a Python function (tf.py_func): how it treats a leading seed axis is "
               "unknown, so it is called for each seed in turn (the unrolled rule)",
    "eager_py_func": "a Python function (tf.py_function): called for each seed in turn",
}


def test_every_op_has_a_batching_rule_or_a_stated_reason():
    missing = {name for name, op in REGISTRY.items()
               if op.kind != "leaf" and batch_rule(op) is None}
    assert missing == set(UNBATCHED), "add a rule in ops/batching.py or a reason here"


def test_hessian_through_matrix_functions_is_right_and_constant_in_size():
    from symgrad.graph import ancestors
    counts, rng = [], np.random.default_rng(5)
    for k in (2, 4):
        with sg.Graph().as_default():
            x = sg.placeholder(shape=(k * k,), name="x")
            a = sg.reshape(x, (k, k)) + sg.constant(4.0 * np.eye(k))
            spd = sg.matmul(a, sg.transpose(a))
            f = sg.linalg.slogdet(spd)[1] + sg.reduce_sum(sg.linalg.inv(a)) + \
                sg.reduce_sum(sg.linalg.cholesky(spd)) + sg.linalg.det(a)
            (h,) = sg.hessians(f, x)
            counts.append(len(ancestors([h])))
            if k == 2:  # and the batched Hessian is right: against finite differences
                (g,) = sg.gradients(f, x)
                v = rng.uniform(-0.5, 0.5, k * k)
                fd = np.stack([(sg.evaluate(g, {x: v + 1e-6 * e}) -
                                sg.evaluate(g, {x: v - 1e-6 * e})) / 2e-6
                               for e in np.eye(k * k)])
                np.testing.assert_allclose(sg.evaluate(h, {x: v}), fd, rtol=1e-5, atol=1e-6)
    assert counts[0] == counts[1]


@pytest.mark.parametrize("name,i", CASES)
@pytest.mark.parametrize("which", ["all", "first"])
def test_op_batched_over_seeds_equals_seed_by_seed(name, i, which, rng):
    out, leaves = _build(name, i, rng)
    size = 3
    batched = [k == 0 or which == "all" for k in range(len(leaves))]
    example = REGISTRY[name].examples[i]
    draws = [example_values(example, rng) for _ in range(size)]  # from the op's domain
    inputs = [sg.constant(np.stack([np.asarray(d[k], dtype=x.dtype) for d in draws]))
              if b else x for k, (x, b) in enumerate(zip(leaves, batched))]
    rule = batch_rule(REGISTRY[name])
    if getattr(REGISTRY[name], "value_sized", False) and (rule is None or batched[1]):
        return   # a mask or condition per seed gives each seed its own size: unrolled
    if rule is None:  # (listed in UNBATCHED: unrolled by design)
        assert name in UNBATCHED
        rule = batch_node
    got = rule(out, inputs, batched, size)  # the rule itself: no silent fallback
    assert got is not None and got.shape == (size,) + out.shape, name
    expected = unrolled(out, inputs, batched, size)
    np.testing.assert_allclose(np.asarray(sg.evaluate(got), dtype=float),
                               np.asarray(sg.evaluate(expected), dtype=float),
                               rtol=1e-12, atol=1e-12, err_msg=name)


def _loss(p):
    return sum(sg.reduce_sum(y * s) for y, s in zip(p.ys, seeds(p)))


@given(programs(max_steps=5))
def test_jvp_is_the_adjoint_of_gradients_and_matches_jacobian(p):
    rng = np.random.default_rng(len(p.nodes))
    ts = [rng.normal(size=x.shape) for x in p.xs]
    tangents = sg.jvp(p.ys, p.xs, ts)
    grads = sg.gradients(p.ys, p.xs, grad_ys=p.grad_ys)
    lhs = sum(float(np.sum(s * _value(t, y.shape)))
              for s, t, y in zip(seeds(p), tangents, p.ys))
    rhs = sum(float(np.sum(_value(g, x.shape) * t)) for g, x, t in zip(grads, p.xs, ts))
    assume(np.isfinite(lhs) and np.isfinite(rhs))
    np.testing.assert_allclose(lhs, rhs, rtol=1e-8, atol=1e-8, err_msg=p.code)
    y, x = p.ys[0], p.leaves[0]
    J = sg.jacobian(y, x)
    (t0,) = sg.jvp(y, x, ts[0])
    assert (J is None) == (t0 is None)
    if J is not None:
        Jt = _value(J, y.shape + x.shape).reshape(y.size, x.size) @ np.ravel(ts[0])
        np.testing.assert_allclose(np.ravel(_value(t0, y.shape)), Jt, rtol=1e-8, atol=1e-8,
                                   err_msg=p.code)


@given(programs(max_steps=5))
def test_jvp_matches_finite_differences(p):
    x = p.leaves[0]
    assume(not stop_nodes(p) and fd_gradient(p, x, []) is not None)
    t = np.random.default_rng(7).normal(size=x.shape)
    loss = _loss(p)
    (d,) = sg.jvp(loss, x, t)

    def f(eps):
        old = x.value
        x.assign(old + eps * t)
        try:
            return float(sg.evaluate(loss))
        finally:
            x.assign(old)
    fd = (f(1e-6) - f(-1e-6)) / 2e-6
    np.testing.assert_allclose(float(_value(d, ())), fd, rtol=1e-4, atol=1e-5, err_msg=p.code)


@given(programs(max_steps=4))
def test_hvp_is_the_hessian_times_v_and_matches_finite_differences(p):
    x = p.leaves[0]
    assume(x.size <= 6 and not stop_nodes(p) and fd_gradient(p, x, []) is not None)
    loss = _loss(p)
    v = np.random.default_rng(3).normal(size=x.shape)
    (hv,) = sg.hvp(loss, x, v)
    (h,) = sg.hessians(loss, x)
    H = _value(h, x.shape * 2).reshape(x.size, x.size)
    assume(np.isfinite(H).all())
    np.testing.assert_allclose(np.ravel(_value(hv, x.shape)), H @ np.ravel(v), rtol=1e-8,
                               atol=1e-8, err_msg=p.code)
    (g,) = sg.gradients(loss, x, unconnected_gradients="zero")
    old = x.value
    try:
        x.assign(old + 1e-6 * v)
        hi = _value(g, x.shape)
        x.assign(old - 1e-6 * v)
        lo = _value(g, x.shape)
    finally:
        x.assign(old)
    assume(np.isfinite(hi).all() and np.isfinite(lo).all())
    np.testing.assert_allclose(_value(hv, x.shape), (hi - lo) / 2e-6, rtol=1e-3, atol=1e-4,
                               err_msg=p.code)


def test_jvp_conventions():
    a = sg.Variable(3.0, name="a")
    b = 2 * a
    # total derivatives as in gradients: a's tangent also reaches y through b
    (d,) = sg.jvp(a * b, [a, b], [1.0, 0.0])
    assert float(d.numpy()) == 12.0
    assert sg.jvp(sg.constant(1.0) + 0, a, 1.0) == [None]
    (z,) = sg.jvp(sg.constant([1.0, 2.0]) * 1, a, 1.0, unconnected_gradients="zero")
    assert np.asarray(z.numpy()).tolist() == [0.0, 0.0]
    # a tie in maximum moves with the first argument
    x, y = sg.Variable(1.0, name="x"), sg.Variable(1.0, name="y")
    assert [float(t.numpy()) for t in [sg.jvp(sg.maximum(x, y), [x, y], [1.0, 0.0])[0],
                                       sg.jvp(sg.maximum(x, y), [x, y], [0.0, 1.0])[0]]] \
        == [1.0, 0.0]
    # stop_gradient blocks the tangent; stop_gradients cut paths
    assert float(sg.jvp(x * sg.stop_gradient(x), x, 1.0)[0].numpy()) == 1.0
    assert sg.jvp(2 * x, x, 1.0, stop_gradients=[2 * x]) is not None


def test_jvp_bad_input_names_the_argument():
    x = sg.Variable([1.0, 2.0], name="x")
    with pytest.raises(sg.ShapeError, match="tangents\\[0\\]"):
        sg.jvp(x * x, x, np.ones(3))
    with pytest.raises(sg.ArgumentError, match="one tangent per x"):
        sg.jvp(x * x, [x, x], [np.ones(2)] * 3)
    with pytest.raises(sg.NotATensorError):
        sg.jvp(np.ones(2), x, np.ones(2))


def test_jacobian_forward_and_reverse_agree_with_finite_differences(rng):
    x = sg.Variable(rng.normal(size=(2, 2)), name="x")
    wide = sg.reduce_sum(sg.sin(x) * x, axis=0)  # y smaller than x: reverse
    tall = sg.concat([sg.reshape(x, (4,)), sg.reshape(sg.exp(x), (4,))], axis=0)  # forward
    for y in (wide, tall):
        J = np.asarray(sg.jacobian(y, x).numpy())
        assert J.shape == y.shape + x.shape
        for idx in np.ndindex(y.shape):
            def f(v, idx=idx):
                old = x.value
                x.assign(v)
                try:
                    return float(np.asarray(sg.evaluate(y))[idx])
                finally:
                    x.assign(old)
            np.testing.assert_allclose(J[idx], central_difference(f, x.value), rtol=1e-6,
                                       atol=1e-7)


def test_hessian_graph_is_a_constant_multiple_of_the_gradient_graph():
    from symgrad.graph import ancestors
    sizes = []
    for n in (5, 50):
        with sg.Graph().as_default():
            x = sg.placeholder(shape=(n,), name="x")
            f = sg.reduce_sum(100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)
            sizes.append(len(ancestors(sg.hessians(f, x))))
    assert sizes[0] == sizes[1]
