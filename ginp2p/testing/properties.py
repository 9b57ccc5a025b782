"""The properties an explored game must keep, checked on the game as it went and ended.

Each violation is named (:class:`Violation`): the honest player is never convicted (its
table, the cheater's table, the audit of either file or both: ``honest-convicted``); a
responsive honest player never loses by a claim or a forfeit (``honest-forfeited``), and
a claimant who left is not made the loser by what the cheater signs meanwhile
(``left-claimant-lost``); the honest table and the audits agree (``verdicts-differ``); a
rule broken in the honest log convicts the cheater (``unpunished:*``), and deviations
that break none leave the game as the same game with no deviation plays it
(``changed-the-game``); the honest peer's holds and log stay within their bounds
(``memory:*``); and a cheater that owes an entry and sends nothing can always be
claimed against (``stuck``). :class:`Properties` is the part of the adversary's
:class:`~ginp2p.testing.adversary.Game` that checks them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ginp2p.game.match import MatchEnd
from ginp2p.proto import protocol as pr
from ginp2p.proto.entry import GUEST, HOST
from ginp2p.proto.table import Table
from ginp2p.record.audit import audit_records
from ginp2p.record.report import Report, Verdict
from ginp2p.testing.fakelink import Side
from ginp2p.testing.worlds import Brain

#: The most steps the honest end of a game may take before it counts as stuck.
MAX_FINAL_STEPS = 600
#: Entries the honest log may hold beyond an honest game's and the cheater's extras.
LOG_SLACK = 6


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


def _report_verdict(r: Report) -> tuple[Any, ...]:
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


class Properties:
    """The checks of a game between an honest peer and a cheater (the adversary's
    :class:`~ginp2p.testing.adversary.Game` runs it; the attributes are its state)."""

    honest: Side
    cheater: Side
    brain: Brain
    h: int  # the honest player
    c: int  # the cheater
    left: bool
    settled: bool
    extras: int
    honest_claims: int
    step_no: int
    violations: list[Violation]
    _audits: dict[frozenset[bytes], Report]

    def audit(self, records: Sequence[bytes]) -> Report:
        """The audit of ``records`` (the same set of records is audited once: order and
        repeats do not change a verdict)."""
        key = frozenset(records)
        if key not in self._audits:
            self._audits[key] = audit_records(records)
        return self._audits[key]

    def violate(self, prop: str, detail: str) -> None:
        """Note a violation: the first few of each property, each different detail once."""
        same = [v for v in self.violations if v.prop == prop]
        if len(same) < 3 and not any(v.detail.startswith(detail) for v in same):
            self.violations.append(Violation(prop, f"{detail} (step {self.step_no})"))

    def watch_honest(self) -> None:
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

    def check_left(self) -> None:
        """Property 2 for a claimant that left: the audit of both copies. (The cheater's
        copy alone may always read as a standing claim: it need not keep the entries
        that beat the claim, like a copy cut short. It still convicts nobody honest.)"""
        cheater_file = list(self.cheater.saved)
        both = self.audit([*self.honest.saved, *cheater_file])
        # An open counter-claim is allowed (incomplete: the claimant reopens the match
        # when it returns, see docs/protocol.md §6); anything final is not.
        final = both.verdict is not Verdict.INCOMPLETE
        if both.winner == self.c and both.end in _FORFEITS and final:
            self.violate(
                "left-claimant-lost",
                f"while the claimant was away, the audit of both files says it lost by {both.end}",
            )
        for name, r in (("the cheater's file", self.audit(cheater_file)), ("both files", both)):
            if r.cheat is not None and r.cheat.author == self.h:
                self.violate("honest-convicted", f"while the claimant was away, the audit of "
                                                 f"{name}: {_cheat_words(r.cheat)}")  # fmt: skip

    def check(self, baseline: Properties | None = None, merged: bool = True) -> None:
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
        self.watch_honest()
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

    def _same_as(self, baseline: Properties) -> None:
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
