"""The line mode before the game: a host waiting for its guest, a guest waiting for its
host. What is typed then is answered then (`quit` leaves at once, `help` says what can
be done), never played into the game once it begins; the end of the input is a `quit`
there too. Real processes on 127.0.0.1, each with its own GINP2P_HOME."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from ginp2p.files.identity import load_or_create_identity
from ginp2p.proto.keytext import key_to_text
from tests.processes import CODE, Peer, RunGinp2p, guest, in_terminal

HOST = ["host", "--plain", "--name", "Alice", "--no-advertise", "--bind", "127.0.0.1",
        "--port", "0", "--pair-code", CODE, "--linger", "1"]  # fmt: skip
STOPPED = "stopped hosting before a guest joined"
NOTHING = "nothing was played, so nothing is kept"


def _no_game_kept(home: Path) -> None:
    games = home / "games"
    assert not games.exists() or list(games.iterdir()) == [], list(games.iterdir())


@pytest.mark.e2e
def test_lines_typed_while_hosting_are_answered_then_not_played_into_the_game(
        tmp_path: Path) -> None:  # fmt: skip
    """`help` says what can be done while waiting, another line that it is no time for it;
    neither reaches the game when the guest comes (a `quit` there asked `leave the game?`,
    and the next line answered the question)."""
    import pexpect

    child = in_terminal(tmp_path / "h", *HOST)
    g = None
    try:
        child.expect(r"join string[^\n]*:\s+(\S+)")
        join = child.match.group(1)
        child.expect_exact("ginp2p>")
        child.sendline("help")
        child.expect_exact("the game has not begun: waiting for a guest to join")
        child.expect_exact("  quit                     stop hosting; nothing is kept")
        child.sendline("stock")
        child.expect_exact("? the game has not begun: waiting for a guest to join; `quit` to "
                           "stop hosting, `help` says more")  # fmt: skip
        g = guest(tmp_path / "g", join)
        child.expect(r"your move: [^\r\n]*\r\n")
        played = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", child.before)
        assert "leave?" not in played and "\n? " not in played, played
        child.expect_exact("ginp2p>")
        child.sendline("quit")  # in the game: asked first, as ever
        child.expect_exact("type y to leave, n to stay")
        child.sendline("y")
        child.expect(r"left the game; resume it with: ginp2p resume \S+")
        child.expect(pexpect.EOF)
    finally:
        child.close()
        if g is not None:
            g.kill()
    assert child.exitstatus == 0


@pytest.mark.e2e
@pytest.mark.parametrize("how", ["quit", "Ctrl-D", "Ctrl-C"])
def test_quit_or_ctrl_d_while_hosting_stops_at_once(tmp_path: Path, how: str) -> None:
    """Nothing was played, so nothing is asked and nothing is kept: exit 0 (Ctrl-C: 130,
    as a Ctrl-C anywhere before the game)."""
    import pexpect

    child = in_terminal(tmp_path, *HOST)
    try:
        child.expect_exact("ginp2p>")
        if how == "quit":
            child.sendline("quit")
        else:
            child.sendcontrol(how[-1].lower())
        if how == "Ctrl-C":
            child.expect_exact("interrupted; nothing was saved")
        else:
            child.expect_exact(STOPPED)
            child.expect_exact(NOTHING)
        child.expect(pexpect.EOF)
        assert "leave?" not in child.before
    finally:
        child.close()
    assert child.exitstatus == (130 if how == "Ctrl-C" else 0)
    _no_game_kept(tmp_path)


def test_help_while_waiting_fits_80_columns_in_ascii(tmp_path: Path) -> None:
    """For each wait (a host, `play`, a guest, a guest resuming), at a terminal and from
    a pipe: Ctrl-D and Ctrl-C only where they are keys."""
    from ginp2p.app.config import GameSetup
    from ginp2p.app.waiting import _wait_words
    from ginp2p.files.gamefiles import PeerFile

    sides = [PeerFile("host", "Ann"), PeerFile("host", "Ann", computer_game="c.ginlog"),
             PeerFile("guest", "Bob"), PeerFile("guest", "Bob")]  # fmt: skip
    for i, side in enumerate(sides):
        words = _wait_words(GameSetup(side, tmp_path / "a-long-game-name.ginlog"), resume=i == 3)
        for terminal in (True, False):
            text = words.help(terminal)
            assert text.isascii() and all(len(line) <= 80 for line in text.splitlines()), text
            assert ("Ctrl-" in text) == terminal and "  quit  " in text, text
            assert ("has not begun" in text) == (i != 3), "a resumed game has begun"
            assert ("the host's rules" in text) == (i == 2), "asked of a new guest only"


def test_the_end_of_a_pipe_while_hosting_stops_at_once(
        tmp_path: Path, run_ginp2p: RunGinp2p) -> None:  # fmt: skip
    """With no commands to come the host could only leave once a guest came: it stops
    now, and says how a host plays by itself."""
    r = run_ginp2p(tmp_path, *HOST)
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"{STOPPED}: the input ended, which is `quit` from a pipe; a host that plays by " \
           f"itself is `ginp2p bot --host`\n{NOTHING}\n" in r.stdout, r.stdout  # fmt: skip
    _no_game_kept(tmp_path)


def test_a_scripts_quit_and_help_while_hosting_are_done_at_once(tmp_path: Path) -> None:
    """The pipe stays open: `help` is answered and `quit` leaves as they come."""
    me = Peer(tmp_path, HOST, name="scripted", stdin=subprocess.PIPE)
    assert me.proc.stdin is not None
    try:
        me.wait_for("pairing code")
        me.proc.stdin.write(b"help\n")
        me.proc.stdin.flush()
        me.wait_for("a script's other lines wait for the game")
        me.proc.stdin.write(b"quit\n")
        me.proc.stdin.flush()
        assert me.wait() == 0, me.output
    finally:
        me.proc.stdin.close()
    assert f"{STOPPED}\n{NOTHING}\n" in me.output and "Ctrl-" not in me.output
    _no_game_kept(tmp_path)


@pytest.mark.e2e
def test_a_scripts_game_lines_wait_for_the_game_and_its_quit_after_them(
        tmp_path: Path) -> None:  # fmt: skip
    """A script written for the game, piped in before the guest came: its first line is
    the game's, so it and every line after it wait for the game, `help` (the game's),
    the `quit` and the end of the input too (they end the game, not the wait)."""
    me = Peer(tmp_path / "h", HOST, name="scripted", stdin=subprocess.PIPE)
    g = None
    assert me.proc.stdin is not None
    try:
        join = me.join_string()
        me.proc.stdin.write(b"stock\nhelp\nquit\n")
        me.proc.stdin.close()
        me.wait_for("pairing code")
        g = guest(tmp_path / "g", join)
        assert me.wait() == 0, me.output
    finally:
        if g is not None:
            g.kill()
    assert "your cards:" in me.output and "commands (cards as" in me.output
    assert "left the game; resume it with: ginp2p resume" in me.output
    assert STOPPED not in me.output and "the game has not begun" not in me.output


def _nobody(tmp_path: Path, port: int) -> str:
    """A join string whose ``port`` nothing listens on."""
    key = key_to_text(load_or_create_identity(tmp_path / "nobody").public_key)
    return f"127.0.0.1:{port}/{key}"


@pytest.mark.e2e
def test_a_guest_waiting_for_its_host_hears_quit_and_help(
        tmp_path: Path, free_port: Callable[[], int], run_ginp2p: RunGinp2p) -> None:  # fmt: skip
    """The guest's wait for the host (connecting, pairing) is the same: `help`, a `yes`
    too soon, `quit` at once, nothing kept or paired. From a pipe its end stops it."""
    import pexpect

    join = _nobody(tmp_path, free_port())
    args = ["join", join, "--plain", "--pair-code", CODE, "--connect-timeout", "120"]
    child = in_terminal(tmp_path / "g", *args)
    try:
        child.expect_exact("ginp2p>")
        child.sendline("help")
        child.expect_exact("the game has not begun: waiting for the host to answer")
        child.expect_exact("the host's rules are shown once it answers")
        child.sendline("yes")
        child.expect_exact("? the host's rules have not come yet")
        child.sendline("quit")
        child.expect_exact("stopped joining before the game began")
        child.expect_exact(NOTHING)
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0
    _no_game_kept(tmp_path / "g")
    assert not (tmp_path / "g" / "peers.json").exists(), "nothing paired"
    r = run_ginp2p(tmp_path / "g", *args)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "stopped joining before the game began: the input ended, which is `quit` from a " \
           f"pipe\n{NOTHING}\n" in r.stdout, r.stdout  # fmt: skip
