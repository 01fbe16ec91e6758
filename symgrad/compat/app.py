"""``tf.app``: ``tf.app.run()`` and ``tf.app.flags`` (the same module as ``tf.flags``),
how every tensorflow/models script starts and ends.

``tf.app.run(main=None, argv=None)`` parses the command line (``sys.argv`` unless
``argv`` is given) into ``tf.flags.FLAGS``, tolerating flags no one defined as TF does
(they stay in the arguments), calls ``main`` (the ``main`` of the ``__main__`` module
unless given) with the program name and the other arguments, and exits with what
``main`` returns (``sys.exit``: None and 0 are success).  ``--help``, ``-h``, ``-?``,
``--helpshort`` and ``--helpfull`` print the flags with their help and exit with
status 1, as absl does.  A bad flag value raises ``IllegalFlagValueError``.

Imports ``compat.flags`` and the standard library.

>>> from symgrad.compat import flags
>>> fv = flags.FlagValues()
>>> _ = flags.DEFINE_float("learning_rate", 0.1, "Initial learning rate.", flag_values=fv)
>>> try:
...     run(main=lambda argv: print(argv, fv.learning_rate) or 3,
...         argv=["t.py", "--learning_rate=0.5", "--unknown=1"], flag_values=fv)
... except SystemExit as done:
...     print("exit status", done.code)
['t.py', '--unknown=1'] 0.5
exit status 3
"""
from __future__ import annotations

import sys

from . import flags as _flags

flags = _flags   # tf.app.flags is tf.flags

HELP_FLAGS = ("--help", "-help", "-h", "-?", "--helpshort", "-helpshort", "--helpfull",
              "-helpfull")


def run(main=None, argv=None, flag_values=None):
    """``tf.app.run``: parse the flags, call ``main(argv)``, exit with its result.

    Args:
        main: a function of the remaining arguments (the program name first); the
            ``main`` of the ``__main__`` module by default.
        argv: the command line, program name first; ``sys.argv`` by default.
        flag_values: where the flags are (``tf.flags.FLAGS``; symgrad's addition, for
            tests).
    Raises:
        SystemExit: always, with main's return value (1 after printing help).
        tf.flags.IllegalFlagValueError: a flag's value is not one it takes.
    """
    fv = _flags._or_global(flag_values)
    main = main or _main_of_script()
    argv = list(sys.argv if argv is None else argv)
    if any(a in HELP_FLAGS for a in _before_end(argv[1:])):
        print(usage(argv[0], fv))
        sys.exit(1)
    rest = fv(argv, known_only=True)
    sys.exit(main(rest))


def _main_of_script():
    found = getattr(sys.modules.get("__main__"), "main", None)
    if found is None:
        raise AttributeError("tf.app.run(): the __main__ module has no function main; "
                             "define def main(argv): ... or pass tf.app.run(main=...)")
    return found


def _before_end(args):
    return args[:args.index("--")] if "--" in args else args


def usage(program, flag_values=None):
    """The help absl prints for ``--help``: the script's docstring (or a USAGE line),
    then each flag with its help, grouped by the module that defined it."""
    fv = _flags._or_global(flag_values)
    doc = getattr(sys.modules.get("__main__"), "__doc__", None)
    lines = [doc.rstrip() if doc else f"\n       USAGE: {program} [flags]", "flags:"]
    by_module = {}
    for name in sorted(fv):
        by_module.setdefault(fv[name].module, []).append(fv[name])
    for module, found in by_module.items():
        lines += ["", f"{module}:"]
        for flag in found:
            lines += _described(flag)
    return "\n".join(lines)


def _described(flag):
    choices = f"<{'|'.join(flag.parser.enum_values)}>: " if flag.parser.kind == "enum" else ""
    name = f"[no]{flag.name}" if flag.boolean else flag.name
    lines = [f"  --{name}: {choices}{flag.help}", f"    (default: '{_shown(flag.default)}')"]
    kind = flag.parser.type_help()
    if flag.multi:
        kind = "repeat this option to specify a list of values"
    if kind:
        lines.append(f"    ({kind})")
    return lines


def _shown(value):
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, list):
        return ",".join(str(v) for v in value)
    return "" if value is None else str(value)
