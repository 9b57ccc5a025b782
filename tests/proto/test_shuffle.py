"""The shuffle (docs/shuffle.md): honest hands, privacy, every threat caught, garbage, soundness."""

from __future__ import annotations

import contextlib
import copy
import hashlib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache
from typing import Any

import nacl.bindings as nb
import nacl.exceptions
import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from ginp2p.game.cards import deck
from ginp2p.proto import shuffle
from ginp2p.proto.shuffle import (
    Answers,
    Ctx,
    HandSecrets,
    LockMsg,
    Mismatch,
    ShuffleError,
    ShuffleLog,
    ShuffleMsg,
)
from ginp2p.proto.shuffle.group import _below, _smul
from ginp2p.proto.shuffle.steps import _prove_sum, _shuffle_core
from ginp2p.testing.cheats import retagged, scalar_int

POOL = ThreadPoolExecutor(2)
#: Cut-and-choose rounds for the tests of what a shuffle does rather than of how sure its
#: proof is (a dealt hand, a transcript, the executor): each round costs two passes over
#: the deck. The tests of the proofs, of privacy and of the threats use the real k.
FEW_ROUNDS = 2
L = shuffle.GROUP_ORDER
GAME = hashlib.sha256(b"test game").digest()
HAND = 3
# Positions dealt by the engine in these tests: first's hand, second's hand, the upcard.
FIRST_HAND, SECOND_HAND, UPCARD = range(10), range(10, 20), 20
T8 = bytes.fromhex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05")


def secrets(tag: bytes) -> HandSecrets:
    perm_seed, key_seed = (hashlib.sha256(kind + tag).digest() for kind in (b"perm", b"key"))
    return HandSecrets(perm_seed, key_seed)


def entry_id(msg: ShuffleMsg) -> bytes:
    """Stand-in for the id of the signed entry carrying a shuffle."""
    return hashlib.sha256(b"entry" + msg.deck_hash).digest()


def plus_l(s: bytes) -> bytes:
    """The non-canonical encoding of the same scalar: s + L."""
    return (int.from_bytes(s, "little") + L).to_bytes(32, "little")


def reasons(fn: Callable[[], object]) -> str:
    with pytest.raises(ShuffleError) as info:
        fn()
    return info.value.reason


@dataclass
class Setup:
    """A whole honest set-up as both peers see it (each verified on receipt)."""

    n: int
    k: int
    secrets: list[HandSecrets]  # by author
    log: ShuffleLog

    @property
    def a(self) -> int:
        return self.log.first

    @property
    def b(self) -> int:
        return 1 - self.log.first

    def ctx(self, author: int) -> Ctx:
        return Ctx(GAME, HAND, author)

    def public(self, author: int) -> bytes:
        return self.log.commits[author].P

    def deck(self, level: int) -> list[bytes]:
        """D1, D2, D3 or D4 as logged."""
        return {
            1: self.log.shuffles[self.a],
            2: self.log.shuffles[self.b],
            3: self.log.locks[self.a],
            4: self.log.locks[self.b],
        }[level].d_out


def run_setup(n: int, tags: tuple[bytes, bytes], first: int = 1, k: int = 20,
              game: bytes = GAME, hand: int = HAND) -> Setup:  # fmt: skip
    """Commits, both shuffles with their proofs, both locks, the deal's keys: all checked."""
    sec = [secrets(tags[0]), secrets(tags[1])]
    ctx = [Ctx(game, hand, 0), Ctx(game, hand, 1)]
    a, b = first, 1 - first
    log = ShuffleLog(game, hand, n, k, first)
    log.commits = [shuffle.make_commit(sec[i], ctx[i]) for i in (0, 1)]
    for c in log.commits:
        shuffle.check_commit(c)
    d_in = list(shuffle.card_points(n))
    for prover, verifier in ((a, b), (b, a)):
        msg = shuffle.shuffle_step(sec[prover], ctx[prover], d_in, k, POOL)
        shuffle.check_shuffle(log.commits[prover].P, ctx[prover], d_in, msg)
        log.shuffles[prover], log.shuffle_ids[prover] = msg, entry_id(msg)
        bits = shuffle.challenge_bits(sec[verifier].key_seed, ctx[prover], entry_id(msg), k)
        log.challenges[verifier] = bits
        log.answers[prover] = shuffle.answer_challenge(sec[prover], n, bits, k)
        shuffle.check_answers(ctx[prover], d_in, msg, bits, log.answers[prover], k, POOL)
        d_in = msg.d_out
    for locker in (a, b):
        lock = shuffle.lock_step(sec[locker], ctx[locker], d_in, POOL)
        shuffle.verify_lock(log.commits[locker].P, ctx[locker], d_in, lock, POOL)
        log.locks[locker], d_in = lock, lock.d_out
    deal_keys = {a: [*SECOND_HAND, UPCARD], b: [*FIRST_HAND, UPCARD]}
    log.keys = [{i: shuffle.card_key(sec[p], i) for i in deal_keys[p]} for p in (0, 1)]
    for p in (0, 1):
        for i, key in log.keys[p].items():
            shuffle.check_key(log.locks[p].keys[i], key)
    return Setup(n, k, sec, log)


@cache
def honest(n: int, first: int = 1, k: int = shuffle.K_DEFAULT) -> Setup:
    return run_setup(n, (b"host %d" % n, b"guest %d" % n), first, k)


def true_deck(s: Setup) -> list[int]:
    """Card index at each final position: D2[i] = a·b·M[π_A[π_B[i]]]."""
    pa, pb = s.secrets[s.a].perm(s.n), s.secrets[s.b].perm(s.n)
    return [pa[pb[i]] for i in range(s.n)]


# ---------------------------------------------------------------- encodings


def test_h_prefixes_label_and_every_field_with_its_length() -> None:
    manual = hashlib.sha512(b"\0\0\0\x03abc" + b"\0\0\0\x02xy" + b"\0\0\0\0").digest()
    assert shuffle.H("abc", b"xy", b"") == manual
    assert shuffle.H("abc", b"x", b"y") != shuffle.H("abc", b"xy")


def test_scalar_follows_the_spec_from_scratch() -> None:
    """scalar = SHA-512 of the length-prefixed fields, little-endian, mod L (counter 0)."""
    seed = bytes(range(32))
    fields = [b"ginp2p/v1/scalar", seed, b"card", (5).to_bytes(4, "big"), bytes(4)]
    digest = hashlib.sha512(b"".join(len(f).to_bytes(4, "big") + f for f in fields)).digest()
    want = (int.from_bytes(digest, "little") % L).to_bytes(32, "little")
    assert shuffle.scalar(seed, "card", 5) == want


def test_frozen_vectors_pin_the_encodings() -> None:
    """Known answers, also in docs/shuffle.md, for a compatible implementation."""
    seed = bytes(range(32))
    assert shuffle.scalar(seed, "global", 0).hex() == (
        "18c2b115de3c1a8c28f20e51c41f0da6c5cbbed9e7183e85ad1fbc06141d710e"
    )
    assert shuffle.permutation(seed, "perm", 0, 52)[:8] == [35, 6, 7, 29, 0, 13, 43, 9]
    assert shuffle.card_points(52)[0].hex() == (
        "4f44d5a8f4060bf737b7b7f5c07241dae0e91027da32e7a1fda75a3f366a028f"
    )
    commit = shuffle.make_commit(HandSecrets(seed, seed[::-1]), Ctx(bytes(32), 1, 0))
    assert commit.c.hex().startswith("ca463efa3d3e6343")
    assert commit.P.hex() == "7177a713b3447cfc5ae284294f81a4641fb1ccfde7f339333772eabc59df2905"
    assert shuffle.challenge_bits(seed, Ctx(bytes(32), 1, 0), bytes(32), 20)[:8] == [
        1, 1, 1, 1, 0, 0, 0, 1]  # fmt: skip


def test_scalar_and_stream_purposes_are_separate() -> None:
    with pytest.raises(ValueError):
        shuffle.scalar(bytes(32), "perm", 0)
    with pytest.raises(ValueError):
        shuffle.permutation(bytes(32), "card", 0, 52)


def test_draws_reject_the_biased_top_of_the_range() -> None:
    top = 2**64 - 1  # 2**64 mod 3 == 1, so the last word must be rejected for m = 3
    assert _below(iter([top, 5]), 3) == 2
    assert _below(iter([top - 1]), 3) == (top - 1) % 3


def test_permutations_are_uniform_enough() -> None:
    counts = [[0] * 4 for _ in range(4)]
    for i in range(2400):
        p = shuffle.permutation(i.to_bytes(32, "big"), "perm", 0, 4)
        assert sorted(p) == [0, 1, 2, 3]
        for pos, v in enumerate(p):
            counts[pos][v] += 1
    assert all(520 < c < 680 for row in counts for c in row), counts


def test_card_points_are_distinct_valid_and_shared_by_prefix() -> None:
    m = shuffle.card_points(108)
    assert len(set(m)) == 108 and all(nb.crypto_core_ed25519_is_valid_point(p) for p in m)
    assert shuffle.card_points(52) == m[:52]
    assert m[7] == nb.crypto_core_ed25519_from_uniform(
        shuffle.H("ginp2p/v1/card", deck(108)[7].label.encode())[:32])  # fmt: skip
    assert shuffle.card_index(m[107], 108) == 107 and shuffle.card_index(m[107], 104) is None


def test_bad_parameters_are_refused() -> None:
    sec, ctx = secrets(b"p"), Ctx(GAME, HAND, 0)
    assert reasons(lambda: shuffle.shuffle_step(sec, ctx, shuffle.card_points(52), 0)) == (
        "bad-parameter"
    )
    assert reasons(lambda: shuffle.shuffle_step(sec, ctx, shuffle.card_points(52), 65)) == (
        "bad-parameter"
    )
    assert reasons(lambda: shuffle.lock_step(sec, ctx, shuffle.card_points(52)[:51])) == (
        "bad-parameter"
    )
    with pytest.raises(ValueError):
        Ctx(GAME[:31], HAND, 0)
    with pytest.raises(ValueError):
        Ctx(GAME, HAND, 2)


def test_repr_never_shows_seeds() -> None:
    sec = secrets(b"r")
    assert sec.key_seed.hex() not in repr(sec) and sec.perm_seed.hex() not in repr(sec)


# ---------------------------------------------------------------- honest hands


@pytest.mark.parametrize(("n", "first"), [(52, 1), (104, 0), (108, 1)])
def test_honest_setup_deals_each_player_exactly_its_cards(n: int, first: int) -> None:
    s = honest(n, first, FEW_ROUNDS)
    d4, truth = s.deck(4), true_deck(s)
    received = {s.a: [*FIRST_HAND, UPCARD], s.b: [*SECOND_HAND, UPCARD]}
    for me in (s.a, s.b):
        other = 1 - me
        assert sorted(s.log.keys[other]) == received[me]  # it holds only these other keys
        for i in received[me]:
            own = shuffle.card_key(s.secrets[me], i)
            assert shuffle.unmask(d4[i], own, s.log.keys[other][i], n) == truth[i]
        # a key received for another position opens nothing here
        assert shuffle.unmask(d4[30], shuffle.card_key(s.secrets[me], 30),
                              s.log.keys[other][UPCARD], n) is None  # fmt: skip
    opened = [
        shuffle.unmask(d4[i], *(shuffle.card_key(s.secrets[p], i) for p in (0, 1)), n)
        for i in range(n)
    ]
    assert opened == truth and sorted(opened) == list(range(n))
    for p in (0, 1):
        shuffle.check_opening(s.log.commits[p], s.secrets[p], s.ctx(p))
    assert shuffle.recompute(s.log, s.secrets, proofs=True, executor=POOL) is None


def test_executor_changes_nothing() -> None:
    sec, ctx, m = secrets(b"x"), Ctx(GAME, HAND, 1), shuffle.card_points(52)
    k = FEW_ROUNDS
    assert shuffle.shuffle_step(sec, ctx, m, k) == shuffle.shuffle_step(sec, ctx, m, k, POOL)
    assert shuffle.lock_step(sec, ctx, m) == shuffle.lock_step(sec, ctx, m, POOL)


def test_privacy_after_the_deal_first_player_finds_only_its_cards() -> None:
    """Every product or ratio of two scalars A holds, applied to every position of D2-D4.

    A's scalars: its seeds read as scalars, x, all x_i, every r_t and r_t/x of its proof;
    B's: the keys B sent and B's cut-and-choose answers. A relation Q = s1·s2·M_c is found
    by meeting in the middle: s2⁻¹·Q against s1·M_c, both over the scalars and their
    inverses. D1 is left out: A built it and knows its cards, but not where B moved them.
    """
    s = honest(52)
    sa, n, k = s.secrets[s.a], s.n, s.k
    seeds = [
        nb.crypto_core_ed25519_scalar_reduce(x + bytes(32)) for x in (sa.perm_seed, sa.key_seed)
    ]
    pool = [*seeds, sa.x, *(sa.card_key(i) for i in range(n))]
    pool += [sa.mask(t) for t in range(k)] + [_smul(sa.mask(t), sa.x_inv) for t in range(k)]
    pool += list(s.log.keys[s.b].values()) + list(s.log.answers[s.b].scalars)
    factors = [scalar_int(1), *pool, *(nb.crypto_core_ed25519_scalar_invert(x) for x in pool)]
    m = shuffle.card_points(n)

    def left(f: bytes) -> list[tuple[bytes, int]]:
        return [(nb.crypto_scalarmult_ed25519_noclamp(f, p), c) for c, p in enumerate(m)]

    targets = dict(pair for part in POOL.map(left, factors) for pair in part)
    points = [(i, q) for level in (2, 3, 4) for i, q in enumerate(s.deck(level))]

    def right(f: bytes) -> set[tuple[int, int]]:
        found = set()
        for i, q in points:
            c = targets.get(nb.crypto_scalarmult_ed25519_noclamp(f, q))
            if c is not None:
                found.add((i, c))
        return found

    found = set().union(*POOL.map(right, factors))
    truth = true_deck(s)
    assert found == {(i, truth[i]) for i in [*FIRST_HAND, UPCARD]}


# ---------------------------------------------------------------- threats


def cheat_msg(s: Setup, author: int, d_in: list[bytes], d_out: list[bytes]) -> ShuffleMsg:
    """A shuffle entry for a bad deck: a valid sum proof, C and answers from the seeds."""
    honest_msg = s.log.shuffles[author]
    proof = _prove_sum(s.secrets[author], s.ctx(author), d_in, d_out)
    return ShuffleMsg(d_out, proof, honest_msg.deck_hash)


def test_tag_attack_by_first_shuffler_is_caught_by_cut_and_choose() -> None:
    s = honest(52)
    a, b, m_in = s.a, s.b, list(shuffle.card_points(52))
    m = scalar_int(7)
    d1 = retagged(s.deck(1), 5, 40, 41, m)
    msg = cheat_msg(s, a, m_in, d1)
    shuffle.check_shuffle(s.public(a), s.ctx(a), m_in, msg)  # the sum proof alone passes
    # without the cut-and-choose proof the attack works: after B's honest step A finds
    # the pair D2[p] = m·D2[q] and learns that the card it tagged sits at position q
    d2 = _shuffle_core(s.secrets[b], s.ctx(b), d1, POOL)[0]
    where = {p: i for i, p in enumerate(d2)}
    q = next(q for q in range(52) if nb.crypto_scalarmult_ed25519_noclamp(m, d2[q]) in where)
    assert s.secrets[b].perm(52)[q] == 5
    assert reasons(lambda: shuffle.verify_shuffle(
        s.public(a), s.ctx(a), m_in, msg, s.log.challenges[b], s.log.answers[a], 20, POOL)
    ) == "bad-shuffle-proof"  # fmt: skip


def test_disguised_duplicate_by_second_shuffler_is_caught() -> None:
    s = honest(52)
    a, b, d1 = s.a, s.b, s.deck(1)
    m = scalar_int(11)
    d2 = retagged(s.deck(2), 3, 15, 16, m)  # B's position 15 gets m·(A's card at 3)
    msg = cheat_msg(s, b, d1, d2)
    shuffle.check_shuffle(s.public(b), s.ctx(b), d1, msg)
    # were it accepted, B would read A's card 3 through its own position 15
    lock_a = shuffle.lock_step(s.secrets[a], s.ctx(a), d2, POOL)
    key_a, key_b = shuffle.card_key(s.secrets[a], 15), shuffle.card_key(s.secrets[b], 15)
    d4_15 = nb.crypto_scalarmult_ed25519_noclamp(_smul(key_b, s.secrets[b].x_inv), lock_a.d_out[15])
    assert shuffle.unmask(d4_15, key_a, key_b, 52) is None
    opened = nb.crypto_scalarmult_ed25519_noclamp(
        nb.crypto_core_ed25519_scalar_invert(_smul(_smul(key_a, key_b), m)),
        d4_15)  # fmt: skip
    assert shuffle.card_index(opened, 52) == true_deck(s)[3]
    assert reasons(lambda: shuffle.verify_shuffle(
        s.public(b), s.ctx(b), d1, msg, s.log.challenges[a], s.log.answers[b], 20, POOL)
    ) == "bad-shuffle-proof"  # fmt: skip


def test_plain_duplicate_is_caught_at_once() -> None:
    s = honest(52)
    d2 = list(s.deck(2))
    d2[15] = d2[3]
    msg = ShuffleMsg(d2, s.log.shuffles[s.b].sum_proof, s.log.shuffles[s.b].deck_hash)
    assert reasons(lambda: shuffle.check_shuffle(s.public(s.b), s.ctx(s.b), s.deck(1), msg)) == (
        "duplicate-point"
    )


def test_substituted_card_fails_the_sum_proof() -> None:
    s = honest(52)
    d1 = list(s.deck(1))
    d1[9] = nb.crypto_scalarmult_ed25519_noclamp(s.secrets[s.a].x, shuffle.card_points(104)[60])
    msg = ShuffleMsg(d1, s.log.shuffles[s.a].sum_proof, s.log.shuffles[s.a].deck_hash)
    m_in = shuffle.card_points(52)
    assert reasons(lambda: shuffle.check_shuffle(s.public(s.a), s.ctx(s.a), m_in, msg)) == (
        "bad-sum-proof"
    )
    resigned = cheat_msg(s, s.a, list(m_in), d1)  # a fresh sum proof cannot pin another factor
    assert reasons(lambda: shuffle.check_shuffle(s.public(s.a), s.ctx(s.a), m_in, resigned)) == (
        "bad-sum-proof"
    )


def test_bad_sum_proof_is_caught() -> None:
    s = honest(52)
    msg = copy.deepcopy(s.log.shuffles[s.a])
    e, z = msg.sum_proof
    msg.sum_proof = [e, nb.crypto_core_ed25519_scalar_add(z, scalar_int(1))]
    m_in = shuffle.card_points(52)
    assert reasons(lambda: shuffle.check_shuffle(s.public(s.a), s.ctx(s.a), m_in, msg)) == (
        "bad-sum-proof"
    )
    msg.sum_proof = [e, plus_l(z)]
    assert reasons(lambda: shuffle.check_shuffle(s.public(s.a), s.ctx(s.a), m_in, msg)) == (
        "bad-scalar"
    )


def test_proofs_are_bound_to_game_hand_and_author() -> None:
    s = honest(52)
    m_in, msg, lock = shuffle.card_points(52), s.log.shuffles[s.a], s.log.locks[s.a]
    for ctx in (Ctx(GAME, HAND + 1, s.a), Ctx(GAME, HAND, s.b), Ctx(bytes(32), HAND, s.a)):
        assert reasons(lambda c=ctx: shuffle.check_shuffle(s.public(s.a), c, m_in, msg)) == (
            "bad-sum-proof"
        )
        assert reasons(lambda c=ctx: shuffle.verify_lock(s.public(s.a), c, s.deck(2), lock)) == (
            "bad-lock-proof"
        )


def answers_check(s: Setup, answers: Answers, bits: list[int] | None = None) -> str:
    a = s.a
    bits = s.log.challenges[s.b] if bits is None else bits
    return reasons(lambda: shuffle.check_answers(
        s.ctx(a), shuffle.card_points(52), s.log.shuffles[a], bits, answers, 20, POOL))  # fmt: skip


def test_bad_cut_and_choose_answers_are_caught() -> None:
    s = honest(52)
    good, bits = s.log.answers[s.a], s.log.challenges[s.b]
    bad = copy.deepcopy(good)
    bad.scalars[4] = nb.crypto_core_ed25519_scalar_add(bad.scalars[4], scalar_int(1))
    assert answers_check(s, bad) == "bad-shuffle-proof"
    bad = copy.deepcopy(good)
    bad.perms[6][0], bad.perms[6][1] = bad.perms[6][1], bad.perms[6][0]
    assert answers_check(s, bad) == "bad-shuffle-proof"
    bad = copy.deepcopy(good)
    bad.perms[6][0] = bad.perms[6][1]
    assert answers_check(s, bad) == "bad-permutation"
    bad = copy.deepcopy(good)
    bad.scalars[2] = plus_l(bad.scalars[2])
    assert answers_check(s, bad) == "bad-scalar"
    bad.scalars[2] = bytes(32)
    assert answers_check(s, bad) == "bad-scalar"
    flipped = [1 - bits[0], *bits[1:]]  # the other half of round 0
    other = shuffle.answer_challenge(s.secrets[s.a], 52, flipped, 20)
    assert answers_check(s, other) == "bad-shuffle-proof"
    assert answers_check(s, good, [*bits[:-1], 2]) == "bad-challenge"


def test_invalid_points_in_a_deck_are_caught() -> None:
    s = honest(52)
    m_in = shuffle.card_points(52)
    identity = scalar_int(1)
    non_canonical = ((1 << 255) - 18).to_bytes(32, "little")  # the identity, y = 1 + p
    not_on_curve = next(bytes([i]) * 32 for i in range(256) if not on_curve(bytes([i]) * 32))
    torsioned = nb.crypto_core_ed25519_add(s.deck(1)[8], T8)
    for bad_point in (T8, identity, non_canonical, not_on_curve, torsioned):
        d1 = list(s.deck(1))
        d1[8] = bad_point
        msg = ShuffleMsg(d1, s.log.shuffles[s.a].sum_proof, s.log.shuffles[s.a].deck_hash)
        assert reasons(lambda m=msg: shuffle.check_shuffle(s.public(s.a), s.ctx(s.a), m_in, m)
                       ) == "bad-point"  # fmt: skip


def on_curve(p: bytes) -> bool:
    try:
        nb.crypto_core_ed25519_add(p, T8)
    except nacl.exceptions.CryptoError:
        return False
    return True


def test_torsion_that_keeps_the_sum_is_caught_whatever_the_bits() -> None:
    s = honest(52)
    a, m_in, sa = s.a, list(shuffle.card_points(52)), s.secrets[s.a]
    d1 = list(s.deck(1))
    d1[8] = nb.crypto_core_ed25519_add(d1[8], T8)
    d1[9] = nb.crypto_core_ed25519_sub(d1[9], T8)
    msg = cheat_msg(s, a, m_in, d1)
    shuffle.check_shuffle(s.public(a), s.ctx(a), m_in, msg)
    for bits in (s.log.challenges[s.b], [0] * 20):
        answers = shuffle.answer_challenge(sa, 52, bits, 20)
        assert reasons(lambda b=bits, an=answers: shuffle.check_answers(
            s.ctx(a), m_in, msg, b, an, 20)) == "bad-point"  # fmt: skip


def test_linked_positions_in_a_lock_fail_the_lock_proof() -> None:
    s = honest(52)
    a, d2 = s.a, s.deck(2)
    rerouted = list(d2)
    rerouted[3] = d2[12]  # position 3 would hold the card of position 12
    lock = shuffle.lock_step(s.secrets[a], s.ctx(a), rerouted, POOL)
    assert reasons(lambda: shuffle.verify_lock(s.public(a), s.ctx(a), d2, lock, POOL)) == (
        "bad-lock-proof"
    )
    swapped = copy.deepcopy(s.log.locks[a])
    swapped.d_out[3], swapped.d_out[12] = swapped.d_out[12], swapped.d_out[3]
    assert reasons(lambda: shuffle.verify_lock(s.public(a), s.ctx(a), d2, swapped)) == (
        "bad-lock-proof"
    )


def test_lock_with_bad_points_or_scalars_is_caught() -> None:
    s = honest(52)
    a, d2, good = s.a, s.deck(2), s.log.locks[s.a]

    def check(lock: LockMsg) -> str:
        return reasons(lambda: shuffle.verify_lock(s.public(a), s.ctx(a), d2, lock, POOL))

    for name, i, value, reason in [
        ("d_out", 4, T8, "bad-point"),
        ("d_out", 4, good.d_out[5], "duplicate-point"),
        ("keys", 4, nb.crypto_core_ed25519_add(good.keys[4], T8), "bad-point"),
        ("keys", 4, good.keys[5], "bad-lock-proof"),
        ("proof", 0, plus_l(good.proof[0]), "bad-scalar"),
        ("proof", 7, plus_l(good.proof[7]), "bad-scalar"),
        ("proof", 7, bytes(32), "bad-scalar"),
        ("proof", 7, good.proof[8], "bad-lock-proof"),
    ]:
        bad = copy.deepcopy(good)
        getattr(bad, name)[i] = value
        assert check(bad) == reason, (name, i)


def test_wrong_or_non_canonical_keys_are_caught() -> None:
    s = honest(52)
    b, lock_b = s.b, s.log.locks[s.b]
    key = shuffle.card_key(s.secrets[b], 3)
    shuffle.check_key(lock_b.keys[3], key)
    assert reasons(lambda: shuffle.check_key(lock_b.keys[3], shuffle.card_key(s.secrets[b], 4))
                   ) == "bad-key"  # fmt: skip
    assert reasons(lambda: shuffle.check_key(lock_b.keys[3], shuffle.card_key(s.secrets[s.a], 3))
                   ) == "bad-key"  # fmt: skip
    assert nb.crypto_scalarmult_ed25519_base_noclamp(plus_l(key)) == lock_b.keys[3]
    assert reasons(lambda: shuffle.check_key(lock_b.keys[3], plus_l(key))) == "bad-scalar"
    assert reasons(lambda: shuffle.check_key(lock_b.keys[3], bytes(32))) == "bad-scalar"
    own = shuffle.card_key(s.secrets[s.a], 3)
    assert reasons(lambda: shuffle.unmask(s.deck(4)[3], own, plus_l(key), 52)) == "bad-scalar"


def test_wrong_lengths_and_types_are_caught() -> None:
    s = honest(52)
    a, m_in, msg, lock = s.a, shuffle.card_points(52), s.log.shuffles[s.a], s.log.locks[s.a]
    bits, answers = s.log.challenges[s.b], s.log.answers[a]

    def shuffle_reason(m: ShuffleMsg) -> str:
        return reasons(lambda: shuffle.check_shuffle(s.public(a), s.ctx(a), m_in, m))

    assert shuffle_reason(ShuffleMsg(msg.d_out[:-1], msg.sum_proof, msg.deck_hash)) == "bad-length"
    assert shuffle_reason(ShuffleMsg([*msg.d_out[:-1], msg.d_out[-1][:31]], msg.sum_proof,
                                     msg.deck_hash)) == "bad-length"  # fmt: skip
    assert shuffle_reason(ShuffleMsg(msg.d_out, [*msg.sum_proof, msg.sum_proof[0]],
                                     msg.deck_hash)) == "bad-length"  # fmt: skip
    assert shuffle_reason(ShuffleMsg(msg.d_out, msg.sum_proof, msg.deck_hash[:63])) == "bad-length"
    assert shuffle_reason(ShuffleMsg(b"".join(msg.d_out), msg.sum_proof, msg.deck_hash)) == (
        "malformed"
    )
    short = Answers(answers.scalars[:-1], answers.perms[:-1])
    assert answers_check(s, short) == "bad-length"
    assert answers_check(s, answers, bits[:-1]) == "bad-length"
    assert reasons(lambda: shuffle.verify_lock(s.public(a), s.ctx(a), s.deck(2),
                                               LockMsg(lock.d_out, lock.keys, lock.proof[:-1]))
                   ) == "bad-length"  # fmt: skip
    assert reasons(lambda: shuffle.answer_challenge(s.secrets[a], 52, bits[:-1], 20)) == (
        "bad-length"
    )
    assert reasons(lambda: HandSecrets(bytes(31), bytes(32))) == "bad-length"


def test_opening_must_match_the_commitment() -> None:
    s = honest(52)
    a = s.a
    shuffle.check_opening(s.log.commits[a], s.secrets[a], s.ctx(a))
    assert reasons(lambda: shuffle.check_opening(s.log.commits[a], s.secrets[s.b], s.ctx(a))) == (
        "bad-opening"
    )
    assert reasons(lambda: shuffle.check_opening(s.log.commits[a], s.secrets[a], s.ctx(s.b))) == (
        "bad-opening"
    )


# ---------------------------------------------------------------- audit


def tampered(s: Setup, change: Callable[[ShuffleLog], None]) -> ShuffleLog:
    log = copy.deepcopy(s.log)
    change(log)
    return log


def test_recompute_names_the_first_step_that_does_not_follow_from_the_seeds() -> None:
    s = honest(52)
    a, b = s.a, s.b

    def bump(x: bytes) -> bytes:
        return nb.crypto_core_ed25519_scalar_add(x, scalar_int(1))

    def set_item(path: tuple[Any, ...], value: Callable[[Any], Any]) -> Callable[[ShuffleLog], Any]:
        def change(log: ShuffleLog) -> None:
            target: Any = log
            for key in path[:-1]:
                target = getattr(target, key) if isinstance(key, str) else target[key]
            target[path[-1]] = value(target[path[-1]])

        return change

    other_point = s.deck(1)[0]
    cases = [
        (("commits", b), lambda c: shuffle.Commit(c.c[::-1], c.P), Mismatch(b, "open", None, "")),
        (("shuffles", b, "d_out", 7), lambda _: other_point, Mismatch(b, "shuffle", 7, "")),
        (("challenges", b, 4), lambda v: 1 - v, Mismatch(b, "challenge", 4, "")),
        (("answers", a, "scalars", 2), bump, Mismatch(a, "answers", 2, "")),
        (("answers", b, "perms", 5), lambda p: p[::-1], Mismatch(b, "answers", 5, "")),
        (("locks", a, "d_out", 5), lambda _: other_point, Mismatch(a, "lock", 5, "")),
        (("locks", b, "proof", 3), bump, Mismatch(b, "lock", 3, "")),
        (("keys", b, 3), bump, Mismatch(b, "key", 3, "")),
        (("keys", a), lambda keys: {**keys, 60: keys[UPCARD]}, Mismatch(a, "key", 60, "")),
    ]
    for path, value, want in cases:
        log = tampered(s, set_item(path, value))
        got = shuffle.recompute(log, s.secrets, executor=POOL)
        assert got is not None and (got.author, got.step, got.index) == (
            want.author,
            want.step,
            want.index,
        ), path
    # two faults: the earlier step in the schedule is named
    log = tampered(s, set_item(("keys", b, 3), bump))
    log.locks[a].d_out[5] = other_point
    assert shuffle.recompute(log, s.secrets).step == "lock"
    # only A opened: B's faults are not A's, and A's steps check out
    assert (
        shuffle.recompute(
            tampered(s, set_item(("keys", b, 3), bump)),
            [s.secrets[0] if a == 0 else None, s.secrets[1] if a == 1 else None],
        )
        is None
    )


def test_recompute_checks_the_committed_decks_only_when_asked() -> None:
    s = honest(52)
    log = copy.deepcopy(s.log)
    log.shuffles[s.a].deck_hash = bytes(64)
    assert shuffle.recompute(log, s.secrets) is None
    got = shuffle.recompute(log, s.secrets, proofs=True, executor=POOL)
    assert got is not None and (got.author, got.step) == (s.a, "shuffle")


# ---------------------------------------------------------------- hypothesis


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tags=st.tuples(st.binary(), st.binary()), first=st.integers(0, 1),
       game=st.binary(min_size=32, max_size=32), hand=st.integers(0, 2**32 - 1))  # fmt: skip
def test_random_seeds_give_valid_transcripts(tags: tuple[bytes, bytes], first: int, game: bytes,
                                             hand: int) -> None:  # fmt: skip
    assume(tags[0] != tags[1])
    s = run_setup(52, tags, first, FEW_ROUNDS, game=game, hand=hand)
    d4 = s.deck(4)
    cards = {shuffle.unmask(d4[i], *(shuffle.card_key(x, i) for x in s.secrets), 52)
             for i in range(52)}  # fmt: skip
    assert cards == set(range(52))


GARBAGE = st.one_of(
    st.binary(min_size=32, max_size=32),
    st.binary(max_size=70),
    st.integers(-(2**70), 2**70),
    st.none(),
    st.booleans(),
    st.text(max_size=4),
    st.floats(allow_nan=False),
    st.lists(st.binary(min_size=32, max_size=32), max_size=3),
    st.lists(st.integers(0, 60), min_size=18, max_size=54),
    st.dictionaries(st.text(max_size=2), st.binary(max_size=4), max_size=2),
)


# values of a plausible shape: they get past the type and length checks to the crypto
SHAPED = st.one_of(
    st.binary(min_size=32, max_size=32),
    st.binary(min_size=64, max_size=64),
    st.permutations(list(range(52))),
    st.lists(st.binary(min_size=32, max_size=32), min_size=52, max_size=54),
)


def valid(p: bytes) -> bool:
    return nb.crypto_core_ed25519_is_valid_point(p)


def _replace(obj: Any, path: tuple[Any, ...], value: Any) -> Any:
    obj = copy.deepcopy(obj)
    target = obj
    for key in path[:-1]:
        target = getattr(target, key) if isinstance(key, str) else target[key]
    if isinstance(path[-1], str):
        original = getattr(target, path[-1])
        setattr(target, path[-1], value)
    else:
        original = target[path[-1]]
        target[path[-1]] = value
    assume(original != value)
    return obj


def _received(kind: str, path: tuple[Any, ...], value: Any) -> None:
    """Put garbage at path in one received item and run the receiver's check."""
    s = honest(52)
    a, b, m_in = s.a, s.b, shuffle.card_points(52)
    if kind == "commit":
        assume(not (type(value) is bytes and len(value) == 64))  # any 64 bytes are a digest
        assume(not (type(value) is bytes and len(value) == 32 and valid(value)))
        shuffle.check_commit(_replace(s.log.commits[a], path, value))
    elif kind == "shuffle":
        msg = _replace(s.log.shuffles[a], path, value)
        shuffle.verify_shuffle(s.public(a), s.ctx(a), m_in, msg, s.log.challenges[b],
                               s.log.answers[a], 20, POOL)  # fmt: skip
    elif kind == "answers":
        shuffle.check_answers(s.ctx(a), m_in, s.log.shuffles[a], s.log.challenges[b],
                              _replace(s.log.answers[a], path, value), 20, POOL)  # fmt: skip
    elif kind == "bits":
        assume(not (type(value) is int and value in (0, 1)))
        shuffle.answer_challenge(s.secrets[a], 52, _replace(s.log.challenges[b], path, value), 20)
    elif kind == "lock":
        shuffle.verify_lock(s.public(a), s.ctx(a), s.deck(2), _replace(s.log.locks[a], path, value),
                            POOL)  # fmt: skip
    elif kind == "key":
        shuffle.check_key(s.log.locks[b].keys[3], _replace([s.log.keys[b][3]], path, value)[0])
    elif kind == "opening":
        sb = s.secrets[b]
        seeds = _replace([sb.perm_seed, sb.key_seed], path, value)
        shuffle.check_opening(s.log.commits[b], HandSecrets(*seeds), s.ctx(b))


FIELDS = [
    ("commit", ("c",)), ("commit", ("P",)),
    ("shuffle", ("d_out",)), ("shuffle", ("d_out", 7)), ("shuffle", ("sum_proof",)),
    ("shuffle", ("sum_proof", 0)), ("shuffle", ("sum_proof", 1)), ("shuffle", ("deck_hash",)),
    ("answers", ("scalars",)), ("answers", ("scalars", 3)), ("answers", ("perms",)),
    ("answers", ("perms", 3)), ("answers", ("perms", 3, 5)),
    ("bits", ()), ("bits", (6,)),
    ("lock", ("d_out",)), ("lock", ("d_out", 9)), ("lock", ("keys",)), ("lock", ("keys", 9)),
    ("lock", ("proof",)), ("lock", ("proof", 0)), ("lock", ("proof", 1)), ("lock", ("proof", 11)),
    ("key", (0,)), ("opening", (0,)), ("opening", (1,)),
]  # fmt: skip


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    field=st.sampled_from(FIELDS), value=st.booleans().flatmap(lambda b: SHAPED if b else GARBAGE)
)
def test_garbage_in_any_received_field_is_a_shuffle_error(field: tuple[str, tuple[Any, ...]],
                                                          value: Any) -> None:  # fmt: skip
    kind, path = field
    if kind == "bits" and not path:
        assume(not (isinstance(value, list) and len(value) == 20 and set(value) <= {0, 1}))
        with pytest.raises(ShuffleError):
            shuffle.answer_challenge(honest(52).secrets[0], 52, value, 20)
        return
    with pytest.raises(ShuffleError) as info:
        _received(kind, path, value)
    event(info.value.reason)


@settings(max_examples=60, deadline=None)
@given(point=GARBAGE, key=GARBAGE)
def test_unmask_of_garbage_is_none_or_a_shuffle_error(point: Any, key: Any) -> None:
    s = honest(52)
    with contextlib.suppress(ShuffleError):
        assert shuffle.unmask(point, shuffle.card_key(s.secrets[0], 1), key, 52) is None


# ---------------------------------------------------------------- soundness of cut-and-choose


def guessing_cheater(d_in: list[bytes], d_out: list[bytes], ctx: Ctx, k: int, seed: bytes
                     ) -> tuple[bytes, Callable[[list[int]], Answers]]:  # fmt: skip
    """Builds each intermediate deck to pass one guessed bit: from D_in or from D_out."""
    n, digests, rounds = len(d_in), [], []
    for t in range(k):
        guess = shuffle.H("guess", seed, bytes([t]))[0] & 1
        s = shuffle.scalar(seed, "cc-mask", t)
        p = shuffle.permutation(seed, "cc-perm", t, n)
        if guess == 0:
            e = [nb.crypto_scalarmult_ed25519_noclamp(s, d_in[p[i]]) for i in range(n)]
        else:
            e = [b""] * n
            for j in range(n):
                e[p[j]] = nb.crypto_scalarmult_ed25519_noclamp(s, d_out[j])
        digests.append(shuffle.deck_digest(e))
        rounds.append((s, p))
    c = shuffle.H("ginp2p/v1/cc-decks", *ctx.fields(), *digests)
    return c, lambda _bits: Answers([r[0] for r in rounds], [r[1] for r in rounds])


def cheater_passes(s: Setup, d1: list[bytes], k: int, trial: int) -> bool:
    a, m_in = s.a, list(shuffle.card_points(52))
    c, answer = guessing_cheater(m_in, d1, s.ctx(a), k, b"cheater %d" % trial)
    msg = ShuffleMsg(d1, _prove_sum(s.secrets[a], s.ctx(a), m_in, d1), c)
    bits = shuffle.challenge_bits(b"%32d" % trial, s.ctx(a), entry_id(msg), k)
    try:
        shuffle.verify_shuffle(s.public(a), s.ctx(a), m_in, msg, bits, answer(bits), k, POOL)
    except ShuffleError as e:
        assert e.reason == "bad-shuffle-proof"
        return False
    return True


def test_guessing_cheater_passes_half_the_time_at_k_1() -> None:
    s = honest(52)
    d1 = retagged(s.deck(1), 5, 40, 41, scalar_int(7))
    passed = sum(cheater_passes(s, d1, 1, trial) for trial in range(160))
    assert 55 <= passed <= 105, passed


def test_guessing_cheater_never_passes_at_k_20() -> None:
    s = honest(52)
    d1 = retagged(s.deck(1), 5, 40, 41, scalar_int(7))
    assert not any(cheater_passes(s, d1, 20, trial) for trial in range(6))


def test_a_malformed_entry_is_named_in_words_a_reader_knows() -> None:
    """The audit prints these reasons to whoever asked "did they cheat?": they say which
    card of which deck, counted from 1, never the protocol's field names."""
    s = honest(52)
    a, d2, good = s.a, s.deck(2), s.log.locks[s.a]
    said = []
    for name, value in [("d_out", T8), ("d_out", good.d_out[5]), ("proof", bytes(32))]:
        bad = copy.deepcopy(good)
        getattr(bad, name)[4] = value
        with pytest.raises(shuffle.ShuffleError) as err:
            shuffle.verify_lock(s.public(a), s.ctx(a), d2, bad, POOL)
        said.append(str(err.value))
    assert "card 5 of the locked deck is not a point" in said[0]
    assert "the locked deck holds one masked card twice" in said[1]
    assert "part 5 of the lock's proof is zero" in said[2]
    assert not any(field in " ".join(said) for field in ("d_out", "proof[", "lock."))
