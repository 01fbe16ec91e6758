"""Oracles shared by the tests: central finite differences, closed-form evaluation, and
kernels compiled with an emitter switch on and off."""
import numpy as np
import pytest
import sympy

import symgrad as sg
from symgrad.forms.symbolic import leaf_symbols


def central_difference(f, x0, eps=1e-6):
    """Gradient of scalar ``f`` at array ``x0`` by central differences."""
    x0 = np.array(x0, dtype=float)
    grad = np.zeros_like(x0)
    for idx in np.ndindex(x0.shape):
        hi, lo = x0.copy(), x0.copy()
        hi[idx] += eps
        lo[idx] -= eps
        grad[idx] = (f(hi) - f(lo)) / (2 * eps)
    return grad


def eval_closed_form(t, leaves, simplify="none"):
    """Evaluate the closed form of ``t`` numerically at the leaves' current values."""
    form = sg.closed_form(t, simplify=simplify)
    subs = {}
    for leaf in leaves:
        syms = leaf_symbols(leaf)
        vals = np.asarray(leaf.value if leaf.value is not None else 0.0)
        for idx in np.ndindex(leaf.shape):
            subs[syms[idx]] = (sympy.true if vals[idx] else sympy.false) \
                if leaf.dtype.kind == "b" else sympy.Float(float(vals[idx]))
    arr = np.array(sympy.Array(form).tolist() if t.shape else form, dtype=object)
    out = np.empty(arr.shape, dtype=float)
    for idx in np.ndindex(arr.shape):
        v = sympy.sympify(arr[idx]).xreplace(subs)
        if isinstance(v, sympy.logic.boolalg.Boolean):
            out[idx] = float(bool(v))
        else:
            out[idx] = complex(sympy.N(v)).real
    return out


def example_values(example, rng):
    """Input values for a registry :class:`~symgrad.ops.Example`: random floats from its
    domain for shape entries, the given arrays as they are."""
    lo, hi = example.domain
    return [rng.uniform(lo, hi, size=spec) if isinstance(spec, tuple) else np.asarray(spec)
            for spec in example.args]


def compiled_switched(switch, on, outputs, inputs, monkeypatch):
    """``outputs`` compiled with ``switch.ENABLED`` (a lowering module's flag: loop fusion,
    loop collapsing) set to ``on``.  Off also returns ``outputs[0]`` twice: another graph,
    so neither the compile cache nor Numba hands back the other kernel."""
    monkeypatch.setattr(switch, "ENABLED", on)
    extra = [] if on else [sg.identity(outputs[0])]
    return sg.compile(list(outputs) + extra, inputs, cache=False, wait=True)


def random_program_switched(p, switch):
    """Random program ``p``'s values and gradients compiled with ``switch`` on equal them
    compiled with it off, bit for bit, and the reference evaluator's."""
    grads = [g for g in sg.gradients(p.ys, p.leaves, grad_ys=p.grad_ys) if g is not None]
    outputs = list(p.ys) + grads
    values = [leaf.value for leaf in p.leaves]
    with pytest.MonkeyPatch.context() as mp:
        got = compiled_switched(switch, True, outputs, p.leaves, mp)(*values)
        apart = compiled_switched(switch, False, outputs, p.leaves, mp)(*values)
    for a, b, e in zip(got, apart, sg.evaluate(outputs)):
        np.testing.assert_array_equal(a, b, err_msg=p.code)
        np.testing.assert_allclose(np.asarray(a, dtype=float), np.asarray(e, dtype=float),
                                   rtol=1e-12, atol=1e-12, equal_nan=True, err_msg=p.code)
