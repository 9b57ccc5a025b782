"""The shuffle's arithmetic: hashing, the group, and the checks on a peer's numbers.

Everything the per-hand steps (:mod:`ginp2p.proto.shuffle.steps`) build their proofs
from: the length-prefixed hash ``H``, the scalars and permutations a seed derives, the
curve operations of the prime-order subgroup of edwards25519 (PyNaCl's libsodium; no
curve arithmetic is written here), and the validation that turns anything malformed
from the other player into a :class:`ShuffleError`. This is the only module of the
shuffle that calls libsodium. docs/shuffle.md is the byte-level specification.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Executor
from itertools import count
from typing import Any, TypeVar

import nacl.bindings as nb
import nacl.exceptions

from ginp2p.errors import Ginp2pError
from ginp2p.game.cards import DECK_SIZES

#: The cut-and-choose rounds of a shuffle proof: the fewest a peer may ask for (a
#: cheating shuffle passes with probability 2**-k), the most a challenge carries, and
#: what a host asks for unless told otherwise.
K_MIN, K_MAX, K_DEFAULT = 20, 64, 20
#: The fewest rounds the arithmetic works with. Only a caller that chooses them itself
#: (a test, an exploration) goes below K_MIN: what a peer asks for is held to K_MIN by
#: the codec (the hello's ``params.k``).
K_LOWEST = 1
#: L, the order of the edwards25519 prime-order subgroup: scalars are canonical below it.
GROUP_ORDER = 2**252 + 27742317777372353535851937790883648493
SEED_BYTES = POINT_BYTES = SCALAR_BYTES = GAME_BYTES = ENTRY_ID_BYTES = 32
_ZERO = bytes(32)
_SCALAR_PURPOSES = ("global", "card", "cc-mask")
_STREAM_PURPOSES = ("perm", "cc-perm")
_CHUNKS = 4  # pieces of per-card work handed to an executor
T = TypeVar("T")
R = TypeVar("R")


class ShuffleError(Ginp2pError):
    """The other player's data is wrong; ``reason`` is a short machine code.

    Codes: malformed, bad-length, bad-parameter, bad-point, duplicate-point, bad-scalar,
    bad-permutation, bad-challenge, bad-sum-proof, bad-shuffle-proof, bad-lock-proof,
    bad-key, bad-opening.
    """

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(f"{reason}: {message}")
        self.reason = reason
        self.message = message


# ---------------------------------------------------------------- hashing, encodings


def H(label: str, *fields: bytes) -> bytes:
    """SHA-512 over the label and each field, every one prefixed by its u32 BE length.

    Length prefixes make the encoding injective, so no two field lists collide.
    """
    h = hashlib.sha512()
    for part in (label.encode("ascii"), *fields):
        h.update(len(part).to_bytes(4, "big"))
        h.update(part)
    return h.digest()


def _u32(value: int) -> bytes:
    return value.to_bytes(4, "big")


def _hash_to_scalar(label: str, *fields: bytes) -> bytes:
    """scalar_reduce(H(label, *fields, u32 counter)), the first non-zero for counter 0, 1, …"""
    counter = 0
    while (s := nb.crypto_core_ed25519_scalar_reduce(H(label, *fields, _u32(counter)))) == _ZERO:
        counter += 1
    return s


def scalar(seed: bytes, purpose: str, index: int) -> bytes:
    """The scalar a seed gives for a purpose (global, card, cc-mask) and an index."""
    if purpose not in _SCALAR_PURPOSES:
        raise ValueError(f"{purpose!r} is not a scalar purpose")
    return _hash_to_scalar("ginp2p/v1/scalar", seed, purpose.encode("ascii"), _u32(index))


def _draws(seed: bytes, purpose: str, index: int) -> Iterator[int]:
    """Unsigned 64-bit big-endian words of H("ginp2p/v1/stream", …, block), block 0, 1, …"""
    for block in count():
        digest = H("ginp2p/v1/stream", seed, purpose.encode("ascii"), _u32(index), _u32(block))
        for i in range(0, 64, 8):
            yield int.from_bytes(digest[i : i + 8], "big")


def _below(draws: Iterator[int], m: int) -> int:
    """An unbiased draw from range(m): words at or above the largest multiple of m retry."""
    limit = (1 << 64) - (1 << 64) % m
    while (word := next(draws)) >= limit:
        pass
    return word % m


def permutation(seed: bytes, purpose: str, index: int, n: int) -> list[int]:
    """Fisher–Yates over the seed's stream (purpose perm or cc-perm); p[j] is a source index."""
    if purpose not in _STREAM_PURPOSES:
        raise ValueError(f"{purpose!r} is not a permutation purpose")
    draws = _draws(seed, purpose, index)
    p = list(range(n))
    for i in range(n - 1, 0, -1):
        j = _below(draws, i + 1)
        p[i], p[j] = p[j], p[i]
    return p


def deck_digest(points: Sequence[bytes]) -> bytes:
    """H("ginp2p/v1/deck", every point in order): how a list of points enters a hash."""
    return H("ginp2p/v1/deck", *points)


# ---------------------------------------------------------------- curve helpers


def _mul(s: bytes, point: bytes) -> bytes:
    """s·point; libsodium refuses small-order, off-subgroup and non-canonical points."""
    try:
        return nb.crypto_scalarmult_ed25519_noclamp(s, point)
    except nacl.exceptions.CryptoError as e:
        raise ShuffleError("bad-point", "a point is not in the prime-order group") from e


def _base(s: bytes) -> bytes:
    return nb.crypto_scalarmult_ed25519_base_noclamp(s)


def _add(p: bytes, q: bytes) -> bytes:
    try:
        return nb.crypto_core_ed25519_add(p, q)
    except nacl.exceptions.CryptoError as e:
        raise ShuffleError("bad-point", "a point is not on the curve") from e


def _sub(p: bytes, q: bytes) -> bytes:
    try:
        return nb.crypto_core_ed25519_sub(p, q)
    except nacl.exceptions.CryptoError as e:
        raise ShuffleError("bad-point", "a point is not on the curve") from e


def _point_sum(points: Sequence[bytes]) -> bytes:
    total = points[0]
    for p in points[1:]:
        total = _add(total, p)
    return total


def _smul(a: bytes, b: bytes) -> bytes:
    return nb.crypto_core_ed25519_scalar_mul(a, b)


def _pmap(executor: Executor | None, fn: Callable[[T], R], items: Iterable[T]) -> list[R]:
    """map, on the executor's threads when there is one (PyNaCl releases the GIL)."""
    if executor is None:
        return [fn(x) for x in items]
    return list(executor.map(fn, items))


def _chunked(n: int) -> list[range]:
    size = -(-n // _CHUNKS)
    return [range(i, min(i + size, n)) for i in range(0, n, size)]


def _flat(parts: Iterable[list[T]]) -> list[T]:
    return [x for part in parts for x in part]


def _sadd(a: bytes, b: bytes) -> bytes:
    return nb.crypto_core_ed25519_scalar_add(a, b)


def _ssub(a: bytes, b: bytes) -> bytes:
    return nb.crypto_core_ed25519_scalar_sub(a, b)


def _sinv(a: bytes) -> bytes:
    return nb.crypto_core_ed25519_scalar_invert(a)


def _is_point(p: bytes) -> bool:
    """Whether p is a point of the prime-order group (canonical, not of small order)."""
    return bool(nb.crypto_core_ed25519_is_valid_point(p))


def _to_point(uniform: bytes) -> bytes:
    """The curve point 32 uniform bytes map to (no discrete log known)."""
    return nb.crypto_core_ed25519_from_uniform(uniform)


# ---------------------------------------------------------------- validation of peer data


def _need_seq(value: Any, n: int, what: str) -> list[Any]:
    if not isinstance(value, list | tuple):
        raise ShuffleError("malformed", f"{what} is not a list")
    if len(value) != n:
        raise ShuffleError("bad-length", f"{what} has {len(value)} items, not {n}")
    return list(value)


def _need_bytes(value: Any, size: int, what: str) -> bytes:
    if type(value) is not bytes:
        raise ShuffleError("malformed", f"{what} is not bytes")
    if len(value) != size:
        raise ShuffleError("bad-length", f"{what} has {len(value)} bytes, not {size}")
    return value


def _need_points(value: Any, n: int, what: str) -> list[bytes]:
    """n distinct 32-byte strings. Validity is proven where they are multiplied."""
    items = _need_seq(value, n, what)
    points = [_need_bytes(p, POINT_BYTES, f"card {i + 1} of {what}") for i, p in enumerate(items)]
    if len(set(points)) != n:
        raise ShuffleError(
            "duplicate-point", f"{what} holds one masked card twice (a repeated point)"
        )
    return points


def _need_valid(points: Iterable[bytes], what: str, item: str = "card") -> None:
    for i, p in enumerate(points):
        if not nb.crypto_core_ed25519_is_valid_point(p):
            raise ShuffleError(
                "bad-point", f"{item} {i + 1} of {what} is not a point of the prime-order group"
            )


def _need_scalar(value: Any, what: str) -> bytes:
    """A canonical (< L), non-zero scalar: the encoding of s + L is refused."""
    s = _need_bytes(value, SCALAR_BYTES, what)
    if s == _ZERO or nb.crypto_core_ed25519_scalar_reduce(s + _ZERO) != s:
        raise ShuffleError(
            "bad-scalar", f"{what} is zero or not reduced mod L (not a canonical scalar)"
        )
    return s


def _need_perm(value: Any, n: int, what: str) -> list[int]:
    p = _need_seq(value, n, what)
    if any(type(v) is not int for v in p) or sorted(p) != list(range(n)):
        raise ShuffleError("bad-permutation", f"{what} is not an order of the {n} positions")
    return p


def _check_deck_size(n: int) -> None:
    if n not in DECK_SIZES:
        raise ShuffleError("bad-parameter", f"a deck has 52, 104 or 108 cards, not {n}")


def _check_k(k: int) -> None:
    """k rounds the arithmetic can run: K_LOWEST..K_MAX. The floor a peer is held to
    (K_MIN) is the codec's, on the hello that sets k for the game."""
    if type(k) is not int or not K_LOWEST <= k <= K_MAX:
        raise ShuffleError("bad-parameter", f"k must be {K_LOWEST}..{K_MAX}, not {k!r}")


def _deck_in(d_in: Sequence[bytes]) -> int:
    """The size of a deck we hold (ours, or one already accepted)."""
    _check_deck_size(len(d_in))
    return len(d_in)
