"""The computer player: legal, deterministic, blind to hidden cards, and not a pushover."""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from ginp2p.game import bot, engine
from ginp2p.game.cards import Card, parse_card
from ginp2p.game.engine import (
    DeckKnowledge,
    DrawDiscard,
    DrawStock,
    Gin,
    HandEnd,
    HandState,
    Knock,
    PassUpcard,
    Phase,
    TakeUpcard,
)
from ginp2p.game.masks import hand_mask
from ginp2p.game.observation import Observation, PublicMove, observe
from ginp2p.game.planner import RACE_DISCOUNT, Planner
from ginp2p.game.rules import PRESETS, get_preset
from ginp2p.game.selfplay import make_player, play_match, shuffled
from tests.helpers import deal, play

# Seat 0 holds this: A-2-3♠, 4-4-4, 9-10-J♣ and the K♦; Q♣ makes gin (discard K♦).
NEAR_GIN = "AS 2S 3S 4H 4D 4C 9C TC JC KD"
OTHER = "5H 6S 7D 8H 9D TS JH QS KS 2D"


def _bot_states(preset: str, hands: int, seed: int) -> list[tuple[HandState, int]]:
    """Every state where the bot is to move, over a few seeded hands against random."""
    rules = get_preset(preset)
    out = []
    for i in range(hands):
        rng = random.Random(seed * 1000 + i)
        other = make_player("random", seed + i)
        bot_seat = i % 2
        state = engine.start_hand(rules, i % 2, shuffled(rules, rng))
        while not state.over:
            p = state.to_move
            if p == bot_seat:
                out.append((state, p))
                action = bot.choose(state, p)
            else:
                action = other(state, p)
            state = engine.apply(state, action, p)
    return out


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_bot_only_returns_legal_actions_in_every_preset(preset: str) -> None:
    states = _bot_states(preset, hands=4, seed=3)
    assert states
    for state, p in states:
        action = bot.choose(state, p)
        assert action in engine.legal_actions(state), (preset, state.phase, action)
        engine.apply(state, action, p)  # the engine accepts it


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_bot_plays_legal_moves_against_greedy_and_itself(preset: str) -> None:
    """Whole bot matches raise no IllegalAction (the engine checks every move)."""
    rules = get_preset(preset)
    m = play_match(rules, (make_player("bot"), make_player("greedy")), seed=5, max_hands=3)
    assert m.results
    m = play_match(rules, (make_player("bot"), make_player("bot")), seed=6, max_hands=2)
    assert m.results


@pytest.mark.parametrize("preset", ["classic", "italian"])
def test_bot_is_deterministic(preset: str) -> None:
    for state, p in _bot_states(preset, hands=3, seed=8):
        first = bot.choose(state, p)
        assert bot.choose(state, p) == first
        assert bot.choose(state.view(p), p) == first  # the view alone decides


def _shuffle_hidden(state: HandState, player: int, rng: random.Random) -> HandState:
    """The same table with the cards ``player`` cannot see (the opponent's hidden cards
    and the stock) dealt differently among themselves."""
    assert isinstance(state.knowledge, DeckKnowledge)
    order = list(state.knowledge.order)
    visible = set(state.hands[player]) | state.shown
    hidden = [pos for pos in range(len(order)) if pos not in visible]
    cards = [order[pos] for pos in hidden]
    rng.shuffle(cards)
    for pos, card in zip(hidden, cards, strict=True):
        order[pos] = card
    return state.with_knowledge(DeckKnowledge(tuple(order)))


@pytest.mark.parametrize("preset", ["classic", "openspiel", "rumino"])
def test_bot_never_uses_hidden_cards(preset: str) -> None:
    rng = random.Random(21)
    checked = changed = 0
    for state, p in _bot_states(preset, hands=3, seed=13):
        if state.phase is Phase.SHOW:
            continue
        other = _shuffle_hidden(state, p, rng)
        assert other.view(p) == state.view(p)
        opp = 1 - p
        changed += other.cards(opp) != state.cards(opp)
        assert bot.choose(other, p) == bot.choose(state, p)
        checked += 1
    assert checked and changed  # the hidden cards really moved


def test_bot_takes_the_first_upcard_that_completes_gin_and_goes_gin() -> None:
    rules = get_preset("classic")
    s = deal(rules, NEAR_GIN, OTHER, "QC")
    assert s.phase is Phase.FIRST_UPCARD and s.to_move == 0
    assert bot.choose(s, 0) == TakeUpcard()
    s = play(s, TakeUpcard())
    action = bot.choose(s, 0)
    assert isinstance(action, Gin) and action.discard == parse_card("KD")


def test_bot_draws_the_discard_that_completes_gin() -> None:
    rules = get_preset("french")  # no pass round: the first turn is an ordinary draw
    s = deal(rules, NEAR_GIN, OTHER, "QC")
    assert s.phase is Phase.DRAW and s.to_move == 0
    assert bot.choose(s, 0) == DrawDiscard()


def test_bot_goes_gin_when_the_stock_gives_gin() -> None:
    rules = get_preset("classic")
    s = deal(rules, NEAR_GIN, OTHER, "5C", stock="QC")
    s = play(s, PassUpcard(), PassUpcard(), DrawStock())
    action = bot.choose(s, 0)
    assert isinstance(action, Gin) and action.discard == parse_card("KD")


def test_bot_knocks_when_it_may() -> None:
    rules = get_preset("classic")
    # A-2-3♠, 4-4-4, 9-10-J♣ melded; after the draw the K♦ goes, the 6♦ (6) is deadwood.
    s = deal(rules, "AS 2S 3S 4H 4D 4C 9C TC JC KD", OTHER, "5C", stock="6D")
    s = play(s, PassUpcard(), PassUpcard(), DrawStock())
    action = bot.choose(s, 0)
    assert isinstance(action, Knock) and action.discard == parse_card("KD")
    s = play(s, action)
    assert s.phase is Phase.SHOW


def _near_gin_planner() -> tuple[Planner, Observation]:
    """The planner of seat 0, holding NEAR_GIN and the 6♦ just drawn, and what it sees."""
    s = deal(get_preset("classic"), NEAR_GIN, OTHER, "5C", stock="6D")
    obs = observe(play(s, PassUpcard(), PassUpcard(), DrawStock()), 0)
    return Planner(obs, obs.legal_actions()), obs


def test_the_race_values_a_hand_by_how_soon_it_can_knock() -> None:
    planner, obs = _near_gin_planner()
    hand = hand_mask(obs.hand)

    def without(name: str) -> int:
        return hand & ~(1 << parse_card(name).face)

    # Without the K♦ only the 6♦ is loose: any next card leaves a knock (one draw away).
    assert planner.race(without("KD")) == pytest.approx(RACE_DISCOUNT)
    # Breaking the club run leaves 36 points loose: a knock is further off.
    assert 0 < planner.race(without("9C")) < 0.5 * RACE_DISCOUNT
    # Its sampled draws are seeded by what it sees: a second look gives the same figure.
    again = Planner(obs, obs.legal_actions())
    assert again.race(without("9C")) == planner.race(without("9C"))


def test_the_duel_counts_a_discard_that_lets_the_opponent_knock_as_lost() -> None:
    planner, _ = _near_gin_planner()

    def mask(names: str) -> int:
        return hand_mask([parse_card(n) for n in names.split()])

    # One world, set by hand: the opponent holds 5-6♣, two melds and 30 points loose;
    # the stock gives them the Q♠, then us the K♥, which completes J-Q-K♥ for a knock.
    planner.worlds = [(mask("5C 6C 2H 3H 4H 8D 8S 8H KD 9D"), [mask("QS"), mask("KH")])]
    ours = mask("AS 2S 3S 9S 9H 9C JH QH 2C 7C 7H")
    # The 7♣ makes their run: they take it, throw the K♦ and knock before our draw.
    assert planner.duel(ours & ~mask("7C"), parse_card("7C").face) == 0
    # The 7♥ melds with nothing of theirs: they draw, and our next draw knocks.
    assert planner.duel(ours & ~mask("7H"), parse_card("7H").face) == pytest.approx(RACE_DISCOUNT)


def test_bot_does_not_take_a_useless_upcard() -> None:
    rules = get_preset("classic")
    s = deal(rules, NEAR_GIN, OTHER, "8S")
    assert bot.choose(s, 0) == PassUpcard()


def test_bot_beats_random_in_classic_matches() -> None:
    rules = get_preset("classic")
    wins = 0
    for seed in range(10):
        seat = seed % 2
        players = [make_player("random", seed), make_player("random", seed)]
        players[seat] = make_player("bot")
        m = play_match(rules, (players[0], players[1]), seed=seed)
        wins += m.winner == seat
    assert wins >= 9


def test_rumino_draws_and_goes_gin_rather_than_knock_with_nothing_unmelded() -> None:
    """A knock instead of drawing scores 0 even with 4 + 3 melded; the gin after a
    draw scores -10 (the hand's points are the player's own: low is good)."""
    rules = PRESETS["rumino"]
    s = deal(rules, "5S 5H 5D 9C TC JC QC", "2S 7H 9D KD 3C 4H 8S", "AD", "6D")
    s = play(s, bot.choose(s, s.to_move))
    assert s.phase is Phase.DISCARD, "it knocked instead of drawing"
    while s.result is None:
        s = engine.apply(s, bot.choose(s, s.to_move))
    assert s.result.end is HandEnd.GIN and s.result.points[s.result.knocker] == -10


# ------------------------------------------------------- the choice from an observation

#: The bot's choices in the games of :func:`_self_played_choices`, recorded with the
#: bot of commit b6088e4, which read the whole HandState (its positions too) rather
#: than an observation.
RECORDED = json.loads((Path(__file__).parent / "bot_choices.json").read_text())


def _from_observation(state: HandState, player: int) -> engine.Action:
    return bot.choose_from(observe(state, player))


def _self_played_choices(
    preset: str, choose: Callable[[HandState, int], engine.Action]
) -> list[list[object]]:
    """The bot's choices over seeded hands of ``preset``: two against itself, two
    against the greedy baseline and two against a random player (who takes from the
    pile and throws what it drew, so the bot's opponent model meets every kind of
    move); more hands where they are short (no knock limit). Per hand: (how many
    choices, a digest of them in order)."""
    rules = PRESETS[preset]
    base = 7000 + 100 * sorted(PRESETS).index(preset)
    out: list[list[object]] = []
    for i in range(6 if rules.knock_limit is not None else 16):
        rng = random.Random(base + i)
        state = engine.start_hand(rules, i % 2, shuffled(rules, rng))
        other = make_player(("bot", "greedy", "random")[i // 2 % 3], base + i)
        bots = (0, 1) if i < 2 else (i % 2,)
        made = []
        while not state.over:
            p = state.to_move
            action = choose(state, p) if p in bots else other(state, p)
            if p in bots:
                made.append(repr(action))
            state = engine.apply(state, action, p)
        out.append([len(made), hashlib.sha256("\n".join(made).encode()).hexdigest()[:16]])
    return out


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_the_choice_from_an_observation_is_the_bot_s_choice_from_the_whole_state(
    preset: str,
) -> None:
    """choose_from(observe(state, p)) makes, move for move, the choices the bot made
    when it read the HandState itself: the public moves carry all it used."""
    assert _self_played_choices(preset, _from_observation) == RECORDED[preset]


def _cards_in(obs: Observation) -> Iterator[Card]:
    yield from obs.hand
    yield from obs.pile
    yield from (m.card for m in obs.moves if m.card is not None)
    if obs.taken is not None:
        yield obs.taken
    for meld in obs.lay_off_onto or ():
        yield from meld.cards


@pytest.mark.parametrize("preset", ["classic", "openspiel", "italian-jokers", "rumino"])
def test_an_observation_never_carries_the_other_player_s_hidden_cards(preset: str) -> None:
    rng = random.Random(5)
    checked = changed = 0
    for state, p in _bot_states(preset, hands=3, seed=17):
        obs = observe(state, p)
        assert isinstance(state.knowledge, DeckKnowledge)
        order = state.knowledge.order
        visible = {order[pos] for pos in set(state.hands[p]) | state.shown}
        hidden = {order[pos] for pos in state.hands[1 - p] if pos not in state.shown}
        assert set(_cards_in(obs)) <= visible
        assert not set(_cards_in(obs)) & hidden
        # Dealing the unseen cards differently changes nothing the player is shown.
        other = _shuffle_hidden(state, p, rng)
        changed += other.cards(1 - p) != state.cards(1 - p)
        assert observe(other, p) == obs
        checked += 1
    assert checked and changed


def test_an_observation_lists_the_moves_as_both_players_saw_them() -> None:
    rules = get_preset("classic")
    s = deal(rules, NEAR_GIN, OTHER, "5C", stock="6D 8C")
    s = play(s, PassUpcard(), PassUpcard(), DrawStock(), engine.Discard(parse_card("6D")))
    s = play(s, DrawDiscard(), engine.Discard(parse_card("KS")), DrawStock())
    obs = observe(s, 0)
    assert obs.hand == (*(parse_card(c) for c in NEAR_GIN.split()), parse_card("8C"))
    assert obs.pile == (parse_card("5C"), parse_card("KS"))
    assert obs.phase is Phase.DISCARD and obs.stock_left == rules.deck_size - 23
    assert obs.moves == (
        PublicMove(0, "pass_upcard", parse_card("5C")),
        PublicMove(1, "pass_upcard", parse_card("5C")),
        PublicMove(0, "draw_stock", parse_card("5C")),
        PublicMove(0, "discard", parse_card("6D"), drawn_at=2),  # the card just drawn
        PublicMove(1, "draw_discard", parse_card("6D")),
        PublicMove(1, "discard", parse_card("KS")),  # a dealt card
        PublicMove(0, "draw_stock", parse_card("KS")),  # passed over the K♠
    )
    assert obs.legal_actions() == engine.legal_actions(s)


def test_a_program_can_ask_the_bot_with_an_observation_it_built_itself() -> None:
    """No HandState needed: seat 0 holds NEAR_GIN, the Q♣ is up and the opponent just
    passed it; the bot takes it, as it does from a dealt hand (see above)."""
    cards = tuple(parse_card(c) for c in NEAR_GIN.split())
    obs = Observation(
        rules=get_preset("classic"),
        player=0,
        dealer=0,
        phase=Phase.FIRST_UPCARD,
        hand=cards,
        pile=(parse_card("QC"),),
        stock_left=31,
        moves=(PublicMove(1, "pass_upcard", parse_card("QC")),),
    )
    assert bot.choose_from(obs) == TakeUpcard()
