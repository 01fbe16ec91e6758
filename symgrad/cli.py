"""The ``symgrad`` command line: argument parsing -> public API -> print.

Commands: ``demo`` (the classic questions), ``grad`` (closed forms and values of
gradients), ``explain`` (the forward trace and reverse sweep), ``draw`` (the
graph as DOT/SVG/PNG), ``cache info|clear`` (the compile cache).  Expressions go
through the whitelist parser (:func:`symgrad.parse.parse`), never ``eval``; bad
input gives a one-line ``symgrad: error: ...`` and exit code 2.  Each request runs
under ``--timeout`` seconds and ``--memory`` megabytes (:mod:`symgrad.guard`);
exceeding either is a one-line error and exit code 2 too.

>>> main(["grad", "x**2 + x - 1", "--wrt", "x", "--at", "x=2"])
d/dx = 2*x + 1 = 5
0
"""
from __future__ import annotations

import argparse
import keyword
import re
import sys

import numpy as np

from .errors import ParseError, SymgradError
from .guard import MAX_MEMORY_MB, MAX_SECONDS, run_limited
from .version import __version__

EXAMPLES = """\
examples:
  symgrad demo
      the classic tf.gradients questions, answered
  symgrad grad "x**2 + x - 1" --wrt x --at x=2
      d/dx = 2*x + 1 = 5
  symgrad grad "a + b" --wrt a b --let b=2*a --at a=0
      total derivatives: d/da = 3 (1 directly + 2 through b), d/db = 1
  symgrad grad "a + b" --wrt a b --let b=2*a --at a=0 --stop a b
      partial derivatives: 1 and 1
  symgrad grad "a**3 + 2*b**2" --wrt a b --let b=2*a --at a=5 --latex
  symgrad grad "reduce_sum(x*x)" --wrt x --at "x=[1, 2, 3]"
  symgrad grad "x[0]*x[1]" --wrt x --at "x=[1, 2]"
  symgrad explain "a + b" --wrt a b --let b=2*a --at a=0
      the forward trace, the reverse sweep and why each answer is what it is
  symgrad draw "a + stop_gradient(b)" --wrt a b --let b=2*a --at a=0 -o graph.svg
  symgrad cache info
      where compiled functions are cached, how much is there, whether it is trusted

expressions: names, numbers, + - * / ** @, unary -, parentheses, [lists], indexing and
slices (x[0], x[1:], M[0, ::2]) and calls of sg functions (sin, exp, log, sqrt, tanh,
sigmoid, maximum, reduce_sum(x, axis=0), ...).
Names without a value are symbols (scalar placeholders).  Nothing is passed to eval.
"""


def _assignment(text, what):
    """Split ``name=expression`` and check the name."""
    name, sep, rhs = text.partition("=")
    name = name.strip()
    if not sep or not rhs.strip():
        raise ParseError(f"{what} {text!r}: write NAME=EXPRESSION, e.g. {what} b=2*a")
    if not re.fullmatch(r"[A-Za-z_][A-Za-z_0-9]*", name) or "__" in name or \
            keyword.iskeyword(name):
        raise ParseError(f"{what} {text!r}: {name!r} is not a valid name (letters, digits, "
                         "single underscores)")
    return name, rhs


def build_program(args):
    """Leaves from --at, definitions from --let, then the expression; returns (y, names)."""
    import symgrad as sg
    names = {}
    for item in args.at or []:
        name, rhs = _assignment(item, "--at")
        value = sg.parse(rhs, {}, leaves="error")
        if isinstance(value, sg.Tensor):
            raise ParseError(f"--at {item!r}: the value must be a number or a list of numbers")
        names[name] = sg.Variable(np.asarray(value, dtype=np.float64), name=name)
    for item in args.let or []:
        name, rhs = _assignment(item, "--let")
        if name in names:
            raise ParseError(f"--let {item!r}: {name!r} is already defined")
        names[name] = sg.identity(_tensor(sg.parse(rhs, names), rhs), name=name)
    y = _tensor(sg.parse(args.expression, names), args.expression)
    return y, names


def _tensor(value, text):
    import symgrad as sg
    if not isinstance(value, sg.Tensor):
        raise ParseError(f"{text!r} has no names, so there is nothing to differentiate")
    return value


def _wrt(args, names):
    missing = [n for n in args.wrt if n not in names]
    if missing:
        raise ParseError(f"--wrt {' '.join(missing)}: not a name of the expression "
                         f"(names: {', '.join(sorted(names)) or 'none'})")
    stops = [names[n] for n in args.stop or [] if n in names]
    unknown = [n for n in args.stop or [] if n not in names]
    if unknown:
        raise ParseError(f"--stop {' '.join(unknown)}: not a name of the expression")
    return [names[n] for n in args.wrt], stops or None


def _grad(args):
    import symgrad as sg
    from .forms.layout import render_form
    from .teach import why_none
    from .teach.render import value_text
    with sg.Graph().as_default():
        y, names = build_program(args)
        xs, stops = _wrt(args, names)
        grads = sg.gradients(y, xs, stop_gradients=stops)
        for i, (name, g) in enumerate(zip(args.wrt, grads)):
            if g is None:
                print(f"d/d{name} = None: " + why_none(y, xs, i, stop_gradients=stops))
                continue
            # render_form names shared parts: str() of a deep chain's tree is 2^depth
            form = sg.latex(g) if args.latex else render_form(sg.closed_form(g))
            try:
                value = value_text(sg.evaluate(g))
            except sg.FeedError:
                value = form            # a leaf without --at: the closed form only
            print(f"d/d{name} = {form}" + ("" if value == form else f" = {value}"))
    return 0


def _explain(args):
    import symgrad as sg
    with sg.Graph().as_default():
        y, names = build_program(args)
        xs, stops = _wrt(args, names)
        e = sg.explain(y, xs, stop_gradients=stops)
        print({"text": e.text, "markdown": e.markdown, "html": e.html}[args.format]())
    return 0


def _draw(args):
    import symgrad as sg
    with sg.Graph().as_default():
        y, names = build_program(args)
        xs, stops = _wrt(args, names)
        highlight = names.get(args.highlight) if args.highlight else None
        if args.highlight and highlight is None:
            raise ParseError(f"--highlight {args.highlight}: not a name of the expression")
        drawing = sg.draw(y, xs, stop_gradients=stops, highlight=highlight)
        if args.output:
            try:
                drawing.save(args.output)
            except OSError as exc:
                raise ParseError(f"-o {args.output}: cannot write it "
                                 f"({exc.strerror or exc})") from None
            print(f"wrote {args.output}")
        else:
            print(drawing.source, end="")
    return 0


def _demo(args):
    from .demo import run_demo
    text = run_demo(explain=args.explain)
    if not args.quiet:
        print(text)
    return 0


def _program_arguments(p):
    p.add_argument("expression", help='the expression, e.g. "a**3 + 2*b**2"')
    p.add_argument("--wrt", nargs="+", required=True, metavar="NAME",
                   help="the xs: names to differentiate with respect to")
    p.add_argument("--let", action="append", metavar="NAME=EXPR",
                   help="define an intermediate tensor, e.g. --let b=2*a (repeatable)")
    p.add_argument("--at", action="append", metavar="NAME=VALUE",
                   help="give a leaf a value, e.g. --at a=5 or --at 'x=[1, 2]' (repeatable)")
    p.add_argument("--stop", nargs="+", metavar="NAME",
                   help="stop_gradients: names held constant (partial derivatives)")
    _limit_arguments(p)


def _limit_arguments(p):
    p.add_argument("--timeout", type=_bounded("--timeout", MAX_SECONDS), default=60,
                   metavar="SECONDS", help="give up after this long (default 60; 0: never)")
    p.add_argument("--memory", type=_bounded("--memory", MAX_MEMORY_MB), default=1024,
                   metavar="MB", help="give up when the request needs more memory than "
                                      "this (default 1024; 0: no limit)")


def _bounded(option, largest):
    def value(text):
        if not re.fullmatch(r"[0-9]{1,12}", text.strip()) or int(text) > largest:
            raise argparse.ArgumentTypeError(f"{text!r}: give a whole number from 0 to "
                                             f"{largest}")
        return int(text)
    return value


class _Parser(argparse.ArgumentParser):
    """argparse, with its errors on one line (``symgrad: error: ...``) and exit code 2."""

    def error(self, message):
        self.exit(2, f"symgrad: error: {message} (see {self.prog} --help)\n")


def build_parser():
    parser = _Parser(
        prog="symgrad", formatter_class=argparse.RawDescriptionHelpFormatter,
        description="See the gradient TensorFlow's tf.gradients computes, and why.",
        epilog=EXAMPLES)
    parser.add_argument("--version", action="version", version=f"symgrad {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="the classic tf.gradients questions, answered")
    demo.add_argument("--quiet", action="store_true", help="compute but print nothing")
    demo.add_argument("--explain", action="store_true", help="add the full explanations")
    _limit_arguments(demo)
    demo.set_defaults(run=_demo)
    cache = sub.add_parser("cache", help="the compile cache: where, how big, clear it")
    cache.add_argument("action", choices=("info", "clear"))
    cache.set_defaults(run=_cache)
    for name, run, doc in [("grad", _grad, "closed form and value of each gradient"),
                           ("explain", _explain, "forward trace, reverse sweep and why"),
                           ("draw", _draw, "the graph with values and adjoints (DOT/SVG/PNG)")]:
        p = sub.add_parser(name, help=doc, epilog=EXAMPLES,
                           formatter_class=argparse.RawDescriptionHelpFormatter)
        _program_arguments(p)
        p.set_defaults(run=run)
    sub.choices["grad"].add_argument("--latex", action="store_true", help="print LaTeX")
    sub.choices["explain"].add_argument("--format", choices=("text", "markdown", "html"),
                                        default="text")
    sub.choices["draw"].add_argument("-o", "--output", help="file: .dot, .svg, .png or .pdf")
    sub.choices["draw"].add_argument("--highlight", metavar="NAME",
                                     help="colour the paths from this x")
    return parser


def _cache(args):
    from .lower import cachedir
    where = cachedir.locate()
    if args.action == "clear":
        if where.note.startswith("refused"):
            raise ParseError(f"not clearing {cachedir.configured_dir()}: {where.note}")
        files, size = cachedir.clear(where.write)
        print(f"removed {files} files ({size / 2 ** 20:.1f} MB) from {where.write}")
        return 0
    use = cachedir.usage(where.read)
    print(f"directory: {where.read} ({where.note})")
    if where.write != where.read:
        print(f"new entries: {where.write}")
    print(f"modules: {use['modules']}, index entries: {use['index']}, size: "
          f"{use['bytes'] / 2 ** 20:.1f} MB of at most {cachedir.max_bytes() / 2 ** 20:.0f} MB "
          "(SYMGRAD_CACHE_MAX_MB)")
    return 0


def _request(args):
    """Run the command; every error becomes one line (2: bad input or a limit, 1: a bug)."""
    try:
        return args.run(args)
    except (SymgradError, TimeoutError, RecursionError) as exc:
        message, code = str(exc), 2
    except RuntimeError as exc:  # the environment (no Graphviz for -o x.svg, ...)
        message, code = str(exc), 1
    except MemoryError:
        message, code = (f"the request needs more than its memory limit ("
                         f"{getattr(args, 'memory', 0) or 'all the'} MB, --memory): the "
                         "expression is too large; simplify it or raise --memory"), 2
    except Exception as exc:  # noqa: BLE001 -- one line, never a traceback
        message, code = f"internal error ({type(exc).__name__}): {exc}", 1
    print(f"symgrad: error: {message}", file=sys.stderr)
    return code


def main(argv=None):
    """Run the CLI; returns the process exit code (2 for bad input or a limit, 1 for bugs)."""
    args = build_parser().parse_args(argv)
    if args.command == "cache":
        return _request(args)
    return run_limited(lambda: _request(args), args.timeout, args.memory)


if __name__ == "__main__":
    sys.exit(main())
