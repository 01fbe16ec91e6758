"""``tf.flags`` / ``tf.app.flags``: the command-line flags of TF1 scripts (absl's flags,
which TF1 re-exports), written for symgrad.

``DEFINE_integer('max_steps', 100, 'doc')`` and friends declare a flag on ``FLAGS``;
``FLAGS(argv)`` parses a command line (``--max_steps=5``, ``--max_steps 5``,
``--flag``/``--noflag`` for booleans, ``--`` ends the flags) and returns what is not a
flag, program name first; reading ``FLAGS.max_steps`` before any parse parses
``sys.argv`` first, as TF's wrapper does.  Unknown flags raise
``UnrecognizedFlagError`` (``known_only=True`` passes them through, which is what
``tf.app.run`` uses); bad values raise ``IllegalFlagValueError`` with absl's message
(``flag --max_steps=abc: invalid literal for int() with base 10: 'abc'``); defining a
name twice raises ``DuplicateFlagError``.  The string parsing is ``flag_parsers``.

Differences from TF: ``FLAGS`` holds only the flags the program defines (TF's also
holds absl's and TF's own, such as ``verbosity`` and ``logtostderr``), so
``flag_values_dict()`` and the help list only those.

Imports only the standard library and ``flag_parsers``.

>>> fv = FlagValues()
>>> _ = DEFINE_integer("max_steps", 100, "Number of batches.", flag_values=fv)
>>> fv(["train.py", "--max_steps=5", "extra"]), fv.max_steps
(['train.py', 'extra'], 5)
"""
from __future__ import annotations

import logging
import sys

from .flag_parsers import Parser


class Error(Exception):
    """``tf.flags.Error``: the base of the flag errors (absl's)."""


class IllegalFlagValueError(Error):
    """A value the flag's parser or a validator refuses."""


class UnrecognizedFlagError(Error):
    """A command-line flag (or an assignment to ``FLAGS.name``) no one defined."""


class DuplicateFlagError(Error):
    """A flag name defined twice."""


class Flag:
    """One flag: ``name``, ``default``, ``value``, ``help``, ``present`` (how many times
    the command line gave it) and ``using_default_value``."""

    def __init__(self, parser, name, default, help_string, module, multi=False):
        self.parser, self.name, self.help, self.module = parser, name, help_string, module
        self.multi, self.present, self.using_default_value = multi, 0, True
        self.validators = []
        self.default = self._parse_value(default)
        self.value = self._copy(self.default)

    @property
    def boolean(self):
        return self.parser.kind == "boolean"

    def _parse_value(self, argument):
        if argument is None:
            return None
        try:
            if self.multi:
                items = argument if isinstance(argument, (list, tuple)) else [argument]
                return [self.parser.parse(a) for a in items]
            return self.parser.parse(argument)
        except (ValueError, TypeError) as exc:
            raise IllegalFlagValueError(f"flag --{self.name}={argument}: {exc}") from None

    @staticmethod
    def _copy(value):
        return list(value) if isinstance(value, list) else value

    def parse(self, argument):
        """Set the value from the command-line string ``argument``."""
        value = self._parse_value(argument)
        if self.multi and self.present:
            self.value = self.value + value
        else:
            self.value = value
        self.present += len(value) if self.multi else 1
        self.using_default_value = False

    def check(self, value):
        """IllegalFlagValueError unless ``value`` passes the bounds and validators."""
        try:
            if not self.multi:
                self.parser.check_bounds(value)
        except ValueError as exc:
            raise IllegalFlagValueError(f"flag --{self.name}={value}: {exc}") from None
        for checker, message in self.validators:
            if not checker(value):
                raise IllegalFlagValueError(f"flag --{self.name}={value}: {message}")

    def reset(self):
        self.value, self.present = self._copy(self.default), 0
        self.using_default_value = True


class FlagHolder:
    """What ``DEFINE_*`` returns: ``.value`` reads the flag through its FlagValues."""

    def __init__(self, flag_values, flag):
        self._flag_values, self._flag = flag_values, flag

    name = property(lambda self: self._flag.name)
    default = property(lambda self: self._flag.default)
    present = property(lambda self: bool(self._flag.present))

    @property
    def value(self):
        return getattr(self._flag_values, self._flag.name)


class FlagValues:
    """``tf.flags.FLAGS``' type: flags by name, parsed from a command line."""

    def __init__(self):
        object.__setattr__(self, "_by_name", {})
        object.__setattr__(self, "_parsed", False)
        object.__setattr__(self, "_required", [])

    # -- reading and setting -----------------------------------------------------
    def __getattr__(self, name):
        flags = self.__dict__["_by_name"]
        if name not in flags:
            raise AttributeError(name)
        if not self.__dict__["_parsed"]:   # TF: the first read parses sys.argv
            self(sys.argv)
        return flags[name].value

    def __setattr__(self, name, value):
        flag = self._by_name.get(name)
        if flag is None:
            raise UnrecognizedFlagError(f"Unknown command line flag '{name}'")
        flag.check(value)
        flag.value, flag.using_default_value = value, False

    def __delattr__(self, name):
        """Forget flag ``name`` (how notebooks re-run a cell of DEFINEs)."""
        if name not in self._by_name:
            raise AttributeError(name)
        del self._by_name[name]
        if name in self._required:
            self._required.remove(name)

    def _flags(self):
        """``{name: Flag}`` (absl's; the notebook idiom deletes them all by it)."""
        return dict(self._by_name)

    def remove_flag_values(self, flag_values):
        """Forget the flags named in ``flag_values`` (names or a FlagValues)."""
        for name in list(flag_values):
            if name in self._by_name:
                delattr(self, name)

    def __getitem__(self, name):
        return self._by_name[name]

    def __contains__(self, name):
        return name in self._by_name

    def __iter__(self):
        return iter(self._by_name)

    def __len__(self):
        return len(self._by_name)

    def __dir__(self):
        return sorted(self._by_name)

    def flag_values_dict(self):
        """``{name: value}`` of every flag."""
        return {name: flag.value for name, flag in self._by_name.items()}

    def get_flag_value(self, name, default):
        """The value of flag ``name``, or ``default`` if there is no such flag."""
        return getattr(self, name) if name in self._by_name else default

    def is_parsed(self):
        return self._parsed

    def mark_as_parsed(self):
        object.__setattr__(self, "_parsed", True)

    def unparse_flags(self):
        """Every flag back to its default, and not parsed."""
        for flag in self._by_name.values():
            flag.reset()
        object.__setattr__(self, "_parsed", False)

    # -- defining --------------------------------------------------------------
    def define(self, flag):
        """Add ``flag``; DuplicateFlagError if its name is taken."""
        first = self._by_name.get(flag.name)
        if first is not None:
            raise DuplicateFlagError(
                f"The flag '{flag.name}' is defined twice. First from {first.module}, second "
                f"from {flag.module}. Description from first occurrence: {first.help}")
        self._by_name[flag.name] = flag
        return FlagHolder(self, flag)

    # -- parsing ----------------------------------------------------------------
    def __call__(self, argv, known_only=False):
        """Parse ``argv`` (program name first); returns the program name and every
        argument that is not a flag (unknown flags too when ``known_only``)."""
        if isinstance(argv, str) or not argv:
            raise TypeError("FLAGS(argv): argv must be a non-empty list of strings "
                            "(program name first), such as sys.argv")
        rest = _Parse(self._by_name, list(argv[1:]), known_only).run()
        self.mark_as_parsed()
        for flag in self._by_name.values():
            if flag.name in self._required and flag.value is None:
                raise IllegalFlagValueError(f"flag --{flag.name}=None: Flag --{flag.name} "
                                            "must have a value other than None.")
            flag.check(flag.value)
        return [argv[0]] + rest


class _Parse:
    """One pass over a command line (absl's rules, GNU style: flags may follow
    positional arguments; ``--`` ends the flags)."""

    def __init__(self, flags, args, known_only):
        self.flags, self.args, self.known_only, self.rest = flags, args, known_only, []

    def run(self):
        while self.args:
            arg = self.args.pop(0)
            if arg == "--":
                self.rest += (["--"] if self.known_only else []) + self.args
                break
            if not arg.startswith("-") or arg == "-":
                self.rest.append(arg)
            else:
                self.one(arg)
        return self.rest

    def one(self, arg):
        name, has_value, value = arg.lstrip("-").partition("=")
        flag = self.flags.get(name)
        if flag is not None:
            if not has_value:
                value = True if flag.boolean else self.next_value(arg)
            flag.parse(value)
        elif name.startswith("no") and not has_value and name[2:] in self.flags \
                and self.flags[name[2:]].boolean:
            self.flags[name[2:]].parse(False)
        elif self.known_only:
            self.rest.append(arg)
        else:
            close = suggestions(name, list(self.flags))
            hint = f". Did you mean: {', '.join(close)} ?" if close else ""
            raise UnrecognizedFlagError(f"Unknown command line flag '{name}'{hint}")

    def next_value(self, arg):
        if not self.args:
            raise Error(f"Missing value for flag {arg}")
        return self.args.pop(0)


def suggestions(attempt, names):
    """The flags an unknown ``attempt`` may have meant (absl's rule): those whose first
    len(attempt) characters are fewest edits away, if fewer than half its length."""
    if len(attempt) <= 2 or not names:
        return []
    ranked = sorted((_edits(attempt, n[:len(attempt)]), n) for n in names)
    least = ranked[0][0]
    return [] if least >= 0.5 * len(attempt) else [n for d, n in ranked if d == least]


def _edits(a, b):
    """Damerau-Levenshtein distance (insertions, deletions, substitutions and swaps of
    neighbours, each 1)."""
    d = [[i + j if i * j == 0 else 0 for j in range(len(b) + 1)] for i in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            swap = d[i - 1][j - 1] + (a[i - 1] != b[j - 1])
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, swap)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
    return d[len(a)][len(b)]


FLAGS = FlagValues()


def _or_global(flag_values):
    # (not `flag_values or FLAGS`: a FlagValues without flags is falsy, having a len)
    return FLAGS if flag_values is None else flag_values
_OLD_NAMES = {"flag_name": "name", "default_value": "default", "docstring": "help"}


def _defining_module():
    """Where a DEFINE_* call was made: the script's path for ``__main__`` (absl's)."""
    frame = sys._getframe(3)
    module = frame.f_globals.get("__name__", "?")
    return sys.argv[0] if module == "__main__" and sys.argv and sys.argv[0] else module


def _define(kind, args, kwargs, multi=False, **parser_args):
    """Make a flag of ``kind`` from DEFINE_*'s (name, default, help) and old names."""
    old = [k for k in _OLD_NAMES if k in kwargs]
    for k in old:
        kwargs[_OLD_NAMES[k]] = kwargs.pop(k)
    if old:
        logging.warning("Use of the keyword argument names (flag_name, default_value, "
                        "docstring) is deprecated, please use (name, default, help) instead.")
    params = dict(zip(("name", "default", "help"), args), **kwargs)
    flag_values = _or_global(params.pop("flag_values", None))
    missing = [k for k in ("name", "default", "help") if k not in params]
    if missing:
        raise TypeError(f"DEFINE_{kind}: give {', '.join(missing)} (name, default, help)")
    flag = Flag(Parser(kind, **parser_args), params["name"], params["default"],
                params["help"], _defining_module(), multi)
    return flag_values.define(flag)


def DEFINE_string(*args, **kwargs):  # noqa: N802  (TF's names)
    return _define("string", args, kwargs)


def DEFINE_boolean(*args, **kwargs):  # noqa: N802
    return _define("boolean", args, kwargs)


def DEFINE_integer(*args, lower_bound=None, upper_bound=None, **kwargs):  # noqa: N802
    return _define("integer", args, kwargs, lower_bound=lower_bound, upper_bound=upper_bound)


def DEFINE_float(*args, lower_bound=None, upper_bound=None, **kwargs):  # noqa: N802
    return _define("float", args, kwargs, lower_bound=lower_bound, upper_bound=upper_bound)


def DEFINE_enum(name, default, enum_values, help, flag_values=None,  # noqa: N802,A002
                case_sensitive=True, **kwargs):
    return _define("enum", (name, default, help), dict(kwargs, flag_values=flag_values),
                   enum_values=enum_values, case_sensitive=case_sensitive)


def DEFINE_list(*args, **kwargs):  # noqa: N802
    return _define("list", args, kwargs)


def DEFINE_spaceseplist(*args, **kwargs):  # noqa: N802
    return _define("spaceseplist", args, kwargs)


def DEFINE_multi_string(*args, **kwargs):  # noqa: N802
    return _define("string", args, kwargs, multi=True)


def DEFINE_multi_integer(*args, lower_bound=None, upper_bound=None, **kwargs):  # noqa: N802
    return _define("integer", args, kwargs, multi=True, lower_bound=lower_bound,
                   upper_bound=upper_bound)


def DEFINE_multi_float(*args, lower_bound=None, upper_bound=None, **kwargs):  # noqa: N802
    return _define("float", args, kwargs, multi=True, lower_bound=lower_bound,
                   upper_bound=upper_bound)


DEFINE_bool = DEFINE_boolean


def _flag(name, flag_values):
    fv = _or_global(flag_values)
    if name not in fv:
        raise KeyError(f"Flag --{name} does not exist (define it with tf.flags.DEFINE_*)")
    return fv[name]


def mark_flag_as_required(flag_name, flag_values=None):
    """Parsing fails unless flag ``flag_name`` has a value other than None."""
    fv = _or_global(flag_values)
    _flag(flag_name, fv)
    fv._required.append(flag_name)


def mark_flags_as_required(flag_names, flag_values=None):
    for name in flag_names:
        mark_flag_as_required(name, flag_values)


def register_validator(flag_name, checker, message="Flag validation failed",
                       flag_values=None):
    """``checker(value)`` must hold whenever the flag is parsed or set."""
    _flag(flag_name, flag_values).validators.append((checker, message))


def validator(flag_name, message="Flag validation failed", flag_values=None):
    """``@tf.flags.validator('name')``: :func:`register_validator` as a decorator."""
    def decorate(checker):
        register_validator(flag_name, checker, message, flag_values)
        return checker
    return decorate
