"""Bad input to the commands that read files and settings (audit, export, replay,
games, keys, selfplay): one clear line, the documented exit code, nothing lost.

Logs come from the cheating corpus (tests/corpus); each test has its own
temporary GINP2P_HOME.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from ginp2p.cli import NO_VERDICT, main
from tests.processes import RunGinp2p, ginp2p_env

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
FALSE_GIN = CORPUS / "cheat-false-gin.ginlog"
#: the proof in that file, as a console without suit symbols must show it
PROOF = "claimed gin with 2C 6H 3C 8D 2S 9D KD unmatched"


pytestmark = pytest.mark.usefixtures("ginp2p_home")


def test_export_never_writes_over_the_log_it_reads(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    log = tmp_path / "game.ginlog"
    shutil.copy(CORPUS / "clean-classic.ginlog", log)
    own = [log, log.with_suffix(".secrets"), log.with_suffix(".peer")]
    for f in own[1:]:
        f.write_bytes(b"the seeds and the way back to the game")
    before = [f.read_bytes() for f in own]
    monkeypatch.chdir(tmp_path)
    for out in (str(log), "game.ginlog", "./game.ginlog", "game.secrets", str(own[2])):
        assert main(["export", str(log), "-o", out]) == 1
        assert "is one of the game's own files" in capsys.readouterr().err
    assert [f.read_bytes() for f in own] == before
    # `-o -` is stdout, not a file called "-"
    assert main(["export", str(log), "-o", "-"]) == 0
    assert capsys.readouterr().out.startswith("Ann (host) vs Bob (guest), preset classic")
    assert not (tmp_path / "-").exists()


@pytest.mark.parametrize("command", ["audit", "export", "replay", "resume"])
def test_a_pipe_or_a_device_is_refused_at_once(command: str, tmp_path: Path, ginp2p_home: Path,
                                               run_ginp2p: RunGinp2p) -> None:  # fmt: skip
    """Reading a pipe would wait for a writer forever, /dev/zero would fill memory.
    `resume /dev/null` said "/dev/null.ginlog: no such file" (a name without a suffix is
    taken for a game's, `resume GAME`): a path that is there is judged as given."""
    fifo = tmp_path / "game.ginlog"
    os.mkfifo(fifo)
    os.mkfifo(tmp_path / "fifo")
    for path in (str(fifo), "/dev/zero", str(tmp_path / "fifo"), "/dev/null"):
        r = run_ginp2p(ginp2p_home, command, path, encoding="utf-8")
        assert r.returncode == (NO_VERDICT if command == "audit" else 1), r.stderr
        assert f"{path} is a pipe or a device, not a file" in r.stderr, r.stderr
        assert "Traceback" not in r.stderr


def test_audit_replay_and_export_say_the_same_of_a_file_they_cannot_read(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    """One wording for one refusal, whichever command meets it; with --json the audit
    answers in JSON even when it has no verdict."""
    pgn = tmp_path / "last-night.pgn"
    pgn.write_text('[Event "club night"]\n1. e4 e5\n')
    folder = tmp_path / "games"
    folder.mkdir()
    cases = {folder: " is a folder, not a game log", tmp_path / "missing.ginlog": ": no such file",
             pgn: " is not a ginp2p game log: it does not begin with GINLOG1"}  # fmt: skip
    for path, words in cases.items():
        said = []
        for command in ("replay", "export", "audit"):
            code = main([command, str(path)] + (["--plain"] if command == "replay" else []))
            assert code == (NO_VERDICT if command == "audit" else 1)
            out, err = capsys.readouterr()
            assert out == "" and err == f"ginp2p {command}: error: {path}{words}\n"
            said.append(err.split(": error: ", 1)[1].strip())
        assert len(set(said)) == 1, said
        assert main(["audit", "--json", str(path)]) == NO_VERDICT
        doc = json.loads(capsys.readouterr().out)
        assert doc == {"schema": 1, "verdict": None, "exit": NO_VERDICT, "error": said[0]}
    # resume says it too, before it looks for the game's other files ("notes.peer is
    # missing: it says how to rejoin the game" was no answer for a file of notes)
    notes = tmp_path / "notes.ginlog"
    shutil.copy(pgn, notes)
    assert main(["resume", str(notes)]) == 1
    assert capsys.readouterr().err == f"ginp2p resume: error: {notes}{cases[pgn]}\n"


def test_an_empty_file_is_damaged_and_nobody_owes_anything(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    empty = tmp_path / "empty.ginlog"
    empty.touch()
    assert main(["audit", str(empty)]) == 3
    out = capsys.readouterr().out
    assert out.startswith("ginp2p audit: DAMAGED (exit 3)\nno entries: the players are not known")
    assert "the file is empty" in out and "Owed:" not in out
    assert main(["export", str(empty)]) == 1
    assert "the file is empty" in capsys.readouterr().err


@pytest.mark.parametrize("encoding", ["ascii", "cp1252"])
def test_a_console_without_suit_symbols_gets_card_codes(
        encoding: str, ginp2p_home: Path, run_ginp2p: RunGinp2p) -> None:  # fmt: skip
    for args, code in ((["audit"], 1), (["export"], 0), (["replay"], 0)):
        r = run_ginp2p(ginp2p_home, *args, str(FALSE_GIN), encoding=encoding)
        assert r.returncode == code and "Traceback" not in r.stderr, r.stderr
        assert PROOF in r.stdout
    # JSON stays lossless: escaped, not replaced
    r = run_ginp2p(ginp2p_home, "export", "--format", "json", str(FALSE_GIN), encoding=encoding)
    assert r.returncode == 0 and r.stdout.isascii(), r.stderr
    whys = [x["why"] for h in json.loads(r.stdout)["hands"] for x in h["rejected"]]
    assert any("claimed gin with 2♣ 6♥" in why for why in whys)
    # the engine-only match too: its melds, not question marks
    r = run_ginp2p(ginp2p_home, "selfplay", "-v", "--seed", "1", "--set", "game_target=30",
                   encoding=encoding)  # fmt: skip
    out = r.stdout
    assert r.returncode == 0 and "?" not in out and re.search(r"melds \[[2-9TJQKA][SHDC] ", out)


def test_ascii_output_has_no_symbol_even_in_the_proof(capsys: pytest.CaptureFixture[str]) -> None:
    for command in ("export", "replay"):
        assert main([command, "--ascii", str(FALSE_GIN)]) == 0
        out = capsys.readouterr().out
        assert PROOF in out and out.isascii(), command


def test_export_and_replay_say_what_is_damaged_and_how_much_replays(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    path = str(CORPUS / "damaged-dropped-entry.ginlog")
    said = ["damaged: the file lacks Bob's entry 6, which later entries name",
            "only the first 12 of the file's 37 entries can be replayed"]  # fmt: skip
    assert main(["export", path]) == 0
    out = capsys.readouterr().out
    assert all(line in out for line in said)
    assert main(["export", path, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["notes"][-2:] == [
        "damaged: 25 entries after the missing ones cannot be placed or judged",
        said[1],
    ]
    assert main(["replay", "--plain", path]) == 0
    out = capsys.readouterr().out
    assert all(line in out for line in said)
    # a byte that starts no record is said as such, not as a torn tail
    flipped = bytearray((CORPUS / "clean-classic.ginlog").read_bytes())
    flipped[10] ^= 0xFF  # the first record's first byte
    bad = tmp_path / "flipped.ginlog"
    bad.write_bytes(flipped)
    for command in ("export", "replay"):
        assert main([command, str(bad)]) == 1
        err = capsys.readouterr().err
        assert "(a byte that starts no record)" in err and "torn" not in err


def test_export_and_replay_read_the_other_players_copy_too(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    """The copy that lost an entry replays only to the gap; with the other player's
    copy the whole game is there. Copies of two games, or an export written over one of
    the copies, are refused."""
    lost, whole = str(CORPUS / "damaged-dropped-entry.ginlog"), str(CORPUS / "clean-classic.ginlog")
    assert main(["export", lost, whole]) == 0
    out = capsys.readouterr().out
    assert "damaged" not in out and "can be replayed" not in out
    assert "Bob wins by 162" in out and "Audit: clean;" in out
    assert main(["replay", "--plain", lost, whole]) == 0
    assert "end: match over: Bob wins, 162 to 0" in capsys.readouterr().out
    french = str(CORPUS / "clean-french.ginlog")
    for command in ("export", "replay"):
        assert main([command, lost, french]) == 1
        assert f"{lost} and {french} are not copies of one game" in capsys.readouterr().err
    copy = tmp_path / "copy.ginlog"
    copy.write_bytes(Path(whole).read_bytes())
    assert main(["export", lost, str(copy), "-o", str(copy)]) == 1
    assert "is one of the game's own files" in capsys.readouterr().err
    assert copy.read_bytes() == Path(whole).read_bytes()


def test_bad_arguments_to_audit_give_no_verdict(capsys: pytest.CaptureFixture[str]) -> None:
    """2 would read as "incomplete" to a script; a typo must not be a verdict."""
    with pytest.raises(SystemExit) as exc:
        main(["audit", str(FALSE_GIN), "--bogus"])
    assert exc.value.code == NO_VERDICT
    err = capsys.readouterr().err
    assert err.startswith("usage: ginp2p audit") and "unrecognized arguments: --bogus" in err
    # a second word is the other player's copy: one that is not there is no verdict
    assert main(["audit", str(FALSE_GIN), "surplus"]) == NO_VERDICT
    assert capsys.readouterr().err == "ginp2p audit: error: surplus: no such file\n"


def test_a_knock_limit_a_hand_can_reach_is_taken() -> None:
    for limit in ("100", "none", "0"):
        assert main(["selfplay", "--seed", "1", "--set", f"knock_limit={limit}",
                     "--set", "game_target=30"]) == 0  # fmt: skip


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--set", "game_target=abc"], "game_target must be a whole number, not 'abc'"),
        (["--set", "ace_high=maybe"], "ace_high must be true or false"),
        (["--set", "scoring=bogus"], "scoring must be one of"),
        (
            ["--set", "name=mine"],
            "--set name=mine: name is the preset's, not a setting (choose it with --preset)",
        ),
        (
            ["--set", "foo=1"],
            "--set foo=1: no rule setting called foo; `ginp2p rules classic` lists the settings",
        ),
        (
            ["--set", "knock_limt=7"],
            "no rule setting called knock_limt (did you mean knock_limit?)",
        ),
        (
            ["--set", "knock_limit=1000"],
            "--set: knock_limit=1000 is more deadwood than a hand "
            "of 10 can hold (at most 100), so it limits nothing",
        ),
        (["--set", "hand_size=7", "--set", "knock_limit=71"], "a hand of 7 can hold (at most 70)"),
        (["--seed", "-7"], "a seed is 0 or more, not -7"),
    ],
)
def test_bad_settings_and_seeds_are_usage_errors(
        args: list[str], says: str, capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    with pytest.raises(SystemExit) as exc:
        main(["selfplay", *args])
    assert exc.value.code == 2
    assert says in capsys.readouterr().err


def test_joins_set_says_it_insists(capsys: pytest.CaptureFixture[str]) -> None:
    """A guest's --set does not change the host's rules: it refuses other ones."""
    helps = {}
    for command in ("join", "host"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        helps[command] = " ".join(capsys.readouterr().out.split())
    assert (
        "--set NAME=VALUE insist on one rule setting: refuse the host's rules unless NAME "
        "is VALUE" in helps["join"]
    )
    assert "--set NAME=VALUE change one rule setting" in helps["host"]


def test_selfplay_names_every_player_who_scores(capsys: pytest.CaptureFixture[str]) -> None:
    """In rumino both players add points each hand: every line names both, and the
    points add up to the totals printed beside them."""
    # (a match to 60, six hands: the whole one to 100 took eleven)
    assert main(["selfplay", "--preset", "rumino", "--seed", "3", "--set", "game_target=60"]) == 0
    totals = {"North": 0, "South": 0}
    lines = [x for x in capsys.readouterr().out.splitlines() if x.startswith("hand ")]
    assert lines
    for line in lines:
        said, _, shown = line.partition(" - ")[2].partition("  ")
        for who, points in re.findall(r"(North|South) ([+-]\d+)", said):
            totals[who] += int(points)
        north, south = re.fullmatch(r"\s*North\s+(-?\d+)\s+South\s+(-?\d+)", shown).groups()
        assert (totals["North"], totals["South"]) == (int(north), int(south)), line
    assert sum(len(re.findall(r"[+-]\d+", x.partition(" - ")[2])) == 2 for x in lines) > 1


def test_selfplay_verbose_shows_runs_in_sequence(capsys: pytest.CaptureFixture[str]) -> None:
    """-v lists each player's melds: a run reads in order, a joker where it stands and an
    ace after the king when it is high (``Q♣ K♣ A♣``, ``8♣ JK 10♣``), as at the table.
    It printed the cards as the meld kept them (``A♣ Q♣ K♣``, ``8♣ 10♣ JK``)."""
    from ginp2p.game.cards import parse_card

    assert main(["selfplay", "--preset", "rumino", "--seed", "5", "-v"]) == 0
    runs = 0
    for line in capsys.readouterr().out.splitlines():
        if "melds [" not in line:
            continue
        for meld in line.split("melds [")[1].split("]")[0].split("  "):
            ranks = [parse_card(c.rstrip("′")).rank for c in meld.split()]  # 0: a joker
            if len(ranks) < 3 or len(set(ranks) - {0}) == 1:
                continue  # none, or a set
            runs += 1
            first = next(i for i, r in enumerate(ranks) if r)
            low = ranks[first] - first
            for i, rank in enumerate(ranks):
                assert rank in (0, low + i) or (rank == 1 and low + i == 14), line
    assert runs >= 5


def test_a_damaged_key_is_reported_and_kept(
        tmp_path: Path, ginp2p_home: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    key = ginp2p_home / "identity.key"
    key.write_text("not a key\n")
    key.chmod(0o600)
    assert main(["keys"]) == 1
    assert "is not a ginp2p identity" in capsys.readouterr().err
    assert key.read_text() == "not a key\n"  # never replaced: the peers pinned the old one
    monkeypatch.setenv("GINP2P_HOME", str(key))
    assert main(["keys"]) == 1
    assert "it is not a folder" in capsys.readouterr().err
    monkeypatch.setenv("GINP2P_HOME", str(tmp_path / "other"))
    with pytest.raises(SystemExit) as exc:  # not a listing of the keys
        main(["keys", "--forget", ""])
    assert exc.value.code == 2
    assert "say which player to forget" in capsys.readouterr().err


def test_games_lists_a_bad_file_without_hiding_the_others(
        tmp_path: Path, ginp2p_home: Path, capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    games = ginp2p_home / "games"
    games.mkdir(parents=True)
    shutil.copy(FALSE_GIN, games / "b.ginlog")
    shutil.copy(FALSE_GIN, games / "20250102-030405-guest.ginlog")  # no .peer beside either
    (games / "a.ginlog").mkdir()
    os.mkfifo(games / "c.ginlog")
    assert main(["games"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"\[audit: cheated\]\s+\S*b\.ginlog", out)
    # began: when its name was given, else when it was last written
    entry = r" [^\n]*\n(?:[^\n]*\n)?\s+\S*/"  # the date, a line or two, then the file
    assert re.search(rf"^\d  2025-01-02 03:04{entry}20250102-030405-guest\.ginlog$", out, re.M)
    written = time.strftime("%Y-%m-%d %H:%M", time.localtime((games / "b.ginlog").stat().st_mtime))
    assert re.search(rf"^\d  {written}{entry}b\.ginlog$", out, re.M), out
    assert re.search(r"unreadable: Is a directory\s+\S*a\.ginlog", out)
    assert re.search(r"unreadable: a pipe or a device\s+\S*c\.ginlog", out)
    for wrong, words in ((FALSE_GIN, " is not a folder"), (tmp_path / "gmaes", ": no such folder")):
        with pytest.raises(SystemExit) as exc:
            main(["games", "--log-dir", str(wrong)])
        assert exc.value.code == 2
        assert capsys.readouterr().err == f"ginp2p games: error: {wrong}{words}\n"
    # the default folder not made yet is no mistake: a new player has no games
    assert main(["games"]) == 0


def test_games_fits_80_columns_and_marks_rules_changed_by_set(
        ginp2p_home: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    """A row of `games` was about 150 columns wide with the file's path last, which
    wrapped into an unreadable table at 80 columns; now each game is a line of date,
    opponent, rules and result, then its file. A game played with `--set` showed only
    its preset's name, like any other of that preset: it is marked and its changes said.
    """
    games = ginp2p_home / "a-folder-with-a-rather-long-name-as-real-ones-have" / "games"
    games.mkdir(parents=True)
    shutil.copy(CORPUS / "clean-hoyle.ginlog", games / "20250101-120000-host.ginlog")
    shutil.copy(FALSE_GIN, games / "20250102-120000-host.ginlog")
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["games", "--log-dir", str(games)]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    files = [line for line in lines if line.startswith(f"   {games}")]  # under the number
    assert files == [
        f"   {games / name}"
        for name in ("20250102-120000-host.ginlog", "20250101-120000-host.ginlog")
    ], out
    assert max(len(line) for line in lines if line not in files) < 80, out
    assert re.search(r"\n2  \S+ \S+  Bob +hoyle\* +lost \d+ to \d+ \(reached the target\)\n", out)
    assert re.search(r"  classic\*  lost 0 to 0 \(you cheated\)\n {41}\[audit: cheated\]\n", out)
    assert "\n   * hoyle with game_target=10\n" in out and "   * classic with game_target=10" in out
    # the longest a name, a preset and a result get: the result wraps in its column
    from ginp2p.cli.records import _games_table
    from ginp2p.files.games import GameInfo

    long = GameInfo(
        games / "x.ginlog",
        "2025-01-03 12:00",
        "host",
        "N" * 64,
        "italian-jokers",
        "lost 104 to 231 (" + "N" * 64 + " went over the limit) [audit: cheated]",
        ("game_target=50", "knock_limit=none", "layoffs=false", "max_run_length=5"),
    )
    table = _games_table([long], 80)
    assert max(len(line) for line in table if line != f"   {long.path}") < 80, table
    assert any(line.endswith("[audit: cheated]") for line in table), table
    assert table[-1].startswith("     ") and table[-2].startswith("   * italian-jokers with ")
    # a name in wide letters (two columns each) is cut and padded by columns
    from prompt_toolkit.utils import get_cwidth

    wide = GameInfo(games / "y.ginlog", "2025-01-04 12:00", "host", "山田花子" * 5, "classic",
                    "won 100 to 0 (reached the target)", ())  # fmt: skip
    head, row = _games_table([wide, long], 80)[:2]
    assert row.startswith("1  2025-01-04 12:00  山田花子山田花子  ")
    rules_at = get_cwidth(row[: row.index("classic")])
    assert rules_at == head.index("rules"), (head, row)


def test_games_remembers_the_audit_of_a_file_that_did_not_change(
        ginp2p_home: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    """The listing audits every game, every shuffle checked: a folder of a hundred games
    took seconds. It now remembers each file's summary while the file is unchanged, and
    audits again a file that changed (a game that went on, another game copied over
    it); a memory that is damaged is ignored. The listing is the same either way."""
    import ginp2p.files.records
    from ginp2p.files.games import CACHE_NAME

    games = ginp2p_home / "games"
    games.mkdir(parents=True)
    shutil.copy(CORPUS / "clean-hoyle.ginlog", games / "a.ginlog")
    shutil.copy(FALSE_GIN, games / "b.ginlog")
    noon = 1_735_732_800 * 10**9  # 2025-01-01 12:00 UTC: "began" (their time) stays the
    for name in ("a.ginlog", "b.ginlog"):  # same when a second is added below
        os.utime(games / name, ns=(noon, noon))
    assert main(["games"]) == 0
    first = capsys.readouterr().out
    assert "[audit: cheated]" in first and "hoyle" in first
    audited: list[str] = []
    real = ginp2p.files.records.audit_file

    def counted(path: Path, *args: Any, **kwargs: Any) -> Any:
        audited.append(Path(path).name)
        return real(path, *args, **kwargs)

    monkeypatch.setattr(ginp2p.files.records, "audit_file", counted)
    import ginp2p.files.games

    read: list[Path] = []
    reader = ginp2p.files.games.read_records
    monkeypatch.setattr(ginp2p.files.games, "read_records", lambda p: read.append(p) or reader(p))
    assert main(["games"]) == 0
    assert capsys.readouterr().out == first and audited == [] and read == [], "nothing read"
    later = (games / "a.ginlog").stat().st_mtime_ns + 10**9
    os.utime(games / "a.ginlog", ns=(later, later))
    assert main(["games"]) == 0
    assert capsys.readouterr().out == first and audited == ["a.ginlog"]
    shutil.copy(CORPUS / "clean-rumino.ginlog", games / "b.ginlog")
    assert main(["games"]) == 0
    now = capsys.readouterr().out
    assert audited == ["a.ginlog", "b.ginlog"] and "cheated" not in now and "rumino" in now
    (games / CACHE_NAME).write_text('{"version": "0.1.0", "games": {"a.ginlog": 7}')
    assert main(["games"]) == 0
    assert capsys.readouterr().out == now and audited[2:] == ["b.ginlog", "a.ginlog"]
    assert (games / CACHE_NAME).stat().st_mode & 0o077 == 0, "private, as the logs are"


def test_games_calls_a_game_not_dealt_yet_unfinished_as_join_does(
        ginp2p_home: Path, capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    """A game left before the first deal was "not started", against "guest" (the log's
    stand-in for a guest whose hello it lacks), while `join` calls it unfinished and
    `resume` continues it: it is unfinished, against the player it waits for."""
    from ginp2p.files import peers
    from ginp2p.files.gamefiles import PeerFile, peer_path
    from ginp2p.files.games import unfinished_with
    from ginp2p.files.logfile import read_records
    from ginp2p.proto.entry import Entry
    from ginp2p.proto.keytext import key_to_text
    from tests.helpers import write

    records, _ = read_records(CORPUS / "clean-classic.ginlog")  # the host's hello, the guest's
    host_key, guest_key = (Entry.from_wire(r).body.key for r in records[:2])
    games = ginp2p_home / "games"
    (games / "computer").mkdir(parents=True)
    computer = write(games / "computer" / "20250101-120000-guest.ginlog", records[:1])
    PeerFile("guest", "Computer", player="bot").save(peer_path(computer))
    played = write(games / "20250101-120000-host.ginlog", records[:1])  # `play` left undealt
    PeerFile("host", "Ann", computer_game=str(computer)).save(peer_path(played))
    peers.pin(guest_key, "Bobby", home=ginp2p_home)
    hosted = write(games / "20250102-120000-host.ginlog", records[:1])  # the guest left
    PeerFile("host", "Ann", peer_key=key_to_text(guest_key)).save(peer_path(hosted))
    alone = write(games / "20250103-120000-host.ginlog", records[:1])
    PeerFile("host", "Ann").save(peer_path(alone))
    accepted = write(games / "20250104-120000-guest.ginlog", records[:2])
    PeerFile("guest", "Bob", peer_key=key_to_text(host_key)).save(peer_path(accepted))
    assert unfinished_with(games, key_to_text(host_key)) == accepted  # what `join` says
    assert main(["games"]) == 0
    out = capsys.readouterr().out
    assert "not started" not in out and " guest " not in out, out
    rows = [re.split(r"  +", line)[2:] for line in out.splitlines() if line[:1].isdigit()]
    assert rows == [
        [who, "classic*", "unfinished, not dealt yet"] for who in ("Ann", "-", "Bobby", "Computer")
    ], out
    for command in (["audit", str(alone)], ["export", str(alone)]):
        main(command)
        assert "(guest), preset classic with game_target=10; 1 entry\n" in \
            capsys.readouterr().out  # fmt: skip


def test_a_key_that_cannot_be_written_is_one_line_and_leaves_nothing(
        ginp2p_home: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    """A read-only GINP2P_HOME (tests run as root, so the refusal is made by hand)."""
    from ginp2p.files import identity

    real_open = os.open

    def read_only(path: Any, flags: int, *rest: Any) -> int:
        if flags & os.O_CREAT:
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, flags, *rest)

    monkeypatch.setattr(identity.os, "open", read_only)
    assert main(["keys"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("ginp2p keys: error: cannot create your key in ")
    assert "Permission denied" in err and "Traceback" not in err
    assert list(ginp2p_home.iterdir()) == [], "no half-made key file"


def test_a_games_folder_that_is_a_file_or_holds_a_dangling_link(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    a_file = tmp_path / "not-a-folder"
    a_file.write_text("notes\n")
    assert main(["play", "--log-dir", str(a_file)]) == 1  # no terminal: it would watch
    assert capsys.readouterr().err.strip() == f"ginp2p play: error: {a_file}: not a folder"
    assert a_file.read_text() == "notes\n"
    games = tmp_path / "games"
    games.mkdir()
    shutil.copy(FALSE_GIN, games / "b.ginlog")
    (games / "gone.ginlog").symlink_to(tmp_path / "nowhere" / "x.ginlog")
    assert main(["games", "--log-dir", str(games)]) == 0
    out = capsys.readouterr().out
    assert re.search(r"unreadable: No such file or directory\s+\S*gone\.ginlog", out)
    assert re.search(r"\[audit: cheated\]\s+\S*b\.ginlog", out)


@pytest.mark.parametrize("json_out", [False, True])
def test_audit_gives_its_verdict_even_when_the_reader_stops_early(
        json_out: bool, ginp2p_home: Path) -> None:  # fmt: skip
    """`ginp2p audit FILE | head -1` under pipefail: a cheat must not read as clean."""
    args = [sys.executable, "-m", "ginp2p", "audit", *(["--json"] if json_out else []),
            str(FALSE_GIN)]  # fmt: skip
    child = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             env=ginp2p_env(ginp2p_home))  # fmt: skip
    assert child.stdout is not None and child.stderr is not None
    child.stdout.close()  # the reader is gone before the first line
    err = child.stderr.read()
    child.stderr.close()
    assert child.wait(60) == 1, err
    assert b"Traceback" not in err and b"Broken pipe" not in err


@pytest.mark.parametrize(("name", "why"), [
    ("", "a name cannot be empty or only spaces (leave --name out for the default)"),
    ("   ", "a name cannot be empty or only spaces"),
    ("Ann\nBob", "a name is one line of printable characters, not with a line break (U+000A)"),
    ("a\tb", "not with a tab (U+0009) in it"),
    ("a\x1b[2Jb", "not with a control character (U+001B) in it"),
    ("Ann\u202e", "not with an invisible formatting character (U+202E) in it"),
    ("x" * 25, "a name is at most 24 characters, not 25"),
    ("é" * 40, "a name is at most 24 characters, not 40"),
    ("€" * 22, "a name is at most 64 bytes of UTF-8 (the network's limit), and this one is 66"),
    ("caf\udce9", "the name is not valid UTF-8"),  # a Latin-1 byte on a UTF-8 command line
])  # fmt: skip
@pytest.mark.parametrize("command", [["play"], ["host"], ["join", "127.0.0.1:9"],
                                     ["bot", "--host"]])  # fmt: skip
def test_a_name_that_is_empty_long_or_unprintable_is_refused_before_the_game(
        name: str, why: str, command: list[str], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    """It would head a side of the table (a blank one, one that runs into the other's
    score, a line break or an escape sequence on the other player's screen): refused at
    once, as any bad argument is."""
    from ginp2p.cli import network

    def began(args: Any) -> None:
        raise AssertionError(f"the game began with the name {args.name!r}")

    monkeypatch.setattr(network, "_check_common", began)  # the first step of every game
    with pytest.raises(SystemExit) as exc:
        main([*command, "--name", name, "--log-dir", str(tmp_path / "games")])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    last = err.splitlines()[-1]  # after the usage, one line says it
    assert last.startswith(f"ginp2p {command[0]}: error: argument --name: ") and why in last
    assert not (tmp_path / "games").exists(), "no game was begun"


def test_a_name_of_the_longest_length_is_taken_and_trimmed() -> None:
    from ginp2p.cli import NAME_CHARS, build_parser

    args = build_parser().parse_args(["host", "--name", f"  {'é' * NAME_CHARS}  "])
    assert args.name == "é" * NAME_CHARS


def test_two_games_started_in_one_second_never_share_a_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    from ginp2p.app import setup as game
    from ginp2p.files import gamefiles

    monkeypatch.setattr(gamefiles.time, "strftime", lambda fmt: "20261124-021357")
    a = gamefiles.new_game_path(tmp_path, "host")
    b = gamefiles.new_game_path(tmp_path, "host")
    assert a.name == "20261124-021357-host.ginlog" and b.name == "20261124-021357-host-2.ginlog"
    assert gamefiles.peer_path(a).exists(), "reserved before the game opens its files"
    gamefiles.drop_reservation(a)
    assert not gamefiles.peer_path(a).exists()
    # and a file that holds a game is never opened as a new one
    shutil.copy(CORPUS / "clean-classic.ginlog", b)
    before = b.read_bytes()
    with pytest.raises(RuntimeError, match="already holds another game"):
        game.open_game(b, new=True)
    assert b.read_bytes() == before
    gamefiles.drop_reservation(b)  # not a reservation any more: its game is there
    assert gamefiles.peer_path(b).exists()


def test_resume_without_the_secrets_file_says_so(
        tmp_path: Path, ginp2p_home: Path, run_ginp2p: RunGinp2p) -> None:  # fmt: skip
    from ginp2p.files.gamefiles import PeerFile

    game = tmp_path / "game.ginlog"
    shutil.copy(CORPUS / "clean-classic.ginlog", game)
    PeerFile("host", "Ann").save(game.with_suffix(".peer"))
    before = game.read_bytes()
    done = run_ginp2p(ginp2p_home, "resume", str(game), encoding="utf-8")
    out = done.stdout + done.stderr
    assert done.returncode == 1 and "Traceback" not in out
    assert "game.secrets is missing: it holds your seeds" in out
    assert game.read_bytes() == before and not game.with_suffix(".secrets").exists()


def test_resume_of_a_damaged_peer_file_says_what_is_damaged(
        tmp_path: Path, ginp2p_home: Path, run_ginp2p: RunGinp2p) -> None:  # fmt: skip
    """A .peer whose other player's key or role was damaged stops the resume with one
    line naming the damage (it was a traceback), and changes no file."""
    from ginp2p.files.gamefiles import PeerFile

    game = tmp_path / "game.ginlog"
    shutil.copy(CORPUS / "clean-classic.ginlog", game)
    for side, words in (
        (
            PeerFile("guest", "Bob", peer_key="notakey"),
            "the other player's key: a key is 52 base32 letters",
        ),
        (PeerFile("dealer", "Bob"), "its role is 'dealer', not host or guest"),
    ):
        side.save(game.with_suffix(".peer"))
        before = game.read_bytes()
        done = run_ginp2p(ginp2p_home, "resume", str(game), encoding="utf-8")
        out = done.stdout + done.stderr
        assert done.returncode == 1 and "Traceback" not in out, out
        assert f"game.peer is damaged: {words}" in out, out
        assert game.read_bytes() == before


def test_resume_names_the_game_by_any_of_its_files_and_refuses_others(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    pgn = tmp_path / "last-night.pgn"
    pgn.write_text("1. e4 e5\n")
    for given, words in (
        (pgn, f"{pgn} is not a game: resume the game's .ginlog file"),
        (tmp_path / "gone.peer", f"{tmp_path / 'gone.ginlog'}: no such file"),
        (tmp_path / "gone", f"{tmp_path / 'gone.ginlog'}: no such file"),
    ):
        assert main(["resume", str(given)]) == 1  # as replay and export: not a typo'd option
        assert capsys.readouterr().err.startswith(f"ginp2p resume: error: {words}")
    assert pgn.read_text() == "1. e4 e5\n"


@pytest.mark.parametrize("address", [
    "http://192.168.1.5:5555/hr7piym3vvzmz7tqsmtycfwndh733qsiieee6w3uweheg6ejahva",
    "192.168.1.5:5555/hr7piym3vvzmz7tqsmtycfwndh733qsiieee6w3uweheg6ejahv",
    "hr7piym3vvzmz7tqsmtycfwndh733qsiieee6w3uweheg6ejahva",
    "192.168.1.5:5555/hr7piym3vvzmz7tq smtycfwndh733qsiieee6w3uweheg6ejahva",
    "",
])  # fmt: skip
@pytest.mark.parametrize("command", [["join"], ["bot", "--join"]])
def test_a_malformed_join_string_shows_what_one_looks_like(
        address: str, command: list[str], capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    """A URL, a key a letter short, the key alone, a space from the copy, nothing: one
    line that says what is wrong and what the host prints, exit 2; a URL used to be told
    "a key is 52 base32 letters (a-z, 2-7), not 70 characters", and an empty join string
    looked for games on the LAN."""
    with pytest.raises(SystemExit) as exc:
        main([*command, address, "--pair-code", "7-frog-cup"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"ginp2p {command[0]}: error: ")
    assert err.endswith("; expected HOST:PORT/KEY as the host prints it (e.g. "
                        "192.168.1.5:52801/ then its key, 52 letters and digits), or "
                        "HOST:PORT\n")  # fmt: skip


@pytest.mark.parametrize("port", ["-5", "99999", "65536", "eighty"])
@pytest.mark.parametrize("command", [["host"], ["bot", "--host"], ["resume", "GAME.ginlog"]])
def test_a_port_out_of_range_is_refused_not_taken_modulo_65536(
        port: str, command: list[str], capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    """`resume GAME --port -5` listened on port 65531 (ZeroMQ takes a port modulo 65536)
    and told the guest that one; host --port said so in other words than the rest."""
    with pytest.raises(SystemExit) as exc:
        main([*command, "--port", port])
    assert exc.value.code == 2
    last = capsys.readouterr().err.splitlines()[-1]
    assert last.startswith(f"ginp2p {command[0]}: error: argument --port: ")
    assert (f"a port is 0..65535 (0: any free one), not {port}" in last
            or f"not a port number: '{port}'" in last)  # fmt: skip


@pytest.mark.parametrize("args", [
    ["join", "127.0.0.1:9", "--connect-timeout"], ["bot", "--join", "127.0.0.1:9",
    "--connect-timeout"], ["resume", "GAME.ginlog", "--connect-timeout"],
    ["join", "--browse-time"], ["bot", "--discover", "--browse-time"],
])  # fmt: skip
def test_a_wait_of_no_time_is_refused(
        args: list[str], capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    """--connect-timeout 0 gave up before anything could answer: "nothing was listening
    at HOST:PORT within 0 s", as if the host were not there; --browse-time 0 said "no
    game found on the LAN" without looking."""
    for zero in ("0", "0.0"):
        with pytest.raises(SystemExit) as exc:
            main([*args, zero])
        assert exc.value.code == 2
        last = capsys.readouterr().err.splitlines()[-1]
        assert last == (f"ginp2p {args[0]}: error: argument {args[-1]}: more than 0 seconds, "
                        f"not {zero} (nothing can answer in no time)")  # fmt: skip


@pytest.mark.parametrize(("address", "says"), [
    ("nonsense", "'nonsense' is not an IP address: give this computer's address on the "
                 "network to use, e.g. 192.168.1.5 (127.0.0.1: this computer only)"),
    ("203.0.113.254", "203.0.113.254 is not an address of this computer (its addresses: "),
])  # fmt: skip
@pytest.mark.parametrize("command", [["join"], ["bot", "--discover"]])
def test_an_mdns_interface_that_is_no_address_of_this_computer_is_refused(
        address: str, says: str, command: list[str],
        capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    """It went to zeroconf as it was: a traceback (ValueError, or OSError "No such
    device") from join, a warning about inet_pton from host."""
    with pytest.raises(SystemExit) as exc:
        main([*command, "--mdns-interface", address, "--browse-time", "0.1"])
    assert exc.value.code == 2
    last = capsys.readouterr().err.splitlines()[-1]
    assert last.startswith(f"ginp2p {command[0]}: error: argument --mdns-interface: {says}")
    assert "127.0.0.1" in last


@pytest.mark.parametrize(("args", "says"), [
    (["resume", ""], "argument GAME: empty: give a game's number or file"),
    (["replay", ""], "argument GAME.ginlog: empty: give a game's .ginlog file"),
    (["export", ""], "argument GAME.ginlog: empty: give a game's .ginlog file"),
    (["audit", str(FALSE_GIN), ""], "argument OTHER.ginlog: empty: give a game's .ginlog file"),
    (["export", str(FALSE_GIN), "-o", ""], "argument -o/--output: empty: give a file to "
                                           "write, or '-' for the screen"),
    (["games", "--log-dir", ""], "argument --log-dir: empty: give a folder, or leave "
                                 "--log-dir out for the default one"),
    (["host", "--log-dir", " "], "argument --log-dir: empty"),
    (["host", "--bind", ""], "argument --bind: empty: give an address to listen on, or "
                             "leave --bind out for every interface"),
    (["keys", "--safety", ""], "argument --safety: empty: say whose: a paired player's name "
                               "or the start of their fingerprint"),
    (["replay", str(FALSE_GIN), "--as", ""], "argument --as: empty: say whose view"),
    (["replay", str(FALSE_GIN), "--secrets", ""], "argument --secrets: empty"),
])  # fmt: skip
def test_an_empty_file_folder_or_name_is_refused_not_taken_as_none(
        args: list[str], says: str, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    """An empty value was read as no option at all (games --log-dir "" listed the default
    folder, keys --safety "" printed the keys and no safety number) or as the current
    folder (resume "" and export "" ended in a traceback, export -o "" in "Is a
    directory"); the audit named the wrong file for an empty second copy."""
    from ginp2p.cli import network

    def began(args: Any) -> None:
        raise AssertionError("the game began")

    monkeypatch.setattr(network, "_check_common", began)
    with pytest.raises(SystemExit) as exc:
        main(args)
    assert exc.value.code == (NO_VERDICT if args[0] == "audit" else 2)
    last = capsys.readouterr().err.splitlines()[-1]
    assert last.startswith(f"ginp2p {args[0]}: error: {says}"), last


@pytest.mark.parametrize(("address", "says"), [
    ("999.1.1.1", "'999.1.1.1' is not an IP address: give this computer's address"),
    ("203.0.113.254", "203.0.113.254 is not an address of this computer (its addresses: "),
    ("::1", "::1: the host listens on IPv4 addresses only"),
])  # fmt: skip
@pytest.mark.parametrize("command", [["host"], ["bot", "--host"]])
def test_a_bind_address_that_is_no_address_of_this_computer_is_refused_before_hosting(
        address: str, says: str, command: list[str], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    """It went to ZeroMQ as it was: the host began, then stopped with ZeroMQ's words
    ("cannot listen on 999.1.1.1:0: No such device (addr='tcp://999.1.1.1:*')")."""
    from ginp2p.cli import network

    def began(args: Any) -> None:
        raise AssertionError("the game began")

    monkeypatch.setattr(network, "_check_common", began)
    with pytest.raises(SystemExit) as exc:
        main([*command, "--bind", address, "--port", "0"])
    assert exc.value.code == 2
    last = capsys.readouterr().err.splitlines()[-1]
    assert last.startswith(f"ginp2p {command[0]}: error: argument --bind: {says}"), last


@pytest.mark.parametrize("folder", [".", "/", ".."])
def test_a_folder_with_no_name_to_go_by_is_no_game_not_a_traceback(
        folder: str, capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    """resume and export put .ginlog, .peer or .secrets after the name they are given:
    "." and "/" have none (ValueError: PosixPath('.') has an empty name), and resume ..
    looked for a file called "...ginlog". They say what the audit and replay say."""
    assert main(["resume", folder]) == 1
    assert capsys.readouterr().err == (f"ginp2p resume: error: {folder} is a folder, not a "
                                       "game: resume the game's .ginlog file (`ginp2p games` "
                                       "lists them)\n")  # fmt: skip
    for command in (["export", folder], ["export", str(FALSE_GIN), folder], ["replay", folder]):
        assert main(command) == 1
        assert (
            capsys.readouterr().err == f"ginp2p {command[0]}: error: {folder} is a folder, "
            "not a game log\n"
        )


@pytest.mark.parametrize("command", ["audit", "replay", "export"])
def test_a_missing_game_file_asks_for_the_game_not_for_the_other_copy(
        command: str, capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    """The other player's copy is optional: the error asked for it too ("required:
    GAME.ginlog, OTHER.ginlog")."""
    with pytest.raises(SystemExit) as exc:
        main([command])
    assert exc.value.code == (NO_VERDICT if command == "audit" else 2)
    last = capsys.readouterr().err.splitlines()[-1]
    assert last == f"ginp2p {command}: error: the following arguments are required: GAME.ginlog"


def test_games_with_a_home_that_is_a_file_says_so(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    """GINP2P_HOME set to a file: `games` said "no games in FILE/games" (exit 0), as if
    there were none, while keys and play refuse that home."""
    home = tmp_path / "notes.txt"
    home.write_text("not a folder\n")
    monkeypatch.setenv("GINP2P_HOME", str(home))
    assert main(["games"]) == 1
    assert capsys.readouterr().err == (f"ginp2p games: error: cannot look for games in "
                                       f"{home / 'games'}: {home} is not a folder (set "
                                       "GINP2P_HOME to a folder)\n")  # fmt: skip
    monkeypatch.setenv("GINP2P_HOME", str(tmp_path / "new"))  # not made yet: no games
    assert main(["games"]) == 0
    assert capsys.readouterr().out == f"no games in {tmp_path / 'new' / 'games'}\n"
