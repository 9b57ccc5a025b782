"""What the player to move may do, worked out from what that player sees.

Everything here takes plain values (the rules, the player's own cards, the discard
pile, the phase) rather than a :class:`~ginp2p.game.hand.HandState`, so that the
engine's :func:`~ginp2p.game.engine.legal_actions` (from a state) and the computer
player (from an :class:`~ginp2p.game.observation.Observation`) list the same moves by
the same code.

A knock, gin or showdown is listed once per discard with the best declaration
proposed; the engine accepts any other valid declaration too.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ginp2p.game import melds as M
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
    Show,
    TakeUpcard,
    WallKnock,
    WallPass,
)
from ginp2p.game.cards import Card, deck
from ginp2p.game.hand import Phase
from ginp2p.game.melds import Meld
from ginp2p.game.rules import RuleSet

__all__ = ["legal_options", "show_option", "unseen_cards"]


def legal_options(
    rules: RuleSet,
    phase: Phase,
    *,
    cards: Callable[[], Sequence[Card]],
    pile: Sequence[Card | None],
    both_passed: bool,
    forbidden: Card | None,
    lay_off_onto: Sequence[Meld] | None,
) -> list[Action]:
    """The moves of the player to move, in a fixed order.

    ``cards`` gives the player's own cards, asked for only in the phases that need
    them (the pass round and an ordinary draw do not); ``pile`` is the discard pile,
    bottom first; ``both_passed``: both players passed the first upcard;
    ``forbidden``: the card just taken from the pile, where the rules forbid
    throwing it straight back; ``lay_off_onto``: at the showdown, the knocker's melds
    if this player may lay off onto them.
    """
    if phase is Phase.OVER:
        return []
    if phase is Phase.FIRST_UPCARD:
        if both_passed:
            return [DrawStock()]
        return [TakeUpcard(), PassUpcard()]
    if phase is Phase.DRAW:
        actions: list[Action] = [DrawStock()]
        if pile:
            actions.append(DrawDiscard())
        if rules.knock_instead_of_draw:
            own = list(cards())
            if rules.knock_limit is None or M.min_deadwood(own, rules) <= rules.knock_limit:
                melds, _ = M.best_arrangement(own, rules, unseen_cards(rules, own, pile))
                actions.append(Knock(None, tuple(melds)))
        return actions
    if phase is Phase.WALL:
        own = list(cards())
        up = pile[-1]
        assert up is not None
        return [WallPass(), *_knock_options(rules, [*own, up], pile, forbidden, wall=True)]
    if phase is Phase.DISCARD:
        own = list(cards())
        actions = [Discard(c) for c in own if c != forbidden]
        knocks = _knock_options(rules, own, pile, forbidden, wall=False)
        if rules.knock_instead_of_draw:
            # The knock replaces the draw; after drawing only a gin closes the hand.
            knocks = [a for a in knocks if isinstance(a, Gin)]
        actions += knocks
        if rules.big_gin_bonus is not None and M.min_deadwood(own, rules) == 0:
            melds, _ = M.best_arrangement(own, rules)
            actions.append(BigGin(tuple(melds)))
        if rules.instant_rumino:
            for i, c in enumerate(own):
                if c != forbidden and M.is_rumino(own[:i] + own[i + 1 :], rules):
                    actions.append(DeclareRumino(c))
        return actions
    if phase is Phase.SHOW:
        return [show_option(rules, cards(), lay_off_onto)]
    raise AssertionError(phase)


def show_option(rules: RuleSet, cards: Sequence[Card], lay_off_onto: Sequence[Meld] | None) -> Show:
    """The best declaration for the player who must show: melds and layoffs together
    (``lay_off_onto``: the knocker's melds, if this player may lay off onto them)."""
    if lay_off_onto is not None:
        melds, layoffs, _ = M.best_layoffs(cards, lay_off_onto, rules)
        return Show(tuple(melds), tuple(layoffs))
    melds, _ = M.best_arrangement(cards, rules)
    return Show(tuple(melds))


def unseen_cards(rules: RuleSet, own: Sequence[Card], pile: Sequence[Card | None]) -> list[Card]:
    """Cards a player cannot see: not in their hand, not in the discard pile."""
    seen = set(own)
    seen.update(c for c in pile if c is not None)
    return [c for c in deck(rules.deck_size) if c not in seen]


def _knock_options(
    rules: RuleSet,
    cards: list[Card],
    pile: Sequence[Card | None],
    forbidden: Card | None,
    wall: bool,
) -> list[Action]:
    """One knock (or gin) per discard that allows it, with the best melds proposed."""
    out: list[Action] = []
    unseen = unseen_cards(rules, cards, pile)
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
