"""The audit's report: the verdict of a log and of each hand, the cheat, what is owed
and what is damaged, the result the log supports, and the keys that signed it; in
words for people (:meth:`Report.text`) and as plain data for programs
(:meth:`Report.to_json`). How a verdict is reached is :mod:`ginp2p.record.audit`'s.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from ginp2p.game.engine import HandResult
from ginp2p.game.rules import RuleSet
from ginp2p.present.words import count, match_end_words, preset_words, result_words
from ginp2p.proto.entry import GUEST, HOST
from ginp2p.proto.keytext import fingerprint, key_to_text
from ginp2p.proto.results import Cheat

__all__ = ["FEEDS", "SCHEMA", "HandReport", "Report", "SetAside", "Verdict", "worst"]

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
