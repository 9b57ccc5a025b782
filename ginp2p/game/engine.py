"""The rules engine: a pure state machine over deck positions. Start reading here.

:func:`start_hand` deals a hand, :func:`legal_actions` lists what the player to move
may do and :func:`apply` returns the state after an action, never mutating its
input. Every rule difference between variants is a field of
:class:`~ginp2p.game.rules.RuleSet`.

The engine deals *positions*, not cards (:mod:`ginp2p.game.hand` explains how, and
holds :class:`HandState`); what each action does is in
:mod:`ginp2p.game.transitions`, what a player may do in :mod:`ginp2p.game.options`
and how a hand is scored in :mod:`ginp2p.game.scoring`. This module is the hand's
front door: it also offers the hand's types and actions, so that ``engine.Discard``
and ``engine.HandState`` read as one vocabulary.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import assert_never

from ginp2p.game import melds as M
from ginp2p.game import transitions as T
from ginp2p.game.actions import (
    Action,
    BigGin,
    DeclareRumino,
    Discard,
    DrawDiscard,
    DrawStock,
    Gin,
    Knock,
    PassUpcard,
    Resign,
    Show,
    TakeUpcard,
    WallKnock,
    WallPass,
)
from ginp2p.game.cards import Card
from ginp2p.game.hand import (
    DeckKnowledge,
    Declaration,
    EngineError,
    HandEnd,
    HandResult,
    HandState,
    HiddenCard,
    IllegalAction,
    Knowledge,
    PartialKnowledge,
    Phase,
    may_lay_off,
    replace_state,
)
from ginp2p.game.melds import Layoff, Meld
from ginp2p.game.options import legal_options, show_option
from ginp2p.game.rules import RuleSet

__all__ = [
    "Action",
    "BigGin",
    "DeckKnowledge",
    "Declaration",
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
    "forbidden_discard",
    "layoff_choices",
    "legal_actions",
    "may_lay_off",
    "meld_choices",
    "propose_show",
    "start_hand",
]


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


def legal_actions(state: HandState) -> list[Action]:
    """What the player to move may do. Needs that player's cards to be known.

    A knock, gin or showdown is listed once per discard with the best
    declaration proposed; ``apply`` accepts any other valid declaration too.
    """
    p = state.to_move
    return legal_options(
        state.rules,
        state.phase,
        cards=lambda: state.known_cards(p),
        pile=state.pile_cards(),
        both_passed=all(state.passed),
        forbidden=forbidden_discard(state),
        lay_off_onto=_lay_off_onto(state),
    )


def forbidden_discard(state: HandState) -> Card | None:
    """The card just taken from the discard pile, where the rules forbid throwing it
    straight back (None otherwise)."""
    if state.rules.discard_taken_card or state.taken is None:
        return None
    return state.knowledge.card_at(state.taken)


def propose_show(state: HandState) -> Show:
    """The best declaration for the player who must show: melds and layoffs together."""
    return show_option(state.rules, state.known_cards(state.to_move), _lay_off_onto(state))


def _lay_off_onto(state: HandState) -> tuple[Meld, ...] | None:
    """The knocker's melds, if the player to move may lay off onto them."""
    knock = state.declarations[state.knocker] if state.knocker is not None else None
    if knock is not None and may_lay_off(state):
        return knock.melds
    return None


# ------------------------------------------------------------------------ apply

#: The phases in which each action may be played (a resignation: in any).
_PHASES: dict[type[Action], frozenset[Phase]] = {
    PassUpcard: frozenset({Phase.FIRST_UPCARD}),
    TakeUpcard: frozenset({Phase.FIRST_UPCARD}),
    DrawStock: frozenset({Phase.FIRST_UPCARD, Phase.DRAW}),
    DrawDiscard: frozenset({Phase.DRAW}),
    Knock: frozenset({Phase.DRAW, Phase.DISCARD}),
    Discard: frozenset({Phase.DISCARD}),
    Gin: frozenset({Phase.DISCARD}),
    BigGin: frozenset({Phase.DISCARD}),
    DeclareRumino: frozenset({Phase.DISCARD}),
    WallKnock: frozenset({Phase.WALL}),
    WallPass: frozenset({Phase.WALL}),
    Show: frozenset({Phase.SHOW}),
}


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
        return T.resign(state, action)
    if player is not None and player != state.to_move:
        raise IllegalAction("not_your_turn", f"it is player {state.to_move}'s turn")
    if state.phase not in _PHASES.get(type(action), ()):
        raise IllegalAction(
            "wrong_phase", f"{action.kind} is not allowed now ({_phase_hint(state)})"
        )
    match action:
        case PassUpcard():
            new = T.pass_upcard(state, action)
        case TakeUpcard():
            new = T.take_upcard(state, action)
        case DrawStock():
            new = T.draw_stock(state, action)
        case DrawDiscard():
            new = T.draw_discard(state, action)
        case Discard():
            new = T.discard(state, action)
        case Knock():
            new = T.knock(state, action)
        case Gin():
            new = T.gin(state, action)
        case BigGin():
            new = T.big_gin(state, action)
        case DeclareRumino():
            new = T.declare_rumino(state, action)
        case WallKnock():
            new = T.wall_knock(state, action)
        case WallPass():
            new = T.wall_pass(state, action)
        case Show():
            new = T.show(state, action)
        case _:
            assert_never(action)
    return replace_state(new, moves=(*state.moves, (state.to_move, action)))


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
