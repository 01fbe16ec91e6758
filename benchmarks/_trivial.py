"""The baseline of the cached-load figure: a trivial ``@njit(cache=True)`` function.

Its first call in a fresh process (numpy + Numba import, cache load) is Numba's
own start-up cost, which every Numba-based tool pays and which is not counted
against symgrad.
"""
from numba import njit


@njit(cache=True)
def trivial(v):
    return v + 1.0
