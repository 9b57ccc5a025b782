"""What each action does to a hand: one function per action, checking the rules it
must keep and returning the new state.

Each function takes the state and the action and trusts only that the action came
in the phase that allows it (:func:`ginp2p.game.engine.apply` checks the phase and
the player, and records the move). Everything else is checked here, and a broken
rule raises :class:`~ginp2p.game.hand.IllegalAction` naming it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ginp2p.game import melds as M
from ginp2p.game.actions import (
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
    Declaration,
    HandEnd,
    HandState,
    IllegalAction,
    Phase,
    may_lay_off,
    replace_state,
)
from ginp2p.game.melds import Meld
from ginp2p.game.scoring import finish

__all__ = [
    "big_gin",
    "declare_rumino",
    "discard",
    "draw_discard",
    "draw_stock",
    "gin",
    "knock",
    "pass_upcard",
    "resign",
    "show",
    "take_upcard",
    "wall_knock",
    "wall_pass",
]

Hands = tuple[tuple[int, ...], tuple[int, ...]]
Declarations = tuple[Declaration | None, Declaration | None]


def pass_upcard(state: HandState, action: PassUpcard) -> HandState:
    p = state.to_move
    if all(state.passed):
        raise IllegalAction("must_draw_stock", "both passed: draw from the stock")
    passed = (True, state.passed[1]) if p == 0 else (state.passed[0], True)
    return replace_state(state, passed=passed, to_move=1 - p)


def take_upcard(state: HandState, action: TakeUpcard) -> HandState:
    if all(state.passed):
        raise IllegalAction("must_draw_stock", "both passed: draw from the stock")
    return _take_top(state)


def _take_top(state: HandState) -> HandState:
    p = state.to_move
    pos = state.discard_pile[-1]
    return replace_state(
        state,
        hands=_with_added(state.hands, p, pos),
        picked=_with_added(state.picked, p, pos),
        discard_pile=state.discard_pile[:-1],
        taken=pos,
        phase=Phase.DISCARD,
    )


def draw_discard(state: HandState, action: DrawDiscard) -> HandState:
    if not state.discard_pile:
        raise IllegalAction("empty_pile", "the discard pile is empty")
    rules = state.rules
    draws = state.discard_draws + 1
    if rules.max_discard_draws is not None and draws >= rules.max_discard_draws:
        return finish(replace_state(state, discard_draws=draws), HandEnd.MAX_DISCARD_DRAWS)
    return _take_top(replace_state(state, discard_draws=draws))


def draw_stock(state: HandState, action: DrawStock) -> HandState:
    if state.phase is Phase.FIRST_UPCARD and not all(state.passed):
        raise IllegalAction("upcard_first", "take or pass the first upcard first")
    if state.stock_left <= 0:
        raise IllegalAction("stock_empty", "the stock is empty")
    p = state.to_move
    hands = _with_added(state.hands, p, state.stock_next)
    return replace_state(
        state, hands=hands, stock_next=state.stock_next + 1, taken=None, phase=Phase.DISCARD
    )


def discard(state: HandState, action: Discard) -> HandState:
    rules = state.rules
    p = state.to_move
    pos = _discard_pos(state, action.card)
    repeated = state.repeated
    if rules.repeated_upcard_ends_hand:
        if pos == state.taken:
            if repeated:
                return finish(_after_discard(state, pos), HandEnd.REPEATED_DISCARD)
            repeated = True
        else:
            repeated = False
    new = replace_state(
        _after_discard(state, pos), repeated=repeated, to_move=1 - p, phase=Phase.DRAW
    )
    if new.stock_left <= rules.stock_floor:
        if rules.stock_end == "wall":
            return replace_state(new, phase=Phase.WALL)
        if rules.stock_end == "void":
            return finish(new, HandEnd.STOCK_VOID)
        # Both players count their deadwood: each declares melds, no layoffs.
        first = 1 - p
        return replace_state(
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
    return replace_state(
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
    return replace_state(
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


def knock(state: HandState, action: Knock) -> HandState:
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


def gin(state: HandState, action: Gin) -> HandState:
    return _knock_common(state, action.discard, action.melds, True, state)


def big_gin(state: HandState, action: BigGin) -> HandState:
    rules = state.rules
    if rules.big_gin_bonus is None:
        raise IllegalAction("no_big_gin", "big gin is not played in this variant")
    p = state.to_move
    decl = _declare(state, p, state.known_cards(p), action.melds)
    if decl.deadwood_cards:
        raise IllegalAction(
            "false_big_gin", f"claimed big gin with {_names(decl.deadwood_cards)} unmatched"
        )
    return replace_state(
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


def wall_knock(state: HandState, action: WallKnock) -> HandState:
    base = _take_top(state)
    return _knock_common(state, action.discard, action.melds, False, base)


def wall_pass(state: HandState, action: WallPass) -> HandState:
    return finish(state, HandEnd.WALL_PASS)


def declare_rumino(state: HandState, action: DeclareRumino) -> HandState:
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
    return finish(
        replace_state(
            base,
            knocker=p,
            declarations=_set_decl(base.declarations, p, decl),
            shown=base.shown | set(base.hands[p]),
        ),
        HandEnd.RUMINO,
    )


def show(state: HandState, action: Show) -> HandState:
    rules = state.rules
    p = state.to_move
    decl = _declare(state, p, state.known_cards(p), action.melds)
    if action.layoffs:
        if not may_lay_off(state):
            raise IllegalAction("no_layoffs", "no layoffs are allowed on this hand")
        assert state.knocker is not None  # may_lay_off: somebody knocked
        knocked = state.declarations[state.knocker]
        assert knocked is not None
        dead = list(decl.deadwood_cards)
        for lay in action.layoffs:
            if lay.card not in dead:
                raise IllegalAction(
                    "layoff_card_not_held",
                    f"{lay.card.pretty()} is not an unmatched card of the hand",
                )
            dead.remove(lay.card)
        problem = M.check_layoffs(knocked.melds, action.layoffs, rules)
        if problem:
            raise IllegalAction("invalid_layoff", problem)
        decl = Declaration(decl.melds, tuple(action.layoffs), tuple(dead), M.deadwood(dead, rules))
    declarations = _set_decl(state.declarations, p, decl)
    showing = state.showing[1:]
    new = replace_state(
        state, declarations=declarations, showing=showing, shown=state.shown | set(state.hands[p])
    )
    if showing:
        return replace_state(new, to_move=showing[0])
    assert state.end is not None
    return finish(new, state.end)


def resign(state: HandState, action: Resign) -> HandState:
    """Either player, at any time (the engine checks nothing else)."""
    player = action.player
    if player not in (0, 1):
        raise IllegalAction("no_such_player", f"no player {player}")
    return finish(replace_state(state, knocker=None), HandEnd.RESIGN, resigner=player)


def _with_added(hands: Hands, p: int, pos: int) -> Hands:
    new = (*hands[p], pos)
    return (new, hands[1]) if p == 0 else (hands[0], new)


def _with_removed(hands: Hands, p: int, pos: int) -> Hands:
    new = tuple(x for x in hands[p] if x != pos)
    return (new, hands[1]) if p == 0 else (hands[0], new)


def _set_decl(decls: Declarations, p: int, decl: Declaration) -> Declarations:
    return (decl, decls[1]) if p == 0 else (decls[0], decl)
