"""The gradient of a vector y is the gradient of sum(y): the Jacobian's column sums."""
import numpy as np

import symgrad as sg

x = sg.Variable([1.0, 2.0, 3.0], name="x")
y = sg.stack([x[0] * x[1], x[1] * x[2]])      # y has 2 entries, x has 3
J = sg.jacobian(y, x)                         # shape y.shape + x.shape = (2, 3)
(g,) = sg.gradients(y, x)                     # shape x.shape = (3,)
print("jacobian(y, x):", sg.closed_form(J).tolist())
print("               ", sg.evaluate(J).tolist())
print("gradients(y, x):", sg.closed_form(g).tolist(), "=", sg.evaluate(g).tolist())
print("ones @ J        :", (np.ones(2) @ sg.evaluate(J)).tolist())
