"""Older objects frozen out of the collector's walks during builds (``symgrad.gcfreeze``).

Oracles: ``gc.get_freeze_count()`` inside and after the block, for nested blocks,
blocks in two threads that overlap, a block that raises, objects the process froze
itself, and the switch; the collector still frees cycles made inside the block; and a
real build lowers inside it and equals the reference evaluator.
"""
import gc
import threading
import weakref

import numpy as np
import pytest

import symgrad as sg
from symgrad import gcfreeze
from symgrad.lower import program


@pytest.fixture(autouse=True)
def _nothing_frozen():
    gc.unfreeze()
    yield
    gc.unfreeze()


def test_frozen_freezes_what_exists_and_unfreezes_it_after():
    with gcfreeze.frozen():
        count = gc.get_freeze_count()
        assert count > 0
        with gcfreeze.frozen():   # nested: one freeze, still in force after the inner block
            assert gc.get_freeze_count() == count
        assert gc.get_freeze_count() == count
    assert gc.get_freeze_count() == 0


def test_cycles_made_inside_are_still_collected():
    class Cycle:
        pass

    with gcfreeze.frozen():
        a = Cycle()
        a.me = a
        alive = weakref.ref(a)
        del a
        gc.collect()
        assert alive() is None


def test_an_error_in_the_block_still_unfreezes():
    with pytest.raises(ZeroDivisionError):
        with gcfreeze.frozen():
            1 / 0
    assert gc.get_freeze_count() == 0


def test_objects_the_process_froze_itself_stay_frozen():
    gc.freeze()
    count = gc.get_freeze_count()
    with gcfreeze.frozen():
        assert gc.get_freeze_count() == count
    assert gc.get_freeze_count() == count


def test_overlapping_blocks_in_two_threads_unfreeze_after_the_last():
    entered, release, seen = threading.Event(), threading.Event(), []

    def other():
        with gcfreeze.frozen():
            entered.set()
            release.wait(10)
        seen.append(gc.get_freeze_count())

    thread = threading.Thread(target=other)
    with gcfreeze.frozen():
        thread.start()
        assert entered.wait(10)
    assert gc.get_freeze_count() > 0   # the other thread's build is still running
    release.set()
    thread.join(10)
    assert seen == [0] and gc.get_freeze_count() == 0


def test_the_switch_leaves_the_collector_alone(monkeypatch):
    monkeypatch.setenv("SYMGRAD_GC_FREEZE", "0")
    with gcfreeze.frozen():
        assert gc.get_freeze_count() == 0


def test_a_build_lowers_with_older_objects_frozen(monkeypatch):
    counts, lower = [], program.lower_graph

    def spy(*args, **kwargs):
        counts.append(gc.get_freeze_count())
        return lower(*args, **kwargs)

    monkeypatch.setattr(program, "lower_graph", spy)
    with sg.Graph().as_default():
        x = sg.placeholder(shape=(3,), name="x")
        y = sg.reduce_sum(sg.sin(x) * x)
        (g,) = sg.gradients(y, x)
        f = sg.compile([y, g], [x], cache=False, wait=True)
        v = np.array([0.5, -1.0, 2.0])
        got = f(v)
        want = sg.evaluate([y, g], {x: v})
    assert len(counts) == 1 and counts[0] > 0 and gc.get_freeze_count() == 0
    assert got[0] == want[0] and np.array_equal(got[1], want[1])


def _chain(steps):
    x = sg.placeholder(shape=(steps,), name="x")
    f = x[0]
    for k in range(1, steps):
        f = sg.sin(f) * f + x[k]
    return x, f


@pytest.mark.parametrize("steps, frozen", [(300, True), (20, False)])
def test_large_sweeps_run_frozen_and_small_ones_not(monkeypatch, steps, frozen):
    from symgrad import differentiate, forward
    seen = {"reverse": [], "tangent": []}
    add_n = differentiate._add_n

    def spy(terms):   # (get_freeze_count walks the frozen objects: once per sweep)
        if not seen[spy.sweep]:
            seen[spy.sweep].append(gc.get_freeze_count())
        return add_n(terms)

    monkeypatch.setattr(differentiate, "_add_n", spy)
    monkeypatch.setattr(forward, "_add_n", spy)
    with sg.Graph().as_default():
        x, f = _chain(steps)   # 4 nodes a step: 300 steps are over gcfreeze.LARGE
        spy.sweep = "reverse"
        (g,) = sg.gradients(f, x)
        spy.sweep = "tangent"
        (t,) = sg.jvp(f, x, np.ones(steps))
        v = np.linspace(-1.0, 1.0, steps)
        got_g, got_t = sg.evaluate([g, t], {x: v})
    assert seen["reverse"] and seen["tangent"] and gc.get_freeze_count() == 0
    assert all((count > 0) == frozen for count in seen["reverse"] + seen["tangent"])
    # the values do not depend on it: the gradient against a central difference
    from tests.oracles import central_difference
    with sg.Graph().as_default():
        x, f = _chain(steps)
        want = central_difference(lambda u: sg.evaluate(f, {x: u}), v)
    assert np.allclose(got_g, want, rtol=1e-4, atol=1e-7 * np.abs(want).max())
    assert np.isclose(got_t, got_g.sum(), rtol=1e-10)
