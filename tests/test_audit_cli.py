"""Every log of the cheating corpus (tests/corpus, made by scripts/make_corpus.py) gets
its expected verdict from ``ginp2p audit``, as text and as JSON, in-process and as a
real process whose exit code a script would read."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ginp2p.cli import main

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus"
EXPECTED: dict[str, dict[str, Any]] = json.loads((CORPUS / "expected.json").read_text())
NAMES = {"host": "Ann", "guest": "Bob"}  # the fake link's players


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GINP2P_HOME", str(tmp_path / "home"))


def test_every_corpus_file_has_an_expectation_and_every_verdict_is_covered() -> None:
    files = {p.stem for p in CORPUS.glob("*.ginlog")}
    assert files == set(EXPECTED)
    assert {x["verdict"] for x in EXPECTED.values()} == {"clean", "cheated", "incomplete",
                                                        "damaged"}  # fmt: skip
    # every preset has a clean match
    from ginp2p.rules import PRESETS

    assert {f"clean-{p}" for p in PRESETS} <= files


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_audit_reaches_the_expected_verdict(
        name: str, capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    want = EXPECTED[name]
    path = str(CORPUS / f"{name}.ginlog")

    assert main(["audit", path]) == want["exit"]
    text = capsys.readouterr().out
    assert text.splitlines()[0] == f"ginp2p audit: {want['verdict'].upper()} (exit {want['exit']})"
    if want["verdict"] == "cheated":
        cheat = next(line for line in text.splitlines() if line.startswith("Cheat: "))
        assert cheat.startswith(f"Cheat: {NAMES[want['player']]} cheated (hand {want['hand']}, ")
        assert f"rule {want['rule']};" in text
    else:
        assert "Cheat:" not in text
    assert text.rstrip().splitlines()[-1].startswith("Result: ")

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
        assert all(h["verdict"] == "clean" for h in doc["hands"])


@pytest.mark.parametrize("name", ["clean-classic", "cheat-false-gin", "damaged-torn"])
def test_a_real_process_exits_with_the_verdict(name: str, tmp_path: Path) -> None:
    env = {**os.environ, "GINP2P_HOME": str(tmp_path / "home")}
    run = subprocess.run([sys.executable, "-m", "ginp2p", "audit", str(CORPUS / f"{name}.ginlog")],
                         capture_output=True, text=True, env=env, timeout=120)  # fmt: skip
    assert run.returncode == EXPECTED[name]["exit"], run.stderr
    assert run.stdout.startswith(f"ginp2p audit: {EXPECTED[name]['verdict'].upper()}")


def test_the_corpus_script_rebuilds_a_case(tmp_path: Path) -> None:
    run = subprocess.run([sys.executable, str(ROOT / "scripts" / "make_corpus.py"), "--out",
                          str(tmp_path), "--only", "cheat-bad-sum-proof"],
                         capture_output=True, text=True, timeout=300)  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    made = tmp_path / "cheat-bad-sum-proof.ginlog"
    # deterministic: the same bytes as the committed file
    assert made.read_bytes() == (CORPUS / "cheat-bad-sum-proof.ginlog").read_bytes()
    assert json.loads((tmp_path / "expected.json").read_text()) == {
        "cheat-bad-sum-proof": EXPECTED["cheat-bad-sum-proof"]}
