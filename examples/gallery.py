"""A gallery of closed forms: what symgrad shows for gradients TensorFlow computes.

Run from the worktree root:  python examples/gallery.py [--latex-only | --plain-only]

Each entry is built as a TF-style program, differentiated with ``sg.gradients``
and printed as plain text (textbook unicode) and LaTeX; matrix-built programs
also in matrix notation; one large gradient with its shared parts named.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import symgrad as sg  # noqa: E402


def scalar_identities():
    out = []
    for label, f in [("sigmoid(x)", sg.sigmoid), ("softplus(x)", sg.softplus),
                     ("tanh(x)", sg.tanh), ("log(1 + exp(x))", lambda x: sg.log(1 + sg.exp(x))),
                     ("x sigmoid(x)  (swish)", lambda x: x * sg.sigmoid(x)),
                     ("sin(x)**2", lambda x: sg.sin(x) ** 2),
                     ("log(cosh(x))", lambda x: sg.log(sg.cosh(x)))]:
        with sg.Graph().as_default():
            x = sg.Variable(0.5, name="x")
            out.append((f"d/dx {label}", sg.gradients(f(x), x)[0], "elementwise"))
    return out


def classic():
    out = []
    with sg.Graph().as_default():
        a = sg.constant(0.0, name="a")
        b = 2 * a
        out.append(("a = 0; b = 2a; gradients(a + b, [a, b])", sg.gradients(a + b, [a, b]),
                    "elementwise"))
    with sg.Graph().as_default():
        a = sg.constant(5.0, name="a")
        b = 2 * a
        out.append(("a = 5; b = 2a; gradients(a**3 + 2*b**2, [a, b])",
                    sg.gradients(a ** 3 + 2 * b ** 2, [a, b]), "elementwise"))
    with sg.Graph().as_default():
        x = sg.Variable(2.0, name="x")
        out.append(("gradients(x**2 + x - 1, x)", sg.gradients(x ** 2 + x - 1, x),
                    "elementwise"))
    with sg.Graph().as_default():
        v = sg.Variable(np.zeros(3), name="v")
        out.append(("gradient of logsumexp(v): softmax", sg.gradients(sg.reduce_logsumexp(v), v)[0],
                    "elementwise"))
    return out


def matrix():
    rng = np.random.default_rng(0)
    out = []
    with sg.Graph().as_default():
        X = sg.Variable(rng.normal(size=(5, 3)), name="X")
        w = sg.Variable(rng.normal(size=3), name="w")
        y = sg.constant(rng.uniform(size=5), name="y")
        out.append(("least squares: d/dw sum((X w - y)**2)",
                    sg.gradients(sg.reduce_sum((X @ w - y) ** 2), w)[0], "matrix"))
        z = X @ w
        loss = -sg.reduce_sum(y * sg.log(sg.sigmoid(z)) + (1 - y) * sg.log(1 - sg.sigmoid(z)))
        out.append(("logistic regression: d/dw of the cross-entropy", sg.gradients(loss, w)[0],
                    "matrix"))
        out.append(("ridge: d/dw mean((X w - y)**2) + sum(w**2)/2",
                    sg.gradients(sg.reduce_mean((X @ w - y) ** 2) + 0.5 * sg.reduce_sum(w * w),
                                 w)[0], "matrix"))
    with sg.Graph().as_default():
        x = sg.Variable(rng.normal(size=3), name="x")
        A = sg.Variable(rng.normal(size=(3, 3)), name="A")
        out.append(("quadratic form: d/dx xᵀ A x", sg.gradients(x @ A @ x, x)[0], "matrix"))
        X = sg.Variable(rng.normal(size=(3, 2)), name="X")
        out.append(("d/dX trace(Xᵀ A X)", sg.gradients(sg.trace(sg.transpose(X) @ A @ X), X)[0],
                    "matrix"))
        v = sg.Variable(rng.normal(size=3), name="v")
        out.append(("d/dv logsumexp(v): softmax", sg.gradients(sg.reduce_logsumexp(v), v)[0],
                    "matrix"))
        out.append(("no matrix reading: d/dv v[0] * sum(v)",
                    sg.gradients(v[0] * sg.reduce_sum(v), v)[0], "matrix"))
    return out


def large():
    with sg.Graph().as_default():
        W = sg.Variable(np.full((3, 3), 0.1), name="W")
        x = sg.Variable(np.ones(3), name="x")
        y = sg.reduce_sum(sg.sigmoid(W @ sg.tanh(W @ x)))
        return [("two-layer net: d/dx sum(sigmoid(W tanh(W x)))", sg.gradients(y, x)[0],
                 "elementwise")]


def show(label, t, form, plain=True, latex=True):
    print(f"## {label}")
    if form == "matrix":
        m = sg.matrix_form(t)
        print(f"   ({m.form} form{'' if m.reason is None else ': ' + m.reason})")
    if plain:
        print(sg.text(t, form=form))
    if latex:
        print("LaTeX: " + sg.latex(t, form=form))
    print()


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    plain, latex = "--latex-only" not in argv, "--plain-only" not in argv
    for section, entries in [("Textbook identities", scalar_identities()),
                             ("The classic questions", classic()),
                             ("Matrix notation", matrix()),
                             ("A large gradient, shared parts named", large())]:
        print(f"# {section}\n")
        for label, t, form in entries:
            show(label, t, form, plain, latex)


if __name__ == "__main__":
    main()
