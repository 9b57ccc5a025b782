"""The recipes of the attacks of docs/threats.md, for tests and the audit's corpus.

A :func:`cheater` is a peer class that deviates in hand 1 only, in one role: it rewrites
one kind of its entries before signing them, withholds them, or signs a twin at the
same seq; :func:`cheat_once` is a player that makes one deviating move. The rewrites
and moves below are the threats themselves (a tagged deck, a card repeated or
substituted, a bad sum proof, tweaked answers, linked positions, wrong keys, another
permutation than the seeds give, illegal moves, a chat flood...). The threat tests and
``scripts/make_corpus.py`` inject every attack the same way. Nothing in a real game
imports this module.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import msgpack
import nacl.bindings as nb

from ginp2p.game import bot
from ginp2p.game.cards import Card
from ginp2p.game.engine import Discard, Gin, HandState, Knock, PassUpcard, Phase
from ginp2p.game.melds import best_arrangement
from ginp2p.proto import events as ev
from ginp2p.proto import shuffle as sh
from ginp2p.proto.entry import Entry, sign_entry
from ginp2p.proto.hand import HandFold
from ginp2p.proto.linear import MAX_CHAT_RUN
from ginp2p.proto.outputs import Output, Send
from ginp2p.proto.protocol import PeerProtocol
from ginp2p.proto.shuffle.steps import _prove_sum
from ginp2p.testing.fakelink import Player

__all__ = [
    "RawMove", "Rewrite", "another_permutation", "bad_sum_proof", "change_answers",
    "change_keys", "chat_flood", "cheat_once", "cheater", "deck_in", "discard_not_held",
    "duplicate_card", "false_gin", "flip_bit", "knock_over_the_limit", "phase_is",
    "proof_ctx", "redeck", "retagged", "rewrap", "scalar_int", "shuffle_before_commit",
    "substitute_card", "swap_out", "tag_deck", "the_other_choice", "tweak_scalar",
    "two_moves", "wrong_key", "wrong_stock_key",
]  # fmt: skip


def cheat_once(when: Callable[[HandState], bool],
               move: Callable[[PeerProtocol, HandState], Any]) -> Player:  # fmt: skip
    """A player: the first shuffler (the first to move) plays ``move`` once, at its first
    turn of hand 1 where ``when`` holds; otherwise the bot's move."""
    done: list[bool] = []

    def player(proto: PeerProtocol, view: HandState) -> Any:
        h = proto.table.hand
        assert h is not None
        if not done and h.number == 1 and proto.me == h.first and when(view):
            done.append(True)
            return move(proto, view)
        return bot.choose(view, proto.me)

    return player


#: A rewrite of one entry body before it is signed: (peer, hand, body) -> body.
Rewrite = Callable[[PeerProtocol, HandFold, Any], Any]
#: A deviating "move": appends whatever it likes and returns the outputs.
RawMove = Callable[[PeerProtocol], list[Output]]


def cheater(
    kinds: str,
    rewrite: Rewrite | None = None,
    *,
    role: str = "first",
    refuse: bool = False,
    twin: Callable[[PeerProtocol, HandFold, str, Any], tuple[str, Any]] | None = None,
) -> type[PeerProtocol]:
    """A peer class that deviates in hand 1 when it plays ``role`` ("first": the first
    shuffler, i.e. the non-dealer; "second": the dealer), for its entries of ``kinds``:
    ``rewrite`` changes the body before it is signed, ``refuse`` withholds the entry,
    ``twin`` also signs and sends another entry at the same seq (equivocation).

    The threat tests and the audit's cheating corpus (scripts/make_corpus.py) are made
    with it. Its ``act`` checks nothing: a player may hand it a :data:`RawMove`."""
    wanted = set(kinds.split())

    class Cheater(PeerProtocol):
        def _cheats(self, kind: str) -> bool:
            h = self.table.hand
            if kind not in wanted or h is None or h.number != 1:
                return False
            return self.me == (h.first if role == "first" else h.dealer)

        def _next_auto(self) -> Any:
            step = super()._next_auto()
            if refuse and step is not None and self._cheats(step[0]):
                return None
            return step

        def _append(self, kind: str, body: Any, out: list[Output]) -> Entry:
            h = self.table.hand
            cheat = self._cheats(kind)
            if cheat and rewrite is not None:
                assert h is not None
                body = rewrite(self, h, body)
            entry = super()._append(kind, body, out)
            if cheat and twin is not None:
                assert h is not None
                kind2, body2 = twin(self, h, kind, body)
                out.append(
                    Send(sign_entry(self.key, entry.fields._replace(kind=kind2, body=body2)))
                )
            return entry

        def act(self, action: Any, **_: Any) -> list[Output]:
            if callable(action):
                return list(action(self))
            h, full = self.table.hand, self.table.hand_state()
            assert h is not None and full is not None
            return self._append_and_fold(
                *ev.action_body(action, h.number, self._reveal(full, h, action))
            )

    return Cheater


# ---------------------------------------------------------------- the recipes of the threats
# Rewrites for :func:`cheater` and moves for :func:`cheat_once`: the threat tests and
# the audit's corpus inject each threat the same way.


def scalar_int(v: int) -> bytes:
    """The canonical scalar encoding of ``v`` (mod L)."""
    return (v % sh.GROUP_ORDER).to_bytes(32, "little")


def retagged(d: list[bytes], s: int, u: int, v: int, m: bytes) -> list[bytes]:
    """d with d[u] = m·d[s] and d[v] balancing it, so the sum (and the sum proof) holds."""
    out = list(d)
    out[u] = nb.crypto_scalarmult_ed25519_noclamp(m, d[s])
    out[v] = nb.crypto_core_ed25519_sub(nb.crypto_core_ed25519_add(d[u], d[v]), out[u])
    return out


def proof_ctx(p: PeerProtocol, h: HandFold, game: bytes | None = None, hand: int | None = None,
              author: int | None = None) -> sh.Ctx:  # fmt: skip
    """What ``p``'s shuffle proofs of hand ``h`` are bound to (or another game, hand, author)."""
    t = p.table
    assert t.game is not None
    return sh.Ctx(game or t.game, h.number if hand is None else hand,
                  p.me if author is None else author)  # fmt: skip


def deck_in(p: PeerProtocol, h: HandFold) -> list[bytes]:
    """The deck ``p`` shuffles: the card points (first) or the first's output (second)."""
    return h.deck(0 if p.me == h.first else 1)


def redeck(change: Callable[[list[bytes], PeerProtocol, HandFold], list[bytes]],
           reprove: bool = True) -> Rewrite:  # fmt: skip
    """A shuffle entry whose deck is changed; with ``reprove`` a fresh, valid sum proof for
    the changed deck (the tag attack's trick), C left as the seeds make it."""

    def rewrite(p: PeerProtocol, h: HandFold, body: Any) -> Any:
        d_out = change(list(body.points), p, h)
        proof = body.sum_proof
        if reprove:
            proof = b"".join(_prove_sum(p._seeds[h.number], proof_ctx(p, h), deck_in(p, h),
                                           d_out))  # fmt: skip
        return body._replace(points=tuple(d_out), sum_proof=proof)

    return rewrite


def tag_deck(d: list[bytes], p: PeerProtocol, h: HandFold) -> list[bytes]:
    """Position 40 = 7·(the card at 5), 41 balancing it (shuffle-research §9)."""
    return retagged(d, 5, 40, 41, scalar_int(7))


def duplicate_card(d: list[bytes], p: PeerProtocol, h: HandFold) -> list[bytes]:
    d[15] = d[3]
    return d


def substitute_card(d: list[bytes], p: PeerProtocol, h: HandFold) -> list[bytes]:
    """x·(a card of a second deck), in place of a card of this one."""
    d[9] = nb.crypto_scalarmult_ed25519_noclamp(p._seeds[h.number].x, sh.card_points(104)[60])
    return d


def bad_sum_proof(p: PeerProtocol, h: HandFold, body: Any) -> Any:
    e, z = body.sum_proof[:32], body.sum_proof[32:]
    return body._replace(sum_proof=e + nb.crypto_core_ed25519_scalar_add(z, scalar_int(1)))


def change_answers(change: Callable[[list[Any], PeerProtocol, HandFold], list[Any]]) -> Rewrite:
    """Cut-and-choose answers, rows changed by ``change``."""

    def rewrite(p: PeerProtocol, h: HandFold, body: Any) -> Any:
        return body._replace(answers=tuple(change(list(body.answers), p, h)))

    return rewrite


def tweak_scalar(rows: list[Any], p: PeerProtocol, h: HandFold) -> list[Any]:
    rows[4] = rows[4]._replace(
        scalar=nb.crypto_core_ed25519_scalar_add(rows[4].scalar, scalar_int(1))
    )
    return rows


def swap_out(p: PeerProtocol, h: HandFold, body: Any) -> Any:
    """A lock whose output positions 3 and 12 are swapped (linked positions)."""
    points = list(body.points)
    points[3], points[12] = points[12], points[3]
    return body._replace(points=tuple(points))


def change_keys(field: str, change: Callable[[Sequence[Any], PeerProtocol, HandFold], Any]
                ) -> Rewrite:  # fmt: skip
    """The keys in the body's ``field``, changed by ``change``."""

    def rewrite(p: PeerProtocol, h: HandFold, body: Any) -> Any:
        return body._replace(**{field: change(getattr(body, field), p, h)})

    return rewrite


def wrong_key(items: Sequence[Any], p: PeerProtocol, h: HandFold) -> tuple[Any, ...]:
    """The key for another position in place of the first one."""
    first = items[0]
    return (first._replace(key=p._seeds[h.number].card_key(first.pos + 30)), *items[1:])


def wrong_stock_key(p: PeerProtocol, h: HandFold, body: Any) -> Any:
    """The answer to a stock draw with the key of the position after the top."""
    return body._replace(key=p._seeds[h.number].card_key(body.pos + 1))


def another_permutation(p: PeerProtocol, h: HandFold, body: Any) -> Any:
    """A true shuffle with the committed x but another π than perm_seed gives, answered
    consistently: every proof holds; only the opened seeds show it."""
    fake = sh.HandSecrets(bytes(32), p._seeds[h.number].key_seed)
    if hasattr(body, "sum_proof"):
        msg = sh.shuffle_step(fake, proof_ctx(p, h), deck_in(p, h), p.table.k, p.executor)
        return body._replace(points=tuple(msg.d_out), sum_proof=b"".join(msg.sum_proof),
                             deck_hash=msg.deck_hash)  # fmt: skip
    ans = sh.answer_challenge(fake, h.n, [r.bit for r in body.answers], p.table.k)
    return body._replace(
        answers=tuple(
            r._replace(scalar=scalar, perm=bytes(perm))
            for r, scalar, perm in zip(body.answers, ans.scalars, ans.perms, strict=True)
        )
    )


def phase_is(*phases: Phase) -> Callable[[HandState], bool]:
    """A ``when`` for :func:`cheat_once`: the hand is in one of ``phases``."""
    return lambda view: view.phase in phases


def discard_not_held(p: PeerProtocol, view: HandState) -> RawMove:
    """A discard of the first card of the deck that is not in the hand."""
    held = set(view.known_cards(p.me))
    card = next(Card.from_index(i) for i in range(52) if Card.from_index(i) not in held)
    h = p.table.hand
    assert h is not None
    return lambda proto: proto._append_and_fold("discard", ev.make("discard", h.number,
                                                                   card.index, ()))  # fmt: skip


def false_gin(p: PeerProtocol, view: HandState) -> Any:
    """Gin, going out with the bot's discard, with the best melds and deadwood left over."""
    move = bot.choose(view, p.me)
    assert isinstance(move, Discard)
    rest = [c for c in view.known_cards(p.me) if c != move.card]
    melds, deadwood = best_arrangement(rest, view.rules)
    assert deadwood  # not a gin
    return Gin(move.card, tuple(melds))


def knock_over_the_limit(p: PeerProtocol, view: HandState) -> Any:
    """A knock with the bot's discard and no melds at all."""
    move = bot.choose(view, p.me)
    assert isinstance(move, Discard)
    return Knock(move.card, ())


def two_moves(p: PeerProtocol, view: HandState) -> RawMove:
    """Pass the upcard, and at once take it back as if it were our turn again."""
    h = p.table.hand
    assert h is not None

    def move(proto: PeerProtocol) -> list[Output]:
        out = proto._append_and_fold(*ev.action_body(PassUpcard(), h.number))
        return out + proto._append_and_fold("take_upcard", ev.make("take_upcard", h.number, ()))

    return move


def chat_flood(p: PeerProtocol, view: HandState) -> RawMove:
    """One chat more than the log allows in a row without an answer (log.md §6)."""

    def move(proto: PeerProtocol) -> list[Output]:
        out: list[Output] = []
        for i in range(MAX_CHAT_RUN + 1):
            out += proto._append_and_fold("chat", ev.make("chat", f"line {i + 1}"))
        return out

    return move


def the_other_choice(p: PeerProtocol, h: HandFold, kind: str, body: Any) -> tuple[str, Any]:
    """A ``twin`` for :func:`cheater`: take the upcard as well as pass it, or the reverse."""
    other = "take_upcard" if kind == "pass_upcard" else "pass_upcard"
    return other, ev.make(other, h.number, ())


def rewrap(wire: bytes) -> bytes:
    """The same signed entry in another (non-canonical) wrapper: str types, array16."""
    packed, sig = ev.decode_wire(wire)
    parts: list[bytes] = [msgpack.packb(x, use_bin_type=False) for x in (packed, sig)]
    return b"\xdc\x00\x02" + b"".join(parts)


def flip_bit(data: bytes, at: int) -> bytes:
    """``data`` with the low bit of byte ``at`` flipped: damage, as a disk or an editor does."""
    out = bytearray(data)
    out[at] ^= 0x01
    return bytes(out)


def shuffle_before_commit() -> type[PeerProtocol]:
    """A peer class that, as the first shuffler of hand 1, shuffles right after its own
    commit, without waiting for the other's (the schedule owes the first shuffle only
    once both commitments are in): the shuffle acks no commit of the other player's."""

    class EarlyShuffler(PeerProtocol):
        _shuffled_early = False

        def _next_auto(self) -> Any:
            step = super()._next_auto()
            t, h = self.table, self.table.hand
            if step is not None or self._shuffled_early or t.cheat is not None:
                return step
            if h is None or h.number != 1 or self.me != h.first or t.game is None:
                return step
            if h.commits[self.me] is None or h.commits[1 - self.me] is not None:
                return step
            self._shuffled_early = True
            return self._make_shuffle(h, t.game)

    return EarlyShuffler
