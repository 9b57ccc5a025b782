"""Building a replay from a log's records: the log folded once the audit's way, the
table kept after every entry, the entries the audit rejects marked, and the cards each
player's own view read with the seeds of their secrets file. The model it builds, and
what a step shows, are :mod:`ginp2p.record.replay`'s; the files are read by
:func:`ginp2p.files.records.load_replay`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ginp2p.game.cards import Card
from ginp2p.game.engine import Action
from ginp2p.game.match import MatchState
from ginp2p.present.words import for_screen
from ginp2p.proto import events as ev
from ginp2p.proto import shuffle as sh
from ginp2p.proto.claims import Owed
from ginp2p.proto.claims import Verdict as ClaimVerdict
from ginp2p.proto.entry import GUEST, HOST
from ginp2p.proto.hand import HandFold
from ginp2p.proto.linear import Linear
from ginp2p.proto.results import Cheat, CheatDetected, HandDealt, Moved
from ginp2p.proto.table import Table
from ginp2p.record.audit import judge
from ginp2p.record.fold import fold_records
from ginp2p.record.replay import DAMAGED, FileName, Mark, Replay, ReplayError, Step
from ginp2p.record.report import Report

__all__ = ["PlayerSecrets", "load_records"]


@dataclass(frozen=True)
class PlayerSecrets:
    """One secrets file offered to a replay, as the disk layer read it.

    ``seeds``: the file's seeds by hand, or None if it could not be read; then
    ``failure`` says why for a file the user named (``required``: the replay fails),
    and ``note`` for one only found beside a log ("": nothing to say). A ``required``
    file must also be of this game. ``finished_only``: the other player's seeds, found
    by themselves (the computer's, in a ``play`` game): they show the hands that are
    over, not one still in play.
    """

    path: FileName
    seeds: Mapping[int, sh.HandSecrets] | None
    failure: str = ""
    note: str = ""
    required: bool = False
    finished_only: bool = False


@dataclass
class _Snap:
    match: MatchState | None
    fold_hand: int
    stage: str
    opened: bool
    pending_stock: int | None
    owed: tuple[Owed, ...]
    cheat: Cheat | None


def _snap(table: Table) -> _Snap:
    h = table.hand
    m = table.match
    shown: HandFold | None = None
    if m is not None:
        shown = next((x for x in table.hands if x.number == m.hand_no), None)
    pending = h.pending_stock[0] if h is not None and h.pending_stock else None
    return _Snap(
        match=m,
        fold_hand=h.number if h is not None else 0,
        stage=h.stage()[0] if h is not None else "set-up",
        opened=shown is not None and shown.checked,
        pending_stock=pending,
        owed=tuple(table.owed()),
        cheat=table.cheat,
    )


def _owner(seeds: Mapping[int, sh.HandSecrets], table: Table) -> int | None:
    """Whose seeds these are: the player whose commitment they reproduce."""
    game = table.game
    if game is None:
        return None
    for h in table.hands:
        s = seeds.get(h.number)
        if s is None:
            continue
        for a in (HOST, GUEST):
            commit = h.commits[a]
            if commit is not None and commit.c == sh.make_commit(s, h.ctx(game, a)).c:
                return a
    return None


def load_records(
    records: Sequence[bytes],
    *,
    damage: Sequence[str] = (),
    sources: Sequence[tuple[str, int]] = (),
    secrets: Iterable[PlayerSecrets] = (),
    path: FileName | None = None,
    min_k: int = sh.K_MIN,
) -> Replay:
    """The replay of a log's wire records. ``damage``: what reading the file found
    wrong (a torn tail), in words; ``sources``: the copies the records came from (see
    :func:`~ginp2p.record.fold.fold_records`); ``path``: the log's file, if any.
    ``secrets``: the players' secrets files, in the order they are tried (the first of
    each player's is used). The notes say what the audit found damaged and how much of
    the file could be replayed. ReplayError if nothing can be replayed, or for a
    required secrets file that cannot be read or is of another game. ``min_k``: the
    fewest cut-and-choose rounds a hello may ask for (a test's records only go lower:
    see :mod:`~ginp2p.record.fold`)."""
    snaps: list[_Snap] = []
    folding: list[Table] = []

    def keep(t: Table) -> None:
        if not folding or folding[-1] is not t:  # the fold started again
            folding.append(t)
            snaps.clear()
        snaps.append(_snap(t))

    folded = fold_records(records, sources=sources, on_step=keep, min_k=min_k)
    report = judge(folded, list(damage))
    lin, table, hand_of = folded.lin, folded.table, folded.hand_of
    if not lin.order:
        raise ReplayError(
            f"{path or 'the log'} holds no entry that can be replayed"
            + (f" ({report.damage[0]})" if report.damage else "")
        )
    snaps[-1] = _snap(table)  # a problem found after the last entry convicts there

    public = {h.number: dict(h.known) for h in table.hands}
    private: tuple[dict[int, dict[int, Card]], dict[int, dict[int, Card]]] = ({}, {})
    owners: list[FileName | None] = [None, None]
    notes = [f"{DAMAGED}{d}" for d in report.damage]
    if len(lin.order) < report.entries:
        notes.append(f"only the first {len(lin.order)} of the file's {report.entries} entries "
                     "can be replayed")  # fmt: skip
    for sp in secrets:
        seeds = sp.seeds
        if seeds is None:
            if sp.required:  # it names the file and says what is wrong
                raise ReplayError(sp.failure)
            if sp.note:
                notes.append(sp.note)
            continue
        who = _owner(seeds, table)
        if who is None:
            if sp.required:
                raise ReplayError(f"{sp.path}: these secrets are not of this game")
            continue
        if owners[who] is not None:
            continue
        owners[who] = sp.path
        unknown = {n for n, k in public.items() if len(k) < _deck_size(table)}
        over = table.match is not None and table.match.over  # (a resign leaves a hand open)
        if sp.finished_only and not over:  # or it would show a hand still to be resumed
            unknown &= {h.number for h in table.hands if h.over}
        if unknown:  # hands whose openings did not show every card
            # only the cards matter here, not the verdicts (the public fold and the
            # audit give those): no proof is checked
            wanted = {n: seeds[n] for n in unknown if n in seeds}
            # sharing the public fold's checks: a whole-match log loads ~4x faster
            mine = Table(who, wanted.get, lazy_proofs=set(public), checks=table.checks)
            mine.update(lin)
            private[who].update({h.number: dict(h.known) for h in mine.hands})

    deals = {ev_.hand: i for i, ev_ in table.events if isinstance(ev_, HandDealt)}
    moved = {i: ev_ for i, ev_ in table.events if isinstance(ev_, Moved)}
    marks = _marks(lin, report, table)
    steps = []
    for p, s in zip(lin.order, snaps, strict=True):
        e = p.entry
        action: Action | None = None
        taken: Card | None = None
        if e.kind in ev.ACTION_KINDS and not p.void:
            try:
                action = ev.body_action(e.kind, e.body, e.author)
            except (ValueError, TypeError):
                action = None
            hs = s.match.hand if s.match is not None else None
            if e.kind in ("draw_discard", "take_upcard") and hs:
                # the card taken is the one just added to the hand (public: it was on the
                # pile); a refused take left the pile as it was, its top the card it meant
                pos = hs.hands[e.author][-1] if p.index in moved else \
                    hs.discard_pile[-1] if hs.discard_pile else None  # fmt: skip
                taken = public.get(s.fold_hand, {}).get(pos) if pos is not None else None
        steps.append(Step(
            index=p.index, entry=e, hand=hand_of.get(e.id, 0), mark=marks.get(p.index),
            match=s.match, fold_hand=s.fold_hand, stage=s.stage, opened=s.opened,
            pending_stock=s.pending_stock, owed=s.owed, cheat=s.cheat, action=action,
            taken=taken,
        ))  # fmt: skip
    return Replay(
        path=path,
        steps=steps,
        report=report,
        names=table.names,
        rules=table.rules,
        public=public,
        private=private,
        secrets=(owners[0], owners[1]),
        deals=deals,
        notes=notes,
    )


def _deck_size(table: Table) -> int:
    return table.rules.deck_size if table.rules is not None else 52


def _marks(lin: Linear, report: Report, table: Table) -> dict[int, Mark]:
    """Marks by step index: the audit's cheat, void entries, entries after a cheat."""
    out: dict[int, Mark] = {}
    names = report.names
    cheat_at: int | None = None
    c = report.cheat
    if c is not None:
        # a false dispute is told with the disputer's own rule text
        text = for_screen(f"{c.describe(names)} [rule {c.rule}]")
        placed = lin.placed(c.entry)
        if placed is None:  # one of two entries at one seq, or never placed
            same = (x for x in lin.order if (x.entry.author, x.entry.seq) == (c.author, c.seq))
            placed = next(same, None)
        if placed is None:  # neither twin is placed: mark the cheater's entry before them
            before = [x for x in lin.order if x.entry.author == c.author and x.entry.seq < c.seq]
            placed = before[-1] if before else lin.order[0]
            text = f"the next entries of {names[c.author]} are not shown: {text}"
        cheat_at = placed.index
        out[cheat_at] = Mark("cheat", text)
    for x in lin.order:
        if x.index in out:
            continue
        if x.void:
            out[x.index] = Mark("void", "void: written after its author's resign or a "
                                "claim against it; kept without effect")  # fmt: skip
        elif (v := lin.claims.get(x.entry.id)) is not None and not v.verdict.takes_effect:
            owing = names[x.entry.body.owed_author]
            out[x.index] = Mark(
                "void",
                f"beaten: {owing} answered before the claim reached them; the match went on"
                if v.verdict is ClaimVerdict.BEATEN
                else f"invalid claim ({for_screen(v.reason)}); without effect",
            )
    if cheat_at is not None:
        # the table freezes where the cheat is found: at the entry itself, or at the
        # openings when only the seeds show it (the moves between were played)
        found = next((i for i, e in table.events if isinstance(e, CheatDetected)), cheat_at)
        for x in lin.order[max(cheat_at, found) + 1 :]:
            if x.index not in out and x.entry.kind not in ("dispute", "open", "chat"):
                out[x.index] = Mark("after", "after the cheat was found: no effect on the game")
    return out
