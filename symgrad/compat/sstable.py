"""The sorted key/value table file (LevelDB's "SSTable") that TF's checkpoint index is.

A table is data blocks of sorted entries, an empty "metaindex" block, an index block
(one entry per data block: a key between that block's last key and the next block's
first, and the block's handle) and a 48-byte footer.  A handle is an (offset, size)
pair of varints.  Each block is entries ``varint shared, varint unshared, varint
value size, the key's unshared tail, value`` (``shared`` bytes come from the previous
key), a fixed32 list of "restart" offsets where ``shared`` is 0, and their count;
then a trailer: a compression byte (0, none) and the masked CRC-32C of block and byte.
The footer is the two handles, zero padding to 40 bytes and TF's magic number.

Written as TF writes it (blocks of 256 KiB, a restart every 16 entries, no
compression), so the same entries give the same bytes.

Sits in ``compat``; imports ``compat.crc32c`` and ``compat.protobuf``.

>>> read_table(write_table([(b"", b"head"), (b"w", b"value")]))
[(b'', b'head'), (b'w', b'value')]
"""
from __future__ import annotations

import struct

from .crc32c import masked_crc32c
from .protobuf import decode_varint as _decode_varint
from .protobuf import encode_varint

__all__ = ["write_table", "read_table", "encode_varint", "decode_varint", "TableError"]

MAGIC = 0xDB4775248B80FB57   # TF's table magic number (LevelDB's)
BLOCK_SIZE = 262144          # TF's table options: flush a data block past this size
RESTART_INTERVAL = 16
_FOOTER = 48
_TRAILER = 5


class TableError(ValueError):
    """A file is not a table TF could have written (truncated, corrupt, compressed)."""


def decode_varint(data, at):
    """``(value, position after it)`` of the varint at ``data[at]`` (TableError past the
    end)."""
    return _decode_varint(data, at, TableError)


class _Block:
    """Entries being gathered into one block (prefix-compressed keys, restarts)."""

    def __init__(self, restart_interval):
        self.interval, self.buffer, self.restarts = restart_interval, bytearray(), [0]
        self.count, self.last = 0, b""

    def add(self, key, value):
        shared = 0
        if self.count < self.interval:
            limit = min(len(key), len(self.last))
            while shared < limit and key[shared] == self.last[shared]:
                shared += 1
        else:
            self.restarts.append(len(self.buffer))
            self.count = 0
        self.buffer += encode_varint(shared) + encode_varint(len(key) - shared)
        self.buffer += encode_varint(len(value)) + key[shared:] + value
        self.count, self.last = self.count + 1, key

    def size(self):
        return len(self.buffer) + 4 * len(self.restarts) + 4

    def finish(self):
        return bytes(self.buffer) + struct.pack(f"<{len(self.restarts) + 1}I",
                                                *self.restarts, len(self.restarts))


def _separator(start, limit):
    """A short key >= ``start`` and < ``limit`` (LevelDB's bytewise comparator)."""
    common = 0
    while common < min(len(start), len(limit)) and start[common] == limit[common]:
        common += 1
    if common < min(len(start), len(limit)):
        byte = start[common]
        if byte < 0xFF and byte + 1 < limit[common]:
            return start[:common] + bytes([byte + 1])
    return start


def _successor(key):
    """A short key >= ``key`` (its first byte below 0xFF raised by one, cut after)."""
    for i, byte in enumerate(key):
        if byte != 0xFF:
            return key[:i] + bytes([byte + 1])
    return key


def _handle(offset, size):
    return encode_varint(offset) + encode_varint(size)


class _Writer:
    """The file being assembled: blocks with trailers, and the pending index entry."""

    def __init__(self):
        self.out, self.index = bytearray(), _Block(1)
        self.block, self.pending = _Block(RESTART_INTERVAL), None

    def put_block(self, block):
        body = block.finish() + b"\x00"                 # compression byte: none
        handle = (len(self.out), len(body) - 1)
        self.out += body + struct.pack("<I", masked_crc32c(body))
        return handle

    def add(self, key, value):
        if self.pending is not None:
            self.index.add(_separator(self.block_last, key), _handle(*self.pending))
            self.pending = None
        self.block.add(key, value)
        if self.block.size() >= BLOCK_SIZE:
            self.flush()

    def flush(self):
        if self.block.buffer:     # (an empty block is never written as data)
            self.block_last = self.block.last
            self.pending = self.put_block(self.block)
            self.block = _Block(RESTART_INTERVAL)

    def finish(self):
        self.flush()
        meta = self.put_block(_Block(RESTART_INTERVAL))
        if self.pending is not None:
            self.index.add(_successor(self.block_last), _handle(*self.pending))
        index = self.put_block(self.index)
        footer = (_handle(*meta) + _handle(*index)).ljust(_FOOTER - 8, b"\x00")
        return bytes(self.out + footer + struct.pack("<Q", MAGIC))


def write_table(entries):
    """The bytes of a table holding ``entries``, ``(key, value)`` bytes pairs given in
    increasing key order (bytewise)."""
    writer, last = _Writer(), None
    for key, value in entries:
        if last is not None and key <= last:
            raise ValueError(f"write_table: keys must increase, got {key!r} after {last!r}")
        writer.add(bytes(key), bytes(value))
        last = key
    return writer.finish()


def _block_at(data, handle, what):
    """The contents of the block at ``handle``, its trailer checked."""
    offset, size = handle
    if offset + size + _TRAILER > len(data):
        raise TableError(f"the {what} block runs past the end of the file")
    body = data[offset:offset + size + 1]
    if body[-1] != 0:
        raise TableError(f"the {what} block is compressed (type {body[-1]}); TF writes "
                         "checkpoint indexes uncompressed, symgrad reads only those")
    (stored,) = struct.unpack_from("<I", data, offset + size + 1)
    if stored != masked_crc32c(body):
        raise TableError(f"the {what} block's checksum does not match (corrupt file)")
    return body[:-1]


def _entries(block):
    """The ``(key, value)`` pairs of a block's contents."""
    (restarts,) = struct.unpack_from("<I", block, len(block) - 4)
    end, at, key, out = len(block) - 4 - 4 * restarts, 0, b"", []
    while at < end:
        shared, at = decode_varint(block, at)
        unshared, at = decode_varint(block, at)
        size, at = decode_varint(block, at)
        key = key[:shared] + bytes(block[at:at + unshared])
        at += unshared
        out.append((key, bytes(block[at:at + size])))
        at += size
    return out


def read_table(data):
    """The ``(key, value)`` pairs of a table file's bytes, in key order.

    Raises:
        TableError: the bytes are not such a table (no magic number, a bad checksum).
    """
    data = memoryview(data)
    if len(data) < _FOOTER or struct.unpack_from("<Q", data, len(data) - 8)[0] != MAGIC:
        raise TableError("not a TF table file (no table magic number at its end)")
    footer = data[len(data) - _FOOTER:]
    _, at = decode_varint(footer, decode_varint(footer, 0)[1])   # skip the metaindex
    offset, at = decode_varint(footer, at)
    size, _ = decode_varint(footer, at)
    out = []
    for _, handle in _entries(_block_at(data, (offset, size), "index")):
        block_offset, at = decode_varint(handle, 0)
        out += _entries(_block_at(data, (block_offset, decode_varint(handle, at)[0]), "data"))
    return out
