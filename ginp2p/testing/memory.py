"""Endpoints joined in memory: the network of a test, with its faults at the test's call.

A :class:`MemoryNetwork` stands in for ZeroMQ over TCP. Its hosts listen on ports of
its own and admit the connection keys they pin (anyone while pairing, for pairing
only), as the real host does; its guests connect to a port, and reconnect after every
drop, backing off as ZeroMQ does. The events they give are the real ones
(:mod:`ginp2p.net.endpoint`), every frame goes through the real encoding
(:mod:`ginp2p.proto.frames`), and nothing waits on a socket: with a
:class:`~ginp2p.testing.clock.FakeClock`, two whole sessions play out in one process in
the time their code takes.

The network's knobs, for a test to turn at any time:

* ``latency``: seconds each frame takes (0: delivered on the loop's next turn);
* ``drop_rate`` and :meth:`MemoryNetwork.drop_next`: frames lost on the way (a lost
  frame is what the game's resync must recover);
* :meth:`MemoryNetwork.cut`: every connection breaks (both ends see ``LinkDown``; the
  guests reconnect by themselves); :meth:`MemoryNetwork.cut_every`: again and again;
* :meth:`MemoryNetwork.partition` / :meth:`MemoryNetwork.heal`: connections break and
  no new one gets through (attempts go unanswered, as through a dead cable) until
  healed.

A game over it, as the command line would run one, with ``GameSetup(...,
endpoints=network, clock=clock.time, wall_clock=clock.wall)``; or endpoints by hand::

    clock, net = FakeClock(), MemoryNetwork()

    async def main() -> None:
        host = net.host(host_identity, pinned={guest_identity.curve_public_key})
        port = await host.start()
        guest = net.guest(guest_identity, host_identity.curve_public_key, "memory", port)
        await guest.start()
        ...  # Session(proto, host, ...) and Session(proto, guest, ...), run together

    clock.run(main())
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import Callable, Iterable, Sequence
from typing import Literal

from ginp2p.files.identity import Identity
from ginp2p.net.endpoint import (
    NOT_PAIRED_YET,
    REFUSED_STRANGER,
    BadFrame,
    ConnectRefused,
    LinkDown,
    LinkUp,
    NetEvent,
    PortInUse,
    Received,
    Rejected,
)
from ginp2p.proto.frames import Frame, FrameError, PairFrame, decode_frame, encode_frame

__all__ = ["MemoryGuest", "MemoryHost", "MemoryNetwork"]

#: ZeroMQ's reconnect interval as the guest sets it: the first retry, and the most.
RECONNECT_S = 0.25
RECONNECT_MAX_S = 2.0
#: The ports the network hands out to hosts that ask for any.
FIRST_PORT = 40000


class _Connection:
    """One connection between a guest and a host, until it breaks."""

    def __init__(self, host: MemoryHost, guest: MemoryGuest) -> None:
        self.host, self.guest = host, guest
        self.open = True


class MemoryNetwork:
    """Hosts and guests in one process, joined in memory (see the module).
    ``seed``: for ``drop_rate``'s draws."""

    def __init__(self, *, latency: float = 0.0, drop_rate: float = 0.0, seed: int = 0) -> None:
        self.latency = latency
        self.drop_rate = drop_rate
        self.rng = random.Random(seed)
        self.listening: dict[int, MemoryHost] = {}
        self.connections: list[_Connection] = []
        self.partitioned = False
        self.delivered = 0  # frames that arrived
        self.lost = 0  # frames the network lost
        self._drop_next = 0
        self._next_port = FIRST_PORT
        self._cuts: tuple[int, int] | None = None  # (every so many frames, cuts left)
        self.cuts = 0  # times every connection was broken by a knob

    # -- endpoints (what ``GameSetup.endpoints`` asks for) ------------------------------
    def host(self, identity: Identity, *, bind: str = "memory", port: int = 0,
             pinned: Iterable[bytes] = (), pairing: bool = False,
             any_port_if_taken: bool = False) -> MemoryHost:  # fmt: skip
        """A host endpoint of ``identity``'s key, to listen on ``port`` (0: any)."""
        return MemoryHost(self, identity.curve_public_key, bind=bind, port=port,
                          pinned=pinned, pairing=pairing,
                          any_port_if_taken=any_port_if_taken)  # fmt: skip

    def guest(self, identity: Identity, server_key: bytes, host: str, port: int) -> MemoryGuest:
        """A guest endpoint of ``identity``'s key, to connect to ``port``, whose host
        must have the connection key ``server_key``."""
        return MemoryGuest(self, identity.curve_public_key, server_key, host, port)

    # -- the knobs ------------------------------------------------------------------------
    def drop_next(self, n: int = 1) -> None:
        """Lose the next ``n`` frames sent, whichever way they go."""
        self._drop_next += n

    def cut(self) -> None:
        """Break every connection now; the guests reconnect by themselves."""
        self.cuts += 1
        for c in list(self.connections):
            self._break(c)

    def cut_every(self, frames: int, times: int) -> None:
        """Break every connection each time ``frames`` more frames have arrived,
        ``times`` times (a line that keeps dropping); then carry faithfully."""
        self._cuts = (frames, times)

    def partition(self) -> None:
        """Break every connection, and let no new one through until :meth:`heal`."""
        self.partitioned = True
        self.cut()

    def heal(self) -> None:
        """End a :meth:`partition`: the guests' next attempts get through."""
        self.partitioned = False

    # -- inside ---------------------------------------------------------------------------
    def _port(self, host: MemoryHost) -> int:
        if host.port == 0:
            while self._next_port in self.listening:
                self._next_port += 1
            host.port = self._next_port
        if host.port in self.listening:
            raise PortInUse(
                f"port {host.port} on {host.bind} is in use (another ginp2p host or "
                "program has it): choose another with --port, or --port 0 for any free one"
            )
        self.listening[host.port] = host
        return host.port

    def _connect(self, guest: MemoryGuest) -> _Connection | None:
        """One attempt of ``guest``'s: a connection, or None (said to the guest)."""
        if self.partitioned:
            return None  # unanswered: no refusal either
        host = self.listening.get(guest.port)
        if host is None:
            guest._refused()
            return None
        if host.curve_public != guest.server_key:  # the greeting fails: a wrong host key
            guest._event(Rejected(guest.server_key, _WRONG_HOST))
            return None
        if not host.admits(guest.curve_public):
            host._event(Rejected(guest.curve_public, REFUSED_STRANGER))
            guest._event(Rejected(guest.server_key, "the host refused this player's key",
                                  auth=True))  # fmt: skip
            return None
        host.admitted(guest.curve_public)
        c = _Connection(host, guest)
        self.connections.append(c)
        return c

    def _break(self, c: _Connection) -> None:
        if not c.open:
            return
        c.open = False
        with contextlib.suppress(ValueError):
            self.connections.remove(c)
        c.host._lost(c)
        c.guest._lost(c)

    def _carry(self, c: _Connection, parts: list[bytes],
               deliver: Callable[[_Connection, list[bytes]], None]) -> None:  # fmt: skip
        """Send ``parts`` over ``c``: lost, or delivered after the latency."""
        if self._drop_next:
            self._drop_next -= 1
            self.lost += 1
            return
        if self.drop_rate and self.rng.random() < self.drop_rate:
            self.lost += 1
            return

        def arrive() -> None:
            if c.open:
                self.delivered += 1
                deliver(c, parts)
                if self._cuts is not None and self.delivered % self._cuts[0] == 0:
                    frames, left = self._cuts
                    self._cuts = (frames, left - 1) if left > 1 else None
                    self.cut()

        loop = asyncio.get_running_loop()
        if self.latency > 0:
            loop.call_later(self.latency, arrive)
        else:
            loop.call_soon(arrive)


_WRONG_HOST = (
    "the host did not accept the encrypted connection: the key in the join string is "
    "probably not this host's"
)


class _MemoryEndpoint:
    """What host and guest share: the event queue and the network."""

    def __init__(self, network: MemoryNetwork, curve_public: bytes) -> None:
        self.network = network
        self.curve_public = curve_public
        self.events: asyncio.Queue[NetEvent] = asyncio.Queue()
        self.connected = False
        self.closed = False
        self.sent = 0
        self.dropped = 0  # frames dropped on arrival (undecodable, not allowed)

    async def recv(self) -> NetEvent:
        """The next event (frames, link changes, refusals)."""
        return await self.events.get()

    def _event(self, ev: NetEvent) -> None:
        if not self.closed:
            self.events.put_nowait(ev)

    def _decode(self, parts: Sequence[bytes], peer: bytes | None,
                connection: int = 0) -> Frame | None:  # fmt: skip
        try:
            return decode_frame(parts)
        except FrameError as exc:
            self.dropped += 1
            self._event(BadFrame(peer, str(exc), connection))
            return None

    def _lost(self, c: _Connection) -> None:
        raise NotImplementedError


class MemoryHost(_MemoryEndpoint):
    """A host endpoint in memory (a :class:`~ginp2p.net.endpoint.HostSide`): the real
    host's admission (pinned keys; while pairing, anyone, passing on only its ``pair``
    frames), with the network in place of ZeroMQ."""

    role: Literal["host"] = "host"

    def __init__(self, network: MemoryNetwork, curve_public: bytes, *, bind: str = "memory",
                 port: int = 0, pinned: Iterable[bytes] = (), pairing: bool = False,
                 any_port_if_taken: bool = False) -> None:  # fmt: skip
        super().__init__(network, curve_public)
        self.bind = bind
        self.port = port
        self.any_port_if_taken = any_port_if_taken
        self.port_taken: int | None = None
        self.pinned: set[bytes] = set(pinned)
        self.pairing = pairing
        self.partner: bytes | None = None
        self._routes: dict[bytes, _Connection] = {}
        self._up: set[bytes] = set()
        self._connections: dict[bytes, int] = {}

    def admits(self, key: bytes) -> bool:
        return key in self.pinned or self.pairing

    def admitted(self, key: bytes) -> None:
        self._connections[key] = self._connections.get(key, 0) + 1

    def pin(self, key: bytes) -> None:
        self.pinned.add(key)

    def paired_with(self, key: bytes) -> None:
        self.pinned = {key}
        self.pairing = False
        self._routes = {k: r for k, r in self._routes.items() if k == key}
        self._connections = {k: n for k, n in self._connections.items() if k == key}

    def unpin(self, key: bytes) -> None:
        self.pinned.discard(key)
        self._routes.pop(key, None)
        if self.partner == key:
            self.partner = None

    async def start(self) -> int:
        """Listen; the port really taken (another, if ``port`` is taken and
        ``any_port_if_taken``)."""
        try:
            return self.network._port(self)
        except PortInUse:
            if not self.any_port_if_taken:
                raise
            self.port_taken, self.port = self.port, 0
            return self.network._port(self)

    async def drop_connections(self) -> None:
        """Close every connection (a pinned guest reconnects by itself)."""
        for c in [c for c in self.network.connections if c.host is self]:
            self.network._break(c)
        self._routes.clear()
        self.partner = None

    async def send(self, frame: Frame, to: bytes | None = None) -> bool:
        """Send to ``to`` (default: the partner). False if it has no route now."""
        peer = to if to is not None else self.partner
        c = self._routes.get(peer) if peer is not None else None
        if c is None or not c.open:
            return False
        self.sent += 1
        self.network._carry(c, encode_frame(frame), _to_guest)
        return True

    async def close(self) -> None:
        """Stop listening and break every connection."""
        await self.drop_connections()
        if self.network.listening.get(self.port) is self:
            del self.network.listening[self.port]
        self.closed = True

    def _arrive(self, c: _Connection, parts: list[bytes]) -> None:
        """A message from a guest, as the real host takes it."""
        peer = c.guest.curve_public
        connection = self._connections.get(peer, 0)
        frame = self._decode(parts, peer, connection)
        if frame is None:
            return
        if peer not in self.pinned:
            self._routes[peer] = c
            if isinstance(frame, PairFrame) and self.pairing:
                self._event(Received(frame, peer))
                return
            self.dropped += 1
            self._event(BadFrame(peer, NOT_PAIRED_YET, connection))
            return
        self._routes[peer] = c
        self.partner = peer
        if peer not in self._up:
            self._up.add(peer)
            self.connected = True
            self._event(LinkUp(peer))
        self._event(Received(frame, peer))

    def _lost(self, c: _Connection) -> None:
        peer = c.guest.curve_public
        if self._routes.get(peer) is c:
            del self._routes[peer]
        if peer in self._up and not any(
            o.open and o.guest.curve_public == peer for o in self.network.connections
        ):
            self._up.discard(peer)
            self.connected = bool(self._up)
            self._event(LinkDown(peer))


class MemoryGuest(_MemoryEndpoint):
    """A guest endpoint in memory (a :class:`~ginp2p.net.endpoint.GuestSide`): connects
    to ``port`` and connects again after every drop, backing off as ZeroMQ does."""

    role: Literal["guest"] = "guest"

    def __init__(self, network: MemoryNetwork, curve_public: bytes, server_key: bytes,
                 host: str, port: int) -> None:  # fmt: skip
        super().__init__(network, curve_public)
        self.server_key = server_key
        self.host = host
        self.port = port
        self.ever_connected = False
        self.refusing = False
        self.attempts = 0
        self._connection: _Connection | None = None
        self._refused_since: float | None = None
        self._task: asyncio.Task[None] | None = None
        self._broken = asyncio.Event()

    async def start(self) -> None:
        """Start connecting (and reconnecting after every drop)."""
        self._task = asyncio.ensure_future(self._keep_connected())

    async def _keep_connected(self) -> None:
        pause = RECONNECT_S
        while True:
            self.attempts += 1
            c = self.network._connect(self)
            if c is None:
                await asyncio.sleep(pause)
                pause = min(pause * 2, RECONNECT_MAX_S)
                continue
            self._connection, pause = c, RECONNECT_S
            self.refusing, self._refused_since = False, None
            self.connected = self.ever_connected = True
            self._event(LinkUp(self.server_key))
            self._broken.clear()
            await self._broken.wait()
            await asyncio.sleep(RECONNECT_S)

    def _refused(self) -> None:
        now = asyncio.get_running_loop().time()
        if self._refused_since is None:
            self._refused_since = now
        self.refusing = True
        self._event(ConnectRefused(now - self._refused_since))

    async def send(self, frame: Frame, to: bytes | None = None) -> bool:
        c = self._connection
        if c is None or not c.open:
            return False
        self.sent += 1
        self.network._carry(c, encode_frame(frame), _to_host)
        return True

    async def close(self) -> None:
        """Stop connecting, and break the connection."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        if self._connection is not None:
            self.network._break(self._connection)
        self.closed = True

    def _arrive(self, c: _Connection, parts: list[bytes]) -> None:
        frame = self._decode(parts, self.server_key)
        if frame is not None:
            self._event(Received(frame, self.server_key))

    def _lost(self, c: _Connection) -> None:
        if self._connection is not c:
            return
        self._connection = None
        if self.connected:
            self.connected = False
            self._event(LinkDown(self.server_key))
        self._broken.set()  # reconnect, after the pause


def _to_guest(c: _Connection, parts: list[bytes]) -> None:
    c.guest._arrive(c, parts)


def _to_host(c: _Connection, parts: list[bytes]) -> None:
    c.host._arrive(c, parts)
