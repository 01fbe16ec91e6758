"""sg.to_scipy: scipy.optimize converges, and fun/hess/hessp agree with independent oracles.

Oracles: scipy's own Rosenbrock (rosen, rosen_der, rosen_hess, rosen_hess_prod),
a logistic regression solved with a hand-written numpy gradient, and central
finite differences of the gradient for hess/hessp.
"""
import numpy as np
import pytest
import scipy.optimize as so

import symgrad as sg


def rosenbrock(x):
    a, b = x[:-1], x[1:]
    return sg.reduce_sum(100.0 * sg.square(b - sg.square(a)) + sg.square(1.0 - a))


@pytest.fixture(scope="module", params=[2, 10])
def rosen(request):
    with sg.Graph().as_default():
        x = sg.Variable(np.full(request.param, -1.2), name="x")
        return sg.to_scipy(rosenbrock(x), x)


def test_rosenbrock_matches_scipy_reference(rosen, rng):
    for _ in range(3):
        z = rng.uniform(-2, 2, rosen.n)
        value, grad = rosen.fun(z)
        np.testing.assert_allclose(value, so.rosen(z), rtol=1e-12)
        np.testing.assert_allclose(grad, so.rosen_der(z), rtol=1e-12, atol=1e-9)
        np.testing.assert_allclose(rosen.hess(z), so.rosen_hess(z), rtol=1e-12, atol=1e-9)
        p = rng.normal(size=rosen.n)
        np.testing.assert_allclose(rosen.hessp(z, p), so.rosen_hess_prod(z, p),
                                   rtol=1e-12, atol=1e-9)


@pytest.mark.parametrize("method, extra", [("BFGS", {}), ("trust-exact", {"hess": True}),
                                           ("trust-ncg", {"hessp": True}),
                                           ("Newton-CG", {"hessp": True})])
def test_rosenbrock_converges(rosen, method, extra):
    kwargs = {k: getattr(rosen, k) for k in extra}
    result = so.minimize(rosen.fun, rosen.x0, jac=True, method=method, tol=1e-10, **kwargs)
    assert result.success, result.message
    np.testing.assert_allclose(result.x, np.ones(rosen.n), atol=1e-4)
    assert rosen.unflatten(result.x).shape == (rosen.n,)


def _logistic_data(seed=7, m=60, d=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, d))
    w_true = np.array([1.5, -2.0, 0.5])[:d]
    y = (rng.uniform(size=m) < 1 / (1 + np.exp(-(X @ w_true - 0.3)))).astype(float)
    return X, y


LAMBDA = 0.1


def _numpy_logistic(theta, X, y):
    """Hand-written loss and gradient: mean log-loss + lambda/2 |w|^2, theta = (w, b)."""
    w, b = theta[:-1], theta[-1]
    z = X @ w + b
    loss = np.mean(np.logaddexp(0.0, z) - y * z) + 0.5 * LAMBDA * w @ w
    r = (1 / (1 + np.exp(-z)) - y) / len(y)
    return loss, np.concatenate([X.T @ r + LAMBDA * w, [r.sum()]])


@pytest.fixture(scope="module")
def logistic():
    X, y = _logistic_data()
    with sg.Graph().as_default():
        Xp = sg.placeholder(shape=X.shape, name="X")
        yp = sg.placeholder(shape=y.shape, name="y")
        w = sg.Variable(np.zeros(X.shape[1]), name="w")
        b = sg.Variable(0.0, name="b")
        z = sg.matmul(Xp, w) + b
        loss = sg.reduce_mean(sg.softplus(z) - yp * z) + 0.5 * LAMBDA * sg.reduce_sum(w * w)
        return sg.to_scipy(loss, [w, b], feed_dict={Xp: X, yp: y}), X, y


def test_logistic_regression_matches_numpy_reference(logistic):
    obj, X, y = logistic
    reference = so.minimize(_numpy_logistic, np.zeros(obj.n), args=(X, y), jac=True,
                            method="BFGS", options={"gtol": 1e-10})
    assert np.abs(_numpy_logistic(reference.x, X, y)[1]).max() < 1e-8
    for kwargs in ({}, {"hess": obj.hess}, {"hessp": obj.hessp}):
        method = "BFGS" if not kwargs else "trust-exact" if "hess" in kwargs else "trust-ncg"
        result = so.minimize(obj.fun, obj.x0, jac=True, method=method,
                             options={"gtol": 1e-10}, **kwargs)
        assert np.abs(obj.jac(result.x)).max() < 1e-8, (method, result.message)
        np.testing.assert_allclose(result.x, reference.x, atol=1e-6)
    w, b = obj.unflatten(result.x)
    assert w.shape == (3,) and np.shape(b) == ()


def test_logistic_fun_matches_numpy(logistic, rng):
    obj, X, y = logistic
    theta = rng.normal(size=obj.n)
    value, grad = obj.fun(theta)
    ref_value, ref_grad = _numpy_logistic(theta, X, y)
    np.testing.assert_allclose(value, ref_value, rtol=1e-12)
    np.testing.assert_allclose(grad, ref_grad, rtol=1e-10, atol=1e-12)


def _fd_jacobian(grad, z, eps=1e-6):
    cols = [(grad(z + eps * e) - grad(z - eps * e)) / (2 * eps) for e in np.eye(len(z))]
    return np.array(cols).T


@pytest.fixture(scope="module")
def matrix_problem():
    """A matrix x and a vector v coupled, so the Hessian has cross blocks."""
    with sg.Graph().as_default():
        W = sg.Variable(np.arange(6.0).reshape(2, 3) / 10, name="W")
        v = sg.Variable([0.3, -0.2, 0.1], name="v")
        a = sg.constant([[1.0, -0.5], [0.2, 0.4], [0.7, 0.1]], name="a")
        loss = sg.reduce_sum(sg.tanh(sg.matmul(W, v)) ** 2) + sg.reduce_sum(sg.exp(W * sg.transpose(a))) \
            + sg.reduce_sum(v * v * v)
        return sg.to_scipy(loss, [W, v])


def test_hess_and_hessp_agree_with_finite_differences(matrix_problem, rng):
    obj = matrix_problem
    assert obj.n == 9
    z = rng.uniform(-1, 1, obj.n)
    fd = _fd_jacobian(obj.jac, z)
    hess = obj.hess(z)
    np.testing.assert_allclose(hess, fd, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(hess, hess.T, rtol=1e-12, atol=1e-12)
    for _ in range(3):
        p = rng.normal(size=obj.n)
        np.testing.assert_allclose(obj.hessp(z, p), fd @ p, rtol=1e-6, atol=1e-6)


def test_value_and_gradient_against_finite_differences(matrix_problem, rng):
    obj = matrix_problem
    z = rng.uniform(-1, 1, obj.n)
    _, grad = obj.fun(z)
    fd = [(obj.value(z + 1e-6 * e) - obj.value(z - 1e-6 * e)) / 2e-6 for e in np.eye(obj.n)]
    np.testing.assert_allclose(grad, fd, rtol=1e-6, atol=1e-7)


def test_callables_are_compiled_evaluators(matrix_problem):
    obj = matrix_problem
    obj.hess(obj.x0)
    obj.hessp(obj.x0, obj.x0)
    assert all(isinstance(f, sg.Evaluator) for f in (obj._fun, obj._hess, obj._hessp))


def test_unflatten_and_assign_round_trip(fresh_graph):
    W = sg.Variable(np.zeros((2, 2)), name="W")
    c = sg.Variable(1.0, name="c")
    obj = sg.to_scipy(sg.reduce_sum(W * c), [W, c])
    np.testing.assert_array_equal(obj.x0, [0, 0, 0, 0, 1])
    W_new, c_new = obj.assign(np.arange(5.0))
    np.testing.assert_array_equal(W.value, [[0, 1], [2, 3]])
    assert float(c.value) == 4.0 and c_new.shape == ()


def test_placeholder_x_needs_x0(fresh_graph):
    p = sg.placeholder(shape=(2,), name="p")
    with pytest.raises(sg.FeedError, match="x0"):
        sg.to_scipy(sg.reduce_sum(p * p), p)
    obj = sg.to_scipy(sg.reduce_sum(p * p), p, x0=[1.0, 2.0])
    assert obj.fun(obj.x0)[0] == 5.0


def test_bad_input_raises_clear_errors(fresh_graph):
    x = sg.Variable([1.0, 2.0], name="x")
    data = sg.placeholder(shape=(2,), name="data")
    with pytest.raises(sg.ShapeError, match="0-d"):
        sg.to_scipy(x * x, x)
    with pytest.raises(sg.FeedError, match="data"):
        sg.to_scipy(sg.reduce_sum(x * data), x)
    with pytest.raises(sg.NotATensorError, match="leaf"):
        sg.to_scipy(sg.reduce_sum(x * x), 2 * x)
    with pytest.raises(sg.NotATensorError, match="x\\[0\\]"):
        sg.to_scipy(sg.reduce_sum(x * x), np.ones(2))
    with pytest.raises(sg.ShapeError, match="x0"):
        sg.to_scipy(sg.reduce_sum(x * x), x, x0=[1.0, 2.0, 3.0])
    z = sg.placeholder(shape=(None,), name="z")
    with pytest.raises(sg.ShapeError, match=r"x\[0\]\) = 'z' has shape .* unknown sizes.*"
                                            "fixed shapes"):
        sg.to_scipy(sg.reduce_sum(z * z), z, x0=np.zeros(5))
    obj = sg.to_scipy(sg.reduce_sum(x * x), x)
    with pytest.raises(sg.ShapeError, match="parameter vector"):
        obj.fun(np.ones(3))


def test_sparse_hessian_over_data_of_unknown_rows_takes_the_fed_sizes(fresh_graph, rng):
    # the pattern is read element by element, so it is built on the graph at the fed
    # data's sizes (it was refused: "give those placeholders fixed sizes")
    d, h = 3, 4
    X = sg.placeholder(shape=(None, d), name="X")
    t = sg.placeholder(shape=(None, h), name="t")
    W = sg.Variable(rng.normal(size=(d, h)), name="W")
    loss = sg.reduce_mean((sg.tanh(X @ W) - t) ** 2)   # column j of W meets only itself
    feeds = {X: rng.normal(size=(20, d)), t: rng.normal(size=(20, h))}
    sparse = sg.to_scipy(loss, W, feed_dict=feeds, sparse=True)
    dense = sg.to_scipy(loss, W, feed_dict=feeds)
    q = sparse.x0 + 0.1
    got = sparse.hess(q)
    assert got.nnz == h * d * d   # block-diagonal over W's columns, structurally exact
    np.testing.assert_allclose(got.toarray(), dense.hess(q), rtol=1e-12, atol=1e-14)


def test_other_variables_are_read_at_every_call_by_fun_hess_and_hessp():
    # fun was compiled at once with lam baked in, hess at its first call: after
    # lam.assign the two disagreed (a Newton step with another function's Hessian)
    x = sg.Variable(np.ones(2), name="x")
    lam = sg.Variable(1.0, name="lam")
    obj = sg.to_scipy(lam * sg.reduce_sum(x ** 4), x)
    at = np.array([1.0, 2.0])
    for value in (1.0, 10.0, 2.0):
        lam.assign(value)
        f, g = obj.fun(at)
        assert f == value * 17.0
        np.testing.assert_allclose(g, value * 4 * at ** 3)
        np.testing.assert_allclose(obj.hess(at), np.diag(value * 12 * at ** 2))
        np.testing.assert_allclose(obj.hessp(at, np.array([1.0, 1.0])), value * 12 * at ** 2)
