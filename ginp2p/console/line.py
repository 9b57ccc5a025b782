"""The line mode: a person at a plain line prompt (prompt_toolkit at a terminal, or
lines from a pipe), who reads the game as lines of words — the table on ``look``, each
move, a hand's showdown, the match's score sheet — and types commands. Scripts and
screen readers use it (``--plain``); the words themselves are made in
:mod:`ginp2p.present.lines` and :mod:`ginp2p.present.seat_words`.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import signal
import sys
import textwrap
import threading
from collections.abc import Callable, Iterator
from typing import Any, TextIO

from ginp2p.app.seat import Seat
from ginp2p.present.commands import (
    RULES_ANSWERS,
    Command,
    CommandError,
    QuitCmd,
    ResignCmd,
    RulesCmd,
    RulesOffered,
    help_text,
    parse_command,
)
from ginp2p.present.lines import look_lines, recap_line, score_sheet, showdown_text
from ginp2p.present.seat_words import event_words, leave_question, match_line
from ginp2p.present.vocabulary import lookup
from ginp2p.proto.outputs import Waiting
from ginp2p.proto.results import HandScored, MatchOver
from ginp2p.proto.state import OWED_GUEST_HELLO, OWED_HOST_HELLO

__all__ = ["DECISIONS", "LinePlayer"]

DECISIONS = ("a move", "a show", OWED_HOST_HELLO, OWED_GUEST_HELLO)
"""What the other player owes that is theirs to decide (the rest the program does)."""


class LinePlayer:
    """A person at a plain line prompt (prompt_toolkit when on a terminal)."""

    stays_at_the_end = False  # the prompt ends with the match

    def __init__(self, verbose: bool = True, stdin: Any = None) -> None:
        self.verbose = verbose
        self.stdin = stdin
        self._shown: tuple[int, int] | None = None
        self._claim_told = False
        self._late_told = False
        self._recapped = False  # a resumed game's moves since ours, said once
        self.asking = False  # Ctrl-C asked "leave the game?" and the answer is due

    @property
    def keys_ctrl_c(self) -> bool:
        return self._at_terminal()

    def _at_terminal(self) -> bool:
        stdin = self.stdin or sys.stdin
        return stdin is sys.stdin and stdin is not None and bool(stdin.isatty())

    def next_command(self, seat: Seat) -> Command | None:
        m = seat.match
        if not self._recapped:
            self._recapped = True
            if seat.resumed:
                self.recap(seat)
        # the table again after every move (not for a chat line)
        turn = (m.hand_no, len(m.hand.moves)) if seat.my_turn and m and m.hand else None
        if turn is not None and turn != self._shown:
            self._shown = turn
            self.look(seat)
        claimable = seat.may_claim
        timeout = seat.claim_timeout
        if claimable and not self._claim_told:
            seat.say(f"{seat.opponent_name} has not answered for {timeout} s: "
                     "type `claim` to win the match by forfeit")  # fmt: skip
        self._claim_told = claimable
        wait = seat.my_wait
        late = wait is not None and wait >= timeout / 2
        if wait is not None and late and not self._late_told:
            left = timeout - wait  # none after a resume that came late
            when = f"in {left:.0f} s" if left >= 1 else "now"
            seat.say(f"you have had this move for {wait:.0f} s: {when} "
                     f"{seat.opponent_name} may claim the match")  # fmt: skip
        self._late_told = late
        return None

    def event(self, seat: Seat, what: object) -> None:
        if isinstance(what, RulesOffered):
            seat.say(f"the host's rules: {what.text()}")
            seat.say("play by these rules? type yes or no")
            return
        if isinstance(what, Waiting) and not what.what.startswith(DECISIONS):
            if not seat.link_up:  # (`stock` typed while they are away: silence)
                seat.say(f"waiting for {seat.opponent_name}: {what.what} (they are "
                         "away: reconnecting…)")  # fmt: skip
            return  # the shuffle's steps: a screen reader would read nothing else
        if isinstance(what, MatchOver) and seat.match is not None:
            seat.say(match_line(seat, what, totals=False))  # the sheet ends in them
            seat.say(score_sheet(seat, seat.match))
            return
        text = event_words(seat, what, terse=False)
        if text:
            seat.say(text)
        if isinstance(what, HandScored):
            seat.say(showdown_text(seat, what))

    def recap(self, seat: Seat) -> None:
        """A resumed game: the moves of this hand since our own last one, in words."""
        line = recap_line(seat, seat.events)
        if line is not None:
            seat.say(line)

    def look(self, seat: Seat) -> None:
        """The table in words (``look``; and at each of our turns)."""
        for line in look_lines(seat, seat.hand(), seat.legal_actions()):
            seat.say(line)

    async def run(self, seat: Seat) -> None:
        if self._at_terminal():
            await self._run_prompt(seat)
        else:
            await self._run_lines(seat, self.stdin or sys.stdin)

    async def _run_prompt(self, seat: Seat) -> None:
        from prompt_toolkit import PromptSession
        from prompt_toolkit.patch_stdout import patch_stdout

        from ginp2p.console.completion import CommandCompleter, seat_cards

        # Tab completes the commands and cards as a menu (not while typing: a screen
        # reader would read a menu at every key)
        ps: PromptSession[str] = PromptSession(
            input=_keys_kept(), complete_while_typing=False,
            completer=CommandCompleter(seat_cards(seat), rules=lambda: seat.rules))  # fmt: skip
        # the terminal stays the prompt's between two prompts too: a key typed as a line
        # is entered waits for the next prompt as it was typed (a Ctrl-C is a key then)
        with ps.input.raw_mode(), patch_stdout(), _sigint_calls(lambda: self._signalled(ps)):
            while True:
                try:
                    if self._sigint_due:  # a Ctrl-C came as the last prompt closed
                        raise KeyboardInterrupt
                    line = await ps.prompt_async("leave? y/n> " if self.asking else "ginp2p> ",
                                                 handle_sigint=False)  # fmt: skip
                except EOFError:  # Ctrl-D: leaving, asked first in a live game as Ctrl-C is
                    if self.interrupted(seat):
                        return
                    continue
                except KeyboardInterrupt:
                    self._sigint_due = False
                    if self.interrupted(seat):
                        return
                    continue
                if isinstance(self._line(seat, line), QuitCmd):
                    return  # no prompt after leaving

    _sigint_due = False  # a Ctrl-C to ask about once the closing prompt's line is done

    def _signalled(self, ps: Any) -> None:
        """SIGINT for the whole game (``kill -INT``, a terminal that sends it to all its
        processes), even as one prompt closes and the next is not yet up: the default
        ended the process (exit 130) without telling the other player. It is the
        prompt's own Ctrl-C instead: it asks."""
        app = ps.app
        if app.future is not None and not app.future.done():
            app.exit(exception=KeyboardInterrupt(), style="class:aborting")
        else:  # the prompt is closing: its line first, then the question
            self._sigint_due = True

    def interrupted(self, seat: Seat) -> bool:
        """Ctrl-C at the prompt: ask first, as the table does, since one stray key must
        not end a live game; a second Ctrl-C at the question leaves (a way out that
        needs no reading). True if it left."""
        if self.asking:
            self.asking = False
            seat.submit(QuitCmd())
            return True
        return self._ask_leave(seat)

    def _ask_leave(self, seat: Seat) -> bool:
        """Ask "leave the game?" (Ctrl-C, and `quit` at a terminal, as the table's
        `:quit` does); once the match is over nothing is lost: leave at once. True if it
        left."""
        if seat.done or seat.over or seat.finished:
            seat.submit(QuitCmd())
            return True
        self.asking = True
        width = max(40, shutil.get_terminal_size().columns - 1)  # wrapped between words
        seat.say(f"{textwrap.fill(leave_question(seat), width)}\n"
                 "type y to leave, n to stay (Ctrl-C again leaves)")  # fmt: skip
        return False

    def _answer_leave(self, seat: Seat, line: str) -> Command | None:
        """The answer to Ctrl-C's question: y leaves, n stays, anything else asks again."""
        answer = line.strip().lower()
        if answer in ("y", "yes"):
            self.asking = False
            seat.submit(QuitCmd())
            return QuitCmd()
        if answer in ("n", "no"):
            self.asking = False
            seat.say("you stay in the game")
            return None
        seat.say("? type y to leave the game, or n to stay")
        return None

    async def _run_lines(self, seat: Seat, stdin: TextIO) -> None:
        """Lines from a pipe: a daemon thread reads (it never blocks the exit)."""
        loop = asyncio.get_running_loop()
        lines: asyncio.Queue[str | None] = asyncio.Queue()

        def reader() -> None:
            for line in stdin:
                loop.call_soon_threadsafe(lines.put_nowait, line)
            loop.call_soon_threadsafe(lines.put_nowait, None)

        threading.Thread(target=reader, daemon=True, name="ginp2p-stdin").start()
        while (line := await lines.get()) is not None:
            words = line.split()
            if words:  # a script's lines wait for the table they were written for
                await _settled(seat, words[0].lower())
            self._line(seat, line)
        seat.submit(QuitCmd())

    def _line(self, seat: Seat, line: str) -> Command | None:
        """Do what a typed line says; the command it submitted, if any."""
        if self.asking:
            return self._answer_leave(seat, line)
        if not line.strip():
            return None
        answer = line.strip().lower()
        if seat.rules_asked:
            if answer in RULES_ANSWERS:
                seat.submit(RulesCmd(answer.startswith("y")))
            else:
                seat.say("? type yes to play by the host's rules, or no to leave")
            return None
        if answer in RULES_ANSWERS and seat.rules_due:  # typed before they were shown
            seat.say("? the host's rules have not come yet: answer yes or no once they "
                     "are shown")  # fmt: skip
            return None
        try:
            cmd = parse_command(line, seat)
        except CommandError as exc:
            seat.say(f"? {exc}")
            return None
        except Exception as exc:  # never a crash on typed input
            seat.say(f"? cannot do that now ({type(exc).__name__}: {exc})")
            return None
        if isinstance(cmd, ResignCmd):  # one mistyped line must not lose the match
            words = line.split()
            if len(words) < 2 or words[1].lower() != "yes":
                seat.say(f"? resigning ends the match and {seat.opponent_name} wins it; "
                         "type `resign yes` to resign")  # fmt: skip
                return None
            cmd = ResignCmd(" ".join(words[2:]))
        if isinstance(cmd, QuitCmd) and self._at_terminal():  # a pipe never waits for y
            return cmd if self._ask_leave(seat) else None
        if cmd == "help":
            seat.say(help_text(seat.rules, self._at_terminal()))
        elif cmd == "look":
            self.look(seat)
        else:
            assert not isinstance(cmd, str)
            seat.submit(cmd)
            return cmd
        return None


async def _settled(seat: Seat, verb: str) -> None:
    """Until the table is settled for a script's line that begins with ``verb``: every
    command sent is done and nothing automatic is pending (a stock card's key, a shuffle
    step); for a move, until it is this player's move; for a yes or no, until the host's
    rules are asked, if they are still to come (a script cannot wait to read them); for
    a look, until there are cards to look at. Or until the match is over. A script's
    line is then judged against the table it was written for. A quit waits only for the
    commands before it: what the other side owes may never come (it may be gone). The
    verb may be cut short, as the parser takes it (``st``, ``q``)."""
    named = lookup(verb)
    move = named is not None and named.move
    word = named.name if named is not None else verb

    def ready() -> bool:
        if seat.done or seat.over or seat.finished:
            return True
        if word == "quit":
            return not seat.busy
        if verb in RULES_ANSWERS and seat.rules_due:
            return False
        if word == "look" and seat.hand() is None:  # before the deal: only a status
            return False
        if seat.busy:
            return False
        if seat.my_turn or move:
            return seat.my_turn
        owed = seat.owed
        return owed is None or owed.startswith(DECISIONS)

    while not ready():
        await asyncio.sleep(0.02)


def _keys_kept() -> Any:
    """The prompt's keyboard: this terminal's, kept in the prompt's mode while a line is
    printed above the prompt (None where prompt_toolkit's own is the only one). Its own
    gives the terminal back to the terminal's line mode for each such line, and a key
    typed meanwhile was the terminal's: a Ctrl-D an end of input and no key (the prompt
    then read a Ctrl-@, and nothing happened), a backspace erasing nothing, the rest
    echoed into the printed lines. Here the keys wait for the prompt as they were typed."""
    try:
        from prompt_toolkit.input.vt100 import Vt100Input
    except ImportError:  # not a POSIX terminal
        return None

    class KeysKept(Vt100Input):
        def cooked_mode(self) -> contextlib.AbstractContextManager[None]:
            return contextlib.nullcontext()

    return KeysKept(sys.stdin)


@contextlib.contextmanager
def _sigint_calls(callback: Callable[[], None]) -> Iterator[None]:
    """SIGINT calls ``callback`` on the running loop within the block, where a signal
    can be caught (not on Windows, nor off the main thread); then the handler before."""
    loop, before = asyncio.get_running_loop(), signal.getsignal(signal.SIGINT)
    try:
        loop.add_signal_handler(signal.SIGINT, callback)
    except (NotImplementedError, RuntimeError, ValueError):
        yield
        return
    try:
        yield
    finally:
        loop.remove_signal_handler(signal.SIGINT)
        if before is not None:
            signal.signal(signal.SIGINT, before)
