"""Bad input: a clear error naming the argument and the fix, never a silent wrong answer."""
import numpy as np
import pytest

import symgrad as sg
from symgrad.ops import Op, apply


def test_numpy_array_in_xs_is_a_type_error_with_advice():
    x = sg.Variable(1.0, name="x")
    with pytest.raises(TypeError, match=r"xs\[1\].*numpy array.*sg\.Variable"):
        sg.gradients(x * 2, [x, np.ones(3)])


def test_python_number_in_ys_is_a_type_error():
    x = sg.Variable(1.0, name="x")
    with pytest.raises(TypeError, match=r"ys\[0\].*float"):
        sg.gradients(3.0, x)


def test_none_ys_or_xs():
    x = sg.Variable(1.0, name="x")
    with pytest.raises(TypeError, match="ys is None"):
        sg.gradients(None, x)
    with pytest.raises(TypeError, match="xs is None"):
        sg.gradients(x, None)
    with pytest.raises(TypeError, match=r"xs\[0\].*None"):
        sg.gradients(x, [None])


def test_tensors_from_two_graphs():
    x = sg.Variable(1.0, name="x")
    with sg.Graph().as_default():
        z = sg.Variable(1.0, name="z")
    with pytest.raises(ValueError, match="two different graphs"):
        sg.gradients(x * x, z)
    with pytest.raises(ValueError, match="graph"):
        x + z


def test_missing_derivative_rule_is_a_lookup_error_naming_the_op():
    op = Op("mystery", kind="special", shape=lambda shapes: shapes[0],
            impl=lambda x: x * 2, grad=None)
    x = sg.Variable(1.0, name="x")
    y = apply(op, [x])
    with pytest.raises(LookupError, match="mystery"):
        sg.gradients(y, x)
    # no gradient needs to pass through it: fine
    assert sg.gradients(y + x, x, stop_gradients=[y])[0] is not None


def test_unfed_placeholder_names_it():
    p = sg.placeholder(shape=(3,), name="p")
    with pytest.raises(sg.FeedError, match="'p'.*not fed"):
        sg.evaluate(p * 2)
    with pytest.raises(ValueError, match="shape"):
        sg.evaluate(p * 2, feed_dict={p: [1.0, 2.0]})
    np.testing.assert_allclose(sg.evaluate(p * 2, feed_dict={p: [1, 2, 3]}), [2.0, 4.0, 6.0])


def test_complex_and_non_numeric_values():
    with pytest.raises(TypeError, match="complex|real"):
        sg.constant(1 + 2j)
    with pytest.raises(TypeError, match="real|numeric"):
        sg.Variable("hello")
    p = sg.placeholder(shape=(), name="p")
    with pytest.raises(TypeError, match="real"):
        sg.evaluate(p, feed_dict={p: 1j})


def test_shape_errors_name_the_op():
    x = sg.Variable(np.ones((2, 3)), name="x")
    with pytest.raises(sg.ShapeError, match="add.*do not broadcast"):
        x + np.ones(4)
    with pytest.raises(sg.ShapeError, match="matmul.*inner"):
        x @ x
    with pytest.raises(sg.ShapeError, match="reshape"):
        sg.reshape(x, (4,))
    with pytest.raises(sg.ShapeError, match="axis"):
        sg.reduce_sum(x, axis=2)


def test_placeholder_shape_entries_are_sizes_or_none():
    with pytest.raises(sg.ShapeError, match="non-negative int, or None"):
        sg.placeholder(shape=(2.5, 3))
    with pytest.raises(sg.ShapeError, match="non-negative int, or None"):
        sg.placeholder(shape=(-3, 3))


def test_tensor_as_bool_or_array_is_refused():
    x = sg.Variable(1.0, name="x")
    with pytest.raises(TypeError, match="bool"):
        if x > 0:
            pass
    with pytest.raises(TypeError, match="numpy"):
        np.asarray(x, dtype=float)


def test_where_needs_boolean_condition():
    x = sg.Variable(1.0, name="x")
    with pytest.raises(TypeError, match="boolean"):
        sg.where(x, x, x)


def test_boolean_mask_indexing_is_refused():
    x = sg.Variable([1.0, 2.0], name="x")
    with pytest.raises(sg.ShapeError, match="boolean mask"):
        x[np.array([True, False])]


def test_closed_form_rejects_unknown_strategy():
    x = sg.Variable(1.0, name="x")
    with pytest.raises(ValueError, match="simplify"):
        sg.closed_form(x, simplify="magic")


def test_placeholder_without_shape_is_a_scalar_and_says_so_when_fed_an_array():
    p = sg.placeholder(name="p")
    assert p.shape == ()
    assert sg.evaluate(p * 2, feed_dict={p: 1.5}) == 3.0
    with pytest.raises(sg.FeedError, match="without a shape"):
        sg.evaluate(p, feed_dict={p: [1.0, 2.0]})
