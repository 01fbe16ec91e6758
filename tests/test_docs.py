"""Every code block of README.md and docs/*.md runs, so no printed output can drift.

- ```pycon blocks (``>>>`` prompts): one doctest per file, blocks in order sharing one
  namespace (as a reader typing them into one interpreter), in a fresh default graph
  and a temporary working directory.
- ```console blocks (``$`` prompts): each ``symgrad ...`` command runs in-process
  (``symgrad.cli.main``) and its output must match the lines shown (``...`` matches
  anything).
- ```bash blocks: each command must succeed; output is not shown, so not compared.
- Commands that install or run the test suite (``pip install``, ``python -m pytest``)
  are what CI itself runs (.ci/run); they are recognised, not re-run here.

Any other kind of block fails the test: an unexecuted example is how drift starts.
"""
import contextlib
import doctest
import io
import pathlib
import re
import shlex

import pytest

import symgrad as sg
from symgrad.cli import main
from symgrad.teach import dot_available

ROOT = pathlib.Path(__file__).resolve().parent.parent
FILES = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.M | re.S)
NOT_RERUN = ("pip install", "python -m pytest", "bash .ci/run")
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def _blocks(path):
    text = path.read_text()
    for m in FENCE.finditer(text):
        yield text.count("\n", 0, m.start()) + 1, m.group(1), m.group(2)


def _ids(path):
    return str(path.relative_to(ROOT))


def test_every_block_is_executable():
    for path in FILES:
        for line, kind, body in _blocks(path):
            where = f"{_ids(path)}:{line}"
            assert kind in ("pycon", "console", "bash"), \
                f"{where}: a ```{kind} block is never run; use pycon (>>>), console ($) or bash"
            if kind == "pycon":
                assert body.lstrip().startswith(">>>"), f"{where}: pycon without >>>"
            if kind == "console":
                assert body.lstrip().startswith("$ "), f"{where}: console without $"


@pytest.mark.parametrize("path", FILES, ids=_ids)
def test_python_examples(path, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    source = "\n".join(body for _, kind, body in _blocks(path) if kind == "pycon")
    if not source:
        pytest.skip("no python examples")
    test = doctest.DocTestParser().get_doctest(source, {"__name__": "__docs__"}, _ids(path),
                                               str(path), 0)
    report = io.StringIO()
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    with sg.Graph().as_default():
        runner.run(test, out=report.write)
    assert runner.failures == 0, report.getvalue()


def _commands(kind, body):
    """(command, expected output or None) for each command of a console/bash block."""
    if kind == "bash":
        for line in body.splitlines():
            line = line.split("  #")[0].strip()
            for command in filter(None, (c.strip() for c in line.split("&&"))):
                yield command, None
        return
    for chunk in re.split(r"^\$ ", body, flags=re.M)[1:]:
        command, _, want = chunk.partition("\n")
        yield command.split("  #")[0].strip(), want


def _run(command):
    words = shlex.split(command)
    if words[:3] == ["python", "-m", "symgrad"]:
        words = ["symgrad"] + words[3:]
    assert words[0] == "symgrad", f"{command!r}: only symgrad commands run here"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            code = main(words[1:])
        except SystemExit as exc:          # --help, --version
            code = exc.code
    return code, out.getvalue()


SHELL_BLOCKS = [pytest.param(path, line, kind, body, id=f"{_ids(path)}:{line}")
                for path in FILES for line, kind, body in _blocks(path)
                if kind in ("console", "bash")]


@pytest.mark.parametrize("path, line, kind, body", SHELL_BLOCKS)
def test_commands(path, line, kind, body, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    ran = 0
    for command, want in _commands(kind, body):
        if command.startswith(NOT_RERUN):
            continue
        if re.search(r"symgrad draw .*-o \S+\.(svg|png|pdf)", command) and not dot_available():
            pytest.skip("Graphviz's dot is not installed")
        code, got = _run(command)
        assert code == 0, f"{command!r} exited with {code}:\n{got}"
        if want is not None:
            assert doctest.OutputChecker().check_output(want, got, FLAGS), \
                f"{command!r} printed:\n{got}\nthe document shows:\n{want}"
        ran += 1
    assert ran or kind == "bash"
