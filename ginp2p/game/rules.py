"""The rules of every variant, as data.

A :class:`RuleSet` names every way the variants in RULES.md differ. The engine,
the meld solver and the bot read these fields and never the preset's name, so a
new variant is a new ``RuleSet`` value, not new code.

The defaults are the ``classic`` preset's values.
"""

from __future__ import annotations

import types
from dataclasses import asdict, dataclass, fields, replace
from typing import Any, Literal, get_args, get_origin, get_type_hints

__all__ = ["PRESETS", "RuleSet", "get_preset"]

Scoring = Literal["difference", "lower_scores", "own_deadwood"]
StockEnd = Literal["void", "count", "wall"]
MatchEnd = Literal["target", "bust"]
BoxTo = Literal["winner", "each"]
DealerRotation = Literal["alternate", "fixed"]


@dataclass(frozen=True, slots=True)
class RuleSet:
    """Every setting a hand or a match of Gin Rummy depends on."""

    name: str = "classic"

    # -- deck and deal --------------------------------------------------------
    #: 52, 104 (two decks) or 108 (two decks and four jokers).
    deck_size: int = 52
    hand_size: int = 10

    # -- melds ----------------------------------------------------------------
    #: Q-K-A is a run as well as A-2-3 (never K-A-2).
    ace_high: bool = False
    #: Longest run that may be declared as one meld (None: no limit).
    max_run_length: int | None = None
    #: Jokers are wild; at most this many in one meld.
    jokers_per_meld: int = 1
    #: Deadwood value of a joker left unmatched.
    joker_value: int = 10

    # -- the first turn and ordinary turns ------------------------------------
    #: Non-dealer, then dealer, may take the first upcard; if both pass the
    #: non-dealer draws from the stock. Without it the first turn is ordinary.
    upcard_pass_round: bool = True
    #: A card just taken from the discard pile may be discarded at once.
    discard_taken_card: bool = False

    # -- knocking and the showdown --------------------------------------------
    #: Most deadwood a knocker may keep (None: a player may close at any time).
    knock_limit: int | None = 10
    #: The knock replaces the draw and has no discard (rumino).
    knock_instead_of_draw: bool = False
    #: The defender may lay off onto the knocker's melds (never after a gin).
    layoffs: bool = True
    #: At most this many cards laid off at each end of one declared run.
    layoffs_per_run_end: int | None = None
    #: A player whose 11 cards all meld right after the draw may show them all.
    big_gin_bonus: int | None = 31

    # -- scoring ----------------------------------------------------------------
    #: ``difference``: the knocker scores the deadwood difference (undercut rules
    #: apply); ``lower_scores``: whoever has less deadwood scores the difference;
    #: ``own_deadwood``: each player adds their own deadwood (low is good).
    scoring: Scoring = "difference"
    #: Added to the knocker's points for a gin (``own_deadwood``: added to the
    #: ginner's own total, so rumino's -10 is a gain).
    gin_bonus: int = 25
    #: Bonus to a defender who undercuts the knocker.
    undercut_bonus: int = 25
    #: Equal deadwood counts as an undercut (else nobody scores on a tie).
    undercut_on_tie: bool = True
    #: A gin can be undercut by a defender with no deadwood.
    gin_can_be_undercut: bool = False

    # -- stock running low -------------------------------------------------------
    #: The rule fires when a player discards without knocking and at most this
    #: many cards are left in the stock.
    stock_floor: int = 2
    #: ``void``: no score, redeal; ``count``: both count deadwood without layoffs
    #: and the lower scores the difference; ``wall``: the next player may only
    #: take the upcard and knock (``wall_knock``) or end the hand (``wall_pass``).
    stock_end: StockEnd = "void"
    #: The same dealer deals again after a void hand.
    same_dealer_after_void: bool = False

    # -- loop caps (OpenSpiel) ---------------------------------------------------
    #: The n-th draw from the discard pile of one hand ends it unscored.
    max_discard_draws: int | None = None
    #: Both players in a row taking the discard and discarding it again end the
    #: hand unscored.
    repeated_upcard_ends_hand: bool = False

    # -- the match ----------------------------------------------------------------
    #: ``alternate``: the dealer alternates; ``fixed``: player 1 always deals.
    dealer_rotation: DealerRotation = "alternate"
    game_target: int = 100
    #: ``target``: the first to reach the target wins; ``bust``: a player over the
    #: target is out (both over: the lower total wins, a tie plays on).
    match_end: MatchEnd = "target"
    game_bonus: int = 100
    #: Replaces the game bonus when the loser scored nothing (None: no shutout).
    shutout_bonus: int | None = None
    #: Per hand won, added at the end, not counted toward the target.
    box_bonus: int = 25
    box_to: BoxTo = "winner"
    #: Seven cards of a straight flush or of one rank after the draw win the match.
    instant_rumino: bool = False
    #: A gin in each of the first N hands wins the match.
    gin_streak_wins: int | None = None

    # -- derived -----------------------------------------------------------------
    @property
    def jokers(self) -> bool:
        return self.deck_size == 108

    @property
    def multi_deck(self) -> bool:
        return self.deck_size > 52

    @property
    def stock_size(self) -> int:
        """Cards left in the stock right after the deal."""
        return self.deck_size - 2 * self.hand_size - 1

    def validate(self) -> None:
        """Raise ``ValueError`` if the settings cannot describe a game.

        Every setting must have its declared type (a rule set also arrives from the
        other peer and from ``--set``, so ``"abc"`` must not reach the engine)."""
        for f in fields(self):
            value = getattr(self, f.name)
            if not _fits(value, _HINTS[f.name]):
                raise ValueError(f"{f.name} must be {_kind(_HINTS[f.name])}, not {value!r}")
        for name in _AT_LEAST_ONE:
            value = getattr(self, name)
            if value is not None and value < 1:
                raise ValueError(f"{name} must be at least 1, not {value}")
        if self.knock_limit is not None and self.knock_limit < 0:
            raise ValueError(f"knock_limit must not be negative, not {self.knock_limit}")
        if self.joker_value < 0:
            raise ValueError(f"joker_value must not be negative, not {self.joker_value}")
        if self.deck_size not in (52, 104, 108):
            raise ValueError(f"deck_size must be 52, 104 or 108, not {self.deck_size}")
        if not 3 <= self.hand_size <= 13:
            raise ValueError(f"hand_size must be 3..13, not {self.hand_size}")
        if self.max_run_length is not None and self.max_run_length < 3:
            raise ValueError("max_run_length must be at least 3")
        if self.stock_floor < 0 or self.stock_floor >= self.stock_size:
            raise ValueError("stock_floor must be below the stock size")
        if self.jokers_per_meld < 0:
            raise ValueError("jokers_per_meld must not be negative")

    def to_dict(self) -> dict[str, Any]:
        """Every setting by name: what a peer shows before a match starts."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RuleSet:
        """Inverse of :meth:`to_dict`; unknown names are an error."""
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown rule settings: {', '.join(sorted(unknown))}")
        rules = cls(**data)
        rules.validate()
        return rules

    def changes(self, base: RuleSet | None = None) -> dict[str, Any]:
        """The settings that differ from ``base`` (default: the preset this set is named
        after, so what ``--set`` changed), in field order: a third person judging a game
        must see them, since a knock with 35 deadwood is fair under ``knock_limit=60``
        and a cheat under the preset. Empty for a preset as it is, or for a name that is
        no preset."""
        base = base or PRESETS.get(self.name)
        if base is None:
            return {}
        theirs = base.to_dict()
        return {k: v for k, v in self.to_dict().items() if theirs[k] != v}

    def with_(self, **changes: Any) -> RuleSet:
        """A copy with some settings changed (``--set knock_limit=7``)."""
        rules = replace(self, **changes)
        rules.validate()
        return rules


_HINTS: dict[str, Any] = get_type_hints(RuleSet)
#: Counts where 0 would end every match or hand at once.
_AT_LEAST_ONE = ("game_target", "max_discard_draws", "layoffs_per_run_end", "gin_streak_wins")


def _fits(value: Any, hint: Any) -> bool:
    """Whether ``value`` has the type ``hint`` (``True`` is not an int here)."""
    if get_origin(hint) is Literal:
        return any(type(value) is type(a) and value == a for a in get_args(hint))
    if isinstance(hint, types.UnionType):
        return any(_fits(value, a) for a in get_args(hint))
    if hint is type(None):
        return value is None
    return type(value) is hint


def _kind(hint: Any) -> str:
    """``hint`` in words, for an error message."""
    if get_origin(hint) is Literal:
        return "one of " + ", ".join(map(str, get_args(hint)))
    if isinstance(hint, types.UnionType):
        return " or ".join(_kind(a) for a in get_args(hint))
    words = {int: "a whole number", bool: "true or false", str: "text", type(None): "none"}
    return words.get(hint, str(hint))


CLASSIC = RuleSet()

HOYLE = RuleSet(
    name="hoyle",
    gin_bonus=20,
    undercut_bonus=10,
    big_gin_bonus=None,
    same_dealer_after_void=True,
    shutout_bonus=200,
    box_bonus=20,
    box_to="each",
)

FRENCH = RuleSet(
    name="french",
    upcard_pass_round=False,
    undercut_on_tie=False,
)

ITALIAN = RuleSet(
    name="italian",
    deck_size=104,
    ace_high=True,
    knock_limit=None,
    scoring="lower_scores",
    gin_bonus=0,
    undercut_bonus=0,
    undercut_on_tie=False,
    big_gin_bonus=None,
    stock_floor=0,
    stock_end="count",
    game_bonus=0,
    box_bonus=0,
)

ITALIAN_JOKERS = replace(ITALIAN, name="italian-jokers", deck_size=108)

RUMINO = RuleSet(
    name="rumino",
    deck_size=108,
    hand_size=7,
    ace_high=True,
    max_run_length=4,
    upcard_pass_round=False,
    knock_limit=7,
    knock_instead_of_draw=True,
    layoffs=False,
    big_gin_bonus=None,
    scoring="own_deadwood",
    gin_bonus=-10,
    undercut_bonus=0,
    undercut_on_tie=False,
    match_end="bust",
    game_bonus=0,
    box_bonus=0,
    instant_rumino=True,
    gin_streak_wins=3,
)

OPENSPIEL = RuleSet(
    name="openspiel",
    max_run_length=5,
    discard_taken_card=True,
    layoffs_per_run_end=2,
    big_gin_bonus=None,
    undercut_on_tie=False,
    stock_end="wall",
    max_discard_draws=50,
    repeated_upcard_ends_hand=True,
    dealer_rotation="fixed",
    game_bonus=0,
    box_bonus=0,
)

PRESETS: dict[str, RuleSet] = {
    r.name: r for r in (CLASSIC, HOYLE, FRENCH, ITALIAN, ITALIAN_JOKERS, RUMINO, OPENSPIEL)
}


def get_preset(name: str) -> RuleSet:
    """The preset called ``name``; the error lists the valid names."""
    try:
        return PRESETS[name]
    except KeyError:
        raise ValueError(f"unknown preset {name!r}; choose one of: {', '.join(PRESETS)}") from None
