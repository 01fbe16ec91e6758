"""``tf.train.Saver`` and the checkpoint helpers around it, in TF's own file format.

- ``Saver.save(sess, prefix)`` writes ``prefix.index`` and
  ``prefix.data-00000-of-00001`` (TF's V2 checkpoint, ``compat.tensor_bundle``), byte
  for byte what TF writes for the same variables, so TensorFlow restores it; and
  TF's ``checkpoint`` state file naming the directory's latest checkpoints.
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

Sits in ``compat``; imports numpy, ``compat.tensor_bundle``, ``checkpoint_v1``, ``errors`` and
``variables`` (a partitioned variable's parts carry ``_save_slice_info``, set by
``compat.partitioned``).
"""
from __future__ import annotations

import glob
import os

import numpy as np

from . import errors
from . import tensor_bundle
from .checkpoint_v1 import V1Checkpoint, is_v1_checkpoint
from . import variables as _variables

__all__ = ["Saver", "CheckpointState", "CheckpointReader", "get_checkpoint_state",
           "latest_checkpoint", "list_variables", "load_variable", "checkpoint_exists"]

_INDEX = "checkpoint"   # TF's name for the file naming a directory's latest checkpoint


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


def _npz_file(path):
    return path if path.endswith(".npz") else path + ".npz"


def _found(prefix):
    """Whether a checkpoint (TF's format, its V1 format, or an older symgrad's ``.npz``)
    is at ``prefix``."""
    return (tensor_bundle.bundle_exists(prefix) or os.path.isfile(_npz_file(prefix))
            or is_v1_checkpoint(prefix))


def _open(prefix):
    """The checkpoint at ``prefix`` opened for reading, or None if there is none."""
    if tensor_bundle.bundle_exists(prefix):
        return tensor_bundle.Bundle(prefix)
    if os.path.isfile(_npz_file(prefix)):
        return _NpzCheckpoint(_npz_file(prefix))
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
            _note_latest(path, self._written, latest_filename, self._relative)
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
    for path in [tensor_bundle.index_path(prefix), _npz_file(prefix), prefix + ".meta"] + \
            glob.glob(glob.escape(prefix) + ".data-?????-of-?????"):
        if os.path.isfile(path):
            os.remove(path)


def _state_path(path, save_dir):
    """A checkpoint path as TF records it: kept when the directory was given absolute
    (or the path is), else relative to the directory."""
    if os.path.isabs(save_dir) or os.path.isabs(path):
        return path
    return os.path.relpath(path, save_dir or os.curdir)


def _note_latest(path, kept, latest_filename=None, relative=False):
    """Record ``path`` as its directory's latest checkpoint, with the ones ``kept``
    (TF's ``checkpoint`` file, read back by :func:`get_checkpoint_state`)."""
    save_dir = os.path.dirname(path)
    if relative:
        paths = [os.path.relpath(p, save_dir or os.curdir) for p in [path] + kept]
    else:
        paths = [_state_path(p, save_dir) for p in [path] + kept]
    lines = [f'model_checkpoint_path: "{paths[0]}"'] + [
        f'all_model_checkpoint_paths: "{p}"' for p in paths[1:]]
    with open(os.path.join(save_dir, latest_filename or _INDEX), "w") as f:
        f.write("\n".join(lines) + "\n")


class CheckpointState:
    """``tf.train.get_checkpoint_state``'s answer: the latest checkpoint's path and all
    those kept (paths ``Saver.restore`` takes)."""

    def __init__(self, model_checkpoint_path, all_model_checkpoint_paths):
        self.model_checkpoint_path = model_checkpoint_path
        self.all_model_checkpoint_paths = list(all_model_checkpoint_paths)

    def __repr__(self):
        return f"model_checkpoint_path: {self.model_checkpoint_path!r}"


def get_checkpoint_state(checkpoint_dir, latest_filename=None):
    """``tf.train.get_checkpoint_state``: the state ``Saver.save`` (TF's or symgrad's)
    recorded in ``checkpoint_dir``, or None when there is none."""
    index = os.path.join(str(checkpoint_dir), latest_filename or _INDEX)
    try:
        with open(index) as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    found = {"model_checkpoint_path": [], "all_model_checkpoint_paths": []}
    for line in lines:
        key, _, value = line.partition(":")
        if key.strip() in found:
            name = value.strip().strip('"')
            found[key.strip()].append(
                name if os.path.isabs(name) else os.path.join(str(checkpoint_dir), name))
    if not found["model_checkpoint_path"]:
        return None
    return CheckpointState(found["model_checkpoint_path"][0],
                           found["all_model_checkpoint_paths"])


def latest_checkpoint(checkpoint_dir, latest_filename=None):
    """``tf.train.latest_checkpoint``: the prefix of the last checkpoint saved in
    ``checkpoint_dir`` (for ``restore``), or None if there is none."""
    state = get_checkpoint_state(checkpoint_dir, latest_filename)
    if state is None or not _found(state.model_checkpoint_path):
        return None
    return state.model_checkpoint_path


def checkpoint_exists(checkpoint_prefix):
    """``tf.train.checkpoint_exists``: whether a checkpoint was saved at ``checkpoint_prefix``."""
    return _found(str(checkpoint_prefix))


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
