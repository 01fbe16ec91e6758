"""Render an :class:`~symgrad.teach.explain.Explanation` as text, Markdown or HTML.

The explanation is turned into *sections* once (a title, a table of cells, notes);
each target then formats cells its own way: SymPy expressions print as plain
text in the terminal, as ``$LaTeX$`` in Markdown and HTML (Jupyter typesets it).
All prose of the teaching layer lives here.

>>> import symgrad as sg
>>> from symgrad.teach import explain
>>> with sg.Graph().as_default():
...     x = sg.Variable(2.0, name="x")
...     "2*x + 1" in explain(x**2 + x - 1, x).text()
True
"""
from __future__ import annotations

import html as _html

import numpy as np
import sympy


class Section:
    def __init__(self, title, headers=(), rows=(), notes=()):
        self.title, self.headers, self.rows, self.notes = title, list(headers), list(rows), \
            list(notes)


# ---- cells -------------------------------------------------------------------------

def value_text(v):
    """A value for a table cell: scalars to 6 significant digits, small arrays inline."""
    if v is None:
        return "?"
    arr = np.asarray(v)
    if arr.ndim == 0:
        return _scalar(arr[()])
    if arr.size and np.all(arr == arr.flat[0]):
        return f"all {_scalar(arr.flat[0])}, shape {arr.shape}"
    if arr.size <= 9:
        return _nested(arr)
    return f"shape {arr.shape}, from {_scalar(arr.min())} to {_scalar(arr.max())}"


def _nested(arr):
    if arr.ndim == 0:
        return _scalar(arr[()])
    return "[" + ", ".join(_nested(a) for a in arr) + "]"


def _scalar(v):
    if isinstance(v, (bool, np.bool_)):
        return str(bool(v))
    return f"{float(v):.6g}" if np.asarray(v).dtype.kind == "f" else str(v)


def form_text(form, latex=False):
    """A closed form (SymPy expression or array) for a cell."""
    show = (lambda f: f"${sympy.latex(f)}$") if latex else str
    if form is None:
        return "-"
    if isinstance(form, sympy.NDimArray):
        flat = [form[idx] for idx in np.ndindex(*form.shape)]
        if flat and all(f == flat[0] for f in flat) and len(flat) > 1:
            return f"every entry: {show(flat[0])}"
        if len(flat) <= 9:
            return show(form)
        return f"[0...] = {show(flat[0])}, ..."
    if hasattr(form, "latex") and not isinstance(form, sympy.Basic):   # a matrix form
        return f"${form.latex()}$" if latex else form.text()
    return show(form) if isinstance(form, sympy.Basic) else str(form)


def _names(nodes):
    return ", ".join(dict.fromkeys(n.name for n in nodes)) or "-"


# ---- prose -------------------------------------------------------------------------

def reason_text(reason, sweep):
    """Why an x's gradient is None, in plain language."""
    x = reason.x.name
    if reason.kind == "integer":
        return (f"'{x}' is an integer tensor ({reason.x.dtype}): integer and boolean tensors "
                "carry no gradient (as in TF).  Make it a float, e.g. sg.Variable(2.0) "
                "instead of sg.Variable(2).")
    if reason.kind == "no_path":
        return (f"No y depends on '{x}': there is no path from '{x}' to any of the ys "
                f"({[y.name for y in sweep.ys]}), so there is nothing to differentiate.  "
                "Use unconnected_gradients='zero' to get zeros instead of None.")
    if reason.kind == "integer_path":
        where = ", ".join(f"'{n.name}' ({n.dtype})" for n in reason.nodes)
        return (f"Every path from '{x}' to the ys passes through an integer or boolean tensor "
                f"({where}); no gradient flows through integer tensors (a cast to an integer "
                "type or a comparison cuts the path).")
    cuts = "; ".join(_cut_text(n, how) for n, how in zip(reason.nodes, reason.how))
    if reason.blockers:
        cuts += " (other paths pass through integer tensors: " + \
            ", ".join(f"'{n.name}'" for n in reason.blockers) + ")"
    return (f"Every path from '{x}' to the ys is cut: at {cuts}.  A gradient flows into a "
            "stopped tensor but not through it to its inputs, so nothing reaches "
            f"'{x}'.  Unconnected means None (not 0); use unconnected_gradients='zero' for "
            "zeros.")


def _cut_text(node, how):
    if how == "stop_gradients":
        return f"'{node.name}' (listed in stop_gradients: a constant for this call)"
    return f"'{node.name}' (a {how} op: {node.opdef.doc})"


def _shape_note(row):
    x = row.x
    parts = []
    for k, (y, s) in enumerate(zip(row.ys, row.seeds)):
        parts.append(f"ys[{k}] '{y.name}' {y.shape}: J = d ys[{k}]/d {x.name} has shape "
                     f"{y.shape} + {x.shape} = {y.shape + x.shape}, contracted with the seed "
                     f"of shape {s.shape}")
    note = (f"Why the shape {x.shape}: gradients returns sum_k grad_ys[k] . J_k (a "
            f"vector-Jacobian product), which has x's shape.  " + "; ".join(parts) + ".")
    if any(y.shape for y in row.ys):
        note += (" A non-scalar y enters as sum(seed * y) (the seed is ones unless grad_ys "
                 f"is given); for every d y[i]/d {x.name} separately use sg.jacobian(y, x).")
    return note


def _path_notes(row, latex):
    if row.paths is None:
        return [f"Total derivative: more than a dozen paths from '{row.name}' were summed."]
    if not row.paths:
        return []
    if len(row.paths) == 1:
        head = (f"One path from '{row.name}' to the ys; the gradient is the product of the "
                "local derivatives along it:")
    else:
        head = (f"Total derivative: the sum over {len(row.paths)} paths from '{row.name}' to "
                "the ys, each the product of the local derivatives along it:")
    lines = [head]
    for p in row.paths:
        chain = _chain(p)
        if p.factors and None not in p.factors:
            factors = " * ".join(f"({form_text(f, latex)})" for f in p.factors)
            value = f" = {value_text(p.value)}" if p.value is not None else \
                "" if p.scalar else " (elementwise)"
            lines.append(f"  {chain}: {factors}{value}")
        else:
            lines.append(f"  {chain}")
    if len(row.senders) > 1 and row.partial_form is None:
        lines.append(f"  (the adjoint of '{row.name}' is the sum of what "
                     f"{_names(row.senders)} sent back; stop_gradients=[...] on the "
                     "intermediate tensors gives the partial derivative instead)")
    return lines


def _chain(path):
    """``a -> mul -> add``, naming the input slot where a node uses the same input twice."""
    text = path.nodes[0].name
    for (consumer, i), prev in zip(path.edges, path.nodes):
        slot = f" (input {i})" if consumer.inputs.count(prev) > 1 else ""
        text += f" -> {consumer.name}{slot}"
    return text


def _result_notes(row, sweep, latex):
    if row.reason is not None:
        return [f"xs[{row.index}] '{row.name}': None.  " + reason_text(row.reason, sweep)]
    head = f"xs[{row.index}] '{row.name}': " + _equation(row.name, row.form, row.value, latex)
    shape = [_shape_note(row)] if row.x.shape or any(y.shape for y in row.ys) else []
    return [head] + shape + _path_notes(row, latex) + _partial_note(row, latex)


def _partial_note(row, latex):
    if row.partial_form is None or row.partial_form == row.form:
        return []
    return ["Partial derivative (the other xs held fixed, stop_gradients=xs): "
            + _equation(row.name, row.partial_form, row.partial_value, latex)
            + ".  gradients gives the total derivative, which also counts the paths through "
            "the other xs."]


def _equation(name, form, value, latex):
    """``d/dx = form = value``, without repeating a number."""
    if form is None:  # no closed form within budget, or a loop with no finite one
        return f"d/d{name} = {value_text(value)}"
    text = f"d/d{name} = {form_text(form, latex)}"
    if isinstance(form, sympy.Number) and value is not None and float(form) == float(value):
        return text
    return text + f" = {value_text(value)}"


# ---- sections ----------------------------------------------------------------------

def sections(expl, latex=False):
    """The explanation as :class:`Section` objects (target-independent)."""
    sw = expl.sweep
    call = (f"gradients(ys={[y.name for y in sw.ys]}, xs={[x.name for x in sw.xs]}"
            + (f", stop_gradients={[s.name for s in sorted(sw.stops, key=lambda n: n.id)]}"
               if sw.stops else "") + ")")
    intro = Section(call, notes=[
        "Each entry is the derivative of sum_k sum(grad_ys[k] * ys[k]) with respect to "
        "xs[i] (seeds grad_ys default to ones), summed over every path: a total derivative."])
    fwd = Section("Forward trace", ["node", "op", "expression", "value"],
                  [[r.name, r.op, form_text(r.expression, latex) if r.expression is not None
                    else "(leaf)", value_text(r.value)] for r in expl.forward])
    rev = Section("Reverse sweep (adjoint = d(seeded sum of ys)/d node)",
                  ["node", "seed", "from", "local partials", "adjoint", "value"],
                  [_reverse_cells(r, expl, latex) for r in expl.reverse])
    notes = []
    for r in expl.results:
        notes += ([""] if notes else []) + _result_notes(r, sw, latex)
    res = Section("Results", notes=notes)
    flow = [Section("Control flow", notes=_control_notes(expl.control))] if expl.control else []
    return [intro, fwd] + flow + [rev, res]


def _control_notes(rows):
    notes = []
    for r in rows:
        if r.kind == "cond":
            notes.append(f"{r.node.name}: pred is {r.taken}, so only the "
                         f"{'true' if r.taken else 'false'} branch ran; the gradient flows "
                         "through it, tensors only the other branch uses get zeros")
        elif r.kind == "loop":
            notes.append(f"{r.node.name}: the loop ran {r.trips} iterations this time")
            notes += ["    " + line for line in r.lines or []]
        else:
            notes.append(f"{r.node.name}: the reverse sweep of a loop of {r.trips} iterations "
                         "runs the body's vjp backwards over the stored iterates; adjoints "
                         "a_k = d(seeded sum of ys)/d x_k:")
            for k in sorted(r.steps, reverse=True):
                label = "seed" if k == r.trips else f"k = {k}"
                values = ", ".join(f"{n}: {value_text(v)}" for n, v in zip(r.names, r.steps[k]))
                notes.append(f"    {label}: {values}")
    return notes


def _reverse_cells(row, expl, latex):
    seeds = ", ".join(f"ys[{k}]: {value_text(expl.values.get(s))}" for k, s in row.seeds)
    if row.cut is not None:
        partials = "cut: " + ("in stop_gradients" if row.cut == "stop_gradients"
                              else f"{row.cut} passes nothing back")
    elif not row.partials:
        partials = "-"
    elif any(p is None for _, p in row.partials):
        partials = f"vjp: {row.op_doc}"
    else:
        partials = ", ".join(f"d/d{x.name} = {form_text(p, latex)}" for x, p in row.partials)
    return [row.name, seeds or "-", _names([c for c, _ in row.senders]), partials,
            form_text(row.form, latex), value_text(row.value)]


# ---- targets -----------------------------------------------------------------------

def _text_table(headers, rows):
    widths = [max(len(str(c)) for c in col) for col in zip(headers, *rows)]
    fmt = lambda cells: "  " + "  ".join(str(c).ljust(w) for c, w in zip(cells, widths))  # noqa
    return [fmt(headers).rstrip()] + [fmt(r).rstrip() for r in rows]


def text(expl):
    """Plain terminal text."""
    out = []
    for sec in sections(expl):
        out.append(sec.title)
        if sec.headers:
            out.extend(_text_table(sec.headers, sec.rows))
        out.extend(("  " + n).rstrip() for n in sec.notes)
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def _md_cell(c):
    return str(c).replace("|", "\\|")


def markdown(expl):
    """Markdown with pipe tables and $LaTeX$ expressions."""
    out = []
    for sec in sections(expl, latex=True):
        out.append(f"### {sec.title}\n")
        if sec.headers:
            out.append("| " + " | ".join(sec.headers) + " |")
            out.append("|" + "---|" * len(sec.headers))
            out.extend("| " + " | ".join(_md_cell(c) for c in r) + " |" for r in sec.rows)
            out.append("")
        out.extend(_md_note(n) for n in sec.notes)
        out.append("")
    return "\n".join(out)


def _md_note(note):
    if not note:
        return ""
    return ("- " + note.strip()) if note.startswith("  ") else "\n" + note


def html(expl):
    """HTML tables (for Jupyter's ``_repr_html_``); expressions as LaTeX."""
    out = ["<div class='symgrad-explain'>"]
    for sec in sections(expl, latex=True):
        out.append(f"<h4>{_html.escape(sec.title)}</h4>")
        if sec.headers:
            out.append("<table><tr>" + "".join(f"<th>{_html.escape(h)}</th>"
                                               for h in sec.headers) + "</tr>")
            for r in sec.rows:
                out.append("<tr>" + "".join(f"<td>{_html_cell(c)}</td>" for c in r) + "</tr>")
            out.append("</table>")
        for n in sec.notes:
            if n:
                out.append(f"<p>{_html.escape(n)}</p>")
    out.append("</div>")
    return "\n".join(out)


def _html_cell(c):
    return _html.escape(str(c))
