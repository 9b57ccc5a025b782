"""A game's files besides the log and the secrets: where games are kept, how a new
one is named, and the ``.peer`` sidecar that says how to rejoin it. Read by the
commands that play (session, ``resume``) and by those that only read (``replay``,
``games``), so it imports nothing of the network.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ginp2p import __version__
from ginp2p.files.identity import user_dir
from ginp2p.files.private import (
    PRIVATE_FILE,
    NotAFile,
    private_folder,
    read_regular,
    replace_atomically,
)
from ginp2p.game.rules import RuleSet
from ginp2p.proto.entry import GUEST, HOST
from ginp2p.proto.keytext import key_from_text

__all__ = [
    "PEER_FORMAT",
    "NotAPeerFile",
    "PeerFile",
    "drop_reservation",
    "games_dir",
    "games_folder_made",
    "new_game_path",
    "peer_path",
]

PEER_FORMAT = "ginp2p-peer/1"


def games_dir() -> Path:
    """Where games are kept: ``games`` in $GINP2P_HOME, else in the platform's user data
    folder."""
    return user_dir("data") / "games"


def _ginp2ps(directory: Path) -> bool:
    """Whether ``directory`` is inside ginp2p's own folder (GINP2P_HOME, or the
    platform's ginp2p folders): the games folder and the folders in it, which ginp2p
    made and keeps. A folder named with ``--log-dir`` elsewhere is the user's."""
    try:
        where = directory.resolve()
        homes = {user_dir(kind).resolve() for kind in ("data", "config")}
    except (OSError, RuntimeError):
        return False
    return any(where != home and where.is_relative_to(home) for home in homes)


def games_folder_made(directory: Path) -> None:
    """Make a folder games are kept in (created, parents too), private: mode 0700
    whatever the umask. One of ginp2p's own folders (:func:`_ginp2ps`) made 0755 by an
    older version is made 0700 as ginp2p writes into it, quietly; a folder of the
    user's own choosing (``--log-dir``) that already exists keeps its mode (the files
    ginp2p writes in it are 0600 all the same). NotADirectoryError if a file is in the
    way."""
    private_folder(directory, tighten=_ginp2ps(directory))


def games_folder_closed(directory: Path) -> None:
    """One of ginp2p's own games folders, as an older version left it (0755, its files
    0644): made private as it is listed, quietly; what is not this user's, and a folder
    of the user's own choosing, are left as they are."""
    if os.name != "posix" or not directory.is_dir() or not _ginp2ps(directory):
        return
    private_folder(directory, tighten=True)
    with contextlib.suppress(OSError):
        for entry in os.scandir(directory):  # (a link is not followed: not a file here)
            st = entry.stat(follow_symlinks=False)
            if stat.S_ISREG(st.st_mode) and st.st_uid == os.geteuid() and st.st_mode & 0o077:
                with contextlib.suppress(OSError):
                    os.chmod(entry.path, PRIVATE_FILE)


def peer_path(log_path: str | os.PathLike[str]) -> Path:
    """``NAME.peer`` beside ``NAME.ginlog``."""
    return Path(log_path).with_suffix(".peer")


def new_game_path(directory: Path, role: str) -> Path:
    """A fresh ``YYYYMMDD-HHMMSS-ROLE[-N].ginlog`` in ``directory`` (created), reserved:
    its ``.peer`` is created empty, exclusively, so two games started in one second
    never share a file. The game's own ``.peer`` replaces it once the files are open;
    :func:`drop_reservation` removes it if the game never began."""
    games_folder_made(directory)  # NotADirectoryError if a file is in the way
    stem = f"{time.strftime('%Y%m%d-%H%M%S')}-{role}"
    for n in range(1, 1000):
        path = directory / (f"{stem}.ginlog" if n == 1 else f"{stem}-{n}.ginlog")
        if path.exists():
            continue
        try:
            fd = os.open(peer_path(path), os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE)
            os.close(fd)  # O_EXCL: never through a link (the name must be free)
        except FileExistsError:
            continue
        return path
    raise FileExistsError(f"no free game file name in {directory}")


def drop_reservation(path: Path) -> None:
    """Remove the empty ``.peer`` that :func:`new_game_path` reserved ``path`` with, if
    the game never opened its files."""
    sidecar = peer_path(path)
    with contextlib.suppress(OSError):
        if not path.exists() and sidecar.stat().st_size == 0:
            sidecar.unlink()


class NotAPeerFile(ValueError):
    """A ``.peer`` that is no regular file (a pipe, a device): not read."""


@dataclass
class PeerFile:
    """The sidecar ``NAME.peer``: what a restart needs besides the log and the secrets.

    JSON object, ``format`` = "ginp2p-peer/1"; keys as the fields below. Keys are
    Ed25519 public keys as 52 lowercase base32 letters. The host's ``host``/``port``
    are where it listens (``port`` the one really bound); the guest's, where it
    connects. ``rules`` is every setting (RuleSet.to_dict) and only matters to the host
    until its hello is written; a guest's ``rules`` are the ones it insists on, if any.
    """

    role: str  # "host" or "guest"
    name: str
    player: str = "human"  # "human" or "bot": what `ginp2p resume` continues with
    peer_key: str | None = None  # the opponent's key (a guest always has the host's)
    host: str = "0.0.0.0"
    port: int = 0
    rules: dict[str, Any] | None = None
    k: int = 20
    claim_timeout: int = 120
    created: str = ""
    computer_game: str | None = None  # `ginp2p play`: the computer player's own game file
    level: str = "normal"  # a computer player's (`--level`): how a resume plays on
    version: str = __version__
    format: str = PEER_FORMAT

    @property
    def me(self) -> int:
        return HOST if self.role == "host" else GUEST

    @property
    def peer_public_key(self) -> bytes | None:
        return key_from_text(self.peer_key) if self.peer_key else None

    def ruleset(self) -> RuleSet | None:
        return RuleSet.from_dict(dict(self.rules)) if self.rules is not None else None

    def save(self, path: Path) -> None:
        """Atomically: a crash leaves the old or the new file."""
        data = json.dumps(asdict(self), indent=1, sort_keys=True).encode() + b"\n"
        replace_atomically(path, data, PRIVATE_FILE)  # never through a link

    @classmethod
    def load(cls, path: Path) -> PeerFile:
        """The sidecar at ``path``; ValueError if it cannot be used, NotAPeerFile if it is
        a pipe or a device (never waited on: read only as a regular file; a symbolic link
        is read if it leads to one)."""
        try:
            data = json.loads(read_regular(path).decode("utf-8"))
        except NotAFile as exc:
            raise NotAPeerFile(str(exc)) from None
        except FileNotFoundError:
            raise ValueError(f"{path} is missing: it says how to rejoin the game") from None
        except (OSError, ValueError) as exc:
            raise ValueError(f"{path} is unreadable: {exc}") from None
        if not isinstance(data, dict) or data.get("format") != PEER_FORMAT:
            raise ValueError(f"{path} is not a {PEER_FORMAT} file")
        known = set(cls.__dataclass_fields__)
        try:
            side = cls(**{k: v for k, v in data.items() if k in known})
        except TypeError as exc:
            raise ValueError(f"{path}: {exc}") from None
        if side.role not in ("host", "guest"):
            raise ValueError(f"{path} is damaged: its role is {side.role!r}, not host or guest")
        try:  # checked here, so that no later use of the key meets a damaged one
            side.peer_public_key  # noqa: B018
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{path} is damaged: the other player's key: {exc}") from None
        return side
