"""What one player sees of a hand, as plain values: the input of the computer player.

An :class:`Observation` holds only what the player to move may know: their own
cards, the discard pile, the size of the stock, the public moves so far (who passed,
who took which card from the pile, who threw what), the phase and the rules. It is
made of :class:`~ginp2p.game.cards.Card` values, ints, strings and tuples, so a
program seating the computer player in another framework (OpenSpiel, say) can build
one from its own game without a :class:`~ginp2p.game.hand.HandState`, and hand it to
:func:`ginp2p.game.bot.choose_from`. :func:`observe` builds one from a state.
"""

from __future__ import annotations

from dataclasses import dataclass

from ginp2p.game.actions import (
    Action,
    DeclareRumino,
    Discard,
    DrawDiscard,
    DrawStock,
    Gin,
    Knock,
    PassUpcard,
    TakeUpcard,
    WallKnock,
)
from ginp2p.game.cards import Card
from ginp2p.game.hand import HandState, Phase, may_lay_off
from ginp2p.game.melds import Meld
from ginp2p.game.options import legal_options
from ginp2p.game.rules import RuleSet

__all__ = ["Observation", "PublicMove", "observe"]

_TAKES = (TakeUpcard.kind, DrawDiscard.kind)


@dataclass(frozen=True, slots=True)
class PublicMove:
    """One move of the hand as both players saw it.

    ``kind`` is the action's kind (``"draw_stock"``, ``"discard"``: the ``kind`` of
    the classes of :mod:`ginp2p.game.actions`). ``card`` is the card the move showed:
    the card taken from the pile (``take_upcard``, ``draw_discard``), thrown
    (``discard``, or the discard of a knock), or passed over (``pass_upcard``, and
    ``draw_stock``: the top of the pile the player did not take; None when the pile
    was empty); None for any other move.

    ``drawn_at``, for a thrown card that its player had drawn from the stock: the
    index in :attr:`Observation.moves` of that draw (the protocol shows which deck
    position a discard comes from, so both players know). None for a card dealt or
    taken from the pile; a program that cannot tell may leave it None.
    """

    player: int
    kind: str
    card: Card | None = None
    drawn_at: int | None = None


@dataclass(frozen=True, slots=True)
class Observation:
    """A hand as ``player``, the player to move, sees it.

    ``hand`` is the player's cards in the order they came (dealt, then drawn; the
    computer player breaks some ties by this order); ``pile`` the discard pile, bottom
    first, its last card the upcard; ``moves`` every move of the hand so far, both
    players'. ``taken`` is the card the player took from the pile this turn (the
    rules may forbid throwing it straight back). At the showdown ``lay_off_onto`` holds
    the knocker's melds when this player may lay off onto them (None otherwise).
    """

    rules: RuleSet
    player: int
    dealer: int
    phase: Phase
    hand: tuple[Card, ...]
    pile: tuple[Card, ...]
    stock_left: int
    moves: tuple[PublicMove, ...] = ()
    taken: Card | None = None
    lay_off_onto: tuple[Meld, ...] | None = None

    @property
    def upcard(self) -> Card | None:
        """The card on top of the discard pile, if any."""
        return self.pile[-1] if self.pile else None

    def seen(self) -> set[Card]:
        """Every card this player has seen: their own, the pile's, and every card a
        move showed (the first upcard, every discard, every card taken)."""
        out = set(self.hand) | set(self.pile)
        out.update(m.card for m in self.moves if m.card is not None)
        return out

    def taken_by(self, player: int) -> list[Card]:
        """The cards ``player`` took from the discard pile, in order."""
        return self._cards_of(player, _TAKES)

    def thrown_by(self, player: int) -> list[Card]:
        """The cards ``player`` discarded, in order."""
        return self._cards_of(player, (Discard.kind,))

    def _cards_of(self, player: int, kinds: tuple[str, ...]) -> list[Card]:
        return [
            m.card
            for m in self.moves
            if m.player == player and m.kind in kinds and m.card is not None
        ]

    def legal_actions(self) -> list[Action]:
        """What the player may do: the engine's :func:`~ginp2p.game.engine.legal_actions`
        for this position, worked out by the same code."""
        forbidden = None if self.rules.discard_taken_card else self.taken
        passes = sum(1 for m in self.moves if m.kind == PassUpcard.kind)
        return legal_options(
            self.rules,
            self.phase,
            cards=lambda: self.hand,
            pile=self.pile,
            both_passed=passes >= 2,
            forbidden=forbidden,
            lay_off_onto=self.lay_off_onto,
        )


def observe(state: HandState, player: int) -> Observation:
    """What ``player`` sees of ``state``: their :meth:`~HandState.view`, as plain values.

    Nothing the player could not see gets in: every card is read through the view,
    which knows only the player's own cards and the cards shown to both.
    """
    view = state.view(player)
    k = view.knowledge
    rules = view.rules
    knock = view.declarations[view.knocker] if view.knocker is not None else None
    where = {card: pos for pos in view.shown if (card := k.card_at(pos)) is not None}
    taken = k.card_at(view.taken) if view.taken is not None else None
    return Observation(
        rules=rules,
        player=player,
        dealer=view.dealer,
        phase=view.phase,
        hand=tuple(view.known_cards(player)),
        pile=tuple(c for c in view.pile_cards() if c is not None),
        stock_left=view.stock_left,
        moves=_public_moves(view, where),
        taken=taken,
        lay_off_onto=knock.melds if knock is not None and may_lay_off(view) else None,
    )


def _public_moves(view: HandState, where: dict[Card, int]) -> tuple[PublicMove, ...]:
    """The hand's moves as both players saw them, replayed over the deck positions to
    know the pile's top at each pass and which stock draw each thrown card came from."""
    k = view.knowledge
    h = view.rules.hand_size
    pile = [2 * h]
    stock = 2 * h + 1
    drawn_at: dict[int, int | None] = {}  # position -> the move that drew it from the stock
    out = []
    for i, (who, action) in enumerate(view.moves):
        card: Card | None = None
        came: int | None = None
        if isinstance(action, PassUpcard | DrawStock):
            card = k.card_at(pile[-1]) if pile else None
            if isinstance(action, DrawStock):
                drawn_at[stock] = i
                stock += 1
        elif isinstance(action, TakeUpcard | DrawDiscard | WallKnock) and pile:
            pos = pile.pop()
            drawn_at[pos] = None
            card = k.card_at(pos)
        thrown = _thrown(action)
        if thrown is not None:
            card = thrown
            pos = where[thrown]
            came = drawn_at.get(pos)
            pile.append(pos)
        out.append(PublicMove(who, action.kind, card, came))
    return tuple(out)


def _thrown(action: Action) -> Card | None:
    """The card an action throws onto the pile, if any."""
    if isinstance(action, Discard):
        return action.card
    if isinstance(action, Knock | Gin | WallKnock | DeclareRumino):
        return action.discard
    return None
