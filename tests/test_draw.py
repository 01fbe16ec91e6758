"""sg.draw: DOT structure (stops dashed, None greyed, highlighted paths), rendering with dot."""
import re

import numpy as np
import pytest

import symgrad as sg
from symgrad.teach import dot as draw_module

needs_dot = pytest.mark.skipif(not draw_module.dot_available(),
                               reason="Graphviz 'dot' is not installed")


def _classic():
    a = sg.constant(0.0, name="a")
    b = sg.multiply(2.0, a, name="b")
    return a, b, a + sg.stop_gradient(b)


def _node_attrs(source, name):
    line = next(l for l in source.splitlines() if re.search(rf'label="{re.escape(name)}[ \\]', l))
    return line


def test_dot_structure_for_the_stop_gradient_case():
    a, b, y = _classic()
    src = sg.draw(y, [a, b], highlight=a).source
    assert src.startswith("digraph gradients {") and src.rstrip().endswith("}")
    # one node per non-literal tensor, one edge per (input, consumer) pair
    assert len(re.findall(r"^  n\d+ \[label=", src, re.M)) == 4
    assert len(re.findall(r"^  n\d+ -> n\d+", src, re.M)) == 4
    # b's gradient is None: greyed; the edge into the stop is dashed
    assert "gray90" in _node_attrs(src, "b = 2*a") and "gradient None" in src
    assert re.search(rf"n{b.id} -> n\d+ \[style=\"dashed\"", src)
    # a's path to y is red, and a shows value and adjoint
    assert re.search(rf"n{a.id} -> n{y.id} \[color=\"red\"", src)
    assert "a\\nconst\\nvalue 0\\nadjoint 1" in src


def test_adjoints_in_labels_match_gradients():
    a = sg.constant(5.0, name="a")
    b = 2 * a
    y = a ** 3 + 2 * b ** 2
    src = sg.draw(y, [a, b]).source
    ga, gb = sg.evaluate(sg.gradients(y, [a, b]))
    assert f"adjoint {ga:.6g}" in _node_attrs(src, "a")
    assert f"adjoint {gb:.6g}" in _node_attrs(src, "mul = 2*a")


def test_stop_gradients_argument_dashes_edges_into_the_stopped_tensor():
    a = sg.constant(0.0, name="a")
    b = 2 * a
    src = sg.draw(a + b, [a, b], stop_gradients=[b]).source
    assert re.search(rf"n{a.id} -> n{b.id} \[style=\"dashed\"", src)


def test_tensor_shapes_and_feeds_in_labels():
    X = sg.placeholder(shape=(2, 2), name="X")
    s = sg.reduce_sum(X * X, name="s")
    src = sg.draw(s, X, feed_dict={X: np.ones((2, 2))}).source
    assert "placeholder (2, 2)" in src and "value 4" in src
    assert "adjoint all 2, shape (2, 2)" in src


def test_save_dot_text_without_graphviz(tmp_path, monkeypatch):
    a, b, y = _classic()
    d = sg.draw(y, [a, b])
    d.save(tmp_path / "g.dot")
    assert (tmp_path / "g.dot").read_text() == d.source
    monkeypatch.setattr(draw_module.shutil, "which", lambda name: None)
    with pytest.raises(RuntimeError, match="apt-get install graphviz"):
        d.save(tmp_path / "g.svg")
    assert d._repr_svg_() is None
    note = d._repr_html_()      # what Jupyter shows instead: how to get dot, then the text
    assert "install Graphviz" in note and "apt-get install graphviz" in note
    assert "digraph gradients" in note and "stop_gradient" in note
    assert repr(d).startswith("<Drawing of ") and ".save(" in repr(d)
    with pytest.raises(ValueError, match="format 'bmp'"):
        d.render("bmp")


@needs_dot
def test_render_svg_and_png(tmp_path):
    a, b, y = _classic()
    d = sg.draw(y, [a, b], path=tmp_path / "g.svg")
    svg = (tmp_path / "g.svg").read_text()
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg and "stop_gradient" in svg
    d.save(tmp_path / "g.png")
    assert (tmp_path / "g.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "<svg" in d._repr_svg_() and d._repr_html_() is None


@needs_dot
def test_names_with_quotes_render(tmp_path):
    t = sg.constant(1.0, name='q"uote\\')
    sg.draw(t * 2, t, path=tmp_path / "q.svg")
    assert "uote" in (tmp_path / "q.svg").read_text()
