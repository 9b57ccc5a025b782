"""The table a person plays at: a full-screen prompt_toolkit application.

:class:`TablePlayer` is a :class:`~ginp2p.app.players.Player` like the bot and the line
prompt. :meth:`TablePlayer.play` runs the application with ``run_async()`` and starts
the game (``Session.run``: the network, the clock, the protocol) as the application's
background task; every protocol event updates the table and calls ``invalidate()``.

Keys become the same commands the line prompt reads (:func:`ginp2p.present.commands.parse_command`),
so a key and a typed command are checked and explained the same way. The table itself
is drawn by the pure functions of :mod:`.view` and :mod:`.render`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any, cast

from prompt_toolkit.application import Application
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples, split_lines
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys
from prompt_toolkit.layout import ConditionalContainer, HSplit, Layout, Window
from prompt_toolkit.layout.controls import BufferControl, FormattedTextControl
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.layout.processors import BeforeInput
from prompt_toolkit.output import Output

from ginp2p.app.players import leave_question, seat_names
from ginp2p.app.session import Session, SessionResult
from ginp2p.console.tui.keys import IDLE_KEYS, does_nothing, key_name, redraw_when_continued
from ginp2p.console.tui.look import Look
from ginp2p.console.tui.render import (
    CHOICE_KEYS,
    MIN_WIDTH,
    Row,
    draft_rows,
    header_rows,
    help_rows,
    join_rows,
    match_rows,
    rules_rows,
    status_row,
    summary_rows,
    table_rows,
    too_small,
    wrap,
)
from ginp2p.game.cards import RANKS, Card
from ginp2p.game.engine import Action, DrawDiscard, DrawStock, Phase
from ginp2p.game.rules import RuleSet
from ginp2p.present.commands import (
    Act,
    ClaimCmd,
    Command,
    CommandError,
    QuitCmd,
    ResignCmd,
    RulesCmd,
    RulesOffered,
    parse_command,
)
from ginp2p.present.view import (
    Draft,
    HandSummary,
    MatchSummary,
    Situation,
    TableView,
    build_view,
    deadwood_after,
    draft_from,
    hand_summary,
    log_line,
    match_summary,
)
from ginp2p.proto.protocol import EarlyClaim
from ginp2p.proto.table import CheatDetected, HandDealt, HandScored, MatchOver, Moved, moves_since

__all__ = ["CommandCompleter", "TablePlayer", "card_word", "situation"]

LOG_KEEP = 500
#: After the game, before the table closes its connection: time for the bye to leave.
BYE_GRACE_S = 0.5
VERBS = ("stock", "pile", "take", "pass", "discard", "knock", "gin", "rumino", "show", "say",
         "claim", "resign", "quit", "help")  # fmt: skip
CARD_VERBS = ("discard", "d", "knock", "gin", "rumino")


def card_word(card: Card) -> str:
    """How a person types a card: ``7h``, ``10h``, ``qs``, ``jk`` (``7h'``: the second
    copy, marked as the screen marks it)."""
    if card.suit is None:
        word = "jk"
    else:
        word = ("10" if card.rank == 10 else RANKS[card.rank].lower()) + card.suit.letter.lower()
    return word + "'" * card.copy


def situation(session: Session) -> Situation:
    """What the table is drawn from, read off a running session."""
    p = session.proto
    names = seat_names(session)
    owed = p.table.owes(p.opponent)
    waiting = session.waiting
    waited = session.now() - p.waiting_since if waiting is not None and owed is not None else 0.0
    if session.result is not None:  # the game is done and its connection closed
        link = "game over"
    elif session.link_up:
        link = "connected"
    else:
        link = "reconnecting…" if session.stats.reconnects else "connecting…"
    return Situation(
        me=p.me,
        names=(names[0], names[1]),
        match=p.table.match,
        hand=p.view(),
        my_turn=p.my_turn,
        owed=owed.what if owed is not None else None,
        waited=waited,
        claim_timeout=p.table.claim_timeout,
        claimable=session.may_claim(),
        my_wait=session.my_wait(),
        link=link,
        latency=session.latency,
        over=session.finishing is not None,
    )


class CommandCompleter(Completer):
    """Completes the command line: the verbs, then the cards of your hand that fit."""

    def __init__(self, table: TablePlayer) -> None:
        self.table = table

    def get_completions(self, document: Document,
                        complete_event: CompleteEvent) -> Iterable[Completion]:  # fmt: skip
        text = document.text_before_cursor
        words = text.split()
        if not words or (len(words) == 1 and not text.endswith(" ")):
            prefix = words[0].lower() if words else ""
            for verb in VERBS:
                if verb.startswith(prefix):
                    yield Completion(verb, -len(prefix))
            return
        if len(words) > 2 or (len(words) == 2 and text.endswith(" ")):
            return
        verb = words[0].lower()
        prefix = words[1].lower() if len(words) == 2 else ""
        for card in self.table.cards_for(verb):
            word = card_word(card)
            if word.startswith(prefix):
                yield Completion(word, -len(prefix), display=self.table.look.name(card))


class TablePlayer:
    """A person at the full-screen table.

    ``input``/``output`` default to the terminal; tests pass a pipe input and a
    ``DummyOutput``. ``bell``: ring when it becomes your turn.
    """

    verbose = True
    keys_ctrl_c = True  # asks "leave the game?" first
    stays_at_the_end = True  # the final score sheet, until q

    def __init__(self, look: Look | None = None, *, bell: bool = True,
                 input: Input | None = None, output: Output | None = None) -> None:  # fmt: skip
        self.look = look or Look.from_env()
        self.bell = bell
        self.input = input
        self.output = output
        self.session: Session | None = None
        self.app: Application[None] | None = None
        self.running = False
        self.result: SessionResult | None = None
        self.log: list[tuple[str, str]] = []
        self.message: tuple[str, str] = ("", "")
        self.selected: Card | None = None
        self.draft: Draft | None = None
        self._proposal: Draft | None = None  # what `e` started editing, for Esc
        self._asked: Action | None = None  # a worse declaration Enter asked about
        self.summary: HandSummary | None = None
        self.final: MatchSummary | None = None
        self.rules_offer: str | None = None
        self.show_help = False
        self.confirm: tuple[str, Callable[[], None]] | None = None
        self.command_mode = False
        self.leaving = False
        self._my_turn = False
        self._drawn: Card | None = None
        self._passed_up: Any = None  # the discard (and hand) whose passed-up gin was said
        self._view_key: Any = None
        self._view: TableView | None = None
        self.command = Buffer(multiline=False, completer=CommandCompleter(self),
                              complete_while_typing=True,
                              accept_handler=self._accept_line)  # fmt: skip

    # -- the Player protocol ------------------------------------------------------------
    def next_command(self, session: Session) -> Command | None:
        """Called after every change: ring on a new turn, refresh. Moves come from keys."""
        self.session = session
        m = session.proto.table.match
        if self.final is not None and self.result is None and m is not None and not m.over:
            self.final = None  # the claim that ended the match was beaten: play goes on
        mine = session.proto.my_turn
        if mine and not self._my_turn and self.bell and self.app is not None and self.running:
            self.app.output.bell()
        self._my_turn = mine
        self._sync_draft()
        self.refresh()
        return None

    def event(self, session: Session, what: Any) -> None:
        self.session = session
        p = session.proto
        names = self._names()
        if isinstance(what, RulesOffered):
            self.rules_offer = what.text()
        elif isinstance(what, Moved) and what.player == p.me and \
                isinstance(what.action, DrawStock | DrawDiscard):  # fmt: skip
            # the card just taken from the pile may not go back: do not offer it
            m = p.table.match
            back = isinstance(what.action, DrawDiscard) and m is not None \
                and not m.rules.discard_taken_card  # fmt: skip
            self._drawn = None if back else what.card
            if self._drawn is not None:
                self.selected = self._drawn
        elif isinstance(what, HandScored):
            m = p.table.match
            if m is not None:
                self.summary = hand_summary(what.hand, what.result, what.scores, p.me, names,
                                            m.rules)  # fmt: skip
            self.draft = None
        elif isinstance(what, MatchOver):
            m = p.table.match
            if m is not None:
                self.final = match_summary(m, p.me, names)
        elif isinstance(what, HandDealt):
            self.draft = None
            self._drawn = None
        if self.message[0] == "class:error" and (
            isinstance(what, HandDealt) or (isinstance(what, Moved) and what.player != p.me)
        ):
            self.message = ("", "")  # the table moved on: an old "not now" would mislead
        m = p.table.match
        line = log_line(what, p.me, names, m.rules if m is not None else None)
        if line is None and isinstance(what, CheatDetected | EarlyClaim):
            line = session.describe(what, terse=False)
        if line:
            style = "class:cheat" if isinstance(what, CheatDetected | EarlyClaim) else \
                "class:title" if isinstance(what, HandScored | MatchOver) else ""  # fmt: skip
            self._log(line, style)
        self.refresh()

    async def run(self, session: Session) -> None:
        """Input is the application's, started by :meth:`play`; nothing to run here."""
        self.session = session

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

    async def play(self, session: Session) -> SessionResult:
        """Run the table until the game ends and the player leaves; the game itself
        (``session.run``) is the application's background task."""
        self.session = session
        app = self.app = self.build()

        async def game() -> None:
            try:
                result = await session.run()
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
            await session.endpoint.close()

        undo: list[Callable[[], None]] = []

        def start_game() -> None:
            undo.append(redraw_when_continued(app))
            app.create_background_task(game())

        m = session.proto.table.match
        if m is not None and m.over:  # a finished match resumed: show how it ended
            self.final = match_summary(m, session.proto.me, self._names())
        elif m is not None and m.hand_no:
            self._log(f"the game goes on: hand {m.hand_no}, {self._names()[0]} {m.scores[0]}, "
                      f"{self._names()[1]} {m.scores[1]}")  # fmt: skip
            me = session.proto.me  # and the moves since ours: they may have come as we left
            for ev in moves_since(session.proto.table.events, me)[0]:
                if (line := log_line(ev, me, self._names(), m.rules)) is not None:
                    self._log(line)
        self.running = True
        try:
            await app.run_async(pre_run=start_game)
        except OSError as exc:  # the terminal is gone (its window closed: EIO on its keys)
            if self.result is not None:
                raise
            await session.pause()  # so the other player hears we paused, not silence
            self.result = SessionResult(
                1,
                "quit",
                f"the terminal closed ({exc}); the game "
                f"is saved: ginp2p resume {session.game_path}",
            )
        finally:
            self.running = False
            for done in undo:
                done()
        if self.result is None:
            self.result = SessionResult(0, "quit", "left the game; it is saved: ginp2p resume "
                                        f"{session.game_path or 'FILE'}")  # fmt: skip
        return self.result

    def refresh(self) -> None:
        self._view_key = None
        if self.app is not None and self.running:
            self.app.invalidate()

    # -- the view -------------------------------------------------------------------
    def _names(self) -> tuple[str, str]:
        assert self.session is not None
        return seat_names(self.session)

    def view(self) -> TableView | None:
        """The table now (cached until the next change; the clock is re-read)."""
        if self.session is None:
            return None
        s = situation(self.session)
        key = (self.session.proto.table.placed_count, s.my_turn, s.claimable, s.link, s.over,
               s.owed)  # fmt: skip
        if self._view is None or key != self._view_key:
            self._view = build_view(s)
            self._view_key = key
            self._keep_selection(self._view)
        return replace(self._view, waited=s.waited, latency=s.latency)

    def _keep_selection(self, v: TableView) -> None:
        if self.selected in v.hand:
            return
        if self._drawn in v.hand:
            self.selected = self._drawn
        else:
            self.selected = v.hand[-1] if v.hand else None

    def cards_for(self, verb: str) -> list[Card]:
        """The cards that complete a command: knock/gin only offer discards that work."""
        v = self.view()
        if v is None:
            return []
        if verb == "knock":
            return [k.discard for k in v.knocks if not k.gin and k.discard is not None]
        if verb == "gin":
            return [k.discard for k in v.knocks if k.gin and k.discard is not None]
        if verb in CARD_VERBS:
            return list(v.hand)
        return []

    def screen(self, width: int, height: int) -> StyleAndTextTuples:
        """The whole screen but the two bottom rows (message, keys); with ``--ascii``
        not one symbol outside ASCII (rules, separators, the turn marker)."""
        return self.look.fragments(join_rows(self.rows(width, height), width))

    def rows(self, width: int, height: int) -> list[Row]:
        v = self.view()
        if v is None:
            return [[("", " starting…")]]
        rows = header_rows(v, width)
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
        if self.show_help:
            return help_rows(width, self._rules())
        if self.rules_offer is not None:
            return rules_rows(self.rules_offer, width)
        if self.summary is not None:
            shows = self.draft is not None and self.draft.kind == "show"
            return summary_rows(self.summary, self.look, width, last=self.final is not None,
                                next_up="the next hand is over already: your showdown waits"
                                if shows else "the next hand is being dealt")  # fmt: skip
        if self.final is not None:
            s = self.session
            if s is not None and s.claim_undelivered:
                return match_rows(self.final, width, self.result is not None, height,
                                  f"your claim has not reached {s.opponent_name}: waiting for "
                                  "them (q leaves; a resume delivers it)")  # fmt: skip
            return match_rows(self.final, width, self.result is not None, height)
        return None

    def _rules(self) -> Any:
        assert self.session is not None
        m = self.session.proto.table.match
        return m.rules if m is not None else None

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
        out: StyleAndTextTuples = []
        used = 0
        for key, what in pairs:
            key, what = self.look.words(key), self.look.words(what)
            piece = f" {key} {what} "
            if used + len(piece) + 1 > width:
                break
            out += [("class:title reverse", f" {key}"), ("reverse", f" {what} "), ("", " ")]
            used += len(piece) + 1
        return out

    # -- the application -------------------------------------------------------------
    def build(self) -> Application[None]:
        def size() -> tuple[int, int]:
            app = self.app
            if app is None:
                return 80, 24
            s = app.output.get_size()
            return s.columns, s.rows

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
        layout = Layout(HSplit([body, command, message, keys]), focused_element=body)
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

    def bindings(self) -> KeyBindings:
        kb = KeyBindings()
        command = Condition(lambda: self.command_mode)
        confirm = Condition(lambda: self.confirm is not None)
        helping = Condition(lambda: self.show_help)
        offered = Condition(lambda: self.rules_offer is not None)
        final = Condition(lambda: self.final is not None and self.summary is None)
        editing = Condition(lambda: self.draft is not None and self.draft.editing)
        drafting = Condition(lambda: self.draft is not None and not self.draft.editing)
        summary = Condition(lambda: self.summary is not None)
        done = Condition(lambda: self.result is not None and self.summary is None)
        free = ~command & ~confirm & ~helping & ~offered & ~final & ~editing
        play = free & ~drafting

        def on(*keys: str, filter: Any) -> Callable[[Callable[[], None]], Callable[[], None]]:
            def register(fn: Callable[[], None]) -> Callable[[], None]:
                def handler(event: KeyPressEvent) -> None:
                    self.message = ("", "")
                    try:
                        fn()
                    except Exception as exc:  # never a crash on a key
                        self.message = ("class:error", f"cannot do that now ({exc})")
                    self.refresh()

                kb.add(*keys, filter=filter)(handler)
                return fn

            return register

        @on("c-c", filter=~confirm & ~command)
        def _leave() -> None:
            self.ask_leave()

        @on("y", filter=confirm)
        def _yes() -> None:
            assert self.confirm is not None
            _, then = self.confirm
            self.confirm = None
            then()

        @on("n", filter=confirm)
        @on("escape", filter=confirm)
        def _no() -> None:
            self.confirm = None

        @on("c-c", filter=confirm)
        def _again() -> None:
            """A second Ctrl-C at "leave?" leaves, as at the line prompt: the way out never
            depends on reading the question. At any other question it says no."""
            if self.confirm is not None and self.confirm[1] == self._leave_now:
                _yes()
            else:
                _no()

        @on("y", filter=offered & ~confirm)
        def _accept_rules() -> None:
            self.rules_offer = None
            self._submit(RulesCmd(True))

        @on("n", filter=offered & ~confirm)
        def _decline_rules() -> None:
            self.rules_offer = None
            self.leaving = True
            self._submit(RulesCmd(False))

        @on("?", filter=free)
        def _help() -> None:
            self.show_help = True

        @on("escape", filter=helping & ~confirm)
        @on("q", filter=helping & ~confirm)
        @on("?", filter=helping & ~confirm)
        @on("enter", filter=helping & ~confirm)
        def _close_help() -> None:
            self.show_help = False

        @on("q", filter=final & ~confirm & ~command)
        @on("enter", filter=final & ~confirm & ~command)
        def _done() -> None:
            self.leave_when_over()

        # the summary first, even when the next hand already asks for a showdown (the
        # other player knocked at once): Enter closed it and sent the proposal unseen
        @on("enter", filter=summary & free)
        @on("escape", filter=summary & free)
        @on(" ", filter=summary & free)
        def _close_summary() -> None:
            self.summary = None

        @on("left", filter=play)
        def _left() -> None:
            self.move(-1)

        @on("right", filter=play)
        def _right() -> None:
            self.move(1)

        @on("enter", filter=play & ~summary)
        def _discard() -> None:
            self.discard()

        @on("s", filter=play)
        def _stock() -> None:
            self.summary = None
            self.typed("stock")

        @on("d", filter=play)
        def _pile() -> None:
            self.summary = None
            self.take()

        @on("p", filter=play)
        def _pass() -> None:
            self.summary = None
            self.typed("pass")

        @on("k", filter=play)
        def _knock() -> None:
            self.summary = None
            self.knock()

        @on("g", filter=play)
        def _gin() -> None:
            self.summary = None
            self.gin()

        @on("c", filter=play)
        def _claim() -> None:
            self.ask_claim()

        @on(":", filter=free)
        @on("/", filter=free)
        def _command() -> None:
            self.command_mode = True
            self.message = ("", "")  # what shows under the line is about the line
            self.command.reset()
            assert self.app is not None
            self.app.layout.focus(self.command)

        @on("escape", filter=command)
        @on("c-c", filter=command)
        def _close_command() -> None:
            self.close_command()

        @on("enter", filter=drafting & free & ~summary)
        def _send_draft() -> None:
            self.send_draft()

        @on("e", filter=drafting & free & ~summary)
        def _edit_draft() -> None:
            self.edit_draft()

        @on("escape", filter=drafting & free & ~summary)
        def _cancel_draft() -> None:
            if self.draft is not None and self.draft.kind != "show":
                self.draft = None

        @on("enter", filter=editing & ~confirm)
        def _send_edited() -> None:
            self.send_draft()

        @on("backspace", filter=editing & ~confirm)
        def _undo() -> None:
            self.undo_choice()

        @on("escape", filter=editing & ~confirm)
        def _stop_editing() -> None:
            self.cancel_edit()

        @on("tab", filter=editing & ~confirm)
        def _rekey() -> None:
            self.rekey()

        for i, key in enumerate(CHOICE_KEYS):
            kb.add(key, filter=editing & ~confirm)(self._chooser(i))

        @on("q", filter=done & ~command & ~confirm)
        @on("enter", filter=done & ~command & ~confirm)
        @on("c-c", filter=done & ~command & ~confirm)
        def _close() -> None:
            if self.app is not None:
                self.app.exit()

        # Last, and only where the table's own keys are read: any binding above, and
        # prompt_toolkit's own (Ctrl-L, the arrows, Esc), still comes first.
        for key in (Keys.Any, *IDLE_KEYS):
            kb.add(key, filter=play)(self._unknown_key)

        return kb

    def _unknown_key(self, event: KeyPressEvent) -> None:
        """A key the table has no use for says so, in place of the last message: silence
        left that message on screen as if it were the key's answer."""
        key = event.key_sequence[0].key
        if key == Keys.ControlZ:  # a shell's suspend: the table reads it as a key instead
            self.message = (
                "class:error",
                "Ctrl-Z does not pause a game: the other player "
                "would wait on a silent table (Ctrl-C leaves; the game is saved)",
            )
            self.refresh()
            return
        name = key_name(key)
        if name is not None:
            # a capital of a table key is most likely Caps Lock, which the player cannot see
            caps = (
                " (the keys are lower case: is Caps Lock on?)"
                if name.isupper() and self._does_something(event, name.lower())
                else ""
            )
            self.message = ("class:error", does_nothing(name, caps))
            self.refresh()

    def _does_something(self, event: KeyPressEvent, key: str) -> bool:
        """Whether ``key`` has a use here and now (not merely "does nothing")."""
        bindings = event.app.key_bindings
        found = bindings.get_bindings_for_keys((key,)) if bindings is not None else []
        return any(b.handler != self._unknown_key and b.filter() for b in found)

    def _chooser(self, index: int) -> Callable[[KeyPressEvent], None]:
        def pick(event: KeyPressEvent) -> None:
            self.choose(index)
            self.refresh()

        return pick

    # -- intents (what a key means) -----------------------------------------------------
    def ask_claim(self) -> None:
        """A claim ends the match, so one key asks first, as a resignation does; why it
        cannot be made now is said on the message line, not added to the log."""
        assert self.session is not None
        if (why := self.session.no_claim()) is not None:
            self.message = ("class:warn", why)
            return

        def claim() -> None:  # the other player may have moved while we were asked
            assert self.session is not None
            if (why := self.session.no_claim()) is not None:
                self.message = ("class:warn", why)
            else:
                self._submit(ClaimCmd())

        self.confirm = (f"claim the match? {self.session.opponent_name} forfeits it", claim)

    def _submit(self, cmd: Any) -> None:
        assert self.session is not None
        self.session.submit(cmd)

    def typed(self, text: str) -> bool:
        """Run one command as typed on the line prompt; False (and a message) if it is
        not a move now."""
        assert self.session is not None
        try:
            cmd = parse_command(text, self.session.proto)
        except CommandError as exc:
            self.message = ("class:error", str(exc))
            return False
        except Exception as exc:  # never a crash on typed input
            self.message = ("class:error", f"cannot do that now ({type(exc).__name__}: {exc})")
            return False
        if cmd == "help":
            self.show_help = True
        elif cmd == "look":
            self.message = ("", "the table is on screen")
        elif isinstance(cmd, QuitCmd):
            self.ask_leave()
        elif isinstance(cmd, ResignCmd):
            self.confirm = ("resign? you lose the match", lambda: self._submit(cmd))
        elif isinstance(cmd, ClaimCmd):
            self.ask_claim()
        else:
            self._submit(cmd)
            if isinstance(cmd, Act):
                self.draft = None
        return True

    def move(self, step: int) -> None:
        v = self.view()
        if v is None or not v.hand:
            return
        if self.selected not in v.hand:
            self.selected = v.hand[0]
            return
        i = v.hand.index(self.selected)  # type: ignore[arg-type]
        self.selected = v.hand[(i + step) % len(v.hand)]

    def _phase(self) -> Phase | None:
        assert self.session is not None
        view = self.session.proto.view()
        return view.phase if view is not None else None

    def discard(self) -> None:
        v = self.view()
        if v is not None and v.phase == "wall" and v.my_turn:  # what the wall allows instead
            self.message = ("class:error", f"no discard at {v.turn}")
            return
        if self.selected is None:
            self.message = ("class:error", "no card chosen (←/→)")
            return
        better = self._better_than_discard(v)
        if better and self._passed_up != (self.selected, v.hand if v else None):
            # a gin (or rumino) is never worth throwing away by a slip of Enter
            self._passed_up = (self.selected, v.hand if v else None)
            self.message = ("class:warn", f"{better}; Enter again discards "
                            f"{self.look.name(self.selected)} and plays on")  # fmt: skip
            return
        self.typed(f"discard {self.selected.label}")

    @staticmethod
    def _better_than_discard(v: TableView | None) -> str:
        """What a plain discard would pass up, in words ("" if nothing): rumino, which
        wins the match, or a gin."""
        if v is None or not v.my_turn:
            return ""
        if v.rumino is not None:
            return "you have rumino: g declares it and wins the match"
        if v.big_gin is not None:
            return "you have big gin: g goes big gin"
        if any(k.gin for k in v.knocks):
            return "you have gin: g goes gin"
        return ""

    def take(self) -> None:
        """``d``: the upcard in the pass round, else the top of the discard pile."""
        self.typed("take" if self._phase() is Phase.FIRST_UPCARD else "pile")

    def knock(self) -> None:
        """``k``: propose a knock discarding the chosen card, or, if it cannot knock, the
        knock the hint row names (the least deadwood); the proposal waits for Enter."""
        v = self.view()
        assert self.session is not None
        if v is None or not v.my_turn:
            self.typed("knock")  # explains whose move it is
            return
        if v.phase == "draw":  # rumino's knock instead of drawing, or why not
            knocks = [k for k in v.knocks if k.discard is None]
            if knocks:
                self._propose(knocks[0].action)
            else:
                self.typed("knock")
            return
        options = {k.discard: k for k in v.knocks if not k.gin}
        chosen = options.get(self.selected)
        if chosen is None and options:
            chosen = min(options.values(), key=lambda k: k.deadwood)
            self.selected = chosen.discard
        if chosen is None:
            gins = [k for k in v.knocks if k.gin]
            if gins:
                self.message = ("class:error", "better than a knock: g goes gin")
                return
            self.typed(f"knock {self.selected.label}" if self.selected else "knock")
            return
        self._propose(chosen.action)

    def gin(self) -> None:
        v = self.view()
        if v is None or not v.my_turn:
            self.typed("gin")
            return
        gins = {k.discard: k for k in v.knocks if k.gin}
        if v.rumino is not None:  # wins the match: nothing to lay out
            self.typed(f"rumino {v.rumino.discard.label}")
        elif gins:
            chosen = gins.get(self.selected) or next(iter(gins.values()))
            self._propose(chosen.action)
        elif v.big_gin is not None:
            self._propose(v.big_gin)
        elif v.phase in ("draw", "first_upcard"):
            self.message = ("class:error", "draw first: gin comes after the draw, when every "
                            "card but your discard is in a meld")  # fmt: skip
        else:
            self.message = ("class:error", "no gin: every card but the discard must be in a meld")

    def _propose(self, action: Any) -> None:
        assert self.session is not None
        view = self.session.proto.view()
        if view is None:
            return
        self.draft = draft_from(action, view)

    def _sync_draft(self) -> None:
        """Open the showdown proposal when it is your turn to show; drop a stale one."""
        assert self.session is not None
        p = self.session.proto
        view = p.view()
        if view is None or not p.my_turn:
            self.draft = None
            return
        if view.phase is Phase.SHOW and (self.draft is None or self.draft.kind != "show"):
            legal = p.legal_actions()
            if legal:
                self.draft = draft_from(legal[0], view)
        elif view.phase is not Phase.SHOW and self.draft is not None and self.draft.kind == "show":
            self.draft = None

    def edit_draft(self) -> None:
        """``e``: lay the melds (and layoffs) from nothing, each candidate with a key of
        its own for the whole edit."""
        rules = self._rules()
        if self.draft is None or rules is None:
            return
        self._proposal = self.draft
        self._asked = None
        self.draft = self.draft.edit(rules)

    def send_draft(self) -> None:
        """Enter on a proposal: send it, unless the engine would refuse it (then say
        why, and keep it open to mend). Melds laid by hand that leave more deadwood
        than the proposal are sent by a second Enter: a key slip costs no points."""
        rules = self._rules()
        if self.draft is None or rules is None:
            return
        why = self.draft.problem(rules)
        if why is not None:
            self.message = ("class:error", why)
            return
        action = self.draft.action()
        worse = self._worse_than_proposal(rules)
        if worse and self._asked != action:
            self._asked = action
            self.message = ("class:warn", worse)
            return
        self._submit(Act(action))
        self.draft = None

    def _worse_than_proposal(self, rules: RuleSet) -> str:
        """The question before sending melds laid by hand that leave more deadwood than
        the proposal they replace ("" if they leave no more)."""
        d, proposal = self.draft, self._proposal
        if d is None or proposal is None or not d.editing:
            return ""
        mine, best = d.deadwood(rules), proposal.deadwood(rules)
        if mine <= best:
            return ""  # one row at 80 columns: a second would hide the list's last
        return (f"this leaves deadwood {mine}, the proposal {best}: Enter again sends it, "
                "Esc goes back")  # fmt: skip

    def choose(self, index: int) -> None:
        """A candidate's key: lay it, or say why it cannot be laid now."""
        rules = self._rules()
        if self.draft is None or rules is None:
            return
        keyed = self.draft.keyed
        if index >= len(keyed):
            self.message = ("class:error", f"no choice has the key {CHOICE_KEYS[index]}")
            return
        ch = self.draft.now(keyed[index], rules)
        if ch is None:
            why = self.draft.why_not(keyed[index], rules)
            self.message = ("class:error", f"{CHOICE_KEYS[index]}) not now: {why}")
            return
        self.draft = self.draft.pick(ch, rules)
        self.message = ("", "")

    def rekey(self) -> None:
        """Tab: keys for the candidates past the last key, asked for, so never a surprise."""
        rules = self._rules()
        if self.draft is None or rules is None:
            return
        if not self.draft.unkeyed(rules, len(CHOICE_KEYS)):
            self.message = ("", "every candidate has a key")
            return
        self.draft = self.draft.rekey(rules)
        self.message = ("class:warn", "new keys: what can be laid now is numbered afresh")

    def undo_choice(self) -> None:
        if self.draft is not None:
            self.draft = self.draft.undo()

    def cancel_edit(self) -> None:
        """Back to the proposal the edit started from (Esc on it again leaves a knock)."""
        self.draft, self._proposal = self._proposal, None
        if self.draft is None:
            self._sync_draft()

    def ask_leave(self) -> None:
        """Ctrl-C: leave at once when the match is over, else ask first."""
        if self.final is not None or self.result is not None:
            self.leave_when_over()
            return
        text = (
            leave_question(self.session, terse=True)
            if self.session is not None
            else "leave the game? it is saved, and `ginp2p resume` continues it"
        )
        self.confirm = (text, self._leave_now)

    def _leave_now(self) -> None:
        self.leaving = True
        self._submit(QuitCmd())

    def leave_when_over(self) -> None:
        if self.result is not None:
            if self.app is not None:
                self.app.exit()
            return
        self.leaving = True
        self._submit(QuitCmd())

    def close_command(self) -> None:
        self.command_mode = False
        self.command.reset()
        if self.app is not None:
            self.app.layout.focus(self._body)

    def _accept_line(self, buffer: Buffer) -> bool:
        """Run the typed line. A line that is no command stays open with its words, to
        be mended: closed, the keys typed next would be moves of the table."""
        if buffer.text.strip() and not self.typed(buffer.text):
            buffer.cancel_completion()  # the reason shows, not a menu over it
            self.refresh()
            return True  # keep the text
        self.close_command()
        self.refresh()
        return False

    def _log(self, text: str, style: str = "") -> None:
        stamp = time.strftime("%H:%M")
        self.log.append((style, f"{stamp} {self.look.words(text)}"))
        del self.log[:-LOG_KEEP]
