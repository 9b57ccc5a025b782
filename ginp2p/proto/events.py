"""Entry kinds, their bodies, and the canonical msgpack codec.

Every body schema lives in one table, :data:`SCHEMA`, so the protocol can change a
body by editing data: the codec, the body classes, the size limits and the
documentation table are all derived from it.

The codec is strict because peers are not trusted. Any bytes given to a decoder
come back as a valid value or raise a :class:`RemoteProtocolError`, never another
exception (h11's contract). Encodings are canonical (msgpack-python's smallest
forms, ``bin`` for bytes, ``str`` for text, sorted map keys), and decoders accept
nothing else, so one meaning has exactly one byte string. A value we are asked to
encode that breaks its schema is our own bug: :class:`LocalProtocolError`.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

import msgpack

from ginp2p.errors import LocalProtocolError, RemoteProtocolError
from ginp2p.game.cards import Card
from ginp2p.game.engine import (
    Action,
    BigGin,
    DeclareRumino,
    Discard,
    DrawDiscard,
    DrawStock,
    Gin,
    Knock,
    PassUpcard,
    Resign,
    Show,
    TakeUpcard,
    WallKnock,
    WallPass,
)
from ginp2p.game.melds import Layoff, Meld

__all__ = [
    "ACTION_KINDS",
    "BODY",
    "CODE",
    "COMMUTING",
    "ENDERS",
    "KINDS",
    "MAX_EVIDENCE",
    "MAX_PACKED",
    "MAX_WIRE",
    "SCHEMA",
    "DecodeError",
    "EntryFields",
    "LocalProtocolError",
    "NonCanonical",
    "RemoteProtocolError",
    "SchemaError",
    "UnknownKind",
    "action_body",
    "body_action",
    "decode_entry",
    "decode_wire",
    "describe_schema",
    "encode_entry",
    "encode_wire",
    "from_native",
    "make",
    "pack",
    "to_native",
]

# ---------------------------------------------------------------------------- errors


class DecodeError(RemoteProtocolError):
    """Not msgpack, or msgpack beyond the size limits."""


class SchemaError(RemoteProtocolError):
    """Well-formed msgpack whose shape, types, lengths or ranges are wrong."""


class UnknownKind(SchemaError):
    """An entry kind code this version does not know."""


class NonCanonical(SchemaError):
    """A valid value in a non-canonical encoding (two byte strings, one meaning)."""


# ----------------------------------------------------------------------- field types

UINT32 = 2**32 - 1
INT32 = 2**31


def _fail(path: str, msg: str) -> SchemaError:
    return SchemaError(f"{path}: {msg}")


class Field:
    """A field type: validates a decoded msgpack value, converts to and from Python."""

    def check(self, value: Any, path: str) -> Any:
        """Validate a msgpack-native value and return its Python form."""
        raise NotImplementedError

    def dump(self, value: Any) -> Any:
        """Python form to msgpack-native form (no validation: ``check`` does that)."""
        return value

    def describe(self) -> str:
        raise NotImplementedError


class Int(Field):
    """An integer in ``lo..hi``; a bool is not an integer."""

    def __init__(self, lo: int = 0, hi: int = UINT32) -> None:
        self.lo, self.hi = lo, hi

    def check(self, value: Any, path: str) -> int:
        if type(value) is not int:
            raise _fail(path, f"expected an integer, got {type(value).__name__}")
        if not self.lo <= value <= self.hi:
            raise _fail(path, f"{value} is outside {self.lo}..{self.hi}")
        return value

    def describe(self) -> str:
        if self.lo < 0:
            return f"int {self.lo}..{self.hi}"
        if (self.lo, self.hi) == (0, UINT32):
            return "uint32"
        return f"uint {self.lo}..{self.hi}"


class Bin(Field):
    """Bytes of exactly ``size`` (or at most ``size`` with ``exact=False``)."""

    def __init__(self, size: int, *, exact: bool = True) -> None:
        self.size, self.exact = size, exact

    def check(self, value: Any, path: str) -> bytes:
        if type(value) is not bytes:
            raise _fail(path, f"expected bytes, got {type(value).__name__}")
        if self.exact and len(value) != self.size:
            raise _fail(path, f"expected {self.size} bytes, got {len(value)}")
        if len(value) > self.size:
            raise _fail(path, f"{len(value)} bytes, at most {self.size} allowed")
        return value

    def describe(self) -> str:
        return f"bin {self.size}" if self.exact else f"bin ≤{self.size}"


class Text(Field):
    """UTF-8 text of at most ``size`` bytes, without control characters.

    Control characters are refused because names and chat end up on a terminal,
    where an escape sequence from a peer could redraw the screen.
    """

    def __init__(self, size: int) -> None:
        self.size = size

    def check(self, value: Any, path: str) -> str:
        if type(value) is not str:
            raise _fail(path, f"expected text, got {type(value).__name__}")
        try:
            n = len(value.encode("utf-8"))
        except UnicodeEncodeError as exc:
            raise _fail(path, "text is not valid UTF-8") from exc
        if n > self.size:
            raise _fail(path, f"{n} bytes of text, at most {self.size} allowed")
        if any(unicodedata.category(ch) == "Cc" for ch in value):
            raise _fail(path, "control characters are not allowed")
        return value

    def describe(self) -> str:
        return f"str ≤{self.size}"


class KindName(Field):
    """An entry kind, carried as its code and given to Python as its name."""

    def check(self, value: Any, path: str) -> str:
        if type(value) is not int:
            raise _fail(path, f"expected a kind code, got {type(value).__name__}")
        if value not in KINDS:
            raise UnknownKind(f"{path}: unknown kind code {value}")
        return KINDS[value]

    def dump(self, value: Any) -> Any:
        return CODE.get(value, value)

    def describe(self) -> str:
        return "kind code"


class Opt(Field):
    """``nil`` or ``item``."""

    def __init__(self, item: Field) -> None:
        self.item = item

    def check(self, value: Any, path: str) -> Any:
        return None if value is None else self.item.check(value, path)

    def dump(self, value: Any) -> Any:
        return None if value is None else self.item.dump(value)

    def describe(self) -> str:
        return f"{self.item.describe()} or nil"


class ListOf(Field):
    """An array of at most ``size`` items, given to Python as a tuple."""

    def __init__(self, item: Field, size: int) -> None:
        self.item, self.size = item, size

    def check(self, value: Any, path: str) -> tuple[Any, ...]:
        if type(value) is not list:
            raise _fail(path, f"expected an array, got {type(value).__name__}")
        if len(value) > self.size:
            raise _fail(path, f"{len(value)} items, at most {self.size} allowed")
        return tuple(self.item.check(v, f"{path}[{i}]") for i, v in enumerate(value))

    def dump(self, value: Any) -> Any:
        return [self.item.dump(v) for v in value]

    def describe(self) -> str:
        return f"[{self.item.describe()}] ≤{self.size}"


class Fixed(Field):
    """A fixed-length array of named fields, given to Python as a NamedTuple."""

    def __init__(self, name: str, fields: Sequence[tuple[str, Field]]) -> None:
        self.name = name
        self.fields = tuple(fields)
        self.cls: type[Any] = NamedTuple(name, [(n, Any) for n, _ in self.fields])  # type: ignore[misc, assignment]

    def check(self, value: Any, path: str) -> Any:
        if type(value) is not list:
            raise _fail(path, f"expected an array, got {type(value).__name__}")
        if len(value) != len(self.fields):
            raise _fail(path, f"expected {len(self.fields)} items, got {len(value)}")
        return self.cls(
            *(t.check(v, f"{path}.{n}") for (n, t), v in zip(self.fields, value, strict=True))
        )

    def dump(self, value: Any) -> Any:
        if isinstance(value, Mapping):
            value = [value[n] for n, _ in self.fields]
        return [t.dump(v) for (_, t), v in zip(self.fields, value, strict=True)]

    def describe(self) -> str:
        return "[" + ", ".join(f"{n}: {t.describe()}" for n, t in self.fields) + "]"


class ScalarMap(Field):
    """A map from text keys to int, bool, text or nil; keys sorted in the encoding.

    The only map in the protocol (a rule set's settings), so it stays open to new
    settings without a schema change.
    """

    def __init__(self, size: int, key_size: int = 64, text_size: int = 64) -> None:
        self.size = size
        self.key = Text(key_size)
        self.text = Text(text_size)
        self.int = Int(-INT32, INT32 - 1)

    def check(self, value: Any, path: str) -> dict[str, Any]:
        if type(value) is not dict:
            raise _fail(path, f"expected a map, got {type(value).__name__}")
        if len(value) > self.size:
            raise _fail(path, f"{len(value)} entries, at most {self.size} allowed")
        out: dict[str, Any] = {}
        for k, v in value.items():
            key = self.key.check(k, f"{path} key")
            where = f"{path}[{k!r}]"
            if v is None or type(v) is bool:
                out[key] = v
            elif type(v) is int:
                out[key] = self.int.check(v, where)
            elif type(v) is str:
                out[key] = self.text.check(v, where)
            else:
                raise _fail(where, f"expected int, bool, text or nil, got {type(v).__name__}")
        if list(out) != sorted(out):
            raise NonCanonical(f"{path}: map keys are not sorted")
        return out

    def dump(self, value: Any) -> Any:
        return {k: value[k] for k in sorted(value)}

    def describe(self) -> str:
        return f"map (str ≤64 → int32, bool, str ≤64 or nil) ≤{self.size}, keys sorted"


# ------------------------------------------------------------------------ the table

#: Largest wire entry a dispute may carry as evidence (the largest legal entry, a lock
#: of 108 cards with its proof, is about 28 KB; two must fit in one dispute).
MAX_EVIDENCE = 30 * 1024

HAND = Int(0, UINT32)
POS = Int(0, 107)
CARD = Int(0, 107)  # Card.index: unique in any deck
B32 = Bin(32)
ID = Bin(32)
POS_KEY = Fixed("PosKey", [("pos", POS), ("key", B32)])
KEYS = ListOf(POS_KEY, 108)
MELDS = ListOf(ListOf(CARD, 16), 16)
LAYOFFS = ListOf(Fixed("LayoffRef", [("card", CARD), ("meld", Int(0, 15))]), 16)
PARAMS = Fixed("Params", [("k", Int(20, 64)), ("claim_timeout_s", Int(1, 86400))])
ANSWER = Fixed("Answer", [("bit", Int(0, 1)), ("scalar", B32), ("perm", Bin(108, exact=False))])
STEP = Int(1, 2)
#: A player's name in its hello: UTF-8 bytes, not characters.
NAME_BYTES = 64

#: kind name → (code, ordered body fields). The single source of truth.
SCHEMA: dict[str, tuple[int, list[tuple[str, Field]]]] = {
    # -- the game's set-up ----------------------------------------------------------
    "hello": (0, [
        ("key", B32),                    # the author's Ed25519 public key
        ("name", Text(NAME_BYTES)),
        ("rules", Opt(ScalarMap(64))),   # host only: preset name and every setting
        ("params", Opt(PARAMS)),         # host only: [k, claim timeout in seconds]
        ("nonce_hash", Opt(Bin(64))),    # host only: H("nonce", host_nonce)
        ("nonce", Opt(B32)),             # guest only: guest_nonce
    ]),
    "nonce": (1, [("nonce", B32)]),      # the host opens its nonce
    # -- the shuffle (docs/shuffle.md) ---------------------------------------------------
    "commit": (2, [("hand", HAND), ("c", Bin(64)), ("P", B32)]),
    "shuffle": (3, [
        ("hand", HAND), ("points", ListOf(B32, 108)), ("sum_proof", Bin(128, exact=False)),
        ("deck_hash", Bin(64)),
    ]),
    "challenge": (4, [("hand", HAND), ("step", STEP), ("bits", Bin(8, exact=False))]),
    "answers": (5, [("hand", HAND), ("step", STEP), ("answers", ListOf(ANSWER, 64))]),
    "lock": (6, [
        ("hand", HAND), ("points", ListOf(B32, 108)), ("pubkeys", ListOf(B32, 108)),
        ("proof", Bin(16384, exact=False)),
        ("deal_keys", KEYS),             # the second locker's deal keys (row 9); else []
    ]),
    "keys": (7, [("hand", HAND), ("keys", KEYS)]),
    "stock_key": (8, [("hand", HAND), ("pos", POS), ("key", B32)]),
    "open": (9, [("hand", HAND), ("perm_seed", B32), ("key_seed", B32)]),
    "checkpoint": (10, [
        ("hand", HAND), ("last_host", ID), ("last_guest", ID),
        ("scores", Fixed("Scores", [("host", Int(-INT32, INT32 - 1)),
                                    ("guest", Int(-INT32, INT32 - 1))])),
    ]),
    # -- enders and talk ----------------------------------------------------------------
    "resign": (11, [("reason", Text(200))]),
    "claim": (12, [
        ("owed_author", Int(0, 1)), ("owed_seq", HAND),
        ("kinds", ListOf(KindName(), 16)),  # the kinds that would fulfil what is owed
        ("what", Text(100)),
    ]),
    "dispute": (13, [
        ("entry", ID), ("rule", Text(100)), ("detail", Text(500)),
        # an equivocation dispute carries both signed entries (their wire bytes), so
        # that every copy of the log holding the dispute holds the proof; else []
        ("evidence", ListOf(Bin(MAX_EVIDENCE, exact=False), 2)),
    ]),
    "chat": (14, [("text", Text(500))]),
    # -- engine actions: each carries the per-card keys the entry reveals ---------------
    "pass_upcard": (20, [("hand", HAND), ("keys", KEYS)]),
    "take_upcard": (21, [("hand", HAND), ("keys", KEYS)]),
    "draw_stock": (22, [("hand", HAND), ("keys", KEYS)]),
    "draw_discard": (23, [("hand", HAND), ("keys", KEYS)]),
    "discard": (24, [("hand", HAND), ("card", CARD), ("keys", KEYS)]),
    "knock": (25, [("hand", HAND), ("discard", Opt(CARD)), ("melds", MELDS), ("keys", KEYS)]),
    "gin": (26, [("hand", HAND), ("discard", CARD), ("melds", MELDS), ("keys", KEYS)]),
    "big_gin": (27, [("hand", HAND), ("melds", MELDS), ("keys", KEYS)]),
    "wall_knock": (28, [("hand", HAND), ("discard", CARD), ("melds", MELDS), ("keys", KEYS)]),
    "wall_pass": (29, [("hand", HAND), ("keys", KEYS)]),
    "show": (30, [("hand", HAND), ("melds", MELDS), ("layoffs", LAYOFFS), ("keys", KEYS)]),
    "declare_rumino": (31, [("hand", HAND), ("discard", CARD), ("keys", KEYS)]),
}  # fmt: skip

#: Kinds that may be concurrent and commute (the lower author index goes first).
COMMUTING = frozenset({"commit", "keys", "open", "checkpoint", "chat"})
#: Kinds that end things; a concurrent one sorts after the other entry.
ENDERS = frozenset({"resign", "claim", "dispute"})

CODE: dict[str, int] = {name: code for name, (code, _) in SCHEMA.items()}
KINDS: dict[int, str] = {code: name for name, code in CODE.items()}
_BODY_TYPE: dict[str, Fixed] = {
    name: Fixed("".join(p.title() for p in name.split("_")), fields)
    for name, (_, fields) in SCHEMA.items()
}
#: kind name → the NamedTuple class of its decoded body.
BODY: dict[str, type[Any]] = {name: t.cls for name, t in _BODY_TYPE.items()}

assert len(KINDS) == len(SCHEMA), "two kinds share a code"

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


def _unpack(data: Any, limit: int, raw: bool, limits: dict[str, int]) -> Any:
    """``msgpack.unpackb`` with limits; every failure becomes a DecodeError."""
    if not isinstance(data, bytes | bytearray | memoryview):
        raise DecodeError(f"expected bytes, got {type(data).__name__}")
    if len(data) > limit:
        raise DecodeError(f"{len(data)} bytes, at most {limit} allowed")
    try:
        return msgpack.unpackb(bytes(data), raw=raw, strict_map_key=True, use_list=True, **limits)
    except Exception as exc:  # any msgpack failure on peer bytes is the peer's fault
        raise DecodeError(f"not valid msgpack: {type(exc).__name__}: {exc}") from None


def pack(obj: Any) -> bytes:
    """The canonical msgpack encoding of a msgpack-native value."""
    return msgpack.packb(obj, use_bin_type=True)


# ------------------------------------------------------------------------ bodies


def to_native(kind: str, body: Any) -> list[Any]:
    """A body (NamedTuple, sequence or mapping) as a validated msgpack array."""
    if kind not in _BODY_TYPE:
        raise LocalProtocolError(f"unknown kind {kind!r}")
    t = _BODY_TYPE[kind]
    try:
        native = t.dump(body)
        t.check(native, kind)
    except (RemoteProtocolError, TypeError, KeyError, ValueError, AttributeError) as exc:
        raise LocalProtocolError(f"bad {kind} body: {exc}") from exc
    return native


def from_native(kind: str, value: Any) -> Any:
    """A decoded msgpack array as the body of ``kind``; SchemaError if it does not fit."""
    if kind not in _BODY_TYPE:
        raise UnknownKind(f"unknown kind {kind!r}")
    return _BODY_TYPE[kind].check(value, kind)


def make(kind: str, *args: Any, **fields: Any) -> Any:
    """Build a validated body in its canonical Python form (tuples, NamedTuples)."""
    if kind not in BODY:
        raise LocalProtocolError(f"unknown kind {kind!r}")
    try:
        raw = BODY[kind](*args, **fields)
    except TypeError as exc:
        raise LocalProtocolError(f"bad {kind} body: {exc}") from exc
    return from_native(kind, to_native(kind, raw))


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
    body: Any


VERSION = 1
_HEADER: tuple[tuple[str, Field], ...] = (
    ("v", Int(VERSION, VERSION)),
    ("game", B32),
    ("author", Int(0, 1)),
    ("seq", Int(1, UINT32)),
    ("prev", ID),
    ("ack_seq", Int(0, UINT32)),
    ("ack_id", ID),
    ("kind", KindName()),
)


def _dump_header(fields: Sequence[Any]) -> list[Any]:
    return [t.dump(v) for (_, t), v in zip(_HEADER, fields[:8], strict=True)]


def encode_entry(fields: EntryFields) -> bytes:
    """``packed``: the canonical encoding of an entry's nine fields."""
    native = [*_dump_header(fields), None]
    _check_header(native, LocalProtocolError)
    native[8] = to_native(fields.kind, fields.body)
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


def decode_entry(packed: bytes) -> EntryFields:
    """Decode and validate ``packed``; RemoteProtocolError for anything but canonical."""
    native = _unpack(packed, MAX_PACKED, False, _ENTRY_LIMITS)
    head = _check_header(native, SchemaError)
    fields = head._replace(body=from_native(head.kind, native[8]))
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


# ------------------------------------------------------------------------ docs


def describe_schema() -> str:
    """The body table as Markdown, for docs/log.md (a test keeps the two equal)."""
    lines = ["| code | kind | body fields, in order |", "|---:|---|---|"]
    for name, (code, fields) in sorted(SCHEMA.items(), key=lambda kv: kv[1][0]):
        cells = "; ".join(f"`{n}`: {t.describe()}" for n, t in fields)
        lines.append(f"| {code} | `{name}` | {cells} |")
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------ engine actions

_ACTIONS: dict[str, type[Any]] = {
    cls.kind: cls
    for cls in (PassUpcard, TakeUpcard, DrawStock, DrawDiscard, Discard, Knock, Gin, BigGin,
                WallKnock, WallPass, Show, DeclareRumino)
}  # fmt: skip
#: The entry kinds that are engine actions (a resign is its own kind, with a reason).
ACTION_KINDS = frozenset(_ACTIONS)


def _card(card: Card | None) -> int | None:
    return None if card is None else card.index


def action_body(
    action: Action, hand: int, keys: Sequence[tuple[int, bytes]] = ()
) -> tuple[str, Any]:
    """The entry kind and body of an engine action: cards by index, melds as lists."""
    if action.kind not in _ACTIONS:
        raise LocalProtocolError(f"{action.kind} is not an action entry (resign has a reason)")
    fields: dict[str, Any] = {"hand": hand, "keys": tuple(keys)}
    names = {n for n, _ in SCHEMA[action.kind][1]}
    if "card" in names:
        fields["card"] = action.card.index  # type: ignore[union-attr]
    if "discard" in names:
        fields["discard"] = _card(action.discard)  # type: ignore[union-attr]
    if "melds" in names:
        fields["melds"] = [[c.index for c in m.cards] for m in action.melds]  # type: ignore[union-attr]
    if "layoffs" in names:
        fields["layoffs"] = [(lo.card.index, lo.meld) for lo in action.layoffs]  # type: ignore[union-attr]
    return action.kind, make(action.kind, **fields)


def body_action(kind: str, body: Any, author: int | None = None) -> Action:
    """The engine action an entry stands for; ``author`` is needed for a resign."""
    if kind == "resign":
        if author is None:
            raise LocalProtocolError("a resign needs its author")
        return Resign(author)
    if kind not in _ACTIONS:
        raise LocalProtocolError(f"{kind} is not an engine action")
    args: dict[str, Any] = {}
    d = body._asdict()
    if "card" in d:
        args["card"] = Card.from_index(d["card"])
    if "discard" in d:
        args["discard"] = None if d["discard"] is None else Card.from_index(d["discard"])
    if "melds" in d:
        args["melds"] = tuple(Meld(tuple(map(Card.from_index, m))) for m in d["melds"])
    if "layoffs" in d:
        args["layoffs"] = tuple(Layoff(Card.from_index(c), m) for c, m in d["layoffs"])
    return _ACTIONS[kind](**args)  # type: ignore[no-any-return]
