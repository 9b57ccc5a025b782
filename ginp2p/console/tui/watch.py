"""The table of a watched match (``ginp2p play --watch`` at a terminal): the full-screen
table, read-only, from the seat of the computer player this process runs.

:class:`WatchTable` is the :class:`~ginp2p.console.tui.table.TablePlayer` of that seat
with its moves made by the computer player (:func:`ginp2p.game.bot.choose`), at a pace
a person can follow, and its keys reduced to watching: ``q`` (or Ctrl-C) leaves, Enter
closes a hand's summary sooner; every other key says so. What happened is told in the
third person (``Bot drew from the stock``), since neither side is the watcher's.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace

from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys

from ginp2p.app.players import BotPlayer
from ginp2p.app.seat import Seat
from ginp2p.console.tui.look import Look
from ginp2p.console.tui.render import Row
from ginp2p.console.tui.table import TablePlayer, log_style
from ginp2p.present.commands import Act, Command
from ginp2p.present.seat_words import event_words
from ginp2p.present.summary import hand_line
from ginp2p.present.view import TableView
from ginp2p.present.words import action_words, match_end_words, score_reasons
from ginp2p.proto.outputs import EarlyClaim
from ginp2p.proto.results import (
    Chatted,
    CheatDetected,
    HandDealt,
    HandScored,
    MatchOver,
    Moved,
)

__all__ = ["PACE_S", "SUMMARY_S", "WatchTable"]

#: Seconds before each move of the watched seat: a move at the computer's speed could
#: not be followed (the other computer answers at its own speed).
PACE_S = 0.6
#: Seconds a hand's summary stays up before play goes on (Enter closes it sooner).
SUMMARY_S = 5.0
#: What each phase is, said of the player to move.
_DOING = {
    "first_upcard": "taking or passing the upcard",
    "draw": "drawing",
    "discard": "discarding",
    "wall": "deciding at the wall",
    "show": "laying out melds",
}
_WATCHING = "watching two computer players: q leaves (the match is saved)"


class WatchTable(TablePlayer, BotPlayer):
    """The table of a watched match: the seat's moves are the computer player's (a
    :class:`BotPlayer`, so the session speaks of the seat by its name, never "you")."""

    verbose = True
    keys_ctrl_c = True  # a key here: q and Ctrl-C leave at once, nothing to lose

    def __init__(self, look: Look | None = None, **kwargs: object) -> None:
        super().__init__(look, bell=False, **kwargs)  # type: ignore[arg-type]
        self._pending: asyncio.TimerHandle | None = None
        self._quiet = False  # the table's own line for an event is replaced by ours

    # -- the moves ---------------------------------------------------------------------
    def next_command(self, seat: Seat) -> Command | None:
        """Refresh, and when the seat is to move, make the computer's move a moment
        later (a move at once is one nobody sees)."""
        super().next_command(seat)
        if seat.my_turn and not (seat.over or seat.settling) and self._pending is None:
            self._pending = asyncio.get_running_loop().call_later(PACE_S, self._move)
        return None

    def _move(self) -> None:
        from ginp2p.game import bot

        self._pending = None
        seat = self.seat
        if seat is None or self.leaving or seat.over or seat.settling or not seat.my_turn:
            return
        if self.summary is not None:  # the hand's summary first: the next hand waits
            self._pending = asyncio.get_running_loop().call_later(PACE_S, self._move)
            return
        view = seat.hand()
        if view is not None:
            seat.submit(Act(bot.choose(view, seat.me)))

    def _keep_selection(self, v: TableView) -> None:
        """No card is chosen here: the computer chooses its own."""
        self.selected = None

    def _sync_draft(self) -> None:
        """No declaration is laid here: the computer makes its own."""
        self.draft = None

    # -- what happened, in the third person ---------------------------------------------
    def event(self, seat: Seat, what: object) -> None:
        self._quiet = True
        try:
            super().event(seat, what)
        finally:
            self._quiet = False
        names = self._names()
        m = seat.match
        rules = m.rules if m is not None else None
        line: str | None = None
        if isinstance(what, HandDealt):
            up = f"; the upcard is {what.upcard.pretty()}" if what.upcard is not None else ""
            line = f"hand {what.hand}: {names[what.dealer]} deals{up}"
        elif isinstance(what, Moved):
            line = action_words(what.action, names[what.player], what.card, past=True)
        elif isinstance(what, HandScored):
            line = hand_line(what.hand, what.result, None, names, rules) + \
                f" · {names[0]} {what.scores[0]}, {names[1]} {what.scores[1]}"  # fmt: skip
            if self.summary is not None and rules is not None:
                self.summary = replace(
                    self.summary,
                    headline=hand_line(what.hand, what.result, None, names, rules),
                    reasons=tuple(score_reasons(what.result, rules, names.__getitem__)),
                )
                shown = self.summary
                asyncio.get_running_loop().call_later(SUMMARY_S, self._close_summary, shown)
        elif isinstance(what, MatchOver) and m is not None:
            line = self._match_line(seat)
            if self.final is not None:  # by name, and the lead in the headline
                rows = tuple(
                    (n, hand_line(n, r, None, names).split(": ", 1)[1].split(";")[0], a, b)
                    for (n, _, a, b), r in zip(self.final.hands, m.results, strict=False)
                )  # fmt: skip
                self.final = replace(self.final, headline=line, hands=rows, won_by=None)
        elif isinstance(what, Chatted):
            line = f"{names[what.player]}: {what.text}"
        elif isinstance(what, CheatDetected | EarlyClaim):
            line = event_words(seat, what, terse=False)
        if line:
            self._log(line, log_style(what))
        self.refresh()

    def _match_line(self, seat: Seat) -> str:
        m, names = seat.match, self._names()
        if m is None or m.winner is None:
            return "the match is over" + (f" ({match_end_words(m.end)})" if m and m.end else "")
        w = m.winner
        by = f" by {m.margin}" if m.margin else ""
        return f"MATCH OVER: {names[w]} wins{by} ({match_end_words(m.end, names[1 - w])})"

    def _close_summary(self, shown: object) -> None:
        if self.summary is shown:
            self.summary = None
            self.refresh()

    def _log(self, text: str, style: str = "") -> None:
        if not self._quiet:
            super()._log(text, style)

    # -- drawing -------------------------------------------------------------------------
    def view(self) -> TableView | None:
        """The seat's table with nobody's keys: whose turn it is, by name."""
        v = super().view()
        if v is None:
            return None
        turn = v.turn
        seat = self.seat
        hand = seat.hand() if seat is not None else None
        if hand is not None and not hand.over and hand.to_move == seat.me:  # type: ignore[union-attr]
            turn = f"{v.names[0]}'s turn: {_DOING.get(v.phase, 'playing')}"
        return replace(v, my_turn=False, keys=(), turn=turn, knocks=(), claimable=False)

    def rows(self, width: int, height: int) -> list[Row]:
        """The table's rows, said of the seat by its name: not "you", nor "your hand"."""
        v = self.view()
        name = v.names[0] if v is not None else ""
        out: list[Row] = []
        for row in super().rows(width, height):
            fixed: Row = []
            for style, text in row:
                if text.startswith(" your hand"):
                    label = len(text)
                    text = f" {name}"[: max(label - 1, 1)].ljust(label)
                text = text.replace(" (you) ", " ").replace("; ginp2p games lists it", "")
                fixed.append((style, text))
            out.append(fixed)
        return out

    def keys_line(self, width: int) -> StyleAndTextTuples:
        pairs = [("q", "leave")]
        if self.summary is not None and self.result is None:
            pairs.insert(0, ("Enter", "back to the table"))
        out: StyleAndTextTuples = []
        for key, what in pairs:
            out += [("class:title reverse", f" {key}"), ("reverse", f" {what} "), ("", " ")]
        used = sum(len(text) for _, text, *_ in out)
        if used + 9 < width:
            out.append(("class:dim", "watching"[: width - used]))
        return out

    def bindings(self) -> KeyBindings:
        kb = KeyBindings()

        @kb.add("q")
        @kb.add("c-c")
        def _leave(event: KeyPressEvent) -> None:
            self.leave_when_over()
            self.refresh()

        @kb.add("enter")
        @kb.add(" ")
        @kb.add("escape")
        def _back(event: KeyPressEvent) -> None:
            if self.summary is not None:
                self.summary = None
            elif self.final is not None or self.result is not None:
                self.leave_when_over()
            self.refresh()

        @kb.add(Keys.Any)
        def _other(event: KeyPressEvent) -> None:
            # a notice, not a "not now": the next move does not take it away
            self.message = ("class:warn", _WATCHING)
            self.refresh()

        return kb
