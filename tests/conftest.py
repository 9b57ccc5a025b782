"""Fixtures shared by every test folder: a temporary ``GINP2P_HOME``, a free port, a
``ginp2p`` command run in its own process, and two players' games in one process over
the memory transport (``ginp2p.testing.games``).

The suite starts a few hundred ``python`` processes (ginp2p peers, scripts). Each would
compile ginp2p from source again where the environment forbids bytecode files
(``PYTHONDONTWRITEBYTECODE``, as some machines set): for this run, they keep their
bytecode in a temporary folder of their own instead (``PYTHONPYCACHEPREFIX``), never in
the checkout."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

from ginp2p.testing.games import Games
from tests.processes import RunGinp2p, ginp2p_env

#: How long a `ginp2p` command may take before the test fails (a hang, never a measure).
RUN_GUARD = 240.0

_PYCACHE = "GINP2P_TEST_PYCACHE"  # the folder this run made (set in the first process)


def pytest_configure(config: pytest.Config) -> None:
    """Before any worker starts: one bytecode folder for every process of this run."""
    if _PYCACHE in os.environ:  # a worker: the run's folder is already set
        return
    folder = tempfile.mkdtemp(prefix="ginp2p-tests-pycache-")
    os.environ[_PYCACHE] = os.environ["PYTHONPYCACHEPREFIX"] = folder
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The end-to-end tests first: they spend much of their time waiting on other
    processes, which the workers fill with the tests that only compute. Started last, they
    would leave the run's end to one worker."""
    items.sort(key=lambda item: item.get_closest_marker("e2e") is None)


def pytest_unconfigure(config: pytest.Config) -> None:
    if not hasattr(config, "workerinput"):  # the run's first process made the folder
        shutil.rmtree(os.environ.pop(_PYCACHE, ""), ignore_errors=True)


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
