"""The TF1 names added for breadth (what real programs call that symgrad lacked),
gathered for ``compat.v1`` from ``math_more``, ``shapes_more`` and the other ``*_more``
modules, and placed in ``tf.math``, ``tf.nn``, ``tf.linalg``, ``tf.image``,
``tf.metrics``, ``tf.losses``, ``tf.train``, ``tf.random`` and ``tf.distributions``.

Sits in ``compat`` under ``v1``, which star-imports it (last, so it only adds names).
"""
from __future__ import annotations

from . import math_more as _math_more
from . import shapes_more as _shapes_more
from .more_ops import zero_fraction as _zero_fraction
from .tensor import tf1_results
from .v1_ops import math
from ..tracing import round as _round
from ..tracing import segment_mean as _segment_mean
from ..tracing import unsorted_segment_mean as _unsorted_segment_mean

__all__ = list(_math_more.__all__) + list(_shapes_more.__all__)

for _module in (_math_more, _shapes_more):
    for _name in _module.__all__:
        globals()[_name] = tf1_results(getattr(_module, _name))

for _name in ("asinh", "acosh", "atanh", "logical_xor", "reduce_euclidean_norm",
              "saturate_cast", "unravel_index", "histogram_fixed_width", "dynamic_stitch"):
    setattr(math, _name, globals()[_name])
math.rint = tf1_results(_round)
math.zero_fraction = tf1_results(_zero_fraction)
math.segment_mean = tf1_results(_segment_mean)
math.unsorted_segment_mean = tf1_results(_unsorted_segment_mean)

from . import bessel as _bessel  # noqa: E402
from . import incomplete_beta as _incomplete_beta  # noqa: E402
from . import incomplete_gamma as _incomplete_gamma  # noqa: E402

for _module in (_incomplete_gamma, _incomplete_beta, _bessel):   # tf.igamma, tf.math.igamma
    for _name in _module.__all__:
        globals()[_name] = tf1_results(getattr(_module, _name))
        setattr(math, _name, globals()[_name])
    __all__ += list(_module.__all__)

from . import nn_more as _nn_more  # noqa: E402
from . import nn_volumes as _nn_volumes  # noqa: E402
from .v1_ops import nn  # noqa: E402

for _module in (_nn_more, _nn_volumes):
    for _name in _module.__all__:
        setattr(nn, _name, tf1_results(getattr(_module, _name)))

from . import linalg_more as _linalg_more  # noqa: E402
from . import matrix_exp as _matrix_exp  # noqa: E402
from .v1_ops import linalg  # noqa: E402
from ..tracing import global_norm as _global_norm, tensordot as _tensordot  # noqa: E402

for _name in _linalg_more.__all__:
    setattr(linalg, _name, tf1_results(getattr(_linalg_more, _name)))
linalg.expm = tf1_results(_matrix_exp.expm)
linalg.global_norm = tf1_results(_global_norm)
linalg.tensordot = tf1_results(_tensordot)
linalg.l2_normalize = nn.l2_normalize

from . import image_boxes as _image_boxes  # noqa: E402
from . import image_more as _image_more  # noqa: E402
from . import image_quality as _image_quality  # noqa: E402

extract_image_patches = tf1_results(_image_more.extract_image_patches)
__all__.append("extract_image_patches")


def place(**namespaces):
    """Add the breadth names to ``v1``'s own namespaces (``image=...``, ``metrics=...``;
    those made in ``v1`` itself, which this module cannot import)."""
    image = namespaces["image"]
    for module in (_image_more, _image_quality, _image_boxes):
        for name in module.__all__:
            setattr(image, name, tf1_results(getattr(module, name)))
    _place_metrics(namespaces["metrics"])
    _place_train(namespaces["train"])
    _place_random(namespaces["random"])
    _place_distributions(namespaces["distributions"])
    _place_sparse(namespaces["sparse"])

from . import losses as _losses  # noqa: E402
from . import losses_more as _losses_more  # noqa: E402
from . import metrics_at_k as _metrics_at_k  # noqa: E402
from . import metrics_more as _metrics_more  # noqa: E402

_losses.mean_pairwise_squared_error = _losses_more.mean_pairwise_squared_error


def _place_metrics(metrics):
    for module in (_metrics_more, _metrics_at_k):
        for name in module.__all__:
            setattr(metrics, name, tf1_results(getattr(module, name)))

from . import train_more as _train_more  # noqa: E402


def _place_train(train):
    for name in _train_more.__all__:
        setattr(train, name, tf1_results(getattr(_train_more, name)))
    for name in _train_hooks.__all__ + _supervisor.__all__:
        setattr(train, name, getattr(_train_hooks, name, None) or getattr(_supervisor, name))

from . import random_more as _random_more  # noqa: E402
from .distributions import multinomial as _multinomial  # noqa: E402

from .runtime import namespace as _namespace  # noqa: E402

nn.experimental = _namespace("nn.experimental",
                             stateless_dropout=_random_more.stateless_dropout)
random_gamma = tf1_results(_random_more.gamma)
random_poisson = tf1_results(_random_more.poisson)
__all__ += ["random_gamma", "random_poisson"]


def _place_random(random):
    for name in _random_more.__all__:
        setattr(random, name, tf1_results(getattr(_random_more, name)))
    random.multinomial = tf1_results(_multinomial)

from . import distributions_more as _distributions_more  # noqa: E402


def _place_distributions(distributions):
    for name in _distributions_more.__all__:
        setattr(distributions, name, getattr(_distributions_more, name))

from . import special_more as _special_more  # noqa: E402

for _name in _special_more.__all__:
    setattr(math, _name, tf1_results(getattr(_special_more, _name)))

from . import nn_adjoints as _nn_adjoints  # noqa: E402

for _name in _nn_adjoints.__all__:
    if not _name.endswith("_v2") or _name.startswith("conv3d"):   # (the 2-D _v2: top level)
        setattr(nn, _name, tf1_results(getattr(_nn_adjoints, _name)))
conv2d_backprop_filter_v2 = tf1_results(_nn_adjoints.conv2d_backprop_filter_v2)
conv2d_backprop_input_v2 = tf1_results(_nn_adjoints.conv2d_backprop_input_v2)
__all__ += ["conv2d_backprop_filter_v2", "conv2d_backprop_input_v2"]

from . import space_batch as _space_batch  # noqa: E402

for _name in _space_batch.__all__:
    globals()[_name] = tf1_results(getattr(_space_batch, _name))
__all__ += list(_space_batch.__all__)
nn.space_to_batch = tf1_results(_space_batch.space_to_batch)

from . import nn_windows as _nn_windows  # noqa: E402

for _name in _nn_windows.__all__:
    setattr(nn, _name, tf1_results(getattr(_nn_windows, _name)))

from . import graph_api_more as _graph_api_more  # noqa: E402

for _name in _graph_api_more.__all__:
    globals()[_name] = tf1_results(getattr(_graph_api_more, _name))
__all__ += list(_graph_api_more.__all__)

from . import supervisor as _supervisor  # noqa: E402
from . import train_hooks as _train_hooks  # noqa: E402

from . import sparse_more as _sparse_more  # noqa: E402

for _name in _sparse_more.__all__:
    globals()[_name] = tf1_results(getattr(_sparse_more, _name))
__all__ += list(_sparse_more.__all__)


def _place_sparse(sparse):
    """tf.sparse.reorder, ...: the names without ``sparse_`` (``segment_sum``...)."""
    for name in _sparse_more.__all__:
        if name != "sparse_to_dense":
            setattr(sparse, name[len("sparse_"):], globals()[name])
