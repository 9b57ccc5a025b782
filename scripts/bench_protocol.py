"""Benchmark the peer protocol end to end, both peers in one process.

Usage: python scripts/bench_protocol.py [--reps N] [--k K] [--sizes 52,108] [--target T]

Prints medians of N runs, each with its ratio to a reference timed just before it (one
pass of 52 variable-base scalar multiplications through PyNaCl), so figures from a busy
or a faster machine still compare:

* set-up: a hand's whole shuffle and deal through two ``PeerProtocol`` objects joined
  in memory — commits, both shuffles with sum and cut-and-choose proofs (prove and
  verify), both locks, the deal keys, every signature, every check, every card read —
  until both players hold their cards; on one thread and with a two-worker pool;
* one private stock draw: the crypto alone (sign the draw, verify it, sign the key,
  verify it, check the key against its lock, unmask the card), and the full protocol
  round trip (the same plus the log, the linear order and the engine, both sides);
* sign and verify of one entry;
* the audit of one hand and of a whole match (``ginp2p.record.audit``);
* bytes of log per hand;
* ``ginp2p games`` over a folder of the corpus's clean logs: every game audited (no
  memory of earlier listings), and listed again with the audits remembered.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import platform
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import Executor, ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any

import nacl
import nacl.bindings as nb
import nacl.signing

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ginp2p.files.games import CACHE_NAME, list_games
from ginp2p.game.engine import DrawStock, PassUpcard
from ginp2p.game.rules import RuleSet, get_preset
from ginp2p.proto import shuffle
from ginp2p.proto.entry import sign_entry
from ginp2p.proto.results import HandDealt
from ginp2p.record import audit
from ginp2p.record.report import Verdict
from ginp2p.testing.fakelink import FakeLink, Faults, Side, make_pair

REF_POINTS = shuffle.card_points(52)
REF_SCALAR = nb.crypto_core_ed25519_scalar_reduce(hashlib.sha512(b"reference").digest())
PRESET = {52: "classic", 108: "italian-jokers"}


def reference_pass() -> None:
    for p in REF_POINTS:
        nb.crypto_scalarmult_ed25519_noclamp(REF_SCALAR, p)


def timed(fn: Callable[[], Any]) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def measure(fn: Callable[[], Any], reps: int, per: int = 1) -> tuple[float, float]:
    """Median seconds per call (``per`` calls inside ``fn``) and median ratio to the
    reference pass timed just before each run."""
    times, ratios = [], []
    for _ in range(reps):
        ref = timed(reference_pass)
        t = timed(fn) / per
        times.append(t)
        ratios.append(t / ref)
    return statistics.median(times), statistics.median(ratios)


def bench_listing(count: int, reps: int) -> tuple[tuple[float, float], tuple[float, float]]:
    """``list_games`` of ``count`` logs: first with nothing remembered, then again."""
    corpus = sorted((Path(__file__).resolve().parent.parent / "tests" / "corpus")
                    .glob("clean-*.ginlog"))  # fmt: skip
    with tempfile.TemporaryDirectory() as d:
        folder = Path(d)
        for i in range(count):
            shutil.copy(corpus[i % len(corpus)], folder / f"{i:04}-{corpus[i % len(corpus)].name}")

        def first() -> None:
            (folder / CACHE_NAME).unlink(missing_ok=True)
            assert len(list_games(folder)) == count

        cold = measure(first, reps, count)
        warm = measure(lambda: list_games(folder), reps, count)
    return cold, warm


def dealt(link: FakeLink) -> bool:
    return all(any(isinstance(e, HandDealt) for e in s.events) for s in link.sides)


def setup_link(rules: RuleSet, k: int, seed: int, ex: Executor | None) -> FakeLink:
    """Two peers past the hellos and the nonce: the next step is hand 1's commits."""
    rng = random.Random(seed)
    host, guest = make_pair(rules, rng, k=k, executor=ex)
    return FakeLink(host, guest, rng, Faults(), players=(None, None))


def run_setup(link: FakeLink) -> None:
    link.start()
    while not dealt(link) and link.step():
        pass
    assert dealt(link), "the deal did not complete"


def bench_setup(rules: RuleSet, k: int, reps: int, ex: Executor | None) -> tuple[float, float]:
    links = [setup_link(rules, k, seed, ex) for seed in range(reps)]
    it = iter(links)
    return measure(lambda: run_setup(next(it)), reps)


def dealt_sides(rules: RuleSet, k: int) -> tuple[FakeLink, Side, Side]:
    link = setup_link(rules, k, 99, None)
    run_setup(link)
    return link, link.sides[0], link.sides[1]


def bench_draw_crypto(n: int, reps: int) -> tuple[float, float]:
    """sign + verify the draw, sign + verify the key, check the key, unmask the card."""
    rng = random.Random(5)
    keys = [nacl.signing.SigningKey(rng.randbytes(32)) for _ in range(2)]
    secrets = [shuffle.HandSecrets(rng.randbytes(32), rng.randbytes(32)) for _ in range(2)]
    pos, point = 21, shuffle.card_points(n)[7]
    for s in secrets:
        point = nb.crypto_scalarmult_ed25519_noclamp(s.card_key(pos), point)
    pub = [nb.crypto_scalarmult_ed25519_base_noclamp(s.card_key(pos)) for s in secrets]
    msgs = [os.urandom(120), os.urandom(160)]
    verify = [k.verify_key for k in keys]
    batch = 50

    def draw() -> None:
        for _ in range(batch):
            sig = keys[0].sign(msgs[0])
            verify[0].verify(sig)
            sig = keys[1].sign(msgs[1])
            verify[1].verify(sig)
            key = secrets[1].card_key(pos)
            shuffle.check_key(pub[1], key)
            card = shuffle.unmask(point, secrets[0].card_key(pos), key, n)
            assert card is not None

    return measure(draw, reps, batch)


def bench_draw_protocol(rules: RuleSet, k: int, reps: int) -> tuple[float, float]:
    """The drawer's draw_stock to the card in its hand: both protocols, log and engine."""
    samples = []
    for _ in range(reps):
        link, host, guest = dealt_sides(rules, k)
        # pass the upcard until a player may draw from the stock, then time one draw
        while True:
            side = next(s for s in (host, guest) if s.proto.my_turn)
            legal = side.proto.legal_actions()
            if DrawStock() in legal:
                break
            pass_upcard = next(a for a in legal if isinstance(a, PassUpcard))
            link.handle(side.proto.me, side.proto.act(pass_upcard))
            while link.deliver_one():
                pass
        ref = timed(reference_pass)
        t0 = time.perf_counter()
        link.handle(side.proto.me, side.proto.act(DrawStock()))
        while link.deliver_one():
            pass
        t = time.perf_counter() - t0
        samples.append((t, t / ref))
    return statistics.median(s[0] for s in samples), statistics.median(s[1] for s in samples)


def bench_sign_verify(reps: int) -> tuple[tuple[float, float], tuple[float, float]]:
    _, host, _ = dealt_sides(get_preset("classic"), 20)
    entry = host.proto.log.entries()[-1]
    key = host.proto.key
    pub = bytes(key.verify_key)
    batch = 200
    sign = measure(lambda: [sign_entry(key, entry.fields) for _ in range(batch)], reps, batch)
    verify = measure(lambda: [entry.verify(pub) for _ in range(batch)], reps, batch)
    return sign, verify


def whole_match(rules: RuleSet, k: int, seed: int) -> FakeLink:
    rng = random.Random(seed)
    host, guest = make_pair(rules, rng, k=k)
    link = FakeLink(host, guest, rng)
    link.run()
    return link


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=5, help="runs per figure (default 5)")
    parser.add_argument("--k", type=int, default=shuffle.K_DEFAULT, help="shuffle proof rounds")
    parser.add_argument("--sizes", default="52,108", help="deck sizes (default 52,108)")
    parser.add_argument(
        "--games", type=int, default=50, help="logs in the folder ginp2p games lists (default 50)"
    )
    parser.add_argument(
        "--target",
        type=int,
        default=None,
        help="game target of the whole matches (default: the preset's)",
    )
    args = parser.parse_args()
    if not shuffle.K_MIN <= args.k <= shuffle.K_MAX:
        parser.error(f"--k: from {shuffle.K_MIN} (the fewest rounds a peer accepts) to "
                     f"{shuffle.K_MAX}")  # fmt: skip
    reps, k = args.reps, args.k
    sizes = [int(s) for s in args.sizes.split(",")]
    ref = statistics.median(timed(reference_pass) for _ in range(3 * reps))
    load = os.getloadavg()[0]
    print(f"# Python {platform.python_version()}, PyNaCl {nacl.__version__}, "
          f"{os.cpu_count()} CPUs, load {load:.2f}, k = {k}, medians of {reps}")  # fmt: skip
    print(f"reference: one pass of 52 scalar multiplications = {ref * 1e3:.2f} ms")
    print("'x ref' = median over runs of (run time / reference pass timed just before it)\n")
    print(f"| {'what':52} | {'n':>3} | {'median':>10} | {'x ref':>7} |")
    print(f"|{'-' * 54}|{'-' * 5}|{'-' * 12}|{'-' * 9}|")

    def row(what: str, n: int, fig: tuple[float, float], unit: str = "ms") -> None:
        scale = {"ms": 1e3, "µs": 1e6}[unit]
        print(f"| {what:52} | {n:3} | {fig[0] * scale:7.2f} {unit:2} | {fig[1]:7.2f} |", flush=True)

    with ThreadPoolExecutor(2) as pool:
        for n in sizes:
            rules = get_preset(PRESET[n])
            row("shuffle + deal, both peers, 1 thread", n, bench_setup(rules, k, reps, None))
            row("shuffle + deal, both peers, 2-worker pool", n, bench_setup(rules, k, reps, pool))
            row("stock draw: sign+verify x2, key check, unmask", n,
                bench_draw_crypto(n, reps), "µs")  # fmt: skip
            row("stock draw: full protocol round trip", n, bench_draw_protocol(rules, k, reps))
    sign, verify = bench_sign_verify(reps)
    row("sign one entry", 52, sign, "µs")
    row("verify one entry", 52, verify, "µs")

    print("\nwhole matches (bot vs bot, both peers in one process, one thread); the audit")
    print("on one thread and with a two-worker pool (audit_records(..., executor=pool))")
    print(f"| {'preset':15} | {'hands':>5} | {'entries':>7} | {'log KB/hand':>11} | "
          f"{'audit ms/hand':>13} | {'pool ms/hand':>12} | {'audit ms/match':>14} | "
          f"{'play s/hand':>11} |")  # fmt: skip
    print(f"|{'-' * 17}|{'-' * 7}|{'-' * 9}|{'-' * 13}|{'-' * 15}|{'-' * 14}|{'-' * 16}|"
          f"{'-' * 13}|")  # fmt: skip
    with ThreadPoolExecutor(2) as pool:
        for n in sizes:
            rules = get_preset(PRESET[n])
            if args.target is not None:
                rules = rules.with_(game_target=args.target)
            t0 = time.perf_counter()
            link = whole_match(rules, k, 7)
            play = time.perf_counter() - t0
            records = link.sides[0].saved
            hands = len(link.sides[0].proto.table.hands)
            size = sum(len(r) for r in records)
            alone = partial(audit.audit_records, records)
            threaded = partial(audit.audit_records, records, executor=pool)
            one = statistics.median(timed(alone) for _ in range(reps))
            two = statistics.median(timed(threaded) for _ in range(reps))
            report = audit.audit_records(records)
            assert report.verdict == Verdict.CLEAN, report.text()
            kb, ms1, ms2 = size / hands / 1024, one / hands * 1e3, two / hands * 1e3
            print(
                f"| {rules.name:15} | {hands:5} | {len(records):7} | {kb:11.1f} | "
                f"{ms1:13.1f} | {ms2:12.1f} | {one * 1e3:14.1f} | {play / hands:11.2f} |"
            )

    print("\nginp2p games over a folder of n logs (the corpus's clean matches), per game")
    print(f"| {'what':52} | {'n':>3} | {'median':>10} | {'x ref':>7} |")
    print(f"|{'-' * 54}|{'-' * 5}|{'-' * 12}|{'-' * 9}|")
    cold, warm = bench_listing(args.games, reps)
    row("listing, every game audited", args.games, cold)
    row("listing again, audits remembered", args.games, warm, "µs")
    print(f"remembered / audited: {warm[0] / cold[0]:.4f}")


if __name__ == "__main__":
    main()
