"""What is signed and sent: an entry's nine fields as ``packed``, and the wire wrapper.

An entry is the header (version, game, author, seq, prev, ack) and a kind with its
body. :func:`encode_entry` gives the canonical bytes a player signs (``packed``);
:func:`decode_entry` accepts only those bytes back, so one meaning has exactly one
byte string (msgpack-python's smallest forms, ``bin`` for bytes, ``str`` for text,
sorted map keys). The signed ``packed`` travels and is stored inside an unsigned
``[packed, signature]`` (:func:`encode_wire`, :func:`decode_wire`). Peer bytes come
back as a valid value or raise a :class:`RemoteProtocolError`, never another
exception; a value we are asked to encode that breaks its schema is our own bug
(:class:`LocalProtocolError`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from ginp2p.errors import LocalProtocolError, RemoteProtocolError
from ginp2p.proto.events.fields import (
    UINT32,
    Field,
    Int,
    NonCanonical,
    SchemaError,
    _unpack,
    pack,
)
from ginp2p.proto.events.kinds import (
    _BODY_TYPE,
    B32,
    ID,
    KIND,
    MAX_EVIDENCE,
    Body,
    from_native,
    to_native,
)
from ginp2p.proto.shuffle.group import K_MIN

# ------------------------------------------------------------------------ the limits

#: Largest ``packed`` entry accepted (the largest legal body is about 28 KB).
MAX_PACKED = 64 * 1024
#: Largest wire ``[packed, signature]`` accepted.
MAX_WIRE = MAX_PACKED + 128
_ENTRY_LIMITS = {
    "max_bin_len": MAX_EVIDENCE,
    "max_str_len": 500,
    "max_array_len": 108,
    "max_map_len": 64,
    "max_ext_len": 0,
}
_WIRE_LIMITS = {
    "max_bin_len": MAX_PACKED,
    "max_str_len": MAX_PACKED,
    "max_array_len": 2,
    "max_map_len": 0,
    "max_ext_len": 0,
}


# ------------------------------------------------------------------------ entries


class EntryFields(NamedTuple):
    """The nine fields of an entry, in their order in ``packed``."""

    v: int
    game: bytes
    author: int
    seq: int
    prev: bytes
    ack_seq: int
    ack_id: bytes
    kind: str
    body: Body


VERSION = 1
_HEADER: tuple[tuple[str, Field], ...] = (
    ("v", Int(VERSION, VERSION)),
    ("game", B32),
    ("author", Int(0, 1)),
    ("seq", Int(1, UINT32)),
    ("prev", ID),
    ("ack_seq", Int(0, UINT32)),
    ("ack_id", ID),
    ("kind", KIND),
)


def _dump_header(fields: Sequence[Any]) -> list[Any]:
    return [t.dump(v) for (_, t), v in zip(_HEADER, fields[:8], strict=True)]


def encode_entry(fields: EntryFields, *, min_k: int = K_MIN) -> bytes:
    """``packed``: the canonical encoding of an entry's nine fields (a hello asking for
    fewer than ``min_k`` cut-and-choose rounds is refused: see :func:`decode_entry`)."""
    native = [*_dump_header(fields), None]
    _check_header(native, LocalProtocolError)
    native[8] = to_native(fields.kind, fields.body, min_k=min_k)
    packed = pack(native)
    if len(packed) > MAX_PACKED:
        raise LocalProtocolError(f"entry of {len(packed)} bytes exceeds {MAX_PACKED}")
    return packed


def _check_header(native: Any, error: Callable[[str], Exception]) -> EntryFields:
    if type(native) is not list or len(native) != 9:
        raise error("an entry is an array of 9 fields")
    try:
        head = [t.check(v, n) for (n, t), v in zip(_HEADER, native, strict=False)]
    except RemoteProtocolError as exc:
        if error is LocalProtocolError:
            raise error(str(exc)) from exc
        raise
    return EntryFields._make([*head, None])


def decode_entry(packed: bytes, *, min_k: int = K_MIN) -> EntryFields:
    """Decode and validate ``packed``; RemoteProtocolError for anything but canonical.

    A hello asking for fewer than ``min_k`` cut-and-choose rounds is a SchemaError.
    Entries from a peer are decoded with the default, ``shuffle.K_MIN``; a lower
    ``min_k`` is for a caller that chose the rounds of both players itself (a test).
    """
    native = _unpack(packed, MAX_PACKED, False, _ENTRY_LIMITS)
    head = _check_header(native, SchemaError)
    fields = head._replace(body=from_native(head.kind, native[8], min_k=min_k))
    if encode_entry_unchecked(fields) != bytes(packed):
        raise NonCanonical("the entry is not in its canonical encoding")
    return fields


def encode_entry_unchecked(fields: EntryFields) -> bytes:
    """Re-encode fields that were just validated (used for the canonical check)."""
    return pack([*_dump_header(fields), _BODY_TYPE[fields.kind].dump(fields.body)])


# ------------------------------------------------------------------------ the wire


def encode_wire(packed: bytes, signature: bytes) -> bytes:
    """``[packed, signature]`` as sent and stored: two msgpack ``bin``."""
    return pack([bytes(packed), bytes(signature)])


def decode_wire(wire: bytes) -> tuple[bytes, bytes]:
    """Split a wire entry into ``(packed, signature)``.

    The wrapper is not signed, so any msgpack encoding of a 2-array of byte strings
    (``bin`` or ``str`` typed, any array header) is accepted: re-wrapping an entry
    cannot change its id. Only ``packed`` and ``signature`` count.
    """
    native = _unpack(wire, MAX_WIRE, True, _WIRE_LIMITS)
    if type(native) is not list or len(native) != 2:
        raise SchemaError("a wire entry is an array [packed, signature]")
    packed, signature = native
    if type(packed) is not bytes or type(signature) is not bytes:
        raise SchemaError("a wire entry holds two byte strings")
    if len(signature) != 64:
        raise SchemaError(f"a signature has 64 bytes, not {len(signature)}")
    return packed, signature
