"""The computer player in the variants the planner does not take: two decks, jokers,
no knock limit, rumino (italian, italian-jokers, rumino).

The planner's ideas on lists of cards, since a hand may hold two copies of a card or
jokers: the exact solver of :mod:`ginp2p.game.melds` values the cards kept by what
one more draw would do for them. Two copies of one card meld alike, so hands are
memoised by faces. Knock or close as soon as the rules allow (rumino: instead of
drawing, unless a draw makes gin); discard by a one-draw lookahead; take the upcard
when it beats a stock draw.
"""

from __future__ import annotations

from collections.abc import Sequence

from ginp2p.game import melds as M
from ginp2p.game.actions import Action, Discard
from ginp2p.game.cards import Card, deck
from ginp2p.game.hand import Phase
from ginp2p.game.observation import Observation
from ginp2p.game.rules import RuleSet
from ginp2p.game.turn import Decision

__all__ = ["General"]

#: Worth of being able to knock (rumino: at the start of the next turn; with a knock
#: limit: after the next draw), in deadwood points times its chance.
GEN_KNOCK_WEIGHT = 60.0
#: Cost of discarding a card the opponent has shown interest in (times :func:`danger`).
GEN_FEED_WEIGHT = 3.0
#: In the first-upcard round the non-dealer takes the upcard even when it is up to this
#: much worse than the stock's expected card (deadwood points): a pass lets the dealer
#: take it.
GEN_FIRST_UP_MARGIN = 3.0


class General(Decision):
    """One decision in the variants the planner does not take (two decks, jokers, no
    knock limit, rumino), with its caches."""

    def __init__(self, obs: Observation, legal: list[Action]) -> None:
        super().__init__(obs, legal)
        self.rules = rules = obs.rules
        self.cards = list(obs.hand)
        seen = obs.seen()
        # One unseen card of each face stands for all its copies: they meld alike.
        self.faces: dict[int, tuple[Card, int]] = {}
        n = 0
        for c in deck(rules.deck_size):
            if c not in seen:
                n += 1
                got = self.faces.get(c.face)
                self.faces[c.face] = (c, 1) if got is None else (got[0], got[1] + 1)
        self.n_unseen = max(n, 1)
        self.limit = rules.knock_limit
        self.dw_memo: dict[tuple[int, ...], int] = {}
        self.drop_memo: dict[tuple[int, ...], int] = {}
        self.draw_memo: dict[tuple[int, ...], tuple[int, float, float]] = {}

    # -- decisions -------------------------------------------------------------------
    def best_discard(self, discards: list[Discard]) -> Discard:
        """The discard whose kept cards are worth most (:meth:`value`), less the risk of
        feeding the opponent; ties go to the higher card."""
        rules = self.rules
        cost: dict[Discard, float] = {}
        for a in discards:
            kept = list(self.cards)
            kept.remove(a.card)
            cost[a] = self.value(kept) + GEN_FEED_WEIGHT * danger(self.obs, a.card)

        def key(a: Discard) -> tuple[float, int, int]:
            return (round(cost[a], 9), -M.card_value(a.card, rules), -a.card.index)

        return min(discards, key=key)

    def take_upcard(self) -> bool:
        """Take the upcard when the hand after taking it (and the best discard) beats
        the expected hand after a stock draw. The first upcard is the dealer's only
        if the non-dealer passed it, and passing it gives the opponent the next draw:
        the dealer takes it unless it leaves the hand worse."""
        obs = self.obs
        up = obs.upcard
        if up is None:
            return False
        cards = self.cards
        # The card just taken may not go straight back (its twin may).
        taken = min(
            self.worth(self.deadwood([*cards[:i], *cards[i + 1 :], up])) for i in range(len(cards))
        )
        if obs.phase is Phase.FIRST_UPCARD and self.player == obs.dealer:
            return taken <= self.worth(self.deadwood(cards))
        _, mean, p = self.one_draw(cards)
        stock = mean - GEN_KNOCK_WEIGHT * p if self.limit is not None else mean
        margin = GEN_FIRST_UP_MARGIN if obs.phase is Phase.FIRST_UPCARD else 0.0
        return taken < stock + margin

    # -- evaluation --------------------------------------------------------------------
    def worth(self, dw: int) -> float:
        """Cards just after a discard, by their deadwood alone (lower is better)."""
        if self.limit is not None and dw <= self.limit:
            return dw - GEN_KNOCK_WEIGHT
        return dw

    def value(self, kept: list[Card]) -> float:
        """Lower is better: the cards kept after a discard, by what the next draw may do
        for them (expected deadwood, and the chance to be within the knock limit). In
        rumino, cards already within the limit may knock at the next turn."""
        dw0, mean, p = self.one_draw(kept)
        if self.limit is None:
            return mean
        if self.rules.knock_instead_of_draw and dw0 <= self.limit:
            return dw0 - GEN_KNOCK_WEIGHT
        return mean - GEN_KNOCK_WEIGHT * p

    def deadwood(self, cards: list[Card]) -> int:
        key = tuple(sorted(c.face for c in cards))
        got = self.dw_memo.get(key)
        if got is None:
            got = self.dw_memo[key] = M.min_deadwood(cards, self.rules)
        return got

    def after_drop(self, cards: list[Card]) -> int:
        """Least deadwood after discarding one of ``cards``."""
        key = tuple(sorted(c.face for c in cards))
        got = self.drop_memo.get(key)
        if got is None:
            got = self.drop_memo[key] = M.best_discard(cards, self.rules)[1]
        return got

    def one_draw(self, kept: list[Card]) -> tuple[int, float, float]:
        """(deadwood now, expected deadwood after a stock draw and the best discard,
        chance that this is within the knock limit), over every unseen card. A drawn
        card that can meld with none of the kept ones is either thrown back or kept
        in place of their best discard, so only the others need the solver."""
        key = tuple(sorted(c.face for c in kept))
        got = self.draw_memo.get(key)
        if got is not None:
            return got
        rules = self.rules
        limit = self.limit
        dw0 = self.deadwood(kept)
        dw_drop = self.after_drop(kept)
        near = _near_faces(kept, rules)
        total = 0.0
        knock = 0
        for face, (card, count) in self.faces.items():
            if face in near:
                dw = self.after_drop([*kept, card])
            else:
                dw = min(dw0, M.card_value(card, rules) + dw_drop)
            total += count * dw
            if limit is not None and dw <= limit:
                knock += count
        got = (dw0, total / self.n_unseen, knock / self.n_unseen)
        self.draw_memo[key] = got
        return got


def _near_faces(cards: Sequence[Card], rules: RuleSet) -> set[int]:
    """Faces of the cards that could make a meld with some of ``cards``: a joker, the
    same rank, or the same suit one rank away (two with a joker to fill the gap)."""
    jokers = sum(1 for c in cards if c.is_joker)
    reach = 1 + min(jokers, rules.jokers_per_meld)
    out = {52}
    for c in cards:
        if c.suit is None:
            continue
        out.update(s * 13 + c.rank - 1 for s in range(4))
        spots = (c.rank, 14) if c.rank == 1 and rules.ace_high else (c.rank,)
        for spot in spots:
            for r in range(spot - reach, spot + reach + 1):
                if r == 14 and rules.ace_high:
                    r = 1
                if 1 <= r <= 13:
                    out.add(int(c.suit) * 13 + r - 1)
    return out


def danger(obs: Observation, card: Card) -> float:
    """How much the opponent seems to want ``card``, from what they picked and threw."""
    if card.is_joker:
        return 1.0
    opp = 1 - obs.player
    danger = 0.0
    for c in obs.taken_by(opp):
        if c.is_joker:
            continue
        if c.rank == card.rank:
            danger += 1.0
        elif c.suit == card.suit and abs(c.rank - card.rank) <= 2:
            danger += 0.7
    for c in obs.thrown_by(opp):
        if not c.is_joker and c.rank == card.rank:
            danger -= 0.3
    return max(danger, 0.0)
