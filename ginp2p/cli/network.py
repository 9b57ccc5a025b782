"""The commands that play a game over the network: ``play`` (you against the computer
player over loopback), ``host``, ``join``, ``bot`` and ``resume``. Each turns its
options into a :class:`~ginp2p.app.config.GameSetup` and runs it to the end."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ginp2p import __version__
from ginp2p.cli.computer import (
    COMPUTER_NAME,
    PAIR_CODE_ENV,
    WATCHER_NAME,
    computer_game_out,
    mind_computer,
    spawn_computer,
    stop_computer,
    watched,
    watched_folder,
    watcher_home,
)
from ginp2p.cli.lan import find_address
from ginp2p.cli.output import Problem, UsageError, printer
from ginp2p.cli.unfinished import (
    chosen_game,
    continue_play,
    game_log,
    host_notice,
    unfinished_with_host,
)
from ginp2p.cli.values import chosen_rules, games_folder

if TYPE_CHECKING:
    import subprocess

    from ginp2p.app.config import GameSetup
    from ginp2p.app.piped import PipedLines
    from ginp2p.app.players import Player
    from ginp2p.console.tui.table import TablePlayer
    from ginp2p.files.gamefiles import PeerFile
    from ginp2p.files.identity import Identity


def _console(setup: GameSetup, args: argparse.Namespace) -> None:
    """What a person plays at: the full-screen table, or else the line prompt; at the
    table, a screen of its own while the other player is awaited."""
    setup.table = _table(args)
    setup.person = _line_prompt
    if setup.table is not None:
        from ginp2p.console.tui.waiting import WaitingScreen

        setup.new_table = lambda: _table(args)  # for the next guest, after one said no
        setup.waiting = WaitingScreen(setup.table.look)


def _line_prompt(piped: PipedLines | None) -> Player:
    from ginp2p.console.line import LinePlayer

    return LinePlayer(stdin=piped)


def _table(args: argparse.Namespace) -> TablePlayer | None:
    """The full-screen table for a person, unless ``--plain`` or there is no terminal
    (a pipe, CI: then the line mode, which scripts and screen readers read)."""
    import os

    if getattr(args, "plain", False) or not (sys.stdin.isatty() and sys.stdout.isatty()):
        return None
    if os.environ.get("TERM") == "dumb":  # no cursor movement: a full screen cannot work
        return None
    from ginp2p.console.tui.look import Look
    from ginp2p.console.tui.table import TablePlayer

    return TablePlayer(Look.from_env(ascii=getattr(args, "ascii", False)),
                       bell=not getattr(args, "no_bell", False))  # fmt: skip


def _watch_table(args: argparse.Namespace) -> TablePlayer | None:
    """The read-only table of a watched match, where :func:`_table` would show one."""
    if _table(args) is None:
        return None
    from ginp2p.console.tui.look import Look
    from ginp2p.console.tui.watch import WatchTable

    return WatchTable(Look.from_env(ascii=getattr(args, "ascii", False)))


def _check_common(args: argparse.Namespace) -> None:
    """The options no ``type=`` can check alone; the first step of every new game."""
    if not 20 <= args.k <= 64:
        raise UsageError("--k must be between 20 and 64")
    if not 1 <= args.claim_timeout <= 86400:
        raise UsageError("--claim-timeout must be between 1 and 86400 seconds")
    if args.pair_code is not None:
        from ginp2p.net.pairing import canonical_code

        try:
            canonical_code(args.pair_code)
        except ValueError as exc:
            raise UsageError(f"--pair-code: {exc}") from None


def _default_name(bot: bool) -> str:
    """The name without ``--name``: the computer's, else the user's login name."""
    if bot:
        return "Bot"
    import getpass

    from ginp2p.proto.events import NAME_BYTES

    try:
        name = getpass.getuser().encode("utf-8")[:NAME_BYTES].decode("utf-8", "ignore")
    except Exception:
        return "player"
    return "".join(c for c in name if c.isprintable()) or "player"


def _created() -> str:
    import datetime

    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


def _default_port() -> int:
    from ginp2p.net.discovery import DEFAULT_PORT

    return DEFAULT_PORT


def _new_game(args: argparse.Namespace, player: str, role: str) -> int:
    """A new game: host (bind) or guest (join)."""
    from ginp2p.app.config import GameSetup
    from ginp2p.files import peers
    from ginp2p.files.gamefiles import PeerFile, new_game_path
    from ginp2p.files.identity import load_or_create_identity
    from ginp2p.proto.keytext import key_to_text

    _check_common(args)
    bot = player == "bot"
    name = args.name or _default_name(bot)
    notice = ""
    if role == "host":
        if not bot:
            notice = host_notice(args)
        port = args.port if args.port is not None else _default_port()
        rules = chosen_rules(args)
        side = PeerFile("host", name, player, None, args.bind, port, rules.to_dict(),
                        args.k, args.claim_timeout, _created())  # fmt: skip
        expect = None
    else:
        host, port, key = find_address(args, bot)
        by_hand = getattr(args, "parent_pid", None) is None  # not `play`'s computer
        games, host_key = games_folder(args), key_to_text(key)
        if by_hand and games.is_dir():
            from ginp2p.files.games import drop_never_begun

            for gone in drop_never_begun(games, host_key):
                print(f"{gone} never began (you had not said yes to this host's rules), "
                      "so it is removed")  # fmt: skip
        # a game with a host forgotten since waits for pairing again, which this join
        # does: pointing at `resume` would only send the player round in a circle
        from ginp2p.app.setup import busy_as_guest

        if (busy := busy_as_guest(key, port)) is not None:  # before: its game is not old
            raise Problem(busy)
        if by_hand and not getattr(args, "new", False) and peers.lookup_quietly(key) is not None:
            old = unfinished_with_host(args, host_key)
            if old is not None:
                raise Problem(f"you have an unfinished game with this host, {old[0]}: continue "
                              f"it with `{old[1]}` (or add --new to begin another)")  # fmt: skip
        expect = chosen_rules(args) if (args.preset or args.set) else None
        side = PeerFile("guest", name, player, host_key, host, port,
                        expect.to_dict() if expect else None, created=_created())  # fmt: skip
    if bot:  # how it plays, kept for a resume
        side.level = getattr(args, "level", side.level)
    identity = load_or_create_identity()
    path = (
        Path(args.game_file)
        if getattr(args, "game_file", None)
        else new_game_path(games_folder(args), role)
    )
    setup = GameSetup(
        side, path, player, verbose=args.verbose, connect_timeout=args.connect_timeout,
        linger=args.linger, expect_rules=expect, accept_rules=getattr(args, "yes", False),
        pair_code=args.pair_code, advertise=not getattr(args, "no_advertise", False),
        any_port_if_taken=role == "host" and args.port is None,
        mdns_interface=getattr(args, "mdns_interface", None),
        parent_pid=getattr(args, "parent_pid", None), out=printer(args),
        err=printer(args, error=True), claims=getattr(args, "parent_pid", None) is None,
    )  # fmt: skip
    if not bot:
        _console(setup, args)
        if notice and setup.waiting is not None:  # said above it, and on it (it covers it)
            setup.waiting.note(notice)
    return _run(setup, identity, resume=False)


def _resume(args: argparse.Namespace, player: str | None) -> int:
    from ginp2p.app.config import GameSetup
    from ginp2p.files.gamefiles import PeerFile, peer_path
    from ginp2p.files.identity import load_or_create_identity
    from ginp2p.files.logfile import FileError, read_error, read_records
    from ginp2p.net.discovery import parse_join

    path = game_log(Path(args.file))
    if not path.exists():
        raise Problem(f"{path}: no such file")
    try:  # a file that is no game log says so, before its missing .peer would
        read_records(path)
    except (OSError, FileError) as exc:
        raise Problem(read_error(path, exc)) from None
    try:
        side = PeerFile.load(peer_path(path))
    except ValueError as exc:
        raise Problem(str(exc)) from None
    player = player or side.player  # for this run only: the file keeps who plays it
    if getattr(args, "address", None) is not None:
        try:
            host, port, _ = parse_join(args.address)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        side.host, side.port = host, port
    if getattr(args, "port", None) is not None and side.role == "host":
        side.port = args.port
    if side.role == "guest" and getattr(args, "parent_pid", None) is None:
        _check_begun(path, side)
    expect = side.ruleset() if side.role == "guest" and side.rules else None
    setup = GameSetup(side, path, player, verbose=args.verbose,
                      connect_timeout=args.connect_timeout, linger=args.linger,
                      expect_rules=expect, accept_rules=player == "bot",
                      parent_pid=getattr(args, "parent_pid", None), out=printer(args),
                      err=printer(args, error=True),
                      # against the computer of `play`, nobody claims
                      claims=getattr(args, "parent_pid", None) is None
                      and not side.computer_game)  # fmt: skip
    if side.computer_game and watched(path):  # a watched match: the watcher's key
        setup.home = watcher_home()
    if player != "bot":
        _console(setup, args)
    children: list[subprocess.Popen[bytes]] = []
    if side.computer_game and side.role == "host":
        game = side.computer_game
        setup.out = computer_game_out(setup.out or print, watch=player == "bot")

        def on_listening(port: int, join: str, code: str) -> None:
            # started once the port is known: `resume --port` may have moved it
            again = ["--resume", game, "--join", f"127.0.0.1:{port}"]
            children.append(spawn_computer(again, Path(game)))
            mind_computer(children, again, again, Path(game), setup)

        setup.on_listening = on_listening
    try:
        return _run(setup, load_or_create_identity(setup.home), resume=True)
    finally:
        stop_computer(children, setup)


def _check_begun(path: Path, side: PeerFile) -> None:
    """A guest's game begins with its yes to the host's rules. Resuming a file left at
    that question would ask them again from a hello the host may have left behind (a
    new game of its own since): a new `join` asks the host's rules as they are now.
    Not for the computer of `play`, whose host is always the same game."""
    from ginp2p.files.games import rules_accepted
    from ginp2p.net.discovery import format_join

    if rules_accepted(path):
        return
    try:
        again = format_join(side.host, side.port, side.peer_public_key)
    except (TypeError, ValueError):  # a damaged .peer: the advice stands without it
        again = "HOST:PORT/KEY"
    raise Problem(f"{path} never began: you had not said yes to the host's rules, so "
                  f"there is nothing to resume; to play this host, join it again: "
                  f"ginp2p join {again}")  # fmt: skip


def _run(setup: GameSetup, identity: Identity, *, resume: bool) -> int:
    import asyncio

    from ginp2p.app.setup import run_game

    if sys.platform == "win32":  # zmq.asyncio needs add_reader (pyzmq#1423)
        asyncio.set_event_loop_policy(asyncio.WindowsSelectorEventLoopPolicy())  # type: ignore[attr-defined]
    saved = f"the game is saved: ginp2p resume {setup.path}"
    try:
        return asyncio.run(run_game(setup, identity, resume=resume))
    except KeyboardInterrupt:
        print(f"\ninterrupted; {saved if setup.path.exists() else 'nothing was saved'}",
              file=sys.stderr)  # fmt: skip
        return 130
    except BrokenPipeError:  # `| head`: the reader stopped reading (main says nothing)
        raise
    except OSError as exc:  # a full disk, a folder taken away: every whole entry is kept
        print(f"ginp2p: error: {exc}", file=sys.stderr)
        if setup.path.exists():
            print(f"up to the last entry written, {saved}", file=sys.stderr)
        return 1


def cmd_host(args: argparse.Namespace) -> int:
    return _new_game(args, "human", "host")


def cmd_join(args: argparse.Namespace) -> int:
    return _new_game(args, "human", "guest")


def cmd_bot(args: argparse.Namespace) -> int:
    import os

    # `play` hands its computer the code here: a command line is visible to every local
    # user (`ps`), a process's environment only to its owner
    code = os.environ.pop(PAIR_CODE_ENV, None)
    if args.pair_code is None and code:
        args.pair_code = code
    chosen = [x for x in (args.host, args.resume, args.discover) if x]
    if args.join is not None and not args.resume:  # --join "": a join string, empty
        chosen.append(args.join)
    if len(chosen) != 1:
        raise UsageError("give exactly one of --host, --join HOST:PORT/KEY, --discover, "
                         "--resume FILE")  # fmt: skip
    if args.resume:
        args.file, args.address = args.resume, args.join  # --join: where the host is now
        return _resume(args, "bot")
    if args.join is not None or args.discover:
        args.address = args.join
        args.discover_name = args.discover if isinstance(args.discover, str) else None
        return _new_game(args, "bot", "guest")
    return _new_game(args, "bot", "host")


def cmd_resume(args: argparse.Namespace) -> int:
    args.file = str(chosen_game(args))
    return _resume(args, "bot" if args.bot else None)


def cmd_play(args: argparse.Namespace) -> int:
    """You against the computer player over loopback ZeroMQ, with the full protocol.

    Without a terminal to type in (CI, a pipe), two computer players play instead and
    you watch: same processes, same protocol.
    """
    from ginp2p.app.config import GameSetup
    from ginp2p.files.gamefiles import PeerFile, drop_reservation, new_game_path
    from ginp2p.files.identity import load_or_create_identity
    from ginp2p.net.pairing import new_code
    from ginp2p.present.words import preset_words
    from ginp2p.proto.keytext import key_to_text

    _check_common(args)
    watch = args.watch or not (sys.stdin.isatty() or args.plain)  # --plain: commands piped in
    if not watch and (unfinished := continue_play(args)) is not None:
        args.file = str(unfinished)
        return _resume(args, None)
    player = "bot" if watch else "human"
    rules = chosen_rules(args)
    name = args.name or (WATCHER_NAME if watch else _default_name(False))
    # a watched match is neither the user's game nor signed with the user's key
    home = watcher_home() if watch else None
    identity = load_or_create_identity(home)
    log_dir = watched_folder(games_folder(args)) if watch else games_folder(args)
    path = new_game_path(log_dir, "host")
    computer_game = new_game_path(log_dir / "computer", "guest")
    side = PeerFile("host", name, player, None, "127.0.0.1", 0, rules.to_dict(), args.k,
                    args.claim_timeout, _created(), computer_game=str(computer_game))  # fmt: skip
    if watch:
        why = "" if args.watch else "no terminal to play in, so "
        print(f"ginp2p {__version__}: {why}two computer players play a match over the network "
              f"protocol ({preset_words(rules)}); `ginp2p play` in a terminal is you against the "
              "computer\n", flush=True)  # fmt: skip
    children: list[subprocess.Popen[bytes]] = []

    def on_listening(port: int, join: str, code: str) -> None:
        key = key_to_text(identity.public_key)
        first = ["--join", f"127.0.0.1:{port}/{key}", "--name", COMPUTER_NAME, "--level",
                 args.level, "--game-file", str(computer_game), "--linger", str(args.linger),
                 "--connect-timeout", "30"]  # fmt: skip
        children.append(spawn_computer(first, computer_game, code))
        again = ["--resume", str(computer_game), "--join", f"127.0.0.1:{port}", "--linger",
                 str(args.linger)]  # fmt: skip
        mind_computer(children, first, again, computer_game, setup, code)

    setup = GameSetup(side, path, player, verbose=args.verbose, connect_timeout=None,
                      linger=args.linger, pair_code=new_code(), advertise=False,
                      on_listening=on_listening, claims=False, home=home,
                      out=computer_game_out(printer(args), watch),
                      err=printer(args, error=True))  # fmt: skip
    if not watch:
        _console(setup, args)
    elif args.watch:  # at a terminal: the table, read-only
        setup.table = _watch_table(args)
    try:
        code = _run(setup, identity, resume=False)
    finally:
        stop_computer(children, setup)
        drop_reservation(computer_game)  # if the computer never began its game
    if code == 0 and watch:
        print(f"\nthe match is saved in {path}, apart from your own games: "
              f"`ginp2p replay {path}` shows it again")  # fmt: skip
    return code
