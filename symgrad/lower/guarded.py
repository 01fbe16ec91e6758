"""Strong-zero guards on seed tables: the guarded value computed with the table's one
nonzero number in place of the table.

A compressed Hessian's tangents start from baked seed tables whose entries are 0 or
1 (a colour's unit seeds, their slices).  The tangent rules multiply them in under a
strong-zero guard -- ``strong g v``: 0 where g == 0, else v -- and g is often the
table itself (``x**2``'s tangent ``strong(t, 2*t*x)``).  Where every nonzero entry of
such a table is one number c, v is only ever used where the table holds c, so v may
be computed with the constant c in place of the table: ``2*t*x`` becomes ``2*1*x``,
which LLVM folds to ``2*x`` -- bit for bit the same where it is used (IEEE
arithmetic is exact on the constants substituted), and the table is then read only
for the guard's test (on Rosenbrock-1000's sparse Hessian, each such table had been
widened from bytes to doubles and multiplied in, per element and colour).

Imports nothing but ``lower.ir``'s Program (through its ``const_array``).

>>> from symgrad.lower.ir import Loop, Program
>>> import base64, numpy as np
>>> table = ("f8", (4,), base64.b64encode(np.array([0.0, 1, 0, 1]).tobytes()).decode())
>>> body = (("arg", 0), ("arg", 1), ("mul", 0, 1), ("strong", 0, 2))
>>> st = Loop((4,), 1, ("buf", 0), ("aff", 0, (1,)),
...           [(("const", 0), ("aff", 0, (1,))), (("in", 0), ("aff", 0, (1,)))], body)
>>> p = Program(consts=[table], stmts=[st])
>>> specialize(p)
1
>>> p.stmts[0].body
(('arg', 0), ('arg', 1), ('mul', 0, 1), ('const', '0x1.0000000000000p+0'), ('mul', 3, 1), ('strong', 0, 4))
"""
from __future__ import annotations

import numpy as np

from .ir import Loop


def specialize(program) -> int:
    """Rewrite the statements' guarded values (see the module doc); returns how many
    guards were specialised."""
    values: dict = {}
    count = 0
    for n, st in enumerate(program.stmts):
        single = {}
        for i, (ref, _) in enumerate(st.srcs):
            if ref[0] == "const":
                if ref[1] not in values:
                    values[ref[1]] = _single_nonzero(program, ref[1])
                if values[ref[1]] is not None:
                    single[i] = values[ref[1]]
        if not single or not any(ins[0] == "strong" and st.body[ins[1]][0] == "arg"
                                 and st.body[ins[1]][1] in single for ins in st.body):
            continue
        body, made = _rewritten(st.body, single)
        if made:
            count += made
            program.stmts[n] = Loop(st.dims, st.nout, st.dst, st.dst_addr, st.srcs, body,
                                    st.reduce, st.round32)
    return count


def _single_nonzero(program, k):
    """The one nonzero number of constant table k (a float), or None (none, several,
    not finite, or an index table)."""
    kind = program.consts[k][0]
    if kind != "f8":
        return None
    table = program.const_array(k)
    nonzero = np.unique(table[table != 0])
    if len(nonzero) != 1 or not np.isfinite(nonzero[0]):
        return None
    return float(nonzero[0])


def _rewritten(body, single):
    """The body with each guard on a table argument in ``single`` computing its value
    from a copy in which that argument is the constant; and how many guards."""
    reads = {a: _reading(body, a) for a in single}
    out: list = []
    where: list = []              # old instruction -> new index
    copies: dict = {a: {} for a in single}   # old instruction -> its copy, per arg
    made = 0
    for k, ins in enumerate(body):
        guard = body[ins[1]] if ins[0] == "strong" else None
        if guard is not None and guard[0] == "arg" and guard[1] in single and \
                reads[guard[1]][ins[2]]:
            arg = guard[1]
            _copy_cone(body, ins[2], arg, single[arg], reads[arg], copies[arg], where, out)
            made += 1
            out.append(("strong", where[ins[1]], copies[arg][ins[2]]))
        else:
            out.append(tuple(where[x] if j in _operands(ins) else x
                             for j, x in enumerate(ins)))
        where.append(len(out) - 1)
    return tuple(out), made


def _reading(body, arg):
    """Per instruction: whether it reads argument ``arg`` (directly or through others)."""
    flags = []
    for ins in body:
        flags.append(ins == ("arg", arg) or any(flags[ins[j]] for j in _operands(ins)))
    return flags


def _copy_cone(body, top, arg, value, reads, copies, where, out):
    """Append copies (with ``arg`` the constant ``value``) of the instructions below
    ``top`` that read it, in order; ``copies`` maps old indices to them."""
    cone, stack = set(), [top]
    while stack:
        k = stack.pop()
        if k in cone or k in copies or not reads[k]:
            continue
        cone.add(k)
        stack.extend(body[k][j] for j in _operands(body[k]))
    for k in sorted(cone):
        ins = body[k]
        if ins == ("arg", arg):
            out.append(("const", float.hex(value)))
        else:
            out.append(tuple((copies[x] if reads[x] else where[x]) if j in _operands(ins)
                             else x for j, x in enumerate(ins)))
        copies[k] = len(out) - 1


def _operands(ins):
    """The positions in ``ins`` that name earlier instructions (ints after the opcode;
    ``arg k`` and ``const hex`` name none)."""
    if ins[0] in ("arg", "const"):
        return ()
    return tuple(j for j in range(1, len(ins)) if isinstance(ins[j], int))
