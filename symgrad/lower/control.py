"""Compiled control flow: graphs with cond / while_loop / while_vjp nodes.

The loop IR has no branches or loops of data-dependent length, so a graph with
control nodes compiles in *segments*: straight-line kernels (``sg.compile`` of the
graph between control nodes, each one Numba intrinsic as usual) joined by small
generated ``@njit`` *drivers*, one per control node, that call the compiled
sub-graph functions (branch, loop condition, body, the body's vjp):

- ``cond``: ``if pred:`` one branch ``else:`` the other;
- ``while_loop``: a ``while`` loop calling the condition and body kernels;
- ``while_vjp``: the same loop writing every iterate to a tape (an array that
  doubles when full), then the body's vjp kernel backwards over the tape,
  summing the captured tensors' cotangents.

Loops stay loops: generated code and compile time do not depend on the trip
count.  Sub-graph kernels use the disk cache like any compiled graph, and so do the
drivers: each is a small generated module (``driver_text``) whose machine code Numba
keeps beside it.  (Drivers compiled from text in every process made a scan's Hessian
take 13.6 s in a second process as in the first; it now loads in 0.6 s.)  The drivers
are chosen by op name from ``DRIVERS`` (the three control ops of
``symgrad.control.ops``, and the factorisations of ``ops.eigen`` and ``ops.factor``,
whose drivers call LAPACK through ``lower.lapack``): they generate Numba source, which is
lowering's business.

A saved evaluator (``f.save``, pickles) keeps each driver's lines and what its names
stand for (``Segments.describe``); ``rebuild`` makes each driver a generated module in
the disk cache (through ``lower.cache``'s checks), so Numba keeps their machine code.

Imports numpy and errors (the evaluator's ``needed`` when compiling); numba only
when compiling.
"""
from __future__ import annotations

import numpy as np

from ..errors import ArgumentError, CompileError


def needed(outputs, feeds=()):
    """``evaluate.needed`` (imported when compiling: a saved evaluator's drivers are
    rebuilt, ``rebuild``, without the graph machinery or SymPy)."""
    from ..evaluate import needed as needed_nodes
    return needed_nodes(outputs, feeds)


def control_nodes(outputs, inputs):
    """The control-flow nodes the outputs need (topological order), and the nodes of
    other ops run by a driver (eigh, svd, qr and kin: LAPACK, ``lower.lapack``)."""
    return [n for n in needed(outputs, set(inputs)) if (n.opdef.kind == "control" or
                                                         getattr(n.opdef, "driven", False))
            and n not in set(inputs)]


def _size(shape):
    return int(np.prod(shape, dtype=np.int64))


def _pack(out, names, spec, indent):
    """Lines writing ``names`` (values of ``spec``) into the float64 vector ``out``."""
    lines, start = [f"{indent}{out} = _rt.empty(({_size_total(spec)},), np.float64)"], 0
    for name, (shape, dtype) in zip(names, spec):
        size, kind = _size(shape), np.dtype(dtype).kind
        if not shape:
            value = f"(1.0 if {name} else 0.0)" if kind == "b" else name
            lines.append(f"{indent}{out}[{start}] = {value}")
        elif size:
            lines += _copied(f"_rt.flat({name})", f"{out}[{start} + q]", size, indent,
                             f"flat_{name}", kind == "b")
        start += size
    return lines


def _copied(source, target, size, indent, name, boolean=False):
    """Lines copying the ``size`` elements of the 1-d ``source`` (held in the variable
    ``name``) into ``target`` (indexed by ``q``) one by one: an array assigned to a
    slice costs Numba ~0.6 s of compiling per pair of ranks (its shape-mismatch
    error), a loop nothing."""
    value = f"(1.0 if {name}[q] else 0.0)" if boolean else f"{name}[q]"
    return [f"{indent}{name} = {source}", f"{indent}for q in range({size}):",
            f"{indent}    {target} = {value}"]


def _size_total(spec):
    return sum(_size(s) for s, _ in spec)


def _call(fn, args):
    return f"{fn}({', '.join(args)})"


def _unpacked(names, call):
    return f"{', '.join(names)}, = {call}" if names else call


def _cond_driver(node, fns):
    caps = [f"c{k}" for k in range(len(node.inputs) - 1)]
    spec = node.attrs["layout"]
    lines = [f"def driver(pred{''.join(', ' + c for c in caps)}):"]
    for test, fn in (("if pred:", "T"), ("else:", "F")):
        names = [f"{fn.lower()}{k}" for k in range(len(spec))]
        lines += [f"    {test}", "        " + _unpacked(names, _call(fn, caps))]
        lines += _pack("out", names, spec, "        ")
    lines.append("    return out")
    return lines, {"T": fns(node.attrs["branches"][0]), "F": fns(node.attrs["branches"][1])}


def _loop_head(n, caps, maximum):
    vs = [f"v{k}" for k in range(n)]
    test = _call("COND", vs + caps) + "[0]"
    if maximum is not None:
        test = f"k < {int(maximum)} and {test}"
    return vs, test


def _while_driver(node, fns):
    a = node.attrs
    n = a["n"]
    caps = [f"c{k}" for k in range(len(node.inputs) - n)]
    vs, test = _loop_head(n, caps, a["maximum_iterations"])
    lines = [f"def driver({', '.join(vs + caps)}):", "    k = 0", f"    while {test}:",
             "        " + _unpacked(vs, _call("BODY", vs + caps)), "        k += 1"]
    lines += _pack("out", vs + ["k"], a["layout"], "    ")
    lines.append("    return out")
    return lines, {"COND": fns(a["cond"]), "BODY": fns(a["body"])}


def _while_vjp_driver(node, fns):
    a = node.attrs
    n, body = a["n"], a["body"]
    m = len(body.params) - n
    spec = a["layout"]
    nf = len(node.inputs) - n - m
    caps = [f"c{k}" for k in range(m)]
    vs, test = _loop_head(n, caps, a["maximum_iterations"])
    seeds = [f"s{k}" for k in range(nf)]
    # only the iterates the vjp reads go on the tape (a counter the body's derivative
    # never uses is not stored); the others are passed as any value of their type
    read = set(needed(a["vjp"].outputs, set(a["vjp"].params)))
    taped = [j for j, p in enumerate(a["vjp"].params[:n]) if p in read]
    # a tape holds one iterate per row, flat (written and grown element by element)
    sizes = {j: _size(body.params[j].shape) for j in taped}
    rows = {j: f"(cap, {sizes[j]})" if body.params[j].shape else "(cap,)" for j in taped}
    lines = [f"def driver({', '.join(vs + caps + seeds)}):", "    k = 0", "    cap = 16"]
    lines += [f"    tape{j} = _rt.empty({rows[j]}, np.{body.params[j].dtype.name})"
              for j in taped]
    lines += [f"    while {test}:", "        if k == cap:", "            cap *= 2"]
    for j in taped:
        lines += [f"            grown = _rt.empty({rows[j]}, np.{body.params[j].dtype.name})"]
        if body.params[j].shape:
            lines += ["            into = _rt.flat(grown)"]
            lines += _copied(f"_rt.flat(tape{j})", "into[q]", f"k * {sizes[j]}",
                             "            ", f"old{j}")
        else:
            lines += _copied(f"tape{j}", "grown[q]", "k", "            ", f"old{j}")
        lines += [f"            tape{j} = grown"]
    for j in taped:
        lines += _copied(f"_rt.flat(v{j})", f"tape{j}[k, q]", sizes[j], "        ", f"it{j}") \
            if body.params[j].shape else [f"        tape{j}[k] = v{j}"]
    lines += ["        " + _unpacked(vs, _call("BODY", vs + caps)), "        k += 1"]
    adj = [f"a{j}" for j in range(nf)]
    tot = [f"t{j}" for j in range(len(spec) - nf)]
    lines += [f"    {x} = {s}" for x, s in zip(adj, seeds)]
    for t, (s, d) in zip(tot, spec[nf:]):
        lines += _zeros(t, s, d, "    ")
    steps = [f"d{j}" for j in range(len(tot))]
    lines += ["    for j in range(k - 1, -1, -1):",
              "        " + _unpacked(adj + steps,
                                     _call("VJP", [_iterate(i, body.params[i].shape, taped)
                                                   for i in range(n)] + caps + adj))]
    for t, d, (s, _) in zip(tot, steps, spec[nf:]):
        lines += _added(t, d, _size(s), "        ") if s else [f"        {t} = {t} + {d}"]
    lines += _pack("out", adj + tot, spec, "    ")
    lines.append("    return out")
    return lines, {"COND": fns(a["cond"]), "BODY": fns(body), "VJP": fns(a["vjp"])}


def _zeros(name, shape, dtype, indent):
    """Lines making ``name`` zeros of ``shape`` (a 0-d one: a scalar)."""
    kind = f"np.{np.dtype(dtype).name}"
    if not shape:
        return [f"{indent}{name} = {kind}(0.0)"]
    return [f"{indent}{name} = _rt.empty({tuple(shape)!r}, {kind})",
            f"{indent}flat_{name} = _rt.flat({name})",
            f"{indent}for q in range({_size(shape)}):", f"{indent}    flat_{name}[q] = 0"]


def _added(total, step, size, indent):
    """Lines adding the array ``step`` into the array ``total`` in place, entry by entry
    (an array expression costs Numba a ufunc kernel to compile)."""
    return [f"{indent}into_{total} = _rt.flat({total})", f"{indent}from_{total} = _rt.flat({step})",
            f"{indent}for q in range({size}):",
            f"{indent}    into_{total}[q] = into_{total}[q] + from_{total}[q]"]


def _iterate(i, shape, taped):
    """The text of iterate ``i`` at step ``j`` of the reverse loop."""
    if i not in taped:
        return f"v{i}"
    return f"_rt.shaped(tape{i}[j], {tuple(shape)!r})" if shape else f"tape{i}[j]"


def _lapack_driver(node, fns):
    """``eigh``, ``eigvalsh`` (``ops.eigen``), ``svd``, ``singular_values`` and ``qr``
    (``ops.factor``): LAPACK through ``lower.lapack``, on the input cast to the result's
    dtype (an integer matrix gives float64)."""
    name, a = node.opdef.name, node.inputs[0]
    if name == "qr" and node.attrs["full"] and a.shape[-2] > a.shape[-1]:
        raise CompileError(f"{node.name!r}: qr(full_matrices=True) of a tall matrix (shape "
                           f"{a.shape}) is not compiled (Numba's qr is the reduced one); "
                           "evaluate it with sg.evaluate or a Session, or use "
                           "full_matrices=False")
    cast = "" if a.dtype == node.dtype else f".astype(np.{node.dtype.name})"
    full = f", {bool(node.attrs['full'])}" if name == "svd" else ""
    return ["def driver(a):", f"    return _la.{name}_batch(a{cast}{full})"], {}


DRIVERS = {"cond": _cond_driver, "while_loop": _while_driver, "while_vjp": _while_vjp_driver,
           **{name: _lapack_driver for name in ("eigh", "eigvalsh", "svd", "singular_values",
                                                "qr")}}


def _levels(nodes, inputs):
    """Control nodes grouped so each group needs only the inputs and earlier groups."""
    known, pending, levels = set(inputs), list(nodes), []
    while pending:
        waiting = set(pending)
        ready = [c for c in pending if not any(n in waiting for n in needed(c.inputs, known))]
        levels.append(ready)
        known.update(ready)
        pending = [c for c in pending if c not in set(ready)]
    return levels


class Segments:
    """The compiled pieces of a graph with control flow, and the top-level driver text."""

    def __init__(self, outputs, inputs, compile_kernel, directory=None):
        self.compile_kernel = compile_kernel  # (outputs, inputs) -> an Evaluator
        self.directory = directory   # of the drivers' modules (None: the disk cache)
        self.made = {}   # id(kernel or driver) -> its evaluator, or (lines, env): see describe
        self.sources = []
        self.functions = {}
        names = [f"i{k}" for k in range(len(inputs))]
        known, lines, env = list(inputs), [f"def run({', '.join(names)}):"], {}
        for j, ready in enumerate(_levels(control_nodes(outputs, inputs), inputs)):
            # one kernel computes the inputs of every control node whose own control
            # inputs are known; then each node's driver runs
            flat = [x for node in ready for x in node.inputs]
            env[f"K{j}"] = self.kernel(flat, known, f"inputs of {[n.name for n in ready]}")
            args = [f"x{j}_{k}" for k in range(len(flat))]
            lines.append("    " + _unpacked(args, _call(f"K{j}", names)))
            start = 0
            for k, node in enumerate(ready):
                env[f"D{j}_{k}"] = self.driver(node)
                part = args[start:start + len(node.inputs)]
                start += len(node.inputs)
                lines.append(f"    i{len(names)} = {_call(f'D{j}_{k}', part)}")
                names.append(f"i{len(names)}")
            known += ready
        env["OUT"] = self.kernel(outputs, known, "outputs")
        lines.append(f"    return {_call('OUT', names)}")
        self.lines, self.env = lines, env

    def kernel(self, outputs, inputs, what):
        # a tuple of outputs: the kernel returns it as it is (``structure.native``)
        evaluator = self.compile_kernel(tuple(outputs), list(inputs))
        self.sources.append(f"# kernel: {what}\n{evaluator.source}")
        self.made[id(evaluator._kernel)] = evaluator
        return evaluator._kernel  # the Numba dispatcher itself: drivers call it directly

    def function(self, function):
        """The jit of a sub-graph function (compiled once per Function)."""
        if function not in self.functions:
            self.functions[function] = self.kernel(function.outputs, function.params,
                                                   function.label)
        return self.functions[function]

    def driver(self, node):
        lines, env = DRIVERS[node.opdef.name](node, self.function)
        self.sources.append(f"# driver of {node.name} ({node.opdef.name})\n" + "\n".join(lines))
        fn = self._loaded(lines, env, "driver")
        self.made[id(fn)] = (lines, env)
        return fn

    def jit(self, inputs):
        """The top driver, compiled for the ``inputs`` (name, dtype, shape)."""
        self.sources.append("# the evaluator\n" + "\n".join(self.lines))
        return self._loaded(self.lines, self.env, "run", inputs)

    def _loaded(self, lines, env, name, inputs=None):
        """A driver from its generated module (``driver_text``), as ``rebuild`` makes it:
        Numba keeps its machine code on disk, so the next process compiles nothing,
        and drivers of equal text (a Hessian's loops per seed) are one function."""
        from . import cache
        return getattr(cache.load_module(driver_text(lines, env, name, inputs),
                                         self.directory), name)


    def describe(self, spec_of, lines=None, env=None):
        """The evaluator's top driver (or the given one) as literal data: its lines and,
        per name, ``("driver", description)`` or ``("kernel", spec_of(evaluator))``."""
        lines, env = (self.lines, self.env) if lines is None else (lines, env)
        names = {}
        for name, value in env.items():
            made = self.made[id(value)]
            names[name] = (("driver", self.describe(spec_of, *made)) if isinstance(made, tuple)
                           else ("kernel", spec_of(made)))
        return {"lines": list(lines), "env": names}


def rebuild(description, kernel_of, name="driver", inputs=None):
    """The driver ``describe`` described, from a generated module in the disk cache
    (Numba keeps its machine code: the next load compiles nothing); ``kernel_of(spec)``
    gives a kernel; ``inputs`` (the top driver's) fix its signature."""
    from . import cache
    env = {key: rebuild(spec, kernel_of) if kind == "driver" else kernel_of(spec)
           for key, (kind, spec) in description["env"].items()}
    return getattr(cache.load_module(driver_text(description["lines"], env, name, inputs)),
                   name)


def driver_text(lines, env, name, inputs=None):
    """The module of one driver: its kernels (and inner drivers) by module name."""
    head = ['"""symgrad generated control-flow driver (symgrad.lower.control.rebuild)."""',
            "import sys as _sys", "", "import numpy as np", "from numba import njit", "",
            "from symgrad.lower import runtime as _rt", "from symgrad.lower import lapack as _la",
            ""]
    head += [f"{key} = _sys.modules[{fn.py_func.__module__!r}].{fn.py_func.__name__}"
             for key, fn in sorted(env.items())]
    # a driver is inlined into the function calling it (Numba's IR inlining): compiled
    # on its own, each linked its kernels and re-optimised them, and the top function
    # did the same again with every driver (a loop's Hessian: 7.4 -> 5.9 s, LLVM's
    # share 4.4 -> 2.5 s); kernels stay functions of their own, linked once
    decorator = "@njit(inline='always')" if inputs is None else \
        f"@njit(_rt.jit_signature({list(inputs)!r}), cache=True)"
    return "\n".join(head + ["", "", decorator] + list(lines)) + "\n"


def driver_lines(description):
    """Every driver's lines of a description (what a loaded evaluator shows as source)."""
    out = ["\n".join(description["lines"])]
    for kind, spec in description["env"].values():
        if kind == "driver":
            out += driver_lines(spec)
    return out


def check_batched():
    raise ArgumentError("batched evaluation of graphs with control flow is not compiled; "
                        "call the evaluator once per point")
