"""The replay viewer (ginp2p.record.replay, ginp2p.console.tui.replay, ``ginp2p replay``).

Logs are real: two PeerProtocol peers play a short match over the in-memory fake link
and their entries and seeds are written to a ``.ginlog`` and ``.secrets`` files, as a
peer writes them. The expected results come from elsewhere: the audit of the same
file, and the events each peer saw while playing.

Every game here keeps the real k (``shuffle.K_MIN`` rounds of the shuffle's proofs),
though no test is about the proofs' strength: each is read back from a file, and a
file is always read at the protocol's floor (a game at fewer rounds, as the protocol
tests choose, reads as damage).
"""

from __future__ import annotations

import io
import os
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit.data_structures import Size
from prompt_toolkit.formatted_text import fragment_list_to_text
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from prompt_toolkit.output.vt100 import Vt100_Output

from ginp2p.cli import main
from ginp2p.console.tui.look import Look
from ginp2p.console.tui.replay import build_app, footer_for, frame_text, plain_lines
from ginp2p.console.tui.replay_screen import audit_lines, screen
from ginp2p.console.tui.viewer import Viewer
from ginp2p.files.logfile import secrets_path
from ginp2p.files.records import audit_file, load_replay
from ginp2p.game.engine import Action, HandState, Phase, Resign
from ginp2p.game.rules import get_preset
from ginp2p.proto import events as ev
from ginp2p.proto.entry import GUEST, HOST
from ginp2p.proto.protocol import PeerProtocol
from ginp2p.record.replay import VIEWS, ReplayError, phase_words
from ginp2p.testing.fakelink import FakeLink, bot_player, make_pair
from tests.helpers import Match, play_match, write

RULES = get_preset("classic").with_(game_target=10)


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GINP2P_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("NO_COLOR", raising=False)


class ScoreCheater(PeerProtocol):
    """Signs checkpoints that give it five points more than the hand gave."""

    def _make_checkpoint(self, h: Any, game: bytes) -> Any:
        kind, body, before = super()._make_checkpoint(h, game)
        scores = list(body.scores)
        scores[self.me] += 5
        return kind, ev.make("checkpoint", h.number, body.last_host, body.last_guest, scores), \
            before  # fmt: skip


def play(seed: int, **kw: Any) -> Match:
    return play_match(RULES, seed, **kw)


@pytest.fixture(scope="module")
def honest() -> Match:
    return play(1)


@pytest.fixture(scope="module")
def cheat() -> Match:
    return play(3, guest_cls=ScoreCheater)


@pytest.fixture
def saved(honest: Match, tmp_path: Path) -> Path:
    """The host's file of the honest match, with the host's secrets."""
    return write(tmp_path / "match.ginlog", honest.host.saved, honest.host)


def ansi_free(text: str) -> str:
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", text)


# ------------------------------------------------------------------------ the model


def test_the_end_shows_the_final_scores_of_the_log(saved: Path) -> None:
    report = audit_file(saved)
    assert report.verdict.value == "clean" and report.scores is not None
    r = load_replay(saved)
    assert r.report == report and len(r) == report.entries
    last = r.frame(len(r) - 1, "public")
    assert (last.seats[HOST].score, last.seats[GUEST].score) == report.scores
    assert last.totals
    w = report.winner
    assert w is not None
    s = report.scores
    assert (
        last.status == f"match over: {r.names[w]} wins, {s[w]} to {s[1 - w]} (reached the target)"
    )
    # each hand's result, as the audit has it, shows at the hand's end
    for h in report.hands[1:]:
        end = max(s.index for s in r.steps if s.hand == h.hand)
        assert r.frame(end, "public").result == h.result


def test_views_show_what_each_may_know(saved: Path, honest: Match) -> None:
    r = load_replay(saved)
    assert r.secrets == (secrets_path(saved), None)
    assert r.default_view() == "host"  # the file's owner
    dealt = r.deals[1]
    public = r.frame(dealt, "public")
    host = r.frame(dealt, "host")
    everything = r.frame(dealt, "all")
    upcard = public.pile[-1]
    assert upcard is not None  # the upcard is public from the deal
    assert all(c is None for seat in public.seats for c in seat.cards)
    assert sorted(host.seats[HOST].cards) == sorted(honest.dealt(HOST)[1])  # type: ignore[type-var]
    assert all(c is None for c in host.seats[GUEST].cards)
    # the hand was opened later in the log: the all view has every card from the deal
    assert sorted(everything.seats[GUEST].cards) == sorted(honest.dealt(GUEST)[1])  # type: ignore[type-var]
    assert sorted(everything.seats[HOST].cards) == sorted(honest.dealt(HOST)[1])  # type: ignore[type-var]
    # once both seeds are opened, everybody sees every card
    opened = next(s.index for s in r.steps if s.hand == 1 and s.opened)
    assert None not in r.frame(opened, "public").seats[GUEST].cards


def test_a_drawn_card_is_named_to_its_drawer_at_the_key(saved: Path) -> None:
    """The drawer learns a stock card from the other player's key: the host's view
    names it there, in the words as on the table, not one entry early at the draw."""
    r = load_replay(saved)
    draw = next(s for s in r.steps if s.kind == "draw_stock" and s.author == HOST)
    key = next(s for s in r.steps[draw.index :] if s.kind == "stock_key")
    assert key.author == GUEST and not draw.opened
    card = r.drawn(draw, "all")  # the all view proves every card from the deal on
    assert card is not None
    assert r.describe(draw, "all") == f"Ann draws {card.pretty()} from the stock"
    for i in range(draw.index, key.index):  # before the key: neither table nor words
        assert card not in r.frame(i, "host").seats[HOST].cards
    assert r.drawn(draw, "host") is None
    assert r.describe(draw, "host") == "Ann draws from the stock"
    assert card in r.frame(key.index, "host").seats[HOST].cards
    assert r.describe(key, "host") == f"Bob unlocks the stock card Ann drew: {card.pretty()}"
    assert r.describe(key, "guest") == "Bob unlocks the stock card Ann drew"
    # --moves lists that key in the drawer's view (else it would never say the card)
    listed = "\n".join(plain_lines(r, "host", moves=True))
    assert f"Bob unlocks the stock card Ann drew: {card.pretty()}" in listed
    assert "the stock card Ann drew" not in "\n".join(plain_lines(r, "guest", moves=True))


def test_move_and_hand_navigation(saved: Path) -> None:
    r = load_replay(saved)
    moves = [s.index for s in r.steps if s.kind in ev.ACTION_KINDS]
    assert r.next_move(0) == moves[0] and r.next_move(moves[0]) == moves[1]
    assert r.prev_move(moves[1]) == moves[0]
    assert r.hands == sorted(r.deals) and r.hands[0] == 1
    assert r.next_hand(0) == r.deals[1]
    assert len(r.hands) >= 2  # the fixed seed plays two hands
    assert r.next_hand(r.deals[1]) == r.deals[2]
    assert r.prev_hand(r.deals[2] + 3) == r.deals[2]
    assert r.prev_hand(r.deals[2]) == r.deals[1]
    assert r.next_mark(0) is None  # an honest log: nothing marked


def test_an_unfinished_log_replays_to_where_it_stops(honest: Match, tmp_path: Path) -> None:
    full = load_replay(write(tmp_path / "full.ginlog", honest.host.saved))
    stop = next(s.index for s in full.steps[full.deals[1] + 3 :]  # in play of hand 1
                if s.kind == "discard")  # fmt: skip
    cut = [s.entry.wire for s in full.steps[: stop + 1]]
    path = write(tmp_path / "cut.ginlog", cut, honest.host)
    with path.open("ab") as f:
        f.write(b"\xc5\x01")  # a torn last record
    r = load_replay(path)
    assert len(r) == len(cut)
    assert r.report.verdict.value == "damaged" and any("torn" in n for n in r.notes)
    last = r.steps[-1]
    assert last.match is not None and not last.match.over
    assert r.status(last).startswith("the file is damaged and stops here (")  # not blamed
    for view in ("public", "host", "guest", "all"):  # every frame draws
        for i in range(len(r)):
            frame_text(r, i, view)
    # hand 1 is never opened in this file: only the host's secrets show the host's
    # cards, and they are the ones the full log proves
    assert r.frame(stop, "host").seats[HOST].cards == full.frame(stop, "all").seats[HOST].cards
    assert None not in r.frame(stop, "host").seats[HOST].cards
    hs = r.steps[stop].hand_state
    assert hs is not None
    public = [pos in hs.shown for pos in hs.hands[HOST]]  # taken from the pile: public
    assert not all(public)
    for view in ("public", "guest"):
        assert [c is not None for c in r.frame(stop, view).seats[HOST].cards] == public
    assert all(c is None for c in r.frame(stop, "all").seats[GUEST].cards)


def test_a_players_own_cards_need_their_secrets(honest: Match, cheat: Match,
                                                tmp_path: Path) -> None:  # fmt: skip
    r0 = load_replay(write(tmp_path / "full.ginlog", honest.host.saved))
    cut = [s.entry.wire for s in r0.steps[: r0.deals[1] + 1]]
    path = write(tmp_path / "cut.ginlog", cut)  # no secrets beside it
    r = load_replay(path)
    assert r.secrets == (None, None) and r.default_view() == "public"
    assert all(c is None for c in r.frame(len(r) - 1, "guest").seats[GUEST].cards)
    guest_secrets = write(tmp_path / "guest.ginlog", [], honest.guest).with_suffix(".secrets")
    r = load_replay(path, [guest_secrets])
    assert r.secrets == (None, guest_secrets)
    seen = r.frame(len(r) - 1, "guest").seats[GUEST].cards
    assert sorted(seen) == sorted(honest.dealt(GUEST)[1])  # type: ignore[type-var]
    stranger = write(tmp_path / "other.ginlog", [], cheat.host).with_suffix(".secrets")
    with pytest.raises(ReplayError, match="not of this game"):
        load_replay(path, [stranger])
    # what --secrets names may be no secrets file at all: said in one plain sentence
    folder, notes = tmp_path / "a-folder", tmp_path / "notes.txt"
    folder.mkdir()
    notes.write_text("hand 3: Bob knocked\n")
    for wrong, says in ((folder, f"{folder} is a folder, not a secrets file"),
                        (notes, f"{notes} is not a ginp2p secrets file: it does not begin "
                                "with GINSEC1")):  # fmt: skip
        with pytest.raises(ReplayError) as exc:
            load_replay(path, [wrong])
        assert str(exc.value) == says


def test_the_cheat_is_marked(cheat: Match, tmp_path: Path) -> None:
    path = write(tmp_path / "cheat.ginlog", cheat.host.saved, cheat.host)
    report = audit_file(path)
    assert report.cheat is not None and report.cheat.rule == "bad-checkpoint"
    r = load_replay(path)
    marked = [s for s in r.steps if s.mark is not None and s.mark.level == "cheat"]
    assert [s.entry.id for s in marked] == [report.cheat.entry]
    (bad,) = marked
    assert bad.kind == "checkpoint" and bad.author == GUEST
    assert "cheated" in bad.mark.text  # type: ignore[union-attr]
    assert r.next_mark(0) == bad.index
    assert r.frame(bad.index, "public").status.startswith("match over: Ann wins")
    assert all(s.mark is None for s in r.steps[: bad.index])


def test_unreadable_files_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(ReplayError, match="no such file"):
        load_replay(tmp_path / "nope.ginlog")
    (tmp_path / "notes.txt").write_text("hello")
    with pytest.raises(ReplayError, match="not a ginp2p game log"):
        load_replay(tmp_path / "notes.txt")
    with pytest.raises(ReplayError, match="no entry"):
        load_replay(write(tmp_path / "empty.ginlog", []))
    with pytest.raises(ReplayError, match="is a folder"):
        load_replay(tmp_path)


# ------------------------------------------------------------------------ the application


def drive(viewer: Viewer, keys: str, output: Any = None) -> int:
    """Run the full-screen viewer on these keys (ending with q) without a terminal."""
    with create_pipe_input() as inp:
        inp.send_text(keys)
        app = build_app(viewer, input=inp, output=output or DummyOutput())
        return app.run()


def test_the_viewer_steps_to_the_end_and_back(saved: Path) -> None:
    r = load_replay(saved)
    n = len(r)
    v = Viewer(r, 0, "host", Look(ascii=True, colour=False))
    assert drive(v, "l" * (n + 5) + "q") == n - 1  # entry by entry, past the end: stays
    text = fragment_text(screen(v))
    s = r.report.scores
    assert s is not None
    assert f"final score {s[HOST]}" in text and f"final score {s[GUEST]}" in text
    assert f"entry {n} of {n}" in text
    assert drive(v, "h" * (n + 5) + "q") == 0  # and back to the first entry
    assert "entry 1 of" in fragment_text(screen(v))
    assert drive(v, "\x1b[F" + "\x1b[D" + "q") == n - 2  # End, then the left arrow
    assert drive(v, "G" + "g" + "q") == 0


def test_the_viewer_jumps_by_move_hand_number_and_mark(saved: Path, cheat: Match,
                                                        tmp_path: Path) -> None:  # fmt: skip
    r = load_replay(saved)
    v = Viewer(r, 0, "public", Look(ascii=True, colour=False))
    assert drive(v, "jq") == r.next_move(0)
    assert drive(v, "1\rq") == r.deals[1]
    assert drive(v, "jjkq") == r.next_move(r.deals[1])
    assert drive(v, "5gq") == 4  # entry 5
    assert drive(v, "99\rq") == 4 and "no hand 99" in v.message
    assert drive(v, "vvq") == 4 and v.view == "guest"
    assert drive(v, "mq") == 4 and "marks no entry" in v.message
    assert drive(v, "?jq") == r.next_move(4) and not v.help  # a move closes the help first
    c = load_replay(write(tmp_path / "cheat.ginlog", cheat.host.saved))
    v = Viewer(c, 0, "public", Look(ascii=True, colour=False))
    bad = next(s.index for s in c.steps if s.mark is not None)
    assert drive(v, "mq") == bad
    text = fragment_text(screen(v, 100, 40))
    assert f">!{bad + 1:>4}  hand 1" in text  # the current entry, flagged in the list
    assert "Bob cheated (hand 1, guest entry" in text


def test_the_ascii_help_writes_the_arrow_keys_as_words(saved: Path) -> None:
    """--ascii wrote the arrows of the help as `v` and `^`, so `v` read as both "next
    move" and "next view": the arrows are words there; with symbols they stay arrows."""
    r = load_replay(saved)
    v = Viewer(r, 0, "public", Look(ascii=True, colour=False))
    drive(v, "?q")
    text = fragment_text(screen(v, 100, 40))
    for keys, what in (("Right l .", "next entry"), ("Left h ,", "previous entry"),
                       ("Down j space", "next move"), ("Up k", "previous move")):  # fmt: skip
        assert f"  {keys:<16} {what}\n" in text, text
    assert re.findall(r"^  (\S+).*$", text, re.M).count("v") == 1, "v: the view only"
    v = Viewer(r, 0, "public", Look(ascii=False, colour=False))
    drive(v, "?q")
    assert "  ↓ j space        next move" in fragment_text(screen(v, 100, 40))


def test_hand_0_in_the_viewer_is_no_hand_as_with_the_option(saved: Path,
                                                             capsys: pytest.CaptureFixture[str]
                                                             ) -> None:  # fmt: skip
    """`0 Enter` went silently to the set-up (the log files it under hand 0): it says
    hands count from 1 and where the set-up is, as `--hand 0` does, and stays put."""
    r = load_replay(saved)
    v = Viewer(r, 0, "public", Look(ascii=True, colour=False))
    assert drive(v, "5g0\rq") == 4
    last = r.hands[-1]
    said = f"hands are numbered from 1 (hands 1-{last}); the set-up before the first deal"
    assert v.message == f"{said} is entry 1 (1 g, or Home)"
    assert f"{said} is entry 1" in fragment_text(screen(v, 100, 40))
    assert main(["replay", str(saved), "--hand", "0", "--plain"]) == 2
    assert f"{said} starts at --at 1" in capsys.readouterr().err


def test_what_reaches_the_terminal(saved: Path) -> None:
    """The bytes the application writes hold the final scores, cards in colour."""
    r = load_replay(saved)
    out = io.StringIO()
    term = Vt100_Output(out, lambda: Size(rows=40, columns=100), term="xterm")
    v = Viewer(r, 0, "host", Look(ascii=False, colour=True))
    assert drive(v, "Gq", term) == len(r) - 1
    drawn = ansi_free(out.getvalue())
    s = r.report.scores
    assert s is not None and f"final score {s[HOST]}" in drawn
    assert "♥" in drawn or "♦" in drawn or "♠" in drawn or "♣" in drawn
    help_out = io.StringIO()
    term = Vt100_Output(help_out, lambda: Size(rows=40, columns=100), term="xterm")
    drive(v, "?q", term)
    assert "next move" in ansi_free(help_out.getvalue())


def fragment_text(fragments: Any) -> str:
    return "".join(text for _, text, *_ in fragments)


# ------------------------------------------------------------------------ the command


def test_the_command_prints_frames_and_steps(
    saved: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = audit_file(saved)
    s, w = report.scores, report.winner
    assert s is not None and w is not None
    assert main(["replay", str(saved), "--at", "end", "--ascii"]) == 0
    out = capsys.readouterr().out
    assert f"final score {s[HOST]}" in out and "view: Ann (host)" in out
    assert "♥" not in out and "\x1b" not in out
    # the frame is as wide as a terminal's: the first line was 99 wide over a rule of 72
    long = saved.rename(saved.with_name("20261125-051147-a-long-file-name-host.ginlog"))
    assert main(["replay", str(long), "--at", "end", "--ascii"]) == 0
    assert max(map(len, capsys.readouterr().out.splitlines())) <= 80
    long.rename(saved)
    assert main(["replay", str(saved), "--plain", "--moves", "--as", "Bob"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].startswith("view: Bob (guest)")
    assert (
        lines[-1]
        == f"end: match over: {report.names[w]} wins, {s[w]} to {s[1 - w]} (reached the target)"
    )
    assert any("discards" in line for line in lines)
    assert not any("shuffles" in line for line in lines)  # --moves: no shuffle machinery
    assert main(["replay", str(saved), "--plain", "--hand", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert any("shuffles" in line for line in lines)
    assert not any(" hand 2," in line for line in lines)


def test_the_command_reports_bad_input(tmp_path: Path, saved: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    assert main(["replay", str(tmp_path / "gone.ginlog")]) == 1
    assert "ginp2p replay: error:" in capsys.readouterr().err
    assert main(["replay", str(saved), "--as", "nobody"]) == 2
    assert "unknown view" in capsys.readouterr().err
    assert main(["replay", str(saved), "--hand", "99"]) == 2
    assert "no hand 99" in capsys.readouterr().err
    assert main(["replay", str(saved), "--hand", "0", "--plain"]) == 2  # hands count from 1
    err = capsys.readouterr().err  # not "no hand 0": the audit's hand 0 is the set-up
    assert "hands are numbered from 1" in err and "the set-up before the first deal" in err
    assert main(["replay", str(saved), "--hand", "1", "--at", "end"]) == 2
    assert "give --hand or --at, not both" in capsys.readouterr().err
    assert main(["replay", str(saved), "--at", "0"]) == 2
    assert "--at takes" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main(["replay", "--help"])
    assert exc.value.code == 0 and "--as VIEW" in capsys.readouterr().out


def test_a_game_played_by_two_processes_replays(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`ginp2p play` without a terminal: two computer players in two processes over
    the network protocol, each keeping its own files, as a person's games are kept."""
    home = tmp_path / "home"
    env = dict(os.environ, GINP2P_HOME=str(home))
    env.pop("GINP2P_CRASH_AT", None)
    done = subprocess.run([sys.executable, "-m", "ginp2p", "play", "--set", "game_target=10",
                           "--linger", "3"], capture_output=True, text=True, timeout=180,
                          stdin=subprocess.DEVNULL, env=env)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    (path,) = (home / "games" / "watched").glob("*.ginlog")
    r = load_replay(path)
    # the player's secrets beside the log, the computer's beside its own copy
    assert all(r.secrets) and r.default_view() == "host"
    report = audit_file(path)
    s, w = report.scores, report.winner
    assert s is not None and w is not None
    v = Viewer(r, 0, "host", Look(ascii=True, colour=False))
    assert drive(v, "G" + "k" * 3 + "q") == r.prev_move(r.prev_move(r.prev_move(len(r) - 1)))
    assert drive(v, "Gq") == len(r) - 1
    assert f"final score {s[HOST]}" in fragment_text(screen(v))
    assert main(["replay", str(path), "--plain"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1] == "view: Bot (host); audit: clean"
    assert (
        lines[-1]
        == f"end: match over: {report.names[w]} wins, {s[w]} to {s[1 - w]} (reached the target)"
    )
    # the final scores add up on the screen: the hands' points, each bonus, the totals
    n = report.names
    sheet = [line.strip() for line in lines if line.startswith("       ")][-5:]
    assert sheet[0].startswith(f"points from the hands: {n[0]} ")
    assert sheet[1].startswith("game bonus: ")
    assert sheet[2].startswith("25 per hand won by the winner: ")
    assert sheet[3] == f"total: {n[0]} {s[0]}, {n[1]} {s[1]}"
    assert sheet[4] == f"{n[w]} wins by {s[w] - s[1 - w]}"  # what the match is settled by
    assert "total: " in fragment_text(screen(v))


@pytest.mark.parametrize("name", ["cheat-equivocation", "cheat-false-gin", "cheat-out-of-turn"])
def test_the_cheat_is_marked_on_an_entry_of_the_cheater(name: str) -> None:
    """Where the twins of an equivocation cannot be placed, the mark goes on the
    cheater's last entry before them, never on the other player's."""
    r = load_replay(Path(__file__).parents[1] / "corpus" / f"{name}.ginlog", find_secrets=False)
    cheat = r.report.cheat
    assert cheat is not None
    (marked,) = [s for s in r.steps if s.mark is not None and s.mark.level == "cheat"]
    assert marked.entry.author == cheat.author and marked.entry.seq <= cheat.seq


def test_moves_before_a_cheat_found_at_the_openings_are_not_marked_without_effect() -> None:
    """A shuffle from other seeds is found only when the seeds are opened: the hand
    dealt from it was played and is replayed; what follows the openings has no effect."""
    r = load_replay(Path(__file__).parents[1] / "corpus" / "cheat-slipped-through.ginlog",
             find_secrets=False)  # fmt: skip
    marks = {s.index: s.mark.level for s in r.steps if s.mark is not None}
    cheat_at = next(i for i, level in marks.items() if level == "cheat")
    opened = [s.index for s in r.steps if s.kind == "open"]
    assert r.steps[cheat_at].kind == "shuffle" and len(opened) == 2
    moves = [s for s in r.steps if s.is_move and cheat_at < s.index < opened[-1]]
    assert moves and all(s.index not in marks for s in moves)
    after = [i for i, level in marks.items() if level == "after"]
    assert after and min(after) > opened[-1]
    end = r.steps[-1].match
    assert end is not None and end.totals == end.scores  # a forfeit: no bonuses


def test_a_narrow_screen_wraps_a_hand_and_a_tiny_one_says_it_is_too_small(saved: Path) -> None:
    r = load_replay(saved)
    at = r.deals[1] + 6  # a few moves into hand 1: both hands are known in the host's view
    v = Viewer(r, at, "all", Look(ascii=False, colour=False))
    lines = fragment_text(screen(v, 39, 22)).splitlines()
    assert all(len(line) <= 39 for line in lines), lines
    text = " ".join(lines)
    for seat in r.frame(at, "all").seats:
        assert len(seat.cards) >= 10
        for card in seat.cards:
            assert card is not None and card.pretty() in text, card
    tiny = fragment_text(screen(v, 19, 7))
    words = " ".join(line.strip() for line in tiny.splitlines())
    assert re.match(r"terminal too small: 20x8; the table needs 80x\d+:", words), words
    assert words.endswith("or use --plain") and all(len(x) <= 19 for x in tiny.splitlines())


def test_a_refused_take_names_the_card_it_meant() -> None:
    """A take out of turn is refused, yet the card it meant was public: the upcard."""
    r = load_replay(
        Path(__file__).parents[1] / "corpus" / "cheat-out-of-turn.ginlog", find_secrets=False
    )
    (marked,) = [s for s in r.steps if s.mark is not None and s.mark.level == "cheat"]
    assert marked.entry.kind == "take_upcard"
    assert r.describe(marked).endswith("takes the upcard Q♠")


def test_at_60_columns_the_verdict_the_view_and_the_score_stay_in_sight(saved: Path) -> None:
    r = load_replay(saved)
    v = Viewer(r, len(r) - 1, "host", Look(ascii=True, colour=False))
    lines = fragment_text(screen(v, 59, 19)).splitlines()
    assert all(len(line) <= 59 for line in lines[:2]), lines[:2]
    assert lines[0].endswith("audit CLEAN") and "view: " in lines[1]
    done = next(i for i, line in enumerate(lines) if line.startswith("   hand "))
    result = " ".join(x.strip() for x in lines[done : done + 2])
    assert all(len(line) <= 59 for line in lines[done : done + 2])
    assert re.search(r"[+-]\d+", result), "the score of the hand is not cut off"
    assert len(footer_for(True, 60)) < 60 and "? help" in footer_for(True, 60)


def test_a_joker_is_shown_where_it_stands_in_a_run(tmp_path: Path) -> None:
    """In the viewer as on the table: [9S' JK JS], not the joker at the end (the match
    of seed 7 ends with that run shown)."""
    jokers = play_match(get_preset("italian-jokers").with_(game_target=10), 7)
    r = load_replay(write(tmp_path / "jokers.ginlog", jokers.host.saved), find_secrets=False)
    text = frame_text(r, 17, "public", Look(ascii=True, colour=False))
    assert "[9S' JK JS]" in text and "[9S' JS JK]" not in text


def test_the_audit_page_says_each_damage_once_and_no_exit_code() -> None:
    """`a` in the viewer: the verdict in the title, every damage line once (the report
    says it; the replay's notes used to repeat it), no "(exit 3)" of a command line."""
    r = load_replay(Path(__file__).parents[1] / "corpus" / "damaged-bit-flip.ginlog")
    page = fragment_list_to_text(audit_lines(r, 80))
    assert page.startswith("Audit: DAMAGED\n") and "exit" not in page
    damage = r.report.damage
    assert damage and all(page.count(d) == 1 for d in damage), page
    assert "only the first 19 of the file's 37 entries can be replayed" in page


# ------------------------------------------------------------------------ after a forfeit


@pytest.fixture(scope="module")
def forfeit(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A classic match to 100 that Ann resigns in hand 2, facing Bob's knock at 0 to 7:
    the hand is left in its showdown, with Ann to show."""

    def quitter(proto: PeerProtocol, view: HandState) -> Action:
        m = proto.table.match
        if view.phase is Phase.SHOW and m is not None and m.hand_no == 2:
            return Resign(HOST)
        return bot_player(proto, view)

    rng = random.Random(6)
    host, guest = make_pair(get_preset("classic"), rng)
    FakeLink(host, guest, rng, players=(quitter, bot_player)).run()
    return write(tmp_path_factory.mktemp("forfeit") / "resigned.ginlog", host.saved, host)


def test_after_a_forfeit_nobody_is_to_move_and_the_hand_is_over(forfeit: Path) -> None:
    """The last frame marked Ann "to move" in a "showdown" after she had resigned the
    match: once it is decided nobody is, and the hand reads as the last hand of a match
    won on points does; a claim before any deal leaves the match over."""
    r = load_replay(forfeit)
    last = r.steps[-1]
    assert last.kind == "resign" and last.hand == 2
    hs = last.hand_state
    assert hs is not None and hs.phase is Phase.SHOW  # the engine's hand, as it was left
    for view in VIEWS:
        assert not any(seat.to_move for seat in r.frame(last.index, view).seats)
    assert phase_words(last) == "hand over"
    text = frame_text(r, last.index, "host", Look(ascii=True, colour=False))
    assert "entry 73 of 73 | hand 2 | hand over | view: Ann (host)" in text
    assert "to move" not in text and "showdown" not in text and "\n> " not in text
    claimed = load_replay(Path(__file__).parents[1] / "corpus" / "incomplete-claim-answers.ginlog")
    assert claimed.steps[-1].kind == "claim" and phase_words(claimed.steps[-1]) == "match over"
    # before the claim, the shuffle was going on
    assert phase_words(claimed.steps[-2]).startswith("shuffling")


def test_plain_adds_up_the_final_score_after_a_forfeit(forfeit: Path,
                                                       capsys: pytest.CaptureFixture[str]
                                                       ) -> None:  # fmt: skip
    """docs/replay.md: once the match is over, --plain adds up the final score, with no
    bonus after a forfeit; it did so only for a match that reached its target."""
    assert main(["replay", str(forfeit), "--plain", "--ascii"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-5].startswith("  73 hand 2, host #") and lines[-5].endswith(": Ann resigns")
    assert lines[-4:] == [
        "       points from the hands: Ann 0, Bob 7",
        "       total: Ann 0, Bob 7",
        "       Bob wins by 7",
        "end: match over: Bob wins, 7 to 0 (Ann resigned)",
    ]
    claimed = Path(__file__).parents[1] / "corpus" / "incomplete-claim-answers.ginlog"
    assert main(["replay", str(claimed), "--plain", "--moves"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-3:] == ["       points from the hands: Ann 0, Bob 0",
                          "       total: Ann 0, Bob 0",  # no lead to speak of at 0 to 0
                          "end: match over: Bob wins, 0 to 0 (Ann stopped answering)"]  # fmt: skip


def test_both_copies_of_a_resigned_match_show_both_players_cards(tmp_path: Path) -> None:
    """Ann resigns at her first move of hand 2, her cards never shown. Replayed with
    Bob's copy beside hers, Bob's secrets show his hand too (docs/replay.md): the hand
    was left open, but the match is over, so no hand of it is still to be resumed."""

    def quitter(proto: PeerProtocol, view: HandState) -> Action:
        m = proto.table.match
        return Resign(HOST) if m is not None and m.hand_no == 2 else bot_player(proto, view)

    rng = random.Random(5)
    host, guest = make_pair(get_preset("classic"), rng)
    FakeLink(host, guest, rng, players=(quitter, bot_player)).run()
    ann = write(tmp_path / "ann.ginlog", host.saved, host)
    bob = write(tmp_path / "bob.ginlog", guest.saved, guest)
    r = load_replay(ann, others=[bob])
    assert r.steps[-1].kind == "resign" and r.steps[-1].hand == 2
    bobs = r.frame(len(r) - 1, "all").seats[GUEST].cards
    assert len(bobs) >= 10 and None not in bobs, bobs
    assert None in load_replay(ann).frame(len(r) - 1, "all").seats[GUEST].cards, "Ann's copy alone"


# ------------------------------------------------------------------------ small screens, keys


def test_a_screen_too_small_asks_one_size_that_shows_every_entry(saved: Path) -> None:
    """The size asked for moved with the entry shown (40x16, then 40x17 one entry on),
    and once given it cut off the story and the log: it is one size for the whole log,
    at which every entry in every view shows whole, with three entries of the log."""
    r = load_replay(saved)
    look = Look(ascii=False, colour=False)
    asked = set()
    for i in range(len(r)):
        text = " ".join(fragment_text(screen(Viewer(r, i, "all", look), 39, 11)).split())
        asked |= set(re.findall(r"too small: 40x12; the table needs (\d+)x(\d+):", text))
    assert len(asked) == 1, asked
    ((cols, rows),) = {(int(c), int(r)) for c, r in asked}
    for view in VIEWS:
        for i in range(len(r)):
            lines = fragment_text(screen(Viewer(r, i, view, look), cols - 1, rows - 1))
            assert "too small" not in lines, (view, i)
            log = [x for x in lines.splitlines()
                   if re.match(r"^[> ][ !~] {0,3}\d+  (hand \d|set-up)", x)]  # fmt: skip
            assert len(log) >= 3 and lines.splitlines()[-1] == log[-1], (view, i, lines)
            assert lines.count("\n") <= rows - 1, (view, i)


def test_the_help_fits_a_small_screen_or_says_what_size_shows_it(saved: Path) -> None:
    """The help ran off the right and the bottom of a small screen: it wraps, leaves out
    the views' paragraph, and cut short says at what size it shows whole."""
    r = load_replay(saved)
    v = Viewer(r, 0, "public", Look(ascii=True, colour=False), help=True)
    lines = fragment_text(screen(v, 39, 14)).splitlines()
    assert len(lines) <= 14 and all(len(x) <= 39 for x in lines), lines
    said = re.search(r"\(cut short: (\d+)x(\d+) shows the whole help\)", " ".join(lines[-2:]))
    assert said is not None, lines
    cols, rows = int(said.group(1)), int(said.group(2))
    whole = fragment_text(screen(v, cols - 1, rows - 1))
    assert whole.count("\n") <= rows - 1 and "cut short" not in whole
    assert "q Ctrl-C" in whole and whole.rstrip().endswith("(every card the log proves).")
    # at 39 columns the keys wrap under their words, and all of them show in 32 rows
    keys = fragment_text(screen(v, 39, 31))
    assert "cut short" not in keys and "Views:" not in keys and "q Ctrl-C" in keys
    assert all(len(x) <= 39 for x in keys.splitlines())


def test_a_key_that_does_nothing_says_so(saved: Path) -> None:
    """Keys past the last entry or before the first, and keys the viewer has no use for,
    were silent; the play table answers them (with its own names for the keys)."""
    r = load_replay(saved)
    v = Viewer(r, 0, "public", Look(ascii=True, colour=False))
    for keys, said in (("h", "already at the first entry"), ("k", "already at the first entry"),
                       ("p", "already at the first entry"), ("g", "already at the first entry"),
                       ("Gl", "already at the last entry"), ("Gj", "already at the last entry"),
                       ("Gn", "already at the last entry"), ("GG", "already at the last entry"),
                       ("x", "x does nothing here: ? lists the keys"),
                       ("\t", "Tab does nothing here: ? lists the keys"),
                       ("\x1bOP", "F1 does nothing here: ? lists the keys")):  # fmt: skip
        v.message = ""
        drive(v, keys + "q")
        assert v.message == said, keys
    assert said in fragment_text(screen(v, 100, 40))
    # the keys the viewer has still do their work; a move clears the answer
    assert drive(v, "g\x1b[B" + "q") == r.next_move(0) and v.message == ""  # Down
    assert drive(v, "\x1b[A" + "q") == 0  # Up
    # with the help open the answer shows above it
    drive(v, "?xq")
    assert v.help and "x does nothing here" in fragment_text(screen(v, 100, 40))


def test_moves_prints_the_moves_even_in_a_terminal(saved: Path, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]
                                                   ) -> None:  # fmt: skip
    """--moves in a terminal opened the viewer without a word about it: it means the
    plain listing of the moves; with --at, which prints a table, it is refused."""
    import ginp2p.console.tui.replay as viewer

    monkeypatch.setattr(sys.stdin, "isatty", lambda: True)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    opened = []
    monkeypatch.setattr(viewer, "run", lambda *a, **k: opened.append(a) or 0)
    assert main(["replay", str(saved)]) == 0 and len(opened) == 1  # a terminal: the viewer
    assert main(["replay", str(saved), "--moves", "--ascii"]) == 0 and len(opened) == 1
    from ginp2p.cli.output import RESTORE_TERMINAL

    out = capsys.readouterr().out
    assert out.startswith(RESTORE_TERMINAL * 2)  # each command mends the terminal first
    lines = out.removeprefix(RESTORE_TERMINAL * 2).splitlines()
    assert lines[0].startswith("Ann (host) vs Bob (guest)") and lines[-1].startswith("end: ")
    assert any("discards" in x for x in lines) and not any("shuffles" in x for x in lines)
    assert main(["replay", str(saved), "--moves", "--at", "end"]) == 2
    assert "give --moves or --at, not both" in capsys.readouterr().err


def test_keys_pressed_while_the_viewer_loads_are_not_echoed_and_wait_for_it() -> None:
    """A long game takes a moment to load: an arrow pressed meanwhile was echoed over
    the shell's screen (``^[[C``). It is not shown now, the terminal echoes again after,
    and the key is still there for the viewer to read."""
    import pty
    import select
    import termios
    import tty

    from ginp2p.console.tui.keys import unechoed

    main_fd, side_fd = pty.openpty()
    with os.fdopen(main_fd, "r+b", buffering=0) as main_end, \
            os.fdopen(side_fd, "r") as terminal:  # fmt: skip

        def shown() -> bytes:
            seen = b""
            while select.select([main_end], [], [], 0.3)[0]:
                seen += main_end.read(1024)
            return seen

        def echoes() -> bool:
            return bool(termios.tcgetattr(side_fd)[3] & termios.ECHO)

        assert echoes()
        with unechoed(terminal):
            main_end.write(b"\x1b[C")  # Right, pressed as the game loads
            assert not echoes() and shown() == b""
        assert echoes()
        tty.setraw(side_fd, termios.TCSANOW)  # as the viewer reads keys (prompt_toolkit)
        assert select.select([side_fd], [], [], 2)[0] and os.read(side_fd, 16) == b"\x1b[C"
    with unechoed(io.StringIO()):  # no terminal (a pipe): nothing to do, no error
        pass
