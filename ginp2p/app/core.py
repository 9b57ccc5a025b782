"""What every part of a session shares: its state, and the few things each part does.

A :class:`~ginp2p.app.session.Session` is built of parts, each a class of its own
module: the connection (:mod:`ginp2p.app.connection`: network events and the link's
outputs), the end of the match (:mod:`ginp2p.app.ending`), and the session proper (the
actor loop, the player's commands, the clock). :class:`SessionCore` holds what they all
read and write — the protocol, the link, the endpoint, the files, the player — and the
small steps they share: say a line, send a frame, leave with a ``bye``, end with a
result.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ginp2p.app.config import SessionResult
from ginp2p.app.players import BotPlayer, Player
from ginp2p.app.process import awake_or_asleep, crash_point, die
from ginp2p.files import peers
from ginp2p.files.logfile import LogFile, SecretsFile
from ginp2p.game.rules import RuleSet
from ginp2p.net.endpoint import GuestSide, HostSide, NetEvent
from ginp2p.net.transport import curve_key
from ginp2p.present.commands import Command
from ginp2p.proto.entry import GUEST, Entry
from ginp2p.proto.frames import NET_VERSION, Frame, PairFrame
from ginp2p.proto.link import PAUSE_REASON, Link
from ginp2p.proto.outputs import Output, Waiting
from ginp2p.proto.protocol import PeerProtocol
from ginp2p.proto.text import for_screen

__all__ = [
    "SETTLE_S",
    "STALL_S",
    "QueueItem",
    "SessionCore",
    "Stats",
    "paired_player",
    "pin_title",
    "pinned_name",
]

#: A gap this much longer than a tick between two things done means the process was
#: frozen (a laptop's lid, SIGSTOP): see ``SessionCore.settling``.
STALL_S = 1.5
#: After such a gap, how long the player waits at most to hear the other side: a link
#: that died meanwhile takes the heartbeat's 3 s to notice, then a reconnection.
SETTLE_S = 10.0


@dataclass(frozen=True, slots=True)
class Tick:
    """The clock: a tick of the session's ticker."""


@dataclass(frozen=True, slots=True)
class Poke:
    """Nothing: a turn of the loop, so the player is asked again."""


#: What the session's queue holds: network events, ticks, pokes and the player's commands.
QueueItem = NetEvent | Tick | Poke | Command


@dataclass
class Stats:
    """Counts of what happened on the connection (a screen shows ``reconnects``)."""

    frames_in: int = 0
    bad_frames: int = 0
    dropped_entries: int = 0
    rejected: int = 0
    resyncs: int = 0
    reconnects: int = 0
    seen: list[Output] = field(default_factory=list)


def paired_player(curve: bytes, home: Path | None = None) -> str | None:
    """The paired player whose connection key is ``curve``, named and fingerprinted as
    ``ginp2p keys`` lists it; None for a stranger (or a peers.json that cannot be read).
    A connection shows only the X25519 form of the key: each pinned key is converted."""
    try:
        pinned = peers.all(home=home)
    except (OSError, peers.PeersError):  # a damaged peers.json is `ginp2p keys`'s to report
        return None
    for p in pinned:
        with contextlib.suppress(ValueError, RuntimeError):  # a key of no curve point
            if curve_key(p.key) == curve:
                if not p.named and not p.calls_itself:  # paired, never named by a hello
                    return f"a player you paired with ({p.fingerprint})"
                # the pin's own name, with what the key calls itself now beside it
                return for_screen(f"{p.title} ({p.fingerprint}, paired with you)")
    return None


def pin_title(key: bytes, hello_name: str, home: Path | None = None) -> str:
    """How a paired player whose hello says ``hello_name`` is named at the table where
    that is not the name it was pinned under: ``Mallory (calls itself Alice, ab12-…)``,
    or ``unnamed (calls itself Alice, ab12-…)`` for a key whose name another pin has
    ('' if it is its own name, or the key is not pinned). A name never stands for a
    key, and two names are never shown for one without the fingerprint."""
    pin = peers.lookup_quietly(key, home=home)
    if pin is None or (pin.named and peers.same_name(pin.name, hello_name)):
        return ""
    return for_screen(pin.described) if (pin.named or pin.calls_itself) else ""


def pinned_name(key: bytes | None, home: Path | None = None) -> str:
    """The name a paired player was pinned under, with the other name its key calls
    itself beside it if it does ('' if none, or unreadable)."""
    pin = peers.lookup_quietly(key, home=home)
    if pin is None or not pin.named:  # paired, never named by a hello
        return ""
    return for_screen(pin.title)


class SessionCore:
    """The state of one session, and the steps its parts share (see the module).

    ``clock`` is the session's time (default: one that runs on while the machine
    sleeps), ``wall_clock`` the time of day files are written in (for ``away_since``);
    ``crash_at`` and ``crash`` are the crash test hook: where to die (default: as
    :data:`~ginp2p.app.process.CRASH_ENV` says), and how (default: kill -9 this
    process); a test gives other ones (see ``ginp2p.testing``). ``home``: the player's
    ginp2p folder, for the players it has paired with (None: $GINP2P_HOME, else the
    platform's).
    """

    def __init__(
        self,
        proto: PeerProtocol,
        endpoint: HostSide | GuestSide,
        player: Player,
        logfile: LogFile,
        secrets: SecretsFile,
        *,
        out: Callable[[str], None] | None = None,
        linger: float = 5.0,
        resync_after: float = 2.0,
        connect_timeout: float | None = None,
        net_version: int = NET_VERSION,
        game_path: Path | None = None,
        on_hello: Callable[[Entry], None] | None = None,
        on_pair: Callable[[PairFrame, bytes], None] | None = None,
        clock: Callable[[], float] | None = None,
        tick: float = 0.2,
        expect_rules: RuleSet | None = None,
        accept_rules: bool = True,
        parent_pid: int | None = None,
        claims: bool = True,
        away_since: float | None = None,
        wall_clock: Callable[[], float] | None = None,
        crash_at: tuple[str, int] | None = None,
        crash: Callable[[], None] = die,
        home: Path | None = None,
    ) -> None:
        self.proto = proto
        #: The player's ginp2p folder (None: $GINP2P_HOME, else the platform's).
        self.home = home
        #: The peers' exchange around the entries: resync, version, bye, latency.
        self.link = Link(proto, version=net_version, resync_after=resync_after)
        #: A resumed game: when (``wall_clock()``) its files were last written, the last
        #: sign of this player before the crash or the quit (see ``run``).
        self.away_since = away_since
        #: Whether a silent player is claimed against in this game: not in ``play``.
        self.claims = claims
        #: The other player's name until its hello says it: the one pinned with its key.
        self.known_name = pinned_name(proto.log.key(proto.opponent), home)
        #: Once the hello is in: the pin's name with the hello's beside it, where the two
        #: differ (:func:`pin_title`); '' where the hello's name is the pin's own.
        self.pin_title = ""
        self.endpoint = endpoint
        self.player = player
        self.logfile = logfile
        self.secrets = secrets
        self._out = out or (lambda text: print(text, flush=True))
        self.linger = linger
        self.connect_timeout = connect_timeout
        self.net_version = net_version
        self.game_path = game_path
        self.on_hello = on_hello  # the opponent's hello, once it is stored
        self.on_pair = on_pair
        self.clock = clock or awake_or_asleep
        #: The time of day, as file times are written (``time.time``): for ``away_since``.
        self.wall_clock = wall_clock or time.time
        self.tick_s = tick
        self.queue: asyncio.Queue[QueueItem] = asyncio.Queue()
        self.result: SessionResult | None = None
        self.waiting: Waiting | None = None
        self.finishing: float | None = None
        self.stats = Stats()
        self.expect_rules = expect_rules
        self.rules_ok = accept_rules
        self.rules_pending: RuleSet | None = None
        self.parent_pid = parent_pid
        self._crash_at = crash_at or crash_point()  # the crash test hook: where to die,
        self._crash = crash  # and how (kill -9)
        self._woke: float | None = None  # when this process came back from being frozen
        self._told_unpinned: set[bytes] = set()  # keys whose dropped messages were told
        self._rules_asked = False
        self._rules_declined = False
        self._rules_told = False
        self._rules_answered: RuleSet | None = None

    # -- the link's state, for players and the UI ------------------------------------
    @property
    def link_up(self) -> bool:
        """A connection to the other side is up."""
        return self.link.up

    @link_up.setter
    def link_up(self, up: bool) -> None:
        self.link.up = up

    @property
    def latency(self) -> float | None:
        """Seconds of the last ``have`` round trip (None until one came back)."""
        return self.link.latency

    @property
    def ping_every(self) -> float | None:
        """If set, a ``have`` goes out this often (seconds) to keep ``latency`` fresh."""
        return self.link.ping_every

    @ping_every.setter
    def ping_every(self, seconds: float | None) -> None:
        self.link.ping_every = seconds

    @property
    def peer_have(self) -> tuple[int, int] | None:
        """What the other side last said it stores, per feed."""
        return self.link.peer_have

    @property
    def resync_after(self) -> float:
        return self.link.resync_after

    # -- names ---------------------------------------------------------------------------
    @property
    def names(self) -> tuple[str, str]:
        n = self.proto.table.names
        me = self.proto.me
        out = [n[0] or "host", n[1] or "guest"]
        out[1 - me] = self.opponent_name
        if not isinstance(self.player, BotPlayer):
            out[me] = "you"
        return out[0], out[1]

    @property
    def opponent_name(self) -> str:
        """The other player's name: its hello's, or before it the one pinned, if any;
        else who they are to this player ("your guest": never the protocol's "guest")."""
        p = self.proto
        if p.log.hello(p.opponent) is None:
            return self.known_name or ("your host" if p.me == GUEST else "your guest")
        return self.pin_title or p.table.names[p.opponent]

    def _peer_label(self) -> str:
        p = self.proto
        if p.log.hello(p.opponent) is not None or self.known_name:
            return self.opponent_name
        return "the host" if p.me == GUEST else "the guest"

    # -- the clock -----------------------------------------------------------------------
    def now(self) -> float:
        return self.clock()

    @property
    def settling(self) -> bool:
        """Just back from being frozen, the other side not yet heard: a claim or a
        computer's move now could cross what is already on its way to us."""
        return self._woke is not None and self.now() - self._woke < SETTLE_S

    def _settled(self) -> None:
        """Back from a freeze and caught up (or given up waiting): moves and claims go on."""
        self._woke = None
        self.proto.away(None)

    @property
    def begun(self) -> bool:
        """Our hello is stored: from then on, leaving keeps the game for a resume."""
        return self.proto.log.hello(self.proto.me) is not None

    # -- steps every part takes ---------------------------------------------------------
    def say(self, text: str) -> None:
        self._out(text)

    def _end(self, code: int, status: str, message: str) -> None:
        if self.result is None:
            self.result = SessionResult(code, status, message)

    async def _send(self, frame: Frame) -> bool:
        try:
            return await self.endpoint.send(frame)
        except Exception as exc:  # a send that fails is a lost message: resync recovers
            self.say(f"(send failed: {exc})")
            return False

    async def _ask(self) -> None:
        """Ask the other side what it stores (its answer measures the round trip)."""
        await self._send(self.link.ask(self.now()))

    async def pause(self) -> None:
        """Tell the other player we left for now, as ``quit`` does: for a console whose
        terminal closed under it, which can send no command any more."""
        await self._bye(PAUSE_REASON)

    async def _bye(self, reason: str) -> None:
        """Tell the other side we leave; if it plays another game, only that (the end
        of our game says nothing about its game)."""
        await self._send(self.link.bye(reason))

    async def _carry(self, outputs: list[Output]) -> None:
        """Carry out the protocol's outputs, in order (the session's)."""
        raise NotImplementedError
