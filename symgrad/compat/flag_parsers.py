"""How ``tf.flags`` (absl's flags, as TF1 re-exports them) turns a command-line string
into a flag's value: one small parser per kind of flag, with absl's rules and its
messages.

- boolean: ``true``/``t``/``1`` and ``false``/``f``/``0`` in any case (and Python bools);
- integer: decimal, ``0x..`` hexadecimal or ``0o..`` octal, with optional bounds;
- float: anything ``float()`` reads (ints become floats), with optional bounds;
- string: any string; list: comma separated (CSV quoting), items stripped; spaceseplist:
  whitespace separated; enum: one of the given values.

A parser raises ``ValueError`` with the text absl puts after ``flag --name=value: ``.
Imports only the standard library.

>>> Parser("integer", lower_bound=0).parse("0x10")
16
>>> Parser("list").parse(" a , b,c")
['a', 'b', 'c']
"""
from __future__ import annotations

import csv

_TRUE, _FALSE = ("true", "t", "1"), ("false", "f", "0")


class Parser:
    """The parser of one kind of flag (``kind`` one of ``KINDS``)."""

    def __init__(self, kind, lower_bound=None, upper_bound=None, enum_values=None,
                 case_sensitive=True):
        if kind not in KINDS:
            raise ValueError(f"flag kind {kind!r}: use one of {sorted(KINDS)}")
        self.kind, self.lower_bound, self.upper_bound = kind, lower_bound, upper_bound
        self.enum_values, self.case_sensitive = list(enum_values or []), case_sensitive
        if kind == "enum" and not self.enum_values:
            raise ValueError("DEFINE_enum: enum_values must be a non-empty list of strings")

    def parse(self, argument):
        """The value of ``argument`` (a string, or a Python value of the right type)."""
        value = KINDS[self.kind](self, argument)
        self.check_bounds(value)
        return value

    def check_bounds(self, value):
        """``ValueError`` unless ``value`` is within the bounds (absl's message)."""
        if self.kind not in ("integer", "float") or value is None:
            return
        if ((self.lower_bound is not None and value < self.lower_bound)
                or (self.upper_bound is not None and value > self.upper_bound)):
            raise ValueError(f"{value} is not {self.syntactic_help()}")

    def syntactic_help(self):
        """What a value must be, as absl says it: "a non-negative integer", ..."""
        noun = "integer" if self.kind == "integer" else "number"
        lo, hi = self.lower_bound, self.upper_bound
        if lo is not None and hi is not None:
            return f"{'an' if noun == 'integer' else 'a'} {noun} in the range [{lo}, {hi}]"
        special = {(0, None): "non-negative", (1, None): "positive", (None, -1): "negative",
                   (None, 0): "non-positive"}
        if noun == "integer" and (lo, hi) in special:
            return f"a {special[lo, hi]} {noun}"
        if noun == "number" and (lo, hi) in ((0, None), (None, 0)):
            return "a non-negative number" if lo == 0 else "a non-positive number"
        article = "an" if noun == "integer" else "a"
        if lo is not None:
            return f"{article} {noun} >= {lo}"
        if hi is not None:
            return f"{article} {noun} <= {hi}"
        return f"{article} {noun}"

    def type_help(self):
        """The line absl's help adds under a flag ("(an integer)"), or ''."""
        if self.kind in ("integer", "float"):
            return self.syntactic_help()
        return {"list": "a comma separated list",
                "spaceseplist": "a whitespace separated list"}.get(self.kind, "")


def _boolean(parser, argument):
    if isinstance(argument, bool):
        return argument
    if isinstance(argument, str):
        if argument.lower() in _TRUE:
            return True
        if argument.lower() in _FALSE:
            return False
    elif isinstance(argument, int) and argument in (0, 1):
        return bool(argument)
    raise ValueError(f"('Non-boolean argument to boolean flag', {argument!r})")


def _integer(parser, argument):
    if isinstance(argument, int) and not isinstance(argument, bool):
        return argument
    if not isinstance(argument, str):
        raise ValueError(f"Expect argument to be a string or int, found {type(argument)}")
    base = 10
    if len(argument) > 2 and argument[0] == "0" and argument[1] in "ox":
        base = 8 if argument[1] == "o" else 16
    return int(argument, base)


def _float(parser, argument):
    if isinstance(argument, (int, float)) and not isinstance(argument, bool):
        return float(argument)
    if not isinstance(argument, str):
        raise ValueError(f"Expect argument to be a string, int, or float, found "
                         f"{type(argument)}")
    return float(argument)


def _string(parser, argument):
    if not isinstance(argument, str):
        raise ValueError(f'flag value must be a string, found "{type(argument)}"')
    return argument


def _list(parser, argument):
    if isinstance(argument, list):
        return argument
    if not argument:
        return []
    return [item.strip() for item in next(csv.reader([argument], strict=True))]


def _spaceseplist(parser, argument):
    return argument if isinstance(argument, list) else argument.split()


def _enum(parser, argument):
    if parser.case_sensitive:
        if argument in parser.enum_values:
            return argument
    else:
        for value in parser.enum_values:
            if str(argument).upper() == value.upper():
                return value
    raise ValueError(f"value should be one of <{'|'.join(parser.enum_values)}>")


KINDS = {"boolean": _boolean, "integer": _integer, "float": _float, "string": _string,
         "list": _list, "spaceseplist": _spaceseplist, "enum": _enum}
