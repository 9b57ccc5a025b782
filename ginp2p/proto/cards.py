"""The shuffle's entries and the cards they deal: the table's fold of commitments,
shuffles, challenges, answers, locks and keys, each checked on receipt (unless its
proofs go unchecked, see :class:`~ginp2p.proto.table.Table`), the reading of every card
whose two keys are at hand, and the recompute of a hand from both openings.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import partial

from ginp2p.game import match as mt
from ginp2p.game.cards import Card
from ginp2p.game.engine import DrawStock, PartialKnowledge
from ginp2p.proto import events as ev
from ginp2p.proto import shuffle as sh
from ginp2p.proto.entry import GUEST, HOST, Entry
from ginp2p.proto.hand import HandFold
from ginp2p.proto.judge import SeedJudge
from ginp2p.proto.results import HandDealt, Moved
from ginp2p.proto.state import _Broken

__all__ = ["CardFold", "Proven", "bits_from_bytes"]

#: A step whose proof the table checks: a shuffle, the answers about it, a lock.
Proven = sh.ShuffleMsg | sh.Answers | sh.LockMsg


def bits_from_bytes(data: bytes, k: int) -> list[int]:
    if len(data) != (k + 7) // 8:
        raise _Broken("bad-challenge", f"a challenge of k = {k} bits has {(k + 7) // 8} bytes")
    return [(data[t // 8] >> (7 - t % 8)) & 1 for t in range(k)]


def _split32(data: bytes, what: str) -> list[bytes]:
    if len(data) % 32:
        raise _Broken("malformed", f"{what} is not a whole number of 32-byte scalars")
    return [data[i : i + 32] for i in range(0, len(data), 32)]


def _need_len(items: Sequence[bytes], n: int, what: str) -> None:
    """The shape check that stays when lazy proofs skip the proof checks."""
    if len(items) != n:
        raise _Broken("bad-length", f"{what} has {len(items)} points, not {n}")


class CardFold(SeedJudge):
    """The fold of the shuffle's entries and of the keys that read the cards."""

    # -- the shuffle -------------------------------------------------------------------
    def _on_commit(self, e: Entry) -> None:
        h = self._hand_of(e)
        b = e.body_as(ev.CommitBody)
        commit = sh.Commit(b.c, b.P)
        self._checked(("commit", e.id), lambda: sh.check_commit(commit))
        h.commits[e.author] = commit
        h.commit_ids[e.author] = e.id

    def _unproven(self, h: HandFold, author: int) -> bool:
        """Whether ``author``'s proofs in this hand go unchecked (see the class doc)."""
        return author == self.viewer or h.number in self.lazy_proofs

    def _proof(self, h: HandFold, a: int, msg: Proven) -> Callable[[], None]:
        """The check of player ``a``'s ``msg``: its shuffle (a ShuffleMsg), the answers
        to its shuffle proof (Answers) or its lock (LockMsg)."""
        s = self._s
        commit, shuffled = h.commits[a], h.shuffles[a]
        assert commit is not None and s.game is not None
        ctx = h.ctx(s.game, a)
        if isinstance(msg, sh.ShuffleMsg):
            d_in = h.deck(0 if a == h.first else 1)
            return lambda: sh.check_shuffle(commit.P, ctx, d_in, msg)
        if isinstance(msg, sh.Answers):
            d_in = h.deck(0 if a == h.first else 1)
            bits = h.challenges[1 - a]
            assert shuffled is not None and bits is not None
            return lambda: sh.check_answers(ctx, d_in, shuffled, bits, msg, s.k, self.executor)
        d_in = h.deck(2 if a == h.first else 3)
        return lambda: sh.verify_lock(commit.P, ctx, d_in, msg, self.executor)

    def _prove(self, e: Entry, h: HandFold, msg: Proven) -> None:
        """Check the proof ``e`` carries (``msg``), unless it goes unchecked; before the
        hand takes ``msg`` in, so that a failed entry leaves no trace."""
        if not self._unproven(h, e.author):
            self._checked((e.kind, e.id), self._proof(h, e.author, msg))

    def _on_shuffle(self, e: Entry) -> None:
        h = self._hand_of(e)
        b = e.body_as(ev.ShuffleBody)
        msg = sh.ShuffleMsg(list(b.points), _split32(b.sum_proof, "sum proof"), b.deck_hash)
        _need_len(msg.d_out, h.n, "the shuffled deck")
        self._prove(e, h, msg)
        h.shuffles[e.author], h.shuffle_ids[e.author] = msg, e.id

    def _on_challenge(self, e: Entry) -> None:
        h = self._hand_of(e)
        b = e.body_as(ev.ChallengeBody)
        step = 1 if e.author != h.first else 2
        if b.step != step:
            raise _Broken("bad-challenge", f"a challenge for step {b.step}, owed: {step}")
        h.challenges[e.author] = bits_from_bytes(b.bits, self._s.k)

    def _on_answers(self, e: Entry) -> None:
        h = self._hand_of(e)
        a, b = e.author, e.body_as(ev.AnswersBody)
        step = 1 if a == h.first else 2
        if b.step != step:
            raise _Broken("bad-answers", f"answers for step {b.step}, owed: {step}")
        if [r.bit for r in b.answers] != h.challenges[1 - a]:
            raise _Broken("bad-answers", "the answers do not follow the challenge bits")
        answers = sh.Answers([r.scalar for r in b.answers], [list(r.perm) for r in b.answers])
        self._prove(e, h, answers)
        h.answers[a] = answers

    def _on_lock(self, e: Entry) -> None:
        h = self._hand_of(e)
        a, b = e.author, e.body_as(ev.LockBody)
        msg = sh.LockMsg(list(b.points), list(b.pubkeys), _split32(b.proof, "proof"))
        _need_len(msg.d_out, h.n, "the locked deck")
        _need_len(msg.keys, h.n, "the lock's public keys")
        self._prove(e, h, msg)
        h.locks[a] = msg
        if a == h.first:
            if b.deal_keys:
                raise _Broken("bad-keys", "the first lock carries no deal keys")
        else:
            self._deal_keys(e, h, b.deal_keys)

    # -- the keys and the cards --------------------------------------------------------
    def _on_keys(self, e: Entry) -> None:
        h = self._hand_of(e)
        self._deal_keys(e, h, e.body_as(ev.KeysBody).keys)

    def _deal_keys(self, e: Entry, h: HandFold, keys: Sequence[ev.PosKey]) -> None:
        """Row 9 (the second locker) or 10 (the first): keys for the other's hand and
        the upcard, exactly."""
        a = e.author
        rules = self._s.rules
        assert rules is not None
        size = rules.hand_size
        # the non-dealer (first) holds 0..size-1, the dealer size..2size-1
        other = range(size) if a == h.dealer else range(size, 2 * size)
        want = [*other, 2 * size]
        if sorted(k.pos for k in keys) != want:
            raise _Broken("bad-keys", "the deal keys are not for the other hand and the upcard")
        self._publish(e, h, keys)
        h.dealt[a] = True
        if all(h.dealt):
            self._deal(h)

    def _publish(self, e: Entry, h: HandFold, keys: Iterable[ev.PosKey]) -> None:
        """Check and record per-card keys, and read every card that became readable."""
        a = e.author
        lock = h.locks[a]
        if lock is None:
            raise _Broken("bad-keys", "keys before the author's lock")
        for item in keys:
            pos, key = item.pos, item.key
            if pos >= h.n:
                raise _Broken("bad-keys", f"a key for position {pos} of a {h.n}-card deck")
            known = h.keys[a].get(pos)
            if known is not None and known != key:
                raise _Broken("bad-key", f"two different keys for position {pos}")
            check = partial(sh.check_key, lock.keys[pos], key)
            self._checked(("key", a, h.number, pos, key), check)
            h.keys[a][pos] = key
            self._read(h, pos, e)

    def _my_key(self, h: HandFold, pos: int) -> bytes | None:
        if self.viewer is None:
            return None
        opened = h.opened[self.viewer]
        secrets = opened or self._seeds(h.number)
        return secrets.card_key(pos) if secrets is not None else None

    def _read(self, h: HandFold, pos: int, e: Entry | None) -> None:
        """Unmask ``pos`` if both keys are at hand (published, or the viewer's own)."""
        if pos in h.known or h.locks[GUEST] is None or h.locks[HOST] is None:
            return
        keys = [h.keys[HOST].get(pos), h.keys[GUEST].get(pos)]
        derived = [a for a in (HOST, GUEST) if keys[a] is None]  # from seeds, not the log
        if self.viewer is not None and keys[self.viewer] is None:
            keys[self.viewer] = self._my_key(h, pos)
        for a in (HOST, GUEST):
            if keys[a] is None and h.opened[a] is not None:
                keys[a] = h.opened[a].card_key(pos)  # type: ignore[union-attr]
        if keys[0] is None or keys[1] is None:
            return
        point = h.deck(4)[pos]
        cache_key = ("unmask", point, keys[0], keys[1])
        if cache_key not in self._cache:
            try:
                self._cache[cache_key] = sh.unmask(point, keys[0], keys[1], h.n)
            except sh.ShuffleError:  # a point no proof checked (lazy proofs): not a card
                self._cache[cache_key] = None
        index = self._cache[cache_key]
        if index is None:
            for a in derived:  # a key from seeds is only as good as the steps they gave
                secrets = h.opened[a] or (self._seeds(h.number) if a == self.viewer else None)
                own = self._steps_cheat(h, a, secrets) if secrets is not None else None
                if own is not None:
                    raise _Broken(own.rule, own.detail, self._placed_entry(own))
            raise _Broken("not-a-card", f"position {pos} does not unmask to a card")
        h.known[pos] = Card.from_index(index)

    def _deal(self, h: HandFold) -> None:
        s = self._s
        assert s.match is not None and s.rules is not None
        s.match = mt.deal(s.match, PartialKnowledge({}))
        size = s.rules.hand_size
        mine = None
        if self.viewer is not None:
            positions = range(size) if self.viewer != h.dealer else range(size, 2 * size)
            cards = [h.known.get(pos) for pos in positions]
            if all(c is not None for c in cards):
                mine = tuple(c for c in cards if c is not None)
        self._emit(HandDealt(h.number, h.dealer, mine, h.known.get(2 * size)))

    def _on_stock_key(self, e: Entry) -> None:
        h = self._hand_of(e)
        assert h.pending_stock is not None
        pos, drawer = h.pending_stock
        b = e.body_as(ev.StockKeyBody)
        if b.pos != pos:
            raise _Broken("bad-keys", f"a key for position {b.pos}, owed: {pos}")
        h.pending_stock = None
        self._publish(e, h, [ev.PosKey(pos, b.key)])
        if drawer == self.viewer and pos in h.known:
            self._emit(Moved(drawer, DrawStock(), h.known[pos]))

    # -- the openings ------------------------------------------------------------------
    def _opening(self, e: Entry, h: HandFold) -> None:
        s = self._s
        a = e.author
        commit = h.commits[a]
        if commit is None:
            raise _Broken("bad-opening", "an opening without a commitment")
        assert s.game is not None
        b = e.body_as(ev.OpenBody)
        secrets = sh.HandSecrets(b.perm_seed, b.key_seed)
        ctx = h.ctx(s.game, a)
        self._checked(("open", e.id), lambda: sh.check_opening(commit, secrets, ctx))
        h.opened[a] = secrets

    def _recompute(self, h: HandFold) -> None:
        s = self._s
        log = self._shuffle_log(h)
        key = ("recompute", h.number, *(h.commit_ids), *(h.shuffle_ids))
        if key not in self._cache:
            try:
                # a player need not recompute its own steps: it made them
                openings = [None if a == self.viewer else h.opened[a] for a in (HOST, GUEST)]
                self._cache[key] = sh.recompute(log, openings, executor=self.executor)
            except sh.ShuffleError as exc:  # a logged deck unusable: caught on receipt before
                self._cache[key] = sh.Mismatch(h.first, "shuffle", None, str(exc))
        mismatch = self._cache[key]
        if mismatch is not None:
            raise _Broken(
                f"not-from-seeds:{mismatch.step}",
                f"{s.names[mismatch.author]}'s {mismatch.step} does not follow from their "
                f"opened seeds ({mismatch.detail}"
                + (f", position {mismatch.index}" if mismatch.index is not None else "")
                + ")",
                self._step_entry(h, mismatch),
            )
        h.checked = True
        if h.locks[HOST] is not None and h.locks[GUEST] is not None:
            for pos in range(h.n):
                self._read(h, pos, None)
