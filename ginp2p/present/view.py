"""The table as plain data: what one player sees, ready to be drawn.

Everything here is a pure function of the engine's view of the hand (own cards and
public ones), the match's score sheet and a few facts about the connection, gathered
in a :class:`Situation`. The console draws a :class:`TableView`; tests check one
without a terminal. Rules are never decided here: melds, deadwood and knock options
come from :mod:`ginp2p.game.melds` and :func:`ginp2p.game.engine.legal_actions`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from ginp2p.game import engine
from ginp2p.game import match as mt
from ginp2p.game import melds as M
from ginp2p.game.cards import Card, card_order
from ginp2p.game.engine import Action, Declaration, HandResult, HandState, Phase
from ginp2p.game.match import MatchEnd, MatchState
from ginp2p.game.melds import Layoff, Meld
from ginp2p.game.rules import RuleSet
from ginp2p.present.words import (
    action_words,
    count,
    ending,
    forfeited_lead_words,
    goal_words,
    match_end_words,
    no_score,
    preset_short,
    score_reasons,
)
from ginp2p.proto.table import Chatted, HandDealt, HandScored, MatchOver, Moved

__all__ = [
    "Draft",
    "Group",
    "HandSummary",
    "KnockOption",
    "MatchSummary",
    "SeatSummary",
    "Shown",
    "Situation",
    "TableView",
    "build_view",
    "card_order",
    "deadwood_after",
    "declared",
    "draft_from",
    "hand_line",
    "hand_summary",
    "knock_options",
    "log_line",
    "match_summary",
    "meld_order",
    "sort_hand",
    "standing",
    "wall_line",
]


@dataclass(frozen=True, slots=True)
class Situation:
    """Everything the table is drawn from, for one player (``me``)."""

    me: int
    names: tuple[str, str]
    match: MatchState | None = None
    #: The hand as this player may see it (``HandState.view(me)``); None between hands.
    hand: HandState | None = None
    my_turn: bool = False
    #: What the other player owes now, in words (None: they owe nothing).
    owed: str | None = None
    #: Seconds they have owed it.
    waited: float = 0.0
    claim_timeout: int = 120
    claimable: bool = False
    #: Seconds we have owed our move, when the other side may claim for it (else None).
    my_wait: float | None = None
    #: "connected", "connecting", "reconnecting" or "game over" (no connection left).
    link: str = "connected"
    latency: float | None = None
    #: The match is over and the session is finishing.
    over: bool = False

    @property
    def opponent(self) -> int:
        return 1 - self.me


@dataclass(frozen=True, slots=True)
class Group:
    """Cards of the hand shown together: one meld, or the unmatched cards."""

    cards: tuple[Card, ...]
    meld: bool


@dataclass(frozen=True, slots=True)
class KnockOption:
    """A way to end the hand now: the discard, the deadwood left, the action to send."""

    discard: Card | None
    deadwood: int
    gin: bool
    action: Action


@dataclass(frozen=True, slots=True)
class Shown:
    """A declaration on the table (the knocker's melds, or a hand at the showdown)."""

    melds: tuple[tuple[Card, ...], ...]
    layoffs: tuple[Card, ...]
    deadwood_cards: tuple[Card, ...]
    deadwood: int


@dataclass(frozen=True, slots=True)
class TableView:
    """One player's table, as the console draws it."""

    names: tuple[str, str]  # (me, opponent)
    scores: tuple[int, int]  # (me, opponent)
    hands_won: tuple[int, int]
    #: What each score means, after it in the header: "2 hands won", or where a player
    #: is out over a limit, "77 to the limit" (me, opponent).
    standings: tuple[str, str]
    preset: str  # "classic", or "classic, changed" where --set changed a setting
    goal: str  # "game to 100", or rumino's "out over 100" ("" before the rules are known)
    hand_no: int
    dealing: bool  # between hands: the next deal is being shuffled
    opponent_cards: int
    opponent_shown: Shown | None
    stock: int
    pile: tuple[Card | None, ...]  # bottom first; the top card is last
    hand: tuple[Card, ...]  # in the order drawn: groups first, then deadwood
    groups: tuple[Group, ...]
    deadwood: int
    knocks: tuple[KnockOption, ...]
    big_gin: Action | None
    phase: str  # the engine's phase, "" between hands
    my_turn: bool
    turn: str  # whose turn it is and what they may do, in words
    waiting: str | None  # "waiting for Bot: a move in hand 2" (None: not waiting)
    waited: float
    claim_timeout: int
    claimable: bool
    my_wait: float | None
    link: str
    latency: float | None
    upcard: Card | None
    keys: tuple[tuple[str, str], ...] = field(default=())  # (key, what it does) now
    #: The card just taken from the pile, which the rules forbid discarding at once.
    kept: Card | None = None
    #: Rumino's declaration, when the hand allows it: it wins the match outright.
    rumino: engine.DeclareRumino | None = None
    #: Where a knock comes instead of the next draw (rumino): its deadwood limit, so the
    #: hint after a draw says "knock next turn" rather than "no knock yet".
    knock_before_draw: int | None = None


# ------------------------------------------------------------------------ the hand


def sort_hand(cards: Sequence[Card], rules: RuleSet) -> tuple[tuple[Group, ...], int]:
    """The hand grouped into its best melds (runs in order) then the deadwood, sorted
    by suit and rank; and the deadwood total. Ties between equally good arrangements
    go the way :func:`ginp2p.game.melds.best_arrangement` breaks them."""
    if not cards:
        return (), 0
    melds, dead = M.best_arrangement(list(cards), rules)
    groups = [Group(meld_order(m), True) for m in melds]
    groups.sort(key=lambda g: card_order(g.cards[0]))
    if dead:
        groups.append(Group(tuple(sorted(dead, key=card_order)), False))
    return tuple(groups), M.deadwood(dead, rules)


def meld_order(meld: Meld) -> tuple[Card, ...]:
    """A run in sequence (jokers where they stand), a set by suit."""
    if meld.kind == "run":
        return meld.in_order
    return tuple(sorted(meld.cards, key=card_order))


def declared(decl: Declaration) -> Shown:
    """A declaration as the table shows it: melds in order, layoffs, the deadwood."""
    return Shown(
        tuple(meld_order(m) for m in decl.melds),
        tuple(lay.card for lay in decl.layoffs),
        tuple(sorted(decl.deadwood_cards, key=card_order)),
        decl.deadwood,
    )


def knock_options(hand: HandState, legal: Sequence[Action]
                  ) -> tuple[list[KnockOption], Action | None]:  # fmt: skip
    """The knocks and gins among ``legal`` (least deadwood first), and a big gin."""
    rules = hand.rules
    me = hand.to_move
    cards = [c for c in hand.cards(me) if c is not None]
    if hand.phase is Phase.WALL and hand.upcard is not None:
        cards.append(hand.upcard)
    out: list[KnockOption] = []
    big: Action | None = None
    for a in legal:
        if isinstance(a, engine.Knock | engine.Gin | engine.WallKnock):
            rest = list(cards)
            if a.discard is not None:
                rest.remove(a.discard)
            dw = M.min_deadwood(rest, rules)
            out.append(KnockOption(a.discard, dw, dw == 0, a))
        elif isinstance(a, engine.BigGin):
            big = a
    out.sort(key=lambda k: (k.deadwood, -(k.discard.value if k.discard else 0)))
    return out, big


# ------------------------------------------------------------------------ the view


def _turn_line(s: Situation, hand: HandState | None, upcard: Card | None,
               knocks: Sequence[KnockOption]) -> str:  # fmt: skip
    opp = s.names[s.opponent]
    m = s.match
    if m is not None and m.over:
        return "the match is over"
    if hand is None:
        if m is None:
            return f"waiting for {opp} to start the match"
        return f"shuffling and dealing hand {m.hand_no + 1}…"
    up = upcard.pretty() if upcard is not None else ""
    if hand.over:
        return f"hand {m.hand_no if m else ''} is over".replace("  ", " ")
    if s.my_turn:
        phase = hand.phase
        if phase is Phase.FIRST_UPCARD:
            if all(hand.passed):
                return "your turn: both passed the upcard, draw from the stock (s)"
            return f"your turn: take the upcard {up} (d) or pass (p)"
        if phase is Phase.DRAW and knocks:  # rumino: a knock instead of the draw, as k offers
            return f"your turn: draw from the stock (s), take {up} from the pile (d), or knock (k)"
        if phase is Phase.DRAW:
            return f"your turn: draw from the stock (s) or take {up} from the pile (d)"
        if phase is Phase.DISCARD:
            return "your turn: choose a card with ←/→ and discard it (Enter)"
        if phase is Phase.WALL:
            return wall_line(up, knocks)
        if phase is Phase.SHOW:
            return "your showdown: lay out your melds (Enter accepts the proposal)"
    if hand.to_move == s.me:
        return "your move is being sent…"
    doing = {
        Phase.FIRST_UPCARD: "taking or passing the upcard",
        Phase.DRAW: "drawing",
        Phase.DISCARD: "discarding",
        Phase.WALL: "deciding at the wall",
        Phase.SHOW: "laying out melds",
    }.get(hand.phase, "playing")
    if hand.phase is Phase.FIRST_UPCARD and all(hand.passed):
        doing = "drawing"  # both passed: the stock, as their own screen says
    return f"{opp}'s turn: {doing}"


def wall_line(upcard: str, knocks: Sequence[KnockOption], keys: bool = True) -> str:
    """The wall's choice in words, the same on the table and at the line prompt (which
    has no ``keys`` to name): a knock or a gin only where the engine lists one."""
    k, g, p = (" (k)", " (g)", " (p)") if keys else ("", "", "")
    ways = [w for w, yes in ((f"knock{k}", any(not o.gin for o in knocks)),
                             (f"go gin{g}", any(o.gin for o in knocks))) if yes]  # fmt: skip
    if not ways:
        return f"the wall: no knock using the upcard {upcard}: pass{p}"
    return f"the wall: {' or '.join(ways)} using the upcard {upcard}, or pass{p}"


def _keys(s: Situation, hand: HandState | None, knocks: Sequence[KnockOption], big: Action | None,
          rumino: engine.DeclareRumino | None) -> tuple[tuple[str, str], ...]:  # fmt: skip
    keys: list[tuple[str, str]] = []
    if hand is not None and s.my_turn:
        phase = hand.phase
        if phase is Phase.FIRST_UPCARD:
            keys += [("s", "stock")] if all(hand.passed) else [("d", "take"), ("p", "pass")]
        elif phase is Phase.DRAW:
            keys += [("s", "stock"), ("d", "pile")]
            if knocks:
                keys.append(("k", "knock"))
        elif phase is Phase.DISCARD:
            keys += [("←→", "card"), ("Enter", "discard")]
            if any(not k.gin for k in knocks):
                keys.append(("k", "knock"))
            if rumino is not None:  # it wins the match: better than any gin
                keys.append(("g", "rumino"))
            elif any(k.gin for k in knocks) or big is not None:
                keys.append(("g", "gin"))
        elif phase is Phase.WALL:
            keys += [("←→", "card")] if knocks else []
            keys += [("k", "knock")] if any(not k.gin for k in knocks) else []
            keys += [("g", "gin")] if any(k.gin for k in knocks) else []
            keys.append(("p", "pass"))
        elif phase is Phase.SHOW:
            keys += [("Enter", "accept"), ("e", "change")]
    if s.claimable:
        keys.append(("c", "claim"))
    keys += [(":", "command"), ("?", "help"), ("^C", "leave")]
    return tuple(keys)


def standing(rules: RuleSet | None, score: int, won: int) -> str:
    """What a player's score means: the hands won where the first to a target wins, the
    room left where a score over the target puts the player out (rumino)."""
    if rules is not None and rules.match_end == "bust":
        room = rules.game_target - score
        return f"{room} to the limit" if room >= 0 else f"{-room} over the limit"
    return f"{count(won, 'hand')} won"


def build_view(s: Situation) -> TableView:
    """The table for ``s.me``: grouped hand, deadwood, knock options, whose turn."""
    me, opp = s.me, s.opponent
    m = s.match
    hand = s.hand
    rules = m.rules if m is not None else (hand.rules if hand is not None else None)
    scores = (m.scores[me], m.scores[opp]) if m is not None else (0, 0)
    won = (m.hands_won[me], m.hands_won[opp]) if m is not None else (0, 0)
    mine: list[Card] = []
    groups: tuple[Group, ...] = ()
    dead = 0
    knocks: list[KnockOption] = []
    big: Action | None = None
    rumino: engine.DeclareRumino | None = None
    shown: Shown | None = None
    pile: tuple[Card | None, ...] = ()
    upcard: Card | None = None
    if hand is not None:
        mine = [c for c in hand.cards(me) if c is not None]
        groups, dead = sort_hand(mine, hand.rules)
        pile = tuple(hand.pile_cards())
        upcard = hand.upcard
        decl = hand.declarations[opp]
        if decl is not None:
            shown = declared(decl)
        if s.my_turn and hand.to_move == me and not hand.over:
            try:
                legal = engine.legal_actions(hand)
            except engine.HiddenCard:
                legal = []
            knocks, big = knock_options(hand, legal)
            rumino = next((a for a in legal if isinstance(a, engine.DeclareRumino)), None)
    ordered = tuple(c for g in groups for c in g.cards)
    return TableView(
        names=(s.names[me], s.names[opp]),
        scores=scores,
        hands_won=won,
        standings=(standing(rules, scores[0], won[0]), standing(rules, scores[1], won[1])),
        preset=preset_short(rules, beside=("game_target",)) if rules is not None else "",
        goal=goal_words(rules) if rules is not None else "",
        hand_no=m.hand_no if m is not None else 0,
        dealing=hand is None and m is not None and not m.over,
        opponent_cards=len(hand.hands[opp]) if hand is not None else 0,
        opponent_shown=shown,
        stock=hand.stock_left if hand is not None else 0,
        pile=pile,
        hand=ordered,
        groups=groups,
        deadwood=dead,
        knocks=tuple(knocks),
        big_gin=big,
        phase=str(hand.phase) if hand is not None else "",
        my_turn=s.my_turn,
        turn=_turn_line(s, hand, upcard, knocks),
        waiting=(f"waiting for {s.names[opp]}: {s.owed}" if s.owed else None),
        waited=s.waited,
        claim_timeout=s.claim_timeout,
        claimable=s.claimable,
        my_wait=s.my_wait,
        link=s.link,
        latency=s.latency,
        upcard=upcard,
        keys=_keys(s, hand, knocks, big, rumino),
        rumino=rumino,
        kept=engine.forbidden_discard(hand) if hand is not None else None,
        knock_before_draw=_knock_before_draw(rules),
    )


def _knock_before_draw(rules: RuleSet | None) -> int | None:
    return rules.knock_limit if rules is not None and rules.knock_instead_of_draw else None


def deadwood_after(cards: Sequence[Card], discard: Card, rules: RuleSet) -> int:
    """The least deadwood left if ``discard`` goes (the live total while choosing)."""
    rest = list(cards)
    rest.remove(discard)
    return M.min_deadwood(rest, rules)


# ------------------------------------------------------------------------ the log


def log_line(event: object, me: int, names: tuple[str, str],
             rules: RuleSet | None = None) -> str | None:  # fmt: skip
    """One line of "what happened", in words a player uses; None for what the table
    shows anyway. ``names`` are the real names of seats 0 and 1; ``rules`` say what a
    hand's points mean (see :func:`hand_line`)."""

    def who(p: int) -> str:
        return "you" if p == me else names[p]

    if isinstance(event, HandDealt):
        up = f"; the upcard is {event.upcard.pretty()}" if event.upcard is not None else ""
        deals = "deal" if event.dealer == me else "deals"
        return f"hand {event.hand}: {who(event.dealer)} {deals}{up}"
    if isinstance(event, Moved):
        return action_words(event.action, who(event.player), event.card, past=True)
    if isinstance(event, HandScored):
        return (
            hand_line(event.hand, event.result, me, names, rules)
            + f" · {names[me]} {event.scores[me]}, {names[1 - me]} {event.scores[1 - me]}"
        )
    if isinstance(event, MatchOver):
        return _match_line(event.winner, event.end, me, names)
    if isinstance(event, Chatted):
        return f"{'you' if event.player == me else names[event.player]}: {event.text}"
    return None


def hand_line(number: int, r: HandResult, me: int | None, names: tuple[str, str],
              rules: RuleSet | None = None) -> str:  # fmt: skip
    """How a hand ended and what each player scored; ``me`` (if any) is "you". Where
    each adds their own deadwood (``rules.scoring`` ``own_deadwood``: rumino) the points
    count against a player: "5 added to your score", not "you score 5"."""

    def who(p: int) -> str:
        return "you" if p == me else names[p]

    line = f"hand {number}: {ending(r, who)}"
    if r.scored and rules is not None and rules.scoring == "own_deadwood":
        first = r.knocker if r.knocker is not None else 0
        parts = []
        for p in (first, 1 - first):
            n, whose = r.points[p], "your" if p == me else f"{names[p]}'s"
            if n:  # a gin's -10 comes off
                parts.append(f"{abs(n)} {'added to' if n > 0 else 'taken off'} {whose} score")
        line += f"; {', '.join(parts)}"
    elif r.scored:
        gainer = 0 if r.points[0] else 1
        gains = "score" if gainer == me else "scores"
        line += f"; {who(gainer)} {gains} {r.points[gainer]}"
        if r.points[1 - gainer]:
            line += f", {who(1 - gainer)} {r.points[1 - gainer]}"
    else:
        line += no_score(r)
    return line


def _match_line(winner: int | None, end: MatchEnd, me: int, names: tuple[str, str]) -> str:
    if winner is None:
        return f"the match is over ({match_end_words(end)})"
    how = match_end_words(end, "you" if winner != me else names[1 - winner])
    return f"MATCH OVER: {'you win' if winner == me else names[winner] + ' wins'} ({how})"


# ------------------------------------------------------------------------ summaries


@dataclass(frozen=True, slots=True)
class SeatSummary:
    name: str
    shown: Shown | None
    points: int
    score: int


@dataclass(frozen=True, slots=True)
class HandSummary:
    """The end of a hand: both declarations, what it scored and why, the totals."""

    number: int
    headline: str
    seats: tuple[SeatSummary, SeatSummary]  # (me, opponent)
    reasons: tuple[str, ...]  # how the points were made up


def hand_summary(number: int, r: HandResult, scores: tuple[int, int], me: int,
                 names: tuple[str, str], rules: RuleSet) -> HandSummary:  # fmt: skip
    """From a scored hand (``HandScored``) to the lines of its summary."""
    seats = tuple(
        SeatSummary(
            names[p],
            declared(decl) if (decl := r.declarations[p]) is not None else None,
            r.points[p],
            scores[p],
        )
        for p in (me, 1 - me)
    )
    reasons = score_reasons(r, rules, lambda p: "you" if p == me else names[p])
    return HandSummary(number, hand_line(number, r, me, names, rules), seats, tuple(reasons))  # type: ignore[arg-type]


@dataclass(frozen=True, slots=True)
class MatchSummary:
    """The end of the match: every hand's points, the bonuses, the totals."""

    headline: str
    names: tuple[str, str]  # (me, opponent)
    hands: tuple[tuple[int, str, int, int], ...]  # (hand, what happened, my points, theirs)
    scores: tuple[int, int]
    bonuses: tuple[tuple[str, int, int], ...]  # (what, mine, theirs)
    totals: tuple[int, int]
    #: The winner (0: the first player) and the lead the match is settled by, as
    #: ``MatchState.margin`` (None: no winner).
    won_by: tuple[int, int] | None = None
    forfeited_lead: int = 0  # how far ahead the player who forfeited was

    def sum_lines(self, me: str | None = None, *, lead: bool = True) -> list[str]:
        """From the hands' points to the totals, one line each: the bonuses spelled out,
        then (with ``lead``) the lead. ``me``: how to call the first player (``you``),
        else by name."""
        a, b = me or self.names[0], self.names[1]
        lines = [f"points from the hands: {a} {self.scores[0]}, {b} {self.scores[1]}"]
        lines += [f"{what}: {a} {x}, {b} {y}" for what, x, y in self.bonuses]
        lines.append(f"total: {a} {self.totals[0]}, {b} {self.totals[1]}")
        if lead and (line := self.lead_line(me)) is not None:
            lines.append(line)
        return lines

    def lead_line(self, me: str | None = None) -> str | None:
        """ "Ann wins by 145": the difference the match is settled by (hoyle has the
        lower total pay it); after a forfeit by the player ahead, that nobody pays. None
        without a lead to speak of (a resignation at 0-0)."""
        if self.won_by is None:
            return None
        seat, margin = self.won_by
        if self.forfeited_lead > 0:  # the one who forfeited: "you" if it is seat 0
            loser = "you" if seat == 1 and me == "you" else self.names[1 - seat]
            return forfeited_lead_words(loser, self.forfeited_lead)
        if margin <= 0:
            return None
        if seat == 0 and me == "you":
            return f"you win by {margin}"
        return f"{self.names[seat]} wins by {margin}"


def match_summary(m: MatchState, me: int, names: tuple[str, str]) -> MatchSummary:
    """From the final score sheet: the hand-by-hand table and the bonuses added."""
    opp = 1 - me
    rows = []
    for i, r in enumerate(m.results, 1):
        text = hand_line(i, r, me, names).split(": ", 1)[1].split(";")[0]
        rows.append((i, text, r.points[me], r.points[opp]))
    totals = m.totals or m.scores
    bonuses = tuple((what, points[me], points[opp]) for what, points in mt.bonuses(m))
    headline = _match_line(m.winner, m.end, me, names) if m.end is not None else "match"
    margin = m.margin
    won_by = None if m.winner is None or margin is None else (int(m.winner != me), margin)
    return MatchSummary(headline, (names[me], names[opp]), tuple(rows),
                        (m.scores[me], m.scores[opp]), bonuses,
                        (totals[me], totals[opp]), won_by, m.forfeited_lead)  # fmt: skip


# ------------------------------------------------------------------------ declaring


@dataclass(frozen=True, slots=True)
class Draft:
    """A declaration being made: a knock (or gin) with a discard, or a showdown.

    ``cards`` are the cards to declare (the hand without the discard); ``melds`` and
    ``layoffs`` what is laid so far. The engine checks the result when it is sent.

    Laid by hand (:meth:`edit`), each candidate keeps the key it was first listed with
    for the whole edit (``keyed``): renumbered after every pick, the key a player had
    read for the next meld meant another meld, or none.
    """

    kind: str  # "knock", "gin", "wall_knock", "big_gin", "show"
    discard: Card | None
    cards: tuple[Card, ...]
    melds: tuple[Meld, ...] = ()
    layoffs: tuple[Layoff, ...] = ()
    #: The knocker's melds a defender may lay off onto (empty: no layoffs).
    targets: tuple[Meld, ...] = ()
    editing: bool = False
    #: Every candidate listed in this edit, in key order (the first gets the first key).
    keyed: tuple[Meld | Layoff, ...] = ()
    #: The picks of this edit in the order made: Backspace takes back the last.
    picked: tuple[Meld | Layoff, ...] = ()

    def left(self) -> list[Card]:
        """Cards neither melded nor laid off: the deadwood as declared."""
        rest = list(self.cards)
        for c in [c for m in self.melds for c in m.cards] + [lay.card for lay in self.layoffs]:
            rest.remove(c)
        return rest

    def deadwood(self, rules: RuleSet) -> int:
        return M.deadwood(self.left(), rules)

    def problem(self, rules: RuleSet) -> str | None:
        """Why the engine would refuse this declaration, said before it is sent (None:
        it would not): a knock over the limit, a gin with a card in no meld."""
        left = sorted(self.left(), key=card_order)
        names = " ".join(c.pretty() for c in left)
        if self.kind in ("gin", "big_gin") and left:
            return f"not a gin: {names} in no meld; lay more melds"
        limit = rules.knock_limit
        dead = self.deadwood(rules)
        if self.kind in ("knock", "wall_knock") and limit is not None and dead > limit:
            return (
                f"these melds leave deadwood {dead} ({names}), over the knock limit of "
                f"{limit}; lay more melds"
            )
        return None

    def action(self) -> Action:
        melds = tuple(self.melds)
        if self.kind == "show":
            return engine.Show(melds, tuple(self.layoffs))
        if self.kind == "big_gin":
            return engine.BigGin(melds)
        if self.kind == "knock":  # no discard: rumino's knock instead of drawing
            return engine.Knock(self.discard, melds)
        assert self.discard is not None
        if self.kind == "wall_knock":
            return engine.WallKnock(self.discard, melds)
        return engine.Gin(self.discard, melds)

    def choices(self, rules: RuleSet) -> list[Meld | Layoff]:
        """What may be laid next: melds of the cards still free first, then (for a
        defender) layoffs. A meld may follow a layoff, so that no pick greys out a meld
        whose cards are free."""
        free = _without(self.cards, [lay.card for lay in self.layoffs])
        out: list[Meld | Layoff] = []
        out += engine.meld_choices(rules, free, self.melds, knocker=self.kind != "show")
        if self.targets:
            unmelded = _without(self.cards, [c for m in self.melds for c in m.cards])
            out += engine.layoff_choices(rules, unmelded, self.targets, self.layoffs)
        return out

    def edit(self, rules: RuleSet) -> Draft:
        """The declaration laid from nothing, every candidate given its key."""
        return replace(self, melds=(), layoffs=(), editing=True, keyed=(),
                       picked=())._keep_keys(rules)  # fmt: skip

    def _keep_keys(self, rules: RuleSet) -> Draft:
        """Keys for candidates new since the last pick (a card laid off onto a card just
        laid off), after every key given so far: no candidate's key ever changes. One
        key for candidates alike (the same but for which joker: jokers all read JK)."""
        seen = {_alike(ch) for ch in self.keyed}
        new: list[Meld | Layoff] = []
        for ch in self.choices(rules):
            if _alike(ch) not in seen:
                seen.add(_alike(ch))
                new.append(ch)
        return replace(self, keyed=(*self.keyed, *new)) if new else self

    def rekey(self, rules: RuleSet) -> Draft:
        """New keys, asked for (Tab) when there are more candidates than keys: those
        that can be laid now, numbered afresh; the picks stay."""
        return replace(self, keyed=())._keep_keys(rules)

    def unkeyed(self, rules: RuleSet, keys: int) -> int:
        """How many candidates that can be laid now have no key (past the ``keys``)."""
        return sum(why is None for _, why in self.listing(rules)[keys:])

    def now(self, choice: Meld | Layoff, rules: RuleSet) -> Meld | Layoff | None:
        """What lays ``choice`` now: itself, or one alike (another joker); None if
        neither may be laid."""
        alike = [ch for ch in self.choices(rules) if _alike(ch) == _alike(choice)]
        return choice if choice in alike else alike[0] if alike else None

    def laid(self, choice: Meld | Layoff) -> bool:
        """Whether ``choice`` (or one alike) is among the picks."""
        picks: list[Meld | Layoff] = [*self.melds, *self.layoffs]
        return any(_alike(x) == _alike(choice) for x in picks)

    def pick(self, choice: Meld | Layoff, rules: RuleSet) -> Draft:
        """``choice`` laid (it must be one of :meth:`choices`)."""
        if isinstance(choice, Layoff):
            d = replace(self, layoffs=(*self.layoffs, choice))
        else:
            d = replace(self, melds=(*self.melds, choice))
        return replace(d, picked=(*self.picked, choice))._keep_keys(rules)

    def undo(self) -> Draft:
        """The last pick taken back (without picks: the last layoff, else meld)."""
        last = (self.picked or self.layoffs or self.melds or (None,))[-1]
        if last is None:
            return self
        picked = self.picked[:-1]
        if isinstance(last, Layoff):
            return replace(self, layoffs=tuple(x for x in self.layoffs if x != last),
                           picked=picked)  # fmt: skip
        return replace(self, melds=tuple(m for m in self.melds if m != last), picked=picked)

    def listing(self, rules: RuleSet) -> list[tuple[Meld | Layoff, str | None]]:
        """Each keyed candidate, in key order, with why it cannot be laid now (None: it
        can)."""
        ready = {_alike(ch) for ch in self.choices(rules)}
        return [(ch, None if _alike(ch) in ready else self.why_not(ch, rules))
                for ch in self.keyed]  # fmt: skip

    def why_not(self, choice: Meld | Layoff, rules: RuleSet) -> str:
        """Why ``choice`` cannot be laid now, in words: a card of it is laid already, or
        (a knock) the rest could not get within the limit, or a layoff no longer fits."""
        if self.laid(choice):
            return f"{_words(choice, self)} is laid already (Backspace takes the last back)"
        cards = choice.cards if isinstance(choice, Meld) else (choice.card,)
        for c in cards:
            meld = next((m for m in self.melds if c in m.cards), None)
            if meld is not None:
                return f"{c.pretty()} is in {_words(meld, self)} already"
            lay = next((x for x in self.layoffs if x.card == c), None)
            if lay is not None:
                return f"{c.pretty()} is laid off already, onto {self._target(lay)}"
        if isinstance(choice, Layoff):
            return f"{choice.card.pretty()} does not go onto {self._target(choice)} now"
        if rules.knock_limit is None:
            return f"{_words(choice, self)} cannot be laid with the melds laid"
        return (
            f"after {_words(choice, self)}, no melds of the rest bring the deadwood within "
            f"the knock limit of {rules.knock_limit}"
        )

    def _target(self, lay: Layoff) -> str:
        return _words(self.targets[lay.meld], self)


def _without(cards: Sequence[Card], gone: Sequence[Card]) -> list[Card]:
    out = list(cards)
    for c in gone:
        out.remove(c)
    return out


def _alike(what: Meld | Layoff) -> tuple[object, ...]:
    """What a player tells candidates apart by: the cards' names in their order, and a
    layoff's meld (two jokers are both JK, alike in every use)."""
    if isinstance(what, Layoff):
        return (what.card.pretty(), what.meld)
    return tuple(c.pretty() for c in meld_order(what))


def _words(what: Meld | Layoff, d: Draft) -> str:
    """A meld (or a layoff's card and meld) in words: ``[7♥ 8♥ 9♥]``, ``10♥→[7♥ 8♥ 9♥]``."""
    if isinstance(what, Layoff):
        return f"{what.card.pretty()}→{d._target(what)}"
    return f"[{' '.join(c.pretty() for c in meld_order(what))}]"


def draft_from(action: Action, hand: HandState) -> Draft:
    """The proposal behind an action of :func:`engine.legal_actions`, ready to change."""
    me = hand.to_move
    cards = [c for c in hand.cards(me) if c is not None]
    if isinstance(action, engine.WallKnock) and hand.upcard is not None:
        cards.append(hand.upcard)
    discard = getattr(action, "discard", None)
    if discard is not None:
        cards.remove(discard)
    targets: tuple[Meld, ...] = ()
    layoffs: tuple[Layoff, ...] = ()
    if isinstance(action, engine.Show):
        layoffs = action.layoffs
        k = hand.knocker
        decl = hand.declarations[k] if k is not None else None
        if decl is not None and engine._may_lay_off(hand):  # the engine's own rule
            targets = decl.melds
    return Draft(action.kind, discard, tuple(cards), tuple(action.melds), layoffs, targets)  # type: ignore[union-attr]
