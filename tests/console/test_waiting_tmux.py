"""A host waiting at the table, in a real terminal (a tmux pane, as
tests/console/test_tui_tmux.py): its waiting screen, a guest who says no to the rules
(the host waits again), and the keys typed while waiting, which never reach the game."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.console.test_tui_tmux import Pane
from tests.processes import CODE, GUARD, SHORT, guest, piped, stop

pytestmark = pytest.mark.e2e

HOST = ["--bind", "127.0.0.1", "--port", "0", "--no-advertise", "--pair-code", CODE, *SHORT]


def _code(screen: str) -> str:
    found = re.search(r"pairing code:  (\S+)", screen)
    assert found, screen
    return found.group(1)


def test_a_host_at_the_table_waits_on_a_screen_and_again_after_a_no(tmp_path: Path) -> None:
    from ginp2p.files.gamefiles import PeerFile, peer_path
    from ginp2p.files.logfile import read_records
    from tests.cli.test_resume_forms import CORPUS
    from tests.helpers import write

    # an unfinished game this host left: said above the screen, which covered it, so on it
    records, _ = read_records(CORPUS / "clean-classic.ginlog")
    (tmp_path / "games").mkdir(parents=True)
    old = write(tmp_path / "games" / "20250102-120000-host.ginlog", records[:12])
    PeerFile("host", "Ann", created="2025-01-02T12:00:00").save(peer_path(old))
    pane = Pane(tmp_path, 100, 30, HOST, command="host")
    nay = yea = None
    try:
        screen = pane.wait("waiting for a guest to join")
        assert "an unfinished game waits, game 1 of `ginp2p games`" in " ".join(screen.split())
        assert "Ann, hosting a game" in screen and f"pairing code:  {CODE}" in screen
        assert "q leave" in screen and "c new pairing code" in screen
        found = re.search(r"ginp2p join (\S+)", screen)
        assert found, screen
        join = found.group(1)
        pane.keys("-l", "pdp")  # moves at the table: here they are nothing, not even echoed
        screen = pane.wait("p does nothing here: q leaves, c shows a new pairing code")
        assert "pdp" not in screen, screen
        pane.keys("c")
        screen = pane.wait("(a new one: the one before works no more)")
        assert _code(screen) != CODE

        nay = piped(tmp_path / "nay", "join", join, "--pair-code", _code(screen), "--name",
                    "Nay", "--linger", "1")  # fmt: skip
        assert nay.stdin is not None
        nay.stdin.write("no\n")
        nay.stdin.flush()
        assert nay.wait(GUARD) == 1
        screen = pane.wait("your guest declined your rules")
        assert "waiting for another guest" in screen and "waiting for a guest to join" in screen

        pane.keys("-l", "pd")
        pane.wait("d does nothing here")
        yea = guest(tmp_path / "g", join, code=_code(screen))
        screen = pane.wait("connected to Guesto", timeout=GUARD)
        screen = pane.wait(lambda s: "your turn" in s or "MATCH OVER" in s, timeout=GUARD)
        moved = re.search(r"\d\d:\d\d you ", screen)
        assert not moved, f"a key typed while waiting made a move:\n{screen}"
    finally:
        pane.close()
        if nay is not None:
            stop(nay)
        if yea is not None:
            yea.kill()
