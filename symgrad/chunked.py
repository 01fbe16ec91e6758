"""``Evaluator.batched`` over dask arrays: lazy, chunk by chunk, on any dask scheduler.

Each chunk of the batch axes runs the evaluator's serial batch loop (with the checks
of ``batched``); an input's own axes (its shape) are one chunk.  The evaluator
travels to dask.distributed workers pickled: a worker rebuilds it from the module
text (from the disk cache if the worker shares it, else it compiles once per worker
process and reuses it).

Imports errors, graph (shape text) and values (``fits``): the evaluator is passed in.
"""
from __future__ import annotations

import functools
from typing import Any, Sequence

from .errors import ArgumentError, ShapeError
from .graph import shape_text
from .values import fits


def is_dask(value: Any) -> bool:
    """True for a dask collection with chunks (a dask array)."""
    return hasattr(value, "__dask_graph__") and hasattr(value, "chunks")


def _run_chunk(evaluator: Any, *blocks: Any) -> Any:
    out = evaluator._flat_batched(blocks)   # (the serial batch loop, with its checks)
    return out if len(out) > 1 else out[0]


def batched_dask(evaluator: Any, values: Sequence[Any], out: Any = None) -> tuple:
    """The flat outputs (non-None, in order) as dask arrays over the values' batch axes.
    ``out`` must be None: the results are lazy (``da.store`` writes them into arrays)."""
    if out is not None:
        raise ArgumentError("batched: out= takes no part with dask arrays (the results are "
                            "lazy dask arrays); write them with dask.array.store, or pass "
                            "numpy arrays")
    import dask.array as da
    arrays, ins = [], []
    for k, (value, (_, dtype, shape), name) in enumerate(zip(values, evaluator._inputs,
                                                            evaluator.input_names)):
        arr = da.asarray(value)
        if arr.dtype.kind not in "biuf":
            raise ArgumentError(f"batched: input {k} ({name!r}) must be real numbers, got "
                                f"dtype {arr.dtype}")
        arr = arr.astype(dtype)
        core = arr.ndim - len(shape)
        if core < 0 or not fits(arr.shape[core:], shape):
            raise ShapeError(f"batched: input {k} ({name!r}) must end in shape "
                             f"{shape_text(shape)} after its batch axes (None: any size), "
                             f"got {arr.shape}")
        if shape:
            arr = arr.rechunk({axis: -1 for axis in range(core, arr.ndim)})
        arrays.append(arr)
        ins.append("(" + ",".join(f"i{k}_{j}" for j in range(len(shape))) + ")")
    # sizes known only at call time: from the arrays' core axes (checked as batched does)
    _, outputs = evaluator._core([a.shape[a.ndim - len(s):] for a, (_, _, s) in
                                  zip(arrays, evaluator._inputs)])
    outs: list[str] = []
    sizes: dict[str, int] = {}
    for m, (_, shape, _) in enumerate(outputs):
        dims = [f"o{m}_{j}" for j in range(len(shape))]
        sizes.update(zip(dims, shape))
        outs.append("(" + ",".join(dims) + ")")
    result = da.apply_gufunc(
        functools.partial(_run_chunk, evaluator), ",".join(ins) + "->" + ",".join(outs),
        *arrays, output_dtypes=[d for d, _, _ in evaluator._outputs], output_sizes=sizes,
        vectorize=False, allow_rechunk=True)   # core axes are single chunks (above)
    return result if isinstance(result, tuple) else (result,)
