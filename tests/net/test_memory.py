"""The testing kit's network in memory and its fake clock (ginp2p.testing): they must
behave as the ZeroMQ endpoints do where a session can tell (tests/net/test_net.py
shows the real ones), and cost no time."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from ginp2p.files.identity import Identity, load_or_create_identity
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
from ginp2p.proto.frames import NET_VERSION, ByeFrame, EntryFrame, HaveFrame, PairFrame
from ginp2p.testing.clock import FakeClock
from ginp2p.testing.memory import MemoryGuest, MemoryHost, MemoryNetwork

HAVE = HaveFrame(NET_VERSION, 0, 0, True)


def _ids(tmp_path: Path, names: str) -> list[Identity]:
    return [load_or_create_identity(tmp_path / n) for n in names]


async def _next(ep: MemoryHost | MemoryGuest, kind: type[NetEvent]) -> NetEvent:
    while True:
        ev = await ep.recv()
        if isinstance(ev, kind):
            return ev


def test_the_fake_clock_jumps_to_the_next_timer_when_all_wait() -> None:
    clock = FakeClock()
    began = time.monotonic()

    async def main() -> tuple[float, float]:
        loop = asyncio.get_running_loop()
        await asyncio.sleep(3600)
        first = loop.time()
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(asyncio.Event().wait(), 60)
        return first, loop.time()

    assert clock.run(main()) == (3600.0, 3660.0)
    assert time.monotonic() - began < 30, "an hour and a minute of waiting took no time"


def test_a_jump_is_time_a_frozen_process_lost() -> None:
    clock = FakeClock(start=100.0)
    wall = clock.wall()
    clock.jump(10)
    assert clock.time() == 110.0
    assert clock.wall() - wall >= 10
    with pytest.raises(ValueError):
        clock.jump(-1)


def test_a_host_admits_its_pinned_guest_and_refuses_a_stranger(tmp_path: Path) -> None:
    h, g, x = _ids(tmp_path, "hgx")
    net = MemoryNetwork()

    async def main() -> None:
        host = net.host(h, pinned={g.curve_public_key})
        port = await host.start()
        friend = net.guest(g, h.curve_public_key, "memory", port)
        await friend.start()
        assert await _next(friend, LinkUp) == LinkUp(h.curve_public_key)
        assert await friend.send(HAVE)
        assert await host.recv() == LinkUp(g.curve_public_key)  # on its first frame
        assert await host.recv() == Received(HAVE, g.curve_public_key)
        assert await host.send(ByeFrame("\x1b[2Jbye"))
        assert await friend.recv() == Received(ByeFrame("\ufffd[2Jbye"), h.curve_public_key)

        stranger = net.guest(x, h.curve_public_key, "memory", port)
        await stranger.start()
        refused = await _next(stranger, Rejected)
        assert isinstance(refused, Rejected) and refused.auth
        assert await _next(host, Rejected) == Rejected(x.curve_public_key, REFUSED_STRANGER)
        await stranger.close()

        # while pairing, an unknown key connects but only its `pair` frames pass
        host.pairing = True
        for n in (1, 2):
            stranger = net.guest(x, h.curve_public_key, "memory", port)
            await stranger.start()
            await _next(stranger, LinkUp)
            await stranger.send(EntryFrame(b"sneaky"))
            assert await _next(host, BadFrame) == BadFrame(x.curve_public_key, NOT_PAIRED_YET, n)
            await stranger.send(PairFrame(b"hello"))
            assert await _next(host, Received) == Received(PairFrame(b"hello"), x.curve_public_key)
            if n == 1:
                await stranger.close()
        assert await host.send(HAVE, to=x.curve_public_key)
        host.paired_with(g.curve_public_key)
        assert not await host.send(HAVE, to=x.curve_public_key), "its route is forgotten"
        for ep in (stranger, friend, host):
            await ep.close()

    FakeClock().run(main())


def test_nothing_listening_is_refused_until_a_host_comes(tmp_path: Path) -> None:
    h, g = _ids(tmp_path, "hg")
    net = MemoryNetwork()

    async def main() -> None:
        guest = net.guest(g, h.curve_public_key, "memory", 40123)
        await guest.start()
        first = await _next(guest, ConnectRefused)
        later = await _next(guest, ConnectRefused)
        assert isinstance(first, ConnectRefused) and isinstance(later, ConnectRefused)
        assert first.for_s == 0 and later.for_s > 0 and guest.refusing
        host = net.host(h, port=40123, pinned={g.curve_public_key})
        await host.start()
        await _next(guest, LinkUp)
        assert guest.ever_connected and not guest.refusing
        with pytest.raises(PortInUse):
            await net.host(g, port=40123).start()
        other = net.host(g, port=40123, any_port_if_taken=True)
        assert await other.start() != 40123 and other.port_taken == 40123
        for ep in (guest, host, other):
            await ep.close()

    FakeClock().run(main())


def test_a_cut_breaks_both_ends_and_the_guest_comes_back(tmp_path: Path) -> None:
    h, g = _ids(tmp_path, "hg")
    net = MemoryNetwork(latency=0.01)

    async def main() -> None:
        host = net.host(h, pinned={g.curve_public_key})
        guest = net.guest(g, h.curve_public_key, "memory", await host.start())
        await guest.start()
        await _next(guest, LinkUp)
        await guest.send(HAVE)
        await _next(host, Received)
        net.cut()
        assert await _next(guest, LinkDown) == LinkDown(h.curve_public_key)
        assert await _next(host, LinkDown) == LinkDown(g.curve_public_key)
        await _next(guest, LinkUp)  # by itself
        net.drop_next()
        await guest.send(HaveFrame(NET_VERSION, 1, 0, False))  # lost
        await guest.send(HaveFrame(NET_VERSION, 2, 0, False))
        assert await _next(host, Received) == Received(
            HaveFrame(NET_VERSION, 2, 0, False), g.curve_public_key
        )
        assert net.lost == 1
        net.partition()
        await _next(guest, LinkDown)
        assert not await guest.send(HAVE), "no connection: nothing goes"
        await asyncio.sleep(30)
        assert not guest.connected, "a partition lets no connection through"
        net.heal()
        await _next(guest, LinkUp)
        await host.close()
        await _next(guest, LinkDown)
        await _next(guest, ConnectRefused)  # nothing listens there now
        await guest.close()

    FakeClock().run(main())
