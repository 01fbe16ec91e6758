"""Several points per kernel call, side by side: the batch loop's kernel.

A kernel's reverse sweep is mostly one long chain of dependent instructions (each
step waits for the one before: a ``sincos``, a product, a sum); the core then idles
while it waits.  Evaluating ``LANES`` points in one call, every statement emitted
once per point at the same place in the same loops, gives it independent work to
overlap: the same instructions per point, so the same results bit for bit.
(Measured on a hand-written sine chain of 50 steps: 2 points in lockstep, 1.43x the
points per second of one at a time.)

The batch loop (``lower.module``) calls ``_lanes`` on pairs of points and the
ordinary kernel on the last odd one.  Only for straight-line kernels of moderate
size without call-time sizes (``eligible``); others keep one point a call.

Imports numba, llvmlite and ``lower.llvm``.

>>> from symgrad.lower.ir import Program
>>> eligible(Program())
True
"""
from __future__ import annotations

from llvmlite import ir
from numba.core import types
from numba.core.typing import signature

from . import alias
from .llvm import SPLIT_ABOVE, SPLIT_LOOPS, _Emitter, _is_loop, kernel_return_type, \
    program_size
from .llvm_scalar import F64

LANES = 2
LOOPS_PER = 10            # statements per loop statement, at least
SIZE_MAX = SPLIT_ABOVE    # scalar instructions, at most: the kernel is one function


def eligible(program):
    """Whether ``program`` gets a kernel of ``LANES`` points: straight-line code (at most
    one statement in ``LOOPS_PER`` a loop: loops already give the core independent
    iterations; measured, lanes gained nothing on LJ-8 or the MLP), no call-time sizes,
    and at most ``SIZE_MAX`` scalar instructions: kernels that large are still one
    function (``lower.llvm``), and ``emit_lanes`` emits one function.  The batch loop,
    compiled on the first ``batched`` call, then holds the kernel three times (two
    points and the odd one): a 200-step chain's loop builds in 1.0 s instead of 0.4 s
    (CPU), for 1.21x its points per second (1.43x with every sine and cosine paired,
    ``peephole.trig_pairs``)."""
    loops = sum(map(_is_loop, program.stmts))
    return not program.sizes and loops * LOOPS_PER <= len(program.stmts) and \
        loops <= SPLIT_LOOPS and program_size(program.stmts) <= SIZE_MAX


def lanes_signature(program, argtypes):
    """The typing of ``_lanes``: each point's inputs and array outputs in turn, as the
    kernel takes them (C-contiguous arrays); returns every point's 0-d outputs."""
    per = len(program.inputs) + len(program.array_outputs)
    if len(argtypes) != LANES * per:
        raise TypeError(f"kernel of {LANES} points expects {LANES * per} arguments, "
                        f"got {len(argtypes)}")
    if any(isinstance(t, types.Array) and t.layout != "C" for t in argtypes):
        raise TypeError("kernel of several points takes C-contiguous arrays only")
    slots = kernel_return_type(program).count
    return signature(types.UniTuple(types.float64, LANES * slots), *argtypes)


def emit_lanes(program, context, builder, sig, args, fastmath=False):
    """Emit ``program`` for ``LANES`` points; the LLVM value of the result tuple."""
    e = _Emitter(program, context, builder, fastmath)
    e.read_sizes(sig, args)
    nin, per = len(program.inputs), len(args) // LANES
    consts = {("const", k): e.global_array(k) for k in range(len(program.consts))}
    used = {st.dst for st in program.stmts} | {r for st in program.stmts for r, _ in st.srcs}
    states = []
    for lane in range(LANES):
        tys, vals = sig.args[lane * per:(lane + 1) * per], args[lane * per:(lane + 1) * per]
        e.mem, e.scalars = dict(consts), {}
        for k, ((_, dtype, shape), ty, val) in enumerate(zip(program.inputs, tys, vals)):
            if shape:
                e.mem[("in", k)] = e.array_in(ty, val, shape, dtype)
            else:
                e.scalars[("in", k)] = e.scalar_in(ty, val, dtype)
        for k, ty, val in zip(program.array_outputs, tys[nin:], vals[nin:]):
            e.mem[("out", k)] = e.array_out(ty, val, program.outputs[k][1])
        e.temporaries([k for k in range(len(program.buffers)) if ("buf", k) in used])
        alias.mark(builder.module, e.mem)   # (each point's arrays: their own scopes)
        states.append((e.mem, e.scalars))
    e.lane_state = states
    e.statements(program.stmts)
    for ptr in e.heap:
        context.nrt.free(builder, builder.bitcast(ptr, ir.IntType(8).as_pointer()))
    values = []
    for mem, scalars in states:
        got = [scalars[ref] for _, shape, ref in program.outputs if not shape]
        values += got or [ir.Constant(F64, 0.0)]
    return context.make_tuple(builder, sig.return_type, values)
