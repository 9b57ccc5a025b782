"""Two :class:`~ginp2p.protocol.PeerProtocol` peers joined in memory, with faults.

The idea is trio's memory streams: a link the tests control completely. Messages can
be dropped, duplicated, reordered and delayed; the link can go down and come back
(each side then says ``have`` and the other resends the missing tail, DESIGN §5); a
peer can be "killed" and restarted from what it had saved. Everything random comes
from the ``random.Random`` given, so a failing case replays exactly.

Each side keeps what a real peer keeps on disk (the saved entries and secrets), so a
restart rebuilds its protocol from those alone.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import nacl.signing

from . import bot
from . import events as ev
from .engine import Action, HandState
from .log import GUEST, HOST, Entry, sign_entry
from .protocol import (
    Dropped,
    Output,
    PeerProtocol,
    Refused,
    Save,
    SaveAnswer,
    SaveSeeds,
    Send,
)
from .rules import RuleSet
from .table import Event, HandFold

__all__ = ["FakeLink", "Faults", "RawMove", "Rewrite", "Side", "bot_player", "cheater", "make_pair"]

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
                out.append(Send(sign_entry(self.key, entry.fields._replace(kind=kind2,
                                                                           body=body2))))
            return entry

        def act(self, action: Any, **_: Any) -> list[Output]:
            if callable(action):
                return list(action(self))
            h, full = self.table.hand, self.table.hand_state()
            assert h is not None and full is not None
            return self._append_and_fold(*ev.action_body(action, h.number,
                                                         self._reveal(full, h, action)))

    return Cheater
