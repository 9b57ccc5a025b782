"""What a host's process has to spare, and the means to keep it: open files, memory, a
connection of ZeroMQ's to close, a ZAP handler that lets go of its socket in order
(used by :mod:`ginp2p.net.transport`)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
from collections.abc import Collection, Iterable
from typing import Any

import zmq
import zmq.asyncio
from zmq.auth.base import Authenticator

__all__ = [
    "HANDSHAKE_IVL_MS",
    "MAX_BACKLOG",
    "MAX_CONNECTIONS",
    "MAX_GROWTH",
    "MAX_MESSAGE",
    "MAX_STRANGERS",
    "OPEN_FILES",
    "ZapHandler",
    "forget_strangers",
    "raise_open_files_limit",
    "rss",
    "shut",
    "to_shed",
]

#: ZMQ_MAXMSGSIZE: far above the largest entry (a 108-card lock is about 28 KB).
MAX_MESSAGE = 1 << 20
#: Received frames not yet taken by the game. Past this, reading pauses, so a flood
#: waits in ZeroMQ's bounded queues and then in its sender's TCP window, not in memory.
MAX_BACKLOG = 256
#: How far this process's memory may grow past its size at the host's start before
#: every connection is dropped. ZeroMQ bounds each part of a message, not a message of
#: endless parts: a stranger admitted while the host pairs could grow it to gigabytes
#: in seconds, and closing the connection is what frees it.
MAX_GROWTH = 256 << 20
#: The soft limit on open files a host raises itself to (within the hard limit). Each
#: TCP connection is a file: under a low limit (256 on macOS, 1024 on many Linux
#: systems) a stranger's idle connections left none for the friend's. 10240 is macOS's
#: per-process ceiling.
OPEN_FILES = 10240
#: A connection that has not finished its encrypted greeting within this is closed
#: (ZeroMQ's default is 30 s): an idle or stalled TCP connection holds a file no longer.
HANDSHAKE_IVL_MS = 5000
#: Connections the host keeps open at once. Past this, each new one closes the oldest
#: other than the partner's (a greeting or an idle stranger's first): a flood of
#: connections, idle or greeted, cannot use up the host's files.
MAX_CONNECTIONS = 64
#: Keys not paired with this host whose routes and connection counts the host keeps
#: while it pairs (the oldest is forgotten first): keys cost nothing to make.
MAX_STRANGERS = 256


def forget_strangers(table: dict[bytes, Any], pinned: set[bytes]) -> None:
    """Keep the newest MAX_STRANGERS keys of ``table`` that are not ``pinned``."""
    strangers = [k for k in table if k not in pinned]
    for key in strangers[: max(0, len(strangers) - MAX_STRANGERS)]:
        del table[key]


def to_shed(open_fds: Iterable[int], heard: Collection[int], keep: Collection[int]) -> int | None:
    """The connection a host past MAX_CONNECTIONS closes, oldest first, never the one just
    accepted (the last of ``open_fds``: it has had no time to speak, and may be the
    friend's): one nothing was heard on (an idle stranger's, a greeting never finished);
    else any but those in ``keep`` (the partner's). A guest that is pairing goes after
    the silent ones; a stranger's pairing requests buy its connections nothing more."""
    older = list(open_fds)[:-1]
    silent = [fd for fd in older if fd not in heard]
    unkept = [fd for fd in older if fd not in keep]
    return next(iter(silent or unkept), None)


def raise_open_files_limit(want: int = OPEN_FILES) -> None:
    """Raise this process's soft limit on open files towards ``want``, never past the
    hard limit (a best effort: where it cannot be raised, nothing changes)."""
    try:
        import resource
    except ImportError:  # Windows: no such limit to raise
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = want if hard == resource.RLIM_INFINITY else min(want, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


def rss() -> int | None:
    """This process's resident memory in bytes (Linux; None where it cannot be read)."""
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


def shut(fd: int, port: int) -> bool:
    """End the TCP connection on ZeroMQ's descriptor ``fd`` (ZeroMQ reads its end and
    closes it), if that is still a connection to ``port``, not a listener."""
    try:
        conn = socket.socket(fileno=os.dup(fd))
    except OSError:
        return False
    try:
        if conn.getsockopt(socket.SOL_SOCKET, socket.SO_ACCEPTCONN) or \
                conn.getsockname()[1] != port:  # fmt: skip
            return False
        conn.shutdown(socket.SHUT_RDWR)
        return True
    except (OSError, IndexError, TypeError):
        return False
    finally:
        conn.close()


class ZapHandler(Authenticator):
    """pyzmq's ZAP handler on this event loop, whose close waits for its task to end
    before the ZAP socket closes: a cleanup coming later unhooked the descriptor, by
    then the next endpoint's ZAP socket, and no handshake of that one ended."""

    _task: asyncio.Task[None] | None = None

    def start(self) -> None:
        super().start()
        self._task = asyncio.ensure_future(self._serve())

    async def _serve(self) -> None:
        poller = zmq.asyncio.Poller()
        poller.register(self.zap_socket, zmq.POLLIN)
        while True:
            if self.zap_socket in dict(await poller.poll()):
                await self.handle_zap_message(self.zap_socket.recv_multipart())

    async def aclose(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        self.stop()
