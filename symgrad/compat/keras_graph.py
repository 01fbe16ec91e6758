"""The graph of a functional ``tf.keras.Model``: the recorded layer calls between its
inputs and outputs (``steps_between``; the tensors a call read include an RNN's
``initial_state=``), keras's order of its layers (``by_depth``), what ``summary()``
prints of them (output shape, "Connected to", whether they form one
chain), and the check of a tensor given to the model against its Input.

Sits in ``compat``; imports the graph's Node and ``compat``'s keras_backend and
keras_layers.
"""
from __future__ import annotations

from ..graph import Node
from . import keras_backend as K
from .keras_layers import distinct, flat


def shape_or_multiple(layer):
    try:
        return layer.output_shape
    except AttributeError:   # (keras: a layer called on inputs of different shapes)
        return "multiple"


def chain(model):
    """Keras's "sequential-like" functional model: one input, each layer called once on
    one tensor, the output of the call before."""
    if len(model.inputs) != 1 or len(model.outputs) != 1:
        return False
    last, layers = model.inputs[0], set()
    for out, layer, inputs, _, _ in model._steps:
        if len(flat(inputs)) != 1 or flat(inputs)[0] is not last or id(layer) in layers:
            return False
        layers.add(id(layer))
        last = flat(out)[0] if len(flat(out)) == 1 else None
    return True


def connections(layer, steps):
    """``['dense[0][0]', ...]``: for each of the layer's calls in ``steps``, its inputs
    as (producing layer)[call index][output index], as keras prints them."""
    return [_source(x) for step in steps if step[1] is layer for x in fed(step)]


def _source(tensor):
    made = K.state().inputs.get(id(tensor))
    if made is not None:
        return f"{made.name}[0][0]"
    out, layer = K.state().calls[id(tensor)][:2]
    call = next(i for i, c in enumerate(layer._calls) if c[1] is out)
    index = next(i for i, t in enumerate(flat(out)) if t is tensor)
    return f"{layer.name}[{call}][{index}]"


def check_input(model, i, want, got):
    """TF's input spec of a model: the ranks (a trailing axis of size 1 aside) and the
    known sizes after the batch axis must agree; otherwise the layers inside would
    broadcast the tensor into wrong numbers (a [N, 1, 6] into a Dense built for [N, 6])."""
    if not isinstance(got, Node) or got.shape is None or want.shape is None:
        return
    expected, found = K.int_shape(want), K.int_shape(got)
    a, b = list(expected), list(found)
    if len(a) == len(b) + 1 and a[-1] == 1:
        a = a[:-1]
    elif len(b) == len(a) + 1 and b[-1] == 1:
        b = b[:-1]
    if len(a) != len(b) or any(x is not None and y is not None and x != y
                               for x, y in zip(a[1:], b[1:])):
        raise ValueError(f"Input {i} of model {model!r} is incompatible with it: expected "
                         f"shape={expected}, found shape={found}")


def fed(step):
    """The tensors a recorded call read: its inputs, then tensors passed as other
    arguments (an LSTM's ``initial_state=[h, c]``: lstm_seq2seq.py's encoder states,
    which keras folds into the call's inputs)."""
    _, _, inputs, args, kwargs = step
    extra = flat(list(args) + list(kwargs.values()))
    return flat(inputs) + [t for t in extra if isinstance(t, Node)]


def mapped(inputs, made):
    if isinstance(inputs, (list, tuple)):
        return type(inputs)(mapped(x, made) for x in inputs)
    return made.get(id(inputs), inputs) if isinstance(inputs, Node) else inputs


def by_depth(inputs, outputs, steps):
    """The layers of ``steps`` (and the InputLayers of ``inputs``) ordered as keras lists
    a functional model's: by depth from the outputs, deepest first, ties in the order
    of a depth-first walk from the outputs."""
    depth = {id(o): 0 for o in outputs}
    for step in reversed(steps):   # consumers before producers
        here = _depth(step[0], depth)
        for x in fed(step):
            depth[id(x)] = max(depth.get(id(x), 0), here + 1)
    registered = K.state().inputs
    made = {id(x): registered[id(x)] for x in inputs if id(x) in registered}
    producer = {id(t): step for step in steps for t in flat(step[0])}
    order, deepest, seen = [], {}, set()

    def walk(tensor):   # (keras's: post-order from the outputs, an input when reached)
        if id(tensor) in seen:
            return
        seen.add(id(tensor))
        if id(tensor) in made:
            order.append(made[id(tensor)])
            deepest[id(made[id(tensor)])] = depth.get(id(tensor), 0)
            return
        if id(tensor) not in producer:   # (an input without an InputLayer)
            return
        out, layer = producer[id(tensor)][:2]
        seen.update(id(t) for t in flat(out))
        for x in fed(producer[id(tensor)]):
            walk(x)
        order.append(layer)
        deepest[id(layer)] = max(deepest.get(id(layer), 0), _depth(out, depth))
    for out in outputs:
        walk(out)
    order = distinct(order)
    return sorted(order, key=lambda layer: -deepest[id(layer)])   # (stable: walk order)


def _depth(out, depth):
    """A call's depth: the largest of its outputs' (a layer may return several)."""
    return max(depth.get(id(t), 0) for t in flat(out))


def steps_between(inputs, outputs):
    """The recorded layer calls leading from ``inputs`` to ``outputs``, in call order."""
    calls, known = K.state().calls, {id(x) for x in inputs}
    steps, seen = [], set()

    def visit(tensor):
        if id(tensor) in known or id(tensor) in seen:
            return
        record = calls.get(id(tensor))
        if record is None or not any(t is tensor for t in flat(record[0])):
            raise ValueError(f"tf.keras.Model: {getattr(tensor, 'name', tensor)!r} is not "
                             "the output of a keras layer called on the model's inputs (a "
                             "TF op between layers, or an input not in inputs=); wrap TF ops "
                             "in tf.keras.layers.Lambda")
        seen.update(id(t) for t in flat(record[0]))
        for x in fed(record):
            visit(x)
        steps.append(record)
    for out in outputs:
        visit(out)
    return steps
