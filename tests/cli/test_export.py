"""``ginp2p export`` and the audit command's options (the corpus verdicts are in
test_audit_cli.py).

The logs are real (two PeerProtocol peers over the fake link); what the export must
say is checked against what the peers themselves saw while playing: the cards each
was dealt, the scores of the match.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from ginp2p.cli import NO_VERDICT, main
from ginp2p.game import engine
from ginp2p.game.rules import get_preset
from ginp2p.proto import events as ev
from ginp2p.proto.entry import GUEST, HOST, Entry
from ginp2p.proto.protocol import PeerProtocol
from ginp2p.record.export import text_lines
from ginp2p.testing.fakelink import FakeLink, bot_player, make_pair
from tests.helpers import Match, play_match, write

RULES = get_preset("classic").with_(game_target=10)


pytestmark = pytest.mark.usefixtures("ginp2p_home")


@pytest.fixture(scope="module")
def honest() -> Match:
    return play_match(RULES, 1)


def export_json(path: Path, capsys: pytest.CaptureFixture[str]) -> dict:
    assert main(["export", str(path), "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_an_opened_match_shows_every_deal_move_and_score(honest: Match, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]
                                                         ) -> None:  # fmt: skip
    # the guest's file, with the guest's secrets beside it: export must not need them
    path = write(tmp_path / "match.ginlog", honest.guest.saved, honest.guest)
    doc = export_json(path, capsys)
    assert doc["schema"] == 1 and doc["players"] == {"host": "Ann", "guest": "Bob"}
    assert doc["preset"] == "classic" and doc["rules_changed"] == {"game_target": 10}
    assert doc["audit"] == {"verdict": "clean", "exit": 0}
    for who, side in ((HOST, "host"), (GUEST, "guest")):
        dealt = honest.dealt(who)
        for h in doc["hands"]:
            assert h["opened"]
            assert sorted(h["deal"][side]) == sorted(c.code for c in dealt[h["hand"]])
    for h in doc["hands"]:
        assert all(m["card"] is not None for m in h["moves"]
                   if m["action"] in ("draw_stock", "draw_discard", "discard"))  # fmt: skip
        assert h["result"] is not None and h["scores"] is not None
        assert not h["rejected"]
    m = honest.host.proto.table.match
    assert m is not None and m.totals is not None
    assert doc["result"]["scores"] == {"host": m.totals[0], "guest": m.totals[1]}
    assert doc["result"]["winner"] in ("host", "guest")
    # the last hand's scores are the hands' points; the bonuses add up to the totals
    points = doc["hands"][-1]["scores"]
    assert points == {"host": m.scores[0], "guest": m.scores[1]} and m.scores != m.totals
    bonuses = doc["result"]["bonuses"]
    box = f"{RULES.box_bonus} per hand won by the winner"  # (classic: the loser gets none)
    assert [b["what"] for b in bonuses] == ["game bonus", box]
    for side in ("host", "guest"):
        assert points[side] + sum(b[side] for b in bonuses) == doc["result"]["scores"][side]
    w = 0 if doc["result"]["winner"] == "host" else 1
    assert doc["result"]["margin"] == m.totals[w] - m.totals[1 - w] == m.margin

    assert main(["export", str(path), "--ascii"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("Ann (host) vs Bob (guest), preset classic with game_target=10;")
    first = doc["hands"][0]
    assert f"Ann is dealt {' '.join(first['deal']['host'])}" in text
    assert f"Result: {first['result']['text']}" in text
    assert text.rstrip().endswith(doc["result"]["text"])
    assert f"Points from the hands: Ann {m.scores[0]}, Bob {m.scores[1]}\n  game bonus: " in text
    assert f"Total: Ann {m.totals[0]}, Bob {m.totals[1]}\n{('Ann', 'Bob')[w]} wins by " \
           f"{m.margin}\n" in text  # fmt: skip


def test_a_showdown_reads_as_the_table_writes_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Melds in brackets, one space apart; a gin's empty deadwood is "no deadwood", not
    a dangling "deadwood - = 0"; the points are explained as the table's summary does
    (the defender's deadwood and the gin bonus)."""
    gin = play_match(RULES, 20)  # the match of seed 20 ends in a gin
    path = write(tmp_path / "gin.ginlog", gin.host.saved)
    doc = export_json(path, capsys)
    (r,) = [h["result"] for h in doc["hands"] if h["result"] and h["result"]["gin"]]
    side = r["knocker"]
    d = r["declarations"][side]
    assert d["deadwood_cards"] == [] and d["deadwood"] == 0 and len(d["melds"]) >= 2
    assert main(["export", str(path), "--ascii"]) == 0
    text = capsys.readouterr().out
    melds = " ".join(f"[{' '.join(m)}]" for m in d["melds"])
    assert f"  {doc['players'][side]} shows {melds}; no deadwood\n" in text
    assert "deadwood -" not in text and "]  [" not in text
    lost = r["declarations"]["guest" if side == "host" else "host"]["deadwood"]
    reasons = [f"deadwood 0 against {lost}: a difference of {lost}",
               f"gin bonus: {RULES.gin_bonus}"]  # fmt: skip
    points = r["points"][0 if side == "host" else 1]
    assert r["reasons"] == reasons and points == lost + RULES.gin_bonus
    assert f"  Points: {'; '.join(reasons)}\n" in text


def test_a_hand_ended_by_a_resign_says_so_in_text_and_json(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    """A resign mid-hand ends that hand: its result is "Ann resigned; no score" (with
    ``ended_by``) in the export's text and JSON and in the audit's, as a wall pass's is."""
    moves = [0]

    def quitter(proto: PeerProtocol, view: engine.HandState) -> engine.Action:
        moves[0] += 1  # Ann plays two moves, then gives up in her second turn
        return engine.Resign(HOST) if moves[0] > 3 else bot_player(proto, view)

    rng = random.Random(1)
    host, guest = make_pair(RULES, rng)
    FakeLink(host, guest, rng, players=(quitter, bot_player)).run()
    path = write(tmp_path / "resigned.ginlog", host.saved)
    doc = export_json(path, capsys)
    (h,) = doc["hands"]
    r = h["result"]
    assert r is not None and r["end"] == "resign" and r["ended_by"] == "host"
    assert r["text"] == "Ann resigned; no score" and r["points"] == [0, 0]
    assert h["scores"] == {"host": 0, "guest": 0}
    assert doc["result"]["end"] == "resign" and doc["result"]["winner"] == "guest"
    assert main(["export", str(path), "--ascii"]) == 0
    text = capsys.readouterr().out
    assert "Ann resigns\n  Result: Ann resigned; no score\n  Scores: Ann 0, Bob 0\n" in text
    # the audit tells the same hand the same way
    assert main(["audit", str(path), "--json"]) == 0
    audit = json.loads(capsys.readouterr().out)
    assert audit["hands"][1]["result"]["end"] == "resign"
    assert audit["hands"][1]["result"]["ended_by"] == HOST
    assert main(["audit", str(path)]) == 0
    assert "hand 1: clean - Ann resigned; no score" in capsys.readouterr().out


def test_a_hand_never_opened_keeps_its_hidden_cards_hidden(
        honest: Match, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    records = honest.host.saved
    first_move = next(i for i, r in enumerate(records)
                      if Entry.from_wire(r).kind in ev.ACTION_KINDS)  # fmt: skip
    # the log stops a few moves into hand 1: its seeds were never opened
    path = write(tmp_path / "cut.ginlog", records[: first_move + 6], honest.host)
    doc = export_json(path, capsys)
    (h,) = doc["hands"]
    assert not h["opened"] and doc["audit"]["verdict"] == "incomplete"
    seen = {h["deal"]["upcard"]} | {m["card"] for m in h["moves"]}
    for side in ("host", "guest"):
        # the host's own secrets are beside the file, but export reads none: only
        # cards that became public may be named
        assert len(h["deal"][side]) == 10
        assert {c for c in h["deal"][side] if c is not None} <= seen
        assert None in h["deal"][side]
    assert all(m["card"] is None for m in h["moves"] if m["action"] == "draw_stock")
    assert main(["export", str(path)]) == 0
    assert "never opened: unseen cards stay hidden" in capsys.readouterr().out


def test_a_later_hand_never_opened_is_not_marked_opened(
        honest: Match, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    records = honest.host.saved
    kinds = [Entry.from_wire(r) for r in records]
    last = max(e.body.hand for e in kinds if e.kind in ev.ACTION_KINDS)
    assert last >= 2
    first_move = next(i for i, e in enumerate(kinds)
                      if e.kind in ev.ACTION_KINDS and e.body.hand == last)  # fmt: skip
    path = write(tmp_path / "cut.ginlog", records[: first_move + 4], honest.host)
    doc = export_json(path, capsys)
    assert [h["opened"] for h in doc["hands"]] == [True] * (last - 1) + [False]
    assert None in doc["hands"][-1]["deal"]["guest"]
    assert main(["export", str(path)]) == 0
    assert f"Hand {last}, " in (text := capsys.readouterr().out)
    assert text.count("never opened: unseen cards stay hidden") == 1


def test_export_writes_a_file_and_refuses_what_is_no_log(honest: Match, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]
                                                          ) -> None:  # fmt: skip
    path = write(tmp_path / "match.ginlog", honest.host.saved)
    out = tmp_path / "game.json"
    assert main(["export", str(path), "--format", "json", "-o", str(out)]) == 0
    assert json.loads(out.read_text())["hands"]
    assert main(["export", str(tmp_path / "missing.ginlog")]) == 1
    assert "no such file" in capsys.readouterr().err
    junk = tmp_path / "junk.ginlog"
    junk.write_bytes(b"not a game log at all")
    assert main(["export", str(junk)]) == 1
    assert "not a ginp2p game log" in capsys.readouterr().err


def test_audit_of_one_hand_and_exit_4_when_there_is_no_verdict(
        honest: Match, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    path = write(tmp_path / "match.ginlog", honest.host.saved)
    assert main(["audit", str(path), "--hand", "1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("ginp2p audit: hand 1 CLEAN (exit 0); the whole file: clean")
    assert "hand 2:" not in out
    assert main(["audit", str(path), "--hand", "1", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["selected"] == {"hand": 1, "verdict": "clean", "exit": 0}
    assert [h["hand"] for h in doc["hands"]] == [1]

    # a cut log: hand 1 is fine, the last hand is incomplete; the file says so
    cut = write(tmp_path / "cut.ginlog", honest.host.saved[:-3])
    last = len(honest.host.proto.table.hands)
    assert main(["audit", str(cut), "--hand", "1"]) == (0 if last > 1 else 2)
    assert main(["audit", str(cut)]) == 2
    capsys.readouterr()

    # no verdict: exit 4, never a verdict's code (2 would read as "incomplete")
    assert main(["audit", str(path), "--hand", "99"]) == NO_VERDICT
    assert "the log has no hand 99" in capsys.readouterr().err
    assert main(["audit", str(tmp_path / "missing.ginlog")]) == NO_VERDICT
    assert "no such file" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main(["audit", str(path), "--hand", "one"])
    assert exc.value.code == NO_VERDICT


@pytest.mark.parametrize("name", ["clean-italian", "clean-rumino", "clean-classic",
                                  "incomplete-claim-answers"])  # fmt: skip
def test_the_text_adds_up_the_match_as_replay_plain_does(name: str,
                                                          capsys: pytest.CaptureFixture[str]
                                                          ) -> None:  # fmt: skip
    """A match won without bonuses (italian, rumino) or by a forfeit (a claim here) lost
    its "Points from the hands / Total / wins by" block, which only bonuses brought on;
    `replay --plain` adds up the same lines."""
    path = Path(__file__).parents[1] / "corpus" / f"{name}.ginlog"
    assert main(["export", str(path), "--ascii"]) == 0
    block = capsys.readouterr().out.split("\n\n")[-2].splitlines()  # above "Audit: ..."
    assert block[0].startswith("Points from the hands: ") and block[-1] != ""
    assert main(["replay", str(path), "--plain", "--ascii"]) == 0
    lines = capsys.readouterr().out.splitlines()
    start = next(i for i, x in enumerate(lines) if x.startswith("       points from the hands"))
    sheet = []
    for line in lines[start:]:
        if not line.startswith("       "):
            break
        sheet.append(line.strip())
    said = [x.strip().replace("Points from", "points from").replace("Total:", "total:")
            for x in block]  # fmt: skip
    assert said == sheet


def test_a_forfeit_by_the_player_ahead_says_nobody_pays(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    """Ann wins the first hand and resigns in the second: Bob wins the match, by
    nothing. The sums said no more than the totals; they now say that nobody pays, as
    the table does (docs/rules.md: whoever forfeits is never paid)."""

    def quitter(proto: PeerProtocol, view: engine.HandState) -> engine.Action:
        m = proto.table.match
        return engine.Resign(HOST) if m is not None and m.hand_no > 1 \
            else bot_player(proto, view)  # fmt: skip

    for seed in range(40):  # the first deal of these seeds that Ann wins
        rng = random.Random(seed)
        host, guest = make_pair(RULES, rng)
        FakeLink(host, guest, rng, players=(quitter, bot_player)).run()
        final = host.proto.table.match
        assert final is not None and final.end is not None
        if final.forfeited_lead > 0:
            break
    else:
        raise AssertionError("Ann won no first hand in 40 deals")
    path = write(tmp_path / "ahead.ginlog", host.saved)
    doc = export_json(path, capsys)
    lead = final.forfeited_lead
    assert doc["result"]["margin"] == 0 and doc["result"]["forfeited_lead"] == lead
    assert main(["export", str(path)]) == 0
    text = capsys.readouterr().out
    assert f"\nTotal: Ann {lead}, Bob 0\nnobody pays: Ann was ahead by {lead}, and " \
           "whoever forfeits the match is paid nothing\n" in text, text[-400:]  # fmt: skip
    assert " wins by " not in text


def test_the_export_says_who_pays_and_whose_hands_the_box_counts(
        capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    """Hoyle's settlement: after the bonuses the smaller total pays the larger the
    difference. The export said "wins by" where the winner was ahead and nothing where
    the winner ended with the smaller total (hoyle's box bonuses go to both): its JSON
    names who pays (``pays``), and its text says so where "wins by" would mislead. The
    box bonus says whose hands it counts."""
    corpus = Path(__file__).parents[1] / "corpus"
    doc = export_json(corpus / "clean-hoyle.ginlog", capsys)
    result = doc["result"]
    assert result["winner"] == "guest" and result["margin"] == 125
    assert result["pays"] == {"player": "host", "to": "guest", "points": 125}
    assert [b["what"] for b in result["bonuses"]] == ["game bonus", "20 for each hand won"]
    classic = export_json(corpus / "clean-classic.ginlog", capsys)["result"]
    assert [b["what"] for b in classic["bonuses"]] == ["game bonus",
                                                       "25 per hand won by the winner"]  # fmt: skip
    # nobody pays: rumino counts low totals as good; a claim at 0-0
    assert export_json(corpus / "clean-rumino.ginlog", capsys)["result"]["pays"] is None
    claimed = export_json(corpus / "incomplete-claim-answers.ginlog", capsys)["result"]
    assert claimed["margin"] == 0 and claimed["pays"] is None
    # the same document, had the box bonuses left the winner 15 behind (what `document`
    # writes for such a match: ``settlement`` in tests/console/test_narrow_and_marks.py)
    behind = {**result, "margin": -15, "pays": {"player": "guest", "to": "host", "points": 15}}
    text = "\n".join(text_lines({**doc, "result": behind}, ascii=True))
    assert "\nthe smaller total pays the difference: Bob pays Ann 15\n" in text, text[-300:]
    assert " wins by " not in text
    ahead = "\n".join(text_lines(doc, ascii=True))
    assert "\nBob wins by 125\n" in ahead and "smaller total pays" not in ahead
