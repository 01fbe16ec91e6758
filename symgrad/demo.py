"""The classic questions about ``tf.gradients``, each with its closed form and value.

Used by ``symgrad demo`` and the examples; every question runs in a graph of its
own so leaf names stay as written.  Sits with the CLI on top of the pipeline.

>>> "[3.0, 1.0]" in run_demo()
True
"""
from __future__ import annotations

import textwrap

import numpy as np

from .differentiate import gradients
from .seeds import jacobian
from .evaluate import evaluate
from .forms import closed_form
from .teach import explain, why_none as why_none_text
from .tracing import Graph, Variable, constant, multiply, reduce_sum, stop_gradient


def _fmt(values):
    return "[" + ", ".join("None" if v is None else
                           (f"{float(v)}" if np.ndim(v) == 0 else np.array2string(np.asarray(v)))
                           for v in values) + "]"


def _forms(grads):
    return "[" + ", ".join("None" if g is None else str(closed_form(g)) for g in grads) + "]"


def total_derivative():
    with Graph().as_default():
        a = constant(0.0, name="a")
        b = 2 * a
        g = gradients(a + b, [a, b])
        partial = gradients(a + b, [a, b], stop_gradients=[a, b])
        return (
            "1. a = 0; b = 2a; gradients(a + b, [a, b])\n"
            f"   closed form {_forms(g)}, value {_fmt(evaluate(g))}\n"
            "   a's gradient is total: 1 directly plus 2 through b.  b's is 1.\n"
            f"   with stop_gradients=[a, b]: {_fmt(evaluate(partial))} (partial derivatives)")


def cubic():
    with Graph().as_default():
        a = constant(5.0, name="a")
        b = 2 * a
        g = gradients(a ** 3 + 2 * b ** 2, [a, b])
        return ("2. a = 5; b = 2a; gradients(a**3 + 2*b**2, [a, b])\n"
                f"   closed form {_forms(g)}, value {_fmt(evaluate(g))}")


def quadratic():
    with Graph().as_default():
        x = Variable(2.0, name="x")
        g = gradients(x ** 2 + x - 1, x)
        return ("3. x = 2; gradients(x**2 + x - 1, x)\n"
                f"   closed form {_forms(g)}, value {_fmt(evaluate(g))}")


def matrix_shape():
    with Graph().as_default():
        X = Variable(np.ones((3, 3)), name="X")
        s = reduce_sum(X, name="s")
        (g,) = gradients(s ** 2 + s - 1, X)
        form = closed_form(g, keep=[s])
        return ("4. X = ones((3, 3)); s = reduce_sum(X); gradients(s**2 + s - 1, X)\n"
                f"   has X's shape {g.shape}; every entry is {form[0, 0]}:\n"
                + _indent(np.array2string(evaluate(g))))


def jacobian_vs_gradient():
    with Graph().as_default():
        x = Variable([1.0, 2.0], name="x")
        y = x * x
        (g,) = gradients(y, x)
        J = jacobian(y, x)
        return ("5. x = [1, 2]; y = x * x (a vector)\n"
                f"   jacobian(y, x) = {closed_form(J).tolist()} -> {evaluate(J).tolist()}\n"
                f"   gradients(y, x) = {closed_form(g).tolist()} -> {evaluate(g).tolist()}:\n"
                "   the gradient of a vector y is the gradient of sum(y), i.e. the column "
                "sums of the Jacobian (the Jacobian contracted with grad_ys = ones)")


def why_none():
    with Graph().as_default():
        a = constant(0.0, name="a")
        b = multiply(2.0, a, name="b")
        y = a + stop_gradient(b)
        g = gradients(y, [a, b])
        return ("6. a = 0; b = 2a; gradients(a + stop_gradient(b), [a, b])\n"
                f"   value {_fmt(evaluate(g))}: b's entry is None, not 0.\n"
                + _indent(textwrap.fill(why_none_text(y, [a, b], 1), 86)))


def _explained():
    """The explanation printed after a question (``symgrad demo --explain``)."""
    with Graph().as_default():
        a = constant(0.0, name="a")
        b = 2 * a
        return _indent(str(explain(a + b, [a, b])))


def _indent(text):
    return "\n".join(("   " + line).rstrip() for line in text.splitlines())


def run_demo(explain=False):
    """All classic questions as one printable text (with ``explain``, the full
    explanation of the first question follows)."""
    parts = [q() for q in (total_derivative, cubic, quadratic, matrix_shape,
                           jacobian_vs_gradient, why_none)]
    if explain:
        parts.append("The first question, explained step by step:\n" + _explained())
    return "\n\n".join(parts)
