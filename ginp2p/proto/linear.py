"""The linear order of a log's entries: deterministic, whatever order they arrived in.

An entry is placed once its ``prev`` and the opponent entry it acks are placed; of two
concurrent entries an ender goes last, else the host's first. The order also says why a
feed stops (a fork, a broken chain, a backwards ack, a chat flood), which entries are
void (written after their author's resign, or acking a claim that stands against it)
and each claim's verdict. :class:`~ginp2p.proto.log.Log` keeps it up to date as entries
arrive; the table folds it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

from ginp2p.proto import events as ev
from ginp2p.proto.claims import ClaimVerdict, Verdict, judge_claim
from ginp2p.proto.entry import GUEST, HOST, ZERO, Entry, feed_order

__all__ = [
    "MAX_CHAT_RUN",
    "RUN_KINDS",
    "Linear",
    "Linearizer",
    "Placed",
    "Problem",
    "chat_run",
    "linearise",
]


@dataclass(frozen=True, slots=True)
class Placed:
    """An entry at its place in the linear order.

    ``seen`` counts the entries of each feed (host, guest) its author had applied
    when writing it: the entry is judged against that state (its ack point).
    ``ack_index`` is the position of the opponent entry it acks (-1: none).
    ``concurrent``: an opponent entry it had not seen sorts before it.
    ``void``: kept, without effect, nobody blamed.
    """

    entry: Entry
    index: int
    ack_index: int
    seen: tuple[int, int]
    concurrent: bool
    void: bool = False


@dataclass(frozen=True, slots=True)
class Problem:
    """Why a feed stops: ``fork`` (equivocation), ``chain`` (prev does not match),
    ``ack`` (acks go backwards or name an entry the opponent never wrote), ``chats``
    (more than :data:`MAX_CHAT_RUN` chats in a row with one ack). Each is signed
    evidence against ``author``."""

    what: str
    author: int
    seq: int
    entries: tuple[Entry, ...]
    reason: str


@dataclass(frozen=True)
class Linear:
    """The deterministic order of a set of entries, and what could not be placed.

    ``held``: stored entries not placed (waiting for a missing entry, or behind a
    problem); ``problems``: why a feed stops; ``claims``: the verdict of every claim
    that is not void, by claim id.
    """

    order: tuple[Placed, ...]
    held: tuple[Entry, ...]
    problems: tuple[Problem, ...]
    claims: dict[bytes, ClaimVerdict] = field(default_factory=dict)

    @property
    def entries(self) -> tuple[Entry, ...]:
        return tuple(p.entry for p in self.order)

    def placed(self, id: bytes) -> Placed | None:
        return self._index().get(id)

    def head(self, author: int) -> Entry | None:
        """The author's last placed entry: what a new entry of the opponent acks."""
        for p in reversed(self.order):
            if p.entry.author == author:
                return p.entry
        return None

    def _index(self) -> dict[bytes, Placed]:
        cache = self.__dict__.get("_by_id")
        if cache is None:
            cache = {p.entry.id: p for p in self.order}
            object.__setattr__(self, "_by_id", cache)
        return cache


def _tie(e: Entry) -> tuple[bool, int]:
    """Of two concurrent entries, an ender goes last, then the lower author first."""
    return (e.kind in ev.ENDERS, e.author)


#: The most chats (and claims) a player may write in a row while the other player
#: writes nothing (one ack): a conversation never needs more, and without a bound a peer
#: could fill the other's memory and disk with signed entries that every file must
#: keep. Claims count too: one beaten at once has no effect, so without the bound they
#: would be a flood of their own.
MAX_CHAT_RUN = 32
#: The kinds a player may write without its turn, many times over, counted in a run.
RUN_KINDS = frozenset({"chat", "claim"})


def chat_run(feed: Sequence[Entry], ack: tuple[int, bytes]) -> int:
    """How many chats and claims acking ``ack`` end ``feed`` (up to :data:`MAX_CHAT_RUN`)."""
    n = 0
    for e in reversed(feed[-MAX_CHAT_RUN:]):
        if e.kind not in RUN_KINDS or (e.ack_seq, e.ack_id) != ack:
            break
        n += 1
    return n


def _link_problem(chain: list[Entry], variants: list[Entry], author: int) -> Problem | None:
    """Why ``variants`` (the entries at the next seq) cannot extend ``chain``."""
    seq = len(chain) + 1
    if len(variants) > 1:
        return Problem("fork", author, seq, tuple(variants), "two entries, one seq")
    e = variants[0]
    last = chain[-1] if chain else None
    if e.prev != (last.id if last else ZERO):
        return Problem("chain", author, seq, (e,), "prev is not the entry before")
    moved = last is not None and (e.ack_seq, e.ack_id) != (last.ack_seq, last.ack_id)
    if moved and last is not None and e.ack_seq <= last.ack_seq:
        return Problem("ack", author, seq, (e,), "the ack goes backwards")
    if e.kind in RUN_KINDS and chat_run(chain, (e.ack_seq, e.ack_id)) >= MAX_CHAT_RUN:
        return Problem("chats", author, seq, (e,),
                       f"more than {MAX_CHAT_RUN} chats or claims in a row with no answer "
                       "between")  # fmt: skip
    return None


@dataclass(frozen=True, slots=True)
class _VoidState:
    """What decides voidness, after some prefix of the order."""

    resigned: tuple[bool, bool] = (False, False)
    resign_seq: tuple[int | None, int | None] = (None, None)
    claims: tuple[Entry, ...] = ()  # claims that are not void, in order


def _void_step(state: _VoidState, e: Entry, own: list[Entry]) -> tuple[bool, _VoidState]:
    """Is ``e`` void, and the state after it. ``own`` is its author's feed.

    Void: it follows its author's own resign, acks the opponent's resign, or acks a
    claim against its author that stands (judged by the author's entries up to ``e``).
    """
    a, o = e.author, 1 - e.author
    rs = state.resign_seq[o]
    void = (
        state.resigned[a]
        or (rs is not None and e.ack_seq >= rs)
        or any(
            c.author == o
            and c.seq <= e.ack_seq
            and judge_claim(c, own[c.ack_seq : e.seq]).verdict is Verdict.STANDS
            for c in state.claims
        )
    )
    if void:
        return True, state
    if e.kind == "resign" and not state.resigned[a]:
        resigned = (True, state.resigned[1]) if a == HOST else (state.resigned[0], True)
        seqs = (e.seq, state.resign_seq[1]) if a == HOST else (state.resign_seq[0], e.seq)
        return False, replace(state, resigned=resigned, resign_seq=seqs)
    if e.kind == "claim":
        return False, replace(state, claims=(*state.claims, e))
    return False, state


class Linearizer:
    """The linear order, kept up to date as entries arrive.

    Gives exactly what a full recomputation over the set gives (the tests compare
    the two under shuffled arrival orders), in amortised constant time per entry when
    entries arrive roughly as they were written. An entry that arrives late restarts
    the merge at the first step where it could have been placed; a fork at a linked
    seq recomputes everything.
    """

    def __init__(self) -> None:
        self.slots: tuple[dict[int, dict[bytes, Entry]], ...] = ({}, {})
        self.count = 0  # entries in the slots (placed or held)
        self._reset()

    def _reset(self) -> None:
        self.chains: tuple[list[Entry], list[Entry]] = ([], [])
        self.stops: list[Problem | None] = [None, None]
        self.bad: list[Problem | None] = [None, None]
        self.order: list[Placed] = []
        self.done: list[tuple[int, int]] = []
        self.states: list[_VoidState] = []
        self.index: dict[tuple[int, int], int] = {}

    def add(self, e: Entry) -> None:
        a = e.author
        slot = self.slots[a].setdefault(e.seq, {})
        if e.id in slot:
            return
        slot[e.id] = e
        self.count += 1
        chain = self.chains[a]
        n = len(chain)
        if e.seq > n + 1:
            return  # beyond a gap or a stop: held
        if e.seq == n + 1 and self.stops[a] is None:
            self._extend(a)
            if len(chain) > n:
                self._merge(self._restart(chain[n]))
            return
        self.rebuild()  # another entry at a linked or stopped seq

    def bulk(self, entries: Iterable[Entry]) -> None:
        for e in entries:
            self.slots[e.author].setdefault(e.seq, {})[e.id] = e
        self.count = sum(len(es) for slots in self.slots for es in slots.values())
        self.rebuild()

    def rebuild(self) -> None:
        self._reset()
        self._extend(HOST)
        self._extend(GUEST)
        self._merge(0)

    def _extend(self, a: int) -> None:
        chain, slots = self.chains[a], self.slots[a]
        while self.stops[a] is None and len(chain) + 1 in slots:
            variants = sorted(slots[len(chain) + 1].values(), key=lambda x: x.id)
            self.stops[a] = _link_problem(chain, variants, a)
            if self.stops[a] is None:
                chain.append(variants[0])

    def _restart(self, e: Entry) -> int:
        """The first step at which ``e`` could have been placed."""
        end = len(self.order)
        k = 0
        for author, seq in ((e.author, e.seq - 1), (1 - e.author, e.ack_seq)):
            if seq:
                i = self.index.get((author, seq))
                if i is None:
                    return end
                k = max(k, i + 1)
        return k

    def _ready(self, a: int, done: list[int]) -> Entry | None:
        chain, o = self.chains[a], 1 - a
        bad = self.bad[a]
        if done[a] >= len(chain) or (bad is not None and done[a] + 1 >= bad.seq):
            return None
        e = chain[done[a]]
        if e.ack_seq > done[o]:
            return None  # waits for the opponent entry it acks
        if e.ack_seq and self.chains[o][e.ack_seq - 1].id != e.ack_id:
            self.bad[a] = Problem("ack", a, e.seq, (e,), "acks an entry the opponent never wrote")
            return None
        return e

    def _merge(self, k: int) -> None:
        for p in self.order[k:]:
            del self.index[(p.entry.author, p.entry.seq)]
        del self.order[k:], self.done[k:], self.states[k:]
        done = list(self.done[-1]) if self.done else [0, 0]
        state = self.states[-1] if self.states else _VoidState()
        while True:
            ready = [e for a in (HOST, GUEST) if (e := self._ready(a, done)) is not None]
            if not ready:
                return
            e = min(ready, key=_tie)
            a, o = e.author, 1 - e.author
            void, state = _void_step(state, e, self.chains[a])
            seen = (e.seq - 1, e.ack_seq) if a == HOST else (e.ack_seq, e.seq - 1)
            ack_index = self.index[(o, e.ack_seq)] if e.ack_seq else -1
            self.index[(a, e.seq)] = len(self.order)
            self.order.append(
                Placed(e, len(self.order), ack_index, seen, done[o] > e.ack_seq, void)
            )
            done[a] += 1
            self.done.append((done[0], done[1]))
            self.states.append(state)

    def head(self, author: int) -> Entry | None:
        n = self.done[-1][author] if self.done else 0
        return self.chains[author][n - 1] if n else None

    def snapshot(self) -> Linear:
        order = tuple(self.order)
        held: tuple[Entry, ...] = ()
        if self.count > len(order):  # (most of the time every entry is placed)
            placed = {p.entry.id for p in order}
            every = (e for slots in self.slots for es in slots.values() for e in es.values())
            held = tuple(sorted((e for e in every if e.id not in placed), key=feed_order))
        problems = sorted(
            (p for p in (*self.stops, *self.bad) if p), key=lambda p: (p.author, p.seq)
        )
        done = self.done[-1] if self.done else (0, 0)
        claims = {
            c.id: judge_claim(c, self.chains[1 - c.author][: done[1 - c.author]])
            for c in (self.states[-1].claims if self.states else ())
        }
        return Linear(order, held, tuple(problems), claims)


def linearise(entries: Iterable[Entry]) -> Linear:
    """Order a set of entries: deterministic, whatever order they arrived in.

    An entry is ready when its prev and the opponent entry it acks are placed. Of
    two ready entries (concurrent: neither saw the other), a resign, claim or
    dispute goes after the other; otherwise the lower author index goes first.
    """
    lin = Linearizer()
    lin.bulk(entries)
    return lin.snapshot()
