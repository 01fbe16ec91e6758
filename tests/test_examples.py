"""The example scripts run and print the stated values and closed forms; so does the demo."""
import pathlib
import runpy

import pytest

from symgrad.cli import main

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "examples"


def run_example(name, capsys):
    runpy.run_path(str(EXAMPLES / name), run_name="__main__")
    return capsys.readouterr().out


def test_total_derivative(capsys):
    out = run_example("total_derivative.py", capsys)
    assert "['3', '1'] [np.float64(3.0), np.float64(1.0)]" in out
    assert "['1', '1'] [np.float64(1.0), np.float64(1.0)]" in out


def test_cubic(capsys):
    out = run_example("cubic.py", capsys)
    assert "['3*a**2 + 16*a', '8*a']" in out
    assert "[np.float64(155.0), np.float64(40.0)]" in out
    assert "['3*a**2', '4*b']" in out


def test_quadratic(capsys):
    out = run_example("quadratic.py", capsys)
    assert "closed form: 2*x + 1" in out and "[np.float64(5.0)]" in out


def test_matrix_gradient(capsys):
    out = run_example("matrix_gradient.py", capsys)
    assert "shape of the gradient: (3, 3)" in out
    assert "in terms of s: 2*s + 1" in out
    assert out.count("19.") == 9


def test_vector_gradient_vs_jacobian(capsys):
    out = run_example("vector_gradient_vs_jacobian.py", capsys)
    assert "[[2.0, 1.0, 0.0], [0.0, 3.0, 2.0]]" in out
    assert "[2.0, 4.0, 2.0]" in out
    assert out.count("[2.0, 4.0, 2.0]") == 2


def test_demo_prints_the_classic_answers(capsys):
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    for needle in ["[3, 1], value [3.0, 1.0]", "[1.0, 1.0]", "[3*a**2 + 16*a, 8*a]",
                   "[155.0, 40.0]", "[2*x + 1], value [5.0]", "every entry is 2*s + 1"]:
        assert needle in out


def test_examples_write_only_where_told(capsys, tmp_path, monkeypatch):
    """gradient_field.py (the one example that draws) leaves the working directory empty
    unless told a file name on its command line, and then writes only that file."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.argv", ["gradient_field.py"])
    out = run_example("gradient_field.py", capsys)
    assert "step  0: x = -1.5000, y =  2.0000" in out and "name a file" in out
    assert list(tmp_path.iterdir()) == []
    target = tmp_path / "out" / "field.png"
    target.parent.mkdir()
    monkeypatch.setattr("sys.argv", ["gradient_field.py", str(target)])
    out = run_example("gradient_field.py", capsys)
    assert f"wrote {target}" in out and target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["field.png", "out"]
