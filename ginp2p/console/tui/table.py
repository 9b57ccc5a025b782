"""The table a person plays at: a full-screen prompt_toolkit application.

:class:`TablePlayer` is a :class:`~ginp2p.app.players.Player` like the computer and the
line prompt, given a :class:`~ginp2p.app.seat.Seat`. :meth:`TablePlayer.play` runs the
application with ``run_async()`` and starts the game (``Session.run``: the network, the
clock, the protocol) as the application's background task; every protocol event updates
the table and calls ``invalidate()``.

Keys become the same commands the line prompt reads
(:func:`ginp2p.present.commands.parse_command`), so a key and a typed command are checked
and explained the same way: what a key means is :mod:`.intents`', which key is which
:mod:`.bindings`'. The table itself is drawn by the pure functions of
:mod:`ginp2p.present.view`, :mod:`.render` and :mod:`.overlays`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Protocol, cast

from prompt_toolkit.application import Application
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples, split_lines
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings
from prompt_toolkit.layout import ConditionalContainer, HSplit, Layout, Window
from prompt_toolkit.layout.controls import BufferControl, FormattedTextControl
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.layout.processors import BeforeInput
from prompt_toolkit.output import Output

from ginp2p.app.config import SessionResult
from ginp2p.app.seat import Seat
from ginp2p.console.tui.bindings import CommandCompleter, KeyedTable, card_word
from ginp2p.console.tui.keys import redraw_when_continued
from ginp2p.console.tui.look import Look
from ginp2p.console.tui.overlays import (
    help_rows,
    help_window,
    match_rows,
    rules_rows,
    summary_rows,
)
from ginp2p.console.tui.render import (
    CHOICE_KEYS,
    MIN_WIDTH,
    Row,
    app_size,
    draft_rows,
    header_rows,
    join_rows,
    status_row,
    table_rows,
    too_small,
    wrap,
)
from ginp2p.game.engine import DrawDiscard, DrawStock
from ginp2p.present.commands import Command, RulesOffered
from ginp2p.present.seat_words import event_words
from ginp2p.present.summary import hand_summary, log_line, match_summary
from ginp2p.present.view import deadwood_after
from ginp2p.proto.outputs import EarlyClaim
from ginp2p.proto.results import CheatDetected, HandDealt, HandScored, MatchOver, Moved, moves_since

__all__ = ["CommandCompleter", "Game", "TablePlayer", "card_word", "log_style"]

LOG_KEEP = 500
#: After the game, before the table closes its connection: time for the bye to leave.
BYE_GRACE_S = 0.5


class Game(Protocol):
    """A game the table runs itself, as its application's background task: the seat it
    plays at, and the game's own run (``Session.run``)."""

    @property
    def seat(self) -> Seat: ...

    async def run(self) -> SessionResult: ...


def log_style(what: object) -> str:
    """How the log shows the line of an event: a cheat or an early claim stands out, a
    hand's and the match's end are titles."""
    if isinstance(what, CheatDetected | EarlyClaim):
        return "class:cheat"
    return "class:title" if isinstance(what, HandScored | MatchOver) else ""


class TablePlayer(KeyedTable):
    """A person at the full-screen table.

    ``input``/``output`` default to the terminal; tests pass a pipe input and a
    ``DummyOutput``. ``bell``: ring when it becomes your turn.
    """

    verbose = True
    keys_ctrl_c = True  # asks "leave the game?" first
    stays_at_the_end = True  # the final score sheet, until q

    def __init__(self, look: Look | None = None, *, bell: bool = True,
                 input: Input | None = None, output: Output | None = None) -> None:  # fmt: skip
        super().__init__(look)
        self.bell = bell
        self.input = input
        self.output = output
        self.log: list[tuple[str, str]] = []
        self._my_turn = False
        self.help_top = 0  # the first row of the help shown, where it scrolls
        self._help_page = 0  # how many rows of it show (0: all of it)

    # -- the Player protocol ------------------------------------------------------------
    def next_command(self, seat: Seat) -> Command | None:
        """Called after every change: ring on a new turn, refresh. Moves come from keys."""
        self.seat = seat
        m = seat.match
        if self.final is not None and self.result is None and m is not None and not m.over:
            self.final = None  # the claim that ended the match was beaten: play goes on
        mine = seat.my_turn
        if mine and not self._my_turn and self.bell and self.app is not None and self.running:
            self.app.output.bell()
        self._my_turn = mine
        self._sync_draft()
        self.refresh()
        return None

    def event(self, seat: Seat, what: object) -> None:
        self.seat = seat
        me = seat.me
        names = self._names()
        if isinstance(what, RulesOffered):
            self.rules_offer = what.text()
        elif isinstance(what, Moved) and what.player == me and \
                isinstance(what.action, DrawStock | DrawDiscard):  # fmt: skip
            # the card just taken from the pile may not go back: do not offer it
            m = seat.match
            back = isinstance(what.action, DrawDiscard) and m is not None \
                and not m.rules.discard_taken_card  # fmt: skip
            self._drawn = None if back else what.card
            if self._drawn is not None:
                self.selected = self._drawn
        elif isinstance(what, HandScored):
            m = seat.match
            if m is not None:
                self.summary = hand_summary(what.hand, what.result, what.scores, me, names,
                                            m.rules)  # fmt: skip
            self.draft = None
        elif isinstance(what, MatchOver):
            m = seat.match
            if m is not None:
                self.final = match_summary(m, me, names)
        elif isinstance(what, HandDealt):
            self.draft = None
            self._drawn = None
        if self.message[0] == "class:error" and (
            isinstance(what, HandDealt) or (isinstance(what, Moved) and what.player != me)
        ):
            self.message = ("", "")  # the table moved on: an old "not now" would mislead
        m = seat.match
        line = log_line(what, me, names, m.rules if m is not None else None)
        if line is None and isinstance(what, CheatDetected | EarlyClaim):
            line = event_words(seat, what, terse=False)
        if line:
            self._log(line, log_style(what))
        self.refresh()

    async def run(self, seat: Seat) -> None:
        """Input is the application's, started by :meth:`play`; nothing to run here."""
        self.seat = seat

    # -- running -----------------------------------------------------------------------
    def heard(self, fallback: Callable[[str], None]) -> Callable[[str], None]:
        """What the session says: into the table's log while it is on screen, else to
        ``fallback`` (the terminal)."""

        def out(text: str) -> None:
            if self.running:
                self.say(text)
            else:
                fallback(text)

        return out

    def say(self, text: str) -> None:
        for line in text.splitlines() or [""]:
            if line.startswith("? "):
                self.message = ("class:error", self.look.words(line[2:]))
                self._log(line, "class:error")
            else:
                self._log(line, "class:warn" if line.startswith(("lost the", "CHEAT")) else "")
        self.refresh()

    async def play(self, game: Game) -> SessionResult:
        """Run the table until the game ends and the player leaves; the game itself
        (``game.run``) is the application's background task."""
        seat = self.seat = game.seat
        app = self.app = self.build()

        async def run_game() -> None:
            try:
                result = await game.run()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # shown, then the table closes with it
                result = SessionResult(1, "error", f"{type(exc).__name__}: {exc}")
            self.result = result
            if self.leaving or result.status in ("quit", "declined"):
                app.exit()
                return
            if result.status == "error":
                self.message = ("class:error", result.message)
            self.refresh()
            # The game is done but the table stays: nothing may seem to answer the other
            # side meanwhile (its resume "connected", then waited on a table that only
            # looked alive). The bye is given a moment to leave first (the close drops
            # what is queued).
            await asyncio.sleep(BYE_GRACE_S)
            await seat.hang_up()

        undo: list[Callable[[], None]] = []

        def start_game() -> None:
            undo.append(redraw_when_continued(app))
            app.create_background_task(run_game())

        m = seat.match
        if m is not None and m.over:  # a finished match resumed: show how it ended
            self.final = match_summary(m, seat.me, self._names())
        elif m is not None and m.hand_no:
            self._log(f"the game goes on: hand {m.hand_no}, {self._names()[0]} {m.scores[0]}, "
                      f"{self._names()[1]} {m.scores[1]}")  # fmt: skip
            me = seat.me  # and the moves since ours: they may have come as we left
            for ev in moves_since(seat.events, me)[0]:
                if (line := log_line(ev, me, self._names(), m.rules)) is not None:
                    # from the file: the header's "connecting…" is about what comes next
                    self._log(f"from the saved game: {line}")
        self.running = True
        try:
            await app.run_async(pre_run=start_game)
        except OSError as exc:  # the terminal is gone (its window closed: EIO on its keys)
            if self.result is not None:
                raise
            await seat.pause()  # so the other player hears we paused, not silence
            self.result = SessionResult(
                1,
                "quit",
                f"the terminal closed ({exc}); the game is saved: ginp2p resume {seat.game_path}",
            )
        finally:
            self.running = False
            for done in undo:
                done()
        if self.result is None:
            self.result = SessionResult(0, "quit", "left the game; it is saved: ginp2p resume "
                                        f"{seat.game_path or 'FILE'}")  # fmt: skip
        return self.result

    # -- drawing -------------------------------------------------------------------
    def screen(self, width: int, height: int) -> StyleAndTextTuples:
        """The whole screen but the two bottom rows (message, keys); with ``--ascii``
        not one symbol outside ASCII (rules, separators, the turn marker), measured as
        shown (``…`` is two dots there), so a row cut short still ends in its mark."""
        rows = [cast(Row, self.look.fragments(cast(StyleAndTextTuples, row)))
                for row in self.rows(width, height)]  # fmt: skip
        return join_rows(rows, width, self.look.words("…"))

    def rows(self, width: int, height: int) -> list[Row]:
        v = self.view()
        if v is None:
            return [[("", " starting…")]]
        rows = header_rows(v, width, self.look)
        if not self.show_help:
            self.help_top, self._help_page = 0, 0  # the help opens at its top
        overlay = self._overlay(width, height - len(rows))
        if overlay is not None:
            if self.summary is not None:  # the next hand may wait for us behind it
                overlay = [*overlay, status_row(v)]
            return (rows + overlay)[:height]
        rules = self._rules()
        after = None
        if v.phase == "discard" and v.my_turn and self.selected is not None and rules:
            after = deadwood_after(v.hand, self.selected, rules)
        rows += table_rows(v, self.look, width, self.selected, after)
        if width < MIN_WIDTH or len(rows) > height:  # never a hand cut off in silence
            return too_small(width, height + 2, max(MIN_WIDTH, width), len(rows) + 2)
        if self.draft is not None and rules is not None:
            draft = draft_rows(self.draft, rules, self.look, width)
            room = height - len(rows) - 1
            if len(draft) > room:  # a long list of melds is never cut off in silence
                more = f"   … {len(draft) - room + 1} rows more: a taller terminal shows them"
                draft = [*draft[: max(0, room - 1)], [("class:dim", more)]]
            rows += [[("class:dim", "─" * width)], *draft]
        rows.append([("class:dim", "─" * width)])
        room = height - len(rows)
        if room > 0:  # the newest lines, each whole: broken between words, never cut
            lines = [
                cast(Row, line)
                for style, text in self.log[-room:]
                for line in split_lines(wrap([(style, " " + text)], width, indent=7))
            ]
            rows += lines[-room:]
        return rows[:height]

    def _overlay(self, width: int, height: int) -> list[Row] | None:
        if self.show_help:  # taller than the room: it scrolls (↓ PgDn ↑ PgUp)
            whole = help_rows(width, self._rules(), self.look)
            shown, self.help_top = help_window(whole, self.help_top, height)
            self._help_page = len(shown) - 2 if len(shown) < len(whole) else 0
            return shown
        if self.rules_offer is not None:
            return rules_rows(self.rules_offer, width)
        if self.summary is not None:
            shows = self.draft is not None and self.draft.kind == "show"
            return summary_rows(self.summary, self.look, width, last=self.final is not None,
                                next_up="the next hand is over already: your showdown waits"
                                if shows else "the next hand is being dealt")  # fmt: skip
        if self.final is not None:
            s = self.seat
            if s is not None and s.claim_undelivered:
                return match_rows(self.final, width, self.result is not None, height,
                                  f"your claim has not reached {s.opponent_name}: waiting for "
                                  "them (q leaves; a resume delivers it)")  # fmt: skip
            return match_rows(self.final, width, self.result is not None, height)
        return None

    def bottom(self, width: int = 80) -> StyleAndTextTuples:
        """The question or the message, broken between words (up to three rows)."""
        if self.confirm is not None:
            style, text = "class:warn", self.confirm[0] + " (y/n)"
        else:
            style, text = self.message
            text = self.look.words(text)
        return wrap([(style, " " + text)], width, indent=1) if text else []

    def keys_line(self, width: int) -> StyleAndTextTuples:
        if self.confirm is not None:  # the question above is what y and n answer
            pairs = [("y", "yes"), ("n", "no")]
        elif self.result is not None and self.summary is None and not self.command_mode:
            pairs = [("q", "leave")]
        elif self.command_mode:
            pairs = [("Enter", "do it"), ("Tab", "complete"), ("Esc", "back to the keys")]
        elif self.show_help:
            pairs = [("Esc", "close the help")]
            if self._help_page:
                pairs.append(("↑↓ PgUp PgDn", "scroll"))
        elif self.rules_offer is not None:
            pairs = [("y", "play"), ("n", "leave")]
        elif self.summary is not None:
            pairs = [("Enter", "continue"), ("?", "help"), ("^C", "leave")]
        elif self.final is not None:  # (while the end is confirmed, q leaves saved)
            pairs = [("q", "leave")]
        elif self.draft is not None and self.draft.editing:
            pairs = [("keys", "add"), ("Bksp", "undo"), ("Enter", "send"), ("Esc", "back")]
            rules = self._rules()
            if rules is not None and self.draft.unkeyed(rules, len(CHOICE_KEYS)):
                pairs.append(("Tab", "new keys"))
        elif self.draft is not None:  # the proposal
            pairs = [("Enter", "send"), ("e", "lay them yourself")]
            if self.draft.kind != "show":
                pairs.append(("Esc", "cancel"))
        else:
            v = self.view()
            pairs = list(v.keys) if v is not None else [("?", "help")]
        return self._key_bar(pairs, width)

    def _key_bar(self, pairs: list[tuple[str, str]], width: int) -> StyleAndTextTuples:
        """The keys in one row: where they do not all fit, the first ones and ``…``, and
        ``? help`` kept last (the help lists every key)."""
        pairs = [(self.look.words(key), self.look.words(what)) for key, what in pairs]

        def size(ps: list[tuple[str, str]]) -> int:
            return sum(len(f" {k} {w} ") + 1 for k, w in ps)

        more = self.look.words("…")
        if size(pairs) > width:
            last = [p for p in pairs if p[0] == "?"]
            kept = [p for p in pairs if p[0] != "?"]
            while kept and size(kept) + size(last) + len(more) + 1 > width:
                kept.pop()
            pairs = [*kept, (more, ""), *last] if kept or last else pairs[:0]
        out: StyleAndTextTuples = []
        for key, what in pairs:
            if key == more and not what:
                out += [("class:dim", more), ("", " ")]
            else:
                out += [("class:title reverse", f" {key}"), ("reverse", f" {what} "), ("", " ")]
        return out

    # -- the application -------------------------------------------------------------
    def bindings(self) -> KeyBindings:
        """The table's keys (:mod:`.bindings`), and the help's: taller than the terminal,
        it scrolls by a row (↑ ↓), a page (PgUp, PgDn, Space) or to an end (Home, End)."""
        kb = super().bindings()
        helping = Condition(lambda: self.show_help and self.confirm is None
                            and not self.command_mode)  # fmt: skip

        def page() -> int:  # a page less a row: the row read last stays in sight
            return max(1, self._help_page - 1)

        moves: dict[str, Callable[[], int]] = {
            "down": lambda: 1, "up": lambda: -1, "pagedown": page, " ": page,
            "pageup": lambda: -page(), "home": lambda: -(10**6), "end": lambda: 10**6,
        }  # fmt: skip
        for key, by in moves.items():
            kb.add(key, filter=helping)(self._scroller(by))
        return kb

    def _scroller(self, by: Callable[[], int]) -> Callable[[object], None]:
        def scroll(_: object) -> None:
            self.help_top = max(0, self.help_top + by())  # the drawing stops it at the end
            self.refresh()

        return scroll

    def build(self) -> Application[None]:
        def size() -> tuple[int, int]:
            return app_size(self.app)

        self._body = FormattedTextControl(lambda: self.screen(size()[0], max(1, size()[1] - 2)),
                                          focusable=True)  # fmt: skip
        body = Window(self._body, wrap_lines=False)
        command = ConditionalContainer(
            Window(BufferControl(self.command, input_processors=[BeforeInput(": ")]), height=1),
            filter=Condition(lambda: self.command_mode),
        )
        message = ConditionalContainer(
            # a long refusal wraps (up to three lines) rather than being cut at the edge;
            # under the command line, only a refusal of the line (its reason)
            Window(
                FormattedTextControl(lambda: self.bottom(size()[0])),
                height=Dimension(min=1, max=3),
                wrap_lines=True,
                dont_extend_height=True,
            ),
            filter=Condition(lambda: not self.command_mode or bool(self.message[1])),
        )
        keys = Window(FormattedTextControl(lambda: self.keys_line(size()[0])), height=1)
        layout = Layout(self.with_menu(HSplit([body, command, message, keys])),
                        focused_element=body)  # fmt: skip
        app: Application[None] = Application(
            layout=layout, key_bindings=self.bindings(), style=self.look.style,
            full_screen=True, mouse_support=False, refresh_interval=1.0,
            input=self.input, output=self.output,
        )  # fmt: skip
        app.ttimeoutlen = 0.05
        # Esc on the command line may begin an Alt key of the line editor (Esc b, Esc f):
        # waiting the default second for one made Esc feel broken
        app.timeoutlen = 0.25
        return app

    def _log(self, text: str, style: str = "") -> None:
        stamp = time.strftime("%H:%M")
        self.log.append((style, f"{stamp} {self.look.words(text)}"))
        del self.log[:-LOG_KEEP]
