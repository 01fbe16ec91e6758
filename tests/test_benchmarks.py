"""The benchmark's workloads agree across tools (cheap checks; no timing).

Each hand-written kernel (run as plain Python through ``.py_func``, so nothing is
compiled) and each sympy expression must give the value and gradient that
symgrad's reference evaluator gives for the tensor program, and both must match
central finite differences.  The benchmark command itself is not run here.
"""
import numpy as np
import pytest

import symgrad as sg
from benchmarks import hand, workloads

SMALL = ["rosen2", "rosen10", "chain10", "chain50", "mlp", "lj8"]


def reference_function(workload):
    """point -> (value, gradient) by the reference evaluator of the symgrad program."""
    x = sg.placeholder(shape=(workload.n,), name="x")
    loss = workloads.symgrad_loss(workload, sg, x)
    outputs = [loss, sg.gradients(loss, x)[0]]

    def run(point):
        value, grad = sg.evaluate(outputs, {x: point})
        return float(value), np.asarray(grad)
    return run


def reference(workload, point):
    return reference_function(workload)(point)


@pytest.mark.parametrize("name", SMALL)
def test_hand_kernel_matches_reference(name):
    w = workloads.get(name)
    kernel = getattr(hand, f"{w.kind}_vg").py_func
    for point in w.points(2, seed=5):
        X, G = point[None, :].copy(), np.empty((1, w.n))
        value = kernel(X, G, 0)
        ref_value, ref_grad = reference(w, point)
        np.testing.assert_allclose(value, ref_value, rtol=1e-12)
        np.testing.assert_allclose(G[0], ref_grad, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", SMALL)
def test_reference_matches_finite_differences(name):
    w = workloads.get(name)
    point, run = w.sample(), reference_function(w)
    _, grad = run(point)
    eps = 1e-6
    fd = [(run(point + eps * e)[0] - run(point - eps * e)[0]) / (2 * eps) for e in np.eye(w.n)]
    np.testing.assert_allclose(grad, fd, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", ["rosen2", "chain10", "lj8"])
def test_sympy_expression_matches_reference(name):
    import sympy
    w = workloads.get(name)
    xs = sympy.symbols(f"x0:{w.n}")
    expr = workloads.sympy_expr(w, sympy, xs)
    f = sympy.lambdify([xs], [expr] + [sympy.diff(expr, s) for s in xs])
    point = w.sample()
    out = f(point)
    ref_value, ref_grad = reference(w, point)
    np.testing.assert_allclose(out[0], ref_value, rtol=1e-12)
    np.testing.assert_allclose(np.array(out[1:], float), ref_grad, rtol=1e-10, atol=1e-12)


def test_lj_points_keep_particles_apart():
    w = workloads.get("lj8")
    i, j = workloads.lj_pairs()
    for point in w.points(20):
        pos = point.reshape(8, 3)
        assert np.linalg.norm(pos[i] - pos[j], axis=1).min() > 0.8


def test_throughput_is_timed_after_full_size_warm_up(monkeypatch):
    """Each batch function runs WARM_BATCHES times at its timed size before the rounds
    (the first calls of a size pay page faults and adaptive choices), and only the
    rounds are timed."""
    from benchmarks import timing
    monkeypatch.setattr(timing.time, "sleep", lambda s: None)
    calls = []

    def batch(X):
        calls.append(len(X))
    X = np.zeros((5000, 2))
    rates = timing.interleaved_throughput({"a": batch}, X, rounds=4)
    full = [n for n in calls if n == len(X)]
    assert len(full) == timing.WARM_BATCHES + 4
    assert calls[:2] == [1000, 1000] and calls[2:] == full
    assert rates["a"][1] == len(X) and rates["a"][0] > 0


def test_threaded_batches_wait_for_other_threads_to_settle(monkeypatch):
    """Each timed threaded batch waits SETTLE_SECONDS first (spinning OpenMP threads of
    the tool timed before it would take its cores); serial batches do not."""
    from benchmarks import timing
    events = []
    monkeypatch.setattr(timing.time, "sleep", lambda s: events.append(("sleep", s)))

    def fn(name):
        return lambda X: events.append((name, len(X)))
    X = np.zeros((2000, 2))
    timing.interleaved_throughput({"s": fn("s"), "t": fn("t")}, X, rounds=3, threaded=["t"])
    timed = events[events.index(("sleep", 0.5), events.index(("sleep", 0.5)) + 1) + 1:]
    assert timed == [("sleep", timing.SETTLE_SECONDS), ("t", len(X))] * 3
    serial = events[:events.index(("sleep", 0.5))]
    assert ("sleep", timing.SETTLE_SECONDS) not in serial


def test_tf1_training_programs_run_in_a_session():
    # the TF1 training benchmark's smallest program, two steps in a fresh process
    import sys

    from benchmarks import tf1_training
    first, step = tf1_training.run("symgrad", "mlp", 2, sys.executable)
    assert first > 0 and step > 0
