#!/usr/bin/env python3
"""Speed of the meld solver and the engine, as medians of repeated runs.

Prints µs per call for 10-card min deadwood, 11-card best discard and the
meld-rich oracle hands, with two references measured in the same run: the
solver's general path (the one multi-deck and joker hands take) on the same
hands, and a plain sum of card values (the floor of any Python function that
looks at every card). Then the engine's throughput replaying recorded
OpenSpiel hands. The machines are shared and noisy: compare ratios, not
absolute figures, across runs.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from ginp2p.game import masks  # noqa: E402
from ginp2p.game import melds as M  # noqa: E402
from ginp2p.game.cards import Card, deck, parse_card  # noqa: E402
from ginp2p.game.rules import PRESETS  # noqa: E402
from ginp2p.game.search import general_best_discard, general_min_deadwood  # noqa: E402

DATA = ROOT / "tests" / "data"


def per_call_us(fn: Callable[[Any], object], inputs: Sequence[Any], repeats: int) -> float:
    """Median over ``repeats`` runs of the mean time per call, in µs."""
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for x in inputs:
            fn(x)
        times.append((time.perf_counter() - t0) / len(inputs) * 1e6)
    return statistics.median(times)


def random_hands(n: int, size: int, seed: int) -> list[list[Card]]:
    rng = random.Random(seed)
    full = list(deck(52))
    return [rng.sample(full, size) for _ in range(n)]


def oracle_hands(prefix: str) -> list[list[Card]]:
    path = DATA / "deadwood_cases_sample.jsonl"
    out = []
    for line in path.read_text().splitlines():
        case = json.loads(line)
        if case["id"].startswith(prefix):
            out.append([parse_card(c) for c in case["hand"]])
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hands", type=int, default=2000,
                    help="random hands per case, and at most as many recorded ones "
                         "(default 2000)")  # fmt: skip
    ap.add_argument("--repeats", type=int, default=7, help="repetitions; the median is shown")
    args = ap.parse_args(argv)
    classic = PRESETS["classic"]

    r10 = random_hands(args.hands, 10, 1)
    r11 = random_hands(args.hands, 11, 2)
    m10, m11 = oracle_hands("m10")[: args.hands], oracle_hands("m11")[: args.hands]
    masks10 = [masks.hand_mask(h) for h in r10]
    masks11 = [masks.hand_mask(h) for h in r11]

    def floor(h: list[Card]) -> int:
        return sum(c.value for c in h)

    # The general path, called directly: the public functions send every hand without
    # a joker or a repeated card down the fast path, whatever the rules.
    def general_min(h: list[Card]) -> int:
        return general_min_deadwood(h, classic)

    def general_discard(h: list[Card]) -> tuple[Card, int]:
        return general_best_discard(h, classic)

    for hands in (r10, m10):
        if any(general_min(h) != M.min_deadwood(h, classic) for h in hands):
            raise SystemExit("the fast and general paths disagree on min_deadwood")
    for hands in (r11, m11):
        if any(general_discard(h) != M.best_discard(h, classic) for h in hands):
            raise SystemExit("the fast and general paths disagree on best_discard")

    rows: list[tuple[str, float, float, float]] = []
    # (name, the fast path, the general path or None, inputs, the same hands as card lists
    # for the sum-of-values reference)
    Case = tuple[str, Callable[[Any], object], Callable[[Any], object] | None, list[Any],
                 list[list[Card]]]  # fmt: skip
    cases: list[Case] = [
        ("min_deadwood, random 10 cards", lambda h: M.min_deadwood(h, classic),
         general_min, r10, r10),
        ("min_deadwood, 52-bit mask, random 10", lambda x: masks.min_deadwood_mask(x, classic),
         None, masks10, r10),
        ("best_discard, random 11 cards", lambda h: M.best_discard(h, classic),
         general_discard, r11, r11),
        ("best_discard, 52-bit mask, random 11", lambda x: masks.best_discard_mask(x, classic),
         None, masks11, r11),
        ("min_deadwood, meld-rich 10 (oracle m10)", lambda h: M.min_deadwood(h, classic),
         general_min, m10, m10),
        ("best_discard, meld-rich 11 (oracle m11)", lambda h: M.best_discard(h, classic),
         general_discard, m11, m11),
    ]  # fmt: skip
    for name, fast, general, inputs, as_cards in cases:
        t = per_call_us(fast, inputs, args.repeats)
        g = float("nan")
        if general is not None:
            g = per_call_us(general, inputs, max(1, args.repeats // 2))
        base = per_call_us(floor, as_cards, args.repeats)
        rows.append((name, t, g, base))

    print(f"meld solver: median of {args.repeats} runs over {args.hands} random hands "
          f"({len(m10)} + {len(m11)} oracle meld-rich hands)")  # fmt: skip
    print(f"{'case':<42} {'µs/call':>9} {'general path':>13} {'ratio':>7} "
          f"{'sum-of-values':>14} {'ratio':>7}")  # fmt: skip
    for name, t, g, base in rows:
        gr = f"{g / t:6.1f}x" if g == g else "      -"
        gs = f"{g:10.2f} µs" if g == g else "            -"
        print(f"{name:<42} {t:9.2f} {gs} {gr} {base:11.2f} µs {t / base:6.1f}x")

    # Engine throughput: recorded hands replayed per second (no legal-set checks).
    from replay_openspiel import read_games, replay_game

    files = ["openspiel_games_sample.jsonl", "openspiel_games_eager_sample.jsonl"]
    games = [game for _, game in read_games([str(DATA / f) for f in files])][: args.hands]
    times = []
    for _ in range(max(1, args.repeats // 2)):
        t0 = time.perf_counter()
        for game in games:
            replay_game(game, check_legal=False)
        times.append(time.perf_counter() - t0)
    t = statistics.median(times)
    moves = sum(len(game["actions"]) for game in games)
    print(f"\nengine: {len(games)} recorded OpenSpiel hands ({moves} actions) replayed in "
          f"{t * 1000:.0f} ms: {len(games) / t:,.0f} hands/s, {moves / t:,.0f} actions/s "
          f"(median of {len(times)})")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
