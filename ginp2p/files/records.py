"""Saved games read for the record layer: one or more copies of a game log audited
(:func:`audit_file`), or loaded for replay and export with the secrets files found
beside them (:func:`load_replay`). Every file is read-only here: no lock, no repair, a
torn tail reported and never cut, so a game still being played can be read too. What
the records mean is :mod:`ginp2p.record`'s, which never opens a file.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, replace
from pathlib import Path

import msgpack

from ginp2p.errors import Ginp2pError
from ginp2p.files.gamefiles import PeerFile, peer_path
from ginp2p.files.logfile import (
    FileCorrupt,
    FileError,
    SecretsFile,
    read_error,
    read_records,
    secrets_path,
)
from ginp2p.proto import shuffle as sh
from ginp2p.record.audit import audit_records
from ginp2p.record.fold import game_of
from ginp2p.record.replay import Replay, ReplayError
from ginp2p.record.report import Report
from ginp2p.record.steps import PlayerSecrets, load_records

__all__ = ["Copies", "NotOneGame", "audit_file", "load_replay", "read_copies"]


class NotOneGame(Ginp2pError, ValueError):
    """Copies given to one audit that hold different games."""


@dataclass(frozen=True)
class Copies:
    """The records of one or more copies of a game, as :func:`read_copies` found them:
    ``damage`` says what reading them found wrong (each line naming its copy when there
    are several); ``sources`` is the name and record count of each copy read, in order
    (empty for a single file, whose records need no file name)."""

    records: list[bytes]
    damage: list[str]
    sources: tuple[tuple[str, int], ...]
    read: int


def read_copies(paths: Sequence[str | os.PathLike[str]], *, lenient: bool = True) -> Copies:
    """Read copies of one game, read-only: how the audit, the replay and the export all
    read a file. ``lenient``: a game log whose header is spoilt is damage; otherwise
    FileCorrupt. A file that is no game log at all (another program's) is NotALog for
    every reader, never damage: there is no game in it to judge. OSError or NotAFile if
    a file cannot be read at all; NotOneGame if the copies hold different games."""
    many = len(paths) > 1
    records: list[bytes] = []
    damage: list[str] = []
    sources: list[tuple[str, int]] = []
    games: dict[bytes, str] = {}
    for p in paths:
        name = os.fspath(p) if many else ""
        where = f"{name}: " if many else ""
        try:
            got, torn = read_records(p)
        except FileCorrupt as exc:
            if not lenient:
                raise
            damage.append(f"{where}the file cannot be read as a game log ({exc})")
            continue
        damage += [where + t.text() for t in torn]
        if torn and torn[0].reason == "empty":
            continue
        game = game_of(got) if many else None  # one file: nothing to compare
        if game is not None:
            games.setdefault(game, name)
            if len(games) > 1:
                first = next(iter(games.values()))
                raise NotOneGame(f"{first} and {name} are not copies of one game")
        records += got
        sources.append((name, len(got)))
    return Copies(records, damage, tuple(sources) if many else (), len(sources))


def audit_file(
    path: str | os.PathLike[str],
    *others: str | os.PathLike[str],
    lazy_proofs: bool = True,
    executor: Executor | None = None,
    known: Mapping[bytes, str] | None = None,
) -> Report:
    """Audit a ``.ginlog`` file, read-only (no lock, no repair): a torn tail is reported,
    never cut. OSError, NotAFile or NotALog (a file that is no game log) if there is no
    file to judge (:func:`~ginp2p.files.logfile.read_error` words them).

    ``others``: more copies of the game (the other player's file). Their entries are
    judged together, as one log: what one copy lost the other may hold, and two signed
    entries at one seq are an equivocation whichever copy each came from. NotOneGame if
    the copies hold different games.

    ``lazy_proofs``, ``executor`` and ``known`` are
    :func:`~ginp2p.record.audit.audit_records`'s.
    """
    c = read_copies([path, *others])
    if c.read:
        return audit_records(
            c.records,
            damage=c.damage,
            sources=c.sources,
            lazy_proofs=lazy_proofs,
            executor=executor,
            known=known,
        )
    # nothing in it was verified, so nobody can be said to owe anything
    nothing = audit_records([], damage=c.damage, lazy_proofs=lazy_proofs, executor=executor)
    return replace(nothing, owed=(), hands=(), copies=1 + len(others))


def _read_seeds(path: Path) -> dict[int, sh.HandSecrets]:
    """A secrets file's seeds by hand, read-only (no lock: the game may be running)."""
    records, _ = read_records(path, SecretsFile.MAGIC)
    out: dict[int, sh.HandSecrets] = {}
    for r in records:
        try:
            tag, hand, a, b = msgpack.unpackb(r, raw=False)
        except (ValueError, TypeError, msgpack.UnpackException):  # a damaged record
            continue
        if tag == 0 and type(hand) is int and hand > 0 and isinstance(a, bytes) \
                and isinstance(b, bytes):  # fmt: skip
            out[hand] = sh.HandSecrets(a, b)
    return out


def _read_secrets(path: Path, *, required: bool, finished_only: bool) -> PlayerSecrets:
    """A secrets file offered to a replay, read; if it cannot be, why, in the words said
    to whoever named it and, as a note, of one found beside a log."""
    failure, note = "", ""
    try:
        seeds = _read_seeds(path)
    except FileNotFoundError:
        failure = f"{path}: no such secrets file"
    except IsADirectoryError:
        failure = f"{path} is a folder, not a secrets file"
        note = f"{path} ignored: a folder, not a secrets file"
    except (OSError, FileError) as exc:  # a FileError names the file and says what is wrong
        failure = (
            f"{path}: cannot read it ({exc.strerror or exc})"
            if isinstance(exc, OSError)
            else str(exc)
        )
        note = f"{path} ignored: not a readable secrets file"
    else:
        return PlayerSecrets(path, seeds, required=required, finished_only=finished_only)
    return PlayerSecrets(path, None, failure, note, required, finished_only)


def _beside(path: Path) -> tuple[int | None, list[Path]]:
    """Who kept this log (its ``.peer`` file), and the secrets files that may belong
    to the game: beside the log, and beside the computer player's own log of a
    ``ginp2p play`` game."""
    out = [secrets_path(path)]
    try:
        side = PeerFile.load(peer_path(path))
    except ValueError:
        return None, out
    if side.computer_game:
        theirs = Path(side.computer_game)
        out += [secrets_path(theirs), secrets_path(path.parent / "computer" / theirs.name)]
    return (side.me if side.role in ("host", "guest") else None), out


def load_replay(
    path: str | os.PathLike[str],
    secrets: Iterable[str | os.PathLike[str]] = (),
    *,
    others: Sequence[str | os.PathLike[str]] = (),
    find_secrets: bool = True,
) -> Replay:
    """Read and fold a ``.ginlog`` for replay, read-only. ``secrets``: more secrets
    files to read cards with (besides the ones found next to the log unless
    ``find_secrets`` is off). ``others``: more copies of the game (the other player's
    file), whose entries are pooled with the log's, as the audit pools them; the
    secrets beside them show the hands that are over. ReplayError for a file that
    cannot be replayed."""
    p = Path(path)
    try:
        copies = read_copies([p, *others], lenient=False)
    except NotOneGame as exc:
        raise ReplayError(str(exc)) from None
    except (OSError, FileError) as exc:
        raise ReplayError(read_error(p, exc)) from None
    extra = [Path(s) for s in secrets]
    owner, beside = _beside(p)
    theirs = [s for o in others for s in _beside(Path(o))[1]] if find_secrets else []
    found = list(dict.fromkeys((beside if find_secrets else []) + theirs + extra))
    finished_only = [b for b in beside[1:] + theirs if b not in extra]
    offered = [
        _read_secrets(s, required=s in extra, finished_only=s in finished_only) for s in found
    ]
    replay = load_records(
        copies.records, damage=copies.damage, sources=copies.sources, secrets=offered, path=p
    )
    replay.owner = owner
    return replay
