"""``sg.linalg``: matrix functions over the last two axes (batches in front).

SEMANTICS (TF's behaviour):

- ``diag(v)`` builds a matrix with ``v`` on its diagonal; ``diag_part(m)`` reads
  the diagonal; their gradients are each other (TF).
- ``norm`` is the vector/Frobenius norm (``ord`` 'euclidean', 1 or inf over ``axis``).

>>> with Graph().as_default():
...     m = constant([[1.0, 2.0], [3.0, 4.0]])
...     trace(m).numpy(), diag_part(m).numpy().tolist()
(np.float64(5.0), [1.0, 4.0])
"""
from __future__ import annotations

import numpy as np

from ..errors import ShapeError
from ..ops import apply, literal
from .arrays import eye
from .functions import _lift, matmul, norm, trace  # noqa: F401
from .math_ops import named
from .tensor import Graph, constant  # noqa: F401  (doctests)

__all__ = ["matmul", "matrix_transpose", "transpose", "adjoint", "trace", "diag", "diag_part",
           "eye", "norm", "tensor_diag", "tensor_diag_part"]
# the functions TF also has at the top level (tf.trace, tf.diag, tf.matrix_transpose, ...)
TOP_LEVEL = ["matrix_transpose", "diag_part", "trace"]


def matrix_transpose(a, name="matrix_transpose", conjugate=False):
    """The last two axes swapped."""
    (x,) = _lift([a])
    if x.ndim < 2:
        raise ShapeError(f"matrix_transpose: needs rank >= 2, got shape {x.shape}")
    perm = tuple(range(x.ndim - 2)) + (x.ndim - 1, x.ndim - 2)
    return apply("transpose", [x], perm=perm, name=None if name == "matrix_transpose" else name)


transpose = adjoint = matrix_transpose


def diag(diagonal, name="diag", k=0):
    """Matrices with ``diagonal`` (last axis) on their diagonal, zeros elsewhere."""
    (v,) = _lift([diagonal])
    if v.ndim < 1 or k:
        raise ShapeError("diag: needs a tensor of rank >= 1 and k=0")
    n = v.shape[-1]
    ones = literal(v.graph, np.eye(n, dtype=v.dtype if v.dtype.kind != "b" else np.int64))
    out = apply("reshape", [v], shape=v.shape + (1,)) * ones
    return named(out, None if name == "diag" else name)


def diag_part(input, name="diag_part", k=0):
    """The diagonal of the last two axes."""
    (x,) = _lift([input])
    if x.ndim < 2 or k:
        raise ShapeError("diag_part: needs a tensor of rank >= 2 and k=0")
    m = min(x.shape[-2:])
    i = np.arange(m)
    index = (Ellipsis, i, i)
    return apply("index", [x], index=index, name=None if name == "diag_part" else name)


def tensor_diag(diagonal, name=None):
    """TF1's ``tf.diag`` for a vector: the square diagonal matrix."""
    return diag(diagonal, name=name or "diag")


def tensor_diag_part(input, name=None):
    """TF1's ``tf.diag_part`` for a matrix: its diagonal."""
    return diag_part(input, name=name or "diag_part")
