"""Property tests on random programs (tests/programs.py) against independent oracles.

- gradients vs central finite differences, evaluated with the stopped tensors
  frozen at their values (that is what stopping means), skipping non-smooth points;
- the closed form vs ``sympy.diff`` of the fully inlined expression;
- laws: linearity in grad_ys, a list of ys sums, stop_gradients=xs gives partial
  derivatives, Hessians are symmetric, the Jacobian contracted with grad_ys is
  the gradient.
"""
import numpy as np
import sympy
from hypothesis import assume, given

import symgrad as sg
from symgrad.graph import ancestors
from symgrad.forms.symbolic import expand, leaf_symbols

from .programs import programs


def seeds(p):
    return p.grad_ys or [np.ones(y.shape) for y in p.ys]


def loss_value(p, feeds):
    values = sg.evaluate(p.ys, feed_dict=feeds)
    return float(sum(np.sum(s * np.asarray(v)) for s, v in zip(seeds(p), values)))


def stop_nodes(p):
    return [n for n in ancestors(p.ys) if n.opdef.name == "stop_gradient"]


def frozen_feeds(p, frozen):
    values = sg.evaluate(frozen)
    return {n: np.asarray(v) for n, v in zip(frozen, values)}


def fd_gradient(p, x, frozen, h=1e-6):
    """Central differences of the loss in x; None where the loss has a kink at this point."""
    base_feeds = frozen_feeds(p, [n for n in frozen if n is not x])
    x0 = np.array(sg.evaluate(x), dtype=float)
    f0 = loss_value(p, {**base_feeds, x: x0})
    grad = np.zeros_like(x0)
    for idx in np.ndindex(x0.shape):
        hi, lo = x0.copy(), x0.copy()
        hi[idx] += h
        lo[idx] -= h
        fh, fl = loss_value(p, {**base_feeds, x: hi}), loss_value(p, {**base_feeds, x: lo})
        forward, backward = (fh - f0) / h, (f0 - fl) / h
        if not np.isfinite([fh, fl, f0]).all() or \
                abs(forward - backward) > 1e-3 * (1 + abs(forward)):
            return None
        grad[idx] = (fh - fl) / (2 * h)
    return grad


def check_against_fd(p, grads, frozen_extra=()):
    for x, g in zip(p.xs, grads):
        expected = fd_gradient(p, x, stop_nodes(p) + list(frozen_extra))
        assume(expected is not None)
        got = np.zeros(x.shape) if g is None else np.asarray(sg.evaluate(g), dtype=float)
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5, err_msg=p.code)


@given(programs())
def test_gradients_match_finite_differences(p):
    grads = sg.gradients(p.ys, p.xs, grad_ys=p.grad_ys)
    check_against_fd(p, grads)


@given(programs())
def test_stop_gradients_of_xs_gives_partial_derivatives(p):
    grads = sg.gradients(p.ys, p.xs, grad_ys=p.grad_ys, stop_gradients=p.xs)
    check_against_fd(p, grads, frozen_extra=p.xs)


def _number(expr, subs):
    value = sympy.sympify(expr).xreplace(subs)
    return complex(sympy.N(value)).real


# Control flow's closed forms are Piecewise (cond, loops under a cap), and SymPy's
# piecewise_fold can take minutes on random nests of them; they are tested one by one
# in tests/test_control.py.
@given(programs(max_steps=4, control=()))
def test_closed_form_matches_sympy_diff_of_inlined_expression(p):
    leaves = [x for x in p.xs if x in p.leaves]
    # sympy.diff takes its own conventions at kinks (Heaviside(0) = 1/2, so a three-way
    # tie in Max gives 1.5 where TF shares the gradient): compare at smooth points only,
    # in every leaf.
    assume(all(fd_gradient(p, leaf, stop_nodes(p)) is not None for leaf in leaves))
    stops = stop_nodes(p)
    stop_syms = {n: np.vectorize(lambda i, n=n: sympy.Symbol(f"stop{n.id}_{i}", real=True),
                                 otypes=[object])(np.arange(n.size).reshape(n.shape))
                 for n in stops}
    inlined = expand(p.ys, substitute=stop_syms)
    total = sum(sympy.Add(*[sympy.sympify(s) * e for s, e in zip(np.ravel(seed), np.ravel(v))])
                for seed, v in zip(seeds(p), inlined))
    subs = {}
    for n, syms in list(stop_syms.items()):
        for sym, val in zip(np.ravel(syms), np.ravel(sg.evaluate(n))):
            subs[sym] = sympy.Float(float(val))
    for leaf in p.leaves:
        for sym, val in zip(np.ravel(leaf_symbols(leaf)), np.ravel(leaf.value)):
            subs[sym] = sympy.Float(float(val))
    grads = sg.gradients(p.ys, leaves, grad_ys=p.grad_ys)
    for leaf, g in zip(leaves, grads):
        expected = [_number(sympy.diff(total, s), subs) for s in np.ravel(leaf_symbols(leaf))]
        form = np.zeros(leaf.size) if g is None else np.ravel(np.array(
            sg.closed_form(g, simplify="none").tolist() if leaf.shape else
            [sg.closed_form(g, simplify="none")], dtype=object))
        got = [_number(e, subs) for e in form]
        np.testing.assert_allclose(got, expected, rtol=1e-7, atol=1e-9, err_msg=p.code)


def _value(g, shape):
    return np.zeros(shape) if g is None else np.asarray(sg.evaluate(g), dtype=float)


@given(programs())
def test_gradients_are_linear_in_grad_ys(p):
    rng = np.random.default_rng(len(p.nodes))
    u = [rng.normal(size=y.shape) for y in p.ys]
    v = [rng.normal(size=y.shape) for y in p.ys]
    w = [2 * a - 3 * b for a, b in zip(u, v)]
    gu, gv, gw = (sg.gradients(p.ys, p.xs, grad_ys=s) for s in (u, v, w))
    for x, a, b, c in zip(p.xs, gu, gv, gw):
        assert (a is None) == (b is None) == (c is None)
        np.testing.assert_allclose(_value(c, x.shape),
                                   2 * _value(a, x.shape) - 3 * _value(b, x.shape),
                                   rtol=1e-9, atol=1e-9, err_msg=p.code)


@given(programs())
def test_gradient_of_a_list_is_the_sum_of_gradients(p):
    together = sg.gradients(p.ys, p.xs)
    apart = [sg.gradients(y, p.xs) for y in p.ys]
    for i, x in enumerate(p.xs):
        parts = [a[i] for a in apart]
        assert (together[i] is None) == all(q is None for q in parts)
        np.testing.assert_allclose(_value(together[i], x.shape),
                                   sum(_value(q, x.shape) for q in parts),
                                   rtol=1e-9, atol=1e-9, err_msg=p.code)


@given(programs(max_steps=4))
def test_hessians_are_symmetric(p):
    x = p.leaves[0]
    assume(x.size <= 6 and fd_gradient(p, x, stop_nodes(p)) is not None)
    loss = sum(sg.reduce_sum(y * s) for y, s in zip(p.ys, seeds(p)))
    (h,) = sg.hessians(loss, x)
    H = np.asarray(sg.evaluate(h), dtype=float).reshape(x.size, x.size)
    assume(np.isfinite(H).all())
    np.testing.assert_allclose(H, H.T, rtol=1e-7, atol=1e-9, err_msg=p.code)


@given(programs(max_steps=4))
def test_jacobian_contracted_with_grad_ys_is_the_gradient(p):
    y, x = p.ys[0], p.leaves[0]
    seed = seeds(p)[0]
    J = sg.jacobian(y, x)
    (g,) = sg.gradients(y, x, grad_ys=seed)
    assert (J is None) == (g is None)
    if J is not None:
        Jv = np.asarray(sg.evaluate(J), dtype=float).reshape(y.size, x.size)
        np.testing.assert_allclose(np.ravel(seed) @ Jv, np.ravel(_value(g, x.shape)),
                                   rtol=1e-9, atol=1e-9, err_msg=p.code)
