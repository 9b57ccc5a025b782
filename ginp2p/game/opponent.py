"""The computer player's model of its opponent's hand (one deck, no jokers).

Likely hands are drawn from the cards the player has not seen and weighed by how well
they explain what the opponent did; the planner (:mod:`ginp2p.game.planner`) asks
how likely a discard is to feed the opponent, and plays its duels against hands
drawn from here. Hands are 52-bit masks (:mod:`ginp2p.game.masks`).
"""

from __future__ import annotations

import random
from functools import cache

from ginp2p.game import masks
from ginp2p.game.actions import Discard, DrawDiscard, DrawStock, PassUpcard, TakeUpcard
from ginp2p.game.cards import Card
from ginp2p.game.masks import ACES, BIT_VALUE, RANK_ROW, RUN_STARTS, SUIT_BITS, VALUE_BITS
from ginp2p.game.observation import Observation, PublicMove

__all__ = ["OpponentModel", "meld_pairs", "melds_with", "single_bits"]

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


@cache
def meld_pairs(ace_high: bool) -> tuple[tuple[int, ...], ...]:
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


def single_bits(mask: int) -> list[int]:
    """The cards of a 52-bit hand mask, each as its own one-bit mask (for sampling)."""
    return [1 << b for b in range(52) if mask >> b & 1]


def melds_with(bit: int, hand: int, pairs: tuple[tuple[int, ...], ...]) -> bool:
    """Whether the card at ``bit`` makes a meld of three with two cards of ``hand``."""
    # a plain loop, as the duel asks this millions of times: any() over a generator costs
    # about twice as much
    for pm in pairs[bit]:  # noqa: SIM110
        if hand & pm == pm:
            return True
    return False


def _loose_top(hand: int, ace_high: bool) -> int:
    """Highest value among the cards of ``hand`` that belong to no possible meld."""
    starts = hand & hand >> 1 & hand >> 2 & RUN_STARTS
    meldable = starts | starts << 1 | starts << 2
    if ace_high:
        aces = hand & hand >> 11 & hand >> 12 & ACES
        meldable |= aces | aces << 11 | aces << 12
    a, b, c, d = hand & SUIT_BITS, hand >> 13 & SUIT_BITS, hand >> 26 & SUIT_BITS, hand >> 39
    threes = (a & b & (c | d)) | (c & d & (a | b))
    meldable |= hand & threes * RANK_ROW
    loose = hand & ~meldable
    top = 0
    for v in range(10, 0, -1):
        if loose & VALUE_BITS[v]:
            return v
    return top


#: What the opponent did with a card: (``"pass"``, ``"take"`` or ``"throw"``, the card,
#: the numbers of the unseen cards it held then, the seen cards it held then).
_Event = tuple[str, Card, frozenset[int], frozenset[Card]]


class OpponentModel:
    """Likely hands of the opponent, drawn from the cards we have not seen and weighed
    by how well they explain what the opponent did.

    The public moves say when each card of theirs came in (the deal, a stock draw, the
    discard pile) and which one each discard was, so every past hand of theirs is
    known up to the cards we never saw. A sampled hand is weighed down when, with it,
    the opponent would have passed over or thrown a card that melded with its hand,
    taken a card that made nothing, or not knocked when it could. The samples come
    from a generator seeded by the observation itself, so the model is deterministic.
    """

    def __init__(self, obs: Observation, unseen: int) -> None:
        self.rules = rules = obs.rules
        self.pairs = meld_pairs(rules.ace_high)
        self.samples: list[tuple[int, float]] = []
        self.total = 0.0  # their summed weight (none when the moves allow no hand)
        self.known_now = 0  # the cards we know the opponent holds, as a mask
        replayed = _replay(obs.moves, 1 - obs.player, rules.hand_size)
        if replayed is None:
            return
        held, held_cards, known_as, events = replayed
        # The unseen cards still held, in the order they came (the sampled hand's order).
        hidden = sorted(held)
        index = {n: i for i, n in enumerate(hidden)}
        self.known_now = sum(1 << c.face for c in held_cards)
        checks = []
        for kind, card, at, at_cards in events:
            known = sum(1 << c.face for c in at_cards)
            known += sum(1 << known_as[n].face for n in at if n in known_as)
            checks.append((kind, card.face, known, [index[n] for n in at if n in index]))
        pool = single_bits(unseen)
        if len(pool) < len(hidden):
            return
        # Seeded by what the player sees, so the same sight always draws the same hands.
        rng = random.Random(unseen << 64 | self.known_now << 8 | len(obs.moves) & 0xFF)
        limit = rules.knock_limit if rules.knock_limit is not None else -1
        ace_high = rules.ace_high
        for _ in range(SAMPLES):
            bits = rng.sample(pool, len(hidden))
            weight = 1.0
            for kind, face, known, idx in checks:
                hand = known
                for i in idx:
                    hand |= bits[i]
                melds = melds_with(face, hand, self.pairs)
                if kind == "take":
                    if not melds:
                        weight *= TAKE_MISS
                elif melds:
                    weight *= PASS_MELD if kind == "pass" else THROW_MELD
                elif kind == "throw":
                    if _loose_top(hand, ace_high) > BIT_VALUE[face]:
                        weight *= KEPT_HIGHER
                    if limit >= 0:
                        _, dw = masks.best_discard_mask(hand | 1 << face, rules)
                        if dw <= limit:
                            weight *= NO_KNOCK
            self.samples.append((sum(bits), weight))
        self.total = sum(w for _, w in self.samples)

    def feeds(self, bit: int) -> float:
        """Chance that the opponent can meld the card at ``bit`` if we throw it."""
        if not self.samples or self.total <= 0:
            return 0.0
        pairs = self.pairs
        known = self.known_now
        got = sum(w for hand, w in self.samples if melds_with(bit, hand | known, pairs))
        return got / self.total


def _replay(
    moves: tuple[PublicMove, ...], opp: int, hand_size: int
) -> tuple[set[int], set[Card], dict[int, Card], list[_Event]] | None:
    """Follow the opponent's hand through the public moves.

    The cards we never saw are numbered as they came in: the dealt ones ``0`` to
    ``hand_size - 1``, then each stock draw the next number. Returns (the numbers
    still held, the seen cards still held, the card each thrown number turned out to
    be, what the opponent did), or None when the moves do not make sense.
    """
    held = set(range(hand_size))
    held_cards: set[Card] = set()
    known_as: dict[int, Card] = {}
    number_of_draw: dict[int, int] = {}
    arrivals = hand_size
    events: list[_Event] = []
    for i, m in enumerate(moves):
        if m.player != opp:
            continue
        if m.kind in (DrawStock.kind, PassUpcard.kind):
            if m.card is not None:
                events.append(("pass", m.card, frozenset(held), frozenset(held_cards)))
            if m.kind == DrawStock.kind:
                number_of_draw[i] = arrivals
                held.add(arrivals)
                arrivals += 1
        elif m.kind in (TakeUpcard.kind, DrawDiscard.kind):
            if m.card is None:
                return None
            events.append(("take", m.card, frozenset(held), frozenset(held_cards)))
            held_cards.add(m.card)
        elif m.kind == Discard.kind:
            if m.card is None:
                return None
            if m.card in held_cards:
                held_cards.remove(m.card)
            else:
                number = _thrown_number(m, held, number_of_draw, hand_size)
                if number is None:
                    return None
                held.remove(number)
                known_as[number] = m.card
            events.append(("throw", m.card, frozenset(held), frozenset(held_cards)))
    return held, held_cards, known_as, events


def _thrown_number(
    move: PublicMove, held: set[int], number_of_draw: dict[int, int], hand_size: int
) -> int | None:
    """Which unseen card of the opponent a discard was: the one drawn at
    ``move.drawn_at``, else a dealt one (all dealt cards are alike to the model),
    else the oldest held; None if it cannot be any card still held."""
    if move.drawn_at is not None:
        number = number_of_draw.get(move.drawn_at)
        return number if number in held else None
    dealt = [n for n in held if n < hand_size]
    if dealt:
        return min(dealt)
    return min(held) if held else None
