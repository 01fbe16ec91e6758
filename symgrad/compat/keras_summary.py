"""``Model.summary()``: Keras's table (65 columns: layer and type, output shape,
parameter count), a field too long for its column wrapped onto the next lines as
Keras wraps it, then the parameter totals with their sizes in bytes.

Sits in ``compat``; imports numpy only.

>>> print_row(["global_average_pooling1d (GlobalAveragePooling1D)", "(None, 8)", "0"],
...           print_fn=lambda line: print(line.rstrip()))
 global_average_pooling1d (  (None, 8)                 0
 GlobalAveragePooling1D)
"""
from __future__ import annotations

import numpy as np

POSITIONS = (29, 55, 65)   # (Keras's 0.45, 0.85 and 1.0 of 65 columns)
_BREAKS = ("),", "},", "],", "',")


def print_row(fields, print_fn=print):
    """One table row; a field longer than its column continues on the next line."""
    left = [str(f) for f in fields]
    while any(left):
        line = ""
        for col, text in enumerate(left):
            start = POSITIONS[col - 1] if col else 0
            last = col == len(POSITIONS) - 1
            space = 0 if last else 2
            cutoff = POSITIONS[col] - start - space - (0 if last else 1)
            piece = text[:cutoff]
            breaks = [piece.find(b) + len(b) for b in _BREAKS if piece.find(b) >= 0]
            if breaks:   # (Keras breaks after the end of a tuple or list)
                cutoff = min(breaks)
                piece = piece[:cutoff]
            line += (" " if col == 0 else "") + piece + " " * space
            left[col] = text[cutoff:]
            line += " " * (POSITIONS[col] - len(line))
        print_fn(line)


def summary(model, print_fn=print):
    """The table for ``model`` (a functional model's "Connected to" column is left out)."""
    print_fn(f'Model: "{model.name}"')
    print_fn("_" * 65)
    print_row(["Layer (type)", "Output Shape", "Param #"], print_fn)
    print_fn("=" * 65)
    for layer in model._sublayers():
        try:
            shape = layer.output_shape
        except AttributeError:
            shape = "multiple"
        print_row([f"{layer.name} ({type(layer).__name__})", str(shape),
                   str(layer.count_params())], print_fn)
        print_fn(" " * 65)
    print_fn("=" * 65)
    trainable = sum(int(np.prod(w.shape)) for w in model.trainable_weights)
    total = model.count_params()
    for what, count in (("Total", total), ("Trainable", trainable),
                        ("Non-trainable", total - trainable)):
        print_fn(f"{what} params: {count} ({memory(count * 4)})")
    print_fn("_" * 65)


def memory(size):
    """Keras's readable size of ``size`` bytes: ``20.00 Byte``, ``1.50 KB``."""
    for unit in ("Byte", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:.2f} {unit}"
        size /= 1024
