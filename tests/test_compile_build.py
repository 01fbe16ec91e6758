"""How a compile is built: the entry allocates its outputs itself (no Numba ``np.empty``
compiled on the side), and loops carry hints that keep LLVM from multiplying the code
(``lower.llvm_hints``).  Values are checked against the reference evaluator; the hints
against the code LLVM makes without them.
"""
import numpy as np
import pytest

import symgrad as sg


def _rosenbrock(x, a=100.0):
    return sg.reduce_sum(a * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def _assert_matches(f, outputs, feeds):
    got = f(*feeds.values())
    for g, w in zip(got, sg.evaluate(outputs, feeds)):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-12, atol=1e-12)


def _llvm_lines(f):
    """Lines of the optimised LLVM IR, metadata nodes (``!n = ...``) left out: code only."""
    kernel = f.jit.kernel
    return sum(sum(1 for line in kernel.inspect_llvm(sig).splitlines()
                   if not line.startswith("!")) for sig in kernel.signatures)


@pytest.fixture(scope="module")
def outputs_of_every_kind():
    with sg.Graph().as_default():
        x = sg.placeholder(shape=(2, 3), name="x")
        k = sg.placeholder(shape=(4,), dtype=np.int64, name="k")
        cube = sg.reshape(sg.tile(x, (2, 2)), (4, 3, 2)) * 0.5
        outputs = [sg.reduce_sum(x), x > 0, cube, k * 3, sg.cast(x, "float32"), x[:, :0],
                   sg.gradients(sg.reduce_sum(cube * cube), x)[0]]
        yield sg.compile(outputs, [x, k], cache=False, wait=True), outputs, x, k


def test_entry_allocates_outputs_of_every_dtype_and_rank(outputs_of_every_kind, rng):
    f, outputs, x, k = outputs_of_every_kind
    assert "np.empty(" not in f._text   # Numba's np.empty is a compile of its own
    feeds = {x: rng.normal(size=(2, 3)), k: np.array([1, -2, 3, 40])}
    got = f(*feeds.values())
    for g, w in zip(got, sg.evaluate(outputs, feeds)):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype and g.shape == w.shape
        if g.ndim:
            assert g.flags.c_contiguous and g.flags.writeable and g.flags.owndata is False
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)
    again = f(*feeds.values())
    got[2][...] = np.nan   # each call's arrays are its own
    assert not np.isnan(again[2]).any()


def test_entry_frees_what_it_allocates(outputs_of_every_kind):
    from numba.core.runtime import _nrt_python as nrt
    f, _, x, k = outputs_of_every_kind
    feeds = (np.ones((2, 3)), np.arange(4))
    f(*feeds)
    was_on = nrt.memsys_stats_enabled()
    nrt.memsys_enable_stats()
    try:
        before = (nrt.memsys_get_stats_mi_alloc(), nrt.memsys_get_stats_mi_free())
        for _ in range(20):
            out = f(*feeds)
            del out
        after = (nrt.memsys_get_stats_mi_alloc(), nrt.memsys_get_stats_mi_free())
    finally:
        if not was_on:
            nrt.memsys_disable_stats()
    allocated, freed = after[0] - before[0], after[1] - before[1]
    assert allocated >= 20 * 5 and allocated == freed


def _rosen_hessian(n, a):
    x = sg.placeholder(shape=(n,), name="x")
    f = _rosenbrock(x, a)
    return [f] + sg.gradients(f, x) + sg.hessians(f, x), x


def test_loop_hints_cut_the_code_llvm_makes(monkeypatch, rng):
    n = 100
    with sg.Graph().as_default():
        outputs, x = _rosen_hessian(n, 100.0)
        hinted = sg.compile(outputs, [x], cache=False, wait=True)
        monkeypatch.setenv("SYMGRAD_LOOP_HINTS", "0")   # (another constant: another module)
        plain_outputs, y = _rosen_hessian(n, 100.5)
        plain = sg.compile(plain_outputs, [y], cache=False, wait=True)
    assert "llvm.loop.unroll.disable" in hinted.jit.kernel.inspect_llvm(
        hinted.jit.kernel.signatures[0])
    assert _llvm_lines(hinted) < 0.7 * _llvm_lines(plain)
    for _ in range(3):
        v = rng.uniform(-1, 1, n)
        _assert_matches(hinted, outputs, {x: v})
        _assert_matches(plain, plain_outputs, {y: v})


def test_batched_gathers_keep_one_seed_of_positions(rng):
    pairs = np.triu_indices(4, k=1)
    grid = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], float) * 1.2
    with sg.Graph().as_default():
        x = sg.placeholder(shape=(12,), name="x")
        pos = sg.reshape(x, (4, 3))
        d = pos[pairs[0]] - pos[pairs[1]]
        s6 = 1.0 / sg.reduce_sum(d * d, axis=1) ** 3
        f = sg.reduce_sum(s6 * s6 - s6)
        outputs = [f] + sg.gradients(f, x) + sg.hessians(f, x)
        h = sg.compile(outputs, [x], cache=False, wait=True)
    tables = [int(np.prod(shape)) for kind, shape, _ in h.program.consts if kind == "i8"]
    # the positions of one seed, shifted per seed (were: the positions of all 12 seeds)
    assert tables and max(tables) <= len(pairs[0]) * 3
    compile(h.source, "<kernel>", "exec")   # the addresses render as Python
    for _ in range(3):
        _assert_matches(h, outputs, {x: (grid + rng.uniform(-0.1, 0.1, grid.shape)).ravel()})


def test_generated_code_is_optimised_once(monkeypatch, rng):
    """Numba's per-function O3 round is skipped for the generated entry (its module
    round optimises it), and ``SYMGRAD_FUNCTION_PASSES=1`` brings it back; both give
    the reference values."""
    from numba.core import codegen
    rounds = []
    original = codegen.CPUCodeLibrary._optimize_functions

    def record(library, ll_module):
        rounds.append(library.name)
        return original(library, ll_module)
    monkeypatch.setattr(codegen.CPUCodeLibrary, "_optimize_functions", record)
    with sg.Graph().as_default():
        outputs, x = _rosen_hessian(12, 100.0)
        once = sg.compile(outputs, [x], cache=False, wait=True)
        assert "jit" not in rounds
        monkeypatch.setenv("SYMGRAD_FUNCTION_PASSES", "1")
        twice_outputs, y = _rosen_hessian(12, 100.5)
        twice = sg.compile(twice_outputs, [y], cache=False, wait=True)
        assert "jit" in rounds
    for _ in range(3):
        v = rng.uniform(-1, 1, 12)
        _assert_matches(once, outputs, {x: v})
        _assert_matches(twice, twice_outputs, {y: v})


def test_entry_has_no_c_function_wrapper(outputs_of_every_kind, rng):
    """``jit`` is built without Numba's C-callable wrapper (nothing calls it through a
    function pointer): Python calls and @njit callers still get the reference values."""
    import numba
    f, outputs, x, k = outputs_of_every_kind
    (result,) = f.jit.kernel.overloads.values()
    names = [fn.name for fn in result.library.get_defined_functions()]
    assert names and not any(name.startswith("cfunc.") for name in names)
    xv, kv = rng.normal(size=(2, 3)), np.arange(4)
    want = sg.evaluate(outputs[0], {x: xv, k: kv})
    np.testing.assert_allclose(f(xv, kv)[0], want, rtol=1e-12)
    jit = f.jit
    call = numba.njit(lambda a, b: jit(a, b)[0])
    np.testing.assert_allclose(call(xv, kv), want, rtol=1e-12)


def _layer_hessian(scale):
    w = sg.placeholder(shape=(16,), name="w")
    h = sg.tanh(sg.reshape(w, (2, 8)) * scale)   # rows of 8, inside the Hessian's seed loop
    f = sg.reduce_sum(h * h)
    return [f] + sg.gradients(f, w) + sg.hessians(f, w), w


def test_rows_inside_another_loop_are_not_unrolled(monkeypatch, rng):
    """A loop of 8 to 31 iterations inside another loop is left rolled (unless it goes
    through an index table), and the code LLVM makes is smaller than unrolled."""
    from llvmlite import ir
    from symgrad.lower import llvm_hints
    module = ir.Module()
    assert llvm_hints.hint(module, (8,), False, enclosed=True) is not None
    assert llvm_hints.hint(module, (31,), False, enclosed=True) is not None
    for dims, enclosed, indexed in [((8,), True, True), ((8,), False, False),
                                    ((7,), True, False), ((32,), True, False)]:
        assert llvm_hints.hint(module, dims, False, enclosed, indexed) is None
    # rows are vectorized at a width dividing their trip count, not interleaved
    assert [llvm_hints.row_width(n) for n in (8, 16, 12, 10, 9, 31)] == [8, 8, 4, 2, 0, 0]

    def loop_settings(loop_id):
        return " ".join(str(op) for op in loop_id.operands[1:])
    assert '"llvm.loop.vectorize.width", i32 4' in loop_settings(
        llvm_hints.hint(module, (12,), False, enclosed=True))
    assert "vectorize.width" not in loop_settings(llvm_hints.hint(module, (9,), False, True))
    with sg.Graph().as_default():
        outputs, w = _layer_hessian(1.0)
        rolled = sg.compile(outputs, [w], cache=False, wait=True)
        monkeypatch.setattr(llvm_hints, "ROLL_BELOW", 0)
        plain_outputs, u = _layer_hessian(1.5)   # (another constant: another module)
        plain = sg.compile(plain_outputs, [u], cache=False, wait=True)
    # The ratio depends on the CPU LLVM targets: 0.81 on an AMD Zen 4 before the kernels
    # had alias scopes (lower.alias); with them 0.91 on an Intel Xeon and 0.96 on the Zen 4
    # (998 / 1040 lines: a row of 8 doubles is one AVX-512 vector, so unrolling it adds
    # less).  Without the hints both builds are the same code: a ratio of 1.
    assert _llvm_lines(rolled) < 0.98 * _llvm_lines(plain)
    for _ in range(3):
        v = rng.uniform(-1, 1, 16)
        _assert_matches(rolled, outputs, {w: v})
        _assert_matches(plain, plain_outputs, {u: v})
