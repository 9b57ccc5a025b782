"""A piped standard input, read by one thread for the whole run, shared by the wait
before the game (which takes only its own lines) and the game's line player."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections import deque
from collections.abc import Iterable, Iterator

__all__ = ["PipedLines"]


class PipedLines:
    """A piped standard input, read by one thread for the whole run. While the player
    waits for the other one, the wait looks at each line as it comes and takes only its
    own (``quit``, ``help``); the first line that is for the game (a move, a ``yes``)
    and every line after it stay, in order, for the game's LinePlayer, which reads them
    here as it would read the pipe. Two readers of one pipe would each hold lines the
    other never sees."""

    def __init__(self, stdin: Iterable[str]) -> None:
        self._lines: deque[str | None] = deque()  # None: the input ended
        self._ready = threading.Condition()
        self._loop = asyncio.get_running_loop()
        self._new = asyncio.Event()
        threading.Thread(target=self._read, args=(stdin,), daemon=True,
                         name="ginp2p-stdin").start()  # fmt: skip

    def _read(self, stdin: Iterable[str]) -> None:
        try:
            for line in stdin:
                self._put(line)
        except (OSError, ValueError):  # unreadable input (bad UTF-8): it ends there
            pass
        finally:
            self._put(None)

    def _put(self, line: str | None) -> None:
        with self._ready:
            self._lines.append(line)
            self._ready.notify_all()
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits now
            self._loop.call_soon_threadsafe(self._new.set)

    async def peek(self) -> str | None:
        """The next line, left where it is (None: the input ended)."""
        while True:
            with self._ready:
                if self._lines:
                    return self._lines[0]
                self._new.clear()
            await self._new.wait()

    def take(self) -> None:
        """Take the line :meth:`peek` gave: it was the wait's, not the game's."""
        with self._ready:
            self._lines.popleft()

    def __iter__(self) -> Iterator[str]:
        """The lines left, as a thread reads a pipe: each one when it comes."""
        while True:
            with self._ready:
                self._ready.wait_for(lambda: bool(self._lines))
                line = self._lines[0]
                if line is None:  # kept: the end stays the end
                    return
                self._lines.popleft()
            yield line
