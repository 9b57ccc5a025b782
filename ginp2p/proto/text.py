"""The protocol's few words: the one filter every string from another peer passes
through before a person sees it (:func:`for_screen`), the plain names of the entry kinds
and what writing one says of its author. The table words its verdicts with them, and the
present layer builds its sentences on them, so that a kind is named the same
everywhere."""

from __future__ import annotations

__all__ = ["KIND_WORDS", "MOVE_WORDS", "for_screen", "sent_words"]

#: Each kind of log entry as a noun phrase: "a commitment", "a knock".
KIND_WORDS: dict[str, str] = {
    "hello": "a hello",
    "nonce": "the host's half of the coin toss",
    "commit": "a commitment",
    "shuffle": "a shuffle",
    "challenge": "a challenge",
    "answers": "answers to a challenge",
    "lock": "a lock",
    "keys": "the deal keys",
    "stock_key": "the key for a stock card",
    "open": "the opening of the seeds",
    "checkpoint": "a checkpoint",
    "resign": "a resignation",
    "claim": "a claim",
    "dispute": "a dispute",
    "chat": "a chat line",
    "pass_upcard": "a pass of the upcard",
    "take_upcard": "a take of the upcard",
    "draw_stock": "a draw from the stock",
    "draw_discard": "a draw from the pile",
    "discard": "a discard",
    "knock": "a knock",
    "gin": "a gin",
    "big_gin": "a big gin",
    "wall_knock": "a knock at the wall",
    "wall_pass": "a pass at the wall",
    "show": "a show of melds",
    "declare_rumino": "a rumino",
}


#: A move as (present, past): the replay tells a game as it unfolds, the table tells
#: what just happened. ``{card}`` is the card drawn or taken, where the viewer sees it.
MOVE_WORDS: dict[str, tuple[str, str]] = {
    "draw_stock": ("draws{card} from the stock", "drew{card} from the stock"),
    "draw_discard": ("takes{card} from the pile", "took{card} from the pile"),
    "take_upcard": ("takes the upcard{card}", "took the upcard{card}"),
    "pass_upcard": ("passes the upcard", "passed the upcard"),
    "wall_pass": ("passes at the wall", "passed at the wall"),
    "discard": ("discards", "discarded"),
    "knock": ("knocks", "knocked"),
    "gin": ("goes gin", "went gin"),
    "big_gin": ("goes big gin", "went big gin"),
    "wall_knock": ("knocks at the wall", "knocked at the wall"),
    "declare_rumino": ("declares rumino", "declared rumino"),
    "resign": ("resigns", "resigned"),
}


def sent_words(kind: str, who: str) -> str:
    """What ``who`` did by writing an entry of ``kind``: "Ann took the upcard", "Bob
    sent a commitment"."""
    if kind == "show":
        return f"{who} showed their melds"
    if kind in MOVE_WORDS:
        return f"{who} {MOVE_WORDS[kind][1].format(card='')}"
    return f"{who} sent {KIND_WORDS.get(kind, kind)}"


def for_screen(text: str) -> str:
    """Text from another machine as a screen (or a file for people) may show it: the one
    filter for everything another peer wrote, be it a name (a hello, a LAN announcement,
    a pinned player), a chat line, a reason (a bye, a resign), a claim's or a dispute's
    words, or a rule set's name. Every character that is not printable becomes \ufffd.
    ``str.isprintable`` is false for the control characters (C0 and C1, so every
    terminal escape), the format characters (Unicode's Cf: the bidirectional overrides
    and isolates U+202A..U+202E and U+2066..U+2069, by which a name could display as
    another, and the invisible U+200B..U+200F), the line and paragraph separators and
    unassigned code points. The emoji joiner U+200D, a format character too, is kept:
    it only glues emoji into one picture (a family, a flag) and moves nothing."""
    if text.isprintable():  # nearly always, and checked in C: a refold re-reads every chat
        return text
    return "".join(c if c.isprintable() or c == "\u200d" else "\ufffd" for c in text)
