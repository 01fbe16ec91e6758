"""TF's random numbers, bit for bit: the Philox4x32-10 counter generator and the
distributions TF's CPU kernels build on it (``RandomUniform``,
``RandomStandardNormal``, ``TruncatedNormal``), so that a TF1 program whose random ops
carry seeds prints the numbers TF prints.

TF seeds an op with two numbers ``(seed, seed2)`` (``tf.set_random_seed``'s value, or
87654321 when none is set, and the op's ``seed=``): ``seed`` is the generator's key,
``seed2`` the high half of its 128-bit counter.  Each execution of the op (each
``Session.run`` that computes it) reserves ``256 * n`` counter values for its ``n``
numbers (:func:`reserved`), so an execution starts where the ones before it ended.  One generator call (a counter
value) gives four 32-bit words; a float32 uniform takes one word (23 bits of mantissa),
a float64 two; normals pair uniforms by Box-Muller; truncated normals reject beyond two
standard deviations, each group of outputs restarting 256 counter values further on.
The numbers are made in float32 or float64 as TF makes them, with the same C library
functions.

Imports numpy (and Numba, for the C library's log, sin and cos, when normals are made).

>>> uniform((3,), np.float32, (1, 2))   # TF: tf.set_random_seed(1); tf.random_uniform([3], seed=2)
array([0.40639675, 0.8575996 , 0.05539584], dtype=float32)
"""
from __future__ import annotations

import numpy as np

DEFAULT_GRAPH_SEED = 87654321   # TF's seed when only the op's is given
_MULTIPLIERS = (np.uint64(0xD2511F53), np.uint64(0xCD9E8D57))
_KEY_STEPS = (np.uint32(0x9E3779B9), np.uint32(0xBB67AE85))
_WORDS_PER_CALL = 4
_RESERVED_PER_OUTPUT = 256   # counter values an execution reserves per number


def tf_seeds(graph_seed, op_seed):
    """The op's ``(seed, seed2)`` as TF's ``random_seed.get_seed`` gives them, or None
    where TF's numbers depend on how many ops the graph holds (no op seed) or are not
    reproducible (no seed at all)."""
    if op_seed is None:
        return None
    first = DEFAULT_GRAPH_SEED if graph_seed is None else int(graph_seed) % (2**31 - 1)
    seeds = (first, int(op_seed) % (2**31 - 1))
    return (0, 2**31 - 1) if seeds == (0, 0) else seeds


def _words(seeds, start, count, numba_in_use=False):
    """``count`` generator calls from counter ``start`` (an integer below 2**64):
    an array (count, 4) of uint32 words."""
    return _words_at(seeds, np.arange(count, dtype=np.uint64) + np.uint64(start),
                     numba_in_use)


def _words_at(seeds, positions, numba_in_use=False):
    """The generator calls at counter values ``positions`` (uint64): (n, 4) uint32.
    ``numba_in_use``: the caller loads a compiled function anyway (Box-Muller)."""
    seed, seed2 = (int(s) & (2**64 - 1) for s in seeds)
    if positions.size >= (COMPILED_FROM if numba_in_use or _PHILOX else FIRST_COMPILED_FROM):
        return _philox_kernel()(np.ascontiguousarray(positions, dtype=np.uint64),
                                np.uint64(seed & 0xFFFFFFFF), np.uint64(seed >> 32),
                                np.uint64(seed2 & 0xFFFFFFFF), np.uint64(seed2 >> 32))
    count = positions.size
    c = [positions & np.uint64(0xFFFFFFFF), positions >> np.uint64(32),
         np.full(count, seed2 & 0xFFFFFFFF, np.uint64), np.full(count, seed2 >> 32, np.uint64)]
    key = [np.uint32(seed & 0xFFFFFFFF), np.uint32(seed >> 32)]
    with np.errstate(over="ignore"):
        for round_ in range(10):
            c = _round(c, key)
            if round_ < 9:
                key = [key[0] + _KEY_STEPS[0], key[1] + _KEY_STEPS[1]]
    return np.stack([w.astype(np.uint32) for w in c], axis=1)


# From this many generator calls the words come from a compiled loop: the numpy rounds
# cost ~0.6 us a call (a 3136 x 1024 truncated normal: 2 s), the loop ~15 ns.  The
# first compiled function a process calls costs ~0.4 s (Numba's start, even from its
# disk cache): worth it from FIRST_COMPILED_FROM calls, or where Box-Muller needs it.
COMPILED_FROM = 1 << 12
FIRST_COMPILED_FROM = 1 << 19
_PHILOX = []


def _philox_kernel():
    """The compiled generator: the same ten rounds as :func:`_round`, call by call."""
    if not _PHILOX:
        from numba import njit

        @njit(cache=True)
        def philox(positions, key0, key1, high0, high1):
            # (_MULTIPLIERS and _KEY_STEPS: written out, a cached function has no closure)
            m0, m1 = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
            step0, step1 = np.uint64(0x9E3779B9), np.uint64(0xBB67AE85)
            low, shift = np.uint64(0xFFFFFFFF), np.uint64(32)
            out = np.empty((positions.size, 4), dtype=np.uint32)
            for i in range(positions.size):
                c0, c1 = positions[i] & low, positions[i] >> shift
                c2, c3 = high0, high1
                k0, k1 = key0, key1
                for _ in range(10):
                    p0, p1 = m0 * c0, m1 * c2
                    c0, c1, c2, c3 = ((p1 >> shift) ^ c1 ^ k0, p1 & low,
                                      (p0 >> shift) ^ c3 ^ k1, p0 & low)
                    k0, k1 = (k0 + step0) & low, (k1 + step1) & low
                out[i, 0], out[i, 1], out[i, 2], out[i, 3] = c0, c1, c2, c3
            return out
        _PHILOX.append(philox)
    return _PHILOX[0]


def _round(c, key):
    # one Philox round: two 32x32 -> 64-bit products mixed with the key
    p0, p1 = _MULTIPLIERS[0] * c[0], _MULTIPLIERS[1] * c[2]
    mask = np.uint64(0xFFFFFFFF)
    hi0, lo0, hi1, lo1 = p0 >> np.uint64(32), p0 & mask, p1 >> np.uint64(32), p1 & mask
    return [hi1 ^ c[1] ^ np.uint64(key[0]), lo1, hi0 ^ c[3] ^ np.uint64(key[1]), lo0]


def _unit(words, dtype):
    """Uniform numbers in [0, 1) from 32-bit words: one word each for float32 (its low
    23 bits), two for float64 (20 bits of the first, 32 of the second)."""
    if np.dtype(dtype) == np.float32:
        bits = (words.astype(np.uint32) & np.uint32(0x7FFFFF)) | np.uint32(127 << 23)
        return bits.view(np.float32) - np.float32(1.0)
    pairs = words.reshape(-1, 2).astype(np.uint64)
    mantissa = ((pairs[:, 0] & np.uint64(0xFFFFF)) << np.uint64(32)) | pairs[:, 1]
    return (mantissa | np.uint64(1023 << 52)).view(np.float64) - 1.0


def _box_muller(u1, u2, dtype):
    """Normal pairs from uniform pairs (arrays of ``dtype``), as TF's BoxMuller: u1 kept
    above 1e-7, the angle 2 pi u2 rounded to ``dtype`` from double precision (TF's
    M_PI is a double), then the C library's log, sin and cos of ``dtype`` (numpy's own
    float32 sin differs from them in the last bit for one number in ten)."""
    kernel = _box_muller_kernel()
    return kernel(np.ascontiguousarray(u1, dtype=dtype), np.ascontiguousarray(u2, dtype=dtype))


_KERNEL = []


def _box_muller_kernel():
    if not _KERNEL:
        import math

        from numba import njit

        @njit(cache=True)
        def box_muller(u1, u2):   # Numba's math functions call the C library's
            z0, z1 = np.empty_like(u1), np.empty_like(u1)
            for i in range(u1.size):
                low = max(u1[i], u1.dtype.type(1.0e-7))
                radius = math.sqrt(u1.dtype.type(-2.0) * math.log(low))
                angle = u1.dtype.type(2.0 * math.pi * np.float64(u2[i]))
                z0[i] = math.sin(angle) * radius
                z1[i] = math.cos(angle) * radius
            return z0, z1
        _KERNEL.append(box_muller)
    return _KERNEL[0]


def _per_call(dtype):
    return 4 if np.dtype(dtype) == np.float32 else 2   # numbers one call makes


_STATELESS_KEY = (0x02461E29 << 32) | 0x3EC8F720   # the key TF scrambles seeds with


def stateless_seeds(seed0, seed1):
    """The ``(key, counter high half)`` TF's stateless ops (``StatelessRandomGetKeyCounter``)
    draw with for the seed pair ``[seed0, seed1]``: one generator call at counter
    ``(seed0, seed1)`` under a fixed key; its first two words are the key, its last two
    the counter's high half (the low half starts at 0)."""
    seed0, seed1 = (int(s) & (2**64 - 1) for s in (seed0, seed1))
    w = [int(v) for v in _words_at((_STATELESS_KEY, seed1), np.array([seed0], np.uint64))[0]]
    return w[0] | w[1] << 32, w[2] | w[3] << 32


def reserved(shape):
    """How far one execution of an op of ``shape`` moves the op's counter."""
    return _RESERVED_PER_OUTPUT * int(np.prod(shape, dtype=np.int64))


def uniform(shape, dtype, seeds, start=0):
    """TF's ``RandomUniform`` of ``shape`` and float ``dtype`` from counter ``start``
    (0 at the op's first execution, then the sum of :func:`reserved` of those before)."""
    n = int(np.prod(shape, dtype=np.int64))
    calls = -(-n // _per_call(dtype))
    words = _words(seeds, start, calls)
    return _unit(words.ravel(), dtype)[:n].reshape(shape)


def uniform_int(shape, dtype, seeds, low, high, start=0):
    """TF's ``RandomUniformInt``: ``low + word % (high - low)``, one 32-bit word per
    int32, two (low word first) per int64."""
    n = int(np.prod(shape, dtype=np.int64))
    wide = np.dtype(dtype) == np.int64
    words = _words(seeds, start, -(-n // (2 if wide else 4))).ravel()
    if wide:
        pairs = words.reshape(-1, 2).astype(np.uint64)
        bits = pairs[:, 0] | (pairs[:, 1] << np.uint64(32))
        span = np.uint64((int(high) - int(low)) % 2**64)
    else:
        bits, span = words, np.uint32((int(high) - int(low)) % 2**32)
    with np.errstate(over="ignore"):
        out = (bits % span).astype(dtype) + np.dtype(dtype).type(low)
    return out[:n].reshape(shape)


def shuffle_reserved(shape):
    """How far one ``RandomShuffle`` of a first axis of ``shape[0]`` moves the counter:
    one 32-bit word per swap, four to a call."""
    return (max(int(shape[0]) - 1, 0) + 3) // 4


def permutation(n, seeds, start=0):
    """The order ``RandomShuffle`` gives a first axis of ``n`` (rows ``out[k] =
    in[order[k]]``): Fisher-Yates from the front, swapping entry i with entry
    ``i + word_i % (n - i)``."""
    order = np.arange(n, dtype=np.int64)
    if n <= 1:
        return order
    words = _words(seeds, start, shuffle_reserved((n,))).ravel()
    for i in range(n - 1):
        j = i + int(words[i]) % (n - i)
        order[i], order[j] = order[j], order[i]
    return order


def normal(shape, dtype, seeds, start=0):
    """TF's ``RandomStandardNormal``: Box-Muller over consecutive uniform pairs."""
    n = int(np.prod(shape, dtype=np.int64))
    calls = -(-n // _per_call(dtype))
    u = _unit(_words(seeds, start, calls, numba_in_use=True).ravel(), dtype)
    z0, z1 = _box_muller(u[0::2], u[1::2], dtype)
    return np.stack([z0, z1], axis=1).ravel()[:n].reshape(shape)


def truncated_normal(shape, dtype, seeds, start=0):
    """TF's ``TruncatedNormal``: each group of ``per_call`` outputs takes Box-Muller
    pairs from its own stretch of the counter and keeps, in order, the values below 2
    in magnitude (about 19 in 20)."""
    n = int(np.prod(shape, dtype=np.int64))
    per = _per_call(dtype)
    groups = -(-n // per)
    stretch = per * _RESERVED_PER_OUTPUT // _WORDS_PER_CALL   # calls between groups
    first = np.uint64(start) + \
        np.arange(groups, dtype=np.uint64) * np.uint64(stretch)
    # one call per group first (enough for ~5 groups in 6), then four for the groups
    # short of outputs, then (p < 1e-8) one call at a time
    out = np.empty((groups, per), dtype=dtype)
    todo = np.arange(groups)
    for tried in (1, _TRIED_CALLS):
        if not todo.size:
            break
        rows, short = _first_calls(seeds, first[todo], per, dtype, tried)
        out[todo[~short]] = rows
        todo = todo[short]
    for g in todo:
        out[g] = _truncated_group(seeds, int(first[g]), per, dtype)
    return out.ravel()[:n].reshape(shape)


def _first_calls(seeds, first, per, dtype, tried):
    """Each group's outputs from its first ``tried`` calls: (rows of the groups that
    kept ``per`` values, which groups fell short)."""
    calls = first[:, None] + np.arange(tried, dtype=np.uint64)
    u = _unit(_words_at(seeds, calls.ravel(), numba_in_use=True).ravel(), dtype)
    z0, z1 = _box_muller(u[0::2], u[1::2], dtype)
    z = np.stack([z0, z1], axis=1).reshape(first.size, -1)
    kept = np.abs(z) < 2.0
    short = kept.sum(axis=1) < per
    full = ~short
    take = kept & (np.cumsum(kept, axis=1) <= per)
    return z[full][take[full]].reshape(-1, per), short


_TRIED_CALLS = 4


def _truncated_group(seeds, start, per, dtype):
    """One group's outputs, one generator call at a time."""
    kept, call = [], 0
    while len(kept) < per:
        u = _unit(_words(seeds, start + call, 1).ravel(), dtype)
        call += 1
        z0, z1 = _box_muller(u[0::2], u[1::2], dtype)
        kept += [v for pair in zip(z0, z1) for v in pair if abs(v) < 2.0]
    return np.array(kept[:per], dtype=dtype)


__all__ = ["DEFAULT_GRAPH_SEED", "tf_seeds", "reserved", "shuffle_reserved", "permutation",
           "uniform", "uniform_int", "normal",
           "truncated_normal"]
