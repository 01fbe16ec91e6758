"""The reference evaluator's faster numeric forms against the plain numpy expressions
they replace: same values, dtypes and signs of zero."""
import numpy as np
import pytest

from symgrad.ops.functions import _np_heaviside


def _plain_heaviside(x, h0):
    x = np.asarray(x)
    return np.heaviside(np.where(x != x, -1, x), h0)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int32, np.int64,
                                   bool])
@pytest.mark.parametrize("h0", [0, 0.5, 1, np.float64(0.5), np.float32(0.25)])
def test_heaviside_from_comparisons(dtype, h0):
    if np.dtype(dtype).kind == "f":
        x = np.array([-np.inf, -2, -0.0, 0.0, 1e-30, 3, np.inf, np.nan], dtype=dtype)
    else:
        x = np.array([-3, 0, 2]).astype(dtype)
    for value in [x, x.reshape(-1, 1)] + list(x):
        got, want = _np_heaviside(value, h0), _plain_heaviside(value, h0)
        assert np.asarray(got).dtype == np.asarray(want).dtype
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


def test_where_by_bits_is_numpys_where(monkeypatch):
    # every combination of float dtypes, shapes that broadcast, 0-d arrays, numpy and
    # Python scalars (held exactly or not), special values: numpy's dtype, shape and bits
    from symgrad.ops import select
    monkeypatch.setattr(select, "SELECT_FROM", 0)
    rng = np.random.default_rng(5)
    special = np.array([1.5, -0.0, 0.0, np.inf, -np.inf, np.nan, 3e38, 1e-45])
    compared = 0
    for dtype in (np.float16, np.float32, np.float64):
        with np.errstate(all="ignore"):
            a_arr = special.astype(dtype)
        b_arr = rng.normal(size=8).astype(dtype)
        mask = rng.random(8) < 0.5
        for a in (a_arr, a_arr[:1], np.array(a_arr[2]), a_arr[::2], 0, 0.5, -0.0,
                  float("nan"), 1e300, 2**40, 3, True, np.float32(2), np.float64(2), 1j):
            for b in (b_arr, np.array(b_arr[0]), 0, 2.5, np.float64(1)):
                for c in (mask, mask.reshape(8, 1), np.array(True), True):
                    for x, y in ((a, b), (b, a)):
                        try:
                            with np.errstate(all="ignore"):
                                want = np.where(c, x, y)
                        except ValueError:   # shapes that do not broadcast
                            with pytest.raises(ValueError):
                                select.where(c, x, y)
                            continue
                        with np.errstate(all="ignore"):
                            got = select.where(c, x, y)
                        assert got.dtype == want.dtype and got.shape == want.shape
                        assert got.tobytes() == want.tobytes()
                        compared += 1
    assert compared > 1000


def test_sums_written_into_dead_operands_leave_every_other_value_alone():
    # the second run at these sizes adds into arrays made in the run and read by
    # nothing after (from Sums.FROM elements): outputs, feeds, constants and
    # variables keep their values, a value two nodes share (identity) is not written,
    # and the sums are those of a + b
    import symgrad as sg
    from symgrad.evaluate import run
    from symgrad.ops.fastpaths import Sums

    x = sg.placeholder(shape=(64, 80), name="x")
    w = sg.Variable(np.full((64, 80), 0.5), name="w")
    c = sg.constant(np.arange(5120.0).reshape(64, 80))
    a = x * 2.0
    kept = sg.identity(a)           # the same array as a
    total = a + x                   # a's last reader would be this add, but kept holds it
    total = total + w
    total = total + c
    total = total + total * 0.5
    out = total + kept
    feed = {x: np.ones((64, 80))}
    want = (2 + 1 + 0.5 + np.arange(5120.0).reshape(64, 80)) * 1.5 + 2
    written = []
    original = Sums.in_place

    def in_place(self, node, args, shape):
        result = original(self, node, args, shape)
        written.append(result is not None)
        return result
    Sums.in_place = in_place
    try:
        for _ in range(3):
            values = run([out, a], feed)
            np.testing.assert_array_equal(values[out], want)
            np.testing.assert_array_equal(values[a], np.full((64, 80), 2.0))
    finally:
        Sums.in_place = original
    assert any(written) and not all(written)
    np.testing.assert_array_equal(feed[x], np.ones((64, 80)))
    np.testing.assert_array_equal(sg.evaluate(w), np.full((64, 80), 0.5))
    np.testing.assert_array_equal(sg.evaluate(c), np.arange(5120.0).reshape(64, 80))
