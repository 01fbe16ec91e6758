"""Round-14 probe c: answers symgrad gave where TensorFlow 2.21 (compat.v1, v2
behaviour disabled) raises or answers otherwise -- each session holding its own
variable values, an assign's ``.op`` fetched as None, integer powers and divisions
TF refuses, and indices out of range.  The numbers are TF's printed output for the
same programs."""
import os

import numpy as np
import pytest

import symgrad.compat.v1 as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default() as g:
        yield g


# ---- each session holds its own variable values (TF1's) ----

def test_sessions_hold_their_own_values():
    v = tf.Variable(1.0, name="v")
    inc = tf.assign_add(v, 1.0)
    init = tf.global_variables_initializer()
    s1, s2 = tf.Session(), tf.Session()
    s1.run(init)
    with pytest.raises(tf.errors.FailedPreconditionError):
        s2.run(v)
    assert [s1.run(inc), s1.run(inc)] == [2.0, 3.0]
    s2.run(init)
    # TF: s2 starts at 1.0; s1 keeps 3.0 through s2's initializer and increment
    assert s2.run(v) == 1.0 and s1.run(v) == 3.0
    assert s2.run(inc) == 2.0 and s1.run(v) == 3.0
    v.load(10.0, s2)
    assert s2.run(v) == 10.0 and s1.run(v) == 3.0
    with s1.as_default():
        assert v.eval() == 3.0
    assert v.eval(session=s2) == 10.0


def test_restore_and_close_touch_one_session(tmp_path):
    v = tf.Variable(1.0, name="v")
    inc = tf.assign_add(v, 1.0)
    init = tf.global_variables_initializer()
    s1, s2 = tf.Session(), tf.Session()
    s1.run(init), s1.run(inc), s1.run(inc)
    s2.run(init)
    v.load(10.0, s2)
    path = tf.train.Saver().save(s1, os.path.join(str(tmp_path), "m"))
    s3 = tf.Session()
    with pytest.raises(tf.errors.FailedPreconditionError):
        s3.run(v)
    tf.train.Saver().restore(s3, path)
    assert s3.run(v) == 3.0 and s3.run(inc) == 4.0     # TF: 3.0, 4.0
    assert s1.run(v) == 3.0 and s2.run(v) == 10.0      # TF: unchanged
    s1.close()
    with pytest.raises(tf.errors.FailedPreconditionError):
        tf.Session().run(v)
    s5 = tf.Session()
    assert s5.run(tf.assign(v, 7.0)) == 7.0 and s2.run(v) == 10.0
    sess = tf.InteractiveSession()
    init.run()
    inc.eval()
    assert v.eval() == 2.0 and s2.run(v) == 10.0       # TF: 2.0, 10.0
    sess.close()


def test_training_in_one_session_leaves_another():
    w = tf.Variable([1.0, 2.0], name="w")
    train = tf.train.AdamOptimizer(0.1).minimize(tf.reduce_sum(w * w))
    init = tf.global_variables_initializer()
    a, b = tf.Session(), tf.Session()
    a.run(init), b.run(init)
    for _ in range(3):
        a.run(train)
    np.testing.assert_allclose(a.run(w), [0.7015873, 1.7006245], rtol=1e-6)
    np.testing.assert_array_equal(b.run(w), [1.0, 2.0])
    b.run(train)
    np.testing.assert_allclose(b.run(w), [0.90000004, 1.9], rtol=1e-6)
    np.testing.assert_allclose(a.run(w), [0.7015873, 1.7006245], rtol=1e-6)


# ---- an assign's .op is an Operation: fetched, it gives None ----

def test_assign_op_fetches_none():
    v = tf.Variable(3.0, name="v")
    w = tf.Variable([1.0, 2.0], name="w")
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    assert sess.run(tf.assign(v, 1.0).op) is None
    assert sess.run(tf.assign(v, 2.0)) == 2.0
    assert sess.run(tf.assign_add(v, 1.0).op) is None and sess.run(v) == 3.0
    assert sess.run(tf.scatter_update(w, [0], [9.0]).op) is None
    assert sess.run(w.assign_sub([1.0, 1.0]).op) is None
    np.testing.assert_array_equal(sess.run(w), [8.0, 1.0])
    got = sess.run({"a": tf.assign_add(v, 1.0).op, "g": tf.group(tf.assign(w, [0., 0.]).op)})
    assert got == {"a": None, "g": None} and sess.run(v) == 4.0
    # the view runs the assign itself: fetched with it, the update happens once
    up = tf.assign_add(v, 1.0)
    assert sess.run([up, up.op])[1] is None and sess.run(v) == 5.0
