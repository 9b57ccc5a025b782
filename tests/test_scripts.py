"""The scripts in scripts/ keep working: the deadwood checker keeps its output contract
and fails on a wrong case, the simulation is deterministic, and every benchmark runs a
small configuration to the end and prints its figures (the figures themselves are not
judged here: timing belongs to the benchmarks, not to tests). Real processes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "tests" / "data" / "deadwood_cases_sample.jsonl"


#: The scripts' processes inherit this test's temporary GINP2P_HOME.
pytestmark = pytest.mark.usefixtures("ginp2p_home")


def run(script: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(ROOT / "scripts" / script), *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)  # fmt: skip


def test_check_deadwood_passes_the_sample_and_names_each_wrong_case(tmp_path: Path) -> None:
    lines = SAMPLE.read_text().splitlines()
    ok = run("check_deadwood.py", str(SAMPLE))
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert ok.stdout.splitlines() == [f"{len(lines)} passed, 0 failed"]

    cases = [json.loads(line) for line in lines]
    ten = next(c for c in cases if c["n"] == 10)
    eleven = next(c for c in cases if c["n"] == 11)
    ten["min_deadwood"] += 1
    eleven["min_deadwood_after_discard"] += 2
    right = next(c for c in cases if c["n"] == 10 and c["id"] != ten["id"])
    bad = tmp_path / "bad.jsonl"
    bad.write_text("".join(json.dumps(c) + "\n" for c in (ten, right, eleven)))
    r = run("check_deadwood.py", str(bad))
    assert r.returncode == 1
    assert r.stdout.splitlines() == [
        f"{ten['id']} min_deadwood: expected {ten['min_deadwood']}, got {ten['min_deadwood'] - 1}",
        f"{eleven['id']} min_deadwood_after_discard: expected "
        f"{eleven['min_deadwood_after_discard']}, got {eleven['min_deadwood_after_discard'] - 2}",
        "1 passed, 2 failed",
    ]


def test_simulate_prints_the_same_matches_for_the_same_seed() -> None:
    runs = [run("simulate.py", "--games", "1", "--seed", "11") for _ in range(2)]
    for r in runs:
        assert r.returncode == 0, r.stdout + r.stderr
    results = [[x for x in r.stdout.splitlines() if not x.startswith("speed:")] for r in runs]
    assert results[0] == results[1]
    assert results[0][0].startswith("preset classic: 1 match, ")
    assert "hands/s" in runs[0].stdout and "progress" not in runs[0].stdout  # progress: stderr
    # each side's thinking time, the bot timed against its opponent in the same run
    assert "speed: a decision of bot (side A) takes " in runs[0].stdout
    assert "ms at the 99th percentile" in runs[0].stdout


def test_paired_hands_plays_the_same_deals_and_counts_what_changed(tmp_path: Path) -> None:
    """Two runs on the same deals give the same hands, so a comparison finds none
    changed; another player on those deals is compared hand by hand."""
    base = ["--deal-seeds", "3,4", "--hands", "6", "--player", "greedy"]
    first = run("paired_hands.py", *base, "--out", str(tmp_path / "a.jsonl"))
    assert first.returncode == 0, first.stdout + first.stderr
    again = run("paired_hands.py", *base, "--jobs", "2", "--against", str(tmp_path / "a.jsonl"))
    assert again.returncode == 0, again.stdout + again.stderr
    table = [x for x in first.stdout.splitlines() if not x.startswith("speed:")]
    assert [x for x in again.stdout.splitlines() if x in table] == table
    assert "12 hands in both, 0 changed" in again.stdout
    rows = [json.loads(x) for x in (tmp_path / "a.jsonl").read_text().splitlines()]
    assert len(rows) == 12 and {r["dealt"] for r in rows} == {True, False}
    won = sum(r["result"] == 1 for r in rows)
    lost = sum(r["result"] == -1 for r in rows)
    assert f"{'all':<10}{won:>7}{lost:>7}" in first.stdout

    other = run("paired_hands.py", *base[:4], "--player", "random", "--against",
                str(tmp_path / "a.jsonl"))  # fmt: skip
    assert other.returncode == 0, other.stdout + other.stderr
    assert "12 hands in both, 0 changed" not in other.stdout and "net " in other.stdout

    bad = run("paired_hands.py", "--deal-seeds", "one")
    assert bad.returncode == 2 and "--deal-seeds takes whole numbers" in bad.stderr


@pytest.mark.parametrize(
    ("script", "args", "rows"),
    [
        ("bench_melds.py", ["--hands", "30", "--repeats", "1"],
         ["min_deadwood, random 10 cards", "best_discard, 52-bit mask",
          "best_discard, meld-rich 11", "engine:"]),
        # fewer proof rounds: what is checked is that every row is printed
        ("bench_shuffle.py", ["--reps", "1", "--k", "2"],
         ["shuffle prove (1 thr)", "WHOLE SET-UP"]),
        ("bench_protocol.py", ["--reps", "1", "--sizes", "52", "--games", "3", "--target", "1"],
         ["stock draw: sign+verify x2", "audit ms/hand", "| classic", "audits remembered"]),
        pytest.param("bench_net.py", ["--moves", "30", "--help-runs", "1"],
                     ["move latency, act -> opponent applied", "raw ZeroMQ", "idle peer RSS"],
                     marks=pytest.mark.e2e),  # a real ginp2p host, matches over ZeroMQ
    ],
)  # fmt: skip
def test_a_benchmark_runs_to_the_end(script: str, args: list[str], rows: list[str]) -> None:
    r = run(script, *args)
    assert r.returncode == 0, r.stdout + r.stderr
    for row in rows:
        assert row in r.stdout, f"{script} no longer prints {row!r}:\n{r.stdout}"
