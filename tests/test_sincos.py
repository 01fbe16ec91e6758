"""Sines and cosines of one value kept together in kernels split into several functions
(``lower.sincos``; the emitter's ``sincos`` call, one pair of slots per function,
``lower.llvm_scalar``).

Oracles: the reordered statements are a valid schedule (every value read after it is
written, writes of one place in their order); split kernels, optimised or not, equal
the kernel without the move bit for bit and the reference evaluator; random programs
likewise.
"""
import re

import numpy as np
import pytest
from hypothesis import given, settings

import symgrad as sg
from symgrad.lower import llvm, sincos
from symgrad.lower.ir import Loop
from symgrad.lower.peephole import trig_pairs
from symgrad.lower.program import lower_graph

from .oracles import compiled_switched, random_program_switched
from .programs import programs


def _chain(n, scale=1.0):
    x = sg.placeholder(shape=(n,), name="x")
    f = x[0] * scale
    for k in range(1, n):
        f = sg.sin(f) * f + sg.cos(x[k]) * x[k]
    (g,) = sg.gradients(f, x)
    return [f, g], x


def _split(monkeypatch, fast):
    monkeypatch.setattr(llvm, "SPLIT_ABOVE", 0)
    monkeypatch.setattr(llvm, "CHUNK_SIZE", 7)
    monkeypatch.setattr(llvm, "FAST_ABOVE", 0 if fast else 10**9)


def _valid_schedule(before, after):
    """``after`` holds the statements of ``before``, reads every value a statement of
    the program writes after its last write there, and writes each place in order."""
    assert sorted(map(id, before)) == sorted(map(id, after))
    written = {st.dst for st in before}
    for order in (before, after):
        seen = set()
        for st in order:
            for ref, _ in st.srcs:
                assert ref not in written or ref in seen, (ref, st.as_tuple())
            seen.add(st.dst)
    for ref in written:
        assert [id(s) for s in before if s.dst == ref] == [id(s) for s in after if s.dst == ref]


def test_partners_share_a_function():
    with sg.Graph().as_default():
        outs, x = _chain(12)
        stmts = lower_graph(outs, [x]).stmts
    moved = sincos.paired(stmts)
    _valid_schedule(stmts, moved)
    pairs = trig_pairs(stmts)
    assert len(pairs) >= 11      # sin(f) and cos(f) of every step (and of no x[k]: only cos)

    def spread(order):   # per value: how far apart its sine and cosine statements are
        where = {}
        for n, st in enumerate(order):
            for fn, ref in sincos.trig_calls(st):
                where.setdefault(ref, []).append(n)
        return {ref: max(where[ref]) - min(where[ref]) for ref in pairs}
    assert all(d == 1 for d in spread(moved).values())   # side by side: one function
    assert max(spread(stmts).values()) > 7                # (the test can fail)


def _scalar(k, srcs, body):
    return Loop((), 0, ("ssa", k), None, [(("ssa", j), None) for j in srcs], body)


def test_statements_that_cannot_move_stay():
    read = Loop((), 0, ("ssa", 0), None, [(("in", 0), ("aff", 0, ()))], (("arg", 0),))
    sine = _scalar(1, [0], (("arg", 0), ("call", "sin", 0)))
    later = _scalar(2, [1], (("arg", 0), ("call", "exp", 0)))
    # reads a value defined after the sine: stays
    cosine = _scalar(3, [0, 2], (("arg", 0), ("arg", 1), ("call", "cos", 0),
                                 ("mul", 1, 2)))
    stmts = [read, sine, later, cosine]
    assert sincos.paired(stmts) == stmts
    # reads only the value: moves next to the sine
    alone = _scalar(3, [0], (("arg", 0), ("call", "cos", 0)))
    assert sincos.paired([read, sine, later, alone]) == [read, sine, alone, later]
    # its result is written twice (an accumulation): stays
    again = _scalar(3, [3, 2], (("arg", 0), ("arg", 1), ("add", 0, 1)))
    stmts = [read, sine, later, alone, again]
    assert sincos.paired(stmts) == stmts
    # one of its inputs is written twice: stays
    twice = _scalar(0, [0], (("arg", 0), ("neg", 0)))
    stmts = [read, twice, sine, later, alone]
    assert sincos.paired(stmts) == stmts


@pytest.mark.parametrize("fast", [False, True])
def test_split_kernels_equal_unmoved_and_reference(monkeypatch, fast):
    _split(monkeypatch, fast)
    rng = np.random.default_rng(3)
    with sg.Graph().as_default():
        outs, x = _chain(9, scale=1.25 if fast else 1.5)
        on = compiled_switched(sincos, True, outs, [x], monkeypatch)
        off = compiled_switched(sincos, False, outs, [x], monkeypatch)
        assert len(llvm.split_statements(on.program.stmts, 7)) > 3
        for value in [rng.uniform(-2.0, 2.0, 9) for _ in range(3)] + [np.full(9, np.inf)]:
            expected = sg.evaluate(outs, {x: value})
            for a, b, e in zip(on(value), off(value), expected):
                np.testing.assert_array_equal(a, b)
                np.testing.assert_allclose(a, e, rtol=1e-12, atol=1e-12, equal_nan=True)


@settings(max_examples=max(3, settings.default.max_examples // 6), deadline=None)
@given(programs(max_steps=5, control=()))
def test_random_programs_split_and_moved_equal_unmoved(p):
    with pytest.MonkeyPatch.context() as mp:
        _split(mp, fast=True)
        random_program_switched(p, sincos)


def test_one_pair_of_sincos_slots_per_function():
    # LLVM, given sin and cos, makes the same sincos call but with a pair of stack
    # slots of its own per call (a 7 KB frame for the 1,000-step chain)
    with sg.Graph().as_default():
        outs, x = _chain(12)
        f = sg.compile(outs, [x], cache=False)
        value = np.linspace(-1.5, 1.5, 12)
        for a, e in zip(f(value), sg.evaluate(outs, {x: value})):
            np.testing.assert_allclose(a, e, rtol=1e-12, atol=1e-12)
    ir_text = "".join(f.jit.kernel.inspect_llvm().values())
    calls = re.findall(r"call void @sincos\(double [^,]+, ptr [^,]*?(%[\w.\"]+), "
                       r"ptr [^)]*?(%[\w.\"]+)\)", ir_text)
    assert len(calls) >= 11 and len(set(calls)) == 1, calls
    assert "@llvm.sin" not in ir_text and "@llvm.cos" not in ir_text
