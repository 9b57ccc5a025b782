"""What covers the table for a while, drawn as rows like the table: the end of a hand
(both declarations, the points and why), the match's score sheet, the help under the
rules being played, and the host's rules put to a guest. Pure functions, as
:mod:`.render`'s are. A row too wide for the terminal goes on over more rows; the help,
taller than a short terminal, scrolls (:func:`help_window`).
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from itertools import zip_longest

from prompt_toolkit.utils import get_cwidth

from ginp2p.console.tui.look import Look
from ginp2p.console.tui.render import Row, cut, padded, shown_row, wrap_row
from ginp2p.game.rules import RuleSet
from ginp2p.present.summary import HandSummary, MatchSummary
from ginp2p.present.vocabulary import key_help
from ginp2p.present.words import commands_in, preset_short, rules_help

__all__ = [
    "HELP_ROWS",
    "help_commands",
    "help_rows",
    "help_window",
    "match_rows",
    "rules_rows",
    "summary_rows",
]


def summary_rows(h: HandSummary, look: Look, width: int, last: bool = False,
                 next_up: str = "the next hand is being dealt") -> list[Row]:  # fmt: skip
    """The end of a hand: each side's melds, layoffs and deadwood; the points; totals;
    then what Enter leads to (``next_up`` at the table)."""
    rows: list[Row] = [*wrap_row([("class:title", f" {h.headline}")], width), []]
    pad = max(get_cwidth(s.name) for s in h.seats) + 6
    # a name too long to leave the cards room: they go on under it, on rows of their own
    indent = pad if width - pad >= 24 else 5
    for s in h.seats:
        name = ("", padded(f"   {s.name}", pad))
        if s.shown is None:
            rows.append([name, ("class:dim", "nothing shown")])
            continue
        rows += wrap_row([name, *shown_row(look, s.shown)], width, indent)
    rows.append([])
    for reason in h.reasons:
        rows += wrap_row([("", f"   {reason}")], width, 5)
    me, opp = h.seats
    rows += wrap_row([("class:title", f"   points this hand: {me.name} {me.points}, "
                                      f"{opp.name} {opp.points}")], width, 5)  # fmt: skip
    rows += wrap_row([("class:title", f"   game score: {me.name} {me.score}, "
                                      f"{opp.name} {opp.score}")], width, 5)  # fmt: skip
    rows.append([])
    rows += wrap_row([("class:turn", "   Enter: the match result" if last else
                       f"   Enter: back to the table ({next_up})")], width, 5)  # fmt: skip
    return rows


def match_rows(
    m: MatchSummary,
    width: int,
    finished: bool,
    height: int = 19,
    waiting: str = "making sure the other side has every entry…",
) -> list[Row]:
    """The end of the match: hand by hand, the bonuses, the totals, and how to leave
    (or, not ``finished``, what is ``waiting``), in ``height`` rows: a long match shows
    its last hands, never a cut-off end."""
    me, opp = m.names
    w = max(8, len(me), len(opp)) + 1
    rows: list[Row] = [*wrap_row([("class:title", f" {m.headline}")], width), []]
    hands = list(m.hands)
    hand = "hand" if hands else ""  # (a resignation before any hand was scored: none)
    rows.append([("class:dim", f"   {hand:<5}{'':<34}{me[:w]:>{w}}{opp[:w]:>{w}}")])
    last = textwrap.wrap(
        "q or Enter: leave (the game is saved; ginp2p games lists it)" if finished else waiting,
        max(20, width), initial_indent="   ", subsequent_indent="   ",
    )  # fmt: skip
    lead = m.lead_line("you")  # or who pays: a long line, wrapped
    leads = textwrap.wrap(lead, max(28, width), initial_indent=" " * 8,
                          subsequent_indent=" " * 10) if lead is not None else []  # fmt: skip
    # besides the hands: the rows above, game score, bonuses, total, lead, a blank row
    # and the last lines
    room = height - len(rows) - 1 - len(m.bonuses) - 1 - len(leads) - 1 - len(last)
    if len(hands) > max(room, 2):
        shown = max(room - 1, 1)
        rows.append([("class:dim", f"   … {len(hands) - shown} earlier hands")])
        hands = hands[-shown:]
    for n, text, a, b in hands:  # a long way to end a hand is cut with a mark, never silently
        rows.append([("", f"   {n:<5}{cut(text, 33):<34}{a:>{w}}{b:>{w}}")])
    rows.append([("", f"   {'':<5}{'game score':<34}{m.scores[0]:>{w}}{m.scores[1]:>{w}}")])
    for what, a, b in m.bonuses:
        rows.append([("", f"   {'':<5}{'+ ' + what:<34}{a:>{w}}{b:>{w}}")])
    rows.append([("class:title",
                  f"   {'':<5}{'total':<34}{m.totals[0]:>{w}}{m.totals[1]:>{w}}")])  # fmt: skip
    rows += [[("class:title", line)] for line in leads]
    rows.append([])
    rows += [[("class:turn" if finished else "class:dim", line)] for line in last]
    return rows


HELP_TEXT = """\
{keys}

{commands}

At the showdown Enter sends the proposed melds; e lets you lay them one by one."""
"""The keys and commands, under the rules being played (:func:`ginp2p.present.words.rules_help`).
The help has ``HELP_ROWS`` rows at most: the blank rows go where the rules are long."""

HELP_ROWS = 18
"""Short enough for an 80 x 24 terminal: the rows under the table's header."""


def _help_keys(keys: Sequence[tuple[str, str]], width: int = 80) -> str:
    """The keys as the help lists them, ``(key, what it does)``: two to a row where the
    terminal is wide enough (a key with a long name, ``--ascii``'s ``Left/Right``, on a
    row of its own above them), else one to a row (a long one goes on under its words)."""

    def cells(ks: Sequence[tuple[str, str]]) -> list[str]:
        column = max(8, *(get_cwidth(key) + 2 for key, _ in ks)) if ks else 8
        return [f"{key:<{column}}{what}" for key, what in ks]

    wide = [k for k in keys if get_cwidth(k[0]) > 6]
    rest = [k for k in keys if k not in wide]
    alone, left, right = cells(wide), cells(rest[::2]), cells(rest[1::2])
    if max(map(len, left), default=0) < 39 and max(map(len, alone), default=0) <= width - 3 \
            and 2 + 39 + max(map(len, right), default=0) <= width - 1:  # fmt: skip
        return "\n".join([*(f"  {a}" for a in alone),
                          *(f"  {a:<39}{b}".rstrip()
                            for a, b in zip_longest(left, right, fillvalue=""))])  # fmt: skip
    column = max(8, *(get_cwidth(key) + 2 for key, _ in keys))
    return "\n".join(line for cell in cells(keys) for line in textwrap.wrap(
        cell, max(20, width - 3), initial_indent="  ",
        subsequent_indent=" " * (2 + column)))  # fmt: skip


def _fold(line: str, width: int) -> list[str]:
    """A line of the help in rows of ``width`` (with the blank before each): a long one
    goes on under itself, indented, never cut off at the edge."""
    if 1 + get_cwidth(line) <= width:
        return [line]
    lead = " " * (len(line) - len(line.lstrip()) + 2)
    return textwrap.wrap(line, max(20, width - 1), subsequent_indent=lead)


def help_window(rows: Sequence[Row], top: int, height: int) -> tuple[list[Row], int]:
    """The help in ``height`` rows, from its row ``top`` on: the title stays, and where
    the help is taller than that, the last row says how much more there is and which
    keys scroll. Returns the rows and ``top`` moved as far as it can go."""
    if len(rows) <= height or height < 3:
        return list(rows[:height]), 0
    body = rows[1:]
    page = height - 2
    top = max(0, min(top, len(body) - page))
    below = len(body) - top - page
    if below and top:
        mark = f" ↓/PgDn: {below} more rows · ↑/PgUp: back up"
    elif below:
        mark = f" ↓/PgDn: {below} more rows"
    else:
        mark = " the end of the help · ↑/PgUp: back up"
    return [rows[0], *body[top : top + page], [("class:turn", mark)]], top


def help_commands(rules: RuleSet) -> list[str]:
    """The commands ``:`` takes in these rules, with an example card where one is typed:
    ``take`` only with a first upcard to take, ``pass`` only with one or a wall, ``knock``
    without a card where the knock replaces the draw, ``gin`` alone only with a big gin,
    ``rumino`` only where it wins."""
    has = commands_in(rules)
    return ["stock", "pile", *["take"] * has["upcard"],
            *["pass"] * (has["upcard"] or has["wall"]), "discard 7h",
            *["knock"] * has["instead"], *["knock qs"] * has["by_card"], "gin 2c",
            *["gin (big gin)"] * has["big"], *["rumino 2c"] * has["rumino"], "show",
            "say TEXT", "claim", "resign", "quit"]  # fmt: skip


def help_rows(width: int, rules: RuleSet | None = None, look: Look | None = None) -> list[Row]:
    """The help: the rules of this match (none known yet: only the keys), then the keys,
    where ``p``, ``k`` and ``g`` say what they do in these rules, and the commands these
    rules have; every line whole, over more rows where the terminal is narrow (the
    table scrolls what is taller than it, :func:`help_window`). ``look``: the keys as
    it names them (``--ascii``: Left/Right)."""
    title = " help"
    closes = " · Esc closes it"  # ? opens it: the key bar says so
    lines: list[str] = []
    shown = rules if rules is not None else RuleSet()  # not known yet: classic's commands
    if rules is not None:
        title += f" · {preset_short(rules)}"  # the rules below are the changed ones
        lines += [*rules_help(rules, max(20, width - 2)), ""]
    cards = "7h, 10h, qs" + ", jk" * shown.jokers
    said = " ".join(c.replace(" ", "\xa0") for c in help_commands(shown))  # "gin 2c" unbroken
    commands = "\n".join(textwrap.wrap(f"commands (cards as {cards}): {said}",
                                        max(20, width - 2), subsequent_indent="  ")
                          ).replace("\xa0", " ")  # fmt: skip
    keys = key_help(rules)  # the vocabulary's letters, as the line prompt reads them
    if look is not None:
        keys = [(look.words(key), what) for key, what in keys]
    text = HELP_TEXT.format(keys=_help_keys(keys, width), commands=commands).splitlines()
    whole = lines + text
    while 1 + len(lines) + len(text) > HELP_ROWS and "" in lines + text:  # long rules:
        (text if "" in text else lines).remove("")  # fewer blank rows,
    if 1 + len(lines) + len(text) > HELP_ROWS:  # then no showdown tip (its key bar has it)
        text = [line for line in text if not line.startswith("At the showdown")]
    if 1 + len(lines) + len(text) > HELP_ROWS:  # it scrolls all the same: all of it
        lines, text = whole, []
    rows = [row for line in lines + text for row in _fold(line, width)]
    return [[("class:title", title + closes)], *[[("", " " + row)] for row in rows]]


def rules_rows(text: str, width: int) -> list[Row]:
    import textwrap

    lines = textwrap.wrap(text, max(20, width - 4))
    return [
        [("class:title", " the host's rules")],
        [],
        *[[("", f"   {line}")] for line in lines],
        [],
        [("class:turn", "   play by these rules?  y: yes   n: no (leave; nothing is played)")],
    ]
