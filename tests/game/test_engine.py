"""The rules engine: scoring per preset, stock rules, illegal actions, determinism."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ginp2p.game import bot, engine, match
from ginp2p.game import melds as M
from ginp2p.game.cards import parse_card, parse_cards
from ginp2p.game.engine import (
    BigGin,
    DeclareRumino,
    Discard,
    DrawDiscard,
    DrawStock,
    Gin,
    HandEnd,
    HandResult,
    IllegalAction,
    Knock,
    PassUpcard,
    Phase,
    Resign,
    Show,
    TakeUpcard,
    WallPass,
)
from ginp2p.game.hand import replace_state
from ginp2p.game.match import MatchEnd
from ginp2p.game.melds import Layoff
from ginp2p.game.rules import PRESETS
from ginp2p.game.selfplay import make_player, play_match, shuffled
from tests.helpers import deal, play

KNOCKER = "AS 2S 3S 4H 4D 4C 9C TC JC 6D"  # melds A-2-3♠, 4-4-4, 9-10-J♣; 6♦ deadwood
KNOCKER_MELDS = ("AS 2S 3S", "4H 4D 4C", "9C TC JC")
DEFENDER_31 = "7H 8H 9H QD QH QS KD 8S 6C 7D"  # 31 deadwood, nothing to lay off
DEFENDER_5 = "7H 8H 9H QD QH QS KC KD KS 5H"  # 5 deadwood: undercuts 6
DEFENDER_6 = "7H 8H 9H QD QH QS KC KD KS 6S"  # 6 deadwood: ties


def melds(*texts: str) -> tuple[M.Meld, ...]:
    return tuple(M.meld_of(parse_cards(t)) for t in texts)


def knock_hand(preset: str, defender: str, knocker: str = KNOCKER, draw: str = "KH",
               knocker_melds: tuple[str, ...] = KNOCKER_MELDS) -> engine.HandState:  # fmt: skip
    """Player 0 draws ``draw`` from the stock, knocks discarding it, player 1 shows its best."""
    rules = PRESETS[preset]
    s = deal(rules, knocker, defender, "2C", draw)
    if rules.upcard_pass_round:
        s = play(s, PassUpcard(), PassUpcard())
    s = play(s, DrawStock(), Knock(parse_card(draw), melds(*knocker_melds)))
    assert s.phase is Phase.SHOW and s.to_move == 1
    return engine.apply(s, engine.propose_show(s))


@pytest.mark.parametrize(
    ("preset", "defender", "points"),
    [
        ("classic", DEFENDER_31, (25, 0)),
        ("hoyle", DEFENDER_31, (25, 0)),
        ("french", DEFENDER_31, (25, 0)),
        ("openspiel", DEFENDER_31, (25, 0)),
        ("italian", DEFENDER_31, (25, 0)),
        # undercut: 5 against the knocker's 6
        ("classic", DEFENDER_5, (0, 26)),
        ("hoyle", DEFENDER_5, (0, 11)),
        ("french", DEFENDER_5, (0, 26)),
        ("openspiel", DEFENDER_5, (0, 26)),
        ("italian", DEFENDER_5, (0, 1)),
        # equal deadwood
        ("classic", DEFENDER_6, (0, 25)),
        ("hoyle", DEFENDER_6, (0, 10)),
        ("french", DEFENDER_6, (0, 0)),
        ("openspiel", DEFENDER_6, (0, 0)),
        ("italian", DEFENDER_6, (0, 0)),
    ],
)
def test_knock_scoring_per_preset(preset: str, defender: str, points: tuple[int, int]) -> None:
    s = knock_hand(preset, defender)
    assert s.result is not None
    assert s.result.points == points
    assert s.result.returns == (points[0] - points[1], points[1] - points[0])
    assert s.result.undercut == (points[1] > 0 and preset != "italian")


@pytest.mark.parametrize(
    ("preset", "points"),
    [("classic", 56), ("hoyle", 51), ("french", 56), ("openspiel", 56), ("italian", 31)],
)
def test_gin_scoring_per_preset(preset: str, points: int) -> None:
    rules = PRESETS[preset]
    s = deal(rules, "AS 2S 3S 4H 4D 4C 9C TC JC QC", DEFENDER_31, "2C", "KH")
    if rules.upcard_pass_round:
        s = play(s, PassUpcard(), PassUpcard())
    s = play(s, DrawStock())
    gin = [a for a in engine.legal_actions(s) if isinstance(a, Gin)]
    assert gin, "the engine must offer gin"
    s = play(s, Gin(parse_card("KH"), melds("AS 2S 3S", "4H 4D 4C", "9C TC JC QC")))
    show = engine.propose_show(s)
    assert show.layoffs == ()
    s = engine.apply(s, show)
    assert s.result is not None and s.result.gin
    assert s.result.points == (points, 0)
    assert s.result.end is HandEnd.GIN


def test_big_gin_classic_and_not_hoyle() -> None:
    hand = "AS 2S 3S 4H 4D 4C 9C TC JC QC"
    s = deal(PRESETS["classic"], hand, DEFENDER_31, "2C", "KC")
    s = play(s, PassUpcard(), PassUpcard(), DrawStock())
    big = [a for a in engine.legal_actions(s) if isinstance(a, BigGin)]
    assert len(big) == 1
    s = engine.apply(s, big[0])
    s = engine.apply(s, engine.propose_show(s))
    assert s.result is not None and s.result.end is HandEnd.BIG_GIN
    assert s.result.points == (31 + 31, 0)

    h = deal(PRESETS["hoyle"], hand, DEFENDER_31, "2C", "KC")
    h = play(h, PassUpcard(), PassUpcard(), DrawStock())
    assert not [a for a in engine.legal_actions(h) if isinstance(a, BigGin)]
    with pytest.raises(IllegalAction) as e:
        engine.apply(h, big[0])
    assert e.value.rule == "no_big_gin"


def test_defender_lays_off_at_both_ends_and_several_on_one_end() -> None:
    # 8♣ below and Q♣ above the knocker's 9-10-J♣: 18 points of layoffs.
    s = knock_hand("classic", "7H 8H 9H KD KH KS 8C QC 5D 2H", draw="TD")
    d = s.result.declarations[1]  # type: ignore[union-attr]
    assert d is not None
    assert {lay.card for lay in d.layoffs} == set(parse_cards("8C QC"))
    assert d.deadwood == 7  # 5♦ 2♥
    assert s.result.points == (1, 0)  # type: ignore[union-attr]


def test_no_layoffs_after_gin_are_refused() -> None:
    s = deal(PRESETS["classic"], "AS 2S 3S 4H 4D 4C 9C TC JC QC", "7H 8H 9H KD KH KS 8C 5D 2H 3D",
             "2C", "TD")  # fmt: skip
    s = play(s, PassUpcard(), PassUpcard(), DrawStock(),
             Gin(parse_card("TD"), melds("AS 2S 3S", "4H 4D 4C", "9C TC JC QC")))  # fmt: skip
    with pytest.raises(IllegalAction) as e:
        engine.apply(s, Show(melds("7H 8H 9H", "KD KH KS"), (Layoff(parse_card("8C"), 2),)))
    assert e.value.rule == "no_layoffs"


def test_tournament_example_from_the_classic_seed_totals_303() -> None:
    rules = PRESETS["classic"]
    m = match.new_match(rules, first_dealer=0)
    for i, pts in enumerate((27, 23, 25, 28), start=1):
        m = replace(m, hand_no=i)
        m = match.record_hand(m, HandResult(HandEnd.KNOCK, 0, (pts, 0), (pts, -pts)))
    assert m.over and m.winner == 0 and m.end is MatchEnd.TARGET
    assert m.scores == (103, 0)
    assert m.totals == (303, 0)


def test_hoyle_shutout_and_box_to_each_player() -> None:
    rules = PRESETS["hoyle"]
    m = match.new_match(rules, first_dealer=0)
    for i, pts in enumerate((27, 23, 25, 28), start=1):
        m = replace(m, hand_no=i)
        m = match.record_hand(m, HandResult(HandEnd.KNOCK, 0, (pts, 0), (pts, -pts)))
    assert m.totals == (103 + 200 + 4 * 20, 0)
    # With one hand to the loser: no shutout, and the loser's box counts for them.
    m = match.new_match(rules, first_dealer=0)
    for i, pts in enumerate(((10, 0), (0, 12), (95, 0)), start=1):
        m = replace(m, hand_no=i)
        ret = (pts[0] - pts[1], pts[1] - pts[0])
        m = match.record_hand(m, HandResult(HandEnd.KNOCK, 0, pts, ret))
    assert m.totals == (105 + 100 + 2 * 20, 12 + 20)
    assert m.margin == 245 - 32


def test_rumino_bust_and_lowest_total_wins() -> None:
    rules = PRESETS["rumino"]
    m = match.new_match(rules)
    m = match.record_hand(replace(m, hand_no=1), HandResult(HandEnd.KNOCK, 0, (60, 40), (-20, 20)))
    assert not m.over
    m = match.record_hand(replace(m, hand_no=2), HandResult(HandEnd.KNOCK, 0, (45, 70), (25, -25)))
    # 105 and 110: both over, the lower total wins.
    assert m.over and m.winner == 0 and m.end is MatchEnd.BUST
    assert m.margin == 5


def test_rumino_knock_instead_of_draw_and_own_deadwood() -> None:
    rules = PRESETS["rumino"]
    s = deal(rules, "AS 2S 3S 4H 4D 4C 5C", "7H 8H 9H KD 2D 9S 6C", "QC")
    knocks = [a for a in engine.legal_actions(s) if isinstance(a, Knock)]
    assert knocks and knocks[0].discard is None
    s = play(s, knocks[0])
    s = engine.apply(s, engine.propose_show(s))
    assert s.result is not None
    assert s.result.points == (5, 10 + 2 + 9 + 6)  # each adds their own deadwood
    assert s.result.declarations[1].layoffs == ()  # type: ignore[union-attr]


def test_rumino_gin_scores_minus_ten_and_declaring_rumino_wins() -> None:
    rules = PRESETS["rumino"]
    s = deal(rules, "AS 2S 3S 4S 7H 7D 7C", "7S 8H 9H KD 2D 9S 6C", "QC", "KH")
    s = play(s, DrawStock())
    s = play(s, Gin(parse_card("KH"), melds("AS 2S 3S 4S", "7H 7D 7C")))
    s = engine.apply(s, engine.propose_show(s))
    assert s.result is not None and s.result.points[0] == -10

    m = match.new_match(rules, first_dealer=1)
    from tests.helpers import stacked_deck

    m = match.deal(m, stacked_deck(rules, "AS 2S 3S 4S 5S 6S KD", "7H 8H 9H KH 2D 9S 6C", "QC",
                                   "7S"))  # fmt: skip
    m = match.apply(m, DrawStock())
    assert DeclareRumino(parse_card("KD")) in match.legal_actions(m)
    m = match.apply(m, DeclareRumino(parse_card("KD")))
    assert m.over and m.winner == 0 and m.end is MatchEnd.RUMINO


def test_a_void_hand_is_dealt_again_and_does_not_break_a_gin_streak() -> None:
    rules = PRESETS["rumino"]
    gin = HandResult(HandEnd.GIN, 1, (20, -10), (-30, 30), gin=True)
    void = HandResult(HandEnd.STOCK_VOID, None, (0, 0), (0, 0))
    knock = HandResult(HandEnd.KNOCK, 0, (4, 9), (5, -5))
    m = match.new_match(rules)
    for i, result in enumerate((gin, void, gin, gin), start=1):
        m = match.record_hand(replace(m, hand_no=i), result)
    assert m.over and m.winner == 1 and m.end is MatchEnd.GIN_STREAK
    # A hand that is played and not won by gin does end the streak.
    m = match.new_match(rules)
    for i, result in enumerate((gin, knock, gin, gin), start=1):
        m = match.record_hand(replace(m, hand_no=i), result)
    assert not m.over


def test_whoever_forfeits_never_collects() -> None:
    """Hoyle pays the difference of the totals; a leader who resigns is owed nothing."""
    m = match.new_match(PRESETS["hoyle"], first_dealer=0)
    m = match.record_hand(replace(m, hand_no=1), HandResult(HandEnd.KNOCK, 0, (90, 0), (90, -90)))
    resigned = match.forfeit(m, 0, MatchEnd.RESIGN)
    assert resigned.winner == 1 and resigned.margin == 0 and resigned.forfeited_lead == 90
    trailing = match.forfeit(m, 1, MatchEnd.RESIGN)
    assert trailing.winner == 0 and trailing.margin == 90 and trailing.forfeited_lead == 0


def _draw_and_throw(s: engine.HandState) -> engine.HandState:
    """Draw from the stock and discard the card drawn."""
    s = engine.apply(s, DrawStock())
    drawn = s.knowledge.card_at(s.hands[s.to_move][-1])
    assert drawn is not None
    return engine.apply(s, Discard(drawn))


def _run_down_the_stock(preset: str) -> engine.HandState:
    rules = PRESETS[preset]
    s = engine.start_hand(rules, 1, shuffled(rules, random.Random(3)))
    if rules.upcard_pass_round:
        s = play(s, PassUpcard(), PassUpcard())
    while s.phase in (Phase.DRAW, Phase.FIRST_UPCARD):
        s = _draw_and_throw(s)
    return s


def test_classic_hand_is_void_when_the_stock_is_down_to_two() -> None:
    s = _run_down_the_stock("classic")
    assert s.over and s.end is HandEnd.STOCK_VOID and s.stock_left == 2
    assert s.result is not None and s.result.points == (0, 0)


def test_openspiel_wall_then_pass() -> None:
    s = _run_down_the_stock("openspiel")
    assert s.phase is Phase.WALL and s.stock_left == 2
    assert WallPass() in engine.legal_actions(s)
    with pytest.raises(IllegalAction):
        engine.apply(s, DrawStock())
    s = engine.apply(s, WallPass())
    assert s.end is HandEnd.WALL_PASS


def test_italian_stock_runs_out_and_both_count() -> None:
    s = _run_down_the_stock("italian")
    assert s.phase is Phase.SHOW and s.stock_left == 0 and s.end is HandEnd.STOCK_COUNT
    first = engine.propose_show(s)
    assert first.layoffs == ()
    s = engine.apply(s, first)
    s = engine.apply(s, engine.propose_show(s))
    assert s.over and s.result is not None
    d0, d1 = (d.deadwood for d in s.result.declarations)  # type: ignore[union-attr]
    assert s.result.points == ((d1 - d0, 0) if d0 < d1 else (0, d0 - d1))


def test_hoyle_same_dealer_after_a_void_hand() -> None:
    for preset, same in (("hoyle", True), ("classic", False)):
        m = match.new_match(PRESETS[preset], first_dealer=0)
        m = match.record_hand(replace(m, hand_no=1), HandResult(HandEnd.STOCK_VOID, None, (0, 0),
                                                                 (0, 0)))  # fmt: skip
        assert (m.dealer == 0) is same


# ------------------------------------------------------------------ illegal actions


def _after_draw() -> engine.HandState:
    s = deal(PRESETS["classic"], KNOCKER, DEFENDER_31, "2C", "KH")
    return play(s, PassUpcard(), PassUpcard(), DrawStock())


@pytest.mark.parametrize(
    ("action", "rule", "words"),
    [
        (Discard(parse_card("5H")), "card_not_in_hand", "not in the hand"),
        (Gin(parse_card("KH"), melds(*KNOCKER_MELDS)), "false_gin", "6♦"),
        (Knock(parse_card("KH"), melds("AS 2S 3S", "4H 4D 4C")), "knock_over_limit", "limit is 10"),
        (Knock(parse_card("6D"), (M.Meld(tuple(parse_cards("AS 2S 4S"))),)), "invalid_meld", ""),
        (Knock(parse_card("6D"), melds("AS 2S 3S", "AS 2S 3S")), "meld_card_not_held", "twice"),
        (DrawStock(), "wrong_phase", "discard"),
        (PassUpcard(), "wrong_phase", "discard"),
    ],
)
def test_illegal_actions_say_which_rule(action: engine.Action, rule: str, words: str) -> None:
    s = _after_draw()
    with pytest.raises(IllegalAction) as e:
        engine.apply(s, action)
    assert e.value.rule == rule
    assert words in str(e.value)


def test_not_your_turn_and_taken_card_and_no_mutation() -> None:
    s = deal(PRESETS["classic"], KNOCKER, DEFENDER_31, "2C", "KH")
    before = s
    with pytest.raises(IllegalAction) as e:
        engine.apply(s, TakeUpcard(), player=1)
    assert e.value.rule == "not_your_turn"
    s2 = engine.apply(s, TakeUpcard())
    assert s == before and s2 != s  # apply never mutates its input
    with pytest.raises(IllegalAction) as e:
        engine.apply(s2, Discard(parse_card("2C")))
    assert e.value.rule == "discard_taken_card"
    # OpenSpiel's rules allow it.
    o = deal(PRESETS["openspiel"], KNOCKER, DEFENDER_31, "2C", "KH")
    o = play(o, TakeUpcard(), Discard(parse_card("2C")))
    assert o.phase is Phase.DRAW


def test_bad_layoff_is_refused() -> None:
    rules = PRESETS["classic"]
    s = deal(rules, KNOCKER, "7H 8H 9H KD KH KS 8C QC 5D 2H", "2C", "TD")
    s = play(s, PassUpcard(), PassUpcard(), DrawStock(),
             Knock(parse_card("TD"), melds(*KNOCKER_MELDS)))  # fmt: skip
    bad = Show(melds("7H 8H 9H", "KD KH KS"), (Layoff(parse_card("5D"), 1),))
    with pytest.raises(IllegalAction) as e:
        engine.apply(s, bad)
    assert e.value.rule == "invalid_layoff"


def test_a_layoff_of_a_card_not_held_says_so_before_judging_the_fit() -> None:
    rules = PRESETS["classic"]
    s = deal(rules, KNOCKER, "7H 8H 9H KD KH KS 8C QC 5D 2H", "2C", "TD")
    s = play(s, PassUpcard(), PassUpcard(), DrawStock(),
             Knock(parse_card("TD"), melds(*KNOCKER_MELDS)))  # fmt: skip
    with pytest.raises(IllegalAction) as e:
        engine.apply(s, Show(melds("7H 8H 9H", "KD KH KS"), (Layoff(parse_card("KC"), 2),)))
    assert e.value.rule == "layoff_card_not_held" and "K♣" in str(e.value)


def test_a_rumino_knock_after_drawing_names_the_rule() -> None:
    rules = PRESETS["rumino"]
    s = deal(rules, "AS 2S 3S 4H 4D 4C 7C", "7H 8H 9H KD 2D 9S 6C", "QC", "KH")
    s = play(s, DrawStock())
    with pytest.raises(IllegalAction) as e:
        engine.apply(s, Knock(None, melds("AS 2S 3S", "4H 4D 4C")))
    assert e.value.rule == "knock_instead_of_draw" and "instead of drawing" in str(e.value)


def test_in_two_decks_a_refused_card_names_its_copy() -> None:
    s = deal(PRESETS["italian"], KNOCKER, DEFENDER_31, "2C", "KH")
    s = play(s, PassUpcard(), PassUpcard(), DrawStock())
    with pytest.raises(IllegalAction) as e:
        engine.apply(s, Discard(parse_card("6D#1")))
    assert e.value.rule == "card_not_in_hand"
    assert "6♦′ is not in the hand; it holds the other copy, 6♦" in str(e.value)


def test_nobody_resigns_for_the_other_player() -> None:
    s = _after_draw()
    with pytest.raises(IllegalAction) as e:
        engine.apply(s, Resign(0), player=1)
    assert e.value.rule == "resign_for_other"
    assert engine.apply(s, Resign(1), player=1).result is not None  # out of turn is fine


@pytest.mark.parametrize("run", ["KH JK 2H", "KH AH 2H", "QH KH JK 2H"])
def test_a_run_round_the_corner_is_refused_as_such(run: str) -> None:
    with pytest.raises(ValueError, match="round the corner"):
        M.meld_of(parse_cards(run), PRESETS["italian-jokers"])


def test_view_hides_the_opponents_cards() -> None:
    s = _after_draw()
    v = s.view(1)
    assert all(c is not None for c in v.cards(1))
    assert all(c is None for c in v.cards(0))
    assert v.upcard is None or v.upcard == s.upcard


def test_take_then_discard_elsewhere() -> None:
    s = deal(PRESETS["classic"], KNOCKER, DEFENDER_31, "2C", "KH")
    s = play(s, TakeUpcard(), Discard(parse_card("6D")))
    assert s.upcard == parse_card("6D") and s.to_move == 1
    s = play(s, DrawDiscard())
    assert parse_card("6D") in s.cards(1)


def test_resign_forfeits_the_match() -> None:
    rules = PRESETS["classic"]
    m = match.deal(match.new_match(rules), shuffled(rules, random.Random(1)))
    m = match.apply(m, Resign(1))
    assert m.over and m.winner == 0 and m.end is MatchEnd.RESIGN
    with pytest.raises(IllegalAction):
        match.apply(m, DrawStock())


def test_a_player_may_resign_before_the_first_deal_and_between_hands() -> None:
    rules = PRESETS["classic"]
    m = match.new_match(rules)
    before = match.apply(m, Resign(0))
    assert before.winner == 1 and before.end is MatchEnd.RESIGN
    m = match.deal(m, shuffled(rules, random.Random(1)))
    while not (m.hand is not None and m.hand.over):  # play one hand through
        assert m.hand is not None
        m = match.apply(m, bot.greedy(m.hand, m.hand.to_move))
    between = match.apply(m, Resign(1), player=1)
    assert between.winner == 0 and between.end is MatchEnd.RESIGN
    assert between.totals == m.scores
    with pytest.raises(IllegalAction) as e:
        match.apply(m, Resign(1), player=0)
    assert e.value.rule == "resign_for_other"
    with pytest.raises(IllegalAction) as e:
        match.apply(m, DrawStock())
    assert e.value.rule == "no_hand"


# ------------------------------------------------------------- whole matches


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_preset_plays_whole_bot_matches(preset: str) -> None:
    rules = PRESETS[preset]
    m = play_match(rules, (make_player("bot"), make_player("bot")), seed=11)
    assert m.over and m.winner in (0, 1)
    assert m.results
    for r in m.results:
        assert r.returns[0] == -r.returns[1]


def test_same_seed_same_match_byte_for_byte() -> None:
    rules = PRESETS["classic"]
    a = play_match(rules, (make_player("bot"), make_player("random", 4)), seed=99)
    b = play_match(rules, (make_player("bot"), make_player("random", 4)), seed=99)
    assert repr(a).encode() == repr(b).encode()
    c = play_match(rules, (make_player("bot"), make_player("random", 4)), seed=100)
    assert repr(a) != repr(c)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), preset=st.sampled_from(sorted(PRESETS)))
def test_random_play_keeps_every_card_and_replays_identically(seed: int, preset: str) -> None:
    rules = PRESETS[preset]
    rng = random.Random(seed)
    start = engine.start_hand(rules, rng.randrange(2), shuffled(rules, rng))
    s = start
    taken: list[tuple[int, engine.Action]] = []
    while not s.over:
        p = s.to_move
        legal = engine.legal_actions(s)
        a = legal[rng.randrange(len(legal))]
        s = engine.apply(s, a, p)
        taken.append((p, a))
        held = [*s.hands[0], *s.hands[1], *s.discard_pile]
        assert len(held) == len(set(held))
        assert len(held) + s.stock_left == rules.deck_size
    again = start
    for p, a in taken:
        again = engine.apply(again, a, p)
    assert again == s
    assert s.result is not None and s.result.returns[0] == -s.result.returns[1]


def test_the_fast_state_copy_equals_dataclasses_replace() -> None:
    rules = PRESETS["classic"]
    state = engine.start_hand(rules, 0, shuffled(rules, random.Random(4)))
    before = replace(state)
    fast = replace_state(state, to_move=1 - state.to_move, stock_next=state.stock_next + 1)
    assert fast == replace(state, to_move=1 - state.to_move, stock_next=state.stock_next + 1)
    assert fast != state and state == before  # the input is untouched
    with pytest.raises(TypeError, match="no field"):
        replace_state(state, stok_next=3)
