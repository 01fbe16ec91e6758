"""Alias scopes on the kernel's loads and stores (``lower.alias``).

Oracles: the LLVM IR of a kernel marks the accesses of each array with a scope of its
own, declared not to alias the others'; kernels with the scopes equal kernels without
them bit for bit and the reference evaluator, on chosen programs (one array passed for
two inputs, ``out=`` arrays, scatter-adds reading and writing one output, split kernels)
and on random programs.
"""
import re

import numpy as np
import pytest
from hypothesis import given, settings
from llvmlite import ir

import symgrad as sg
from symgrad.lower import alias, llvm
from symgrad.lower.llvm_loops import _Mem

from .oracles import compiled_switched, random_program_switched
from .programs import programs


def _rosenbrock(n):
    x = sg.placeholder(shape=(n,), name="x")
    f = sg.reduce_sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)
    return [f, sg.gradients(f, x)[0]], x


def _scoped(text):
    """Per alias.scope list: the noalias list its accesses carry (one each)."""
    pairs = re.findall(r"!alias\.scope (![0-9]+), !noalias (![0-9]+)", text)
    out = {}
    for scope, others in pairs:
        out.setdefault(scope, set()).add(others)
    return out


def test_each_array_has_its_scope_and_no_alias_with_the_others():
    with sg.Graph().as_default():
        outs, x = _rosenbrock(6)
        f = sg.compile(outs, [x], cache=False, wait=True)
    text = str(f._kernel.inspect_llvm(f._kernel.signatures[0]))
    scoped = _scoped(text)
    assert len(scoped) >= 2   # the input and the gradient at least
    assert all(len(lists) == 1 for lists in scoped.values())   # one noalias list per scope
    lists = {s: next(iter(v)) for s, v in scoped.items()}
    assert len(set(lists.values())) == len(lists)


def test_mark_gives_scopes_to_arrays_not_constants(monkeypatch):
    module = ir.Module()
    ptr = ir.Constant(ir.IntType(64), 0)
    mems = {ref: _Mem(ptr, np.float64) for ref in
            [("in", 0), ("in", 1), ("out", 1), ("buf", 0), ("const", 0)]}
    alias.mark(module, mems)
    assert mems[("const", 0)].scope is None
    scoped = [mems[r].scope for r in [("in", 0), ("in", 1), ("out", 1), ("buf", 0)]]
    assert all(s is not None for s in scoped)
    assert all(len(others.operands) == 3 for _, others in scoped)
    # (identity: llvmlite compares metadata by operands, endlessly for self-referring ones)
    assert all(not any(o is own.operands[0] for o in others.operands)
               for own, others in scoped)
    fresh = {ref: _Mem(ptr, np.float64) for ref in [("in", 0), ("out", 1)]}
    monkeypatch.setattr(alias, "ENABLED", False)
    alias.mark(module, fresh)
    assert all(m.scope is None for m in fresh.values())


def test_one_array_for_two_inputs_and_out_arrays_equal_the_reference(monkeypatch):
    rng = np.random.default_rng(5)
    with sg.Graph().as_default():
        a = sg.placeholder(shape=(4, 3), name="a")
        b = sg.placeholder(shape=(4, 3), name="b")
        y = sg.reduce_sum(sg.sin(a) * b + a[::-1] * b[:, ::-1])
        outs = [y] + sg.gradients(y, [a, b])
        on = compiled_switched(alias, True, outs, [a, b], monkeypatch)
        off = compiled_switched(alias, False, outs, [a, b], monkeypatch)
        v = rng.uniform(-1.0, 1.0, (4, 3))
        expected = sg.evaluate(outs, {a: v, b: v})
        for got, apart, e in zip(on(v, v), off(v, v), expected):
            np.testing.assert_array_equal(got, apart)
            np.testing.assert_allclose(got, e, rtol=1e-12, atol=1e-12)
        batch = rng.uniform(-1.0, 1.0, (7, 4, 3))
        out = (np.empty(7), np.empty((7, 4, 3)), np.empty((7, 4, 3)))
        on.batched(batch, batch, out=out)
        for k, e in enumerate(off.batched(batch, batch)[:3]):
            np.testing.assert_array_equal(out[k], e)


@pytest.mark.parametrize("split", [False, True])
def test_scatter_adds_and_split_kernels_equal_unscoped(monkeypatch, split):
    if split:   # functions of a few instructions: the scopes travel with the pointers
        monkeypatch.setattr(llvm, "SPLIT_ABOVE", 0)
        monkeypatch.setattr(llvm, "CHUNK_SIZE", 9)
    rng = np.random.default_rng(11)
    with sg.Graph().as_default():
        outs, x = _rosenbrock(9)
        idx = np.array([0, 3, 3, 8, 1, 3])
        z = sg.reduce_sum(sg.gather(x, idx) ** 3)   # cotangents scattered onto one array
        outs = outs + [z, sg.gradients(z, x)[0]]
        on = compiled_switched(alias, True, outs, [x], monkeypatch)
        off = compiled_switched(alias, False, outs, [x], monkeypatch)
        for value in [rng.uniform(-2.0, 2.0, 9) for _ in range(3)]:
            expected = sg.evaluate(outs, {x: value})
            for got, apart, e in zip(on(value), off(value), expected):
                np.testing.assert_array_equal(got, apart)
                np.testing.assert_allclose(got, e, rtol=1e-12, atol=1e-12)


@settings(max_examples=max(3, settings.default.max_examples // 6), deadline=None)
@given(programs(max_steps=5, control=()))
def test_random_programs_scoped_equal_unscoped(p):
    random_program_switched(p, alias)
