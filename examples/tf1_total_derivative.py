"""Classic question 1: "Why does tf.gradients(a + b, [a, b]) give [3.0, 1.0] and not [1.0, 1.0]?"

The snippet is TF1 code as it is usually asked (it is the example of TF's own
tf.gradients documentation); only the import line is changed.
"""
import symgrad as sg
import symgrad.compat.v1 as tf          # was: import tensorflow as tf

a = tf.constant(0.)
b = 2 * a
g = tf.gradients(a + b, [a, b])
g_partial = tf.gradients(a + b, [a, b], stop_gradients=[a, b])

with tf.Session() as sess:
    print(sess.run(g))                  # [3.0, 1.0]
    print(sess.run(g_partial))          # [1.0, 1.0]

# Why: tf.gradients returns *total* derivatives.  a reaches a + b directly (1) and
# through b = 2a (2 * 1); the two paths are summed.  stop_gradients=[a, b] holds
# both constant, which gives the partial derivatives.
print()
print(sg.explain(a + b, [a, b]))
print(sg.explain(a + b, [a, b], stop_gradients=[a, b]))
