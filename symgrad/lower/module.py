"""The text of a generated module: kernel intrinsic, ``jit`` wrapper, gufunc cores.

Numba caches machine code only for functions whose source is a real file, so
each compiled graph becomes one small module (written by ``lower.cache``).  Its
size grows with the Program (ops), and the module is identical for identical
graphs, so its hash is the cache key.

``jit(a0, a1, ...)`` checks shapes, allocates the array outputs and calls the
kernel; it returns a tuple with one entry per output (0-d as float/int/bool),
which boxes into the outputs' structure (``TREE``, see ``lower.boxing``).
``_gu_core``/``_gu_core_parallel`` write every output into gufunc output arrays.

Imports numpy and the graph's Dim (the IR only when writing a module: evaluators
loaded in a new process use ``extra_dims`` without SymPy).

>>> from symgrad.lower.ir import Program
>>> "def jit()" in module_text(Program(), "1", fastmath=False)
True
"""
from __future__ import annotations

import numpy as np

from ..graph import Dim

_HEADER = '''"""symgrad generated module ({n_in} inputs, {n_out} outputs).

Written by symgrad.lower.cache, which imports it only if it is exactly the text
symgrad lowered (otherwise it is written again first).
"""
import numpy as np
from numba import njit
from numba.extending import intrinsic

from symgrad.lower import runtime as _rt

FASTMATH = {fastmath}
INPUTS = _rt.sized({inputs!r}, {names!r})
OUTPUTS = _rt.sized({outputs!r}, {names!r})
CHECKS = _rt.sized({checks!r}, {names!r})
PROGRAM = _rt.LazyProgram({text!r})
TREE = {tree!r}
TABLES = _rt.decode_tables({tables!r}, np.frombuffer)


@intrinsic
def _kernel(typingctx{kernel_params}):
    return _rt.kernel_typing(PROGRAM, ({kernel_args}), FASTMATH)


@intrinsic
def _final(typingctx, outputs):
    return _rt.final_typing(TREE, outputs, TABLES)
'''


def module_text(program, text, fastmath, tree=None, tables=None):
    """The source of the module for ``program`` (``text`` is its literal form).

    ``tree``: the structure ``jit`` returns its outputs in when called from Python
    (``lower.boxing``); None: a tuple.  ``tables``: the index arrays of its sparse
    results (``lower.structure.machine_tree``).
    """
    from .structure import encode_tables
    from .ir import encode_sizes  # the IR (SymPy) only when writing a module
    ins = [f"a{k}" for k in range(len(program.inputs))]
    outs = [f"r{k}" for k in program.array_outputs]
    kargs = ins + outs
    head = _HEADER.format(
        n_in=len(ins), n_out=len(program.outputs), fastmath=bool(fastmath),
        inputs=encode_sizes([tuple(i) for i in program.inputs]),
        outputs=encode_sizes([(d, tuple(s), None) for d, s, _ in program.outputs]), text=text,
        checks=encode_sizes([tuple(c) for c in program.checks]),
        names=[n for n, _, _ in program.sizes], tree=tree, tables=encode_tables(tables or {}),
        kernel_params="".join(", " + a for a in kargs),
        kernel_args="".join(a + ", " for a in kargs))
    return "\n".join([head, _jit_text(program, ins, kargs), _gufunc_text(program, ins, kargs),
                      _loop_text(program, ins)])


def _jit_text(program, ins, kargs):
    # no_cfunc_wrapper: nothing calls ``jit`` through a C function pointer (Python
    # calls take the CPython wrapper, @njit callers the native function); the wrapper
    # Numba builds by default was ~0.03 s of a small build (issue 12, helper ``opt``).
    lines = ["", "@njit(_rt.jit_signature(INPUTS), cache=True, fastmath=FASTMATH, "
             "no_cfunc_wrapper=True)",
             f"def jit({', '.join(ins)}):"]
    lines += _read_sizes(program, ins)
    for k, (name, _, shape) in enumerate(program.inputs):
        if shape:
            lines += [f"    if {ins[k]}.shape != {size_text(shape)}:",
                      f"        raise _rt.InputShapeError({k}, {name!r}, "
                      f"{str(tuple(shape))!r}, {ins[k]}.shape)"]
    lines += _size_checks(program)
    for k in program.array_outputs:
        dtype, shape, _ = program.outputs[k]
        lines.append(f"    r{k} = _rt.empty({size_text(shape)}, np.{np.dtype(dtype).name})")
    lines.append(f"    s = _kernel({', '.join(kargs)})")
    results, slot = [], 0
    for k, (dtype, shape, _) in enumerate(program.outputs):
        if shape:
            results.append(f"r{k}")
        else:
            results.append(_scalar_result(dtype, f"s[{slot}]"))
            slot += 1
    lines.append(f"    return _final(({''.join(r + ', ' for r in results)}))")
    return "\n".join(lines)


def _read_sizes(program, ins):
    """Lines reading the sizes known at call time from the inputs' shapes."""
    return [f"    {name} = {ins[k]}.shape[{axis}]" for name, k, axis in program.sizes]


def _size_checks(program):
    """Lines raising where sizes the graph needs equal differ (``lower.sized``)."""
    lines = []
    for a, b, message in program.checks:
        lines += [f"    if {size_text(a)} != {size_text(b)}:",
                  f"        raise _rt.SizesDisagree({message!r}, {_named(a)}, {_named(b)})"]
    for d in _maybe_negative(program):
        lines += [f"    if {size_text(d)} < 0:",
                  f"        raise _rt.SizesDisagree({_NEGATIVE!r}, {_named(d)})"]
    return lines


_NEGATIVE = ("a size of the graph is negative: an input is too small for an operation (a "
             "window wider than its input with VALID padding, or a slice past its end)")


def _maybe_negative(program):
    """The sizes of outputs, buffers and loops that some inputs' sizes make negative
    (``n - 2`` after a VALID window of 3): allocating or looping over them would fail
    obscurely, so the entry refuses them first."""
    found = {}
    sizes = [d for _, shape, _ in program.outputs for d in shape] + list(program.buffers)
    sizes += [d for st in program.stmts for d in st.dims]
    for d in sizes:
        if isinstance(d, Dim) and d.expr.is_nonnegative is not True:
            found.setdefault(d.text, d)
    return list(found.values())


def _named(size):
    """The text of a size's name and of its value (for an error message)."""
    return f"{size.text if isinstance(size, Dim) else ''!r}, {size_text(size)}"


def size_text(v):
    """Python text of a size or shape (unknown sizes as expressions of the size names)."""
    if isinstance(v, tuple):
        return "(" + "".join(size_text(d) + ", " for d in v) + ")"
    return f"({v.expr})" if isinstance(v, Dim) else repr(int(v))


def _scalar_result(dtype, text):
    kind = np.dtype(dtype).kind
    return f"int({text})" if kind in "iu" else f"({text} != 0.0)" if kind == "b" else text


def extra_dims(inputs, outputs):
    """Output core sizes no input has: each needs a dummy gufunc input naming it."""
    have = {d for _, _, s in inputs for d in s}
    return sorted({d for _, s, _ in outputs for d in s} - have,
                  key=lambda d: (1, d.text) if isinstance(d, Dim) else (0, d))


def _gufunc_text(program, ins, kargs):
    extra = extra_dims(program.inputs, program.outputs)
    params = ins + [f"d{n}" for n in range(len(extra))] + \
        [f"o{k}" for k in range(len(program.outputs))]
    call = ", ".join(ins + [f"o{k}" for k in program.array_outputs])
    # (numpy's gufunc checks that axes of one name agree, not sizes the graph relates)
    checks = _size_checks(program)
    body = (_read_sizes(program, ins) if checks else []) + checks + [f"    s = _kernel({call})"]
    slot = 0
    for k, (dtype, shape, _) in enumerate(program.outputs):
        if not shape:
            body.append(f"    o{k}[0] = {_scalar_result(dtype, f's[{slot}]')}")
            slot += 1
    text = []
    for suffix, parallel in (("", False), ("_parallel", True)):
        text += ["", "", f"def _gu_core{suffix}({', '.join(params)}):"] + body + [
            "", "", f"def gufunc{suffix}():",
            f"    return _rt.build_gufunc(_gu_core{suffix}, INPUTS, OUTPUTS, {parallel})"]
    return "\n".join(text) + "\n"


def _loop_text(program, ins):
    """``_loop(work, m0, a0, ..., o0, ...)``: the points of a flat batch, chunk by chunk.

    ``work`` is ``[next, stop, size, done]`` (int64): the loop claims chunks of
    ``size`` points (``_rt.claim``, atomic) until ``next`` reaches ``stop``, and counts
    the points it did in ``done``; threads running it on the same ``work`` share the
    batch without the GIL (one call per thread, ``lower.batches``), and one call with
    ``size`` = ``stop - next`` is a serial run.  Input ``k`` has the batch axis in
    front (0-d inputs: a 1-d array of the kernel's scalar type); ``m_k`` is 1, or 0
    for an input shared by every point.  Outputs have the batch axis in front,
    C-contiguous, so every row the kernel sees is C-contiguous and used in place.
    Built with ``nogil`` (``batch_loop``).  Kernels that can (``lower.lanes``) take
    the points in pairs, side by side (``_lanes``); small ones that go through index
    tables are emitted with every loop unrolled (``_whole``, ``peephole.unrolled_whole``).

    With static shapes, ``_batch(a0, ...)`` too (:func:`_batch_text`).
    """
    pairs = [f"m{k}, {a}" for k, a in enumerate(ins)]
    outs = [f"o{k}" for k in range(len(program.outputs))]
    helpers, body = _points_text(program, ins)
    lines = helpers + ["", "", f"def _loop({', '.join(['work'] + pairs + outs)}):",
                       "    while True:", "        lo = _rt.claim(work)",
                       "        hi = min(lo + work[2], work[1])", "        if lo >= hi:",
                       "            return"]
    lines += ["        " + line for line in body + ["_rt.finished(work, hi - lo)"]]
    lines += ["", "", "def batch_loop():", "    return _rt.build_loop(_loop)"]
    if _static(program):
        lines += _batch_text(program, ins, body)
    return "\n".join(lines) + "\n"


def _static(program):
    """Whether every input's and output's shape is known (and there are inputs)."""
    sizes = [d for _, _, s in program.inputs for d in s]
    sizes += [d for _, s, _ in program.outputs for d in s]
    return bool(program.inputs) and all(isinstance(d, (int, np.integer)) for d in sizes)


def _batch_text(program, ins, body):
    """``_batch(a0, ...)``: ``f.batched``'s common call in one piece of machine code.

    Every input has one batch axis in front of its (static) shape, the same number of
    points ``n`` each; ``_batch`` makes the outputs (``n`` points each), runs the
    points serially and returns the outputs, so a small batch costs one Numba call.
    It takes the arrays of its one signature (``_rt.batch_signature``); shapes it does
    not take raise ``_rt.NotBatched``, and the caller then takes the general path
    (``lower.lean_batch``).  Built on first use (``batch_entry``).  With it,
    ``_batch_into`` (:func:`_batch_into_text`).
    """
    lines = ["", "", f"def _batch({', '.join(ins)}):", f"    n = {ins[0]}.shape[0]"]
    checks = []   # (the inputs' shapes: the same lines in _batch_into)
    for k, (_, _, shape) in enumerate(program.inputs):
        tests = [f"{ins[k]}.shape[0] != n"] if k else []
        tests += [f"{ins[k]}.shape[{axis + 1}] != {int(d)}" for axis, d in enumerate(shape)]
        if tests:
            checks += [f"    if {' or '.join(tests)}:", "        raise _rt.NotBatched()"]
    lines += checks
    lines += [f"    m{k} = 1" for k in range(len(ins))]
    for k, (dtype, shape, _) in enumerate(program.outputs):
        dims = "".join(f", {int(d)}" for d in shape)
        lines.append(f"    o{k} = _rt.empty((n{dims},), np.{np.dtype(dtype).name})")
    lines += ["    lo = 0", "    hi = n"] + ["    " + line for line in body]
    lines += [f"    return ({''.join(f'o{k}, ' for k in range(len(program.outputs)))})"]
    lines += ["", "", "def batch_entry():", "    return _rt.build_batch(_batch, INPUTS)"]
    return lines + _batch_into_text(program, ins, body, checks)


def _batch_into_text(program, ins, body, checks):
    """``_batch_into(a0, ..., r0, ...)``: ``_batch`` writing into the caller's arrays
    (``f.batched(X, out=...)``): their shapes are checked as the inputs' are, and an
    output whose memory overlaps an input's or another output's raises
    ``_rt.NotBatched`` too (the general path then says what is wrong)."""
    outs = [f"r{k}" for k in range(len(program.outputs))]
    lines = ["", "", f"def _batch_into({', '.join(ins + outs)}):", f"    n = {ins[0]}.shape[0]"]
    lines += checks
    for k, (_, shape, _) in enumerate(program.outputs):
        tests = [f"r{k}.shape[0] != n"]
        tests += [f"r{k}.shape[{axis + 1}] != {int(d)}" for axis, d in enumerate(shape)]
        tests += [f"_rt.overlap(r{k}, {other})" for other in ins + outs[:k]]
        lines += [f"    if {' or '.join(tests)}:", "        raise _rt.NotBatched()"]
    lines += [f"    m{k} = 1" for k in range(len(ins))]
    lines += [f"    o{k} = r{k}" for k in range(len(program.outputs))]
    lines += ["    lo = 0", "    hi = n"] + ["    " + line for line in body]
    lines += ["    return n   # (the points run; refusals raise)"]
    lines += ["", "", "def batch_into_entry():",
              "    return _rt.build_batch_into(_batch_into, INPUTS, OUTPUTS)"]
    return lines


def _points_text(program, ins):
    """The intrinsics the batch loops use, and the lines running points ``lo:hi``
    (``s`` holds each point's 0-d outputs, stored into the ``o`` arrays)."""
    from .lanes import LANES, eligible   # (when writing a module: Numba is there)
    from .peephole import unrolled_whole
    helpers, body = [], []
    if eligible(program):
        params = [f"b{n}" for n in range(LANES * (len(ins) + len(program.array_outputs)))]
        helpers += ["", "", "@intrinsic", f"def _lanes(typingctx, {', '.join(params)}):",
                    f"    return _rt.kernel_typing(PROGRAM, ({''.join(p + ', ' for p in params)}),"
                    " FASTMATH, lanes=True)"]
        calls = ", ".join(", ".join(_row_args(program, ins, f"i + {n}")) for n in range(LANES))
        body += ["i = lo", f"while i + {LANES} <= hi:", f"    s = _lanes({calls})"]
        body += _stores(program, "i", "    ", LANES)
        body += [f"    i += {LANES}", "for j in range(i, hi):"]
    else:
        body += ["for j in range(lo, hi):"]
    kernel = "_kernel"
    if unrolled_whole(program):
        kargs = [f"b{n}" for n in range(len(ins) + len(program.array_outputs))]
        helpers += ["", "", "@intrinsic", f"def _whole(typingctx, {', '.join(kargs)}):",
                    f"    return _rt.kernel_typing(PROGRAM, ({''.join(a + ', ' for a in kargs)}),"
                    " FASTMATH, whole=True)"]
        kernel = "_whole"
    body += [f"    s = {kernel}({', '.join(_row_args(program, ins, 'j'))})"]
    body += _stores(program, "j", "    ", 1)
    return helpers, body


def _row_args(program, ins, i):
    """The kernel's arguments for point ``i`` of the batch loop."""
    return [(f"_rt.row({a}, ({i}) * m{k})" if program.inputs[k][2] else f"{a}[({i}) * m{k}]")
            for k, a in enumerate(ins)] + [f"_rt.row(o{k}, {i})" for k in program.array_outputs]


def _stores(program, i, indent, lanes):
    """Lines storing the 0-d outputs of ``lanes`` points from ``s`` (point ``i`` on)."""
    scalars = [(k, dtype) for k, (dtype, shape, _) in enumerate(program.outputs) if not shape]
    slots = max(1, len(scalars))
    return [f"{indent}o{k}[{i} + {n}] = {_scalar_result(dtype, f's[{n * slots + slot}]')}"
            for n in range(lanes) for slot, (k, dtype) in enumerate(scalars)]
