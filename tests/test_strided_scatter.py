"""The reference evaluator's scatter-add by strided additions (``ops.strided_scatter``)
against ``np.add.at``, on the index tables convolutions, pooling and slices make and
on tables it must refuse (repeated positions inside every slice)."""
import numpy as np
import pytest

import symgrad as sg
from symgrad.ops import strided_scatter as S
from symgrad.tracing.conv import _window_index


def _windows(shape, ksize, strides, dilations, padding):
    index, (top, bottom, left, right) = _window_index(shape, ksize, strides, dilations, padding)
    n, h, w, c = shape
    padded = (n, h + top + bottom, w + left + right, c)
    return padded, index


def _check(shape, index, g, expect_plan=True):
    found = S.plan(shape, index, g.shape, small=0)
    assert (found is not None) == expect_plan
    want = np.zeros(shape, dtype=g.dtype)
    np.add.at(want, index, g)
    got = S.apply_plan(g, shape, found) if found is not None else S.add_at(g, shape, index)
    assert got.dtype == want.dtype and got.shape == want.shape
    if g.dtype.kind in "fc":   # the slices' terms are summed in another order
        tol = 1e-5 if g.dtype == np.float32 else 1e-12
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
    else:
        np.testing.assert_array_equal(got, want)
    return found


@pytest.mark.parametrize("ksize,strides,dilations,padding", [
    ((3, 3), (1, 1), (1, 1), "SAME"), ((5, 5), (1, 1), (1, 1), "SAME"),
    ((2, 2), (2, 2), (1, 1), "VALID"), ((3, 2), (2, 1), (1, 1), "SAME"),
    ((3, 3), (1, 1), (2, 2), "VALID"), ((3, 3), (2, 2), (1, 1), "SAME")])
def test_convolution_and_pooling_windows_scatter_by_taps(rng, ksize, strides, dilations,
                                                         padding):
    shape, index = _windows((3, 9, 8, 4), ksize, strides, dilations, padding)
    g_shape = np.zeros(shape)[index].shape
    found = _check(shape, index, rng.normal(size=g_shape))
    taps = ksize[0] * ksize[1]
    # one strided addition per tap: along the windows' last axis, or the whole when the
    # windows do not overlap (stride >= window: pooling)
    assert found[0] in (None, 4) and len(found[1]) in (1, taps)


def test_overlapping_windows_are_added_tap_by_tap(rng):
    shape, index = _windows((2, 6, 6, 3), (3, 3), (1, 1), (1, 1), "VALID")
    found = _check(shape, index, rng.normal(size=(2, 4, 4, 3, 9)))
    assert found[0] == 4 and len(found[1]) == 9


@pytest.mark.parametrize("index,g_shape", [
    ((slice(None, None, -1),), (7,)),                     # reversed: negative stride
    ((slice(1, None, 2), slice(None, None, -2)), (3, 4)),
    ((Ellipsis, 1), (6,)),
    ((None, slice(None), 2), (1, 6)),
    ((np.array([[0], [2], [4]]), np.array([[1, 3, 5]])), (3, 3)),   # broadcast tables
])
def test_slices_and_broadcast_tables(rng, index, g_shape):
    shape = (7,) if len(index) == 1 else (6, 7)
    _check(shape, index, rng.normal(size=g_shape))


@pytest.mark.parametrize("index", [
    (Ellipsis, slice(2, None, 3), np.array([[1], [4]]), np.array([0, 2, 5])),
    (slice(None, None, -1), None, Ellipsis, np.array([3, 1, 0]), slice(1, 6)),
    (np.array([[0, 4], [2, 2]]), slice(None), slice(5, 0, -2), 3),
    (slice(1, 4), 2, slice(None), slice(None))])
def test_slices_cut_to_two_entries_give_the_whole_scatter(rng, index):
    # the plan is read from the index with its slices cut short; the additions cover
    # every entry of g (slices of 3 to 7 entries around arrays, ints and None)
    shape = (7, 6, 7, 6)
    g = rng.normal(size=np.zeros(shape)[index].shape)
    assert S._cut_slices(shape, index) is not None
    _check(shape, index, g, expect_plan=S.plan(shape, index, g.shape, small=0) is not None)
    found = S.plan(shape, index, g.shape, small=0)
    if found is not None:
        full = S.flat_positions(shape, index)
        for i, (offset, strides) in enumerate(found[1]):
            part = full if found[0] is None else full[(slice(None),) * found[0] + (i,)]
            ids = offset + sum(np.arange(n).reshape([-1 if a == k else 1
                                                     for k in range(part.ndim)]) * st
                               for a, (n, st) in enumerate(zip(part.shape, strides)))
            np.testing.assert_array_equal(np.broadcast_to(ids, part.shape), part)


def test_repeated_positions_in_every_slice_fall_back_to_add_at(rng):
    index = (np.array([[0, 0, 1], [1, 1, 2], [2, 2, 0]]),)
    _check((3,), index, rng.normal(size=(3, 3)), expect_plan=False)


def test_repeated_rows_are_added_one_slice_after_another(rng):
    # an embedding lookup's adjoint (ids repeat): each row is one strided addition,
    # in the order np.add.at adds them, so the sums are the same bit for bit
    rows = (np.array([3, 1, 3, 3, 0]),)
    g = rng.normal(size=(5, 6))
    found = _check((4, 6), rows, g)
    assert found[0] == 0
    want = np.zeros((4, 6))
    np.add.at(want, rows, g)
    np.testing.assert_array_equal(S.apply_plan(g, (4, 6), found), want)


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.int32, np.complex128, bool])
def test_dtypes(rng, dtype):
    shape, index = _windows((2, 5, 5, 2), (2, 2), (1, 1), (1, 1), "VALID")
    g = (rng.normal(size=(2, 4, 4, 2, 4)) * 10).astype(dtype)
    _check(shape, index, g)


def test_objects_and_small_scatters_use_add_at():
    index = (np.array([0, 1, 1]),)
    g = np.array([1, 2, 3], dtype=object)
    np.testing.assert_array_equal(S.add_at(g, (2,), index), [1, 5])
    assert S.cached_plan((4,), (slice(None),), (4,)) is None      # below SMALL


def test_empty_scatter():
    out = S.add_at(np.zeros((0, 3)), (2, 3), (np.array([], dtype=np.int64),))
    np.testing.assert_array_equal(out, np.zeros((2, 3)))


def test_a_convolution_gradient_equals_the_add_at_scatter(rng):
    # the graph's index_add (a conv2d's input gradient) at a size past SMALL, by the
    # plan, against the same scatter by np.add.at
    x0 = rng.normal(size=(4, 12, 12, 3))
    w0 = rng.normal(size=(3, 3, 3, 5))
    x = sg.constant(x0)
    y = sg.reduce_sum(sg.sin(sg.nn.conv2d(x, w0, 1, "SAME")))
    (gx,) = sg.gradients(y, x)
    got = sg.evaluate(gx)
    scatter = next(n for n in gx.graph.nodes if n.opdef.name == "index_add")
    assert S.cached_plan(tuple(scatter.attrs["shape"]), scatter.attrs["index"],
                         scatter.inputs[0].shape) is not None
    g = sg.evaluate(scatter.inputs[0])
    want = np.zeros(scatter.attrs["shape"])
    np.add.at(want, scatter.attrs["index"], g)
    np.testing.assert_allclose(sg.evaluate(scatter), want, rtol=1e-12, atol=1e-12)
    assert np.all(np.isfinite(got)) and got.shape == x0.shape
