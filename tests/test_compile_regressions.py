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


def test_a_prefix_gather_of_a_larger_buffer_is_not_taken_for_a_reshape():
    # Found by the sparse Jacobians: index(t, [0, 1]) of a 12-element buffer has the
    # table arange(2), which the lowering took for a reshape and renamed the whole
    # buffer into the 2-element output (a heap overflow).
    x = sg.Variable(np.arange(12.0), name="x")
    from symgrad.ops import apply
    y = apply("index_add", [x[:2] * 2.0], shape=(12,), index=(slice(None, 2),))
    f = sg.compile(y[np.array([0, 1])], [x])
    np.testing.assert_array_equal(f(np.arange(12.0)), [0.0, 2.0])
    writes = [int(np.prod(st.dims)) for st in f.program.stmts if st.dst == ("out", 0)]
    assert writes and max(writes) <= 2  # nothing written past the output's 2 elements
