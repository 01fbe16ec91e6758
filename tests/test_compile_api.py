"""The evaluator's contract: output structure, argument casting and errors, jit from
@njit, batches (serial and parallel), pickling, and the disk cache across processes."""
import os
import pickle
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from numba import njit

import symgrad as sg
from symgrad.errors import ArgumentError, FeedError, NotATensorError, ShapeError

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(scope="module")
def cache_path(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("sgcache"))
    mp = pytest.MonkeyPatch()
    mp.setenv("SYMGRAD_CACHE_DIR", path)
    yield path
    mp.undo()


ROSEN = """
x = sg.placeholder(shape=(2,), name="x")
y = 100 * (x[1] - x[0] ** 2) ** 2 + (1 - x[0]) ** 2
"""


def _rosen():
    ns = {"sg": sg}
    exec(ROSEN, ns)
    return ns["x"], ns["y"]


@pytest.fixture(scope="module")
def rosen(cache_path):
    graph = sg.Graph()
    with graph.as_default():
        x, y = _rosen()
        g = sg.gradients(y, x)[0]
        f = sg.compile([y, g], [x])

    def reference(v):
        with graph.as_default():
            return sg.evaluate([y, g], {x: v})
    return f, reference


def test_value_and_gradient_match_reference(rosen):
    f, reference = rosen
    v = np.array([1.5, 2.0])
    value, grad = f(v)
    ref = reference(v)
    assert isinstance(value, float)
    assert value == pytest.approx(float(ref[0]), rel=1e-15)
    np.testing.assert_allclose(grad, ref[1], rtol=1e-15)


def test_arguments_are_cast_and_checked(rosen):
    f, reference = rosen
    np.testing.assert_allclose(f([1, 2])[1], reference(np.array([1.0, 2.0]))[1])
    np.testing.assert_allclose(f(np.array([1.5, 2.0], np.float32))[1],
                               reference(np.array([1.5, 2.0]))[1])
    np.testing.assert_allclose(f(np.array([1.5, 9, 2.0])[::2])[1],
                               reference(np.array([1.5, 2.0]))[1])
    with pytest.raises(ShapeError, match="shape"):
        f(np.ones(3))
    with pytest.raises(ArgumentError, match="takes 1 inputs"):
        f()
    # more arguments than inputs: Numba's dispatcher says so before any Python runs
    with pytest.raises(TypeError, match="too many arguments: expected 1, got 2"):
        f(np.ones(2), np.ones(2))


def test_jit_is_callable_from_user_njit(rosen):
    f, reference = rosen
    kernel = f.jit

    @njit
    def descend(x, steps, lr):
        for _ in range(steps):
            value, grad = kernel(x)
            x = x - lr * grad
        return x, kernel(x)[0]

    x0 = np.array([-1.0, 1.0])
    x, value = descend(x0, 5, 1e-4)
    expected = x0.copy()
    for _ in range(5):
        expected = expected - 1e-4 * reference(expected)[1]
    np.testing.assert_allclose(x, expected, rtol=1e-12)
    assert value == pytest.approx(float(reference(x)[0]), rel=1e-12)



@pytest.mark.parametrize("bad, words", [
    (lambda: [1.0, 2.0], "got a list of float64"),
    (lambda: np.array([1, 2]), "got C-contiguous int64 array"),
    (lambda: np.ones(4)[::2], "got non-contiguous float64 array"),
    (lambda: np.ones((2, 1)), "with 2 dimension(s)"),
])
def test_jit_misuse_from_njit_is_a_clear_type_error(rosen, bad, words):
    """Wrong kinds of argument from @njit code: a TypeError naming what f.jit wants."""
    kernel = f_jit = rosen[0].jit

    @njit
    def use(x):
        return f_jit(x)[0]

    for call in (use, kernel):          # from @njit code and from Python alike
        with pytest.raises(TypeError) as info:
            call(bad())
        message = str(info.value)
        assert "argument 0 ('x') must be a writable C-contiguous float64 array of shape (2,)" \
            in message and words in message and "np.ascontiguousarray" in message
    assert use(np.array([1.0, 1.0])) == 0.0     # the right kind still works (Rosenbrock min)

@pytest.mark.parametrize("parallel", [False, True])
def test_batched_matches_loop(rosen, parallel):
    f, _ = rosen
    pts = np.random.default_rng(0).normal(size=(40000, 2))  # large enough to use threads
    values, grads = f.batched(pts, parallel=parallel)
    assert values.shape == (40000,) and grads.shape == (40000, 2)
    for i in range(0, 40000, 997):
        v, g = f(pts[i])
        assert values[i] == v
        np.testing.assert_array_equal(grads[i], g)


def test_gufunc_is_a_numpy_gufunc_with_batch_broadcasting(rosen):
    f, _ = rosen
    assert isinstance(f.gufunc, np.ufunc) and f.gufunc.signature
    pts = np.random.default_rng(1).normal(size=(3, 4, 2))
    values, grads = f.gufunc(pts, *f.gufunc_extra)
    assert values.shape == (3, 4) and grads.shape == (3, 4, 2)
    np.testing.assert_array_equal(grads[2, 3], f(pts[2, 3])[1])
    strided = np.random.default_rng(2).normal(size=(5, 4))[:, ::2]  # core slices not dense
    out_v, out_g = np.empty(5), np.empty((5, 4))[:, ::2]
    f.gufunc(strided, *f.gufunc_extra, out=(out_v, out_g))
    for i in range(5):
        assert out_v[i] == f(strided[i])[0]
        np.testing.assert_array_equal(out_g[i], f(strided[i])[1])


def test_output_structures_and_unconnected_gradients(cache_path):
    with sg.Graph().as_default():
        x = sg.placeholder(shape=(3,), name="x")
        t = sg.placeholder(name="t")
        n = sg.placeholder(shape=(2,), dtype=np.int64, name="n")
        y = sg.reduce_sum(sg.sin(x) * t)
        gx, gn = sg.gradients(y, [x, n])
        assert gn is None
        f = sg.compile([y, (gx, [t * 2, None]), x > 0, sg.cast(n, "float32")], [x, t, n])
        xv, tv, nv = np.array([0.5, -1.0, 2.0]), 3.0, np.array([1, 2])
        got = f(xv, tv, nv)
        expected = sg.evaluate([y, (gx, [t * 2]), x > 0], {x: xv, t: tv, n: nv})
        single = sg.compile(y, [x, t, n])(xv, tv, nv)
        named = sg.compile({"loss": y, "grads": [gx, gn]}, [x, t, n])(xv, tv, nv)
    assert named["loss"] == single and named["grads"][1] is None
    assert isinstance(got, list) and isinstance(got[1], tuple) and got[1][1][1] is None
    assert got[0] == pytest.approx(float(expected[0]), rel=1e-14) == single
    np.testing.assert_allclose(got[1][0], expected[1][0], rtol=1e-14)
    assert got[1][1][0] == 6.0
    assert got[2].dtype == np.bool_ and list(got[2]) == [True, False, True]
    assert got[3].dtype == np.float32 and list(got[3]) == [1.0, 2.0]


def test_unlisted_leaves_are_baked_in_and_errors_are_clear(cache_path):
    with sg.Graph().as_default():
        w = sg.Variable(np.array([1.0, 2.0]), name="w")
        p = sg.placeholder(shape=(2,), name="p")
        f = sg.compile(sg.reduce_sum(w * p), [p])
        assert f([3.0, 4.0]) == 11.0
        w.assign([0.0, 0.0])
        assert f([3.0, 4.0]) == 11.0  # the value at compile time
        with pytest.raises(FeedError, match="'p'"):
            sg.compile(w * p, [w])
        with pytest.raises(NotATensorError, match="inputs"):
            sg.compile(w * p, [np.ones(2)])
        with pytest.raises(ArgumentError, match="repeats"):
            sg.compile(w * p, [p, p])


def test_source_is_readable_python(rosen):
    f, _ = rosen
    assert f.source.startswith("def kernel(a0, r1):")
    assert "# a0: x (2,) <f8" in f.source


def test_pickle_round_trip_in_process(rosen):
    f, _ = rosen
    g = pickle.loads(pickle.dumps(f))
    v = np.array([0.3, -0.7])
    assert g(v)[0] == f(v)[0]
    np.testing.assert_array_equal(g(v)[1], f(v)[1])


def _run(code, cache_path, **env):
    """Run ``code`` in a fresh interpreter with this checkout and ``cache_path``."""
    env = dict(os.environ, SYMGRAD_CACHE_DIR=cache_path, PYTHONPATH=ROOT, **env)
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout


_BUILD = """
import numpy as np, symgrad as sg
x = sg.placeholder(shape=(2,), name="x")
y = 100 * (x[1] - x[0] ** 2) ** 2 + (1 - x[0]) ** 2
f = sg.compile([y, sg.gradients(y, x)[0]], [x])
v, g = f(np.array([1.5, 2.0]))
print(v, g[0], g[1], sum(f.jit.kernel.stats.cache_hits.values()),
      sum(f.jit.kernel.stats.cache_misses.values()), f.module.__file__)
"""


def _parse(out):
    v, g0, g1, hits, misses, path = out.split()
    return float(v), float(g0), float(g1), int(hits), int(misses), path


def test_second_process_loads_from_cache(rosen, cache_path):
    f, _ = rosen  # compiled in this process: module and machine code are on disk now
    first = _parse(_run(_BUILD, cache_path))
    second = _parse(_run(_BUILD, cache_path))
    value, grad = f(np.array([1.5, 2.0]))
    assert second[:3] == (value, grad[0], grad[1]) == first[:3]
    assert second[3:5] == (1, 0)  # loaded, not compiled


def test_corrupted_cache_files_are_rebuilt(rosen, cache_path):
    f, _ = rosen
    path = _parse(_run(_BUILD, cache_path))[5]
    with open(path, "r+") as fh:  # truncate the generated module
        fh.truncate(os.path.getsize(path) // 2)
    out = _parse(_run(_BUILD, cache_path))
    assert out[:3] == (6.5, 151.0, -50.0)
    assert out[3:5] == (0, 1)  # compiled again, not loaded from the broken file
    pycache = os.path.join(os.path.dirname(path), "__pycache__")
    for name in os.listdir(pycache):  # damage Numba's machine-code cache too
        if name.startswith(os.path.basename(path)[:-3]) and name.endswith(".nbc"):
            with open(os.path.join(pycache, name), "wb") as fh:
                fh.write(b"garbage")
    assert _parse(_run(_BUILD, cache_path))[:3] == (6.5, 151.0, -50.0)


def test_pickle_round_trip_in_another_process(rosen, cache_path, tmp_path):
    f, _ = rosen
    blob = tmp_path / "f.pkl"
    blob.write_bytes(pickle.dumps(f))
    out = _run(f"""
        import pickle, numpy as np
        f = pickle.loads(open({str(blob)!r}, "rb").read())
        v, g = f(np.array([1.5, 2.0]))
        print(v, g[0], g[1])
        """, cache_path)
    assert [float(t) for t in out.split()] == [6.5, 151.0, -50.0]


def test_concurrent_processes_share_one_cache(tmp_path):
    cache_path = str(tmp_path / "fresh")
    env = dict(os.environ, SYMGRAD_CACHE_DIR=cache_path, PYTHONPATH=ROOT)
    procs = [subprocess.Popen([sys.executable, "-c", _BUILD], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outs = [p.communicate(timeout=300) for p in procs]
    assert all(p.returncode == 0 for p in procs), [o[1] for o in outs]
    assert all(_parse(o[0])[:3] == (6.5, 151.0, -50.0) for o in outs)
    assert _parse(_run(_BUILD, cache_path))[3:5] == (1, 0)  # a valid cache was left behind


def test_fastmath_agrees_on_finite_inputs(cache_path):
    with sg.Graph().as_default():
        x, y = _rosen()
        fetches = [y, sg.gradients(y, x)[0]]
        fast = sg.compile(fetches, [x], fastmath=True)
        exact = sg.compile(fetches, [x])
    assert fast.module is not exact.module
    v = np.array([0.7, -1.3])
    np.testing.assert_allclose(fast(v)[1], exact(v)[1], rtol=1e-12)


def test_equal_graph_reuses_lowering_and_module(rosen, cache_path):
    f, _ = rosen
    with sg.Graph().as_default():  # the same program traced again: found by its graph key
        x, y = _rosen()
        g = sg.compile([y, sg.gradients(y, x)[0]], [x])
    assert g.module is f.module
    assert g.source == f.source  # rendered from the module's own program text
    index = os.path.join(cache_path, "index")
    for name in os.listdir(index):  # a damaged index entry is ignored, not trusted
        with open(os.path.join(index, name), "w") as fh:
            fh.write("not a key")
    with sg.Graph().as_default():
        x, y = _rosen()
        h = sg.compile([y, sg.gradients(y, x)[0]], [x])
    assert h.module is f.module


def test_cache_false_keeps_the_cache_directory_untouched(cache_path):
    with sg.Graph().as_default():
        x = sg.placeholder(shape=(2,), name="x")
        f = sg.compile(sg.reduce_sum(sg.cos(x) * 3.25), [x], cache=False)
    assert not f.module.__file__.startswith(cache_path)
    assert f([0.0, 0.0]) == 6.5
    assert pickle.loads(pickle.dumps(f))([0.0, 0.0]) == 6.5
