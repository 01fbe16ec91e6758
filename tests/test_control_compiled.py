"""Compiled control flow against the reference evaluator.

One graph holds a cond, a data-dependent while_loop, a loop over a vector with a
captured matrix, and first and second derivatives through all of them; it compiles once for the module (kernels joined by Numba drivers) and is
compared with ``sg.evaluate`` at points on both sides of the branches.
"""
import numpy as np
import pytest

import symgrad as sg


def _model():
    x = sg.placeholder(name="x")
    v = sg.placeholder(shape=(2,), name="v")
    W = sg.constant(np.array([[0.5, -0.3], [0.2, 0.4]]), name="W")
    branch = sg.cond(x > 0, lambda: x * x * sg.reduce_sum(v), lambda: sg.sin(x) - v[0])
    doubled = sg.while_loop(lambda y: y < 10.0, lambda y: y * 2.0 + sg.tanh(x), x * x + 0.5)
    _, h = sg.while_loop(lambda k, h: k < 4, lambda k, h: (k + 1, sg.tanh(W @ h + x)), [0, v],
                         maximum_iterations=3)
    loss = branch * doubled + sg.reduce_sum(h * h)
    gx, gv = sg.gradients(loss, [x, v])
    (gxx,) = sg.gradients(sg.gradients(sg.reduce_sum(h), x)[0], x)  # second order: one loop
    return [loss, gx, gv, gxx, h], [x, v]


@pytest.fixture(scope="module")
def compiled():
    with sg.Graph().as_default():
        outputs, inputs = _model()
        return outputs, inputs, sg.compile(outputs, inputs)


@pytest.mark.parametrize("x0", [0.7, -0.4, 2.5])
def test_compiled_control_flow_matches_reference(compiled, x0):
    outputs, (x, v), f = compiled
    v0 = np.array([0.3, -0.8])
    got = f(x0, v0)
    want = sg.evaluate(outputs, feed_dict={x: x0, v: v0})
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g, dtype=float), np.asarray(w, dtype=float),
                                   rtol=1e-12, atol=1e-12)


def test_compiled_control_flow_batched_and_source(compiled):
    outputs, (x, v), f = compiled
    xs, vs = np.array([0.7, -0.4]), np.array([[0.3, -0.8], [1.0, 0.5]])
    batch = f.batched(xs, vs)
    for k in range(2):
        for b, one in zip(batch, f(xs[k], vs[k])):
            np.testing.assert_allclose(np.asarray(b)[k], one, rtol=1e-12, atol=1e-12)
    assert "while " in f.source and "if pred:" in f.source  # loops stay loops


def test_output_that_is_a_prefix_of_another_output_is_copied():
    # Regression (found by the kernels feeding control nodes): st[0] aliases the first
    # row of st's buffer; returning both must not write st into st[0]'s smaller array.
    v = sg.placeholder(shape=(2,), name="v")
    st = sg.stack([v, v * v, sg.sin(v)])
    outputs = [st[0], st * 2.0, st]
    f = sg.compile(outputs, [v])
    v0 = np.array([0.3, -0.8])
    for got, want in zip(f(v0), sg.evaluate(outputs, {v: v0})):
        np.testing.assert_array_equal(got, want)
    assert "r0[4 + i0]" not in f.source


_SECOND_PROCESS = """
import sys
from numba.core import event
import symgrad as sg
sys.path.insert(0, {tests!r})
from test_control_compiled import _model

compiled = []
class Seen(event.Listener):
    def on_start(self, ev):
        compiled.append(ev.data["dispatcher"].py_func.__name__)
    def on_end(self, ev):
        pass
event.register("numba:compile", Seen())
with sg.Graph().as_default():
    outputs, inputs = _model()
    f = sg.compile(outputs, inputs)
print(f(0.7, [0.3, -0.8])[0], sorted(set(compiled)))
"""


def test_a_second_process_loads_the_drivers_instead_of_compiling_them(compiled):
    # drivers are generated modules in the disk cache, as kernels are: before, each
    # process compiled every driver again (seconds for a Hessian through a loop)
    import os
    import pathlib
    import subprocess
    import sys
    outputs, (x, v), f = compiled
    module = sys.modules[f.jit.py_func.__module__]
    assert pathlib.Path(module.__file__).parent == pathlib.Path(os.environ["SYMGRAD_CACHE_DIR"])
    script = _SECOND_PROCESS.format(tests=str(pathlib.Path(__file__).parent))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=300, env=dict(os.environ))
    assert done.returncode == 0, done.stderr
    value, names = done.stdout.strip().split(" ", 1)
    assert float(value) == f(0.7, np.array([0.3, -0.8]))[0]
    assert names == "[]"   # nothing compiled: kernels, drivers and run all loaded


def test_long_loops_grow_their_tapes_and_keep_exact_gradients():
    # 40 iterations: the while_vjp driver's tape (16 rows at first) doubles twice,
    # for a vector, a matrix and a scalar loop var; captured tensors' cotangents add up
    with sg.Graph().as_default():
        v = sg.placeholder(shape=(3,), name="v")
        M = sg.placeholder(shape=(2, 2), name="M")
        s = sg.placeholder(name="s")
        _, a, b, c = sg.while_loop(
            lambda k, a, b, c: k < 40,
            lambda k, a, b, c: (k + 1, a + 0.02 * sg.sin(a * s), b + 0.01 * sg.tanh(b @ b),
                                c + 0.03 * sg.cos(c + sg.reduce_sum(a))),
            [0, v, M, s])
        loss = sg.reduce_sum(a * a) + sg.reduce_sum(b) * c
        grads = sg.gradients(loss, [v, M, s])
        f = sg.compile([loss] + grads, [v, M, s], wait=True)
        point = [np.array([0.3, -0.5, 0.9]), np.array([[0.2, -0.1], [0.4, 0.3]]), 0.7]
        got = f(*point)
        want = sg.evaluate([loss] + grads, feed_dict=dict(zip([v, M, s], point)))
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g, dtype=float), np.asarray(w, dtype=float),
                                   rtol=1e-12, atol=1e-12)
