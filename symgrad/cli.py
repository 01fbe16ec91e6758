"""The ``symgrad`` command line: argument parsing -> public API -> print.

``symgrad demo`` runs the classic questions about ``tf.gradients``.

>>> main(["demo", "--quiet"])
0
"""
from __future__ import annotations

import argparse
import sys


def _demo(args):
    from .demo import run_demo
    text = run_demo()
    if not args.quiet:
        print(text)
    return 0


def build_parser():
    parser = argparse.ArgumentParser(
        prog="symgrad",
        description="See and run the gradient TensorFlow would compute.",
        epilog="example:  symgrad demo")
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="the classic tf.gradients questions, answered")
    demo.add_argument("--quiet", action="store_true", help="compute but print nothing")
    demo.set_defaults(run=_demo)
    return parser


def main(argv=None):
    """Run the CLI; returns the process exit code."""
    args = build_parser().parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
