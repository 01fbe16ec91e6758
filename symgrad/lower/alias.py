"""Alias scopes: the kernel tells LLVM that its arrays never overlap.

A kernel reads its inputs and writes its outputs and temporaries through pointers LLVM
knows nothing about, so after every store to an output it must assume an input may have
changed: values are loaded again (Rosenbrock-100's gradient loop re-read ``x[i]`` after
storing ``g[i]``), and loops are vectorised behind run-time overlap checks.  They never
overlap: outputs are allocated by the kernel's callers (``jit``'s ``_rt.empty``, the
batch loop's fresh arrays, numpy's gufunc machinery, which copies overlapping operands)
or are a caller's ``out=`` arrays, which ``lower.batch_args.checked_out`` refuses when
they share memory with an input or another output; temporaries are the kernel's own.
(Chunked kernels already pass these pointers to their functions as ``noalias``.)

So each array the kernel touches -- input, output, temporary buffer -- gets a scope of
its own (LLVM's ``alias.scope`` / ``noalias`` metadata), and every load and store is
marked with its array's scope and as not aliasing the others.  Two inputs may still be
one array (``f(x, x)``): both are only read, and reads never conflict.  The elements of
one array are not separated: a scatter-add reading and writing one output stays ordered.

``SYMGRAD_ALIAS_SCOPES=0`` leaves the metadata out (for measurements).

Imports llvmlite.
"""
from __future__ import annotations

import os

from llvmlite.ir import values

ENABLED = os.environ.get("SYMGRAD_ALIAS_SCOPES", "1") != "0"   # 0: none (measurements)
MAX_SCOPES = 64   # arrays with a scope of their own, at most (the lists grow as n^2)
_KINDS = ("in", "out", "buf")


def mark(module, mems):
    """Give the memory of ``mems`` (ref -> ``_Mem``, one per array) alias scopes:
    inputs, outputs and buffers (inputs and outputs alone when they are more than
    ``MAX_SCOPES``); constants are read-only and keep none."""
    refs = [r for r in mems if r[0] in _KINDS] if ENABLED else []
    if len(refs) > MAX_SCOPES:
        refs = [r for r in refs if r[0] != "buf"]
    if len(refs) < 2 or len(refs) > MAX_SCOPES:
        return
    domain = distinct(module, [values.MetaDataString(module, "symgrad.kernel")])
    scopes = [distinct(module, [domain]) for _ in refs]
    for k, ref in enumerate(refs):   # (lists of self-referring nodes: not hashable, so
        own = _node(module, [scopes[k]])   # not through add_metadata's cache)
        others = _node(module, scopes[:k] + scopes[k + 1:])
        mems[ref].scope = (own, others)


def tag(instruction, mem):
    """Mark a load or store through ``mem`` with its scopes (when it has them)."""
    if mem.scope is not None:
        instruction.set_metadata("alias.scope", mem.scope[0])
        instruction.set_metadata("noalias", mem.scope[1])


def distinct(module, operands):
    """A metadata node referring to itself first, then ``operands``: unique, as LLVM
    wants alias scopes and loop IDs (``lower.llvm_hints``)."""
    node = _node(module, [])
    node.operands = (node, *operands)
    return node


def _node(module, operands):
    """A new metadata node of ``operands`` (the constructor adds it to the module)."""
    return values.MDValue(module, operands, name=str(len(module.metadata)))
