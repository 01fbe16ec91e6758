"""The public API is typed: every public function and method of the typed modules (listed
in pyproject.toml's mypy configuration) has annotations, the package ships ``py.typed``,
and mypy (pinned in the test extra) passes on the package.

mypy's configuration is in pyproject.toml; its cache lives in the user's temporary
directory, so a second run takes seconds.
"""
import inspect
import pathlib
import re
import subprocess
import sys
import tempfile

import pytest

import symgrad as sg

ROOT = pathlib.Path(__file__).resolve().parent.parent
MYPY_VERSION = "1.13.0"


def _typed_modules():
    """The modules pyproject.toml's mypy configuration checks (the typed public API)."""
    tomllib = pytest.importorskip("tomllib")
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]
    return {m for o in config["overrides"] if o.get("ignore_errors") is False
            for m in o["module"]}


def _public_callables():
    typed = _typed_modules()
    for name in sorted(dir(sg)):
        obj = getattr(sg, name)
        if name.startswith("_") or getattr(obj, "__module__", "") not in typed:
            continue
        if inspect.isclass(obj):
            if issubclass(obj, Exception):
                continue
            for attr, member in vars(obj).items():
                if isinstance(member, property):
                    yield f"{name}.{attr}", member.fget
                elif inspect.isfunction(member) and (not attr.startswith("_") or
                                                     attr in ("__init__", "__call__")):
                    yield f"{name}.{attr}", member
        elif callable(obj):
            yield name, obj


def test_public_api_is_annotated():
    missing = []
    for name, fn in _public_callables():
        sig = inspect.signature(fn)
        params = [p for p in list(sig.parameters.values())
                  if p.name not in ("self", "cls")]
        if any(p.annotation is inspect.Parameter.empty for p in params) or \
                sig.return_annotation is inspect.Signature.empty:
            missing.append(f"{name}{sig}")
    assert missing == [], "not annotated:\n" + "\n".join(missing)


def test_package_is_marked_typed():
    assert (ROOT / "symgrad" / "py.typed").exists()
    data = re.search(r'^symgrad = \[(.*)\]$', (ROOT / "pyproject.toml").read_text(), re.M)
    assert data and '"py.typed"' in data.group(1)   # the package data ships the marker


def test_mypy_passes_on_the_package():
    mypy = pytest.importorskip("mypy.version")
    assert mypy.__version__ == MYPY_VERSION, "pyproject's test extra pins mypy"
    cache = pathlib.Path(tempfile.gettempdir()) / f"symgrad-mypy-{MYPY_VERSION}"
    done = subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(cache),
                           "-p", "symgrad"], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr


def test_op_functions_all_lists_every_registered_function():
    """``__all__`` of tracing/functions.py is spelled out for type checkers; it must name
    exactly the functions registered there (a new op function needs a line in it)."""
    from symgrad.tracing import functions
    assert functions.__all__ == functions._EXPORTS
