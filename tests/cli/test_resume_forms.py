"""Resuming without a path: ``ginp2p resume`` alone (the unfinished game played last),
``ginp2p resume N`` (the number ``ginp2p games`` shows), a file's name alone (looked
for in the games folder), and what ``play``, ``host``, ``join`` and the LAN list say of
an unfinished game with the same opponent.

The games are pieces of the corpus's logs, cut short where a game is unfinished; the
game itself is not played here (``_resume`` is replaced) but in the one real-process
test at the end."""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from ginp2p.cli import main
from tests.processes import SHORT, Peer, RunGinp2p, in_terminal

CORPUS = Path(__file__).resolve().parents[1] / "corpus"

pytestmark = pytest.mark.usefixtures("ginp2p_home")


def _host_key() -> bytes:
    """The key of the host of the corpus's classic game (Ann)."""
    from ginp2p.files.logfile import read_records
    from ginp2p.proto.entry import Entry

    records, _ = read_records(CORPUS / "clean-classic.ginlog")
    key: bytes = Entry.from_wire(records[0]).body.key
    return key


def _games(home: Path, play: bool = False) -> dict[str, Path]:
    """A games folder as ``ginp2p games`` numbers it: 1 a guest's unfinished game with
    the host Ann (paired), 2 a host's unfinished game with Bob (played last), 3 a
    finished one; with ``play``, 0 (the newest) an unfinished game against the computer."""
    from ginp2p.files import peers
    from ginp2p.files.gamefiles import PeerFile, peer_path
    from ginp2p.files.logfile import read_records
    from ginp2p.proto.entry import Entry
    from ginp2p.proto.keytext import key_to_text
    from tests.helpers import write

    records, _ = read_records(CORPUS / "clean-classic.ginlog")
    host_key, guest_key = (Entry.from_wire(r).body.key for r in records[:2])
    folder = home / "games"
    folder.mkdir(parents=True)
    done = folder / "20250101-120000-host.ginlog"
    shutil.copy(CORPUS / "clean-hoyle.ginlog", done)
    PeerFile("host", "Ann", created="2025-01-01T12:00:00").save(peer_path(done))
    hosted = write(folder / "20250102-120000-host.ginlog", records[:12])
    PeerFile("host", "Ann", peer_key=key_to_text(guest_key),
             created="2025-01-02T12:00:00").save(peer_path(hosted))  # fmt: skip
    joined = write(folder / "20250103-120000-guest.ginlog", records[:9])
    PeerFile("guest", "Bob", peer_key=key_to_text(host_key), host="127.0.0.1", port=9,
             created="2025-01-03T12:00:00").save(peer_path(joined))  # fmt: skip
    peers.pin(host_key, "Ann", home=home)
    games = {"joined": joined, "hosted": hosted, "done": done}
    if play:
        (folder / "computer").mkdir()
        computer = write(folder / "computer" / "20250104-120000-guest.ginlog", records[:12])
        PeerFile("guest", "Computer", player="bot").save(peer_path(computer))
        played = write(folder / "20250104-120000-host.ginlog", records[:12])
        PeerFile("host", "Ann", peer_key=key_to_text(guest_key), computer_game=str(computer),
                 created="2025-01-04T12:00:00").save(peer_path(played))  # fmt: skip
        games["played"] = played
    for n, name in enumerate(("done", "joined", "hosted", "played")):
        if name in games:  # played in that order: the host's game last of the three
            os.utime(games[name], (1_800_000_000 + n, 1_800_000_000 + n))
    return games


@pytest.fixture
def resumed(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The games `resume` would continue, instead of continuing them."""
    from ginp2p.cli import network

    chosen: list[Path] = []

    def resume(args: argparse.Namespace, player: str | None) -> int:
        chosen.append(Path(args.file))
        return 0

    monkeypatch.setattr(network, "_resume", resume)
    return chosen


def _at_a_terminal(monkeypatch: pytest.MonkeyPatch, answers: list[str]) -> None:
    """Standard input and output are a terminal, where the player types ``answers``."""
    import builtins

    for stream in (sys.stdin, sys.stdout):
        monkeypatch.setattr(stream, "isatty", lambda: True)

    def typed(question: str) -> str:
        if not answers:
            raise EOFError
        print(question + answers[0])
        return answers.pop(0)

    monkeypatch.setattr(builtins, "input", typed)


def test_games_numbers_the_games_and_resume_n_continues_that_one(
        ginp2p_home: Path, resumed: list[Path],
        capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    games = _games(ginp2p_home)
    assert main(["games"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("   began") and lines[1].startswith("1  2025-01-03 12:00  Ann ")
    assert f"   {games['joined']}" in lines and f"   {games['done']}" in lines
    assert [line[:3] for line in lines if line[:1].isdigit()] == ["1  ", "2  ", "3  "]
    assert lines[-1] == "`ginp2p resume N` continues game N (`ginp2p resume`: the one played last)"
    assert max(len(line) for line in lines if "/" not in line) < 80, lines
    for n, name in ((1, "joined"), (2, "hosted"), (3, "done")):
        assert main(["resume", str(n)]) == 0
        assert resumed[-1] == games[name]
    for wrong in ("0", "4"):
        assert main(["resume", wrong]) == 1
        assert capsys.readouterr().err == (
            f"ginp2p resume: error: no game {wrong} in {ginp2p_home / 'games'}: its games are "
            "1 to 3 (`ginp2p games` lists them)\n"
        )
    assert len(resumed) == 3


def test_a_file_name_alone_is_looked_for_in_the_games_folder(
        ginp2p_home: Path, tmp_path: Path, resumed: list[Path],
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    """It was "no such file" unless typed with its folder."""
    games = _games(ginp2p_home)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    name = games["hosted"].name
    for given in (name, name.removesuffix(".ginlog"), name.replace(".ginlog", ".peer")):
        assert main(["resume", given]) == 0
        assert resumed[-1] == games["hosted"]
    shutil.copy(games["done"], elsewhere / name)  # a file of that name here comes first
    assert main(["resume", name]) == 0
    assert resumed[-1] == Path(name)
    assert main(["resume", "20990101-120000-host"]) == 1
    assert capsys.readouterr().err == (
        "ginp2p resume: error: 20990101-120000-host.ginlog: no such file, here or in the "
        f"games folder {ginp2p_home / 'games'} (`ginp2p games` lists them)\n"
    )
    assert main(["resume", "elsewhere/missing.ginlog"]) == 0  # a path: as given
    assert resumed[-1] == Path("elsewhere/missing.ginlog")
    # a link the player made to a game is followed (ginp2p writes through none, so it
    # was refused): the game continued is the one it leads to, beside its .peer
    (elsewhere / "last-night.ginlog").symlink_to(games["hosted"])
    assert main(["resume", "last-night.ginlog"]) == 0
    assert resumed[-1] == games["hosted"].resolve()


def test_resume_alone_continues_the_unfinished_game_played_last(
        ginp2p_home: Path, resumed: list[Path], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    """Several: listed, and without a terminal the one played last is taken (and said);
    at a terminal the player chooses, Enter for that one. One: taken, and said."""
    assert main(["resume"]) == 1
    assert capsys.readouterr().err == (
        f"ginp2p resume: error: no unfinished game in {ginp2p_home / 'games'} to resume "
        "(`ginp2p games` lists them; `ginp2p play` begins one)\n"
    )
    games = _games(ginp2p_home)
    assert main(["resume"]) == 0
    assert resumed.pop() == games["hosted"]
    out = capsys.readouterr().out
    assert out == (
        "your unfinished games (as `ginp2p games` numbers them):\n"
        "  1. Ann, began 2025-01-03 12:00, unfinished, 0 to 0\n"
        "  2. Bob, began 2025-01-02 12:00, unfinished, 0 to 0   <- played last\n"
        "continuing 2, the one played last (`ginp2p resume N` continues another)\n"
    )
    answers = ["", "7", "x", "1"]
    _at_a_terminal(monkeypatch, answers)
    assert main(["resume"]) == 0
    assert resumed.pop() == games["hosted"]
    assert main(["resume"]) == 0
    assert resumed.pop() == games["joined"] and answers == []
    out = capsys.readouterr().out
    assert out.count("continue which? (Enter: 2, the one played last) ") == 4
    assert "  '7' is not one of them: type its number, or Enter for 2\n" in out
    assert main(["resume"]) == 1  # the input ends: nothing is chosen
    assert capsys.readouterr().err == "ginp2p resume: error: no game chosen\n"
    games["joined"].unlink()  # one left: taken, and said
    monkeypatch.setattr(sys.stdout, "isatty", lambda: False)
    assert main(["resume"]) == 0
    assert resumed.pop() == games["hosted"]
    assert capsys.readouterr().out == (
        "continuing your unfinished game 1 of `ginp2p games` (Bob, began 2025-01-02 12:00, "
        "unfinished, 0 to 0)\n"
    )


def test_play_offers_the_unfinished_game_against_the_computer(
        ginp2p_home: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    """At a terminal it asks (Enter: continue it); without one, or with --new, a new game
    begins, and without --new the way back to the other is said. Games against people
    are not the computer's."""
    from ginp2p.cli.unfinished import continue_play

    games = _games(ginp2p_home, play=True)
    args = argparse.Namespace(log_dir=None, new=False)
    assert continue_play(args) is None
    assert capsys.readouterr().out == (
        "you have an unfinished game against the computer, game 1 of `ginp2p games` (Bob, "
        "began 2025-01-04 12:00, unfinished, 0 to 0)\n"
        "a new game begins (`ginp2p resume 1` continues that one)\n"
    )
    answers = ["", "maybe", "n"]
    _at_a_terminal(monkeypatch, answers)
    assert continue_play(args) == games["played"]
    assert continue_play(args) is None and answers == []
    out = capsys.readouterr().out
    assert "  answer y (continue it) or n (a new game)\n" in out
    assert out.endswith("a new game, then (`ginp2p resume 1` continues the other)\n")
    assert continue_play(argparse.Namespace(log_dir=None, new=True)) is None
    assert capsys.readouterr().out == ""
    games["played"].unlink()
    assert continue_play(args) is None
    assert capsys.readouterr().out == ""


def test_host_and_join_say_how_to_continue_the_unfinished_game(
        ginp2p_home: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    """`host` cannot know who will join: it names its unfinished game with a person and
    goes on; `join` of a host with an unfinished game says how to continue it."""
    from ginp2p.cli.unfinished import host_notice, unfinished_with_host
    from ginp2p.proto.keytext import key_to_text

    args = argparse.Namespace(log_dir=None)
    host_notice(args)
    assert capsys.readouterr().out == ""
    _games(ginp2p_home, play=True)
    host_notice(args)
    assert capsys.readouterr().out == (
        "an unfinished game waits, game 3 of `ginp2p games` (Bob, began 2025-01-02 12:00, "
        "unfinished, 0 to 0): `ginp2p resume 3` continues it once Bob resumes theirs too; "
        "this is a new game\n"
    )
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)  # a terminal of 60 columns
    monkeypatch.setenv("COLUMNS", "60")
    host_notice(args)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) > 2 and all(len(line) <= 59 for line in lines), lines
    assert " ".join(lines) == (
        "an unfinished game waits, game 3 of `ginp2p games` (Bob, began 2025-01-02 12:00, "
        "unfinished, 0 to 0): `ginp2p resume 3` continues it once Bob resumes theirs too; "
        "this is a new game"
    ), "broken between words only"
    assert any("`ginp2p resume 3`" in line for line in lines), "the command on one line"
    host_key = key_to_text(_host_key())
    assert unfinished_with_host(args, host_key) == (
        "game 2 of `ginp2p games` (Ann, began 2025-01-03 12:00, unfinished, 0 to 0)",
        "ginp2p resume 2",
    )
    other = argparse.Namespace(log_dir=str(ginp2p_home / "games"))
    assert unfinished_with_host(other, host_key)[1] == (  # type: ignore[index]
        f"ginp2p resume 2 --log-dir {ginp2p_home / 'games'}"
    )


def test_the_lan_list_names_the_unfinished_game_with_a_host(
        ginp2p_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    """After a crash, `join` finds the host again: its line says that a game with it is
    unfinished, and how to continue it; a host that resumed its game announces nothing,
    and "no game found" names the guest's unfinished game instead."""
    from ginp2p.cli import lan
    from ginp2p.net.discovery import Found

    _games(ginp2p_home)
    key = _host_key()
    args = argparse.Namespace(log_dir=None, address=None, browse_time=0.1,
                              mdns_interface=None, discover_name=None)  # fmt: skip
    stranger = Found("Zed", ("192.168.1.9",), 52801, bytes(range(32)), "1")
    ann = Found("Ann", ("192.168.1.5",), 52801, key, "1")
    lines = lan._found_line(ann, args).splitlines()
    assert lines[0].startswith("Ann  fingerprint ") and lines[0].endswith("  paired with you")
    assert lines[2] == ("     your unfinished game with this host, game 1 of `ginp2p games` "
                        "(Ann, began 2025-01-03 12:00, unfinished, 0 to 0): `ginp2p resume 1` "
                        "continues it")  # fmt: skip
    assert "unfinished" not in lan._found_line(stranger, args)
    monkeypatch.setattr(lan, "browse", lambda args: [])
    with pytest.raises(lan.Problem) as none:
        lan.find_address(args, bot=False)
    assert str(none.value) == (
        "no game found on the LAN: a host stops announcing once its guest is in (your "
        "unfinished game with Ann (began 2025-01-03 12:00, unfinished, 0 to 0) goes on with "
        "`ginp2p resume 1` once the host resumes it too), or multicast is blocked here (ask "
        "the host for its join string)"
    )


@pytest.mark.e2e
def test_play_killed_then_resume_alone_and_play_at_a_terminal_continue_it(
        tmp_path: Path, run_ginp2p: RunGinp2p) -> None:  # fmt: skip
    """A person's `play` killed mid-hand. `ginp2p resume` with no game named continues it
    (its input ends at once, which leaves it saved); then `ginp2p play` at a terminal
    asks, and Enter continues it to the end of the match: no second game is begun."""
    import pexpect

    first = Peer(tmp_path, ["play", "--plain", "--name", "Pat", *SHORT, "--linger", "3"],
                 name="person", stdin=subprocess.PIPE)  # fmt: skip
    try:
        first.wait_for(r"your cards")
        first.kill(signal.SIGKILL)
    finally:
        first.kill()
    (game,) = (tmp_path / "games").glob("*.ginlog")
    again = run_ginp2p(tmp_path, "resume")
    assert again.returncode == 0, again.stdout + again.stderr
    assert again.stdout.startswith("continuing your unfinished game 1 of `ginp2p games` "
                                   "(Computer, began "), again.stdout  # fmt: skip
    assert f"resume it with: ginp2p resume {game}" in again.stdout
    child = in_terminal(tmp_path, "play", "--plain", *SHORT, "--linger", "3", columns=100)
    try:
        # wrapped between words to the terminal's 100 columns
        child.expect(r"you have an unfinished game against the computer,\s+game 1 of\s+"
                     r"`ginp2p games`\s+\(Computer,\s+began\s")  # fmt: skip
        child.expect(r"continue it\? \(Enter: yes; n: a new game\) ")
        child.sendline("")
        child.expect(r"resumed from \d+ stored entries")
        child.sendline("resign yes")
        child.expect(r"MATCH OVER: Computer wins \(you resigned\)")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0, child.before
    assert list((tmp_path / "games").glob("*.ginlog")) == [game], "no new game was begun"
    listed = run_ginp2p(tmp_path, "games").stdout
    assert "unfinished" not in listed and "resume N" not in listed, listed
