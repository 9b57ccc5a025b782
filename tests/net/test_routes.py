"""The host's routes belong to authenticated keys (real ZeroMQ on 127.0.0.1).

A ROUTER sends by routing id, which the connecting peer chooses, and with
ROUTER_HANDOVER the newest connection with an id takes it. While the host pairs it
admits any key, so a stranger could connect with the guest's id and be sent the
guest's frames, had that id been one a stranger can know.
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

import zmq
import zmq.asyncio
from zmq.utils import z85

from ginp2p.files.identity import Identity, load_or_create_identity
from ginp2p.net.endpoint import LinkDown, LinkUp, Received
from ginp2p.net.transport import GuestEndpoint, HostEndpoint
from ginp2p.proto.frames import NET_VERSION, HaveFrame, PairFrame, decode_frame, encode_frame
from tests.net import next_event
from tests.processes import GUARD, until


def _stranger(ctx: zmq.asyncio.Context, x: Identity, h: Identity, routing_id: bytes,
              port: int) -> zmq.asyncio.Socket:  # fmt: skip
    """A DEALER with its own CURVE key that claims ``routing_id``, connected to the host."""
    s = ctx.socket(zmq.DEALER)
    s.linger = 0
    s.curve_publickey = z85.encode(x.curve_public_key)
    s.curve_secretkey = z85.encode(x.curve_secret_key)
    s.curve_serverkey = z85.encode(h.curve_public_key)
    s.routing_id = routing_id
    s.connect(f"tcp://127.0.0.1:{port}")
    return s


def test_a_stranger_with_the_guests_key_for_routing_id_gets_none_of_its_frames(
    tmp_path: Path,
) -> None:
    """A stranger admitted while the host pairs connects with the routing id it can
    know of the guest (its CURVE key, public): the host's next frame for the guest
    still reaches the guest, the guest's connection stays up, and the stranger's own
    frames count as the stranger's."""
    h, g, x = (load_or_create_identity(tmp_path / n) for n in "hgx")

    async def main() -> None:
        host = HostEndpoint(h.curve_public_key, h.curve_secret_key, bind="127.0.0.1",
                            pairing=True)  # fmt: skip
        port = await host.start()
        guest = GuestEndpoint(g.curve_public_key, g.curve_secret_key, h.curve_public_key,
                              "127.0.0.1", port)  # fmt: skip
        ctx = zmq.asyncio.Context()
        stranger = None
        try:
            await guest.start()
            await next_event(guest, LinkUp)
            await guest.send(PairFrame(b"guest asks"))
            assert await next_event(host, Received) == Received(
                PairFrame(b"guest asks"), g.curve_public_key
            )
            # the stranger connects as the guest's routing id, and is heard (so admitted,
            # its handshake over, its connection the ROUTER's newest with that id)
            stranger = _stranger(ctx, x, h, z85.encode(g.curve_public_key), port)
            await stranger.send_multipart(encode_frame(PairFrame(b"stranger asks")))
            assert await next_event(host, Received) == Received(
                PairFrame(b"stranger asks"), x.curve_public_key
            ), "the stranger's frame counts as its own key's"
            await stranger.send_multipart(encode_frame(PairFrame(b"as the guest?")))
            heard = await next_event(host, Received)
            assert heard == Received(PairFrame(b"as the guest?"), x.curve_public_key)

            assert await host.send(PairFrame(b"for the guest"), to=g.curve_public_key)
            got_guest = asyncio.ensure_future(next_event(guest, Received))
            got_stranger = asyncio.ensure_future(stranger.recv_multipart())
            done, _ = await asyncio.wait(
                {got_guest, got_stranger}, timeout=GUARD, return_when=asyncio.FIRST_COMPLETED
            )
            if got_stranger in done:
                frame = decode_frame(got_stranger.result())
                raise AssertionError(f"the stranger got the guest's frame: {frame}")
            assert got_guest in done, "nobody got the host's frame"
            assert got_guest.result() == Received(PairFrame(b"for the guest"), h.curve_public_key)
            got_stranger.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await got_stranger
            left = [guest.events.get_nowait() for _ in range(guest.events.qsize())]
            assert not [ev for ev in left if isinstance(ev, LinkDown)], left
        finally:
            if stranger is not None:
                stranger.close(linger=0)
            ctx.term()
            for ep in (guest, host):
                await ep.close()

    asyncio.run(main())


def test_a_frame_of_another_key_on_a_keys_route_takes_that_route_away(tmp_path: Path) -> None:
    """Should a stranger ever hold the guest's routing id (an old guest whose id was its
    key, or one that leaked), the first frame it sends on it tells the host, which then
    sends the guest nothing on that id until the guest is heard on a connection again."""
    h, g, x = (load_or_create_identity(tmp_path / n) for n in "hgx")

    async def main() -> None:
        host = HostEndpoint(h.curve_public_key, h.curve_secret_key, bind="127.0.0.1",
                            pairing=True)  # fmt: skip
        port = await host.start()
        ctx = zmq.asyncio.Context()
        guest = _stranger(ctx, g, h, b"a-known-id", port)  # a guest with a guessable id
        stranger = None
        try:
            await guest.send_multipart(encode_frame(PairFrame(b"guest asks")))
            await next_event(host, Received)
            stranger = _stranger(ctx, x, h, b"a-known-id", port)
            await stranger.send_multipart(encode_frame(PairFrame(b"stranger asks")))
            assert await next_event(host, Received) == Received(
                PairFrame(b"stranger asks"), x.curve_public_key
            )
            assert not await host.send(PairFrame(b"for the guest"), to=g.curve_public_key), (
                "the guest's route was sent on although another key holds its id"
            )
            assert await host.send(PairFrame(b"for the stranger"), to=x.curve_public_key)
            assert decode_frame(await stranger.recv_multipart()) == PairFrame(b"for the stranger")
        finally:
            for s in (guest, stranger):
                if s is not None:
                    s.close(linger=0)
            ctx.term()
            await host.close()

    asyncio.run(main())


def test_once_paired_with_its_guest_the_host_forgets_the_other_paired_player(
    tmp_path: Path,
) -> None:
    """While pairing, every paired key is admitted: Mallory, heard last, stayed the
    host's partner (its sends went to her) and her connection's end was told as the
    game's link going down. Once Bob is the guest, nothing of hers is kept."""
    h, bob, mallory = (load_or_create_identity(tmp_path / n) for n in ("h", "b", "m"))

    async def main() -> None:
        host = HostEndpoint(h.curve_public_key, h.curve_secret_key, bind="127.0.0.1",
                            pinned=[bob.curve_public_key, mallory.curve_public_key],
                            pairing=True)  # fmt: skip
        port = await host.start()
        guests = [GuestEndpoint(x.curve_public_key, x.curve_secret_key, h.curve_public_key,
                                "127.0.0.1", port) for x in (bob, mallory)]  # fmt: skip
        have = HaveFrame(NET_VERSION, 0, 0, True)
        try:
            for g, x in zip(guests, (bob, mallory), strict=True):
                await g.start()
                await until(lambda g=g: g.connected, "connected")
                assert await g.send(have)
                while (await next_event(host, Received)).peer != x.curve_public_key:
                    pass
            assert host.partner == mallory.curve_public_key  # heard last
            host.paired_with(bob.curve_public_key)
            assert host.partner is None, "not Mallory any more"
            await guests[1].close()
            assert await guests[0].send(have)
            await next_event(host, Received)  # Bob's: he is the partner again
            assert host.partner == bob.curve_public_key
            assert await host.send(have)
            assert await next_event(guests[0], Received) == Received(have, h.curve_public_key)
            left = [host.events.get_nowait() for _ in range(host.events.qsize())]
            assert not [e for e in left if isinstance(e, LinkDown)], left
        finally:
            for ep in (*guests, host):
                await ep.close()

    asyncio.run(main())
