"""The computer player of ``play`` (and of a resumed game against it): a real second
ginp2p process with its own identity, started when the host listens, started again
if it dies while the game runs, and stopped when the game is over."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import asyncio
    import subprocess

    from ginp2p.app.config import GameSetup

#: How strong the computer player plays (``--level``): the default first, then the
#: easy player for someone new to the game (docs/bot.md).
LEVELS = ("normal", "easy")
#: What the computer player of ``play`` is called, on every screen and in every game.
COMPUTER_NAME = "Computer"

#: How ``play`` hands its computer player the pairing code: a command line is visible to
#: every local user (``ps``), a process's environment only to its owner.
PAIR_CODE_ENV = "GINP2P_PAIR_CODE"


#: The folder of the games folder where the matches of ``play --watch`` are kept: apart
#: from the player's own games, since neither side of them is the player's.
WATCHED = "watched"
#: What the computer player that a watched match runs in this process is called (the
#: other one is :data:`COMPUTER_NAME`, as always).
WATCHER_NAME = "Bot"


def _computer_home() -> Path:
    """The computer player's own identity and pins, under the user's config directory."""
    from ginp2p.files.identity import user_dir

    return user_dir("config") / "computer"


def watcher_home() -> Path:
    """The identity and pins of the computer player a watched match runs in this process:
    its own, never the user's (the user did not play, nor pair with anybody)."""
    from ginp2p.files.identity import user_dir

    return user_dir("config") / "watcher"


def watched_folder(games: Path) -> Path:
    """Where a watched match is kept, in the games folder ``games``; a ``games`` that is
    a file is said to be one (not its would-be subfolder)."""
    import errno

    if games.exists() and not games.is_dir():
        raise NotADirectoryError(errno.ENOTDIR, "not a folder", str(games))
    return games / WATCHED


def watched(game: Path) -> bool:
    """Whether a saved game is a watched match (kept in the games folder's ``watched``)."""
    return game.parent.name == WATCHED


def spawn_computer(extra: list[str], game: Path, pair_code: str = "") -> subprocess.Popen[bytes]:
    """The computer player: a real second ginp2p process, with its own identity. In a
    session of its own: a Ctrl-C typed at the terminal is the person's to answer (the
    line prompt asks first, and may print while the terminal sends it as a signal to
    every process of the terminal); the computer leaves when the person's process stops
    it or is gone (``--parent-pid``)."""
    import os
    import subprocess

    env = dict(os.environ, GINP2P_HOME=str(_computer_home()))
    env.pop("GINP2P_CRASH_AT", None)
    env.pop(PAIR_CODE_ENV, None)
    if pair_code:
        env[PAIR_CODE_ENV] = pair_code
    game.parent.mkdir(parents=True, exist_ok=True)
    from ginp2p.files.private import open_private

    # private as the game's files (0600), and never written through a link
    fd = open_private(game.with_suffix(".out"), os.O_WRONLY | os.O_APPEND)
    err = open(fd, "ab")  # noqa: SIM115 - handed to the child
    try:
        return subprocess.Popen(
            [sys.executable, "-m", "ginp2p", "bot", *extra, "--parent-pid", str(os.getpid())],
            env=env, stdin=subprocess.DEVNULL, stdout=err, stderr=err,
            start_new_session=True,
        )  # fmt: skip
    finally:
        err.close()


def _reap(child: subprocess.Popen[bytes], timeout: float) -> None:
    import subprocess

    try:
        child.wait(timeout)
    except subprocess.TimeoutExpired:
        child.terminate()
        try:
            child.wait(5)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


_MINDERS: set[asyncio.Task[None]] = set()  # the running minder tasks (the loop keeps weak refs)


def mind_computer(children: list[subprocess.Popen[bytes]], first: list[str], again: list[str],
                  game: Path, setup: GameSetup, pair_code: str = "") -> None:  # fmt: skip
    """Watch the computer player (``children[-1]``, started with ``first``) while the game
    runs: if it dies (killed, crashed), start it again, with ``again`` once its game file
    exists, twice at most, and say so; after that, stop the game (saved). Without this
    the person would wait for it forever. Called on the game's event loop. It polls, so
    nothing waits on the child once the game is over."""
    import asyncio
    import signal

    out = setup.out or print
    say: Callable[[str], None] = setup.table.heard(out) if setup.table is not None else out

    async def mind() -> None:
        for tries_left in (2, 1, 0):
            while (code := children[-1].poll()) is None:
                await asyncio.sleep(0.5)
            if code == 0:  # the match is over for it
                return
            if code in (130, 143):  # asked to stop (Ctrl-C, kill): it said it left
                return
            how = f"was killed ({signal.Signals(-code).name})" if code < 0 else f"failed ({code})"
            if not tries_left:
                setup.stop(f"the computer player {how} again, the third time; what it "
                           f"said is in {game.with_suffix('.out')}")  # fmt: skip
                return
            say(f"the computer player {how}; starting it again")
            children.append(spawn_computer(again if game.exists() else first, game, pair_code))

    task = asyncio.get_running_loop().create_task(mind())
    _MINDERS.add(task)
    task.add_done_callback(_MINDERS.discard)


def computer_game_out(show: Callable[[str], None], watch: bool) -> Callable[[str], None]:
    """The lines of a game against the computer: the join string and the pairing are
    between you and the computer, not worth a line (nor the file name, when watching)."""
    hidden: tuple[str, ...] = ("hosting on", "pairing code", "paired with a guest")
    if watch:
        hidden += ("game file",)
    return lambda text: None if text.startswith(hidden) else show(text)


def stop_computer(children: list[subprocess.Popen[bytes]], setup: GameSetup) -> None:
    """After the game: let the computer player finish (it lingers to compare logs), but
    stop it at once if the person left mid-game, or the game never ran to an end here
    (a Ctrl-C before the prompt or the table took the keys, which no longer reaches the
    computer's own session): it would wait for them. Its files are saved entry by
    entry, and ``ginp2p resume`` restarts it."""
    result = setup.session.result if setup.session is not None else None
    left = result is None or result.status == "quit"
    for child in children:
        _reap(child, 1.0 if left else setup.linger + 5)
