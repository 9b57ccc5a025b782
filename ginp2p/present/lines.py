"""The table in lines of words, as the line mode says it (``--plain``, a pipe, a screen
reader): ``look``'s picture of the table, the moves a resumed game missed, both hands at
a showdown and the match's score sheet. Every fact the full-screen table shows is here
as text; pure functions of the seat's state (:class:`~.seat_words.SeatState`)."""

from __future__ import annotations

from collections.abc import Sequence

from ginp2p.game.cards import card_order
from ginp2p.game.engine import Action, HandState, Phase
from ginp2p.game.match import MatchState
from ginp2p.present.commands import hint
from ginp2p.present.draft import draft_from
from ginp2p.present.seat_words import SeatState, cards_text, event_words, status_line
from ginp2p.present.summary import hand_summary, match_summary
from ginp2p.present.view import (
    Group,
    Shown,
    declared,
    knock_options,
    meld_order,
    sort_hand,
    wall_line,
)
from ginp2p.present.words import goal_words
from ginp2p.proto.results import Event, HandScored, moves_since

__all__ = ["look_lines", "recap_line", "score_sheet", "showdown_text"]


def look_lines(s: SeatState, hand: HandState | None, legal: Sequence[Action]) -> list[str]:
    """``look``: the score and the piles, what the other player laid down, this player's
    cards in melds and, on its move, the ways to end the hand and the moves it has
    (``legal``); off its move, whom it waits for. Before the deal only the status."""
    m = s.match
    if hand is None or m is None:
        return [status_line(s)]
    names = s.names
    me, opp = s.me, 1 - s.me
    mine = [c for c in hand.cards(me) if c is not None]
    pile = hand.pile_cards()
    top = pile[-1].pretty() if pile and pile[-1] is not None else "-"
    lines = [
        f"hand {m.hand_no} · {names[me]} {m.scores[me]}, {names[opp]} {m.scores[opp]}"
        f" ({goal_words(m.rules)}) · stock {hand.stock_left} · pile {top} ({len(pile)})"
    ]  # fmt: skip
    if len(pile) > 1:  # what the table shows beside the top: what was let go before
        lines.append("under it: " + cards_text(reversed(pile[:-1])))
    if (theirs := hand.declarations[opp]) is not None:
        lines.append(f"{names[opp]} laid down: {_shown_text(declared(theirs))}")
    groups, dead = sort_hand(mine, hand.rules)
    lines.append(f"your cards: {_grouped(groups, dead)}")
    if not s.my_turn:
        return [*lines, status_line(s)]
    knocks, big = knock_options(hand, legal)
    if hand.phase is Phase.WALL and hand.upcard is not None:  # as the table's turn line
        # the upcard is not in "your cards": the wall's knock takes it first
        lines.append(wall_line(hand.upcard.pretty(), knocks, keys=False))
    ways = [f"{'gin' if k.gin else 'knock'} {k.discard.pretty()} (deadwood {k.deadwood})"
            for k in knocks if k.discard is not None]  # fmt: skip
    ways += ["knock (no discard)"] * any(k.discard is None for k in knocks)
    ways += ["gin (big gin, all eleven cards)"] * (big is not None)
    if ways:
        lines.append(f"you may end the hand: {', '.join(ways)}")
    for a in legal:
        if a.kind == "show":  # the proposal `show` sends
            d = draft_from(a, hand)
            laid = f", lay off {cards_text(x.card for x in d.layoffs)}" if d.layoffs else ""
            melded = " ".join(f"[{cards_text(meld_order(x))}]" for x in d.melds) or "no melds"
            left = sorted(d.left(), key=card_order)
            lines.append(f"`show` lays down {melded}{laid}, deadwood {cards_text(left)} = "
                         f"{d.deadwood(hand.rules)}")  # fmt: skip
    lines.append(f"your move: {hint(list(legal))}")
    return lines


def recap_line(s: SeatState, events: Sequence[tuple[int, Event]]) -> str | None:
    """A resumed game: the moves of this hand since this player's own last one, in
    words (None: none, or no hand under way). They may have come just before the
    player left, or while it was away; ``look`` shows the table they left, not how it
    came about."""
    m = s.match
    if m is None or m.over:
        return None
    since, ours = moves_since(events, s.me)
    said = [event_words(s, e, terse=False) for e in since]
    if not said:
        return None
    where = "since your last move" if ours else f"in hand {m.hand_no} so far"
    return f"{where}: " + "; ".join(t for t in said if t)


def showdown_text(s: SeatState, what: HandScored) -> str:
    """Both hands as they were laid down and how the points were made up (what the
    table's hand summary shows)."""
    m = s.match
    assert m is not None
    summary = hand_summary(what.hand, what.result, what.scores, s.me, s.own_names, m.rules)
    names = s.names
    lines = [f"  {names[seat]}: {_shown_text(summary.seats[i].shown)}"
             for i, seat in enumerate((s.me, 1 - s.me))]  # fmt: skip
    lines += [f"  {reason}" for reason in summary.reasons]
    return "\n".join(lines)


def score_sheet(s: SeatState, m: MatchState) -> str:
    """The match's score sheet: each hand's points, the bonuses, the totals (the lead
    is in the MATCH OVER line above it)."""
    sheet = match_summary(m, s.me, s.own_names)
    lines = [f"hand {n}: {what}: you {a}, {sheet.names[1]} {b}" for n, what, a, b in sheet.hands]
    return "\n".join("  " + line for line in [*lines, *sheet.sum_lines("you", lead=False)[1:]])


def _grouped(groups: Sequence[Group], dead: int) -> str:
    """``[3♠ 4♠ 5♠] [9♥ 9♦ 9♣] deadwood A♠ 2♣ = 3``; ``... gin`` when no card is loose."""
    melded = " ".join(f"[{cards_text(g.cards)}]" for g in groups if g.meld)
    loose = [g for g in groups if not g.meld]
    tail = f"deadwood {cards_text(loose[0].cards)} = {dead}" if loose else "gin"
    return f"{melded} {tail}".strip()


def _shown_text(shown: Shown | None) -> str:
    if shown is None:
        return "nothing shown"
    parts = [" ".join(f"[{cards_text(m)}]" for m in shown.melds) or "no melds"]
    if shown.layoffs:
        parts.append(f"laid off {cards_text(shown.layoffs)}")
    parts.append(f"deadwood {cards_text(shown.deadwood_cards)} = {shown.deadwood}"
                 if shown.deadwood_cards else "no deadwood")  # fmt: skip
    return ", ".join(parts)
