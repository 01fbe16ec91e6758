"""The cheap tier: a graph evaluated by numpy, step by step, ready at once.

``Plan(outputs, inputs)`` turns the nodes below ``outputs`` (every size known)
into a list of numpy steps.  An elementwise node runs the scalar body its compiled loop is emitted from
(``lower.scalar.translate``: the same opcodes, the same edge values) over whole
arrays; any other op runs its registry ``impl`` (the reference evaluator's).
Building a plan is one walk of the graph, so ``sg.compile`` answers its first
calls with it while Numba builds the machine code (``lower.background``).
Leaves that are not inputs are baked in at their current values, as the compiled
kernel bakes them.

Imports numpy, the graph, the op registry's errors and ``lower.scalar``.

>>> import symgrad as sg
>>> with sg.Graph().as_default():
...     x = sg.placeholder(shape=(2,), name="x")
...     y = sg.reduce_sum(sg.sin(x) * x)
...     plan = Plan([y, sg.gradients(y, x)[0]], [x])
>>> value, grad = plan([np.array([0.0, 1.0])])
>>> round(value, 6), grad.round(6).tolist()
(0.841471, [0.0, 1.381773])
"""
from __future__ import annotations

import functools
import math
import operator

import numpy as np

from ..errors import FeedError
from ..graph import ancestors
from .scalar import render, translate


class Plan:
    """``outputs`` (nodes, no None) as numpy steps over the values of ``inputs``.

    ``plan(args)`` takes one value per input, already checked and cast (as
    ``Evaluator._coerce`` gives them) and returns a tuple: 0-d outputs as Python
    scalars, others as fresh C-contiguous arrays of the output's dtype.
    """

    def __init__(self, outputs, inputs, order=None):
        # ``order``: ancestors(outputs + inputs) when the caller has it (topological)
        slots = {x: k for k, x in enumerate(inputs)}
        values = self.values = [None] * len(inputs)   # inputs, then constants and steps
        steps = self.steps = []   # (function, input slots, output slot, dtype to cast or None)
        for node in ancestors(outputs) if order is None else order:
            if node in slots:
                continue
            slot = slots[node] = len(values)
            if not node.inputs and node.opdef.kind == "leaf":
                values.append(_baked(node))
                continue
            values.append(None)
            fn, cast = _step(node)
            steps.append((fn, tuple([slots[x] for x in node.inputs]), slot,
                          node.dtype if cast else None))
        self.outputs = [(slots[n], n.dtype, not n.shape) for n in outputs]
        self.n_inputs = len(inputs)

    def __call__(self, args):
        values = list(self.values)
        values[:self.n_inputs] = [np.asarray(a) for a in args]
        with np.errstate(all="ignore"):
            for fn, ins, out, dtype in self.steps:
                try:
                    value = fn(*[values[i] for i in ins])   # an array, a numpy or Python scalar
                except (ArithmeticError, ValueError):
                    program = _NUMPY_FORM.get(fn)
                    if program is None:   # not a float form: the step's own error
                        raise
                    value = _run_body(program, (), *[np.asarray(values[i]) for i in ins])
                values[out] = value if dtype is None or value.dtype == dtype else \
                    value.astype(dtype)
        return tuple(_scalar(values[k], dtype) if scalar else
                     np.array(values[k], dtype=dtype, order="C")
                     for k, dtype, scalar in self.outputs)


def _scalar(value, dtype):
    """A 0-d output as a Python scalar (the 0-d steps' values may be Python floats)."""
    return value if type(value) is float else np.asarray(value, dtype=dtype).item()


def _baked(node):
    if node.value is None:   # the lowering's error, raised as early
        raise FeedError(f"placeholder {node.name!r} (shape {node.shape}) is needed by the "
                        "outputs but is not among the compiled function's inputs; add it "
                        "to inputs=[...]")
    return np.array(node.value, dtype=node.dtype)  # a copy: later assignments do not leak in


def _step(node):
    """``(function, cast)``: the function computing ``node`` from its inputs' values,
    and whether its result may need a cast to the node's dtype."""
    if node.opdef.kind != "elementwise":
        return functools.partial(_run_impl, node.opdef.impl, node.attrs), True
    dtypes = tuple([x.dtype for x in node.inputs])
    key = (node.opdef.name, dtypes, tuple(node.attrs.items()))
    try:
        made = _PROGRAMS.get(key)
    except TypeError:   # an attribute that does not hash: no memo
        key, made = None, None
    if made is None:   # a chain meets one op at the same dtypes again and again
        expr, _ = node.opdef.expr(dtypes, **node.attrs)
        body = translate(expr, len(dtypes), node.attrs.get("strong"))
        made = [_program(body), body, False]   # the 0-d step: made when first needed
        if key is not None:
            _PROGRAMS[key] = made
    program = made[0]
    if not node.shape and node.dtype == _F8 and not any([x.shape for x in node.inputs]):
        if made[2] is False:   # 0-d: over Python floats, where the body has a float form
            fast = scalar_body(made[1], len(dtypes))
            made[2] = fast
            if fast is not None:
                _NUMPY_FORM[fast] = program
        if made[2] is not None:
            return made[2], False
    return functools.partial(_run_body, program, node.shape), True


_PROGRAMS: dict = {}


def _program(body):
    """A body's instructions as (kind, payload, operands): 0 arg k, 1 const, 2 call."""
    out = []
    for op, *ops in body:
        if op == "arg":
            out.append((0, ops[0], ()))
        elif op == "const":   # a numpy scalar: 1/0 is inf, not ZeroDivisionError
            out.append((1, np.float64(float.fromhex(ops[0])), ()))
        elif op == "call":
            out.append((2, _CALLS[ops[0]], tuple(ops[1:])))
        else:
            out.append((2, _OPS[op], tuple(ops)))
    return tuple(out)


def _run_impl(impl, attrs, *args):
    return np.asarray(impl(*[np.float64(a) if type(a) is float else a for a in args],
                           **attrs))


# A 0-d body runs over Python floats (its float form, ``scalar_body``: the same IEEE
# arithmetic and C math functions as the kernel's, ~20x cheaper than numpy scalars); where
# Python raises instead of giving inf or nan (1/0, log(0), exp(1000)...) the step is
# computed again by numpy, from the program this maps the float form to.
_NUMPY_FORM: dict = {}


def _run_body(program, shape, *args):
    """The body over arrays (numpy scalars for 0-d values: much cheaper, the same
    arithmetic): every value float64, as every value is a double in the kernel; the
    result broadcast to the node's shape."""
    args = [a if type(a) is float or a.dtype == _F8 else a.astype(_F8) for a in args]
    vals = []
    for kind, payload, ops in program:
        if kind == 0:
            vals.append(args[payload])
        elif kind == 1:
            vals.append(payload)
        else:
            vals.append(payload(*[vals[i] for i in ops]))
    out = vals[-1]
    if type(out) is float:   # only Python floats met
        out = np.float64(out)
    return out if out.shape == shape else np.broadcast_to(out, shape)


# math functions that take and give floats, as the kernel's calls do (floor, ceil, trunc
# give ints in Python; max, min, and, or follow numpy's NaN rules: those bodies use numpy)
_FLOAT_CALLS = frozenset("sin cos tan asin acos atan sinh cosh tanh asinh acosh atanh exp "
                         "log sqrt pow atan2 fabs expm1 log1p erf erfc gamma lgamma".split())


def scalar_body(body, nargs):
    """``body`` as a Python function over floats (printed by ``scalar.render``, as the
    kernel's readable source is), or None when an opcode has no float form here."""
    for op, *ops in body:
        if op in ("max", "min", "and", "or", "dim") or (op == "call" and
                                                        ops[0] not in _FLOAT_CALLS):
            return None
    args = [f"a{k}" for k in range(nargs)]
    lines = [f"{a} = float({a})" for a in args] + render(body, args)
    text = (f"def body({', '.join(args)}):\n" + "".join(f"    {line}\n" for line in lines)
            + f"    return v{len(body) - 1}\n")
    namespace = {"math": math, "inf": math.inf, "nan": math.nan}
    exec(compile(text, "<symgrad.lower.plan>", "exec"), namespace)  # noqa: S102 (our own SSA)
    return namespace["body"]


def _flag(fn):
    return lambda *a: fn(*a).astype(np.float64)


def _truth(v):
    return np.asarray(v) != 0


def _on_integers(fn):
    """A bitwise ufunc over doubles holding integers, as the kernel's 64-bit instruction."""
    return lambda a, b: fn(np.asarray(a).astype(np.int64),
                           np.asarray(b).astype(np.int64)).astype(np.float64)


def _vectorised(fn):
    """A math-module function over arrays; nan where it raises (a pole, a domain)."""
    def safe(v):
        try:
            return fn(v)
        except (ValueError, OverflowError):
            return math.inf if fn in (math.gamma, math.lgamma) else math.nan
    return np.vectorize(safe, otypes=[np.float64])


_F8 = np.dtype(np.float64)
_OPS = {   # operators: numpy's arithmetic on arrays and numpy scalars, without a ufunc call
    "add": operator.add, "sub": operator.sub, "mul": operator.mul, "div": operator.truediv,
    "neg": operator.neg, "id": lambda v: v, "max": np.maximum, "min": np.minimum,
    "lt": _flag(np.less), "le": _flag(np.less_equal), "gt": _flag(np.greater),
    "ge": _flag(np.greater_equal), "eq": _flag(np.equal), "ne": _flag(np.not_equal),
    "select": lambda c, a, b: np.where(_truth(c), a, b),
    "and": lambda a, b: np.logical_and(_truth(a), _truth(b)).astype(np.float64),
    "or": lambda a, b: np.logical_or(_truth(a), _truth(b)).astype(np.float64),
    "not": lambda a: np.logical_not(_truth(a)).astype(np.float64),
    "strong": lambda g, v: np.where(np.asarray(g) == 0.0, 0.0, v),
}
_CALLS = {
    "sin": np.sin, "cos": np.cos, "tan": np.tan, "asin": np.arcsin, "acos": np.arccos,
    "atan": np.arctan, "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh,
    "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh, "exp": np.exp,
    "log": np.log, "sqrt": np.sqrt, "pow": np.power, "atan2": np.arctan2,
    "floor": np.floor, "ceil": np.ceil, "fabs": np.fabs, "trunc": np.trunc, "rint": np.rint,
    "expm1": np.expm1, "log1p": np.log1p, "erf": _vectorised(math.erf),
    "erfc": _vectorised(math.erfc), "gamma": _vectorised(math.gamma),
    "lgamma": _vectorised(math.lgamma), "bitwise_and": _on_integers(np.bitwise_and),
    "bitwise_or": _on_integers(np.bitwise_or), "bitwise_xor": _on_integers(np.bitwise_xor),
}
