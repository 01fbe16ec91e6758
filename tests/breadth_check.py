"""Runs a breadth case (a function of the ``tf`` module returning named fetches, or
``(fetches, steps)`` with operations run first) in a fresh graph and session, and
compares each fetched value with TensorFlow's recorded number."""
import numpy as np

import symgrad.compat.v1 as tf


def run_case(build):
    """The fetched values of ``build(tf)``: tensors are run, callables called."""
    with tf.Graph().as_default():
        fetches = build(tf)
        steps = None
        if isinstance(fetches, tuple):
            fetches, steps = fetches
        with tf.Session() as sess:
            sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
            for step in steps or []:
                sess.run(step)
            return {k: v() if callable(v) else sess.run(v) for k, v in fetches.items()}


def assert_matches(got, want, where, rtol=2e-4, atol=2e-5):
    """``got`` equals TF's ``want`` (nested lists; floats to rtol/atol, NaN to NaN)."""
    if want is None:
        assert got is None, f"{where}: expected None, got {got!r}"
        return
    if isinstance(want, list) and isinstance(got, (list, tuple)) and (
            not got or isinstance(got[0], np.ndarray) or got[0] is None):
        assert len(got) == len(want), f"{where}: {len(got)} results, TF has {len(want)}"
        for i, (g, w) in enumerate(zip(got, want)):
            assert_matches(g, w, f"{where}[{i}]", rtol, atol)
        return
    g, w = np.asarray(got), np.asarray(want)
    assert g.shape == w.shape, f"{where}: shape {g.shape}, TF's {w.shape}"
    if g.dtype.kind == "f" or w.dtype.kind == "f":
        np.testing.assert_allclose(g.astype(float), w.astype(float), rtol=rtol, atol=atol,
                                   err_msg=where)
    else:
        np.testing.assert_array_equal(g, w, err_msg=where)
