"""The teaching layer: explain the sweep, draw the graph, plot gradient fields.

Sits on top of the pipeline (it may import every stage); nothing below imports it.

>>> import symgrad as sg
>>> with sg.Graph().as_default():
...     x = sg.Variable(2.0, name="x")
...     explain(x * x, x).results[0].form
2*x
"""
from .explain import Explanation, explain, why_none  # noqa: F401
from .dot import Drawing, dot_available, draw  # noqa: F401
from .plots import descent_path, field_values, gradient_field  # noqa: F401
