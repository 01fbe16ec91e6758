"""Lowering: graphs -> a loop IR -> LLVM IR inside Numba, plus the disk cache.

- ``program``: graph -> :class:`Program` (loop statements over static shapes).
- ``scalar``: SymPy expressions -> SSA instruction lists (the scalar bodies).
- ``llvm``: Program -> LLVM IR in a Numba ``@intrinsic``.
- ``source``: Program -> readable Python (``f.source``).
- ``module``: the text of a generated module; ``runtime``: what it calls.
- ``cache``: the cache directory, atomic writes, checksums, imports.

Imports graph, ops, evaluate, symbolic; numba only in ``llvm``/``runtime`` (loaded
when a function is compiled).

>>> from symgrad.lower.ir import Program
>>> Program().stmts
[]
"""
