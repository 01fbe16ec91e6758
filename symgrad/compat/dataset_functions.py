"""The functions of ``map``, ``filter``, ``flat_map`` and ``interleave`` in
``compat.datasets``: :class:`Traced` traces one once, as TF traces a dataset function,
on placeholders of one element in the dataset's graph (under a name scope), and
evaluates it element by element with the reference evaluator; a random op inside one
draws anew for every element.  A window's component (``Dataset.window``) reaches the
function as a dataset (:class:`Window`).

The dataset class is the one of the dataset the function belongs to
(``type(dataset)``): this module sits under ``compat.datasets`` and does not import it.

Imports the tracing layer, ``evaluate``, ``compat.elements`` and ``compat.dataset_batches``.

>>> import numpy as np
>>> from symgrad.compat.datasets import Dataset
>>> [int(v) for v in Dataset.from_tensor_slices(np.arange(4)).map(lambda v: v * 3).elements()]
[0, 3, 6, 9]
"""
from __future__ import annotations

import numpy as np

from .. import tracing as _t
from ..evaluate import needed
from ..evaluate import run as run_nodes
from ..graph import Node
from ..ops.deferred import resolve
from ..ops.draws import run_number
from .dataset_batches import WindowSpec, nodes_of
from .elements import Run, placeholder_for
from .nest import flatten, map_structure, pack
from .tensor import as_tf1
from .variables import tf_dtype


class Traced:
    """A function of one element, traced once on placeholders in the default graph (as
    TF traces a dataset function); called with an element, it evaluates its outputs.
    A window's component (``window``) reaches the function as a dataset."""

    def __init__(self, fn, spec, what, dataset, datasets=False):
        graph, kind = _t.get_default_graph(), type(dataset)   # (kind: compat's Dataset)
        with graph.name_scope(f"{what}_{dataset.key}"):
            self.args = [Window(s.spec, kind) if isinstance(s, WindowSpec) else
                         placeholder_for(graph, s, f"arg{i}") for i, s in enumerate(flatten(spec))]
            given = pack(spec, [a.dataset if isinstance(a, Window) else a for a in self.args])
            out = fn(*given) if type(given) is tuple else fn(given)
        if datasets:
            if not isinstance(out, kind):
                raise TypeError(f"{what}: the function must return a Dataset, got "
                                f"{type(out).__name__}")
            self.outputs, inner = out, out.captured()
        else:
            self.outputs = _outputs(out, what, kind)
            inner = flatten(self.outputs)
        self._inner, self._orders = inner, {}
        fed = set(self.args)
        self.captured = [n for n in needed(nodes_of(inner), fed) if n.is_leaf and n.value is None
                         and n not in fed]
        self._deferred = any(s.shape is None for s in flatten(spec)
                             if not isinstance(s, WindowSpec)) or any(
            n.shape is None for n in needed(nodes_of(inner), fed))   # (a tf.py_func's result)

    def values_for(self, run, element, outputs):
        """{node or window: value} of ``outputs`` for ``element``."""
        feeds, direct = {c: run.values[c] for c in self.captured}, {}
        for arg, v in zip(self.args, flatten(element)):
            if isinstance(arg, Window):
                direct[arg] = v.rows
            else:
                feeds[arg] = np.asarray(v)
        nodes = nodes_of(outputs)
        found = {o: direct[o] if o in direct else run.values[o]
                 for o in outputs if not isinstance(o, Node)}
        with run_number(run.seed + next(run.draws)):
            if self._deferred:
                made = resolve(needed(nodes, feeds), feeds, run_nodes)
                mapped = [made.get(o, o) for o in nodes]
                values = run_nodes(mapped, {made.get(k, k): v for k, v in feeds.items()})
                return {**found, **{o: values[m] for o, m in zip(nodes, mapped)}}
            key = tuple(map(id, nodes))
            order = self._orders.get(key)
            if order is None:
                order = self._orders[key] = needed(nodes, feeds)
            return {**found, **run_nodes(nodes, feeds, order)}

    def dataset_elements(self, run, element):
        """The elements of the dataset the function makes of ``element`` (flat_map,
        interleave): its captured tensors evaluated for that element."""
        inner = self.outputs
        values = self.values_for(run, element, inner.captured())
        return inner.elements(Run({**run.values, **values}, next(run.draws)))

    def __call__(self, run, element):
        values = self.values_for(run, element, self._inner)
        return map_structure(lambda o: _export(values[o]), self.outputs)


class Window:
    """A window's component inside a dataset function: ``dataset`` yields its values."""

    def __init__(self, spec, kind):
        self.dataset = kind(spec, captured=[self], elements=lambda run: iter(run.values[self]))


def _export(value):
    value = np.asarray(value)
    return value[()] if value.ndim == 0 else value


def _outputs(out, what, kind):
    """A function's result as a structure of tensors (lists become tuples, numbers
    tensors of TF's dtypes); a dataset (of class ``kind``) is refused."""
    if isinstance(out, list):
        out = tuple(out)
    if isinstance(out, kind):
        raise TypeError(f"{what}: the function returned a Dataset; use flat_map")

    def tensor(v):
        if isinstance(v, Node):
            return v
        if callable(getattr(v, "as_graph_tensor", None)):
            return v.as_graph_tensor()
        value = np.asarray(v, dtype=tf_dtype(v, None))
        if value.dtype.kind not in "biuf":
            raise TypeError(f"{what}: the function returned {v!r}; return tensors or numbers")
        return as_tf1(_t.constant(value, dtype=value.dtype))
    return map_structure(tensor, out)
