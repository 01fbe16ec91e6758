"""TF1's recurrent cells and dynamic_rnn against numpy replicas of TF's cell formulas
(rnn_cell_impl: BasicRNNCell, BasicLSTMCell, GRUCell), finite differences, and the
variable names TF gives."""
import numpy as np
import pytest

import symgrad.compat.v1 as tf

from .oracles import central_difference


def sigmoid(v):
    return 1 / (1 + np.exp(-v))


def lstm_step(x, c, h, kernel, bias, forget_bias=1.0):
    i, j, f, o = np.split(np.concatenate([x, h], 1) @ kernel + bias, 4, axis=1)
    c = c * sigmoid(f + forget_bias) + sigmoid(i) * np.tanh(j)
    return np.tanh(c) * sigmoid(o), c


def gru_step(x, h, gk, gb, ck, cb):
    r, u = np.split(sigmoid(np.concatenate([x, h], 1) @ gk + gb), 2, axis=1)
    c = np.tanh(np.concatenate([x, r * h], 1) @ ck + cb)
    return u * h + (1 - u) * c


def _run(fetches, feed, variables=()):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return sess.run([fetches, list(variables)], feed)


def test_lstm_dynamic_rnn_with_sequence_lengths_matches_tfs_formulas():
    T, D, H = 4, 3, 5
    X = np.random.RandomState(0).randn(3, T, D)
    lengths = np.array([4, 2, 0])
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [None, T, D])
        n = tf.placeholder(tf.int32, [None])
        out, state = tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicLSTMCell(H), x, sequence_length=n,
                                       dtype=tf.float64)
        names = [v.name for v in tf.global_variables()]
        (got_out, got_c, got_h), (kernel, bias) = _run([out, state.c, state.h],
                                                       {x: X, n: lengths},
                                                       tf.global_variables())
    assert names == ["rnn/basic_lstm_cell/kernel:0", "rnn/basic_lstm_cell/bias:0"]
    assert kernel.shape == (D + H, 4 * H) and not bias.any()
    c, h = np.zeros((3, H)), np.zeros((3, H))
    for t in range(T):
        new_h, new_c = lstm_step(X[:, t], c, h, kernel, bias)
        alive = (t < lengths)[:, None]
        np.testing.assert_allclose(got_out[:, t], np.where(alive, new_h, 0), rtol=1e-12,
                                   atol=1e-15)
        c, h = np.where(alive, new_c, c), np.where(alive, new_h, h)
    np.testing.assert_allclose(got_c, c, rtol=1e-12)
    np.testing.assert_allclose(got_h, h, rtol=1e-12)


def test_gru_and_stacked_cells_names_values_and_gradient():
    T, D, H = 3, 2, 3
    X = np.random.RandomState(1).randn(2, T, D)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [None, T, D])
        cell = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.GRUCell(H),
                                            tf.contrib.rnn.BasicRNNCell(H)])
        out, (s_gru, s_rnn) = tf.nn.dynamic_rnn(cell, x, dtype=tf.float64)
        loss = tf.reduce_sum(out ** 2)
        gk_var = tf.global_variables()[0]
        (grad,) = tf.gradients(loss, gk_var)
        names = [v.name for v in tf.global_variables()]
        (got, g), weights = _run([out, grad], {x: X}, tf.global_variables())
    assert names == ["rnn/multi_rnn_cell/cell_0/gru_cell/gates/kernel:0",
                     "rnn/multi_rnn_cell/cell_0/gru_cell/gates/bias:0",
                     "rnn/multi_rnn_cell/cell_0/gru_cell/candidate/kernel:0",
                     "rnn/multi_rnn_cell/cell_0/gru_cell/candidate/bias:0",
                     "rnn/multi_rnn_cell/cell_1/basic_rnn_cell/kernel:0",
                     "rnn/multi_rnn_cell/cell_1/basic_rnn_cell/bias:0"]
    gk, gb, ck, cb, rk, rb = weights
    assert np.all(gb == 1.0)                     # TF starts the GRU's gate bias at 1

    def replica(gates_kernel):
        h1, h2, outs = np.zeros((2, H)), np.zeros((2, H)), []
        for t in range(T):
            h1 = gru_step(X[:, t], h1, gates_kernel, gb, ck, cb)
            h2 = np.tanh(np.concatenate([h1, h2], 1) @ rk + rb)
            outs.append(h2)
        return np.stack(outs, 1)
    np.testing.assert_allclose(got, replica(gk), rtol=1e-12)
    np.testing.assert_allclose(g, central_difference(lambda k: (replica(k) ** 2).sum(), gk),
                               atol=1e-7)


def test_static_and_bidirectional_rnn_and_what_is_refused():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3, 2])
        outs, state = tf.nn.static_rnn(tf.nn.rnn_cell.BasicRNNCell(4), tf.unstack(x, axis=1),
                                       dtype=tf.float32)
        (fw, bw), _ = tf.nn.bidirectional_dynamic_rnn(tf.nn.rnn_cell.LSTMCell(2),
                                                      tf.nn.rnn_cell.LSTMCell(2), x,
                                                      dtype=tf.float32)
        names = [v.name for v in tf.global_variables()]
        X = np.random.RandomState(2).randn(2, 3, 2).astype(np.float32)
        (o, s, f, b), weights = _run([outs, state, fw, bw], {x: X}, tf.global_variables())
        assert len(o) == 3 and np.array_equal(o[-1], s)
        assert names[2:] == ["bidirectional_rnn/fw/lstm_cell/kernel:0",
                             "bidirectional_rnn/fw/lstm_cell/bias:0",
                             "bidirectional_rnn/bw/lstm_cell/kernel:0",
                             "bidirectional_rnn/bw/lstm_cell/bias:0"]
        kb, bb = weights[4:]
        c, h, back = np.zeros((2, 2)), np.zeros((2, 2)), []
        for t in reversed(range(3)):                 # the backward cell reads time reversed
            h, c = lstm_step(X[:, t], c, h, kb, bb)
            back.append(h)
        np.testing.assert_allclose(b, np.stack(back[::-1], 1), rtol=1e-5, atol=1e-6)   # (float32)
        assert f.shape == (2, 3, 2)
        with pytest.raises(ValueError, match="not supported"):
            tf.nn.rnn_cell.LSTMCell(3, num_unit_shards=2)
        with pytest.raises(AttributeError, match="tf.contrib.rnn.s cells"):
            tf.contrib.tpu


def test_dropout_wrapper_drops_outputs_not_the_recurrence():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [None, 4, 3])
        cell = tf.nn.rnn_cell.BasicRNNCell(20)
        plain, _ = tf.nn.dynamic_rnn(cell, x, dtype=tf.float64, scope="a")
        keep = tf.placeholder_with_default(tf.constant(0.5, tf.float64), [])
        dropped, _ = tf.nn.dynamic_rnn(tf.nn.rnn_cell.DropoutWrapper(cell, output_keep_prob=keep),
                                       x, dtype=tf.float64, scope="b")   # the same weights
        X = np.random.RandomState(3).randn(5, 4, 3)
        (p, d, full), _ = _run([plain, dropped, dropped], {x: X})
        (same,), _ = _run([dropped], {x: X, keep: 1.0})
    kept = d != 0
    assert 0.3 < kept.mean() < 0.7
    np.testing.assert_allclose(d[kept], 2 * p[kept], rtol=1e-12)
    np.testing.assert_allclose(same, p, rtol=1e-12)


@pytest.mark.parametrize("cell", ["gru", "lstm"])
def test_dynamic_rnn_over_a_number_of_steps_known_at_run_time(cell):
    """[None, None, d] inputs (padded batches of any length) run in a scan; outputs, final
    state and gradients equal the unrolled graph's at the same variables."""
    make = {"gru": lambda: tf.nn.rnn_cell.GRUCell(3),
            "lstm": lambda: tf.nn.rnn_cell.BasicLSTMCell(3)}[cell]
    rng = np.random.RandomState(4)
    with tf.Graph().as_default():
        x_any = tf.placeholder(tf.float32, [None, None, 2])
        lengths = tf.placeholder(tf.int32, [None])
        with tf.variable_scope("m"):
            out_any, st_any = tf.nn.dynamic_rnn(make(), x_any, sequence_length=lengths,
                                                dtype=tf.float32)
        h_any = st_any.h if cell == "lstm" else st_any
        loss_any = tf.reduce_sum(out_any ** 2) + tf.reduce_sum(h_any)
        variables = tf.global_variables()
        assert len(variables) == (2 if cell == "lstm" else 4)
        g_any = tf.gradients(loss_any, variables + [x_any])
        for batch, steps in ((3, 5), (2, 1)):
            x_known = tf.placeholder(tf.float32, [batch, steps, 2])
            with tf.variable_scope("m", reuse=True):
                out_k, st_k = tf.nn.dynamic_rnn(make(), x_known, sequence_length=lengths,
                                                dtype=tf.float32)
            h_k = st_k.h if cell == "lstm" else st_k
            loss_k = tf.reduce_sum(out_k ** 2) + tf.reduce_sum(h_k)
            g_k = tf.gradients(loss_k, variables + [x_known])
            assert len(tf.global_variables()) == len(variables)
            X = rng.randn(batch, steps, 2).astype(np.float32)
            L = rng.randint(0, steps + 1, size=batch).astype(np.int32)
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                got = sess.run([out_any, h_any] + g_any, {x_any: X, lengths: L})
                want = sess.run([out_k, h_k] + g_k, {x_known: X, lengths: L})
            for a, b in zip(got, want):
                np.testing.assert_allclose(a, b, rtol=2e-5, atol=1e-6)


def test_reverse_sequence_and_bidirectional_rnn_with_sequence_lengths():
    rng = np.random.RandomState(6)
    X = rng.randn(3, 4, 2).astype(np.float32)
    L = np.array([4, 2, 0], np.int32)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, None, 2])
        lengths = tf.placeholder(tf.int32, [None])
        flipped = tf.reverse_sequence(x, lengths, seq_axis=1, batch_axis=0)
        with tf.variable_scope("bi"):
            (fw, bw), (s_fw, s_bw) = tf.nn.bidirectional_dynamic_rnn(
                tf.nn.rnn_cell.GRUCell(3), tf.nn.rnn_cell.GRUCell(3), x,
                sequence_length=lengths, dtype=tf.float32)
        grad = tf.gradients(tf.reduce_sum(bw ** 2), x)[0]
        one = tf.placeholder(tf.float32, [1, None, 2])
        with tf.variable_scope("bi/bidirectional_rnn", reuse=True):   # the same bw cell
            alone, _ = tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(3), one, dtype=tf.float32,
                                         scope="bw")
        feed = {x: X, lengths: L}
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            f, b, g = sess.run([flipped, bw, grad], feed)
            want = np.zeros_like(b)
            for row, n in enumerate(L):
                if n:
                    out = sess.run(alone, {one: X[row:row + 1, :n][:, ::-1]})
                    want[row, :n] = out[0, ::-1]
            numeric = central_difference(
                lambda v: float(np.sum(sess.run(bw, {x: v.reshape(X.shape).astype(np.float32),
                                                     lengths: L}) ** 2)),
                X.astype(np.float64).ravel(), eps=1e-2)
    expected = X.copy()
    for row, n in enumerate(L):
        expected[row, :n] = X[row, :n][::-1]
    np.testing.assert_array_equal(f, expected)
    np.testing.assert_allclose(b, want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(g.ravel(), numeric, rtol=2e-2, atol=2e-3)


@pytest.mark.parametrize("options, out_last, loss, grad_sums", [
    # TF 2.21, weights drawn from RandomState(10 + i) in trainable_variables() order
    (dict(num_proj=3, proj_clip=0.2),
     [[0.13961, 0.2, -0.2], [0.00502, -0.01145, -0.07158]], 0.42046,
     [22.8834, 10.1679, 1.6881]),
    (dict(use_peepholes=True, cell_clip=0.3, num_proj=2, forget_bias=0.5),
     [[-0.07282, -0.05696], [-0.06283, 0.04822]], -0.27654,
     [10.3358, 4.306, 0.0795, 0.158, 0.0364, 0.9831]),
])
def test_lstm_cell_peepholes_projection_and_clipping_as_tf(options, out_last, loss,
                                                            grad_sums):
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 4, 3])
        cell = tf.nn.rnn_cell.LSTMCell(5, **options)
        out, state = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
        total = tf.reduce_sum(tf.square(out)) + tf.reduce_sum(state.c)
        tv = tf.trainable_variables()
        names = [v.op.name.split("/", 2)[-1] for v in tv]
        assert names == ["kernel", "bias"] + (
            ["w_f_diag", "w_i_diag", "w_o_diag"] if "use_peepholes" in options else []) + [
            "projection/kernel"]
        assert (cell.output_size, tuple(cell.state_size)) == (options["num_proj"],
                                                              (5, options["num_proj"]))
        grads = tf.gradients(total, tv)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for i, v in enumerate(tv):
                draw = np.random.RandomState(10 + i).uniform(-0.8, 0.8, v.shape.as_list())
                sess.run(v.assign(draw.astype(np.float32)))
            xv = np.random.RandomState(1).randn(2, 4, 3).astype(np.float32)
            o, value, g = sess.run([out, total, grads], {x: xv})
    np.testing.assert_allclose(o[:, -1], out_last, atol=2e-5)
    assert value == pytest.approx(loss, abs=2e-5)
    np.testing.assert_allclose([np.abs(gg).sum() for gg in g], grad_sums, rtol=2e-4, atol=1e-4)


# TF 2.21's outputs of a GRU forward and a basic backward cell over rows of lengths
# 4, 2 and 0 (tests below): stacked outputs, both final states, d loss / d X.
_BIDI_OUTPUTS = [[[0.03582196, 0.03582196, -0.75181962, -0.43093202], [-0.0513715, -0.0513715, -0.21752619, -0.28429462], [0.0, 0.0, 0.0, 0.0]], [[0.14139579, 0.14139579, -0.75415854, -0.41188169], [0.07967413, 0.07967413, 0.88686366, 0.42115428], [0.0, 0.0, 0.0, 0.0]], [[-0.35880268, -0.35880268, -0.11383967, -0.68810415], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]], [[-0.02501102, -0.02501102, -0.98093218, 0.42004674], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]]]
_BIDI_STATE_FW = [[-0.02501102, -0.02501102], [0.07967413, 0.07967413], [0.0, 0.0]]
_BIDI_STATE_BW = [[-0.75181962, -0.43093202], [-0.21752619, -0.28429462], [0.0, 0.0]]
_BIDI_GRAD = [[[-0.06568548, 0.0852915, -0.05838705], [0.82316405, -0.15378903, -0.28346963], [0.52201372, -0.19839039, -0.38718709], [0.18374977, -0.0072838, 0.36242128]], [[0.5411173, 0.13197956, 0.07108181], [-0.15531266, 0.33403882, 0.56811413], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]]


def test_static_bidirectional_rnn_with_lengths_equals_tf():
    """TensorFlow-Examples' bidirectional_rnn.py idiom (tf.nn.static_bidirectional_rnn
    over tf.unstack), with sequence lengths and a GRUCell's kernel and bias
    initializers: outputs, states, gradient and variable names as TF 2.21 gives them."""
    import symgrad.compat.v1 as tf
    rng = np.random.RandomState(23)
    with tf.Graph().as_default():
        X = tf.placeholder(tf.float64, [3, 4, 3])
        L = tf.placeholder(tf.int32, [3])
        fw = tf.nn.rnn_cell.GRUCell(2, kernel_initializer=tf.constant_initializer(0.3),
                                    bias_initializer=tf.constant_initializer(0.1))
        bw = tf.nn.rnn_cell.BasicRNNCell(2)
        outs, sf, sb = tf.nn.static_bidirectional_rnn(fw, bw, tf.unstack(X, 4, 1),
                                                      dtype=tf.float64, sequence_length=L)
        loss = tf.reduce_sum(tf.stack(outs) ** 2) + tf.reduce_sum(sf) + tf.reduce_sum(sb ** 3)
        g = tf.gradients(loss, X)[0]
        Xd = rng.randn(3, 4, 3)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            bk = [v for v in tf.global_variables() if "bw" in v.name and "kernel" in v.name][0]
            bk.load(rng.randn(5, 2) * 0.5, sess)
            got = sess.run([tf.stack(outs), sf, sb, g], {X: Xd, L: [4, 2, 0]})
        names = sorted(v.name for v in tf.global_variables())
    for a, b in zip(got, [_BIDI_OUTPUTS, _BIDI_STATE_FW, _BIDI_STATE_BW, _BIDI_GRAD]):
        np.testing.assert_allclose(a, b, atol=2e-8)
    assert names == ["bidirectional_rnn/bw/basic_rnn_cell/bias:0",
                     "bidirectional_rnn/bw/basic_rnn_cell/kernel:0",
                     "bidirectional_rnn/fw/gru_cell/candidate/bias:0",
                     "bidirectional_rnn/fw/gru_cell/candidate/kernel:0",
                     "bidirectional_rnn/fw/gru_cell/gates/bias:0",
                     "bidirectional_rnn/fw/gru_cell/gates/kernel:0"]
