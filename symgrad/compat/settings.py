"""What TF1 scripts set or ask about the runtime, none of which changes a value here:
``tf.__version__`` (``tf.VERSION``), ``tf.RunOptions``/``tf.RunMetadata`` (profiling
arguments of ``sess.run``), ``tf.GraphOptions``/``tf.OptimizerOptions`` (XLA's JIT
switch in a ``ConfigProto``), and ``tf.config.experimental``'s device queries (the TF
1.14-1.15 GPU memory-growth recipe: no GPU here, so the loop over GPUs does nothing);
``tf.AggregationMethod`` (how ``tf.gradients`` adds gradients: every method gives the
same sums here), ``tf.VariableSynchronization`` and ``tf.VariableAggregation``
(distributed-training arguments of ``tf.get_variable``/``tf.Variable``).

``tf.__version__`` is the TF1 API level ``compat.v1`` follows ("1.15.0"), so scripts
that branch on the version take their TF1 path; ``symgrad.__version__`` is symgrad's.

Sits in ``compat``; imports nothing of symgrad.

>>> import symgrad.compat.v1 as tf
>>> tf.__version__, tf.config.experimental.list_physical_devices("GPU")
('1.15.0', [])
"""
from __future__ import annotations

import collections
import types

__all__ = ["VERSION", "GIT_VERSION", "COMPILER_VERSION", "RunOptions", "RunMetadata",
           "GraphOptions", "OptimizerOptions", "config", "AggregationMethod",
           "VariableSynchronization", "VariableAggregation"]

VERSION = "1.15.0"
GIT_VERSION = "symgrad"
COMPILER_VERSION = "symgrad"


class _Settings:
    """Keyword settings kept as attributes (they change nothing in symgrad)."""

    def __init__(self, **settings):
        self.__dict__.update(settings)


class RunOptions(_Settings):
    """``tf.RunOptions(trace_level=...)``: accepted by ``sess.run(options=)``, ignored."""
    NO_TRACE, SOFTWARE_TRACE, HARDWARE_TRACE, FULL_TRACE = 0, 1, 2, 3


class RunMetadata(_Settings):
    """``tf.RunMetadata()``: ``sess.run(run_metadata=)`` leaves it empty (no step
    statistics: symgrad has no device timeline)."""

    def __init__(self, **settings):
        super().__init__(**settings)
        self.step_stats = None
        self.partition_graphs = []


class GraphOptions(_Settings):
    """``tf.GraphOptions(...)`` for a ``ConfigProto``: kept and ignored."""


class OptimizerOptions(_Settings):
    """``tf.OptimizerOptions(global_jit_level=...)``: kept and ignored."""
    DEFAULT, OFF, ON_1, ON_2 = 0, -1, 1, 2
    L1, L0 = 0, -1


PhysicalDevice = collections.namedtuple("PhysicalDevice", ["name", "device_type"])
_DEVICES = [PhysicalDevice("/physical_device:CPU:0", "CPU")]


def list_physical_devices(device_type=None):
    """The devices of that type: one CPU, no GPU."""
    return [d for d in _DEVICES if device_type is None or d.device_type == device_type]


def _ignored(*args, **kwargs):
    """Device settings (memory growth, visible devices): nothing to set."""


config = types.SimpleNamespace(
    list_physical_devices=list_physical_devices,
    list_logical_devices=list_physical_devices,
    set_visible_devices=_ignored,
    experimental=types.SimpleNamespace(
        list_physical_devices=list_physical_devices,
        list_logical_devices=list_physical_devices,
        set_memory_growth=_ignored, set_visible_devices=_ignored,
        set_virtual_device_configuration=_ignored))


class AggregationMethod:
    """``tf.AggregationMethod``: TF's values for ``tf.gradients(aggregation_method=)``."""
    ADD_N = DEFAULT = 0
    EXPERIMENTAL_TREE = 1
    EXPERIMENTAL_ACCUMULATE_N = 2


class VariableSynchronization:
    """``tf.VariableSynchronization``: when replicas sync a variable (one process here)."""
    AUTO, NONE, ON_WRITE, ON_READ = 0, 1, 2, 3


class VariableAggregation:
    """``tf.VariableAggregation``: how replicas' updates combine (one process here)."""
    NONE, SUM, MEAN, ONLY_FIRST_REPLICA, ONLY_FIRST_TOWER = 0, 1, 2, 3, 3
