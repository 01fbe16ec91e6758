"""``slim.utils``: the helpers TF-Slim's model code calls (end points, shape checks).

- ``collect_named_outputs(collections, alias, outputs)`` / ``append_tensor_alias``:
  a tensor joins collections under an alias; ``convert_collection_to_dict(collection)``
  gives ``{alias: tensor}`` back (a model's end points), ``get_tensor_aliases`` and
  ``gather_tensors_aliases`` the aliases;
- ``last_dimension(shape, min_rank=1)``, ``channel_dimension(shape, data_format)``: a
  known size of a static shape, else TF's ValueError; ``two_element_tuple(v)``;
- ``analyze_vars(variables, print_info)`` (``slim.model_analyzer``): the variables'
  total size and bytes, printed as TF-Slim prints them.

Imports the compat variables and slim_layers (where the layers collect their outputs).

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     t = collect_named_outputs("ends", "net/conv1", tf.zeros([1, 3, 3, 8]))
...     print(list(convert_collection_to_dict("ends")), last_dimension(t.get_shape(), 4))
['net/conv1'] 8
"""
from __future__ import annotations

import collections as _collections

from .slim_layers import collect_named_outputs
from .variables import Variable, get_collection, get_collection_ref

__all__ = ["collect_named_outputs", "append_tensor_alias", "get_tensor_aliases",
           "gather_tensors_aliases", "convert_collection_to_dict", "get_variable_collections",
           "last_dimension", "channel_dimension", "two_element_tuple"]
ANALYZER = ["tensor_description", "analyze_vars"]


def append_tensor_alias(tensor, alias):
    """Add ``alias`` (without a trailing "/") to ``tensor.aliases``."""
    tensor.aliases = (getattr(tensor, "aliases", None) or []) + [alias.rstrip("/")]
    return tensor


def get_tensor_aliases(tensor):
    """The tensor's aliases (its op name when it has none)."""
    return getattr(tensor, "aliases", None) or [tensor.name.split(":")[0]]


def gather_tensors_aliases(tensors):
    return [alias for t in tensors for alias in get_tensor_aliases(t)]


def convert_collection_to_dict(collection, clear_collection=False):
    """{alias: tensor} of a collection that ``outputs_collections`` filled (a slim
    model's end points), in order."""
    found = _collections.OrderedDict()
    for tensor in get_collection(collection):
        for alias in getattr(tensor, "aliases", None) or []:
            found[alias] = tensor
    if clear_collection:
        del get_collection_ref(collection)[:]
    return found


def get_variable_collections(variables_collections, name):
    if isinstance(variables_collections, dict):
        return variables_collections.get(name)
    return variables_collections


def _dims(shape):
    dims = shape.as_list() if hasattr(shape, "as_list") else shape
    if dims is None:
        raise ValueError("dims of shape must be known but is None")
    return list(dims)


def _dimension(shape, at, min_rank):
    dims = _dims(shape)
    if len(dims) < min_rank:
        raise ValueError(f"rank of shape must be at least {min_rank} not: {len(dims)}")
    if dims[at] is None:
        raise ValueError(f"dimension {at} of shape must be known but is None: {dims}")
    return int(dims[at])


def last_dimension(shape, min_rank=1):
    """The last size of ``shape`` (known, and the rank at least ``min_rank``)."""
    return _dimension(shape, -1, min_rank)


def channel_dimension(shape, data_format, min_rank=1):
    """The channels' size: the last axis (NHWC), else the second."""
    return _dimension(shape, 1 if str(data_format).startswith(("NC", "channels_first"))
                      else -1, min_rank)


def two_element_tuple(int_or_tuple):
    """(h, w) from an int or a list of two."""
    if isinstance(int_or_tuple, (list, tuple)):
        if len(int_or_tuple) != 2:
            raise ValueError(f"Must be a list with 2 elements: {int_or_tuple}")
        return int(int_or_tuple[0]), int(int_or_tuple[1])
    if isinstance(int_or_tuple, int):
        return int(int_or_tuple), int(int_or_tuple)
    dims = _dims(int_or_tuple)
    if len(dims) == 2:
        return dims[0], dims[1]
    raise ValueError("Must be an int, a list with 2 elements or a TensorShape of length 2")


def tensor_description(var):
    """``(float32_ref 3x3x1x8)``: the dtype (a variable's is a reference type in TF1) and
    the shape."""
    dims = var.get_shape().as_list()
    dtype = var.dtype.name + ("_ref" if isinstance(var, Variable) else "")
    return f"({dtype} {'x'.join(str(d) for d in dims)})"


def analyze_vars(variables, print_info=False):
    """(total size, total bytes) of ``variables``; with ``print_info`` a line each."""
    if print_info:
        print("---------")
        print("Variables: name (type shape) [size]")
        print("---------")
    total_size = total_bytes = 0
    for var in variables:
        size = int(var.get_shape().num_elements() or 0)
        nbytes = size * var.dtype.itemsize
        total_size, total_bytes = total_size + size, total_bytes + nbytes
        if print_info:
            print(var.name, tensor_description(var), "[%d, bytes: %d]" % (size, nbytes))
    if print_info:
        print("Total size of variables: %d" % total_size)
        print("Total bytes of variables: %d" % total_bytes)
    return total_size, total_bytes
