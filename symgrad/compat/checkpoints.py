"""``tf.train.Saver`` and the checkpoint helpers around it, in TF's own file format.

- ``Saver.save(sess, prefix)`` writes ``prefix.index`` and
  ``prefix.data-00000-of-00001`` (TF's V2 checkpoint, ``compat.tensor_bundle``), byte
  for byte what TF writes for the same variables, so TensorFlow restores it; and
  TF's ``checkpoint`` state file naming the directory's latest checkpoints
  (``compat.checkpoint_state``).
  ``Saver.restore``, ``tf.train.load_checkpoint``/``NewCheckpointReader``,
  ``list_variables`` and ``load_variable`` read checkpoints TensorFlow wrote (also
  TF's older V1 format, one file at the prefix, ``compat.checkpoint_v1``), and the
  ``prefix.npz`` files older symgrad wrote.  The parts of a partitioned variable
  are saved as TF saves them, slices of one tensor under the whole's name, and restore
  from such a checkpoint whatever the partitioning (or none).
- symgrad differs: TF also writes ``prefix.meta``, a ``MetaGraphDef`` protobuf of the
  graph for ``tf.train.import_meta_graph``.  symgrad has no GraphDef to write, so it
  writes no ``.meta`` (``write_meta_graph`` is accepted and changes nothing): a
  program rebuilds its graph with its own code and restores the values into it, and
  a program that tests for ``prefix.index`` finds it.

Sits in ``compat``; imports numpy, ``compat.tensor_bundle``, ``checkpoint_v1``,
``checkpoint_state``, ``errors`` and ``variables`` (a partitioned variable's parts carry ``_save_slice_info``, set by
``compat.partitioned``).
"""
from __future__ import annotations

import glob
import os

import numpy as np

from . import errors
from . import tensor_bundle
from .session_values import acting
from .checkpoint_v1 import V1Checkpoint, is_v1_checkpoint
# (the state file's functions are tf.train names too; importable from here)
from .checkpoint_state import (CheckpointState, note_latest, npz_file,  # noqa: F401
                               checkpoint_exists, checkpoints_iterator,
                               get_checkpoint_state, latest_checkpoint,
                               update_checkpoint_state)
from . import variables as _variables

__all__ = ["Saver", "SaverDef", "CheckpointState", "CheckpointReader", "get_checkpoint_state",
           "latest_checkpoint", "list_variables", "load_variable", "checkpoint_exists",
           "update_checkpoint_state", "checkpoints_iterator"]


class _NpzCheckpoint:
    """A ``.npz`` file an older symgrad's ``Saver`` wrote, read like a ``Bundle``."""

    def __init__(self, file):
        with np.load(file) as data:
            self._values = {name: data[name] for name in sorted(data.files)}

    def names(self):
        return list(self._values)

    def __contains__(self, name):
        return name in self._values

    def shape(self, name):
        return list(self._values[name].shape)

    def dtype(self, name):
        return self._values[name].dtype

    def tensor(self, name):
        return self._values[name].copy()


def _open(prefix):
    """The checkpoint at ``prefix`` opened for reading, or None if there is none."""
    if tensor_bundle.bundle_exists(prefix):
        return tensor_bundle.Bundle(prefix)
    if os.path.isfile(npz_file(prefix)):
        return _NpzCheckpoint(npz_file(prefix))
    if is_v1_checkpoint(prefix):
        return V1Checkpoint(prefix)
    return None


_MISSING_KEY = ("Restoring from checkpoint failed. This is most likely due to a Variable "
                "name or other graph key that is missing from the checkpoint. Please ensure "
                "that you have not altered the graph expected based on the checkpoint. "
                "Original error:\n\n")
_MISMATCH = ("Restoring from checkpoint failed. This is most likely due to a mismatch "
             "between the current graph and the graph from the checkpoint. Please ensure "
             "that you have not altered the graph expected based on the checkpoint. "
             "Original error:\n\n")
# TF's names of dtypes in its restore errors
_TF_DTYPE_NAMES = {"float32": "float", "float64": "double", "float16": "half"}


class SaverDef:
    """``tf.train.SaverDef``'s checkpoint format versions, for ``Saver(write_version=)``.
    symgrad differs: it writes V2 whatever is asked (it reads V1 files)."""
    LEGACY, V1, V2 = 0, 1, 2


class Saver:
    """``tf.train.Saver(var_list=None, max_to_keep=5, ...)``: ``save(sess, prefix)`` /
    ``restore(sess, prefix)`` of the variables' values in TF's checkpoint format
    (module docstring).  ``var_list`` is a list of variables or a ``{name: variable}``
    dict (default: all global variables, each saved under its op name)."""

    def __init__(self, var_list=None, reshape=False, sharded=False, max_to_keep=5,
                 keep_checkpoint_every_n_hours=10000.0, name=None, restore_sequentially=False,
                 saver_def=None, builder=None, defer_build=False, allow_empty=False,
                 write_version=None, pad_step_number=False, save_relative_paths=False,
                 filename=None):
        self._keep, self._written = max_to_keep, []
        self._pad, self._relative = pad_step_number, save_relative_paths
        self._named = _saveables(var_list)

    def save(self, sess, save_path, global_step=None, latest_filename=None,
             meta_graph_suffix="meta", write_meta_graph=True, write_state=True,
             strip_default_attrs=False, save_debug_info=False):
        """Write the values (as ``sess`` has them) at ``save_path`` (``-<global_step>``
        appended when given) and return that prefix, as TF does.  No ``.meta`` is
        written (module docstring)."""
        path = str(save_path)
        if global_step is not None:
            step = int(_value(sess, global_step))
            path = f"{path}-{step:08d}" if self._pad else f"{path}-{step}"
        directory = os.path.dirname(path)
        if directory:
            os.makedirs(directory, exist_ok=True)
        tensor_bundle.write_bundle(path, _values(sess, self._named))
        self._written = [p for p in self._written if p != path] + [path]
        if self._keep:   # TF's max_to_keep: this saver's oldest checkpoints are deleted
            for old in self._written[:-self._keep]:
                _remove(old)
            self._written = self._written[-self._keep:]
        if write_state:
            note_latest(path, self._written, latest_filename, self._relative)
        return path

    @property
    def last_checkpoints(self):
        """The paths of the checkpoints this saver wrote and kept, oldest first (TF's)."""
        return list(self._written)

    def recover_last_checkpoints(self, checkpoint_paths):
        """Take ``checkpoint_paths`` (oldest first, as ``get_checkpoint_state`` lists
        them) as this saver's own, so that ``max_to_keep`` deletes them in turn (TF's)."""
        self._written = [str(p) for p in checkpoint_paths if checkpoint_exists(p)]

    def restore(self, sess, save_path):
        """Set the variables to the values saved at ``save_path`` (a prefix TF's or
        symgrad's ``save`` returned).

        Raises:
            ValueError: no checkpoint at ``save_path`` (TF's message).
            tf.errors.NotFoundError: it lacks one of the variables.
            tf.errors.InvalidArgumentError: a saved value's dtype or shape differs
                from its variable's.
        """
        path = "" if save_path is None else str(save_path)
        checkpoint = _open(path[:-4] if path.endswith(".npz") else path) if path else None
        if checkpoint is None:
            raise ValueError(f"The passed save_path is not a valid checkpoint: {path}")
        values = {}
        for name, parts in self._named.items():
            whole = _restored(checkpoint, name, parts[0], _whole_shape(parts))
            for v in parts:
                values[v] = np.array(whole[_place(v)])
        with acting(sess):   # (into sess's values: each session holds its own)
            for v, value in values.items():
                v.value = value
                sess.mark_initialized(v)


def _saveables(var_list):
    """``{checkpoint name: [variables]}``: a variable under its op name, the parts of a
    partitioned variable together under the whole's name (TF's keys)."""
    if isinstance(var_list, dict):
        return {name: list(v) if hasattr(v, "_get_variable_list") else [v]
                for name, v in var_list.items()}
    found = _variables.global_variables() if var_list is None else list(var_list)
    named = {}
    for v in found:
        for part in (v._get_variable_list() if hasattr(v, "_get_variable_list") else [v]):
            info = getattr(part, "_save_slice_info", None)
            named.setdefault(info.full_name if info else part.name.split(":")[0],
                             []).append(part)
    return named


def _values(sess, named):
    """``{name: numpy value or tensor_bundle.Sliced}`` of the variables, as ``sess`` has them."""
    flat = [v for parts in named.values() for v in parts]
    values = dict(zip(flat, sess.run(flat))) if flat else {}
    out = {}
    for name, parts in named.items():
        info = getattr(parts[0], "_save_slice_info", None)
        if info is None:
            out[name] = _as_saved(parts[0], values[parts[0]])
        else:
            out[name] = tensor_bundle.Sliced(info.full_shape, [
                (v._save_slice_info.var_offset, _as_saved(v, values[v])) for v in parts])
    return out


def _whole_shape(parts):
    info = getattr(parts[0], "_save_slice_info", None)
    return None if info is None else info.full_shape


def _place(variable):
    """The index of a variable's value in its saved tensor (all of it, or its slice)."""
    info = getattr(variable, "_save_slice_info", None)
    if info is None:
        return ()
    return tuple(slice(a, a + n) for a, n in zip(info.var_offset, info.var_shape))


def _value(sess, step):
    return step if isinstance(step, (int, np.integer)) else sess.run(step)


def _as_saved(variable, value):
    """``value`` in its variable's dtype (a run may give a Python number)."""
    dtype = getattr(variable, "dtype", None)
    return np.asarray(value) if dtype is None else np.asarray(value, dtype=dtype)


def _restored(checkpoint, name, variable, whole_shape=None):
    """The saved value under ``name`` for ``variable`` (or for the whole of
    ``whole_shape`` that it is a part of), checked as TF's restore checks it."""
    if name not in checkpoint:
        raise errors.NotFoundError(None, None, _MISSING_KEY +
                                   f"Key {name} not found in checkpoint")
    dtype, saved = np.dtype(variable.dtype), checkpoint.dtype(name)
    if saved != dtype:
        raise errors.InvalidArgumentError(None, None, _MISMATCH + (
            f"tensor_name = {name}; expected dtype {_tf_name(dtype)} does not equal "
            f"original dtype {_tf_name(saved)}"))
    value = checkpoint.tensor(name)
    shape = whole_shape if whole_shape is not None else (
        [int(n) for n in variable.shape] if None not in tuple(variable.shape) else None)
    if shape is not None and list(value.shape) != shape:
        raise errors.InvalidArgumentError(None, None, _MISMATCH + (
            f"Assign requires shapes of both tensors to match. lhs shape= {shape} "
            f"rhs shape= {list(value.shape)}"))
    return value


def _tf_name(dtype):
    return _TF_DTYPE_NAMES.get(dtype.name, dtype.name)


def _remove(prefix):
    """Delete the files of checkpoint ``prefix`` (TF's format, an old ``.npz``)."""
    for path in [tensor_bundle.index_path(prefix), npz_file(prefix), prefix + ".meta"] + \
            glob.glob(glob.escape(prefix) + ".data-?????-of-?????"):
        if os.path.isfile(path):
            os.remove(path)


def _reader(ckpt_dir_or_file):
    """The checkpoint at a prefix, or a directory's latest, opened (TF's errors)."""
    path = str(ckpt_dir_or_file)
    if os.path.isdir(path):
        found = latest_checkpoint(path)
        if found is None:
            raise ValueError(f"Couldn't find 'checkpoint' file or checkpoints in given "
                             f"directory {path}")
        path = found
    checkpoint = _open(path[:-4] if path.endswith(".npz") else path)
    if checkpoint is None:
        raise errors.NotFoundError(None, None, "Unsuccessful TensorSliceReader constructor: "
                                   f"Failed to find any matching files for {path}")
    return checkpoint


def list_variables(ckpt_dir_or_file):
    """``tf.train.list_variables``: ``(name, shape)`` of each value in the checkpoint (a
    prefix ``Saver.save`` returned, or its directory for the latest), sorted by name."""
    checkpoint = _reader(ckpt_dir_or_file)
    return sorted((name, checkpoint.shape(name)) for name in checkpoint.names())


def load_variable(ckpt_dir_or_file, name):
    """``tf.train.load_variable``: the saved value of variable ``name`` (``"w"`` or
    ``"w:0"``) as numpy, a numpy scalar for a scalar.

    Raises:
        tf.errors.NotFoundError: the checkpoint holds no such variable.
    """
    name = name[:-2] if name.endswith(":0") else name
    return CheckpointReader(ckpt_dir_or_file).get_tensor(name)


class CheckpointReader:
    """``tf.train.NewCheckpointReader(path)`` (``tf.train.load_checkpoint``): the saved
    values by variable name, each read when asked for."""

    def __init__(self, ckpt_dir_or_file):
        self._checkpoint = _reader(ckpt_dir_or_file)

    def get_variable_to_shape_map(self):
        return {name: self._checkpoint.shape(name) for name in self._checkpoint.names()}

    def get_variable_to_dtype_map(self):
        return {name: self._checkpoint.dtype(name) for name in self._checkpoint.names()}

    def has_tensor(self, tensor_str):
        return tensor_str in self._checkpoint

    def get_tensor(self, tensor_str):
        """The saved value of ``tensor_str`` (numpy; a numpy scalar for a scalar)."""
        if tensor_str not in self._checkpoint:
            raise errors.NotFoundError(None, None, f"Key {tensor_str} not found in checkpoint")
        value = self._checkpoint.tensor(tensor_str)
        return value[()] if value.ndim == 0 else value
