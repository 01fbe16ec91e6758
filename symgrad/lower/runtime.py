"""What generated modules call at import and compile time.

A generated module (see ``lower.module``) holds its Program as text and asks this
module for the intrinsic's typing and codegen, the ``@njit`` signatures and the
gufunc builders.  The Program text is parsed only when Numba actually compiles:
a module whose machine code comes from Numba's cache never parses it.

Imports numpy, numba, the graph's Dim and ``lower.llvm_hints``; ``lower.llvm`` and
the IR (SymPy) only when Numba compiles: a module whose machine code is in Numba's
cache imports neither (its unknown sizes stay text, ``Dim.parsed``).

>>> jit_signature([("x", "<f8", (2,)), ("t", "<f8", ())])
(Array(float64, 1, 'C', False, aligned=True), float64)
"""
from __future__ import annotations

import ast
import functools

import numpy as np
from llvmlite import ir
from numba import guvectorize, types
from numba.core import cgutils
from numba.extending import intrinsic
from numba.np import numpy_support
from numba.np.arrayobj import populate_array

from .arguments import SizesDisagree  # noqa: F401  (generated modules use it)
from .boxing import InputShapeError, final_typing  # noqa: F401
from ..graph import Dim
from . import llvm_hints
from .module import extra_dims
from .structure import decode_tables  # noqa: F401  (generated modules use it)


def sized(value, names):
    """INPUTS/OUTPUTS of a generated module, with unknown sizes as Dims again (kept as
    text: no SymPy, see ``Dim.parsed``)."""
    if isinstance(value, tuple) and len(value) == 2 and value[0] == "size" and \
            isinstance(value[1], str):
        return Dim.parsed(value[1], names)
    if isinstance(value, (tuple, list)):
        return type(value)(sized(v, names) for v in value)
    return value


# Programs handed over by the compiler in this process, by text: no need to parse them.
HANDOFF: dict = {}


class LazyProgram:
    """The Program of a generated module, parsed on first use (if not handed over)."""

    def __init__(self, text):
        self.text = text
        self._program = None

    @property
    def program(self):
        if self._program is None:
            program = HANDOFF.pop(self.text, None)
            if program is None:
                from .ir import Program
                program = Program.from_literal(ast.literal_eval(self.text))
            self._program = program
        return self._program


def kernel_typing(lazy, argtypes, fastmath, lanes=False, whole=False):
    """``(signature, codegen)`` for the kernel intrinsic of a generated module (with
    ``lanes``: the one evaluating several points at once, ``lower.lanes``; ``whole``:
    the batch loop's, every loop unrolled, ``peephole.unrolled_whole``)."""
    if lanes:
        from .lanes import emit_lanes as emit, lanes_signature as typing
    else:
        from .llvm import emit_kernel, kernel_signature as typing
        emit = functools.partial(emit_kernel, whole=whole)
    program = lazy.program
    sig = typing(program, argtypes)

    def codegen(context, builder, signature, args):
        llvm_hints.optimise_once(context)
        return emit(program, context, builder, signature, args, fastmath)
    return sig, codegen


def scalar_type(dtype):
    """The Numba type of a 0-d argument: float64 for floats (rounded inside), int64, bool."""
    kind = np.dtype(dtype).kind
    return types.float64 if kind == "f" else types.boolean if kind == "b" else types.int64


def array_type(dtype, ndim, layout="C"):
    return types.Array(numpy_support.from_dtype(np.dtype(dtype)), ndim, layout)


def jit_signature(inputs):
    """Argument types of ``jit``: C-contiguous arrays of the inputs' dtypes, scalars for 0-d."""
    return tuple(array_type(d, len(s)) if s else scalar_type(d) for _, d, s in inputs)


def gufunc_layout(inputs, outputs):
    """The gufunc's types, layout string and the sizes of its dummy dimension inputs.

    Core dimensions are named by size (``n3``); an output size no input has comes
    from a dummy 1-d input (numba needs every output dimension among the inputs).
    """
    extra = extra_dims(inputs, outputs)
    argtypes, parts = [], []
    for _, dtype, shape in inputs:
        argtypes.append(array_type(dtype, len(shape), "A") if shape else scalar_type(dtype))
        parts.append("(" + ",".join(name(d) for d in shape) + ")")
    for d in extra:
        argtypes.append(types.float64[:])
        parts.append(f"({name(d)})")
    outs = []
    for dtype, shape, _ in outputs:
        argtypes.append(array_type(dtype, max(1, len(shape)), "A"))
        outs.append("(" + ",".join(name(d) for d in shape) + ")")
    layout = ",".join(parts) + "->" + ",".join(outs)
    return types.void(*argtypes), layout, extra


def core_dim_name(d):
    """A gufunc core dimension's name: ``n3`` for a size, the symbol (``n_X``) or a
    name derived from the expression for sizes known at call time."""
    if not isinstance(d, Dim):
        return f"n{d}"
    if d.symbol is not None:
        return str(d.symbol)
    return "e" + "".join(c if c.isalnum() else "_" for c in d.text)


name = core_dim_name


def build_gufunc(core, inputs, outputs, parallel, cache=True):
    """Compile ``core`` as a numpy gufunc (target ``parallel`` runs the batch on threads).

    ``cache=False`` when the module's directory is gone: Numba then has nowhere to
    keep the machine code (and no locator to ask).
    """
    sig, layout, _ = gufunc_layout(inputs, outputs)
    return guvectorize([sig], layout, target="parallel" if parallel else "cpu",
                       cache=cache)(core)


def build_loop(loop, cache=True):
    """Compile a module's ``_loop`` (the batch loop of ``f.batched``), releasing the GIL
    so that threads can run it side by side."""
    from numba import njit
    return njit(nogil=True, cache=cache)(loop)


def _work_slot(context, builder, work, k):
    """A pointer to ``work[k]`` of the batch loop's work array (int64, C-contiguous)."""
    ary = context.make_array(types.Array(types.int64, 1, "C"))(context, builder, work)
    return builder.gep(ary.data, [ir.Constant(ir.IntType(64), k)])


def _check_work(work):
    if work != types.Array(types.int64, 1, "C"):
        raise TypeError(f"the batch loop's work array is a C-contiguous int64 array, got {work}")


@intrinsic
def claim(typingctx, work):
    """The first point of the next chunk of a batch loop's ``work`` (``[next, stop,
    size, done]``): ``work[0]``, advanced by ``work[2]`` atomically, so that threads
    running the loop on the same batch each take chunks no other thread takes."""
    _check_work(work)

    def codegen(context, builder, signature, args):
        size = builder.load(_work_slot(context, builder, args[0], 2))
        return builder.atomic_rmw("add", _work_slot(context, builder, args[0], 0), size,
                                  "seq_cst")
    return types.int64(work), codegen


@intrinsic
def finished(typingctx, work, points):
    """Count ``points`` more as done in ``work[3]`` (atomically; the caller waits for it)."""
    _check_work(work)

    def codegen(context, builder, signature, args):
        builder.atomic_rmw("add", _work_slot(context, builder, args[0], 3), args[1], "seq_cst")
        return context.get_dummy_value()
    return types.none(work, types.int64), codegen


@intrinsic
def empty(typingctx, shape, dtype):
    """``np.empty(shape, dtype)`` (C order) for a generated entry, emitted in place.

    Numba's own ``np.empty`` is an overload compiled as a function of its own (with
    its allocator's), once per process and number of dimensions: ~0.1 s CPU in the
    first compile of a process, which the entry of every evaluator paid.
    """
    arrtype = types.Array(dtype.dtype if isinstance(dtype, types.NumberClass) else dtype,
                          len(shape), "C")

    def codegen(context, builder, signature, args):
        intp = context.get_value_type(types.intp)
        shapes = [context.cast(builder, builder.extract_value(args[0], k), ty, types.intp)
                  for k, ty in enumerate(shape)]
        itemsize = context.get_abi_sizeof(context.get_data_type(arrtype.dtype))
        strides, nbytes, overflow = [], ir.Constant(intp, itemsize), cgutils.false_bit
        for size in reversed(shapes):   # C order: the last axis is contiguous
            strides.insert(0, nbytes)
            product = builder.smul_with_overflow(nbytes, size)
            nbytes = builder.extract_value(product, 0)
            overflow = builder.or_(overflow, builder.extract_value(product, 1))
        with builder.if_then(overflow, likely=False):
            context.call_conv.return_user_exc(builder, ValueError, (
                "array is too big; `arr.size * arr.dtype.itemsize` is larger than the "
                "maximum possible size.",))
        meminfo = context.nrt.meminfo_alloc_aligned(
            builder, nbytes, context.get_preferred_array_alignment(arrtype.dtype))
        data = context.nrt.meminfo_data(builder, meminfo)
        ary = context.make_array(arrtype)(context, builder)
        populate_array(ary, data=builder.bitcast(data, ary.data.type),
                       shape=cgutils.pack_array(builder, shapes, ty=intp),
                       strides=cgutils.pack_array(builder, strides, ty=intp),
                       itemsize=ir.Constant(intp, itemsize), meminfo=meminfo)
        return ary._getvalue()
    return arrtype(shape, dtype), codegen


@intrinsic
def row(typingctx, array, index):
    """``array[index]`` of a C-contiguous array, as a borrowed view: no reference to the
    array's memory is taken (the batch loop owns the arrays while the kernel runs), so
    a view per point costs a few instructions, not two atomic reference counts."""
    view = types.Array(array.dtype, array.ndim - 1, "C")

    def codegen(context, builder, signature, args):
        parent = context.make_array(array)(context, builder, args[0])
        shape = cgutils.unpack_tuple(builder, parent.shape)
        strides = cgutils.unpack_tuple(builder, parent.strides)
        offset = builder.mul(args[1], strides[0])
        start = builder.gep(builder.bitcast(parent.data, ir.IntType(8).as_pointer()), [offset])
        out = context.make_array(view)(context, builder)
        populate_array(out, data=builder.bitcast(start, parent.data.type), shape=shape[1:],
                       strides=strides[1:], itemsize=parent.itemsize, meminfo=None)
        return out._getvalue()
    return view(array, types.intp), codegen


@intrinsic
def flat(typingctx, array):
    """The entries of a C-contiguous ``array`` as a 1-d view (``np.ravel`` without a
    copy), emitted in place: drivers of control flow copy and accumulate through it,
    where Numba's ``ravel``/``reshape`` overloads cost ~0.3 s of compiling per process."""
    if not isinstance(array, types.Array) or array.layout != "C":
        return None   # (a strided array has no flat view: Numba reports no match)
    view = types.Array(array.dtype, 1, "C")

    def codegen(context, builder, signature, args):
        parent = context.make_array(array)(context, builder, args[0])
        out = context.make_array(view)(context, builder)
        populate_array(out, data=parent.data, shape=cgutils.pack_array(builder, [parent.nitems]),
                       strides=cgutils.pack_array(builder, [parent.itemsize]),
                       itemsize=parent.itemsize, meminfo=parent.meminfo)
        context.nrt.incref(builder, array, args[0])   # the view shares the array's memory
        return out._getvalue()
    return view(array), codegen


@intrinsic
def shaped(typingctx, array, shape):
    """A 1-d C-contiguous ``array`` viewed with the C-order ``shape`` (a tuple of ints
    whose product is its length), emitted in place."""
    if not isinstance(array, types.Array) or array.layout != "C" or array.ndim != 1:
        return None
    view = types.Array(array.dtype, len(shape), "C")

    def codegen(context, builder, signature, args):
        intp = context.get_value_type(types.intp)
        parent = context.make_array(array)(context, builder, args[0])
        sizes = [context.cast(builder, builder.extract_value(args[1], k), ty, types.intp)
                 for k, ty in enumerate(shape)]
        strides, step = [], parent.itemsize
        for size in reversed(sizes):
            strides.insert(0, step)
            step = builder.mul(step, size)
        out = context.make_array(view)(context, builder)
        populate_array(out, data=parent.data, shape=cgutils.pack_array(builder, sizes, ty=intp),
                       strides=cgutils.pack_array(builder, strides, ty=intp),
                       itemsize=parent.itemsize, meminfo=parent.meminfo)
        context.nrt.incref(builder, array, args[0])
        return out._getvalue()
    return view(array, shape), codegen


class NotBatched(Exception):
    """Raised by a module's ``_batch`` for arguments it does not take (shapes): the
    caller evaluates them by the general path (``lower.lean_batch``)."""


def batch_signature(inputs):
    """Argument types of ``_batch``: C-contiguous arrays with one batch axis in front
    of each input's shape (0-d inputs: 1-d arrays of the kernel's scalar type)."""
    return tuple(array_type(d, len(s) + 1) if s else types.Array(scalar_type(d), 1, "C")
                 for _, d, s in inputs)


def build_batch(batch, inputs, cache=True):
    """Compile a module's ``_batch`` (``f.batched``'s common call) for its one signature."""
    from numba import njit
    return njit(batch_signature(inputs), nogil=True, cache=cache)(batch)


def build_batch_into(batch_into, inputs, outputs, cache=True):
    """Compile a module's ``_batch_into`` (``f.batched(X, out=...)``'s common call):
    ``_batch``'s inputs, then C-contiguous output arrays with the batch axis in front."""
    from numba import njit
    outs = tuple(array_type(d, len(s) + 1) for d, s, _ in outputs)
    return njit(batch_signature(inputs) + outs, nogil=True, cache=cache)(batch_into)


@intrinsic
def overlap(typingctx, a, b):
    """Whether the memory of arrays ``a`` and ``b`` overlaps (numpy's
    ``may_share_memory``: their byte ranges; an empty array overlaps nothing)."""
    sig = types.boolean(a, b)

    def codegen(context, builder, signature, args):
        ends = []
        for ty, value in zip(signature.args, args):
            arr = context.make_array(ty)(context, builder, value)
            start = builder.ptrtoint(arr.data, ir.IntType(64))
            size = builder.mul(arr.nitems, arr.itemsize)
            ends.append((start, builder.add(start, size), size))
        (a0, a1, an), (b0, b1, bn) = ends
        zero = context.get_constant(types.intp, 0)
        both = builder.and_(builder.icmp_signed(">", an, zero), builder.icmp_signed(">", bn, zero))
        cross = builder.and_(builder.icmp_unsigned("<", a0, b1), builder.icmp_unsigned("<", b0, a1))
        return builder.and_(both, cross)
    return sig, codegen
