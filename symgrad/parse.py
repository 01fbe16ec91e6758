"""A whitelist parser: untrusted text -> symgrad tensors, never ``eval``.

The grammar is explicit (a Pratt parser over a regex tokenizer)::

    expr    := prefix index* (infix expr)*   infix: + - * / @ (left), ** (right)
    prefix  := NUMBER | NAME | NAME '(' args ')' | '(' expr ')' | '[' expr, ... ']'
             | '-' expr | '+' expr           (-x**2 is -(x**2), as in Python)
    index   := '[' item, ... ']'             item: INT | [INT] ':' [INT] [':' [INT]]
    args    := expr, ...  then  axis=..., keepdims=...

Indexing binds tighter than any operator: ``-x[0]**2`` is ``-((x[0])**2)``.

Names are looked up in ``names`` (tensors or numbers), then ``pi``; a name
followed by ``(`` must be one of the known sg functions (:data:`FUNCTIONS`).
Everything else is rejected with a :class:`~symgrad.errors.ParseError` that
points at the column: strings, attribute access, Python keywords (``lambda``),
dunder names (``__import__``), input longer than :data:`MAX_LENGTH` characters
or nested deeper than :data:`MAX_DEPTH` levels, a value (list, tensor) of more than
:data:`MAX_ELEMENTS` elements, an integer exponent above :data:`MAX_INTEGER_POWER`
(also inside a list: ``x**[1000000]``).  Numbers are ASCII digits only, and error
snippets show control characters escaped.  Work is linear in the input.

Purely numeric sub-expressions are folded in float64 (``10**10**10`` is inf),
so no exact big-integer arithmetic can be triggered.

Imports the tracing layer (to build tensors), the errors and its tokenizer
(``parse_tokens``); nothing imports it but the public face, ``cli`` and ``teach``.

>>> import symgrad as sg
>>> with sg.Graph().as_default():
...     a = sg.constant(5.0, name="a")
...     str(parse("a**3 + 2*(2*a)**2", {"a": a}))
'a**3 + 8*a**2'
"""
from __future__ import annotations

import keyword
import math

from typing import Any

import numpy as np

from .errors import ParseError
from .parse_tokens import (MAX_LENGTH, _HINTS, _fail,  # noqa: F401  (MAX_LENGTH: re-exported)
                           tokenize)
from .graph import Node
from . import tracing as _tracing
from .tracing import functions as _functions
from .tracing import placeholder, stack

MAX_DEPTH = 200
MAX_LIST_DEPTH = 32         # numpy arrays have at most 64 axes
MAX_INTEGER_POWER = 256     # SymPy expands (x + 1)**n and computes 2**n exactly: keep n small
MAX_ELEMENTS = 100_000      # per value: closed forms hold one SymPy expression per element
_NOT_TENSOR_FUNCTIONS = {"cast", "einsum", "reshape", "broadcast_to", "zeros", "ones", "fill",
                         "zeros_like", "ones_like", "convert_to_tensor", "expand_dims",
                         "squeeze", "tensordot", "concat", "stack", "split", "unstack",
                         "clip_by_global_norm", "range", "linspace", "eye", "shape", "size",
                         "rank", "pad", "tile", "boolean_mask", "gather_nd", "global_norm",
                         "top_k", "scatter_nd", "segment_sum", "slice", "reverse"}
FUNCTIONS = {name: getattr(_tracing, name) for name in _tracing.TENSOR_FUNCTIONS
             if name not in _NOT_TENSOR_FUNCTIONS}
"""The functions an expression may call: sg's tensor functions (``sin``, ``reduce_sum``, ...)."""
KEYWORDS = ("axis", "keepdims")
CONSTANTS = {"pi": math.pi}

_BINDING = {"+": 10, "-": 10, "*": 20, "/": 20, "@": 20, "**": 40}
_UNARY_POWER = 30           # -x**2 == -(x**2) but x**-2 == x**(-2)


class _Parser:
    """Recursive descent with binding powers (a Pratt parser).

    Names are checked (dunder, keywords) and bad characters reported as soon as
    ``peek`` meets them.  Each nesting level costs at most three Python frames.
    """

    def __init__(self, text, names, leaves):
        self.text, self.names, self.leaves = text, names, leaves
        self.tokens = tokenize(text)
        self.i = 0
        self.depth = 0

    def peek(self):
        tok = self.tokens[self.i]
        if tok.kind == "bad":
            _fail(self.text, tok.pos, f"unexpected character {tok.text!r}; " + _HINTS.get(
                tok.text, "use names, numbers, + - * / ** @, parentheses and calls of "
                          "sg functions"))
        if tok.kind == "name":
            _check_name(self.text, tok)
        return tok

    def take(self, text=None):
        tok = self.peek()
        if text is not None and tok.text != text:
            found = "the end" if tok.kind == "end" else repr(tok.text)
            _fail(self.text, tok.pos, f"expected {text!r}, found {found}")
        self.i += 1
        return tok

    def expr(self, min_power=0):
        self.depth += 1
        if self.depth > MAX_DEPTH:
            _fail(self.text, self.peek().pos,
                  f"the expression is nested deeper than {MAX_DEPTH} levels")
        left = self.prefix()
        while self.peek().text == "[":      # indexing binds tighter than any operator
            left = self.index(left)
        while True:
            tok = self.peek()
            power = _BINDING.get(tok.text) if tok.kind == "op" else None
            if power is None or power <= min_power:
                break       # ** re-enters with power - 1, so it groups to the right
            self.take()
            right = self.expr(power - 1 if tok.text == "**" else power)
            left = _binary(tok.text, left, right, self.text, tok.pos)
        self.depth -= 1
        return left

    def prefix(self):
        tok = self.take()
        if tok.kind == "number":
            return _number(tok.text)
        if tok.text in ("-", "+"):
            operand = self.expr(_UNARY_POWER)
            return operand if tok.text == "+" else _negate(operand)
        if tok.text == "(":
            inner = self.expr()
            self.take(")")
            return inner
        if tok.text == "[":
            return self.list_literal(tok)
        if tok.kind == "name" and self.tokens[self.i].text == "(":
            return self.call(tok)
        if tok.kind == "name":
            return self.name(tok)
        found = "the end of the expression" if tok.kind == "end" else repr(tok.text)
        _fail(self.text, tok.pos, f"expected a number, a name or '(', found {found}")

    def list_literal(self, open_tok):
        items = [self.expr()]
        while self.peek().text == ",":
            self.take()
            items.append(self.expr())
        self.take("]")
        if all(isinstance(v, (float, int, np.ndarray)) for v in items):
            if any(np.ndim(v) >= MAX_LIST_DEPTH for v in items):
                _fail(self.text, open_tok.pos, f"lists are nested deeper than "
                      f"{MAX_LIST_DEPTH} levels")
            try:
                return np.array(items, dtype=np.float64)
            except ValueError:
                _fail(self.text, open_tok.pos, "the rows of a list have different lengths")
        return stack(items)

    def index(self, value):
        """``value[i, j:k, ::s]``: integers and slices of integers, as numpy takes them."""
        open_tok = self.take("[")
        items = [self.index_item()]
        while self.peek().text == ",":
            self.take()
            items.append(self.index_item())
        self.take("]")
        return _indexed(value, tuple(items), self.text, open_tok)

    def index_item(self):
        parts = [self.index_bound()]
        while self.peek().text == ":" and len(parts) < 3:
            self.take()
            parts.append(self.index_bound())
        if len(parts) > 1:
            return slice(*parts)
        if parts[0] is None:
            _fail(self.text, self.peek().pos, "an index needs an integer or a slice, e.g. "
                  "x[0], x[1:] or x[::2]")
        return parts[0]

    def index_bound(self):
        tok = self.peek()
        if tok.text in (":", ",", "]"):
            return None
        value = self.expr()
        if isinstance(value, Node) or np.ndim(value) != 0 or not float(value).is_integer():
            _fail(self.text, tok.pos, "an index must be an integer (or a slice of integers); "
                  "indexing by tensors is not supported here")
        return int(value)

    def name(self, tok):
        if tok.text in ("True", "False"):
            _fail(self.text, tok.pos, f"{tok.text} is only allowed as a keyword value "
                  "(keepdims=True)")
        if tok.text in self.names:
            value = self.names[tok.text]
            if not isinstance(value, (Node, int, float, np.ndarray)):
                _fail(self.text, tok.pos, f"name {tok.text!r} is bound to a "
                      f"{type(value).__name__}, not a tensor or number")
            return value
        if tok.text in CONSTANTS:
            return CONSTANTS[tok.text]
        if tok.text in FUNCTIONS:
            _fail(self.text, tok.pos, f"{tok.text!r} is a function: call it, e.g. "
                  f"{tok.text}(x)")
        if self.leaves == "placeholder":
            self.names[tok.text] = placeholder(shape=(), name=tok.text)
            return self.names[tok.text]
        known = ", ".join(sorted(self.names)) or "none"
        _fail(self.text, tok.pos, f"unknown name {tok.text!r} (known names: {known})")

    def call(self, name_tok):
        # Arguments are parsed in this loop (not a helper) to keep three Python
        # frames per nesting level: MAX_DEPTH levels stay far from the recursion limit.
        if name_tok.text not in FUNCTIONS:
            _fail(self.text, name_tok.pos, f"{name_tok.text!r} is not a known function; "
                  "known: " + ", ".join(sorted(FUNCTIONS)))
        self.take("(")
        args, kwargs = [], {}
        while self.peek().text != ")":
            if args or kwargs:
                self.take(",")
            tok = self.peek()
            if tok.kind == "name" and self.tokens[self.i + 1].text == "=":
                self.i += 2
                kwargs[tok.text] = self.keyword_value(tok)
            elif kwargs:
                _fail(self.text, tok.pos, "a positional argument after a keyword argument")
            else:
                args.append(self.expr())
        self.take(")")
        return _call(name_tok, args, kwargs, self.text)

    def keyword_value(self, tok):
        if tok.text not in KEYWORDS:
            _fail(self.text, tok.pos, f"keyword {tok.text!r} is not allowed; "
                  f"allowed: {', '.join(KEYWORDS)}")
        if self.peek().text in ("True", "False"):
            return self.take().text == "True"
        return _integral(self.expr(), self.text, tok)


def _check_name(text, tok):
    if "__" in tok.text:
        _fail(text, tok.pos, f"name {tok.text!r}: names with '__' (Python internals) are "
              "not allowed")
    if keyword.iskeyword(tok.text) and tok.text not in ("True", "False"):
        _fail(text, tok.pos, f"{tok.text!r} is a Python keyword; only mathematical "
              "expressions are allowed")


def _number(text):
    value = float(text)
    return int(value) if value.is_integer() and abs(value) < 2 ** 53 and \
        not any(c in text for c in ".eE") else value


def _integral(value, text, tok):
    arr = np.asarray(value)
    if isinstance(value, Node) or not np.all(np.mod(arr, 1) == 0):
        _fail(text, tok.pos, f"{tok.text}= needs an integer or a list of integers")
    return int(arr) if arr.ndim == 0 else tuple(int(v) for v in arr.ravel())


def _negate(value):
    if isinstance(value, Node):
        return -value
    return _fold(np.negative, value)


def _fold(fn, *values):
    with np.errstate(all="ignore"):
        out = fn(*[np.asarray(v, dtype=np.float64) for v in values])
    return float(out) if np.ndim(out) == 0 else out


_NUMPY = {"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.true_divide,
          "**": np.power}


def _binary(op, left, right, text, pos):
    if not isinstance(left, Node) and not isinstance(right, Node):
        if op == "@":
            _fail(text, pos, "'@' needs at least one tensor operand")
        try:
            shape = np.broadcast_shapes(np.shape(left), np.shape(right))
        except ValueError:
            _fail(text, pos, f"the shapes {np.shape(left)} and {np.shape(right)} of the "
                  f"operands of {op!r} do not broadcast")
        _check_size(shape, text, pos)
        return _fold(_NUMPY[op], left, right)
    if op == "**":
        _check_power(right, text, pos)
    out = {"+": lambda: left + right, "-": lambda: left - right, "@": lambda: left @ right,
           "*": lambda: left * right, "/": lambda: left / right,
           "**": lambda: left ** right}[op]()
    _check_size(out.shape, text, pos)
    return out


def _check_size(shape, text, pos):
    size = int(np.prod(shape, dtype=np.float64))
    if size > MAX_ELEMENTS:
        _fail(text, pos, f"the result has {size} elements (shape {tuple(shape)}); the limit "
              f"is {MAX_ELEMENTS}: build large tensors in Python instead")


def _check_power(exponent, text, pos):
    # Every element counts: x**[1000000] is x**1000000 too.
    values = np.abs(np.asarray(exponent, dtype=np.float64)).ravel() \
        if not isinstance(exponent, Node) else np.zeros(0)
    with np.errstate(invalid="ignore"):  # inf % 1 is nan: not an integer, not expanded
        big = values[(values > MAX_INTEGER_POWER) & (np.mod(values, 1) == 0)]
    if big.size:
        _fail(text, pos, f"the exponent {big[0]:g} is too large for closed forms (limit "
              f"{MAX_INTEGER_POWER}; SymPy would expand it); give it a name instead, e.g. "
              "x**n with n a leaf")


def _indexed(value, key, text, tok):
    if not isinstance(value, (Node, np.ndarray)):
        _fail(text, tok.pos, "a number cannot be indexed")
    try:
        return value[key]
    except (IndexError, ValueError) as exc:    # ShapeError is a ValueError
        _fail(text, tok.pos, str(exc))


def _call(tok, args, kwargs, text):
    if not args:
        _fail(text, tok.pos, f"{tok.text}() needs an argument")
    if FUNCTIONS[tok.text] is _functions.pow and len(args) == 2:
        _check_power(args[1], text, tok.pos)
    try:
        out = FUNCTIONS[tok.text](*args, **kwargs)
    except TypeError as exc:
        _fail(text, tok.pos, f"bad arguments for {tok.text}: {exc}")
    _check_size(getattr(out, "shape", ()), text, tok.pos)
    return out


def parse(text: str, names: dict[str, Any] | None = None,
          leaves: str = "placeholder") -> Any:
    """Build the tensor an expression describes, without ``eval``.

    Args:
        text: the expression, e.g. ``"a**3 + 2*b**2"`` or ``"reduce_sum(sin(x)**2)"``.
        names: ``{name: tensor or number}`` the expression may use.  Names it
            creates (see ``leaves``) are added to this dict.
        leaves: ``"placeholder"`` (default): an unknown name becomes a scalar
            float64 placeholder of that name in the default graph; ``"error"``:
            an unknown name is a ParseError.
    Returns:
        a Tensor (or a float / numpy array when the text has no names at all).
    Raises:
        ParseError: text outside the grammar (strings, attributes, keywords,
            dunder names, unknown functions), too long or too deeply nested.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     names = {}
    ...     y = parse("x**2 + x - 1", names)
    ...     float(sg.evaluate(sg.gradients(y, names["x"])[0], {names["x"]: 2.0}))
    5.0
    >>> parse("__import__('os')")
    Traceback (most recent call last):
    ...
    symgrad.errors.ParseError: cannot parse the expression: name '__import__': names with '__' (Python internals) are not allowed (at column 1)
      __import__('os')
      ^
    """
    if leaves not in ("placeholder", "error"):
        raise ValueError(f"leaves={leaves!r}: use 'placeholder' or 'error'")
    parser = _Parser(text, names if names is not None else {}, leaves)
    if parser.peek().kind == "end":
        raise ParseError("cannot parse the expression: it is empty")
    result = parser.expr()
    tok = parser.peek()
    if tok.kind != "end":
        _fail(text, tok.pos, f"unexpected {tok.text!r} after a complete expression")
    return result
