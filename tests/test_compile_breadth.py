"""Compiled vs reference for the composed TF functions (nn, math, arrays, linalg):
values and gradients, integer ids fed at call time.  One compile serves every case."""
import numpy as np
import pytest

import symgrad as sg


@pytest.fixture(scope="module")
def program():
    rng = np.random.default_rng(5)
    graph = sg.Graph()
    with graph.as_default():
        x = sg.placeholder(shape=(4, 3), name="x")
        ids = sg.placeholder(np.int32, shape=(4,), name="ids")
        table = sg.placeholder(shape=(5, 3), name="table")
        img = sg.placeholder(shape=(1, 5, 4, 2), name="img")
        k = sg.placeholder(shape=(3, 2, 2, 3), name="k")
        a = sg.placeholder(shape=(3, 3), name="a")
        logits = x * sg.nn.embedding_lookup(table, ids)
        conv = sg.nn.conv2d(img, k, strides=[1, 2, 1, 1], padding="SAME")
        pooled = sg.nn.max_pool(conv, 2, 1, "VALID")[:, :, :2] + sg.nn.avg_pool(conv, 2, 2, "SAME")
        spd = sg.matmul(a, a, transpose_b=True) + 3 * sg.eye(3)
        losses = {
            "sparse_ce": sg.reduce_mean(sg.nn.sparse_softmax_cross_entropy_with_logits(
                labels=ids % 3, logits=logits)),
            "ce": sg.reduce_sum(sg.nn.softmax_cross_entropy_with_logits(
                sg.nn.softmax(x), logits)),
            "sigmoid_ce": sg.reduce_sum(sg.nn.sigmoid_cross_entropy_with_logits(
                labels=sg.sigmoid(x), logits=logits)),
            "activations": sg.reduce_sum(sg.nn.relu6(3 * x) + sg.nn.elu(x) + sg.nn.selu(x)
                                         + sg.nn.leaky_relu(x) + sg.nn.softsign(x)
                                         + sg.log_sigmoid(x) + sg.atan2(x, 1 + x * x)),
            "arrays": sg.reduce_sum(sg.cumsum(x, 1, reverse=True) * sg.tile(x[:, :1], [1, 3])
                                    + sg.pad(x, [[0, 0], [1, 1]], "REFLECT")[:, 1:4]
                                    + sg.clip_by_value(x, -0.5, 0.5) * sg.clip_by_norm(x, 1.0)
                                    + sg.gather_nd(table, sg.stack([ids, ids % 3], 1))[:, None]
                                    + sg.nn.top_k(x, 2)[0][:, :1]
                                    + sg.unsorted_segment_sum(x * x, ids % 4, 4)[:, :1]),
            "conv": sg.reduce_sum(sg.tanh(pooled)) + sg.reduce_sum(
                sg.sin(img) * sg.nn.conv2d_transpose(conv, k, img.shape, [1, 2, 1, 1], "SAME")),
            "linalg": sg.linalg.logdet(spd) + sg.reduce_sum(sg.linalg.inv(spd) * a)
                      + sg.linalg.det(spd) / 100 + sg.reduce_sum(sg.linalg.cholesky(spd)),
        }
        leaves = [x, table, img, k, a]
        fetches, names = [], []
        for name, loss in losses.items():
            grads = sg.gradients(loss, leaves)
            fetches += [loss] + [g for g in grads if g is not None]
            names += [name] * (1 + sum(g is not None for g in grads))
        fetches += [sg.argmax(logits, 1), sg.argmin(x, 0)]
        names += ["argmax", "argmin"]
        inputs = [x, ids, table, img, k, a]
        f = sg.compile(fetches, inputs)
    values = [rng.normal(size=(4, 3)), np.array([4, 0, 2, 4], np.int32),
              rng.normal(size=(5, 3)), rng.normal(size=(1, 5, 4, 2)),
              rng.normal(size=(3, 2, 2, 3)), rng.normal(size=(3, 3))]
    with graph.as_default():
        expected = sg.evaluate(fetches, dict(zip(inputs, values)))
    return f, values, expected, names


CASES = ["sparse_ce", "ce", "sigmoid_ce", "activations", "arrays", "conv", "linalg",
         "argmax", "argmin"]


@pytest.mark.parametrize("case", CASES)
def test_compiled_matches_reference(program, case):
    f, values, expected, names = program
    got = f(*values)
    picked = [(g, e) for g, e, n in zip(got, expected, names) if n == case]
    assert picked
    for g, e in picked:
        np.testing.assert_allclose(np.asarray(g, float), np.asarray(e, float), rtol=1e-10,
                                   atol=1e-12, err_msg=case)
