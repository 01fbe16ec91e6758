"""sg.compile answers at once: the cheap tier (numpy over the graph) while the machine
code is built in the background, then exactly the compiled evaluator.

The background worker is held (``held`` fixture: a build queued first that waits on
an event), so what the cheap tier answers is tested deterministically; the oracles
are the reference evaluator (every registry op, random programs) and the machine
code itself (after ``f.wait()``).
"""
import logging
import pickle
import threading

import numpy as np
import pytest
from hypothesis import given, settings

import symgrad as sg
from symgrad.compiler import Evaluator, PendingEvaluator
from symgrad.errors import CompileError
from symgrad.graph import ancestors
from symgrad.lower import background
from symgrad.lower.plan_batched import NoBatchRule, batched_graph
from symgrad.ops import REGISTRY

from .programs import programs
from .test_compile_ops import _build, assert_matches_reference


class _Done:
    """What the blocker's build returns (swapped into the blocker, as an Evaluator is)."""


class _Blocker:
    """A queued build that holds the worker until ``release``."""

    def __init__(self):
        self.gate = threading.Event()
        self._tier_done, self._tier_go = threading.Event(), threading.Event()
        self._tier_go.set()
        self._tier_grace = 0.0
        self._tier_build = lambda: self.gate.wait() and _Done()


@pytest.fixture
def held():
    """The background worker, busy until the test releases it (or ends)."""
    blocker = _Blocker()
    background._submit(blocker)
    yield blocker.gate
    blocker.gate.set()


def _rosen():
    x = sg.placeholder(shape=(3,), name="x")
    y = sg.reduce_sum(100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)
    return x, [y] + sg.gradients(y, x)


def _built(f):
    """An evaluator that is the built one now (its class may be its own subclass)."""
    return (isinstance(f, Evaluator) and not isinstance(f, background.Pending)
            and "_tier_plan" not in vars(f))


def _close(got, expected, rtol=1e-12):
    assert type(got) is type(expected)
    if isinstance(expected, (list, tuple)):
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            _close(g, e, rtol)
    elif isinstance(expected, dict):
        assert list(got) == list(expected)
        for k in expected:
            _close(got[k], expected[k], rtol)
    elif expected is not None:
        np.testing.assert_allclose(got, expected, rtol=rtol, atol=1e-12)
        if isinstance(expected, np.ndarray):
            assert got.dtype == expected.dtype and got.flags.c_contiguous


def test_first_calls_are_answered_before_the_build_then_the_machine_code_takes_over(held):
    x, outputs = _rosen()
    f = sg.compile(outputs, [x], wait=False)
    assert type(f) is PendingEvaluator and not f.ready and isinstance(f, Evaluator)
    point = np.array([-1.2, 1.0, 0.5])
    early = f(point)
    held.set()
    assert f.wait(timeout=120) is f
    assert _built(f) and f.ready
    # no wrapper left after the swap: the call path is the one a wait=True build has
    g = sg.compile(outputs, [x], wait=True)
    assert type(f).__call__ is not background.Pending.__call__
    assert type(type(f).__call__) is type(type(g).__call__)
    _close(early, f(point))
    _close(early, [np.float64(v).item() if np.ndim(v) == 0 else v
                   for v in sg.evaluate(outputs, {x: point})])


def test_wait_true_and_the_environment_build_before_returning(monkeypatch):
    x, outputs = _rosen()
    assert _built(sg.compile(outputs, [x], wait=True))
    monkeypatch.setenv("SYMGRAD_WAIT", "1")
    assert _built(sg.compile(outputs, [x]))
    monkeypatch.setenv("SYMGRAD_WAIT", "0")
    f = sg.compile(outputs, [x])
    assert isinstance(f, Evaluator)   # pending, or built already
    assert f.wait(timeout=120).ready


@pytest.mark.parametrize("name", sorted(n for n, op in REGISTRY.items() if op.examples and
                                         not getattr(op, "value_sized", False)))
def test_cheap_tier_matches_reference_for_every_op(name, held):
    graph, fetches, leaves, values = _build(name, np.random.default_rng(7))
    with graph.as_default():
        expected = sg.evaluate(fetches, dict(zip(leaves, values)))
        f = sg.compile(fetches, leaves, wait=False)
    assert_matches_reference(name, fetches, f(*values), expected)


@settings(max_examples=15)
@given(programs(control=()))
def test_cheap_tier_matches_reference_on_random_programs(p):
    blocker = _Blocker()
    background._submit(blocker)
    try:
        with p.graph.as_default():
            grads = sg.gradients(p.ys, p.xs, grad_ys=p.grad_ys)
            fetches = list(p.ys) + [g for g in grads if g is not None]
            expected = sg.evaluate(fetches)
            got = sg.compile(fetches, [], wait=False)()
    finally:
        blocker.gate.set()
    for node, g, e in zip(fetches, got, expected):
        np.testing.assert_allclose(np.asarray(g, dtype=float), np.asarray(e, dtype=float),
                                   rtol=1e-10, atol=1e-10, err_msg=p.code)


def test_structures_dtypes_and_none_outputs_match_the_machine_code(held):
    x = sg.placeholder(shape=(2, 3), name="x")
    k = sg.placeholder(shape=(), dtype=np.int64, name="k")
    w = sg.Variable(np.arange(3.0, dtype=np.float32), name="w")
    y = sg.reduce_sum(sg.tanh(x) @ sg.cast(w, np.float64)) * sg.cast(k, np.float64)
    outputs = {"y": y, "parts": (sg.gradients(y, [x, k, w]), x > 0.5, sg.cast(w * 2, np.float32))}
    f = sg.compile(outputs, [x, k], wait=False)
    args = (np.linspace(0, 1, 6).reshape(2, 3), 3.7)   # k: 3.7 -> 3, as numpy casts
    early = f(*args)
    assert early["parts"][0][1] is None
    held.set()
    _close(early, f.wait(timeout=120)(*args), rtol=1e-6)


def test_bad_arguments_raise_what_the_machine_code_raises(held):
    x = sg.placeholder(shape=(2,), name="x")
    n = sg.placeholder(shape=(), dtype=np.int32, name="n")
    y = sg.reduce_sum(x * sg.cast(n, np.float64))
    bad = [((np.ones(3), 1), "shape"), ((np.ones(2), np.nan), "nan"), ((["a", "b"], 1), "real"),
           ((np.ones(2) + 1j, 1), "real"), ((np.ones(2),), "takes 2 inputs"),
           (([[1.0], [2.0, 3.0]], 1), "not an array")]
    f = sg.compile(y, [x, n], wait=False)
    early = [_error(f, args) for args, _ in bad]
    held.set()
    f.wait(timeout=120)
    for (args, word), (kind, message), later in zip(bad, early, [_error(f, a) for a, _ in bad]):
        # the machine code's own check of an array's shape (a float64 array of the
        # wrong shape) is a ShapeError subclass whose message adds a hint; otherwise
        # the very same error
        assert issubclass(later[0], kind) and later[1].startswith(message) and word in message


def _error(f, args):
    with pytest.raises(Exception) as info:
        f(*args)
    return type(info.value), str(info.value)


def test_jit_and_pickling_wait_for_the_machine_code(held):
    x, outputs = _rosen()
    f = sg.compile(outputs, [x], wait=False)
    point = np.array([0.3, -0.2, 1.1])
    held.set()
    assert f.jit(point)[1].shape == (3,)          # waits, then the kernel itself
    assert _built(f)
    h = sg.compile(outputs, [x], wait=False)
    clone = pickle.loads(pickle.dumps(h))
    assert _built(clone) and _built(h)
    np.testing.assert_allclose(clone(point)[1], f(point)[1], rtol=1e-14)


def test_a_failing_build_is_logged_and_raised_and_calls_stay_correct(held, monkeypatch, caplog):
    x, outputs = _rosen()
    real = background.Pending.__init__

    def failing(self, plan, checks, build, batched=None):
        def boom():
            raise RuntimeError("LLVM ran out of luck")
        real(self, plan, checks, boom, batched)
    monkeypatch.setattr(background.Pending, "__init__", failing)
    f = sg.compile(outputs, [x], wait=False)
    point = np.array([0.1, 0.2, 0.3])
    with caplog.at_level(logging.WARNING, logger="symgrad"):
        held.set()
        with pytest.raises(CompileError, match="LLVM ran out of luck"):
            f.wait(timeout=120)
    assert "numpy tier" in caplog.text and not f.ready
    assert isinstance(f.error, RuntimeError)
    with pytest.raises(CompileError):
        f.jit
    _close(f(point), [np.float64(v).item() if np.ndim(v) == 0 else v
                      for v in sg.evaluate(outputs, {x: point})])


def test_a_build_in_the_foreground_meanwhile_gets_the_whole_module():
    # the background thread may be importing (compiling) the very module a compile
    # with wait=True of the same graph asks for: it must not see it half made
    x = sg.placeholder(shape=(4,), name="x")
    y = sg.reduce_sum(sg.exp(sg.sin(x) * x) / (1.0 + x * x))
    outputs = [y] + sg.gradients(y, x)
    point = np.linspace(-1.0, 1.0, 4)
    f = sg.compile(outputs, [x], wait=False)
    f(point)   # the background build starts now
    g = sg.compile(outputs, [x], wait=True)
    _close(g(point), f.wait(timeout=120)(point), rtol=1e-14)
    assert g.module is f.module


def test_wait_times_out_while_the_worker_is_busy(held):
    x, outputs = _rosen()
    f = sg.compile(outputs, [x], wait=False)
    with pytest.raises(TimeoutError, match="numpy"):
        f.wait(timeout=0.01)
    assert not f.ready


def test_unfed_placeholder_is_an_error_at_compile_time():
    x, outputs = _rosen()
    z = sg.placeholder(name="z")
    with pytest.raises(sg.FeedError, match="'z'"):
        sg.compile(outputs[0] * z, [x], wait=False)


def test_unknown_sizes_build_before_returning():
    x = sg.placeholder(shape=(None,), name="x")
    f = sg.compile(sg.reduce_sum(x * x), [x], wait=False)
    assert f.ready and f.wait() is f
    assert f([1.0, 2.0]) == 5.0


def test_control_flow_answers_at_once_then_its_drivers_take_over(held):
    """A loop and a cond run their sub-graphs with numpy while the kernels and drivers
    are built in the background (whose kernels build in the foreground of that thread:
    queued behind it, they would wait for ever)."""
    from symgrad.evaluator import ControlEvaluator
    x = sg.placeholder(shape=(3,), name="x")

    def body(i, a):
        return i + 1, sg.cond(sg.reduce_sum(a) > 0, lambda: a * sg.sin(x), lambda: a - x)
    _, y = sg.while_loop(lambda i, a: i < 3, body, [sg.constant(0), x + 0.5])
    loss = sg.reduce_sum(y * y)
    outputs = [loss] + sg.gradients(loss, x) + sg.hessians(loss, x)
    f = sg.compile(outputs, [x], wait=False)
    assert type(f) is PendingEvaluator and not f.ready
    point = np.array([0.3, -0.2, 0.6])
    early = f(point)
    _close(early, [np.float64(v).item() if np.ndim(v) == 0 else v
                   for v in sg.evaluate(outputs, {x: point})], rtol=1e-10)
    held.set()
    assert f.wait(timeout=600) is f and isinstance(f, ControlEvaluator)
    _close(f(point), early, rtol=1e-10)
    values = f.batched(np.stack([point, -point]))   # point by point, compiled
    np.testing.assert_allclose(values[2][0], early[2], rtol=1e-10)


def test_saving_waits_for_the_machine_code(tmp_path, held):
    x, outputs = _rosen()
    f = sg.compile(outputs, [x], wait=False)
    point = np.array([0.7, -0.1, 0.4])
    early = f(point)
    held.set()
    f.save(tmp_path / "rosen.sg")            # waits, then writes the built module
    assert _built(f)
    _close(sg.load(tmp_path / "rosen.sg")(point), early)


def test_batched_is_answered_by_numpy_before_the_build_then_by_the_machine_code(held):
    x = sg.placeholder(shape=(2, 3), name="x")
    k = sg.placeholder(shape=(), dtype=np.int64, name="k")
    c = sg.placeholder(shape=(3,), name="c")
    y = sg.reduce_sum(sg.tanh(x) * c) * sg.cast(k, np.float64) + sg.reduce_max(x)
    outputs = {"y": y, "g": sg.gradients(y, [x, k, c]), "const": sg.constant(2.0) * 3}
    f = sg.compile(outputs, [x, k, c], wait=False)
    rng = np.random.default_rng(3)
    # batch axes (2, 300): more points than one chunk; k shared by every point; c per row
    args = (rng.normal(size=(2, 300, 2, 3)), 3, rng.normal(size=(300, 3)))
    early = f.batched(*args)
    assert not f.ready and early["g"][1] is None and early["y"].shape == (2, 300)
    point = [a[1, 7] for a in (args[0],)] + [3, args[2][7]]
    reference = sg.evaluate(outputs, dict(zip([x, k, c], point)))
    np.testing.assert_allclose(early["y"][1, 7], reference["y"], rtol=1e-12)
    np.testing.assert_allclose(early["g"][0][1, 7], reference["g"][0], rtol=1e-12)
    np.testing.assert_allclose(early["const"], 6.0)
    with pytest.raises(sg.errors.ShapeError, match="must end in shape"):
        f.batched(np.ones((4, 3)), 3, np.ones(3))
    held.set()
    _close(early, f.wait(timeout=120).batched(*args))


def test_batched_waits_where_a_batching_rule_does_not_apply(held):
    x = sg.placeholder(shape=(2, 3, 3), name="x")
    y = sg.reduce_sum(x[np.array([0, 1]), :, np.array([1, 2])] ** 2)   # index arrays apart
    f = sg.compile([y, sg.gradients(y, x)[0]], [x], wait=False)
    with pytest.raises(NoBatchRule, match="index"):
        batched_graph([y], [x], ancestors([y, x]), 5)
    values = np.random.default_rng(4).normal(size=(5, 2, 3, 3))
    early = f(values[0])
    done = []
    waiting = threading.Thread(target=lambda: done.append(f.batched(values)))
    waiting.start()
    waiting.join(0.5)
    assert not done and not f.ready    # waiting for the machine code
    held.set()
    waiting.join(120)
    value, grad = done[0]
    assert f.ready
    np.testing.assert_allclose(value[0], early[0], rtol=1e-12)
    np.testing.assert_allclose(grad[0], early[1], rtol=1e-12)


@pytest.mark.parametrize("value", [0.0, -0.0, -1.0, 1.0, 1000.0, -8.0, np.inf, -np.inf, np.nan])
def test_cheap_tier_on_0d_edge_values_matches_reference(held, value):
    # 0-d bodies run over Python floats, which raise where numpy gives inf or nan
    # (1/0, log(0), sqrt(-1), exp(1000), (-8)**(1/3), asin(1000)): numpy takes those steps
    x = sg.placeholder(shape=(), name="x")
    ys = [1.0 / x, sg.log(x), sg.sqrt(x), sg.exp(x), x ** (1.0 / 3.0), sg.asin(x),
          sg.sin(x) * x, sg.maximum(x, 0.5), sg.sigmoid(x), sg.tanh(x) ** 2]
    fetches = ys + sg.gradients(sum(ys[1:]), x)
    f = sg.compile(fetches, [x], wait=False)
    got = f(value)
    expected = sg.evaluate(fetches, {x: value})
    for g, e in zip(got, expected):
        assert type(g) is float
        np.testing.assert_allclose(g, e, rtol=1e-12, atol=0)


def test_too_many_arguments_is_a_type_error_before_and_after_the_swap(held):
    # the machine code's entry (Numba's dispatch) raises TypeError for a call with more
    # arguments than inputs; the numpy tier raised ArgumentError (a ValueError) before
    x = sg.placeholder(shape=(2,), name="x")
    f = sg.compile(sg.reduce_sum(sg.sin(x)), [x], wait=False)
    too_many = (np.ones(2), np.ones(2))
    with pytest.raises(TypeError, match="takes 1 inputs"):
        f(*too_many)
    with pytest.raises(sg.ArgumentError):   # and still the ArgumentError it was
        f()
    held.set()
    f.wait(timeout=120)
    with pytest.raises(TypeError):
        f(*too_many)
    with pytest.raises(TypeError, match="takes 1 inputs"):
        f()


def test_ctrl_c_while_exit_waits_for_a_build_leaves_at_once_with_a_line(monkeypatch, capsys):
    # the interpreter's exit waits for a running build; Ctrl-C there printed Python's
    # "Exception ignored in atexit callback" traceback and went on to the teardown
    from symgrad.lower import background

    class Interrupted:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def wait_for(self, predicate):
            raise KeyboardInterrupt

    codes = []
    monkeypatch.setattr(background, "_STATE", Interrupted())
    monkeypatch.setattr(background, "_FLAGS", {"running": True, "exiting": False})
    monkeypatch.setattr(background.os, "_exit", codes.append)
    background._at_exit()
    assert codes == [130]
    assert "exit interrupted while a compile was running" in capsys.readouterr().err
