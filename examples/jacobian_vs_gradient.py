"""Jacobian vs gradient: for a vector y, gradients(y, x) is not dy/dx but the gradient
of sum(y): the Jacobian contracted with grad_ys (ones by default)."""
import numpy as np

import symgrad as sg

x = sg.Variable([1.0, 2.0, 3.0], name="x")
A = sg.constant([[1.0, 2.0, 0.0], [0.0, 1.0, -1.0]], name="A")
y = A @ (x * x)                         # y has shape (2,)

J = sg.jacobian(y, x)                   # shape y.shape + x.shape = (2, 3)
(g,) = sg.gradients(y, x)               # shape x.shape = (3,)
w = sg.constant([1.0, 10.0], name="w")
(gw,) = sg.gradients(y, x, grad_ys=w)   # a weighted sum of the rows of J

print("jacobian(y, x):", J.shape)
print(sg.closed_form(J))
print(sg.evaluate(J))
print("gradients(y, x):", g.shape, sg.closed_form(g), "=", sg.evaluate(g))
print("column sums of J:", sg.evaluate(J).sum(axis=0))
print("gradients(y, x, grad_ys=[1, 10]):", sg.evaluate(gw), "=  [1, 10] @ J:",
      np.array([1.0, 10.0]) @ sg.evaluate(J))
print()
print(sg.explain(y, x, grad_ys=w))
