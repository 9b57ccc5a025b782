"""The entries a player makes without being asked: the set-up (its hello, the host's
nonce), every step of the shuffle schedule (commitment, shuffle, challenge, answers,
locks, keys), the key for a stock card, its opening and checkpoint at a hand's end, and
the dispute of a cheat. Each is built from the table and this player's seeds as soon as
it is owed; :class:`~ginp2p.proto.protocol.PeerProtocol` appends it.

Each kind the schedule owes has its maker, found in an explicit table (a subclass may
make one its own way by overriding its ``_make_*`` method); the kinds never made here
are :data:`NOT_SCHEDULED`.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Executor

import nacl.signing

from ginp2p.game import engine
from ginp2p.game.engine import Action, HandState
from ginp2p.game.rules import RuleSet
from ginp2p.proto import events as ev
from ginp2p.proto import shuffle as sh
from ginp2p.proto.entry import HOST, nonce_hash
from ginp2p.proto.hand import HandFold, bits_to_bytes
from ginp2p.proto.log import Log
from ginp2p.proto.outputs import Output, SaveAnswer, SaveSeeds
from ginp2p.proto.state import PLAY_KINDS, SHOWING_KINDS
from ginp2p.proto.table import Table

__all__ = ["NOT_SCHEDULED", "EntryMaker", "Made"]

#: The kinds never made as the step the schedule owes next: the player's own moves and
#: choices (``act``, ``resign``, ``chat``, ``claim``) and the dispute of a cheat.
NOT_SCHEDULED = frozenset({*ev.ACTION_KINDS, "resign", "chat", "claim", "dispute"})

#: An entry to append: its kind, its body, and what must be saved before it.
Made = tuple[str, ev.Body, list[Output]]


class EntryMaker:
    """The entries this player makes itself. The state it reads is set by
    :class:`~ginp2p.proto.protocol.PeerProtocol`'s constructor, which also builds the
    makers' tables (:meth:`_init_makers`)."""

    me: int
    key: nacl.signing.SigningKey
    rng: Callable[[int], bytes]
    name: str
    host_rules: RuleSet | None
    k: int
    min_k: int
    claim_timeout: int
    accept_rules: Callable[[RuleSet], bool | str] | None
    executor: Executor | None
    log: Log
    table: Table
    refused: str | None
    _seeds: dict[int, sh.HandSecrets]
    _answered: dict[tuple[int, int], bytes]
    _disputed: bool

    def _init_makers(self) -> None:
        """How each entry the schedule owes is made: built once, of bound methods, so
        that a subclass's own ``_make_*`` is the one used."""
        self._set_up_makers: dict[str, Callable[[], Made | None]] = {
            "hello": self._hello,
            "nonce": self._make_nonce,
        }
        self._hand_makers: dict[str, Callable[[HandFold, bytes], Made | None]] = {
            "commit": self._make_commit,
            "shuffle": self._make_shuffle,
            "challenge": self._make_challenge,
            "answers": self._make_answers,
            "lock": self._make_lock,
            "keys": self._make_keys,
            "stock_key": self._make_stock_key,
            "open": self._make_open,
            "checkpoint": self._make_checkpoint,
        }

    def _stored_nonce(self) -> bytes | None:
        """The host's nonce is its seeds of hand 0, so it survives a crash."""
        pair = self._seeds.get(0)
        return pair.perm_seed if pair is not None else None

    @property
    def opponent(self) -> int:
        return 1 - self.me

    def _next_auto(self) -> Made | None:
        t = self.table
        if t.cheat is not None:
            return self._after_cheat()
        owed = t.owes(self.me)
        if owed is None or owed.kinds == PLAY_KINDS:
            return None
        (kind,) = owed.kinds
        set_up = self._set_up_makers.get(kind)
        if set_up is not None:
            return set_up()
        h = t.hand
        assert h is not None and t.game is not None
        return self._hand_makers[kind](h, t.game)

    def _hello(self) -> Made | None:
        if self.me == HOST:
            assert self.host_rules is not None
            # a crash after SaveSeeds(0) but before the hello went out: the same nonce
            nonce = self._stored_nonce() or self.rng(32)
            seeds = sh.HandSecrets(nonce, nonce)
            self._seeds[0] = seeds
            body = ev.make(
                "hello", bytes(self.key.verify_key), self.name, self.host_rules.to_dict(),
                (self.k, self.claim_timeout), nonce_hash(nonce), None, min_k=self.min_k,
            )  # fmt: skip
            return "hello", body, [SaveSeeds(0, nonce, nonce)]
        rules = self.table.rules
        if rules is None or self.refused is not None:
            return None
        answer = True if self.accept_rules is None else self.accept_rules(rules)
        if answer is not True:
            why = f": {answer}" if isinstance(answer, str) else ""
            self.refused = f"the host's rules ({rules.name}) were declined{why}"
            return None
        body = ev.make("hello", bytes(self.key.verify_key), self.name, None, None, None,
                       self.rng(32))  # fmt: skip
        return "hello", body, []

    def _make_nonce(self) -> Made:
        nonce = self._stored_nonce()
        assert nonce is not None
        return "nonce", ev.make("nonce", nonce), []

    def _secrets(self, hand: int) -> tuple[sh.HandSecrets, list[Output]]:
        s = self._seeds.get(hand)
        if s is not None:
            return s, []
        perm, key = self.rng(32), self.rng(32)
        s = self._seeds[hand] = sh.HandSecrets(perm, key)
        return s, [SaveSeeds(hand, perm, key)]

    def _make_commit(self, h: HandFold, game: bytes) -> Made:
        s, before = self._secrets(h.number)
        c = sh.make_commit(s, h.ctx(game, self.me))
        return "commit", ev.make("commit", h.number, c.c, c.P), before

    def _make_shuffle(self, h: HandFold, game: bytes) -> Made:
        s = self._seeds[h.number]
        d_in = h.deck(0 if self.me == h.first else 1)
        msg = sh.shuffle_step(s, h.ctx(game, self.me), d_in, self.table.k, self.executor)
        body = ev.make("shuffle", h.number, msg.d_out, b"".join(msg.sum_proof), msg.deck_hash)
        return "shuffle", body, []

    def _make_challenge(self, h: HandFold, game: bytes) -> Made:
        prover = self.opponent
        entry_id = h.shuffle_ids[prover]
        assert entry_id is not None
        bits = sh.challenge_bits(
            self._seeds[h.number].key_seed, h.ctx(game, prover), entry_id, self.table.k
        )
        step = 1 if prover == h.first else 2
        return "challenge", ev.make("challenge", h.number, step, bits_to_bytes(bits)), []

    def _make_answers(self, h: HandFold, game: bytes) -> Made | None:
        bits = h.challenges[self.opponent]
        assert bits is not None
        step = 1 if self.me == h.first else 2
        challenge = bits_to_bytes(bits)
        known = self._answered.get((h.number, step))
        if known is not None and known != challenge:
            self.refused = f"a second challenge to the shuffle proof of hand {h.number}"
            return None
        self._answered[(h.number, step)] = challenge
        answers = sh.answer_challenge(self._seeds[h.number], h.n, bits, self.table.k)
        rows = [
            (bit, scalar, bytes(perm))
            for bit, scalar, perm in zip(bits, answers.scalars, answers.perms, strict=True)
        ]
        body = ev.make("answers", h.number, step, rows)
        return "answers", body, [SaveAnswer(h.number, step, challenge)]

    def _make_lock(self, h: HandFold, game: bytes) -> Made:
        s = self._seeds[h.number]
        first = self.me == h.first
        d_in = h.deck(2 if first else 3)
        msg = sh.lock_step(s, h.ctx(game, self.me), d_in, self.executor)
        deal = [] if first else self._deal_keys(h)
        body = ev.make("lock", h.number, msg.d_out, msg.keys, b"".join(msg.proof), deal)
        return "lock", body, []

    def _deal_keys(self, h: HandFold) -> list[tuple[int, bytes]]:
        rules = self.table.rules
        assert rules is not None
        size = rules.hand_size
        other = range(size) if self.me == h.dealer else range(size, 2 * size)
        s = self._seeds[h.number]
        return [(pos, s.card_key(pos)) for pos in (*other, 2 * size)]

    def _make_keys(self, h: HandFold, game: bytes) -> Made:
        return "keys", ev.make("keys", h.number, self._deal_keys(h)), []

    def _make_stock_key(self, h: HandFold, game: bytes) -> Made:
        assert h.pending_stock is not None
        pos = h.pending_stock[0]
        key = self._seeds[h.number].card_key(pos)
        return "stock_key", ev.make("stock_key", h.number, pos, key), []

    def _make_open(self, h: HandFold, game: bytes) -> Made:
        s = self._seeds[h.number]
        return "open", ev.make("open", h.number, s.perm_seed, s.key_seed), []

    def _make_checkpoint(self, h: HandFold, game: bytes) -> Made:
        m = self.table.match
        assert m is not None and h.last_play is not None
        body = ev.make("checkpoint", h.number, h.last_play[0], h.last_play[1], m.scores)
        return "checkpoint", body, []

    def _reveal(self, full: HandState, h: HandFold, action: Action) -> list[tuple[int, bytes]]:
        """The per-card keys an action's entry must carry."""
        mine = h.keys[self.me]
        if action.kind in SHOWING_KINDS:
            positions = list(full.hands[self.me])
        elif isinstance(action, engine.Discard):
            positions = [full.position_of(self.me, action.card)]
        else:
            return []
        seeds = self._seeds[h.number]
        return [(pos, seeds.card_key(pos)) for pos in sorted(positions) if pos not in mine]

    def _evidence(self, author: int, named: bytes) -> list[bytes]:
        """``named`` and its signed twin if they are an equivocation, else [].

        The equivocator's own file holds only the one it kept; carried inside the
        dispute, the pair convicts the equivocator from any copy of the log.
        """
        entry = self.log.get(named)
        if entry is None:
            return []
        pair = sorted(self.log.at(author, entry.seq), key=lambda e: e.id != named)[:2]
        wires = [e.wire for e in pair]
        return wires if len(wires) == 2 and max(map(len, wires)) <= ev.MAX_EVIDENCE else []

    def _after_cheat(self) -> Made | None:
        """The other player cheated: dispute the entry, then open our seeds."""
        t = self.table
        cheat = t.cheat
        assert cheat is not None
        if cheat.author == self.me:
            return None
        if self.log.game is None:  # a host hello that breaks the rules: no game to answer in
            if self.refused is None:
                self.refused = f"the host's hello was refused ({cheat.rule}): {cheat.detail}"
            return None
        if not self._disputed:
            self._disputed = True
            body = ev.make("dispute", cheat.entry, cheat.rule[:100], cheat.detail[:500],
                           self._evidence(cheat.author, cheat.entry))  # fmt: skip
            return "dispute", body, []
        h = t.hand
        if h is None or h.commits[self.me] is None or h.opened[self.me] is not None:
            return None
        if any(e.kind == "open" and e.author == self.me and e.hand == h.number
               for e in self.log.since(self.me, 0)):  # fmt: skip
            return None
        return self._make_open(h, t.game or b"")
