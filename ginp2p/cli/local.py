"""The commands of this computer alone, with no game file and no network: ``keys``
(your key, the players you paired with, a safety number, forgetting one), ``rules``
(the presets and their settings) and ``selfplay`` (a whole match between two computer
players through the rules engine)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from ginp2p import __version__
from ginp2p.cli.output import Problem, UsageError, padded, printer
from ginp2p.cli.values import chosen_rules

if TYPE_CHECKING:
    from ginp2p.game.match import MatchState


def cmd_keys(args: argparse.Namespace) -> int:
    from ginp2p.files import peers
    from ginp2p.files.identity import load_or_create_identity
    from ginp2p.present.words import for_screen
    from ginp2p.proto.keytext import key_to_text

    ident = load_or_create_identity()
    try:
        if args.forget is not None:
            if not args.forget.strip():
                raise UsageError("--forget: say which player to forget: the name or the start "
                                 "of the fingerprint `ginp2p keys` shows")  # fmt: skip
            try:
                gone = peers.forget(args.forget)
            except LookupError as exc:
                raise Problem(str(exc)) from None
            print(f"forgot {for_screen(gone.described)}; pair again to play with them "
                  "(a game with them goes on with `ginp2p resume` only then)")  # fmt: skip
            return 0
        pinned = peers.all()
    except peers.PeersError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if args.safety:  # the player first: an error must not follow a screen of keys
        try:
            p = peers.find(args.safety, pinned)
        except LookupError as exc:
            raise Problem(str(exc)) from None
    print(f"your key:         {key_to_text(ident.public_key)}")
    print(f"your fingerprint: {ident.fingerprint}")
    print(f"key file:         {ident.path}")
    if args.safety:
        print(f"safety number with {for_screen(p.described)}:")
        print(f"  {peers.safety_number(ident.public_key, p.key)}")
        print("read it aloud to each other: the same digits on both screens mean nobody is "
              "in the middle")  # fmt: skip
        return 0
    if pinned:
        from prompt_toolkit.utils import get_cwidth

        print("paired players:")
        titles = [for_screen(p.title) for p in pinned]  # (other players' words: defused)
        column = max(20, *(get_cwidth(t) for t in titles))  # one column, however long
        for p, title in zip(pinned, titles, strict=True):
            print(f"  {padded(title, column)} {p.fingerprint}  paired {p.paired.date()}")
    else:
        print("no paired players (a pairing code pairs you: ginp2p host, then ginp2p join)")
    return 0


#: How wide the column of a setting's label is; a longer label has a line of its own.
_LABEL_COLUMN = 36


def cmd_rules(args: argparse.Namespace) -> int:
    """The presets, each with a line on it, or one preset: its rules in a few sentences
    and every setting in words. ``--raw``: the names and values ``--set`` takes, for a
    script or to copy a setting's name."""
    import shutil
    import textwrap

    from ginp2p.game.rules import PRESETS, get_preset
    from ginp2p.present.rule_settings import preset_line, setting_groups
    from ginp2p.present.words import rules_help, setting_value

    width = max(60, shutil.get_terminal_size((80, 24)).columns) - 1
    say = printer(args)  # the rules' words name suits (7♥′) where a console may not show them
    if args.preset is None:
        if args.raw:
            for name in PRESETS:
                print(name)
            return 0
        wide = max(map(len, PRESETS))
        for name in PRESETS:
            say(textwrap.fill(preset_line(name), width, initial_indent=f"{name:<{wide}}  ",
                              subsequent_indent=" " * (wide + 2)))  # fmt: skip
        say("\n" + textwrap.fill("`ginp2p rules NAME` shows one preset's rules and settings; "
                                 "`--preset NAME` plays it; docs/rules.md explains them "
                                 "all", width))  # fmt: skip
        return 0
    rules = get_preset(args.preset)
    if args.raw:
        for key, value in rules.to_dict().items():
            if key != "name":
                print(f"{key:<26} {setting_value(value)}")
        return 0
    say(textwrap.fill(f"{rules.name}: {preset_line(rules.name)}", width))
    say("")
    say("\n".join("  " + line for line in rules_help(rules, width - 2)))
    groups = setting_groups(rules)
    wide = min(_LABEL_COLUMN, max(len(label) for _, s in groups for _, label, _ in s) + 1)
    pad = " " * (wide + 4)
    for heading, settings in groups:
        say(f"\n{heading}:")
        for _, label, value in settings:
            if len(label) + 1 > wide:  # a long label has the line to itself
                say(f"  {label}:")
                lead = pad
            else:
                lead = f"  {label + ':':<{wide}}  "
            say(textwrap.fill(value, width, initial_indent=lead, subsequent_indent=pad))
    say("\n" + textwrap.fill(f"`ginp2p rules {rules.name} --raw` lists the settings by the "
                             "names `--set NAME=VALUE` takes", width))  # fmt: skip
    return 0


def cmd_selfplay(args: argparse.Namespace) -> int:
    import random

    from ginp2p.game.selfplay import make_player, play_match
    from ginp2p.present.words import ending, preset_words

    rules = chosen_rules(args)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    names = ("North", "South")
    print(
        f"ginp2p {__version__}: {names[0]} vs {names[1]}, preset {preset_words(rules)}, seed {seed}"
    )
    print("(two computer players in one process; network play: `ginp2p host` / `ginp2p join`)\n")

    say = printer(args)  # card codes (QS) where the console cannot show a suit

    def show(m: MatchState) -> None:
        r = m.results[-1]
        line = f"hand {m.hand_no:>2}: {ending(r, names.__getitem__)}"
        if r.scored:
            scorers = [p for p in (0, 1) if r.points[p]] or [0 if r.knocker is None else r.knocker]
            line += " - " + ", ".join(f"{names[p]} {r.points[p]:+d}" for p in scorers)
        say(f"{line:<52} {names[0]} {m.scores[0]:>3}  {names[1]} {m.scores[1]:>3}")
        if args.verbose:
            for p in (0, 1):
                d = r.declarations[p]
                if d is not None:
                    melds = "  ".join(" ".join(c.pretty() for c in mm.in_order) for mm in d.melds)
                    dead = " ".join(c.pretty() for c in d.deadwood_cards)
                    lays = " ".join(lay.card.pretty() for lay in d.layoffs)
                    say(f"    {names[p]:<6} melds [{melds}] deadwood [{dead}] = {d.deadwood}"
                        + (f" laid off [{lays}]" if lays else ""))  # fmt: skip

    players = (make_player("bot"), make_player("bot"))
    m = play_match(rules, players, seed, on_hand=show)
    if m.winner is not None and m.totals is not None:
        print(f"\n{names[m.winner]} wins the match ({m.end}): totals with bonuses "
              f"{names[0]} {m.totals[0]}, {names[1]} {m.totals[1]}")  # fmt: skip
    return 0
