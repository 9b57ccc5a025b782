"""The entries of the signed two-feed log (docs/log.md): their bytes, ids and
signatures, the hashes that bind a game, and what is wrong with an entry on its own.

One feed per player, as in Secure Scuttlebutt: each entry names its author's previous
entry (``prev``) and the newest opponent entry its author had applied (``ack``). An
:class:`Entry` keeps the bytes its author signed and never re-encodes them. Pure: the
key that signs is :mod:`ginp2p.files.identity`'s.

``min_k`` is the fewest cut-and-choose rounds a host hello may ask for (the codec's
floor, ``shuffle.K_MIN``, unless a caller that chose the rounds of both players itself,
a test, passes a lower one): entries from a peer or a file are always read at the
default.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, TypeVar

import nacl.exceptions
import nacl.signing

from ginp2p.proto import events as ev
from ginp2p.proto.events import EntryFields
from ginp2p.proto.shuffle import K_MIN

__all__ = [
    "GUEST",
    "HOST",
    "ZERO",
    "Entry",
    "H",
    "entry_id",
    "feed_order",
    "first_dealer",
    "game_id",
    "nonce_hash",
    "sign_entry",
    "structure_problem",
]

HOST, GUEST = 0, 1
_B = TypeVar("_B")
ZERO = bytes(32)
SIGN_CONTEXT = b"ginp2p/v1/entry\0"
ID_CONTEXT = b"ginp2p/v1/id\0"

# ------------------------------------------------------------------------- hashing


def H(label: str, *fields: bytes) -> bytes:
    """SHA-512 over the ASCII label and each field, each prefixed by its 4-byte
    big-endian length: the same H as the shuffle, so no two inputs collide by
    concatenation."""
    h = hashlib.sha512()
    for part in (label.encode("ascii"), *fields):
        h.update(len(part).to_bytes(4, "big"))
        h.update(part)
    return h.digest()


def entry_id(packed: bytes, signature: bytes) -> bytes:
    """SHA-256 over the signed bytes only, so re-wrapping an entry keeps its id."""
    return hashlib.sha256(ID_CONTEXT + packed + signature).digest()


def game_id(host_hello_id: bytes, guest_hello_id: bytes) -> bytes:
    """The game id every later entry carries: binds both hellos, hence both keys."""
    return hashlib.sha256(host_hello_id + guest_hello_id).digest()


def nonce_hash(nonce: bytes) -> bytes:
    """What the host's hello carries instead of its nonce."""
    return H("nonce", nonce)


def first_dealer(game: bytes, host_nonce: bytes, guest_nonce: bytes) -> int:
    """HOST if the low bit of the coin is 0, else GUEST.

    The low bit is that of the digest read as a big-endian number: the last byte's
    least significant bit.
    """
    return H("coin", game, host_nonce, guest_nonce)[-1] & 1


# ------------------------------------------------------------------------- entries


@dataclass(frozen=True, slots=True, eq=False)
class Entry:
    """One signed entry. ``packed`` is kept byte for byte and never re-encoded."""

    packed: bytes
    signature: bytes
    fields: EntryFields
    id: bytes

    @classmethod
    def from_parts(cls, packed: bytes, signature: bytes, *, min_k: int = K_MIN) -> Entry:
        """Decode ``packed`` (strictly, a hello held to ``min_k`` rounds or more); the
        signature is not checked here."""
        fields = ev.decode_entry(packed, min_k=min_k)
        return cls(packed, signature, fields, entry_id(packed, signature))

    @classmethod
    def from_wire(cls, wire: bytes, *, min_k: int = K_MIN) -> Entry:
        """Decode wire bytes ``[packed, signature]``; RemoteProtocolError if malformed
        (or a hello asking for fewer than ``min_k`` rounds)."""
        packed, signature = ev.decode_wire(wire)
        return cls.from_parts(packed, signature, min_k=min_k)

    @property
    def wire(self) -> bytes:
        """The canonical wire form, as sent and stored."""
        return ev.encode_wire(self.packed, self.signature)

    def verify(self, public_key: bytes) -> bool:
        """True if the signature is ``public_key``'s over this entry."""
        try:
            nacl.signing.VerifyKey(public_key).verify(SIGN_CONTEXT + self.packed, self.signature)
        except (nacl.exceptions.CryptoError, ValueError, TypeError):
            return False
        return True

    @property
    def game(self) -> bytes:
        return self.fields.game

    @property
    def author(self) -> int:
        return self.fields.author

    @property
    def seq(self) -> int:
        return self.fields.seq

    @property
    def prev(self) -> bytes:
        return self.fields.prev

    @property
    def ack_seq(self) -> int:
        return self.fields.ack_seq

    @property
    def ack_id(self) -> bytes:
        return self.fields.ack_id

    @property
    def kind(self) -> str:
        return self.fields.kind

    @property
    def body(self) -> Any:
        """The decoded body (see :meth:`body_as` for it typed)."""
        return self.fields.body

    def body_as(self, cls: type[_B]) -> _B:
        """The body, typed as ``cls``: the class the codec decodes this entry's kind to,
        which its caller knows (a hello's :class:`~ginp2p.proto.events.HelloBody`, ...)."""
        body = self.fields.body
        assert isinstance(body, cls), f"{self.kind} has a {type(body).__name__} body"
        return body

    @property
    def hand(self) -> int | None:
        """The hand an entry of a hand's kind belongs to (None for the set-up, chats,
        claims, resigns and disputes)."""
        hand: int | None = getattr(self.fields.body, "hand", None)
        return hand

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Entry) and other.id == self.id

    def __hash__(self) -> int:
        return hash(self.id)

    def __repr__(self) -> str:
        who = ("host", "guest")[self.author]
        return f"<Entry {who}#{self.seq} {self.kind} {self.id[:4].hex()}>"


def sign_entry(key: nacl.signing.SigningKey, fields: EntryFields, *, min_k: int = K_MIN) -> Entry:
    """Pack ``fields`` once and sign them (a hello asking for fewer than ``min_k``
    rounds is a LocalProtocolError)."""
    packed = ev.encode_entry(fields, min_k=min_k)
    signature = key.sign(SIGN_CONTEXT + packed).signature
    return Entry.from_parts(packed, signature, min_k=min_k)


def structure_problem(f: EntryFields) -> str | None:
    """What is wrong with an entry on its own, without looking at any other entry."""
    if (f.kind == "hello") != (f.seq == 1):
        return "seq 1 is the hello, and a hello is seq 1"
    if (f.seq == 1) != (f.prev == ZERO):
        return "prev is zero exactly at seq 1"
    if (f.kind == "hello") != (f.game == ZERO):
        return "game is zero exactly in a hello"
    if (f.ack_seq == 0) != (f.ack_id == ZERO):
        return "ack_id is zero exactly when ack_seq is 0"
    if f.kind != "hello":
        return None
    b = f.body
    assert isinstance(b, ev.HelloBody)
    host_fields = (b.rules, b.params, b.nonce_hash)
    if f.author == HOST:
        if f.ack_seq != 0 or None in host_fields or b.nonce is not None:
            return "the host hello acks nothing and has rules, params and nonce_hash only"
    elif f.ack_seq != 1 or host_fields != (None, None, None) or b.nonce is None:
        return "the guest hello acks the host hello and has a nonce only"
    return None


def feed_order(e: Entry) -> tuple[int, int, bytes]:
    """How stored entries are listed: by author, then seq, then id (twins at one seq)."""
    return (e.author, e.seq, e.id)
