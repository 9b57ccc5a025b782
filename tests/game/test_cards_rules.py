"""Cards, decks and the rule set."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ginp2p.game.cards import Card, CardParseError, Suit, ascii_names, deck, parse_card, parse_cards
from ginp2p.game.rules import PRESETS, RuleSet, get_preset
from ginp2p.present.words import preset_words, settings_words


@pytest.mark.parametrize(
    ("text", "rank", "suit", "copy"),
    [
        ("7H", 7, Suit.HEARTS, 0),
        ("th", 10, Suit.HEARTS, 0),
        ("10♥", 10, Suit.HEARTS, 0),
        ("7♥", 7, Suit.HEARTS, 0),
        ("AS", 1, Suit.SPADES, 0),
        ("KC#1", 13, Suit.CLUBS, 1),
        ("qd", 12, Suit.DIAMONDS, 0),
        ("JK", 0, None, 0),
        ("JK#3", 0, None, 3),
    ],
)
def test_parse(text: str, rank: int, suit: Suit | None, copy: int) -> None:
    c = parse_card(text)
    assert (c.rank, c.suit, c.copy) == (rank, suit, copy)


@pytest.mark.parametrize("text", ["", "1", "11H", "7X", "ZZ", "7H#2", "JK#4", "7H#x"])
def test_parse_rejects_with_a_helpful_message(text: str) -> None:
    with pytest.raises(CardParseError):
        parse_card(text)


@pytest.mark.parametrize("size", [52, 104, 108])
def test_decks_are_distinct_and_round_trip(size: int) -> None:
    cards = deck(size)
    assert len(set(cards)) == size
    assert sum(c.is_joker for c in cards) == (4 if size == 108 else 0)
    for c in cards:
        assert parse_card(c.label) == c
        if not c.is_joker:  # as written on screen; the jokers are all "JK"
            assert parse_card(c.pretty()) == c and parse_card(c.pretty(ascii=True)) == c
        assert Card.from_index(c.index) is c
    names = {c.pretty() for c in cards if not c.is_joker}
    assert len(names) == 104 if size > 52 else 52, "two copies of one card are written apart"


def test_the_second_copy_is_marked_and_typed_as_shown() -> None:
    first, second = parse_card("7H"), parse_card("7h'")
    assert (first.copy, second.copy) == (0, 1) and second == parse_card("7H#1")
    assert (first.pretty(), second.pretty()) == ("7♥", "7♥′")
    assert (first.pretty(ascii=True), second.pretty(ascii=True)) == ("7H", "7H'")
    assert parse_card("JK'''").copy == 3 and parse_card("JK#3").pretty() == "JK"
    assert parse_card("10♥′") == parse_card("TH#1")
    assert ascii_names("took 7♥ and threw 7♥′") == "took 7H and threw 7H'"
    with pytest.raises(CardParseError, match="say the copy once"):
        parse_card("7H'#1")
    with pytest.raises(CardParseError, match="copies #0 and #1 only"):
        parse_card("7H''")


@given(st.sampled_from(deck(108)))
def test_values_and_names(c: Card) -> None:
    assert c.value == (10 if c.is_joker or c.rank >= 10 else c.rank)
    assert parse_cards(f"{c.label}, {c.label}") == [c, c]


def test_multi_deck_copies_are_different_cards() -> None:
    a, b = parse_card("7H#0"), parse_card("7H#1")
    assert a != b and a.face == b.face and a.code == b.code == "7H"


def test_presets_validate_and_round_trip() -> None:
    assert {"classic", "hoyle", "french", "italian", "italian-jokers", "rumino",
            "openspiel"} <= set(PRESETS)  # fmt: skip
    for rules in PRESETS.values():
        rules.validate()
        assert RuleSet.from_dict(rules.to_dict()) == rules


def test_preset_changes_name_what_set_changed_as_set_takes_it() -> None:
    """`ginp2p games` marks a game whose rules are not its preset's and says how."""
    assert all(p.changes() == {} for p in PRESETS.values())
    changed = get_preset("classic").with_(game_target=40, layoffs=False, knock_limit=None)
    assert settings_words(changed.changes()) == "knock_limit=none, layoffs=false, game_target=40"
    assert RuleSet(name="newer-preset", game_target=40).changes() == {}


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown preset"):
        get_preset("canasta")
    with pytest.raises(ValueError, match="unknown rule settings"):
        RuleSet.from_dict({"knock_limt": 7})
    with pytest.raises(ValueError, match="deck_size"):
        PRESETS["classic"].with_(deck_size=50)


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"game_target": "abc"}, "game_target must be a whole number, not 'abc'"),
        ({"knock_limit": "7"}, "knock_limit must be a whole number or none"),
        ({"ace_high": "maybe"}, "ace_high must be true or false"),
        ({"gin_bonus": True}, "gin_bonus must be a whole number, not True"),
        ({"scoring": "bogus"}, "scoring must be one of difference, lower_scores, own_deadwood"),
        ({"stock_end": "never"}, "stock_end must be one of void, count, wall"),
        ({"game_target": 0}, "game_target must be at least 1"),
        ({"knock_limit": -1}, "knock_limit must not be negative"),
        ({"max_discard_draws": 0}, "max_discard_draws must be at least 1"),
    ],
)
def test_a_setting_of_the_wrong_kind_is_refused_by_name(change: dict, says: str) -> None:
    """Rules arrive from ``--set`` and from the other peer: a wrong type never reaches
    the engine, and the message names the setting."""
    with pytest.raises(ValueError, match=says):
        PRESETS["classic"].with_(**change)
    with pytest.raises(ValueError, match=says):
        RuleSet.from_dict({**PRESETS["classic"].to_dict(), **change})


def test_settings_that_presets_use_stay_allowed() -> None:
    classic = PRESETS["classic"]
    assert classic.with_(knock_limit=None).knock_limit is None  # close at any time
    assert classic.with_(gin_bonus=-10).gin_bonus == -10  # rumino's gain
    assert classic.with_(knock_limit=0).knock_limit == 0  # gin only
    # what a report names: the preset, and what --set changed from it, in field order
    changed = classic.with_(game_target=20, knock_limit=60)
    assert changed.changes() == {"knock_limit": 60, "game_target": 20}
    assert preset_words(changed) == "classic with knock_limit=60, game_target=20"
    assert classic.changes() == {} and preset_words(classic) == "classic"
    assert classic.with_(name="house").changes() == {}  # no preset to differ from


@given(st.lists(st.sampled_from(deck(108)), max_size=12), st.sampled_from([", ", " ", "; "]))
def test_ascii_names_turn_symbols_into_codes_and_touch_nothing_else(cards: list[Card],
                                                                    sep: str) -> None:  # fmt: skip
    pretty = f"claimed gin with {sep.join(c.pretty() for c in cards)} (rule 10)"
    plain = ascii_names(pretty)
    assert plain == f"claimed gin with {sep.join(c.pretty(ascii=True) for c in cards)} (rule 10)"
    assert plain.isascii()
