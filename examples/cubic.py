"""a = 5; b = 2a; gradients(a**3 + 2*b**2, [a, b]) is [155, 40]."""
import symgrad as sg

a = sg.constant(5.0, name="a")
b = 2 * a
g = sg.gradients(a ** 3 + 2 * b ** 2, [a, b])
print("closed forms:", [str(t) for t in g])    # 3*a**2 + 16*a (through b too), 8*a
print("values:      ", sg.evaluate(g))

# When b is a leaf of its own, its gradient reads in b's symbol.
b_leaf = sg.constant(10.0, name="b")
print("b as a leaf: ", [str(t) for t in sg.gradients(a ** 3 + 2 * b_leaf ** 2, [a, b_leaf])])
