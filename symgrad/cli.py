"""The ``symgrad`` command line: argument parsing -> public API -> print.

Commands: ``demo`` (the classic questions), ``grad`` (closed forms and values of
gradients), ``explain`` (the forward trace and reverse sweep), ``draw`` (the
graph as DOT/SVG/PNG).  Expressions go through the whitelist parser
(:func:`symgrad.parse.parse`), never ``eval``; bad input gives a one-line
``symgrad: error: ...`` and exit code 2.

>>> main(["grad", "x**2 + x - 1", "--wrt", "x", "--at", "x=2"])
d/dx = 2*x + 1 = 5
0
"""
from __future__ import annotations

import argparse
import keyword
import re
import signal
import sys
import threading

import numpy as np

from .errors import ParseError, SymgradError
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
            form = sg.latex(g) if args.latex else str(sg.closed_form(g))
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
            drawing.save(args.output)
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
    p.add_argument("--timeout", type=int, default=60, metavar="SECONDS",
                   help="give up on closed forms after this long (default 60; 0: never)")


def build_parser():
    parser = argparse.ArgumentParser(
        prog="symgrad", formatter_class=argparse.RawDescriptionHelpFormatter,
        description="See the gradient TensorFlow's tf.gradients computes, and why.",
        epilog=EXAMPLES)
    parser.add_argument("--version", action="version", version=f"symgrad {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="the classic tf.gradients questions, answered")
    demo.add_argument("--quiet", action="store_true", help="compute but print nothing")
    demo.add_argument("--explain", action="store_true", help="add the full explanations")
    demo.set_defaults(run=_demo)
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


class _TimeLimit:
    """Interrupt the work after ``seconds`` (SIGALRM; a no-op where unavailable)."""

    def __init__(self, seconds):
        self.seconds = seconds
        self.active = bool(seconds) and hasattr(signal, "SIGALRM") and \
            threading.current_thread() is threading.main_thread()

    def _expired(self, signum, frame):
        raise TimeoutError(f"gave up after {self.seconds} s (--timeout): the expression is too "
                           "large for closed forms; simplify it or raise --timeout")

    def __enter__(self):
        if self.active:
            self.previous = signal.signal(signal.SIGALRM, self._expired)
            signal.alarm(int(self.seconds))

    def __exit__(self, *exc):
        if self.active:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, self.previous)


def main(argv=None):
    """Run the CLI; returns the process exit code (2 for bad input, 1 for other errors)."""
    args = build_parser().parse_args(argv)
    try:
        with _TimeLimit(getattr(args, "timeout", None)):
            return args.run(args)
    except ParseError as exc:
        print(f"symgrad: error: {exc}", file=sys.stderr)
        return 2
    except (SymgradError, RuntimeError, TimeoutError) as exc:
        print(f"symgrad: error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
