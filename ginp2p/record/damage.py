"""What a log's file lacks or spoils, in words, and the entries set aside as one
player's unsupported statement. Damage blames nobody: anyone holding a file can alter
it. :func:`damage_of` gathers the lines the audit reports, the whole file's and each
hand's; :func:`set_aside` says what was set aside and why.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ginp2p.present.words import KIND_WORDS, count
from ginp2p.proto.entry import GUEST, HOST, Entry
from ginp2p.proto.log import ANOTHER_GAME_ENTRY, ANOTHER_GAME_HELLO, Log
from ginp2p.record.fold import UNREADABLE, Dropped, Folded
from ginp2p.record.report import FEEDS, SetAside

__all__ = ["Damage", "damage_of", "set_aside"]


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


#: Reasons said of several records at once.
_PLURAL = {
    UNREADABLE: "their bytes are damaged and do not form log entries",
    ANOTHER_GAME_ENTRY: "entries of another game",
    ANOTHER_GAME_HELLO: "hellos of another game",
    "bad signature": "bad signatures",
}


def _dropped_lines(dropped: list[Dropped]) -> list[str]:
    """One line per reason (and file); records of another game summarised."""
    by_reason: dict[tuple[str, str], list[Dropped]] = {}
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


def set_aside(folded: Folded) -> tuple[SetAside, ...]:
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


@dataclass
class Damage:
    """What the file lacks or spoils: the file's lines, and each hand's."""

    lines: list[str]
    by_hand: dict[int, list[str]]

    def add(self, line: str, hand: int | None = None) -> None:
        self.lines.append(line)
        if hand is not None:
            self.in_hand(hand, line)

    def in_hand(self, hand: int, line: str) -> None:
        self.by_hand.setdefault(hand, []).append(line)


def damage_of(folded: Folded, file_damage: Sequence[str], current: int
            ) -> tuple[Damage, dict[int, list[tuple[int, int]]]]:  # fmt: skip
    """Damage (it blames nobody), and the runs of entries the file lacks by author."""
    log, names = folded.log, folded.table.names
    files, lack = ("the file", "lacks") if folded.copies == 1 else ("the copies", "lack")
    lost = [d for d in folded.dropped if not d.set_aside]  # set aside: no damage
    damage = Damage([*file_damage, *_dropped_lines(lost)], {})
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
        damage.add(f"{count(len(folded.lin.held), 'entry')} after the missing ones cannot be "
                   "placed or judged")  # fmt: skip
    for p in folded.unproven:
        e = p.entries[0]
        damage.add(f"{names[e.author]}'s entry {e.seq} acks {names[1 - e.author]}'s entry "
                   f"{e.ack_seq} as {e.ack_id[:4].hex()}, which is not in {files} (an entry "
                   "is missing, or was never written)", current)  # fmt: skip
    if log.held_count:
        whose = " and ".join(f"{names[a]}'s" for a in (HOST, GUEST) if log.hello(a) is None)
        held, wait = log.held_count, "wait" if log.held_count != 1 else "waits"
        damage.add(f"{count(held, 'entry')} {wait} for {whose or 'a'} hello, which {files} "
                   f"{lack}: not verified")  # fmt: skip
    return damage, missing
