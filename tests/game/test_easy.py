"""The easy computer player (``--level easy``): legal, deterministic, blind to hidden
cards, weaker than the default computer player, and the one a game at that level really
plays with, over the protocol."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from ginp2p.game import bot, easy, engine
from ginp2p.game.cards import parse_card
from ginp2p.game.engine import Gin, HandState, Phase, TakeUpcard
from ginp2p.game.rules import PRESETS, get_preset
from ginp2p.game.selfplay import make_player, play_match, shuffled
from ginp2p.proto.entry import GUEST, HOST
from ginp2p.testing.games import Games
from tests.helpers import deal, play

# Seat 0 holds this: A-2-3♠, 4-4-4, 9-10-J♣ and the K♦; Q♣ makes gin (discard K♦).
NEAR_GIN = "AS 2S 3S 4H 4D 4C 9C TC JC KD"
OTHER = "5H 6S 7D 8H 9D TS JH QS KS 2D"


def _easy_states(preset: str, hands: int, seed: int) -> list[tuple[HandState, int]]:
    """Every state where the easy player is to move, over a few hands against random."""
    rules = get_preset(preset)
    out = []
    for i in range(hands):
        other = make_player("random", seed + i)
        seat = i % 2
        state = engine.start_hand(rules, i % 2, shuffled(rules, random.Random(seed * 100 + i)))
        while not state.over:
            p = state.to_move
            if p == seat:
                out.append((state, p))
                action = easy.choose(state, p)
            else:
                action = other(state, p)
            state = engine.apply(state, action, p)  # the engine checks every move
    return out


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_the_easy_player_only_makes_legal_moves_in_every_preset(preset: str) -> None:
    states = _easy_states(preset, hands=3, seed=4)
    assert states
    for state, p in states:
        action = easy.choose(state, p)
        if state.phase is not Phase.SHOW:  # a showdown may declare melds of its own
            assert action in engine.legal_actions(state), (preset, state.phase, action)
        engine.apply(state, action, p)
    m = play_match(get_preset(preset), (make_player("easy"), make_player("bot")), seed=2,
                   max_hands=2)  # fmt: skip
    assert m.results


@pytest.mark.parametrize("preset", ["classic", "rumino"])
def test_the_easy_player_is_deterministic_and_sees_only_its_own_cards(preset: str) -> None:
    """Its noise is seeded by what it sees: the same sight, the same move, whoever asks
    and however the hidden cards lie."""
    rng = random.Random(5)
    moved = 0
    for state, p in _easy_states(preset, hands=3, seed=9):
        first = easy.choose(state, p)
        assert easy.choose(state, p) == first
        assert easy.choose(state.view(p), p) == first  # the view alone decides
        if state.phase is Phase.SHOW:
            continue
        order = list(state.knowledge.order)  # type: ignore[attr-defined]
        visible = set(state.hands[p]) | state.shown
        hidden = [pos for pos in range(len(order)) if pos not in visible]
        cards = [order[pos] for pos in hidden]
        rng.shuffle(cards)
        for pos, card in zip(hidden, cards, strict=True):
            order[pos] = card
        other = state.with_knowledge(engine.DeckKnowledge(tuple(order)))
        moved += other.cards(1 - p) != state.cards(1 - p)
        assert easy.choose(other, p) == first
    assert moved, "the hidden cards really moved"
    rules = get_preset(preset)
    one, two = (play_match(rules, (make_player("easy"), make_player("greedy")), seed=3,
                           max_hands=2) for _ in range(2))  # fmt: skip
    assert one.results == two.results


def test_the_easy_player_always_goes_gin() -> None:
    s = play(deal(get_preset("classic"), NEAR_GIN, OTHER, "QC"), TakeUpcard())
    action = easy.choose(s, 0)
    assert isinstance(action, Gin) and action.discard == parse_card("KD")


def test_the_easy_player_misses_what_the_default_one_never_does() -> None:
    """Noise, not a different strategy only: over many positions it sometimes passes
    over a knock, which the default player takes as soon as the rules allow one."""
    missed = taken = 0
    for state, p in _easy_states("classic", hands=12, seed=17):
        if state.phase is not Phase.DISCARD:
            continue
        if any(isinstance(a, engine.Knock) for a in engine.legal_actions(state)):
            assert isinstance(bot.choose(state, p), engine.Knock | Gin)
            knocked = isinstance(easy.choose(state, p), engine.Knock)
            taken += knocked
            missed += not knocked
    assert missed and taken, (missed, taken)


def test_the_easy_player_is_weaker_than_the_default_one() -> None:
    """A quick count, not a measure (docs/bot.md has the measure): one-hand classic
    matches between the two, seats alternating; the default player wins most."""
    rules = get_preset("classic").with_(game_target=1)
    won = {"easy": 0, "bot": 0}
    for seed in range(14):
        seats = ("easy", "bot") if seed % 2 == 0 else ("bot", "easy")
        m = play_match(rules, (make_player(seats[0]), make_player(seats[1])), seed)
        for r in m.results:
            if r.winner is not None:
                won[seats[r.winner]] += 1
    assert won["bot"] >= 2 * won["easy"], won


def test_a_game_at_the_easy_level_is_played_by_the_easy_player(
        games: Games, monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    """Over the protocol, as `play --level easy` runs it: the level kept in the game's
    `.peer` file chooses the player, for that side only."""
    asked: dict[str, set[int]] = {"easy": set(), "bot": set()}

    def counting(name: str, choose: Callable[..., Any]) -> Callable[..., Any]:
        def chosen(state: HandState, player: int) -> Any:
            asked[name].add(player)
            return choose(state, player)

        return chosen

    monkeypatch.setattr(easy, "choose", counting("easy", easy.choose))
    monkeypatch.setattr(bot, "choose", counting("bot", bot.choose))

    async def main() -> None:
        host = games.host()
        host.setup.side.level = "easy"
        await games.start(host)
        guest = await games.start(games.guest(host))
        assert await games.finish(host, guest) == [0, 0], host.output + guest.output
        assert "MATCH OVER" in host.output

    games.run(main())
    assert asked == {"easy": {HOST}, "bot": {GUEST}}
