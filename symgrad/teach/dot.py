"""``sg.draw``: the graph of a gradient computation as Graphviz DOT, with values and adjoints.

Each node shows its expression in its inputs, its value and its adjoint (the
gradient the reverse sweep accumulated there).  Edges where the sweep stopped
(``stop_gradients``, ``stop_gradient`` ops) are dashed, xs whose gradient is
None are greyed, and ``highlight=x`` colours every edge on a path from x to
the ys.  The DOT text needs nothing; rendering to SVG/PNG/PDF needs the
Graphviz ``dot`` program (``apt-get install graphviz``).

>>> import symgrad as sg
>>> with sg.Graph().as_default():
...     a = sg.constant(0.0, name="a")
...     b = 2 * a
...     print(draw(a + b, [a, b]).source.splitlines()[0])
digraph gradients {
"""
from __future__ import annotations

import html
import os
from typing import Any, Mapping
import shutil
import subprocess

from ..errors import ArgumentError
from ..graph import Node, ancestors
from . import analysis
from .control import functions
from .explain import sweep_values
from .render import form_text, value_text

FORMATS = ("svg", "png", "pdf")
TIMEOUT_SECONDS = 60
INSTALL_NOTE = ("Graphviz's dot program is not installed, so here is the graph as DOT text; "
                "for the picture, install Graphviz (apt-get install graphviz, brew install "
                "graphviz or conda install graphviz) and run the cell again.")


def dot_available():
    """True if the Graphviz ``dot`` program is on PATH."""
    return shutil.which("dot") is not None


def _quote(text):
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


class Drawing:
    """DOT source plus rendering: ``.source``, ``.save(path)``, ``.render(fmt)``."""

    def __init__(self, source):
        self.source = source

    def __str__(self):
        return self.source

    def render(self, fmt="svg"):
        """The drawing as bytes in ``fmt`` (svg, png, pdf), by the ``dot`` program.

        Raises:
            RuntimeError: ``dot`` is not installed or failed.
        """
        if fmt not in FORMATS:
            raise ArgumentError(f"format {fmt!r}: use one of {FORMATS}, or save as .dot")
        if not dot_available():
            raise RuntimeError("the Graphviz 'dot' program is not installed; install graphviz "
                               "(e.g. apt-get install graphviz) or save the DOT text as .dot")
        done = subprocess.run(["dot", f"-T{fmt}"], input=self.source.encode(),
                              capture_output=True, timeout=TIMEOUT_SECONDS)
        if done.returncode != 0:
            raise RuntimeError(f"dot failed: {done.stderr.decode(errors='replace').strip()}")
        return done.stdout

    def save(self, path):
        """Write to ``path``: ``.dot``/``.gv`` as text, ``.svg``/``.png``/``.pdf`` via dot."""
        ext = str(path).rsplit(".", 1)[-1].lower()
        if ext in ("dot", "gv"):
            with open(path, "w") as f:
                f.write(self.source)
            return path
        data = self.render(ext)
        with open(path, "wb") as f:
            f.write(data)
        return path

    def __repr__(self):
        nodes = sum(1 for line in self.source.splitlines() if "[label=" in line)
        return (f"<Drawing of {nodes} nodes: .source is the DOT text; .save('graph.svg') "
                "renders it with Graphviz's dot>")

    def _repr_svg_(self):
        """Jupyter: the picture, when Graphviz's ``dot`` is installed."""
        return self.render("svg").decode() if dot_available() else None

    def _repr_html_(self):
        """Jupyter without ``dot``: a one-line note on installing it, then the DOT text."""
        if dot_available():
            return None          # the SVG above is the picture
        return (f"<p>{html.escape(INSTALL_NOTE)}</p>"
                f"<pre>{html.escape(self.source)}</pre>")


def _flowing_from(x, record):
    """Nodes reached from x along edges the gradient flowed through."""
    reached, changed = {x}, True
    while changed:
        changed = False
        for consumer, _, inp, _ in record.contributions:
            if consumer is not None and inp in reached and consumer not in reached:
                reached.add(consumer)
                changed = True
    return reached


def _node_line(node, record, values, grey):
    expr = analysis.local_expression(node)
    head = node.name if expr is None else f"{node.name} = {form_text(expr)}"
    lines = [head, f"{node.opdef.name} {node.shape}" if node.shape else node.opdef.name,
             f"value {value_text(values.get(node))}"]
    adjoint = record.adjoints.get(node)
    if adjoint is not None:
        lines.append(f"adjoint {value_text(values.get(adjoint))}")
    attrs = {"label": "\n".join(lines)}
    if node in record.xs:
        attrs["peripheries"] = "2"
    if node in record.ys:
        attrs["penwidth"] = "2"
    if grey:
        attrs.update(fillcolor="gray90", fontcolor="gray50", color="gray60")
        attrs["label"] += "\ngradient None"
    elif node in record.cut:
        attrs["fillcolor"] = "lightyellow"
    return f"  n{node.id} [" + ", ".join(f"{k}={_quote(v)}" for k, v in attrs.items()) + "];"


def _edge_line(inp, consumer, record, hot):
    attrs = {}
    if consumer in record.cut and inp in record.between:
        attrs.update(style="dashed", label="stop")
    if inp in hot and consumer in hot:
        attrs.update(color="red", penwidth="2")
    tail = " [" + ", ".join(f"{k}={_quote(v)}" for k, v in attrs.items()) + "]" if attrs else ""
    return f"  n{inp.id} -> n{consumer.id}{tail};"


def _clusters(node, k, shown):
    """A cluster per sub-graph of a control node (branch, loop condition, body): its nodes,
    dotted edges from the outer tensors it captures, dashed edges to the node it feeds."""
    lines = []
    for j, (label, fn) in enumerate(functions(node)):
        ids = {}
        inner = [n for n in ancestors(fn.outputs + fn.params) if not analysis.is_literal(n)]
        lines.append(f"  subgraph cluster_{k}_{j} {{")
        lines.append(f"    label={_quote(f'{label} of {node.name}')}; style=dashed; color=gray50;")
        for n in inner:
            ids[n] = f"c{k}_{j}_{n.id}"
            expr = analysis.local_expression(n)
            text = n.name if expr is None else f"{n.name} = {form_text(expr)}"
            lines.append(f"    {ids[n]} [label={_quote(text)}];")
        lines += [f"    {ids[i]} -> {ids[n]};" for n in inner for i in dict.fromkeys(n.inputs)
                  if i in ids]
        lines.append("  }")
        lines += [f"  n{outer.id} -> {ids[arg]} [style=dotted];"
                  for outer, arg in fn.graph.captures.items() if outer in shown and arg in ids]
        lines += [f"  n{init.id} -> {ids[arg]} [style=dotted, label=\"initial\"];"
                  for init, arg in zip(node.inputs, fn.params[:fn.explicit])
                  if init in shown and arg in ids]
        lines += [f"  {ids[o]} -> n{node.id} [style=dashed];" for o in dict.fromkeys(fn.outputs)
                  if o in ids]
    return lines


def draw(ys: Any, xs: Any = None, grad_ys: Any = None, stop_gradients: Any = None,
         feed_dict: Mapping[Any, Any] | None = None, highlight: Node | None = None,
         path: str | os.PathLike[str] | None = None) -> Drawing:
    """Draw the graph of ``gradients(ys, xs, ...)`` with values and adjoints.

    Args:
        ys, xs, grad_ys, stop_gradients, feed_dict: as for ``sg.explain``.
        highlight: an x (tensor) whose paths to the ys are drawn in red.
        path: optional file to save to (``.dot``, ``.svg``, ``.png``, ``.pdf``).
    Returns:
        a :class:`Drawing` (``.source`` is the DOT text; in Jupyter it shows as SVG).
    Raises:
        the errors of ``sg.gradients``; RuntimeError when rendering without ``dot``.
    """
    record, values = sweep_values(ys, xs, grad_ys, stop_gradients, feed_dict)
    hot = _flowing_from(highlight, record) if highlight is not None else set()
    greyed = {x for x in record.xs if analysis.none_reason(record, x) is not None}
    nodes = [n for n in ancestors(record.ys + record.xs) if not analysis.is_literal(n)]
    lines = ["digraph gradients {", "  rankdir=BT;",
             '  node [shape=box, style="rounded,filled", fillcolor=white, fontname=Helvetica];',
             '  edge [fontname=Helvetica, fontsize=10];']
    lines += [_node_line(n, record, values, n in greyed) for n in nodes]
    shown = set(nodes)
    lines += [_edge_line(i, n, record, hot) for n in nodes for i in dict.fromkeys(n.inputs)
              if i in shown]
    for k, node in enumerate(n for n in nodes if n.opdef.kind == "control"):
        lines += _clusters(node, k, shown)
    lines.append("}")
    drawing = Drawing("\n".join(lines) + "\n")
    if path is not None:
        drawing.save(path)
    return drawing
