"""Run TF1 program text with only the import changed (``tensorflow`` -> ``symgrad.compat.v1``)."""
import textwrap

import numpy as np

IMPORTS = ("import tensorflow.compat.v1 as tf", "import tensorflow as tf")


def run_tf1(source, **namespace):
    """Execute TF1 program text with ``import symgrad.compat.v1 as tf``; return its globals."""
    text = textwrap.dedent(source)
    for line in IMPORTS:
        text = text.replace(line, "import symgrad.compat.v1 as tf")
    assert "import symgrad.compat.v1 as tf" in text, "the program must import tensorflow"
    scope = {"np": np, "__name__": "__tf1_program__", **namespace}
    exec(compile(text, "<tf1 program>", "exec"), scope)  # noqa: S102  (test programs we wrote)
    return scope
