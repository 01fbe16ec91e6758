"""What the tenth differential probe of TF1 programs from courses (CS231n, CS294-112,
Udacity's deep learning notebooks, Google's ML crash course, deeplearning.ai) found,
against real TensorFlow 2.21 (compat.v1, v2 behaviour disabled).  The numbers are
TF 2.21's."""
import numpy as np
import pytest

import symgrad.compat.v1 as tf


def test_a_tensor_computed_for_an_update_keeps_its_value_in_the_run():
    # Udacity 6_lstm: the loss waits for the assigns that save the last output, and
    # reads the outputs those assigns were computed from (TF runs each op once per
    # run); symgrad recomputed them from the saved state just written
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [2])
        saved = tf.Variable([0.5, -1.0], trainable=False)
        w = tf.Variable(0.8)
        out1 = tf.tanh(w * saved + x)
        out2 = tf.tanh(w * out1 + x)
        with tf.control_dependencies([saved.assign(out2)]):
            loss = tf.reduce_sum(tf.square(out1) + out2)
        step = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
        seen = []
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(3):
                seen.append(sess.run([step, loss], {x: [0.1, 0.2]})[1])
            last = sess.run([saved, w])
    # TF 2.21
    np.testing.assert_allclose(seen, [0.71423995, 0.63922477, 0.42627114], rtol=1e-6)
    np.testing.assert_allclose(last[0], [0.12115154, 0.23111898], rtol=1e-6)
    np.testing.assert_allclose(last[1], -0.119550884, rtol=1e-5)


def test_hand_written_sgd_step_returns_the_loss_before_the_update():
    # CS231n 2018 assignment 2, training_step: assign_sub per weight, then
    # `with tf.control_dependencies(new_weights): return tf.identity(loss)`; the
    # placeholder has no shape (its gradient has unknown rank: assign_sub crashed)
    with tf.Graph().as_default():
        w = tf.Variable(2.0)
        x = tf.placeholder(tf.float32)
        loss = tf.square(w * x)
        (g,) = tf.gradients(loss, [w])
        new_w = tf.assign_sub(w, 0.1 * g)
        with tf.control_dependencies([new_w]):
            out = tf.identity(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            seen = [(sess.run(out, {x: 1.0}), sess.run(w)) for _ in range(3)]
    # TF 2.21: 4.0 1.6 / 2.5600002 1.28 / 1.6384 1.0239999
    np.testing.assert_allclose(seen, [(4.0, 1.6), (2.5600002, 1.28), (1.6384, 1.0239999)],
                               rtol=1e-6)


def test_seeded_multinomial_draws_tfs_own_samples():
    # CS294-112 HW2: tf.multinomial(logits, 1) samples the policy's actions; with seeds
    # the samples are TF's (its kernel's doubles over the running sum of exp(logits))
    with tf.Graph().as_default():
        tf.set_random_seed(1)
        logits = tf.constant([[0.1, -0.3], [1.0, 2.0], [0., 0.]])
        m = tf.multinomial(logits, 5, seed=3)
        c = tf.random.categorical(logits, 4, seed=2)
        with tf.Session() as sess:
            first, second, cat = sess.run(m), sess.run(m), sess.run(c)
    with tf.Graph().as_default():   # (no graph seed: TF's default one)
        p = tf.placeholder(tf.float32, [None, 4])
        q = tf.multinomial(p, 3, seed=5, output_dtype=tf.int32)
        with tf.Session() as sess:
            rows = sess.run(q, {p: [[0., -np.inf, 1., 2.], [-1., 5., -np.inf, 0.]]})
            one = sess.run(q, {p: np.log([[0.1, 0.2, 0.3, 0.4]])})
    # TF 2.21
    assert first.tolist() == [[0, 1, 1, 0, 0], [1, 1, 1, 0, 1], [0, 0, 0, 1, 1]]
    assert second.tolist() == [[0, 0, 0, 1, 1], [0, 1, 1, 0, 1], [1, 0, 0, 1, 0]]
    assert cat.tolist() == [[0, 0, 0, 0], [1, 1, 1, 1], [1, 0, 0, 1]]
    assert rows.tolist() == [[2, 3, 3], [1, 1, 1]] and one.tolist() == [[3, 2, 1]]
    assert (m.dtype, q.dtype) == (np.int64, np.int32)


def test_contrib_estimator_clip_gradients_by_norm_in_a_linear_regressor(tmp_path):
    # Google's ML crash course: LinearRegressor(optimizer=tf.contrib.estimator.
    # clip_gradients_by_norm(GradientDescentOptimizer(lr), 5.0)), trained in periods over
    # a tf.data input_fn.  TF 2.21 has no estimators: these are TF 2.15's numbers (the
    # same program with contrib's clipping written as a tf.train.Optimizer subclass)
    x = np.arange(1., 11.)
    y = 3 * x + 1

    def input_fn(num_epochs=None):
        ds = tf.data.Dataset.from_tensor_slices(({"x": x}, y)).batch(5).repeat(num_epochs)
        return ds.make_one_shot_iterator().get_next()
    opt = tf.contrib.estimator.clip_gradients_by_norm(
        tf.train.GradientDescentOptimizer(0.1), 5.0)
    assert opt.get_name() == "ClipByNormGradientDescent"
    est = tf.estimator.LinearRegressor([tf.feature_column.numeric_column("x")],
                                       optimizer=opt, model_dir=str(tmp_path))
    seen = []
    for _ in range(2):
        est.train(input_fn, steps=2)
        p = np.array([d["predictions"][0] for d in est.predict(lambda: input_fn(1))])
        seen.append([np.sqrt(np.mean((p - y) ** 2)),
                     est.get_variable_value("linear/linear_model/x/weights").item(),
                     est.get_variable_value("linear/linear_model/bias_weights").item()])
    np.testing.assert_allclose(seen, [[13.265089948730388, 0.9781168699264526, 0.19406180083751678],
                                      [7.024805844777249, 1.9561206102371216, 0.3885412812232971]],
                               rtol=1e-6)


def test_yolo_non_max_suppression_of_masked_boxes_with_a_variable_limit():
    # deeplearning.ai's YOLO assignment: yolo_filter_boxes keeps boxes by a boolean mask
    # (a count known with the values), then non_max_suppression with
    # max_output_size = K.variable(max_boxes, dtype='int32').  Both were refused; and a
    # loop body over the masked boxes ran the mask again with other random numbers
    with tf.Graph().as_default():
        conf = tf.random_normal([40], mean=1, stddev=4, seed=1)
        boxes = tf.random_normal([40, 4], mean=1, stddev=4, seed=1)
        mask = conf >= 0.6
        scores = tf.boolean_mask(conf, mask)
        kept = tf.image.non_max_suppression(tf.boolean_mask(boxes, mask), scores,
                                            tf.Variable(5, dtype="int32"), 0.5)
        assert kept.shape.as_list() == [None]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            index = sess.run(kept)
            best = sess.run(tf.gather(scores, kept))   # (a second run: new numbers)
    # TF 2.21
    assert index.tolist() == [7, 11, 0, 18, 9]
    np.testing.assert_allclose(best, [8.718311309814453, 6.996955871582031, 6.658423900604248,
                                      6.3353095054626465, 5.876367092132568], rtol=1e-6)


def test_a_tuple_of_tensors_is_fed_from_a_value_of_its_structure():
    # Udacity's sentiment RNN: feed = {..., initial_state: state}, the state a tuple of
    # LSTMStateTuples that sess.run(final_state) returned (TF flattens such keys)
    import collections
    pair = collections.namedtuple("pair", "c h")
    with tf.Graph().as_default():
        a = tf.placeholder(tf.float32, [2])
        b, c = tf.placeholder(tf.float32, []), tf.placeholder(tf.float32, [])
        with tf.Session() as sess:
            out = sess.run(a * 2 + b - c, {(pair(a, b), c): (pair(np.ones(2), 3.), 1.)})
            with pytest.raises(ValueError):
                sess.run(a, {(a, b): [np.ones(2)]})
    assert out.tolist() == [4.0, 4.0]   # TF 2.21 (and ValueError for the short value)



def test_binary_linear_classifier_takes_float_labels(tmp_path):
    # the ML crash course's classifiers: targets (median_house_value > 265000).astype(float);
    # TF's binary head casts labels to float (ids are needed for more classes only).
    # TF 2.15's numbers (TF 2.21 has no estimators)
    x = np.linspace(-1., 1., 8)
    y = (x > 0.1).astype(float)

    def input_fn(num_epochs=None):
        ds = tf.data.Dataset.from_tensor_slices(({"x": x}, y)).batch(4).repeat(num_epochs)
        return ds.make_one_shot_iterator().get_next()
    est = tf.estimator.LinearClassifier([tf.feature_column.numeric_column("x")],
                                        optimizer=tf.train.GradientDescentOptimizer(0.5),
                                        model_dir=str(tmp_path))
    est.train(input_fn, steps=3)
    ev = est.evaluate(lambda: input_fn(1))
    want = {'accuracy': 0.875, 'accuracy_baseline': 0.5, 'auc': 1.0,
            'auc_precision_recall': 1.0, 'average_loss': 0.372707, 'global_step': 3.0,
            'label/mean': 0.5, 'loss': 1.490826, 'precision': 1.0,
            'prediction/mean': 0.408213, 'recall': 0.75}
    assert sorted(ev) == sorted(want)
    for key, value in want.items():
        assert abs(float(ev[key]) - value) < 2e-6, key


def test_assigns_a_cond_branch_waits_for_run_when_the_branch_is_taken():
    # Udacity's batch-normalization lesson: the training branch assigns the population
    # statistics under tf.control_dependencies and returns the normalised layer (it was
    # refused: a branch is traced as a function).  TF 2.21's values
    with tf.Graph().as_default():
        v, w = tf.Variable(0.0), tf.Variable([1.0, 2.0])
        p = tf.placeholder(tf.bool, [])
        x = tf.placeholder(tf.float32, [2])

        def taken():
            a, b = tf.assign_add(v, 1.0), tf.assign(w, x * 2)
            with tf.control_dependencies([tf.group(a, b)]):
                return tf.reduce_sum(x) + 1.0

        def other():
            with tf.control_dependencies([tf.assign_sub(v, 0.5)]):
                return tf.reduce_sum(x) - 1.0
        out = tf.cond(p, taken, other)
        g = tf.gradients(out * out, x)[0]
        seen = []
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for k in (True, False, True, False):
                seen.append([sess.run(out, {p: k, x: [1., 2.]}), sess.run(v)])
            grad = sess.run(g, {p: True, x: [1., 2.]})
            assert sess.run(v) == 2.0 and sess.run(w).tolist() == [2.0, 4.0]
            sess.run(x, {x: [3., 3.]})
            assert sess.run(v) == 2.0   # (nothing that reads the cond: no update)
    assert seen == [[4.0, 1.0], [2.0, 0.5], [4.0, 1.5], [2.0, 1.0]]
    assert grad.tolist() == [8.0, 8.0]


def test_batch_norm_lesson_population_statistics():
    with tf.Graph().as_default():
        inputs = tf.placeholder(tf.float32, [None, 2])
        is_training = tf.placeholder(tf.bool)
        layer = inputs * tf.Variable([1.0, -2.0])
        pop_mean = tf.Variable(tf.zeros([2]), trainable=False)
        pop_variance = tf.Variable(tf.ones([2]), trainable=False)

        def batch_norm_training():
            batch_mean, batch_variance = tf.nn.moments(layer, [0])
            train_mean = tf.assign(pop_mean, pop_mean * 0.9 + batch_mean * 0.1)
            train_variance = tf.assign(pop_variance, pop_variance * 0.9 + batch_variance * 0.1)
            with tf.control_dependencies([train_mean, train_variance]):
                return tf.nn.batch_normalization(layer, batch_mean, batch_variance, None,
                                                 None, 1e-3)

        def batch_norm_inference():
            return tf.nn.batch_normalization(layer, pop_mean, pop_variance, None, None, 1e-3)
        out = tf.cond(is_training, batch_norm_training, batch_norm_inference)
        feed = {inputs: [[1., 2.], [3., 6.]]}
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            trained = sess.run(out, {**feed, is_training: True})
            inferred = sess.run(out, {**feed, is_training: False})
            stats = sess.run([pop_mean, pop_variance])
    # TF 2.21
    np.testing.assert_allclose(trained, [[-0.9995003938674927, 0.9999687671661377],
                                         [0.9995005130767822, -0.9999687671661377]], rtol=1e-6)
    np.testing.assert_allclose(stats, [[0.2, -0.8], [1.0, 2.5]], rtol=1e-6)
    np.testing.assert_allclose(inferred, [[0.7996003031730652, -2.0234532356262207],
                                          [2.7986011505126953, -7.082086086273193]], rtol=1e-6)


def test_concat_of_one_tensor_is_that_tensor():
    # Udacity's Anna KaRNNa: seq_output = tf.concat(lstm_output, axis=1) with dynamic_rnn's
    # one [batch, steps, units] tensor is the tensor itself (TF wraps it in a list); it
    # was read as a list of its rows and joined, silently reordering the reshape after it
    with tf.Graph().as_default():
        x = tf.constant(np.arange(12.).reshape(2, 3, 2), tf.float32)
        c = tf.concat(x, axis=1)
        assert c.shape.as_list() == [2, 3, 2]   # TF 2.21
        np.testing.assert_array_equal(tf.Session().run(c), np.arange(12.).reshape(2, 3, 2))
