"""The rules engine: a pure state machine over deck positions.

The engine deals *positions*, not cards: the non-dealer holds positions
``0..h-1``, the dealer ``h..2h-1``, position ``2h`` is the first upcard and the
rest is the stock, drawn in order. Which card lies at a position is
:class:`Knowledge`, carried in the state but never needed until a card is shown:
a discard, a knock, a layoff. A fully known deck (bots, tests, OpenSpiel replays)
and a player's partial view of a masked deck go through the same code, so both
peers and the auditor apply exactly the same rules.

``apply(state, action)`` returns a new state and never mutates its input;
``legal_actions(state)`` lists what the player to move may do. Every rule
difference between variants is a field of :class:`~ginp2p.game.rules.RuleSet`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from enum import StrEnum
from typing import Any, ClassVar, Protocol

from ginp2p.game import melds as M
from ginp2p.game.cards import Card, deck
from ginp2p.game.melds import Layoff, Meld
from ginp2p.game.rules import RuleSet

__all__ = [
    "Action",
    "BigGin",
    "DeckKnowledge",
    "DeclareRumino",
    "Discard",
    "DrawDiscard",
    "DrawStock",
    "EngineError",
    "Gin",
    "HandEnd",
    "HandResult",
    "HandState",
    "HiddenCard",
    "IllegalAction",
    "Knock",
    "Knowledge",
    "PartialKnowledge",
    "PassUpcard",
    "Phase",
    "Resign",
    "Show",
    "TakeUpcard",
    "WallKnock",
    "WallPass",
    "apply",
    "legal_actions",
    "start_hand",
]


# --------------------------------------------------------------------------- errors


class EngineError(Exception):
    """Base of the engine's errors."""


class IllegalAction(EngineError):
    """An action the rules do not allow. ``rule`` names the rule broken."""

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


# ------------------------------------------------------------------------- actions


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
    kind: ClassVar[str] = "draw_stock"


@dataclass(frozen=True, slots=True)
class DrawDiscard:
    """Take the top of the discard pile."""

    kind: ClassVar[str] = "draw_discard"


@dataclass(frozen=True, slots=True)
class Discard:
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
        return _replace(self, knowledge=knowledge)

    def view(self, player: int) -> HandState:
        """What ``player`` may know: their own cards and every shown card.

        Bots and tests play from this view so that no decision can depend on a
        hidden card, whatever the state's own knowledge holds.
        """
        k = self.knowledge
        visible = set(self.hands[player]) | self.shown
        known = {pos: c for pos in visible if (c := k.card_at(pos)) is not None}
        return _replace(self, knowledge=PartialKnowledge(known))

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


def _replace(state: HandState, **changes: Any) -> HandState:
    """``dataclasses.replace`` for a HandState, about three times faster: every move
    folds through several of these, on the path from one player's click to the other's
    screen. Safe because HandState is frozen, slotted and has no ``__post_init__``."""
    if not changes.keys() <= _STATE_FIELD_SET:
        raise TypeError(f"HandState has no field {sorted(changes.keys() - _STATE_FIELD_SET)}")
    new = object.__new__(HandState)
    for name in _STATE_FIELDS:
        _set(new, name, changes[name] if name in changes else getattr(state, name))
    return new


def start_hand(rules: RuleSet, dealer: int, knowledge: Knowledge) -> HandState:
    """Deal a hand: positions to the players, the upcard, the stock."""
    h = rules.hand_size
    non_dealer = 1 - dealer
    hands: list[tuple[int, ...]] = [(), ()]
    hands[non_dealer] = tuple(range(h))
    hands[dealer] = tuple(range(h, 2 * h))
    return HandState(
        rules=rules,
        dealer=dealer,
        knowledge=knowledge,
        hands=(hands[0], hands[1]),
        discard_pile=(2 * h,),
        shown=frozenset((2 * h,)),
        stock_next=2 * h + 1,
        phase=Phase.FIRST_UPCARD if rules.upcard_pass_round else Phase.DRAW,
        to_move=non_dealer,
    )


# ----------------------------------------------------------------- legal actions


def _knock_options(state: HandState, cards: list[Card], wall: bool) -> list[Action]:
    """One knock (or gin) per discard that allows it, with the best melds proposed."""
    rules = state.rules
    out: list[Action] = []
    unseen = _unseen(state, cards)
    forbidden = forbidden_discard(state)
    for i, card in enumerate(cards):
        if card == forbidden:
            continue
        rest = cards[:i] + cards[i + 1 :]
        dw = M.min_deadwood(rest, rules)
        if rules.knock_limit is not None and dw > rules.knock_limit:
            continue
        melds, _ = M.best_arrangement(rest, rules, unseen)
        if wall:
            out.append(WallKnock(card, tuple(melds)))
        elif dw == 0:
            out.append(Gin(card, tuple(melds)))
        else:
            out.append(Knock(card, tuple(melds)))
    return out


def _unseen(state: HandState, own: Sequence[Card]) -> list[Card]:
    """Cards the knocker cannot see: not in hand, not in the discard pile."""
    seen = set(own)
    seen.update(c for c in state.pile_cards() if c is not None)
    return [c for c in deck(state.rules.deck_size) if c not in seen]


def forbidden_discard(state: HandState) -> Card | None:
    """The card just taken from the discard pile, where the rules forbid throwing it
    straight back (None otherwise)."""
    if state.rules.discard_taken_card or state.taken is None:
        return None
    return state.knowledge.card_at(state.taken)


def legal_actions(state: HandState) -> list[Action]:
    """What the player to move may do. Needs that player's cards to be known.

    A knock, gin or showdown is listed once per discard with the best
    declaration proposed; ``apply`` accepts any other valid declaration too.
    """
    rules = state.rules
    p = state.to_move
    phase = state.phase
    if phase is Phase.OVER:
        return []
    if phase is Phase.FIRST_UPCARD:
        if all(state.passed):
            return [DrawStock()]
        return [TakeUpcard(), PassUpcard()]
    if phase is Phase.DRAW:
        actions: list[Action] = [DrawStock()]
        if state.discard_pile:
            actions.append(DrawDiscard())
        if rules.knock_instead_of_draw:
            cards = state.known_cards(p)
            if rules.knock_limit is None or M.min_deadwood(cards, rules) <= rules.knock_limit:
                melds, _ = M.best_arrangement(cards, rules, _unseen(state, cards))
                actions.append(Knock(None, tuple(melds)))
        return actions
    if phase is Phase.WALL:
        cards = state.known_cards(p)
        up = state.upcard
        assert up is not None
        return [WallPass(), *_knock_options(state, [*cards, up], wall=True)]
    if phase is Phase.DISCARD:
        cards = state.known_cards(p)
        forbidden = forbidden_discard(state)
        actions = [Discard(c) for c in cards if c != forbidden]
        knocks = _knock_options(state, cards, wall=False)
        if rules.knock_instead_of_draw:
            # The knock replaces the draw; after drawing only a gin closes the hand.
            knocks = [a for a in knocks if isinstance(a, Gin)]
        actions += knocks
        if rules.big_gin_bonus is not None and M.min_deadwood(cards, rules) == 0:
            melds, _ = M.best_arrangement(cards, rules)
            actions.append(BigGin(tuple(melds)))
        if rules.instant_rumino:
            for i, c in enumerate(cards):
                if c != forbidden and M.is_rumino(cards[:i] + cards[i + 1 :], rules):
                    actions.append(DeclareRumino(c))
        return actions
    if phase is Phase.SHOW:
        return [propose_show(state)]
    raise AssertionError(phase)


def propose_show(state: HandState) -> Show:
    """The best declaration for the player who must show: melds and layoffs together."""
    p = state.to_move
    cards = state.known_cards(p)
    knock = state.declarations[state.knocker] if state.knocker is not None else None
    if knock is not None and _may_lay_off(state):
        melds, layoffs, _ = M.best_layoffs(cards, knock.melds, state.rules)
        return Show(tuple(melds), tuple(layoffs))
    melds, _ = M.best_arrangement(cards, state.rules)
    return Show(tuple(melds))


def _may_lay_off(state: HandState) -> bool:
    if not state.rules.layoffs or state.knocker is None:
        return False
    if state.end in (HandEnd.GIN, HandEnd.BIG_GIN, HandEnd.STOCK_COUNT):
        return False
    return state.to_move != state.knocker


# ------------------------------------------------------------------------ apply


def apply(state: HandState, action: Action, player: int | None = None) -> HandState:
    """The state after ``action``. ``player``, if given, must be the one to move
    (for a resignation: the one resigning, which may happen at any time).

    Raises :class:`IllegalAction` naming the rule broken, or :class:`HiddenCard`
    if a card the action shows was not revealed first.
    """
    if state.phase is Phase.OVER:
        raise IllegalAction("hand_over", "the hand is over")
    if isinstance(action, Resign):
        if player is not None and player != action.player:
            raise IllegalAction(
                "resign_for_other", f"player {player} cannot resign for player {action.player}"
            )
        return _resign(state, action.player)
    if player is not None and player != state.to_move:
        raise IllegalAction("not_your_turn", f"it is player {state.to_move}'s turn")
    p = state.to_move
    handler = _HANDLERS.get((state.phase, type(action)))
    if handler is None:
        raise IllegalAction(
            "wrong_phase", f"{action.kind} is not allowed now ({_phase_hint(state)})"
        )
    new = handler(state, action)
    return _replace(new, moves=(*state.moves, (p, action)))


def _phase_hint(state: HandState) -> str:
    return {
        Phase.FIRST_UPCARD: "take or pass the first upcard"
        if not all(state.passed)
        else "draw from the stock",
        Phase.DRAW: "draw from the stock or the discard pile",
        Phase.DISCARD: "discard, knock or go gin",
        Phase.WALL: "knock with the upcard or pass",
        Phase.SHOW: "show your melds",
        Phase.OVER: "the hand is over",
    }[state.phase]


def _pass_upcard(state: HandState, action: PassUpcard) -> HandState:
    p = state.to_move
    if all(state.passed):
        raise IllegalAction("must_draw_stock", "both passed: draw from the stock")
    passed = (True, state.passed[1]) if p == 0 else (state.passed[0], True)
    return _replace(state, passed=passed, to_move=1 - p)


def _take_upcard(state: HandState, action: TakeUpcard) -> HandState:
    if all(state.passed):
        raise IllegalAction("must_draw_stock", "both passed: draw from the stock")
    return _take_top(state)


def _take_top(state: HandState) -> HandState:
    p = state.to_move
    pos = state.discard_pile[-1]
    return _replace(
        state,
        hands=_with_added(state.hands, p, pos),
        picked=_with_added(state.picked, p, pos),
        discard_pile=state.discard_pile[:-1],
        taken=pos,
        phase=Phase.DISCARD,
    )


def _draw_discard(state: HandState, action: DrawDiscard) -> HandState:
    if not state.discard_pile:
        raise IllegalAction("empty_pile", "the discard pile is empty")
    rules = state.rules
    draws = state.discard_draws + 1
    if rules.max_discard_draws is not None and draws >= rules.max_discard_draws:
        return _finish(_replace(state, discard_draws=draws), HandEnd.MAX_DISCARD_DRAWS)
    return _take_top(_replace(state, discard_draws=draws))


def _draw_stock(state: HandState, action: DrawStock) -> HandState:
    if state.phase is Phase.FIRST_UPCARD and not all(state.passed):
        raise IllegalAction("upcard_first", "take or pass the first upcard first")
    if state.stock_left <= 0:
        raise IllegalAction("stock_empty", "the stock is empty")
    p = state.to_move
    hands = _with_added(state.hands, p, state.stock_next)
    return _replace(
        state, hands=hands, stock_next=state.stock_next + 1, taken=None, phase=Phase.DISCARD
    )


def _discard(state: HandState, action: Discard) -> HandState:
    rules = state.rules
    p = state.to_move
    pos = _discard_pos(state, action.card)
    repeated = state.repeated
    if rules.repeated_upcard_ends_hand:
        if pos == state.taken:
            if repeated:
                return _finish(_after_discard(state, pos), HandEnd.REPEATED_DISCARD)
            repeated = True
        else:
            repeated = False
    new = _replace(_after_discard(state, pos), repeated=repeated, to_move=1 - p, phase=Phase.DRAW)
    if new.stock_left <= rules.stock_floor:
        if rules.stock_end == "wall":
            return _replace(new, phase=Phase.WALL)
        if rules.stock_end == "void":
            return _finish(new, HandEnd.STOCK_VOID)
        # Both players count their deadwood: each declares melds, no layoffs.
        first = 1 - p
        return _replace(
            new, phase=Phase.SHOW, end=HandEnd.STOCK_COUNT, showing=(first, p), to_move=first
        )
    return new


def _discard_pos(state: HandState, card: Card) -> int:
    pos = state.position_of(state.to_move, card)
    if pos == state.taken and not state.rules.discard_taken_card:
        raise IllegalAction(
            "discard_taken_card",
            f"{card.pretty()} was just taken from the discard pile and may not be discarded",
        )
    return pos


def _after_discard(state: HandState, pos: int) -> HandState:
    p = state.to_move
    hands = _with_removed(state.hands, p, pos)
    return _replace(
        state,
        hands=hands,
        discard_pile=(*state.discard_pile, pos),
        shown=state.shown | {pos},
        taken=None,
    )


def _declare(
    state: HandState, player: int, cards: Sequence[Card], melds: Sequence[Meld]
) -> Declaration:
    """Check that ``melds`` are valid, disjoint melds of ``cards``; the rest is deadwood."""
    rules = state.rules
    remaining = list(cards)
    checked: list[Meld] = []
    for meld in melds:
        try:
            checked.append(M.meld_of(list(meld.cards), rules))
        except ValueError as e:
            raise IllegalAction("invalid_meld", str(e)) from None
        for c in meld.cards:
            if c not in remaining:
                raise IllegalAction(
                    "meld_card_not_held",
                    f"{c.pretty()} in {meld} is not in the hand or is used twice",
                )
            remaining.remove(c)
    dead = tuple(remaining)
    return Declaration(tuple(checked), (), dead, M.deadwood(dead, rules))


def _knock_common(
    state: HandState,
    discard: Card | None,
    melds: Sequence[Meld],
    claim_gin: bool,
    base: HandState,
) -> HandState:
    """Validate a close (knock, gin, wall knock) by the player to move."""
    rules = state.rules
    p = state.to_move
    cards = base.known_cards(p)
    if discard is not None:
        pos = _discard_pos(base, discard)
        base = _after_discard(base, pos)
        cards = list(cards)
        cards.remove(discard)
    decl = _declare(state, p, cards, melds)
    if claim_gin and decl.deadwood:
        raise IllegalAction(
            "false_gin",
            f"claimed gin with {_names(decl.deadwood_cards)} unmatched",
        )
    if rules.knock_limit is not None and decl.deadwood > rules.knock_limit:
        raise IllegalAction(
            "knock_over_limit",
            f"knocked with {decl.deadwood} deadwood ({_names(decl.deadwood_cards)}); "
            f"the limit is {rules.knock_limit}",
        )
    gin = decl.deadwood == 0 and discard is not None
    declarations = _set_decl(base.declarations, p, decl)
    end = HandEnd.GIN if gin else HandEnd.KNOCK
    return _replace(
        base,
        shown=base.shown | set(base.hands[p]),
        knocker=p,
        declarations=declarations,
        end=end,
        phase=Phase.SHOW,
        showing=(1 - p,),
        to_move=1 - p,
        taken=None,
    )


def _names(cards: Iterable[Card]) -> str:
    return " ".join(c.pretty() for c in cards)


def _knock(state: HandState, action: Knock) -> HandState:
    rules = state.rules
    if action.discard is None:
        if not rules.knock_instead_of_draw:
            raise IllegalAction("knock_needs_discard", "a knock discards one card face down")
        if state.phase is not Phase.DRAW:
            raise IllegalAction(
                "knock_instead_of_draw",
                "in this variant you knock instead of drawing, at the start of your turn",
            )
    elif state.phase is not Phase.DISCARD:
        raise IllegalAction("wrong_phase", "knock after drawing")
    elif rules.knock_instead_of_draw:
        raise IllegalAction(
            "knock_instead_of_draw",
            "in this variant you knock instead of drawing, with no discard",
        )
    return _knock_common(state, action.discard, action.melds, False, state)


def _gin(state: HandState, action: Gin) -> HandState:
    return _knock_common(state, action.discard, action.melds, True, state)


def _big_gin(state: HandState, action: BigGin) -> HandState:
    rules = state.rules
    if rules.big_gin_bonus is None:
        raise IllegalAction("no_big_gin", "big gin is not played in this variant")
    p = state.to_move
    decl = _declare(state, p, state.known_cards(p), action.melds)
    if decl.deadwood_cards:
        raise IllegalAction(
            "false_big_gin", f"claimed big gin with {_names(decl.deadwood_cards)} unmatched"
        )
    return _replace(
        state,
        shown=state.shown | set(state.hands[p]),
        knocker=p,
        declarations=_set_decl(state.declarations, p, decl),
        end=HandEnd.BIG_GIN,
        phase=Phase.SHOW,
        showing=(1 - p,),
        to_move=1 - p,
        taken=None,
    )


def _wall_knock(state: HandState, action: WallKnock) -> HandState:
    base = _take_top(state)
    return _knock_common(state, action.discard, action.melds, False, base)


def _wall_pass(state: HandState, action: WallPass) -> HandState:
    return _finish(state, HandEnd.WALL_PASS)


def _declare_rumino(state: HandState, action: DeclareRumino) -> HandState:
    rules = state.rules
    if not rules.instant_rumino:
        raise IllegalAction("no_rumino", "rumino is not played in this variant")
    p = state.to_move
    pos = _discard_pos(state, action.discard)
    cards = [c for c in state.known_cards(p) if c != action.discard]
    if not M.is_rumino(cards, rules):
        raise IllegalAction(
            "false_rumino",
            f"{_names(cards)} is neither a seven-card straight flush nor seven of a rank",
        )
    base = _after_discard(state, pos)
    decl = Declaration((), (), tuple(cards), 0)
    return _finish(
        _replace(
            base,
            knocker=p,
            declarations=_set_decl(base.declarations, p, decl),
            shown=base.shown | set(base.hands[p]),
        ),
        HandEnd.RUMINO,
    )


def _show(state: HandState, action: Show) -> HandState:
    rules = state.rules
    p = state.to_move
    decl = _declare(state, p, state.known_cards(p), action.melds)
    if action.layoffs:
        if not _may_lay_off(state):
            raise IllegalAction("no_layoffs", "no layoffs are allowed on this hand")
        knock = state.declarations[state.knocker]  # type: ignore[index]
        assert knock is not None
        dead = list(decl.deadwood_cards)
        for lay in action.layoffs:
            if lay.card not in dead:
                raise IllegalAction(
                    "layoff_card_not_held",
                    f"{lay.card.pretty()} is not an unmatched card of the hand",
                )
            dead.remove(lay.card)
        problem = M.check_layoffs(knock.melds, action.layoffs, rules)
        if problem:
            raise IllegalAction("invalid_layoff", problem)
        decl = Declaration(decl.melds, tuple(action.layoffs), tuple(dead), M.deadwood(dead, rules))
    declarations = _set_decl(state.declarations, p, decl)
    showing = state.showing[1:]
    new = _replace(
        state, declarations=declarations, showing=showing, shown=state.shown | set(state.hands[p])
    )
    if showing:
        return _replace(new, to_move=showing[0])
    assert state.end is not None
    return _finish(new, state.end)


def _resign(state: HandState, player: int) -> HandState:
    if player not in (0, 1):
        raise IllegalAction("no_such_player", f"no player {player}")
    return _finish(_replace(state, knocker=None), HandEnd.RESIGN, resigner=player)


_HANDLERS: dict[tuple[Phase, type], Callable[[HandState, Any], HandState]] = {
    (Phase.FIRST_UPCARD, PassUpcard): _pass_upcard,
    (Phase.FIRST_UPCARD, TakeUpcard): _take_upcard,
    (Phase.FIRST_UPCARD, DrawStock): _draw_stock,
    (Phase.DRAW, DrawStock): _draw_stock,
    (Phase.DRAW, DrawDiscard): _draw_discard,
    (Phase.DRAW, Knock): _knock,
    (Phase.DISCARD, Discard): _discard,
    (Phase.DISCARD, Knock): _knock,
    (Phase.DISCARD, Gin): _gin,
    (Phase.DISCARD, BigGin): _big_gin,
    (Phase.DISCARD, DeclareRumino): _declare_rumino,
    (Phase.WALL, WallKnock): _wall_knock,
    (Phase.WALL, WallPass): _wall_pass,
    (Phase.SHOW, Show): _show,
}


# ---------------------------------------------------------------------- scoring


def _finish(state: HandState, end: HandEnd, resigner: int | None = None) -> HandState:
    result = _score(state, end, resigner)
    if any(isinstance(a, WallKnock) for _, a in state.moves):
        result = replace(result, at_the_wall=True)
    return _replace(state, phase=Phase.OVER, end=end, result=result, showing=())


def _score(state: HandState, end: HandEnd, resigner: int | None) -> HandResult:
    rules = state.rules
    decls = state.declarations
    k = state.knocker
    if end in (
        HandEnd.STOCK_VOID,
        HandEnd.WALL_PASS,
        HandEnd.REPEATED_DISCARD,
        HandEnd.MAX_DISCARD_DRAWS,
        HandEnd.RESIGN,
        HandEnd.RUMINO,
    ):
        # Resign and rumino decide the match, not the hand's score.
        by = (
            resigner
            if end is HandEnd.RESIGN
            else state.to_move
            if end is HandEnd.WALL_PASS
            else None
        )
        return HandResult(end, k, (0, 0), (0, 0), decls, ended_by=by)
    d0, d1 = decls
    assert d0 is not None and d1 is not None
    dw = (d0.deadwood, d1.deadwood)
    if end is HandEnd.STOCK_COUNT:
        return _lower_scores(end, None, dw, decls, 0)
    assert k is not None
    gin = end in (HandEnd.GIN, HandEnd.BIG_GIN)
    bonus = 0
    if end is HandEnd.GIN:
        bonus = rules.gin_bonus
    elif end is HandEnd.BIG_GIN:
        bonus = rules.big_gin_bonus or 0
    if rules.scoring == "own_deadwood":
        pts = [dw[0], dw[1]]
        pts[k] += bonus
        points = (pts[0], pts[1])
        return HandResult(end, k, points, (points[1] - points[0], points[0] - points[1]),
                          decls, gin=gin)  # fmt: skip
    if rules.scoring == "lower_scores":
        return _lower_scores(end, k, dw, decls, bonus, gin)
    d = 1 - k
    kd, dd = dw[k], dw[d]
    pts = [0, 0]
    undercut = False
    if gin and not (rules.gin_can_be_undercut and dd == 0):
        pts[k] = dd - kd + bonus
    elif dd < kd or (dd == kd and rules.undercut_on_tie):
        pts[d] = kd - dd + rules.undercut_bonus
        undercut = True
        end = HandEnd.UNDERCUT
    elif dd > kd:
        pts[k] = dd - kd
    return HandResult(end, k, (pts[0], pts[1]), (pts[0] - pts[1], pts[1] - pts[0]),
                      decls, gin=gin, undercut=undercut)  # fmt: skip


def _lower_scores(
    end: HandEnd,
    knocker: int | None,
    dw: tuple[int, int],
    decls: tuple[Declaration | None, Declaration | None],
    bonus: int,
    gin: bool = False,
) -> HandResult:
    pts = [0, 0]
    if dw[0] != dw[1]:
        low = 0 if dw[0] < dw[1] else 1
        pts[low] = abs(dw[0] - dw[1])
        if low == knocker:
            pts[low] += bonus
    return HandResult(end, knocker, (pts[0], pts[1]), (pts[0] - pts[1], pts[1] - pts[0]),
                      decls, gin=gin)  # fmt: skip


# ---------------------------------------------------------------------- helpers


def _with_added(hands: tuple[tuple[int, ...], tuple[int, ...]], p: int, pos: int):
    new = (*hands[p], pos)
    return (new, hands[1]) if p == 0 else (hands[0], new)


def _with_removed(hands: tuple[tuple[int, ...], tuple[int, ...]], p: int, pos: int):
    new = tuple(x for x in hands[p] if x != pos)
    return (new, hands[1]) if p == 0 else (hands[0], new)


def _set_decl(
    decls: tuple[Declaration | None, Declaration | None], p: int, decl: Declaration
) -> tuple[Declaration | None, Declaration | None]:
    return (decl, decls[1]) if p == 0 else (decls[0], decl)


# ------------------------------------------------------- step-by-step declarations


def meld_choices(
    rules: RuleSet, cards: Sequence[Card], laid: Sequence[Meld], knocker: bool
) -> list[Meld]:
    """Melds that may be laid next, one at a time, after ``laid``.

    A knocker may only lay a meld that still lets the hand end within the knock
    limit; a defender may lay any meld. The console uses this to let a player
    change the proposed declaration meld by meld.
    """
    remaining = _without(cards, [c for m in laid for c in m.cards])
    choices = M.all_melds(remaining, rules)
    if not knocker or rules.knock_limit is None:
        return choices
    limit = rules.knock_limit
    return [m for m in choices if M.min_deadwood(_without(remaining, m.cards), rules) <= limit]


def layoff_choices(
    rules: RuleSet,
    cards: Sequence[Card],
    knocker_melds: Sequence[Meld],
    laid: Sequence[Layoff],
) -> list[Layoff]:
    """Layoffs the defender may add, one card at a time, after ``laid``."""
    remaining = _without(cards, [lay.card for lay in laid])
    out = []
    for card in remaining:
        for i in range(len(knocker_melds)):
            lay = Layoff(card, i)
            if M.check_layoffs(knocker_melds, [*laid, lay], rules) is None:
                out.append(lay)
    return out


def _without(cards: Sequence[Card], gone: Iterable[Card]) -> list[Card]:
    out = list(cards)
    for c in gone:
        out.remove(c)
    return out
