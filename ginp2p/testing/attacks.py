"""The named attacks: every strategy that broke a property of the honest peer so far.

Each was found by the adversary (:mod:`ginp2p.testing.adversary`), fixed in the
protocol, and is kept as a regression test (tests/proto/test_adversary.py) and in
``scripts/adversary.py --known``. All play in world 0.
"""

from __future__ import annotations

from ginp2p.proto.entry import GUEST, HOST
from ginp2p.proto.protocol import MAX_EARLY
from ginp2p.testing.strategies import (
    TIMEOUT,
    Claim,
    Deliver,
    Dispute,
    Equivocate,
    Garbage,
    Honest,
    Leave,
    Refuse,
    Resume,
    Stall,
    Strategy,
    Wait,
    Withhold,
)

#: Strategies that broke a property of the peer this module was written against, one per
#: attack (world 0). Each is a regression test.
KNOWN: dict[str, Strategy] = {
    # a move at seq j and a claim at j+1, the claim delivered first: held ahead of its
    # gap, it was stored behind the move without the early-claim hold, open at once
    "claim-before-its-move": Strategy(
        0, GUEST, choices=(Honest(5), Claim(1, after_move=True), *[Deliver(2, "reverse")] * 4)
    ),
    # the move, then decoy claims at j+2..j+9 (held back: the cap is full), then the
    # real claim at j+1, which the full hold let through
    "decoy-claims": Strategy(
        0,
        HOST,
        choices=(
            Honest(5),
            Claim(MAX_EARLY + 1, after_move=True),
            Deliver(1),
            Deliver(1),
            *[Deliver(10, "second-last")] * 4,
        ),
    ),
    # the honest player claims and leaves; the cheater's move made before it saw the
    # claim beats it, and its counter-claim made the absent claimant the loser
    "counter-claim-while-away": Strategy(
        0, HOST, choices=(Honest(3), Leave(), Wait(TIMEOUT + 1), Claim(1), Resume())
    ),
    # a lock with keys not from the committed seeds, a false dispute, the genuine seeds
    # opened: the keys the honest player published no longer read as cards
    "fake-lock-then-dispute": Strategy(
        0, HOST, fake_lock=True, choices=(Honest(6), Dispute(6), Honest(3))
    ),
    # three more signed variants at a seq already forked: each was stored
    "variants-after-a-fork": Strategy(0, HOST, choices=(Honest(3), Equivocate(0, 3), Deliver(0))),
    # a false dispute whose opening never comes, placed (an ender racing the honest
    # player's beaten claim, host first) before the honest player's next owed entry,
    # which had not seen it: that entry was judged out of turn
    "dispute-never-opened": Strategy(
        0,
        HOST,
        choices=(Honest(3), Dispute(3), Refuse("open"), Wait(TIMEOUT + 1), Deliver(1), Deliver(1)),
    ),
    # a false dispute racing a fair claim of the honest player (the cheater stalled its
    # move past the timeout): the two enders are concurrent, the host's goes first, and
    # the claim, judged after the dispute, names a move when the opening is owed
    "dispute-racing-a-claim": Strategy(
        0,
        HOST,
        choices=(Honest(7), Stall(40), Refuse("open"), Dispute(3), Wait(TIMEOUT + 1), Deliver(1)),
    ),
    # a premature claim, held back and beaten by the honest move, then silence: a claim
    # against a claimant whose own claim was beaten waits until its feed acks the entry
    # that beat it, which a silent cheater never does, so the match never ends
    "claim-then-silence": Strategy(
        0,
        HOST,
        choices=(Honest(5), Claim(1, after_move=True), Deliver(0), Deliver(0), Refuse("all")),
    ),
    # an entry acking an id nobody holds: the honest table convicted the cheater of a bad
    # ack and ended the match, the audits called it damage with no winner
    "ack-of-a-made-up-entry": Strategy(
        0, GUEST, choices=(Honest(2), Garbage("bad-ack", 0), Deliver(0))
    ),
    # an entry acking a made-up id and a twin of it, the twin delivered first: the honest
    # player disputes the twin (bad-ack), with no evidence; the cheater's copy never held
    # the twin, so its audit calls the dispute false (and both copies name another rule)
    "dispute-naming-a-twin": Strategy(
        0,
        GUEST,
        choices=(Deliver(0), Garbage("bad-ack", 0), Equivocate(0, 1), Deliver(0, "reverse")),
    ),
    # the honest player receives an equivocation twin first and disputes the chain break
    # that follows (no evidence): the cheater's own table convicts it of a bad ack
    "twin-seen-first": Strategy(
        0, HOST, choices=(Honest(3), Equivocate(0, 1), Withhold(0, 0), Deliver(0), Honest(2))
    ),
}
