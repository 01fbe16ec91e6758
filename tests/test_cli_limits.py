"""The command line: every bad input and every exceeded limit is one error line and
exit code 2 (issue 9).  On main before the fix each case below ended in a traceback
(TypeError, IndexError, AttributeError, OverflowError, FileNotFoundError), was
accepted (x**[1000000], '1٠5' read as 105, keepdims=2, axis=True), echoed raw
control characters, or ran unbounded (gigabytes for exp((x+y)**256))."""
import os
import subprocess
import sys

import numpy as np
import pytest

from symgrad.cli import main

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_error(code, err, *fragments):
    assert code == 2, err
    assert err.startswith("symgrad: error: ") and "Traceback" not in err, err
    for fragment in fragments:
        assert fragment in err, (fragment, err)


@pytest.mark.parametrize("expression, fragment", [
    ("sin(x, y)", "sin(x, name=None) takes 1 tensor argument"),
    ("add(x,y,z)", "add(x, y, name=None) takes 2 tensor arguments"),
    ("trace(x, x)", "trace(x, name=None) takes 1 tensor argument"),
    ("logsumexp(x,0,0,0)", "keepdims must be a bool"),
    ("reduce_sum(x, keepdims=2)", "keepdims must be a bool"),
    ("reduce_sum(x, axis=True)", "axis must be an int or a list of ints, not bool"),
    ("x**[1000000]", "the exponent 1e+06 is too large"),
    ("pow(x, [3, 1000000])", "the exponent 1e+06 is too large"),
    ("x*1\u06605", "unexpected character"),
    ("x*1\u0665", "unexpected character"),
    ("[1, 2] + [1, 2, 3]", "do not broadcast"),
])
def test_wrong_calls_and_values_are_one_error_and_exit_2(capsys, expression, fragment):
    code, out, err = run(capsys, "grad", expression, "--wrt", "x", "--at", "x=[1.0, 2.0]")
    assert_one_error(code, err, fragment)


def test_a_huge_value_is_refused_by_parse(capsys):
    rows = "[" + ", ".join(["[1]"] * 400) + "]"
    cols = "[" + ", ".join(["1"] * 400) + "]"
    code, out, err = run(capsys, "grad", f"x * {rows} * {cols}", "--wrt", "x")
    assert_one_error(code, err, "160000 elements", "the limit is 100000")


def test_control_characters_are_escaped_in_error_snippets(capsys):
    code, out, err = run(capsys, "grad", "x + \x1b[31m$", "--wrt", "x")
    assert_one_error(code, err, "\\x1b[31m$")
    assert "\x1b" not in err


@pytest.mark.parametrize("option, value", [("--timeout", "99999999999"), ("--timeout", "-1"),
                                           ("--memory", "1e9"), ("--timeout", "٣")])
def test_limits_out_of_range_are_one_error(capsys, option, value):
    with pytest.raises(SystemExit) as info:
        main(["grad", "x", "--wrt", "x", option, value])
    err = capsys.readouterr().err
    assert info.value.code == 2 and len(err.splitlines()) == 1
    assert err.startswith("symgrad: error: ") and f"give a whole number from 0" in err


def test_draw_to_a_missing_directory_is_one_error(capsys, tmp_path):
    target = tmp_path / "nodir" / "a.dot"
    code, out, err = run(capsys, "draw", "x**2", "--wrt", "x", "-o", str(target))
    assert_one_error(code, err, "cannot write it")
    assert len(err.splitlines()) == 1


def test_memory_limit_stops_a_request_in_one_line(capsys, monkeypatch):
    import symgrad as sg

    def greedy(*args, **kwargs):
        return np.ones(2 ** 31)  # 16 GB
    monkeypatch.setattr(sg, "closed_form", greedy)
    code, out, err = run(capsys, "grad", "x**2", "--wrt", "x", "--memory", "200")
    assert_one_error(code, err, "memory limit (200 MB, --memory)")
    assert len(err.splitlines()) == 1


def test_a_closed_form_blow_up_stays_within_its_limits():
    # main: 5.8 GB, then MemoryError with a traceback.  Now the answer comes within the
    # limits (the closed forms have a budget), or one line and exit 2 -- never more.
    env = dict(os.environ, PYTHONPATH=ROOT)
    out = subprocess.run([sys.executable, "-m", "symgrad.cli", "grad", "exp((x+y)**256)",
                          "--wrt", "x", "--memory", "200", "--timeout", "8"],
                         env=env, capture_output=True, text=True, timeout=120)
    if out.returncode == 0:
        assert out.stdout.startswith("d/dx = 256*(x + y)**255")
    else:
        assert out.returncode == 2, out.stderr
        assert out.stderr.startswith("symgrad: error: ") and len(out.stderr.splitlines()) == 1
        assert "--memory" in out.stderr or "--timeout" in out.stderr
