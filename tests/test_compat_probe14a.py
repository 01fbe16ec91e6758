"""What the fourteenth differential probe (a) found in TF1 research reference
implementations (google-research/bert's modeling.py and optimization.py, openai/gpt-2's
model.py and sample.py, Kyubyong's transformer, ibab's tensorflow-wavenet and the
like), written as those repositories write them at small sizes, against real
TensorFlow 2.21 (compat.v1, v2 behaviour disabled).  The numbers are TF 2.21's."""
import numpy as np
import pytest

import symgrad.compat.v1 as tf


def test_expand_dims_takes_a_list_of_one_axis_and_refuses_axes_out_of_range():
    # BERT's embedding_lookup: input_ids = tf.expand_dims(input_ids, axis=[-1])
    with tf.Graph().as_default():
        ids = tf.placeholder(tf.int32, [None, 6])
        assert tf.expand_dims(ids, axis=[-1]).get_shape().as_list() == [None, 6, 1]
        assert tf.expand_dims(ids, axis=np.array([1])).get_shape().as_list() == [None, 1, 6]
        assert tf.expand_dims(ids, (0,)).get_shape().as_list() == [1, None, 6]
        for bad in (3, -4, [0, 1], []):   # TF: "dim 3 not in the interval [-3, 2]"
            with pytest.raises(ValueError, match="axis"):
                tf.expand_dims(ids, axis=bad)


def test_slice_of_a_run_time_length_as_bert_takes_its_position_embeddings():
    # BERT's embedding_postprocessor with seq_length = tf.shape(input_ids)[1]:
    # tf.slice(full_position_embeddings, [0, 0], [seq_length, -1])
    with tf.Graph().as_default():
        x = tf.placeholder(tf.int32, [None, None])
        full = tf.get_variable("pe", [10, 4], initializer=tf.constant_initializer(
            np.arange(40).reshape(10, 4)))
        n = tf.shape(x)[1]
        s1 = tf.slice(full, [0, 0], [n, -1])
        s2 = tf.slice(full, [1, 1], [n, 2])
        assert s2.get_shape().as_list() == [None, 2]
        xs = tf.cast(tf.expand_dims(x, -1), tf.float32)
        loss = (tf.reduce_sum(tf.reshape(s1, [1, n, 4]) * xs) + tf.reduce_sum(s2 * 3.)
                + tf.reduce_sum(full[:n] * full[:n]) + tf.reduce_sum(full[2:n + 2, 1:]))
        grad = tf.gradients(loss, full)[0]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            fd = {x: np.ones((2, 3), np.int32)}
            v1, v2, g = sess.run([s1, s2, grad], fd)
            np.testing.assert_allclose(v1, [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]])
            np.testing.assert_allclose(v2, [[5, 6], [9, 10], [13, 14]])
            np.testing.assert_allclose(g, [[2, 4, 6, 8], [10, 15, 17, 16], [18, 24, 26, 25],
                                           [0, 4, 4, 1], [0, 1, 1, 1]] + [[0] * 4] * 5)
            # past the table's end TF raises rather than filling zeros
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=r"Expected size\[0\] in \[0, 10\], but got 12"):
                sess.run(s1, {x: np.ones((2, 12), np.int32)})
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=r"Expected size\[0\] in \[0, 9\], but got 12"):
                sess.run(s2, {x: np.ones((2, 12), np.int32)})


def test_slice_at_a_fed_begin_past_the_edge_raises_as_tf():
    with tf.Graph().as_default():
        b = tf.placeholder(tf.int32, [2])
        s = tf.slice(tf.constant(np.arange(40.).reshape(10, 4)), b, [3, 2])
        with tf.Session() as sess:
            assert sess.run(s, {b: [2, 1]}).tolist() == [[9, 10], [13, 14], [17, 18]]
            for begin, message in (([8, 0], r"size\[0\] in \[0, 2\], but got 3"),
                                   ([-1, 0], r"begin\[0\] in \[0, 10\], but got -1"),
                                   ([11, 0], r"begin\[0\] in \[0, 10\], but got 11")):
                with pytest.raises(tf.errors.InvalidArgumentError, match="Expected " + message):
                    sess.run(s, {b: begin})


def test_loop_vars_and_rows_inside_while_map_fn_and_scan_are_tf1_tensors():
    # GPT-2's sample_sequence body calls model(), whose shape_list reads
    # x.shape.as_list() of the loop var; symgrad's loop vars had plain tuple shapes
    with tf.Graph().as_default():
        x0 = tf.placeholder(tf.float32, [None, 3])
        seen = []

        def body(i, x):
            seen.append((x.shape.as_list(), x.get_shape().as_list(), x.shape[-1].value,
                         x.shape.ndims, i.shape.as_list()))
            return i + 1, x * 2.0

        _, x = tf.while_loop(lambda i, x: i < 3, body, [tf.constant(0), x0])

        def row(r):
            seen.append((r.shape.as_list(), r.shape[-1].value))
            return r * 2

        m = tf.map_fn(row, x0)

        def step(a, r):
            seen.append((a.shape.as_list(), r.shape.as_list()))
            return a + r

        s = tf.scan(step, x0, initializer=tf.zeros([3]))
        assert seen[0] == ([None, 3], [None, 3], 3, 2, [])
        assert ([3], 3) in seen and ([3], [3]) in seen
        with tf.Session() as sess:
            got = sess.run([x, m, s], {x0: np.ones((2, 3))})
        np.testing.assert_allclose(got[0], [[8, 8, 8], [8, 8, 8]])
        np.testing.assert_allclose(got[1], [[2, 2, 2], [2, 2, 2]])
        np.testing.assert_allclose(got[2], [[1, 1, 1], [2, 2, 2]])


def test_top_k_of_an_outer_tensor_inside_a_cond_branch():
    # GPT-2's top_k_logits: tf.cond(tf.equal(k, 0), lambda: logits, lambda: _top_k())
    # (symgrad's evaluator read top_k's shortcut from the outer tensor: KeyError)
    def top_k_logits(logits, k):
        def _top_k():
            values, _ = tf.nn.top_k(logits, k=k)
            min_values = values[:, -1, tf.newaxis]
            return tf.where(logits < min_values,
                            tf.ones_like(logits, dtype=logits.dtype) * -1e10, logits)
        return tf.cond(tf.equal(k, 0), lambda: logits, lambda: _top_k())

    with tf.Graph().as_default():
        lg = tf.constant([[1.0, 3.0, 2.0, 0.5, 2.5], [0., 1., 0., 1., 4.]])
        x = tf.placeholder(tf.float32, [None, 5])
        p = tf.placeholder(tf.bool, [])
        picked = tf.cond(p, lambda: x[:, :2], lambda: tf.nn.top_k(x, 2)[0])
        with tf.Session() as sess:
            np.testing.assert_allclose(sess.run(top_k_logits(lg, 2)),
                                       [[-1e10, 3.0, -1e10, -1e10, 2.5],
                                        [-1e10, 1.0, -1e10, 1.0, 4.0]])
            np.testing.assert_allclose(
                sess.run(picked, {p: False, x: [[1.0, 3.0, 2.0, 0.5, 2.5]]}), [[3.0, 2.5]])


def _kyubyong_key_mask(inputs, key_masks):
    # Kyubyong/transformer's modules.mask(type="key"), inputs of h*N rows
    padding_num = -2 ** 32 + 1
    key_masks = tf.to_float(key_masks)
    key_masks = tf.tile(key_masks, [tf.shape(inputs)[0] // tf.shape(key_masks)[0], 1])
    key_masks = tf.expand_dims(key_masks, 1)
    return inputs + key_masks * padding_num


def test_tile_by_a_quotient_of_run_time_sizes_as_kyubyongs_key_masks():
    # the encoder's self-attention ((2*N) // N: a size known now) and the decoder's
    # attention over the encoder's memory ((2*N_dec) // N_enc: known when values arrive)
    with tf.Graph().as_default():
        q = tf.placeholder(tf.float32, [None, None, 8])
        qd = tf.placeholder(tf.float32, [None, None, 8])
        xk = tf.placeholder(tf.int32, [None, None])
        Q_ = tf.concat(tf.split(q, 2, axis=2), axis=0)
        Qd_ = tf.concat(tf.split(qd, 2, axis=2), axis=0)
        src_masks = tf.math.equal(xk, 0)
        out = tf.nn.softmax(_kyubyong_key_mask(tf.matmul(Qd_, tf.transpose(Q_, [0, 2, 1])),
                                               src_masks))
        enc = tf.nn.softmax(_kyubyong_key_mask(tf.matmul(Q_, tf.transpose(Q_, [0, 2, 1])),
                                               src_masks))
        assert out.get_shape().as_list() == [None, None, None]
        grad = tf.gradients(tf.reduce_sum(out * out), q)[0]
        t2 = tf.tile(tf.to_float(xk), [tf.shape(Q_)[0] // tf.shape(xk)[0], 1])
        rs = np.random.RandomState(0)
        fd = {q: rs.uniform(-1, 1, (2, 3, 8)), qd: rs.uniform(-1, 1, (2, 2, 8)),
              xk: [[4, 5, 0], [7, 0, 0]]}
        with tf.Session() as sess:
            o, e, g, t = sess.run([out, enc, grad, t2], fd)
        np.testing.assert_allclose(o[1:3], [[[1, 0, 0], [1, 0, 0]],
                                            [[0.20525, 0.79475, 0], [0.42496, 0.57504, 0]]],
                                   atol=2e-5)
        np.testing.assert_allclose(e[:, :, 2], 0.0)
        np.testing.assert_allclose(g[0], [[-0.04565, 0.05874, 0.01106, 0.06358, -0.13782,
                                           0.21023, 0.08905, 0.18335],
                                          [0.04565, -0.05874, -0.01106, -0.06358, 0.13782,
                                           -0.21023, -0.08905, -0.18335], [0] * 8], atol=2e-5)
        np.testing.assert_allclose(t, [[4, 5, 0], [7, 0, 0], [4, 5, 0], [7, 0, 0]])


def _time_to_batch(value, dilation):
    # ibab/tensorflow-wavenet's ops.time_to_batch
    shape = tf.shape(value)
    pad_elements = dilation - 1 - (shape[1] + dilation - 1) % dilation
    padded = tf.pad(value, [[0, 0], [0, pad_elements], [0, 0]])
    reshaped = tf.reshape(padded, [-1, dilation, shape[2]])
    transposed = tf.transpose(reshaped, perm=[1, 0, 2])
    return tf.reshape(transposed, [shape[0] * dilation, -1, shape[2]])


def _causal_conv(value, filter_, dilation):
    filter_width = tf.shape(filter_)[0]
    transformed = _time_to_batch(value, dilation)
    conv = tf.nn.conv1d(transformed, filter_, stride=1, padding='VALID')
    shape = tf.shape(conv)
    prepared = tf.reshape(conv, [dilation, -1, shape[2]])
    transposed = tf.transpose(prepared, perm=[1, 0, 2])
    restored = tf.reshape(transposed, [tf.div(shape[0], dilation), -1, shape[2]])
    out_width = tf.shape(value)[1] - (filter_width - 1) * dilation
    return tf.slice(restored, [0, 0, 0], [-1, out_width, -1])


def test_pad_by_widths_computed_from_run_time_sizes_as_wavenets_time_to_batch():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, None, 1])
        xs = tf.placeholder(tf.float32, [2, 9, 2])
        f = tf.constant([[[1.0]], [[-2.0]], [[0.5]]])
        t = _time_to_batch(x, 3)
        cc = _causal_conv(x, f, 2)
        g = tf.gradients(tf.reduce_sum(cc * cc), x)[0]
        pad = tf.pad(x, [[0, 0], [0, 3 - 1 - (tf.shape(x)[1] + 2) % 3], [0, 0]])
        assert t.get_shape().as_list() == [None, None, 1]
        # a static length keeps a static shape (TF folds the remainder of 9 + 1 by 2)
        assert _time_to_batch(xs, 2).get_shape().as_list() == [4, 5, 2]
        xv = np.arange(1., 8.).reshape(1, 7, 1)
        with tf.Session() as sess:
            tv, cv, gv = sess.run([t, cc, g], {x: xv})
            np.testing.assert_allclose(tv[:, :, 0], [[1, 4, 7], [2, 5, 0], [3, 6, 0]])
            np.testing.assert_allclose(cv[:, :, 0], [[-2.5, -3, -3.5]])
            np.testing.assert_allclose(gv[:, :, 0], [[-5, -6, 3, 12, 11.5, -3, -3.5]])
            np.testing.assert_allclose(sess.run(pad, {x: xv[:, :5]})[:, :, 0],
                                       [[1, 2, 3, 4, 5, 0]])


def test_slice_to_the_end_from_a_start_computed_at_run_time_as_wavenets_skip_cut():
    # WaveNet's _create_dilation_layer: skip_cut = tf.shape(out)[1] - output_width;
    # tf.slice(out, [0, skip_cut, 0], [-1, -1, -1])
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, None, 2])
        w = tf.placeholder(tf.int32, [])
        s = tf.slice(x, [0, tf.shape(x)[1] - w, 0], [-1, -1, -1])
        assert s.get_shape().as_list() == [None, None, 2]
        g = tf.gradients(tf.reduce_sum(s * s * tf.constant([1., 2.])), x)[0]
        xv = np.arange(12.).reshape(1, 6, 2)
        with tf.Session() as sess:
            got, grad = sess.run([s, g], {x: xv, w: 2})
            np.testing.assert_allclose(got, [[[8, 9], [10, 11]]])
            np.testing.assert_allclose(grad, [[[0, 0]] * 4 + [[16, 36], [20, 44]]])
            assert sess.run(s, {x: xv, w: 0}).shape == (1, 0, 2)
            for width, message in ((7, "got -1"), (-1, "got 7")):
                with pytest.raises(tf.errors.InvalidArgumentError,
                                   match=r"Expected begin\[1\] in \[0, 6\], but " + message):
                    sess.run(s, {x: xv, w: width})
        # a whole computed begin: the cookbook's form with a size of -1 (was refused)
        v = tf.Variable(np.arange(12, dtype=np.float32).reshape(3, 4))
        i = tf.placeholder(tf.int32, [2])
        rest = tf.slice(v, i, [2, -1])
        assert rest.shape.as_list() == [2, None]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            np.testing.assert_array_equal(sess.run(rest, {i: [1, 1]}), [[5, 6, 7], [9, 10, 11]])


def test_a_variables_shape_may_be_one_int_as_the_ntm_writes_it():
    # MarkPKCollier's NTM: tf.get_variable('init_state', self.rnn_size, initializer=...)
    with tf.Graph().as_default():
        assert tf.get_variable("a", 5, initializer=tf.zeros_initializer()).get_shape().as_list() \
            == [5]
        b = tf.get_variable("b", np.int64(3), initializer=tf.constant_initializer(2.0))
        assert tf.get_variable("c", 4).get_shape().as_list() == [4]
        assert tf.Variable(tf.ones_initializer()(shape=2), name="e").get_shape().as_list() == [2]
        with pytest.raises(ValueError, match="Dimension -1 must be >= 0"):
            tf.get_variable("f", -1)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            np.testing.assert_array_equal(sess.run(b), [2.0, 2.0, 2.0])


def test_range_takes_the_widest_type_of_its_arguments_casting_tensors_as_tf():
    # Transformer-XL: pos_seq = tf.range(klen - 1, -1, -1.0) with klen = mlen + qlen an
    # int32 tensor (symgrad: "Expected int32, but got -1.0 of type 'float'")
    with tf.Graph().as_default():
        k = tf.placeholder(tf.int32, [])
        a = tf.range(k - 1, -1, -1.0)
        g = tf.range(tf.constant(2, tf.int64), 7)
        h = tf.range(0, tf.constant(3.0, tf.float64), 0.5)
        assert (a.dtype.name, g.dtype.name, h.dtype.name) == ("float32", "int64", "float64")
        assert tf.range(3).dtype.name == "int32" and tf.range(1.5).dtype.name == "float32"
        with tf.Session() as sess:
            av, gv, hv = sess.run([a, g, h], {k: 4})
        np.testing.assert_array_equal(av, [3, 2, 1, 0])
        np.testing.assert_array_equal(gv, [2, 3, 4, 5, 6])
        np.testing.assert_array_equal(hv, [0, 0.5, 1, 1.5, 2, 2.5])


def test_sharing_a_variable_checks_its_dtype_as_tf():
    # Glow's LU-decomposed invertible 1x1 conv makes tf.get_variable("P", initializer=np_p)
    # of float64 numbers; asking for it again under reuse (dtype: the scope's float32)
    # is TF's ValueError, where symgrad handed the float64 variable back
    with tf.Graph().as_default():
        with tf.variable_scope("s"):
            tf.get_variable("P", initializer=np.eye(2))
            tf.get_variable("Q", [2], dtype=tf.int32, initializer=tf.zeros_initializer())
            tf.get_variable("R", [2])
        with tf.variable_scope("s", reuse=True):
            for name, dtype, message in (("P", None, "specified dtype float32 and found dtype "
                                                     "float64"),
                                         ("Q", None, "specified dtype float32 and found dtype "
                                                     "int32"),
                                         ("R", tf.float64, "specified dtype float64 and found "
                                                           "dtype float32")):
                with pytest.raises(ValueError, match=f"Trying to share variable s/{name}, but "
                                                     + message):
                    tf.get_variable(name, dtype=dtype)
            assert tf.get_variable("P", dtype=tf.float64).name == "s/P:0"
            assert tf.get_variable("Q", [2], dtype=tf.int32).name == "s/Q:0"
            assert tf.get_variable("R").name == "s/R:0"
        with tf.variable_scope("s", reuse=True, dtype=tf.float64):
            assert tf.get_variable("P").name == "s/P:0"


def test_an_axis_given_as_a_tensor_known_when_the_graph_is_built():
    # tf.reduce_sum(x, axis=tf.range(1, tf.rank(x))) (sum over all but the batch axis),
    # tf.concat(xs, axis=tf.rank(x) - 1), tf.constant axes: symgrad refused every one
    # ("axis must be an int or a list of ints, not tensor")
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3, 4])
        got = [tf.reduce_sum(x, axis=tf.range(1, tf.rank(x))),
               tf.reduce_sum(x, axis=tf.constant(1)),
               tf.concat([x, x], axis=tf.rank(x) - 1),
               tf.argmax(x, axis=tf.constant(2)),
               tf.reduce_mean(x, axis=tf.constant([1, 2])),
               tf.nn.softmax(x, axis=tf.constant(1))]
        assert [t.get_shape().as_list() for t in got] == [[None], [None, 4], [None, 3, 8],
                                                          [None, 3], [None], [None, 3, 4]]
        with tf.Session() as sess:
            vals = sess.run(got, {x: np.arange(24.).reshape(2, 3, 4)})
        expect = [[66, 210], [12, 15, 18, 21], [0, 1, 2, 3], [3, 3, 3, 3], [5.5, 17.5],
                  [0.00033, 0.00033, 0.00033, 0.00033]]
        for v, e in zip(vals, expect):
            np.testing.assert_allclose(v.reshape(-1)[:4], e, atol=1e-5)


def test_sizes_read_off_an_outer_tensor_inside_a_cond_branch():
    # the object detection API's argmax matcher: inside tf.cond's branch,
    # tf.one_hot(ids, depth=tf.shape(similarity_matrix)[1]) of a [None, 5] matrix (the
    # constant 5 was made in the outer graph, captured, and no longer known)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 5])

        def non_empty():
            s = tf.shape(x)
            return tf.one_hot(tf.argmax(x, 1, output_type=tf.int32), depth=s[1])

        m = tf.cond(tf.greater(tf.shape(x)[0], 0), non_empty,
                    lambda: tf.zeros([tf.shape(x)[0], 5]))
        assert m.get_shape().as_list() == [None, 5]
        z = tf.placeholder(tf.float32, [2, 3])
        y = tf.placeholder(tf.float32, [6])
        p = tf.placeholder(tf.bool, [])
        r = tf.cond(p, lambda: tf.reshape(y, tf.shape(z)), lambda: tf.zeros(tf.shape(z)))
        assert r.get_shape().as_list() == [2, 3]
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(m, {x: [[0, 3, 1, 0, 0], [5, 0, 0, 0, 9]]}),
                                          [[0, 1, 0, 0, 0], [0, 0, 0, 0, 1]])
            np.testing.assert_array_equal(sess.run(r, {p: True, y: np.arange(6.)}),
                                          [[0, 1, 2], [3, 4, 5]])


def test_gcn_sparse_dropout_pieces():
    # tkipf/gcn: features = tf.sparse_placeholder(tf.float32, shape=tf.constant(shape,
    # dtype=tf.int64)); sparse_dropout: random_tensor += tf.random_uniform(noise_shape)
    # with noise_shape = tf.placeholder(tf.int32) fed (nnz,); tf.sparse_retain(x, mask);
    # pre_out * (1. / keep_prob).  symgrad raised at each step.
    with tf.Graph().as_default():
        sp_ph = tf.sparse_placeholder(tf.float32, shape=tf.constant([3, 4], dtype=tf.int64))
        assert sp_ph.get_shape().as_list() == [3, 4]
        keep = tf.placeholder(tf.bool, [None])
        kept = tf.sparse_retain(sp_ph, keep) * (1. / tf.constant(0.5))
        scaled = sp_ph * tf.constant([1., 2., 3., 4.])
        halved = sp_ph / 2.0
        prod = tf.sparse_tensor_dense_matmul(kept, tf.constant(np.arange(8.).reshape(4, 2),
                                                               dtype=tf.float32))
        n = tf.placeholder(tf.int32)
        count = tf.reduce_sum(tf.ones_like(tf.random_uniform(n)))
        feed = {sp_ph: (np.array([[0, 1], [1, 2], [2, 3]]), np.array([1., 2., 3.]), (3, 4)),
                keep: [True, False, True], n: (2, 3)}
        with tf.Session() as sess:
            a, b, c, d, e = sess.run([kept, scaled, halved, prod, count], feed)
        np.testing.assert_array_equal(a.indices, [[0, 1], [2, 3]])
        np.testing.assert_array_equal(a.values, [2, 6])
        np.testing.assert_array_equal(a.dense_shape, [3, 4])
        np.testing.assert_array_equal(b.values, [2, 6, 12])
        np.testing.assert_array_equal(c.values, [0.5, 1, 1.5])
        np.testing.assert_array_equal(d, [[4, 6], [0, 0], [36, 42]])
        assert e == 6.0


def test_gradients_of_an_outer_variable_inside_map_fn_over_shapeless_placeholders():
    # cbfinn/maml: tf.map_fn(task_metalearn, elems=(inputa, inputb, labela, labelb)) over
    # tf.placeholder(tf.float32) inputs; the body takes tf.gradients(task_lossa, weights)
    # of the outer weights (symgrad gave None: the body reads them through stand-ins)
    with tf.Graph().as_default():
        w = tf.Variable([[0.5], [-1.0]])
        xa, ya = tf.placeholder(tf.float32), tf.placeholder(tf.float32)

        def task(inp):
            x, y = inp
            loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - y))
            fast = w - 0.1 * tf.gradients(loss, [w])[0]
            return tf.reduce_mean(tf.square(tf.matmul(x, fast) - y))

        losses = tf.map_fn(task, elems=(xa, ya), dtype=tf.float32)
        meta_grad = tf.gradients(tf.reduce_sum(losses), w)[0]
        fd = {xa: np.arange(12.).reshape(2, 3, 2) / 10, ya: np.ones((2, 3, 1))}
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got, grad = sess.run([losses, meta_grad], fd)
        np.testing.assert_allclose(got, [1.366721749305725, 1.1245957612991333], rtol=1e-5)
        np.testing.assert_allclose(grad, [[-1.6528615951538086], [-2.030698537826538]],
                                   rtol=1e-5)
