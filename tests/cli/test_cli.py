"""The ``ginp2p`` command: the one-command game, help, and clear errors that leave
nothing behind. Real processes, each with its own temporary GINP2P_HOME."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ginp2p import cli
from ginp2p.cli import lan
from ginp2p.files.identity import load_or_create_identity
from ginp2p.proto.keytext import key_to_text
from tests.processes import (
    CODE,
    SHORT,
    Peer,
    RunGinp2p,
    assert_same_and_clean,
    ginp2p_env,
    host,
    in_terminal,
    piped,
    stop,
)

COMMANDS = ["play", "host", "join", "bot", "resume", "keys", "games", "selfplay", "rules",
            "replay", "audit", "export"]  # fmt: skip


@pytest.mark.parametrize("command", [None, *COMMANDS])
def test_help(command: str | None, capsys: pytest.CaptureFixture[str],
              monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    """Every command's help, in ASCII (a terminal without UTF-8 prints it too); the
    commands that read a game file show examples, kept one a line within 80 columns."""
    monkeypatch.setenv("COLUMNS", "80")
    with pytest.raises(SystemExit) as stop:
        cli.main([command, "--help"] if command else ["--help"])
    assert stop.value.code == 0
    text = capsys.readouterr().out
    assert text.startswith("usage: ginp2p") and text.isascii()
    assert all(len(line) < 80 for line in text.splitlines()), text  # an 80-column terminal
    if command in ("play", "host", "bot", "selfplay"):
        assert "italian-jokers" in text, "a name is not broken at its hyphen"
    if command in ("host", "join", "bot"):
        assert "--pair-code" in text and "--name" in text and "--log-dir" in text
    if command in ("resume", "replay", "audit", "export"):
        examples = text[text.index("\nexamples:\n") :].splitlines()[2:]
        assert len(examples) >= 3 and all(line.startswith("  ginp2p ") for line in examples)
        assert all(len(line) < 80 for line in examples), examples


def test_help_does_not_import_the_network() -> None:
    code = ("import sys; from ginp2p import cli\n"
            "try: cli.main(['--help'])\nexcept SystemExit: pass\n"
            "heavy = [m for m in ('zmq', 'zeroconf', 'nacl', 'prompt_toolkit',"
            " 'ginp2p.game.engine') if m in sys.modules]\nprint('HEAVY', heavy)")  # fmt: skip
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60).stdout  # fmt: skip
    assert "HEAVY []" in out, out


@pytest.mark.e2e
def test_play_without_a_terminal_watches_two_computer_players(
        tmp_path: Path, run_ginp2p: RunGinp2p) -> None:  # fmt: skip
    r = run_ginp2p(tmp_path, "play", *SHORT, "--linger", "3")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "two computer players play a match over the network protocol" in r.stdout
    over = re.search(r"MATCH OVER: (Bot|Computer) wins by (\d+) \(reached the target\); "
                     r"totals Bot (\d+), Computer (\d+)", r.stdout)  # fmt: skip
    assert over is not None, r.stdout
    winner, by, one, two = over.groups()
    assert int(by) == abs(int(one) - int(two)) and (int(one) > int(two)) == (winner == "Bot")
    # a watched match is nobody's game here: kept apart, signed by a computer player of
    # its own (the user's key is not even made), the computer player called as in `play`
    ours = sorted((tmp_path / "games" / "watched").glob("*.ginlog"))
    theirs = sorted((tmp_path / "games" / "watched" / "computer").glob("*.ginlog"))
    assert len(ours) == 1 and len(theirs) == 1
    assert_same_and_clean(ours[0], theirs[0])
    assert not (tmp_path / "identity.key").exists() and not (tmp_path / "peers.json").exists()
    watcher = load_or_create_identity(tmp_path / "watcher").public_key
    computer = load_or_create_identity(tmp_path / "computer").public_key
    assert watcher != computer
    assert key_to_text(watcher) in (tmp_path / "computer" / "peers.json").read_text()
    assert '"Computer"' in (tmp_path / "watcher" / "peers.json").read_text()
    listed = run_ginp2p(tmp_path, "games")
    assert listed.returncode == 0
    assert listed.stdout.startswith("no games in "), listed.stdout
    assert "1 match you watched" in " ".join(listed.stdout.split()), listed.stdout


def test_games_says_when_a_game_began_in_local_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """The file keeps UTC; the list shows this machine's time, to the minute."""
    import time

    from ginp2p.files.games import _local_time

    monkeypatch.setenv("TZ", "Europe/Paris")
    time.tzset()
    try:
        assert _local_time("2026-11-24T11:19:15+00:00") == "2026-11-24 12:19"
        assert _local_time("2026-07-01T23:30:00+00:00") == "2026-07-02 01:30"
        assert _local_time("2026-11-24T11:19:15") == "2026-11-24 11:19"  # no zone: as it is
        assert _local_time("last Tuesday") == "last Tuesday"
    finally:
        monkeypatch.undo()
        time.tzset()


@pytest.mark.e2e
def test_play_plain_reads_a_script_from_a_pipe_in_ascii(tmp_path: Path) -> None:
    """`play --plain` with a pipe is the person, not two computers: the commands come
    from the pipe, and with --ascii no card is written with a suit symbol."""
    me = Peer(tmp_path, ["play", "--plain", "--ascii", *SHORT, "--linger", "1"],
              name="scripted", stdin=subprocess.PIPE)  # fmt: skip
    dealt = me.wait_for(r"your cards ([^;\n]*); upcard (\S+)")
    assert re.fullmatch(r"([2-9TJQKA][SHDC] ?){10}", dealt.group(1).strip()), dealt.group(0)
    assert re.fullmatch(r"[2-9TJQKA][SHDC]", dealt.group(2)), dealt.group(0)
    assert me.proc.stdin is not None
    me.proc.stdin.write(b"help\nquit\n")
    me.proc.stdin.close()
    assert me.wait() == 0, me.output
    assert "commands (cards as" in me.output and "ginp2p resume" in me.output
    assert "Melds: 3 or 4 of one rank" in me.output, "help starts with the rules played"
    assert "Ctrl-C" not in me.output, "nobody can type Ctrl-C into a pipe"
    assert "two computer players" not in me.output and me.output.isascii()


@pytest.mark.e2e
def test_a_scripts_look_waits_for_the_cards(tmp_path: Path) -> None:
    """A script's `look` is at the cards, so it waits for the deal as a move does. It
    answered at once, "waiting for guest: the guest's answer to the host's rules", and
    the `quit` after it left a game that was never dealt."""
    me = Peer(tmp_path, ["play", "--plain", *SHORT, "--linger", "1"], name="scripted",
              stdin=subprocess.PIPE)  # fmt: skip
    assert me.proc.stdin is not None
    me.proc.stdin.write(b"look\nquit\n")
    me.proc.stdin.close()
    assert me.wait() == 0, me.output
    assert re.search(r"\nhand 1 · .*\nyour cards: ", me.output), me.output  # the look's table
    assert "left the game; resume it with: ginp2p resume" in me.output


@pytest.mark.e2e
def test_a_mistyped_pairing_code_is_asked_again(tmp_path: Path) -> None:
    """At a terminal, a code that is not a code (a word misspelt) is asked again: it
    costs no attempt, and the right code then pairs and plays."""
    import pexpect

    h = host(tmp_path / "h")
    child = in_terminal(tmp_path / "g", "join", h.join_string(), "--plain", "--yes", "--linger",
                        "1")  # fmt: skip
    try:
        child.expect("its pairing code\\?")
        child.sendline(CODE.replace("tulip", "tulp"))
        child.expect("unknown word 'tulp'; type it again \\(a typo costs no attempt\\)")
        child.expect("its pairing code\\?")
        child.sendline(CODE)
        child.expect("paired with the host")
        child.expect("your cards")
        child.sendline("quit")
        child.expect_exact("leave? y/n>")  # asked first, at a terminal
        child.sendline("y")
        child.expect(pexpect.EOF)
    finally:
        child.close()
        h.kill()
    # Ctrl-C at the question is an interruption, not a missing code
    child = in_terminal(tmp_path / "g2", "join", h.join_string(), "--plain")
    try:
        child.expect("its pairing code\\?")
        child.sendintr()
        child.expect("interrupted; nothing was saved")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 130 and "give its pairing code" not in (child.before or "")


@pytest.mark.e2e
def test_play_in_a_terminal_is_you_against_the_computer(tmp_path: Path) -> None:
    import pexpect  # a test dependency: this test drives a real terminal

    # --plain: the line mode (in a terminal the full-screen table is the default)
    child = in_terminal(tmp_path, "play", "--plain", *SHORT, "--linger", "3")
    moves = 0
    try:
        while moves < 300:
            i = child.expect([r"your move: ([^\r\n]*)", r"MATCH OVER[^\r\n]*"])
            if i == 1:
                break
            hint = child.match.group(1)
            cards = re.findall(r"your cards: ([^\r\n]*)", child.before)  # melds, deadwood
            held = [w.strip("[]") for w in cards[-1].split() if re.search(r"[♠♥♦♣]", w)] \
                if cards else []  # fmt: skip
            first = held[0] if held else "?"
            if "stock" in hint:
                line = "stock"
            elif "pass" in hint:
                line = "pass"
            elif "show" in hint:
                line = "show"
            else:
                line = f"discard {first}"
            child.sendline(line)
            moves += 1
        assert i == 1, "the match did not end"
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0
    assert moves > 0
    games = sorted((tmp_path / "games").glob("*.ginlog"))
    assert len(games) == 1
    theirs = sorted((tmp_path / "games" / "computer").glob("*.ginlog"))
    assert_same_and_clean(games[0], theirs[0])


@pytest.mark.e2e
def test_quit_at_the_prompt_asks_first_and_leaves_no_prompt_behind(tmp_path: Path) -> None:
    """As the table's `:quit` and Ctrl-C do: `quit` asks before leaving a live game; n
    stays, y leaves, saved, exit 0. The question breaks between words to fit a narrow
    terminal, rather than where the terminal cuts it."""
    child = _plain_play(tmp_path, columns=48)
    try:
        child.sendline("quit")
        child.expect_exact(ASKED)
        shown = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", child.before)  # the prompt's redraws
        asked = shown[shown.index("leave the game?") :].split("\r\n")[:-1]
        assert asked == ["leave the game? it is saved, and `ginp2p", "resume` continues it"], \
            asked  # fmt: skip
        child.expect_exact("leave? y/n>")
        child.sendline("n")
        child.expect_exact("you stay in the game")
        child.expect("ginp2p>")
        child.sendline("quit")
        child.expect_exact(ASKED)
        child.sendline("y")
        child.expect_exact("leave? y/n> y")  # the echo
        before = _left(child)
        assert "ginp2p>" not in before and "leave?" not in before, \
            "no prompt for a line that cannot come"  # fmt: skip
    finally:
        child.close()
    assert child.exitstatus == 0


@pytest.mark.e2e
def test_quit_from_a_pipe_leaves_at_once(tmp_path: Path) -> None:
    """A script cannot answer a question: `quit` from a pipe leaves without asking, even
    while the pipe stays open."""
    me = Peer(tmp_path, ["play", "--plain", *SHORT, "--linger", "1"], name="scripted",
              stdin=subprocess.PIPE)  # fmt: skip
    me.wait_for(r"your move: ")
    assert me.proc.stdin is not None
    me.proc.stdin.write(b"quit\n")
    me.proc.stdin.flush()
    try:
        assert me.wait() == 0, me.output
    finally:
        me.proc.stdin.close()
    assert "left the game; resume it with: ginp2p resume" in me.output
    assert "leave the game?" not in me.output


def _plain_play(home: Path, columns: int = 200) -> Any:
    """`ginp2p play --plain` in a real terminal (pexpect), at its first prompt."""
    child = in_terminal(home, "play", "--plain", "--ascii", *SHORT, columns=columns)
    child.expect(r"your move: [^\r\n]*\r\n")
    child.expect("ginp2p>")
    return child


def _left(child: Any) -> str:
    """The line that says the game was left (and saved), then the end of the output;
    what came before that line."""
    import pexpect

    child.expect(r"left the game; resume it with: ginp2p resume \S+")
    before = str(child.before)
    child.expect(pexpect.EOF)
    return before


ASKED = "type y to leave, n to stay (Ctrl-C again leaves)"


@pytest.mark.e2e
def test_ctrl_c_at_the_prompt_asks_and_a_second_one_leaves(tmp_path: Path) -> None:
    """As on the table, one stray key must not end a live game: Ctrl-C asks; n stays,
    and the game goes on with the computer still there; Ctrl-C again at the question
    leaves, saved, exit 0."""
    import signal

    child = _plain_play(tmp_path)
    try:
        child.sendcontrol("d")  # Ctrl-D too: it left unasked
        child.expect_exact(ASKED)
        child.sendline("n")
        child.expect_exact("you stay in the game")
        child.expect("ginp2p>")
        child.sendcontrol("c")
        child.expect_exact(ASKED)
        child.sendline("maybe")
        child.expect_exact("? type y to leave the game, or n to stay")
        child.sendline("n")
        child.expect_exact("you stay in the game")
        child.expect("ginp2p>")
        # the terminal sends a Ctrl-C typed while a line is printed as a signal to all
        # its processes: the computer player must not take it as its own
        os.killpg(child.pid, signal.SIGINT)
        child.expect_exact(ASKED)
        child.sendline("no")
        child.expect_exact("you stay in the game")
        child.sendline("look")
        hint = child.expect([r"your move: [^\r\n]*pass", r"your move: stock"])
        child.sendline("pass" if hint == 0 else "stock")
        if hint == 1:
            child.expect(r"you drew (\S+) from the stock")
            child.sendline(f"discard {child.match.group(1)}")
        child.expect(r"Computer (passed|took|drew|discarded|knocked|went gin)")
        assert "Computer left" not in child.before and "reconnecting" not in child.before
        child.expect("ginp2p>")
        child.sendcontrol("c")
        child.expect_exact(ASKED)
        child.sendcontrol("c")
        _left(child)
    finally:
        child.close()
    assert child.exitstatus == 0


@pytest.mark.e2e
def test_ctrl_c_between_two_prompts_asks_as_at_a_prompt(tmp_path: Path) -> None:
    """A Ctrl-C typed as a line is entered, before the next prompt reads the keys, is a
    signal: it asks as at the prompt (it used to be lost, or to end the process with 130
    and no word to the other player), and a y leaves, the computer told of the pause."""
    import signal

    child = _plain_play(tmp_path)
    try:
        for line, answer in (("look", "n"), ("help", "n"), ("look", "y")):
            child.sendline(line)
            os.killpg(child.pid, signal.SIGINT)  # as the terminal sends it: at once
            child.expect_exact(ASKED, timeout=15)
            child.sendline(answer)
            if answer == "n":
                child.expect_exact("you stay in the game")
        _left(child)
    finally:
        child.close()
    assert child.exitstatus == 0
    (out,) = (tmp_path / "games" / "computer").glob("*.out")
    assert "left (left for now; the game can be resumed)" in out.read_text()


@pytest.mark.e2e
def test_ctrl_c_at_the_prompt_then_y_leaves_and_the_game_resumes(
        tmp_path: Path, run_ginp2p: RunGinp2p) -> None:  # fmt: skip

    child = _plain_play(tmp_path)
    try:
        child.sendcontrol("c")
        child.expect_exact(ASKED)
        child.sendline("y")
        _left(child)
    finally:
        child.close()
    assert child.exitstatus == 0
    (game,) = (tmp_path / "games").glob("*.ginlog")
    r = run_ginp2p(tmp_path, "resume", str(game), "--bot", "--linger", "3")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "MATCH OVER" in r.stdout


def test_port_in_use_is_a_clear_error_and_saves_nothing(
        tmp_path: Path, run_ginp2p: RunGinp2p) -> None:  # fmt: skip
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        r = run_ginp2p(tmp_path, "bot", "--host", "--bind", "127.0.0.1", "--port", str(port),
                       "--no-advertise")  # fmt: skip
    assert r.returncode == 1
    assert r.stderr.startswith(f"ginp2p bot: error: port {port} on 127.0.0.1 is in use")
    assert not list(tmp_path.glob("games/*"))


def test_an_unreachable_host_is_a_clear_error_and_saves_nothing(
        tmp_path: Path, run_ginp2p: RunGinp2p) -> None:  # fmt: skip
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # bound, never listening: connections are refused
        key = key_to_text(load_or_create_identity(tmp_path / "other").public_key)
        r = run_ginp2p(tmp_path / "g", "bot", "--join", f"127.0.0.1:{port}/{key}", "--pair-code",
                       CODE, "--connect-timeout", "2")  # fmt: skip
    assert r.returncode == 1
    assert f"ginp2p bot: error: nothing was listening at 127.0.0.1:{port} within 2 s (the " \
           "connections were refused): is the host running, and is the port right?" \
           in r.stderr, "an error on standard error, as the command's others"  # fmt: skip
    assert not list((tmp_path / "g").glob("games/*"))
    assert not (tmp_path / "g" / "peers.json").exists()


@pytest.mark.e2e
def test_a_guest_resuming_alone_is_told_the_host_resumes_too(tmp_path: Path) -> None:
    """The host is not running its side of the saved game: after the wait, the guest
    learns what to do, not only that nobody answered."""
    h = host(tmp_path / "h")
    g = Peer(tmp_path / "g", ["join", h.join_string(), "--pair-code", CODE, "--yes"],
             name="person", stdin=subprocess.PIPE)  # fmt: skip
    g.wait_for("your cards")
    h.kill()
    assert g.proc.stdin is not None
    g.proc.stdin.close()  # quit: the game stays saved
    g.wait()
    path = g.game_file()
    r = Peer(tmp_path / "g", ["resume", str(path), "--bot", "--connect-timeout", "2"],
             name="resumed")  # fmt: skip
    assert r.wait() == 1, r.output
    assert "nothing was listening at 127.0.0.1" in r.output
    assert (
        f"the host resumes its own file of this game too; then run again: ginp2p resume "
        f"{path}" in r.output
    )


def test_a_bad_code_or_address_is_a_usage_error(tmp_path: Path, run_ginp2p: RunGinp2p) -> None:
    r = run_ginp2p(tmp_path, "bot", "--join", "127.0.0.1:5/abc", "--pair-code", CODE)
    assert r.returncode == 2 and "the key after '/' is 3 characters, not 52" in r.stderr
    r = run_ginp2p(tmp_path, "bot", "--host", "--pair-code", "7-notaword-anchor")
    assert r.returncode == 2 and "unknown word 'notaword'" in r.stderr


VERSION_99 = (
    "import sys, ginp2p.proto.frames as n; n.NET_VERSION = 99\n"
    "from ginp2p.cli import main; sys.exit(main(sys.argv[1:]))"
)


@pytest.mark.e2e
def test_a_version_mismatch_is_reported_on_both_sides(tmp_path: Path) -> None:
    h = host(tmp_path / "h")
    join = h.join_string()
    r = subprocess.run([sys.executable, "-c", VERSION_99, "bot", "--join", join, "--pair-code",
                        CODE], capture_output=True, text=True, timeout=120,
                       env=ginp2p_env(tmp_path / "g"))  # fmt: skip
    assert r.returncode == 1, r.stdout
    assert r.stderr.startswith("ginp2p bot: error: ") and "version mismatch" in r.stderr \
        and "both need the same version" in r.stderr  # fmt: skip
    h.wait_for("version mismatch")
    assert h.wait() == 1


FORGED_HAVE = (
    "import sys, ginp2p.app.session as s\n"
    "from ginp2p.proto.frames import EntryFrame, HaveFrame\n"
    "real = s.Session._on_frame\n"
    "async def forged(self, frame, peer):\n"
    "    await real(self, frame, peer)\n"
    "    if isinstance(frame, EntryFrame) and self.proto.log.game and not hasattr(self, 'f'):\n"
    "        self.f = True\n"
    "        await self._send(HaveFrame(2, *self.proto.have(), True))\n"
    "s.Session._on_frame = forged\n"
    "from ginp2p.cli import main; sys.exit(main(sys.argv[1:]))"
)


@pytest.mark.e2e
def test_another_version_named_mid_game_does_not_stop_the_game(tmp_path: Path) -> None:
    """Once the game exists, a `have` naming another protocol version cannot be a real
    upgrade: stopping would only let the sender claim the match. It is ignored, once
    said, and the match ends as usual."""
    h = host(tmp_path / "h")
    join = h.join_string()
    r = subprocess.run([sys.executable, "-c", FORGED_HAVE, "bot", "--join", join, "--pair-code",
                        CODE, "--linger", "3"], capture_output=True, text=True, timeout=120,
                       env=ginp2p_env(tmp_path / "g"))  # fmt: skip
    assert r.returncode == 0, r.stdout + r.stderr
    assert h.wait() == 0, h.output
    assert "version mismatch" not in h.output
    assert h.output.count("names peer protocol version 2") == 1, h.output
    (guest_file,) = (tmp_path / "g").glob("games/*.ginlog")
    assert_same_and_clean(h.game_file(), guest_file)


def test_keys_safety_number_and_forget(tmp_path: Path, run_ginp2p: RunGinp2p) -> None:
    from ginp2p.files import peers

    other = load_or_create_identity(tmp_path / "other").public_key
    peers.pin(other, "Olga", home=tmp_path)
    r = run_ginp2p(tmp_path, "keys")
    assert r.returncode == 0 and "Olga" in r.stdout and "your fingerprint:" in r.stdout
    r = run_ginp2p(tmp_path, "keys", "--safety", "olga")
    mine = load_or_create_identity(tmp_path).public_key
    assert peers.safety_number(mine, other) in r.stdout
    r = run_ginp2p(tmp_path, "keys", "--safety", "Oleg")
    assert r.returncode == 1 and "no paired player is called 'Oleg'" in r.stderr
    assert r.stdout == "", "the error is not buried under a screen of keys"
    r = run_ginp2p(tmp_path, "keys", "--forget", "Olga")
    assert r.returncode == 0 and "forgot Olga" in r.stdout
    assert not peers.is_pinned(other, home=tmp_path)
    r = run_ginp2p(tmp_path, "keys", "--forget", "Olga")
    assert r.returncode == 1 and "no paired player is called 'Olga'" in r.stderr
    r = run_ginp2p(tmp_path, "keys")  # none left: not "yet", and how to pair again
    assert "no paired players (a pairing code pairs you: ginp2p host, then ginp2p join)" \
        in r.stdout  # fmt: skip


def test_selfplay_still_works(tmp_path: Path, run_ginp2p: RunGinp2p) -> None:
    r = run_ginp2p(tmp_path, "selfplay", "--seed", "3", *SHORT)
    assert r.returncode == 0 and "wins the match" in r.stdout


@pytest.mark.e2e
def test_resume_of_a_quit_game_continues(tmp_path: Path) -> None:
    """A human guest who types `quit` mid-game: saved; `resume --bot` finishes it."""
    h = host(tmp_path / "h")
    join = h.join_string()
    g = Peer(tmp_path / "g", ["join", join, "--pair-code", CODE, "--yes", "--linger", "3"],
             name="person", stdin=subprocess.PIPE)  # fmt: skip
    g.wait_for("your cards")
    assert g.proc.stdin is not None
    g.proc.stdin.close()  # the end of input means quit; the game stays saved
    assert g.wait() == 0, g.output
    assert "resume it with: ginp2p resume" in g.output
    path = g.game_file()
    r = Peer(tmp_path / "g", ["resume", str(path), "--bot", "--linger", "3"], name="resumed")
    assert r.wait() == 0, r.output
    assert h.wait() == 0, h.output
    # `--bot` was for that run: the game is still the person's
    assert json.loads(path.with_suffix(".peer").read_text())["player"] == "human"
    assert_same_and_clean(h.game_file(), path)
    # a person resumes the finished match as host, with no input (the end of input is
    # a quit): it is over, not left for a resume (the host's file, made a person's)
    hosted = h.game_file()
    peer = json.loads(hosted.with_suffix(".peer").read_text())
    hosted.with_suffix(".peer").write_text(json.dumps({**peer, "player": "human"}))
    again = Peer(
        tmp_path / "h", ["resume", str(hosted.with_suffix("")), "--linger", "1"], name="again"
    )  # the game's name without .ginlog names it too
    assert again.wait() == 0, again.output
    assert "resume it with" not in again.output, again.output
    # no MATCH OVER line this time: the last line says who won
    assert re.search(r"the match is over: \S+ won \(", again.output), again.output
    # the guest's finished match, resumed with no input and no host: said over at once,
    # not "the game is saved; continue it with: ginp2p resume"
    late = Peer(tmp_path / "g", ["resume", str(path), "--linger", "1"], name="late guest")
    assert late.wait() == 0, late.output
    first = late.output.splitlines()[0]
    assert re.match(r"the match is over: \S+ won \(.+\); the host is looked for only", first)
    assert "nothing was left to play" in late.output and "continue it" not in late.output


def test_ctrl_c_before_a_guest_came_leaves_nothing_and_says_so(tmp_path: Path) -> None:
    """No game file exists yet: no resume hint for a file that is not there, and the
    name reserved for the game is given back. (Its input stays open: the end of it
    would be a `quit` of its own.)"""
    import signal

    args = ["host", "--port", "0", "--bind", "127.0.0.1", "--no-advertise", "--name", "H"]
    # Ctrl-C as a terminal's program gets it: tests run in the background of a script
    # (`pytest &`, nohup) ignore SIGINT, and the host would inherit that and wait on
    host = piped(tmp_path, *args, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert host.stdout is not None and host.stdin is not None
    for line in host.stdout:  # listening, no guest yet
        if "pairing code" in line:
            break
    host.send_signal(signal.SIGINT)
    try:
        host.wait(30)
        out = host.stdout.read()
    finally:
        stop(host)
    assert host.returncode == 130 and "interrupted; nothing was saved" in out, out
    assert list((tmp_path / "games").iterdir()) == []


def test_a_game_found_on_the_lan_says_how_its_key_is_checked(ginp2p_home: Path) -> None:
    """A rematch is checked against the key paired with, a first game by the code: the
    line said 'checked by pairing' even to a player who had paired long ago."""
    from ginp2p.files import peers

    key = load_or_create_identity(ginp2p_home / "host").public_key
    assert lan.key_check(key) == "its key is checked by the pairing code, not taken on " \
                                  "the LAN's word"  # fmt: skip
    peers.pin(key, "Alice")
    assert lan.key_check(key) == "its key is checked against the one you paired with"
