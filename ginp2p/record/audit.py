"""The audit: verify a game log end to end and say who, if anybody, broke the rules.

``audit(path)`` reads a ``.ginlog`` file without changing it (no lock, no repair) and
``audit_records`` judges its records. The log is rebuilt without pinned keys (each
feed's key is the one its hello carries), folded through :class:`~ginp2p.proto.table.Table`
(signatures, chains, the schedule, every proof or the recompute that stands in for it,
every key, claims, disputes, the engine), and then checked in the ways only an auditor
can: every position of an opened hand unmasked and shown to be a permutation of the
deck, the hand replayed through the plain engine with every card known, and, where
only one player opened, the other's keys tried against the opener's derived keys.

Verdicts (``Report.verdict``, ``Report.exit_code``):

* **cheated** (1): a validly signed entry breaks a rule or does not follow from its
  author's opened seeds; two validly signed entries at one seq (equivocation); a
  dispute against an entry that checks out; a position proven not to be a card when
  only the other player opened. A cheat proven by an intact signed chain is reported
  whatever damage the rest of the file has: it wins over every other verdict.
* **damaged** (3): records that do not decode or verify, entries of another game, a
  second hello, a torn or unreadable file, entries missing from the middle of the log.
  Anyone holding a file can alter it, so damage blames nobody.
* **incomplete** (2): the log stops where somebody owes an entry, or a claim stands.
* **clean** (0): everything checks out.

Decisions:

* Signed evidence is blamed on its signer. A *fork* (two entries at one seq), a
  *chain* break (an entry whose ``prev`` is not the author's entry before it) and an
  ack that goes *backwards* are made only of entries the author signed, and an honest
  peer never writes them (it fsyncs each entry before sending it): cheated. An ack
  naming an id that is not the opponent's entry at that seq is *not* proof: it is what
  a file looks like when the opponent equivocated and one of its two entries was
  removed from the file. It is damage, blaming nobody.
* Unless nobody else saw it. When the id is in no copy, the opponent's entry at that
  seq is there, and no entry of the opponent acks (or names, in a dispute or a
  checkpoint) that entry or a later one of its author, the entry and the rest of its
  author's feed are that author's *unsupported statement*: one player's word that
  proves nothing, against the opponent (a removed twin cannot be shown) or against
  its author (anyone can remove records from a copy, so a twin no copy holds is no
  proof that none was written). They are listed (``Report.set_aside``), blaming
  nobody, and the log is judged without them: one player cannot turn the audit of a
  game the other's entries prove into *damaged* by signing one more entry into its own
  copy. Once the opponent acks them they were seen: damage, as above. A fork, a
  broken chain, a backwards ack or a chat flood among them is proof, and keeps them.
* A missing entry that a stored entry names (by ``prev`` or ack) was written, and the
  file lost it: damaged, and the entries after it cannot be placed or judged (except
  that equivocations among them are still cheats). A log that simply stops is
  incomplete: nobody can tell a lost tail from an entry never sent.
* Record order, repeats and the msgpack wrapper do not matter: the log is the set of
  entry ids (an id covers only the signed bytes).
* Hand 0 is the set-up: the hellos and the host's nonce. Claims, resigns, disputes and
  chat carry no hand and count for the hand in play when they were placed.
* Speed: for hands that both players closed (two openings and two checkpoints in the
  file) the proofs are not checked entry by entry (``Table(lazy_proofs=…)``): the
  recompute at the openings compares every logged deck, sum proof, answer, lock proof
  and key with what the seeds give. A hand with a dispute is never folded that way,
  and one that does not end cleanly checked is folded again with every proof. The one
  thing the fast path cannot see is a cut-and-choose hash C that disagrees with
  honest answers (recomputing C costs k decks per shuffle): the deck is still exactly
  what the seeds give, and the opponent, whose client checks C on receipt, signed the
  hand's result anyway. ``lazy_proofs=False`` checks every proof.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Container, Iterable, Mapping, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from ginp2p.files.identity import fingerprint, key_to_text
from ginp2p.files.logfile import FileCorrupt, NotALog, read_records
from ginp2p.game import engine
from ginp2p.game.engine import DeckKnowledge, HandResult
from ginp2p.game.match import MatchEnd
from ginp2p.game.rules import RuleSet
from ginp2p.present.words import (
    KIND_WORDS,
    count,
    for_screen,
    match_end_words,
    preset_words,
    result_words,
)
from ginp2p.proto import events as ev
from ginp2p.proto.log import (
    ANOTHER_GAME_ENTRY,
    ANOTHER_GAME_HELLO,
    GUEST,
    HOST,
    Entry,
    Linear,
    Log,
    Outcome,
    Owed,
    Problem,
    game_id,
    structure_problem,
)
from ginp2p.proto.log import Verdict as ClaimState
from ginp2p.proto.table import PLAY_KINDS, Cheat, HandFold, HandScored, Table

__all__ = [
    "Copies",
    "Folded",
    "HandReport",
    "NotOneGame",
    "Report",
    "SetAside",
    "Verdict",
    "audit",
    "audit_records",
    "fold_records",
    "judge",
    "read_copies",
    "worst",
]

FEEDS = ("host", "guest")
#: Version of ``Report.to_json``; bumped when a key changes meaning or disappears.
SCHEMA = 1


class Verdict(StrEnum):
    """What the audit concludes; declared from best to worst, but see :func:`worst`."""

    CLEAN = "clean"
    CHEATED = "cheated"
    INCOMPLETE = "incomplete"
    DAMAGED = "damaged"

    @property
    def exit_code(self) -> int:
        return _EXIT[self]


_EXIT = {Verdict.CLEAN: 0, Verdict.CHEATED: 1, Verdict.INCOMPLETE: 2, Verdict.DAMAGED: 3}
_ORDER = list(Verdict)


def worst(verdicts: Iterable[Verdict]) -> Verdict:
    """The verdict of several: a proven cheat wins over everything (it stands whatever
    else the file lost); otherwise the last in declaration order (damaged, incomplete,
    clean)."""
    vs = set(verdicts)
    if Verdict.CHEATED in vs:
        return Verdict.CHEATED
    return max(vs, key=_ORDER.index, default=Verdict.CLEAN)


@dataclass(frozen=True)
class HandReport:
    """One hand (0: the set-up). ``owed`` and ``damage`` are sentences for people."""

    hand: int
    verdict: Verdict
    cheat: Cheat | None
    owed: tuple[str, ...]
    damage: tuple[str, ...]
    result: HandResult | None


@dataclass(frozen=True)
class SetAside:
    """Entries of one player that the log is judged without: from one whose ack names
    an id no copy holds, the rest of its author's feed, which no entry of the other
    player acks. They prove nothing against anybody (see the module docstring)."""

    author: int
    seqs: tuple[int, ...]
    ids: tuple[bytes, ...]
    text: str


@dataclass(frozen=True)
class Report:
    """The audit of one log: the verdict, each hand's, and the result the log supports.

    ``scores``: the match totals (with bonuses once the match is over); ``winner``:
    0 host, 1 guest, None if the log decides none; ``end``: how the match ended
    (``MatchEnd`` value) or None; ``entries``: distinct verified entries; ``rules``:
    the host's rules as the log states them (None before its hello). ``keys``: each
    player's public key, from its hello (None without one): a name is only what a key
    called itself; ``known``: who the auditor knows each key to be ("you"), or None;
    ``set_aside``: entries judged to be their author's unsupported statement.
    """

    verdict: Verdict
    hands: tuple[HandReport, ...]
    cheat: Cheat | None
    owed: tuple[str, ...]
    damage: tuple[str, ...]
    names: tuple[str, str]
    rules: RuleSet | None
    scores: tuple[int, int] | None
    winner: int | None
    end: str | None
    entries: int
    copies: int = 1
    keys: tuple[bytes | None, bytes | None] = (None, None)
    known: tuple[str | None, str | None] = (None, None)
    set_aside: tuple[SetAside, ...] = ()

    @property
    def preset(self) -> str | None:
        return self.rules.name if self.rules is not None else None

    @property
    def exit_code(self) -> int:
        """0 clean, 1 cheated, 2 incomplete, 3 damaged."""
        return self.verdict.exit_code

    def text(self, only: int | None = None) -> str:
        """The report for people, ending with the match result; ``only``: one hand's
        verdict, cheat, debts and damage (the exit code is then that hand's)."""
        n = self.names
        chosen = [h for h in self.hands if only is None or h.hand == only]
        if only is None:
            lines = [f"ginp2p audit: {self.verdict.upper()} (exit {self.exit_code})"]
            cheat, owed, damage = self.cheat, self.owed, self.damage
        else:
            h = chosen[0]  # the caller checks the hand exists
            label = "set-up" if only == 0 else f"hand {only}"
            lines = [f"ginp2p audit: {label} {h.verdict.upper()} (exit {h.verdict.exit_code}); "
                     f"the whole file: {self.verdict}"]  # fmt: skip
            cheat, owed, damage = h.cheat, h.owed, h.damage
        preset = f", preset {preset_words(self.rules)}" if self.rules is not None else ""
        if self.entries:
            copies = f" in {self.copies} copies" if self.copies > 1 else ""
            lines.append(f"{n[0]} (host) vs {n[1]} (guest){preset}; "
                         f"{count(self.entries, 'entry')}{copies}")  # fmt: skip
            lines += self._key_lines()
        else:
            lines.append("no entries: the players are not known")
        for h in chosen:
            label = "set-up" if h.hand == 0 else f"hand {h.hand}"
            what = f" - {result_words(h.result, n)}" if h.result is not None else ""
            lines.append(f"  {label}: {h.verdict}{what}")
        if cheat is not None:
            lines.append(f"Cheat: {cheat.describe(n)}")
            lines.append(f"  rule {cheat.rule}; {FEEDS[cheat.author]} entry {cheat.seq}, "
                         f"id {cheat.entry.hex()}")  # fmt: skip
        if owed:
            lines.append(f"Owed, {self._owed_hedge()}:")
            lines += [f"  - {o}" for o in owed]
        if damage:
            lines.append("Damage (this blames nobody: anyone holding a file can alter it):")
            lines += [f"  - {d}" for d in damage]
        if self.set_aside:
            lines.append("Set aside, blaming nobody (nobody else saw it; the log is judged "
                         "without it):")  # fmt: skip
            lines += [f"  - {s.text}" for s in self.set_aside]
        lines.append(f"Result: {self._result_text()}")
        return "\n".join(lines)

    def _key_lines(self) -> list[str]:
        """Whose keys signed the log (a name is only what a key called itself): "Keys:
        host Ann, key abcd-… (you)", and the guest's under it."""
        lines = []
        for a, lead in ((HOST, "Keys: "), (GUEST, "      ")):
            key, known = self.keys[a], self.known[a]
            if key is None:  # the name comes from the hello too
                lines.append(f"{lead}{FEEDS[a]}: no hello in the log, so no key")
                continue
            lines.append(f"{lead}{FEEDS[a]} {self.names[a]}, key {fingerprint(key)} "
                         f"({known or 'not a key you know'})")  # fmt: skip
        return lines

    def _owed_hedge(self) -> str:
        if self.copies > 1:
            return _OWED_DAMAGED_COPIES if self.damage else _OWED_COPIES
        return _OWED_DAMAGED if self.damage else _OWED_CUT

    def _result_text(self) -> str:
        n, s = self.names, self.scores
        if s is None:
            return "no hand was dealt"
        if self.winner is not None:
            w = self.winner
            end = self.end or "?"
            if end in _FORFEIT:  # the scores do not decide it: say them plainly
                how = _FORFEIT[end].format(n[1 - w])
                return f"{n[w]} wins: {how}; scores {n[0]} {s[0]}, {n[1]} {s[1]}"
            return f"{n[w]} wins, {s[w]} to {s[1 - w]} ({match_end_words(end, n[1 - w])})"
        return f"no winner in this log; {n[0]} {s[0]}, {n[1]} {s[1]}"

    def to_json(self) -> dict[str, Any]:
        """A plain, stable dict (every key always present) for ``audit --json``."""
        return {
            "schema": SCHEMA,
            "verdict": str(self.verdict),
            "exit": self.exit_code,
            "names": list(self.names),
            "keys": [_key_json(a, self.names, self.keys[a], self.known[a]) for a in (HOST, GUEST)],
            "preset": self.preset,
            "rules_changed": self.rules.changes() if self.rules is not None else {},
            "entries": self.entries,
            "copies": self.copies,
            "scores": list(self.scores) if self.scores is not None else None,
            "winner": self.winner,
            "end": self.end,
            "cheat": _cheat_json(self.cheat, self.names),
            "owed": list(self.owed),
            "damage": list(self.damage),
            "set_aside": [_set_aside_json(x, self.names) for x in self.set_aside],
            "hands": [
                {
                    "hand": h.hand,
                    "verdict": str(h.verdict),
                    "cheat": _cheat_json(h.cheat, self.names),
                    "owed": list(h.owed),
                    "damage": list(h.damage),
                    "result": _result_json(h.result),
                }
                for h in self.hands
            ],
        }


def _key_json(a: int, names: Sequence[str], key: bytes | None, known: str | None
              ) -> dict[str, Any]:  # fmt: skip
    return {
        "feed": FEEDS[a],
        "name": names[a],
        "key": key_to_text(key) if key is not None else None,
        "fingerprint": fingerprint(key) if key is not None else None,
        "known": known if key is not None else None,
    }


def _set_aside_json(x: SetAside, names: Sequence[str]) -> dict[str, Any]:
    return {
        "player": x.author,
        "name": names[x.author],
        "feed": FEEDS[x.author],
        "seqs": list(x.seqs),
        "entries": [i.hex() for i in x.ids],
        "text": x.text,
    }


def _cheat_json(c: Cheat | None, names: Sequence[str]) -> dict[str, Any] | None:
    if c is None:
        return None
    return {
        "player": c.author,
        "name": names[c.author],
        "hand": c.hand,
        "feed": FEEDS[c.author],
        "seq": c.seq,
        "entry": c.entry.hex(),
        "rule": c.rule,
        "detail": c.detail,
        "evidence": c.describe(names),
    }


def _result_json(r: HandResult | None) -> dict[str, Any] | None:
    if r is None:
        return None
    return {
        "end": str(r.end),
        "knocker": r.knocker,
        "ended_by": r.ended_by,
        "winner": r.winner,
        "points": list(r.points),
        "gin": r.gin,
        "undercut": r.undercut,
        "at_the_wall": r.at_the_wall,
    }


#: What is owed, said from one file: a player who stopped, a copy cut at a record
#: boundary and (in a damaged file) a lost entry all look the same.
_OWED_CUT = "unless this copy ends early (audit the other player's copy too)"
_OWED_DAMAGED = "as far as this damaged file shows (perhaps in the part that was lost)"
#: From every copy given: only copies cut at the same entry could still hide it.
_OWED_COPIES = "as no copy holds it"
_OWED_DAMAGED_COPIES = "as far as these copies show (one is damaged)"

_FORFEIT = {
    "cheat": "{} forfeits for cheating",
    "claim": "{} forfeits (a claim stands)",
    "resign": "{} resigned",
}
# ------------------------------------------------------------------------ entry points


class NotOneGame(ValueError):
    """Copies given to one audit that hold different games."""


@dataclass(frozen=True)
class Copies:
    """The records of one or more copies of a game, as :func:`read_copies` found them:
    ``damage`` says what reading them found wrong (each line naming its copy when there
    are several); ``sources`` is the name and record count of each copy read, in order
    (empty for a single file, whose records need no file name)."""

    records: list[bytes]
    damage: list[str]
    sources: tuple[tuple[str, int], ...]
    read: int


def read_copies(paths: Sequence[str | os.PathLike[str]], *, lenient: bool = True) -> Copies:
    """Read copies of one game, read-only. ``lenient``: a file that is no game log (or
    whose header is spoilt) is damage; otherwise FileCorrupt or NotALog. OSError or
    NotAFile if a file cannot be read at all; NotOneGame if the copies hold different
    games."""
    many = len(paths) > 1
    records: list[bytes] = []
    damage: list[str] = []
    sources: list[tuple[str, int]] = []
    games: dict[bytes, str] = {}
    for p in paths:
        name = os.fspath(p) if many else ""
        where = f"{name}: " if many else ""
        try:
            got, torn = read_records(p)
        except (FileCorrupt, NotALog) as exc:  # another program's file is "unreadable" too
            if not lenient:
                raise
            damage.append(f"{where}the file cannot be read as a game log ({exc})")
            continue
        damage += [where + t.text() for t in torn]
        if torn and torn[0].reason == "empty":
            continue
        game = _game_of(got) if many else None  # one file: nothing to compare
        if game is not None:
            games.setdefault(game, name)
            if len(games) > 1:
                first = next(iter(games.values()))
                raise NotOneGame(f"{first} and {name} are not copies of one game")
        records += got
        sources.append((name, len(got)))
    return Copies(records, damage, tuple(sources) if many else (), len(sources))


def audit(
    path: str | os.PathLike[str],
    *others: str | os.PathLike[str],
    lazy_proofs: bool = True,
    executor: Executor | None = None,
    known: Mapping[bytes, str] | None = None,
) -> Report:
    """Audit a ``.ginlog`` file, read-only (no lock, no repair): a torn tail is reported,
    never cut. A file that is no game log at all is damaged. OSError or NotAFile if
    there is no file to judge (:func:`~ginp2p.files.logfile.read_error` words them).

    ``others``: more copies of the game (the other player's file). Their entries are
    judged together, as one log: what one copy lost the other may hold, and two signed
    entries at one seq are an equivocation whichever copy each came from. NotOneGame if
    the copies hold different games.

    ``lazy_proofs=False`` checks every proof entry by entry (slow; see the module
    docstring); ``executor`` (a thread pool) splits the curve arithmetic. ``known``:
    the public keys the auditor knows, each with who it is ("you"): the report says
    which of them signed the log.
    """
    c = read_copies([path, *others])
    if c.read:
        return _audit(c.records, c.damage, lazy_proofs, executor, c.sources, known)
    # nothing in it was verified, so nobody can be said to owe anything
    return replace(_audit([], c.damage, lazy_proofs, executor), owed=(), hands=(),
                   copies=1 + len(others))  # fmt: skip


def audit_records(
    records: Iterable[bytes],
    *,
    torn: bool = False,
    lazy_proofs: bool = True,
    executor: Executor | None = None,
    known: Mapping[bytes, str] | None = None,
) -> Report:
    """Audit wire records (any order, repeats allowed); ``torn``: the file they came
    from ended inside a record; ``known`` as for :func:`audit`."""
    damage = ["the file ends inside a record (a torn tail)"] if torn else []
    return _audit(list(records), damage, lazy_proofs, executor, known=known)


# ------------------------------------------------------------------------ loading


@dataclass
class _Dropped:
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


def _decode(records: Sequence[bytes]) -> tuple[list[tuple[int, Entry]], list[int]]:
    """The records that decode as entries, numbered from 1; the numbers of the rest."""
    decoded: list[tuple[int, Entry]] = []
    bad: list[int] = []
    for i, r in enumerate(records, 1):
        try:
            decoded.append((i, Entry.from_wire(bytes(r))))
        except (ev.RemoteProtocolError, ValueError):
            bad.append(i)
    return decoded, bad


def _game_of(records: Sequence[bytes]) -> bytes | None:
    """The game these records mostly belong to, if both of its hellos are there."""
    hellos = {e.author: e for _, e in _pick_hellos(_decode(records)[0])}
    if HOST in hellos and GUEST in hellos and hellos[GUEST].ack_id == hellos[HOST].id:
        return game_id(hellos[HOST].id, hellos[GUEST].id)
    return None


def _load(records: Sequence[bytes], sources: Sequence[tuple[str, int]] = ()
          ) -> tuple[Log, list[_Dropped]]:  # fmt: skip
    """A log of every record that verifies, and what was dropped (by record number;
    ``sources``: the name and record count of each file the records came from, in
    order, when there are several)."""
    where = [(name, k) for name, n in sources for k in range(1, n + 1)]

    def dropped_at(i: int, reason: str, entry: Entry | None) -> _Dropped:
        name, k = where[i - 1] if where else ("", i)
        return _Dropped(k, reason, entry, name)

    decoded, bad = _decode(records)
    first = _pick_hellos(decoded)
    chosen = {id(e) for _, e in first}
    rest = sorted(
        ((i, e) for i, e in decoded if id(e) not in chosen), key=lambda x: (x[1].seq, x[1].author)
    )
    ordered = [*first, *rest]
    aside: dict[bytes, Entry] = {}
    while True:  # setting entries aside may leave another player's statement unsupported
        log, lost = _build(ordered, aside, dropped_at)
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
           dropped_at: Callable[[int, str, Entry | None], _Dropped]
           ) -> tuple[Log, list[_Dropped]]:  # fmt: skip
    """A log of the decoded entries (numbered by record) but those in ``skip``, and the
    records it dropped."""
    record_of: dict[bytes, int] = {}
    dropped: list[_Dropped] = []
    log = Log()
    for i, e in ordered:
        if e.id in skip:
            continue
        record_of.setdefault(e.id, i)
        for added in log.add_entry(e).all():
            if added.outcome is Outcome.DROPPED:
                x = added.entry
                dropped.append(dropped_at(record_of.get(x.id, i) if x else i, added.reason, x))
    return log, dropped


def _ranges(nums: Sequence[int]) -> str:
    """1, 2, 3, 7 -> "1-3, 7"."""
    out: list[str] = []
    nums = sorted(set(nums))
    i = 0
    while i < len(nums):
        j = i
        while j + 1 < len(nums) and nums[j + 1] == nums[j] + 1:
            j += 1
        out.append(str(nums[i]) if i == j else f"{nums[i]}-{nums[j]}")
        i = j + 1
    return ", ".join(out)


def _entry_words(e: Entry) -> str:
    hand = getattr(e.body, "hand", None)
    where = f" in hand {hand}" if hand is not None else ""
    return f"{FEEDS[e.author]} entry {e.seq} ({KIND_WORDS.get(e.kind, e.kind)}{where})"


#: A record whose bytes are no entry at all (a flipped bit, say): what went wrong in
#: the decoder says nothing more to people.
UNREADABLE = "its bytes are damaged and do not form a log entry"
#: Reasons said of several records at once.
_PLURAL = {
    UNREADABLE: "their bytes are damaged and do not form log entries",
    ANOTHER_GAME_ENTRY: "entries of another game",
    ANOTHER_GAME_HELLO: "hellos of another game",
    "bad signature": "bad signatures",
}


def _dropped_lines(dropped: list[_Dropped]) -> list[str]:
    """One line per reason (and file); records of another game summarised."""
    by_reason: dict[tuple[str, str], list[_Dropped]] = {}
    for d in dropped:
        by_reason.setdefault((d.file, d.reason), []).append(d)
    lines = []
    for (file, reason), ds in by_reason.items():
        of = f" of {file}" if file else ""
        if len(ds) > 3:
            many = _PLURAL.get(reason, f"each: {reason}")
            lines.append(f"records {_ranges([d.record for d in ds])}{of}: {many}")
            continue
        for d in ds:
            what = f", {_entry_words(d.entry)}" if d.entry is not None else ""
            lines.append(f"record {d.record}{of}{what}: {reason}")
    return lines


def _lacking(runs: Sequence[tuple[int, int]], no_hello: bool) -> str:
    """The runs of entries a feed lacks, its hello (entry 1) named as such and once:
    "hello (entry 1) and entries 2-3, 7"."""
    hello = no_hello and runs[0][0] == 1
    if hello:  # the hello is entry 1: the first run starts after it
        runs = [(2, runs[0][1])] * (runs[0][1] > 1) + list(runs[1:])
    which = ""
    if runs:
        named = ", ".join(str(x) if x == y else f"{x}-{y}" for x, y in runs)
        which = f"{'entry' if named.isdigit() else 'entries'} {named}"
    return "hello (entry 1)" + f" and {which}" * bool(which) if hello else which


def _missing(log: Log) -> dict[int, list[tuple[int, int]]]:
    """Per feed, the runs ``(first, last)`` of seqs that stored entries name (by prev or
    ack) but the file lacks. Runs, not lists: a signed entry may name any seq at all.
    An entry held for want of its author's hello is in the file, so not lacking (only
    the hello is), though it names nothing: it is not verified."""
    seqs: list[set[int]] = [set(), set()]
    named = [0, 0]
    for e in log.entries():
        seqs[e.author].add(e.seq)
        named[e.author] = max(named[e.author], e.seq - 1)
        named[1 - e.author] = max(named[1 - e.author], e.ack_seq)
    for e in log.held():
        seqs[e.author].add(e.seq)
    out: dict[int, list[tuple[int, int]]] = {}
    for a in (HOST, GUEST):
        runs, want = [], 1
        for seq in sorted(x for x in seqs[a] if x <= named[a]):
            if seq > want:
                runs.append((want, seq - 1))
            want = max(want, seq + 1)
        if want <= named[a]:
            runs.append((want, named[a]))
        if runs:
            out[a] = runs
    return out


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


#: The reason of an entry set aside as its author's unsupported statement.
UNSUPPORTED = "its author's unsupported statement"


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
    aside on loading (``_Dropped.set_aside``: in no ``log``, not damage).
    """

    log: Log
    dropped: list[_Dropped]
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
) -> Folded:
    """Load the records (any order, repeats, other games' entries dropped) and fold them
    through a :class:`Table` with no viewer. Proofs are skipped where the recompute at
    the openings covers them (hands both players opened and checkpointed, none
    disputed); a hand that does not end cleanly checked is folded again with every
    proof. ``on_step`` is the table's hook: a fold that starts again calls it from the
    first entry with a new table. ``sources``: the name and record count of each copy
    the records came from, in order, when there are several."""
    log, dropped = _load(records, sources)
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


# ------------------------------------------------------------------------ auditor checks


def _one_opener(table: Table, h: HandFold) -> Cheat | None:
    """Only one player opened: judged exactly as the table judges a dispute's opener
    (:meth:`Table.opener_cheat`): its own steps first, then the other's keys."""
    x = HOST if h.opened[HOST] is not None else GUEST
    return table.opener_cheat(h, x)


def _replay(
    table: Table, h: HandFold, actions: list[Entry], result: HandResult | None
) -> tuple[Cheat | None, str | None]:
    """Every position read, a permutation of the deck, and the engine with every card
    known agreeing with the fold: (a cheat the full knowledge proves, an inconsistency)."""
    rules = table.rules
    assert rules is not None
    if sorted(c.index for c in h.known.values()) != list(range(h.n)) or len(h.known) != h.n:
        return None, f"hand {h.number}: the unmasked positions are not a permutation of the deck"
    state = engine.start_hand(rules, h.dealer, DeckKnowledge(tuple(h.known[i] for i in range(h.n))))
    for e in actions:
        try:
            state = engine.apply(state, ev.body_action(e.kind, e.body, e.author), e.author)
        except engine.IllegalAction as exc:
            detail = f"{exc} (with every card known)"
            return Cheat(e.author, e.id, e.seq, h.number, f"illegal-move:{exc.rule}", detail), None
        except (engine.EngineError, ValueError, TypeError) as exc:
            return None, f"hand {h.number}: the replay with every card known fails ({exc})"
    if result is not None and state.result != result:
        return None, f"hand {h.number}: the replay with every card known scores differently"
    return None, None


# ------------------------------------------------------------------------ the report


def _owed_words(o: Owed, table: Table) -> str:
    who = table.names[o.author]
    h = table.hand
    if o.kinds == frozenset({"hello"}):
        return f"the {FEEDS[o.author]} has not sent their hello"
    if o.kinds == frozenset({"open"}) and h is not None:
        pending = table.pending_dispute
        if pending is not None:
            return f"{who} has not opened their seeds for hand {pending[2]} to back their dispute"
        return f"{who} has not opened their seeds for hand {h.number}"
    if o.kinds == PLAY_KINDS:
        return f"{who} has not made their move: {o.what}"
    return f"{who} has not sent {o.what}"


def _audit(
    records: Sequence[bytes],
    file_damage: list[str],
    lazy_proofs: bool,
    executor: Executor | None = None,
    sources: Sequence[tuple[str, int]] = (),
    known: Mapping[bytes, str] | None = None,
) -> Report:
    folded = fold_records(records, sources=sources, lazy_proofs=lazy_proofs, executor=executor)
    return judge(folded, file_damage, known)


def judge(folded: Folded, file_damage: Sequence[str] = (),
          known: Mapping[bytes, str] | None = None) -> Report:  # fmt: skip
    """The report on a folded log; ``file_damage``: what reading the file found. Damage
    blames nobody; a cheat forfeits the match; what is owed leaves a hand incomplete.
    ``known``: public keys the auditor knows, with who each is (see :func:`audit`)."""
    table = folded.table
    current = table.hand.number if table.hand is not None else 0
    damage, missing = _damage(folded, file_damage, current)
    results = {x.hand: x.result for _, x in table.events if isinstance(x, HandScored)}
    cheat, earlier, unsettled = _cheat(folded, damage, results, current)
    owed_by_hand = _owed(folded, current) if not missing else {}
    for c in table.claims:  # a standing claim is owed too, and says what it costs
        state = folded.lin.claims.get(c.id)
        if state is not None and state.verdict.takes_effect:
            owed_by_hand.setdefault(folded.hand_of.get(c.id, current), []).append(
                _claim_words(c, state.verdict, table.names)
            )
    scores, winner, end = _result(table, cheat, earlier, unsettled)
    results.update(_resigned(table))  # after the checks: no entry of the hand says it

    hands = []
    for number in [0, *(h.number for h in table.hands)]:
        hc = cheat if cheat is not None and cheat.hand == number else None
        ho = tuple(owed_by_hand.get(number, ()))
        hd = tuple(damage.by_hand.get(number, ()))
        verdict = (Verdict.CHEATED if hc else Verdict.DAMAGED if hd
                   else Verdict.INCOMPLETE if ho else Verdict.CLEAN)  # fmt: skip
        hands.append(HandReport(number, verdict, hc, ho, hd, results.get(number)))
    owed = tuple(o for number in sorted(owed_by_hand) for o in owed_by_hand[number])
    verdict = (Verdict.CHEATED if cheat else Verdict.DAMAGED if damage.lines
               else Verdict.INCOMPLETE if owed else Verdict.CLEAN)  # fmt: skip
    rules = table.rules
    keys = (folded.log.key(HOST), folded.log.key(GUEST))  # from the hellos: none is pinned
    return Report(
        verdict=verdict,
        hands=tuple(hands),
        cheat=cheat,
        owed=owed,
        damage=tuple(damage.lines),
        names=table.names,
        scores=scores,
        winner=winner,
        end=end,
        entries=len(folded.log),
        rules=rules,
        copies=folded.copies,
        keys=keys,
        known=(_known(keys[HOST], known), _known(keys[GUEST], known)),
        set_aside=_set_aside(folded),
    )


def _known(key: bytes | None, known: Mapping[bytes, str] | None) -> str | None:
    return known.get(key) if key is not None and known is not None else None


def _set_aside(folded: Folded) -> tuple[SetAside, ...]:
    """The entries set aside on loading, one statement per author, in words."""
    names, files = folded.table.names, "the file" if folded.copies == 1 else "the copies"
    out = []
    for a in (HOST, GUEST):
        mine = sorted((d.entry for d in folded.dropped if d.set_aside and d.entry is not None
                       and d.entry.author == a), key=lambda e: e.seq)  # fmt: skip
        if not mine:
            continue
        first, o = mine[0], names[1 - a]
        what = KIND_WORDS.get(first.kind, first.kind)
        head, them = (
            (f"entry {first.seq} ({what})", "it")
            if len(mine) == 1
            else (f"entries {_ranges([e.seq for e in mine])} (from {what} on): the first", "them")
        )
        text = (f"{names[a]}'s {head} acks {o}'s entry {first.ack_seq} as "
                f"{first.ack_id[:4].hex()}, which is not in {files}, and no entry of {o}'s "
                f"acks {them}")  # fmt: skip
        out.append(SetAside(a, tuple(e.seq for e in mine), tuple(e.id for e in mine), text))
    return tuple(out)


def _resigned(table: Table) -> dict[int, HandResult]:
    """The hand in play when a player resigned, ended by that resign ("Ann resigned;
    no score"). The table scores no hand for it (the resign forfeits the match), but a
    hand's report says how it ended, as for a pass at the wall."""
    m, lost = table.match, table.forfeited
    if m is None or m.end != MatchEnd.RESIGN or lost is None or lost[1] != "resign":
        return {}
    if m.hand is None or m.hand.over or table.hand is None or table.hand.number != m.hand_no:
        return {}  # resigned between hands: the last one has its own result
    result = engine.apply(m.hand, engine.Resign(lost[0])).result
    return {m.hand_no: result} if result is not None else {}


@dataclass
class _Damage:
    """What the file lacks or spoils: the file's lines, and each hand's."""

    lines: list[str]
    by_hand: dict[int, list[str]]

    def add(self, line: str, hand: int | None = None) -> None:
        self.lines.append(line)
        if hand is not None:
            self.in_hand(hand, line)

    def in_hand(self, hand: int, line: str) -> None:
        self.by_hand.setdefault(hand, []).append(line)


def _damage(folded: Folded, file_damage: Sequence[str], current: int
            ) -> tuple[_Damage, dict[int, list[tuple[int, int]]]]:  # fmt: skip
    """Damage (it blames nobody), and the runs of entries the file lacks by author."""
    log, names = folded.log, folded.table.names
    files, lack = ("the file", "lacks") if folded.copies == 1 else ("the copies", "lack")
    lost = [d for d in folded.dropped if not d.set_aside]  # set aside: no damage
    damage = _Damage([*file_damage, *_dropped_lines(lost)], {})
    for d in lost:
        e = d.entry
        if e is None or e.game != log.game or log.at(e.author, e.seq):
            continue
        hand = getattr(e.body, "hand", None)
        if hand is not None:
            damage.in_hand(hand, f"{_entry_words(e)}: {d.reason}")
    missing = _missing(log)
    for a, runs in missing.items():
        damage.add(f"{files} {lack} {names[a]}'s {_lacking(runs, log.hello(a) is None)}, "
                   "which later entries name", current)  # fmt: skip
    if missing and folded.lin.held:
        damage.add(f"{len(folded.lin.held)} entries after the missing ones cannot be placed "
                   "or judged")  # fmt: skip
    for p in folded.unproven:
        e = p.entries[0]
        damage.add(f"{names[e.author]}'s entry {e.seq} acks {names[1 - e.author]}'s entry "
                   f"{e.ack_seq} as {e.ack_id[:4].hex()}, which is not in {files} (an entry "
                   "is missing, or was never written)", current)  # fmt: skip
    if log.held_count:
        whose = " and ".join(f"{names[a]}'s" for a in (HOST, GUEST) if log.hello(a) is None)
        damage.add(f"{log.held_count} entries wait for {whose or 'a'} hello, which {files} "
                   f"{lack}: not verified")  # fmt: skip
    return damage, missing


def _cheat(folded: Folded, damage: _Damage, results: dict[int, HandResult], current: int
           ) -> tuple[Cheat | None, Cheat | None, bool]:  # fmt: skip
    """The first cheat: the table's, or one only an auditor sees if it comes earlier.
    Returns (the cheat, the auditor's if it is the one, whether a dispute is left
    unsettled by damage); an inconsistency of ginp2p's own is added to ``damage``."""
    table, lin, names = folded.table, folded.lin, folded.table.names
    cheat = table.cheat
    unsettled = False
    if cheat is not None and cheat.rule == "false-dispute":
        # a dispute of an entry whose ack the file cannot judge is not proven false
        disputed = folded.log.get(cheat.entry)
        named = {x.id for p in folded.unproven for x in p.entries}
        lacking = (
            disputed is not None
            and disputed.kind == "dispute"
            and (disputed.body.entry in named or disputed.body.entry not in folded.log)
        )
        if lacking:
            # the disputed entry may be one its author forked and left out of this copy
            # (the peer that disputed it held it): no copy without it can judge it
            assert disputed is not None
            a, files = disputed.author, "file" if folded.copies == 1 else "copies"
            why = ("acks an entry not in the" if disputed.body.entry in named
                   else "is not in the")  # fmt: skip
            damage.add(f"{names[a]} disputed an entry of {names[1 - a]} that {why} {files}: "
                       f"the {files} cannot settle the dispute", cheat.hand)  # fmt: skip
            cheat, unsettled = None, True
    audit_cheat, broken = _auditor_checks(table, lin, folded.hand_of, results, cheat)
    for hand, line in broken:
        damage.lines.append(f"{line} (an inconsistency in ginp2p: please report it)")
        damage.in_hand(hand, line)
    if cheat is None:
        audit_cheat = audit_cheat or _equivocation(folded.log, names, current)
    if audit_cheat is not None and (
        cheat is None or _at(lin, audit_cheat.entry) < _at(lin, cheat.entry)
    ):
        return audit_cheat, audit_cheat, unsettled
    return cheat, None, unsettled


def _owed(folded: Folded, current: int) -> dict[int, list[str]]:
    """What each hand waits for (the set-up, hand 0, for a hello or a nonce)."""
    owed: dict[int, list[str]] = {}
    for o in folded.table.owed():
        hand = 0 if o.kinds & {"hello", "nonce"} else current
        owed.setdefault(hand, []).append(_owed_words(o, folded.table))
    return owed


def _claim_words(c: Entry, verdict: ClaimState, names: tuple[str, str]) -> str:
    o = c.body.owed_author
    claimed = f'{names[c.author]} claimed that {names[o]} owed "{for_screen(c.body.what)}"'
    how = ("no entry of theirs answers it" if verdict is ClaimState.OPEN
           else "they answered only after seeing it")  # fmt: skip
    return f"{claimed} and {how}: the claim stands and {names[o]} forfeits the match"


def _result(table: Table, cheat: Cheat | None, audit_cheat: Cheat | None, unsettled: bool
            ) -> tuple[tuple[int, int] | None, int | None, str | None]:  # fmt: skip
    """The scores, winner and end the log supports. A cheat forfeits, even a match
    already won; one only the auditor found voids the hands from its own on."""
    m = table.match
    scores: tuple[int, int] | None = None
    winner: int | None = None
    end: str | None = None
    if m is not None and unsettled:
        scores = m.scores
    elif m is not None:
        scores = m.totals if m.totals is not None else m.scores
        winner = m.winner
        end = str(m.end) if m.end is not None else None
    if audit_cheat is not None and m is not None:
        before = [x.scores for _, x in table.events
                  if isinstance(x, HandScored) and x.hand < audit_cheat.hand]  # fmt: skip
        scores = before[-1] if before else (0, 0)
    if cheat is not None and m is not None:
        winner, end = 1 - cheat.author, "cheat"
    forfeit = (cheat.author, "cheat") if cheat is not None else table.forfeited
    if m is None and forfeit is not None:  # the match ended before the first deal
        scores, winner, end = (0, 0), 1 - forfeit[0], forfeit[1]
    return scores, winner, end


def _at(lin: Linear, id: bytes) -> float:
    """An entry's place in the linear order; never placed: after every placed one."""
    p = lin.placed(id)
    return p.index if p is not None else float("inf")


def _auditor_checks(
    table: Table,
    lin: Linear,
    hand_of: dict[bytes, int],
    results: dict[int, HandResult],
    cheat: Cheat | None,
) -> tuple[Cheat | None, list[tuple[int, str]]]:
    """What only an auditor checks, hand by hand, up to the table's cheat: the full
    knowledge replay of opened hands, the one-opener check. Returns the first cheat
    found and the inconsistencies (hand, words)."""
    limit = _at(lin, cheat.entry) if cheat is not None else float("inf")
    by_hand: dict[int, list[Entry]] = {}
    for p in lin.order:
        if not p.void and p.index < limit:
            by_hand.setdefault(hand_of[p.entry.id], []).append(p.entry)
    broken: list[tuple[int, str]] = []
    for h in table.hands:
        entries = by_hand.get(h.number, [])
        found: Cheat | None = None
        if h.checked:
            actions = [e for e in entries if e.kind in ev.ACTION_KINDS]
            found, line = _replay(table, h, actions, results.get(h.number))
            if line:
                broken.append((h.number, line))
        elif sum(o is not None for o in h.opened) == 1 and cheat is None:
            found = _one_opener(table, h)
        if found is not None:
            return found, broken
    return None, broken


def _equivocation(log: Log, names: Sequence[str], hand: int) -> Cheat | None:
    """Two validly signed entries at one seq anywhere in the file, placed or not."""
    for pair in log.equivocations:
        e = pair[0]
        h = getattr(e.body, "hand", None)
        detail = f"two different entries signed by {names[e.author]} as seq {e.seq}"
        return Cheat(e.author, e.id, e.seq, h if h is not None else hand, "equivocation", detail)
    return None
