"""Reading past damage in a game log (or a secrets file) costs time linear in the
file's size, and finds what it always found.

The reader before it was made linear is copied here as the oracle: obviously right, and
n² (it read the rest of the file again from every byte that could begin a record, so a
crafted 16 KiB log took half a minute to audit). On random files with random damage both
readers must agree on every record, every damage report and every cut; on crafted files
the reader's work is counted (records framed, records decoded), never timed.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ginp2p.files import logfile as F
from ginp2p.files import recovery as R
from ginp2p.files.records import audit_file
from ginp2p.proto import events as ev
from ginp2p.record.report import Verdict

HEADER = F.LogFile.MAGIC + ev.pack([F.FILE_FORMAT])
KIND_MODE = {F.LogFile.MAGIC: 0o644, F.SecretsFile.MAGIC: 0o600}

# ------------------------------------------------------------------------ the oracle
# Copied from the file reader as it was before recovery was made linear (only the
# names changed). Small inputs only.


def _old_parse_records(data: bytes, pos: int, whole: Callable[[Any], bool] | None = None
                       ) -> tuple[list[bytes], int, str | None]:  # fmt: skip
    out: list[bytes] = []
    n = len(data)
    while pos < n:
        width = R.BIN_WIDTH.get(data[pos])
        if width is None:
            return out, pos, "a byte that starts no record"
        if pos + 1 + width > n:
            return out, pos, "incomplete"
        length = int.from_bytes(data[pos + 1 : pos + 1 + width], "big")
        if length > R.MAX_RECORD:
            return out, pos, "a record longer than any entry"
        end = pos + 1 + width + length
        if end > n:
            if whole is not None and _old_records_follow(data, pos + 1 + width, whole):
                return out, pos, "a damaged record length (whole records follow it)"
            return out, pos, "incomplete"
        out.append(data[pos + 1 + width : end])
        pos = end
    return out, pos, None


def _old_records_follow(data: bytes, start: int, whole: Callable[[Any], bool]) -> bool:
    for at in range(start, len(data)):
        if data[at] in R.BIN_WIDTH:
            records, _, why = _old_parse_records(data, at)
            if why is None and records and all(_old_holds(r, whole) for r in records):
                return True
    return False


def _old_next_start(data: bytes, start: int, whole: Callable[[Any], bool]) -> int | None:
    for at in range(start, len(data)):
        first = _old_record_at(data, at)
        if first is not None and _old_holds(first[0], whole):
            second = _old_record_at(data, first[1])
            if first[1] == len(data) or (second is not None and _old_holds(second[0], whole)):
                return at
    return None


def _old_record_at(data: bytes, pos: int) -> tuple[bytes, int] | None:
    width = R.BIN_WIDTH.get(data[pos]) if pos < len(data) else None
    if width is None:
        return None
    length = int.from_bytes(data[pos + 1 : pos + 1 + width], "big")
    end = pos + 1 + width + length
    if pos + 1 + width > len(data) or length > R.MAX_RECORD or end > len(data):
        return None
    return data[pos + 1 + width : end], end


def _old_holds(record: bytes, whole: Callable[[Any], bool]) -> bool:
    try:
        return whole(msgpack.unpackb(record, raw=True, strict_map_key=False))
    except Exception:
        return False


def _old_parse_file(data: bytes, path: Path, magic: bytes
                    ) -> tuple[list[bytes], int, str | None] | None:  # fmt: skip
    header = magic + ev.pack([F.FILE_FORMAT])
    if len(data) < len(header) and header.startswith(data):
        return None
    if not data.startswith(magic):
        raise F.NotALog(f"{path} is not a {F._KIND[magic]}: it does not begin with "
                        f"{magic.decode().strip()}")  # fmt: skip
    unpacker = msgpack.Unpacker(raw=False, max_buffer_size=len(data))
    unpacker.feed(data[len(magic) :])
    try:
        version = unpacker.unpack()
    except Exception as exc:
        raise F.FileCorrupt(f"{path}: unreadable header") from exc
    if type(version) is not list or not version or version[0] != F.FILE_FORMAT:
        shown = repr(version)
        shown = shown if len(shown) <= 40 else f"{shown[:36]}…"
        raise F.FileCorrupt(f"{path}: unsupported file format {shown} (this ginp2p reads "
                            f"format [{F.FILE_FORMAT}])")  # fmt: skip
    return _old_parse_records(data, len(magic) + unpacker.tell(), F._WHOLE.get(magic))


def old_read(data: bytes, path: Path, magic: bytes) -> tuple[list[bytes], tuple[F.Torn, ...]]:
    """What ``read_records`` (the audit's reader) said of these bytes."""
    parsed = _old_parse_file(data, path, magic)
    if parsed is None:
        return [], (F.Torn(0, len(data), "torn header" if data else "empty"),)
    records, end, why = parsed
    damage: list[F.Torn] = []
    while end < len(data):
        tail = data[end:]
        if not any(tail):
            damage.append(F.Torn(end, len(tail), "zero bytes"))
            break
        go_on = None if why == "incomplete" else _old_next_start(data, end + 1, F._WHOLE[magic])
        if go_on is None:
            damage.append(F.Torn(end, len(tail), why or ""))
            break
        damage.append(F.Torn(end, go_on - end, why or "", resumed=True))
        more, end, why = _old_parse_records(data, go_on, F._WHOLE[magic])
        records += more
    return records, tuple(damage)


def old_open(
    data: bytes, path: Path, magic: bytes, repair: bool
) -> tuple[list[bytes], F.Torn | None, bytes]:
    """What opening the file (``ginp2p resume``) did: (records, torn, the bytes left)."""
    parsed = _old_parse_file(data, path, magic)
    if parsed is None:
        torn = F.Torn(0, len(data), "torn header") if data else None
        return [], torn, magic + ev.pack([F.FILE_FORMAT])
    records, end, why = parsed
    if end == len(data):
        return records, None, data
    tail = data[end:]
    if why != "incomplete" and any(tail) and not repair:
        audit = f", and `ginp2p audit {path}` says what it still proves" \
            if magic == F.LogFile.MAGIC else ""  # fmt: skip
        raise F.FileCorrupt(f"{path} is damaged ({why} at byte {end}), so the game cannot go "
                            f"on from it; it is left as it is{audit}")  # fmt: skip
    return records, F.Torn(end, len(tail), why or ""), data[:end]


# ------------------------------------------------------------------------ the reader


def new_read(path: Path, magic: bytes) -> Any:
    try:
        return F.read_records(path, magic)
    except (F.NotALog, F.FileCorrupt) as exc:
        return type(exc), str(exc)


def new_open(path: Path, magic: bytes, repair: bool) -> Any:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", F.TornTailWarning)
            fd, records, torn = F._open_records(path, magic, KIND_MODE[magic], repair)
    except (F.NotALog, F.FileCorrupt) as exc:
        return type(exc), str(exc)
    os.close(fd)
    return records, torn, path.read_bytes()


def expected_read(data: bytes, path: Path, magic: bytes) -> Any:
    try:
        return old_read(data, path, magic)
    except (F.NotALog, F.FileCorrupt) as exc:
        return type(exc), str(exc)


def expected_open(data: bytes, path: Path, magic: bytes, repair: bool) -> Any:
    try:
        return old_open(data, path, magic, repair)
    except (F.NotALog, F.FileCorrupt) as exc:
        return type(exc), str(exc)


# ------------------------------------------------------------------------ random damage


@st.composite
def contents(draw: st.DrawFn, magic: bytes) -> bytes:
    """A record's bytes: mostly what this kind of file holds (some long enough for a
    two-byte length), now and then bytes that are no such thing."""
    if draw(st.integers(0, 9)) == 0:
        return draw(st.binary(max_size=40))
    if magic == F.LogFile.MAGIC:
        size = draw(st.sampled_from([0, 5, 40, 300]))
        packed = draw(st.binary(min_size=size, max_size=size + 10))
        return ev.pack([packed, draw(st.binary(min_size=64, max_size=64))])
    hand, a, b = draw(st.integers(0, 300)), draw(st.binary(max_size=32)), draw(st.binary())
    return ev.pack([draw(st.integers(0, 1)), hand, a, b])


GARBAGE = st.one_of(
    st.binary(min_size=1, max_size=12),
    # bin headers cut short, a fixarray, empty records, a length longer than any record
    st.sampled_from([b"\xc4", b"\xc5\x00", b"\xc6\x00\x00", b"\x93", b"\xc4\x00" * 5]),
    st.just(b"\xc6\x00\x01\x00\x81"),
    st.integers(1, 40).map(bytes),  # zeros
)


@st.composite
def damaged_files(draw: st.DrawFn) -> tuple[bytes, bytes]:
    """(magic, bytes): a file of whole records, then lengths rewritten (one past the end
    of the file, often), then bytes cut, inserted (garbage or a copy of the file's own
    bytes), zeroed, overwritten or zeros appended; the header is damaged now and then."""
    magic = draw(st.sampled_from([F.LogFile.MAGIC, F.SecretsFile.MAGIC]))
    data = bytearray(magic + ev.pack([F.FILE_FORMAT]))
    header = len(data)
    starts = []
    for record in draw(st.lists(contents(magic), max_size=7)):
        starts.append(len(data))
        data += ev.pack(record)
    for at in draw(st.lists(st.sampled_from(starts), max_size=2)) if starts else []:
        width = R.BIN_WIDTH[data[at]]
        past_end = len(data) - (at + 1 + width) + 1
        length = draw(st.one_of(st.just(past_end), st.integers(0, len(data) + 2)))
        data[at + 1 : at + 1 + width] = min(length, 256**width - 1).to_bytes(width, "big")
    for _ in range(draw(st.integers(0, 3))):
        in_header = draw(st.integers(0, 19)) == 0 or len(data) < header  # cut in it
        at = draw(st.integers(0 if in_header else header, len(data)))
        if draw(st.booleans()):  # where a record began (before earlier damage moved it)
            at = min(draw(st.sampled_from([*starts, len(data)])), len(data))
        what = draw(st.sampled_from(["cut", "insert", "copy", "zero", "byte", "zeros"]))
        if what == "zeros":  # a crash that left zeros after the last record
            data += bytes(draw(st.integers(1, 50)))
        elif what == "cut":
            del data[at:]
        elif what == "insert":
            data[at:at] = draw(GARBAGE)
        elif what == "copy":  # bytes that look like records, for they were records
            start = draw(st.integers(0, len(data)))
            data[at:at] = data[start : start + draw(st.integers(1, 200))]
        elif what == "zero":
            span = draw(st.integers(1, 200))
            data[at : at + span] = bytes(len(data[at : at + span]))
        elif at < len(data):
            data[at] = draw(st.integers(0, 255))
    return magic, bytes(data)


# one file name for every example (each writes it afresh): tmp_path is fine
QUIET = [HealthCheck.too_slow, HealthCheck.function_scoped_fixture]


@settings(max_examples=400, deadline=None, suppress_health_check=QUIET)
@given(damaged_files(), st.booleans())
def test_the_reader_finds_what_the_old_one_found(
    tmp_path: Path, file: tuple[bytes, bytes], repair: bool
) -> None:
    """The audit's reader and the opening of a game file give the same records, the
    same damage (reasons, offsets, byte counts) and the same cut as the old reader."""
    magic, data = file
    path = tmp_path / "damaged.ginlog"
    path.write_bytes(data)
    assert new_read(path, magic) == expected_read(data, path, magic)
    assert new_open(path, magic, repair) == expected_open(data, path, magic, repair)


NO_RECORD = "a byte that starts no record"


@pytest.mark.parametrize(
    ("shift", "garbage", "zeros", "reasons"),
    [
        (0, b"\xc5\xff", 0, ["a damaged record length (whole records follow it)"]),
        (0, b"\xc5\xff", 30, ["incomplete"]),  # zeros at the end: no whole records follow
        (0, b"\x93garbage", 30, [NO_RECORD, "zero bytes"]),
        (0, b"\xc6\x00\x01\x00\x81", 30, ["a record longer than any entry", "zero bytes"]),
        (7, b"\x00", 0, [NO_RECORD]),  # inside a record: it ends a byte early
    ],
)
def test_a_real_game_damaged_in_the_middle_reads_as_before(
    tmp_path: Path, shift: int, garbage: bytes, zeros: int, reasons: list[str]
) -> None:
    """A real game with garbage in the middle (and zeros at its end, or not): the
    reader reads on after the garbage, or not, as the old reader did."""
    full = (Path(__file__).parents[1] / "corpus" / "clean-classic.ginlog").read_bytes()
    at = len(HEADER)
    while at < len(full) // 2:  # the first record that begins past the middle
        at = R.record_span(full, at)[1]  # type: ignore[index]
    data = full[: at + shift] + garbage + full[at + shift :] + bytes(zeros)
    path = tmp_path / "game.ginlog"
    path.write_bytes(data)
    records, damage = F.read_records(path)
    assert (records, damage) == old_read(data, path, F.LogFile.MAGIC)
    assert [t.reason for t in damage] == reasons and len(records) > 10


# ------------------------------------------------------------------------ crafted files


def _filled(body: bytes, size: int) -> bytes:
    """A log of exactly ``size`` bytes: the header, a record whose length runs one
    byte past the end (so the reader asks whether whole records follow it), ``body``."""
    left = size - len(HEADER) - 3
    assert len(body) == left
    return HEADER + b"\xc5" + (left + 1).to_bytes(2, "big") + body


def empty_records(size: int) -> bytes:
    """Empty records (``c4 00``) to the end: every other byte begins a chain of whole
    records that runs to the end of the file. The old reader framed each chain: n²/8
    steps."""
    left = size - len(HEADER) - 3
    return _filled(b"\xc4\x00" * (left // 2) + b"\xc4"[: left % 2], size)


def entries_then_no_entry(size: int) -> bytes:
    """Records that hold entries, then a last one that does not, filling the file: each
    entry begins a chain that holds until its last record. The old reader decoded each
    chain: (n/71)²/2 decodes."""
    left = size - len(HEADER) - 3
    entry = ev.pack(ev.pack([b"", bytes(64)]))
    count = (left - 300) // len(entry)
    rest = left - count * len(entry) - 3
    return _filled(entry * count + b"\xc5" + rest.to_bytes(2, "big") + bytes(rest), size)


def no_record_then_empty_records(size: int) -> bytes:
    """A byte that begins no record, then empty records: the reader searches on for
    a place to read on from at every other byte."""
    body = b"\x93" + b"\xc4\x00" * ((size - len(HEADER)) // 2)
    return (HEADER + body)[:size]


def records_in_records(size: int) -> bytes:
    """A byte that begins no record, then bin32 headers, each a record that runs to the
    end of the file: every fifth byte begins a long record that the search for where to
    read on decodes (as a bin of all that follows it), once."""
    data = bytearray(HEADER + b"\x93")
    while len(data) + 5 <= size:
        data += b"\xc6" + (size - len(data) - 5).to_bytes(4, "big")
    return bytes(data + bytes(size - len(data)))


CRAFTED = [empty_records, entries_then_no_entry, no_record_then_empty_records, records_in_records]


class Work:
    """Counts the reader's steps: records framed, records decoded, forward parses."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.framed = self.decoded = self.parses = 0
        frame, holds, parse = R.record_span, R.holds, F.parse_records

        def counted_frame(*args: Any) -> Any:
            self.framed += 1
            return frame(*args)

        def counted_holds(*args: Any) -> Any:
            self.decoded += 1
            return holds(*args)

        def counted_parse(*args: Any) -> Any:
            self.parses += 1
            return parse(*args)

        monkeypatch.setattr(R, "record_span", counted_frame)
        monkeypatch.setattr(R, "holds", counted_holds)
        monkeypatch.setattr(F, "parse_records", counted_parse)  # where the reader finds it

    def assert_linear(self, size: int, stops: int) -> None:
        """Each offset framed three times and decoded once at most; one forward parse
        from the header and one from each place reading went on."""
        assert self.decoded <= size, (self.decoded, size)
        assert self.framed <= 3 * size, (self.framed, size)
        assert self.parses <= 1 + stops, (self.parses, stops)


@pytest.mark.parametrize("size", [16 * 1024, 64 * 1024])
@pytest.mark.parametrize("craft", CRAFTED)
def test_a_crafted_file_is_read_in_linear_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, craft: Callable[[int], bytes], size: int
) -> None:
    """Audit's reader and opening (resume) alike; the audit says the file is damaged."""
    data = craft(size)
    assert len(data) == size
    path = tmp_path / "crafted.ginlog"
    path.write_bytes(data)
    work = Work(monkeypatch)
    records, damage = F.read_records(path)
    assert records == [] and damage[-1].offset + damage[-1].dropped == size
    work.assert_linear(size, len(damage))

    monkeypatch.undo()
    work = Work(monkeypatch)
    with pytest.warns(F.TornTailWarning), F.LogFile.open(path, repair=True) as f:
        assert f.records == () and f.torn is not None
    work.assert_linear(size, 0)

    path.write_bytes(data)
    report = audit_file(path)
    assert report.verdict is Verdict.DAMAGED and report.damage


def test_the_count_would_catch_the_old_reader(monkeypatch: pytest.MonkeyPatch) -> None:
    """The measure is not idle: on a crafted 16 KiB file the old reader decodes more
    records than the file has bytes, which the bound above forbids (and 64 KiB, four
    times the bytes, would take sixteen times the decodes)."""
    size, decoded = 16 * 1024, [0]
    holds = _old_holds

    def counted(*args: Any) -> bool:
        decoded[0] += 1
        return holds(*args)

    monkeypatch.setattr(sys.modules[__name__], "_old_holds", counted)
    old_read(entries_then_no_entry(size), Path("crafted.ginlog"), F.LogFile.MAGIC)
    assert decoded[0] > size
