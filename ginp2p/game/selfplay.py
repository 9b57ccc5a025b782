"""Whole matches between computer players, through the engine alone.

Used by ``scripts/simulate.py``, by the tests (determinism, every preset) and by
``ginp2p selfplay``. Randomness comes in as a seed:
the same seed gives the same decks, the same moves and the same result.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Protocol

from ginp2p.game import bot, easy, match
from ginp2p.game.actions import Action
from ginp2p.game.cards import deck
from ginp2p.game.hand import DeckKnowledge, HandState
from ginp2p.game.match import MatchState
from ginp2p.game.rules import RuleSet

__all__ = ["Player", "make_player", "play_match", "shuffled"]


class Player(Protocol):
    def __call__(self, state: HandState, player: int) -> Action: ...


def make_player(kind: str, seed: int = 0) -> Player:
    """``bot`` (the computer player), ``easy`` (its easy level), ``greedy`` (the
    baseline) or ``random``."""
    if kind == "bot":
        return bot.choose
    if kind == "easy":
        return easy.choose
    if kind == "greedy":
        return bot.greedy
    if kind == "random":
        rng = random.Random(seed)
        return lambda state, player: bot.random_legal(state, player, rng)
    raise ValueError(f"unknown player kind {kind!r}: bot, easy, greedy or random")


def shuffled(rules: RuleSet, rng: random.Random) -> DeckKnowledge:
    cards = list(deck(rules.deck_size))
    rng.shuffle(cards)
    return DeckKnowledge(tuple(cards))


def play_match(
    rules: RuleSet,
    players: tuple[Player, Player],
    seed: int,
    on_hand: Callable[[MatchState], None] | None = None,
    max_hands: int = 1000,
) -> MatchState:
    """Play one match to its end; ``on_hand`` sees the match after every hand."""
    rng = random.Random(seed)
    m = match.new_match(rules, first_dealer=rng.randrange(2))
    while not m.over and m.hand_no < max_hands:
        m = match.deal(m, shuffled(rules, rng))
        while m.hand is not None and not m.hand.over:
            p = m.hand.to_move
            m = match.apply(m, players[p](m.hand, p), p)
        if on_hand is not None:
            on_hand(m)
    return m
