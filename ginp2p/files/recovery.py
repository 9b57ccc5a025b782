"""Finding the whole records in a file's bytes, and reading on past damage.

A game's files are msgpack-bin records after a header. A crash can tear only the last
record; damage (a flipped bit, bytes overwritten) can spoil one in the middle, and
every entry after it must still be read. :func:`parse_records` reads whole records
until something is no record; :class:`Recovery` answers, in time linear in the file's
length however it is damaged, whether whole records follow a spoilt stretch (then it
is damage, not a torn tail) and where reading can go on. Opening and reading the files
is :mod:`ginp2p.files.logfile`'s.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgpack

from ginp2p.proto import events as ev

__all__ = [
    "BIN_WIDTH",
    "MAX_RECORD",
    "Recovery",
    "holds",
    "is_secret",
    "is_wire",
    "parse_records",
    "record_span",
]

MAX_RECORD = ev.MAX_WIRE
#: the msgpack bin headers a record may begin with, and the width of their lengths
BIN_WIDTH = {0xC4: 1, 0xC5: 2, 0xC6: 4}


def parse_records(data: bytes, pos: int, recovery: Recovery | None = None
                   ) -> tuple[list[bytes], int, str | None]:  # fmt: skip
    """Whole msgpack-bin records from ``pos``: (records, end of the last whole one, why
    parsing stopped early or None). A record longer than what is left is "incomplete"
    (a crash's torn tail) unless whole records of this kind follow it (``recovery``
    asks that of the same bytes; without it, nothing is asked)."""
    out: list[bytes] = []
    n = len(data)
    while pos < n:
        width = BIN_WIDTH.get(data[pos])
        if width is None:
            return out, pos, "a byte that starts no record"
        if pos + 1 + width > n:
            return out, pos, "incomplete"
        length = int.from_bytes(data[pos + 1 : pos + 1 + width], "big")
        if length > MAX_RECORD:
            return out, pos, "a record longer than any entry"
        end = pos + 1 + width + length
        if end > n:
            if recovery is not None and recovery.records_follow(pos + 1 + width):
                return out, pos, "a damaged record length (whole records follow it)"
            return out, pos, "incomplete"
        out.append(data[pos + 1 + width : end])
        pos = end
    return out, pos, None


class Recovery:
    """What reading past damage asks of one file's bytes, in time linear in the file's
    length n: whether whole records follow a byte (:meth:`records_follow`) and where
    reading can go on (:meth:`next_start`).

    Asked naively, "do whole records run from some byte after here to the end?" reads
    the rest of the file again from every byte that could begin a record: n² steps, and
    bytes crafted so that most offsets begin a record (a run of empty records, say) took
    seconds at 16 KiB and minutes at 64 KiB. Instead:

    - ``follows[p]``: whole records of this kind run from ``p`` exactly to the end of
      the file (``follows[n]``: nothing is left). A record that begins at ``p`` ends
      after ``p``, so ``follows[p]`` needs only its header and ``follows`` of its end:
      the table is filled from the end backwards, O(1) an offset, and ``any_after[p]``
      (``follows[q]`` for some ``p <= q < n``) answers the question in O(1). It is
      filled only down to the lowest offset asked about: a torn tail costs its tail.
    - a record is decoded (to ask whether it holds what this kind of file holds) at
      most once an offset, memoised, and only where its header and the records after
      it leave the answer open; a decode reads one record, no longer than MAX_RECORD,
      in msgpack's C code, from a view of the file rather than a copy.
    - :meth:`next_start` only looks forward, and the reader
      (:func:`~ginp2p.files.logfile.read_records`) starts each search past where the
      last one read on: all the searches of one read visit an offset once, O(1) each
      apart from the memoised decodes.

    So one read of a file costs O(n) steps and at most n decodes however it is damaged,
    and no more than before on a file that is whole (nothing is asked of it). What is
    left is the decodes' own length: bytes where every few offsets begin a long record
    make each of those decodes read up to MAX_RECORD bytes (copied at memory speed)."""

    def __init__(self, data: bytes, whole: Callable[[Any], bool]) -> None:
        self._data = data
        self._view = memoryview(data)
        self._whole = whole
        self._held: dict[int, bool] = {}
        self._low = len(data)  # follows and any_after are known from here on
        self._follows = bytearray()
        self._any_after = bytearray()

    def records_follow(self, start: int) -> bool:
        """Whether, from some byte at or after ``start`` to the end of the file, whole
        records run that each hold what this kind of file holds. A record cut by a
        crash is the last thing in its file; one followed by such records was damaged
        instead, and cutting it would lose every entry after it."""
        self._fill(start)
        return self._any_after[start] == 1

    def next_start(self, start: int) -> int | None:
        """The first byte from ``start`` where reading can go on after damage: a whole
        record of this kind of file begins there, and the file ends after it or another
        such record begins (one record alone could be chance bytes inside a damaged
        one). None if there is none."""
        data, n = self._data, len(self._data)
        for at in range(start, n):
            first = record_span(data, at)
            if first is None:
                continue
            second = record_span(data, first[1]) if first[1] < n else None
            if first[1] < n and second is None:
                continue  # headers alone rule it out: no decode
            if self._holds_at(at, first) and (second is None or self._holds_at(first[1], second)):
                return at
        return None

    def _holds_at(self, at: int, frame: tuple[int, int]) -> bool:
        """Whether the record that begins at ``at`` (its bytes at ``frame``) holds what
        this kind of file holds; each offset's record is decoded once."""
        known = self._held.get(at)
        if known is None:
            known = self._held[at] = holds(self._view[frame[0] : frame[1]], self._whole)
        return known

    def _fill(self, start: int) -> None:
        """``follows`` and ``any_after`` from where they are known back to ``start``,
        each offset from offsets after it: every offset once over all the calls."""
        n = len(self._data)
        if not self._follows:
            self._follows, self._any_after = bytearray(n + 1), bytearray(n + 1)
            self._follows[n] = 1
        follows, any_after = self._follows, self._any_after
        for p in range(self._low - 1, start - 1, -1):
            frame = record_span(self._data, p)
            # the header, then the records after it, then (only then) a decode
            chained = frame is not None and follows[frame[1]] == 1 and self._holds_at(p, frame)
            follows[p] = chained
            any_after[p] = chained or any_after[p + 1] == 1
        self._low = min(self._low, start)


def record_span(data: bytes, pos: int) -> tuple[int, int] | None:
    """Where the bytes of the whole record that begins at ``pos`` begin and end, if one
    does (a bin header, a length no record exceeds, within the file): headers only."""
    n = len(data)
    width = BIN_WIDTH.get(data[pos]) if pos < n else None
    if width is None:
        return None
    start = pos + 1 + width
    if start > n:
        return None
    length = int.from_bytes(data[pos + 1 : start], "big")
    if length > MAX_RECORD or start + length > n:
        return None
    return start, start + length


def holds(record: bytes | memoryview, whole: Callable[[Any], bool]) -> bool:
    """Whether ``record`` unpacks to what this kind of file holds (``whole``): the one
    place a record is decoded while reading past damage."""
    try:
        return whole(msgpack.unpackb(record, raw=True, strict_map_key=False))
    except Exception:
        return False


def is_wire(x: Any) -> bool:
    """A stored entry: ``[packed, signature]``."""
    return type(x) is list and len(x) == 2 and type(x[0]) is bytes and \
        type(x[1]) is bytes and len(x[1]) == 64  # fmt: skip


def is_secret(x: Any) -> bool:
    """A secrets record: ``[tag, hand, a, b]``."""
    return type(x) is list and len(x) == 4 and type(x[0]) is int
