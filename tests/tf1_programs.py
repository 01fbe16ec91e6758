"""Run TF1 program text with only the import changed: the oracle-side helper."""
import textwrap

import symgrad as sg

TF_IMPORTS = ("import tensorflow.compat.v1 as tf", "import tensorflow as tf")


def run_tf1(source, **namespace):
    """Execute ``source`` (written for TensorFlow 1) against ``symgrad.compat.v1`` in a
    fresh graph, with ``namespace`` as its data; returns the program's variables."""
    text = textwrap.dedent(source)
    assert any(line in text for line in TF_IMPORTS), "a TF1 program imports tensorflow as tf"
    for line in TF_IMPORTS:
        text = text.replace(line, "import symgrad.compat.v1 as tf")
    namespace = dict(namespace)
    with sg.Graph().as_default():
        exec(compile(text, "<tf1 program>", "exec"), namespace)
    return namespace
