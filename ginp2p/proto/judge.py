"""The judgement by opened seeds: whether a player's logged shuffle, lock and keys
follow from the seeds it opened, and whether every key the other player published
unmasks to a card with them. The live table and the audit judge a hand with one
opening by the one function here (:meth:`SeedJudge.opener_cheat`); the entry a
mismatch blames is found here too.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ginp2p.game.cards import Card
from ginp2p.proto import events as ev
from ginp2p.proto import shuffle as sh
from ginp2p.proto.entry import GUEST, HOST, Entry
from ginp2p.proto.hand import HandFold
from ginp2p.proto.results import Cheat
from ginp2p.proto.state import TableBase

__all__ = ["SeedJudge"]


class SeedJudge(TableBase):
    """The table's verdicts by opened seeds, and the entries they name."""

    def opener_cheat(self, h: HandFold, x: int) -> Cheat | None:
        """The verdict when player ``x``'s opened seeds are the only ones to judge by
        (a dispute's opener, or the one player who opened a hand): ``x``'s own logged
        steps must follow from its seeds, and only then does every key the other player
        published have to unmask, with ``x``'s derived key, to a card, each card once.
        The live table and the audit judge by this one function."""
        s = self._s
        opened = h.opened[x]
        assert opened is not None
        own = self._steps_cheat(h, x, opened)
        if own is not None or h.locks[HOST] is None or h.locks[GUEST] is None:
            return own
        y, d4 = 1 - x, h.deck(4)
        seen: dict[int, int] = {}
        for pos, key in sorted(h.keys[y].items()):
            try:
                index: int | None = sh.unmask(d4[pos], key, opened.card_key(pos), h.n)
            except sh.ShuffleError:
                index = None
            if index is None:
                rule, detail = "not-a-card", (
                    f"position {pos} does not unmask to a card with {s.names[y]}'s key and "
                    f"{s.names[x]}'s opened seeds")  # fmt: skip
            elif index in seen:
                rule, detail = "not-a-permutation", (
                    f"positions {seen[index]} and {pos} both unmask to "
                    f"{Card.from_index(index)} with {s.names[x]}'s opened seeds")  # fmt: skip
            else:
                seen[index] = pos
                continue
            bad = self._key_entry(h, y, pos)
            return None if bad is None else Cheat(y, bad.id, bad.seq, h.number, rule, detail)
        return None

    def _steps_cheat(self, h: HandFold, x: int, secrets: sh.HandSecrets) -> Cheat | None:
        """The first of ``x``'s logged steps of hand ``h`` that ``secrets`` do not give."""
        s = self._s
        openings: list[sh.HandSecrets | None] = [None, None]
        openings[x] = secrets
        try:
            mismatch = sh.recompute(self._shuffle_log(h), openings, executor=self.executor)
        except sh.ShuffleError:
            return None  # an input deck of the other is unusable: caught on receipt
        bad = self._step_entry(h, mismatch) if mismatch is not None else None
        if mismatch is None or bad is None:
            return None
        return Cheat(x, bad.id, bad.seq, h.number, f"not-from-seeds:{mismatch.step}",
                     f"{s.names[x]}'s {mismatch.step} does not follow from their seeds "
                     f"({mismatch.detail})")  # fmt: skip

    def _shuffle_log(self, h: HandFold) -> sh.ShuffleLog:
        """What the log holds of hand ``h``'s shuffle, as the recompute reads it."""
        s = self._s
        assert s.game is not None
        log = sh.ShuffleLog(s.game, h.number, h.n, s.k, h.first)
        log.commits, log.shuffles, log.shuffle_ids = h.commits, h.shuffles, h.shuffle_ids
        log.challenges = list(h.challenges)
        log.answers, log.locks, log.keys = h.answers, h.locks, h.keys
        return log

    def _step_entry(self, h: HandFold, mismatch: sh.Mismatch) -> Entry | None:
        """The entry a recompute mismatch names: its author's entry of that step (for a
        key, the one that published it), else its author's opening. Never the entry
        being folded: the other player's opening only made the mismatch visible."""
        a, index = mismatch.author, mismatch.index
        if mismatch.step == "key" and index is not None:
            found = self._key_entry(h, a, index)
        else:
            found = next((x for x in self._hand_entries(h, a) if x.kind == mismatch.step), None)
        return found or next((x for x in self._hand_entries(h, a) if x.kind == "open"), None)

    def _hand_entries(self, h: HandFold, author: int) -> Iterable[Entry]:
        return (x for x in self._s.placed[author] if x.hand == h.number)

    def _key_entry(self, h: HandFold, author: int, pos: int) -> Entry | None:
        """The entry in which ``author`` published its key for ``pos`` in hand ``h``."""
        for x in self._hand_entries(h, author):
            b = x.fields.body
            if isinstance(b, ev.StockKeyBody):
                positions = [b.pos]
            else:
                keys: Sequence[ev.PosKey] = (
                    b.deal_keys if isinstance(b, ev.LockBody) else getattr(b, "keys", ())
                )
                positions = [k.pos for k in keys]
            if pos in positions:
                return x
        return None

    def _placed_entry(self, cheat: Cheat) -> Entry:
        return next(x for x in self._s.placed[cheat.author] if x.id == cheat.entry)
