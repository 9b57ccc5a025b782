"""The computer player for one deck without jokers, with a knock limit and
``difference`` scoring (classic, hoyle, french, openspiel): the planner.

A hand is a 52-bit mask (bit ``suit * 13 + rank - 1``, see
:func:`ginp2p.game.masks.hand_mask`). The planner values a ten-card hand by what one
more draw from the stock would do for it: for every card we have not seen, the least
deadwood after drawing it and making the best discard. Only unseen cards that touch
the hand (same rank, or the same suit one rank away) can meld; for every other card
the answer is one of two numbers, so a hand costs about fifteen calls to the exact
solver. The best few discards are then raced a few draws ahead and dueled against
hands drawn from the opponent model (:mod:`ginp2p.game.opponent`).
"""

from __future__ import annotations

import random

from ginp2p.game import masks
from ginp2p.game.actions import Action, Discard
from ginp2p.game.masks import ACES, ALL_BITS, BIT_VALUE, KINGS, RANK_ROW, SUIT_BITS, VALUE_BITS
from ginp2p.game.observation import Observation
from ginp2p.game.opponent import OpponentModel, meld_pairs, melds_with, single_bits
from ginp2p.game.rules import RuleSet
from ginp2p.game.turn import Decision

__all__ = ["Planner", "fast_rules"]

#: Weight of the deadwood held now, next to the expected deadwood after the next draw.
NOW_WEIGHT = 0.0
#: Worth of being able to knock after the next draw, in deadwood points (times its chance).
KNOCK_WEIGHT = 60.0
#: Worth of the race value (below) of a discard, in deadwood points.
RACE_WEIGHT = 40.0
#: The race: the best few discards by the one-draw value are played forward this many
#: draws, with this many sampled continuations after each possible next card...
RACE_CANDIDATES = 4
RACE_DRAWS = 4
RACE_SAMPLES = 4
#: ... and a knock one draw later is worth this much less (the opponent may knock first).
RACE_DISCOUNT = 0.95
#: Cost of handing the opponent a card that melds with what they may hold (times its chance)...
FEED_WEIGHT = 4.0
#: ... which grows with the hand: times FEED_START at the deal, one more every
#: FEED_STEP moves, at most FEED_MAX (a late feed may let the opponent knock at once).
FEED_START = 0.25
FEED_STEP = 8
FEED_MAX = 4.0
#: In the one-draw value an unseen card counts 1 + REACH_SLOPE * (value - 5.5) / 4.5
#: times: opponents shed their high loose cards first, so a high card may come to us
#: through the pile as well as the stock, while a low one tends to stay in their hand.
REACH_SLOPE = 0.6
_REACH = {v: 1 + REACH_SLOPE * (v - 5.5) / 4.5 for v in range(1, 11)}
#: The duel: the race with the opponent in it (the best few discards again, in sampled
#: worlds where the opponent may take what we throw, draws, throws and knocks too).
DUEL_WEIGHT = 20.0
DUEL_WORLDS = 128
DUEL_TURNS = 4
#: The upcard is taken when its value beats the stock's expected value by this much.
UP_MARGIN = 0.0


def fast_rules(rules: RuleSet) -> bool:
    """Variants the planner handles: one deck, no jokers, knock-limit difference scoring."""
    return (
        not rules.multi_deck
        and rules.knock_limit is not None
        and not rules.knock_instead_of_draw
        and rules.scoring == "difference"
    )


def _touching(mask: int, ace_high: bool) -> int:
    """Cards that could meld with some card of ``mask``: same rank, or suit neighbours."""
    rows = (mask | mask >> 13 | mask >> 26 | mask >> 39) & SUIT_BITS
    near = rows * RANK_ROW | (mask << 1 & ~ACES) | (mask >> 1 & ~KINGS)
    if ace_high:
        near |= (mask & KINGS) >> 12 | (mask & ACES) << 12
    return near & ALL_BITS


class Planner(Decision):
    """One decision of the single-deck bot, with its caches."""

    def __init__(self, obs: Observation, legal: list[Action]) -> None:
        super().__init__(obs, legal)
        self.rules = rules = obs.rules
        self.cards = list(obs.hand)
        self.hand = masks.hand_mask(self.cards)
        seen = self.hand
        for c in obs.seen():
            seen |= 1 << c.face
        self.unseen = ALL_BITS & ~seen
        self.n_unseen = max(self.unseen.bit_count(), 1)
        self.limit = rules.knock_limit if rules.knock_limit is not None else 10
        self.pairs = meld_pairs(rules.ace_high)
        self.memo: dict[int, float] = {}
        self.memo1: dict[int, tuple[int, float, float]] = {}
        self.drops: dict[int, tuple[int, int]] = {}
        self.futures: list[tuple[int, list[list[int]]]] | None = None
        self.worlds: list[tuple[int, list[int]]] | None = None
        self.opponent: OpponentModel | None = None

    # -- decisions -------------------------------------------------------------------
    def best_discard(self, discards: list[Discard]) -> Discard:
        """The discard whose kept ten cards are worth most (:meth:`potential`, less the
        chance of feeding the opponent); the best few are then ranked again with
        :meth:`race` and :meth:`duel` added, since a deeper look is too dear for every
        candidate."""
        feed = FEED_WEIGHT * min(FEED_START + len(self.obs.moves) / FEED_STEP, FEED_MAX)
        score: dict[Discard, float] = {}
        for a in discards:
            bit = a.card.face
            score[a] = self.potential(self.hand & ~(1 << bit)) + feed * self.feeds(bit)

        def key(a: Discard) -> tuple[float, int, int]:
            return (round(score[a], 9), -BIT_VALUE[a.card.face], -a.card.face)

        best = sorted(discards, key=key)[:RACE_CANDIDATES]
        if len(best) > 1:
            for a in best:
                kept = self.hand & ~(1 << a.card.face)
                score[a] -= RACE_WEIGHT * self.race(kept)
                duel = self.duel(kept, a.card.face)
                if duel is not None:
                    score[a] -= DUEL_WEIGHT * duel
        return min(best, key=key)

    def take_upcard(self) -> bool:
        """Take the upcard when it makes a meld with the hand and the hand after taking
        it is worth at least what a stock draw is expected to give."""
        up = self.obs.upcard
        if up is None:
            return False
        ub = 1 << up.face
        with_up = self.hand | ub
        if not melds_with(up.face, self.hand, self.pairs):
            return False
        up_value = min(self.potential(with_up & ~(1 << c.face)) for c in self.cards)
        return up_value < self.stock_value() - UP_MARGIN

    def stock_value(self) -> float:
        """Expected value of the hand after drawing from the stock and the best discard."""
        rules = self.rules
        hand = self.hand
        dw0 = masks.min_deadwood_mask(hand, rules)
        drop_bit, dw_drop = self.drop(hand)
        here = self.potential(hand)
        total = 0.0
        touch = _touching(hand, rules.ace_high) & self.unseen
        b = touch
        while b:
            low = b & -b
            b ^= low
            bit, _ = self.drop(hand | low)
            total += self.potential((hand | low) & ~(1 << bit))
        b = self.unseen & ~touch
        while b:
            low = b & -b
            b ^= low
            v = BIT_VALUE[low.bit_length() - 1]
            if v + dw_drop < dw0:
                total += min(here, self.potential((hand | low) & ~(1 << drop_bit)))
            else:
                total += here
        return total / self.n_unseen

    # -- evaluation --------------------------------------------------------------------
    def potential(self, kept: int) -> float:
        """Lower is better: deadwood now, expected deadwood after the next draw, and the
        chance of being able to knock after the next draw."""
        got = self.memo.get(kept)
        if got is not None:
            return got
        dw0, mean, p1 = self.one_draw(kept)
        value = NOW_WEIGHT * dw0 + mean - KNOCK_WEIGHT * p1
        self.memo[kept] = value
        return value

    def one_draw(self, kept: int) -> tuple[int, float, float]:
        """(deadwood now, expected deadwood after one draw and the best discard, chance
        that deadwood is then within the knock limit); unseen cards weighed by how
        likely they are to reach us (``REACH_SLOPE``)."""
        got = self.memo1.get(kept)
        if got is not None:
            return got
        rules = self.rules
        limit = self.limit
        dw0 = masks.min_deadwood_mask(kept, rules)
        _, dw_drop = self.drop(kept)
        touch = _touching(kept, rules.ace_high) & self.unseen
        total = knock = n = 0.0
        b = touch
        while b:
            low = b & -b
            b ^= low
            w = _REACH[BIT_VALUE[low.bit_length() - 1]]
            _, dw = self.drop(kept | low)
            total += w * dw
            n += w
            if dw <= limit:
                knock += w
        rest = self.unseen & ~touch
        for v, bits in VALUE_BITS.items():
            count = (rest & bits).bit_count()
            if count:
                w = _REACH[v] * count
                dw = min(dw0, v + dw_drop)
                total += w * dw
                n += w
                if dw <= limit:
                    knock += w
        n = max(n, 1e-9)
        got = (dw0, total / n, knock / n)
        self.memo1[kept] = got
        return got

    def race(self, kept: int) -> float:
        """How soon these ten cards can knock: each knock counts ``RACE_DISCOUNT`` to
        the power of the draws it took, within ``RACE_DRAWS`` draws.

        Every unseen card is tried as the next draw; each is followed by
        ``RACE_SAMPLES`` sampled continuations, in which the bot keeps the least
        deadwood. Every candidate discard meets the same draws, so the comparison
        between candidates is not blurred by luck of the sample.
        """
        limit, discount = self.limit, RACE_DISCOUNT
        if self.futures is None:
            pool = single_bits(self.unseen)
            # Seeded by what the player sees, like the opponent model: the same sight, the
            # same draws.
            rng = random.Random(self.unseen << 64 | self.hand)
            length = min(RACE_DRAWS - 1, len(pool) - 1)
            self.futures = []
            for card in pool:
                rest = [c for c in pool if c != card]
                self.futures.append((card, [rng.sample(rest, length) for _ in range(RACE_SAMPLES)]))
        total = 0.0
        for card, continuations in self.futures:
            bit, dw = self.drop(kept | card)
            if dw <= limit:
                total += discount * len(continuations)
                continue
            start = (kept | card) & ~(1 << bit)
            for draws in continuations:
                hand, worth = start, discount
                for nxt in draws:
                    worth *= discount
                    bit, dw = self.drop(hand | nxt)
                    if dw <= limit:
                        total += worth
                        break
                    hand = (hand | nxt) & ~(1 << bit)
        return total / max(len(self.futures) * RACE_SAMPLES, 1)

    def duel(self, kept: int, thrown: int) -> float | None:
        """How soon we knock before the opponent does, having kept ``kept`` and thrown
        the card at bit ``thrown`` (None when the opponent model has no hands).

        In each of ``DUEL_WORLDS`` sampled worlds the opponent holds a hand drawn from
        the model and the stock is shuffled; then, for ``DUEL_TURNS`` turns each, the
        opponent takes our discard if it makes a meld (else draws), throws its least
        useful card and knocks when it can, and we do the same. A knock of ours after
        k turns counts ``RACE_DISCOUNT`` ** k; the opponent's knock counts nothing.
        Unlike :meth:`race` this sees the feeding of every discard to come, and what
        the opponent throws us. All candidates meet the same worlds.
        """
        worlds = self.sampled_worlds()
        if not worlds:
            return None
        limit, discount = self.limit, RACE_DISCOUNT
        total = 0.0
        for opp, draws in worlds:
            hand, up, i, worth = kept, thrown, 0, 1.0
            for _ in range(DUEL_TURNS):
                turn = self.duel_turn(opp, up, draws, i)
                if turn is None:
                    break
                opp, up, dw, i = turn
                if dw <= limit:  # they knock first
                    break
                worth *= discount
                turn = self.duel_turn(hand, up, draws, i)
                if turn is None:
                    break
                hand, up, dw, i = turn
                if dw <= limit:
                    total += worth
                    break
        return total / len(worlds)

    def duel_turn(
        self, hand: int, up: int, draws: list[int], i: int
    ) -> tuple[int, int, int, int] | None:
        """One turn in a duel's world for the side holding ``hand``: take the discard at
        bit ``up`` if it makes a meld, else draw ``draws[i]``; then throw the card that
        leaves the least deadwood. (Hand kept, bit thrown, its deadwood, next draw
        index), or None when the world's stock has run out."""
        if melds_with(up, hand, self.pairs):
            full = hand | 1 << up
        elif i < len(draws):
            full = hand | draws[i]
            i += 1
        else:
            return None
        bit, dw = self.drop(full)
        return full & ~(1 << bit), bit, dw, i

    def drop(self, mask: int) -> tuple[int, int]:
        """:func:`ginp2p.game.masks.best_discard_mask`, remembered: the race and the duel meet the
        same hands again and again (every candidate discard meets the same worlds)."""
        got = self.drops.get(mask)
        if got is None:
            got = self.drops[mask] = masks.best_discard_mask(mask, self.rules)
        return got

    def sampled_worlds(self) -> list[tuple[int, list[int]]]:
        """The duel's worlds: (the opponent's hand, the stock's next cards as one-bit
        masks). Hands are drawn from the opponent model by weight, the stock from the
        rest of the unseen cards, by a generator seeded by what the player sees."""
        if self.worlds is None:
            model = self.opponent_model()
            self.worlds = []
            if model.samples and model.total > 0:
                rng = random.Random(self.unseen << 64 | self.hand | 1)
                hands = [h for h, _ in model.samples]
                weights = [w for _, w in model.samples]
                for hidden in rng.choices(hands, weights=weights, k=DUEL_WORLDS):
                    pool = single_bits(self.unseen & ~hidden)
                    draws = rng.sample(pool, min(2 * DUEL_TURNS + 2, len(pool)))
                    self.worlds.append((model.known_now | hidden, draws))
        return self.worlds

    # -- the opponent's hand -----------------------------------------------------------
    def opponent_model(self) -> OpponentModel:
        if self.opponent is None:
            self.opponent = OpponentModel(self.obs, self.unseen)
        return self.opponent

    def feeds(self, bit: int) -> float:
        """Chance that the opponent can meld this card if we throw it."""
        return self.opponent_model().feeds(bit)
