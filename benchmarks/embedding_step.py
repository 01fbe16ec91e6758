"""A word2vec-sized training step in ``compat.v1``: ``embedding_lookup`` of B fed ids
from a V x D table, a squared loss, one ``GradientDescentOptimizer`` step, per
``sess.run``, beside the same step by hand in numpy (``take`` and ``subtract.at``, the
floor for a Python-driven step).  Medians of 5 rounds of 5 steps.

    python -m benchmarks.embedding_step [V ...]      (default: 5000 50000; D = B = 128)

The lookup is a one-hot contraction in symgrad's graph, which the session computes
from the ids (``ops.onehot``); the gradient, TF's IndexedSlices, updates only the
rows looked up, in place when nothing else holds the table.
"""
from __future__ import annotations

import sys

import numpy as np

from .compat_session import median_time

D = B = 128


def session_step(v):
    import symgrad.compat.v1 as tf
    rng = np.random.default_rng(1)
    graph = tf.Graph()
    with graph.as_default():
        emb = tf.Variable(rng.uniform(-1, 1, (v, D)).astype(np.float32))
        ids, y = tf.placeholder(tf.int32, [B]), tf.placeholder(tf.float32, [B, D])
        loss = tf.reduce_mean(tf.square(tf.nn.embedding_lookup(emb, ids) - y))
        train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
        sess = tf.Session()
        sess.run(tf.global_variables_initializer())
    feed = {ids: rng.integers(0, v, B), y: np.zeros((B, D), np.float32)}
    sess.run(train, feed)   # (the first run makes the plans)
    return median_time(lambda: sess.run(train, feed), number=5)


def numpy_step(v):
    rng = np.random.default_rng(1)
    table = rng.uniform(-1, 1, (v, D)).astype(np.float32)
    ids, y = rng.integers(0, v, B), np.zeros((B, D), np.float32)

    def step():
        rows = table[ids]
        grad = (2.0 / (B * D)) * (rows - y)
        np.subtract.at(table, ids, np.float32(0.5) * grad)
    return median_time(step, number=5)


def main(argv=None):
    sizes = [int(a) for a in (sys.argv[1:] if argv is None else argv)] or [5000, 50000]
    print(f"| V (D = B = {D}) | compat.v1 session step ms | numpy by hand ms | ratio |")
    print("|---|---|---|---|")
    for v in sizes:
        s, n = session_step(v), numpy_step(v)
        print(f"| {v} | {1e3 * s:.2f} | {1e3 * n:.3f} | {s / n:.0f} |", flush=True)


if __name__ == "__main__":
    main()
