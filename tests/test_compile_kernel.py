"""Instruction choices of the LLVM emitter (``lower.peephole``): the sine and cosine
of one value are taken side by side (one ``sincos`` call where the C library has
it), and small gathers/scatters through index tables are emitted unrolled, with
the tables' entries as constant addresses.

Values are checked against the reference evaluator and against the same kernel
emitted without the choice (bit for bit: the choices change no arithmetic).
"""
import platform
import re

import numpy as np
import pytest

import symgrad as sg
from symgrad.lower import peephole

from .programs import sine_chain


def _pairs(x):
    i, j = np.triu_indices(8, 1)   # 28 pairs: LLVM by itself unrolls loops of up to ~30
    pos = sg.reshape(x, (8, 3))
    d = pos[i] - pos[j]
    s6 = 1.0 / sg.reduce_sum(d * d, axis=1) ** 3
    return sg.reduce_sum(s6 * s6 - s6)


def _springs(x):   # the same pairs, no division: (r^2 - 1)^2 per pair
    i, j = np.triu_indices(8, 1)
    pos = sg.reshape(x, (8, 3))
    d = pos[i] - pos[j]
    return sg.reduce_sum((sg.reduce_sum(d * d, axis=1) - 1.0) ** 2)


def _build(loss, n):
    """``(evaluator, outputs, x)``: value and gradient, compiled without the cache."""
    with sg.Graph().as_default():
        x = sg.placeholder(shape=(n,), name="x")
        y = loss(x)
        outputs = [y, sg.gradients(y, x)[0]]
        return sg.compile(outputs, [x], cache=False), outputs, x


def _plain(monkeypatch, loss, n):
    """The same kernel emitted without either choice."""
    monkeypatch.setattr(peephole, "UNROLL_POINTS", 0)
    from symgrad.lower import llvm_loops
    monkeypatch.setattr(llvm_loops, "trig_pairs", lambda stmts: set())
    return _build(loss, n)[0]


def _points(rng, n):
    return [rng.uniform(-1, 1, n) for _ in range(4)] + [np.zeros(n), np.full(n, np.nan)]


def _batches_equal_points(f, xs):
    """``f.batched(xs)`` equals ``f`` at each point, bit for bit (value and gradient)."""
    got = f.batched(xs)
    for i, v in enumerate(xs):
        one = f(v)
        assert np.array_equal(got[0][i], one[0], equal_nan=True)
        assert np.array_equal(got[1][i], one[1], equal_nan=True)


def _chain12(x):
    return sine_chain(x, 12)


def _lattice(x):   # 8 particles near a lattice: no pair closer than ~0.8
    grid = np.array([[a, b, c] for a in (0, 1) for b in (0, 1) for c in (0, 1)], float)
    return _pairs(x + sg.constant(1.2 * grid.reshape(-1)))


LOSSES = {"chain": (_chain12, 12), "pairs": (_lattice, 24)}


@pytest.fixture(scope="module")
def chain():
    return _build(*LOSSES["chain"])


@pytest.fixture(scope="module")
def pairs():
    return _build(*LOSSES["pairs"])


@pytest.fixture(scope="module")
def springs():
    return _build(_springs, 24)


def test_sine_and_cosine_of_one_value_are_paired(chain):
    f, outputs, x = chain
    pairs = peephole.trig_pairs(f.program.stmts)
    assert len(pairs) == 11   # every step's f: sin in the forward pass, cos in the reverse
    if platform.system() == "Linux" and platform.machine() == "x86_64":
        asm = f._kernel.inspect_asm(f._kernel.signatures[0])
        assert re.search(r"\bsincos\b", asm)
        assert not re.search(r"\$(sin|cos)\b", asm)   # no lone sin or cos call left


def test_unpaired_sine_is_untouched():
    with sg.Graph().as_default():
        x = sg.placeholder(shape=(3,), name="x")
        y = sg.reduce_sum(sg.sin(x) + sg.cos(2.0 * x))
        f = sg.compile([y], [x], cache=False)
    assert peephole.trig_pairs(f.program.stmts) == set()
    v = np.array([0.1, -2.0, 3.0])
    assert f(v)[0] == pytest.approx(np.sum(np.sin(v) + np.cos(2 * v)), rel=1e-14)


def test_table_loops_are_unrolled(pairs):
    f = pairs[0]
    tables = [st for st in f.program.stmts
              if any(a is not None and a[0] == "tab" for a in (st.dst_addr,) +
                     tuple(a for _, a in st.srcs))]
    assert tables and all(peephole.unrolled(st) for st in tables)
    assert not any(peephole.unrolled(st) for st in f.program.stmts if st not in tables)
    ir = f._kernel.inspect_llvm(f._kernel.signatures[0])
    assert "symgrad.const" not in ir   # every table entry became a constant address


@pytest.mark.parametrize("case", sorted(LOSSES))
def test_values_equal_the_plain_kernel_and_the_reference(case, request, monkeypatch, rng):
    f, outputs, x = request.getfixturevalue(case)
    plain = _plain(monkeypatch, *LOSSES[case])
    for v in _points(rng, LOSSES[case][1]):
        got, alone = f(v), plain(v)
        for g, a, w in zip(got, alone, sg.evaluate(outputs, {x: v})):
            np.testing.assert_array_equal(g, a)
            np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)


def test_points_side_by_side_pair_every_sine_and_cosine(rng):
    """A long chain (beyond the 64 values a one-point kernel once paired at most) pairs
    every value, in the one-point kernel and in the batch loop's kernel of several
    points; its points equal one-point calls bit for bit."""
    steps = 70
    f = _build(lambda x: sine_chain(x, steps), steps)[0]
    assert len(peephole.trig_pairs(f.program.stmts)) == steps - 1
    assert "_lanes(" in f._text
    if platform.system() == "Linux" and platform.machine() == "x86_64":
        asm = f._kernel.inspect_asm(f._kernel.signatures[0])
        assert not re.search(r"\$(sin|cos)\b", asm)   # no lone sin or cos call left
    _batches_equal_points(f, np.vstack([rng.uniform(-1, 1, (5, steps)), np.zeros(steps),
                                        np.full(steps, np.nan)]))
    if platform.system() == "Linux" and platform.machine() == "x86_64":
        batch = f._batch_entry()   # (what batched runs: the batch loop's body too)
        assert re.search(r"\bsincos\b", batch.inspect_asm(batch.signatures[0]))


def test_batch_loop_unrolls_a_small_indexed_kernel_whole(springs, chain, rng):
    """The batch loop's kernel of a small pair program that does not divide has every
    loop unrolled (its temporaries at constant addresses); its points equal one-point
    calls bit for bit."""
    f = springs[0]
    assert peephole.unrolled_whole(f.program) and "_whole(" in f._text
    assert not peephole.unrolled_whole(chain[0].program) and "_whole(" not in chain[0]._text
    _batches_equal_points(f, np.vstack(_points(rng, 24) + [rng.uniform(-1, 1, (6, 24))]))
    batch = f._batch_entry()
    assert "symgrad.const" not in batch.inspect_llvm(batch.signatures[0])


def test_dividing_pair_loops_run_as_vectors(pairs, rng):
    """Lennard-Jones' pair loop divides twice per pair: its energy sum runs in a loop of
    its own after it (``loopfuse._kept_apart``), each pair's 3 coordinates are emitted
    unrolled (``peephole.unrolled_inner``: as a loop LLVM unswitched it on the
    strong-zero guard of the pair's cotangent), so LLVM vectorises the pair loop; and
    the batch loop takes that kernel rather than one unrolled whole.  Batches equal
    one-point calls bit for bit (and the reference: test_values_equal...)."""
    f = pairs[0]
    assert peephole.vector_divisions(f.program.stmts) == {28}
    assert not peephole.unrolled_whole(f.program) and "_whole(" not in f._text
    ir = f._kernel.inspect_llvm(f._kernel.signatures[0])
    if platform.machine() in ("x86_64", "AMD64", "aarch64", "arm64"):
        assert re.search(r"fdiv <\d+ x double>", ir)   # the divisions, several a vector
    _batches_equal_points(f, np.vstack(_points(rng, 24) + [rng.uniform(-1, 1, (7, 24))]))


def test_pair_loops_through_index_tables_stay_scalar():
    """20 particles: 190 pairs, too many to unroll their gathers, which then read
    index tables inside the pair loop; it stays scalar, so its sum stays in it and its
    inner loops stay loops (unrolled, they cost Lennard-Jones 27's gradient 1.2x)."""
    from symgrad.lower import loopfuse
    from symgrad.lower.program import lower_graph
    i, j = np.triu_indices(20, 1)
    with sg.Graph().as_default():
        x = sg.placeholder(shape=(60,), name="x")
        pos = sg.reshape(x, (20, 3))
        d = sg.gather(pos, i) - sg.gather(pos, j)
        s6 = 1.0 / sg.reduce_sum(d * d, axis=1) ** 3
        y = sg.reduce_sum(s6 * s6 - s6)
        program = lower_graph([y, sg.gradients(y, x)[0]], [x])
    assert any(peephole.indexed(st) and not peephole.unrolled(st) for st in program.stmts)
    assert peephole.vector_divisions(program.stmts) == set()
    assert not loopfuse._kept_apart(program.stmts)


def test_large_or_unindexed_programs_are_not_unrolled_whole(monkeypatch, springs):
    program = springs[0].program
    monkeypatch.setattr(peephole, "WHOLE_INSTRUCTIONS", 100)
    assert not peephole.unrolled_whole(program)
    monkeypatch.setattr(peephole, "UNROLL_POINTS", 10)
    monkeypatch.setattr(peephole, "WHOLE_INSTRUCTIONS", 10 ** 6)
    assert not peephole.unrolled_whole(program)   # a loop of 28 pairs is too long
