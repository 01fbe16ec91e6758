"""CRC-32C (Castagnoli), the checksum of TF's checkpoint files, and TF's "masked" form.

Python's standard library has only CRC-32 (``zlib.crc32``, another polynomial), so
this is table driven: one byte at a time in plain Python for short inputs, and for
long ones many equal lanes at once with numpy, joined by the rule that a CRC is
linear in its starting state (``update(c, lane)`` equals ``shift(c) ^ update(0, lane)``
where ``shift`` runs ``c`` over the lane's length of zero bytes; ``shift`` is linear
over GF(2), so four 256-entry tables hold it).

Sits in ``compat``; imports numpy only.

>>> hex(crc32c(b"123456789"))      # the standard check value of CRC-32C
'0xe3069283'
>>> hex(masked_crc32c(b"123456789"))
'0xc78ab0e5'
"""
from __future__ import annotations

import numpy as np

__all__ = ["crc32c", "masked_crc32c", "unmask"]

_POLY = 0x82F63B78          # Castagnoli's polynomial, bit-reflected
_MASK_DELTA = 0xA282EAD8    # TF's (LevelDB's) constant for masked checksums
_LANES_FROM = 1 << 14       # below this many bytes the plain loop is fast enough


def _table():
    table = np.arange(256, dtype=np.uint32)
    for _ in range(8):
        table = np.where(table & 1, (table >> 1) ^ np.uint32(_POLY), table >> 1)
    return table.astype(np.uint32)


_TABLE = _table()
_TABLE_LIST = [int(t) for t in _TABLE]


def _update(state, data):
    """The register after feeding ``data`` (bytes) to ``state`` (no final inversion)."""
    table = _TABLE_LIST
    for byte in data:
        state = table[(state ^ byte) & 0xFF] ^ (state >> 8)
    return state


def _update_lanes(states, lanes):
    """:func:`_update` of each row of ``lanes`` (uint8, shape (n, length)) from ``states``."""
    states = states.astype(np.uint32)
    for column in lanes.T:
        states = _TABLE[(states ^ column) & 0xFF] ^ (states >> np.uint32(8))
    return states


def _shift_tables(length):
    """Four tables whose lookups of a state's bytes XOR to the state run over
    ``length`` zero bytes (linear in the state, so the 32 unit states decide it)."""
    units = np.uint32(1) << np.arange(32, dtype=np.uint32)
    images = _update_lanes(units, np.zeros((32, length), dtype=np.uint8))
    bits = (np.arange(256)[:, None] >> np.arange(8)[None, :]) & 1   # (256, 8)
    tables = []
    for k in range(4):
        picked = np.where(bits.astype(bool), images[None, 8 * k:8 * k + 8], np.uint32(0))
        tables.append([int(v) for v in np.bitwise_xor.reduce(picked, axis=1)])
    return tables


def _update_long(state, data):
    """:func:`_update` for long ``data``: equal lanes at once, then joined in order."""
    length = max(1, int(len(data) ** 0.5))
    head = len(data) % length
    state = _update(state, data[:head])
    lanes = np.frombuffer(data, dtype=np.uint8, offset=head).reshape(-1, length)
    parts = _update_lanes(np.zeros(len(lanes), dtype=np.uint32), lanes)
    t0, t1, t2, t3 = _shift_tables(length)
    for part in parts.tolist():
        state = (t0[state & 0xFF] ^ t1[(state >> 8) & 0xFF] ^ t2[(state >> 16) & 0xFF]
                 ^ t3[state >> 24] ^ part)
    return state


def crc32c(data):
    """The CRC-32C of ``data`` (bytes-like), as an int.

    >>> crc32c(b"")
    0
    """
    data = memoryview(data).cast("B")
    run = _update_long if len(data) >= _LANES_FROM else _update
    return run(0xFFFFFFFF, data) ^ 0xFFFFFFFF


def masked_crc32c(data):
    """TF's stored checksum: the CRC-32C rotated right by 15 bits plus a constant (so
    that a checksum of data holding checksums does not degenerate)."""
    crc = crc32c(data)
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + _MASK_DELTA) & 0xFFFFFFFF


def unmask(masked):
    """The CRC-32C that :func:`masked_crc32c` stored as ``masked``."""
    rotated = (masked - _MASK_DELTA) & 0xFFFFFFFF
    return ((rotated >> 17) | (rotated << 15)) & 0xFFFFFFFF
