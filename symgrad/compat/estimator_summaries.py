"""What an Estimator writes for TensorBoard, as TF 1.x's does: while training, the
graph's summaries (with a ``loss`` scalar added when the ``model_fn`` made none) every
``save_summary_steps`` into ``model_dir``; after an evaluation, its metrics as
scalars at the checkpoint's global step into ``model_dir/eval`` (``eval_<name>`` for
a named one).

Sits in ``compat``; imports ``compat.summary``, ``train_hooks`` and ``variables``.
"""
from __future__ import annotations

import os

import numpy as np

from .summary import FileWriter, Summary, scalar
from .train_hooks import SummarySaverHook
from .variables import GraphKeys, get_collection


def training_hooks(loss, config, model_dir, scaffold):
    """The hooks that write the training summaries (none with ``save_summary_steps``
    unset); adds the ``loss`` scalar the way TF does."""
    names = {getattr(op, "name", None) for op in get_collection(GraphKeys.SUMMARIES)}
    if "scalar_loss" not in names:
        scalar("loss", loss)
    if not config.save_summary_steps or config.save_summary_steps <= 0:
        return []
    return [SummarySaverHook(save_steps=config.save_summary_steps, output_dir=model_dir,
                             scaffold=scaffold)]


def write_evaluation(model_dir, name, results):
    """The evaluation's numbers as scalars at its global step (TF skips the step)."""
    values = [Summary.Value(tag=key, simple_value=float(value))
              for key, value in results.items()
              if key != "global_step" and np.ndim(value) == 0 and
              isinstance(value, (float, int, np.floating, np.integer))]
    directory = os.path.join(model_dir, "eval" if not name else f"eval_{name}")
    with FileWriter(directory) as writer:
        writer.add_summary(Summary(value=values), int(results["global_step"]))
