"""What a fold of the log tells its readers: the events of the game as the table
finds them (a deal, a move, a hand scored, the match over, a chat line) and the proof
of a cheat. The table emits them; the console, the replay and the audit read them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ginp2p.game.cards import Card
from ginp2p.game.engine import Action, HandResult
from ginp2p.game.match import MatchEnd

__all__ = [
    "NAMES",
    "Chatted",
    "Cheat",
    "CheatDetected",
    "Event",
    "HandDealt",
    "HandScored",
    "MatchOver",
    "Moved",
    "moves_since",
]

NAMES = ("host", "guest")


@dataclass(frozen=True, slots=True)
class Cheat:
    """A validly signed entry that breaks a rule: the proof against ``author``."""

    author: int
    entry: bytes  # the entry's id
    seq: int
    hand: int
    rule: str  # a short code: bad-shuffle-proof, illegal-move, out-of-turn, ...
    detail: str  # for people

    def describe(self, names: Sequence[str] = NAMES) -> str:
        where = f"hand {self.hand}, " if self.hand else ""
        return (
            f"{names[self.author]} cheated ({where}{NAMES[self.author]} entry {self.seq}): "
            f"{self.detail}"
        )


@dataclass(frozen=True, slots=True)
class HandDealt:
    """A hand's cards reached the players; ``cards`` are the observer's own, if known."""

    hand: int
    dealer: int
    cards: tuple[Card, ...] | None
    upcard: Card | None


@dataclass(frozen=True, slots=True)
class Moved:
    """A player's engine action was applied. ``card``: the card drawn (if the observer
    may see it) or discarded."""

    player: int
    action: Action
    card: Card | None = None


@dataclass(frozen=True, slots=True)
class HandScored:
    hand: int
    result: HandResult
    scores: tuple[int, int]


@dataclass(frozen=True, slots=True)
class MatchOver:
    winner: int | None
    end: MatchEnd
    totals: tuple[int, int] | None


@dataclass(frozen=True, slots=True)
class CheatDetected:
    cheat: Cheat


@dataclass(frozen=True, slots=True)
class Chatted:
    player: int
    text: str


Event = HandDealt | Moved | HandScored | MatchOver | CheatDetected | Chatted


def moves_since(events: Sequence[tuple[int, Event]], player: int) -> tuple[list[Moved], bool]:
    """The moves of the last hand dealt after ``player``'s own last one (the whole hand's
    if none), and whether there was one: what a player who resumes has not been told."""
    deals = [i for i, (_, e) in enumerate(events) if isinstance(e, HandDealt)]
    if not deals:
        return [], False
    moves = [e for _, e in events[deals[-1] + 1 :] if isinstance(e, Moved)]
    ours = [i for i, e in enumerate(moves) if e.player == player]
    return (moves[ours[-1] + 1 :], True) if ours else (moves, False)
