"""Table-driven closed forms: ours against ``sympy.simplify(sympy.diff(...))``.

Each case builds ``y`` from one leaf ``x``; the reference is SymPy's own answer
for the inlined forward expression (``closed_form(y, "none")``), differentiated
with ``sympy.diff`` and simplified with ``sympy.simplify``.  Ours must be equal
to it at random points and never larger (``count_ops``).  Timings of both go to
``benchmarks/closed_forms.py``, never into an assert.
"""
import numpy as np
import pytest
import sympy

import symgrad as sg
from symgrad.ops.functions import numeric
from symgrad.forms.simplify import size
from symgrad.forms.symbolic import leaf_symbols

SCALAR = [
    ("sigmoid(x)", lambda x: sg.sigmoid(x)),
    ("softplus(x)", lambda x: sg.softplus(x)),
    ("tanh(x)", lambda x: sg.tanh(x)),
    ("log(1 + exp(x))", lambda x: sg.log(1 + sg.exp(x))),
    ("sin(x)**2", lambda x: sg.sin(x) ** 2),
    ("exp(-x**2)", lambda x: sg.exp(-x ** 2)),
    ("log(sigmoid(x))", lambda x: sg.log(sg.sigmoid(x))),
    ("x*sigmoid(x)", lambda x: x * sg.sigmoid(x)),
    ("tanh(x)**2", lambda x: sg.tanh(x) ** 2),
    ("1/(1 + x**2)", lambda x: 1 / (1 + x ** 2)),
    ("atan(x)", lambda x: sg.atan(x)),
    ("sqrt(1 + x**2)", lambda x: sg.sqrt(1 + x ** 2)),
    ("log(cosh(x))", lambda x: sg.log(sg.cosh(x))),
    ("exp(sin(x))", lambda x: sg.exp(sg.sin(x))),
    ("sin(x)*cos(x)", lambda x: sg.sin(x) * sg.cos(x)),
    ("x*log(x)", lambda x: x * sg.log(x)),
    ("x**3*exp(x)", lambda x: x ** 3 * sg.exp(x)),
    ("sigmoid(2*x + 1)", lambda x: sg.sigmoid(2 * x + 1)),
    ("log(x**2 + 1)", lambda x: sg.log(x ** 2 + 1)),
    ("softplus(-x)", lambda x: sg.softplus(-x)),
    ("tanh(sigmoid(x))", lambda x: sg.tanh(sg.sigmoid(x))),
    ("erf(x)", lambda x: sg.erf(x)),
    ("asin(x)", lambda x: sg.asin(x)),
    ("exp(x)/(1 + exp(x))", lambda x: sg.exp(x) / (1 + sg.exp(x))),
    ("sin(x)**2 + cos(x)**2", lambda x: sg.sin(x) ** 2 + sg.cos(x) ** 2),
    ("sigmoid(x)*(1 - sigmoid(x))", lambda x: sg.sigmoid(x) * (1 - sg.sigmoid(x))),
    ("sinh(x)/cosh(x)", lambda x: sg.sinh(x) / sg.cosh(x)),
    ("log(x)/x", lambda x: sg.log(x) / x),
    ("sqrt(x)*exp(-x)", lambda x: sg.sqrt(x) * sg.exp(-x)),
    ("log(tanh(x))", lambda x: sg.log(sg.tanh(x))),
    ("cos(log(x))", lambda x: sg.cos(sg.log(x))),
    ("x/(1 + abs(x))", lambda x: x / (1 + abs(x))),
]
VECTOR = [
    ("logsumexp(v)", lambda v: sg.reduce_logsumexp(v)),
    ("log(sum(exp(v)))", lambda v: sg.log(sg.reduce_sum(sg.exp(v)))),
    ("-log(softmax(v)[0])", lambda v: -sg.log(sg.softmax(v)[0])),
    ("sum(sigmoid(v))", lambda v: sg.reduce_sum(sg.sigmoid(v))),
    ("norm(v)", lambda v: sg.norm(v)),
    ("sum(v)**2", lambda v: sg.reduce_sum(v) ** 2 / 2),
]
CASES = [(label, build, ()) for label, build in SCALAR] + \
        [(label, build, (3,)) for label, build in VECTOR]


def build_case(build, shape):
    """(x, y, ours, inlined forward expression, x's symbols) for one table row."""
    x = sg.Variable(np.full(shape, 0.5), name="v" if shape else "x")
    y = build(x)
    (g,) = sg.gradients(y, x)
    return x, y, g, sg.closed_form(y, simplify="none"), leaf_symbols(x)


def reference(inlined, syms):
    """SymPy's answer: simplify(diff(inlined)) for each element of x."""
    out = np.empty(syms.shape, dtype=object)
    for idx in np.ndindex(syms.shape):
        out[idx] = sympy.simplify(sympy.diff(inlined, syms[idx]))
    return out


def elements(form, shape):
    arr = np.empty(shape, dtype=object)
    for idx in np.ndindex(shape):
        arr[idx] = form[idx] if shape else form
    return arr


def values_at(exprs, syms, points):
    flat = tuple(syms.reshape(-1))
    return np.array([[numeric(sympy.sympify(e), flat)(*p) for e in exprs.reshape(-1)]
                     for p in points], dtype=float)


@pytest.mark.parametrize("label,build,shape", CASES, ids=[c[0] for c in CASES])
def test_closed_form_beats_sympy_simplify(label, build, shape, rng):
    x, y, g, inlined, syms = build_case(build, shape)
    ours = elements(sg.closed_form(g), shape)
    raw = elements(sg.closed_form(g, simplify="none"), shape)
    ref = reference(inlined, syms)
    points = rng.uniform(0.1, 0.9, size=(5, syms.size))
    ours_v = values_at(ours, syms, points)
    np.testing.assert_allclose(ours_v, values_at(raw, syms, points), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(ours_v, values_at(ref, syms, points), rtol=1e-9, atol=1e-12)
    for o, r in zip(ours.reshape(-1), ref.reshape(-1)):
        assert size(o) <= size(r), f"{label}: ours {o} is larger than sympy's {r}"


def test_table_has_at_least_thirty_derivatives():
    assert len(CASES) >= 30
