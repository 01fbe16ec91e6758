"""Closed forms of the linear-algebra gradients in matrix notation (TF's textbook rules),
checked numerically against the reference evaluator."""
import numpy as np
import pytest
import sympy

import symgrad as sg


def _at(expr, name, value):
    """The matrix expression ``expr`` evaluated with the MatrixSymbol ``name`` = value."""
    sym = next(s for s in expr.free_symbols if getattr(s, "name", None) == name)
    out = expr.xreplace({sym: sympy.ImmutableMatrix(value)})
    out = out.doit()
    out = out.as_explicit().doit() if out.is_Matrix else out
    return np.array(sympy.Matrix(out).evalf().tolist() if out.is_Matrix else sympy.N(out),
                    dtype=float)


@pytest.mark.parametrize("fn,text", [
    (sg.linalg.det, "Determinant(A) Aᵀ⁻¹"),
    (lambda a: sg.linalg.slogdet(a)[1], "Aᵀ⁻¹"),
    (lambda a: sg.reduce_sum(sg.linalg.inv(a)), "−Aᵀ⁻¹ 𝟏 Aᵀ⁻¹"),
])
def test_matrix_notation_of_linalg_gradients(fn, text):
    value = np.array([[4.0, 1.0], [2.0, 3.0]])
    A = sg.Variable(value, name="A")
    (g,) = sg.gradients(fn(A), A)
    form = sg.matrix_form(g)
    assert form.form == "matrix"
    assert sg.text(g, form="matrix") == text
    np.testing.assert_allclose(_at(form.expr, "A", value), sg.evaluate(g), rtol=1e-12)
