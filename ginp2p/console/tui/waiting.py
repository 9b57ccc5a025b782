"""The screen a person at the table sees while the other player is awaited.

A host waiting at a terminal sees who waits and for what, the join string on a line of
its own, the pairing code of the moment, what happened meanwhile (a wrong code, a new
code, a guest who said no), and the keys that work: ``q`` leaves, ``c`` shows a fresh
pairing code. Every key typed meanwhile is this screen's: none is left for the table
to read as a move once the game begins. A :class:`~ginp2p.app.awaited.WaitScreen`,
given an :class:`~ginp2p.app.awaited.Awaited` by the game's set-up.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable

from prompt_toolkit.application import Application
from prompt_toolkit.formatted_text import StyleAndTextTuples, split_lines
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys
from prompt_toolkit.layout import HSplit, Layout, Window
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.output import Output

from ginp2p.app.awaited import Awaited
from ginp2p.console.tui.keys import key_name, redraw_when_continued
from ginp2p.console.tui.look import Look
from ginp2p.console.tui.render import Row, app_size, join_rows, wrap

__all__ = ["WaitingScreen"]

#: Lines of what happened kept for the screen.
LOG_KEEP = 200
#: The join string's indent, on its own line.
INDENT = 4
#: Keys a person may press here as at the table, by the names the table gives them.
_NAMES = {"c-m": "Enter", "escape": "Esc", "left": "Left", "right": "Right", "c-h": "Backspace"}


def _clock(seconds: float) -> str:
    s = int(seconds)
    return (
        f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"
    )


def _pieces(text: str, width: int) -> list[str]:
    """``text`` in pieces of at most ``width`` characters: a key is never cut off at the
    screen's edge, though a narrow screen breaks it."""
    width = max(1, width)
    return [text[i : i + width] for i in range(0, len(text), width)] or [""]


class WaitingScreen:
    """The full screen of the wait (see the module). ``input``/``output`` default to the
    terminal; tests pass a pipe input and a ``DummyOutput``."""

    def __init__(self, look: Look | None = None, *, input: Input | None = None,
                 output: Output | None = None) -> None:  # fmt: skip
        self.look = look or Look()
        self.input = input
        self.output = output
        self.log: list[tuple[str, str]] = []
        self.message = ""  # the answer to the last key
        self.awaited: Awaited | None = None
        self.app: Application[str] | None = None
        self._since = time.monotonic()

    # -- what the wait says ----------------------------------------------------------
    def note(self, text: str) -> None:
        stamp = time.strftime("%H:%M")
        for line in text.splitlines() or [""]:
            style = "class:error" if line.startswith("? ") else ""
            self.log.append((style, f"{stamp} {self.look.words(line)}"))
        del self.log[:-LOG_KEEP]
        if self.app is not None:
            self.app.invalidate()

    @property
    def up(self) -> bool:
        """The screen is on the terminal now."""
        return self.app is not None and self.app.is_running

    def heard(self, say: Callable[[str], None]) -> Callable[[str], None]:
        def out(text: str) -> None:
            if self.up:
                self.note(text)
            else:
                say(text)

        return out

    # -- drawing -----------------------------------------------------------------------
    def rows(self, width: int, height: int) -> list[Row]:
        """The screen but its two bottom rows (the answer to a key, the keys)."""
        a = self.awaited
        if a is None:
            return []
        words = self.look.words
        rows: list[Row] = [[("class:title", f" {words(a.title)}")], []]
        waited = _clock(time.monotonic() - self._since)
        rows.append([("class:turn", f" {words(a.waiting)}"), ("class:dim", f" · {waited}")])
        rows.append([])
        if a.join:
            rows.append([("", " the guest joins with:")])
            command = f"ginp2p join {a.join}"
            if INDENT + len(command) > width:  # the join string on a line of its own
                rows.append([("", " " * INDENT), ("class:title", "ginp2p join")])
            rows += [[("", " " * INDENT), ("class:title", piece)]
                     for piece in _pieces(command if INDENT + len(command) <= width
                                          else a.join, width - INDENT)]  # fmt: skip
        if a.code is not None:
            rows.append([("", " pairing code:  "), ("class:title", a.code())])
            rows.append(
                [("class:dim", f"{' ' * INDENT}(a guest you paired with before needs none)")]
            )
        if a.join or a.code is not None:
            rows.append([])
        for line in a.about:
            rows += self._wrapped("class:dim", f" {words(line)}", width, indent=3)
        rows.append([("class:dim", words("─") * width)])
        room = height - len(rows)
        if room > 0:  # the newest lines, each whole: broken between words, never cut
            lines = [row for style, text in self.log[-room:]
                     for row in self._wrapped(style, " " + text, width, indent=7)]  # fmt: skip
            rows += lines[-room:]
        return rows[:height]

    @staticmethod
    def _wrapped(style: str, text: str, width: int, indent: int) -> list[Row]:
        return [
            [(s, t) for s, t, *_ in line]
            for line in split_lines(wrap([(style, text)], width, indent))
        ]

    def working_keys(self) -> list[tuple[str, str]]:
        """The keys that work now, and what each does."""
        a = self.awaited
        pairs = [("q", "leave")]
        if a is not None and a.new_code is not None:
            pairs.append(("c", "new pairing code"))
        return pairs

    def keys_line(self, width: int) -> StyleAndTextTuples:
        out: StyleAndTextTuples = []
        used = 0
        for key, what in self.working_keys():
            piece = f" {key} {what} "
            if used + len(piece) + 1 > width:
                break
            out += [("class:title reverse", f" {key}"), ("reverse", f" {what} "), ("", " ")]
            used += len(piece) + 1
        return out

    def _answer(self, pressed: str | None) -> None:
        """A key of no use now: the keys that work (what is awaited is on the screen)."""
        pairs = self.working_keys()
        keys = ", ".join(f"{k} {'leaves' if k == 'q' else 'shows a ' + w}" for k, w in pairs)
        what = f"{pressed} does nothing" if pressed else "that key does nothing"
        self.message = f"{what} here: {keys}"

    # -- the application -----------------------------------------------------------
    def _bindings(self) -> KeyBindings:
        kb = KeyBindings()

        @kb.add("q")
        @kb.add("c-d")
        def _leave(event: KeyPressEvent) -> None:
            event.app.exit(result="quit")

        @kb.add("c-c")
        def _interrupt(event: KeyPressEvent) -> None:
            event.app.exit(result="interrupted")

        @kb.add("c")
        def _code(event: KeyPressEvent) -> None:
            a = self.awaited
            if a is None or a.new_code is None:
                self._answer("c")
                return
            self.message = ""
            a.new_code()

        @kb.add(Keys.Any)
        def _other(event: KeyPressEvent) -> None:
            key = str(getattr(event.key_sequence[0].key, "value", event.key_sequence[0].key))
            self._answer(_NAMES.get(key) or key_name(key))

        for key in (*_NAMES, "c-i", "up", "down", "f1"):
            kb.add(key)(_other)
        return kb

    def _build(self) -> Application[str]:
        def size() -> tuple[int, int]:
            return app_size(self.app)

        def body() -> StyleAndTextTuples:
            width, height = size()
            return self.look.fragments(join_rows(self.rows(width, max(1, height - 2)), width))

        def bottom() -> StyleAndTextTuples:
            text = self.look.words(self.message)
            return wrap([("class:error", " " + text)], size()[0], indent=1) if text else []

        layout = Layout(HSplit([
            Window(FormattedTextControl(body), wrap_lines=False),
            Window(FormattedTextControl(bottom), height=Dimension(min=1, max=2),
                   dont_extend_height=True),
            Window(FormattedTextControl(lambda: self.keys_line(size()[0])), height=1),
        ]))  # fmt: skip
        app: Application[str] = Application(
            layout=layout, key_bindings=self._bindings(), style=self.look.style,
            full_screen=True, mouse_support=False, refresh_interval=1.0,
            input=self.input, output=self.output,
        )  # fmt: skip
        app.ttimeoutlen = 0.05
        return app

    async def run(self, awaited: Awaited) -> str:
        """Show the wait until the person leaves: "quit" (``q``, Ctrl-D) or "interrupted"
        (Ctrl-C). Cancelled when the other player comes: the screen goes, and the keys
        typed at it with it."""
        if awaited.delay > 0:
            await asyncio.sleep(awaited.delay)
        self.awaited, self.message = awaited, ""
        self._since = time.monotonic()
        app = self.app = self._build()
        undo: list[Callable[[], None]] = []
        task = asyncio.ensure_future(
            app.run_async(pre_run=lambda: undo.append(redraw_when_continued(app)))
        )
        try:
            return await asyncio.shield(task)
        except asyncio.CancelledError:
            if app.future is not None and not app.future.done():
                app.exit(result="")
            else:
                task.cancel()
            with contextlib.suppress(BaseException):
                await asyncio.wait((task,))
            raise
        finally:
            for done in undo:
                done()
            self.app = None
