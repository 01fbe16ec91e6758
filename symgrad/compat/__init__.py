"""Front ends that mimic other libraries' APIs; ``symgrad.compat.v1`` is TF1 graph mode.

>>> import symgrad.compat.v1 as tf
>>> tf.float32.name
'float32'
"""
