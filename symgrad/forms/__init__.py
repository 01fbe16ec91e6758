"""Closed forms: graph -> SymPy expansion, simplification under a budget, matrix
notation, and the printers (str, textbook unicode, LaTeX, MathML, Jupyter).

Modules, bottom up: ``symbolic`` (graph -> SymPy object arrays), ``budget`` (pass
cost estimates), ``simplify`` (passes under a budget), ``elided`` (sizes read off
the graph), ``matrixalgebra``, ``lifting``, ``matrixrules``, ``batched`` (sweeps over
unit seeds read as matrix columns) and ``matrixform`` (matrix notation), ``indexed``
(one entry with symbolic indices where there is no matrix notation), ``sparseform``
(the stored entries of sparse results), ``closed``
(``closed_form``), ``select`` (the form a printer shows), ``notation`` and
``cseprint`` (SymPy printers, named shared parts), ``layout`` (one form within
limits), ``printing`` (text of tensors and lists; Jupyter reprs).

Imports the graph, the op registry and the evaluator; nothing above them.

>>> import symgrad as sg
>>> with sg.Graph().as_default():
...     x = sg.Variable(2.0, name="x")
...     closed_form(x * x + x * x)
2*x**2
"""
from .closed import closed_form  # noqa: F401
from .matrixform import MatrixForm, matrix_form  # noqa: F401
from .printing import latex, mathml, pprint, pretty, render, text  # noqa: F401
