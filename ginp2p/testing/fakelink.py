"""Two :class:`~ginp2p.proto.protocol.PeerProtocol` peers joined in memory, with faults.

The idea is trio's memory streams: a link the tests control completely. Messages can
be dropped, duplicated, reordered and delayed; the link can go down and come back
(each side then says ``have`` and the other resends the missing tail, docs/protocol.md §7); a
peer can be "killed" and restarted from what it had saved. Everything random comes
from the ``random.Random`` given, so a failing case replays exactly.

Each side keeps what a real peer keeps on disk (the saved entries and secrets), so a
restart rebuilds its protocol from those alone.

The second half holds the recipes of the attacks of docs/threats.md (a :func:`cheater` peer
that rewrites one entry before signing it, moves for :func:`cheat_once`): the threat
tests and ``scripts/make_corpus.py`` inject every attack the same way. Nothing in a
real game imports this module.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgpack
import nacl.bindings as nb
import nacl.signing

from ginp2p.game import bot
from ginp2p.game.cards import Card
from ginp2p.game.engine import Action, Discard, Gin, HandState, Knock, PassUpcard, Phase
from ginp2p.game.melds import best_arrangement
from ginp2p.game.rules import RuleSet
from ginp2p.proto import events as ev
from ginp2p.proto import shuffle as sh
from ginp2p.proto.log import GUEST, HOST, MAX_CHAT_RUN, Entry, sign_entry
from ginp2p.proto.protocol import (
    Dropped,
    Output,
    PeerProtocol,
    Refused,
    Save,
    SaveAnswer,
    SaveSeeds,
    Send,
    Waiting,
)
from ginp2p.proto.table import Event, HandFold

__all__ = [
    "FakeLink", "Faults", "Player", "RawMove", "Rewrite", "Side", "another_permutation",
    "bad_sum_proof", "bot_player", "change_answers", "change_keys", "cheat_once", "cheater",
    "dealt", "deck_in", "discard_not_held", "duplicate_card", "false_gin", "feed", "flip_bit",
    "knock_over_the_limit", "linked", "make_pair", "phase_is", "proof_ctx", "redeck",
    "retagged", "rewrap", "role_of", "scalar_int", "settle", "step_until", "substitute_card",
    "swap_out", "tag_deck", "the_other_choice", "tweak_scalar", "two_moves", "waiting_since",
    "wrong_key", "wrong_stock_key",
]  # fmt: skip

#: A player: from the protocol's view of the hand to a move (None: no move now).
Player = Callable[[PeerProtocol, HandState], Action | None]


def bot_player(proto: PeerProtocol, view: HandState) -> Action:
    """The computer player, as a link player."""
    return bot.choose(view, proto.me)


@dataclass
class Faults:
    """Probabilities per message (drop, duplicate), of delivering a later message
    first (reorder), and per step of the link going down (disconnect)."""

    drop: float = 0.0
    duplicate: float = 0.0
    reorder: float = 0.0
    disconnect: float = 0.0


@dataclass
class Side:
    """One peer and what it has on disk."""

    proto: PeerProtocol
    make: Callable[..., PeerProtocol]
    saved: list[bytes] = field(default_factory=list)
    seeds: dict[int, tuple[bytes, bytes]] = field(default_factory=dict)
    answered: dict[tuple[int, int], bytes] = field(default_factory=dict)
    events: list[Any] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    sent: int = 0

    def restart(self) -> None:
        """A crash: rebuild the protocol from the saved entries and secrets only."""
        self.proto = self.make(records=list(self.saved), seeds=dict(self.seeds),
                               answered=dict(self.answered))  # fmt: skip


def make_pair(
    rules: RuleSet,
    rng: random.Random,
    *,
    k: int = 20,
    claim_timeout: int = 60,
    executor: Any = None,
    host_cls: type[PeerProtocol] = PeerProtocol,
    guest_cls: type[PeerProtocol] = PeerProtocol,
) -> tuple[Side, Side]:
    """A host and a guest with fresh keys (pinned to each other), seeded from ``rng``."""
    keys = [nacl.signing.SigningKey(rng.randbytes(32)) for _ in range(2)]
    sides = []
    for me, cls in ((HOST, host_cls), (GUEST, guest_cls)):
        peer_key = bytes(keys[1 - me].verify_key)

        def make(
            me: int = me, cls: type[PeerProtocol] = cls, peer_key: bytes = peer_key, **resume: Any
        ) -> PeerProtocol:
            return cls(
                me, keys[me], rng.randbytes, name=("Ann", "Bob")[me],
                rules=rules if me == HOST else None, k=k, claim_timeout=claim_timeout,
                peer_key=peer_key, executor=executor, **resume,
            )  # fmt: skip

        sides.append(Side(make(), make))
    return sides[0], sides[1]


class FakeLink:
    """Delivers messages between two sides, with faults, until the match is over."""

    def __init__(
        self,
        host: Side,
        guest: Side,
        rng: random.Random,
        faults: Faults | None = None,
        players: tuple[Player | None, Player | None] = (bot_player, bot_player),
    ) -> None:
        self.sides = (host, guest)
        self.rng = rng
        self.faults = faults or Faults()
        self.players = players
        self.flight: tuple[list[bytes], list[bytes]] = ([], [])  # messages *to* each side
        self.now = 0.0
        self.up = True
        self.steps = 0

    # -- carrying out outputs --------------------------------------------------------
    def handle(self, me: int, outputs: list[Output]) -> None:
        side = self.sides[me]
        for o in outputs:
            if isinstance(o, Save):
                side.saved.append(o.entry.wire)
            elif isinstance(o, SaveSeeds):
                side.seeds[o.hand] = (o.perm_seed, o.key_seed)
            elif isinstance(o, SaveAnswer):
                side.answered[(o.hand, o.step)] = o.challenge
            elif isinstance(o, Send):
                side.sent += 1
                self.send(1 - me, o.entry.wire)
            elif isinstance(o, Dropped):
                side.dropped.append(o.reason)
            elif isinstance(o, Refused):
                side.refused.append(o.reason)
            else:
                side.events.append(o)

    def send(self, to: int, wire: bytes) -> None:
        if not self.up or self.rng.random() < self.faults.drop:
            return
        self.flight[to].append(wire)
        if self.rng.random() < self.faults.duplicate:
            self.flight[to].append(wire)

    def inject(self, to: int, wire: bytes) -> None:
        """Put raw bytes on the wire to a side (garbage, forgeries, replays)."""
        self.flight[to].append(wire)

    # -- the link -----------------------------------------------------------------
    def start(self) -> None:
        for me in (HOST, GUEST):
            self.handle(me, self.sides[me].proto.start(self.now))

    def resync(self) -> None:
        """The link (re)connects: each side says ``have``, the other sends what is missing."""
        self.up = True
        for me in (HOST, GUEST):
            other = self.sides[1 - me].proto
            for wire in self.sides[me].proto.missing(other.have()):
                self.flight[1 - me].append(wire)

    def disconnect(self) -> None:
        self.up = False
        self.flight[0].clear()
        self.flight[1].clear()

    def deliver_one(self) -> bool:
        """Deliver one message in flight (a random one with the reorder fault)."""
        waiting = [me for me in (HOST, GUEST) if self.flight[me]]
        if not waiting:
            return False
        me = self.rng.choice(waiting)
        q = self.flight[me]
        i = self.rng.randrange(len(q)) if self.rng.random() < self.faults.reorder else 0
        wire = q.pop(i)
        self.handle(me, self.sides[me].proto.receive(wire, self.now))
        return True

    def play_one(self) -> bool:
        """Let a player whose move it is make it."""
        for me in (HOST, GUEST):
            proto = self.sides[me].proto
            player = self.players[me]
            if player is None or not proto.my_turn:
                continue
            view = proto.view()
            if view is None:
                continue
            action = player(proto, view)
            if action is not None:
                self.handle(me, proto.act(action))
                return True
        return False

    def logs_differ(self) -> bool:
        a, b = (s.proto.log for s in self.sides)
        return a.ids() != b.ids()

    def step(self) -> bool:
        """One step of the world; False when nothing can happen any more."""
        self.steps += 1
        self.now += 1.0
        if self.up and self.rng.random() < self.faults.disconnect:
            self.disconnect()
            return True
        if not self.up:
            self.resync()
            return True
        if self.deliver_one():
            return True
        if self.play_one():
            return True
        if self.logs_differ():
            self.resync()
            # nothing to resend (e.g. one side holds an equivocation's twin): settled
            return any(self.flight)
        return False

    def run(self, max_steps: int = 200_000) -> int:
        """Run until nothing more happens; returns the number of steps."""
        self.start()
        while self.steps < max_steps and self.step():
            pass
        return self.steps

    @property
    def events(self) -> tuple[list[Event], list[Event]]:
        return self.sides[0].events, self.sides[1].events


def linked(
    rules: RuleSet,
    seed: int,
    cls: type[PeerProtocol] = PeerProtocol,
    players: tuple[Player | None, Player | None] = (bot_player, bot_player),
    *,
    claim_timeout: int = 60,
    executor: Any = None,
) -> FakeLink:
    """A link between two peers of class ``cls``, not started: both get the class (a
    :func:`cheater` deviates only in its role), and everything random comes from
    ``random.Random(seed)``, so up to a cheat a run is entry for entry the honest one's."""
    rng = random.Random(seed)
    host, guest = make_pair(rules, rng, claim_timeout=claim_timeout, executor=executor,
                            host_cls=cls, guest_cls=cls)  # fmt: skip
    return FakeLink(host, guest, rng, players=players)


def settle(link: FakeLink, limit: int = 20_000) -> None:
    """Step the link until nothing more happens."""
    for _ in range(limit):
        if not link.step():
            return
    raise AssertionError("the link never settles")


def step_until(link: FakeLink, done: Callable[[], bool], limit: int = 20_000) -> None:
    """Step the link until ``done()``; it must not settle first."""
    for _ in range(limit):
        if done():
            return
        if not link.step():
            raise AssertionError("the link settled first")
    raise AssertionError("never happened")


def role_of(link: FakeLink, role: str) -> int:
    """Who played ``role`` in hand 1: "first" (the first shuffler) or "second" (the dealer)."""
    h = link.sides[HOST].proto.table.hands[0]
    return h.first if role == "first" else h.dealer


def dealt(link: FakeLink) -> bool:
    """Both peers have their cards of the hand in play."""
    return all(all(h.dealt) for s in link.sides if (h := s.proto.table.hand) is not None)


def feed(side: Side, author: int) -> list[Entry]:
    """``author``'s entries as ``side`` holds them, by seq."""
    return side.proto.log.since(author, 0)


def waiting_since(side: Side) -> float:
    """Since when ``side`` has been waiting on the other (its last Waiting event)."""
    waits = [e for e in side.events if isinstance(e, Waiting)]
    if not waits:
        raise AssertionError("the side waits on nothing")
    return waits[-1].since


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
            proof = b"".join(sh._prove_sum(p._seeds[h.number], proof_ctx(p, h), deck_in(p, h),
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
    return b"\xdc\x00\x02" + msgpack.packb(packed, use_bin_type=False) + msgpack.packb(
        sig, use_bin_type=False)  # fmt: skip


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
