"""``Model.summary()``: Keras's table (65 columns: layer and type, output shape,
parameter count; a functional model whose layers do not form one chain gets 98
columns and "Connected to": ``['dense[0][0]']``, the layer, call and output index of
each input), a field too long for its column wrapped onto the next lines as Keras
wraps it, then the parameter totals with their sizes in bytes.  ``keras_models``
gives the rows.

Sits in ``compat``; imports numpy only.

>>> print_row(["global_average_pooling1d (GlobalAveragePooling1D)", "(None, 8)", "0"],
...           print_fn=lambda line: print(line.rstrip()))
 global_average_pooling1d (  (None, 8)                 0
 GlobalAveragePooling1D)
"""
from __future__ import annotations

import numpy as np

POSITIONS = (29, 55, 65)   # (Keras's 0.45, 0.85 and 1.0 of 65 columns)
CONNECTED = (29, 58, 68, 98)   # (0.3, 0.6, 0.7 and 1.0 of 98, with "Connected to")
_BREAKS = ("),", "},", "],", "',")


def print_row(fields, print_fn=print, positions=POSITIONS):
    """One table row; a field longer than its column continues on the next line."""
    left = [str(f) for f in fields]
    while any(left):
        line = ""
        for col, text in enumerate(left):
            start = positions[col - 1] if col else 0
            last = col == len(positions) - 1
            space = 0 if last else 2
            cutoff = positions[col] - start - space - (0 if last else 1)
            piece = text[:cutoff]
            breaks = [piece.find(b) + len(b) for b in _BREAKS if piece.find(b) >= 0]
            if breaks:   # (Keras breaks after the end of a tuple or list)
                cutoff = min(breaks)
                piece = piece[:cutoff]
            line += (" " if col == 0 else "") + piece + " " * space
            left[col] = text[cutoff:]
            line += " " * (positions[col] - len(line))
        print_fn(line)


def summary(model, rows, connected, print_fn=print):
    """The table for ``model``: ``rows`` of (class name, layer, output shape,
    connections), with the "Connected to" column if ``connected``."""
    positions = CONNECTED if connected else POSITIONS
    width = positions[-1]
    heads = ["Layer (type)", "Output Shape", "Param #"] + (["Connected to"] if connected else [])
    print_fn(f'Model: "{model.name}"')
    print_fn("_" * width)
    print_row(heads, print_fn, positions)
    print_fn("=" * width)
    for kind, layer, shape, links in rows:
        fields = [f"{layer.name} ({kind})", str(shape),
                  str(layer.count_params())]
        print_row(fields + ([str(links)] if connected else []), print_fn, positions)
        print_fn(" " * width)
    print_fn("=" * width)
    trainable = sum(int(np.prod(w.shape)) for w in model.trainable_weights)
    total = model.count_params()
    for what, count in (("Total", total), ("Trainable", trainable),
                        ("Non-trainable", total - trainable)):
        print_fn(f"{what} params: {count} ({memory(count * 4)})")
    print_fn("_" * width)


def memory(size):
    """Keras's readable size of ``size`` bytes: ``20.00 Byte``, ``1.50 KB``."""
    for unit in ("Byte", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:.2f} {unit}"
        size /= 1024
