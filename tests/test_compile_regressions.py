"""Bugs the random-program properties found in the compiler, kept as regression tests."""
import numpy as np

import symgrad as sg


def test_unused_inputs_of_different_shapes_do_not_share_a_cache_entry():
    # Found by test_properties_compiled: the cache key ignored inputs that the
    # outputs do not read, so v0 of shape () and v0 of shape (2,) shared a module.
    for shape in [(), (2,)]:
        with sg.Graph().as_default():
            v0 = sg.Variable(np.zeros(shape), name="v0")
            v1 = sg.Variable(0.0, name="v1")
            y = sg.sin(v1)
            outputs = [y] + [g for g in sg.gradients(y, [v0, v1]) if g is not None]
            f = sg.compile(outputs, [v0, v1])
            got = f(np.zeros(shape), 0.0)
            np.testing.assert_allclose(got, sg.evaluate(outputs))


def test_gradient_of_an_index_is_an_output_of_its_own():
    # Found by test_properties_compiled: a scatter used only as an output had no
    # consumer node, which the in-place lowering assumed.
    v0 = sg.Variable([0.0, 0.0], name="v0")
    y = v0[0]
    (g,) = sg.gradients(y, v0)
    f = sg.compile([y, g], [v0])
    value, grad = f(np.array([0.5, 0.25]))
    assert value == 0.5
    np.testing.assert_array_equal(grad, [1.0, 0.0])
