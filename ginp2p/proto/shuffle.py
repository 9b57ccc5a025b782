"""The fair and private shuffle (docs/shuffle.md), sans-IO.

Two players mask the deck in turn in the prime-order subgroup of edwards25519: each
shuffles with a committed permutation and a global key, proves the step (a
Chaum–Pedersen proof on the deck sums and a cut-and-choose shuffle proof), then swaps its
global key for one key per position with a proof. A card is read only with both players'
keys for its position. All randomness derives from two 32-byte seeds per player and hand,
committed before any deck is seen and opened at the end, so the audit can recompute every
step. docs/shuffle.md is the byte-level specification.

Pure: no sockets, clocks or files. Bytes from the other player only ever raise
`ShuffleError`. Curve arithmetic is PyNaCl's (libsodium); nothing here is hand-written.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from functools import cache, cached_property
from itertools import count
from typing import Any, TypeVar

import nacl.bindings as nb
import nacl.exceptions

from ginp2p.game.cards import DECK_SIZES, deck

__all__ = [
    "GROUP_ORDER",
    "K_DEFAULT",
    "K_MAX",
    "K_MIN",
    "Answers",
    "Commit",
    "Ctx",
    "H",
    "HandSecrets",
    "LockMsg",
    "Mismatch",
    "ShuffleError",
    "ShuffleLog",
    "ShuffleMsg",
    "answer_challenge",
    "card_index",
    "card_key",
    "card_points",
    "challenge_bits",
    "check_answers",
    "check_commit",
    "check_key",
    "check_opening",
    "check_shuffle",
    "deck_digest",
    "lock_step",
    "make_commit",
    "permutation",
    "recompute",
    "scalar",
    "shuffle_step",
    "unmask",
    "verify_lock",
    "verify_shuffle",
]

K_MIN, K_MAX, K_DEFAULT = 20, 64, 20
#: L, the order of the edwards25519 prime-order subgroup: scalars are canonical below it.
GROUP_ORDER = 2**252 + 27742317777372353535851937790883648493
SEED_BYTES = POINT_BYTES = SCALAR_BYTES = GAME_BYTES = ENTRY_ID_BYTES = 32
_ZERO = bytes(32)
_SCALAR_PURPOSES = ("global", "card", "cc-mask")
_STREAM_PURPOSES = ("perm", "cc-perm")
_CHUNKS = 4  # pieces of per-card work handed to an executor
T = TypeVar("T")
R = TypeVar("R")


class ShuffleError(Exception):
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


@cache
def _all_card_points() -> tuple[bytes, ...]:
    """M_j for the 108-card deck; smaller decks are prefixes of it."""
    return tuple(
        nb.crypto_core_ed25519_from_uniform(H("ginp2p/v1/card", c.label.encode("ascii"))[:32])
        for c in deck(108)
    )


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


# ---------------------------------------------------------------- validation of peer data


#: How validation errors name a shuffle entry's output deck (D_out in docs/shuffle.md).
_PASSED_ON = "the deck passed on"


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
    if type(k) is not int or not K_MIN <= k <= K_MAX:
        raise ShuffleError("bad-parameter", f"k must be {K_MIN}..{K_MAX}, not {k!r}")


def _deck_in(d_in: Sequence[bytes]) -> int:
    """The size of a deck we hold (ours, or one already accepted)."""
    _check_deck_size(len(d_in))
    return len(d_in)


# ---------------------------------------------------------------- context and secrets


@dataclass(frozen=True)
class Ctx:
    """What every commitment and proof is bound to: game id, hand number, author (0/1)."""

    game: bytes
    hand: int
    author: int

    def __post_init__(self) -> None:
        if type(self.game) is not bytes or len(self.game) != GAME_BYTES:
            raise ValueError("game id must be 32 bytes")
        if not 0 <= self.hand < 1 << 32:
            raise ValueError("hand number must fit in 32 bits")
        if self.author not in (0, 1):
            raise ValueError("author is 0 (host) or 1 (guest)")

    def fields(self) -> tuple[bytes, bytes, bytes]:
        """game, u32 BE hand, one byte author: the encoding used in every hash."""
        return self.game, _u32(self.hand), bytes([self.author])


@dataclass(eq=False)
class HandSecrets:
    """One player's two seeds for one hand and what they derive, computed lazily.

    perm_seed drives π (purpose perm) and every σ_t (cc-perm); key_seed drives x (global),
    x_i (card), r_t (cc-mask), proof nonces and this player's challenges. Seeds are kept
    out of repr so they never land in a log line.
    """

    perm_seed: bytes = field(repr=False)
    key_seed: bytes = field(repr=False)
    _perms: dict[int, list[int]] = field(default_factory=dict, init=False, repr=False)
    _keys: dict[int, bytes] = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        _need_bytes(self.perm_seed, SEED_BYTES, "the opened shuffle seed")
        _need_bytes(self.key_seed, SEED_BYTES, "the opened key seed")

    @cached_property
    def x(self) -> bytes:
        return scalar(self.key_seed, "global", 0)

    @cached_property
    def x_inv(self) -> bytes:
        return nb.crypto_core_ed25519_scalar_invert(self.x)

    @cached_property
    def public(self) -> bytes:
        """P = x·G."""
        return _base(self.x)

    def perm(self, n: int) -> list[int]:
        """π for a deck of n."""
        if n not in self._perms:
            self._perms[n] = permutation(self.perm_seed, "perm", 0, n)
        return self._perms[n]

    def card_key(self, pos: int) -> bytes:
        """x_i, the per-card key for position pos."""
        if pos not in self._keys:
            self._keys[pos] = scalar(self.key_seed, "card", pos)
        return self._keys[pos]

    def mask(self, t: int) -> bytes:
        """r_t, the factor of intermediate deck t."""
        return scalar(self.key_seed, "cc-mask", t)

    def cc_perm(self, t: int, n: int) -> list[int]:
        """σ_t, the permutation of intermediate deck t."""
        return permutation(self.perm_seed, "cc-perm", t, n)


def _nonce(secrets: HandSecrets, statement: bytes, j: int) -> bytes:
    """A proof nonce: secret (key_seed) and different for every statement."""
    return _hash_to_scalar("ginp2p/v1/nonce", secrets.key_seed, statement, _u32(j))


# ---------------------------------------------------------------- commit


@dataclass
class Commit:
    """c = H("ginp2p/v1/commit", game, hand, author, perm_seed, key_seed) (64 B); P = x·G."""

    c: bytes
    P: bytes


def make_commit(secrets: HandSecrets, ctx: Ctx) -> Commit:
    """Binds the seeds (hence every later step) before any deck is seen."""
    c = H("ginp2p/v1/commit", *ctx.fields(), secrets.perm_seed, secrets.key_seed)
    return Commit(c, secrets.public)


def check_commit(commit: Commit) -> None:
    """On receipt: a 64-byte digest and a valid P."""
    _need_bytes(commit.c, 64, "the commitment")
    public = _need_bytes(commit.P, POINT_BYTES, "the commitment's public key")
    if not nb.crypto_core_ed25519_is_valid_point(public):
        raise ShuffleError(
            "bad-point", "the commitment's public key is not a point of the prime-order group"
        )


def check_opening(commit: Commit, secrets: HandSecrets, ctx: Ctx) -> None:
    """Opened seeds must reproduce the commitment and P."""
    if make_commit(secrets, ctx) != commit:
        raise ShuffleError("bad-opening", "the opened seeds do not match the commitment "
                           "made before the shuffle")  # fmt: skip


# ---------------------------------------------------------------- shuffle and sum proof


@dataclass
class ShuffleMsg:
    """A shuffle entry: D_out = x·π(D_in), sum_proof = [e, z], deck_hash = C (64 B)."""

    d_out: list[bytes]
    sum_proof: list[bytes]
    deck_hash: bytes


@dataclass
class Answers:
    """Answers to a challenge, per round t: bit 0 → (r_t, σ_t); bit 1 → (r_t/x, τ_t)."""

    scalars: list[bytes]
    perms: list[list[int]]


def _sum_statement(ctx: Ctx, public: bytes, d_in: Sequence[bytes], d_out: Sequence[bytes]) -> bytes:
    return H("ginp2p/v1/sum-proof", *ctx.fields(), public, deck_digest(d_in), deck_digest(d_out))


def _sum_challenge(statement: bytes, a1: bytes, a2: bytes) -> bytes:
    return _hash_to_scalar("ginp2p/v1/sum-challenge", statement, a1, a2)


def _prove_sum(
    secrets: HandSecrets, ctx: Ctx, d_in: Sequence[bytes], d_out: Sequence[bytes]
) -> list[bytes]:
    """Chaum–Pedersen: log_G P = log_S S' with S = ΣD_in, S' = ΣD_out; pins the factor to x."""
    statement = _sum_statement(ctx, secrets.public, d_in, d_out)
    w = _nonce(secrets, statement, 0)
    e = _sum_challenge(statement, _base(w), _mul(w, _point_sum(d_in)))
    z = nb.crypto_core_ed25519_scalar_add(w, _smul(e, secrets.x))
    return [e, z]


def _sum_holds(
    public: bytes, ctx: Ctx, d_in: Sequence[bytes], d_out: Sequence[bytes], proof: Any
) -> bool:
    items = _need_seq(proof, 2, "the sum proof")
    e, z = (_need_scalar(s, f"part {i + 1} of the sum proof") for i, s in enumerate(items))
    a1 = _sub(_base(z), _mul(e, public))
    a2 = _sub(_mul(z, _point_sum(d_in)), _mul(e, _point_sum(d_out)))
    return _sum_challenge(_sum_statement(ctx, public, d_in, d_out), a1, a2) == e


def _masked(s: bytes, d: Sequence[bytes], order: Sequence[int]) -> list[bytes]:
    """[s·d[order[0]], s·d[order[1]], …]"""
    return [_mul(s, d[j]) for j in order]


def _shuffle_core(
    secrets: HandSecrets, ctx: Ctx, d_in: Sequence[bytes], executor: Executor | None
) -> tuple[list[bytes], list[bytes]]:
    """D_out and the sum proof: the part of a shuffle entry the audit always recomputes."""
    pi, x = secrets.perm(len(d_in)), secrets.x
    d_out = _flat(
        _pmap(executor, lambda r: _masked(x, d_in, [pi[j] for j in r]), _chunked(len(d_in)))
    )
    return d_out, _prove_sum(secrets, ctx, d_in, d_out)


def _cc_hash(ctx: Ctx, digests: Sequence[bytes]) -> bytes:
    """C = H("ginp2p/v1/cc-decks", game, hand, author, H(E_0), …, H(E_{k-1}))."""
    return H("ginp2p/v1/cc-decks", *ctx.fields(), *digests)


def _cc_commitment(
    secrets: HandSecrets, ctx: Ctx, d_in: Sequence[bytes], k: int, executor: Executor | None
) -> bytes:
    """C over the k intermediate decks E_t[i] = r_t·D_in[σ_t[i]]."""
    n = len(d_in)
    return _cc_hash(
        ctx,
        _pmap(
            executor,
            lambda t: deck_digest(_masked(secrets.mask(t), d_in, secrets.cc_perm(t, n))),
            range(k),
        ),
    )


def shuffle_step(
    secrets: HandSecrets,
    ctx: Ctx,
    d_in: Sequence[bytes],
    k: int = K_DEFAULT,
    executor: Executor | None = None,
) -> ShuffleMsg:
    """Shuffle and mask D_in; first shuffler: D_in = card_points(n), second: the first's D_out."""
    _deck_in(d_in)
    _check_k(k)
    d_out, sum_proof = _shuffle_core(secrets, ctx, d_in, executor)
    return ShuffleMsg(d_out, sum_proof, _cc_commitment(secrets, ctx, d_in, k, executor))


def check_shuffle(public: bytes, ctx: Ctx, d_in: Sequence[bytes], msg: ShuffleMsg) -> None:
    """On receipt of a shuffle entry: shape, distinctness, sum proof.

    Points are proven valid only by check_answers: accept the deck after that.
    """
    n = _deck_in(d_in)
    public = _need_bytes(public, POINT_BYTES, "the public key")
    d_out = _need_points(msg.d_out, n, _PASSED_ON)
    _need_bytes(msg.deck_hash, 64, "the deck hash")
    if not _sum_holds(public, ctx, d_in, d_out, msg.sum_proof):
        _need_valid(d_out, _PASSED_ON)  # name the real fault when it is a bad point
        raise ShuffleError("bad-sum-proof", "the shuffle's sum proof fails: the deck passed "
                           "on is not the deck received, rearranged and masked again")  # fmt: skip


def challenge_bits(key_seed: bytes, ctx: Ctx, entry_id: bytes, k: int) -> list[int]:
    """The challenger's k bits: H("ginp2p/v1/challenge", key_seed, game, hand, entry id).

    Bit t is bit (7 - t mod 8) of byte t div 8 (most significant first). ctx is the
    shuffle's; its author is not hashed (the entry id binds it).
    """
    _check_k(k)
    _need_bytes(entry_id, ENTRY_ID_BYTES, "entry id")
    digest = H("ginp2p/v1/challenge", key_seed, ctx.game, _u32(ctx.hand), entry_id)
    return [(digest[t // 8] >> (7 - t % 8)) & 1 for t in range(k)]


def _need_bits(bits: Any, k: int) -> list[int]:
    _check_k(k)
    b = _need_seq(bits, k, "the challenge")
    if any(type(v) is not int or v not in (0, 1) for v in b):
        raise ShuffleError("bad-challenge", "challenge bits must be 0 or 1")
    return b


def _inverse(p: Sequence[int]) -> list[int]:
    inv = [0] * len(p)
    for i, v in enumerate(p):
        inv[v] = i
    return inv


def answer_challenge(secrets: HandSecrets, n: int, bits: Any, k: int) -> Answers:
    """Open one half of each round: bit 0 links E_t to D_in, bit 1 links it to D_out.

    τ_t[j] = σ_t⁻¹[π[j]], so E_t[τ_t[j]] = (r_t/x)·D_out[j]. Answer a shuffle once only:
    both halves of a round reveal x and π.
    """
    _check_deck_size(n)
    bits = _need_bits(bits, k)
    pi = secrets.perm(n)
    scalars, perms = [], []
    for t, bit in enumerate(bits):
        sigma = secrets.cc_perm(t, n)
        if bit == 0:
            scalars.append(secrets.mask(t))
            perms.append(sigma)
        else:
            sigma_inv = _inverse(sigma)
            scalars.append(_smul(secrets.mask(t), secrets.x_inv))
            perms.append([sigma_inv[pi[j]] for j in range(n)])
    return Answers(scalars, perms)


def _rebuild(
    bit: int, s: bytes, p: list[int], d_in: Sequence[bytes], d_out: Sequence[bytes]
) -> bytes:
    """H(E_t) from one answer: from D_in (bit 0) or from D_out (bit 1)."""
    if bit == 0:
        return deck_digest(_masked(s, d_in, p))
    e = [b""] * len(p)
    for j, point in enumerate(d_out):
        e[p[j]] = _mul(s, point)
    return deck_digest(e)


def check_answers(
    ctx: Ctx,
    d_in: Sequence[bytes],
    msg: ShuffleMsg,
    bits: Any,
    answers: Answers,
    k: int,
    executor: Executor | None = None,
) -> None:
    """The cut-and-choose check: the rebuilt decks must hash to C.

    Run after check_shuffle. Every D_out point passes through a noclamp multiplication in
    a bit-1 round; with no bit-1 round each is checked with is_valid_point.
    """
    n = _deck_in(d_in)
    bits = _need_bits(bits, k)
    scalars = [
        _need_scalar(s, f"the scalar of answer {t + 1}")
        for t, s in enumerate(_need_seq(answers.scalars, k, "the answers' scalars"))
    ]
    perms = [
        _need_perm(p, n, f"the rearrangement of answer {t + 1}")
        for t, p in enumerate(_need_seq(answers.perms, k, "the answers' rearrangements"))
    ]
    d_out = _need_points(msg.d_out, n, _PASSED_ON)
    if 1 not in bits:
        _need_valid(d_out, _PASSED_ON)
    digests = _pmap(
        executor, lambda t: _rebuild(bits[t], scalars[t], perms[t], d_in, d_out), range(k)
    )
    if _cc_hash(ctx, digests) != msg.deck_hash:
        raise ShuffleError("bad-shuffle-proof", "the answers do not rebuild the committed decks")


def verify_shuffle(
    public: bytes,
    ctx: Ctx,
    d_in: Sequence[bytes],
    msg: ShuffleMsg,
    bits: Any,
    answers: Answers,
    k: int,
    executor: Executor | None = None,
) -> None:
    """Everything a shuffle entry and its answers must satisfy before D_out is accepted."""
    check_shuffle(public, ctx, d_in, msg)
    check_answers(ctx, d_in, msg, bits, answers, k, executor)


# ---------------------------------------------------------------- lock


@dataclass
class LockMsg:
    """A lock entry: D_out[i] = (x_i/x)·D_in[i], keys[i] = K_i = x_i·G, proof = [e, z, z_0, …]."""

    d_out: list[bytes]
    keys: list[bytes]
    proof: list[bytes]


def _lock_statement(
    ctx: Ctx, public: bytes, keys: Sequence[bytes], d_in: Sequence[bytes], d_out: Sequence[bytes]
) -> bytes:
    return H(
        "ginp2p/v1/lock-proof",
        *ctx.fields(),
        public,
        deck_digest(keys),
        deck_digest(d_in),
        deck_digest(d_out),
    )


def _lock_challenge(statement: bytes, t: bytes, ts: Sequence[bytes], us: Sequence[bytes]) -> bytes:
    return _hash_to_scalar(
        "ginp2p/v1/lock-challenge", statement, t, deck_digest(ts), deck_digest(us)
    )


def lock_step(
    secrets: HandSecrets, ctx: Ctx, d_in: Sequence[bytes], executor: Executor | None = None
) -> LockMsg:
    """Swap the global key for per-card keys, with one proof for all positions.

    The proof shows P = x·G, K_i = x_i·G and x_i·D_in[i] = x·D_out[i] for every i, so no
    position can be re-routed or tagged. U_i is computed as (w_i − w·x_i/x)·D_in[i], equal
    to w_i·D_in[i] − w·D_out[i], saving a multiplication per card.
    """
    n = _deck_in(d_in)
    xs = [secrets.card_key(i) for i in range(n)]
    ratios = [_smul(xi, secrets.x_inv) for xi in xs]
    parts = _pmap(
        executor, lambda r: [(_mul(ratios[i], d_in[i]), _base(xs[i])) for i in r], _chunked(n)
    )
    d_out = [d for part in parts for d, _ in part]
    keys = [key for part in parts for _, key in part]
    statement = _lock_statement(ctx, secrets.public, keys, d_in, d_out)
    w = _nonce(secrets, statement, 0)
    ws = [_nonce(secrets, statement, i + 1) for i in range(n)]

    def commitments(r: range) -> list[tuple[bytes, bytes]]:
        return [
            (
                _base(ws[i]),
                _mul(nb.crypto_core_ed25519_scalar_sub(ws[i], _smul(w, ratios[i])), d_in[i]),
            )
            for i in r
        ]

    tu = _flat(_pmap(executor, commitments, _chunked(n)))
    e = _lock_challenge(statement, _base(w), [t for t, _ in tu], [u for _, u in tu])
    z = nb.crypto_core_ed25519_scalar_add(w, _smul(e, secrets.x))
    zs = [nb.crypto_core_ed25519_scalar_add(ws[i], _smul(e, xs[i])) for i in range(n)]
    return LockMsg(d_out, keys, [e, z, *zs])


def verify_lock(
    public: bytes, ctx: Ctx, d_in: Sequence[bytes], msg: LockMsg, executor: Executor | None = None
) -> None:
    """Check a lock entry against the deck it locked (one we hold or accepted)."""
    n = _deck_in(d_in)
    public = _need_bytes(public, POINT_BYTES, "the public key")
    d_out = _need_points(msg.d_out, n, "the locked deck")
    keys = [
        _need_bytes(key, POINT_BYTES, f"the lock's key for position {i + 1}")
        for i, key in enumerate(_need_seq(msg.keys, n, "the lock's keys"))
    ]
    e, z, *zs = (
        _need_scalar(s, f"part {i + 1} of the lock's proof")
        for i, s in enumerate(_need_seq(msg.proof, n + 2, "the lock's proof"))
    )

    def commitments(r: range) -> list[tuple[bytes, bytes]]:
        return [
            (_sub(_base(zs[i]), _mul(e, keys[i])), _sub(_mul(zs[i], d_in[i]), _mul(z, d_out[i])))
            for i in r
        ]

    try:
        tu = _flat(_pmap(executor, commitments, _chunked(n)))
    except ShuffleError as exc:
        if exc.reason == "bad-point":  # name the card, not just the fault
            _need_valid(d_out, "the locked deck")
            _need_valid(keys, "the lock's keys", "key")
        raise
    t = _sub(_base(z), _mul(e, public))
    statement = _lock_statement(ctx, public, keys, d_in, d_out)
    if _lock_challenge(statement, t, [a for a, _ in tu], [b for _, b in tu]) != e:
        raise ShuffleError("bad-lock-proof", "the lock does not keep each position's card")


# ---------------------------------------------------------------- keys and unmasking


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
    inv = nb.crypto_core_ed25519_scalar_invert(_smul(ka, kb))
    return card_index(_mul(inv, _need_bytes(point, POINT_BYTES, "the masked card")), n)


# ---------------------------------------------------------------- audit


@dataclass
class ShuffleLog:
    """One hand's shuffle entries as logged; lists are indexed by author (0 host, 1 guest).

    challenges[a] holds the bits author a sent about the other's shuffle; shuffle_ids[a]
    is the entry id of a's shuffle entry; keys[a] maps position to every per-card key a
    published. None marks an entry not in the log.
    """

    game: bytes
    hand: int
    n: int
    k: int
    first: int
    commits: list[Commit | None] = field(default_factory=lambda: [None, None])
    shuffles: list[ShuffleMsg | None] = field(default_factory=lambda: [None, None])
    shuffle_ids: list[bytes | None] = field(default_factory=lambda: [None, None])
    challenges: list[Any] = field(default_factory=lambda: [None, None])
    answers: list[Answers | None] = field(default_factory=lambda: [None, None])
    locks: list[LockMsg | None] = field(default_factory=lambda: [None, None])
    keys: list[dict[int, Any]] = field(default_factory=lambda: [{}, {}])


@dataclass
class Mismatch:
    """The first logged step that does not follow from its author's opened seeds.

    step: open, shuffle, challenge, answers, lock or key; index: the first differing
    position (deck, key) or round (answers), when there is one.
    """

    author: int
    step: str
    index: int | None
    detail: str


def _plain(value: Any) -> Any:
    """Tuples as lists, so a decoded entry compares equal to a computed one."""
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def _first_diff(expected: list[Any], logged: Any) -> int | None:
    """Index of the first differing item (or the shorter length); None if equal."""
    got = _plain(logged)
    if got == expected:
        return None
    if not isinstance(got, list):
        return 0
    return next(
        (i for i, (a, b) in enumerate(zip(expected, got, strict=False)) if a != b),
        min(len(expected), len(got)),
    )


def _audit_shuffle(
    log: ShuffleLog,
    seeds: HandSecrets,
    author: int,
    d_in: Sequence[bytes],
    proofs: bool,
    executor: Executor | None,
) -> Iterator[Mismatch]:
    msg, ctx = log.shuffles[author], Ctx(log.game, log.hand, author)
    assert msg is not None  # the schedule runs a step only when it is logged
    d_out, sum_proof = _shuffle_core(seeds, ctx, d_in, executor)
    if (i := _first_diff(d_out, msg.d_out)) is not None:
        yield Mismatch(
            author, "shuffle", i, "the shuffled deck (D_out) is not what the opened seeds give"
        )
    elif _plain(msg.sum_proof) != sum_proof:
        yield Mismatch(author, "shuffle", None, "the sum proof is not what the opened seeds give")
    elif proofs and msg.deck_hash != _cc_commitment(seeds, ctx, d_in, log.k, executor):
        yield Mismatch(
            author, "shuffle", None, "the deck hash (C) is not what the opened seeds give"
        )


def _audit_challenge(log: ShuffleLog, seeds: HandSecrets, author: int) -> Iterator[Mismatch]:
    prover = 1 - author
    shuffle_id = log.shuffle_ids[prover]
    assert shuffle_id is not None  # a challenge is logged only after the shuffle it answers
    expected = challenge_bits(seeds.key_seed, Ctx(log.game, log.hand, prover), shuffle_id, log.k)
    if (i := _first_diff(expected, log.challenges[author])) is not None:
        yield Mismatch(author, "challenge", i, "challenge bits differ from the seeds")


def _audit_answers(log: ShuffleLog, seeds: HandSecrets, author: int) -> Iterator[Mismatch]:
    expected = answer_challenge(seeds, log.n, log.challenges[1 - author], log.k)
    got = log.answers[author]
    assert got is not None  # the schedule runs a step only when it is logged
    rounds = [list(r) for r in zip(expected.scalars, expected.perms, strict=True)]
    logged = _plain([got.scalars, got.perms])
    if (t := _first_diff(rounds, _transpose(logged))) is not None:
        yield Mismatch(author, "answers", t, "an answer differs from the seeds")


def _transpose(pair: Any) -> Any:
    """[[s_0, s_1, …], [p_0, p_1, …]] as [[s_0, p_0], …]; anything else as it is."""
    if all(isinstance(v, list) for v in pair) and len(pair[0]) == len(pair[1]):
        return [list(r) for r in zip(*pair, strict=True)]
    return pair


def _audit_lock(
    log: ShuffleLog,
    seeds: HandSecrets,
    author: int,
    d_in: Sequence[bytes],
    executor: Executor | None,
) -> Iterator[Mismatch]:
    msg = log.locks[author]
    expected = lock_step(seeds, Ctx(log.game, log.hand, author), d_in, executor)
    for name in ("d_out", "keys", "proof"):
        if (i := _first_diff(getattr(expected, name), getattr(msg, name))) is not None:
            yield Mismatch(author, "lock", i, f"lock {name} differs from the seeds")
            return


def _audit_keys(log: ShuffleLog, seeds: HandSecrets, author: int) -> Iterator[Mismatch]:
    for pos in sorted(p for p in log.keys[author] if type(p) is int):
        if not 0 <= pos < log.n or log.keys[author][pos] != seeds.card_key(pos):
            yield Mismatch(author, "key", pos, "a published key differs from the seeds")
            return
    if any(type(p) is not int for p in log.keys[author]):
        yield Mismatch(author, "key", None, "a key is published for a non-position")


def _logged_deck(msg: ShuffleMsg | LockMsg | None, n: int, what: str) -> list[bytes]:
    """The logged output deck of one step, as the input of the next. Only a logged step
    asks for its input, and the log's order puts the step that made it first."""
    if msg is None:
        raise ShuffleError("malformed", f"{what} is missing")
    return _need_points(msg.d_out, n, what)


def _mismatches(
    log: ShuffleLog, openings: Sequence[HandSecrets | None], proofs: bool, executor: Executor | None
) -> Iterator[Mismatch]:
    """Every step in schedule order, for the authors whose seeds are open."""
    a, b = log.first, 1 - log.first
    for author in (a, b):
        seeds, commit = openings[author], log.commits[author]
        if (
            seeds is not None
            and commit is not None
            and make_commit(seeds, Ctx(log.game, log.hand, author)) != commit
        ):
            yield Mismatch(author, "open", None, "seeds do not match the commitment")
            return

    def d1() -> list[bytes]:
        return _logged_deck(log.shuffles[a], log.n, "the first shuffled deck")

    def d2() -> list[bytes]:
        return _logged_deck(log.shuffles[b], log.n, "the second shuffled deck")

    def d3() -> list[bytes]:
        return _logged_deck(log.locks[a], log.n, "the first locked deck")

    steps: list[tuple[int, bool, Callable[[HandSecrets], Iterator[Mismatch]]]] = [
        (
            a,
            log.shuffles[a] is not None,
            lambda s: _audit_shuffle(log, s, a, card_points(log.n), proofs, executor),
        ),
        (b, log.challenges[b] is not None, lambda s: _audit_challenge(log, s, b)),
        (a, log.answers[a] is not None, lambda s: _audit_answers(log, s, a)),
        (
            b,
            log.shuffles[b] is not None,
            lambda s: _audit_shuffle(log, s, b, d1(), proofs, executor),
        ),
        (a, log.challenges[a] is not None, lambda s: _audit_challenge(log, s, a)),
        (b, log.answers[b] is not None, lambda s: _audit_answers(log, s, b)),
        (
            a,
            log.locks[a] is not None,
            lambda s: _audit_lock(log, s, a, d2(), executor),
        ),
        (
            b,
            log.locks[b] is not None,
            lambda s: _audit_lock(log, s, b, d3(), executor),
        ),
        (a, True, lambda s: _audit_keys(log, s, a)),
        (b, True, lambda s: _audit_keys(log, s, b)),
    ]
    for author, logged, check in steps:
        seeds = openings[author]
        if logged and seeds is not None:
            yield from check(seeds)


def recompute(
    log: ShuffleLog,
    openings: Sequence[HandSecrets | None],
    *,
    proofs: bool = False,
    executor: Executor | None = None,
) -> Mismatch | None:
    """The first logged step, in schedule order, that its author's seeds do not produce.

    openings[a] is author a's opened seeds (None if not opened; its steps are skipped).
    Each step is recomputed from the *logged* input. With proofs, the intermediate decks
    behind each C are recomputed too (k passes per shuffle; only needed in a dispute).
    Raises ShuffleError if a logged input deck is unusable and its author did not open.
    """
    return next(_mismatches(log, openings, proofs, executor), None)
