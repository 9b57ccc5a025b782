"""The table: the fold of a game's log through the shuffle checks and the rules engine.

Both peers, the audit and the replay viewer compute the table the same way: take the
entries in the log's linear order (:func:`ginp2p.proto.log.linearise`) and fold them, one by
one, through the schedule of docs/protocol.md §3, the shuffle proofs and ``engine.apply``. The
only thing an observer adds is what it may know privately: a peer its own seeds (so it
can read its own cards), the audit nothing (it learns everything from the openings).
The verdicts never depend on that private part, except for the one check only a card's
holder can make: that the opponent's key for one of its own positions unmasks a card.

Pure: no sockets, clocks or files. A validly signed entry that breaks a rule becomes a
:class:`Cheat` naming its author, the entry and the rule; the table freezes there.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Collection, Iterable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any

from ginp2p.game import engine
from ginp2p.game import match as mt
from ginp2p.game.cards import Card
from ginp2p.game.engine import (
    Action,
    DrawDiscard,
    DrawStock,
    HandResult,
    HandState,
    PartialKnowledge,
    TakeUpcard,
)
from ginp2p.game.match import MatchEnd, MatchState
from ginp2p.game.rules import RuleSet
from ginp2p.present.words import KIND_WORDS, for_screen, sent_words
from ginp2p.proto import events as ev
from ginp2p.proto import shuffle as sh
from ginp2p.proto.log import (
    GUEST,
    HOST,
    MAX_CHAT_RUN,
    ClaimVerdict,
    Entry,
    Linear,
    Owed,
    Placed,
    Problem,
    Verdict,
    first_dealer,
    game_id,
    linearise,
)
from ginp2p.proto.log import nonce_hash as hash_nonce

__all__ = [
    "OWED_GUEST_HELLO",
    "OWED_HOST_HELLO",
    "OWED_NONCE",
    "PLAY_KINDS",
    "Chatted",
    "Cheat",
    "Event",
    "HandDealt",
    "HandFold",
    "HandScored",
    "MatchOver",
    "Moved",
    "Table",
    "bits_from_bytes",
    "bits_to_bytes",
    "moves_since",
]

NAMES = ("host", "guest")
#: What the set-up entries are called on a player's screen ("waiting for Bob: …"): the
#: hellos carry the host's rules and the guest's answer; the host's nonce, opened, is
#: its half of the coin that decides who deals first.
OWED_HOST_HELLO = "the host's start of the game (its rules)"
OWED_GUEST_HELLO = "the guest's answer to the host's rules"
OWED_NONCE = "the host's half of the coin toss for the first deal"
#: What the player to move may append in play (a resign is always allowed).
PLAY_KINDS = frozenset(ev.ACTION_KINDS)
#: Actions whose entry reveals the author's whole hand.
_SHOWING = frozenset({"knock", "gin", "big_gin", "wall_knock", "show", "declare_rumino"})


# ------------------------------------------------------------------------ results


@dataclass(frozen=True, slots=True)
class Cheat:
    """A validly signed entry that breaks a rule: the proof against ``author``."""

    author: int
    entry: bytes  # the entry's id
    seq: int
    hand: int
    rule: str  # a short code: bad-shuffle-proof, illegal-move, out-of-turn, ...
    detail: str  # for people

    def describe(self, names: Sequence[str] = NAMES) -> str:
        where = f"hand {self.hand}, " if self.hand else ""
        return (
            f"{names[self.author]} cheated ({where}{NAMES[self.author]} entry {self.seq}): "
            f"{self.detail}"
        )


class _Broken(Exception):
    """Raised inside the fold when the entry being folded breaks ``rule``."""

    def __init__(self, rule: str, detail: str, culprit: Entry | None = None) -> None:
        super().__init__(detail)
        self.rule, self.detail = rule, detail
        #: the entry that breaks the rule, when it is not the one being folded
        self.culprit = culprit


# ------------------------------------------------------------------------ events


@dataclass(frozen=True, slots=True)
class HandDealt:
    """A hand's cards reached the players; ``cards`` are the observer's own, if known."""

    hand: int
    dealer: int
    cards: tuple[Card, ...] | None
    upcard: Card | None


@dataclass(frozen=True, slots=True)
class Moved:
    """A player's engine action was applied. ``card``: the card drawn (if the observer
    may see it) or discarded."""

    player: int
    action: Action
    card: Card | None = None


@dataclass(frozen=True, slots=True)
class HandScored:
    hand: int
    result: HandResult
    scores: tuple[int, int]


@dataclass(frozen=True, slots=True)
class MatchOver:
    winner: int | None
    end: MatchEnd
    totals: tuple[int, int] | None


@dataclass(frozen=True, slots=True)
class CheatDetected:
    cheat: Cheat


@dataclass(frozen=True, slots=True)
class Chatted:
    player: int
    text: str


Event = HandDealt | Moved | HandScored | MatchOver | CheatDetected | Chatted


# ------------------------------------------------------------------------ helpers


def moves_since(events: Sequence[tuple[int, Event]], player: int) -> tuple[list[Moved], bool]:
    """The moves of the last hand dealt after ``player``'s own last one (the whole hand's
    if none), and whether there was one: what a player who resumes has not been told."""
    deals = [i for i, (_, e) in enumerate(events) if isinstance(e, HandDealt)]
    if not deals:
        return [], False
    moves = [e for _, e in events[deals[-1] + 1 :] if isinstance(e, Moved)]
    ours = [i for i, e in enumerate(moves) if e.player == player]
    return (moves[ours[-1] + 1 :], True) if ours else (moves, False)


def bits_to_bytes(bits: Sequence[int]) -> bytes:
    """Challenge bits, most significant first, as ``ceil(k/8)`` bytes."""
    out = bytearray((len(bits) + 7) // 8)
    for t, b in enumerate(bits):
        out[t // 8] |= b << (7 - t % 8)
    return bytes(out)


def bits_from_bytes(data: bytes, k: int) -> list[int]:
    if len(data) != (k + 7) // 8:
        raise _Broken("bad-challenge", f"a challenge of k = {k} bits has {(k + 7) // 8} bytes")
    return [(data[t // 8] >> (7 - t % 8)) & 1 for t in range(k)]


def _split32(data: bytes, what: str) -> list[bytes]:
    if len(data) % 32:
        raise _Broken("malformed", f"{what} is not a whole number of 32-byte scalars")
    return [data[i : i + 32] for i in range(0, len(data), 32)]


def _need_len(items: Sequence[Any], n: int, what: str) -> None:
    """The shape check that stays when lazy proofs skip the proof checks."""
    if len(items) != n:
        raise _Broken("bad-length", f"{what} has {len(items)} points, not {n}")


def _the(kind: str) -> str:
    """An entry's kind with "the": "the knock", "the answers to a challenge"."""
    words = KIND_WORDS.get(kind, kind)
    for article in ("a ", "an "):
        if words.startswith(article):
            return "the " + words[len(article) :]
    return words if words.startswith("the ") else f"the {words}"


def _describe_owed(owed: Sequence[Owed], names: Sequence[str]) -> str:
    if not owed:
        return "nothing was owed"
    return "; ".join(f"{names[o.author]} owed {o.what}" for o in owed)


_Ends = tuple[bytes, bytes, tuple[int, ...]]  # a checkpoint's last entries and scores


def _checkpoint_words(got: _Ends, want: _Ends, names: Sequence[str]) -> str:
    """A checkpoint that disagrees with the log: the scores by name, and the last
    entries it signs (by id) only when those differ."""

    def scores(s: tuple[int, ...]) -> str:
        return f"{names[0]} {s[0]}, {names[1]} {s[1]}"

    def ends(x: _Ends) -> str:
        return f"{x[0][:4].hex()}/{x[1][:4].hex()}"

    parts = []
    if got[2] != want[2]:
        parts.append(f"the checkpoint gives the scores as {scores(got[2])}; the log gives "
                     f"{scores(want[2])}")  # fmt: skip
    if got[:2] != want[:2]:
        parts.append(f"it signs the hand as ending at entries {ends(got)}; the log ends it at "
                     f"{ends(want)}")  # fmt: skip
    return "; ".join(parts)


# ------------------------------------------------------------------------ one hand


@dataclass
class HandFold:
    """Everything logged about one hand so far, indexed by author (0 host, 1 guest)."""

    number: int
    dealer: int
    n: int
    commits: list[sh.Commit | None] = field(default_factory=lambda: [None, None])
    commit_ids: list[bytes | None] = field(default_factory=lambda: [None, None])
    shuffles: list[sh.ShuffleMsg | None] = field(default_factory=lambda: [None, None])
    shuffle_ids: list[bytes | None] = field(default_factory=lambda: [None, None])
    challenges: list[list[int] | None] = field(default_factory=lambda: [None, None])
    answers: list[sh.Answers | None] = field(default_factory=lambda: [None, None])
    locks: list[sh.LockMsg | None] = field(default_factory=lambda: [None, None])
    #: every per-card key each author published, by position
    keys: list[dict[int, bytes]] = field(default_factory=lambda: [{}, {}])
    dealt: list[bool] = field(default_factory=lambda: [False, False])
    #: cards the observer knows, by position
    known: dict[int, Card] = field(default_factory=dict)
    #: a stock draw waiting for the other player's key: (position, drawer)
    pending_stock: tuple[int, int] | None = None
    opened: list[sh.HandSecrets | None] = field(default_factory=lambda: [None, None])
    checked: bool = False  # both openings recomputed and found consistent
    #: ids of the last entry of play in each feed, once the hand is over
    last_play: tuple[bytes, bytes] | None = None
    checkpoints: list[Any] = field(default_factory=lambda: [None, None])
    over: bool = False

    @property
    def first(self) -> int:
        """The first shuffler: the non-dealer."""
        return 1 - self.dealer

    def ctx(self, game: bytes, author: int) -> sh.Ctx:
        return sh.Ctx(game, self.number, author)

    def stage(self) -> tuple[str, tuple[int, ...]]:
        """The schedule row this hand is at: (entry kind, who owes it)."""
        a, b = self.first, 1 - self.first
        missing = tuple(p for p in (HOST, GUEST) if self.commits[p] is None)
        if missing:
            return "commit", missing
        for kind, who, done in (
            ("shuffle", a, self.shuffles[a]),
            ("challenge", b, self.challenges[b]),
            ("answers", a, self.answers[a]),
            ("shuffle", b, self.shuffles[b]),
            ("challenge", a, self.challenges[a]),
            ("answers", b, self.answers[b]),
            ("lock", a, self.locks[a]),
            ("lock", b, self.locks[b]),
        ):
            if done is None:
                return kind, (who,)
        if not self.dealt[a]:
            return "keys", (a,)
        if not self.over:
            return "play", ()
        missing = tuple(p for p in (HOST, GUEST) if self.opened[p] is None)
        if missing:
            return "open", missing
        missing = tuple(p for p in (HOST, GUEST) if self.checkpoints[p] is None)
        if missing:
            return "checkpoint", missing
        return "done", ()

    def deck(self, step: int) -> list[bytes]:
        """D1..D4 as logged (step 0: the card points)."""
        a, b = self.first, 1 - self.first
        msgs = [None, self.shuffles[a], self.shuffles[b], self.locks[a], self.locks[b]]
        if step == 0:
            return list(sh.card_points(self.n))
        msg = msgs[step]
        assert msg is not None
        return list(msg.d_out)


# ------------------------------------------------------------------------ the fold state


@dataclass
class _State:
    hellos: list[Entry | None] = field(default_factory=lambda: [None, None])
    game: bytes | None = None
    rules: RuleSet | None = None
    k: int = sh.K_DEFAULT
    claim_timeout: int = 120
    names: tuple[str, str] = NAMES
    host_nonce: bytes | None = None
    match: MatchState | None = None
    hand: HandFold | None = None
    hands: list[HandFold] = field(default_factory=list)
    cheat: Cheat | None = None
    #: disputes appended, as (disputer, entry id named, rule)
    disputes: list[tuple[int, bytes, str]] = field(default_factory=list)
    #: a dispute the table could not confirm yet: waits for the disputer's open
    pending_dispute: tuple[int, bytes, int, str] | None = None
    claims: list[Entry] = field(default_factory=list)
    resigned: int | None = None
    placed: dict[int, list[Entry]] = field(default_factory=lambda: {HOST: [], GUEST: []})
    events: list[tuple[int, Event]] = field(default_factory=list)

    def fork(self) -> _State:
        """A copy to restart from. Hands before the current one are finished and never
        change again, so they are shared; the current hand is copied."""
        new = copy.copy(self)
        new.hellos = list(self.hellos)
        new.hands = [*self.hands[:-1], *(copy.deepcopy(h) for h in self.hands[-1:])]
        new.hand = new.hands[-1] if self.hand is not None else None
        new.placed = {a: list(v) for a, v in self.placed.items()}
        new.events = list(self.events)
        new.disputes = list(self.disputes)
        new.claims = list(self.claims)
        return new


class Table:
    """The table as one observer sees it, kept up to date as the log grows.

    ``viewer`` is the player whose private cards can be read, with ``seeds(hand)``
    returning that player's :class:`~ginp2p.proto.shuffle.HandSecrets` (None: no secrets).
    Expensive checks (proofs, unmasking) are cached by entry id, so refolding from an
    earlier point after a late concurrent entry costs only the engine replay.

    ``lazy_proofs``: hands whose shuffle and lock proofs are not checked entry by entry
    (the audit's speed-up, for hands whose two openings are in the log). The recompute
    at the openings compares every logged deck, sum proof, answer, lock proof and key
    with what the seeds give, so a hand that ends ``checked`` is as valid as with the
    checks. It is unsound for a hand that does not end ``checked`` cleanly (a dispute,
    a failed or missing opening): the caller must fold such a hand again without it.
    The one gap: the cut-and-choose hash C is not recomputed (k decks per shuffle);
    a C that disagrees with honest answers is only caught by the full check.

    The viewer's own shuffle, answers and locks are never proof-checked: its own code
    made them from its own seeds (in a two-peer set-up that was a third of the work).
    """

    def __init__(
        self,
        viewer: int | None = None,
        seeds: Callable[[int], sh.HandSecrets | None] | None = None,
        executor: Executor | None = None,
        lazy_proofs: Collection[int] = frozenset(),
        *,
        on_step: Callable[[Table], None] | None = None,
        checks: dict[Any, Any] | None = None,
    ) -> None:
        """``on_step`` is called after each entry is folded (the replay viewer keeps
        the state of every step). ``checks``: the results of another table's shuffle
        checks to share; they are pure functions of the entries, whoever looks."""
        self.viewer = viewer
        self.lazy_proofs = frozenset(lazy_proofs)
        self._seeds = seeds or (lambda hand: None)
        self.executor = executor
        self.on_step = on_step
        self._s = _State()
        self._order: list[Placed] = []  # what was folded, in order
        self._snaps: list[tuple[int, _State]] = [(0, self._s.fork())]
        self._cache: dict[Any, Any] = {} if checks is None else checks
        self._claim_verdicts: dict[bytes, ClaimVerdict] = {}
        self.problems: tuple[Problem, ...] = ()

    # -- reading ------------------------------------------------------------------
    @property
    def game(self) -> bytes | None:
        return self._s.game

    @property
    def rules(self) -> RuleSet | None:
        return self._s.rules

    @property
    def k(self) -> int:
        return self._s.k

    @property
    def claim_timeout(self) -> int:
        return self._s.claim_timeout

    @property
    def names(self) -> tuple[str, str]:
        return self._s.names

    @property
    def match(self) -> MatchState | None:
        return self._s.match

    @property
    def hand(self) -> HandFold | None:
        """The hand being set up, played or closed (the last one begun)."""
        return self._s.hand

    @property
    def hands(self) -> list[HandFold]:
        return self._s.hands

    @property
    def cheat(self) -> Cheat | None:
        return self._s.cheat

    @property
    def disputes(self) -> list[tuple[int, bytes, str]]:
        return self._s.disputes

    @property
    def claims(self) -> list[Entry]:
        """The claims that took effect (standing or open), in order."""
        return self._s.claims

    @property
    def pending_dispute(self) -> tuple[int, bytes, int, str] | None:
        return self._s.pending_dispute

    @property
    def events(self) -> list[tuple[int, Event]]:
        """(index in the linear order, event), for every event so far."""
        return self._s.events

    @property
    def checks(self) -> dict[Any, Any]:
        """The shuffle checks run so far, by what they checked (see ``checks=``)."""
        return self._cache

    @property
    def placed_count(self) -> int:
        return len(self._order)

    @property
    def finished(self) -> bool:
        """The match is over and nothing more is owed. A claim, a resign or a cheat
        ends it even before the first deal, when there is no match state yet."""
        s = self._s
        over = s.match is not None and s.match.over
        return (over or self.forfeited is not None) and not self.owed()

    @property
    def forfeited(self) -> tuple[int, str] | None:
        """Who lost the match by forfeit and how ("cheat", "resign", "claim"), also
        before the first deal (when there is no match state to say it); else None."""
        s = self._s
        if s.cheat is not None:
            return s.cheat.author, "cheat"
        if s.resigned is not None:
            return s.resigned, "resign"
        if s.claims:
            return s.claims[-1].body.owed_author, "claim"
        return None

    def hand_state(self) -> HandState | None:
        """The engine's hand with everything the observer knows (None between hands)."""
        s = self._s
        if s.match is None or s.match.hand is None or s.hand is None:
            return None
        if s.hand.number != s.match.hand_no:
            return None  # the next hand is being shuffled
        return s.match.hand.with_knowledge(PartialKnowledge(dict(s.hand.known)))

    def owed(self) -> list[Owed]:
        """Who owes which entry now (docs/protocol.md §2's list); empty when nothing is."""
        s = self._s
        if s.hellos[HOST] is None:
            return [Owed(HOST, frozenset({"hello"}), OWED_HOST_HELLO)]
        if s.hellos[GUEST] is None:
            return [Owed(GUEST, frozenset({"hello"}), OWED_GUEST_HELLO)]
        if self.forfeited is not None:  # (a claim on the nonce ends it before any deal)
            return []
        if s.host_nonce is None:
            return [Owed(HOST, frozenset({"nonce"}), OWED_NONCE)]
        if s.pending_dispute is not None:
            owing, _, hand, _ = s.pending_dispute
            return [Owed(owing, frozenset({"open"}), f"the seeds of hand {hand} (disputed)")]
        h, m = s.hand, s.match
        if h is None or m is None:
            return []
        kind, who = h.stage()
        if kind == "done":
            return []
        if kind == "play":
            if h.pending_stock is not None:
                pos, drawer = h.pending_stock
                return [Owed(1 - drawer, frozenset({"stock_key"}), f"the key for stock card {pos}")]
            hs = m.hand
            assert hs is not None
            what = "a show" if hs.phase is engine.Phase.SHOW else "a move"
            return [Owed(hs.to_move, PLAY_KINDS, f"{what} in hand {h.number}")]
        what = KIND_WORDS[kind]  # "a commitment", "the opening of the seeds"
        return [Owed(p, frozenset({kind}), f"{what} for hand {h.number}") for p in who]

    def owes(self, player: int) -> Owed | None:
        return next((o for o in self.owed() if o.author == player), None)

    # -- folding ---------------------------------------------------------------------
    def update(self, linear: Linear) -> int:
        """Fold a new linear order; returns the index from which the fold was redone
        (events at or after it are new or changed)."""
        before, self._claim_verdicts = self._claim_verdicts, linear.claims
        same = self._same_prefix(linear.order)
        for cid, verdict in linear.claims.items():  # an open claim since beaten (or standing)
            old, placed = before.get(cid), linear.placed(cid)
            if old is not None and old.verdict is not verdict.verdict and placed is not None:
                same = min(same, placed.index)
        start = same
        if same < len(self._order):  # a late entry changed the past: refold from a hand start
            while self._snaps[-1][0] > same:
                self._snaps.pop()
            start, snap = self._snaps[-1]
            self._s = snap.fork()
            del self._order[start:]
        self.problems = linear.problems  # before folding: a dispute may name a problem's entry
        for p in linear.order[start:]:
            self._order.append(p)
            self._step(p)
            if self.on_step is not None:
                self.on_step(self)
        if self._s.cheat is None and linear.problems:
            self._problem(linear.problems[0])
        return start

    def _same_prefix(self, order: Sequence[Placed]) -> int:
        """How many leading entries of ``order`` this table has already folded as placed.

        A log's linear order keeps its Placed objects until a late entry rewrites the
        order from some step on, so the identical prefix is found by bisection (a long
        match would otherwise compare every entry on every move); from there on, equal
        entries (same id, same void) still count as folded.
        """
        mine = self._order
        lo, hi = 0, min(len(order), len(mine))
        while lo < hi:
            mid = (lo + hi) // 2
            if order[mid] is mine[mid]:
                lo = mid + 1
            else:
                hi = mid
        limit = min(len(order), len(mine))
        while lo < limit and (order[lo].entry.id, order[lo].void) == (
            mine[lo].entry.id, mine[lo].void
        ):  # fmt: skip
            lo += 1
        return lo

    def _problem(self, problem: Problem) -> None:
        rule = {"fork": "equivocation", "chain": "broken-chain", "ack": "bad-ack",
                "chats": "chat-flood"}[problem.what]  # fmt: skip
        who = self._s.names[problem.author]
        detail = {
            "fork": f"two different entries signed by {who} as seq {problem.seq}",
            "chain": f"{who}'s entry {problem.seq} does not follow their entry {problem.seq - 1}",
            "ack": f"{who}'s entry {problem.seq}: {problem.reason}",
            "chats": f"{who}'s entry {problem.seq} is one chat line more than the "
            f"{MAX_CHAT_RUN} the log allows in a row with nothing from "
            f"{self._s.names[1 - problem.author]} between",
        }[problem.what]
        e = problem.entries[0]
        hand = self._s.hand.number if self._s.hand else 0
        self._convict(Cheat(problem.author, e.id, problem.seq, hand, rule, detail))

    def _emit(self, event: Event) -> None:
        self._s.events.append((len(self._order) - 1, event))

    def _convict(self, cheat: Cheat) -> None:
        s = self._s
        if s.cheat is not None:
            return
        s.cheat = cheat
        if s.match is not None:  # found at the last hand's openings too: still a forfeit
            s.match = mt.forfeit(s.match, cheat.author, MatchEnd.CHEAT)
        self._emit(CheatDetected(cheat))

    def _step(self, p: Placed) -> None:
        e = p.entry
        s = self._s
        s.placed[e.author].append(e)
        if p.void:
            return
        try:
            if e.kind == "chat":
                self._emit(Chatted(e.author, for_screen(e.body.text)))
            elif e.kind == "dispute":
                self._dispute(e)
            elif s.cheat is not None:
                if e.kind == "open":
                    self._open_after_cheat(e)
            elif e.kind == "resign":
                self._resign(e)
            elif e.kind == "claim":
                self._claim(e)
            else:
                self._owed_entry(p)
        except _Broken as b:
            hand = s.hand.number if s.hand else 0
            bad = b.culprit or e
            self._convict(Cheat(bad.author, bad.id, bad.seq, hand, b.rule, b.detail))

    def _owed_entry(self, p: Placed) -> None:
        e, s = p.entry, self._s
        lost = s.claims[-1].body.owed_author if s.claims else None
        if s.resigned not in (None, e.author) or lost == e.author:
            return  # written before its author saw the resign or claim that ended the match
        # judged at its ack point: its author had not seen these opponent entries. A
        # dispute sent across it changes what is owed (the disputer's seeds), but not
        # what its author owed when it wrote it.
        unseen = [u for u in s.placed[1 - e.author] if u.seq > e.ack_seq] if p.concurrent else []
        owed = self._owed_at(e) if any(u.kind == "dispute" for u in unseen) else self.owed()
        if not any(o.author == e.author and e.kind in o.kinds for o in owed):
            raise _Broken(
                "out-of-turn",
                f"{sent_words(e.kind, s.names[e.author])} when {_describe_owed(owed, s.names)}",
            )
        if e.kind not in ev.COMMUTING:
            waited = [u for u in unseen if u.kind not in ("chat", "dispute")
                      and not self._idle_claim(u)]  # fmt: skip
            if waited:
                raise _Broken(
                    "out-of-turn",
                    f"{sent_words(e.kind, s.names[e.author])} before seeing what it had to "
                    f"wait for: {KIND_WORDS.get(waited[0].kind, waited[0].kind)} from "
                    f"{s.names[1 - e.author]}",
                )
        handler = getattr(self, f"_on_{e.kind}", None)
        if handler is None:
            self._action(e)
        else:
            handler(e)

    # -- the game's set-up -------------------------------------------------------------
    def _on_hello(self, e: Entry) -> None:
        s = self._s
        s.hellos[e.author] = e
        names = list(s.names)
        names[e.author] = for_screen(e.body.name) or NAMES[e.author]
        s.names = (names[0], names[1])
        if e.author == HOST:
            try:
                s.rules = RuleSet.from_dict(dict(e.body.rules))
            except (TypeError, ValueError) as exc:
                raise _Broken("bad-rules", f"the host's rules cannot be played: {exc}") from None
            s.k, s.claim_timeout = e.body.params.k, e.body.params.claim_timeout_s
        else:
            s.game = game_id(e.ack_id, e.id)

    def _on_nonce(self, e: Entry) -> None:
        s = self._s
        host, guest = s.hellos
        assert host is not None and guest is not None and s.game is not None
        if hash_nonce(e.body.nonce) != host.body.nonce_hash:
            raise _Broken("bad-nonce", "the host's nonce does not match its hello")
        s.host_nonce = e.body.nonce
        assert s.rules is not None
        dealer = first_dealer(s.game, e.body.nonce, guest.body.nonce)
        s.match = mt.new_match(s.rules, dealer)
        self._begin_hand()

    def _begin_hand(self) -> None:
        s = self._s
        assert s.match is not None and s.rules is not None
        h = HandFold(s.match.hand_no + 1, s.match.dealer, s.rules.deck_size)
        s.hand = h
        s.hands.append(h)
        self._snaps.append((len(self._order), s.fork()))

    def _hand_of(self, e: Entry) -> HandFold:
        h = self._s.hand
        assert h is not None
        if e.body.hand != h.number:
            raise _Broken(
                "wrong-hand",
                f"{KIND_WORDS.get(e.kind, e.kind)} for hand {e.body.hand} during hand {h.number}",
            )
        return h

    # -- the shuffle -------------------------------------------------------------------
    def _on_commit(self, e: Entry) -> None:
        h = self._hand_of(e)
        commit = sh.Commit(e.body.c, e.body.P)
        self._checked(("commit", e.id), lambda: sh.check_commit(commit))
        h.commits[e.author] = commit
        h.commit_ids[e.author] = e.id

    def _checked(self, key: Any, check: Callable[[], None]) -> None:
        """Run a shuffle check once per key; a failure is the entry's author's."""
        if key not in self._cache:
            try:
                check()
                self._cache[key] = None
            except sh.ShuffleError as exc:
                self._cache[key] = exc
        error = self._cache[key]
        if error is not None:
            raise _Broken(error.reason, error.message)  # the code is the rule, not words

    def _unproven(self, h: HandFold, author: int) -> bool:
        """Whether ``author``'s proofs in this hand go unchecked (see the class doc)."""
        return author == self.viewer or h.number in self.lazy_proofs

    def _proof(self, h: HandFold, kind: str, a: int, msg: Any) -> Callable[[], None]:
        """The check of player ``a``'s ``msg``: its shuffle (a ShuffleMsg), the answers
        to its shuffle proof (Answers) or its lock (LockMsg)."""
        s = self._s
        commit, shuffled = h.commits[a], h.shuffles[a]
        assert commit is not None and s.game is not None
        ctx = h.ctx(s.game, a)
        if kind == "shuffle":
            d_in = h.deck(0 if a == h.first else 1)
            return lambda: sh.check_shuffle(commit.P, ctx, d_in, msg)
        if kind == "answers":
            d_in = h.deck(0 if a == h.first else 1)
            bits = h.challenges[1 - a]
            assert shuffled is not None and bits is not None
            return lambda: sh.check_answers(ctx, d_in, shuffled, bits, msg, s.k, self.executor)
        assert kind == "lock"
        d_in = h.deck(2 if a == h.first else 3)
        return lambda: sh.verify_lock(commit.P, ctx, d_in, msg, self.executor)

    def _prove(self, e: Entry, h: HandFold, msg: Any) -> None:
        """Check the proof ``e`` carries (``msg``), unless it goes unchecked; before the
        hand takes ``msg`` in, so that a failed entry leaves no trace."""
        if not self._unproven(h, e.author):
            self._checked((e.kind, e.id), self._proof(h, e.kind, e.author, msg))

    def _on_shuffle(self, e: Entry) -> None:
        h = self._hand_of(e)
        msg = sh.ShuffleMsg(list(e.body.points), _split32(e.body.sum_proof, "sum proof"),
                            e.body.deck_hash)  # fmt: skip
        _need_len(msg.d_out, h.n, "the shuffled deck")
        self._prove(e, h, msg)
        h.shuffles[e.author], h.shuffle_ids[e.author] = msg, e.id

    def _on_challenge(self, e: Entry) -> None:
        h = self._hand_of(e)
        step = 1 if e.author != h.first else 2
        if e.body.step != step:
            raise _Broken("bad-challenge", f"a challenge for step {e.body.step}, owed: {step}")
        h.challenges[e.author] = bits_from_bytes(e.body.bits, self._s.k)

    def _on_answers(self, e: Entry) -> None:
        h = self._hand_of(e)
        a = e.author
        step = 1 if a == h.first else 2
        if e.body.step != step:
            raise _Broken("bad-answers", f"answers for step {e.body.step}, owed: {step}")
        if [r.bit for r in e.body.answers] != h.challenges[1 - a]:
            raise _Broken("bad-answers", "the answers do not follow the challenge bits")
        answers = sh.Answers(
            [r.scalar for r in e.body.answers], [list(r.perm) for r in e.body.answers]
        )
        self._prove(e, h, answers)
        h.answers[a] = answers

    def _on_lock(self, e: Entry) -> None:
        h = self._hand_of(e)
        a = e.author
        msg = sh.LockMsg(list(e.body.points), list(e.body.pubkeys), _split32(e.body.proof, "proof"))
        _need_len(msg.d_out, h.n, "the locked deck")
        _need_len(msg.keys, h.n, "the lock's public keys")
        self._prove(e, h, msg)
        h.locks[a] = msg
        if a == h.first:
            if e.body.deal_keys:
                raise _Broken("bad-keys", "the first lock carries no deal keys")
        else:
            self._deal_keys(e, h, e.body.deal_keys)

    def _on_keys(self, e: Entry) -> None:
        h = self._hand_of(e)
        self._deal_keys(e, h, e.body.keys)

    def _deal_keys(self, e: Entry, h: HandFold, keys: Sequence[Any]) -> None:
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

    def _publish(self, e: Entry, h: HandFold, keys: Iterable[Any]) -> None:
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

    def _placed_entry(self, cheat: Cheat) -> Entry:
        return next(x for x in self._s.placed[cheat.author] if x.id == cheat.entry)

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

    # -- play --------------------------------------------------------------------------
    def _on_stock_key(self, e: Entry) -> None:
        h = self._hand_of(e)
        assert h.pending_stock is not None
        pos, drawer = h.pending_stock
        if e.body.pos != pos:
            raise _Broken("bad-keys", f"a key for position {e.body.pos}, owed: {pos}")
        h.pending_stock = None
        self._publish(e, h, [_PosKey(pos, e.body.key)])
        if drawer == self.viewer and pos in h.known:
            self._emit(Moved(drawer, DrawStock(), h.known[pos]))

    def _action(self, e: Entry) -> None:
        s, h = self._s, self._hand_of(e)
        assert s.match is not None and s.match.hand is not None
        hs = s.match.hand
        a = e.author
        try:
            action = ev.body_action(e.kind, e.body, a)
        except (ValueError, TypeError) as exc:
            raise _Broken("malformed", f"{_the(e.kind)} does not describe a move ({exc})") \
                from None  # fmt: skip
        held = set(hs.hands[a])
        for item in e.body.keys:
            if item.pos not in held:
                raise _Broken("bad-keys", f"a key for position {item.pos}, not in the hand")
        self._publish(e, h, e.body.keys)
        if e.kind in _SHOWING:
            hidden = [pos for pos in hs.hands[a] if pos not in h.keys[a]]
            if hidden:
                raise _Broken("hidden-card", f"{_the(e.kind)} does not show the whole hand")
        before = s.match
        m = replace(before, hand=hs.with_knowledge(PartialKnowledge(dict(h.known))))
        try:
            m = mt.apply(m, action, a)
        except engine.IllegalAction as exc:
            raise _Broken(f"illegal-move:{exc.rule}", str(exc)) from None
        except engine.HiddenCard as exc:
            raise _Broken("hidden-card", f"{_the(e.kind)} shows a card it did not reveal: {exc}") \
                from None  # fmt: skip
        s.match = m
        new = m.hand
        assert new is not None
        card = None
        if isinstance(action, DrawStock):
            h.pending_stock = (hs.stock_next, a)
        elif isinstance(action, DrawDiscard | TakeUpcard):  # the pile's top: public
            card = h.known.get(hs.discard_pile[-1])  # (hs's knowledge may predate the deal's)
        elif hasattr(action, "card"):
            card = action.card
        if not isinstance(action, DrawStock) or a != self.viewer:
            self._emit(Moved(a, action, card))
        if new.over:
            self._hand_over(h, new)

    def _hand_over(self, h: HandFold, hs: HandState) -> None:
        s = self._s
        assert s.match is not None and hs.result is not None
        h.over = True
        heads = [s.placed[a][-1].id if s.placed[a] else bytes(32) for a in (HOST, GUEST)]
        h.last_play = (heads[0], heads[1])
        self._emit(HandScored(h.number, hs.result, s.match.scores))
        if s.match.over:
            self._emit(MatchOver(s.match.winner, s.match.end, s.match.totals))  # type: ignore[arg-type]

    # -- the end of a hand ---------------------------------------------------------------
    def _on_open(self, e: Entry) -> None:
        h = self._hand_of(e)
        self._opening(e, h)
        pending = self._s.pending_dispute
        if pending is not None and pending[0] == e.author:
            self._settle_dispute(h)
        elif all(h.opened):
            self._recompute(h)

    def _settle_dispute(self, h: HandFold) -> None:
        """The disputer opened its seeds: its own steps are checked against them first
        (a disputer whose lock keys do not come from its seeds would otherwise make the
        accused's honest keys look wrong), then every key the accused published is read
        with the disputer's derived keys. Whoever is found out forfeits; if nobody is,
        the dispute was false."""
        s = self._s
        assert s.pending_dispute is not None
        disputer, named, _, rule = s.pending_dispute
        s.pending_dispute = None
        cheat = self.opener_cheat(h, disputer)
        if cheat is not None:
            self._convict(cheat)
            return
        # the false statement is the dispute itself (the open only settles it)
        dispute = next(x for x in reversed(s.placed[disputer])
                       if x.kind == "dispute" and x.body.entry == named)  # fmt: skip
        words = f"{s.names[disputer]} disputed an entry that checks out ({for_screen(rule)})"
        self._convict(Cheat(disputer, dispute.id, dispute.seq, h.number, "false-dispute", words))

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

    def _opening(self, e: Entry, h: HandFold) -> None:
        s = self._s
        a = e.author
        commit = h.commits[a]
        if commit is None:
            raise _Broken("bad-opening", "an opening without a commitment")
        assert s.game is not None
        secrets = sh.HandSecrets(e.body.perm_seed, e.body.key_seed)
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
        return (x for x in self._s.placed[author] if getattr(x.body, "hand", None) == h.number)

    def _key_entry(self, h: HandFold, author: int, pos: int) -> Entry | None:
        """The entry in which ``author`` published its key for ``pos`` in hand ``h``."""
        for x in self._hand_entries(h, author):
            b = x.body
            if x.kind == "stock_key":
                positions = [b.pos]
            else:
                keys = b.deal_keys if x.kind == "lock" else getattr(b, "keys", ())
                positions = [k.pos for k in keys]
            if pos in positions:
                return x
        return None

    def _on_checkpoint(self, e: Entry) -> None:
        h, s = self._hand_of(e), self._s
        assert s.match is not None and h.last_play is not None
        want = (h.last_play[0], h.last_play[1], tuple(s.match.scores))
        got = (e.body.last_host, e.body.last_guest, (e.body.scores.host, e.body.scores.guest))
        if got != want:
            raise _Broken("bad-checkpoint", _checkpoint_words(got, want, s.names))
        h.checkpoints[e.author] = e.body
        if all(c is not None for c in h.checkpoints) and not s.match.over:
            self._begin_hand()

    # -- enders ------------------------------------------------------------------------
    def _resign(self, e: Entry) -> None:
        s = self._s
        s.resigned = e.author
        if s.match is not None and not s.match.over:
            s.match = mt.forfeit(s.match, e.author, MatchEnd.RESIGN)
            self._emit(MatchOver(s.match.winner, MatchEnd.RESIGN, s.match.totals))

    def _idle_claim(self, e: Entry) -> bool:
        """A claim without effect (void, invalid or beaten): nothing to wait for."""
        verdict = self._claim_verdicts.get(e.id)
        return e.kind == "claim" and (verdict is None or not verdict.verdict.takes_effect)

    def _claim(self, e: Entry) -> None:
        s = self._s
        verdict = self._claim_verdicts.get(e.id)
        if verdict is not None and verdict.verdict is Verdict.INVALID:
            # an honest peer never signs one; unjudged, they would be a flood like chats
            raise _Broken("bad-claim", f"a claim that names no entry to judge: {verdict.reason}")
        if verdict is None or not verdict.verdict.takes_effect:
            return
        if s.resigned is not None or s.claims:
            return  # a concurrent resign or claim, placed first, ended the match: no effect
        b = e.body
        every = self._owed_at(e)
        owed = [o for o in every if o.author == b.owed_author]
        # every kind that would fulfil the debt: a claim naming only some of them (one
        # the owing player will not use) could never be beaten by its answer
        if not any(o.kinds <= set(b.kinds) for o in owed):
            raise _Broken(
                "false-claim",
                f'claimed that {s.names[b.owed_author]} owed "{for_screen(b.what)}", '
                f"but {_describe_owed(every, s.names)}",
            )
        s.claims.append(e)
        if s.match is not None:  # after the last hand too (its openings were owed)
            s.match = mt.forfeit(s.match, b.owed_author, MatchEnd.CLAIM)
        self._emit(
            MatchOver(1 - b.owed_author, MatchEnd.CLAIM, s.match.totals if s.match else None)
        )

    def _owed_at(self, e: Entry) -> list[Owed]:
        """What was owed at ``e``'s ack point: what its author had seen. Entries of the
        other player that it had not seen may be placed before it (an ender sent
        meanwhile, say a dispute); they do not make a fair claim false, nor a move made
        in turn out of turn. Then the entries its author had seen are folded again on
        their own (the shared checks make that an engine replay)."""
        o = 1 - e.author
        if not any(u.seq > e.ack_seq and u.kind != "chat" for u in self._s.placed[o]):
            return self.owed()
        # what its author had seen is fixed by the entry itself; what a fold of it finds
        # may depend on what this observer can check (tables may share the cache)
        key = ("owed-at", e.id, self.viewer, self.lazy_proofs)
        if key not in self._cache:
            seen = [
                p.entry
                for p in self._order[:-1]
                if p.entry.seq < (e.ack_seq + 1 if p.entry.author == o else e.seq)
            ]
            table = Table(self.viewer, self._seeds, self.executor, self.lazy_proofs,
                          checks=self._cache)  # fmt: skip
            table.update(linearise(seen))
            self._cache[key] = tuple(table.owed())
        return list(self._cache[key])

    def _dispute(self, e: Entry) -> None:
        s = self._s
        s.disputes.append((e.author, e.body.entry, e.body.rule))
        c = s.cheat
        if c is not None and c.author != e.author:
            return  # the table convicted the other player already
        if c is not None:
            return  # the disputer is the one convicted; its dispute changes nothing
        accused = next((x for x in s.placed[1 - e.author] if x.id == e.body.entry), None)
        if accused is None:  # a forked, unchained or badly acked entry is never placed
            for problem in self.problems:
                if problem.author != e.author and e.body.entry in {x.id for x in problem.entries}:
                    self._problem(problem)
                    return
        h = s.hand
        if accused is not None and h is not None and accused.author == self.viewer:
            self._check_own(accused, h)  # its proofs went unchecked: check them now
            if s.cheat is not None:
                return
        if accused is not None and h is not None:
            s.pending_dispute = (e.author, e.body.entry, h.number, e.body.rule)
            if h.opened[e.author] is not None:
                self._settle_dispute(h)  # already opened: settle it now
            return
        raise _Broken(
            "false-dispute",
            f"{s.names[e.author]} disputed an entry that checks out ({for_screen(e.body.rule)})",
        )

    def _check_own(self, e: Entry, h: HandFold) -> None:
        """The viewer's own proof-bearing entry ``e`` is disputed: check its proof after
        all, so that the viewer's table convicts it exactly as the disputer's did."""
        a = e.author
        msg = {
            "shuffle": h.shuffles[a] if h.shuffle_ids[a] == e.id else None,
            "answers": h.answers[a],
            "lock": h.locks[a],
        }.get(e.kind)
        if msg is None or getattr(e.body, "hand", None) != h.number:
            return
        try:
            self._checked((e.kind, e.id), self._proof(h, e.kind, a, msg))
        except _Broken as b:
            self._convict(Cheat(a, e.id, e.seq, h.number, b.rule, b.detail))

    def _open_after_cheat(self, e: Entry) -> None:
        """The honest player opens its seeds after a cheat, so others can verify its side."""
        h = self._s.hand
        if h is None or e.body.hand != h.number or h.opened[e.author] is not None:
            return
        try:
            self._opening(e, h)
        except _Broken:
            return


@dataclass(frozen=True, slots=True)
class _PosKey:
    pos: int
    key: bytes
