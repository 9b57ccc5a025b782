"""Public keys as text: the 52-letter form that join strings, ``.peer`` files and
``peers.json`` carry, and the short fingerprint people compare. Pure functions of the
key's 32 bytes, so the audit can name a log's keys without touching the disk, and the
identity, the pins and the network all write a key the same way.
"""

from __future__ import annotations

import base64
import binascii
import hashlib

import nacl.bindings
import nacl.exceptions

__all__ = ["KEY_TEXT_LENGTH", "fingerprint", "key_from_text", "key_to_text"]

KEY_TEXT_LENGTH = 52


def key_to_text(key: bytes) -> str:
    """A 32-byte public key as 52 lowercase base32 letters: no padding, no case
    ambiguity, nothing a shell or a URL would mangle."""
    if len(key) != 32:
        raise ValueError(f"a public key has 32 bytes, not {len(key)}")
    return base64.b32encode(key).decode("ascii").rstrip("=").lower()


def key_from_text(text: str) -> bytes:
    """The inverse of :func:`key_to_text`; any case, surrounding blanks ignored.
    ValueError, saying what is wrong, for text that is no key."""
    cleaned = text.strip().upper()
    if len(cleaned) != KEY_TEXT_LENGTH:
        raise ValueError(
            f"a key is {KEY_TEXT_LENGTH} base32 letters (a-z, 2-7), not {len(cleaned)} characters"
        )
    try:
        key = base64.b32decode(cleaned + "====", casefold=False)
    except (binascii.Error, ValueError):
        raise ValueError("a key is written with the letters a-z and the digits 2-7") from None
    if key_to_text(key) != cleaned.lower():  # non-zero trailing bits: not canonical
        raise ValueError("this is not a key: its last letter is impossible (a typo?)")
    try:  # about half of all 32-byte strings are no point of the curve: most typos
        nacl.bindings.crypto_sign_ed25519_pk_to_curve25519(key)
    except nacl.exceptions.RuntimeError:
        raise ValueError(
            "this is not a key (a typo?): copy it again from the host's screen"
        ) from None
    return key


def fingerprint(public_key: bytes) -> str:
    """A short, readable name for a key: 16 base32 letters in groups of four."""
    digest = hashlib.sha256(b"ginp2p/v1/fingerprint\0" + public_key).digest()
    text = base64.b32encode(digest[:10]).decode().lower()
    return "-".join(text[i : i + 4] for i in range(0, 16, 4))
