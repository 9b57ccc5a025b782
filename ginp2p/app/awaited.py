"""What a person's screen shows while the other player is awaited, before the game
(:class:`Awaited`), and the screen that shows it (:class:`WaitScreen`: the console's,
``ginp2p.console.tui.waiting``). See :mod:`ginp2p.app.waiting`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

__all__ = ["Awaited", "WaitScreen"]


@dataclass
class Awaited:
    """One wait for the other player, as a screen shows it."""

    #: Who waits, and where: "Ann is hosting a game".
    title: str
    #: What is awaited: "waiting for a guest to join".
    waiting: str
    #: More lines under it: the rules offered, the announcement on the LAN.
    about: list[str] = field(default_factory=list)
    #: A host's join string (HOST:PORT/KEY), given to the guest; "" for none.
    join: str = ""
    #: A host that pairs: the pairing code of the moment (it changes: a fresh one on
    #: request, or once a code had its attempts).
    code: Callable[[], str] | None = None
    #: A host that pairs: a fresh pairing code now (the old one stops working).
    new_code: Callable[[], None] | None = None
    #: Seconds before the screen is drawn: a wait that is mostly over at once (the
    #: computer player of ``play``, a guest joining) flashes no screen (what is typed
    #: meanwhile is dropped before the table takes the keys).
    delay: float = 0.0


class WaitScreen(Protocol):
    """A person's screen while the other player is awaited (see :class:`Awaited`)."""

    def heard(self, say: Callable[[str], None]) -> Callable[[str], None]:
        """What the wait says: onto the screen while it is up, else to ``say``."""
        ...

    def note(self, text: str) -> None:
        """A line for the screen's list of what happened, shown when it is next up."""
        ...

    async def run(self, awaited: Awaited) -> str:
        """Show the wait until the person leaves ("quit"; "interrupted" for Ctrl-C);
        cancelled when the other player comes."""
        ...
