"""The line mode as a person who cannot see a screen uses it: `ginp2p play --plain`
with commands through a pipe, against the computer player (two real processes).
Every fact needed to play is printed as text: the hand in melds, what the other player
laid down, the showdown, the score sheet."""

from __future__ import annotations

import io
import re
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.processes import GUARD, piped, stop


@pytest.mark.e2e
def test_a_hand_played_by_typing_shows_everything_at_the_showdown(tmp_path: Path) -> None:
    proc = piped(tmp_path, "play", "--plain", "--name", "Pat", "--set", "game_target=500")
    assert proc.stdin is not None and proc.stdout is not None
    seen: list[str] = []

    def send(text: str) -> None:
        assert proc.stdin is not None
        proc.stdin.write(text + "\n")
        proc.stdin.flush()

    deadline = time.monotonic() + GUARD
    try:
        # a patient player: pass, draw, throw back what was drawn, show what is proposed
        while (line := proc.stdout.readline()) and time.monotonic() < deadline:
            seen.append(line)
            if line.startswith("your move: take | pass"):
                send("resign")  # a slip of the keyboard: asked, nothing happens
                send("pass")
            elif line.startswith("your move: stock"):
                send("stock")
            elif m := re.match(r"you drew (\S+) from the stock", line):
                send(f"discard {m.group(1)}")
            elif line.startswith("your move: show"):
                send("show")
            elif re.match(r"  (Computer|you) scores? \d+", line):
                send("resign yes")
        proc.wait(GUARD)
    finally:
        stop(proc)
    out = "".join(seen)
    assert proc.returncode == 0, out
    assert "the rules: classic, game to 500" in out
    assert re.search(r"your cards: (\[[^]]+\] )*deadwood .+ = \d+\n", out), "in melds"
    assert "? resigning ends the match and Computer wins it; type `resign yes`" in out
    hand = re.search(r"hand \d+: .*(knocked|went gin).*\n  you: (.+)\n  Computer: (.+)\n", out)
    assert hand is not None, out
    assert "deadwood" in hand.group(2) + hand.group(3)
    if "Computer knocked" in hand.group(0):  # the knocker's melds came before our show
        laid = out.index("Computer laid down: [")
        assert laid < out.index("`show` lays down") < out.index(hand.group(0))
    assert re.search(r"MATCH OVER: Computer wins( by \d+)? \(you resigned\).*\n(  hand \d+: .+\n)*"
                     r"  total: you \d+, Computer \d+\n", out), out  # fmt: skip
    assert out.count("wins by") <= 1, "the lead is said once, in the MATCH OVER line"
    assert len(re.findall(r"\btotals?\b", out)) == 1, "the totals once, in the score sheet"
    assert "waiting for Computer: a commitment" not in out, "no shuffle steps in the way"


@pytest.mark.e2e
def test_the_computer_of_play_never_claims_against_a_slow_person(tmp_path: Path) -> None:
    """Nobody else waits in `play`: a person may think past the claim timeout, and is
    not told to hurry."""
    proc = piped(tmp_path, "play", "--plain", "--claim-timeout", "1")
    assert proc.stdin is not None and proc.stdout is not None
    seen: list[str] = []
    try:
        while line := proc.stdout.readline():
            seen.append(line)
            if line.startswith("your move:"):
                # the person thinks for four claim timeouts: the time passing is what is
                # tested (nothing may happen meanwhile), not a wait for something to happen
                time.sleep(4)
                proc.stdin.write("resign yes\n")
                proc.stdin.flush()
        proc.wait(GUARD)
    finally:
        stop(proc)
    out = "".join(seen)
    assert re.search(r"MATCH OVER: Computer wins( by \d+)? \(you resigned\)", out), out
    assert "stopped answering" not in out and "may claim" not in out


class _Said:
    """What the line mode reads of its seat to answer `help`, and what it says."""

    def __init__(self, preset: str) -> None:
        from ginp2p.game.rules import get_preset

        self.lines: list[str] = []
        self.rules_asked = False
        self.rules = get_preset(preset)

    def say(self, text: str) -> None:
        self.lines += text.splitlines()


def test_help_tells_the_rules_being_played_and_ctrl_c_only_at_a_terminal(
        monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    """`help` starts with the preset's rules in the table help's words (rumino: runs of 3
    or 4, knock instead of drawing, rumino), not classic's; Ctrl-C is listed only where
    it is a key: from a pipe nobody can type it."""
    from ginp2p.console.line import LinePlayer
    from ginp2p.game.rules import get_preset
    from ginp2p.present.words import rules_help

    piped = _Said("rumino")
    LinePlayer(stdin=io.StringIO())._line(piped, "help")  # type: ignore[arg-type]
    assert piped.lines[: len(rules_help(get_preset("rumino")))] == rules_help(get_preset("rumino"))
    text = " ".join(piped.lines)
    assert "(at most 4 per meld)" in text and "knock instead (no discard, no layoffs)" in text
    assert "10 or less" not in text and "rumino CARD" in text
    assert "Ctrl-C" not in text and "quit" in text

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr(sys, "stdin", Terminal())
    typed = _Said("classic")
    LinePlayer()._line(typed, "help")  # type: ignore[arg-type]
    assert "You may knock with deadwood of 10 or less; with none, go gin." in " ".join(typed.lines)
    assert any(line.startswith("     Ctrl-C") for line in typed.lines)


def test_help_lists_only_the_commands_these_rules_have() -> None:
    """`help` lists the commands of the rules being played, not every preset's with some
    marked: rumino's knock takes no card and it has `rumino CARD` but no layoffs and no
    first upcard; classic has `knock CARD`, the first upcard and a big gin; openspiel's
    `pass` is also at the wall; french has no first upcard. Every line fits 80 columns."""
    from ginp2p.game.rules import PRESETS, get_preset
    from ginp2p.present.commands import help_text

    def commands(rules: Any) -> list[str]:
        """What is typed, each line's, after its letter (if any)."""
        text = help_text(rules, ctrl_c=True)
        assert all(len(line) <= 80 for line in text.splitlines()), rules.name
        return [line[5:].split("  ")[0] for line in text.split("\n\n", 1)[1].splitlines()]

    for rules in PRESETS.values():
        commands(rules)
    rumino = commands(get_preset("rumino"))
    assert "knock" in rumino and "rumino CARD" in rumino and "show [7h 8h 9h]" in rumino
    assert not {"knock CARD", "take", "pass", "gin CARD | gin", "show [7h 8h 9h] lay 5d"} & \
        set(rumino)  # fmt: skip
    classic = commands(get_preset("classic"))
    assert {"knock CARD", "take", "pass", "gin CARD | gin", "show [7h 8h 9h] lay 5d"} <= \
        set(classic) and "knock" not in classic and "rumino CARD" not in classic  # fmt: skip
    assert "  p  pass                    pass the first upcard; pass at the wall" in help_text(
        get_preset("openspiel"), ctrl_c=False
    )
    assert "take" not in commands(get_preset("french"))
    assert "show [7h 8h 9h]" in commands(get_preset("classic").with_(layoffs=False))


def test_a_card_typed_without_a_prime_is_the_first_copy_when_both_are_held() -> None:
    """In a two-deck game `ad` names A♦ and `ad'` names A♦′: holding both, the plain name
    must not throw the other copy because it comes first in the hand. Holding one copy,
    the plain name finds it whichever it is."""
    from types import SimpleNamespace

    from ginp2p.game.cards import parse_card
    from ginp2p.game.engine import Phase
    from ginp2p.present.commands import _find_card

    def held(*names: str) -> Any:
        cards = [parse_card(n) for n in names]
        return SimpleNamespace(cards=lambda me: cards, phase=Phase.DISCARD, upcard=None)

    both = held("AD'", "5C", "AD")
    assert _find_card(both, 0, "ad") == parse_card("AD")
    assert _find_card(both, 0, "ad'") == parse_card("AD'")
    assert _find_card(held("5C", "AD'"), 0, "ad") == parse_card("AD'")


def test_a_meld_that_leaves_too_much_deadwood_is_refused_with_the_deadwood() -> None:
    """Rumino, before drawing: A♣ 2♣′ JK is a run, but knocking with it leaves 10 over
    the limit of 7. It used to be called no meld at all; the refusal gives the deadwood
    it would leave, and what the knock with no brackets would lay."""
    from ginp2p.console.line import LinePlayer
    from ginp2p.game import engine
    from ginp2p.game.rules import get_preset
    from tests.console.test_tui_table import FakeSeat, deal

    h = deal(get_preset("rumino"), "3S 4S' JK AH' 2H AC 2C'", "7H 8H 9H KD 2D 9S 6C", "QC",
             dealer_seat=1)  # fmt: skip
    s = FakeSeat(h)
    s.player = player = LinePlayer(stdin=io.StringIO())
    player._line(s, "knock [ac 2c' jk]")
    assert s.said == ["? you cannot knock laying down [A♣ 2♣′ JK]: that leaves deadwood 10 "
                      "(3♠ 4♠′ A♥′ 2♥), over the limit of 7; with no brackets the best melds "
                      "are laid (deadwood 6)"]  # fmt: skip
    player._line(s, "knock [ac 2c]")
    assert s.said[-1] == "? [ac 2c] is not a meld you can lay down here", "no meld: as before"
    player._line(s, "knock [3s 4s' jk]")
    assert isinstance(s.submitted[-1].action, engine.Knock), "a meld within the limit is laid"


def test_take_says_why_the_pile_cannot_be_taken() -> None:
    """Hoyle, after both passed the upcard: `take` and `pile` say so (they used to say
    there was no upcard, with 6♥ on the pile). Rumino has no first upcard: `take` says
    so, and that `pile` takes the pile's top."""
    from ginp2p.console.line import LinePlayer
    from ginp2p.game import engine
    from ginp2p.game.rules import get_preset
    from tests.console.test_tui_table import FakeSeat, deal, play

    h = deal(get_preset("hoyle"), "7H 8H 9H 4S 4D 4C 2C 3D AS TH",
             "5S 6S 7S 2D 9D JD QD KD 6C 8C", "6H")  # fmt: skip
    s = FakeSeat(play(h, engine.PassUpcard(), engine.PassUpcard()))
    s.player = player = LinePlayer(stdin=io.StringIO())
    for verb in ("take", "pile"):
        player._line(s, verb)
        assert s.said[-1] == "? both passed the upcard 6♥, so the first draw is from the " \
            "stock; you can: stock"  # fmt: skip
    s = FakeSeat(deal(get_preset("rumino"), "3S 4S' JK AH' 2H AC 2C'",
                         "7H 8H 9H KD 2D 9S 6C", "QC", dealer_seat=1))  # fmt: skip
    s.player = player
    player._line(s, "take")
    assert s.said[-1] == "? these rules have no first upcard to take (pile takes Q♣); you " \
        "can: stock | pile | knock"  # fmt: skip
    assert s.submitted == []


def test_a_move_owed_past_the_claim_timeout_is_told_a_claim_may_come_now() -> None:
    """After a resume that came late, the line mode said "in -26 s Alice may claim the
    match"; past the timeout it says the claim may come now (the table shows 0:00)."""
    from ginp2p.console.line import LinePlayer
    from tests.console.test_tui_table import FakeSeat, drawn_hand

    s = FakeSeat(drawn_hand())
    s.player = player = LinePlayer(stdin=io.StringIO())
    timeout = s.claim_timeout
    s.my_wait = waited = timeout * 3 / 4
    player.next_command(s)
    assert s.said[-1] == f"you have had this move for {waited:.0f} s: in " \
        f"{timeout - waited:.0f} s Bot may claim the match"  # fmt: skip
    player._late_told = False
    s.my_wait = waited = timeout + 26
    player.next_command(s)
    assert s.said[-1] == f"you have had this move for {waited:.0f} s: now Bot may claim " \
        "the match"  # fmt: skip


def test_a_hands_result_lists_your_score_first_as_look_does() -> None:
    """A guest read "[Robo 13, you 0]" (the host's first) under a look that says "you
    0, Robo 13": both now say "you" first."""
    from ginp2p.console.line import LinePlayer
    from ginp2p.game import engine
    from ginp2p.present.seat_words import event_words
    from ginp2p.proto.results import HandScored
    from tests.console.test_tui_table import FakeSeat, draft_from, knocked_hand

    h = knocked_hand()  # Ann (host, seat 0) knocked; we are Bot, the guest
    s = FakeSeat(h, me=1)
    s.player = LinePlayer(stdin=io.StringIO())
    s.names = ("Ann", "you")
    view = h.view(1)
    done = engine.apply(h, draft_from(engine.legal_actions(view)[0], view).action())
    assert done.result is not None
    said = event_words(s, HandScored(1, done.result, (13, 0)), terse=False)
    assert said is not None and said.endswith("  [you 0, Ann 13]"), said


class _Quiet:
    """A connection that is never up: the session's link says so, and nothing is sent."""

    async def send(self, frame: Any, to: bytes | None = None) -> bool:
        return True

    async def close(self) -> None:
        pass


@pytest.mark.usefixtures("ginp2p_home")
def test_the_line_mode_reads_a_live_game_through_the_sessions_seat() -> None:
    """A session hands its player a seat (never itself), and `look` at the line prompt
    reads the game through it: the score and the goal, the stock and the pile, this
    player's own cards in melds, and whose move it is."""
    import random

    from ginp2p.app.session import Session
    from ginp2p.console.line import LinePlayer
    from ginp2p.game.rules import get_preset
    from ginp2p.proto.entry import GUEST
    from ginp2p.testing.fakelink import FakeLink, dealt, make_pair, step_until

    rng = random.Random(5)
    host, guest = make_pair(get_preset("classic"), rng)
    link = FakeLink(host, guest, rng, players=(None, None))  # nobody moves: hand 1 waits
    link.start()
    step_until(link, lambda: guest.proto.table.hand is not None and dealt(link))
    said: list[str] = []
    player = LinePlayer(stdin=io.StringIO())
    session = Session(guest.proto, _Quiet(), player, None, None, out=said.append)  # type: ignore[arg-type]
    seat = session.seat
    assert seat is not session and not hasattr(seat, "proto"), "the player gets a seat"
    assert seat.me == GUEST and seat.names == ("Ann", "you")
    player.look(seat)
    hand = guest.proto.view()
    assert hand is not None and hand.upcard is not None
    assert said[0] == (
        f"hand 1 · you 0, Ann 0 (game to 100) · stock {hand.stock_left} · pile "
        f"{hand.upcard.pretty()} (1)"
    )
    cards = said[1].removeprefix("your cards: ").replace("[", "").replace("]", "").split()
    mine = {c.pretty() for c in hand.cards(GUEST) if c is not None}
    assert said[1].startswith("your cards: ") and mine <= set(cards), said
    if seat.my_turn:  # the non-dealer decides on the upcard first
        assert said[-1] == "your move: take | pass"
    else:
        assert said[-1] == "waiting for Ann to connect…"


class _Asked:
    """A seat before the first deal, as the prompt's keys reach it: what it says (a key
    may be typed as a line is said), and what it sends."""

    done = over = finished = begun = False

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.sent: list[object] = []
        self.typing: Any = None  # called as a line is said

    def say(self, text: str) -> None:
        self.lines += text.splitlines()
        if self.typing is not None:
            self.typing()

    def submit(self, cmd: object) -> None:
        self.sent.append(cmd)


@pytest.mark.skipif(sys.platform == "win32", reason="a POSIX terminal")
def test_ctrl_d_typed_as_a_line_prints_is_not_lost(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-D typed at the prompt just as a line is printed above it (the other player's
    move), or as the next prompt comes up after a line, is Ctrl-D: it asks to leave, and
    at the question it leaves. In the terminal's own line mode, were the prompt to hand
    the terminal back to it meanwhile, a Ctrl-D is an end of input and no key: the
    prompt then read a Ctrl-@ for it, and the game went on as if nothing was typed."""
    import asyncio
    import os
    import pty
    import select

    from prompt_toolkit.application import create_app_session, run_in_terminal
    from prompt_toolkit.output import create_output

    from ginp2p.console.line import LinePlayer
    from ginp2p.present.commands import QuitCmd
    from tests.processes import until

    master, slave = pty.openpty()
    keyboard = open(slave, encoding="utf-8")  # noqa: SIM115 (closed below)
    screen = open(os.dup(slave), "w", encoding="utf-8")  # noqa: SIM115
    shown = bytearray()
    monkeypatch.setattr(sys, "stdin", keyboard)
    monkeypatch.setattr(sys, "stdout", screen)
    monkeypatch.setenv("PROMPT_TOOLKIT_NO_CPR", "1")  # nobody says where the cursor is
    player, seat = LinePlayer(), _Asked()

    def ctrl_d() -> None:  # typed, and in the terminal
        os.write(master, b"\x04")
        select.select([slave], [], [], GUARD)

    async def play() -> None:
        loop = asyncio.get_running_loop()
        loop.add_reader(master, lambda: shown.extend(os.read(master, 4096)))
        game = asyncio.ensure_future(player._run_prompt(seat))  # type: ignore[arg-type]
        try:
            await until(lambda: b"ginp2p>" in shown, "the prompt", guard=15)

            def printing() -> None:  # as patch_stdout prints a line above the prompt
                screen.write("Computer discarded QS\n")
                screen.flush()
                ctrl_d()

            await run_in_terminal(printing)
            await until(lambda: player.asking, "the question after Ctrl-D", guard=15)
            assert seat.lines[-2:] == [
                "leave? nothing has been played yet, so nothing is kept",
                "type y to leave, n to stay (Ctrl-C again leaves)",
            ]
            seat.typing = ctrl_d  # as an empty answer is answered: no prompt is up
            os.write(master, b"\r")
            await until(game.done, "leaving after Ctrl-D at the question", guard=15)
            game.result()
        finally:
            game.cancel()
            loop.remove_reader(master)

    try:
        with create_app_session(output=create_output(screen)):
            asyncio.run(play())
    finally:
        keyboard.close()
        screen.close()
        os.close(master)
    assert seat.sent == [QuitCmd()]
    assert b"Computer discarded QS" in shown
