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
    "bonus_lines",
    "hand_line",
    "hand_summary",
    "log_line",
    "match_summary",
    "settlement",
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
    #: The smaller total pays the larger the difference (hoyle's settlement); not where
    #: each player adds their own deadwood and low is good (rumino).
    smaller_pays: bool = True

    def sum_lines(self, me: str | None = None, *, lead: bool = True) -> list[str]:
        """From the hands' points to the totals, one line each: the bonuses spelled out,
        then (with ``lead``) the lead. ``me``: how to call the first player (``you``),
        else by name."""
        a, b = me or self.names[0], self.names[1]
        lines = [f"points from the hands: {a} {self.scores[0]}, {b} {self.scores[1]}"]
        lines += [f"{what}: {a} {x}, {b} {y}" for what, x, y in self.bonuses]
        lines.append(f"total: {a} {self.totals[0]}, {b} {self.totals[1]}")
        # without ``lead`` (a MATCH OVER line above says "wins by"), who pays still shows
        if (line := self.lead_line(me) if lead else self.pay_line(me)) is not None:
            lines.append(line)
        return lines

    def lead_line(self, me: str | None = None) -> str | None:
        """ "Ann wins by 145": the difference the match is settled by (hoyle has the
        lower total pay it); or, where that is not the winner's lead, who pays
        (:meth:`pay_line`). None without a lead to speak of (a resignation at 0-0)."""
        if self.won_by is None:
            return None
        seat, margin = self.won_by
        if margin <= 0 or self.forfeited_lead > 0:
            return self.pay_line(me)
        if seat == 0 and me == "you":
            return f"you win by {margin}"
        return f"{self.names[seat]} wins by {margin}"

    def pay_line(self, me: str | None = None) -> str | None:
        """Who pays where "wins by" would mislead: after a forfeit by the player ahead,
        nobody; where the winner ends with the smaller total (hoyle's box bonuses go to
        both), the winner pays the difference. None otherwise."""
        if self.won_by is None:
            return None
        seat, margin = self.won_by

        def who(p: int) -> str:
            return "you" if p == 0 and me == "you" else self.names[p]

        if self.forfeited_lead > 0:  # the one who forfeited: "you" if it is seat 0
            return forfeited_lead_words(who(1 - seat), self.forfeited_lead)
        if margin >= 0 or not self.smaller_pays:
            return None
        pays = "pay" if who(seat) == "you" else "pays"
        return (f"the smaller total pays the difference: {who(seat)} {pays} "
                f"{who(1 - seat)} {-margin}")  # fmt: skip


def match_summary(m: MatchState, me: int, names: tuple[str, str]) -> MatchSummary:
    """From the final score sheet: the hand-by-hand table and the bonuses added."""
    opp = 1 - me
    rows = []
    for i, r in enumerate(m.results, 1):
        text = hand_line(i, r, me, names).split(": ", 1)[1].split(";")[0]
        rows.append((i, text, r.points[me], r.points[opp]))
    totals = m.totals or m.scores
    bonuses = tuple((what, points[me], points[opp]) for what, points in bonus_lines(m))
    headline = _match_line(m.winner, m.end, me, names) if m.end is not None else "match"
    margin = m.margin
    won_by = None if m.winner is None or margin is None else (int(m.winner != me), margin)
    return MatchSummary(headline, (names[me], names[opp]), tuple(rows),
                        (m.scores[me], m.scores[opp]), bonuses,
                        (totals[me], totals[opp]), won_by, m.forfeited_lead,
                        m.rules.scoring != "own_deadwood")  # fmt: skip


def settlement(m: MatchState) -> tuple[int, int, int] | None:
    """Who pays whom, and how much, by seat: ``(payer, paid, points)``. The smaller total
    pays the larger the difference (hoyle's settlement; the winner's lead elsewhere):
    the loser, or the winner who ends with the smaller total. None where nobody pays
    (equal totals, a forfeit by the player ahead, no winner) or where low totals are
    good (rumino), which says nothing of paying."""
    margin = m.margin
    if m.winner is None or not margin or m.rules.scoring == "own_deadwood":
        return None
    payer = 1 - m.winner if margin > 0 else m.winner
    return payer, 1 - payer, abs(margin)


def bonus_lines(m: MatchState) -> list[tuple[str, tuple[int, int]]]:
    """The bonuses a match won adds (:func:`ginp2p.game.match.bonuses`), each named as a
    score sheet shows it: where only the winner collects the box bonus, it says so (a
    player who won hands read "25 for each hand won" over a 0 of their own)."""
    r = m.rules
    box = f"{r.box_bonus} for each hand won"
    return [(f"{r.box_bonus} per hand won by the winner" if what == box and r.box_to == "winner"
             else what, points) for what, points in mt.bonuses(m)]  # fmt: skip
