"""``tf.einsum`` with the notations TF accepts beyond symgrad's core op: an implicit
output (``"ij,jk"``: the letters used once, in alphabetical order), an ellipsis
(``"...ij,...jk->...ik"``: the leading axes, broadcast from the right), and a letter
repeated within one operand (``"ii"``, ``"bii->bi"``: its diagonal).

Each is rewritten to the core ``einsum`` op: an ellipsis becomes letters the equation
does not use, and a repeated letter takes the diagonal of those two axes first
(``linalg.diag_part`` after moving them last), so the gradient of a trace or diagonal
is the core ops' (g on the diagonal, zeros off it).

Sits in ``compat``; imports ``tracing``.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     m = tf.constant([[1.0, 2.0], [3.0, 4.0]])
...     print(tf.Session().run([tf.einsum("ii", m), tf.einsum("ij,jk", m, m)]))
[5.0, array([[ 7., 10.],
       [15., 22.]], dtype=float32)]
"""
from __future__ import annotations

import string

from .. import tracing as _t
from ..errors import ShapeError
from ..tracing import linalg as _linalg

__all__ = ["einsum"]


def einsum(equation, *inputs, **kwargs):
    """``tf.einsum(equation, *inputs, name=None)`` (module docstring)."""
    name = kwargs.pop("name", None)
    if kwargs:
        raise TypeError(f"einsum: unexpected arguments {sorted(kwargs)}")
    xs = [_t.as_tensor(x) for x in inputs]
    eq = equation.replace(" ", "")
    lhs, arrow, out = eq.partition("->")
    parts = lhs.split(",")
    if len(parts) != len(xs):
        raise ValueError(f"einsum: the equation {equation!r} names {len(parts)} operands, "
                         f"{len(xs)} given")
    parts, out = _expand_ellipsis(parts, out if arrow else None, xs, equation)
    if not arrow:
        counts = {c: "".join(parts).count(c) for c in "".join(parts)}
        out = out + "".join(sorted(c for c, k in counts.items() if k == 1 and c not in out))
    for i, part in enumerate(parts):
        xs[i], parts[i] = _diagonals(xs[i], part)
    return _t.einsum(f"{','.join(parts)}->{out}", *xs, name=name)


def _expand_ellipsis(parts, out, xs, equation):
    """Subscripts with ``...`` replaced by unused letters (right-aligned across operands);
    the output's leading letters for an implicit output."""
    if "..." not in "".join(parts) and (out is None or "..." not in out):
        return parts, out if out is not None else ""
    free = [c for c in string.ascii_letters if c not in equation]
    counts = []
    for part, x in zip(parts, xs):
        named = len(part.replace("...", ""))
        counts.append(x.ndim - named if "..." in part else 0)
        if counts[-1] < 0:
            raise ShapeError(f"einsum: {part!r} names more axes than the operand's shape "
                             f"{x.shape} has")
    n = max(counts)
    letters = "".join(free[:n])
    parts = [p.replace("...", letters[n - k:]) for p, k in zip(parts, counts)]
    _broadcast_batch(parts, xs, letters)
    return parts, (letters if out is None else out.replace("...", letters))


def _broadcast_batch(parts, xs, letters):
    """The ``...`` axes broadcast as numpy's: an operand's axis of size 1 is stretched
    to the others' size (``xs`` changed in place)."""
    sizes = {}
    for part, x in zip(parts, xs):
        for c, d in zip(part, x.shape):
            if c in letters and d != 1:
                sizes.setdefault(c, d)
    for i, (part, x) in enumerate(zip(parts, xs)):
        target = [sizes.get(c, d) if c in letters and d == 1 else d
                  for c, d in zip(part, x.shape)]
        if tuple(target) != tuple(x.shape):
            xs[i] = _t.broadcast_to(x, target)


def _diagonals(x, part):
    """``x`` and its subscripts with every letter repeated in ``part`` reduced to the
    diagonal of its axes."""
    while len(set(part)) < len(part):
        c = next(c for c in part if part.count(c) > 1)
        first = part.index(c)
        second = part.index(c, first + 1)
        rest = [a for a in range(len(part)) if a not in (first, second)]
        moved = _t.transpose(x, rest + [first, second])
        x = _linalg.diag_part(moved)
        part = "".join(part[a] for a in rest) + c
    return x, part
