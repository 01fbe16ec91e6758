"""A gradient field: contours of f(x, y), its gradient as arrows, and a gradient-descent
path.  Prints the path; with a file name as the first argument (and matplotlib
installed) draws the picture into that file, and writes nothing otherwise:

    python examples/gradient_field.py field.png
"""
import sys

import symgrad as sg

x = sg.Variable(0.0, name="x")
y = sg.Variable(0.0, name="y")
f = sg.identity((1 - x) ** 2 + 5 * (y - x ** 2) ** 2, name="f")

path = sg.descent_path(f, x, y, start=(-1.5, 2.0), learning_rate=0.02, steps=200)
print("gradient descent from (-1.5, 2.0):")
for i in range(0, len(path), 50):
    print(f"  step {i:2d}: x = {path[i, 0]: .4f}, y = {path[i, 1]: .4f}, "
          f"f = {float(sg.evaluate(f, {x: path[i, 0], y: path[i, 1]})):.4f}")

try:
    import matplotlib  # noqa: F401
except ImportError:
    print("matplotlib is not installed: pip install matplotlib to draw the picture")
else:
    if len(sys.argv) > 1:
        sg.gradient_field(f, x, y, xlim=(-2, 2), ylim=(-1, 3), n=21, path=path,
                          filename=sys.argv[1])
        print("wrote", sys.argv[1])
    else:
        print("to draw the picture, name a file: python examples/gradient_field.py field.png")
