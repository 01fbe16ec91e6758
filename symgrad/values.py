"""Values fed to a graph or a compiled evaluator, and sparse results handed back:
the pieces a compiled evaluator needs at call time.

Kept apart from ``evaluate`` and ``ops`` (which build SymPy rules when imported) so
that an evaluator loaded or unpickled in a new process imports numpy and Numba
only (``symgrad.shipping``).  ``evaluate`` and ``ops`` re-export these names.

Imports errors and dims (numpy and hashlib only).

>>> fits((3, 2), (Dim.fresh("n_x"), 2)), fits((3,), (2,))
(True, False)
"""
from __future__ import annotations

import functools
import hashlib

import numpy as np

from .errors import FeedError
from .dims import Dim, is_static, shape_text, whole_size


def fits(shape, static):
    """True when a value of ``shape`` fits the static shape (None dims take any size;
    a static shape of None, unknown rank, takes any shape)."""
    return static is None or len(shape) == len(static) and all(
        isinstance(s, Dim) or d == s for d, s in zip(shape, static))


def bind_dims(values):
    """``{size symbol: int}`` from the shapes of values ``{node: array}`` with unknown dims.

    Raises FeedError when two values give one unknown size two values.
    """
    bindings, compound = {}, []
    for node, value in values.items():
        if node.shape is None or is_static(node.shape):
            continue
        for d, n in zip(node.shape, value.shape if isinstance(value, np.ndarray)
                        else np.shape(value)):
            key = d.symbol if isinstance(d, Dim) else None
            if key is not None:
                _bind(bindings, key, n, node)
            elif isinstance(d, Dim):
                compound.append((d, n, node))
    # a size no symbol gives (a loop body's input of n_x * n_y rows, its factors fed
    # outside the body) is bound as a whole: size_at reads it
    for d, n, node in compound:
        if not all(s in bindings for s in d.symbols()):
            _bind(bindings, whole_size(d), n, node)
    return bindings


def _bind(bindings, key, n, node):
    if bindings.setdefault(key, n) != n:
        shown = key[1] if isinstance(key, tuple) else key
        raise FeedError(f"feed_dict: the unknown size {shown} is {bindings[key]} in one value "
                        f"and {n} in {node.name!r} (shape {shape_text(node.shape)})")


def cast_value(arr, dtype, what, error=ValueError):
    """``arr`` cast to ``dtype`` as numpy casts (floats to ints truncate toward zero).

    A float no integer of ``dtype`` can hold (nan, inf, 1e30) raises ``error``:
    numpy's result there is platform-defined garbage, so symgrad refuses it.
    """
    dtype = np.dtype(dtype)
    if dtype.kind in "iu" and arr.dtype.kind == "f":
        info = np.iinfo(dtype)
        with np.errstate(invalid="ignore"):
            fits = (arr >= float(info.min)) & (arr < float(info.max) + 1.0)  # nan: False
        if not np.all(fits):
            bad = np.asarray(arr)[~fits].flat[0]
            raise error(f"{what} has the value {float(bad)!r}, which the integer dtype "
                        f"{dtype} cannot hold; feed finite numbers in [{info.min}, {info.max}]")
    return arr.astype(dtype, copy=False)


def is_sparse_result(t):
    """Whether ``t`` is a sparse result (``sparse=True``: a ``sparse.SparseTensor``,
    its stored entries in ``.values`` placed by a :class:`SparseLayout`), not a tensor
    of the graph."""
    return isinstance(getattr(t, "layout", None), SparseLayout)


class SparseLayout:
    """Where the values of a sparse result go: CSR index arrays and the shape (picklable).

    The index arrays are computed once, when the result is built.  Wrapping a call's
    values gives :func:`csr_result`'s matrix: those values and its own copies of the
    index arrays (so ``eliminate_zeros()`` on one result cannot change the next), the
    first one per layout and process checked by scipy's constructor, later ones
    without its O(nnz) validation.
    """

    def __init__(self, shape, indptr, indices):
        self.shape, self.indptr, self.indices = tuple(shape), indptr, indices

    @functools.cached_property
    def digest(self):
        """The layout's name: a hash of its shape and index arrays (the key of
        :func:`csr_result` and of a compiled module's ``TABLES``)."""
        h = hashlib.sha256(repr(tuple(self.shape)).encode())
        for a in (self.indptr, self.indices):
            h.update(a.dtype.str.encode() + a.tobytes())
        return h.hexdigest()[:24]

    def wrap(self, values):
        """The ``scipy.sparse.csr_matrix`` holding ``values`` (one per stored entry)."""
        if type(values) is not np.ndarray or values.dtype is not _F8 or values.ndim != 1:
            values = np.asarray(values, dtype=np.float64).reshape(-1)
        if values.shape[0] != len(self.indices):
            raise ValueError(f"sparse result: {values.size} values for "
                             f"{len(self.indices)} stored entries")
        return csr_result(self.shape, self.digest, values, self.indices.copy(),
                          self.indptr.copy())


_F8 = np.dtype(np.float64)


def csr_result(shape, digest, data, indices, indptr):
    """The ``scipy.sparse.csr_matrix`` of a compiled sparse result (``lower.boxing``).

    The machine code hands over the values and copies of the layout ``digest``'s index
    arrays made for this result alone (so ``eliminate_zeros()`` and the like on one
    result cannot change the next).  The first result of a layout in a process is built
    by scipy's documented constructor, which checks the index arrays; the later ones
    are new objects with that matrix's state and the new arrays, without the
    constructor's O(nnz) checks -- unless the first check found that such an object
    would differ from the constructor's in anything (another scipy), then every result
    is made by the constructor.
    """
    known = _CSR_STATES.get(digest)
    if known is None:
        return _first_csr(shape, digest, data, indices, indptr)
    cls, state = known
    if state is None:
        return cls((data, indices, indptr), shape=shape, copy=False)
    return _unchecked(cls, state, data, indices, indptr)


def _unchecked(cls, state, data, indices, indptr):
    """A new ``cls`` matrix with attributes ``state`` and these arrays, made without
    the constructor (and its O(nnz) checks)."""
    fields = state.copy()   # (a copied dict, assigned whole: ~0.5 us; update() ~1.3)
    fields["data"], fields["indices"], fields["indptr"] = data, indices, indptr
    out = object.__new__(cls)
    out.__dict__ = fields
    return out


class CsrMaker:
    """Makes the results of one sparse layout (one maker per layout and process:
    :func:`csr_maker`).  Called with a result's arrays it gives ``csr_result``; once
    the first result has been checked, ``fast`` is ``(cls, state)`` -- the matrix class
    (whose empty object the machine code makes as ``object.__new__(cls)`` does) and
    its attributes besides the arrays -- and the machine code builds the later
    results from it itself (``lower.boxing``), with no Python call; ``fast`` stays
    None where the constructor makes every result."""

    def __init__(self, shape, digest):
        self.shape, self.digest, self.fast = tuple(shape), digest, None

    def __reduce__(self):   # (unpickled: the process's own maker, checked anew)
        return csr_maker, (self.shape, self.digest)

    def __call__(self, data, indices, indptr):
        out = csr_result(self.shape, self.digest, data, indices, indptr)
        cls, state = _CSR_STATES[self.digest]
        if state is not None:
            self.fast = (cls, state)
        return out


def csr_maker(shape, digest):
    """The process's :class:`CsrMaker` of the layout ``digest``."""
    maker = _CSR_MAKERS.get(digest)
    if maker is None:
        maker = _CSR_MAKERS[digest] = CsrMaker(shape, digest)
    return maker


def _first_csr(shape, digest, data, indices, indptr):
    try:
        from scipy.sparse import csr_matrix
    except ImportError:  # pragma: no cover (scipy is in the test and sparse extras)
        raise ImportError("sparse results are scipy.sparse.csr_matrix: pip install "
                          "scipy (or symgrad[sparse])") from None
    made = csr_matrix((data, indices, indptr), shape=shape, copy=False)
    made.check_format(full_check=True)
    state = {k: v for k, v in made.__dict__.items() if k not in _CSR_ARRAYS}
    copy = _unchecked(csr_matrix, state, data, indices, indptr)
    _CSR_STATES[digest] = (csr_matrix, state if same_csr(copy, made) else None)
    return made


def same_csr(a, b):
    """Whether ``a`` and ``b`` are the same kind of matrix with the same state: the
    same attributes, equal values, arrays of the same dtype and shape."""
    if type(a) is not type(b) or a.__dict__.keys() != b.__dict__.keys():
        return False
    for key, value in a.__dict__.items():
        other = b.__dict__[key]
        if isinstance(value, np.ndarray) or isinstance(other, np.ndarray):
            if not (isinstance(value, np.ndarray) and isinstance(other, np.ndarray)
                    and value.dtype == other.dtype and value.shape == other.shape
                    and np.array_equal(value, other, equal_nan=True)):
                return False
        elif type(value) is not type(other) or not _equal(value, other):
            return False
    return True


def _equal(a, b):
    try:
        return bool(a == b)
    except Exception:   # (an attribute without a plain equality: count it as different)
        return False


_CSR_ARRAYS = ("data", "indices", "indptr")
_CSR_STATES = {}  # layout digest -> (class, state); state None: use the constructor
_CSR_MAKERS = {}  # layout digest -> CsrMaker
