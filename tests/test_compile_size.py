"""Large kernels: split into several LLVM functions (optionally unoptimised), and
long compiles report their progress on the "symgrad" logger.

The split is forced on small programs here (tiny thresholds), and the values are
compared with the reference evaluator: 0-d values that cross function boundaries,
arrays, reductions, scatters and inputs of several dtypes.
"""
import logging
import re

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


def test_a_long_stage_says_it_is_still_running(monkeypatch, caplog):
    # one LLVM pass of a large kernel can run for many seconds with no stage to report:
    # a heartbeat fills the silence (a 38 s build had 13 s gaps), and stops with the task
    import time
    monkeypatch.setattr(progress, "HEARTBEAT", 0.05)
    with caplog.at_level(logging.WARNING, logger="symgrad"):
        with progress.task("a long build", after=0.01) as t:
            t.stage("LLVM optimising")
            time.sleep(0.4)
        lines = caplog.text.count("a long build: still LLVM optimising")
        time.sleep(0.2)   # nothing after the task ended
        assert caplog.text.count("a long build: still LLVM optimising") == lines
    assert lines >= 3 and "a long build done in" in caplog.text


_GEP = re.compile(r"\s*(%[\w.\"]+) = getelementptr .*ptr (%[\w.\"]+), i64")
_LOAD = re.compile(r"\s*(%[\w.\"]+) = load double, ptr (%[\w.\"]+)")


def _spill_loads_used_elsewhere(ir_text):
    """(loads from the spill array, those whose value is read only outside the load's
    basic block), over the chunk functions of optimised LLVM IR.  The spill array is
    the pointer a chunk addresses most."""
    loads = elsewhere = 0
    for body in re.findall(r"define internal [^\n]*symgrad\.chunk[^\n]*\n(.*?)\n}",
                           ir_text, re.S):
        blocks = [b.splitlines() for b in re.split(r"\n(?=[\w.\"-]+:)", body)]
        geps = [m.groups() for b in blocks for line in b if (m := _GEP.match(line))]
        if not geps:
            continue
        bases = [base for _, base in geps]
        spill = max(set(bases), key=bases.count)
        slots = {g for g, base in geps if base == spill}
        for k, block in enumerate(blocks):
            for i, line in enumerate(block):
                m = _LOAD.match(line)
                if not m or m.group(2) not in slots:
                    continue
                loads += 1
                read = re.compile(re.escape(m.group(1)) + r"\b").search
                here = any(map(read, block[i + 1:]))
                there = any(read(other) for j, b in enumerate(blocks) if j != k
                            for other in b)
                elsewhere += there and not here
    return loads, elsewhere


def test_chunks_load_passed_values_in_the_block_that_reads_them(monkeypatch):
    # Loaded all at a chunk's entry, each value passed from chunk to chunk lived across
    # the whole chunk and was spilled to its stack: most of the machine code was copies.
    monkeypatch.setattr(llvm, "SPLIT_ABOVE", 0)
    monkeypatch.setattr(llvm, "CHUNK_SIZE", 600)   # several basic blocks per chunk
    with sg.Graph().as_default():
        x = sg.placeholder(shape=(300,), name="x")
        f = x[0]
        for k in range(1, 300):
            f = sg.sin(f) * f + x[k]
        outs = [f] + sg.gradients(f, x)
        ev = sg.compile(outs, [x], cache=False)
        value = np.linspace(-1.0, 1.0, 300)
        for a, b in zip(ev(value), sg.evaluate(outs, {x: value})):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
    loads, elsewhere = _spill_loads_used_elsewhere(
        "".join(ev.jit.kernel.inspect_llvm().values()))
    assert loads > 300 and elsewhere == 0, (loads, elsewhere)
