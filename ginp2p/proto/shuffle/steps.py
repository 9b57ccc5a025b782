"""The shuffle's steps for one hand, each with its proof and its check (docs/shuffle.md).

Two players mask the deck in turn: each commits to two seeds (:func:`make_commit`),
shuffles with a committed permutation and a global key, proving the step with a
Chaum–Pedersen proof on the deck sums and a cut-and-choose shuffle proof
(:func:`shuffle_step`, :func:`challenge_bits`, :func:`answer_challenge`), then swaps
its global key for one key per position with a proof (:func:`lock_step`). Every
``check_*``/``verify_*`` function is what the other player runs on receipt. All
randomness derives from the two seeds, so the audit can recompute every step.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from ginp2p.proto.shuffle.group import (
    ENTRY_ID_BYTES,
    GAME_BYTES,
    K_DEFAULT,
    POINT_BYTES,
    SEED_BYTES,
    H,
    ShuffleError,
    _base,
    _check_deck_size,
    _check_k,
    _chunked,
    _deck_in,
    _flat,
    _hash_to_scalar,
    _is_point,
    _mul,
    _need_bytes,
    _need_perm,
    _need_points,
    _need_scalar,
    _need_seq,
    _need_valid,
    _pmap,
    _point_sum,
    _sadd,
    _sinv,
    _smul,
    _ssub,
    _sub,
    _u32,
    deck_digest,
    permutation,
    scalar,
)

#: How validation errors name a shuffle entry's output deck (D_out in docs/shuffle.md).
_PASSED_ON = "the deck passed on"


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
        return _sinv(self.x)

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
    if not _is_point(public):
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
    z = _sadd(w, _smul(e, secrets.x))
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
                _mul(_ssub(ws[i], _smul(w, ratios[i])), d_in[i]),
            )
            for i in r
        ]

    tu = _flat(_pmap(executor, commitments, _chunked(n)))
    e = _lock_challenge(statement, _base(w), [t for t, _ in tu], [u for _, u in tu])
    z = _sadd(w, _smul(e, secrets.x))
    zs = [_sadd(ws[i], _smul(e, xs[i])) for i in range(n)]
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
