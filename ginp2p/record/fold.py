"""A saved log read the audit's way: its records decoded and verified (any order,
repeats, another game's entries and damaged bytes left out, each with its reason), the
entries that are one player's unsupported statement set aside, and the rest folded
through a :class:`~ginp2p.proto.table.Table` with no viewer. The audit's verdicts and
the replay's steps both start from the :class:`Folded` log.

Records are read with the codec's floor on the rounds a hello may ask for
(``shuffle.K_MIN``): only a caller that made the log itself at fewer rounds, a test,
passes a lower ``min_k``. A file is always read at the default.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Container, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, replace

from ginp2p.proto import events as ev
from ginp2p.proto.entry import GUEST, HOST, Entry, game_id, structure_problem
from ginp2p.proto.linear import Linear, Problem
from ginp2p.proto.log import Log, Outcome
from ginp2p.proto.shuffle import K_MIN
from ginp2p.proto.table import Table

__all__ = [
    "UNREADABLE",
    "UNSUPPORTED",
    "Dropped",
    "Folded",
    "fold_records",
    "game_of",
]

#: A record whose bytes are no entry at all (a flipped bit, say): what went wrong in
#: the decoder says nothing more to people.
UNREADABLE = "its bytes are damaged and do not form a log entry"
#: The reason of an entry set aside as its author's unsupported statement.
UNSUPPORTED = "its author's unsupported statement"


@dataclass
class Dropped:
    """A record left out of the log: its number in its file (from 1), and the file's
    name when an audit reads several copies. Most did not verify; one whose reason is
    :data:`UNSUPPORTED` did, and is set aside (see :func:`_unsupported`)."""

    record: int
    reason: str
    entry: Entry | None
    file: str = ""

    @property
    def set_aside(self) -> bool:
        return self.reason == UNSUPPORTED


def _pick_hellos(decoded: list[tuple[int, Entry]]) -> list[tuple[int, Entry]]:
    """The host and guest hellos of the game most entries belong to (a file may hold
    spliced-in entries of another game: their hellos must not win by coming first)."""
    hellos = [
        (i, e)
        for i, e in decoded
        if e.kind == "hello" and structure_problem(e.fields) is None and e.verify(e.body.key)
    ]
    hosts = {e.id: (i, e) for i, e in hellos if e.author == HOST}
    counts = Counter(e.game for _, e in decoded if e.kind != "hello")
    best: tuple[int, int, list[tuple[int, Entry]]] | None = None
    for i, g in hellos:
        if g.author != GUEST or g.ack_id not in hosts:
            continue
        j, h = hosts[g.ack_id]
        score = (counts[game_id(h.id, g.id)], -min(i, j))
        if best is None or score > best[:2]:
            best = (*score, [(j, h), (i, g)])
    if best is not None:
        return best[2]
    return [(i, e) for i, e in decoded if e.kind == "hello"]


def _decode(records: Sequence[bytes], min_k: int = K_MIN
            ) -> tuple[list[tuple[int, Entry]], list[int]]:  # fmt: skip
    """The records that decode as entries, numbered from 1; the numbers of the rest."""
    decoded: list[tuple[int, Entry]] = []
    bad: list[int] = []
    for i, r in enumerate(records, 1):
        try:
            decoded.append((i, Entry.from_wire(bytes(r), min_k=min_k)))
        except (ev.RemoteProtocolError, ValueError):
            bad.append(i)
    return decoded, bad


def game_of(records: Sequence[bytes]) -> bytes | None:
    """The game these records mostly belong to, if both of its hellos are there."""
    hellos = {e.author: e for _, e in _pick_hellos(_decode(records)[0])}
    if HOST in hellos and GUEST in hellos and hellos[GUEST].ack_id == hellos[HOST].id:
        return game_id(hellos[HOST].id, hellos[GUEST].id)
    return None


def _load(records: Sequence[bytes], sources: Sequence[tuple[str, int]] = (),
          min_k: int = K_MIN) -> tuple[Log, list[Dropped]]:  # fmt: skip
    """A log of every record that verifies, and what was dropped (by record number;
    ``sources``: the name and record count of each file the records came from, in
    order, when there are several)."""
    where = [(name, k) for name, n in sources for k in range(1, n + 1)]

    def dropped_at(i: int, reason: str, entry: Entry | None) -> Dropped:
        name, k = where[i - 1] if where else ("", i)
        return Dropped(k, reason, entry, name)

    decoded, bad = _decode(records, min_k)
    first = _pick_hellos(decoded)
    chosen = {id(e) for _, e in first}
    rest = sorted(
        ((i, e) for i, e in decoded if id(e) not in chosen), key=lambda x: (x[1].seq, x[1].author)
    )
    ordered = [*first, *rest]
    aside: dict[bytes, Entry] = {}
    while True:  # setting entries aside may leave another player's statement unsupported
        log, lost = _build(ordered, aside, dropped_at, min_k)
        more = _unsupported(log)
        if not more:
            break
        aside.update((e.id, e) for e in more)
    record_of: dict[bytes, int] = {}
    for i, e in ordered:
        record_of.setdefault(e.id, i)
    kept = [dropped_at(record_of[e.id], UNSUPPORTED, e)
            for e in sorted(aside.values(), key=lambda e: (e.author, e.seq))]  # fmt: skip
    return log, [*(dropped_at(i, UNREADABLE, None) for i in bad), *lost, *kept]


def _build(ordered: Sequence[tuple[int, Entry]], skip: Container[bytes],
           dropped_at: Callable[[int, str, Entry | None], Dropped], min_k: int = K_MIN
           ) -> tuple[Log, list[Dropped]]:  # fmt: skip
    """A log of the decoded entries (numbered by record) but those in ``skip``, and the
    records it dropped."""
    record_of: dict[bytes, int] = {}
    dropped: list[Dropped] = []
    log = Log(min_k=min_k)
    for i, e in ordered:
        if e.id in skip:
            continue
        record_of.setdefault(e.id, i)
        for added in log.add_entry(e).all():
            if added.outcome is Outcome.DROPPED:
                x = added.entry
                dropped.append(dropped_at(record_of.get(x.id, i) if x else i, added.reason, x))
    return log, dropped


def _unprovable_ack(p: Problem, log: Log) -> bool:
    """An ack problem that is no proof: it names an id the file lacks (not backwards)."""
    if p.what != "ack":
        return False
    e = p.entries[0]
    before = log.at(e.author, e.seq - 1)
    if len(before) != 1:
        return True
    b = before[0]
    return not (e.ack_seq < b.ack_seq or (e.ack_seq == b.ack_seq and e.ack_id != b.ack_id))


def _unsupported(log: Log) -> list[Entry]:
    """Entries to set aside: from an ack of an id no copy holds (while the opponent's
    entry at that seq is there), the rest of its author's feed, when nobody else saw
    any of it (no entry of the other player acks or names one) and it holds no proof
    of its own against its author (a fork, a broken chain, a backwards ack, a flood)."""
    lin = log.linear()
    out: list[Entry] = []
    for p in lin.problems:
        e, a = p.entries[0], p.author
        if not _unprovable_ack(p, log) or log.get(e.ack_id) is not None:
            continue
        if not log.at(1 - a, e.ack_seq) or any(q.author == a and q is not p for q in lin.problems):
            continue
        tail = log.since(a, e.seq - 1)
        if len({x.seq for x in tail}) < len(tail) or _seen(log, a, e.seq, tail):
            continue
        out += tail
    return out


def _seen(log: Log, author: int, seq: int, tail: Sequence[Entry]) -> bool:
    """Whether an entry of the other player acks ``author``'s ``seq`` or a later one, or
    names one of ``tail`` (a dispute, a checkpoint)."""
    ids = {x.id for x in tail}
    for x in log.entries():
        if x.author == author:
            continue
        named = {getattr(x.body, f, None) for f in ("entry", "last_host", "last_guest")}
        if x.ack_seq >= seq or named & ids:
            return True
    return False


# ------------------------------------------------------------------------ folding

_CHAIN_RULES = frozenset({"equivocation", "broken-chain", "bad-ack", "chat-flood"})


def _hands_of(lin: Linear) -> dict[bytes, int]:
    """Each placed entry's hand: its own, or the hand in play when it was placed."""
    out: dict[bytes, int] = {}
    current = 0
    for p in lin.order:
        hand = getattr(p.entry.body, "hand", None)
        if hand is not None:
            current = max(current, hand)
            out[p.entry.id] = hand
        else:
            out[p.entry.id] = current
    return out


@dataclass
class Folded:
    """A log read and folded the audit's way: what the verdicts and the replay start from.

    ``lin`` keeps only the problems that prove something; ``unproven`` are the acks of
    ids the file lacks (see :func:`_unprovable_ack`), damage; ``hand_of`` is each placed
    entry's hand; ``dropped`` the records that did not verify, and the entries set
    aside on loading (``Dropped.set_aside``: in no ``log``, not damage).
    """

    log: Log
    dropped: list[Dropped]
    lin: Linear
    unproven: tuple[Problem, ...]
    hand_of: dict[bytes, int]
    table: Table
    copies: int = 1


def fold_records(
    records: Sequence[bytes],
    *,
    sources: Sequence[tuple[str, int]] = (),
    lazy_proofs: bool = True,
    executor: Executor | None = None,
    on_step: Callable[[Table], None] | None = None,
    min_k: int = K_MIN,
) -> Folded:
    """Load the records (any order, repeats, other games' entries dropped) and fold them
    through a :class:`Table` with no viewer. Proofs are skipped where the recompute at
    the openings covers them (hands both players opened and checkpointed, none
    disputed); a hand that does not end cleanly checked is folded again with every
    proof. ``on_step`` is the table's hook: a fold that starts again calls it from the
    first entry with a new table. ``sources``: the name and record count of each copy
    the records came from, in order, when there are several. ``min_k``: the fewest
    cut-and-choose rounds a hello may ask for (see the module docstring)."""
    log, dropped = _load(records, sources, min_k)
    lin = log.linear()
    unproven = tuple(p for p in lin.problems if _unprovable_ack(p, log))
    lin = replace(lin, problems=tuple(p for p in lin.problems if p not in unproven))
    hand_of = _hands_of(lin)
    lazy: set[int] = set()
    if lazy_proofs:
        closed: dict[tuple[str, int], set[int]] = {}
        for e in log.entries():
            if e.kind in ("open", "checkpoint"):
                closed.setdefault((e.kind, e.body.hand), set()).add(e.author)
        lazy = {
            hand
            for (kind, hand), who in closed.items()
            if kind == "open" and len(who) == 2 and len(closed.get(("checkpoint", hand), ())) == 2
        }
    lazy -= {hand_of[p.entry.id] for p in lin.order if p.entry.kind == "dispute"}
    while True:
        table = Table(None, executor=executor, lazy_proofs=lazy, on_step=on_step)
        table.update(lin)
        c, pending = table.cheat, table.pending_dispute
        bad = {
            h.number
            for h in table.hands
            if h.number in lazy
            and (
                not h.checked
                or (c is not None and c.hand == h.number and c.rule not in _CHAIN_RULES)
                or (pending is not None and pending[2] == h.number)
            )
        }
        if not bad:
            return Folded(log, dropped, lin, unproven, hand_of, table, max(1, len(sources)))
        lazy -= bad
