"""Shipping evaluators: ``f.save(path)`` / ``sg.load(path)`` and pickles, in NEW processes.

Oracle: the reference evaluator (``sg.evaluate``) at the same points.  A child process
loads the saved files and reports its results, whether SymPy was imported, and
Numba's cache hits/misses (warm cache: machine code loaded, nothing compiled).
"""
import json
import os
import pickle
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import symgrad as sg
from symgrad.lower import saved

CHILD = textwrap.dedent(r"""
    import pickle, sys
    import numpy as np
    import symgrad as sg
    report = {"sympy_after_import": "sympy" in sys.modules, "results": []}
    for path, args, batch in pickle.load(open(sys.argv[1], "rb")):
        if path.endswith(".pkl"):
            f = pickle.load(open(path, "rb"))
        else:
            f = sg.load(path)
        out = f(*args)
        kernels = [e._kernel for e in getattr(f, "evaluators", {None: f}).values()]
        stats = [k.stats for k in kernels if hasattr(k, "stats")]
        got = {"out": out, "type": type(f).__name__,
               "hits": sum(sum(s.cache_hits.values()) for s in stats),
               "misses": sum(sum(s.cache_misses.values()) for s in stats)}
        if batch is not None:
            got["batched"] = f.batched(*batch)
        got["sympy"] = "sympy" in sys.modules
        report["results"].append(got)
    report["sympy"] = "sympy" in sys.modules
    pickle.dump(report, open(sys.argv[2], "wb"))
""")


def run_child(tmp_path, jobs, env=None):
    """Run CHILD on ``jobs`` [(file, args, batch args or None)] in a new process."""
    job_file, out_file = tmp_path / "jobs.pkl", tmp_path / "report.pkl"
    with open(job_file, "wb") as fh:
        pickle.dump([(str(p), a, b) for p, a, b in jobs], fh)
    full_env = dict(os.environ, **(env or {}))
    done = subprocess.run([sys.executable, "-c", CHILD, str(job_file), str(out_file)],
                          capture_output=True, text=True, env=full_env, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    with open(out_file, "rb") as fh:
        return pickle.load(fh)


def assert_same(got, want):
    """Nested outputs equal (sparse matrices compared dense; None as None)."""
    if want is None:
        assert got is None
    elif isinstance(want, dict):
        assert isinstance(got, dict) and list(got) == list(want)
        for k in want:
            assert_same(got[k], want[k])
    elif isinstance(want, (list, tuple)):
        assert type(got) is type(want) and len(got) == len(want)
        for g, w in zip(got, want):
            assert_same(g, w)
    elif hasattr(want, "toarray"):
        assert hasattr(got, "toarray")
        np.testing.assert_allclose(got.toarray(), want.toarray(), rtol=1e-12, atol=1e-12)
    else:
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-12, atol=1e-12)
        assert np.shape(got) == np.shape(want)


@pytest.fixture(scope="module")
def shipped(tmp_path_factory):
    """Evaluators of every kind, saved; with points and reference results."""
    tmp = tmp_path_factory.mktemp("shipped")
    rng = np.random.default_rng(7)
    cases = {}
    with sg.Graph().as_default():   # fixed shapes, nested outputs, an unconnected None
        x = sg.placeholder(shape=(3,), name="x")
        k = sg.placeholder(sg.int64, shape=(), name="k")
        z = sg.placeholder(shape=(2,), name="z")
        y = sg.reduce_sum(sg.sin(x) * x) * sg.cast(k, sg.float64)
        outputs = {"value": y, "grads": tuple(sg.gradients(y, [x, z]))}
        points = [rng.standard_normal(3), 3, rng.standard_normal(2)]
        want = sg.evaluate(outputs, dict(zip([x, k, z], points)))
        cases["fixed"] = _save(tmp, "fixed", sg.compile(outputs, [x, k, z]), points, want,
                               [np.stack([points[0]] * 2), points[1], points[2]])
    with sg.Graph().as_default():   # a sparse Hessian (csr) and the gradient
        x = sg.placeholder(shape=(5,), name="x")
        y = sg.reduce_sum(x[1:] * x[:-1]) + sg.reduce_sum(sg.exp(x) * x)
        outputs = [sg.gradients(y, x)[0], sg.hessians(y, x, sparse=True)[0]]
        points = [rng.standard_normal(5)]
        want = sg.evaluate(outputs, {x: points[0]})
        cases["sparse"] = _save(tmp, "sparse", sg.compile(outputs, [x]), points, want, None)
    with sg.Graph().as_default():   # unknown sizes: one size-generic kernel
        X = sg.placeholder(shape=(None, 3), name="X")
        y = sg.reduce_sum(sg.tanh(X) * X)
        outputs = [y, sg.gradients(y, X)[0]]
        points = [rng.standard_normal((4, 3))]
        want = sg.evaluate(outputs, {X: points[0]})
        cases["sized"] = _save(tmp, "sized", sg.compile(outputs, [X]), points, want,
                               [rng.standard_normal((2, 6, 3))])
    with sg.Graph().as_default():   # control flow: a loop and a cond, and their gradient
        x = sg.placeholder(shape=(2,), name="x")
        i, y = sg.while_loop(lambda i, y: sg.reduce_sum(y) < 10.0,
                             lambda i, y: (i + 1, 2.0 * y + x), [0, x])
        z = sg.cond(sg.reduce_sum(x) > 0.0, lambda: y * x, lambda: y)
        outputs = [i, z, sg.gradients(sg.reduce_sum(z), x)[0]]
        points = [np.array([0.7, 0.4])]
        want = sg.evaluate(outputs, {x: points[0]})
        cases["control"] = _save(tmp, "control", sg.compile(outputs, [x]), points, want,
                                 [np.array([[0.7, 0.4], [-0.5, 1.5]])])
    with sg.Graph().as_default():   # compiled once per size (PerSize), two sizes
        x = sg.placeholder(shape=(None,), name="x")
        y = sg.reduce_sum(x[np.array([0, 2, 2])] ** 2)
        outputs = [y] + sg.gradients(y, x)
        f = sg.compile(outputs, [x])
        for n in (3, 5):
            f(np.ones(n))
        points = [rng.standard_normal(5)]
        want = sg.evaluate(outputs, {x: points[0]})
        cases["persize"] = _save(tmp, "persize", f, points, want, [rng.standard_normal((2, 5))])
    return cases


def _save(tmp, name, f, points, want, batch):
    path = tmp / f"{name}.sg"
    f.save(path)
    in_process = f(*points)
    assert_same(in_process, want)
    # built here, so its machine code is in the cache too (a first batched call on a
    # machine compiles the gufunc, test_a_cold_cache_compiles_on_load)
    batched = f.batched(*batch) if batch is not None else None
    return {"f": f, "path": path, "points": points, "want": want, "batch": batch,
            "batched": batched}


def test_saved_evaluators_load_in_a_new_process_without_sympy(shipped, tmp_path):
    jobs = [(c["path"], c["points"], c["batch"]) for c in shipped.values()]
    report = run_child(tmp_path, jobs)
    assert report["sympy_after_import"] is False     # import symgrad: numpy only
    for (name, case), got in zip(shipped.items(), report["results"]):
        assert got["sympy"] is False, f"loading and calling {name} imported SymPy"
        assert_same(got["out"], case["want"])
        if case["batch"] is not None:   # batched = the in-process batched (same kernel)
            assert_same(got["batched"], case["batched"])
        # the machine code came from the disk cache: Numba compiled nothing (for the
        # control-flow evaluator: its top driver, whose machine code holds the rest)
        assert got["misses"] == 0 and got["hits"] >= 1, (name, got)
    assert [r["type"] for r in report["results"]] == [
        "Evaluator", "Evaluator", "Evaluator", "ControlEvaluator", "SavedSizes"]


def test_pickled_evaluators_unpickle_without_sympy(shipped, tmp_path):
    jobs = []
    names = ("fixed", "control", "persize")   # a PerSize unpickles as its saved sizes
    for name in names:
        path = tmp_path / f"{name}.pkl"
        path.write_bytes(pickle.dumps(shipped[name]["f"]))
        jobs.append((path, shipped[name]["points"], shipped[name]["batch"]))
    report = run_child(tmp_path, jobs)
    assert report["sympy"] is False
    for name, got in zip(names, report["results"]):
        assert_same(got["out"], shipped[name]["want"])
        if shipped[name]["batch"] is not None:
            assert_same(got["batched"], shipped[name]["batched"])
    assert report["results"][2]["type"] == "SavedSizes"


LOADED = textwrap.dedent(r"""
    import json, sys
    import numpy as np
    import symgrad as sg
    f = sg.load(sys.argv[1])
    source = f.source
    values = f.batched(np.linspace(-1.0, 1.0, 12).reshape(3, 4))
    stats = f._gufuncs["batch"].stats   # (batched's common call: lower.lean_batch)
    print(json.dumps({"source": source, "sympy": "sympy" in sys.modules,
                      "values": values[0].tolist(),
                      "loop_hits": sum(stats.cache_hits.values()),
                      "loop_misses": sum(stats.cache_misses.values())}))
""")


def test_a_loaded_evaluator_shows_its_source_and_batches_without_compiling(tmp_path):
    """f.save builds the batched call (a load on this machine compiles nothing) and the
    file carries the readable source (f.source of a loaded evaluator needs no SymPy)."""
    x = sg.placeholder(shape=(4,), name="x")
    y = sg.reduce_sum(sg.cos(x) * x ** 3)   # a graph no other test batches
    f = sg.compile([y, sg.gradients(y, x)[0]], [x])
    f.save(tmp_path / "f.sg")   # f.batched is never called in this process
    done = subprocess.run([sys.executable, "-c", LOADED, str(tmp_path / "f.sg")],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    got = json.loads(done.stdout)
    assert got["source"] == f.source and "def kernel" in got["source"]
    assert got["sympy"] is False
    points = np.linspace(-1.0, 1.0, 12).reshape(3, 4)
    np.testing.assert_allclose(got["values"], [sg.evaluate(y, {x: p}) for p in points],
                               rtol=1e-12)
    assert got["loop_misses"] == 0 and got["loop_hits"] >= 1, got


def test_a_cold_cache_compiles_on_load(shipped, tmp_path):
    """Another machine (empty cache): the module is written and compiled there."""
    case = shipped["fixed"]
    report = run_child(tmp_path, [(case["path"], case["points"], None)],
                       env={"SYMGRAD_CACHE_DIR": str(tmp_path / "empty_cache")})
    got = report["results"][0]
    assert_same(got["out"], case["want"])
    assert got["misses"] >= 1
    assert os.listdir(tmp_path / "empty_cache")


def test_a_pickle_never_batched_batches_on_another_machine_without_sympy(tmp_path):
    """A plain pickle (no f.save, the batch loop never built) on a machine with empty
    caches: the kernel and the batch loop are compiled there, from the module's text,
    and neither needs SymPy (sizes known when compiled: nothing symbolic to parse)."""
    x = sg.placeholder(shape=(3,), name="x")
    y = sg.reduce_sum(sg.exp(x) * sg.sin(x) - x ** 2)   # a graph no other test batches
    outputs = [y, sg.gradients(y, x)[0]]
    f = sg.compile(outputs, [x])
    path = tmp_path / "f.pkl"
    path.write_bytes(pickle.dumps(f))
    rng = np.random.default_rng(3)
    point, batch = rng.standard_normal(3), rng.standard_normal((4, 3))
    report = run_child(tmp_path, [(path, [point], [batch])],
                       env={"SYMGRAD_CACHE_DIR": str(tmp_path / "symgrad_cache"),
                            "NUMBA_CACHE_DIR": str(tmp_path / "numba_cache")})
    got = report["results"][0]
    assert got["misses"] >= 1   # compiled there: nothing came from this process's cache
    assert report["sympy"] is False
    assert_same(got["out"], sg.evaluate(outputs, {x: point}))
    want = [sg.evaluate(outputs, {x: p}) for p in batch]
    assert_same(got["batched"], [np.array([w[0] for w in want]), np.stack([w[1] for w in want])])


def test_a_saved_per_size_evaluator_names_the_sizes_it_has(shipped):
    f = sg.load(shipped["persize"]["path"])
    with pytest.raises(sg.ShapeError, match=r"compiled for input shapes \(3,\); \(5,\)"):
        f(np.ones(4))
    with pytest.raises(sg.ArgumentError, match="takes 1 inputs"):
        f(np.ones(3), np.ones(3))


def test_a_per_size_evaluator_with_nothing_compiled_does_not_save(tmp_path):
    x = sg.placeholder(shape=(None,), name="x")
    f = sg.compile(sg.reduce_sum(x[np.array([0, 0])]), [x])
    with pytest.raises(sg.ArgumentError, match="nothing is compiled yet"):
        f.save(tmp_path / "f.sg")


def test_a_control_flow_evaluator_with_unknown_sizes_saves_the_sizes_it_compiled(tmp_path):
    x = sg.placeholder(shape=(None,), name="x")
    s = sg.reduce_sum(x * x)
    f = sg.compile(sg.cond(s > 1.0, lambda: s * 2.0, lambda: s), [x])
    with pytest.raises(sg.ArgumentError, match="nothing is compiled yet"):
        f.save(tmp_path / "f.sg")
    assert not (tmp_path / "f.sg").exists()
    assert (f(np.ones(3)), f(np.full(1, 0.5))) == (6.0, 0.25)
    f.save(tmp_path / "f.sg")
    g = sg.load(tmp_path / "f.sg")
    assert (g(np.ones(3)), g(np.full(1, 0.5))) == (6.0, 0.25)
    with pytest.raises(sg.ShapeError, match="compiled for input shapes"):
        g(np.ones(4))


def _rewrite(path, edit):
    """The saved file with its literal edited and its checksum made right again."""
    head, fmt, payload = path.read_text().split("\n", 2)
    payload = edit(payload)
    import hashlib
    digest = hashlib.sha256(payload.encode()).hexdigest()
    return f"{head}\nformat 1 sha256 {digest}\n{payload}"


@pytest.mark.parametrize("damage, message", [
    (lambda p: "print('hello')\n", "is not a saved symgrad evaluator"),
    (lambda p: p.read_text()[:-200], "is damaged .its checksum"),
    (lambda p: p.read_text().replace("'kind'", "'kinf'", 1), "is damaged .its checksum"),
    (lambda p: p.read_text().replace("format 1 ", "format 7 ", 1), "has format 7"),
    (lambda p: p.read_text().replace("format 1 ", "format one ", 1), "format line"),
    (lambda p: _rewrite(p, lambda s: s.replace("'code': '", "'code': '0", 1)),
     "with other code of its compiler .symgrad.ops and symgrad.lower hash to 0"),
    (lambda p: _rewrite(p, lambda s: s[:-1]), "do not parse"),
    (lambda p: p.read_text().replace("\n", "\r\n"), "Windows line endings .CRLF."),
    (lambda p: _rewrite(p, lambda s: s.replace("'kind': 'evaluator'", "'kind': 'x'")),
     "does not fit"),
])
def test_wrong_or_damaged_files_are_refused_naming_the_path(shipped, tmp_path, damage,
                                                            message):
    bad = tmp_path / "bad.sg"
    bad.write_text(damage(shipped["fixed"]["path"]))
    with pytest.raises(sg.SavedFileError, match=message) as info:
        sg.load(bad)
    assert str(bad) in str(info.value)


def test_a_missing_file_is_the_usual_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="nothing.sg"):
        sg.load(tmp_path / "nothing.sg")


def test_the_file_says_what_it_is_and_parses_without_running_code(shipped):
    text = shipped["fixed"]["path"].read_text()
    assert text.startswith(saved.MAGIC + "\nformat 1 sha256 ")
    spec = saved.read(shipped["fixed"]["path"])
    assert spec["kind"] == "evaluator" and spec["names"] == ["x", "k", "z"]


def test_a_loaded_evaluator_saves_and_pickles_again(shipped, tmp_path):
    case = shipped["persize"]
    again = tmp_path / "again.sg"
    sg.load(case["path"]).save(again)
    assert_same(sg.load(again)(*case["points"]), case["want"])
    fixed = shipped["fixed"]
    assert_same(pickle.loads(pickle.dumps(sg.load(fixed["path"])))(*fixed["points"]),
                fixed["want"])


def test_import_symgrad_is_light_and_the_api_resolves_on_use():
    code = ("import sys, symgrad as sg; light = 'sympy' in sys.modules; "
            "import symgrad.evaluate, symgrad.parse; "   # submodules named like functions
            "x = sg.placeholder(shape=(2,), name='x'); "
            "print(light, callable(sg.evaluate), callable(sg.parse), 'sympy' in sys.modules, "
            "float(sg.evaluate(sg.reduce_sum(x * x), {x: [1.0, 2.0]})))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "True", "True", "True", "5.0"]


def test_import_symgrad_imports_neither_sympy_nor_numba():
    done = subprocess.run([sys.executable, "-X", "importtime", "-c", "import symgrad"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    imported = {line.split("|")[-1].strip() for line in done.stderr.splitlines()
                if line.startswith("import time:")}
    assert "symgrad" in imported and "numpy" in imported
    assert not {m for m in imported if m.split(".")[0] in ("sympy", "numba") or
                m.startswith("symgrad.")}   # the API is resolved on first use


def test_every_public_name_shadowing_a_submodule_is_declared():
    import types

    from symgrad import _api
    for name, value in _api.names().items():
        if sg._is_submodule(name):
            assert (isinstance(value, types.ModuleType) and
                    value.__name__ == f"symgrad.{name}") or name in sg._SHADOWED, name
