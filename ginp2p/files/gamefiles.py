"""A game's files besides the log and the secrets: where games are kept, how a new
one is named, and the ``.peer`` sidecar that says how to rejoin it. Read by the
commands that play (session, ``resume``) and by those that only read (``replay``,
``games``), so it imports nothing of the network.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ginp2p import __version__
from ginp2p.files.identity import user_dir
from ginp2p.files.logfile import replace_atomically
from ginp2p.game.rules import RuleSet
from ginp2p.proto.entry import GUEST, HOST
from ginp2p.proto.keytext import key_from_text

__all__ = [
    "PEER_FORMAT",
    "PeerFile",
    "drop_reservation",
    "games_dir",
    "new_game_path",
    "peer_path",
]

PEER_FORMAT = "ginp2p-peer/1"


def games_dir() -> Path:
    """Where games are kept: ``games`` in $GINP2P_HOME, else in the platform's user data
    folder."""
    return user_dir("data") / "games"


def peer_path(log_path: str | os.PathLike[str]) -> Path:
    """``NAME.peer`` beside ``NAME.ginlog``."""
    return Path(log_path).with_suffix(".peer")


def new_game_path(directory: Path, role: str) -> Path:
    """A fresh ``YYYYMMDD-HHMMSS-ROLE[-N].ginlog`` in ``directory`` (created), reserved:
    its ``.peer`` is created empty, exclusively, so two games started in one second
    never share a file. The game's own ``.peer`` replaces it once the files are open;
    :func:`drop_reservation` removes it if the game never began."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except FileExistsError:  # a file of that name (mkdir's own words would puzzle)
        raise NotADirectoryError(errno.ENOTDIR, "not a folder", str(directory)) from None
    stem = f"{time.strftime('%Y%m%d-%H%M%S')}-{role}"
    for n in range(1, 1000):
        path = directory / (f"{stem}.ginlog" if n == 1 else f"{stem}-{n}.ginlog")
        if path.exists():
            continue
        try:
            os.close(os.open(peer_path(path), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
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
        replace_atomically(path, data, 0o644)

    @classmethod
    def load(cls, path: Path) -> PeerFile:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
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
