"""The process a game runs in: its clock, the signals that stop it as ``quit`` does,
and the test hook that kills it at a chosen point."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import Callable, Iterable

from ginp2p.present.commands import Command, QuitCmd

__all__ = [
    "CRASH_CODE",
    "CRASH_ENV",
    "awake_or_asleep",
    "catch_stop_signals",
    "crash_point",
    "die",
    "release_stop_signals",
]

#: Test-only: make the process SIGKILL itself at a chosen point (``seeds:H`` right
#: after the seeds of hand H are on disk, before the commit that depends on them is
#: sent; ``send:N`` right before our N-th entry goes out, after it is saved).
CRASH_ENV = "GINP2P_CRASH_AT"
CRASH_CODE = 86


def awake_or_asleep() -> float:
    """The session's clock: seconds that run on while the machine sleeps (Linux's
    CLOCK_BOOTTIME; elsewhere the monotonic clock). A player whose laptop slept through
    a move it owed was away that long, and the claim timeout must count it."""
    boottime = getattr(time, "CLOCK_BOOTTIME", None)
    return time.clock_gettime(boottime) if boottime is not None else time.monotonic()


def catch_stop_signals(submit: Callable[[Command], None], sigint: bool) -> list[int]:
    """Ctrl-C (if ``sigint``), ``kill`` and a closed terminal (SIGHUP) quit as the
    ``quit`` command does, so the other player hears the game is paused instead of
    waiting out the silence. Returns the signals caught."""
    loop, caught = asyncio.get_running_loop(), []
    stops = (signal.SIGINT if sigint else None, getattr(signal, "SIGTERM", None),
             getattr(signal, "SIGHUP", None))  # fmt: skip
    for sig in stops:
        if sig is None:
            continue
        try:
            loop.add_signal_handler(sig, submit, QuitCmd(int(sig)))
        except (NotImplementedError, RuntimeError, ValueError):  # Windows, not main thread
            continue
        caught.append(int(sig))
    return caught


def release_stop_signals(caught: Iterable[int]) -> None:
    """Give back the signals :func:`catch_stop_signals` caught."""
    caught = list(caught)
    for sig in caught:
        asyncio.get_running_loop().remove_signal_handler(sig)
    if int(getattr(signal, "SIGHUP", -1)) in caught:
        # a closed terminal hangs up more than once (its window, then its shell): a
        # later hangup must not kill us while the pause is sent and files close
        signal.signal(signal.SIGHUP, signal.SIG_IGN)


def die() -> None:
    """The test hook's kill -9 (os._exit where there is no SIGKILL)."""
    sigkill = getattr(signal, "SIGKILL", None)
    if sigkill is not None:
        os.kill(os.getpid(), sigkill)
    os._exit(CRASH_CODE)


def crash_point() -> tuple[str, int] | None:
    """Where :data:`CRASH_ENV` asks this process to die, if it does."""
    spec = os.environ.get(CRASH_ENV, "")
    what, _, n = spec.partition(":")
    return (what, int(n)) if what and n.isdigit() else None
