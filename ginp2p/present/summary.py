"""What happened, in words: the table's log lines, and the summaries shown when a hand
ends (both declarations, the points and why) and when the match ends (the score sheet,
its bonuses, the lead). Pure functions of the engine's results and the players' names.
"""

from __future__ import annotations

from dataclasses import dataclass

from ginp2p.game import match as mt
from ginp2p.game.engine import HandResult
from ginp2p.game.match import MatchEnd, MatchState
from ginp2p.game.rules import RuleSet
from ginp2p.present.view import Shown, declared
from ginp2p.present.words import (
    action_words,
    ending,
    forfeited_lead_words,
    match_end_words,
    no_score,
    score_reasons,
)
from ginp2p.proto.results import Chatted, HandDealt, HandScored, MatchOver, Moved

__all__ = [
    "HandSummary",
    "MatchSummary",
    "SeatSummary",
    "hand_line",
    "hand_summary",
    "log_line",
    "match_summary",
]


# ------------------------------------------------------------------------ the log


def log_line(event: object, me: int, names: tuple[str, str],
             rules: RuleSet | None = None) -> str | None:  # fmt: skip
    """One line of "what happened", in words a player uses; None for what the table
    shows anyway. ``names`` are the real names of seats 0 and 1; ``rules`` say what a
    hand's points mean (see :func:`hand_line`)."""

    def who(p: int) -> str:
        return "you" if p == me else names[p]

    if isinstance(event, HandDealt):
        up = f"; the upcard is {event.upcard.pretty()}" if event.upcard is not None else ""
        deals = "deal" if event.dealer == me else "deals"
        return f"hand {event.hand}: {who(event.dealer)} {deals}{up}"
    if isinstance(event, Moved):
        return action_words(event.action, who(event.player), event.card, past=True)
    if isinstance(event, HandScored):
        return (
            hand_line(event.hand, event.result, me, names, rules)
            + f" · {names[me]} {event.scores[me]}, {names[1 - me]} {event.scores[1 - me]}"
        )
    if isinstance(event, MatchOver):
        return _match_line(event.winner, event.end, me, names)
    if isinstance(event, Chatted):
        return f"{'you' if event.player == me else names[event.player]}: {event.text}"
    return None


def hand_line(number: int, r: HandResult, me: int | None, names: tuple[str, str],
              rules: RuleSet | None = None) -> str:  # fmt: skip
    """How a hand ended and what each player scored; ``me`` (if any) is "you". Where
    each adds their own deadwood (``rules.scoring`` ``own_deadwood``: rumino) the points
    count against a player: "5 added to your score", not "you score 5"."""

    def who(p: int) -> str:
        return "you" if p == me else names[p]

    line = f"hand {number}: {ending(r, who)}"
    if r.scored and rules is not None and rules.scoring == "own_deadwood":
        first = r.knocker if r.knocker is not None else 0
        parts = []
        for p in (first, 1 - first):
            n, whose = r.points[p], "your" if p == me else f"{names[p]}'s"
            if n:  # a gin's -10 comes off
                parts.append(f"{abs(n)} {'added to' if n > 0 else 'taken off'} {whose} score")
        line += f"; {', '.join(parts)}"
    elif r.scored:
        gainer = 0 if r.points[0] else 1
        gains = "score" if gainer == me else "scores"
        line += f"; {who(gainer)} {gains} {r.points[gainer]}"
        if r.points[1 - gainer]:
            line += f", {who(1 - gainer)} {r.points[1 - gainer]}"
    else:
        line += no_score(r)
    return line


def _match_line(winner: int | None, end: MatchEnd, me: int, names: tuple[str, str]) -> str:
    if winner is None:
        return f"the match is over ({match_end_words(end)})"
    how = match_end_words(end, "you" if winner != me else names[1 - winner])
    return f"MATCH OVER: {'you win' if winner == me else names[winner] + ' wins'} ({how})"


# ------------------------------------------------------------------------ summaries


@dataclass(frozen=True, slots=True)
class SeatSummary:
    name: str
    shown: Shown | None
    points: int
    score: int


@dataclass(frozen=True, slots=True)
class HandSummary:
    """The end of a hand: both declarations, what it scored and why, the totals."""

    number: int
    headline: str
    seats: tuple[SeatSummary, SeatSummary]  # (me, opponent)
    reasons: tuple[str, ...]  # how the points were made up


def hand_summary(number: int, r: HandResult, scores: tuple[int, int], me: int,
                 names: tuple[str, str], rules: RuleSet) -> HandSummary:  # fmt: skip
    """From a scored hand (``HandScored``) to the lines of its summary."""
    seats = tuple(
        SeatSummary(
            names[p],
            declared(decl) if (decl := r.declarations[p]) is not None else None,
            r.points[p],
            scores[p],
        )
        for p in (me, 1 - me)
    )
    reasons = score_reasons(r, rules, lambda p: "you" if p == me else names[p])
    return HandSummary(number, hand_line(number, r, me, names, rules), seats, tuple(reasons))  # type: ignore[arg-type]


@dataclass(frozen=True, slots=True)
class MatchSummary:
    """The end of the match: every hand's points, the bonuses, the totals."""

    headline: str
    names: tuple[str, str]  # (me, opponent)
    hands: tuple[tuple[int, str, int, int], ...]  # (hand, what happened, my points, theirs)
    scores: tuple[int, int]
    bonuses: tuple[tuple[str, int, int], ...]  # (what, mine, theirs)
    totals: tuple[int, int]
    #: The winner (0: the first player) and the lead the match is settled by, as
    #: ``MatchState.margin`` (None: no winner).
    won_by: tuple[int, int] | None = None
    forfeited_lead: int = 0  # how far ahead the player who forfeited was

    def sum_lines(self, me: str | None = None, *, lead: bool = True) -> list[str]:
        """From the hands' points to the totals, one line each: the bonuses spelled out,
        then (with ``lead``) the lead. ``me``: how to call the first player (``you``),
        else by name."""
        a, b = me or self.names[0], self.names[1]
        lines = [f"points from the hands: {a} {self.scores[0]}, {b} {self.scores[1]}"]
        lines += [f"{what}: {a} {x}, {b} {y}" for what, x, y in self.bonuses]
        lines.append(f"total: {a} {self.totals[0]}, {b} {self.totals[1]}")
        if lead and (line := self.lead_line(me)) is not None:
            lines.append(line)
        return lines

    def lead_line(self, me: str | None = None) -> str | None:
        """ "Ann wins by 145": the difference the match is settled by (hoyle has the
        lower total pay it); after a forfeit by the player ahead, that nobody pays. None
        without a lead to speak of (a resignation at 0-0)."""
        if self.won_by is None:
            return None
        seat, margin = self.won_by
        if self.forfeited_lead > 0:  # the one who forfeited: "you" if it is seat 0
            loser = "you" if seat == 1 and me == "you" else self.names[1 - seat]
            return forfeited_lead_words(loser, self.forfeited_lead)
        if margin <= 0:
            return None
        if seat == 0 and me == "you":
            return f"you win by {margin}"
        return f"{self.names[seat]} wins by {margin}"


def match_summary(m: MatchState, me: int, names: tuple[str, str]) -> MatchSummary:
    """From the final score sheet: the hand-by-hand table and the bonuses added."""
    opp = 1 - me
    rows = []
    for i, r in enumerate(m.results, 1):
        text = hand_line(i, r, me, names).split(": ", 1)[1].split(";")[0]
        rows.append((i, text, r.points[me], r.points[opp]))
    totals = m.totals or m.scores
    bonuses = tuple((what, points[me], points[opp]) for what, points in mt.bonuses(m))
    headline = _match_line(m.winner, m.end, me, names) if m.end is not None else "match"
    margin = m.margin
    won_by = None if m.winner is None or margin is None else (int(m.winner != me), margin)
    return MatchSummary(headline, (names[me], names[opp]), tuple(rows),
                        (m.scores[me], m.scores[opp]), bonuses,
                        (totals[me], totals[opp]), won_by, m.forfeited_lead)  # fmt: skip
