"""Every public op function checks its arity and argument kinds before it builds anything.

Regression tests for issue 9: ``sg.sin(x, y)`` and ``add(x, y, z)`` were taken, and
the reference evaluator handed the extra tensor to numpy as ``out=``, overwriting a
Variable; ``keepdims=2``, ``axis=True`` and ``axis=0.5`` were accepted.
"""
import inspect

import numpy as np
import pytest
from hypothesis import given, settings

import symgrad as sg
from symgrad import tracing
from symgrad.tracing import functions

from .programs import programs


@pytest.fixture
def xy():
    with sg.Graph().as_default():
        yield sg.Variable([1.0, 2.0], name="x"), sg.Variable([7.0, 8.0], name="y")


def test_an_extra_tensor_is_an_error_naming_the_function(xy):
    x, y = xy
    with pytest.raises(sg.ArgumentTypeError, match=r"sin\(x, name=None\) takes 1 tensor "):
        sg.sin(x, y)
    with pytest.raises(sg.ArgumentTypeError, match=r"add\(x, y, name=None\) takes 2 tensor"):
        sg.add(x, y, x)
    with pytest.raises(sg.ArgumentTypeError, match="trace"):
        sg.trace(x, x)


def test_parse_of_log_x_y_no_longer_overwrites_y(xy):
    x, y = xy
    with pytest.raises(sg.ParseError, match="log"):
        sg.parse("log(x, y)", {"x": x, "y": y})
    np.testing.assert_array_equal(sg.evaluate(y), [7.0, 8.0])


def test_an_op_applied_to_too_many_inputs_is_refused_below_the_public_layer(xy):
    x, y = xy
    with pytest.raises(sg.ArgumentTypeError, match="log takes 1 input"):
        sg.ops.apply("log", [x, y])
    np.testing.assert_array_equal(sg.evaluate(y), [7.0, 8.0])


@pytest.mark.parametrize("kwargs, message", [
    ({"axis": True}, "axis must be an int or a list of ints, not bool"),
    ({"axis": 0.5}, "axis must be an int or a list of ints, not float"),
    ({"axis": [0, 1.0]}, "axis must be"),
    ({"keepdims": 2}, "keepdims must be a bool"),
    ({"keepdims": "yes"}, "keepdims must be a bool"),
    ({"name": 3}, "name must be a string"),
])
def test_argument_kinds_are_checked(xy, kwargs, message):
    x, _ = xy
    for fn in (sg.reduce_sum, sg.reduce_max, sg.reduce_logsumexp, sg.reduce_mean):
        with pytest.raises(sg.ArgumentTypeError, match=message):
            fn(x, **kwargs)


def test_good_kinds_still_pass(xy):
    x, _ = xy
    assert sg.reduce_sum(x, axis=np.int64(0), keepdims=np.True_).shape == (1,)
    assert sg.reduce_sum(x, axis=[0]).shape == ()
    assert sg.reduce_sum(x, axis=np.array([0])).shape == ()
    assert sg.matmul(sg.reshape(x, (1, 2)), x, transpose_a=False).shape == (1,)


def test_positional_keepdims_zero_is_refused(xy):
    # CLI "logsumexp(x,0,0,0)" gave AttributeError from deep inside SymPy.
    x, _ = xy
    with pytest.raises(sg.ArgumentTypeError, match="keepdims"):
        sg.logsumexp(x, 0, 0, 0)


def test_every_public_function_is_checked():
    # functions.py's go through _public/_elementwise; nn, linalg, math_ops, arrays and
    # conv through check_module at the package's import.
    spaces = [("sg", sg, tracing.TENSOR_FUNCTIONS), ("sg.nn", sg.nn, sg.nn.__all__),
              ("sg.linalg", sg.linalg, sg.linalg.__all__), ("functions", functions,
                                                           functions.__all__)]
    for prefix, space, names in spaces:
        for name in names:
            fn = getattr(space, name)
            if inspect.isfunction(fn):
                assert inspect.unwrap(fn) is not fn, f"{prefix}.{name} skips the checks"


def test_functions_outside_functions_py_are_checked_too(xy):
    x, y = xy
    with pytest.raises(sg.ArgumentTypeError, match="relu6"):
        sg.nn.relu6(x, y)
    with pytest.raises(sg.ArgumentTypeError, match="floor"):
        sg.floor(x, y)
    with pytest.raises(sg.ArgumentTypeError, match="keepdims must be a bool"):
        sg.nn.moments(x, [0], None, 1)


@settings(max_examples=30, deadline=None)
@given(programs(max_steps=10))
def test_random_programs_draw_wrong_calls_that_raise(p):
    # programs() checks each wrong call raises and adds nothing; here: the graph still
    # evaluates, and the leaves kept their values.
    values = [np.array(leaf.value) for leaf in p.leaves]
    sg.evaluate(p.ys)
    for leaf, before in zip(p.leaves, values):
        np.testing.assert_array_equal(sg.evaluate(leaf), before)
