"""The pinned peers: trust on first use (docs/pairing.md).

After a successful pairing each side pins the other's Ed25519 key here; from then
on the host's ZAP handler admits only pinned keys and the guest expects the pinned
key of the host it connects to. The file is ``peers.json`` in the config dir, mode
0600, replaced atomically (write, fsync, rename) under a lock, so a crash or two
processes at once never leave half a file. A damaged file is reported, never
silently replaced: losing the pins would quietly re-open the door to pairing.

:func:`safety_number` lets two players check, by reading digits aloud, that each
holds the other's real key (Signal's idea).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from ginp2p.errors import Ginp2pError
from ginp2p.files.identity import user_dir
from ginp2p.files.logfile import replace_atomically
from ginp2p.present.words import for_screen
from ginp2p.proto.keytext import fingerprint, key_from_text, key_to_text

__all__ = [
    "PEERS_FILE",
    "Peer",
    "PeersError",
    "all",
    "find",
    "forget",
    "is_pinned",
    "lookup",
    "pin",
    "safety_number",
]

PEERS_FILE = "peers.json"
_FORMAT = 1

Home = str | os.PathLike[str] | None


class PeersError(Ginp2pError):
    """``peers.json`` exists but cannot be read; it is left untouched."""


@dataclass(frozen=True, slots=True)
class Peer:
    """One pinned peer: the name it was paired under and its key."""

    name: str
    key: bytes
    paired: datetime

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.key)


# ------------------------------------------------------------------ the file


def _path(home: Home) -> Path:
    return user_dir("config", home) / PEERS_FILE


def _read(path: Path) -> list[Peer]:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return []
    try:
        doc = json.loads(raw)
        if not isinstance(doc, dict) or doc.get("format") != _FORMAT:
            raise ValueError(f"unknown format (expected format {_FORMAT})")
        return [
            # a name comes from the other player's hello (or an older version that kept
            # it unfiltered): every listing of the pins shows it as a screen may
            Peer(
                for_screen(str(p["name"])),
                key_from_text(p["key"]),
                datetime.fromisoformat(p["paired"]),
            )
            for p in doc["peers"]
        ]
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise PeersError(f"{path} is damaged ({exc}); fix or remove it") from exc


def _write(path: Path, peers: list[Peer]) -> None:
    doc = {
        "format": _FORMAT,
        "peers": [
            {"name": p.name, "key": key_to_text(p.key), "paired": p.paired.isoformat()}
            for p in peers
        ],
    }
    data = (json.dumps(doc, indent=2, ensure_ascii=False) + "\n").encode()
    replace_atomically(path, data, 0o600)


@contextlib.contextmanager
def _locked(home: Home) -> Iterator[Path]:
    """Serialise read-modify-write across processes (POSIX; elsewhere best effort)."""
    path = _path(home)
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        yield path
        return
    fd = os.open(path.with_name(f".{PEERS_FILE}.lock"), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield path
    finally:
        os.close(fd)


# ------------------------------------------------------------------ the API


def pin(key: bytes, name: str, *, home: Home = None, when: datetime | None = None) -> Peer:
    """Pin ``key`` under ``name``. Pinning a known key again renames it (an empty
    ``name`` keeps the old one) and keeps the date it was first paired."""
    if len(key) != 32:
        raise ValueError(f"a public key has 32 bytes, not {len(key)}")
    with _locked(home) as path:
        peers = _read(path)
        old = next((p for p in peers if p.key == key), None)
        name = for_screen(name.strip()) or (old.name if old else fingerprint(key))
        paired = old.paired if old else (when or datetime.now(UTC)).replace(microsecond=0)
        peer = Peer(name, key, paired)
        peers = [p for p in peers if p.key != key] + [peer]
        _write(path, peers)
    return peer


def lookup(key: bytes, *, home: Home = None) -> Peer | None:
    """The pinned peer with this key, if any."""
    return next((p for p in _read(_path(home)) if p.key == key), None)


def lookup_quietly(key: bytes | None, *, home: Home = None) -> Peer | None:
    """:func:`lookup` where the answer is only a convenience (a name or a hint on the
    screen): a peers.json that cannot be read counts as no pin; `ginp2p keys` is the
    place that reports it."""
    if key is None:
        return None
    try:
        return lookup(key, home=home)
    except (OSError, PeersError):
        return None


def is_pinned(key: bytes, *, home: Home = None) -> bool:
    """True if this key was paired before (the host's ZAP handler asks this)."""
    return lookup(key, home=home) is not None


def all(*, home: Home = None) -> list[Peer]:
    """Every pinned peer, in the order they were first paired."""
    return sorted(_read(_path(home)), key=lambda p: p.paired)


def _squash(text: str) -> str:
    return "".join(c for c in text.lower() if c.isalnum())


def forget(name_or_fingerprint: str, *, home: Home = None) -> Peer:
    """Unpin one peer, named exactly (any case) or by a fingerprint prefix (dashes
    optional). LookupError if nothing or more than one peer matches."""
    wanted = name_or_fingerprint.strip()
    if not wanted:
        raise LookupError(
            "say which player to forget: the name or the start of the "
            "fingerprint `ginp2p keys` shows"
        )
    with _locked(home) as path:
        peers = _read(path)
        gone = find(wanted, peers)
        _write(path, [p for p in peers if p is not gone])
    return gone


def find(name_or_fingerprint: str, peers: list[Peer]) -> Peer:
    """The one peer of ``peers`` named exactly (any case), else whose fingerprint starts
    so (dashes optional): how `keys --forget` and `keys --safety` name a player.
    LookupError, saying which, if nothing or more than one peer matches."""
    wanted = name_or_fingerprint.strip()
    hits = [p for p in peers if p.name.casefold() == wanted.casefold()]
    if not hits and (prefix := _squash(wanted)):
        hits = [p for p in peers if _squash(p.fingerprint).startswith(prefix)]
    if not hits:
        raise LookupError(
            f"no paired player is called {wanted!r} or has a fingerprint "
            "starting so (`ginp2p keys` lists them)"
        )
    if len(hits) > 1:
        listed = ", ".join(f"{p.name} ({p.fingerprint})" for p in hits)
        raise LookupError(
            f"{wanted!r} matches {len(hits)} paired players: {listed}; give more of the fingerprint"
        )
    return hits[0]


# ------------------------------------------------------------ safety number

_SAFETY_VERSION = (0).to_bytes(2, "big")
_SAFETY_ID = b"ginp2p"
_SAFETY_ITERATIONS = 5200


def _half(key: bytes) -> str:
    """30 digits for one key: iterated SHA-512 (slow on purpose, as in Signal, so a
    near-match cannot be ground out cheaply), six 5-byte chunks mod 100000."""
    digest = hashlib.sha512(_SAFETY_VERSION + key + _SAFETY_ID).digest()
    for _ in range(_SAFETY_ITERATIONS):
        digest = hashlib.sha512(digest + key).digest()
    return "".join(
        f"{int.from_bytes(digest[i : i + 5], 'big') % 100000:05d}" for i in range(0, 30, 5)
    )


def safety_number(key_a: bytes, key_b: bytes) -> str:
    """60 digits in 12 groups of 5, identical on both screens whatever the order
    of the keys: the two players read them aloud to rule out a man in the middle."""
    for k in (key_a, key_b):
        if len(k) != 32:
            raise ValueError(f"a public key has 32 bytes, not {len(k)}")
    digits = "".join(sorted((_half(key_a), _half(key_b))))
    return " ".join(digits[i : i + 5] for i in range(0, 60, 5))
