"""``closed_form``: the public entry to a tensor's closed form, elementwise or matrix.

Sits above ``simplify`` (elementwise forms) and ``matrixform`` (matrix notation),
so neither imports the other's caller.

>>> from symgrad import tracing as tr
>>> with tr.Graph().as_default():
...     x = tr.Variable(0.5, name="x")
...     closed_form(tr.sin(x) ** 2 + tr.cos(x) ** 2 + x)
x + 1
"""
from __future__ import annotations

import time
from typing import Any, Sequence

from ..errors import ArgumentError, FormTooLargeError, NoClosedFormError
from ..graph import Node
from ..ops.deferred import at_scalars
from ..values import is_sparse_result
from .elided import EXPAND_LIMIT, TRY_SECONDS, SlowExpansion, scalar_size, worth_trying
from .matrixform import matrix_form
from .names import rename_symbols, renames
from .simplify import BUDGET_SECONDS, check_strategy, elementwise_form
from .sparseform import SPARSE_EXPAND_LIMIT, SparseElided, sparse_form

FORMS = ("elementwise", "matrix")


def closed_form(t: Node, simplify: str = "auto", keep: Sequence[Node] = (),
                budget: float = BUDGET_SECONDS, form: str = "elementwise",
                expand_limit: int | None = EXPAND_LIMIT) -> Any:
    """The closed form of tensor ``t`` in its leaves' symbols.

    Args:
        t: a tensor (``None`` gives ``None``: an unconnected gradient), or a sparse
            result (``sparse=True``), whose form is a ``sympy.ImmutableSparseMatrix``
            of its stored entries.
        simplify: ``"none"``, ``"auto"`` (default) or ``"full"``.
        keep: intermediate tensors to show as symbols of their own name instead of
            expanding them (``keep=[s]`` prints ``2*s + 1``).
        budget: seconds "auto" may spend on stronger passes.
        form: ``"elementwise"`` (default) or ``"matrix"``: matrix notation where the
            graph is built from matrix ops (see ``symgrad.forms.matrixform.matrix_form``).
        expand_limit: the largest scalar size (entries of ``t`` and of the tensors it is
            computed from, ``forms.elided.scalar_size``) expanded elementwise; None: no
            limit (the expansion's time and memory grow with the data).  For a sparse
            result the default means ``SPARSE_EXPAND_LIMIT`` (150,000) for its vector of
            stored entries, whose expansion is linear in that size.
    Returns:
        a SymPy expression for a 0-d tensor, else a SymPy N-d array of t's shape;
        with ``form="matrix"`` a ``MatrixForm`` that says which form it holds.
    Raises:
        ArgumentError: unknown strategy or form.  TypeError: ``t`` is not a tensor.
        FormTooLargeError: the elementwise form is above ``expand_limit``, has unknown
            sizes, or nests deeper than SymPy can build.
    """
    check_strategy(simplify)
    if form not in FORMS:
        raise ArgumentError(f"form={form!r} is not one of {FORMS}")
    if is_sparse_result(t):
        return _sparse(t, simplify, budget, expand_limit)
    if isinstance(t, Node) and t.shape is None:   # unknown rank: each entry's form
        try:
            made = at_scalars(t)
        except Exception as exc:
            raise NoClosedFormError(
                f"closed_form({t.op_name!r}): its inputs have unknown rank (a TF1 "
                f"placeholder without shape), and taken as scalars it fails: {exc}; give "
                "the placeholders a shape") from None
        # in the placeholders' own names (the scalar copies are named after them)
        return rename_symbols(closed_form(made, simplify, keep, budget, form, expand_limit),
                              renames([made]))
    if form == "matrix":
        return matrix_form(t, simplify)
    deadline = size = None
    if isinstance(t, Node) and expand_limit is not None:
        size = scalar_size(t, keep)
        deadline = _check_size(t, size, expand_limit, keep)
    try:
        return elementwise_form(t, simplify, keep, budget, deadline)
    except SlowExpansion as exc:
        raise FormTooLargeError(
            f"closed_form({t.name!r}, shape {tuple(t.shape)}): the elementwise form counts "
            f"{size:,} scalar entries, above expand_limit={expand_limit:,}, "
            f"and {exc} after {TRY_SECONDS:g} s; use sg.matrix_form(t) or str(t) (matrix "
            "notation, bounded at any size), or pass expand_limit=None to expand "
            "anyway") from None
    except RecursionError:
        raise FormTooLargeError(
            f"closed_form: the expression of {t.name!r} nests deeper than SymPy can build "
            "(RecursionError); print it with str(t), which names shared parts, or evaluate "
            "it with sg.evaluate / sg.compile") from None


def _sparse(t, simplify, budget, limit):
    limit = SPARSE_EXPAND_LIMIT if limit == EXPAND_LIMIT else limit
    form = sparse_form(t, simplify, limit, budget)
    if isinstance(form, SparseElided):
        raise FormTooLargeError(f"closed_form: the {form.note()}")
    return form.matrix()


def _check_size(t, size, limit, keep=()):
    """None when ``size`` is within ``limit``; the deadline of a try when the default
    limit is exceeded but the expansion is worth trying (``forms.elided.worth_trying``:
    the size may overstate the work); FormTooLargeError otherwise."""
    what = f"closed_form({t.name!r}, shape {tuple(t.shape)})"
    if size is None:
        raise FormTooLargeError(
            f"{what}: the shape has unknown sizes (None), so there is no element array; "
            "use sg.matrix_form(t) or str(t) (matrix notation or an indexed Sum form)")
    if size <= limit:
        return None
    if limit == EXPAND_LIMIT and not keep and worth_trying(t, size):   # (not the caller's)
        return time.monotonic() + TRY_SECONDS
    raise FormTooLargeError(
        f"{what}: the elementwise form would expand {size:,} scalar entries, above "
        f"expand_limit={limit:,} (closed forms stay within a few seconds); use "
        "sg.matrix_form(t) or str(t) (matrix notation, bounded at any size), or pass "
        "expand_limit=None to expand anyway")
