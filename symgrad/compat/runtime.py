"""TF1's runtime odds and ends that TF1 scripts call around the model:
``tf.train.Saver``, ``tf.device``, ``tf.ConfigProto``, ``tf.logging``, and a clear
error for what symgrad does not have (most of ``tf.contrib``, the rest of
``tf.keras``, ...).

- ``Saver`` and the checkpoint helpers come from ``compat.checkpoints`` (TF's
  checkpoint format); ``tf.report_uninitialized_variables`` names what a session has
  not initialised.
- ``device`` and ``ConfigProto`` settings choose where and how TF runs (GPUs,
  threads, memory, placement logs); they change no value, and symgrad keeps and
  ignores them.
- ``logging`` is Python's logger named ``tensorflow``, set up as TF1 sets it up
  (``compat.tf_logging``).

Sits in ``compat``; imports numpy, Python's logging and ``compat.variables``/``state``.
"""
from __future__ import annotations

import contextlib
import types

import numpy as np

from .. import tracing as _t
from . import variables as _variables
from . import tf_logging
from .state import Operation
from .tensor import tf1_results
# (tf.train.Saver and the checkpoint helpers live in compat.checkpoints; importable here)
from .checkpoints import (CheckpointReader, CheckpointState, Saver,  # noqa: F401
                          checkpoint_exists, get_checkpoint_state, latest_checkpoint,
                          list_variables, load_variable)


def report_uninitialized_variables(var_list=None, name="report_uninitialized_variables"):
    """``tf.report_uninitialized_variables``: an operation whose fetch is the names
    (bytes, a numpy object array) of the variables of ``var_list`` (default: the global
    and local ones) that the session running it has not initialised."""
    variables = (_variables.global_variables() + _variables.local_variables()
                 if var_list is None else list(var_list))
    graph = _t.get_default_graph()
    seen = {}

    def probe(values, session):   # runs first, in the session that runs the report
        seen["names"] = [v.op_name.encode() for v in variables if not _initialized(session, v)]
    check = Operation(f"{name}/probe", effect=probe, graph=graph)
    return Operation(name, control_inputs=[check], graph=graph,
                     result=lambda values: np.array(seen.pop("names", []), dtype=object))


def is_variable_initialized(variable):
    """``tf.is_variable_initialized``: an operation whose fetch is whether the session
    running it has initialised ``variable`` (a numpy bool)."""
    seen = {}

    def probe(values, session):
        seen["done"] = _initialized(session, variable)
    name = f"{variable.op_name}/IsVariableInitialized"
    check = Operation(f"{name}/probe", effect=probe, graph=variable.graph)
    return Operation(name, control_inputs=[check], graph=variable.graph,
                     result=lambda values: np.bool_(seen.pop("done", False)))


def _initialized(session, variable):
    # (the session's own record: reading an uninitialised variable would raise)
    return variable in session._initialized


def device(device_name_or_function):
    """``with tf.device("/cpu:0"):`` placement only; the values are the same."""
    return contextlib.nullcontext()


class ConfigProto:
    """``tf.ConfigProto(...)`` for ``tf.Session(config=...)``: kept and ignored."""

    def __init__(self, **settings):
        self.gpu_options = GPUOptions()
        self.__dict__.update(settings)


class GPUOptions:
    """``tf.GPUOptions(...)``: kept and ignored (no GPU here)."""

    def __init__(self, **settings):
        self.__dict__.update(settings)


logging = tf_logging   # tf.logging

# What TF1 scripts reach for that symgrad does not have, and what to do instead.
MISSING = {
    "summary.audio": "audio summaries are not written (symgrad writes scalars, "
                     "histograms and images)",
    "summary.text": "text summaries are not written (symgrad writes scalars, "
                    "histograms and images)",
    "contrib": "tf.contrib is not part of symgrad (only tf.contrib.slim, contrib.layers' "
               "layers, regularizers and initializers, contrib.losses, tf.contrib.rnn's "
               "cells, contrib.seq2seq's sequence_loss, decoders and attention (no beam "
               "search), contrib.legacy_seq2seq's losses, "
               "rnn_decoder and basic_rnn_seq2seq, "
               "contrib.opt.ScipyOptimizerInterface, "
               "contrib.estimator.clip_gradients_by_norm and "
               "contrib.learn.preprocessing.VocabularyProcessor are); use the core op "
               "(tf.layers, tf.nn, tf.initializers)",
    "contrib.slim": "of TF-Slim, symgrad has the layers (conv1d/2d/3d, fully_connected, "
                    "max_pool2d/3d, avg_pool2d/3d, flatten, dropout, batch_norm, conv2d_transpose, "
                    "separable_conv2d, one_hot_encoding, softmax, repeat, stack), arg_scope, "
                    "the variable functions (model_variable, get_variables...), the "
                    "regularizers and initializers, slim.losses, slim.learning "
                    "(create_train_op, train), slim.metrics' streaming metrics, "
                    "slim.evaluation (evaluate_once, evaluation_loop), slim.utils and "
                    "slim.model_analyzer.analyze_vars; not "
                    "the model zoo (slim.nets: build the network from these layers), "
                    "slim.data and slim.queues (use tf.data), "
                    "or the layers not named here (write them with tf.nn ops; layer_norm "
                    "and optimize_loss are there)",
    "contrib.layers": "of tf.contrib.layers, symgrad has conv1d/2d/3d, fully_connected, "
                      "max_pool2d/3d, avg_pool2d/3d, flatten, dropout, batch_norm, "
                      "conv2d_transpose, separable_conv2d, one_hot_encoding, softmax, "
                      "repeat, stack, the regularizers (l1, l2, l1_l2, sum, "
                      "apply_regularization), initializers (xavier, variance_scaling), "
                      "layer_norm and optimize_loss; write other layers (embed_sequence, "
                      "conv2d_in_plane...) with tf.nn ops",
    "contrib.losses": "of tf.contrib.losses (slim.losses), symgrad has the weighted losses "
                      "(softmax_cross_entropy, sparse_softmax_cross_entropy, "
                      "sigmoid_cross_entropy, mean_squared_error, absolute_difference, "
                      "log_loss, cosine_distance), hinge_loss and the collection helpers; "
                      "use tf.losses for the others",
    "contrib.framework": "of tf.contrib.framework, symgrad has arg_scope, add_arg_scope, "
                         "the variable functions (get_variables, get_variables_to_restore, "
                         "model_variable, assign_from_checkpoint_fn...) and the global step "
                         "functions; use tf.nest, tf.train and tf.Variable for the rest",
    "contrib.metrics": "of tf.contrib.metrics, symgrad has the streaming_* metrics that "
                       "wrap tf.metrics (accuracy, mean, mean_squared_error, "
                       "mean_absolute_error, root_mean_squared_error, precision, recall, "
                       "auc, mean_iou, sparse_recall_at_k) and aggregate_metric(s/_map); "
                       "use tf.metrics for the others",
    "contrib.slim.learning": "of slim.learning, symgrad has create_train_op, train, "
                             "train_step, clip_gradient_norms and multiply_gradients",
    "estimator": "of tf.estimator, symgrad has Estimator (train, evaluate, predict), "
                 "EstimatorSpec, ModeKeys, RunConfig, TrainSpec, EvalSpec, "
                 "train_and_evaluate, inputs.numpy_input_fn and pandas_input_fn, and the "
                 "premade LinearRegressor, LinearClassifier, DNNRegressor, "
                 "DNNClassifier, DNNLinearCombinedClassifier/Regressor and "
                 "BaselineClassifier/Regressor, add_metrics and tf.train's hooks; for "
                 "other premade estimators (boosted trees, heads) write a model_fn; "
                 "exporting "
                 "(export_saved_model) is not supported",
    "data.TextLineDataset": "reading files is not supported; load the data with numpy "
                            "(np.loadtxt, np.load) and use Dataset.from_tensor_slices",
    "metrics": "of tf.metrics, symgrad has accuracy, mean, mean_squared_error, "
               "mean_absolute_error, root_mean_squared_error, precision, recall, auc, "
               "mean_iou, mean_per_class_accuracy, the true/false positive/negative "
               "counts and TF1's other tf.metrics functions (dir(tf.metrics)); compute others in the graph from tf.metrics.mean (e.g. of "
               "tf.cast(tf.equal(a, b), tf.float32))",
    "nn.compute_accidental_hits": "its results' length depends on the values; "
                                  "tf.nn.nce_loss and sampled_softmax_loss remove "
                                  "accidental hits themselves (remove_accidental_hits=True)",
    "nn.learned_unigram_candidate_sampler": "a sampler that learns from the classes it "
                                            "sees is not supported; use "
                                            "tf.nn.fixed_unigram_candidate_sampler with "
                                            "counts (unigrams=) or the log-uniform one",
}
MISSING["test.TestCase"] = (
    "tf.test.TestCase is not supported; write the test with unittest.TestCase or pytest, "
    "open the session yourself (`with tf.Session() as sess:`) and compare with "
    "np.testing.assert_allclose (tf.test.compute_gradient_error checks gradients)")
MISSING["contrib.slim.losses"] = MISSING["contrib.losses"]
MISSING["contrib.slim.metrics"] = MISSING["contrib.metrics"]
MISSING["test.main"] = "tf.test.main is not supported; run the tests with unittest or pytest"
_GRAPH_MODE = ("symgrad.compat.v1 is TF1 graph mode only: build the graph, take derivatives "
               "with tf.gradients(ys, xs) and run them in a tf.Session")
_REBUILD = ("symgrad keeps no serialized graphs: rebuild the graph in Python (run the code "
            "that made it) and restore the variables' values with tf.train.Saver().restore")
_LINALG = ("symgrad's linalg has matmul, transpose, trace, diag, norm, inv, det, slogdet, "
           "logdet, cholesky, solve, triangular_solve, cholesky_solve, band_part, eigh, "
           "eigvalsh, svd and qr (all differentiable); no {what}: compute it with "
           "numpy.linalg outside the graph and feed the result")
MISSING.update({name: _LINALG.format(what=what) for name, what in (
    ("linalg.lu", "LU decomposition"), ("linalg.sqrtm", "matrix square root"),
    ("matrix_square_root", "matrix square root"), ("linalg.logm", "matrix logarithm"),
    ("linalg.matrix_rank", "matrix rank"))})
MISSING.update({
    "GradientTape": f"tf.GradientTape records eager TF2 code; {_GRAPH_MODE} (plain symgrad, "
                    "`import symgrad as sg`, has sg.gradients and sg.jacobian)",
    "function": f"tf.function traces TF2 eager functions; {_GRAPH_MODE} (sg.compile compiles "
                "the graph's values and gradients)",
    "enable_eager_execution": f"eager execution is not supported; {_GRAPH_MODE}",
    "enable_v2_behavior": f"TF2 behaviour is not supported; {_GRAPH_MODE}",
    "train.import_meta_graph": _REBUILD,
    "train.export_meta_graph": _REBUILD,
    "saved_model": _REBUILD,
    "graph_util": _REBUILD,
    "nn.ctc_loss": "CTC loss is not supported (its alignment sum is a dynamic program over "
                   "label paths); use a per-frame loss such as "
                   "tf.nn.sparse_softmax_cross_entropy_with_logits",
})
_QUEUES = ("TF1's queue-based input pipelines are not supported; feed numpy arrays "
           "through tf.data: ds = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(n)"
           ".batch(b).repeat(); x_batch, y_batch = ds.make_one_shot_iterator().get_next()")
for _name in ("train.slice_input_producer", "train.string_input_producer",
              "train.input_producer", "train.batch",
              "train.shuffle_batch", "train.batch_join", "train.shuffle_batch_join",
              "train.maybe_batch", "train.maybe_shuffle_batch", "train.QueueRunner",
              "train.add_queue_runner", "train.queue_runner", "FIFOQueue",
              "RandomShuffleQueue", "PaddingFIFOQueue", "PriorityQueue", "QueueBase",
              "queue", "TextLineReader", "TFRecordReader", "WholeFileReader",
              "FixedLengthRecordReader"):
    MISSING[_name] = _QUEUES
for _name in ("image.decode_png", "image.decode_jpeg", "image.decode_image", "image.decode_gif",
              "image.decode_bmp", "image.encode_png", "image.encode_jpeg", "io.decode_png",
              "io.decode_jpeg", "io.decode_image", "io.encode_png", "io.encode_jpeg"):
    MISSING[_name] = ("encoded images are string tensors, and symgrad tensors hold numbers; "
                      "decode the bytes in Python (an image library such as PIL or "
                      "imageio, or matplotlib.image.imread) and feed the pixel array")
for _name in ("read_file", "io.read_file", "gfile.GFile.read_tensor", "write_file"):
    MISSING[_name] = ("file contents are string tensors, and symgrad tensors hold numbers; "
                      "read the file in Python (np.load, np.loadtxt, an image library for "
                      "images) and feed the arrays")
_STRINGS = ("symgrad tensors hold real numbers, so string tensors are not supported; map "
            "text to integer ids in Python before feeding (a dict, or "
            "tf.keras.preprocessing.text.Tokenizer) and look the ids up with "
            "tf.nn.embedding_lookup or tf.one_hot")
for _name in ("strings", "string_split", "as_string", "string_to_number", "string_join",
              "substr", "regex_replace", "decode_raw", "decode_csv", "decode_base64",
              "encode_base64", "lookup", "io.decode_raw",
              "io.decode_csv", "io.parse_example", "io.parse_single_example", "parse_example",
              "parse_single_example", "FixedLenFeature", "VarLenFeature", "io.FixedLenFeature",
              "io.VarLenFeature"):
    MISSING[_name] = _STRINGS
_DISTRIBUTED = ("distributed TensorFlow (clusters, servers, parameter servers, replicas) "
                "is not supported: symgrad runs the graph in one process; drop the cluster "
                "code, build the model once and run it in a plain tf.Session")
for _name in ("train.ClusterSpec", "train.Server", "train.replica_device_setter",
              "train.SyncReplicasOptimizer", "distribute"):
    MISSING[_name] = _DISTRIBUTED
MISSING["decode_csv"] = MISSING["io.decode_csv"] = (
    "string tensors are not supported: parse the CSV in Python (np.loadtxt, np.genfromtxt "
    "or the csv module) and feed the columns as numbers")
MISSING["feature_column"] = (
    "of tf.feature_column, symgrad has numeric_column, bucketized_column, "
    "categorical_column_with_identity, categorical_column_with_vocabulary_list (integer "
    "vocabularies), weighted_categorical_column, indicator_column, embedding_column, "
    "shared_embedding_columns, input_layer and linear_model; "
    "build other inputs in the model_fn with tf.one_hot and tf.nn.embedding_lookup")
for _name in ("TFRecordDataset", "FixedLengthRecordDataset", "TFRecordWriter"):
    MISSING["data." + _name] = MISSING["data.TextLineDataset"]


class Namespace(types.SimpleNamespace):
    """A TF1 namespace (``tf.nn``, ``tf.train``, ...) whose missing names say so by name."""

    prefix = ""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise missing(f"{self.prefix}.{name}")


def namespace(prefix, _plain=False, **items):
    """A :class:`Namespace` for ``tf.<prefix>`` holding ``items`` (functions made to give
    TF1 tensors, unless ``_plain``: file functions and the like)."""
    if not _plain:
        items = {k: tf1_results(v) for k, v in items.items()}
    return type(f"tf.{prefix}", (Namespace,), {"prefix": prefix})(**items)


def missing(name):
    """The AttributeError for a TF1 name symgrad does not have."""
    parts = name.split(".")   # the longest known prefix: tf.contrib.layers.x, tf.keras.y.z
    why = next((MISSING[p] for p in (".".join(parts[:n]) for n in range(len(parts), 0, -1))
                if p in MISSING), None)
    if why is None:
        where, _, last = name.rpartition(".")
        owner = f"tf.{where}" if where else "module 'tensorflow' (symgrad.compat.v1)"
        listing = f"dir(tf.{where})" if where else "dir(tf)"
        return AttributeError(
            f"{owner} has no attribute {last!r} in symgrad: it is not implemented; build it "
            f"from the ops symgrad has ({listing} lists them) or compute the value with "
            f"numpy outside the graph and feed it")
    return AttributeError(f"tf.{name}: {why}")
