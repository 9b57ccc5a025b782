"""A property-based adversary: a cheating peer driven by a strategy, against a real
honest :class:`~ginp2p.proto.protocol.PeerProtocol`, over an in-memory link whose clock the
caller controls. Like :mod:`ginp2p.testing.fakelink`, nothing in a real game imports it; the
tests (tests/proto/test_adversary.py, with hypothesis) and ``scripts/adversary.py`` (random
strategies, many games) drive it.

The design, for a contributor:

* **The cheater** is an honest ``PeerProtocol`` (:class:`~ginp2p.testing.worlds.Brain`)
  plus an adversarial layer between its outputs and the wire (:class:`Game`, this
  module: the driver). Everything the brain signs is a valid entry of one consistent
  feed; the layer decides what of it reaches the honest peer, when, in which order and
  how often. The deviations it adds are appended through the brain's own log (claims,
  disputes, openings, chats), so the feed stays a valid chain even when the entry is
  premature or false; the only entries signed outside the feed are equivocation twins,
  garbage and made-up entries far ahead. The brain plays its moves with the greedy
  player; it may lock with per-card keys that do not come from its committed seeds
  (``Brain.fake_lock``: the lock proof still verifies).
* **The honest peer** is an unmodified ``PeerProtocol`` whose player (greedy or random)
  moves as soon as it is its turn, and which claims only when the cheater has owed the
  same entry for longer than the claim timeout, by the runner's own count as well as
  the protocol's. It may crash and resume from what it saved (``records=``, ``seeds=``,
  ``answered=``), or claim and then leave (it hears nothing) until it resumes.
* **A strategy** (:mod:`ginp2p.testing.strategies`) is a world, the cheater's role,
  the honest player, whether the lock is faked, and one deviation per step of the
  world. After the last choice the cheater turns honest in two phases
  (:meth:`Game.finish`): first it still keeps back what it withholds for ever, as a
  real cheater would, and the game goes on until nothing happens (the clock jumps past
  the timeout when idle, so the honest player claims what is overdue); then everything
  it holds is delivered, the link resyncs and the game is played to its end (a
  one-hand match). The properties are checked after each phase.
* **The properties** (:mod:`ginp2p.testing.properties`) are checked after each phase,
  and the honest table after every call into the honest peer, so a verdict against
  the honest player that a later entry would undo is caught too; whatever the honest
  peer raises is a violation (``raises:*``).
* **Named attacks** (:mod:`ginp2p.testing.attacks`): the strategies that broke a
  property so far, as regression tests; ``scripts/adversary.py --known`` plays them.
* **Speed**: peers and audits at k=1 (said to each as ``min_k``), pure functions
  memoised (:mod:`ginp2p.testing.exploring`); each distinct set of records audited once.
"""

from __future__ import annotations

import functools
import math
import random
import traceback
from collections.abc import Callable, Sequence
from typing import Any

from ginp2p.game.engine import HandState, IllegalAction
from ginp2p.game.rules import RuleSet
from ginp2p.proto import events as ev
from ginp2p.proto.claims import Owed
from ginp2p.proto.entry import GUEST, HOST, Entry, H, sign_entry
from ginp2p.proto.log import LogError, claim_body
from ginp2p.proto.outputs import Dropped, Output, Refused, Save, SaveAnswer, SaveSeeds, Send
from ginp2p.proto.protocol import PeerProtocol
from ginp2p.proto.shuffle import K_MIN
from ginp2p.proto.state import PLAY_KINDS
from ginp2p.record.audit import audit_records
from ginp2p.record.report import Report
from ginp2p.testing.exploring import K_EXPLORE
from ginp2p.testing.fakelink import Side
from ginp2p.testing.properties import MAX_FINAL_STEPS, Properties, Violation
from ginp2p.testing.strategies import (
    RULES,
    TIMEOUT,
    Chat,
    Choice,
    Claim,
    Deaf,
    Deliver,
    Dispute,
    Equivocate,
    Garbage,
    Honest,
    Leave,
    OpenSeeds,
    Reconnect,
    Refuse,
    Resend,
    Resign,
    Restart,
    Resume,
    Stall,
    Strategy,
    Wait,
    Withhold,
)
from ginp2p.testing.worlds import Brain, player_of, world_key, world_rng

__all__ = ["Game", "baseline", "play"]


class Game(Properties):
    """One game between an honest peer and a cheater driven by ``strategy``."""

    def __init__(self, strategy: Strategy, rules: RuleSet = RULES, k: int = K_EXPLORE,
                 timeout: int = TIMEOUT) -> None:  # fmt: skip
        self.strategy = s = strategy
        self.timeout = timeout
        self.c = c = s.cheater
        self.h = h = 1 - c
        self.min_k = min_k = min(k, K_MIN)  # the rounds this game's peers and audits accept
        keys = (world_key(s.world, HOST), world_key(s.world, GUEST))
        rngs = (world_rng(s.world, HOST), world_rng(s.world, GUEST))

        def make(me: int, cls: type[PeerProtocol], **resume: Any) -> PeerProtocol:
            return cls(me, keys[me], rngs[me], name=("Ann", "Bob")[me], min_k=min_k,
                       rules=rules if me == HOST else None, k=k, claim_timeout=timeout,
                       peer_key=bytes(keys[1 - me].verify_key), **resume)  # fmt: skip

        self.honest = Side(make(h, PeerProtocol), lambda **kw: make(h, PeerProtocol, **kw))
        brain = make(c, Brain)
        assert isinstance(brain, Brain)
        brain.fake_lock = s.fake_lock
        self.brain = brain
        self.cheater = Side(brain, lambda **kw: brain)  # the cheater never restarts
        self.player = player_of(s.honest_player, s.world)
        self.cheater_player = player_of("greedy", 0)
        self.now = 0.0
        self.step_no = 0
        self.activity = 0  # entries saved or sent so far (both sides): progress
        self.outbox: list[Entry] = []  # signed by the cheater, not sent yet
        self.inbox: list[bytes] = []  # from the honest peer, not read by the brain yet
        self.withheld: dict[bytes, float] = {}  # entry id -> the step it is held until
        self.sent: list[bytes] = []
        self.deaf_until = 0
        self.stall_until = 0
        self.armed_claims: Claim | None = None
        self.refusing: set[str] = set()
        self.leave_armed = False
        self.left = False
        self.left_at = 0.0
        self.extras = 0  # entries the cheater made beyond an honest game's
        self.honest_claims = 0
        self.violations: list[Violation] = []
        self.final = False
        self.settled = False
        self._owed_sig: Any = None  # what the cheater owes, by the runner's count
        self._owed_since = 0.0
        self._audits: dict[frozenset[bytes], Report] = {}

    def audit(self, records: Sequence[bytes]) -> Report:
        """The audit of ``records`` at this game's rounds (each set of records once)."""
        key = frozenset(records)
        report = self._audits.get(key) or audit_records(records, min_k=self.min_k)
        return self._audits.setdefault(key, report)

    def _carry(self, side: Side, outs: list[Output], send: Callable[[Entry], None]) -> None:
        """Carry out a peer's outputs, in order: what it saves goes to its files."""
        for o in outs:
            if isinstance(o, Save):
                side.saved.append(o.entry.wire)
                self.activity += 1
            elif isinstance(o, SaveSeeds):
                side.seeds[o.hand] = (o.perm_seed, o.key_seed)
            elif isinstance(o, SaveAnswer):
                side.answered[(o.hand, o.step)] = o.challenge
            elif isinstance(o, Send):
                self.activity += 1
                send(o.entry)
            elif isinstance(o, Dropped):
                side.dropped.append(o.reason)
            elif isinstance(o, Refused):
                side.refused.append(o.reason)
            else:
                side.events.append(o)

    def _honest_out(self, outs: list[Output]) -> None:
        self._carry(self.honest, outs, lambda e: self.inbox.append(e.wire))

    def _brain_out(self, outs: list[Output]) -> None:
        """The brain's entries go to the outbox (the layer decides when they are sent);
        entries of a refused kind are kept back for ever; armed claims follow a move."""
        moved = False

        def hold(e: Entry) -> None:
            nonlocal moved
            self.outbox.append(e)
            moved = moved or e.kind in ev.ACTION_KINDS
            if e.kind in self.refusing or "all" in self.refusing:
                self.withheld[e.id] = math.inf

        self._carry(self.cheater, outs, hold)
        if moved and self.armed_claims is not None:  # right after the move's entries
            claims, self.armed_claims = self.armed_claims, None
            self._claims(claims)

    def _honest_call(self, what: str, call: Callable[[], list[Output]]) -> None:
        """Call the honest protocol; whatever it raises is a violation."""
        try:
            outs = call()
        except Exception as exc:
            where = traceback.extract_tb(exc.__traceback__)[-1]
            self.violate(f"raises:{what}", f"{type(exc).__name__}: {exc} at "
                                           f"{where.filename}:{where.lineno}")  # fmt: skip
            return
        self._honest_out(outs)
        self.watch_honest()

    def _brain_call(self, what: str, call: Callable[[], list[Output]]) -> bool:
        """Call the brain; a deviation it cannot make (its feed forked, a move not allowed
        now) is skipped. Anything else it raises is a violation too: it is a peer."""
        try:
            outs = call()
        except (LogError, ev.LocalProtocolError, IllegalAction):
            return False
        except Exception as exc:
            where = traceback.extract_tb(exc.__traceback__)[-1]
            self.violate(
                f"raises:cheater-{what}",
                f"{type(exc).__name__}: {exc} at {where.filename}:{where.lineno}",
            )
            return False
        self._brain_out(outs)
        return True

    # -- the wire ---------------------------------------------------------------------
    def _send(self, wire: bytes) -> None:
        """Bytes from the cheater to the honest peer (lost while it has left)."""
        self.sent.append(wire)
        self.activity += 1
        if self.left:
            return
        p = self.honest.proto
        self._honest_call("receive", lambda: p.receive(wire, self.now))

    def _held(self, e: Entry) -> bool:
        return self.withheld.get(e.id, -1.0) > self.step_no

    def _pending(self) -> list[Entry]:
        return [e for e in self.outbox if not self._held(e)]

    def _deliver(self, n: int, order: str = "fifo", dup: int = -1) -> None:
        pending = self._pending()
        batch = pending if n == 0 else pending[:n]
        if not batch:
            return
        ids = {e.id for e in batch}
        self.outbox = [e for e in self.outbox if e.id not in ids]
        if order == "reverse":
            batch = batch[::-1]
        elif order == "second-last" and len(batch) > 2:
            batch = [batch[0], *batch[2:], batch[1]]
        elif order == "last-first":
            batch = [batch[-1], *batch[:-1]]
        elif order == "shuffle":
            random.Random(self.step_no).shuffle(batch)
        for i, e in enumerate(batch):
            self._send(e.wire)
            if i == dup:
                self._send(e.wire)

    def _reconnect(self) -> None:
        """Both sides say ``have``; each sends what the other lacks (the cheater keeps
        back what it withholds)."""
        if self.left:
            return
        hp, bp = self.honest.proto, self.brain
        self.inbox += hp.missing(bp.have())
        lacking = [Entry.from_wire(w, min_k=self.min_k) for w in bp.missing(hp.have())]
        lacking = [e for e in lacking if not self._held(e)]
        ids = {e.id for e in lacking}
        self.outbox = [e for e in self.outbox if e.id not in ids]
        for e in lacking:
            self._send(e.wire)

    # -- the cheater ------------------------------------------------------------------
    def _claims(self, choice: Claim) -> None:
        b = self.brain
        if b.log.game is None:
            return
        owed = b.table.owes(self.h)
        if owed is None:
            owed = Owed(self.h, PLAY_KINDS, "a move")
        if choice.false:
            kinds = frozenset({"open"}) if "stock_key" in owed.kinds else frozenset({"stock_key"})
            owed = Owed(self.h, kinds, "an entry it does not owe")
        elif choice.part and len(owed.kinds) > 1:  # the kind least likely to be played
            owed = Owed(self.h, frozenset({max(owed.kinds, key=ev.CODE.__getitem__)}), "part")
        for _ in range(choice.count):
            if not self._brain_call(
                "claim", lambda: b._append_and_fold("claim", claim_body(b.log, b.me, owed))
            ):
                return
            self.extras += 1

    def _append(self, kind: str, body: Any) -> None:
        if self._brain_call(kind, lambda: self.brain._append_and_fold(kind, body)):
            self.extras += 1

    def _cheater_turn(self) -> None:
        """What the brain does by itself each step: read, then play its moves."""
        b = self.brain
        if self.final or self.step_no >= self.deaf_until:
            inbox, self.inbox = self.inbox, []
            for wire in inbox:
                self._brain_call("receive", functools.partial(b.receive, wire, self.now))
        if self.step_no < self.stall_until and not self.final:
            return
        for _ in range(8):
            if not b.my_turn:
                break
            view = b.view()
            if view is None or not self._brain_call("act", functools.partial(self._move, view)):
                break

    def _move(self, view: HandState) -> list[Output]:
        return self.brain.act(self.cheater_player(self.brain, view))

    def apply(self, choice: Choice) -> None:
        """Carry out one deviation (the step's other events follow in :meth:`step`)."""
        b = self.brain
        if isinstance(choice, Deliver):
            self._deliver(choice.n, choice.order, choice.dup)
        elif isinstance(choice, Honest):
            for _ in range(choice.steps - 1):
                self._deliver(0)
                self.step(None)
            self._deliver(0)
        elif isinstance(choice, Withhold):
            pending = self._pending()
            if pending:
                e = pending[choice.index % len(pending)]
                self.withheld[e.id] = self.step_no + choice.steps if choice.steps else math.inf
        elif isinstance(choice, Refuse):
            self.refusing.add(choice.kind)
            for e in self.outbox:
                if choice.kind in (e.kind, "all"):
                    self.withheld[e.id] = math.inf
        elif isinstance(choice, Resend):
            if self.sent:
                self._send(self.sent[-1 - choice.back % len(self.sent)])
        elif isinstance(choice, Claim):
            if choice.after_move:
                self.armed_claims = choice
            else:
                self._claims(choice)
        elif isinstance(choice, Dispute):
            feed = b.log.since(self.h, 0)
            if feed and b.log.game is not None:
                target = feed[choice.index % len(feed)]
                self._append("dispute", ev.make("dispute", target.id, "not-a-card",
                                                "it does not check out", []))  # fmt: skip
        elif isinstance(choice, Equivocate):
            self._equivocate(choice)
        elif isinstance(choice, Garbage):
            self._garbage(choice)
        elif isinstance(choice, Deaf):
            self.deaf_until = self.step_no + choice.steps
        elif isinstance(choice, Stall):
            self.stall_until = self.step_no + choice.steps
        elif isinstance(choice, Wait):
            self.now += choice.seconds
        elif isinstance(choice, Reconnect):
            self._reconnect()
        elif isinstance(choice, Restart):
            if not self.left:
                self._restart()
        elif isinstance(choice, Leave):
            self.leave_armed = True
        elif isinstance(choice, Resume):
            if self.left:
                self._resume()
        elif isinstance(choice, OpenSeeds):
            h = b.table.hand
            if h is not None and h.number in b._seeds and b.log.game is not None:
                s = b._seeds[h.number]
                self._append("open", ev.make("open", h.number, s.perm_seed, s.key_seed))
        elif isinstance(choice, Chat):
            for i in range(choice.count):
                if b.log.game is None or not self._brain_call(
                    "chat", functools.partial(b.chat, f"hi {i}")
                ):
                    break
                self.extras += 1
        elif isinstance(choice, Resign):
            m = b.table.match
            if m is not None and not m.over:
                self._brain_call("resign", lambda: b.resign("the adversary resigns"))

    def _equivocate(self, choice: Equivocate) -> None:
        b = self.brain
        feed = [e for e in b.log.since(self.c, 1)]
        if not feed:
            return
        e = feed[-1 - choice.back % len(feed)]
        for i in range(choice.count):
            body = ev.make("chat", f"twin {i} of {e.seq}")
            self.outbox.append(sign_entry(b.key, e.fields._replace(kind="chat", body=body)))
            self.extras += 1

    def _garbage(self, choice: Garbage) -> None:
        b = self.brain
        wires = [e.wire for e in self.outbox] + self.sent
        if choice.kind == "bad-ack":  # the brain's own next entry, acking a made-up id

            def append() -> list[Output]:
                fields = b.log.next_fields(self.c, "chat", ev.make("chat", "a made-up ack"))
                if fields.ack_seq == 0:
                    return []
                bad = sign_entry(b.key, fields._replace(ack_id=H("made-up", fields.ack_id)[:32]))
                b.log.add_entry(bad)
                out: list[Output] = [Save(bad), Send(bad)]
                b._refresh(out)
                return out

            if b.log.game is not None and self._brain_call("bad-ack", append):
                self.extras += 1
            return
        if choice.kind == "ahead":
            feed = b.log.since(self.c, 0)
            if b.log.game is None or not feed:
                return
            last = feed[-1]
            fields = last.fields._replace(
                seq=last.seq + 100 + choice.index,
                prev=H("made-up", bytes([choice.index]))[:32],
                kind="chat",
                body=ev.make("chat", "from ahead"),
            )
            self._send(sign_entry(b.key, fields).wire)
            self.extras += 1
            return
        if choice.kind == "bytes" or not wires:
            data = random.Random(choice.index).randbytes(1 + choice.index)
        else:
            wire = wires[choice.index % len(wires)]
            if choice.kind == "flip":
                at = choice.index * 7 % len(wire)
                data = wire[:at] + bytes([wire[at] ^ 1]) + wire[at + 1 :]
            else:
                data = wire[: len(wire) * (choice.index % 4 + 1) // 5]
        self._send(data)

    # -- the honest side ----------------------------------------------------------------
    def _claim_due(self) -> bool:
        """Whether the cheater has owed the same entry for longer than the timeout, by the
        runner's count (the protocol's ``claimable`` must agree)."""
        p = self.honest.proto
        o = p.table.owes(self.c)
        m = p.table.match
        moves = len(m.hand.moves) if m is not None and m.hand is not None else -1
        sig = None if o is None else (o.kinds, o.what, moves)
        if sig != self._owed_sig:
            self._owed_sig, self._owed_since = sig, self.now
        if sig is None or self.now - self._owed_since < self.timeout:
            return False
        return p.claimable(self.now) is not None

    def _honest_turn(self) -> None:
        if self.left:
            return
        p = self.honest.proto
        self._honest_call("tick", lambda: p.tick(self.now))
        if self._claim_due():
            self._honest_call("claim", lambda: p.claim(self.now))
            self.honest_claims += 1
            if self.leave_armed:
                self.left, self.leave_armed, self.left_at = True, False, self.now
                return
        for _ in range(8):
            p = self.honest.proto
            if not p.my_turn:
                break
            view = p.view()
            if view is None:
                break
            action = self.player(p, view)
            before = len(self.honest.saved)
            self._honest_call("act", functools.partial(p.act, action))
            if len(self.honest.saved) == before:
                break

    def _restart(self, since: float | None = None) -> None:
        """The honest peer is rebuilt from its files (last written at ``since``: a crash
        now, or when it left), as a session does, then resyncs."""
        try:
            self.honest.restart()
        except Exception as exc:
            self.violate("raises:restart", f"{type(exc).__name__}: {exc}")
            return
        p = self.honest.proto
        away = getattr(p, "away", None)  # (a peer that knows when its files stopped)
        if callable(away):
            away(self.now if since is None else since)
        self._honest_call("start", lambda: p.start(self.now))
        self._reconnect()
        if callable(away):
            away(None)  # caught up, as a session says once the resync is read

    def _resume(self) -> None:
        """The claimant that left comes back: first, nothing the cheater signed meanwhile
        may have made it the loser; then it restarts, resyncs and must still not be."""
        self.check_left()
        self.left = False
        self._restart(self.left_at)
        p = self.honest.proto
        lost = p.table.forfeited
        if lost is not None and lost[0] == self.h:
            self.violate("left-claimant-lost", f"after resuming, the honest table says the "
                                               f"honest player lost by {lost[1]}")  # fmt: skip

    # -- running ------------------------------------------------------------------------
    def start(self) -> None:
        self._brain_out(self.brain.start(self.now))
        p = self.honest.proto
        self._honest_call("start", lambda: p.start(self.now))

    def step(self, choice: Choice | None) -> None:
        """One step of the world: the clock, the deviation, the brain, the honest peer."""
        self.step_no += 1
        self.now += 1.0
        if choice is not None:
            self.apply(choice)
        self._cheater_turn()
        if self.final:
            self._deliver(0)
        self._honest_turn()

    def finish(self) -> None:
        """The cheater turns honest. First it still keeps back what it withholds for ever
        (as a real cheater would): the game is played on until nothing happens, with the
        clock jumping past the timeout when idle (the honest player then claims what is
        overdue), and properties 1, 2, 3 (the honest file) and 5 are checked. Then every
        entry it holds is delivered, the link resyncs, and the game is played to its end."""
        if self.left:
            self._resume()
        self.final = True
        self.armed_claims, self.leave_armed = None, False
        self.deaf_until = self.stall_until = 0
        self.withheld = {i: until for i, until in self.withheld.items() if math.isinf(until)}
        if self.withheld or self.refusing:
            self._reconnect()
            self._settle()
            self.check(None, merged=False)
            self.withheld.clear()
            self.refusing.clear()
        for wire in list(self.cheater.saved):  # every entry the cheater holds
            if Entry.from_wire(wire, min_k=self.min_k).author == self.c:
                self._send(wire)
        self._deliver(0)
        self._reconnect()
        self._settle()

    def _settle(self) -> None:
        """Step until nothing happens even after the clock jumped past the timeout."""
        idle = False
        self.settled = False
        for _ in range(MAX_FINAL_STEPS):
            before = self.activity
            self.step(None)
            if self.activity != before or self.inbox:
                idle = False
            elif idle:
                self.settled = True
                return
            else:
                idle = True
                self.now += self.timeout + 1

    def run(self, baseline: Game | None = None) -> list[Violation]:
        """Play the strategy to the game's end and check every property."""
        self.start()
        for choice in self.strategy.choices:
            self.step(choice)
        self.finish()
        self.check(baseline)
        return self.violations


# ---------------------------------------------------------------- entry points

_BASELINES: dict[tuple[int, int, str], Game] = {}


def baseline(strategy: Strategy) -> Game:
    """The game of ``strategy``'s world, roles and players with no deviation (memoised)."""
    key = (strategy.world, strategy.cheater, strategy.honest_player)
    if key not in _BASELINES:
        game = Game(Strategy(strategy.world, strategy.cheater, strategy.honest_player))
        game.run()
        _BASELINES[key] = game
    return _BASELINES[key]


def play(strategy: Strategy) -> Game:
    """Play ``strategy`` against an honest peer and check every property; the
    violations are in ``game.violations`` (an error of this module's own, not of a peer,
    is one too: ``runner-error``). Faster inside :func:`exploring_shuffle`."""
    game = Game(strategy)
    try:
        game.run(baseline(strategy))
    except Exception as exc:
        where = traceback.extract_tb(exc.__traceback__)[-1]
        game.violate("runner-error", f"{type(exc).__name__}: {exc} at "
                                     f"{where.filename}:{where.lineno}")  # fmt: skip
    return game
