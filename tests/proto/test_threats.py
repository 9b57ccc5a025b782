"""docs/threats.md at the protocol layer: each threat injected by a cheating peer, end to end.

A cheater is a :class:`PeerProtocol` subclass (see :func:`cheater`) that rewrites the
body of one kind of its entries before signing, withholds an entry, or signs a second
entry at the same seq; or a player whose "move" appends raw entries. Both peers of a
pair get the same class and only the one in the chosen role (first shuffler or dealer,
in hand 1) deviates, so every run up to the cheat is the honest baseline's, entry for
entry (everything random comes from one seeded ``random.Random``).
The recipes of the threats live in :mod:`ginp2p.testing.fakelink`: the audit's cheating corpus
(scripts/make_corpus.py) injects them the same way.

For every cheat we check, on the HONEST peer's table: the first cheat names the cheater,
the rule and the very entry; the honest peer disputed that entry as soon as it arrived
(its dispute acks it) and then opened its seeds; the match is forfeited by the cheater;
nothing the cheater sends later changes anything; and the audit of either player's
saved file (:func:`ginp2p.record.audit.audit_records`, a third party with no seeds) reaches the
same verdict. Stalling is claimed after the timeout; garbage, forgeries, splices and
re-wrapped copies are dropped or ignored without freezing anything.

The games run with FEW (2) cut-and-choose rounds, told to both peers and to every
audit and fold here (``min_k``): what most tests check is not the proofs' strength,
and the proofs are most of a game's cost. The real k (``shuffle.K_MIN``) is kept
where it is: the tag attack and the disguised duplicate (only the cut-and-choose
answers catch them), the lock proofs made for another context (named for a proof),
the tweaked and non-canonical answers (they rewrite round 2 of the answers, which a
proof of FEW rounds does not have), and the shuffle before the other commitment (as
the tag attack, it is played with OTHER_SEED too, where the guest shuffles first at
the real k only: the host hello carries k, so at another k the game id, its coin and
its deals are another game's). A peer or an audit at the real floor refuses a game
at FEW: :func:`test_fewer_rounds_are_a_tests_choice_never_a_peers_nor_a_files`.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import nacl.signing
import pytest

from ginp2p.errors import LocalProtocolError
from ginp2p.game import bot
from ginp2p.game.engine import Discard, HandState, Phase
from ginp2p.game.match import MatchEnd
from ginp2p.game.rules import RuleSet, get_preset
from ginp2p.proto import events as ev
from ginp2p.proto import shuffle as sh
from ginp2p.proto.claims import Verdict
from ginp2p.proto.entry import GUEST, HOST, Entry, sign_entry
from ginp2p.proto.hand import HandFold
from ginp2p.proto.linear import MAX_CHAT_RUN
from ginp2p.proto.log import Log, Outcome
from ginp2p.proto.outputs import Dropped, Refolded, Refused, Save, Send
from ginp2p.proto.protocol import MAX_AHEAD, PeerProtocol
from ginp2p.proto.results import Cheat, CheatDetected
from ginp2p.proto.table import Table
from ginp2p.record import audit
from ginp2p.testing.cheats import (
    Rewrite,
    another_permutation,
    bad_sum_proof,
    change_answers,
    change_keys,
    chat_flood,
    cheat_once,
    cheater,
    deck_in,
    discard_not_held,
    duplicate_card,
    false_gin,
    flip_bit,
    knock_over_the_limit,
    phase_is,
    proof_ctx,
    redeck,
    retagged,
    rewrap,
    scalar_int,
    shuffle_before_commit,
    substitute_card,
    swap_out,
    tag_deck,
    the_other_choice,
    tweak_scalar,
    two_moves,
    wrong_key,
    wrong_stock_key,
)
from ginp2p.testing.fakelink import (
    FakeLink,
    bot_player,
    dealt,
    feed,
    linked,
    make_pair,
    role_of,
    settle,
    step_until,
    waiting_since,
)
from tests.proto.test_shuffle import plus_l

POOL = ThreadPoolExecutor(2)
RULES = get_preset("classic").with_(game_target=10)
#: With this seed the host is the first shuffler (the non-dealer); the match is one hand,
#: won by the guest's knock; both players draw from the stock. With OTHER_SEED the guest
#: shuffles first.
SEED = 1
OTHER_SEED = 7
TIMEOUT = 30
#: Cut-and-choose rounds of the games whose check is not the proofs' strength (a
#: test's choice: every peer, fold and audit here accepts it), and the real k.
FEW, REAL = 2, sh.K_MIN


def pair(cls: type[PeerProtocol] = PeerProtocol, seed: int = SEED,
         players: tuple[Any, Any] = (bot_player, bot_player), rules: RuleSet = RULES,
         k: int = FEW) -> FakeLink:  # fmt: skip
    return linked(rules, seed, cls, players, k=k, claim_timeout=TIMEOUT, executor=POOL)


def play(cls: type[PeerProtocol] = PeerProtocol, seed: int = SEED,
         players: tuple[Any, Any] = (bot_player, bot_player), rules: RuleSet = RULES,
         k: int = FEW) -> FakeLink:  # fmt: skip
    link = pair(cls, seed, players, rules, k)
    link.run()
    return link


def read(wire: bytes) -> Entry:
    return Entry.from_wire(wire, min_k=FEW)


def kind_of(wire: bytes) -> str:
    return str(read(wire).kind)


def fold(records: Iterable[bytes]) -> Table:
    """A third party's view of a saved file: no seeds, the entries alone."""
    log, _ = Log.from_records(records, min_k=FEW)
    table = Table(None, executor=POOL)
    table.update(log.linear())
    return table


def same_cheat(a: Cheat | None, b: Cheat | None) -> bool:
    assert a is not None and b is not None
    return (a.author, a.entry, a.seq, a.rule) == (b.author, b.entry, b.seq, b.rule)


def audited(records: Iterable[bytes], verdict: audit.Verdict, cheat: Cheat | None = None,
            winner: int | None = None, end: MatchEnd | None = None) -> audit.Report:  # fmt: skip
    """The audit of a saved file (a third party: no seeds, the entries alone)."""
    report = audit.audit_records(records, min_k=FEW)
    assert report.verdict is verdict, report.text()
    if cheat is None:
        assert report.cheat is None, report.text()
    else:
        assert same_cheat(report.cheat, cheat), report.text()
    if winner is not None:
        assert (report.winner, report.end) == (winner, end), report.text()
    return report


def assert_caught(link: FakeLink, cheat_by: int, rule: str, kind: str) -> Cheat:
    """The honest peer caught ``cheat_by``'s ``kind`` entry for ``rule`` on receipt, disputed
    it, opened its seeds and froze; the cheater forfeits; the saved files agree."""
    honest = 1 - cheat_by
    side = link.sides[honest]
    t = side.proto.table
    c = t.cheat
    assert c is not None, "the cheat was not caught"
    assert (c.author, c.rule) == (cheat_by, rule), c
    bad = side.proto.log.get(c.entry)
    assert bad is not None and (bad.author, bad.kind, bad.seq) == (cheat_by, kind, c.seq)
    assert t.match is not None and t.match.end is MatchEnd.CHEAT and t.match.winner == honest
    assert t.owed() == []
    # on receipt: the honest peer's next entries are a dispute of that entry, acking it,
    # then the opening of its seeds (if it had committed to any); nothing else
    after = [e for e in feed(side, honest) if e.ack_seq >= c.seq]
    assert [e.kind for e in after][:1] == ["dispute"], after
    dispute = after[0]
    assert dispute.ack_seq == c.seq
    assert (dispute.body.entry, dispute.body.rule) == (c.entry, c.rule)
    h = t.hand
    assert h is not None
    if h.commits[honest] is not None:
        assert [e.kind for e in after] == ["dispute", "open"]
        opened = after[1].body
        assert (opened.perm_seed, opened.key_seed) == side.seeds[h.number]
        assert h.opened[honest] is not None
    else:
        assert len(after) == 1
    # both tables agree, and the table froze at the cheat
    assert same_cheat(link.sides[cheat_by].proto.table.cheat, c)
    frozen = [i for i, (_, event) in enumerate(t.events) if isinstance(event, CheatDetected)]
    assert len(frozen) == 1 and frozen[0] == len(t.events) - 1
    told = [o for o in side.events if isinstance(o, CheatDetected)]  # the player is told
    assert len(told) == 1 and same_cheat(told[0].cheat, c)
    # the audit of either saved file gives the same verdict
    for s in link.sides:
        audited(s.saved, audit.Verdict.CHEATED, c, honest, MatchEnd.CHEAT)
    # nothing the cheater sends afterwards is accepted: not even a resign
    match, events = t.match, len(t.events)
    cp = link.sides[cheat_by].proto
    link.handle(cheat_by, cp._append_and_fold("resign", ev.make("resign", "too late")))
    settle(link)
    t = side.proto.table
    assert t.match == match and len(t.events) == events and same_cheat(t.cheat, c)
    return c


# ---------------------------------------------------------------- the honest baseline


@functools.cache
def honest_game(k: int) -> FakeLink:
    """The honest game of SEED at ``k`` rounds (the same for every test: do not change it)."""
    return play(k=k)


@pytest.fixture(scope="module")
def baseline() -> FakeLink:
    return honest_game(FEW)


def test_the_honest_baseline_is_clean(baseline: FakeLink) -> None:
    host, guest = baseline.sides
    assert host.proto.log == guest.proto.log
    for side in baseline.sides:
        t = side.proto.table
        assert t.cheat is None and not t.disputes and t.finished
        assert t.match is not None and t.match.end is MatchEnd.TARGET and t.match.winner == GUEST
        report = audited(side.saved, audit.Verdict.CLEAN, None, GUEST, MatchEnd.TARGET)
        assert report.scores == t.match.totals
    h = host.proto.table.hands[0]
    assert h.first == HOST and h.checked
    kinds = [(e.author, e.kind) for e in host.proto.log.linear().entries]
    assert (GUEST, "knock") in kinds and (HOST, "show") in kinds
    assert (HOST, "stock_key") in kinds and (GUEST, "stock_key") in kinds


def honest_seq(baseline: FakeLink, author: int, kind: str) -> int:
    """The seq of ``author``'s first ``kind`` entry in the honest baseline."""
    return next(e.seq for e in feed(baseline.sides[HOST], author) if e.kind == kind)


def test_fewer_rounds_are_a_tests_choice_never_a_peers_nor_a_files(baseline: FakeLink) -> None:
    """The games here run at FEW rounds because the test says so to both peers. A peer
    at the protocol's floor drops the host hello of such a game (no game begins: it
    answers nothing), cannot itself ask for FEW rounds, and its log takes no such hello
    even decoded elsewhere; the audit at the floor finds the game's file damaged, with
    no result, where the audit told FEW finds it clean."""
    records = baseline.sides[GUEST].saved
    host_hello = next(w for w in records if kind_of(w) == "hello" and read(w).author == HOST)
    assert read(host_hello).body.params.k == FEW
    key = nacl.signing.SigningKey(bytes(range(32)))
    rng = random.Random(1).randbytes
    guest = PeerProtocol(GUEST, key, rng)
    out = guest.receive(host_hello)
    assert [type(o) for o in out] == [Dropped] and "undecodable" in out[0].reason
    assert guest.log.hello(HOST) is None and guest.log.game is None
    assert not [o for o in guest.start() if isinstance(o, Send)]  # it still waits for a host
    told = PeerProtocol(GUEST, key, rng, min_k=FEW)
    assert [o.entry.kind for o in told.receive(host_hello) if isinstance(o, Send)] == ["hello"]
    host = PeerProtocol(HOST, key, rng, rules=RULES, k=FEW)
    out = host.start()
    assert [type(o) for o in out] == [Refused] and len(host.log) == 0
    added = Log().add_entry(read(host_hello))
    assert added.outcome is Outcome.DROPPED and "fewer than 20" in added.reason
    with pytest.raises(LocalProtocolError):
        PeerProtocol(GUEST, key, rng, min_k=0)
    at_the_floor = audit.audit_records(records)
    assert at_the_floor.verdict is audit.Verdict.DAMAGED and at_the_floor.winner is None
    assert audit.audit_records(records, min_k=FEW).verdict is audit.Verdict.CLEAN


# ---------------------------------------------------------------- the shuffle: decks


def _disguised_duplicate(d: list[bytes], p: PeerProtocol, h: HandFold) -> list[bytes]:
    return retagged(d, 3, 15, 16, scalar_int(11))  # position 15 = m·(the card at 3)


def _proof_for(**where: Any) -> Rewrite:
    """The right deck, with its proofs made for another game, hand or author ("other")."""

    def rewrite(p: PeerProtocol, h: HandFold, body: Any) -> Any:
        ctx = proof_ctx(p, h, **{**where, **({"author": 1 - p.me} if "author" in where else {})})
        msg = sh.shuffle_step(p._seeds[h.number], ctx, deck_in(p, h), p.table.k, POOL)
        assert list(msg.d_out) == list(body.points)
        return body._replace(sum_proof=b"".join(msg.sum_proof), deck_hash=msg.deck_hash)

    return rewrite


@pytest.mark.parametrize("seed", [SEED, OTHER_SEED])
def test_tag_attack_by_the_first_shuffler_fails_its_answers(seed: int) -> None:
    link = play(cheater("shuffle", redeck(tag_deck)), seed, k=REAL)
    a = role_of(link, "first")
    assert a == (HOST if seed == SEED else GUEST)  # the host cheats once, the guest once
    c = assert_caught(link, a, "bad-shuffle-proof", "answers")
    honest = link.sides[1 - a]
    # the tagged deck passed every check on receipt (the sum proof holds): B challenged
    # it; the cut-and-choose answers failed, and B never shuffled D1 (nor sent a key)
    shuffled = next(e for e in feed(honest, a) if e.kind == "shuffle")
    challenge = next(e for e in feed(honest, 1 - a) if e.kind == "challenge")
    assert challenge.ack_seq == shuffled.seq < c.seq
    assert not [e for e in feed(honest, 1 - a) if e.kind in ("shuffle", "lock", "keys")]
    if seed == SEED:
        assert c.seq == honest_seq(honest_game(REAL), a, "answers")


def test_disguised_duplicate_by_the_second_shuffler_fails_its_answers() -> None:
    link = play(cheater("shuffle", redeck(_disguised_duplicate), role="second"), k=REAL)
    b = role_of(link, "second")
    c = assert_caught(link, b, "bad-shuffle-proof", "answers")
    assert c.seq == honest_seq(honest_game(REAL), b, "answers")
    honest = link.sides[1 - b]
    # A challenged D2 (it passed the checks on receipt) and never locked it
    assert [e.kind for e in feed(honest, 1 - b) if e.kind in ("challenge", "lock", "keys")] == [
        "challenge"
    ]


@pytest.mark.parametrize(
    ("role", "rewrite", "rule"),
    [
        ("second", redeck(duplicate_card, reprove=False), "duplicate-point"),
        ("first", redeck(substitute_card), "bad-sum-proof"),
        ("first", bad_sum_proof, "bad-sum-proof"),
        ("second", _proof_for(game=bytes(32)), "bad-sum-proof"),
        ("first", _proof_for(hand=2), "bad-sum-proof"),
        ("second", _proof_for(author="other"), "bad-sum-proof"),
    ],
    ids=["duplicate", "substitute", "bad-sum-proof", "other-game", "other-hand", "other-author"],
)
def test_bad_decks_are_caught_on_receipt_of_the_shuffle(
    baseline: FakeLink, role: str, rewrite: Rewrite, rule: str
) -> None:
    link = play(cheater("shuffle", rewrite, role=role))
    x = role_of(link, role)
    c = assert_caught(link, x, rule, "shuffle")
    assert c.seq == honest_seq(baseline, x, "shuffle")
    # the shuffle is never challenged: a bad deck gets no second look
    honest = link.sides[1 - x]
    challenges = [e for e in feed(honest, 1 - x) if e.kind == "challenge"]
    assert all(e.ack_seq < c.seq for e in challenges)


def _drop_last(d: list[bytes], p: PeerProtocol, h: HandFold) -> list[bytes]:
    return d[:-1]  # one card fewer, with a fresh sum proof for what is left


def _short_lock(p: PeerProtocol, h: HandFold, body: Any) -> Any:
    """A lock of one card fewer: the last position's point, key and proof part left out."""
    return body._replace(points=body.points[:-1], pubkeys=body.pubkeys[:-1],
                         proof=body.proof[:-32])  # fmt: skip


def _repeated_lock_point(p: PeerProtocol, h: HandFold, body: Any) -> Any:
    points = list(body.points)
    points[15] = points[3]  # one masked card twice, another gone
    return body._replace(points=tuple(points))


@pytest.mark.parametrize(("kind", "role", "rewrite", "rule"), [
    ("shuffle", "first", redeck(_drop_last), "bad-length"),
    ("shuffle", "second", redeck(_drop_last), "bad-length"),
    ("shuffle", "first", redeck(duplicate_card), "duplicate-point"),
    ("lock", "first", _short_lock, "bad-length"),
    ("lock", "second", _repeated_lock_point, "duplicate-point"),
], ids=["shuffle-short-first", "shuffle-short-second", "shuffle-repeated-reproved",
        "lock-short", "lock-repeated"])  # fmt: skip
def test_dropped_or_repeated_cards_are_caught_on_receipt(
    baseline: FakeLink, kind: str, role: str, rewrite: Rewrite, rule: str
) -> None:
    """A deck passed on with fewer points than the deck has cards, or with one point
    twice, at the protocol level: the entry is convicted when it arrives, before
    anybody challenges, locks or keys anything of it."""
    link = play(cheater(kind, rewrite, role=role))
    x = role_of(link, role)
    c = assert_caught(link, x, rule, kind)
    assert c.seq == honest_seq(baseline, x, kind)
    honest = link.sides[1 - x]
    later = [e for e in feed(honest, 1 - x) if e.kind in ("challenge", "lock", "keys")]
    assert all(e.ack_seq < c.seq for e in later)  # nothing answered the short deck


# ---------------------------------------------------------------- answers, locks, keys


def _scalar_plus_l(rows: list[Any], p: PeerProtocol, h: HandFold) -> list[Any]:
    rows[2] = rows[2]._replace(scalar=plus_l(rows[2].scalar))
    return rows


def _other_half(rows: list[Any], p: PeerProtocol, h: HandFold) -> list[Any]:
    """Answer the other half of round 0 (as if the challenge had the other bit)."""
    bits = [r.bit for r in rows]
    bits[0] ^= 1
    other = sh.answer_challenge(p._seeds[h.number], h.n, bits, p.table.k)
    rows[0] = rows[0]._replace(bit=bits[0], scalar=other.scalars[0], perm=bytes(other.perms[0]))
    return rows


def _other_half_same_bit(rows: list[Any], p: PeerProtocol, h: HandFold) -> list[Any]:
    """The other half of round 0, labelled with the challenged bit."""
    return [_other_half(list(rows), p, h)[0]._replace(bit=rows[0].bit), *rows[1:]]


@pytest.mark.parametrize(
    ("role", "change", "rule", "k"),
    [
        ("first", tweak_scalar, "bad-shuffle-proof", REAL),
        ("second", _other_half_same_bit, "bad-shuffle-proof", FEW),
        ("second", _other_half, "bad-answers", FEW),
        ("first", _scalar_plus_l, "bad-scalar", REAL),
    ],
    ids=["tweaked-scalar", "other-half", "bits-not-the-challenge", "non-canonical-scalar"],
)
def test_bad_answers_are_caught_on_receipt(role: str, change: Any, rule: str, k: int) -> None:
    link = play(cheater("answers", change_answers(change), role=role), k=k)
    x = role_of(link, role)
    c = assert_caught(link, x, rule, "answers")
    assert c.seq == honest_seq(honest_game(k), x, "answers")


def _relock(change: Callable[[list[bytes]], list[bytes]]) -> Rewrite:
    """A lock computed honestly over a changed input deck (so its proof is valid for that
    deck, not for the logged one)."""

    def rewrite(p: PeerProtocol, h: HandFold, body: Any) -> Any:
        d_in = h.deck(2 if p.me == h.first else 3)
        msg = sh.lock_step(p._seeds[h.number], proof_ctx(p, h), change(list(d_in)), POOL)
        return body._replace(points=tuple(msg.d_out), pubkeys=tuple(msg.keys),
                             proof=b"".join(msg.proof))  # fmt: skip

    return rewrite


def _reroute(d: list[bytes]) -> list[bytes]:
    d[3] = d[12]  # position 3 would hold the card of position 12
    return d


def _lock_scalar_plus_l(p: PeerProtocol, h: HandFold, body: Any) -> Any:
    proof = body.proof
    return body._replace(proof=proof[:64] + plus_l(proof[64:96]) + proof[96:])


@pytest.mark.parametrize(
    ("role", "rewrite", "rule"),
    [
        ("first", _relock(_reroute), "bad-lock-proof"),
        ("second", swap_out, "bad-lock-proof"),
        ("second", _lock_scalar_plus_l, "bad-scalar"),
    ],
    ids=["rerouted", "swapped", "non-canonical-scalar"],
)
def test_linked_positions_in_a_lock_are_caught_on_receipt(
    baseline: FakeLink, role: str, rewrite: Rewrite, rule: str
) -> None:
    link = play(cheater("lock", rewrite, role=role))
    x = role_of(link, role)
    c = assert_caught(link, x, rule, "lock")
    assert c.seq == honest_seq(baseline, x, "lock")
    # no card reached anybody: the honest player sent no key
    honest = link.sides[1 - x]
    assert not [e for e in feed(honest, 1 - x) if e.kind == "keys" or
                (e.kind == "lock" and e.body.deal_keys)]  # fmt: skip


def _lock_proof_for(**where: Any) -> Rewrite:
    """The right locked deck and keys, with a lock proof made for another game, hand or
    author ("other"): what a copied proof would be at best."""

    def rewrite(p: PeerProtocol, h: HandFold, body: Any) -> Any:
        ctx = proof_ctx(p, h, **{**where, **({"author": 1 - p.me} if "author" in where else {})})
        d_in = h.deck(2 if p.me == h.first else 3)
        msg = sh.lock_step(p._seeds[h.number], ctx, d_in, POOL)
        assert (list(msg.d_out), list(msg.keys)) == (list(body.points), list(body.pubkeys))
        return body._replace(proof=b"".join(msg.proof))

    return rewrite


def _swapped_pubkeys(p: PeerProtocol, h: HandFold, body: Any) -> Any:
    """The honest deck and proof, the published keys of positions 3 and 12 swapped."""
    keys = list(body.pubkeys)
    keys[3], keys[12] = keys[12], keys[3]
    return body._replace(pubkeys=tuple(keys))


def _pubkeys_of_other_seeds(p: PeerProtocol, h: HandFold, body: Any) -> Any:
    """The honest deck and proof, with per-card keys that did not lock it (another key
    seed's): keys the player could later "reveal" for other cards."""
    other = sh.HandSecrets(bytes(32), bytes(range(32)))
    d_in = h.deck(2 if p.me == h.first else 3)
    return body._replace(pubkeys=tuple(sh.lock_step(other, proof_ctx(p, h), d_in, POOL).keys))


@pytest.mark.parametrize(
    ("role", "rewrite"),
    [
        ("first", _lock_proof_for(game=bytes(32))),
        ("second", _lock_proof_for(hand=2)),
        ("first", _lock_proof_for(author="other")),
        ("first", _swapped_pubkeys),  # (the second locker's own deal keys would show it too)
        ("first", _pubkeys_of_other_seeds),
    ],
    ids=["other-game", "other-hand", "other-author", "swapped-keys", "keys-of-other-seeds"],
)
def test_a_lock_proof_bound_elsewhere_or_to_other_keys_fails_on_receipt(
    role: str, rewrite: Rewrite
) -> None:
    """A lock proof binds this game, hand and author, and the published per-card keys
    to the deck: one made for another context, or keys that did not lock the deck, fail
    the proof when the lock arrives, so no card is ever keyed against them."""
    link = play(cheater("lock", rewrite, role=role), k=REAL)
    x = role_of(link, role)
    c = assert_caught(link, x, "bad-lock-proof", "lock")
    assert c.seq == honest_seq(honest_game(REAL), x, "lock")
    honest = link.sides[1 - x]
    assert not [e for e in feed(honest, 1 - x) if e.kind == "keys" or
                (e.kind == "lock" and e.body.deal_keys)]  # fmt: skip


def _key_plus_l(items: Sequence[Any], p: PeerProtocol, h: HandFold) -> tuple[Any, ...]:
    first = items[0]
    return (first._replace(key=plus_l(first.key)), *items[1:])


@pytest.mark.parametrize(
    ("kind", "role", "rewrite", "rule"),
    [
        ("keys", "first", change_keys("keys", wrong_key), "bad-key"),
        ("keys", "first", change_keys("keys", _key_plus_l), "bad-scalar"),
        ("lock", "second", change_keys("deal_keys", wrong_key), "bad-key"),
        ("stock_key", "first", wrong_stock_key, "bad-key"),
        ("discard", "second", change_keys("keys", _key_plus_l), "bad-scalar"),
    ],
    ids=["deal-key", "deal-key-plus-l", "lock-deal-key", "stock-key", "discard-key-plus-l"],
)
def test_wrong_or_non_canonical_keys_are_caught_on_receipt(
    baseline: FakeLink, kind: str, role: str, rewrite: Rewrite, rule: str
) -> None:
    link = play(cheater(kind, rewrite, role=role))
    x = role_of(link, role)
    c = assert_caught(link, x, rule, kind)
    assert c.seq == honest_seq(baseline, x, kind)


def test_what_slips_through_is_caught_by_the_recompute_at_the_openings() -> None:
    # game target 1: the hand ends the match before the openings show the cheat
    link = play(cheater("shuffle answers", another_permutation),
                rules=RULES.with_(game_target=1))  # fmt: skip
    a = role_of(link, "first")
    honest = link.sides[1 - a]
    t = honest.proto.table
    c = t.cheat
    assert c is not None and (c.author, c.rule) == (a, "not-from-seeds:shuffle"), c
    shuffled = next(e for e in feed(honest, a) if e.kind == "shuffle")
    assert c.entry == shuffled.id  # the step that does not follow, not the opening
    # the whole hand was played on the accepted deck; the cheater forfeits all the same
    h = t.hands[0]
    assert h.over and all(h.opened) and not h.checked
    assert t.match is not None and (t.match.end, t.match.winner) == (MatchEnd.CHEAT, 1 - a)
    mine = feed(honest, 1 - a)
    assert [e.kind for e in mine][-2:] == ["open", "dispute"]
    assert (mine[-1].body.entry, mine[-1].body.rule) == (c.entry, c.rule)
    for side in link.sides:
        audited(side.saved, audit.Verdict.CHEATED, c, 1 - a, MatchEnd.CHEAT)


# ---------------------------------------------------------------- the schedule


@pytest.mark.parametrize("seed", [SEED, OTHER_SEED])
def test_a_shuffle_before_the_other_commitment_is_caught_on_receipt(seed: int) -> None:
    """The first shuffler shuffles right after its own commit, before the other's
    commitment has reached it: the schedule owes the first shuffle only once both
    commitments are in, so that no seeds are fixed after a deck has been seen. The
    shuffle acks no commit of the other player's, so wherever it is placed it is out
    of turn: the host's sorts before the guest's commit and is owed by nobody; the
    guest's sorts after the host's commit that it had not seen (the ack-point rule)."""
    link = play(shuffle_before_commit(), seed, k=REAL)
    a = role_of(link, "first")
    assert a == (HOST if seed == SEED else GUEST)
    c = assert_caught(link, a, "out-of-turn", "shuffle")
    honest = link.sides[1 - a]
    shuffled = honest.proto.log.get(c.entry)
    commit = next(e for e in feed(honest, 1 - a) if e.kind == "commit")
    assert shuffled is not None and shuffled.ack_seq < commit.seq  # sent unseen
    assert c.seq == honest_seq(honest_game(REAL), a, "commit") + 1  # right after its own commit
    # on receipt: the shuffle is never challenged, only disputed; the honest player opens
    # its seeds when its commit is folded before the cheat (the guest's sorts after the
    # host's early shuffle, so the judged log holds nothing of its seeds to check)
    after = [e.kind for e in feed(honest, 1 - a) if e.seq > commit.seq]
    assert after == (["dispute"] if seed == SEED else ["dispute", "open"])


# ---------------------------------------------------------------- play


def _discard_in_draw_phase(p: PeerProtocol, view: HandState) -> Any:
    return Discard(view.known_cards(p.me)[0])


@pytest.mark.parametrize(
    ("when", "move", "kind", "rule"),
    [
        (
            phase_is(Phase.FIRST_UPCARD),
            _discard_in_draw_phase,
            "discard",
            "illegal-move:wrong_phase",
        ),
        (phase_is(Phase.DISCARD), discard_not_held, "discard", "illegal-move:card_not_in_hand"),
        (phase_is(Phase.DISCARD), false_gin, "gin", "illegal-move:false_gin"),
        (phase_is(Phase.DISCARD), knock_over_the_limit, "knock", "illegal-move:knock_over_limit"),
        (phase_is(Phase.FIRST_UPCARD), two_moves, "take_upcard", "out-of-turn"),
    ],
    ids=["wrong-phase", "card-not-held", "false-gin", "knock-over-limit", "out-of-turn"],
)
def test_illegal_moves_are_caught_on_receipt_by_the_engine(when: Any, move: Any, kind: str,
                                                           rule: str) -> None:  # fmt: skip
    link = play(cheater(""), players=(cheat_once(when, move),) * 2)
    a = role_of(link, "first")
    # a gin or knock carries the keys of the whole hand (else the rule would be
    # hidden-card): the engine judged the claim with the cards it revealed
    assert_caught(link, a, rule, kind)


# ---------------------------------------------------------------- equivocation


def test_equivocation_is_caught_on_receipt_of_the_second_entry() -> None:
    link = play(cheater("pass_upcard take_upcard", twin=the_other_choice))
    a = role_of(link, "first")
    honest = link.sides[1 - a]
    c = honest.proto.table.cheat
    assert c is not None and (c.author, c.rule) == (a, "equivocation"), c
    pair_ = honest.proto.log.at(a, c.seq)
    assert len(pair_) == 2 and c.entry in {e.id for e in pair_}
    assert {e.kind for e in pair_} == {"pass_upcard", "take_upcard"}
    t = honest.proto.table
    assert t.match is not None and t.match.end is MatchEnd.CHEAT and t.match.winner == 1 - a
    kinds = [e.kind for e in feed(honest, 1 - a)]
    assert kinds[-2:] == ["dispute", "open"]
    dispute = feed(honest, 1 - a)[-2]
    assert (dispute.body.entry, dispute.body.rule) == (c.entry, "equivocation")
    # the dispute carries the pair (the cheater stored one), so a third party convicts
    # the cheater from either file, or both merged
    assert sorted(dispute.body.evidence) == sorted(e.wire for e in pair_)
    cheater_file = link.sides[a].saved
    assert dispute.wire in cheater_file
    for records in (honest.saved, cheater_file, [*cheater_file, *honest.saved]):
        audited(records, audit.Verdict.CHEATED, c, 1 - a, MatchEnd.CHEAT)
    assert link.sides[a].proto.table.cheat == c  # the cheater's own peer agrees
    told = [o for o in honest.events if isinstance(o, CheatDetected)]  # the player is told
    assert len(told) == 1 and told[0].cheat == c


def test_a_chat_flood_is_caught_and_what_follows_it_is_not_stored() -> None:
    """One chat more than MAX_CHAT_RUN in a row, with nothing from the other player
    between, stops the feed: the flooder forfeits, and its later entries are dropped,
    so a flood cannot fill the honest player's memory and disk after the verdict."""
    link = play(cheater(""), players=(cheat_once(phase_is(Phase.DISCARD), chat_flood),) * 2)
    a = role_of(link, "first")
    honest = link.sides[1 - a]
    t = honest.proto.table
    c = t.cheat
    assert c is not None and (c.author, c.rule) == (a, "chat-flood"), c
    flood = honest.proto.log.get(c.entry)
    assert flood is not None and flood.kind == "chat"
    assert flood.body.text == f"line {MAX_CHAT_RUN + 1}"
    assert t.match is not None and t.match.end is MatchEnd.CHEAT and t.match.winner == 1 - a
    assert [e.kind for e in feed(honest, 1 - a)][-2:] == ["dispute", "open"]
    chats = [e for e in honest.proto.log.since(a, 0) if e.kind == "chat"]
    assert len(chats) == MAX_CHAT_RUN + 1  # the run, and the one too many as evidence
    for records in (honest.saved, link.sides[a].saved):
        audited(records, audit.Verdict.CHEATED, c, 1 - a, MatchEnd.CHEAT)
    assert link.sides[a].proto.table.cheat == c  # the flooder's own peer agrees
    saved = len(honest.saved)
    cp = link.sides[a].proto
    more = [o for i in range(200) for o in
            honest.proto.receive(cp._append_and_fold("chat", ev.make("chat", f"more {i}"))[0]
                                 .entry.wire, link.now)]  # fmt: skip
    assert len(honest.saved) == saved and not any(isinstance(o, Save) for o in more)
    assert sum(isinstance(o, Dropped) for o in more) == 200


def test_a_player_may_not_write_more_chats_than_the_log_allows() -> None:
    link = pair()
    link.start()
    step_until(link, lambda: link.sides[GUEST].proto.table.hand is not None and dealt(link))
    host, guest = (s.proto for s in link.sides)
    for i in range(MAX_CHAT_RUN - 1):  # one place kept for a claim (they count together)
        link.handle(HOST, host.chat(f"line {i}"))
    with pytest.raises(LocalProtocolError, match="Bob has written nothing since your last 31 "
                       "lines: wait for an answer or a move"):  # fmt: skip
        host.chat("one too many")
    link.handle(GUEST, guest.chat("yes?"))  # an answer begins a new run
    settle(link)
    link.handle(HOST, host.chat("there you are"))
    settle(link)
    for side in link.sides:
        assert side.proto.table.cheat is None and side.proto.log.linear().problems == ()


# ---------------------------------------------------------------- stalling and claims


def claim_after_timeout(link: FakeLink, claimant: int, kinds: set[str]) -> Entry:
    """The stalled link: the claimant waits on ``kinds``; no claim before the timeout, a
    claim after it; returns the claim entry, delivered."""
    side = link.sides[claimant]
    proto = side.proto
    owed = proto.table.owes(1 - claimant)
    assert owed is not None and owed.kinds == frozenset(kinds), owed
    since = waiting_since(side)
    assert proto.claimable(since + TIMEOUT - 1) is None
    with pytest.raises(ev.LocalProtocolError):
        proto.claim(since + TIMEOUT - 1)
    assert proto.claimable(since + TIMEOUT) == owed
    link.now = since + TIMEOUT
    out = proto.claim(link.now)
    link.handle(claimant, out)
    claim = next(o.entry for o in out if isinstance(o, Send))
    assert claim.kind == "claim" and claim.body.owed_author == 1 - claimant
    settle(link)
    return claim


def assert_claim_stands(link: FakeLink, claimant: int, claim: Entry) -> None:
    for side in link.sides:
        t = side.proto.table
        assert t.cheat is None
        assert t.match is not None and t.match.end is MatchEnd.CLAIM
        assert t.match.winner == claimant and t.owed() == []
        assert side.proto.log.linear().claims[claim.id].verdict in (Verdict.OPEN, Verdict.STANDS)
        audited(side.saved, audit.Verdict.INCOMPLETE, None, claimant, MatchEnd.CLAIM)


def test_refusing_to_answer_a_challenge_is_claimed_after_the_timeout() -> None:
    link = play(cheater("answers", refuse=True))
    a = role_of(link, "first")
    assert not [e for e in feed(link.sides[a], a) if e.kind == "answers"]
    claim = claim_after_timeout(link, 1 - a, {"answers"})
    assert_claim_stands(link, 1 - a, claim)
    # answering now is too late: the answers ack the claim, so they are void
    p = link.sides[a].proto
    h = p.table.hand
    assert h is not None and p.table.game is not None
    kind, body, _ = PeerProtocol._make_answers(p, h, p.table.game)
    link.handle(a, p._append_and_fold(kind, body))
    settle(link)
    late = feed(link.sides[1 - a], a)[-1]
    assert late.kind == "answers" and late.ack_seq >= claim.seq
    placed = link.sides[1 - a].proto.log.linear().placed(late.id)
    assert placed is not None and placed.void
    assert_claim_stands(link, 1 - a, claim)


def test_refusing_to_show_is_claimed_after_the_timeout() -> None:
    def no_show(proto: PeerProtocol, view: HandState) -> Any:
        return None if view.phase is Phase.SHOW else bot.choose(view, proto.me)

    link = play(players=(no_show, no_show))
    t = link.sides[HOST].proto.table
    assert t.match is not None and t.match.hand is not None
    assert t.match.hand.phase is Phase.SHOW
    defender = t.match.hand.to_move
    claim = claim_after_timeout(link, 1 - defender, set(ev.ACTION_KINDS))
    assert_claim_stands(link, 1 - defender, claim)


def test_refusing_to_open_forfeits_even_a_won_match(baseline: FakeLink) -> None:
    """The winner of the hand (and of the match, in the baseline) never opens its seeds."""
    winner = baseline.sides[HOST].proto.table.match.winner  # type: ignore[union-attr]
    role = "first" if baseline.sides[HOST].proto.table.hands[0].first == winner else "second"
    link = play(cheater("open", refuse=True, role=role))
    assert role_of(link, role) == winner
    honest = link.sides[1 - winner]
    assert [e.kind for e in feed(honest, 1 - winner)][-1] == "open"
    claim = claim_after_timeout(link, 1 - winner, {"open"})
    assert_claim_stands(link, 1 - winner, claim)
    _no_bonus_for_a_forfeit(baseline, honest.proto.table, winner)


def _no_bonus_for_a_forfeit(baseline: FakeLink, t: Table, forfeiter: int) -> None:
    """The match had ended with bonuses for ``forfeiter``; its forfeit ends it on the
    hands' points alone (rules.md: a forfeit scores no bonuses)."""
    won = baseline.sides[HOST].proto.table.match
    assert won is not None and won.totals is not None and won.totals != won.scores
    m = t.match
    assert m is not None and m.winner == 1 - forfeiter
    assert m.scores == won.scores and m.totals == won.scores


def test_a_false_opening_forfeits_a_won_match_and_its_bonuses(baseline: FakeLink) -> None:
    winner = baseline.sides[HOST].proto.table.match.winner  # type: ignore[union-attr]
    role = "first" if baseline.sides[HOST].proto.table.hands[0].first == winner else "second"
    false_seed = cheater("open", lambda p, h, body: body._replace(perm_seed=bytes(32)), role=role)
    link = play(false_seed)
    t = link.sides[1 - winner].proto.table
    assert t.cheat is not None and (t.cheat.author, t.cheat.rule) == (winner, "bad-opening")
    assert t.match is not None and t.match.end is MatchEnd.CHEAT
    _no_bonus_for_a_forfeit(baseline, t, winner)
    scores = t.match.scores
    report = audit.audit_records(link.sides[1 - winner].saved, min_k=FEW)
    assert f"scores Ann {scores[0]}, Bob {scores[1]}" in report.text(), report.text()


def test_a_claim_racing_the_owed_entry_is_beaten() -> None:
    link = pair()
    link.start()
    a = HOST  # the first shuffler with SEED: it waits for B's challenge

    def challenge_in_flight() -> bool:
        return any(kind_of(w) == "challenge" for w in link.flight[a])

    step_until(link, challenge_in_flight)
    held = [w for w in link.flight[a] if kind_of(w) == "challenge"]
    link.flight[a][:] = [w for w in link.flight[a] if w not in held]
    # A times out before the challenge (sent already) arrives, and claims
    proto = link.sides[a].proto
    link.now = waiting_since(link.sides[a]) + TIMEOUT
    out = proto.claim(link.now)
    claim = next(o.entry for o in out if isinstance(o, Send))
    link.handle(a, out)
    assert proto.table.match is not None and proto.table.match.end is MatchEnd.CLAIM
    link.flight[a].extend(held)
    settle(link)
    # the challenge did not ack the claim: it was sent first, so the claim is void
    for side in link.sides:
        t = side.proto.table
        assert side.proto.log.linear().claims[claim.id].verdict is Verdict.BEATEN
        assert t.cheat is None and t.finished
        assert t.match is not None and t.match.end is MatchEnd.TARGET
        audited(side.saved, audit.Verdict.CLEAN, None, t.match.winner, MatchEnd.TARGET)
    assert link.sides[HOST].proto.log == link.sides[GUEST].proto.log


def test_a_back_dated_claim_cannot_void_a_seen_entry() -> None:
    """A has the challenge and answered it; it then claims the challenge was never sent,
    acking an older entry of B's: its acks go backwards, which is signed evidence."""
    link = pair()
    link.start()
    a, b = HOST, GUEST
    step_until(link, lambda: any(e.kind == "answers" for e in feed(link.sides[a], a)))
    p = link.sides[a].proto
    challenge = next(e for e in feed(link.sides[a], b) if e.kind == "challenge")
    before = next(e for e in feed(link.sides[a], b) if e.seq == challenge.seq - 1)
    body = ev.make("claim", b, challenge.seq, ["challenge"], "the challenge for hand 1")
    fields = p.log.next_fields(a, "claim", body)._replace(ack_seq=before.seq, ack_id=before.id)
    claim = sign_entry(p.key, fields)
    assert p.log.add_entry(claim).outcome is Outcome.NEW
    link.handle(a, [Save(claim), Send(claim)])
    settle(link)
    honest = link.sides[b]
    t = honest.proto.table
    c = t.cheat
    assert c is not None and (c.author, c.rule, c.entry) == (a, "bad-ack", claim.id), c
    assert t.match is not None and (t.match.end, t.match.winner) == (MatchEnd.CHEAT, b)
    assert [e.kind for e in feed(honest, b)][-2:] == ["dispute", "open"]
    assert feed(honest, b)[-2].body.entry == claim.id
    for side in link.sides:
        audited(side.saved, audit.Verdict.CHEATED, c, b, MatchEnd.CHEAT)


# ---------------------------------------------------------------- garbage, forgeries


def test_garbage_is_dropped_without_a_freeze_and_the_sender_still_owes() -> None:
    link = play(cheater("answers", refuse=True))
    a = role_of(link, "first")
    b = 1 - a
    p = link.sides[a].proto
    h = p.table.hand
    assert h is not None and p.table.game is not None
    kind, body, _ = PeerProtocol._make_answers(p, h, p.table.game)
    fields = p.log.next_fields(a, kind, body)
    good = sign_entry(p.key, fields)
    stranger = nacl.signing.SigningKey(bytes(range(32)))
    sig = bytearray(good.signature)
    sig[0] ^= 1
    other_game = sign_entry(p.key, fields._replace(game=bytes(range(32))))
    garbage = [
        b"",
        b"\xc1",
        random.Random(5).randbytes(300),
        b"\x00" * (ev.MAX_WIRE + 1),
        good.wire + b"\x00",  # trailing bytes
        ev.encode_wire(good.packed, bytes(sig)),  # a bad signature
        sign_entry(stranger, fields).wire,  # signed by somebody else
        other_game.wire,  # from another game
    ]
    side = link.sides[b]
    since = waiting_since(side)
    before = (len(side.saved), len(side.proto.table.events))
    for wire in garbage:
        out = side.proto.receive(wire, link.now)
        assert [type(o) for o in out] == [Dropped], (wire[:20], out)
    assert (len(side.saved), len(side.proto.table.events)) == before
    assert side.proto.table.cheat is None
    # the answers are still owed, and the clock kept running since they became owed
    assert waiting_since(side) == since
    claim = claim_after_timeout(link, b, {"answers"})
    assert_claim_stands(link, b, claim)


def test_an_entry_spliced_from_another_game_is_dropped(baseline: FakeLink) -> None:
    # another game between the same two keys (same seed: same keys; then other nonces)
    rng = random.Random(SEED)
    other = make_pair(RULES, rng, k=FEW, claim_timeout=TIMEOUT, executor=POOL)
    rng.randbytes(1)
    other_link = FakeLink(*other, rng)
    other_link.start()
    step_until(other_link, lambda: len(other[GUEST].saved) >= 6)
    spliced = [w for w in other[GUEST].saved if read(w).author == GUEST]
    assert [kind_of(w) for w in spliced][:2] == ["hello", "commit"]
    link = pair()
    assert bytes(link.sides[GUEST].proto.key.verify_key) == bytes(other[GUEST].proto.key.verify_key)
    link.start()
    step_until(link, lambda: link.sides[HOST].proto.table.hand is not None)
    for wire in spliced:
        link.inject(HOST, wire)
    settle(link)
    host = link.sides[HOST]
    assert host.dropped == ["a hello of another game"] + ["an entry of another game"] * (
        len(spliced) - 1
    )
    for side in link.sides:
        assert side.proto.table.cheat is None and side.proto.table.finished
    assert host.proto.log == baseline.sides[HOST].proto.log  # the same game as without them
    # never stored; written into the file by somebody else, they are damage blaming nobody
    audited(host.saved, audit.Verdict.CLEAN)
    audited([*host.saved, *spliced], audit.Verdict.DAMAGED)


# ---------------------------------------------------------------- false disputes


@pytest.mark.parametrize("named", ["honest-lock"])
def test_a_false_dispute_forfeits_the_disputer(named: str) -> None:
    """A dispute of an entry that checks out."""
    link = pair()
    link.start()
    step_until(link, lambda: dealt(link) and not any(link.flight))
    x = GUEST  # the false disputer
    honest = link.sides[1 - x]
    lock = next(e for e in feed(honest, 1 - x) if e.kind == "lock")
    target = bytes(range(32)) if named == "made-up" else lock.id
    p = link.sides[x].proto
    body = ev.make("dispute", target, "bad-lock-proof", "it does not check out", [])
    link.handle(x, p._append_and_fold("dispute", body))
    dispute = next(e for e in reversed(feed(link.sides[x], x)) if e.kind == "dispute")
    settle(link)
    t = honest.proto.table
    c = t.cheat
    assert c is not None and (c.author, c.rule) == (x, "false-dispute"), c
    assert t.match is not None and t.match.end is MatchEnd.CHEAT and t.match.winner == 1 - x
    if named != "made-up":
        # a dispute of a lock can only be settled with the disputer's seeds: it owed them,
        # opened them, and the open showed the lock checks out
        opened = next(e for e in feed(honest, x) if e.kind == "open")
        assert opened.seq == dispute.seq + 1
    assert c.entry == dispute.id
    mine = [e for e in feed(honest, 1 - x) if e.ack_seq >= dispute.seq]
    assert [e.kind for e in mine] == ["dispute", "open"]
    assert (mine[0].body.entry, mine[0].body.rule) == (dispute.id, "false-dispute")
    for side in link.sides:
        audited(side.saved, audit.Verdict.CHEATED, c, 1 - x, MatchEnd.CHEAT)


@pytest.mark.parametrize("evidence", ["forged-twin", "junk", "own-entries"])
def test_a_dispute_whose_evidence_is_no_fork_of_the_accused_is_dropped(evidence: str) -> None:
    """Evidence must be two entries the accused signed at one seq. Anything else (a twin
    signed by the disputer, bytes that are no entry, the disputer's own entries) and the
    dispute is dropped like bytes that do not verify: so no stored entry carries more
    than one fork of the other player's, and every entry a cheater can fork fits, as
    evidence, in the dispute that answers it."""
    link = pair()
    link.start()
    step_until(link, lambda: dealt(link) and not any(link.flight))
    x = GUEST
    honest, p = link.sides[1 - x], link.sides[x].proto
    lock = next(e for e in feed(honest, 1 - x) if e.kind == "lock")
    other = lock.fields._replace(body=lock.body._replace(proof=lock.body.proof[::-1]))
    mine = feed(link.sides[x], x)[-2:]
    wires = {"forged-twin": [lock.wire, sign_entry(p.key, other).wire],
             "junk": [lock.wire, bytes(30 * 1024)],
             "own-entries": [e.wire for e in mine]}[evidence]  # fmt: skip
    body = ev.make("dispute", lock.id, "equivocation", "two locks", wires)
    dispute = sign_entry(p.key, p.log.next_fields(x, "dispute", body))
    out = honest.proto.receive(dispute.wire, link.now)
    assert dispute.id not in honest.proto.log
    assert any(isinstance(o, Dropped) and "no fork" in o.reason for o in out)
    assert honest.proto.table.cheat is None and honest.proto.table.forfeited is None


def test_a_dispute_of_an_entry_never_written_is_dropped() -> None:
    """A dispute names an entry of the receiver's, which holds every one it wrote: one
    naming another id is made up, and dropped like bytes that do not verify. (A copy of
    the log that lacks a disputed entry cannot settle the dispute: the audit says so,
    blaming nobody, since the disputed entry may be a twin its author left out.)"""
    link = pair()
    link.start()
    step_until(link, lambda: dealt(link) and not any(link.flight))
    x = GUEST
    honest, p = link.sides[1 - x], link.sides[x].proto
    body = ev.make("dispute", bytes(range(32)), "bad-lock-proof", "made up", [])
    dispute = sign_entry(p.key, p.log.next_fields(x, "dispute", body))
    out = honest.proto.receive(dispute.wire, link.now)
    assert dispute.id not in honest.proto.log
    assert any(isinstance(o, Dropped) and "never wrote" in o.reason for o in out)
    assert honest.proto.table.cheat is None
    report = audit.audit_records([*honest.saved, dispute.wire], min_k=FEW)
    assert report.cheat is None and "cannot settle the dispute" in report.text()


# ---------------------------------------------------------------- a second challenge


def test_a_second_challenge_to_one_shuffle_proof_is_refused() -> None:
    """B (the verifier) keeps a second, different challenge for A's shuffle; A's log lost
    its tail (the challenge and its answers), its secrets file did not."""
    link = pair()
    link.start()
    a, b = HOST, GUEST
    step_until(link, lambda: (1, 1) in link.sides[a].answered)
    side = link.sides[a]
    answers = next(e for e in feed(side, a) if e.kind == "answers")
    challenge = next(e for e in feed(side, b) if e.kind == "challenge")
    bits = bytearray(challenge.body.bits)
    bits[0] ^= 0x80
    second = sign_entry(
        link.sides[b].proto.key,
        challenge.fields._replace(body=challenge.body._replace(bits=bytes(bits))),
    )
    cut = next(i for i, w in enumerate(side.saved) if read(w) == challenge)
    kept = side.saved[:cut]

    def restart() -> PeerProtocol:
        side.saved = list(kept)
        side.restart()
        link.handle(a, side.proto.start(link.now))
        return side.proto

    # the same challenge again: the same answers again (they reveal nothing new)
    proto = restart()
    out = proto.receive(challenge.wire, link.now)
    assert [o.entry for o in out if isinstance(o, Send)] == [answers]
    # a different challenge: refused, nothing sent
    proto = restart()
    out = proto.receive(second.wire, link.now)
    assert not [o for o in out if isinstance(o, Send)]
    assert proto.refused is not None and "second challenge" in proto.refused
    assert any(isinstance(o, Refused) for o in out)
    # once both challenges are in the log, B stands convicted of equivocation
    out = proto.receive(challenge.wire, link.now)
    c = proto.table.cheat
    assert c is not None and (c.author, c.rule, c.seq) == (b, "equivocation", challenge.seq)
    assert [o.entry.kind for o in out if isinstance(o, Send)] == ["dispute", "open"]
    assert proto.table.match is not None and proto.table.match.winner == a
    assert {e.id for e in proto.log.at(b, challenge.seq)} == {challenge.id, second.id}
    audited([e.wire for e in proto.log.entries()], audit.Verdict.CHEATED, c, a, MatchEnd.CHEAT)


# ---------------------------------------------------------------- races and copies


def summary(t: Table) -> tuple[Any, ...]:
    m = t.match
    assert m is not None
    opened = [[o and (o.perm_seed, o.key_seed) for o in h.opened] for h in t.hands]
    return (m.scores, m.results, m.end, m.winner, t.cheat, t.owed(), t.placed_count,
            [(h.known, h.checked) for h in t.hands], opened)  # fmt: skip


def fold_arriving(wires: Sequence[bytes]) -> Table:
    """A third party that receives the entries one by one, folding after each."""
    log, table = Log(min_k=FEW), Table(None, executor=POOL)
    for wire in wires:
        log.add(wire)
        table.update(log.linear())
    return table


def test_concurrent_entries_give_the_same_table_in_either_order(baseline: FakeLink) -> None:
    host, guest = baseline.sides
    order = host.proto.log.linear().order
    racing = [i for i, p in enumerate(order) if p.concurrent]
    # commits, opens and checkpoints race; a deal's keys never do (row 10 acks row 9)
    assert {order[i].entry.kind for i in racing} == {"commit", "open", "checkpoint"}
    for i in racing:
        assert order[i - 1].entry.author != order[i].entry.author
        assert order[i].entry.ack_seq < order[i - 1].entry.seq  # neither saw the other
    # the two players received each racing pair in opposite orders (own entry first), and
    # the one whose entry sorts second refolded...
    assert host.saved != guest.saved and sorted(host.saved) == sorted(guest.saved)
    assert any(isinstance(e, Refolded) for e in guest.events)
    # ...and so may anybody: as placed, each pair swapped, or everything backwards
    wires = [p.entry.wire for p in order]
    swapped = list(wires)
    for i in racing:
        swapped[i - 1], swapped[i] = swapped[i], swapped[i - 1]
    want = summary(fold(wires))
    for arrival in (wires, swapped, wires[::-1], host.saved, guest.saved):
        assert summary(fold_arriving(arrival)) == want
    assert host.proto.table.match == guest.proto.table.match
    assert summary(host.proto.table)[:6] == want[:6] == summary(guest.proto.table)[:6]


def test_a_rewrapped_or_replayed_entry_is_a_duplicate_not_equivocation(baseline: FakeLink
                                                                       ) -> None:  # fmt: skip
    link = pair()
    link.start()
    step_until(link, lambda: dealt(link))
    host, guest = link.sides
    copies = [w for w in guest.saved if read(w).author == GUEST]
    for wire in copies:
        rewrapped = rewrap(wire)
        assert rewrapped != wire and read(rewrapped) == read(wire)
        assert host.proto.log.add(rewrapped).outcome is Outcome.DUPLICATE
        link.inject(HOST, rewrapped)
        link.inject(HOST, wire)  # replayed as it was
    settle(link)
    assert host.dropped == [] and host.proto.log.equivocations == []
    for side in link.sides:
        assert side.proto.table.cheat is None and side.proto.table.finished
    assert host.proto.log == baseline.sides[HOST].proto.log
    # a file holding the copies too reads the same
    third = fold([*host.saved, *map(rewrap, copies), *copies])
    assert third.cheat is None and summary(third) == summary(fold(host.saved))
    audited([*host.saved, *map(rewrap, copies), *copies], audit.Verdict.CLEAN)


def test_entries_far_ahead_are_neither_stored_nor_a_burden(baseline: FakeLink) -> None:
    """The guest signs chats with made-up seqs and prevs, one far ahead and then a
    flood. Stored, they left a gap in the honest file for ever (the audit said DAMAGED
    after a won match) and each arrival re-sorted them all. They are held in memory,
    a bounded number, and the match ends with a clean file, as without them."""
    link = pair()
    link.start()
    step_until(link, lambda: link.sides[GUEST].proto.table.hand is not None and dealt(link))
    host, guest = link.sides
    game = guest.proto.log.game
    assert game is not None

    def ahead(seq: int) -> bytes:
        fields = ev.EntryFields(ev.VERSION, game, GUEST, seq, random.randbytes(32), 0,
                                bytes(32), "chat", ev.make("chat", f"from {seq}"))  # fmt: skip
        return sign_entry(guest.proto.key, fields).wire

    saved = len(host.saved)
    outs = host.proto.receive(ahead(1000), link.now)
    assert not any(isinstance(o, Save) for o in outs) and len(host.saved) == saved
    flood = [o for seq in range(2000, 4000) for o in host.proto.receive(ahead(seq), link.now)]
    assert not any(isinstance(o, Save) for o in flood)
    assert sum(isinstance(o, Dropped) for o in flood) == 2000 - (MAX_AHEAD - 1)
    settle(link)
    assert host.proto.log == baseline.sides[HOST].proto.log
    audited(host.saved, audit.Verdict.CLEAN, None, GUEST, MatchEnd.TARGET)


# ---------------------------------------------------------------- a damaged file


def test_a_forged_or_altered_record_in_a_saved_file_is_damage_blaming_nobody(
    baseline: FakeLink,
) -> None:
    records = list(baseline.sides[GUEST].saved)
    clean = fold(records)
    assert clean.cheat is None and clean.finished
    i = next(i for i, w in enumerate(records) if kind_of(w) == "discard")
    e = read(records[i])
    stranger = nacl.signing.SigningKey(bytes(32))
    altered_card = sign_entry(stranger, e.fields._replace(body=e.body._replace(
        card=(e.body.card + 1) % 52)))  # fmt: skip
    variants = {
        "bad signature": ev.encode_wire(e.packed, flip_bit(e.signature, 5)),
        "altered body": ev.encode_wire(flip_bit(e.packed, len(e.packed) - 40), e.signature),
        "forged by another key": altered_card.wire,
    }
    for what, bad in variants.items():
        damaged = [*records[:i], bad, *records[i + 1 :]]
        _, added = Log.from_records(damaged, min_k=FEW)
        assert added[i].outcome is Outcome.DROPPED, what
        assert all(a.outcome is not Outcome.DROPPED for j, a in enumerate(added) if j != i)
        third = fold(damaged)
        assert third.cheat is None and not third.problems, what
        assert not third.finished  # the rest of that feed is held behind the gap
        assert third.placed_count < clean.placed_count
        audited(damaged, audit.Verdict.DAMAGED)
