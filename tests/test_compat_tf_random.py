"""TF's own random numbers where TF's seeds fix them (``ops.philox``): seeded random ops,
initializers and dropout give, run after run, the numbers TF 2.21 gives (printed by
the same program under ``tensorflow.compat.v1``, as ``tolist()`` of each value)."""
import numpy as np
import pytest

from symgrad.ops import philox
from .tf1_programs import run_tf1

# TF 2.21: the program below, run with `import tensorflow.compat.v1 as tf`
TF_VALUES = {'a_b_a': [[[0.9656925201416016, -0.1782267689704895, 2.4377617835998535],
            [0.2601451873779297, 0.7763165235519409, 0.1927487850189209]],
           [0.5219835042953491, 1.1409419775009155, 0.3154299259185791, 1.2446702718734741],
           [[2.4166245460510254, 2.4988605976104736, 2.0055439472198486],
            [-0.4337921142578125, -0.8868774175643921, 1.137080430984497]]],
 'a_new_session': [[0.9656925201416016, -0.1782267689704895, 2.4377617835998535],
                   [0.2601451873779297, 0.7763165235519409, 0.1927487850189209]],
 'abc': [[[-0.5279005765914917, -0.4808071255683899, 1.8693203926086426],
          [0.5797991752624512, 1.1022698879241943, 0.3624277114868164]],
         [0.6801252365112305, 1.4825465679168701, 0.15083473920822144, 0.891920268535614],
         [3.2792140057663404, -0.49803629143469]],
 'd': [-0.00506973173469305, -0.03616390749812126, 0.060505177825689316, 0.05090055987238884,
       -0.03055812232196331],
 'dropout': [[[[1.25, 2.5, 0.0, 5.0, 6.25, 0.0], [0.0, 10.0, 11.25, 12.5, 13.75, 15.0]],
              [[1.4285714626312256, 0.0, 4.285714149475098, 5.714285850524902, 0.0, 0.0],
               [10.0, 0.0, 12.85714340209961, 14.285715103149414, 0.0, 0.0]],
              [[0.0, 0.0, 5.0, 0.0, 8.333333015441895, 0.0],
               [0.0, 0.0, 14.999999046325684, 16.66666603088379, 0.0, 20.0]],
              [[0.0, 0.0, 16.66666603088379, 0.0, 27.777774810791016, 0.0],
               [0.0, 0.0, 49.999996185302734, 55.55554962158203, 0.0, 66.66666412353516]]],
             [[[1.25, 2.5, 3.75, 5.0, 6.25, 7.5], [8.75, 10.0, 11.25, 12.5, 13.75, 15.0]],
              [[1.4285714626312256, 2.857142925262451, 0.0, 5.714285850524902, 0.0,
                8.571428298950195],
               [10.0, 11.428571701049805, 0.0, 14.285715103149414, 0.0, 17.14285659790039]],
              [[0.0, 3.3333332538604736, 5.0, 6.666666507720947, 0.0, 10.0],
               [11.666666030883789, 13.333333015441895, 14.999999046325684, 0.0, 0.0, 0.0]],
              [[0.0, 11.11111068725586, 16.66666603088379, 22.22222137451172, 0.0,
                33.33333206176758],
               [38.888885498046875, 44.44444274902344, 49.999996185302734, 0.0, 0.0, 0.0]]]],
 'n': [[[0.7432124614715576, 0.4990565776824951, 0.5279039144515991],
        [0.4721105098724365, 0.9377596378326416, 0.9857852458953857]],
       [[0.18945515155792236, 0.2479877471923828, 0.6000044345855713]]],
 'w': [[[-0.002353588119149208, -0.07080437242984772, 0.07906702905893326,
         0.056100863963365555],
        [-0.08576558530330658, 0.14076225459575653, -0.046607933938503265, 0.02961823157966137],
        [-0.07864470034837723, -0.06390880793333054, 0.006423673126846552,
         0.07366722822189331]],
       [[-0.055362727493047714, 0.03360786288976669],
        [0.041944436728954315, 0.039612121880054474]],
       [[-0.6454244256019592, 0.5450612902641296, 0.6890754103660583],
        [0.5163154006004333, -0.29322290420532227, -0.19920921325683594],
        [0.6663298010826111, -0.6005132794380188, -0.21236073970794678],
        [-0.6944881677627563, 0.6791686415672302, 0.4868254065513611],
        [0.7834663987159729, 0.24955111742019653, -0.7243154048919678]],
       [[0.35833221673965454, 0.6008860468864441, -0.026226986199617386],
        [-0.574667751789093, 0.3261125981807709, 0.13736283779144287],
        [-0.24494792520999908, -0.13326752185821533, -0.3655001223087311]]]}

PROGRAM = """
import numpy as np
import tensorflow as tf
out = {}
g = tf.Graph()
with g.as_default():
    tf.set_random_seed(3)
    x = tf.placeholder(tf.float32, [None, 3])
    a = tf.random_uniform([2, 3], minval=-1.0, maxval=2.5, seed=11)
    b = tf.random_normal([4], mean=1.0, stddev=0.5, seed=12)
    c = tf.random_normal([2], seed=13, dtype=tf.float64)
    d = tf.truncated_normal([5], stddev=0.1, seed=14)
    n = tf.random_uniform(tf.shape(x), seed=15)
    w1 = tf.get_variable("w1", [3, 4], initializer=tf.truncated_normal_initializer(stddev=0.1, seed=1))
    w2 = tf.get_variable("w2", [2, 2], initializer=tf.random_uniform_initializer(-0.1, 0.1, seed=3))
    w3 = tf.get_variable("w3", [3, 3, 2, 4], initializer=tf.variance_scaling_initializer(scale=2.0, seed=4))
    w4 = tf.get_variable("w4", [5, 3], initializer=tf.glorot_uniform_initializer(seed=0))
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        out["a_b_a"] = [s.run(a).tolist(), s.run(b).tolist(), s.run(a).tolist()]
        out["abc"] = [v.tolist() for v in s.run([a, b, c])]
        out["d"] = s.run(d).tolist()
        out["n"] = [s.run(n, {x: np.ones((2, 3))}).tolist(), s.run(n, {x: np.ones((1, 3))}).tolist()]
        out["w"] = [s.run(w).tolist() for w in (w1, w2, w4)] + [s.run(w3)[:, :, 1, 2].tolist()]
    with tf.Session() as s:
        out["a_new_session"] = s.run(a).tolist()
g = tf.Graph()
with g.as_default():
    x = tf.placeholder(tf.float32, [None, 6])
    kp = tf.placeholder(tf.float32)
    d1 = tf.nn.dropout(x, keep_prob=0.8, seed=1)
    d3 = tf.nn.dropout(x, keep_prob=kp, seed=3)
    d4 = tf.nn.dropout(x, rate=0.3, noise_shape=[1, 6], seed=4)
    gr = tf.gradients(tf.reduce_sum(d3 * d3), x)[0]
    X = np.arange(1, 13, dtype=np.float32).reshape(2, 6)
    with tf.Session() as s:
        out["dropout"] = [[v.tolist() for v in s.run([d1, d4, d3, gr], {x: X, kp: 0.6})] for _ in range(2)]
"""


@pytest.fixture(scope="module")
def got():
    return run_tf1(PROGRAM)["out"]


@pytest.mark.parametrize("key", sorted(TF_VALUES))
def test_seeded_random_ops_give_tfs_numbers(got, key):
    # every number bit for bit: TF's Philox stream, its distributions, float32 arithmetic
    assert got[key] == TF_VALUES[key]


def test_without_an_op_seed_the_numbers_are_symgrads_own():
    # TF's numbers then depend on how many ops the graph holds (its op seed is the op
    # count), so symgrad does not claim them: only the graph seed is set here
    got = run_tf1("""
    import tensorflow as tf
    tf.set_random_seed(1)
    b = tf.random_normal([3])
    with tf.Session() as sess:
        first, second = sess.run(b), sess.run(b)
    """)
    # TF 2.21 prints [0.305205, 0.567138, 0.418523] for the first run of this program
    assert got["first"].shape == (3,) and not np.allclose(got["first"], got["second"])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_truncated_groups_match_the_one_call_at_a_time_rule(dtype):
    # the vectorised rejection agrees with a group made one generator call at a time
    per = 4 if dtype == np.float32 else 2
    values = philox.truncated_normal((60 * per,), dtype, (5, 9))
    for g in range(60):
        stretch = per * 256 // 4
        one = philox._truncated_group((5, 9), g * stretch, per, dtype)
        np.testing.assert_array_equal(values[g * per:(g + 1) * per], one)
    assert np.abs(values).max() < 2.0


def test_the_compiled_generator_gives_the_numpy_rounds_words(monkeypatch):
    # large draws take their words from a compiled loop: the same words, bit for bit,
    # at counters across the 32-bit boundary and at the top of the 64-bit range
    rng = np.random.default_rng(3)
    positions = np.concatenate([rng.integers(0, 2**63, 500, dtype=np.uint64),
                                np.arange(2**32 - 3, 2**32 + 3, dtype=np.uint64),
                                np.array([2**64 - 1, 0], dtype=np.uint64)])
    for seeds in [(87654321, 1), (2**31 - 2, 5), (0, 2**31 - 1)]:
        monkeypatch.setattr(philox, "COMPILED_FROM", 2**40)
        monkeypatch.setattr(philox, "FIRST_COMPILED_FROM", 2**40)
        by_numpy = philox._words_at(seeds, positions)
        monkeypatch.setattr(philox, "COMPILED_FROM", 0)
        monkeypatch.setattr(philox, "FIRST_COMPILED_FROM", 0)
        np.testing.assert_array_equal(philox._words_at(seeds, positions), by_numpy)


def test_a_large_truncated_normal_keeps_each_groups_numbers():
    # 2**13 groups (the compiled generator, one call per group then four for the short
    # ones): sampled groups against the one-call-at-a-time rule
    per, groups = 4, 1 << 13
    values = philox.truncated_normal((groups * per,), np.float32, (7, 3), start=1024)
    for g in list(range(0, groups, 97)) + [groups - 1]:
        one = philox._truncated_group((7, 3), 1024 + g * per * 256 // 4, per, np.float32)
        np.testing.assert_array_equal(values[g * per:(g + 1) * per], one)


def test_seeds_follow_tfs_get_seed():
    assert philox.tf_seeds(None, 7) == (87654321, 7)
    assert philox.tf_seeds(1, 2) == (1, 2)
    assert philox.tf_seeds(0, 0) == (0, 2**31 - 1)   # (0, 0) would mean "nondeterministic"
    assert philox.tf_seeds(3, None) is None


COURSE_PROGRAM = """
import numpy as np
import tensorflow as tf

def initialize_parameters():
    tf.set_random_seed(1)
    W1 = tf.get_variable("W1", [25, 20], initializer=INIT(seed=1))
    b1 = tf.get_variable("b1", [25, 1], initializer=tf.zeros_initializer())
    W2 = tf.get_variable("W2", [12, 25], initializer=INIT(seed=1))
    b2 = tf.get_variable("b2", [12, 1], initializer=tf.zeros_initializer())
    W3 = tf.get_variable("W3", [6, 12], initializer=INIT(seed=1))
    b3 = tf.get_variable("b3", [6, 1], initializer=tf.zeros_initializer())
    return {"W1": W1, "b1": b1, "W2": W2, "b2": b2, "W3": W3, "b3": b3}

def forward_propagation(X, p):
    A1 = tf.nn.relu(tf.add(tf.matmul(p["W1"], X), p["b1"]))
    A2 = tf.nn.relu(tf.add(tf.matmul(p["W2"], A1), p["b2"]))
    return tf.add(tf.matmul(p["W3"], A2), p["b3"])

def random_mini_batches(X, Y, size, seed):
    np.random.seed(seed)
    perm = list(np.random.permutation(X.shape[1]))
    X, Y = X[:, perm], Y[:, perm]
    return [(X[:, k:k + size], Y[:, k:k + size]) for k in range(0, X.shape[1], size)]

INIT = tf.contrib.layers.xavier_initializer if XAVIER else tf.glorot_uniform_initializer
rng = np.random.RandomState(0)
X_train = rng.rand(20, 100).astype(np.float32)
Y_train = np.eye(6, dtype=np.float32)[rng.randint(0, 6, 100)].T
X = tf.placeholder(tf.float32, [20, None], name="X")
Y = tf.placeholder(tf.float32, [6, None], name="Y")
params = initialize_parameters()
Z3 = forward_propagation(X, params)
cost = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(logits=tf.transpose(Z3),
                                                               labels=tf.transpose(Y)))
optimizer = tf.train.AdamOptimizer(learning_rate=0.01).minimize(cost)
costs = []
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    first_row = sess.run(params["W1"])[0, :4]
    seed = 3
    for epoch in range(20):
        epoch_cost = 0.0
        seed += 1
        for mX, mY in random_mini_batches(X_train, Y_train, 32, seed):
            _, c = sess.run([optimizer, cost], feed_dict={X: mX, Y: mY})
            epoch_cost += c / 4
        costs.append(epoch_cost)
    correct = tf.equal(tf.argmax(Z3), tf.argmax(Y))
    accuracy = tf.reduce_mean(tf.cast(correct, "float")).eval({X: X_train, Y: Y_train})
"""


@pytest.mark.parametrize("xavier", [False, True])
def test_a_seeded_course_program_prints_tfs_numbers(xavier):
    # a deeplearning.ai-style TF1 assignment (seeded Xavier initializers, Adam, numpy
    # minibatches): TF 2.21 prints these (with glorot_uniform_initializer(seed=1), which
    # is contrib's xavier_initializer(seed=1); tf.contrib is gone from TF 2)
    got = run_tf1(COURSE_PROGRAM, XAVIER=xavier)
    np.testing.assert_array_equal(
        got["first_row"], np.array([-0.32458466, -0.35149294, -0.31343627, -0.16693696],
                                   np.float32))
    assert [f"{c:f}" for c in got["costs"][::5]] == ["1.834781", "1.721287", "1.656784",
                                                      "1.590282"]
    assert got["accuracy"] == np.float32(0.45)


def test_seeded_integer_draws_give_tfs_numbers():
    got = run_tf1("""
    import tensorflow as tf
    tf.set_random_seed(1)
    a = tf.random_uniform([6], minval=0, maxval=10, dtype=tf.int32, seed=6)
    b = tf.random_uniform([5], minval=-3, maxval=1000, dtype=tf.int64, seed=8)
    c = tf.random_uniform([2, 3], minval=-7, maxval=-2, dtype=tf.int32, seed=9)
    with tf.Session() as sess:
        runs = [sess.run([a, b, c]) for _ in range(2)]
    """)
    # TF 2.21, the same program
    tf_runs = [[[1, 8, 5, 6, 5, 6], [912, 15, 57, 876, 52], [[-3, -6, -3], [-7, -6, -7]]],
               [[5, 9, 4, 7, 8, 3], [424, 342, 771, 135, 57], [[-6, -4, -5], [-6, -4, -7]]]]
    assert [[v.tolist() for v in run] for run in got["runs"]] == tf_runs
    assert [v.dtype.name for v in got["runs"][0]] == ["int32", "int64", "int32"]


def test_seeded_draws_in_a_loop_body_are_symgrads_own_and_new_each_iteration():
    # inside a while_loop body TF's op runs once per iteration; symgrad draws its own
    # numbers there (README), integers included, anew at every iteration and run
    got = run_tf1("""
    import tensorflow as tf
    def body(i, acc):
        u = tf.random_uniform([4], 0, 10, dtype=tf.int32, seed=3)
        return i + 1, acc + tf.one_hot(i, 3, dtype=tf.int32)[:, None] * u   # row i
    _, out = tf.while_loop(lambda i, a: i < 3, body, [tf.constant(0), tf.zeros([3, 4], tf.int32)])
    with tf.Session() as sess:
        first, second = sess.run(out).ravel(), sess.run(out).ravel()
    """)
    first, second = got["first"], got["second"]
    assert first.dtype == np.int32 and first.shape == (12,) and 0 <= first.min() <= first.max() < 10
    assert len({tuple(first[k:k + 4]) for k in (0, 4, 8)}) == 3 and not np.array_equal(first, second)


def test_seeded_conv_filters_print_tfs_numbers():
    # the deeplearning.ai ConvNet assignment's initialize_parameters (TF 2.21 prints these
    # with glorot_uniform_initializer(seed=0), contrib's xavier_initializer(seed=0))
    got = run_tf1("""
    import tensorflow as tf
    with tf.Session() as sess_test:
        tf.set_random_seed(1)
        W1 = tf.get_variable("W1", [4, 4, 3, 8],
                             initializer=tf.contrib.layers.xavier_initializer(seed=0))
        W2 = tf.get_variable("W2", [2, 2, 8, 16],
                             initializer=tf.contrib.layers.xavier_initializer(seed=0))
        sess_test.run(tf.global_variables_initializer())
        w1, w2 = W1.eval()[1, 1, 1], W2.eval()[1, 1, 1]
    """)
    # (numpy prints at most 8 decimals, or fewer where those give the float32 back)
    np.testing.assert_allclose(got["w1"], [0.00131723, 0.1417614, -0.04434952, 0.09197326,
                                           0.14984085, -0.03514394, -0.06847463, 0.05245192],
                               rtol=0, atol=1e-8)
    np.testing.assert_allclose(got["w2"][:4], [-0.08566415, 0.17750949, 0.11974221, 0.16773748],
                               rtol=0, atol=1e-8)


def test_seeded_random_shuffle_gives_tfs_order_run_after_run():
    got = run_tf1("""
    import numpy as np
    import tensorflow as tf
    a = tf.random_shuffle(tf.range(10), seed=1)
    b = tf.random_shuffle(tf.reshape(tf.range(12), [4, 3]), seed=2)
    x = tf.placeholder(tf.float32, [None, 2])
    c = tf.random_shuffle(x, seed=3)
    v = tf.constant([1.0, 2.0, 3.0])
    grad = tf.gradients(tf.reduce_sum(tf.random_shuffle(v, seed=1)), v)
    with tf.Session() as sess:
        runs = [sess.run(a).tolist(), sess.run(a).tolist(), sess.run(b).tolist(),
                sess.run(b).tolist(),
                sess.run(c, {x: np.arange(10.0).reshape(5, 2)}).tolist(),
                sess.run(c, {x: np.arange(6.0).reshape(3, 2)}).tolist()]
    """)
    # TF 2.21 (RandomShuffle has no gradient there: the path through it is cut)
    assert got["runs"] == [
        [7, 9, 3, 6, 5, 1, 8, 4, 0, 2], [5, 1, 8, 3, 0, 9, 4, 7, 2, 6],
        [[9, 10, 11], [3, 4, 5], [6, 7, 8], [0, 1, 2]], [[3, 4, 5], [6, 7, 8], [9, 10, 11], [0, 1, 2]],
        [[4.0, 5.0], [8.0, 9.0], [6.0, 7.0], [0.0, 1.0], [2.0, 3.0]],
        [[4.0, 5.0], [2.0, 3.0], [0.0, 1.0]]]
    assert list(got["grad"]) == [None]


def test_two_ops_of_one_seed_each_have_their_own_stream():
    got = run_tf1("""
    import tensorflow as tf
    a = tf.random_uniform([3], seed=7)
    b = tf.random_uniform([3], seed=7)
    with tf.Session() as sess:
        runs = [sess.run(a), sess.run(b), sess.run(b)]
    """)
    first, b_first, b_second = got["runs"]
    # TF: b's first run repeats a's first numbers; its second run goes on
    np.testing.assert_array_equal(first, b_first)
    assert not np.array_equal(b_first, b_second)


@pytest.mark.parametrize("kwargs", [dict(rate=1.0), dict(keep_prob=0.0)])
def test_a_seeded_dropout_of_everything_is_refused_as_an_unseeded_one(kwargs):
    # (TF: ValueError, rate must be in [0, 1)); the seeded path divided by zero here
    import symgrad.compat.v1 as tf
    with pytest.raises(ValueError, match=r"rate must be in \[0, 1\)"):
        tf.nn.dropout(tf.ones([3]), seed=1, **kwargs)
