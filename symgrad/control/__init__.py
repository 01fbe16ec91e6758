"""Control flow: ``cond``, ``while_loop``, ``map_fn``, ``scan`` with sub-graphs (TF's functional ops).

``function`` traces Python callables into sub-graphs, ``ops`` registers the control
ops (evaluation, closed forms and derivative rules, all as more graph) and ``api``
holds the functions users call.  Sits above ``differentiate``: the control ops'
derivative rules differentiate their sub-graphs.
"""
from . import batching, ops, tangents  # noqa: F401  (registration; batching, forward-mode rules)
from .api import cond, map_fn, scan, while_loop  # noqa: F401
from .ops import DataDependentLoop  # noqa: F401

__all__ = ["cond", "while_loop", "map_fn", "scan", "DataDependentLoop"]
