"""The ZeroMQ transport between two peers (docs/network.md). It moves bytes, nothing else.

The host binds a ROUTER, the guest connects a DEALER (PAIR does not reconnect over
TCP). Both use CURVE with the X25519 form of the player's Ed25519 identity key; the
host runs a ZAP handler that admits pinned keys only (plus unknown keys while it is
pairing), and because ZAP admits *connections*, not frames, the host itself drops
every frame but ``pair`` from a CURVE User-Id that is not pinned. ZMTP heartbeats
notice a dead or frozen peer; the socket monitor turns connects and disconnects into
:class:`~ginp2p.net.endpoint.LinkUp` / :class:`~ginp2p.net.endpoint.LinkDown` events,
so the UI can say "reconnecting…".

A message is the frames of :func:`ginp2p.proto.frames.encode_frame`. Everything about
the game (what to send, what a ``have`` means) is the link's and the session's: this
module never looks inside an entry. :class:`HostEndpoint` and :class:`GuestEndpoint`
are the :class:`~ginp2p.net.endpoint.HostSide` and
:class:`~ginp2p.net.endpoint.GuestSide` the drivers use.

Sockets, the authenticator and the context are created inside the running event loop
(pyzmq#1558) and closed explicitly with ``linger=0`` (pyzmq#102, #1413).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import ipaddress
import logging
import secrets
from collections.abc import Iterable, Sequence
from typing import Any, Literal

import zmq
import zmq.asyncio
from zmq.utils import z85
from zmq.utils.monitor import parse_monitor_message

from ginp2p.files.identity import Identity
from ginp2p.net.endpoint import (
    BROKEN_HANDSHAKE,
    NOT_PAIRED_YET,
    REFUSED_HANDSHAKE,
    REFUSED_STRANGER,
    BadFrame,
    ConnectRefused,
    LinkDown,
    LinkUp,
    NetError,
    NetEvent,
    PortInUse,
    Received,
    Rejected,
)
from ginp2p.net.resources import (
    HANDSHAKE_IVL_MS,
    MAX_BACKLOG,
    MAX_CONNECTIONS,
    MAX_GROWTH,
    MAX_MESSAGE,
    ZapHandler,
    forget_strangers,
    raise_open_files_limit,
    shut,
    to_shed,
)
from ginp2p.net.resources import rss as _rss
from ginp2p.proto.frames import Frame, FrameError, PairFrame, decode_frame, encode_frame

__all__ = [
    "MAX_BACKLOG",
    "MAX_CONNECTIONS",
    "MAX_MESSAGE",
    "GuestEndpoint",
    "HostEndpoint",
    "ZeroMQ",
    "curve_key",
    "raise_open_files_limit",
]

log = logging.getLogger(__name__)

ZAP_DOMAIN = "ginp2p"
HEARTBEAT_IVL_MS = 1000
HEARTBEAT_TIMEOUT_MS = 3000

# ------------------------------------------------------------------------ keys, join strings


def curve_key(ed25519_public_key: bytes) -> bytes:
    """The CURVE (X25519) public key of an Ed25519 public key (docs/log.md §8, the identity key)."""
    import nacl.bindings

    key: bytes = nacl.bindings.crypto_sign_ed25519_pk_to_curve25519(ed25519_public_key)
    return key


def _tcp(host: str, port: int | str) -> str:
    with contextlib.suppress(ValueError):
        if ipaddress.ip_address(host).version == 6:
            return f"tcp://[{host}]:{port}"
    return f"tcp://{host}:{port}"


# ------------------------------------------------------------------------ endpoints


class _Endpoint:
    """What host and guest share: the context, one socket, its monitor, an event queue."""

    def __init__(self, curve_public: bytes, curve_secret: bytes) -> None:
        self.curve_public = curve_public
        self._secret = curve_secret
        self.events: asyncio.Queue[NetEvent] = asyncio.Queue()
        self.ctx: zmq.asyncio.Context | None = None
        self.sock: zmq.asyncio.Socket | None = None
        self._monitor: zmq.asyncio.Socket | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self.connected = False
        self.sent = 0
        self.dropped = 0

    def _make_socket(self, kind: int) -> zmq.asyncio.Socket:
        assert self.ctx is not None
        s = self.ctx.socket(kind)
        s.linger = 0
        s.maxmsgsize = MAX_MESSAGE
        s.heartbeat_ivl = HEARTBEAT_IVL_MS
        s.heartbeat_timeout = HEARTBEAT_TIMEOUT_MS
        s.heartbeat_ttl = HEARTBEAT_TIMEOUT_MS
        s.handshake_ivl = HANDSHAKE_IVL_MS
        s.curve_publickey = z85.encode(self.curve_public)
        s.curve_secretkey = z85.encode(self._secret)
        return s

    def _spawn(self) -> None:
        assert self.sock is not None
        self._monitor = self.sock.get_monitor_socket()
        self._tasks = [asyncio.ensure_future(self._recv_loop()),
                       asyncio.ensure_future(self._monitor_loop())]  # fmt: skip

    async def recv(self) -> NetEvent:
        """The next event (frames, link changes, refusals)."""
        return await self.events.get()

    async def _recv_loop(self) -> None:
        assert self.sock is not None
        while True:
            while self.events.qsize() >= MAX_BACKLOG:
                await asyncio.sleep(0.005)
            try:
                parts = await self.sock.recv_multipart(copy=False)
            except zmq.ZMQError as exc:  # closed under us, or an interrupted call
                if exc.errno in (zmq.ENOTSOCK, zmq.ETERM):
                    return
                log.debug("recv failed: %s", exc)
                continue
            try:
                self._on_message(parts)
            except Exception:  # bytes from the network never crash the loop
                log.exception("dropped a message")
                self.dropped += 1
            # a message already waiting comes as a finished future, and awaiting that
            # does not yield: without this a flood would starve the game and the keys
            await asyncio.sleep(0)

    async def _monitor_loop(self) -> None:
        assert self._monitor is not None
        while True:
            try:
                msg = await self._monitor.recv_multipart()
                event = parse_monitor_message(msg)
            except zmq.ZMQError:
                return
            except Exception:
                continue
            self._on_monitor(int(event["event"]), int(event["value"]))

    def _on_message(self, parts: list[zmq.Frame]) -> None:
        raise NotImplementedError

    def _on_monitor(self, event: int, value: int) -> None:
        raise NotImplementedError

    def _decode(self, parts: Sequence[zmq.Frame], peer: bytes | None,
                connection: int = 0) -> Frame | None:  # fmt: skip
        try:
            return decode_frame([p.bytes for p in parts])
        except FrameError as exc:
            self.dropped += 1
            self.events.put_nowait(BadFrame(peer, str(exc), connection))
            return None

    async def _send_parts(self, parts: list[bytes]) -> bool:
        """Never blocks: a message that cannot go now is dropped (resync covers it)."""
        if self.sock is None:
            return False
        try:
            await self.sock.send_multipart(parts, flags=zmq.NOBLOCK)
        except zmq.Again:
            return False
        except zmq.ZMQError as exc:
            if exc.errno == errno.EHOSTUNREACH:
                return False
            raise
        self.sent += 1
        return True

    async def _close_socket(self) -> None:
        """Stop this endpoint's loops, then close its socket and monitor (linger 0)."""
        for t in self._tasks:
            t.cancel()
        for t in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await t
        self._tasks = []
        if self.sock is not None:
            with contextlib.suppress(zmq.ZMQError):
                self.sock.disable_monitor()
            self.sock.close(linger=0)
            self.sock = None
        if self._monitor is not None:
            self._monitor.close(linger=0)
            self._monitor = None

    async def close(self) -> None:
        """Stop the loops, close every socket and the context (never hangs: linger 0)."""
        await self._close_socket()
        await self._close_extra()
        if self.ctx is not None:
            self.ctx.term()
            self.ctx = None

    async def _close_extra(self) -> None:
        pass


class _Admission:
    """The ZAP handler's credentials provider: pinned keys, or anyone while pairing."""

    def __init__(self, host: HostEndpoint) -> None:
        self.host = host

    def callback(self, domain: str, key: bytes) -> bool:
        try:
            raw = z85.decode(key)
        except Exception:
            return False
        ok = self.host.admits(raw)
        if ok:
            self.host.admitted(raw)
        else:
            self.host.events.put_nowait(Rejected(raw, REFUSED_STRANGER))
        return ok


class HostEndpoint(_Endpoint):
    """The host's ROUTER. Peers are keyed by their CURVE public key (the User-Id).

    ``pinned``: CURVE keys admitted at any time. ``pairing``: admit unknown keys too,
    but pass on only their ``pair`` frames (every other frame from them is dropped and
    reported as :class:`BadFrame`). :meth:`drop_connections` ends every connection
    (after a failed pairing: ZAP admits connections, and a ROUTER cannot close one).
    """

    role: Literal["host"] = "host"

    def __init__(
        self,
        curve_public: bytes,
        curve_secret: bytes,
        *,
        bind: str = "0.0.0.0",
        port: int = 0,
        pinned: Iterable[bytes] = (),
        pairing: bool = False,
        any_port_if_taken: bool = False,
    ) -> None:
        super().__init__(curve_public, curve_secret)
        self.bind = bind
        self.port = port
        #: Listen on any free port if ``port`` is taken (the default port, which nobody
        #: asked for: the join string and the announcement carry the one bound).
        self.any_port_if_taken = any_port_if_taken
        self.port_taken: int | None = None  # the port that was taken, if so
        self.pinned: set[bytes] = set(pinned)
        self.pairing = pairing
        self.partner: bytes | None = None  # the pinned peer heard from last
        self._routes: dict[bytes, bytes] = {}  # CURVE key -> routing id
        self._fds: dict[bytes, int] = {}  # CURVE key -> socket fd of its connection
        self._pairing_fds: dict[bytes, int] = {}  # the same, for a stranger pairing now
        self._up: set[bytes] = set()
        #: CURVE key -> how many of its connections ZAP admitted (a ROUTER tells the
        #: connections of one routing id apart by nothing else)
        self._connections: dict[bytes, int] = {}
        self._auth: ZapHandler | None = None
        #: fds of the connections open now, oldest first; ``shed``: how many were closed
        self._open: dict[int, None] = {}
        self.shed = 0
        self._watchdog: asyncio.Task[None] | None = None

    def admits(self, key: bytes) -> bool:
        """ZAP's question: may this key connect now?"""
        return key in self.pinned or self.pairing

    def admitted(self, key: bytes) -> None:
        """ZAP let a new connection of ``key`` in. Called before the handshake ends, so
        before any message of that connection is read."""
        self._connections[key] = self._connections.pop(key, 0) + 1
        forget_strangers(self._connections, self.pinned)

    def pin(self, key: bytes) -> None:
        self.pinned.add(key)

    def _learn_route(self, peer: bytes, routing_id: bytes) -> None:
        """``peer`` is heard on ``routing_id``, which the newest connection claiming it
        holds (ROUTER_HANDOVER): another key's route there is that key's no longer."""
        if self._routes.get(peer) == routing_id:
            return  # the common case: no other key holds it (kept so below)
        for key, route in list(self._routes.items()):
            if route == routing_id:
                del self._routes[key]
        self._routes.pop(peer, None)
        self._routes[peer] = routing_id
        forget_strangers(self._routes, self.pinned)

    def paired_with(self, key: bytes) -> None:
        """Pairing is over: only ``key`` may connect from now on, and what the host knew
        of every other key (routes, connections, the partner heard last) is forgotten."""
        self.pinned, self.pairing, self._pairing_fds = {key}, False, {}
        self.partner = key if self.partner == key else None
        self._up, self.connected = self._up & {key}, key in self._up
        for table in (self._routes, self._connections, self._fds):
            for other in [k for k in table if k != key]:
                del table[other]

    def unpin(self, key: bytes) -> None:
        """Forget a key: its frames are dropped and ZAP refuses its next connection.
        (A ROUTER cannot close one peer's connection; it stays until that peer goes.)"""
        self.pinned.discard(key)
        self._routes.pop(key, None)
        if self.partner == key:
            self.partner = None

    async def start(self) -> int:
        """Start the ZAP handler, bind; returns the port really bound. Raises the
        process's limit on open files first (:data:`OPEN_FILES`)."""
        raise_open_files_limit()

        self.ctx = zmq.asyncio.Context()
        self._auth = ZapHandler(self.ctx)
        self._auth.start()
        self._auth.configure_curve_callback(ZAP_DOMAIN, _Admission(self))
        try:
            try:
                await self._bind()
            except PortInUse:
                if not self.any_port_if_taken:
                    raise
                self.port_taken, self.port = self.port, 0
                await self._bind()
        except NetError:
            await self.close()
            raise
        if (base := _rss()) is not None:
            self._watchdog = asyncio.ensure_future(self._watch_memory(base))
        return self.port

    async def _watch_memory(self, base: int) -> None:
        while True:
            await asyncio.sleep(0.25)
            now = _rss()
            if now is not None and now - base > MAX_GROWTH:
                await self.drop_connections()
                self.events.put_nowait(Rejected(None, (
                    f"every connection was dropped: memory grew by {(now - base) >> 20} MB "
                    "(a flood of unfinished messages?); a paired player reconnects by "
                    "itself")))  # fmt: skip

    async def drop_connections(self) -> None:
        """Close every connection (a new socket on the same port): a guest whose pairing
        failed is cut off; a pinned guest reconnects by itself."""
        await self._close_socket()
        self._routes.clear()
        self._fds.clear()
        self._pairing_fds.clear()
        self._open.clear()
        for peer in list(self._up):
            self.events.put_nowait(LinkDown(peer))
        self._up.clear()
        self.connected = False
        self.partner = None
        for attempt in range(50):  # the old listener closes in the I/O thread
            try:
                await self._bind()
                return
            except PortInUse:
                if attempt == 49:
                    raise
                await asyncio.sleep(0.02)

    async def _bind(self) -> None:
        s = self.sock = self._make_socket(zmq.ROUTER)
        s.curve_server = True
        s.zap_domain = ZAP_DOMAIN.encode()
        s.router_handover = 1
        s.router_mandatory = 1
        try:
            s.bind(_tcp(self.bind, self.port or "*"))
        except zmq.ZMQError as exc:
            s.close(linger=0)
            self.sock = None
            if exc.errno == errno.EADDRINUSE:
                raise PortInUse(
                    f"port {self.port} on {self.bind} is in use (another ginp2p host or "
                    f"program has it): choose another with --port, or --port 0 for any free one"
                ) from None
            raise NetError(f"cannot listen on {self.bind}:{self.port}: {exc}") from None
        endpoint = s.getsockopt_string(zmq.LAST_ENDPOINT)
        self.port = int(endpoint.rsplit(":", 1)[1])
        self._spawn()

    def _on_message(self, parts: list[zmq.Frame]) -> None:
        if len(parts) < 2:
            return
        routing_id = parts[0].bytes
        meta: Any = parts[1]  # Frame.get takes a property name too (older stubs: int only)
        user_id = meta.get("User-Id")
        try:
            if not isinstance(user_id, str):
                raise TypeError("no CURVE user id")
            peer = z85.decode(user_id)
        except Exception:
            self.dropped += 1
            return
        connection = self._connections.get(peer, 0)
        frame = self._decode(parts[1:], peer, connection)
        if frame is None:
            return
        self._learn_route(peer, routing_id)
        if peer not in self.pinned:
            if isinstance(frame, PairFrame) and self.pairing:
                with contextlib.suppress(Exception):  # (its connection is shed last)
                    self._pairing_fds[peer] = int(parts[1].get(zmq.SRCFD))
                forget_strangers(self._pairing_fds, self.pinned)
                self.events.put_nowait(Received(frame, peer))
                return
            # its route is only ever used to say "pair first" (a bye)
            self.dropped += 1
            self.events.put_nowait(BadFrame(peer, NOT_PAIRED_YET, connection))
            return
        self.partner = peer
        with contextlib.suppress(Exception):
            self._fds[peer] = int(parts[1].get(zmq.SRCFD))
        if peer not in self._up:
            self._up.add(peer)
            self.connected = True
            self.events.put_nowait(LinkUp(peer))
        self.events.put_nowait(Received(frame, peer))

    def _on_monitor(self, event: int, value: int) -> None:
        if event == zmq.EVENT_ACCEPTED:
            self._open[value] = None
            if len(self._open) > MAX_CONNECTIONS:
                self._shed()
        elif event in (zmq.EVENT_DISCONNECTED, zmq.EVENT_CLOSED):
            self._open.pop(value, None)
            self._pairing_fds = {k: fd for k, fd in self._pairing_fds.items() if fd != value}
        if event == zmq.EVENT_DISCONNECTED:
            for peer, fd in list(self._fds.items()):
                if fd == value:
                    del self._fds[peer]
                    self._up.discard(peer)
                    self.connected = bool(self._up)
                    self.events.put_nowait(LinkDown(peer))
        elif event == zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL:  # bad crypto or framing
            self.events.put_nowait(Rejected(None, REFUSED_HANDSHAKE))
        elif event == zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL:  # a timeout, a cut
            self.events.put_nowait(Rejected(None, BROKEN_HANDSHAKE))

    def _shed(self) -> None:
        """Close one connection: a silent one first, the partner's never (:func:`to_shed`)."""
        partner = [self._fds[self.partner]] if self.partner in self._fds else []
        fd = to_shed(self._open, {*self._fds.values(), *self._pairing_fds.values()}, partner)
        if fd is not None:
            del self._open[fd]
            self.shed += shut(fd, self.port)

    async def send(self, frame: Frame, to: bytes | None = None) -> bool:
        """Send to ``to`` (default: the partner). False if it has no route now."""
        peer = to if to is not None else self.partner
        route = self._routes.get(peer) if peer is not None else None
        if route is None:
            return False
        return await self._send_parts([route, *encode_frame(frame)])

    async def _close_extra(self) -> None:
        if self._watchdog is not None:
            self._watchdog.cancel()
            self._watchdog = None
        if self._auth is not None:
            await self._auth.aclose()
            self._auth = None


class GuestEndpoint(_Endpoint):
    """The guest's DEALER, connected to the host whose CURVE key is ``server_key``.

    Its routing id is random (a known one, as its key was, let a stranger the host admits
    while it pairs take the route) and one for its life, so a reconnection takes over the
    old route at once (ROUTER_HANDOVER) instead of waiting for the heartbeat to drop it.
    """

    role: Literal["guest"] = "guest"

    def __init__(
        self, curve_public: bytes, curve_secret: bytes, server_key: bytes, host: str, port: int
    ) -> None:
        super().__init__(curve_public, curve_secret)
        self.server_key = server_key
        self.host = host
        self.port = port
        self.ever_connected = False
        self.attempts = 0
        #: The latest connections were refused: nothing listens at that address yet.
        self.refusing = False
        self._tcp_up = False  # this attempt got a TCP connection (answered, not refused)
        self._refused_since: float | None = None

    async def start(self) -> None:
        self.ctx = zmq.asyncio.Context()
        s = self.sock = self._make_socket(zmq.DEALER)
        s.curve_serverkey = z85.encode(self.server_key)
        s.routing_id = b"g" + secrets.token_bytes(16)  # never a leading zero byte (ZeroMQ's)
        s.reconnect_ivl = 250
        s.reconnect_ivl_max = 2000
        self._spawn()
        try:
            s.connect(_tcp(self.host, self.port))
        except zmq.ZMQError as exc:
            await self.close()
            raise NetError(f"cannot connect to {self.host}:{self.port}: {exc}") from None

    def _on_message(self, parts: list[zmq.Frame]) -> None:
        frame = self._decode(parts, self.server_key)
        if frame is not None:
            self.events.put_nowait(Received(frame, self.server_key))

    def _on_monitor(self, event: int, value: int) -> None:
        if event == zmq.EVENT_CONNECTED:
            self.attempts += 1
            self._tcp_up, self.refusing, self._refused_since = True, False, None
        elif event == zmq.EVENT_CONNECT_RETRIED:  # a retry is due: was this one refused?
            self.attempts += 1
            if not self._tcp_up:
                self._refused()
            self._tcp_up = False
        elif event == zmq.EVENT_HANDSHAKE_SUCCEEDED:
            self.connected = self.ever_connected = True
            self.events.put_nowait(LinkUp(self.server_key))
        elif event == zmq.EVENT_DISCONNECTED:
            if self.connected:
                self.connected = False
                self.events.put_nowait(LinkDown(self.server_key))
        elif event == zmq.EVENT_HANDSHAKE_FAILED_AUTH:
            self.events.put_nowait(
                Rejected(self.server_key, "the host refused this player's key", auth=True)
            )
        elif event in (zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL, zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL):
            self.events.put_nowait(Rejected(
                self.server_key,
                "the host did not accept the encrypted connection: the key in the join "
                "string is probably not this host's",
            ))  # fmt: skip

    def _refused(self) -> None:
        """A connection ended before TCP got through: the host's machine said no (an
        attempt a firewall drops would still be waiting, not retried)."""
        now = asyncio.get_running_loop().time()
        if self._refused_since is None:
            self._refused_since = now
        self.refusing = True
        self.events.put_nowait(ConnectRefused(now - self._refused_since))

    async def send(self, frame: Frame, to: bytes | None = None) -> bool:
        return await self._send_parts(encode_frame(frame))


class ZeroMQ:
    """Makes a game's ZeroMQ endpoints from the player's identity (the endpoints a game
    is played over unless a test gives others)."""

    def host(self, identity: Identity, *, bind: str, port: int, pinned: set[bytes],
             pairing: bool, any_port_if_taken: bool) -> HostEndpoint:  # fmt: skip
        return HostEndpoint(identity.curve_public_key, identity.curve_secret_key, bind=bind,
                            port=port, pinned=pinned, pairing=pairing,
                            any_port_if_taken=any_port_if_taken)  # fmt: skip

    def guest(self, identity: Identity, server_key: bytes, host: str, port: int) -> GuestEndpoint:
        return GuestEndpoint(identity.curve_public_key, identity.curve_secret_key, server_key,
                             host, port)  # fmt: skip
