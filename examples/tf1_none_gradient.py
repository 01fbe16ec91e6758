"""Classic question 3: "TypeError: Fetch argument None has invalid type <class 'NoneType'>"
after tf.gradients.

TF1 code as asked; only the import line is changed.
"""
import symgrad as sg
import symgrad.compat.v1 as tf          # was: import tensorflow as tf

x = tf.Variable(2.0, name="x")
y = tf.Variable(3.0, name="y")
z = x * x                               # z does not use y
grads = tf.gradients(z, [x, y])
print(grads)                            # [<Tensor ...>, None]

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    try:
        print(sess.run(grads))
    except TypeError as error:          # TF raises the same first line
        print("TypeError:", error)
    print(sess.run(grads[0]))           # 4.0: x's gradient is fine

# The same None appears when every path is cut by a stop, or runs through an
# integer tensor.  The explanation lists each case:
a = tf.constant(1.0, name="a")
n = tf.constant(3, name="n")                        # int32, as in TF
w = tf.stop_gradient(2 * a, name="w")
out = w + tf.cast(n, tf.float32) * 2.0
print()
print(sg.explain(out, [a, n, x]))
