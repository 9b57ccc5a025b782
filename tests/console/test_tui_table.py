"""The console table without a terminal: the view model from engine states, the drawn
screen as text, and the application driven by key presses through a pipe input with
a DummyOutput (prompt_toolkit's own way to test an application)."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.document import Document
from prompt_toolkit.formatted_text import fragment_list_to_text
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.input.vt100_parser import Vt100Parser
from prompt_toolkit.key_binding import KeyPress
from prompt_toolkit.output import DummyOutput

from ginp2p.app.config import SessionResult
from ginp2p.console.tui.look import Look
from ginp2p.console.tui.overlays import help_rows, match_rows, summary_rows
from ginp2p.console.tui.render import fit, hand_rows, header_rows, plain, table_rows
from ginp2p.console.tui.table import CommandCompleter, TablePlayer, card_word
from ginp2p.game import engine
from ginp2p.game import match as mt
from ginp2p.game.cards import parse_card, parse_cards
from ginp2p.game.engine import DrawStock, HandState, Phase
from ginp2p.game.match import MatchEnd, MatchState, record_hand
from ginp2p.game.rules import get_preset
from ginp2p.present.commands import Act, ClaimCmd, QuitCmd, RulesCmd, RulesOffered
from ginp2p.present.draft import draft_from
from ginp2p.present.summary import hand_summary, log_line, match_summary
from ginp2p.present.view import Situation, build_view
from ginp2p.proto.results import Chatted, HandDealt, HandScored, MatchOver, Moved
from tests.helpers import deal, play
from tests.processes import GUARD, until

RULES = get_preset("classic")
NAMES = ("Ann", "Bot")
ASCII = Look(ascii=True, colour=False)


def c(text: str) -> Any:
    return parse_card(text)


def cs(text: str) -> tuple[Any, ...]:
    return tuple(parse_cards(text))


def drawn_hand() -> HandState:
    """Ann (seat 0) has drawn K♠ and must discard: 4♠4♦4♣, 7♥–10♥, deadwood A♠ K♠ 3♦ 2♣.
    Discarding K♠ leaves 6: a knock."""
    h = deal(RULES, "7H 8H 9H 4S 4D 4C 2C 3D AS TH", "5S 6S 7S 2D 9D JD QD KD 6C 8C", "5H",
             "KS")  # fmt: skip
    return play(h, engine.PassUpcard(), engine.PassUpcard(), DrawStock())


def knocked_hand() -> HandState:
    """Ann (seat 0) knocked with A♦ deadwood; Bot (seat 1) must show, and can lay 10♥
    off on Ann's 7♥ 8♥ 9♥."""
    h = deal(RULES, "7H 8H 9H 4S 4D 4C JC QC KC 2S", "TH 5S 6S 7S 2D 3D 9D JD QD KD", "5H",
             "AD")  # fmt: skip
    h = play(h, engine.PassUpcard(), engine.PassUpcard(), DrawStock())
    knock = next(a for a in engine.legal_actions(h) if a.kind == "knock" and a.discard == c("2S"))
    return play(h, knock)


def texts(rows: list[Any]) -> str:
    return plain(rows)


# ------------------------------------------------------------------------ the view model


def test_the_hand_is_grouped_into_best_melds_with_the_deadwood_counted() -> None:
    h = drawn_hand()
    v = build_view(Situation(me=0, names=NAMES, hand=h.view(0), my_turn=True))
    melds = [g.cards for g in v.groups if g.meld]
    dead = [g.cards for g in v.groups if not g.meld]
    assert melds == [cs("4S 4D 4C"), cs("7H 8H 9H TH")]
    assert dead == [cs("AS KS 3D 2C")]
    assert v.deadwood == 1 + 10 + 3 + 2
    assert v.hand == tuple(x for g in v.groups for x in g.cards) and len(v.hand) == 11
    assert v.opponent_cards == 10 and v.stock == 31 - 1 and v.upcard == c("5H")
    assert [(k.discard, k.deadwood) for k in v.knocks] == [(c("KS"), 6)]
    assert v.turn == "your turn: choose a card with ←/→ and discard it (Enter)"
    assert ("k", "knock") in v.keys and ("g", "gin") not in v.keys


def test_the_other_players_turn_and_the_wait_with_its_clock() -> None:
    h = drawn_hand()
    s = Situation(me=1, names=NAMES, hand=h.view(1), my_turn=False,
                  owed="a move in hand 1", waited=75.0, claim_timeout=120)  # fmt: skip
    v = build_view(s)
    assert v.turn == "Ann's turn: discarding"
    assert v.knocks == () and v.opponent_cards == 11
    screen = texts(table_rows(v, ASCII, 80))
    assert "waiting for Ann: a move in hand 1 · 1:15 (claim after 2:00)" in screen
    claim = build_view(Situation(me=1, names=NAMES, hand=h.view(1), owed="a move",
                                 waited=130, claimable=True))  # fmt: skip
    assert "press c to claim the match" in texts(table_rows(claim, ASCII, 80))
    assert ("c", "claim") in claim.keys


def test_after_both_passed_the_upcard_the_other_screen_says_drawing() -> None:
    """Both passed the first upcard: the player to move draws from the stock, as their
    screen says; the other screen said they were "taking or passing the upcard"."""
    h = deal(RULES, "7H 8H 9H 4S 4D 4C 5C 6C 7C TH", "5S 6S 7S 2D 9D JD QD KD 6H 8C", "5H",
             "KS")  # fmt: skip
    h = play(h, engine.PassUpcard(), engine.PassUpcard())
    other = 1 - h.to_move
    v = build_view(Situation(me=other, names=NAMES, hand=h.view(other), my_turn=False))
    assert v.turn == f"{NAMES[h.to_move]}'s turn: drawing", v.turn


def test_late_in_our_own_move_the_table_says_how_long_is_left() -> None:
    """The other side may claim a move left too long: from half the timeout on, the
    player is told, and not before (nor at all where nobody claims: ``my_wait`` None)."""
    h = drawn_hand()

    def screen(wait: float | None) -> str:
        s = Situation(me=0, names=NAMES, hand=h.view(0), my_turn=True, my_wait=wait,
                      claim_timeout=120)  # fmt: skip
        return texts(table_rows(build_view(s), ASCII, 80))

    assert "your move for 1:10: in 0:50 Bot may claim the match" in screen(70.0)
    assert "may claim" not in screen(50.0) and "may claim" not in screen(None)


def test_after_a_knock_the_knockers_melds_are_shown_and_a_showdown_is_proposed() -> None:
    h = knocked_hand()
    view = h.view(1)
    v = build_view(Situation(me=1, names=NAMES, hand=view, my_turn=True))
    shown = v.opponent_shown
    assert shown is not None and shown.deadwood == 1 and shown.deadwood_cards == (c("AD"),)
    assert (c("7H"), c("8H"), c("9H")) in shown.melds
    assert v.phase == "show" and v.turn.startswith("your showdown")
    draft = draft_from(engine.legal_actions(view)[0], view)
    assert [lay.card for lay in draft.layoffs] == [c("TH")]
    assert draft.deadwood(RULES) == 2 + 3 + 9
    done = engine.apply(h, draft.action())
    assert done.over and done.result is not None and done.result.points == (13, 0)


def test_a_showdown_can_be_changed_meld_by_meld() -> None:
    h = knocked_hand()
    view = h.view(1)
    draft = draft_from(engine.legal_actions(view)[0], view)
    from dataclasses import replace

    d = replace(draft, melds=(), layoffs=(), editing=True)
    assert d.deadwood(RULES) == sum(x.value for x in d.cards)
    choices = d.choices(RULES)
    spades = next(ch for ch in choices if getattr(ch, "cards", None) == cs("5S 6S 7S"))
    d = replace(d, melds=(spades,))
    # keep the diamonds unmelded: only spades laid, then 10♥ laid off on Ann's run
    lay = next(ch for ch in d.choices(RULES) if getattr(ch, "card", None) == c("TH"))
    d = replace(d, layoffs=(lay,))
    # a meld of the cards still free may follow a layoff; none takes the card laid off
    melds = [ch.cards for ch in d.choices(RULES) if hasattr(ch, "cards")]
    assert melds == [cs("JD QD KD")], melds
    done = engine.apply(h, d.action())
    assert done.result is not None
    bot = done.result.declarations[1]
    assert bot is not None and bot.deadwood == 2 + 3 + 9 + 10 + 10 + 10


def test_the_log_says_what_happened_in_words() -> None:
    # your own chat line too: the command line that typed it is gone
    assert log_line(Chatted(0, "hi"), 0, NAMES) == "you: hi"
    assert log_line(Chatted(1, "hello"), 0, NAMES) == "Bot: hello"
    assert log_line(Moved(1, DrawStock(), None), 0, NAMES) == "Bot drew from the stock"
    assert log_line(Moved(1, engine.Discard(c("QS")), c("QS")), 0, NAMES) == \
        "Bot discarded Q♠"  # fmt: skip
    assert log_line(Moved(0, DrawStock(), c("7H")), 0, NAMES) == "you drew 7♥ from the stock"
    assert log_line(Moved(1, engine.DrawDiscard(), c("5H")), 0, NAMES) == \
        "Bot took 5♥ from the pile"  # fmt: skip
    # a hand that scored nothing says so once, whether or not its ending did
    void = engine.HandResult(engine.HandEnd.STOCK_VOID, None, (0, 0), (0, 0))
    tie = engine.HandResult(engine.HandEnd.KNOCK, 1, (0, 0), (0, 0))
    assert log_line(HandScored(1, void, (0, 0)), 0, NAMES) == \
        "hand 1: the stock ran low (no score) · Ann 0, Bot 0"  # fmt: skip
    assert log_line(HandScored(2, tie, (0, 0)), 0, NAMES) == \
        "hand 2: Bot knocked; no score · Ann 0, Bot 0"  # fmt: skip


def test_hand_and_match_summaries_show_points_bonuses_and_totals() -> None:
    h = knocked_hand()
    view = h.view(1)
    done = engine.apply(h, draft_from(engine.legal_actions(view)[0], view).action())
    r = done.result
    assert r is not None
    s = hand_summary(1, r, (13, 0), 1, NAMES, RULES)
    assert s.headline == "hand 1: Ann knocked; Ann scores 13"
    assert "deadwood 1 against 14: a difference of 13" in s.reasons
    assert [x.name for x in s.seats] == ["Bot", "Ann"] and s.seats[1].points == 13
    assert log_line(HandScored(1, r, (13, 0)), 1, NAMES) == \
        "hand 1: Ann knocked; Ann scores 13 · Bot 0, Ann 13"  # fmt: skip
    m = MatchState(rules=RULES.with_(game_target=10), dealer=1, hand_no=1)
    m = record_hand(m, r)
    assert m.over and m.winner == 0
    ms = match_summary(m, 1, NAMES)
    assert ms.headline == "MATCH OVER: Ann wins (reached the target)"
    assert ms.hands == ((1, "Ann knocked", 0, 13),)
    assert ("game bonus", 0, RULES.game_bonus) in ms.bonuses
    assert ms.totals == (0, 13 + RULES.game_bonus + RULES.box_bonus)
    assert log_line(MatchOver(m.winner, m.end, m.totals), 0, NAMES) == \
        "MATCH OVER: you win (reached the target)"  # fmt: skip
    assert ms.sum_lines("you") == [
        "points from the hands: you 0, Ann 13", f"game bonus: you 0, Ann {RULES.game_bonus}",
        f"{RULES.box_bonus} per hand won by the winner: you 0, Ann {RULES.box_bonus}",
        f"total: you 0, Ann {13 + RULES.game_bonus + RULES.box_bonus}",
        f"Ann wins by {13 + RULES.game_bonus + RULES.box_bonus}"]  # fmt: skip
    hoyle = get_preset("hoyle").with_(game_target=10)  # box bonuses to both: the lead
    m = record_hand(MatchState(rules=hoyle, dealer=1, hand_no=1), r)
    ms = match_summary(m, 0, NAMES)
    assert ms.sum_lines("you")[-2:] == [  # a shutout: hoyle's game bonus doubles to 200
        "total: you 233, Bot 0", "you win by 233"]  # fmt: skip
    assert f"you win by {m.margin}" in texts(match_rows(ms, 80, True))
    resigned = mt.forfeit(MatchState(rules=RULES, dealer=1, hand_no=1), 1, MatchEnd.RESIGN)
    assert resigned.margin == 0 and match_summary(resigned, 0, NAMES).sum_lines("you")[-1] \
        == "total: you 0, Bot 0", "a resignation at 0-0: no 'wins by 0'"  # fmt: skip
    sheet = texts(match_rows(match_summary(resigned, 0, NAMES), 80, True))
    assert "hand" not in sheet and "game score" in sheet, "no hand column without hands"
    # the player ahead resigns: no "wins by", and they are told nobody pays (it said
    # only "Bot wins (you resigned)" under totals of 13 to 0)
    ahead = mt.forfeit(record_hand(MatchState(rules=RULES, dealer=1, hand_no=1), r), 0,
                       MatchEnd.RESIGN)  # fmt: skip
    assert ahead.winner == 1 and ahead.margin == 0 and ahead.forfeited_lead == 13
    said = "nobody pays: {} ahead by 13, and whoever forfeits the match is paid nothing"
    assert match_summary(ahead, 0, NAMES).sum_lines("you")[-1] == said.format("you were")
    assert match_summary(ahead, 1, NAMES).sum_lines()[-1] == said.format("Ann was")
    sheet = texts(match_rows(match_summary(ahead, 0, NAMES), 80, True))  # (over two rows)
    assert said.format("you were") in " ".join(sheet.split())


def test_rumino_says_who_went_over_and_a_gin_scores_minus_ten() -> None:
    """Rumino's match is not played to a target but out over one; a gin scores -10,
    said as such (not +-10); the bust names the player who went over."""
    from ginp2p.game.melds import Meld
    from ginp2p.present.words import goal_words, result_words

    rumino = get_preset("rumino").with_(game_target=20)
    assert goal_words(rumino) == "out over 20" and goal_words(RULES) == "game to 100"
    h = deal(rumino, "AS 2S 3S 4S 7H 7D 7C", "7S 8H 9H KD 2D 9S 6C", "QC", "KH")
    h = play(h, DrawStock(), engine.Gin(c("KH"), (Meld(cs("AS 2S 3S 4S")),
                                                   Meld(cs("7H 7D 7C")))))  # fmt: skip
    done = engine.apply(h, engine.propose_show(h))
    assert done.result is not None
    assert result_words(done.result, NAMES) == "Ann went gin; Ann -10, Bot +51"
    m = record_hand(MatchState(rules=rumino, dealer=1, hand_no=1), done.result)
    assert m.over and m.end is MatchEnd.BUST and m.winner == 0
    assert match_summary(m, 1, NAMES).headline == "MATCH OVER: Ann wins (you went over the limit)"
    assert match_summary(m, 0, NAMES).headline == "MATCH OVER: you win (Bot went over the limit)"
    v = build_view(Situation(me=0, names=NAMES, match=m, hand=h.view(0)))
    assert "ginp2p · rumino, out over 20 · hand 1" in texts(header_rows(v, 80))  # not "changed"


def _gin_result() -> Any:
    """Hand 1 of classic ended by a gin of the first player's, shown by both."""
    h = deal(RULES, "7H 8H 9H 4S 4D 4C 5C 6C 7C TH", "5S 6S 7S 2D 9D JD QD KD 6H 8C", "5H",
             "KS")  # fmt: skip
    h = play(h, engine.PassUpcard(), engine.PassUpcard(), DrawStock())
    gin = next(a for a in engine.legal_actions(h) if a.kind == "gin")
    done = engine.apply(h, gin)
    done = engine.apply(done, engine.propose_show(done))
    assert done.result is not None
    return done.result


def test_a_gin_shows_no_deadwood_rather_than_an_empty_list() -> None:
    s = hand_summary(1, _gin_result(), (0, 0), 0, NAMES, RULES)
    text = texts(summary_rows(s, ASCII, 80))
    assert "no deadwood" in text and "deadwood  =" not in text and "deadwood = 0" not in text


def test_names_in_wide_letters_keep_the_columns_lined_up() -> None:
    """A name in Chinese or Japanese takes two columns a letter: the opponent's row and
    the end of a hand pad names by columns, so what follows them lines up (it was
    padded by letters and came four columns late for a four-letter name)."""
    from prompt_toolkit.utils import get_cwidth

    wide = ("Ann", "山田花子")

    def column(line: str, text: str) -> int:
        return get_cwidth(line[: line.index(text)])

    h = drawn_hand()
    v = build_view(Situation(me=0, names=wide, hand=h.view(0), my_turn=True))
    rows = texts(table_rows(v, ASCII, 80)).splitlines()
    (them,) = [line for line in rows if "in hand" in line]
    (stock,) = [line for line in rows if "stock" in line]
    assert column(them, "10 cards in hand") == column(stock, "pile") == 12
    shown = texts(summary_rows(hand_summary(1, _gin_result(), (0, 0), 0, wide, RULES), ASCII, 80))
    ann, yamada = (line for line in shown.splitlines() if "[" in line)
    assert column(ann, "[") == column(yamada, "[") == get_cwidth("   山田花子") + 3


def test_the_table_fits_80_columns_in_ascii_without_colour() -> None:
    h = drawn_hand()
    v = build_view(Situation(me=0, names=NAMES, hand=h.view(0), my_turn=True))
    rows = table_rows(v, ASCII, 80, selected=c("KS"), after=6)
    screen = texts(rows)
    assert "your hand  [4S 4D 4C] [7H 8H 9H TH] deadwood AS KS 3D 2C = 16" in screen
    assert "Enter discards KS (deadwood 6) · k knocks with it" in screen
    other = texts(table_rows(v, ASCII, 80, selected=c("2C"), after=14))
    assert "Enter discards 2C (deadwood 14) · k: knock discarding KS (6)" in other
    hand_row = next(i for i, line in enumerate(screen.splitlines()) if "your hand" in line)
    marker = screen.splitlines()[hand_row + 1]
    assert marker.strip() == "^^" and screen.splitlines()[hand_row][marker.index("^") :][:2] == "KS"
    assert "stock 30" in screen and "pile 5H" in screen
    for row in [*rows, *help_rows(80)]:
        assert sum(len(t) for _, t in fit(row, 80)) <= 80
    assert all(len(line) <= 80 for line in plain(help_rows(80)).splitlines()), "help fits"
    # 60 columns: the hand drops its title, never its total, and the marker follows
    narrow = [line.rstrip() for line in texts(table_rows(v, ASCII, 60, selected=c("KS"),
                                                         after=6)).splitlines()]  # fmt: skip
    at = next(i for i, line in enumerate(narrow) if line.endswith("deadwood AS KS 3D 2C = 16"))
    assert len(narrow[at]) <= 60 and narrow[at + 1].index("^^") == narrow[at].index("KS")
    # 32 columns, suit symbols: the hand goes on over more rows, every card whole (a
    # meld never split), the marker under the chosen card on its own row
    symbols = Look(ascii=False, colour=False)
    tight = [line.rstrip() for line in texts(hand_rows(v, symbols, c("KS"), 12, 32))
             .splitlines()]  # fmt: skip
    assert all(len(line) <= 32 for line in tight) and len(tight) >= 4, tight
    shown = " ".join(tight)
    for card in h.view(0).cards(0):
        assert card.pretty() in shown, card
    assert "[7♥ 8♥ 9♥ 10♥]" in shown
    at = next(i for i, line in enumerate(tight) if "K♠" in line)
    assert tight[at + 1].index("^^") == tight[at].index("K♠")


def test_a_hand_all_melded_before_the_draw_is_no_gin_yet() -> None:
    """Rumino's seven cards all melded at the start of a turn are a knock at 0 (or a draw
    that may go gin): the hand said "gin!" under them. After the draw, all eleven cards
    melded are one (big gin)."""
    rumino = get_preset("rumino")
    h = deal(rumino, "AS 2S 3S 4S 7H 7D 7C", "7S 8H 9H KD 2D 9S 6C", "QC", "KH")
    before = texts(
        hand_rows(
            build_view(
                Situation(
                    me=0,
                    names=NAMES,
                    match=MatchState(rules=rumino, dealer=1, hand_no=1, hand=h),
                    hand=h.view(0),
                    my_turn=True,
                )
            ),
            ASCII,
            None,
        )
    )
    assert "[AS 2S 3S 4S] [7H 7D 7C] = 0" in before and "gin!" not in before, before
    big = play(
        deal(RULES, "7H 8H 9H 4S 4D 4C JC QC KC 4H", "5S 6S 7S 2D 9D JD QD KD 6C 8C", "5H", "TH"),
        engine.PassUpcard(),
        engine.PassUpcard(),
        DrawStock(),
    )
    after = texts(
        hand_rows(
            build_view(
                Situation(
                    me=0,
                    names=NAMES,
                    match=MatchState(rules=RULES, dealer=1, hand_no=1, hand=big),
                    hand=big.view(0),
                    my_turn=True,
                )
            ),
            ASCII,
            None,
        )
    )
    assert "gin!" in after, after


def test_a_terminal_too_small_for_the_table_says_so(pipe: Any) -> None:
    s = FakeSeat(drawn_hand())

    async def script(player: TablePlayer, send: Any) -> None:
        small = plain(player.rows(20, 6))
        words = " ".join(line.strip() for line in small.splitlines())
        assert words.startswith("terminal too small: 20x8; the table needs 30x")
        assert words.endswith("make it larger, or use --plain")
        assert all(len(line) <= 20 for line in small.splitlines())
        roomy = plain(player.rows(40, 17))  # (at 40 columns the names take a row each)
        assert "terminal too small" not in roomy and "= 16" in roomy
        assert all(card in roomy for card in ("AS", "KS", "3D", "2C", "TH")), roomy

    run_table(pipe, s, script)


def test_cards_are_coloured_by_suit_unless_ascii_no_colour() -> None:
    colour = Look(ascii=False, colour=True)
    row = colour.card(c("7H")) + colour.card(c("QS"))
    assert "card.red" in row[0][0] and "card.black" in row[1][0]
    assert Look.from_env(environ={"NO_COLOR": "1"}).colour is False
    assert card_word(c("TH")) == "10h" and card_word(c("QS")) == "qs"


# ------------------------------------------------------------------------ the application


@dataclass
class FakeSeat:
    """A player's seat over one engine hand, as the table and the line mode read it
    (:class:`ginp2p.app.seat.Seat`). Moves it is given are applied to the hand (as the
    session would, after sending them), and its player is told of them; what the line
    mode says is kept in ``said``."""

    state: HandState
    me: int = 0
    submitted: list[Any] = field(default_factory=list)
    said: list[str] = field(default_factory=list)
    player: Any = None
    claim: bool = False  # a claim may be made now
    names: tuple[str, str] = NAMES  # as this player reads them
    own_names: tuple[str, str] = NAMES
    signed_names: tuple[str, str] = NAMES
    person: bool = True
    link_up: bool = True
    reconnected: bool = False
    latency: float | None = 0.004
    claim_timeout: int = 120
    claims: bool = False  # a silent player is claimed against (what leaving risks)
    has_game: bool = True
    my_wait: float | None = None
    waiting_for: str | None = None
    waited: float = 0.0
    over: bool = False
    done: bool = False  # the game is done (its connection closing)
    finished: bool = False
    begun: bool = True  # our hello is stored
    settling: bool = False
    busy: bool = False
    rules_asked: bool = False
    rules_due: bool = False
    rules_shown: bool = True
    resumed: bool = False  # a resumed game
    game_path: str | None = None
    claim_undelivered: bool = False
    end: MatchEnd | None = None  # how the match ended (None: it goes on)
    events: list[tuple[int, Any]] = field(default_factory=list)  # as Table.events

    def __post_init__(self) -> None:
        self.finish: asyncio.Future[SessionResult] | None = None

    # -- what the seat reads
    @property
    def opponent_name(self) -> str:
        return self.own_names[1 - self.me]

    @property
    def match(self) -> MatchState:
        return MatchState(rules=self.state.rules, dealer=1, hand_no=1, hand=self.state,
                          end=self.end)  # fmt: skip

    @property
    def rules(self) -> Any:
        return self.state.rules

    @property
    def placed(self) -> int:
        return len(self.state.moves)

    @property
    def my_turn(self) -> bool:
        return not self.state.over and self.state.to_move == self.me

    @property
    def owed(self) -> str | None:
        st = self.state
        return "a move in hand 1" if not st.over and st.to_move != self.me else None

    @property
    def may_claim(self) -> bool:
        return self.claim

    def hand(self) -> HandState:
        return self.state.view(self.me)

    def legal_actions(self) -> list[engine.Action]:
        return engine.legal_actions(self.hand()) if self.my_turn else []

    # -- what a player does
    def say(self, text: str) -> None:
        self.said.append(text)

    def submit(self, cmd: Any) -> None:
        self.submitted.append(cmd)
        if isinstance(cmd, Act):
            card = None
            if isinstance(cmd.action, DrawStock):
                card = self.state.knowledge.card_at(self.state.stock_next)
            elif isinstance(cmd.action, engine.DrawDiscard):
                card = self.state.knowledge.card_at(self.state.discard_pile[-1])
            self.state = engine.apply(self.state, cmd.action)
            self.player.event(self, Moved(self.me, cmd.action, card))
        if isinstance(cmd, QuitCmd) and self.finish is not None:
            self.finish.set_result(SessionResult(0, "quit", "left"))
        self.player.next_command(self)

    async def pause(self) -> None:
        pass

    async def hang_up(self) -> None:
        pass

    # -- the game the table runs (its seat, and the session's run)
    @property
    def seat(self) -> FakeSeat:
        return self

    async def run(self) -> SessionResult:
        self.finish = asyncio.get_running_loop().create_future()
        self.player.next_command(self)
        return await self.finish


@pytest.fixture
def pipe() -> Iterator[Any]:
    with create_pipe_input() as inp, create_app_session(input=inp, output=DummyOutput()):
        yield inp


class BellCounter(DummyOutput):
    def __init__(self) -> None:
        self.bells = 0

    def bell(self) -> None:
        self.bells += 1


def key_presses(keys: str) -> int:
    """How many key presses a terminal's input parser makes of ``keys`` (an escape
    sequence is one; so is an Esc alone, once nothing follows it)."""
    pressed: list[KeyPress] = []
    parser = Vt100Parser(pressed.append)
    parser.feed(keys)
    parser.flush()
    return len(pressed)


def run_table(pipe: Any, session: FakeSeat, script: Callable[[TablePlayer, Any], Any],
              output: DummyOutput | None = None, bell: bool = True) -> TablePlayer:  # fmt: skip
    """Play the table against ``session`` while ``script(player, send)`` presses keys:
    ``await send(keys)`` returns once the table has handled every one of them."""
    player = TablePlayer(ASCII, bell=bell, input=pipe, output=output or DummyOutput())
    session.player = player

    async def main() -> None:
        task = asyncio.ensure_future(player.play(session))
        await until(lambda: session.finish is not None or task.done(), "game under the table")
        assert player.running and player.app is not None, "the table is up"
        app = player.app
        handled = 0

        def count(_: object) -> None:
            nonlocal handled
            handled += 1

        app.key_processor.after_key_press += count

        async def send(keys: str) -> None:
            # The keys are done once the key processor took each of them and holds none
            # back: Esc alone comes after the input's wait for the rest of an escape
            # sequence, and on the command line after the wait for an Alt key (Esc b).
            want = handled + key_presses(keys)

            def taken() -> bool:
                return handled >= want and not app.key_processor.key_buffer

            pipe.send_text(keys)
            await until(lambda: taken() or app.is_done or task.done(), f"keys {keys!r}")

        try:
            await script(player, send)
        finally:
            if not task.done():
                if session.finish is not None and not session.finish.done():
                    session.finish.set_result(SessionResult(0, "over", "over"))
                # q closes the table once the game's end has reached it (before, it asks
                # to leave a live game)
                await until(lambda: player.result is not None or task.done(), "end of the game")
                # a failed script may leave a question or a summary up, which q won't close
                player.confirm = player.summary = None
                pipe.send_text("q")
            await asyncio.wait_for(task, GUARD)

    asyncio.run(main())
    return player


def screen(player: TablePlayer) -> str:
    return plain(player.rows(80, 22))


def keys(player: TablePlayer) -> str:
    return fragment_list_to_text(player.keys_line(80))


def test_keys_draw_choose_and_discard(pipe: Any) -> None:
    h = deal(RULES, "7H 8H 9H 4S 4D 4C 2C 3D AS TH", "5S 6S 7S 2D 9D JD QD KD 6C 8C", "5H",
             "KS")  # fmt: skip
    s = FakeSeat(play(h, engine.PassUpcard(), engine.PassUpcard()))
    out = BellCounter()

    async def script(player: TablePlayer, send: Any) -> None:
        assert out.bells == 1, "it became your turn"
        assert "your turn: both passed the upcard, draw from the stock (s)" in screen(player)
        await send("d")  # not now: the pile cannot be taken after both passed
        assert (
            s.submitted == []
            and player.message[1]
            == "both passed the upcard 5♥, so the first draw is from the stock; you can: stock"
        )
        await send("g")  # gin is a way to end the turn, after the draw
        assert s.submitted == [] and player.message[1].startswith("draw first: gin comes")
        await send("s")
        assert s.submitted == [Act(DrawStock())]
        assert player.selected == c("KS"), "the drawn card is chosen"
        assert "you drew KS from the stock" in screen(player)
        await send("\x1b[C")  # right, in the order shown: melds, then the deadwood
        assert player.selected == c("3D")
        await send("\x1b[C\x1b[C")  # past the end: back to the first card
        assert player.selected == c("4S")
        await send("\x1b[D\x1b[D")  # left twice: round to the last but one
        assert player.selected == c("3D")
        await send("\r")
        assert s.submitted[-1] == Act(engine.Discard(c("3D")))
        assert s.state.phase is Phase.DRAW and s.state.to_move == 1
        assert "you discarded 3D" in screen(player)
        assert "Bot's turn: drawing" in screen(player)
        s.state = play(s.state, DrawStock(), engine.Discard(c("5S")))
        player.next_command(s)
        player.next_command(s)
        assert out.bells == 2, "one ring when your turn comes back"

    run_table(pipe, s, script, out)

    quiet = BellCounter()
    s = FakeSeat(drawn_hand())
    run_table(pipe, s, lambda player, send: asyncio.sleep(0), quiet, bell=False)
    assert quiet.bells == 0


def test_the_card_taken_from_the_pile_is_not_offered_back(pipe: Any) -> None:
    h = deal(RULES, "7H 8H 9H 4S 4D 4C 2C 3D AS TH", "5S 6S 7S 2D 9D JD QD KD 6C 8C", "5H",
             "KS")  # fmt: skip
    s = FakeSeat(
        play(
            h,
            engine.PassUpcard(),
            engine.PassUpcard(),
            DrawStock(),
            engine.Discard(c("3D")),
            DrawStock(),
            engine.Discard(c("5S")),
        )
    )

    async def script(player: TablePlayer, send: Any) -> None:
        await send("d")
        assert s.submitted == [Act(engine.DrawDiscard())] and c("5S") in s.state.known_cards(0)
        assert player.selected not in (None, c("5S")), "a card that may be discarded is chosen"
        assert "Enter discards 5S" not in screen(player)
        player.selected = c("5S")  # chosen by hand: the hint does not offer it either
        await send("")
        assert "you took 5S from the pile: discard another card" in screen(player)
        assert "Enter discards 5S" not in screen(player)
        await send(":discard 5s\r")
        assert "5S was just taken from the pile and cannot go straight back" in player.look.words(
            player.message[1]
        )
        assert player.command_mode  # open for a mended line, until Esc
        await send("\x1b")  # (which may begin an Alt key of the line editor)
        assert not player.command_mode

    run_table(pipe, s, script)


def test_knock_is_proposed_then_sent_with_enter(pipe: Any) -> None:
    s = FakeSeat(drawn_hand())

    async def script(player: TablePlayer, send: Any) -> None:
        player.selected = c("AS")  # no knock discarding it: k takes the one the hint names
        await send("")
        assert "k: knock discarding KS (6)" in screen(player)
        await send("k")
        assert player.draft is not None and "knock discarding KS" in screen(player)
        assert s.submitted == [] and player.selected == c("KS")
        await send("\r")
        sent = s.submitted[-1].action
        assert isinstance(sent, engine.Knock) and sent.discard == c("KS")
        assert s.state.phase is Phase.SHOW, "the engine took the proposed melds"

    run_table(pipe, s, script)


def test_enter_on_a_hand_with_gin_asks_before_passing_the_gin_up(pipe: Any) -> None:
    """A slip of Enter would throw away a gin: the first Enter says what g does, the
    second discards as asked."""
    h = deal(RULES, "7H 8H 9H 4S 4D 4C JC QC KC 2S", "5S 6S 7S 2D 9D JD QD KD 6C 8C", "5H",
             "TH")  # fmt: skip
    s = FakeSeat(play(h, engine.PassUpcard(), engine.PassUpcard(), DrawStock()))

    async def script(player: TablePlayer, send: Any) -> None:
        player.selected = c("2S")
        await send("\r")
        assert s.submitted == [], "the gin is not passed up by one key"
        assert player.message[1] == "you have gin: g goes gin; Enter again discards 2S and plays on"
        await send("\r")
        assert s.submitted == [Act(engine.Discard(c("2S")))]

    run_table(pipe, s, script)
    plain_discard = FakeSeat(drawn_hand())  # no gin: one Enter discards

    async def one_key(player: TablePlayer, send: Any) -> None:
        player.selected = c("KS")
        await send("\r")
        assert plain_discard.submitted == [Act(engine.Discard(c("KS")))]

    run_table(pipe, plain_discard, one_key)


def test_rumino_knock_instead_of_drawing_is_sent_with_enter(pipe: Any) -> None:
    """k at the start of the turn proposes the knock that replaces the draw (no
    discard), and Enter sends it. Melds laid by hand that leave too much deadwood are
    refused before sending, in words of the moment, and the proposal stays open."""
    rumino = get_preset("rumino")
    s = FakeSeat(deal(rumino, "AS 2S 3S 4H 4D 4C 5C", "7H 8H 9H KD 2D 9S 6C", "QC",
                         dealer_seat=1))  # fmt: skip

    v = build_view(Situation(me=0, names=NAMES, hand=s.state.view(0), my_turn=True))
    assert ("k", "knock") in v.keys  # the turn line offers what the key bar does
    assert v.turn == "your turn: draw from the stock (s), take Q♣ from the pile (d), or knock (k)"
    high = deal(rumino, "AS 2S 3S 4H 4D KC QD", "7H 8H 9H KD 2D 9S 6C", "QC", dealer_seat=1)
    hv = build_view(Situation(me=0, names=NAMES, hand=high.view(0), my_turn=True))
    assert not hv.knocks and hv.turn == "your turn: draw from the stock (s) or take Q♣ from " \
        "the pile (d)"  # fmt: skip

    async def script(player: TablePlayer, send: Any) -> None:
        assert "k: knock now (5)" in screen(player)
        await send("k")
        await send("e")
        await send("1")  # one meld of the two: the rest is over the limit of 7
        await send("\r")
        assert s.submitted == [] and player.draft is not None
        said = player.message[1]
        assert said.startswith("these melds leave deadwood ") and \
            "over the knock limit of 7; lay more melds" in said, said  # fmt: skip
        await send("1")  # laid already: its key still means it
        assert player.message[1] == "1) not now: [A♠ 2♠ 3♠] is laid already (Backspace " \
            "takes the last back)", player.message  # fmt: skip
        await send("2")  # the other meld keeps the key it was listed with
        await send("\r")
        assert player.message[0] != "class:error", player.message
        sent = s.submitted[-1].action
        assert isinstance(sent, engine.Knock) and sent.discard is None
        assert s.state.phase is Phase.SHOW, "the knock took the place of the draw"

    run_table(pipe, s, script)


def test_rumino_k_after_the_draw_says_the_knock_comes_instead_of_drawing(pipe: Any) -> None:
    """In rumino a knock replaces the draw and never follows it: `k` after drawing says
    so (it used to name a discard and the deadwood it left, as if another discard might
    do), and the line prompt's `knock CARD` says the same."""
    from ginp2p.present.commands import CommandError, parse_command

    rumino = get_preset("rumino")
    s = FakeSeat(deal(rumino, "3S 4S' JK AH' 2H AC 2C'", "7H 8H 9H KD 2D 9S 6C", "QC", "6S",
                         dealer_seat=1))  # fmt: skip
    said = (
        "you cannot knock after drawing: in these rules you knock instead of drawing "
        "(at the start of your next turn, with deadwood of 7 or less); you can: discard CARD"
    )

    async def script(player: TablePlayer, send: Any) -> None:
        await send("s")
        assert s.submitted == [Act(DrawStock())] and player.selected == c("6S")
        await send("k")
        assert len(s.submitted) == 1 and player.draft is None
        assert player.message == ("class:error", said)

    run_table(pipe, s, script)
    with pytest.raises(CommandError) as refused:
        parse_command("knock 6s", s)
    assert str(refused.value) == said


def test_escape_from_laying_the_melds_goes_back_to_the_knock(pipe: Any) -> None:
    """`e` then Esc returns to the proposal (it used to drop the knock, and Enter then
    only discarded); Esc on the proposal takes the knock back."""
    s = FakeSeat(drawn_hand())

    async def script(player: TablePlayer, send: Any) -> None:
        player.selected = c("KS")
        await send("k")
        proposal = player.draft
        keys = fragment_list_to_text(player.keys_line(80))
        assert proposal is not None and "e lay them yourself" in keys and "Esc cancel" in keys
        await send("e")
        assert player.draft is not None and player.draft.editing
        await send("\x1b")
        assert player.draft == proposal and s.submitted == []
        await send("\r")
        sent = s.submitted[-1].action
        assert isinstance(sent, engine.Knock) and sent.discard == c("KS")

    run_table(pipe, s, script)


def italian_knock() -> FakeSeat:
    """QA's italian-jokers knock (no knock limit): the proposal lays [7H 8H 9H 10H JK]
    [QS QD QC], deadwood 7; laying melds by hand lists eighteen candidates."""
    h = deal(get_preset("italian-jokers"), "7H 8H 9H TH QS QD QC JK 2S 5C",
             "5S 6S 7S 2D 9D JD KD 6C 8C 3H", "4H", "KS")  # fmt: skip
    return FakeSeat(play(h, engine.PassUpcard(), engine.PassUpcard(), DrawStock()))


def editor(player: TablePlayer) -> str:
    """The declaration's rows, between the lines that rule it off from the table."""
    return screen(player).split("─" * 80)[2]


def test_a_candidate_keeps_its_key_while_the_melds_are_laid(pipe: Any) -> None:
    """The key read for the second meld still lays it after the first is laid (it
    used to be renumbered away: "no such choice", or another meld); a candidate that
    shares a card with a pick stays listed with its key, greyed under "not now", and
    its key says why."""
    s = italian_knock()

    async def script(player: TablePlayer, send: Any) -> None:
        player.selected = c("KS")
        await send("k")
        await send("e")
        first = editor(player)
        assert "1) [7H 8H 9H]  2) [7H 8H 9H TH]" in first and "f) [QS QD QC]" in first
        assert "not now" not in first
        await send("1")
        text = editor(player)
        assert "melds     [7H 8H 9H]\n" in text
        assert "f) [QS QD QC]  g) [QS QD QC JK]" in text, text  # the keys read before
        assert "not now: 2) [7H 8H 9H TH]" in text and "1)" not in text
        await send("2")  # shares cards with the meld laid: said, nothing laid
        assert player.message == ("class:error", "2) not now: 7♥ is in [7♥ 8♥ 9♥] already")
        assert player.draft is not None and len(player.draft.melds) == 1
        await send("f")
        assert "melds     [7H 8H 9H] [QS QD QC]\n" in editor(player)
        assert "f)" not in editor(player) and "not now: 2) [7H 8H 9H TH]" in editor(player)
        await send("\x7f")  # Backspace: the queens again, under the same key
        assert "f) [QS QD QC]" in editor(player) and s.submitted == []

    run_table(pipe, s, script)


def test_melds_that_leave_more_deadwood_than_the_proposal_are_sent_by_a_second_enter(
        pipe: Any) -> None:  # fmt: skip
    """A slip of a key in the editor once sent 34 deadwood instead of 10 without a word:
    Enter on melds worse than the proposal says what they cost; Enter again sends them,
    Esc goes back to the proposal. Melds as good as the proposal go with one Enter."""
    s = italian_knock()

    async def script(player: TablePlayer, send: Any) -> None:
        player.selected = c("KS")
        await send("k")
        await send("e")
        await send("1")
        await send("f")
        await send("\r")
        assert s.submitted == [] and player.draft is not None
        asked = "this leaves deadwood 27, the proposal 7: Enter again sends it, Esc goes back"
        assert player.message == ("class:warn", asked)
        assert fragment_list_to_text(player.bottom(80)) == " " + asked, "one row at 80 columns"
        await send("\r")
        sent = s.submitted[-1].action
        assert isinstance(sent, engine.Knock) and sent.discard == c("KS")
        assert [m.cards for m in sent.melds] == [cs("7H 8H 9H"), cs("QS QD QC")]

    run_table(pipe, s, script)
    s = italian_knock()

    async def back(player: TablePlayer, send: Any) -> None:
        player.selected = c("KS")
        await send("k")
        proposal = player.draft
        await send("e1\r")
        assert s.submitted == [] and player.message[0] == "class:warn"
        await send("\x1b")  # Esc: the proposal again, and Enter sends it
        assert player.draft == proposal
        await send("\r")
        assert s.submitted[-1] == Act(proposal.action())  # type: ignore[union-attr]

    run_table(pipe, s, back)
    s = italian_knock()

    async def as_good(player: TablePlayer, send: Any) -> None:
        player.selected = c("KS")
        await send("k")
        await send("e3f\r")  # the proposal's own melds: no question
        sent = s.submitted[-1].action
        assert isinstance(sent, engine.Knock) and player.message[0] != "class:warn"
        assert [m.cards for m in sent.melds] == [cs("7H 8H 9H TH JK"), cs("QS QD QC")]

    run_table(pipe, s, as_good)


def test_more_candidates_than_keys_get_new_keys_only_when_asked(pipe: Any) -> None:
    """Two jokers and an eight-card run make 105 candidates, more than the keys: those
    past the last key are counted, and Tab (never a pick) gives what can be laid now
    new keys. A list longer than the screen says so rather than ending mid-way."""
    h = deal(get_preset("italian-jokers"), "JK 4H 5H 6H 7H 8H 9H TH JH JK'",
             "5S 6S 7S 2D 9D JD KD 6C 8C 3H", "4C", "2C")  # fmt: skip
    s = FakeSeat(play(h, engine.PassUpcard(), engine.PassUpcard(), DrawStock()))

    async def script(player: TablePlayer, send: Any) -> None:
        player.selected = c("2C")
        await send("ge")  # the gin proposal, laid by hand
        text = editor(player)
        assert "48 more without a key: Tab gives new keys to all that can be laid now" in text
        assert "1) [4H 5H 6H]  2) [4H 5H 6H 7H]" in text
        assert text.rstrip().endswith("rows more: a taller terminal shows them"), text
        assert "Tab new keys" in keys(player)
        await send("1")
        assert "not now: 2) [4H 5H 6H 7H]" in editor(player), "no key moved by a pick"
        await send("\t")
        assert player.message == ("class:warn", "new keys: what can be laid now is numbered "
                                  "afresh")  # fmt: skip
        assert "1) [7H 8H 9H]  2) [7H 8H 9H TH]" in editor(player)
        assert "not now" not in editor(player) and "Tab new keys" not in keys(player)
        assert s.submitted == []

    run_table(pipe, s, script)


def test_a_meld_the_knock_limit_rules_out_after_a_pick_is_greyed_with_the_reason() -> None:
    """Under a knock limit a meld may stop fitting once another is laid (the rest could
    not get within the limit): it keeps its key, greyed, and says so."""
    from ginp2p.console.tui.render import draft_rows
    from ginp2p.present.draft import Draft

    d = Draft("knock", c("KS"), cs("5D 2C 2H AD 4S 7D 3S 6D 8D 2S")).edit(RULES)
    assert "1) [2S 2H 2C]  2) [2S 3S 4S]  3) [5D 6D 7D 8D]  4) [6D 7D 8D]" in \
        texts(draft_rows(d, RULES, ASCII, 80))  # fmt: skip
    d = d.pick(d.keyed[0], RULES)
    text = texts(draft_rows(d, RULES, ASCII, 80))
    assert "   3) [5D 6D 7D 8D]\n   not now: 2) [2S 3S 4S]  4) [6D 7D 8D]" in text, text
    assert d.why_not(d.keyed[3], RULES) == "after [6♦ 7♦ 8♦], no melds of the rest bring the " \
        "deadwood within the knock limit of 10"  # fmt: skip


def chain_showdown() -> FakeSeat:
    """Ann knocked with [7H 8H 9H] [4S 4D 4C] [JC QC KC]; Bot shows, and lays off 10H,
    then JH on top of it. The proposal leaves 2D 3D = 5."""
    h = deal(RULES, "7H 8H 9H 4S 4D 4C JC QC KC 2S", "TH JH 5S 6S 7S 2D 3D JD QD KD", "5H",
             "AD")  # fmt: skip
    h = play(h, engine.PassUpcard(), engine.PassUpcard(), DrawStock())
    knock = next(a for a in engine.legal_actions(h) if a.kind == "knock" and a.discard == c("2S"))
    return FakeSeat(play(h, knock), me=1)


def test_the_defenders_melds_and_layoffs_keep_their_keys(pipe: Any) -> None:
    """A layoff laid first no longer takes the melds off the list (their keys then meant
    the layoffs); a layoff made possible by another gets a key of its own after the
    others, greyed once what it builds on is taken back. Melds and layoffs worse than
    the proposal ask before they are sent."""
    s = chain_showdown()

    async def script(player: TablePlayer, send: Any) -> None:
        assert "deadwood  2D 3D = 5" in editor(player)
        await send("e")
        assert "1) [5S 6S 7S]  2) [JD QD KD]  3) TH→[7H 8H 9H]" in editor(player)
        await send("3")
        text = editor(player)
        assert "1) [5S 6S 7S]  2) [JD QD KD]  4) JH→[7H 8H 9H]" in text, text
        await send("4")
        await send("\x7f\x7f")  # both layoffs back: JH no longer goes on
        assert "not now: 4) JH→[7H 8H 9H]" in editor(player)
        await send("4")
        assert player.message[1] == "4) not now: J♥ does not go onto [7♥ 8♥ 9♥] now"
        await send("12")
        await send("\r")
        assert s.submitted == [] and player.message[1].startswith(
            "this leaves deadwood 25, the proposal 5: Enter again sends it"
        )
        await send("34\r")  # a new declaration, as good as the proposal: sent at once
        shown = s.submitted[-1].action
        assert isinstance(shown, engine.Show) and s.state.over
        assert [x.card for x in shown.layoffs] == [c("TH"), c("JH")]

    run_table(pipe, s, script)


def test_a_layoff_names_its_meld_a_set_in_full() -> None:
    """A long run is written first…last; a set in full, since 7♠…7♣ reads as a run."""
    from ginp2p.console.tui.render import draft_rows
    from ginp2p.game.melds import Layoff, Meld
    from ginp2p.present.draft import Draft

    targets = (Meld(cs("7S 7H 7C")), Meld(cs("5D 6D 7D 8D")))
    d = Draft("show", None, cs("7D 9D 2C"), (), (Layoff(c("7D"), 0), Layoff(c("9D"), 1)),
              targets)  # fmt: skip
    text = texts(draft_rows(d, RULES, ASCII, 80))
    assert "7D→[7S 7H 7C]" in text and "9D→[5D…8D]" in text


def test_the_showdown_proposal_is_accepted_with_one_key(pipe: Any) -> None:
    s = FakeSeat(knocked_hand(), me=1)

    async def script(player: TablePlayer, send: Any) -> None:
        text = screen(player)
        assert "your showdown" in text and "laid off  TH→[7H 8H 9H]" in text
        assert "deadwood  2D 3D 9D = 14" in text
        await send("\r")
        shown = s.submitted[-1].action
        assert isinstance(shown, engine.Show) and [x.card for x in shown.layoffs] == [c("TH")]
        assert s.state.over

    run_table(pipe, s, script)


def test_the_command_line_completes_and_runs_commands(pipe: Any) -> None:
    s = FakeSeat(drawn_hand())

    async def script(player: TablePlayer, send: Any) -> None:
        done = CommandCompleter(player)
        verbs = [x.text for x in done.get_completions(Document("kn"), None)]  # type: ignore[arg-type]
        assert verbs == ["knock"]
        cards = [x.text for x in done.get_completions(Document("knock "), None)]  # type: ignore[arg-type]
        assert cards == ["ks"], "only discards that allow a knock"
        every = [x.text for x in done.get_completions(Document("discard "), None)]  # type: ignore[arg-type]
        assert sorted(every) == sorted(card_word(x) for x in s.state.view(0).cards(0))
        await send(":")
        assert player.command_mode
        await send("discard zz\r")
        assert s.submitted == [] and "'zz' is not a card" in player.message[1]
        # the line stays open with its words: what is typed next mends it, and is
        # never taken for the table's keys (d, s, Enter)
        assert player.command_mode and player.command.text == "discard zz"
        await send("\x7f\x7f2c\r")
        assert s.submitted == [Act(engine.Discard(c("2C")))] and not player.command_mode

    run_table(pipe, s, script)


def test_help_screen_and_ctrl_c_asks_before_leaving(pipe: Any) -> None:
    s = FakeSeat(drawn_hand())

    async def script(player: TablePlayer, send: Any) -> None:
        await send("?")
        assert "choose a card in your hand" in screen(player)
        assert "At the showdown Enter sends" in screen(player), "all of it on 80 x 24"
        await send("\x1b")
        assert "choose a card in your hand" not in screen(player)
        await send("\x03")  # Ctrl-C
        assert player.confirm is not None and "leave the game?" in player.confirm[0]
        await send("n")
        assert player.confirm is None and s.submitted == []
        s.claims = True  # a quit is no pause: the other player may claim meanwhile
        await send("\x03")
        assert player.confirm is not None
        assert (
            player.confirm[0] == "leave? saved for `ginp2p resume`; Bot may claim if "
            "your move waits 120 s"
        )
        assert len(player.confirm[0] + " (y/n) ") <= 80
        assert "y yes" in keys(player) and "n no" in keys(player)
        await send("n")
        s.begun = False  # a guest at the rules, its hello not written: nothing is kept
        await send("\x03")
        assert player.confirm is not None
        assert player.confirm[0] == "leave? nothing has been played yet, so nothing is kept"
        await send("n")
        await send(":resign\r")
        assert player.confirm is not None and player.confirm[0].startswith("resign?")
        await send("\x03")  # at any other question, Ctrl-C says no
        assert player.confirm is None and s.submitted == []
        await send("\x03\x03")  # a second Ctrl-C at "leave?" leaves, as at the line prompt
        assert s.submitted == [QuitCmd()]

    player = run_table(pipe, s, script)
    assert player.result == SessionResult(0, "quit", "left")


def test_the_claim_key_and_illegal_keys_explain(pipe: Any) -> None:
    h = drawn_hand()
    s = FakeSeat(h, me=1, claim=True)

    not_yet = "nothing to claim: Ann owes a move in hand 1, not yet for 120 s"

    async def script(player: TablePlayer, send: Any) -> None:
        await send("s")
        assert s.submitted == [] and "not your move: waiting for Ann: a move in hand 1" in \
            player.message[1]  # fmt: skip
        await send("\r")
        assert s.submitted == [] and player.message[0] == "class:error"
        player.event(s, Moved(0, engine.Discard(c("KS")), None))  # the other player moves
        assert player.message == ("", ""), "an old refusal is not left on the screen"
        s.claim = False
        await send("c")  # said on the message line, not sent
        assert s.submitted == [] and player.message[1] == not_yet
        s.claim = True
        asked = " claim the match? Ann forfeits it (y/n)"
        await send("c")  # it ends the match: asked first, as a resignation is
        assert s.submitted == [] and fragment_list_to_text(player.bottom()) == asked
        await send("n")
        assert s.submitted == [] and fragment_list_to_text(player.bottom()) != asked
        await send(":claim\r")  # typed, the same question
        assert s.submitted == [] and fragment_list_to_text(player.bottom()) == asked
        s.claim = False  # Ann moved while the question was up
        await send("y")
        assert s.submitted == [] and player.message[1] == not_yet
        s.claim = True
        await send("c")
        await send("y")
        assert s.submitted == [ClaimCmd()]

    run_table(pipe, s, script)


def test_a_key_the_table_has_no_use_for_says_so(pipe: Any) -> None:
    """`x` and Tab showed nothing, and the last message stayed as if it were their
    answer: now each says it does nothing, in its place, without a bell (Up, Down, Home,
    End were silent too). Keys with other uses are left to them: Ctrl-L redraws, the
    arrows choose, `:` types a command, F1 opens the help as `?` does."""
    s = FakeSeat(drawn_hand())
    out = BellCounter()

    async def script(player: TablePlayer, send: Any) -> None:
        rang = out.bells
        await send("c")
        assert player.message[1] == "nothing to claim: you are not waiting"
        for key, name in (("\t", "Tab"), ("x", "x"), ("\x1bOQ", "F2"), (" ", "Space"),
                          ("\x1b[A", "Up"), ("\x1b[B", "Down"), ("\x1b[H", "Home"),
                          ("\x1b[F", "End"), ("\x1b[5~", "PageUp"), ("X", "X")):  # fmt: skip
            await send(key)
            assert player.message == ("class:error", f"{name} does nothing here: ? lists "
                                      "the keys"), key  # fmt: skip
        # a capital of a key in use: most likely Caps Lock, which nothing on screen shows
        await send("D")
        assert player.message == ("class:error", "D does nothing here (the keys are lower "
                                  "case: is Caps Lock on?): ? lists the keys")  # fmt: skip
        assert "x does nothing here" not in screen(player), "said, not logged"
        await send("\x0c")  # Ctrl-L: prompt_toolkit's redraw, not an unknown key
        assert player.message[1].startswith("D does nothing here")
        await send("\x1a")  # Ctrl-Z: no shell job control in a full-screen table
        assert player.message[1].startswith("Ctrl-Z does not pause a game")
        chosen = player.selected
        await send("\x1b[C")
        assert player.selected != chosen and player.message == ("", "")
        await send("\x1bOP")  # F1: the help, as in most programs
        assert player.show_help and "choose a card in your hand" in screen(player)
        await send("\x1b")
        assert not player.show_help
        await send(":x")
        assert player.command_mode and player.command.text == "x"
        await send("\x1b")
        assert not player.command_mode and s.submitted == [] and out.bells == rang

    run_table(pipe, s, script, out)


def test_a_claim_beaten_after_it_ended_the_match_gives_the_table_back(pipe: Any) -> None:
    """Our claim ends the match on our screen, then the other player's move that crossed
    it arrives and beats it: the table must not stay on "you win"."""
    h = drawn_hand()
    s = FakeSeat(h, me=1, claim=True)

    async def script(player: TablePlayer, send: Any) -> None:
        s.end = MatchEnd.CLAIM
        player.event(s, MatchOver(1, "claim", (0, 0)))
        player.next_command(s)
        assert player.final is not None and "making sure the other side" in screen(player)
        s.end = None  # the refold: the move that crossed the claim beat it
        s.state = engine.apply(s.state, engine.Discard(c("KS")))
        player.event(s, Moved(0, engine.Discard(c("KS")), None))
        player.next_command(s)
        assert player.final is None and "making sure the other side" not in screen(player)
        assert "your turn" in screen(player)

    run_table(pipe, s, script)


def test_the_hosts_rules_are_asked_and_a_hand_summary_waits_for_enter(pipe: Any) -> None:
    s = FakeSeat(knocked_hand(), me=1)

    async def script(player: TablePlayer, send: Any) -> None:
        player.event(s, RulesOffered(RULES.with_(game_target=50)))
        assert "play by these rules?" in screen(player) and "game to 50" in screen(player)
        await send("y")
        assert s.submitted == [RulesCmd(True)] and "play by these rules?" not in screen(player)
        view = s.state.view(1)
        done = engine.apply(s.state, draft_from(engine.legal_actions(view)[0], view).action())
        assert done.result is not None
        s.state = done
        player.event(s, HandScored(1, done.result, (13, 0)))
        text = screen(player)
        assert "hand 1: Ann knocked; Ann scores 13" in text
        assert "laid off TH" in text and "points this hand: Bot 0, Ann 13" in text
        await send("\r")
        assert player.summary is None and "points this hand" not in screen(player)
        assert s.submitted == [RulesCmd(True)], "Enter only closed the summary"

    run_table(pipe, s, script)


def test_enter_on_a_summary_shows_the_next_showdown_before_sending_it(pipe: Any) -> None:
    """Italian: the other player may knock on the first move of the next hand, while our
    summary of the last is still up. One Enter sent our showdown unseen: it closes the
    summary, and only the next Enter sends the proposal we then see."""
    s = FakeSeat(knocked_hand(), me=1)  # hand 2, where Ann has knocked already

    async def script(player: TablePlayer, send: Any) -> None:
        view = s.state.view(1)
        last = engine.apply(s.state, draft_from(engine.legal_actions(view)[0], view).action())
        assert last.result is not None
        player.event(s, HandScored(1, last.result, (13, 0)))  # hand 1's summary
        player.next_command(s)  # then hand 2's showdown is owed
        assert player.summary is not None and player.draft is not None
        assert "Enter: back to the table (the next hand is over already: your showdown " \
            "waits)" in screen(player)  # fmt: skip
        for key in ("e", "\r"):
            await send(key)
        assert s.submitted == [] and player.summary is None and player.draft is not None
        assert not player.draft.editing
        await send("\r")
        assert len(s.submitted) == 1 and s.submitted[0].action.kind == "show"

    run_table(pipe, s, script)


def test_the_table_is_the_default_only_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    import argparse
    import io

    from ginp2p.cli.command import build_parser
    from ginp2p.cli.network import _table

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    def args(*flags: str) -> argparse.Namespace:
        return build_parser().parse_args(["play", *flags])

    monkeypatch.setenv("TERM", "xterm")
    monkeypatch.setattr("sys.stdin", io.StringIO())
    monkeypatch.setattr("sys.stdout", Tty())
    assert _table(args()) is None, "no terminal to read keys from: the line mode"
    monkeypatch.setattr("sys.stdin", Tty())
    table = _table(args())
    assert isinstance(table, TablePlayer) and table.bell and not table.look.ascii
    table = _table(args("--ascii", "--no-bell"))
    assert table.look.ascii and not table.bell
    assert _table(args("--plain")) is None
    monkeypatch.setenv("TERM", "dumb")
    assert _table(args()) is None


def test_no_color_keeps_reverse_and_underline() -> None:
    """NO_COLOR asks for no colour, not for no emphasis: the chosen card stays
    reversed and deadwood underlined, and nothing has a colour."""
    style = Look(colour=False).style
    chosen = style.get_attrs_for_style_str("class:card.red class:card.selected")
    dead = style.get_attrs_for_style_str("class:card.black class:card.dead")
    assert chosen.reverse and dead.underline
    assert not chosen.color and not dead.color and not dead.bgcolor


def test_typed_commands_explain_a_refusal_and_what_would_do() -> None:
    """The command line (the table's `:` and the line mode) says why a knock is
    refused and which discards would knock; the first upcard is the pile's top too."""
    from ginp2p.present.commands import CommandError, parse_command

    proto: Any = FakeSeat(drawn_hand())
    with pytest.raises(CommandError) as refused:
        parse_command("knock 2c", proto)
    assert str(refused.value).startswith("you cannot knock discarding 2♣: that leaves "
                                         "deadwood 14, over the limit of 10; you may knock "
                                         "discarding K♠")  # fmt: skip
    knock = parse_command("knock ks", proto)
    assert isinstance(knock, Act) and knock.action.kind == "knock"
    h = deal(RULES, "7H 8H 9H 4S 4D 4C 2C 3D AS TH", "5S 6S 7S 2D 9D JD QD KD 6C 8C", "5H")
    upcard: Any = FakeSeat(h)  # the non-dealer decides on the upcard first
    assert parse_command("pile", upcard) == Act(engine.TakeUpcard())


def test_typed_melds_and_layoffs_replace_the_proposal() -> None:
    """`knock CARD [..] [..]` and `show [..] lay CARD`: what a person who cannot use the
    table's editor types to lay down melds of their own choosing."""
    from ginp2p.present.commands import CommandError, parse_command

    knocker: Any = FakeSeat(drawn_hand())
    cmd = parse_command("knock ks [4s 4d 4c] [7h 8h 9h 10h]", knocker)
    assert isinstance(cmd, Act) and isinstance(cmd.action, engine.Knock)
    assert cmd.action.discard == c("KS")
    assert sorted(sorted(x.code for x in m.cards) for m in cmd.action.melds) == \
        [["4C", "4D", "4S"], ["7H", "8H", "9H", "TH"]]  # fmt: skip
    with pytest.raises(CommandError, match=re.escape(
            "these melds leave deadwood 40 (A♠ 7♥ 8♥ 9♥ 10♥ 3♦ 2♣), over the knock limit of "
            "10; lay more melds")):  # fmt: skip
        parse_command("knock ks [4s 4d 4c]", knocker)  # said before it is sent, not after
    with pytest.raises(CommandError, match="only the defender lays off"):
        parse_command("knock ks lay", knocker)
    defender: Any = FakeSeat(knocked_hand(), me=1)
    show = parse_command("show [5s 6s 7s] [jd qd kd] lay th", defender)
    assert isinstance(show, Act) and isinstance(show.action, engine.Show)
    assert len(show.action.melds) == 2 and [x.card for x in show.action.layoffs] == [c("TH")]
    for wrong, why in [("show [5s 6s] lay th", "[5s 6s] is not a meld you can lay down"),
                       ("show [5s 6s 7s] lay 2d", "2♦ cannot be laid off"),
                       # a slip that would lay no melds at all (80 deadwood) is refused
                       ("show lay th", "`lay` takes the melds in brackets first"),
                       ("show [5s 6s 7s] lay", "`lay` takes the melds in brackets first"),
                       ("show [5s 6s 7s] th", "put melds in brackets and layoffs after `lay`"),
                       ("discard 2d junk", "discard takes one card")]:  # fmt: skip
        with pytest.raises(CommandError, match=re.escape(why)):
            parse_command(wrong, defender)


def test_every_move_reads_as_a_sentence_in_both_tenses() -> None:
    """The table says what just happened ("you drew"), the replay and the export what
    happens ("Ann draws"): one table of words, so the two never drift apart."""
    from typing import get_args

    from ginp2p.present.words import action_words

    seven, king, four = parse_cards("7H KS 4C")
    filled = {"card": seven, "discard": king, "melds": (), "layoffs": (), "player": 0}
    for cls in get_args(engine.Action):
        fields = getattr(cls, "__dataclass_fields__", {})
        action = cls(**{f: filled[f] for f in fields if f in filled})
        now = action_words(action, "Ann", four)
        then = action_words(action, "you", four, past=True)
        for text in (now, then):
            assert "_" not in text and "??" not in text, text  # no raw kind, no unknown card
        assert now.split()[1] != then.split()[1], (now, then)  # two tenses of one verb
        assert ("discarding K♠" in now) == ("discarding K♠" in then)
    assert action_words(DrawStock(), "Ann", four) == "Ann draws 4♣ from the stock"
    assert action_words(DrawStock(), "you", None, past=True) == "you drew from the stock"


def test_long_lines_break_between_words_and_are_never_cut(pipe: Any) -> None:
    """What the log and the message row say reaches the player whole at any width: the
    instruction at the end of a long line ("`ginp2p games` lists yours") is not lost
    to a `…` at the edge, and no word is split over two rows."""
    s = FakeSeat(drawn_hand())
    said = ("Bob's ginp2p is playing another game with you (a new one, or an older one "
            "resumed): both sides must open the same game; `ginp2p games` lists yours")  # fmt: skip

    async def script(player: TablePlayer, send: Any) -> None:
        player._log(said)
        player.message = ("class:error", said)
        for width in (40, 60, 80):
            rows = plain(player.rows(width, 40)).splitlines()
            start = next(i for i, r in enumerate(rows) if "Bob's ginp2p" in r)
            tail = [r for r in rows[start:] if r.strip()]
            assert " ".join(" ".join(r.split()) for r in tail).endswith(" ".join(said.split()))
            assert all(len(r) <= width and not r.endswith("…") for r in tail)
            bottom = fragment_list_to_text(player.bottom(width)).splitlines()
            assert " ".join(w for r in bottom for w in r.split()) == " ".join(said.split())
            assert all(len(r) <= width for r in bottom)
        await send("\x03y")

    run_table(pipe, s, script)


def test_two_copies_of_one_card_read_and_type_apart() -> None:
    """Two decks: taking 7♥ from the pile and throwing the other 7♥ is allowed, and must
    not read like throwing the card just taken. The second copy is 7♥′ on the screen,
    and typing it as shown throws that copy."""
    from ginp2p.present.commands import CommandError, parse_command
    from ginp2p.present.words import action_words

    italian = get_preset("italian")
    h = deal(italian, "7H#1 8S 8D 2C 3C 9D JS QS KS 5H", "4S 4D 4C AH 2H 3H 6S 6D 6C TD", "7H")
    took = play(h, engine.TakeUpcard())
    proto: Any = FakeSeat(took)
    assert card_word(c("7H#1")) == "7h'"
    thrown = parse_command(f"discard {card_word(c('7H#1'))}", proto)
    assert thrown == Act(engine.Discard(c("7H#1")))
    with pytest.raises(CommandError, match="7♥ was just taken from the pile"):
        parse_command("discard 7h#0", proto)
    words = [action_words(engine.TakeUpcard(), "Ann", c("7H"), past=True),
             action_words(engine.Discard(c("7H#1")), "Ann", past=True)]  # fmt: skip
    assert words == ["Ann took the upcard 7♥", "Ann discarded 7♥′"]
    h = deal(italian, "7H 8S 8D 2C 3C 9D JS QS KS 5H", "4S 4D 4C AH 2H 3H 6S 6D 6C TD", "7H#1")
    proto = FakeSeat(play(h, engine.TakeUpcard()))  # the first copy comes first
    with pytest.raises(CommandError, match="7♥′ was just taken from the pile"):
        parse_command("discard 7h'", proto)
    assert parse_command("discard 7h", proto) == Act(engine.Discard(c("7H")))


def test_a_long_match_ends_on_screen_with_the_way_out() -> None:
    """38 hands, two bonus rows and the lead: the end screen shows the last hands that
    fit, and the totals and "q or Enter: leave" are never the rows cut off."""
    from ginp2p.present.summary import MatchSummary

    hands = tuple((n, "Ann knocked", 0, 20) for n in range(1, 39))
    ms = MatchSummary("MATCH OVER: Ann wins (reached the target)", ("you", "Ann"), hands,
                      (0, 760), (("game bonus", 0, 100), ("25 for each hand won", 0, 950)),
                      (0, 1810), (1, 1810))  # fmt: skip
    for height in (19, 12, 30):
        rows = texts(match_rows(ms, 80, True, height)).splitlines()
        assert len(rows) <= height, (height, rows)
        assert rows[-1].strip().startswith("q or Enter: leave")
        assert any(r.strip() == "Ann wins by 1810" for r in rows)
        shown = [r for r in rows if r.strip().split(" ")[0].isdigit()]
        assert shown[-1].split()[0] == "38" and f"… {38 - len(shown)} earlier hands" in \
            " ".join(rows)  # fmt: skip
    # a claim waiting for the other player to come back: the long line is wrapped, not
    # cut off at 80 columns, and the totals still show
    waiting = "your claim has not reached Bartholomew Fairweather: waiting for them (q " \
        "leaves; a resume delivers it)"  # fmt: skip
    rows = texts(match_rows(ms, 80, False, 19, waiting)).splitlines()
    assert len(rows) <= 19 and all(len(r) <= 80 for r in rows), rows
    assert " ".join(r.strip() for r in rows[-2:]) == waiting
    assert any(r.split()[:1] == ["total"] for r in rows)


def test_a_match_end_reads_as_words_wherever_it_is_told() -> None:
    """The logs and the JSON keep the codes (target, bust, gin_streak); a line for people
    says what they mean."""
    from ginp2p.present.words import match_end_words

    assert [match_end_words(e, "Bob") for e in MatchEnd] == [
        "reached the target", "Bob went over the limit", "rumino",
        "a gin in every hand from the first", "Bob resigned", "Bob stopped answering",
        "Bob cheated"]  # fmt: skip
    assert match_end_words("something new") == "something new"


def test_the_table_offers_rumino_and_warns_before_a_knock_that_scores_nothing(
        pipe: Any) -> None:  # fmt: skip
    """Rumino: seven of a straight flush after the draw wins the match, and the table
    says so (g declares it) rather than offering the gin it also is; before the draw, a
    hand all in melds may knock for 0, but drawing and going gin scores -10 (better)."""
    rumino = get_preset("rumino")
    h = deal(rumino, "4H 5H 6H 7H 8H 9H KS", "7S 8S 2D KD 2C 9S 6C", "QC", "TH")
    drawn = play(h, DrawStock())
    v = build_view(Situation(me=0, names=NAMES, match=None, hand=drawn.view(0), my_turn=True))
    assert ("g", "rumino") in v.keys and ("g", "gin") not in v.keys
    assert "g: RUMINO discarding KS (wins the match)" in texts(table_rows(v, ASCII, 80, c("KS")))
    s = FakeSeat(drawn)

    async def script(player: TablePlayer, send: Any) -> None:
        await send("g")
        assert s.submitted == [Act(engine.DeclareRumino(c("KS")))]

    run_table(pipe, s, script)
    before = FakeSeat(h)  # over the limit before the draw: k says so, names no discard

    async def knock_early(player: TablePlayer, send: Any) -> None:
        await send("k")
        assert player.message[1].startswith("you cannot knock now: your deadwood is 10, "
                                            "over the limit of 7"), player.message  # fmt: skip
        assert before.submitted == []

    run_table(pipe, before, knock_early)
    melded = deal(rumino, "9S 9D 9C 4H 5H 6H 7H", "7S 8S 2D KD 2C 3S 6C", "QC", "TH")
    v = build_view(Situation(me=0, names=NAMES, match=None, hand=melded.view(0), my_turn=True))
    assert "k: knock now (0) · or draw and go gin: better" in texts(table_rows(v, ASCII, 80, None))
    # after the draw rumino has no knock: a low hand knocks next turn, instead of drawing
    low = play(deal(rumino, "9S 9D 9C 4H 5H 6H 2C", "7S 8S 2D KD 3C 3S 6C", "QC", "TH"),
               DrawStock())  # fmt: skip
    lv = build_view(Situation(me=0, names=NAMES, match=None, hand=low.view(0), my_turn=True))
    keep = texts(table_rows(lv, ASCII, 80, c("TH"), 2))
    assert "Enter discards TH (deadwood 2) · k next turn, before drawing" in keep
    assert "no knock yet" not in keep + texts(table_rows(lv, ASCII, 80, c("2C"), 10))


# ------------------------------------------------------------------------ rules by preset


def test_the_help_tells_the_rules_being_played_and_fits_80_by_24() -> None:
    """Each preset's help says its own melds and knock (rumino's runs of 3 or 4, jokers
    and knock instead of drawing; italian's knock at any deadwood; openspiel's wall),
    not classic's, in the 18 rows an 80 x 24 table has under its header."""
    from ginp2p.console.tui.overlays import HELP_ROWS
    from ginp2p.game.rules import PRESETS

    def helped(name: str, **changes: Any) -> str:
        rows = help_rows(80, get_preset(name).with_(**changes))
        assert len(rows) <= HELP_ROWS, (name, changes)
        assert all(len(line) <= 80 for line in plain(rows).splitlines()), (name, changes)
        return " ".join(line.strip() for line in plain(rows).splitlines())

    # every preset, and each with one setting changed as `--set` would (openspiel, the
    # longest, drops its showdown tip where one more sentence would not fit)
    for name in PRESETS:
        for changes in [{}, {"layoffs": False}, {"knock_limit": None}, {"big_gin_bonus": 31},
                        {"shutout_bonus": 200}, {"gin_can_be_undercut": True},
                        {"undercut_on_tie": not get_preset(name).undercut_on_tie},
                        {"dealer_rotation": "fixed"}, {"stock_end": "wall"},
                        {"same_dealer_after_void": True}, {"layoffs_per_run_end": 1},
                        {"discard_taken_card": True}, {"box_to": "each"}]:  # fmt: skip
            text = helped(name, **changes)
            assert "At the showdown Enter sends" in text or name == "openspiel", (name, changes)
    for changes in [{"deck_size": 104}, {"deck_size": 108, "joker_value": 15}]:
        helped("classic", **changes)
    classic = helped("classic")
    assert "a run of 3 or more of one suit, ace low" in classic and "at most" not in classic
    assert "You may knock with deadwood of 10 or less; with none, go gin" in classic
    assert "No knocking: only a gin ends the hand." in helped("classic", knock_limit=0)
    assert "joker" not in classic and "rumino" not in classic and "wall" not in classic
    rumino = helped("rumino")
    assert "help · rumino" in rumino and "3 or 4 of one rank, no two of one suit" in rumino
    assert "a run of 3 or more of one suit (at most 4 per meld), ace low or high" in rumino
    assert "jokers wild (1 per meld)" in rumino and "Second copies show ′ (7♥′; type 7h')" in rumino
    assert "with deadwood of 7 or less, knock instead (no discard, no layoffs)" in rumino
    assert "Each player adds their own deadwood; a gin -10" in rumino
    assert "10 or less" not in rumino and "Over 100 you are out." in rumino
    assert "Rumino (after the draw, 7 of one rank or straight flush) or gins in the first 3 " \
        "hands win the match" in rumino  # fmt: skip
    assert "g       go gin, or declare rumino" in rumino and "rumino 2c" in rumino
    assert "knock (instead of drawing)" in rumino
    italian = helped("italian")
    assert "You may knock whatever the deadwood" in italian and "10 or less" not in italian
    openspiel = helped("openspiel")
    assert "a run of 3 or more of one suit (at most 5 per meld)" in openspiel  # longer: two
    assert "The wall: at 2 cards left" in openspiel and "Second copies" not in openspiel
    assert "pass (first upcard or wall)" in openspiel


def test_the_help_tells_how_each_preset_scores() -> None:
    """The help tells what a knock, an undercut, a gin and the match's end score in these
    rules, from the RuleSet's values: classic's 25 undercut bonus (a changed bonus reads
    changed), hoyle's 20 gin, 10 undercut, shutout and box to each player, french's
    undercut only with less deadwood, openspiel's layoffs per run end and fixed dealer."""

    def helped(rules: Any) -> str:
        return " ".join(line.strip() for line in plain(help_rows(80, rules)).splitlines())

    classic = helped(get_preset("classic"))
    assert "Knocker scores the deadwood difference; undercut (defender equal or lower, " \
        "never against a gin): defender scores it + 25." in classic  # fmt: skip
    assert "Gin: 25, big gin (all 11 cards meld after the draw): 31, each + the defender's " \
        "deadwood." in classic  # fmt: skip
    assert "Game to 100; then the winner adds 100 and 25 per hand won." in classic
    assert "Stock down to 2 and no knock on that draw: no score." in classic
    assert "face cards 10" in classic and "pictures" not in classic
    assert "defender scores it + 15" in helped(get_preset("classic").with_(undercut_bonus=15))
    assert "(no layoffs)" in helped(get_preset("classic").with_(layoffs=False))
    hoyle = helped(get_preset("hoyle"))
    assert "defender scores it + 10. Gin: 20 + the defender's deadwood; no big gin." in hoyle
    assert "no score; the same dealer deals again" in hoyle
    assert "the winner adds 100 (200 if the loser has 0), each player adds 20 per hand " \
        "won" in hoyle  # fmt: skip
    french = helped(get_preset("french"))
    assert "undercut (defender lower, never against a gin): defender scores it + 25; " \
        "equal: 0." in french and "big gin" in french  # fmt: skip
    openspiel = helped(get_preset("openspiel"))
    assert "(at most 2 layoffs per run end)" in openspiel and "equal: 0" in openspiel
    assert "Each turn draw, then discard (even one just taken)" in openspiel
    assert "Game to 100, no bonuses, same dealer every hand." in openspiel
    assert (
        "Also no score: the 50th pile draw, or both in a row putting the pile's card back."
        in openspiel
        and "Gin: 25 + the defender's deadwood; no big gin." in openspiel
    )
    italian = helped(get_preset("italian"))
    assert "The lower deadwood scores the difference; equal: no score." in italian
    assert "undercut" not in italian and "Game to 100, no bonuses." in italian
    assert "face cards and jokers 10" in helped(get_preset("italian-jokers"))


def test_the_help_lists_only_the_commands_these_rules_have() -> None:
    """The table's help lists the typed commands of these rules: rumino's knock takes no
    card (no `knock qs`) and it has `rumino 2c`; `take` only with a first upcard, `pass`
    with one or a wall, `gin` alone only with a big gin, `jk` only with jokers."""

    def commands(name: str) -> str:
        text = plain(help_rows(80, get_preset(name)))
        return " ".join(text[text.index("commands (") : text.index("At the showdown")].split())

    assert commands("classic") == "commands (cards as 7h, 10h, qs): stock pile take pass " \
        "discard 7h knock qs gin 2c gin (big gin) show say TEXT claim resign quit"  # fmt: skip
    assert commands("rumino") == "commands (cards as 7h, 10h, qs, jk): stock pile discard " \
        "7h knock gin 2c rumino 2c show say TEXT claim resign quit"  # fmt: skip
    assert "take" not in commands("french") and "pass" not in commands("french")
    assert "take pass" in commands("openspiel") and "gin 2c show" in commands("openspiel")
    assert "gin 2c gin (big gin)" in plain(help_rows(80)), "rules not known yet: classic's"
    assert "g       go gin or big gin" in plain(help_rows(80, get_preset("classic")))


def test_rules_without_a_pass_have_no_p_in_the_help(pipe: Any) -> None:
    """Rumino has no first upcard and no wall: its help listed `p  pass (not in these
    rules)`, a key for nothing. The key is not listed, and pressed it says why, as the
    line prompt's `pass` does; rules with a pass keep it."""
    from ginp2p.present.commands import CommandError, parse_command

    rumino = plain(help_rows(80, get_preset("rumino")))
    assert not re.search(r"\bp\s+pass|\bpass\b", rumino), rumino
    assert "   k       knock (instead of drawing)     g       go gin, or declare rumino" in rumino
    assert "   p       pass (the first upcard)" in plain(help_rows(80, get_preset("classic")))
    assert "pass (at the wall)" in plain(help_rows(80, get_preset("french").with_(
        stock_end="wall")))  # fmt: skip
    s = FakeSeat(deal(get_preset("rumino"), "3S 4S' JK AH' 2H AC 2C'", "7H 8H 9H KD 2D 9S 6C",
                         "QC", dealer_seat=1))  # fmt: skip
    said = "these rules have no pass (no first upcard, no wall); you can: stock | pile | knock"

    async def script(player: TablePlayer, send: Any) -> None:
        await send("p")
        assert s.submitted == [] and player.message == ("class:error", said)

    run_table(pipe, s, script)
    with pytest.raises(CommandError) as refused:
        parse_command("pass", s)
    assert str(refused.value) == said


def test_the_help_of_the_longest_rules_is_whole_on_the_table(pipe: Any) -> None:
    """`?` in a rumino match at 80 x 24: the rules, the keys and the last line all show."""
    rumino = get_preset("rumino")
    s = FakeSeat(deal(rumino, "4H 5H 6H 7H 8H 9H KS", "7S 8S 2D KD 2C 9S 6C", "QC", "TH"))

    async def script(player: TablePlayer, send: Any) -> None:
        await send("?")
        text = screen(player)
        assert "Melds: 3 or 4 of one rank, no two of one suit" in text
        assert "the match." in text and "At the showdown Enter sends" in text, text

    run_table(pipe, s, script)


def test_a_tie_and_a_rumino_gin_say_why_they_score_as_they_do() -> None:
    """French: equal deadwood is no undercut, and nobody scores; the summary says it is a
    tie. Rumino: a gin takes 10 off the ginner's own score, and the summary says so."""
    french = get_preset("french")
    h = deal(french, "7H 8H 9H 4S 4D 4C JC QC KC 2S", "5S 6S 7S 8D 9D TD JD QD KD AH", "5H",
             "AD")  # fmt: skip
    h = play(h, DrawStock())  # french: no pass round
    knock = next(a for a in engine.legal_actions(h) if a.kind == "knock" and a.discard == c("2S"))
    done = play(h, knock)
    shown = engine.apply(done, engine.propose_show(done))
    r = shown.result
    assert r is not None and not r.scored
    assert [d.deadwood for d in r.declarations] == [1, 1]  # type: ignore[union-attr]
    s = hand_summary(1, r, (0, 0), 0, NAMES, french)
    assert "equal deadwood (1 each): a tie, nobody scores" in s.reasons
    assert "a tie, nobody scores" in texts(summary_rows(s, ASCII, 80))
    from ginp2p.game.melds import Meld

    rumino = get_preset("rumino")
    h = deal(rumino, "AS 2S 3S 4S 7H 7D 7C", "7S 8H 9H KD 2D 9S 6C", "QC", "KH")
    h = play(h, DrawStock(), engine.Gin(c("KH"), (Meld(cs("AS 2S 3S 4S")),
                                                   Meld(cs("7H 7D 7C")))))  # fmt: skip
    r = engine.apply(h, engine.propose_show(h)).result
    assert r is not None
    mine = hand_summary(1, r, (-10, 51), 0, NAMES, rumino).reasons
    assert mine == ("each player adds their own deadwood (low is good)",
                    "a gin: -10 to your own score")  # fmt: skip
    theirs = hand_summary(1, r, (-10, 51), 1, NAMES, rumino)
    assert "a gin: -10 to Ann's own score" in texts(summary_rows(theirs, ASCII, 80))


def test_where_each_adds_their_own_deadwood_the_points_are_not_called_a_score() -> None:
    """Rumino (scoring own_deadwood): a hand's points count against a player, so the
    summary and the log say "5 added to your score", never "you score 5"; a gin's -10
    comes off. Classic's winner still scores."""
    from ginp2p.game.melds import Meld

    rumino = get_preset("rumino")
    h = deal(rumino, "AS 2S 3S 4H 4D 4C 5C", "7H 8H 9H KD 2D 9S 6C", "QC", "TH")
    done = play(h, next(a for a in engine.legal_actions(h) if a.kind == "knock"))
    r = engine.apply(done, engine.propose_show(done)).result
    assert r is not None and r.points == (5, 27)
    assert hand_summary(1, r, (5, 27), 0, NAMES, rumino).headline == \
        "hand 1: you knocked; 5 added to your score, 27 added to Bot's score"  # fmt: skip
    assert (
        log_line(HandScored(1, r, (5, 27)), 1, NAMES, rumino)
        == "hand 1: Ann knocked; 5 added to Ann's score, 27 added to your score · Bot 27, Ann 5"
    )
    g = deal(rumino, "AS 2S 3S 4S 7H 7D 7C", "7S 8H 9H KD 2D 9S 6C", "QC", "KH")
    g = play(g, DrawStock(), engine.Gin(c("KH"), (Meld(cs("AS 2S 3S 4S")),
                                                   Meld(cs("7H 7D 7C")))))  # fmt: skip
    gin = engine.apply(g, engine.propose_show(g)).result
    assert gin is not None
    assert hand_summary(1, gin, (-10, 51), 0, NAMES, rumino).headline == \
        "hand 1: you went gin; 10 taken off your score, 51 added to Bot's score"  # fmt: skip
    assert (
        hand_summary(1, r, (5, 27), 0, NAMES, RULES).headline
        == "hand 1: you knocked; you score 5, Bot 27"
    )  # the same points where a winner scores


def test_rules_changed_with_set_are_called_changed_in_the_header_and_the_help() -> None:
    """`--preset openspiel --set knock_limit=0` is not openspiel: the header said it was.
    It says "changed", as the replay's header does where it has no room for the settings;
    the help, whose rules text is of the changed rules, too."""
    h = drawn_hand()
    for rules, name in ((get_preset("openspiel").with_(knock_limit=0), "openspiel, changed"),
                        (get_preset("openspiel"), "openspiel")):  # fmt: skip
        m = MatchState(rules=rules, dealer=1, hand_no=1, hand=h)
        v = build_view(Situation(me=0, names=NAMES, match=m, hand=h.view(0), my_turn=True))
        assert texts(header_rows(v, 80)).startswith(f" ginp2p · {name}, game to 100 · hand 1")
        assert texts(help_rows(80, rules)).startswith(f" help · {name} · Esc closes it")
    # a changed target only: the header shows it, and "changed" said nothing more
    m = MatchState(rules=get_preset("openspiel").with_(game_target=60), dealer=1, hand_no=1,
                   hand=h)  # fmt: skip
    v = build_view(Situation(me=0, names=NAMES, match=m, hand=h.view(0), my_turn=True))
    assert texts(header_rows(v, 80)).startswith(" ginp2p · openspiel, game to 60 · hand 1")


def test_where_going_over_a_limit_puts_a_player_out_the_header_shows_the_room_left() -> None:
    """Rumino is lost by going over 100, not won by hands: the header shows how far each
    player is from the limit; a match to a target keeps the hands won."""
    rumino = get_preset("rumino")
    h = deal(rumino, "4H 5H 6H 7H 8H 9H KS", "7S 8S 2D KD 2C 9S 6C", "QC", "TH")
    m = MatchState(rules=rumino, dealer=1, hand_no=2, scores=(23, 104), hands_won=(1, 0),
                   hand=h)  # fmt: skip
    header = texts(header_rows(build_view(Situation(me=0, names=NAMES, match=m, hand=h.view(0))),
                               80))  # fmt: skip
    assert "Ann (you) 23 · 77 to the limit" in header and "Bot 104 · 4 over the limit" in header
    assert "won" not in header
    classic = MatchState(rules=RULES, dealer=1, hand_no=2, scores=(23, 0), hands_won=(1, 0))
    v = build_view(Situation(me=0, names=NAMES, match=classic))
    assert "Ann (you) 23 · 1 hand won" in texts(header_rows(v, 80))


# ------------------------------------------------------------------------ the wall (openspiel)


def at_the_wall(holding: str, upcard: str) -> HandState:
    """An openspiel hand run down to the wall: both players draw from the stock and throw
    the card back until 2 are left; the dealer (Bot, seat 1) is at the wall with
    ``holding``, and the last card thrown (``upcard``) is the pile's top."""
    from ginp2p.game.cards import deck

    rules = get_preset("openspiel")
    other = "7S 8S TS QS 3D 5D 7D 9C TC KH"
    used = {*cs(holding), *cs(other), c("6S"), c(upcard)}
    filler = [x.code for x in deck(52) if x not in used]
    stock = " ".join([*filler[: rules.stock_size - 3], upcard])
    h = play(deal(rules, other, holding, "6S", stock), engine.PassUpcard(),
             engine.PassUpcard())  # fmt: skip
    while h.phase in (Phase.DRAW, Phase.FIRST_UPCARD):
        h = engine.apply(h, DrawStock())
        h = engine.apply(h, engine.Discard(h.knowledge.card_at(h.hands[h.to_move][-1])))
    assert h.phase is Phase.WALL and h.to_move == 1 and h.upcard == c(upcard)
    return h


def test_at_the_wall_the_table_offers_only_what_the_rules_allow(pipe: Any) -> None:
    """At openspiel's wall a knock is offered only where the upcard makes one (never with
    26 deadwood), a gin with g, and the hint row starts with what it offers."""
    stuck = at_the_wall("AS 2S 5H 6H 9D 3C 4C 5C 2H AH", "JH")  # 26 deadwood at best
    v = build_view(Situation(me=1, names=NAMES, hand=stuck.view(1), my_turn=True))
    assert [a.kind for a in engine.legal_actions(stuck.view(1))] == ["wall_pass"]
    assert v.turn == "the wall: no knock using the upcard J♥: pass (p)"
    assert v.deadwood == 26 and ("k", "knock") not in v.keys and ("p", "pass") in v.keys
    shown = texts(table_rows(v, ASCII, 80, v.hand[0]))
    assert "k:" not in shown and "knocks" not in shown and "(k)" not in shown
    knock = at_the_wall("7H 8H 9H 4S 4D 4C JC QC 2D KS", "KC")  # 2 discarding K♠
    kv = build_view(Situation(me=1, names=NAMES, hand=knock.view(1), my_turn=True))
    assert kv.knocks and not any(k.gin for k in kv.knocks)
    assert kv.turn == "the wall: knock (k) using the upcard K♣, or pass (p)"
    assert ("k", "knock") in kv.keys and ("g", "gin") not in kv.keys
    hint = next(line for line in texts(table_rows(kv, ASCII, 80, kv.hand[0])).splitlines()
                if "knock discarding" in line)  # fmt: skip
    assert hint.strip().startswith("k: knock discarding"), hint
    gin = at_the_wall("7H 8H 9H 4S 4D 4C 5C 6C 7C KS", "TH")
    gv = build_view(Situation(me=1, names=NAMES, hand=gin.view(1), my_turn=True))
    assert gv.turn == "the wall: knock (k) or go gin (g) using the upcard 10♥, or pass (p)"
    assert ("g", "gin") in gv.keys and ("k", "knock") in gv.keys
    rows = texts(table_rows(gv, ASCII, 80, c("4S"))).splitlines()
    assert any(line.strip().startswith("g: GIN discarding KS") for line in rows), rows
    from ginp2p.present.commands import parse_command  # the line mode's `gin CARD` at the wall

    typed = parse_command("gin ks", FakeSeat(gin, me=1))
    assert isinstance(typed, Act) and isinstance(typed.action, engine.WallKnock)
    back = at_the_wall("7H 8H 9H 4S 4D 4C 5C 6C 7C 2D", "KS")  # knock, throwing K♠ back
    thrown = parse_command("knock ks", FakeSeat(back, me=1))  # not "not in hand"
    assert isinstance(thrown, Act) and thrown.action.kind == "wall_knock"
    assert thrown.action.discard == c("KS")  # type: ignore[union-attr]
    s = FakeSeat(stuck, me=1)

    async def script(player: TablePlayer, send: Any) -> None:
        await send("\r")  # Enter: no discard at the wall, and no knock to offer
        assert player.message[1] == "no discard at the wall: no knock using the upcard J♥: " \
            "pass (p)"  # fmt: skip
        await send("p")
        assert s.submitted == [Act(engine.WallPass())]

    run_table(pipe, s, script)


def test_at_the_wall_the_line_mode_names_the_upcard_a_knock_takes() -> None:
    """--plain at openspiel's wall: "your cards" are ten, and the upcard the knock takes
    (what `knock CARD` / `gin CARD` are about) is said beside them, as the table's turn
    line says it."""
    from ginp2p.console.line import LinePlayer

    for holding, up, line in (
        ("7H 8H 9H 4S 4D 4C JC QC 2D KS", "KC", "the wall: knock using the upcard K♣, or pass"),
        ("7H 8H 9H 4S 4D 4C 5C 6C 7C KS", "TH",
         "the wall: knock or go gin using the upcard 10♥, or pass"),
        ("AS 2S 5H 6H 9D 3C 4C 5C 2H AH", "JH", "the wall: no knock using the upcard J♥: pass"),
    ):  # fmt: skip
        s = FakeSeat(at_the_wall(holding, up), me=1)
        LinePlayer().look(s)
        mine = next(i for i, x in enumerate(s.said) if x.startswith("your cards: "))
        assert s.said[mine + 1] == line, s.said


def test_a_refused_move_says_the_rule_that_refuses_it() -> None:
    """Refusals a QA probe of the rare endings met at the line prompt, each of which named
    no rule or a wrong one: at the wall every move but a knock with the upcard or a pass
    was "you cannot draw from the stock now" and a knock over the limit "you cannot knock
    discarding T♠ now"; a knock whose discard leaves gin "no discard lets you knock now";
    rumino's `knock CARD` before the draw the same; `gin CARD` with the card just taken
    "does not leave a gin hand"; and the card hint read "7H, TH, TH or JK" in ASCII."""
    from ginp2p.present.commands import CommandError, parse_command

    def refused(typed: str, state: HandState) -> str:
        with pytest.raises(CommandError) as e:
            parse_command(typed, FakeSeat(state, me=state.to_move))
        return str(e.value)

    wall = at_the_wall("7H 8H 9H 4S 4D 4C JC QC 2D KS", "KC")
    for typed in ("stock", "take", "pile", "discard 2d"):
        assert refused(typed, wall).startswith(
            "at the wall the stock is not drawn: you may only knock using the upcard K♣ "
            "(knock CARD takes it and discards CARD) or pass; you can: pass | knock CARD"
        ), typed
    assert refused("knock 7h", wall).startswith(  # the upcard counted in: 8♥ 9♥ 2♦ K♠
        "you cannot knock discarding 7♥: that leaves deadwood 29, over the limit of 10; you "
        "may knock discarding 2♦, K♠")  # fmt: skip

    gin_hand = "7H 8H 9H 4S 4D 4C JC QC KC 2S", "5S 6S 7S 2D 9D JD QD KD 6C 8C"
    for rules in (RULES, RULES.with_(knock_limit=0)):
        drawn = play(deal(rules, *gin_hand, "5H", "TH"), engine.PassUpcard(),
                     engine.PassUpcard(), DrawStock())  # fmt: skip
        assert refused("knock 2s", drawn).startswith(
            "discarding 2♠ leaves gin, which scores more: gin 2♠ goes gin; you can: "
        )
    assert refused("knock jc", drawn).startswith(
        "you cannot knock discarding J♣: that leaves deadwood 22, over the limit of 0; you "
        "may go gin discarding 2♠")  # fmt: skip
    taken = play(deal(RULES, *gin_hand, "TH", "5H"), engine.TakeUpcard())
    assert refused("gin th", taken).startswith(
        "10♥ was just taken from the pile and cannot go straight back; you can: "
    )

    rumino = deal(get_preset("rumino"), "AS 2S 3S 4S 7H 7D 7C", "7S 8H 9H KD 2D 9S 6C", "QC",
                  "KH")  # fmt: skip
    for typed in ("knock 7c", "knock qd"):  # Q♦ is not even in the hand: it takes no card
        assert refused(typed, rumino) == "in these rules the knock takes no card: type " \
            "knock alone; you can: stock | pile | knock"  # fmt: skip
    over = deal(get_preset("rumino"), "AS 2S 3S 4S 7H 7D QC", "7S 8H 9H KD 2D 9S 6C", "QD",
                "KH")  # deadwood 24  # fmt: skip
    assert (
        refused("knock qc", over) == "in these rules the knock takes no card, and you "
        "cannot knock now: your deadwood is 24, over the limit of 7; you can: stock | pile"
    )
    assert refused("rumino qc", over) == "draw first: a rumino is declared after the draw, " \
        "with a discard; you can: stock | pile"  # fmt: skip
    assert refused("rumino 2s", drawn) == "these rules have no rumino"
    assert refused("discard now", rumino) == "'now' is not a card (try 7H, 10H, TH or JK)"
    # a move that names no card, given one, is refused: `take 2h` took the upcard
    for typed, verb in (("take 2h", "take"), ("pass 5c", "pass"), ("stock ks", "stock")):
        assert refused(typed, rumino) == f"{verb} takes no card, not '{typed.split()[1]}': " \
            f"type {verb} alone"  # fmt: skip
    assert refused("show 7c", rumino).startswith("show takes no card: `show` lays down")


def test_a_knock_at_the_wall_says_it_was_at_the_wall() -> None:
    """A knock with the upcard at the wall ends like a knock but was no ordinary turn:
    the summary, the log line and the export and audit say where it was made."""
    wall = at_the_wall("7H 8H 9H 4S 4D 4C JC QC 2D KS", "KC")
    knock = next(a for a in engine.legal_actions(wall.view(1))
                 if a.kind == "wall_knock" and a.discard == c("KS"))  # type: ignore[union-attr]  # fmt: skip
    h = engine.apply(wall, knock)
    h = engine.apply(h, engine.legal_actions(h.view(0))[0])  # Ann shows
    r = h.result
    assert r is not None and r.at_the_wall and r.knocker == 1
    assert hand_summary(4, r, (0, 0), 1, NAMES, get_preset("openspiel")).headline \
        .startswith("hand 4: you knocked at the wall")  # fmt: skip
    line = log_line(HandScored(4, r, (0, 0)), 0, NAMES)
    assert line.startswith("hand 4: Bot knocked at the wall"), line
    from ginp2p.record.export import _result
    from ginp2p.record.report import _result_json

    assert _result(r, NAMES, None)["at_the_wall"] and _result_json(r)["at_the_wall"]  # type: ignore[index]
    ordinary = engine.apply(wall, engine.Resign(0)).result  # no knock: not at the wall
    assert ordinary is not None and not ordinary.at_the_wall


def test_a_pass_at_the_wall_names_who_passed() -> None:
    """One pass at the wall ends the hand unscored: the ending says whose pass it was."""
    h = at_the_wall("AS 2S 5H 6H 9D 3C 4C 5C 2H AH", "JH")
    r = engine.apply(h, engine.WallPass()).result
    assert r is not None and not r.scored
    assert log_line(HandScored(4, r, (0, 0)), 0, NAMES) == \
        "hand 4: Bot passed at the wall (no score) · Ann 0, Bot 0"  # fmt: skip
    assert hand_summary(4, r, (0, 0), 1, NAMES, get_preset("openspiel")).headline == \
        "hand 4: you passed at the wall (no score)"  # fmt: skip
    from ginp2p.present.words import result_words

    assert result_words(r, NAMES) == "Bot passed at the wall (no score)"
    from ginp2p.record.export import _result
    from ginp2p.record.report import _result_json

    assert _result(r, NAMES, None)["ended_by"] == "guest" and _result_json(r)["ended_by"] == 1  # type: ignore[index]
    # a resignation names who resigned too, whoever's turn it was
    gave_up = engine.apply(h, engine.Resign(1 - h.to_move)).result
    assert gave_up is not None
    assert result_words(gave_up, NAMES) == f"{NAMES[1 - h.to_move]} resigned; no score"


def test_long_names_keep_both_scores_in_the_header_and_a_blank_after_them() -> None:
    """Two names of 24 letters (the longest --name) or of 64 (what the other player's
    hello may carry) on an 80-column table: each score stays beside its name, the names
    are shortened to make room (they used to push the opponent's name and score off the
    line), and a name of 11 letters or more no longer runs into "10 cards in hand"."""
    h = drawn_hand()
    m = MatchState(rules=RULES, dealer=1, hand_no=12, scores=(123, 104), hands_won=(11, 10),
                   hand=h)  # fmt: skip
    for n in (24, 64):
        names = ("Annabel" + "a" * (n - 7), "Bartholomew" + "b" * (n - 11))
        v = build_view(Situation(me=0, names=names, match=m, hand=h.view(0), my_turn=True))
        line = texts(header_rows(v, 80)).splitlines()[1]
        assert len(line) <= 80
        assert re.fullmatch(r" Annabela*… \(you\) 123 · 11 hands won +Bartholomewb*… 104 · "
                            r"10 hands won", line), line  # fmt: skip
        assert texts(table_rows(v, ASCII, 80)).splitlines()[0] == f" {names[1]} 10 cards in hand"
    short = build_view(Situation(me=0, names=NAMES, match=m, hand=h.view(0), my_turn=True))
    assert " Ann (you) 123 · 11 hands won" in texts(header_rows(short, 80))  # as it was
    assert texts(table_rows(short, ASCII, 80)).splitlines()[0] == " Bot        10 cards in hand"
    shown = build_view(Situation(me=1, names=("Annabel Lee-Richardson", "Bot"),
                                 hand=knocked_hand().view(1), my_turn=True))  # fmt: skip
    assert texts(table_rows(shown, ASCII, 80)).startswith(" Annabel Lee-Richardson: [")


def test_the_line_mode_names_the_cards_under_the_top_of_the_pile() -> None:
    """The table shows "under it: …" beside the pile's top; `look` in the line mode gave
    only the top and a count, so a player who cannot see the screen never heard them."""
    from ginp2p.console.line import LinePlayer

    s = FakeSeat(knocked_hand(), me=1)  # the upcard 5♥, then Ann's knock discarding 2♠
    LinePlayer().look(s)
    top = next(i for i, x in enumerate(s.said) if x.startswith("hand 1 "))
    assert "pile 2♠ (2)" in s.said[top] and s.said[top + 1] == "under it: 5♥", s.said


def test_the_line_mode_says_what_waits_for_a_player_who_is_away() -> None:
    """`stock` typed while the other player was away answered nothing until they came
    back (their key to the card is owed): the line mode says so. With them there, the
    shuffle's and the keys' steps stay unsaid."""
    from ginp2p.console.line import LinePlayer
    from ginp2p.proto.outputs import Waiting

    s = FakeSeat(drawn_hand(), me=1)
    LinePlayer().event(s, Waiting(0, "the key for stock card 22", 0.0))
    assert s.said == []
    s.link_up = False
    LinePlayer().event(s, Waiting(0, "the key for stock card 22", 0.0))
    assert s.said == ["waiting for Ann: the key for stock card 22 (they are away: "
                      "reconnecting…)"]  # fmt: skip


#: The events of drawn_hand(): both passed the upcard, then Ann (seat 0) drew.
RESUMED = [
    (0, HandDealt(1, 1, (), c("5H"))),
    (1, Moved(0, engine.PassUpcard(), None)),
    (2, Moved(1, engine.PassUpcard(), None)),
    (3, Moved(0, DrawStock(), None)),
]


def test_the_table_logs_the_moves_since_ours_in_a_resumed_game(pipe: Any) -> None:
    """The table resumed said only "the game goes on"; it logs the moves since ours."""
    s = FakeSeat(drawn_hand(), me=1)
    s.events = RESUMED

    async def script(player: TablePlayer, send: Any) -> None:
        log = [text for _, text in player.log]
        assert log[-2].endswith("the game goes on: hand 1, Ann 0, Bot 0"), log
        assert log[-1].endswith("Ann drew from the stock"), log

    run_table(pipe, s, script)


def test_the_line_mode_recaps_the_moves_since_ours_in_a_resumed_game() -> None:
    """After a crash and `resume`, the line mode said only "resumed from 56 stored
    entries" and the table: how Ann's discard got there was for the player to work out.
    It says the moves of the hand since our own last one."""
    from ginp2p.console.line import LinePlayer

    h = drawn_hand()  # both passed the upcard, then Ann (seat 0) drew from the stock
    s = FakeSeat(h, me=1)
    s.events = RESUMED
    LinePlayer().next_command(s)
    assert not any(x.startswith("since") for x in s.said), "a game not resumed: no recap"
    s.said.clear()
    s.resumed = True
    LinePlayer().next_command(s)
    assert s.said[0] == "since your last move: Ann drew from the stock", s.said
