"""The table's state and what it says from it: who owes which entry now, who lost by
forfeit, the hand as the observer sees it, and the events so far. The fold that builds
the state is :class:`~ginp2p.proto.table.Table`'s; the classes between the two
(:mod:`ginp2p.proto.judge`, :mod:`ginp2p.proto.cards`) add the checks of the shuffle
and of the cards.

A validly signed entry that breaks a rule raises :class:`_Broken` inside the fold; the
fold turns it into a :class:`~ginp2p.proto.results.Cheat` against its author.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any

from ginp2p.game import engine
from ginp2p.game import match as mt
from ginp2p.game.engine import HandState, PartialKnowledge
from ginp2p.game.match import MatchEnd, MatchState
from ginp2p.game.rules import RuleSet
from ginp2p.proto import events as ev
from ginp2p.proto import shuffle as sh
from ginp2p.proto.claims import ClaimVerdict, Owed
from ginp2p.proto.entry import GUEST, HOST, Entry
from ginp2p.proto.hand import HandFold
from ginp2p.proto.linear import Placed, Problem
from ginp2p.proto.results import NAMES, Cheat, CheatDetected, Event
from ginp2p.proto.text import KIND_WORDS

__all__ = [
    "OWED_GUEST_HELLO",
    "OWED_HOST_HELLO",
    "OWED_NONCE",
    "PLAY_KINDS",
    "SHOWING_KINDS",
    "FoldState",
    "TableBase",
]

#: What the set-up entries are called on a player's screen ("waiting for Bob: …"): the
#: hellos carry the host's rules and the guest's answer; the host's nonce, opened, is
#: its half of the coin that decides who deals first.
OWED_HOST_HELLO = "the host's start of the game (its rules)"
OWED_GUEST_HELLO = "the guest's answer to the host's rules"
OWED_NONCE = "the host's half of the coin toss for the first deal"
#: What the player to move may append in play (a resign is always allowed).
PLAY_KINDS = frozenset(ev.ACTION_KINDS)
#: The moves whose entry reveals its author's whole hand (the keys of every card in it).
SHOWING_KINDS = frozenset({"knock", "gin", "big_gin", "wall_knock", "show", "declare_rumino"})


class _Broken(Exception):
    """Raised inside the fold when the entry being folded breaks ``rule``."""

    def __init__(self, rule: str, detail: str, culprit: Entry | None = None) -> None:
        super().__init__(detail)
        self.rule, self.detail = rule, detail
        #: the entry that breaks the rule, when it is not the one being folded
        self.culprit = culprit


@dataclass
class FoldState:
    """Everything the fold has found so far; forked at each hand's start, so that a
    late entry refolds from there."""

    hellos: list[Entry | None] = field(default_factory=lambda: [None, None])
    game: bytes | None = None
    rules: RuleSet | None = None
    k: int = sh.K_DEFAULT
    claim_timeout: int = 120
    names: tuple[str, str] = NAMES
    host_nonce: bytes | None = None
    match: MatchState | None = None
    hand: HandFold | None = None
    hands: list[HandFold] = field(default_factory=list)
    cheat: Cheat | None = None
    #: disputes appended, as (disputer, entry id named, rule)
    disputes: list[tuple[int, bytes, str]] = field(default_factory=list)
    #: a dispute the table could not confirm yet: waits for the disputer's open
    pending_dispute: tuple[int, bytes, int, str] | None = None
    claims: list[Entry] = field(default_factory=list)
    resigned: int | None = None
    placed: dict[int, list[Entry]] = field(default_factory=lambda: {HOST: [], GUEST: []})
    events: list[tuple[int, Event]] = field(default_factory=list)

    def fork(self) -> FoldState:
        """A copy to restart from. Hands before the current one are finished and never
        change again, so they are shared; the current hand is copied."""
        new = copy.copy(self)
        new.hellos = list(self.hellos)
        new.hands = [*self.hands[:-1], *(copy.deepcopy(h) for h in self.hands[-1:])]
        new.hand = new.hands[-1] if self.hand is not None else None
        new.placed = {a: list(v) for a, v in self.placed.items()}
        new.events = list(self.events)
        new.disputes = list(self.disputes)
        new.claims = list(self.claims)
        return new


class TableBase:
    """The table's state (set by :class:`~ginp2p.proto.table.Table`'s constructor) and
    what a reader asks of it."""

    viewer: int | None
    lazy_proofs: frozenset[int]
    executor: Executor | None
    problems: tuple[Problem, ...]
    _seeds: Callable[[int], sh.HandSecrets | None]
    _s: FoldState
    _order: list[Placed]  # what was folded, in order
    _snaps: list[tuple[int, FoldState]]  # where a refold may start: (index, state)
    _cache: dict[Any, Any]
    _claim_verdicts: dict[bytes, ClaimVerdict]

    # -- reading ------------------------------------------------------------------
    @property
    def game(self) -> bytes | None:
        return self._s.game

    @property
    def rules(self) -> RuleSet | None:
        return self._s.rules

    @property
    def k(self) -> int:
        return self._s.k

    @property
    def claim_timeout(self) -> int:
        return self._s.claim_timeout

    @property
    def names(self) -> tuple[str, str]:
        return self._s.names

    @property
    def match(self) -> MatchState | None:
        return self._s.match

    @property
    def hand(self) -> HandFold | None:
        """The hand being set up, played or closed (the last one begun)."""
        return self._s.hand

    @property
    def hands(self) -> list[HandFold]:
        return self._s.hands

    @property
    def cheat(self) -> Cheat | None:
        return self._s.cheat

    @property
    def disputes(self) -> list[tuple[int, bytes, str]]:
        return self._s.disputes

    @property
    def claims(self) -> list[Entry]:
        """The claims that took effect (standing or open), in order."""
        return self._s.claims

    @property
    def pending_dispute(self) -> tuple[int, bytes, int, str] | None:
        return self._s.pending_dispute

    @property
    def events(self) -> list[tuple[int, Event]]:
        """(index in the linear order, event), for every event so far."""
        return self._s.events

    @property
    def checks(self) -> dict[Any, Any]:
        """The shuffle checks run so far, by what they checked (see ``checks=``)."""
        return self._cache

    @property
    def placed_count(self) -> int:
        return len(self._order)

    @property
    def finished(self) -> bool:
        """The match is over and nothing more is owed. A claim, a resign or a cheat
        ends it even before the first deal, when there is no match state yet."""
        s = self._s
        over = s.match is not None and s.match.over
        return (over or self.forfeited is not None) and not self.owed()

    @property
    def forfeited(self) -> tuple[int, str] | None:
        """Who lost the match by forfeit and how ("cheat", "resign", "claim"), also
        before the first deal (when there is no match state to say it); else None."""
        s = self._s
        if s.cheat is not None:
            return s.cheat.author, "cheat"
        if s.resigned is not None:
            return s.resigned, "resign"
        if s.claims:
            return s.claims[-1].body_as(ev.ClaimBody).owed_author, "claim"
        return None

    def hand_state(self) -> HandState | None:
        """The engine's hand with everything the observer knows (None between hands)."""
        s = self._s
        if s.match is None or s.match.hand is None or s.hand is None:
            return None
        if s.hand.number != s.match.hand_no:
            return None  # the next hand is being shuffled
        return s.match.hand.with_knowledge(PartialKnowledge(dict(s.hand.known)))

    def owed(self) -> list[Owed]:
        """Who owes which entry now (docs/protocol.md §2's list); empty when nothing is."""
        s = self._s
        if s.hellos[HOST] is None:
            return [Owed(HOST, frozenset({"hello"}), OWED_HOST_HELLO)]
        if s.hellos[GUEST] is None:
            return [Owed(GUEST, frozenset({"hello"}), OWED_GUEST_HELLO)]
        if self.forfeited is not None:  # (a claim on the nonce ends it before any deal)
            return []
        if s.host_nonce is None:
            return [Owed(HOST, frozenset({"nonce"}), OWED_NONCE)]
        if s.pending_dispute is not None:
            owing, _, hand, _ = s.pending_dispute
            return [Owed(owing, frozenset({"open"}), f"the seeds of hand {hand} (disputed)")]
        h, m = s.hand, s.match
        if h is None or m is None:
            return []
        kind, who = h.stage()
        if kind == "done":
            return []
        if kind == "play":
            if h.pending_stock is not None:
                pos, drawer = h.pending_stock
                return [Owed(1 - drawer, frozenset({"stock_key"}), f"the key for stock card {pos}")]
            hs = m.hand
            assert hs is not None
            what = "a show" if hs.phase is engine.Phase.SHOW else "a move"
            return [Owed(hs.to_move, PLAY_KINDS, f"{what} in hand {h.number}")]
        what = KIND_WORDS[kind]  # "a commitment", "the opening of the seeds"
        return [Owed(p, frozenset({kind}), f"{what} for hand {h.number}") for p in who]

    def owes(self, player: int) -> Owed | None:
        return next((o for o in self.owed() if o.author == player), None)

    # -- what every part of the fold does ---------------------------------------------
    def _emit(self, event: Event) -> None:
        self._s.events.append((len(self._order) - 1, event))

    def _convict(self, cheat: Cheat) -> None:
        s = self._s
        if s.cheat is not None:
            return
        s.cheat = cheat
        if s.match is not None:  # found at the last hand's openings too: still a forfeit
            s.match = mt.forfeit(s.match, cheat.author, MatchEnd.CHEAT)
        self._emit(CheatDetected(cheat))

    def _checked(self, key: Any, check: Callable[[], None]) -> None:
        """Run a shuffle check once per key; a failure is the entry's author's."""
        if key not in self._cache:
            try:
                check()
                self._cache[key] = None
            except sh.ShuffleError as exc:
                self._cache[key] = exc
        error = self._cache[key]
        if error is not None:
            raise _Broken(error.reason, error.message)  # the code is the rule, not words

    def _hand_of(self, e: Entry) -> HandFold:
        h = self._s.hand
        assert h is not None
        if e.hand != h.number:
            raise _Broken(
                "wrong-hand",
                f"{KIND_WORDS.get(e.kind, e.kind)} for hand {e.hand} during hand {h.number}",
            )
        return h
