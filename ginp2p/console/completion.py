"""Tab completion of a typed command, for the table's ``:`` line and the line prompt
alike: the commands of the vocabulary (:mod:`ginp2p.present.vocabulary`), each shown with
its letter and what it does, then the cards that fit the command. prompt_toolkit shows
them as a menu by the cursor, as ptpython and pgcli do.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from ginp2p.game.cards import RANKS, Card
from ginp2p.game.engine import DeclareRumino
from ginp2p.game.rules import RuleSet
from ginp2p.present.view import knock_options
from ginp2p.present.vocabulary import VOCABULARY, Word, lookup
from ginp2p.present.words import commands_in

__all__ = ["CommandCompleter", "card_word", "seat_cards"]


def card_word(card: Card) -> str:
    """How a person types a card: ``7h``, ``10h``, ``qs``, ``jk`` (``7h'``: the second
    copy, marked as the screen marks it)."""
    if card.suit is None:
        word = "jk"
    else:
        word = ("10" if card.rank == 10 else RANKS[card.rank].lower()) + card.suit.letter.lower()
    return word + "'" * card.copy


def _in_rules(w: Word, rules: RuleSet | None) -> bool:
    """Whether these rules have the command (not known yet: every command)."""
    if rules is None:
        return True
    has = commands_in(rules)
    return {"take": has["upcard"], "pass": has["upcard"] or has["wall"],
            "rumino": has["rumino"]}.get(w.name, True)  # fmt: skip


class CommandCompleter(Completer):
    """Completes a typed command: its word (with its letter and what it does beside
    it), then the cards that fit it (``cards_for`` a command's name; ``shown`` writes a
    card as the screen does). ``rules``: the rules being played, whose commands only
    are offered (None: not known yet)."""

    def __init__(self, cards_for: Callable[[str], list[Card]],
                 shown: Callable[[Card], str] = card_word,
                 rules: Callable[[], RuleSet | None] = lambda: None) -> None:  # fmt: skip
        self.cards_for = cards_for
        self.shown = shown
        self.rules = rules

    def get_completions(self, document: Document,
                        complete_event: CompleteEvent) -> Iterable[Completion]:  # fmt: skip
        text = document.text_before_cursor
        words = text.split()
        if not words or (len(words) == 1 and not text.endswith(" ")):
            prefix = words[0].lower() if words else ""
            rules = self.rules()
            for w in VOCABULARY:
                typed = next((x for x in w.words if x.startswith(prefix) and x.isalpha()), None)
                if typed is None or not _in_rules(w, rules):
                    continue
                # the letters in a column of their own: the widest word is 7 letters
                yield Completion(typed, -len(prefix), display=f"{typed:<9}{w.key or ' '}",
                                 display_meta=w.does)  # fmt: skip
            return
        if len(words) > 2 or (len(words) == 2 and text.endswith(" ")):
            return
        named = lookup(words[0])
        if named is None or named.arg != "CARD":
            return
        prefix = words[1].lower() if len(words) == 2 else ""
        for card in self.cards_for(named.name):
            word = card_word(card)
            if word.startswith(prefix):
                yield Completion(word, -len(prefix), display=self.shown(card))


def seat_cards(seat: Any) -> Callable[[str], list[Card]]:
    """The cards that complete a command at a player's seat (the line prompt's): for
    ``knock`` and ``gin`` only the discards that make one, for ``rumino`` those that
    declare it, else the cards of the hand."""

    def cards_for(verb: str) -> list[Card]:
        view = seat.hand()
        if view is None:
            return []
        legal = seat.legal_actions() if seat.my_turn else []
        if verb in ("knock", "gin"):
            knocks, _ = knock_options(view, legal)
            return [k.discard for k in knocks if k.gin == (verb == "gin") and k.discard]
        if verb == "rumino":
            return [a.discard for a in legal if isinstance(a, DeclareRumino)]
        return [c for c in view.cards(seat.me) if c is not None]

    return cards_for
