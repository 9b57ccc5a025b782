"""The replay viewer: a full-screen prompt_toolkit application over a :class:`Replay`.

The screen is drawn by pure functions (:func:`screen`, :func:`table_lines`) from a
:class:`Viewer` (where we are, which view, what is typed); the key bindings only move
the viewer. The same functions give the non-interactive forms: :func:`frame_text`
(one step as plain text, ``--at``) and :func:`plain_lines` (the steps as lines of
words, ``--plain``), for scripts and screen readers.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from prompt_toolkit.application import Application
from prompt_toolkit.formatted_text import StyleAndTextTuples, fragment_list_to_text, split_lines
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys
from prompt_toolkit.layout import HSplit, Layout, Window
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.layout.dimension import Dimension

from ginp2p.console.tui.keys import (
    IDLE_KEYS,
    does_nothing,
    key_name,
    redraw_when_continued,
    unechoed,
)
from ginp2p.console.tui.look import Look
from ginp2p.console.tui.render import MIN_WIDTH, join_rows, too_small, wrap
from ginp2p.game import melds
from ginp2p.game.cards import Card, card_order
from ginp2p.present.charset import encodes
from ginp2p.present.view import match_summary, meld_order
from ginp2p.present.words import (
    count,
    for_screen,
    hands_words,
    preset_short,
    preset_words,
    result_words,
)
from ginp2p.proto.log import GUEST, HOST
from ginp2p.proto.table import NAMES
from ginp2p.record.replay import DAMAGED, VIEWS, Frame, Replay, Seat, Step, phase_words

__all__ = [
    "KEYS",
    "Viewer",
    "build_app",
    "frame_text",
    "no_hand_words",
    "plain_lines",
    "run",
    "screen",
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
FOOTER = "→/← entry  ↓/↑ move  n/p hand  g/G ends  m mark  v view  a audit  ? help  q quit"
#: With --ascii the arrows' stand-ins would read like keys (v is the view key): letters.
FOOTER_ASCII = "l/h entry  j/k move  n/p hand  g/G ends  m mark  v view  a audit  ? help  q quit"
FOOTER_SHORT = "? help (all the keys)  v view  a audit  q quit"
FEEDS = ("host", "guest")
#: The width a screen too small is asked to have (a common one), so that the size it
#: is asked for is one for the whole log, not what the entry on screen needs.
NEED_WIDTH = 80
#: The rows of the log's window that the size asked for keeps in sight.
LOG_ROWS = 3


def no_hand_words(number: int, hands: list[int], setup: str) -> str:
    """Why there is no hand ``number`` to go to, the same for ``--hand`` and the viewer's
    ``N Enter``: hands count from 1 (the set-up is where ``setup`` says), and the log
    reaches only ``hands``."""
    have = f" ({hands_words(hands)})" if hands else ""
    if number < 1:
        return f"hands are numbered from 1{have}; the set-up before the first deal {setup}"
    return f"the log has no hand {number}{have}"


# ------------------------------------------------------------------------ state


@dataclass
class Viewer:
    """Where the viewer stands: the step, the view, what is typed, what is open."""

    replay: Replay
    index: int = 0
    view: str = "public"
    look: Look = field(default_factory=Look)
    digits: str = ""
    help: bool = False
    audit: bool = False
    message: str = ""
    _rows: int | None = field(default=None, init=False, repr=False)

    def go(self, index: int) -> None:
        self.index = self.replay.clamp(index)
        self.message = ""

    def _towards(self, index: int, end: str) -> None:
        """Go to ``index``, or say there is nothing further that way: the table answers
        every key, and a key that does nothing in silence reads as one not taken."""
        if self.replay.clamp(index) == self.index:
            self.message = f"already at the {end} entry"
        else:
            self.go(index)

    def forward(self) -> None:
        self._towards(self.index + 1, "last")

    def back(self) -> None:
        self._towards(self.index - 1, "first")

    def next_move(self) -> None:
        self._towards(self.replay.next_move(self.index), "last")

    def prev_move(self) -> None:
        self._towards(self.replay.prev_move(self.index), "first")

    def next_hand(self) -> None:
        self._towards(self.replay.next_hand(self.index), "last")

    def prev_hand(self) -> None:
        self._towards(self.replay.prev_hand(self.index), "first")

    def first(self) -> None:
        self._towards(0, "first")

    def last(self) -> None:
        self._towards(len(self.replay) - 1, "last")

    def hand(self, number: int) -> None:
        """Hand ``number`` (``N Enter``), counted from 1 as ``--hand`` counts them: 0 is
        no hand, though the log's set-up is filed under it."""
        start = self.replay.hand_start(number) if number >= 1 else None
        if start is None:
            self.message = no_hand_words(number, self.replay.hands, "is entry 1 (1 g, or Home)")
        else:
            self.go(start)

    def entry(self, number: int) -> None:
        """Entry ``number``, counted from 1 as the screen shows them."""
        if not 1 <= number <= len(self.replay):
            self.message = f"the log has entries 1-{len(self.replay)}"
        else:
            self.go(number - 1)

    def next_mark(self) -> None:
        found = self.replay.next_mark(self.index)
        if found is None:
            self.message = "the audit marks no entry of this log"
        else:
            self.go(found)

    def cycle_view(self) -> None:
        self.view = VIEWS[(VIEWS.index(self.view) + 1) % len(VIEWS)]
        self.message = ""

    def type_digit(self, d: str) -> None:
        self.digits = (self.digits + d)[-6:]

    def take_number(self) -> int | None:
        n = int(self.digits) if self.digits else None
        self.digits = ""
        return n

    @property
    def frame(self) -> Frame:
        return self.replay.frame(self.index, self.view)

    def rows_needed(self) -> int:
        """:func:`needed_rows`, measured once: only a screen too small asks for it."""
        if self._rows is None:
            self._rows = needed_rows(self.replay, self.look)
        return self._rows


# ------------------------------------------------------------------------ drawing


def _compact(cards: Any, look: Look) -> StyleAndTextTuples:
    """Cards close together (melds, the pile): no padding."""
    out: StyleAndTextTuples = []
    for i, c in enumerate(cards):
        if i:
            out.append(("", " "))
        out.append((look.card_class(c), look.name(c)))
    return out


def _sorted(cards: tuple[Card | None, ...]) -> list[Card | None]:
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
            out.extend(look.cards(_sorted(seat.cards)) or [("class:dim", "(no cards)")])
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
            out.extend(_compact(_sorted(d.deadwood_cards), look) or [("class:dim", "none")])
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


def _rule(width: int, look: Look) -> StyleAndTextTuples:
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
    out: StyleAndTextTuples = [*wrap(header(viewer, width), width), *_rule(width, look)]
    if viewer.help or viewer.audit:
        if viewer.message:  # a key's answer, where the story is hidden
            out.extend(_wrapped("class:warn", viewer.message, width))
        out.extend(_help(viewer, width, height - _lines(out)) if viewer.help
                   else audit_lines(viewer.replay, width))  # fmt: skip
        return out
    table = _table(viewer, width)
    if width < MIN_WIDTH or _lines(out) + _lines(table) > height:  # no hand cut off in silence
        need = (max(NEED_WIDTH, width + 1), viewer.rows_needed())
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
    return [*_rule(width, viewer.look), *story(viewer, width), *_rule(width, viewer.look)]


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


# ------------------------------------------------------------------------ plain forms


def frame_text(replay: Replay, index: int, view: str, look: Look | None = None) -> str:
    """One step as plain text (no colour, no keys): what ``--at`` prints."""
    viewer = Viewer(replay, replay.clamp(index), view, look or Look(colour=False))
    out: StyleAndTextTuples = []
    out.extend(header(viewer, 80))  # as a terminal's: the file name was named to us
    out.extend(_rule(72, viewer.look))
    out.extend(table_lines(viewer.frame, viewer.look, replay))
    out.extend(_rule(72, viewer.look))
    out.extend(story(viewer, 72))
    text = fragment_list_to_text(viewer.look.fragments(out))
    return "\n".join(line.rstrip() for line in text.splitlines())


def _cards_text(cards: tuple[Card | None, ...], look: Look) -> str:
    return " ".join(look.name(c) for c in _sorted(cards)) or "-"


def plain_lines(replay: Replay, view: str, look: Look | None = None, *,
                moves: bool = False, hand: int | None = None) -> Iterator[str]:  # fmt: skip
    """The steps as lines of words: every entry (or only moves), the hands as ``view``
    sees them when dealt, each hand's result, the marks and the audit's verdict."""
    look = look or Look(colour=False)
    name = look.name
    r = replay
    rep = r.report
    preset = f", preset {preset_words(r.rules)}" if r.rules is not None else ""
    yield f"{r.names[0]} (host) vs {r.names[1]} (guest){preset}; {count(len(r), 'entry')}"
    yield f"view: {r.view_name(view)}; audit: {rep.verdict}"
    yield from r.notes
    summed = False  # the final score is added up once, where the match ends
    for s in r.steps:
        if hand is not None and s.hand != hand:
            continue
        f = r.frame(s.index, view)
        if (
            not moves
            or s.is_move
            or s.mark is not None
            or r.deals.get(f.hand) == s.index
            or r.reveals(s, view)
        ):
            where = f"hand {s.hand}" if s.hand else "set-up"
            said = r.describe(s, view, name)
            line = f"{s.index + 1:>4} {where}, {FEEDS[s.author]} #{s.seq}: {said}"
            if s.mark is not None:
                line += f"  [{s.mark.level.upper()}: {s.mark.text}]"
            yield line
        if r.deals.get(f.hand) == s.index:
            for seat in f.seats:
                yield f"       {seat.name} holds {_cards_text(seat.cards, look)}"
            if f.pile:
                yield f"       upcard {name(f.pile[-1])}"
        if f.result is not None and s.action is not None and s.hand_state is not None \
                and s.hand_state.over:  # fmt: skip
            scores = f"{r.names[0]} {f.seats[0].score}, {r.names[1]} {f.seats[1].score}"
            which = "final scores" if f.totals else "scores"
            yield f"       hand {f.hand}: {result_words(f.result, r.names)}; {which} {scores}"
        if f.totals and not summed:  # after the last hand's result, or a forfeit
            summed = True
            for line in sheet(f, r):
                yield f"       {line}"
    if hand is None or (r.steps and r.steps[-1].hand == hand):
        status = r.status(r.steps[-1])
        if status:
            yield f"end: {status}"


# ------------------------------------------------------------------------ the application


def _bindings(viewer: Viewer) -> KeyBindings:
    kb = KeyBindings()

    # First: the keys bound below, added later, win over these (the arrows, Home...).
    @kb.add(Keys.Any)
    def _unknown(event: KeyPressEvent) -> None:
        """A key of no use says so, as at the table (a terminal's report is no key)."""
        name = key_name(event.key_sequence[0].key)
        if name is not None:
            viewer.message = does_nothing(name)

    for key in IDLE_KEYS:
        kb.add(key)(_unknown)

    def on(*keys: str) -> Any:
        def wrap(fn: Any) -> Any:
            for k in keys:
                kb.add(k)(fn)
            return fn

        return wrap

    def plain(fn: Any) -> Any:
        """A movement key: typed digits are dropped first, and the help or the audit
        report closes, so the move is seen (it used to happen unseen behind them)."""

        def handler(event: KeyPressEvent) -> None:
            viewer.digits = ""
            viewer.help = viewer.audit = False
            fn()

        return handler

    for keys, fn in (
        (("right", "l", "."), viewer.forward),
        (("left", "h", ","), viewer.back),
        (("down", "j", "space"), viewer.next_move),
        (("up", "k"), viewer.prev_move),
        (("pagedown", "n", "]"), viewer.next_hand),
        (("pageup", "p", "["), viewer.prev_hand),
        (("home",), viewer.first),
        (("end", "G"), viewer.last),
        (("m",), viewer.next_mark),
        (("v",), viewer.cycle_view),
    ):
        on(*keys)(plain(fn))

    for d in "0123456789":

        @kb.add(d)
        def _digit(event: KeyPressEvent, d: str = d) -> None:
            viewer.type_digit(d)

    @kb.add("enter")
    def _hand(event: KeyPressEvent) -> None:
        n = viewer.take_number()
        if n is not None:
            viewer.hand(n)

    @kb.add("g")
    def _entry(event: KeyPressEvent) -> None:
        n = viewer.take_number()
        if n is None:
            viewer.first()
        else:
            viewer.entry(n)

    @kb.add("?")
    def _help(event: KeyPressEvent) -> None:
        viewer.help = not viewer.help
        viewer.audit = False
        viewer.message = ""  # the help is this key's answer, not the last key's

    @kb.add("a")
    def _audit(event: KeyPressEvent) -> None:
        viewer.audit = not viewer.audit
        viewer.help = False
        viewer.message = ""

    @kb.add("escape", eager=True)
    def _clear(event: KeyPressEvent) -> None:
        viewer.digits = ""
        viewer.help = viewer.audit = False

    @kb.add("q")
    @kb.add("c-c")
    def _quit(event: KeyPressEvent) -> None:
        event.app.exit(result=viewer.index)

    @kb.add("c-z")
    def _suspend(event: KeyPressEvent) -> None:
        """To the shell, as a terminal program goes (`fg` comes back): the viewer, unlike
        the table, keeps nobody waiting."""
        event.app.suspend_to_background()

    return kb


def footer_for(ascii: bool, width: int) -> str:
    """The keys line; on a narrow screen the short form, which still names help."""
    full = FOOTER_ASCII if ascii else FOOTER
    return full if len(full) < width else FOOTER_SHORT


def build_app(viewer: Viewer, **kw: Any) -> Application[int]:
    """The full-screen viewer; ``kw`` go to :class:`Application` (``input``,
    ``output`` for tests). ``run()`` returns the index of the last step shown."""

    def body() -> StyleAndTextTuples:
        from prompt_toolkit.application.current import get_app

        size = get_app().output.get_size()
        return screen(viewer, size.columns - 1, size.rows - 1)

    def footer() -> StyleAndTextTuples:
        from prompt_toolkit.application.current import get_app

        return [("reverse", footer_for(viewer.look.ascii, get_app().output.get_size().columns))]

    layout = Layout(HSplit([
        Window(FormattedTextControl(body), wrap_lines=False, height=Dimension(weight=1)),
        Window(FormattedTextControl(footer), height=1),
    ]))  # fmt: skip
    return Application(layout=layout, key_bindings=_bindings(viewer), style=viewer.look.style,
                       full_screen=True, **kw)  # fmt: skip


def run(replay: Replay, view: str, start: int = 0, look: Look | None = None) -> int:
    """Show the viewer until the user quits; returns the last step shown."""
    viewer = Viewer(replay, replay.clamp(start), view, look or Look.from_env())
    app = build_app(viewer)

    def mended() -> None:  # in the run's own loop, closed with its handlers at the end
        redraw_when_continued(app)

    result = app.run(pre_run=mended)
    return viewer.index if result is None else int(result)


# ------------------------------------------------------------------------ the command


def command(args: Any) -> int:
    """``ginp2p replay``: the viewer on a terminal; ``--plain`` / ``--moves`` / ``--at``
    (or no terminal) print text instead. Errors are one line on stderr: exit 1 for a file
    that cannot be replayed, 2 for a bad option value."""
    import sys

    from ginp2p.record.replay import ReplayError, load

    def fail(code: int, text: str) -> int:
        print(f"ginp2p replay: error: {text}", file=sys.stderr)
        return code

    try:
        with unechoed(sys.stdin):  # a key pressed now waits for the viewer, unshown
            replay = load(args.file, args.secrets or (), others=args.others)
    except ReplayError as exc:
        return fail(1, str(exc))
    try:
        view = replay.parse_view(args.view) if args.view else replay.default_view()
    except ValueError as exc:
        return fail(2, str(exc))
    start = 0
    if args.hand is not None and args.at is not None:
        return fail(2, "give --hand or --at, not both (--at numbers the entries of the log)")
    if args.moves and args.at is not None:
        return fail(2, "give --moves or --at, not both (--at prints one entry's table)")
    if args.hand is not None:
        # the audit's hand 0 is the set-up; here it is where --at 1 starts
        found = replay.hand_start(args.hand) if args.hand >= 1 else None
        if found is None:
            return fail(2, no_hand_words(args.hand, replay.hands, "starts at --at 1"))
        start = found
    interactive = sys.stdin.isatty() and sys.stdout.isatty()
    if args.at is not None or args.plain or args.moves or not interactive:
        ascii = args.ascii or not encodes(sys.stdout, "♥♦♣♠─·▶")
        look = Look(ascii=ascii, colour=False)
        if args.at is not None:
            text = str(args.at).strip().lower()
            if text == "end":
                index = len(replay) - 1
            elif text.isdigit() and 1 <= int(text) <= len(replay):
                index = int(text) - 1
            else:
                return fail(2, f"--at takes an entry number 1-{len(replay)} or 'end'")
            print(frame_text(replay, index, view, look))
        else:
            for line in plain_lines(replay, view, look, moves=args.moves, hand=args.hand):
                print(look.words(line))
            sys.stdout.flush()
        return 0
    run(replay, view, start, Look.from_env(ascii=args.ascii))
    return 0
