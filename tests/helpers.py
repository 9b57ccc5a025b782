"""Building hands with chosen cards, for engine tests."""

from __future__ import annotations

from ginp2p import engine
from ginp2p.cards import Card, deck, parse_cards
from ginp2p.engine import DeckKnowledge, HandState
from ginp2p.rules import RuleSet


def stacked_deck(
    rules: RuleSet,
    non_dealer: str,
    dealer: str,
    upcard: str,
    stock: str = "",
) -> DeckKnowledge:
    """A deck whose deal gives exactly these cards; the rest of the stock follows
    in canonical order after ``stock``."""
    h = rules.hand_size
    nd, d, up, st = (parse_cards(x) for x in (non_dealer, dealer, upcard, stock))
    assert len(nd) == h and len(d) == h and len(up) == 1, "wrong hand sizes"
    chosen: list[Card] = [*nd, *d, *up, *st]
    assert len(set(chosen)) == len(chosen), "a card is dealt twice"
    rest = [c for c in deck(rules.deck_size) if c not in set(chosen)]
    return DeckKnowledge(tuple(chosen + rest))


def deal(rules: RuleSet, non_dealer: str, dealer: str, upcard: str, stock: str = "",
         dealer_seat: int = 1) -> HandState:  # fmt: skip
    """A fresh hand where seat ``1 - dealer_seat`` holds ``non_dealer``."""
    return engine.start_hand(rules, dealer_seat, stacked_deck(rules, non_dealer, dealer, upcard,
                                                              stock))  # fmt: skip


def play(state: HandState, *actions: engine.Action) -> HandState:
    for a in actions:
        state = engine.apply(state, a)
    return state
