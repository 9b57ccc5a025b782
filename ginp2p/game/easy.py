"""The easy computer player (``--level easy``): the greedy baseline with some noise, for
a player new to the game; the default computer player is :mod:`ginp2p.game.bot`.

It plays the baseline of :func:`ginp2p.game.bot.greedy` (take the upcard only when it
makes a meld, throw the highest loose card, close as soon as the rules allow), but
now and then it overlooks an upcard that melds, throws a loose card other than the
highest or even breaks a meld, and plays on when it could knock. A gin, a big gin and a
rumino it always takes. docs/bot.md says how strong it is.

Like the default player it is a pure function of what the player sees
(:class:`~ginp2p.game.observation.Observation`): its noise comes from a generator
seeded by the observation itself, so the same position always gives the same move,
whichever process asks, and a replayed or resumed game plays alike.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from ginp2p.game import melds as M
from ginp2p.game.actions import (
    Action,
    BigGin,
    DeclareRumino,
    Discard,
    DrawDiscard,
    DrawStock,
    Gin,
    Knock,
    PassUpcard,
    TakeUpcard,
    WallKnock,
    WallPass,
)
from ginp2p.game.hand import HandState, Phase
from ginp2p.game.observation import Observation, observe
from ginp2p.game.options import show_option
from ginp2p.game.turn import best_close

__all__ = ["choose", "choose_from"]

#: The chance that it passes over an upcard that would make a meld.
MISS_UPCARD = 0.35
#: The chance that it plays on (discards) when it could knock; a gin is always taken.
MISS_KNOCK = 0.5
#: The chance that it throws a loose card picked at random rather than its highest...
LOOSE_THROW = 0.35
#: ... and, within that, that the card is any card of the hand, melded or not.
WILD_THROW = 0.25


def choose(state: HandState, player: int) -> Action:
    """The easy player's move for ``player`` (who must be the player to move), from what
    ``player`` sees of ``state``."""
    return choose_from(observe(state, player))


def choose_from(obs: Observation) -> Action:
    """The easy player's move for the player who sees ``obs`` (and is to move)."""
    if obs.phase is Phase.SHOW:  # the best declaration: nobody gains by a worse one
        return show_option(obs.rules, obs.hand, obs.lay_off_onto)
    legal = obs.legal_actions()
    rng = random.Random(_seed(obs))
    if obs.phase is Phase.FIRST_UPCARD:
        if DrawStock() in legal:  # both passed
            return DrawStock()
        return TakeUpcard() if _melds(obs, rng) else PassUpcard()
    if obs.phase is Phase.DRAW:
        knocks = [a for a in legal if isinstance(a, Knock)]  # rumino: instead of drawing
        if knocks and rng.random() >= MISS_KNOCK:
            return best_close(obs, knocks)
        if DrawDiscard() in legal and _melds(obs, rng):
            return DrawDiscard()
        return DrawStock()
    if obs.phase is Phase.WALL:
        closes = [a for a in legal if isinstance(a, WallKnock)]
        return best_close(obs, closes) if closes else WallPass()
    for wins in (DeclareRumino, BigGin, Gin):
        for a in legal:
            if isinstance(a, wins):
                return a
    discards = [a for a in legal if isinstance(a, Discard)]
    knocks = [a for a in legal if isinstance(a, Knock)]
    if knocks and (not discards or rng.random() >= MISS_KNOCK):
        return best_close(obs, knocks)
    return _throw(obs, discards, rng)


def _seed(obs: Observation) -> int:
    """What the player sees, as a number: the cards held, the pile, how far the hand
    has gone and its phase (the same sight, the same seed)."""
    held = 0
    for c in obs.hand:
        held |= 1 << c.index
    top = obs.upcard.index + 1 if obs.upcard is not None else 0
    return (held << 24) | (len(obs.moves) << 12) | (top << 4) | list(Phase).index(obs.phase)


def _melds(obs: Observation, rng: random.Random) -> bool:
    """Whether to take the upcard: it makes a meld with the hand (the baseline's test),
    unless overlooked."""
    up = obs.upcard
    if up is None:
        return False
    melds, _ = M.best_arrangement([*obs.hand, up], obs.rules)
    return any(up in m.cards for m in melds) and rng.random() >= MISS_UPCARD


def _throw(obs: Observation, discards: Sequence[Discard], rng: random.Random) -> Discard:
    """The baseline's discard, the highest loose card; at times a loose card picked at
    random, or any card at all."""
    _, dead = M.best_arrangement(list(obs.hand), obs.rules)
    loose = [a for a in discards if a.card in dead] or list(discards)
    if rng.random() < LOOSE_THROW:
        return rng.choice(list(discards) if rng.random() < WILD_THROW else loose)
    return max(loose, key=lambda a: (M.card_value(a.card, obs.rules), a.card.index))
