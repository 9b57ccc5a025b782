"""The table as plain data: what one player sees, ready to be drawn.

Everything here is a pure function of the engine's view of the hand (own cards and
public ones), the match's score sheet and a few facts about the connection, gathered
in a :class:`Situation`. The console draws a :class:`TableView`; tests check one
without a terminal. Rules are never decided here: melds, deadwood and knock options
come from :mod:`ginp2p.game.melds` and :func:`ginp2p.game.engine.legal_actions`. What
happened is told by :mod:`.summary`, a declaration being made is a :mod:`.draft`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ginp2p.game import engine
from ginp2p.game import melds as M
from ginp2p.game.cards import Card, card_order
from ginp2p.game.engine import Action, Declaration, HandState, Phase
from ginp2p.game.match import MatchState
from ginp2p.game.melds import Meld
from ginp2p.game.rules import RuleSet
from ginp2p.present.words import count, goal_words, preset_short

__all__ = [
    "Group",
    "KnockOption",
    "Shown",
    "Situation",
    "TableView",
    "build_view",
    "deadwood_after",
    "declared",
    "knock_options",
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
    #: The chosen card is used now (a discard, or a knock at the wall): the table marks
    #: it only then, not while the move is a take, a pass or a draw.
    chooses: bool = False


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
        chooses=_chooses(s, hand, knocks),
    )


def _chooses(s: Situation, hand: HandState | None, knocks: Sequence[KnockOption]) -> bool:
    if hand is None or not s.my_turn or hand.over or hand.to_move != s.me:
        return False
    return hand.phase is Phase.DISCARD or (hand.phase is Phase.WALL and bool(knocks))


def _knock_before_draw(rules: RuleSet | None) -> int | None:
    return rules.knock_limit if rules is not None and rules.knock_instead_of_draw else None


def deadwood_after(cards: Sequence[Card], discard: Card, rules: RuleSet) -> int:
    """The least deadwood left if ``discard`` goes (the live total while choosing)."""
    rest = list(cards)
    rest.remove(discard)
    return M.min_deadwood(rest, rules)
