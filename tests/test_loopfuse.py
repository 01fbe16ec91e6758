"""Loop fusion in the emitter (symgrad/lower/loopfuse.py): which statements share a
loop nest, and that fused kernels compute what the statements one by one compute
(bit for bit) and what the reference evaluator computes."""
import numpy as np
import pytest
from hypothesis import given, settings

import symgrad as sg
from symgrad.lower import loopfuse, peephole
from symgrad.lower.ir import Loop, Program
from symgrad.lower.program import lower_graph

from .oracles import compiled_switched, random_program_switched
from .programs import programs

ADD = ((("arg", 0), ("arg", 1), ("add", 0, 1)), "0x0.0p+0")
NEG = (("arg", 0), ("neg", 0))


def _map(n, dst, at, src, src_at):
    return Loop((n,), 1, dst, ("aff", at[0], (at[1],)), [(src, ("aff", src_at[0], (src_at[1],)))],
                NEG)


def _groups(stmts, program=None):
    program = program or Program(stmts=stmts)
    index = {id(st): k for k, st in enumerate(stmts)}
    return [(depth, [index[id(st)] for st in group])
            for depth, group in loopfuse.plan(program, stmts)]


def test_maps_and_a_whole_reduction_share_one_loop():
    a = _map(5, ("buf", 0), (0, 1), ("in", 0), (0, 1))
    b = _map(5, ("buf", 1), (0, 1), ("buf", 0), (0, 1))
    total = Loop((5,), 0, ("ssa", 0), None, [(("buf", 1), ("aff", 0, (1,)))], (("arg", 0),),
                 reduce=ADD + (True,))
    assert _groups([a, b, total]) == [(1, [0, 1, 2])]


def _dividing(n, dst, src):
    return Loop((n,), 1, dst, ("aff", 0, (1,)), [(src, ("aff", 0, (1,)))],
                (("const", "0x1.0p+0"), ("arg", 0), ("div", 0, 1)))


def _sum(n, src, dst=("ssa", 0)):
    return Loop((n,), 0, dst, None, [(src, ("aff", 0, (1,)))], (("arg", 0),),
                reduce=ADD + (True,))


def test_a_whole_sum_runs_after_a_dividing_nest():
    # the nest divides: its sum runs after it (the nest vectorises), the maps stay fused
    a = _dividing(5, ("buf", 0), ("in", 0))
    b = _map(5, ("buf", 1), (0, 1), ("buf", 0), (0, 1))
    c = _map(5, ("buf", 2), (0, 1), ("buf", 1), (0, 1))
    assert _groups([a, b, _sum(5, ("buf", 0)), c]) == [(1, [0, 1, 3]), (0, [2])]
    # a statement reading the sum comes after it; one writing what it reads too
    scaled = Loop((5,), 1, ("buf", 3), ("aff", 0, (1,)),
                  [(("buf", 1), ("aff", 0, (1,))), (("ssa", 0), None)],
                  (("arg", 0), ("arg", 1), ("mul", 0, 1)))
    assert _groups([a, b, _sum(5, ("buf", 0)), c, scaled]) == \
        [(1, [0, 1, 3]), (0, [2]), (0, [4])]
    again = _map(5, ("buf", 0), (0, 1), ("buf", 2), (0, 1))   # overwrites the sum's input
    assert _groups([a, b, _sum(5, ("buf", 0)), c, again]) == \
        [(1, [0, 1, 3]), (0, [2]), (0, [4])]
    # no group yet: the sum stands alone, the statements after it fuse
    assert _groups([_sum(5, ("in", 0)), a, b]) == [(0, [0]), (1, [1, 2])]
    # a nest that calls a function LLVM cannot vectorise keeps its sum
    calls = Loop((5,), 1, ("buf", 1), ("aff", 0, (1,)), [(("buf", 0), ("aff", 0, (1,)))],
                 (("arg", 0), ("call", "exp", 0)))
    assert _groups([a, calls, _sum(5, ("buf", 0))]) == [(1, [0, 1, 2])]


@pytest.mark.parametrize("write_at, read_at, fused", [
    ((0, 1), (0, 1), True),      # the same element in the same iteration
    ((1, 1), (1, 1), True),      # shifted alike
    ((1, 1), (0, 1), True),      # reads what an earlier iteration wrote
    ((0, 1), (1, 1), False),     # reads what a later iteration writes
    ((4, -1), (0, 1), False),    # reversed
])
def test_a_read_joins_only_after_its_write(write_at, read_at, fused):
    a = _map(5, ("buf", 0), write_at, ("in", 0), (0, 1))
    b = _map(5, ("buf", 1), (0, 1), ("buf", 0), read_at)
    assert _groups([a, b]) == ([(1, [0, 1])] if fused else [(0, [0]), (0, [1])])


def test_a_write_after_a_later_read_keeps_apart():
    # b overwrites element i + 1 while a still has to read it in iteration i + 1
    a = _map(4, ("buf", 1), (0, 1), ("buf", 0), (0, 1))
    b = _map(4, ("buf", 0), (1, 1), ("in", 0), (0, 1))
    assert _groups([a, b]) == [(0, [0]), (0, [1])]


def test_scatter_adds_keep_their_order_of_sums():
    def scatter(at):
        return Loop((4,), 1, ("out", 0), ("aff", at, (1,)), [(("in", 0), ("aff", 0, (1,)))],
                    (("arg", 0),), reduce=ADD + (False,))
    # element k gets a's term (iteration k - 1) before b's (iteration k): kept
    assert _groups([scatter(1), scatter(0)]) == [(1, [0, 1])]
    # element k gets a's term in iteration k, b's in k - 1: b would add first
    assert _groups([scatter(0), scatter(1)]) == [(0, [0]), (0, [1])]


def test_a_whole_reduction_is_not_read_inside_the_nest():
    total = Loop((4,), 0, ("ssa", 0), None, [(("in", 0), ("aff", 0, (1,)))], (("arg", 0),),
                 reduce=ADD + (True,))
    scaled = Loop((4,), 1, ("buf", 0), ("aff", 0, (1,)),
                  [(("in", 0), ("aff", 0, (1,))), (("ssa", 0), None)],
                  (("arg", 0), ("arg", 1), ("mul", 0, 1)))
    assert _groups([total, scaled]) == [(0, [0]), (0, [1])]


def test_independent_statements_move_before_a_group_and_outer_loops_are_shared():
    a = Loop((4, 3), 2, ("buf", 0), ("aff", 0, (3, 1)), [(("in", 0), ("aff", 0, (3, 1)))], NEG)
    const = Loop((), 0, ("ssa", 0), None, [], (("const", "0x1.0p+0"),))
    rows = Loop((4, 3), 1, ("buf", 1), ("aff", 0, (1, 0)), [(("buf", 0), ("aff", 0, (3, 1)))],
                (("arg", 0),), reduce=ADD + (True,))
    zero = Loop((7,), 1, ("out", 0), ("aff", 0, (1,)), [], (("const", "0x0.0p+0"),))
    use = Loop((4,), 1, ("out", 0), ("aff", 0, (1,)), [(("buf", 1), ("aff", 0, (1,)))],
               (("arg", 0),), reduce=ADD + (False,))
    # the row sums need their own inner loop: the nest shares one loop
    assert _groups([a, rows, const, zero, use]) == [(0, [2]), (0, [3]), (1, [0, 1, 4])]


def test_a_short_outer_loop_does_not_hold_a_deeper_nest_to_its_depth():
    # a zero fill over 3 colours, then two sweeps over (3, 9): sharing only the colour
    # loop with the fill would keep the sweeps from sharing both loops
    zero = Loop((3,), 1, ("buf", 0), ("aff", 9, (10,)), [], (("const", "0x0.0p+0"),))
    a = Loop((3, 9), 2, ("buf", 0), ("aff", 0, (10, 1)), [(("in", 0), ("aff", 0, (0, 1)))], NEG)
    b = Loop((3, 9), 2, ("buf", 1), ("aff", 0, (9, 1)), [(("buf", 0), ("aff", 0, (10, 1)))], NEG)
    assert _groups([zero, a, b]) == [(0, [0]), (2, [1, 2])]
    short = Loop((3,), 1, ("buf", 2), ("aff", 0, (1,)), [(("in", 0), ("aff", 0, (1,)))], NEG)
    assert _groups([a, b, short]) == [(0, [2]), (2, [0, 1])]   # nor cut the group's nest (moved before it)
    with pytest.MonkeyPatch.context() as mp:   # the former rule: one shared loop for all
        mp.setattr(loopfuse, "MIN_SHARED", 1)
        assert _groups([zero, a, b]) == [(1, [0, 1, 2])]


def test_a_statement_between_a_lone_sweep_and_its_consumer_moves_before_them():
    # a seed sweep's reduction over its last axis, a map over the pairs alone, then a
    # map over seeds and pairs reading the reduction (LJ-27's Hessian): the map over the
    # pairs goes first, so the sweep shares both loops with its consumer
    sweep = Loop((2, 4, 3), 2, ("buf", 0), ("aff", 0, (4, 1, 0)),
                 [(("in", 0), ("aff", 0, (12, 3, 1)))], (("arg", 0),), reduce=ADD + (True,))
    pairs = Loop((4,), 1, ("buf", 1), ("aff", 0, (1,)), [(("in", 1), ("aff", 0, (1,)))], NEG)
    use = Loop((2, 4), 2, ("buf", 2), ("aff", 0, (4, 1)),
               [(("buf", 0), ("aff", 0, (4, 1))), (("buf", 1), ("aff", 0, (0, 1)))],
               (("arg", 0), ("arg", 1), ("add", 0, 1)))
    assert _groups([sweep, pairs, use]) == [(0, [1]), (2, [0, 2])]
    # not when the next statement would not join either: the order is kept
    other = Loop((3,), 1, ("buf", 2), ("aff", 0, (1,)), [(("in", 1), ("aff", 0, (1,)))], NEG)
    assert _groups([sweep, pairs, other]) == [(0, [0]), (0, [1]), (0, [2])]
    # nor when it touches what the sweep touches
    clash = Loop((4,), 1, ("buf", 1), ("aff", 0, (1,)), [(("buf", 0), ("aff", 0, (1,)))], NEG)
    assert _groups([sweep, clash, use]) == [(0, [0]), (0, [1]), (0, [2])]


def test_the_emitter_uses_the_plan_made_before_buffers_were_shared(monkeypatch):
    """One plan per kernel: ``liveness.share_buffers`` remembers it for the emitter."""
    calls = []
    real = loopfuse.plan
    monkeypatch.setattr(loopfuse, "plan", lambda p, stmts: calls.append(len(stmts)) or
                        real(p, stmts))
    with sg.Graph().as_default():
        x = sg.placeholder(shape=(30,), name="x")
        y = sg.reduce_sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)
        outputs = [y] + sg.gradients(y, x)
        f = sg.compile(outputs, [x], cache=False, wait=True)
        point = np.linspace(-1.0, 1.0, 30)
        got, want = f(point), sg.evaluate(outputs, {x: point})
    assert len(calls) == 1
    np.testing.assert_allclose(got[1], want[1], rtol=1e-13)
    program = Program(stmts=[_map(4, ("buf", 0), (0, 1), ("in", 0), (0, 1))])
    loopfuse.remember(program, [(0, list(program.stmts))])
    assert loopfuse.planned_for(program, list(program.stmts)) == [(0, program.stmts)]
    assert len(calls) == 1   # (the same statements: no new plan)
    other = [_map(4, ("buf", 1), (0, 1), ("in", 0), (0, 1))]
    loopfuse.planned_for(program, other)
    assert len(calls) == 2   # other statements: planned now


def test_statements_read_only_sources_their_body_reads():
    # folding and reuse can leave a source no instruction reads; kept, it would count
    # as a read for buffer sharing and fusion (the sparse Rosenbrock sweep did not fuse)
    with sg.Graph().as_default():
        x = sg.placeholder(shape=(40,), name="x")
        (h,) = sg.hessians(_rosen(x), x, sparse=True)
        program = lower_graph([h.values], [x])
    for st in program.stmts:
        read = {op[1] for op in st.body if op[0] == "arg"}
        assert read == set(range(len(st.srcs))), st.as_tuple()
    assert max(depth for depth, _ in loopfuse.plan(program, program.stmts)) == 2


def test_unknown_sizes_and_unrolled_table_loops_are_left_alone():
    n = sg.graph.Dim(__import__("sympy").Symbol("n", integer=True, nonnegative=True))
    a = Loop((n,), 1, ("buf", 0), ("aff", 0, (1,)), [(("in", 0), ("aff", 0, (1,)))], NEG)
    b = Loop((n,), 1, ("buf", 1), ("aff", 0, (1,)), [(("buf", 0), ("aff", 0, (1,)))], NEG)
    assert _groups([a, b]) == [(0, [0]), (0, [1])]
    program = Program(consts=[("i8", (3,), "")], stmts=[])
    tab = Loop((3,), 1, ("buf", 0), ("aff", 0, (1,)), [(("in", 0), ("tab", 0))], (("arg", 0),))
    c = _map(3, ("buf", 1), (0, 1), ("buf", 0), (0, 1))
    assert _groups([tab, c], program) == [(0, [0]), (0, [1])]


# -- compiled: fused == one by one (bit for bit) == reference ----------------------------

def _compile(outputs, inputs, fuse, monkeypatch):
    return compiled_switched(loopfuse, fuse, outputs, inputs, monkeypatch)


def _lj(x, pairs):
    i, j = pairs
    d = sg.gather(x, i) - sg.gather(x, j)
    r2 = sg.reduce_sum(d * d, axis=1)
    s6 = 1.0 / (r2 * r2 * r2)
    return sg.reduce_sum(4.0 * (s6 * s6 - s6))


def _coulomb(x):   # square roots and divisions over 15 pairs: the pair loop vectorises
    i, j = np.triu_indices(6, 1)
    pos = sg.reshape(x, (6, 3))
    r = sg.sqrt(sg.reduce_sum((pos[i] - pos[j]) ** 2, axis=1))
    return sg.reduce_sum(1.0 / r + r * r)


def _rosen(x):
    a, b = x[:-1], x[1:]
    return sg.reduce_sum(100.0 * (b - a ** 2) ** 2 + (1.0 - a) ** 2)


def _reversed_reads(x):
    a = sg.sin(x)                      # kept in a buffer (a math call)
    return sg.reduce_sum(sg.reverse(a, axis=[0]) * a + sg.cos(a) * x)


@pytest.mark.parametrize("build, shape", [
    (lambda x: _lj(x, np.triu_indices(5, k=1)), (5, 3)),
    (_rosen, (12,)),
    (_reversed_reads, (9,)),
    (_coulomb, (18,)),
])
def test_fused_kernels_equal_unfused_and_reference(build, shape, monkeypatch):
    with sg.Graph().as_default():
        x = sg.placeholder(shape=shape, name="x")
        loss = build(x)
        (g,) = sg.gradients(loss, x)
        program = lower_graph([loss, g], [x])
        assert any(depth for depth, _ in loopfuse.plan(program, program.stmts))
        fused, apart = (_compile([loss, g], [x], on, monkeypatch) for on in (True, False))
        rng = np.random.default_rng(3)
        points = [rng.uniform(0.5, 1.5, shape) * np.arange(1, 1 + np.prod(shape)).reshape(shape)
                  for _ in range(3)] + [np.zeros(shape), np.full(shape, np.nan)]
        if build is _coulomb:   # two particles at one place: inf and NaN in the pair loop
            points.append(np.concatenate([points[0].reshape(-1)[:3], points[0].reshape(-1)[:15]]))
            assert peephole.vector_divisions(program.stmts) == {15}
        for value in points:
            got, one_by_one = fused(value), apart(value)
            expected = sg.evaluate([loss, g], {x: value})
            for a, b, e in zip(got, one_by_one, expected):
                np.testing.assert_array_equal(a, b)
                np.testing.assert_allclose(a, e, rtol=1e-12, atol=1e-12, equal_nan=True)
        batch = np.stack(points[:3])
        np.testing.assert_array_equal(fused.batched(batch)[1], apart.batched(batch)[1])


@settings(max_examples=max(3, settings.default.max_examples // 6), deadline=None)
@given(programs(max_steps=5, control=()))
def test_random_programs_fused_equal_unfused(p):
    random_program_switched(p, loopfuse)


# -- a table gather of an input is read by its single elementwise user ------------------

def _copies_of_inputs(program):
    """Statements that only copy an input through an index table into memory."""
    return [st for st in program.stmts if st.body == (("arg", 0),) and st.reduce is None
            and len(st.srcs) == 1 and st.srcs[0][0][0] == "in" and st.srcs[0][1][0] == "tab"]


@pytest.mark.parametrize("axis", [0, 1, None])
def test_a_gathered_input_is_read_in_place_by_its_user(axis):
    idx = np.array([[5, 0, 3], [1, 4, 2]])
    with sg.Graph().as_default():
        x = sg.placeholder(shape=(6,), name="x")
        picked = sg.gather(x, idx)                 # (2, 3): not affine, a table
        y = sg.reduce_sum(picked - sg.reverse(x, axis=[0])[:3], axis=axis)  # order (1, 0) too
        loss = sg.reduce_sum(sg.sin(y))
        (g,) = sg.gradients(loss, x)
        assert _copies_of_inputs(lower_graph([y, g], [x])) == []
        f = sg.compile([y, g], [x], cache=False, wait=True)
        for value in (np.linspace(-1.0, 2.0, 6), np.arange(6.0) ** 2):
            for a, e in zip(f(value), sg.evaluate([y, g], {x: value})):
                np.testing.assert_allclose(a, e, rtol=1e-12, atol=1e-12)
