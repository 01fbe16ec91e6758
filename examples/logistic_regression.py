"""Fit an L2-regularised logistic regression with scipy.optimize and symgrad.

    PYTHONPATH=. python examples/logistic_regression.py

The data X, y are placeholders fed once to ``sg.to_scipy``; the parameters are a
weight vector and a bias (two Variables, optimised as one flat vector).  The
result is checked against the same fit with a hand-written numpy gradient.
"""
import numpy as np
import scipy.optimize

import symgrad as sg

LAMBDA = 0.01


def make_data(m=200, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, 3))
    w_true, b_true = np.array([2.0, -1.0, 0.5]), -0.5
    p = 1.0 / (1.0 + np.exp(-(X @ w_true + b_true)))
    return X, (rng.uniform(size=m) < p).astype(float)


def numpy_loss_and_grad(theta, X, y):
    """The same loss with a gradient written by hand, as an independent check."""
    w, b = theta[:-1], theta[-1]
    z = X @ w + b
    r = (1.0 / (1.0 + np.exp(-z)) - y) / len(y)
    loss = np.mean(np.logaddexp(0.0, z) - y * z) + 0.5 * LAMBDA * w @ w
    return loss, np.append(X.T @ r + LAMBDA * w, r.sum())


def main():
    X, y = make_data()
    Xp = sg.placeholder(shape=X.shape, name="X")
    yp = sg.placeholder(shape=y.shape, name="y")
    w = sg.Variable(np.zeros(3), name="w")
    b = sg.Variable(0.0, name="b")
    z = sg.matmul(Xp, w) + b
    # log(1 + e^z) - y z is the negative log-likelihood of a Bernoulli(sigmoid(z)) label
    loss = sg.reduce_mean(sg.softplus(z) - yp * z) + 0.5 * LAMBDA * sg.reduce_sum(w * w)

    objective = sg.to_scipy(loss, [w, b], feed_dict={Xp: X, yp: y})
    result = scipy.optimize.minimize(objective.fun, objective.x0, jac=True,
                                     hess=objective.hess, method="trust-exact",
                                     options={"gtol": 1e-10})
    w_fit, b_fit = objective.assign(result.x)
    print(f"trust-exact: {result.nit} iterations, loss {result.fun:.6f}")
    print(f"  w = {np.round(w_fit, 5)}, b = {float(b_fit):.5f}")

    reference = scipy.optimize.minimize(numpy_loss_and_grad, np.zeros(4), args=(X, y),
                                        jac=True, method="BFGS", options={"gtol": 1e-10})
    print(f"hand-written numpy gradient + BFGS: w = {np.round(reference.x[:3], 5)}, "
          f"b = {reference.x[3]:.5f}")
    print(f"largest gradient entries at the two solutions: "
          f"{np.abs(objective.jac(result.x)).max():.1e} (symgrad), "
          f"{np.abs(numpy_loss_and_grad(reference.x, X, y)[1]).max():.1e} (numpy)")
    print(f"max difference: {np.abs(result.x - reference.x).max():.1e}")
    accuracy = np.mean(((X @ w_fit + b_fit) > 0) == (y > 0.5))
    print(f"training accuracy: {accuracy:.3f}")


if __name__ == "__main__":
    main()
