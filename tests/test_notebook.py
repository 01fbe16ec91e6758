"""examples/jupyter.ipynb run by a real Jupyter kernel (nbclient): what each cell shows.

Each code cell is tagged; its rich outputs (``text/latex``, ``text/html``,
``image/svg+xml``) are checked for content: user-facing names only (``x`` on a re-run,
never ``x_1`` or ``gradients/...``), arrays as MathML tables, values that match the
derivative worked by hand, a note instead of an empty value cell.  The kernel starts
once for the module.
"""
import html
import pathlib
import re

import nbformat
import numpy as np
import pytest
from nbclient import NotebookClient

from symgrad.teach import dot_available

NOTEBOOK = pathlib.Path(__file__).resolve().parent.parent / "examples" / "jupyter.ipynb"


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """(outputs by tag, the kernel's working directory) after executing the notebook."""
    workdir = tmp_path_factory.mktemp("notebook")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(nb, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(workdir)}}).execute()
    shown = {}
    for cell in nb.cells:
        if cell.cell_type == "code":
            data = {}
            for out in cell.outputs:
                assert out.output_type != "error", "\n".join(out.traceback)
                data.update(out.get("data", {}))
            shown[cell.metadata["tags"][0]] = data
    return shown, workdir


@pytest.fixture(scope="module")
def shown(run):
    return run[0]


def _values(html_text):
    """The numbers of each value cell (``<pre>``) of an HTML table."""
    cells = re.findall(r"<pre>(.*?)</pre>", html_text, re.S)
    return [np.array(html.unescape(c).strip("[]").split(), dtype=float) for c in cells]


def _no_internal_names(*texts):
    for text in texts:
        # an element of the graph's x_1 would print as {x_{1}}_{0} (x_{1} alone is x[1])
        assert "gradients" not in text and "x_1" not in text and "{x_{1}}" not in text, text
        assert "immutabledensendimarray" not in text.lower(), text


def test_notebook_runs_and_writes_nothing(run):
    shown, workdir = run
    assert set(shown) >= {"tensor", "gradients", "gradient", "rerun", "placeholder",
                          "matrix", "explain", "draw"}
    assert list(workdir.iterdir()) == []


def test_tensor_shows_name_form_shape_value(shown):
    latex, table = shown["tensor"]["text/latex"], shown["tensor"]["text/html"]
    assert r"\mathtt{y} = x_{0}^{2} + x_{1}^{2}" in latex and r"\text{shape } ()" in latex
    assert "<math" in table and "<td>y</td>" in table
    assert [v.tolist() for v in _values(table)] == [[5.0]]       # 1**2 + 2**2


def test_gradients_show_forms_and_values(shown):
    for tag in ("gradients", "gradient"):
        latex, table = shown[tag]["text/latex"], shown[tag]["text/html"]
        _no_internal_names(latex, table)
        assert "2 x_{0}" in latex and "<mtable" in table
        assert "<msub><mi>x</mi><mrow><mn>1</mn></mrow></msub>" in table
        np.testing.assert_array_equal(_values(table)[0], [2.0, 4.0])   # d(sum x^2)/dx = 2x


def test_rerun_cell_keeps_user_names(shown):
    latex, table = shown["rerun"]["text/latex"], shown["rerun"]["text/html"]
    _no_internal_names(latex, table)
    assert r"\cos" in latex and "x_{0}" in latex
    x = np.array([1.0, 2.0])
    np.testing.assert_allclose(_values(table)[0], 2 * x * np.cos(5.0), rtol=1e-6)


def test_placeholder_value_cell_says_what_is_missing(shown):
    latex, table = shown["placeholder"]["text/latex"], shown["placeholder"]["text/html"]
    assert r"\mathtt{total}" in latex and "p_{0}" in latex and r"\text{value}" not in latex
    assert "<pre></pre>" not in table and "feed p" in table


def test_matrix_form(shown):
    assert r"2 X^{T} \left(X w - t\right)" in shown["matrix"]["text/latex"]


def test_explanation_tables(shown):
    table = shown["explain"]["text/html"]
    assert "<table" in table and "Reverse sweep" in table
    assert "a -&gt; b -&gt; add" in table or "a → b → add" in table


def test_drawing(shown):
    data = shown["draw"]
    if dot_available():
        svg = data["image/svg+xml"]
        assert "<svg" in svg and "adjoint 3" in svg and "text/html" not in data
    else:
        note = data["text/html"]
        assert "install Graphviz" in note and "digraph gradients" in note
