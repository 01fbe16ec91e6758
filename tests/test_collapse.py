"""Loop collapsing in the emitter (symgrad/lower/collapse.py): a collapsed statement
visits the same elements in the same order (checked address by address), and
collapsed kernels compute bit for bit what the nests compute."""
import itertools

import numpy as np
import pytest
import sympy
from hypothesis import given, settings

import symgrad as sg
from symgrad.graph import Dim
from symgrad.lower import collapse
from symgrad.lower.collapse import collapsed
from symgrad.lower.ir import Loop, c_strides
from symgrad.lower.program import lower_graph

from .oracles import compiled_switched, random_program_switched
from .programs import programs

NEG = (("arg", 0), ("neg", 0))
ADD = ((("arg", 0), ("arg", 1), ("add", 0, 1)), "0x0.0p+0", True)


def _address(addr, idx, dims, tables):
    """The element ``addr`` names at the multi-index ``idx`` (the emitters' rule)."""
    if addr is None:
        return None
    if addr[0] == "aff":
        return addr[1] + sum(s * i for s, i in zip(addr[2], idx))
    lead = addr[2] if len(addr) > 2 else ()
    flat = sum(s * i for s, i in zip(c_strides(dims[len(lead):]), idx[len(lead):]))
    return sum(s * i for s, i in zip(lead, idx)) + int(tables[addr[1]][flat])


def _visits(st, tables):
    """Per iteration, in order: (output position, the addresses of dst and sources)."""
    out = []
    for idx in itertools.product(*[range(d) for d in st.dims]):
        addrs = (st.dst_addr,) + tuple(a for _, a in st.srcs)
        out.append((idx[:st.nout] if st.reduce is not None and st.reduce[2] else None,
                    tuple(_address(a, idx, st.dims, tables) for a in addrs)))
    return out


def _same_visits(st, tables=()):
    new = collapsed(st)
    assert len(new.srcs) == len(st.srcs) and new.body == st.body
    old, got = _visits(st, tables), _visits(new, tables)
    assert [a for _, a in got] == [a for _, a in old]
    if st.reduce is not None and st.reduce[2]:   # the same elements reduce together
        groups = [len(list(g)) for _, g in itertools.groupby(old, key=lambda v: v[0])]
        assert [len(list(g)) for _, g in itertools.groupby(got, key=lambda v: v[0])] == groups
    return new


def test_contiguous_loops_merge_and_a_broadcast_keeps_its_loop():
    st = Loop((4, 5, 3), 3, ("buf", 0), ("aff", 0, (15, 3, 1)),
              [(("in", 0), ("aff", 1, (15, 3, 1)))], NEG)
    assert _same_visits(st).dims == (60,)
    st = Loop((4, 5, 3), 3, ("buf", 0), ("aff", 0, (15, 3, 1)),
              [(("in", 0), ("aff", 0, (5, 1, 0)))], NEG)   # the last loop broadcasts
    assert _same_visits(st).dims == (20, 3)


def test_tables_merge_over_their_loops_and_not_across_their_leading_loops():
    rng = np.random.default_rng(0)
    tables = [rng.permutation(15), rng.permutation(60)]
    seeds = Loop((4, 5, 3), 3, ("buf", 0), ("aff", 0, (15, 3, 1)),
                 [(("in", 0), ("tab", 0, (15,)))], NEG)  # one seed's table, shifted by 15
    assert _same_visits(seeds, tables).dims == (4, 15)
    whole = Loop((4, 5, 3), 3, ("buf", 0), ("aff", 0, (15, 3, 1)),
                 [(("in", 0), ("tab", 1))], NEG)
    assert _same_visits(whole, tables).dims == (60,)
    scatter = Loop((4, 5, 3), 3, ("out", 0), ("tab", 0, (15,)),
                   [(("in", 0), ("aff", 0, (15, 3, 1)))], (("arg", 0),),
                   reduce=ADD[:2] + (False,))
    assert _same_visits(scatter, tables).dims == (4, 15)


def test_reductions_merge_output_loops_and_reduced_loops_apart():
    st = Loop((2, 3, 4, 5), 2, ("buf", 0), ("aff", 0, (3, 1, 0, 0)),
              [(("in", 0), ("aff", 0, (60, 20, 5, 1)))], (("arg", 0),), reduce=ADD)
    assert _same_visits(st).dims == (6, 20)
    assert collapsed(st).nout == 1


def test_loops_of_one_iteration_go():
    st = Loop((33, 16, 1), 3, ("buf", 0), ("aff", 0, (16, 1, 7)),
              [(("in", 0), ("aff", 0, (16, 1, 0))), (("ssa", 0), None)],
              (("arg", 0), ("arg", 1), ("mul", 0, 1)))
    assert _same_visits(st).dims == (528,)
    red = Loop((16, 1, 8), 2, ("buf", 0), ("aff", 0, (1, 0, 0)),
               [(("in", 0), ("aff", 0, (8, 0, 1)))], (("arg", 0),), reduce=ADD)
    new = _same_visits(red)
    assert (new.dims, new.nout) == ((16, 8), 1)
    tables = [np.arange(8)[::-1].copy()]
    lead = Loop((1, 8), 2, ("buf", 0), ("aff", 0, (0, 1)),
                [(("in", 0), ("tab", 0, (8,)))], NEG)
    assert _same_visits(lead, tables).srcs[0][1] == ("tab", 0)


def test_unchanged_statements_and_unknown_sizes_are_returned_as_they_are():
    st = Loop((4, 3), 2, ("buf", 0), ("aff", 0, (1, 4)), [(("in", 0), ("aff", 0, (1, 4)))],
              NEG)   # column order: no pair merges
    assert collapsed(st) is st
    n = Dim(sympy.Symbol("n", integer=True, nonnegative=True))
    st = Loop((n, 3), 2, ("buf", 0), ("aff", 0, (3, 1)), [(("in", 0), ("aff", 0, (3, 1)))],
              NEG)
    assert collapsed(st) is st
    st = Loop((4, 3), 2, ("buf", 0), ("aff", 0, (3, 1)), [(("in", 0), ("aff", 0, (3, 1)))],
              NEG)
    assert collapsed(st, keep=1) is st   # a fused nest's shared loop stays


# -- compiled: collapsed == nested (bit for bit) == reference ----------------------------

def _compile(outputs, inputs, on, monkeypatch):
    return compiled_switched(collapse, on, outputs, inputs, monkeypatch)


def _lj(x):
    i, j = np.triu_indices(6, k=1)
    pos = sg.reshape(x, (6, 3))
    d = sg.gather(pos, i) - sg.gather(pos, j)
    r2 = sg.reduce_sum(d * d, axis=1)
    s6 = 1.0 / (r2 * r2 * r2)
    return sg.reduce_sum(4.0 * (s6 * s6 - s6))


def _mlp(x):
    data = np.linspace(-1.0, 1.0, 10).reshape(5, 2)
    w1 = sg.reshape(x[0:8], (2, 4))
    hidden = sg.tanh(sg.matmul(sg.constant(data), w1) + x[8:12])
    return sg.reduce_mean((sg.matmul(hidden, x[12:16]) + x[16] - 0.5) ** 2)


@pytest.mark.parametrize("build, n", [(_lj, 18), (_mlp, 17)])
def test_collapsed_hessians_equal_nested_and_reference(build, n, monkeypatch):
    with sg.Graph().as_default():
        x = sg.placeholder(shape=(n,), name="x")
        loss = build(x)
        (g,) = sg.gradients(loss, x)
        (h,) = sg.hessians(loss, x)
        program = lower_graph([loss, g, h], [x])
        assert any(collapsed(st) is not st for st in program.stmts)
        on, off = (_compile([loss, g, h], [x], flag, monkeypatch) for flag in (True, False))
        rng = np.random.default_rng(5)
        for value in [rng.uniform(-2.0, 2.0, n) for _ in range(3)] + [np.full(n, np.nan)]:
            got, nested = on(value), off(value)
            expected = sg.evaluate([loss, g, h], {x: value})
            for a, b, e in zip(got, nested, expected):
                np.testing.assert_array_equal(a, b)
                np.testing.assert_allclose(a, e, rtol=1e-10, atol=1e-12, equal_nan=True)


@settings(max_examples=max(3, settings.default.max_examples // 6), deadline=None)
@given(programs(max_steps=5, control=()))
def test_random_programs_collapsed_equal_nested(p):
    random_program_switched(p, collapse)
