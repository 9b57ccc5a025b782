"""The event codec: round trips, canonical bytes, and garbage in → RemoteProtocolError only."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import msgpack
import nacl.signing
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ginp2p.game.rules import CLASSIC
from ginp2p.proto import events as E
from ginp2p.proto.entry import GUEST, HOST, SIGN_CONTEXT
from ginp2p.proto.outputs import Dropped, Save, Send
from ginp2p.proto.protocol import PeerProtocol
from ginp2p.proto.shuffle import K_MIN
from ginp2p.record.audit import audit_records
from ginp2p.record.report import Verdict

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# ---------------------------------------------------------------- strategies from the table

_TEXT = st.characters(blacklist_categories=("Cc", "Cs"))


def text_of(size: int) -> st.SearchStrategy[str]:
    ascii_text = st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=size)
    return st.one_of(ascii_text, st.text(_TEXT, max_size=size // 4))


def strategy(f: E.Field) -> st.SearchStrategy[Any]:
    """A strategy for the Python form of any field type of the schema table."""
    if isinstance(f, E.Int):
        return st.integers(f.lo, f.hi)
    if isinstance(f, E.Bin):
        return st.binary(min_size=f.size if f.exact else 0, max_size=f.size)
    if isinstance(f, E.Text):
        return text_of(f.size)
    if isinstance(f, E.KindName):
        return st.sampled_from(sorted(E.CODE))
    if isinstance(f, E.Opt):
        return st.none() | strategy(f.item)
    if isinstance(f, E.ListOf):
        return st.lists(strategy(f.item), max_size=min(f.size, 12)).map(tuple)
    if isinstance(f, E.Fixed):
        return st.tuples(*(strategy(t) for _, t in f.fields)).map(lambda t: f.cls(*t))
    if isinstance(f, E.ScalarMap):
        value = st.one_of(st.none(), st.booleans(), st.integers(-(2**31), 2**31 - 1), text_of(64))
        return st.dictionaries(text_of(64), value, max_size=6).map(
            lambda d: {k: d[k] for k in sorted(d)}
        )
    raise AssertionError(f"no strategy for {f!r}")


def body_strategy(kind: str) -> st.SearchStrategy[Any]:
    return strategy(E.body_types()[kind])


bodies = st.sampled_from(sorted(E.SCHEMA)).flatmap(
    lambda k: st.tuples(st.just(k), body_strategy(k))
)


@st.composite
def entry_fields(draw: st.DrawFn) -> E.EntryFields:
    kind, body = draw(bodies)
    return E.EntryFields(
        1,
        draw(st.binary(min_size=32, max_size=32)),
        draw(st.integers(0, 1)),
        draw(st.integers(1, 2**32 - 1)),
        draw(st.binary(min_size=32, max_size=32)),
        draw(st.integers(0, 2**32 - 1)),
        draw(st.binary(min_size=32, max_size=32)),
        kind,
        body,
    )


def maximal(f: E.Field) -> Any:
    """The largest value of a field type."""
    if isinstance(f, E.Int):
        return f.hi
    if isinstance(f, E.Bin):
        return b"\xff" * f.size
    if isinstance(f, E.Text):
        return "\u20ac" * (f.size // 3)
    if isinstance(f, E.KindName):
        return "declare_rumino"
    if isinstance(f, E.Opt):
        return maximal(f.item)
    if isinstance(f, E.ListOf):
        return tuple(maximal(f.item) for _ in range(f.size))
    if isinstance(f, E.Fixed):
        return f.cls(*(maximal(t) for _, t in f.fields))
    if isinstance(f, E.ScalarMap):
        return {f"{i:064d}": "x" * 64 for i in range(f.size)}
    raise AssertionError(f)


def fields_for(kind: str, body: Any, **over: Any) -> E.EntryFields:
    f = E.EntryFields(1, b"\x01" * 32, 0, 7, b"\x02" * 32, 3, b"\x03" * 32, kind, body)
    return f._replace(**over)


DISCARD = E.make("discard", hand=2, card=51, keys=[(12, b"k" * 32)])
GOOD = E.encode_entry(fields_for("discard", DISCARD))


def decodes_or_remote_error(data: bytes) -> None:
    """The codec contract: a valid value (canonical: it re-encodes to the same bytes)
    or a RemoteProtocolError; never any other exception."""
    try:
        fields = E.decode_entry(data)
    except E.RemoteProtocolError:
        pass
    else:
        assert E.encode_entry(fields) == data
    try:
        packed, sig = E.decode_wire(data)
    except E.RemoteProtocolError:
        pass
    else:
        assert isinstance(packed, bytes) and len(sig) == 64


# ---------------------------------------------------------------- round trips


@SETTINGS
@given(entry_fields())
def test_entry_round_trip_and_determinism(fields: E.EntryFields) -> None:
    packed = E.encode_entry(fields)
    assert E.decode_entry(packed) == fields
    assert E.encode_entry(E.decode_entry(packed)) == packed
    assert E.encode_entry(fields) == packed


@SETTINGS
@given(bodies)
def test_body_native_round_trip(kind_body: tuple[str, Any]) -> None:
    kind, body = kind_body
    native = E.to_native(kind, body)
    assert E.from_native(kind, msgpack.unpackb(E.pack(native))) == body
    assert E.make(kind, *body) == body


def test_make_normalises_lists_and_mappings() -> None:
    body = E.make("show", 1, [[1, 2, 3]], [{"card": 4, "meld": 0}], [])
    assert body.melds == ((1, 2, 3),) and body.layoffs == ((4, 0),) and body.keys == ()
    assert body.layoffs[0].card == 4 and type(body.melds) is tuple
    hello = E.make("hello", b"k" * 32, "Ann", {"b": 1, "a": None}, [20, 60], b"h" * 64, None)
    assert list(hello.rules) == ["a", "b"] and hello.params.claim_timeout_s == 60


def test_every_kind_at_its_largest_fits() -> None:
    for kind in E.SCHEMA:
        body = maximal(E.body_types()[kind])
        packed = E.encode_entry(fields_for(kind, body))
        assert len(packed) <= E.MAX_PACKED, kind
        assert E.decode_entry(packed).body == body
        if kind != "dispute":  # a dispute can carry any other entry, signed, as evidence
            assert len(E.encode_wire(packed, b"s" * 64)) <= E.MAX_EVIDENCE, kind


def test_wire_round_trip_and_rewrapping() -> None:
    sig = bytes(range(64))
    wire = E.encode_wire(GOOD, sig)
    assert E.decode_wire(wire) == (GOOD, sig)
    str_typed = msgpack.packb([GOOD, sig], use_bin_type=False)  # raw/str-typed strings
    array16 = b"\xdc\x00\x02" + wire[1:]
    assert str_typed != wire and E.decode_wire(str_typed) == (GOOD, sig)
    assert E.decode_wire(array16) == (GOOD, sig)


# ---------------------------------------------------------------- garbage


@SETTINGS
@given(st.binary(max_size=400))
def test_any_bytes_decode_or_remote_error(data: bytes) -> None:
    decodes_or_remote_error(data)


msgpack_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**64), 2**64) | st.floats()
    | st.binary(max_size=40) | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=10) | st.dictionaries(st.text(max_size=3), inner,
                                                                 max_size=3),
    max_leaves=30,
)  # fmt: skip


@SETTINGS
@given(msgpack_values, st.data())
def test_any_msgpack_value_decodes_or_remote_error(value: Any, data: st.DataObject) -> None:
    try:
        raw = msgpack.packb(value, use_bin_type=data.draw(st.booleans()))
    except (OverflowError, ValueError):
        return  # not representable in msgpack
    decodes_or_remote_error(raw)
    # the same value as the nine fields of an entry reaches the schema checks
    header = msgpack.unpackb(GOOD)[:8]
    decodes_or_remote_error(msgpack.packb([*header, value], use_bin_type=True))


@SETTINGS
@given(entry_fields(), st.data())
def test_truncated_and_bit_flipped_encodings(fields: E.EntryFields, data: st.DataObject) -> None:
    packed = E.encode_entry(fields)
    cut = data.draw(st.integers(0, len(packed) - 1))
    with pytest.raises(E.RemoteProtocolError):
        E.decode_entry(packed[:cut])
    bit = data.draw(st.integers(0, len(packed) * 8 - 1))
    flipped = bytearray(packed)
    flipped[bit // 8] ^= 1 << (bit % 8)
    decodes_or_remote_error(bytes(flipped))
    wire = E.encode_wire(packed, b"s" * 64)
    decodes_or_remote_error(wire[: data.draw(st.integers(0, len(wire)))])


HUGE = [
    b"\xdd\xff\xff\xff\xff",  # array32 of 4G items
    b"\xdf\xff\xff\xff\xff",  # map32
    b"\xc6\xff\xff\xff\xff",  # bin32 of 4 GiB
    b"\xdb\xff\xff\xff\xff",  # str32
    b"\xc9\xff\xff\xff\xff\x01",  # ext32
    b"\x99" + b"\xdc\xff\xff" * 3,  # array16 inside the entry
    b"\x91" * 5000,  # deep nesting
    b"\xcb" + b"\x00" * 8,  # a float
    b"\xc1",  # never used
    b"\xd4\x01\x00",  # fixext
    b"\x82\x01\x02\x03\x04",  # map with int keys
    b"\x92\xc4\x01a\xc4\x40" + b"s" * 64 + b"\x00",  # trailing byte after a wire
]


@pytest.mark.parametrize("data", HUGE)
def test_huge_length_prefixes_and_odd_types(data: bytes) -> None:
    for decode in (E.decode_entry, E.decode_wire):
        with pytest.raises(E.RemoteProtocolError):
            decode(data)


def test_oversized_input_refused_before_unpacking() -> None:
    with pytest.raises(E.DecodeError):
        E.decode_entry(b"\x00" * (E.MAX_PACKED + 1))
    with pytest.raises(E.DecodeError):
        E.decode_wire(b"\x00" * (E.MAX_WIRE + 1))


def _native(packed: bytes) -> list[Any]:
    return msgpack.unpackb(packed, raw=False)


def _swap(path: list[int], value: Any) -> bytes:
    native = _native(GOOD)
    target = native
    for i in path[:-1]:
        target = target[i]
    target[path[-1]] = value
    return msgpack.packb(native, use_bin_type=True)


BAD = {
    "bool for int": _swap([3], True),
    "seq 0": _swap([3], 0),
    "author 2": _swap([2], 2),
    "version 2": _swap([0], 2),
    "short game": _swap([1], b"x" * 31),
    "text for bytes": _swap([4], "x" * 32),
    "unknown kind": _swap([7], 19),
    "card 108": _swap([8, 1], 108),
    "negative card": _swap([8, 1], -1),
    "float card": _swap([8, 1], 1.0),
    "key of 31 bytes": _swap([8, 2, 0, 1], b"k" * 31),
    "extra body field": _swap([8], [2, 51, [], 0]),
    "missing body field": _swap([8], [2, 51]),
    "body not an array": _swap([8], {"hand": 2}),
    "8 fields": msgpack.packb(_native(GOOD)[:8], use_bin_type=True),
    "uint8 for a fixint": GOOD.replace(b"\x18\x93\x02", b"\x18\x93\xcc\x02", 1),
    "str-typed bytes": msgpack.packb(_native(GOOD), use_bin_type=False),
    "trailing byte": GOOD + b"\xc0",
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_schema_rejections(name: str) -> None:
    assert BAD[name] != GOOD
    with pytest.raises(E.RemoteProtocolError):
        E.decode_entry(BAD[name])


def test_nonminimal_int_is_noncanonical() -> None:
    with pytest.raises(E.NonCanonical):
        E.decode_entry(BAD["uint8 for a fixint"])


def _hello(rules: Any) -> E.EntryFields:
    body = E.BODY["hello"](b"k" * 32, "Ann", rules, None, None, None)
    return fields_for("hello", body, seq=1)


def test_map_keys_must_be_sorted_and_scalar() -> None:
    packed = E.encode_entry(_hello({"a": 1, "b": "x"}))
    assert E.decode_entry(packed).body.rules == {"a": 1, "b": "x"}
    unsorted = packed.replace(b"\xa1a\x01\xa1b\xa1x", b"\xa1b\xa1x\xa1a\x01")
    assert unsorted != packed
    with pytest.raises(E.NonCanonical):
        E.decode_entry(unsorted)
    with pytest.raises(E.SchemaError):
        E.decode_entry(packed.replace(b"\xa1a\x01", b"\xa1a\x91\x01"))  # a list value


def test_text_limits_and_control_characters() -> None:
    def chat(text: str) -> bytes:
        native = _native(E.encode_entry(fields_for("chat", E.make("chat", "hi"))))
        native[8] = [text]
        return msgpack.packb(native, use_bin_type=True)

    assert E.decode_entry(chat("é" * 250)).body.text == "é" * 250  # 500 bytes
    for bad in ("é" * 251, "\x1b[2J", "a\nb", "\x85"):
        with pytest.raises(E.RemoteProtocolError):
            E.decode_entry(chat(bad))


@pytest.mark.parametrize(
    ("kind", "fields"),
    [
        ("discard", {"hand": 1, "card": 108, "keys": []}),
        ("discard", {"hand": True, "card": 1, "keys": []}),
        ("chat", {"text": "x" * 501}),
        ("hello", {"key": b"k", "name": "", "rules": None, "params": None,
                   "nonce_hash": None, "nonce": None}),
        ("hello", {"key": b"k" * 32, "name": "", "rules": None, "params": (19, 1),
                   "nonce_hash": None, "nonce": None}),
        ("claim", {"owed_author": 1, "owed_seq": 1, "kinds": ["nope"], "what": ""}),
        ("commit", {"hand": 1, "c": b"c" * 64}),
    ],
)  # fmt: skip
def test_encoding_a_bad_body_is_a_local_error(kind: str, fields: dict[str, Any]) -> None:
    with pytest.raises(E.LocalProtocolError):
        E.make(kind, **fields)
    with pytest.raises(E.LocalProtocolError):
        E.to_native(kind, fields)


def test_table_is_consistent() -> None:
    assert len(set(E.CODE.values())) == len(E.SCHEMA)
    assert all(0 <= c < 128 for c in E.CODE.values())  # one byte: a positive fixint
    assert set(E.SCHEMA) >= E.ENDERS | E.COMMUTING
    for kind, (_, fields) in E.SCHEMA.items():
        names = [n for n, _ in fields]
        if "hand" in names:
            assert names[0] == "hand", kind


def test_docs_carry_the_body_table() -> None:
    doc = (Path(__file__).parents[2] / "docs" / "log.md").read_text(encoding="utf-8")
    assert E.describe_schema() in doc


# ---------------------------------------------------------------- engine actions


def test_engine_actions_round_trip_through_bodies() -> None:
    from ginp2p.game import engine as G
    from ginp2p.game.cards import parse_cards
    from ginp2p.game.melds import Layoff, Meld

    c = {str(x) + ("#1" if x.copy else ""): x for x in parse_cards("7H 8H 9H QS QD QC JK 2C#1")}
    run, sets = Meld((c["9H"], c["7H"], c["8H"])), Meld((c["QS"], c["QD"], c["QC"]))
    actions = [
        G.PassUpcard(), G.TakeUpcard(), G.DrawStock(), G.DrawDiscard(), G.WallPass(),
        G.Discard(c["2C#1"]), G.Knock(None, (run,)), G.Knock(c["JK"], (run, sets)),
        G.Gin(c["2C#1"], (sets,)), G.BigGin((run, sets)), G.WallKnock(c["JK"], (run,)),
        G.Show((sets,), (Layoff(c["JK"], 0),)), G.DeclareRumino(c["7H"]),
    ]  # fmt: skip
    assert {a.kind for a in actions} == E.ACTION_KINDS
    for action in actions:
        kind, body = E.action_body(action, hand=3, keys=[(4, b"k" * 32)])
        assert kind == action.kind and body.hand == 3 and body.keys == ((4, b"k" * 32),)
        packed = E.encode_entry(fields_for(kind, body))
        assert E.body_action(kind, E.decode_entry(packed).body) == action
    assert E.action_body(G.Discard(c["2C#1"]), 1)[1].card == 52 + 3 * 13 + 1
    assert E.body_action("resign", E.make("resign", "tired"), author=1) == G.Resign(1)
    with pytest.raises(E.LocalProtocolError):
        E.action_body(G.Resign(0), 1)
    with pytest.raises(E.LocalProtocolError):
        E.body_action("chat", E.make("chat", "hi"))


# ---------------------------------------------------------------- the rounds a hello asks for


def _host_hello(
    k: int, min_k: int = K_MIN, rules: dict[str, Any] | None = None
) -> tuple[nacl.signing.SigningKey, bytes]:
    """A host's signed hello asking for ``k`` cut-and-choose rounds, encoded as a caller
    that chose ``min_k`` as its floor would encode it."""
    key = nacl.signing.SigningKey(bytes(range(32)))
    rules = CLASSIC.to_dict() if rules is None else rules
    body = E.make("hello", bytes(key.verify_key), "Ann", rules, (k, 60),
                  b"h" * 64, None, min_k=min_k)  # fmt: skip
    fields = E.EntryFields(1, bytes(32), HOST, 1, bytes(32), 0, bytes(32), "hello", body)
    packed = E.encode_entry(fields, min_k=min_k)
    return key, E.encode_wire(packed, key.sign(SIGN_CONTEXT + packed).signature)


def test_fewer_rounds_than_the_minimum_only_for_a_caller_that_chose_them() -> None:
    """A test may run both players with fewer proof rounds by saying so; nothing read
    with the default floor (whatever comes from a peer) may ask for them."""
    _, wire = _host_hello(2, min_k=2)
    packed, _ = E.decode_wire(wire)
    assert E.decode_entry(packed, min_k=2).body.params == (2, 60)
    with pytest.raises(E.SchemaError, match=r"hello\.params\.k: 2 is outside 20\.\.64"):
        E.decode_entry(packed)
    hello = E.decode_entry(packed, min_k=2)
    with pytest.raises(E.LocalProtocolError):
        E.encode_entry(hello)
    with pytest.raises(E.LocalProtocolError):
        E.make("hello", b"k" * 32, "", None, (K_MIN - 1, 60), None, None)
    for floor in (0, K_MIN + 1):
        with pytest.raises(E.LocalProtocolError):
            E.body_types(floor)
    _, real = _host_hello(K_MIN)
    assert E.decode_entry(E.decode_wire(real)[0]).body.params == (K_MIN, 60)


def test_a_peer_drops_a_hello_that_asks_for_fewer_rounds() -> None:
    """A guest with the default floor neither stores nor answers a host hello asking for
    fewer than K_MIN rounds, however well signed."""
    key, wire = _host_hello(2, min_k=2)
    guest = PeerProtocol(GUEST, nacl.signing.SigningKey(bytes(32)), random.Random(1).randbytes,
                         name="Bob", peer_key=bytes(key.verify_key))  # fmt: skip
    guest.start(0.0)
    out = guest.receive(wire, 1.0)
    assert [o for o in out if isinstance(o, Dropped)] and not [
        o for o in out if isinstance(o, Save | Send)
    ]
    assert guest.log.hello(HOST) is None
    _, good = _host_hello(K_MIN)
    assert any(isinstance(o, Save) for o in guest.receive(good, 2.0))
    assert guest.log.hello(HOST) is not None


_SETTINGS = sorted(CLASSIC.to_dict())
_VALUES = st.none() | st.booleans() | st.integers(-3, 600) | st.text(max_size=8)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.dictionaries(st.sampled_from([*_SETTINGS, "preset", "x"]), _VALUES, max_size=6)
    | st.builds(lambda d, changes: {**d, **changes}, st.just(CLASSIC.to_dict()),
                st.dictionaries(st.sampled_from(_SETTINGS), _VALUES, max_size=2))
)  # fmt: skip
def test_a_host_hello_with_any_rules_never_crashes_the_guest(rules: dict[str, Any]) -> None:
    """Whatever rules a well-signed host hello carries, the guest's ``receive`` returns:
    it either answers with its own hello or refuses the game, saying why, and signs
    nothing it cannot place in a game (a bad hello leaves no game to dispute in)."""
    try:
        key, wire = _host_hello(K_MIN, rules=rules)
    except E.LocalProtocolError:
        return  # the codec would not even carry these rules
    guest = PeerProtocol(GUEST, nacl.signing.SigningKey(bytes(32)), random.Random(1).randbytes,
                         name="Bob", peer_key=bytes(key.verify_key))  # fmt: skip
    guest.start(0.0)
    out = guest.receive(wire, 1.0)
    ours = [o for o in out if isinstance(o, Send)]
    if guest.table.rules is None or guest.table.cheat is not None:
        assert guest.refused is not None and not ours
        assert guest.log.since(GUEST, 0) == []
    else:
        assert guest.refused is None and ours


def test_a_guest_refuses_a_host_hello_that_breaks_the_rules_as_the_audit_convicts_it() -> None:
    """No game exists before the guest's hello, so the live guest answers a host hello
    whose rules cannot be played by refusing the game, signing nothing; the audit of
    that hello judges it the same way: the host cheated (``bad-rules``)."""
    key, wire = _host_hello(K_MIN, rules={**CLASSIC.to_dict(), "deck_size": 7})
    guest = PeerProtocol(GUEST, nacl.signing.SigningKey(bytes(32)), random.Random(1).randbytes,
                         name="Bob", peer_key=bytes(key.verify_key))  # fmt: skip
    guest.start(0.0)
    out = guest.receive(wire, 1.0)
    assert not [o for o in out if isinstance(o, Send)] and guest.log.since(GUEST, 0) == []
    assert guest.refused is not None and "(bad-rules)" in guest.refused
    assert guest.table.cheat is not None and guest.table.cheat.author == HOST
    report = audit_records([wire])
    assert report.verdict == Verdict.CHEATED
    assert report.cheat is not None
    assert (report.cheat.author, report.cheat.rule) == (HOST, guest.table.cheat.rule)
