"""Classic question 2: "Why does tf.gradients of a scalar return a matrix, with every entry
equal to 2*sum + 1?"

TF1 code as asked; only the import line is changed.  tf.random_normal is sampled
once, when it is created (TF samples at every run; see symgrad.compat.v1).
"""
import symgrad as sg
import symgrad.compat.v1 as tf          # was: import tensorflow as tf

x = tf.Variable(tf.random_normal([3, 3]))
s = tf.reduce_sum(x)
y = s ** 2 + s - 1
grad = tf.gradients(y, x)

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    g, total = sess.run([grad, s])
    print(g)                            # a list with one 3x3 array
    print("2 * sum + 1 =", 2 * total + 1)

# Why: gradients returns d y / d x with x's shape.  y = s**2 + s - 1 with
# s = sum(x), so d y / d x[i, j] = (2 s + 1) * d s / d x[i, j] = 2 s + 1 for every entry.
print()
print(sg.explain(y, x))
