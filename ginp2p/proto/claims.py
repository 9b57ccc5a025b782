"""Claims: what a player owes, and who wins the race between a claim that it is
overdue and the owed entry itself, judged by acknowledgements only (docs/log.md).

No clock can be checked, so the verdict reads only the entries: the live table, the
linear order (a claim that stands voids what acks it) and the audit all judge a claim
with :func:`judge_claim`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from ginp2p.proto import events as ev
from ginp2p.proto.entry import Entry

__all__ = ["ClaimVerdict", "Owed", "Verdict", "judge_claim"]


@dataclass(frozen=True, slots=True)
class Owed:
    """What a player owes: the next entry of ``author`` must be one of ``kinds``.

    The protocol knows what is owed (docs/protocol.md §2 lists it); the log only records it
    in a claim and judges the race.
    """

    author: int
    kinds: frozenset[str]
    what: str


class Verdict(StrEnum):
    """A claim's standing. OPEN: nothing from the owing player yet (it stands unless
    an entry sent before its author saw the claim still arrives)."""

    OPEN = "open"
    STANDS = "stands"
    BEATEN = "beaten"
    INVALID = "invalid"

    @property
    def takes_effect(self) -> bool:
        """Whether the claim ends the match (for now, while OPEN)."""
        return self in (Verdict.OPEN, Verdict.STANDS)


@dataclass(frozen=True, slots=True)
class ClaimVerdict:
    verdict: Verdict
    by: Entry | None = None
    reason: str = ""


def judge_claim(claim: Entry, owing: Sequence[Entry]) -> ClaimVerdict:
    """Who wins the race between a claim and the owed entry, by acknowledgements only.

    ``owing`` are the owing player's placed entries in seq order. No clock can be
    checked, so the owed entry beats a claim it does not ack (it may have crossed the
    claim on the wire: BEATEN); an entry of the owing player that acks the claim before
    the owed one makes it stand (STANDS); nothing yet leaves it OPEN (the match ends for
    now; the owed entry, when it comes without acking the claim, reopens it).
    """
    b = claim.body_as(ev.ClaimBody)
    if b.owed_author == claim.author or not b.kinds:
        return ClaimVerdict(Verdict.INVALID, None, "a claim names an opponent's entry kinds")
    if b.owed_seq not in (0, claim.ack_seq + 1):
        return ClaimVerdict(Verdict.INVALID, None, "owed_seq is not the next unseen entry")
    for e in owing:
        if e.author != b.owed_author or e.seq <= claim.ack_seq:
            continue
        if e.ack_seq >= claim.seq:
            return ClaimVerdict(Verdict.STANDS, e, "the owing player saw the claim first")
        if e.kind in b.kinds:
            return ClaimVerdict(
                Verdict.BEATEN, e, "the owed entry was sent before its author saw the claim"
            )
    return ClaimVerdict(Verdict.OPEN, None, "nothing from the owing player yet")
