"""Cards and decks.

A card is a plain immutable value: rank, suit and, in a multi-deck, which copy it
is. Two cards of one name in a 104- or 108-card deck are different cards, because
the protocol deals *positions* and a player must be able to say which 7H they mean.

Every card of every supported deck exists exactly once as a module-level
instance, so cards compare and hash cheaply and ``Card.from_index(i)`` is a list
lookup. The ``index`` numbers cards within a deck: ``copy * 52 + suit * 13 +
rank - 1`` for natural cards, ``104 + n`` for the n-th joker.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from enum import IntEnum

from ginp2p.errors import Ginp2pError

__all__ = [
    "DECK_SIZES",
    "JOKER",
    "RANKS",
    "Card",
    "CardParseError",
    "Suit",
    "ascii_names",
    "card_order",
    "deck",
    "parse_card",
    "parse_cards",
]

#: Rank letters, index = rank. Rank 0 is the joker.
RANKS = "JA23456789TJQK"
_RANK_NAMES = ("JK", "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
JOKER = 0
DECK_SIZES = (52, 104, 108)


class Suit(IntEnum):
    """The four suits. The order is only a convention for sorting and indexing."""

    SPADES = 0
    HEARTS = 1
    DIAMONDS = 2
    CLUBS = 3

    @property
    def letter(self) -> str:
        return "SHDC"[self]

    @property
    def symbol(self) -> str:
        return "♠♥♦♣"[self]

    @property
    def is_red(self) -> bool:
        return self in (Suit.HEARTS, Suit.DIAMONDS)


class CardParseError(Ginp2pError, ValueError):
    """Raised for text that does not name a card (a ``ValueError`` too, as it always was)."""


@dataclass(frozen=True, slots=True, order=True)
class Card:
    """One physical card.

    ``rank`` is 1 (ace) to 13 (king), or 0 for a joker; ``suit`` is ``None`` for a
    joker; ``copy`` says which deck of a multi-deck the card comes from (0 in a
    single deck; jokers are numbered 0-3 by copy).
    """

    rank: int
    suit: Suit | None
    copy: int = 0

    @property
    def is_joker(self) -> bool:
        return self.rank == JOKER

    @property
    def value(self) -> int:
        """Deadwood value: ace 1, pips at face value, court cards and jokers 10."""
        return 10 if self.rank == JOKER or self.rank >= 10 else self.rank

    @property
    def index(self) -> int:
        """Position of this card in the canonical order of the 108-card deck."""
        if self.suit is None:
            return 104 + self.copy
        return self.copy * 52 + int(self.suit) * 13 + self.rank - 1

    @property
    def face(self) -> int:
        """Index ignoring the copy (0-51 for naturals, 52 for any joker).

        Two copies of one card have the same face; the meld solver works on faces.
        """
        if self.suit is None:
            return 52
        return int(self.suit) * 13 + self.rank - 1

    @property
    def code(self) -> str:
        """Short ASCII name without the copy: ``7H``, ``TH``, ``JK``."""
        if self.suit is None:
            return "JK"
        return RANKS[self.rank] + self.suit.letter

    @property
    def label(self) -> str:
        """Name with the copy index, unique within any deck: ``7H#0``, ``JK#3``."""
        return f"{self.code}#{self.copy}"

    def pretty(self, *, ascii: bool = False) -> str:
        """Name for people: ``7♥``, ``10♥``, ``JK``; with ``ascii``: ``7H``, ``TH``.

        In a multi-deck the second copy carries a prime (``7♥′``, ``7H'``), so that
        "took 7♥ from the pile, discarded 7♥′" reads as the two different cards it is.
        A single deck has only first copies, and the jokers, alike in every use, are
        all ``JK``."""
        if self.suit is None:
            return "JK"
        mark = ("'" if ascii else "′") * self.copy
        if ascii:
            return self.code + mark
        return _RANK_NAMES[self.rank] + self.suit.symbol + mark

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"Card({self.label})"

    @staticmethod
    def from_index(index: int) -> Card:
        """The card at ``index`` of the canonical 108-card order."""
        if not 0 <= index < 108:
            raise CardParseError(f"card index {index} is out of range 0..107")
        return _ALL[index]


def _make_all() -> tuple[Card, ...]:
    cards = [
        Card(rank, Suit(suit), copy)
        for copy in range(2)
        for suit in range(4)
        for rank in range(1, 14)
    ]
    cards += [Card(JOKER, None, n) for n in range(4)]
    return tuple(cards)


_ALL = _make_all()


def deck(size: int = 52) -> tuple[Card, ...]:
    """The unshuffled deck of ``size`` cards (52, 104 or 108) in canonical order."""
    if size not in DECK_SIZES:
        raise ValueError(f"a deck has 52, 104 or 108 cards, not {size}")
    return _ALL[:size]


_SUIT_BY_CHAR = {
    "S": Suit.SPADES,
    "H": Suit.HEARTS,
    "D": Suit.DIAMONDS,
    "C": Suit.CLUBS,
    "♠": Suit.SPADES,
    "♥": Suit.HEARTS,
    "♦": Suit.DIAMONDS,
    "♣": Suit.CLUBS,
    "♤": Suit.SPADES,
    "♡": Suit.HEARTS,
    "♢": Suit.DIAMONDS,
    "♧": Suit.CLUBS,
}
_RANK_BY_TEXT = {
    "A": 1, "1": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9,
    "T": 10, "10": 10, "J": 11, "Q": 12, "K": 13,
}  # fmt: skip


def card_order(card: Card) -> tuple[int, int, int]:
    """How a hand is shown: by suit (♠ ♥ ♦ ♣), then rank; jokers last."""
    return (9 if card.suit is None else int(card.suit), card.rank, card.copy)


def parse_card(text: str) -> Card:
    """Parse ``7H``, ``th``, ``10♥``, ``7♥``, ``JK``, with an optional copy: ``#1`` or
    a prime (``7H'``, ``7♥′``: the second copy, as :meth:`Card.pretty` writes it).

    Without either the first copy is meant.
    """
    raw = text.strip()
    body, sep, copy_text = raw.partition("#")
    copy = 0
    if sep:
        if not copy_text.isdigit():
            raise CardParseError(f"{text!r}: the copy after '#' must be a number")
        copy = int(copy_text)
    bare = body.rstrip("'′")
    if len(bare) < len(body):
        if sep:
            raise CardParseError(f"{text!r}: say the copy once, with '#' or with primes")
        copy, body = len(body) - len(bare), bare
    body = body.upper()
    if body in ("JK", "JOKER", "*"):
        if not 0 <= copy < 4:
            raise CardParseError(f"{text!r}: there are jokers #0 to #3 only")
        return _ALL[104 + copy]
    if len(body) < 2:
        raise CardParseError(f"{text!r} is not a card (try 7H, 10H, TH or JK)")
    rank = _RANK_BY_TEXT.get(body[:-1])
    suit = _SUIT_BY_CHAR.get(body[-1])
    if rank is None or suit is None:
        raise CardParseError(f"{text!r} is not a card (try 7H, 10H, TH or JK)")
    if not 0 <= copy < 2:
        raise CardParseError(f"{text!r}: a multi-deck has copies #0 and #1 only")
    return _ALL[copy * 52 + int(suit) * 13 + rank - 1]


def parse_cards(text: str | Iterable[str]) -> list[Card]:
    """Parse cards separated by spaces or commas, or an iterable of card names."""
    if isinstance(text, str):
        text = text.replace(",", " ").split()
    return [parse_card(t) for t in text]


_PRETTY = re.compile("(10|[AJQK2-9])([♠♥♦♣])")


#: The few other symbols the screens and sentences use, and their ASCII stand-ins.
_SYMBOLS = str.maketrans({"·": "|", "…": "..", "─": "-", "▶": ">", "→": ">", "←": "<",
                          "↓": "v", "↑": "^", "′": "'"})  # fmt: skip


def ascii_names(text: str) -> str:
    """``text`` with every card written with a suit symbol (``10♥``) written as its
    code (``TH``), and the screens' other symbols (``·``, ``…``, arrows) in ASCII: for
    sentences made with symbols (an audit's proof, a status line) shown where only
    ASCII may be printed (``--ascii``, a console that cannot show ``♥``)."""
    cards = _PRETTY.sub(lambda m: RANKS[_RANK_NAMES.index(m[1])] + "SHDC"["♠♥♦♣".index(m[2])],
                        text)  # fmt: skip
    return cards.translate(_SYMBOLS)
