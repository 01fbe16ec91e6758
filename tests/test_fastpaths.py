"""The reference evaluator's other ways to the graph's values (``ops.fastpaths``):
contractions with a one-hot tensor from its indices (``ops.onehot``), and top_k's
results by one sort (a ``Shortcut``), each against the graph's own evaluation."""
import weakref

import numpy as np
import pytest

import symgrad as sg
from symgrad.evaluate import needed, run
from symgrad.graph import ancestors
from symgrad.ops import fastpaths, onehot


def _dense(ids, depth):
    return (np.asarray(ids)[..., None] == np.arange(depth)).astype(float)


@pytest.mark.parametrize("subscripts,a_shape,ids_shape,position", [
    ("ab,ca->cb", (5, 3), (4,), 1), ("ca,ab->cb", (5, 3), (4,), 0),
    ("cb,ca->ab", (4, 3), (4,), 1), ("ab,cda->cdb", (5, 3), (2, 4), 1),
    ("cdb,cda->ab", (2, 4, 3), (2, 4), 1), ("cdb,cda->cab", (2, 4, 3), (2, 4), 1),
    ("eab,cda->ecdb", (2, 5, 3), (2, 4), 1), ("cb,ca->a", (4, 3), (4,), 1),
    ("ab,ca->c", (5, 3), (4,), 1), ("cdb,cda->dab", (2, 4, 3), (2, 4), 1),
    ("cb,ca->cab", (4, 3), (4,), 1),
    ("ab,a->b", (5, 3), (), 1), ("b,a->ab", (3,), (), 1)])   # one index (a TensorArray read)
def test_contractions_from_indices_equal_the_dense_einsum(rng, subscripts, a_shape, ids_shape,
                                                          position):
    depth = 5
    a = rng.normal(size=a_shape)
    ids = rng.integers(-1, depth + 1, size=ids_shape)    # some out of range: zeros
    operands = [a, a]
    operands[position] = _dense(ids, depth)
    want = np.einsum(subscripts, *operands)
    assert onehot.handles(subscripts, position, len(ids_shape))
    operands[position] = None
    got = onehot.contract(subscripts, operands, position, ids, depth)
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-13)
    assert got.shape == want.shape


def test_diagonals_and_kept_depth_axes_are_left_to_einsum():
    assert not onehot.handles("ab,ab->b", 1, 1)     # depth read by both sides
    assert not onehot.handles("ab,ca->ca", 1, 1)    # depth kept and contracted
    assert onehot.handles("cb,ca->cab", 1, 1)       # a scatter keeping the ids' axis
    assert onehot.handles("cb,ca->ab", 1, 1)
    assert not onehot.handles("ca,ca->c", 1, 1)     # ids' axis read by the gather too


def _gather_graph(table_rows=50):
    params = sg.placeholder(shape=(table_rows, 3), name="params")
    ids = sg.placeholder(shape=(None,), dtype="int32", name="ids")
    picked = sg.gather(params, ids)
    loss = sg.reduce_sum(sg.sin(picked) * sg.cast(sg.reshape(ids, (-1, 1)), "float64"))
    (g,) = sg.gradients(loss, params)
    return params, ids, picked, g


def test_gathers_by_fed_indices_skip_the_one_hot_and_agree_with_it(rng):
    params, ids, picked, g = _gather_graph()
    table = rng.normal(size=(50, 3))
    table[7] = [np.inf, np.nan, -np.inf]    # a row nobody picks
    feed = {params: table, ids: np.array([3, 49, 3, 0, 60, -1])}
    hot = [n for n in ancestors([picked]) if n.one_hot is not None]
    assert len(hot) == 1
    values = run([picked, g], feed)
    assert hot[0] not in values    # never made
    want = np.where((feed[ids] >= 0)[:, None] & (feed[ids] < 50)[:, None],
                    table[np.clip(feed[ids], 0, 49)], 0.0)
    np.testing.assert_array_equal(values[picked], want)
    scatter = np.zeros((50, 3))
    for k, i in enumerate(feed[ids]):
        if 0 <= i < 50:
            scatter[i] += np.cos(table[i]) * i
    np.testing.assert_allclose(values[g], scatter, rtol=1e-13)
    # the graph's own way (the one-hot made) gives the same where every row is finite
    table[7] = 0.5
    fast = run([picked, g], feed)
    hot[0].one_hot = None
    slow = run([picked, g], feed)
    np.testing.assert_allclose(fast[picked], slow[picked], rtol=1e-15)
    np.testing.assert_allclose(fast[g], slow[g], rtol=1e-13, atol=1e-15)


def test_a_contraction_of_two_one_hots_makes_both(rng):
    # a confusion matrix: einsum of the labels' and the predictions' one-hot tensors
    labels = sg.placeholder(shape=(6,), dtype="int32", name="labels")
    guesses = sg.placeholder(shape=(6,), dtype="int32", name="guesses")
    counts = sg.einsum("ba,bc->ac", sg.one_hot(labels, 3), sg.one_hot(guesses, 3))
    feed = {labels: np.array([0, 1, 2, 2, 1, 0]), guesses: np.array([0, 2, 2, 1, 1, 0])}
    want = np.zeros((3, 3))
    np.add.at(want, (feed[labels], feed[guesses]), 1)
    np.testing.assert_array_equal(sg.evaluate(counts, feed), want)


def test_a_one_hot_fetched_or_read_elsewhere_is_made(rng):
    ids = sg.placeholder(shape=(4,), dtype="int32", name="ids")
    hot = sg.one_hot(ids, 6)
    table = sg.constant(rng.normal(size=(6, 2)))
    picked = sg.matmul(hot, table)   # a matmul reads it: the dense way
    feed = {ids: np.array([1, 5, 0, 2])}
    order = needed([picked], feed)
    assert fastpaths.plan(order, [picked], feed) == (order, {}, set())   # all of it runs
    np.testing.assert_allclose(sg.evaluate(picked, feed), sg.evaluate(table)[feed[ids]])
    got = sg.evaluate([hot, sg.gather(table, ids)], feed)
    np.testing.assert_array_equal(got[0], _dense(feed[ids], 6).astype(np.float32))


@pytest.mark.parametrize("x", [
    np.array([1.0, 5.0, 3.0, 5.0]), np.array([np.nan, 2.0, -np.inf, np.nan, -0.0, 0.0, 2.0]),
    np.array([-np.inf, -np.inf, 1.0]), np.array([np.nan, np.nan, np.nan]),
    np.array([[0.0, -0.0, 0.0], [np.inf, np.nan, -np.inf]]), np.zeros(6),
    np.arange(40.0) % 4, np.linspace(-1, 1, 27).reshape(3, 9).round(1)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_top_k_by_one_sort_equals_its_rounds(x, dtype):
    # ties (first index first), NaN (never chosen while anything else is left), k
    # past the entries above -inf (index 0 again, as the rounds give), -0.0 (0.0)
    for k in range(2, x.shape[-1] + 1):
        with sg.Graph().as_default():
            c = sg.placeholder(shape=x.shape, dtype=dtype, name="c")
            v, i = sg.nn.top_k(c, k)
            assert v.shortcut is not None and i.shortcut is not None
            feed = {c: x.astype(dtype)}
            fast = sg.evaluate([v, i], feed)
            v.shortcut = i.shortcut = None
            rounds = sg.evaluate([v, i], feed)
        assert fast[0].dtype == rounds[0].dtype and fast[1].dtype == rounds[1].dtype
        assert fast[0].tobytes() == rounds[0].tobytes()
        np.testing.assert_array_equal(fast[1], rounds[1])


def test_top_k_values_keep_their_gradient(rng):
    x = sg.placeholder(shape=(7,), name="x")
    values, _ = sg.nn.top_k(x, 3)
    (g,) = sg.gradients(sg.reduce_sum(values * np.array([1.0, 2.0, 3.0])), x)
    v = rng.normal(size=7)
    want = np.zeros(7)
    want[np.argsort(-v, kind="stable")[:3]] = [1.0, 2.0, 3.0]
    np.testing.assert_array_equal(sg.evaluate(g, {x: v}), want)


def test_sparse_steps_change_a_table_in_place_only_when_nothing_else_holds_it():
    import symgrad.compat.v1 as tf
    from symgrad.compat import train

    class Holder:
        def __init__(self, value):
            self.value = value

    sole = Holder(np.zeros((4, 2)))
    before = weakref.ref(sole.value)    # (a weak reference does not count)
    train._put_rows(sole, np.array([1, 3]), np.ones((2, 2)))
    assert sole.value is before() and sole.value[[1, 3]].sum() == 4   # in place
    shared = Holder(np.zeros((4, 2)))
    kept = shared.value     # held elsewhere (a value read earlier in the same run)
    train._put_rows(shared, np.array([0]), np.ones((1, 2)))
    assert shared.value is not kept and kept.sum() == 0 and shared.value.sum() == 2
    assert not train._sole_owner(Holder(np.broadcast_to(np.zeros(2), (3, 2))))   # a view
    # a word2vec-style step: gradient descent on the rows looked up, repeats in order
    with tf.Graph().as_default():
        emb = tf.Variable(np.arange(40, dtype=np.float32).reshape(10, 4))
        ids = tf.placeholder(tf.int32, [3])
        loss = tf.reduce_sum(tf.nn.embedding_lookup(emb, ids) ** 2)
        step = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        sess = tf.Session()
        sess.run(tf.global_variables_initializer())
        first = sess.run(emb)
        for _ in range(2):
            sess.run(step, {ids: [1, 1, 3]})
        # between runs a compat variable's array (a CallableValue view of a base only
        # it holds) is the variable's alone: its rows change in place
        assert train._sole_owner(emb)
        table = sess.run(emb)
    want = first.copy()
    for _ in range(2):
        grads = {i: 2 * want[i] for i in (1, 3)}   # from the table before the step
        for i in (1, 1, 3):
            want[i] -= np.float32(0.1) * grads[i]
    np.testing.assert_array_equal(table, want)
    assert first[1].tolist() == [4.0, 5.0, 6.0, 7.0]   # a fetched value is the caller's
