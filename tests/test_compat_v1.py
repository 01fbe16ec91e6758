"""symgrad.compat.v1: TF1 snippets run with only the import changed and give TF's numbers."""
import numpy as np
import pytest

import symgrad as sg
import symgrad.compat.v1 as tf


def test_total_derivative_question():
    a = tf.constant(0.)
    b = 2 * a
    g = tf.gradients(a + b, [a, b])
    with tf.Session() as sess:
        out = sess.run(g)
    assert out == [3.0, 1.0]
    assert repr(out) == "[3.0, 1.0]"          # what TF1 printed
    assert isinstance(out, list) and all(v.dtype == np.float32 for v in out)


def test_partial_derivatives_with_stop_gradients():
    a = tf.constant(0.)
    b = 2 * a
    g = tf.gradients(a + b, [a, b], stop_gradients=[a, b])
    with tf.Session() as sess:
        assert repr(sess.run(g)) == "[1.0, 1.0]"


def test_cubic_and_quadratic():
    a = tf.constant(5.)
    b = 2 * a
    g = tf.gradients(a ** 3 + 2 * b ** 2, [a, b])
    x = tf.Variable(2.0)
    h = tf.gradients(x ** 2 + x - 1, x)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert repr(sess.run(g)) == "[155.0, 40.0]"
        assert repr(sess.run(h)) == "[5.0]"
    assert a.name == "Const:0" and str(g[0]) == "3*Const**2 + 16*Const"   # symbols: op names
    again = tf.Variable(2.0, name="Variable")          # a second "Variable": Variable_1:0
    assert again.name == "Variable_1:0" and str(tf.gradients(again ** 3, again)[0]) == \
        "3*Variable**2"                                # printed with the name asked for


def test_gradient_of_sum_has_x_shape_and_relation():
    # every entry equals 2*sum + 1 (random values, so pinned by the relation)
    x = tf.Variable(tf.random_normal([3, 3]))
    s = tf.reduce_sum(x)
    y = s ** 2 + s - 1
    g = tf.gradients(y, x)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        (gx,), total = sess.run([g, s])
    assert gx.shape == (3, 3) and gx.dtype == np.float32
    np.testing.assert_allclose(gx, np.full((3, 3), 2 * total + 1), rtol=1e-5)
    assert len(np.unique(gx)) == 1


def test_random_normal_draws_anew_at_each_run_and_is_seeded():
    t = tf.random.normal([4], seed=7)
    u = tf.random_normal([4], seed=7)
    with tf.Session() as sess:
        first, again = sess.run(t), sess.run(t)
        assert not np.array_equal(first, again)            # TF1: new numbers each run
        a, b = sess.run([t, u])   # same seed, same stream: u's first run is t's first
        np.testing.assert_array_equal(b, first)             # (TF's kernels count apart)
        assert not np.array_equal(a, b)
    with tf.Session() as sess:                              # a new session starts over
        np.testing.assert_array_equal(sess.run(t), first)
    tf.set_random_seed(3)
    v = tf.random_uniform([2, 2], minval=-1, maxval=1)
    assert v.dtype == np.float32 and np.all(np.abs(v.numpy()) <= 1)
    assert np.all(np.abs(tf.truncated_normal([50], seed=1).numpy()) <= 2)


def test_fetch_structures_and_ops():
    a = tf.constant(1.5, name="a")
    b = tf.Variable([1.0, 2.0], name="b")
    init = tf.global_variables_initializer()
    with tf.Session() as sess:
        assert sess.run(init) is None
        out = sess.run({"a": a, "pair": (a, [b, a * 2])})
        assert sess.run([init, a])[0] is None
    assert out["a"] == 1.5 and isinstance(out["pair"], tuple)
    np.testing.assert_array_equal(out["pair"][1][0], [1.0, 2.0])
    assert repr(out) == "{'a': 1.5, 'pair': (1.5, [array([1., 2.], dtype=float32), 3.0])}"


def test_placeholders_and_feeds():
    p = tf.placeholder(tf.float32)
    q = tf.placeholder(tf.float32, shape=(3,))
    y = p * tf.reduce_sum(q * q)
    g = tf.gradients(y, [p, q])
    with tf.Session() as sess:
        gp, gq = sess.run(g, feed_dict={p: 2.0, q: [1.0, 2.0, 3.0]})
        assert gp == pytest.approx(14.0)
        np.testing.assert_allclose(gq, [4.0, 8.0, 12.0])
        # TF1: a placeholder without shape takes any shape
        np.testing.assert_allclose(sess.run(y, feed_dict={p: [1.0, 2.0], q: [1.0, 2.0, 3.0]}),
                                   [14.0, 28.0])
        with pytest.raises(sg.FeedError, match="was not fed"):
            sess.run(y, feed_dict={q: [1.0, 2.0, 3.0]})
    x = tf.placeholder(tf.float32, shape=[None, 3])
    assert x.shape == (None, 3) and x.get_shape().as_list() == [None, 3]


def test_fetching_none_raises_tfs_error_with_the_reason():
    x = tf.Variable(1.0, name="x")
    z = tf.Variable(2.0, name="z")
    g = tf.gradients(3 * x, [x, z])
    assert g[1] is None
    with tf.Session() as sess:
        with pytest.raises(TypeError) as info:
            sess.run(g)
        message = str(info.value)
        assert message.startswith("Fetch argument None has invalid type <class 'NoneType'>")
        assert "no path from 'z:0'" in message
        with pytest.raises(TypeError, match="no path from 'z:0'"):
            sess.run(g[1])                                # a bare None: latest record


def test_none_through_stop_gradient_and_integers():
    a = tf.constant(0.)
    b = 2 * a
    g = tf.gradients(a + tf.stop_gradient(b), [a, b])
    n = tf.constant(3)                                    # int32, as in TF
    h = tf.gradients(tf.cast(n, tf.float32) * a, [n])
    assert n.dtype == np.int32 and h == [None]
    with tf.Session() as sess:
        assert sess.run(g[0]) == 1.0
        with pytest.raises(TypeError, match="cut: at 'stop_gradient:0'"):
            sess.run(g)
        with pytest.raises(TypeError, match="integer tensor"):
            sess.run(h)


def test_invalid_fetch_and_closed_session():
    sess = tf.Session()
    with pytest.raises(ValueError, match="Fetch argument 'x:0' cannot be interpreted"):
        sess.run("x:0")
    with pytest.raises(TypeError, match="Fetch argument 3 has invalid type"):
        sess.run(3)
    sess.close()
    with pytest.raises(RuntimeError, match="closed Session"):
        sess.run(tf.constant(1.0))


def test_hessians_and_unconnected_zero():
    x = tf.Variable(2.0)
    (h,) = tf.hessians(x ** 3, x)
    y = tf.Variable(1.0)
    g = tf.gradients(x * x, [y], unconnected_gradients=tf.UnconnectedGradients.ZERO)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(h) == pytest.approx(12.0)
        assert sess.run(g) == [0.0]


def test_gradient_descent_optimizer_matches_manual_updates():
    w = tf.Variable(0.0)
    loss = (w - 3.0) ** 2
    step = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    expected = 0.0
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(5):
            sess.run(step)
            expected -= 0.1 * 2 * (expected - 3.0)
        assert sess.run(w) == pytest.approx(expected, rel=1e-6)
        sess.run(tf.global_variables_initializer())      # resets to the initial value
        assert sess.run(w) == 0.0
        sess.run(step)
        sess.run(w.initializer)
        assert sess.run(w) == 0.0


def test_names_dtypes_and_namespaces():
    assert tf.constant(1.0).dtype == np.float32
    assert tf.constant(1).dtype == np.int32
    assert tf.constant(1.0, dtype=tf.float64).dtype == np.float64
    assert tf.constant(np.ones(2)).dtype == np.float64        # numpy values keep their dtype
    assert tf.constant([1.0, 2.0]).dtype == np.float32
    assert tf.Variable(1.0).dtype == np.float32
    assert isinstance(tf.Variable(1.0), sg.Variable)
    with tf.name_scope("layer"):
        t = tf.constant(1.0, name="w")
    assert t.name == "layer/w:0" and t.op_name == "layer/w"
    m = tf.matmul(tf.constant([[1.0, 2.0]]), tf.constant([[3.0], [4.0]]))
    assert m.numpy().tolist() == [[11.0]]
    assert tf.nn.relu(tf.constant(-1.0)).numpy() == 0.0
    assert tf.math.exp(tf.constant(0.0)).numpy() == 1.0
    assert tf.add_n([tf.constant(1.0), tf.constant(2.0)]).numpy() == 3.0


def test_a_tensors_op_has_tfs_name_type_and_inputs(tmp_path):
    w = tf.Variable([1.0, -2.0], name="w1")
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    with tf.name_scope("layer"):
        y = tf.reduce_sum(x * w, name="loss")
    # the idioms of summaries and of Saver({v.op.name: v}): the name without ":0"
    assert (w.op.name, w.op.type) == ("w1", "VariableV2")
    assert (x.op.name, x.op.type) == ("x", "Placeholder")
    assert (y.op.name, y.op.type) == ("layer/loss", "Sum")
    assert y.op.outputs == [y] and y.op.inputs[0].op.type == "Mul"
    assert y.op == y.op and y.op != w.op and y.op.graph is y.graph
    grads = tf.train.GradientDescentOptimizer(0.1).compute_gradients(tf.reduce_sum(w ** 2))
    assert [v.op.name for _, v in grads] == ["w1"]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        # fetching an op runs it and gives None, as TF's
        assert sess.run([w.op, y], {x: np.ones((1, 2))}) == [None, -1.0]
        tf.assign(w, [3.0, 4.0]).op.run()
        assert w.eval().tolist() == [3.0, 4.0]
        saver = tf.train.Saver({v.op.name: v for v in tf.global_variables()})
        path = saver.save(sess, str(tmp_path / "model"))
        tf.assign(w, [0.0, 0.0]).op.run()
        saver.restore(sess, path)
        assert w.eval().tolist() == [3.0, 4.0]


def test_a_fetch_has_the_value_the_step_read_when_train_op_waits_for_the_step():
    # the CIFAR-10 tutorial's train_op: a no_op after the step; TF reads lr once per run,
    # the value the step used (checked against TF: 0.1, 0.05, 0.025 and w 0.8, 0.72, 0.684)
    gs = tf.train.get_or_create_global_step()
    w = tf.Variable(1.0)
    lr = tf.train.exponential_decay(0.1, gs, 1, 0.5, staircase=True)
    loss = tf.square(w)
    train = tf.train.GradientDescentOptimizer(lr).minimize(loss, global_step=gs)
    with tf.control_dependencies([train]):
        train_op = tf.no_op()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = [sess.run([train_op, lr, loss])[1:] + [sess.run(w)] for _ in range(3)]
    np.testing.assert_allclose(got, [[0.1, 1.0, 0.8], [0.05, 0.64, 0.72],
                                     [0.025, 0.5184, 0.684]], rtol=1e-6)


def test_variables_made_under_control_dependencies_run_nothing_when_read():
    # (TF: neither the variable nor its initializer waits for the step; a computed
    # tensor made inside does)
    w = tf.Variable(1.0)
    step = tf.assign_sub(w, 0.1)
    ema = tf.train.ExponentialMovingAverage(0.5)
    with tf.control_dependencies([step]):
        ema.apply([w])
        v = tf.Variable(5.0)
        r = v + 0.0
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(w) == 1.0
        assert (sess.run(ema.average(w)), sess.run(v), sess.run(v.initializer)) == \
            (1.0, 5.0, None)
        assert sess.run(w) == 1.0
        assert sess.run(r) == 5.0 and np.isclose(sess.run(w), 0.9)


def test_moving_average_variables_to_restore_in_a_fresh_graph(tmp_path):
    # cifar10_eval's pattern: the evaluation graph restores the averages into the weights
    with tf.Graph().as_default():
        w = tf.Variable(1.0, name="w")
        ema = tf.train.ExponentialMovingAverage(0.5)
        update = ema.apply([w])
        assert update.type == "NoOp" and tf.assign(w, 3.0).type == "Assign"
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(tf.assign(w, 3.0))
            sess.run(update)
            path = tf.train.Saver().save(sess, str(tmp_path / "m"))
    with tf.Graph().as_default():
        w = tf.Variable(0.0, name="w")
        u = tf.Variable(2.0, name="u", trainable=False)
        restore = tf.train.ExponentialMovingAverage(0.5).variables_to_restore()
        assert {k: v.op.name for k, v in restore.items()} == \
            {"w/ExponentialMovingAverage": "w", "u": "u"}
        with tf.Session() as sess:
            tf.train.Saver({"w/ExponentialMovingAverage": w}).restore(sess, path)
            assert sess.run(w) == 2.0
    with tf.Graph().as_default():   # the collection lists the averaged variables (TF's)
        w, u, z = (tf.Variable(1.0, name=n, trainable=n != "u") for n in "wuz")
        ema = tf.train.ExponentialMovingAverage(0.5)
        ema.apply([w, u])
        assert [v.op.name for v in tf.get_collection(tf.GraphKeys.MOVING_AVERAGE_VARIABLES)] \
            == ["w", "u"]
        names = {k: v.op.name for k, v in ema.variables_to_restore().items()}
        assert names == {"w/ExponentialMovingAverage": "w", "u/ExponentialMovingAverage": "u",
                         "z/ExponentialMovingAverage": "z"}
        names = {k: v.op.name for k, v in ema.variables_to_restore([w]).items()}
        assert names == {"w/ExponentialMovingAverage": "w", "u": "u", "z": "z",
                         "u/ExponentialMovingAverage": "u/ExponentialMovingAverage"}


class TestDefaultGraph:
    """TF1 snippets that reset the global default graph."""

    @pytest.fixture(autouse=True)
    def fresh_graph(self):
        # replaces the conftest fixture: reset_default_graph refuses inside as_default
        tf.reset_default_graph()
        yield
        tf.reset_default_graph()

    def test_reset_default_graph_snippet(self):
        tf.reset_default_graph()
        a = tf.constant(0.)
        b = 2 * a
        g = tf.gradients(a + b, [a, b])
        assert a.graph is tf.get_default_graph()
        sess = tf.InteractiveSession()
        assert sess.run(g) == [3.0, 1.0]
        sess.close()


def test_the_runtime_lines_around_a_tf1_model(tmp_path):
    # what TF1 scripts write around the model: logging, device, a session config and a
    # Saver (TF's checkpoint format); names symgrad lacks say what to do
    import logging
    tf.logging.set_verbosity(tf.logging.INFO)
    assert logging.getLogger("tensorflow").level == logging.INFO
    with tf.Graph().as_default():
        with tf.device("/gpu:0"):
            w = tf.Variable([1.0, 2.0], name="w")
        step = tf.Variable(0, name="step", trainable=False)
        config = tf.ConfigProto(allow_soft_placement=True)
        config.gpu_options.allow_growth = True
        saver = tf.train.Saver()
        with tf.Session(config=config) as sess:
            sess.run(tf.global_variables_initializer())
            sess.run([tf.assign(w, [3.0, 4.0]), tf.assign(step, 12)])
            path = saver.save(sess, str(tmp_path / "run" / "model.ckpt"), global_step=step)
        assert path.endswith("model.ckpt-12")
        assert tf.train.latest_checkpoint(str(tmp_path / "nothing")) is None
        assert tf.train.latest_checkpoint(str(tmp_path / "run")) == path
        state = tf.train.get_checkpoint_state(str(tmp_path / "run"))
        assert state.model_checkpoint_path == path == state.all_model_checkpoint_paths[-1]
        keep_one = tf.train.Saver(max_to_keep=1)   # TF deletes the older checkpoints
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for k in range(3):
                keep_one.save(sess, str(tmp_path / "one" / "m"), global_step=k)
        assert sorted(p.name for p in (tmp_path / "one").iterdir()) == [
            "checkpoint", "m-2.data-00000-of-00001", "m-2.index"]
        with tf.Session() as sess:
            saver.restore(sess, tf.train.latest_checkpoint(str(tmp_path / "run")))
            # (no initializer: restore initialises)
            assert sess.run(w).tolist() == [3.0, 4.0] and sess.run(step) == 12
    for owner, name, words in ((tf.contrib, "tpu", "core op"),
                               (tf.contrib.slim, "nets", "model zoo"),
                               (tf, "no_such_op", "has no attribute 'no_such_op'")):
        with pytest.raises(AttributeError, match=words):
            getattr(owner, name)


def test_tf1_where_picks_rows_and_lists_of_tensors_are_packed():
    # TF1's tf.where with a vector condition picks whole rows (it chose columns: silently
    # wrong on square operands); tf.reduce_mean([per-step losses]) packs the list
    with tf.Graph().as_default():
        c = tf.constant([True, False, True])
        a = tf.constant(np.arange(9.0).reshape(3, 3), tf.float32)
        rows, v2 = tf.where(c, a, -a), tf.where_v2(c, a, -a)
        steps = [tf.Variable(1.0), tf.Variable(2.0)]
        mean = tf.reduce_mean([s * s for s in steps])
        grads = tf.gradients(mean, steps)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            r, w, m, g = sess.run([rows, v2, mean, grads])
        want = np.arange(9.0).reshape(3, 3) * np.array([1, -1, 1])[:, None]
        np.testing.assert_array_equal(r, want)
        np.testing.assert_array_equal(w, np.arange(9.0).reshape(3, 3) * np.array([1, -1, 1]))
        assert m == 2.5 and g == [1.0, 2.0]
        with tf.Session() as sess:   # one argument: the positions of the true entries
            assert sess.run(tf.where(c)).tolist() == np.argwhere(sess.run(c)).tolist()


def test_tile_and_reflect_pad_over_a_batch_of_unknown_size():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3])
        tiled = tf.tile(tf.expand_dims(x, 1), [1, 4, 1])
        doubled = tf.tile(x, [2, 2])
        reflected = tf.pad(x, [[0, 0], [2, 1]], mode="REFLECT")
        (g,) = tf.gradients(tf.reduce_sum(doubled * doubled), x)
        v = np.arange(6.0, dtype=np.float32).reshape(2, 3)
        with tf.Session() as sess:
            t, d, p, gv = sess.run([tiled, doubled, reflected, g], {x: v})
        assert tiled.shape.as_list() == [None, 4, 3] and doubled.shape.as_list() == [None, 6]
        np.testing.assert_array_equal(t, np.tile(v[:, None], [1, 4, 1]))
        np.testing.assert_array_equal(d, np.tile(v, [2, 2]))
        np.testing.assert_array_equal(p, np.pad(v, [[0, 0], [2, 1]], mode="reflect"))
        np.testing.assert_allclose(gv, 8 * v)          # each entry appears four times
        with pytest.raises(ValueError, match="axis 0 .* known only at run time"):
            tf.pad(x, [[1, 0], [0, 0]], mode="SYMMETRIC")


def test_missing_names_in_tf1_namespaces_say_what_to_do():
    for get, words in ((lambda: tf.nn.rnn_cell.NASCell,
                        "tf.nn.rnn_cell has no attribute 'NASCell'"),
                       (lambda: tf.nn.learned_unigram_candidate_sampler, "fixed_unigram"),
                       (lambda: tf.metrics.streaming_auc, "from tf.metrics.mean"),
                       (lambda: tf.layers.conv3d, "tf.layers has no attribute 'conv3d'")):
        with pytest.raises(AttributeError, match=words):
            get()


def test_sequence_mask_over_fed_lengths():
    with tf.Graph().as_default():
        lengths = tf.placeholder(tf.int32, [None])
        mask = tf.sequence_mask(lengths, 4, dtype=tf.float32)
        with tf.Session() as sess:
            got = sess.run(mask, {lengths: [0, 2, 4]})
        assert mask.shape.as_list() == [None, 4] and got.dtype == np.float32
        np.testing.assert_array_equal(got, [[0, 0, 0, 0], [1, 1, 0, 0], [1, 1, 1, 1]])
        longest = tf.sequence_mask(lengths)   # maxlen: the largest length, when fed
        with tf.Session() as sess:
            assert sess.run(longest, {lengths: [0, 2]}).tolist() == [[False, False],
                                                                     [True, True]]


def test_streaming_accuracy_and_mean_over_the_batches_run():
    with tf.Graph().as_default():
        labels = tf.placeholder(tf.int64, [None])
        logits = tf.placeholder(tf.float32, [None, 3])
        acc, acc_op = tf.metrics.accuracy(labels=labels, predictions=tf.argmax(logits, 1))
        avg, avg_op = tf.metrics.mean(tf.reduce_max(logits, 1))
        assert sorted(v.name for v in tf.local_variables()) == [
            "accuracy/count:0", "accuracy/total:0", "mean/count:0", "mean/total:0"]
        batches = [([0, 1], [[2.0, 0, 0], [0, 0, 1.0]]), ([2, 2, 0], [[0, 0, 3.0]] * 3)]
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            assert sess.run(acc) == 0.0                     # nothing added yet
            seen = [sess.run([acc_op, avg_op], {labels: y, logits: z}) for y, z in batches]
            assert sess.run(acc) == pytest.approx(3 / 5)   # reading adds nothing
        assert seen[0][0] == pytest.approx(0.5) and seen[1][0] == pytest.approx(3 / 5)
        assert seen[1][1] == pytest.approx((2 + 1 + 9) / 5)


def test_random_shuffle_for_k_means_initial_centroids():
    # the TF1 k-means idiom: the first k rows of the shuffled points
    with tf.Graph().as_default():
        points = tf.constant(np.arange(20.0).reshape(10, 2))
        tf.set_random_seed(5)
        centroids = tf.Variable(tf.slice(tf.random_shuffle(points), [0, 0], [3, -1]))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            first, again = sess.run(centroids), sess.run(tf.random_shuffle(points, seed=1))
        rows = {tuple(r) for r in np.arange(20.0).reshape(10, 2)}
        assert first.shape == (3, 2) and {tuple(r) for r in first} <= rows
        assert sorted(map(tuple, again)) == sorted(rows)     # a permutation of the rows
        batch = tf.placeholder(tf.float32, [None, 2])   # a fed batch's rows, shuffled
        with tf.Session() as sess:
            rows = sess.run(tf.random_shuffle(batch), {batch: np.arange(6.0).reshape(3, 2)})
        assert sorted(rows[:, 0].tolist()) == [0.0, 2.0, 4.0]


def test_random_ops_and_dropout_draw_anew_at_each_run_as_tf1_does():
    # each sess.run draws new numbers (one value per run wherever a tensor is used); a new
    # session starts the sequence over; sg.evaluate holds a session's first run
    import symgrad as sg
    with tf.Graph().as_default():
        tf.set_random_seed(3)
        x = tf.placeholder(tf.float32, [None, 4])
        drawn = [tf.random_normal(tf.shape(x)), tf.random_uniform([3]),
                 tf.nn.dropout(tf.ones([1000]), keep_prob=0.5),
                 tf.layers.dropout(tf.ones([1000]), 0.5, training=True)]
        feed = {x: np.zeros((2, 4))}
        with tf.Session() as sess:
            first, second = sess.run(drawn, feed), sess.run(drawn, feed)
            twice = sess.run([drawn[0], drawn[0]], feed)
        with tf.Session() as sess:
            again = sess.run(drawn, feed)
        start = sg.evaluate(drawn, feed)
    for a, b, c, d in zip(first, second, again, start):
        assert not np.array_equal(a, b)
        np.testing.assert_array_equal(a, c)
        np.testing.assert_array_equal(a, d)
    np.testing.assert_array_equal(*twice)
    for mask in first[2:]:
        assert set(np.unique(mask)) == {0.0, 2.0} and 0.45 < np.mean(mask == 0) < 0.55


def test_multinomial_and_distributions_as_policy_gradient_code_uses_them():
    # Gumbel-max samples follow the probabilities and change at each run; Normal and
    # Categorical log-probabilities, entropies and cdf equal scipy's, their gradients
    # the analytic ones
    from scipy import stats
    with tf.Graph().as_default():
        tf.set_random_seed(0)
        logits = tf.placeholder(tf.float32, [None, 3])
        samples = tf.multinomial(logits, 4000)
        picks = tf.random.categorical(logits, 5, dtype=tf.int32)
        L = np.log(np.array([[0.2, 0.3, 0.5], [0.7, 0.2, 0.1]], np.float32))
        mu, sigma = tf.Variable([0.5, -1.0]), tf.Variable([1.0, 2.0])
        normal = tf.distributions.Normal(loc=mu, scale=sigma)
        x = tf.constant([0.3, 0.1])
        log_prob = normal.log_prob(x)
        grads = tf.gradients(tf.reduce_sum(log_prob), [mu, sigma])
        cat = tf.distributions.Categorical(logits=tf.constant(L))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            a, p = sess.run([samples, picks], {logits: L})
            b = sess.run(samples, {logits: L})
            lp, g, cdf, ent, draws, clp, cent = sess.run(
                [log_prob, grads, normal.cdf(x), normal.entropy(), normal.sample(4000),
                 cat.log_prob([2, 0]), cat.entropy()])
    assert a.shape == (2, 4000) and a.dtype == np.int64 and p.dtype == np.int32
    assert not np.array_equal(a, b)
    for row, probs in zip(a, np.exp(L)):
        np.testing.assert_allclose(np.bincount(row, minlength=3) / 4000, probs, atol=0.03)
    np.testing.assert_allclose(lp, stats.norm.logpdf([0.3, 0.1], [0.5, -1.0], [1.0, 2.0]),
                               rtol=1e-6)
    np.testing.assert_allclose(g[0], [-0.2, 1.1 / 4], rtol=1e-5)             # (x - mu) / s^2
    np.testing.assert_allclose(g[1], [-1 + 0.04, -0.5 + 1.21 / 8], rtol=1e-5)  # -1/s + z^2/s
    np.testing.assert_allclose(cdf, stats.norm.cdf([0.3, 0.1], [0.5, -1.0], [1.0, 2.0]),
                               rtol=1e-6)
    np.testing.assert_allclose(ent, stats.norm.entropy([0.5, -1.0], [1.0, 2.0]), rtol=1e-6)
    assert draws.shape == (4000, 2)
    np.testing.assert_allclose(draws.mean(0), [0.5, -1.0], atol=0.1)
    np.testing.assert_allclose(draws.std(0), [1.0, 2.0], rtol=0.05)
    np.testing.assert_allclose(clp, np.log([0.5, 0.7]), rtol=1e-6)
    np.testing.assert_allclose(cent, -(np.exp(L) * L).sum(1), rtol=1e-6)


def test_print_passes_its_input_through_and_writes_its_data_when_evaluated(capsys):
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None])
        y = tf.Print(x * 2, [x, tf.reduce_sum(x)], "x and sum: ", first_n=2)
        z = tf.reduce_sum(y)
        (g,) = tf.gradients(z, x)
        with tf.Session() as sess:
            got = [sess.run(z, {x: np.arange(5.0)}) for _ in range(3)]
            grad = sess.run(g, {x: np.arange(5.0)})       # does not evaluate the Print
    assert got == [20.0] * 3 and grad.tolist() == [2.0] * 5
    assert capsys.readouterr().err == "x and sum: [0 1 2...][10]\n" * 2   # (TF 2.21 prints this)


def test_print_of_a_tensor_without_a_closed_form_is_tfs():
    """The old MNIST tutorial prints ``pred`` over a [None, 784] batch: where no closed
    form can be shown, TF's description (op names are symgrad's, lower case)."""
    import symgrad.compat.v1 as tf
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 784])
        W = tf.Variable(tf.zeros([784, 10]))
        b = tf.Variable(tf.zeros([10]))
        pred = tf.nn.softmax(tf.matmul(x, W) + b)
        assert str(pred) == 'Tensor("softmax:0", shape=(?, 10), dtype=float32)'
        assert str(tf.constant(2.0) * 3) == "3*Const"     # a closed form where there is one
        # a leaf's closed form is only its name: what TF prints, as TF prints it
        assert (str(x), str(W), repr(W)) == (
            'Tensor("Placeholder:0", shape=(?, 784), dtype=float32)',
            "<tf.Variable 'Variable:0' shape=(784, 10) dtype=float32_ref>",
            "<tf.Variable 'Variable:0' shape=(784, 10) dtype=float32_ref>")


def test_shapes_that_do_not_fit_at_run_time_raise_tfs_invalid_argument_error():
    """A reshape of a fed batch that does not divide: TF raises InvalidArgumentError
    when the session runs; code catching it (or symgrad's ShapeError) catches it."""
    import symgrad as sg
    import symgrad.compat.v1 as tf
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3])
        r = tf.reshape(x, [-1, 2])
        with tf.Session() as sess:
            assert sess.run(r, {x: np.ones((2, 3))}).shape == (3, 2)
            with pytest.raises(tf.errors.InvalidArgumentError, match="reshape"):
                sess.run(r, {x: np.ones((3, 3))})
            with pytest.raises(sg.ShapeError):
                sess.run(r, {x: np.ones((1, 3))})


def test_a_name_given_by_position_and_the_train_op_collection():
    # tf.nn.relu(h, "relu") is TF's (features, name) signature; apply_gradients adds its
    # operation to TRAIN_OP, as TF1's optimizers do (both found by the TF-Slim round)
    with tf.Graph().as_default():
        h = tf.placeholder(tf.float32, [2])
        assert tf.nn.relu(h, "relu1").name == "relu1:0"
        assert tf.maximum(h, h, "top").name == "top:0"
        w = tf.Variable(1.0)
        steps = [tf.train.AdamOptimizer(0.1).minimize(tf.square(w)),
                 tf.train.GradientDescentOptimizer(0.1).minimize(tf.square(w))]
        assert tf.get_collection(tf.GraphKeys.TRAIN_OP) == steps
