"""A readable Python rendering of a Program (``f.source``).

The machine code is emitted as LLVM IR (``lower.llvm``); this is the same
Program as Python a person can read: one loop nest per statement, flat indices,
index tables by name, one line per scalar instruction.

Imports ``lower.scalar``.

>>> from symgrad.lower.ir import Program
>>> print(render_program(Program(), []))
def kernel():
    return ()
"""
from __future__ import annotations

from .scalar import render


def _ref_name(ref):
    kind, k = ref
    return {"in": "a", "out": "r", "buf": "t", "const": "C", "ssa": "s"}[kind] + str(k)


def _addr_text(addr, idx, dims):
    if addr[0] == "aff":
        terms = [str(addr[1])] if addr[1] or not any(addr[2]) else []
        terms += [f"{s}*{i}" if s != 1 else i for s, i in zip(addr[2], idx) if s]
        return " + ".join(terms)
    lead = addr[2] if len(addr) > 2 else ()   # ("tab", k, strides): affine + a table
    text = f"C{addr[1]}[{_flat(idx[len(lead):], dims[len(lead):])}]"
    return " + ".join([f"{s}*{i}" if s != 1 else i for s, i in zip(lead, idx) if s] + [text])


def _flat(idx, dims):
    terms, step = [], 1
    for i, d in reversed(list(zip(idx, dims))):
        if d > 1:
            terms.append(i if step == 1 else f"{step}*{i}")
        step *= d
    return " + ".join(reversed(terms)) or "0"


def _statement(st, lines):
    idx = [f"i{n}" for n in range(len(st.dims))]
    pad = "    "
    args = []
    for ref, addr in st.srcs:
        name = _ref_name(ref)
        args.append(name if addr is None else f"{name}[{_addr_text(addr, idx, st.dims)}]")
    dst = _ref_name(st.dst)
    target = dst if st.dst_addr is None else f"{dst}[{_addr_text(st.dst_addr, idx, st.dims)}]"
    nout = st.nout if st.reduce is not None else len(st.dims)
    for n, d in enumerate(st.dims[:nout]):
        lines.append(pad * (n + 1) + f"for {idx[n]} in range({d}):")
    depth = nout + 1
    body = render(st.body, args)
    if st.reduce is None:
        lines += [pad * depth + b for b in body]
        lines.append(pad * depth + f"{target} = v{len(st.body) - 1}")
        return
    combine, identity, init = st.reduce
    if init:
        lines.append(pad * depth + f"acc = {float.fromhex(identity)!r}")
    for n, d in enumerate(st.dims[nout:], start=nout):
        lines.append(pad * (depth + n - nout) + f"for {idx[n]} in range({d}):")
    inner = depth + len(st.dims) - nout
    acc = "acc" if init else target
    lines += [pad * inner + b for b in body]
    value = f"v{len(st.body) - 1}"
    lines += [pad * inner + b for b in render(combine, [acc, value], "w")]
    lines.append(pad * inner + f"{acc} = w{len(combine) - 1}")
    if init:
        lines.append(pad * depth + f"{target} = acc")


def render_program(program, names):
    """Python text of ``program``; ``names`` are the inputs' graph names (comments)."""
    params = [f"a{k}" for k in range(len(program.inputs))]
    params += [f"r{k}" for k in program.array_outputs]
    lines = [f"def kernel({', '.join(params)}):"]
    for k, name in enumerate(names):
        lines.append(f"    # a{k}: {name} {tuple(program.inputs[k][2])} {program.inputs[k][1]}")
    for k, (kind, shape, _) in enumerate(program.consts):
        lines.append(f"    # C{k}: baked {'values' if kind == 'f8' else 'index table'} {shape}")
    used = {st.dst for st in program.stmts} | {r for st in program.stmts for r, _ in st.srcs}
    for k, size in enumerate(program.buffers):
        if ("buf", k) in used:
            lines.append(f"    t{k} = np.empty({size})")
    for st in program.stmts:
        _statement(st, lines)
    rets = [_ref_name(ref) for _, shape, ref in program.outputs if not shape]
    lines.append(f"    return ({''.join(r + ', ' for r in rets)})")
    return "\n".join(lines)
