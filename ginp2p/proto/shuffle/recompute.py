"""The audit of a hand's shuffle: every logged step recomputed from the opened seeds.

Once a player opens its seeds, everything it logged in the shuffle follows from them:
its shuffle and sum proof, its challenge bits, its answers, its lock and every key it
published. :func:`recompute` names the first logged step, in the schedule's order,
that its author's seeds do not produce (a :class:`Mismatch`), each recomputed from the
logged input, so one wrong step is named once and not again in every later one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any

from ginp2p.proto.shuffle.group import ShuffleError, _need_points
from ginp2p.proto.shuffle.reading import card_points
from ginp2p.proto.shuffle.steps import (
    Answers,
    Commit,
    Ctx,
    HandSecrets,
    LockMsg,
    ShuffleMsg,
    _cc_commitment,
    _shuffle_core,
    answer_challenge,
    challenge_bits,
    lock_step,
    make_commit,
)


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
    assert msg is not None  # the schedule runs a step only when it is logged
    expected = lock_step(seeds, Ctx(log.game, log.hand, author), d_in, executor)
    parts = (
        ("d_out", expected.d_out, msg.d_out),
        ("keys", expected.keys, msg.keys),
        ("proof", expected.proof, msg.proof),
    )
    for name, want, logged in parts:
        if (i := _first_diff(want, logged)) is not None:
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
