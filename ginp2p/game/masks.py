"""Hand masks: a single-deck hand as a 52-bit integer, and the fast exact solver on it.

A hand is a 52-bit mask, bit ``suit * 13 + rank - 1``. Sets cross suits and runs do
not, so once the sets are chosen every suit can be solved on its own. For each suit a
table of 8192 entries (one per 13-bit mask, built once per ``(ace_high,
max_run_length)``) holds the least deadwood that runs alone leave. The only ranks
that can form a set are those held three or four times; bit tricks on the four suit
masks find them. Usually there are none and the answer is four table lookups;
otherwise every choice of sets (none, the four, or each of the threes) is tried,
except that a set no run could use is always melded. For a discard, a second table
holds each suit's best card to drop, so all eleven discards cost four more lookups.

This is the hot path of the engine and the computer player. It takes one deck
without jokers; :func:`ginp2p.game.melds.min_deadwood` and
:func:`~ginp2p.game.melds.best_discard` choose it when a hand allows it and
:mod:`ginp2p.game.search` otherwise.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache

from ginp2p.game.cards import Card, deck
from ginp2p.game.rules import CLASSIC, RuleSet

__all__ = [
    "ACES",
    "ALL_BITS",
    "BIT_VALUE",
    "KINGS",
    "RANK_ROW",
    "RUN_STARTS",
    "SUIT_BITS",
    "VALUE_BITS",
    "best_discard_mask",
    "hand_mask",
    "min_deadwood_mask",
    "single_deck",
]

#: The 13 bits of one suit in a hand mask, and the whole deck.
SUIT_BITS = 0x1FFF
ALL_BITS = (1 << 52) - 1
#: One rank in all four suits (the aces), and the kings.
RANK_ROW = 1 | 1 << 13 | 1 << 26 | 1 << 39
ACES = RANK_ROW
KINGS = RANK_ROW << 12
#: Ace to jack: where a run of three within a suit can start.
RUN_STARTS = 0x7FF * RANK_ROW
#: The deadwood value of the card at each bit, and the cards of each value (1 to 10).
BIT_VALUE = [min(bit % 13 + 1, 10) for bit in range(52)]
VALUE_BITS = {v: sum(1 << bit for bit in range(52) if BIT_VALUE[bit] == v) for v in range(1, 11)}
# Discards are compared as one int: deadwood, then the higher value, then the higher bit.
_DISCARD_TIE = [(15 - BIT_VALUE[bit]) << 6 | (63 - bit) for bit in range(52)]


@cache
def _run_table(ace_high: bool, max_run_length: int | None) -> list[int]:
    """Least deadwood that runs alone leave, for each 13-bit mask of one suit."""
    longest = min(max_run_length or 13, 13)
    runs: set[int] = set()
    for length in range(3, longest + 1):
        runs.update(((1 << length) - 1) << low for low in range(14 - length))
        if ace_high:
            runs.add(((1 << (length - 1)) - 1) << (14 - length) | 1)
    by_lowest: list[list[int]] = [[] for _ in range(13)]
    for run in sorted(runs):
        by_lowest[(run & -run).bit_length() - 1].append(run)
    table = [0] * 8192
    for mask in range(1, 8192):
        low = mask & -mask
        bit = low.bit_length() - 1
        best = BIT_VALUE[bit] + table[mask ^ low]
        for run in by_lowest[bit]:
            if run & mask == run and table[mask ^ run] < best:
                best = table[mask ^ run]
        table[mask] = best
    return table


def _runnable(mask: int, ace_high: bool) -> int:
    """The cards that have a run of three around them: the only cards any run can use."""
    starts = mask & mask >> 1 & mask >> 2 & RUN_STARTS
    cards = starts | starts << 1 | starts << 2
    if ace_high:
        aces = mask & mask >> 11 & mask >> 12 & RANK_ROW  # Q-K-A
        cards |= aces | aces << 11 | aces << 12
    return cards


def _set_choices(mask: int, set_only: int) -> list[int]:
    """Every choice of cards to meld as sets (0: none), as masks.

    A rank whose cards are all in ``set_only`` (no run can use them) is always melded.
    """
    a, b, c, d = mask & SUIT_BITS, mask >> 13 & SUIT_BITS, mask >> 26 & SUIT_BITS, mask >> 39
    threes = (a & b & (c | d)) | (c & d & (a | b))
    choices = [0]
    while threes:
        low = threes & -threes
        threes ^= low
        column = mask & low * RANK_ROW
        if column & set_only == column:
            choices = [choice | column for choice in choices]
            continue
        sets = [column]
        if column.bit_count() == 4:
            sets += [column ^ (low << 13 * suit) for suit in range(4)]
        choices += [choice | meld for choice in choices for meld in sets]
    return choices


def min_deadwood_mask(mask: int, rules: RuleSet = CLASSIC) -> int:
    """Least deadwood of a single-deck hand given as a 52-bit mask."""
    table = _run_table(rules.ace_high, rules.max_run_length)
    a, b, c, d = mask & SUIT_BITS, mask >> 13 & SUIT_BITS, mask >> 26 & SUIT_BITS, mask >> 39
    if not (a & b & (c | d)) | (c & d & (a | b)):
        return table[a] + table[b] + table[c] + table[d]
    best = 999
    for sets in _set_choices(mask, mask & ~_runnable(mask, rules.ace_high)):
        rest = mask ^ sets
        total = (
            table[rest & SUIT_BITS] + table[rest >> 13 & SUIT_BITS]
            + table[rest >> 26 & SUIT_BITS] + table[rest >> 39]
        )  # fmt: skip
        if total < best:
            best = total
    return best


@cache
def _drop_table(ace_high: bool, max_run_length: int | None) -> list[int]:
    """For each 13-bit suit mask, the best card to drop as ``deadwood left << 4 | bit``.

    Best: the least run-only deadwood left, then the higher value, then the higher bit
    (the same order as :func:`best_discard_mask`'s ties, so suits can be compared).
    """
    table = _run_table(ace_high, max_run_length)
    drops = [0] * 8192
    for mask in range(1, 8192):
        bit = max(
            (bit for bit in range(13) if mask >> bit & 1),
            key=lambda bit: (-table[mask ^ 1 << bit], BIT_VALUE[bit], bit),
        )
        drops[mask] = table[mask ^ 1 << bit] << 4 | bit
    return drops


def best_discard_mask(mask: int, rules: RuleSet = CLASSIC) -> tuple[int, int]:
    """(bit of the best discard, deadwood left) for a single-deck hand mask.

    Ties go to the higher value, then the higher bit. For each choice of sets the
    best discard of each suit is one lookup; a discard lowers deadwood by at most
    10, so choices of sets that leave more than 10 above the best so far are skipped.
    """
    if not mask:
        raise ValueError("there is no card to discard")
    table = _run_table(rules.ace_high, rules.max_run_length)
    drops = _drop_table(rules.ace_high, rules.max_run_length)
    a, b, c, d = mask & SUIT_BITS, mask >> 13 & SUIT_BITS, mask >> 26 & SUIT_BITS, mask >> 39
    if not (a & b & (c | d)) | (c & d & (a | b)):  # no three of a rank: runs alone
        choices = [(table[a] + table[b] + table[c] + table[d], (a, b, c, d))]
    else:
        choices = _set_choice_totals(mask, table)
    best = 1 << 30  # deadwood << 10 | _DISCARD_TIE[bit]: the least is the best discard
    for total, suits in choices:
        if total - 10 > best >> 10:
            break
        for offset, held in zip((0, 13, 26, 39), suits, strict=True):
            if held:
                drop = drops[held]
                key = (total - table[held] + (drop >> 4)) << 10 | _DISCARD_TIE[(drop & 15) + offset]
                if key < best:
                    best = key
    return 63 - (best & 63), best >> 10


def _set_choice_totals(mask: int, table: list[int]) -> list[tuple[int, tuple[int, int, int, int]]]:
    """For each choice of sets, (run-only deadwood of the rest, the rest by suit), least
    deadwood first."""
    choices = []
    for sets in _set_choices(mask, 0):
        rest = mask ^ sets
        suits = (rest & SUIT_BITS, rest >> 13 & SUIT_BITS, rest >> 26 & SUIT_BITS, rest >> 39)
        a, b, c, d = suits
        choices.append((table[a] + table[b] + table[c] + table[d], suits))
    choices.sort()
    return choices


def _card_bits(card: Card) -> int:
    """A card's bit in a hand mask, plus bit 52 for a joker and bit 64 for a second copy."""
    if card.rank == 0:
        return 1 << 52
    return 1 << card.face | card.copy << 64


# Every card of cards.deck() exists once, so its id finds its bits without hashing a Card.
_BITS_BY_ID = {id(card): _card_bits(card) for card in deck(108)}


def single_deck(cards: Sequence[Card]) -> tuple[int, bool] | None:
    """(hand mask, whether every card is a first copy), or None for a hand with a joker
    or two copies of one card, which the single-deck functions cannot take."""
    try:
        total = sum(map(_BITS_BY_ID.__getitem__, map(id, cards)))
    except KeyError:  # a Card made outside cards.deck()
        total = sum(map(_card_bits, cards))
    mask = total & ALL_BITS
    if total >> 52 & 0xFFF or mask.bit_count() != len(cards):
        return None
    return mask, total < 1 << 64


def hand_mask(cards: Iterable[Card]) -> int:
    """The 52-bit mask (bit ``suit * 13 + rank - 1``) of a hand for the fast functions."""
    single = single_deck(list(cards))
    if single is None:
        raise ValueError("a hand mask holds no joker and no two copies of one card")
    return single[0]
