"""TF1 training steps through ``compat.v1`` sessions, side by side with TensorFlow.

``python -m benchmarks.tf1_training [--tf PYTHON] [--steps N] [--repeat R] [programs]``

Three programs as TF1 tutorials write them, synthetic data: ``mlp`` (MNIST-shaped
784-256-10 with Adam, batches of 100), ``cnn`` (TF's "Deep MNIST for experts":
two 5x5 conv + max-pool layers, a 3136-1024 layer with dropout, Adam, batches of 50)
and ``lstm`` (a two-layer 200-unit LSTM language model through ``dynamic_rnn``,
20 x 20 tokens, gradients clipped by global norm).  Each tool runs each program in a
fresh process: the graph is built, the variables initialised, then ``--steps``
training steps are timed; ``first`` is the first step (what a session prepares on
its first run), ``step`` the median CPU time of the later ones (CPU time of the
process: waiting for a core on a loaded machine is not counted).

The peer is TensorFlow's ``tf.compat.v1`` when ``--tf`` names a Python that has it
(TensorFlow is not among symgrad's extras: it is large), on one intra-op thread
(``ConfigProto``), as symgrad's evaluator uses one core; numpy's BLAS is held to one
thread too (``OPENBLAS_NUM_THREADS=1`` and its kin), which is also what keeps a
session step steady on a busy machine.  ``--repeat`` runs each pair R times,
alternating the tools, and reports medians.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import textwrap

from .procs import ROOT

PROGRAMS = {
    "mlp": """
        x = tf.placeholder(tf.float32, [None, 784]); y = tf.placeholder(tf.float32, [None, 10])
        W1 = tf.Variable(tf.truncated_normal([784, 256], stddev=0.1, seed=1))
        b1 = tf.Variable(tf.zeros([256]))
        W2 = tf.Variable(tf.truncated_normal([256, 10], stddev=0.1, seed=2))
        b2 = tf.Variable(tf.zeros([10]))
        logits = tf.matmul(tf.nn.relu(tf.matmul(x, W1) + b1), W2) + b2
        loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=logits))
        train = tf.train.AdamOptimizer(1e-3).minimize(loss)
        feed = mnist_batches(x, y, 1000, 100)
        """,
    "cnn": """
        def weight(shape, seed):
            return tf.Variable(tf.truncated_normal(shape, stddev=0.1, seed=seed))
        def bias(shape):
            return tf.Variable(tf.constant(0.1, shape=shape))
        def conv(a, w):
            return tf.nn.conv2d(a, w, strides=[1, 1, 1, 1], padding='SAME')
        def pool(a):
            return tf.nn.max_pool(a, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding='SAME')
        x = tf.placeholder(tf.float32, [None, 784]); y = tf.placeholder(tf.float32, [None, 10])
        keep = tf.placeholder(tf.float32)
        h1 = pool(tf.nn.relu(conv(tf.reshape(x, [-1, 28, 28, 1]), weight([5, 5, 1, 32], 1)) + bias([32])))
        h2 = pool(tf.nn.relu(conv(h1, weight([5, 5, 32, 64], 2)) + bias([64])))
        h3 = tf.nn.relu(tf.matmul(tf.reshape(h2, [-1, 7 * 7 * 64]), weight([3136, 1024], 3)) + bias([1024]))
        logits = tf.matmul(tf.nn.dropout(h3, keep), weight([1024, 10], 4)) + bias([10])
        loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=logits))
        train = tf.train.AdamOptimizer(1e-4).minimize(loss)
        feed = mnist_batches(x, y, 500, 50, {keep: 0.5})
        """,
    "lstm": """
        B, T, H, V = 20, 20, 200, 1000
        ids = tf.placeholder(tf.int32, [B, T]); targets = tf.placeholder(tf.int32, [B, T])
        emb = tf.get_variable("emb", [V, H])
        cell = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.BasicLSTMCell(H) for _ in range(2)])
        outputs, _ = tf.nn.dynamic_rnn(cell, tf.nn.embedding_lookup(emb, ids),
                                       initial_state=cell.zero_state(B, tf.float32))
        W = tf.get_variable("W", [H, V]); b = tf.get_variable("b", [V])
        logits = tf.matmul(tf.reshape(outputs, [-1, H]), W) + b
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=tf.reshape(targets, [-1]), logits=logits))
        tvars = tf.trainable_variables()
        grads, _ = tf.clip_by_global_norm(tf.gradients(loss, tvars), 5.0)
        train = tf.train.GradientDescentOptimizer(1.0).apply_gradients(zip(grads, tvars))
        data = rng.integers(0, V, size=(10, B, T + 1))
        def feed(i):
            d = data[i % 10]
            return {ids: d[:, :-1], targets: d[:, 1:]}
        """,
    "word2vec": """
        V, E, B = 50000, 128, 128
        inputs = tf.placeholder(tf.int32, shape=[B]); labels = tf.placeholder(tf.int32, shape=[B, 1])
        embeddings = tf.Variable(tf.random_uniform([V, E], -1.0, 1.0, seed=1))
        nce_w = tf.Variable(tf.truncated_normal([V, E], stddev=1.0 / E ** 0.5, seed=2))
        nce_b = tf.Variable(tf.zeros([V]))
        loss = tf.reduce_mean(tf.nn.nce_loss(weights=nce_w, biases=nce_b, labels=labels,
                                             inputs=tf.nn.embedding_lookup(embeddings, inputs),
                                             num_sampled=64, num_classes=V))
        train = tf.train.GradientDescentOptimizer(1.0).minimize(loss)
        ids = rng.integers(0, V, size=(20, B)); targets = rng.integers(0, V, size=(20, B, 1))
        def feed(i):
            return {inputs: ids[i % 20], labels: targets[i % 20]}
        """,
}

CHILD = """
import json, sys, time
import numpy as np
if {tool!r} == "tf":
    import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()
    config = tf.ConfigProto(intra_op_parallelism_threads=1, inter_op_parallelism_threads=1)
else:
    import symgrad.compat.v1 as tf
    config = None
rng = np.random.default_rng(0)


def mnist_batches(x, y, n, size, extra=None):
    # feeds of `size` rows of n random MNIST-shaped images and one-hot labels
    images = rng.normal(size=(n, 784)).astype(np.float32)
    labels = np.eye(10, dtype=np.float32)[rng.integers(0, 10, n)]

    def feed(i):
        j = (i * size) % n
        return {{x: images[j:j + size], y: labels[j:j + size], **(extra or {{}})}}
    return feed


{program}
sess = tf.Session(config=config)
sess.run(tf.global_variables_initializer())
times = []
for i in range({steps}):
    start = time.process_time()
    sess.run(train, feed(i))
    times.append(time.process_time() - start)
print("RESULT", json.dumps(times))
"""

ONE_THREAD = {name: "1" for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS",
                                     "MKL_NUM_THREADS")}


def run(tool, name, steps, python):
    code = CHILD.format(tool=tool, steps=steps,
                        program=textwrap.dedent(PROGRAMS[name]))
    env = dict(os.environ, **ONE_THREAD, TF_CPP_MIN_LOG_LEVEL="3", TF_USE_LEGACY_KERAS="1",
               PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([python, "-c", code], env=env, capture_output=True, text=True,
                          timeout=1800)
    for line in done.stdout.splitlines():
        if line.startswith("RESULT "):
            times = json.loads(line[len("RESULT "):])
            return times[0], statistics.median(times[1:])
    tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
    raise RuntimeError(f"{tool} {name} failed: {tail[0]}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("programs", nargs="*", default=list(PROGRAMS))
    parser.add_argument("--tf", help="a Python interpreter with TensorFlow (the peer)")
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args(argv)
    tools = [("symgrad", sys.executable)] + ([("tf", args.tf)] if args.tf else [])
    print(f"load average at start: {os.getloadavg()}", file=sys.stderr)
    rows = []
    for name in args.programs:
        found = {tool: [] for tool, _ in tools}
        for _ in range(args.repeat):
            for tool, python in tools:
                print(f"{name}: {tool} ...", file=sys.stderr)
                found[tool].append(run(tool, name, args.steps, python))
        row = {"program": name}
        for tool, _ in tools:
            row[tool] = (statistics.median(f for f, _ in found[tool]),
                         statistics.median(s for _, s in found[tool]))
        rows.append(row)
    print(f"load average at end: {os.getloadavg()}", file=sys.stderr)
    header = "| program | symgrad first ms | symgrad step ms |"
    if args.tf:
        header += " TF first ms | TF step ms | step symgrad/TF |"
    print(header)
    print("|" + "---|" * (header.count("|") - 1))
    for row in rows:
        first, step = row["symgrad"]
        line = f"| {row['program']} | {first * 1e3:.1f} | {step * 1e3:.2f} |"
        if args.tf:
            tf_first, tf_step = row["tf"]
            line += f" {tf_first * 1e3:.1f} | {tf_step * 1e3:.2f} | {step / tf_step:.2f} |"
        print(line)


if __name__ == "__main__":
    main()
