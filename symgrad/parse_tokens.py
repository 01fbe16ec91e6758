"""The tokens of ``sg.parse``'s expressions, and its errors pointing at a column.

A regex tokenizer over ASCII: spaces, numbers, names and operators; the first other
character becomes a ``bad`` token that the parser reports when it reaches it (so an
earlier error is named first).  :func:`_fail` raises the ParseError that shows the
text around the column (control characters escaped) with a caret under it.

Imports ``symgrad.errors`` only; ``symgrad.parse`` is its one user.

>>> [t.kind for t in tokenize("x**2")]
['name', 'op', 'number', 'end']
"""
from __future__ import annotations

import re

from .errors import ParseError

MAX_LENGTH = 5000

_TOKEN = re.compile(r"""
    (?P<space>[ \t\r\n]+)
  | (?P<number>(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)
  | (?P<name>[A-Za-z_][A-Za-z_0-9]*)
  | (?P<op>\*\*|[-+*/@(),=:\[\]])
""", re.VERBOSE | re.ASCII)  # ASCII only: '1٠5' is not the number 105
_HINTS = {"'": "strings are not allowed", '"': "strings are not allowed",
          ".": "attribute access ('.') is not allowed",
          ";": "statements are not allowed", "#": "comments are not allowed"}


class Token:
    def __init__(self, kind, text, pos):
        self.kind, self.text, self.pos = kind, text, pos

    def __repr__(self):
        return f"Token({self.kind}, {self.text!r}, {self.pos})"


def _visible(char):
    """``char`` as it may be echoed: control and other unprintable characters escaped."""
    return char if char.isprintable() else repr(char)[1:-1]


def _fail(text, pos, message):
    start = 0 if len(text) <= 70 else max(0, pos - 30)
    shown = [_visible(c) for c in text[start:start + 70 if len(text) > 70 else len(text)]]
    caret = sum(len(c) for c in shown[:pos - start])
    raise ParseError(f"cannot parse the expression: {message} (at column {pos + 1})\n"
                     f"  {''.join(shown)}\n  {' ' * caret}^")


def tokenize(text):
    """The tokens of ``text``, ending with an ``end`` token.

    The first character outside the grammar's alphabet becomes a ``bad`` token
    (tokenizing stops there); the parser reports it when it reaches it, so an
    earlier error (a dunder name) is named first.

    >>> [t.text for t in tokenize("2*x**2")]
    ['2', '*', 'x', '**', '2', '']
    """
    if not isinstance(text, str):
        raise ParseError(f"the expression must be a string, not {type(text).__name__}")
    if len(text) > MAX_LENGTH:
        raise ParseError(f"the expression is {len(text)} characters long; the limit is "
                         f"{MAX_LENGTH}: build large programs in Python instead")
    tokens, pos = [], 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:  # reported when the parser reaches it, after earlier errors
            tokens.append(Token("bad", text[pos], pos))
            break
        if m.lastgroup != "space":
            tokens.append(Token(m.lastgroup, m.group(), pos))
        pos = m.end()
    tokens.append(Token("end", "", len(text)))
    return tokens
