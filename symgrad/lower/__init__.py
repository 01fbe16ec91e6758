"""Lowering: graphs -> a loop IR -> LLVM IR inside Numba, plus the disk cache.

- ``ir``: the loop IR (:class:`Program`, :class:`Loop`), addresses, node and graph keys.
- ``program``: graph -> Program, op by op *kind* (elementwise, structural, reduce,
  contract, special); with the mixins ``inplace`` (gradient sums scatter in place),
  ``reuse`` (cross-node CSE for array bodies) and ``fuse`` (loop fusion);
  ``liveness`` then lets temporaries never alive together share one buffer.
- ``scalar``: SymPy expressions -> SSA instruction lists (the scalar bodies).
- ``llvm``: Program -> LLVM IR in a Numba ``@intrinsic``.
- ``source``: Program -> readable Python (``f.source``).
- ``module``: the text of a generated module; ``runtime``: what it calls.
- ``cache``: the cache directory, keys, atomic writes, checksums, imports.

Imports graph, ops, evaluate, symbolic; numba only in ``llvm``/``runtime`` (loaded
when a function is compiled, so ``import symgrad`` does not import numba).

>>> from symgrad.lower.ir import Program
>>> Program().stmts
[]
"""
