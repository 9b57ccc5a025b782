"""Benchmark the shuffle (ginp2p/proto/shuffle/): medians per step, whole set-up, message sizes.

Usage: python scripts/bench_shuffle.py [--reps N] [--k K]

Times are medians of N runs, with a reference measured in the same run (one pass of 52
variable-base scalar multiplications) and each time's ratio to it, so figures from
machines of different speed compare. "set-up" is both peers in one process: both
commits, both shuffles with sum proof and cut-and-choose prove and verify, both locks
prove and verify, and the deal (each player checks the 11 keys it receives and unmasks
its 10 cards and the upcard). Sizes are msgpack of each message's fields as a list.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import fields
from functools import partial
from pathlib import Path
from typing import Any

import msgpack
import nacl
import nacl.bindings as nb

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ginp2p.proto import shuffle
from ginp2p.proto.shuffle import Ctx, HandSecrets

GAME = hashlib.sha256(b"bench").digest()
REF_POINTS = shuffle.card_points(52)
REF_SCALAR = nb.crypto_core_ed25519_scalar_reduce(hashlib.sha512(b"reference").digest())
DEALT = {0: [*range(10), 20], 1: [*range(10, 21)]}  # positions each player reads in the deal


def timed(fn: Callable[[], Any]) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def reference_pass() -> None:
    """The yardstick: one pass of 52 variable-base scalar multiplications."""
    for p in REF_POINTS:
        nb.crypto_scalarmult_ed25519_noclamp(REF_SCALAR, p)


def measure(fn: Callable[[], Any], reps: int) -> tuple[float, float]:
    """Median ms, and the median of each run's time over a reference pass timed just before.

    Pairing each run with its own reference keeps the ratio honest when other processes
    share the machine.
    """
    times, ratios = [], []
    for _ in range(reps):
        ref = timed(reference_pass)
        t = timed(fn)
        times.append(t)
        ratios.append(t / ref)
    return statistics.median(times) * 1e3, statistics.median(ratios)


def fresh() -> list[HandSecrets]:
    return [HandSecrets(os.urandom(32), os.urandom(32)) for _ in range(2)]


def size(msg: Any) -> int:
    return len(msgpack.packb([getattr(msg, f.name) for f in fields(msg)]))


def setup(n: int, k: int, ex: Executor | None) -> dict[str, Any]:
    """One whole set-up, both peers; returns every message for the size table."""
    sec, ctx = fresh(), [Ctx(GAME, 1, 0), Ctx(GAME, 1, 1)]
    out: dict[str, Any] = {}
    commits = [shuffle.make_commit(sec[p], ctx[p]) for p in (0, 1)]
    for c in commits:
        shuffle.check_commit(c)
    out["commit"] = commits[0]
    d_in: list[bytes] = list(shuffle.card_points(n))
    for prover in (0, 1):
        msg = shuffle.shuffle_step(sec[prover], ctx[prover], d_in, k, ex)
        shuffle.check_shuffle(commits[prover].P, ctx[prover], d_in, msg)
        entry = hashlib.sha256(msg.deck_hash).digest()
        bits = shuffle.challenge_bits(sec[1 - prover].key_seed, ctx[prover], entry, k)
        answers = shuffle.answer_challenge(sec[prover], n, bits, k)
        shuffle.check_answers(ctx[prover], d_in, msg, bits, answers, k, ex)
        out["shuffle"], out["challenge"], out["answers"], d_in = msg, bits, answers, msg.d_out
    locks = []
    for p in (0, 1):
        lock = shuffle.lock_step(sec[p], ctx[p], d_in, ex)
        shuffle.verify_lock(commits[p].P, ctx[p], d_in, lock, ex)
        locks.append(lock)
        d_in = lock.d_out
    out["lock"] = lock
    for me in (0, 1):
        other = 1 - me
        for i in DEALT[me]:
            key = shuffle.card_key(sec[other], i)
            shuffle.check_key(locks[other].keys[i], key)
            assert shuffle.unmask(d_in[i], shuffle.card_key(sec[me], i), key, n) is not None
    return out


def step_rows(n: int, k: int, reps: int, pool: Executor) -> list[tuple[str, float, float]]:
    """Per-step medians for one player's side of one step."""
    sec, ctx = fresh()[0], Ctx(GAME, 1, 0)
    m = list(shuffle.card_points(n))
    msg = shuffle.shuffle_step(sec, ctx, m, k)
    bits = shuffle.challenge_bits(os.urandom(32), ctx, os.urandom(32), k)
    answers = shuffle.answer_challenge(sec, n, bits, k)
    lock = shuffle.lock_step(sec, ctx, msg.d_out)
    d4, keys = lock.d_out, [sec.card_key(i) for i in range(n)]

    def again() -> HandSecrets:
        """The same seeds with nothing derived yet, so each run pays for its keys."""
        return HandSecrets(sec.perm_seed, sec.key_seed)

    def threaded(label: str, ex: Executor | None) -> list[tuple[str, Callable[[], Any]]]:
        return [
            (f"shuffle prove ({label})", lambda: shuffle.shuffle_step(again(), ctx, m, k, ex)),
            (f"answers verify ({label})", lambda: shuffle.check_answers(
                ctx, m, msg, bits, answers, k, ex)),
            (f"lock prove ({label})", lambda: shuffle.lock_step(again(), ctx, msg.d_out, ex)),
            (f"lock verify ({label})", lambda: shuffle.verify_lock(
                sec.public, ctx, msg.d_out, lock, ex)),
        ]  # fmt: skip

    rows: list[tuple[str, Callable[[], Any]]] = [
        ("commit: make + check", lambda: shuffle.check_commit(shuffle.make_commit(again(), ctx))),
        *threaded("1 thr", None),
        *threaded("2 thr", pool),
    ]

    def read_cards() -> None:
        for i in range(11):
            shuffle.check_key(lock.keys[i], keys[i])
            shuffle.unmask(d4[i], keys[i], keys[i], n)

    rows += [
        ("shuffle check on receipt", lambda: shuffle.check_shuffle(sec.public, ctx, m, msg)),
        ("answer challenge", lambda: shuffle.answer_challenge(again(), n, bits, k)),
        ("read 11 cards (check key+unmask)", read_cards),
    ]
    return [(name, *measure(fn, reps)) for name, fn in rows]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--k", type=int, default=shuffle.K_DEFAULT)
    args = parser.parse_args()
    reps, k = args.reps, args.k
    ref = statistics.median(timed(reference_pass) for _ in range(3 * reps)) * 1e3
    print(f"# {platform.python_version()}, PyNaCl {nacl.__version__}, {os.cpu_count()} CPUs, "
          f"load {os.getloadavg()[0]:.2f}, k = {k}, medians of {reps}")  # fmt: skip
    print(f"reference: one pass of 52 scalar mults = {ref:.2f} ms (median of {3 * reps})")
    print("'x ref' = median over runs of (run time / reference pass timed just before it)\n")
    print(f"| {'step':40} | {'n':>3} | {'ms':>8} | {'x ref':>6} |")
    print(f"|{'-' * 42}|{'-' * 5}|{'-' * 10}|{'-' * 8}|")
    sizes = {}
    with ThreadPoolExecutor(2) as pool:
        for n in (52, 108):
            rows = step_rows(n, k, reps, pool)
            rows.append(("WHOLE SET-UP (1 thread)", *measure(partial(setup, n, k, None), reps)))
            rows.append(("WHOLE SET-UP (2 threads)", *measure(partial(setup, n, k, pool), reps)))
            for name, ms, ratio in rows:
                print(f"| {name:40} | {n:3} | {ms:8.1f} | {ratio:6.1f} |")
            sizes[n] = setup(n, k, pool)
    print("\nmsgpack bytes per message")
    print(f"| {'message':32} | {'52':>6} | {'108':>6} |")
    print(f"|{'-' * 34}|{'-' * 8}|{'-' * 8}|")
    for name in ("commit", "shuffle", "challenge", "answers", "lock"):
        got = [size(sizes[n][name]) if name != "challenge" else len(msgpack.packb(sizes[n][name]))
               for n in (52, 108)]  # fmt: skip
        print(f"| {name:32} | {got[0]:6} | {got[1]:6} |")
    key = len(msgpack.packb(REF_SCALAR))
    print(f"| {'one per-card key':32} | {key:6} | {key:6} |")


if __name__ == "__main__":
    main()
