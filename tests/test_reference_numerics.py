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
