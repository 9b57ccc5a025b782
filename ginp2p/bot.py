"""The computer player: a pure function from one player's view to an action.

It plays from :meth:`HandState.view`, so it cannot use a card it could not see.
The strategy, in order of what matters most:

* Keep the least deadwood, exactly (the meld solver is exact), and among equal
  discards keep the cards that can still become melds ("outs": unseen cards
  that would complete a set or a run with what is kept).
* Do not feed the opponent: a card of a rank or a suit neighbourhood the
  opponent has picked from the discard pile costs extra; a rank the opponent
  threw away is safer.
* Take the upcard only when it lowers the deadwood by a clear margin or
  completes a meld.
* Knock as soon as the rules allow while the stock is fresh; later, only with
  little deadwood, since the defender has had time to build and undercut.
* Declare the best arrangement (least layoff exposure) and, as defender, the
  best melds and layoffs together.

Deterministic: the same view gives the same action.
"""

from __future__ import annotations

from collections.abc import Sequence

from . import engine
from . import melds as M
from .cards import Card, deck
from .engine import (
    Action,
    BigGin,
    DeclareRumino,
    Discard,
    DrawDiscard,
    DrawStock,
    Gin,
    HandState,
    Knock,
    PassUpcard,
    Phase,
    TakeUpcard,
    WallKnock,
    WallPass,
)
from .rules import RuleSet

__all__ = ["choose", "greedy", "random_legal"]

#: How much an "out" (an unseen card that would complete a meld) is worth, in deadwood points.
OUT_WEIGHT = 0.6
#: Extra cost of discarding a card the opponent has shown interest in.
DANGER_WEIGHT = 3.0
#: The upcard must lower deadwood by at least this much to be worth showing we want it.
TAKE_MARGIN = 3


def choose(state: HandState, player: int) -> Action:
    """The bot's move for ``player`` (who must be the player to move)."""
    view = state.view(player)
    if view.phase is Phase.SHOW:
        return engine.propose_show(view)
    legal = engine.legal_actions(view)
    if view.phase is Phase.FIRST_UPCARD:
        if DrawStock() in legal:
            return DrawStock()
        return TakeUpcard() if _upcard_helps(view, player) else PassUpcard()
    if view.phase is Phase.DRAW:
        knocks = [a for a in legal if isinstance(a, Knock)]
        if knocks and _should_knock(view, knocks[0], player):
            return knocks[0]
        if DrawDiscard() in legal and _upcard_helps(view, player):
            return DrawDiscard()
        return DrawStock()
    if view.phase is Phase.WALL:
        closes = [a for a in legal if isinstance(a, WallKnock)]
        return _best_close(view, closes, player) if closes else WallPass()
    return _discard_phase(view, legal, player)


def _discard_phase(view: HandState, legal: list[Action], player: int) -> Action:
    for a in legal:
        if isinstance(a, DeclareRumino):
            return a
    for a in legal:
        if isinstance(a, BigGin):
            return a
    gins = [a for a in legal if isinstance(a, Gin)]
    if gins:
        return gins[0]
    knocks = [a for a in legal if isinstance(a, Knock)]
    if knocks:
        best = _best_close(view, knocks, player)
        if _should_knock(view, best, player):
            return best
    discards = [a for a in legal if isinstance(a, Discard)]
    return min(discards, key=lambda a: _discard_cost(view, player, a.card))


def _best_close(view: HandState, closes: Sequence[Action], player: int) -> Action:
    """The close with the least declared deadwood (ties: the first listed)."""
    return min(closes, key=lambda a: _declared_deadwood(view, player, a))


def _declared_deadwood(view: HandState, player: int, action: Action) -> int:
    cards = view.known_cards(player)
    if isinstance(action, WallKnock) and view.upcard is not None:
        cards.append(view.upcard)
    discard = getattr(action, "discard", None)
    if discard is not None:
        cards.remove(discard)
    melded = {c for m in getattr(action, "melds", ()) for c in m.cards}
    return M.deadwood([c for c in cards if c not in melded], view.rules)


def _should_knock(view: HandState, action: Action, player: int) -> bool:
    rules = view.rules
    dw = _declared_deadwood(view, player, action)
    limit = rules.knock_limit if rules.knock_limit is not None else 10
    if rules.knock_instead_of_draw:
        return dw <= min(limit, 3) or view.stock_left < 20
    drawn = view.stock_next - (2 * rules.hand_size + 1)
    # Early knocks rarely get undercut; later, the defender has built melds.
    if drawn <= 8:
        return dw <= limit
    if drawn <= 16:
        return dw <= min(limit, 6)
    return dw <= min(limit, 3)


def _upcard_helps(view: HandState, player: int) -> bool:
    up = view.upcard
    if up is None:
        return False
    rules = view.rules
    cards = view.known_cards(player)
    now = M.min_deadwood(cards, rules)
    # Taking it only pays if we then keep it: discard one of our own cards.
    best = min(M.min_deadwood([*cards[:i], *cards[i + 1 :], up], rules) for i in range(len(cards)))
    if best <= now - TAKE_MARGIN:
        return True
    # Completing a meld is worth showing interest in even for a small gain.
    melds, _ = M.best_arrangement([*cards, up], rules)
    return best < now and any(up in m.cards for m in melds)


def _discard_cost(view: HandState, player: int, card: Card) -> float:
    rules = view.rules
    cards = view.known_cards(player)
    rest = list(cards)
    rest.remove(card)
    dw = M.min_deadwood(rest, rules)
    unseen = _unseen(view, cards)
    return dw - OUT_WEIGHT * _outs(rest, unseen, rules) + DANGER_WEIGHT * _danger(
        view, player, card
    ) - 0.01 * M.card_value(card, rules)


def _unseen(view: HandState, own: Sequence[Card]) -> list[Card]:
    seen = set(own)
    seen.update(c for p in view.shown if (c := view.knowledge.card_at(p)) is not None)
    return [c for c in deck(view.rules.deck_size) if c not in seen]


def _outs(kept: Sequence[Card], unseen: Sequence[Card], rules: RuleSet) -> int:
    """Unseen cards that would complete a new meld with two of the kept cards."""
    _, dead = M.best_arrangement(kept, rules)
    faces = {(c.rank, c.suit) for c in kept}
    count = 0
    for u in unseen:
        if u.is_joker:
            count += 1
            continue
        for d in dead:
            if d.is_joker:
                continue
            if d.rank == u.rank and sum(1 for c in kept if c.rank == u.rank) >= 2:
                count += 1
                break
            if d.suit == u.suit and abs(d.rank - u.rank) <= 2 and d.rank != u.rank:
                lo, hi = min(d.rank, u.rank), max(d.rank, u.rank)
                mid = [(r, u.suit) for r in range(lo - 1, hi + 2) if r not in (d.rank, u.rank)]
                if hi - lo == 2 and (lo + 1, u.suit) in faces:
                    count += 1
                    break
                if hi - lo == 1 and any(f in faces for f in mid):
                    count += 1
                    break
    return count


def _danger(view: HandState, player: int, card: Card) -> float:
    """How much the opponent seems to want ``card``, from what they picked and threw."""
    if card.is_joker:
        return 1.0
    opp = 1 - player
    picked = [c for p in view.picked[opp] if (c := view.knowledge.card_at(p)) is not None]
    thrown = [a.card for who, a in view.moves if who == opp and isinstance(a, Discard)]
    danger = 0.0
    for c in picked:
        if c.is_joker:
            continue
        if c.rank == card.rank:
            danger += 1.0
        elif c.suit == card.suit and abs(c.rank - card.rank) <= 2:
            danger += 0.7
    for c in thrown:
        if not c.is_joker and c.rank == card.rank:
            danger -= 0.3
    return max(danger, 0.0)


# --------------------------------------------------------------- reference players


def random_legal(state: HandState, player: int, rng) -> Action:
    """A uniformly random legal action (``rng``: a ``random.Random``)."""
    view = state.view(player)
    legal = engine.legal_actions(view)
    return legal[rng.randrange(len(legal))]


def greedy(state: HandState, player: int) -> Action:
    """The documented baseline: take the upcard only if it makes a meld, discard
    the highest deadwood card, knock as soon as allowed."""
    view = state.view(player)
    rules = view.rules
    if view.phase is Phase.SHOW:
        return engine.propose_show(view)
    legal = engine.legal_actions(view)
    cards = view.known_cards(player)
    if view.phase in (Phase.FIRST_UPCARD, Phase.DRAW):
        knocks = [a for a in legal if isinstance(a, Knock)]
        if knocks:
            return knocks[0]
        up = view.upcard
        takes = [a for a in legal if isinstance(a, TakeUpcard | DrawDiscard)]
        if up is not None and takes:
            melds, _ = M.best_arrangement([*cards, up], rules)
            if any(up in m.cards for m in melds):
                return takes[0]
        if DrawStock() in legal:
            return DrawStock()
        return PassUpcard()
    if view.phase is Phase.WALL:
        closes = [a for a in legal if isinstance(a, WallKnock)]
        return closes[0] if closes else WallPass()
    for a in legal:
        if isinstance(a, DeclareRumino | BigGin | Gin):
            return a
    knocks = [a for a in legal if isinstance(a, Knock)]
    if knocks:
        return min(knocks, key=lambda a: _declared_deadwood(view, player, a))
    _, dead = M.best_arrangement(cards, rules)
    discards = [a for a in legal if isinstance(a, Discard)]
    pool = [a for a in discards if a.card in dead] or discards
    return max(pool, key=lambda a: (M.card_value(a.card, rules), a.card.index))
