"""``to_scipy``: a scalar loss as the callables ``scipy.optimize.minimize`` wants.

The name says what it does: it *converts* a loss of the graph into scipy's calling
convention (a flat float64 parameter vector in, numbers out) and does not itself
optimise, so it needs no scipy import and works with any optimiser taking
``fun(x) -> (value, gradient)`` (``jac=True``), ``hess(x)`` and ``hessp(x, p)``.

- value and gradient are compiled together (one evaluator, shared subexpressions);
- the Hessian comes from ``sg.hessians`` (cross blocks between different xs from
  ``sg.jacobian`` of the gradients), compiled on first use; with ``sparse=True``
  it is a ``scipy.sparse.csr_matrix`` holding only the structural nonzeros
  (compressed sweeps chosen by colouring), as ``trust-constr`` accepts;
- ``hessp`` is ``sg.hvp`` with p a placeholder: a Hessian-vector product by
  forward over reverse mode that never forms the Hessian, compiled on first use.

Several xs (or a matrix x) become one flat vector: each x raveled in row-major
order, concatenated in the order given; :meth:`ScipyObjective.unflatten` undoes it.

Imports the graph, evaluate and differentiate stages and the compiler (``sg.compile``).

>>> import numpy as np
>>> from symgrad import tracing as t
>>> with t.Graph().as_default():
...     x = t.Variable([1.0, 2.0], name="x")
...     obj = to_scipy(t.reduce_sum((x - 3.0) ** 2), x)
...     value, grad = obj.fun(obj.x0)
...     float(value), grad.tolist()
(5.0, [-4.0, -2.0])
"""
from __future__ import annotations

import numpy as np

from .compiler import compile as compile_graph
from .differentiate import gradients
from .forward import hvp
from .sparse import hessians, jacobian
from .errors import FeedError, NotATensorError, ShapeError
from .evaluate import bind_dims, check_feed, needed, specialize
from .graph import Node, ancestors, is_static, shape_text
from .tracing import Variable


def _evaluator(outputs, inputs, fastmath):
    """A compiled ``f(*input_values) -> outputs`` (``sg.compile``, disk-cached)."""
    return compile_graph(outputs, inputs, fastmath=fastmath)


class ScipyObjective:
    """Callables for ``scipy.optimize.minimize`` over a flat parameter vector.

    Attributes:
        xs: the tensors optimised over, in flat-vector order.
        x0: the flat starting point (float64, length :attr:`n`).
        n: the number of parameters.

    Use ``minimize(obj.fun, obj.x0, jac=True, hess=obj.hess)`` (or ``hessp=obj.hessp``),
    then ``obj.unflatten(result.x)`` or ``obj.assign(result.x)``.
    """

    def __init__(self, loss, xs, single, feeds, x0, fastmath, sparse=False):
        self.loss, self.xs, self._single = loss, xs, single
        # the other Variables are inputs too, read at each call: fun, hess and hessp
        # (compiled later) all see their current values (baked, each would keep the
        # value of its own compile)
        given = set(xs) | set(feeds)
        self._variables = [n for n in needed([loss], given)
                           if isinstance(n, Variable) and n not in given]
        self._data_keys = list(feeds) + self._variables
        self._fed = [feeds[k] for k in feeds]
        self._fastmath, self.sparse = fastmath, sparse
        self._sizes = [x.size for x in xs]
        self._offsets = np.cumsum([0] + self._sizes)
        self.n = int(self._offsets[-1])
        self.x0 = x0
        grads = gradients(loss, xs, unconnected_gradients="zero")
        self._fun = _evaluator([loss] + grads, xs + self._data_keys, fastmath)
        self._hess = self._hessp = self._ps = None

    @property
    def _data(self):
        """The values of the data placeholders and of the other Variables, in order."""
        if not self._variables:
            return self._fed
        return self._fed + [v.value for v in self._variables]

    def split(self, flat):
        """The flat vector cut into one array per x, each with its x's shape and dtype."""
        flat = np.asarray(flat, dtype=np.float64)
        if flat.shape != (self.n,):
            raise ShapeError(f"the parameter vector has shape {flat.shape}; expected "
                             f"({self.n},) (the xs raveled and concatenated)")
        return [flat[a:b].reshape(x.shape).astype(x.dtype, copy=False)
                for x, a, b in zip(self.xs, self._offsets[:-1], self._offsets[1:])]

    def unflatten(self, flat):
        """The flat vector in the structure of ``x``: one array, or a list of arrays."""
        parts = self.split(flat)
        return parts[0] if self._single else parts

    def assign(self, flat):
        """Write the flat vector into the xs (which must be ``sg.Variable``); returns them."""
        for x, part in zip(self.xs, self.split(flat)):
            if not hasattr(x, "assign"):
                raise NotATensorError(f"assign: {x.name!r} is not a Variable; use "
                                      "unflatten(flat) to get the values instead")
            _set_now(x, part)
        return self.unflatten(flat)

    def _flat(self, arrays):
        return np.concatenate([np.asarray(a, dtype=np.float64).reshape(-1) for a in arrays])

    def fun(self, flat):
        """``(loss value, flat gradient)`` at ``flat``: pass with ``jac=True``."""
        out = self._fun(*self.split(flat), *self._data)
        return float(out[0]), self._flat(out[1:])

    def value(self, flat):
        """The loss value at ``flat``."""
        return self.fun(flat)[0]

    def jac(self, flat):
        """The flat gradient at ``flat`` (for optimisers that want it separately)."""
        return self.fun(flat)[1]

    def hess(self, flat):
        """The ``(n, n)`` Hessian at ``flat``, cross blocks between xs included: a numpy
        array, or a ``scipy.sparse.csr_matrix`` of the structural nonzeros (``sparse``)."""
        if self._hess is None:
            loss, xs, data = self._hessian_graph()
            self._hess = _evaluator(self._hessian_blocks(loss, xs), xs + data, self._fastmath)
        blocks = self._hess(*self.split(flat), *self._data)
        k = len(self.xs)
        if self.sparse:
            from scipy.sparse import bmat
            return bmat([[blocks[i * k + j] for j in range(k)] for i in range(k)],
                        format="csr")
        rows = [[np.asarray(blocks[i * k + j], dtype=np.float64).reshape(si, sj)
                 for j, sj in enumerate(self._sizes)] for i, si in enumerate(self._sizes)]
        return np.block(rows)

    def _hessian_graph(self):
        """(loss, xs, data placeholders) the Hessian is built on.  A sparse pattern is
        read element by element, so where the fed data have sizes the graph leaves
        unknown (``X: (None, d)``), that is the graph at the fed sizes
        (``evaluate.specialize``); the values do not change."""
        keys = self._data_keys
        if not self.sparse or all(is_static(n.shape) for n in ancestors([self.loss])):
            return self.loss, self.xs, keys
        mapping = specialize([self.loss] + self.xs + keys,
                             bind_dims(dict(zip(keys, self._data))))
        return mapping[self.loss], [mapping[x] for x in self.xs], [mapping[k] for k in keys]

    def _hessian_blocks(self, loss, xs):
        """Block (i, j) = d grad_i / d x_j; the diagonal ones from ``hessians``."""
        diagonal = hessians(loss, xs, sparse=self.sparse)
        grads = gradients(loss, xs, unconnected_gradients="zero")
        blocks = []
        for i, g in enumerate(grads):
            for j, x in enumerate(xs):
                blocks.append(diagonal[i] if i == j else
                              jacobian(g, x, "zero", sparse=self.sparse))
        return blocks

    def hessp(self, flat, p):
        """The Hessian times the vector ``p`` at ``flat``, without forming the Hessian."""
        if self._hessp is None:
            self._build_hessp()
        out = self._hessp(*self.split(flat), *self._data, *self.split(p))
        return self._flat(out)

    def _build_hessp(self):
        from .tracing import placeholder
        graph = self.loss.graph
        with graph.as_default(), graph.name_scope("hessp"):
            self._ps = [placeholder(x.dtype, x.shape, name=f"p_{x.name}") for x in self.xs]
            products = hvp(self.loss, self.xs, self._ps, unconnected_gradients="zero")
        self._hessp = _evaluator(products, self.xs + self._data_keys + self._ps,
                                 self._fastmath)

    def __repr__(self):
        names = ", ".join(x.name for x in self.xs)
        return f"<ScipyObjective of {self.loss.name!r} over [{names}], n={self.n}>"


def to_scipy(loss, x, feed_dict=None, x0=None, fastmath=False, sparse=False):
    """Wrap a scalar ``loss`` for ``scipy.optimize.minimize`` over the tensor(s) ``x``.

    Named ``to_scipy`` because it converts (to scipy's calling convention) and does
    not minimise: pass the result's callables to any scipy optimiser.

    Args:
        loss: a 0-d float tensor.
        x: a float tensor (any shape: it is raveled) or a list of them; usually
            ``sg.Variable`` s, whose current values give the starting point.
        feed_dict: fixed values for the other placeholders the loss needs (data such
            as X and y); they are passed to the compiled functions on every call.
            The loss's other ``sg.Variable`` s are read at every call too: after
            ``lam.assign(10.0)``, ``fun``, ``hess`` and ``hessp`` all use 10.
        x0: the starting point, flat or in the structure of ``x``; required when an
            x has no value (a placeholder).  Defaults to the xs' current values.
        fastmath: compile with Numba's fastmath (reassociation; off by default).
        sparse: ``hess`` returns a ``scipy.sparse.csr_matrix`` of the structural
            nonzeros, computed by compressed sweeps (for ``method="trust-constr"``).
    Returns:
        a :class:`ScipyObjective` with ``fun`` (value and gradient, use ``jac=True``),
        ``hess``, ``hessp``, ``x0``, ``unflatten`` and ``assign``.
    Raises:
        ShapeError: loss is not 0-d, or x0 has the wrong size.
        NotATensorError: x holds something that is not a float tensor of loss's graph.
        FeedError: the loss needs a placeholder that is neither in x nor fed.

    >>> from symgrad import tracing as t
    >>> with t.Graph().as_default():
    ...     w = t.Variable([[1.0, 2.0], [3.0, 4.0]], name="w")
    ...     obj = to_scipy(t.reduce_sum(w * w), w)
    ...     obj.n, obj.hess(obj.x0).diagonal().tolist(), obj.unflatten(obj.x0).shape
    (4, [2.0, 2.0, 2.0, 2.0], (2, 2))
    """
    single = not isinstance(x, (list, tuple))
    xs = _check_xs([x] if single else list(x), loss)
    feeds = check_feed(feed_dict)
    _check_placeholders(loss, xs, feeds)
    start = _start(xs, x0)
    return ScipyObjective(loss, xs, single, feeds, start, fastmath, sparse)


def _check_xs(xs, loss):
    if not isinstance(loss, Node):
        raise NotATensorError(f"to_scipy(loss): {type(loss).__name__} is not a tensor of the "
                              "graph; build the loss from sg tensors")
    if loss.shape != () or not loss.is_float:
        raise ShapeError(f"to_scipy(loss): the loss must be a 0-d float tensor, got shape "
                         f"{loss.shape} {loss.dtype}; reduce it first, e.g. sg.reduce_sum(loss)")
    if not xs:
        raise NotATensorError("to_scipy(x): pass at least one tensor to optimise over")
    for i, x in enumerate(xs):
        if not isinstance(x, Node) or x.graph is not loss.graph or not x.is_float \
                or not x.is_leaf:
            raise NotATensorError(
                f"to_scipy(x[{i}]) = {x!r} is not a float leaf of the loss's graph; "
                "optimise over sg.Variable(value) (or sg.placeholder) tensors used in the loss")
        if not is_static(x.shape):
            raise ShapeError(
                f"to_scipy(x[{i}]) = {x.name!r} has shape {shape_text(x.shape)} with unknown "
                "sizes (None); scipy optimises one flat vector of fixed length, so give the "
                "tensors optimised over fixed shapes (data placeholders may keep None: feed "
                "them in feed_dict)")
    return xs


def _check_placeholders(loss, xs, feeds):
    given = set(xs) | set(feeds)
    for node in needed([loss], given):
        if node.is_leaf and node.value is None and node not in given:
            raise FeedError(f"to_scipy: the loss needs placeholder {node.name!r} (shape "
                            f"{node.shape}); pass it in x to optimise over it, or give its "
                            f"value in feed_dict={{{node.name}: value}}")


def _start(xs, x0):
    if x0 is None:
        missing = [x.name for x in xs if x.value is None]
        if missing:
            raise FeedError(f"to_scipy: x0 is needed because {missing} have no stored "
                            "value; pass x0 (flat, or one array per x)")
        return np.concatenate([np.asarray(x.value, np.float64).reshape(-1) for x in xs])
    if isinstance(x0, (list, tuple)) and len(x0) == len(xs) and len(xs) > 1:
        x0 = np.concatenate([np.asarray(v, np.float64).reshape(-1) for v in x0])
    flat = np.asarray(x0, dtype=np.float64).reshape(-1)
    n = sum(x.size for x in xs)
    if flat.size != n:
        raise ShapeError(f"to_scipy(x0) has {flat.size} numbers; the xs have {n} in total")
    return flat.copy()


def _set_now(variable, value):
    """Set a variable's value at once (a compat.v1 variable's own ``assign`` builds an
    operation that waits for a session)."""
    Variable.assign(variable, value)
