"""SymPy printers for closed forms: plain, textbook unicode, 2-d pretty, LaTeX, MathML.

Subclasses of SymPy's printers that read matrix notation as a person writes it:
an elementwise function application ``Lambda(d, sigmoid(d)).(X*w)`` prints as
``sigmoid(X*w)`` (``σ(X w)`` in textbook and LaTeX), the trace of a 1x1 matrix
as the matrix itself (``xᵀ A x``), ``OneMatrix`` as a ones vector ``𝟏``.

Imports only SymPy (and ``symgrad.ops.functions`` for the custom functions).

>>> import sympy
>>> X, w = sympy.MatrixSymbol("X", 3, 2), sympy.MatrixSymbol("w", 2, 1)
>>> y = sympy.MatrixSymbol("y", 3, 1)
>>> to_text(2 * X.T * (X * w - y))
'2 Xᵀ(X w − y)'
"""
from __future__ import annotations

import sympy
from sympy.matrices.expressions.applyfunc import ElementwiseApplyFunction
from sympy.printing.latex import LatexPrinter
from sympy.printing.mathml import MathMLPresentationPrinter
from sympy.printing.precedence import PRECEDENCE
from sympy.printing.pretty.pretty import PrettyPrinter
from sympy.printing.str import StrPrinter

GREEK = {"sigmoid": ("σ", r"\sigma")}


def _ones_suffix(expr):
    """A ones matrix reads as a column ``1``, a row ``1ᵀ`` or the all-ones matrix."""
    r, c = expr.shape
    return "T" if r == 1 and c != 1 else ""


def _inlined(printer, expr):
    """A general elementwise application printed as its body at the argument."""
    fn = expr.function
    arg = sympy.Symbol(f"({printer._print(expr.expr)})")
    return printer._print(fn.expr.xreplace({fn.variables[0]: arg}))


def _applied(expr):
    """(function name, argument) of an elementwise application, when it is f(d)."""
    fn = expr.function
    d, body = fn.variables[0], fn.expr
    if isinstance(body, sympy.Function) and body.args == (d,):
        return body.func, expr.expr
    return None, expr.expr


# factors a matrix product shows in brackets
_GROUPED = (sympy.MatAdd, sympy.Add, sympy.HadamardProduct)


class _MatrixMixin:
    def _one_by_one(self, expr):
        return getattr(expr.arg, "shape", None) == (1, 1)

    def parenthesize(self, item, level, *args, **kwargs):
        # A scalar xᵀ A x inside a product keeps its parentheses: (𝟏ᵀ w) y; so does it
        # in a negative product, which SymPy prints at the level of a sum: -1/(𝟏ᵀ w)
        if isinstance(item, sympy.Trace) and self._one_by_one(item) and \
                level >= PRECEDENCE["Add"]:
            inner = self._print(item)
            return f"\\left({inner}\\right)" if isinstance(self, LatexPrinter) else f"({inner})"
        return super().parenthesize(item, level, *args, **kwargs)


def _over(expr):
    """(numerator MatMul, denominator) when a matrix product has a scalar 1/s factor."""
    scalars = [a for a in expr.args if not a.is_Matrix]
    num, den = sympy.fraction(sympy.Mul(*scalars))
    if den == 1:
        return None, None
    mats = [a for a in expr.args if a.is_Matrix]
    if num == 1:
        return (mats[0] if len(mats) == 1 else sympy.MatMul(*mats)), den
    return sympy.MatMul(num, *mats), den


class PlainPrinter(_MatrixMixin, StrPrinter):
    """``str``: SymPy's syntax, with readable elementwise applications."""

    def _print_ElementwiseApplyFunction(self, expr):
        func, arg = _applied(expr)
        if func is None:
            return _inlined(self, expr)
        return f"{func.__name__}({self._print(arg)})"

    def _print_Trace(self, expr):
        return self._print(expr.arg) if self._one_by_one(expr) else super()._print_Trace(expr)

    def _print_OneMatrix(self, expr):
        return f"ones({expr.shape[0]}, {expr.shape[1]})"

    def _print_HadamardPower(self, expr):
        return f"{self.parenthesize(expr.base, 60)}.**{self._print(expr.exp)}"

    def _print_DiagMatrix(self, expr):
        return f"diag({self._print(expr.args[0])})"

    def _print_HadamardProduct(self, expr):
        return ".*".join(self.parenthesize(a, 50) for a in expr.args)


class TextPrinter(PlainPrinter):
    """Textbook unicode on one line: ``2 Xᵀ(X w − y)``, ``σ(X w)``."""

    def _print_Transpose(self, expr):
        inner = self._print(expr.arg)
        simple = isinstance(expr.arg, sympy.MatrixSymbol) or isinstance(
            expr.arg, ElementwiseApplyFunction) and _applied(expr.arg)[0] is not None
        return (inner if simple else f"({inner})") + "ᵀ"   # tanh(X W)ᵀ: f(...) is one piece

    def _print_MatMul(self, expr):
        num, den = _over(expr)
        if num is not None:
            return f"{self._print(num)}/{self.parenthesize(den, 50)}"
        args, sign = list(expr.args), ""
        if args[0] == -1:
            args, sign = args[1:], "−"
        parts = []
        for a in args:
            text = self._print(a)
            if isinstance(a, (sympy.MatAdd, sympy.Add, sympy.HadamardProduct, sympy.Trace)):
                text = f"({text})"
            parts.append(text)
        out = parts[0]
        for p in parts[1:]:
            out += p if p.startswith("(") and not out[-1].isdigit() else " " + p
        return sign + out

    def _print_MatAdd(self, expr):
        terms = [self._print(t) for t in expr.args]
        terms.sort(key=lambda t: t.startswith("−"))  # x − y rather than −y + x
        out = terms[0]
        for t in terms[1:]:
            out += f" − {t[1:]}" if t.startswith("−") else f" + {t}"
        return out

    def _print_Add(self, expr, order=None):
        return super()._print_Add(expr, order).replace(" - ", " − ")

    def _print_HadamardProduct(self, expr):
        return " ∘ ".join(self.parenthesize(a, 50) for a in expr.args)

    def _print_sigmoid(self, expr):
        return f"σ({self._print(expr.args[0])})"

    def _print_Mul(self, expr):
        # Juxtaposition, as on paper: (1 − σ(x)) σ(x), 2 x.  (A power written ** by a
        # factor's printer stays one; x^∘² of a Hadamard power is left as it is.)
        return super()._print_Mul(expr).replace("**", "\0").replace("*", " ") \
            .replace("\0", "**")

    def _print_Pow(self, expr, rational=False):
        if expr.exp.is_Integer and expr.exp > 1:   # (1/x stays a fraction)
            return self.parenthesize(expr.base, 60) + _superscript(expr.exp)
        return super()._print_Pow(expr, rational)

    def _print_Inverse(self, expr):
        return self.parenthesize(expr.arg, 60) + "⁻¹"

    def _print_MatPow(self, expr):
        if expr.exp.is_Integer:
            return self.parenthesize(expr.base, 60) + _superscript(expr.exp)
        return super()._print_MatPow(expr)

    def _print_ElementwiseApplyFunction(self, expr):
        func, arg = _applied(expr)
        if func is not None and func.__name__ in GREEK:
            return f"{GREEK[func.__name__][0]}({self._print(arg)})"
        return super()._print_ElementwiseApplyFunction(expr)

    def _print_OneMatrix(self, expr):
        return "𝟏" + ("ᵀ" if _ones_suffix(expr) else "")

    def _print_HadamardPower(self, expr):
        return f"{self.parenthesize(expr.base, 60)}^∘{_superscript(expr.exp)}"

    def _print_ArrayComprehension(self, expr):
        # one entry with symbolic indices (forms.indexed): [f(i) for i = 0 … n − 1]
        ranges = ", ".join(f"{self._print(i)} = {self._print(lo)} … {self._print(hi)}"
                           for i, lo, hi in expr.limits)
        return f"[{self._print(expr.function)} for {ranges}]"

    def _print_Sum(self, expr):
        ranges = ", ".join(f"{self._print(i)} = {self._print(lo)} … {self._print(hi)}"
                           for i, lo, hi in expr.limits)
        return f"Σ({self._print(expr.function)} for {ranges})"

    def _print_Equality(self, expr):
        return f"{self._print(expr.lhs)} = {self._print(expr.rhs)}"

    def _print_Piecewise(self, expr):
        *pieces, (last, cond) = expr.args
        text = self._print(last) if cond == sympy.true else \
            f"{self._print(last)} if {self._print(cond)} else nan"
        for value, c in reversed(pieces):
            text = f"{self._print(value)} if {self._print(c)} else {text}"
        return f"({text})"


def _superscript(n):
    """An integer exponent as superscript digits: ⁻¹, ²."""
    return str(n).translate(str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"))


class Latex(_MatrixMixin, LatexPrinter):
    """LaTeX with σ for the sigmoid and elementwise applications as f(M)."""

    def _print_MatMul(self, expr):
        num, den = _over(expr)
        if num is not None:
            return rf"\frac{{{self._print(num)}}}{{{self._print(den)}}}"
        args, sign = list(expr.args), ""
        if args[0] == -1:
            args, sign = args[1:], "- "
        if not any(isinstance(a, _GROUPED) for a in args):
            return super()._print_MatMul(expr)
        # SymPy leaves A ∘ B unbracketed in a product: - A \circ B C for -(A ∘ B) C
        return sign + " ".join(rf"\left({self._print(a)}\right)" if isinstance(a, _GROUPED)
                               else self.parenthesize(a, PRECEDENCE["Mul"]) for a in args)

    def _print_ElementwiseApplyFunction(self, expr):
        func, arg = _applied(expr)
        if func is None:
            fn = expr.function
            hole = sympy.Symbol("HOLE")
            body = self._print(fn.expr.xreplace({fn.variables[0]: hole}))
            return body.replace("HOLE", rf"\left({self._print(arg)}\right)")
        name = GREEK.get(func.__name__, (None, r"\operatorname{%s}" % func.__name__))[1]
        return rf"{name}\left({self._print(arg)}\right)"

    def _print_sigmoid(self, expr, exp=None):
        out = rf"\sigma\left({self._print(expr.args[0])}\right)"
        return f"{out}^{{{exp}}}" if exp else out

    def _print_Trace(self, expr):
        if getattr(expr.arg, "shape", None) == (1, 1):
            return self._print(expr.arg)
        return super()._print_Trace(expr)

    def _print_OneMatrix(self, expr):
        return r"\mathbf{1}" + ("^{T}" if _ones_suffix(expr) else "")

    def _print_DiagMatrix(self, expr):
        return r"\operatorname{diag}\left(%s\right)" % self._print(expr.args[0])

    def _print_ArrayComprehension(self, expr):
        body = r"\left[%s\right]" % self._print(expr.function)
        limits = [tuple(self._print(v) for v in limit) for limit in expr.limits]
        if len(limits) == 1:
            return body + "_{%s=%s}^{%s}" % limits[0]
        # one subscript for every index (two in a row are a LaTeX error)
        return body + "_{%s}" % r",\; ".join(r"%s = %s \ldots %s" % v for v in limits)

    def _print_Element(self, expr):
        # theta[1] -> \theta_{1}, X[10,0] -> X_{10,0} (a subscripted name is braced first)
        base = self._print(sympy.Symbol(expr.base))
        if "_" in base or "^" in base:
            base = "{%s}" % base
        return "%s_{%s}" % (base, ",".join(map(str, expr.index)))


class Pretty(PrettyPrinter):
    """2-d unicode with readable elementwise applications."""

    def _print_OneMatrix(self, expr):
        from sympy.printing.pretty.stringpict import prettyForm
        return prettyForm("𝟏ᵀ" if _ones_suffix(expr) else "𝟏")

    def _print_ElementwiseApplyFunction(self, expr):
        func, arg = _applied(expr)
        if func is None:
            return super()._print_ElementwiseApplyFunction(expr)
        name = GREEK.get(func.__name__, (func.__name__,))[0]
        return self._helper_print_function(func, [arg], func_name=name)

    def _print_sigmoid(self, expr):
        return self._helper_print_function(expr.func, list(expr.args), func_name="σ")

    def _print_DiagMatrix(self, expr):
        return self._helper_print_function(sympy.Function("diag"), [expr.args[0]], func_name="diag")

    def _print_Trace(self, expr):
        if getattr(expr.arg, "shape", None) == (1, 1):
            return self._print(expr.arg)
        return super()._print_Trace(expr)


class MathML(MathMLPresentationPrinter):
    """Presentation MathML; the trace of a 1x1 matrix prints as the matrix, f(M) as f(M)."""

    def _element(self, tag, text=None, children=()):
        node = self.dom.createElement(tag)
        if text is not None:
            node.appendChild(self.dom.createTextNode(text))
        for child in children:
            node.appendChild(child)
        return node

    def _applied_to(self, name, arg):
        paren = self._element("mrow", children=[self._element("mo", "("), self._print(arg),
                                                self._element("mo", ")")])
        return self._element("mrow", children=[self._element("mi", name), paren])

    def _print_ElementwiseApplyFunction(self, expr):
        func, arg = _applied(expr)
        if func is None:
            fn = expr.function
            return self._print(fn.expr.xreplace({fn.variables[0]: sympy.Symbol(to_str(arg))}))
        return self._applied_to(GREEK.get(func.__name__, (func.__name__,))[0], arg)

    def _print_sigmoid(self, expr):
        return self._applied_to("σ", expr.args[0])

    def _print_HadamardPower(self, expr):
        exp = self._element("mrow", children=[self._element("mo", "∘"), self._print(expr.exp)])
        return self._element("msup", children=[self._print(expr.base), exp])

    def _print_OneMatrix(self, expr):
        one = self._element("mn", "𝟏")
        if not _ones_suffix(expr):
            return one
        return self._element("msup", children=[one, self._element("mo", "T")])

    def _print_Trace(self, expr):
        if getattr(expr.arg, "shape", None) == (1, 1):
            return self._print(expr.arg)
        return super()._print_Trace(expr)

    def _print_NDimArray(self, expr):
        """An array as LaTeX shows it: a row (1-d), a matrix (2-d), a list of those."""
        if expr.rank() == 0:
            return self._print(expr[()])
        if expr.rank() <= 2 and 0 not in expr.shape:
            rows = expr.tolist() if expr.rank() == 2 else [expr.tolist()]
            return self._print(sympy.ImmutableMatrix(rows))
        parts = [self._element("mo", "[")]
        for k, sub in enumerate(expr.tolist()):
            if k:
                parts.append(self._element("mo", ","))
            parts.append(self._print(sympy.ImmutableDenseNDimArray(sub)))
        return self._element("mrow", children=parts + [self._element("mo", "]")])

    def _print_DiagMatrix(self, expr):
        return self._applied_to("diag", expr.args[0])

    def _print_Element(self, expr):
        index = []
        for k, i in enumerate(expr.index):
            index += [self._element("mo", ",")] if k else []
            index.append(self._element("mn", str(i)))
        return self._element("msub", children=[self._print(sympy.Symbol(expr.base)),
                                               self._element("mrow", children=index)])


def to_str(expr):
    return PlainPrinter().doprint(expr)


def to_text(expr):
    """One-line textbook unicode."""
    return TextPrinter().doprint(expr)


def to_latex(expr):
    return Latex().doprint(expr)


def to_pretty(expr):
    return Pretty({"use_unicode": True}).doprint(expr)


def to_mathml(expr):
    return MathML().doprint(expr)
