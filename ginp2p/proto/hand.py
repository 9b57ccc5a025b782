"""One hand as its entries have it so far: each player's commitment, shuffle,
challenge, answers, lock and keys, the cards the observer can read, and the row of the
hand's schedule (docs/protocol.md §3) it has reached. The table keeps one per hand;
the protocol reads it to make its own next step.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ginp2p.game.cards import Card
from ginp2p.proto import events as ev
from ginp2p.proto import shuffle as sh
from ginp2p.proto.entry import GUEST, HOST

__all__ = ["HandFold", "bits_to_bytes"]


@dataclass
class HandFold:
    """Everything logged about one hand so far, indexed by author (0 host, 1 guest)."""

    number: int
    dealer: int
    n: int
    commits: list[sh.Commit | None] = field(default_factory=lambda: [None, None])
    commit_ids: list[bytes | None] = field(default_factory=lambda: [None, None])
    shuffles: list[sh.ShuffleMsg | None] = field(default_factory=lambda: [None, None])
    shuffle_ids: list[bytes | None] = field(default_factory=lambda: [None, None])
    challenges: list[list[int] | None] = field(default_factory=lambda: [None, None])
    answers: list[sh.Answers | None] = field(default_factory=lambda: [None, None])
    locks: list[sh.LockMsg | None] = field(default_factory=lambda: [None, None])
    #: every per-card key each author published, by position
    keys: list[dict[int, bytes]] = field(default_factory=lambda: [{}, {}])
    dealt: list[bool] = field(default_factory=lambda: [False, False])
    #: cards the observer knows, by position
    known: dict[int, Card] = field(default_factory=dict)
    #: a stock draw waiting for the other player's key: (position, drawer)
    pending_stock: tuple[int, int] | None = None
    opened: list[sh.HandSecrets | None] = field(default_factory=lambda: [None, None])
    checked: bool = False  # both openings recomputed and found consistent
    #: ids of the last entry of play in each feed, once the hand is over
    last_play: tuple[bytes, bytes] | None = None
    checkpoints: list[ev.CheckpointBody | None] = field(default_factory=lambda: [None, None])
    over: bool = False

    @property
    def first(self) -> int:
        """The first shuffler: the non-dealer."""
        return 1 - self.dealer

    def ctx(self, game: bytes, author: int) -> sh.Ctx:
        return sh.Ctx(game, self.number, author)

    def stage(self) -> tuple[str, tuple[int, ...]]:
        """The schedule row this hand is at: (entry kind, who owes it)."""
        a, b = self.first, 1 - self.first
        missing = tuple(p for p in (HOST, GUEST) if self.commits[p] is None)
        if missing:
            return "commit", missing
        for kind, who, done in (
            ("shuffle", a, self.shuffles[a]),
            ("challenge", b, self.challenges[b]),
            ("answers", a, self.answers[a]),
            ("shuffle", b, self.shuffles[b]),
            ("challenge", a, self.challenges[a]),
            ("answers", b, self.answers[b]),
            ("lock", a, self.locks[a]),
            ("lock", b, self.locks[b]),
        ):
            if done is None:
                return kind, (who,)
        if not self.dealt[a]:
            return "keys", (a,)
        if not self.over:
            return "play", ()
        missing = tuple(p for p in (HOST, GUEST) if self.opened[p] is None)
        if missing:
            return "open", missing
        missing = tuple(p for p in (HOST, GUEST) if self.checkpoints[p] is None)
        if missing:
            return "checkpoint", missing
        return "done", ()

    def deck(self, step: int) -> list[bytes]:
        """D1..D4 as logged (step 0: the card points)."""
        a, b = self.first, 1 - self.first
        msgs = [None, self.shuffles[a], self.shuffles[b], self.locks[a], self.locks[b]]
        if step == 0:
            return list(sh.card_points(self.n))
        msg = msgs[step]
        assert msg is not None
        return list(msg.d_out)


def bits_to_bytes(bits: Sequence[int]) -> bytes:
    """Challenge bits, most significant first, as ``ceil(k/8)`` bytes."""
    out = bytearray((len(bits) + 7) // 8)
    for t, b in enumerate(bits):
        out[t // 8] |= b << (7 - t % 8)
    return bytes(out)
