"""The signed two-feed log and its linear order (the files that keep it are
tests/files/test_logfile.py's).

No game here computes a shuffle (the entries are made by hand, their hellos at the
real k), so the fewer proof rounds the protocol tests choose do not apply; the log's
own ``min_k`` is checked by
:func:`test_a_log_takes_a_hello_asking_for_fewer_rounds_only_when_told_so`.
"""

from __future__ import annotations

import hashlib
import os
import random
from pathlib import Path
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from nacl.signing import SigningKey

from ginp2p.proto import events as E
from ginp2p.proto.claims import ClaimVerdict, Owed, Verdict, judge_claim
from ginp2p.proto.entry import (
    GUEST,
    HOST,
    ZERO,
    Entry,
    H,
    first_dealer,
    game_id,
    nonce_hash,
    sign_entry,
)
from ginp2p.proto.linear import MAX_CHAT_RUN, linearise
from ginp2p.proto.log import Log, LogError, Outcome, claim_body

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
KEYS = (SigningKey(b"h" * 32), SigningKey(b"g" * 32))
PUB = tuple(bytes(k.verify_key) for k in KEYS)
HOST_NONCE, GUEST_NONCE = b"n" * 32, b"m" * 32


class Peer:
    """One player's side: its log, and what it has said."""

    def __init__(self, author: int) -> None:
        self.author = author
        self.log = Log()

    def say(self, kind: str, *body: Any) -> Entry:
        return self.log.append(KEYS[self.author], self.author, kind, E.make(kind, *body))

    def hear(self, *entries: Entry) -> None:
        for e in entries:
            assert self.log.add(e.wire).stored


BODIES: dict[str, tuple[Any, ...]] = {
    "commit": (1, b"c" * 64, b"P" * 32),
    "keys": (1, [(3, b"k" * 32)]),
    "open": (1, b"p" * 32, b"q" * 32),
    "checkpoint": (1, b"a" * 32, b"b" * 32, (10, 0)),
    "chat": ("hi",),
    "discard": (1, 5, [(5, b"k" * 32)]),
    "draw_stock": (1, []),
    "stock_key": (1, 21, b"s" * 32),
    "resign": ("bye",),
    "dispute": (b"d" * 32, "rule", "detail", []),
}


def start() -> tuple[Peer, Peer]:
    host, guest = Peer(HOST), Peer(GUEST)
    rules = {"name": "classic", "knock_limit": 10}
    h1 = host.say("hello", PUB[HOST], "Ann", rules, (20, 60), nonce_hash(HOST_NONCE), None)
    guest.hear(h1)
    g1 = guest.say("hello", PUB[GUEST], "Bob", None, None, None, GUEST_NONCE)
    host.hear(g1)
    guest.hear(host.say("nonce", HOST_NONCE))
    return host, guest


def say(peer: Peer, kind: str) -> Entry:
    return peer.say(kind, *BODIES[kind])


def concurrent(host: Peer, guest: Peer, hk: str, gk: str) -> tuple[Entry, Entry]:
    """Both speak before hearing the other, then both hear."""
    h, g = say(host, hk), say(guest, gk)
    host.hear(g)
    guest.hear(h)
    return h, g


def order(log: Log) -> list[bytes]:
    return [p.entry.id for p in log.linear().order]


def all_entries(*peers: Peer) -> list[Entry]:
    seen: dict[bytes, Entry] = {}
    for p in peers:
        for e in p.log.entries():
            seen[e.id] = e
    return list(seen.values())


def forge(author: int, **over: Any) -> Entry:
    """An entry with chosen fields, validly signed by its author."""
    base = E.EntryFields(1, b"G" * 32, author, 5, b"p" * 32, 0, ZERO, "chat", E.make("chat", ""))
    return sign_entry(KEYS[author], base._replace(**over))


# ------------------------------------------------------------------ hashing and identity of a game


def test_h_prefixes_every_field_with_its_length() -> None:
    assert H("ab", b"c") != H("a", b"bc")
    assert H("x", b"", b"a") != H("x", b"a", b"")
    manual = b"\x00\x00\x00\x04coin" + b"\x00\x00\x00\x01a"
    assert H("coin", b"a") == hashlib.sha512(manual).digest()


def test_signature_and_id_match_the_documented_vector() -> None:
    key = SigningKey(bytes(range(32)))
    body = E.make("hello", bytes(key.verify_key), "Ann", {"name": "classic"}, (20, 60),
                  nonce_hash(bytes(32)), None)  # fmt: skip
    entry = sign_entry(key, E.EntryFields(1, ZERO, 0, 1, ZERO, 0, ZERO, "hello", body))
    key.verify_key.verify(b"ginp2p/v1/entry\0" + entry.packed, entry.signature)
    digest = hashlib.sha256(b"ginp2p/v1/id\0" + entry.packed + entry.signature).digest()
    assert entry.id == digest
    doc = (Path(__file__).parents[2] / "docs" / "log.md").read_text(encoding="utf-8")
    flat = "".join(doc.split())
    for part in (entry.packed, entry.signature, entry.id):
        assert part.hex() in flat


def test_game_id_and_first_dealer() -> None:
    host, guest = start()
    h1, g1 = host.log.hello(HOST), host.log.hello(GUEST)
    assert h1 and g1
    assert host.log.game == guest.log.game == game_id(h1.id, g1.id)
    coin = H("coin", host.log.game, HOST_NONCE, GUEST_NONCE)
    assert first_dealer(host.log.game, HOST_NONCE, GUEST_NONCE) == coin[-1] & 1
    dealers = {first_dealer(bytes([i]) * 32, HOST_NONCE, GUEST_NONCE) for i in range(16)}
    assert dealers == {HOST, GUEST}


# ------------------------------------------------------------------ signatures and drops


def test_a_log_takes_a_hello_asking_for_fewer_rounds_only_when_told_so() -> None:
    """A test that runs both players at fewer cut-and-choose rounds than the protocol's
    floor tells their logs so (``min_k``); a log at the floor drops such a hello as
    undecodable, will not sign one, and takes no floor the codec does not allow."""
    few = Log(min_k=2)
    body = E.make("hello", PUB[HOST], "Ann", {}, (2, 60), nonce_hash(HOST_NONCE), None, min_k=2)
    hello = few.append(KEYS[HOST], HOST, "hello", body)
    assert few.hello(HOST) == hello and Log.from_records([hello.wire], min_k=2)[0].hello(HOST)
    floor = Log()
    added = floor.add(hello.wire)
    assert added.outcome is Outcome.DROPPED and added.reason.startswith("undecodable")
    assert floor.hello(HOST) is None
    with pytest.raises(E.LocalProtocolError):
        floor.append(KEYS[HOST], HOST, "hello", body)
    for bad in (0, 21):
        with pytest.raises(E.LocalProtocolError):
            Log(min_k=bad)


def test_a_flipped_bit_anywhere_is_dropped() -> None:
    host, guest = start()
    entry = say(host, "discard")
    fresh, _ = Log.from_records([e.wire for e in guest.log.entries()])
    before = fresh.ids()
    blob = entry.packed + entry.signature
    for bit in range(len(blob) * 8):
        flipped = bytearray(blob)
        flipped[bit // 8] ^= 1 << (bit % 8)
        packed, sig = bytes(flipped[: len(entry.packed)]), bytes(flipped[len(entry.packed) :])
        result = fresh.add(E.encode_wire(packed, sig))
        assert result.outcome is Outcome.DROPPED, bit
    assert fresh.ids() == before
    assert fresh.add(entry.wire).outcome is Outcome.NEW


def test_wrong_key_and_other_game_are_dropped() -> None:
    host, guest = start()
    good = say(host, "chat")
    wrong_key = sign_entry(KEYS[GUEST], good.fields)  # claims to be the host's
    other_game = sign_entry(KEYS[HOST], good.fields._replace(game=b"x" * 32))
    for entry, reason in ((wrong_key, "signature"), (other_game, "another game")):
        result = guest.log.add(entry.wire)
        assert result.outcome is Outcome.DROPPED and reason in result.reason
        assert entry.id not in guest.log
    assert guest.log.add(good.wire).outcome is Outcome.NEW


def test_garbage_and_malformed_entries_are_dropped_not_raised() -> None:
    host, guest = start()
    for junk in (b"", b"\x92", b"\xc1", os.urandom(300), E.encode_wire(b"\x90", b"s" * 64)):
        assert guest.log.add(junk).outcome is Outcome.DROPPED
    seq1_not_hello = forge(HOST, game=host.log.game, seq=1, prev=ZERO)
    assert "hello" in guest.log.add(seq1_not_hello.wire).reason


@SETTINGS
@given(st.data())
def test_peer_bytes_never_raise(data: st.DataObject) -> None:
    host, guest = start()
    wire = bytearray(say(host, "discard").wire)
    for _ in range(data.draw(st.integers(1, 4))):
        i = data.draw(st.integers(0, len(wire) - 1))
        wire[i] = data.draw(st.integers(0, 255))
    wire = wire[: data.draw(st.integers(0, len(wire)))]
    result = guest.log.add(bytes(wire))
    assert result.outcome in set(Outcome)


def test_pinned_key_refuses_a_stranger_hello() -> None:
    host, _ = start()
    stranger = Log(keys=(b"z" * 32, None))
    result = stranger.add(host.log.hello(HOST).wire)  # type: ignore[union-attr]
    assert result.outcome is Outcome.DROPPED and "pinned" in result.reason


# ------------------------------------------------------------------ duplicates and equivocation


def test_rewrapped_copy_is_a_duplicate_with_the_same_id() -> None:
    host, guest = start()
    entry = say(host, "chat")
    guest.hear(entry)
    str_typed = msgpack.packb([entry.packed, entry.signature], use_bin_type=False)
    array16 = b"\xdc\x00\x02" + entry.wire[1:]
    for wire in (str_typed, array16, entry.wire):
        result = guest.log.add(wire)
        assert result.outcome is Outcome.DUPLICATE and result.entry is not None
        assert result.entry.id == entry.id == Entry.from_wire(wire).id
    assert not guest.log.equivocations


def test_two_entries_at_one_seq_are_equivocation_with_both_kept() -> None:
    host, guest = start()
    first = say(host, "chat")
    guest.hear(first)
    twin = sign_entry(KEYS[HOST], first.fields._replace(body=E.make("chat", "other")))
    result = guest.log.add(twin.wire)
    assert result.outcome is Outcome.EQUIVOCATION and result.stored
    assert result.other == first and result.entry == twin
    assert {first.id, twin.id} <= guest.log.ids()
    assert guest.log.equivocations == [tuple(guest.log.at(HOST, first.seq))]
    lin = guest.log.linear()
    assert [p.what for p in lin.problems] == ["fork"]
    assert set(lin.problems[0].entries) == {first, twin}
    assert first not in lin.entries and twin not in lin.entries  # the feed stops before


def test_two_hellos_are_never_equivocation() -> None:
    _, guest = start()
    other = Peer(HOST)
    hello = other.say("hello", PUB[HOST], "Ann", {}, (20, 60), nonce_hash(b"o" * 32), None)
    result = guest.log.add(hello.wire)
    assert result.outcome is Outcome.DROPPED and "another game" in result.reason


# ------------------------------------------------------------------ holding and releasing


def test_entries_before_the_hellos_are_held_then_released() -> None:
    host, guest = start()
    g2 = say(guest, "chat")
    fresh = Log()
    assert fresh.add(g2.wire).outcome is Outcome.HELD
    assert fresh.add(host.log.hello(HOST).wire).outcome is Outcome.NEW  # type: ignore[union-attr]
    result = fresh.add(guest.log.hello(GUEST).wire)  # type: ignore[union-attr]
    assert [r.outcome for r in result.all()] == [Outcome.NEW, Outcome.NEW]
    assert g2.id in fresh and fresh.held_count == 0


def test_an_entry_acking_an_unknown_entry_waits() -> None:
    host, guest = start()
    h = say(host, "chat")
    guest.hear(h)
    g = say(guest, "chat")  # acks h
    third = Log.from_records([e.wire for e in guest.log.entries() if e.id != h.id])[0]
    assert g.id in third and g.id not in third.linear().entries
    assert g in third.linear().held
    third.add(h.wire)
    assert third.linear().entries[-2:] == (h, g)


# ------------------------------------------------------------------ linear order


def test_concurrent_commuting_entries_give_one_order() -> None:
    for kind in ("commit", "keys", "open", "checkpoint", "chat"):
        host, guest = start()
        h, g = concurrent(host, guest, kind, kind)
        assert order(host.log) == order(guest.log)
        lin = host.log.linear()
        assert lin.entries[-2:] == (h, g)  # the lower author index first
        assert lin.placed(g.id).concurrent and not lin.placed(h.id).concurrent  # type: ignore[union-attr]


@pytest.mark.parametrize("ender", ["resign", "claim", "dispute"])
def test_enders_sort_after_concurrent_entries(ender: str) -> None:
    host, guest = start()
    if ender == "claim":
        body = claim_body(host.log, HOST, Owed(GUEST, frozenset({"commit"}), "commit"))
        h = host.say("claim", *body)
    else:
        h = say(host, ender)
    g = say(guest, "commit")
    host.hear(g)
    guest.hear(h)
    for log in (host.log, guest.log):
        assert log.linear().entries[-2:] == (g, h)  # the host's ender goes after


def test_ack_points() -> None:
    host, guest = start()
    h, g = concurrent(host, guest, "commit", "commit")
    guest.hear(after := say(host, "chat"))
    lin = guest.log.linear()
    pg, pa = lin.placed(g.id), lin.placed(after.id)
    assert pg and pa
    assert pg.seen == (2, 1) and pg.ack_index == lin.placed(host.log.at(HOST, 2)[0].id).index  # type: ignore[union-attr]
    assert pa.seen == (3, 2) and pa.ack_index == pg.index and not pa.concurrent
    assert h.ack_seq == 1 and after.ack_seq == g.seq


@st.composite
def runs(draw: st.DrawFn) -> list[Entry]:
    """A random session: each step one side speaks or hears the other's oldest
    unheard entry, so every entry acks exactly what its author had seen. Sometimes
    a player equivocates at the end."""
    host, guest = start()
    peers = (host, guest)
    sent: tuple[list[Entry], list[Entry]] = ([], [])
    kinds = [*sorted(BODIES), "claim"]
    for _ in range(draw(st.integers(4, 24))):
        who = draw(st.integers(0, 1))
        if sent[1 - who] and draw(st.booleans()):
            peers[who].hear(sent[1 - who].pop(0))
            continue
        kind = draw(st.sampled_from(kinds))
        if kind == "claim":
            owed = Owed(1 - who, frozenset({"discard", "stock_key"}), "a move")
            entry = peers[who].say("claim", *claim_body(peers[who].log, who, owed))
        else:
            entry = say(peers[who], kind)
        sent[who].append(entry)
    entries = all_entries(host, guest)
    if draw(st.booleans()):
        victim = draw(st.sampled_from([e for e in entries if e.seq > 1]))
        twin = victim.fields._replace(kind="chat", body=E.make("chat", "twin"))
        if twin != victim.fields:
            entries.append(sign_entry(KEYS[victim.author], twin))
    return entries


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(runs(), st.randoms(use_true_random=False))
def test_linear_order_is_independent_of_arrival_order(
    entries: list[Entry], rnd: random.Random
) -> None:
    reference = linearise(entries)
    forked = len({(e.author, e.seq) for e in entries}) < len(entries)
    assert bool(reference.problems) == forked and bool(reference.held) <= forked
    for _ in range(3):
        shuffled = entries[:]
        rnd.shuffle(shuffled)
        log, _ = Log.from_records(e.wire for e in shuffled)
        assert log.linear() == reference  # the order, void marks, held, problems, claims
        assert log == Log.from_records(e.wire for e in entries)[0]
    placed = reference.order
    for p in placed:  # every entry after its prev and after what it acks
        assert p.ack_index < p.index
        assert p.seen[p.entry.author] == p.entry.seq - 1
    for a in (HOST, GUEST):
        seqs = [p.entry.seq for p in placed if p.entry.author == a]
        assert seqs == list(range(1, len(seqs) + 1))


def test_log_equality_is_the_set_of_ids() -> None:
    host, guest = start()
    concurrent(host, guest, "chat", "open")
    assert host.log == guest.log
    say(host, "chat")
    assert host.log != guest.log


# ------------------------------------------------------------------ broken feeds


def test_backwards_ack_and_bad_prev_stop_the_feed_as_evidence() -> None:
    host, guest = start()
    h, _ = concurrent(host, guest, "chat", "chat")
    h2 = say(host, "chat")  # acks the guest's chat (guest seq 2)
    assert h2.ack_seq == 2
    game, g1 = host.log.game, host.log.hello(GUEST)
    assert g1
    back = forge(HOST, game=game, seq=h2.seq + 1, prev=h2.id, ack_seq=1, ack_id=g1.id)
    bad_prev = forge(HOST, game=game, seq=h2.seq + 1, prev=h.id, ack_seq=2, ack_id=h2.ack_id)
    for entry, what in ((back, "ack"), (bad_prev, "chain")):
        log = Log.from_records([e.wire for e in host.log.entries()])[0]
        assert log.add(entry.wire).outcome is Outcome.NEW
        lin = log.linear()
        assert [(p.what, p.entries) for p in lin.problems] == [(what, (entry,))]
        assert entry in lin.held and entry not in lin.entries


def test_acking_an_entry_the_opponent_never_wrote() -> None:
    host, guest = start()
    g2 = say(guest, "chat")
    host.hear(g2)
    h = host.log.at(HOST, 2)[0]
    fake = forge(HOST, game=host.log.game, seq=3, prev=h.id, ack_seq=2, ack_id=b"f" * 32)
    host.log.add(fake.wire)
    assert [p.what for p in host.log.linear().problems] == ["ack"]


def test_a_chat_flood_stops_the_feed_but_an_answer_resets_the_count() -> None:
    host, guest = start()
    for _ in range(MAX_CHAT_RUN):
        guest.hear(say(host, "chat"))
    assert host.log.unanswered_chats(HOST) == MAX_CHAT_RUN
    assert guest.log.linear().problems == ()
    host.hear(say(guest, "chat"))  # the other player answers: a new ack, a new run
    assert host.log.unanswered_chats(HOST) == 0
    for _ in range(MAX_CHAT_RUN):
        guest.hear(say(host, "chat"))
    flood = say(host, "chat")
    guest.hear(flood)
    lin = guest.log.linear()
    assert [(p.what, p.author, p.entries) for p in lin.problems] == [("chats", HOST, (flood,))]
    assert flood in lin.held and flood not in lin.entries
    assert guest.log.broken_at(HOST) == flood.seq
    assert guest.log.broken_at(GUEST) is None


# ------------------------------------------------------------------ void and claims


def test_entries_after_own_resign_or_acking_a_resign_are_void() -> None:
    host, guest = start()
    h_resign, g_move = concurrent(host, guest, "resign", "discard")
    host_after = say(host, "chat")  # after its own resign
    g_acking = say(guest, "chat")  # acks the host's resign
    host.hear(g_acking)
    guest.hear(host_after)
    for log in (host.log, guest.log):
        lin = log.linear()
        void = {p.entry.id: p.void for p in lin.order}
        assert void[h_resign.id] is False and void[g_move.id] is False
        assert void[host_after.id] is True and void[g_acking.id] is True
        assert lin.entries.index(g_move) < lin.entries.index(h_resign)


def test_a_claim_beaten_by_the_owed_entry_sent_before_it() -> None:
    host, guest = start()
    body = claim_body(guest.log, GUEST, Owed(HOST, frozenset({"discard"}), "a move"))
    assert body.owed_seq == 3 and body.kinds == ("discard",)
    claim = guest.say("claim", *body)
    move = say(host, "discard")  # sent before the host saw the claim
    host.hear(claim)
    guest.hear(move)
    later = say(host, "chat")  # acks the claim, after the claim lost
    guest.hear(later)
    for log in (host.log, guest.log):
        lin = log.linear()
        assert lin.claims[claim.id].verdict is Verdict.BEATEN
        assert lin.claims[claim.id].by == move
        assert not any(p.void for p in lin.order)
        assert lin.entries[-3:] == (move, claim, later)


def test_a_claim_stands_when_the_owing_player_saw_it_first() -> None:
    host, guest = start()
    body = claim_body(guest.log, GUEST, Owed(HOST, frozenset({"discard"}), "a move"))
    claim = guest.say("claim", *body)
    assert judge_claim(claim, []).verdict is Verdict.OPEN
    host.hear(claim)
    move = say(host, "discard")  # too late: it acks the claim
    guest.hear(move)
    lin = guest.log.linear()
    assert lin.claims[claim.id] == ClaimVerdict(Verdict.STANDS, move, lin.claims[claim.id].reason)
    assert lin.placed(move.id).void  # type: ignore[union-attr]


def test_a_claim_naming_the_wrong_seq_or_author_is_invalid() -> None:
    _, guest = start()
    wrong_seq = guest.say("claim", HOST, 9, ["discard"], "a move")
    own = guest.say("claim", GUEST, 0, ["discard"], "myself")
    lin = guest.log.linear()
    assert lin.claims[wrong_seq.id].verdict is Verdict.INVALID
    assert lin.claims[own.id].verdict is Verdict.INVALID
    with pytest.raises(LogError):
        claim_body(guest.log, GUEST, Owed(GUEST, frozenset({"chat"}), "x"))


# ------------------------------------------------------------------ appending and resync


def test_append_links_and_acks() -> None:
    host, guest = start()
    h, g = concurrent(host, guest, "chat", "chat")
    nxt = say(host, "chat")
    assert nxt.prev == h.id and (nxt.ack_seq, nxt.ack_id) == (g.seq, g.id)
    assert host.log.have() == (nxt.seq, g.seq)
    assert [e.id for e in host.log.since(HOST, 2)] == [h.id, nxt.id]
    with pytest.raises(LogError):
        host.say("hello", PUB[HOST], "Ann", {}, (20, 60), b"h" * 64, None)
    with pytest.raises(LogError):  # signed with the other player's key
        host.log.append(KEYS[GUEST], HOST, "chat", E.make("chat", "x"))
