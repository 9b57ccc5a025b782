"""The replay model: a saved game log as a list of steps, one per entry, with the table
after each one as a chosen player saw it.

:func:`~ginp2p.record.steps.load_records` builds it from a log's records (reading a
``.ginlog`` read-only, a game still being played or a torn or unfinished file alike, is
:func:`ginp2p.files.records.load_replay`'s): it audits them and folds them once through
:class:`~ginp2p.proto.table.Table` exactly as the audit does, keeping after every entry the
engine's (immutable) match state. The cards each view may show are decided afterwards,
per step, from what the whole log proves about each hand:

* ``public``: what an onlooker saw at that moment (the upcard, discards, shown hands),
  and every card once both players opened the hand's seeds;
* ``host`` / ``guest``: the public cards plus that player's own hand, read with the
  player's secrets file when it is present (as the player's own table did), or from
  the openings for hands whose seeds were opened;
* ``all``: every card the log proves, from the start of the hand.

So stepping back and forth never refolds: a frame is a cheap function of one step.
Entries the audit rejects carry a :class:`Mark`. No terminal, no file.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from ginp2p.errors import Ginp2pError
from ginp2p.game.cards import Card
from ginp2p.game.engine import Action, Declaration, HandResult, HandState, Phase
from ginp2p.game.match import MatchState
from ginp2p.game.rules import RuleSet
from ginp2p.present.words import (
    action_words,
    for_screen,
    match_end_words,
    preset_words,
    result_words,
)
from ginp2p.proto import events as ev
from ginp2p.proto.claims import Owed
from ginp2p.proto.entry import GUEST, HOST, Entry
from ginp2p.proto.results import NAMES, Cheat
from ginp2p.record.report import Report

__all__ = [
    "DAMAGED",
    "VIEWS",
    "FileName",
    "Frame",
    "Mark",
    "Replay",
    "ReplayError",
    "Seat",
    "Step",
    "phase_words",
    "result_words",
]

VIEWS = ("public", "host", "guest", "all")
#: How a note about the file's damage begins (the audit's report says the damage too).
DAMAGED = "damaged: "
#: Kinds stepped through "move by move": the players' moves and what ends a match.
MOVE_KINDS = frozenset(ev.ACTION_KINDS | ev.ENDERS)


class ReplayError(Ginp2pError):
    """The file cannot be replayed (missing, unreadable, not a game log, empty)."""


class FileName(Protocol):
    """A file a replay was read from, as the disk layer names it (a ``pathlib.Path``):
    said whole in sentences, by its ``name`` in a title."""

    @property
    def name(self) -> str: ...


# ------------------------------------------------------------------------ data


@dataclass(frozen=True, slots=True)
class Mark:
    """Why the audit rejects or ignores an entry. ``level``: ``cheat`` (the proof
    against its author), ``void`` (kept without effect, nobody blamed) or ``after``
    (placed after the match was decided by a cheat: it changes nothing)."""

    level: str
    text: str


@dataclass(frozen=True, slots=True)
class Step:
    """One entry of the log in linear order, and the table right after it."""

    index: int
    entry: Entry
    hand: int  # the entry's hand, or the hand in play when it was placed (0: set-up)
    mark: Mark | None
    match: MatchState | None
    fold_hand: int  # the hand being set up, played or closed (0: none yet)
    stage: str  # that hand's schedule row (commit, shuffle, ..., play, open, done)
    opened: bool  # both seeds of the displayed hand are in and check out
    pending_stock: int | None  # a drawn stock position whose key has not come yet
    owed: tuple[Owed, ...]
    cheat: Cheat | None
    action: Action | None = None  # the engine action of a move
    taken: Card | None = None  # the card taken from the pile

    @property
    def kind(self) -> str:
        return self.entry.kind

    @property
    def author(self) -> int:
        return self.entry.author

    @property
    def seq(self) -> int:
        return self.entry.seq

    @property
    def is_move(self) -> bool:
        return self.kind in MOVE_KINDS

    @property
    def match_over(self) -> bool:
        """The match is decided (its target, a forfeit, a cheat): nobody is to move, even
        where a forfeit left the hand in the middle of its play."""
        return self.match is not None and self.match.over

    @property
    def hand_state(self) -> HandState | None:
        """The hand on the table: the one in play, or the one just finished, up to its
        last entry (its checkpoints); None while the next hand is shuffled."""
        m = self.match
        if m is None or m.hand is None or m.hand_no not in (self.fold_hand, self.hand):
            return None
        return m.hand

    @property
    def shown_hand(self) -> int:
        """The number of the hand a frame shows (or is shuffling)."""
        m = self.match
        return m.hand_no if m is not None and self.hand_state is not None else self.fold_hand


@dataclass(frozen=True, slots=True)
class Seat:
    """One player as a frame shows them."""

    player: int
    name: str
    score: int
    dealer: bool
    to_move: bool
    cards: tuple[Card | None, ...]  # None: a card this view cannot see
    declaration: Declaration | None = None


@dataclass(frozen=True, slots=True)
class Frame:
    """What the screen shows at one step for one view."""

    step: Step
    view: str
    hand: int
    seats: tuple[Seat, Seat]
    pile: tuple[Card | None, ...]
    stock: int | None  # cards left in the stock; None between hands
    next_stock: Card | None  # the top of the stock, in the ``all`` view only
    status: str
    result: HandResult | None
    totals: bool  # the scores are the final totals (with bonuses)


@dataclass
class Replay:
    """A loaded log: its steps, its audit, and what each view may know per hand."""

    path: FileName | None
    steps: list[Step]
    report: Report
    names: tuple[str, str]
    rules: RuleSet | None
    #: per hand: every card the public fold read by the end of the log (pos -> card)
    public: dict[int, dict[int, Card]]
    #: per player, per hand: the cards that player's own view read (with its secrets)
    private: tuple[dict[int, dict[int, Card]], dict[int, dict[int, Card]]]
    #: per player: the secrets file read, if any
    secrets: tuple[FileName | None, FileName | None] = (None, None)
    #: hand number -> index of the step at which its cards were dealt
    deals: dict[int, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    #: the player who kept this file, from its ``.peer`` file (None: unknown)
    owner: int | None = None

    def __len__(self) -> int:
        return len(self.steps)

    # -- navigation -----------------------------------------------------------------
    @property
    def hands(self) -> list[int]:
        """Every hand the log reaches (set-up excluded)."""
        return sorted({s.hand for s in self.steps if s.hand > 0})

    def clamp(self, index: int) -> int:
        return max(0, min(len(self.steps) - 1, index))

    def next_move(self, index: int) -> int:
        """The next move of play (or resign, claim, dispute) after ``index``; the last
        step if none."""
        for s in self.steps[index + 1 :]:
            if s.is_move:
                return s.index
        return len(self.steps) - 1

    def prev_move(self, index: int) -> int:
        for s in reversed(self.steps[:index]):
            if s.is_move:
                return s.index
        return 0

    def hand_start(self, hand: int) -> int | None:
        """Where hand ``hand`` is dealt (its first entry if it never was); None if the
        log never reaches it."""
        if hand in self.deals:
            return self.deals[hand]
        return next((s.index for s in self.steps if s.hand == hand), None)

    def next_hand(self, index: int) -> int:
        here = self.steps[index].hand
        for h in self.hands:
            start = self.hand_start(h)
            if h > here and start is not None:
                return start
        return len(self.steps) - 1

    def prev_hand(self, index: int) -> int:
        """The start of this hand, or of the one before if already there."""
        here = self.steps[index].hand
        start = self.hand_start(here) if here else 0
        if start is not None and start < index:
            return start
        for h in reversed(self.hands):
            start = self.hand_start(h)
            if h < here and start is not None:
                return start
        return 0

    def next_mark(self, index: int) -> int | None:
        """The next marked step after ``index``, wrapping round; None if none is."""
        n = len(self.steps)
        for k in range(1, n + 1):
            s = self.steps[(index + k) % n]
            if s.mark is not None:
                return s.index
        return None

    # -- views ----------------------------------------------------------------------
    def has_secrets(self, player: int) -> bool:
        return self.secrets[player] is not None

    def default_view(self) -> str:
        """The view of the player who kept this file (its ``.peer`` file says which),
        if their secrets are at hand; else of the only player whose secrets are; else
        the public one."""
        if self.owner is not None and self.secrets[self.owner] is not None:
            return NAMES[self.owner]
        owners = [p for p in (HOST, GUEST) if self.secrets[p] is not None]
        return NAMES[owners[0]] if len(owners) == 1 else "public"

    def view_name(self, view: str) -> str:
        if view in ("host", "guest"):
            p = NAMES.index(view)
            return f"{self.names[p]} ({view})"
        return view

    def parse_view(self, text: str) -> str:
        """``public``, ``host``, ``guest``, ``all`` or a player's name."""
        t = text.strip().lower()
        if t in VIEWS:
            return t
        for p in (HOST, GUEST):
            if self.names[p].lower() == t:
                return NAMES[p]
        raise ValueError(
            f"unknown view {text!r}: public, host, guest, all, or {self.names[0]!r} / "
            f"{self.names[1]!r}"
        )

    def _known(self, hand: int, view: str) -> dict[int, Card]:
        """What ``view`` can read of ``hand`` at some moment (before restricting to the
        positions it may see then)."""
        public = self.public.get(hand, {})
        if view == "all":
            return {**self.private[HOST].get(hand, {}), **self.private[GUEST].get(hand, {}),
                    **public}  # fmt: skip
        if view in ("host", "guest"):
            return {**self.private[NAMES.index(view)].get(hand, {}), **public}
        return public

    def drawn(self, step: Step, view: str) -> Card | None:
        """The card a stock draw took, if ``view`` may know it at the draw: in a
        player's view only from the key, the entry after, as the table shows it."""
        pos = step.pending_stock
        if pos is None or not self._shows(step, view, step.author, pos):
            return None
        return self._known(step.shown_hand, view).get(pos)

    def reveals(self, step: Step, view: str) -> bool:
        """Whether ``step`` is the key that shows ``view`` its own stock draw: not a
        move, but where a player's view learns the card (``--moves`` keeps it)."""
        return step.kind == "stock_key" and view != "all" and self.sees(view, 1 - step.author)

    def sees(self, view: str, player: int) -> bool:
        """Whether ``view`` shows ``player``'s own cards."""
        return view == "all" or view == NAMES[player]

    def _shows(self, step: Step, view: str, player: int, pos: int) -> bool:
        """Whether ``view`` may name the card at ``pos`` of ``player``'s hand after
        ``step``: a card shown or opened, or one of the view's own, but not a stock card
        before its key (its drawer learns it from that key). One rule for the table and
        the words, so they name a card at the same entry."""
        hs = step.hand_state
        return (
            (hs is not None and pos in hs.shown)
            or step.opened
            or (self.sees(view, player) and (view == "all" or pos != step.pending_stock))
        )

    def frame(self, index: int, view: str = "public") -> Frame:
        """The table at step ``index`` as ``view`` shows it."""
        step = self.steps[self.clamp(index)]
        m, hs = step.match, step.hand_state
        scores = (0, 0) if m is None else (m.totals or m.scores)
        cards: list[tuple[Card | None, ...]] = [(), ()]
        pile: tuple[Card | None, ...] = ()
        stock = None
        next_stock = None
        decls: tuple[Declaration | None, Declaration | None] = (None, None)
        if hs is not None:
            known = self._known(step.shown_hand, view)
            for p in (HOST, GUEST):
                cards[p] = tuple(known.get(pos) if self._shows(step, view, p, pos) else None
                                 for pos in hs.hands[p])  # fmt: skip
            pile = tuple(known.get(pos) for pos in hs.discard_pile)
            stock = hs.stock_left
            if view == "all" and not hs.over and hs.stock_left > 0:
                next_stock = known.get(hs.stock_next)
            decls = hs.declarations
        seats = [
            Seat(
                player=p,
                name=self.names[p],
                score=scores[p],
                dealer=hs is not None and hs.dealer == p,
                to_move=hs is not None
                and not hs.over
                and hs.to_move == p
                and not step.cheat
                and not step.match_over,
                cards=cards[p],
                declaration=decls[p],
            )
            for p in (HOST, GUEST)
        ]
        return Frame(
            step=step,
            view=view,
            hand=step.shown_hand,
            seats=(seats[0], seats[1]),
            pile=pile,
            stock=stock,
            next_stock=next_stock,
            status=self.status(step),
            result=hs.result if hs is not None else None,
            totals=m is not None and m.totals is not None,
        )

    # -- words ----------------------------------------------------------------------
    def status(self, step: Step) -> str:
        """Where the game stands after ``step``, in a sentence; at the last step, the
        result the audit gives the whole log."""
        n = self.names
        m = step.match
        r = self.report
        if step.index == len(self.steps) - 1:
            if r.winner is not None and r.scores is not None:
                w, s = r.winner, r.scores
                return (
                    f"match over: {n[w]} wins, {s[w]} to {s[1 - w]} "
                    f"({match_end_words(r.end, n[1 - w])})"
                )
            if r.damage:  # the file lost entries: what looks owed may be in the lost part
                owed = r.owed or tuple(f"{n[o.author]} owes {o.what}" for o in step.owed)
                return "the file is damaged and stops here" + (
                    f" ({'; '.join(owed)}, perhaps in the part that was lost)" if owed else ""
                )
            if r.owed:
                return "the log stops here: " + "; ".join(r.owed)
        if m is not None and m.over and m.winner is not None:
            s = m.totals or m.scores
            return (
                f"match over: {n[m.winner]} wins, {s[m.winner]} to {s[1 - m.winner]} "
                f"({match_end_words(m.end, n[1 - m.winner])})"
            )
        if step.cheat is not None:
            return f"frozen: {for_screen(step.cheat.describe(n))}"  # a false dispute's rule
        if step.owed:
            o = step.owed[0]
            if o.kinds == frozenset(ev.ACTION_KINDS) and step.hand_state is not None:
                return f"{n[o.author]} to move"
            return "waiting: " + "; ".join(f"{n[x.author]} owes {x.what}" for x in step.owed)
        return ""

    def describe(self, step: Step, view: str = "public",
                 name: Callable[[Card | None], str] | None = None) -> str:  # fmt: skip
        """The entry in words, with the cards ``view`` may see."""
        pretty = name or (lambda c: c.pretty() if c is not None else "??")
        e, n = step.entry, self.names
        who = n[e.author]
        b = e.body
        k = e.kind
        other = n[1 - e.author]
        if k == "hello":
            if e.author == HOST:
                preset = preset_words(self.rules) if self.rules is not None else "?"
                return f"{who} (host) says hello: rules {preset}"
            return f"{who} (guest) says hello and joins"
        if k == "nonce":
            m = step.match
            dealer = n[m.dealer] if m is not None else "?"
            return f"{who} opens the coin toss: {dealer} deals first"
        hand = getattr(b, "hand", None)
        if k == "commit":
            return f"{who} commits to a shuffle of hand {hand}"
        if k == "shuffle":
            return f"{who} shuffles and masks the deck, with proofs"
        if k == "challenge":
            return f"{who} challenges {other}'s shuffle"
        if k == "answers":
            return f"{who} answers {other}'s challenge"
        if k == "lock":
            extra = ", and sends the keys to deal" if b.deal_keys else ""
            return f"{who} locks every card with its own key{extra}"
        if k == "keys":
            return f"{who} sends the keys to deal: hand {hand} is dealt"
        if k == "stock_key":
            card = None
            if self._shows(step, view, 1 - e.author, b.pos):
                card = self._known(step.shown_hand, view).get(b.pos)
            shown = f": {pretty(card)}" if card is not None else ""
            return f"{who} unlocks the stock card {other} drew{shown}"
        if k == "open":
            tail = ": every card can now be checked" if step.opened else ""
            return f"{who} opens the seeds of hand {hand}{tail}"
        if k == "checkpoint":
            s = b.scores
            return f"{who} signs the result of hand {hand}: {n[0]} {s.host}, {n[1]} {s.guest}"
        # below, the words a player wrote, as a screen may show them (the log keeps
        # them as signed; the names come filtered from the table)
        if k == "resign":
            reason = f": {for_screen(b.reason)}" if b.reason else ""
            return f"{who} resigns{reason}"
        if k == "claim":
            return f"{who} claims the match: {n[b.owed_author]} owes {for_screen(b.what)}"
        if k == "dispute":
            return f"{who} disputes an entry of {other} ({for_screen(b.rule)})"
        if k == "chat":
            return f"{who} says: {for_screen(b.text)}"
        if step.action is not None:
            return self._describe_move(step, view, pretty)
        return f"{who}: {k}"

    def _describe_move(self, step: Step, view: str, pretty: Callable[[Card | None], str]) -> str:
        a = step.action
        assert a is not None
        card = self.drawn(step, view) if a.kind == "draw_stock" else step.taken
        return action_words(a, self.names[step.author], card, pretty=pretty)


def phase_words(step: Step) -> str:
    """The hand's phase for a header: shuffling, play, showdown, closing. Once the match
    is decided, a hand that a forfeit cut short reads "hand over", as the last hand of
    a match won on points does; a forfeit before the deal, "match over"."""
    hs = step.hand_state
    if step.shown_hand == 0:
        return "set-up"
    if hs is None:
        return "match over" if step.match_over else f"shuffling ({step.stage})"
    if hs.phase is Phase.OVER or step.match_over:
        return "hand over"
    if hs.phase is Phase.SHOW:
        return "showdown"
    return "play"
