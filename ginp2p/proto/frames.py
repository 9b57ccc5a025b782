"""The messages two peers exchange, and their bytes (docs/network.md).

A message is a few frames: a small msgpack header ``[type, …]``, then the raw payload
(one stored wire entry, or one pairing message). See :func:`decode_frame` for the exact
shapes. Pure: the transport (:mod:`ginp2p.net.transport`) moves these bytes, the link
(:mod:`ginp2p.proto.link`) decides what to send; nothing here looks inside an entry.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import msgpack

from ginp2p.errors import RemoteProtocolError
from ginp2p.proto.events import MAX_WIRE
from ginp2p.proto.text import for_screen

__all__ = [
    "MAX_PAIR",
    "MAX_REASON",
    "NET_VERSION",
    "ByeFrame",
    "EntryFrame",
    "Frame",
    "FrameError",
    "HaveFrame",
    "PairFrame",
    "decode_frame",
    "encode_frame",
]

#: The peer protocol's version, carried by ``have``: two peers must speak the same one.
NET_VERSION = 1
MAX_HEADER = 256
MAX_PAIR = 16 * 1024
MAX_REASON = 200
_UINT32 = 2**32 - 1


@dataclass(frozen=True, slots=True)
class EntryFrame:
    """One stored wire entry ``[packed, signature]``, byte for byte."""

    wire: bytes


@dataclass(frozen=True, slots=True)
class HaveFrame:
    """Resync: the contiguous seqs the sender stores per feed. ``reply``: answer with
    your own ``have`` (so the asker learns what you lack; never answered twice)."""

    version: int
    seq_host: int
    seq_guest: int
    reply: bool = False


@dataclass(frozen=True, slots=True)
class PairFrame:
    """An opaque pairing message (ginp2p.net.pairing's bytes)."""

    payload: bytes


@dataclass(frozen=True, slots=True)
class ByeFrame:
    """The sender is leaving (match over, or the player quit); ``reason`` is for people."""

    reason: str = ""


Frame = EntryFrame | HaveFrame | PairFrame | ByeFrame


class FrameError(RemoteProtocolError, ValueError):
    """Bytes from the network that are no frame: dropped, never a crash."""


def _pack(obj: object) -> bytes:
    packed: bytes = msgpack.packb(obj, use_bin_type=True)
    return packed


def encode_frame(frame: Frame) -> list[bytes]:
    """The frames of one message (header first)."""
    if isinstance(frame, EntryFrame):
        return [_pack(["entry"]), bytes(frame.wire)]
    if isinstance(frame, HaveFrame):
        return [_pack(["have", frame.version, frame.seq_host, frame.seq_guest, frame.reply])]
    if isinstance(frame, PairFrame):
        return [_pack(["pair"]), bytes(frame.payload)]
    if isinstance(frame, ByeFrame):
        return [_pack(["bye", frame.reason[:MAX_REASON]])]
    raise TypeError(f"not a frame: {frame!r}")


def _uint(value: object, what: str) -> int:
    if type(value) is not int or not 0 <= value <= _UINT32:
        raise FrameError(f"{what} is not a sequence number")
    return value


def decode_frame(parts: Sequence[bytes]) -> Frame:
    """Parse one message's frames; FrameError for anything that is not exactly:

    ``entry``: ``["entry"]`` + one payload of 1..MAX_WIRE bytes;
    ``have``: ``["have", version, seq_host, seq_guest, reply]`` and nothing after
    (a ``have`` of another version decodes to its version alone, so a mismatch can be
    reported whatever the rest looks like);
    ``pair``: ``["pair"]`` + one payload of 1..MAX_PAIR bytes;
    ``bye``: ``["bye", reason]`` (a str of at most 200 characters), the reason as a
    screen may show it (``for_screen``): whoever prints it, the other side's words
    arrive here once, and a terminal escape in them would reach the player's screen.
    """
    if not parts:
        raise FrameError("an empty message")
    raw = bytes(parts[0])
    if len(raw) > MAX_HEADER:
        raise FrameError("the header is too long")
    try:
        header = msgpack.unpackb(
            raw, raw=False, max_bin_len=0, max_str_len=MAX_REASON * 4, max_array_len=8,
            max_map_len=0, max_ext_len=0,
        )  # fmt: skip
    except Exception as exc:
        raise FrameError(f"an undecodable header: {type(exc).__name__}") from None
    if type(header) is not list or not header or type(header[0]) is not str:
        raise FrameError("the header is not [type, …]")
    kind: str = header[0]
    rest: list[object] = header[1:]
    payload = [bytes(p) for p in parts[1:]]
    if kind == "have":
        version = rest[0] if rest else None
        if type(version) is not int:
            raise FrameError("a have without a version")
        if version != NET_VERSION:
            return HaveFrame(version, 0, 0, False)
        reply = rest[3] if len(rest) == 4 else None
        if type(reply) is not bool or payload:
            raise FrameError("a malformed have")
        return HaveFrame(version, _uint(rest[1], "seq_host"), _uint(rest[2], "seq_guest"), reply)
    if kind in ("entry", "pair"):
        limit = MAX_WIRE if kind == "entry" else MAX_PAIR
        if rest or len(payload) != 1:
            raise FrameError(f"an {kind} frame carries one payload")
        if not 0 < len(payload[0]) <= limit:
            raise FrameError(f"an {kind} payload of {len(payload[0])} bytes")
        return EntryFrame(payload[0]) if kind == "entry" else PairFrame(payload[0])
    if kind == "bye":
        reason = rest[0] if len(rest) == 1 else None
        if type(reason) is not str or len(reason) > MAX_REASON or payload:
            raise FrameError("a malformed bye")
        return ByeFrame(for_screen(reason))
    raise FrameError(f"an unknown frame type {kind[:20]!r}")
