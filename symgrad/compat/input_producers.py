"""``tf.train.range_input_producer`` as the PTB tutorial's reader uses it, on ``tf.data``.

TF1's producer is a queue filled by a queue runner: each ``dequeue()`` evaluated in a
``Session.run`` takes the next integer of 0, 1, ..., limit - 1, epoch after epoch
(``num_epochs`` of them, then ``tf.errors.OutOfRangeError``).  Here the queue is a
one-shot iterator over ``tf.data.Dataset.range(limit)``: the same integers, run after
run, with no threads (``tf.train.start_queue_runners`` starts none).  A shuffled
producer (TF's default, ``shuffle=True``) draws its order from TF's queue runner's
stream, which symgrad does not follow: it is refused (pass ``shuffle=False``).

Imports ``compat.datasets`` and ``compat.iterators``.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     i = range_input_producer(3, shuffle=False).dequeue()
...     with tf.Session() as sess:
...         print([int(sess.run(i)) for _ in range(5)])
[0, 1, 2, 0, 1]
"""
from __future__ import annotations

import numpy as np

from .. import tracing as _t
from ..errors import ArgumentError
from .datasets import Dataset
from .iterators import make_one_shot_iterator
from .tensor import as_tf1


class _RangeQueue:
    """The queue ``range_input_producer`` returns: ``dequeue()`` gives the next integer."""

    def __init__(self, iterator, name):
        self._iterator, self.name = iterator, name

    def dequeue(self, name=None):
        return as_tf1(_t.cast(self._iterator.get_next(), np.int32, name=name))


def range_input_producer(limit, num_epochs=None, shuffle=True, seed=None, capacity=32,
                         shared_name=None, name=None):
    """Integers 0 .. limit - 1, one per ``dequeue()`` and run, epoch after epoch."""
    if shuffle:
        raise ArgumentError("tf.train.range_input_producer(shuffle=True): TF's shuffled "
                            "order comes from its queue runner's stream, which symgrad does "
                            "not follow; pass shuffle=False (the PTB reader does), or shuffle "
                            "with tf.data: tf.data.Dataset.range(n).shuffle(n).repeat()")
    dataset = Dataset.range(limit).repeat(num_epochs)
    return _RangeQueue(make_one_shot_iterator(dataset), name or "input_producer")


__all__ = ["range_input_producer"]
