"""What the sixth differential probe of TF1 programs (PINNs, WGAN-GP, DDPG/PPO,
capsules, Bayes by Backprop, word2vec, SparseTensor) found, against numbers taken from
real TensorFlow 2.21 (compat.v1, v2 behaviour disabled)."""
import numpy as np
import pytest

import symgrad.compat.v1 as tf


def test_kl_divergence_of_normals_and_categoricals_as_tf_computes_it():
    # Bayes by Backprop's KL(q(w) || p(w)) term, with its gradient
    with tf.Graph().as_default():
        mu, rho = tf.constant([0.5, -1.0, 2.0]), tf.constant([0.1, -2.0, 1.0])
        q = tf.distributions.Normal(loc=mu, scale=tf.nn.softplus(rho))
        p = tf.distributions.Normal(loc=0.3, scale=1.5)
        kl = tf.distributions.kl_divergence(q, p)
        g_mu, g_rho = tf.gradients(tf.reduce_sum(kl), [mu, rho])
        a = tf.distributions.Categorical(logits=tf.constant([[1.0, 2.0, 0.5], [0.0, 0.0, 3.0]]))
        b = tf.distributions.Categorical(probs=tf.constant([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]]))
        with tf.Session() as sess:
            got = sess.run([kl, q.cross_entropy(p), g_mu, g_rho, a.kl_divergence(b)])
        with pytest.raises(NotImplementedError, match="distribution_a type Normal and "
                                                      "distribution_b type Categorical"):
            tf.distributions.kl_divergence(q, a)
    want = [[0.33267438, 2.34873605, 0.6584304], [1.45643175, 1.70353925, 2.34988284],
            [0.08888888, -0.57777774, 0.75555557], [-0.53155553, -0.93241352, -0.12997568],
            [0.3201263, 1.8051194]]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=2e-6, atol=1e-7)
        assert g.dtype == np.float32


def test_shapes_print_unknown_sizes_as_tf1_does():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 1])
        u_t = tf.gradients(tf.tanh(x) ** 2, x)[0]
        assert str(u_t.shape) == "(?, 1)" and str(x.get_shape()) == "(?, 1)"
        assert str(tf.TensorShape([3])) == "(3,)" and str(tf.TensorShape([])) == "()"
        assert str(tf.matmul(x, tf.ones([1, 2])).shape) == "(?, 2)"
        assert u_t.shape.as_list() == [None, 1] and repr(x.shape) == "(None, 1)"


def test_a_tensor_of_any_shape_prints_instead_of_crashing():
    with tf.Graph().as_default():
        q = tf.placeholder(tf.float32)
        r = q * 2.0 + 1.0
        # (each entry's form: the placeholders taken as scalars, compat.shapes' test; the
        # placeholder itself as TF prints it)
        assert (str(q), str(r)) == ('Tensor("Placeholder:0", dtype=float32)',
                                    "2*Placeholder + 1")
        with tf.Session() as sess:
            assert sess.run(r, {q: [1.0, 2.0]}).tolist() == [3.0, 5.0]


def test_tf_losses_reduce_in_float32_as_tf_does_for_float64_models():
    # DDPG in float64: TF's tf.losses.mean_squared_error is float32 (inputs cast), the
    # cross entropies keep float64 but are reduced in float32 (TF 2.21's numbers)
    with tf.Graph().as_default():
        a = tf.constant(np.array([[1.0], [2.0]]), tf.float64)
        b = tf.constant(np.array([[1.5], [2.25]]), tf.float64)
        hot = tf.constant(np.array([[0., 1.], [1., 0.]]), tf.float64)
        lg = tf.constant(np.array([[0.3, 0.1], [2.0, -1.0]]), tf.float64)
        losses = [tf.losses.mean_squared_error(a, b), tf.losses.huber_loss(a, b),
                  tf.losses.hinge_loss(hot, lg), tf.losses.cosine_distance(hot, lg, axis=1),
                  tf.losses.sigmoid_cross_entropy(hot, lg),
                  tf.losses.softmax_cross_entropy(hot, lg),
                  tf.losses.sparse_softmax_cross_entropy(tf.constant([1, 0]), lg),
                  tf.losses.mean_squared_error(a, b, reduction=tf.losses.Reduction.NONE)]
        with tf.Session() as sess:
            got = sess.run(losses)
    assert [g.dtype for g in got] == [np.float32] * 4 + [np.float64] * 3 + [np.float32]
    assert [float(g) for g in got[:7]] == [0.15625, 0.078125, np.float32(0.54999995),
                                           np.float32(-0.050000012), 0.484735369682312,
                                           0.4233630895614624, 0.4233630895614624]
    assert got[7].tolist() == [[0.25], [0.0625]]


def test_minimize_over_a_shapeless_placeholder_skips_a_variable_the_loss_does_not_use():
    # TF knows when the graph is built that v's gradient is None, and minimize skips v
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32)
        w, v = tf.Variable(1.0), tf.Variable(2.0)
        loss = tf.reduce_sum(x * w)
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        g_w, g_v = tf.gradients(loss, [w, v])
        assert g_v is None and g_w is not None
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(train, {x: [1.0, 2.0]})
            assert sess.run([w, v]) == [np.float32(0.7), 2.0]
            sess.run(train, {x: 3.0})
            assert sess.run([w, v]) == [np.float32(0.39999998), 2.0]


TF_FLOAT64_STEPS = {   # three steps on sum(sin(w) w^2) from [0.7, -1.3, 2.1], TF 2.21
    "gd": [0.4173268465440475, -2.1479202298417044, 1.4518806970558171],
    "mom": [0.06785003793867503, -2.4440140878737115, 0.3661612338752884],
    "adam": [0.6700266115729845, -1.3300050060187072, 2.069967631234863],
    "rms": [0.6484105520704895, -1.3895023650707028, 2.0406586662391257],
    "adagrad": [0.24860213602742423, -1.975779459373463, 1.3275649446047328],
    "adadelta": [0.6986439215807152, -1.3013570781711563, 2.0986416150825686]}


@pytest.mark.parametrize("name", sorted(TF_FLOAT64_STEPS))
def test_float64_variables_see_python_hyperparameters_as_float32_as_in_tf(name):
    # the float64 PINN's Adam steps differed from TF's at 5e-11: TF makes 0.001 a float32
    # tensor and casts it, and keeps Adam's beta powers in float32
    make = {"gd": lambda: tf.train.GradientDescentOptimizer(0.1),
            "mom": lambda: tf.train.MomentumOptimizer(0.1, 0.9, use_nesterov=True),
            "adam": lambda: tf.train.AdamOptimizer(0.01),
            "rms": lambda: tf.train.RMSPropOptimizer(0.01, decay=0.9, momentum=0.5,
                                                     centered=True),
            "adagrad": lambda: tf.train.AdagradOptimizer(0.3),
            "adadelta": lambda: tf.train.AdadeltaOptimizer(1.0, rho=0.95)}[name]
    with tf.Graph().as_default():
        w = tf.Variable(np.array([0.7, -1.3, 2.1]), dtype=tf.float64)
        train = make().minimize(tf.reduce_sum(tf.sin(w) * w ** 2))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(3):
                sess.run(train)
            got = sess.run(w)
    np.testing.assert_allclose(got, TF_FLOAT64_STEPS[name], rtol=1e-14, atol=0)


def test_norm_takes_tf1s_keep_dims():
    # capsule networks' safe_norm: tf.norm(s, axis=-1, keep_dims=True) (TF 2.21's numbers)
    with tf.Graph().as_default():
        x = tf.constant(np.arange(12, dtype=np.float32).reshape(3, 4) / 10 - 0.5)
        with tf.Session() as sess:
            got = sess.run([tf.norm(x, axis=-1, keep_dims=True),
                            tf.linalg.norm(x, ord=1, axis=1)])
    np.testing.assert_allclose(got[0], [[0.73485], [0.24495], [0.92736]], atol=1e-5)
    np.testing.assert_allclose(got[1], [1.4, 0.4, 1.8], rtol=1e-6)


TF_FTRL_FLOAT64 = [  # four steps from [0.5, -0.3, 0, 2], TF 2.21 (prog13_f64.py)
    (dict(learning_rate_power=-0.7),
     [0.6348334101134757, -0.16842493651911505, -0.11846986501016128, 1.6705756410997812]),
    (dict(learning_rate_power=-0.5, initial_accumulator_value=0.2,
          l1_regularization_strength=0.05, l2_shrinkage_regularization_strength=0.05),
     [0.5461648399491545, -0.007260575198027066, -0.26208859469349294, 1.290454007717631]),
    (dict(learning_rate_power=-0.6, l1_regularization_strength=0.3,
          l2_regularization_strength=0.1, beta=0.5),
     [0.4331392320874282, -0.09265555474437019, -0.1669588545061679, 1.274826914580573])]


@pytest.mark.parametrize("case", range(len(TF_FTRL_FLOAT64)))
def test_ftrl_steps_as_tfs_apply_ftrl(case):
    # Wide & Deep's linear part trains with FTRL; symgrad had no tf.train.FtrlOptimizer
    kwargs, want = TF_FTRL_FLOAT64[case]
    with tf.Graph().as_default():
        v = tf.Variable(np.array([0.5, -0.3, 0.0, 2.0]))
        loss = tf.reduce_sum(tf.square(v - [1.0, 1.0, -1.0, 0.0]) * [1.0, 2.0, 3.0, 0.5])
        opt = tf.train.FtrlOptimizer(0.1, **kwargs)
        train = opt.minimize(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(4):
                sess.run(train)
            got = sess.run(v)
        assert sorted(opt.get_slot_names()) == ["accum", "linear"]
    np.testing.assert_allclose(got, want, rtol=1e-14, atol=1e-16)
    with pytest.raises(ValueError, match="learning_rate_power=0.5 must be non-positive"):
        tf.train.FtrlOptimizer(0.1, learning_rate_power=0.5)


def test_tf_logging_writes_tfs_lines_and_counts_per_call_site(capsys):
    # tensorflow/models scripts: set_verbosity(INFO), then INFO:tensorflow:... on stderr
    import logging
    logger = logging.getLogger("tensorflow")
    handler = logging.StreamHandler()   # what get_logger() adds without root handlers
    handler.setFormatter(logging.Formatter(logging.BASIC_FORMAT))
    logger.addHandler(handler)
    try:
        tf.logging.set_verbosity(tf.logging.INFO)
        tf.logging.info("Step %d: loss = %.2f", 10, 0.5)
        tf.logging.set_verbosity(tf.logging.WARN)
        tf.logging.info("hidden")
        assert tf.logging.get_verbosity() == 30
        for i in range(3):
            tf.logging.log_first_n(tf.logging.ERROR, "first %d", 2, i)
        for i in range(5):
            tf.logging.log_every_n(tf.logging.ERROR, "every %d", 2, i)
    finally:
        logger.removeHandler(handler)
    assert capsys.readouterr().err == (
        "INFO:tensorflow:Step 10: loss = 0.50\nERROR:tensorflow:first 0\n"
        "ERROR:tensorflow:first 1\nERROR:tensorflow:every 0\nERROR:tensorflow:every 2\n"
        "ERROR:tensorflow:every 4\n")


def test_a_script_gets_tfs_log_handler():
    import os
    import subprocess
    import sys
    script = ("import symgrad.compat.v1 as tf\ntf.logging.set_verbosity(tf.logging.INFO)\n"
              "tf.logging.info('Step %d', 3)\ntf.logging.debug('no')\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=env, timeout=60)
    assert done.returncode == 0 and done.stderr == "INFO:tensorflow:Step 3\n"
