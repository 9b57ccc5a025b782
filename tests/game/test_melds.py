"""The meld solver against brute force, the oracle sample and worked examples.

The brute force below shares no code with ginp2p.game.melds: a meld is checked by
trying every card each joker could stand for, and the least deadwood by trying
every family of disjoint melds.
"""

from __future__ import annotations

import json
from dataclasses import replace
from functools import cache
from itertools import combinations, product
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ginp2p.game.cards import Card, Suit, deck, parse_card, parse_cards
from ginp2p.game.masks import best_discard_mask, hand_mask, min_deadwood_mask
from ginp2p.game.melds import (
    Layoff,
    Meld,
    all_melds,
    best_arrangement,
    best_discard,
    best_layoffs,
    can_lay_off,
    card_value,
    check_layoffs,
    deadwood,
    is_meld,
    is_rumino,
    meld_of,
    min_deadwood,
)
from ginp2p.game.rules import CLASSIC, ITALIAN, ITALIAN_JOKERS, OPENSPIEL, RUMINO, RuleSet

DATA = Path(__file__).parents[1] / "data" / "deadwood_cases_sample.jsonl"
ACE_HIGH = CLASSIC.with_(name="ace-high", ace_high=True)
RUNS_OF_4 = CLASSIC.with_(name="runs-of-4", max_run_length=4)
TWO_JOKERS = ITALIAN_JOKERS.with_(name="two-jokers", jokers_per_meld=2, joker_value=15)

SOME = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
FEW = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def cards(text: str) -> list[Card]:
    return parse_cards(text)


# -- brute force ----------------------------------------------------------------------

FACES = [(rank, suit) for suit in Suit for rank in range(1, 14)]


def bf_value(card: Card, rules: RuleSet) -> int:
    if card.rank == 0:
        return rules.joker_value
    return min(card.rank, 10)


def bf_natural_set(faces: list[tuple[int, Suit]]) -> bool:
    return (
        3 <= len(faces) <= 4
        and len({rank for rank, _ in faces}) == 1
        and len({suit for _, suit in faces}) == len(faces)
    )


def bf_run_positions(faces: list[tuple[int, Suit]], rules: RuleSet) -> list[list[int]]:
    """The ranks as positions in a run, ace low and, where allowed, ace high."""
    options = [[rank for rank, _ in faces]]
    if rules.ace_high:
        options.append([14 if rank == 1 else rank for rank, _ in faces])
    return [spots for spots in options if sorted(spots) == list(range(min(spots), max(spots) + 1))]


def bf_natural_run(faces: list[tuple[int, Suit]], rules: RuleSet) -> bool:
    if len(faces) < 3 or len({suit for _, suit in faces}) != 1:
        return False
    if rules.max_run_length is not None and len(faces) > rules.max_run_length:
        return False
    return bool(bf_run_positions(faces, rules))


def bf_stand_ins(group: tuple[Card, ...]) -> list[list[tuple[int, Suit]]]:
    """Every way to read the group's jokers as natural cards."""
    choices = [[(card.rank, card.suit)] if card.rank else FACES for card in group]
    return [list(faces) for faces in product(*choices)]


@cache
def bf_is_meld(group: tuple[Card, ...], rules: RuleSet) -> bool:
    jokers = sum(1 for card in group if card.rank == 0)
    if len(group) < 3 or jokers == len(group) or jokers > rules.jokers_per_meld:
        return False
    return any(
        bf_natural_set(faces) or bf_natural_run(faces, rules) for faces in bf_stand_ins(group)
    )


def canonical(group) -> tuple[Card, ...]:
    return tuple(sorted(group, key=lambda card: card.index))


def bf_meld_families(hand: tuple[Card, ...], rules: RuleSet) -> list[tuple[int, list]]:
    """Every family of disjoint melds of the hand, with the deadwood it leaves."""
    melds = [
        frozenset(group)
        for size in range(3, len(hand) + 1)
        for group in combinations(canonical(hand), size)
        if bf_is_meld(canonical(group), rules)
    ]
    total = sum(bf_value(card, rules) for card in hand)
    families = []

    def extend(start: int, used: frozenset, chosen: list) -> None:
        families.append((total - sum(bf_value(card, rules) for card in used), chosen))
        for i in range(start, len(melds)):
            if not melds[i] & used:
                extend(i + 1, used | melds[i], [*chosen, melds[i]])

    extend(0, frozenset(), [])
    return families


@cache
def bf_min_deadwood(hand: tuple[Card, ...], rules: RuleSet) -> int:
    return min(left for left, _ in bf_meld_families(hand, rules))


@cache
def bf_layoff_ok(declared: tuple[Card, ...], laid: tuple[Card, ...], rules: RuleSet) -> bool:
    combined = declared + laid
    # The longest run limits declared runs only; layoffs may go past it.
    if not bf_is_meld(canonical(combined), replace(rules, max_run_length=None)):
        return False
    limit = rules.layoffs_per_run_end if rules.layoffs_per_run_end is not None else len(laid)
    for faces in bf_stand_ins(combined):
        if bf_natural_set(faces):
            return True
        if not bf_natural_run(faces, replace(rules, max_run_length=None)):
            continue
        for spots in bf_run_positions(faces, rules):
            own, added = spots[: len(declared)], spots[len(declared) :]
            if max(own) - min(own) + 1 != len(own):
                continue
            below = sum(1 for spot in added if spot < min(own))
            above = sum(1 for spot in added if spot > max(own))
            if below <= limit and above <= limit:
                return True
    return False


def bf_best_layoffs(defender: list[Card], melds: list[Meld], rules: RuleSet) -> int:
    """Every card: kept (melded or deadwood) or laid off onto any meld it shares a rank
    or a suit with (a joker: onto any)."""

    def targets(card: Card) -> list[int | None]:
        return [None] + [
            i
            for i, meld in enumerate(melds)
            if card.rank == 0
            or any(other.rank and (other.rank == card.rank or other.suit == card.suit)
                   for other in meld.cards)
        ]  # fmt: skip

    best = None
    for choice in product(*(targets(card) for card in defender)):
        groups = [
            tuple(card for card, to in zip(defender, choice, strict=True) if to == i)
            for i in range(len(melds))
        ]
        if any(group and not bf_layoff_ok(meld.cards, group, rules)
               for meld, group in zip(melds, groups, strict=True)):  # fmt: skip
            continue
        kept = tuple(card for card, to in zip(defender, choice, strict=True) if to is None)
        dw = bf_min_deadwood(canonical(kept), rules)
        best = dw if best is None else min(best, dw)
    assert best is not None
    return best


# -- hand strategies --------------------------------------------------------------------


def rank_window(low: int, width: int) -> set[int]:
    return {(low + k - 1) % 13 + 1 for k in range(width)}


@st.composite
def hands(draw, rules: RuleSet, sizes: tuple[int, int]):
    """Random hands; two in three drawn mostly from a few ranks (meld-rich), some of
    those from every suit (sets of three and four that compete with runs)."""
    full = list(deck(rules.deck_size))
    size = draw(st.integers(*sizes))
    style = draw(st.sampled_from(["random", "few ranks", "grid"]))
    if style == "random":
        return draw(st.lists(st.sampled_from(full), unique=True, min_size=size, max_size=size))
    if style == "grid":
        ranks = rank_window(draw(st.integers(1, 13)), draw(st.integers(3, 4)))
        suits = set(Suit)
    else:
        ranks = rank_window(draw(st.integers(1, 13)), draw(st.integers(3, 5)))
        suits = set(draw(st.lists(st.sampled_from(list(Suit)), min_size=2, max_size=4)))
    pool = [card for card in full if card.rank == 0 or (card.rank in ranks and card.suit in suits)]
    most = min(size, len(pool))
    dense = draw(st.lists(st.sampled_from(pool), unique=True, min_size=most // 2, max_size=most))
    rest = [card for card in full if card not in dense]
    extra = draw(st.lists(st.sampled_from(rest), unique=True, min_size=size - len(dense),
                          max_size=size - len(dense)))  # fmt: skip
    return dense + extra


# -- min_deadwood -------------------------------------------------------------------------


@pytest.mark.parametrize("rules", [CLASSIC, ACE_HIGH, RUNS_OF_4, OPENSPIEL], ids=lambda r: r.name)
@FEW
@given(data=st.data())
def test_min_deadwood_single_deck_matches_brute_force(rules, data):
    hand = data.draw(hands(rules, (10, 11)))
    expected = bf_min_deadwood(canonical(hand), rules)
    assert min_deadwood(hand, rules) == expected
    assert min_deadwood(hand_mask(hand), rules) == expected
    assert min_deadwood_mask(hand_mask(hand), rules) == expected


@pytest.mark.parametrize("rules", [ITALIAN, ITALIAN_JOKERS, RUMINO], ids=lambda r: r.name)
@SOME
@given(data=st.data())
def test_min_deadwood_multi_deck_and_jokers_matches_brute_force(rules, data):
    hand = data.draw(hands(rules, (7, 11)))
    assert min_deadwood(hand, rules) == bf_min_deadwood(canonical(hand), rules)


@FEW
@given(hand=hands(TWO_JOKERS, (6, 8)))
def test_min_deadwood_two_jokers_per_meld_matches_brute_force(hand):
    assert min_deadwood(hand, TWO_JOKERS) == bf_min_deadwood(canonical(hand), TWO_JOKERS)


@pytest.mark.parametrize("rules", [ITALIAN_JOKERS, RUMINO], ids=lambda r: r.name)
@FEW
@given(data=st.data())
def test_all_melds_lists_exactly_the_valid_groups(rules, data):
    hand = canonical(data.draw(hands(rules, (5, 8))))
    expected = {
        frozenset(group)
        for size in range(3, len(hand) + 1)
        for group in combinations(hand, size)
        if bf_is_meld(group, rules)
    }
    found = all_melds(hand, rules)
    assert {frozenset(meld.cards) for meld in found} == expected
    assert len(found) == len(expected)
    assert found == all_melds(reversed(hand), rules)


def test_min_deadwood_examples():
    assert min_deadwood(cards("AS 2S 3S 4S 5S 6S 7S 8S 9S TS")) == 0
    assert min_deadwood(cards("7H 7S 7D 8H 9H")) == 14  # the 7H in the run, not the set
    assert min_deadwood(cards("QH KH AH")) == 21
    assert min_deadwood(cards("QH KH AH"), ACE_HIGH) == 0
    assert min_deadwood(cards("KH AH 2H"), ACE_HIGH) == 13
    assert min_deadwood(cards("3H 4H 5H 6H 7H 8H"), RUNS_OF_4) == 0  # 3 + 3
    assert min_deadwood(cards("3H 4H 5H 6H 7H"), RUNS_OF_4) == 3
    assert min_deadwood(cards("7H 7H#1 7S"), ITALIAN) == 21  # two 7H are never one set
    assert min_deadwood(cards("7H 7H#1 7S 7D"), ITALIAN) == 7
    assert min_deadwood(cards("7H JK 9H 5S"), ITALIAN_JOKERS) == 5
    assert min_deadwood(cards("7H JK JK#1 5S"), ITALIAN_JOKERS) == 32  # one joker a meld
    assert min_deadwood(cards("7H JK JK#1 5S"), TWO_JOKERS) == 5
    assert min_deadwood(cards("JK"), ITALIAN_JOKERS.with_(joker_value=25)) == 25
    assert min_deadwood([]) == 0


# -- best_discard ---------------------------------------------------------------------------


@pytest.mark.parametrize("rules", [CLASSIC, ACE_HIGH, ITALIAN_JOKERS], ids=lambda r: r.name)
@FEW  # eleven brute-force solutions an example
@given(data=st.data())
def test_best_discard_matches_brute_force(rules, data):
    hand = data.draw(hands(rules, (11, 11)))
    after = {card: bf_min_deadwood(canonical(c for c in hand if c != card), rules) for card in hand}
    expected = min(hand, key=lambda card: (after[card], -bf_value(card, rules), -card.index))
    assert best_discard(hand, rules) == (expected, after[expected])
    if rules.deck_size == 52:
        assert best_discard_mask(hand_mask(hand), rules) == (expected.face, after[expected])


def test_best_discard_ties_go_to_the_higher_card():
    # 2C, 9D and KS are all unmatched; KS and its 10 points go.
    assert best_discard(cards("AH 2H 3H 5S 5D 5C 2C 9D KS 4H 6H")) == (parse_card("KS"), 17)
    # Every discard leaves gin; a ten-point card goes first, then the higher index.
    hand = cards("TS JS QS KS 2C 3C 4C 5C")
    assert best_discard(hand) == (parse_card("KS"), 0)
    assert best_discard_mask(hand_mask(hand)) == (parse_card("KS").face, 0)
    # TD and QC tie on value; QC has the higher index.
    assert best_discard(cards("AH 2H 3H TD QC"))[0] == parse_card("QC")
    # Two copies: the same deadwood, so the higher index (the second copy) goes.
    assert best_discard(cards("KS KS#1 AH 2H 3H"), ITALIAN) == (parse_card("KS#1"), 10)
    with pytest.raises(ValueError):
        best_discard([])


# -- the oracle sample ---------------------------------------------------------------------


def test_oracle_sample():
    lines = DATA.read_text().splitlines()
    assert len(lines) == 1300
    wrong = []
    for line in lines:
        case = json.loads(line)
        hand = parse_cards(case["hand"])
        if min_deadwood(hand) != case["min_deadwood"]:
            wrong.append((case["id"], "min_deadwood"))
        if case["n"] == 11 and best_discard(hand)[1] != case["min_deadwood_after_discard"]:
            wrong.append((case["id"], "min_deadwood_after_discard"))
    assert wrong == []


# -- best_arrangement -----------------------------------------------------------------------


@pytest.mark.parametrize("rules", [CLASSIC, RUNS_OF_4, ITALIAN_JOKERS], ids=lambda r: r.name)
@FEW
@given(data=st.data())
def test_best_arrangement_is_valid_and_least(rules, data):
    hand = data.draw(hands(rules, (9, 11)))
    others = [card for card in deck(rules.deck_size) if card not in hand]
    unseen = data.draw(st.none() | st.lists(st.sampled_from(others), unique=True, max_size=20))
    melds, dead = best_arrangement(hand, rules, unseen)
    used = [card for meld in melds for card in meld.cards] + dead
    assert sorted(used, key=lambda c: c.index) == sorted(hand, key=lambda c: c.index)
    assert all(is_meld(meld.cards, rules) for meld in melds)
    assert deadwood(dead, rules) == min_deadwood(hand, rules)


def test_best_arrangement_leaves_the_fewest_layoffs():
    hand = cards("7H 7S 7D 7C 8H 9H TH")
    four_sevens = [Meld(tuple(cards("7H 7S 7D 7C"))), Meld(tuple(cards("8H 9H TH")))]
    long_run = [Meld(tuple(cards("7S 7D 7C"))), Meld(tuple(cards("7H 8H 9H TH")))]
    unseen = [card for card in deck(52) if card not in hand]
    assert best_arrangement(hand)[0] == sorted_melds(long_run)  # without unseen cards
    # 8-9-T takes J, Q, K; 7-8-9-T would also take A to 6.
    assert best_arrangement(hand, CLASSIC, unseen) == (sorted_melds(four_sevens), [])
    # At most two at each end: 8-9-T takes J and Q, 7-8-9-T also 6 and 5.
    two_per_end = CLASSIC.with_(layoffs_per_run_end=2)
    assert best_arrangement(hand, two_per_end, unseen)[0] == sorted_melds(four_sevens)
    # Only what the opponent may hold counts: with 6H and JH unseen, 8-9-T takes
    # the JH, 7-8-9-T both; with the JH alone it is a tie, and the tie stays as it was.
    assert best_arrangement(hand, CLASSIC, cards("6H JH"))[0] == sorted_melds(four_sevens)
    assert best_arrangement(hand, CLASSIC, cards("JH"))[0] == sorted_melds(long_run)


@pytest.mark.parametrize("rules", [CLASSIC, RUNS_OF_4, OPENSPIEL], ids=lambda r: r.name)
@FEW
@given(data=st.data())
def test_best_arrangement_exposes_the_fewest_unseen_cards(rules, data):
    hand = data.draw(hands(rules, (6, 8)))
    near = [
        card
        for card in deck(rules.deck_size)
        if card not in hand
        and any(card.rank == other.rank or (card.suit == other.suit
                and abs(card.rank - other.rank) <= 2) for other in hand)
    ]  # fmt: skip
    unseen = data.draw(st.lists(st.sampled_from(near), unique=True, max_size=6))

    def exposed(melds) -> int:
        return sum(
            1
            for card in unseen
            if any(
                card in laid and bf_layoff_ok(canonical(meld), laid, rules)
                for meld in melds
                for size in range(1, len(unseen) + 1)
                for laid in combinations(unseen, size)
            )
        )

    families = bf_meld_families(canonical(hand), rules)
    least = min(left for left, _ in families)
    melds, dead = best_arrangement(hand, rules, unseen)
    assert deadwood(dead, rules) == least
    assert exposed([meld.cards for meld in melds]) == min(
        exposed(family) for left, family in families if left == least
    )


def sorted_melds(melds: list[Meld]) -> list[Meld]:
    return sorted(melds, key=lambda meld: [(c.rank, int(c.suit or 0)) for c in meld.cards])


# -- layoffs --------------------------------------------------------------------------------


def card_at(rank: int, suit: Suit, copy: int = 0) -> Card:
    return Card.from_index(copy * 52 + int(suit) * 13 + rank - 1)


@st.composite
def layoff_cases(draw, rules: RuleSet):
    """Knocker melds and a defender holding cards next to them, so layoffs matter."""
    copies = 2 if rules.multi_deck else 1
    jokers = [card for card in deck(rules.deck_size) if card.rank == 0]
    melds: list[Meld] = []
    used: set[Card] = set()
    for _ in range(draw(st.integers(1, 3))):
        if draw(st.booleans()):
            suit = draw(st.sampled_from(list(Suit)))
            length = draw(st.integers(3, min(rules.max_run_length or 5, 5)))
            low = draw(st.integers(1, (15 if rules.ace_high else 14) - length))  # Q-K-A too
            ranks = [(low + k - 1) % 13 + 1 for k in range(length)]
            group = [card_at(rank, suit, draw(st.integers(0, copies - 1))) for rank in ranks]
        else:
            rank = draw(st.integers(1, 13))
            suits = draw(st.lists(st.sampled_from(list(Suit)), unique=True, min_size=3, max_size=3))
            group = [card_at(rank, suit, draw(st.integers(0, copies - 1))) for suit in suits]
        if jokers and draw(st.booleans()):
            group[draw(st.integers(0, len(group) - 1))] = jokers.pop()
        if used.isdisjoint(group):
            melds.append(Meld(tuple(group)))
            used.update(group)
    near = {
        card
        for meld in melds
        for card in deck(rules.deck_size)
        if card not in used
        and (card.rank == 0
             or any(other.rank and other.suit == card.suit and abs(other.rank - card.rank) <= 3
                    for other in meld.cards)
             or any(other.rank == card.rank for other in meld.cards))
    }  # fmt: skip
    pool = sorted(near, key=lambda card: card.index)
    defender = draw(st.lists(st.sampled_from(pool), unique=True, min_size=2, max_size=6))
    rest = [card for card in deck(rules.deck_size) if card not in used and card not in defender]
    defender += draw(st.lists(st.sampled_from(rest), unique=True, max_size=2))
    return melds, defender


LAYOFF_RULES = [CLASSIC, OPENSPIEL, ITALIAN_JOKERS, ITALIAN_JOKERS.with_(layoffs_per_run_end=2)]


@pytest.mark.parametrize("rules", LAYOFF_RULES, ids=["classic", "openspiel", "jokers", "jokers-2"])
@FEW
@given(data=st.data())
def test_best_layoffs_matches_brute_force(rules, data):
    knocker_melds, defender = data.draw(layoff_cases(rules))
    melds, layoffs, left = best_layoffs(defender, knocker_melds, rules)
    assert left == bf_best_layoffs(defender, knocker_melds, rules)
    assert best_layoffs(defender[::-1], knocker_melds, rules) == (melds, layoffs, left)
    assert check_layoffs(knocker_melds, layoffs, rules) is None
    assert all(is_meld(meld.cards, rules) for meld in melds)
    placed = [card for meld in melds for card in meld.cards] + [lay.card for lay in layoffs]
    assert len(placed) == len(set(placed)) and set(placed) <= set(defender)
    assert deadwood([card for card in defender if card not in placed], rules) == left


def test_best_layoffs_uses_a_laid_card_to_lay_the_next():
    run = Meld(tuple(cards("5H 6H 7H")))
    melds, layoffs, left = best_layoffs(cards("8H 9H KS"), [run])
    assert (melds, left) == ([], 10)
    assert sorted(lay.card.rank for lay in layoffs) == [8, 9]


def test_best_layoffs_moves_an_ambiguous_joker():
    # 4H 5H JK: once 3H is laid, the joker must be 6H and 2H fits below 3H;
    # laid in the other order 2H first pins the joker to 3H. Both cards go.
    run = meld_of(cards("4H 5H JK#3"), ITALIAN_JOKERS)
    _, layoffs, left = best_layoffs(cards("2H#1 3H#1"), [run], ITALIAN_JOKERS)
    assert left == 0 and sorted(lay.card.rank for lay in layoffs) == [2, 3]


def test_best_layoffs_weighs_own_melds_against_layoffs():
    # 8H alone on the run saves 8; 8H 8S 8D as a set saves 24.
    run = Meld(tuple(cards("5H 6H 7H")))
    melds, layoffs, left = best_layoffs(cards("8H 8S 8D 4H"), [run])
    assert melds == [meld_of(cards("8H 8S 8D"))]
    assert layoffs == [Layoff(parse_card("4H"), 0)] and left == 0


def test_check_layoffs():
    run = meld_of(cards("5H 6H 7H"))
    sevens = meld_of(cards("7S 7H 7D 7C"), ITALIAN)
    assert check_layoffs([run], [Layoff(c, 0) for c in cards("3H 4H 8H 9H TH")]) is None
    assert check_layoffs([run], []) is None
    assert (
        check_layoffs([run], [Layoff(parse_card("9H"), 0)])
        == "9H cannot be laid off on 5H 6H 7H: 5H 6H 7H 9H would be not a run: 8H is missing"
    )
    assert "at most 4 cards" in check_layoffs([sevens], [Layoff(parse_card("7S#1"), 0)], ITALIAN)
    two_per_end = CLASSIC.with_(layoffs_per_run_end=2)
    too_many = [Layoff(c, 0) for c in cards("8H 9H TH")]
    assert "at most 2 cards at each" in check_layoffs([run], too_many, two_per_end)
    both_ends = [Layoff(c, 0) for c in cards("3H 4H 8H 9H")]
    assert check_layoffs([run], both_ends, two_per_end) is None
    # OpenSpiel lays off past its longest declared run of 5, two cards at each end.
    assert check_layoffs([run], both_ends, OPENSPIEL) is None
    five = meld_of(cards("5H 6H 7H 8H 9H"), OPENSPIEL)
    assert check_layoffs([five], [Layoff(c, 0) for c in cards("3H 4H TH JH")], OPENSPIEL) is None
    assert "numbered 0 to 0" in check_layoffs([run], [Layoff(parse_card("8H"), 1)])
    twice = [Layoff(parse_card("8H"), 0), Layoff(parse_card("8H"), 0)]
    assert check_layoffs([run], twice) == "8H is laid off twice"
    assert "knocker's own" in check_layoffs([run], [Layoff(parse_card("7H"), 0)])
    assert check_layoffs([run], [Layoff(parse_card("JK"), 0)], ITALIAN_JOKERS) is None
    # A 6H would take the joker's place: 5H 6H 7H JK is a run, but 6H extends no end.
    gap = meld_of(cards("5H JK 7H"), ITALIAN_JOKERS)
    six = [Layoff(parse_card("6H#1"), 0)]
    assert check_layoffs([gap], six, ITALIAN_JOKERS).endswith("must extend the run at its ends")
    assert "at its ends, at most 2 cards at each" in check_layoffs(
        [gap], six, ITALIAN_JOKERS.with_(layoffs_per_run_end=2)
    )
    assert check_layoffs([gap], [Layoff(parse_card("8H"), 0)], ITALIAN_JOKERS) is None
    jokers = [Layoff(c, 0) for c in cards("JK JK#1")]
    assert "at most 1 joker" in check_layoffs([run], jokers, ITALIAN_JOKERS)


def test_can_lay_off():
    run = meld_of(cards("QH KH AH"), ACE_HIGH)
    assert can_lay_off(parse_card("JH"), run, ACE_HIGH)
    assert not can_lay_off(parse_card("2H"), run, ACE_HIGH)  # never round the corner
    assert can_lay_off(parse_card("8C"), meld_of(cards("8S 8H 8D")))
    assert not can_lay_off(parse_card("8C"), meld_of(cards("8S 8H 8D 8C#1"), ITALIAN), ITALIAN)
    assert can_lay_off(parse_card("9H"), meld_of(cards("5H 6H 7H 8H"), RUNS_OF_4), RUNS_OF_4)


# -- melds, messages, rumino ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "rules", "message"),
    [
        ("7H 8H TH", CLASSIC, "7H 8H TH is not a run: 9H is missing"),
        ("7H TH JK", ITALIAN_JOKERS, "8H and 9H are missing, more than 1 joker can stand for"),
        ("7H 8S 9H", CLASSIC, "neither a set (one rank) nor a run (one suit)"),
        ("7H 7H#1 7S", ITALIAN, "not a set: it has 7H twice"),
        ("7H 7H#1 8H", ITALIAN, "not a run: it has 7H twice"),
        ("7H 8H", CLASSIC, "a meld has at least 3 cards"),
        ("KH AH 2H", ACE_HIGH, "a run cannot go round the corner (K-A-2)"),
        ("QH KH AH", CLASSIC, "the ace is low only (A-2-3) in these rules"),
        ("3H 4H 5H 6H 7H", RUMINO, "a run has at most 4 cards in these rules"),
        ("7H JK JK#1", ITALIAN_JOKERS, "at most 1 joker in one meld"),
        ("7H 8H 9H", CLASSIC.with_(jokers_per_meld=0), None),
        ("JK JK#1 JK#2", TWO_JOKERS.with_(jokers_per_meld=3), "a card that is not a joker"),
    ],
)
def test_meld_of_messages(text, rules, message):
    if message is None:
        assert meld_of(cards(text), rules).kind == "run"
        return
    with pytest.raises(ValueError) as error:
        meld_of(cards(text), rules)
    assert message in str(error.value)
    assert not is_meld(cards(text), rules)


@pytest.mark.parametrize("rules", [ACE_HIGH, RUMINO, TWO_JOKERS], ids=lambda r: r.name)
@SOME
@given(data=st.data())
def test_is_meld_matches_brute_force(rules, data):
    group = data.draw(hands(rules, (2, 6)))
    expected = bf_is_meld(canonical(group), rules)
    assert is_meld(group, rules) == expected
    if expected:
        assert set(meld_of(group, rules).cards) == set(group)
    else:
        with pytest.raises(ValueError):
            meld_of(group, rules)


def test_meld_shape():
    run = meld_of(cards("9H 7H JK"), ITALIAN_JOKERS)
    assert run.cards == tuple(cards("7H 9H JK")) and run.kind == "run"
    assert str(run) == "7H JK 9H" and run.in_order == tuple(cards("7H JK 9H"))
    assert str(meld_of(cards("AH KH QH"), ACE_HIGH)) == "QH KH AH"
    assert str(meld_of(cards("7D 7S 7H"))) == "7S 7H 7D"
    assert meld_of(cards("7D 7S 7H")).kind == "set" and meld_of(cards("7D 7S 7H")).value == 21
    assert len(run) == 3 and list(run) == list(run.cards)
    assert Meld(tuple(cards("8H 7H 9H"))) == Meld(tuple(cards("7H 8H 9H")))
    assert card_value(parse_card("JK"), ITALIAN_JOKERS.with_(joker_value=25)) == 25
    assert card_value(parse_card("QS")) == 10


@pytest.mark.parametrize(
    ("text", "rules", "expected"),
    [
        ("3H 4H 5H 6H 7H 8H 9H", CLASSIC, True),
        ("3H 4H JK 6H 7H 8H 9H", RUMINO, True),
        ("3H JK JK#1 6H 7H 8H 9H", RUMINO, False),
        ("8H 9H TH JH QH KH AH", RUMINO, True),
        ("8H 9H TH JH QH KH AH", CLASSIC, False),
        ("7S 7S#1 7H 7H#1 7D 7D#1 7C", RUMINO, True),
        ("7S 7S#1 7H 7H#1 7D JK 7C", RUMINO, True),
        ("3H 4H 5H 6H 7H 8H 9S", CLASSIC, False),
        ("3H 4H 5H 6H 7H 8H", CLASSIC, False),
        ("3H 4H 5H 6H 7H 8H 9H TH", CLASSIC, False),
        ("3H 4H 5H 6H 7H 8H TH", CLASSIC, False),
    ],
)
def test_is_rumino(text, rules, expected):
    assert is_rumino(cards(text), rules) is expected


def test_hand_mask():
    assert hand_mask(cards("AS 2S KC")) == 1 | 2 | 1 << 51
    assert hand_mask(cards("7H#1")) == hand_mask(cards("7H"))
    with pytest.raises(ValueError):
        hand_mask(cards("7H 7H#1"))
    with pytest.raises(ValueError):
        hand_mask(cards("JK"))
