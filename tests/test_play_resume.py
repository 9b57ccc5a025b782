"""`ginp2p play` killed mid-hand and `ginp2p resume FILE`: the computer player comes
back too, and the match ends as if nothing happened. Real processes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from .test_session_support import SHORT, assert_same_and_clean, entries


def _ginp2p(home: Path, *args: str, crash: str | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, GINP2P_HOME=str(home))
    env.pop("GINP2P_CRASH_AT", None)
    if crash is not None:
        env["GINP2P_CRASH_AT"] = crash
    return subprocess.run([sys.executable, "-m", "ginp2p", *args], capture_output=True,
                          text=True, timeout=240, stdin=subprocess.DEVNULL, env=env)  # fmt: skip


def test_a_killed_play_game_resumes_with_its_computer_player(tmp_path: Path) -> None:
    dead = _ginp2p(tmp_path, "play", *SHORT, "--linger", "3", crash="send:10")  # always in hand 1
    assert dead.returncode == -signal.SIGKILL, dead.stdout + dead.stderr
    assert "MATCH OVER" not in dead.stdout
    (ours,) = sorted((tmp_path / "games").glob("*.ginlog"))
    (theirs,) = sorted((tmp_path / "games" / "computer").glob("*.ginlog"))
    before = entries(ours)
    assert before, "the game stored entries before it died"

    again = _ginp2p(tmp_path, "resume", str(ours), "--linger", "3")
    assert again.returncode == 0, again.stdout + again.stderr
    assert f"resumed from {len(before)} stored entries" in again.stdout
    assert "MATCH OVER" in again.stdout
    assert before <= entries(ours)
    assert_same_and_clean(ours, theirs)
