"""a = 0; b = 2a; gradients(a + b, [a, b]) is [3, 1]: gradients are total derivatives."""
import symgrad as sg

a = sg.constant(0.0, name="a")
b = 2 * a
g = sg.gradients(a + b, [a, b])
print("gradients(a + b, [a, b])        =", [str(t) for t in g], sg.evaluate(g))

# Treat a and b as independent for this call: partial derivatives.
p = sg.gradients(a + b, [a, b], stop_gradients=[a, b])
print("... with stop_gradients=[a, b]  =", [str(t) for t in p], sg.evaluate(p))
