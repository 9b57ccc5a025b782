"""The games folder as the commands that list and begin games see it: every game
with its date, opponent, rules and result (``ginp2p games``), a guest's unfinished game
with a host (a ``join`` typed again instead of ``resume``), and a guest's files of games
that never began. It only reads logs (through the audit), so it loads nothing of the
network.
"""

from __future__ import annotations

import contextlib
import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ginp2p import __version__
from ginp2p.files import peers
from ginp2p.files.gamefiles import NotAPeerFile, PeerFile, games_folder_closed, peer_path
from ginp2p.files.logfile import (
    FileError,
    LogFile,
    NotAFile,
    SecretsFile,
    read_records,
    secrets_path,
)
from ginp2p.files.private import PRIVATE_FILE, read_regular, replace_atomically
from ginp2p.present.words import for_screen, match_end_words, settings_words
from ginp2p.proto.entry import GUEST, HOST
from ginp2p.proto.log import Log

__all__ = [
    "GameInfo",
    "last_played",
    "list_games",
]


@dataclass(frozen=True, slots=True)
class GameInfo:
    path: Path
    date: str
    role: str
    opponent: str
    preset: str
    result: str
    changes: str = ""  # what --set changed from the preset, as it takes them (settings_words)
    unfinished: bool = False  # the match goes on: `ginp2p resume` continues it
    computer: bool = False  # a `play` against the computer (the host's file of it)
    player: str = "human"  # who plays this side on a resume: "human" or "bot"
    note: str = ""  # what was not read, and why: a `.peer` that is a pipe, say
    peer_key: bytes | None = None  # the other player's key, as the `.peer` keeps it


def rules_accepted(path: Path) -> bool:
    """Whether the guest's hello, its yes to the host's rules, is in the log at ``path``:
    only then has the game begun for the guest. A guest killed at the rules question
    (its terminal closed) leaves the host's hello alone in its file: nothing to resume,
    since the host may have begun another game since, and a new `join` asks the rules
    afresh. True if the log cannot be read, which is the audit's to report."""
    hellos = _hellos(path)
    return hellos is None or hellos[GUEST]


def _hellos(path: Path) -> tuple[bool, bool] | None:
    """Whether the host's hello, and the guest's, are in the log at ``path``; None if
    it cannot be read."""
    try:
        records, _ = read_records(path)
    except (OSError, FileError):
        return None
    log, _ = Log.from_records(records)
    return log.hello(HOST) is not None, log.hello(GUEST) is not None


def unfinished_with(directory: Path, host_key: str, look_at: int = 3) -> Path | None:
    """The newest game this guest began with the host of ``host_key`` and did not
    finish, if any: a `join` typed again after a crash instead of `ginp2p resume`. A
    game whose rules the guest never accepted was never begun (:func:`rules_accepted`).

    Only the ``look_at`` newest games with that host are read (an audit each).
    """
    from ginp2p.files.records import audit_file

    seen = 0
    for path in sorted(directory.glob("*.ginlog"), reverse=True):
        try:
            side = PeerFile.load(peer_path(path))
        except ValueError:
            continue
        if side.role != "guest" or side.peer_key != host_key or not rules_accepted(path):
            continue
        seen += 1
        try:
            r = audit_file(path)
        except Exception:  # an unreadable file is `ginp2p games`'s to report
            r = None
        if r is not None and r.entries and r.end is None and r.cheat is None:
            return path
        if seen >= look_at:
            break
    return None


def last_played(path: Path) -> float:
    """When the game at ``path`` was last played (``time.time()``): its log or its
    secrets were last written then, since every entry is written at once; 0 if unknown."""
    times = [0.0]
    for f in (path, secrets_path(path)):
        with contextlib.suppress(OSError):
            times.append(f.stat().st_mtime)
    return max(times)


def drop_never_begun(directory: Path, host_key: str) -> list[Path]:
    """Remove this guest's files of games with the host of ``host_key`` that never began
    and hold nothing but the host's hello (and no secret), as a quit at the rules
    question does: a `join` typed again asks the rules afresh, so such files would only
    pile up. A file open in another process (a `join` still at the question) is left
    alone. The logs removed."""
    removed = []
    for path in sorted(directory.glob("*.ginlog")):
        try:
            side = PeerFile.load(peer_path(path))
        except ValueError:
            continue
        if side.role != "guest" or side.peer_key != host_key:
            continue
        records = _host_hello_alone(path)
        if records is None:
            continue
        try:
            logfile = LogFile.open(path)  # locked: no process plays it meanwhile
        except (OSError, FileError):
            continue
        with logfile:
            if list(logfile.records) != records:
                continue
            try:
                path.unlink()
            except OSError:
                continue
            for leftover in (secrets_path(path), peer_path(path)):
                with contextlib.suppress(OSError):
                    leftover.unlink()
        removed.append(path)
    return removed


def _host_hello_alone(path: Path) -> list[bytes] | None:
    """The records of a guest's log that holds at most the host's hello, whole, and whose
    secrets hold nothing; else None."""
    try:
        records, torn = read_records(path)
        secret = secrets_path(path)
        secrets = read_records(secret, SecretsFile.MAGIC)[0] if secret.exists() else []
    except (OSError, FileError):
        return None
    log, _ = Log.from_records(records)
    if torn or secrets or len(set(records)) > 1 or log.hello(GUEST) is not None:
        return None
    return records


_WHEN = "%Y-%m-%d %H:%M"


def _local_time(created: str) -> str:
    """When a game began, in this machine's time (the file keeps UTC), to the minute."""
    import datetime

    try:
        when = datetime.datetime.fromisoformat(created)
    except ValueError:
        return created
    if when.tzinfo is not None:
        when = when.astimezone()
    return when.strftime(_WHEN)


def _began(path: Path) -> str:
    """When a game without its ``.peer`` began (a log copied from a friend, say): the time
    its name was given (``20261124-111915-host.ginlog``, this machine's time), else when
    the file was last written, else "?"."""
    with contextlib.suppress(ValueError):
        return time.strftime(_WHEN, time.strptime(path.name[:15], "%Y%m%d-%H%M%S"))
    with contextlib.suppress(OSError):  # a dangling link has no time
        return time.strftime(_WHEN, time.localtime(path.stat().st_mtime))
    return "?"


@dataclass(frozen=True, slots=True)
class _Summary:
    """What the listing takes from a game's audit."""

    entries: int
    names: tuple[str, str]
    preset: str | None
    changes: str
    scores: tuple[int, int] | None
    end: str | None
    winner: int | None
    verdict: str
    hellos: tuple[bool, bool] | None  # the host's and the guest's are in it (None: unread)

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> _Summary:
        """Back from the cache file; TypeError, KeyError or ValueError if it is not one."""
        scores, hellos = d["scores"], d["hellos"]
        return cls(int(d["entries"]), (str(d["names"][0]), str(d["names"][1])), d["preset"],
                   str(d["changes"]), None if scores is None else (int(scores[0]), int(scores[1])),
                   d["end"], d["winner"], str(d["verdict"]),
                   None if hellos is None else (bool(hellos[0]), bool(hellos[1])))  # fmt: skip


#: The listing's memory of audits, in the games folder: an audit is a few tens of ms
#: (it checks every shuffle), and a folder of a hundred games was seconds to list. A
#: file's summary is reused while its size, time and inode (and this version) are those
#: it was audited at; a game in play grows, so it is audited again.
CACHE_NAME = ".games-cache.json"


class _Audits:
    def __init__(self, directory: Path) -> None:
        self.path = directory / CACHE_NAME
        self.known: dict[str, Any] = {}
        self.changed = False
        with contextlib.suppress(OSError, ValueError, FileError):  # a pipe: not waited on
            known = json.loads(read_regular(self.path))
            if isinstance(known, dict) and known.get("version") == __version__:
                self.known = known.get("games", {})

    @staticmethod
    def _stamp(path: Path) -> list[int]:
        st = path.stat()
        return [st.st_size, st.st_mtime_ns, st.st_ino]

    def remembered(self, path: Path) -> _Summary | None:
        """The summary of the game at ``path`` if it is remembered and the file has not
        changed since; None otherwise (or if the file cannot be looked at)."""
        kept = self.known.get(path.name)
        with contextlib.suppress(OSError, TypeError, KeyError, ValueError):
            if isinstance(kept, dict) and kept.get("stamp") == self._stamp(path):
                return _Summary.from_json(kept["summary"])
        return None

    def audited(self, path: Path, hellos: tuple[bool, bool] | None) -> _Summary:
        """The audit's summary of the game at ``path``, remembered from now on with its
        ``hellos`` (:func:`_hellos`). OSError, NotAFile or the audit's own exception if
        it cannot be read."""
        from ginp2p.files.records import audit_file

        stamp = self._stamp(path)
        r = audit_file(path)
        s = _Summary(r.entries, r.names, r.preset,
                     settings_words(r.rules.changes()) if r.rules is not None else "",
                     r.scores, r.end, r.winner, r.verdict.value, hellos)  # fmt: skip
        self.known[path.name] = {"stamp": stamp, "summary": asdict(s)}
        self.changed = True
        return s

    def save(self, listed: set[str]) -> None:
        """Keep what was learnt, for the files still there: private as the logs are, and
        atomically (two listings at once each write a whole file). A folder that cannot be
        written is listed slowly."""
        if not self.changed and listed >= self.known.keys():
            return
        games = {name: v for name, v in self.known.items() if name in listed}
        data = json.dumps({"version": __version__, "games": games}).encode()
        with contextlib.suppress(OSError):  # never through a link planted at its name
            replace_atomically(self.path, data, PRIVATE_FILE, durable=False)


def list_games(directory: Path) -> list[GameInfo]:
    """Every game in ``directory`` (newest first): date, opponent, preset, result. A
    guest's file that never began (:func:`rules_accepted`) is no game. A game is
    ``unfinished`` until the match ends, as `join` calls it, dealt or not: one whose
    opponent never answered (a `play` left at once) can still be resumed.

    Each log is read through the audit (read-only, no lock): a few tens of ms a game,
    remembered in the folder's :data:`CACHE_NAME` while the file is unchanged.
    """
    games_folder_closed(directory)  # (as an older version may have left it open)
    audits = _Audits(directory)
    out: list[GameInfo] = []
    paths = sorted(directory.glob("*.ginlog"), reverse=True)
    for path in paths:
        note = ""
        try:
            side: PeerFile | None = PeerFile.load(peer_path(path))
        except NotAPeerFile:  # listed without it, and said (never waited on)
            side, note = None, f"{peer_path(path).name} skipped: a pipe or a device, not a file"
        except ValueError:
            side = None
        # the hellos first, from memory if the file is remembered: a guest's file that
        # never began is neither audited nor remembered
        kept = audits.remembered(path)
        hellos = kept.hellos if kept is not None else _hellos(path)
        if side is not None and side.role == "guest" and hellos is not None \
                and not hellos[GUEST]:  # fmt: skip
            continue  # no game: the guest never said yes (`join` to that host removes it)
        me = side.me if side is not None else HOST
        opponent, preset, result = "?", "?", "no entries"
        changes, unfinished = "", False
        try:
            r = kept if kept is not None else audits.audited(path, hellos)
            if r.entries and hellos is not None and not hellos[1 - me]:
                opponent = _awaited(side)  # not the log's stand-in, "guest"
            elif r.entries:
                # the hellos' words, as a screen may show them: the cache file may hold
                # them as an older listing kept them
                opponent = for_screen(r.names[1 - me]) or "?"
            preset = for_screen(r.preset or "?")  # the host's hello names its rules
            changes = r.changes
            if r.scores is not None:
                mine, theirs = r.scores[me], r.scores[1 - me]
                if r.end is not None and r.winner is not None:
                    won = "won" if r.winner == me else "lost"
                    result = (
                        f"{won} {mine} to {theirs} "
                        f"({match_end_words(r.end, 'you' if won == 'lost' else opponent)})"
                    )
                else:
                    result = f"unfinished, {mine} to {theirs}"
            elif r.entries:
                result = "unfinished, not dealt yet"
            if r.verdict not in ("clean", "incomplete"):
                result += f" [audit: {r.verdict}]"
            else:
                unfinished = bool(r.entries) and r.end is None
        except OSError as exc:
            result = f"unreadable: {exc.strerror or exc}"
        except NotAFile:
            result = "unreadable: a pipe or a device"
        except Exception as exc:  # a bug on one file must not hide the others
            result = f"unreadable ({type(exc).__name__})"
        date = _local_time(side.created) if side is not None and side.created else _began(path)
        role = side.role if side is not None else "?"
        computer = side is not None and side.role == "host" and bool(side.computer_game)
        player = side.player if side is not None else "human"
        key = side.peer_public_key if side is not None else None
        out.append(GameInfo(path, date, role, opponent, preset, result, changes, unfinished,
                            computer, player, note, key))  # fmt: skip
    audits.save({p.name for p in paths})
    return out


def _awaited(side: PeerFile | None) -> str:
    """Who a host's game waits for, when the guest's hello is not in it yet: the
    computer of a `play` (its game file's name), else the paired player it was begun
    with, else nobody ("-")."""
    if side is None:
        return "-"
    if side.computer_game:
        with contextlib.suppress(ValueError):
            return PeerFile.load(peer_path(side.computer_game)).name or "?"
    pinned = peers.lookup_quietly(side.peer_public_key)
    return pinned.name if pinned is not None else "-"
