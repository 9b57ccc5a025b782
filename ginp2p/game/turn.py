"""The computer player's turn: the order of its decisions, the same in every variant.

A :class:`Decision` takes the upcard or not, draws, closes the hand as soon as the
rules allow and otherwise discards; the two players built on it
(:class:`~ginp2p.game.planner.Planner` for one deck,
:class:`~ginp2p.game.general.General` for the other variants) differ only in when to
take the upcard and what to throw.
"""

from __future__ import annotations

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
    Show,
    TakeUpcard,
    WallKnock,
    WallPass,
)
from ginp2p.game.cards import Card
from ginp2p.game.hand import Phase
from ginp2p.game.observation import Observation
from ginp2p.game.rules import RuleSet

__all__ = ["Decision", "best_close", "declared_deadwood"]


class Decision:
    """The order of a turn, the same for both players: they differ in when to take the
    upcard and what to throw."""

    def __init__(self, obs: Observation, legal: list[Action]) -> None:
        self.obs = obs
        self.player = obs.player
        self.legal = legal

    def take_upcard(self) -> bool:
        raise NotImplementedError

    def best_discard(self, discards: list[Discard]) -> Discard:
        raise NotImplementedError

    def choose(self) -> Action:
        obs, legal = self.obs, self.legal
        if obs.phase is Phase.FIRST_UPCARD:
            if DrawStock() in legal:
                return DrawStock()
            return TakeUpcard() if self.take_upcard() else PassUpcard()
        if obs.phase is Phase.DRAW:
            knocks = [a for a in legal if isinstance(a, Knock)]
            # Rumino: knock instead of drawing whenever allowed, except with every card
            # melded (4 + 3): then drawing and throwing the drawn card is gin, worth 10.
            if knocks and declared_deadwood(obs.rules, obs.hand, obs.upcard, knocks[0]) > 0:
                return knocks[0]
            if DrawDiscard() in legal and self.take_upcard():
                return DrawDiscard()
            return DrawStock()
        if obs.phase is Phase.WALL:
            closes = [a for a in legal if isinstance(a, WallKnock)]
            return best_close(obs, closes) if closes else WallPass()
        # After the draw: a rumino, big gin or gin whenever offered (each beats any
        # knock), else the least-deadwood knock as soon as the rules allow one. Against
        # an opponent who may knock any turn the hand goes to the first to knock, and a
        # knock within the limit is rarely undercut (measured); without a knock limit
        # (italian) waiting only gives the opponent draws.
        for wins in (DeclareRumino, BigGin, Gin):
            for a in legal:
                if isinstance(a, wins):
                    return a
        knocks = [a for a in legal if isinstance(a, Knock)]
        if knocks:
            return best_close(obs, knocks)
        return self.best_discard([a for a in legal if isinstance(a, Discard)])


def best_close(obs: Observation, closes: Sequence[Action]) -> Action:
    """The close with the least declared deadwood (ties: the first listed)."""
    return min(closes, key=lambda a: declared_deadwood(obs.rules, obs.hand, obs.upcard, a))


def declared_deadwood(
    rules: RuleSet, hand: Sequence[Card], upcard: Card | None, action: Action
) -> int:
    """The deadwood ``action`` declares for a player holding ``hand`` (a knock at the
    wall takes the ``upcard`` first): the cards neither thrown nor in its melds."""
    cards = list(hand)
    if isinstance(action, WallKnock) and upcard is not None:
        cards.append(upcard)
    discard = (
        action.discard if isinstance(action, Knock | Gin | WallKnock | DeclareRumino) else None
    )
    if discard is not None:
        cards.remove(discard)
    melds = action.melds if isinstance(action, Knock | Gin | BigGin | WallKnock | Show) else ()
    melded = {c for m in melds for c in m.cards}
    return M.deadwood([c for c in cards if c not in melded], rules)
