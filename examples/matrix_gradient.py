"""The gradient with respect to a 3x3 matrix has the matrix's shape: every entry is 2*s + 1."""
import numpy as np

import symgrad as sg

X = sg.Variable(np.ones((3, 3)), name="X")
s = sg.reduce_sum(X, name="s")
y = s ** 2 + s - 1
(g,) = sg.gradients(y, X)
print("shape of the gradient:", g.shape)
print("each entry, in terms of s:", sg.closed_form(g, keep=[s])[0, 0])
print("value at X = ones:")
print(sg.evaluate(g))
