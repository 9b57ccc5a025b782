"""The player's identity: one Ed25519 key, kept in the config folder, that signs
every entry and (as X25519) encrypts the connection (its text form and fingerprint
are :mod:`ginp2p.proto.keytext`'s). :func:`user_dir` says where ginp2p keeps its files
(the key and pins; the games).
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path

import nacl.bindings
import nacl.signing

from ginp2p.errors import Ginp2pError
from ginp2p.files.private import (
    PRIVATE_FILE,
    fsync,
    fsync_dir,
    open_regular,
    private_folder,
    read_all,
    write_all,
)
from ginp2p.proto.keytext import fingerprint

__all__ = [
    "IDENTITY_FILE",
    "Identity",
    "IdentityError",
    "load_or_create_identity",
    "user_dir",
]

IDENTITY_FILE = "identity.key"
_IDENTITY_HEADER = "ginp2p ed25519 seed v1"


class IdentityError(Ginp2pError):
    """The identity file exists but cannot be read."""


def user_dir(kind: str = "config", home: str | os.PathLike[str] | None = None) -> Path:
    """Where ginp2p keeps its files: ``home``, else $GINP2P_HOME (both kinds in one
    folder), else the platform's folder of that ``kind``: "config" (the key, the
    paired players) or "data" (the games)."""
    if home is not None:
        return Path(home)
    if env := os.environ.get("GINP2P_HOME"):
        return Path(env)
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support" / "ginp2p"
    config = kind == "config"
    if os.name == "nt" and (base := os.environ.get("APPDATA" if config else "LOCALAPPDATA")):
        return Path(base) / "ginp2p"
    xdg = os.environ.get("XDG_CONFIG_HOME" if config else "XDG_DATA_HOME")
    fallback = Path.home() / (".config" if config else ".local/share")
    return (Path(xdg) if xdg else fallback) / "ginp2p"


@dataclass(frozen=True, slots=True)
class Identity:
    """The user's Ed25519 key; the same key in X25519 form is the CURVE key."""

    signing_key: nacl.signing.SigningKey
    path: Path | None = None

    @property
    def public_key(self) -> bytes:
        return bytes(self.signing_key.verify_key)

    @property
    def curve_public_key(self) -> bytes:
        return nacl.bindings.crypto_sign_ed25519_pk_to_curve25519(self.public_key)

    @property
    def curve_secret_key(self) -> bytes:
        _, sk = nacl.bindings.crypto_sign_seed_keypair(bytes(self.signing_key))
        return nacl.bindings.crypto_sign_ed25519_sk_to_curve25519(sk)

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.public_key)


def _read_identity(path: Path) -> Identity:
    fd = open_regular(path)  # a pipe put in its place is refused, never waited on
    try:
        if os.name == "posix" and stat.S_IMODE(os.fstat(fd).st_mode) & 0o077:
            os.fchmod(fd, PRIVATE_FILE)
            warnings.warn(f"{path} was readable by others; now mode 0600", stacklevel=3)
        lines = read_all(fd).decode("ascii", errors="replace").split()
    finally:
        os.close(fd)
    try:
        if " ".join(lines[:-1]) != _IDENTITY_HEADER:
            raise ValueError("unknown header")
        seed = bytes.fromhex(lines[-1])
        if len(seed) != 32:
            raise ValueError("a seed has 32 bytes")
    except (ValueError, IndexError) as exc:
        raise IdentityError(
            f"{path} is not a ginp2p identity ({exc}); restore it from a backup, or move it "
            "away to make a new key (every paired player must then pair with you again)"
        ) from exc
    return Identity(nacl.signing.SigningKey(seed), path)


def load_or_create_identity(home: str | os.PathLike[str] | None = None) -> Identity:
    """The user's key, created (mode 0600, atomically) on first use. IdentityError
    (never a new key in its place) if the key or its folder cannot be used."""
    directory = user_dir("config", home)
    try:
        private_folder(directory)  # 0700 if made now, whatever the umask
    except OSError as exc:
        why = "it is not a folder" if directory.exists() else exc.strerror or str(exc)
        raise IdentityError(f"cannot keep your key in {directory}: {why} "
                            "(set GINP2P_HOME to a folder you can write)") from exc  # fmt: skip
    path = directory / IDENTITY_FILE
    if path.exists():
        if not path.is_file():
            raise IdentityError(f"your key {path} is not a file; move it away")
        try:
            return _read_identity(path)
        except OSError as exc:
            raise IdentityError(f"cannot read your key {path}: {exc.strerror or exc}") from exc
    if path.is_symlink():  # a link to nothing (a disk not mounted?): never a new key
        raise IdentityError(f"your key {path} is a link to {os.readlink(path)}, which is not "
                            "there: mount or restore it, or move the link away")  # fmt: skip
    seed = os.urandom(32)
    tmp = directory / f".{IDENTITY_FILE}.{os.getpid()}.tmp"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE)
        try:
            write_all(fd, f"{_IDENTITY_HEADER}\n{seed.hex()}\n".encode("ascii"))
            fsync(fd)
        finally:
            os.close(fd)
        with contextlib.suppress(FileExistsError):  # a racing process's key wins
            os.link(tmp, path)  # never overwrites
        fsync_dir(path)
    except OSError as exc:  # a read-only or full folder: no half key is left behind
        raise IdentityError(f"cannot create your key in {directory}: {exc.strerror or exc} "
                            "(set GINP2P_HOME to a folder you can write)") from exc  # fmt: skip
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()
    return _read_identity(path)
