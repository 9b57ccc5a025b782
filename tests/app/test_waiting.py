"""A host waiting for its guest, as a person meets it: the table's waiting screen (who
waits, for what, the join string, the code, q and c), a guest who says no to the rules
(the host waits for another), and the words on the way, which are a player's, not the
protocol's. In one process over the in-process kit (ginp2p.testing.games), and the
waiting screen itself with prompt_toolkit's pipe input; the real terminal is
tests/console/test_waiting_tmux.py's, and the line prompt's below."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from ginp2p.app.awaited import Awaited
from ginp2p.app.pregame import refused_words
from ginp2p.app.seat import Seat
from ginp2p.console.tui.look import Look
from ginp2p.console.tui.render import plain
from ginp2p.console.tui.waiting import WaitingScreen
from ginp2p.net.endpoint import BROKEN_HANDSHAKE, REFUSED_HANDSHAKE
from ginp2p.present.commands import RulesOffered
from ginp2p.present.seat_words import status_line
from ginp2p.proto.keytext import key_to_text
from ginp2p.testing.games import CODE, Games, Scripted
from tests.processes import GUARD, in_terminal, until


class Screen:
    """A waiting screen as the set-up sees one: what it was shown, the lines it took,
    and the person's answer when the test gives it (``leave``)."""

    def __init__(self) -> None:
        self.shown: list[Awaited] = []
        self.notes: list[str] = []
        self.up = False
        self._left: asyncio.Future[str] | None = None

    def heard(self, say: Callable[[str], None]) -> Callable[[str], None]:
        return lambda text: self.notes.append(text) if self.up else say(text)

    def note(self, text: str) -> None:
        self.notes.append(text)

    async def run(self, awaited: Awaited) -> str:
        self.shown.append(awaited)
        self._left = asyncio.get_running_loop().create_future()
        self.up = True
        try:
            return await self._left
        finally:
            self.up = False

    def leave(self, how: str = "quit") -> None:
        assert self._left is not None
        self._left.set_result(how)


class Silent(Scripted):
    """A person who never answers the host's rules (still reading them)."""

    def event(self, seat: Seat, what: object) -> None:
        if not isinstance(what, RulesOffered):
            super().event(seat, what)


def _join(games: Games, host: Any) -> str:
    return f"memory:{host.port}/{key_to_text(games.identity(host.name).public_key)}"


def test_the_waiting_screen_is_shown_what_the_host_waits_for_and_takes_its_lines(
        games: Games) -> None:  # fmt: skip
    """Who waits, for what, the join string and the code, the rules; a wrong code and a
    fresh code said on the screen, in a player's words (not the guest's advice to check
    the code); q leaves, and nothing was kept."""

    async def main() -> None:
        screen = Screen()
        h = await games.start(games.host(player="human", table=Scripted(), waiting=screen))
        await until(lambda: screen.up, "the waiting screen")
        (shown,) = screen.shown
        assert shown.title == "Hosta, hosting a game"
        assert shown.waiting == "waiting for a guest to join"
        assert shown.join == _join(games, h)
        assert shown.code is not None and shown.code() == CODE
        assert shown.about[0].startswith("your rules: classic, game to 1")
        bad = await games.start(games.guest(h, "Bad", pair_code="8-tulip-anchor"))
        assert await games.finish(bad) == [1]
        await until(lambda: "2 pairing attempts left with this code" in screen.notes, "notes")
        assert "a guest gave a wrong pairing code" in screen.notes
        assert not any("check the code" in line for line in screen.notes), screen.notes
        assert shown.new_code is not None
        shown.new_code()  # c
        assert shown.code() != CODE
        assert screen.notes[-1] == (f"pairing code: {shown.code()}  (a new one: the one "
                                    "before works no more)")  # fmt: skip
        late = await games.start(games.guest(h, "Late"))  # the old code works no more
        assert await games.finish(late) == [1]
        screen.leave()
        assert await games.finish(h) == [0]
        assert "stopped hosting before a guest joined" in h.output
        assert "nothing was played, so nothing is kept" in h.output
        assert not h.path.exists()

    games.run(main())


def test_a_host_whose_guest_says_no_waits_for_another_guest(games: Games) -> None:
    """The guest declines the rules: the host's table is done with (no live claim clock
    left on it), the files of the game that never began go, and the host waits again,
    on the same screen; the next guest plays the match."""

    async def main() -> None:
        screen = Screen()
        tables = [Scripted()]

        def new_table() -> Scripted:
            tables.append(Scripted())
            return tables[-1]

        h = await games.start(games.host(player="human", table=tables[0], waiting=screen,
                                         new_table=new_table))  # fmt: skip
        nay = await games.start(games.guest(h, "Nay", player="human", table=Scripted(rules=False)))
        assert await games.finish(nay) == [1]
        await until(lambda: len(screen.shown) == 2, "the waiting screen again")
        assert screen.notes[-1] == ("your guest declined your rules (classic with "
                                    "game_target=1): waiting for another guest")  # fmt: skip
        assert len(tables) == 2, "a new table for the next guest"
        assert not h.path.exists() and h.code is None, "nothing kept, and still hosting"
        yea = await games.start(games.guest(h, "Yea"))
        assert await games.finish(yea, h) == [0, 0]
        assert "MATCH OVER" in h.output and "error" not in h.output, h.output

    games.run(main())


def test_a_bot_host_waits_for_another_guest_too(games: Games) -> None:
    async def main() -> None:
        h = await games.start(games.host())
        nay = await games.start(games.guest(h, "Nay", player="human", table=Scripted(rules=False)))
        assert await games.finish(nay) == [1]
        await h.wait_for("is not kept; waiting for another guest")
        yea = await games.start(games.guest(h, "Yea"))
        assert await games.finish(yea, h) == [0, 0]

    games.run(main())


def test_a_host_reads_names_and_plain_words_while_its_guest_reads_the_rules(
        games: Games) -> None:  # fmt: skip
    """Before the guest's hello its name is not known: "your guest", never the
    protocol's "guest"; what it owes is "their answer to your rules"."""

    async def main() -> None:
        h = await games.start(games.host(player="human", table=Scripted()))
        g = await games.start(games.guest(h, player="human", table=Silent()))
        await until(lambda: h.setup.session is not None and h.session.seat.owed is not None,
                    "the guest's answer owed")  # fmt: skip
        seat = h.session.seat
        assert seat.names == ("you", "your guest")
        assert seat.owed == "their answer to your rules"
        await until(lambda: seat.waiting_for is not None, "the wait said")
        assert status_line(seat) == "waiting for your guest: their answer to your rules"
        assert "waiting for your guest: their answer to your rules" in h.output
        assert "guest's" not in h.output and "host's rules" not in h.output, h.output
        await games.stop(g)
        await games.stop(h)

    games.run(main())


def test_a_greeting_broken_off_is_said_only_with_v() -> None:
    """A player can do nothing about it (mostly a reconnect that timed out); a wrong
    key is said in a player's words, the network's with -v."""
    assert refused_words(BROKEN_HANDSHAKE) is None
    assert refused_words(BROKEN_HANDSHAKE, verbose=True) == BROKEN_HANDSHAKE
    said = refused_words(REFUSED_HANDSHAKE)
    assert said is not None and "greeting" not in said and "wrong key" in said


@pytest.fixture
def pipe() -> Iterator[Any]:
    with create_pipe_input() as inp, create_app_session(input=inp, output=DummyOutput()):
        yield inp


def test_the_waiting_screen_answers_every_key_and_q_leaves(pipe: Any) -> None:
    """c makes a fresh code; any other key says which keys work (it is no move); q
    leaves. The join string is on a line of its own where the command does not fit."""
    codes = ["7-tulip-anchor"]
    screen = WaitingScreen(Look(ascii=True), input=pipe, output=DummyOutput())
    key = ("abcdefghijklmnopqrstuvwxyz234567" * 2)[:52]  # as long as a key

    def new_code() -> None:
        codes.append("9-bison-broom")
        screen.note(f"pairing code: {codes[-1]}")

    shown = Awaited("Ann, hosting a game", "waiting for a guest to join",
                    join=f"10.0.0.2:52801/{key}", code=lambda: codes[-1],
                    new_code=new_code)  # fmt: skip

    async def main() -> str:
        run = asyncio.ensure_future(screen.run(shown))
        await until(lambda: screen.up, "the screen up")
        rows = plain(screen.rows(80, 22))
        assert "Ann, hosting a game" in rows and "waiting for a guest to join" in rows
        assert f"\n    10.0.0.2:52801/{key}\n" in rows, rows  # its own line: 79 columns
        assert "pairing code:  7-tulip-anchor" in rows
        assert [k for k, _ in screen.working_keys()] == ["q", "c"]
        pipe.send_text("p")
        await until(lambda: screen.message != "", "the answer to p")
        assert screen.message == "p does nothing here: q leaves, c shows a new pairing code"
        pipe.send_text("\r")
        await until(lambda: screen.message.startswith("Enter does nothing here"), "Enter")
        pipe.send_text("c")
        await until(lambda: len(codes) == 2, "a new code")
        assert "pairing code:  9-bison-broom" in plain(screen.rows(80, 22))
        assert screen.message == ""
        pipe.send_text("q")
        return await asyncio.wait_for(run, GUARD)

    assert asyncio.run(main()) == "quit"
    assert not screen.up


def test_the_waiting_screen_goes_when_the_guest_comes(pipe: Any) -> None:
    """Cancelled (the other player came), it leaves the terminal to the table; what the
    wait said meanwhile went onto it, and after it goes to the terminal again."""
    screen = WaitingScreen(input=pipe, output=DummyOutput())
    printed: list[str] = []
    say = screen.heard(printed.append)

    async def main() -> None:
        shown = Awaited("Ann against the computer", "waiting for the computer player")
        run = asyncio.ensure_future(screen.run(shown))
        await until(lambda: screen.up, "the screen up")
        say("paired with a guest")
        assert printed == [] and screen.log[-1][1].endswith("paired with a guest")
        run.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(run, GUARD)
        assert not screen.up
        say("game file: x.ginlog")
        assert printed == ["game file: x.ginlog"]

    asyncio.run(main())


def test_help_while_hosting_names_code_within_80_columns(tmp_path: Path) -> None:
    from dataclasses import replace

    from ginp2p.app.config import GameSetup
    from ginp2p.app.waiting import _wait_words
    from ginp2p.files.gamefiles import PeerFile

    words = replace(_wait_words(GameSetup(PeerFile("host", "Ann"), tmp_path / "x.ginlog"), False),
                    new_code=lambda: None)  # fmt: skip
    for terminal in (True, False):
        text = words.help(terminal)
        assert "  code  " in text and all(len(line) <= 80 for line in text.splitlines()), text


@pytest.mark.e2e
def test_code_at_the_line_prompt_while_hosting_makes_a_fresh_code(tmp_path: Path) -> None:
    """`ginp2p host --plain` at a terminal: the line prompt's `code` is the waiting
    screen's c, and its help says so."""
    import pexpect

    child = in_terminal(tmp_path, "host", "--plain", "--name", "Alice", "--no-advertise",
                        "--bind", "127.0.0.1", "--port", "0", "--pair-code", CODE)  # fmt: skip
    try:
        child.expect_exact("ginp2p>")
        child.sendline("code")
        child.expect(r"pairing code: (\S+)  \(a new one: the one before works no more\)")
        assert child.match.group(1) != CODE
        child.sendline("help")
        child.expect_exact("  code                     a new pairing code")
        child.sendline("quit")
        child.expect_exact("stopped hosting before a guest joined")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0


def test_a_paired_guest_who_declines_gives_a_stranger_no_fresh_guesses(games: Games) -> None:
    """The host made a new pairing gate for each wait, so the wrong codes a stranger had
    tried were forgotten whenever a guest declined the rules: an accomplice paired
    before (no code needed) could decline again and again, each time buying the
    stranger a fresh set of guesses. The gate now outlives the wait."""
    from ginp2p.files import peers

    async def main() -> None:
        peers.pin(games.identity("Nay").public_key, "Nay", home=games.home("Hosta"))
        peers.pin(games.identity("Hosta").public_key, "Hosta", home=games.home("Nay"))
        h = await games.start(games.host("Hosta"))
        gate = h.setup.gate
        assert gate is not None
        stranger = await games.start(games.guest(h, "Stranger", pair_code="7-lemon-ivy"))
        assert await games.finish(stranger) == [1]
        await h.wait_for("2 pairing attempts left with this code")
        nay = await games.start(games.guest(h, "Nay", player="human", pair_code=None,
                                            table=Scripted(rules=False)))  # fmt: skip
        assert await games.finish(nay) == [1]
        await h.wait_for("is not kept; waiting for another guest")
        assert h.setup.gate is gate and gate.failures == 1 and gate.attempts_left == 2, \
            "the stranger's wrong code still counts"  # fmt: skip
        await games.stop(h)

    games.run(main())
