"""Helpers for the network tests: ginp2p peers as real OS processes on 127.0.0.1.

Every peer gets its own GINP2P_HOME (a temporary directory: its identity, its pins
and its games), never the real one. Output goes to a file that the test polls;
timeouts here only guard against a hang, they never decide a test.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import os
import re
import selectors
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ginp2p.files.logfile import read_records
from ginp2p.files.records import audit_file

#: ``run_ginp2p(home, *args, crash=None, encoding=None)`` (the fixture of
#: tests/conftest.py): a ``ginp2p`` command run to its end in a process of its own.
RunGinp2p = Callable[..., "subprocess.CompletedProcess[str]"]

GUARD = 90.0  # seconds: a generous failure guard, never a measurement
SHORT = ["--set", "game_target=1"]  # one hand, as a rule (a hand nobody wins is replayed)
#: Kills that leave the match on whatever the deal: a side stops before its first entry
#: after the shuffle (the one after its hello, the host's nonce and its five of the
#: shuffle), and a hand ends only once both sides have sent moves or shows after it.
#: ("send:10" lost that race: a knock at the first turn could end a 30-point match first,
#: in about one game in 150; a 200-point match instead cost twenty hands of bot play.)
GUEST_FIRST_PLAY = "send:7"
HOST_FIRST_PLAY = "send:8"
CODE = "7-tulip-anchor"


_ALIVE: list[subprocess.Popen[bytes]] = []


@atexit.register
def _no_orphans() -> None:
    """A test that failed half-way leaves no peer process behind."""
    for proc in _ALIVE:
        if proc.poll() is None:
            proc.kill()


class Peer:
    """One ``python -m ginp2p ...`` process with its own home and output file."""

    def __init__(self, home: Path, args: Sequence[str], *, env: dict[str, str] | None = None,
                 name: str = "peer", prefix: Sequence[str] = (),
                 stdin: int = subprocess.DEVNULL) -> None:  # fmt: skip
        home.mkdir(parents=True, exist_ok=True)
        self.home = home
        self.name = name
        self.out_path = home / f"{name}.{int(time.monotonic() * 1000)}.out"
        full_env = dict(os.environ, GINP2P_HOME=str(home), PYTHONUNBUFFERED="1")
        full_env.pop("GINP2P_CRASH_AT", None)
        full_env.update(env or {})
        self._out = open(self.out_path, "wb")  # noqa: SIM115 - closed in _close()
        self.proc = subprocess.Popen(
            [*prefix, sys.executable, "-m", "ginp2p", *args], env=full_env,
            stdin=stdin, stdout=self._out, stderr=subprocess.STDOUT,
        )  # fmt: skip
        _ALIVE.append(self.proc)

    @property
    def output(self) -> str:
        return self.out_path.read_text(errors="replace")

    def wait_for(self, pattern: str, timeout: float = GUARD) -> re.Match[str]:
        """The first match of ``pattern`` in the output; fails if the process ends or
        the guard runs out first."""
        deadline = time.monotonic() + timeout
        while True:
            m = re.search(pattern, self.output)
            if m:
                return m
            if self.proc.poll() is not None:
                m = re.search(pattern, self.output)
                if m:
                    return m
                raise AssertionError(f"{self.name} exited ({self.proc.returncode}) before "
                                     f"{pattern!r}:\n{self.output}")  # fmt: skip
            if time.monotonic() > deadline:
                raise AssertionError(f"{self.name}: no {pattern!r} within {timeout} s:\n"
                                     f"{self.output}")  # fmt: skip
            time.sleep(0.05)

    def wait(self, timeout: float = GUARD) -> int:
        try:
            code = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError(f"{self.name} did not finish:\n{self.output}") from None
        self._close()
        return code

    def kill(self, sig: int = signal.SIGKILL) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            if sig in (signal.SIGKILL, signal.SIGTERM):
                self.proc.wait(10)
        if self.proc.poll() is not None:
            self._close()

    def _close(self) -> None:
        """The output file, and the input pipe a scripted player was given (left open, it
        was a ResourceWarning at the test process's exit)."""
        self._out.close()
        if self.proc.stdin is not None:
            with contextlib.suppress(OSError):  # unsent input to a process that is gone
                self.proc.stdin.close()

    def join_string(self) -> str:
        return self.wait_for(r"join string[^\n]*:\s+(\S+)").group(1)  # on a line of its own

    def game_file(self) -> Path:
        return Path(self.wait_for(r"game file: (\S+\.ginlog)").group(1))


def ginp2p_env(home: Path, *, crash: str | None = None, **extra: str) -> dict[str, str]:
    """The environment of a ``ginp2p`` process a test starts: this one's, with ``home`` as
    its GINP2P_HOME, its output unbuffered, no crash test hook but ``crash`` (where
    ``GINP2P_CRASH_AT`` kills it), and ``extra`` on top."""
    env = dict(os.environ, GINP2P_HOME=str(home), PYTHONUNBUFFERED="1")
    env.pop("GINP2P_CRASH_AT", None)
    if crash is not None:
        env["GINP2P_CRASH_AT"] = crash
    env.update(extra)
    return env


def piped(home: Path, *args: str, crash: str | None = None,
          **popen: Any) -> subprocess.Popen[str]:  # fmt: skip
    """``python -m ginp2p ARGS`` with ``home`` as its GINP2P_HOME, typed to through a pipe
    and read line by line from another (text; its errors come in its output). ``popen``:
    more for ``subprocess.Popen``. End it with :func:`stop`."""
    home.mkdir(parents=True, exist_ok=True)
    return subprocess.Popen([sys.executable, "-m", "ginp2p", *args], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env=ginp2p_env(home, crash=crash), **popen)  # fmt: skip


def in_terminal(home: Path, *args: str, columns: int = 200) -> Any:
    """``python -m ginp2p ARGS`` in a real terminal of 50 rows and ``columns`` columns (a
    ``pexpect.spawn``, read as text; ``expect`` gives up after a minute), with ``home`` as
    its GINP2P_HOME. The terminal's size is the program's to find: no COLUMNS or LINES."""
    import pexpect  # a test dependency: only the tests that drive a terminal need it

    env = ginp2p_env(home)
    for name in ("COLUMNS", "LINES"):
        env.pop(name, None)
    env["PROMPT_TOOLKIT_NO_CPR"] = "1"  # a pty answers no cursor position request
    return pexpect.spawn(sys.executable, ["-m", "ginp2p", *args], env=env, encoding="utf-8",
                         timeout=60, dimensions=(50, columns))  # fmt: skip


def wait_until(done: Callable[[], bool], what: str, guard: float = GUARD) -> None:
    """Poll until ``done()`` holds; fails naming ``what`` if the guard runs out first (a
    hang: the guard never decides a test)."""
    deadline = time.monotonic() + guard
    while not done():
        if time.monotonic() > deadline:
            raise AssertionError(f"no {what} within {guard} s")
        time.sleep(0.02)


async def until(done: Callable[[], bool], what: str, guard: float = GUARD) -> None:
    """:func:`wait_until` in a running event loop: its other tasks go on meanwhile."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + guard
    while not done():
        if loop.time() > deadline:
            raise AssertionError(f"no {what} within {guard} s")
        await asyncio.sleep(0.005)


def stop(proc: subprocess.Popen[str]) -> None:
    """A process a test started directly: killed if it still runs, its pipes closed."""
    if proc.poll() is None:
        proc.kill()
        proc.wait(10)
    for pipe in (proc.stdin, proc.stdout, proc.stderr):
        if pipe is not None:
            with contextlib.suppress(OSError):  # unsent input to a dead process
                pipe.close()


def host(home: Path, *extra: str, name: str = "host", env: dict[str, str] | None = None,
         prefix: Sequence[str] = ()) -> Peer:  # fmt: skip
    args = ["bot", "--host", "--bind", "127.0.0.1", "--port", "0", "--no-advertise",
            "--pair-code", CODE, "--name", "Hosta", "--linger", "3", *SHORT, *extra]  # fmt: skip
    return Peer(home, args, name=name, env=env, prefix=prefix)


def guest(home: Path, join: str, *extra: str, name: str = "guest",
          env: dict[str, str] | None = None, code: str | None = CODE,
          prefix: Sequence[str] = ()) -> Peer:  # fmt: skip
    args = ["bot", "--join", join, "--name", "Guesto", "--linger", "3", *extra]
    if code is not None:
        args += ["--pair-code", code]
    return Peer(home, args, name=name, env=env, prefix=prefix)


def entries(path: Path) -> set[bytes]:
    records, torn = read_records(path)
    assert not torn, f"{path}: {torn}"
    return set(records)


def assert_same_and_clean(a: Path, b: Path) -> None:
    """Both logs hold the same entries, and the audit finds nothing wrong in either."""
    ea, eb = entries(a), entries(b)
    assert ea == eb, f"{len(ea - eb)} entries only in {a}, {len(eb - ea)} only in {b}"
    for path in (a, b):
        report = audit_file(path)
        assert report.verdict.value == "clean", report.text()
        assert report.end is not None and report.winner is not None, report.text()


# ------------------------------------------------------------------------ a faulty network


class DroppingProxy:
    """A TCP proxy that cuts every connection each time ``every`` more bytes went
    through, ``drops`` times; then it forwards faithfully."""

    def __init__(self, target: tuple[str, int], every: int, drops: int) -> None:
        self.target = target
        self.every = every
        self.left = drops
        self.dropped = 0
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.sel = selectors.DefaultSelector()
        self.sel.register(self.listener, selectors.EVENT_READ, None)
        self.pairs: dict[socket.socket, socket.socket] = {}
        self.count = 0
        self.stop = False
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _close_all(self) -> None:
        for s in list(self.pairs):
            self.sel.unregister(s)
            s.close()
        self.pairs.clear()

    def _run(self) -> None:
        while not self.stop:
            for key, _ in self.sel.select(0.1):
                s = key.fileobj
                if s is self.listener:
                    client, _ = self.listener.accept()
                    try:
                        upstream = socket.create_connection(self.target)
                    except OSError:
                        client.close()
                        continue
                    self.pairs[client], self.pairs[upstream] = upstream, client
                    self.sel.register(client, selectors.EVENT_READ, None)
                    self.sel.register(upstream, selectors.EVENT_READ, None)
                    continue
                if s not in self.pairs:
                    continue
                try:
                    data = s.recv(65536)  # type: ignore[union-attr]
                except OSError:
                    data = b""
                if not data:
                    other = self.pairs.pop(s)  # type: ignore[arg-type]
                    self.pairs.pop(other, None)
                    for x in (s, other):
                        self.sel.unregister(x)
                        x.close()  # type: ignore[union-attr]
                    continue
                self.pairs[s].sendall(data)  # type: ignore[index]
                self.count += len(data)
                if self.left and self.count >= self.every:
                    self.count = 0
                    self.left -= 1
                    self.dropped += 1
                    self._close_all()

    def close(self) -> None:
        self.stop = True
        self.thread.join(5)
        self._close_all()
        self.listener.close()
