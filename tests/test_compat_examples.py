"""The examples run and print TF's numbers (each in the test's fresh default graph)."""
import pathlib
import re
import runpy
import sys

import numpy as np
import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "examples"


def run_example(name, capsys, monkeypatch, *argv):
    monkeypatch.setattr(sys, "argv", [name, *argv])
    runpy.run_path(str(EXAMPLES / name), run_name="__main__")
    return capsys.readouterr().out


def test_total_derivative(capsys, monkeypatch):
    out = run_example("tf1_total_derivative.py", capsys, monkeypatch)
    assert out.startswith("[3.0, 1.0]\n[1.0, 1.0]\n")
    assert "Const:0 -> mul:0 -> add_2:0: (2) * (1) = 2" in out
    assert "cut: in stop_gradients" in out


def test_gradient_shape(capsys, monkeypatch):
    out = run_example("tf1_gradient_shape.py", capsys, monkeypatch)
    entries = [float(v) for v in re.findall(r"-?\d+\.\d+", out.split("2 * sum + 1 =")[0])]
    expected = float(out.split("2 * sum + 1 =")[1].split()[0])
    assert len(entries) == 9                           # a 3x3 gradient
    np.testing.assert_allclose(entries, expected, rtol=1e-5)   # every entry is 2*sum + 1
    assert "every entry: 2*reduce_sum + 1" in out and "() + (3, 3) = (3, 3)" in out


def test_none_gradient(capsys, monkeypatch):
    out = run_example("tf1_none_gradient.py", capsys, monkeypatch)
    assert "TypeError: Fetch argument None has invalid type <class 'NoneType'>" in out
    assert "No y depends on 'y:0'" in out and "\n4.0\n" in out
    assert "Every path from 'a:0' to the ys is cut: at 'w:0'" in out
    assert "'n:0' is an integer tensor (int32)" in out


def test_jacobian_vs_gradient(capsys, monkeypatch):
    out = run_example("jacobian_vs_gradient.py", capsys, monkeypatch)
    assert "jacobian(y, x): (2, 3)" in out
    assert "column sums of J: [ 2. 12. -6.]" in out
    assert "[  2.  48. -60.] =  [1, 10] @ J: [  2.  48. -60.]" in out


def test_gradient_field(capsys, monkeypatch, tmp_path):
    target = tmp_path / "field.png"
    out = run_example("gradient_field.py", capsys, monkeypatch, str(target))
    steps = [float(v) for v in re.findall(r"f = (\d+\.\d+)", out)]
    assert steps == sorted(steps, reverse=True) and steps[-1] < 0.05
    if "wrote" in out:
        assert target.read_bytes()[:4] == b"\x89PNG"
    else:
        pytest.importorskip("matplotlib")
