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
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from ginp2p.errors import Ginp2pError
from ginp2p.files.identity import user_dir
from ginp2p.files.private import (
    NotAFile,
    open_private,
    private_folder,
    read_regular,
    replace_atomically,
)
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
    "named_so",
    "pin",
    "safety_number",
    "same_name",
]

PEERS_FILE = "peers.json"
_FORMAT = 1

Home = str | os.PathLike[str] | None


class PeersError(Ginp2pError):
    """``peers.json`` exists but cannot be read; it is left untouched."""


@dataclass(frozen=True, slots=True)
class Peer:
    """One pinned peer: the name it was paired under (its fingerprint while no hello
    has named it), its key, and ``calls_itself``: the other name its key announced
    since, if it did (never merged into ``name``: a name is only words, the key is the
    player)."""

    name: str
    key: bytes
    paired: datetime
    calls_itself: str = ""

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.key)

    @property
    def named(self) -> bool:
        """Whether a hello named this pin (pairing pins a key alone)."""
        return self.name != self.fingerprint

    @property
    def title(self) -> str:
        """This player as a screen names it: the name it was paired under, and the one
        it calls itself now beside it (``Mallory (calls itself Alice)``); ``unnamed``
        for a pin no hello named. Where two could be confused, show the fingerprint
        with it (:attr:`described`)."""
        own = self.name if self.named else "unnamed"
        return f"{own} (calls itself {self._other})" if self._other else own

    @property
    def described(self) -> str:
        """The title with the fingerprint: ``Mallory (calls itself Alice, ab12-…)``."""
        own = self.name if self.named else "unnamed"
        also = f"calls itself {self._other}, " if self._other else ""
        return f"{own} ({also}{self.fingerprint})"

    @property
    def _other(self) -> str:
        """The name this key calls itself, if it is not its own."""
        other = self.calls_itself
        return "" if not other or (self.named and same_name(other, self.name)) else other


#: Letters of other scripts drawn like Latin ones (Cyrillic, Greek, Armenian), capitals
#: read before case is dropped, small letters after: "Аlice" with a Cyrillic А is
#: Alice to a reader (:func:`name_key`).
_LIKE_CAPITALS = str.maketrans("АВЕКМНОРСТХЅІЈУΑΒΕΖΗΙΚΜΝΟΡΤΥΧ", "ABEKMHOPCTXSIJYABEZHIKMNOPTYX")
_LIKE_SMALL = str.maketrans("асԁеһіјӏорԛѕսѵԝхуᴢαικνορυχɑʟ", "acdehijlopqsuvwxyzaikvopuxal")
#: Letters, digits and pairs a screen draws alike in Latin itself: I l 1 | (and i, once
#: case is dropped), 0 O, rn m, vv w.
_LIKE_LATIN = str.maketrans("i1|ı0", "llllo")
_LIKE_PAIRS = (("rn", "m"), ("vv", "w"))
#: Characters that draw nothing (fillers, the blank braille cell) beyond the format and
#: combining characters :func:`name_key` drops by their category.
_BLANK = frozenset("\u115f\u1160\u3164\uffa0\u2800")


def name_key(name: str) -> str:
    """A name as a reader tells it from another: compatibility forms unfolded (full-width
    letters, ligatures), accents, invisible and format characters (joiners, variation
    selectors, bidi controls), blanks and case dropped, and letters of other scripts
    drawn like Latin ones read as those, as are Latin letters and digits drawn alike (I
    l 1, 0 O, rn m). Two names with one key could be taken for each other on a screen.

    >>> name_key("Al\u200dice") == name_key("\u0410lice") == name_key("AIice") == "allce"
    True
    >>> name_key("Renée") == name_key("Rene\u0301e")
    True
    """
    drawn = (
        c for c in unicodedata.normalize("NFKD", name)
        if unicodedata.category(c)[0] not in "CZ" and unicodedata.category(c) not in ("Mn", "Me")
        and c not in _BLANK
    )  # fmt: skip
    key = "".join(drawn).translate(_LIKE_CAPITALS).casefold().translate(_LIKE_SMALL)
    key = key.translate(_LIKE_LATIN)
    for pair, drawn_as in _LIKE_PAIRS:
        key = key.replace(pair, drawn_as)
    return key


def same_name(a: str, b: str) -> bool:
    """Whether two names could be taken for one another (:func:`name_key`)."""
    return name_key(a) == name_key(b)


def named_so(name: str, pinned: list[Peer]) -> list[Peer]:
    """The pins paired under ``name`` (not the ones that only call themselves so)."""
    return [p for p in pinned if p.named and same_name(p.name, name)]


# ------------------------------------------------------------------ the file


def _path(home: Home) -> Path:
    return user_dir("config", home) / PEERS_FILE


def _read(path: Path) -> list[Peer]:
    try:
        raw = read_regular(path)  # a pipe named peers.json is refused, never waited on
    except FileNotFoundError:
        return []
    except NotAFile as exc:
        raise PeersError(f"{exc}; remove it") from exc
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
                for_screen(str(p.get("calls_itself") or "")),  # older files have none
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
            | ({"calls_itself": p.calls_itself} if p.calls_itself else {})
            for p in peers
        ],
    }
    data = (json.dumps(doc, indent=2, ensure_ascii=False) + "\n").encode()
    replace_atomically(path, data, 0o600)


@contextlib.contextmanager
def _locked(home: Home) -> Iterator[Path]:
    """Serialise read-modify-write across processes (POSIX; elsewhere best effort)."""
    path = _path(home)
    private_folder(path.parent)
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        yield path
        return
    fd = open_private(path.with_name(f".{PEERS_FILE}.lock"), os.O_RDWR)  # never via a link
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield path
    finally:
        os.close(fd)


# ------------------------------------------------------------------ the API


def pin(key: bytes, name: str, *, home: Home = None, when: datetime | None = None) -> Peer:
    """Pin ``key`` under ``name``, keeping the date it was first paired. The first name
    a key gives names its pin, unless another pin has that name: the name a player
    knows a pin by never changes, so a later different ``name`` (or one another pin
    has) is kept beside it as ``calls_itself``, never in its place. An empty ``name``
    changes nothing but pins the key."""
    if len(key) != 32:
        raise ValueError(f"a public key has 32 bytes, not {len(key)}")
    with _locked(home) as path:
        peers = _read(path)
        old = next((p for p in peers if p.key == key), None)
        said = for_screen(name.strip())
        own, calls = (old.name, old.calls_itself) if old else (fingerprint(key), "")
        if said and old is not None and old.named:
            calls = "" if same_name(said, own) else said
        elif said:  # the first name: its own, unless another pin has it
            others = [p for p in peers if p.key != key]
            own, calls = (own, said) if named_so(said, others) else (said, "")
        paired = old.paired if old else (when or datetime.now(UTC)).replace(microsecond=0)
        peer = Peer(own, key, paired, calls)
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
    hits = named_so(wanted, peers)
    if not hits and (prefix := _squash(wanted)):
        hits = [p for p in peers if _squash(p.fingerprint).startswith(prefix)]
    if not hits:
        raise LookupError(
            f"no paired player is called {wanted!r} or has a fingerprint "
            "starting so (`ginp2p keys` lists them)"
        )
    if len(hits) > 1:  # a name: never a guess between keys
        listed = "; ".join(p.described for p in hits)
        raise LookupError(
            f"{wanted!r} matches {len(hits)} paired players, told apart only by their "
            f"fingerprints: {listed}; name one by the start of its fingerprint"
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
