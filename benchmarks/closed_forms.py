"""Closed forms: size and time against SymPy, and the budget on large expressions.

Run from the worktree root:  python benchmarks/closed_forms.py [--quick]

Table 1: for each derivative of ``tests/test_closed_forms_table.py``, our
``closed_form`` (graph -> gradient graph -> expansion -> "auto") against
``sympy.simplify(sympy.diff(inlined forward expression))``: operation counts
and wall time of each.
Table 2: ``sympy.simplify`` time against expression size (why "auto" gates at
``SMALL_OPS``).
Table 3: large expressions (thousands of operations): time of ``closed_form``
and of the CSE printing, against the budget.
Table 4 (``--bounds`` runs only this one): the bounds of issue 10, each case in a
fresh child process (time and peak RSS of the child): ``exp((x+y)**20)``, logistic
regression at N = 2,000 and with ``X: (None, 20)`` (gradient, ``sg.hessians``,
Jupyter reprs), a large form without matrix notation, an indexed form over an
unknown size, a deep chain of shared parts, sparse Hessians' stored entries, and
capped data-dependent loops (with a maximum, and with where/abs, in the body).
"""
import os
import statistics
import sys
import time

import numpy as np
import sympy

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import symgrad as sg  # noqa: E402
import symgrad.forms.printing  # noqa: E402,F401
from symgrad.forms.simplify import BUDGET_SECONDS, SMALL_OPS, size  # noqa: E402
from tests.test_closed_forms_table import CASES, build_case, reference  # noqa: E402


def timed(fn, repeat=3):
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return out, best


def timed_fresh(fn, repeat=3):
    """Like :func:`timed`, each run in a fresh graph so leaf names stay as written."""
    best, out = float("inf"), None
    for _ in range(repeat):
        with sg.Graph().as_default():
            t0 = time.perf_counter()
            out = fn()
            best = min(best, time.perf_counter() - t0)
    return out, best


def table_identities():
    print("| derivative of | ours | ops | ms | sympy.simplify(diff) | ops | ms |")
    print("|---|---|---|---|---|---|---|")
    ratios = []
    for label, build, shape in CASES:
        with sg.Graph().as_default():
            def ours_fn():
                x, y, g, inlined, syms = build_case(build, shape)
                return sg.closed_form(g), inlined, syms
            (ours, inlined, syms), t_ours = timed_fresh(ours_fn)
            ref, t_ref = timed(lambda: reference(inlined, syms))
        first = ours if not shape else ours[0]
        print(f"| {label} | `{first}` | {size(first)} | {t_ours * 1e3:.1f} | "
              f"`{ref.reshape(-1)[0]}` | {size(ref.reshape(-1)[0])} | {t_ref * 1e3:.1f} |")
        ratios.append(t_ref / t_ours)
    slower = sum(r < 1 for r in ratios)
    print(f"\nsympy time / our time: median {statistics.median(ratios):.1f}x, "
          f"min {min(ratios):.2f}x over {len(ratios)} derivatives; ours slower in {slower}\n")


def random_derivative(rng, depth):
    x, y, z = sympy.symbols("x y z", real=True)
    fs = [sympy.sin, sympy.exp, sympy.tanh, sympy.log, sympy.cos]

    def build(d):
        if d == 0:
            return [x, y, z, sympy.Integer(int(rng.integers(1, 4)))][int(rng.integers(0, 4))]
        r = rng.random()
        if r < 0.3:
            return fs[int(rng.integers(0, len(fs)))](build(d - 1))
        if r < 0.6:
            return build(d - 1) * build(d - 1)
        return build(d - 1) + build(d - 1) if r < 0.8 else build(d - 1) ** 2
    return sympy.diff(build(depth), x)


def table_simplify_cost(quick):
    """Why "auto" gates by size: time of sympy.simplify vs our auto pass, by size."""
    from symgrad.forms.simplify import simplify_expr
    rng = np.random.default_rng(0)
    rows = []
    for depth in range(2, 6 if quick else 7):
        for _ in range(6):
            e = random_derivative(rng, depth)
            n = size(e)
            if not 0 < n <= (60 if quick else 120):
                continue
            _, t_auto = timed(lambda: simplify_expr(e, "auto"), 1)
            _, t_full = timed(lambda: sympy.simplify(e), 1)
            rows.append((n, t_auto, t_full))
    print(f"| ops | auto ms | sympy.simplify ms |   (auto gate: SMALL_OPS = {SMALL_OPS})")
    print("|---|---|---|")
    for n, a, f in sorted(rows):
        print(f"| {n} | {a * 1e3:.1f} | {f * 1e3:.1f} |")
    print()


def table_large(quick):
    """Closed form and printing of a two-layer net's gradient: tree size vs time."""
    from symgrad.forms import cseprint
    print(f"| n | tree ops | distinct ops | closed_form s | str with names s | latex s |"
          f"   (budget {BUDGET_SECONDS} s)")
    print("|---|---|---|---|---|---|")
    for n in ([4, 8, 16] if quick else [4, 8, 16, 24, 32]):
        with sg.Graph().as_default():
            W = sg.Variable(np.full((n, n), 0.1), name="W")
            x = sg.Variable(np.ones(n), name="x")
            (g,) = sg.gradients(sg.reduce_sum(sg.sigmoid(W @ sg.tanh(W @ x))), x)
            form, t_form = timed(lambda: sg.closed_form(g), 1)
            items = list(form)
            _, t_str = timed(lambda: sg.forms.printing.render_form(form, "str"), 1)
            _, t_tex = timed(lambda: sg.forms.printing.render_form(form, "latex"), 1)
            order, _ = cseprint._postorder(items)
            print(f"| {n} | {cseprint.tree_size(items):,} | {len(order):,} | {t_form:.2f} | "
                  f"{t_str:.2f} | {t_tex:.2f} |")
    print()


def table_matrix(quick):
    """Matrix notation never expands elements: its time does not grow with the data."""
    print("| X shape | logistic-regression gradient | matrix_form s | elementwise closed_form s |")
    print("|---|---|---|---|")
    rng = np.random.default_rng(0)
    for n, d in ([(10, 3), (100, 10)] if quick else [(10, 3), (100, 10), (1000, 50)]):
        with sg.Graph().as_default():
            X = sg.Variable(rng.normal(size=(n, d)), name="X")
            w = sg.Variable(rng.normal(size=d), name="w")
            y = sg.constant(rng.uniform(size=n), name="y")
            z = X @ w
            L = -sg.reduce_sum(y * sg.log(sg.sigmoid(z)) + (1 - y) * sg.log(1 - sg.sigmoid(z)))
            (g,) = sg.gradients(L, w)
            m, t_m = timed(lambda: sg.matrix_form(g), 1)
            t_e = timed(lambda: sg.closed_form(g), 1)[1] if n * d <= 1000 else float("nan")
            print(f"| {n}x{d} | `{m.text()}` | {t_m:.3f} | {t_e:.2f} |")
    print()


def _logistic(n, d):
    rng = np.random.default_rng(0)
    if n is None:       # X: (None, d), y: (None,)
        X = sg.placeholder(sg.float64, shape=(None, d), name="X")
        y = sg.placeholder(sg.float64, shape=(None,), name="y")
    else:
        X = sg.constant(rng.normal(size=(n, d)), name="X")
        y = sg.constant(rng.uniform(size=n), name="y")
    w = sg.Variable(np.zeros(d), name="w")
    z = X @ w
    return w, -sg.reduce_sum(y * sg.log(sg.sigmoid(z)) + (1 - y) * sg.log(1 - sg.sigmoid(z)))


def _bound_case(name):
    """(label, function returning text) for one case of table 4."""
    if name.startswith("exp"):
        x, y = sg.Variable(0.5, name="x"), sg.Variable(0.2, name="y")
        f = sg.exp((x + y) ** 20)
        if name == "exp-closed_form":
            return "closed_form(exp((x+y)**20))", lambda: str(sg.closed_form(f))
        return "str(d/dx exp((x+y)**20))", lambda: str(sg.gradients(f, x)[0])
    if name == "no-matrix":
        v = sg.Variable(np.ones(3000), name="v")
        (g,) = sg.gradients(v[0] * sg.reduce_sum(sg.sin(v)), v)
        return "str(grad of v[0]*sum(sin(v))), v: 3000", lambda: str(g)
    if name.startswith("unknown-"):
        w, loss = _logistic(None, 20)
        what = name.split("-", 1)[1]
        t = sg.gradients(loss, w)[0] if what == "grad" else sg.hessians(loss, w)[0]
        label = {"grad": "str(grad)", "hessian": "str(sg.hessians(...)[0])"}[what]
        return f"logistic X:(None, 20): {label}", lambda: str(t)
    if name == "deep-chain":
        x = a = sg.Variable(0.3, name="x")
        for _ in range(25):
            a = sg.sin(a) * sg.cos(a)
        (g,) = sg.gradients(a, x)
        return "str(d/dx of 25 nested sin(a)*cos(a))", lambda: str(g)
    if name == "indexed":
        v = sg.placeholder(sg.float64, shape=(None,), name="v")
        (g,) = sg.gradients(v[0] * sg.reduce_sum(sg.sin(v)), v)
        return "str(grad of v[0]*sum(sin(v))), v: (None,)", lambda: str(g)
    if name.startswith("sparse-"):
        return _sparse_case(name.split("-", 1)[1])
    if name.startswith("where-loop-"):
        return _where_loop_case(int(name.split("-")[2]), name.split("-")[3:])
    if name.startswith("kinked-loop-"):
        return _kinked_loop_case(int(name.split("-")[2]), name.endswith("grad"))
    if name.startswith("loop-"):
        return _loop_case(int(name.split("-")[1]), name.endswith("grad"))
    w, loss = _logistic(2000, 20)
    if name == "hessian":
        (h,) = sg.hessians(loss, w)
        return "logistic N=2000 D=20: str(sg.hessians(...)[0])", lambda: str(h)
    if name == "hessian-latex":
        (h,) = sg.hessians(loss, w)
        return "logistic N=2000 D=20: sg.hessians(...)[0]._repr_latex_()", h._repr_latex_
    if name == "hessian-rows":   # as TF1 code builds it: one gradient per entry, stacked
        (g,) = sg.gradients(loss, w)
        h = sg.stack([sg.gradients(g[i], w)[0] for i in range(20)])
        return "logistic N=2000 D=20: str(Hessian by rows)", lambda: str(h)
    (g,) = sg.gradients(loss, w)
    label = {"str": "str(grad)", "latex": "grad._repr_latex_()", "html": "grad._repr_html_()"}
    fn = {"str": str, "latex": lambda t: t._repr_latex_(), "html": lambda t: t._repr_html_()}
    return f"logistic N=2000 D=20: {label[name]}", lambda: fn[name](g)


def _sparse_case(what):
    """A sparse Hessian's stored entries: Rosenbrock (small entries) or softmax
    regression (large ones)."""
    if what.startswith("rosen"):
        n = int(what[len("rosen"):])
        x = sg.placeholder(shape=(n,), name="x")
        f = sg.reduce_sum(100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)
        (h,) = sg.hessians(f, x, sparse=True)
        return f"Rosenbrock n={n}: str(sg.hessians(..., sparse=True)[0])", lambda: str(h)
    rng = np.random.default_rng(0)
    X, Y = rng.standard_normal((20, 4)), np.eye(3)[rng.integers(0, 3, 20)]
    w = sg.placeholder(shape=(4, 3), name="w")
    loss = sg.reduce_mean(sg.nn.softmax_cross_entropy_with_logits(
        labels=sg.constant(Y), logits=sg.matmul(sg.constant(X), w)))
    (h,) = sg.hessians(loss, w, sparse=True)
    return "softmax regression 20x4, 3 classes: str(sparse Hessian)", lambda: str(h)


def _loop_case(steps, grad):
    """A 3-vector while_loop whose condition depends on the variable, capped."""
    v = sg.Variable(1.31, name="v")
    start = sg.stack([v, 2 * v, v ** 2])
    y = sg.while_loop(lambda s: sg.reduce_sum(s) < 1.5,
                      lambda s: s * 1.2 + 0.3 * sg.tanh(sg.reduce_mean(start)), start,
                      maximum_iterations=steps)
    t = sg.reduce_sum(y * np.array([0.3, -1.2, 0.7]))
    t = sg.gradients(t, v)[0] if grad else t
    return (f"while_loop capped at {steps}: str({'gradient' if grad else 'value'})",
            lambda: str(t))


def _kinked_loop_case(steps, grad):
    """A 3-vector while_loop whose body takes a maximum, capped."""
    x = sg.Variable(np.array([0.2, -0.4, 0.3]), name="x")
    y = sg.while_loop(lambda s: sg.reduce_sum(s * s) < 6.0,
                      lambda s: sg.maximum(s * 1.5, sg.sin(s)) + 0.1, x,
                      maximum_iterations=steps)
    t = sg.reduce_sum(y)
    t = sg.gradients(t, x)[0] if grad else t
    return (f"while_loop with a maximum, capped at {steps}: "
            f"str({'gradient' if grad else 'value'})", lambda: str(t))


def _where_loop_case(steps, what):
    """A 3-vector while_loop whose body takes where and abs (its guards read kinks)."""
    x = sg.Variable(np.array([0.3, -0.2, 0.5]), name="x")
    y = sg.while_loop(lambda s: sg.reduce_sum(s * s) < 6.0,
                      lambda s: sg.where(s > 0.1, s * 1.5, sg.abs(s)) + 0.1, x,
                      maximum_iterations=steps)
    t = sg.reduce_sum(y * np.array([0.3, -1.2, 0.7]))
    label = "value"
    if what == ["grad"]:
        t, label = sg.gradients(t, x)[0], "gradient"
    elif what == ["hess"]:
        t, label = sg.hessians(t, x)[0], "Hessian"
    return f"while_loop with where/abs, capped at {steps}: str({label})", lambda: str(t)


BOUND_CASES = ["exp-closed_form", "exp-grad", "str", "latex", "html", "hessian",
               "hessian-latex", "hessian-rows", "unknown-grad", "unknown-hessian",
               "no-matrix", "indexed", "deep-chain", "sparse-rosen1000", "sparse-rosen3000",
               "sparse-softmax", "loop-3", "loop-3-grad", "loop-5-grad",
               "kinked-loop-8", "kinked-loop-8-grad", "where-loop-3", "where-loop-3-grad",
               "where-loop-3-hess"]


def run_bound_case(name):
    import resource
    label, fn = _bound_case(name)
    t0 = time.perf_counter()
    out = fn()
    dt = time.perf_counter() - t0
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    out = out.replace("\n", " ⏎ ")        # one table row
    shown = out if len(out) <= 60 else out[:57] + "..."
    print(f"| {label} | {dt:.2f} | {rss:.0f} | {len(out):,} | `{shown}` |")


def table_bounds():
    import subprocess
    print("| case | s | peak RSS MB | chars | printed |")
    print("|---|---|---|---|---|")
    for name in BOUND_CASES:
        subprocess.run([sys.executable, __file__, "--case", name], check=True)
    print()


def main():
    if "--case" in sys.argv:
        run_bound_case(sys.argv[sys.argv.index("--case") + 1])
        return
    if "--bounds" in sys.argv:
        table_bounds()
        return
    quick = "--quick" in sys.argv
    table_identities()
    table_simplify_cost(quick)
    table_large(quick)
    table_matrix(quick)
    table_bounds()


if __name__ == "__main__":
    main()
