#!/usr/bin/env python3
"""Speed of reading damaged game logs: files crafted so that most of their bytes look
like the start of a record, against valid logs of the same size read in the same run.

The reader of ``.ginlog`` files (the audit's, :func:`ginp2p.files.logfile.read_records`)
looks past damage for whole records; done naively that is quadratic in the file's size,
and these crafted files are the ones that made it so. Prints the median time of each
read, its ratio to a valid file of the same size (which costs a step a record, the
crafted ones a step a byte), and how each crafted file's time grows from one size to
the next against how its size grows: alike if the reader is linear, the square if it
is quadratic. The machines are shared and noisy: compare ratios, not absolute figures,
across runs.
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ginp2p.files import logfile as F  # noqa: E402
from ginp2p.files.recovery import MAX_RECORD  # noqa: E402
from ginp2p.proto import events as ev  # noqa: E402

HEADER = F.LogFile.MAGIC + ev.pack([F.FILE_FORMAT])
GAME = ROOT / "tests" / "corpus" / "clean-classic.ginlog"


def _overrun(size: int, body: bytes) -> bytes:
    """A log of ``size`` bytes: the header, a record whose length runs one byte past the
    end (so the reader asks whether whole records follow it), then ``body``."""
    left = size - len(HEADER) - 3
    return HEADER + b"\xc5" + (left + 1).to_bytes(2, "big") + body[:left]


def empty_records(size: int) -> bytes:
    """Empty records (``c4 00``) to the end: every other byte begins whole records
    that run to the end of the file."""
    return _overrun(size, b"\xc4\x00" * (size // 2))


def entries_then_no_entry(size: int) -> bytes:
    """Records that hold entries, then one that does not to the end of the file: every
    entry begins records that hold entries until the last."""
    left = size - len(HEADER) - 3
    entry = ev.pack(ev.pack([b"", bytes(64)]))
    count = (left - 300) // len(entry)
    rest = left - count * len(entry) - 3
    return _overrun(size, entry * count + b"\xc5" + rest.to_bytes(2, "big") + bytes(rest))


def empty_records_after_a_bad_byte(size: int) -> bytes:
    """A byte that begins no record, then empty records: the search for where to read
    on tries every other byte."""
    return (HEADER + b"\x93" + b"\xc4\x00" * (size // 2))[:size]


def records_in_records(size: int) -> bytes:
    """A byte that begins no record, then stretches of bin32 headers, each a record that
    runs to the end of its stretch (no longer than a record may be): every fifth byte
    begins a long record that the search for where to read on decodes, once."""
    data = bytearray(HEADER + b"\x93")
    while len(data) < size:
        end = min(size, len(data) + 60_000)
        while len(data) + 5 <= end:
            data += b"\xc6" + (end - len(data) - 5).to_bytes(4, "big")
        data += bytes(end - len(data))
    return bytes(data)


CRAFTED: list[tuple[str, Callable[[int], bytes]]] = [
    ("bad length, empty records", empty_records),
    ("bad length, entries, no entry", entries_then_no_entry),
    ("bad byte, empty records", empty_records_after_a_bad_byte),
    ("bad byte, records in records", records_in_records),
]
"""The first two ask whether whole records follow a record that runs past the end of
the file, so they exist only as long as a record may be; the last two search for where
to read on, at any size."""


def _entry_of(size: int) -> bytes | None:
    """A record of ``size`` bytes shaped as an entry, if there is one of that size."""
    for k in range(size):
        record = ev.pack(ev.pack([bytes(k), bytes(64)]))
        if len(record) == size:
            return record
    return None


def valid(size: int) -> bytes:
    """A whole log of ``size`` bytes: a real game's records over and over (a log may
    hold an entry more than once), then entries sized to fill it exactly."""
    records = [ev.pack(r) for r in F.read_records(GAME)[0]]
    data = bytearray(HEADER)
    for record in records * (size // len(GAME.read_bytes()) + 1):
        if len(data) + len(record) <= size - 1000:
            data += record
    while (last := _entry_of(size - len(data))) is None:
        data += _entry_of(200) or b""
    return bytes(data + last)


def median_ms(path: Path, repeats: int) -> float:
    """Median over ``repeats`` reads of ``path``, in ms."""
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        F.read_records(path)
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=7, help="reads of each file (median)")
    ap.add_argument("--sizes", default="16384,65536,262144",
                    help="file sizes in bytes, comma-separated")  # fmt: skip
    args = ap.parse_args()
    print(f"reading a .ginlog: median of {args.repeats} reads, ms; ratio to the valid "
          f"file of the same size, read in this run")  # fmt: skip
    print(f"{'file':<34}{'bytes':>8}{'ms':>10}{'ratio':>8}")
    sizes = [int(s) for s in args.sizes.split(",")]
    took: dict[str, dict[int, float]] = {name: {} for name, _ in CRAFTED}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.ginlog"
        for size in sizes:
            path.write_bytes(valid(size))
            base = median_ms(path, args.repeats)
            print(f"{'valid (a game, repeated)':<34}{size:>8}{base:>10.2f}{1:>8.1f}")
            for name, craft in CRAFTED:
                if name.startswith("bad length") and size > MAX_RECORD:
                    continue
                data = craft(size)
                assert len(data) == size
                path.write_bytes(data)
                ms = median_ms(path, args.repeats)
                took[name][size] = ms
                print(f"{name:<34}{size:>8}{ms:>10.2f}{ms / base:>8.1f}")
    game = median_ms(GAME, args.repeats)
    print(f"{'a game (' + GAME.name + ')':<34}{GAME.stat().st_size:>8}{game:>10.2f}")
    print("time against size, from one size to the next (linear: alike; quadratic: squared)")
    for small, big in itertools.pairwise(sizes):
        for name, times in took.items():
            if small in times and big in times:
                print(f"{name:<34}{small:>7} -> {big:<7} size x{big / small:<5.1f}"
                      f"time x{times[big] / times[small]:.1f}")  # fmt: skip


if __name__ == "__main__":
    main()
