"""Elementwise ops: each is a SymPy rule over scalar argument symbols.

The rule gives the forward mathematics; the partial derivatives come from
``sympy.diff`` of it, except where TF fixes a convention at a kink (noted at the
op).  One derivative rule serves every elementwise op: the cotangent of input i is
``g * d(rule)/d(arg_i)``, summed back over broadcast axes.  That product is built
as a generic ``elementwise`` node whose expression is held in its attributes, so
second derivatives are again ``sympy.diff``.

Cotangent products are *strong-zero*: where ``g`` is exactly 0 the contribution
is 0 even if the local derivative is inf or NaN.  That is how the branch of
``where`` that is not taken leaks no NaN (SEMANTICS: symgrad differs from TF).

>>> import sympy
>>> x = sympy.Symbol("x", real=True)
>>> REGISTRY["tanh"].rule(x)
tanh(x)
"""
from __future__ import annotations

import functools

import numpy as np
import sympy
# SymPy's Add imports sympy.tensor.tensor (and the combinatorics under it) the first
# time it flattens a sum: ~50 ms that the first gradient of every process paid.  The
# rules need Add anyway, so it is paid here, with the rest of SymPy's import.
import sympy.tensor.tensor  # noqa: F401
# Likewise sympy.diff's first derivative of a symbol (Eq in Expr._eval_derivative_n_times)
# imports sympy.assumptions.wrapper, and a function's first evaluation sympy.sets.setexpr
# (~5 ms together, with .pyc): paid here rather than by the first gradient.
import sympy.assumptions.wrapper  # noqa: F401
import sympy.sets.setexpr  # noqa: F401
from sympy.logic.boolalg import Boolean

from . import derived, gamma, select
from .base import (REGISTRY, Example, Op, apply, broadcast_shapes, derived_node, float_result,
                   promote, register, unbroadcast, zeros_like)
from .functions import expm1, log1p, numeric, relu, rint, sigmoid, softplus, trunc


@functools.lru_cache(maxsize=None)
def arg_symbol(i, is_bool=False):
    """The canonical symbol of argument ``i``: real for numbers, plain for booleans."""
    return sympy.Symbol(f"_c{i}") if is_bool else sympy.Symbol(f"_x{i}", real=True)


def arg_symbols(dtypes):
    """Canonical argument symbols for inputs of the given dtypes."""
    return _arg_symbols(tuple(dtypes))


@functools.lru_cache(maxsize=4096)   # (lowering asks once per node: few dtype tuples)
def _arg_symbols(dtypes):
    return tuple(arg_symbol(i, np.dtype(d).kind == "b") for i, d in enumerate(dtypes))


def _broadcast_rule(op_name):
    def shape(in_shapes, **attrs):
        return broadcast_shapes(*in_shapes, op=op_name)
    return shape


class ElementwiseOp(Op):
    """An op applied element by element, with numpy broadcasting.

    Args:
        rule: ``rule(*symbols, **attrs) -> sympy.Expr``, the forward mathematics.
        nargs: number of inputs.
        numpy: optional numpy function (else the rule is lambdified).
        partials: optional ``partials(*symbols, **attrs) -> [expr or None]`` where a
            convention must be chosen; default ``sympy.diff`` of the rule.
        blocks: True for stop_gradient: no gradient passes.
    """

    def __init__(self, name, rule, *, nargs, numpy=None, partials=None, dtype=float_result,
                 doc="", examples=None, domain=(-2.0, 2.0), blocks=False):
        if examples is None:
            examples = _default_examples(nargs, domain)
        super().__init__(name, kind="elementwise", shape=_broadcast_rule(name),
                         impl=self._numeric, symbolic=self._symbolic,
                         grad=_blocked_grad if blocks else elementwise_grad, dtype=dtype,
                         doc=doc, examples=examples, blocks=blocks)
        self.rule = rule
        self._exprs = {}   # (symbols, attributes) -> the rule's expression (``expr``)
        self.nargs = nargs
        self.numpy = numpy
        self.partials_rule = partials

    def expr(self, dtypes, **attrs):
        """The rule's expression in the canonical symbols for ``dtypes``, and those symbols.

        Memoised per op: lowering asks once per node or more, and a graph meets few
        distinct (symbols, attributes) pairs (SymPy built ``a + b`` anew each time)."""
        syms = arg_symbols(dtypes)
        # each attribute with its type: 2 and 2.0 (or True and 1) are equal keys otherwise
        # (containers, where 2 and 2.0 would hide inside, and unhashable values: no memo)
        key = (syms, tuple([(k, v.__class__, v) for k, v in sorted(attrs.items())]))
        try:
            if any(isinstance(v, (tuple, list, dict)) for v in attrs.values()):
                raise TypeError
            return self._exprs[key], syms
        except KeyError:
            pass
        except TypeError:
            return sympy.sympify(self.rule(*syms, **attrs)), syms
        out = sympy.sympify(self.rule(*syms, **attrs))
        if len(self._exprs) < 4096:
            self._exprs[key] = out
        return out, syms

    def prepared(self, dtypes, attrs):
        """The numpy function of the arrays alone: the rule's expression lambdified once
        (``_numeric`` does the same lookups at every call)."""
        if self.numpy is not None:
            return super().prepared(dtypes, attrs)
        fn = numeric(*self.expr(dtypes, **attrs))
        strong = attrs.get("strong")
        return fn if strong is None else _zero_where_strong(fn, strong)

    def partials(self, dtypes, **attrs):
        """d(rule)/d(arg_i) for each input (None where no gradient flows), memoised.

        The same op meets the same dtypes again and again in a long chain; sympy.diff
        is the cost of differentiation, so each distinct rule is differentiated once
        (and read from ``ops.derived``'s shipped table where it has the result).
        """
        key = (tuple(np.dtype(d).kind for d in dtypes), tuple(sorted(attrs.items())))
        try:
            return _PARTIALS[self.name, key]
        except KeyError:
            out = _PARTIALS[self.name, key] = self._partials(dtypes, **attrs)
            return out

    def _partials(self, dtypes, **attrs):
        # derived before and shipped (``ops.derived``): read, not derived; the generic
        # op's entries are a derivative rule's ``g * partial`` (second derivatives)
        kinds = tuple(np.dtype(d).kind for d in dtypes)
        shipped = None
        if set(kinds) == {"f"} and not attrs:
            shipped = derived.lookup(self.name, kinds)
        elif set(kinds) == {"f"} and self.name == "elementwise" and "expr" in attrs:
            shipped = derived.lookup_generic(attrs["expr"], len(kinds))
        if shipped is not None:
            return shipped, arg_symbols(dtypes)
        return self._derived(dtypes, **attrs)

    def _derived(self, dtypes, **attrs):
        """The partials derived now: ``sympy.diff`` of the rule, or its convention."""
        expr, syms = self.expr(dtypes, **attrs)
        if self.partials_rule is not None:
            return list(self.partials_rule(*syms, **attrs)), syms
        return [None if s.is_real is not True else _derivative(expr, s) for s in syms], syms

    @staticmethod
    def cotangent_rule(partial, syms, dtypes, g_dtype):
        """How a reverse sweep builds an input's cotangent from ``partial`` (see
        ``_cotangent_rule``); ``ops.derived`` reads second-order entries from it."""
        return _cotangent_rule(partial, syms, dtypes, g_dtype)

    def _numeric(self, *arrays, **attrs):
        if self.numpy is not None:
            return self.numpy(*arrays, **attrs)
        return self.prepared([a.dtype for a in arrays], attrs)(*arrays)

    def _symbolic(self, node, *arrays):
        expr, syms = self.expr([x.dtype for x in node.inputs], **node.attrs)
        strong = node.attrs.get("strong")
        place = _placed if expr.has(sympy.Max, sympy.Min) else sympy.Basic.xreplace

        def one(*values):
            if strong is not None and values[strong] == 0:
                return sympy.S.Zero
            out = place(expr, dict(zip(syms, values)))
            if isinstance(out, Boolean):
                return _without_piecewise(out)
            return _fold_top(out) if _top_piecewise(out) else out
        result = np.frompyfunc(one, len(arrays), 1)(*arrays)
        return np.asarray(result, dtype=object)


def _derivative(expr, s):
    # sympy.diff writes d(x**a)/dx as a*x**a/x, which is 0/0 at x = 0 although
    # a*x**(a-1) is finite there (the second derivative of y**2 at 0 is 2, as in TF);
    # powsimp joins the powers of one base back into one power.
    d = sympy.diff(expr, s)
    if d.has(sympy.Derivative):  # of floor/ceiling: a step function is flat (as TF says)
        d = d.replace(lambda e: isinstance(e, (sympy.Derivative, sympy.Subs))
                      and e.has(sympy.floor, sympy.ceiling), lambda e: sympy.S.Zero)
    if d.has(sympy.DiracDelta):  # of Heaviside (relu's mask): flat, 0 at the kink (TF)
        d = d.replace(lambda e: isinstance(e, sympy.DiracDelta), lambda e: sympy.S.Zero)
    return sympy.powsimp(d) if d.has(sympy.Pow) else d


def _placed(expr, values):
    """``expr.xreplace(values)``, where Max and Min of expressions stay as written.

    SymPy's Max(a, b) compares its arguments on construction, down to
    ``factor_terms(a - b)``, which walks both trees: through a loop whose body takes a
    maximum, each iterate's Max holds the last one's twice, and the walks grew
    exponentially (a 3-vector loop of 8 steps printed in 128 s).  Numbers still compare
    (a known iterate's maximum is a number) and equal arguments still merge."""
    if expr in values:
        return values[expr]
    if not expr.args:
        return expr
    args = [_placed(a, values) for a in expr.args]
    if isinstance(expr, (sympy.Max, sympy.Min)):
        args = list(dict.fromkeys(args))
        if len(args) == 1:
            return args[0]
        if not all(a.is_number for a in args):
            return expr.func(*args, evaluate=False)
    return expr.func(*args)


def _fold_top(expr):
    """A Piecewise at the top of ``expr`` or among its factors, folded outward:
    ``g * Piecewise((d, c), (0, True))`` is ``Piecewise((g*d, c), (0, True))``.

    Only the top is folded: the Piecewises inside ``g`` were folded when ``g`` was
    made.  (``sympy.piecewise_fold`` walks and folds the whole tree; through a loop
    whose body takes a maximum, the gradient's tree grows with every step and its
    walks dominated: 8 steps took minutes.)"""
    if isinstance(expr, sympy.Piecewise):
        rest, pairs = None, expr.args
    else:
        k = next(k for k, a in enumerate(expr.args) if isinstance(a, sympy.Piecewise))
        rest = expr.func(*(expr.args[:k] + expr.args[k + 1:]))
        pairs = expr.args[k].args
    out = []
    for e, c in pairs:
        e = e if rest is None else rest * e
        if _top_piecewise(e):
            e = _fold_top(e)
        if isinstance(e, sympy.Piecewise):
            out.extend((ei, sympy.And(c, ci)) for ei, ci in e.args)
        else:
            out.append((e, c))
    return sympy.Piecewise(*out)


def _without_piecewise(cond):
    """A condition with each Piecewise inside it taken out as an if-then-else of
    conditions: ``R(Piecewise((e1, c1), (e2, True)))`` is ``ITE(c1, R(e1), R(e2))``,
    true at the same points.

    A comparison read on a kinked value (``where(relu(x) > 1, ...)``, a loop's guard on
    an iterate of a body with ``abs``) holds Piecewises, and SymPy folds every condition
    that does each time it pairs it with a branch, rewriting it to ITE through set
    solving of the relations: seconds per condition (a 3-step loop's Hessian took
    30 s).  Taken out once here, conditions stay free of Piecewise."""
    if cond.is_Atom or not cond.has(sympy.Piecewise):
        return cond
    inner = next(p for p in sympy.preorder_traversal(cond) if isinstance(p, sympy.Piecewise))
    out = sympy.false
    for e, c in reversed(inner.args):
        picked = _without_piecewise(cond.xreplace({inner: e}))
        out = picked if c is sympy.true else sympy.ITE(c, picked, out)
    return out


def _top_piecewise(expr):
    # g * d with g = Piecewise((1, c), (0, True)) must fold into Piecewise((d, c), (0, True))
    # so the closed form, like the evaluators, leaks no NaN from d where c is false.  Only
    # a Piecewise at the top or among the factors matters; walking the whole tree
    # (expr.has) dominated the expansion of large gradients.
    return isinstance(expr, sympy.Piecewise) or (
        isinstance(expr, sympy.Mul) and any(isinstance(a, sympy.Piecewise) for a in expr.args))


_PARTIALS: dict = {}


def _default_examples(nargs, domain):
    shapes = {1: [((3,),), ((),), ((2, 3),)],
              2: [((2, 3), (3,)), ((), (2,)), ((4,), (4,))],
              3: [((3,), (3,), (3,))]}[nargs]
    return [Example(*s, domain=domain) for s in shapes]


def _blocked_grad(node, g):
    # stop_gradient: the op stays in the graph and passes nothing back.
    return [None] * len(node.inputs)


def elementwise_grad(node, g):
    """Cotangents ``g * d out / d input_i``, unbroadcast to each input's shape."""
    grads = []
    for x, rule in zip(node.inputs, _cotangent_rules(node, g)):
        if rule is None:
            grads.append(None)
        elif rule == "zeros":
            grads.append(zeros_like(x))
        elif rule == "g":
            grads.append(unbroadcast(g, x.shape))
        elif rule == "neg":
            grads.append(unbroadcast(apply("neg", [g]), x.shape))
        else:   # the strong-zero product g * partial over the inputs it uses
            used, attrs, dtype = rule
            inputs = [node.inputs[i] for i in used]
            inputs.append(g)
            shape = broadcast_shapes(*[v.shape for v in inputs], op="elementwise")
            new = derived_node(GENERIC, inputs, dict(attrs), shape, dtype)
            grads.append(new if new.shape == x.shape else unbroadcast(new, x.shape))
    return grads


def _cotangent_rules(node, g):
    """How each input's cotangent is built: None, "zeros", "g", "neg", or (the inputs
    used, the attributes of the ``elementwise`` node computing ``g * partial`` over them
    and g, its dtype).  Memoised: a long chain meets the same op and dtypes again and
    again, and SymPy's work is the cost."""
    dtypes = tuple([x.dtype for x in node.inputs])
    key = (node.opdef.name, dtypes, g.dtype, tuple(sorted(node.attrs.items())) if node.attrs else ())
    rules = _RULES.get(key)
    if rules is None:
        parts, syms = node.opdef.partials(dtypes, **node.attrs)
        rules = _RULES[key] = [_node_rule(_cotangent_rule(p, syms, dtypes, g.dtype), dtypes,
                                          g.dtype, node.opdef.name)
                               if d.kind == "f" else None for p, d in zip(parts, dtypes)]
    return rules


def _node_rule(rule, dtypes, g_dtype, op_name):
    """A ``(used, expr)`` rule as (used, the generic node's attributes, its dtype)."""
    if not isinstance(rule, tuple):
        return rule
    used, expr = rule
    attrs = {"expr": expr, "strong": len(used), "label": f"{op_name}_grad"}
    return used, attrs, _generic_dtype([dtypes[i] for i in used] + [g_dtype], **attrs)


def _cotangent_rule(partial, syms, dtypes, g_dtype):
    if partial is None:
        return None
    partial = sympy.sympify(partial)
    if partial == 0:
        return "zeros"
    if partial == 1:
        return "g"
    if partial == -1:
        return "neg"
    used = [i for i, s in enumerate(syms) if s in partial.free_symbols]
    new = arg_symbols([dtypes[i] for i in used] + [g_dtype])
    partial = partial.xreplace({syms[i]: new[k] for k, i in enumerate(used)})
    if isinstance(partial, sympy.Piecewise):
        # a mask (maximum, where, clip): g is selected, not multiplied, as TF's select
        # does -- an infinite g where the mask is 0 gives 0, not inf * 0 = NaN
        return used, sympy.Piecewise(*[(new[-1] * e, c) for e, c in partial.args])
    return used, new[-1] * partial


_RULES: dict = {}


def _zero_where_strong(fn, strong):
    """``fn``, 0 where its argument ``strong`` is 0: a derivative rule's ``g * partial``
    is 0 where g is, whatever the partial (inf or nan) is there."""
    def call(*arrays):
        return select.where(arrays[strong] == 0, 0, fn(*arrays))
    return call


def _generic_dtype(dtypes, expr, **attrs):
    if isinstance(expr, Boolean) and not isinstance(expr, sympy.Symbol):
        return np.dtype(bool)
    return float_result(dtypes)


def _bool_result(dtypes, **attrs):
    return np.dtype(bool)


def _cast_rule(x, dtype):
    kind = np.dtype(dtype).kind
    if x.is_real is not True:  # a boolean argument
        return x if kind == "b" else sympy.Piecewise((1, x), (0, True))
    if kind == "b":
        return sympy.Ne(x, 0)
    return trunc(x) if kind in "iu" else x


def _cast_partials(x, dtype):
    # Only float -> float carries a gradient; casting to int cuts the path.
    return [sympy.S.One if x.is_real and np.dtype(dtype).kind == "f" else None]


def _heaviside(x, at_zero):
    return sympy.Heaviside(x, at_zero)


def _max_partials(x, y):
    # TF: x gets g where x >= y (a tie goes wholly to the first argument), y the rest
    return _first_where(x >= y)


def _min_partials(x, y):
    # TF: x gets g where x <= y (a tie goes to the first argument), y the rest
    return _first_where(x <= y)


def _first_where(first):
    # TF's masks are comparisons (x >= y, and y where not): an infinite tie goes to x
    # and a NaN to y, where a step of x - y (inf - inf is NaN) gave neither
    if first in (sympy.true, sympy.false):
        return [sympy.S.One, sympy.S.Zero] if first else [sympy.S.Zero, sympy.S.One]
    return [sympy.Piecewise((1, first), (0, True)), sympy.Piecewise((0, first), (1, True))]


def _pow_partials(x, y):
    # TF: d(x**y)/dy = x**y * log(x), defined as 0 where x <= 0 (no NaN from log).
    return [y * x ** (y - 1), sympy.Piecewise((x ** y * sympy.log(x), x > 0), (0, True))]


def _where_partials(c, a, b):
    return [None, sympy.Piecewise((1, c), (0, True)), sympy.Piecewise((0, c), (1, True))]


def _where_dtype(dtypes, **attrs):
    return promote(dtypes[1:])


def _np_pow(x, y):
    if x.dtype.kind in "iub" and y.dtype.kind in "iub" and np.any(np.asarray(y) < 0):
        return np.power(x.astype(np.float64), y)
    return np.power(x, y)


def _unary(name, rule, numpy=None, domain=(-2.0, 2.0), partials=None, doc="", dtype=float_result):
    return register(ElementwiseOp(name, rule, nargs=1, numpy=numpy, domain=domain,
                                  partials=partials, doc=doc, dtype=dtype))


def _binary(name, rule, numpy=None, domain=(-2.0, 2.0), partials=None, doc="", dtype=promote,
            examples=None):
    return register(ElementwiseOp(name, rule, nargs=2, numpy=numpy, domain=domain,
                                  partials=partials, doc=doc, dtype=dtype, examples=examples))


POS = (0.2, 3.0)
UNIT = (-0.9, 0.9)

_unary("neg", lambda x: -x, np.negative, doc="-x", dtype=promote)
_unary("abs", sympy.Abs, np.abs, doc="|x|; its derivative sign(x) is 0 at 0", dtype=promote)
_unary("sin", sympy.sin, np.sin, doc="sine")
_unary("cos", sympy.cos, np.cos, doc="cosine")
_unary("tan", sympy.tan, np.tan, domain=(-1.2, 1.2), doc="tangent")
_unary("asin", sympy.asin, np.arcsin, domain=UNIT, doc="inverse sine")
_unary("acos", sympy.acos, np.arccos, domain=UNIT, doc="inverse cosine")
_unary("atan", sympy.atan, np.arctan, doc="inverse tangent")
_unary("sinh", sympy.sinh, np.sinh, doc="hyperbolic sine")
_unary("cosh", sympy.cosh, np.cosh, doc="hyperbolic cosine")
_unary("tanh", sympy.tanh, np.tanh, doc="hyperbolic tangent; derivative 1 - tanh(x)**2")
_unary("exp", sympy.exp, np.exp, doc="exponential")
_unary("expm1", expm1, np.expm1, doc="exp(x) - 1, accurate near 0")
_unary("log", sympy.log, np.log, domain=POS, doc="natural logarithm")
_unary("log1p", log1p, np.log1p, domain=POS, doc="log(1 + x), accurate near 0")
_unary("sqrt", sympy.sqrt, np.sqrt, domain=POS, doc="square root; derivative +inf at 0")
_unary("square", lambda x: x ** 2, np.square, doc="x**2", dtype=promote)
_unary("reciprocal", lambda x: 1 / x, np.reciprocal, domain=POS, doc="1/x")
_unary("sign", sympy.sign, np.sign, partials=lambda x: [sympy.S.Zero],
       doc="sign of x; TF defines its gradient as zeros", dtype=promote)
for _name, _fn, _np in [("floor", sympy.floor, np.floor), ("ceil", sympy.ceiling, np.ceil),
                        ("round", rint, np.rint)]:
    _unary(_name, _fn, _np, partials=lambda x: [None], dtype=promote,
           doc=f"{_name} of x (round: half to even, as TF); no gradient: TF registers None")
_unary("sigmoid", sigmoid, doc="logistic function; derivative sigmoid*(1 - sigmoid)")
_unary("softplus", softplus, doc="log(1 + exp(x)); derivative sigmoid(x)")
_unary("relu", relu, doc="max(x, 0); derivative 1 where x > 0, 0 at the kink (TF)",
       dtype=promote)
_unary("erf", sympy.erf, doc="error function")
_unary("erfc", sympy.erfc, gamma.erfc, doc="1 - erf(x), accurate where erf(x) is near 1")
_unary("lgamma", sympy.loggamma, gamma.lgamma, domain=POS,
       doc="log|Gamma(x)|; derivative digamma (TF); +inf at the poles 0, -1, -2, ...")
_unary("digamma", lambda x: sympy.polygamma(0, x), functools.partial(gamma.polygamma, 0),
       domain=POS, doc="Gamma'(x)/Gamma(x); derivative polygamma(1, x); NaN at the poles (TF)")
register(ElementwiseOp("polygamma", lambda x, n: sympy.polygamma(n, x), nargs=1,
                       numpy=lambda x, n: gamma.polygamma(n, x),
                       examples=[Example((3,), domain=POS, n=1),
                                 Example((2, 2), domain=POS, n=2)],
                       doc="psi^(n)(x), n an integer >= 0 (attribute); derivative "
                           "polygamma(n + 1, x); inf (odd n) or NaN at the poles (TF)"))
_unary("identity", lambda x: x, lambda x: np.array(x, copy=True), doc="the same tensor",
       dtype=promote)
register(ElementwiseOp("stop_gradient", lambda x: x, nargs=1, numpy=lambda x: np.array(x),
                       dtype=promote, blocks=True,
                       doc="the same value, but no gradient flows back through this use"))
register(ElementwiseOp("cast", _cast_rule, nargs=1, partials=_cast_partials,
                       numpy=lambda x, dtype: x.astype(dtype),
                       dtype=lambda dts, dtype: np.dtype(dtype),
                       examples=[Example((3,), dtype="float64"), Example((2,), dtype="float32")],
                       doc="change of dtype; a cast to an integer type cuts the gradient"))

_binary("add", lambda x, y: x + y, np.add, doc="x + y")
_binary("sub", lambda x, y: x - y, np.subtract, doc="x - y")
_binary("mul", lambda x, y: x * y, np.multiply, doc="x * y")
_binary("div", lambda x, y: x / y, np.true_divide, dtype=float_result,
        examples=[Example((2, 3), (3,), domain=POS), Example((), (2,), domain=POS)],
        doc="x / y (true division)")
_binary("pow", lambda x, y: x ** y, _np_pow, partials=_pow_partials, domain=(0.3, 2.0),
        doc="x ** y; d/dy is 0 where x <= 0 (TF)")
_binary("atan2", sympy.atan2, np.arctan2, dtype=float_result,
        doc="atan2(y, x): the angle of (x, y); d/dy = x/(x**2 + y**2), d/dx = -y/(x**2 + y**2)")
_binary("floordiv", lambda x, y: sympy.floor(x / y), np.floor_divide,
        partials=lambda x, y: [None, None], domain=POS,
        doc="floor(x / y) (Python's //); no gradient (TF: FloorDiv is not differentiable)")
_binary("floormod", lambda x, y: x - y * sympy.floor(x / y), np.mod, domain=POS,
        partials=lambda x, y: [sympy.S.One, -sympy.floor(x / y)],
        doc="x - y * floor(x / y) (Python's %, sign of y); d/dx = 1, d/dy = -floor(x/y) (TF)")
_binary("maximum", sympy.Max, np.maximum, partials=_max_partials,
        doc="elementwise max; a tie sends the gradient to the first argument (TF)")
_binary("minimum", sympy.Min, np.minimum, partials=_min_partials,
        doc="elementwise min; a tie sends the gradient to the first argument (TF)")
for _name, _rel, _np in [("less", sympy.Lt, np.less), ("less_equal", sympy.Le, np.less_equal),
                         ("greater", sympy.Gt, np.greater),
                         ("greater_equal", sympy.Ge, np.greater_equal),
                         ("equal", sympy.Eq, np.equal), ("not_equal", sympy.Ne, np.not_equal)]:
    _binary(_name, _rel, _np, dtype=_bool_result, partials=lambda x, y: [None, None],
            doc=f"elementwise comparison ({_name}); boolean, carries no gradient")
_BOOLS = [Example(np.array([True, False, True]), np.array([True, True, False]))]
_binary("logical_and", sympy.And, np.logical_and, dtype=_bool_result, examples=_BOOLS,
        partials=lambda x, y: [None, None], doc="elementwise and of booleans")
_binary("logical_or", sympy.Or, np.logical_or, dtype=_bool_result, examples=_BOOLS,
        partials=lambda x, y: [None, None], doc="elementwise or of booleans")
register(ElementwiseOp("logical_not", sympy.Not, nargs=1, numpy=np.logical_not,
                       dtype=_bool_result, partials=lambda x: [None],
                       examples=[Example(np.array([True, False]))],
                       doc="elementwise not of booleans"))
register(ElementwiseOp(
    "where", lambda c, a, b: sympy.Piecewise((a, c), (b, True)), nargs=3, numpy=select.where,
    partials=_where_partials, dtype=_where_dtype,
    examples=[Example(np.array([True, False, True]), (3,), (3,)),
              Example(np.array([[True], [False]]), (2, 3), ())],
    doc="a where c else b; the branch not taken gets zero gradient and leaks no NaN"))
GENERIC = register(ElementwiseOp(
    "elementwise", lambda *args, expr, strong=None, label=None: expr, nargs=-1,
    dtype=_generic_dtype, examples=[],
    doc="a fused elementwise expression (built by derivative rules)"))
