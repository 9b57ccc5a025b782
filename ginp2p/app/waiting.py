"""Before the game, while the other player is awaited: a person is heard meanwhile, so
that nothing they type waits to be played into the game once it begins. At the line
prompt its lines are answered (``quit``, ``help``, a host's ``code``); at the table a
:class:`~ginp2p.app.awaited.WaitScreen` (the console's full screen,
``ginp2p.console.tui.waiting``) shows what :class:`~ginp2p.app.awaited.Awaited` says
and hears the keys, and what was typed ahead is dropped before the table takes them.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from ginp2p.app.awaited import Awaited
from ginp2p.app.config import GameSetup
from ginp2p.app.piped import PipedLines
from ginp2p.files.gamefiles import PeerFile
from ginp2p.present.commands import HELP_WORDS, QUIT_WORDS, RULES_ANSWERS

__all__ = [
    "CODE_WORDS",
    "LeftWaiting",
    "awaited",
    "forget_typed_ahead",
    "host_about",
    "unless_left",
    "while_waiting",
]


@dataclass(frozen=True, slots=True)
class _WaitWords:
    """What a person waits for before the game, and what leaving then means."""

    waiting: str  # "the game has not begun: waiting for a guest to join"
    stop: str  # what `quit` does now: "stop hosting"
    keeps: str  # and what that keeps: "nothing is kept"
    left: str  # said on leaving: "stopped hosting before a guest joined"
    kept: str  # and after it, what is kept
    rules_to_come: bool = False  # a new guest: the host's rules are asked once it answers
    about: str = ""  # more for help, a line of its own: where the join string is
    hint: str = ""  # after "the input ended": another way to do what was meant
    new_code: Callable[[], None] | None = None  # a host that pairs: `code` makes a new one

    def help(self, terminal: bool) -> str:
        """``help`` while waiting: what is awaited and the commands that work now
        (ASCII, within 80 columns, as the game's help)."""
        lines = [self.waiting, *([self.about] if self.about else []),
                 f"  quit                     {self.stop}; {self.keeps}"]  # fmt: skip
        if self.new_code is not None:
            lines.append("  code                     a new pairing code (the one shown then "
                         "works no more)")  # fmt: skip
        lines.append("  help                     this list")
        if terminal:
            lines.append(f"  Ctrl-D or Ctrl-C         {self.stop} too")
        if self.rules_to_come:
            lines.append("the host's rules are shown once it answers; answer yes or no then")
        lines.append("the game's commands work once it has begun (help then lists them)"
                     if terminal else "a script's other lines wait for the game")  # fmt: skip
        return "\n".join(lines)

    def said(self, ended: bool) -> list[str]:
        """The lines said on leaving; ``ended``: by the end of a pipe's input."""
        why = f": the input ended, which is `quit` from a pipe{self.hint}" if ended else ""
        return [f"{self.left}{why}", self.kept]


def _wait_words(setup: GameSetup, resume: bool) -> _WaitWords:
    """The words of the wait for the other player, for a host, ``play``'s person, a
    guest, or a guest resuming (its game is kept)."""
    unbegun = "the game has not begun: waiting for"
    nothing = "nothing was played, so nothing is kept"
    if setup.side.role == "guest":
        if resume and setup.ended is not None:  # nothing to play: only logs to compare
            return _WaitWords(f"{setup.ended}; waiting for the host only to compare logs",
                              "leave", "nothing is lost", "left before the host answered",
                              f"{setup.ended}: nothing was left to play")  # fmt: skip
        if resume:
            return _WaitWords("the saved game goes on once the host answers", "leave",
                              "the game stays saved", "left before the host answered",
                              f"the game is saved; continue it with: ginp2p resume "
                              f"{setup.path}")  # fmt: skip
        return _WaitWords(f"{unbegun} the host to answer", "stop joining", "nothing is kept",
                          "stopped joining before the game began", nothing,
                          rules_to_come=True)  # fmt: skip
    if setup.side.computer_game:
        return _WaitWords(f"{unbegun} the computer player to join", "leave", "nothing is kept",
                          "left before the game began", nothing)  # fmt: skip
    return _WaitWords(f"{unbegun} a guest to join", "stop hosting", "nothing is kept",
                      "stopped hosting before a guest joined", nothing,
                      about="(give them the join string and the pairing code above)",
                      hint="; a host that plays by itself is `ginp2p bot --host`")  # fmt: skip


class LeftWaiting(Exception):
    """The person left before the other player came: ``quit``, the end of input, or
    Ctrl-C at the prompt (``interrupted``). Nothing was played."""

    def __init__(self, words: _WaitWords, how: str) -> None:
        super().__init__(how)
        self.words = words
        self.ended = how == "ended"
        self.interrupted = how == "interrupted"


#: A new pairing code, while a host waits: the word (and at a terminal its letter, the
#: waiting screen's key).
CODE_WORDS = ("code", "c")


async def _pipe_while_waiting(piped: PipedLines, words: _WaitWords,
                              say: Callable[[str], None]) -> str:  # fmt: skip
    """A script's lines while the other player is awaited: `quit` and the end of the
    input leave, `help` answers, a host's `code` makes a new pairing code; the first
    other line is the script's game, which it and every line after it wait for (a
    script's `quit` after its moves is not a quit now)."""
    now = QUIT_WORDS + HELP_WORDS + (CODE_WORDS[:1] if words.new_code is not None else ())
    while (line := await piped.peek()) is not None:
        verb = line.split()[0].lower() if line.split() else ""
        if verb and verb not in now:
            await asyncio.Future()  # until the game begins (the wait is cancelled)
        piped.take()
        if verb in QUIT_WORDS:
            return "quit"
        if verb in HELP_WORDS:
            say(words.help(terminal=False))
        elif verb in CODE_WORDS and words.new_code is not None:
            words.new_code()
    return "ended"


async def _prompt_while_waiting(words: _WaitWords, say: Callable[[str], None]) -> str:
    """The prompt while the other player is awaited: every line typed now is answered
    now (the terminal would otherwise keep it for the game's prompt, where a `quit`
    meant for the wait would ask to leave the game)."""
    from prompt_toolkit import PromptSession
    from prompt_toolkit.patch_stdout import patch_stdout

    ps: PromptSession[str] = PromptSession()
    with patch_stdout():
        while True:
            prompt = asyncio.ensure_future(ps.prompt_async("ginp2p> ", handle_sigint=False))
            try:
                line = await asyncio.shield(prompt)
            except asyncio.CancelledError:  # the other player came: the game's prompt
                ps.app.erase_when_done = True  # takes over, and this one goes (with half
                await _ended(prompt)  # a line typed at it), not left on the screen
                raise
            except EOFError:  # Ctrl-D
                return "quit"
            except KeyboardInterrupt:
                return "interrupted"
            verb = line.split()[0].lower() if line.split() else ""
            if not verb:
                continue
            if verb in QUIT_WORDS:
                return "quit"
            if verb in HELP_WORDS:
                say(words.help(terminal=True))
            elif verb in CODE_WORDS and words.new_code is not None:
                words.new_code()
            elif words.rules_to_come and verb in RULES_ANSWERS:
                say("? the host's rules have not come yet: answer yes or no once they are "
                    "shown")  # fmt: skip
            else:
                say(f"? {words.waiting}; `quit` to {words.stop}, `help` says more")


_T = TypeVar("_T")


def awaited(setup: GameSetup, resume: bool, **more: Any) -> Awaited:
    """The wait for the other player as a person's screen shows it (``more``: the
    join string, the code, …; see :class:`Awaited`)."""
    words = _wait_words(setup, resume)
    side = setup.side
    if side.role == "guest":
        title = f"{side.name}, joining the game at {side.host}:{side.port}"
    elif side.computer_game:
        title = f"{side.name} against the computer"
    else:
        title = f"{side.name}, hosting a game"
    waiting = words.waiting.removeprefix("the game has not begun: ")
    delay = 0.0 if side.role == "host" and not side.computer_game else 1.0
    return Awaited(title, waiting, **{"delay": delay, **more})


async def unless_left(setup: GameSetup, waiting: Coroutine[Any, Any, _T], resume: bool,
                      say: Callable[[str], None], shown: Awaited | None = None) -> _T:  # fmt: skip
    """``waiting`` (admitting the guest, or pairing with the host), while a person is
    heard: at the table, on its waiting screen (``shown``, ``GameSetup.waiting``), at
    the line prompt as lines. Unread, what they type meanwhile would be played into the
    game once it began (a `quit` asking to leave a live game, the next line answering
    it; at the table every letter a key), and the end of their input would go unnoticed
    until then. LeftWaiting if they leave."""
    stdin = sys.stdin
    if setup.player != "human" or stdin is None:
        return await waiting
    words = _wait_words(setup, resume)
    if shown is not None and shown.new_code is not None:
        words = replace(words, new_code=shown.new_code)
    if setup.table is not None:
        if setup.waiting is None or shown is None:
            return await waiting
        watch = setup.waiting.run(shown)
    elif stdin.isatty():
        watch = _prompt_while_waiting(words, say)
    else:
        if setup.piped is None:
            setup.piped = PipedLines(stdin)
        watch = _pipe_while_waiting(setup.piped, words, say)
    work, heard = asyncio.ensure_future(waiting), asyncio.ensure_future(watch)
    try:
        await asyncio.wait((work, heard), return_when=asyncio.FIRST_COMPLETED)
        if heard.done() and heard.exception() is None:  # the person left (even if the
            raise LeftWaiting(words, heard.result())  # other just came: they said so)
        return await work  # the other player came (or the prompt failed: wait without it)
    finally:
        await _ended(heard)
        await _ended(work, insist=True)


async def _ended(task: asyncio.Future[Any], insist: bool = False) -> None:
    """Cancel ``task`` and wait until it has ended. ``insist``: cancel it again every
    0.1 s until it has, for pairing, which waits in asyncio.wait_for: Python 3.11's
    drops a cancel that comes just as what it waits for is done (gh-86296), and the
    pairing would go on. Not for a prompt: a second cancel cuts short the giving back
    of the terminal (up to a second where the terminal does not answer where its cursor
    is), which then ends after the game's prompt has begun, and takes its keys away."""
    task.cancel()
    while not task.done():
        await asyncio.wait((task,), timeout=0.1)
        if insist:
            task.cancel()
    if not task.cancelled():
        task.exception()  # seen: an error of an abandoned wait is no unhandled error


def while_waiting(setup: GameSetup, say: Callable[[str], None]) -> Callable[[str], None]:
    """What the wait for the other player says: onto the waiting screen while it is up
    (a person at the table), else to ``say``."""
    screen = setup.waiting if setup.table is not None and setup.player == "human" else None
    return screen.heard(say) if screen is not None else say


def host_about(side: PeerFile, announced: bool) -> list[str]:
    """What a host's waiting screen says beside the join string and the code: the rules
    it offers, and whether a guest on the LAN finds the game without them."""
    from ginp2p.present.commands import describe_rules

    rules, about = side.ruleset(), []
    if rules is not None and side.computer_game:  # nobody claims against the computer
        about.append(f"your rules: {describe_rules(rules)}")
    elif rules is not None:
        about.append(f"your rules: {describe_rules(rules)}; a move left unanswered for "
                     f"{side.claim_timeout} s may be claimed against")  # fmt: skip
    if announced:
        about.append("announced on the LAN: a guest's `ginp2p join` with no join string "
                     "finds this game")  # fmt: skip
    return about


def forget_typed_ahead() -> None:
    """Drop what was typed at the terminal before the table takes the keys: typed while
    the other player was awaited, or as the screens changed, it would be read as moves."""
    stdin = sys.stdin
    if stdin is None or not stdin.isatty():
        return
    with contextlib.suppress(ImportError):  # Windows has no termios
        import termios

        with contextlib.suppress(termios.error, OSError, ValueError):
            termios.tcflush(stdin.fileno(), termios.TCIFLUSH)
