"""net.py in one process: frames, and the endpoints' admission (CURVE + ZAP)."""

from __future__ import annotations

import asyncio
import contextlib
import re
import socket
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import msgpack
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ginp2p.files.identity import Identity, load_or_create_identity
from ginp2p.net.endpoint import BadFrame, ConnectRefused, LinkUp, PortInUse, Received, Rejected
from ginp2p.net.transport import MAX_BACKLOG, GuestEndpoint, HostEndpoint
from ginp2p.proto.frames import (
    NET_VERSION,
    ByeFrame,
    EntryFrame,
    FrameError,
    HaveFrame,
    PairFrame,
    decode_frame,
    encode_frame,
)
from tests.net import next_event
from tests.processes import GUARD, until

FRAMES = [
    EntryFrame(b"\x92\xc4\x01a\xc4\x01b"), HaveFrame(NET_VERSION, 3, 7, True),
    HaveFrame(NET_VERSION, 0, 0, False), PairFrame(b"x" * 100), ByeFrame("the end"),
]  # fmt: skip


@pytest.mark.parametrize("frame", FRAMES)
def test_frames_round_trip(frame: object) -> None:
    assert decode_frame(encode_frame(frame)) == frame  # type: ignore[arg-type]


def test_another_version_decodes_to_its_version_alone() -> None:
    parts = [msgpack.packb(["have", NET_VERSION + 1, "whatever", None])]
    assert decode_frame(parts) == HaveFrame(NET_VERSION + 1, 0, 0, False)


@pytest.mark.parametrize("parts", [
    [], [b"\xc1"], [msgpack.packb({"a": 1})], [msgpack.packb(["entry"])],
    [msgpack.packb(["entry"]), b""], [msgpack.packb(["have", NET_VERSION, -1, 0, False])],
    [msgpack.packb(["bye", "x" * 201])], [msgpack.packb(["nope"])],
    [msgpack.packb(["pair"]), b"a", b"b"],
])  # fmt: skip
def test_bad_frames_raise_frame_error(parts: list[bytes]) -> None:
    with pytest.raises(FrameError):
        decode_frame(parts)


@given(st.lists(st.binary(max_size=300), max_size=4))
def test_any_bytes_decode_or_raise_frame_error(parts: list[bytes]) -> None:
    with contextlib.suppress(FrameError):
        decode_frame(parts)


@contextlib.asynccontextmanager
async def _host_and_friend(
    h: Identity, g: Identity
) -> AsyncIterator[tuple[HostEndpoint, GuestEndpoint]]:
    """A host on loopback that pins ``g``, and ``g`` connected to it; both closed after."""
    host = HostEndpoint(h.curve_public_key, h.curve_secret_key, bind="127.0.0.1",
                        pinned=[g.curve_public_key])  # fmt: skip
    friend = GuestEndpoint(g.curve_public_key, g.curve_secret_key, h.curve_public_key,
                           "127.0.0.1", await host.start())  # fmt: skip
    try:
        await friend.start()
        await next_event(friend, LinkUp)
        yield host, friend
    finally:
        for ep in (friend, host):
            await ep.close()


async def _heard_again(friend: GuestEndpoint, host: HostEndpoint) -> object:
    """What the host receives from the friend once it is back after the host dropped
    every connection (a send into the dying connection may be lost: resend)."""
    for _ in range(200):
        await friend.send(HaveFrame(NET_VERSION, 1, 1, False))
        with contextlib.suppress(TimeoutError):
            return await next_event(host, Received, timeout=0.1)
    raise AssertionError("the friend was not heard again")


def test_zap_admits_pinned_keys_and_refuses_others(tmp_path) -> None:  # type: ignore[no-untyped-def]
    h, g, x = (load_or_create_identity(tmp_path / n) for n in "hgx")

    def new_stranger(port: int) -> GuestEndpoint:
        return GuestEndpoint(x.curve_public_key, x.curve_secret_key, h.curve_public_key,
                             "127.0.0.1", port)  # fmt: skip

    async def main() -> None:
        async with _host_and_friend(h, g) as (host, friend):
            await friend.send(HaveFrame(NET_VERSION, 0, 0, True))
            got = await next_event(host, Received)
            assert got == Received(HaveFrame(NET_VERSION, 0, 0, True), g.curve_public_key)
            stranger = new_stranger(host.port)
            try:
                await stranger.start()
                refused = await next_event(stranger, Rejected)
                assert refused.auth  # type: ignore[attr-defined]
                # while pairing, an unknown key connects but only its `pair` frames pass
                host.pairing = True
                await stranger.close()
                stranger = new_stranger(host.port)
                await stranger.start()
                await next_event(stranger, LinkUp)
                await stranger.send(EntryFrame(b"sneaky"))
                bad = await next_event(host, BadFrame)
                assert bad.peer == x.curve_public_key  # type: ignore[attr-defined]
                await stranger.send(PairFrame(b"hello"))
                got = await next_event(host, Received)
                assert got == Received(PairFrame(b"hello"), x.curve_public_key)
                # pairing over (with the friend): the stranger's route is forgotten
                have = HaveFrame(NET_VERSION, 0, 0, True)
                assert await host.send(have, to=x.curve_public_key)
                host.paired_with(g.curve_public_key)
                assert not host.pairing and host.admits(g.curve_public_key)
                assert not await host.send(have, to=x.curve_public_key)
                assert await host.send(have, to=g.curve_public_key)
                assert await next_event(friend, Received) == Received(have, h.curve_public_key)
                host.pairing = True
                # a failed pairing drops every connection; the pinned friend comes back
                await host.drop_connections()
                await next_event(friend, LinkUp)  # it reconnected by itself
                got = await _heard_again(friend, host)
                assert got == Received(HaveFrame(NET_VERSION, 1, 1, False), g.curve_public_key)
            finally:
                await stranger.close()

    asyncio.run(main())


def test_a_dropped_frame_says_which_connection_of_its_key_it_came_on(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The host tells an unknown key to pair once per connection: the dropped frames of
    one connection carry one number, those of the same key's next connection the next
    (a ROUTER sees one routing id for both)."""
    h, x = (load_or_create_identity(tmp_path / n) for n in "hx")

    async def main() -> list[int]:
        host = HostEndpoint(h.curve_public_key, h.curve_secret_key, bind="127.0.0.1",
                            pairing=True)  # fmt: skip
        port = await host.start()
        seen: list[int] = []
        try:
            for _ in range(2):
                stranger = GuestEndpoint(x.curve_public_key, x.curve_secret_key,
                                         h.curve_public_key, "127.0.0.1", port)  # fmt: skip
                try:
                    await stranger.start()
                    await next_event(stranger, LinkUp)
                    for frame in (HaveFrame(NET_VERSION, 0, 0, True), EntryFrame(b"sneaky")):
                        await stranger.send(frame)
                        bad = await next_event(host, BadFrame)
                        assert bad.peer == x.curve_public_key  # type: ignore[attr-defined]
                        seen.append(bad.connection)  # type: ignore[attr-defined]
                finally:
                    await stranger.close()
        finally:
            await host.close()
        return seen

    assert asyncio.run(main()) == [1, 1, 2, 2]


def test_a_flood_waits_in_the_network_not_in_memory(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A paired peer sends frames far faster than the game takes them: at most
    MAX_BACKLOG wait in the endpoint, and reading goes on as the game takes them."""
    h, g = (load_or_create_identity(tmp_path / n) for n in "hg")

    async def main() -> None:
        async with _host_and_friend(h, g) as (host, flood):
            for n in range(5000):
                await flood.send(HaveFrame(NET_VERSION, n, 0, False))
            # nobody takes the host's events meanwhile: it reads until its backlog is full
            await until(lambda: host.events.qsize() >= MAX_BACKLOG, "full backlog")
            assert host.events.qsize() <= MAX_BACKLOG
            got = 0
            while got <= 2 * MAX_BACKLOG:  # reading goes on once the game takes them
                ev = await asyncio.wait_for(host.recv(), GUARD)
                got += isinstance(ev, Received)

    asyncio.run(main())


def test_memory_that_balloons_drops_every_connection(
        tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]  # fmt: skip
    """A message of endless parts grows ZeroMQ's buffers, not ours: when the process
    outgrows its start by MAX_GROWTH the host drops every connection (which frees them)
    and says so; the paired guest comes back by itself."""
    from ginp2p.net import transport as net

    h, g = (load_or_create_identity(tmp_path / n) for n in "hg")
    size = [100 << 20]
    reads = [0]  # how often the host has looked at its size

    def rss() -> int:
        reads[0] += 1
        return size[0]

    monkeypatch.setattr(net, "_rss", rss)

    async def main() -> None:
        async with _host_and_friend(h, g) as (host, friend):
            size[0] += net.MAX_GROWTH  # not yet past the limit
            looked = reads[0]  # twice more: the first look has done all it would do
            await until(lambda: reads[0] >= looked + 2, "look at the host's size")
            assert host.events.empty()
            size[0] += 1 << 20
            dropped = await next_event(host, Rejected)
            assert "every connection was dropped: memory grew by 257 MB" in \
                dropped.reason  # type: ignore[attr-defined]  # fmt: skip
            size[0] = 100 << 20  # freed with the connections
            got = await _heard_again(friend, host)  # the friend is back
            assert got == Received(HaveFrame(NET_VERSION, 1, 1, False), g.curve_public_key)

    asyncio.run(main())


def test_a_port_in_use_is_port_in_use(tmp_path) -> None:  # type: ignore[no-untyped-def]
    h = load_or_create_identity(tmp_path)

    async def main() -> None:
        a = HostEndpoint(h.curve_public_key, h.curve_secret_key, bind="127.0.0.1")
        port = await a.start()
        b = HostEndpoint(h.curve_public_key, h.curve_secret_key, bind="127.0.0.1", port=port)
        try:
            with pytest.raises(PortInUse, match="is in use"):
                await b.start()
        finally:
            await a.close()

    asyncio.run(main())


def test_refused_connections_are_reported_and_a_late_host_still_gets_its_guest(
        tmp_path: Path, free_port: Callable[[], int]) -> None:  # fmt: skip
    """Nothing listens at the guest's port: ZeroMQ retries in silence, the monitor says
    the connections are refused; a host that starts a moment later gets its guest."""
    h, g = (load_or_create_identity(tmp_path / n) for n in "hg")

    async def main() -> None:
        port = free_port()
        guest = GuestEndpoint(g.curve_public_key, g.curve_secret_key, h.curve_public_key,
                              "127.0.0.1", port)  # fmt: skip
        host = HostEndpoint(h.curve_public_key, h.curve_secret_key, bind="127.0.0.1",
                            port=port, pinned=[g.curve_public_key])  # fmt: skip
        try:
            await guest.start()
            first = await next_event(guest, ConnectRefused)
            later = await next_event(guest, ConnectRefused)
            assert first.for_s == 0 and later.for_s > 0
            assert guest.refusing and not guest.ever_connected
            await host.start()
            await next_event(guest, LinkUp)
            assert not guest.refusing
        finally:
            for ep in (guest, host):
                await ep.close()

    asyncio.run(main())


@pytest.mark.usefixtures("ginp2p_home")
@pytest.mark.parametrize("listening", [False, True])
def test_a_guest_is_told_soon_when_nothing_listens(tmp_path: Path, listening: bool) -> None:
    """Refused connections are told after about a second while the guest waits on, and
    its last words say they were refused; a port that takes the connection and never
    answers (as behind a firewall that drops them) stays 'no answer'."""
    from ginp2p.app.pregame import NoAnswer, pair_with_host

    h, g = (load_or_create_identity(tmp_path / n) for n in "hg")
    said: list[tuple[float, str]] = []
    gave_up: list[float] = []

    async def main() -> None:
        with socket.socket() as silent:
            silent.bind(("127.0.0.1", 0))
            if listening:
                silent.listen()
            port = silent.getsockname()[1]
            guest = GuestEndpoint(g.curve_public_key, g.curve_secret_key, h.curve_public_key,
                                  "127.0.0.1", port)  # fmt: skip
            loop = asyncio.get_running_loop()
            start = loop.time()
            try:
                await guest.start()
                with pytest.raises(NoAnswer) as err:
                    await pair_with_host(
                        guest,
                        g,
                        h.public_key,
                        None,
                        lambda t: said.append((loop.time() - start, t)),
                        2.5,
                    )
                gave_up.append(loop.time() - start)
            finally:
                await guest.close()
        if listening:
            assert said == []
            assert "no answer from the host at 127.0.0.1" in str(err.value)
        else:
            ((when, line),) = said
            assert 1.0 <= when < gave_up[0]  # told after a second, while it still waited
            assert re.fullmatch(f"nothing is listening at 127.0.0.1:{port} yet \\(is the host "
                                r"running\? is the port right\?\); still trying for [0-2] s",
                                line), line  # fmt: skip
            assert str(err.value).startswith(
                f"nothing was listening at 127.0.0.1:{port} "
                "within 2.5 s (the connections were refused)"
            )

    asyncio.run(main())


def test_hosts_one_after_another_in_one_loop_each_admit_their_guest(tmp_path: Path) -> None:
    """A host closed and the next started in the same event loop (as after a guest who
    declined): the closed one's ZAP handler lets go of its socket before it closes, so
    the next one's, which may get the same descriptor, still answers (no handshake ended)."""
    h, g = (load_or_create_identity(tmp_path / n) for n in "hg")

    async def main() -> None:
        for _ in range(3):
            async with _host_and_friend(h, g):
                pass

    asyncio.run(main())
