"""End to end in a real terminal: ``ginp2p play`` (you against the computer player, a
second process over loopback ZeroMQ) in an isolated tmux server, played with typed keys
and read back with ``capture-pane``. tmux is required (``.ci/run`` installs it)."""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.processes import wait_until

#: Every test here runs ginp2p in a real terminal (a tmux server of its own).
pytestmark = pytest.mark.e2e


class Pane:
    """One tmux server of our own (``-L``, no config) with one window of a fixed size."""

    def __init__(self, tmp: Path, width: int, height: int, args: list[str],
                 command: str = "play", shell: bool = False) -> None:  # fmt: skip
        """``shell``: typed at an interactive bash (job control: a stopped program gives
        the terminal back to it, and ``fg`` continues it) instead of run directly."""
        tmp.mkdir(parents=True, exist_ok=True)
        tmux = shutil.which("tmux")
        assert tmux, "tmux is needed for the console end-to-end test (apt-get install tmux)"
        self.tmux = [tmux, "-u", "-L", f"ginp2p-{uuid.uuid4().hex[:8]}", "-f", os.devnull]
        env = {"GINP2P_HOME": str(tmp / "home"), "LANG": "C.UTF-8", "TERM": "xterm-256color"}
        extra = ["--log-dir", str(tmp / "games"), "--name", "Ann", "--no-bell"] * (
            command not in ("replay", "fixed"))  # the game's commands  # fmt: skip
        # "fixed": the table over a fixed seat (tests/console/fixed_table.py), not ginp2p
        program = ["tests.console.fixed_table"] if command == "fixed" else ["ginp2p", command]
        play = shlex.join([sys.executable, "-m", *program, *extra, *args])
        script = f"{play} 2>{shlex.quote(str(tmp / 'stderr'))}; echo EXIT=$?; sleep 60"
        exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
        run = "bash --norc --noprofile -i" if shell else f"sh -c {shlex.quote(script)}"
        self.run("new-session", "-d", "-x", str(width), "-y", str(height), "-s", "t", "-c",
                 str(Path(__file__).parents[2]),  # the checkout, where `tests` is found
                 f"env -u NO_COLOR PS1='$ ' {exports} {run}")  # fmt: skip
        if shell:
            self.run("send-keys", "-t", "t", "-l", play)
            self.run("send-keys", "-t", "t", "Enter")
        self.tmp = tmp

    def run(self, *args: str) -> str:
        done = subprocess.run([*self.tmux, *args], capture_output=True, text=True, timeout=10)
        assert done.returncode == 0, done.stderr
        return done.stdout

    def screen(self) -> str:
        return self.run("capture-pane", "-p", "-t", "t")

    def keys(self, *keys: str) -> None:
        self.run("send-keys", "-t", "t", *keys)

    def wait(self, what: Callable[[str], bool] | str, timeout: float = 30.0) -> str:
        """Poll the screen until ``what`` is on it (a string) or holds (a function)."""
        test = (lambda s: what in s) if isinstance(what, str) else what
        deadline = time.monotonic() + timeout
        while True:
            text = self.screen()
            if test(text):
                return text
            if time.monotonic() > deadline or "EXIT=" in text:  # (or the program ended)
                err = (self.tmp / "stderr").read_text() if (self.tmp / "stderr").exists() else ""
                raise AssertionError(f"not on screen: {what!r}\n{text}\n{err}")
            time.sleep(0.1)

    def close(self) -> None:
        subprocess.run([*self.tmux, "kill-server"], capture_output=True, timeout=10)

    def program(self) -> int:
        """The pid of the program typed at the pane's shell (its child, from /proc)."""
        shell = int(self.run("display-message", "-p", "-t", "t", "#{pane_pid}"))
        for stat in Path("/proc").glob("[0-9]*/stat"):
            with contextlib.suppress(OSError):
                fields = stat.read_text().rsplit(")", 1)[1].split()
                if int(fields[1]) == shell:  # the fields after the name: state, ppid
                    return int(stat.parent.name)
        raise AssertionError("no program runs at the pane's shell")


@pytest.fixture
def panes(tmp_path: Path) -> Iterator[Callable[..., Pane]]:
    made: list[Pane] = []

    def make(width: int, height: int, *args: str, command: str = "play",
             shell: bool = False) -> Pane:  # fmt: skip
        pane = Pane(tmp_path / str(len(made)), width, height, list(args), command, shell)
        made.append(pane)
        return pane

    yield make
    for pane in made:
        pane.close()


def chosen_card(screen: str) -> str:
    """The card above the ``^^`` marker of the hand row (ASCII cards are two letters)."""
    lines = screen.splitlines()
    row = next(i for i, line in enumerate(lines) if line.startswith(" your hand"))
    col = lines[row + 1].index("^")
    return lines[row][col : col + 2]


def hand_cards(screen: str) -> list[str]:
    row = next(line for line in screen.splitlines() if line.startswith(" your hand"))
    return re.findall(r"\b[2-9TJQKA][SHDC]\b", row.split("=")[0])


def test_a_hand_played_with_keys_to_the_final_score(panes: Callable[..., Pane]) -> None:
    # a short match of a few hands: the computer may knock before any discard of ours
    # in one hand, hardly in all of them (a game to 25 once ended after one such hand)
    pane = panes(100, 30, "--ascii", "--set", "game_target=60", "--linger", "2")
    first = pane.wait("your turn", 30)
    assert "ginp2p | classic, game to 60 | hand 1" in first  # the target is no "changed"
    assert "Ann (you) 0 | 0 hands won" in first and "Computer 0 | 0 hands won" in first
    assert "Computer   10 cards in hand" in first and "stock 31" in first
    assert len(hand_cards(first)) == 10, first
    assert first.isascii(), "--ascii: no suit, no separator, no marker outside ASCII"
    discarded: str | None = None
    summaries = 0
    while True:
        text = pane.wait(lambda s: "your turn" in s or "your showdown" in s
                         or "points this hand" in s or "MATCH OVER" in s, 30)  # fmt: skip
        if "points this hand" in text:
            summaries += 1
            assert re.search(r"game score: Ann \d+, Computer \d+", text), text
            pane.keys("Enter")
            pane.wait(lambda s: "points this hand" not in s, 10)
        elif "MATCH OVER" in text:
            break
        elif "your showdown" in text:
            # the turn line comes with the knock; the proposal once the table is asked
            text = pane.wait("Enter: send it", 10)
            assert "deadwood" in text
            pane.keys("Enter")
            pane.wait(lambda s: "your showdown" not in s, 10)
        elif "take the upcard" in text:
            pane.keys("p")
            pane.wait(lambda s: "you passed" in s, 10)
        elif "draw from the stock (s)" in text:
            stock = int(re.search(r"stock (\d+)", text)[1])  # type: ignore[index]
            pane.keys("s")
            pane.wait(lambda s, n=stock - 1: f"stock {n}" in s and "choose a card" in s, 10)
        elif "choose a card" in text:
            card = chosen_card(text)
            assert card in hand_cards(text) and len(hand_cards(text)) == 11
            assert f"Enter discards {card}" in text
            pane.keys("Enter")
            # a discard that leaves the stock at its end ends the hand: its summary shows
            after = pane.wait(lambda s, c=card: f"you discarded {c}" in s
                              or "points this hand" in s, 10)  # fmt: skip
            if discarded is None and "points this hand" not in after:
                # on top of the pile, or just under the computer's discard
                assert re.search(rf"pile {card}\b|under it: {card}\b|Computer took {card}", after)
                assert card not in hand_cards(after)
                discarded = card
    assert discarded is not None and summaries >= 1
    final = pane.wait("q or Enter: leave", 30)
    assert "MATCH OVER: Computer wins" in final or "MATCH OVER: you win" in final
    assert re.search(r"game score\s+\d+\s+\d+", final) and re.search(r"total\s+\d+\s+\d+", final)
    assert re.search(r"\+ game bonus\s+\d+\s+\d+", final)
    pane.keys("q")
    done = pane.wait("EXIT=", 20)
    assert "EXIT=0" in done and "the match is over" in done


def test_80_by_24_fits_and_ctrl_c_asks_before_leaving(panes: Callable[..., Pane]) -> None:
    pane = panes(80, 24)
    text = pane.wait("your turn", 30)
    lines = text.splitlines()
    assert lines[0].startswith(" ginp2p · classic, game to 100 · hand 1")
    assert any(line.startswith(" your hand") for line in lines)
    assert re.search(r"[♠♥♦♣]", text), "suit symbols by default"
    assert "? help" in lines[23] and "^C leave" in lines[23], "the keys on the last row"
    pane.keys("?")
    pane.wait("choose a card in your hand", 10)
    pane.keys("Escape")
    pane.wait(lambda s: "choose a card in your hand" not in s, 10)
    pane.keys(":", "discard zz", "Enter")  # a refused line shows its reason under it
    pane.wait("'zz' is not a card", 10)
    pane.keys("Escape")
    pane.wait(lambda s: "'zz' is not a card" not in s, 10)
    pane.keys("C-c")
    pane.wait("leave the game? it is saved", 10)
    pane.keys("n")
    pane.wait(lambda s: "leave the game?" not in s, 10)
    pane.keys("C-c")
    pane.wait("leave the game?", 10)
    pane.keys("y")
    done = pane.wait("EXIT=", 20)
    assert "EXIT=0" in done and "ginp2p resume" in done


def test_closing_the_terminal_tells_the_other_player_the_game_is_paused(
        panes: Callable[..., Pane]) -> None:  # fmt: skip
    """A closed terminal window (SIGHUP, then EIO on its keys) leaves as `quit` does: the
    other player hears the game is paused instead of waiting out the silence."""
    pane = panes(80, 24)
    pane.wait("your turn", 30)
    pane.close()  # the window goes, and the terminal with it
    out = next((pane.tmp / "games" / "computer").glob("*.out"))
    wait_until(lambda: "Ann left (left for now" in out.read_text(), "word of Ann leaving")
    assert "Ann left (left for now; the game can be resumed)" in out.read_text(), \
        out.read_text()  # fmt: skip


def test_a_claim_at_the_table_waits_there_for_the_other_player_to_come_back(
        panes: Callable[..., Pane], tmp_path: Path) -> None:  # fmt: skip
    """Ann claims against a guest whose program died. Her claim stands only once the
    guest has it, and her table stays up: the game goes on waiting for the guest there,
    so a resume of the guest's delivers the claim and both sides end on it. Before, the
    game stopped after the claim timeout while the table still showed "you win" and
    its port still took connections: the guest's resume was "connected" to nothing,
    moved, and beat the claim. Once the game is done the port is closed."""
    import signal
    import socket

    from ginp2p.files.records import audit_file
    from tests.processes import CODE, Peer, guest

    pane = panes(100, 30, "--ascii", "--bind", "127.0.0.1", "--port", "0", "--no-advertise",
                 "--claim-timeout", "5", "--pair-code", CODE, "--linger", "1",
                 command="host")  # fmt: skip
    pane.wait("pairing code", 20)
    joined = pane.run("capture-pane", "-p", "-J", "-t", "t")
    join = re.search(r"127\.0\.0\.1:(\d+)/[a-z0-9]{52}", joined)
    assert join is not None, joined
    bob = guest(tmp_path / "g", join[0], "--linger", "1")
    while True:  # to Ann's first draw: then the guest dies and owes the next move
        text = pane.wait("your turn", 30)
        if "draw from the stock (s)" in text:
            break
        pane.keys("p")  # the first upcard
        pane.wait(lambda s: "you passed" in s, 10)
    pane.keys("s")
    pane.wait("choose a card", 10)
    bob.kill(signal.SIGKILL)
    pane.keys("Enter")
    pane.wait("press c to claim", 30)
    pane.keys("c")
    pane.wait("claim the match? Guesto forfeits it (y/n)", 10)
    pane.keys("y")
    # said at once (a player who is there would have answered within a second), with
    # the key that leaves, not after the 30 s the table would wait to make sure (the
    # bound is the slowest a loaded machine draws it, well short of those 30 s)
    waiting = pane.wait("your claim has not reached Guesto: waiting for them", 20)
    assert "MATCH OVER: you win (Guesto stopped answering)" in waiting
    assert re.search(r"\bq leave\b", waiting) and "^C leave" not in waiting, waiting
    back = Peer(tmp_path / "g", ["bot", "--resume", str(bob.game_file()), "--linger", "1"],
                name="guest again")  # fmt: skip
    assert back.wait() == 0, back.output
    assert "forfeits the match by a claim" in back.output, back.output
    done = pane.wait("q or Enter: leave", 30)
    assert "MATCH OVER: you win (Guesto stopped answering)" in done
    pane.wait("game over", 10)

    def listening() -> bool:
        with socket.socket() as s:
            return s.connect_ex(("127.0.0.1", int(join[1]))) == 0

    # the table is up, the game done: closed once the bye has had its moment to leave
    wait_until(lambda: not listening(), "port closed: nothing may take connections")
    pane.keys("q")
    assert "EXIT=0" in pane.wait("EXIT=", 20)
    (ours,) = (pane.tmp / "games").glob("*.ginlog")
    for path in (ours, bob.game_file()):
        report = audit_file(path)
        assert (report.end, report.winner) == ("claim", 0), report.text()


def listed_choices(screen: str) -> dict[str, str]:
    """The declaration editor's candidates by key (``--ascii``), greyed ones too."""
    lines = screen.splitlines()
    start = next(i for i, line in enumerate(lines) if "add one (its key)" in line)
    out: dict[str, str] = {}
    for line in lines[start + 1 :]:
        if line.startswith("---"):
            break
        for key, what in re.findall(r"\b([1-9a-zA-Z])\) (\S*\[[^\]]*\])", line):
            out[key] = what
    return out


def test_laid_melds_keep_their_keys_and_a_worse_declaration_asks_first(
        panes: Callable[..., Pane]) -> None:  # fmt: skip
    """italian-jokers (no knock limit: a knock any time after the draw, QA's report):
    after a pick every other candidate keeps its key, and melds that leave more
    deadwood than the proposal are sent by a second Enter, not by the first."""
    # game to 500: the computer knocks as soon as it may here, and a match to 100 was
    # over in four hands before a declaration with a few candidates came up
    pane = panes(
        100,
        30,
        "--ascii",
        "--preset",
        "italian-jokers",
        "--set",
        "game_target=500",
        "--linger",
        "1",
    )
    listed: dict[str, str] = {}
    for _ in range(60):  # play on until a declaration offers a few candidates
        text = pane.wait(lambda s: "your turn" in s or "your showdown" in s
                         or "points this hand" in s, 30)  # fmt: skip
        if "points this hand" in text:
            pane.keys("Enter")
            pane.wait(lambda s: "points this hand" not in s, 10)
        elif "take the upcard" in text:
            pane.keys("p")
            pane.wait(lambda s: "take the upcard" not in s, 10)
        elif "draw from the stock (s)" in text:
            pane.keys("s")
            pane.wait("choose a card", 10)
        elif "your showdown" in text or "choose a card" in text:
            mine = "choose a card" in text
            row = next(line for line in text.splitlines() if line.startswith(" your hand"))
            if mine and "gin!" in row:  # a gin takes every card: no worse melds to send
                pane.keys("g", "Enter")
                pane.wait(lambda s: "choose a card" not in s, 10)
                continue
            if mine:
                pane.keys("k")
                pane.wait("Enter: send it", 10)
            pane.keys("e")
            listed = listed_choices(pane.wait("add one (its key)", 10))
            if 2 <= len(listed) <= 12:  # all on screen, before a pick and after
                break
            pane.keys("Escape")
            pane.wait("Enter: send it", 10)
            if not mine:
                pane.keys("Enter")  # the showdown as proposed
                pane.wait(lambda s: "your showdown" not in s, 10)
                continue
            pane.keys("Escape")
            pane.wait(lambda s: "Enter: send it" not in s, 10)
            dead = re.findall(r"\b(?:[2-9TJQKA][SHDC])'?", row.split("deadwood")[-1])
            worst = max(dead, key=lambda w: min(10, "A23456789TJQK".index(w[0]) + 1))
            pane.keys(":", f"discard {worst.lower()}", "Enter")
            pane.wait(lambda s: "choose a card" not in s, 10)
    assert 2 <= len(listed) <= 12, "no declaration with 2 to 12 candidates in 60 turns"
    first, *others = sorted(listed)
    pane.keys(first)
    after = pane.wait(lambda s: f"{first}) " not in s.split("add one")[-1], 10)
    assert all(f"{key}) {listed[key]}" in after for key in others), (listed, after)
    pane.keys("BSpace")
    pane.wait(lambda s: f"{first}) {listed[first]}" in s.split("add one")[-1], 10)
    pane.keys("Enter")  # nothing laid: worse than any proposal with a meld
    asked = pane.wait("Enter again sends it, Esc goes back", 10)
    assert "add one (its key)" in asked, "nothing sent by the first Enter"
    pane.keys("Enter")
    done = pane.wait("points this hand", 30)
    ann = next(line for line in done.splitlines() if line.startswith("   Ann"))
    assert "[" not in ann and "laid off" not in ann, ann  # the declaration as laid: nothing


@pytest.mark.parametrize("command", ["play", "replay"])
def test_a_screen_stopped_from_outside_is_mended_when_continued(
        panes: Callable[..., Pane], command: str) -> None:  # fmt: skip
    """`kill -STOP` gives the terminal to the shell, which writes over the screen and
    leaves the keys line-buffered; `fg` continues the program. The screen stayed as the
    shell left it and no key did anything until Enter: now it is drawn anew and keys
    work at once, at the table and in the viewer."""
    import signal

    if command == "play":
        pane = panes(80, 24, "--ascii", shell=True)
        ready, key, answer = "your turn", "?", "help | classic"
    else:
        log = Path(__file__).parents[1] / "corpus" / "clean-classic.ginlog"
        pane = panes(80, 24, str(log), "--ascii", command="replay", shell=True)
        ready, key, answer = "entry 1 of", "G", "hand over"
    pane.wait(ready, 30)
    os.kill(pane.program(), signal.SIGSTOP)
    pane.wait("Stopped", 10)
    pane.keys("fg", "Enter")
    pane.wait(lambda s: "Stopped" not in s and "$ fg" not in s and ready in s, 10)
    pane.keys(key)
    pane.wait(answer, 10)
    pane.keys(*(("C-c", "y") if command == "play" else ("q",)))
    pane.wait(lambda s: s.rstrip().endswith("$"), 20)
