"""TF1 training loops in ``compat.v1``: what one ``sess.run(train_op)`` costs, side by side.

Logistic regression with Adam on N points (TF's tutorial shape).  Columns: a
session step (reference evaluator, plans cached), one step written by hand in
numpy (the floor for Python-driven steps), and the compiled loss+gradients
(``sg.compile``) with its compile time, to decide whether a session should
compile: it pays only after compile_time / (session step - compiled step) steps.

    python -m benchmarks.compat_session [N ...]
"""
from __future__ import annotations

import sys
import time

import numpy as np

PROGRAM = """
x = tf.placeholder(tf.float32, shape=[n, 2])
y = tf.placeholder(tf.float32, shape=[n, 1])
W = tf.Variable(tf.zeros([2, 1]))
b = tf.Variable(tf.zeros([1]))
p = tf.sigmoid(tf.matmul(x, W) + b)
loss = -tf.reduce_mean(y * tf.log(p) + (1 - y) * tf.log(1 - p))
train_op = tf.train.AdamOptimizer(0.1).minimize(loss)
"""


def median_time(step, repeats=5, number=100):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(number):
            step()
        times.append((time.perf_counter() - start) / number)
    return float(np.median(times))


def _data(n):
    rng = np.random.default_rng(5)
    data = rng.normal(size=(n, 2)).astype(np.float32)
    return data, (data @ [[1.5], [-2.0]] + 0.3 > 0).astype(np.float32)


def numpy_step(data, labels):
    """One Adam step of the same model, by hand (TF's ApplyAdam)."""
    w, b = np.zeros((2, 1), np.float32), np.zeros(1, np.float32)
    m = [np.zeros_like(w), np.zeros_like(b)]
    v = [np.zeros_like(w), np.zeros_like(b)]
    t = [0]

    def step():
        p = 1 / (1 + np.exp(-(data @ w + b)))
        r = (p - labels) / len(data)
        t[0] += 1
        lr = 0.1 * np.sqrt(1 - 0.999 ** t[0]) / (1 - 0.9 ** t[0])
        for i, (q, g) in enumerate(((w, data.T @ r), (b, r.sum(axis=0)))):
            m[i] += (g - m[i]) * 0.1
            v[i] += (g * g - v[i]) * 0.001
            q -= lr * m[i] / (np.sqrt(v[i]) + 1e-8)
    return step


def measure(n):
    import symgrad as sg
    import symgrad.compat.v1 as tf
    data, labels = _data(n)
    with tf.Graph().as_default():
        scope = {"tf": tf, "n": n}
        exec(PROGRAM, scope)  # noqa: S102  (the benchmark's own program text)
        x, y, loss, train_op = (scope[k] for k in ("x", "y", "loss", "train_op"))
        W, b = scope["W"], scope["b"]
        sess = tf.Session()
        sess.run(tf.global_variables_initializer())
        feed = {x: data, y: labels}
        session_step = median_time(lambda: sess.run([train_op, loss], feed))
        grads = tf.gradients(loss, [W, b])
        start = time.perf_counter()
        f = sg.compile([loss] + grads, [x, y, W, b], cache=False, wait=True)
        compile_time = time.perf_counter() - start
        compiled = median_time(lambda: f(data, labels, W.value, b.value), number=1000)
    hand = median_time(numpy_step(data, labels), number=1000)
    return session_step, hand, compiled, compile_time


def main(argv):
    sizes = [int(a) for a in argv] or [64, 1024]
    print("| N | session step | numpy step by hand | compiled loss+grads | compile | "
          "break-even steps |")
    print("|---|---|---|---|---|---|")
    for n in sizes:
        s, h, c, ct = measure(n)
        print(f"| {n} | {s * 1e6:.0f} us | {h * 1e6:.0f} us | {c * 1e6:.0f} us | "
              f"{ct:.1f} s | {ct / max(s - c, 1e-9):.0f} |")


if __name__ == "__main__":
    main(sys.argv[1:])
