"""The call path: ``f(x)`` runs a Numba dispatcher that boxes the outputs into their
structure itself (``lower.fastcall``, ``lower.boxing``); arguments that do not fit the
kernel take the checked Python path.  Oracle: the reference evaluator."""
import gc
import inspect
import sys

import numpy as np
import pytest
from numba import njit
from numba.core.dispatcher import Dispatcher

import symgrad as sg
from symgrad.errors import ArgumentError, ShapeError


def _direct(f):
    """The dispatcher ``f(...)`` runs, if calling ``f`` runs one directly."""
    call = inspect.getattr_static(type(f), "__call__")
    return call.__func__ if isinstance(call, staticmethod) else None


@pytest.fixture(scope="module")
def model():
    with sg.Graph().as_default():
        x = sg.placeholder(shape=(3,), name="x")
        t = sg.placeholder(name="t")
        n = sg.placeholder(dtype=np.int64, name="n")
        y = sg.reduce_sum(sg.sin(x) * t) * sg.cast(n, "float64")
        gx, gt, gn = sg.gradients(y, [x, t, n])
        structure = {"y": y, "grads": [gx, (gt, gn)], "more": (x * t, [y])}
        f = sg.compile(structure, [x, t, n])
        xv, tv, nv = np.array([0.5, -1.0, 2.0]), 1.5, 3
        want = sg.evaluate([y, gx, gt, x * t], {x: xv, t: tv, n: nv})
        yield f, (xv, tv, nv), want, (x, t, n, y, gx)


def _check(got, want):
    y, gx, gt, xt = want
    assert got["y"] == pytest.approx(float(y), rel=1e-14)
    np.testing.assert_allclose(got["grads"][0], gx, rtol=1e-14)
    assert got["grads"][1][0] == pytest.approx(float(gt), rel=1e-14)
    assert got["grads"][1][1] is None           # no gradient for an integer input
    np.testing.assert_allclose(got["more"][0], xt, rtol=1e-14)
    assert got["more"][1] == [got["y"]]
    assert isinstance(got["grads"], list) and isinstance(got["grads"][1], tuple)


def test_the_machine_code_builds_the_structure(model):
    f, args, want, _ = model
    assert isinstance(_direct(f), Dispatcher)   # no Python between caller and kernel
    got = f(*args)
    _check(got, want)
    _check(sg.Evaluator.__call__(f, *args), want)   # the Python path gives the same
    flat = f.jit(*args)                          # f.jit: the non-None outputs, a tuple
    assert isinstance(flat, tuple) and len(flat) == 5
    np.testing.assert_allclose(flat[1], got["grads"][0], rtol=0)


def test_odd_arguments_take_the_checked_path(model):
    f, (xv, tv, nv), want, _ = model
    for x in (list(xv), xv.astype(np.float32).astype(np.float64), np.asfortranarray(xv),
              np.repeat(xv, 2)[::2]):
        _check(f(x, tv, nv), want)
    readonly = xv.copy()
    readonly.flags.writeable = False
    _check(f(readonly, tv, nv), want)
    _check(f(xv, int(tv) if tv.is_integer() else np.float32(tv), nv), want)
    _check(f(xv, tv, float(nv)), want)           # a float of an integer input is cast
    with pytest.raises(ArgumentError, match="'n'"):
        f(xv, tv, float("nan"))                  # never an unchecked int conversion
    with pytest.raises(ShapeError, match=r"input 0 \('x'\).*got \(4,\)"):
        f(np.ones(4), tv, nv)
    with pytest.raises(ArgumentError, match="takes 3 inputs"):
        f(xv, tv)
    with pytest.raises(TypeError, match="too many arguments: expected 3, got 4"):
        f(xv, tv, nv, nv)
    with pytest.raises(TypeError, match="keyword"):
        f(xv, tv, n=nv)


def test_results_are_fresh_objects(model):
    f, args, _, _ = model
    first, second = f(*args), f(*args)
    assert first["grads"][0] is not second["grads"][0]
    count = sys.getrefcount(first["grads"][0])   # outside assert: pytest keeps operands
    assert count == 2   # the list's reference and the argument's: nothing leaked
    first["grads"][0][:] = 0.0
    assert np.all(second["grads"][0] != 0.0)


def test_structures_with_python_objects_keep_the_python_path():
    with sg.Graph().as_default():
        x = sg.placeholder(shape=(2,), name="x")
        f = sg.compile({1: x * 2.0, 2: [x]}, [x])
    assert _direct(f) is None
    got = f(np.array([1.0, 2.0]))
    assert list(got) == [1, 2] and list(got[1]) == [2.0, 4.0] and list(got[2][0]) == [1.0, 2.0]


def test_a_collected_evaluator_leaves_jit_usable_from_njit():
    # Numba unregisters a collected dispatcher's overloads from its target context; the
    # evaluator's own dispatcher must not take the shared kernel's registration with it.
    def build():
        with sg.Graph().as_default():
            x = sg.placeholder(shape=(2,), name="x")
            return sg.compile([sg.reduce_sum(x * x), x * 3.0], [x])
    keep, other = build(), build()
    assert keep.module is other.module
    del other
    gc.collect()
    kernel = keep.jit

    @njit
    def user(v):
        value, triple = kernel(v)
        return value + triple[1]
    assert user(np.array([1.0, 2.0])) == pytest.approx(5.0 + 6.0)
