"""TF1 graph mode on symgrad: ``import symgrad.compat.v1 as tf`` and run the snippet.

Covers what TF1 questions about gradients use: ``tf.constant``, ``tf.Variable``,
``tf.placeholder``, ``tf.gradients``, ``tf.hessians``, ``tf.stop_gradient``,
``tf.reduce_sum`` and friends, ``tf.matmul``, ``tf.random_normal`` /
``tf.random.normal``, ``tf.global_variables_initializer`` and ``tf.Session``, and
what TF1 training programs use: ``tf.assign`` and friends as operations,
``tf.control_dependencies``, ``tf.group``, ``tf.get_variable``/``tf.variable_scope``,
initializers, ``tf.layers.dense``, ``tf.train`` optimizers and decays, names as
fetches and feeds, and ``tf.errors`` (modules ``variables``, ``scopes``, ``train``,
``schedules``, ``layers``, ``session``, ``errors`` of this package); checks and
printing inside the graph (``tf.Assert``, ``tf.assert_*``, ``tf.check_numerics``,
``tf.print``: ``debugging``, ``printing``) and ``graph.get_operation_by_name``,
``get_operations``, ``finalize`` (``graphs``); ``tf.keras``'s layers and models called
on tensors in a Session (``keras`` and the ``keras_*`` modules).

Choices (documented differences from TF):

- dtypes follow TF: Python floats give float32 tensors, Python ints int32 (plain
  ``symgrad`` uses float64/int64).  The classic answers are exact in float32.
- ``tf.placeholder(dtype)`` with ``shape=None`` takes a value of any shape (TF1):
  what is built on it is recorded and made when a value arrives, once per fed
  shape (``symgrad.ops.deferred``); its tensors have ``shape`` None until then.
  ``None`` dimensions (``[None, 3]``) are sizes known when values are fed.
- ``tf.random_normal``, ``random_uniform`` and ``truncated_normal`` (and
  ``tf.nn.dropout``'s masks) draw anew at every ``Session.run``, as TF does; each
  session starts the sequence over,
  and ``seed=`` and ``tf.set_random_seed`` make it reproducible.  With an op ``seed=``
  (here and in initializers) the numbers are TF's own (``ops.philox``).  Outside sessions
  (``sg.evaluate``, ``sg.compile``, closed forms) they hold the numbers of a
  session's first run.
- Variables keep their values on the graph; every session sees them and running
  an initializer resets them to their initial values (a random one drawn anew when it
  runs again in the same session, as TF does: ``compat.redraws``).  Each session tracks which
  variables it initialised: reading another raises FailedPreconditionError.
- ``sess.run`` returns numpy values; the lists it returns print like TF1-era
  numpy (``[3.0, 1.0]``).
- dtypes are numpy's: ``x.dtype`` is ``np.dtype('float32')`` (it prints ``float32``,
  not ``<dtype: 'float32'>``) and ``tf.float32`` is ``np.dtype('float32')`` too, so
  comparisons, ``.name``, ``tf.cast(x, y.dtype)`` and sets and dicts of dtypes
  (baselines' ``x.dtype in {tf.uint8, tf.int32, tf.int64}``; ``np.float32``, a type,
  hashes differently from its dtype) work as in TF, but TF's DType attributes do not
  exist (a numpy
  dtype takes none): for ``x.dtype.base_dtype`` write ``x.dtype`` (symgrad has no
  reference dtypes), for ``.is_floating`` ``x.dtype.kind == "f"``, for
  ``.as_numpy_dtype`` ``x.dtype.type``, for ``.size`` ``x.dtype.itemsize``.
- default op names are symgrad's op names (``relu:0``, ``matmul:0``), not TF's op types
  (``Relu:0``, ``MatMul:0``), and ``tf.layers.dense``'s output is ``dense/add:0``, not
  ``dense/BiasAdd:0``: fetch tensors by the names you give them (``name=``).

Sits on top of the pipeline; nothing below imports it.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     a = tf.constant(0.)
...     b = 2 * a
...     g = tf.gradients(a + b, [a, b], stop_gradients=[a, b])
...     with tf.Session() as sess:
...         print(sess.run(g))
[1.0, 1.0]
"""
from __future__ import annotations

import contextlib
import sys
import types

import numpy as np

from .. import tracing as _t
from ..differentiate import gradients as _gradients
from ..seeds import hessians as _hessians
from ..graph import Node
from ..ops.deferred import any_shape_placeholder, deferrable
from ..tracing import functions as _f
from . import errors  # noqa: F401  (tf.errors)
from . import app, flags  # noqa: F401  (tf.app.run, tf.flags = tf.app.flags)
from . import initializers as _init
from . import layers as _layers
from . import layer_objects as _layer_objects
from . import string_constants as _string_constants
from . import losses  # noqa: F401  (tf.losses)
from . import metrics as _metrics
from . import runtime as _runtime
from . import checkpoints as _checkpoints
from . import schedules as _schedules
from . import averages as _averages
from . import slim_api as _slim_api
from . import contrib_estimator as _contrib_estimator
from . import contrib_opt as _contrib_opt
from . import seq2seq as _seq2seq
from . import legacy_seq2seq as _legacy_seq2seq
from . import seq2seq_decoder as _seq2seq_decoder
from . import seq2seq_attention as _seq2seq_attention
from . import input_producers as _input_producers
from . import custom as _custom
from . import debugging as _debugging
from . import graphs as _graphs  # noqa: F401  (tf.Graph's get_operation_by_name, finalize)
from . import printing as _printing
from . import datasets as _datasets
from . import iterators as _iterators
from . import monitored as _monitored
from . import distributions as _distributions
from . import bernoulli as _bernoulli
from . import coordinator as _coordinator
from . import templates as _templates
from .templates import make_template  # noqa: F401
from . import image as _image
from . import image_augment as _image_augment
from . import image_color as _image_color
from . import image_crops as _image_crops
from . import image_nms as _image_nms
from . import keras as _keras
from . import rnn as _rnn
from . import rows as _rows
from . import v1_ops as _v1_ops
from . import summary as _summary
from . import summary_image as _summary_image
from . import contrib_learn as _contrib_learn
from . import gfile as _gfile
from . import gradient_checker as _gradient_checker
from .tensor_array import TensorArray  # noqa: F401
from .settings import *  # noqa: F401,F403  (tf.RunOptions, tf.config, tf.VERSION)
from .settings import VERSION as __version__  # noqa: F401
from .runtime import (ConfigProto, GPUOptions, device, logging,  # noqa: F401
                      is_variable_initialized, report_uninitialized_variables)
from . import tensor as _tensor
from . import train as _train
from .debugging import *  # noqa: F401,F403  (tf.Assert, tf.assert_equal, ...)
from .control import (case, cond, foldl, foldr, map_fn, scan,  # noqa: F401  (TF1 signatures)
                      vectorized_map, while_loop)
from .initializers import set_random_seed  # noqa: F401
from .scopes import (AUTO_REUSE, VariableScope, get_variable,  # noqa: F401
                     get_variable_scope, variable_scope)
from .partitioned import (PartitionedVariable, fixed_size_partitioner,  # noqa: F401
                          min_max_variable_partitioner, variable_axis_size_partitioner)
from .fetches import GradientList, remember_none
from .session import InteractiveSession, Session
from .state import Operation, default_session  # noqa: F401
from .state import state_of as _state_of
from .tensor import TensorShape, as_dtype, as_tf1, dtypes, tf_dtype_arg  # noqa: F401
from .tensor_shape import UnknownShape, as_shape
from .variables import tf_dtype as _tf_dtype
from .variables import global_step as _global_step
from .variables import (GraphKeys, Variable, add_to_collection,  # noqa: F401
                        add_to_collections, assign, assign_add, assign_sub,
                        control_dependencies, get_collection, get_collection_ref,
                        global_variables, global_variables_initializer, group,
                        local_variables, local_variables_initializer, model_variables,
                        moving_average_variables, no_op, trainable_variables,
                        variables_initializer)

from ..tracing.functions import *  # noqa: F401,F403  (tf.sin, tf.reduce_sum, ...)

float16, float32, float64 = dtypes.float16, dtypes.float32, dtypes.float64
int32, int64, uint8 = dtypes.int32, dtypes.int64, dtypes.uint8
int8, int16, uint16, uint32, uint64 = (dtypes.int8, dtypes.int16, dtypes.uint16,
                                       dtypes.uint32, dtypes.uint64)
double, half = dtypes.double, dtypes.half
bool = dtypes.bool  # noqa: A001  (tf.bool)
Graph, Tensor = _t.Graph, _t.Tensor
get_default_graph, reset_default_graph = _t.get_default_graph, _t.reset_default_graph
newaxis = None
div, truediv = _f.div, _f.div
initialize_all_variables = global_variables_initializer
all_variables = global_variables   # (TF1's deprecated names)
initialize_variables = variables_initializer



def get_default_session():
    """``tf.get_default_session()``: the innermost ``with sess:`` session, None outside
    one (TF; ``t.eval()`` without one is the ValueError)."""
    try:
        return default_session()
    except ValueError:
        return None


class UnconnectedGradients:
    """``tf.UnconnectedGradients.NONE`` / ``.ZERO``."""
    NONE, ZERO = "none", "zero"


def constant(value, dtype=None, shape=None, name="Const", verify_shape=False):
    """``tf.constant``: float32 for Python floats, int32 for Python ints; text gives
    a ``tf.string`` constant that a session fetches as bytes (``compat.string_constants``)."""
    if _string_constants.is_text(value):
        return _string_constants.string_constant(value, dtype, shape, name)
    return _tensor.constant(value, dtype=_tf_dtype(value, tf_dtype_arg(dtype)), shape=shape,
                            name=name)


def placeholder(dtype, shape=None, name=None):
    """``tf.placeholder``: ``None`` dimensions take any size; ``shape=None`` takes a value
    of any shape, as in TF1 (see ``symgrad.ops.deferred``)."""
    if dtype is _iterators.STRING or dtype == "string":
        return _iterators.string_placeholder(shape, name)
    if isinstance(shape, (TensorShape, UnknownShape)):   # x.get_shape(): unknown sizes None
        shape = None if shape.ndims is None else shape.as_list()
    if shape is None:
        dt = _t.as_dtype(tf_dtype_arg(dtype), "placeholder(dtype)") or np.dtype(np.float32)
        return as_tf1(any_shape_placeholder(get_default_graph(), dt, name or "Placeholder"))
    return as_tf1(_t.placeholder(tf_dtype_arg(dtype), shape, name=name))


def gradients(ys, xs, grad_ys=None, name="gradients", colocate_gradients_with_ops=False,
              gate_gradients=False, aggregation_method=None, stop_gradients=None,
              unconnected_gradients="none"):
    """``tf.gradients``: a list with one tensor (or None) per x; see ``sg.gradients``.
    An assign among ys or xs is its result tensor (through which no gradient flows)."""
    ys, xs = _assign_results(ys), _assign_results(xs)
    grads = _rows.gradients(_gradients, ys, xs, grad_ys, name, gate_gradients,
                            aggregation_method, stop_gradients, unconnected_gradients,
                            colocate_gradients_with_ops)

    def why(i):
        from ..teach import why_none
        return why_none(ys, xs, i, grad_ys=grad_ys, stop_gradients=stop_gradients)
    result = GradientList(grads, why)
    if grads:
        remember_none(grads[0].graph if grads[0] is not None else _graph_of(xs), result)
    return result


def _assign_results(values):
    if isinstance(values, Operation) and values.value is not None:
        return values.as_graph_tensor()
    if isinstance(values, (list, tuple)):
        return type(values)(_assign_results(v) for v in values)
    return values


def _graph_of(xs):
    return (xs[0] if isinstance(xs, (list, tuple)) else xs).graph


def hessians(ys, xs, name="hessians", colocate_gradients_with_ops=False,
             gate_gradients=False, aggregation_method=None):
    """``tf.hessians`` (zeros where TF would raise on a structurally zero block)."""
    return _hessians(ys, xs, name, gate_gradients, aggregation_method)


def add_n(inputs, name=None):
    """The sum of a list of tensors (IndexedSlices summed as their dense tensors, as TF)."""
    inputs = [convert_to_tensor(t) for t in inputs]
    if not inputs:
        raise ValueError("tf.add_n: inputs must be a list of at least one tensor")
    total = _tensor.added(inputs, "tf.add_n")
    return _f.identity(total, name=name) if name else total


def fill(dims, value, name=None):
    """``tf.fill``: the value's dtype, float32 for Python floats and int32 for ints (TF)."""
    dtype = _tf_dtype(value, None)
    return _f.fill(dims, value if dtype is None else np.asarray(value, dtype), name=name)


def ones(shape, dtype=np.float32, name=None):
    return as_tf1(_f.ones(shape, dtype, name))


def zeros(shape, dtype=np.float32, name=None):
    return as_tf1(_f.zeros(shape, dtype, name))


@deferrable()   # (a shape fed through a placeholder of any shape: GCN's sparse dropout)
def _drawn(shape, dist, seed, dtype, name, a, b):
    return _distributions.scaled_draw(_f._dims(shape, f"{name}(shape)"), dist, seed,
                                      tf_dtype_arg(dtype), a, b, name)


def random_normal(shape, mean=0.0, stddev=1.0, dtype=np.float32, seed=None, name=None):
    """Normal samples, drawn anew at each ``Session.run`` (the module docstring); a
    shape known only at run time (``tf.random_normal(tf.shape(mu))``) is read then."""
    return _drawn(shape, "normal", seed, dtype, name or "random_normal", mean, stddev)


def random_uniform(shape, minval=0, maxval=None, dtype=np.float32, seed=None, name=None):
    """Uniform samples in [minval, maxval) (maxval 1 by default), drawn at each run."""
    high = 1.0 if maxval is None else maxval
    return _drawn(shape, "uniform", seed, dtype, name or "random_uniform", minval, high)


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=np.float32, seed=None, name=None):
    """Normal samples, those beyond two standard deviations drawn again, drawn anew at
    each run as ``random_normal`` (TF's own numbers with an op seed: ``ops.philox``)."""
    return _drawn(shape, "truncated_normal", seed, dtype, name or "truncated_normal",
                  mean, stddev)


def random_shuffle(value, seed=None, name=None):
    """``value`` with its rows in a random order, drawn anew at each run (TF's own order
    with an op seed, ``_distributions.shuffled``)."""
    return _distributions.shuffled(value, seed, name or "RandomShuffle")


multinomial = _distributions.multinomial
image = _runtime.namespace("image", ResizeMethod=_image.ResizeMethod, **{
    n: getattr(_image, n) for n in (
        "flip_left_right", "flip_up_down", "transpose_image", "transpose", "rot90",
        "random_flip_left_right", "random_flip_up_down", "per_image_standardization",
        "rgb_to_grayscale", "grayscale_to_rgb", "total_variation", "adjust_brightness",
        "adjust_contrast", "resize_images", "resize", "resize_bilinear",
        "resize_nearest_neighbor", "resize_bicubic", "resize_area", "crop_to_bounding_box",
        "pad_to_bounding_box", "central_crop", "convert_image_dtype")},
    **{n: getattr(_image_color, n) for n in _image_color.__all__},
    **{n: getattr(_image_augment, n) for n in _image_augment.__all__},
    crop_and_resize=_image_crops.crop_and_resize,
    non_max_suppression=_image_nms.non_max_suppression)
image.resize_with_crop_or_pad = image.resize_image_with_crop_or_pad   # (TF2's name)
random_crop = _image_augment.random_crop
contrib = _runtime.namespace(
    "contrib", opt=_runtime.namespace("contrib.opt",
                                      ScipyOptimizerInterface=_contrib_opt.ScipyOptimizerInterface),
    rnn=_runtime.namespace("contrib.rnn", static_rnn=_rnn.static_rnn,
                           static_bidirectional_rnn=_rnn.static_bidirectional_rnn,
                           **_v1_ops.CELLS),
    **_slim_api.CONTRIB,
    estimator=_runtime.namespace(
        "contrib.estimator", clip_gradients_by_norm=_contrib_estimator.clip_gradients_by_norm),
    seq2seq=_runtime.namespace("contrib.seq2seq", sequence_loss=_seq2seq.sequence_loss,
                               **{k: getattr(m, k) for m in (_seq2seq_decoder,
                                                             _seq2seq_attention)
                                  for k in m.__all__}),
    legacy_seq2seq=_runtime.namespace(
        "contrib.legacy_seq2seq", sequence_loss=_seq2seq.legacy_sequence_loss,
        sequence_loss_by_example=_seq2seq.sequence_loss_by_example,
        rnn_decoder=_legacy_seq2seq.rnn_decoder,
        basic_rnn_seq2seq=_legacy_seq2seq.basic_rnn_seq2seq))
_data_helpers = dict(
    shuffle_and_repeat=lambda buffer_size, count=None, seed=None: (
        lambda ds: ds.shuffle(buffer_size, seed).repeat(count)),
    map_and_batch=lambda map_func, batch_size, num_parallel_batches=None,
    drop_remainder=False, num_parallel_calls=None: (
        lambda ds: ds.map(map_func).batch(batch_size, drop_remainder)),
    batch_and_drop_remainder=lambda batch_size: lambda ds: ds.batch(batch_size, True),
    unbatch=lambda: lambda ds: ds.unbatch(),
    enumerate_dataset=lambda start=0: lambda ds: ds.enumerate(start),
    AUTOTUNE=_datasets.AUTOTUNE)
data = _runtime.namespace(
    "data", Dataset=_datasets.Dataset, Iterator=_iterators.Iterator, AUTOTUNE=_datasets.AUTOTUNE,
    experimental=_runtime.namespace("data.experimental", **_data_helpers),
    **{n: getattr(_iterators, n) for n in (
        "make_one_shot_iterator", "make_initializable_iterator", "get_output_types",
        "get_output_shapes", "get_output_classes")})
contrib.data = _runtime.namespace("contrib.data", **_data_helpers)
contrib.learn = _runtime.namespace("contrib.learn", preprocessing=_runtime.namespace(
    "contrib.learn.preprocessing", **{n: getattr(_contrib_learn, n) for n in (
        "VocabularyProcessor", "CategoricalVocabulary", "tokenizer")}))
string = _iterators.STRING
distributions = _runtime.namespace("distributions", Normal=_distributions.Normal,
                                   Categorical=_distributions.Categorical,
                                   Bernoulli=_bernoulli.Bernoulli,
                                   kl_divergence=_distributions.kl_divergence)
gfile = _runtime.namespace("gfile", **_gfile.GFILE)
io = _runtime.namespace("io", gfile=_runtime.namespace("io.gfile", **_gfile.IO_GFILE))
test = _runtime.namespace("test", **_gradient_checker.TEST)
random = _runtime.namespace("random", normal=random_normal, uniform=random_uniform,
                            categorical=_distributions.categorical,
                            truncated_normal=truncated_normal, shuffle=random_shuffle,
                            set_random_seed=set_random_seed)


custom_gradient, RegisterGradient = _custom.custom_gradient, _custom.RegisterGradient


def Print(input_, data, message=None, first_n=None, summarize=None, name=None):  # noqa: N802
    """``tf.Print``: ``input_`` unchanged; each time a session run evaluates it, the
    message and the first ``summarize`` (3) entries of each tensor of ``data`` go to
    stderr (``first_n``: only the first n times)."""
    x = _t.as_tensor(input_)
    out = _f.identity(x, name=name or "Print")
    items = [d if isinstance(d, Node) else _tensor.constant(d) for d in data]
    limit = [int(first_n)] if first_n is not None and int(first_n) >= 0 else None
    _state_of(x.graph).prints[out] = (items, message or "", limit,
                                      3 if summarize is None else int(summarize))
    return out


def disable_v2_behavior():
    """Nothing to do: compat.v1 is always TF1 graph mode."""


def disable_eager_execution():
    """Nothing to do: compat.v1 is always TF1 graph mode."""


def executing_eagerly():
    return False


def placeholder_with_default(input, shape, name=None):  # noqa: A002  (TF's argument name)
    """A tensor equal to ``input`` unless fed (any tensor can be fed in symgrad); Python
    numbers take TF's dtypes (float32, int32)."""
    value = input if isinstance(input, Node) else constant(input, _tf_dtype(input, None))
    wanted = as_shape(shape)   # (TF: the default need only fit it, None fits any size)
    if not wanted.is_compatible_with(value.shape):
        raise ValueError(f"placeholder_with_default: shape {wanted} is not compatible with "
                         f"the default's shape {as_shape(value.shape)}")
    return _f.identity(value, name=name or "PlaceholderWithDefault")


train = _runtime.namespace("train",
    Optimizer=_train.Optimizer, GradientDescentOptimizer=_train.GradientDescentOptimizer,
    MomentumOptimizer=_train.MomentumOptimizer, AdamOptimizer=_train.AdamOptimizer,
    RMSPropOptimizer=_train.RMSPropOptimizer, AdagradOptimizer=_train.AdagradOptimizer,
    FtrlOptimizer=_train.FtrlOptimizer,
    AdadeltaOptimizer=_train.AdadeltaOptimizer, Saver=_runtime.Saver,
    ExponentialMovingAverage=_averages.ExponentialMovingAverage,
    latest_checkpoint=_runtime.latest_checkpoint,
    get_checkpoint_state=_runtime.get_checkpoint_state,
    list_variables=_runtime.list_variables, load_variable=_runtime.load_variable,
    NewCheckpointReader=_runtime.CheckpointReader, load_checkpoint=_runtime.CheckpointReader,
    checkpoint_exists=_runtime.checkpoint_exists, SaverDef=_checkpoints.SaverDef,
    update_checkpoint_state=_checkpoints.update_checkpoint_state,
    checkpoints_iterator=_checkpoints.checkpoints_iterator,
    Coordinator=_coordinator.Coordinator, init_from_checkpoint=_templates.init_from_checkpoint,
    start_queue_runners=_coordinator.start_queue_runners,
    range_input_producer=_input_producers.range_input_producer,
    get_global_step=_train.get_global_step, create_global_step=_train.create_global_step,
    global_step=_global_step,
    get_or_create_global_step=_train.get_or_create_global_step,
    **{n: getattr(_monitored, n) for n in (
        "MonitoredTrainingSession", "MonitoredSession", "SingularMonitoredSession",
        "ChiefSessionCreator", "Scaffold", "SessionRunHook", "SessionRunArgs",
        "SessionRunContext", "SessionRunValues", "StopAtStepHook", "LoggingTensorHook",
        "NanTensorHook", "NanLossDuringTrainingError", "CheckpointSaverHook", "FinalOpsHook",
        "FeedFnHook", "StepCounterHook")},
    **{n: getattr(_schedules, n) for n in (
        "exponential_decay", "inverse_time_decay", "natural_exp_decay", "polynomial_decay",
        "cosine_decay", "piecewise_constant", "cosine_decay_restarts", "linear_cosine_decay")})
summary = _runtime.namespace("summary", image=_summary_image.image, **{
    n: getattr(_summary, n) for n in ("scalar", "histogram", "merge", "merge_all",
                                      "FileWriter")})
Summary = _summary.Summary
metrics = _runtime.namespace("metrics", **{n: getattr(_metrics, n) for n in _metrics.__all__
                                          if n != "GraphKeys"})
GraphKeys = _metrics.GraphKeys   # (with METRIC_VARIABLES)
confusion_matrix = _metrics.confusion_matrix
initializers = _runtime.namespace("initializers",
    global_variables=global_variables_initializer, variables=variables_initializer,
    local_variables=local_variables_initializer, **_init.SHORT)
globals().update(_init.TABLE)
keras = _keras.keras
sys.modules.update(_keras.submodules(__name__))   # from symgrad.compat.v1.keras.layers import
if not any(isinstance(f, _keras.MissingFinder) for f in sys.meta_path):
    sys.meta_path.append(_keras.MissingFinder(__name__))
layers = _runtime.namespace("layers", **{n: getattr(_layers, n) for n in (
    "dense", "Dense", "conv1d", "conv2d", "conv2d_transpose", "max_pooling1d",
    "average_pooling1d", "max_pooling2d", "average_pooling2d", "flatten", "dropout",
    "batch_normalization", "separable_conv2d")},
    **{n: getattr(_layer_objects, n) for n in _layer_objects.__all__})
layers.Layer = keras.layers.Layer   # (TF1's tf.layers.Layer: keras's base layer, as in TF 1.x)


@contextlib.contextmanager
def name_scope(name, default_name=None, values=None):
    """``tf.name_scope``: prefix the names of tensors made inside the block."""
    with get_default_graph().name_scope(name or default_name) as scope:
        yield scope + "/" if scope else ""


matmul = _t.matmul
compat = types.SimpleNamespace(v1=sys.modules[__name__])  # tf.compat.v1.placeholder, ...


# -- the op breadth: tf.nn, tf.linalg, tf.math and TF1's old top-level names (v1_ops) --
from .v1_ops import *  # noqa: E402,F401,F403
from .v1_ops import RNG_SOURCE as _RNG_SOURCE  # noqa: E402
from .v1_ops import linalg, math, nn  # noqa: E402,F401
from .slices import (IndexedSlices, clip_by_global_norm, clip_by_norm,  # noqa: E402,F401
                     clip_by_value, convert_to_tensor, global_norm, identity)
from .scatter import *  # noqa: E402,F401,F403  (tf.scatter_update, tf.scatter_nd_add, ...)
math.confusion_matrix = _tensor.tf1_results(_metrics.confusion_matrix)
from .sorting import argsort, searchsorted, sort  # noqa: E402,F401
from .v1_more import *  # noqa: E402,F401,F403  (segment max, strided_slice, einsum, ...)
from . import v1_more as _v1_more  # noqa: E402
math.add_n = math.accumulate_n = accumulate_n = add_n   # noqa: E305 (TF: the same sum)
from .vector_ops import ListDiff, bincount, cross, setdiff1d  # noqa: E402,F401
from . import vector_ops as _vector_ops  # noqa: E402
nn.crelu = _tensor.tf1_results(_vector_ops.crelu)
nn.log_poisson_loss = _tensor.tf1_results(_vector_ops.log_poisson_loss)
linalg.cross = _tensor.tf1_results(cross)
math.bincount = _tensor.tf1_results(bincount)
math.polygamma = polygamma = _tensor.tf1_results(_vector_ops.polygamma)
from . import sampled as _sampled  # noqa: E402
from . import sparse as _sparse  # noqa: E402
from .sparse import SparseTensor, SparseTensorValue  # noqa: E402,F401
sparse_placeholder = _sparse.sparse_placeholder
sparse_tensor_to_dense = _tensor.tf1_results(_sparse.sparse_tensor_to_dense)
sparse_tensor_dense_matmul = _tensor.tf1_results(_sparse.sparse_tensor_dense_matmul)
sparse_reduce_sum = _tensor.tf1_results(_sparse.sparse_reduce_sum)
nn.embedding_lookup_sparse = _tensor.tf1_results(_sparse.embedding_lookup_sparse)
sparse = _runtime.namespace(
    "sparse", SparseTensor=SparseTensor, placeholder=sparse_placeholder,
    to_dense=sparse_tensor_to_dense, sparse_dense_matmul=sparse_tensor_dense_matmul,
    matmul=sparse_tensor_dense_matmul, reduce_sum=sparse_reduce_sum)
for _name in ("nce_loss", "sampled_softmax_loss", "log_uniform_candidate_sampler",
              "uniform_candidate_sampler", "fixed_unigram_candidate_sampler"):
    setattr(nn, _name, _tensor.tf1_results(getattr(_sampled, _name)))
    if _name.endswith("sampler"):
        setattr(random, _name, getattr(nn, _name))

_RNG_SOURCE[0] = _init.rng  # tf.nn.dropout draws from the generator tf.set_random_seed sets


for _name, _value in list(globals().items()):   # results of tf.* are TF1 tensors
    if not _name.startswith("_"):
        globals()[_name] = _tensor.tf1_results(_value)


def is_tensor(x):
    """``tf.is_tensor``: a tensor of a graph."""
    return isinstance(x, Node)


debugging = _debugging.NAMESPACE
from .v1_estimator import estimator, feature_column  # noqa: E402,F401  (tf.estimator, tf.feature_column)


def __getattr__(name):
    if name == "print":   # (not a global: the module's doctests call the builtin)
        return _printing.print_v2
    if name == "tuple":   # (not a global either: this module calls the builtin)
        return _tensor.tf1_results(_v1_more.tf_tuple)
    # what TF1 scripts use and symgrad has not: a message that says what to do
    raise _runtime.missing(name)

from .v1_breadth import *  # noqa: E402,F401,F403  (tf.repeat, tf.math.asinh, tf.image.ssim, ...)
from .v1_breadth import place as _place_breadth  # noqa: E402
_place_breadth(image=image, metrics=metrics, train=train, random=random,
               distributions=distributions, sparse=sparse)
initializers.tables_initializer = tables_initializer  # noqa: E305,F405 (no tables: a no-op)
version = _runtime.namespace("version", VERSION=VERSION, GIT_VERSION=GIT_VERSION,  # noqa: F405
                             COMPILER_VERSION=COMPILER_VERSION)  # noqa: F405
from .python_ops import numpy_function, py_func, py_function  # noqa: E402,F401
