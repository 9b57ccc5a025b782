"""The smaller commands as a new player meets them: ``rules`` in words (the raw names
under ``--raw``); ``audit``, ``replay`` and ``export`` reading a file one way and saying
it in one wording; the computer's ``--level easy``; and ``play --watch`` showing the
table, keeping the watched match apart, with one name for the computer player."""

from __future__ import annotations

import json
import random
import re
from argparse import Namespace
from pathlib import Path

import pytest

from ginp2p.cli.values import chosen_rules
from ginp2p.game.rules import PRESETS, RuleSet, get_preset
from ginp2p.present.rule_settings import PRESET_LINES, setting_groups
from tests.processes import SHORT, RunGinp2p

CORPUS = Path(__file__).resolve().parents[1] / "corpus"


# ------------------------------------------------------------------------ rules


def test_rules_lists_the_presets_each_with_a_line_on_it(tmp_path: Path,
                                                        run_ginp2p: RunGinp2p) -> None:  # fmt: skip
    r = run_ginp2p(tmp_path, "rules")
    assert r.returncode == 0, r.stderr
    text = " ".join(r.stdout.split())
    for name in PRESETS:
        assert re.search(rf"^{re.escape(name)} +\S", r.stdout, re.M), (name, r.stdout)
        assert " ".join(PRESET_LINES[name].split()) in text
    assert "`ginp2p rules NAME` shows one preset's rules and settings" in text
    raw = run_ginp2p(tmp_path, "rules", "--raw")
    assert raw.stdout.split() == list(PRESETS)  # for a script: the names alone


def test_a_preset_reads_as_words_and_raw_gives_the_names_set_takes(
        tmp_path: Path, run_ginp2p: RunGinp2p) -> None:  # fmt: skip
    """`ginp2p rules rumino` printed `knock_instead_of_draw  True`: now its rules in a
    few sentences and every setting under a label in words; `--raw` the names and
    values `--set NAME=VALUE` takes."""
    r = run_ginp2p(tmp_path, "rules", "rumino", encoding="utf-8")
    assert r.returncode == 0, r.stderr
    text = " ".join(r.stdout.split())
    assert "knock_instead_of_draw" not in r.stdout and "True" not in r.stdout
    assert "None" not in r.stdout and "own_deadwood" not in r.stdout
    for words in ("Knock: at the start of a turn, instead of drawing, with no discard",
                  "Deck: 108 cards: two decks and 4 jokers", "Cards dealt to each: 7",
                  "Each player adds their own deadwood",  # the rules in sentences, first
                  "A hand scores: each player adds their own deadwood to their score",
                  "The match ends: over 100 a player is out",
                  "Gins in the first hands: a gin in each of the first 3 wins the match",
                  "`ginp2p rules rumino --raw` lists the settings"):  # fmt: skip
        assert words in text, (words, r.stdout)
    raw = run_ginp2p(tmp_path, "rules", "rumino", "--raw")
    pairs = [line.split() for line in raw.stdout.splitlines()]
    assert ["knock_instead_of_draw", "true"] in pairs and ["max_discard_draws", "none"] in pairs
    # each raw line is what --set takes: set back, they make the preset again
    settings = [f"{name}={value}" for name, value in pairs]
    assert chosen_rules(Namespace(preset="classic", set=settings)).to_dict() == \
        {**get_preset("rumino").to_dict(), "name": "classic"}  # fmt: skip


def test_every_setting_has_words_and_every_preset_a_line() -> None:
    """A setting added to RuleSet must be said to players too."""
    named = [name for _, settings in setting_groups(get_preset("classic")) for name, _, _ in
             settings]  # fmt: skip
    assert sorted(named) == sorted(set(RuleSet.__dataclass_fields__) - {"name"})
    assert set(PRESET_LINES) == set(PRESETS)
    for preset in PRESETS.values():
        for _, settings in setting_groups(preset):
            for name, label, value in settings:
                assert "_" not in label + value and value not in ("", "True", "False", "None"), \
                    (preset.name, name, label, value)  # fmt: skip


# ------------------------------------------------------------------------ reading a file


def _three(tmp_path: Path, run_ginp2p: RunGinp2p, path: Path) -> dict[str, tuple[int, str, str]]:
    """audit, replay --plain and export of one file: exit code, output, errors."""
    out = {}
    for command in (["audit"], ["replay", "--plain"], ["export"]):
        r = run_ginp2p(tmp_path, *command, str(path), encoding="utf-8")
        out[command[0]] = (r.returncode, r.stdout, r.stderr)
    return out


def test_a_file_that_is_no_game_log_is_refused_alike_by_all_three(
        tmp_path: Path, run_ginp2p: RunGinp2p) -> None:  # fmt: skip
    """The audit called random bytes DAMAGED (exit 3) where replay and export said they
    are no game log: all three refuse it, in the same words; the audit gives no verdict."""
    noise = tmp_path / "noise.bin"
    noise.write_bytes(random.Random(39).randbytes(3000))
    said = _three(tmp_path, run_ginp2p, noise)
    why = f"{noise} is not a ginp2p game log: it does not begin with GINLOG1"
    assert said["audit"] == (4, "", f"ginp2p audit: error: {why}\n")
    assert said["replay"] == (1, "", f"ginp2p replay: error: {why}\n")
    assert said["export"] == (1, "", f"ginp2p export: error: {why}\n")
    r = run_ginp2p(tmp_path, "audit", "--json", str(noise))
    assert json.loads(r.stdout)["error"] == why and r.returncode == 4


def test_a_torn_file_is_said_alike_with_its_byte_counted_right(
        tmp_path: Path, run_ginp2p: RunGinp2p) -> None:  # fmt: skip
    """A file torn one byte into a record read "1 bytes at byte 29404"."""
    whole = (CORPUS / "clean-classic.ginlog").read_bytes()
    one, three = tmp_path / "one.ginlog", tmp_path / "three.ginlog"
    one.write_bytes(whole + b"\xc4")  # a record's first byte, and nothing after it
    three.write_bytes(whole + b"\xc5\x01")
    at = len(whole)
    for path, line in ((one, f"the file is torn: 1 byte at byte {at} is no whole record"),
                       (three, f"the file is torn: 2 bytes at byte {at} are no whole "
                               "record")):  # fmt: skip
        said = _three(tmp_path, run_ginp2p, path)
        assert said["audit"][0] == 3 and f"  - {line} (incomplete)\n" in said["audit"][1]
        assert f"\ndamaged: {line} (incomplete)\n" in said["replay"][1], said["replay"]
        assert f"\ndamaged: {line} (incomplete)\n" in said["export"][1], said["export"]


@pytest.mark.parametrize("name", ["damaged-dropped-entry", "cheat-equivocation"])
def test_audit_replay_and_export_count_the_same_entries(name: str, tmp_path: Path,
                                                        run_ginp2p: RunGinp2p) -> None:  # fmt: skip
    """The audit said 37 entries where replay and export said 12 of the same damaged
    file: all three count the file's entries; the replay says how far it gets."""
    said = _three(tmp_path, run_ginp2p, CORPUS / f"{name}.ginlog")
    counts = {c: re.search(r"\(guest\), preset [^;]*; (\d+) entries", out) for c, (_, out, _)
              in said.items()}  # fmt: skip
    assert all(counts.values()), said
    numbers = {c: int(m.group(1)) for c, m in counts.items() if m is not None}
    assert len(set(numbers.values())) == 1, numbers
    total = numbers["audit"]
    reached = re.search(rf"only the first (\d+) of the file's {total} entries can be replayed",
                        said["replay"][1])  # fmt: skip
    assert reached is not None and int(reached.group(1)) < total, said["replay"][1]
    assert reached.group(0) in said["export"][1]


# ------------------------------------------------------------------------ the computer


@pytest.mark.e2e
def test_play_at_the_easy_level_plays_a_match_with_the_easy_computer(
        tmp_path: Path, run_ginp2p: RunGinp2p) -> None:  # fmt: skip
    """`--level easy`: the computer player is started at that level, which its game keeps
    for a resume (its `.peer` file); the default stays the other player."""
    r = run_ginp2p(tmp_path, "play", "--level", "easy", *SHORT, "--linger", "3")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "MATCH OVER" in r.stdout
    (computer,) = (tmp_path / "games" / "watched" / "computer").glob("*.peer")
    assert json.loads(computer.read_text())["level"] == "easy"
    (watcher,) = (tmp_path / "games" / "watched").glob("*.peer")
    assert json.loads(watcher.read_text())["level"] == "normal"
    bad = run_ginp2p(tmp_path, "play", "--level", "hard")
    assert bad.returncode == 2 and "invalid choice: 'hard'" in bad.stderr


# ------------------------------------------------------------------------ watching


@pytest.mark.e2e
def test_watching_at_a_terminal_shows_the_table_and_keeps_the_match_apart(tmp_path: Path,
                                                                          run_ginp2p: RunGinp2p
                                                                          ) -> None:  # fmt: skip
    """`play --watch` drew one line per hand, filed the match among the player's own
    games (signed with their key, the computer pinned as "Computer 2"), and the next
    `play` said "connected to Computer 2". Now: the table, read-only; the match in a
    folder of its own; the user's key and pins untouched."""
    from tests.console.test_tui_tmux import Pane

    pane = Pane(tmp_path, 90, 30, ["--watch", *SHORT, "--linger", "1"])
    try:
        # (the table, or, had a first-turn knock ended the one-hand match before a look,
        # its final sheet: both are the watched match, told in the third person)
        screen = pane.wait(lambda s: "watching" in s and ("stock" in s or "MATCH OVER" in s),
                           timeout=60)  # fmt: skip
        assert re.search(r"^ ginp2p · classic, game to 1", screen, re.M), screen
        assert re.search(r"^ Ann \d+ · \d hands? won +Computer \d+ · \d hands? won", screen,
                         re.M), screen  # fmt: skip
        assert "(you)" not in screen and "your hand" not in screen and " q leave" in screen
        pane.wait(lambda s: re.search(r"(Ann|Computer) (drew|took|passed|knocked|went gin)",
                                      s) is not None)  # fmt: skip
        pane.keys("s")  # a table key: nothing to do here but watch (said until q, even
        pane.wait("watching two computer players: q leaves (the match is saved)")  # at the end)
        pane.keys("q")
        done = pane.wait("EXIT=", timeout=60)
    finally:
        pane.close()
    assert "EXIT=0" in done, done
    home, games = tmp_path / "home", tmp_path / "games"
    assert not list(games.glob("*.ginlog")), "not among the player's own games"
    assert len(list((games / "watched").glob("*.ginlog"))) == 1
    assert not (home / "identity.key").exists() and not (home / "peers.json").exists()
    (computer,) = (games / "watched" / "computer").glob("*.peer")
    assert json.loads(computer.read_text())["name"] == "Computer"  # as in every `play`
    listed = run_ginp2p(home, "games", "--log-dir", str(games))
    assert listed.stdout.startswith(f"no games in {games}\n"), listed.stdout
    assert f"1 match you watched, between two computer players, in {games / 'watched'}" in \
        " ".join(listed.stdout.split())  # fmt: skip
