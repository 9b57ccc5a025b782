"""A person joining a game is shown the host's rules and answers before the first hand.
Real processes: a computer host, a human guest whose typing comes through a pipe."""

from __future__ import annotations

import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

from tests.processes import CODE, RunGinp2p, host, piped, stop, wait_until


def _human_guest(home: Path, join: str, answer: str, *extra: str, crash: str | None = None,
                 code: str | None = CODE) -> subprocess.Popen[str]:  # fmt: skip
    pairing = ["--pair-code", code] if code is not None else []
    return piped(home, "join", join, *pairing, "--name", "Gus", "--linger", "1", *extra,
                 crash=crash)  # fmt: skip


def _read_until(proc: subprocess.Popen[str], text: str, timeout: float = 60) -> str:
    assert proc.stdout is not None
    seen = ""
    deadline = time.monotonic() + timeout
    while text not in seen:
        if time.monotonic() > deadline:
            raise AssertionError(f"no {text!r} within {timeout} s:\n{seen}")
        line = proc.stdout.readline()
        if not line:
            raise AssertionError(f"the guest exited before {text!r}:\n{seen}")
        seen += line
    return seen


def _rest(proc: subprocess.Popen[str], text: str = "", timeout: float = 60) -> str:
    """Send ``text``, close the input (its end is a quit), and read the output to the end.
    Not ``communicate``: it reads the pipe's descriptor, past what ``_read_until``'s
    ``readline`` already holds in its buffer, so lines that came in one read were lost."""
    assert proc.stdin is not None and proc.stdout is not None
    out = proc.stdout
    if not proc.stdin.closed:
        try:
            proc.stdin.write(text)
            proc.stdin.close()
        except BrokenPipeError:  # it already exited: what it printed is still to read
            pass
    got: list[str] = []
    reader = threading.Thread(target=lambda: got.append(out.read()), daemon=True)
    reader.start()
    reader.join(timeout)
    if reader.is_alive():
        proc.kill()
        reader.join(10)
        raise AssertionError(f"still running after {timeout} s:\n{''.join(got)}")
    proc.wait(timeout)
    out.close()
    return "".join(got)


@pytest.mark.e2e
@pytest.mark.parametrize(
    ("answer", "leave"), [("maybe\nyes", "quit"), ("yes", "SIGTERM"), ("yes", "SIGINT"), ("no", "")]
)
def test_the_guest_sees_the_rules_and_answers(tmp_path: Path, answer: str, leave: str) -> None:
    """Then it leaves: the `quit` command, `kill` or Ctrl-C. Each tells the host the game
    is paused, and says how to resume it."""
    h = host(tmp_path / "h", "--preset", "hoyle")
    g = _human_guest(tmp_path / "g", h.join_string(), answer)
    try:
        shown = _read_until(g, "play by these rules?")
        assert "hoyle" in shown
        assert "a move unanswered for 120 s may be claimed against" in shown
        assert "very short" not in shown
        assert g.stdin is not None
        g.stdin.write(answer + "\n")
        g.stdin.flush()
        if answer == "no":
            rest = _rest(g)
            assert g.returncode != 0
            assert "you declined the host's rules (hoyle with game_target=1)" in rest
            assert "error" not in rest, "declining is the player's choice, not an error"
            # the host goes back to waiting for another guest
            h.wait_for(r"your guest declined your rules \(hoyle with game_target=1\)")
            h.wait_for("is not kept; waiting for another guest")
            assert "your cards" not in rest
            assert "nothing was played, so" in rest and "is not kept" in rest
            assert not list((tmp_path / "g").glob("games/*")), "no files left behind"
        else:
            seen = shown + _read_until(g, "your cards:")
            if "maybe" in answer:
                assert "type yes to play by the host's rules" in seen  # it was explained
            assert "refused" not in seen  # asked is not refused
            assert seen.count("the host's rules: hoyle") == 1
            assert "the rules: hoyle" not in seen, "the rules just answered, not said again"
            if leave == "quit":
                g.stdin.write("quit\n")
                g.stdin.flush()
                rest = _rest(g)
            else:  # stdin stays open: its end would be a `quit` of its own
                g.send_signal(getattr(signal, leave))
                g.wait(60)
                assert g.stdout is not None
                rest = g.stdout.read()
            assert g.returncode == (128 + getattr(signal, leave) if leave != "quit" else 0), rest
            assert "left the game; resume it with: ginp2p resume" in rest
            # a quit is no pause: the claim clock runs on
            assert "while you are away, " in rest and "a move of yours has waited 120 s" in rest
            h.wait_for("Gus left \\(left for now; the game can be resumed\\)")
    finally:
        stop(g)
        h.kill()


@pytest.mark.e2e
@pytest.mark.parametrize("answer", ["no", "yes"])
def test_a_scripts_answer_sent_before_the_rules_come_answers_them(
        answer: str, tmp_path: Path) -> None:  # fmt: skip
    """A script cannot wait to read the rules: its `yes` or `no`, piped in at once, waits
    for the question and answers it (it used to be an unknown command)."""
    h = host(tmp_path / "h", "--preset", "hoyle")
    g = _human_guest(tmp_path / "g", h.join_string(), answer)
    try:
        assert g.stdin is not None
        g.stdin.write(f"{answer}\n")
        g.stdin.flush()
        seen = _read_until(g, "play by these rules?")
        assert "unknown command" not in seen, seen
        if answer == "no":
            seen += _rest(g)
            assert g.returncode == 1, seen
            # the rules declined as they were offered, not only the preset's name
            assert "you declined the host's rules (hoyle with game_target=1)" in seen
        else:
            seen += _read_until(g, "your cards:")
            seen += _rest(g, "quit\n")
            assert g.returncode == 0, seen
            assert "left the game; resume it with: ginp2p resume" in seen
        assert "unknown command" not in seen and "\n? " not in seen, "no line refused"
        assert seen.index("the host's rules: hoyle") < seen.index("play by these rules?")
    finally:
        stop(g)
        h.kill()


def test_a_yes_typed_before_the_rules_come_is_told_to_wait_for_them() -> None:
    """At a terminal the person reads the rules before answering: a `yes` typed before
    they came is not taken, and says why."""
    from types import SimpleNamespace

    from ginp2p.console.line import LinePlayer

    said: list[str] = []
    seat = SimpleNamespace(rules_asked=False, rules_due=True, say=said.append)
    assert LinePlayer()._line(seat, "yes") is None  # type: ignore[arg-type]
    assert said == ["? the host's rules have not come yet: answer yes or no once they are "
                    "shown"]  # fmt: skip


@pytest.mark.e2e
def test_a_guest_who_leaves_at_the_question_keeps_no_file(tmp_path: Path) -> None:
    h = host(tmp_path / "h")
    g = _human_guest(tmp_path / "g", h.join_string(), "")
    try:
        _read_until(g, "play by these rules?")
        rest = _rest(g)  # the end of input: a quit
        assert g.returncode == 0, rest
        assert "left before the game began" in rest and "is not kept" in rest
        assert "resume" not in rest
        assert not list((tmp_path / "g").glob("games/*")), "no files left behind"
        # the host is not told that a game is saved on both sides: it waits for a guest
        h.wait_for("left before the game began; this game waits for them to join again")
        assert "saved on both sides" not in h.output
    finally:
        stop(g)
        h.kill()


@pytest.mark.e2e
def test_a_guest_killed_at_the_question_joins_the_same_host_again(
        tmp_path: Path, run_ginp2p: RunGinp2p) -> None:  # fmt: skip
    """Killed there, the guest never said yes: its file holds the host's hello alone, and
    no game began. `resume` of it says to join again, and `join` to that host goes to the
    rules question again, not to `resume`, and removes that file, which `games` never
    listed: nothing was played in it."""
    h = host(tmp_path / "h", "--preset", "hoyle")
    join = h.join_string()
    g = _human_guest(tmp_path / "g", join, "")
    again = None
    try:
        _read_until(g, "play by these rules?")
        g.kill()
        g.wait(60)
        (left,) = (tmp_path / "g" / "games").glob("*.ginlog")
        before = left.read_bytes()

        resumed = run_ginp2p(tmp_path / "g", "resume", str(left))
        assert resumed.returncode == 1, resumed.stdout + resumed.stderr
        assert f"{left} never began: you had not said yes to the host's rules" in resumed.stderr
        assert f"to play this host, join it again: ginp2p join {join}" in resumed.stderr
        assert left.read_bytes() == before, "resume leaves it as it was"
        listed = run_ginp2p(tmp_path / "g", "games")
        assert listed.returncode == 0 and "no games in" in listed.stdout, listed.stdout

        again = _human_guest(tmp_path / "g", join, "", code=None)  # paired: no code
        shown = _read_until(again, "play by these rules?")
        assert f"{left} never began (you had not said yes to this host's rules), so it is " \
               "removed" in shown  # fmt: skip
        assert "unfinished" not in shown and "hoyle" in shown
        rest = _rest(again, "no\n")
        assert again.returncode == 1, rest
        assert "you declined the host's rules (hoyle with game_target=1)" in rest
        h.wait_for("waiting for another guest")
        assert not list((tmp_path / "g" / "games").glob("*")), "no files left behind"
    finally:
        for proc in (g, again):
            if proc is not None:
                stop(proc)
        h.kill()


@pytest.mark.e2e
def test_a_guest_killed_just_after_saying_yes_is_told_to_resume(
        tmp_path: Path, run_ginp2p: RunGinp2p) -> None:  # fmt: skip
    """Its yes (its hello) is saved, though never sent: that game began, so `join` to the
    host is turned to `resume`, and `resume` carries it on."""
    h = host(tmp_path / "h", "--preset", "hoyle")
    join = h.join_string()
    g = _human_guest(tmp_path / "g", join, "", crash="send:1")
    back = None
    try:
        _read_until(g, "play by these rules?")
        rest = _rest(g, "yes\n")
        assert g.returncode == -signal.SIGKILL, rest
        (old,) = (tmp_path / "g" / "games").glob("*.ginlog")

        joined = run_ginp2p(tmp_path / "g", "join", join)
        assert joined.returncode == 1, joined.stdout + joined.stderr
        assert "you have an unfinished game with this host, game 1 of `ginp2p games` (Hosta, " \
               "began " in joined.stderr  # fmt: skip
        assert "continue it with `ginp2p resume 1`" in joined.stderr

        back = piped(tmp_path / "g", "resume", str(old), "--linger", "1")
        seen = _read_until(back, "your cards:")
        assert "never began" not in seen and "play by these rules?" not in seen
        rest = _rest(back, "quit\n")
        assert back.returncode == 0, seen + rest
        assert f"left the game; resume it with: ginp2p resume {old}" in rest
    finally:
        for proc in (g, back):
            if proc is not None:
                stop(proc)
        h.kill()


@pytest.mark.e2e
def test_a_host_who_leaves_while_the_guest_reads_the_rules_keeps_its_game(
        tmp_path: Path) -> None:  # fmt: skip
    """Its hello is out: the guest may still say yes and wait, so the host's files stay
    and `ginp2p resume` can go on. The guest is told so: it was told "the game is saved
    on both sides" while its own side, not yet answered, held nothing."""
    h = host(tmp_path / "h", "--preset", "hoyle")
    g = _human_guest(tmp_path / "g", h.join_string(), "")
    assert g.stdin is not None
    try:
        _read_until(g, "play by these rules?")
        h.kill(signal.SIGTERM)
        assert h.proc.returncode == 143, h.output
        assert "SIGTERM: left the game; resume it with: ginp2p resume" in h.output
        assert "not kept" not in h.output
        assert h.game_file().exists() and h.game_file().with_suffix(".secrets").exists()
        told = _read_until(g, "Hosta left (")
        assert (
            "Hosta left (left for now; the game can be resumed) before you answered "
            "about the rules: yes keeps the game, saved, for when they come back" in told
        )
        assert "saved on both sides" not in told
        (ours,) = (tmp_path / "g" / "games").glob("*.ginlog")
        before = ours.stat().st_size
        g.stdin.write("yes\n")  # its hello is stored: the game is kept
        g.stdin.flush()
        wait_until(lambda: ours.stat().st_size != before, "hello of the guest stored")
        # a script's quit waits for nothing the host owes: the host is gone (it waited)
        left = _rest(g, "quit\n", timeout=30)
        assert f"left the game; resume it with: ginp2p resume {ours}" in left, left
        assert ours.exists() and "not kept" not in left
    finally:
        stop(g)


@pytest.mark.e2e
@pytest.mark.parametrize("answer", ["no", "yes"])
def test_a_claim_timeout_too_short_for_a_person_is_asked_about_even_with_yes(
        answer: str, tmp_path: Path) -> None:  # fmt: skip
    """A host may set a claim timeout of a second: the person would forfeit while
    thinking. `--yes` accepts the rules unasked, but not that: the guest is asked, and
    its answer stands."""
    h = host(tmp_path / "h", "--claim-timeout", "5")
    g = _human_guest(tmp_path / "g", h.join_string(), "", "--yes")
    try:
        shown = _read_until(g, "play by these rules?")
        assert "unanswered for 5 s may be claimed against" in shown
        assert "very short: a person needs at least 30 s" in shown
        assert g.stdin is not None
        g.stdin.write(f"{answer}\n")
        g.stdin.flush()
        if answer == "yes":
            _read_until(g, "your cards:")  # the game began
            g.stdin.write("quit\n")
            g.stdin.flush()
        rest = _rest(g)
        if answer == "no":
            assert g.returncode != 0 and "declined" in rest
        else:
            assert g.returncode == 0 and "left the game; resume it with" in rest
    finally:
        stop(g)
        h.kill()


@pytest.mark.e2e
def test_a_guest_that_insists_on_a_setting_is_told_which_differs(tmp_path: Path) -> None:
    """`join --set` means "insist on this": the refusal names the setting the host plays
    and the value the guest asked for, on both screens."""
    h = host(tmp_path / "h")  # game_target=1
    g = _human_guest(tmp_path / "g", h.join_string(), "", "--yes", "--plain",
                     "--set", "game_target=50", "--set", "knock_limit=10")  # fmt: skip
    try:
        rest = _read_until(g, "refused:")
        rest += _rest(g)
        assert g.returncode == 1
        assert (
            "refused: the host's rules (classic) were declined: the host plays "
            "game_target=1 (the guest asked for 50)\n" in rest
        )  # knock_limit agrees
        h.wait_for(r"your guest turned your game down: the host's rules \(classic\) were "
                   "declined: the host plays game_target=1")  # fmt: skip
    finally:
        stop(g)
        h.kill()
