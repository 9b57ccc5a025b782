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
