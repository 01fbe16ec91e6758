"""The few pieces of the protocol-buffer wire format that TF's files need: varints,
field keys and a message's fields by number (event files, checkpoint indexes).

Sits in ``compat``; imports nothing of symgrad.

>>> message_fields(key(1, 0) + encode_varint(300) + key(2, 2) + encode_varint(2) + b"hi")
{1: [300], 2: [b'hi']}
"""
from __future__ import annotations

__all__ = ["encode_varint", "decode_varint", "key", "message_fields"]


def encode_varint(value):
    """Varint bytes of a non-negative int (7 bits a byte, low first)."""
    out = bytearray()
    while True:
        low, value = value & 0x7F, value >> 7
        out.append(low | (0x80 if value else 0))
        if not value:
            return bytes(out)


def decode_varint(data, at, error=ValueError):
    """``(value, position after it)`` of the varint at ``data[at]``; ``error`` when it
    runs past the end of ``data``."""
    value = shift = 0
    while True:
        if at >= len(data):
            raise error("a varint runs past the end of its data")
        byte = data[at]
        value |= (byte & 0x7F) << shift
        at, shift = at + 1, shift + 7
        if not byte & 0x80:
            return value, at


def key(field, wire):
    """A field's key: its number and wire type."""
    return encode_varint(field << 3 | wire)


def message_fields(data, raw_fixed=False):
    """``{field number: [values]}`` of a message: varints as ints, length-delimited
    fields as bytes, fixed64/fixed32 as little-endian ints (their bytes with
    ``raw_fixed``, for doubles and floats)."""
    out, at = {}, 0
    while at < len(data):
        tag, at = decode_varint(data, at)
        number, wire = tag >> 3, tag & 7
        if wire == 0:
            value, at = decode_varint(data, at)
        elif wire == 2:
            size, at = decode_varint(data, at)
            value, at = bytes(data[at:at + size]), at + size
        elif wire in (1, 5):
            width = 8 if wire == 1 else 4
            raw, at = bytes(data[at:at + width]), at + width
            value = raw if raw_fixed else int.from_bytes(raw, "little")
        else:
            raise ValueError(f"unexpected protobuf wire type {wire}")
        out.setdefault(number, []).append(value)
    return out
