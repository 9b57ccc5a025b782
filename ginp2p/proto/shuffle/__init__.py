"""The fair and private shuffle (docs/shuffle.md), sans-IO.

Two players mask the deck in turn in the prime-order subgroup of edwards25519: each
shuffles with a committed permutation and a global key, proves the step (a
Chaum–Pedersen proof on the deck sums and a cut-and-choose shuffle proof), then swaps its
global key for one key per position with a proof. A card is read only with both players'
keys for its position. All randomness derives from two 32-byte seeds per player and hand,
committed before any deck is seen and opened at the end, so the audit can recompute every
step. docs/shuffle.md is the byte-level specification.

The modules, bottom to top: :mod:`~ginp2p.proto.shuffle.group` (hashing, curve
arithmetic, validation of a peer's numbers), :mod:`~ginp2p.proto.shuffle.steps` (one
hand's steps, each with its proof and its check), :mod:`~ginp2p.proto.shuffle.reading`
(card points, per-card keys, unmasking) and :mod:`~ginp2p.proto.shuffle.recompute`
(the audit from opened seeds). This package re-exports their public names.

Pure: no sockets, clocks or files. Bytes from the other player only ever raise
`ShuffleError`. Curve arithmetic is PyNaCl's (libsodium); nothing here is hand-written.
"""

from ginp2p.proto.shuffle.group import (
    GROUP_ORDER,
    K_DEFAULT,
    K_LOWEST,
    K_MAX,
    K_MIN,
    H,
    ShuffleError,
    deck_digest,
    permutation,
    scalar,
)
from ginp2p.proto.shuffle.reading import card_index, card_key, card_points, check_key, unmask
from ginp2p.proto.shuffle.recompute import Mismatch, ShuffleLog, recompute
from ginp2p.proto.shuffle.steps import (
    Answers,
    Commit,
    Ctx,
    HandSecrets,
    LockMsg,
    ShuffleMsg,
    answer_challenge,
    challenge_bits,
    check_answers,
    check_commit,
    check_opening,
    check_shuffle,
    lock_step,
    make_commit,
    shuffle_step,
    verify_lock,
    verify_shuffle,
)

__all__ = [
    "GROUP_ORDER",
    "K_DEFAULT",
    "K_LOWEST",
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
