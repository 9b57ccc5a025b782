"""A property-based adversary: a cheating peer driven by a strategy, against a real
honest :class:`~ginp2p.proto.protocol.PeerProtocol`, over an in-memory link whose clock the
caller controls. Like :mod:`ginp2p.testing.fakelink`, nothing in a real game imports it; the
tests (tests/test_adversary.py, with hypothesis) and ``scripts/adversary.py`` (random
strategies, many games) drive it.

The design, for a contributor:

* **The cheater** is an honest ``PeerProtocol`` (:class:`Brain`) plus an adversarial
  layer between its outputs and the wire (:class:`Game`). Everything the brain signs is
  a valid entry of one consistent feed; the layer decides what of it reaches the honest
  peer, when, in which order and how often. The deviations it adds are appended through
  the brain's own log (claims, disputes, openings, chats), so the feed stays a valid
  chain even when the entry is premature or false; the only entries signed outside the
  feed are equivocation twins, garbage and made-up entries far ahead. The brain plays
  its moves with the greedy player; it may lock with per-card keys that do not come
  from its committed seeds (:attr:`Brain.fake_lock`: the lock proof still verifies).
* **The honest peer** is an unmodified ``PeerProtocol`` whose player (greedy or random)
  moves as soon as it is its turn, and which claims only when the cheater has owed the
  same entry for longer than the claim timeout, by the runner's own count as well as
  the protocol's. It may crash and resume from what it saved (``records=``, ``seeds=``,
  ``answered=``), or claim and then leave (it hears nothing) until it resumes.
* **A strategy** (:class:`Strategy`) is a world (which fixed keys and seeds), the
  cheater's role, the honest player, whether the lock is faked, and a sequence of
  deviation choices (:data:`Choice`), one per step of the world. Strategies are drawn
  through a :class:`Drawer`, so hypothesis (tests) and ``random.Random`` (the script)
  draw the same grammar. After the last choice the cheater turns honest in two phases
  (:meth:`Game.finish`): first it still keeps back what it withholds for ever, as a
  real cheater would, and the game goes on until nothing happens (the clock jumps past
  the timeout when idle, so the honest player claims what is overdue); then everything
  it holds is delivered, the link resyncs and the game is played to its end (a
  one-hand match). The properties are checked after each phase.
* **The properties** (:meth:`Game.check`; each violation is named, see
  :class:`Violation`): the honest player is never convicted (its table, the cheater's
  table, the audit of either file or both: ``honest-convicted``); a responsive honest
  player never loses by a claim or a forfeit (``honest-forfeited``), and a claimant who
  left is not made the loser by what the cheater signs meanwhile (``left-claimant-lost``,
  judged on both copies: the cheater's copy alone may lack what beat a claim); the
  honest table and the audits of the honest file and of both files agree
  (``verdicts-differ``; both files only once the cheater sent everything it holds, and
  the audit of both may convict the cheater where the honest table has it lose
  otherwise: its copy may hold proof against itself that the honest peer never took
  in); a
  rule broken in the honest log convicts the cheater (``unpunished:*``), and deviations
  that break none leave the game as the same game with no deviation (same seeds) plays
  it (``changed-the-game``); nothing raises (``raises:*``), the honest peer's holds and
  log stay within their bounds (``memory:*``); and a cheater that owes an entry and
  sends nothing can always be claimed against, so no match hangs for ever (``stuck``).
  The honest table is watched after every call into the honest peer, so a verdict
  against the honest player that a later entry would undo is caught too.
* **Named attacks** (:data:`KNOWN`): the strategies that broke a property so far, as
  regression tests; ``scripts/adversary.py --known`` plays them.
* **Speed.** The shuffle's curve arithmetic is the cost. :func:`exploring_shuffle` lowers
  the cut-and-choose rounds to k=1 (exploration only: the proofs' strength is not what
  is explored here) and memoises the pure curve operations shuffle.py calls; with a
  small pool of worlds (:data:`WORLDS`: the same keys and seeds) the honest parts of a
  shuffle repeat from game to game and cost a dictionary look-up. It also memoises the
  decoding and signature check of entries, which every peer and audit repeats, and a
  game audits each distinct set of records once.
"""

from __future__ import annotations

import functools
import math
import random
import traceback
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Protocol

import nacl.signing

from ginp2p.game import bot
from ginp2p.game.engine import Action, HandState, IllegalAction
from ginp2p.game.match import MatchEnd
from ginp2p.game.rules import CLASSIC, RuleSet
from ginp2p.proto import events as ev
from ginp2p.proto import protocol as pr
from ginp2p.proto import shuffle as sh
from ginp2p.proto.log import GUEST, HOST, Entry, H, LogError, Owed, claim_body, sign_entry
from ginp2p.proto.protocol import (
    Dropped,
    Output,
    PeerProtocol,
    Refused,
    Save,
    SaveAnswer,
    SaveSeeds,
    Send,
)
from ginp2p.proto.table import PLAY_KINDS, HandFold, Table
from ginp2p.record import audit
from ginp2p.testing.fakelink import Side

__all__ = [
    "KNOWN", "K_EXPLORE", "MAX_FINAL_STEPS", "ORDERS", "RECKLESS", "RULES", "SUBTLE", "TIMEOUT",
    "WORLDS", "Brain", "Chat", "Choice", "Claim", "Deaf", "Deliver", "Dispute", "Drawer",
    "Equivocate", "Game", "Garbage", "Honest", "Leave", "OpenSeeds", "RandomDrawer",
    "Reconnect", "Refuse", "Resend", "Resign", "Restart", "Resume", "Stall", "Strategy",
    "Violation", "Wait", "Withhold", "baseline", "draw_choice", "draw_strategy",
    "exploring_shuffle", "memo_hits", "play", "random_strategy", "world_key", "world_rng",
]  # fmt: skip

#: Cut-and-choose rounds while exploring (the protocol's minimum is 20).
K_EXPLORE = 1
#: One-hand matches: most deviations live in the set-up and the first moves.
RULES = CLASSIC.with_(game_target=1)
#: The claim timeout of the explored games, in seconds of the runner's clock.
TIMEOUT = 30
#: How many fixed worlds (keys and seeds) strategies choose from.
WORLDS = 8
#: The most steps the honest end of a game may take before it counts as stuck.
MAX_FINAL_STEPS = 600
#: Entries the honest log may hold beyond an honest game's and the cheater's extras.
LOG_SLACK = 6

# ---------------------------------------------------------------- exploring_shuffle

#: The pure curve operations of ginp2p/proto/shuffle.py that :func:`exploring_shuffle` memoises.
MEMOISED = (
    "crypto_scalarmult_ed25519_noclamp", "crypto_scalarmult_ed25519_base_noclamp",
    "crypto_core_ed25519_add", "crypto_core_ed25519_sub", "crypto_core_ed25519_is_valid_point",
    "crypto_core_ed25519_scalar_invert", "crypto_core_ed25519_scalar_mul",
    "crypto_core_ed25519_scalar_add", "crypto_core_ed25519_scalar_sub",
    "crypto_core_ed25519_scalar_reduce", "crypto_core_ed25519_from_uniform",
)  # fmt: skip


def _memoised(fn: Callable[..., Any], size: int) -> Callable[..., Any]:
    cached = functools.lru_cache(maxsize=size)(fn)

    def call(*args: Any) -> Any:
        try:
            return cached(*args)
        except TypeError:  # an unhashable argument: not worth a cache
            return fn(*args)

    call.cache_info = cached.cache_info  # type: ignore[attr-defined]
    return call


class _Memo:
    """``nacl.bindings`` with the functions of :data:`MEMOISED` behind LRU caches (they
    are pure; an exception is never cached, so a bad point still raises every time)."""

    def __init__(self, module: Any, size: int) -> None:
        self._module = module
        self._fns = {name: _memoised(getattr(module, name), size) for name in MEMOISED
                     if hasattr(module, name)}  # fmt: skip

    def __getattr__(self, name: str) -> Any:
        fn = self._fns.get(name)
        return fn if fn is not None else getattr(self._module, name)

    def hits(self) -> tuple[int, int]:
        """(hits, misses) over every memoised function."""
        infos = [fn.cache_info() for fn in self._fns.values()]  # type: ignore[attr-defined]
        return sum(i.hits for i in infos), sum(i.misses for i in infos)


_MEMO: _Memo | None = None  # kept from one use of exploring_shuffle to the next


def _entry_memos(size: int) -> dict[str, Any]:
    """Memoised replacements for decoding an entry's wire bytes and checking its
    signature (pure functions of bytes, done again by every peer and every audit), and
    for the shuffle's hash to a scalar."""
    original_from_wire = Entry.__dict__["from_wire"].__func__
    original_verify = Entry.__dict__["verify"]
    decode = functools.lru_cache(maxsize=size)(lambda wire: original_from_wire(Entry, wire))
    checked: dict[tuple[bytes, bytes, bytes], bool] = {}

    def from_wire(cls: type[Entry], wire: bytes) -> Entry:
        if cls is not Entry or type(wire) is not bytes:
            return original_from_wire(cls, wire)  # type: ignore[no-any-return]
        return decode(wire)  # type: ignore[no-any-return]

    def verify(self: Entry, public_key: bytes) -> bool:
        if type(public_key) is not bytes:
            return original_verify(self, public_key)  # type: ignore[no-any-return]
        key = (self.packed, self.signature, public_key)
        if key not in checked:
            if len(checked) >= size:
                checked.clear()
            checked[key] = original_verify(self, public_key)
        return checked[key]

    return {"from_wire": classmethod(from_wire), "verify": verify,
            "_hash_to_scalar": functools.lru_cache(maxsize=size)(sh._hash_to_scalar)}  # fmt: skip


_ENTRY_MEMOS: dict[str, Any] = {}


@contextmanager
def exploring_shuffle(k: int = K_EXPLORE, memo: bool = True,
                      cache_size: int = 1 << 19) -> Iterator[None]:  # fmt: skip
    """FOR EXPLORATION ONLY, never in a game: allow shuffles with ``k`` cut-and-choose
    rounds (``shuffle.K_MIN`` and the hello's ``params.k`` bound are lowered) and, with
    ``memo``, memoise pure functions every peer and audit computes again and again: the
    curve operations shuffle.py calls (through ``shuffle.nb``), its hash to a scalar,
    and the decoding and signature check of an entry's bytes (``Entry.from_wire``,
    ``Entry.verify``). The caches are kept between uses, so worlds seen before cost
    look-ups. Everything is restored on exit. A proof with k=1 is sound with
    probability 1/2 only: explore deviations that do not attack the proofs' strength."""
    global _MEMO
    bound = ev.PARAMS.fields[0][1]
    saved = sh.K_MIN, getattr(bound, "lo", None), sh.nb
    patched: list[tuple[Any, str, Any]] = []
    sh.K_MIN = min(k, sh.K_MIN)
    if isinstance(saved[1], int):
        bound.lo = min(k, saved[1])  # type: ignore[attr-defined]
    if memo:
        module = saved[2]._module if isinstance(saved[2], _Memo) else saved[2]  # (nested)
        if _MEMO is None or _MEMO._module is not module:
            _MEMO = _Memo(module, cache_size)
        sh.nb = _MEMO  # type: ignore[assignment]
        if not _ENTRY_MEMOS:  # (entries differ from game to game: a smaller cache)
            _ENTRY_MEMOS.update(_entry_memos(min(cache_size, 1 << 14)))
        for owner, name in ((Entry, "from_wire"), (Entry, "verify"), (sh, "_hash_to_scalar")):
            patched.append((owner, name, owner.__dict__[name]))
            setattr(owner, name, _ENTRY_MEMOS[name])
    try:
        yield
    finally:
        for owner, name, original in reversed(patched):
            setattr(owner, name, original)
        sh.K_MIN = saved[0]
        if isinstance(saved[1], int):
            bound.lo = saved[1]  # type: ignore[attr-defined]
        sh.nb = saved[2]


def memo_hits() -> tuple[int, int]:
    """(hits, misses) of the curve-operation caches so far."""
    return _MEMO.hits() if _MEMO is not None else (0, 0)


# ---------------------------------------------------------------- strategies


class Drawer(Protocol):
    """Where a strategy's choices come from: an integer in ``lo..hi`` at a time."""

    def between(self, lo: int, hi: int) -> int: ...


class RandomDrawer:
    """A :class:`Drawer` over ``random.Random`` (the script)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def between(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)


def _pick(d: Drawer, options: Sequence[Any]) -> Any:
    return options[d.between(0, len(options) - 1)]


#: Orders a delivery may send its entries in: as made, backwards, the second one last
#: (a move, then decoy claims, then the real one), the last one first, or scrambled.
ORDERS = ("fifo", "fifo", "reverse", "second-last", "last-first", "shuffle")


@dataclass(frozen=True)
class Deliver:
    """Send the next ``n`` pending entries (0: all), in ``order``; ``dup``: send the
    entry at that place of the batch twice (-1: none)."""

    n: int
    order: str = "fifo"
    dup: int = -1

    def describe(self) -> str:
        extra = f",dup{self.dup}" if self.dup >= 0 else ""
        return f"deliver({self.n or 'all'},{self.order}{extra})"


@dataclass(frozen=True)
class Withhold:
    """Keep the pending entry at ``index`` back for ``steps`` (0: until the game's end)."""

    index: int
    steps: int

    def describe(self) -> str:
        return f"withhold({self.index},{self.steps or 'forever'})"


@dataclass(frozen=True)
class Refuse:
    """From now on, keep back for ever every entry of ``kind`` the brain makes (refuse
    to open its seeds, to answer, to give a key...; ``all``: go silent)."""

    kind: str

    def describe(self) -> str:
        return f"refuse({self.kind})"


@dataclass(frozen=True)
class Resend:
    """Send again the entry sent ``back`` sends ago."""

    back: int

    def describe(self) -> str:
        return f"resend({self.back})"


@dataclass(frozen=True)
class Claim:
    """Append ``count`` claims (the first real, the others decoys) that the honest player
    owes what the brain thinks it owes (``false``: kinds it does not owe); with
    ``after_move``, right after the brain's next move of play instead of now."""

    count: int
    after_move: bool = False
    false: bool = False
    part: bool = False  # only one of the kinds owed (one the honest player may not use)

    def describe(self) -> str:
        how = "after-move" if self.after_move else "now"
        return (f"claim({self.count},{how}{',false' if self.false else ''}"
                f"{',part' if self.part else ''})")  # fmt: skip


@dataclass(frozen=True)
class Dispute:
    """Dispute the honest entry at ``index`` of the honest feed (as the brain holds it)."""

    index: int

    def describe(self) -> str:
        return f"dispute({self.index})"


@dataclass(frozen=True)
class Equivocate:
    """Sign ``count`` chats at the seq of the brain's entry ``back`` from its last."""

    back: int
    count: int

    def describe(self) -> str:
        return f"equivocate({self.back},{self.count})"


@dataclass(frozen=True)
class Garbage:
    """Bytes that are no valid entry (``bytes``, ``flip``, ``truncate``), a signed entry
    far ahead of the feed (``ahead``), or the brain's next entry acking an id the honest
    player never wrote (``bad-ack``)."""

    kind: str
    index: int

    def describe(self) -> str:
        return f"garbage({self.kind},{self.index})"


@dataclass(frozen=True)
class Deaf:
    """The brain reads nothing from the honest player for ``steps`` steps."""

    steps: int

    def describe(self) -> str:
        return f"deaf({self.steps})"


@dataclass(frozen=True)
class Stall:
    """The brain makes no move of play for ``steps`` steps."""

    steps: int

    def describe(self) -> str:
        return f"stall({self.steps})"


@dataclass(frozen=True)
class Wait:
    """The clock jumps ``seconds``."""

    seconds: int

    def describe(self) -> str:
        return f"wait({self.seconds})"


@dataclass(frozen=True)
class Reconnect:
    """Both sides say ``have`` and send what the other lacks (held entries excepted)."""

    def describe(self) -> str:
        return "reconnect"


@dataclass(frozen=True)
class Restart:
    """The honest peer crashes and resumes from its saved records and secrets."""

    def describe(self) -> str:
        return "restart"


@dataclass(frozen=True)
class Leave:
    """The honest player leaves right after its next claim (it hears nothing more)."""

    def describe(self) -> str:
        return "leave"


@dataclass(frozen=True)
class Resume:
    """The honest player, if it left, resumes from its files and resyncs."""

    def describe(self) -> str:
        return "resume"


@dataclass(frozen=True)
class OpenSeeds:
    """The brain opens its seeds of the hand in progress, owed or not."""

    def describe(self) -> str:
        return "open"


@dataclass(frozen=True)
class Chat:
    count: int

    def describe(self) -> str:
        return f"chat({self.count})"


@dataclass(frozen=True)
class Resign:
    def describe(self) -> str:
        return "resign"


@dataclass(frozen=True)
class Honest:
    """``steps`` steps of honest behaviour: every pending entry is sent at once."""

    steps: int

    def describe(self) -> str:
        return f"honest({self.steps})"


Choice = (
    Deliver
    | Withhold
    | Refuse
    | Resend
    | Claim
    | Dispute
    | Equivocate
    | Garbage
    | Deaf
    | Stall
    | Wait
    | Reconnect
    | Restart
    | Leave
    | Resume
    | OpenSeeds
    | Chat
    | Resign
    | Honest
)


@dataclass(frozen=True)
class Strategy:
    """A world, the cheater's role, the honest player, a faked lock or not, and the
    deviation chosen at each step."""

    world: int
    cheater: int
    honest_player: str = "greedy"
    fake_lock: bool = False
    choices: tuple[Choice, ...] = ()

    def describe(self) -> str:
        head = (f"world {self.world}, cheater {('host', 'guest')[self.cheater]}, honest "
                f"{self.honest_player}{', fake lock' if self.fake_lock else ''}")  # fmt: skip
        return f"{head}: {' '.join(c.describe() for c in self.choices) or '(plays honestly)'}"


#: The deviations a strategy draws, by weight; "subtle" strategies break no rule on
#: purpose (they reorder, delay, repeat, claim early, go deaf, ...), "reckless" ones do.
SUBTLE = ("deliver",) * 8 + ("honest", "honest", "withhold", "withhold", "claim", "claim",
          "claim", "garbage", "deaf", "stall", "wait", "wait", "reconnect", "restart", "leave",
          "resend", "chat", "refuse")  # fmt: skip
RECKLESS = (*SUBTLE, "dispute", "dispute", "equivocate", "equivocate", "misc")


def draw_choice(d: Drawer, style: str = "reckless") -> Choice:
    """One deviation; the weights favour delivery, so games get past the set-up."""
    kind = _pick(d, SUBTLE if style == "subtle" else RECKLESS)
    if kind == "deliver":
        n = _pick(d, (1, 1, 2, 3, 5, 10, 0, 0))
        return Deliver(n, _pick(d, ORDERS), _pick(d, (-1, -1, -1, 0, 1)))
    if kind == "honest":
        return Honest(d.between(1, 6))
    if kind == "withhold":
        return Withhold(d.between(0, 3), _pick(d, (0, 2, 5, 20)))
    if kind == "claim":
        count = _pick(d, (1, 1, 2, pr.MAX_EARLY, pr.MAX_EARLY + 1, pr.MAX_EARLY + 2))
        false = style != "subtle" and d.between(0, 4) == 0
        part = style != "subtle" and not false and d.between(0, 4) == 0
        return Claim(count, d.between(0, 1) == 1, false, part)
    if kind == "dispute":
        return Dispute(d.between(0, 40))
    if kind == "equivocate":
        return Equivocate(d.between(0, 2), d.between(1, 3))
    if kind == "garbage":
        kinds = ("bytes", "flip", "truncate", "ahead") + (("bad-ack",) if style != "subtle" else ())
        return Garbage(_pick(d, kinds), d.between(0, 255))
    if kind == "deaf":
        return Deaf(_pick(d, (2, 10, 40)))
    if kind == "stall":
        return Stall(_pick(d, (2, 10, 40)))
    if kind == "wait":
        return Wait(_pick(d, (5, TIMEOUT // 2, TIMEOUT + 1, TIMEOUT + 15)))
    if kind == "reconnect":
        return Reconnect()
    if kind == "restart":
        return Restart()
    if kind == "leave":
        return _pick(d, (Leave(), Leave(), Resume()))
    if kind == "resend":
        return Resend(d.between(0, 5))
    if kind == "refuse":
        return Refuse(
            _pick(
                d,
                ("open", "open", "stock_key", "answers", "keys", "checkpoint", "challenge", "all"),
            )
        )
    if kind == "chat":
        return Chat(_pick(d, (1, 3)))
    return _pick(d, (OpenSeeds(), Resign()))


def draw_strategy(d: Drawer, max_choices: int = 40) -> Strategy:
    """A whole strategy: the header, then up to ``max_choices`` deviations."""
    world = d.between(0, WORLDS - 1)
    cheater = d.between(0, 1)
    player = _pick(d, ("greedy", "random"))
    style = _pick(d, ("subtle", "reckless"))
    fake_lock = d.between(0, 3) == 0
    choices = tuple(draw_choice(d, style) for _ in range(d.between(0, max_choices)))
    return Strategy(world, cheater, player, fake_lock, choices)


def random_strategy(seed: int, max_choices: int = 40) -> Strategy:
    """The strategy of game ``seed`` of the script: ``random.Random(seed)`` draws it."""
    return draw_strategy(RandomDrawer(random.Random(seed)), max_choices)


# ---------------------------------------------------------------- the peers

#: A player: from the protocol and its view of the hand to a move.
Player = Callable[[PeerProtocol, HandState], Action]


def _player(kind: str, seed: int) -> Player:
    if kind == "random":
        rng = random.Random(seed)
        return lambda proto, view: bot.random_legal(view, proto.me, rng)
    return lambda proto, view: bot.greedy(view, proto.me)


def world_key(world: int, me: int) -> nacl.signing.SigningKey:
    """The fixed signing key of ``me`` in ``world``."""
    return nacl.signing.SigningKey(H("ginp2p/adversary/key", bytes([world % 256, me]))[:32])


def world_rng(world: int, me: int) -> Callable[[int], bytes]:
    """The randomness of ``me`` in ``world`` (its nonce and seeds), one stream per side, so
    the seeds do not depend on the order in which the sides draw them."""
    return random.Random(f"ginp2p/adversary/{world}/{me}").randbytes


class Brain(PeerProtocol):
    """The cheater's honest core. ``fake_lock``: its lock of hand 1 uses per-card keys that
    do not come from its committed key seed (the lock proof verifies all the same: it
    proves knowledge of some keys); the brain then keeps using those keys, so its own
    feed and table stay consistent. ``faked``: the hand whose lock was faked."""

    fake_lock = False
    faked: int | None = None

    def _make_lock(self, h: HandFold, game: bytes) -> tuple[str, Any, list[Output]]:
        if self.fake_lock and h.number == 1 and self.faked is None:
            real = self._seeds[h.number]
            fake = sh.HandSecrets(real.perm_seed, real.key_seed)
            other = H("ginp2p/adversary/fake-keys", real.key_seed)[:32]
            fake._keys.update({pos: sh.scalar(other, "card", pos) for pos in range(h.n)})
            self._seeds[h.number] = fake
            self.faked = h.number
        return super()._make_lock(h, game)


# ---------------------------------------------------------------- the game


@dataclass(frozen=True)
class Violation:
    """A property that failed: its name and what was seen."""

    prop: str
    detail: str

    def __str__(self) -> str:
        return f"{self.prop}: {self.detail}"


def _cheat_words(c: Any) -> str:
    return f"{('host', 'guest')[c.author]} {c.rule} (hand {c.hand}, seq {c.seq})"


def _verdict(t: Table) -> tuple[Any, ...]:
    """A table's verdict: (cheat as (author, rule, hand) or None, winner, end)."""
    c = t.cheat
    cheat = (c.author, c.rule, c.hand) if c is not None else None
    m = t.match
    if m is not None:
        return cheat, m.winner, str(m.end) if m.end is not None else None
    lost = t.forfeited
    return (cheat, 1 - lost[0], lost[1]) if lost is not None else (cheat, None, None)


def _report_verdict(r: audit.Report) -> tuple[Any, ...]:
    c = r.cheat
    return (c.author, c.rule, c.hand) if c is not None else None, r.winner, r.end


def _summary(t: Table) -> tuple[Any, ...]:
    """What the honest player sees of a finished game: the match and every card it knows."""
    m = t.match
    if m is None:
        return (None,)
    known = [sorted((pos, str(card)) for pos, card in h.known.items()) for h in t.hands]
    return m.scores, m.winner, m.end, m.totals, m.hand_no, m.results, known


_FORFEITS = {str(MatchEnd.CLAIM), str(MatchEnd.CHEAT), str(MatchEnd.RESIGN)}


class Game:
    """One game between an honest peer and a cheater driven by ``strategy``."""

    def __init__(self, strategy: Strategy, rules: RuleSet = RULES, k: int = K_EXPLORE,
                 timeout: int = TIMEOUT) -> None:  # fmt: skip
        self.strategy = s = strategy
        self.timeout = timeout
        self.c = c = s.cheater
        self.h = h = 1 - c
        keys = (world_key(s.world, HOST), world_key(s.world, GUEST))
        rngs = (world_rng(s.world, HOST), world_rng(s.world, GUEST))

        def make(me: int, cls: type[PeerProtocol], **resume: Any) -> PeerProtocol:
            return cls(me, keys[me], rngs[me], name=("Ann", "Bob")[me],
                       rules=rules if me == HOST else None, k=k, claim_timeout=timeout,
                       peer_key=bytes(keys[1 - me].verify_key), **resume)  # fmt: skip

        self.honest = Side(make(h, PeerProtocol), lambda **kw: make(h, PeerProtocol, **kw))
        brain = make(c, Brain)
        assert isinstance(brain, Brain)
        brain.fake_lock = s.fake_lock
        self.brain = brain
        self.cheater = Side(brain, lambda **kw: brain)  # the cheater never restarts
        self.player = _player(s.honest_player, s.world)
        self.cheater_player = _player("greedy", 0)
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
        self._audits: dict[frozenset[bytes], audit.Report] = {}

    def audit(self, records: Sequence[bytes]) -> audit.Report:
        """The audit of ``records`` (the same set of records is audited once: order and
        repeats do not change a verdict)."""
        key = frozenset(records)
        if key not in self._audits:
            self._audits[key] = audit.audit_records(records)
        return self._audits[key]

    # -- bookkeeping ------------------------------------------------------------------
    def violate(self, prop: str, detail: str) -> None:
        """Note a violation: the first few of each property, each different detail once."""
        same = [v for v in self.violations if v.prop == prop]
        if len(same) < 3 and not any(v.detail.startswith(detail) for v in same):
            self.violations.append(Violation(prop, f"{detail} (step {self.step_no})"))

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
        self._watch_honest()

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

    def _watch_honest(self) -> None:
        """Property 5 (the holds stay within their caps) and 2 (a responsive honest
        player never forfeits), after every call into the honest peer."""
        p = self.honest.proto
        early, ahead = getattr(p, "_early", {}), getattr(p, "_ahead_of", {})
        if len(early) > getattr(pr, "MAX_EARLY", 8):
            self.violate("memory:early-claims", f"{len(early)} claims held back")
        if len(ahead) > getattr(pr, "MAX_AHEAD", 256):
            self.violate("memory:ahead", f"{len(ahead)} entries held ahead of a gap")
        lost = p.table.forfeited
        if lost is not None and lost[0] == self.h and not self.left:
            name = "honest-convicted" if lost[1] == "cheat" else "honest-forfeited"
            c = p.table.cheat
            self.violate(name, f"the honest table says the honest player lost by {lost[1]}"
                               + (f": {_cheat_words(c)}" if c is not None else ""))  # fmt: skip

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
        lacking = [Entry.from_wire(w) for w in bp.missing(hp.have())]
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
        self._check_left()
        self.left = False
        self._restart(self.left_at)
        p = self.honest.proto
        lost = p.table.forfeited
        if lost is not None and lost[0] == self.h:
            self.violate("left-claimant-lost", f"after resuming, the honest table says the "
                                               f"honest player lost by {lost[1]}")  # fmt: skip

    def _check_left(self) -> None:
        """Property 2 for a claimant that left: the audit of both copies. (The cheater's
        copy alone may always read as a standing claim: it need not keep the entries
        that beat the claim, like a copy cut short. It still convicts nobody honest.)"""
        cheater_file = list(self.cheater.saved)
        both = self.audit([*self.honest.saved, *cheater_file])
        # An open counter-claim is allowed (incomplete: the claimant reopens the match
        # when it returns, see docs/protocol.md §6); anything final is not.
        final = both.verdict is not audit.Verdict.INCOMPLETE
        if both.winner == self.c and both.end in _FORFEITS and final:
            self.violate(
                "left-claimant-lost",
                f"while the claimant was away, the audit of both files says it lost by {both.end}",
            )
        for name, r in (("the cheater's file", self.audit(cheater_file)), ("both files", both)):
            if r.cheat is not None and r.cheat.author == self.h:
                self.violate("honest-convicted", f"while the claimant was away, the audit of "
                                                 f"{name}: {_cheat_words(r.cheat)}")  # fmt: skip

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
            if Entry.from_wire(wire).author == self.c:
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

    # -- the properties -------------------------------------------------------------------
    def check(self, baseline: Game | None = None, merged: bool = True) -> None:
        """Every property on the game as it ended (the baseline: the same game played
        with no deviation, for property 4). ``merged``: the cheater has sent every entry
        it holds, so the audit of both files must agree with the honest table too (until
        then, an entry only the cheater's file holds may change what both files say)."""
        hp, bp = self.honest.proto, self.brain
        h, c = self.h, self.c
        if not self.settled:
            self.violate("did-not-settle", f"still going after {MAX_FINAL_STEPS} honest steps")
        owed = hp.table.owes(c)
        if (
            self.settled
            and owed is not None
            and "hello" not in owed.kinds
            and not hp.table.finished
        ):  # (before both hellos no game exists to claim)
            waits = getattr(hp, "claim_waits", None)
            why = " (claim_waits: the cheater's own claim was beaten by an entry its feed " \
                  "never acknowledges)" if callable(waits) and waits() else ""  # fmt: skip
            self.violate(
                "stuck",
                f"the cheater owes {owed.what} and sends nothing, yet the "
                f"honest player cannot claim it: the match never ends{why}",
            )
        # 1. the honest player is never convicted
        for name, t in (("the honest table", hp.table), ("the cheater's table", bp.table)):
            if t.cheat is not None and t.cheat.author == h:
                self.violate("honest-convicted", f"{name}: {_cheat_words(t.cheat)}")
        honest_file, cheater_file = list(self.honest.saved), list(self.cheater.saved)
        reports = {
            "the honest file": self.audit(honest_file),
            "the cheater's file": self.audit(cheater_file),
            "both files": self.audit([*honest_file, *cheater_file]),
        }
        for name, r in reports.items():
            if r.cheat is not None and r.cheat.author == h:
                self.violate("honest-convicted", f"the audit of {name}: {_cheat_words(r.cheat)}")
        # 2. a responsive honest player never loses by a claim or a forfeit
        self._watch_honest()
        m = hp.table.match
        if m is not None and m.winner == c and m.end is not None and str(m.end) in _FORFEITS:
            self.violate("honest-forfeited", f"the honest table: the match ends by {m.end}")
        for name in ("the honest file", "both files") if merged else ("the honest file",):
            r = reports[name]
            if r.winner == c and r.end in _FORFEITS:
                self.violate("honest-forfeited", f"the audit of {name}: the honest player "
                                                 f"lost by {r.end}")  # fmt: skip
        # 3. the honest table and the audits agree
        mine = _verdict(hp.table)
        for name in ("the honest file", "both files") if merged else ("the honest file",):
            theirs = _report_verdict(reports[name])
            # Merging may only add proof against the cheater: its copy can hold entries
            # of its own that convict it and that the honest peer never took in (one
            # behind an entry it dropped, say). Then the honest player still wins.
            more = (name == "both files" and theirs[0] is not None and theirs[0][0] == c
                    and theirs[1] == mine[1] == self.h)  # fmt: skip
            if theirs != mine and not more:
                self.violate("verdicts-differ", f"the honest table says {mine}, the audit of "
                                                f"{name} {theirs}")  # fmt: skip
        # 4. a rule broken in the honest log convicts the cheater...
        self._rules_broken()
        # ... and deviations that break none change nothing the honest player sees
        if baseline is not None:
            self._same_as(baseline)
        # 5. bounded memory: at most the two entries of a fork per seq, and no more
        # entries than an honest game's, the cheater's extras and a few more
        for seq in {e.seq for e in hp.log.since(c, 0)}:
            n = len(hp.log.at(c, seq))
            if n > 2:
                self.violate("memory:fork-variants", f"{n} signed variants of the cheater's "
                                                     f"seq {seq} are stored")  # fmt: skip
                break
        if baseline is not None:
            bound = len(baseline.honest.proto.log) + self.extras + self.honest_claims + LOG_SLACK
            if len(hp.log) > bound:
                self.violate("memory:log", f"the honest log holds {len(hp.log)} entries, more "
                                           f"than {bound}")  # fmt: skip

    def _rules_broken(self) -> None:
        hp, c = self.honest.proto, self.c
        t = hp.table
        lost = t.forfeited
        cheater_lost = lost is not None and lost[0] == c
        forked = [s for s in {e.seq for e in hp.log.since(c, 0)} if len(hp.log.at(c, s)) > 1]
        if forked and not (t.cheat is not None and t.cheat.author == c):
            self.violate("unpunished:equivocation", f"the honest log holds two entries at the "
                                                    f"cheater's seq {forked[0]}")  # fmt: skip
        order = hp.log.linear().order
        mine = {e.id for e in hp.log.since(self.h, 0)}
        disputes = [p for p in order if p.entry.author == c and p.entry.kind == "dispute"
                    and not p.void and p.entry.body.entry in mine]  # fmt: skip
        if disputes and not cheater_lost:
            self.violate(
                "unpunished:false-dispute",
                f"the cheater disputed an honest entry "
                f"(seq {disputes[0].entry.seq}) and "
                f"the honest table says {_verdict(t)}",
            )
        faked = self.brain.faked
        if faked is not None:
            opened = {p.entry.author for p in order if p.entry.kind == "open" and not p.void
                      and p.entry.body.hand == faked}  # fmt: skip
            if opened == {HOST, GUEST} and not (t.cheat is not None and t.cheat.author == c):
                self.violate("unpunished:fake-lock", f"both opened hand {faked}, whose lock "
                                                     f"the cheater faked, and the honest table "
                                                     f"says {_verdict(t)}")  # fmt: skip

    def _same_as(self, baseline: Game) -> None:
        hp, bp = self.honest.proto, self.brain
        t = hp.table
        if t.cheat is not None or bp.table.cheat is not None or t.forfeited is not None:
            return
        if t.claims or not t.finished or not self.settled:
            return
        mine, theirs = _summary(t), _summary(baseline.honest.proto.table)
        if mine != theirs:
            diff = next((f"{a} against {b}" for a, b in zip(mine, theirs, strict=False)
                         if a != b), "")  # fmt: skip
            self.violate(
                "changed-the-game",
                f"no rule broken, no claim, yet the honest "
                f"table differs from the honest game's: {diff}",
            )


# ---------------------------------------------------------------- named attacks

#: Strategies that broke a property of the peer this module was written against, one per
#: attack (world 0). Each is a regression test.
KNOWN: dict[str, Strategy] = {
    # a move at seq j and a claim at j+1, the claim delivered first: held ahead of its
    # gap, it was stored behind the move without the early-claim hold, open at once
    "claim-before-its-move": Strategy(
        0, GUEST, choices=(Honest(5), Claim(1, after_move=True), *[Deliver(2, "reverse")] * 4)
    ),
    # the move, then decoy claims at j+2..j+9 (held back: the cap is full), then the
    # real claim at j+1, which the full hold let through
    "decoy-claims": Strategy(
        0,
        HOST,
        choices=(
            Honest(5),
            Claim(pr.MAX_EARLY + 1, after_move=True),
            Deliver(1),
            Deliver(1),
            *[Deliver(10, "second-last")] * 4,
        ),
    ),
    # the honest player claims and leaves; the cheater's move made before it saw the
    # claim beats it, and its counter-claim made the absent claimant the loser
    "counter-claim-while-away": Strategy(
        0, HOST, choices=(Honest(3), Leave(), Wait(TIMEOUT + 1), Claim(1), Resume())
    ),
    # a lock with keys not from the committed seeds, a false dispute, the genuine seeds
    # opened: the keys the honest player published no longer read as cards
    "fake-lock-then-dispute": Strategy(
        0, HOST, fake_lock=True, choices=(Honest(6), Dispute(6), Honest(3))
    ),
    # three more signed variants at a seq already forked: each was stored
    "variants-after-a-fork": Strategy(0, HOST, choices=(Honest(3), Equivocate(0, 3), Deliver(0))),
    # a false dispute whose opening never comes, placed (an ender racing the honest
    # player's beaten claim, host first) before the honest player's next owed entry,
    # which had not seen it: that entry was judged out of turn
    "dispute-never-opened": Strategy(
        0,
        HOST,
        choices=(Honest(3), Dispute(3), Refuse("open"), Wait(TIMEOUT + 1), Deliver(1), Deliver(1)),
    ),
    # a false dispute racing a fair claim of the honest player (the cheater stalled its
    # move past the timeout): the two enders are concurrent, the host's goes first, and
    # the claim, judged after the dispute, names a move when the opening is owed
    "dispute-racing-a-claim": Strategy(
        0,
        HOST,
        choices=(Honest(7), Stall(40), Refuse("open"), Dispute(3), Wait(TIMEOUT + 1), Deliver(1)),
    ),
    # a premature claim, held back and beaten by the honest move, then silence: a claim
    # against a claimant whose own claim was beaten waits until its feed acks the entry
    # that beat it, which a silent cheater never does, so the match never ends
    "claim-then-silence": Strategy(
        0,
        HOST,
        choices=(Honest(5), Claim(1, after_move=True), Deliver(0), Deliver(0), Refuse("all")),
    ),
    # an entry acking an id nobody holds: the honest table convicted the cheater of a bad
    # ack and ended the match, the audits called it damage with no winner
    "ack-of-a-made-up-entry": Strategy(
        0, GUEST, choices=(Honest(2), Garbage("bad-ack", 0), Deliver(0))
    ),
    # an entry acking a made-up id and a twin of it, the twin delivered first: the honest
    # player disputes the twin (bad-ack), with no evidence; the cheater's copy never held
    # the twin, so its audit calls the dispute false (and both copies name another rule)
    "dispute-naming-a-twin": Strategy(
        0,
        GUEST,
        choices=(Deliver(0), Garbage("bad-ack", 0), Equivocate(0, 1), Deliver(0, "reverse")),
    ),
    # the honest player receives an equivocation twin first and disputes the chain break
    # that follows (no evidence): the cheater's own table convicts it of a bad ack
    "twin-seen-first": Strategy(
        0, HOST, choices=(Honest(3), Equivocate(0, 1), Withhold(0, 0), Deliver(0), Honest(2))
    ),
}


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
    is one too: ``runner-error``). Call inside :func:`exploring_shuffle`."""
    game = Game(strategy)
    try:
        game.run(baseline(strategy))
    except Exception as exc:
        where = traceback.extract_tb(exc.__traceback__)[-1]
        game.violate("runner-error", f"{type(exc).__name__}: {exc} at "
                                     f"{where.filename}:{where.lineno}")  # fmt: skip
    return game
