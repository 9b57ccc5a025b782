"""The computer player: a pure function from one player's view to an action.

It plays from :meth:`HandState.view`, so it cannot use a card it could not see,
and it draws no randomness from outside: the same view gives the same action.
docs/bot.md explains the strategy and lists measured results.

One deck without jokers, knock limit, ``difference`` scoring (classic, hoyle,
french, openspiel): the planner (:class:`_Planner`).

* Knock (or go gin) as soon as the rules allow: most hands go to whoever knocks
  first, and a knock within the limit is rarely undercut.
* Discard to keep the best ten cards, valued by a one-draw lookahead over every
  card not yet seen (high cards count more: opponents throw them, so they may come
  through the pile): the chance of being able to knock after the next draw
  (weighted heavily) plus the expected deadwood then. The best few are raced
  four draws ahead: how soon, over sampled draws, each could knock; and dueled:
  how soon each knocks before the opponent does, in sampled worlds where the
  opponent takes what melds, throws and knocks too.
* Do not feed the opponent: likely opponent hands are sampled from the unseen
  cards and weighed by what the opponent did (cards it passed over or threw did
  not meld with its hand; cards it took did; it throws its highest loose card;
  it did not knock when it could not). A discard costs extra by the chance that
  it melds with such a hand, more so as the hand goes on.
* Take the upcard only when it makes a meld and the hand after taking it is
  worth at least the expected hand after a stock draw.

Other variants (two decks, jokers, rumino, italian): :class:`_General`, the same
ideas on lists of cards. Knock or close as soon as the rules allow (rumino: instead
of drawing, unless a draw makes gin); discard by a one-draw lookahead with the exact
solver; take the upcard when it beats a stock draw. ``greedy`` and ``random_legal``
are the reference opponents.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import cache

from ginp2p.game import engine
from ginp2p.game import melds as M
from ginp2p.game.cards import Card, deck
from ginp2p.game.engine import (
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
from ginp2p.game.rules import RuleSet

__all__ = ["choose", "greedy", "random_legal"]


def choose(state: HandState, player: int) -> Action:
    """The bot's move for ``player`` (who must be the player to move)."""
    view = state.view(player)
    if view.phase is Phase.SHOW:
        return engine.propose_show(view)
    legal = engine.legal_actions(view)
    if _fast_rules(view.rules):
        return _Planner(view, player, legal).choose()
    return _General(view, player, legal).choose()


class _Decision:
    """The order of a turn, the same for both players below: they differ in when to
    take the upcard and what to throw."""

    view: HandState
    player: int
    legal: list[Action]

    def take_upcard(self) -> bool:
        raise NotImplementedError

    def best_discard(self, discards: list[Discard]) -> Discard:
        raise NotImplementedError

    def choose(self) -> Action:
        view, legal = self.view, self.legal
        if view.phase is Phase.FIRST_UPCARD:
            if DrawStock() in legal:
                return DrawStock()
            return TakeUpcard() if self.take_upcard() else PassUpcard()
        if view.phase is Phase.DRAW:
            knocks = [a for a in legal if isinstance(a, Knock)]
            # Rumino: knock instead of drawing whenever allowed, except with every card
            # melded (4 + 3): then drawing and throwing the drawn card is gin, worth 10.
            if knocks and _declared_deadwood(view, self.player, knocks[0]) > 0:
                return knocks[0]
            if DrawDiscard() in legal and self.take_upcard():
                return DrawDiscard()
            return DrawStock()
        if view.phase is Phase.WALL:
            closes = [a for a in legal if isinstance(a, WallKnock)]
            return _best_close(view, closes, self.player) if closes else WallPass()
        # After the draw: a rumino, big gin or gin whenever offered (each beats any
        # knock), else the least-deadwood knock as soon as the rules allow one. Against
        # an opponent who may knock any turn the hand goes to the first to knock, and a
        # knock within the limit is rarely undercut (measured); without a knock limit
        # (italian) waiting only gives the opponent draws.
        for wins in (DeclareRumino, BigGin, Gin):
            for a in legal:
                if isinstance(a, wins):
                    return a
        knocks = [a for a in legal if isinstance(a, Knock)]
        if knocks:
            return _best_close(view, knocks, self.player)
        return self.best_discard([a for a in legal if isinstance(a, Discard)])


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


# ------------------------------------------------ other variants (two decks, jokers, rumino)
#
# The planner's ideas on lists of cards, since a hand may hold two copies of a card or
# jokers: the exact solver of melds.py values the cards kept by what one more draw
# would do for them. Two copies of one card meld alike, so hands are memoised by faces.

#: Worth of being able to knock (rumino: at the start of the next turn; with a knock
#: limit: after the next draw), in deadwood points times its chance.
GEN_KNOCK_WEIGHT = 60.0
#: Cost of discarding a card the opponent has shown interest in (times :func:`_danger`).
GEN_FEED_WEIGHT = 3.0
#: In the first-upcard round the non-dealer takes the upcard even when it is up to this
#: much worse than the stock's expected card (deadwood points): a pass lets the dealer
#: take it.
GEN_FIRST_UP_MARGIN = 3.0


class _General(_Decision):
    """One decision in the variants the planner does not take (two decks, jokers, no
    knock limit, rumino), with its caches."""

    def __init__(self, view: HandState, player: int, legal: list[Action]) -> None:
        self.view = view
        self.player = player
        self.legal = legal
        self.rules = rules = view.rules
        self.cards = view.known_cards(player)
        seen = set(self.cards)
        seen.update(c for p in view.shown if (c := view.knowledge.card_at(p)) is not None)
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
            cost[a] = self.value(kept) + GEN_FEED_WEIGHT * _danger(self.view, self.player, a.card)

        def key(a: Discard) -> tuple[float, int, int]:
            return (round(cost[a], 9), -M.card_value(a.card, rules), -a.card.index)

        return min(discards, key=key)

    def take_upcard(self) -> bool:
        """Take the upcard when the hand after taking it (and the best discard) beats
        the expected hand after a stock draw. The first upcard is the dealer's only
        if the non-dealer passed it, and passing it gives the opponent the next draw:
        the dealer takes it unless it leaves the hand worse."""
        view = self.view
        up = view.upcard
        if up is None:
            return False
        cards = self.cards
        # The card just taken may not go straight back (its twin may).
        taken = min(
            self.worth(self.deadwood([*cards[:i], *cards[i + 1 :], up])) for i in range(len(cards))
        )
        if view.phase is Phase.FIRST_UPCARD and self.player == view.dealer:
            return taken <= self.worth(self.deadwood(cards))
        _, mean, p = self.one_draw(cards)
        stock = mean - GEN_KNOCK_WEIGHT * p if self.limit is not None else mean
        margin = GEN_FIRST_UP_MARGIN if view.phase is Phase.FIRST_UPCARD else 0.0
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


# ------------------------------------------------------ single-deck planner (classic)
#
# A hand is a 52-bit mask (bit ``suit * 13 + rank - 1``, see melds.hand_mask). The
# planner values a ten-card hand by what one more draw from the stock would do for
# it: for every card we have not seen, the least deadwood after drawing it and
# making the best discard. Only unseen cards that touch the hand (same rank, or the
# same suit one rank away) can meld; for every other card the answer is one of two
# numbers, so a hand costs about fifteen calls to the exact solver.

_SUIT_BITS = 0x1FFF
_ALL_BITS = (1 << 52) - 1
_RANK_ROW = 1 | 1 << 13 | 1 << 26 | 1 << 39
_ACES = _RANK_ROW
_KINGS = _RANK_ROW << 12
_RUN_STARTS = 0x7FF * _RANK_ROW
_VALUE_BITS = {
    v: sum(1 << (s * 13 + r - 1) for s in range(4) for r in range(1, 14) if min(r, 10) == v)
    for v in range(1, 11)
}
_BIT_VALUE = [min(b % 13 + 1, 10) for b in range(52)]

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
#: Opponent hands sampled to judge which discards feed the opponent.
SAMPLES = 200
#: Likelihood factors of a sampled opponent hand: it passed over a card that melded,
#: threw a card that melded, took a card that made no meld, could knock and did not.
PASS_MELD = 0.1
THROW_MELD = 0.2
TAKE_MISS = 0.3
NO_KNOCK = 0.3
#: ... threw a card while keeping an unmelded card worth more.
KEPT_HIGHER = 0.2


def _fast_rules(rules: RuleSet) -> bool:
    """Variants the planner handles: one deck, no jokers, knock-limit difference scoring."""
    return (
        not rules.multi_deck
        and rules.knock_limit is not None
        and not rules.knock_instead_of_draw
        and rules.scoring == "difference"
    )


def _touching(mask: int, ace_high: bool) -> int:
    """Cards that could meld with some card of ``mask``: same rank, or suit neighbours."""
    rows = (mask | mask >> 13 | mask >> 26 | mask >> 39) & _SUIT_BITS
    near = rows * _RANK_ROW | (mask << 1 & ~_ACES) | (mask >> 1 & ~_KINGS)
    if ace_high:
        near |= (mask & _KINGS) >> 12 | (mask & _ACES) << 12
    return near & _ALL_BITS


class _Planner(_Decision):
    """One decision of the single-deck bot, with its caches."""

    def __init__(self, view: HandState, player: int, legal: list[Action]) -> None:
        self.view = view
        self.player = player
        self.legal = legal
        self.rules = rules = view.rules
        self.cards = view.known_cards(player)
        self.hand = M.hand_mask(self.cards)
        seen = self.hand
        for pos in view.shown:
            c = view.knowledge.card_at(pos)
            if c is not None:
                seen |= 1 << c.face
        self.unseen = _ALL_BITS & ~seen
        self.n_unseen = max(self.unseen.bit_count(), 1)
        self.limit = rules.knock_limit if rules.knock_limit is not None else 10
        self.pairs = _meld_pairs(rules.ace_high)
        self.memo: dict[int, float] = {}
        self.memo1: dict[int, tuple[int, float, float]] = {}
        self.drops: dict[int, tuple[int, int]] = {}
        self.futures: list[tuple[int, list[list[int]]]] | None = None
        self.worlds: list[tuple[int, list[int]]] | None = None
        self.opponent: _OpponentModel | None = None

    # -- decisions -------------------------------------------------------------------
    def best_discard(self, discards: list[Discard]) -> Discard:
        """The discard whose kept ten cards are worth most (:meth:`potential`, less the
        chance of feeding the opponent); the best few are then ranked again with
        :meth:`race` and :meth:`duel` added, since a deeper look is too dear for every
        candidate."""
        feed = FEED_WEIGHT * min(FEED_START + len(self.view.moves) / FEED_STEP, FEED_MAX)
        score: dict[Discard, float] = {}
        for a in discards:
            bit = a.card.face
            score[a] = self.potential(self.hand & ~(1 << bit)) + feed * self.feeds(bit)

        def key(a: Discard) -> tuple[float, int, int]:
            return (round(score[a], 9), -_BIT_VALUE[a.card.face], -a.card.face)

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
        up = self.view.upcard
        if up is None:
            return False
        ub = 1 << up.face
        with_up = self.hand | ub
        if not _melds_with(up.face, self.hand, self.pairs):
            return False
        up_value = min(self.potential(with_up & ~(1 << c.face)) for c in self.cards)
        return up_value < self.stock_value() - UP_MARGIN

    def stock_value(self) -> float:
        """Expected value of the hand after drawing from the stock and the best discard."""
        rules = self.rules
        hand = self.hand
        dw0 = M.min_deadwood_mask(hand, rules)
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
            v = _BIT_VALUE[low.bit_length() - 1]
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
        dw0 = M.min_deadwood_mask(kept, rules)
        _, dw_drop = self.drop(kept)
        touch = _touching(kept, rules.ace_high) & self.unseen
        total = knock = n = 0.0
        b = touch
        while b:
            low = b & -b
            b ^= low
            w = _REACH[_BIT_VALUE[low.bit_length() - 1]]
            _, dw = self.drop(kept | low)
            total += w * dw
            n += w
            if dw <= limit:
                knock += w
        rest = self.unseen & ~touch
        for v, bits in _VALUE_BITS.items():
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
            pool = _single_bits(self.unseen)
            # Seeded by the view, like the opponent model: the same view, the same draws.
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
        if _melds_with(up, hand, self.pairs):
            full = hand | 1 << up
        elif i < len(draws):
            full = hand | draws[i]
            i += 1
        else:
            return None
        bit, dw = self.drop(full)
        return full & ~(1 << bit), bit, dw, i

    def drop(self, mask: int) -> tuple[int, int]:
        """:func:`melds.best_discard_mask`, remembered: the race and the duel meet the
        same hands again and again (every candidate discard meets the same worlds)."""
        got = self.drops.get(mask)
        if got is None:
            got = self.drops[mask] = M.best_discard_mask(mask, self.rules)
        return got

    def sampled_worlds(self) -> list[tuple[int, list[int]]]:
        """The duel's worlds: (the opponent's hand, the stock's next cards as one-bit
        masks). Hands are drawn from the opponent model by weight, the stock from the
        rest of the unseen cards, by a generator seeded by the view."""
        if self.worlds is None:
            model = self.opponent_model()
            self.worlds = []
            if model.samples and model.total > 0:
                rng = random.Random(self.unseen << 64 | self.hand | 1)
                hands = [h for h, _ in model.samples]
                weights = [w for _, w in model.samples]
                for hidden in rng.choices(hands, weights=weights, k=DUEL_WORLDS):
                    pool = _single_bits(self.unseen & ~hidden)
                    draws = rng.sample(pool, min(2 * DUEL_TURNS + 2, len(pool)))
                    self.worlds.append((model.known_now | hidden, draws))
        return self.worlds

    # -- the opponent's hand -----------------------------------------------------------
    def opponent_model(self) -> _OpponentModel:
        if self.opponent is None:
            self.opponent = _OpponentModel(self.view, self.player, self.unseen)
        return self.opponent

    def feeds(self, bit: int) -> float:
        """Chance that the opponent can meld this card if we throw it."""
        return self.opponent_model().feeds(bit)


@cache
def _meld_pairs(ace_high: bool) -> tuple[tuple[int, ...], ...]:
    """For each card bit, the masks of every two cards that make a meld of three with it."""
    out = []
    for bit in range(52):
        suit, r = divmod(bit, 13)
        same = [s * 13 + r for s in range(4) if s != suit]
        pairs = [1 << a | 1 << b for i, a in enumerate(same) for b in same[i + 1 :]]
        rank = r + 1

        def at(k: int, suit: int = suit) -> int | None:
            if k == 14 and ace_high:
                k = 1
            return suit * 13 + k - 1 if 1 <= k <= 13 else None

        for a, b in ((rank - 2, rank - 1), (rank - 1, rank + 1), (rank + 1, rank + 2)):
            x, y = at(a), at(b)
            if x is not None and y is not None:
                pairs.append(1 << x | 1 << y)
        out.append(tuple(pairs))
    return tuple(out)


def _single_bits(mask: int) -> list[int]:
    """The cards of a 52-bit hand mask, each as its own one-bit mask (for sampling)."""
    return [1 << b for b in range(52) if mask >> b & 1]


def _melds_with(bit: int, hand: int, pairs: tuple[tuple[int, ...], ...]) -> bool:
    """Whether the card at ``bit`` makes a meld of three with two cards of ``hand``."""
    # a plain loop, as the duel asks this millions of times: any() over a generator costs
    # about twice as much
    for pm in pairs[bit]:  # noqa: SIM110
        if hand & pm == pm:
            return True
    return False


def _loose_top(hand: int, ace_high: bool) -> int:
    """Highest value among the cards of ``hand`` that belong to no possible meld."""
    starts = hand & hand >> 1 & hand >> 2 & _RUN_STARTS
    meldable = starts | starts << 1 | starts << 2
    if ace_high:
        aces = hand & hand >> 11 & hand >> 12 & _ACES
        meldable |= aces | aces << 11 | aces << 12
    a, b, c, d = hand & _SUIT_BITS, hand >> 13 & _SUIT_BITS, hand >> 26 & _SUIT_BITS, hand >> 39
    threes = (a & b & (c | d)) | (c & d & (a | b))
    meldable |= hand & threes * _RANK_ROW
    loose = hand & ~meldable
    top = 0
    for v in range(10, 0, -1):
        if loose & _VALUE_BITS[v]:
            return v
    return top


class _OpponentModel:
    """Likely hands of the opponent, drawn from the cards we have not seen and weighed
    by how well they explain what the opponent did.

    The view says which deck positions the opponent holds and when each came in (the
    deal, a stock draw, the discard pile), so every past hand of theirs is known up
    to the cards we never saw. A sampled hand is weighed down when, with it, the
    opponent would have passed over or thrown a card that melded with its hand, taken
    a card that made nothing, or not knocked when it could. The samples come from a
    generator seeded by the view itself, so the model is deterministic.
    """

    def __init__(self, view: HandState, player: int, unseen: int) -> None:
        self.rules = rules = view.rules
        self.pairs = _meld_pairs(rules.ace_high)
        self.samples: list[tuple[int, float]] = []
        self.total = 0.0  # their summed weight (none when the view allows no hand)
        k = view.knowledge
        opp = 1 - player
        h = rules.hand_size
        pos_of: dict[int, int] = {}
        for pos in view.shown:
            c = k.card_at(pos)
            if c is not None:
                pos_of[c.face] = pos
        held = set(range(h)) if opp != view.dealer else set(range(h, 2 * h))
        stock = 2 * h + 1
        pile = [2 * h]
        # (kind, card position, positions held at that moment)
        events: list[tuple[str, int, frozenset[int]]] = []
        for who, a in view.moves:
            if isinstance(a, DrawStock):
                if who == opp and pile:
                    events.append(("pass", pile[-1], frozenset(held)))
                if who == opp:
                    held.add(stock)
                stock += 1
            elif isinstance(a, PassUpcard):
                if who == opp and pile:
                    events.append(("pass", pile[-1], frozenset(held)))
            elif isinstance(a, TakeUpcard | DrawDiscard):
                if not pile:
                    return
                pos = pile.pop()
                if who == opp:
                    events.append(("take", pos, frozenset(held)))
                    held.add(pos)
            elif isinstance(a, Discard):
                thrown = pos_of.get(a.card.face)
                if thrown is None:
                    return
                pile.append(thrown)
                if who == opp:
                    held.discard(thrown)
                    events.append(("throw", thrown, frozenset(held)))
        if held != set(view.hands[opp]):
            return
        hidden = sorted(pos for pos in held if k.card_at(pos) is None)
        index = {pos: i for i, pos in enumerate(hidden)}
        self.known_now = sum(1 << c.face for pos in held if (c := k.card_at(pos)) is not None)
        checks = []
        for kind, pos, at in events:
            card = k.card_at(pos)
            if card is None:
                continue
            known = sum(1 << c.face for p in at if (c := k.card_at(p)) is not None)
            checks.append((kind, card.face, known, [index[p] for p in at if p in index]))
        pool = _single_bits(unseen)
        if len(pool) < len(hidden):
            return
        # Seeded by what the view shows, so the same view always draws the same hands.
        rng = random.Random(unseen << 64 | self.known_now << 8 | len(view.moves) & 0xFF)
        limit = rules.knock_limit if rules.knock_limit is not None else -1
        ace_high = rules.ace_high
        for _ in range(SAMPLES):
            bits = rng.sample(pool, len(hidden))
            weight = 1.0
            for kind, face, known, idx in checks:
                hand = known
                for i in idx:
                    hand |= bits[i]
                melds = _melds_with(face, hand, self.pairs)
                if kind == "take":
                    if not melds:
                        weight *= TAKE_MISS
                elif melds:
                    weight *= PASS_MELD if kind == "pass" else THROW_MELD
                elif kind == "throw":
                    if _loose_top(hand, ace_high) > _BIT_VALUE[face]:
                        weight *= KEPT_HIGHER
                    if limit >= 0:
                        _, dw = M.best_discard_mask(hand | 1 << face, rules)
                        if dw <= limit:
                            weight *= NO_KNOCK
            self.samples.append((sum(bits), weight))
        self.total = sum(w for _, w in self.samples)

    def feeds(self, bit: int) -> float:
        if not self.samples or self.total <= 0:
            return 0.0
        pairs = self.pairs
        known = self.known_now
        got = sum(w for hand, w in self.samples if _melds_with(bit, hand | known, pairs))
        return got / self.total


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
