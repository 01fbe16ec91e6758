"""Top-level and tf.math names added for breadth (tf.asinh, tf.repeat, tf.dynamic_stitch, tf.ensure_shape, tf.get_local_variable, ...): values and gradients against TensorFlow.

The numbers in ``TF`` were printed by TensorFlow 2.21 (``tensorflow.compat.v1``, graph
mode) running the same case functions."""
# flake8: noqa: E501
import numpy as np

def _grad(tf, y, x):
    return tf.gradients(y, x)[0]

def c_hyper(tf):
    x = tf.constant([-3.0, -0.5, 0.0, 1e-4, 0.7, 4.0])
    z = tf.constant([1.0, 1.5, 3.0, 20.0])
    w = tf.constant([-0.9, -0.2, 0.0, 0.3, 0.95])
    c = tf.constant([1.0, 2.0, 3.0, 0.5, -1.0, 2.0])
    a, b, t = tf.asinh(x), tf.math.acosh(z), tf.atanh(w)
    return {"asinh": a, "acosh": b, "atanh": t, "ga": _grad(tf, a * c, x),
            "gb": _grad(tf, b, z), "gt": _grad(tf, t, w),
            "gg": _grad(tf, _grad(tf, tf.asinh(x) * c, x), x)}

def c_xor(tf):
    a = tf.constant([True, True, False, False]); b = tf.constant([True, False, True, False])
    return {"x": tf.logical_xor(a, b), "m": tf.math.logical_xor(a, b)}

def c_reverse(tf):
    x = tf.constant(np.arange(12.0).reshape(3, 4).astype(np.float32))
    y = tf.reverse_v2(x, [1]); c = tf.constant(np.arange(1, 13.0).reshape(3, 4).astype(np.float32))
    return {"y": y, "g": _grad(tf, y * c, x)}

def c_repeat(tf):
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    a = tf.repeat(x, 2); b = tf.repeat(x, [1, 3], axis=0); d = tf.repeat(x, [2, 0], axis=1)
    w = tf.constant(np.arange(1.0, 9.0).astype(np.float32))
    return {"a": a, "b": b, "d": d, "g": _grad(tf, tf.reduce_sum(a * w) + tf.reduce_sum(b * b), x)}

def c_stack_shape(tf):
    x = tf.constant([1.0, 2.0]); y = tf.constant([3.0, 4.0])
    s = tf.parallel_stack([x, y])
    sn = tf.shape_n([x, tf.zeros([2, 3, 1])])
    return {"s": s, "sn0": sn[0], "sn1": sn[1]}

def c_clip_avg(tf):
    x = tf.constant([[3.0, -4.0], [1.0, 2.0]])
    y1 = tf.clip_by_average_norm(x, 0.5); y2 = tf.clip_by_average_norm(x, 5.0)
    c = tf.constant([[1.0, 2.0], [-1.0, 0.5]])
    return {"y1": y1, "y2": y2, "g1": _grad(tf, y1 * c, x), "g2": _grad(tf, y2 * c, x)}

def c_saturate(tf):
    x = tf.constant([-1e10, -3.7, 0.5, 300.0, 1e10])
    return {"u8": tf.saturate_cast(x, tf.uint8), "i32": tf.saturate_cast(x, tf.int32),
            "i8": tf.saturate_cast(tf.constant([-200, 5, 300]), tf.int8),
            "f16": tf.saturate_cast(tf.constant([1e6, -1e6, 2.5]), tf.float16)}

def c_unravel(tf):
    return {"a": tf.unravel_index([7, 0, 23], [2, 3, 4]), "b": tf.unravel_index(5, [3, 4])}

def c_stitch(tf):
    d0 = tf.constant([[1.0, 2.0], [3.0, 4.0]]); d1 = tf.constant([[5.0, 6.0], [7.0, 8.0], [9.0, 10.0]])
    m = tf.dynamic_stitch([[0, 3], [1, 2, 0]], [d0, d1])
    w = tf.constant(np.arange(1.0, 9.0).reshape(4, 2).astype(np.float32))
    x = tf.constant([10.0, 20.0, 30.0, 40.0, 50.0])
    parts = tf.dynamic_partition(x, [0, 1, 0, 1, 1], 2)
    idx = tf.dynamic_partition(tf.range(5), [0, 1, 0, 1, 1], 2)
    back = tf.dynamic_stitch(idx, [parts[0] * 2.0, parts[1]])
    return {"m": m, "g0": _grad(tf, m * w, d0), "g1": _grad(tf, m * w, d1), "back": back,
            "gx": _grad(tf, back * [1.0, 2.0, 3.0, 4.0, 5.0], x)}

def c_hist(tf):
    v = tf.constant([-1.0, 0.0, 1.5, 2.0, 5.0, 15.0, 4.99, 3.3])
    return {"h": tf.histogram_fixed_width(v, [0.0, 5.0], nbins=5),
            "h2": tf.histogram_fixed_width(v, tf.constant([0.0, 10.0]), nbins=3)}

def c_eucl(tf):
    x = tf.constant([[3.0, 4.0], [0.0, 0.0], [1.0, -2.0]])
    a = tf.math.reduce_euclidean_norm(x); b = tf.math.reduce_euclidean_norm(x, 1, keepdims=True)
    return {"a": a, "b": b, "ga": _grad(tf, a, x), "gb": _grad(tf, b * [[1.0], [2.0], [3.0]], x)}

def c_misc_math(tf):
    x = tf.constant([0.5, 1.5, 2.5, -0.5, -1.7, 0.0])
    data = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    sm = tf.math.segment_mean(data, [0, 0, 1]); um = tf.math.unsorted_segment_mean(data, [2, 0, 2], 3)
    return {"rint": tf.math.rint(x), "zf": tf.math.zero_fraction(x), "sm": sm, "um": um,
            "g": _grad(tf, tf.reduce_sum(sm * [[1.0, 2.0], [3.0, 4.0]]) + tf.reduce_sum(um * um), data)}

def c_shapes(tf):
    a = tf.broadcast_static_shape(tf.TensorShape([2, 1, 3]), tf.TensorShape([4, 1]))
    b = tf.broadcast_dynamic_shape(tf.constant([2, 1, 3]), tf.constant([4, 1]))
    x = tf.constant([[1.0, 2.0]])
    e = tf.ensure_shape(x, [1, 2])
    return {"a": lambda: a.as_list(), "b": b, "e": e, "ge": _grad(tf, e * 3.0, x),
            "dv": lambda: [tf.dimension_value(tf.Dimension(4)), tf.dimension_value(5),
                           tf.dimension_at_index(tf.TensorShape([3, 7]), 1).value],
            "sv": lambda: tf.get_static_value(tf.shape(tf.zeros([2, 3]))), "sc": lambda: tf.get_static_value(tf.constant([1.5, 2.0]))}

def c_locals(tf):
    v = tf.get_local_variable("counter", shape=[2], initializer=tf.zeros_initializer())
    up = tf.assign_add(v, [1.0, 2.0])
    return ({"v": v, "n": lambda: [len(tf.local_variables()), len(tf.trainable_variables())]},
            [tf.initialize_local_variables(), tf.tables_initializer(), tf.initialize_all_tables(), up, up])


NAN, INF = float("nan"), float("inf")
TF = {'clip_avg': {'g1': [[0.5477225, 0.4868645], [-0.3042903, 0.3042903]],
              'g2': [[1.0, 2.0], [-1.0, 0.5]],
              'y1': [[1.095445, -1.460593], [0.3651484, 0.7302967]],
              'y2': [[3.0, -4.0], [1.0, 2.0]]},
 'eucl': {'a': 5.477226,
          'b': [[5.0], [0.0], [2.236068]],
          'ga': [[0.5477225, 0.7302967], [0.0, 0.0], [0.1825742, -0.3651484]],
          'gb': [[0.6, 0.8], [NAN, NAN], [1.341641, -2.683281]]},
 'hist': {'h': [2, 1, 1, 1, 3], 'h2': [5, 2, 1]},
 'hyper': {'acosh': [0.0, 0.9624237, 1.762747, 3.688254],
           'asinh': [-1.818447, -0.4812118, 0.0, 0.0001, 0.6526666, 2.094712],
           'atanh': [-1.472219, -0.2027325, 0.0, 0.3095196, 1.831781],
           'ga': [0.3162277, 1.788854, 3.0, 0.5, -0.8192319, 0.4850713],
           'gb': [INF, 0.8944271, 0.3535534, 0.05006262],
           'gg': [0.09486831, 0.7155417, -0.0, -5e-05, 0.3848741, -0.1141344],
           'gt': [5.263156, 1.041667, 1.0, 1.098901, 10.25641]},
 'locals': {'n': [1, 0], 'v': [2.0, 4.0]},
 'misc_math': {'g': [[3.5, 5.0], [6.5, 9.0], [6.0, 8.0]],
               'rint': [0.0, 2.0, 2.0, -0.0, -2.0, 0.0],
               'sm': [[2.0, 3.0], [5.0, 6.0]],
               'um': [[3.0, 4.0], [0.0, 0.0], [3.0, 4.0]],
               'zf': 0.1666667},
 'repeat': {'a': [1.0, 1.0, 2.0, 2.0, 3.0, 3.0, 4.0, 4.0],
            'b': [[1.0, 2.0], [3.0, 4.0], [3.0, 4.0], [3.0, 4.0]],
            'd': [[1.0, 1.0], [3.0, 3.0]],
            'g': [[5.0, 11.0], [29.0, 39.0]]},
 'reverse': {'g': [[4.0, 3.0, 2.0, 1.0], [8.0, 7.0, 6.0, 5.0], [12.0, 11.0, 10.0, 9.0]],
             'y': [[3.0, 2.0, 1.0, 0.0], [7.0, 6.0, 5.0, 4.0], [11.0, 10.0, 9.0, 8.0]]},
 'saturate': {'f16': [65504.0, -65504.0, 2.5],
              'i32': [-2147483648, -3, 0, 300, 2147483520],
              'i8': [-128, 5, 127],
              'u8': [0, 0, 0, 255, 255]},
 'shapes': {'a': [2, 4, 3],
            'b': [2, 4, 3],
            'dv': [4, 5, 7],
            'e': [[1.0, 2.0]],
            'ge': [[3.0, 3.0]],
            'sc': [1.5, 2.0],
            'sv': [2, 3]},
 'stack_shape': {'s': [[1.0, 2.0], [3.0, 4.0]], 'sn0': [2], 'sn1': [2, 3, 1]},
 'stitch': {'back': [20.0, 20.0, 60.0, 40.0, 50.0],
            'g0': [[1.0, 2.0], [7.0, 8.0]],
            'g1': [[3.0, 4.0], [5.0, 6.0], [1.0, 2.0]],
            'gx': [2.0, 2.0, 6.0, 4.0, 5.0],
            'm': [[9.0, 10.0], [5.0, 6.0], [7.0, 8.0], [3.0, 4.0]]},
 'unravel': {'a': [[0, 0, 1], [1, 0, 2], [3, 0, 3]], 'b': [1, 1]},
 'xor': {'m': [False, True, True, False], 'x': [False, True, True, False]}}


import pytest  # noqa: E402

from tests.breadth_check import assert_matches, run_case  # noqa: E402


@pytest.mark.parametrize("case", sorted(TF))
def test_matches_tensorflow(case):
    got = run_case(globals()["c_" + case])
    for key, want in TF[case].items():
        assert_matches(got[key], want, f"{case}.{key}")
