"""One vocabulary for both consoles: a letter does the same move at the table and at
the line prompt (``p`` passes, ``d`` takes the pile's card), a start of a word that two
commands share is refused with both meanings, a slip is told the nearest command, the
``:`` line and the line prompt show their completions as a menu, and the help of each
mode lists the same letters. The parser and the table's keys in process; one game at a
real line prompt (a pty) and one in a tmux pane."""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from ginp2p.console.completion import CommandCompleter, seat_cards
from ginp2p.console.line import LinePlayer
from ginp2p.console.tui.intents import situation
from ginp2p.console.tui.table import TablePlayer
from ginp2p.game import engine
from ginp2p.game.cards import parse_card
from ginp2p.game.engine import DrawStock, HandState
from ginp2p.game.rules import get_preset
from ginp2p.present.commands import Act, CommandError, QuitCmd, help_text, parse_command
from ginp2p.present.view import build_view
from ginp2p.present.vocabulary import VOCABULARY, UnknownWord, key_help, lookup, resolve
from tests.console.test_tui_table import FakeSeat, drawn_hand, knocked_hand, run_table
from tests.console.test_tui_tmux import Pane, panes  # noqa: F401  (the fixture)
from tests.helpers import deal, play
from tests.processes import SHORT, in_terminal

RULES = get_preset("classic")
ANN = "7H 8H 9H 4S 4D 4C 2C 3D AS TH"
BOT = "5S 6S 7S 2D 9D JD QD KD 6C 8C"


@pytest.fixture
def pipe() -> Iterator[Any]:
    with create_pipe_input() as inp, create_app_session(input=inp, output=DummyOutput()):
        yield inp


def upcard() -> HandState:
    """Ann's move at the first upcard, 5♥: take it or pass."""
    return deal(RULES, ANN, BOT, "5H", "KS")


def drawing() -> HandState:
    """Ann's move to draw, 5♠ on the pile (Bot's discard)."""
    h = deal(RULES, ANN, BOT, "5H", "KS QH")
    discards = (engine.Discard(parse_card("3D")), engine.Discard(parse_card("5S")))
    return play(h, engine.PassUpcard(), engine.PassUpcard(), DrawStock(), discards[0],
                DrawStock(), discards[1])  # fmt: skip


def at_the_line(state: HandState, text: str) -> FakeSeat:
    """``text`` typed at the line prompt over ``state``: the seat, with what was sent
    and said."""
    s = FakeSeat(state)
    s.player = LinePlayer(stdin=io.StringIO())
    s.player._line(s, text)
    return s


def at_the_table(pipe: Any, state: HandState, keys: str) -> tuple[FakeSeat, tuple[str, str]]:
    """``keys`` pressed at the table over ``state``: the seat, and the message after."""
    s = FakeSeat(state)
    said: list[tuple[str, str]] = []

    async def script(player: TablePlayer, send: Any) -> None:
        await send(keys)
        said.append(player.message)

    run_table(pipe, s, script)
    return s, said[0]


# ------------------------------------------------------------------------- the parser


def test_a_word_is_its_letter_its_whole_word_or_a_start_no_other_shares() -> None:
    assert [resolve(w).name for w in ("s", "d", "p", "k", "g", "c", "l", "q", "h")] == \
        ["stock", "pile", "pass", "knock", "gin", "claim", "look", "quit", "help"]  # fmt: skip
    assert [resolve(w).name for w in ("st", "dr", "di", "pi", "pa", "kn", "sh", "sa", "tak",
                                      "tab", "ex", "?", "DISCARD")] == \
        ["stock", "stock", "discard", "pile", "pass", "knock", "show", "say", "take", "look",
         "quit", "help", "discard"]  # fmt: skip
    with pytest.raises(UnknownWord) as ta:
        resolve("ta")
    assert str(ta.value) == "'ta' could mean take (take the first upcard) or table (show the " \
        "table again): type more of it"  # fmt: skip
    with pytest.raises(UnknownWord) as t:  # a letter is a key or nothing, never a start
        resolve("t")
    assert (
        str(t.value) == "'t' is no command; the letters are s d p k g l c q h; did you "
        "mean take? (help lists them)"
    )  # fmt: skip  (table, look's other word, is not listed)
    # the commands of the game's rules: rumino is no command of classic's
    from ginp2p.game.rules import get_preset

    for rules, meant in ((get_preset("classic"), "resign"), (get_preset("rumino"),
                                                               "rumino or resign")):  # fmt: skip
        with pytest.raises(UnknownWord) as r:
            resolve("r", rules)
        assert f"did you mean {meant}? (help" in str(r.value), rules.name
    with pytest.raises(UnknownWord, match="type resign in full"):
        resolve("res")
    for slip, meant in (("tkae", "take"), ("stok", "stock"), ("discrad", "discard"),
                        ("nock", "knock"), ("psas", "pass")):  # fmt: skip
        with pytest.raises(UnknownWord) as told:
            resolve(slip)
        assert f"did you mean {meant}?" in str(told.value), slip
    with pytest.raises(UnknownWord) as none:
        resolve("xyzzy")
    assert str(none.value) == "unknown command 'xyzzy' (help lists them)"
    assert lookup("ta") is None and lookup("zz") is None
    letters = [w.key for w in VOCABULARY if w.key]
    assert len(letters) == len(set(letters)), "one command a letter"


def test_old_line_letters_are_refused_with_what_would_do() -> None:
    """`d 7h` discarded at the line prompt, `p` took the pile's card: `d` is now the
    table's (the pile), and a card after it is no discard of a card the player may have
    meant; `p` passes. Nothing is sent by a refusal."""
    s = at_the_line(drawn_hand(), "d 3d")
    assert s.submitted == [] and s.said == [
        "? d takes the pile's card, as at the table, and names none: to discard 3d, type discard 3d"
    ]
    s = at_the_line(upcard(), "p")
    assert s.submitted == [Act(engine.PassUpcard())]
    s = at_the_line(upcard(), "ta")
    assert s.submitted == [] and s.said[-1].startswith("? 'ta' could mean take")
    s = at_the_line(upcard(), "tkae")
    assert s.submitted == [] and "did you mean take?" in s.said[-1]
    s = at_the_line(drawn_hand(), "res yes")
    assert s.submitted == [] and "type resign in full" in s.said[-1]
    assert parse_command("di 3d", FakeSeat(drawn_hand())) == Act(engine.Discard(parse_card("3D")))
    knock = parse_command("kn ks", FakeSeat(drawn_hand()))
    assert isinstance(knock, Act) and knock.action.kind == "knock"
    with pytest.raises(CommandError, match="s is stock, which takes no card"):
        parse_command("s 3d", FakeSeat(drawing()))


# --------------------------------------------------------- the table and the line, alike


@pytest.mark.parametrize(
    ("position", "letter", "move"),
    [
        ("upcard", "p", engine.PassUpcard()),
        ("upcard", "d", engine.TakeUpcard()),
        ("upcard", "s", None),
        ("drawing", "s", DrawStock()),
        ("drawing", "d", engine.DrawDiscard()),
        ("drawing", "p", None),
        ("discarding", "d", None),
    ],
)
def test_a_letter_does_the_same_move_at_the_table_and_the_line(
        pipe: Any, position: str, letter: str, move: Any) -> None:  # fmt: skip
    """The same letter, the same position: the same move sent, or the same refusal."""
    state = {"upcard": upcard, "drawing": drawing, "discarding": drawn_hand}[position]()
    line = at_the_line(state, letter)
    table, message = at_the_table(pipe, state, letter)
    assert line.submitted == table.submitted == ([Act(move)] if move else [])
    if move is None:
        assert line.said[-1] == f"? {message[1]}" and message[0] == "class:error"


def test_k_at_the_table_sends_the_knock_k_card_sends_at_the_line(pipe: Any) -> None:
    line = at_the_line(drawn_hand(), "k ks")
    table, _ = at_the_table(pipe, drawn_hand(), "k\r")  # proposed, then sent
    (typed,), (keyed,) = line.submitted, table.submitted
    assert (typed.action.kind, typed.action.discard) == (keyed.action.kind, keyed.action.discard)


def test_q_h_and_l_are_the_line_prompts_at_the_table_too(pipe: Any) -> None:
    s = FakeSeat(drawn_hand())

    async def script(player: TablePlayer, send: Any) -> None:
        await send("h")
        assert player.show_help
        await send("\x1b")
        await send("l")
        assert player.message == ("", "the table is on screen")
        await send("q")  # leave, asked first, as `quit` and Ctrl-C
        assert player.confirm is not None and "leave the game?" in player.confirm[0]
        await send("n")
        assert s.submitted == []
        await send("qy")
        assert s.submitted == [QuitCmd()]

    run_table(pipe, s, script)


def test_a_key_of_no_use_in_ones_own_showdown_says_so(pipe: Any) -> None:
    """The showdown (and a proposed knock, and melds being laid) answered keys of no
    use with silence; each now says so, with the keys that work there."""
    s = FakeSeat(knocked_hand(), me=1)

    async def script(player: TablePlayer, send: Any) -> None:
        assert player.draft is not None and player.draft.kind == "show"
        for key, name in (("s", "s"), ("x", "x"), ("\x1b[C", "Right"), ("\t", "Tab")):
            await send(key)
            assert player.message == ("class:error", f"{name} does nothing in your showdown: "
                                      "Enter sends it, e changes the melds (? lists the "
                                      "keys)"), key  # fmt: skip
        await send("e")
        await send("k")  # no candidate's key (none is e or k)
        assert player.message[1] == "k does nothing here: a listed key adds its meld or " \
            "layoff, Backspace takes the last back, Enter sends, Esc goes back"  # fmt: skip
        assert s.submitted == []

    run_table(pipe, s, script)


def test_the_key_bar_and_both_helps_read_the_letters_of_the_vocabulary() -> None:
    keyed = [w for w in VOCABULARY if w.key]
    line = help_text(RULES, ctrl_c=True).splitlines()
    for w in keyed:
        assert any(re.match(rf"  {w.key}  {w.name}\b", x) for x in line), w.name
    table = dict(key_help(RULES))
    assert {k.split()[0] for k in table} >= {w.key for w in keyed if w.name not in
                                              ("look", "help", "say")}  # fmt: skip
    # the key bar's letters under each position mean the vocabulary's commands
    meant = {"stock": "stock", "pile": "pile", "take": "pile", "pass": "pass", "knock": "knock",
             "gin": "gin", "rumino": "gin", "claim": "claim"}  # fmt: skip
    for state in (upcard(), drawing(), drawn_hand()):
        for key, label in build_view(situation(FakeSeat(state))).keys:
            if label in meant:
                named = lookup(key)
                assert named is not None and named.name == meant[label], (key, label)


def test_completions_name_each_commands_letter_and_the_cards_that_fit() -> None:
    seat = FakeSeat(drawn_hand())
    done = CommandCompleter(seat_cards(seat), rules=lambda: get_preset("rumino"))

    def offered(text: str) -> list[tuple[str, str, str]]:
        return [(c.text, c.display_text, c.display_meta_text)
                for c in done.get_completions(Document(text), CompleteEvent())]  # fmt: skip

    assert offered("s") == [("stock", "stock    s", "draw from the stock"),
                            ("show", "show      ", "lay down your melds at the showdown"),
                            ("say", "say       ", "a chat line to the other player")]  # fmt: skip
    letters = {len(shown) for _, shown, _ in offered("")}
    assert letters == {10}, "the letters stand in one column"
    assert [t for t, _, _ in offered("")] == ["stock", "pile", "discard", "knock", "gin",
                                              "rumino", "show", "look", "say", "claim",
                                              "resign", "quit", "help"], "rumino's"  # fmt: skip
    assert [t for t, _, _ in offered("k ")] == ["ks"], "only the discard that knocks"
    assert [t for t, _, _ in offered("di 3")] == ["3d"]
    assert offered("d ") == [], "the pile's card is named by no one"


# ----------------------------------------------------------------- as a player meets it


@pytest.mark.e2e
def test_at_the_line_prompt_p_passes_tab_shows_a_menu_and_a_slip_is_told(tmp_path: Path) -> None:
    """In a terminal: `p` at `take | pass` passes (it took the upcard, for good), a slip
    is told the nearest command, and Tab lists the commands with what they do."""
    import pexpect

    child = in_terminal(tmp_path, "play", "--plain", "--ascii", *SHORT)
    try:
        child.expect(r"your move: ([^\r\n]*)\r\n")
        offered = child.match.group(1)
        child.expect("ginp2p>")
        child.sendline("tkae")
        child.expect_exact("? unknown command 'tkae': did you mean take? (help lists them)")
        child.send("s\t")  # stock, show, say: a menu, each with what it does
        child.expect_exact("draw from the stock")
        child.expect_exact("a chat line to the other player")
        child.send("\x15")  # Ctrl-U: the line emptied
        child.sendline("p")
        if offered.startswith("take | pass"):
            child.expect(r"you passed")
        else:  # the computer took the upcard: nothing to pass, and nothing taken
            child.expect_exact("? you cannot pass now")
        assert "you took" not in child.before
        child.sendline("quit")
        child.expect_exact("type y to leave")
        child.sendline("y")
        child.expect(r"left the game; resume it with")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0


@pytest.mark.e2e
def test_the_table_shows_its_completions_as_a_menu_and_f1_is_help(
        panes: Callable[..., Pane]) -> None:  # noqa: F811  # fmt: skip
    """`:` then `t`: a menu of take and table with what each does (Tab cycled through
    them unseen); a slip is told the nearest command; F1 opens the help; `p` passes."""
    pane = panes(80, 24, "--ascii", *SHORT, "--linger", "1")
    first = pane.wait("your turn", 30)
    pane.keys(":", "t")
    menu = pane.wait("show the table again", 10)
    assert "take the first upcard" in menu
    pane.keys("BSpace", "tkae", "Enter")
    pane.wait("did you mean take?", 10)
    pane.keys("Escape")
    pane.wait(lambda s: "did you mean" not in s, 10)
    pane.keys("F1")
    pane.wait("choose a card in your hand", 10)
    pane.keys("Escape")
    pane.wait(lambda s: "choose a card in your hand" not in s, 10)
    if "take the upcard" in first:
        pane.keys("p")
        pane.wait("you passed", 10)
    pane.keys("C-c")
    pane.wait("leave the game?", 10)
    pane.keys("y")
    assert "EXIT=0" in pane.wait("EXIT=", 20)
