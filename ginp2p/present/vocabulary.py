"""The one vocabulary of both consoles: every command a player gives, its whole word,
other whole words for it, its letter and what it does. The letter is the table's key and
the line prompt's abbreviation alike (``p`` passes, ``d`` takes the pile's card, in
both), so that a letter never does one move in one mode and another in the other. The
table's key bindings, the line parser (:func:`ginp2p.present.commands.parse_command`),
the completion of both modes and both helps (the line prompt's, and the table's through
:func:`key_help`) all read :data:`VOCABULARY`.

A typed word is a command's word, another word for it, its letter, or the start of a
word (two letters at least) that only one command's words begin with. A start shared by
two commands is refused with both meanings, never guessed; a word that is none is told
the nearest commands (``tkae``: did you mean take?).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ginp2p.errors import Ginp2pError
from ginp2p.game.rules import RuleSet

__all__ = ["LETTERS", "VOCABULARY", "UnknownWord", "Word", "key_help", "lookup", "resolve",
           "word"]  # fmt: skip


@dataclass(frozen=True, slots=True)
class Word:
    """One command: ``name`` as typed in full, ``key`` its letter (the same at the table
    and at the line prompt; None: it has none), ``does`` what it does in a few words,
    ``also`` other whole words for it, ``arg`` what follows it (``CARD``, ``TEXT``),
    ``move`` whether it is a move (only on your turn), ``short`` whether it may be
    shortened (not ``resign``: it ends the match), ``needs`` the rule it needs (a true
    field of :class:`~ginp2p.game.rules.RuleSet`; "" for every rule set)."""

    name: str
    key: str | None
    does: str
    also: tuple[str, ...] = ()
    arg: str = ""
    move: bool = False
    short: bool = True
    needs: str = ""

    @property
    def words(self) -> tuple[str, ...]:
        return (self.name, *self.also)


#: The commands, in the order the help lists them. The letters are the table's keys,
#: which people press most: ``s`` the stock, ``d`` the discard pile, ``p`` pass, ``k``
#: knock, ``g`` gin, ``c`` claim; ``q``, ``h`` and ``l`` are the line prompt's, and do
#: the same at the table (leave, asked first; the help; the table is on screen).
VOCABULARY: tuple[Word, ...] = (
    Word("stock", "s", "draw from the stock", also=("draw",), move=True),
    Word("pile", "d", "take the top of the discard pile (the first upcard too)", move=True),
    Word("take", None, "take the first upcard", move=True),
    Word("pass", "p", "pass the first upcard, or at the wall", move=True),
    Word("discard", None, "discard a card", arg="CARD", move=True),
    Word("knock", "k", "knock, discarding a card", arg="CARD", move=True),
    Word("gin", "g", "go gin, discarding a card", arg="CARD", move=True),
    Word(
        "rumino",
        None,
        "declare rumino, discarding a card",
        arg="CARD",
        move=True,
        needs="instant_rumino",
    ),
    Word("show", None, "lay down your melds at the showdown", move=True),
    Word("look", "l", "show the table again", also=("table", "hand")),
    Word("say", None, "a chat line to the other player", also=("chat",), arg="TEXT"),
    Word("claim", "c", "claim the match: the other player stopped answering"),
    Word("resign", None, "give up the match", short=False),
    Word("quit", "q", "leave; the game is saved", also=("exit",)),
    Word("help", "h", "the commands", also=("?",)),
)

_BY_NAME = {w.name: w for w in VOCABULARY}
_EXACT = {text: w for w in VOCABULARY for text in (*w.words, *([w.key] if w.key else []))}
LETTERS = " ".join(w.key for w in VOCABULARY if w.key)
"""The letters, as the help names them: ``s d p k g l c q h``."""


class UnknownWord(Ginp2pError, ValueError):
    """A typed word that is no command, or the start of several; says why in one line."""


def word(name: str) -> Word:
    """The command of this name (``stock``)."""
    return _BY_NAME[name]


def lookup(typed: str) -> Word | None:
    """The command ``typed`` names, or None (no command, or the start of several)."""
    try:
        return resolve(typed)
    except UnknownWord:
        return None


def resolve(typed: str, rules: RuleSet | None = None) -> Word:
    """The command a typed word names: its whole word, another word for it, its letter,
    or the start (two letters at least) of the words of one command only. UnknownWord
    says why it is none: the meanings of a start several commands share, that
    ``resign`` is typed in full, or the nearest commands to a slip. With ``rules``, a
    start or a slip is matched only to the commands those rules have (``r`` is not
    rumino in classic); a whole word is always itself (the move is refused later)."""
    text = typed.strip().lower()
    if text in _EXACT:
        return _EXACT[text]
    known = [w for w in VOCABULARY if not w.needs or rules is None or getattr(rules, w.needs)]
    starts = [w for w in known if any(x.startswith(text) for x in w.words)]
    if len(text) >= 2 and starts:
        short = [w for w in starts if w.short]
        if len(short) == 1:
            return short[0]
        if len(short) > 1:
            meanings = [f"{_matched(w, text)} ({w.does})" for w in short]
            raise UnknownWord(f"{typed!r} could mean {_or(meanings)}: type more of it")
        raise UnknownWord(f"{typed!r}: type {starts[0].name} in full to {starts[0].does}")
    if len(text) == 1:  # a letter that is no command's: never the start of a word
        said = f"{typed!r} is no command; the letters are {LETTERS}"
        near = [w.name for w in starts if w.name.startswith(text)]  # as the help names them
    else:
        said, near = f"unknown command {typed!r}", nearest(text, known)
    if near:
        said += f"{';' if len(text) == 1 else ':'} did you mean {_or(near)}?"
    raise UnknownWord(f"{said} (help lists them)")


def _matched(w: Word, text: str) -> str:
    """The word of ``w`` that ``text`` begins (``table``, for look)."""
    return next(x for x in w.words if x.startswith(text))


def _or(items: list[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} or {items[-1]}"


def nearest(text: str, among: Sequence[Word] = VOCABULARY) -> list[str]:
    """The commands nearest a mistyped word (a letter left out, added, changed, or two
    swapped: ``tkae``, ``stok``, ``discrad``), nearest first, at most two."""
    most = 1 if len(text) <= 4 else 2
    found: dict[str, int] = {}
    for w in among:
        for x in w.words:
            if x.isalpha():
                d = _distance(text, x)
                if d <= most and d < found.get(w.name, most + 1):
                    found[w.name] = d
    return sorted(found, key=lambda name: found[name])[:2]


def _distance(a: str, b: str) -> int:
    """Edits from ``a`` to ``b``: a letter in, out, changed, or two neighbours swapped."""
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        row = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = a[i - 1] != b[j - 1]
            row[j] = min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                row[j] = min(row[j], prev2[j - 2] + 1)
        prev2, prev = prev, row
    return prev[-1]


def key_help(rules: RuleSet | None) -> list[tuple[str, str]]:
    """The table's keys as its help lists them, ``(key, what it does)``, in these rules
    (None: not known yet): ``p`` only where there is something to pass, and ``k`` and
    ``g`` as these rules knock and go gin."""
    pass_: str | None = "pass (the first upcard)"
    knock, gin = "knock with the chosen card", "go gin"
    if rules is not None:
        pass_ = {
            (True, False): "pass (the first upcard)",
            (True, True): "pass (first upcard or wall)",
            (False, True): "pass (at the wall)",
        }.get((rules.upcard_pass_round, rules.stock_end == "wall"))
        if rules.knock_instead_of_draw:
            knock = "knock (instead of drawing)"
        if rules.instant_rumino:
            gin = "go gin, or declare rumino"
        elif rules.big_gin_bonus is not None:
            gin = "go gin or big gin"
    at_table = {
        "stock": "draw from the stock",
        "pile": "take the top of the pile",
        "pass": pass_,
        "knock": knock,
        "gin": gin,
        "claim": "claim (they stopped playing)",
        "quit": "leave (asks first; saved)",
    }
    keys = [("← →", "choose a card in your hand"), ("Enter", "discard the chosen card")]
    for w in VOCABULARY:
        what = at_table.get(w.name)
        if w.key and what is not None:
            keys.append((f"{w.key} ^C" if w.name == "quit" else w.key, what))
    keys.insert(-1, (":", "type a command (Tab completes)"))
    return keys
