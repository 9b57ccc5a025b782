"""A full-screen program killed before it cleaned up (the table after a crash) leaves
the terminal with line wrapping off, in the alternate screen, the cursor hidden: the
next command's long lines lost their ends, the ``ginp2p resume …`` advice with them.
Every ginp2p command puts those modes back first, into a terminal only."""

from __future__ import annotations

import io
import os
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from ginp2p.cli.output import RESTORE_TERMINAL, restore_terminal
from tests.processes import RunGinp2p, in_terminal


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_modes_are_put_back_only_in_a_terminal_that_reads_escape_codes(
        monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    monkeypatch.setenv("TERM", "xterm-256color")
    terminal, pipe = _Terminal(), io.StringIO()
    assert restore_terminal(terminal) and terminal.getvalue() == RESTORE_TERMINAL
    assert not restore_terminal(pipe) and pipe.getvalue() == ""
    for mode in ("?7h", "?25h", "?1000l", "?1006l", "?2004l", "?1049l"):
        assert f"\x1b[{mode}" in RESTORE_TERMINAL, mode
    # the cursor is saved just before the alternate screen is left: where the terminal
    # is not in it, leaving restores the cursor just saved, and it moves nowhere
    assert RESTORE_TERMINAL.endswith("\x1b7\x1b[?1049l")
    monkeypatch.setenv("TERM", "dumb")  # no cursor movement, no modes
    dumb = _Terminal()
    assert not restore_terminal(dumb) and dumb.getvalue() == ""
    closed = _Terminal()
    closed.close()
    assert not restore_terminal(closed)


@pytest.mark.e2e
def test_a_command_in_a_terminal_restores_its_modes_first_and_never_into_a_pipe(
        tmp_path: Path, run_ginp2p: RunGinp2p) -> None:  # fmt: skip
    import pexpect

    child = in_terminal(tmp_path, "rules")
    try:
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.before.startswith(RESTORE_TERMINAL), repr(child.before[:80])
    assert "classic" in child.before
    piped = run_ginp2p(tmp_path, "rules")
    assert piped.returncode == 0 and "classic" in piped.stdout
    assert "\x1b" not in piped.stdout + piped.stderr


def _screen_after(tmp: Path, shell_line: str) -> str:
    """What a 40-column tmux pane shows once ``shell_line`` has run at its shell, with
    the lines it wrapped joined again."""
    tmux = shutil.which("tmux")
    assert tmux, "tmux is needed for this test (apt-get install tmux)"
    run = [tmux, "-u", "-L", f"ginp2p-{uuid.uuid4().hex[:8]}", "-f", os.devnull]
    env = f"env GINP2P_HOME={shlex.quote(str(tmp))} TERM=xterm-256color LANG=C.UTF-8"
    script = f"{shell_line}; echo DONE; sleep 60"
    subprocess.run([*run, "new-session", "-d", "-x", "40", "-y", "30", "-s", "t",
                    f"{env} sh -c {shlex.quote(script)}"], check=True, timeout=10)  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while True:
            screen = subprocess.run([*run, "capture-pane", "-p", "-J", "-t", "t"], check=True,
                                    capture_output=True, text=True, timeout=10).stdout  # fmt: skip
            if "DONE" in screen or time.monotonic() > deadline:
                return screen
            time.sleep(0.1)
    finally:
        subprocess.run([*run, "kill-server"], capture_output=True, timeout=10)


@pytest.mark.e2e
def test_after_a_crash_in_the_alternate_screen_the_next_command_is_read_whole(
        tmp_path: Path) -> None:  # fmt: skip
    """In a real terminal (tmux): a program left the alternate screen on, wrapping and
    the cursor off. Without ginp2p a long line is cut at the right edge; the error of a
    ginp2p command comes whole, on the normal screen, below what was there before."""
    crashed = r"printf 'BEFORE\n\033[?1049h\033[?7l\033[?25l'"
    long = "the end of this long line is " * 3 + "THE END"
    cut = _screen_after(tmp_path, f"{crashed}; echo {shlex.quote(long)}")
    assert "THE END" not in cut, cut  # what the player met: the line's end is lost
    python = shlex.join([sys.executable, "-m", "ginp2p", "resume", "20990101-000000-host"])
    screen = _screen_after(tmp_path, f"{crashed}; {python}")
    lines = screen.splitlines()
    assert lines[0] == "BEFORE", screen  # the normal screen, the cursor where it was
    assert lines[1] == (
        "ginp2p resume: error: 20990101-000000-host.ginlog: no such file, here or in the "
        f"games folder {tmp_path / 'games'} (`ginp2p games` lists them)"
    ), screen
