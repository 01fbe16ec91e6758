"""``sg.compile``: graphs -> Numba evaluators (single call, batched, from @njit, pickled).

Pipeline: outputs -> ``lower.program.lower_graph`` (loop IR) -> ``lower.module``
(module text) -> ``lower.cache.load_module`` (disk cache, Numba ``cache=True``) ->
:class:`Evaluator`.  Identical graphs give identical module text, so a second
process, or a second ``compile`` of the same graph, loads machine code instead of
compiling.

Calling conventions:

- ``f(*values)``: one value per input; returns the outputs in the structure they
  were given (a tensor, or nested lists/tuples/dicts); 0-d outputs are Python
  float/int/bool, others ndarrays; ``None`` entries (unconnected gradients) come
  back as ``None``.  Values are cast to the inputs' dtypes.
- ``f.jit(*values)``: the compiled kernel; from a user's ``@njit`` function it
  takes 0-d inputs as scalars and the others as C-contiguous arrays of the input's
  dtype and returns a *tuple* with one entry per non-None output, in order; other
  arguments raise a ``TypeError`` saying what it wants (``f.jit.kernel`` is the
  Numba dispatcher).
- ``f.batched(*values, parallel=False, out=None)``: values with a leading batch axis
  (or broadcasting over it), results into ``out`` if given; ``f.gufunc``/``f.gufunc_parallel`` are the numpy gufuncs
  behind it; call them with ``*f.gufunc_extra`` appended (dummy arrays naming
  output sizes no input has).

Imports errors, graph, ``evaluator`` and the light parts of lower (cache, structure);
``compile`` imports the rest of lower (SymPy) when it runs.

>>> import symgrad as sg
>>> with sg.Graph().as_default():
...     x = sg.placeholder(shape=(2,), name="x")
...     y = sg.reduce_sum(x * x)
...     f = compile([y, sg.gradients(y, x)[0]], [x])
>>> f([1.0, 2.0])
[5.0, array([2., 4.])]
"""
from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any, Sequence

from . import gcfreeze, progress
from .errors import ArgumentError, CompileError, NotATensorError
from .graph import Node, ancestors, is_static
from .lower import background
from .lower import cache as lower_cache
from .lower.structure import boxable, machine_tree, native
# the evaluators live in ``evaluator`` (light: loads and unpickling need only them);
# their names stay importable from here
from .batch_calls import build_tree, rebuilder
from .evaluator import (ControlEvaluator, Evaluator, PendingEvaluator,  # noqa: F401
                        _restore, from_spec)

if TYPE_CHECKING:
    from .lower.persize import PerSize

# Evaluators are light: ``Evaluator`` (and unpickling one, ``shipping.load``) imports
# numpy and Numba only.  The lowering (SymPy) is imported by ``compile`` itself.


def __getattr__(name: str) -> Any:
    if name == "PerSize":   # ``from symgrad.compiler import PerSize`` as before
        from .lower.persize import PerSize
        return PerSize
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def compile(outputs: Any, inputs: Node | Sequence[Node], fastmath: bool = False,  # noqa: A001
            cache: bool = True, wait: bool | None = None) -> Evaluator | PerSize:
    """Compile ``outputs`` as a function of ``inputs`` with Numba.

    Args:
        outputs: a tensor or a nested list/tuple/dict of tensors (``None`` allowed).
            Compile a value with its gradients together (``[y] + gradients(y, xs)``)
            so they share common subexpressions.
        inputs: list of tensors (usually placeholders and variables) whose values are
            the arguments; every other leaf is baked in at its current value.
        fastmath: allow LLVM fast-math (reassociation, no NaN/inf guarantees).
        cache: keep the generated module and machine code in the disk cache
            (``SYMGRAD_CACHE_DIR``); False uses a temporary directory.
        wait: True builds the machine code before returning.  False (the default,
            unless ``$SYMGRAD_WAIT`` is set) returns at once: calls are answered by
            numpy over the graph until a background thread has built the machine
            code (``f.ready``; ``f.wait()`` blocks until then; ``f.batched`` is
            answered by numpy too; ``f.jit`` and pickling wait).  Graphs with unknown
            sizes are always built before returning; with control flow, loops and
            branches run their sub-graphs with numpy meanwhile, and ``f.batched``
            waits.
    Returns:
        an :class:`Evaluator`.
    Raises:
        NotATensorError: an output or input that is not a tensor.
        ArgumentError: an input listed twice.
        FeedError: a placeholder the outputs need is not among ``inputs``.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     x = sg.placeholder(name="x")
    ...     f = compile(sg.sin(x) * x, [x])
    >>> round(f(2.0), 6)
    1.818595
    """
    # imports happen where they are needed: the numpy tier's first answer loads no module
    # of the machine-code side (without .pyc files each costs milliseconds to compile)
    flat, tree = flatten_outputs(outputs)
    leaves = _check_inputs(inputs)
    # a dense Jacobian/Hessian with a compressed equal (seeds.unit_sweep): compute that
    nodes = [n.graph.compressed.get(n, n) for n in flat if n is not None]
    order = ancestors(nodes + leaves)   # one walk of the graph serves every check below
    shapes = {n.shape for n in order}   # a graph has few distinct shapes
    kinds = {n.opdef.kind for n in order}
    if "special" in kinds or "control" in kinds:
        _refuse_python(order)
    if "special" in kinds:
        from .ops.valued import value_sized
        found = value_sized(order)
        if found is not None:
            raise CompileError(
                f"{found.name!r} ({found.opdef.name}) has a size read from values (a computed "
                "boolean mask, one-argument where, slice bounds computed in the graph): the "
                "compiled code needs sizes known from the inputs. Evaluate it with "
                "sg.evaluate or a Session, or mask with multiplication (x * mask) or "
                "tf.where(mask, x, 0), which keep the shape")
    if None in shapes:  # unknown rank
        return _per_size(nodes, tree, leaves, fastmath, cache)
    sized = not all(is_static(s) for s in shapes)
    control = False
    if "control" in kinds or "special" in kinds and any(   # (eigh: LAPACK in a driver)
            getattr(n.opdef, "driven", False) for n in order):
        from .lower.control import control_nodes
        control = bool(control_nodes(nodes, leaves))
        if control and sized:  # sub-graphs compile at known sizes: once per size met
            return _per_size(nodes, tree, leaves, fastmath, cache)
        if control and background.waits(wait):
            return ControlEvaluator(nodes, leaves, tree,  # kernels + drivers
                                    lambda o, i: compile(o, i, fastmath, cache, wait=True),
                                    None if cache else lower_cache.private_dir())
    if not sized and not background.waits(wait):  # answer at once, machine code later
        from .lower import plan
        with gcfreeze.frozen_for(len(order)):
            planned = plan.Plan(nodes, leaves, order)
        # control flow: loops and branches run their sub-graphs with numpy meanwhile;
        # f.batched waits for the machine code (it evaluates point by point anyway)
        return PendingEvaluator(planned, _checks(leaves, tree, nodes),
                                lambda: compile(outputs, inputs, fastmath, cache, wait=True),
                                None if control else lambda: _batched_tier(nodes, leaves, order))
    return _machine_code(nodes, leaves, tree, sized, fastmath, cache)


def _per_size(nodes, tree, leaves, fastmath, cache):
    """Evaluators built once per combination of sizes (``lower.persize``)."""
    from .lower.persize import PerSize
    return PerSize(nodes, tree, leaves, lambda o, i: compile(o, i, fastmath, cache), build_tree)


def _machine_code(nodes, leaves, tree, sized, fastmath, cache):
    """The built :class:`Evaluator`: from the disk cache, else lowered and compiled."""
    from .lower.ir import graph_key
    directory = None if cache else lower_cache.private_dir()
    # the machine code builds the structure (a flat tuple is its own result already)
    boxed, tables = machine_tree(tree)   # sparse layouts: index tables of the module
    boxed = boxed if boxable(boxed) and not native(boxed) else None
    key = structure_key(graph_key(nodes, leaves, fastmath), boxed)
    names = [x.name for x in leaves]
    text = lower_cache.lookup(key, directory)
    if text is not None:  # lowered before: the module (and its machine code) is on disk
        return Evaluator(text, tree, names, None, directory)
    from .lower.module import module_text
    from .lower.program import lower_graph
    from .lower.sized import NeedsStaticSizes
    with progress.task(f"compiling {len(nodes)} outputs") as work, gcfreeze.frozen():
        work.stage("lowering the graph to loops")
        try:
            program = lower_graph(nodes, leaves)
        except NeedsStaticSizes:  # not size-generic: one build per combination of sizes
            if not sized:
                raise
            return _per_size(nodes, tree, leaves, fastmath, cache)
        literal = repr(program.to_literal())
        text = module_text(program, literal, fastmath, boxed, tables if boxed else None)
        from .lower import runtime  # numba is imported only when something is compiled
        runtime.HANDOFF[literal] = program
        work.stage(f"Numba/LLVM: compiling {len(program.stmts)} loops")
        try:
            evaluator = Evaluator(text, tree, names, program, directory)
        finally:
            runtime.HANDOFF.pop(literal, None)
    lower_cache.remember(key, text, directory)
    return evaluator


def structure_key(key, tree):
    """The cache key of a graph returned in the structure ``tree`` (None: a tuple)."""
    if tree is None:
        return key
    return hashlib.sha256(f"{key}\n{tree!r}".encode()).hexdigest()


def flatten_outputs(structure):
    """Nodes of a nested list/tuple/dict (None kept) and a picklable tree describing it."""
    if structure is None:
        return [None], ("none",)
    if isinstance(structure, Node):
        return [structure], ("leaf",)
    if hasattr(structure, "wrap_value"):  # a sparse result: its values, wrapped after
        return [structure.values], ("wrap", structure.layout)
    if isinstance(structure, dict):
        flat, tree = flatten_outputs(list(structure.values()))
        return flat, ("dict", tuple(structure), tree)
    if isinstance(structure, (list, tuple)):
        flat, subtrees = [], []
        for item in structure:
            f, t = flatten_outputs(item)
            flat += f
            subtrees.append(t)
        return flat, ("tuple" if isinstance(structure, tuple) else "list", tuple(subtrees))
    raise NotATensorError(f"outputs contains {type(structure).__name__} {structure!r}, which "
                          "is not a tensor of the graph; pass tensors (or lists of them)")


def _refuse_python(order):
    """CompileError when a Python function runs in the graph (tf.py_func): compiled
    code cannot call it."""
    from .ops.python import python_call_in
    found = python_call_in(order)
    if found is not None:
        call = found.attrs["call"]
        raise CompileError(
            f"{found.name!r} ({found.opdef.name}) runs the Python function "
            f"{call.func_name!r} (tf.py_func, tf.numpy_function or tf.py_function), which "
            "compiled code cannot call: evaluate the graph with sg.evaluate or a Session, or "
            "compute that value outside the graph and pass it as an input")


def _check_inputs(inputs):
    inputs = [inputs] if isinstance(inputs, Node) else list(inputs)
    seen = {}
    for k, x in enumerate(inputs):
        if not isinstance(x, Node):
            raise NotATensorError(f"inputs[{k}] is {type(x).__name__} {x!r}, not a tensor of "
                                  "the graph; list placeholders or variables, e.g. "
                                  "sg.placeholder(shape=...)")
        if x in seen:
            raise ArgumentError(f"inputs[{k}] ({x.name!r}) repeats inputs[{seen[x]}]; list "
                                "each input once")
        seen[x] = k
    return inputs


def _checks(leaves, tree, outputs):
    """What an evaluator's argument checks and output structure need, from the graph."""
    return {"input_names": [x.name for x in leaves], "_tree": tree, "_rebuild": rebuilder(tree),
            "_inputs": [(x.name, x.dtype.str, x.shape) for x in leaves],
            "_outputs": [(n.dtype.str, n.shape, None) for n in outputs], "_sized": False,
            "_int_inputs": any(x.dtype.kind in "iu" for x in leaves)}


def _batched_tier(outputs, inputs, order):
    """The numpy tier of ``f.batched`` while the machine code is built."""
    from .lower.plan_batched import BatchedPlan
    return BatchedPlan(outputs, inputs, order)
