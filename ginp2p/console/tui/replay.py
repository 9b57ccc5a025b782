"""The replay viewer: a full-screen prompt_toolkit application over a :class:`Replay`,
and ``ginp2p replay`` itself.

The screen is drawn by pure functions (:mod:`.replay_screen`) from a
:class:`~.viewer.Viewer` (where we are, which view, what is typed); the key bindings
only move the viewer. The same functions give the non-interactive forms here:
:func:`frame_text` (one step as plain text, ``--at``) and :func:`plain_lines` (the
steps as lines of words, ``--plain``), for scripts and screen readers.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from prompt_toolkit.application import Application
from prompt_toolkit.formatted_text import StyleAndTextTuples, fragment_list_to_text
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
from ginp2p.console.tui.replay_screen import (
    FEEDS,
    header,
    rule,
    screen,
    sheet,
    sorted_cards,
    story,
    table_lines,
)
from ginp2p.console.tui.viewer import Viewer, no_hand_words
from ginp2p.game.cards import Card
from ginp2p.present.charset import encodes
from ginp2p.present.words import count, preset_words, result_words
from ginp2p.record.replay import Replay

__all__ = ["build_app", "command", "footer_for", "frame_text", "plain_lines", "run"]

FOOTER = "→/← entry  ↓/↑ move  n/p hand  g/G ends  m mark  v view  a audit  ? help  q quit"
#: With --ascii the arrows' stand-ins would read like keys (v is the view key): letters.
FOOTER_ASCII = "l/h entry  j/k move  n/p hand  g/G ends  m mark  v view  a audit  ? help  q quit"
FOOTER_SHORT = "? help (all the keys)  v view  a audit  q quit"


# ------------------------------------------------------------------------ plain forms


def frame_text(replay: Replay, index: int, view: str, look: Look | None = None) -> str:
    """One step as plain text (no colour, no keys): what ``--at`` prints."""
    viewer = Viewer(replay, replay.clamp(index), view, look or Look(colour=False))
    out: StyleAndTextTuples = []
    out.extend(header(viewer, 80))  # as a terminal's: the file name was named to us
    out.extend(rule(72, viewer.look))
    out.extend(table_lines(viewer.frame, viewer.look, replay))
    out.extend(rule(72, viewer.look))
    out.extend(story(viewer, 72))
    text = fragment_list_to_text(viewer.look.fragments(out))
    return "\n".join(line.rstrip() for line in text.splitlines())


def _cards_text(cards: tuple[Card | None, ...], look: Look) -> str:
    return " ".join(look.name(c) for c in sorted_cards(cards)) or "-"


def plain_lines(replay: Replay, view: str, look: Look | None = None, *,
                moves: bool = False, hand: int | None = None) -> Iterator[str]:  # fmt: skip
    """The steps as lines of words: every entry (or only moves), the hands as ``view``
    sees them when dealt, each hand's result, the marks and the audit's verdict."""
    look = look or Look(colour=False)
    name = look.name
    r = replay
    rep = r.report
    preset = f", preset {preset_words(r.rules)}" if r.rules is not None else ""
    yield f"{r.names[0]} (host) vs {r.names[1]} (guest){preset}; {count(rep.entries, 'entry')}"
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

    from ginp2p.files.records import load_replay
    from ginp2p.record.replay import ReplayError

    def fail(code: int, text: str) -> int:
        print(f"ginp2p replay: error: {text}", file=sys.stderr)
        return code

    try:
        with unechoed(sys.stdin):  # a key pressed now waits for the viewer, unshown
            replay = load_replay(args.file, args.secrets or (), others=args.others)
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
