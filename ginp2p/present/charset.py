"""Whether a console can print the screens' symbols (``♥``, ``─``): the one test behind
the fallback to card codes (``7H``) where it cannot, shared by the commands and the
replay viewer. It imports nothing, so every command may ask before it runs."""

from __future__ import annotations

from typing import Any

__all__ = ["encodes"]


def encodes(stream: Any, text: str) -> bool:
    """Whether ``stream`` can print ``text`` (suit symbols on a non-UTF-8 console)."""
    try:
        text.encode(getattr(stream, "encoding", None) or "ascii")
    except (UnicodeEncodeError, LookupError):
        return False
    return True
