#!/usr/bin/env python3
"""Random cheating strategies against an honest peer, many games (ginp2p/testing/adversary.py).

Game i plays the strategy that ``random.Random(S + i)`` draws (S: ``--seed``) against an
honest ``PeerProtocol``, with the cheater as host or guest as drawn, and checks every
property. Each failed game gets one line: its seed, the properties it broke and the
strategy in one line; ``--games 1 --seed <that seed>`` replays it exactly and prints
what each property saw. The last line is ``N passed, M failed``; the exit code is 1 if
any game failed. Progress goes to stderr. Example::

    python scripts/adversary.py --games 2000 --seed 0 --jobs 2
    python scripts/adversary.py --games 1 --seed 1234
    python scripts/adversary.py --known          # the named attacks of ginp2p.testing.attacks

Exploration only: the shuffle runs with k=1 cut-and-choose rounds and memoised curve
arithmetic (``ginp2p.testing.exploring``).
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ginp2p.testing.adversary import play
from ginp2p.testing.attacks import KNOWN
from ginp2p.testing.exploring import exploring_shuffle
from ginp2p.testing.strategies import Strategy, random_strategy

#: (seed or name, violations as (property, detail), the strategy in one line)
Result = tuple[str, list[tuple[str, str]], str]

_CONTEXT: list[object] = []  # a worker's exploring_shuffle, entered for its lifetime


def _enter() -> None:
    ctx = exploring_shuffle()
    ctx.__enter__()
    _CONTEXT.append(ctx)


def _play(job: tuple[str, Strategy]) -> Result:
    name, strategy = job
    game = play(strategy)
    return name, [(v.prop, v.detail) for v in game.violations], strategy.describe()


def _jobs(args: argparse.Namespace) -> list[tuple[str, Strategy]]:
    if args.known:
        return list(KNOWN.items())
    return [(str(args.seed + i), random_strategy(args.seed + i, args.max_choices))
            for i in range(args.games)]  # fmt: skip


def _results(jobs: list[tuple[str, Strategy]], workers: int) -> Iterator[Result]:
    if workers <= 1:
        with exploring_shuffle():
            yield from map(_play, jobs)
        return
    with multiprocessing.Pool(workers, initializer=_enter) as pool:
        yield from pool.imap(_play, jobs, chunksize=4)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200, help="how many games (200)")
    parser.add_argument("--seed", type=int, default=0, help="game i uses seed SEED + i (0)")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (1)")
    parser.add_argument(
        "--max-choices", type=int, default=40, help="the most deviations a strategy draws (40)"
    )
    parser.add_argument(
        "--known",
        action="store_true",
        help="play the named attacks (ginp2p/testing/attacks.py) instead",
    )
    parser.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="print what each broken property saw (always with --games 1)",
    )
    args = parser.parse_args(argv)
    if args.games < 1 or args.jobs < 1:
        parser.error("--games and --jobs must be at least 1")
    jobs = _jobs(args)
    verbose = args.verbose or len(jobs) == 1
    every = max(1, len(jobs) // 20)
    passed = failed = 0
    broken: Counter[str] = Counter()
    started = time.perf_counter()
    for n, (name, violations, description) in enumerate(_results(jobs, args.jobs), 1):
        if violations:
            failed += 1
            props = sorted({prop for prop, _ in violations})
            broken.update(props)
            label = name if args.known else f"seed={name}"
            print(f"FAIL {label} {','.join(props)} | {description}", flush=True)
            if verbose:
                for prop, detail in violations:
                    print(f"    {prop}: {detail}", flush=True)
        else:
            passed += 1
        if n % every == 0 or n == len(jobs):
            rate = n / (time.perf_counter() - started)
            print(f"[{n}/{len(jobs)}] {failed} failed, {rate:.1f} games/s", file=sys.stderr,
                  flush=True)  # fmt: skip
    elapsed = time.perf_counter() - started
    if broken:
        print("broken: " + ", ".join(f"{prop} {count}" for prop, count in broken.most_common()))
    print(f"{len(jobs)} games in {elapsed:.1f} s: {len(jobs) / elapsed:.1f} games/s")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
