"""The gallery script runs and shows the textbook forms (plain and LaTeX)."""
import importlib.util
import pathlib

GALLERY = pathlib.Path(__file__).resolve().parents[1] / "examples" / "gallery.py"


def test_gallery_prints_the_textbook_forms(capsys):
    spec = importlib.util.spec_from_file_location("gallery", GALLERY)
    gallery = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gallery)
    gallery.main([])
    out = capsys.readouterr().out
    for line in ["(1 − σ(x)) σ(x)", "1 − tanh(x)²", "[3, 1]", "[3 a² + 16 a, 8 a]",
                 "2 Xᵀ(X w − y)", "Xᵀ(σ(X w) − y)", "(A + Aᵀ) x", "(A + Aᵀ) X",
                 "exp(v)/(𝟏ᵀ exp(v))", "elementwise form: op 'index'", "  where",
                 r"2 X^{T} \left(X w - y\right)"]:
        assert line in out, line
