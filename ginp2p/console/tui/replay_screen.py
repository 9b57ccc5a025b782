"""The replay viewer's screen, drawn by pure functions from a
:class:`~.viewer.Viewer`: the header with the audit's verdict, the table at the step
(both seats, the stock and the pile, the hand's result), the story of the entry, a
window of the log, the help and the audit report; and what size a screen too small
should have. The plain forms and the application are :mod:`.replay`'s.
"""

from __future__ import annotations

import textwrap
from typing import Any

from prompt_toolkit.formatted_text import StyleAndTextTuples, fragment_list_to_text, split_lines

from ginp2p.console.tui.look import Look
from ginp2p.console.tui.render import MIN_WIDTH, join_rows, too_small, wrap
from ginp2p.console.tui.viewer import Viewer
from ginp2p.game import melds
from ginp2p.game.cards import Card, card_order
from ginp2p.present.summary import match_summary
from ginp2p.present.view import meld_order
from ginp2p.present.words import for_screen, preset_short, preset_words, result_words
from ginp2p.proto.entry import GUEST, HOST
from ginp2p.proto.results import NAMES
from ginp2p.record.replay import DAMAGED, VIEWS, Frame, Replay, Seat, Step, phase_words

__all__ = [
    "FEEDS",
    "KEYS",
    "audit_lines",
    "header",
    "help_lines",
    "needed_rows",
    "rule",
    "screen",
    "sheet",
    "sorted_cards",
    "story",
    "table_lines",
]

KEYS: tuple[tuple[str, str], ...] = (
    ("→ l .", "next entry"),
    ("← h ,", "previous entry"),
    ("↓ j space", "next move"),
    ("↑ k", "previous move"),
    ("PgDn n ]", "next hand"),
    ("PgUp p [", "start of this hand, then the one before"),
    ("Home g / End G", "first / last entry"),
    ("N Enter", "go to hand N (type the digits first)"),
    ("N g", "go to entry N"),
    ("m", "next entry the audit marks"),
    ("v", "next view: public, host, guest, all"),
    ("a", "show or hide the audit report"),
    ("?", "show or hide this help"),
    ("Esc", "close the help or the audit; forget a typed number"),
    ("q Ctrl-C", "quit"),
    ("Ctrl-Z", "to the shell (fg comes back)"),
)
FEEDS = ("host", "guest")
#: The width a screen too small is asked to have (a common one), so that the size it
#: is asked for is one for the whole log, not what the entry on screen needs.
NEED_WIDTH = 80
#: The rows of the log's window that the size asked for keeps in sight.
LOG_ROWS = 3


def _compact(cards: Any, look: Look) -> StyleAndTextTuples:
    """Cards close together (melds, the pile): no padding."""
    out: StyleAndTextTuples = []
    for i, c in enumerate(cards):
        if i:
            out.append(("", " "))
        out.append((look.card_class(c), look.name(c)))
    return out


def sorted_cards(cards: tuple[Card | None, ...]) -> list[Card | None]:
    """Known cards by suit and rank, unknown ones after them."""
    known = sorted((c for c in cards if c is not None), key=card_order)
    return [*known, *(None for c in cards if c is None)]


def _seat_lines(seat: Seat, frame: Frame, look: Look, replay: Replay) -> StyleAndTextTuples:
    out: StyleAndTextTuples = []
    role = FEEDS[seat.player]
    marker = ("class:turn", "▶ " if not look.ascii else "> ") if seat.to_move else ("", "  ")
    out.append(marker)
    out.append(("class:title", f"{seat.name} ({role})"))
    score = "final " if frame.totals else ""
    out.append(("", f" · {score}score {seat.score}"))
    if seat.dealer:
        out.append(("class:dim", " · dealer"))
    if seat.to_move:
        out.append(("class:turn", " · to move"))
    if frame.view in ("host", "guest") and NAMES.index(frame.view) == seat.player and \
            not replay.has_secrets(seat.player):  # fmt: skip
        out.append(("class:dim", " · no secrets file: own cards only once opened"))
    out.append(("", "\n"))
    if frame.stock is not None:
        out.append(("", "   "))
        d = seat.declaration
        if d is None:
            out.extend(look.cards(sorted_cards(seat.cards)) or [("class:dim", "(no cards)")])
            out.extend(_deadwood(seat.cards, replay))
        else:
            for m in d.melds:
                out.append(("class:dim", "["))
                out.extend(_compact(meld_order(m), look))
                out.append(("class:dim", "] "))
            if d.layoffs:
                out.append(("class:dim", "laid off "))
                out.extend(_compact([x.card for x in d.layoffs], look))
                out.append(("", " "))
            out.append(("class:dim", "deadwood "))
            out.extend(_compact(sorted_cards(d.deadwood_cards), look) or [("class:dim", "none")])
            out.append(("", f" ({d.deadwood})"))
        out.append(("", "\n"))
    return out


def _deadwood(cards: tuple[Card | None, ...], replay: Replay) -> StyleAndTextTuples:
    """The least deadwood of a whole known hand (not in the middle of a turn)."""
    rules = replay.rules
    if rules is None or None in cards or len(cards) != rules.hand_size:
        return []
    known = [c for c in cards if c is not None]
    return [("class:dim", f"  · deadwood {melds.min_deadwood(known, rules)}")]


def table_lines(frame: Frame, look: Look, replay: Replay, width: int = 200
                ) -> StyleAndTextTuples:  # fmt: skip
    """The table at one step: the two seats, the stock and the pile, the result (wrapped
    to ``width``: its score comes last)."""
    out: StyleAndTextTuples = []
    step = frame.step
    bottom = GUEST if frame.view == "guest" else HOST
    top = 1 - bottom
    out.extend(_seat_lines(frame.seats[top], frame, look, replay))
    out.append(("", "\n"))
    if frame.stock is not None:
        out.append(("", f"   stock {frame.stock}"))
        if frame.next_stock is not None:
            out.append(("class:dim", " (next "))
            out.extend(_compact([frame.next_stock], look))
            out.append(("class:dim", ")"))
        out.append(("", f" · pile {len(frame.pile)}"))
        if frame.pile:
            out.append(("", ": "))
            under = frame.pile[:-1][-6:]
            if len(frame.pile) > 7:
                out.append(("class:dim", "… "))
            if under:
                out.extend(_compact(under, look))
                out.append(("", " "))
            out.append(("class:title", "top "))
            up = frame.pile[-1]
            out.append((look.card_class(up) + " class:card.selected", look.name(up)))
        out.append(("", "\n"))
    else:
        out.append(("class:dim", f"   hand {frame.hand}: {phase_words(step)}\n"
                    if frame.hand else "   setting up the match\n"))  # fmt: skip
    if frame.result is not None:
        words = f"hand {frame.hand}: {result_words(frame.result, replay.names)}"
        out.extend(_wrapped("", "   " + words, width))
    else:
        out.append(("", "\n"))
    out += [("class:dim", f"   {line}\n") for line in sheet(frame, replay)]
    out.append(("", "\n"))
    out.extend(_seat_lines(frame.seats[bottom], frame, look, replay))
    return out


def sheet(frame: Frame, replay: Replay) -> list[str]:
    """Once the match is over: from the hands' points to the final totals, so that a
    final score with its bonuses adds up on the screen."""
    m = frame.step.match
    if not frame.totals or m is None:
        return []
    return match_summary(m, HOST, replay.names).sum_lines()


def _entry_label(step: Step) -> str:
    where = f"hand {step.hand}" if step.hand else "set-up"
    return f"{step.index + 1:>4}  {where:<7} {FEEDS[step.author]:<5} #{step.seq:<4} {step.kind:<12}"


#: The flag column of the entry list: the audit's cheat, and entries without effect.
FLAGS = {"cheat": ("class:cheat", "!"), "void": ("class:warn", "~"), "after": ("class:warn", "~")}


def _fit(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(width - 1, 0)] + "…"


def _entries(viewer: Viewer, rows: int, width: int) -> StyleAndTextTuples:
    """A window of the log around the current entry, the current one highlighted."""
    r = viewer.replay
    rows = max(rows, 1)
    start = max(0, min(viewer.index - rows // 2, len(r) - rows))
    out: StyleAndTextTuples = []
    for s in r.steps[start : start + rows]:
        here = s.index == viewer.index
        style = "reverse" if here else ""
        flag_style, flag = FLAGS[s.mark.level] if s.mark is not None else ("", " ")
        text = f"{_entry_label(s)} {r.describe(s, viewer.view, viewer.look.name)}"
        out.append((style, ">" if here else " "))
        out.append((f"{style} {flag_style}", flag))
        out.append((style, _fit(text, width - 2)))
        out.append(("", "\n"))
    return out


def _wrapped(style: str, text: str, width: int) -> StyleAndTextTuples:
    lines = textwrap.wrap(text, max(width, 20), subsequent_indent="  ") or [""]
    return [(style, "\n".join(lines) + "\n")]


def header(viewer: Viewer, width: int = 200) -> StyleAndTextTuples:
    """Two lines: the game and its verdict; where we are and whose view. On a narrow
    screen the less needed words go first (the file name, the seats, "ginp2p", which
    settings ``--set`` changed), so the verdict and the view stay in sight."""
    r = viewer.replay
    rep = r.report
    step = r.steps[viewer.index]
    name = r.path.name if r.path is not None else "log"
    verdict = str(rep.verdict).upper()
    vstyle = {"CLEAN": "class:turn", "CHEATED": "class:cheat"}.get(verdict, "class:warn")
    preset = f" · {preset_words(r.rules)}" if r.rules is not None else ""
    short = f" · {preset_short(r.rules)}" if r.rules is not None else ""
    seats, pair = f"{r.names[0]} (host) vs {r.names[1]} (guest)", f"{r.names[0]} vs {r.names[1]}"
    first: StyleAndTextTuples = []
    for title, players, rules, tail in (("ginp2p replay", seats, preset, f" · {name}"),
                                        ("ginp2p replay", seats, preset, ""),
                                        ("replay", pair, preset, ""),
                                        ("replay", pair, short, "")):  # fmt: skip
        first = [("class:title", title), ("", f" · {players}{rules} · audit "),
                 (vstyle, verdict), ("class:dim", tail)]  # fmt: skip
        if len(fragment_list_to_text(first)) <= width:
            break
    where = f"hand {step.hand} · {phase_words(step)}" if step.hand else "set-up"
    view = r.view_name(viewer.view)
    second = f"entry {viewer.index + 1} of {len(r)} · {where} · view: {view}"
    if len(second) > width:  # the view's seat, and the count of entries, can go
        second = f"entry {viewer.index + 1} · {where} · view: {view.split(' (')[0]}"
    out: StyleAndTextTuples = [*first, ("", "\n"), ("", second)]
    if viewer.digits:
        out.append(("class:warn", f" · typed {viewer.digits}"))
    out.append(("", "\n"))
    return out


def story(viewer: Viewer, width: int = 80) -> StyleAndTextTuples:
    """What the current entry did, its mark, and where the game stands."""
    r = viewer.replay
    f = viewer.frame
    step = f.step
    head = f"{FEEDS[step.author]} entry {step.seq}: "
    said = _wrapped("", head + r.describe(step, viewer.view, viewer.look.name), width)
    out: StyleAndTextTuples = [("class:title", head), ("", said[0][1][len(head) :])]
    if step.mark is not None:
        style = "class:cheat" if step.mark.level == "cheat" else "class:warn"
        out.extend(_wrapped(style, step.mark.text, width))
    if f.status:
        out.extend(_wrapped("class:dim", f.status, width))
    if viewer.message:
        out.extend(_wrapped("class:warn", viewer.message, width))
    return out


def rule(width: int, look: Look) -> StyleAndTextTuples:
    return [("class:dim", ("-" if look.ascii else "─") * max(width, 10) + "\n")]


#: The arrow keys in words, for ``--ascii``: its stand-ins for the arrows (``v``, ``^``)
#: read as keys, and ``v`` is the view's.
ARROW_WORDS = {"→": "Right", "←": "Left", "↓": "Down", "↑": "Up"}


def help_lines(ascii: bool = False, width: int = 200, views: bool = True) -> StyleAndTextTuples:
    """The keys (a long one goes on under its words), and with ``views`` what the views
    show, wrapped to ``width``."""
    keys: StyleAndTextTuples = [("class:title", "Keys\n")]
    for k, what in KEYS:
        if ascii:
            k = " ".join(ARROW_WORDS.get(x, x) for x in k.split(" "))
        keys.append(("", f"  {k:<16} {what}\n"))
    column = 2 + 16 + 1  # where a key's words begin
    out = wrap(keys, width, indent=column if width >= 2 * column else 4)
    if views:
        out.extend(_wrapped("", "", width))
        out.extend(_wrapped("", "Views: public (what an onlooker saw; everything once a hand's "
                            "seeds are opened), host / guest (that player's own cards too, "
                            "from their secrets file or the openings), all (every card the "
                            "log proves).", width))  # fmt: skip
    return out


def _help(viewer: Viewer, width: int, rows: int) -> StyleAndTextTuples:
    """The help in ``rows`` lines: the views go first, then the keys are cut short with
    a last line that says what size shows it all (it does not scroll)."""
    ascii = viewer.look.ascii
    for views in (True, False):
        out = help_lines(ascii, width, views)
        if _lines(out) <= rows:
            return out
    w = NEED_WIDTH - 1
    need = _lines(wrap(header(viewer, w), w)) + 1 + _lines(help_lines(ascii, w)) + 1
    last = _wrapped("class:warn", f"(cut short: {NEED_WIDTH}x{need} shows the whole help)", width)
    kept: StyleAndTextTuples = []
    for line in list(split_lines(out))[: max(rows - _lines(last), 0)]:
        kept.extend([*line, ("", "\n")])
    return kept + last


def audit_lines(replay: Replay, width: int = 80) -> StyleAndTextTuples:
    """The `a` page: the audit's report without its first line (the verdict is in the
    title; an exit code means nothing in the viewer), then the replay's notes other
    than the damage, which the report has said already."""
    rep = replay.report
    out: StyleAndTextTuples = [("class:title", f"Audit: {str(rep.verdict).upper()}\n")]
    # the report quotes a player's words (a false dispute's rule): shown line by line as
    # a screen may show them, split only where the report itself breaks its lines
    for line in map(for_screen, rep.text().split("\n")[1:]):
        indent = len(line) - len(line.lstrip())
        lines = textwrap.wrap(line, max(width, 20), subsequent_indent=" " * (indent + 2))
        out.append(("", "\n".join(lines) + "\n"))
    for note in replay.notes:
        if not note.startswith(DAMAGED):
            out.extend(_wrapped("class:warn", note, width))
    return out


def screen(viewer: Viewer, width: int = 80, height: int = 40) -> StyleAndTextTuples:
    """The whole screen as formatted text (the application shows exactly this)."""
    return viewer.look.fragments(_screen(viewer, width, height))


def _screen(viewer: Viewer, width: int, height: int) -> StyleAndTextTuples:
    look = viewer.look
    out: StyleAndTextTuples = [*wrap(header(viewer, width), width), *rule(width, look)]
    if viewer.help or viewer.audit:
        if viewer.message:  # a key's answer, where the story is hidden
            out.extend(_wrapped("class:warn", viewer.message, width))
        out.extend(_help(viewer, width, height - _lines(out)) if viewer.help
                   else audit_lines(viewer.replay, width))  # fmt: skip
        return out
    table = _table(viewer, width)
    if width < MIN_WIDTH or _lines(out) + _lines(table) > height:  # no hand cut off in silence
        if viewer.rows_needed is None:  # measured once: only a screen too small asks
            viewer.rows_needed = needed_rows(viewer.replay, look)
        need = (max(NEED_WIDTH, width + 1), viewer.rows_needed)
        # the terminal is a column wider (left free) and a row taller (the footer)
        return join_rows(too_small(width + 1, height + 1, *need), width)
    out.extend(table)
    out.extend(_story(viewer, width))
    out.extend(_entries(viewer, height - _lines(out) - 1, width))
    return out


def _table(viewer: Viewer, width: int) -> StyleAndTextTuples:
    return wrap(table_lines(viewer.frame, viewer.look, viewer.replay, width), width)


def _story(viewer: Viewer, width: int) -> StyleAndTextTuples:
    """The story between two rules, as the screen has it under the table."""
    return [*rule(width, viewer.look), *story(viewer, width), *rule(width, viewer.look)]


def _lines(fragments: StyleAndTextTuples) -> int:
    return fragment_list_to_text(fragments).count("\n")


def needed_rows(replay: Replay, look: Look) -> int:
    """The rows that show every entry of the log whole at ``NEED_WIDTH`` columns, in every
    view: the header, the table, the story and ``LOG_ROWS`` of the log. Asking for what
    the entry on screen needed moved the target at each step. About 0.2 ms an entry
    and view, once."""
    w = NEED_WIDTH - 1  # the screen leaves its last column free
    # The all view names every card another view does, so it is as tall, but a
    # player's view without their secrets file adds a note to their seat.
    views = ["all", *(NAMES[p] for p in (HOST, GUEST) if not replay.has_secrets(p))]
    named = max(VIEWS, key=lambda x: len(replay.view_name(x)))  # the widest header
    tops: dict[tuple[int, int, str], int] = {}  # a header's lines, by what varies in it
    most = 0
    for i, step in enumerate(replay.steps):
        key = (len(str(i + 1)), step.hand, phase_words(step))
        if key not in tops:  # and a rule under it
            tops[key] = _lines(wrap(header(Viewer(replay, i, named, look), w), w)) + 1
        top = tops[key]
        for view in views:
            v = Viewer(replay, i, view, look)
            most = max(most, top + _lines(_table(v, w)) + _lines(_story(v, w)))
    return most + LOG_ROWS + 2  # the log's window keeps a row spare; the footer
