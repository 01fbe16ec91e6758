"""TF1 gradient features from the questions people ask: tf.custom_gradient,
RegisterGradient with gradient_override_map, gradients through assigns, folds and
segment means.  Expected values are derived by hand (TF's documented results)."""
import numpy as np
import pytest

import symgrad as sg

from .tf1_programs import run_tf1


def test_custom_gradient_as_tfs_documentation_shows_it():
    ns = run_tf1("""
        import tensorflow as tf
        @tf.custom_gradient
        def log1pexp(x):
            e = tf.exp(x)
            def grad(dy):
                return dy * (1 - 1 / (1 + e))
            return tf.log(1 + e), grad

        @tf.custom_gradient
        def clip_gradient(x):
            def grad(dy):
                return tf.clip_by_value(dy, -0.1, 0.1)
            return tf.identity(x), grad

        w = tf.Variable(2.0)
        @tf.custom_gradient
        def scaled(x):
            def grad(dy, variables=None):
                return dy * 10.0, [dy * 100.0]
            return w * x, grad

        x = tf.constant([0.0, 100.0])
        z = tf.placeholder(tf.float32, [3])
        v = tf.constant(3.0)
        outs = [log1pexp(x), tf.gradients(log1pexp(x), x)[0],
                tf.gradients(tf.reduce_sum(clip_gradient(z) * 5.0), z)[0],
                tf.hessians(tf.reduce_sum(clip_gradient(z) ** 2), z)[0],
                tf.gradients(scaled(v), [v, w])]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got = sess.run(outs, {z: [0.01, 1.0, -0.02]})
        """)
    value, grad, clipped, hess, (dv, dw) = ns["got"]
    assert value[0] == pytest.approx(np.log(2.0)) and np.isinf(value[1])   # float32 overflow
    np.testing.assert_allclose(grad, [0.5, 1.0])        # the custom rule: no inf * 0
    np.testing.assert_allclose(clipped, [0.1, 0.1, 0.1])
    # TF1's Hessian (one reverse sweep per row) differentiates clip(2 y) and sends that
    # through the custom rule again: clip(2 * 1) = 0.1 inside the band, 0 outside
    np.testing.assert_allclose(hess, np.diag([0.1, 0.0, 0.1]), rtol=1e-6)
    assert (dv, dw) == (10.0, 100.0)


def test_registered_gradients_override_op_types_inside_the_map():
    ns = run_tf1("""
        import tensorflow as tf
        @tf.RegisterGradient("ReverseGrad")
        def _reverse(op, grad):
            return -grad

        @tf.RegisterGradient("StraightThrough")
        def _straight(op, grad):
            assert op.type == "Round" and len(op.inputs) == 1
            return grad

        x = tf.placeholder(tf.float32, [3])
        g = tf.get_default_graph()
        with g.gradient_override_map({"Identity": "ReverseGrad", "Round": "StraightThrough"}):
            flipped = tf.identity(x)
            rounded = tf.round(x)
        with g.gradient_override_map({"Sign": "Identity", "Identity": "Square"}):
            binary = tf.sign(x)                   # TF's own gradients by op type name
            squared = tf.identity(x)
        builtin = tf.gradients(tf.reduce_sum(binary * 2.0 + squared), x)
        plain = tf.round(x)                       # outside the map: TF's (None)
        grads = tf.gradients(tf.reduce_sum(flipped * 2.0 + rounded * 3.0), x)
        none = tf.gradients(tf.reduce_sum(plain), x)
        with tf.Session() as sess:
            got = sess.run([flipped, rounded, grads], {x: [0.4, 1.6, -2.5]})
            through = sess.run(builtin, {x: [0.4, 1.6, -2.5]})
        """)
    np.testing.assert_allclose(ns["through"][0], [2.8, 5.2, -3.0], rtol=1e-6)  # 2 + 2 x
    flipped, rounded, (grads,) = ns["got"]
    np.testing.assert_allclose(flipped, [0.4, 1.6, -2.5])
    np.testing.assert_allclose(rounded, [0.0, 2.0, -2.0])
    np.testing.assert_allclose(grads, [1.0, 1.0, 1.0])   # -2 (reversed) + 3 (straight through)
    assert ns["none"] == [None]
    tf = ns["tf"]
    with pytest.raises(KeyError, match="two gradient"):
        tf.RegisterGradient("ReverseGrad")(lambda op, grad: grad)
    with sg.Graph().as_default() as g, pytest.raises(LookupError, match="RegisterGradient"):
        with g.gradient_override_map({"Identity": "NeverRegistered"}):
            tf.identity(tf.constant(1.0))


def test_gradients_through_assigns_folds_and_segment_means():
    ns = run_tf1("""
        import tensorflow as tf
        v = tf.Variable(1.0)
        a = tf.assign(v, 2.0 * v)
        through = tf.gradients(a * a, v)          # TF: Assign has no gradient
        of_result = tf.gradients(a * a, a)        # the result itself is a tensor
        xs = tf.constant([1.0, 2.0, 3.0])
        sq = tf.foldl(lambda acc, x: acc + x * x, xs, initializer=0.0)
        digits = tf.foldr(lambda acc, x: acc * 10.0 + x, xs)
        d = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
        means = tf.segment_mean(d, [0, 0, 2])
        sums = tf.segment_sum(tf.constant([1.0, 2.0, 3.0]), tf.constant([0, 0, 1]))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got = sess.run([of_result, sq, tf.gradients(sq, xs), digits, means, sums,
                            tf.gradients(tf.reduce_sum(means ** 2), d)])
        """)
    assert ns["through"] == [None]
    of_result, sq, (dsq,), digits, means, sums, (dmeans,) = ns["got"]
    assert of_result == [4.0] and sq == 14.0 and digits == 321.0
    np.testing.assert_allclose(dsq, [2.0, 4.0, 6.0])
    np.testing.assert_allclose(means, [[2.0, 3.0], [0.0, 0.0], [5.0, 6.0]])   # empty: 0
    np.testing.assert_allclose(sums, [3.0, 3.0])
    np.testing.assert_allclose(dmeans, [[2.0, 3.0], [2.0, 3.0], [10.0, 12.0]])


def test_a_custom_gradient_compiles_to_the_same_values():
    import symgrad.compat.v1 as tf
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [3])

        @tf.custom_gradient
        def halve(t):
            return tf.sin(t), lambda dy: dy * 0.5
        f = tf.reduce_sum(halve(x) * x)
        (g,) = tf.gradients(f, x)
        fn = sg.compile([f, g], [x])
        point = np.array([0.3, -1.0, 2.0], np.float32)
        want = sg.evaluate([f, g], {x: point})
        got = fn(point)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-6)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-6)
    np.testing.assert_allclose(want[1], 0.5 * point + np.sin(point), rtol=1e-6)


def test_space_to_depth_follows_tfs_layout_and_depth_to_space_inverts_it():
    import symgrad.compat.v1 as tf
    x = np.arange(2 * 4 * 6 * 3, dtype=np.float32).reshape(2, 4, 6, 3)
    want = np.zeros((2, 2, 3, 12), np.float32)   # TF's formula, entry by entry
    for i, j, di, dj in np.ndindex(2, 3, 2, 2):
        want[:, i, j, (di * 2 + dj) * 3:(di * 2 + dj + 1) * 3] = x[:, 2 * i + di, 2 * j + dj]
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float32, [None, 4, 6, 3])
        packed = tf.space_to_depth(p, 2)
        back = tf.nn.depth_to_space(packed, 2)
        (grad,) = tf.gradients(tf.reduce_sum(packed * packed), p)
        with tf.Session() as sess:
            got, again, g = sess.run([packed, back, grad], {p: x})
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(again, x)
    np.testing.assert_allclose(g, 2 * x)
