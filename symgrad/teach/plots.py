"""Gradient-field plots for functions of two scalar variables (needs matplotlib).

:func:`field_values` evaluates f and its gradient on a grid: when every op
between the two variables and f is elementwise, the graph is replayed with the
variables replaced by placeholders of the grid's shape and evaluated once with
``sg.evaluate``; otherwise it is evaluated point by point.
:func:`gradient_field` draws contours of f with gradient arrows and optionally
an optimiser's path; :func:`descent_path` computes a gradient-descent path.

matplotlib is optional: only :func:`gradient_field` imports it (no pyplot, so no
backend is chosen behind the user's back).

>>> import symgrad as sg
>>> with sg.Graph().as_default():
...     x = sg.Variable(0.0, name="x")
...     y = sg.Variable(0.0, name="y")
...     X, Y, F, GX, GY = field_values(x**2 + 3 * y, x, y, n=3)
...     GX.tolist(), GY.tolist()[0]
([[-2.0, 0.0, 2.0], [-2.0, 0.0, 2.0], [-2.0, 0.0, 2.0]], [3.0, 3.0, 3.0])
"""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from ..differentiate import gradients
from ..evaluate import evaluate, needed
from ..ops import apply, literal
from ..tracing import Graph, Tensor, placeholder


class _NotElementwise(Exception):
    pass


def _replay(outputs, x, y, shape, feed_dict):
    """The outputs rebuilt in a new graph with x, y as placeholders of ``shape``."""
    graph = Graph()
    feeds = dict(feed_dict or {})
    with graph.as_default():
        new = {x: placeholder(shape=shape, name=x.name), y: placeholder(shape=shape, name=y.name)}
    for node in needed(outputs, {x, y}):
        if node in new:
            continue
        if not node.inputs:
            value = feeds.get(node, node.value)
            if value is None:
                raise ValueError(f"placeholder {node.name!r} needs a value in feed_dict")
            new[node] = literal(graph, np.asarray(value), node.dtype)
        elif node.opdef.kind == "elementwise":
            new[node] = apply(node.opdef, [new[i] for i in node.inputs], **node.attrs)
        else:
            raise _NotElementwise(node.opdef.name)
    return [new[o] for o in outputs], new[x], new[y]


def field_values(f, x, y, xlim=(-1.0, 1.0), ylim=(-1.0, 1.0), n=21, feed_dict=None):
    """f and its gradient on an n-by-n grid.

    Args:
        f: a scalar tensor depending on the scalar tensors ``x`` and ``y``.
        xlim, ylim: the grid's extent; n: points per axis.
        feed_dict: values of other placeholders f needs.
    Returns:
        ``(X, Y, F, GX, GY)`` arrays of shape (n, n) (``X[i, j] = xs[j]``, like meshgrid).
    """
    if x.shape or y.shape or f.shape:
        raise ValueError("field_values needs a scalar f of scalar x and y; got shapes "
                         f"{f.shape}, {x.shape}, {y.shape}")
    gx, gy = gradients(f, [x, y], unconnected_gradients="zero")
    X, Y = np.meshgrid(np.linspace(*xlim, n), np.linspace(*ylim, n))
    try:
        outs, px, py = _replay([f, gx, gy], x, y, X.shape, feed_dict)
        F, GX, GY = (np.broadcast_to(v, X.shape).astype(float)
                     for v in evaluate(outs, {px: X, py: Y}))
    except _NotElementwise:
        F, GX, GY = (np.empty(X.shape) for _ in range(3))
        for idx in np.ndindex(X.shape):
            feed = dict(feed_dict or {}) | {x: X[idx], y: Y[idx]}
            F[idx], GX[idx], GY[idx] = evaluate([f, gx, gy], feed)
    return X, Y, F, GX, GY


def descent_path(f: Tensor, x: Tensor, y: Tensor, start: tuple[float, float],
                 learning_rate: float = 0.1, steps: int = 20,
                 feed_dict: Mapping[Any, Any] | None = None) -> np.ndarray:
    """Gradient-descent iterates ``p <- p - learning_rate * grad f(p)`` from ``start``.

    Returns:
        an array of shape (steps + 1, 2).

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     x = sg.Variable(0.0, name="x")
    ...     y = sg.Variable(0.0, name="y")
    ...     descent_path(x**2 + y**2, x, y, (1.0, 2.0), 0.25, 2).tolist()
    [[1.0, 2.0], [0.5, 1.0], [0.25, 0.5]]
    """
    gx, gy = gradients(f, [x, y], unconnected_gradients="zero")
    points = [np.asarray(start, dtype=float)]
    for _ in range(steps):
        feed = dict(feed_dict or {}) | {x: points[-1][0], y: points[-1][1]}
        g = np.array([float(v) for v in evaluate([gx, gy], feed)])
        points.append(points[-1] - learning_rate * g)
    return np.array(points)


def gradient_field(f: Tensor, x: Tensor, y: Tensor, xlim: tuple[float, float] = (-1.0, 1.0),
                   ylim: tuple[float, float] = (-1.0, 1.0), n: int = 21, path: Any = None,
                   ax: Any = None, feed_dict: Mapping[Any, Any] | None = None, levels: int = 20,
                   filename: str | None = None) -> Any:
    """Contours of f(x, y) with its gradient as arrows, optionally an optimiser's path.

    Args:
        f, x, y, xlim, ylim, n, feed_dict: as for :func:`field_values`.
        path: optional sequence of (x, y) points (e.g. :func:`descent_path`).
        ax: a matplotlib Axes to draw into (default: a new Figure, no pyplot).
        levels: number of contour levels.  filename: save the figure there.
    Returns:
        the matplotlib Axes.
    Raises:
        ImportError: matplotlib is not installed.
    """
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise ImportError("gradient_field needs matplotlib: pip install matplotlib") from None
    X, Y, F, GX, GY = field_values(f, x, y, xlim, ylim, n, feed_dict)
    if ax is None:
        ax = Figure(figsize=(6, 5)).subplots()
    filled = ax.contourf(X, Y, F, levels=levels, cmap="viridis", alpha=0.8)
    ax.figure.colorbar(filled, ax=ax, label=f.name)
    # unit arrows: the direction of the gradient (its size varies too much to draw to scale)
    norm = np.hypot(GX, GY)
    norm[norm == 0] = 1.0
    ax.quiver(X, Y, GX / norm, GY / norm, color="white", alpha=0.9, angles="xy")
    if path is not None:
        p = np.asarray(path, dtype=float)
        ax.plot(p[:, 0], p[:, 1], "o-", color="red", markersize=3, label="optimiser path")
        ax.legend(loc="upper right")
    ax.set_xlabel(x.name)
    ax.set_ylabel(y.name)
    ax.set_title(f"{f.name}: contours and gradient directions (uphill)")
    if filename is not None:
        ax.figure.savefig(filename, dpi=100)
    return ax
