"""Unfinished games as the commands meet them: which game ``ginp2p resume`` continues
(none named: the unfinished one played last; a number of ``ginp2p games``; a file, or
a file's name in the games folder), and what ``play``, ``host``, ``join`` and the LAN
list say of an unfinished game with the same opponent."""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING

from ginp2p.cli.output import Problem
from ginp2p.cli.values import games_folder

if TYPE_CHECKING:
    from ginp2p.files.games import GameInfo

#: What ``ginp2p games`` numbers, as ``resume N`` takes it.
LISTED = "`ginp2p games` lists them"


def game_log(path: Path) -> Path:
    """The ``.ginlog`` a name given for a game stands for: the log itself, or any of the
    game's other files, or its name without a suffix. Problem for a folder or a file of
    another kind."""
    if path.is_dir():  # "." or "/": no name to put .ginlog after
        raise Problem(f"{path} is a folder, not a game: resume the game's .ginlog file "
                      f"({LISTED})")  # fmt: skip
    if path.suffix in ("", ".peer", ".secrets"):  # the game's other files name it too
        named = path.with_suffix(".ginlog")
        # a name without a suffix that is no game's (/dev/null, notes.txt renamed): as given
        return path if path.suffix == "" and path.exists() and not named.exists() else named
    if path.suffix != ".ginlog":
        raise Problem(f"{path} is not a game: resume the game's .ginlog file ({LISTED})")
    return path


def listed(folder: Path) -> list[GameInfo]:
    """The games of ``folder`` as ``ginp2p games`` lists and numbers them (1: the newest)."""
    from ginp2p.files.games import list_games

    return list_games(folder) if folder.is_dir() else []


def resume_words(number: int, args: argparse.Namespace) -> str:
    """The command that continues game ``number`` of the listing of this command's
    games folder."""
    import shlex

    folder = getattr(args, "log_dir", None)
    return f"ginp2p resume {number}" + (f" --log-dir {shlex.quote(folder)}" if folder else "")


def _about(number: int, game: GameInfo) -> str:
    """One game of the listing, in a line: ``3. Bob, began 2025-01-02 12:00, unfinished,
    40 to 25``."""
    return f"{number}. {game.opponent}, began {game.date}, {game.result}"


def _inline(number: int, game: GameInfo) -> str:
    """One game of the listing, within a sentence."""
    return f"game {number} of `ginp2p games` ({game.opponent}, began {game.date}, {game.result})"


def chosen_game(args: argparse.Namespace) -> Path:
    """The game ``ginp2p resume [GAME]`` continues. No GAME: the unfinished game played
    last (asked at a terminal when there are several); a number: that game of
    ``ginp2p games``; a file's name without a folder that is not here: that file in the
    games folder."""
    folder = games_folder(args)
    given: str | None = args.file
    if given is None:
        return _unfinished(args, folder)
    if given.strip().isdigit():
        games = listed(folder)
        n = int(given)
        if not 1 <= n <= len(games):
            have = f"its games are 1 to {len(games)}" if games else "it holds no games"
            raise Problem(f"no game {n} in {folder}: {have} ({LISTED})")
        return games[n - 1].path
    path = game_log(Path(given))
    if path.exists() or len(Path(given).parts) != 1:
        # a link the player names is theirs to follow (one in the games folder is not:
        # ginp2p writes no game through a link there)
        return path.resolve() if path.is_symlink() else path
    there = game_log(folder / given)
    if there.exists():
        return there
    raise Problem(f"{path}: no such file, here or in the games folder {folder} ({LISTED})")


def _unfinished(args: argparse.Namespace, folder: Path) -> Path:
    """``resume`` alone: the unfinished game played last. With several, they are listed
    first; at a terminal the player chooses (Enter: the one played last)."""
    waiting = [(n, g) for n, g in enumerate(listed(folder), 1) if g.unfinished]
    if not waiting:
        raise Problem(f"no unfinished game in {folder} to resume ({LISTED}; `ginp2p play` "
                      "begins one)")  # fmt: skip
    last = _played_last(waiting)
    if len(waiting) == 1:
        print(f"continuing your unfinished {_inline(*last)}", flush=True)
        return last[1].path
    print("your unfinished games (as `ginp2p games` numbers them):")
    for n, g in waiting:
        print(f"  {_about(n, g)}{'   <- played last' if n == last[0] else ''}")
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        print(f"continuing {last[0]}, the one played last (`ginp2p resume N` continues "
              "another)", flush=True)  # fmt: skip
        return last[1].path
    numbers = {n: g for n, g in waiting}
    while True:
        try:
            answer = input(f"continue which? (Enter: {last[0]}, the one played last) ").strip()
        except EOFError:
            raise Problem("no game chosen") from None
        if answer == "":
            return last[1].path
        if answer.isdigit() and int(answer) in numbers:
            return numbers[int(answer)].path
        print(f"  {answer!r} is not one of them: type its number, or Enter for {last[0]}")


def _played_last(games: list[tuple[int, GameInfo]]) -> tuple[int, GameInfo]:
    from ginp2p.files.games import last_played

    return max(games, key=lambda ng: last_played(ng[1].path))


def _say(text: str) -> None:
    """A notice, wrapped between words to a terminal's width (a command in backquotes
    kept on one line, to be copied whole); into a pipe or a file, one line."""
    if sys.stdout.isatty():
        width = max(40, shutil.get_terminal_size().columns - 1)
        whole = re.sub(r"`[^`]*`", lambda m: m[0].replace(" ", "\xa0"), text)
        text = textwrap.fill(whole, width, break_long_words=False,
                             break_on_hyphens=False).replace("\xa0", " ")  # fmt: skip
    print(text, flush=True)


def continue_play(args: argparse.Namespace) -> Path | None:
    """``play`` while a game against the computer is unfinished: asked at a terminal
    whether to continue it (Enter: yes), the game to resume then; without one, or with
    ``--new``, a new game (said, so that the unfinished one is not forgotten)."""
    waiting = [(n, g) for n, g in enumerate(listed(games_folder(args)), 1)
               if g.unfinished and g.computer and g.player == "human"]  # fmt: skip
    if not waiting or getattr(args, "new", False):
        return None
    n, game = _played_last(waiting)
    more = f" (and {len(waiting) - 1} more: `ginp2p games`)" if len(waiting) > 1 else ""
    _say(f"you have an unfinished game against the computer, {_inline(n, game)}{more}")
    again = resume_words(n, args)
    if not sys.stdin.isatty():
        print(f"a new game begins (`{again}` continues that one)", flush=True)
        return None
    while True:
        try:
            answer = input("continue it? (Enter: yes; n: a new game) ").strip().lower()
        except EOFError:
            raise Problem(f"no answer: `{again}` continues it, `ginp2p play --new` "
                          "begins a new game") from None  # fmt: skip
        if answer in ("", "y", "yes"):
            return game.path
        if answer in ("n", "no"):
            print(f"a new game, then (`{again}` continues the other)", flush=True)
            return None
        print("  answer y (continue it) or n (a new game)")


def host_notice(args: argparse.Namespace) -> str:
    """``host``: a game hosted for a person that is unfinished is said before a new one
    begins (who joins is not known yet: that player resumes the old one with you); the
    words, for the waiting screen too ('' if there is none)."""
    waiting = [(n, g) for n, g in enumerate(listed(games_folder(args)), 1)
               if g.unfinished and g.role == "host" and not g.computer]  # fmt: skip
    if not waiting:
        return ""
    n, game = _played_last(waiting)
    more = f" (and {len(waiting) - 1} more: `ginp2p games`)" if len(waiting) > 1 else ""
    who = game.opponent if game.opponent not in ("?", "-") else "your guest"
    text = (f"an unfinished game waits, {_inline(n, game)}{more}: `{resume_words(n, args)}` "
            f"continues it once {who} resumes theirs too; this is a new game")  # fmt: skip
    _say(text)
    return text


def unfinished_with_host(args: argparse.Namespace, host_key: str) -> tuple[str, str] | None:
    """This guest's unfinished game with the host of ``host_key``, if there is one: the
    game in words (``game 3 of `ginp2p games` (Bob, began …)``) and the command that
    continues it (``ginp2p resume 3``)."""
    from ginp2p.files.games import unfinished_with

    folder = games_folder(args)
    if not folder.is_dir():
        return None
    old = unfinished_with(folder, host_key)
    if old is None:
        return None
    for n, g in enumerate(listed(folder), 1):
        if g.path == old:
            return _inline(n, g), resume_words(n, args)
    return str(old), f"ginp2p resume {old}"
