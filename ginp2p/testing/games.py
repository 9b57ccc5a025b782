"""Whole games between two players in one process, as the command line would run them.

:class:`Games` makes the two sides of a game — each a :class:`Side` with its own
identity, lines and files — and runs them with :func:`ginp2p.app.setup.run_game`
(pairing, files, the session, resuming) over a :class:`~ginp2p.testing.memory.MemoryNetwork`
on a :class:`~ginp2p.testing.clock.FakeClock`. Claim timeouts, lingers and reconnects
cost no time; only the computing does. A side can crash (as ``kill -9`` at a point the
crash test hook names: its files stay as they were) and be resumed from its files::

    games = Games(tmp_path)

    async def main() -> None:
        host = await games.start(games.host())
        guest = await games.start(games.guest(host))
        assert await games.finish(host, guest) == [0, 0]
        assert "MATCH OVER" in host.output

    games.run(main())

Each player has a folder of its own (:meth:`Games.home`): its key, the players it has
paired with, its games.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from ginp2p.app.config import GameSetup, Playing, SessionResult
from ginp2p.app.seat import Seat
from ginp2p.app.session import Session
from ginp2p.app.setup import run_game
from ginp2p.files.gamefiles import PeerFile, peer_path
from ginp2p.files.identity import Identity, load_or_create_identity
from ginp2p.game.rules import RuleSet, get_preset
from ginp2p.present.commands import Command, RulesCmd, RulesOffered
from ginp2p.present.seat_words import event_words
from ginp2p.proto.keytext import key_to_text
from ginp2p.testing.clock import FakeClock
from ginp2p.testing.memory import MemoryNetwork

__all__ = ["CODE", "SHORT", "Crashed", "Games", "Scripted", "Side"]

#: The pairing code both sides use unless told otherwise.
CODE = "7-tulip-anchor"
#: Short matches: one hand, as a rule (the first hand anybody wins ends the match).
SHORT = get_preset("classic").with_(game_target=1)

_T = TypeVar("_T")


class Crashed(Exception):
    """A side died where its crash test hook said (``GameSetup.crash_at``)."""


@dataclass
class Side:
    """One side of a game: who plays it, what it said, its files, how its run ended."""

    name: str
    identity: Identity
    setup: GameSetup
    resume: bool = False
    lines: list[str] = field(default_factory=list)  # what it said, errors as "error: …"
    task: asyncio.Task[int] | None = None
    port: int | None = None  # host: the port it listens on, once it does
    listening: asyncio.Event = field(default_factory=asyncio.Event)
    _news: asyncio.Event = field(default_factory=asyncio.Event)  # a line was said

    def say(self, text: str) -> None:
        """A line of the side's (where its game's lines go)."""
        self.lines.append(text)
        self._news.set()

    @property
    def path(self) -> Path:
        """The game's log file."""
        return self.setup.path

    @property
    def output(self) -> str:
        return "\n".join(self.lines)

    @property
    def code(self) -> int | None:
        """The exit code, once the run ended (None while it runs, or if it crashed)."""
        t = self.task
        if t is None or not t.done() or t.cancelled() or t.exception() is not None:
            return None
        return t.result()

    @property
    def crashed(self) -> bool:
        t = self.task
        return t is not None and t.done() and isinstance(t.exception(), Crashed)

    def said(self, text: str) -> bool:
        return text in self.output

    async def wait_for(self, pattern: str) -> re.Match[str]:
        """Until a line matching ``pattern`` (a regular expression) is said: its match
        (AssertionError if the run ends first). It waits for the line itself, not on the
        clock: a game that computes takes no time on a fake clock."""
        while (found := re.search(pattern, self.output)) is None:
            if self.task is not None and self.task.done():
                raise AssertionError(f"{self.name} ended before {pattern!r}:\n{self.output}")
            self._news.clear()
            news = asyncio.ensure_future(self._news.wait())
            waits: set[asyncio.Future[Any]] = {news}
            if self.task is not None:
                waits.add(self.task)
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
            news.cancel()
        return found

    @property
    def session(self) -> Session:
        """The side's session, once its game runs."""
        assert isinstance(self.setup.session, Session), f"{self.name} is not playing yet"
        return self.setup.session


class Games:
    """Makes and runs the sides of games in one process (see the module).
    ``folder``: where the sides keep their keys and games."""

    def __init__(self, folder: Path, *, clock: FakeClock | None = None,
                 network: MemoryNetwork | None = None) -> None:  # fmt: skip
        self.folder = folder
        self.clock = clock or FakeClock()
        self.network = network or MemoryNetwork()
        self._identities: dict[str, Identity] = {}
        self._frozen: dict[Session, asyncio.Event] = {}
        #: Every side made, in order.
        self.sides: list[Side] = []

    def run(self, main: Coroutine[Any, Any, _T]) -> _T:
        """Run ``main`` on the fake clock (as ``asyncio.run``)."""
        return self.clock.run(main)

    def home(self, name: str) -> Path:
        """The ginp2p folder of the player called ``name``: its key, the players it has
        paired with (``peers.pin(key, name, home=games.home("Hosta"))``), its games."""
        return self.folder / name

    def identity(self, name: str) -> Identity:
        """The key of the player called ``name`` (made once, kept in its folder)."""
        if name not in self._identities:
            self._identities[name] = load_or_create_identity(self.home(name))
        return self._identities[name]

    def _setup(self, name: str, side: PeerFile, path: Path, player: str,
               **setup: Any) -> GameSetup:  # fmt: skip
        return GameSetup(side, path, player, endpoints=self.network, clock=self.clock.time,
                         wall_clock=self.clock.wall, advertise=False, home=self.home(name),
                         **setup)  # fmt: skip

    def host(self, name: str = "Hosta", *, player: str = "bot", rules: RuleSet = SHORT,
             claim_timeout: int = 120, pair_code: str | None = CODE, linger: float = 3.0,
             **setup: Any) -> Side:  # fmt: skip
        """A host's new game (not started): it pairs with ``pair_code``."""
        side = PeerFile("host", name, player, None, "memory", 0, rules.to_dict(), 20,
                        claim_timeout, "now")  # fmt: skip
        return self._side(name, side, player, pair_code=pair_code, linger=linger, **setup)

    def guest(self, host: Side, name: str = "Guesto", *, player: str = "bot",
              pair_code: str | None = CODE, linger: float = 3.0, **setup: Any) -> Side:  # fmt: skip
        """A guest's new game (not started), joining ``host`` where it listens."""
        assert host.port is not None, "start the host first"
        key = key_to_text(self.identity(host.name).public_key)
        side = PeerFile("guest", name, player, key, "memory", host.port, created="now")
        return self._side(name, side, player, pair_code=pair_code, linger=linger, **setup)

    def _side(self, name: str, side: PeerFile, player: str, **setup: Any) -> Side:
        games = self.home(name) / "games"
        games.mkdir(parents=True, exist_ok=True)
        path = games / f"{len(list(games.glob('*.ginlog'))) + 1}-{side.role}.ginlog"
        return self._made(name, self._setup(name, side, path, player, **setup))

    def _made(self, name: str, setup: GameSetup, resume: bool = False) -> Side:
        made = Side(name, self.identity(name), setup, resume)
        self.sides.append(made)
        setup.out = made.say
        setup.err = lambda text: made.say(f"error: {text}")
        listening = setup.on_listening

        def on_listening(port: int, join: str, code: str) -> None:
            made.port = port
            made.listening.set()
            if listening is not None:
                listening(port, join, code)

        setup.on_listening = on_listening
        if setup.crash_at is not None and setup.crash is None:
            setup.crash = _crash
        return made

    def resume(self, old: Side, *, port: int | None = None, player: str | None = None,
               **setup: Any) -> Side:  # fmt: skip
        """The game of ``old`` resumed from its files, as ``ginp2p resume FILE`` does:
        a host on a new port (or ``port``), a guest at ``port`` (default: where it was);
        ``player``: who plays it now (default: who played it)."""
        side = PeerFile.load(peer_path(old.path))
        player = player or side.player
        if side.role == "host":
            side.port = port or 0
        elif port is not None:
            side.port = port
        expect = side.ruleset() if side.role == "guest" and side.rules else None
        fields = {"linger": old.setup.linger, "expect_rules": expect,
                  "accept_rules": player == "bot", **setup}  # fmt: skip
        return self._made(old.name, self._setup(old.name, side, old.path, player, **fields), True)

    async def start(self, side: Side) -> Side:
        """Start a side's run; a host's, until it listens."""
        side.task = asyncio.ensure_future(run_game(side.setup, side.identity, resume=side.resume))
        if side.setup.side.role == "host":
            listening = asyncio.ensure_future(side.listening.wait())
            await asyncio.wait((side.task, listening), return_when=asyncio.FIRST_COMPLETED)
            listening.cancel()
        return side

    async def finish(self, *sides: Side) -> list[int | None]:
        """Wait for the sides' runs to end; their exit codes (None: crashed)."""
        for side in sides:
            assert side.task is not None, f"{side.name} was never started"
            with contextlib.suppress(Crashed):
                await side.task
        return [side.code for side in sides]

    def freeze(self, side: Side) -> None:
        """Stop a side where it is, as SIGSTOP (or a laptop's lid) would: it does
        nothing — no move, no answer, no claim — until :meth:`thaw`, while time runs on
        and what comes for it waits unread. Its connection stays up, as through a stop
        shorter than the heartbeat's few seconds (:meth:`MemoryNetwork.cut` breaks it)."""
        session = side.session
        if session in self._frozen:
            return
        thawed, awake = asyncio.Event(), session._notice_stall

        async def frozen() -> None:  # the session's first step with each item it takes
            await thawed.wait()
            await awake()

        self._frozen[session] = thawed
        session._notice_stall = frozen  # type: ignore[method-assign]

    def thaw(self, side: Side) -> None:
        """Let a side :meth:`freeze` stopped go on: it finds that time has passed."""
        session = side.session
        if session in self._frozen:
            del session._notice_stall  # the class's again
            self._frozen.pop(session).set()

    async def stop(self, side: Side) -> None:
        """End a side's run at once, as a signal that lets nothing more happen would."""
        if side.task is not None and not side.task.done():
            side.task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Crashed):
                await side.task


def _crash() -> None:
    raise Crashed


class Scripted:
    """A person, as a script plays one: says yes (or no) to the host's rules when asked,
    makes the moves ``moves`` gives (None: none now, as a person who has not decided),
    and shows what happens as the line prompt does. It sits where the full-screen table
    would: ``Games.guest(host, player="human", table=Scripted())``."""

    verbose = True
    stays_at_the_end = False
    keys_ctrl_c = False

    def __init__(self, *, rules: bool = True,
                 moves: Callable[[Seat], Command | None] | None = None) -> None:  # fmt: skip
        self.rules = rules
        self.moves = moves
        self.events: list[object] = []

    def heard(self, say: Callable[[str], None]) -> Callable[[str], None]:
        return say

    async def play(self, game: Playing) -> SessionResult:
        return await game.run()

    def next_command(self, seat: Seat) -> Command | None:
        return self.moves(seat) if self.moves is not None else None

    def event(self, seat: Seat, what: object) -> None:
        self.events.append(what)
        if isinstance(what, RulesOffered):
            seat.submit(RulesCmd(self.rules))
        elif text := event_words(seat, what, terse=False):
            seat.say(text)

    async def run(self, seat: Seat) -> None:
        return None
