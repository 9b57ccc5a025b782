"""DESIGN §8 at the protocol layer: each threat injected by a cheating peer, end to end.

A cheater is a :class:`PeerProtocol` subclass (see :func:`cheater`) that rewrites the
body of one kind of its entries before signing, withholds an entry, or signs a second
entry at the same seq; or a player whose "move" appends raw entries. Both peers of a
pair get the same class and only the one in the chosen role (first shuffler or dealer,
in hand 1) deviates, so every run up to the cheat is the honest baseline's, entry for
entry (everything random comes from one seeded ``random.Random``).

For every cheat we check, on the HONEST peer's table: the first cheat names the cheater,
the rule and the very entry; the honest peer disputed that entry as soon as it arrived
(its dispute acks it) and then opened its seeds; the match is forfeited by the cheater;
nothing the cheater sends later changes anything; and the audit of either player's
saved file (:func:`ginp2p.audit.audit_records`, a third party with no seeds) reaches the
same verdict. Stalling is claimed after the timeout; garbage, forgeries, splices and
re-wrapped copies are dropped or ignored without freezing anything.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import msgpack
import nacl.bindings as nb
import nacl.signing
import pytest

from ginp2p import audit, bot
from ginp2p import events as ev
from ginp2p import shuffle as sh
from ginp2p.cards import Card
from ginp2p.engine import Discard, Gin, HandState, Knock, PassUpcard, Phase
from ginp2p.fakelink import FakeLink, RawMove, Rewrite, Side, bot_player, cheater, make_pair
from ginp2p.log import GUEST, HOST, Entry, Log, Outcome, Verdict, sign_entry
from ginp2p.match import MatchEnd
from ginp2p.melds import best_arrangement
from ginp2p.protocol import (
    Dropped,
    Output,
    PeerProtocol,
    Refolded,
    Refused,
    Save,
    Send,
    Waiting,
)
from ginp2p.rules import RuleSet, get_preset
from ginp2p.table import Cheat, CheatDetected, HandFold, Table

from .test_shuffle import plus_l, retagged, scalar_int

POOL = ThreadPoolExecutor(2)
RULES = get_preset("classic").with_(game_target=10)
#: With this seed the host is the first shuffler (the non-dealer); the match is one hand,
#: won by the guest's knock; both players draw from the stock. With OTHER_SEED the guest
#: shuffles first.
SEED = 1
OTHER_SEED = 7
TIMEOUT = 30

Player = Callable[[PeerProtocol, HandState], Any]


def cheat_once(when: Callable[[HandState], bool], move: Callable[[PeerProtocol, HandState], Any]
               ) -> Player:  # fmt: skip
    """The first shuffler (the first to move) plays ``move`` once, at its first turn where
    ``when`` holds; otherwise both play the bot's move."""
    done: list[bool] = []

    def player(proto: PeerProtocol, view: HandState) -> Any:
        h = proto.table.hand
        assert h is not None
        if not done and h.number == 1 and proto.me == h.first and when(view):
            done.append(True)
            return move(proto, view)
        return bot.choose(view, proto.me)

    return player


def pair(cls: type[PeerProtocol] = PeerProtocol, seed: int = SEED,
         players: tuple[Any, Any] = (bot_player, bot_player), rules: RuleSet = RULES
         ) -> FakeLink:  # fmt: skip
    rng = random.Random(seed)
    host, guest = make_pair(rules, rng, claim_timeout=TIMEOUT, executor=POOL, host_cls=cls,
                            guest_cls=cls)  # fmt: skip
    return FakeLink(host, guest, rng, players=players)


def play(cls: type[PeerProtocol] = PeerProtocol, seed: int = SEED,
         players: tuple[Any, Any] = (bot_player, bot_player), rules: RuleSet = RULES
         ) -> FakeLink:  # fmt: skip
    link = pair(cls, seed, players, rules)
    link.run()
    return link


def settle(link: FakeLink) -> None:
    """Step the link until nothing more happens."""
    for _ in range(20_000):
        if not link.step():
            return
    raise AssertionError("the link never settles")


def step_until(link: FakeLink, done: Callable[[], bool]) -> None:
    for _ in range(20_000):
        if done():
            return
        assert link.step(), "the link settled first"
    raise AssertionError("never happened")


def role_of(link: FakeLink, role: str) -> int:
    h = link.sides[HOST].proto.table.hands[0]
    return h.first if role == "first" else h.dealer


def feed(side: Side, author: int) -> list[Entry]:
    return side.proto.log.since(author, 0)


def kind_of(wire: bytes) -> str:
    return str(Entry.from_wire(wire).kind)


def fold(records: Iterable[bytes]) -> Table:
    """A third party's view of a saved file: no seeds, the entries alone."""
    log, _ = Log.from_records(records)
    table = Table(None, executor=POOL)
    table.update(log.linear())
    return table


def same_cheat(a: Cheat | None, b: Cheat | None) -> bool:
    assert a is not None and b is not None
    return (a.author, a.entry, a.seq, a.rule) == (b.author, b.entry, b.seq, b.rule)


def audited(records: Iterable[bytes], verdict: audit.Verdict, cheat: Cheat | None = None,
            winner: int | None = None, end: MatchEnd | None = None) -> audit.Report:  # fmt: skip
    """The audit of a saved file (a third party: no seeds, the entries alone)."""
    report = audit.audit_records(records)
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


@pytest.fixture(scope="module")
def baseline() -> FakeLink:
    return play()


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


# ---------------------------------------------------------------- the shuffle: decks


def _ctx(p: PeerProtocol, h: HandFold, game: bytes | None = None, hand: int | None = None,
         author: int | None = None) -> sh.Ctx:  # fmt: skip
    t = p.table
    assert t.game is not None
    return sh.Ctx(game or t.game, h.number if hand is None else hand,
                  p.me if author is None else author)  # fmt: skip


def _d_in(p: PeerProtocol, h: HandFold) -> list[bytes]:
    return h.deck(0 if p.me == h.first else 1)


def redeck(change: Callable[[list[bytes], PeerProtocol, HandFold], list[bytes]],
           reprove: bool = True) -> Rewrite:  # fmt: skip
    """A shuffle entry whose deck is changed; with ``reprove`` a fresh, valid sum proof for
    the changed deck (the tag attack's trick), C left as the seeds make it."""

    def rewrite(p: PeerProtocol, h: HandFold, body: Any) -> Any:
        d_out = change(list(body.points), p, h)
        proof = body.sum_proof
        if reprove:
            proof = b"".join(sh._prove_sum(p._seeds[h.number], _ctx(p, h), _d_in(p, h), d_out))
        return body._replace(points=tuple(d_out), sum_proof=proof)

    return rewrite


def _tag(d: list[bytes], p: PeerProtocol, h: HandFold) -> list[bytes]:
    return retagged(d, 5, 40, 41, scalar_int(7))  # shuffle-research §9


def _disguised_duplicate(d: list[bytes], p: PeerProtocol, h: HandFold) -> list[bytes]:
    return retagged(d, 3, 15, 16, scalar_int(11))  # position 15 = m·(the card at 3)


def _duplicate(d: list[bytes], p: PeerProtocol, h: HandFold) -> list[bytes]:
    d[15] = d[3]
    return d


def _substitute(d: list[bytes], p: PeerProtocol, h: HandFold) -> list[bytes]:
    # x·(a card of a second deck), in place of a card of this one
    d[9] = nb.crypto_scalarmult_ed25519_noclamp(p._seeds[h.number].x, sh.card_points(104)[60])
    return d


def _bad_sum_proof(p: PeerProtocol, h: HandFold, body: Any) -> Any:
    e, z = body.sum_proof[:32], body.sum_proof[32:]
    return body._replace(sum_proof=e + nb.crypto_core_ed25519_scalar_add(z, scalar_int(1)))


def _proof_for(**where: Any) -> Rewrite:
    """The right deck, with its proofs made for another game, hand or author ("other")."""

    def rewrite(p: PeerProtocol, h: HandFold, body: Any) -> Any:
        ctx = _ctx(p, h, **{**where, **({"author": 1 - p.me} if "author" in where else {})})
        msg = sh.shuffle_step(p._seeds[h.number], ctx, _d_in(p, h), p.table.k, POOL)
        assert list(msg.d_out) == list(body.points)
        return body._replace(sum_proof=b"".join(msg.sum_proof), deck_hash=msg.deck_hash)

    return rewrite


@pytest.mark.parametrize("seed", [SEED, OTHER_SEED])
def test_tag_attack_by_the_first_shuffler_fails_its_answers(baseline: FakeLink, seed: int
                                                            ) -> None:  # fmt: skip
    link = play(cheater("shuffle", redeck(_tag)), seed)
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
        assert c.seq == honest_seq(baseline, a, "answers")


def test_disguised_duplicate_by_the_second_shuffler_fails_its_answers(baseline: FakeLink) -> None:
    link = play(cheater("shuffle", redeck(_disguised_duplicate), role="second"))
    b = role_of(link, "second")
    c = assert_caught(link, b, "bad-shuffle-proof", "answers")
    assert c.seq == honest_seq(baseline, b, "answers")
    honest = link.sides[1 - b]
    # A challenged D2 (it passed the checks on receipt) and never locked it
    assert [e.kind for e in feed(honest, 1 - b) if e.kind in ("challenge", "lock", "keys")] == [
        "challenge"]


@pytest.mark.parametrize(("role", "rewrite", "rule"), [
    ("second", redeck(_duplicate, reprove=False), "duplicate-point"),
    ("first", redeck(_substitute), "bad-sum-proof"),
    ("first", _bad_sum_proof, "bad-sum-proof"),
    ("second", _proof_for(game=bytes(32)), "bad-sum-proof"),
    ("first", _proof_for(hand=2), "bad-sum-proof"),
    ("second", _proof_for(author="other"), "bad-sum-proof"),
], ids=["duplicate", "substitute", "bad-sum-proof", "other-game", "other-hand", "other-author"])
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


# ---------------------------------------------------------------- answers, locks, keys


def _answers(change: Callable[[list[Any], PeerProtocol, HandFold], list[Any]]) -> Rewrite:
    def rewrite(p: PeerProtocol, h: HandFold, body: Any) -> Any:
        return body._replace(answers=tuple(change(list(body.answers), p, h)))

    return rewrite


def _tweak_scalar(rows: list[Any], p: PeerProtocol, h: HandFold) -> list[Any]:
    rows[4] = rows[4]._replace(scalar=nb.crypto_core_ed25519_scalar_add(rows[4].scalar,
                                                                        scalar_int(1)))
    return rows


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


@pytest.mark.parametrize(("role", "change", "rule"), [
    ("first", _tweak_scalar, "bad-shuffle-proof"),
    ("second", _other_half_same_bit, "bad-shuffle-proof"),
    ("second", _other_half, "bad-answers"),
    ("first", _scalar_plus_l, "bad-scalar"),
], ids=["tweaked-scalar", "other-half", "bits-not-the-challenge", "non-canonical-scalar"])
def test_bad_answers_are_caught_on_receipt(baseline: FakeLink, role: str,
                                           change: Any, rule: str) -> None:  # fmt: skip
    link = play(cheater("answers", _answers(change), role=role))
    x = role_of(link, role)
    c = assert_caught(link, x, rule, "answers")
    assert c.seq == honest_seq(baseline, x, "answers")


def _relock(change: Callable[[list[bytes]], list[bytes]]) -> Rewrite:
    """A lock computed honestly over a changed input deck (so its proof is valid for that
    deck, not for the logged one)."""

    def rewrite(p: PeerProtocol, h: HandFold, body: Any) -> Any:
        d_in = h.deck(2 if p.me == h.first else 3)
        msg = sh.lock_step(p._seeds[h.number], _ctx(p, h), change(list(d_in)), POOL)
        return body._replace(points=tuple(msg.d_out), pubkeys=tuple(msg.keys),
                             proof=b"".join(msg.proof))  # fmt: skip

    return rewrite


def _reroute(d: list[bytes]) -> list[bytes]:
    d[3] = d[12]  # position 3 would hold the card of position 12
    return d


def _swap_out(p: PeerProtocol, h: HandFold, body: Any) -> Any:
    points = list(body.points)
    points[3], points[12] = points[12], points[3]
    return body._replace(points=tuple(points))


def _lock_scalar_plus_l(p: PeerProtocol, h: HandFold, body: Any) -> Any:
    proof = body.proof
    return body._replace(proof=proof[:64] + plus_l(proof[64:96]) + proof[96:])


@pytest.mark.parametrize(("role", "rewrite", "rule"), [
    ("first", _relock(_reroute), "bad-lock-proof"),
    ("second", _swap_out, "bad-lock-proof"),
    ("second", _lock_scalar_plus_l, "bad-scalar"),
], ids=["rerouted", "swapped", "non-canonical-scalar"])
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


def _wrong_key(items: Sequence[Any], p: PeerProtocol, h: HandFold) -> tuple[Any, ...]:
    """The key for another position in place of the first one."""
    first = items[0]
    return (first._replace(key=p._seeds[h.number].card_key(first.pos + 30)), *items[1:])


def _key_plus_l(items: Sequence[Any], p: PeerProtocol, h: HandFold) -> tuple[Any, ...]:
    first = items[0]
    return (first._replace(key=plus_l(first.key)), *items[1:])


def _keys(field: str, change: Callable[[Sequence[Any], PeerProtocol, HandFold], Any]
          ) -> Rewrite:  # fmt: skip
    def rewrite(p: PeerProtocol, h: HandFold, body: Any) -> Any:
        return body._replace(**{field: change(getattr(body, field), p, h)})

    return rewrite


def _stock_key_wrong(p: PeerProtocol, h: HandFold, body: Any) -> Any:
    return body._replace(key=p._seeds[h.number].card_key(body.pos + 1))


@pytest.mark.parametrize(("kind", "role", "rewrite", "rule"), [
    ("keys", "first", _keys("keys", _wrong_key), "bad-key"),
    ("keys", "first", _keys("keys", _key_plus_l), "bad-scalar"),
    ("lock", "second", _keys("deal_keys", _wrong_key), "bad-key"),
    ("stock_key", "first", _stock_key_wrong, "bad-key"),
    ("discard", "second", _keys("keys", _key_plus_l), "bad-scalar"),
], ids=["deal-key", "deal-key-plus-l", "lock-deal-key", "stock-key", "discard-key-plus-l"])
def test_wrong_or_non_canonical_keys_are_caught_on_receipt(
    baseline: FakeLink, kind: str, role: str, rewrite: Rewrite, rule: str
) -> None:
    link = play(cheater(kind, rewrite, role=role))
    x = role_of(link, role)
    c = assert_caught(link, x, rule, kind)
    assert c.seq == honest_seq(baseline, x, kind)


def _another_permutation(p: PeerProtocol, h: HandFold, body: Any) -> Any:
    """A true shuffle with the committed x but another π than perm_seed gives, answered
    consistently: every proof holds; only the opened seeds show it."""
    fake = sh.HandSecrets(bytes(32), p._seeds[h.number].key_seed)
    if hasattr(body, "sum_proof"):
        msg = sh.shuffle_step(fake, _ctx(p, h), _d_in(p, h), p.table.k, POOL)
        return body._replace(points=tuple(msg.d_out), sum_proof=b"".join(msg.sum_proof),
                             deck_hash=msg.deck_hash)  # fmt: skip
    ans = sh.answer_challenge(fake, h.n, [r.bit for r in body.answers], p.table.k)
    return body._replace(answers=tuple(
        r._replace(scalar=scalar, perm=bytes(perm))
        for r, scalar, perm in zip(body.answers, ans.scalars, ans.perms, strict=True)))


def test_what_slips_through_is_caught_by_the_recompute_at_the_openings() -> None:
    # game target 1: the hand ends the match before the openings show the cheat
    link = play(cheater("shuffle answers", _another_permutation),
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


# ---------------------------------------------------------------- play


def _phase(*phases: Phase) -> Callable[[HandState], bool]:
    return lambda view: view.phase in phases


def _discard_in_draw_phase(p: PeerProtocol, view: HandState) -> Any:
    return Discard(view.known_cards(p.me)[0])


def _not_held(p: PeerProtocol, view: HandState) -> RawMove:
    held = set(view.known_cards(p.me))
    card = next(Card.from_index(i) for i in range(52) if Card.from_index(i) not in held)
    h = p.table.hand
    assert h is not None
    return lambda proto: proto._append_and_fold("discard", ev.make("discard", h.number,
                                                                   card.index, ()))  # fmt: skip


def _false_gin(p: PeerProtocol, view: HandState) -> Any:
    move = bot.choose(view, p.me)
    assert isinstance(move, Discard)
    rest = [c for c in view.known_cards(p.me) if c != move.card]
    melds, deadwood = best_arrangement(rest, RULES)
    assert deadwood  # not a gin
    return Gin(move.card, tuple(melds))


def _knock_over_the_limit(p: PeerProtocol, view: HandState) -> Any:
    move = bot.choose(view, p.me)
    assert isinstance(move, Discard)
    return Knock(move.card, ())


def _two_moves(p: PeerProtocol, view: HandState) -> RawMove:
    """Pass the upcard, and at once take it back as if it were our turn again."""
    h = p.table.hand
    assert h is not None

    def move(proto: PeerProtocol) -> list[Output]:
        out = proto._append_and_fold(*ev.action_body(PassUpcard(), h.number))
        return out + proto._append_and_fold("take_upcard", ev.make("take_upcard", h.number, ()))

    return move


@pytest.mark.parametrize(("when", "move", "kind", "rule"), [
    (_phase(Phase.FIRST_UPCARD), _discard_in_draw_phase, "discard", "illegal-move:wrong_phase"),
    (_phase(Phase.DISCARD), _not_held, "discard", "illegal-move:card_not_in_hand"),
    (_phase(Phase.DISCARD), _false_gin, "gin", "illegal-move:false_gin"),
    (_phase(Phase.DISCARD), _knock_over_the_limit, "knock", "illegal-move:knock_over_limit"),
    (_phase(Phase.FIRST_UPCARD), _two_moves, "take_upcard", "out-of-turn"),
], ids=["wrong-phase", "card-not-held", "false-gin", "knock-over-limit", "out-of-turn"])
def test_illegal_moves_are_caught_on_receipt_by_the_engine(when: Any, move: Any, kind: str,
                                                           rule: str) -> None:  # fmt: skip
    link = play(cheater(""), players=(cheat_once(when, move),) * 2)
    a = role_of(link, "first")
    # a gin or knock carries the keys of the whole hand (else the rule would be
    # hidden-card): the engine judged the claim with the cards it revealed
    assert_caught(link, a, rule, kind)


# ---------------------------------------------------------------- equivocation


def _the_other_choice(p: PeerProtocol, h: HandFold, kind: str, body: Any) -> tuple[str, Any]:
    other = "take_upcard" if kind == "pass_upcard" else "pass_upcard"
    return other, ev.make(other, h.number, ())


def test_equivocation_is_caught_on_receipt_of_the_second_entry() -> None:
    link = play(cheater("pass_upcard take_upcard", twin=_the_other_choice))
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


# ---------------------------------------------------------------- stalling and claims


def waiting_since(side: Side) -> float:
    waits = [e for e in side.events if isinstance(e, Waiting)]
    assert waits
    return waits[-1].since


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
    other = make_pair(RULES, rng, claim_timeout=TIMEOUT, executor=POOL)
    rng.randbytes(1)
    other_link = FakeLink(*other, rng)
    other_link.start()
    step_until(other_link, lambda: len(other[GUEST].saved) >= 6)
    spliced = [w for w in other[GUEST].saved if Entry.from_wire(w).author == GUEST]
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
        len(spliced) - 1)
    for side in link.sides:
        assert side.proto.table.cheat is None and side.proto.table.finished
    assert host.proto.log == baseline.sides[HOST].proto.log  # the same game as without them
    # never stored; written into the file by somebody else, they are damage blaming nobody
    audited(host.saved, audit.Verdict.CLEAN)
    audited([*host.saved, *spliced], audit.Verdict.DAMAGED)


# ---------------------------------------------------------------- false disputes


def _dealt(link: FakeLink) -> bool:
    return all(all(h.dealt) for s in link.sides if (h := s.proto.table.hand) is not None)


@pytest.mark.parametrize("named", ["honest-lock", "made-up", "forged-twin"])
def test_a_false_dispute_forfeits_the_disputer(named: str) -> None:
    """A dispute of an entry that checks out, of an entry that does not exist, or of an
    equivocation whose "twin" the accused never signed (here, signed by the disputer)."""
    link = pair()
    link.start()
    step_until(link, lambda: _dealt(link) and not any(link.flight))
    x = GUEST  # the false disputer
    honest = link.sides[1 - x]
    lock = next(e for e in feed(honest, 1 - x) if e.kind == "lock")
    target = bytes(range(32)) if named == "made-up" else lock.id
    p = link.sides[x].proto
    evidence = []
    if named == "forged-twin":
        other = lock.fields._replace(body=lock.body._replace(proof=lock.body.proof[::-1]))
        evidence = [lock.wire, sign_entry(p.key, other).wire]
    rule = "equivocation" if evidence else "bad-lock-proof"
    body = ev.make("dispute", target, rule, "it does not check out", evidence)
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
    second = sign_entry(link.sides[b].proto.key,
                        challenge.fields._replace(body=challenge.body._replace(bits=bytes(bits))))
    cut = next(i for i, w in enumerate(side.saved) if Entry.from_wire(w) == challenge)
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
    log, table = Log(), Table(None, executor=POOL)
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


def _rewrap(wire: bytes) -> bytes:
    """The same signed entry in another (non-canonical) wrapper: str types, array16."""
    packed, sig = ev.decode_wire(wire)
    return b"\xdc\x00\x02" + msgpack.packb(packed, use_bin_type=False) + msgpack.packb(
        sig, use_bin_type=False)  # fmt: skip


def test_a_rewrapped_or_replayed_entry_is_a_duplicate_not_equivocation(baseline: FakeLink
                                                                       ) -> None:  # fmt: skip
    link = pair()
    link.start()
    step_until(link, lambda: _dealt(link))
    host, guest = link.sides
    copies = [w for w in guest.saved if Entry.from_wire(w).author == GUEST]
    for wire in copies:
        rewrapped = _rewrap(wire)
        assert rewrapped != wire and Entry.from_wire(rewrapped) == Entry.from_wire(wire)
        assert host.proto.log.add(rewrapped).outcome is Outcome.DUPLICATE
        link.inject(HOST, rewrapped)
        link.inject(HOST, wire)  # replayed as it was
    settle(link)
    assert host.dropped == [] and host.proto.log.equivocations == []
    for side in link.sides:
        assert side.proto.table.cheat is None and side.proto.table.finished
    assert host.proto.log == baseline.sides[HOST].proto.log
    # a file holding the copies too reads the same
    third = fold([*host.saved, *map(_rewrap, copies), *copies])
    assert third.cheat is None and summary(third) == summary(fold(host.saved))
    audited([*host.saved, *map(_rewrap, copies), *copies], audit.Verdict.CLEAN)


# ---------------------------------------------------------------- a damaged file


def _flip(data: bytes, at: int) -> bytes:
    out = bytearray(data)
    out[at] ^= 0x01
    return bytes(out)


def test_a_forged_or_altered_record_in_a_saved_file_is_damage_blaming_nobody(
    baseline: FakeLink,
) -> None:
    records = list(baseline.sides[GUEST].saved)
    clean = fold(records)
    assert clean.cheat is None and clean.finished
    i = next(i for i, w in enumerate(records) if kind_of(w) == "discard")
    e = Entry.from_wire(records[i])
    stranger = nacl.signing.SigningKey(bytes(32))
    altered_card = sign_entry(stranger, e.fields._replace(body=e.body._replace(
        card=(e.body.card + 1) % 52)))  # fmt: skip
    variants = {
        "bad signature": ev.encode_wire(e.packed, _flip(e.signature, 5)),
        "altered body": ev.encode_wire(_flip(e.packed, len(e.packed) - 40), e.signature),
        "forged by another key": altered_card.wire,
    }
    for what, bad in variants.items():
        damaged = [*records[:i], bad, *records[i + 1:]]
        _, added = Log.from_records(damaged)
        assert added[i].outcome is Outcome.DROPPED, what
        assert all(a.outcome is not Outcome.DROPPED for j, a in enumerate(added) if j != i)
        third = fold(damaged)
        assert third.cheat is None and not third.problems, what
        assert not third.finished  # the rest of that feed is held behind the gap
        assert third.placed_count < clean.placed_count
        audited(damaged, audit.Verdict.DAMAGED)
