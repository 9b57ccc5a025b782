"""Reading cards: the card points, the per-card keys and unmasking (docs/shuffle.md).

A card is the point its label hashes to on the curve. After both locks, the card at a
position is read with both players' keys for that position: each key is checked
against the public key its author published in its lock (:func:`check_key`), then
:func:`unmask` removes both and looks the point up among the card points.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from ginp2p.game.cards import deck
from ginp2p.proto.shuffle.group import (
    POINT_BYTES,
    H,
    ShuffleError,
    _base,
    _check_deck_size,
    _mul,
    _need_bytes,
    _need_scalar,
    _sinv,
    _smul,
    _to_point,
)
from ginp2p.proto.shuffle.steps import HandSecrets


@cache
def _all_card_points() -> tuple[bytes, ...]:
    """M_j for the 108-card deck; smaller decks are prefixes of it."""
    return tuple(_to_point(H("ginp2p/v1/card", c.label.encode("ascii"))[:32]) for c in deck(108))


def card_points(n: int) -> tuple[bytes, ...]:
    """The card points M_0 … M_{n-1}: hashed to the curve, so no discrete log is known."""
    _check_deck_size(n)
    return _all_card_points()[:n]


@cache
def _card_table(n: int) -> dict[bytes, int]:
    return {p: j for j, p in enumerate(card_points(n))}


def card_index(point: bytes, n: int) -> int | None:
    """Which card of a deck of n a point is, or None."""
    return _card_table(n).get(_need_bytes(point, POINT_BYTES, "the card's point"))


def card_key(secrets: HandSecrets, pos: int) -> bytes:
    """This player's per-card key for a position, to publish when the rules say so."""
    return secrets.card_key(pos)


def check_key(public_key: bytes, key: Any) -> None:
    """A received per-card key must be canonical and match its K_i from the lock entry."""
    k = _need_scalar(key, "the card key")
    if _base(k) != public_key:
        raise ShuffleError("bad-key", "the key does not open the lock its author published for "
                           "that card")  # fmt: skip


def unmask(point: bytes, key_a: Any, key_b: Any, n: int) -> int | None:
    """The card at a D4 position from both players' keys, or None if it is not a card."""
    _check_deck_size(n)
    ka, kb = _need_scalar(key_a, "the first card key"), _need_scalar(key_b, "the second card key")
    inv = _sinv(_smul(ka, kb))
    return card_index(_mul(inv, _need_bytes(point, POINT_BYTES, "the masked card")), n)
