"""Sizes known only when values arrive: :class:`Dim` and the shape helpers around it.

A shape is a tuple of ints and Dims (``graph`` re-exports everything here).  SymPy
is imported only when a size expression is built or evaluated symbolically: a Dim
read back from a generated module (``Dim.parsed``) keeps its text, compares and
hashes by it, and is evaluated at known sizes without SymPy (``concrete_shape``),
so an evaluator with unknown sizes loads in a new process without SymPy.

Imports numpy and errors.

>>> d = Dim.parsed("3*n_X - 1", ("n_X",))
>>> concrete_shape((d, 2), {"n_X": 4}), d == Dim.fresh("n_X") * 3 - 1
((11, 2), True)
"""
from __future__ import annotations

import ast
import math
import operator
import re
from fractions import Fraction

import numpy as np

from .errors import FeedError, ShapeError


class Dim:
    """A dimension whose size is known only when values arrive.

    ``expr`` is a SymPy expression in non-negative integer symbols, one per ``None``
    axis of a placeholder (``n_X`` for the first axis of placeholder ``X``); sizes
    derived from it stay expressions (``3*n_X`` after flattening, ``n_X - 1`` after
    ``x[1:]``).  Like TF, a Dim prints as ``None`` and equals ``None``, so
    ``x.shape == (None, 3)`` holds; ``dim.expr`` is the symbolic size (for closed
    forms and the compiler), ``dim.value`` is None (TF1's ``Dimension.value``).
    Two Dims are equal when their expressions are.

    >>> n = Dim.fresh("n_X")
    >>> (n, 3 * n, (3 * n) // 3 == n, n == None, n == 3)
    (None, None, True, True, False)
    """

    __slots__ = ("_expr", "_text", "_names")
    value = None

    def __init__(self, expr):
        self._expr, self._text, self._names = expr, None, None

    @classmethod
    def fresh(cls, name):
        import sympy
        return cls(sympy.Symbol(name, integer=True, nonnegative=True))

    @classmethod
    def parsed(cls, text, names):
        """The Dim of ``str(dim.expr)`` over the size symbols ``names``, kept as text
        (parsed by SymPy only if ``expr`` is asked for)."""
        dim = cls(None)
        dim._text, dim._names = text, tuple(names)
        return dim

    @property
    def expr(self):
        """The SymPy size expression."""
        if self._expr is None:
            import sympy
            symbols = {n: sympy.Symbol(n, integer=True, nonnegative=True) for n in self._names}
            self._expr = sympy.parse_expr(self._text, local_dict=symbols)
        return self._expr

    @property
    def text(self):
        """``str(expr)``: how the size is written in generated modules."""
        if self._text is None:
            self._text = str(self._expr)
        return self._text

    def symbols(self):
        """The keys (as ``symbol`` gives them) of the sizes this one is made of."""
        if self._names is not None:
            used = set(re.findall(r"[A-Za-z_]\w*", self._text))
            return tuple(n for n in self._names if n in used)
        return tuple(self._expr.free_symbols)

    @property
    def symbol(self):
        """The key of this size in ``bind_dims``'s bindings when it is a single symbol
        (the SymPy symbol; its name for a Dim kept as text), else None."""
        if self._names is not None:
            return self._text if self._text in self._names else None
        return self._expr if self._expr.is_Symbol else None

    def __repr__(self):
        return "None"

    def __str__(self):  # in generated code and listings: the size expression
        e = self.expr
        return str(e) if e.is_Atom or e.is_Mul and not e.could_extract_minus_sign() \
            else f"({e})"

    def __eq__(self, other):
        if other is None:
            return True
        if not isinstance(other, Dim):
            return False
        if self._names is None and other._names is None:
            return self._expr == other._expr
        return self.text == other.text

    def __ne__(self, other):
        return not self == other

    def __hash__(self):  # by text: equal expressions print alike
        return hash(self.text)

    def __add__(self, other):
        return make_dim(self.expr + dim_expr(other))

    __radd__ = __add__

    def __sub__(self, other):
        return make_dim(self.expr - dim_expr(other))

    def __rsub__(self, other):
        return make_dim(dim_expr(other) - self.expr)

    def __mul__(self, other):
        return make_dim(self.expr * dim_expr(other))

    __rmul__ = __mul__

    def __floordiv__(self, other):
        return make_dim(self.expr / dim_expr(other))

    def __rfloordiv__(self, other):
        return make_dim(dim_expr(other) / self.expr)

    def __index__(self):
        raise TypeError("the size of an unknown dimension (None) is known only when values "
                        "arrive; this operation needs a static size")


def dim_expr(d):
    """The SymPy size of a dimension (an int or a Dim)."""
    import sympy
    return d.expr if isinstance(d, Dim) else sympy.Integer(int(d))


def make_dim(expr):
    """An int when ``expr`` is a number, else a Dim."""
    import sympy
    expr = sympy.sympify(expr)
    return int(expr) if expr.is_Integer else Dim(expr)


def is_static(shape):
    """True when every dimension of ``shape`` is known (ints only)."""
    return shape is not None and not any(isinstance(d, Dim) for d in shape)


def same_up_to_unknown(a, b):
    """Shapes of one rank whose sizes are equal wherever both are known (TF's
    ``is_compatible_with``: an unknown size agrees with any size)."""
    return len(a) == len(b) and all(
        p == q or isinstance(p, Dim) or isinstance(q, Dim) for p, q in zip(a, b))


def shape_size(shape):
    """The number of elements: an int, or a Dim when some dimension is unknown."""
    if is_static(shape):
        return math.prod(map(int, shape))
    import sympy
    total = sympy.Integer(1)
    for d in shape:
        total *= dim_expr(d)
    return make_dim(total)


def shape_symbols(shape):
    """The size symbols a shape depends on."""
    out = set()
    for d in shape:
        if isinstance(d, Dim):
            out |= d.expr.free_symbols
    return out


def concrete_shape(shape, bindings, what="a tensor"):
    """``shape`` with every Dim evaluated at ``bindings`` ({symbol: int}; a Dim kept as
    text takes {name: int}, see ``Dim.symbol``)."""
    if is_static(shape):
        return tuple(shape)
    out = []
    for d in shape:
        if isinstance(d, Dim):
            value = size_at(d, bindings)
            if value is None:
                missing = ", ".join(sorted(str(s) for s in d.expr.free_symbols
                                           if s not in bindings))
                raise FeedError(f"the shape of {what} depends on the unknown size(s) {missing}, "
                                "known only when the placeholder it comes from is fed; feed it")
            d = _not_negative(value, d, what, shape)
        out.append(d)
    return tuple(out)


def _not_negative(value, d, what, shape=None):
    """A size evaluated from the sizes fed, refused when negative: an input too small
    for what is made of it (numpy would read a negative bound from the end)."""
    if value < 0:
        whole = f" (shape {shape_text(shape)})" if shape is not None else ""
        raise ShapeError(f"{what}{whole}: the size {d.text} is {value} at the sizes fed; an "
                         "input is too small for it (a window wider than its input with "
                         "VALID padding, or a slice past its end): feed larger inputs or pad "
                         "them")
    return value


def whole_size(d):
    """The key in bindings of the size ``d`` bound as a whole (``values.bind_dims``: a
    value whose size is ``d`` when not every symbol of ``d`` is bound)."""
    return ("size", d.text)


def size_at(d, bindings):
    """The size of the Dim ``d`` at ``bindings`` (an int), or None when a size it needs
    is not bound.  A session evaluates the same shapes at the same sizes step after
    step: a single symbol is a lookup, and other sizes are remembered per bindings."""
    symbol = d.symbol
    value = bindings.get(symbol if symbol is not None else whole_size(d))
    if value is not None:
        return int(value)
    key = (d, tuple(bindings.items()))
    value = _SIZES.get(key)
    if value is None:
        value = _size_at(d, bindings)
        if value is None:
            value = _sympy_size_at(d, bindings)
        if value is not None:
            if len(_SIZES) >= 4096:
                _SIZES.clear()
            _SIZES[key] = value
    return value


_SIZES: dict = {}


def _sympy_size_at(d, bindings):
    import sympy
    bindings = {sympy.Symbol(k, integer=True, nonnegative=True) if isinstance(k, str) else k: v
                for k, v in bindings.items()}
    value = sympy.sympify(d.expr.xreplace(bindings))
    return int(value) if value.is_number else None


_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
           ast.Div: lambda a, b: Fraction(a) / b, ast.FloorDiv: operator.floordiv,
           ast.Mod: operator.mod}
_CALLS = {"floor": math.floor, "ceiling": math.ceil, "Max": max, "Min": min,
          "Mod": operator.mod}


def _size_at(d, bindings):
    """The size of a Dim kept as text at ``bindings`` without SymPy, or None when its
    text is outside the small arithmetic read here (then SymPy evaluates it)."""
    if d._names is None:
        return None
    sizes = {str(k): int(v) for k, v in bindings.items()}

    def walk(node):
        if isinstance(node, ast.Constant) and type(node.value) is int:
            return node.value
        if isinstance(node, ast.Name) and node.id in sizes:
            return sizes[node.id]
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -walk(node.operand)
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            return _BINARY[type(node.op)](walk(node.left), walk(node.right))
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
            base, exponent = walk(node.left), walk(node.right)
            if type(exponent) is int and 0 <= exponent <= 64:
                return base ** exponent
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                node.func.id in _CALLS and not node.keywords:
            return _CALLS[node.func.id](*[walk(a) for a in node.args])
        raise _Unread
    try:
        value = walk(ast.parse(d.text, mode="eval").body)
    except (_Unread, SyntaxError, ZeroDivisionError, RecursionError):
        return None
    return int(value) if value == int(value) else None


class _Unread(Exception):
    """A size text outside what ``_size_at`` reads."""


def concrete_attrs(attrs, bindings):
    """``attrs`` with every Dim inside (tuples, lists, slices) evaluated at ``bindings``."""
    def walk(v):
        if isinstance(v, Dim):
            value = size_at(v, bindings)
            value = int(v.expr.xreplace(bindings)) if value is None else value
            return _not_negative(value, v, "a size of an operation")
        if isinstance(v, tuple):
            return tuple(walk(u) for u in v)
        if isinstance(v, list):
            return [walk(u) for u in v]
        if isinstance(v, slice):
            return slice(walk(v.start), walk(v.stop), walk(v.step))
        return v
    return {k: walk(v) for k, v in attrs.items()}


def has_dims(value):
    """True when ``value`` (an attr: tuples, lists, slices) holds a Dim."""
    if isinstance(value, Dim):
        return True
    if isinstance(value, (tuple, list)):
        return any(has_dims(v) for v in value)
    if isinstance(value, slice):
        return has_dims((value.start, value.stop, value.step))
    return False


def shape_text(shape):
    """A shape for messages and listings: ``(n_X, 3)`` (unknown sizes by their symbol)."""
    if shape is None:
        return "<unknown rank>"
    inner = ", ".join(d.text if isinstance(d, Dim) else str(d) for d in shape)
    return f"({inner},)" if len(shape) == 1 else f"({inner})"
