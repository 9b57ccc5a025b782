"""Keys as a player knows them, for the table's and the viewer's answer to a key that
does nothing there. Apart from both screens so that the viewer, which has no network,
does not load the table's module (the game session and ZeroMQ) for them."""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Callable, Iterator
from typing import Any, TextIO

__all__ = ["IDLE_KEYS", "does_nothing", "key_name", "redraw_when_continued", "unechoed"]

#: Keys prompt_toolkit reads and ignores (they are no text for ``Keys.Any``): on the
#: screens they say they do nothing. Not Ctrl-L (it redraws the screen), nor the arrows,
#: Home, End, PgUp, PgDn and Esc, which prompt_toolkit gives other uses.
IDLE_KEYS = ("tab", "s-tab", "insert", "delete", "up", "down", "home", "end", "pageup",
             "pagedown", *(f"f{n}" for n in range(1, 25)))  # fmt: skip
_KEY_NAMES = {"c-i": "Tab", "s-tab": "Shift-Tab", "insert": "Insert", " ": "Space",
              "delete": "Delete", "up": "Up", "down": "Down", "left": "Left", "right": "Right",
              "home": "Home", "end": "End", "pageup": "PageUp", "pagedown": "PageDown"}  # fmt: skip


def key_name(key: str) -> str | None:
    """A key as the player knows it (``x``, ``Tab``, ``F1``); None for one that is no key
    of the keyboard (a terminal's report, a paste)."""
    key = str(getattr(key, "value", key))
    if key in _KEY_NAMES:
        return _KEY_NAMES[key]
    if key[:1] == "f" and key[1:].isdigit():
        return key.upper()
    return key if len(key) == 1 and key.isprintable() else None


def does_nothing(name: str, aside: str = "") -> str:
    """The answer to a key of no use here (``aside``: a guess at why it was pressed)."""
    return f"{name} does nothing here{aside}: ? lists the keys"


@contextlib.contextmanager
def unechoed(stream: TextIO) -> Iterator[None]:
    """Keys typed at this terminal are not echoed meanwhile: the viewer's keys, pressed
    while it loads, were written over the shell's screen (``^[[C`` for an arrow). They
    still wait to be read, so the viewer does them once it is up. A stream that is no
    terminal is left as it is."""
    before = None
    with contextlib.suppress(ImportError):  # Windows has no termios
        import termios

        with contextlib.suppress(termios.error, OSError, ValueError, AttributeError):
            before = termios.tcgetattr(stream.fileno())  # not for a pipe or a file
    if before is None:
        yield
        return
    fd = stream.fileno()
    quiet = list(before)
    quiet[3] &= ~termios.ECHO  # the local modes
    termios.tcsetattr(fd, termios.TCSANOW, quiet)
    try:
        yield
    finally:
        termios.tcsetattr(fd, termios.TCSANOW, before)


def redraw_when_continued(app: Any) -> Callable[[], None]:
    """From now on (call it in the running app's loop), SIGCONT mends the screen: a stop
    from outside (``kill -STOP``, then the shell's ``fg``) gave the terminal to the shell,
    which wrote over the screen and left the keys line-buffered, so that no key did
    anything until Enter. Raw keys again, and the whole screen drawn anew, as Ctrl-L
    draws it. Returns what undoes it (a no-op where there is no SIGCONT)."""
    loop = asyncio.get_running_loop()
    sig: int | None = getattr(signal, "SIGCONT", None)

    def continued() -> None:
        with contextlib.suppress(Exception):  # not a terminal: nothing to mend there
            app.input.raw_mode().__enter__()  # (the run's own raw mode ends it at exit)
        app.renderer.clear()
        app.invalidate()

    def undo() -> None:
        if sig is not None:
            loop.remove_signal_handler(sig)

    try:
        if sig is not None:
            loop.add_signal_handler(sig, continued)
    except (NotImplementedError, RuntimeError, ValueError):  # no signals in this loop
        sig = None
    return undo
