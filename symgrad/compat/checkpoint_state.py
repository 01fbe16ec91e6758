"""TF's ``checkpoint`` state file and the functions that read it: which checkpoints a
directory holds and which is the latest (``get_checkpoint_state``,
``latest_checkpoint``, ``update_checkpoint_state``, ``checkpoints_iterator``).

The file is a text protobuf, one line a field: ``model_checkpoint_path: "<prefix>"``,
then ``all_model_checkpoint_paths: "<prefix>"`` for each checkpoint kept, oldest first.
Paths are written as TF writes them: as given when the directory was given absolute,
else relative to the directory.

Sits in ``compat``; imports ``compat.tensor_bundle`` and ``checkpoint_v1`` (to tell
whether a checkpoint exists).

>>> import tempfile
>>> folder = tempfile.mkdtemp()
>>> update_checkpoint_state(folder, folder + "/m-3")
>>> latest_checkpoint(folder) is None   # named, but no checkpoint files there
True
>>> get_checkpoint_state(folder).model_checkpoint_path == folder + "/m-3"
True
"""
from __future__ import annotations

import os
import time

from . import tensor_bundle
from .checkpoint_v1 import is_v1_checkpoint

__all__ = ["CheckpointState", "get_checkpoint_state", "latest_checkpoint",
           "update_checkpoint_state", "checkpoints_iterator", "checkpoint_exists",
           "note_latest", "npz_file"]

_INDEX = "checkpoint"   # TF's name for the file naming a directory's latest checkpoint


def npz_file(path):
    """The ``.npz`` file an older symgrad's ``Saver`` wrote for ``path``."""
    return path if path.endswith(".npz") else path + ".npz"


def _found(prefix):
    """Whether a checkpoint (TF's format, its V1 format, or an older symgrad's ``.npz``)
    is at ``prefix``."""
    return (tensor_bundle.bundle_exists(prefix) or os.path.isfile(npz_file(prefix))
            or is_v1_checkpoint(prefix))


def _state_path(path, save_dir):
    """A checkpoint path as TF records it: kept when the directory was given absolute
    (or the path is), else relative to the directory."""
    if os.path.isabs(save_dir) or os.path.isabs(path):
        return path
    return os.path.relpath(path, save_dir or os.curdir)


def note_latest(path, kept, latest_filename=None, relative=False):
    """Record ``path`` as its directory's latest checkpoint, with the ones ``kept``
    (TF's ``checkpoint`` file, read back by :func:`get_checkpoint_state`)."""
    save_dir = os.path.dirname(path)
    if relative:
        paths = [os.path.relpath(p, save_dir or os.curdir) for p in [path] + kept]
    else:
        paths = [_state_path(p, save_dir) for p in [path] + kept]
    _write_state(save_dir, paths, latest_filename)


def _write_state(save_dir, paths, latest_filename):
    """The state file: ``paths[0]`` the latest checkpoint, ``paths[1:]`` those kept."""
    lines = [f'model_checkpoint_path: "{paths[0]}"'] + [
        f'all_model_checkpoint_paths: "{p}"' for p in paths[1:]]
    with open(os.path.join(save_dir, latest_filename or _INDEX), "w") as f:
        f.write("\n".join(lines) + "\n")


def update_checkpoint_state(save_dir, model_checkpoint_path, all_model_checkpoint_paths=None,
                            latest_filename=None, all_model_checkpoint_timestamps=None,
                            last_preserved_timestamp=None):
    """``tf.train.update_checkpoint_state``: write ``save_dir``'s state file naming
    ``model_checkpoint_path`` as the latest (added at the end of the others if not
    there), paths written as TF writes them; the timestamps are not kept."""
    save_dir, latest = str(save_dir), str(model_checkpoint_path)
    kept = [str(p) for p in all_model_checkpoint_paths or []]
    if not kept or kept[-1] != latest:
        kept.append(latest)
    _write_state(save_dir, [_state_path(p, save_dir) for p in [latest] + kept],
                 latest_filename)


def checkpoints_iterator(checkpoint_dir, min_interval_secs=0, timeout=None, timeout_fn=None):
    """``tf.train.checkpoints_iterator``: yield ``checkpoint_dir``'s latest checkpoint,
    then each newer one as it appears (polling each second), at most one every
    ``min_interval_secs``; stop when none comes within ``timeout`` seconds (never, with
    ``None``) unless ``timeout_fn()`` says to wait on."""
    last = None
    while True:
        found = _wait_for_new(str(checkpoint_dir), last, timeout)
        if found is None:
            if timeout_fn is None or timeout_fn():
                return
            continue
        started, last = time.time(), found
        yield found
        time.sleep(max(0.0, min_interval_secs - (time.time() - started)))


def _wait_for_new(checkpoint_dir, last, timeout):
    """The directory's latest checkpoint once it differs from ``last``, or None after
    ``timeout`` seconds."""
    stop = None if timeout is None else time.time() + timeout
    while True:
        found = latest_checkpoint(checkpoint_dir)
        if found is not None and found != last:
            return found
        if stop is not None and time.time() + 1 > stop:
            return None
        time.sleep(1)


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
