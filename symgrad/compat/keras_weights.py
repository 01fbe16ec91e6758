"""The sample weights ``Model.fit``/``evaluate``/``*_on_batch`` feed (graph-mode Keras's
rules): one weight per sample and output (per sample and step with
``sample_weight_mode="temporal"``), ones unless given; ``sample_weight`` (an
array for every output, a list, or a dict by output name) wins over ``class_weight``
(``{class: weight}``, or a dict of those by output name), whose class of a sample is
the arg max of a one-hot target, else its (rounded) label.

Sits in ``compat``; imports numpy only.

>>> import numpy as np
>>> class_weights([np.array([[0.0], [1.0], [1.0]])], {0: 1.0, 1: 3.0}, ["out"])[0].tolist()
[1.0, 3.0, 3.0]
"""
from __future__ import annotations

import numpy as np

__all__ = ["with_weights", "class_weights"]


def with_weights(compiled, ys, sample_weight=None, class_weight=None, what="fit"):
    """``ys`` followed by one weight array per output (what ``_run`` feeds to the
    ``<output>_sample_weights`` placeholders)."""
    names = [t.name.split(":")[0][:-len("_target")] for t in compiled.targets]
    n = len(ys[0]) if ys else 0
    if sample_weight is not None:
        weights = _per_output(sample_weight, names, f"{what}(sample_weight)")
    elif class_weight is not None:
        weights = class_weights(ys, class_weight, names)
    else:
        weights = [None] * len(names)
    if getattr(compiled, "temporal", False):
        if class_weight is not None and sample_weight is None:
            raise ValueError(f"{what}(class_weight=...) with sample_weight_mode='temporal' "
                             "is not supported; give sample_weight per sample and step")
        return list(ys) + [_temporal(w, y, name, what) for name, w, y in zip(names, weights, ys)]
    out = []
    for name, w in zip(names, weights):
        w = np.ones(n, np.float32) if w is None else np.asarray(w, np.float32).reshape(-1)
        if len(w) != n:
            raise ValueError(f"{what}: {len(w)} sample weights for {n} samples of output "
                             f"{name!r}; give one weight per sample")
        out.append(w)
    return list(ys) + out


def _temporal(w, y, name, what):
    """The [samples, steps] weights of a ``sample_weight_mode="temporal"`` output (ones
    unless given)."""
    y = np.asarray(y)
    if w is None:
        return np.ones(y.shape[:2], np.float32)
    w = np.asarray(w, np.float32)
    if w.shape != y.shape[:2]:
        raise ValueError(f"{what}: sample weights of shape {w.shape} for output {name!r} "
                         f"whose targets have shape {y.shape}; with sample_weight_mode="
                         f"'temporal' give one weight per sample and step {y.shape[:2]}")
    return w


def _per_output(value, names, what):
    if isinstance(value, dict):
        return [value.get(n) for n in names]
    if isinstance(value, (list, tuple)) and len(names) > 1:
        if len(value) != len(names):
            raise ValueError(f"{what}: {len(value)} arrays for {len(names)} outputs")
        return list(value)
    return [value] * len(names)


def class_weights(ys, class_weight, names):
    """Per-sample weights from ``class_weight`` (classes without a weight weigh 1)."""
    tables = [class_weight.get(n) for n in names] if any(n in class_weight for n in names) \
        else [class_weight] * len(names)
    out = []
    for y, table in zip(ys, tables):
        if table is None:
            out.append(None)
            continue
        y = np.asarray(y)
        classes = np.argmax(y, axis=-1) if y.ndim > 1 and y.shape[-1] > 1 else \
            np.round(y.reshape(len(y), -1)[:, 0]).astype(np.int64)
        out.append(np.array([table.get(int(c), 1.0) for c in classes], np.float32))
    return out
