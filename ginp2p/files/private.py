"""How ginp2p reads and writes its files safely: a file is read only if it is a regular
file (a pipe would wait for a writer forever, a device never end), written only as a
file of its own (never through a symbolic link planted where it should be), whole or
not at all (:func:`replace_atomically`), durably (:func:`fsync`), and private: files
0600, the folders that keep games 0700, set explicitly whatever the umask.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import sys
from pathlib import Path

from ginp2p.errors import Ginp2pError

__all__ = [
    "PRIVATE_FILE",
    "PRIVATE_FOLDER",
    "FileError",
    "NotAFile",
    "fsync",
    "fsync_dir",
    "open_private",
    "open_regular",
    "private_folder",
    "read_all",
    "read_regular",
    "replace_atomically",
    "write_all",
]


class FileError(Ginp2pError):
    """A log or secrets file that cannot be used."""


class NotAFile(FileError):
    """A path that names a pipe or a device (reading it could block or never end), or,
    where ginp2p would write, a symbolic link (the write would land where it leads)."""


def read_all(fd: int) -> bytes:
    os.lseek(fd, 0, os.SEEK_SET)
    chunks = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)


def fsync(fd: int) -> None:
    """Durable before returning: what is sent or acted on after it survives a crash."""
    os.fsync(fd)
    if sys.platform == "darwin":  # fsync does not reach the platter on macOS
        import fcntl

        fcntl.fcntl(fd, fcntl.F_FULLFSYNC)


def fsync_dir(path: Path) -> None:
    """Make a new file's directory entry durable too."""
    if os.name != "posix":
        return
    fd = os.open(path.parent, os.O_RDONLY)
    try:
        fsync(fd)
    finally:
        os.close(fd)


def write_all(fd: int, data: bytes) -> None:
    """``os.write`` until every byte is written (it may write fewer)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


#: Files ginp2p writes are its user's alone, and so are the folders it keeps games in:
#: set explicitly, whatever the umask.
PRIVATE_FILE, PRIVATE_FOLDER = 0o600, 0o700
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


def _own_mode(fd: int, mode: int) -> None:
    """``mode`` on the file open at ``fd``, whatever the umask made it (or an older
    version of ginp2p, 0644)."""
    if hasattr(os, "fchmod") and stat.S_IMODE(os.fstat(fd).st_mode) != mode:
        os.fchmod(fd, mode)


def open_regular(path: str | os.PathLike[str], flags: int = os.O_RDONLY,
                 mode: int = PRIVATE_FILE) -> int:  # fmt: skip
    """``os.open``, for a regular file only: opening never waits for a pipe's other end
    (O_NONBLOCK, dropped once the file is known to be regular), and a pipe, a device or
    a folder is refused (NotAFile, IsADirectoryError) before a byte is read. A symbolic
    link is followed unless ``flags`` hold O_NOFOLLOW."""
    fd = os.open(path, flags | _NONBLOCK | _CLOEXEC, mode)
    try:
        kind = os.fstat(fd).st_mode
        if stat.S_ISDIR(kind):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
        if not stat.S_ISREG(kind):
            raise NotAFile(f"{path} is a pipe or a device, not a file")
        if _NONBLOCK:
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_regular(path: str | os.PathLike[str]) -> bytes:
    """The bytes of a regular file (:func:`open_regular`: a pipe or a device is refused,
    never waited on); a symbolic link is read if it leads to a regular file."""
    fd = open_regular(path)
    try:
        return read_all(fd)
    finally:
        os.close(fd)


def open_private(path: str | os.PathLike[str], flags: int, mode: int = PRIVATE_FILE) -> int:
    """Open (creating) a file ginp2p writes, as a regular file of mode ``mode`` (0600),
    never through a symbolic link: one found at ``path`` is refused (NotAFile), so a
    link planted there cannot turn a write onto another file."""
    try:
        fd = open_regular(path, flags | os.O_CREAT | _NOFOLLOW, mode)
    except OSError:
        if os.path.islink(path):
            raise NotAFile(
                f"{path} is a symbolic link: ginp2p writes its files only as files of "
                "their own, never through a link (move it away)"
            ) from None
        raise
    try:
        _own_mode(fd, mode)
    except BaseException:
        os.close(fd)
        raise
    return fd


def private_folder(directory: Path, *, tighten: bool = False) -> None:
    """Make ``directory``, and any folder missing above it, mode 0700 whatever the umask.
    ``tighten``: one that exists already, and is this user's, is made 0700 too if others
    could read or enter it (a folder an older ginp2p made 0755); quietly. A folder that
    is a symbolic link (the user's choice) is followed. NotADirectoryError if a file is
    in the way."""
    missing = []
    for d in (directory, *directory.parents):
        if os.path.lexists(d):
            break
        missing.append(d)
    for d in reversed(missing):
        try:
            os.mkdir(d, PRIVATE_FOLDER)
        except FileExistsError:  # made meanwhile, by another ginp2p
            continue
        os.chmod(d, PRIVATE_FOLDER)  # not as the umask left it
    if not directory.is_dir():
        raise NotADirectoryError(errno.ENOTDIR, "not a folder", str(directory))
    if tighten and os.name == "posix":
        with contextlib.suppress(OSError):
            st = os.stat(directory)
            if st.st_uid == os.geteuid() and st.st_mode & 0o077:
                os.chmod(directory, PRIVATE_FOLDER)


def replace_atomically(path: Path, data: bytes, mode: int, *, durable: bool = True) -> None:
    """Write ``path`` whole or not at all (write, fsync, rename, fsync the folder): a
    crash leaves the old or the new file, a failed write no temporary file. Never
    through a symbolic link: the temporary file is made new (O_EXCL, O_NOFOLLOW), and the
    rename replaces a link found at ``path`` rather than writing where it leads.
    ``durable=False``: no fsync (a cache, which may be lost)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with contextlib.suppress(FileNotFoundError):  # a crashed write's, or a link
            tmp.unlink()
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC, mode)
        try:
            _own_mode(fd, mode)
            write_all(fd, data)
            if durable:
                fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    if durable:
        fsync_dir(path)
