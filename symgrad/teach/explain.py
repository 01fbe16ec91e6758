"""``sg.explain``: the forward trace and the reverse sweep of ``gradients``, as data.

:func:`explain` runs the same sweep as ``sg.gradients`` (``differentiate.sweep``),
evaluates every node with the reference evaluator, and collects rows:

- forward: one row per node (name, op, expression in its inputs, value);
- reverse: one row per node the sweep reached (where seeds enter, which
  consumers sent gradient, local partials, the accumulated adjoint in symbols
  and numbers, where a stop cuts);
- results: per x, the gradient (closed form and value), why it has x's shape,
  the paths that were summed (total derivative), or why it is None.

The :class:`Explanation` renders itself (``str``, :meth:`~Explanation.markdown`,
:meth:`~Explanation.html` for Jupyter) through :mod:`symgrad.teach.render`.

>>> import symgrad as sg
>>> with sg.Graph().as_default():
...     a = sg.constant(0.0, name="a")
...     b = 2 * a
...     e = explain(a + b, [a, b])
...     [r.form for r in e.results]
[3, 1]
"""
from __future__ import annotations

from typing import Any, Mapping

import sympy

from ..differentiate import _as_nodes, sweep as _sweep
from ..errors import ArgumentError, FeedError, FormTooLargeError, NoClosedFormError
from ..evaluate import check_feed, run
from ..graph import Node, ancestors, is_static
from ..forms import closed_form, matrix_form
from . import analysis
from .control import control_rows

MAX_SYMBOLIC_SIZE = 100     # adjoints of larger tensors are shown by value only
MAX_SYMBOLIC_ROWS = 200     # sweeps over more nodes show adjoints by value only
MAX_FORM_CHARS = 100        # longer closed forms in the leaves are shown in intermediate names


class Row:
    """A bag of named fields (one table row)."""

    def __init__(self, **fields):
        self.__dict__.update(fields)

    def __repr__(self):
        return f"Row({self.__dict__})"


class Explanation:
    """What ``explain`` found; render with ``str()``, ``.markdown()``, ``.html()``."""

    def __init__(self, sweep, forward, reverse, results, values, control=()):
        self.sweep, self.forward, self.reverse, self.results = sweep, forward, reverse, results
        self.values = values
        self.control = list(control)  # rows of teach.control: branches, loops, adjoints

    def text(self):
        from .render import text
        return text(self)

    def markdown(self):
        from .render import markdown
        return markdown(self)

    def html(self):
        from .render import html
        return html(self)

    __str__ = text

    def _repr_html_(self):
        return self.html()

    def _repr_markdown_(self):
        return self.markdown()

    def __repr__(self):
        return f"<Explanation of gradients({[y.name for y in self.sweep.ys]}, " \
               f"{[x.name for x in self.sweep.xs]})>"


def node_values(nodes, feed_dict):
    """``{node: value}`` by the reference evaluator; nodes needing an unfed placeholder are left out."""
    feeds = check_feed(feed_dict)
    nodes = [n for n in nodes if n is not None]
    try:
        return run(nodes, feeds)
    except FeedError:
        out = {}
        for n in nodes:
            try:
                out.update(run([n], feeds))
            except FeedError:
                pass
        return out


def _kept(sweep):
    """Forward non-leaf nodes: adjoints are written in their names (``2*s + 1``)."""
    return [n for n in ancestors(sweep.ys + sweep.xs) if n.inputs]


def _form(t, keep):
    if t is None or keep is None or t.size > MAX_SYMBOLIC_SIZE:
        return None
    try:
        return closed_form(t, keep=[k for k in keep if k is not t])
    except (NoClosedFormError, FormTooLargeError):  # a loop adjoint with a data-dependent
        return None                                  # trip count; too much to expand


def _forward_rows(sweep, values):
    rows = []
    for node in ancestors(sweep.ys + sweep.xs):
        if analysis.is_literal(node):
            continue
        rows.append(Row(node=node, name=node.name, op=node.opdef.name, shape=node.shape,
                        dtype=node.dtype.name, expression=analysis.local_expression(node),
                        value=values.get(node)))
    return rows


def _reverse_rows(sweep, values, keep):
    rows = []
    on_path = set(sweep.between)
    if len(sweep.between) > MAX_SYMBOLIC_ROWS:
        keep = None
    for node in reversed(sweep.between):
        adjoint = sweep.adjoints.get(node)
        if adjoint is None:
            continue
        seeds = [(sweep.ys.index(inp), s) for c, _, inp, s in sweep.contributions
                 if c is None and inp is node]
        senders = [(c, i) for c, i, inp, _ in sweep.contributions
                   if inp is node and c is not None]
        partials = analysis.local_partials(node)
        wanted = [(x, None if partials is None else partials[i])
                  for i, x in enumerate(node.inputs) if x in on_path]
        rows.append(Row(node=node, name=node.name, seeds=seeds, senders=senders,
                        partials=wanted, op_doc=node.opdef.doc, adjoint=adjoint,
                        form=_form(adjoint, keep), value=values.get(adjoint),
                        cut=sweep.cut.get(node)))
    return rows


def _path_rows(sweep, x, values):
    found = analysis.paths(sweep, x)
    if found is None:
        return None
    subs = analysis.symbol_values(list(values), values)
    rows = []
    for edges in found:
        factors = [analysis.edge_partial(c, i) for c, i in edges]
        scalar = all(c.size == 1 for c, _ in edges)
        product = sympy.Mul(*factors) if scalar and None not in factors else None
        number = None
        if product is not None:
            try:
                number = float(product.xreplace(subs))
            except TypeError:
                number = None
        rows.append(Row(nodes=[x] + [c for c, _ in edges], edges=edges, factors=factors,
                        product=product, value=number, scalar=scalar))
    return rows


def _result_form(grad, keep):
    """The gradient in the leaves' symbols if that reads short, else in intermediate names
    (None when it has no finite closed form: a loop with a data-dependent trip count)."""
    if grad is None or keep is None:
        return None
    try:
        if grad.size <= 9:
            form = closed_form(grad)
            if len(str(form)) <= MAX_FORM_CHARS:
                return form
            found = matrix_form(grad)   # long in the leaves' symbols: Xᵀ(σ(X w) − y)
            if found.form == "matrix":
                return found
        return _form(grad, keep)
    except NoClosedFormError:
        return None
    except FormTooLargeError:   # (logistic regression over 100 rows: 2,525 entries)
        found = matrix_form(grad)   # what the printers show: Xᵀ(σ(X w) − y)
        return found if found.form == "matrix" else None


def _result_rows(sweep, values, keep):
    rows = []
    for i, x in enumerate(sweep.xs):
        reason = analysis.none_reason(sweep, x)
        grad = None if reason is not None else sweep.adjoints[x]
        form = _result_form(grad, keep)
        rows.append(Row(index=i, x=x, name=x.name, gradient=grad, form=form, partial_form=None,
                        partial_value=None,
                        value=values.get(grad) if grad is not None else None,
                        reason=reason, ys=sweep.ys, seeds=sweep.seeds,
                        paths=_path_rows(sweep, x, values) if grad is not None else None,
                        senders=[c for c, _, inp, _ in sweep.contributions
                                 if inp is x and c is not None]))
    return rows


def _partials(record, grad_ys, feed_dict, results):
    """Where xs depend on each other: the partial derivatives (stop_gradients=xs) beside
    the total ones, so the difference can be shown."""
    xs = list(dict.fromkeys(record.xs))
    if record.stops or len(xs) < 2 or not any(
            x in ancestors([other]) for x in xs for other in xs if other is not x):
        return
    partial = _sweep(record.ys, xs, grad_ys, xs)
    values = node_values([partial.adjoints.get(x) for x in xs], feed_dict)
    for row in results:
        adjoint = partial.adjoints.get(row.x)
        if adjoint is not None and row.gradient is not None:
            row.partial_form = _result_form(adjoint, [])
            row.partial_value = values.get(adjoint)


def sweep_values(ys, xs=None, grad_ys=None, stop_gradients=None, feed_dict=None):
    """Run the sweep (xs default: the named leaves) and evaluate forward nodes and adjoints."""
    if xs is None:
        ys_list = _as_nodes(ys, "ys")     # (the error gradients gives for what is no tensor)
        xs = [n for n in ancestors(ys_list) if not n.inputs and not analysis.is_literal(n)]
    record = _sweep(ys, xs, grad_ys, stop_gradients)
    values = node_values(ancestors(record.ys + record.xs) + list(record.adjoints.values())
                         + list(record.seeds), feed_dict)
    return record, values


def explain(ys: Any, xs: Any = None, grad_ys: Any = None, stop_gradients: Any = None,
            feed_dict: Mapping[Any, Any] | None = None) -> Explanation:
    """Explain ``gradients(ys, xs, grad_ys, stop_gradients)`` step by step.

    Args:
        ys, xs, grad_ys, stop_gradients: as for ``sg.gradients``; ``xs`` defaults
            to the named leaves (constants, variables, placeholders) ys depend on.
        feed_dict: values for placeholders (without them, values show as ``?``).
    Returns:
        an :class:`Explanation` (print it, or display it in Jupyter).
    Raises:
        the errors of ``sg.gradients`` for invalid arguments.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     x = sg.Variable(2.0, name="x")
    ...     print(explain(x**2 + x - 1, x).results[0].form)
    2*x + 1
    """
    for y in ys if isinstance(ys, (list, tuple)) else [ys]:
        if isinstance(y, Node) and y.shape is None:
            raise ArgumentError(
                f"explain: {y.op_name!r} has unknown rank (it reads a TF1 placeholder made "
                "without a shape), so its steps have no shapes to show; give the "
                "placeholders a shape, e.g. tf.placeholder(tf.float32, [None])")
    record, values = sweep_values(ys, xs, grad_ys, stop_gradients, feed_dict)
    keep = _kept(record)
    if not all(is_static(n.shape) for n in ancestors(record.ys + list(record.adjoints.values()))):
        keep = None  # closed forms of elementwise expansions need every size known
    results = _result_rows(record, values, keep)
    _partials(record, grad_ys, feed_dict, results)
    return Explanation(record, _forward_rows(record, values),
                       _reverse_rows(record, values, keep), results, values,
                       control_rows(record, values, Row))


def why_none(ys, xs, index, grad_ys=None, stop_gradients=None):
    """Plain-language reason why ``gradients(ys, xs, ...)[index]`` is None ("" if it is not).

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     a = sg.constant(1.0, name="a")
    ...     b = sg.constant(2.0, name="b")
    ...     why_none(a * 2, [a, b], 1)
    "No y depends on 'b': there is no path from 'b' to any of the ys (['mul']), so there is nothing to differentiate.  Use unconnected_gradients='zero' to get zeros instead of None."
    """
    from .render import reason_text
    record = _sweep(ys, xs, grad_ys, stop_gradients)
    reason = analysis.none_reason(record, record.xs[index])
    return "" if reason is None else reason_text(reason, record)
