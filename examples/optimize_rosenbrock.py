"""Minimise the Rosenbrock function with scipy.optimize and symgrad's derivatives.

    PYTHONPATH=. python examples/optimize_rosenbrock.py [n]

The loss is written once with tensor ops; ``sg.to_scipy`` hands scipy the
value and gradient (one compiled function), the Hessian and Hessian-vector
products.  Each method starts at (-1.2, ..., -1.2) and should end at all ones.
"""
import sys
import time

import numpy as np
import scipy.optimize

import symgrad as sg


def rosenbrock(x):
    """sum_i 100 (x[i+1] - x[i]^2)^2 + (1 - x[i])^2."""
    a, b = x[:-1], x[1:]
    return sg.reduce_sum(100.0 * sg.square(b - sg.square(a)) + sg.square(1.0 - a))


def main(n=10):
    start = np.full(n, -1.2)
    x = sg.Variable(start, name="x")
    t0 = time.perf_counter()
    objective = sg.to_scipy(rosenbrock(x), x)   # derives and compiles value + gradient
    print(f"to_scipy: {time.perf_counter() - t0:.2f} s (the Hessian code compiles on first use)")
    print(f"Rosenbrock in {n} dimensions, start {objective.x0[:4]}...")
    runs = [("BFGS", {}), ("Newton-CG", {"hessp": objective.hessp}),
            ("trust-ncg", {"hessp": objective.hessp}), ("trust-exact", {"hess": objective.hess})]
    for method, extra in runs:
        t0 = time.perf_counter()
        result = scipy.optimize.minimize(objective.fun, objective.x0, jac=True, method=method,
                                         **extra)
        seconds = time.perf_counter() - t0
        error = np.abs(result.x - 1.0).max()
        print(f"  {method:12s} f = {result.fun:.3e}  iterations {result.nit:4d}  "
              f"max|x - 1| = {error:.1e}  ({seconds:.2f} s)")
    objective.assign(result.x)
    print("x after assign:", np.round(x.value, 6))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10)
