"""Temporaries that are never alive at the same time share one buffer.

Each ``("buf", k)`` of a Program is alive from the first statement that touches
it to the last one that reads it.  Buffers whose lifetimes do not overlap are
renamed to one buffer (its size the largest of theirs; sizes known only at call
time share only with the same size expression), so a kernel of many large
temporaries touches, and allocates, the memory of the few alive at once.  The
statements themselves are unchanged: only refs are renamed, and a buffer is
reused only by a statement after the last statement that reads its old value.

Imports ``lower.loopfuse``.

>>> from symgrad.lower.ir import Loop, Program
>>> p = Program(buffers=[4, 4, 4], stmts=[
...     Loop((4,), 1, ("buf", 0), ("aff", 0, (1,)), [], (("const", "0x0.0p+0"),)),
...     Loop((4,), 1, ("buf", 1), ("aff", 0, (1,)), [(("buf", 0), ("aff", 3, (-1,)))],
...          (("arg", 0),)),
...     Loop((4,), 1, ("buf", 2), ("aff", 0, (1,)), [(("buf", 1), ("aff", 3, (-1,)))],
...          (("arg", 0),))])
>>> share_buffers(p); [s.dst for s in p.stmts], p.buffers
([('buf', 0), ('buf', 1), ('buf', 0)], [4, 4])

(Reading in reverse keeps the three loops apart; in one nest all three would be alive.)
"""
from __future__ import annotations

from ..graph import Dim
from . import loopfuse


def lifetimes(program, groups=None):
    """``{k: (first, last)}``: the statements (or, given ``groups`` of statements run
    in one loop nest, the groups) between which ``("buf", k)`` is alive."""
    span = {}
    for n, group in enumerate(groups or ([st] for st in program.stmts)):
        for st in group:
            for ref in (st.dst,) + tuple(r for r, _ in st.srcs):
                if ref[0] == "buf":
                    first, _ = span.get(ref[1], (n, n))
                    span[ref[1]] = (first, n)
    return span


def share_buffers(program):
    """Rename the Program's buffers so that no two alive at once share, and no more
    are used than are alive at once (greedy by first use).  Unused buffers go.

    Statements the emitter runs in one loop nest (``lower.loopfuse``) are put in its
    order first, and all buffers a nest touches are alive over all of it."""
    planned = loopfuse.plan(program, program.stmts)
    groups = [group for _, group in planned]
    program.stmts = [st for group in groups for st in group]
    loopfuse.remember(program, planned)   # the emitter's plan: renaming keeps it legal
    span = lifetimes(program, groups)
    slots, free, rename = [], [], {}   # slots: sizes; free: (last use, slot)
    for k in sorted(span, key=lambda k: span[k]):
        first, last = span[k]
        size = program.buffers[k]
        pick = next((i for i, (end, s) in enumerate(free)
                     if end < first and _fits(slots[s], size)), None)
        if pick is None:
            slots.append(size)
            slot = len(slots) - 1
        else:
            slot = free.pop(pick)[1]
            if not isinstance(size, Dim):
                slots[slot] = max(slots[slot], size)
        rename[k] = slot
        free.append((last, slot))
    program.buffers = slots
    for st in program.stmts:
        if st.dst[0] == "buf":
            st.dst = ("buf", rename[st.dst[1]])
        st.srcs = tuple((("buf", rename[r[1]]) if r[0] == "buf" else r, a) for r, a in st.srcs)


def _fits(slot, size):
    """Whether a buffer of ``size`` may live in ``slot`` (ints pool; Dims match exactly)."""
    if isinstance(slot, Dim) or isinstance(size, Dim):
        return isinstance(slot, Dim) and isinstance(size, Dim) and slot.expr == size.expr
    return True
