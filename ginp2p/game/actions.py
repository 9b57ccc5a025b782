"""What a player can do in a hand: one frozen dataclass per action.

Each action's ``kind`` names it on the wire, in the log and in words
(``DrawStock.kind == "draw_stock"``). :data:`Action` is the union of them all; the
engine (:func:`ginp2p.game.engine.apply`) decides whether one is allowed now.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ginp2p.game.cards import Card
from ginp2p.game.melds import Layoff, Meld

__all__ = [
    "Action",
    "BigGin",
    "DeclareRumino",
    "Discard",
    "DrawDiscard",
    "DrawStock",
    "Gin",
    "Knock",
    "PassUpcard",
    "Resign",
    "Show",
    "TakeUpcard",
    "WallKnock",
    "WallPass",
]


@dataclass(frozen=True, slots=True)
class PassUpcard:
    """Decline the first upcard (the pass round)."""

    kind: ClassVar[str] = "pass_upcard"


@dataclass(frozen=True, slots=True)
class TakeUpcard:
    """Take the first upcard in the pass round."""

    kind: ClassVar[str] = "take_upcard"


@dataclass(frozen=True, slots=True)
class DrawStock:
    """Draw the next card of the stock."""

    kind: ClassVar[str] = "draw_stock"


@dataclass(frozen=True, slots=True)
class DrawDiscard:
    """Take the top of the discard pile."""

    kind: ClassVar[str] = "draw_discard"


@dataclass(frozen=True, slots=True)
class Discard:
    """Throw ``card`` onto the discard pile, ending the turn."""

    card: Card
    kind: ClassVar[str] = "discard"


@dataclass(frozen=True, slots=True)
class Knock:
    """Discard face down and lay out ``melds``; every other card is deadwood.

    ``discard`` is ``None`` where the knock replaces the draw (rumino). A knock after
    the draw whose declared deadwood is zero is scored as a gin; a knock instead of
    the draw is a knock at any deadwood (rumino's gin is :class:`Gin`, after drawing).
    """

    discard: Card | None
    melds: tuple[Meld, ...]
    kind: ClassVar[str] = "knock"


@dataclass(frozen=True, slots=True)
class Gin:
    """A knock that claims every remaining card is melded."""

    discard: Card
    melds: tuple[Meld, ...]
    kind: ClassVar[str] = "gin"


@dataclass(frozen=True, slots=True)
class BigGin:
    """All cards melded right after the draw; nothing is discarded."""

    melds: tuple[Meld, ...]
    kind: ClassVar[str] = "big_gin"


@dataclass(frozen=True, slots=True)
class WallKnock:
    """At the wall: take the upcard, then knock with ``discard`` and ``melds``."""

    discard: Card
    melds: tuple[Meld, ...]
    kind: ClassVar[str] = "wall_knock"


@dataclass(frozen=True, slots=True)
class WallPass:
    """At the wall: decline the upcard; the hand ends unscored."""

    kind: ClassVar[str] = "wall_pass"


@dataclass(frozen=True, slots=True)
class Show:
    """The defender's declaration (or each player's, when the stock ran out)."""

    melds: tuple[Meld, ...]
    layoffs: tuple[Layoff, ...] = ()
    kind: ClassVar[str] = "show"


@dataclass(frozen=True, slots=True)
class DeclareRumino:
    """Seven cards of a straight flush or of one rank after the draw: the match is won."""

    discard: Card
    kind: ClassVar[str] = "declare_rumino"


@dataclass(frozen=True, slots=True)
class Resign:
    """Either player, at any time: forfeits the match."""

    player: int
    kind: ClassVar[str] = "resign"


Action = (
    PassUpcard | TakeUpcard | DrawStock | DrawDiscard | Discard | Knock | Gin | BigGin
    | WallKnock | WallPass | Show | DeclareRumino | Resign
)  # fmt: skip
