"""The entry kinds and their bodies: one table, :data:`SCHEMA`, and a class per body.

Every body schema lives in :data:`SCHEMA`, so the protocol can change a body by
editing data: the codec, the size limits and the documentation table are derived
from it. Each kind's decoded body is an instance of its class in :data:`BODY` (a
typed NamedTuple: ``body.hand``, ``body._replace(...)``); :data:`Body` is their
union. :func:`make` builds a validated body, :func:`to_native` and
:func:`from_native` convert one to and from msgpack, and :func:`action_body` and
:func:`body_action` map the engine's actions to bodies and back.

One field is a policy rather than a shape: the cut-and-choose rounds ``k`` a host asks
for in its hello, held to ``shuffle.K_MIN`` or more. Only a caller that chooses the
rounds itself (a test of something other than the proofs' strength) passes a lower
``min_k``; a peer's entries are always read with the default.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any, NamedTuple, cast

from ginp2p.errors import LocalProtocolError, RemoteProtocolError
from ginp2p.game import engine
from ginp2p.game.cards import Card
from ginp2p.game.melds import Layoff, Meld
from ginp2p.proto.events.fields import (
    INT32,
    UINT32,
    Bin,
    Field,
    Fixed,
    Int,
    KindName,
    ListOf,
    Opt,
    ScalarMap,
    Text,
    UnknownKind,
)
from ginp2p.proto.shuffle.group import K_LOWEST, K_MAX, K_MIN

# ------------------------------------------------------------------ the parts of bodies

#: A rule set's setting as carried in a hello.
Setting = int | bool | str | None
#: A meld: card indices.
MeldRef = tuple[int, ...]


class PosKey(NamedTuple):
    """A per-card key published for a deck position."""

    pos: int
    key: bytes


class LayoffRef(NamedTuple):
    """A card laid off on the knocker's meld number ``meld``."""

    card: int
    meld: int


class Params(NamedTuple):
    """The host's protocol parameters: cut-and-choose rounds, claim timeout."""

    k: int
    claim_timeout_s: int


class Answer(NamedTuple):
    """One cut-and-choose round's answer: the bit asked, a scalar, a permutation."""

    bit: int
    scalar: bytes
    perm: bytes


class Scores(NamedTuple):
    host: int
    guest: int


# ------------------------------------------------------------------ the bodies


class HelloBody(NamedTuple):
    key: bytes
    name: str
    rules: dict[str, Setting] | None
    params: Params | None
    nonce_hash: bytes | None
    nonce: bytes | None


class NonceBody(NamedTuple):
    nonce: bytes


class CommitBody(NamedTuple):
    hand: int
    c: bytes
    P: bytes


class ShuffleBody(NamedTuple):
    hand: int
    points: tuple[bytes, ...]
    sum_proof: bytes
    deck_hash: bytes


class ChallengeBody(NamedTuple):
    hand: int
    step: int
    bits: bytes


class AnswersBody(NamedTuple):
    hand: int
    step: int
    answers: tuple[Answer, ...]


class LockBody(NamedTuple):
    hand: int
    points: tuple[bytes, ...]
    pubkeys: tuple[bytes, ...]
    proof: bytes
    deal_keys: tuple[PosKey, ...]


class KeysBody(NamedTuple):
    hand: int
    keys: tuple[PosKey, ...]


class StockKeyBody(NamedTuple):
    hand: int
    pos: int
    key: bytes


class OpenBody(NamedTuple):
    hand: int
    perm_seed: bytes
    key_seed: bytes


class CheckpointBody(NamedTuple):
    hand: int
    last_host: bytes
    last_guest: bytes
    scores: Scores


class ResignBody(NamedTuple):
    reason: str


class ClaimBody(NamedTuple):
    owed_author: int
    owed_seq: int
    kinds: tuple[str, ...]
    what: str


class DisputeBody(NamedTuple):
    entry: bytes
    rule: str
    detail: str
    evidence: tuple[bytes, ...]


class ChatBody(NamedTuple):
    text: str


class MoveBody(NamedTuple):
    """A move that names no card: pass or take the upcard, draw, pass at the wall."""

    hand: int
    keys: tuple[PosKey, ...]


class DiscardBody(NamedTuple):
    hand: int
    card: int
    keys: tuple[PosKey, ...]


class KnockBody(NamedTuple):
    hand: int
    discard: int | None
    melds: tuple[MeldRef, ...]
    keys: tuple[PosKey, ...]


class GinBody(NamedTuple):
    """A gin or a knock at the wall: a discard and every meld."""

    hand: int
    discard: int
    melds: tuple[MeldRef, ...]
    keys: tuple[PosKey, ...]


class BigGinBody(NamedTuple):
    hand: int
    melds: tuple[MeldRef, ...]
    keys: tuple[PosKey, ...]


class ShowBody(NamedTuple):
    hand: int
    melds: tuple[MeldRef, ...]
    layoffs: tuple[LayoffRef, ...]
    keys: tuple[PosKey, ...]


class DeclareRuminoBody(NamedTuple):
    hand: int
    discard: int
    keys: tuple[PosKey, ...]


#: Any entry's body.
Body = (
    HelloBody | NonceBody | CommitBody | ShuffleBody | ChallengeBody | AnswersBody | LockBody
    | KeysBody | StockKeyBody | OpenBody | CheckpointBody | ResignBody | ClaimBody
    | DisputeBody | ChatBody | MoveBody | DiscardBody | KnockBody | GinBody | BigGinBody
    | ShowBody | DeclareRuminoBody
)  # fmt: skip

# ------------------------------------------------------------------------ the table

#: Largest wire entry a dispute may carry as evidence (the largest legal entry, a lock
#: of 108 cards with its proof, is about 28 KB; two must fit in one dispute).
MAX_EVIDENCE = 30 * 1024

#: code → kind name and kind name → code, filled from :data:`SCHEMA` below.
KINDS: dict[int, str] = {}
CODE: dict[str, int] = {}

HAND = Int(0, UINT32)
POS = Int(0, 107)
CARD = Int(0, 107)  # Card.index: unique in any deck
B32 = Bin(32)
ID = Bin(32)
KIND = KindName(KINDS, CODE)
POS_KEY = Fixed(PosKey, [("pos", POS), ("key", B32)])
KEYS = ListOf(POS_KEY, 108)
MELDS = ListOf(ListOf(CARD, 16), 16)
LAYOFFS = ListOf(Fixed(LayoffRef, [("card", CARD), ("meld", Int(0, 15))]), 16)
ANSWER = Fixed(Answer, [("bit", Int(0, 1)), ("scalar", B32), ("perm", Bin(108, exact=False))])
STEP = Int(1, 2)
#: A player's name in its hello: UTF-8 bytes, not characters.
NAME_BYTES = 64


def _params(min_k: int) -> Fixed:
    return Fixed(Params, [("k", Int(min_k, K_MAX)), ("claim_timeout_s", Int(1, 86400))])


def _hello(params: Fixed) -> list[tuple[str, Field]]:
    return [
        ("key", B32),                    # the author's Ed25519 public key
        ("name", Text(NAME_BYTES)),
        ("rules", Opt(ScalarMap(64))),   # host only: preset name and every setting
        ("params", Opt(params)),         # host only: [k, claim timeout in seconds]
        ("nonce_hash", Opt(Bin(64))),    # host only: H("nonce", host_nonce)
        ("nonce", Opt(B32)),             # guest only: guest_nonce
    ]  # fmt: skip


PARAMS = _params(K_MIN)

#: kind name → (code, ordered body fields). The single source of truth.
SCHEMA: dict[str, tuple[int, list[tuple[str, Field]]]] = {
    # -- the game's set-up ----------------------------------------------------------
    "hello": (0, _hello(PARAMS)),
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
        ("scores", Fixed(Scores, [("host", Int(-INT32, INT32 - 1)),
                                  ("guest", Int(-INT32, INT32 - 1))])),
    ]),
    # -- enders and talk ----------------------------------------------------------------
    "resign": (11, [("reason", Text(200))]),
    "claim": (12, [
        ("owed_author", Int(0, 1)), ("owed_seq", HAND),
        ("kinds", ListOf(KIND, 16)),     # the kinds that would fulfil what is owed
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

#: kind name → the class of its decoded body.
BODY: dict[str, type[Body]] = {
    "hello": HelloBody,
    "nonce": NonceBody,
    "commit": CommitBody,
    "shuffle": ShuffleBody,
    "challenge": ChallengeBody,
    "answers": AnswersBody,
    "lock": LockBody,
    "keys": KeysBody,
    "stock_key": StockKeyBody,
    "open": OpenBody,
    "checkpoint": CheckpointBody,
    "resign": ResignBody,
    "claim": ClaimBody,
    "dispute": DisputeBody,
    "chat": ChatBody,
    "pass_upcard": MoveBody,
    "take_upcard": MoveBody,
    "draw_stock": MoveBody,
    "draw_discard": MoveBody,
    "discard": DiscardBody,
    "knock": KnockBody,
    "gin": GinBody,
    "big_gin": BigGinBody,
    "wall_knock": GinBody,
    "wall_pass": MoveBody,
    "show": ShowBody,
    "declare_rumino": DeclareRuminoBody,
}

#: Kinds that may be concurrent and commute (the lower author index goes first).
COMMUTING = frozenset({"commit", "keys", "open", "checkpoint", "chat"})
#: Kinds that end things; a concurrent one sorts after the other entry.
ENDERS = frozenset({"resign", "claim", "dispute"})

CODE.update({name: code for name, (code, _) in SCHEMA.items()})
KINDS.update({code: name for name, code in CODE.items()})
_BODY_TYPE: dict[str, Fixed] = {
    name: Fixed(BODY[name], fields) for name, (_, fields) in SCHEMA.items()
}

assert len(KINDS) == len(SCHEMA), "two kinds share a code"
assert BODY.keys() == SCHEMA.keys(), "a kind without its body class"


@cache
def body_types(min_k: int = K_MIN) -> Mapping[str, Fixed]:
    """Each kind's body type, with the hello's ``params.k`` held to ``min_k`` or more
    (``K_LOWEST..K_MIN``; a caller that chose the rounds itself may go below K_MIN)."""
    if type(min_k) is not int or not K_LOWEST <= min_k <= K_MIN:
        raise LocalProtocolError(f"min_k must be {K_LOWEST}..{K_MIN}, not {min_k!r}")
    if min_k == K_MIN:
        return _BODY_TYPE
    return {**_BODY_TYPE, "hello": Fixed(HelloBody, _hello(_params(min_k)))}


# ------------------------------------------------------------------------ bodies


def to_native(kind: str, body: Body | Sequence[Any] | Mapping[str, Any], *,
              min_k: int = K_MIN) -> list[Any]:  # fmt: skip
    """A body (its class, a sequence or a mapping) as a validated msgpack array."""
    types = body_types(min_k)
    if kind not in types:
        raise LocalProtocolError(f"unknown kind {kind!r}")
    t = types[kind]
    try:
        native = t.dump(body)
        t.check(native, kind)
    except (RemoteProtocolError, TypeError, KeyError, ValueError, AttributeError) as exc:
        raise LocalProtocolError(f"bad {kind} body: {exc}") from exc
    return cast(list[Any], native)


def from_native(kind: str, value: Any, *, min_k: int = K_MIN) -> Body:
    """A decoded msgpack array as the body of ``kind``; SchemaError if it does not fit."""
    types = body_types(min_k)
    if kind not in types:
        raise UnknownKind(f"unknown kind {kind!r}")
    return cast(Body, types[kind].check(value, kind))


def make(kind: str, *args: Any, min_k: int = K_MIN, **fields: Any) -> Body:
    """Build a validated body in its canonical Python form (tuples, NamedTuples)."""
    if kind not in BODY:
        raise LocalProtocolError(f"unknown kind {kind!r}")
    try:
        raw = BODY[kind](*args, **fields)
    except TypeError as exc:
        raise LocalProtocolError(f"bad {kind} body: {exc}") from exc
    return from_native(kind, to_native(kind, raw, min_k=min_k), min_k=min_k)


def describe_schema() -> str:
    """The body table as Markdown, for docs/log.md (a test keeps the two equal)."""
    lines = ["| code | kind | body fields, in order |", "|---:|---|---|"]
    for name, (code, fields) in sorted(SCHEMA.items(), key=lambda kv: kv[1][0]):
        cells = "; ".join(f"`{n}`: {t.describe()}" for n, t in fields)
        lines.append(f"| {code} | `{name}` | {cells} |")
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------ engine actions

_ACTIONS: dict[str, type[engine.Action]] = {
    cls.kind: cls
    for cls in (engine.PassUpcard, engine.TakeUpcard, engine.DrawStock, engine.DrawDiscard,
                engine.Discard, engine.Knock, engine.Gin, engine.BigGin, engine.WallKnock,
                engine.WallPass, engine.Show, engine.DeclareRumino)
}  # fmt: skip
#: The entry kinds that are engine actions (a resign is its own kind, with a reason).
ACTION_KINDS = frozenset(_ACTIONS)
#: The actions that name no card (their body is a :class:`MoveBody`).
_PLAIN: dict[str, type[engine.PassUpcard | engine.TakeUpcard | engine.DrawStock
                      | engine.DrawDiscard | engine.WallPass]] = {
    cls.kind: cls
    for cls in (engine.PassUpcard, engine.TakeUpcard, engine.DrawStock, engine.DrawDiscard,
                engine.WallPass)
}  # fmt: skip


def _melds(melds: Sequence[Meld]) -> list[list[int]]:
    return [[c.index for c in m.cards] for m in melds]


def action_body(
    action: engine.Action, hand: int, keys: Sequence[tuple[int, bytes]] = ()
) -> tuple[str, Body]:
    """The entry kind and body of an engine action: cards by index, melds as lists."""
    if action.kind not in _ACTIONS:
        raise LocalProtocolError(f"{action.kind} is not an action entry (resign has a reason)")
    fields: dict[str, Any] = {"hand": hand, "keys": tuple(keys)}
    if isinstance(action, engine.Discard):
        fields["card"] = action.card.index
    if isinstance(action, engine.Knock):
        fields["discard"] = None if action.discard is None else action.discard.index
    if isinstance(action, engine.Gin | engine.WallKnock | engine.DeclareRumino):
        fields["discard"] = action.discard.index
    if isinstance(action, engine.Knock | engine.Gin | engine.BigGin | engine.WallKnock):
        fields["melds"] = _melds(action.melds)
    if isinstance(action, engine.Show):
        fields["melds"] = _melds(action.melds)
        fields["layoffs"] = [(lo.card.index, lo.meld) for lo in action.layoffs]
    return action.kind, make(action.kind, **fields)


def _meld_cards(melds: Sequence[MeldRef]) -> tuple[Meld, ...]:
    return tuple(Meld(tuple(map(Card.from_index, m))) for m in melds)


def body_action(kind: str, body: Body, author: int | None = None) -> engine.Action:
    """The engine action an entry stands for; ``author`` is needed for a resign."""
    if kind == "resign":
        if author is None:
            raise LocalProtocolError("a resign needs its author")
        return engine.Resign(author)
    if kind not in _ACTIONS:
        raise LocalProtocolError(f"{kind} is not an engine action")
    if not isinstance(body, BODY[kind]):
        raise LocalProtocolError(f"a {kind} entry with a {type(body).__name__}")
    if kind in _PLAIN:
        return _PLAIN[kind]()
    if isinstance(body, DiscardBody):
        return engine.Discard(Card.from_index(body.card))
    if isinstance(body, KnockBody):
        discard = None if body.discard is None else Card.from_index(body.discard)
        return engine.Knock(discard, _meld_cards(body.melds))
    if isinstance(body, GinBody):
        cls = engine.Gin if kind == "gin" else engine.WallKnock
        return cls(Card.from_index(body.discard), _meld_cards(body.melds))
    if isinstance(body, BigGinBody):
        return engine.BigGin(_meld_cards(body.melds))
    if isinstance(body, ShowBody):
        layoffs = tuple(Layoff(Card.from_index(c), m) for c, m in body.layoffs)
        return engine.Show(_meld_cards(body.melds), layoffs)
    if isinstance(body, DeclareRuminoBody):
        return engine.DeclareRumino(Card.from_index(body.discard))
    raise LocalProtocolError(f"a {kind} entry with a {type(body).__name__}")
