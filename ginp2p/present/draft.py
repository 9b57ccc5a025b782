"""A declaration being made: the proposal behind a knock, a gin or a showdown
(:func:`draft_from`), and the same laid meld by meld by the player, each candidate
keeping its key for the whole change (:class:`Draft`). The engine checks the result
when it is sent; a draft only says beforehand why it would be refused.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from ginp2p.game import engine
from ginp2p.game import melds as M
from ginp2p.game.cards import Card, card_order
from ginp2p.game.engine import Action, HandState
from ginp2p.game.melds import Layoff, Meld
from ginp2p.game.rules import RuleSet
from ginp2p.present.view import meld_order

__all__ = ["Draft", "draft_from"]


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
        if decl is not None and engine.may_lay_off(hand):  # the engine's own rule
            targets = decl.melds
    return Draft(action.kind, discard, tuple(cards), tuple(action.melds), layoffs, targets)  # type: ignore[union-attr]
