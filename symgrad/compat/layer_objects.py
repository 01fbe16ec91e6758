"""``tf.layers``' layer objects (``tf.layers.Conv2D(32, 3)``, ``MaxPooling2D``,
``Flatten``, ``Dropout``, ``BatchNormalization``, ...): each keeps the arguments of its
function in ``compat.layers`` and calls it, so values, variables and their names are
the function's.

The first call picks the layer's variable scope as the function would (``name``, or
``conv2d``, ``conv2d_1``, ... as TF counts them); later calls enter that scope again
with ``reuse=True``, so one object applied to two inputs shares its variables (a
siamese tower), as TF's layers do.  ``Dropout`` and ``BatchNormalization`` take
``training`` at the call.  (``tf.layers.Dense`` is ``compat.layers.Dense``.)

Sits in ``compat``; imports ``compat.layers``, ``scopes`` and ``variables``.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     conv = tf.layers.Conv2D(2, 3, padding="same")
...     a, b = conv(tf.ones([1, 4, 4, 1])), conv(tf.zeros([1, 4, 4, 1]))
...     print(a.shape, [v.name for v in tf.trainable_variables()])
(1, 4, 4, 2) ['conv2d/kernel:0', 'conv2d/bias:0']
"""
from __future__ import annotations

from . import layers as _layers
from .scopes import variable_scope
from .variables import VariableOwner

__all__ = ["Conv1D", "Conv2D", "SeparableConv2D", "Conv2DTranspose", "MaxPooling1D", "MaxPooling2D",
           "AveragePooling1D", "AveragePooling2D", "Flatten", "Dropout",
           "BatchNormalization"]


class _Layer(VariableOwner):
    """A layer object over ``function`` (a ``compat.layers`` function); subclasses name
    it, its default scope and whether it takes ``training``."""

    function = staticmethod(lambda inputs, **kwargs: inputs)
    default_name = "layer"
    has_variables = True
    takes_training = False

    def __init__(self, *args, name=None, **kwargs):
        self._args, self._kwargs, self.name = args, kwargs, name
        self._scope, self._variables = None, []

    def __call__(self, inputs, training=None, **kwargs):
        kwargs = dict(self._kwargs, **kwargs)
        if self.takes_training and training is not None:
            kwargs["training"] = training
        if not self.has_variables:
            return type(self).function(inputs, *self._args, name=self.name, **kwargs)
        if self._scope is None:   # (TF's unique layer name, taken once)
            with variable_scope(self.name, default_name=self.default_name) as scope:
                self._scope = scope
            reuse = None
        else:
            reuse = True
        return self._making(lambda: type(self).function(
            inputs, *self._args, name=self._scope, reuse=reuse, **kwargs))

    apply = __call__
    weights = VariableOwner.variables   # (the variables the layer made, once called)
    trainable_weights = VariableOwner.trainable_variables


def _layer(class_name, function, default_name, has_variables=True, takes_training=False):
    return type(class_name, (_Layer,), {
        "function": staticmethod(function), "default_name": default_name,
        "has_variables": has_variables, "takes_training": takes_training,
        "__doc__": f"``tf.layers.{class_name}``: a callable ``tf.layers.{function.__name__}``."})


Conv1D = _layer("Conv1D", _layers.conv1d, "conv1d")
Conv2D = _layer("Conv2D", _layers.conv2d, "conv2d")
SeparableConv2D = _layer("SeparableConv2D", _layers.separable_conv2d, "separable_conv2d")
Conv2DTranspose = _layer("Conv2DTranspose", _layers.conv2d_transpose, "conv2d_transpose")
BatchNormalization = _layer("BatchNormalization", _layers.batch_normalization,
                            "batch_normalization", takes_training=True)
MaxPooling1D = _layer("MaxPooling1D", _layers.max_pooling1d, "max_pooling1d", False)
MaxPooling2D = _layer("MaxPooling2D", _layers.max_pooling2d, "max_pooling2d", False)
AveragePooling1D = _layer("AveragePooling1D", _layers.average_pooling1d, "average_pooling1d",
                          False)
AveragePooling2D = _layer("AveragePooling2D", _layers.average_pooling2d, "average_pooling2d",
                          False)
Flatten = _layer("Flatten", _layers.flatten, "flatten", False)
Dropout = _layer("Dropout", _layers.dropout, "dropout", False, takes_training=True)
