"""The ``ginp2p`` command line: the parser of every command, with its help, and
:func:`main`, which runs the command chosen and turns its errors into one line and an
exit code.

Each command's function lives with the others of its kind: :mod:`ginp2p.cli.network`
(play, host, join, bot, resume), :mod:`ginp2p.cli.records` (games, replay, audit,
export) and :mod:`ginp2p.cli.local` (keys, rules, selfplay). Heavy modules (zmq, nacl,
prompt_toolkit, the engine) are imported inside those functions, so ``ginp2p --help``
stays fast.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Sequence
from typing import Any, NoReturn

from ginp2p import __version__
from ginp2p.cli.computer import LEVELS
from ginp2p.cli.local import cmd_keys, cmd_rules, cmd_selfplay
from ginp2p.cli.network import cmd_bot, cmd_host, cmd_join, cmd_play, cmd_resume
from ginp2p.cli.output import Problem, UsageError, quiet_stdout, restore_terminal
from ginp2p.cli.records import NO_VERDICT, cmd_audit, cmd_export, cmd_games, cmd_replay
from ginp2p.cli.values import (
    GAME,
    GAME_FILE,
    NAME_CHARS,
    bind_address,
    given,
    interface_address,
    player_name,
    port_number,
    seconds,
    seed_number,
    some_seconds,
    whole_seconds,
)
from ginp2p.present.charset import encodes


class _Help(argparse.HelpFormatter):
    """argparse's help, but an epilog of examples keeps its lines as written (argparse
    would run them together into one paragraph), and a line never breaks at a hyphen
    (``italian-jokers`` is one name)."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if text.startswith("examples:"):
            return "".join(indent + line for line in text.splitlines(keepends=True))
        return super()._fill_text(text, width, indent)

    def _split_lines(self, text: str, width: int) -> list[str]:
        import textwrap

        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)


class _Parser(argparse.ArgumentParser):
    """Every command's parser (argparse makes the subcommands' of the same class): the
    help as :class:`_Help` writes it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Help)
        super().__init__(*args, **kwargs)


def _other_copies(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "others",
        nargs="*",
        default=[],
        metavar="OTHER.ginlog",
        type=GAME_FILE,
        help="the other player's copy of the same game: the entries of all copies "
        "are read together, so what one copy lost the other can hold (and two "
        "different entries at one place prove who made them)",
    )


def _console_options(p: argparse.ArgumentParser, play: bool = False) -> None:
    c = p.add_argument_group("console")
    c.add_argument("--plain", action="store_true",
                   help="a plain line prompt instead of the full-screen table (screen readers, "
                   + ("scripts: commands may come from a pipe)" if play else
                      "scripts; also the default without a terminal)"))  # fmt: skip
    c.add_argument(
        "--ascii",
        action="store_true",
        help="cards as 7H, TH, QS instead of suit symbols (NO_COLOR=1 drops colour)",
    )
    c.add_argument(
        "--no-bell", action="store_true", help="no terminal bell when it becomes your turn"
    )


def _game_options(p: argparse.ArgumentParser, host: bool, presets: tuple[str, ...]) -> None:
    g = p.add_argument_group("game")
    g.add_argument("--preset", choices=presets, metavar="PRESET",
                   help=f"rules: {', '.join(presets)} (default classic)" if host else
                   "refuse the host's rules unless they are this preset")  # fmt: skip
    g.add_argument("--set", action="append", metavar="NAME=VALUE",
                   help="change one rule setting, e.g. --set game_target=50 (repeatable)"
                   if host else "insist on one rule setting: refuse the host's rules unless "
                   "NAME is VALUE, e.g. --set game_target=50 (repeatable)")  # fmt: skip
    g.add_argument("--name", type=player_name,
                   help=f"your name as the other player sees it: 1 to {NAME_CHARS} characters "
                   "on one line")  # fmt: skip
    g.add_argument("--log-dir", metavar="DIR", type=given("give a folder, or leave --log-dir "
                   "out for the default one"),
                   help="where to keep the game files (default: GINP2P_HOME/games or "
                   "~/.local/share/ginp2p/games)")  # fmt: skip
    if host:
        g.add_argument("--claim-timeout", type=whole_seconds, default=120, metavar="SECONDS",
                       help="how long the other player may keep you waiting before you can "
                       "claim the match (host; default 120)")  # fmt: skip
        g.add_argument("--k", type=int, default=20, help="cut-and-choose rounds of the "
                       "shuffle proofs, 20..64 (host; default 20)")  # fmt: skip
    else:  # the host's to choose: a guest is shown them with the rules
        p.set_defaults(claim_timeout=120, k=20)
    g.add_argument("-v", "--verbose", action="store_true", help="say more")


def _pair_option(p: argparse.ArgumentParser, host: bool = True, guest: bool = True) -> None:
    says = [*(["host: the pairing code to show (default: a fresh random one)"] if host else []),
            *(["guest: the host's code, instead of typing it"] if guest else [])]  # fmt: skip
    p.add_argument("--pair-code", metavar="CODE", help="; ".join(says))


def _mdns_options(p: argparse.ArgumentParser, host: bool, browse: bool) -> None:
    p.add_argument("--mdns-interface", metavar="ADDR", type=interface_address,
                   help="announce/look for games on this interface address only (e.g. "
                   "127.0.0.1); default every interface")  # fmt: skip
    if host:
        p.add_argument(
            "--no-advertise",
            action="store_true",
            help="do not announce the game on the LAN (the join string still works)",
        )
    p.add_argument("--browse-time", type=some_seconds, default=3.0, metavar="SECONDS",
                   help="how long to look for games on the LAN (default 3)" if browse
                   else argparse.SUPPRESS)  # fmt: skip


def _host_options(p: argparse.ArgumentParser) -> None:
    n = p.add_argument_group("network (host)")
    n.add_argument(
        "--port",
        type=port_number,
        help="port to listen on (default 52801, or any free one if it is taken; 0: any free port)",
    )
    n.add_argument(
        "--bind",
        default="0.0.0.0",
        metavar="ADDR",
        type=bind_address,
        help="address to listen on (default 0.0.0.0: every interface)",
    )


def _connect_option(p: argparse.ArgumentParser, guest: bool = True) -> None:
    if guest:
        p.add_argument(
            "--connect-timeout",
            type=some_seconds,
            default=20.0,
            metavar="SECONDS",
            help="give up joining if the host does not answer; in a game, "
            "when to say how to follow a host that moved (default 20)",
        )
    else:
        p.set_defaults(connect_timeout=None)
    p.add_argument("--linger", type=seconds, default=5.0, metavar="SECONDS",
                   help="after the match, how long to wait for the other player to confirm "
                   "it has every entry (default 5)")  # fmt: skip


def build_parser() -> argparse.ArgumentParser:
    from ginp2p.game.rules import PRESETS

    presets = tuple(PRESETS)
    ap = _Parser(
        prog="ginp2p",
        description="Gin Rummy for two people on one local network, with no server.",
        epilog="start with `ginp2p play` (you against the computer); two computers: "
        "`ginp2p host` on one, `ginp2p join` on the other",
    )
    ap.add_argument("--version", action="version", version=f"ginp2p {__version__}")
    sub = ap.add_subparsers(dest="command", metavar="COMMAND")
    ap.set_defaults(parsers=sub.choices)  # main() lets each command report its own errors

    play = sub.add_parser(
        "play", help="play a match against the computer (watch two if there is no terminal)",
        description="You against the computer player, which runs as a second ginp2p process "
        "talking the full network protocol over loopback. Without a terminal (a pipe, CI), "
        "two computer players play and you watch.")  # fmt: skip
    play.add_argument("--watch", action="store_true", help="watch two computer players")
    play.add_argument("--level", choices=LEVELS, default=LEVELS[0],
                      help="how well the computer plays: normal (default) or easy, a "
                      "weaker player for someone new to the game")  # fmt: skip
    play.add_argument("--new", action="store_true", help="begin a new game even if one "
                      "against the computer is unfinished (by default: asked whether to "
                      "continue it)")  # fmt: skip
    _connect_option(play, guest=False)
    _game_options(play, True, presets)
    _console_options(play, play=True)
    play.set_defaults(func=cmd_play, pair_code=None)

    host = sub.add_parser("host", help="host a match for a person on another computer",
                          description="Host a match: prints a join string and a pairing "
                          "code for the guest, and announces the game on the LAN.")  # fmt: skip
    _host_options(host)
    _pair_option(host, guest=False)
    _mdns_options(host, True, browse=False)
    _connect_option(host, guest=False)
    _game_options(host, True, presets)
    _console_options(host)
    host.set_defaults(func=cmd_host)

    join = sub.add_parser("join", help="join a match hosted on another computer",
                          description="Join a match: with the host's join string, or with "
                          "no ADDRESS pick one of the games found on the LAN.")  # fmt: skip
    join.add_argument(
        "address",
        nargs="?",
        metavar="ADDRESS",
        help="HOST:PORT/KEY (the host's join string) or HOST:PORT",
    )
    _pair_option(join, host=False)
    join.add_argument("--yes", action="store_true", help="accept the host's rules unasked")
    join.add_argument("--new", action="store_true", help="begin a new game even if one with "
                      "this host is unfinished (by default: told to resume it)")  # fmt: skip
    _mdns_options(join, False, browse=True)
    _connect_option(join)
    _game_options(join, False, presets)
    _console_options(join)
    join.set_defaults(func=cmd_join)

    bot = sub.add_parser(
        "bot",
        help="the computer player, hosting or joining a match",
        description="Play a whole match as the computer player, then exit.",
    )
    mode = bot.add_argument_group("mode (one of)")
    mode.add_argument("--host", action="store_true", help="host the match")
    mode.add_argument("--join", metavar="ADDRESS", help="join this host (HOST:PORT[/KEY]); "
                      "with --resume: where the host is now")  # fmt: skip
    mode.add_argument(
        "--discover",
        nargs="?",
        const=True,
        metavar="NAME",
        help="join the first game found on the LAN (or the one called NAME)",
    )
    mode.add_argument("--resume", metavar="FILE", help="continue a saved game")
    bot.add_argument("--new", action="store_true", help="joining: begin a new game even if "
                     "one with this host is unfinished")  # fmt: skip
    bot.add_argument("--level", choices=LEVELS, default=LEVELS[0],
                     help="how well it plays: normal (default) or easy; a resumed game "
                     "plays on at its level")  # fmt: skip
    _host_options(bot)
    _pair_option(bot)
    _mdns_options(bot, True, browse=True)  # --host, or --discover
    bot.set_defaults(browse_time=3.0)
    _connect_option(bot)
    _game_options(bot, True, presets)
    bot.add_argument("--game-file", help=argparse.SUPPRESS)
    bot.add_argument("--parent-pid", type=int, help=argparse.SUPPRESS)
    bot.set_defaults(func=cmd_bot)

    resume = sub.add_parser(
        "resume",
        help="continue a saved game (after a crash or quit)",
        description="Continue a saved game where it stopped, as the side you played: "
        "without GAME, the unfinished game played last (with several, they are listed, "
        "and at a terminal you choose).",
        epilog="""examples:
  ginp2p resume                       the unfinished game played last
  ginp2p games                        the saved games, numbered
  ginp2p resume 2                     game 2 of that list
  ginp2p resume GAME.ginlog           a game by its file
  ginp2p resume 2 --bot               let the computer play your side""",
    )
    resume.add_argument(
        "file",
        nargs="?",
        metavar="GAME",
        type=GAME,
        help="the game's number in `ginp2p games`, or its .ginlog file (a file's name "
        "alone is looked for in the games folder too); default: the unfinished game "
        "played last",
    )
    resume.add_argument("--log-dir", metavar="DIR", help="the games folder GAME is "
                        "numbered or named in (default: the one `ginp2p games` lists)",
                        type=given("give a folder, or leave --log-dir out for the default "
                        "one"))  # fmt: skip
    resume.add_argument("--bot", action="store_true", help="let the computer play this side")
    resume.add_argument("--address", metavar="HOST:PORT", help="guest: the host moved here")
    resume.add_argument("--port", type=port_number, help="host: listen on another port (0: "
                        "any free one)")  # fmt: skip
    resume.add_argument("-v", "--verbose", action="store_true", help="say more")
    _connect_option(resume)
    _console_options(resume)
    resume.set_defaults(func=cmd_resume)

    keys = sub.add_parser("keys", help="your key and fingerprint; paired players",
                          description="Show your key and fingerprint and the players you "
                          "paired with; a safety number; forget a player.")  # fmt: skip
    one = keys.add_mutually_exclusive_group()
    one.add_argument(
        "--safety",
        metavar="PEER",
        type=given(
            "say whose: a paired player's name or the start of their "
            "fingerprint (`ginp2p keys` lists them)"
        ),
        help="the safety number with a paired player (name or fingerprint)",
    )
    one.add_argument(
        "--forget",
        metavar="PEER",
        help="unpin a player (name or fingerprint start): pair again next time",
    )
    keys.set_defaults(func=cmd_keys)

    games = sub.add_parser("games", help="list the saved games",
                           description="The saved games, newest first and numbered "
                           "(`ginp2p resume N` continues game N): when each began, "
                           "the opponent, the rules (the preset; * if --set changed them, "
                           "as said below the file) and the result, then the game's "
                           "file. A game is unfinished until its match ends, dealt or "
                           "not.")  # fmt: skip
    games.add_argument("--log-dir", metavar="DIR", help="another games folder",
                       type=given("give a folder, or leave --log-dir out for the default "
                       "one"))  # fmt: skip
    games.set_defaults(func=cmd_games)

    replay = sub.add_parser("replay", help="step through a saved game, or print it",
                            description="Step forward and back through a saved game log "
                            "(finished or not): entry by entry, move by move, hand by hand, "
                            "as either player or an onlooker saw it, with the entries the "
                            "audit rejects marked. Press ? in the viewer for the keys.",
                            epilog="""examples:
  ginp2p replay GAME.ginlog                  the viewer (? in it: the keys)
  ginp2p replay GAME.ginlog --as all         every card the log proves
  ginp2p replay GAME.ginlog --moves          the moves as text
  ginp2p replay A.ginlog B.ginlog            both players' copies, as one""",
                            )  # fmt: skip
    replay.add_argument("file", metavar="GAME.ginlog", type=GAME_FILE, help="a saved game log")
    _other_copies(replay)
    replay.add_argument("--as", dest="view", metavar="VIEW",
                        type=given("say whose view: public, host, guest, all, or a player's "
                        "name"),
                        help="whose view: public, host, guest, all, or a player's name "
                        "(default: the player whose secrets file is beside the log, else "
                        "public)")  # fmt: skip
    replay.add_argument(
        "--hand",
        type=int,
        metavar="N",
        help="start at hand N (with --plain or --moves: only hand N)",
    )
    replay.add_argument("--ascii", action="store_true", help="cards as 7H/TS, no suit symbols")
    replay.add_argument("--secrets", action="append", metavar="FILE",
                        type=given("give a player's .secrets file"),
                        help="a player's .secrets file to read their cards with (repeatable; "
                        "the one beside the log is read anyway)")  # fmt: skip
    text = replay.add_argument_group("text instead of the full-screen viewer")
    text.add_argument("--plain", action="store_true",
                      help="print the entries as lines of words (the default without a "
                      "terminal)")  # fmt: skip
    text.add_argument("--moves", action="store_true",
                      help="print only moves, deals, results and marked entries (implies "
                      "--plain)")  # fmt: skip
    text.add_argument("--at", metavar="N|end", help="print the table at entry N, or at the end")
    replay.set_defaults(func=cmd_replay)

    audit = sub.add_parser(
        "audit", help="judge a game log: clean, cheated (who, where, proof), incomplete, damaged",
        description="Re-check every signature, shuffle step, key and rule of a saved game "
        "and give one verdict per hand and one for the file. The exit code is the verdict: "
        f"0 clean, 1 cheated, 2 incomplete, 3 damaged ({NO_VERDICT}: no verdict, e.g. no "
        "such file). See docs/audit.md.", epilog="""examples:
  ginp2p games                      the saved games and their files
  ginp2p audit GAME.ginlog          the verdict, then each hand's
  ginp2p audit GAME.ginlog --hand 3 hand 3 only; its verdict is the exit code
  ginp2p audit A.ginlog B.ginlog    both players' copies, judged as one
  ginp2p export GAME.ginlog         every deal, move, showdown and score""")  # fmt: skip
    audit.add_argument("file", metavar="GAME.ginlog", type=GAME_FILE, help="a saved game log")
    _other_copies(audit)
    audit.add_argument(
        "--hand",
        type=int,
        metavar="N",
        help="report hand N only (0: the set-up); the exit code is its verdict",
    )
    audit.add_argument(
        "--json",
        action="store_true",
        help="the report as JSON (a stable schema, see docs/audit.md)",
    )
    audit.set_defaults(func=cmd_audit)

    def audit_usage_error(message: str) -> NoReturn:
        audit.print_usage(sys.stderr)
        audit.exit(NO_VERDICT, f"ginp2p audit: error: {message}\n")

    audit.error = audit_usage_error  # type: ignore[method-assign]  # 2 means incomplete

    export = sub.add_parser("export", help="a saved game as JSON or text: every deal, move, "
                            "showdown and score",
                            description="Print the whole game: every hand's deal, moves, "
                            "showdown and scores. Only what the log proves is shown: in a "
                            "hand whose seeds were never opened, unseen cards stay hidden.",
                            epilog="""examples:
  ginp2p export GAME.ginlog                     read it in the terminal
  ginp2p export GAME.ginlog -o game.txt         keep it as a text file
  ginp2p export A.ginlog B.ginlog               both players' copies, as one
  ginp2p export GAME.ginlog --format json -o game.json""",
                            )  # fmt: skip
    export.add_argument("file", metavar="GAME.ginlog", type=GAME_FILE, help="a saved game log")
    _other_copies(export)
    export.add_argument(
        "--format",
        choices=("text", "json"),
        default="text",
        help="text for people (default) or JSON (schema in docs/audit.md)",
    )
    export.add_argument("--ascii", action="store_true", help="text: cards as 7H/TS")
    export.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        type=given("give a file to write, or '-' for the screen"),
        help="write to FILE (UTF-8), not stdout ('-': stdout)",
    )
    export.set_defaults(func=cmd_export)

    selfplay = sub.add_parser("selfplay",
                              help="two computer players in one process, engine only (fast)",
                              description="Two computer players play one whole match through "
                              "the rules engine, in this process (no network, no log): a quick "
                              "look at a preset.")  # fmt: skip
    selfplay.add_argument("--preset", default="classic", choices=presets, metavar="PRESET",
                          help=f"rules to play: {', '.join(presets)} (default: "
                          "classic)")  # fmt: skip
    selfplay.add_argument(
        "--set", action="append", metavar="NAME=VALUE", help="change one rule setting (repeatable)"
    )
    selfplay.add_argument("--seed", type=seed_number, help="replay a match exactly: 0 or more "
                          "(default: random)")  # fmt: skip
    selfplay.add_argument("-v", "--verbose", action="store_true", help="show every showdown")
    selfplay.set_defaults(func=cmd_selfplay)

    rules = sub.add_parser("rules", help="list the presets, or show one preset's settings",
                           description="Without PRESET, the presets with a line on each; "
                           "with one, its rules in a few sentences and every setting in "
                           "words. docs/rules.md explains the presets for players.")  # fmt: skip
    rules.add_argument(
        "preset",
        nargs="?",
        choices=presets,
        metavar="PRESET",
        help=f"one of {', '.join(presets)}",
    )
    rules.add_argument("--raw", action="store_true", help="the names only; with PRESET, "
                       "each setting as --set NAME=VALUE takes it")  # fmt: skip
    rules.set_defaults(func=cmd_rules)
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``ginp2p`` command ``argv`` (default: this process's arguments); the exit
    code. A mistake on the command line exits 2 (``audit``: 4), what the command cannot
    do as things stand 1, a Ctrl-C 130."""
    restore_terminal()  # before any line: a full-screen program killed may have left it
    ap = build_parser()
    args, extra = ap.parse_known_args(argv)
    if not getattr(args, "func", None):
        if extra:
            ap.error(f"unrecognized arguments: {' '.join(extra)}")
        ap.print_help()
        return 0
    if extra:  # each command's own parser says it (audit exits NO_VERDICT, not 2)
        args.parsers[args.command].error(f"unrecognized arguments: {' '.join(extra)}")
    _never_unprintable()
    warnings.formatwarning = _warning_line
    try:
        return int(args.func(args))
    except UsageError as exc:
        ap.exit(2, f"ginp2p {args.command}: error: {exc}\n")
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `| head`: the reader has all it wants
        quiet_stdout()
        return 0
    except Exception as exc:
        from ginp2p.files.identity import (
            IdentityError,  # imported on failure only: `rules` needs no nacl
        )

        if isinstance(exc, IdentityError | Problem):
            why = str(exc)
        elif isinstance(exc, OSError) and exc.filename is not None:
            # a folder that is a file, a read-only folder: one line, not a traceback
            why = f"{exc.filename}: {exc.strerror or exc}"
        else:
            raise
        print(f"ginp2p {args.command}: error: {why}", file=sys.stderr)
        return 1
    return 0


def _warning_line(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                  line: str | None = None) -> str:  # fmt: skip
    """A warning for the player, not a source line (a torn tail cut, a key's mode)."""
    return f"ginp2p: warning: {message}\n"


def _never_unprintable() -> None:
    """On a console that cannot show a character (cp1252, ``PYTHONIOENCODING=ascii``)
    print ``?`` for it instead of failing; card names are made ASCII where it matters
    (see :func:`ginp2p.game.cards.ascii_names`)."""
    for stream in (sys.stdout, sys.stderr):
        if not encodes(stream, "♥♦♣♠─·▶…") and hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="replace")
