"""The audit: verify a game log end to end and say who, if anybody, broke the rules.

:func:`audit_records` judges a log's records (reading a ``.ginlog`` file without
changing it is :func:`ginp2p.files.records.audit_file`'s; loading and folding the records,
:mod:`ginp2p.record.fold`'s; the damage in words, :mod:`ginp2p.record.damage`'s; the
report, :mod:`ginp2p.record.report`'s). The log is rebuilt without pinned keys (each
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

from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import Executor

from ginp2p.game import engine
from ginp2p.game.engine import DeckKnowledge, HandResult
from ginp2p.game.match import MatchEnd
from ginp2p.present.words import for_screen
from ginp2p.proto import events as ev
from ginp2p.proto.claims import Owed
from ginp2p.proto.claims import Verdict as ClaimState
from ginp2p.proto.entry import GUEST, HOST, Entry
from ginp2p.proto.hand import HandFold
from ginp2p.proto.linear import Linear
from ginp2p.proto.log import Log
from ginp2p.proto.results import Cheat, HandScored
from ginp2p.proto.shuffle import K_MIN
from ginp2p.proto.state import PLAY_KINDS
from ginp2p.proto.table import Table
from ginp2p.record.damage import Damage, damage_of, set_aside
from ginp2p.record.fold import Folded, fold_records
from ginp2p.record.report import FEEDS, HandReport, Report, Verdict

__all__ = ["audit_records", "judge"]


def audit_records(
    records: Iterable[bytes],
    *,
    torn: bool = False,
    damage: Sequence[str] = (),
    sources: Sequence[tuple[str, int]] = (),
    lazy_proofs: bool = True,
    executor: Executor | None = None,
    known: Mapping[bytes, str] | None = None,
    min_k: int = K_MIN,
) -> Report:
    """Audit wire records (any order, repeats allowed).

    ``damage``: what reading them found wrong, in words (one line each); ``torn``: the
    file they came from ended inside a record (said for the caller). ``sources``: the
    name and record count of each copy the records came from, in order, when there are
    several (the damage then names the copy). ``lazy_proofs=False`` checks every proof
    entry by entry (slow; see the module docstring); ``executor`` (a thread pool)
    splits the curve arithmetic. ``known``: the public keys the auditor knows, each
    with who it is ("you"): the report says which of them signed the log.
    ``min_k``: the fewest cut-and-choose rounds a hello may ask for, ``shuffle.K_MIN``;
    lower only for records a test made itself at fewer rounds (a file never is).
    """
    file_damage = ["the file ends inside a record (a torn tail)"] if torn else []
    file_damage += damage
    folded = fold_records(list(records), sources=sources, lazy_proofs=lazy_proofs,
                          executor=executor, min_k=min_k)  # fmt: skip
    return judge(folded, file_damage, known)


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


def judge(folded: Folded, file_damage: Sequence[str] = (),
          known: Mapping[bytes, str] | None = None) -> Report:  # fmt: skip
    """The report on a folded log; ``file_damage``: what reading the file found. Damage
    blames nobody; a cheat forfeits the match; what is owed leaves a hand incomplete.
    ``known``: public keys the auditor knows, with who each is (see :func:`audit_records`)."""
    table = folded.table
    current = table.hand.number if table.hand is not None else 0
    damage, missing = damage_of(folded, file_damage, current)
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
        set_aside=set_aside(folded),
    )


def _known(key: bytes | None, known: Mapping[bytes, str] | None) -> str | None:
    return known.get(key) if key is not None and known is not None else None


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


def _cheat(folded: Folded, damage: Damage, results: dict[int, HandResult], current: int
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
