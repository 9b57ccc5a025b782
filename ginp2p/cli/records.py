"""The commands over saved games: ``games`` lists them, ``replay`` steps through one,
``audit`` judges one (its exit code is the verdict) and ``export`` prints one as text
or JSON. None of them touches the network."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ginp2p.cli.output import Problem, UsageError, padded, printer, quiet_stdout
from ginp2p.cli.values import games_folder
from ginp2p.present.charset import encodes

if TYPE_CHECKING:
    from ginp2p.files.games import GameInfo

#: ``audit`` exit when there is no verdict to give (no such file, a bad option): not
#: 0-3, so a script reading the verdict from the exit code never mistakes a typo for one.
NO_VERDICT = 4


def cmd_games(args: argparse.Namespace) -> int:
    import shutil

    from ginp2p.files.games import list_games

    directory = games_folder(args)
    if directory.exists() and not directory.is_dir():
        raise UsageError(f"{directory} is not a folder")
    if args.log_dir and not directory.exists():  # a typo, not "no games yet"
        raise UsageError(f"{directory}: no such folder")
    if not directory.exists():  # no games yet, unless a file is in the way of the folder
        blocked = next((d for d in directory.parents if d.exists()), None)
        if blocked is not None and not blocked.is_dir():
            raise Problem(f"cannot look for games in {directory}: {blocked} is not a folder "
                          "(set GINP2P_HOME to a folder)")  # fmt: skip
    games = list_games(directory) if directory.exists() else []
    watched = _watched_line(directory)
    if not games:
        print(f"no games in {directory}" + (f"\n{watched}" if watched else ""))
        return 0
    games = _as_paired(games)
    for line in _games_table(games, shutil.get_terminal_size((80, 24)).columns):
        print(line)
    if any(g.unfinished for g in games):
        print("`ginp2p resume N` continues game N (`ginp2p resume`: the one played "
              "last)")  # fmt: skip
    if watched:
        print(watched)
    return 0


def _as_paired(games: list[GameInfo]) -> list[GameInfo]:
    """Each game's opponent by the name its key was paired under where it played under
    another (the name in a game is only what the other side announced), that one said
    under the game with the fingerprint: ``Mallory (ab12-…) called itself Alice in this
    game``."""
    import dataclasses

    from ginp2p.files import peers

    try:
        pinned = {p.key: p for p in peers.all()}
    except (OSError, peers.PeersError):  # `ginp2p keys` reports a damaged peers.json
        return games
    out = []
    for g in games:
        key = g.peer_key
        pin = pinned.get(key) if key is not None else None
        if pin is not None and g.opponent not in ("?", "-") \
                and not (pin.named and peers.same_name(pin.name, g.opponent)):  # fmt: skip
            # (unnamed: a key whose first name was another pin's, never shown as that one)
            own = pin.name if pin.named else "unnamed"
            said = f"{own} ({pin.fingerprint}) called itself {g.opponent} in this game"
            g = dataclasses.replace(g, opponent=own,
                                    note="; ".join(filter(None, (g.note, said))))  # fmt: skip
        out.append(g)
    return out


def _watched_line(directory: Path) -> str:
    """Where the matches watched with ``play --watch`` are, if any: they are not the
    player's games, so they are not listed with them ("" for none)."""
    from ginp2p.cli.computer import WATCHED

    folder = directory / WATCHED
    n = sum(1 for _ in folder.glob("*.ginlog")) if folder.is_dir() else 0
    if not n:
        return ""
    import shutil
    import textwrap

    text = (f"(and {n} {'match' if n == 1 else 'matches'} you watched, between two computer "
            f"players, in {folder}: `ginp2p games --log-dir {folder}` lists them)")  # fmt: skip
    width = max(60, shutil.get_terminal_size((80, 24)).columns) - 1
    return "\n".join(textwrap.wrap(text, width, break_on_hyphens=False, break_long_words=False))


def _games_table(games: list[GameInfo], width: int) -> list[str]:
    """``ginp2p games`` for a terminal ``width`` wide (80 for a pipe): each game's number
    (1: the newest; ``resume N`` takes it), then a line of date, opponent, rules and
    result (wrapped in its column), then the file on a line of its own, which a full
    path needs; rules changed with ``--set`` are marked ``*`` and listed under the file.
    For people: no script should parse it."""
    import textwrap

    from prompt_toolkit.utils import get_cwidth

    width = max(width, 60) - 1  # a line as wide as the terminal wraps in some of them
    rules = [g.preset + "*" * bool(g.changes) for g in games]
    who = min(16, max(len("opponent"), *(get_cwidth(g.opponent) for g in games)))
    how = max(len("rules"), *(len(r) for r in rules))
    number = len(str(len(games)))
    indent = " " * (number + 2)
    left = len(indent) + 16 + 2 + who + 2 + how + 2
    lines = [f"{indent}{'began':<16}  {'opponent':<{who}}  {'rules':<{how}}  result"]
    for n, (g, r) in enumerate(zip(games, rules, strict=True), 1):
        tag = g.result.replace("[audit: ", "[audit:\0")  # a tag is not broken
        result = [part.replace("\0", " ") for part in textwrap.wrap(tag, max(width - left, 20))]
        result = result or [""]
        lines.append(f"{n:>{number}}  {g.date:<16}  {padded(g.opponent, who, cut=True)}  "
                     f"{r:<{how}}  {result[0]}")  # fmt: skip
        lines += [" " * left + more for more in result[1:]]
        lines.append(f"{indent}{g.path}")
        if g.changes:
            lines += textwrap.wrap(f"* {g.preset} with {g.changes}", width, initial_indent=indent,
                                   subsequent_indent=indent + "  ")  # fmt: skip
        if g.note:  # a file of the game skipped (a pipe named .peer), another name
            lines += textwrap.wrap(f"({g.note})", width, initial_indent=indent,
                                   subsequent_indent=indent + "  ")  # fmt: skip
    return lines


def cmd_replay(args: argparse.Namespace) -> int:
    from ginp2p.console.tui.keys import unechoed

    with unechoed(sys.stdin):  # as the game loads (command): keys wait for the viewer
        from ginp2p.console.tui.replay import command  # prompt_toolkit's import takes a moment
    return command(args)


def cmd_audit(args: argparse.Namespace) -> int:
    import json

    from ginp2p.files.logfile import FileError, read_error
    from ginp2p.files.records import NotOneGame, audit_file
    from ginp2p.present.words import hands_words

    path = Path(args.file)
    try:
        report = audit_file(path, *args.others, known=_known_keys())
    except NotOneGame as exc:
        return _no_verdict(args, str(exc))
    except (OSError, FileError) as exc:
        return _no_verdict(args, read_error(path, exc))
    if args.hand is None:
        # --json escapes what it must itself
        text = json.dumps(report.to_json(), indent=2) if args.json else report.text()
        return _verdict_out(args, text, report.exit_code)
    chosen = next((h for h in report.hands if h.hand == args.hand), None)
    if chosen is None:
        numbers = [h.hand for h in report.hands if h.hand]
        have = f" ({hands_words(numbers)})" if numbers else " (no hand was dealt)"
        return _no_verdict(args, f"the log has no hand {args.hand}{have}")
    if args.json:
        doc = report.to_json()
        doc["hands"] = [h for h in doc["hands"] if h["hand"] == args.hand]
        doc["selected"] = {"hand": args.hand, "verdict": str(chosen.verdict),
                           "exit": chosen.verdict.exit_code}  # fmt: skip
        text = json.dumps(doc, indent=2)
    else:
        text = report.text(only=args.hand)
    return _verdict_out(args, text, chosen.verdict.exit_code)


def _known_keys() -> dict[bytes, str]:
    """The keys the user knows, with who each is, for the audit to name: the paired
    players' and the user's own (read if there is one, never created). A key or a
    peers.json that cannot be read counts as unknown: `ginp2p keys` reports it."""
    import contextlib

    from ginp2p.files import peers
    from ginp2p.files.identity import (
        IDENTITY_FILE,
        IdentityError,
        load_or_create_identity,
        user_dir,
    )

    known: dict[bytes, str] = {}
    with contextlib.suppress(OSError, peers.PeersError):
        known.update((p.key, f"paired with you as {p.title}") for p in peers.all())
    if (user_dir("config") / IDENTITY_FILE).is_file():  # or load_... would create one
        with contextlib.suppress(OSError, IdentityError):
            known[load_or_create_identity().public_key] = "you"
    return known


def _no_verdict(args: argparse.Namespace, why: str) -> int:
    """Say why there is no verdict; with ``--json`` also as JSON on stdout, so a script
    reading it finds an answer there, not nothing."""
    print(f"ginp2p audit: error: {why}", file=sys.stderr)
    if args.json:
        import json

        print(json.dumps({"schema": 1, "verdict": None, "exit": NO_VERDICT, "error": why}))
    return NO_VERDICT


def _verdict_out(args: argparse.Namespace, text: str, code: int) -> int:
    """Print the report and return the verdict's exit code, even when the reader stops
    early (``| head``): a script under ``pipefail`` must not read a cheat as clean."""
    from ginp2p.present.words import for_screen

    try:
        if args.json:
            print(text, flush=True)
        else:  # the report quotes a player's words (a false dispute's rule): line by line
            printer(args)("\n".join(for_screen(line) for line in text.split("\n")))
    except BrokenPipeError:
        quiet_stdout()
    return code


def cmd_export(args: argparse.Namespace) -> int:
    import json

    from ginp2p.files.gamefiles import peer_path
    from ginp2p.files.logfile import secrets_path
    from ginp2p.files.records import load_replay
    from ginp2p.game.cards import ascii_names
    from ginp2p.record.export import document, text_lines
    from ginp2p.record.replay import ReplayError

    def fail(text: str) -> int:
        print(f"ginp2p export: error: {text}", file=sys.stderr)
        return 1

    to_file = args.output not in (None, "-")
    games = [Path(f) for f in (args.file, *args.others)]
    if folder := next((g for g in games if g.is_dir()), None):  # "/": no name to look beside
        return fail(f"{folder} is a folder, not a game log")
    own = [f for g in games for f in (g, secrets_path(g), peer_path(g))]
    if to_file and any(_same_file(args.output, str(f)) for f in own):
        return fail(f"{args.output} is one of the game's own files: write the export "
                    "elsewhere")  # fmt: skip
    try:
        replay = load_replay(args.file, others=args.others, find_secrets=False)
    except ReplayError as exc:
        return fail(str(exc))
    if args.format == "json":  # escaped where the console cannot show a suit
        flat = not to_file and not encodes(sys.stdout, "♥♦♣♠")
        text = json.dumps(document(replay), indent=2, ensure_ascii=flat)
    else:
        ascii = args.ascii or (not to_file and not encodes(sys.stdout, "♥♦♣♠"))
        text = "\n".join(text_lines(document(replay, symbols=not ascii), ascii=ascii))
        text = ascii_names(text) if ascii else text
    if not to_file:
        print(text)
        return 0
    try:
        Path(args.output).write_text(text + "\n", encoding="utf-8")
    except OSError as exc:
        print(f"ginp2p export: error: {args.output}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    print(f"wrote {args.output}", file=sys.stderr)
    return 0


def _same_file(a: str, b: str) -> bool:
    try:
        return Path(a).samefile(b)
    except OSError:  # one of them does not exist
        return False
