"""``shuffle``, ``repeat``, ``take``, ``skip``, ``shard`` and ``cache`` of
``compat.datasets.Dataset`` (the :class:`Ordering` mixin): which elements come, how
often and in what order.

A shuffle follows TF's algorithm: a buffer of ``buffer_size`` elements, a random one
taken and replaced by the next; its order is reproducible with ``seed=`` or
``tf.set_random_seed`` (a run's ``rng``), not equal to TF's, whose random stream differs.

Sits in ``compat`` under ``datasets``; imports ``compat.dataset_batches`` (counts).

>>> import numpy as np
>>> from symgrad.compat.datasets import Dataset
>>> [int(v) for v in Dataset.from_tensor_slices(np.arange(6)).skip(1).take(3).repeat(2).elements()]
[1, 2, 3, 1, 2, 3]
"""
from __future__ import annotations

import itertools

from .dataset_batches import Count


class Ordering:
    """The ordering transformations of a dataset; ``self._derived(spec, captured,
    elements)`` makes the dataset each returns."""

    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=True):
        """The elements in random order, drawn from a buffer of ``buffer_size`` (TF's
        algorithm); a new order at each pass unless ``reshuffle_each_iteration=False``."""
        size = Count(buffer_size, "buffer_size", positive=True)

        def elements(run):
            rng, size_now = run.rng(dataset, seed, reshuffle_each_iteration), size(run)
            source, buffer = iter(self.elements(run)), []
            for e in source:
                buffer.append(e)
                if len(buffer) == size_now:
                    break
            for e in source:
                i = int(rng.integers(len(buffer)))
                yield buffer[i]
                buffer[i] = e
            while buffer:
                i = int(rng.integers(len(buffer)))
                buffer[i], buffer[-1] = buffer[-1], buffer[i]
                yield buffer.pop()
        dataset = self._derived(self._spec, size.captured, elements)
        return dataset

    def repeat(self, count=None):
        """The elements ``count`` times over (forever for None or -1)."""
        count = Count(-1 if count is None else count, "count")

        def elements(run):
            times = count(run)
            for _ in itertools.count() if times < 0 else range(times):
                empty = True
                for e in self.elements(run):
                    empty = False
                    yield e
                if empty:
                    return
        return self._derived(self._spec, count.captured, elements)

    def take(self, count):
        """The first ``count`` elements (all for -1)."""
        count = Count(count, "count")

        def elements(run):
            n = count(run)
            return self.elements(run) if n < 0 else itertools.islice(self.elements(run), n)
        return self._derived(self._spec, count.captured, elements)

    def skip(self, count):
        """All but the first ``count`` elements (none for -1)."""
        count = Count(count, "count")

        def elements(run):
            n = count(run)
            return iter(()) if n < 0 else itertools.islice(self.elements(run), n, None)
        return self._derived(self._spec, count.captured, elements)

    def shard(self, num_shards, index):
        """Every ``num_shards``-th element, starting at ``index``."""
        k, i = Count(num_shards, "num_shards", positive=True).static, int(index)
        if not 0 <= i < k:
            raise ValueError(f"shard: index {i} must be in [0, num_shards={k})")
        return self._derived(self._spec, elements=lambda run: itertools.islice(
            self.elements(run), i, None, k))

    def cache(self, filename=""):
        """The first complete pass, remembered and replayed (in memory)."""
        def elements(run):
            stored = run.cached.get(dataset.key)
            if stored is not None:
                yield from stored
                return
            seen = []
            for e in self.elements(run):
                seen.append(e)
                yield e
            run.cached[dataset.key] = seen
        dataset = self._derived(self._spec, elements=elements)
        return dataset
