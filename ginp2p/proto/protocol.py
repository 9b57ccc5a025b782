"""One player's side of a game, sans-IO: ``PeerProtocol`` (h11's shape).

Inputs are a local intent (an engine action, a resign, a chat, a claim), bytes from the
other peer, and the clock. Outputs (:mod:`ginp2p.proto.outputs`) are a list of
instructions and events, to be carried out *in order* by whoever drives the protocol:
save an entry, save a secret, send an entry, tell the player.

Every entry of the other peer gets into the log one way, :meth:`PeerProtocol._admit`,
whatever order it arrived in. Every step of the shuffle schedule is taken automatically
as soon as it is owed (:mod:`ginp2p.proto.moves` makes it); only the moves of play are
the player's. The table is always the fold of the log
(:class:`~ginp2p.proto.table.Table`), for our own entries exactly as for the other's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import Executor

import nacl.signing

from ginp2p.errors import LocalProtocolError, RemoteProtocolError
from ginp2p.game import engine
from ginp2p.game.engine import Action, HandState
from ginp2p.game.rules import RuleSet
from ginp2p.proto import events as ev
from ginp2p.proto import shuffle as sh
from ginp2p.proto.claims import Owed, Verdict, judge_claim
from ginp2p.proto.entry import GUEST, HOST, Entry
from ginp2p.proto.linear import MAX_CHAT_RUN
from ginp2p.proto.log import Log, Outcome, claim_body
from ginp2p.proto.moves import EntryMaker
from ginp2p.proto.outputs import (
    Dropped,
    EarlyClaim,
    Output,
    Refolded,
    Refused,
    Save,
    Send,
    Waiting,
)
from ginp2p.proto.results import Cheat
from ginp2p.proto.state import PLAY_KINDS
from ginp2p.proto.table import Table

__all__ = ["MAX_AHEAD", "MAX_EARLY", "PeerProtocol"]

#: Early claims held at most at once (a claim ends the match: one is the normal case).
#: One more is refused (dropped, as a transport fault), never let through.
MAX_EARLY = 8
#: Entries kept in memory, at most, while an earlier entry of their feed is missing.
MAX_AHEAD = 256


class PeerProtocol(EntryMaker):
    """A player's session: the log, the table, the seeds, and what to append next.

    ``me`` is HOST (0) or GUEST (1). The host gives ``rules`` and the protocol
    parameters; the guest may give ``accept_rules`` to decline the host's rules (True
    accepts; False declines, or a sentence that says why).
    ``rng(n)`` returns n random bytes (the only randomness used: fresh seeds and the
    guest's nonce). ``peer_key`` pins the opponent's Ed25519 key (from pairing).
    To resume, pass the records of the log file and the secrets already stored.
    ``min_k`` is the fewest cut-and-choose rounds a host hello may ask for (ours or
    the other's): ``shuffle.K_MIN``, lower only where the caller runs both peers at a
    ``k`` it chose itself (a test); a peer never chooses it.
    """

    def __init__(
        self,
        me: int,
        key: nacl.signing.SigningKey,
        rng: Callable[[int], bytes],
        *,
        name: str = "",
        rules: RuleSet | None = None,
        k: int = sh.K_DEFAULT,
        min_k: int = sh.K_MIN,
        claim_timeout: int = 120,
        peer_key: bytes | None = None,
        accept_rules: Callable[[RuleSet], bool | str] | None = None,
        executor: Executor | None = None,
        records: Iterable[bytes] = (),
        seeds: Mapping[int, tuple[bytes, bytes]] | None = None,
        answered: Mapping[tuple[int, int], bytes] | None = None,
    ) -> None:
        if me not in (HOST, GUEST):
            raise LocalProtocolError("me is 0 (host) or 1 (guest)")
        if me == HOST and rules is None:
            raise LocalProtocolError("the host chooses the rules")
        ev.body_types(min_k)  # LocalProtocolError for a floor the codec does not allow
        self.me = me
        self.key = key
        self.rng = rng
        self.name = name
        self.host_rules = rules
        self.k = k
        self.min_k = min_k
        self.claim_timeout = claim_timeout
        self.accept_rules = accept_rules
        pins: list[bytes | None] = [None, None]
        pins[me] = bytes(key.verify_key)
        pins[1 - me] = peer_key
        self.log = Log((pins[0], pins[1]), min_k=min_k)
        self._seeds = {hand: sh.HandSecrets(*pair) for hand, pair in (seeds or {}).items()}
        self._answered = dict(answered or {})
        self.table = Table(me, self._seeds.get, executor)
        self.executor = executor
        self._reported = 0
        self._told = self.table.events  # the event list last reported from
        self._now = 0.0
        self._waiting: tuple[int, str] | None = None
        self._since = 0.0
        self._owing_since: float | None = None  # since when this player owes an entry
        self._away_since: float | None = None  # see away()
        self._owing_moves = -1  # the hand's moves when _owing_since was last checked
        self._waiting_moves = -1  # the same, for _since
        self._early: dict[bytes, Entry] = {}  # claims against us that came too soon
        self._ahead_of: dict[bytes, Entry] = {}  # entries whose predecessor is missing
        self._disputed = False
        self.refused = None
        #: A new game (nothing from a file): every entry of ours in it is written here.
        self._fresh = True
        self._elsewhere = False  # an entry of ours came that this run did not write
        self._init_makers()
        for record in records:
            self.log.add(record)
            self._fresh = False
        if len(self.log):
            self.table.update(self.log.linear())
            self._told, self._reported = self.table.events, len(self.table.events)
            self._disputed = any(d[0] == me for d in self.table.disputes)

    # -- reading ----------------------------------------------------------------------
    @property
    def finished(self) -> bool:
        return self.table.finished

    @property
    def written_elsewhere(self) -> bool:
        """Another run of ginp2p with our key began this game (see ``refused``)."""
        return self._elsewhere

    @property
    def cheat(self) -> Cheat | None:
        return self.table.cheat

    def view(self) -> HandState | None:
        """The hand as this player sees it (own cards and every public card)."""
        hs = self.table.hand_state()
        return hs.view(self.me) if hs is not None else None

    def owed(self) -> list[Owed]:
        return self.table.owed()

    @property
    def my_turn(self) -> bool:
        """True when a move of play is owed by this player."""
        o = self.table.owes(self.me)
        return o is not None and o.kinds == PLAY_KINDS

    def legal_actions(self) -> list[Action]:
        hs = self.view()
        return engine.legal_actions(hs) if hs is not None and self.my_turn else []

    def have(self) -> tuple[int, int]:
        """What resync says: the contiguous seqs stored per feed."""
        return self.log.have()

    def missing(self, their_have: tuple[int, int]) -> list[bytes]:
        """Our stored entries the other side lacks, in feed order (one per message)."""
        out = []
        for author in (HOST, GUEST):
            out += [e.wire for e in self.log.since(author, their_have[author])]
        return out

    # -- inputs ---------------------------------------------------------------------
    def start(self, now: float = 0.0) -> list[Output]:
        """Begin (or, after a restart, carry on): append whatever is owed automatically."""
        self._now = now
        out: list[Output] = []
        self._auto(out)
        self._watch(out)
        return out

    def receive(self, wire: bytes, now: float | None = None, *, auto: bool = True) -> list[Output]:
        """Bytes from the other peer. Never raises on them.

        With ``auto=False`` the entries this peer then owes automatically (shuffle
        steps, keys, the next hand's set-up) wait for :meth:`advance`: a caller can
        show the opponent's move first, since a set-up is tens of milliseconds of proofs.
        """
        if now is not None:
            self._now = now
        out: list[Output] = []
        if self._elsewhere:
            return out  # nothing of that game is taken into this new file
        try:
            e = Entry.from_wire(wire, min_k=self.min_k)
        except RemoteProtocolError as exc:
            out.append(Dropped(f"undecodable: {exc}"))
            return out
        if self._fresh and self._written_elsewhere(e):
            self._elsewhere = True
            self.refused = ("this game was begun by another ginp2p with your key, whose "
                            "entries this one does not hold: continue it there, with "
                            "`ginp2p resume FILE` (`ginp2p games` lists it)")  # fmt: skip
            out.append(Refused(self.refused))
            return out
        self._admit([e], out)
        if auto:
            out += self.advance()
        return out

    def _admit(self, entries: list[Entry], out: list[Output]) -> None:
        """The one way an entry of the other peer gets into the log.

        Received, released from the hold of entries ahead of a gap, or let through
        after being held back as a claim that came too soon: every entry passes the
        same checks in the same order, whatever order it arrived in, so a buffer is
        never a way around a rule. Then the entries waiting for one just stored are
        admitted the same way; the table is folded once at the end.
        """
        stored, todo = False, list(entries)
        while todo:
            e = todo.pop(0)
            if (self._after_break(e, out) or self._not_ours(e, out) or self._ahead(e, out)
                    or self._held_back(e, out)):  # fmt: skip
                continue
            for added in self.log.add_entry(e).all():
                if added.stored:
                    assert added.entry is not None
                    out.append(Save(added.entry))
                    stored = True
                elif added.outcome is Outcome.DROPPED:
                    out.append(Dropped(added.reason))
            if not todo and self._ahead_of and stored:
                # what we owe now decides whether a released claim is early: fold first
                self._refresh(out)
                self._watch(out)
                stored = False
                todo = self._next_in_line()
        if stored:
            self._refresh(out)

    def _after_break(self, e: Entry, out: list[Output]) -> bool:
        """Drop an entry at or after a problem in its author's feed (log.md §6).

        Nothing after a fork, a broken chain, a backwards ack or a chat flood is ever
        placed, and the problem already convicts its author with the entries stored
        (two variants prove a fork): storing more would only let a cheater fill our
        memory and disk, and make every arrival rebuild the order, after the verdict.
        """
        stop = self.log.broken_at(e.author)
        if stop is None or e.seq < stop or e.id in self.log:
            return False
        out.append(Dropped(f"its author's feed broke at seq {stop}"))
        return True

    def _not_ours(self, e: Entry, out: list[Output]) -> bool:
        """Drop an entry that acks, or disputes, an entry of ours we never wrote (another
        id at that seq, or a seq we have not reached). We know our own feed, and it has
        no fork, so such an ack is made up. Stored, it would be evidence only against a copy's
        completeness (a file that lost an entry looks the same), and the audit could not
        settle the dispute it draws: dropped, its author still owes what it owed."""
        if e.author != self.opponent or e.ack_seq == 0 or e.game != self.log.game:
            return False  # (the log drops another game's entries, and says so)
        named = e.body_as(ev.DisputeBody) if e.kind == "dispute" else None
        if named is not None and not named.evidence and named.entry not in self.log:
            # a dispute names an entry of ours, and we hold every one we wrote (a
            # dispute of a fork carries both entries: the log takes them from it)
            out.append(Dropped("it disputes an entry that we never wrote"))
            return True
        mine = self.log.at(self.me, e.ack_seq)
        if mine and mine[0].id == e.ack_id:
            return False
        before = self.log.at(e.author, e.seq - 1)
        if e.seq > 1 and len(before) != 1:
            return False  # judged when its predecessor is here (or its feed has forked)
        if before and e.ack_seq <= before[0].ack_seq:
            return False  # its own previous entry acked otherwise: a proof the log convicts
        out.append(Dropped("it acks an entry of ours that we never wrote"))
        return True

    def _ahead(self, e: Entry, out: list[Output]) -> bool:
        """Keep in memory an entry whose predecessor has not come yet.

        Stored, it would sit in the file behind a gap that perhaps never closes: a peer
        could send one signed entry with a made-up seq and make every later audit of
        the file say DAMAGED, or flood such entries and make each arrival re-sort them
        all. Held here (at most ``MAX_AHEAD``), it is stored when its predecessor is; if
        it is dropped, resync sends it again once it can be placed.
        """
        if e.kind == "hello" or e.seq <= 1:
            return False
        if self.log.game is not None and self.log.at(e.author, e.seq - 1):
            return False
        if e.id not in self._ahead_of:
            if len(self._ahead_of) >= MAX_AHEAD:
                out.append(Dropped("too many entries ahead of a gap"))
                return True
            self._ahead_of[e.id] = e
        return True

    def _next_in_line(self) -> list[Entry]:
        """The held entries whose predecessor is now stored, taken out of the hold."""
        if self.log.game is None:
            return []
        ready = [e for e in self._ahead_of.values() if self.log.at(e.author, e.seq - 1)]
        for e in ready:
            del self._ahead_of[e.id]
        return sorted(ready, key=lambda x: (x.author, x.seq))

    def advance(self) -> list[Output]:
        """Append whatever is owed automatically now (see ``auto`` of :meth:`receive`)."""
        out: list[Output] = []
        self._auto(out)
        self._watch(out)
        self._let_through(out)
        return out

    def tick(self, now: float) -> list[Output]:
        """The clock moved: report who we wait for (a claim is the caller's choice)."""
        self._now = now
        out: list[Output] = []
        self._watch(out)
        self._let_through(out)
        return out

    @property
    def waiting_since(self) -> float:
        """Since when the other player has owed what it owes now (its last move, if it
        is still to move): the claim timeout counts from here."""
        return self._since

    def claimable(self, now: float | None = None) -> Owed | None:
        """What the other player has owed for longer than the claim timeout, if anything."""
        now = self._now if now is None else now
        o = self.table.owes(self.opponent)
        if o is None or self._waiting is None or self.log.game is None:
            return None  # (before both hellos there is no game to append a claim to)
        return o if now - self._since >= self.table.claim_timeout else None

    def away(self, since: float | None) -> None:
        """This player was away from ``since`` (the clock given to the protocol): its
        game was rebuilt from files last written then, or its process was frozen (a
        laptop's lid, SIGSTOP) and has just come back; None once it is back and caught
        up. What it comes to owe through entries read meanwhile, it owes from ``since``:
        they may have come at any time while it was away, and its player was away for
        all of it. Not when its table said the match was over as it went away: a
        claimant who left believing it had won owes what turns up (a move that beat its
        claim, written with an old ack) from when it reads it, so a counter-claim
        written while it was away is held back and its answer beats it."""
        self._away_since = None if since is None or self.table.finished else since

    def owing_for(self, now: float | None = None) -> float | None:
        """How long this player has owed an entry (the other side may claim after the
        timeout), or None when it owes nothing."""
        if self._owing_since is None:
            return None
        return (self._now if now is None else now) - self._owing_since

    def claim(self, now: float | None = None) -> list[Output]:
        """Append a claim that the other player's owed entry is overdue."""
        owed = self.claimable(now)
        if owed is None:
            raise LocalProtocolError("nothing is overdue: no claim can be made")
        return self._append_and_fold("claim", claim_body(self.log, self.me, owed))

    def act(self, action: Action, *, auto: bool = True) -> list[Output]:
        """Play a move; raises IllegalAction (or LocalProtocolError) and sends nothing
        if the move is not allowed now. ``auto`` as in :meth:`receive`: with it off the
        move can be sent before the set-up of the hand it may end."""
        if isinstance(action, engine.Resign):
            return self.resign()
        if not self.my_turn:
            raise LocalProtocolError(self._not_now())
        h = self.table.hand
        full = self.table.hand_state()
        assert h is not None and full is not None
        engine.apply(full, action, self.me)  # raises IllegalAction with the rule broken
        kind, body = ev.action_body(action, h.number, self._reveal(full, h, action))
        return self._append_and_fold(kind, body, auto)

    def resign(self, reason: str = "") -> list[Output]:
        if self.table.match is None or self.table.match.over:
            raise LocalProtocolError("there is no match in play to resign")
        return self._append_and_fold("resign", ev.make("resign", reason[:200]))

    def chat(self, text: str) -> list[Output]:
        # one place of the run is kept for a claim (they count together): a player who
        # wrote to a silent opponent must still be able to claim against it
        if self.log.unanswered_chats(self.me) >= MAX_CHAT_RUN - 1:
            raise LocalProtocolError(
                f"{self.table.names[self.opponent]} has written nothing since your last "
                f"{MAX_CHAT_RUN - 1} lines: wait for an answer or a move before writing more"
            )
        return self._append_and_fold("chat", ev.make("chat", text[:500]))

    # -- internals ------------------------------------------------------------------
    def _not_now(self) -> str:
        owed = self.table.owed()
        if not owed:
            return "nothing can be played now"
        return "not your move now: " + "; ".join(
            f"{'you' if o.author == self.me else 'the other player'} owe {o.what}" for o in owed
        )

    def _append(self, kind: str, body: ev.Body, out: list[Output]) -> Entry:
        entry = self.log.append(self.key, self.me, kind, body)
        out += [Save(entry), Send(entry)]
        return entry

    def _append_and_fold(self, kind: str, body: ev.Body, auto: bool = True) -> list[Output]:
        out: list[Output] = []
        self._append(kind, body, out)
        self._refresh(out)
        if auto:
            out += self.advance()
        else:
            self._let_through(out)
        return out

    def _written_elsewhere(self, e: Entry) -> bool:
        """An entry signed with our key that this new game did not write: another run of
        ginp2p (a `join` typed again after a crash) began this game. Taking it in would
        make this run write its own, different entries at the same seqs: equivocation."""
        if e.author != self.me or e.id in self.log:
            return False
        if e.kind == "hello":  # before ours, or answering the very hello ours answered
            other = self.log.hello(self.opponent)
            clash = self.log.hello(self.me) is None or (other is not None and e.ack_id == other.id)
        else:  # an entry of this game (another game's is dropped by the log, harmlessly)
            clash = self.log.game is not None and e.game == self.log.game
        return clash and e.verify(bytes(self.key.verify_key))

    def _held_back(self, e: Entry, out: list[Output]) -> bool:
        """Hold a claim against us that came before the timeout by our own clock.

        Nobody can check the claimant's clock, but we know how long we have owed. A
        claim held back is not in the log, so nothing we append acks it: the owed
        entry, when the player makes it, beats the claim, exactly as if it had crossed
        the claim on the wire. Without this a peer that claims at once would win
        every match against a person who takes a few seconds to move.
        """
        against_us = (
            e.kind == "claim" and e.author == self.opponent and self.log.game is not None
            and e.game == self.log.game and e.id not in self.log
            and e.body_as(ev.ClaimBody).owed_author == self.me
        )  # fmt: skip
        if not against_us or not self._too_soon(e):
            self._early.pop(e.id, None)
            return False
        if e.id not in self._early:
            key = self.log.key(e.author)
            if key is None or not e.verify(key):
                return False  # the log judges (and drops) it as usual
            if len(self._early) >= MAX_EARLY:
                # refused, not let through: resync sends it again, once it is no longer early
                out.append(Dropped(f"more than {MAX_EARLY} claims came too soon"))
                return True
            self._early[e.id] = e
            assert self._owing_since is not None  # (too soon: we owe)
            out.append(EarlyClaim(self._now - self._owing_since, self.table.claim_timeout))
        return True

    def _too_soon(self, claim: Entry) -> bool:
        """Whether we still owe what ``claim`` names, for less than the timeout."""
        if self._owing_since is None or self._now - self._owing_since >= self.table.claim_timeout:
            return False
        verdict = judge_claim(claim, self.log.since(self.me, claim.ack_seq))
        return verdict.verdict is Verdict.OPEN

    def _let_through(self, out: list[Output]) -> None:
        """Admit held claims once our owed entry is out or the time is up."""
        due = [claim for claim in self._early.values() if not self._too_soon(claim)]
        for claim in due:
            del self._early[claim.id]
        if due:
            self._admit(due, out)

    def _refresh(self, out: list[Output]) -> None:
        start = self.table.update(self.log.linear())
        events = self.table.events  # (fold index, event), in fold order
        if events is self._told:  # folded on: whatever follows the reported events is new
            fresh = [e for _, e in events[self._reported :]]
        else:  # refolded from ``start`` (a new list): report only events not told before
            k, old = 0, self._told  # the events kept from before the refold: the same objects
            while k < min(len(events), len(old)) and events[k] is old[k]:
                k += 1
            told = [e for _, e in old[k:]]
            if any(i >= start for i, _ in old[k:]):  # events of entries placed anew
                out.append(Refolded(start))
            fresh = []
            for _, e in events[k:]:
                if e in told:
                    told.remove(e)  # recomputed, the same as before
                else:
                    fresh.append(e)  # e.g. a cheat found without placing anything new
        out += fresh
        self._told, self._reported = events, len(events)

    def _watch(self, out: list[Output]) -> None:
        # Each move answers what was owed: the draw of a turn restarts the clock for
        # its discard, on both sides (a chat answers nothing).
        m = self.table.match
        moves = len(m.hand.moves) if m is not None and m.hand is not None else -1
        mine = self.table.owes(self.me)
        if mine is None:
            self._owing_since = None
        elif self._owing_since is None or moves != self._owing_moves:
            since = self._away_since
            self._owing_since = self._now if since is None else min(since, self._now)
        self._owing_moves = moves
        o = self.table.owes(self.opponent)
        now = (o.author, o.what) if o is not None else None
        if now != self._waiting:
            self._waiting = now
            self._since = self._now
            if o is not None:
                out.append(Waiting(o.author, o.what, self._now))
        elif moves != self._waiting_moves:
            self._since = self._now  # same words ("a move"), another move owed
        self._waiting_moves = moves

    def _auto(self, out: list[Output]) -> None:
        """Append every owed entry that is not a player's decision, one after another.

        If one cannot be made (a bug, a secret gone), the peer stops (``refused``) and
        ``out`` keeps the outputs of the entries made before it: an entry is in the log
        as soon as it is appended, so its ``Save`` must never be dropped with an
        exception (a later resync would send an entry that was never saved)."""
        refused = self.refused
        while True:
            try:
                step = self._next_auto()
            except Exception as exc:
                self.refused = f"the next entry could not be made ({type(exc).__name__}: {exc})"
                step = None
            if step is None:
                if self.refused is not None and self.refused != refused:
                    out.append(Refused(self.refused))  # tell the player, once
                return
            kind, body, before = step
            out += before
            self._append(kind, body, out)
            self._refresh(out)
