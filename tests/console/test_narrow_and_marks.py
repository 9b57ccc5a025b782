"""The table at the edges a new user meets: a narrow or short terminal cuts nothing off
in silence (a hand's end, the table's rows, the help, which scrolls), ``--ascii`` names
keys that exist, the chosen card is marked only while a card is chosen, both suits get
the same card face, the score sheet says whose hands the box bonus counts and who pays,
and a resumed table says whom it connects to while its log shows moves from the file.

Drawn in-process as text (``TablePlayer.screen``, the overlays' rows), driven by keys
through a pipe input, and once in a real terminal (a tmux pane, 60x20, ``--ascii``)."""

from __future__ import annotations

import os
import re
import shlex
import signal
import sys
from collections.abc import Callable
from typing import Any

import pytest
from prompt_toolkit.data_structures import Size
from prompt_toolkit.formatted_text import fragment_list_to_text
from prompt_toolkit.output import DummyOutput

from ginp2p.console.line import LinePlayer
from ginp2p.console.tui.look import PLAIN, STYLE, Look
from ginp2p.console.tui.overlays import help_rows, match_rows, summary_rows
from ginp2p.console.tui.render import plain, table_rows
from ginp2p.console.tui.table import TablePlayer
from ginp2p.game import engine
from ginp2p.game.engine import DrawStock
from ginp2p.game.hand import HandEnd, HandResult
from ginp2p.game.match import MatchState, record_hand
from ginp2p.game.rules import get_preset
from ginp2p.present.draft import draft_from
from ginp2p.present.summary import hand_summary, match_summary, settlement
from ginp2p.present.view import Situation, build_view
from ginp2p.proto.results import MatchOver
from tests.console import test_tui_table as table_tests
from tests.console import test_tui_tmux as tmux_tests
from tests.console.test_tui_table import ASCII, RESUMED, FakeSeat, c, drawn_hand, run_table
from tests.console.test_tui_tmux import Pane
from tests.helpers import deal, play

#: The fixtures of the table's tests: a pipe for keys, and tmux panes.
pipe = table_tests.pipe
panes = tmux_tests.panes

RULES = get_preset("classic")
NAMES = ("Ann", "Computer")


class Sized(DummyOutput):
    """A terminal of a given size for the table run in-process (it draws at its size)."""

    def __init__(self, columns: int, rows: int) -> None:
        self.size = Size(rows=rows, columns=columns)

    def get_size(self) -> Size:
        return self.size


def text(player: TablePlayer, width: int, height: int) -> str:
    """What the terminal shows above the message and key rows (as ``screen`` draws it)."""
    return "\n".join(line.rstrip() for line in
                     fragment_list_to_text(player.screen(width, height)).split("\n"))  # fmt: skip


def key_bar(player: TablePlayer, width: int) -> str:
    return fragment_list_to_text(player.keys_line(width))


def showdown() -> tuple[Any, Any]:
    """Ann (seat 0) knocked with A♦; Computer lays off 10♥ and keeps 2♦ 3♦ 9♦ = 14: the
    hand's end and its scored result."""
    h = deal(RULES, "7H 8H 9H 4S 4D 4C JC QC KC 2S", "TH 5S 6S 7S 2D 3D 9D JD QD KD", "5H",
             "AD")  # fmt: skip
    h = play(h, engine.PassUpcard(), engine.PassUpcard(), DrawStock())
    knock = next(a for a in engine.legal_actions(h) if a.kind == "knock" and a.discard == c("2S"))
    h = play(h, knock)
    view = h.view(1)
    done = engine.apply(h, draft_from(engine.legal_actions(view)[0], view).action())
    return h, done.result


def won(seat: int, points: int) -> HandResult:
    """A hand ``seat`` won by a knock, for ``points``."""
    pts = (points, 0) if seat == 0 else (0, points)
    return HandResult(HandEnd.KNOCK, seat, pts, (pts[0] - pts[1], pts[1] - pts[0]))


def sheet(rules: Any, *hands: HandResult) -> MatchState:
    m = MatchState(rules=rules, dealer=1, hand_no=1)
    for r in hands:
        m = record_hand(m, r)
    assert m.over, "the hands end the match"
    return m


def words(rows: Any) -> str:
    """The rows' words, whatever rows they were broken over."""
    return " ".join(plain(rows).split())


# ------------------------------------------------------------------------ --ascii's keys


def test_ascii_names_the_arrow_keys_left_and_right(pipe: Any) -> None:
    """``--ascii`` wrote ``choose a card with </>``, and ``<`` does nothing: the arrow
    keys are named, on the turn line, in the key bar, the help and a refusal; an arrow
    that is no key (a layoff's) stays."""
    s = FakeSeat(drawn_hand())

    async def script(player: TablePlayer, send: Any) -> None:
        screen = text(player, 80, 22)
        assert "choose a card with Left/Right and discard it (Enter)" in screen, screen
        assert "</>" not in screen and "< >" not in screen
        assert key_bar(player, 80).startswith(" Left/Right card   Enter discard ")
        await send("?")
        helped = text(player, 80, 22)
        assert "Left/Right  choose a card in your hand" in helped, helped
        assert "<" not in helped and ">" not in helped.split("\n", 3)[-1]

    run_table(pipe, s, script, output=Sized(80, 24))
    assert ASCII.words("no card chosen (←/→)") == "no card chosen (Left/Right)"
    assert ASCII.words("10♥→[7♥ 8♥ 9♥]") == "TH>[7H 8H 9H]", "a layoff's arrow is no key"
    symbols = Look(ascii=False, colour=False)
    assert symbols.words("choose a card with ←/→") == "choose a card with ←/→"


# ------------------------------------------------------------------------ marks, colours


def test_the_chosen_card_is_marked_only_while_a_card_is_chosen() -> None:
    """The ``^^`` marker stood under a card while the only moves were take or pass."""
    h = deal(RULES, "7H 8H 9H 4S 4D 4C 2C 3D AS TH", "5S 6S 7S 2D 9D JD QD KD 6C 8C", "5H",
             "KS")  # fmt: skip

    def marked(state: Any, me: int = 0) -> bool:
        v = build_view(Situation(me=me, names=NAMES, hand=state.view(me),
                                 my_turn=state.to_move == me))  # fmt: skip
        return "^^" in plain(table_rows(v, ASCII, 80, selected=c("AS")))

    assert not marked(h), "take or pass the upcard: no card is chosen"
    passed = play(h, engine.PassUpcard(), engine.PassUpcard())
    assert not marked(passed), "draw from the stock: no card is chosen"
    drawn = play(passed, DrawStock())
    assert marked(drawn), "a discard: the chosen card is marked"
    assert not marked(drawn, me=1), "the other player's turn"


def test_both_suits_are_drawn_on_the_same_light_card() -> None:
    """Black suits had a bright background and red ones none."""
    red, black = (STYLE.get_attrs_for_style_str(f"class:card.{s}") for s in ("red", "black"))
    assert red.bgcolor and red.bgcolor == black.bgcolor, (red, black)
    assert red.color != black.color
    plain_red = PLAIN.get_attrs_for_style_str("class:card.red")
    assert not plain_red.bgcolor and not plain_red.color, "NO_COLOR: no colour at all"


# ------------------------------------------------------------------------ narrow panes


def test_the_end_of_a_hand_in_a_narrow_pane_keeps_every_card_and_total() -> None:
    """At 60 columns the hand's end dropped the deadwood cards and the total of the
    longer declaration with no mark. Now it goes on under itself: every card, each
    total with its last card, no meld broken, nothing cut."""
    h, result = showdown()
    s = hand_summary(1, result, (13, 0), 1, NAMES, RULES)
    wide = plain(summary_rows(s, ASCII, 80))
    assert "laid off TH deadwood 2D 3D 9D = 14" in wide, wide
    for width in (60, 40):
        rows = summary_rows(s, ASCII, width)
        lines = plain(rows).splitlines()
        assert all(len(line) <= width for line in lines), (width, lines)
        shown = " ".join(lines)
        assert "…" not in shown
        for card in (*h.view(0).cards(0), *h.view(1).cards(1)):
            if card is not None:
                assert ASCII.name(card) in shown, (width, card)
        assert re.search(r"\b9D = 14\b", shown) and re.search(r"\bAD = 1\b", shown), lines
        assert all(line.count("[") == line.count("]") for line in lines), "no meld broken"
        assert "laid off TH deadwood 2D 3D 9D = 14" in words(rows)


def test_the_table_in_a_narrow_pane_cuts_nothing(pipe: Any) -> None:
    """The turn line and the hint row went past 60 columns, cut; under ``--ascii`` a cut
    row ran a column past the edge (its ``…`` is ``..``)."""
    s = FakeSeat(drawn_hand())

    async def script(player: TablePlayer, send: Any) -> None:
        screen = text(player, 60, 18)
        lines = screen.splitlines()
        assert all(len(line) <= 60 for line in lines), lines
        assert ".." not in screen and "…" not in screen, screen
        said = " ".join(screen.split())
        assert "your turn: choose a card with Left/Right and discard it (Enter)" in said
        assert re.search(r"Enter discards \w\w \(deadwood \d+\) \| k", said), said
        assert "= 16" in screen and "^^" in screen
        bar = key_bar(player, 40)  # too narrow for the keys: a mark, and ? help kept
        assert bar.rstrip().endswith("? help") and ".." in bar, bar
        assert len(bar.rstrip()) <= 40
        # below 60 columns the header had no room for the other player's score, and
        # dropped it without a mark: a line each
        top = text(player, 40, 18).splitlines()[:4]
        assert top[1:3] == [" Ann (you) 0 | 0 hands won", " Bot 0 | 0 hands won"], top
        assert all(len(line) <= 40 for line in top), top

    run_table(pipe, s, script, output=Sized(60, 20))


def test_the_help_scrolls_in_a_short_pane(pipe: Any) -> None:
    """At 60x20 the help was cut off after its first rows and could not scroll: every
    line is whole, its last row says what is left and which keys scroll, and they do."""
    s = FakeSeat(drawn_hand())
    last = "lay them one by one."

    async def script(player: TablePlayer, send: Any) -> None:
        await send("?")
        top = text(player, 60, 18)
        lines = top.splitlines()
        assert lines[3].startswith(" help | classic | Esc closes it"), top
        assert all(len(line) <= 60 for line in lines) and "…" not in top
        assert re.search(r"Down/PgDn: \d+ more rows$", lines[-1]), top
        assert last not in top
        assert "Up/Down PgUp PgDn scroll" in key_bar(player, 60)
        first = lines[4]
        await send("\x1b[B")  # Down: a row
        assert text(player, 60, 18).splitlines()[4] == lines[5] != first
        await send("\x1b[6~\x1b[6~\x1b[6~")  # PgDn, past the end: it stops there
        end = text(player, 60, 18)
        assert last in end and "the end of the help | Up/PgUp: back up" in end, end
        every = plain(help_rows(60, RULES, ASCII))  # all of it was on the way
        assert "Left/Right  choose a card in your hand" in every
        await send("\x1b[H")  # Home
        assert text(player, 60, 18).splitlines()[4] == first
        await send("\x1b")  # Esc closes; opened again, it starts at its top
        assert "help |" not in text(player, 60, 18)
        await send("\x1b[F?")  # End does nothing at the table; ? opens the help
        assert text(player, 60, 18).splitlines()[4] == first

    run_table(pipe, s, script, output=Sized(60, 20))


# ------------------------------------------------------------------------ the score sheet


def test_the_box_bonus_says_whose_hands_it_counts() -> None:
    """Classic pays the box bonus to the winner only: Ann won a hand and read
    ``+ 25 for each hand won   0``."""
    m = sheet(RULES.with_(game_target=20), won(0, 5), won(1, 30))
    rows = plain(match_rows(match_summary(m, 0, NAMES), 60, True))
    assert re.search(r"\+ 25 per hand won by the winner\s+0\s+25\n", rows), rows
    assert all(len(line) <= 60 for line in rows.splitlines())
    hoyle = sheet(get_preset("hoyle").with_(game_target=20), won(0, 5), won(1, 30))
    each = plain(match_rows(match_summary(hoyle, 0, NAMES), 60, True))
    assert re.search(r"\+ 20 for each hand won\s+20\s+20\n", each), each


def test_a_winner_with_the_smaller_total_is_told_to_pay(pipe: Any) -> None:
    """Hoyle's box bonuses go to both: Computer won two small hands, Ann the match with
    one, and ends with the smaller total, which pays the difference. The score sheet
    said who won and nothing about who pays: on the table, at the line prompt."""
    hoyle = get_preset("hoyle").with_(game_target=20, game_bonus=0)
    m = sheet(hoyle, won(1, 3), won(1, 4), won(0, 25))
    assert m.winner == 0 and m.totals == (45, 47) and m.margin == -2
    assert settlement(m) == (0, 1, 2), "the winner pays"
    table = plain(match_rows(match_summary(m, 0, NAMES), 60, True))
    assert "MATCH OVER: you win" in table
    assert "the smaller total pays the difference: you pay Computer 2" in words(
        match_rows(match_summary(m, 0, NAMES), 60, True)), table  # fmt: skip
    assert "wins by" not in table and all(len(line) <= 60 for line in table.splitlines())
    theirs = plain(match_rows(match_summary(m, 1, NAMES), 60, True))
    assert "the smaller total pays the difference: Ann pays you 2" in " ".join(theirs.split())
    # the line prompt: MATCH OVER, then the score sheet, which ends in who pays
    seat = FakeSeat(drawn_hand(), names=("you", "Computer"), own_names=NAMES)
    seat.__class__ = type("Over", (FakeSeat,), {"match": property(lambda _: m)})
    LinePlayer().event(seat, MatchOver(0, m.end, m.totals))
    said = "\n".join(seat.said)
    assert said.startswith("MATCH OVER: you win (reached the target)"), said
    assert said.rstrip().endswith("the smaller total pays the difference: you pay Computer 2")
    # a winner with the larger total (a shutout: 25 + 200 + 20) is paid, as "wins by" says
    ahead = sheet(hoyle, won(0, 25))
    assert settlement(ahead) == (1, 0, 245)
    assert match_summary(ahead, 0, NAMES).sum_lines("you")[-1] == "you win by 245"


@pytest.mark.e2e
def test_at_a_terminal_the_showdown_answers_a_key_and_the_winner_is_told_to_pay(
        panes: Callable[..., Pane]) -> None:  # fmt: skip
    """The two above in a real terminal, over a fixed seat (a live game reaches them only
    by chance): a key of no use in one's own showdown says so, and the score sheet of
    a hoyle match won with the smaller total ends in who pays."""
    show = panes(80, 30, "showdown", command="fixed")
    settle = panes(80, 30, "settlement", command="fixed")
    show.wait("Enter: send it | e: change the melds")
    show.keys("s")
    said = show.wait("s does nothing in your showdown")
    assert "Enter sends it, e changes the melds (? lists the keys)" in " ".join(said.split())
    sheet = settle.wait("MATCH OVER: you win")
    assert "the smaller total pays the difference: you pay Computer 2" in sheet, sheet
    assert "wins by" not in sheet
    for pane in (show, settle):
        pane.keys("q")
    show.wait("leave the game?")
    show.keys("y")
    for pane in (show, settle):
        assert "EXIT=0" in pane.wait("EXIT="), pane.screen()


# ------------------------------------------------------------------------ a resumed table


def test_a_resumed_table_says_whom_it_connects_to_and_where_moves_came_from(pipe: Any) -> None:
    """After a resume the header said ``connecting..`` for seconds while the log showed
    the other player's move as if it had just come."""
    s = FakeSeat(drawn_hand(), me=1, link_up=False)
    s.events = RESUMED

    async def script(player: TablePlayer, send: Any) -> None:
        screen = text(player, 80, 22)
        top = screen.splitlines()[0]
        assert top.rstrip().endswith("connecting to Ann.."), top
        assert "from the saved game: Ann drew from the stock" in screen, screen
        s.link_up = True
        player.refresh()
        assert "connected | 4 ms" in text(player, 80, 22).splitlines()[0]

    run_table(pipe, s, script, output=Sized(80, 24))


# ------------------------------------------------------------------------ in a real terminal


SGR = re.compile(r"((?:\x1b\[[0-9;]*m)+)([2-9TJQKA])([SHDC])\b")


def card_faces(pane: Pane) -> int:
    """How many backgrounds the cards of the hand and the pile have on screen, both
    colours of suit present (read from ``capture-pane -e``'s colour sequences)."""
    rows = pane.run("capture-pane", "-e", "-p", "-t", "t").splitlines()
    start = next(i for i, row in enumerate(rows) if "stock" in row)
    backs: set[str] = set()
    suits: set[str] = set()
    for row in rows[start : start + 6]:  # the stock and pile row, the hand's rows
        for codes, _, suit in SGR.findall(row):
            params = [p for seq in re.findall(r"\[([0-9;]*)m", codes) for p in seq.split(";")]
            bg = [p for p in params if p.isdigit() and (40 <= int(p) <= 47 or 100 <= int(p) <= 107)]
            backs.add(bg[-1] if bg else "none")
            suits.add("red" if suit in "HD" else "black")
    assert suits == {"red", "black"}, (suits, rows[start : start + 6])
    return len(backs)


@pytest.mark.e2e
def test_a_hand_in_a_narrow_ascii_pane(panes: Callable[..., Pane]) -> None:
    """``ginp2p play --ascii`` at 60x20, one hand against the computer, as a new user
    met it: no marker while only take or pass is possible, Left/Right named, the help
    scrolls to its end; killed and resumed, the log says which moves came from the file;
    the hand's end keeps every total; the score sheet says whose hands the box counts."""
    pane = panes(60, 20, "--ascii", "--set", "game_target=1", shell=True)
    first = pane.wait(lambda s: "your turn" in s or "'s turn" in s, 30)
    pane.wait("your turn", 30)
    first = pane.screen()
    assert first.isascii()
    if "take the upcard" in first:
        assert "^^" not in first, first
    assert card_faces(pane) == 1, "red and black cards on one card face"
    pane.keys("?")
    helped = pane.wait("Down/PgDn: ", 10)  # its first rows, and how many more
    assert all(len(line) <= 60 for line in helped.splitlines()), helped
    assert "lay them one by one." not in helped and ".." not in helped, helped
    pane.keys("End")
    pane.wait(lambda s: "lay them one by one." in s and "the end of the help" in s, 10)
    pane.keys("PageUp")
    pane.wait("Left/Right  choose a card in your hand", 10)
    pane.keys("Escape")
    pane.wait(lambda s: "help |" not in s, 10)
    games = pane.tmp / "games"
    resumed = False
    for _ in range(100):  # (a hand has fewer moves of ours)
        screen = pane.wait(lambda s: "your turn" in s or "your showdown" in s
                           or "points this hand" in s, 60)  # fmt: skip
        flat = " ".join(screen.split())  # the turn line goes on over two rows at 60
        if "points this hand" in screen:
            break
        if "your showdown" in screen:
            pane.wait("Enter: send it", 10)
            pane.keys("Enter")
            pane.wait(lambda s: "your showdown" not in s, 10)
        elif "take the upcard" in flat:
            assert "^^" not in screen, screen
            pane.keys("p")
            pane.wait(lambda s: "you passed" in s, 10)
        elif "draw from the stock (s)" in flat:
            assert "^^" not in screen, screen
            stock = int(re.search(r"stock (\d+)", screen)[1])  # type: ignore[index]
            pane.keys("s")
            pane.wait(lambda s, n=stock - 1: f"stock {n}" in s and "choose a card" in s, 10)
        elif "choose a card" in flat:
            assert "choose a card with Left/Right and discard it (Enter)" in flat, screen
            assert "^^" in screen, screen
            pane.keys("Enter")
            # the discard taken, then the computer's draw and discard and our turn again
            # (or the hand's end)
            pane.wait(lambda s: "choose a card" not in s, 10)
            after = pane.wait(lambda s: "your turn" in s or "your showdown" in s
                              or "points this hand" in s, 60)  # fmt: skip
            if not resumed and "your turn" in after:
                resumed = True
                os.kill(pane.program(), signal.SIGKILL)
                (log,) = games.glob("*.ginlog")
                pane.keys("-l", shlex.join([sys.executable, "-m", "ginp2p", "resume",
                                            str(log), "--ascii", "--no-bell"]))  # fmt: skip
                pane.keys("Enter")
                back = pane.wait("the game goes on: hand 1", 30)
                said = " ".join(back.split())
                assert re.search(r"from the saved game: Computer (drew|took)", said), back
                assert "from the saved game: Computer discarded" in said, back
                top = back.splitlines()[0]
                assert len(top) <= 60 and "connecting.." not in top, "says to whom: " + top
        else:
            raise AssertionError(f"nothing to do on this screen:\n{screen}")
    assert "points this hand" in screen, "the hand ended"
    assert resumed, "the hand ended before a move of ours was answered"
    lines = screen.splitlines()
    assert all(len(line) <= 60 for line in lines), lines
    shown = [line for line in lines if "deadwood" in line or "[" in line]
    assert shown and ".." not in "\n".join(shown), screen
    said = " ".join(screen.split())
    assert len(re.findall(r"= \d+|no deadwood|nothing shown", said)) >= 2, screen
    pane.keys("Enter")
    final = pane.wait("q or Enter: leave", 30)
    assert "for each hand won" not in final, final
    if "hand won" in final:
        assert "+ 25 per hand won by the winner" in final, final
    pane.keys("q")
    pane.wait("the match is over", 20)
