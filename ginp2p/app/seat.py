"""A player's seat at the game: all a player may read of the game and do in it.

The session hands every player (the computer, the line prompt, the full-screen table)
a :class:`Seat` rather than itself. Through it a player reads plain state — its seat
number and the names, the match and its own view of the hand, whose turn it is and
what is owed, the link and the claim clock (:class:`~ginp2p.present.seat_words.SeatState`)
— and does the few things a player does: give a command, say a line, pause the game
when its terminal goes away, hang up once the game is done. The protocol object, the
files and the network stay the session's: a player that reached for them would not
type-check.

:class:`SessionSeat` is the seat a session gives, read off the session each time
(:class:`Driver` names what it reads).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from ginp2p.game.engine import Action, HandState
from ginp2p.game.match import MatchState
from ginp2p.game.rules import RuleSet
from ginp2p.present.commands import Command, Turn
from ginp2p.present.seat_words import SeatState, owed_words
from ginp2p.proto.outputs import Waiting
from ginp2p.proto.protocol import PeerProtocol
from ginp2p.proto.results import Event

__all__ = ["Driver", "Seat", "SessionSeat"]


class Seat(SeatState, Turn, Protocol):
    """What a player may read of the game and do in it."""

    def hand(self) -> HandState | None:
        """The hand as this player sees it: its own cards and every public one (None
        between hands)."""
        ...

    def legal_actions(self) -> list[Action]:
        """The moves this player may make now (none off its turn)."""
        ...

    @property
    def events(self) -> Sequence[tuple[int, Event]]:
        """What has happened in the match so far, each with its entry's place."""
        ...

    @property
    def placed(self) -> int:
        """How many entries the table has taken in: it changes with every entry."""
        ...

    def submit(self, cmd: Command) -> None:
        """Give the game a command (a move, a claim, a chat line, leaving...): it is
        checked and carried out in turn with everything else the game does."""
        ...

    def say(self, text: str) -> None:
        """Show a line to this player, where the game's lines go."""
        ...

    async def pause(self) -> None:
        """Tell the other player this one left for now, as ``quit`` does: for a console
        whose terminal closed under it, which can give no command any more."""
        ...

    async def hang_up(self) -> None:
        """Close the connection once the game is done: a screen left up after the match
        must not seem to answer the other side."""
        ...


class _Counts(Protocol):
    @property
    def reconnects(self) -> int: ...


class _Closes(Protocol):
    async def close(self) -> None: ...


class Driver(Protocol):
    """What :class:`SessionSeat` reads of the game's driver (``ginp2p.app.session``)."""

    @property
    def proto(self) -> PeerProtocol: ...
    @property
    def endpoint(self) -> _Closes: ...
    @property
    def names(self) -> tuple[str, str]: ...
    @property
    def opponent_name(self) -> str: ...
    @property
    def finishing(self) -> float | None: ...
    @property
    def result(self) -> object | None: ...
    @property
    def link_up(self) -> bool: ...
    @property
    def stats(self) -> _Counts: ...
    @property
    def latency(self) -> float | None: ...
    @property
    def claims(self) -> bool: ...
    @property
    def settling(self) -> bool: ...
    @property
    def busy(self) -> bool: ...
    @property
    def rules_pending(self) -> RuleSet | None: ...
    @property
    def rules_due(self) -> bool: ...
    @property
    def begun(self) -> bool: ...
    @property
    def away_since(self) -> float | None: ...
    @property
    def game_path(self) -> Path | None: ...
    @property
    def waiting(self) -> Waiting | None: ...
    @property
    def claim_undelivered(self) -> bool: ...
    @property
    def rules_shown(self) -> bool: ...
    def may_claim(self) -> bool: ...
    def my_wait(self) -> float | None: ...
    def now(self) -> float: ...
    def say(self, text: str) -> None: ...
    def submit(self, cmd: Command) -> None: ...
    async def pause(self) -> None: ...


class SessionSeat:
    """The :class:`Seat` a session gives its player, read off the session each time.
    ``person``: a person plays it (their own name reads "you"), not the computer."""

    __slots__ = ("_driver", "_person")

    def __init__(self, driver: Driver, person: bool) -> None:
        self._driver = driver
        self._person = person

    # -- who sits where ---------------------------------------------------------------
    @property
    def me(self) -> int:
        return self._driver.proto.me

    @property
    def person(self) -> bool:
        return self._person

    @property
    def names(self) -> tuple[str, str]:
        return self._driver.names

    @property
    def own_names(self) -> tuple[str, str]:
        """Ours is known before our hello is in the log, a paired player's too."""
        p = self._driver.proto
        n = list(p.table.names)
        n[p.me] = p.name or n[p.me]  # our hello says just this
        n[p.opponent] = self._driver.opponent_name
        return n[0], n[1]

    @property
    def signed_names(self) -> tuple[str, str]:
        return self._driver.proto.table.names

    @property
    def opponent_name(self) -> str:
        return self._driver.opponent_name

    # -- the table ----------------------------------------------------------------------
    @property
    def match(self) -> MatchState | None:
        return self._driver.proto.table.match

    @property
    def rules(self) -> RuleSet | None:
        return self._driver.proto.table.rules

    @property
    def claim_timeout(self) -> int:
        return self._driver.proto.table.claim_timeout

    def hand(self) -> HandState | None:
        return self._driver.proto.view()

    def legal_actions(self) -> list[Action]:
        return self._driver.proto.legal_actions()

    @property
    def events(self) -> Sequence[tuple[int, Event]]:
        return self._driver.proto.table.events

    @property
    def placed(self) -> int:
        return self._driver.proto.table.placed_count

    @property
    def my_turn(self) -> bool:
        return self._driver.proto.my_turn

    @property
    def owed(self) -> str | None:
        p = self._driver.proto
        owed = p.table.owes(p.opponent)
        return owed_words(owed.what) if owed is not None else None  # as the player reads it

    @property
    def waiting_for(self) -> str | None:
        waiting = self._driver.waiting
        return owed_words(waiting.what) if waiting is not None else None

    @property
    def waited(self) -> float:
        d = self._driver
        if d.waiting is None or self.owed is None:
            return 0.0
        return d.now() - d.proto.waiting_since

    @property
    def finished(self) -> bool:
        return self._driver.proto.finished

    @property
    def has_game(self) -> bool:
        return self._driver.proto.log.game is not None

    # -- the link and the clock ---------------------------------------------------------
    @property
    def link_up(self) -> bool:
        return self._driver.link_up

    @property
    def reconnected(self) -> bool:
        return self._driver.stats.reconnects > 0

    @property
    def latency(self) -> float | None:
        return self._driver.latency

    @property
    def claims(self) -> bool:
        return self._driver.claims

    @property
    def may_claim(self) -> bool:
        return self._driver.may_claim()

    @property
    def my_wait(self) -> float | None:
        return self._driver.my_wait()

    @property
    def settling(self) -> bool:
        return self._driver.settling

    # -- where the game is ----------------------------------------------------------------
    @property
    def over(self) -> bool:
        return self._driver.finishing is not None

    @property
    def done(self) -> bool:
        return self._driver.result is not None

    @property
    def begun(self) -> bool:
        return self._driver.begun

    @property
    def busy(self) -> bool:
        return self._driver.busy

    @property
    def rules_asked(self) -> bool:
        return self._driver.rules_pending is not None

    @property
    def rules_due(self) -> bool:
        return self._driver.rules_due

    @property
    def rules_shown(self) -> bool:
        return self._driver.rules_shown

    @property
    def resumed(self) -> bool:
        return self._driver.away_since is not None

    @property
    def game_path(self) -> str | None:
        path = self._driver.game_path
        return str(path) if path is not None else None

    @property
    def claim_undelivered(self) -> bool:
        return self._driver.claim_undelivered

    # -- what a player does ---------------------------------------------------------------
    def submit(self, cmd: Command) -> None:
        self._driver.submit(cmd)

    def say(self, text: str) -> None:
        self._driver.say(text)

    async def pause(self) -> None:
        await self._driver.pause()

    async def hang_up(self) -> None:
        await self._driver.endpoint.close()
