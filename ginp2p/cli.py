"""The ``ginp2p`` command.

Until two peers can connect, ``ginp2p play`` shows a whole match between two
computer players through the real rules engine, hand by hand.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from . import __version__


def _cmd_play(args: argparse.Namespace) -> int:
    import random

    from .engine import HandEnd
    from .match import MatchState
    from .rules import get_preset
    from .selfplay import make_player, play_match

    rules = get_preset(args.preset)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    names = ("North", "South")
    print(f"ginp2p {__version__}: {names[0]} vs {names[1]}, preset {rules.name}, seed {seed}")
    print("(two computer players; network play comes with `ginp2p host` and `ginp2p join`)\n")

    def show(m: MatchState) -> None:
        r = m.results[-1]
        hand = m.hand
        assert hand is not None
        who = names[r.knocker] if r.knocker is not None else "nobody"
        line = f"hand {m.hand_no:>2}: "
        if r.end in (HandEnd.KNOCK, HandEnd.GIN, HandEnd.BIG_GIN, HandEnd.UNDERCUT):
            line += f"{who} {'went gin' if r.gin else 'knocked'}"
            if r.undercut:
                line += f", undercut by {names[1 - r.knocker]}"  # type: ignore[operator]
        else:
            line += r.end.value.replace("_", " ")
        if r.scored:
            gainer = 0 if r.points[0] else 1
            line += f" - {names[gainer]} scores {r.points[gainer]}"
        print(f"{line:<52} {names[0]} {m.scores[0]:>3}  {names[1]} {m.scores[1]:>3}")
        if args.verbose:
            for p in (0, 1):
                d = r.declarations[p]
                if d is not None:
                    melds = "  ".join(" ".join(c.pretty() for c in mm.cards) for mm in d.melds)
                    dead = " ".join(c.pretty() for c in d.deadwood_cards)
                    lays = " ".join(lay.card.pretty() for lay in d.layoffs)
                    print(f"    {names[p]:<6} melds [{melds}] deadwood [{dead}] = {d.deadwood}"
                          + (f" laid off [{lays}]" if lays else ""))  # fmt: skip

    players = (make_player("bot"), make_player("bot"))
    m = play_match(rules, players, seed, on_hand=show)
    if m.winner is not None and m.totals is not None:
        print(f"\n{names[m.winner]} wins the match ({m.end}): totals with bonuses "
              f"{names[0]} {m.totals[0]}, {names[1]} {m.totals[1]}")  # fmt: skip
    return 0


def _cmd_rules(args: argparse.Namespace) -> int:
    from .rules import PRESETS, get_preset

    if args.preset is None:
        for name in PRESETS:
            print(name)
        return 0
    rules = get_preset(args.preset)
    for key, value in rules.to_dict().items():
        print(f"{key:<26} {value}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    from .rules import PRESETS

    ap = argparse.ArgumentParser(
        prog="ginp2p",
        description="Gin Rummy for two people on one local network, with no server.",
    )
    ap.add_argument("--version", action="version", version=f"ginp2p {__version__}")
    sub = ap.add_subparsers(dest="command", metavar="COMMAND")

    play = sub.add_parser("play", help="watch two computer players play a whole match")
    play.add_argument("--preset", default="classic", choices=list(PRESETS),
                      help="rules to play (default: classic)")  # fmt: skip
    play.add_argument("--seed", type=int, help="replay a match exactly (default: random)")
    play.add_argument("-v", "--verbose", action="store_true", help="show every showdown")
    play.set_defaults(func=_cmd_play)

    rules = sub.add_parser("rules", help="list the presets, or show one preset's settings")
    rules.add_argument("preset", nargs="?", choices=list(PRESETS))
    rules.set_defaults(func=_cmd_rules)
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    ap = build_parser()
    args = ap.parse_args(argv)
    if not getattr(args, "func", None):
        ap.print_help()
        return 0
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
