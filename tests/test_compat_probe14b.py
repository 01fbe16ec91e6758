"""Probe 14b: what askers of "what does tf.gradients return" bring -- control flow
(while_loop, cond, case, scan, fold, map_fn, TensorArray) and tf.gradients' arguments.

Every expected number and exception class below was printed by TensorFlow 2.21
(``tensorflow.compat.v1`` with ``disable_v2_behavior()``) running the same program.
"""
import numpy as np
import pytest

import symgrad.compat.v1 as tf


@pytest.fixture(autouse=True)
def fresh_graph():
    tf.reset_default_graph()
    yield


def _run(fetches, feed=None):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return sess.run(fetches, feed)


# -- fn's output structure: TF's nest.assert_same_structure ---------------------------

def test_map_fn_of_a_tuple_returning_one_tensor_needs_dtype():
    # The classic question: map_fn over (a, b) returning a * b without dtype.
    e = tf.constant([1.0, 2.0, 3.0, 4.0])
    with pytest.raises(ValueError, match="same nested structure"):
        tf.map_fn(lambda t: t[0] * t[1], (e, e + 1.0))
    with pytest.raises(ValueError, match="same nested structure"):
        tf.map_fn(lambda t: (t, t), e)
    with pytest.raises(ValueError, match="same nested structure"):
        tf.map_fn(lambda t: t[0] + t[1], [e, e])
    with pytest.raises(ValueError, match="same nested structure"):
        tf.map_fn(lambda t: [t], e, dtype=tf.float32)
    m3 = tf.map_fn(lambda t: t[0] * t[1], (e, e + 1.0), dtype=tf.float32)
    g = tf.gradients(m3, e)
    got = _run([m3] + g)
    assert got[0].tolist() == [2.0, 6.0, 12.0, 20.0]        # TF: [ 2.  6. 12. 20.]
    assert got[1].tolist() == [3.0, 5.0, 7.0, 9.0]          # TF: [3. 5. 7. 9.]


def test_map_fn_list_against_tuple_is_a_type_error():
    e = tf.constant([1.0, 2.0, 3.0, 4.0])
    with pytest.raises(TypeError, match="same nested structure"):
        tf.map_fn(lambda t: [t[0], t[1]], (e, e))
    with pytest.raises(TypeError, match="same nested structure"):
        tf.map_fn(lambda t: [t, t], e, dtype=(tf.float32, tf.float32))
    out = tf.map_fn(lambda t: [t[0], t[1] * 2.0], [e, e])   # list to list: fine
    assert isinstance(out, list) and _run(out)[1].tolist() == [2.0, 4.0, 6.0, 8.0]


def test_scan_and_fold_check_fn_against_the_initializer():
    # symgrad used to keep the first len(initializer) results and drop the rest.
    e = tf.constant([1.0, 2.0, 3.0, 4.0])
    with pytest.raises(ValueError, match="same nested structure"):
        tf.scan(lambda a, x: (a[0], a[1], x), e, initializer=(0., 1.))
    with pytest.raises(ValueError, match="same nested structure"):
        tf.scan(lambda a, e: (a, e), e, initializer=tf.constant(0.0))
    with pytest.raises(ValueError, match="same nested structure"):
        tf.scan(lambda a, x: [a + x], e, initializer=0.)
    with pytest.raises(ValueError, match="same nested structure"):
        tf.foldr(lambda a, x: (a, x), e, initializer=0.)
    with pytest.raises(ValueError, match="same nested structure"):
        tf.foldl(lambda a, x: (a, x), e)
    with pytest.raises(TypeError, match="same nested structure"):
        tf.scan(lambda a, x: [a[0] + x, a[1]], e, initializer=(0., 1.))
    with pytest.raises(TypeError, match="same nested structure"):
        tf.foldl(lambda a, x: [a[0] + x, a[1]], e, initializer=(0., 1.))


def test_scan_fn_changing_the_accumulator_shape_names_scan():
    e = tf.constant([1.0, 2.0, 3.0, 4.0])
    with pytest.raises(ValueError, match="scan's fn: output 0 has shape \\(2,\\)"):
        tf.scan(lambda a, x: tf.stack([a, x]), e)     # TF: ValueError Inconsistent shapes


def test_nest_assert_same_structure_checks_sequence_types():
    with pytest.raises(TypeError, match="same nested structure"):
        tf.nest.assert_same_structure([1, 2], (1, 2))
    with pytest.raises(ValueError, match="same nested structure"):
        tf.nest.assert_same_structure([1, 2], [1, [2, 3]])
    tf.nest.assert_same_structure([1, 2], (1, 2), check_types=False)


# -- cond / while_loop argument errors: TF's classes ----------------------------------

def test_cond_and_while_loop_refuse_non_callables_with_type_errors():
    x = tf.Variable(3.0)
    p = tf.placeholder(tf.bool, [])
    with pytest.raises(TypeError, match="'true_fn' must be callable"):
        tf.cond(p, x * 2.0, lambda: x)
    with pytest.raises(TypeError, match="'false_fn' must be callable"):
        tf.cond(p, lambda: x, x)
    with pytest.raises(TypeError, match="'cond' must be callable"):
        tf.while_loop(True, lambda i: i + 1, [tf.constant(0)])


def test_cond_branches_of_different_dtypes_are_a_value_error():
    x = tf.Variable(3.0)
    p = tf.placeholder(tf.bool, [])
    with pytest.raises(ValueError, match="Received float32 from 'true_fn' and int32 from "
                                         "'false_fn'"):
        tf.cond(p, lambda: x, lambda: tf.constant(1))


# -- TensorArray ----------------------------------------------------------------------

def test_tensor_array_scatter_outside_and_inside_a_loop():
    x = tf.Variable([1.0, 2.0, 3.0], name="x")
    ta5 = tf.TensorArray(tf.float32, size=4).scatter([3, 1], tf.stack([x[:2], x[1:]]))
    s5 = ta5.stack()
    g5 = tf.gradients(tf.reduce_sum(s5 ** 2), x)
    ta7 = tf.TensorArray(tf.float32, size=3, element_shape=[2])

    def body7(i, t):
        return i + 1, t.scatter([i], tf.expand_dims(x[1:] * tf.cast(i + 1, tf.float32), 0))
    _, t7 = tf.while_loop(lambda i, t: i < 3, body7, [tf.constant(0), ta7])
    s7 = t7.stack()
    g7 = tf.gradients(tf.reduce_sum(s7 * s7), x)
    got = _run([s5, g5[0], s7, g7[0]])
    assert got[0].tolist() == [[0, 0], [2, 3], [0, 0], [1, 2]]   # TF 2.21
    assert got[1].tolist() == [2, 8, 6]
    assert got[2].tolist() == [[2, 3], [4, 6], [6, 9]]
    assert got[3].tolist() == [0, 56, 84]


# -- tf.gradients' arguments ------------------------------------------------------------

def test_gradients_name_is_the_name_scope_of_its_tensors():
    x = tf.Variable(2.0, name="x")
    y = x * x
    g = tf.gradients(y, x, name="mygrads")
    assert g[0].name.startswith("mygrads/")        # TF 2.21: mygrads/AddN:0
    with tf.name_scope("train"):
        g3 = tf.gradients(y, x)
    assert g3[0].name.startswith("train/gradients/")   # TF: train/gradients/AddN:0
    assert _run(g + g3) == [4.0, 4.0]


def test_grad_ys_of_known_shape_for_a_y_with_a_none_batch():
    # Optimizer.compute_gradients(pred, grad_loss=...) over a [None, 2] placeholder:
    # symgrad refused the (3, 1) seed for a (?, 1) prediction.
    X = tf.placeholder(tf.float32, [None, 2], name="X")
    W = tf.Variable([[0.5], [-0.5]], name="W")
    b = tf.Variable([0.1], name="b")
    pred = tf.matmul(X, W) + b
    opt = tf.train.GradientDescentOptimizer(0.1)
    gv3 = opt.compute_gradients(pred, var_list=[W, b],
                                grad_loss=tf.constant([[1.0], [2.0], [-1.0]]))
    gx = tf.gradients(pred, X, grad_ys=tf.constant([[1.0], [2.0], [-1.0]]))
    fd = {X: [[1., 2.], [3., 4.], [5., 6.]]}
    got = _run([gv3[0][0], gv3[1][0], gx[0]], fd)
    assert got[0].tolist() == [[2.0], [4.0]]             # TF 2.21: [[2.] [4.]]
    assert got[1].tolist() == [2.0]                      # TF: [2.]
    assert got[2].tolist() == [[0.5, -0.5], [1.0, -1.0], [-0.5, 0.5]]
    # 3 seeds for 2 rows: TF returns a (3, 2) gradient for the (2, 2) X; symgrad
    # refuses when the values arrive (SEMANTICS: a seed that does not fit y is an error)
    with pytest.raises(tf.errors.InvalidArgumentError):
        _run(gx, {X: [[1., 2.], [3., 4.]]})
    with pytest.raises(ValueError, match="grad_ys\\[0\\] has shape \\(1, 2\\)"):
        tf.gradients(pred, X, grad_ys=tf.constant([[1.0, 2.0]]))


# -- tf.hessians: a Hessian has x's dtype ------------------------------------------------

def test_hessians_through_a_cast_to_float64():
    # symgrad raised a TypeError (a float32 tangent met the float64 cast) here
    x = tf.Variable([1.5, 2.0])
    y = tf.reduce_sum(tf.cast(tf.cast(x, tf.float64) ** 3, tf.float32))
    h1 = tf.hessians(y, x)[0]
    h2 = tf.hessians(tf.reduce_sum(tf.cast(x, tf.float64) ** 3), x)[0]
    got = _run([h1, h2])
    for h in got:                                   # TF 2.21: [[ 9. 0.] [ 0. 12.]] float32
        assert h.dtype == np.float32 and h.tolist() == [[9.0, 0.0], [0.0, 12.0]]


def test_hessian_of_a_while_loop_has_x_dtype():
    # x**3 by a loop; TF cannot take this second derivative ("Second-order gradient for
    # while loops not supported"); symgrad's was float64 for a float32 x (the loop's
    # packed float64 result reached the tangent uncast).  9 = TF's d2(x**3) at 1.5, above.
    x1 = tf.Variable(1.5)
    n = tf.placeholder(tf.int32, [])
    _, p = tf.while_loop(lambda i, v: i < n, lambda i, v: (i + 1, v * x1), [0, tf.constant(1.0)])
    h = tf.hessians(p, x1)[0]
    assert h.dtype == np.float32
    got = _run(h, {n: 3})
    assert got.dtype == np.float32 and got == 9.0


# -- tf.gradients inside map_fn / while_loop / cond of a tensor made outside -----------

def test_jacobian_rows_by_gradients_inside_map_fn():
    # The askers' Jacobian: tf.map_fn(lambda i: tf.gradients(y[i], x)[0], tf.range(n)).
    # y is made outside the loop from x; TF's gradient leaves the body through y.
    # symgrad's body saw y as a constant and map_fn failed (fn returned None).
    x = tf.Variable([1.0, 2.0, 3.0, -2.0], name="x")
    W = tf.Variable([[1.0, 2.0], [3.0, 4.0]], name="W")
    y = tf.matmul(W, tf.reshape(x[:2], [2, 1]))
    jm = tf.map_fn(lambda i: tf.gradients(y[i, 0], x)[0], tf.range(2), dtype=tf.float32)
    jw = tf.map_fn(lambda i: tf.gradients(y[i, 0], [x, W]), tf.range(2),
                   dtype=[tf.float32, tf.float32])
    z = tf.sin(x) * x
    jd = tf.map_fn(lambda i: tf.gradients(z[i] * x[i], x)[0], tf.range(4), dtype=tf.float32)
    jy = tf.map_fn(lambda i: tf.gradients(y[i, 0] ** 2, y)[0], tf.range(2), dtype=tf.float32)
    got = _run([jm, jw, jd, jy])
    assert got[0].tolist() == [[1, 2, 0, 0], [3, 4, 0, 0]]             # TF 2.21
    assert got[1][0].tolist() == [[1, 2, 0, 0], [3, 4, 0, 0]]
    assert got[1][1].tolist() == [[[1, 2], [0, 0]], [[0, 0], [1, 2]]]
    assert np.allclose(np.diag(got[2]), [2.22324, 1.9726, -8.06321, 1.9726], rtol=1e-4)
    assert np.count_nonzero(got[2] - np.diag(np.diag(got[2]))) == 0
    assert got[3].tolist() == [[[10.0], [0.0]], [[0.0], [22.0]]]


def test_gradients_of_an_outer_tensor_inside_while_loop_and_cond():
    x = tf.Variable([1.0, 2.0, 3.0, -2.0], name="x")
    z = tf.sin(x) * x

    def body(i, acc):
        return i + 1, acc + tf.gradients(z[i], x)[0]
    _, wl = tf.while_loop(lambda i, acc: i < 4, body, [0, tf.zeros([4])])
    p = tf.placeholder(tf.bool, [])
    cz = tf.cond(p, lambda: tf.gradients(tf.reduce_sum(z), x)[0], lambda: tf.zeros([4]))
    got = _run([wl, cz], {p: True})
    tf_printed = [1.38177, 0.077, -2.82886, -0.077]                      # TF 2.21
    assert np.allclose(got[0], tf_printed, rtol=1e-4, atol=1e-5)
    assert np.allclose(got[1], tf_printed, rtol=1e-4, atol=1e-5)


def test_foldl_and_foldr_back_prop_false_make_a_constant():
    # symgrad's fold ignored back_prop=False (TF: the gradient is None)
    x = tf.Variable([1.0, 2.0], name="x")
    fl = tf.foldl(lambda a, e: a + e * x, tf.ones([3, 2]), back_prop=False)
    fr = tf.foldr(lambda a, e: a + e * x, tf.ones([3, 2]), back_prop=False)
    assert tf.gradients(tf.reduce_sum(fl), x) == [None]                  # TF 2.21: [None]
    assert tf.gradients(tf.reduce_sum(fr), x) == [None]
    assert _run(fl).tolist() == [3.0, 5.0]


# -- IndexedSlices: what the askers do with them ----------------------------------------

def test_densify_indexed_slices_with_their_dense_shape():
    # unsorted_segment_sum(g.values, g.indices, g.dense_shape[0]): symgrad refused the
    # computed num_segments though dense_shape is known when the graph is built
    emb = tf.Variable([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], name="emb")
    g = tf.gradients(tf.reduce_sum(tf.nn.embedding_lookup(emb, [0, 2, 0])), emb)[0]
    assert type(g).__name__ == "IndexedSlices"
    dense2 = tf.unsorted_segment_sum(g.values, g.indices, g.dense_shape[0])
    dense3 = tf.scatter_nd(tf.expand_dims(g.indices, 1), g.values, g.dense_shape)
    got = _run([dense2, dense3])
    for d in got:                                   # TF 2.21: [[2. 2.] [0. 0.] [1. 1.]]
        assert d.tolist() == [[2.0, 2.0], [0.0, 0.0], [1.0, 1.0]]


def test_case_exclusive_raises_when_two_predicates_hold():
    # symgrad took the first true predicate; TF raises at run time, value and gradient
    x = tf.Variable(2.0, name="x")
    p = tf.placeholder(tf.float32, [], name="p")
    r = tf.case([(p > 0, lambda: x * 2.0), (p > 1, lambda: x * 3.0)], default=lambda: x,
                exclusive=True)
    g = tf.gradients(r, x)
    assert _run([r] + g, {p: 0.5}) == [4.0, 2.0]                # TF 2.21
    assert _run([r] + g, {p: -1.0}) == [2.0, 1.0]
    for fetch in ([r], g):
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="exclusive=True: more than 1 conditions"):
            _run(fetch, {p: 2.0})
    r2 = tf.case([(p > 0, lambda: x * 2.0), (p > 1, lambda: x * 3.0)], default=lambda: x)
    assert _run(r2, {p: 2.0}) == 4.0                            # not exclusive: the first


def test_compute_gradients_takes_a_loss_function_and_checks_gate_gradients():
    x = tf.Variable([1.0, 2.0])
    opt = tf.train.AdamOptimizer(0.1)
    gv = opt.compute_gradients(lambda: tf.reduce_sum(x ** 2))      # TF 2.21 accepts it
    with pytest.raises(ValueError, match="gate_gradients must be one of"):
        opt.compute_gradients(tf.reduce_sum(x ** 2), gate_gradients=5)
    got = _run(gv)
    assert got[0][0].tolist() == [2.0, 4.0] and got[0][1].tolist() == [1.0, 2.0]


def test_while_loop_returns_the_structure_its_body_returns():
    # TF packs the loop's values in the body's structure: print(sess.run(loop)) shows a
    # tuple for loop vars [0, 1.0] and a body returning (i + 1, a * 2.0); symgrad gave a list
    import collections
    P = collections.namedtuple("P", "a b")
    r1 = tf.while_loop(lambda i, a: i < 2, lambda i, a: (i + 1, a * 2.0), [0, 1.0])
    r2 = tf.while_loop(lambda i, a: i < 2, lambda i, a: [i + 1, a * 2.0], (0, 1.0))
    r3 = tf.while_loop(lambda i, a: i < 2, lambda i, a: P(i + 1, a * 2.0), (0, 1.0))
    r4 = tf.while_loop(lambda i: i < 2, lambda i: (i + 1,), [0], return_same_structure=True)
    r5 = tf.while_loop(lambda i: i < 2, lambda i: i + 1, [0], return_same_structure=True)
    r6 = tf.while_loop(lambda i, p: i < 2, lambda i, p: [i + 1, (p[0] * 2.0, p[1])],
                       (0, (1.0, 2.0)))
    assert type(r1) is tuple and type(r2) is list and type(r3) is P
    assert type(r4) is tuple and type(r5) is list and type(r6) is list
    got = _run([r1, r6])
    assert tuple(got[0]) == (2, 4.0)                       # TF 2.21: (2, 4.0)
    assert got[1][0] == 2 and tuple(got[1][1]) == (4.0, 2.0)   # [2, (4.0, 2.0)]
    with pytest.raises(TypeError, match="'body' must be callable"):
        tf.while_loop(lambda i: i < 2, None, [0])


def test_variable_initialized_from_a_loop_body_tensor_is_tf_value_error():
    # symgrad said "placeholder 'Const_4' was not fed" (the body's loop counter)
    def body_v(i, a):
        v = tf.Variable(tf.constant(2.0) * tf.cast(i, tf.float32), name="inner")
        return i + 1, a + v
    with pytest.raises(ValueError, match="is from inside a control-flow construct"):
        tf.while_loop(lambda i, a: i < 2, body_v, [0, 0.0])

    def body_gv(i, a):
        v = tf.get_variable("gv_inner", initializer=tf.constant(1.0))
        return i + 1, a + v
    with pytest.raises(ValueError, match="is from inside a control-flow construct"):
        tf.while_loop(lambda i, a: i < 2, body_gv, [0, 0.0])

    def body_ok(i, a):     # TF 2.21: fine with an initializer object, (2, 2.0)
        v = tf.get_variable("gv_inner2", shape=[], initializer=tf.ones_initializer())
        return i + 1, a + v
    r2 = tf.while_loop(lambda i, a: i < 2, body_ok, [0, 0.0])
    assert tuple(_run(r2)) == (2, 2.0)


# -- tf.cond's branches ------------------------------------------------------------------

def test_cond_branches_returning_python_numbers_give_float32():
    # tf.cond(p, lambda: 1.0, lambda: 0.0): TF1 makes float32 constants; symgrad's were
    # float64, so lambda: 1 against a float32 tensor named int64
    x = tf.Variable(2.0, name="x")
    p = tf.placeholder(tf.bool, [])
    r = tf.cond(p, lambda: 1.0, lambda: 2.0)
    r2 = tf.cond(p, lambda: 1.0, lambda: x)
    assert r.dtype == tf.float32 and r2.dtype == tf.float32
    got = _run([r, r2], {p: False})
    assert got[0] == 2.0 and got[0].dtype == np.float32 and got[1] == 2.0   # TF 2.21
    with pytest.raises(ValueError, match="Received int32 from 'true_fn' and float32"):
        tf.cond(p, lambda: 1, lambda: x)


def test_cond_branches_must_return_one_structure():
    x = tf.Variable(2.0, name="x")
    p = tf.placeholder(tf.bool, [])
    with pytest.raises(ValueError, match="same nested structure"):   # symgrad kept {'a'}
        tf.cond(p, lambda: {"a": x}, lambda: {"b": x})
    with pytest.raises(TypeError, match="same nested structure"):
        tf.cond(p, lambda: (x, x * 2.0), lambda: [x, x * 3.0])
    with pytest.raises(TypeError, match="same nested structure"):
        tf.cond(p, lambda: (x, (x, x)), lambda: (x, [x, x]))
    with pytest.raises(ValueError):                                 # TF: rank 0 needed
        tf.cond(tf.constant([True, False]), lambda: x, lambda: x)
    d = tf.cond(p, lambda: {"a": x, "b": x * 2.0}, lambda: {"a": x * 3.0, "b": x})
    got = _run(d, {p: False})
    assert got == {"a": 6.0, "b": 2.0}                               # TF 2.21


def test_map_fn_numbers_take_the_dtype_of_elems_or_dtype():
    e = tf.constant([1.0, 2.0, 3.0])
    m1 = tf.map_fn(lambda x: 1.0, e)
    m2 = tf.map_fn(lambda x: 1, e, dtype=tf.int32)
    m3 = tf.map_fn(lambda x: (x, 2.0), e, dtype=(tf.float32, tf.float32))
    got = _run([m1, m2, m3])                   # TF 2.21: float32, int32, (float32, float32)
    assert got[0].dtype == np.float32 and got[0].tolist() == [1.0, 1.0, 1.0]
    assert got[1].dtype == np.int32 and got[1].tolist() == [1, 1, 1]
    assert got[2][1].dtype == np.float32 and got[2][1].tolist() == [2.0, 2.0, 2.0]


def test_while_loop_shape_invariants_must_fit_the_initial_shapes():
    i0 = tf.constant(0)
    m0 = tf.ones([2, 2])
    with pytest.raises(ValueError, match="The shape invariant specified for .* is not "
                                         "compatible with the initial shape"):
        tf.while_loop(lambda i, m: i < 3, lambda i, m: [i + 1, m * 2.0], [i0, m0],
                      shape_invariants=[i0.get_shape(), tf.TensorShape([3, 2])])
    with pytest.raises(ValueError):
        tf.while_loop(lambda i, m: i < 3, lambda i, m: [i + 1, m * 2.0], [i0, m0],
                      shape_invariants=[i0.get_shape()])
    r = tf.while_loop(lambda i, m: i < 3, lambda i, m: [i + 1, m * 2.0], [i0, m0],
                      shape_invariants=[i0.get_shape(), tf.TensorShape([None, 2])])
    P = tf.placeholder(tf.float32, [None, 2])
    r2 = tf.while_loop(lambda i, m: i < 3, lambda i, m: [i + 1, m * 2.0], [i0, P],
                       shape_invariants=[i0.get_shape(), tf.TensorShape([None, 2])])
    got = _run([r, r2], {P: [[1.0, 2.0]]})
    assert got[0][1].tolist() == [[8.0, 8.0], [8.0, 8.0]]        # TF 2.21
    assert got[1][1].tolist() == [[8.0, 16.0]]


# -- tf.py_function is differentiable (TF's tape) ----------------------------------------

def test_py_function_gradient_through_the_tf_ops_it_calls():
    # symgrad gave None (it treated py_function as opaque, like py_func)
    x = tf.Variable([1.0, 2.0], name="x")
    W = tf.Variable([[1.0, 2.0], [3.0, 4.0]], name="W")
    P = tf.placeholder(tf.float32, [None, 2])
    y1 = tf.py_function(lambda a: a * a, [x], tf.float32)
    g1 = tf.gradients(tf.reduce_sum(y1), x)
    y2 = tf.py_function(lambda a, b: tf.matmul(a, b), [P, W], tf.float32)
    g2 = tf.gradients(tf.reduce_sum(y2), [P, W])
    y3 = tf.py_function(lambda a: (tf.sin(a), a * 3.0), [x], [tf.float32, tf.float32])
    g3 = tf.gradients(tf.reduce_sum(y3[1]) + tf.reduce_sum(y3[0]), x)
    y6 = tf.py_function(lambda a: tf.reduce_sum(a ** 2) * 0.5, [x], tf.float32)
    g6 = tf.gradients(y6 * 2.0, x)
    n = tf.py_func(lambda a: a * a, [x], tf.float32)              # py_func: none, as TF
    assert tf.gradients(tf.reduce_sum(n), x) == [None]
    got = _run([g1[0], g2[0], g2[1], g3[0], g6[0]], {P: [[1., 1.], [2., 0.]]})
    assert got[0].tolist() == [2.0, 4.0]                             # TF 2.21
    assert got[1].tolist() == [[3.0, 7.0], [3.0, 7.0]]
    assert got[2].tolist() == [[3.0, 3.0], [1.0, 1.0]]
    assert np.allclose(got[3], [3.5403, 2.58385], rtol=1e-5)
    assert got[4].tolist() == [2.0, 4.0]
