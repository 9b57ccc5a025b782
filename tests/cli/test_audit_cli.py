"""Every log of the cheating corpus (tests/corpus, made by scripts/make_corpus.py) gets
its expected verdict from ``ginp2p audit``, as text and as JSON, in-process and as a
real process whose exit code a script would read."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import nacl.signing
import pytest

from ginp2p.cli import main
from ginp2p.files import peers
from ginp2p.files.identity import _IDENTITY_HEADER, IDENTITY_FILE
from ginp2p.files.logfile import LogFile
from ginp2p.game.rules import PRESETS, get_preset
from ginp2p.proto.keytext import fingerprint
from ginp2p.record.report import Verdict
from ginp2p.testing.fakelink import FakeLink, make_pair
from tests.processes import RunGinp2p

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "corpus"
EXPECTED: dict[str, dict[str, Any]] = json.loads((CORPUS / "expected.json").read_text())
NAMES = {"host": "Ann", "guest": "Bob"}  # the fake link's players


pytestmark = pytest.mark.usefixtures("ginp2p_home")


def test_every_file_has_an_expectation_and_every_verdict_and_preset_is_covered() -> None:
    assert {p.stem for p in CORPUS.glob("*.ginlog")} == set(EXPECTED)
    assert {x["verdict"] for x in EXPECTED.values()} == {v.value for v in Verdict}
    assert {f"clean-{p}" for p in PRESETS} <= set(EXPECTED)
    for name, want in EXPECTED.items():
        assert want["exit"] == Verdict(want["verdict"]).exit_code, name
        assert want["why"], name
        cheated = want["verdict"] == "cheated"
        assert (want["player"] in NAMES) is cheated and bool(want["rule"]) is cheated, name
        assert want["hand"] == (1 if cheated else None), name
        if want["verdict"] == "incomplete":
            assert want["owed"], name


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_audit_reaches_the_expected_verdict(
        name: str, capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    want = EXPECTED[name]
    path = str(CORPUS / f"{name}.ginlog")

    assert main(["audit", path]) == want["exit"]
    lines = capsys.readouterr().out.rstrip().splitlines()
    assert lines[0] == f"ginp2p audit: {want['verdict'].upper()} (exit {want['exit']})"
    cheats = [line for line in lines if line.startswith("Cheat: ")]
    if want["verdict"] == "cheated":
        (cheat,) = cheats
        assert cheat.startswith(f"Cheat: {NAMES[want['player']]} cheated (hand {want['hand']}, ")
        assert any(line.strip().startswith(f"rule {want['rule']};") for line in lines)
    else:
        assert cheats == []
    if want["verdict"] == "incomplete":
        assert any(line.startswith("Owed, ") for line in lines)
    if want["verdict"] == "damaged":
        assert any(line.startswith("Damage") for line in lines)
    assert lines[-1].startswith("Result: ")

    assert main(["audit", path, "--json"]) == want["exit"]
    doc = json.loads(capsys.readouterr().out)
    assert (doc["schema"], doc["verdict"], doc["exit"]) == (1, want["verdict"], want["exit"])
    c = doc["cheat"]
    if want["verdict"] == "cheated":
        assert (c["feed"], c["rule"], c["hand"]) == (want["player"], want["rule"], want["hand"])
        assert c["name"] == NAMES[want["player"]] and c["evidence"]
        # the hand's own verdict carries it too, and a cheat forfeits the match
        (hand,) = [h for h in doc["hands"] if h["hand"] == want["hand"]]
        assert hand["verdict"] == "cheated" and hand["cheat"] == c
        assert doc["winner"] == 1 - c["player"] and doc["end"] == "cheat"
    else:
        assert c is None
    if want["owed"]:
        assert any(want["owed"] in o for o in doc["owed"]), doc["owed"]
    if want["damage"]:
        assert any(want["damage"] in d for d in doc["damage"]), doc["damage"]
    if want["verdict"] == "clean":
        assert doc["owed"] == [] and doc["damage"] == [] and doc["winner"] in (0, 1)
        # played to its end by the rules (target, bust, ...), not forfeited
        assert doc["end"] not in (None, "resign", "claim", "cheat") and len(doc["hands"]) >= 2
        assert all(h["verdict"] == "clean" for h in doc["hands"])


@pytest.mark.parametrize("name", ["clean-classic", "cheat-false-gin"])
def test_a_real_process_exits_with_the_verdict(name: str, ginp2p_home: Path,
                                               run_ginp2p: RunGinp2p) -> None:  # fmt: skip
    run = run_ginp2p(ginp2p_home, "audit", str(CORPUS / f"{name}.ginlog"))
    assert run.returncode == EXPECTED[name]["exit"], run.stderr
    assert run.stdout.startswith(f"ginp2p audit: {EXPECTED[name]['verdict'].upper()} ")


def test_the_corpus_script_rebuilds_a_case(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    name = "clean-classic"
    run = subprocess.run([sys.executable, str(ROOT / "scripts" / "make_corpus.py"), "--out",
                          str(tmp_path), "--only", name],
                         capture_output=True, text=True, timeout=300)  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    assert name in run.stdout and " clean " in run.stdout
    made = tmp_path / f"{name}.ginlog"
    assert json.loads((tmp_path / "expected.json").read_text()) == {name: EXPECTED[name]}
    assert main(["audit", str(made)]) == 0
    assert capsys.readouterr().out.startswith("ginp2p audit: CLEAN (exit 0)")
    # deterministic: the same bytes as the committed file
    assert made.read_bytes() == (CORPUS / f"{name}.ginlog").read_bytes()


def test_a_file_that_is_no_log_has_no_verdict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Bytes that are no game log hold no game to judge: no verdict (exit 4), said as
    replay and export say it, never "damaged" (which blames a file's loss on nobody)."""
    path = tmp_path / "noise.ginlog"
    path.write_bytes(random.Random(9).randbytes(300))
    assert main(["audit", str(path), "--json"]) == 4
    doc = json.loads(capsys.readouterr().out)
    assert doc["verdict"] is None and "is not a ginp2p game log" in doc["error"]


@pytest.mark.parametrize(("name", "want"), [
    ("cheat-out-of-turn", "Cheat: Ann cheated (hand 1, host entry 10): Ann took the upcard when "
                          "Bob owed a move in hand 1"),
    ("cheat-wrong-stock-key", "Cheat: Ann cheated (hand 1, host entry 14): the key does not "
                              "open the lock its author published for that card"),
    ("damaged-spliced", "  - records 39-48: entries of another game"),
    ("damaged-bit-flip", "  - record 20, guest entry 9 (a draw from the pile in hand 1): bad "
                         "signature"),
])  # fmt: skip
def test_the_text_says_things_in_words(name: str, want: str,
                                       capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    """Moves, kinds and reasons in words: no snake_case kind, and the rule's code only on
    its own line (the JSON keeps it)."""
    main(["audit", str(CORPUS / f"{name}.ginlog")])
    lines = capsys.readouterr().out.splitlines()
    assert want in lines
    if name.startswith("cheat"):
        main(["audit", str(CORPUS / f"{name}.ginlog"), "--json"])
        doc = json.loads(capsys.readouterr().out)
        assert want.endswith(doc["cheat"]["detail"]) and doc["cheat"]["rule"] in lines[-2]


def test_both_players_copies_are_judged_together(capsys: pytest.CaptureFixture[str]) -> None:
    """A copy that lost an entry is damaged alone; with the other player's copy, which
    holds it, the game is whole. Copies of two different games get no verdict."""
    lost, whole = str(CORPUS / "damaged-dropped-entry.ginlog"), str(CORPUS / "clean-classic.ginlog")
    assert main(["audit", lost]) == 3
    capsys.readouterr()
    assert main(["audit", lost, whole, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["verdict"] == "clean" and doc["copies"] == 2 and doc["winner"] == 1
    assert main(["audit", lost, whole, "--hand", "1"]) == 0
    assert "hand 1 CLEAN" in capsys.readouterr().out
    other = str(CORPUS / "clean-french.ginlog")
    assert main(["audit", whole, other]) == 4
    err = capsys.readouterr().err
    assert f"ginp2p audit: error: {whole} and {other} are not copies of one game" in err
    assert main(["audit", whole, str(CORPUS / "no-such.ginlog")]) == 4
    assert "no-such.ginlog: no such file" in capsys.readouterr().err


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory
           ) -> tuple[Path, list[nacl.signing.SigningKey]]:  # fmt: skip
    """A short match of the fake link's Ann and Bob, saved; and their signing keys."""
    rng = random.Random(11)
    host, guest = make_pair(get_preset("classic").with_(game_target=10), rng)
    FakeLink(host, guest, rng).run()
    path = tmp_path_factory.mktemp("game") / "game.ginlog"
    with LogFile.open(path) as f:
        for r in host.saved:
            f.append(r)
    return path, [host.proto.key, guest.proto.key]


def _keys_out(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[list[str], list[Any]]:
    """The Keys lines of the audit's text, and the JSON's keys."""
    main(["audit", *args])
    lines = [line for line in capsys.readouterr().out.splitlines()
             if line.startswith(("Keys: ", "      "))]  # fmt: skip
    main(["audit", *args, "--json"])
    return lines, json.loads(capsys.readouterr().out)["keys"]


def test_the_audit_says_whose_keys_signed_the_log(
        played: tuple[Path, list[nacl.signing.SigningKey]], ginp2p_home: Path,
        capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    """Anyone can make two keys and call them Ann and Bob: the audit shows each key's
    fingerprint and says which is the auditor's own (GINP2P_HOME) or a paired player's."""
    path, keys = played
    pub = [bytes(k.verify_key) for k in keys]
    fp = [fingerprint(k) for k in pub]
    home = ginp2p_home
    lines, doc = _keys_out(capsys, str(path))  # a home with no key: none is created
    assert lines == [f"Keys: host Ann, key {fp[0]} (not a key you know)",
                     f"      guest Bob, key {fp[1]} (not a key you know)"]  # fmt: skip
    assert [(k["feed"], k["name"], k["fingerprint"], k["known"]) for k in doc] == [
        ("host", "Ann", fp[0], None), ("guest", "Bob", fp[1], None)]  # fmt: skip
    assert not (home / IDENTITY_FILE).exists()
    home.chmod(0o700)  # the auditor played the host; the guest is paired as Robert
    (home / IDENTITY_FILE).write_text(f"{_IDENTITY_HEADER}\n{bytes(keys[0]).hex()}\n")
    (home / IDENTITY_FILE).chmod(0o600)
    peers.pin(pub[1], "Robert", home=home)
    lines, doc = _keys_out(capsys, str(path))
    assert lines == [f"Keys: host Ann, key {fp[0]} (you)",
                     f"      guest Bob, key {fp[1]} (paired with you as Robert)"]  # fmt: skip
    assert [k["known"] for k in doc] == ["you", "paired with you as Robert"]
    # fresh keys under the same names (the corpus's Ann and Bob): neither
    lines, doc = _keys_out(capsys, str(CORPUS / "clean-classic.ginlog"))
    assert [k["name"] for k in doc] == ["Ann", "Bob"] and [k["known"] for k in doc] == [None, None]
    assert not {k["fingerprint"] for k in doc} & set(fp)
    assert all(line.endswith("(not a key you know)") for line in lines) and len(lines) == 2
