"""A cheating ginp2p peer, for the two-process fuzz (tests/test_fuzz_net.py).

``python tests/cheating_peer.py PYTHON -m ginp2p bot ...`` runs ``ginp2p bot`` as usual
(pairing, files, the session, the real ZeroMQ transport), deviating as the plan in the
environment variable ``GINP2P_CHEAT`` (JSON, drawn by ``draw_plan``) says:

* what it sends: its entries withheld (resync must bring them), duplicated, re-wrapped,
  swapped with the next one, replayed later, all of them resent after each reconnection;
* on the clock: garbage frames, ``have 0 0`` (send me everything), chats (some with
  terminal escapes), claims at once while the other player owes (no timeout waited),
  the connection dropped (host: every connection; guest: its socket reconnects);
* its moves: delayed a little (short stalls), or back-dated past a claim against it
  (not acking it, as if the two had crossed);
* at most one *ender* (``ENDERS``), a deviation that may end the match, once the
  cheater has made the plan's ``after`` moves: a claim appended just before the move
  that makes it owed (``preclaim``); the move, then at once a claim of what it makes
  owed, the claim sent first (``snap-claim``); a burst of 2 to 12 claims naming parts
  of what is owed and other kinds (``decoys``); a stall past the claim timeout
  (``long-stall``); or a protocol cheat (``cheat``): one of the threat tests' cheaters
  from :mod:`ginp2p.testing.fakelink` (``RECIPES``), or a lock with per-card keys off its
  seeds followed by a false dispute of the other player's deal keys.

One more deviation is no fuzz ender (a test asks for it by name, ``lying-bye``): once the
hand is dealt and the cheater has made the plan's ``after`` moves, a ``bye`` with the
words of a host that does not know the other player's key, and then it plays on (and
claims, where the other player stopped answering).

Everything it chooses comes from one ``random.Random`` seeded by the plan (the timing
of two processes does not repeat exactly). Each deviation is printed once per kind
(``cheat: ...``) and counted at the end, so that the output of a failing seed says
what the cheater did.
"""

from __future__ import annotations

import asyncio
import atexit
import collections
import contextlib
import json
import os
import random
import sys
import time
from collections.abc import Callable
from typing import Any

from ginp2p import cli
from ginp2p.app import players, session
from ginp2p.app import setup as game
from ginp2p.app.seat import Seat
from ginp2p.game import engine
from ginp2p.net.transport import GuestEndpoint, HostEndpoint, _tcp
from ginp2p.present.commands import Act
from ginp2p.proto import events as ev
from ginp2p.proto import shuffle as sh
from ginp2p.proto.claims import Owed
from ginp2p.proto.entry import sign_entry
from ginp2p.proto.events import LocalProtocolError
from ginp2p.proto.frames import NET_VERSION, ByeFrame, EntryFrame, HaveFrame
from ginp2p.proto.link import UNKNOWN_KEY_REASON
from ginp2p.proto.log import Outcome, claim_body
from ginp2p.proto.outputs import Save, Send
from ginp2p.proto.protocol import PeerProtocol
from ginp2p.proto.state import PLAY_KINDS
from ginp2p.testing import cheats as fl

#: Protocol-level cheats (the threat tests' recipes), by name: each deviates in hand 1
#: when the cheater plays its role there, so some plans carry one that never fires.
RECIPES: dict[str, Callable[[], type[PeerProtocol]]] = {
    "tag": lambda: fl.cheater("shuffle", fl.redeck(fl.tag_deck)),
    "duplicate-point": lambda: fl.cheater(
        "shuffle", fl.redeck(fl.duplicate_card, reprove=False), role="second"
    ),
    "bad-sum-proof": lambda: fl.cheater("shuffle", fl.bad_sum_proof),
    "bad-answers": lambda: fl.cheater("answers", fl.change_answers(fl.tweak_scalar)),
    "swapped-lock": lambda: fl.cheater("lock", fl.swap_out, role="second"),
    "wrong-deal-key": lambda: fl.cheater("keys", fl.change_keys("keys", fl.wrong_key)),
    "wrong-stock-key": lambda: fl.cheater("stock_key", fl.wrong_stock_key),
    "another-permutation": lambda: fl.cheater("shuffle answers", fl.another_permutation),
    "equivocation": lambda: fl.cheater("pass_upcard take_upcard", twin=fl.the_other_choice),
    "no-answers": lambda: fl.cheater("answers", refuse=True),
    "shuffle-before-commit": fl.shuffle_before_commit,
    "fake-lock-dispute": lambda: _FakeLock,
}

#: Per-send probabilities, per-tick probabilities (a tick is 0.2 s), per-move ones.
SEND_P = ("drop", "dup", "rewrap", "hold")
TICK_P = ("replay", "garbage", "have0", "chat", "claim", "cut")
MOVE_P = ("stall",)
#: Deviations that may well end the match (a cheat, a false claim, a claim against the
#: staller): at most one a plan, after its ``after``-th move of play, so that the
#: others have a game to work on first.
ENDERS = ("preclaim", "snap-claim", "decoys", "long-stall", "cheat")
#: The bye a host pairing to an unknown key sends, sent mid-hand by a peer that knows
#: the other player well (not drawn by the fuzz: a test names it as the plan's ender).
LYING_BYE = "lying-bye"
#: Moves after which the other player owes the next entry (what a pre-claim names).
HANDING_OVER = {"discard", "pass_upcard", "draw_stock", "knock", "gin", "big_gin"}
MAX_CLAIMS = 24  # claims of any sort, per run
#: At most this many of a deviation per run: each withheld entry, cut connection or
#: stall may cost the game a resync round or a few seconds, and the fuzz is short.
CAPS = {"drop": 3, "cut": 3, "stall": 3}


def draw_plan(seed: int, timeout: int, ender: str | None) -> dict[str, Any]:
    """A random deviation plan with the given ender: which side cheats, how, how often
    (JSON-able)."""
    rng = random.Random(seed)
    role = rng.choice(["host", "guest"])
    p = {name: rng.choice([0.0, 0.0, 0.05, 0.15, 0.3]) for name in SEND_P}
    p["drop"] = min(p["drop"], 0.05)  # each withheld entry may cost a resync round (2 s)
    p.update({name: rng.choice([0.0, 0.03, 0.1]) for name in TICK_P})
    p.update({name: rng.choice([0.0, 0.1, 0.3]) for name in MOVE_P})
    return {
        "seed": seed,
        "role": role,
        "timeout": timeout,
        "ender": ender,
        "after": rng.randint(0, 8),
        "cheat": rng.choice(sorted(RECIPES)) if ender == "cheat" else None,
        "p": p,
        "backdate": rng.random() < 0.5,
        "relink_replay": rng.random() < 0.5,
        "target": rng.choice([1, 1, 1, 10]),  # a hand or two
        "proxy": {"every": rng.randint(5000, 20000), "drops": rng.randint(1, 4)}
        if rng.random() < 0.5
        else None,
        # a guest cheater may die (kill -9) before its N-th entry goes out, and resume
        "crash": f"send:{rng.randint(3, 12)}" if role == "guest" and rng.random() < 0.3 else None,
        "run": 0,
    }


class _FakeLock(PeerProtocol):
    """Locks hand 1 with per-card keys that do not come from its committed key seed (the
    lock proof verifies all the same: it proves knowledge of *some* keys) and keeps
    using them; once the hand is dealt, it disputes the other player's deal keys, which
    its false keys read as no cards (``_dispute_the_deal``)."""

    faked = False
    disputed = False

    def _make_lock(self, h: Any, game: bytes) -> Any:
        if h.number == 1 and not self.faked:
            real = self._seeds[h.number]
            fake = sh.HandSecrets(real.perm_seed, real.key_seed)
            other = sh.H("tests/cheating-peer/fake-keys", real.key_seed)[:32]
            fake._keys.update({pos: sh.scalar(other, "card", pos) for pos in range(h.n)})
            self._seeds[h.number] = fake
            self.faked = True
        return super()._make_lock(h, game)


async def _dispute_the_deal(s: session.Session) -> None:
    """A fake locker's false dispute of the other player's deal keys."""
    p = s.proto
    h = p.table.hand
    if not isinstance(p, _FakeLock) or not p.faked or p.disputed or h is None or \
            not all(h.dealt) or p.table.cheat is not None:  # fmt: skip
        return
    theirs = [e for e in p.log.since(p.opponent, 0) if e.kind == "keys" or
              (e.kind == "lock" and e.body.deal_keys)]  # fmt: skip
    if theirs:
        p.disputed = True
        D.note("false-dispute", "of the deal keys, after a lock with keys off its seeds")
        body = ev.make("dispute", theirs[-1].id, "not-a-card", "a key that opens no card", [])
        await s._carry(p._append_and_fold("dispute", body))


# ------------------------------------------------------------------------ the deviations


class Deviant:
    """The plan, the random source and what was done."""

    def __init__(self, plan: dict[str, Any]) -> None:
        self.plan = plan
        self.rng = random.Random(f"{plan['seed']}/{plan['run']}")
        self.p: dict[str, float] = plan["p"]
        self.done: collections.Counter[str] = collections.Counter()
        self.fired: collections.Counter[str] = collections.Counter()
        self.held: list[tuple[EntryFrame, float]] = []
        self.claims = 0
        self.stalls: dict[tuple[int, int], float] = {}
        self.backdated: set[bytes] = set()
        self.ended = False  # the plan's ender has fired
        self.proto: PeerProtocol | None = None  # this peer's protocol, once it is made

    def chance(self, name: str) -> bool:
        if self.fired[name] >= CAPS.get(name, 1 << 30):
            return False
        yes = self.rng.random() < self.p.get(name, 0.0)
        self.fired[name] += yes
        return yes

    def ender(self, name: str, p: PeerProtocol) -> bool:
        """Whether the plan's ender ``name`` fires now (once, after its move)."""
        if self.plan["ender"] != name or self.ended:
            return False
        moves = sum(e.kind in ev.ACTION_KINDS for e in p.log.since(p.me, 0))
        self.ended = moves >= self.plan["after"]
        return self.ended

    def note(self, what: str, detail: str = "") -> None:
        if not self.done[what]:
            print(f"cheat: {what} {detail}".rstrip(), flush=True)
        self.done[what] += 1

    def summary(self) -> None:
        print("cheat: done " + json.dumps(dict(sorted(self.done.items()))), flush=True)


D: Deviant


def protocol_class() -> type[PeerProtocol]:
    base: type[PeerProtocol] = RECIPES[D.plan["cheat"]]() if D.plan["cheat"] else PeerProtocol

    class Fuzzed(base):  # type: ignore[valid-type, misc]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            D.proto = self  # the player sees only its seat; the cheater reaches past it

        def _append(self, kind: str, body: Any, out: list[Any]) -> Any:
            if D.plan["backdate"] and kind not in ("claim", "dispute", "resign", "chat"):
                entry = _backdated(self, kind, body, out)
                if entry is not None:
                    return entry
            return super()._append(kind, body, out)

    return Fuzzed


def _backdated(p: PeerProtocol, kind: str, body: Any, out: list[Any]) -> Any:
    """The first entry after a claim against us, signed as if the claim had not come:
    its ack stops just before the claim (never behind our last ack)."""
    claims = [e for e in p.log.since(p.opponent, 0)
              if e.kind == "claim" and getattr(e.body, "owed_author", None) == p.me]  # fmt: skip
    if not claims or claims[-1].id in D.backdated:
        return None
    c = claims[-1]
    fields = p.log.next_fields(p.me, kind, body)
    mine = p.log.since(p.me, 0)
    floor = mine[-1].ack_seq if mine else 0
    before = p.log.at(p.opponent, c.seq - 1)
    if fields.ack_seq < c.seq or floor > c.seq - 1 or not before:
        return None
    D.backdated.add(c.id)
    entry = sign_entry(p.key, fields._replace(ack_seq=c.seq - 1, ack_id=before[0].id))
    if p.log.add_entry(entry).outcome is not Outcome.NEW:
        return None
    D.note("backdate", f"{kind} past the claim at seq {c.seq}")
    out += [Save(entry), Send(entry)]
    return entry


_real_send = session.Session._send
_real_tick = session.Session._on_tick
_real_command = session.Session._on_command
_real_net = session.Session._on_net
_real_next = players.BotPlayer.next_command


async def _send(self: session.Session, frame: Any) -> bool:
    if not isinstance(frame, EntryFrame):
        return await _real_send(self, frame)
    if D.chance("drop"):
        D.note("withhold")
        return True
    if not D.held and D.chance("hold"):
        D.note("reorder")
        D.held.append((frame, time.monotonic()))
        return True
    ok = await _real_send(self, frame)
    if D.chance("dup"):
        D.note("duplicate")
        await _real_send(self, frame)
    if D.chance("rewrap"):
        D.note("rewrap")
        await _real_send(self, EntryFrame(fl.rewrap(frame.wire)))
    while D.held:
        await _real_send(self, D.held.pop()[0])
    return ok


async def _carry_claims(s: session.Session, bodies: list[Any]) -> None:
    for body in bodies:
        D.claims += 1
        await s._carry(s.proto._append_and_fold("claim", body))


async def _on_tick(self: session.Session) -> None:
    await _real_tick(self)
    if self.result is not None:
        return
    p, now = self.proto, time.monotonic()
    if D.held and now - D.held[0][1] > 0.6:
        await _real_send(self, D.held.pop()[0])
    if not self.link_up or p.log.game is None:
        return
    await _dispute_the_deal(self)
    mine = p.log.since(p.me, 0)
    if mine and D.chance("replay"):
        D.note("replay")
        await _real_send(self, EntryFrame(D.rng.choice(mine).wire))
    if D.chance("garbage"):
        D.note("garbage")
        wire = D.rng.choice(mine).wire if mine else b"\x92"
        junk = D.rng.choice([
            D.rng.randbytes(D.rng.randint(0, 400)), fl.flip_bit(wire, D.rng.randrange(len(wire))),
            wire[: len(wire) // 2], wire + b"\x00", b"\xc1" * 70_000,
        ])  # fmt: skip
        await _real_send(self, EntryFrame(junk))
    if D.chance("have0"):
        D.note("have0")
        await _real_send(self, HaveFrame(NET_VERSION, 0, 0, True))
    if D.chance("chat"):
        D.note("chat")
        text = D.rng.choice(["hi", "\x1b[2J\x1b[Hyou lost", "good luck\r\x07", "x" * 500])
        with contextlib.suppress(LocalProtocolError):  # the run of lines is full
            await self._carry(p.chat(text))
    playing = p.table.match is not None and not p.finished and p.table.cheat is None
    if playing and D.claims < MAX_CLAIMS and D.chance("claim"):
        owed = p.table.owes(p.opponent)
        if owed is not None:
            D.note("early-claim", f"that the other owes {owed.what}")
            with_time = self.now() + 10**6  # as if the timeout had long passed
            try:
                await _carry_claims(self, [claim_body(p.log, p.me, p.claimable(with_time) or owed)])
            except Exception as exc:  # a refused claim: a deviation that did not fire
                D.note("claim-refused", str(exc))
    hand = p.table.hand
    if playing and hand is not None and all(hand.dealt) and D.ender(LYING_BYE, p):
        D.note(LYING_BYE, "(the unknown-key bye) mid-hand, then plays on")
        await _real_send(self, ByeFrame(UNKNOWN_KEY_REASON))
    owed = p.table.owes(p.opponent) if playing else None
    if owed is not None and D.ender("decoys", p):
        # a flood of claims at once, each naming part of what is owed (perhaps not what
        # the other player will send) and perhaps kinds that are not owed at all
        n = D.rng.randint(2, 12)
        D.note("decoys", f"{n} claims while the other owes {owed.what}")
        owed_kinds, others = sorted(owed.kinds), sorted(set(ev.CODE) - owed.kinds)
        bodies = []
        for _ in range(n):
            part = D.rng.sample(owed_kinds, D.rng.randint(1, max(1, len(owed_kinds) - 1)))
            extra = D.rng.sample(others, D.rng.randint(0, 2))
            kinds = frozenset(part + extra if D.rng.random() < 0.8 else extra or part)
            bodies.append(claim_body(p.log, p.me, Owed(p.opponent, kinds, "decoy")))
        await _carry_claims(self, bodies)
    if D.chance("cut"):
        D.note("cut")
        ep = self.endpoint
        if isinstance(ep, HostEndpoint):
            await ep.drop_connections()
        elif isinstance(ep, GuestEndpoint) and ep.sock is not None:
            where = _tcp(ep.host, ep.port)
            ep.sock.disconnect(where)
            ep.sock.connect(where)


async def _on_net(self: session.Session, item: Any) -> None:
    was_up = self.link_up
    await _real_net(self, item)
    if D.plan["relink_replay"] and self.link_up and not was_up:
        D.note("relink-replay")
        for e in self.proto.log.since(self.proto.me, 0):
            await _real_send(self, EntryFrame(e.wire))


async def _on_command(self: session.Session, cmd: Any) -> None:
    p = self.proto
    handing_over = isinstance(cmd, Act) and cmd.action.kind in HANDING_OVER and p.my_turn
    if handing_over and D.ender("snap-claim", p):
        await _snap_claim(self, cmd)
        return
    if not (handing_over and D.ender("preclaim", p)):
        await _real_command(self, cmd)
        return
    # a claim of what the move is about to make the other player owe, then the move
    h, full = p.table.hand, p.table.hand_state()
    assert h is not None and full is not None
    engine.apply(full, cmd.action, p.me)
    kind, body = ev.action_body(cmd.action, h.number, p._reveal(full, h, cmd.action))
    kinds = frozenset({"stock_key"}) if kind == "draw_stock" else PLAY_KINDS
    D.note("pre-claim", f"before its {kind}")
    claim = claim_body(p.log, p.me, Owed(p.opponent, kinds, "the next move"))
    D.claims += 1
    out = p._append_and_fold("claim", claim, auto=False)
    out += p._append_and_fold(kind, body, auto=False)
    await self._carry(out)
    await asyncio.sleep(0)
    await self._carry(p.advance())


async def _snap_claim(s: session.Session, cmd: Act) -> None:
    """The move, then at once a claim of what it makes the other player owe (no timeout
    waited), the claim sent first: the other side receives the claim before the move."""
    p = s.proto
    out = p.act(cmd.action, auto=False)
    owed = p.table.owes(p.opponent)
    await s._carry([o for o in out if not isinstance(o, Send)])  # saved, not sent yet
    if owed is not None:
        D.note("snap-claim", f"that the other owes {owed.what}, ahead of the move")
        D.claims += 1
        await s._carry(p._append_and_fold("claim", claim_body(p.log, p.me, owed), auto=False))
    await s._carry([o for o in out if isinstance(o, Send)])
    await asyncio.sleep(0)
    await s._carry(p.advance())


def _next_command(self: players.BotPlayer, s: Seat) -> Any:
    cmd = _real_next(self, s)
    if isinstance(cmd, Act):
        m = s.match
        key = (m.hand_no, len(m.hand.moves)) if m is not None and m.hand is not None else (0, 0)
        if key not in D.stalls:
            wait = 0.0
            if D.proto is not None and D.ender("long-stall", D.proto):
                wait = D.plan["timeout"] + 1.5  # past the claim timeout
                D.note("long-stall", f"{wait:.1f} s")
            elif D.chance("stall"):
                wait = D.rng.uniform(0.3, D.plan["timeout"] / 3)
                D.note("stall", f"{wait:.1f} s")
            D.stalls[key] = time.monotonic() + wait
        if time.monotonic() < D.stalls[key]:
            return None
    return cmd


def main() -> int:
    global D
    D = Deviant(json.loads(os.environ["GINP2P_CHEAT"]))
    atexit.register(D.summary)
    game.PeerProtocol = protocol_class()  # type: ignore[misc]
    session.Session._send = _send  # type: ignore[method-assign]
    session.Session._on_tick = _on_tick  # type: ignore[method-assign]
    session.Session._on_net = _on_net  # type: ignore[method-assign, assignment]
    session.Session._on_command = _on_command  # type: ignore[method-assign]
    players.BotPlayer.next_command = _next_command  # type: ignore[method-assign, assignment]
    print(f"cheat: plan {json.dumps(D.plan)}", flush=True)
    return cli.main(sys.argv[sys.argv.index("-m") + 2 :])  # after "PYTHON -m ginp2p"


if __name__ == "__main__":
    sys.exit(main())
