"""Two :class:`~ginp2p.proto.protocol.PeerProtocol` peers joined in memory, with faults.

The idea is trio's memory streams: a link the tests control completely. Messages can
be dropped, duplicated, reordered and delayed; the link can go down and come back
(each side then says ``have`` and the other resends the missing tail, docs/protocol.md §7); a
peer can be "killed" and restarted from what it had saved. Everything random comes
from the ``random.Random`` given, so a failing case replays exactly.

Each side keeps what a real peer keeps on disk (the saved entries and secrets), so a
restart rebuilds its protocol from those alone.

A test may run both peers with fewer cut-and-choose rounds than the protocol's floor
(``k=2``: the shuffle's proofs are most of a game's cost) by saying so: each peer is
then told the lower floor (``min_k``) it accepts. Nothing else ever lowers it.

The recipes of the attacks of docs/threats.md played over this link are in
:mod:`ginp2p.testing.cheats`. Nothing in a real game imports this module.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import nacl.signing

from ginp2p.game import bot
from ginp2p.game.engine import Action, HandState
from ginp2p.game.rules import RuleSet
from ginp2p.proto.entry import GUEST, HOST, Entry
from ginp2p.proto.outputs import (
    Dropped,
    Output,
    Refused,
    Save,
    SaveAnswer,
    SaveSeeds,
    Send,
    Waiting,
)
from ginp2p.proto.protocol import PeerProtocol
from ginp2p.proto.results import Event
from ginp2p.proto.shuffle import K_DEFAULT, K_MIN

__all__ = [
    "FakeLink", "Faults", "Player", "Side", "bot_player", "dealt", "feed", "linked",
    "make_pair", "role_of", "settle", "step_until", "waiting_since",
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
    k: int = K_DEFAULT,
    claim_timeout: int = 60,
    executor: Any = None,
    host_cls: type[PeerProtocol] = PeerProtocol,
    guest_cls: type[PeerProtocol] = PeerProtocol,
) -> tuple[Side, Side]:
    """A host and a guest with fresh keys (pinned to each other), seeded from ``rng``.
    The host asks for ``k`` cut-and-choose rounds; below ``shuffle.K_MIN`` both peers
    accept that many (the audit of their logs then needs ``min_k=k`` too)."""
    min_k = min(k, K_MIN)
    keys = [nacl.signing.SigningKey(rng.randbytes(32)) for _ in range(2)]
    sides = []
    for me, cls in ((HOST, host_cls), (GUEST, guest_cls)):
        peer_key = bytes(keys[1 - me].verify_key)

        def make(
            me: int = me, cls: type[PeerProtocol] = cls, peer_key: bytes = peer_key, **resume: Any
        ) -> PeerProtocol:
            return cls(
                me, keys[me], rng.randbytes, name=("Ann", "Bob")[me],
                rules=rules if me == HOST else None, k=k, min_k=min_k,
                claim_timeout=claim_timeout, peer_key=peer_key, executor=executor, **resume,
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
    k: int = K_DEFAULT,
    claim_timeout: int = 60,
    executor: Any = None,
) -> FakeLink:
    """A link between two peers of class ``cls``, not started: both get the class (a
    :func:`cheater` deviates only in its role), and everything random comes from
    ``random.Random(seed)``, so up to a cheat a run is entry for entry the honest one's.
    ``k``: the rounds of the shuffle's proofs, as in :func:`make_pair`."""
    rng = random.Random(seed)
    host, guest = make_pair(rules, rng, k=k, claim_timeout=claim_timeout, executor=executor,
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
