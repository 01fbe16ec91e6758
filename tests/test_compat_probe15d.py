"""What the fifteenth differential probe (d) found in TF1 text and recommender
programs -- Britz's CNN for sentence classification, char-RNNs, seq2seq with
attention written by hand, bags of embeddings (embedding_lookup_sparse, segment means),
language models with sampled softmax, matrix factorisation, NCF, factorisation
machines, DeepFM and Wide & Deep written with raw ops, BPR with top_k lists,
tf.metrics with local variables -- against real TensorFlow 2.21 (compat.v1, v2
behaviour disabled).  The numbers are TF 2.21's."""
import numpy as np
import pytest

import symgrad.compat.v1 as tf

X4 = np.arange(8.).reshape(4, 2)
TF_GRU_STATE = [[0.22568199038505554, 0.05523728206753731, 0.339311808347702]]
TF_GRU_GRAD = [
    [0.002644679043442011, -0.0034613178577274084, 0.00671534426510334, -0.23592600226402283,
     -0.3225337266921997, -0.1781875342130661],
    [0.002644679043442011, -0.0034613178577274084, 0.00671534426510334, -0.23592600226402283,
     -0.3225337266921997, -0.1781875342130661],
    [0.0013797018909826875, -0.002606697380542755, 0.004037301987409592, -0.01698770746588707,
     -0.03928259387612343, -0.002124449238181114],
    [-0.002606697380542755, 0.005085408221930265, -0.007734768558293581, 0.012557972222566605,
     0.05062829703092575, -0.012822244316339493],
    [0.004037301521748304, -0.007734768092632294, 0.011885348707437515, -0.03668483346700668,
     -0.09922319650650024, 0.005007412284612656]]


def test_segment_sums_and_means_over_fed_ids():
    # a bag of words pooled with tf.segment_mean(tf.gather(emb, word_ids), row_ids), both
    # fed: symgrad refused ids not known when the graph is built; TF sizes the result
    # by the last id + 1
    with tf.Graph().as_default():
        x, ids = tf.placeholder(tf.float32, [None, 2]), tf.placeholder(tf.int32, [None])
        sm, ss, sx = tf.segment_mean(x, ids), tf.segment_sum(x, ids), tf.segment_max(x, ids)
        sp = tf.segment_prod(x, ids)
        g = tf.gradients(tf.reduce_sum(sm * sm) + tf.reduce_sum(sx * ss), x)[0]
        assert sm.shape.as_list() == [None, 2]
        with tf.Session() as sess:
            out = sess.run([sm, ss, sx, sp, g], {x: X4, ids: [0, 0, 2, 2]})
            empty = sess.run([sm, sx], {x: X4[:0], ids: []})
    np.testing.assert_allclose(out[0], [[1, 2], [0, 0], [5, 6]])
    np.testing.assert_allclose(out[1], [[2, 4], [0, 0], [10, 12]])
    np.testing.assert_allclose(out[2], [[2, 3], [0, 0], [6, 7]])
    np.testing.assert_allclose(out[3], [[0, 3], [1, 1], [24, 35]])
    np.testing.assert_allclose(out[4], [[3, 5], [5, 9], [11, 13], [21, 25]])
    assert empty[0].shape == (0, 2) and empty[1].shape == (0, 2)


@pytest.mark.parametrize("ids, message", [
    ([0, 2, 0, 4], "segment ids are not increasing"),
    ([0, 2, 1, 1], "segment ids are not increasing"),
    ([0, 0, -1, 1], "segment ids are not increasing"),
    ([-1, 0, 0, 1], "Segment id -1 out of range [0, 2), possibly because 'segment_ids' "
                    "input is not sorted."),
    ([0, 0, 0, -1], "segment ids must be >= 0")])
def test_unsorted_fed_segment_ids_are_tfs_invalid_argument_error(ids, message):
    with tf.Graph().as_default():
        x, i = tf.placeholder(tf.float32, [None, 2]), tf.placeholder(tf.int32, [None])
        with tf.Session() as sess:
            for op in (tf.segment_sum, tf.segment_mean, tf.segment_max, tf.segment_prod):
                with pytest.raises(tf.errors.InvalidArgumentError) as e:
                    sess.run(op(x, i), {x: X4, i: ids})
                assert e.value.message.splitlines()[0] == message


def test_unsorted_segment_ops_with_a_run_time_number_of_segments():
    # graph networks and recommenders: tf.unsorted_segment_sum(msgs, receivers,
    # tf.shape(nodes)[0]) or num_segments=tf.reduce_max(ids) + 1; symgrad refused both
    with tf.Graph().as_default():
        x, ids = tf.placeholder(tf.float32, [None, 2]), tf.placeholder(tf.int32, [None])
        s = tf.unsorted_segment_sum(x, ids, tf.shape(x)[0])
        s2 = tf.unsorted_segment_sum(x, ids, tf.reduce_max(ids) + 1)
        m = tf.unsorted_segment_max(x, ids, tf.shape(x)[0])
        g = tf.gradients(tf.reduce_sum(s2 * s2), x)[0]
        gm = tf.gradients(tf.reduce_sum(m * m), x)[0]
        with tf.Session() as sess:
            out = sess.run([s, s2, g, m, gm], {x: X4, ids: [0, 2, 0, 1]})
            with pytest.raises(tf.errors.InvalidArgumentError, match=r"segment_ids\[3\] = 4 "
                               r"is out of range \[0, 4\)"):
                sess.run(s, {x: X4, ids: [0, 2, 0, 4]})
            with pytest.raises(tf.errors.InvalidArgumentError, match=r"= 4 is out of range"):
                sess.run(m, {x: X4, ids: [0, 2, 0, 4]})
    np.testing.assert_allclose(out[0], [[4, 6], [6, 7], [2, 3], [0, 0]])
    np.testing.assert_allclose(out[1], [[4, 6], [6, 7], [2, 3]])
    np.testing.assert_allclose(out[2], [[8, 12], [4, 6], [8, 12], [12, 14]])
    np.testing.assert_allclose(out[3], [[4, 5], [6, 7], [2, 3], [-3.4028235e+38] * 2])
    np.testing.assert_allclose(out[4], [[0, 0], [4, 6], [8, 10], [12, 14]])


def test_embedding_lookup_sparse_gives_indexed_slices_to_a_sparse_optimizer():
    # with tf.sparse_placeholder(tf.int64) (no shape) the table's gradient was dense, so
    # Momentum moved rows no id named on the second step (TF's sparse kernel does not)
    with tf.Graph().as_default():
        rng = np.random.RandomState(4)
        emb = tf.Variable(rng.randn(6, 3).astype(np.float32))
        sp_ids = tf.sparse_placeholder(tf.int64)
        h = tf.nn.embedding_lookup_sparse(emb, sp_ids, None, combiner="mean")
        loss = tf.reduce_sum(h * h)
        assert isinstance(tf.gradients(loss, emb)[0], tf.IndexedSlices)
        train = tf.train.MomentumOptimizer(0.1, 0.9).minimize(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(train, {sp_ids: tf.SparseTensorValue([[0, 0], [0, 1], [1, 0]],
                                                          [1, 2, 4], [2, 2])})
            sess.run(train, {sp_ids: tf.SparseTensorValue([[0, 0], [1, 0]], [3, 3], [2, 2])})
            got = sess.run(emb)
    np.testing.assert_allclose(got, [[0.05056171, 0.49995133, -0.9959089],
                                     [0.6913039, -0.4273152, -1.5219609],
                                     [-0.65000135, 0.58956146, 0.3948664],
                                     [-0.688486, 0.3712018, -0.05279216],
                                     [0.3400579, 0.26580253, -0.925453],
                                     [0.35099715, -0.6068873, 1.5469793]], rtol=1e-5)


def test_sparse_tensor_built_from_three_placeholders():
    # Wide & Deep's wide part: tf.SparseTensor(idx_ph, val_ph, shape_ph) fed per batch;
    # symgrad required the dense shape when the graph is built
    with tf.Graph().as_default():
        idx = tf.placeholder(tf.int64, [None, 2])
        val, shp = tf.placeholder(tf.float32, [None]), tf.placeholder(tf.int64, [2])
        sp = tf.SparseTensor(idx, val, shp)
        w = tf.Variable([[1.], [2.], [3.], [4.]])
        y = tf.sparse_tensor_dense_matmul(sp, w)
        g = tf.gradients(tf.reduce_sum(y * y), [w, val])
        assert sp.shape.as_list() == [None, None] and y.shape.as_list() == [None, 1]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out = sess.run([y, tf.sparse_tensor_to_dense(sp)] + g, {
                idx: [[0, 1], [0, 3], [2, 0], [2, 3]], val: [1., 2., 3., 0.5], shp: [3, 4]})
    np.testing.assert_allclose(out[0], [[10.], [0.], [5.]])
    np.testing.assert_allclose(out[1], [[0, 1, 0, 2], [0, 0, 0, 0], [3, 0, 0, 0.5]])
    np.testing.assert_allclose(out[2], [[30.], [20.], [0.], [45.]])
    np.testing.assert_allclose(out[3], [40., 80., 10., 40.])


def test_pr_auc_with_careful_interpolation():
    # tf.metrics.auc(curve='PR', summation_method='careful_interpolation'), which the
    # recommender evaluations use; symgrad refused it (for ROC TF sums trapezoids)
    with tf.Graph().as_default():
        labels, preds = tf.placeholder(tf.float32, [None]), tf.placeholder(tf.float32, [None])
        pr, pr_up = tf.metrics.auc(labels, preds, curve="PR", num_thresholds=7,
                                   summation_method="careful_interpolation")
        pr2, pr2_up = tf.metrics.auc(labels, preds, curve="PR",
                                     summation_method="careful_interpolation")
        roc, roc_up = tf.metrics.auc(labels, preds, num_thresholds=7,
                                     summation_method="careful_interpolation")
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            sess.run([pr_up, pr2_up, roc_up], {labels: [0., 1., 1., 0., 1.],
                                               preds: [0.1, 0.8, 0.3, 0.45, 0.2]})
            sess.run([pr_up, pr2_up, roc_up], {labels: [1., 0., 1.], preds: [0.9, 0.6, 0.55]})
            got = sess.run([pr, pr2, roc])
    np.testing.assert_allclose(got, [0.8347257971763611, 0.8078746795654297,
                                     0.6999998092651367], rtol=1e-6)


def test_metrics_at_k_with_labels_fed_as_none_by_none():
    # held-out items per user fed as tf.placeholder(tf.int64, [None, None]); symgrad
    # needed the number of labels when the graph is built
    with tf.Graph().as_default():
        lbl = tf.placeholder(tf.int64, [None, None])
        scores = tf.placeholder(tf.float32, [None, 5])
        p, p_op = tf.metrics.precision_at_k(lbl, scores, 2)
        r, r_op = tf.metrics.recall_at_k(lbl, scores, 2)
        ap, ap_op = tf.metrics.average_precision_at_k(lbl, scores, 3)
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            sess.run([p_op, r_op, ap_op], {
                lbl: [[1, 3], [0, 0], [4, 2]],
                scores: [[.1, .9, .2, .8, 0], [.5, .1, .2, .3, .4], [0, .1, .2, .3, .4]]})
            sess.run([p_op, r_op, ap_op], {lbl: [[2, 3, 4]], scores: [[.5, .4, .3, .2, .1]]})
            got = sess.run([p, r, ap])
    np.testing.assert_allclose(got, [0.5, 0.5, 0.611111111111111], rtol=1e-12)


def test_mean_tensor_of_a_batch_of_unknown_size_is_tfs_value_error():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=r"Cannot convert a partially known TensorShape "
                                             r"\(\?, 8\) to a Tensor"):
            tf.metrics.mean_tensor(tf.placeholder(tf.float32, [None, 8]))


def test_matmul_of_lists_of_tensors_packs_them():
    # xDeepFM's CIN: tf.matmul(tf.split(x0, k, 2), tf.split(xl, k, 2), transpose_b=True);
    # TF packs each list into one tensor, symgrad refused the lists
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3, 2])
        s = tf.split(x, 2, 2)
        d = tf.matmul(s, s, transpose_b=True)
        g = tf.gradients(tf.reduce_sum(d * d), x)[0]
        assert d.shape.as_list() == [2, None, 3, 3]
        with tf.Session() as sess:
            got_d, got_g = sess.run([d, g], {x: np.arange(12.).reshape(2, 3, 2) / 10})
    np.testing.assert_allclose(got_d[1, 0], [[0.01, 0.03, 0.05], [0.03, 0.09, 0.15],
                                             [0.05, 0.15, 0.25]], rtol=1e-6)
    np.testing.assert_allclose(got_g, [[[0., 0.14], [0.16000001, 0.42000002],
                                        [0.32000002, 0.70000005]],
                                       [[4.8, 7.028], [6.4000006, 9.036], [8., 11.044]]],
                               rtol=1e-6)


def test_embedding_lookup_with_max_norm():
    # tf.nn.embedding_lookup(table, ids, max_norm=1.0) (recommenders keep embeddings in
    # the unit ball): each looked-up row scaled to norm 1 where longer; symgrad refused it
    with tf.Graph().as_default():
        table = tf.Variable([[3., 4.], [0.3, 0.4], [1., 0.], [6., 8.]])
        ids = tf.placeholder(tf.int32, [None, None])
        e = tf.nn.embedding_lookup(table, ids, max_norm=1.0)
        g = tf.gradients(tf.reduce_sum(e * [[1., 2.]]), table)[0]
        assert isinstance(g, tf.IndexedSlices)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got_e, got_g = sess.run([e, tf.convert_to_tensor(g)], {ids: [[0, 1], [3, 3]]})
    np.testing.assert_allclose(got_e, [[[0.6, 0.8], [0.3, 0.4]], [[0.6, 0.8], [0.6, 0.8]]],
                               rtol=1e-6)
    np.testing.assert_allclose(got_g, [[-0.064, 0.048], [1., 2.], [0., 0.], [-0.064, 0.048]],
                               rtol=1e-5)


def test_sparse_segment_means_over_fed_segment_ids():
    # tf.sparse_segment_mean(table, word_ids, row_ids) with both fed and no num_segments;
    # symgrad asked for num_segments
    with tf.Graph().as_default():
        table = tf.Variable([[3., 4.], [0.3, 0.4], [1., 0.], [6., 8.]])
        data_ids, seg = tf.placeholder(tf.int32, [None]), tf.placeholder(tf.int32, [None])
        m = tf.sparse_segment_mean(table, data_ids, seg)
        s = tf.sparse_segment_sqrt_n(table, data_ids, seg)
        g = tf.gradients(tf.reduce_sum(m * s), table)[0]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got = sess.run([m, s, g], {data_ids: [0, 3, 3, 1, 2], seg: [0, 0, 2, 2, 2]})
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match="segment ids are not increasing"):
                sess.run(m, {data_ids: [0, 3, 1], seg: [1, 0, 2]})
    np.testing.assert_allclose(got[0], [[4.5, 6.0], [0.0, 0.0], [2.433333396911621, 2.8]],
                               rtol=1e-6)
    np.testing.assert_allclose(got[1], [[6.3639607429504395, 8.485280990600586], [0.0, 0.0],
                                        [4.214656829833984, 4.8497419357299805]], rtol=1e-6)
    np.testing.assert_allclose(got[2], [[6.3639607429504395, 8.485280990600586],
                                        [2.8097712993621826, 3.233161449432373],
                                        [2.8097712993621826, 3.233161449432373],
                                        [9.173731803894043, 11.718442916870117]], rtol=1e-6)


def test_variables_made_inside_a_loop_body_or_branch_are_the_graphs():
    # a decoder cell first called inside a hand-written greedy tf.while_loop: TF lifts
    # its weights out of the loop (tf.global_variables() lists them, gradients reach
    # them); symgrad kept them in the body's graph, so trainable_variables() missed them,
    # and a body traced twice (a TensorArray of logits) raised a GraphError
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [])

        def body(t, acc):
            v = tf.get_variable("v", [], initializer=tf.constant_initializer(2.0))
            return t + 1, acc * v
        t, acc = tf.while_loop(lambda t, a: t < 3, body, [0, x])

        def branch():
            return x * tf.get_variable("w", [], initializer=tf.ones_initializer())
        c = tf.cond(x > 0, branch, lambda: x)
        assert [v.name for v in tf.trainable_variables()] == ["v:0", "w:0"]
        g = tf.gradients(acc + c, tf.trainable_variables())
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run([acc, c] + g, {x: 1.5}) == [12.0, 1.5, 18.0, 1.5]


def test_gru_cell_first_called_in_a_greedy_decoding_loop():
    with tf.Graph().as_default():
        s0 = tf.placeholder(tf.float32, [None, 3])
        cell = tf.nn.rnn_cell.GRUCell(3, kernel_initializer=tf.constant_initializer(0.3))
        ta0 = tf.TensorArray(tf.float32, size=3, element_shape=[None, 3])

        def body(t, state, ta):
            with tf.variable_scope("dec", reuse=tf.AUTO_REUSE):
                o, new = cell(tf.ones([tf.shape(state)[0], 2]) * tf.cast(t, tf.float32), state)
            return t + 1, new, ta.write(t, o)
        _, st, ta = tf.while_loop(lambda t, s, a: t < 3, body, [tf.constant(0), s0, ta0])
        assert [v.name for v in tf.global_variables()] == [
            "dec/gru_cell/gates/kernel:0", "dec/gru_cell/gates/bias:0",
            "dec/gru_cell/candidate/kernel:0", "dec/gru_cell/candidate/bias:0"]
        g = tf.gradients(tf.reduce_sum(ta.stack()), tf.trainable_variables()[0])[0]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got, got_g = sess.run([st, g], {s0: [[0.1, -0.2, 0.3]]})
    np.testing.assert_allclose(got, TF_GRU_STATE, rtol=1e-5)
    np.testing.assert_allclose(got_g, TF_GRU_GRAD, rtol=1e-4)


def test_dynamic_rnn_over_sentences_of_fed_documents():
    # a hierarchical attention network reads [docs, sentences, words] as one batch of
    # docs * sentences sentences, tf.reshape(x, [shp[0] * shp[1], shp[2], e]); inside the
    # loop that size was known only as a product whose factors the body is not fed
    # (symgrad: FeedError "depends on the unknown size(s) n_..."); TF runs it
    with tf.Graph().as_default():
        docs = tf.placeholder(tf.float32, [None, None, None])
        lengths = tf.placeholder(tf.int32, [None, None])
        shp = tf.shape(docs)
        words = tf.reshape(docs, [shp[0] * shp[1], shp[2], 1])
        with tf.variable_scope("word", initializer=tf.constant_initializer(0.2)):
            out, st = tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(2), words, dtype=tf.float32,
                                        sequence_length=tf.reshape(lengths, [-1]))
        g = tf.gradients(tf.reduce_sum(st), docs)[0]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            o, s, got_g = sess.run([out, st, g], {docs: np.arange(24.).reshape(2, 3, 4) / 24,
                                                  lengths: [[4, 2, 1], [3, 3, 0]]})
    assert o.shape == (6, 4, 2)
    np.testing.assert_allclose(s[:, 0], [0.011662835255265236, 0.017975252121686935,
                                         0.01704392209649086, 0.06735625863075256,
                                         0.08568428456783295, 0.0], rtol=1e-5)
    np.testing.assert_allclose(got_g[0], [
        [0.05746476724743843, 0.07004479318857193, 0.08531764894723892, 0.10380417853593826],
        [0.08325731754302979, 0.10119660198688507, 0.0, 0.0],
        [0.09688914567232132, 0.0, 0.0, 0.0]], rtol=1e-5, atol=1e-7)


def test_mistakes_tf_refuses_when_the_graph_is_built():
    # each ran under symgrad (or raised an IndexError/TypeError TF does not)
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Shape must be rank 2 but is rank 1"):
            tf.nn.sampled_softmax_loss(tf.ones([5, 2]), tf.zeros([5]),
                                       tf.constant([1, 2], tf.int64), tf.ones([2, 2]), 2, 5)
        with pytest.raises(ValueError, match="must be non-negative but is -1"):
            tf.one_hot([1], -1)
        with pytest.raises(TypeError, match="should be a sequence of tensors"):
            tf.clip_by_global_norm(tf.ones([2]), 1.0)
        with pytest.raises(TypeError, match="DataType int32 not in list of allowed values"):
            tf.nn.l2_loss(tf.constant([1, 2]))
        with pytest.raises(ValueError, match="axis 2 is out of range"):
            tf.gather(tf.ones([2, 2]), [0], axis=2)


def test_feeding_a_ragged_list_is_tfs_value_error():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 4])
        with tf.Session() as sess:
            with pytest.raises(ValueError, match="inhomogeneous"):
                sess.run(x * 2, {x: [[1, 2, 3, 4], [1, 2]]})


def test_seeded_initializers_draw_each_part_of_a_partitioned_table():
    # a sharded embedding table (tf.fixed_size_partitioner) with a seeded initializer:
    # TF draws each part by its own op with that seed (so every part starts with the
    # same numbers), glorot scaled by the whole table's fans; symgrad drew the whole
    # table once and sliced it
    with tf.Graph().as_default():
        with tf.variable_scope("n", partitioner=tf.fixed_size_partitioner(3)):
            normal = tf.get_variable("t", [7, 4],
                                     initializer=tf.random_normal_initializer(0., 0.5, seed=3))
        with tf.variable_scope("g", partitioner=tf.fixed_size_partitioner(3)):
            glorot = tf.get_variable("t", [7, 4],
                                     initializer=tf.glorot_uniform_initializer(seed=6))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got_n, got_g = sess.run([tf.convert_to_tensor(normal), tf.convert_to_tensor(glorot)])
    first = [0.5308300256729126, -0.43928998708724976, 0.05593999847769737, 0.09256000071763992]
    np.testing.assert_allclose(got_n[[0, 3, 5]], [first] * 3, atol=1e-5)
    np.testing.assert_allclose(got_n[6], [0.4546099901199341, -0.36893999576568604,
                                              0.15007999539375305, 0.8714399933815002],
                               atol=1e-5)
    np.testing.assert_allclose(got_g[3], [0.21166999638080597, -0.5562599897384644,
                                          0.5828700065612793, -0.5283600091934204], atol=1e-5)
    np.testing.assert_allclose(got_g[6], [-0.6503999829292297, 0.06703999638557434,
                                          -0.4787200093269348, 0.6326000094413757], atol=1e-5)
