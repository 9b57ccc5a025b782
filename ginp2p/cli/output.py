"""What every command shares: its two errors and the way it prints.

A command raises :class:`UsageError` for a mistake on its command line (one line,
exit 2) and :class:`Problem` for what it cannot do as things stand (one line, exit 1);
``main`` (:mod:`ginp2p.cli.command`) turns either into its line and exit code. A game's
lines go through :func:`printer`, which writes card codes where the console cannot
show a suit.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import TextIO

from ginp2p.errors import Ginp2pError
from ginp2p.present.charset import encodes


class UsageError(Ginp2pError):
    """A mistake on the command line: one line, exit 2."""


class Problem(Ginp2pError):
    """Something the command cannot do as things stand (a file missing or of another
    kind, no game found on the LAN): one line, exit 1, as replay and export say of
    theirs. Exit 2 is kept for a mistake in the command line itself."""


def printer(args: argparse.Namespace, error: bool = False) -> Callable[[str], None]:
    """``print`` for a game's lines, with card codes (``TH``) for ``--ascii`` or on a
    console that cannot show suit symbols (line mode writes cards as ``10♥``); with
    ``error``, for its errors: ``ginp2p join: error: …`` on standard error."""
    from ginp2p.game.cards import ascii_names

    codes = getattr(args, "ascii", False) or \
        not encodes(sys.stderr if error else sys.stdout, "♥♦♣♠")  # fmt: skip
    head = f"ginp2p {args.command}: error: " if error else ""

    def show(text: str) -> None:  # the stream of the moment: the prompt may stand in for it
        print(head + (ascii_names(text) if codes else text), flush=True,
              file=sys.stderr if error else sys.stdout)  # fmt: skip

    return show


#: What a full-screen program killed before it could clean up (the table, the replay
#: viewer, a pager) may leave a terminal in, undone: line wrapping back on, the cursor
#: shown, mouse reporting (every mode of it) and bracketed paste off, colours reset, and
#: the normal screen instead of the alternate one. The cursor is saved first, so that
#: leaving an alternate screen the terminal is not in moves it nowhere (xterm would put
#: it where a cursor was last saved, else at the top left).
RESTORE_TERMINAL = (
    "\x1b[?7h"  # line wrapping (DECAWM)
    "\x1b[?25h"  # the cursor shown (DECTCEM)
    "\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1005l\x1b[?1006l\x1b[?1015l"  # no mouse
    "\x1b[?2004l"  # no bracketed paste
    "\x1b[0m"  # plain colours
    "\x1b7\x1b[?1049l"  # the normal screen, the cursor where it is
)


def restore_terminal(stream: TextIO | None = None) -> bool:
    """Put back the modes a full-screen program may have left the terminal in
    (:data:`RESTORE_TERMINAL`), so that what this command prints is seen whole: only
    into a terminal (never a pipe or a file), one that moves its cursor (not ``TERM=dumb``)
    and reads escape codes (not the Windows console). Whether it was written."""
    import os

    out = sys.stdout if stream is None else stream
    try:
        terminal = out is not None and out.isatty()
    except (AttributeError, ValueError, OSError):  # closed, or a stream without a file
        return False
    if not terminal or sys.platform == "win32" or os.environ.get("TERM") == "dumb":
        return False
    try:
        out.write(RESTORE_TERMINAL)
        out.flush()
    except (OSError, ValueError):
        return False
    return True


def quiet_stdout() -> None:
    """Point stdout at nothing, so the exit's flush does not fail on a closed pipe."""
    import os

    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def padded(text: str, cells: int, cut: bool = False) -> str:
    """``text`` padded to ``cells`` columns of a terminal (``cut``: and no wider), where a
    letter of Chinese or Japanese takes two: padded by letters, the next column of a
    list came late."""
    from prompt_toolkit.utils import get_cwidth

    used = 0
    for i, ch in enumerate(text):
        if cut and used + get_cwidth(ch) > cells:
            text = text[:i]
            break
        used += get_cwidth(ch)
    return text + " " * (cells - used)
