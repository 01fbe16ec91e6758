"""x = 2; gradients(x**2 + x - 1, x) is [5]."""
import symgrad as sg

x = sg.Variable(2.0, name="x")
g = sg.gradients(x ** 2 + x - 1, x)
print("closed form:", g[0], " value:", sg.evaluate(g))
