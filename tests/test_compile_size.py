"""Large kernels: split into several LLVM functions (optionally unoptimised), and
long compiles report their progress on the "symgrad" logger.

The split is forced on small programs here (tiny thresholds), and the values are
compared with the reference evaluator: 0-d values that cross function boundaries,
arrays, reductions, scatters and inputs of several dtypes.
"""
import logging

import numpy as np
import pytest

import symgrad as sg
from symgrad import progress
from symgrad.lower import llvm


def _program(scale=1.0):
    x = sg.placeholder(shape=(5,), name="x")
    s = sg.placeholder(name="s")
    k = sg.placeholder(sg.int64, shape=(5,), name="k")
    f = x[0] * s * scale
    for i in range(1, 5):
        f = sg.sin(f) * f + x[i]
    y = sg.reduce_sum(sg.exp(x * f) * sg.cast(k, "float64")) + f
    outs = [f, y] + sg.gradients(y, [x, s]) + [sg.hessians(y, x)[0]]
    return outs, [x, s, k]


@pytest.mark.parametrize("fast", [False, True])
def test_split_kernels_match_the_reference(monkeypatch, fast):
    monkeypatch.setattr(llvm, "SPLIT_ABOVE", 0)
    monkeypatch.setattr(llvm, "CHUNK_SIZE", 7)
    monkeypatch.setattr(llvm, "FAST_ABOVE", 0 if fast else 10**9)
    outs, ins = _program()
    values = [np.linspace(-0.5, 0.4, 5), 0.7, np.array([1, 2, 0, 3, 1])]
    f = sg.compile(outs, ins, cache=False)
    assert len(llvm.split_statements(f.program.stmts, 7)) > 3
    got = f(*values)
    expected = sg.evaluate(outs, dict(zip(ins, values)))
    for a, b in zip(got, expected):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def test_long_compiles_report_progress(monkeypatch, caplog):
    monkeypatch.setattr(progress, "AFTER", 0.0)
    monkeypatch.setattr(progress, "REPEAT", 0.0)
    monkeypatch.setattr(llvm, "SPLIT_ABOVE", 0)
    monkeypatch.setattr(llvm, "CHUNK_SIZE", 7)
    outs, ins = _program(scale=1.5)  # a graph of its own: nothing compiled to reuse
    with caplog.at_level(logging.WARNING, logger="symgrad"):
        sg.compile(outs, ins, cache=False)
    text = caplog.text
    assert "compiling 5 outputs" in text and "lowering the graph" in text
    assert "function 1 of" in text and "done in" in text
    caplog.clear()
    logging.getLogger("symgrad").setLevel(logging.ERROR)  # what a user does to silence it
    try:
        with progress.task("quiet", after=0.0) as t:
            t.stage("x")
    finally:
        logging.getLogger("symgrad").setLevel(logging.NOTSET)
    assert "quiet" not in caplog.text
