"""TF1 training programs, written as TF's tutorials write them, run with only the import
changed; each is checked against an independent numpy re-implementation of the
update rule or TF's own documented numbers (training_ops / *_test.py)."""
import numpy as np
import pytest

from .tf1_programs import run_tf1

LINEAR_REGRESSION = """
import numpy as np
import tensorflow as tf
rng = np.random.RandomState(0)
train_X = np.asarray([3.3, 4.4, 5.5, 6.71, 6.93, 4.168, 9.779, 6.182, 7.59, 2.167,
                      7.042, 10.791, 5.313, 7.997, 5.654, 9.27, 3.1])
train_Y = np.asarray([1.7, 2.76, 2.09, 3.19, 1.694, 1.573, 3.366, 2.596, 2.53, 1.221,
                      2.827, 3.465, 1.65, 2.904, 2.42, 2.94, 1.3])
n_samples = train_X.shape[0]
X = tf.placeholder("float")
Y = tf.placeholder("float")
W = tf.Variable(rng.randn(), name="weight")
b = tf.Variable(rng.randn(), name="bias")
pred = tf.add(tf.multiply(X, W), b)
cost = tf.reduce_sum(tf.pow(pred - Y, 2)) / (2 * n_samples)
optimizer = tf.train.GradientDescentOptimizer(learning_rate).minimize(cost)
init = tf.global_variables_initializer()
with tf.Session() as sess:
    sess.run(init)
    for epoch in range(epochs):
        for (x, y) in zip(train_X, train_Y):
            sess.run(optimizer, feed_dict={X: x, Y: y})
    training_cost = sess.run(cost, feed_dict={X: train_X[0], Y: train_Y[0]})
    final_W, final_b = sess.run(W), sess.run(b)
"""


def test_linear_regression_with_gradient_descent():
    out = run_tf1(LINEAR_REGRESSION, learning_rate=0.01, epochs=10)
    rng = np.random.RandomState(0)
    w, b = rng.randn(), rng.randn()
    n = len(out["train_X"])
    for _ in range(10):                    # per-sample steps, d/dW (W x + b - y)^2 / 2n
        for x, y in zip(out["train_X"], out["train_Y"]):
            r = w * x + b - y
            w, b = w - 0.01 * r * x / n, b - 0.01 * r / n
    assert out["final_W"].dtype == np.float32        # randn() is a Python float: float32
    np.testing.assert_allclose([out["final_W"], out["final_b"]], [w, b], rtol=1e-5)


LOGISTIC_ADAM = """
import numpy as np
import tensorflow as tf
x = tf.placeholder(tf.float32, shape=[64, 2])
y = tf.placeholder(tf.float32, shape=[64, 1])
W = tf.Variable(tf.zeros([2, 1]))
b = tf.Variable(tf.zeros([1]))
p = tf.sigmoid(tf.matmul(x, W) + b)
loss = -tf.reduce_mean(y * tf.log(p) + (1 - y) * tf.log(1 - p))
train_op = tf.train.AdamOptimizer(learning_rate=0.1).minimize(loss)
losses = []
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for step in range(steps):
        _, l = sess.run([train_op, loss], feed_dict={x: data, y: labels})
        losses.append(l)
    W_value, b_value = sess.run([W, b])
    accuracy = np.mean((sess.run(p, {x: data}) > 0.5) == (labels > 0.5))
"""


def _adam_numpy(grad, params, steps, lr=0.1, beta1=0.9, beta2=0.999, eps=1e-8):
    """TF's ApplyAdam, written from its documentation, in float64."""
    m = [np.zeros_like(q) for q in params]
    v = [np.zeros_like(q) for q in params]
    for t in range(1, steps + 1):
        lr_t = lr * np.sqrt(1 - beta2 ** t) / (1 - beta1 ** t)
        for i, g in enumerate(grad(params)):
            m[i] = beta1 * m[i] + (1 - beta1) * g
            v[i] = beta2 * v[i] + (1 - beta2) * g * g
            params[i] = params[i] - lr_t * m[i] / (np.sqrt(v[i]) + eps)
    return params


def test_logistic_regression_with_adam():
    rng = np.random.default_rng(5)
    data = rng.normal(size=(64, 2)).astype(np.float32)
    labels = (data @ [[1.5], [-2.0]] + 0.3 > 0).astype(np.float32)
    out = run_tf1(LOGISTIC_ADAM, data=data, labels=labels, steps=40)

    def grad(params):
        w, b = params
        p = 1 / (1 + np.exp(-(data @ w + b)))
        r = (p - labels) / len(data)        # d mean(cross entropy) / d logits
        return [data.T @ r, r.sum(axis=0)]
    w, b = _adam_numpy(grad, [np.zeros((2, 1)), np.zeros(1)], 40)
    np.testing.assert_allclose(out["W_value"], w, rtol=2e-4, atol=2e-5)
    np.testing.assert_allclose(out["b_value"], b, rtol=2e-4, atol=2e-5)
    assert out["losses"][0] == pytest.approx(np.log(2), rel=1e-6)   # loss before the step
    assert out["losses"][-1] < 0.3 and out["accuracy"] > 0.9


MANUAL_SGD = """
import numpy as np
import tensorflow as tf
X = tf.placeholder(tf.float32, [5, 3])
Y = tf.placeholder(tf.float32, [5, 1])
W = tf.Variable(tf.ones([3, 1]), name="W")
b = tf.Variable(0.0, name="b")
loss = tf.reduce_mean(tf.square(tf.matmul(X, W) + b - Y))
grad_W, grad_b = tf.gradients(loss, [W, b])
lr = 0.05
new_W = W.assign(W - lr * grad_W)
new_b = tf.assign(b, b - lr * grad_b)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for _ in range(25):
        sess.run([new_W, new_b], feed_dict={X: xs, Y: ys})
    final = sess.run([W, b])
"""


def test_manual_sgd_with_assign():
    rng = np.random.default_rng(2)
    xs = rng.normal(size=(5, 3)).astype(np.float32)
    ys = rng.normal(size=(5, 1)).astype(np.float32)
    out = run_tf1(MANUAL_SGD, xs=xs, ys=ys)
    w, b = np.ones((3, 1)), 0.0
    for _ in range(25):                       # both updates read the old values
        r = 2 * (xs @ w + b - ys) / 5
        w, b = w - 0.05 * xs.T @ r, b - 0.05 * r.sum()
    np.testing.assert_allclose(out["final"][0], w, rtol=1e-5)
    assert out["final"][1] == pytest.approx(b, rel=1e-5)


TWO_STEPS = """
import numpy as np
import tensorflow as tf
var0 = tf.Variable([1.0, 2.0])
var1 = tf.Variable([3.0, 4.0])
grads0 = tf.constant([0.1, 0.1])
grads1 = tf.constant([0.01, 0.01])
update = opt.apply_gradients(zip([grads0, grads1], [var0, var1]))
values = []
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for _ in range(steps):
        sess.run(update)
        values.append(sess.run([var0, var1]))
"""


def test_momentum_matches_tfs_momentum_test():
    import symgrad.compat.v1 as tf
    out = run_tf1(TWO_STEPS, opt=tf.train.MomentumOptimizer(learning_rate=2.0, momentum=0.9),
                  steps=2)
    # momentum_test.py: after two steps var0 = 1 - 0.1*2 - (0.9*0.1 + 0.1)*2
    np.testing.assert_allclose(out["values"][1][0], [1.0 - 0.2 - 0.38, 2.0 - 0.2 - 0.38],
                               rtol=1e-6)
    np.testing.assert_allclose(out["values"][1][1], [3.0 - 0.02 - 0.038, 4.0 - 0.02 - 0.038],
                               rtol=1e-6)


def test_nesterov_momentum_against_numpy():
    import symgrad.compat.v1 as tf
    out = run_tf1(TWO_STEPS, opt=tf.train.MomentumOptimizer(0.5, 0.9, use_nesterov=True),
                  steps=3)
    var, accum = np.array([1.0, 2.0]), np.zeros(2)
    for _ in range(3):
        accum = accum * 0.9 + 0.1
        var = var - (0.1 * 0.5 + accum * 0.9 * 0.5)
    np.testing.assert_allclose(out["values"][-1][0], var, rtol=1e-6)


def test_adagrad_matches_tfs_adagrad_test():
    import symgrad.compat.v1 as tf
    out = run_tf1(TWO_STEPS, opt=tf.train.AdagradOptimizer(3.0, initial_accumulator_value=0.1),
                  steps=3)
    # adagrad_test.py testBasic: the numbers TF asserts after three steps
    np.testing.assert_allclose(out["values"][-1][0], [-1.6026098728179932, -0.6026098728179932],
                               rtol=1e-5)
    np.testing.assert_allclose(out["values"][-1][1], [2.715679168701172, 3.715679168701172],
                               rtol=1e-5)


@pytest.mark.parametrize("centered,momentum", [(False, 0.0), (True, 0.5)])
def test_rmsprop_against_numpy(centered, momentum):
    import symgrad.compat.v1 as tf
    opt = tf.train.RMSPropOptimizer(0.01, decay=0.9, momentum=momentum, centered=centered)
    out = run_tf1(TWO_STEPS, opt=opt, steps=3)
    var, ms, mg, mom = np.array([1.0, 2.0]), np.ones(2), np.zeros(2), np.zeros(2)
    for _ in range(3):                         # TF1 starts the mean square at 1
        ms = 0.9 * ms + 0.1 * 0.01
        mg = 0.9 * mg + 0.1 * 0.1
        denom = ms - mg ** 2 if centered else ms
        mom = momentum * mom + 0.01 * 0.1 / np.sqrt(denom + 1e-10)
        var = var - mom
    np.testing.assert_allclose(out["values"][-1][0], var, rtol=1e-6)
    assert sorted(opt.get_slot_names()) == sorted(["rms", "momentum"] + ["mg"] * centered)


def test_adam_slots_and_bias_correction():
    import symgrad.compat.v1 as tf
    opt = tf.train.AdamOptimizer(0.1)
    out = run_tf1(TWO_STEPS, opt=opt, steps=3)
    (v0,) = _adam_numpy(lambda p: [np.full(2, 0.1)], [np.array([1.0, 2.0])], 3)
    np.testing.assert_allclose(out["values"][-1][0], v0, rtol=1e-5)   # float32 steps
    names = {v.name for v in opt.variables()}       # TF's slot and accumulator names
    assert {"beta1_power:0", "beta2_power:0", "Variable/Adam:0", "Variable/Adam_1:0"} <= names
    assert opt.get_slot(out["var0"], "m").name == "Variable/Adam:0"


GLOBAL_STEP_DECAY = """
import numpy as np
import tensorflow as tf
global_step = tf.train.get_or_create_global_step()
learning_rate = tf.train.exponential_decay(0.5, global_step, decay_steps=2, decay_rate=0.5,
                                           staircase=staircase)
w = tf.Variable(10.0)
loss = 0.5 * w * w
train = tf.train.GradientDescentOptimizer(learning_rate).minimize(loss, global_step=global_step)
rates, weights = [], []
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for _ in range(5):
        rates.append(sess.run(learning_rate))
        sess.run(train)
        weights.append(sess.run(w))
    final_step = sess.run(global_step)
"""


@pytest.mark.parametrize("staircase", [False, True])
def test_exponential_decay_with_global_step(staircase):
    out = run_tf1(GLOBAL_STEP_DECAY, staircase=staircase)
    steps = np.arange(5)
    expected = 0.5 * 0.5 ** (steps // 2 if staircase else steps / 2)
    np.testing.assert_allclose(out["rates"], expected, rtol=1e-6)
    w = 10.0
    for rate in expected:                      # the step uses the rate before the increment
        w = w - rate * w
    assert out["weights"][-1] == pytest.approx(w, rel=1e-5) and out["final_step"] == 5


def test_compute_and_apply_gradients_with_clipping():
    out = run_tf1("""
    import numpy as np
    import tensorflow as tf
    w = tf.Variable([3.0, -4.0])
    loss = tf.reduce_sum(w * w)
    opt = tf.train.GradientDescentOptimizer(0.1)
    gvs = opt.compute_gradients(loss)
    capped = [(tf.maximum(tf.minimum(g, 1.0), -1.0), v) for g, v in gvs]
    train = opt.apply_gradients(capped)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        result = sess.run(w)
    """)
    np.testing.assert_allclose(out["result"], [2.9, -3.9], rtol=1e-6)


def test_no_gradients_is_tfs_value_error():
    import symgrad.compat.v1 as tf
    w = tf.Variable(1.0)
    tf.Variable(2.0, name="unused")
    with pytest.raises(ValueError, match="No gradients provided for any variable"):
        tf.train.AdamOptimizer().minimize(tf.constant(1.0) * 2, var_list=[w])


def test_exponential_moving_average_of_variables_and_batch_moments():
    # TF's rule: shadow -= (1 - decay) * (shadow - value), decay capped by
    # (1 + num_updates) / (10 + num_updates); a variable's shadow starts at its initial
    # value, a tensor's at zeros; batch norm by hand picks batch or averaged moments
    ns = run_tf1("""
    import numpy as np
    import tensorflow as tf
    x = tf.placeholder(tf.float32, [None, 2])
    training = tf.placeholder(tf.bool, [])
    w = tf.Variable([1.0, -1.0], name="w")
    step = tf.train.get_or_create_global_step()
    mean, var = tf.nn.moments(x, [0])
    ema = tf.train.ExponentialMovingAverage(0.9, num_updates=step)
    ema_apply_op = ema.apply([w, mean])
    train = tf.train.GradientDescentOptimizer(0.5).minimize(
        tf.reduce_sum(w * w) + tf.reduce_sum(mean), global_step=step)
    train_op = tf.group(train, ema_apply_op)
    used = tf.cond(training, lambda: mean, lambda: ema.average(mean))
    batches = [np.full((3, 2), 2.0), np.full((4, 2), 6.0), np.full((2, 2), -1.0)]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        history = []
        for b in batches:
            sess.run(train_op, {x: b})
            history.append(sess.run([ema.average(w), ema.average(mean)]))
        at_test, at_train = sess.run(used, {x: batches[0], training: False}), \\
            sess.run(used, {x: batches[0], training: True})
    names = [ema.average(w).name, ema.average_name(w)]
    averaged = [v.name for v in tf.moving_average_variables()]
    model = tf.model_variables()
    """)
    assert ns["averaged"] == ["w:0"] and ns["model"] == []   # TF 2.21's lists
    shadow_w, shadow_m, w, n = np.array([1.0, -1.0]), np.zeros(2), np.array([1.0, -1.0]), 0
    for b, (got_w, got_m) in zip([2.0, 6.0, -1.0], ns["history"]):
        decay = min(0.9, (1 + n) / (10 + n))        # the step's value before it runs
        shadow_w = shadow_w - (1 - decay) * (shadow_w - w)
        shadow_m = shadow_m - (1 - decay) * (shadow_m - b)
        w, n = w - 0.5 * 2 * w, n + 1               # one snapshot: the old w is averaged
        np.testing.assert_allclose(got_w, shadow_w, rtol=1e-6)
        np.testing.assert_allclose(got_m, shadow_m, rtol=1e-6)
    np.testing.assert_allclose(ns["at_test"], shadow_m, rtol=1e-6)
    np.testing.assert_allclose(ns["at_train"], [2.0, 2.0])
    assert ns["names"] == ["w/ExponentialMovingAverage:0", "w/ExponentialMovingAverage"]


def test_updates_inside_a_cond_branch_are_refused_with_the_form_that_works():
    # the well-known batch-norm-by-hand snippet: ema.apply and a control dependency in
    # the true branch would never run here, so it is an error that says what to do
    import symgrad.compat.v1 as tf
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3])
        phase_train = tf.placeholder(tf.bool, [])
        batch_mean, batch_var = tf.nn.moments(x, [0])
        ema = tf.train.ExponentialMovingAverage(decay=0.5)
        outside = ema.apply([batch_mean, batch_var])

        def mean_var_with_update():
            with tf.control_dependencies([outside]):
                return tf.identity(batch_mean), tf.identity(batch_var)

        def apply_inside():   # (shadow variables made in a branch: refused; assigns of
            # variables made outside are lifted out of the branch, test_compat_probe10c)
            op = tf.train.ExponentialMovingAverage(decay=0.5).apply([batch_mean])
            with tf.control_dependencies([op]):
                return tf.identity(batch_mean), tf.identity(batch_var)
        for branch, words in ((mean_var_with_update, "control_dependencies"),
                              (apply_inside, "ema.apply")):
            with pytest.raises(ValueError, match=words):
                tf.cond(phase_train, branch,
                        lambda: (ema.average(batch_mean), ema.average(batch_var)))


def test_optimizer_subclasses_run_tfs_internal_protocol():
    # (refused before probe 7; test_compat_probe7 checks a slotted one against TF)
    import symgrad.compat.v1 as tf

    class PowerSign(tf.train.Optimizer):
        def __init__(self, lr=0.1):
            super().__init__(False, "PowerSign")
            self._lr = lr

        def _apply_dense(self, grad, var):
            return tf.assign_sub(var, self._lr * tf.sign(grad))

    class AdamW(tf.train.AdamOptimizer):   # a built-in's hooks cannot be extended
        def _apply_dense(self, grad, var):
            return tf.no_op()

    with tf.Graph().as_default():
        w = tf.Variable(1.0)
        step = PowerSign().minimize(w * w)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(step)
            assert sess.run(w) == pytest.approx(0.9)   # 1 - 0.1 * sign(2)
        with pytest.raises(NotImplementedError, match="AdamW overrides _apply_dense of a "
                                                      "built-in optimizer.*tf.train.Optimizer"):
            AdamW().minimize(w * w)


def test_a_fetched_variable_is_read_after_the_runs_updates():
    """``_, step = sess.run([train_op, global_step])``: TF1 fetches a variable as its
    reference, so the step comes back incremented (loggers and checkpoint schedules
    count on it); a loss fetched beside the step is the one the step used.  TF 2.21's
    results for each run below."""
    import symgrad.compat.v1 as tf
    with tf.Graph().as_default():
        w = tf.Variable(1.0, name="w")
        v = tf.Variable(5.0, name="v")
        loss = w * w
        step = tf.train.get_or_create_global_step()
        train = tf.train.GradientDescentOptimizer(0.25).minimize(loss, global_step=step)
        inc = tf.assign_add(v, 1.0)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            assert s.run([train, w, step, loss]) == [None, 0.5, 1, 1.0]
            assert s.run([inc, v]) == [6.0, 6.0]
            assert s.run([v, inc]) == [7.0, 7.0]
            assert s.run([step, train]) == [2, None]
            assert s.run([tf.group(train), step]) == [None, 3]
            assert s.run(w) == 0.125
