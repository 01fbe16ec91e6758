"""``map_fn`` over a function whose results come from Python calls made inside it.

``tf.map_fn(lambda x: tf.py_func(f, [x], tf.float32), elems)`` is a common TF1 idiom:
the rows' results have a shape known only as ``f`` runs, which TF stacks at run
time.  symgrad builds the loop on known shapes, so such a map becomes one Python
call itself (``ops.python``): it evaluates the traced row function on each row with
the reference evaluator and stacks the results; its shape is known when it runs,
as a ``py_func``'s.  That is exact only where TF's gradient through the map is
None as well: every path from the rows (and the tensors the function reads) to its
results passes through a Python call without a gradient.  Otherwise
:func:`python_rows` declines (None) and the caller asks for ``set_shape``.

Imports ``ops.python``, the evaluator and ``control.function``.

>>> import numpy as np, symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     m = tf.map_fn(lambda r: tf.py_func(lambda v: v * 2, [r], tf.float32),
...                   tf.constant([[1.0], [2.0]]))
...     tf.Session().run(m).tolist()
[[2.0], [4.0]]
"""
from __future__ import annotations

import numpy as np

from ..errors import ShapeError
from ..evaluate import evaluate
from ..ops.python import python_call, runs_python
from .function import captured


def python_rows(probe, nodes, name):
    """The results of ``probe`` (a traced row function) mapped over the rows of
    ``nodes``, as one Python call; None where a gradient could pass around the
    Python calls inside it (the caller refuses then)."""
    if _differentiable(probe):
        return None
    outer = captured([probe])
    runner = _RowRunner(probe, len(nodes), name)
    return python_call(runner, list(nodes) + outer, [o.dtype for o in probe.outputs],
                       label=name, strict=False)


def _differentiable(probe):
    """Whether some path from the probe's parameters to its outputs carries a
    gradient: through float tensors, not through a Python call that gives none."""
    params, seen = set(probe.params), set()
    stack = [o for o in probe.outputs]
    while stack:
        node = stack.pop()
        if node in seen or node.dtype.kind != "f":
            continue
        seen.add(node)
        if node in params:
            return True
        blocks = node.opdef.blocks
        if runs_python(node) and blocks(node) or blocks is True:
            continue
        stack.extend(node.inputs)
    return False


class _RowRunner:
    """Calls the traced row function on each row of its inputs, stacking the results."""

    def __init__(self, probe, count, name):
        self.probe, self.count, self.__name__ = probe, count, name

    def __call__(self, *arrays):
        elems, caps = arrays[:self.count], list(arrays[self.count:])
        n = len(elems[0]) if np.ndim(elems[0]) else 0
        if n == 0:
            raise ShapeError(f"{self.__name__}: map_fn over zero rows of a function whose "
                             "results' shape is known only when it runs; give them a shape "
                             "with set_shape")
        with self.probe.graph.as_default():   # (ops on the calls' results are made in it)
            rows = [evaluate(self.probe.outputs,
                             dict(zip(self.probe.params, [e[i] for e in elems] + caps)))
                    for i in range(n)]
        try:
            return [np.stack([np.asarray(r[k]) for r in rows])
                    for k in range(len(self.probe.outputs))]
        except ValueError:
            shapes = [np.shape(r[0]) for r in rows]
            raise ShapeError(f"{self.__name__}: the rows' results have different shapes "
                             f"({', '.join(map(str, dict.fromkeys(shapes)))}); map_fn stacks "
                             "results of one shape") from None
