"""The gradient of a long ``while_loop`` (Euler integration) compiled, beside a hand adjoint.

``python -m benchmarks.control_flow [--steps 1000000] [--repeat 7]`` prints one JSON
line per measurement:

- compile: ``sg.compile`` of the gradient of an Euler integration whose trip count is a
  constant of the graph, for 10 and for ``--steps`` steps (fresh cache each), in one
  process: the loop stays a loop, so the two should take the same time;
- run: median seconds of one call of the symgrad gradient (dy/dx, dy/dc through every
  step) and of a hand-written ``@njit`` forward loop storing its iterates plus a
  hand-derived reverse sweep, and their ratio (hand / symgrad: 1.0 is hand speed).

The ODE: y' = -c y sin(y) + x, y(0) = x, Euler steps of 1e-6.
"""
from __future__ import annotations

import argparse
import json
import time

import numpy as np
from numba import njit

from .timing import median_seconds

H = 1e-6


def euler_gradient(steps, compile_kwargs):
    """(evaluator, compile seconds) of [dy/dx, dy/dc] after ``steps`` Euler steps."""
    import symgrad as sg
    with sg.Graph().as_default():
        x = sg.placeholder(name="x")
        c = sg.placeholder(name="c")
        _, y = sg.while_loop(lambda k, y: k < steps,
                             lambda k, y: (k + 1, y + H * (-c * y * sg.sin(y) + x)), [0, x])
        grads = sg.gradients(y, [x, c])
        t0 = time.perf_counter()
        f = sg.compile(grads, [x, c], **compile_kwargs, wait=True)
        return f, time.perf_counter() - t0


@njit(cache=True)
def hand_gradient(x, c, steps):
    """Forward Euler storing every iterate, then the adjoint sweep written by hand."""
    tape = np.empty(steps)
    y = x
    for k in range(steps):
        tape[k] = y
        y = y + H * (-c * y * np.sin(y) + x)
    ybar, xbar, cbar = 1.0, 0.0, 0.0
    for k in range(steps - 1, -1, -1):
        yk = tape[k]
        s = np.sin(yk)
        # y' = y + H (-c y sin y + x): dy'/dy = 1 - H c (sin y + y cos y), dy'/dc = -H y sin y
        xbar += H * ybar
        cbar += -H * yk * s * ybar
        ybar = ybar * (1.0 - H * c * (s + yk * np.cos(yk)))
    return xbar + ybar, cbar   # y_0 = x: the initial value's adjoint joins x's


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--steps", type=int, default=1_000_000)
    p.add_argument("--repeat", type=int, default=7)
    args = p.parse_args(argv)
    euler_gradient(3, {"cache": False})  # Numba's start-up is paid before measuring
    for steps in (10, args.steps):
        _, seconds = euler_gradient(steps, {"cache": False})
        print(json.dumps({"measure": "compile", "steps": steps, "seconds": round(seconds, 2)}),
              flush=True)
    f, _ = euler_gradient(args.steps, {})
    x0, c0 = 0.4, 0.8
    got = f(x0, c0)
    hand_gradient(x0, c0, 10)
    want = hand_gradient(x0, c0, args.steps)
    assert np.allclose(got, want, rtol=1e-9), (got, want)
    ours = median_seconds(lambda: f(x0, c0), args.repeat)
    hand = median_seconds(lambda: hand_gradient(x0, c0, args.steps), args.repeat)
    print(json.dumps({"measure": "run", "steps": args.steps, "symgrad_s": round(ours, 4),
                      "hand_s": round(hand, 4), "hand_over_symgrad": round(hand / ours, 2)}))


if __name__ == "__main__":
    main()
