"""The computer player: a pure function from what one player sees to an action.

:func:`choose_from` takes an :class:`~ginp2p.game.observation.Observation` (the
player's own cards, the pile, the public moves, the phase, the rules) and nothing
else, so it cannot use a card it could not see; :func:`choose` is the same choice
made from a :class:`~ginp2p.game.hand.HandState`. It draws no randomness from outside:
the same observation gives the same action. docs/bot.md explains the strategy and
lists measured results.

One deck without jokers, knock limit, ``difference`` scoring (classic, hoyle,
french, openspiel): the planner (:mod:`ginp2p.game.planner`).

* Knock (or go gin) as soon as the rules allow: most hands go to whoever knocks
  first, and a knock within the limit is rarely undercut.
* Discard to keep the best ten cards, valued by a one-draw lookahead over every
  card not yet seen (high cards count more: opponents throw them, so they may come
  through the pile): the chance of being able to knock after the next draw
  (weighted heavily) plus the expected deadwood then. The best few are raced
  four draws ahead: how soon, over sampled draws, each could knock; and dueled:
  how soon each knocks before the opponent does, in sampled worlds where the
  opponent takes what melds, throws and knocks too.
* Do not feed the opponent: likely opponent hands are sampled from the unseen
  cards and weighed by what the opponent did (:mod:`ginp2p.game.opponent`: cards it
  passed over or threw did not meld with its hand; cards it took did; it throws its
  highest loose card; it did not knock when it could not). A discard costs extra by
  the chance that it melds with such a hand, more so as the hand goes on.
* Take the upcard only when it makes a meld and the hand after taking it is
  worth at least the expected hand after a stock draw.

Other variants (two decks, jokers, rumino, italian): :mod:`ginp2p.game.general`,
the same ideas on lists of cards. ``greedy`` and ``random_legal`` are the reference
opponents.
"""

from __future__ import annotations

import random

from ginp2p.game import engine
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
from ginp2p.game.general import General
from ginp2p.game.hand import HandState, Phase
from ginp2p.game.observation import Observation, observe
from ginp2p.game.options import show_option
from ginp2p.game.planner import Planner, fast_rules
from ginp2p.game.turn import declared_deadwood

__all__ = ["choose", "choose_from", "greedy", "random_legal"]


def choose(state: HandState, player: int) -> Action:
    """The bot's move for ``player`` (who must be the player to move): the choice of
    :func:`choose_from` on what ``player`` sees of ``state``."""
    return choose_from(observe(state, player))


def choose_from(obs: Observation) -> Action:
    """The bot's move for the player who sees ``obs`` (and is to move)."""
    if obs.phase is Phase.SHOW:
        return show_option(obs.rules, obs.hand, obs.lay_off_onto)
    legal = obs.legal_actions()
    if fast_rules(obs.rules):
        return Planner(obs, legal).choose()
    return General(obs, legal).choose()


# --------------------------------------------------------------- reference players


def random_legal(state: HandState, player: int, rng: random.Random) -> Action:
    """A uniformly random legal action."""
    view = state.view(player)
    legal = engine.legal_actions(view)
    return legal[rng.randrange(len(legal))]


def greedy(state: HandState, player: int) -> Action:
    """The documented baseline: take the upcard only if it makes a meld, discard
    the highest deadwood card, knock as soon as allowed."""
    view = state.view(player)
    rules = view.rules
    if view.phase is Phase.SHOW:
        return engine.propose_show(view)
    legal = engine.legal_actions(view)
    cards = view.known_cards(player)
    if view.phase in (Phase.FIRST_UPCARD, Phase.DRAW):
        knocks = [a for a in legal if isinstance(a, Knock)]
        if knocks:
            return knocks[0]
        up = view.upcard
        takes = [a for a in legal if isinstance(a, TakeUpcard | DrawDiscard)]
        if up is not None and takes:
            melds, _ = M.best_arrangement([*cards, up], rules)
            if any(up in m.cards for m in melds):
                return takes[0]
        if DrawStock() in legal:
            return DrawStock()
        return PassUpcard()
    if view.phase is Phase.WALL:
        closes = [a for a in legal if isinstance(a, WallKnock)]
        return closes[0] if closes else WallPass()
    for a in legal:
        if isinstance(a, DeclareRumino | BigGin | Gin):
            return a
    knocks = [a for a in legal if isinstance(a, Knock)]
    if knocks:
        return min(knocks, key=lambda a: declared_deadwood(rules, cards, view.upcard, a))
    _, dead = M.best_arrangement(cards, rules)
    discards = [a for a in legal if isinstance(a, Discard)]
    pool = [a for a in discards if a.card in dead] or discards
    return max(pool, key=lambda a: (M.card_value(a.card, rules), a.card.index))
