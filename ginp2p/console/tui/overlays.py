"""What covers the table for a while, drawn as rows like the table: the end of a hand
(both declarations, the points and why), the match's score sheet, the help under the
rules being played, and the host's rules put to a guest. Pure functions, as
:mod:`.render`'s are.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from itertools import zip_longest

from prompt_toolkit.utils import get_cwidth

from ginp2p.console.tui.look import Look
from ginp2p.console.tui.render import Row, padded, shown_row
from ginp2p.game.rules import RuleSet
from ginp2p.present.summary import HandSummary, MatchSummary
from ginp2p.present.words import commands_in, preset_short, rules_help

__all__ = ["HELP_ROWS", "help_commands", "help_rows", "match_rows", "rules_rows", "summary_rows"]


def summary_rows(h: HandSummary, look: Look, width: int, last: bool = False,
                 next_up: str = "the next hand is being dealt") -> list[Row]:  # fmt: skip
    """The end of a hand: each side's melds, layoffs and deadwood; the points; totals;
    then what Enter leads to (``next_up`` at the table)."""
    rows: list[Row] = [[("class:title", f" {h.headline}")], []]
    pad = max(get_cwidth(s.name) for s in h.seats) + 6
    for s in h.seats:
        name = ("", padded(f"   {s.name}", pad))
        if s.shown is None:
            rows.append([name, ("class:dim", "nothing shown")])
            continue
        rows.append([name, *shown_row(look, s.shown)])
    rows.append([])
    for reason in h.reasons:
        rows.append([("", f"   {reason}")])
    me, opp = h.seats
    rows.append([("class:title", f"   points this hand: {me.name} {me.points}, "
                                 f"{opp.name} {opp.points}")])  # fmt: skip
    rows.append([("class:title", f"   game score: {me.name} {me.score}, {opp.name} {opp.score}")])
    rows.append([])
    rows.append([("class:turn", "   Enter: the match result" if last else
                  f"   Enter: back to the table ({next_up})")])  # fmt: skip
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
    rows: list[Row] = [[("class:title", f" {m.headline}")], []]
    hands = list(m.hands)
    hand = "hand" if hands else ""  # (a resignation before any hand was scored: none)
    rows.append([("class:dim", f"   {hand:<5}{'':<34}{me[:w]:>{w}}{opp[:w]:>{w}}")])
    last = (
        ["   q or Enter: leave (the game is saved; ginp2p games lists it)"]
        if finished
        else textwrap.wrap(waiting, width - 3, initial_indent="   ", subsequent_indent="   ")
    )
    # besides the hands: the three rows above, game score, bonuses, total, lead, a
    # blank row and the last lines
    room = height - 3 - 1 - len(m.bonuses) - 1 - (m.lead_line("you") is not None) - 1 \
        - len(last)  # fmt: skip
    if len(hands) > max(room, 2):
        shown = max(room - 1, 1)
        rows.append([("class:dim", f"   … {len(hands) - shown} earlier hands")])
        hands = hands[-shown:]
    for n, text, a, b in hands:
        rows.append([("", f"   {n:<5}{text[:33]:<34}{a:>{w}}{b:>{w}}")])
    rows.append([("", f"   {'':<5}{'game score':<34}{m.scores[0]:>{w}}{m.scores[1]:>{w}}")])
    for what, a, b in m.bonuses:
        rows.append([("", f"   {'':<5}{'+ ' + what:<34}{a:>{w}}{b:>{w}}")])
    rows.append([("class:title",
                  f"   {'':<5}{'total':<34}{m.totals[0]:>{w}}{m.totals[1]:>{w}}")])  # fmt: skip
    if (lead := m.lead_line("you")) is not None:
        rows.append([("class:title", f"   {'':<5}{lead}")])
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

#: What ``p`` passes, by (the first upcard is offered, the stock ends at a wall); rules
#: with neither have no ``p``, and the help does not list it.
_PASS = {
    (True, False): "pass (the first upcard)",
    (True, True): "pass (first upcard or wall)",
    (False, True): "pass (at the wall)",
}


def _help_keys(keys: Sequence[tuple[str, str]]) -> str:
    """The keys as the help lists them, two to a row: ``(key, what it does)``."""
    cells = [f"{key:<8}{what}" for key, what in keys]
    return "\n".join(
        f"  {left:<39}{right}".rstrip()
        for left, right in zip_longest(cells[::2], cells[1::2], fillvalue="")
    )


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


def help_rows(width: int, rules: RuleSet | None = None) -> list[Row]:
    """The help: the rules of this match (none known yet: only the keys), then the keys,
    where ``p``, ``k`` and ``g`` say what they do in these rules, and the commands these
    rules have."""
    pass_: str | None = "pass (the first upcard)"
    knock, gin = "knock with the chosen card", "go gin"
    title = " help"
    closes = " · Esc closes it"  # ? opens it: the key bar says so
    lines: list[str] = []
    shown = rules if rules is not None else RuleSet()  # not known yet: classic's commands
    if rules is not None:
        title += f" · {preset_short(rules)}"  # the rules below are the changed ones
        lines += [*rules_help(rules, max(20, width - 2)), ""]
        pass_ = _PASS.get((rules.upcard_pass_round, rules.stock_end == "wall"))
        if rules.knock_instead_of_draw:
            knock = "knock (instead of drawing)"
        if rules.instant_rumino:
            gin = "go gin, or declare rumino"
        elif rules.big_gin_bonus is not None:
            gin = "go gin or big gin"
    cards = "7h, 10h, qs" + ", jk" * shown.jokers
    said = " ".join(c.replace(" ", "\xa0") for c in help_commands(shown))  # "gin 2c" unbroken
    commands = "\n".join(textwrap.wrap(f"commands (cards as {cards}): {said}",
                                        max(20, width - 2), subsequent_indent="  ")
                          ).replace("\xa0", " ")  # fmt: skip
    keys = [
        ("← →", "choose a card in your hand"),
        ("Enter", "discard the chosen card"),
        ("s", "draw from the stock"),
        ("d", "take the top of the pile"),
        ("k", knock),
        ("g", gin),
        ("c", "claim (they stopped playing)"),
        (":", "type a command (Tab completes)"),
        ("Ctrl-C", "leave (asks first; saved)"),
    ]
    if pass_ is not None:  # a key these rules have no use for is not listed
        keys.insert(4, ("p", pass_))
    text = HELP_TEXT.format(keys=_help_keys(keys), commands=commands).splitlines()
    while 1 + len(lines) + len(text) > HELP_ROWS and "" in lines + text:  # long rules:
        (text if "" in text else lines).remove("")  # fewer blank rows,
    if 1 + len(lines) + len(text) > HELP_ROWS:  # then no showdown tip (its key bar has it)
        text = [line for line in text if not line.startswith("At the showdown")]
    return [[("class:title", title + closes)], *[[("", " " + line)] for line in lines + text]]


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
