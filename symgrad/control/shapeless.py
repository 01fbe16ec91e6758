"""Control flow over tensors of unknown rank (TF1's shapeless placeholders).

``tf.cond(residual < delta, f1, f2)`` on ``tf.placeholder(tf.float32)`` inputs, or a
``while_loop`` whose loop vars or body read such a placeholder, cannot be built
before the ranks are known.  The call is recorded (``ops.deferred``) and made again
when values arrive; the branches and bodies, which read those tensors through
closures, then meet what ``resolve`` has made (``resolved``), never the shapeless
originals.  The tensors they read become the recorded call's inputs, so they are
made first and gradients reach them.

Imports ``ops.deferred`` and ``control.function``.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     x = tf.placeholder(tf.float32)
...     y = tf.cond(tf.reduce_sum(x) > 0, lambda: x * 2, lambda: -x)
...     with tf.Session() as sess:
...         sess.run(y, {x: [1.0, 2.0]}).tolist()
[2.0, 4.0]
"""
from __future__ import annotations

from ..errors import ShapeError
from ..graph import Dim
from ..ops.deferred import defer, resolved
from .function import captured, flatten


def check_made_inside(what, functions, outer=()):
    """ShapeError when ``functions`` (traced branches or a body) return a result of
    unknown rank that no tensor of unknown rank around them explains (``outer``, what
    they capture): a ``tf.py_func`` result made inside, whose shape is known only as
    it runs; symgrad needs it to build the op (TF stacks or merges it at run time)."""
    if any(t.shape is None for t in list(outer) + captured(functions)):
        return
    for fn in functions:
        if any(o.shape is None for o in fn.outputs):
            raise ShapeError(f"{what} returns a result of unknown shape made inside it (a "
                             "tf.py_func result); give it its shape there with set_shape")
        inner = {d.symbol for n in fn.graph.nodes if getattr(n.opdef, "runs_python", False)
                  for d in n.shape or () if isinstance(d, Dim)}
        if any(isinstance(d, Dim) and d.symbol in inner for o in fn.outputs for d in o.shape):
            raise ShapeError(f"{what} returns a result whose size a tf.py_func inside it "
                             "gives (set_shape with None there): give its full shape, or call "
                             "the function outside and pass its result in")


def resolving(fn):
    """``fn`` whose results are what resolve() made of them (a branch returning the
    shapeless placeholder it closes over)."""
    return lambda *args: resolved(fn(*args))


def scalar_predicate(pred):
    """``pred`` made at the shapes fed, which must be a scalar (TF checks it when it runs)."""
    if pred.shape != ():
        raise ShapeError(f"cond: the predicate must be a scalar, but its value has shape "
                         f"{pred.shape} at the shapes fed")
    return pred


def record(make, args, probes, like, name, structure=None, unwrap=False):
    """``make(*args)`` recorded until values arrive: one tensor per output of ``like``
    (a traced Function giving the count, the dtypes and, unless ``structure`` is given,
    the nesting); ``probes``: the traced functions whose captured outer tensors the
    call reads; ``unwrap``: a lone tensor comes back bare."""
    made = defer(_flat, (make, list(args), captured(probes)), {}, len(like.outputs),
                 name=name)
    for node, out in zip(made, like.outputs):
        node.dtype = out.dtype
    if unwrap and len(made) == 1:
        return made[0]
    return (structure or like.structure)(made)


def _flat(make, args, reads):
    # reads: the captured tensors, inputs of the recorded call; make() reaches them itself
    return flatten(make(*args))[0]
