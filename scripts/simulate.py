#!/usr/bin/env python3
"""Computer players against each other: whole matches through the engine.

Prints, for each side, matches won, hands won / lost / void (no winner: the
stock ran low, or a tie that scores nothing), the hands-won percentage over all
hands and over decided hands (won + lost), the average points per hand, the speed
in hands per second, and how long one decision of each side takes (median and 99th
percentile, so the bot is timed against its opponent in the same run); a progress
indicator goes to stderr. Seats alternate between matches so neither side keeps the
first deal. Example::

    python scripts/simulate.py --preset classic --games 200 --opponent random
    python scripts/simulate.py --preset classic --hands 2000 --opponent greedy
    python scripts/simulate.py --preset classic --hands 1000 --player easy
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ginp2p.game.engine import Action, HandState
from ginp2p.game.match import MatchState
from ginp2p.game.rules import PRESETS, get_preset
from ginp2p.game.selfplay import Player, make_player, play_match


@dataclass
class Tally:
    """Per side (0: --player, 1: --opponent): matches and hands won, points scored."""

    matches: list[int] = field(default_factory=lambda: [0, 0])
    hands: list[int] = field(default_factory=lambda: [0, 0])
    points: list[int] = field(default_factory=lambda: [0, 0])
    hands_total: int = 0
    unfinished: int = 0  # matches stopped by the hand cap
    thinking: list[list[float]] = field(default_factory=lambda: [[], []])  # seconds


def _timed(decide: Player, times: list[float]) -> Player:
    """The player, noting how long each of its decisions takes."""

    def play(state: HandState, player: int) -> Action:
        started = time.perf_counter()
        action = decide(state, player)
        times.append(time.perf_counter() - started)
        return action

    return play


def _thinking(name: str, times: list[float]) -> str:
    """One side's decision times: median and 99th percentile, in milliseconds."""
    if len(times) < 2:
        return f"speed: {name} made {len(times)} decision(s)"
    median = statistics.median(times) * 1000
    p99 = statistics.quantiles(times, n=100)[98] * 1000
    return (
        f"speed: a decision of {name} takes {median:.2f} ms at the median, "
        f"{p99:.1f} ms at the 99th percentile ({len(times):,} decisions)"
    )


def _progress(done: int, total: int, started: float, what: str, last: list[int]) -> None:
    """A bar redrawn in place on a terminal; otherwise a line every tenth of the run."""
    rate = done / max(time.perf_counter() - started, 1e-9)
    if sys.stderr.isatty():
        width = 30
        filled = width * min(done, total) // max(total, 1)
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} {what} "
                         f"({rate:.1f}/s) ")  # fmt: skip
        sys.stderr.flush()
        return
    tenth = 10 * min(done, total) // max(total, 1)
    if tenth > last[0]:
        last[0] = tenth
        sys.stderr.write(f"progress: {done}/{total} {what} ({rate:.1f}/s)\n")
        sys.stderr.flush()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--preset", default="classic", choices=sorted(PRESETS))
    ap.add_argument("--games", type=int, default=100, help="matches to play (default 100)")
    ap.add_argument(
        "--hands",
        type=int,
        default=0,
        help="instead of --games: play matches until this many hands are done",
    )
    ap.add_argument("--seed", type=int, default=1, help="first match's seed (default 1)")
    known = ["bot", "easy", "greedy", "random"]  # easy: the computer player at `--level easy`
    ap.add_argument("--player", default="bot", choices=known)
    ap.add_argument("--opponent", default="bot", choices=known)
    args = ap.parse_args(argv)
    if args.games < 1 and args.hands < 1:
        ap.error("--games or --hands must be at least 1")

    rules = get_preset(args.preset)
    stats = Tally()
    started = time.perf_counter()
    last = [0]
    n = 0
    total = args.hands or args.games
    while (args.hands and stats.hands_total < args.hands) or (not args.hands and n < args.games):
        seed = args.seed + n
        # Side 0 is --player, side 1 is --opponent; seats swap every match.
        side_of_seat = (0, 1) if n % 2 == 0 else (1, 0)
        kinds = [args.player, args.opponent]
        a, b = side_of_seat
        players = (_timed(make_player(kinds[a], seed), stats.thinking[a]),
                   _timed(make_player(kinds[b], seed + 7919), stats.thinking[b]))  # fmt: skip
        m: MatchState = play_match(rules, players, seed)
        if m.winner is None:
            stats.unfinished += 1
        else:
            stats.matches[side_of_seat[m.winner]] += 1
        for r in m.results:
            stats.hands_total += 1
            if r.winner is not None:
                stats.hands[side_of_seat[r.winner]] += 1
            for seat in (0, 1):
                stats.points[side_of_seat[seat]] += r.returns[seat]
        n += 1
        _progress(
            stats.hands_total if args.hands else n,
            total,
            started,
            "hands" if args.hands else "matches",
            last,
        )
    elapsed = time.perf_counter() - started
    if sys.stderr.isatty():
        sys.stderr.write("\n")

    hands = stats.hands_total
    decided = sum(stats.hands)
    void = hands - decided
    names = (f"{args.player} (side A)", f"{args.opponent} (side B)")
    print(
        f"preset {rules.name}: {n} match{'es' * (n != 1)}, {hands} hands, seeds "
        f"{args.seed}..{args.seed + n - 1}"
    )
    for side in (0, 1):
        mw = stats.matches[side]
        hw = stats.hands[side]
        hl = stats.hands[1 - side]
        print(f"  {names[side]:<20} matches won {mw:>6} ({100 * mw / max(n, 1):5.1f}%)   "
              f"hands won {hw:>6} / lost {hl:>6} / void {void:>4}   "
              f"won {100 * hw / max(hands, 1):5.1f}% of all {hands} hands, "
              f"{100 * hw / max(decided, 1):5.1f}% of {decided} decided   "
              f"points/hand {stats.points[side] / max(hands, 1):+.2f}")  # fmt: skip
    print("  (void: hands nobody won, e.g. the stock ran low; decided = won + lost)")
    if stats.unfinished:
        print(f"  unfinished matches (hand cap reached): {stats.unfinished}")
    print(f"speed: {hands / elapsed:.1f} hands/s, {n / elapsed:.2f} matches/s ({elapsed:.1f} s)")
    for side in (0, 1):
        print(_thinking(names[side], stats.thinking[side]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
