"""The symgrad command: demo, grad, explain, draw, --help, and rejection of unsafe input."""
import subprocess
import sys

import numpy as np
import pytest
import sympy

from symgrad.cli import main
from symgrad.teach import dot_available


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_demo_has_the_classic_answers(capsys):
    code, out, _ = run(capsys, "demo")
    assert code == 0
    for answer in ["[3.0, 1.0]", "3*a**2 + 16*a", "[155.0, 40.0]", "2*x + 1", "[5.0]",
                   "2*s + 1", "[1.0, None]", "Every path from 'b' to the ys is cut"]:
        assert answer in out
    code, out, _ = run(capsys, "demo", "--explain")
    assert "Reverse sweep" in out and "a -> mul -> add: (2) * (1) = 2" in out
    assert run(capsys, "demo", "--quiet")[1] == ""


def test_grad_total_and_partial(capsys):
    code, out, _ = run(capsys, "grad", "a + b", "--wrt", "a", "b", "--let", "b=2*a",
                       "--at", "a=0")
    assert code == 0 and out == "d/da = 3\nd/db = 1\n"
    code, out, _ = run(capsys, "grad", "a + b", "--wrt", "a", "b", "--let", "b=2*a",
                       "--at", "a=0", "--stop", "a", "b")
    assert out == "d/da = 1\nd/db = 1\n"


def test_grad_values_against_sympy(capsys):
    code, out, _ = run(capsys, "grad", "a**3 + 2*b**2", "--wrt", "a", "b", "--let", "b=2*a",
                       "--at", "a=5")
    a = sympy.Symbol("a")
    da = sympy.diff(a ** 3 + 2 * (2 * a) ** 2, a)          # the total derivative
    assert out.splitlines()[0] == f"d/da = {da} = {da.subs(a, 5)}"
    assert out.splitlines()[1] == "d/db = 8*a = 40"
    code, out, _ = run(capsys, "grad", "a**3 + 2*b**2", "--wrt", "a", "--let", "b=2*a",
                       "--latex")
    assert out == "d/da = 3 a^{2} + 16 a\n"                 # no value: a has none


def test_grad_vectors_functions_and_none(capsys):
    code, out, _ = run(capsys, "grad", "reduce_sum(sin(x)**2)", "--wrt", "x",
                       "--at", "x=[0, 0.5]")
    # d/dx sum(sin(x)**2) = 2 sin(x) cos(x) = sin(2x)
    assert out == "d/dx = [sin(2*x[0]), sin(2*x[1])] = [0, 0.841471]\n"
    code, out, _ = run(capsys, "grad", "a + stop_gradient(b)", "--wrt", "a", "b",
                       "--let", "b=2*a")
    assert code == 0 and out.splitlines()[1].startswith("d/db = None: Every path from 'b'")


def test_explain_formats(capsys):
    args = ["explain", "a + b", "--wrt", "a", "b", "--let", "b=2*a", "--at", "a=0"]
    code, out, _ = run(capsys, *args)
    assert code == 0 and "Forward trace" in out and "d/da = 3" in out
    assert "| node |" in run(capsys, *args, "--format", "markdown")[1]
    assert "<table>" in run(capsys, *args, "--format", "html")[1]


def test_draw_prints_dot_or_writes_a_file(capsys, tmp_path):
    code, out, _ = run(capsys, "draw", "a*a", "--wrt", "a", "--at", "a=3")
    assert code == 0 and out.startswith("digraph gradients {") and "adjoint 6" in out
    target = tmp_path / "g.dot"
    code, out, _ = run(capsys, "draw", "a + stop_gradient(b)", "--wrt", "a", "b",
                       "--let", "b=2*a", "--highlight", "a", "-o", str(target))
    assert code == 0 and 'color="red"' in target.read_text() and 'style="dashed"' in \
        target.read_text()


@pytest.mark.skipif(not dot_available(), reason="Graphviz 'dot' is not installed")
def test_draw_svg(capsys, tmp_path):
    target = tmp_path / "graph.svg"
    code, out, _ = run(capsys, "draw", "x**2 + x - 1", "--wrt", "x", "--at", "x=2",
                       "-o", str(target))
    assert code == 0 and "<svg" in target.read_text()


@pytest.mark.parametrize("argv, message", [
    (["grad", "__import__('os').system('touch /tmp/symgrad_pwned')", "--wrt", "a"],
     "names with '__'"),
    (["grad", "a.__class__", "--wrt", "a"], "attribute access"),
    (["grad", "(lambda: 1)()", "--wrt", "a"], "Python keyword"),
    (["grad", "open('x')", "--wrt", "a"], "not a known function"),
    (["grad", "a + 1", "--wrt", "a", "--let", "__x=1"], "not a valid name"),
    (["grad", "a + 1", "--wrt", "a", "--at", "a=__import__"], "names with '__'"),
    (["grad", "a + 1", "--wrt", "a", "--at", "a=b"], "unknown name 'b'"),
    (["grad", "a + 1", "--wrt", "a", "--at", "a"], "write NAME=EXPRESSION"),
    (["grad", "a + 1", "--wrt", "q"], "--wrt q: not a name"),
    (["grad", "a" + "+a" * 3000, "--wrt", "a"], "characters long"),
    (["grad", "(" * 500 + "a" + ")" * 500, "--wrt", "a"], "nested deeper"),
    (["draw", "a", "--wrt", "a", "--highlight", "zz"], "--highlight zz"),
])
def test_unsafe_or_bad_input_is_rejected(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith("symgrad: error: ") and message in err


def test_shape_errors_of_the_input_exit_2(capsys):
    code, out, err = run(capsys, "grad", "[1, 2] @ a", "--wrt", "a", "--at", "a=[1, 2, 3]")
    assert code == 2 and "matmul" in err and len(err.splitlines()) == 1


def test_internal_errors_exit_1_in_one_line(capsys, monkeypatch):
    import symgrad as sg

    def broken(*args, **kwargs):
        raise ZeroDivisionError("a bug")
    monkeypatch.setattr(sg, "closed_form", broken)
    code, out, err = run(capsys, "grad", "x**2", "--wrt", "x")
    assert code == 1 and err == "symgrad: error: internal error (ZeroDivisionError): a bug\n"


def test_time_limit_backstop(capsys, monkeypatch):
    # The budgeted closed forms no longer hang on ((x+1)**200)**200, so a closed form
    # that would run for minutes is stood in for by one that sleeps.
    import time

    import symgrad as sg

    def slow_closed_form(*args, **kwargs):
        time.sleep(30)
    monkeypatch.setattr(sg, "closed_form", slow_closed_form)
    code, out, err = run(capsys, "grad", "x**2", "--wrt", "x", "--timeout", "1")
    assert code == 2 and err.startswith("symgrad: error: gave up after 1 s (--timeout)")
    assert len(err.splitlines()) == 1


def test_huge_power_gradient_is_quick_and_exact(capsys):
    code, out, err = run(capsys, "grad", "((x+1)**200)**200", "--wrt", "x")
    assert code == 0 and "40000*(x + 1)**39999" in out


def test_large_sweeps_explain_by_value(capsys):
    code, out, _ = run(capsys, "explain", "*".join(["x"] * 250), "--wrt", "x", "--at", "x=1")
    assert code == 0 and "d/dx = 250*x**249 = 250" in out


def test_help_teaches_by_example(capsys):
    with pytest.raises(SystemExit) as info:
        main(["--help"])
    out = capsys.readouterr().out
    assert info.value.code == 0
    assert 'symgrad grad "x**2 + x - 1" --wrt x --at x=2' in out and "eval" in out
    with pytest.raises(SystemExit):
        main(["grad", "--help"])
    assert "--let NAME=EXPR" in capsys.readouterr().out


def test_python_dash_m_in_a_subprocess():
    done = subprocess.run([sys.executable, "-m", "symgrad.cli", "grad", "x**2 + x - 1",
                           "--wrt", "x", "--at", "x=2"], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0 and done.stdout == "d/dx = 2*x + 1 = 5\n"
    bad = subprocess.run([sys.executable, "-m", "symgrad.cli", "grad",
                          "__import__('os').system('echo pwned')", "--wrt", "x"],
                         capture_output=True, text=True, timeout=300)
    assert bad.returncode == 2 and "pwned" not in bad.stdout and "names with '__'" in bad.stderr


def test_python_dash_m_and_version():
    """`python -m symgrad` is the `symgrad` command; --version reads the package metadata."""
    from importlib import metadata

    import symgrad
    out = subprocess.run([sys.executable, "-m", "symgrad", "--version"], capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"symgrad {metadata.version('symgrad')}"
    assert symgrad.__version__ == metadata.version("symgrad")
    out = subprocess.run([sys.executable, "-m", "symgrad", "grad", "x**2", "--wrt", "x",
                          "--at", "x=3"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout == "d/dx = 2*x = 6\n", out.stderr


@pytest.mark.parametrize("expression, f, at", [
    ("x[0]*x[1]", lambda x: x[0] * x[1], [1.0, 2.0]),
    ("reduce_sum(x[1:]*x[:-1]) - x[-1]**2", lambda x: np.sum(x[1:] * x[:-1]) - x[-1] ** 2,
     [1.0, 2.0, 3.0]),
    ("sin(x[::2]) @ x[1::2] + x[1:3][0]", lambda x: np.sin(x[::2]) @ x[1::2] + x[1],
     [0.5, -1.0, 2.0, 0.25]),
])
def test_grad_parses_indexing_and_slices(capsys, expression, f, at):
    """Values of indexed expressions against central finite differences (numpy's own indexing)."""
    code, out, err = run(capsys, "grad", expression, "--wrt", "x", "--at", f"x={at}")
    assert code == 0, err
    shown = np.array(out.rsplit("= [", 1)[1].strip().rstrip("]").split(","), dtype=float)
    x, h = np.array(at), 1e-6
    fd = [(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(len(x))]
    np.testing.assert_allclose(shown, fd, rtol=1e-5, atol=1e-6)
