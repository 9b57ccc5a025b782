"""A fake clock for asyncio: time that moves only when everything waits.

:class:`FakeClock` makes event loops whose ``loop.time()`` is the fake clock's. When
no callback is ready to run and no I/O is ready either, the loop does not sleep: the
clock jumps to the next timer (as ``trio.testing.MockClock`` does with autojump). So a
test of code that waits (a claim timeout of 60 s, a linger, heartbeats, reconnect
pauses) runs as fast as the code itself, and the same every time::

    from ginp2p.testing.clock import FakeClock

    clock = FakeClock()

    async def main() -> float:
        await asyncio.sleep(3600)  # returns at once: nothing else was due
        return clock.time()

    assert clock.run(main()) == 3600.0

A session takes its time from the same clock: ``Session(..., clock=clock.time,
wall_clock=clock.wall)`` (``GameSetup(clock=..., wall_clock=...)`` for a whole game).
:meth:`FakeClock.jump` moves time on by hand, as if this process had been frozen that
long (a laptop's lid): timers that fell due meanwhile run late, as they would.

Waiting on real I/O (a thread, a subprocess, a socket) works, but the clock may jump
ahead while it is under way: code under test that the clock must wait for should not
run in threads.
"""

from __future__ import annotations

import asyncio
import selectors
import time
from collections.abc import Coroutine, Mapping
from typing import Any, TypeVar

__all__ = ["FakeClock"]

_T = TypeVar("_T")


class _JumpingSelector(selectors.BaseSelector):
    """A selector that, asked to wait, looks once; if nothing is ready, the clock jumps
    by what the loop would have waited, and the loop's timer is due."""

    def __init__(self, clock: FakeClock) -> None:
        self._clock = clock
        self._real = selectors.DefaultSelector()

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        ready = self._real.select(0)
        if ready or (timeout is not None and timeout <= 0):
            return ready
        if timeout is None:  # no timer at all: only real I/O can wake the loop
            return self._real.select(None)
        self._clock.jump(timeout)
        return []

    def register(self, fileobj: Any, events: int, data: Any = None) -> selectors.SelectorKey:
        return self._real.register(fileobj, events, data)

    def unregister(self, fileobj: Any) -> selectors.SelectorKey:
        return self._real.unregister(fileobj)

    def modify(self, fileobj: Any, events: int, data: Any = None) -> selectors.SelectorKey:
        return self._real.modify(fileobj, events, data)

    def get_map(self) -> Mapping[Any, selectors.SelectorKey]:
        return self._real.get_map()

    def close(self) -> None:
        self._real.close()


class _FakeClockLoop(asyncio.SelectorEventLoop):
    def __init__(self, clock: FakeClock) -> None:
        super().__init__(_JumpingSelector(clock))
        self._fake_clock = clock

    def time(self) -> float:
        return self._fake_clock.time()


class FakeClock:
    """Seconds since ``start``, moved by the loops it makes (see the module)."""

    def __init__(self, start: float = 0.0) -> None:
        self._start = self._now = start

    def time(self) -> float:
        """The clock's time (what the loops' ``time()`` says)."""
        return self._now

    def wall(self) -> float:
        """The time of day, as ``time.time()`` gives it, moved on by every jump of this
        clock: a file written before a jump looks that much older (a resumed session's
        ``away_since`` is its files' time)."""
        return time.time() + (self._now - self._start)

    def jump(self, seconds: float) -> None:
        """Move time on by ``seconds`` (never back)."""
        if seconds < 0:
            raise ValueError("time never goes back")
        self._now += seconds

    def new_event_loop(self) -> asyncio.AbstractEventLoop:
        """An event loop on this clock, jumping to its next timer whenever it is idle."""
        return _FakeClockLoop(self)

    def run(self, main: Coroutine[Any, Any, _T]) -> _T:
        """``asyncio.run(main)`` on this clock."""
        with asyncio.Runner(loop_factory=self.new_event_loop) as runner:
            return runner.run(main)
