"""The general exact solver: least deadwood for any hand (two decks, jokers).

Every meld the hand can make is listed as a bitmask over the positions of its cards,
then a memoised search over the cards still to place takes the lowest one: it is
either deadwood or in one of the melds that contain it. The same search lists every
best arrangement. :mod:`ginp2p.game.melds` turns its masks back into melds; a
single-deck hand without jokers takes the faster :mod:`ginp2p.game.masks` instead.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from itertools import combinations, product

from ginp2p.game.cards import Card
from ginp2p.game.rules import RuleSet

__all__ = ["MeldSearch", "general_best_discard", "general_min_deadwood"]


def _meld_masks(cards: Sequence[Card], rules: RuleSet) -> list[int]:
    """Every meld these cards can make, as a bitmask over their positions."""
    jokers = [1 << i for i, card in enumerate(cards) if card.rank == 0]
    wild = min(rules.jokers_per_meld, len(jokers))
    with_jokers = [[sum(combo) for combo in combinations(jokers, n)] for n in range(wild + 1)]
    copies: dict[int, list[int]] = {}
    for i, card in enumerate(cards):
        if card.rank:
            copies.setdefault(card.face, []).append(1 << i)
    found: set[int] = set()

    def add(naturals: Sequence[list[int]], n_jokers: int) -> None:
        for picks in product(*naturals):
            base = sum(picks)
            found.update(base | extra for extra in with_jokers[n_jokers])

    for rank in range(1, 14):
        suits = [copies[face] for face in range(rank - 1, 52, 13) if face in copies]
        for size in range(1, len(suits) + 1):
            for n_jokers in range(max(0, 3 - size), min(wild, 4 - size) + 1):
                for chosen in combinations(suits, size):
                    add(chosen, n_jokers)

    longest = min(rules.max_run_length or 13, 13)
    top = 14 if rules.ace_high else 13
    for suit in range(4):
        spots = [copies.get(suit * 13 + (0 if spot == 14 else spot - 1), []) for spot in range(15)]
        for low in range(1, top - 1):
            for length in range(3, min(longest, top - low + 1) + 1):
                window = spots[low : low + length]
                empty = {i for i, held in enumerate(window) if not held}
                if len(empty) > wild:
                    break
                for n_jokers in range(len(empty), min(wild, length - 1) + 1):
                    for wild_spots in combinations(range(length), n_jokers):
                        if empty.issubset(wild_spots):
                            naturals = [window[i] for i in range(length) if i not in wild_spots]
                            add(naturals, n_jokers)
    return sorted(found)


class MeldSearch:
    """Least deadwood over subsets of one hand's cards, memoised by the mask of cards left."""

    def __init__(self, cards: Iterable[Card], rules: RuleSet) -> None:
        self.cards = sorted(cards, key=lambda card: card.index)
        self.full = (1 << len(self.cards)) - 1
        # each card's deadwood value, as melds.card_value gives it
        self.values = [rules.joker_value if c.rank == 0 else c.value for c in self.cards]
        self.melds_from: list[list[int]] = [[] for _ in self.cards]
        for meld in _meld_masks(self.cards, rules):
            self.melds_from[(meld & -meld).bit_length() - 1].append(meld)
        self.memo = {0: 0}

    def deadwood(self, left: int) -> int:
        best = self.memo.get(left)
        if best is not None:
            return best
        low = left & -left
        first = low.bit_length() - 1
        best = self.values[first] + self.deadwood(left ^ low)
        for meld in self.melds_from[first]:
            if meld & left == meld:
                best = min(best, self.deadwood(left ^ meld))
        self.memo[left] = best
        return best

    def arrangements(self, left: int) -> Iterator[list[int]]:
        """Every way to meld ``left`` with least deadwood, as lists of meld masks."""
        if not left:
            yield []
            return
        target = self.deadwood(left)
        low = left & -left
        first = low.bit_length() - 1
        if self.values[first] + self.deadwood(left ^ low) == target:
            yield from self.arrangements(left ^ low)
        for meld in self.melds_from[first]:
            if meld & left == meld and self.deadwood(left ^ meld) == target:
                for rest in self.arrangements(left ^ meld):
                    yield [meld, *rest]

    def cards_of(self, mask: int) -> list[Card]:
        """The cards of a mask over this search's (sorted) cards."""
        return [card for i, card in enumerate(self.cards) if mask >> i & 1]


def general_min_deadwood(cards: Sequence[Card], rules: RuleSet) -> int:
    """:func:`ginp2p.game.melds.min_deadwood` for any hand (jokers, two decks)."""
    search = MeldSearch(cards, rules)
    return search.deadwood(search.full)


def general_best_discard(cards: Sequence[Card], rules: RuleSet) -> tuple[Card, int]:
    """:func:`ginp2p.game.melds.best_discard` for any hand (jokers, two decks), with the
    same ties: the least deadwood left, then the higher value, then the higher index."""
    search = MeldSearch(cards, rules)
    after: dict[int, int] = {}  # two copies of a card, or two jokers, are the same discard
    for i, card in enumerate(search.cards):
        if card.face not in after:
            after[card.face] = search.deadwood(search.full ^ 1 << i)

    def key(card: Card) -> tuple[int, int, int]:
        value = rules.joker_value if card.rank == 0 else card.value
        return (after[card.face], -value, -card.index)

    card = min(cards, key=key)
    return card, after[card.face]
