"""What the game's drivers share: the command line's :class:`GameSetup` for one game,
and the :class:`SessionResult` a game ends with. Imports none of the drivers, so each
of them (the pre-game exchange, the session, the set-up) may import it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from ginp2p.app.awaited import WaitScreen
from ginp2p.app.piped import PipedLines
from ginp2p.app.players import Player
from ginp2p.app.seat import Seat
from ginp2p.files.gamefiles import PeerFile
from ginp2p.game.rules import RuleSet
from ginp2p.present.commands import Command, StopCmd

if TYPE_CHECKING:
    from ginp2p.files.identity import Identity
    from ginp2p.net.endpoint import GuestSide, HostSide
    from ginp2p.net.pairing import PairingGate

__all__ = [
    "Endpoints",
    "GameSetup",
    "Playing",
    "Runs",
    "SessionResult",
    "Table",
]


@dataclass
class SessionResult:
    code: int  # the process exit code: 0 over or left, 1 an error or no game
    status: str  # "over", "quit", "declined" (the host's rules, by the guest) or "error"
    message: str = ""


class Runs(Protocol):
    """A game under way, as seen from outside: it takes a command, and ends with a
    result (None until then)."""

    @property
    def result(self) -> SessionResult | None: ...

    def submit(self, cmd: Command) -> None: ...


class Playing(Protocol):
    """A game as a table runs it: the seat it shows, and the game's own run."""

    @property
    def seat(self) -> Seat: ...

    async def run(self) -> SessionResult: ...


class Table(Player, Protocol):
    """A person's full-screen table (ginp2p.console.tui.table.TablePlayer): the player,
    which also runs the game (``play``) and takes the lines the game says (``heard``:
    into its log while on screen, else to ``say``)."""

    def heard(self, say: Callable[[str], None]) -> Callable[[str], None]: ...

    async def play(self, game: Playing) -> SessionResult: ...


class Endpoints(Protocol):
    """Makes a game's endpoints (see ``GameSetup.endpoints``): the host's, bound to
    ``bind``:``port`` and admitting the connection keys ``pinned`` (anyone, to pair,
    while ``pairing``), or the guest's, connecting to the host at ``host``:``port``
    whose connection key is ``server_key``."""

    def host(self, identity: Identity, *, bind: str, port: int, pinned: set[bytes],
             pairing: bool, any_port_if_taken: bool) -> HostSide: ...  # fmt: skip

    def guest(self, identity: Identity, server_key: bytes, host: str, port: int) -> GuestSide: ...


@dataclass
class GameSetup:
    """What the CLI hands over for a new game or a resumed one."""

    side: PeerFile
    path: Path  # the .ginlog (created once the guest is admitted)
    player: str = "human"
    verbose: bool = False
    connect_timeout: float | None = 20.0
    linger: float = 5.0
    expect_rules: RuleSet | None = None  # guest: refuse other rules
    accept_rules: bool = False  # guest: accept the host's rules without asking
    pair_code: str | None = None  # host: the code to show; guest: the code typed
    advertise: bool = True  # host: announce the game on the LAN (mDNS)
    any_port_if_taken: bool = False  # host: the default port, taken: any free one
    mdns_interface: str | None = None  # mDNS on this address only (default: all)
    on_listening: Callable[[int, str, str], None] | None = None  # host: (port, join, code)
    parent_pid: int | None = None  # leave (saved) when this process is gone
    out: Callable[[str], None] | None = None
    #: Where an error's line goes: standard error, as ``ginp2p join: error: …`` (the
    #: command's other errors are said so), apart from the game's lines on ``out``.
    err: Callable[[str], None] | None = None
    #: The full-screen table (ginp2p.console.tui.table.TablePlayer) for a person; None: the line
    #: prompt. It runs the game (``table.play(game)``) and takes what the session says.
    table: Table | None = None
    #: A person's line prompt, made with the piped input if any (the console's
    #: ``LinePlayer``): where there is no table.
    person: Callable[[PipedLines | None], Player] | None = None
    #: A new table for the next guest of a host whose guest said no to its rules (the
    #: last table is done with); None: ``table`` again.
    new_table: Callable[[], Table | None] | None = None
    #: The console's full screen while a person at the table waits for the other
    #: player (ginp2p.console.tui.waiting.WaitingScreen); None: no screen.
    waiting: WaitScreen | None = None
    #: Whether a silent player is claimed against: not in ``play`` (the computer never
    #: claims, and the person's screen counts down nothing).
    claims: bool = True
    #: The game's Session once it runs; see :meth:`stop`.
    session: Runs | None = None
    #: A piped stdin, once the wait for the other player reads it: the game reads on.
    piped: PipedLines | None = None
    #: A host's pairing gate, kept from one wait for a guest to the next (a guest who
    #: declined the rules): the attempts it counted stay counted.
    gate: PairingGate | None = None
    stopped: str = ""  # why :meth:`stop` ended the game before its Session ran
    ended: str | None = None  # a resumed match already over: how it ended, in words
    #: The endpoints the game is played over: None, ZeroMQ's (ginp2p.net.transport);
    #: a test gives others (ginp2p.testing.memory).
    endpoints: Endpoints | None = None
    #: The session's clock (None: one that runs on while the machine sleeps), and the
    #: time of day files are written in (None: ``time.time``); a test gives fake ones.
    clock: Callable[[], float] | None = None
    wall_clock: Callable[[], float] | None = None
    #: The player's ginp2p folder, for the players it has paired with and its locks (None:
    #: $GINP2P_HOME, else the platform's): a test playing both sides in one process
    #: gives each its own.
    home: Path | None = None
    #: The crash test hook (see ``ginp2p.app.process``): where to die (None: as
    #: ``GINP2P_CRASH_AT`` says), and how (None: kill -9 this process; a test that plays
    #: both sides in one process stops the game instead).
    crash_at: tuple[str, int] | None = None
    crash: Callable[[], None] | None = None
    _task: asyncio.Task[int] | None = None  # the task running the game

    def stop(self, why: str) -> None:
        """End the game from outside, saved, exit 1 (the CLI's watch on the computer
        player of ``play`` when it keeps failing): through the Session once it runs,
        before that by cancelling the wait for the other side."""
        if self.session is not None:
            self.session.submit(StopCmd(why))
        elif self._task is not None and not self.stopped:
            self.stopped = why
            self._task.cancel()
