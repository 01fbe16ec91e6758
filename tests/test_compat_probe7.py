"""What the seventh differential probe of TF1 programs (tf.data, classic MNIST/CNN
scripts, seq2seq, GP regression, checkpoints, custom optimizers and layers) found in
sessions, variables, layers and training, against real TensorFlow 2.21 (compat.v1, v2
behaviour disabled)."""
import os

import numpy as np
import pytest

import symgrad.compat.v1 as tf


def test_checkpoint_reader_and_checkpoint_exists(tmp_path):
    with tf.Graph().as_default():
        tf.Variable([[1.0, 2.0]], name="w")
        step = tf.Variable(4, name="step")
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            path = saver.save(sess, os.path.join(str(tmp_path), "model.ckpt"), global_step=step)
    reader = tf.train.NewCheckpointReader(path)
    assert reader.get_variable_to_shape_map() == {"w": [1, 2], "step": []}
    assert reader.get_variable_to_dtype_map()["w"] == np.float32
    assert reader.has_tensor("step") and not reader.has_tensor("b")
    assert reader.get_tensor("step") == 4 and reader.get_tensor("w").tolist() == [[1.0, 2.0]]
    assert tf.train.load_checkpoint(str(tmp_path)).get_tensor("step") == 4
    with pytest.raises(tf.errors.NotFoundError, match="Key b not found"):
        reader.get_tensor("b")
    assert tf.train.checkpoint_exists(path)
    assert not tf.train.checkpoint_exists(os.path.join(str(tmp_path), "model.ckpt-5"))


def test_dtype_names_and_as_dtype():
    assert tf.as_dtype("float") == np.float32 and tf.as_dtype(tf.float64) == np.float64
    assert tf.dtypes.as_dtype(np.uint8) == np.uint8 and tf.dtypes.int16 is tf.int16 == np.int16
    assert (tf.int8, tf.uint16, tf.double, tf.half) == (np.int8, np.uint16, np.float64,
                                                        np.float16)
    with pytest.raises(TypeError, match="'foo' is not a dtype"):
        tf.as_dtype("foo")
    with tf.Graph().as_default():
        v = tf.Variable(1.0)
        assert tf.all_variables() == [v]


def test_coordinator_around_a_tf_data_loop_and_queue_pipelines_refused():
    X = np.arange(12, dtype=np.float32).reshape(6, 2)
    with tf.Graph().as_default():
        batch = tf.data.Dataset.from_tensor_slices(X).batch(4).make_one_shot_iterator().get_next()
        seen = []
        with tf.Session() as sess:
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess=sess, coord=coord)
            try:
                while not coord.should_stop():
                    seen.append(sess.run(batch).shape[0])
            except tf.errors.OutOfRangeError:
                coord.request_stop()
            finally:
                coord.request_stop()
            coord.join(threads)
        assert seen == [4, 2] and threads == [] and coord.should_stop()
    coord = tf.train.Coordinator()
    with coord.stop_on_exception():
        raise RuntimeError("reader failed")
    assert coord.should_stop()
    with pytest.raises(RuntimeError, match="reader failed"):
        coord.join()
    coord.clear_stop()
    coord.request_stop(tf.errors.OutOfRangeError(None, None, "end"))   # a clean stop
    coord.join()
    for name in ("slice_input_producer", "shuffle_batch", "string_input_producer"):
        with pytest.raises(AttributeError, match=f"tf.train.{name}: TF1's queue-based input "
                                                 "pipelines .*Dataset.from_tensor_slices"):
            getattr(tf.train, name)
    with pytest.raises(AttributeError, match="tf.FIFOQueue: .*tf.data"):
        tf.FIFOQueue


def test_a_missing_name_says_what_to_do():
    with pytest.raises(AttributeError, match=r"tf.nn has no attribute 'fractional_max_pool' in "
                                             r"symgrad: it is not implemented; build it from the "
                                             r"ops symgrad has \(dir\(tf.nn\) lists them\)"):
        tf.nn.fractional_max_pool
    with pytest.raises(AttributeError, match=r"'no_such_op' in symgrad: .*\(dir\(tf\) lists"):
        tf.no_such_op


def test_layer_objects_share_their_variables_across_calls_as_tf():
    # one Conv2D and one Dense object applied to two inputs; TF 2.21's numbers
    rng = np.random.RandomState(3)
    xa, xb = rng.rand(2, 4, 4, 1).astype(np.float32), rng.rand(2, 4, 4, 1).astype(np.float32)
    with tf.Graph().as_default():
        conv = tf.layers.Conv2D(2, 2, activation=tf.nn.relu, kernel_initializer=(
            tf.constant_initializer([0.5, -1.0, 0.25, 2.0, 1.0, 0.0, -0.5, 1.5])),
            bias_initializer=tf.constant_initializer([0.1, -0.2]))
        bn = tf.layers.BatchNormalization(momentum=0.5)
        fc = tf.layers.Dense(1, kernel_initializer=tf.ones_initializer())
        ha = fc(tf.layers.Flatten()(tf.layers.AveragePooling2D(3, 3)(
            bn(conv(tf.constant(xa)), training=True))))
        hb = fc(tf.layers.Flatten()(tf.layers.MaxPooling2D(2, 2)(conv(tf.constant(xb)))[:, :1, :1]))
        loss = tf.reduce_sum(ha) + tf.reduce_sum(hb)
        g = tf.gradients(loss, conv.variables)
        assert [v.name for v in tf.global_variables()] == [
            'conv2d/kernel:0', 'conv2d/bias:0', 'batch_normalization/gamma:0',
            'batch_normalization/beta:0', 'batch_normalization/moving_mean:0',
            'batch_normalization/moving_variance:0', 'dense/kernel:0', 'dense/bias:0']
        assert (len(conv.variables), len(bn.variables), len(fc.variables)) == (2, 4, 2)
        assert len(bn.trainable_variables) == 2
        with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
            step = tf.identity(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got = sess.run([ha, hb, step])
            grads = sess.run(g)
            moving = sess.run(bn.variables[2:])
    np.testing.assert_allclose(got[0].ravel(), [-0.222309, 0.222308], atol=2e-6)
    np.testing.assert_allclose(got[1].ravel(), [2.562774, 2.539646], rtol=2e-6)
    np.testing.assert_allclose(got[2], 5.1024194, rtol=2e-6)
    np.testing.assert_allclose(grads[0].reshape(-1), [
        1.1808117628097534, 0.990063488483429, 1.3003729581832886, 1.329336404800415,
        1.1674461364746094, 1.4001572132110596, 0.6450700759887695, 1.2489336729049683],
        rtol=2e-6)
    np.testing.assert_allclose(grads[1], [2.0, 2.0], rtol=2e-6)   # (TF: exactly 2)
    np.testing.assert_allclose(moving, [[0.348889, 0.494103], [0.563874, 0.77004]], rtol=2e-6)


def test_a_layer_reused_inside_a_while_loop_finds_its_variables():
    # greedy decoding: the decoder's projection (made outside) applied in the loop body
    with tf.Graph().as_default():
        proj = tf.layers.Dense(2, kernel_initializer=tf.constant_initializer([1.0, -1.0, 0.5, 2.0]))
        x0 = tf.constant([[1.0, 0.5]])
        first = proj(x0)
        w = tf.get_variable("w", [2], initializer=tf.ones_initializer())

        def body(i, h):
            with tf.variable_scope(tf.get_variable_scope(), reuse=True):
                scale = tf.get_variable("w")
            return i + 1, tf.tanh(proj(h)) * scale
        _, h = tf.while_loop(lambda i, h: i < 3, body, [0, x0])
        g = tf.gradients(tf.reduce_sum(h), [w, proj.kernel])
        assert len(tf.global_variables()) == 3
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got = sess.run([first, h] + g)
    # the same recurrence in numpy; its gradient by central differences
    def run(wv, kv):
        hv = np.array([[1.0, 0.5]])
        for _ in range(3):
            hv = np.tanh(hv @ kv) * wv
        return hv
    kv, wv = np.array([[1.0, -1.0], [0.5, 2.0]]), np.ones(2)
    np.testing.assert_allclose(got[0], [[1.25, 0.0]])
    np.testing.assert_allclose(got[1], run(wv, kv), rtol=1e-6)
    for i, want in enumerate(got[2]):
        e = np.eye(2)[i] * 1e-6
        fd = (run(wv + e, kv).sum() - run(wv - e, kv).sum()) / 2e-6
        np.testing.assert_allclose(want, fd, rtol=1e-4)


def test_set_shape_on_a_shapeless_placeholder_and_its_checks():
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float32)
        p.set_shape([None, 3])
        assert str(p.shape) == "(?, 3)"
        y = tf.layers.dense(p, 2)   # needs the last size
        q = tf.placeholder(tf.float32, [None, 3])
        q.set_shape([5, 3])   # compatible: accepted (values are checked when fed)
        with pytest.raises(ValueError, match=r"Shapes \(\?, 3\) and \(5, 4\) are incompatible"):
            q.set_shape([5, 4])
        r = tf.placeholder(tf.float32)
        r2 = r * 2.0
        with pytest.raises(ValueError, match="already used .* call set_shape right after"):
            r.set_shape([2])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run(y, {p: np.ones((4, 3))}).shape == (4, 2)
            assert sess.run(r2, {r: [1.0, 2.0]}).tolist() == [2.0, 4.0]
            with pytest.raises(ValueError, match="shape"):
                sess.run(y, {p: np.ones((4, 2))})


def test_convert_to_tensor_names_its_constant_and_takes_tfs_dtypes():
    with tf.Graph().as_default():
        w = tf.convert_to_tensor([[1, 2]], name="w")
        assert (w.name, w.dtype) == ("w:0", np.int32)
        assert tf.convert_to_tensor(1.5).dtype == np.float32
        assert tf.convert_to_tensor(np.ones(2)).dtype == np.float64
        assert tf.convert_to_tensor([1.0, 2.0], dtype=tf.float64).dtype == np.float64
        x = tf.constant(1.0)
        assert tf.convert_to_tensor([x, 2.0]).shape.as_list() == [2]


def test_a_fetched_variable_is_read_when_the_run_ends_as_tf1s_reference_variables():
    # cnn-text-classification-tf prints `step, loss` from sess.run([train_op,
    # global_step, loss]): TF1 shows step 1 first; a computed tensor keeps the value
    # the step read (TF 2.21 with v2 behaviour disabled: reference variables)
    with tf.Graph().as_default():
        v = tf.Variable(0, name="v")
        w = tf.Variable(1.0, name="w")
        inc = tf.assign_add(v, 1)
        upd = tf.assign(w, w * 3.0)
        x = tf.Variable(5.0)
        gs = tf.train.get_or_create_global_step()
        train = tf.train.GradientDescentOptimizer(0.1).minimize(tf.square(x), global_step=gs)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got = [sess.run([v, inc]), sess.run([inc, v]), sess.run([w, upd]),
                   sess.run([train, gs, x]), sess.run([train, gs, x]),
                   sess.run([gs, train, x * 1.0]), sess.run(v)]
    want = [[1, 1], [2, 2], [3.0, 3.0], [None, 1, 4.0], [None, 2, 3.2], [3, None, 3.2], [2]]
    got[-1] = [got[-1]]
    for fetched, expected in zip(got, want):
        assert [a is None for a in fetched] == [b is None for b in expected]
        np.testing.assert_allclose([a for a in fetched if a is not None],
                                   [b for b in expected if b is not None], rtol=1e-6)


def test_a_growing_tensor_array_is_refused_with_the_size_to_give():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=r"size=0, dynamic_size=True\): symgrad's arrays do "
                                             r"not grow; .*size=tf.shape\(inputs\)\[0\]"):
            tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        ta = tf.TensorArray(tf.float32, size=3, dynamic_size=True)   # a size: accepted
        assert tf.Session().run(ta.write(1, 2.0).stack()).tolist() == [0.0, 2.0, 0.0]


def test_sgdr_linear_cosine_and_cycled_polynomial_schedules_as_tf():
    with tf.Graph().as_default():
        gs = tf.placeholder(tf.int64, [])
        scheds = [tf.train.cosine_decay_restarts(0.1, gs, 10),
                  tf.train.cosine_decay_restarts(0.1, gs, 10, t_mul=1.0, m_mul=0.5, alpha=0.1),
                  tf.train.cosine_decay_restarts(0.1, gs, 7, t_mul=3.0, m_mul=0.8),
                  tf.train.linear_cosine_decay(0.1, gs, 40),
                  tf.train.linear_cosine_decay(0.1, gs, 40, num_periods=2.0, alpha=0.1,
                                               beta=0.01),
                  tf.train.polynomial_decay(0.1, gs, 20, end_learning_rate=0.01, power=2.0,
                                            cycle=True)]
        with tf.Session() as sess:
            got = {step: sess.run(scheds, {gs: step}) for step in (0, 9, 11, 29, 45, 100)}
    want = {  # TF 2.21
        0: [0.1, 0.1, 0.1, 0.1001, 0.111, 0.1],
        9: [0.0024472, 0.0122025, 0.0782229, 0.0683157, 0.0031413, 0.037225],
        11: [0.0993844, 0.0538988, 0.0730495, 0.0598925, 0.0030189, 0.028225],
        29: [0.0006156, 0.0105506, 0.0639602, 0.0049201, 0.0019177, 0.0168062],
        45: [0.0691342, 0.0128125, 0.0531739, 0.0001, 0.011, 0.015625],
        100: [0.0691342, 0.0100879, 0.0509141, 0.0001, 0.011, 0.01]}
    for step in want:
        np.testing.assert_allclose(got[step], want[step], rtol=2e-5, atol=2e-7)


def test_make_template_shares_and_init_from_checkpoint_warm_starts(tmp_path):
    with tf.Graph().as_default():
        def affine(x, units):
            w = tf.get_variable("w", [2, units], initializer=tf.constant_initializer(
                [1.0, 2.0, 3.0, -1.0, 0.5, 0.0]))
            return tf.matmul(x, w)
        enc = tf.make_template("encoder", affine, units=3)
        ea, eb = enc(tf.ones([1, 2])), enc(tf.zeros([1, 2]))
        assert [v.name for v in tf.global_variables()] == ["encoder/w:0"]
        assert enc.variable_scope_name == "encoder/" and len(enc.trainable_variables) == 1
        t1, t2 = tf.tuple([ea, None])
        (i1,) = tf.identity_n([eb])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run(t1).tolist() == [[0.0, 2.5, 3.0]] and t2 is None
            assert sess.run(i1).tolist() == [[0.0, 0.0, 0.0]]
            path = tf.train.Saver().save(sess, str(tmp_path / "pre"))
    with tf.Graph().as_default():
        with tf.variable_scope("finetune"):
            w = tf.get_variable("w", [2, 3])
        other = tf.get_variable("other", [2, 3])
        wrong = tf.get_variable("wrong", [3])
        tf.train.init_from_checkpoint(str(tmp_path), {"encoder/": "finetune/"})
        tf.train.init_from_checkpoint(path, {"encoder/w": "other"})
        with pytest.raises(ValueError, match="Shape of variable wrong:0"):
            tf.train.init_from_checkpoint(path, {"encoder/w": wrong})
        with pytest.raises(ValueError, match="Tensor encoder/b is not found"):
            tf.train.init_from_checkpoint(path, {"encoder/b": other})
        with pytest.raises(ValueError, match="Tensor nope is not found in current graph"):
            tf.train.init_from_checkpoint(path, {"encoder/w": "nope"})
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            want = [[1.0, 2.0, 3.0], [-1.0, 0.5, 0.0]]
            assert sess.run(w).tolist() == want and sess.run(other).tolist() == want


def test_a_session_block_makes_its_graph_the_default_as_tf1():
    # the Udacity Deep Learning assignments build in `graph`, then initialise inside
    # `with tf.Session(graph=graph)` (TF 2.21: losses 2.25, 1.1025, 0.540225)
    graph = tf.Graph()
    with graph.as_default():
        weights = tf.Variable(np.full((3, 2), 0.5, np.float32))
        loss = tf.reduce_mean(tf.matmul(tf.ones([4, 3]), weights) ** 2)
        optimizer = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    outer = tf.get_default_graph()
    with tf.Session(graph=graph) as session:
        tf.global_variables_initializer().run()
        assert tf.get_default_graph() is graph
        losses = [session.run([optimizer, loss])[1] for _ in range(3)]
        assert session.run(tf.reduce_sum(weights)) == pytest.approx(1.0289999, rel=1e-6)
        assert session.run(tf.is_variable_initialized(weights))
    assert tf.get_default_graph() is outer
    np.testing.assert_allclose(losses, [2.25, 1.1025, 0.540225], rtol=1e-6)


def test_is_variable_initialized_and_train_global_step():
    with tf.Graph().as_default():
        a, b = tf.Variable(1.0), tf.Variable(2.0)
        step = tf.Variable(7, trainable=False)
        with tf.Session() as sess:
            sess.run(tf.variables_initializer([a, step]))
            got = sess.run([tf.is_variable_initialized(a), tf.is_variable_initialized(b)])
            assert [bool(g) for g in got] == [True, False]
            assert tf.train.global_step(sess, step) == 7


def test_an_optimizer_written_to_tfs_protocol_steps_as_in_tf():
    # slots (_zeros_slot, _get_or_make_slot), a non-slot beta power updated in _finish,
    # _prepare, _call_if_callable: the tf.contrib.opt way of writing optimizers
    class MyAdam(tf.train.Optimizer):
        def __init__(self, lr=0.1, b1=0.9, b2=0.999, eps=1e-8, name="MyAdam"):
            super(MyAdam, self).__init__(False, name)
            self._lr, self._b1, self._b2, self._eps = lr, b1, b2, eps

        def _create_slots(self, var_list):
            first = min(var_list, key=lambda x: x.name)
            self._create_non_slot_variable(initial_value=self._b1, name="beta1_power",
                                           colocate_with=first)
            for v in var_list:
                self._zeros_slot(v, "m", self._name)
                self._get_or_make_slot(v, tf.ones_like(v) * 0.01, "v", self._name + "_v")

        def _prepare(self):
            self._lr_t = tf.convert_to_tensor(self._call_if_callable(self._lr), name="lr")

        def _apply_dense(self, grad, var):
            b1p = self._get_non_slot_variable("beta1_power", graph=var.graph)
            m, v = self.get_slot(var, "m"), self.get_slot(var, "v")
            m_t = tf.assign(m, self._b1 * m + (1 - self._b1) * grad)
            v_t = tf.assign(v, self._b2 * v + (1 - self._b2) * grad * grad)
            step = self._lr_t * m_t / (1 - b1p) / (tf.sqrt(v_t) + self._eps)
            return tf.group(tf.assign_sub(var, step), m_t, v_t)

        def _finish(self, update_ops, name_scope):
            with tf.control_dependencies(update_ops):
                b1p = self._get_non_slot_variable("beta1_power", graph=tf.get_default_graph())
                upd = b1p.assign(b1p * self._b1)
            return tf.group(*update_ops + [upd], name=name_scope)

    with tf.Graph().as_default():
        w = tf.Variable(np.array([1.0, -2.0], np.float32), name="w")
        b = tf.Variable(0.5, name="b")
        loss = tf.reduce_sum((w - [3.0, 1.0]) ** 2) + (b + 1.0) ** 2
        gs = tf.train.get_or_create_global_step()
        opt = MyAdam(0.1)
        train = opt.minimize(loss, global_step=gs)
        assert sorted(v.name for v in tf.global_variables()) == [
            'b/MyAdam:0', 'b/MyAdam_v:0', 'b:0', 'beta1_power:0', 'global_step:0',
            'w/MyAdam:0', 'w/MyAdam_v:0', 'w:0'] and opt.get_slot_names() == ['m', 'v']
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            losses = [sess.run([loss, train])[0] for _ in range(4)]
            got = sess.run([w, b, gs, opt.get_slot(w, "v"),
                            opt._get_non_slot_variable("beta1_power", w.graph)])
    # TF 2.21's numbers
    np.testing.assert_allclose(losses, [15.25, 0.730734, 4.617177, 5.239279], rtol=2e-6)
    np.testing.assert_allclose(got[0], [3.866544008255005, 2.5739030838012695], rtol=1e-6)
    np.testing.assert_allclose(got[1], -1.432076, rtol=1e-6)
    assert got[2] == 4
    np.testing.assert_allclose(got[3], [0.040346, 0.063134], atol=1e-6)
    np.testing.assert_allclose(got[4], 0.59049, rtol=1e-6)


def test_a_protocol_optimizer_reading_base_dtype_is_told_what_to_write():
    class Plain(tf.train.Optimizer):
        def _apply_dense(self, grad, var):
            return tf.assign_sub(var, tf.cast(0.1, var.dtype.base_dtype) * grad)

    with tf.Graph().as_default():
        w = tf.Variable(1.0)
        with pytest.raises(AttributeError, match="base_dtype.*for var.dtype.base_dtype write "
                                                 "var.dtype"):
            Plain(False, "Plain").minimize(w * w)


def test_separable_conv2d_layers_names_values_and_gradients_as_tf():
    rng = np.random.RandomState(39)
    xv = rng.rand(2, 6, 6, 3).astype(np.float32)

    def init(shape, seed):
        values = np.random.RandomState(seed).randn(*shape).astype(np.float32).ravel() * 0.3
        return tf.constant_initializer(values)
    with tf.Graph().as_default():
        x = tf.constant(xv)
        y1 = tf.layers.separable_conv2d(x, 4, 3, padding="same", depth_multiplier=2,
                                        activation=tf.nn.relu,
                                        depthwise_initializer=init((3, 3, 3, 2), 1),
                                        pointwise_initializer=init((1, 1, 6, 4), 2))
        layer = tf.layers.SeparableConv2D(5, (2, 2), strides=(2, 2),
                                          depthwise_initializer=init((2, 2, 4, 1), 3),
                                          pointwise_initializer=init((1, 1, 4, 5), 4),
                                          bias_initializer=tf.constant_initializer(0.1))
        y2 = layer(y1)
        y3 = tf.layers.separable_conv2d(x, 2, 3, dilation_rate=2, name="dil",
                                        depthwise_initializer=init((3, 3, 3, 1), 5),
                                        pointwise_initializer=init((1, 1, 3, 2), 6))
        assert [(v.name, v.shape.as_list()) for v in tf.global_variables()][3:6] == [
            ('separable_conv2d_1/depthwise_kernel:0', [2, 2, 4, 1]),
            ('separable_conv2d_1/pointwise_kernel:0', [1, 1, 4, 5]),
            ('separable_conv2d_1/bias:0', [5])]
        assert [y.shape.as_list() for y in (y1, y2, y3)] == [[2, 6, 6, 4], [2, 3, 3, 5],
                                                             [2, 2, 2, 2]]
        g = tf.gradients(tf.reduce_sum(y2 ** 2) + tf.reduce_sum(y3), tf.trainable_variables())
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            v2, v3, grads = sess.run([y2, y3, g])
    # TF 2.21
    np.testing.assert_allclose(v2[0, 0], [[0.072196, 0.068734, 0.155372, 0.126505, 0.079276],
                                          [0.049257, 0.087682, 0.101783, 0.123291, 0.052015],
                                          [0.10264, 0.062442, 0.185331, 0.138287, 0.09249]],
                               atol=2e-6)
    np.testing.assert_allclose(v3[1, :, 0, 1], [0.297261, -0.03576], atol=2e-6)
    np.testing.assert_allclose([gv.sum() for gv in grads], [
        -0.29383, -0.59431, -0.31749, 1.05799, 0.98164, 13.48707, -20.41051, -1.24902, 16.0],
        atol=2e-5)


def test_version_profiling_options_and_gpu_queries_of_tf1_scripts():
    # print(tf.__version__) opens many scripts; TF 1.14-1.15 ones loop over GPUs to set
    # memory growth; profiling passes RunOptions/RunMetadata to sess.run
    assert tf.__version__ == tf.VERSION == "1.15.0" and tf.__version__.startswith("1.")
    gpus = tf.config.experimental.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    assert gpus == [] and [d.device_type for d in tf.config.list_physical_devices()] == ["CPU"]
    options = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
    jit = tf.ConfigProto(graph_options=tf.GraphOptions(
        optimizer_options=tf.OptimizerOptions(global_jit_level=tf.OptimizerOptions.ON_1)))
    with tf.Graph().as_default():
        x = tf.constant(2.0)
        with tf.Session(config=jit) as sess:
            metadata = tf.RunMetadata()
            assert sess.run(x * 3, options=options, run_metadata=metadata) == 6.0
            assert metadata.step_stats is None and options.trace_level == 3


def test_a_tf_layers_layer_subclass_builds_its_weights_once():
    class ScaleShift(tf.layers.Layer):
        def __init__(self, units, **kwargs):
            super(ScaleShift, self).__init__(**kwargs)
            self.units = units

        def build(self, input_shape):
            self.w = self.add_weight("w", shape=[int(input_shape[-1]), self.units],
                                     initializer=tf.constant_initializer(0.5))
            super(ScaleShift, self).build(input_shape)

        def call(self, x):
            return tf.matmul(x, self.w)

    with tf.Graph().as_default():
        layer = ScaleShift(2)
        a, b = layer(tf.constant([[1.0, -2.0, 3.0]])), layer(tf.constant([[1.0, 1.0, 1.0]]))
        assert [v.name for v in tf.global_variables()] == ["scale_shift/w:0"]   # TF's name
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run([a, b])[1].tolist() == [[1.5, 1.5]]


def test_string_ops_and_feature_columns_are_refused_with_what_to_do():
    for name in ("strings", "string_split", "lookup"):   # (decode_csv: probe8's message)
        with pytest.raises(AttributeError, match=f"tf.{name}: symgrad tensors hold real "
                                                 "numbers.*integer ids"):
            getattr(tf, name)
    with pytest.raises(AttributeError, match="tf.feature_column.sequence_numeric_column: "
                                             "of tf.feature_column, symgrad has"):
        tf.feature_column.sequence_numeric_column
    with pytest.raises(ValueError, match="crossed_column is not supported.*hashes"):
        tf.feature_column.crossed_column(["a", "b"], 10)


def test_static_bidirectional_rnn_with_lengths_as_tf():
    T, D = 3, 2
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [T, None, D])
        fw, bw = tf.nn.rnn_cell.BasicRNNCell(3), tf.nn.rnn_cell.BasicRNNCell(3)
        outs, sf, sb = tf.nn.static_bidirectional_rnn(fw, bw, tf.unstack(x), dtype=tf.float32,
                                                      sequence_length=[3, 2], scope="bi")
        g = tf.gradients(tf.reduce_sum(tf.stack(outs) ** 2) + tf.reduce_sum(sb), x)[0]
        assert [v.name for v in tf.global_variables()] == [
            'bi/fw/basic_rnn_cell/kernel:0', 'bi/fw/basic_rnn_cell/bias:0',
            'bi/bw/basic_rnn_cell/kernel:0', 'bi/bw/basic_rnn_cell/bias:0']
        xv = (np.arange(12, dtype=np.float32).reshape(T, 2, D) % 5) / 4 - 0.5
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for i, v in enumerate(tf.global_variables()):
                shape = v.get_shape().as_list()
                v.load(np.cos(np.arange(np.prod(shape)) + i).reshape(shape) * 0.5, sess)
            o, f, b, gv = sess.run([tf.stack(outs), sf, sb, g], {x: xv})
    # TF 2.21
    np.testing.assert_allclose(o[1], [[0.65441, 0.06888, -0.60968, -0.55218, -0.65986, -0.2307],
                                      [0.16067, -0.28903, -0.44909, -0.41611, -0.20033, 0.21989]],
                               atol=2e-5)
    np.testing.assert_allclose(o[2, 1], np.zeros(6))   # past the second row's length
    np.testing.assert_allclose(f, [[0.17149, -0.34767, -0.51185], [0.16067, -0.28903, -0.44909]],
                               atol=2e-5)
    np.testing.assert_allclose(b, [[-0.38292, -0.13769, 0.24843], [-0.39244, -0.18319, 0.21123]],
                               atol=2e-5)
    np.testing.assert_allclose(gv, [[[-0.62538, 0.75087], [-0.58981, 0.71844]],
                                    [[1.44937, -1.36987], [0.36267, -0.21813]],
                                    [[0.36574, -0.20452], [0.0, 0.0]]], atol=3e-5)
