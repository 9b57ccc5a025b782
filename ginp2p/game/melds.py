"""Melds, deadwood and layoffs: what a meld is, and an exact solver, never a greedy guess.

Here are the meld's own rules (:class:`Meld`, :func:`meld_of` and why a meld is
refused, in words for a player), the deadwood questions asked about a hand
(:func:`min_deadwood`, :func:`best_discard`, :func:`best_arrangement`,
:func:`all_melds`) and the layoffs (:func:`check_layoffs`, :func:`best_layoffs`).

Two solvers answer the deadwood questions, with the same answers: a single-deck hand
without jokers (the hot path for the engine and the bots) goes to the 52-bit masks
of :mod:`ginp2p.game.masks`; any other hand (showdowns, Italian and rumino hands) to
the memoised search of :mod:`ginp2p.game.search`. The defender's best layoffs are the
best over every way of laying off (a few cards at most can ever fit) combined with
the search on the cards that are left.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace

from ginp2p.game.cards import RANKS, Card, Suit
from ginp2p.game.masks import best_discard_mask, min_deadwood_mask, single_deck
from ginp2p.game.rules import CLASSIC, RuleSet
from ginp2p.game.search import MeldSearch, general_best_discard, general_min_deadwood

__all__ = [
    "Layoff",
    "Meld",
    "all_melds",
    "best_arrangement",
    "best_discard",
    "best_layoffs",
    "can_lay_off",
    "card_value",
    "check_layoffs",
    "deadwood",
    "is_meld",
    "is_rumino",
    "meld_of",
    "min_deadwood",
]


def _order(card: Card) -> tuple[bool, int, int, int]:
    """Sort key of cards in a meld: rank, suit, copy, jokers last."""
    return (card.rank == 0, card.rank, 0 if card.suit is None else int(card.suit), card.copy)


def _names(cards: Iterable[Card]) -> str:
    return " ".join(str(card) for card in cards)


# -- melds ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Meld:
    """Cards declared together as a set or a run.

    The cards are kept sorted (rank, suit, copy, jokers last) so that two
    declarations of the same cards are equal. Build checked melds with
    :func:`meld_of`; a ``Meld`` itself does not know the rules.
    """

    cards: tuple[Card, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "cards", tuple(sorted(self.cards, key=_order)))

    @property
    def kind(self) -> str:
        """``"set"`` when the natural cards share one rank, else ``"run"``."""
        return "set" if len({card.rank for card in self.cards if card.rank}) <= 1 else "run"

    @property
    def value(self) -> int:
        """Face value of the cards (a joker counts 10)."""
        return sum(card.value for card in self.cards)

    def __len__(self) -> int:
        return len(self.cards)

    def __iter__(self) -> Iterator[Card]:
        return iter(self.cards)

    @property
    def in_order(self) -> tuple[Card, ...]:
        """A run in sequence with its jokers where they stand (``QH KH AH``, ``7H JK 9H``);
        a set as kept."""
        if self.kind == "set":
            return self.cards
        naturals = [card for card in self.cards if card.rank]
        placements = _run_placements([card.rank for card in naturals], len(self.cards), True)
        if not placements:
            return self.cards
        low, positions = placements[-1]
        slots: list[Card | None] = [None] * len(self.cards)
        for card, position in zip(naturals, positions, strict=True):
            slots[position - low] = card
        jokers = iter(card for card in self.cards if not card.rank)
        return tuple(card if card is not None else next(jokers) for card in slots)

    def __str__(self) -> str:
        return _names(self.in_order)


@dataclass(frozen=True, slots=True)
class Layoff:
    """A defender's card laid off onto ``knocker_melds[meld]``."""

    card: Card
    meld: int


def _run_placements(
    ranks: Sequence[int], length: int, ace_high: bool
) -> list[tuple[int, list[int]]]:
    """Every way to place these natural ranks in a run of ``length`` cards.

    Each placement is ``(lowest position, position of each rank)``; positions run
    1 (ace low) to 13, or 14 for a high ace. Empty: the ranks cannot be one run.
    """
    if length > 13 or len(set(ranks)) != len(ranks):
        return []
    top = 14 if ace_high else 13
    placements = []
    for ace in (1, 14) if ace_high and 1 in ranks else (1,):
        positions = [ace if rank == 1 else rank for rank in ranks]
        lowest, highest = min(positions), max(positions)
        for low in range(max(1, highest - length + 1), min(lowest, top - length + 1) + 1):
            placements.append((low, positions))
    return placements


def _join(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _why_not_set(cards: Sequence[Card], naturals: list[Card]) -> str | None:
    if len(cards) > 4:
        return "not a set: a set has at most 4 cards"
    suits: set[Suit | None] = set()
    for card in naturals:
        if card.suit in suits:
            return f"not a set: it has {card} twice"
        suits.add(card.suit)
    return None


def _fits_round_the_corner(ranks: list[int], length: int) -> bool:
    """Whether the ranks fit ``length`` places running on from K to A (jokers filling gaps)."""
    return any(set(ranks) <= {(start + i) % 13 + 1 for i in range(length)} for start in range(13))


def _why_not_run(cards: Sequence[Card], naturals: list[Card], rules: RuleSet) -> str | None:
    ranks = [card.rank for card in naturals]
    for card in naturals:
        if ranks.count(card.rank) > 1:
            return f"not a run: it has {card} twice"
    longest = min(rules.max_run_length or 13, 13)
    if len(cards) > longest:
        return f"not a run: a run has at most {longest} cards in these rules"
    if _run_placements(ranks, len(cards), rules.ace_high):
        return None
    if 1 in ranks and not rules.ace_high and _run_placements(ranks, len(cards), True):
        return "not a run: the ace is low only (A-2-3) in these rules"
    if _fits_round_the_corner(ranks, len(cards)):
        return "not a run: a run cannot go round the corner (K-A-2)"
    aces = (1, 14) if rules.ace_high else (1,)
    positions = min(
        ([ace if rank == 1 else rank for rank in ranks] for ace in aces),
        key=lambda spots: max(spots) - min(spots),
    )
    letter = naturals[0].code[-1]  # the suit
    missing = [
        RANKS[1 if spot == 14 else spot] + letter
        for spot in range(min(positions), max(positions) + 1)
        if spot not in positions
    ]
    text = f"{_join(missing)} {'is' if len(missing) == 1 else 'are'} missing"
    jokers = len(cards) - len(naturals)
    if jokers:
        text += f", more than {_plural(jokers, 'joker')} can stand for"
    return f"not a run: {text}"


def _why_not_meld(cards: Sequence[Card], rules: RuleSet) -> str | None:
    """None for a valid meld, else why not, worded for a player (``not a run: ...``)."""
    if len(cards) < 3:
        return "not a meld: a meld has at least 3 cards"
    naturals = [card for card in cards if card.rank]
    jokers = len(cards) - len(naturals)
    if jokers > rules.jokers_per_meld:
        if rules.jokers_per_meld == 0:
            return "not a meld: jokers cannot be melded in these rules"
        return f"not a meld: at most {_plural(rules.jokers_per_meld, 'joker')} in one meld"
    if not naturals:
        return "not a meld: it needs a card that is not a joker"
    if len({card.rank for card in naturals}) == 1:
        problem = _why_not_set(cards, naturals)
        if problem is None or len(naturals) > 1:
            return problem
    if len({card.suit for card in naturals}) > 1:
        return "neither a set (one rank) nor a run (one suit)"
    return _why_not_run(cards, naturals, rules)


def _is_set(cards: Sequence[Card], rules: RuleSet) -> bool:
    naturals = [card for card in cards if card.rank]
    return (
        3 <= len(cards) <= 4
        and bool(naturals)
        and len(cards) - len(naturals) <= rules.jokers_per_meld
        and len({card.rank for card in naturals}) == 1
        and len({card.suit for card in naturals}) == len(naturals)
    )


def _is_run(cards: Sequence[Card], rules: RuleSet, declared: bool = True) -> bool:
    """Whether the cards are one run; ``rules.max_run_length`` limits declared runs only."""
    naturals = [card for card in cards if card.rank]
    longest = min(rules.max_run_length or 13, 13) if declared else 13
    return (
        3 <= len(cards) <= longest
        and bool(naturals)
        and len(cards) - len(naturals) <= rules.jokers_per_meld
        and len({card.suit for card in naturals}) == 1
        and bool(_run_placements([card.rank for card in naturals], len(cards), rules.ace_high))
    )


def card_value(card: Card, rules: RuleSet = CLASSIC) -> int:
    """Deadwood value: ace 1, pips at face value, court cards 10, a joker as the rules say."""
    return rules.joker_value if card.rank == 0 else card.value


def deadwood(cards: Iterable[Card], rules: RuleSet = CLASSIC) -> int:
    """Plain sum of the values of these cards, as if none of them were melded."""
    return sum(card_value(card, rules) for card in cards)


def is_meld(cards: Sequence[Card], rules: RuleSet = CLASSIC) -> bool:
    """Whether these cards may be declared together as one set or run."""
    return _is_set(cards, rules) or _is_run(cards, rules)


def meld_of(cards: Iterable[Card], rules: RuleSet = CLASSIC) -> Meld:
    """A checked meld; ``ValueError`` says why not (``7H 8H TH is not a run: 9H is missing``)."""
    cards = list(cards)
    problem = _why_not_meld(cards, rules)
    if problem is not None:
        raise ValueError(f"{_names(sorted(cards, key=_order))} is {problem}")
    return Meld(tuple(cards))


def is_rumino(cards: Sequence[Card], rules: RuleSet = CLASSIC) -> bool:
    """Seven cards that are one straight flush or all of one rank (jokers wild)."""
    if len(cards) != 7:
        return False
    naturals = [card for card in cards if card.rank]
    if not naturals or 7 - len(naturals) > rules.jokers_per_meld:
        return False
    ranks = [card.rank for card in naturals]
    if len(set(ranks)) == 1:
        return True
    return len({card.suit for card in naturals}) == 1 and bool(
        _run_placements(ranks, 7, rules.ace_high)
    )


def _meld(search: MeldSearch, mask: int) -> Meld:
    """The meld of a mask over the search's cards."""
    return Meld(tuple(search.cards_of(mask)))


def all_melds(cards: Iterable[Card], rules: RuleSet = CLASSIC) -> list[Meld]:
    """Every valid meld made of these cards only, in a fixed order."""
    search = MeldSearch(cards, rules)
    return _sorted_melds(_meld(search, mask) for masks in search.melds_from for mask in masks)


def min_deadwood(cards: Iterable[Card] | int, rules: RuleSet = CLASSIC) -> int:
    """Least deadwood over every way to meld the hand (a mask: see
    :func:`ginp2p.game.masks.hand_mask`)."""
    if isinstance(cards, int):
        return min_deadwood_mask(cards, rules)
    if not isinstance(cards, list | tuple):
        cards = list(cards)
    single = single_deck(cards)
    if single is not None:
        return min_deadwood_mask(single[0], rules)
    return general_min_deadwood(cards, rules)


def best_discard(cards: Iterable[Card], rules: RuleSet = CLASSIC) -> tuple[Card, int]:
    """The discard that leaves the least deadwood, and that deadwood.

    Ties go to the card of higher value (it costs most if the hand is not melded
    further), then to the higher index, so every peer picks the same card.
    """
    cards = list(cards)
    if not cards:
        raise ValueError("there is no card to discard")
    single = single_deck(cards)
    if single is not None and single[1]:  # then a card's index is its bit
        bit, left = best_discard_mask(single[0], rules)
        return next(card for card in cards if card.face == bit), left
    return general_best_discard(cards, rules)


# -- layoffs ------------------------------------------------------------------------


def _run_ends_fit(declared: Sequence[Card], laid: Sequence[Card], rules: RuleSet) -> bool:
    """Whether the laid-off cards extend the declared run at its ends (by at most the
    limit at each end), the declared cards keeping their places: a card never takes
    the place a declared joker stands for."""
    limit = rules.layoffs_per_run_end
    if limit is None:
        limit = len(laid)
    declared_ranks = [card.rank for card in declared if card.rank]
    laid_ranks = [card.rank for card in laid if card.rank]
    size = len(declared) + len(laid)
    room = len(laid)  # positions outside the declared cards
    for low, positions in _run_placements(declared_ranks + laid_ranks, size, rules.ace_high):
        own, added = positions[: len(declared_ranks)], positions[len(declared_ranks) :]
        for start in range(low + max(0, room - limit), low + min(room, limit) + 1):
            end = start + len(declared) - 1
            if all(start <= spot <= end for spot in own) and not any(
                start <= spot <= end for spot in added
            ):
                return True
    return False


def _layoff_fits(meld: Meld, laid: Sequence[Card], rules: RuleSet) -> bool:
    """Whether all of ``laid`` may be laid off together onto the (valid) ``meld``.

    Layoffs may make a run longer than ``rules.max_run_length``, which limits what
    is declared (OpenSpiel lays two cards on each end of a declared run of five).
    """
    combined = [*meld.cards, *laid]
    return _is_set(combined, rules) or (
        _is_run(combined, rules, declared=False) and _run_ends_fit(meld.cards, laid, rules)
    )


def _why_not_layoff(meld: Meld, laid: Sequence[Card], rules: RuleSet) -> str | None:
    """None if all of ``laid`` fit onto the (valid) ``meld`` together, else why not."""
    if _layoff_fits(meld, laid, rules):
        return None
    combined = [*meld.cards, *laid]
    problem = _why_not_meld(combined, replace(rules, max_run_length=None))
    what = f"{_names(laid)} cannot be laid off on {meld}"
    if problem is not None:
        return f"{what}: {_names(sorted(combined, key=_order))} would be {problem}"
    text = f"{what}: laid-off cards must extend the run at its ends"
    if rules.layoffs_per_run_end is not None:
        text += f", at most {_plural(rules.layoffs_per_run_end, 'card')} at each"
    return text


def check_layoffs(
    knocker_melds: Sequence[Meld], layoffs: Sequence[Layoff], rules: RuleSet = CLASSIC
) -> str | None:
    """None if the defender may lay off all of these together, else why not.

    Each knocker meld together with every card laid on it must be one valid meld
    (a run may grow past ``rules.max_run_length``); cards laid on a run extend it at
    its ends (never taking the place of one of its jokers), and with
    ``rules.layoffs_per_run_end`` at most that many at each end.
    """
    melded = {card for meld in knocker_melds for card in meld.cards}
    laid: list[list[Card]] = [[] for _ in knocker_melds]
    seen: set[Card] = set()
    for layoff in layoffs:
        if not 0 <= layoff.meld < len(knocker_melds):
            return (
                f"{layoff.card} is laid off on meld {layoff.meld}, but the knocker's melds "
                f"are numbered 0 to {len(knocker_melds) - 1}"
            )
        if layoff.card in seen:
            return f"{layoff.card} is laid off twice"
        if layoff.card in melded:
            return f"{layoff.card} is one of the knocker's own cards"
        seen.add(layoff.card)
        laid[layoff.meld].append(layoff.card)
    for meld, cards in zip(knocker_melds, laid, strict=True):
        if not cards:
            continue
        if not is_meld(meld.cards, rules):
            return f"the knocker's meld {meld} is {_why_not_meld(meld.cards, rules)}"
        problem = _why_not_layoff(meld, cards, rules)
        if problem is not None:
            return problem
    return None


def can_lay_off(card: Card, meld: Meld, rules: RuleSet = CLASSIC) -> bool:
    """Whether this one card may be laid off onto this meld."""
    return check_layoffs([meld], [Layoff(card, 0)], rules) is None


def _spots(rank: int, ace_high: bool) -> tuple[int, ...]:
    """Where a natural rank can stand in a run: 1 to 13, and 14 for a high ace."""
    return (1, 14) if rank == 1 and ace_high else (rank,)


def _rank_bits(rank: int, ace_high: bool) -> int:
    """A rank's possible places in a run, as bits offset by 16."""
    return sum(1 << spot + 16 for spot in _spots(rank, ace_high))


def _next_spots(known: Sequence[Card], ace_high: bool) -> int:
    """The places (as in :func:`_rank_bits`) where one more natural card can join the
    meld ``known``: its rank, if a set, and just beyond either end of a run."""
    ranks = [card.rank for card in known if card.rank]
    bits = _rank_bits(ranks[0], ace_high) if len(set(ranks)) == 1 else 0
    for low, _ in _run_placements(ranks, len(known), ace_high):
        bits |= 1 << low - 1 + 16 | 1 << low + len(known) + 16
    return bits


def _grow_layoffs(
    meld: Meld, cards: Sequence[Card], candidates: list[int], rules: RuleSet
) -> list[int]:
    """Every set of ``cards[i]`` for ``i`` in ``candidates`` (as a mask of positions) that
    may be laid off onto the valid ``meld``, the empty set first.

    A valid set can always be laid card by card, each step valid (outwards from a
    run, any order onto a set), so growing the valid sets one card at a time finds
    them all.
    """
    # a joker (-1) may stand anywhere
    spot_bits = {
        i: _rank_bits(cards[i].rank, rules.ace_high) if cards[i].rank else -1 for i in candidates
    }
    choices = [0]
    frontier = [0]
    seen = {0}
    while frontier:
        grown = []
        for chosen in frontier:
            laid = [cards[i] for i in candidates if chosen >> i & 1]
            next_spots = _next_spots([*meld.cards, *laid], rules.ace_high)
            for i in candidates:
                bigger = chosen | 1 << i
                # a set is marked seen only once it is known valid: the card that
                # cannot be added on one path (2H onto 4H 5H JK, the joker then
                # standing for 3H) may be added on another (after 3H)
                if bigger in seen:
                    continue
                if spot_bits[i] & next_spots and _layoff_fits(meld, [*laid, cards[i]], rules):
                    seen.add(bigger)
                    grown.append(bigger)
        choices += sorted(grown)
        frontier = grown
    return choices


def _may_fit(meld: Meld, cards: Sequence[Card]) -> list[int]:
    """Positions of the cards that share the meld's rank (a set) or suit (a run), and jokers."""
    ranks = {card.rank for card in meld.cards if card.rank}
    suits = {card.suit for card in meld.cards if card.rank}
    return [
        i
        for i, card in enumerate(cards)
        if not card.rank
        or (len(ranks) == 1 and card.rank in ranks)
        or (len(suits) == 1 and card.suit in suits)
    ]


def _layoff_choices(meld: Meld, cards: Sequence[Card], rules: RuleSet) -> list[int]:
    """Every set of ``cards`` (as a mask of positions) that may be laid off onto ``meld``."""
    if not is_meld(meld.cards, rules):
        return [0]
    return _grow_layoffs(meld, cards, _may_fit(meld, cards), rules)


def _layable(meld: Meld, cards: Sequence[Card], rules: RuleSet) -> int:
    """The cards (as a mask of positions) that some valid layoff onto ``meld`` includes.

    The cards laid at one end of a run are a valid layoff by themselves, so the two
    ends are grown apart: far fewer sets than every combination of both ends.
    """
    if not is_meld(meld.cards, rules):
        return 0
    candidates = _may_fit(meld, cards)
    sides = [candidates]
    if meld.kind == "run":
        ace_high = rules.ace_high
        spots = [spot for card in meld.cards if card.rank for spot in _spots(card.rank, ace_high)]
        low, high = min(spots), max(spots)
        where = {
            i: _spots(cards[i].rank, ace_high) if cards[i].rank else (0, 15) for i in candidates
        }
        sides = [
            [i for i in candidates if min(where[i]) < high],  # a joker stands at either end
            [i for i in candidates if max(where[i]) > low],
        ]
    layable = 0
    for side in sides:
        for choice in _grow_layoffs(meld, cards, side, rules):
            layable |= choice
    return layable


def best_layoffs(
    defender_cards: Iterable[Card], knocker_melds: Sequence[Meld], rules: RuleSet = CLASSIC
) -> tuple[list[Meld], list[Layoff], int]:
    """The defender's best declaration: own melds and layoffs chosen together.

    Returns (own melds, layoffs, deadwood left). Ties go to fewer laid-off cards,
    then to a fixed order of the choices.
    """
    search = MeldSearch(defender_cards, rules)
    choices = [_layoff_choices(meld, search.cards, rules) for meld in knocker_melds]
    best: tuple[int, int] | None = None
    best_picks: list[int] = []

    def visit(index: int, used: int, picks: list[int]) -> None:
        nonlocal best, best_picks
        if index == len(choices):
            score = (search.deadwood(search.full ^ used), used.bit_count())
            if best is None or score < best:
                best, best_picks = score, picks
            return
        for chosen in choices[index]:
            if not chosen & used:
                visit(index + 1, used | chosen, [*picks, chosen])

    visit(0, 0, [])
    layoffs = [
        Layoff(card, index)
        for index, chosen in enumerate(best_picks)
        for card in search.cards_of(chosen)
    ]
    left = search.full ^ sum(best_picks)
    melds = _sorted_melds(_meld(search, mask) for mask in next(search.arrangements(left)))
    return melds, layoffs, search.deadwood(left)


def _sorted_melds(melds: Iterable[Meld]) -> list[Meld]:
    return sorted(melds, key=lambda meld: [_order(card) for card in meld.cards])


def best_arrangement(
    cards: Iterable[Card], rules: RuleSet = CLASSIC, unseen: Iterable[Card] | None = None
) -> tuple[list[Meld], list[Card]]:
    """Melds and deadwood cards with the least deadwood.

    With ``unseen`` (the cards the opponent may hold), among the best arrangements
    the one that lets the fewest of them be laid off is chosen: a knocker's melds
    decide what the defender can lay off. A card counts if some set of unseen cards
    containing it could be laid off onto one of the melds.
    """
    search = MeldSearch(cards, rules)
    arrangements = search.arrangements(search.full)
    chosen = next(arrangements)
    if unseen is not None:
        # Copies of one card lay off alike, and so do jokers: try one card per face
        # (as many jokers as one meld may take) and count every unseen card of the face.
        copies: dict[int, list[Card]] = {}
        for card in sorted(set(unseen), key=lambda card: card.index):
            copies.setdefault(card.face, []).append(card)
        candidates = [
            card
            for same in copies.values()
            for card in same[: rules.jokers_per_meld if same[0].rank == 0 else 1]
        ]
        layable_faces: dict[tuple[int, ...], set[int]] = {}

        def exposed(masks: list[int]) -> int:
            faces: set[int] = set()
            for mask in masks:
                meld = _meld(search, mask)
                key = tuple(card.face for card in meld.cards)
                if key not in layable_faces:
                    layable = _layable(meld, candidates, rules)
                    layable_faces[key] = {
                        card.face for i, card in enumerate(candidates) if layable >> i & 1
                    }
                faces |= layable_faces[key]
            return sum(len(copies[face]) for face in faces)

        fewest = exposed(chosen)
        for other in arrangements:
            count = exposed(other)
            if count < fewest:
                chosen, fewest = other, count
    melds = _sorted_melds(_meld(search, mask) for mask in chosen)
    return melds, sorted(search.cards_of(search.full ^ sum(chosen)), key=_order)
