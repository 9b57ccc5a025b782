"""The signed two-feed log (docs/log.md), in memory and pure.

One feed per player, as in Secure Scuttlebutt: each entry names its author's
previous entry (``prev``) and the newest opponent entry its author had applied
(``ack``). :class:`Log` and :func:`linearise` touch no disk and no clock: the table
is a function of the *set* of entries, whatever order they arrived in. The files
that keep a log are :mod:`ginp2p.files.logfile`'s; the key that signs it,
:mod:`ginp2p.files.identity`'s.

Peer bytes never raise here: :meth:`Log.add` returns a typed :class:`Added`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

import nacl.bindings
import nacl.exceptions
import nacl.signing

from ginp2p.proto import events as ev
from ginp2p.proto.events import VERSION, EntryFields, RemoteProtocolError

__all__ = [
    "GUEST",
    "HOST",
    "MAX_CHAT_RUN",
    "RUN_KINDS",
    "ZERO",
    "Added",
    "ClaimVerdict",
    "Entry",
    "H",
    "Linear",
    "Log",
    "LogError",
    "Outcome",
    "Owed",
    "Placed",
    "Problem",
    "Verdict",
    "chat_run",
    "claim_body",
    "entry_id",
    "first_dealer",
    "game_id",
    "judge_claim",
    "linearise",
    "nonce_hash",
    "sign_entry",
    "structure_problem",
]

HOST, GUEST = 0, 1
ZERO = bytes(32)
SIGN_CONTEXT = b"ginp2p/v1/entry\0"
ID_CONTEXT = b"ginp2p/v1/id\0"

# ------------------------------------------------------------------------- hashing


def H(label: str, *fields: bytes) -> bytes:
    """SHA-512 over the ASCII label and each field, each prefixed by its 4-byte
    big-endian length: the same H as the shuffle, so no two inputs collide by
    concatenation."""
    h = hashlib.sha512()
    for part in (label.encode("ascii"), *fields):
        h.update(len(part).to_bytes(4, "big"))
        h.update(part)
    return h.digest()


def entry_id(packed: bytes, signature: bytes) -> bytes:
    """SHA-256 over the signed bytes only, so re-wrapping an entry keeps its id."""
    return hashlib.sha256(ID_CONTEXT + packed + signature).digest()


def game_id(host_hello_id: bytes, guest_hello_id: bytes) -> bytes:
    """The game id every later entry carries: binds both hellos, hence both keys."""
    return hashlib.sha256(host_hello_id + guest_hello_id).digest()


def nonce_hash(nonce: bytes) -> bytes:
    """What the host's hello carries instead of its nonce."""
    return H("nonce", nonce)


def first_dealer(game: bytes, host_nonce: bytes, guest_nonce: bytes) -> int:
    """HOST if the low bit of the coin is 0, else GUEST.

    The low bit is that of the digest read as a big-endian number: the last byte's
    least significant bit.
    """
    return H("coin", game, host_nonce, guest_nonce)[-1] & 1


# ------------------------------------------------------------------------- entries


@dataclass(frozen=True, slots=True, eq=False)
class Entry:
    """One signed entry. ``packed`` is kept byte for byte and never re-encoded."""

    packed: bytes
    signature: bytes
    fields: EntryFields
    id: bytes

    @classmethod
    def from_parts(cls, packed: bytes, signature: bytes) -> Entry:
        """Decode ``packed`` (strictly); the signature is not checked here."""
        return cls(packed, signature, ev.decode_entry(packed), entry_id(packed, signature))

    @classmethod
    def from_wire(cls, wire: bytes) -> Entry:
        """Decode wire bytes ``[packed, signature]``; RemoteProtocolError if malformed."""
        return cls.from_parts(*ev.decode_wire(wire))

    @property
    def wire(self) -> bytes:
        """The canonical wire form, as sent and stored."""
        return ev.encode_wire(self.packed, self.signature)

    def verify(self, public_key: bytes) -> bool:
        """True if the signature is ``public_key``'s over this entry."""
        try:
            nacl.signing.VerifyKey(public_key).verify(SIGN_CONTEXT + self.packed, self.signature)
        except (nacl.exceptions.CryptoError, ValueError, TypeError):
            return False
        return True

    game = property(lambda self: self.fields.game)
    author = property(lambda self: self.fields.author)
    seq = property(lambda self: self.fields.seq)
    prev = property(lambda self: self.fields.prev)
    ack_seq = property(lambda self: self.fields.ack_seq)
    ack_id = property(lambda self: self.fields.ack_id)
    kind = property(lambda self: self.fields.kind)
    body = property(lambda self: self.fields.body)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Entry) and other.id == self.id

    def __hash__(self) -> int:
        return hash(self.id)

    def __repr__(self) -> str:
        who = ("host", "guest")[self.author]
        return f"<Entry {who}#{self.seq} {self.kind} {self.id[:4].hex()}>"


def sign_entry(key: nacl.signing.SigningKey, fields: EntryFields) -> Entry:
    """Pack ``fields`` once and sign them."""
    packed = ev.encode_entry(fields)
    signature = key.sign(SIGN_CONTEXT + packed).signature
    return Entry.from_parts(packed, signature)


def structure_problem(f: EntryFields) -> str | None:
    """What is wrong with an entry on its own, without looking at any other entry."""
    if (f.kind == "hello") != (f.seq == 1):
        return "seq 1 is the hello, and a hello is seq 1"
    if (f.seq == 1) != (f.prev == ZERO):
        return "prev is zero exactly at seq 1"
    if (f.kind == "hello") != (f.game == ZERO):
        return "game is zero exactly in a hello"
    if (f.ack_seq == 0) != (f.ack_id == ZERO):
        return "ack_id is zero exactly when ack_seq is 0"
    if f.kind != "hello":
        return None
    b = f.body
    host_fields = (b.rules, b.params, b.nonce_hash)
    if f.author == HOST:
        if f.ack_seq != 0 or None in host_fields or b.nonce is not None:
            return "the host hello acks nothing and has rules, params and nonce_hash only"
    elif f.ack_seq != 1 or host_fields != (None, None, None) or b.nonce is None:
        return "the guest hello acks the host hello and has a nonce only"
    return None


# ------------------------------------------------------------------------- linear order


class Verdict(StrEnum):
    """A claim's standing. OPEN: nothing from the owing player yet (it stands unless
    an entry sent before its author saw the claim still arrives)."""

    OPEN = "open"
    STANDS = "stands"
    BEATEN = "beaten"
    INVALID = "invalid"

    @property
    def takes_effect(self) -> bool:
        """Whether the claim ends the match (for now, while OPEN)."""
        return self in (Verdict.OPEN, Verdict.STANDS)


@dataclass(frozen=True, slots=True)
class ClaimVerdict:
    verdict: Verdict
    by: Entry | None = None
    reason: str = ""


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


def _sort_key(e: Entry) -> tuple[int, int, bytes]:
    return (e.author, e.seq, e.id)


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


class _Linearizer:
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
            held = tuple(sorted((e for e in every if e.id not in placed), key=_sort_key))
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
    lin = _Linearizer()
    lin.bulk(entries)
    return lin.snapshot()


# ------------------------------------------------------------------------- claims


@dataclass(frozen=True, slots=True)
class Owed:
    """What a player owes: the next entry of ``author`` must be one of ``kinds``.

    The protocol knows what is owed (docs/protocol.md §2 lists it); the log only records it
    in a claim and judges the race.
    """

    author: int
    kinds: frozenset[str]
    what: str


def claim_body(log: Log, claimant: int, owed: Owed) -> Any:
    """The body of ``claimant``'s claim that ``owed`` is overdue, to append next."""
    if owed.author != 1 - claimant:
        raise LogError("a claim names the opponent's owed entry")
    ack_seq = log.next_ack(claimant)[0]
    kinds = sorted(owed.kinds, key=ev.CODE.__getitem__)
    return ev.make("claim", owed.author, ack_seq + 1, kinds, owed.what)


def judge_claim(claim: Entry, owing: Sequence[Entry]) -> ClaimVerdict:
    """Who wins the race between a claim and the owed entry, by acknowledgements only.

    ``owing`` are the owing player's placed entries in seq order. No clock can be
    checked, so the owed entry beats a claim it does not ack (it may have crossed the
    claim on the wire: BEATEN); an entry of the owing player that acks the claim before
    the owed one makes it stand (STANDS); nothing yet leaves it OPEN (the match ends for
    now; the owed entry, when it comes without acking the claim, reopens it).
    """
    b = claim.body
    if b.owed_author == claim.author or not b.kinds:
        return ClaimVerdict(Verdict.INVALID, None, "a claim names an opponent's entry kinds")
    if b.owed_seq not in (0, claim.ack_seq + 1):
        return ClaimVerdict(Verdict.INVALID, None, "owed_seq is not the next unseen entry")
    for e in owing:
        if e.author != b.owed_author or e.seq <= claim.ack_seq:
            continue
        if e.ack_seq >= claim.seq:
            return ClaimVerdict(Verdict.STANDS, e, "the owing player saw the claim first")
        if e.kind in b.kinds:
            return ClaimVerdict(
                Verdict.BEATEN, e, "the owed entry was sent before its author saw the claim"
            )
    return ClaimVerdict(Verdict.OPEN, None, "nothing from the owing player yet")


# ------------------------------------------------------------------------- the Log


class LogError(Exception):
    """A local misuse of the log (appending where no entry can go)."""


class Outcome(StrEnum):
    NEW = "new"
    DUPLICATE = "duplicate"
    EQUIVOCATION = "equivocation"
    HELD = "held"  # verified later: its author's hello or the game is not known yet
    DROPPED = "dropped"  # a transport fault: not stored


@dataclass(frozen=True, slots=True)
class Added:
    """What :meth:`Log.add` did. ``stored`` entries must go to the file before use.

    ``other`` is the entry already at that seq (equivocation evidence);
    ``released`` are held entries this one let through.
    """

    outcome: Outcome
    entry: Entry | None = None
    reason: str = ""
    other: Entry | None = None
    released: tuple[Added, ...] = ()

    @property
    def stored(self) -> bool:
        return self.outcome in (Outcome.NEW, Outcome.EQUIVOCATION)

    def all(self) -> list[Added]:
        """This result and every released one, in the order they were decided."""
        out = [self]
        for r in self.released:
            out += r.all()
        return out


MAX_HELD = 1024

#: Why an entry of the other player's, of a game other than this log's, is dropped: it
#: runs another game with us (a new one, or an older one resumed).
ANOTHER_GAME_HELLO = "a hello of another game"
ANOTHER_GAME_ENTRY = "an entry of another game"
ANOTHER_GAME_ANSWER = "a guest hello answering another host hello"
#: Any of them.
ANOTHER_GAME = frozenset({ANOTHER_GAME_HELLO, ANOTHER_GAME_ENTRY, ANOTHER_GAME_ANSWER})


class Log:
    """The set of verified entries of one game, in memory; pure (no I/O).

    ``keys`` pins the players' public keys (from pairing): a hello with another key
    is dropped. Without it, each feed's key is the one its hello carries.
    """

    def __init__(self, keys: tuple[bytes | None, bytes | None] = (None, None)) -> None:
        self._pinned = tuple(keys)
        self._hello: list[Entry | None] = [None, None]
        self._game: bytes | None = None
        self._by_id: dict[bytes, Entry] = {}
        self._slots: tuple[dict[int, list[Entry]], ...] = ({}, {})
        self._top = [0, 0]  # each feed's highest seq stored
        self._held: dict[bytes, Entry] = {}
        self._order = _Linearizer()
        self._linear: Linear | None = None

    # -- reading ------------------------------------------------------------------
    @property
    def game(self) -> bytes | None:
        return self._game

    def hello(self, author: int) -> Entry | None:
        return self._hello[author]

    def key(self, author: int) -> bytes | None:
        hello = self._hello[author]
        return hello.body.key if hello else self._pinned[author]

    def ids(self) -> frozenset[bytes]:
        return frozenset(self._by_id)

    def get(self, id: bytes) -> Entry | None:
        return self._by_id.get(id)

    def entries(self) -> list[Entry]:
        """Every stored entry (equivocations included), by author, seq and id."""
        return sorted(self._by_id.values(), key=_sort_key)

    def at(self, author: int, seq: int) -> tuple[Entry, ...]:
        return tuple(self._slots[author].get(seq, ()))

    @property
    def equivocations(self) -> list[tuple[Entry, ...]]:
        return [tuple(s) for a in (HOST, GUEST) for _, s in sorted(self._slots[a].items())
                if len(s) > 1]  # fmt: skip

    @property
    def held_count(self) -> int:
        return len(self._held)

    def held(self) -> list[Entry]:
        """Stored entries not verified yet: their author's hello (or the game) is not
        known. Unverified: what they say is not evidence."""
        return sorted(self._held.values(), key=_sort_key)

    def have(self) -> tuple[int, int]:
        """The contiguous seqs stored per feed (host, guest): what resync says."""
        out = []
        for a in (HOST, GUEST):
            n = 0
            while n + 1 in self._slots[a]:
                n += 1
            out.append(n)
        return out[0], out[1]

    def broken_at(self, author: int) -> int | None:
        """The seq at which the author's feed stopped at a problem (a fork, a broken
        chain, a backwards ack or one naming an entry never written, a chat flood), or
        None. Nothing after it is ever placed."""
        stops = [p.seq for p in (self._order.stops[author], self._order.bad[author]) if p]
        return min(stops, default=None)

    def unanswered_chats(self, author: int) -> int:
        """How many chats end the author's feed with the ack its next entry would carry:
        at :data:`MAX_CHAT_RUN` another chat would stop the feed."""
        return chat_run(self._order.chains[author], self.next_ack(author))

    def since(self, author: int, seq: int) -> list[Entry]:
        """The author's stored entries after ``seq``, in seq order (a resync tail)."""
        return [e for s, es in sorted(self._slots[author].items()) if s > seq for e in es]

    def linear(self) -> Linear:
        """The linear order of the stored entries (kept up to date incrementally)."""
        if self._linear is None:
            self._linear = self._order.snapshot()
        return self._linear

    def __len__(self) -> int:
        return len(self._by_id)

    def __contains__(self, id: object) -> bool:
        return id in self._by_id

    def __eq__(self, other: object) -> bool:
        """Two logs are equal when they hold the same set of entry ids."""
        if not isinstance(other, Log):
            return NotImplemented
        return self._by_id.keys() == other._by_id.keys()

    __hash__ = None  # type: ignore[assignment]

    # -- adding ---------------------------------------------------------------------
    def add(self, wire: bytes) -> Added:
        """Add wire bytes from anywhere (peer, file, ourselves). Never raises on them."""
        try:
            entry = Entry.from_wire(wire)
        except RemoteProtocolError as exc:
            return Added(Outcome.DROPPED, None, f"undecodable: {exc}")
        return self.add_entry(entry)

    def add_entry(self, entry: Entry, *, signed_here: bool = False) -> Added:
        """Add a decoded entry. ``signed_here``: this process just signed it with the
        author's key (:meth:`append`), so its signature need not be checked again."""
        if entry.id in self._by_id:
            return Added(Outcome.DUPLICATE, self._by_id[entry.id])
        if entry.kind == "hello":
            return self._add_hello(entry, signed_here)
        return self._add_other(entry, signed_here)

    def _add_hello(self, e: Entry, signed_here: bool = False) -> Added:
        a = e.author
        pinned = self._pinned[a]
        if pinned is not None and e.body.key != pinned:
            return Added(Outcome.DROPPED, e, "a hello from a key that is not the pinned one")
        if not signed_here and not e.verify(e.body.key):
            return Added(Outcome.DROPPED, e, "bad signature")
        problem = structure_problem(e.fields)
        if problem:
            return Added(Outcome.DROPPED, e, problem)
        host, guest = self._hello
        if self._hello[a] is not None:
            return Added(Outcome.DROPPED, e, ANOTHER_GAME_HELLO)
        if a == GUEST and host is not None and e.ack_id != host.id:
            return Added(Outcome.DROPPED, e, ANOTHER_GAME_ANSWER)
        if a == HOST and guest is not None and guest.ack_id != e.id:
            return Added(Outcome.DROPPED, e, "not the host hello the guest answered")
        self._hello[a] = e
        if a == GUEST:
            self._game = game_id(e.ack_id, e.id)
        return replace(self._store(e), released=self._release())

    def _add_other(self, e: Entry, signed_here: bool = False) -> Added:
        key = self.key(e.author)
        if self._game is None or key is None:
            if e.id not in self._held and len(self._held) >= MAX_HELD:
                return Added(Outcome.DROPPED, e, "too many entries waiting for the hellos")
            self._held[e.id] = e
            return Added(Outcome.HELD, e, "waiting for the hellos")
        if e.game != self._game:
            return Added(Outcome.DROPPED, e, ANOTHER_GAME_ENTRY)
        if not signed_here and not e.verify(key):
            return Added(Outcome.DROPPED, e, "bad signature")
        problem = structure_problem(e.fields)
        if problem:
            return Added(Outcome.DROPPED, e, problem)
        twins = self._fork_shown(e) if e.kind == "dispute" and e.body.evidence else ()
        if twins is None:
            return Added(Outcome.DROPPED, e, "a dispute whose evidence is no fork of the accused")
        added = self._store(e)
        if twins:
            # the pair an equivocation dispute carries: a log holding the dispute holds
            # the fork too, even the equivocator's own file (which stored one of them)
            stored = tuple(t for t in map(self.add_entry, twins) if t.stored)
            added = replace(added, released=stored)
        return added

    def _fork_shown(self, dispute: Entry) -> tuple[Entry, Entry] | None:
        """The two entries a dispute's evidence holds, if they are signed by the accused
        at one seq of this game; else None, and the dispute is dropped.

        So no stored entry carries more evidence than one fork of the other player's,
        which that player never signs if honest: every entry a cheater can fork fits, as
        evidence, in the dispute that answers it; and a dispute is no way for its author
        to slip entries of its own past the checks a receiver gives them.
        """
        accused = 1 - dispute.author
        key = self.key(accused)
        try:
            twins = [Entry.from_wire(w) for w in dispute.body.evidence]
        except RemoteProtocolError:
            return None
        if key is None or len(twins) != 2 or twins[0].id == twins[1].id:
            return None
        a, b = twins
        shown = a.seq == b.seq and all(
            t.author == accused and t.game == self._game and t.verify(key) for t in twins
        )
        return (a, b) if shown else None

    def _store(self, e: Entry) -> Added:
        slot = self._slots[e.author].setdefault(e.seq, [])
        self._top[e.author] = max(self._top[e.author], e.seq)
        other = slot[0] if slot else None
        slot.append(e)
        self._by_id[e.id] = e
        self._order.add(e)
        self._linear = None
        if other is None:
            return Added(Outcome.NEW, e)
        who = ("host", "guest")[e.author]
        return Added(Outcome.EQUIVOCATION, e, f"two entries at {who} seq {e.seq}", other)

    def _release(self) -> tuple[Added, ...]:
        held, self._held = self._held, {}
        return tuple(self._add_other(e) for e in held.values())

    # -- appending our own entries ---------------------------------------------------
    def next_fields(self, author: int, kind: str, body: Any) -> EntryFields:
        """The fields of ``author``'s next entry: seq, prev and the newest ack."""
        if kind == "hello":
            if self._hello[author] is not None:
                raise LogError("this log already has that player's hello")
            ack: tuple[int, bytes] = (0, ZERO)
            if author == GUEST:
                host = self._hello[HOST]
                if host is None:
                    raise LogError("the guest hello acks the host hello, which is missing")
                ack = (1, host.id)
            return EntryFields(VERSION, ZERO, author, 1, ZERO, *ack, kind, body)
        if self._game is None:
            raise LogError("the game is not known until both hellos are in the log")
        seq = self._top[author] + 1
        last = self._slots[author].get(seq - 1, [])
        if len(last) != 1:
            raise LogError("cannot append to a forked or empty feed")
        ack = self.next_ack(author)
        return EntryFields(VERSION, self._game, author, seq, last[0].id, *ack, kind, body)

    def next_ack(self, author: int) -> tuple[int, bytes]:
        """The newest opponent entry placed, never behind the author's last ack."""
        head = self._order.head(1 - author)
        ack = (head.seq, head.id) if head else (0, ZERO)
        if self._top[author]:
            last = self._slots[author][self._top[author]][0]
            if ack[0] < last.ack_seq:  # acks never go backwards
                ack = (last.ack_seq, last.ack_id)
        return ack

    def append(self, key: nacl.signing.SigningKey, author: int, kind: str, body: Any) -> Entry:
        """Sign ``author``'s next entry and add it. Store it in the file before sending."""
        entry = sign_entry(key, self.next_fields(author, kind, body))
        if self.key(author) not in (None, bytes(key.verify_key)):
            raise LogError("this key is not the one this log holds for that player")
        result = self.add_entry(entry, signed_here=True)
        if result.outcome is not Outcome.NEW:
            raise LogError(f"own entry not accepted: {result.outcome} {result.reason}")
        return entry

    @classmethod
    def from_records(
        cls, records: Iterable[bytes], keys: tuple[bytes | None, bytes | None] = (None, None)
    ) -> tuple[Log, list[Added]]:
        """A log rebuilt from stored wire records, and what became of each."""
        log = cls(keys)
        results = [log.add(r) for r in records]
        return log, results
