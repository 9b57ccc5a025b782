"""The table: the fold of a game's log through the shuffle checks and the rules engine.

Both peers, the audit and the replay viewer compute the table the same way: take the
entries in the log's linear order (:func:`ginp2p.proto.linear.linearise`) and fold them,
one by one, through the schedule of docs/protocol.md §3, the shuffle proofs and
``engine.apply``. The only thing an observer adds is what it may know privately: a peer
its own seeds (so it can read its own cards), the audit nothing (it learns everything
from the openings). The verdicts never depend on that private part, except for the one
check only a card's holder can make: that the opponent's key for one of its own
positions unmasks a card.

:class:`Table` is built in layers, a module each: :mod:`ginp2p.proto.state` keeps the
state and says who owes what, :mod:`ginp2p.proto.judge` judges a player by its opened
seeds, :mod:`ginp2p.proto.cards` folds the shuffle's entries and reads the cards, and
this module folds each entry in order: the set-up, the moves of play, the end of a
hand, claims, resigns and disputes.

Pure: no sockets, clocks or files. A validly signed entry that breaks a rule becomes a
:class:`~ginp2p.proto.results.Cheat` naming its author, the entry and the rule; the
table freezes there.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from concurrent.futures import Executor
from dataclasses import replace
from typing import Any

from ginp2p.game import engine
from ginp2p.game import match as mt
from ginp2p.game.engine import DrawDiscard, DrawStock, HandState, PartialKnowledge, TakeUpcard
from ginp2p.game.match import MatchEnd
from ginp2p.game.rules import RuleSet
from ginp2p.proto import events as ev
from ginp2p.proto import shuffle as sh
from ginp2p.proto.cards import CardFold, Proven
from ginp2p.proto.claims import Owed, Verdict
from ginp2p.proto.entry import GUEST, HOST, Entry, first_dealer, game_id
from ginp2p.proto.entry import nonce_hash as hash_nonce
from ginp2p.proto.hand import HandFold
from ginp2p.proto.linear import MAX_CHAT_RUN, Linear, Placed, Problem, linearise
from ginp2p.proto.results import NAMES, Chatted, Cheat, HandScored, MatchOver, Moved
from ginp2p.proto.state import SHOWING_KINDS, FoldState, _Broken
from ginp2p.proto.text import KIND_WORDS, for_screen, sent_words

__all__ = ["FREE_KINDS", "Table"]

#: The kinds a player may write whether it owes an entry or not: chat, and the enders.
#: :meth:`Table._step` folds them itself; every other kind is folded by its entry in
#: ``_FOLD`` once the schedule says it was owed.
FREE_KINDS = frozenset({"chat", *ev.ENDERS})
#: The bodies of the moves of play, each with the per-card keys its move reveals.
_MOVE_BODIES = (ev.MoveBody, ev.DiscardBody, ev.KnockBody, ev.GinBody, ev.BigGinBody,
                ev.ShowBody, ev.DeclareRuminoBody)  # fmt: skip


def _the(kind: str) -> str:
    """An entry's kind with "the": "the knock", "the answers to a challenge"."""
    words = KIND_WORDS.get(kind, kind)
    for article in ("a ", "an "):
        if words.startswith(article):
            return "the " + words[len(article) :]
    return words if words.startswith("the ") else f"the {words}"


def _describe_owed(owed: Sequence[Owed], names: Sequence[str]) -> str:
    if not owed:
        return "nothing was owed"
    return "; ".join(f"{names[o.author]} owed {o.what}" for o in owed)


_Ends = tuple[bytes, bytes, tuple[int, ...]]  # a checkpoint's last entries and scores


def _checkpoint_words(got: _Ends, want: _Ends, names: Sequence[str]) -> str:
    """A checkpoint that disagrees with the log: the scores by name, and the last
    entries it signs (by id) only when those differ."""

    def scores(s: tuple[int, ...]) -> str:
        return f"{names[0]} {s[0]}, {names[1]} {s[1]}"

    def ends(x: _Ends) -> str:
        return f"{x[0][:4].hex()}/{x[1][:4].hex()}"

    parts = []
    if got[2] != want[2]:
        parts.append(f"the checkpoint gives the scores as {scores(got[2])}; the log gives "
                     f"{scores(want[2])}")  # fmt: skip
    if got[:2] != want[:2]:
        parts.append(f"it signs the hand as ending at entries {ends(got)}; the log ends it at "
                     f"{ends(want)}")  # fmt: skip
    return "; ".join(parts)


class Table(CardFold):
    """The table as one observer sees it, kept up to date as the log grows.

    ``viewer`` is the player whose private cards can be read, with ``seeds(hand)``
    returning that player's :class:`~ginp2p.proto.shuffle.HandSecrets` (None: no secrets).
    Expensive checks (proofs, unmasking) are cached by entry id, so refolding from an
    earlier point after a late concurrent entry costs only the engine replay.

    ``lazy_proofs``: hands whose shuffle and lock proofs are not checked entry by entry
    (the audit's speed-up, for hands whose two openings are in the log). The recompute
    at the openings compares every logged deck, sum proof, answer, lock proof and key
    with what the seeds give, so a hand that ends ``checked`` is as valid as with the
    checks. It is unsound for a hand that does not end ``checked`` cleanly (a dispute,
    a failed or missing opening): the caller must fold such a hand again without it.
    The one gap: the cut-and-choose hash C is not recomputed (k decks per shuffle);
    a C that disagrees with honest answers is only caught by the full check.

    The viewer's own shuffle, answers and locks are never proof-checked: its own code
    made them from its own seeds (in a two-peer set-up that was a third of the work).
    """

    def __init__(
        self,
        viewer: int | None = None,
        seeds: Callable[[int], sh.HandSecrets | None] | None = None,
        executor: Executor | None = None,
        lazy_proofs: Collection[int] = frozenset(),
        *,
        on_step: Callable[[Table], None] | None = None,
        checks: dict[Any, Any] | None = None,
    ) -> None:
        """``on_step`` is called after each entry is folded (the replay viewer keeps
        the state of every step). ``checks``: the results of another table's shuffle
        checks to share; they are pure functions of the entries, whoever looks."""
        self.viewer = viewer
        self.lazy_proofs = frozenset(lazy_proofs)
        self._seeds = seeds or (lambda hand: None)
        self.executor = executor
        self.on_step = on_step
        self._s = FoldState()
        self._order = []
        self._snaps = [(0, self._s.fork())]
        self._cache = {} if checks is None else checks
        self._claim_verdicts = {}
        self.problems = ()

    # -- folding ---------------------------------------------------------------------
    def update(self, linear: Linear) -> int:
        """Fold a new linear order; returns the index from which the fold was redone
        (events at or after it are new or changed)."""
        before, self._claim_verdicts = self._claim_verdicts, linear.claims
        same = self._same_prefix(linear.order)
        for cid, verdict in linear.claims.items():  # an open claim since beaten (or standing)
            old, placed = before.get(cid), linear.placed(cid)
            if old is not None and old.verdict is not verdict.verdict and placed is not None:
                same = min(same, placed.index)
        start = same
        if same < len(self._order):  # a late entry changed the past: refold from a hand start
            while self._snaps[-1][0] > same:
                self._snaps.pop()
            start, snap = self._snaps[-1]
            self._s = snap.fork()
            del self._order[start:]
        self.problems = linear.problems  # before folding: a dispute may name a problem's entry
        for p in linear.order[start:]:
            self._order.append(p)
            self._step(p)
            if self.on_step is not None:
                self.on_step(self)
        if self._s.cheat is None and linear.problems:
            self._problem(linear.problems[0])
        return start

    def _same_prefix(self, order: Sequence[Placed]) -> int:
        """How many leading entries of ``order`` this table has already folded as placed.

        A log's linear order keeps its Placed objects until a late entry rewrites the
        order from some step on, so the identical prefix is found by bisection (a long
        match would otherwise compare every entry on every move); from there on, equal
        entries (same id, same void) still count as folded.
        """
        mine = self._order
        lo, hi = 0, min(len(order), len(mine))
        while lo < hi:
            mid = (lo + hi) // 2
            if order[mid] is mine[mid]:
                lo = mid + 1
            else:
                hi = mid
        limit = min(len(order), len(mine))
        while lo < limit and (order[lo].entry.id, order[lo].void) == (
            mine[lo].entry.id, mine[lo].void
        ):  # fmt: skip
            lo += 1
        return lo

    def _problem(self, problem: Problem) -> None:
        rule = {"fork": "equivocation", "chain": "broken-chain", "ack": "bad-ack",
                "chats": "chat-flood"}[problem.what]  # fmt: skip
        who = self._s.names[problem.author]
        detail = {
            "fork": f"two different entries signed by {who} as seq {problem.seq}",
            "chain": f"{who}'s entry {problem.seq} does not follow their entry {problem.seq - 1}",
            "ack": f"{who}'s entry {problem.seq}: {problem.reason}",
            "chats": f"{who}'s entry {problem.seq} is one chat line more than the "
            f"{MAX_CHAT_RUN} the log allows in a row with nothing from "
            f"{self._s.names[1 - problem.author]} between",
        }[problem.what]
        e = problem.entries[0]
        hand = self._s.hand.number if self._s.hand else 0
        self._convict(Cheat(problem.author, e.id, problem.seq, hand, rule, detail))

    def _step(self, p: Placed) -> None:
        e = p.entry
        s = self._s
        s.placed[e.author].append(e)
        if p.void:
            return
        try:
            if e.kind == "chat":
                self._emit(Chatted(e.author, for_screen(e.body_as(ev.ChatBody).text)))
            elif e.kind == "dispute":
                self._dispute(e)
            elif s.cheat is not None:
                if e.kind == "open":
                    self._open_after_cheat(e)
            elif e.kind == "resign":
                self._resign(e)
            elif e.kind == "claim":
                self._claim(e)
            else:
                self._owed_entry(p)
        except _Broken as b:
            hand = s.hand.number if s.hand else 0
            bad = b.culprit or e
            self._convict(Cheat(bad.author, bad.id, bad.seq, hand, b.rule, b.detail))

    def _owed_entry(self, p: Placed) -> None:
        e, s = p.entry, self._s
        lost = s.claims[-1].body_as(ev.ClaimBody).owed_author if s.claims else None
        if s.resigned not in (None, e.author) or lost == e.author:
            return  # written before its author saw the resign or claim that ended the match
        # judged at its ack point: its author had not seen these opponent entries. A
        # dispute sent across it changes what is owed (the disputer's seeds), but not
        # what its author owed when it wrote it.
        unseen = [u for u in s.placed[1 - e.author] if u.seq > e.ack_seq] if p.concurrent else []
        owed = self._owed_at(e) if any(u.kind == "dispute" for u in unseen) else self.owed()
        if not any(o.author == e.author and e.kind in o.kinds for o in owed):
            raise _Broken(
                "out-of-turn",
                f"{sent_words(e.kind, s.names[e.author])} when {_describe_owed(owed, s.names)}",
            )
        if e.kind not in ev.COMMUTING:
            waited = [u for u in unseen if u.kind not in ("chat", "dispute")
                      and not self._idle_claim(u)]  # fmt: skip
            if waited:
                raise _Broken(
                    "out-of-turn",
                    f"{sent_words(e.kind, s.names[e.author])} before seeing what it had to "
                    f"wait for: {KIND_WORDS.get(waited[0].kind, waited[0].kind)} from "
                    f"{s.names[1 - e.author]}",
                )
        _FOLD[e.kind](self, e)

    # -- the game's set-up -------------------------------------------------------------
    def _on_hello(self, e: Entry) -> None:
        s, b = self._s, e.body_as(ev.HelloBody)
        s.hellos[e.author] = e
        names = list(s.names)
        names[e.author] = for_screen(b.name) or NAMES[e.author]
        s.names = (names[0], names[1])
        if e.author == HOST:
            if b.rules is None or b.params is None:  # (the log drops such a hello)
                raise _Broken("bad-rules", "the host's hello carries no rules")
            try:
                s.rules = RuleSet.from_dict(dict(b.rules))
            except (TypeError, ValueError) as exc:
                raise _Broken("bad-rules", f"the host's rules cannot be played: {exc}") from None
            s.k, s.claim_timeout = b.params.k, b.params.claim_timeout_s
        else:
            s.game = game_id(e.ack_id, e.id)

    def _on_nonce(self, e: Entry) -> None:
        s, nonce = self._s, e.body_as(ev.NonceBody).nonce
        host, guest = s.hellos
        assert host is not None and guest is not None and s.game is not None
        if hash_nonce(nonce) != host.body_as(ev.HelloBody).nonce_hash:
            raise _Broken("bad-nonce", "the host's nonce does not match its hello")
        s.host_nonce = nonce
        guest_nonce = guest.body_as(ev.HelloBody).nonce
        assert s.rules is not None and guest_nonce is not None
        dealer = first_dealer(s.game, nonce, guest_nonce)
        s.match = mt.new_match(s.rules, dealer)
        self._begin_hand()

    def _begin_hand(self) -> None:
        s = self._s
        assert s.match is not None and s.rules is not None
        h = HandFold(s.match.hand_no + 1, s.match.dealer, s.rules.deck_size)
        s.hand = h
        s.hands.append(h)
        self._snaps.append((len(self._order), s.fork()))

    # -- play --------------------------------------------------------------------------
    def _action(self, e: Entry) -> None:
        s, h = self._s, self._hand_of(e)
        assert s.match is not None and s.match.hand is not None
        hs = s.match.hand
        a, b = e.author, e.fields.body
        try:
            action = ev.body_action(e.kind, b, a)
        except (ValueError, TypeError) as exc:
            raise _Broken("malformed", f"{_the(e.kind)} does not describe a move ({exc})") \
                from None  # fmt: skip
        assert isinstance(b, _MOVE_BODIES)
        held = set(hs.hands[a])
        for item in b.keys:
            if item.pos not in held:
                raise _Broken("bad-keys", f"a key for position {item.pos}, not in the hand")
        self._publish(e, h, b.keys)
        if e.kind in SHOWING_KINDS:
            hidden = [pos for pos in hs.hands[a] if pos not in h.keys[a]]
            if hidden:
                raise _Broken("hidden-card", f"{_the(e.kind)} does not show the whole hand")
        before = s.match
        m = replace(before, hand=hs.with_knowledge(PartialKnowledge(dict(h.known))))
        try:
            m = mt.apply(m, action, a)
        except engine.IllegalAction as exc:
            raise _Broken(f"illegal-move:{exc.rule}", str(exc)) from None
        except engine.HiddenCard as exc:
            raise _Broken("hidden-card", f"{_the(e.kind)} shows a card it did not reveal: {exc}") \
                from None  # fmt: skip
        s.match = m
        new = m.hand
        assert new is not None
        card = None
        if isinstance(action, DrawStock):
            h.pending_stock = (hs.stock_next, a)
        elif isinstance(action, DrawDiscard | TakeUpcard):  # the pile's top: public
            card = h.known.get(hs.discard_pile[-1])  # (hs's knowledge may predate the deal's)
        elif hasattr(action, "card"):
            card = action.card
        if not isinstance(action, DrawStock) or a != self.viewer:
            self._emit(Moved(a, action, card))
        if new.over:
            self._hand_over(h, new)

    def _hand_over(self, h: HandFold, hs: HandState) -> None:
        s = self._s
        assert s.match is not None and hs.result is not None
        h.over = True
        heads = [s.placed[a][-1].id if s.placed[a] else bytes(32) for a in (HOST, GUEST)]
        h.last_play = (heads[0], heads[1])
        self._emit(HandScored(h.number, hs.result, s.match.scores))
        if s.match.over:
            self._emit(MatchOver(s.match.winner, s.match.end, s.match.totals))  # type: ignore[arg-type]

    # -- the end of a hand ---------------------------------------------------------------
    def _on_open(self, e: Entry) -> None:
        h = self._hand_of(e)
        self._opening(e, h)
        pending = self._s.pending_dispute
        if pending is not None and pending[0] == e.author:
            self._settle_dispute(h)
        elif all(h.opened):
            self._recompute(h)

    def _settle_dispute(self, h: HandFold) -> None:
        """The disputer opened its seeds: its own steps are checked against them first
        (a disputer whose lock keys do not come from its seeds would otherwise make the
        accused's honest keys look wrong), then every key the accused published is read
        with the disputer's derived keys. Whoever is found out forfeits; if nobody is,
        the dispute was false."""
        s = self._s
        assert s.pending_dispute is not None
        disputer, named, _, rule = s.pending_dispute
        s.pending_dispute = None
        cheat = self.opener_cheat(h, disputer)
        if cheat is not None:
            self._convict(cheat)
            return
        # the false statement is the dispute itself (the open only settles it)
        disputes = (x for x in reversed(s.placed[disputer]) if x.kind == "dispute")
        dispute = next(x for x in disputes if x.body_as(ev.DisputeBody).entry == named)
        words = f"{s.names[disputer]} disputed an entry that checks out ({for_screen(rule)})"
        self._convict(Cheat(disputer, dispute.id, dispute.seq, h.number, "false-dispute", words))

    def _on_checkpoint(self, e: Entry) -> None:
        h, s, b = self._hand_of(e), self._s, e.body_as(ev.CheckpointBody)
        assert s.match is not None and h.last_play is not None
        want = (h.last_play[0], h.last_play[1], tuple(s.match.scores))
        got = (b.last_host, b.last_guest, (b.scores.host, b.scores.guest))
        if got != want:
            raise _Broken("bad-checkpoint", _checkpoint_words(got, want, s.names))
        h.checkpoints[e.author] = b
        if all(c is not None for c in h.checkpoints) and not s.match.over:
            self._begin_hand()

    # -- enders ------------------------------------------------------------------------
    def _resign(self, e: Entry) -> None:
        s = self._s
        s.resigned = e.author
        if s.match is not None and not s.match.over:
            s.match = mt.forfeit(s.match, e.author, MatchEnd.RESIGN)
            self._emit(MatchOver(s.match.winner, MatchEnd.RESIGN, s.match.totals))

    def _idle_claim(self, e: Entry) -> bool:
        """A claim without effect (void, invalid or beaten): nothing to wait for."""
        verdict = self._claim_verdicts.get(e.id)
        return e.kind == "claim" and (verdict is None or not verdict.verdict.takes_effect)

    def _claim(self, e: Entry) -> None:
        s = self._s
        verdict = self._claim_verdicts.get(e.id)
        if verdict is not None and verdict.verdict is Verdict.INVALID:
            # an honest peer never signs one; unjudged, they would be a flood like chats
            raise _Broken("bad-claim", f"a claim that names no entry to judge: {verdict.reason}")
        if verdict is None or not verdict.verdict.takes_effect:
            return
        if s.resigned is not None or s.claims:
            return  # a concurrent resign or claim, placed first, ended the match: no effect
        b = e.body_as(ev.ClaimBody)
        every = self._owed_at(e)
        owed = [o for o in every if o.author == b.owed_author]
        # every kind that would fulfil the debt: a claim naming only some of them (one
        # the owing player will not use) could never be beaten by its answer
        if not any(o.kinds <= set(b.kinds) for o in owed):
            raise _Broken(
                "false-claim",
                f'claimed that {s.names[b.owed_author]} owed "{for_screen(b.what)}", '
                f"but {_describe_owed(every, s.names)}",
            )
        s.claims.append(e)
        if s.match is not None:  # after the last hand too (its openings were owed)
            s.match = mt.forfeit(s.match, b.owed_author, MatchEnd.CLAIM)
        self._emit(
            MatchOver(1 - b.owed_author, MatchEnd.CLAIM, s.match.totals if s.match else None)
        )

    def _owed_at(self, e: Entry) -> list[Owed]:
        """What was owed at ``e``'s ack point: what its author had seen. Entries of the
        other player that it had not seen may be placed before it (an ender sent
        meanwhile, say a dispute); they do not make a fair claim false, nor a move made
        in turn out of turn. Then the entries its author had seen are folded again on
        their own (the shared checks make that an engine replay)."""
        o = 1 - e.author
        if not any(u.seq > e.ack_seq and u.kind != "chat" for u in self._s.placed[o]):
            return self.owed()
        # what its author had seen is fixed by the entry itself; what a fold of it finds
        # may depend on what this observer can check (tables may share the cache)
        key = ("owed-at", e.id, self.viewer, self.lazy_proofs)
        if key not in self._cache:
            seen = [
                p.entry
                for p in self._order[:-1]
                if p.entry.seq < (e.ack_seq + 1 if p.entry.author == o else e.seq)
            ]
            table = Table(self.viewer, self._seeds, self.executor, self.lazy_proofs,
                          checks=self._cache)  # fmt: skip
            table.update(linearise(seen))
            self._cache[key] = tuple(table.owed())
        return list(self._cache[key])

    def _dispute(self, e: Entry) -> None:
        s, b = self._s, e.body_as(ev.DisputeBody)
        s.disputes.append((e.author, b.entry, b.rule))
        c = s.cheat
        if c is not None and c.author != e.author:
            return  # the table convicted the other player already
        if c is not None:
            return  # the disputer is the one convicted; its dispute changes nothing
        accused = next((x for x in s.placed[1 - e.author] if x.id == b.entry), None)
        if accused is None:  # a forked, unchained or badly acked entry is never placed
            for problem in self.problems:
                if problem.author != e.author and b.entry in {x.id for x in problem.entries}:
                    self._problem(problem)
                    return
        h = s.hand
        if accused is not None and h is not None and accused.author == self.viewer:
            self._check_own(accused, h)  # its proofs went unchecked: check them now
            if s.cheat is not None:
                return
        if accused is not None and h is not None:
            s.pending_dispute = (e.author, b.entry, h.number, b.rule)
            if h.opened[e.author] is not None:
                self._settle_dispute(h)  # already opened: settle it now
            return
        raise _Broken(
            "false-dispute",
            f"{s.names[e.author]} disputed an entry that checks out ({for_screen(b.rule)})",
        )

    def _check_own(self, e: Entry, h: HandFold) -> None:
        """The viewer's own proof-bearing entry ``e`` is disputed: check its proof after
        all, so that the viewer's table convicts it exactly as the disputer's did."""
        a = e.author
        msgs: dict[str, Proven | None] = {
            "shuffle": h.shuffles[a] if h.shuffle_ids[a] == e.id else None,
            "answers": h.answers[a],
            "lock": h.locks[a],
        }
        msg = msgs.get(e.kind)
        if msg is None or e.hand != h.number:
            return
        try:
            self._checked((e.kind, e.id), self._proof(h, a, msg))
        except _Broken as b:
            self._convict(Cheat(a, e.id, e.seq, h.number, b.rule, b.detail))

    def _open_after_cheat(self, e: Entry) -> None:
        """The honest player opens its seeds after a cheat, so others can verify its side."""
        h = self._s.hand
        if h is None or e.hand != h.number or h.opened[e.author] is not None:
            return
        try:
            self._opening(e, h)
        except _Broken:
            return


#: How each kind that is owed before it is written is folded: the set-up's, the
#: shuffle's, the end of a hand's, and every move of play (an engine action).
_FOLD: dict[str, Callable[[Table, Entry], None]] = {
    "hello": Table._on_hello,
    "nonce": Table._on_nonce,
    "commit": Table._on_commit,
    "shuffle": Table._on_shuffle,
    "challenge": Table._on_challenge,
    "answers": Table._on_answers,
    "lock": Table._on_lock,
    "keys": Table._on_keys,
    "stock_key": Table._on_stock_key,
    "open": Table._on_open,
    "checkpoint": Table._on_checkpoint,
    **dict.fromkeys(ev.ACTION_KINDS, Table._action),
}
