"""What the host bounds against strangers' connections (real ZeroMQ on 127.0.0.1):
a greeting left unfinished, and more connections than the host keeps open."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path

import pytest

from ginp2p.files.identity import load_or_create_identity
from ginp2p.net import transport as net
from ginp2p.net.endpoint import LinkUp, Received
from ginp2p.net.resources import MAX_STRANGERS
from ginp2p.net.transport import MAX_CONNECTIONS, GuestEndpoint, HostEndpoint
from ginp2p.proto.frames import NET_VERSION, HaveFrame
from tests.net import next_event
from tests.processes import GUARD, until

#: The first 10 bytes of a ZMTP 3 greeting (signature and major version): a peer that
#: stops there has begun to greet and never finishes.
HALF_GREETING = b"\xff" + b"\x00" * 8 + b"\x7f"


def _closed(conn: socket.socket) -> bool:
    """The host has closed this connection (what it sent so far is read and dropped)."""
    try:
        while data := conn.recv(4096, socket.MSG_DONTWAIT):
            del data
        return True  # end of stream
    except BlockingIOError:
        return False
    except OSError:  # reset
        return True


def test_a_greeting_left_half_way_is_closed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A client that sends half a greeting and stalls holds a file of the host's only
    until HANDSHAKE_IVL runs out (ZeroMQ's default kept it 30 s)."""
    monkeypatch.setattr(net, "HANDSHAKE_IVL_MS", 300)
    h = load_or_create_identity(tmp_path / "h")

    async def main() -> None:
        host = HostEndpoint(h.curve_public_key, h.curve_secret_key, bind="127.0.0.1",
                            pairing=True)  # fmt: skip
        port = await host.start()
        try:
            with socket.create_connection(("127.0.0.1", port)) as stalled:
                stalled.sendall(HALF_GREETING)
                # a guard well under ZeroMQ's 30 s: it decides, if the interval is not set
                await until(lambda: _closed(stalled), "half greeting closed", guard=10)
        finally:
            await host.close()

    asyncio.run(main())


def test_idle_connections_past_the_bound_close_the_oldest_and_the_friend_gets_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """200 idle TCP connections (no greeting): the host keeps MAX_CONNECTIONS open and
    closes the oldest; the friend who comes after them gets in, and 100 more idle ones
    after it do not cut the friend off."""
    monkeypatch.setattr(net, "HANDSHAKE_IVL_MS", 60_000)  # only the bound closes them
    h, g = (load_or_create_identity(tmp_path / n) for n in "hg")

    async def main() -> None:
        host = HostEndpoint(h.curve_public_key, h.curve_secret_key, bind="127.0.0.1",
                            pinned=[g.curve_public_key])  # fmt: skip
        port = await host.start()
        friend = GuestEndpoint(g.curve_public_key, g.curve_secret_key, h.curve_public_key,
                               "127.0.0.1", port)  # fmt: skip
        idle: list[socket.socket] = []

        def open_now() -> int:
            return sum(not _closed(c) for c in idle)

        try:
            idle += [socket.create_connection(("127.0.0.1", port)) for _ in range(200)]
            await until(lambda: open_now() <= MAX_CONNECTIONS, "idle ones closed", guard=20)
            assert open_now() >= MAX_CONNECTIONS - 1, "it kept the newest"
            await friend.start()
            await until(lambda: friend.connected, "friend connected", guard=GUARD)
            have = HaveFrame(NET_VERSION, 0, 0, True)
            assert await friend.send(have)
            # (the closed ones were told as greetings that broke off)
            assert await next_event(host, LinkUp) == LinkUp(g.curve_public_key)
            assert await next_event(host, Received) == Received(have, g.curve_public_key)
            idle += [socket.create_connection(("127.0.0.1", port)) for _ in range(100)]
            await until(lambda: open_now() <= MAX_CONNECTIONS - 1, "more closed", guard=20)
            assert friend.connected and host.connected
            assert await host.send(have)
            got = await next_event(friend, Received)
            assert got == Received(have, h.curve_public_key)
        finally:
            for c in idle:
                c.close()
            for ep in (friend, host):
                await ep.close()

    asyncio.run(main())


def test_a_flood_of_idle_connections_leaves_a_guest_that_is_pairing_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While the host pairs there is no partner to keep: a stranger's 100 idle
    connections closed the oldest, the guest's own, mid-pairing (its join failed as
    "the host cut the connection while pairing"). Silent connections go first now, and
    one a pairing request came on last."""
    from ginp2p.net.endpoint import LinkDown
    from ginp2p.proto.frames import PairFrame

    monkeypatch.setattr(net, "HANDSHAKE_IVL_MS", 60_000)  # only the bound closes them
    h, g = (load_or_create_identity(tmp_path / n) for n in "hg")

    async def main() -> None:
        host = HostEndpoint(h.curve_public_key, h.curve_secret_key, bind="127.0.0.1",
                            pairing=True)  # fmt: skip
        port = await host.start()
        guest = GuestEndpoint(g.curve_public_key, g.curve_secret_key, h.curve_public_key,
                              "127.0.0.1", port)  # fmt: skip
        idle: list[socket.socket] = []
        try:
            await guest.start()
            await until(lambda: guest.connected, "guest connected")
            assert await guest.send(PairFrame(b"request"))
            assert await next_event(host, Received) == Received(
                PairFrame(b"request"), g.curve_public_key
            )
            idle += [socket.create_connection(("127.0.0.1", port)) for _ in range(100)]
            await until(lambda: host.shed >= 100 + 1 - MAX_CONNECTIONS, "idle ones shed", guard=20)
            assert await host.send(PairFrame(b"answer"), to=g.curve_public_key)
            assert await next_event(guest, Received) == Received(
                PairFrame(b"answer"), h.curve_public_key
            )
            downs = []
            while not guest.events.empty():
                downs += [ev for ev in [guest.events.get_nowait()] if isinstance(ev, LinkDown)]
            assert downs == [], "the guest's connection was never cut"
        finally:
            for c in idle:
                c.close()
            for ep in (guest, host):
                await ep.close()

    asyncio.run(main())


def test_a_strangers_pairing_requests_keep_no_connection_from_the_friend(
    tmp_path: Path,
) -> None:
    """While the host pairs, MAX_CONNECTIONS connections of throwaway keys each sent one
    junk pairing request: kept as "pairing", they left the paired friend's new connection
    (silent when accepted) the one closed, again and again. The connection just accepted
    is never the one closed, and a stranger's pairing requests do not keep its own."""
    import nacl.public
    import zmq
    import zmq.asyncio
    from zmq.utils import z85

    from ginp2p.proto.frames import PairFrame, encode_frame

    h, g = (load_or_create_identity(tmp_path / n) for n in "hg")

    async def main() -> None:
        host = HostEndpoint(h.curve_public_key, h.curve_secret_key, bind="127.0.0.1",
                            pinned=[g.curve_public_key], pairing=True)  # fmt: skip
        port = await host.start()
        friend = GuestEndpoint(g.curve_public_key, g.curve_secret_key, h.curve_public_key,
                               "127.0.0.1", port)  # fmt: skip
        ctx = zmq.asyncio.Context()
        flood: list[zmq.asyncio.Socket] = []
        try:
            for _ in range(MAX_CONNECTIONS):
                key = nacl.public.PrivateKey.generate()
                s = ctx.socket(zmq.DEALER)
                s.linger = 0
                s.curve_publickey = z85.encode(bytes(key.public_key))
                s.curve_secretkey = z85.encode(bytes(key))
                s.curve_serverkey = z85.encode(h.curve_public_key)
                s.connect(f"tcp://127.0.0.1:{port}")
                await s.send_multipart(encode_frame(PairFrame(b"junk")))
                flood.append(s)
            await until(lambda: len(host._pairing_fds) >= MAX_CONNECTIONS - 1, "flood heard",
                        guard=20)  # fmt: skip
            await friend.start()
            await until(lambda: friend.connected, "friend connected")
            have = HaveFrame(NET_VERSION, 0, 0, True)
            assert await friend.send(have)
            while (got := await next_event(host, Received)).peer != g.curve_public_key:
                assert isinstance(got.frame, PairFrame)  # (the flood's, passed over)
            assert got == Received(have, g.curve_public_key)
        finally:
            for s in flood:
                s.close(linger=0)
            ctx.term()
            for ep in (friend, host):
                await ep.close()

    asyncio.run(main())


def test_the_paired_players_flood_of_connections_leaves_its_game_connection(
    tmp_path: Path,
) -> None:
    """The paired player opens 100 more connections of its key, each with its own
    routing id: the host keeps MAX_CONNECTIONS open, the one the game is heard on among
    them, and remembers one key, not 100."""
    import zmq
    import zmq.asyncio
    from zmq.utils import z85

    h, g = (load_or_create_identity(tmp_path / n) for n in "hg")

    async def main() -> None:
        host = HostEndpoint(h.curve_public_key, h.curve_secret_key, bind="127.0.0.1",
                            pinned=[g.curve_public_key])  # fmt: skip
        port = await host.start()
        friend = GuestEndpoint(g.curve_public_key, g.curve_secret_key, h.curve_public_key,
                               "127.0.0.1", port)  # fmt: skip
        ctx = zmq.asyncio.Context()
        flood: list[zmq.asyncio.Socket] = []
        try:
            await friend.start()
            have = HaveFrame(NET_VERSION, 0, 0, True)
            await until(lambda: friend.connected, "friend connected")
            assert await friend.send(have)
            await next_event(host, Received)
            for n in range(100):
                s = ctx.socket(zmq.DEALER)
                s.linger = 0
                s.curve_publickey = z85.encode(g.curve_public_key)
                s.curve_secretkey = z85.encode(g.curve_secret_key)
                s.curve_serverkey = z85.encode(h.curve_public_key)
                s.routing_id = b"flood%d" % n
                s.connect(f"tcp://127.0.0.1:{port}")
                flood.append(s)
            await until(lambda: host.shed >= 100 - MAX_CONNECTIONS, "connections shed", guard=20)
            assert len(host._open) <= MAX_CONNECTIONS
            assert friend.connected and host.connected
            assert await host.send(have)
            assert await next_event(friend, Received) == Received(have, h.curve_public_key)
            assert list(host._routes) == [g.curve_public_key]
        finally:
            for s in flood:
                s.close(linger=0)
            ctx.term()
            for ep in (friend, host):
                await ep.close()

    asyncio.run(main())


def test_the_host_remembers_a_bounded_number_of_strangers(tmp_path: Path) -> None:
    """Keys cost nothing to make: while the host pairs, each one that connects is
    counted, but only the newest MAX_STRANGERS are remembered (its pinned keys always)."""
    import os

    h, g = (load_or_create_identity(tmp_path / n) for n in "hg")
    host = HostEndpoint(h.curve_public_key, h.curve_secret_key, pinned=[g.curve_public_key],
                        pairing=True)  # fmt: skip
    host.admitted(g.curve_public_key)
    keys = [os.urandom(32) for _ in range(3 * MAX_STRANGERS)]
    for key in keys:
        host.admitted(key)
    assert set(host._connections) == {g.curve_public_key, *keys[-MAX_STRANGERS:]}
