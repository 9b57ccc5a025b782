#!/usr/bin/env python3
"""Computer players on the same deals, hand by hand: the harness for small changes.

A change to the computer player moves its share of hands by a point or less, while
two independent 2,000-hand runs of ``simulate.py`` differ by up to two. Here every
run plays single hands on fixed deals (``--deal-seeds`` x ``--hands``; seats and the
dealer alternate), so two versions of the bot meet the same cards and their results
move together. Run it at two commits (or with and without a change), keep each run's
hands with ``--out``, and ``--against`` counts the hands that changed::

    python scripts/paired_hands.py --deal-seeds 1,2,3,4 --hands 1000 --jobs 2 --out before.jsonl
    # ... change the computer player (ginp2p/game/planner.py, say) ...
    python scripts/paired_hands.py --deal-seeds 1,2,3,4 --hands 1000 --jobs 2 --against before.jsonl

Prints, per deal seed and pooled, hands won / lost / void by ``--player`` and its
share of decided hands, the share as dealer and as non-dealer, and the speed.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Iterable
from multiprocessing import Pool
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ginp2p.game import engine
from ginp2p.game.rules import PRESETS, get_preset
from ginp2p.game.selfplay import make_player, shuffled

#: One hand's result for --player: won, lost, or void (nobody won).
WON, LOST, VOID = 1, -1, 0


def deal_of(seed: int, hand: int) -> tuple[random.Random, int, int]:
    """The deck's generator, the dealer and --player's seat of one hand: the dealer
    alternates every hand, the seats every two, so each side deals half the hands."""
    return random.Random(seed * 1_000_003 + hand), hand % 2, (hand // 2) % 2


def play_hand(job: tuple[str, str, str, int, int]) -> tuple[int, int, int, bool]:
    """(deal seed, hand, result for --player, whether --player dealt)."""
    preset, player, opponent, seed, hand = job
    rules = get_preset(preset)
    rng, dealer, seat = deal_of(seed, hand)
    sides = {seat: make_player(player, seed * 7919 + hand),
             1 - seat: make_player(opponent, seed * 7927 + hand)}  # fmt: skip
    state = engine.start_hand(rules, dealer, shuffled(rules, rng))
    while not state.over:
        p = state.to_move
        state = engine.apply(state, sides[p](state, p), p)
    assert state.result is not None
    winner = state.result.winner
    result = VOID if winner is None else WON if winner == seat else LOST
    return seed, hand, result, dealer == seat


def _share(won: int, lost: int) -> str:
    return f"{100 * won / (won + lost):.2f}%" if won + lost else "-"


def _table(results: Iterable[tuple[int, int, int, bool]], seeds: list[int]) -> list[str]:
    rows = {s: [0, 0, 0] for s in seeds}
    by_seat = {True: [0, 0], False: [0, 0]}
    for seed, _, result, dealt in results:
        rows[seed][{WON: 0, LOST: 1, VOID: 2}[result]] += 1
        if result != VOID:
            by_seat[dealt][result == LOST] += 1
    lines = [f"{'deal seed':<10}{'won':>7}{'lost':>7}{'void':>6}   won % of decided"]
    for s in seeds:
        w, lo, v = rows[s]
        lines.append(f"{s:<10}{w:>7}{lo:>7}{v:>6}   {_share(w, lo)}")
    w, lo, v = (sum(r[i] for r in rows.values()) for i in range(3))
    lines.append(f"{'all':<10}{w:>7}{lo:>7}{v:>6}   {_share(w, lo)}")
    lines.append(f"  as dealer {_share(*by_seat[True])} of decided, "
                 f"as non-dealer {_share(*by_seat[False])}")  # fmt: skip
    return lines


def _compare(results: list[tuple[int, int, int, bool]], path: Path) -> str:
    """How the hands of this run differ from those kept in ``path`` by ``--out``."""
    before = {}
    for line in path.read_text().splitlines():
        row = json.loads(line)
        before[row["seed"], row["hand"]] = row["result"]
    common = [(r, before[s, h]) for s, h, r, _ in results if (s, h) in before]
    gained = sum(1 for now, then in common if now == WON and then != WON)
    lost = sum(1 for now, then in common if now != WON and then == WON)
    changed = sum(1 for now, then in common if now != then)
    return (f"against {path}: {len(common)} hands in both, {changed} changed; "
            f"won here and not there {gained}, won there and not here {lost}, "
            f"net {gained - lost:+d}")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--preset", default="classic", choices=sorted(PRESETS))
    ap.add_argument("--player", default="bot", choices=["bot", "greedy", "random"])
    ap.add_argument("--opponent", default="greedy", choices=["bot", "greedy", "random"])
    ap.add_argument("--deal-seeds", default="1,2,3,4",
                    help="comma-separated deal seeds (default 1,2,3,4)")  # fmt: skip
    ap.add_argument("--hands", type=int, default=1000, help="hands per deal seed (default 1000)")
    ap.add_argument("--jobs", type=int, default=1, help="processes (default 1)")
    ap.add_argument("--out", type=Path, help="write every hand's result here (JSON lines)")
    ap.add_argument("--against", type=Path, help="compare hand by hand with an --out file")
    args = ap.parse_args(argv)
    try:
        seeds = [int(s) for s in args.deal_seeds.split(",") if s.strip()]
    except ValueError:
        ap.error(f"--deal-seeds takes whole numbers separated by commas, not {args.deal_seeds!r}")
    if not seeds or args.hands < 1 or args.jobs < 1:
        ap.error("--deal-seeds needs a seed, --hands and --jobs at least 1")
    if args.against is not None and not args.against.is_file():
        ap.error(f"--against: no such file: {args.against}")

    sides = (args.preset, args.player, args.opponent)
    jobs = [(*sides, s, h) for s in seeds for h in range(args.hands)]
    started = time.perf_counter()
    results: list[tuple[int, int, int, bool]] = []
    step = max(len(jobs) // 10, 1)
    with Pool(args.jobs) as pool:
        for row in pool.imap(play_hand, jobs, chunksize=10):
            results.append(row)
            if len(results) % step == 0:
                sys.stderr.write(f"progress: {len(results)}/{len(jobs)} hands\n")
                sys.stderr.flush()
    elapsed = time.perf_counter() - started

    print(f"paired hands, {args.preset}: {args.player} against {args.opponent}, "
          f"deal seeds {args.deal_seeds} x {args.hands} hands")  # fmt: skip
    for line in _table(results, seeds):
        print(line)
    if args.against is not None:
        print(_compare(results, args.against))
    if args.out is not None:
        args.out.write_text("".join(
            json.dumps({"seed": s, "hand": h, "result": r, "dealt": d}) + "\n"
            for s, h, r, d in results))  # fmt: skip
    print(f"speed: {len(jobs) / elapsed:.1f} hands/s ({elapsed:.1f} s, {args.jobs} jobs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
