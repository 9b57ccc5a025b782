"""The games folder's files as other local users and odd entries meet them: every file
ginp2p writes is 0600 and the folders that keep games 0700, whatever the umask; a pipe
named like a game's file is refused at once, never waited on; a symbolic link planted
where ginp2p writes is never written through (ginp2p.files.private, and its users)."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import pytest

from ginp2p.files.gamefiles import NotAPeerFile, PeerFile, games_dir, new_game_path, peer_path
from ginp2p.files.games import CACHE_NAME, list_games
from ginp2p.files.identity import load_or_create_identity
from ginp2p.files.logfile import LogFile, NotAFile, SecretsFile, hold_lock, secrets_path
from tests.processes import ginp2p_env

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
A_GAME = CORPUS / "cheat-false-gin.ginlog"  # any whole game log will do

T = TypeVar("T")


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def loose_umask() -> Iterator[None]:
    """The usual umask, 022, under which a file made 0644 or a folder 0755 is readable by
    every local user."""
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def _promptly(call: Callable[[], T], seconds: float = 10.0) -> T:
    """``call()``'s result or exception, failing the test if it is still waiting after
    ``seconds`` (a read of a pipe that nobody writes waits forever: the thread is left)."""
    out: list[T] = []
    err: list[BaseException] = []

    def run() -> None:
        try:
            out.append(call())
        except BaseException as exc:
            err.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"still waiting after {seconds} s"
    if err:
        raise err[0]
    return out[0]


# ------------------------------------------------------------------ permissions


def test_a_new_game_is_private_whatever_the_umask(ginp2p_home: Path, loose_umask: None) -> None:
    """The log holds the chat and who played, the .peer the opponent and the address:
    other local users read neither, nor list the folder."""
    path = new_game_path(games_dir(), "host")
    assert _mode(games_dir()) == 0o700
    assert _mode(peer_path(path)) == 0o600, "the reservation"
    PeerFile(role="host", name="Ann").save(peer_path(path))
    with LogFile.open(path), SecretsFile.open(secrets_path(path)):
        pass
    list_games(games_dir())  # writes the listing's memory of audits
    watched = new_game_path(games_dir() / "watched" / "computer", "guest")
    files = [
        path,
        peer_path(path),
        secrets_path(path),
        games_dir() / CACHE_NAME,
        peer_path(watched),
    ]
    assert {f.name: _mode(f) for f in files} == {f.name: 0o600 for f in files}
    for folder in (games_dir() / "watched", games_dir() / "watched" / "computer"):
        assert _mode(folder) == 0o700, folder


def test_a_folder_an_older_version_left_open_is_closed_but_not_the_users_own(
    ginp2p_home: Path, tmp_path: Path, loose_umask: None
) -> None:
    """The games folder (ginp2p's) made 0755 by an older version is made 0700 when a game
    is begun in it, and an old 0644 log when it is opened to play on; a folder the player
    named with --log-dir keeps its mode, and one ginp2p makes for it is 0700."""
    old = games_dir()
    old.mkdir(parents=True, mode=0o755)
    os.chmod(old, 0o755)
    log = old / "20240101-000000-host.ginlog"
    shutil.copy(A_GAME, log)
    os.chmod(log, 0o644)
    new_game_path(old, "host")
    assert _mode(old) == 0o700
    with LogFile.open(log, repair=True):
        pass
    assert _mode(log) == 0o600
    mine = tmp_path / "mine"
    mine.mkdir(mode=0o755)
    os.chmod(mine, 0o755)
    new_game_path(mine, "host")
    assert _mode(mine) == 0o755, "the player's own folder is theirs to set"
    made = tmp_path / "made" / "here"
    new_game_path(made, "host")
    assert _mode(made) == _mode(made.parent) == 0o700


def test_listing_the_games_closes_what_an_older_version_left_open(
    ginp2p_home: Path, tmp_path: Path, loose_umask: None
) -> None:
    """A player who upgrades and only lists their games (`ginp2p games`) had them left
    readable by everyone until a game was played in that folder: listing closes
    ginp2p's own games folder and its files; a --log-dir folder stays as it is."""
    from ginp2p.files.games import list_games

    for folder in (games_dir(), tmp_path / "mine"):
        folder.mkdir(parents=True)
        os.chmod(folder, 0o755)
        log = folder / "20240101-000000-host.ginlog"
        shutil.copy(A_GAME, log)
        os.chmod(log, 0o644)
        assert len(list_games(folder)) == 1
    assert _mode(games_dir()) == 0o700
    assert {_mode(f) for f in games_dir().iterdir()} == {0o600}
    assert _mode(tmp_path / "mine") == 0o755, "the player's own folder is theirs to set"
    assert _mode(tmp_path / "mine" / "20240101-000000-host.ginlog") == 0o644


def test_a_home_that_is_a_link_is_followed_and_what_ginp2p_makes_in_it_is_private(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, loose_umask: None
) -> None:
    """GINP2P_HOME may be a symbolic link (dotfiles): the key and the games go where it
    leads, private."""
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "home").symlink_to(real)
    monkeypatch.setenv("GINP2P_HOME", str(tmp_path / "home"))
    load_or_create_identity()
    path = new_game_path(games_dir(), "guest")
    assert (real / "identity.key").is_file() and (real / "games" / peer_path(path).name).is_file()
    assert _mode(real / "games") == 0o700 and _mode(real / "identity.key") == 0o600


# ------------------------------------------------------------------ pipes


def test_a_pipe_named_peer_is_refused_at_once(tmp_path: Path) -> None:
    """Reading a pipe waits for a writer forever: `ginp2p games` hung on one. A link to
    a regular .peer is read; a link to a pipe is refused as the pipe is."""
    os.mkfifo(tmp_path / "x.peer")
    with pytest.raises(NotAPeerFile, match=r"x\.peer is a pipe or a device, not a file"):
        _promptly(lambda: PeerFile.load(tmp_path / "x.peer"))
    (tmp_path / "y.peer").symlink_to(tmp_path / "x.peer")
    with pytest.raises(NotAPeerFile):
        _promptly(lambda: PeerFile.load(tmp_path / "y.peer"))
    PeerFile(role="guest", name="Bob").save(tmp_path / "real.peer")
    (tmp_path / "z.peer").symlink_to(tmp_path / "real.peer")
    assert PeerFile.load(tmp_path / "z.peer").name == "Bob"


def test_the_listing_says_what_it_skipped_and_waits_on_no_pipe(tmp_path: Path) -> None:
    shutil.copy(A_GAME, tmp_path / "x.ginlog")
    os.mkfifo(tmp_path / "x.peer")
    os.mkfifo(tmp_path / CACHE_NAME)  # its memory of audits, a pipe: not read either
    (game,) = _promptly(lambda: list_games(tmp_path))
    assert game.path == tmp_path / "x.ginlog" and "cheated" in game.result
    assert game.note == "x.peer skipped: a pipe or a device, not a file"


def test_a_pipe_named_as_a_game_to_play_on_is_refused(tmp_path: Path) -> None:
    """Opened to write (resume), a pipe is refused too: read first, it would wait."""
    os.mkfifo(tmp_path / "x.ginlog")
    with pytest.raises(NotAFile, match="is a pipe or a device"):
        _promptly(lambda: LogFile.open(tmp_path / "x.ginlog"))


@pytest.mark.e2e
def test_ginp2p_games_returns_with_a_pipe_named_peer_in_the_folder(tmp_path: Path) -> None:
    shutil.copy(A_GAME, tmp_path / "x.ginlog")
    os.mkfifo(tmp_path / "x.peer")
    r = subprocess.run([sys.executable, "-m", "ginp2p", "games", "--log-dir", str(tmp_path)],
                       capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL,
                       env=ginp2p_env(tmp_path / "home"))  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert "(x.peer skipped: a pipe or a device, not a file)" in r.stdout, r.stdout
    assert f"{tmp_path / 'x.ginlog'}" in r.stdout and "Traceback" not in r.stderr


# ------------------------------------------------------------------ symbolic links


def test_a_link_planted_where_a_game_is_written_is_not_written_through(tmp_path: Path) -> None:
    """In a folder others may write (a shared --log-dir), a link named as a game's file
    would turn ginp2p's write onto any file of the player's: refused, or replaced."""
    victim = tmp_path / "victim"
    (tmp_path / "x.ginlog").symlink_to(victim)
    with pytest.raises(NotAFile, match="is a symbolic link"):
        LogFile.open(tmp_path / "x.ginlog")
    (tmp_path / "x.secrets").symlink_to(victim)
    with pytest.raises(NotAFile, match="is a symbolic link"):
        SecretsFile.open(tmp_path / "x.secrets")
    (tmp_path / "x.lock").symlink_to(victim)
    with pytest.raises(NotAFile, match="is a symbolic link"):
        hold_lock(tmp_path / "x.lock")
    assert not victim.exists(), "nothing was made where the links lead"
    # the .peer is written to a new file and renamed over whatever has its name: a link
    # at either name is replaced, never followed
    victim.write_text("precious\n")
    (tmp_path / "x.peer").symlink_to(victim)
    (tmp_path / f".x.peer.{os.getpid()}.tmp").symlink_to(victim)
    PeerFile(role="host", name="Ann").save(tmp_path / "x.peer")
    assert victim.read_text() == "precious\n"
    assert (
        not (tmp_path / "x.peer").is_symlink() and PeerFile.load(tmp_path / "x.peer").name == "Ann"
    )


def test_a_key_that_is_a_link_to_nothing_is_said_and_never_replaced(tmp_path: Path) -> None:
    """A key kept on another disk by a link, the disk not mounted: the program stopped on
    a bare "No such file or directory". It says what the link is, and makes no new key
    in its place (that would be another player)."""
    from ginp2p.files.identity import IdentityError

    home = tmp_path / "home"
    home.mkdir()
    (home / "identity.key").symlink_to(tmp_path / "usb" / "identity.key")
    with pytest.raises(IdentityError, match=r"is a link to .*usb/identity.key, which is not there"):
        load_or_create_identity(home)
    assert (home / "identity.key").is_symlink() and not (tmp_path / "usb").exists()
