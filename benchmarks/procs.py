"""Running one measurement child with a build deadline, and the fresh cache dirs.

``run_child`` starts ``python -m benchmarks.child ...``, waits for ``READY`` (imports
and warm-up done), then gives the build ``build_limit`` seconds to print ``BUILT``;
a build that takes longer is killed and reported as "failed to build within N s".
"""
from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
START_LIMIT = 180.0      # imports + warm-up
MEASURE_LIMIT = 600.0    # latency + throughput after the build


def fresh_env(tmp_root):
    """Environment with empty symgrad and Numba cache dirs under ``tmp_root``."""
    base = Path(tempfile.mkdtemp(dir=tmp_root))
    env = dict(os.environ)
    env["SYMGRAD_CACHE_DIR"] = str(base / "symgrad")
    env["NUMBA_CACHE_DIR"] = str(base / "numba")
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env.setdefault("JAX_PLATFORMS", "cpu")
    return env


def _pump(stream, sink):
    for line in stream:
        sink.put(line)
    sink.put(None)


class Child:
    """A running measurement process whose output lines arrive on a queue."""

    def __init__(self, args, env):
        self.proc = subprocess.Popen([sys.executable, "-m", "benchmarks.child", *args],
                                     cwd=ROOT, env=env, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        self.lines, self.errors = queue.Queue(), []
        threading.Thread(target=_pump, args=(self.proc.stdout, self.lines), daemon=True).start()
        threading.Thread(target=self._drain_errors, daemon=True).start()

    def _drain_errors(self):
        for line in self.proc.stderr:
            self.errors.append(line.rstrip())

    def wait_for(self, tag, seconds):
        """The payload of the next line starting with ``tag``; None on timeout or exit."""
        while True:
            try:
                line = self.lines.get(timeout=seconds)
            except queue.Empty:
                return None
            if line is None:
                return None
            if line.startswith(tag):
                return line[len(tag):].strip()

    def kill(self):
        self.proc.kill()
        self.proc.wait()

    def failure(self):
        self.proc.wait(timeout=30)
        last = [e for e in self.errors if e.strip()][-1:] or ["no output"]
        return f"crashed: {last[0][:160]}"


def run_child(args, env, build_limit=None):
    """Run one child; returns its RESULT dict (plus ``build``) or ``{"error": text}``."""
    child = Child(args, env)
    try:
        build = None
        if build_limit is not None:
            if child.wait_for("READY", START_LIMIT) is None:
                return {"error": child.failure()}
            built = child.wait_for("BUILT", build_limit)
            if built is None:
                if child.proc.poll() is None:
                    child.kill()
                    return {"error": f"failed to build within {build_limit:g} s"}
                return {"error": child.failure()}
            build = float(built)
        payload = child.wait_for("RESULT", MEASURE_LIMIT)
        if payload is None:
            return {"error": child.failure() if child.proc.poll() is not None
                    else "measurement timed out"}
        result = json.loads(payload)
        result["build"] = build
        return result
    finally:
        if child.proc.poll() is None:
            child.kill()
