"""The whitelist parser: grammar, precedence, the functions it knows, and rejection of
unsafe or absurd input (with bounded work)."""
import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import symgrad as sg
from symgrad.parse import MAX_DEPTH, MAX_LENGTH, parse


def _value(text, **values):
    names = {k: sg.constant(float(v), name=k) for k, v in values.items()}
    out = parse(text, names)
    return float(sg.evaluate(out)) if isinstance(out, sg.Tensor) else float(out)


@pytest.mark.parametrize("text", [
    "x**2 + x - 1", "-x**2", "2**-1*x", "x**2**3 / 7", "(x + y) * (x - y)", "x - y - 1",
    "x / y / 2", "-(x - 3) ** 3", "+x - -y", "2*x*y**3 - y/x", "1.5e-1 * x + .5",
])
def test_arithmetic_matches_python(text):
    # Python's own grammar is the oracle for precedence and associativity on trusted text.
    expected = eval(text, {"__builtins__": {}}, {"x": 1.25, "y": -0.75})
    assert _value(text, x=1.25, y=-0.75) == pytest.approx(expected, rel=1e-12)


_ATOMS = st.sampled_from(["x", "y", "2.0", "0.5", "3.0"])   # floats, like the parser's folding


def _expressions():
    return st.recursive(
        _ATOMS,
        lambda inner: st.one_of(
            st.tuples(inner, st.sampled_from(["+", "-", "*"]), inner).map(
                lambda t: f"({t[0]} {t[1]} {t[2]})"),
            inner.map(lambda e: f"-{e}"),
            inner.map(lambda e: f"sin({e})"),
            inner.map(lambda e: f"({e})**2")),
        max_leaves=12)


@settings(max_examples=60, deadline=None)
@given(_expressions())
def test_random_expressions_match_python(text):
    env = {"x": 0.7, "y": -1.3, "sin": math.sin}
    try:
        expected = eval(text, {"__builtins__": {}}, env)
    except OverflowError:   # the oracle (Python floats) overflows where numpy gives inf
        assume(False)
    with sg.Graph().as_default():
        assert _value(text, x=0.7, y=-1.3) == pytest.approx(expected, rel=1e-9, abs=1e-12)


def test_functions_keywords_and_lists():
    x = sg.constant([[1.0, 2.0], [3.0, 4.0]], name="x")
    names = {"x": x}
    np.testing.assert_allclose(sg.evaluate(parse("reduce_sum(x, axis=0)", names)), [4.0, 6.0])
    np.testing.assert_allclose(sg.evaluate(parse("reduce_sum(x, axis=[0, 1], keepdims=True)",
                                                 names)), [[10.0]])
    np.testing.assert_allclose(sg.evaluate(parse("x @ [1, 1]", names)), [3.0, 7.0])
    np.testing.assert_allclose(sg.evaluate(parse("maximum(x, 2.5)", names)),
                               [[2.5, 2.5], [3.0, 4.0]])
    assert _value("cos(pi * x)", x=1.0) == pytest.approx(-1.0)


def test_unknown_names_become_scalar_placeholders():
    names = {}
    y = parse("a * b + 1", names)
    assert set(names) == {"a", "b"}
    assert names["a"].opdef.name == "placeholder" and names["a"].shape == ()
    assert float(sg.evaluate(y, {names["a"]: 2.0, names["b"]: 3.0})) == 7.0
    with pytest.raises(sg.ParseError, match="unknown name 'c'"):
        parse("c + 1", {}, leaves="error")


def test_numbers_fold_in_floating_point():
    # no exact big-integer arithmetic: 10**10**10 overflows to inf at once
    assert parse("10**10**10") == math.inf
    assert parse("2**-2") == 0.25


@pytest.mark.parametrize("text, message", [
    ("__import__('os').system('echo hacked')", "names with '__'"),
    ("x.__class__", "attribute access"),
    ("x.real", "attribute access"),
    ("'abc'", "strings are not allowed"),
    ('"abc" + x', "strings are not allowed"),
    ("lambda: 1", "Python keyword"),
    ("(lambda q: q)(x)", "Python keyword"),
    ("exec(x)", "not a known function"),
    ("open(x)", "not a known function"),
    ("eval(x)", "not a known function"),
    ("x; y", "statements are not allowed"),
    ("x = 1", "unexpected '='"),
    ("[i for i in x]", "Python keyword"),
    ("x[0]", "does not fit a tensor of shape \\(\\)"),
    ("v[0.5]", "an index must be an integer"),
    ("v[x]", "an index must be an integer"),
    ("v[]", "an index needs an integer or a slice"),
    ("v[0:1:1:1]", "expected '\\]', found ':'"),
    ("v[2]", "out of bounds"),
    ("2[0]", "a number cannot be indexed"),
    ("x: y", "unexpected ':'"),
    ("sin", "is a function"),
    ("sin(x, axis=0, dtype=1)", "keyword 'dtype' is not allowed"),
    ("reduce_sum(x, axis=0.5)", "needs an integer"),
    ("x +", "expected a number"),
    ("(x + 1", "expected '\\)'"),
    ("", "empty"),
    ("2 x", "unexpected 'x'"),
    ("x $ y", "unexpected character '\\$'"),
    ("True + x", "only allowed as a keyword value"),
    ("None", "Python keyword"),
])
def test_rejects_with_a_clear_message(text, message):
    with pytest.raises(sg.ParseError, match=message):
        parse(text, {"x": sg.constant(1.0, name="x"), "y": sg.constant(2.0, name="y"),
                     "v": sg.constant([1.0, 2.0], name="v")})


@pytest.mark.parametrize("text", ["(x + 1)**(10**10)", "pow(x + 1, 1000)", "x**-300"])
def test_rejects_integer_powers_sympy_would_expand(text):
    with pytest.raises(sg.ParseError, match="exponent .* is too large"):
        parse(text, {"x": sg.constant(1.0, name="x")})
    assert float(sg.evaluate(parse("x**256.5", {"x": sg.constant(1.0, name="x")}))) == 1.0


def test_rejects_non_strings():
    with pytest.raises(sg.ParseError, match="must be a string"):
        parse(b"x + 1")


@pytest.mark.parametrize("text", [
    "x + " * (MAX_LENGTH // 4) + "x",
    "(" * (MAX_DEPTH + 1) + "x" + ")" * (MAX_DEPTH + 1),
    "-" * (MAX_DEPTH + 5) + "x",
    "x" + "**x" * (MAX_DEPTH + 5),
    "sin(" * (MAX_DEPTH + 1) + "x" + ")" * (MAX_DEPTH + 1),
    "[" * 1000 + "1" + "]" * 1000,
])
def test_rejects_absurd_input(text):
    with pytest.raises(sg.ParseError, match="characters long|nested deeper"):
        parse(text, {"x": sg.constant(1.0, name="x")})


@pytest.mark.parametrize("open_, close, fn", [
    ("(", ")", lambda v: v), ("sin(", ")", math.sin), ("reduce_sum(", ", axis=0)", lambda v: v)])
def test_depth_limit_leaves_room_for_legal_nesting(open_, close, fn):
    # the deepest legal nesting must not hit Python's recursion limit
    n = MAX_DEPTH - 2
    expected = 0.5
    for _ in range(n):
        expected = fn(expected)
    assert _value(open_ * n + "x" + close * n, x=0.5) == pytest.approx(expected)


def test_lists_too_deep():
    with pytest.raises(sg.ParseError, match="lists are nested deeper"):
        parse("[" * 40 + "1" + "]" * 40)


def test_parse_error_is_a_value_error():
    assert issubclass(sg.ParseError, ValueError)
