"""Who makes a side's moves: the :class:`Player` a session asks, and the computer
(:class:`BotPlayer`). A person plays at a console: the line prompt
(:mod:`ginp2p.console.line`) or the full-screen table (:mod:`ginp2p.console.tui.table`).
Every player is handed a :class:`~ginp2p.app.seat.Seat`, never the session.
"""

from __future__ import annotations

from typing import Protocol

from ginp2p.app.seat import Seat
from ginp2p.present.commands import Act, ClaimCmd, Command
from ginp2p.present.seat_words import event_words

__all__ = [
    "BotPlayer",
    "Player",
]


class Player(Protocol):
    """Who makes this side's moves. The session calls ``next_command`` after every
    change (a bot answers at once), ``event`` for what happened, and runs ``run`` as a
    task for the whole game (a person's input); each is given the player's seat.
    ``keys_ctrl_c``: a prompt_toolkit screen reads Ctrl-C as a key of its own (it asks
    first), so the session does not catch the signal (the line prompt catches it
    itself, between two prompts). ``stays_at_the_end``: the player's screen stays up
    after the match until they leave (the table), so a claim of theirs still on its way
    can be delivered meanwhile."""

    verbose: bool
    stays_at_the_end: bool

    @property
    def keys_ctrl_c(self) -> bool: ...

    def next_command(self, seat: Seat) -> Command | None: ...

    def event(self, seat: Seat, what: object) -> None: ...

    async def run(self, seat: Seat) -> None: ...


class BotPlayer:
    """The computer player: plays when it is its turn, claims once it may (in a game
    with claims: not in ``play``, where nobody else waits and a person may take all day).
    ``level``: ``easy`` for the easy player (:mod:`ginp2p.game.easy`, ``--level easy``),
    else the default one (:mod:`ginp2p.game.bot`)."""

    keys_ctrl_c = False
    stays_at_the_end = False

    def __init__(self, verbose: bool = False, level: str = "normal") -> None:
        self.verbose = verbose
        self.level = level

    def next_command(self, seat: Seat) -> Command | None:
        from ginp2p.game import bot, easy

        if seat.over or seat.settling:
            return None
        if seat.my_turn:
            view = seat.hand()
            if view is not None:
                choose = easy.choose if self.level == "easy" else bot.choose
                return Act(choose(view, seat.me))
        if seat.claims and seat.may_claim:
            return ClaimCmd()
        return None

    def event(self, seat: Seat, what: object) -> None:
        text = event_words(seat, what, terse=not self.verbose)
        if text:
            seat.say(text)

    async def run(self, seat: Seat) -> None:
        return None
