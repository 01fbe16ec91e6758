"""cond / while_loop / map_fn / scan: values, SEMANTICS.md's gradient rules, finite differences.

Oracles: finite differences of the reference evaluator (first, second and third
order through loops), hand-derived values where the maths is short, TF's
documented behaviour (zeros for the branch not taken, none for pred and integer
counters, back_prop=False makes a constant).
"""
import numpy as np
import pytest
import sympy

import symgrad as sg
from symgrad.errors import DtypeError, GraphError, NoClosedFormError, ShapeError

from .oracles import central_difference


def fd(f, x0, h=1e-6):
    return central_difference(f, x0, h)


def value_at(y, x, v):
    return float(np.sum(sg.evaluate(y, feed_dict={x: v})))


def grad_at(y, x, v):
    (g,) = sg.gradients(y, x)
    return np.asarray(sg.evaluate(g, feed_dict={x: v}), dtype=float)


def euler(x, c, steps):
    """dy/dt = -c * y * sin(y) + x integrated with Euler steps of 0.1."""
    return sg.while_loop(lambda k, y: k < steps,
                         lambda k, y: (k + 1, y + 0.1 * (-c * y * sg.sin(y) + x)), [0, x])[1]


@pytest.fixture
def graph():
    with sg.Graph().as_default() as g:
        yield g


def test_while_gradient_matches_finite_differences_to_third_order(graph):
    x = sg.placeholder(name="x")
    c = sg.constant(0.8, name="c")
    y = euler(x, c, 7)
    (g1,) = sg.gradients(y, x)
    (g2,) = sg.gradients(g1, x)
    (g3,) = sg.gradients(g2, x)
    x0 = 0.4
    np.testing.assert_allclose(value_at(g1, x, x0), fd(lambda v: value_at(y, x, v), x0),
                               rtol=1e-6)
    np.testing.assert_allclose(value_at(g2, x, x0), fd(lambda v: value_at(g1, x, v), x0),
                               rtol=1e-6)
    np.testing.assert_allclose(value_at(g3, x, x0), fd(lambda v: value_at(g2, x, v), x0),
                               rtol=1e-5)


def test_captured_tensor_gets_the_sum_over_iterations(graph):
    c = sg.Variable(1.5, name="c")
    i, s = sg.while_loop(lambda i, s: i < 4, lambda i, s: (i + 1, s + c * c), [0, 0.0])
    assert float(sg.gradients(s, c)[0].numpy()) == pytest.approx(4 * 2 * 1.5)


def test_gradient_of_vector_loop_vars_and_captured_matrix(graph):
    W = sg.Variable(np.array([[0.5, -0.3], [0.2, 0.4]]), name="W")
    v = sg.placeholder(shape=(2,), name="v")
    _, h = sg.while_loop(lambda k, h: k < 3, lambda k, h: (k + 1, sg.tanh(W @ h + 0.1)), [0, v])
    loss = sg.reduce_sum(h * h)
    gW, gv = sg.gradients(loss, [W, v])
    v0 = np.array([0.3, -0.7])
    w0 = W.value.copy()

    def with_w(wv):
        W.assign(wv)
        return value_at(loss, v, v0)
    expected_w = fd(with_w, w0)
    W.assign(w0)
    np.testing.assert_allclose(sg.evaluate(gW, feed_dict={v: v0}), expected_w, rtol=1e-6)
    np.testing.assert_allclose(grad_at(loss, v, v0), fd(lambda u: value_at(loss, v, u), v0),
                               rtol=1e-6)
    # Hessian-vector products through the loop: second order in a vector var
    (h_v,) = sg.hessians(loss, v)
    rows = [fd(lambda u, j=j: grad_at(loss, v, u)[j], v0, 1e-5) for j in range(2)]
    np.testing.assert_allclose(sg.evaluate(h_v, feed_dict={v: v0}), np.array(rows), rtol=1e-5,
                               atol=1e-8)


def test_data_dependent_trip_count_and_maximum_iterations(graph):
    x = sg.Variable(1.1, name="x")
    # doubles until above 10: 1.1 -> 2.2 -> 4.4 -> 8.8 -> 17.6, four trips
    y = sg.while_loop(lambda y: y < 10.0, lambda y: y * 2.0, x)
    assert float(y.numpy()) == pytest.approx(17.6)
    assert float(sg.gradients(y, x)[0].numpy()) == pytest.approx(16.0)
    capped = sg.while_loop(lambda y: y < 10.0, lambda y: y * 2.0, x, maximum_iterations=2)
    assert float(capped.numpy()) == pytest.approx(4.4)
    assert float(sg.gradients(capped, x)[0].numpy()) == pytest.approx(4.0)
    none = sg.while_loop(lambda y: y < 0.0, lambda y: y * 2.0, x)
    assert float(sg.gradients(none, x)[0].numpy()) == 1.0  # zero trips: x_T = x_0


def test_back_prop_false_makes_the_loop_a_constant(graph):
    x = sg.Variable(2.0, name="x")
    y = sg.while_loop(lambda y: y < 10.0, lambda y: y * x, x, back_prop=False)
    assert sg.gradients(y, x) == [None]
    assert float(sg.gradients(y, x, unconnected_gradients="zero")[0].numpy()) == 0.0
    assert float(sg.gradients(y + x, x)[0].numpy()) == 1.0


def test_integer_loop_counters_carry_no_gradient(graph):
    n = sg.constant(3, name="n")
    x = sg.Variable(1.0, name="x")
    i, y = sg.while_loop(lambda i, y: i < 5, lambda i, y: (i + n, y * 3.0), [n, x])
    assert sg.gradients(sg.cast(i, "float64") + y, [n, x])[0] is None
    assert float(sg.gradients(y, x)[0].numpy()) == 3.0  # 3 -> 6: one trip


def test_cond_takes_one_branch_other_captures_get_zeros_pred_gets_none(graph):
    x = sg.Variable(-2.0, name="x")
    a = sg.Variable(3.0, name="a")
    b = sg.Variable(5.0, name="b")
    y = sg.cond(x > 0, lambda: a * x, lambda: b * x * x)
    ga, gb, gx = sg.gradients(y, [a, b, x])
    assert float(y.numpy()) == 20.0
    assert ga is not None and float(ga.numpy()) == 0.0  # captured by the branch not taken
    assert float(gb.numpy()) == 4.0 and float(gx.numpy()) == -20.0
    x.assign(2.0)
    assert [float(g.numpy()) for g in (ga, gb, gx)] == [2.0, 0.0, 3.0]
    p = x > 0
    assert sg.gradients(y, p) == [None]


def test_cond_leaks_no_nan_from_the_branch_not_taken(graph):
    x = sg.Variable(0.0, name="x")
    y = sg.cond(x > 0, lambda: sg.log(x), lambda: x * 0.0 + 1.0)
    (g,) = sg.gradients(y, x)
    assert float(y.numpy()) == 1.0 and float(g.numpy()) == 0.0


def test_cond_second_order_and_nested_in_a_loop(graph):
    x = sg.placeholder(name="x")

    def body(k, y):
        return k + 1, sg.cond(y > 0.5, lambda: y * y * 0.8, lambda: sg.sin(y) + x)
    y = sg.while_loop(lambda k, y: k < 5, body, [0, x])[1]
    (g,) = sg.gradients(y, x)
    (h,) = sg.gradients(g, x)
    for x0 in (0.3, 0.9, -0.4):
        np.testing.assert_allclose(value_at(g, x, x0), fd(lambda v: value_at(y, x, v), x0),
                                   rtol=1e-6)
        np.testing.assert_allclose(value_at(h, x, x0), fd(lambda v: value_at(g, x, v), x0),
                                   rtol=1e-5)


def test_nested_while_loops_capture_through_two_levels(graph):
    x = sg.placeholder(name="x")

    def outer(i, s):
        inner = sg.while_loop(lambda j, t: j < i, lambda j, t: (j + 1, t * x + 1.0), [0, s])
        return i + 1, inner[1]
    s = sg.while_loop(lambda i, s: i < 3, outer, [0, x])[1]
    np.testing.assert_allclose(value_at(sg.gradients(s, x)[0], x, 0.7),
                               fd(lambda v: value_at(s, x, v), 0.7), rtol=1e-6)


def test_map_fn_and_scan_values_and_gradients(graph):
    m = sg.placeholder(shape=(3, 2), name="m")
    c = sg.Variable(0.7, name="c")
    rows = sg.map_fn(lambda r: sg.reduce_sum(sg.sin(r) * c), m)
    cum = sg.scan(lambda acc, r: acc * c + r * r, m)
    m0 = np.array([[0.1, 0.2], [0.3, -0.4], [0.5, 0.6]])
    np.testing.assert_allclose(sg.evaluate(rows, {m: m0}), np.sin(m0).sum(1) * 0.7)
    expected, acc = [], m0[0]
    for r in m0:
        acc = r if not expected else acc * 0.7 + r * r
        expected.append(acc)
    np.testing.assert_allclose(sg.evaluate(cum, {m: m0}), np.array(expected))
    for y in (rows, cum):
        loss = sg.reduce_sum(y * y)
        np.testing.assert_allclose(grad_at(loss, m, m0), fd(lambda v: value_at(loss, m, v), m0),
                                   rtol=1e-6, atol=1e-9)


def test_closed_forms_piecewise_and_unrolled_series(graph):
    x = sg.Variable(0.5, name="x")
    y = sg.cond(x > 0, lambda: x * x, lambda: -x)
    assert str(sg.closed_form(y)) == "Piecewise((x**2, x > 0), (-x, True))"
    _, s, _ = sg.while_loop(lambda k, s, t: k < 4,
                            lambda k, s, t: (k + 1, s + t, t * x), [0, 0.0, 1.0])
    assert str(sg.closed_form(s)) == "x**3 + x**2 + x + 1"
    assert str(sg.closed_form(sg.gradients(s, x)[0])) == "3*x**2 + 2*x + 1"


def test_bad_input_gives_clear_errors(graph):
    x = sg.Variable(1.0, name="x")
    v = sg.Variable(np.ones(2), name="v")
    with pytest.raises(ShapeError, match="keep every shape"):
        sg.while_loop(lambda y: y < 3.0, lambda y: sg.stack([y, y]), x)
    with pytest.raises(DtypeError, match="scalar boolean"):
        sg.cond(x, lambda: x, lambda: x)
    with pytest.raises(DtypeError, match="scalar boolean"):
        sg.while_loop(lambda y: y, lambda y: y, x)
    with pytest.raises(ShapeError):
        sg.cond(x > 0, lambda: x, lambda: v)
    with pytest.raises(ValueError, match="maximum_iterations"):
        sg.while_loop(lambda y: y < 3.0, lambda y: y, x, maximum_iterations=-1)
    leaked = []
    sg.cond(x > 0, lambda: leaked.append(x * 2) or x, lambda: x)
    with pytest.raises(GraphError, match="inside a cond branch or a loop body"):
        leaked[0] + x


def test_data_dependent_loops_piecewise_under_a_cap_else_the_recurrence(graph):
    x = sg.Variable(1.1, name="x")
    y = sg.while_loop(lambda y: y < 10.0, lambda y: y * 2.0, x, maximum_iterations=2)
    (g,) = sg.gradients(y, x)
    forms = [sg.closed_form(t, simplify="none") for t in (y, g)]
    assert all(f.has(sympy.Piecewise) for f in forms)
    sym = sympy.Symbol("x", real=True)
    for v in (1.1, 3.0, 7.0, 12.0):  # two, one, one and zero trips
        x.assign(v)
        for f, t in zip(forms, (y, g)):
            assert float(f.subs(sym, v)) == pytest.approx(float(t.numpy()))
    free = sg.while_loop(lambda y: y < 10.0, lambda y: y * 2.0 + x, x)
    text = str(free)
    assert "no finite closed form" in text and "y_(k+1) = x + 2*y_k" in text
    with pytest.raises(NoClosedFormError, match="trip count is unknown"):
        sg.closed_form(free)
    assert "no finite closed form" in str(sg.gradients(free, x)[0])


def test_jvp_and_hvp_through_cond_and_loops(graph):
    v = sg.placeholder(shape=(2,), name="v")
    W = sg.constant(np.array([[0.5, -0.3], [0.2, 0.4]]), name="W")
    _, h = sg.while_loop(lambda k, h: k < 3, lambda k, h: (k + 1, sg.tanh(W @ h + 0.1)), [0, v])
    y = sg.cond(sg.reduce_sum(h) > 0, lambda: sg.reduce_sum(h * h), lambda: sg.reduce_sum(h))
    v0, t0 = np.array([0.3, -0.7]), np.array([1.0, 0.5])
    for v1 in (v0, -v0):  # both branches
        (t,) = sg.jvp(y, v, t0)
        (g,) = sg.gradients(y, v)
        expected = fd(lambda u: value_at(y, v, u), v1) @ t0
        assert value_at(t, v, v1) == pytest.approx(expected, rel=1e-6)
        (hv,) = sg.hvp(y, v, t0)
        rows = fd(lambda u: value_at(sg.reduce_sum(g * t0), v, u), v1, 1e-5)
        np.testing.assert_allclose(sg.evaluate(hv, {v: v1}), rows, rtol=1e-5, atol=1e-8)


def test_a_capped_loop_conditions_its_steps_on_plain_iterates(graph):
    # each guard is read on the iterate the loop reaches when every guard before it
    # held, never on the piecewise iterate: no condition holds a Piecewise (nested
    # ones made a 3-step loop's value take 14 s to print and its gradient 25 s)
    v = sg.Variable(0.4, name="v")
    start = sg.stack([v, 2 * v, v ** 2])
    y = sg.while_loop(lambda s: sg.reduce_sum(s) < 4.0,
                      lambda s: s * 1.2 + 0.3 * sg.tanh(sg.reduce_mean(start)), start,
                      maximum_iterations=4)
    loss = sg.reduce_sum(y * np.array([0.3, -1.2, 0.7]))
    (g,) = sg.gradients(loss, v)
    (h,) = sg.hessians(loss, v)
    forms = [sg.closed_form(t, simplify="none") for t in (loss, g, h)]
    for f in forms:
        for p in f.atoms(sympy.Piecewise):
            assert not any(c.has(sympy.Piecewise) for _, c in p.args)
    sym = sympy.Symbol("v", real=True)
    for value in (0.3, 0.55, 0.7, 0.85, 1.3):       # four, three, two, one, no trips
        v.assign(value)
        for f, t in zip(forms, (loss, g, h)):
            assert float(f.subs(sym, value)) == pytest.approx(float(t.numpy()), rel=1e-12)


def test_a_capped_loop_with_a_kinked_body_prints_forms_equal_to_its_numbers(graph):
    # the body takes a maximum: each iterate's Max holds the last one twice, and SymPy's
    # Max construction and piecewise_fold walked those trees whole (8 steps of a
    # 3-vector: 128 s to print the value, minutes for the gradient)
    x = sg.Variable(np.array([0.2, -0.4, 0.3]), name="x")
    trips, y = sg.while_loop(lambda i, s: sg.reduce_sum(s * s) < 6.0,
                             lambda i, s: (i + 1, sg.maximum(s * 1.5, sg.sin(s)) + 0.1),
                             [sg.constant(0), x], maximum_iterations=6)
    starts = ([0.2, -0.4, 0.3], [1.0, 0.5, -0.7], [-2.0, 0.1, 0.4], [0.05, 0.02, 0.01])
    _forms_equal_numbers(x, sg.reduce_sum(y * np.array([0.3, -1.2, 0.7])), starts)
    counts = set()
    for start in starts:
        x.assign(np.array(start))
        counts.add(int(trips.numpy()))
    assert len(counts) >= 3                  # the points take different numbers of trips


def _forms_equal_numbers(x, loss, starts):
    """The closed forms of ``loss`` and its gradient in x (not simplified) equal their
    numbers at each start; returns the forms."""
    (g,) = sg.gradients(loss, x)
    forms = [sg.closed_form(loss, simplify="none"), sg.closed_form(g, simplify="none")]
    symbols = {s.name: s for f in forms for s in f.free_symbols}
    for start in starts:
        x.assign(np.array(start))
        at = {symbols[f"x[{k}]"]: v for k, v in enumerate(start) if f"x[{k}]" in symbols}
        assert float(forms[0].subs(at)) == pytest.approx(float(loss.numpy()), rel=1e-12)
        got = np.array(forms[1].subs(at), dtype=float).ravel()
        np.testing.assert_allclose(got, g.numpy(), rtol=1e-12)
    return forms


def test_conditions_on_kinked_iterates_hold_no_piecewise(graph):
    # the guards read iterates of a body with where/abs: each comparison's Piecewises are
    # taken out as ITE once (SymPy refolded them through set solving whenever it paired
    # a condition with a branch: this loop's Hessian took 30 s to print at 3 steps)
    x = sg.Variable(np.array([0.3, -0.2, 0.5]), name="x")
    y = sg.while_loop(lambda s: sg.reduce_sum(s * s) < 6.0,
                      lambda s: sg.where(s > 0.1, s * 1.5, sg.abs(s)) + 0.1, x,
                      maximum_iterations=3)
    forms = _forms_equal_numbers(x, sg.reduce_sum(y * np.array([0.3, -1.2, 0.7])),
                                 ([0.3, -0.2, 0.5], [1.0, 0.05, -0.7], [-2.0, 0.1, 0.4],
                                  [0.05, 0.02, 0.2]))
    for f in forms:
        for p in f.atoms(sympy.Piecewise):
            assert not any(c.has(sympy.Piecewise) for _, c in p.args)


def test_captured_cotangents_summed_in_place_stay_right_run_after_run():
    # the reverse sweep sums a captured weight's cotangent over the steps in one array
    # of its own: the sum is right, and a second run (or another loop reading the
    # same zeros) starts again from zero
    w = sg.placeholder(shape=(3, 4), name="w")
    x0 = sg.constant(np.ones(3))

    def body(i, x):
        return i + 1, sg.tanh(sg.matmul(x[None, :], w))[0, :3] + x * 0.5

    _, x = sg.while_loop(lambda i, x: i < 5, body, [sg.constant(0), x0])
    (g,) = sg.gradients(sg.reduce_sum(x), w)
    (g2,) = sg.gradients(sg.reduce_sum(x * x), w)
    v = np.linspace(-0.5, 0.5, 12).reshape(3, 4)
    first, again, other = (sg.evaluate(t, {w: v}) for t in (g, g, g2))
    np.testing.assert_array_equal(first, again)

    def unrolled(vv):
        xx = np.ones(3)
        for _ in range(5):
            xx = np.tanh(xx @ vv)[:3] + xx * 0.5
        return xx

    eps = 1e-6
    fd = np.zeros_like(v)
    for k in np.ndindex(v.shape):
        dv = np.zeros_like(v)
        dv[k] = eps
        fd[k] = (unrolled(v + dv).sum() - unrolled(v - dv).sum()) / (2 * eps)
    np.testing.assert_allclose(first, fd, rtol=1e-6, atol=1e-8)
    assert not np.allclose(other, first)
