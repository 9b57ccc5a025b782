"""Network benchmark: move latency over loopback ZeroMQ + CURVE, against the raw round trip.

    python scripts/bench_net.py [--moves 1000] [--help-runs 7]

1. **Move latency**: two PeerProtocols (host and guest, computer players) in one
   process, joined by the real HostEndpoint/GuestEndpoint (ROUTER/DEALER, CURVE, ZAP) on
   127.0.0.1, each writing its .ginlog with fsync as a session does (the sender's
   fsync comes before its send, the receiver's before the move counts as applied).
   A sample is the time from a player's ``act()`` to the moment the other peer has
   received, verified,
   stored and folded that entry (its table shows the move). Both peers share this
   process's event loop, so a move is delivered before its sender chooses the next one
   (in two processes the receiver works while the sender thinks). Matches are played
   until ``--moves`` moves were timed (shuffle set-up steps are not timed: no move).
2. **Raw ZeroMQ**: a DEALER→ROUTER echo of 200 bytes with CURVE over the same
   loopback, in the same run: the reference (half of it is one way).
3. **Idle peer RSS**: a ``ginp2p bot --host`` process waiting for its guest.
4. **``ginp2p --help``** start time: median of ``--help-runs`` runs.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import zmq
import zmq.asyncio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ginp2p.files.identity import load_or_create_identity
from ginp2p.files.logfile import LogFile
from ginp2p.game import bot
from ginp2p.game.rules import get_preset
from ginp2p.net.endpoint import LinkUp, Received
from ginp2p.net.transport import GuestEndpoint, HostEndpoint
from ginp2p.proto.entry import GUEST, HOST
from ginp2p.proto.frames import EntryFrame
from ginp2p.proto.outputs import Save, Send
from ginp2p.proto.protocol import PeerProtocol

Carry = Callable[[int, list[Any]], Awaitable[None]]


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, round(p / 100 * (len(xs) - 1)))]


async def move_latency(want: int, tmp: Path) -> tuple[list[float], int]:
    ids = [load_or_create_identity(tmp / n) for n in ("h", "g")]
    host = HostEndpoint(ids[0].curve_public_key, ids[0].curve_secret_key, bind="127.0.0.1",
                        pinned=[ids[1].curve_public_key])  # fmt: skip
    port = await host.start()
    guest = GuestEndpoint(ids[1].curve_public_key, ids[1].curve_secret_key,
                          ids[0].curve_public_key, "127.0.0.1", port)  # fmt: skip
    await guest.start()
    while not isinstance(await guest.recv(), LinkUp):
        pass
    await guest.send(EntryFrame(b"\x00"))  # gives the host its route (dropped as no entry)
    while not isinstance(await host.recv(), Received):
        pass
    eps = (host, guest)
    samples: list[float] = []
    recv_cost.clear()
    sent_at: dict[bytes, float] = {}
    later: list[int] = []
    executor = ThreadPoolExecutor(2)
    games = 0
    rules = get_preset("classic").with_(game_target=500)
    while len(samples) < want:
        games += 1
        logs = [LogFile.open(tmp / f"g{games}-{n}.ginlog") for n in ("h", "g")]
        protos = [
            PeerProtocol(HOST, ids[0].signing_key, os.urandom, name="H", rules=rules,
                         peer_key=ids[1].public_key, executor=executor),
            PeerProtocol(GUEST, ids[1].signing_key, os.urandom, name="G",
                         peer_key=ids[0].public_key, executor=executor),
        ]  # fmt: skip

        async def carry(me: int, outs: list[Any], logs: list[LogFile] = logs) -> None:
            for o in outs:
                if isinstance(o, Save):
                    logs[me].append(o.entry)
                elif isinstance(o, Send):
                    await eps[me].send(EntryFrame(o.entry.wire))

        async def deliver(protos: list[PeerProtocol] = protos, carry: Carry = carry) -> None:
            """Handle one frame from either side."""
            me, item = await asyncio.wait_for(asyncio.shield(_first(host, guest)), 60)
            if isinstance(item, Received) and isinstance(item.frame, EntryFrame):
                wire = item.frame.wire
                r0 = time.perf_counter()
                outs = protos[me].receive(wire, 0.0, auto=False)
                if wire in sent_at:
                    recv_cost.append(time.perf_counter() - r0)
                await carry(me, [o for o in outs if isinstance(o, Save)])
                t0 = sent_at.pop(wire, None)
                if t0 is not None:
                    samples.append(time.perf_counter() - t0)
                await carry(me, [o for o in outs if not isinstance(o, Save)])
                await carry(me, protos[me].advance())  # then the set-up the move made owed

        async def play(me: int, protos: list[PeerProtocol] = protos, carry: Carry = carry) -> None:
            p = protos[me]
            while p.my_turn and not p.finished:
                view = p.view()
                assert view is not None
                action = bot.choose(view, me)
                t0 = time.perf_counter()
                outs = p.act(action, auto=False)  # as a session does: the move goes first
                sent = [o.entry.wire for o in outs if isinstance(o, Send)]
                for wire in sent:
                    sent_at[wire] = t0
                await carry(me, outs)
                # In two processes the receiver takes the move while this player thinks
                # about its next one; here both share one loop, so deliver it first.
                while any(w in sent_at for w in sent):
                    await deliver()
                later.append(me)  # its set-up work runs after the receiver's turn, as
                # it would in a second process (both peers share this one loop here)

        for me in (HOST, GUEST):
            await carry(me, protos[me].start(0.0))
        while not all(p.finished for p in protos) and len(samples) < want:
            for me in (HOST, GUEST):
                await play(me)
            while later:
                who = later.pop(0)
                await carry(who, protos[who].advance())
            if not any(p.my_turn and not p.finished for p in protos):
                await deliver()  # set-up traffic: one frame from either side
        for lf in logs:
            lf.close()
    executor.shutdown()
    await guest.close()
    await host.close()
    return samples, games


_pending: dict[int, asyncio.Task[Any]] = {}
recv_cost: list[float] = []


async def _first(host: HostEndpoint, guest: GuestEndpoint) -> tuple[int, object]:
    """The next event of either endpoint (keeps the other one's wait alive)."""
    for me, ep in ((HOST, host), (GUEST, guest)):
        if me not in _pending:
            _pending[me] = asyncio.ensure_future(ep.recv())
    done, _ = await asyncio.wait(_pending.values(), return_when=asyncio.FIRST_COMPLETED)
    for me, t in list(_pending.items()):
        if t in done:
            del _pending[me]
            return me, t.result()
    raise AssertionError


async def raw_rtt(n: int) -> list[float]:
    ctx = zmq.asyncio.Context()
    spub, ssec = zmq.curve_keypair()
    cpub, csec = zmq.curve_keypair()
    r = ctx.socket(zmq.ROUTER)
    r.curve_server = True
    r.curve_publickey, r.curve_secretkey = spub, ssec
    port = r.bind_to_random_port("tcp://127.0.0.1")
    d = ctx.socket(zmq.DEALER)
    d.curve_serverkey = spub
    d.curve_publickey, d.curve_secretkey = cpub, csec
    d.connect(f"tcp://127.0.0.1:{port}")
    payload = os.urandom(200)

    async def echo() -> None:
        while True:
            parts = await r.recv_multipart()
            await r.send_multipart(parts)

    task = asyncio.ensure_future(echo())
    out = []
    for i in range(n + 200):
        t0 = time.perf_counter()
        await d.send(payload)
        await d.recv()
        if i >= 200:
            out.append(time.perf_counter() - t0)
    task.cancel()
    d.close(0)
    r.close(0)
    ctx.term()
    return out


def idle_rss(tmp: Path) -> float:
    env = dict(os.environ, GINP2P_HOME=str(tmp / "idle"))
    p = subprocess.Popen([sys.executable, "-m", "ginp2p", "bot", "--host", "--port", "0",
                          "--bind", "127.0.0.1", "--no-advertise"], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT)  # fmt: skip
    try:
        assert p.stdout is not None
        while b"pairing code" not in p.stdout.readline():
            pass
        time.sleep(2.0)
        with open(f"/proc/{p.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        return float("nan")
    finally:
        p.terminate()
        p.wait(10)


def help_time(runs: int) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "ginp2p", "--help"], stdout=subprocess.DEVNULL,
                       check=True)  # fmt: skip
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--moves", type=int, default=1000)
    ap.add_argument("--help-runs", type=int, default=7)
    ap.add_argument(
        "--dir",
        help="where the logs go (default: the temp dir); /dev/shm "
        "shows the cost without a disk's fsync",
    )
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(dir=args.dir) as d:
        tmp = Path(d)
        t0 = time.perf_counter()
        samples, games = asyncio.run(move_latency(args.moves, tmp))
        took = time.perf_counter() - t0
        rtt = asyncio.run(raw_rtt(2000))
        rss = idle_rss(tmp)
    ms = 1000
    print(f"move latency, act -> opponent applied ({len(samples)} moves, {games} matches, "
          f"{took:.1f} s): p50 {pct(samples, 50) * ms:.3f} ms, p99 {pct(samples, 99) * ms:.3f} ms, "
          f"max {max(samples) * ms:.3f} ms")  # fmt: skip
    print(
        f"  of which the receiving peer's receive() (verify, store, fold): "
        f"p50 {pct(recv_cost, 50) * ms:.3f} ms, p99 {pct(recv_cost, 99) * ms:.3f} ms"
    )
    print(f"raw ZeroMQ DEALER->ROUTER echo, CURVE, 200 B (2000 round trips): "
          f"p50 {pct(rtt, 50) * ms:.3f} ms, p99 {pct(rtt, 99) * ms:.3f} ms "
          f"(one way ~ half)")  # fmt: skip
    print(f"idle peer RSS (bot --host waiting for a guest): {rss:.1f} MB")
    print(f"`python -m ginp2p --help`: median {help_time(args.help_runs) * 1000:.0f} ms "
          f"of {args.help_runs} runs")  # fmt: skip


if __name__ == "__main__":
    main()
