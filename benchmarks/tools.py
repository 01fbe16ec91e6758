"""The tools compared: symgrad and its peers, each building a value+gradient function.

``build(workload)`` returns a :class:`Built`: ``call(x) -> (value, gradient)`` with
numpy in and out, batched variants ``X (P, n) -> (values, gradients)``, the
derivation time where it is separate, and operation counts.  Every build ends
with a first call, so lazily compiled tools pay their compile inside the build.

Tools: ``symgrad`` (``sg.compile``), ``hand`` (hand-written @njit), ``sympy``
(``sympy.diff`` + ``lambdify``, numpy module, cse=True), ``sympy_njit`` (the same
lambdify source wrapped in ``njit``), ``jax`` (``jax.jit(jax.value_and_grad)``,
CPU, float64).
"""
from __future__ import annotations

import time

import numpy as np

from . import opcount
from .workloads import jax_function, symgrad_loss, sympy_expr

TOOLS = ["symgrad", "hand", "sympy_njit", "sympy", "jax"]
LABELS = {"symgrad": "symgrad", "hand": "hand @njit", "sympy": "sympy lambdify (numpy)",
          "sympy_njit": "sympy lambdify+njit", "jax": "jax.jit(value_and_grad)"}
CACHED = {"symgrad", "hand"}     # tools with a disk cache a new process can load from
SAVED = {"symgrad"}              # tools whose built function is saved to a file and loaded


class Built:
    """What a tool built: the call, batched variants, timings and counts."""

    def __init__(self, call, batches, derive_seconds=None, ops=None, note="", first=None):
        self.call = call
        self.batches = batches            # {"serial": fn, "parallel": fn}
        self.derive_seconds = derive_seconds
        self.ops = ops                    # (value ops, value+gradient ops) or None
        self.note = note
        self.save = None                  # save(path) where the tool can save what it built
        self.first_seconds = first        # derive + compile + first result (default compile)


def jax_available():
    try:
        import jax  # noqa: F401
    except ImportError:
        return False
    return True


# --- symgrad -------------------------------------------------------------------------

def _symgrad_compile(sg, outputs, x):
    """``sg.compile`` when this tree has it; else the reference evaluator (labelled)."""
    if hasattr(sg, "compile"):
        f = sg.compile(outputs, [x])   # the default: answers at once, machine code later
        return f, {"serial": f.batched, "parallel": lambda X: f.batched(X, parallel=True)}, ""

    def f(value):
        return sg.evaluate(outputs, {x: value})

    def loop(X):
        out = [f(row) for row in X]
        return np.array([o[0] for o in out]), np.array([o[1] for o in out])
    return f, {"serial": loop}, "reference evaluator: no sg.compile in this tree"


def build_symgrad(workload):
    import symgrad as sg
    t0 = time.perf_counter()
    with sg.Graph().as_default():
        x = sg.placeholder(shape=(workload.n,), name="x")
        loss = symgrad_loss(workload, sg, x)
        (grad,) = sg.gradients(loss, x)
    derive = time.perf_counter() - t0
    f, batches, note = _symgrad_compile(sg, [loss, grad], x)
    f(workload.sample())
    first = time.perf_counter() - t0
    if hasattr(f, "wait"):   # the build ends when the machine code answers
        f.wait()
        f(workload.sample())
    ops = opcount.program_ops([loss], [x]), opcount.program_ops([loss, grad], [x])
    built = Built(f, batches, derive, ops, note, first)
    built.save = getattr(f, "save", None)   # f.save(path): what ``child load`` reads
    return built


# --- hand-written @njit ----------------------------------------------------------------

def build_hand(workload):
    from . import hand
    call, batch, pbatch = hand.drivers(workload.kind)
    call(workload.sample())
    return Built(call, {"serial": _hand_batch(batch), "parallel": _hand_batch(pbatch)})


def _hand_batch(kernel):
    def run(X):
        V, G = np.empty(X.shape[0]), np.empty_like(X)
        kernel(X, V, G)
        return V, G
    return run


# --- sympy -----------------------------------------------------------------------------

def _sympy_derive(workload):
    import sympy
    xs = sympy.symbols(f"x0:{workload.n}")
    expr = sympy_expr(workload, sympy, xs)
    grads = [sympy.diff(expr, s) for s in xs]
    # numbers become floats so every output is a float (a homogeneous tuple for numba)
    outputs = tuple(sympy.Float(e) if e.is_number else e for e in [expr] + grads)
    return sympy, xs, outputs


def _sympy_lambdify(workload):
    sympy, xs, outputs = _sympy_derive(workload)
    f = sympy.lambdify([xs], outputs, modules="numpy", cse=True)
    return f, (xs, outputs)


def _sympy_ops(derived):
    xs, outputs = derived
    return opcount.sympy_ops(outputs[:1]), opcount.sympy_ops(outputs)


def build_sympy(workload):
    f, derived = _sympy_lambdify(workload)

    def call(x):
        out = f(x)
        return out[0], np.array(out[1:])

    def batch(X):
        out = np.stack(np.broadcast_arrays(*f(X.T)))
        return out[0], out[1:].T
    call(workload.sample())
    return Built(call, {"serial": batch}, ops=_sympy_ops(derived))


def build_sympy_njit(workload):
    from numba import njit
    f, derived = _sympy_lambdify(workload)
    core = njit(f)
    call = _njit_call(core)
    call(workload.sample())
    batch = _njit_batch(core, workload.n + 1)
    return Built(call, {"serial": batch}, ops=_sympy_ops(derived))


def _njit_call(core):
    from numba import njit

    @njit
    def call(x):
        out = np.asarray(core(x))
        return out[0], out[1:]
    return call


def _njit_batch(core, width):
    from numba import njit

    @njit
    def kernel(X, out):
        for b in range(X.shape[0]):
            out[b] = np.asarray(core(X[b]))

    def run(X):
        out = np.empty((X.shape[0], width))
        kernel(X, out)
        return out[:, 0], out[:, 1:]
    return run


# --- jax ---------------------------------------------------------------------------------

def build_jax(workload):
    import jax
    jax.config.update("jax_enable_x64", True)
    fn = jax_function(workload, jax.numpy)
    vg = jax.jit(jax.value_and_grad(fn))
    vmapped = jax.jit(jax.vmap(jax.value_and_grad(fn)))

    def call(x):
        value, grad = vg(x)
        return float(value), np.asarray(grad)

    def batch(X):
        values, grads = vmapped(X)
        return np.asarray(values), np.asarray(grads)
    x = workload.sample()
    call(x)
    ops = (opcount.jaxpr_ops(fn, x), opcount.jaxpr_ops(jax.value_and_grad(fn), x))
    return Built(call, {"serial": batch}, ops=ops)


BUILDERS = {"symgrad": build_symgrad, "hand": build_hand, "sympy": build_sympy,
            "sympy_njit": build_sympy_njit, "jax": build_jax}
