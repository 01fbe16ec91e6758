"""``tf.print`` in TF1 graph mode, and the text TF gives values in printed lines and
assertion messages.

``tf.print(*inputs)`` returns an operation; each time a session runs it (fetched, or
through ``tf.control_dependencies``) it writes one line: the inputs separated by
``sep``, then ``end``.  Tensors are written as TF writes them (``[1.5 2.25 3 ... 5 6
7]``: ``summarize`` entries at each end of every axis, -1 for all, rows on lines of
their own, blank lines between matrices, as numpy does); floats with 6
significant digits, or 9 (float64: 15, or 17) where 6 do not give the number back;
booleans as 1 and 0); Python strings as they are; other Python values with
``repr``, tensors inside lists, tuples and dicts (sorted by key) written in place.
``output_stream`` is ``sys.stderr`` (the default), ``sys.stdout``, a
``tf.logging`` level function or ``"file://<path>"`` (appended to).

:func:`summary` is the older, flat form an assertion message gives each datum
(``[0.5 1 3...]``: the first ``summarize`` entries).

Sits in ``compat``; imports numpy and ``compat.state`` and ``compat.runtime``.

>>> format_tensor(np.array([1.5, 2.25, 3.0, 4.0, 5.0, 6.0, 7.0]), 3)
'[1.5 2.25 3 ... 5 6 7]'
"""
from __future__ import annotations

import logging as _logging
import sys

import numpy as np

from .. import tracing as _t
from ..graph import Node
from . import runtime as _runtime
from .state import Operation


def format_scalar(value):
    """One entry as TF writes it (``0.1``, ``3.14159274``, ``1e+20``, ``1`` for True)."""
    kind = np.asarray(value).dtype
    if kind.kind == "b":
        return "1" if value else "0"
    if kind.kind in "iu":
        return str(int(value))
    if kind.kind != "f":
        return str(value)
    if kind == np.float64:
        short = "%.15g" % value
        return short if float(short) == float(value) else "%.17g" % value
    v = np.float32(value)     # (float16 is written as the float32 it converts to)
    short = "%.6g" % v
    return short if np.float32(float(short)) == v or np.isnan(v) else "%.9g" % v


def _picked(n, k):
    """The positions written along an axis of n entries (k at each end; -1: all) and
    whether an ellipsis stands between them."""
    if k < 0 or n <= 2 * k:
        return list(range(n)), [], False
    return list(range(k)), list(range(n - k, n)), True


def format_tensor(value, summarize=3, depth=0):
    """``value`` as ``tf.print`` writes it (nested brackets, one row of a matrix per line)."""
    a = np.asarray(value)
    if a.ndim == 0:
        return format_scalar(a[()])
    head, tail, cut = _picked(a.shape[0], summarize)
    if a.ndim == 1:
        text = " ".join(format_scalar(a[i]) for i in head)
        if cut:
            text += " ..." + "".join(" " + format_scalar(a[i]) for i in tail)
        return f"[{text}]"
    rows = [format_tensor(a[i], summarize, depth + 1) for i in head]
    if cut:
        rows += ["..."] + [format_tensor(a[i], summarize, depth + 1) for i in tail]
    return "[" + ("\n" * (a.ndim - 1) + " " * (depth + 1)).join(rows) + "]"


def summary(value, limit=3):
    """The flat form of ``value`` an assertion message shows (TF's
    ``SummarizeValue``): at most ``limit`` entries, in nested brackets past rank 1."""
    a = np.asarray(value)
    if isinstance(value, str):
        return value
    if a.ndim == 0:
        return format_scalar(a[()])
    flat = a.ravel()
    if a.ndim == 1:
        text = " ".join(format_scalar(v) for v in flat[:limit])
    else:
        text = _nested(a.shape, flat, limit, [0])
    return text + ("..." if flat.size > limit else "")


def _nested(shape, flat, limit, at):
    """TF's ``PrintOneDim``: rows in brackets until ``limit`` entries are written."""
    if len(shape) == 1:
        parts = []
        for _ in range(shape[0]):
            if at[0] >= limit:
                return " ".join(parts) + "..."
            parts.append(format_scalar(flat[at[0]]))
            at[0] += 1
        return " ".join(parts)
    text = ""
    for _ in range(shape[0]):
        if at[0] >= limit:
            return text
        text += "[" + _nested(shape[1:], flat, limit, at) + "]"
    return text


def _structure(item, values, summarize):
    """The text of a Python structure holding tensors (``values``: their numbers)."""
    if isinstance(item, _Slot):
        return format_tensor(values[item.index], summarize)
    if isinstance(item, list):
        return "[" + ", ".join(_structure(v, values, summarize) for v in item) + "]"
    if isinstance(item, tuple):
        inner = ", ".join(_structure(v, values, summarize) for v in item)
        return f"({inner},)" if len(item) == 1 else f"({inner})"
    if isinstance(item, dict):
        return "{" + ", ".join(f"{k!r}: {_structure(item[k], values, summarize)}"
                               for k in sorted(item)) + "}"
    return repr(item)


class _Slot:
    """Where a tensor's value goes in a printed structure."""

    def __init__(self, index):
        self.index = index


def _template(item, tensors):
    """``item`` with each tensor replaced by a :class:`_Slot` (the tensor appended)."""
    if isinstance(item, Node) or hasattr(item, "as_graph_tensor"):
        tensors.append(item.as_graph_tensor() if not isinstance(item, Node) else item)
        return _Slot(len(tensors) - 1)
    if isinstance(item, (list, tuple)):
        return type(item)(_template(v, tensors) for v in item)
    if isinstance(item, dict):
        return {k: _template(v, tensors) for k, v in item.items()}
    return item


_STREAMS = "sys.stdout, sys.stderr, tf.logging.info, tf.logging.warning, tf.logging.error"


def _writer(stream):
    """``write(text)`` for ``output_stream`` (sys.stdout/err looked up when printing, so
    a redirected stream is the one written to)."""
    if stream is sys.stdout or stream is sys.__stdout__:
        return lambda text: sys.stdout.write(text)
    if stream is sys.stderr or stream is sys.__stderr__:
        return lambda text: sys.stderr.write(text)
    levels = {_runtime.logging.info: _logging.INFO, _runtime.logging.warning: _logging.WARNING,
              _runtime.logging.warn: _logging.WARNING, _runtime.logging.error: _logging.ERROR,
              _logging.info: _logging.INFO, _logging.warning: _logging.WARNING,
              _logging.error: _logging.ERROR}
    if callable(stream) and stream in levels:
        level = levels[stream]
        return lambda text: _logging.getLogger("tensorflow").log(level, text.rstrip("\n"))
    if isinstance(stream, str) and stream.startswith("file://"):
        path = stream[len("file://"):]

        def append(text):
            with open(path, "a") as f:
                f.write(text)
        return append
    raise ValueError(f"Unsupported output stream, logging level, or file.{stream}. Supported "
                     f"streams are {_STREAMS}. File needs to be in the form of "
                     "'file://<filepath>'.")


def print_v2(*inputs, **kwargs):
    """``tf.print(*inputs, output_stream=sys.stderr, summarize=3, sep=" ", end="\\n",
    name=None)``: an operation that writes one line each time a session runs it.

    Raises:
        ValueError: an unknown keyword argument or output stream (TF's messages).
    """
    known = {"output_stream", "summarize", "sep", "end", "name"}
    unknown = {k: v for k, v in kwargs.items() if k not in known}
    if unknown:
        raise ValueError(f"Unrecognized keyword arguments for tf.print: {unknown}")
    write = _writer(kwargs.get("output_stream", sys.stderr))
    summarize = kwargs.get("summarize", 3)
    summarize = 3 if summarize is None else int(summarize)
    sep, end = kwargs.get("sep", " "), kwargs.get("end", "\n")
    tensors = []
    parts = [item if isinstance(item, str) else _template(item, tensors) for item in inputs]

    def effect(values, session):
        write(sep.join(p if isinstance(p, str) else _structure(p, values, summarize)
                       for p in parts) + end)
    graph = tensors[0].graph if tensors else _t.get_default_graph()
    op = Operation(graph.scoped(kwargs.get("name") or "PrintV2"), inputs=tensors,
                   effect=effect, graph=graph)
    op.type = "PrintV2"
    return op


__all__ = ["print_v2", "format_tensor", "format_scalar", "summary"]
