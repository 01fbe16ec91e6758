"""What the fifteenth differential probe (a) found in TF1 reinforcement-learning code
(OpenAI baselines' deepq, a2c and ppo2; spinningup's ppo, trpo and sac; Morvan Zhou's
DQN, policy-gradient, A3C and DDPG tutorials; Arthur Juliani's "Simple RL" agents;
TRFL-style value ops), written as those sources write them at small sizes, against
real TensorFlow 2.21 (compat.v1, v2 behaviour disabled).  The numbers are TF 2.21's."""
import numpy as np
import pytest

import symgrad.compat.v1 as tf


def test_squeeze_of_named_axes_whose_size_is_known_only_at_run_time():
    # Morvan's A3C: tf.squeeze(normal_dist.sample(1), axis=[0, 1]) with mu of shape
    # [None, 1]: the batch axis is squeezed though its size is unknown when built
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [1, None, 1])
        y = tf.squeeze(x, axis=[0, 1])
        z = tf.squeeze(x, [1])
        assert y.get_shape().as_list() == [1] and z.get_shape().as_list() == [1, 1]
        g = tf.gradients(tf.reduce_sum(y * 3.), x)[0]
        with tf.Session() as sess:
            vy, vz, vg = sess.run([y, z, g], {x: [[[2.]]]})
            assert vy.tolist() == [2.] and vz.tolist() == [[2.]] and vg.tolist() == [[[3.]]]
            # TF: "Can not squeeze dim[1], expected a dimension of 1, got 3"
            for t in (y, z):
                with pytest.raises(tf.errors.InvalidArgumentError):
                    sess.run(t, {x: np.ones((1, 3, 1))})
        with pytest.raises(ValueError):
            tf.squeeze(tf.placeholder(tf.float32, [2, None]), axis=[0])


def test_categorical_probs_mode_event_size_and_batch_shapes():
    # policies read pd.probs, pd.mode() (greedy action), pd.batch_shape, pd.event_size
    with tf.Graph().as_default():
        logits = tf.placeholder(tf.float32, [None, 3])
        cat = tf.distributions.Categorical(logits=logits)
        catp = tf.distributions.Categorical(probs=[[0.2, 0.5, 0.3]])
        norm = tf.distributions.Normal(tf.placeholder(tf.float32, [None, 2]), [1.0, 2.0])
        assert cat.batch_shape.as_list() == [None] and cat.event_shape.as_list() == []
        assert norm.batch_shape.as_list() == [None, 2] and norm.event_shape.as_list() == []
        assert catp.batch_shape.as_list() == [1]
        assert cat.mode().dtype == tf.int32 and cat.mode().get_shape().as_list() == [None]
        assert cat.probs.get_shape().as_list() == [None, 3] and cat.event_size.dtype == tf.int32
        g = tf.gradients(tf.reduce_sum(cat.probs * [1., 2., 3.]), logits)[0]
        with tf.Session() as sess:
            probs, mode, size, batch, pp, pl, pm, vg = sess.run(
                [cat.probs, cat.mode(), cat.event_size, cat.batch_shape_tensor(), catp.probs,
                 catp.logits, catp.mode(), g], {logits: [[1., 2., 0.5], [0., 0., -1.]]})
        np.testing.assert_allclose(probs, [[0.23122391, 0.6285317, 0.14024438],
                                           [0.42231882, 0.42231882, 0.15536243]], rtol=1e-6)
        assert mode.tolist() == [1, 0] and mode.dtype == np.int32   # ties: the first
        assert size == 3 and batch.tolist() == [2]
        np.testing.assert_allclose(pp, [[0.2, 0.5, 0.3]])
        np.testing.assert_allclose(pl, [[-1.609438, -0.6931472, -1.2039728]], rtol=1e-6)
        assert pm.tolist() == [1]
        np.testing.assert_allclose(vg, [[-0.21018726, 0.05718355, 0.15300375],
                                        [-0.30957812, 0.11274068, 0.19683741]], rtol=1e-5)


def test_shapes_of_dirichlet_gamma_and_categorical_of_unknown_classes():
    with tf.Graph().as_default():
        c = tf.placeholder(tf.float32, [None, 3])
        u = tf.placeholder(tf.float32, [None, None])
        d = tf.distributions.Dirichlet(c)
        cat = tf.distributions.Categorical(logits=u)
        gam = tf.distributions.Gamma(tf.ones([2, 1]), tf.ones([3]))
        assert (d.batch_shape.as_list(), d.event_shape.as_list()) == ([None], [3])
        assert (gam.batch_shape.as_list(), gam.event_shape.as_list()) == ([2, 3], [])
        with tf.Session() as sess:
            got = sess.run([d.batch_shape_tensor(), d.event_shape_tensor(), cat.event_size,
                            gam.batch_shape_tensor(), gam.event_shape_tensor()],
                           {c: np.ones((5, 3)), u: np.zeros((2, 4))})
        assert [np.asarray(v).tolist() for v in got] == [[5], [3], 4, [2, 3], []]


def test_layers_take_an_initializer_given_as_none_from_get_variable():
    # Juliani's A3C: tf.layers.dense(rnn_out, 1, ..., bias_initializer=None): TF's bias
    # is then get_variable's default (the scope's initializer, else Glorot uniform),
    # not zeros; the kernel's None is the scope's initializer too
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3])
        with tf.variable_scope("s", initializer=tf.constant_initializer(0.5)):
            tf.layers.dense(x, 4, bias_initializer=None, name="d")
            tf.layers.conv2d(tf.zeros([1, 4, 4, 2]), 3, 2, bias_initializer=None)
            tf.layers.dense(x, 2, name="zeros_by_default")
        tf.layers.dense(x, 4, bias_initializer=None, name="glorot")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got = {v.op.name: sess.run(v) for v in tf.global_variables()}
        for name in ("s/d/kernel", "s/d/bias", "s/conv2d/kernel", "s/conv2d/bias",
                     "s/zeros_by_default/kernel"):
            assert (got[name] == 0.5).all(), name
        assert (got["s/zeros_by_default/bias"] == 0).all()
        bias = got["glorot/bias"]   # Glorot uniform over (4,): |b| < sqrt(6 / 8)
        assert bias.shape == (4,) and (bias != 0).all() and (abs(bias) < 0.8661).all()


def test_reverse_and_reverse_scan_over_an_episode_of_run_time_length():
    # discounted returns and GAE over one episode fed as [None]: tf.reverse,
    # x[::-1] and tf.scan(..., reverse=True) flip an axis whose size is unknown
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 2])
        r, r2, r3 = tf.reverse(x, [0]), x[::-1], x[::-2]
        assert r.get_shape().as_list() == [None, 2] == r3.get_shape().as_list()
        y = tf.reduce_sum(r * tf.range(1., 1. + tf.cast(tf.shape(x)[0], tf.float32))[:, None]) \
            + tf.reduce_sum(r3 * 2.) + tf.reduce_sum(tf.reverse(x, [0, 1])[0])
        g = tf.gradients(y, x)[0]
        s = tf.scan(lambda a, e: a * 0.5 + e, x, initializer=tf.zeros([2]), reverse=True)
        gs = tf.gradients(tf.reduce_sum(s * s), x)[0]
        with tf.Session() as sess:
            v = np.arange(10.).reshape(5, 2)
            got = sess.run([r, r2, r3, g, s, gs], {x: v})
            assert got[0].tolist() == got[1].tolist() == v[::-1].tolist()
            assert got[2].tolist() == [[8, 9], [4, 5], [0, 1]]
            assert got[3].tolist() == [[7, 7], [4, 4], [5, 5], [2, 2], [4, 4]]
            np.testing.assert_allclose(got[4], [[3.25, 5.1875], [6.5, 8.375], [9, 10.75],
                                                [10, 11.5], [8, 9]])
            np.testing.assert_allclose(got[5], [[6.5, 10.375], [16.25, 21.9375],
                                                [26.125, 32.46875], [33.0625, 39.234375],
                                                [32.53125, 37.6171875]])
            r3v, gv = sess.run([r3, g], {x: v[:4]})
            assert r3v.tolist() == [[6, 7], [2, 3]]
            assert gv.tolist() == [[4, 4], [5, 5], [2, 2], [4, 4]]


def test_cumsum_and_cumprod_over_a_run_time_length():
    # returns as tf.cumsum(rewards, reverse=True) (and exclusive) of a [None] episode
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None])
        m = tf.placeholder(tf.float32, [2, None])
        sums = [tf.cumsum(x, reverse=r, exclusive=e) for r in (False, True) for e in (False, True)]
        prods = [tf.cumprod(x, reverse=r, exclusive=e) for r in (False, True) for e in (False, True)]
        rows = [tf.cumsum(m, axis=1, reverse=True), tf.cumprod(m, axis=-1, exclusive=True)]
        g = tf.gradients(tf.add_n([tf.reduce_sum(o * (k + 1.)) for k, o in enumerate(sums)]), x)[0]
        gm = tf.gradients(tf.reduce_sum(rows[0] * rows[0]), m)[0]
        with tf.Session() as sess:
            got = sess.run(sums + prods + rows + [g, gm],
                           {x: [1., 2., 0.5, -1.], m: [[1., 2., 3.], [0., 2., -1.]]})
            one = sess.run([sums[1], g], {x: [3.]})
        assert [t.tolist() for t in got] == [
            [1.0, 3.0, 3.5, 2.5], [0.0, 1.0, 3.0, 3.5], [2.5, 1.5, -0.5, -1.0],
            [1.5, -0.5, -1.0, 0.0], [1.0, 2.0, 1.0, -1.0], [1.0, 1.0, 2.0, 1.0],
            [-1.0, -1.0, -0.5, -1.0], [-1.0, -0.5, -1.0, 1.0],
            [[6.0, 5.0, 3.0], [1.0, 1.0, -1.0]], [[1.0, 1.0, 2.0], [1.0, 0.0, 0.0]],
            [13.0, 17.0, 21.0, 25.0], [[12.0, 22.0, 28.0], [2.0, 4.0, 2.0]]]
        assert one[0].tolist() == [0.0] and one[1].tolist() == [4.0]


def test_gradient_of_reduce_prod_and_cumprod_over_a_run_time_length():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None])
        m = tf.placeholder(tf.float32, [2, None])
        outs = [tf.cumprod(x, reverse=r, exclusive=e) for r in (False, True) for e in (False, True)]
        outs += [tf.cumprod(m, axis=-1, exclusive=True), tf.reduce_prod(m, axis=1),
                 tf.reduce_prod(m)]
        g = tf.gradients(tf.add_n([tf.reduce_sum(o * (k + 1.)) for k, o in enumerate(outs[:4])]),
                         x)[0]
        gm = tf.gradients(tf.reduce_sum(outs[4] * outs[4]) + tf.reduce_sum(outs[5] * [1., 2.])
                          + outs[6], m)[0]
        with tf.Session() as sess:
            vg, vgm = sess.run([g, gm], {x: [1., 2., 0.5, -1.], m: [[1., 2., 3.], [0., 2., -1.]]})
        assert vg.tolist() == [8.0, -1.0, -23.0, 21.5]
        assert vgm.tolist() == [[16.0, 7.0, 2.0], [-16.0, 0.0, 0.0]]


def test_gather_with_batch_dims_picks_each_rows_action_value():
    # q_sa = tf.gather(q, actions, batch_dims=1): one Q value per row
    with tf.Graph().as_default():
        q = tf.placeholder(tf.float32, [None, 4])
        a = tf.placeholder(tf.int32, [None])
        seq = tf.constant(np.arange(24.).reshape(2, 3, 4))
        idx = tf.constant([[[2, 0], [1, 1], [0, 0]], [[1, 2], [2, 2], [0, 1]]])
        outs = [tf.gather(q, a, batch_dims=1), tf.gather(q, a[:, None], batch_dims=-1),
                tf.gather(seq, idx, batch_dims=2),
                tf.gather(seq, [[0, 2], [1, 1]], batch_dims=1, axis=1),
                tf.gather(seq, [[0, 2], [1, 1]], batch_dims=1, axis=-2)]
        assert [o.get_shape().as_list() for o in outs] == [[None], [None, 1], [2, 3, 2],
                                                           [2, 2, 4], [2, 2, 4]]
        g = tf.gradients(tf.reduce_sum(outs[0] * [1., 2., 3.]) + tf.reduce_sum(outs[1]), q)[0]
        with tf.Session() as sess:
            got = sess.run(outs[:4] + [g], {q: np.arange(12.).reshape(3, 4), a: [3, 0, 2]})
        assert [t.tolist() for t in got] == [
            [3.0, 4.0, 10.0], [[3.0], [4.0], [10.0]],
            [[[2.0, 0.0], [5.0, 5.0], [8.0, 8.0]], [[13.0, 14.0], [18.0, 18.0], [20.0, 21.0]]],
            [[[0.0, 1.0, 2.0, 3.0], [8.0, 9.0, 10.0, 11.0]],
             [[16.0, 17.0, 18.0, 19.0], [16.0, 17.0, 18.0, 19.0]]],
            [[0.0, 0.0, 0.0, 2.0], [3.0, 0.0, 0.0, 0.0], [0.0, 0.0, 4.0, 0.0]]]
        with pytest.raises(ValueError, match="batch_dims"):   # TF: "at least rank 3"
            tf.gather(q, a, batch_dims=2)


def test_clone_model_makes_a_target_network_with_its_own_weights():
    # keras-rl style: target = clone_model(model); target.set_weights(model.get_weights())
    with tf.Graph().as_default():
        K = tf.keras
        m = K.Sequential([K.layers.Dense(8, activation="relu", input_shape=(4,)),
                          K.layers.Dense(3)], name="qnet")
        t = K.models.clone_model(m)
        assert (t.name, [layer.name for layer in t.layers]) == ("qnet", ["dense", "dense_1"])
        assert [w.name for w in t.weights] == ["dense_2/kernel:0", "dense_2/bias:0",
                                               "dense_1_1/kernel:0", "dense_1_1/bias:0"]
        assert t.inputs[0].name == "dense_input_1:0"
        assert t.layers[0].activation.__name__ == "relu"
        x = K.Input(shape=(3,))
        shared = K.layers.Dense(3, activation="tanh", name="sh", kernel_initializer=K.initializers
                                .Constant([[.1, -.2, .3], [.4, .5, -.6], [-.7, .8, .9]]))
        out = K.layers.Dense(1, name="o", kernel_initializer="ones")(shared(shared(x)))
        f = K.Model(x, out, name="fn")
        c = K.models.clone_model(f)
        assert [layer.name for layer in c.layers] == ["input_1", "sh", "o"]
        assert [w.name for w in c.weights] == ["sh_2/kernel:0", "sh_2/bias:0",
                                               "o_1/kernel:0", "o_1/bias:0"]
        assert c.inputs[0].name == "input_1_1:0"
        sess = K.backend.get_session()
        sess.run(tf.global_variables_initializer())
        sess.run(c.weights[0].assign(c.weights[0] * 2.))   # the clone's own variable
        v = np.array([[1., 2., 3.], [0., -1., 0.5]], np.float32)
        a, b = sess.run([f.outputs[0], c.outputs[0]], {f.inputs[0]: v, c.inputs[0]: v})
        np.testing.assert_allclose(a, [[0.56002426], [0.5514089]], rtol=1e-6)
        np.testing.assert_allclose(b, [[0.34104624], [0.8962598]], rtol=1e-6)


def test_random_ops_take_tensor_mean_stddev_and_bounds():
    # baselines' DDPG parameter noise: tf.random_normal(tf.shape(var), mean=0.,
    # stddev=param_noise_stddev) with a float32 placeholder (symgrad mixed its float64
    # draw with it and refused the dtypes)
    with tf.Graph().as_default():
        sd = tf.placeholder(tf.float32, ())
        m = tf.placeholder(tf.float32, [3])
        hi = tf.placeholder(tf.int32, ())
        a = tf.random_normal([2000, 3], mean=m, stddev=sd)
        b = tf.random_uniform([2000], minval=m[0], maxval=sd)
        c = tf.truncated_normal([2000], stddev=sd)
        d = tf.random_uniform([2000], maxval=hi, dtype=tf.int32)
        e = tf.random_normal(tf.shape(m), stddev=sd, seed=3)
        assert [t.dtype for t in (a, b, c, d)] == [tf.float32] * 3 + [tf.int32]
        with tf.Session() as sess:
            va, vb, vc, vd, ve = sess.run([a, b, c, d, e], {sd: 2.0, m: [1., -1., 0.], hi: 5})
        np.testing.assert_allclose(va.mean(0), [1., -1., 0.], atol=0.2)
        np.testing.assert_allclose(va.std(0), [2., 2., 2.], atol=0.2)
        assert va.dtype == np.float32 and vb.min() >= 1 and vb.max() < 2
        assert abs(vc).max() <= 4 and vc.std() < 2
        assert (vd.min(), vd.max(), vd.dtype) == (0, 4, np.int32) and ve.shape == (3,)
        with pytest.raises(ValueError, match="dtype"):   # TF: convert_to_tensor's
            tf.random_normal([2], stddev=tf.constant(1.0, tf.float64))


def test_a_shapeless_int_placeholder_in_a_list_of_sizes_keeps_the_rank():
    # Juliani's DRQN: trainLength = tf.placeholder(dtype=tf.int32) (no shape), then
    # tf.reshape(h, [batch_size, trainLength, h_size]) fed to dynamic_rnn, and masks
    # tf.zeros([batch_size, trainLength // 2]); TF's results have known ranks
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 4])
        n = tf.placeholder(tf.int32)
        b = tf.placeholder(tf.int32, [])
        y = tf.reshape(x, [b, n, 4])
        m = tf.concat([tf.zeros([b, n // 2]), tf.ones([b, n // 2])], 1)
        f = tf.fill([b, n], 2.0)
        assert y.get_shape().as_list() == [None, None, 4]
        assert m.get_shape().as_list() == [None, None] == f.get_shape().as_list()
        g = tf.gradients(tf.reduce_sum(y * tf.reshape(m, [b, n, 1])), x)[0]
        with tf.Session() as sess:
            vy, vm, vf, vg = sess.run([y, m, f, g], {x: np.arange(32.).reshape(8, 4), n: 4, b: 2})
        assert vy.tolist() == np.arange(32.).reshape(2, 4, 4).tolist()
        assert vm.tolist() == [[0, 0, 1, 1], [0, 0, 1, 1]] and vf.tolist() == [[2.] * 4] * 2
        assert vg.tolist() == [[0.] * 4, [0.] * 4, [1.] * 4, [1.] * 4] * 2
