"""The files that keep a game: the log (``.ginlog``) and the player's secrets
(``.secrets``), append-only, locked to one process, fsync'd before returning, so a
caller can send or act right after.

A file is a magic line, a format version and msgpack-bin records. A crash can tear
only the last record; a reader tells that from damage (:func:`read_records`, with
:mod:`ginp2p.files.recovery` finding the records past it), and :func:`read_error`
words every way a file can fail to be read, for all commands alike.
"""

from __future__ import annotations

import contextlib
import os
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgpack

from ginp2p.errors import Ginp2pError
from ginp2p.files.private import (
    PRIVATE_FILE,
    FileError,
    NotAFile,
    fsync,
    fsync_dir,
    open_private,
    read_all,
    read_regular,
    replace_atomically,
    write_all,
)
from ginp2p.files.recovery import MAX_RECORD, Recovery, is_secret, is_wire, parse_records
from ginp2p.present.words import count
from ginp2p.proto import events as ev
from ginp2p.proto.entry import Entry
from ginp2p.proto.log import Added, Log

__all__ = [
    "FileCorrupt",
    "FileError",
    "FileLocked",
    "LogFile",
    "NotAFile",
    "NotALog",
    "SecretsError",
    "SecretsFile",
    "Torn",
    "TornTailWarning",
    "fsync",
    "fsync_dir",
    "hold_lock",
    "let_go",
    "open_private",
    "read_error",
    "read_records",
    "replace_atomically",
    "secrets_path",
    "write_all",
]


class FileLocked(FileError):
    """Another process holds the file (one process per game file)."""


class FileCorrupt(FileError):
    """Bytes in the file that are no record and no torn tail (not a crash artefact)."""


class NotALog(FileError):
    """A file that does not begin as a file of this kind: another program's file, not a
    damaged one (every file ginp2p writes begins with its magic before any entry)."""


class TornTailWarning(UserWarning):
    """The file ended inside a record (a crash while writing); it was cut back."""


@dataclass(frozen=True, slots=True)
class Torn:
    """Bytes that are no whole record: ``dropped`` bytes from ``offset`` (a writer
    cuts them; a reader only reports them). ``reason``: "incomplete" (a torn last
    record), "zero bytes", "torn header", "empty" (no header at all), or why the bytes
    are no record. ``resumed``: whole records follow them (a reader skipped damage in
    the middle of the file and read on), so they are not the file's tail."""

    offset: int
    dropped: int
    reason: str
    resumed: bool = False

    def text(self) -> str:
        """The damage in words, as the audit and the replay report it."""
        if self.reason == "empty":
            return "the file is empty: it holds no header and no entry"
        many = self.dropped != 1
        if self.reason in ("incomplete", "zero bytes", "torn header"):
            return (f"the file is torn: {count(self.dropped, 'byte')} at byte {self.offset} "
                    f"{'are' if many else 'is'} no whole record ({self.reason})")  # fmt: skip
        if self.resumed:
            return (f"unreadable bytes at byte {self.offset} ({self.reason}): "
                    f"{count(self.dropped, 'byte')} {'were' if many else 'was'} skipped and "
                    f"reading went on at byte {self.offset + self.dropped}")  # fmt: skip
        last = f"the last {self.dropped} bytes" if many else "the last byte"
        return (f"unreadable bytes at byte {self.offset} ({self.reason}): {last} of the file "
                f"{'were' if many else 'was'} not read")  # fmt: skip


FILE_FORMAT = 1


def _lock(fd: int, path: Path) -> None:
    try:
        import fcntl
    except ImportError:  # Windows: lock the first byte instead
        import msvcrt

        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)  # type: ignore[attr-defined]
        except OSError as exc:
            raise FileLocked(f"{path} is open in another ginp2p process") from exc
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        raise FileLocked(f"{path} is open in another ginp2p process") from exc


def hold_lock(path: Path, note: str | None = None) -> int:
    """Create ``path`` if need be and lock it for as long as this process keeps the
    returned descriptor open (closing it, or the process ending, lets go; `let_go` also
    removes the file); ``note``, if given, is written into it for whoever finds it
    locked. FileLocked if another process holds it."""
    while True:
        fd = open_private(path, os.O_RDWR)
        try:
            _lock(fd, path)
            if not _still_named(fd, path):
                os.close(fd)  # removed by its holder as we locked it: lock the new file
                continue
            if note is not None:
                os.ftruncate(fd, 0)
                write_all(fd, note.encode())
        except BaseException:
            os.close(fd)
            raise
        return fd


def _still_named(fd: int, path: Path) -> bool:
    """Whether ``path`` still names the file open at ``fd``."""
    try:
        named, held = os.stat(path), os.fstat(fd)
    except FileNotFoundError:
        return False
    return (named.st_dev, named.st_ino) == (held.st_dev, held.st_ino)


def let_go(fd: int, path: Path) -> None:
    """Remove a lock file held by `hold_lock`, then let go of it, so that lock files do
    not pile up. Removed while still held: a process that opened it meanwhile finds, once
    it has the lock, that the name is gone, and takes a new file (`hold_lock`)."""
    with contextlib.suppress(OSError):  # Windows cannot remove an open file: it stays
        os.unlink(path)
    os.close(fd)


def _open_records(
    path: Path, magic: bytes, mode: int, repair: bool
) -> tuple[int, list[bytes], Torn | None]:
    """Open (creating), lock, read the whole records, cut a torn tail. Only a regular
    file, never through a symbolic link (:func:`open_private`), made ``mode``."""
    fd = open_private(path, os.O_RDWR | os.O_APPEND, mode)
    try:
        _lock(fd, path)
        records, torn = _load_records(fd, path, magic, repair)
    except BaseException:
        os.close(fd)
        raise
    if torn is not None:
        warnings.warn(
            TornTailWarning(
                f"{path}: cut {count(torn.dropped, 'byte')} of a torn last record at byte "
                f"{torn.offset} ({torn.reason}); the entries before it are intact"
            ),
            stacklevel=3,
        )
    return fd, records, torn


def _parse_file(
    data: bytes,
    path: Path | str | os.PathLike[str],
    magic: bytes,
    recovery: Recovery | None = None,
) -> tuple[list[bytes], int, str | None] | None:
    """The records of a whole file's bytes, where they end and why (as
    :func:`parse_records`); None for a file torn inside its header (or empty).
    NotALog if the bytes are not a file of this kind at all, FileCorrupt if its header
    is damaged. ``recovery``: of these bytes, for a caller that reads on past damage
    (what it learnt here is not learnt again)."""
    header = magic + ev.pack([FILE_FORMAT])
    if len(data) < len(header) and header.startswith(data):
        return None
    if not data.startswith(magic):
        raise NotALog(f"{path} is not a {_KIND[magic]}: it does not begin with "
                      f"{magic.decode().strip()}")  # fmt: skip
    unpacker = msgpack.Unpacker(raw=False, max_buffer_size=len(data))
    unpacker.feed(data[len(magic) :])
    try:
        version = unpacker.unpack()
    except Exception as exc:
        raise FileCorrupt(f"{path}: unreadable header") from exc
    if type(version) is not list or not version or version[0] != FILE_FORMAT:
        shown = repr(version)  # a record where the header should be: no kilobyte of it
        shown = shown if len(shown) <= 40 else f"{shown[:36]}…"
        raise FileCorrupt(f"{path}: unsupported file format {shown} (this ginp2p reads "
                          f"format [{FILE_FORMAT}])")  # fmt: skip
    if recovery is None:
        recovery = Recovery(data, _WHOLE[magic])
    return parse_records(data, len(magic) + unpacker.tell(), recovery)


def _load_records(
    fd: int, path: Path, magic: bytes, repair: bool
) -> tuple[list[bytes], Torn | None]:
    data = read_all(fd)
    parsed = _parse_file(data, path, magic)
    if parsed is None:
        os.ftruncate(fd, 0)  # new, or torn while being created
        write_all(fd, magic + ev.pack([FILE_FORMAT]))
        fsync(fd)
        fsync_dir(path)
        return [], Torn(0, len(data), "torn header") if data else None
    records, end, why = parsed
    if end == len(data):
        return records, None
    tail = data[end:]
    if why != "incomplete" and any(tail) and not repair:
        # a person reads this (resume): the audit can still judge a log, as it is
        audit = f", and `ginp2p audit {path}` says what it still proves" \
            if magic == LogFile.MAGIC else ""  # fmt: skip
        raise FileCorrupt(f"{path} is damaged ({why} at byte {end}), so the game cannot go "
                          f"on from it; it is left as it is{audit}")  # fmt: skip
    os.ftruncate(fd, end)
    fsync(fd)
    return records, Torn(end, len(tail), why or "")


def read_records(
    path: str | os.PathLike[str], magic: bytes | None = None
) -> tuple[list[bytes], tuple[Torn, ...]]:
    """The whole records of a log (or secrets) file, read-only: no lock, no repair.

    For the audit, which must not change the file it judges, and for whoever reads a
    copy that was damaged: every stretch of bytes that is no whole record comes back as
    a :class:`Torn` (nothing is cut), in file order. Damage in the middle is skipped
    (``resumed``) where whole records follow it, so one bad byte does not hide the rest
    of the game; however the file is damaged, reading it takes time linear in its
    size (:class:`Recovery`). The last ``reason`` is "incomplete" for a torn last
    record, "zero bytes" for a zero-filled tail, "empty" for an empty file, else why the
    bytes are no record. NotALog if the file is not of this kind at all, FileCorrupt if
    its header is damaged, NotAFile if it is not a regular file (a pipe or a device
    could block or never end); :func:`read_error` words any of these, and the OSErrors,
    for a person.
    """
    magic = LogFile.MAGIC if magic is None else magic
    data = read_regular(path)
    recovery = Recovery(data, _WHOLE[magic])
    parsed = _parse_file(data, path, magic, recovery)
    if parsed is None:
        return [], (Torn(0, len(data), "torn header" if data else "empty"),)
    records, end, why = parsed
    damage: list[Torn] = []
    zeros = len(data.rstrip(b"\0"))  # zeros from here on: found once, not at each stop
    while end < len(data):
        if end >= zeros:
            damage.append(Torn(end, len(data) - end, "zero bytes"))
            break
        go_on = None if why == "incomplete" else recovery.next_start(end + 1)
        if go_on is None:
            damage.append(Torn(end, len(data) - end, why or ""))
            break
        damage.append(Torn(end, go_on - end, why or "", resumed=True))
        more, end, why = parse_records(data, go_on, recovery)
        records += more
    return records, tuple(damage)


def read_error(path: str | os.PathLike[str], exc: Exception) -> str:
    """Why :func:`read_records` could not read ``path``, in the words every command
    uses (audit, replay and export say the same thing of the same file). The file an
    OSError names wins over ``path``: it is the one of several that failed."""
    path = getattr(exc, "filename", None) or path
    if isinstance(exc, FileNotFoundError):
        return f"{path}: no such file"
    if isinstance(exc, IsADirectoryError):
        return f"{path} is a folder, not a game log"
    if isinstance(exc, OSError):
        return f"{path}: cannot read it ({exc.strerror or exc})"
    return str(exc)


class _RecordFile:
    """An append-only file of msgpack-bin records after a magic header."""

    MAGIC = b""
    MODE = PRIVATE_FILE  # a game's log holds its chat and who played it: the player's alone

    def __init__(self, path: Path, fd: int, records: list[bytes], torn: Torn | None) -> None:
        self.path = path
        self._fd = fd
        self.records: tuple[bytes, ...] = tuple(records)
        self.torn = torn

    @classmethod
    def _open(cls, path: str | os.PathLike[str], repair: bool) -> Any:
        p = Path(path)
        fd, records, torn = _open_records(p, cls.MAGIC, cls.MODE, repair)
        return cls(p, fd, records, torn)

    def _append_record(self, payload: bytes) -> None:
        if self._fd < 0:
            raise FileError(f"{self.path} is closed")
        if len(payload) > MAX_RECORD:
            raise FileError(f"a record of {len(payload)} bytes is too large")
        write_all(self._fd, ev.pack(bytes(payload)))
        fsync(self._fd)

    @property
    def closed(self) -> bool:
        return self._fd < 0

    def close(self) -> None:
        """Close the file and release the lock."""
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __enter__(self) -> Any:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class LogFile(_RecordFile):
    """``NAME.ginlog``: every entry, sent or received, in arrival order.

    ``records`` are the whole wire entries read at open (an entry may repeat);
    ``torn`` says whether a torn tail was cut (a TornTailWarning is also issued:
    tell the user).
    """

    MAGIC = b"GINLOG1\n"

    @classmethod
    def open(cls, path: str | os.PathLike[str], *, repair: bool = False) -> LogFile:
        """Open or create, exclusively (FileLocked if another process has it)."""
        return cls._open(path, repair)  # type: ignore[no-any-return]

    def append(self, entry: Entry | bytes) -> None:
        """Write one entry and fsync; returns only when it is on disk."""
        self._append_record(entry.wire if isinstance(entry, Entry) else bytes(entry))

    def load(
        self, keys: tuple[bytes | None, bytes | None] = (None, None)
    ) -> tuple[Log, list[Added]]:
        """The log of this file's records (each record's outcome alongside)."""
        return Log.from_records(self.records, keys)


def secrets_path(log_path: str | os.PathLike[str]) -> Path:
    """``NAME.secrets`` beside ``NAME.ginlog``."""
    return Path(log_path).with_suffix(".secrets")


class SecretsError(Ginp2pError):
    """A secret that must not be written: other seeds for a hand, a second answer."""


_SEEDS, _ANSWERED = 0, 1


class SecretsFile(_RecordFile):
    """The peer's own secrets (mode 0600): seeds per hand and answered challenges."""

    MAGIC = b"GINSEC1\n"

    def __init__(self, path: Path, fd: int, records: list[bytes], torn: Torn | None) -> None:
        super().__init__(path, fd, records, torn)
        self._seeds: dict[int, tuple[bytes, bytes]] = {}
        self._answered: dict[tuple[int, int], bytes] = {}
        for r in records:
            self._apply(r)

    @classmethod
    def open(cls, path: str | os.PathLike[str], *, repair: bool = False) -> SecretsFile:
        return cls._open(path, repair)  # type: ignore[no-any-return]

    def _apply(self, record: bytes) -> None:
        try:
            tag, hand, a, b = msgpack.unpackb(record, raw=False)
            if tag == _SEEDS:
                self._seeds[hand] = (a, b)
            elif tag == _ANSWERED:
                self._answered.setdefault((hand, a), b)
            else:
                raise ValueError(tag)
        except Exception as exc:
            raise FileCorrupt(f"{self.path}: unreadable secrets record") from exc

    def _write(self, obj: list[Any]) -> None:
        record = ev.pack(obj)
        self._append_record(record)
        self._apply(record)

    def seeds(self, hand: int) -> tuple[bytes, bytes] | None:
        """``(perm_seed, key_seed)`` of a hand, if fixed."""
        return self._seeds.get(hand)

    def put_seeds(self, hand: int, perm_seed: bytes, key_seed: bytes) -> None:
        """Fix a hand's seeds, fsync'd before the commit that binds them is sent.

        Idempotent for the same seeds; other seeds for a hand are refused (after a
        crash the commit may already be out).
        """
        if len(perm_seed) != 32 or len(key_seed) != 32:
            raise SecretsError("seeds have 32 bytes")
        known = self._seeds.get(hand)
        if known == (perm_seed, key_seed):
            return
        if known is not None:
            raise SecretsError(f"hand {hand} already has other seeds")
        self._write([_SEEDS, hand, bytes(perm_seed), bytes(key_seed)])

    def answered(self, hand: int, step: int) -> bytes | None:
        """The challenge answered for this shuffle proof, if any."""
        return self._answered.get((hand, step))

    def all_seeds(self) -> dict[int, tuple[bytes, bytes]]:
        """Every hand's seeds (hand 0: the host's nonce), to resume a PeerProtocol."""
        return dict(self._seeds)

    def all_answered(self) -> dict[tuple[int, int], bytes]:
        """Every answered challenge by (hand, step), to resume a PeerProtocol."""
        return dict(self._answered)

    def record_answer(self, hand: int, step: int, challenge: bytes) -> None:
        """Record, fsync'd, that this proof is being answered; call before answering.

        A different challenge for the same proof is refused: two answers would
        reveal both halves of some round and with them x and π. The same challenge
        again is allowed (re-sending identical answers after a crash reveals nothing).
        """
        known = self._answered.get((hand, step))
        if known == challenge:
            return
        if known is not None:
            raise SecretsError(f"the shuffle proof of hand {hand} step {step} is answered")
        self._write([_ANSWERED, hand, step, bytes(challenge)])


_WHOLE = {LogFile.MAGIC: is_wire, SecretsFile.MAGIC: is_secret}
"""What a record of each kind of file holds (by magic): how a damaged record is told
from a torn tail."""
_KIND = {LogFile.MAGIC: "ginp2p game log", SecretsFile.MAGIC: "ginp2p secrets file"}
