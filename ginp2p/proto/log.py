"""The signed two-feed log (docs/log.md): the set of verified entries of one game, in
memory and pure.

:class:`Log` checks each entry's signature, structure and game before it stores it,
holds entries that arrive before the hellos, and keeps the linear order
(:mod:`ginp2p.proto.linear`) up to date; the table is a function of the *set* of
entries, whatever order they arrived in. It touches no disk and no clock: the files
that keep a log are :mod:`ginp2p.files.logfile`'s.

Peer bytes never raise here: :meth:`Log.add` returns a typed :class:`Added`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from enum import StrEnum

import nacl.signing

from ginp2p.errors import Ginp2pError, RemoteProtocolError
from ginp2p.proto import events as ev
from ginp2p.proto.claims import Owed
from ginp2p.proto.entry import (
    GUEST,
    HOST,
    ZERO,
    Entry,
    feed_order,
    game_id,
    sign_entry,
    structure_problem,
)
from ginp2p.proto.events import VERSION, EntryFields
from ginp2p.proto.linear import Linear, Linearizer, chat_run
from ginp2p.proto.shuffle import K_MIN

__all__ = [
    "ANOTHER_GAME",
    "MAX_HELD",
    "Added",
    "Log",
    "LogError",
    "Outcome",
    "claim_body",
]


class LogError(Ginp2pError):
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
    is dropped. Without it, each feed's key is the one its hello carries. ``min_k``:
    the fewest cut-and-choose rounds a host hello may ask for (``shuffle.K_MIN``; lower
    only for a caller that chose the rounds of both players itself, a test).
    """

    def __init__(
        self, keys: tuple[bytes | None, bytes | None] = (None, None), *, min_k: int = K_MIN
    ) -> None:
        ev.body_types(min_k)  # LocalProtocolError for a floor the codec does not allow
        self.min_k = min_k
        self._pinned = tuple(keys)
        self._hello: list[Entry | None] = [None, None]
        self._game: bytes | None = None
        self._by_id: dict[bytes, Entry] = {}
        self._slots: tuple[dict[int, list[Entry]], ...] = ({}, {})
        self._top = [0, 0]  # each feed's highest seq stored
        self._held: dict[bytes, Entry] = {}
        self._order = Linearizer()
        self._linear: Linear | None = None

    # -- reading ------------------------------------------------------------------
    @property
    def game(self) -> bytes | None:
        return self._game

    def hello(self, author: int) -> Entry | None:
        return self._hello[author]

    def key(self, author: int) -> bytes | None:
        hello = self._hello[author]
        return hello.body_as(ev.HelloBody).key if hello else self._pinned[author]

    def ids(self) -> frozenset[bytes]:
        return frozenset(self._by_id)

    def get(self, id: bytes) -> Entry | None:
        return self._by_id.get(id)

    def entries(self) -> list[Entry]:
        """Every stored entry (equivocations included), by author, seq and id."""
        return sorted(self._by_id.values(), key=feed_order)

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
        return sorted(self._held.values(), key=feed_order)

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
            entry = Entry.from_wire(wire, min_k=self.min_k)
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
        key = e.body_as(ev.HelloBody).key
        if pinned is not None and key != pinned:
            return Added(Outcome.DROPPED, e, "a hello from a key that is not the pinned one")
        if not signed_here and not e.verify(key):
            return Added(Outcome.DROPPED, e, "bad signature")
        problem = structure_problem(e.fields)
        if problem:
            return Added(Outcome.DROPPED, e, problem)
        params = e.body_as(ev.HelloBody).params
        if params is not None and params.k < self.min_k:  # (decoded at a lower floor)
            return Added(Outcome.DROPPED, e, f"a hello asking for fewer than {self.min_k} "
                                             "cut-and-choose rounds")  # fmt: skip
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
        shows = e.kind == "dispute" and e.body_as(ev.DisputeBody).evidence
        twins = self._fork_shown(e) if shows else ()
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
            evidence = dispute.body_as(ev.DisputeBody).evidence
            twins = [Entry.from_wire(w, min_k=self.min_k) for w in evidence]
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
    def next_fields(self, author: int, kind: str, body: ev.Body) -> EntryFields:
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

    def append(self, key: nacl.signing.SigningKey, author: int, kind: str, body: ev.Body) -> Entry:
        """Sign ``author``'s next entry and add it. Store it in the file before sending."""
        entry = sign_entry(key, self.next_fields(author, kind, body), min_k=self.min_k)
        if self.key(author) not in (None, bytes(key.verify_key)):
            raise LogError("this key is not the one this log holds for that player")
        result = self.add_entry(entry, signed_here=True)
        if result.outcome is not Outcome.NEW:
            raise LogError(f"own entry not accepted: {result.outcome} {result.reason}")
        return entry

    @classmethod
    def from_records(
        cls,
        records: Iterable[bytes],
        keys: tuple[bytes | None, bytes | None] = (None, None),
        *,
        min_k: int = K_MIN,
    ) -> tuple[Log, list[Added]]:
        """A log rebuilt from stored wire records, and what became of each."""
        log = cls(keys, min_k=min_k)
        results = [log.add(r) for r in records]
        return log, results


def claim_body(log: Log, claimant: int, owed: Owed) -> ev.ClaimBody:
    """The body of ``claimant``'s claim that ``owed`` is overdue, to append next."""
    if owed.author != 1 - claimant:
        raise LogError("a claim names the opponent's owed entry")
    ack_seq = log.next_ack(claimant)[0]
    kinds = sorted(owed.kinds, key=ev.CODE.__getitem__)
    body = ev.make("claim", owed.author, ack_seq + 1, kinds, owed.what)
    assert isinstance(body, ev.ClaimBody)
    return body
