"""Drawing the table: pure functions from a :class:`~ginp2p.present.view.TableView` (and the
console's own state) to rows of formatted text.

A row is a list of ``(style, text)`` fragments. Nothing here reads a terminal, so a
test can draw the table at 80×24 and read it back as plain text. Rows never rely on
colour alone: melds are bracketed, the chosen card has a ``^^`` marker under it, so
``NO_COLOR`` and ``--ascii`` lose nothing. Nothing is cut off in silence either: a row too
wide for the terminal goes on over more rows (:func:`wrap_row`), and what still cannot
fit ends in ``…``.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import Any

from prompt_toolkit.formatted_text import StyleAndTextTuples, split_lines
from prompt_toolkit.utils import get_cwidth

from ginp2p.console.tui.look import Look
from ginp2p.game.cards import Card, card_order
from ginp2p.game.engine import Phase
from ginp2p.game.melds import Layoff, Meld
from ginp2p.game.rules import RuleSet
from ginp2p.present.draft import Draft
from ginp2p.present.view import Shown, TableView, meld_order
from ginp2p.present.words import count

__all__ = [
    "CHOICE_KEYS",
    "MIN_WIDTH",
    "Row",
    "cut",
    "draft_rows",
    "fit",
    "hand_rows",
    "header_rows",
    "join_rows",
    "padded",
    "plain",
    "shown_row",
    "status_row",
    "table_rows",
    "too_small",
    "wrap",
    "wrap_row",
]

Row = list[tuple[str, str]]

CHOICE_KEYS = "123456789abcdfghijlmnopqrstuvwxyzABCDFGHIJLMNOPQRSTUVWXYZ"
"""Keys that pick a meld or a layoff while changing a declaration (no ``e``, ``k``). A
candidate keeps its key for the whole change, so a hand with jokers and long runs needs
the capitals too (italian-jokers knocks of the computer player reach 47 candidates)."""


def app_size(app: Any) -> tuple[int, int]:
    """(columns, rows) of a full-screen application's terminal; 80 x 24 before it runs."""
    if app is None:
        return 80, 24
    s = app.output.get_size()
    return s.columns, s.rows


def plain(rows: Sequence[Row]) -> str:
    """The rows as text (what a screenshot shows)."""
    return "\n".join("".join(t for _, t in row).rstrip() for row in rows)


def fit(row: Row, width: int, mark: str = "…") -> Row:
    """The row cut to ``width`` cells: a cut ends in ``mark`` (``..`` under ``--ascii``);
    blanks at its end go first, and are no cut."""
    if _width(row) > width:
        row = list(row)
        while row and _width(row) > width and not row[-1][1].strip():
            row.pop()
        if row and _width(row) > width:
            row[-1] = (row[-1][0], row[-1][1].rstrip())
    out: Row = []
    used = 0
    for style, text in row:
        w = get_cwidth(text)
        if used + w <= width:
            out.append((style, text))
            used += w
            continue
        room = width - used - get_cwidth(mark)
        part = ""
        for ch in text:
            if get_cwidth(part + ch) > room:
                break
            part += ch
        out.append((style, part + mark))
        break
    return out


def wrap(fragments: StyleAndTextTuples, width: int, indent: int = 3) -> StyleAndTextTuples:
    """Lines wider than ``width`` go on over more lines, broken at a space and indented
    by ``indent``: a card in a row of cards is never cut at the screen's edge."""
    out: StyleAndTextTuples = []
    for n, line in enumerate(split_lines(fragments)):
        if n:
            out.append(("", "\n"))
        chars = [(f[0], ch) for f in line for ch in f[1]]
        while True:
            cells, cut, end = 0, None, len(chars)
            for i, (_, ch) in enumerate(chars):
                cells += get_cwidth(ch)
                if cells > width:
                    end = i
                    break
                if ch == " " and i > indent:
                    cut = i
            if end == len(chars) or cut is None:  # it fits, or has nowhere to break
                out.extend(chars)
                break
            out.extend([*chars[:cut], ("", "\n")])
            chars = [("", " " * indent), *chars[cut + 1 :]]
    return out


def wrap_row(row: Row, width: int, indent: int = 3) -> list[Row]:
    """``row`` in rows of at most ``width`` cells: where it is wider it goes on over more
    rows, each indented by ``indent``, broken at a blank after column ``indent`` and
    outside a meld's brackets (inside one only where the meld is wider than a row); a
    total (``= 14``) stays with its last card. A word that fits no row is left whole,
    for :func:`fit` to cut with its ``…``."""
    if _width(row) <= width:
        return [row]
    chars = [(style, ch) for style, text in row for ch in text]
    rows: list[Row] = []
    while True:
        cells, depth, end = 0, 0, len(chars)
        between: int | None = None  # the last blank between melds or words
        inside: int | None = None  # the last blank inside brackets (a meld too wide)
        for i, (_, ch) in enumerate(chars):
            cells += get_cwidth(ch)
            if cells > width:
                end = i
                break
            after = chars[i + 1][1] if i + 1 < len(chars) else ""
            if ch == "[":
                depth += 1
            elif ch == "]":
                depth = max(0, depth - 1)
            elif ch == " " and i > indent and chars[i - 1][1] != " " and after != "=":
                if depth:
                    inside = i
                else:
                    between = i
        at = between if between is not None else inside
        if end == len(chars) or at is None:
            rows.append(_merged(chars))
            return rows
        rows.append(_merged(chars[:at]))
        rest = chars[at:]
        while rest and rest[0][1] == " ":
            rest = rest[1:]
        chars = [("", " ") for _ in range(indent)] + rest


def _merged(chars: Sequence[tuple[str, str]]) -> Row:
    """Characters back into fragments, one for each run of a style."""
    row: Row = []
    for style, ch in chars:
        if row and row[-1][0] == style:
            row[-1] = (style, row[-1][1] + ch)
        else:
            row.append((style, ch))
    return row


def join_rows(rows: Sequence[Row], width: int, mark: str = "…") -> StyleAndTextTuples:
    out: StyleAndTextTuples = []
    for i, row in enumerate(rows):
        if i:
            out.append(("", "\n"))
        out.extend(fit(row, width, mark))
    return out


def _width(row: Row) -> int:
    return sum(get_cwidth(t) for _, t in row)


def _spread(left: Row, right: Row, width: int) -> Row:
    gap = width - _width(left) - _width(right)
    return [*left, ("", " " * max(1, gap)), *right] if gap >= 1 else left


def cut(text: str, cells: int, mark: str = "…") -> str:
    """``text`` in at most ``cells`` cells (at least one): a cut ends in ``mark``."""
    if get_cwidth(text) <= cells:
        return text
    part = ""
    for ch in text:
        if get_cwidth(part + ch) > max(cells, 1) - get_cwidth(mark):
            break
        part += ch
    return part + mark


def _share(a: str, b: str, cells: int, mark: str = "…") -> tuple[str, str]:
    """Two names in ``cells`` cells between them: as they are if they fit, else the
    longer one shortened first, neither to less than half (a name from the other player
    may be 64 bytes long; a terminal may be narrow)."""
    if get_cwidth(a) + get_cwidth(b) <= cells or cells < 2:
        return a, b
    a = cut(a, max(cells - get_cwidth(b), cells // 2), mark)
    return a, cut(b, cells - get_cwidth(a), mark)


def padded(text: str, cells: int) -> str:
    """``text`` padded to ``cells`` columns, or followed by one blank where it is longer
    (a long name must not run into what follows it). Columns, not characters: a name
    in Chinese or Japanese takes two a character."""
    width = get_cwidth(text)
    return text + " " * (cells - width) if width < cells else text + " "


def _cards(look: Look, cards: Sequence[Card | None], style: str = "") -> Row:
    row: Row = []
    for i, c in enumerate(cards):
        if i:
            row.append(("", " "))
        row.append(((look.card_class(c) + " " + style).strip(), look.name(c)))
    return row


def _meld(look: Look, cards: Sequence[Card]) -> Row:
    return [("", "["), *_cards(look, cards), ("", "]")]


def shown_row(look: Look, shown: Shown) -> Row:
    row: Row = []
    for m in shown.melds:
        row += [*_meld(look, m), ("", " ")]
    if shown.layoffs:
        row += [("", "laid off "), *_cards(look, shown.layoffs), ("", " ")]
    if not shown.deadwood_cards:
        return [*row, ("class:title", "no deadwood")]
    row += [("", "deadwood "), *_cards(look, shown.deadwood_cards, "class:card.dead")]
    row.append(("class:title", f" = {shown.deadwood}"))
    return row


def _clock(seconds: float) -> str:
    s = max(0, int(seconds))
    return f"{s // 60}:{s % 60:02d}"


# ------------------------------------------------------------------------ the table


def header_rows(v: TableView, width: int, look: Look | None = None) -> list[Row]:
    """Names, scores and what they mean (hands won), the preset, the connection; in
    ``look``'s words (``--ascii``: its ``..`` is wider than ``…``), measured as shown."""
    words = look.words if look is not None else str
    mark = words("…")
    game = f" ginp2p · {v.preset}, {v.goal}" if v.preset else " ginp2p"
    if v.hand_no:
        game += f" · hand {v.hand_no}"
    link = v.link
    if link == "connected" and v.latency is not None:
        link += f" · {v.latency * 1000:.0f} ms"
    elif link.endswith("connecting…"):  # whom: "connecting…" alone read as the network's
        link = f"{link[:-1]} to {cut(v.names[1], max(8, width // 4))}…"
    game, link = words(game), words(link)
    style = "class:dim" if v.link in ("connected", "game over") else "class:warn"
    # the connection is never dropped for a long preset: the preset is shortened first
    game = cut(game, width - get_cwidth(link) - 2, mark)
    top = _spread([("class:title", game)], [(style, link + " ")], width)
    mine = words(f" (you) {v.scores[0]} · {v.standings[0]}")
    theirs = words(f" {v.scores[1]} · {v.standings[1]} ")
    rule: Row = [("class:dim", "─" * width)]
    # both names and both scores on one line: names too long for it are shortened
    room = width - 2 - get_cwidth(mine) - get_cwidth(theirs)  # a blank before, a gap between
    if room < 8:  # too narrow for both: a line each, rather than a score gone
        return [
            top,
            *(
                [("class:title", cut(f" {words(name)}{score}", width, mark))]
                for name, score in zip(v.names, (mine, theirs), strict=True)
            ),
            rule,
        ]
    a, b = _share(words(v.names[0]), words(v.names[1]), room, mark)
    me, them = f" {a}{mine}", f"{b}{theirs}"
    return [top, _spread([("class:title", me)], [("class:title", them)], width), rule]


def table_rows(v: TableView, look: Look, width: int, selected: Card | None = None,
               after: int | None = None) -> list[Row]:  # fmt: skip
    """The table under the header: the opponent, stock and pile, your hand, what you
    may do, whose turn. ``after``: the deadwood left if the selected card goes."""
    rows: list[Row] = []
    label = 12
    opp = v.names[1]
    if v.opponent_shown is not None:
        theirs = shown_row(look, v.opponent_shown)
        rows += wrap_row([("class:title", padded(f" {opp}:", label)), *theirs], width, label)
    elif v.phase:
        rows.append([("class:title", padded(f" {opp}", label)),
                     ("", f"{count(v.opponent_cards, 'card')} in hand")])  # fmt: skip
    else:
        rows.append([("class:title", padded(f" {opp}", label))])
    if v.phase:
        pile: Row = [("", f" stock {v.stock}".ljust(label)), ("", "pile ")]
        if v.pile:
            top = v.pile[-1]
            pile += [(look.card_class(top) + " class:title", look.name(top))]
            under = list(v.pile[:-1])
            room = max(0, (width - label - 24) // 4)
            if under and room:
                shown = under[-room:][::-1]
                pile += [("class:dim", "  under it: "), *_cards(look, shown)]
                if len(under) > room:
                    pile.append(("class:dim", " …"))
        else:
            pile.append(("class:dim", "empty"))
        rows.append(pile)
    else:
        rows.append([])
    rows.append([])
    # the chosen card is marked only while it is used: not while the move is a take,
    # a pass or a draw, nor on the other player's turn
    rows += hand_rows(v, look, selected if v.chooses else None, label, width)
    rows += wrap_row(_hint_row(v, look, selected, after, label), width, label)
    turn_style = "class:turn" if v.my_turn else ""
    rows += wrap_row([(turn_style, (" ▶ " if v.my_turn else "   ") + look.words(v.turn))],
                     width)  # fmt: skip
    rows += wrap_row(status_row(v), width)
    return rows


#: The narrowest table: a hand wraps onto more rows, but a card never breaks.
MIN_WIDTH = 30


def too_small(width: int, height: int, need_width: int, need_height: int) -> list[Row]:
    """What a terminal too small for the table shows instead of a table cut short."""
    words = (f"terminal too small: {width}x{height}; the table needs {need_width}x"
             f"{need_height}: make it larger, or use --plain")  # fmt: skip
    return [[("class:error", " " + line)] for line in textwrap.wrap(words, max(8, width - 2))]


def hand_rows(v: TableView, look: Look, selected: Card | None, label: int = 12,
              width: int = 80) -> list[Row]:  # fmt: skip
    """Your hand in its groups, and a marker row under the chosen card. Where the row
    is too wide it drops its title, then goes on to further rows (between melds where
    it can, between cards where a meld is wider than a row): no card is ever cut off."""
    if not v.hand:
        return [[("class:title", " your hand".ljust(label))], []]
    units: list[list[tuple[Row, str]]] = []  # what stays on one row: each token's cells
    dead_started = False
    for g in v.groups:
        tokens: list[tuple[Row, str]] = []
        for i, c in enumerate(g.cards):
            name = look.name(c)
            style = look.card_class(c) + ("" if g.meld else " class:card.dead")
            if c == selected:
                style += " class:card.selected"
            w = get_cwidth(name)
            row: Row = [(style, name)]
            marks = ("^" if c == selected else " ") * w
            if i == 0 and g.meld:
                row, marks = [("", "["), *row], " " + marks
            elif i == 0:
                row, marks = [("class:dim", "deadwood "), *row], " " * 9 + marks
            if i == len(g.cards) - 1 and g.meld:
                row, marks = [*row, ("", "]")], marks + " "
            tokens.append((row, marks))
        dead_started = dead_started or not g.meld
        units += [tokens] if g.meld else [[t] for t in tokens]
    # every card melded is a gin only once the hand may go gin: before the draw (rumino's
    # seven, say) it is a knock at 0, and the draw may still make the gin
    early = v.phase in (Phase.FIRST_UPCARD, Phase.DRAW)
    units.append([([("class:title", f"= {v.deadwood}" if dead_started or early else "gin!")],
                   "")])  # fmt: skip
    whole = label + sum(_width(r) + 1 for unit in units for r, _ in unit) - 1
    if label > 1 and whole > width:
        return hand_rows(v, look, selected, 1, width)
    rows: list[Row] = []
    row, marks = [("class:title", " your hand".ljust(label) if label > 1 else " ")], " " * label
    used = label

    def new_row() -> None:
        nonlocal row, marks, used
        rows.extend([row, [("class:turn", marks.rstrip())]])
        row, marks, used = [("", " " * label)], " " * label, label

    for unit in units:
        size = sum(_width(r) + 1 for r, _ in unit) - 1
        if used > label and used + size > width:  # the unit starts a row of its own
            new_row()
        for r, m in unit:
            if used > label and used + _width(r) > width:  # a meld wider than a row
                new_row()
            row += [*r, ("", " ")]
            marks += m + " "
            used += _width(r) + 1
    return [*rows, row, [("class:turn", marks.rstrip())]]


def _hint_row(v: TableView, look: Look, selected: Card | None, after: int | None,
              label: int) -> Row:  # fmt: skip
    row: Row = [("", " " * label)]
    if not v.my_turn:
        return row
    if v.phase in ("discard", "wall") and selected is not None:
        gins = [k for k in v.knocks if k.gin]
        knocks = {k.discard: k for k in v.knocks if not k.gin}
        if v.phase == "discard" and selected == v.kept:
            row += [("", "you took "), (look.card_class(selected), look.name(selected)),
                    ("", " from the pile: discard another card")]  # fmt: skip
        elif v.phase == "discard":
            row += [("", "Enter discards "), (look.card_class(selected), look.name(selected))]
            if after is not None:
                row.append(("", f" (deadwood {after})"))
        sep = " · " if len(row) > 1 else ""  # at the wall nothing comes before it
        if v.rumino is not None:
            row += [("class:turn", f"{sep}g: RUMINO discarding "),
                    *_cards(look, [v.rumino.discard]),
                    ("class:turn", " (wins the match)")]  # fmt: skip
        elif gins:
            row += [("class:turn", f"{sep}g: GIN discarding "), *_cards(look, [gins[0].discard])]
        elif v.big_gin is not None:
            row.append(("class:turn", f"{sep}g: BIG GIN"))
        elif selected in knocks:
            row.append(("class:turn", f"{sep}k knocks with it"))
        elif knocks:
            best = min(knocks.values(), key=lambda k: k.deadwood)
            row += [("class:turn", f"{sep}k: knock discarding "), *_cards(look, [best.discard]),
                    ("class:turn", f" ({best.deadwood})")]  # fmt: skip
        elif v.phase == "discard" and v.knock_before_draw is not None:  # rumino
            if after is not None and after <= v.knock_before_draw:
                row.append(("class:dim", f"{sep}k next turn, before drawing"))
        elif v.phase == "discard":
            row.append(("class:dim", f"{sep}no knock yet"))
    elif v.phase == "draw" and v.knocks:
        row.append(("class:turn", f"k: knock now ({v.knocks[0].deadwood})"))
        if v.knocks[0].deadwood == 0:  # rumino: a knock scores 0, a gin after the draw -10
            row.append(("class:dim", " · or draw and go gin: better"))
    return row


def status_row(v: TableView) -> Row:
    """Whom we wait for and for how long; or, late in our own move, how long is left."""
    if v.my_turn and v.my_wait is not None and v.my_wait >= v.claim_timeout / 2:
        left = max(0.0, v.claim_timeout - v.my_wait)
        return [("class:warn", f"   your move for {_clock(v.my_wait)}: in {_clock(left)} "
                               f"{v.names[1]} may claim the match")]  # fmt: skip
    if v.waiting is None or v.my_turn:
        return []
    row: Row = [("class:dim", f"   {v.waiting} · {_clock(v.waited)}")]
    if v.claimable:
        row = [("class:warn", f"   {v.names[1]} has not answered for {_clock(v.waited)}: "
                              "press c to claim the match (they forfeit)")]  # fmt: skip
    elif v.waited >= 10:
        row.append(("class:dim", f" (claim after {_clock(v.claim_timeout)})"))
    return row


# ------------------------------------------------------------------------ declaring


def draft_rows(d: Draft, rules: RuleSet, look: Look, width: int) -> list[Row]:
    """A declaration being made: what is laid, the deadwood, and (changing it) the
    numbered choices."""
    what = {
        "knock": "knock", "gin": "gin", "wall_knock": "knock at the wall",
        "big_gin": "big gin", "show": "your showdown",
    }[d.kind]  # fmt: skip
    title = f" {what}"
    if d.discard is not None:
        title += " discarding "
    rows: list[Row] = [[("class:title", title),
                        *(_cards(look, [d.discard]) if d.discard is not None else [])]]  # fmt: skip
    melds: Row = [("", "   melds     ")]
    for m in d.melds:
        melds += [*_meld(look, meld_order(m)), ("", " ")]
    if not d.melds:
        melds.append(("class:dim", "none"))
    rows += wrap_row(melds, width, 13)
    if d.targets or d.layoffs:
        lays: Row = [("", "   laid off  ")]
        for lay in d.layoffs:
            lays += [*_cards(look, [lay.card]), ("class:dim", f"→{_target(d, lay, look)} ")]
        if not d.layoffs:
            lays.append(("class:dim", "none"))
        rows += wrap_row(lays, width, 13)
    left = sorted(d.left(), key=card_order)
    rows += wrap_row([("", "   deadwood  "), *_cards(look, left, "class:card.dead"),
                      ("class:title", f" = {d.deadwood(rules)}")] if left else
                     [("", "   deadwood  "), ("class:title", "none (0)")], width, 13)  # fmt: skip
    if d.editing:
        rows.append([("class:dim", "   add one (its key), Backspace takes the last back, "
                                   "Enter sends, Esc goes back:")])  # fmt: skip
        listed = d.listing(rules)
        now = [(key, ch) for key, (ch, why) in zip(CHOICE_KEYS, listed, strict=False)
               if why is None]  # fmt: skip
        later = [(key, ch) for key, (ch, why) in zip(CHOICE_KEYS, listed, strict=False)
                 if why is not None and not d.laid(ch)]  # fmt: skip
        unkeyed = sum(why is None for _, why in listed[len(CHOICE_KEYS) :])
        if unkeyed:  # more than keys: never a key taken from one candidate for another
            rows.append([("class:turn", f"   {unkeyed} more without a key: Tab gives new keys "
                                        "to all that can be laid now")])  # fmt: skip
        if now or not unkeyed:
            rows += _choice_rows(d, look, now, "", [], width)
        if not now and not unkeyed:
            rows[-1].append(("class:dim", "nothing more can be laid"))
        if later:  # greyed, with the keys they had: a key never moves to another meld
            rows += _choice_rows(d, look, later, "class:dim", [("class:dim", "not now: ")], width)
    else:
        rows.append([("class:turn", "   Enter: send it · e: change the melds"
                      + (" and layoffs" if d.targets else "")
                      + ("" if d.kind == "show" else " · Esc: cancel"))])  # fmt: skip
    return rows


def _choice_rows(d: Draft, look: Look, choices: Sequence[tuple[str, Meld | Layoff]], style: str,
                 lead: Row, width: int) -> list[Row]:  # fmt: skip
    """Candidates with their keys, as many to a row as fit; ``style`` greys them out."""
    rows: list[Row] = []
    line: Row = [("", "   "), *lead]
    for key, ch in choices:
        item: Row = [(style or "class:turn", f"{key}) ")]
        if isinstance(ch, Layoff):
            item += [*_cards(look, [ch.card], style), (style or "class:dim",
                                                       f"→{_target(d, ch, look)}")]  # fmt: skip
        else:
            item += [(style, "["), *_cards(look, meld_order(ch), style), (style, "]")]
        item.append(("", "  "))
        if _width(line) + _width(item) > width and len(line) > 1 + len(lead):
            rows.append(line)
            line = [("", "   ")]
        line += item
    return [*rows, line]


def _target(d: Draft, lay: Layoff, look: Look) -> str:
    m = d.targets[lay.meld] if lay.meld < len(d.targets) else None
    if m is None:
        return "?"
    cards = meld_order(m)
    if m.kind == "run" and len(cards) > 3:  # a run from its first card to its last
        return f"[{look.name(cards[0])}…{look.name(cards[-1])}]"
    return f"[{' '.join(look.name(c) for c in cards)}]"  # a set in full: … reads as a run
