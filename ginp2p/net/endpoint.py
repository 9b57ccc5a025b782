"""What an endpoint is to the game's drivers: the events it gives, the calls it takes.

An endpoint is one peer's end of the connection between two players. The host's
listens and admits the guests it knows (or, while it pairs, anyone, for pairing
only); the guest's connects to the host's key. The session and the pre-game exchange
(``ginp2p.app``) see nothing but what is here: :class:`HostSide` and
:class:`GuestSide` (``role`` tells them apart), and the events of :data:`NetEvent`.
The ZeroMQ endpoints (:mod:`ginp2p.net.transport`) are the real ones; the testing kit
has a pair joined in memory (``ginp2p.testing.memory``).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Literal, Protocol

from ginp2p.errors import Ginp2pError
from ginp2p.proto.frames import Frame

__all__ = [
    "BROKEN_HANDSHAKE",
    "NOT_PAIRED_YET",
    "REFUSED_HANDSHAKE",
    "REFUSED_STRANGER",
    "BadFrame",
    "ConnectRefused",
    "Endpoint",
    "GuestSide",
    "HostSide",
    "LinkDown",
    "LinkUp",
    "NetError",
    "NetEvent",
    "PortInUse",
    "Received",
    "Rejected",
]

# ------------------------------------------------------------------------ events


@dataclass(frozen=True, slots=True)
class Received:
    """A frame from ``peer`` (its CURVE public key, 32 bytes)."""

    frame: Frame
    peer: bytes


@dataclass(frozen=True, slots=True)
class LinkUp:
    peer: bytes | None


@dataclass(frozen=True, slots=True)
class LinkDown:
    peer: bytes | None


#: The host's words for a key its ZAP handler refused, and for a failed handshake.
REFUSED_STRANGER = "refused a connection from a player not paired with this host"
REFUSED_HANDSHAKE = (
    "refused a connection that did not complete the encrypted greeting (a "
    "wrong key in the join string, or not a ginp2p program)"
)
#: A greeting that broke off without a protocol error: mostly a reconnect that gave up
#: while this computer was frozen or busy, not an attack; said as such.
BROKEN_HANDSHAKE = (
    "a connection broke off during the encrypted greeting (a reconnect that "
    "timed out while this computer was busy or asleep, or a network fault)"
)
#: Why the host drops a message from a key admitted while it pairs (not a ``pair`` one).
NOT_PAIRED_YET = "a player not paired with this host may only pair"


@dataclass(frozen=True, slots=True)
class Rejected:
    """A connection that did not get through. Host: a key ZAP refused (``peer``) or a
    failed handshake; ``reason`` is a whole line. Guest: the host refused our key
    (``auth``) or the handshake failed (most likely a wrong host key)."""

    peer: bytes | None
    reason: str
    auth: bool = False


@dataclass(frozen=True, slots=True)
class ConnectRefused:
    """Guest: the host's machine refused a connection (nothing listens at that port
    yet, or the port is wrong). ZeroMQ retries such a connection in silence, as it does
    one that is never answered (a firewall that drops it): this tells them apart.
    ``for_s``: seconds since the first of these refusals in a row."""

    for_s: float


@dataclass(frozen=True, slots=True)
class BadFrame:
    """A message that was dropped: undecodable, or not allowed from an unpinned key.
    ``connection``: host, which connection of ``peer`` it came on (1 for the first the
    ZAP handler admitted, 2 for the next, ...; 0 if unknown), so a key told to pair on
    one connection is told again on the next (a new ``join`` with the same key)."""

    peer: bytes | None
    reason: str
    connection: int = 0


NetEvent = Received | LinkUp | LinkDown | Rejected | BadFrame | ConnectRefused


class NetError(Ginp2pError):
    """The transport cannot be set up (a port in use, a bad address)."""


class PortInUse(NetError):
    """The port asked for is another program's."""


# ------------------------------------------------------------------------ endpoints


class Endpoint(Protocol):
    """What host and guest endpoints share. Sends never block: a message that cannot go
    now is dropped (False), and the game's resync recovers it."""

    #: What the endpoint has to tell, in order (a driver may put back one it took).
    events: asyncio.Queue[NetEvent]
    #: A connection to the other side is up now.
    connected: bool
    #: The port listened on (host) or connected to (guest).
    port: int

    async def recv(self) -> NetEvent:
        """The next event (frames, link changes, refusals)."""
        ...

    async def send(self, frame: Frame, to: bytes | None = None) -> bool:
        """Send ``frame`` (host: to ``to``, or the partner); False if it cannot go now."""
        ...

    async def close(self) -> None:
        """Stop and let go of everything (never hangs)."""
        ...


class HostSide(Endpoint, Protocol):
    """The host's endpoint: admits ``pinned`` connection keys at any time, and anyone
    while ``pairing`` (passing on only their ``pair`` frames)."""

    role: Literal["host"]
    pinned: set[bytes]
    pairing: bool
    #: The port asked for, if it was taken and another was bound instead.
    port_taken: int | None

    async def start(self) -> int:
        """Listen; the port really bound."""
        ...

    def pin(self, key: bytes) -> None:
        """Admit this connection key from now on."""
        ...

    def paired_with(self, key: bytes) -> None:
        """Pairing is over: only ``key`` is admitted from now on."""
        ...

    async def drop_connections(self) -> None:
        """Close every connection (a pinned guest reconnects by itself)."""
        ...


class GuestSide(Endpoint, Protocol):
    """The guest's endpoint, connecting to the host at ``host``:``port`` whose
    connection key is ``server_key``, and again after every drop."""

    role: Literal["guest"]
    host: str
    server_key: bytes
    #: A connection got through at least once.
    ever_connected: bool
    #: The latest attempts were refused: nothing listens at that address yet.
    refusing: bool

    async def start(self) -> None:
        """Start connecting (and reconnecting)."""
        ...
