"""A match: hands dealt one after another until a player wins.

The match folds each finished hand's :class:`~ginp2p.game.hand.HandResult` into the
score sheet: game scores, hands won, the dealer of the next hand, and the end
of the match with its bonuses. Like the engine it is pure; dealing a hand needs a
:class:`~ginp2p.game.hand.Knowledge` from outside (a shuffled deck, or the shuffle
protocol's view of one).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

from ginp2p.game import engine
from ginp2p.game.actions import Action, Resign
from ginp2p.game.hand import HandEnd, HandResult, HandState, IllegalAction, Knowledge
from ginp2p.game.rules import RuleSet

__all__ = [
    "MatchEnd",
    "MatchState",
    "apply",
    "bonuses",
    "deal",
    "forfeit",
    "legal_actions",
    "new_match",
    "record_hand",
]


class MatchEnd(StrEnum):
    TARGET = "target"  # a player reached the game target
    BUST = "bust"  # a player went over the target (low scores win)
    RUMINO = "rumino"
    GIN_STREAK = "gin_streak"
    RESIGN = "resign"
    CLAIM = "claim"  # the loser stopped answering and was claimed against
    CHEAT = "cheat"  # the loser was proven to have cheated


_FORFEITS = (MatchEnd.RESIGN, MatchEnd.CLAIM, MatchEnd.CHEAT)


@dataclass(frozen=True, slots=True)
class MatchState:
    """The score sheet and the hand in play."""

    rules: RuleSet
    dealer: int
    scores: tuple[int, int] = (0, 0)
    hands_won: tuple[int, int] = (0, 0)
    #: Gins in a row from the first hand, per player (rumino's instant win).
    gin_streak: tuple[int, int] = (0, 0)
    hand_no: int = 0
    hand: HandState | None = None
    results: tuple[HandResult, ...] = ()
    winner: int | None = None
    end: MatchEnd | None = None
    #: Final totals with every bonus, once the match is over.
    totals: tuple[int, int] | None = None

    @property
    def over(self) -> bool:
        return self.end is not None

    @property
    def needs_deal(self) -> bool:
        """True between hands: the next hand waits for a shuffled deck."""
        return not self.over and (self.hand is None or self.hand.over)

    @property
    def margin(self) -> int | None:
        """The winner's lead in final totals: what the other player pays, in hoyle.

        It can be negative when the totals favour the other player (hoyle's box
        bonuses go to both). After a forfeit it is never negative: whoever forfeits
        the match collects nothing from it.
        """
        lead = self._lead()
        if lead is None:
            return None
        return max(lead, 0) if self.end in _FORFEITS else lead

    @property
    def forfeited_lead(self) -> int:
        """How far ahead the player who forfeited the match was (0 if behind, or no
        forfeit): what they are not paid."""
        lead = self._lead()
        return max(-lead, 0) if lead is not None and self.end in _FORFEITS else 0

    def _lead(self) -> int | None:
        if self.winner is None or self.totals is None:
            return None
        diff = self.totals[self.winner] - self.totals[1 - self.winner]
        return -diff if self.rules.scoring == "own_deadwood" else diff


def new_match(rules: RuleSet, first_dealer: int = 0) -> MatchState:
    """A match before its first deal. ``first_dealer`` comes from the coin toss."""
    rules.validate()
    dealer = 1 if rules.dealer_rotation == "fixed" else first_dealer
    return MatchState(rules=rules, dealer=dealer)


def deal(match: MatchState, knowledge: Knowledge) -> MatchState:
    """Start the next hand on a deck whose positions ``knowledge`` describes."""
    if not match.needs_deal:
        raise IllegalAction("no_deal_now", "a hand is in play or the match is over")
    hand = engine.start_hand(match.rules, match.dealer, knowledge)
    return replace(match, hand=hand, hand_no=match.hand_no + 1)


def legal_actions(match: MatchState) -> list[Action]:
    if match.hand is None or match.over:
        return []
    return engine.legal_actions(match.hand)


def apply(match: MatchState, action: Action, player: int | None = None) -> MatchState:
    """Apply ``action`` to the hand in play; fold the hand in when it ends.

    A :class:`Resign` is taken at any time, between hands too: it ends the match, not
    a hand."""
    if match.over:
        raise IllegalAction("match_over", "the match is over")
    if isinstance(action, Resign) and (match.hand is None or match.hand.over):
        if action.player not in (0, 1):
            raise IllegalAction("no_such_player", f"no player {action.player}")
        if player not in (None, action.player):
            raise IllegalAction(
                "resign_for_other", f"player {player} cannot resign for player {action.player}"
            )
        return forfeit(match, action.player, MatchEnd.RESIGN)
    if match.hand is None or match.hand.over:
        raise IllegalAction("no_hand", "no hand is in play: deal first")
    hand = engine.apply(match.hand, action, player)
    match = replace(match, hand=hand)
    if isinstance(action, Resign):
        return forfeit(match, action.player, MatchEnd.RESIGN)
    if hand.over:
        assert hand.result is not None
        return record_hand(match, hand.result)
    return match


def forfeit(match: MatchState, loser: int, reason: MatchEnd) -> MatchState:
    """End the match against ``loser`` (resign, abandonment, proven cheating)."""
    return replace(match, winner=1 - loser, end=reason, totals=match.scores)


def record_hand(match: MatchState, result: HandResult) -> MatchState:
    """Fold a finished hand into the score sheet and decide whether the match is over."""
    rules = match.rules
    if result.end is HandEnd.RUMINO:
        assert result.knocker is not None
        match = replace(match, results=(*match.results, result))
        return _won(match, result.knocker, MatchEnd.RUMINO)

    scores = (match.scores[0] + result.points[0], match.scores[1] + result.points[1])
    won = list(match.hands_won)
    if result.winner is not None and result.scored:
        won[result.winner] += 1
    # A void hand is dealt again, so it neither counts nor breaks a streak.
    streak = list(match.gin_streak)
    played = sum(r.end is not HandEnd.STOCK_VOID for r in match.results)
    for p in (0, 1):
        if result.gin and result.knocker == p and streak[p] == played:
            streak[p] += 1
    match = replace(
        match,
        scores=scores,
        hands_won=(won[0], won[1]),
        gin_streak=(streak[0], streak[1]),
        results=(*match.results, result),
        dealer=_next_dealer(match, result),
    )
    if rules.gin_streak_wins is not None:
        for p in (0, 1):
            if streak[p] >= rules.gin_streak_wins:
                return _won(match, p, MatchEnd.GIN_STREAK)
    if rules.match_end == "bust":
        bust = [p for p in (0, 1) if scores[p] > rules.game_target]
        if len(bust) == 1:
            return _won(match, 1 - bust[0], MatchEnd.BUST)
        if len(bust) == 2 and scores[0] != scores[1]:
            return _won(match, 0 if scores[0] < scores[1] else 1, MatchEnd.BUST)
        return match
    if max(scores) >= rules.game_target:
        return _won(match, 0 if scores[0] > scores[1] else 1, MatchEnd.TARGET)
    return match


def _next_dealer(match: MatchState, result: HandResult) -> int:
    rules = match.rules
    if rules.dealer_rotation == "fixed":
        return 1
    if result.end is HandEnd.STOCK_VOID and rules.same_dealer_after_void:
        return match.dealer
    return 1 - match.dealer


def bonuses(match: MatchState) -> list[tuple[str, tuple[int, int]]]:
    """What a match won on the score sheet adds to the hands' points, one named line per
    bonus (game or shutout, then the box): the totals are the points plus these. A
    forfeit, a bust or a match still in play adds nothing."""
    rules, w = match.rules, match.winner
    if w is None or match.end not in _BONUSED or rules.match_end != "target":
        return []
    out: list[tuple[str, tuple[int, int]]] = []
    shutout = match.scores[1 - w] == 0 and rules.shutout_bonus is not None
    game = (rules.shutout_bonus if shutout else rules.game_bonus) or 0
    if game:
        out.append(("shutout bonus" if shutout else "game bonus", _to(w, game)))
    box = [rules.box_bonus * match.hands_won[p] for p in (0, 1)]
    if rules.box_to == "winner":
        box = [b if p == w else 0 for p, b in enumerate(box)]
    if any(box):
        out.append((f"{rules.box_bonus} for each hand won", (box[0], box[1])))
    return out


_BONUSED = frozenset({MatchEnd.TARGET, MatchEnd.GIN_STREAK, MatchEnd.RUMINO})


def _to(player: int, points: int) -> tuple[int, int]:
    return (points, 0) if player == 0 else (0, points)


def _won(match: MatchState, winner: int, reason: MatchEnd) -> MatchState:
    """Close the match and add the game, shutout and box bonuses."""
    won = replace(match, winner=winner, end=reason)
    totals = list(match.scores)
    for _, (a, b) in bonuses(won):
        totals[0] += a
        totals[1] += b
    return replace(won, totals=(totals[0], totals[1]))
