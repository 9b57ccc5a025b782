"""Fixtures shared by every test folder: a temporary ``GINP2P_HOME``, a free port, a
``ginp2p`` command run in its own process, and two players' games in one process over
the memory transport (``ginp2p.testing.games``)."""

from __future__ import annotations

import socket
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from ginp2p.testing.games import Games
from tests.processes import RunGinp2p, ginp2p_env

#: How long a `ginp2p` command may take before the test fails (a hang, never a measure).
RUN_GUARD = 240.0


@pytest.fixture
def ginp2p_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """This test's ``GINP2P_HOME``: a temporary folder, never the user's own."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    monkeypatch.setenv("GINP2P_HOME", str(home))
    return home


@pytest.fixture
def free_port() -> Callable[[], int]:
    """A port of 127.0.0.1 free right now (nothing listens there)."""

    def pick() -> int:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            return int(s.getsockname()[1])

    return pick


@pytest.fixture
def run_ginp2p() -> RunGinp2p:
    """``run_ginp2p(home, *args, crash=None, encoding=None)``: ``python -m ginp2p ARGS``
    in its own process with ``home`` as its ``GINP2P_HOME`` and no input, run to its end;
    ``crash``: where its crash test hook kills it (``GINP2P_CRASH_AT``); ``encoding``: that
    of its standard streams (``PYTHONIOENCODING``, as a console without UTF-8 has), its
    output read back in it."""

    def run(home: Path, *args: str, crash: str | None = None,
            encoding: str | None = None) -> subprocess.CompletedProcess[str]:  # fmt: skip
        env = ginp2p_env(home, crash=crash)
        if encoding is not None:
            env["PYTHONIOENCODING"] = encoding
        return subprocess.run([sys.executable, "-m", "ginp2p", *args], capture_output=True,
                              text=True, encoding=encoding, timeout=RUN_GUARD,
                              stdin=subprocess.DEVNULL, env=env)  # fmt: skip

    return run


@pytest.fixture
def games(tmp_path: Path, ginp2p_home: Path) -> Games:
    """Two players' games in this process, over the memory transport, on a fake clock."""
    return Games(tmp_path / "players")
