"""How cards look on a terminal: colour by suit, an ASCII form, ``NO_COLOR`` honoured.

The table and the replay viewer both draw cards through :class:`Look`, so a card is
written the same way everywhere. Styles are class names (``class:card.red``) that
:data:`STYLE` maps to colours; with colour off (:data:`PLAIN`) only the attributes
that are not colour stay (reverse, underline, bold).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.styles import Style

from ginp2p.game.cards import Card, ascii_names

STYLE_RULES: dict[str, str] = {
    # every card face on the same light card, so both colours read on a dark terminal
    # and on a light one (black ink alone vanishes on black)
    "card.red": "fg:ansired bg:ansiwhite bold",
    "card.black": "fg:ansiblack bg:ansiwhite bold",
    "card.joker": "fg:ansimagenta bg:ansiwhite bold",
    "card.hidden": "fg:ansibrightblack",
    "card.selected": "reverse",
    "card.dead": "underline",
    "title": "bold",
    "dim": "fg:ansibrightblack",
    "turn": "fg:ansigreen bold",
    "warn": "fg:ansiyellow bold",
    "error": "fg:ansired bold",
    "cheat": "fg:ansiwhite bg:ansired bold",
}
"""Colours for the class names below (ANSI names, so a terminal theme applies)."""

STYLE = Style.from_dict(STYLE_RULES)
#: ``NO_COLOR`` drops colour only: the chosen card stays reversed, deadwood underlined.
PLAIN = Style.from_dict({
    name: " ".join(w for w in rule.split() if not w.startswith(("fg:", "bg:")))
    for name, rule in STYLE_RULES.items()
})  # fmt: skip


#: The arrow keys as ``--ascii`` names them: its stand-ins for the arrows (``<``, ``>``)
#: would read as keys of their own, which do nothing.
ARROW_KEYS = {"←": "Left", "→": "Right", "↑": "Up", "↓": "Down"}
#: Arrows that name keys: alone, in pairs (``←→``, ``←/→``, ``← →``), between blanks or
#: brackets, or before another key's name (``↓/PgDn``). A layoff's arrow
#: (``10♥→[7♥ 8♥ 9♥]``) touches its cards and is not one.
_KEY_ARROWS = re.compile(r"(?<![^\s(])[←→↑↓](?:[/ ]?[←→↑↓])*(?![^\s),.:;/])")


def arrow_words(text: str) -> str:
    """``text`` with the arrows that name keys in words: ``←/→``, ``←→`` and ``← →``
    become ``Left/Right``."""
    return _KEY_ARROWS.sub(lambda m: "/".join(ARROW_KEYS[ch] for ch in m[0] if ch in ARROW_KEYS),
                           text)  # fmt: skip


def wants_colour(environ: Mapping[str, str] | None = None) -> bool:
    """Colour unless ``NO_COLOR`` is set to anything non-empty (https://no-color.org)."""
    env = os.environ if environ is None else environ
    return not env.get("NO_COLOR")


@dataclass(frozen=True)
class Look:
    """How to write cards: suit symbols or ``--ascii`` letters, colour or not."""

    ascii: bool = False
    colour: bool = True

    @classmethod
    def from_env(cls, *, ascii: bool = False,
                 environ: Mapping[str, str] | None = None) -> Look:  # fmt: skip
        return cls(ascii=ascii, colour=wants_colour(environ))

    @property
    def style(self) -> Style:
        return STYLE if self.colour else PLAIN

    def name(self, card: Card | None) -> str:
        """``7♥``/``10♥`` or ``7H``/``TH``; ``??`` for a card this viewer cannot see."""
        if card is None:
            return "??"
        return card.pretty(ascii=self.ascii)

    def card_class(self, card: Card | None) -> str:
        if card is None:
            return "class:card.hidden"
        if card.suit is None:
            return "class:card.joker"
        return "class:card.red" if card.suit.is_red else "class:card.black"

    def card(self, card: Card | None, *, selected: bool = False,
             dead: bool = False) -> StyleAndTextTuples:  # fmt: skip
        """One card as formatted text, padded to a fixed width of 3."""
        style = self.card_class(card)
        if selected:
            style += " class:card.selected"
        if dead:
            style += " class:card.dead"
        return [(style, self.name(card).rjust(3))]

    def words(self, text: str) -> str:
        """Free text (a log line, a message) in this look: ``7♥``/``10♥`` become ``7H``/``TH``
        under ``--ascii``, ``·``/``…`` plain ASCII too, and the arrow keys their names
        (``←/→``: ``Left/Right``)."""
        return ascii_names(arrow_words(text)) if self.ascii else text

    def fragments(self, fragments: StyleAndTextTuples) -> StyleAndTextTuples:
        """Formatted text in this look: under ``--ascii`` every piece as :meth:`words`
        makes it (separators and markers too, not only cards)."""
        if not self.ascii:
            return fragments
        return [(style, self.words(text), *rest) for style, text, *rest in fragments]  # type: ignore[misc]

    def cards(self, cards: Iterable[Card | None], sep: str = " ") -> StyleAndTextTuples:
        out: StyleAndTextTuples = []
        for i, c in enumerate(cards):
            if i:
                out.append(("", sep))
            out.extend(self.card(c))
        return out
