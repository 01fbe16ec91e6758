"""The TF1 names of the seventh and eighth probes' modules, gathered for ``compat.v1``: segment
max/min/prod/sqrt_n (``segments``), ``strided_slice`` (``strided``), ``einsum`` with TF's
notations (``einsum``), ``matrix_solve_ls`` (``least_squares``), ``meshgrid``, ``roll``,
``div_no_nan``, ``gather_nd`` over run-time sizes, ``identity_n`` (``small_ops``), the
tensor scatter updates, ``batch_gather``, ``gather``'s ``batch_dims`` and ``switch_case``
(``array_updates``); and
their places in ``tf.math``, ``tf.nn``, ``tf.linalg`` and ``tf.manip``; ``xlogy``,
``polyval`` and the rest of ``math_extra``; ``tf.nest`` (``compat.nest``); ``tf.bitwise``
(``compat.bitwise``); ``tf.slice`` with a begin computed at run time (``slice_at``).  (``v1_breadth`` adds the inverse
hyperbolics, ``linalg.matvec``, the moments and the other names the breadth round
found.)

Sits in ``compat`` under ``v1``, which star-imports it.
"""
from __future__ import annotations

from .. import tracing as _tracing
from . import bitwise as _bitwise
from . import math_extra as _math_extra
from . import nest as _nest
from . import slices as _slices
from . import segments as _segments
from . import small_ops as _small_ops
from .array_updates import *  # noqa: F401,F403  (tf.batch_gather, ...)
from .array_updates import gather as _gather, tensor_scatter_nd_update
from .array_updates import __all__ as _updates
from .einsum import einsum
from .int_math import div, reduce_mean  # noqa: F401  (tf.div)
from .least_squares import matrix_solve_ls
from .runtime import namespace
from .segments import *  # noqa: F401,F403  (tf.unsorted_segment_max, ...)
from .slice_at import slice  # noqa: A004  (tf.slice with a begin computed at run time)
from .small_ops import div_no_nan, gather_nd, identity_n, meshgrid, pad, roll, tf_tuple  # noqa: F401,E501
from .strided import strided_slice
from .tensor import tf1_results, truediv
from .v1_ops import linalg, math, nn, round as _round

tensor_scatter_update = tensor_scatter_nd_update  # (TF 1.13 name)
gather = tf1_results(_gather)   # (batch_dims over run-time sizes: array_updates)


@tf1_results
def transpose(a, perm=None, name="transpose", conjugate=False):
    """``tf.transpose`` with TF1's ``conjugate`` (real tensors: nothing to conjugate)."""
    return _tracing.transpose(a, perm, name=None if name == "transpose" else name)

rint = _round   # (both round half to even, as TF)
math.l2_normalize = nn.l2_normalize
nn.xw_plus_b = tf1_results(_small_ops.xw_plus_b)
nn.convolution = tf1_results(_small_ops.convolution)
nn.pool = tf1_results(_small_ops.pool)
nn.fused_batch_norm = tf1_results(_small_ops.fused_batch_norm)
math.divide_no_nan = tf1_results(div_no_nan)
math.roll = tf1_results(roll)
manip = namespace("manip", roll=roll)
bitwise = namespace("bitwise", **{n: getattr(_bitwise, n) for n in _bitwise.__all__})
nest = namespace("nest", flatten=_nest.flatten, pack_sequence_as=_nest.pack_sequence_as,
                 map_structure=_nest.map_structures, flatten_up_to=_nest.flatten_up_to,
                 assert_same_structure=_nest.assert_same_structure,
                 is_nested=_nest.is_nested, is_sequence=_nest.is_nested)
linalg.einsum = tf1_results(einsum)
linalg.lstsq = tf1_results(matrix_solve_ls)
for _name in _segments.__all__:   # tf.math.segment_prod, ...
    setattr(math, _name, tf1_results(getattr(_segments, _name)))
for _name in _math_extra.__all__:   # tf.math.xlog1py, ...
    setattr(math, _name, tf1_results(getattr(_math_extra, _name)))
# the ones TF1 also has at the top level
conj, invert_permutation, truncatediv, truncatemod, lbeta = (
    getattr(math, n) for n in ("conj", "invert_permutation", "truncatediv", "truncatemod",
                               "lbeta"))

math.softsign = nn.softsign
linalg.l2_normalize, linalg.global_norm = nn.l2_normalize, tf1_results(_slices.global_norm)
linalg.tensordot = math.tensordot = tf1_results(_tracing.tensordot)
scalar_mul = math.scalar_mul
math.reduce_mean = reduce_mean   # (integers stay integers: int_math)
divide = math.truediv = math.divide = truediv   # (integers in TF's float type: tensor)

__all__ = ["scalar_mul", "div", "reduce_mean", "truediv", "divide", "transpose", "nest",
           "bitwise"] + list(_segments.__all__) + list(_updates) + [
    "tensor_scatter_update", "rint", "strided_slice", "einsum", "matrix_solve_ls",
    "div_no_nan", "gather_nd", "identity_n", "meshgrid", "pad", "roll", "manip", "conj",
    "invert_permutation", "truncatediv", "truncatemod", "lbeta", "slice", "gather"]
