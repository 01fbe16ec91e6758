"""Run TF1 program text with only the import changed: the oracle-side helper."""
import textwrap

import symgrad as sg

TF_IMPORT = "import tensorflow as tf"


def run_tf1(source):
    """Execute ``source`` (written for TensorFlow 1) against ``symgrad.compat.v1`` in a
    fresh graph; returns the program's variables."""
    text = textwrap.dedent(source)
    assert TF_IMPORT in text, "a TF1 program imports tensorflow as tf"
    namespace = {}
    with sg.Graph().as_default():
        exec(compile(text.replace(TF_IMPORT, "import symgrad.compat.v1 as tf"),
                     "<tf1 program>", "exec"), namespace)
    return namespace
