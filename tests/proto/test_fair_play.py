"""Four ways a modified client once stole a match, each replayed against an honest peer.

Every entry the cheater sends here is validly signed with its own key; none needs a
hidden card. Each test checks what the honest player sees (its own table), and what a
third party concludes from the honest player's file and from both files together.

* A claim delivered before the move that makes it owed (and a run of decoy claims
  behind it) is admitted through the same steps as any entry: it waits for its
  predecessor, then is held back as early; the honest move beats it.
* A claimant who left is never made the loser by entries written after it left: the
  other player's back-dated move reopens the match, and a counter-claim has no effect
  until the claimant's feed acknowledges that move.
* A disputer's own steps are checked against its seeds before its seeds judge anyone
  else's keys.

None of these cheats is about the strength of the shuffle's proofs, so every game
here runs with FEW (2) cut-and-choose rounds, told to both peers and to the audit
(``min_k``): no test in this file keeps the real k.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from ginp2p.errors import LocalProtocolError
from ginp2p.game.rules import CLASSIC
from ginp2p.proto import events as ev
from ginp2p.proto import shuffle as sh
from ginp2p.proto.claims import Owed, Verdict
from ginp2p.proto.entry import GUEST, HOST, Entry, sign_entry
from ginp2p.proto.linear import MAX_CHAT_RUN
from ginp2p.proto.log import claim_body
from ginp2p.proto.outputs import Dropped, EarlyClaim, Save, Send
from ginp2p.proto.protocol import MAX_EARLY, PeerProtocol
from ginp2p.proto.state import PLAY_KINDS
from ginp2p.record import audit
from ginp2p.testing.fakelink import FakeLink, Side, bot_player, dealt, linked, settle, step_until

RULES = replace(CLASSIC, game_target=10)
TIMEOUT = 60
#: Cut-and-choose rounds of every game here (a test's choice, not the protocol's floor).
FEW = 2


def sent(out: list[Any]) -> list[Entry]:
    return [o.entry for o in out if isinstance(o, Send)]


def to_move(link: FakeLink) -> int:
    """Play until a move is owed, and return who owes it (nobody has moved for it yet)."""
    step_until(link, lambda: dealt(link) and any(s.proto.my_turn for s in link.sides))
    return next(me for me in (HOST, GUEST) if link.sides[me].proto.my_turn)


def cheater_to_move(seed: int = 3) -> tuple[FakeLink, int]:
    """A link at the cheater's turn in hand 1, where the cheater makes no move by itself
    (the test makes it); the honest side plays with the computer player."""
    link = linked(RULES, seed, players=(None, None), k=FEW, claim_timeout=TIMEOUT)
    link.start()
    first = to_move(link)
    link.players = (None, None)
    players: list[Any] = [None, None]
    players[1 - first] = bot_player
    link.players = (players[0], players[1])
    return link, first


def append(p: PeerProtocol, kind: str, body: Any) -> Entry:
    """Sign the cheater's next entry (kept in its own log, so its feed stays a chain)."""
    e = p.log.append(p.key, p.me, kind, body)
    p._refresh([])
    return e


def claim_by(p: PeerProtocol, what: str = "a move") -> Entry:
    owed = Owed(p.opponent, PLAY_KINDS, what)
    return append(p, "claim", claim_body(p.log, p.me, owed))


def deliver(side: Side, link: FakeLink, entries: list[Entry]) -> list[Any]:
    out: list[Any] = []
    for e in entries:
        o = side.proto.receive(e.wire, link.now)
        link.handle(side.proto.me, o)
        out += o
    return out


def audited(records: list[bytes], lazy: bool = True) -> audit.Report:
    return audit.audit_records(records, lazy_proofs=lazy, min_k=FEW)


def lost_by_claim(p: PeerProtocol) -> bool:
    return p.table.forfeited == (p.me, "claim")


# ------------------------------------------------------- claims out of order


def test_a_claim_delivered_before_the_move_that_makes_it_owed_is_beaten() -> None:
    link, c = cheater_to_move()
    cheat, honest = link.sides[c], link.sides[1 - c]
    link.now += 1
    move = sent(cheat.proto.act(bot_player(cheat.proto, cheat.proto.view())))  # type: ignore[arg-type]
    claim = claim_by(cheat.proto)
    out = deliver(honest, link, [claim, *move])  # the claim first: it waits for the move
    assert claim.id not in honest.proto.log, "the claim skipped the hold-back"
    assert [o for o in out if isinstance(o, EarlyClaim)], "the player is told it came early"
    assert honest.proto.table.forfeited is None and honest.proto.my_turn
    settle(link)  # the honest player moves; only then does the claim go into its log
    linear = honest.proto.log.linear()
    assert linear.claims[claim.id].verdict is Verdict.BEATEN
    assert honest.proto.table.forfeited is None
    for records in (honest.saved, honest.saved + cheat.saved):
        report = audited(records)
        assert report.end != "claim" and (report.cheat is None or report.cheat.author == c)


def test_a_claim_before_the_deal_sent_ahead_of_the_hello_is_held_back() -> None:
    """The guest signs its hello and a claim that the host owes its nonce, and delivers
    the claim first: the host would have forfeited before any card was dealt."""
    link = linked(RULES, 5, k=FEW, claim_timeout=TIMEOUT)
    host, guest = link.sides
    link.handle(HOST, host.proto.start(link.now))
    hello = link.flight[GUEST].pop()
    guest.proto.receive(hello, link.now)  # the guest's hello, signed but not delivered
    g = guest.proto
    assert g.log.hello(GUEST) is not None
    claim = append(g, "claim", claim_body(g.log, GUEST, g.table.owes(HOST)))  # type: ignore[arg-type]
    deliver(host, link, [claim, g.log.hello(GUEST)])  # type: ignore[list-item]
    assert host.proto.table.forfeited is None
    assert host.proto.log.linear().claims[claim.id].verdict is Verdict.BEATEN


def test_the_ninth_claim_does_not_get_through_the_hold_back() -> None:
    """Move j, eight decoy claims chained after the real one (j+2 … j+9), then the real
    claim (j+1): the decoys wait for their predecessor, the real one is held back, and
    the honest move beats them all. The player is told once, not nine times."""
    link, c = cheater_to_move()
    cheat, honest = link.sides[c], link.sides[1 - c]
    link.now += 1
    move = sent(cheat.proto.act(bot_player(cheat.proto, cheat.proto.view())))  # type: ignore[arg-type]
    real = claim_by(cheat.proto)
    decoys = [claim_by(cheat.proto, f"a move ({i})") for i in range(8)]
    out = deliver(honest, link, [*move, *decoys, real])
    assert len([o for o in out if isinstance(o, EarlyClaim)]) == 1
    assert all(x.id not in honest.proto.log for x in (real, *decoys))
    assert honest.proto.table.forfeited is None
    settle(link)
    claims = honest.proto.log.linear().claims
    assert {claims[x.id].verdict for x in (real, *decoys)} == {Verdict.BEATEN}
    assert honest.proto.table.forfeited is None


def test_early_claims_beyond_the_cap_are_refused_not_let_through() -> None:
    """Nine different claims at one seq (an equivocation), all early: eight are held,
    the ninth is dropped; none is in the log before the honest move."""
    link, c = cheater_to_move()
    cheat, honest = link.sides[c], link.sides[1 - c]
    link.now += 1
    move = sent(cheat.proto.act(bot_player(cheat.proto, cheat.proto.view())))  # type: ignore[arg-type]
    p = cheat.proto
    fields = p.log.next_fields(p.me, "claim", claim_body(p.log, p.me, Owed(1 - c, PLAY_KINDS, "x")))
    claims = [sign_entry(p.key, fields._replace(body=fields.body._replace(what=f"move {i}")))
              for i in range(MAX_EARLY + 1)]  # fmt: skip
    out = deliver(honest, link, [*move, *claims])
    assert len(honest.proto._early) == MAX_EARLY
    assert any(isinstance(o, Dropped) and "too soon" in o.reason for o in out)
    assert not any(x.id in honest.proto.log for x in claims)
    assert honest.proto.table.forfeited is None


# ------------------------------------------------------- back-dated claims


@pytest.mark.parametrize("saw_claim", [True, False], ids=["acks-the-claim", "concurrent"])
def test_a_claimant_who_left_reopens_a_back_dated_counter_claim_when_it_returns(
    saw_claim: bool,
) -> None:
    """The claimant leaves; the cheater writes the move it owed with the ack it had
    before the claim (so the claim reads as beaten) and a counter-claim. Until the
    claimant is back, the counter-claim is open, as any claim against a silent player
    is: the copies say so, incomplete. Back, the claimant owes its answer from when it
    reads the move, holds the counter-claim back, and its move beats it."""
    link, c = cheater_to_move()
    cheat, honest = link.sides[c], link.sides[1 - c]
    h = honest.proto
    link.now += TIMEOUT + 1
    claim = sent(h.claim(link.now))[0]
    honest.saved.append(claim.wire)  # (h.claim's Save, as the link would)
    assert h.table.forfeited == (c, "claim")
    left_at = link.now
    p = cheat.proto
    move = sent(p.act(bot_player(p, p.view())))  # type: ignore[arg-type]
    cheat.saved += [e.wire for e in move]
    if saw_claim:
        p.receive(claim.wire, link.now)
        cheat.saved.append(claim.wire)
    counter = claim_by(p)
    cheat.saved.append(counter.wire)
    assert audited(honest.saved).winner == 1 - c  # the claimant's copy: it won
    report = audited(honest.saved + cheat.saved)
    assert report.cheat is None and report.verdict is audit.Verdict.INCOMPLETE, report.text()
    # the claimant comes back: its table reopens the match, and its answer is due from now
    link.now += 10 * TIMEOUT
    honest.restart()
    h = honest.proto
    h.away(left_at)
    link.handle(h.me, h.start(link.now))
    deliver(honest, link, [*move, counter])
    assert_reopened(link, honest, counter)
    report = audited(honest.saved + cheat.saved)
    assert report.end != "claim" and report.cheat is None, report.text()


def test_a_claimant_still_there_answers_a_back_dated_move_before_a_counter_claim() -> None:
    """The same race live: the claimant has not left, and the move that beat its claim
    arrives with a counter-claim right behind it."""
    link, c = cheater_to_move()
    cheat, honest = link.sides[c], link.sides[1 - c]
    link.now += TIMEOUT + 1
    claim = sent(honest.proto.claim(link.now))[0]
    p = cheat.proto
    move = sent(p.act(bot_player(p, p.view())))  # type: ignore[arg-type]
    p.receive(claim.wire, link.now)
    counter = claim_by(p)
    link.now += 10 * TIMEOUT  # however late they come: they were written late
    deliver(honest, link, [*move, counter])
    assert_reopened(link, honest, counter)


def assert_reopened(link: FakeLink, honest: Side, counter: Entry) -> None:
    """The claimant's table: the match goes on, the counter-claim is held back (the
    claimant has owed for no time at all), and its move beats it."""
    h = honest.proto
    assert not lost_by_claim(h) and h.table.forfeited is None and h.my_turn
    assert counter.id not in h.log  # held back: it has owed for no time at all
    link.now += 1
    link.handle(h.me, h.act(bot_player(h, h.view())))  # type: ignore[arg-type]
    assert h.log.linear().claims[counter.id].verdict is Verdict.BEATEN
    assert not lost_by_claim(h)


def cheater_to_move_after_an_honest_entry() -> tuple[FakeLink, int]:
    """A link stopped where a player is to move whose last entry does not ack the other
    player's last one (that player is the cheater: it makes no move by itself)."""
    link = linked(RULES, 3, k=FEW, claim_timeout=TIMEOUT)
    link.start()

    def unacked_turn() -> bool:
        if link.flight[HOST] or link.flight[GUEST] or moves(link.sides[HOST].proto) < 2:
            return False
        return any(s.proto.my_turn and last_of(s.proto).ack_seq < s.proto.log.have()[1 - me]
                   for me, s in enumerate(link.sides))  # fmt: skip

    step_until(link, unacked_turn)
    link.players = (None, None)
    return link, next(me for me, s in enumerate(link.sides) if s.proto.my_turn)


def beaten_claim(p: PeerProtocol, what: str = "made up") -> Entry:
    """A claim of ``p``'s with its last ack, naming what the other player owed there
    and has since sent: beaten at once by that entry."""
    last = last_of(p)
    then = p.log.at(p.opponent, last.ack_seq + 1)[0]  # what the other player sent next
    owed = Owed(p.opponent, frozenset({then.kind}), what)
    body = claim_body(p.log, p.me, owed)._replace(owed_seq=last.ack_seq + 1)
    fields = p.log.next_fields(p.me, "claim", body)._replace(
        ack_seq=last.ack_seq, ack_id=last.ack_id
    )
    e = sign_entry(p.key, fields)
    p.log.add_entry(e)
    return e


def test_a_back_dated_claim_of_the_staller_does_not_undo_a_claim_against_it() -> None:
    """The cheater owes a move and is silent; the honest player claims. The cheater then
    signs a claim with its old ack, naming what the honest player owed there and long
    since sent: beaten at once by that entry, it changes nothing, and the claim against
    the cheater stands in every copy."""
    link, c = cheater_to_move_after_an_honest_entry()
    cheat, honest = link.sides[c], link.sides[1 - c]
    h, p = honest.proto, cheat.proto
    link.now += TIMEOUT + 1
    h.tick(link.now)
    claim = sent(h.claim(link.now))[0]
    honest.saved.append(claim.wire)
    late = beaten_claim(p)
    cheat.saved.append(late.wire)
    deliver(honest, link, [late])
    assert h.log.linear().claims[late.id].verdict is Verdict.BEATEN
    assert h.table.forfeited == (c, "claim") and h.table.cheat is None
    for records in (honest.saved, honest.saved + cheat.saved):
        report = audited(records)
        assert (report.winner, report.end) == (1 - c, "claim"), report.text()


# ------------------------------------------------------- a dispute after non-seed keys


class _OtherCardKeys(sh.HandSecrets):
    """Seeds whose per-card keys are not the ones the key seed gives (x is)."""

    def card_key(self, pos: int) -> bytes:
        return sh.scalar(self.perm_seed, "card", pos)


class _Keyswapper(PeerProtocol):
    """As the guest, locks and reveals with per-card keys not derived from its committed
    seeds: every check on receipt passes (the lock proof shows knowledge of *some*
    keys). As the host it plays honestly."""

    def _secrets(self, hand: int) -> tuple[sh.HandSecrets, list[Any]]:
        s, before = super()._secrets(hand)
        if self.me == GUEST and not isinstance(s, _OtherCardKeys):
            s = self._seeds[hand] = _OtherCardKeys(s.perm_seed, s.key_seed)
        return s, before


@pytest.mark.parametrize("lazy", [True, False], ids=["lazy-proofs", "every-proof"])
def test_a_dispute_by_a_player_whose_keys_do_not_follow_its_seeds_convicts_it(
    lazy: bool,
) -> None:
    c = GUEST
    link = linked(RULES, 3, _Keyswapper, k=FEW, claim_timeout=TIMEOUT)
    cheat, honest = link.sides[c], link.sides[1 - c]
    link.start()
    step_until(link, lambda: dealt(link) and moves(honest.proto) >= 3)
    assert honest.proto.table.cheat is None and cheat.proto.table.cheat is None
    settle_deliveries(link)
    p = cheat.proto
    h = p.table.hand
    assert h is not None
    named = next(e for e in reversed(p.log.linear().entries) if e.author == 1 - c)
    dispute = append(p, "dispute", ev.make("dispute", named.id, "not-a-card", "made up", []))
    s = p._seeds[h.number]
    opening = append(p, "open", ev.make("open", h.number, s.perm_seed, s.key_seed))
    cheat.saved += [dispute.wire, opening.wire]
    deliver(honest, link, [dispute, opening])
    for table in (honest.proto.table, p.table):
        assert table.cheat is not None and table.cheat.author == c, table.cheat
        assert table.cheat.rule.startswith("not-from-seeds"), table.cheat
    for records in (honest.saved, cheat.saved, honest.saved + cheat.saved):
        report = audited(records, lazy)
        assert report.cheat is not None and report.cheat.author == c, report.text()
        assert report.winner == 1 - c


def last_of(p: PeerProtocol) -> Entry:
    """The player's own last entry."""
    return p.log.at(p.me, p.log.have()[p.me])[0]


def moves(p: PeerProtocol) -> int:
    m = p.table.match
    return len(m.hand.moves) if m is not None and m.hand is not None else 0


def settle_deliveries(link: FakeLink) -> None:
    """Deliver what is in flight, without anybody making a move."""
    while link.deliver_one():
        pass


def test_stored_variants_after_a_fork_are_the_two_that_prove_it() -> None:
    """After a feed is convicted for a fork, more signed variants at that seq are not
    stored: the first two are the proof."""
    link, c = cheater_to_move()
    cheat, honest = link.sides[c], link.sides[1 - c]
    p = cheat.proto
    fields = p.log.next_fields(p.me, "chat", ev.make("chat", "x"))
    variants = [sign_entry(p.key, fields._replace(body=ev.make("chat", f"line {i}")))
                for i in range(50)]  # fmt: skip
    out = deliver(honest, link, variants)
    saves = [o for o in out if isinstance(o, Save) and o.entry.author == c]
    assert len(saves) == 2
    assert honest.proto.table.cheat is not None and honest.proto.table.cheat.author == c
    assert len(honest.proto.log.at(c, fields.seq)) == 2


def test_a_claim_the_log_cannot_judge_convicts_its_author() -> None:
    """A claim naming a seq that is not the next unseen one: an honest peer never signs
    one, and left unjudged such claims would pile up like an unbounded chat."""
    link, c = cheater_to_move()
    cheat, honest = link.sides[c], link.sides[1 - c]
    p = cheat.proto
    body = claim_body(p.log, p.me, Owed(1 - c, PLAY_KINDS, "a move"))
    bad = append(p, "claim", body._replace(owed_seq=body.owed_seq + 5))
    deliver(honest, link, [bad])
    cheat_found = honest.proto.table.cheat
    assert cheat_found is not None and (cheat_found.author, cheat_found.rule) == (c, "bad-claim")
    report = audited(honest.saved)
    assert report.cheat is not None and report.cheat.rule == "bad-claim"


def test_an_ender_sent_across_a_claim_does_not_make_the_claim_false() -> None:
    """The host owes a move and is silent; the guest claims; the host then signs a
    dispute as if it had crossed the claim (its ack from before it). Two concurrent
    enders place the host's first, and the dispute makes the host owe its seeds: but the
    claim is judged by what the guest had seen, when the host owed a move."""
    link, c = next(lc for seed in range(1, 40) if (lc := cheater_to_move(seed))[1] == HOST)
    cheat, honest = link.sides[c], link.sides[1 - c]
    h, p = honest.proto, cheat.proto
    link.now += TIMEOUT + 1
    claim = sent(h.claim(link.now))[0]
    honest.saved.append(claim.wire)
    named = next(e for e in reversed(p.log.linear().entries) if e.author == 1 - c)
    dispute = append(p, "dispute", ev.make("dispute", named.id, "not-a-card", "crossed", []))
    cheat.saved.append(dispute.wire)
    deliver(honest, link, [dispute])
    assert h.table.cheat is None and h.table.forfeited == (c, "claim")
    for records in (honest.saved, [*cheat.saved, claim.wire], honest.saved + cheat.saved):
        report = audited(records)
        assert report.cheat is None and report.winner == 1 - c, report.text()


def test_claims_beaten_at_once_are_bounded_like_chats() -> None:
    """A claim beaten at once has no effect; a run of them, with one ack and nothing
    from the other player between, is bounded as chats are (chat-flood)."""
    link, c = cheater_to_move_after_an_honest_entry()
    cheat, honest = link.sides[c], link.sides[1 - c]
    claims = [beaten_claim(cheat.proto, f"made up {i}") for i in range(MAX_CHAT_RUN + 5)]
    out = deliver(honest, link, claims)
    stored = [o.entry for o in out if isinstance(o, Save) and o.entry.author == c]
    assert len(stored) == MAX_CHAT_RUN + 1  # the last one is the proof of the flood
    found = honest.proto.table.cheat
    assert found is not None and (found.author, found.rule) == (c, "chat-flood")


def test_an_entry_acking_an_entry_never_written_is_dropped_not_judged() -> None:
    """A chat whose ack names an entry of the honest player's that it never wrote: the
    honest peer knows its own feed, drops it (its author still owes), and neither its
    table nor the audit of its file has anything to settle. (An ack that contradicts its
    author's own previous ack is kept instead: the two entries prove the problem.)"""
    link, c = cheater_to_move()
    cheat, honest = link.sides[c], link.sides[1 - c]
    p = cheat.proto
    fields = p.log.next_fields(c, "chat", ev.make("chat", "hi"))
    beyond = fields.ack_seq + 1  # a seq the honest player has not reached
    fake = sign_entry(p.key, fields._replace(ack_seq=beyond, ack_id=bytes(range(32))))
    out = deliver(honest, link, [fake])
    assert fake.id not in honest.proto.log
    assert any(isinstance(o, Dropped) and "never wrote" in o.reason for o in out)
    assert honest.proto.table.cheat is None
    assert audited(honest.saved).verdict is not audit.Verdict.DAMAGED


def test_a_player_back_from_a_crash_owes_what_came_meanwhile_from_its_last_write() -> None:
    """Unlike a claimant who left: a player whose program died mid-game, owing nothing
    then, comes back to the other's move and a claim made after the timeout. It was
    away all that time, so the claim is not early: it stands (the match was not over in
    its files, as it is for a claimant's)."""
    link, mover = cheater_to_move()
    gone, other = link.sides[1 - mover], link.sides[mover]
    gone_at = link.now
    p = other.proto
    move = sent(p.act(bot_player(p, p.view())))  # type: ignore[arg-type]
    link.now += TIMEOUT + 1
    p.tick(link.now)
    claim = sent(p.claim(link.now))[0]
    gone.restart()
    g = gone.proto
    g.away(gone_at)
    link.handle(g.me, g.start(link.now))
    out = deliver(gone, link, [*move, claim])
    assert not [o for o in out if isinstance(o, EarlyClaim)]
    assert claim.id in g.log and g.table.forfeited == (g.me, "claim")


def test_a_claim_naming_only_part_of_what_is_owed_is_false() -> None:
    """A claim naming one play kind the honest player will not use (declare_rumino in
    classic) could never be beaten by its move: a claim must name every kind that would
    fulfil the debt, or it is false."""
    link, c = cheater_to_move()
    cheat, honest = link.sides[c], link.sides[1 - c]
    p = cheat.proto
    link.now += 1
    move = sent(p.act(bot_player(p, p.view())))  # type: ignore[arg-type]
    part = append(p, "claim", claim_body(p.log, c, Owed(1 - c, frozenset({"declare_rumino"}),
                                                        "a move")))  # fmt: skip
    deliver(honest, link, [*move, part])
    settle(link)  # the honest player moves at once; then the claim is let in
    found = honest.proto.table.cheat
    assert found is not None and (found.author, found.rule) == (c, "false-claim")
    assert honest.proto.table.forfeited == (c, "cheat")


def test_a_player_who_wrote_to_a_silent_opponent_can_still_claim() -> None:
    """Chats and claims count together in the run bound: a player may write one line
    fewer than the bound, so that its claim after the timeout is never the flood."""
    link, c = cheater_to_move()
    honest = link.sides[1 - c]
    h = honest.proto
    written = 0
    with pytest.raises(LocalProtocolError, match="has written nothing since"):
        for i in range(MAX_CHAT_RUN):  # as many lines as the peer lets a player write
            link.handle(h.me, h.chat(f"are you there? ({i})"))
            written += 1
    assert written == MAX_CHAT_RUN - 1
    link.now += TIMEOUT + 1
    h.tick(link.now)
    link.handle(h.me, h.claim(link.now))
    assert h.table.cheat is None and h.table.forfeited == (c, "claim")
