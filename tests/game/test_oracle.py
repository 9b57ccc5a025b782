"""The engine against OpenSpiel's recorded hands (``shared/oracle``, copied to tests/data)."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
FILES = [DATA / "openspiel_games_sample.jsonl", DATA / "openspiel_games_eager_sample.jsonl"]
sys.path.insert(0, str(ROOT / "scripts"))

from replay_openspiel import Mismatch, replay_game  # noqa: E402


def _games() -> list[dict[str, Any]]:
    return [json.loads(line) for f in FILES for line in f.read_text().splitlines() if line.strip()]


GAMES = _games()


def test_every_sample_hand_replays_exactly() -> None:
    failures = []
    for g in GAMES:
        try:
            replay_game(g)
        except Mismatch as e:
            failures.append(f"game {g['game']}: {e}")
    assert not failures, "\n".join(failures[:20])
    assert len(GAMES) == 500


def test_script_prints_the_closing_line_and_exit_status(tmp_path: Path) -> None:
    bad = copy.deepcopy(GAMES[0])
    bad["result"]["returns"] = [r + 1 for r in bad["result"]["returns"]]
    f = tmp_path / "two.jsonl"
    f.write_text(json.dumps(GAMES[1]) + "\n" + json.dumps(bad) + "\n")
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "replay_openspiel.py"), str(f)],
                         capture_output=True, text=True)  # fmt: skip
    assert out.returncode == 1
    assert out.stdout.strip().splitlines()[-1] == "1 passed, 1 failed"
    assert "returns" in out.stdout


def _with_knock() -> dict[str, Any]:
    return next(g for g in GAMES if g["result"]["end"] in ("knock", "undercut")
                and g["result"]["layoffs"])  # fmt: skip


def _mutations() -> list[tuple[str, dict[str, Any]]]:
    out = []
    g = _with_knock()
    # A changed card: the first card drawn from the stock is swapped with one never drawn.
    m = copy.deepcopy(g)
    k = 21 + m["n_stock_drawn"]
    if k < len(m["deck"]):
        m["deck"][21], m["deck"][k] = m["deck"][k], m["deck"][21]
        out.append(("changed card", m))
    # A dealt card swapped between the two hands.
    m = copy.deepcopy(g)
    m["deck"][0], m["deck"][10] = m["deck"][10], m["deck"][0]
    out.append(("swapped deal", m))
    # Two of one player's discards swapped.
    m = copy.deepcopy(g)
    idx = [i for i, a in enumerate(m["actions"]) if a["t"] == "discard" and a["p"] == 0]
    a, b = idx[0], idx[1]
    m["actions"][a]["card"], m["actions"][b]["card"] = (
        m["actions"][b]["card"],
        m["actions"][a]["card"],
    )
    out.append(("swapped action", m))
    for field, change in (
        ("returns", lambda r: [r["returns"][0] + 1, r["returns"][1] - 1]),
        ("deadwood", lambda r: [r["deadwood"][0] + 1, r["deadwood"][1]]),
        ("layoffs", lambda r: r["layoffs"][1:]),
        ("stock_left", lambda r: r["stock_left"] - 1),
        ("end", lambda r: "gin"),
        ("discard_pile", lambda r: r["discard_pile"][:-1]),
    ):
        m = copy.deepcopy(g)
        m["result"][field] = change(m["result"])
        out.append((f"altered {field}", m))
    # A layoff OpenSpiel listed as legal, removed from the recorded legal set.
    m = copy.deepcopy(g)
    lay = next(a for a in m["actions"] if a["t"] == "layoff")
    lay["legal"] = lay["legal"][1:] if len(lay["legal"]) > 1 else [*lay["legal"], "KS"]
    out.append(("altered legal layoffs", m))
    # A meld that is not a meld.
    m = copy.deepcopy(g)
    meld = next(a for a in m["actions"] if a["t"] == "meld")
    meld["cards"] = [*meld["cards"][:2], "KS" if meld["cards"][2] != "KS" else "KH"]
    out.append(("broken meld", m))
    return out


@pytest.mark.parametrize(
    ("name", "game"), _mutations(), ids=lambda x: x if isinstance(x, str) else ""
)
def test_every_mutation_is_caught(name: str, game: dict[str, Any]) -> None:
    with pytest.raises(Mismatch):
        replay_game(game)


# Hands from OpenSpiel 2.0.2 (pyspiel, the "eager" policy of shared/oracle/README.md)
# in which the defender lays off a card that fits both a set and a run of the knocker,
# and a later card then extends the run through it. OpenSpiel records only the card;
# the replay must name the meld that lets the later cards through.
LAYOFF_TARGETS = [
    json.loads(line)
    for line in (DATA / "openspiel_layoff_targets.jsonl").read_text().splitlines()
    if line.strip()
]


@pytest.mark.parametrize("game", LAYOFF_TARGETS, ids=lambda g: str(g["seed"]))
def test_a_layoff_on_a_set_or_a_run_goes_where_later_layoffs_need_it(
    game: dict[str, Any],
) -> None:
    state = replay_game(game)
    assert state.result is not None
    assert list(state.result.returns) == game["result"]["returns"]
    layoffs = [a for a in game["actions"] if a["t"] == "layoff"]
    assert any(len(a["fits_melds"]) == 2 for a in layoffs)


def test_a_legal_layoff_through_a_set_card_is_compared_too() -> None:
    game = copy.deepcopy(next(g for g in LAYOFF_TARGETS if g["seed"] == 8000450))
    # After 6C (which fits the 6s and the clubs run), OpenSpiel allowed only 5C.
    last = [a for a in game["actions"] if a["t"] == "layoff"][-1]
    assert last["legal"] == ["5C"]
    last["legal"] = []
    with pytest.raises(Mismatch, match="layoffs"):
        replay_game(game)
