"""One hand's state and the engine's errors.

The engine deals *positions*, not cards: the non-dealer holds positions
``0..h-1``, the dealer ``h..2h-1``, position ``2h`` is the first upcard and the
rest is the stock, drawn in order. Which card lies at a position is
:class:`Knowledge`, carried in the state but never needed until a card is shown:
a discard, a knock, a layoff. A fully known deck (bots, tests, OpenSpiel replays)
and a player's partial view of a masked deck go through the same code, so both
peers and the auditor apply exactly the same rules.

This module holds the data: :class:`HandState` and what it is made of (the
knowledge, the phase, each player's declaration, the result). The moves that change
it are in :mod:`ginp2p.game.transitions`, called through
:func:`ginp2p.game.engine.apply`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from enum import StrEnum
from typing import Any, Protocol

from ginp2p.errors import Ginp2pError
from ginp2p.game.actions import Action
from ginp2p.game.cards import Card
from ginp2p.game.melds import Layoff, Meld
from ginp2p.game.rules import RuleSet

__all__ = [
    "DeckKnowledge",
    "Declaration",
    "EngineError",
    "HandEnd",
    "HandResult",
    "HandState",
    "HiddenCard",
    "IllegalAction",
    "Knowledge",
    "PartialKnowledge",
    "Phase",
    "may_lay_off",
    "replace_state",
]


# --------------------------------------------------------------------------- errors


class EngineError(Ginp2pError):
    """Base of the engine's errors."""


class IllegalAction(EngineError):
    """An action the rules do not allow. ``rule`` names the rule broken.

    Neither a :class:`~ginp2p.errors.LocalProtocolError` nor a
    :class:`~ginp2p.errors.RemoteProtocolError`: the engine judges an action without
    knowing who chose it. The same rule refuses a player's own mistyped move (say so
    and let them try again), the other peer's move (the protocol layer turns it into
    a refused entry and evidence of a cheat) and a move in a saved log (the auditor
    reports it). Whoever calls :func:`ginp2p.game.engine.apply` knows which it is and
    decides.
    """

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(message)
        self.rule = rule


class HiddenCard(EngineError):
    """The engine needed a card this state's knowledge does not have.

    Not a rule violation: the caller failed to reveal a card (for example a
    knocker's hand) before applying the action that shows it.
    """


# ------------------------------------------------------------------------ knowledge


class Knowledge(Protocol):
    """Which card sits at a deck position, as far as this observer knows."""

    def card_at(self, pos: int) -> Card | None: ...


@dataclass(frozen=True, slots=True)
class DeckKnowledge:
    """A deck whose every position is known: bot games, tests, a full audit."""

    order: tuple[Card, ...]

    def card_at(self, pos: int) -> Card | None:
        return self.order[pos]


@dataclass(frozen=True, slots=True)
class PartialKnowledge:
    """Some positions known: a player's own cards and every public card."""

    known: Mapping[int, Card] = field(default_factory=dict)

    def card_at(self, pos: int) -> Card | None:
        return self.known.get(pos)

    def revealed(self, cards: Mapping[int, Card]) -> PartialKnowledge:
        """A copy that also knows ``cards``; the original is unchanged."""
        merged = dict(self.known)
        merged.update(cards)
        return PartialKnowledge(merged)


# --------------------------------------------------------------------------- state


class Phase(StrEnum):
    FIRST_UPCARD = "first_upcard"  # the pass round
    DRAW = "draw"
    DISCARD = "discard"
    WALL = "wall"
    SHOW = "show"  # a player must declare melds (and layoffs)
    OVER = "over"


class HandEnd(StrEnum):
    KNOCK = "knock"
    GIN = "gin"
    BIG_GIN = "big_gin"
    UNDERCUT = "undercut"
    STOCK_VOID = "stock_void"  # the stock ran low: no score, redeal
    STOCK_COUNT = "stock_count"  # the stock ran out: both count, lower scores
    WALL_PASS = "wall_pass"
    REPEATED_DISCARD = "repeated_upcard_discard"
    MAX_DISCARD_DRAWS = "max_draw_upcard"
    RUMINO = "rumino"
    RESIGN = "resign"


@dataclass(frozen=True, slots=True)
class Declaration:
    """What one player laid out at the end of a hand."""

    melds: tuple[Meld, ...]
    layoffs: tuple[Layoff, ...]
    deadwood_cards: tuple[Card, ...]
    deadwood: int


@dataclass(frozen=True, slots=True)
class HandResult:
    """The outcome of one hand, as the score sheet records it.

    ``points`` are what each player adds to their game score (own deadwood
    under ``own_deadwood`` scoring, where low is good); ``returns`` are the
    zero-sum form, positive for the player who did better.
    """

    end: HandEnd
    knocker: int | None
    points: tuple[int, int]
    returns: tuple[int, int]
    declarations: tuple[Declaration | None, Declaration | None] = (None, None)
    gin: bool = False
    undercut: bool = False
    #: Who ended the hand other than by a knock: who passed at the wall or resigned
    #: (None for any other end), so that the words can name them, as they name a knocker.
    ended_by: int | None = None
    #: The knock took the upcard at the wall (openspiel), where the stock is not drawn.
    at_the_wall: bool = False

    @property
    def scored(self) -> bool:
        return any(self.points)

    @property
    def winner(self) -> int | None:
        """The player who won the hand, if anybody did."""
        if self.returns[0] > 0:
            return 0
        if self.returns[1] > 0:
            return 1
        return None


@dataclass(frozen=True, slots=True)
class HandState:
    """One hand: who holds which positions, the pile, the stock, whose move."""

    rules: RuleSet
    dealer: int
    knowledge: Knowledge
    hands: tuple[tuple[int, ...], tuple[int, ...]]
    discard_pile: tuple[int, ...]
    stock_next: int
    phase: Phase
    to_move: int
    passed: tuple[bool, bool] = (False, False)
    #: Position taken from the discard pile this turn (may not be discarded again).
    taken: int | None = None
    discard_draws: int = 0
    repeated: bool = False
    knocker: int | None = None
    #: Declarations made so far at the showdown, by player.
    declarations: tuple[Declaration | None, Declaration | None] = (None, None)
    #: Players still to show, in order.
    showing: tuple[int, ...] = ()
    end: HandEnd | None = None
    result: HandResult | None = None
    #: Positions each player took from the discard pile (public knowledge).
    picked: tuple[tuple[int, ...], tuple[int, ...]] = ((), ())
    #: Positions every observer has seen: discards, the first upcard, shown hands.
    shown: frozenset[int] = frozenset()
    #: Every action of the hand with its player, for views and the bot.
    moves: tuple[tuple[int, Action], ...] = ()

    # -- derived views --------------------------------------------------------------
    @property
    def stock_left(self) -> int:
        return self.rules.deck_size - self.stock_next

    @property
    def upcard(self) -> Card | None:
        """The card on top of the discard pile, if any."""
        if not self.discard_pile:
            return None
        return self.knowledge.card_at(self.discard_pile[-1])

    @property
    def non_dealer(self) -> int:
        return 1 - self.dealer

    @property
    def over(self) -> bool:
        return self.phase is Phase.OVER

    def cards(self, player: int) -> list[Card | None]:
        """The player's cards as this state's knowledge sees them (None: hidden)."""
        return [self.knowledge.card_at(p) for p in self.hands[player]]

    def known_cards(self, player: int) -> list[Card]:
        """The player's cards; raises :class:`HiddenCard` if any is unknown."""
        out = []
        for pos in self.hands[player]:
            card = self.knowledge.card_at(pos)
            if card is None:
                raise HiddenCard(f"position {pos} of player {player}'s hand is not known")
            out.append(card)
        return out

    def pile_cards(self) -> list[Card | None]:
        return [self.knowledge.card_at(p) for p in self.discard_pile]

    def with_knowledge(self, knowledge: Knowledge) -> HandState:
        """The same table seen with other knowledge (a player's view, an auditor's)."""
        return replace_state(self, knowledge=knowledge)

    def view(self, player: int) -> HandState:
        """What ``player`` may know: their own cards and every shown card.

        Bots and tests play from this view so that no decision can depend on a
        hidden card, whatever the state's own knowledge holds.
        """
        k = self.knowledge
        visible = set(self.hands[player]) | self.shown
        known = {pos: c for pos in visible if (c := k.card_at(pos)) is not None}
        return replace_state(self, knowledge=PartialKnowledge(known))

    def position_of(self, player: int, card: Card) -> int:
        """The position in ``player``'s hand that holds ``card``."""
        for pos in self.hands[player]:
            if self.knowledge.card_at(pos) == card:
                return pos
        others = [
            c
            for pos in self.hands[player]
            if (c := self.knowledge.card_at(pos)) is not None and c.code == card.code
        ]
        if others:  # a multi-deck: the other copy is held, so say which is which
            held = ", ".join(c.pretty() for c in others)
            raise IllegalAction(
                "card_not_in_hand",
                f"{card.pretty()} is not in the hand; it holds the other copy, {held}",
            )
        raise IllegalAction("card_not_in_hand", f"{card.pretty()} is not in the hand")


_STATE_FIELDS = tuple(f.name for f in fields(HandState))
_STATE_FIELD_SET = frozenset(_STATE_FIELDS)
_set = object.__setattr__


def replace_state(state: HandState, **changes: Any) -> HandState:
    """``dataclasses.replace`` for a HandState, about three times faster: every move
    folds through several of these, on the path from one player's click to the other's
    screen. Safe because HandState is frozen, slotted and has no ``__post_init__``."""
    if not changes.keys() <= _STATE_FIELD_SET:
        raise TypeError(f"HandState has no field {sorted(changes.keys() - _STATE_FIELD_SET)}")
    new = object.__new__(HandState)
    for name in _STATE_FIELDS:
        _set(new, name, changes[name] if name in changes else getattr(state, name))
    return new


def may_lay_off(state: HandState) -> bool:
    """Whether the player to show may lay off onto the knocker's melds: the rules allow
    layoffs, somebody knocked (not a gin, a big gin or a count at the end of the stock)
    and the player to move is not the knocker."""
    if not state.rules.layoffs or state.knocker is None:
        return False
    if state.end in (HandEnd.GIN, HandEnd.BIG_GIN, HandEnd.STOCK_COUNT):
        return False
    return state.to_move != state.knocker
