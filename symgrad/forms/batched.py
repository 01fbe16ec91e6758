"""Matrix readings of batched sweeps: a batch axis of unit seeds read as matrix columns.

``sg.hessians`` and ``sg.jacobian`` build one sweep with a seed leaf ``t`` and
then batch it over the identity's rows (``seeds.vmap``, which records each
batched output in ``graph.batches``).  Lifted with ``t`` standing for a unit
vector ``e_k``, the sweep's output reads ``M e_k`` (a Hessian-vector product
``Xᵀ diag(d) X e_k``); over the seeds ``e_0 .. e_{n-1}`` the batched output is
the matrix whose row b is ``(M e_b)ᵀ``: ``(M I)ᵀ = Mᵀ``.

Imports the evaluator's graph walk, ``patterns.is_unit_batch``, ``lifting`` and
``matrixrules``.
"""
from __future__ import annotations

import numpy as np
from sympy import Transpose

from ..evaluate import needed
from ..patterns import is_unit_batch

from .lifting import Lifted, UnitVector, Unsupported, size_of, linear_in
from .matrixrules import lift

SEED = "e_k"     # the name of the seed's unit vector while a sweep is lifted (lifting's too)


def lift_all(outputs, lifter, values):
    """Lift every ancestor of ``outputs`` into ``values``; batched sweeps via their seed."""
    batches = outputs[0].graph.batches if outputs else {}
    for node in needed(outputs, batches):   # not entering batched sweeps
        if node in values:
            continue
        if node in batches:
            values[node] = lift_batch(node, lifter, values)
        else:
            values[node] = lift(node, lifter, values)


def lift_batch(node, lifter, values):
    """The batched output ``node`` as the matrix ``Mᵀ`` from its sweep's ``M e_k``."""
    one, seed, batch = node.graph.batches[node]
    if seed.ndim != 1 or one.ndim > 1:
        raise Unsupported(f"the batched sweep {node.name!r} has a seed of shape {seed.shape} "
                          f"and rows of shape {one.shape}: only vectors read as matrix columns")
    n = seed.shape[0]
    if not is_unit_batch(batch, n):
        raise Unsupported(f"the batched sweep {node.name!r} is not over unit seeds "
                          "(a compressed or custom batch has no matrix notation here)")
    e = UnitVector(SEED, size_of(n), 1)
    values[seed] = Lifted(lifter.atom(e), seed.shape)
    lift_all([one], lifter, values)
    try:
        m = linear_in(lifter.matrix(values[one]), e)
    except Unsupported as exc:
        raise Unsupported(f"the batched sweep {node.name!r}: its row for seed e_k is "
                          f"{exc}") from None
    return Lifted(lifter.atom(Transpose(m).doit()), node.shape)
