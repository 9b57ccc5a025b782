"""Where the replay viewer stands: the step on screen, whose view, the digits typed,
whether the help or the audit report is open, and the answer to the last key. The keys
only move a :class:`Viewer`; the screen is drawn from it (:mod:`.replay_screen`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ginp2p.console.tui.look import Look
from ginp2p.present.words import hands_words
from ginp2p.record.replay import VIEWS, Frame, Replay

__all__ = ["Viewer", "no_hand_words"]


def no_hand_words(number: int, hands: list[int], setup: str) -> str:
    """Why there is no hand ``number`` to go to, the same for ``--hand`` and the viewer's
    ``N Enter``: hands count from 1 (the set-up is where ``setup`` says), and the log
    reaches only ``hands``."""
    have = f" ({hands_words(hands)})" if hands else ""
    if number < 1:
        return f"hands are numbered from 1{have}; the set-up before the first deal {setup}"
    return f"the log has no hand {number}{have}"


@dataclass
class Viewer:
    """Where the viewer stands: the step, the view, what is typed, what is open."""

    replay: Replay
    index: int = 0
    view: str = "public"
    look: Look = field(default_factory=Look)
    digits: str = ""
    help: bool = False
    audit: bool = False
    message: str = ""
    #: The rows the whole log needs (:func:`~.replay_screen.needed_rows`), once measured:
    #: only a screen too small asks for it.
    rows_needed: int | None = field(default=None, init=False, repr=False)

    def go(self, index: int) -> None:
        self.index = self.replay.clamp(index)
        self.message = ""

    def _towards(self, index: int, end: str) -> None:
        """Go to ``index``, or say there is nothing further that way: the table answers
        every key, and a key that does nothing in silence reads as one not taken."""
        if self.replay.clamp(index) == self.index:
            self.message = f"already at the {end} entry"
        else:
            self.go(index)

    def forward(self) -> None:
        self._towards(self.index + 1, "last")

    def back(self) -> None:
        self._towards(self.index - 1, "first")

    def next_move(self) -> None:
        self._towards(self.replay.next_move(self.index), "last")

    def prev_move(self) -> None:
        self._towards(self.replay.prev_move(self.index), "first")

    def next_hand(self) -> None:
        self._towards(self.replay.next_hand(self.index), "last")

    def prev_hand(self) -> None:
        self._towards(self.replay.prev_hand(self.index), "first")

    def first(self) -> None:
        self._towards(0, "first")

    def last(self) -> None:
        self._towards(len(self.replay) - 1, "last")

    def hand(self, number: int) -> None:
        """Hand ``number`` (``N Enter``), counted from 1 as ``--hand`` counts them: 0 is
        no hand, though the log's set-up is filed under it."""
        start = self.replay.hand_start(number) if number >= 1 else None
        if start is None:
            self.message = no_hand_words(number, self.replay.hands, "is entry 1 (1 g, or Home)")
        else:
            self.go(start)

    def entry(self, number: int) -> None:
        """Entry ``number``, counted from 1 as the screen shows them."""
        if not 1 <= number <= len(self.replay):
            self.message = f"the log has entries 1-{len(self.replay)}"
        else:
            self.go(number - 1)

    def next_mark(self) -> None:
        found = self.replay.next_mark(self.index)
        if found is None:
            self.message = "the audit marks no entry of this log"
        else:
            self.go(found)

    def cycle_view(self) -> None:
        self.view = VIEWS[(VIEWS.index(self.view) + 1) % len(VIEWS)]
        self.message = ""

    def type_digit(self, d: str) -> None:
        self.digits = (self.digits + d)[-6:]

    def take_number(self) -> int | None:
        n = int(self.digits) if self.digits else None
        self.digits = ""
        return n

    @property
    def frame(self) -> Frame:
        return self.replay.frame(self.index, self.view)
