"""The audit (ginp2p.record.audit): verdicts, blame and the result of whole logs.

Matches are real: two PeerProtocol peers over the in-memory fake link, short (a game
target of 10, one to three hands). The honest match is played once per module.

The matches run with FEW (2) cut-and-choose rounds, told to both peers and to the
audit (``min_k``): what is checked is the audit's reading of a log, not the proofs'
strength. The real k (``shuffle.K_MIN``) is kept for the tests that read saved files
(``audit_file`` reads a file at the protocol's floor, as it must: a file never
chooses fewer rounds) and for those named for a proof (every proof checked, a failed
proof found): they use the ``real`` match.
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

import msgpack
import nacl.signing
import pytest

from ginp2p.files.logfile import LogFile, NotALog
from ginp2p.files.records import audit_file
from ginp2p.game.rules import get_preset
from ginp2p.present.words import KIND_WORDS
from ginp2p.proto import events as ev
from ginp2p.proto import shuffle as sh
from ginp2p.proto.entry import GUEST, HOST, Entry, sign_entry
from ginp2p.proto.keytext import fingerprint, key_to_text
from ginp2p.proto.log import Log, claim_body
from ginp2p.proto.protocol import PeerProtocol
from ginp2p.proto.table import Table
from ginp2p.record.audit import _one_opener, audit_records
from ginp2p.record.report import Report, Verdict, worst
from ginp2p.testing.fakelink import FakeLink, Side, make_pair

RULES = get_preset("classic").with_(game_target=10)
#: Cut-and-choose rounds of the matches whose check is not the proofs' strength (a
#: test's choice, told to the audit too), and the real k.
FEW, REAL = 2, sh.K_MIN


@dataclass
class Played:
    host: Side
    guest: Side

    @property
    def records(self) -> list[bytes]:
        return list(self.host.saved)

    @property
    def log(self) -> Log:
        return self.host.proto.log

    @property
    def table(self) -> Table:
        return self.host.proto.table

    def linear(self) -> list[Entry]:
        return list(self.log.linear().entries)

    def key(self, who: int) -> nacl.signing.SigningKey:
        return (self.host, self.guest)[who].proto.key


def play(seed: int, k: int = FEW, **kw: Any) -> Played:
    rng = random.Random(seed)
    host, guest = make_pair(RULES, rng, k=k, **kw)
    FakeLink(host, guest, rng).run()
    return Played(host, guest)


def audited(records: Iterable[bytes], **kw: Any) -> Report:
    """The audit of records made here (at FEW rounds or at the real k)."""
    return audit_records(records, min_k=FEW, **kw)


def read(wire: bytes) -> Entry:
    return Entry.from_wire(wire, min_k=FEW)


@pytest.fixture(scope="module")
def honest() -> Played:
    """Two hands, won by the guest (at FEW rounds seed 1 gives a one-hand match: the host
    hello carries k, so at another k a seed gives another game)."""
    return play(10)


@pytest.fixture(scope="module")
def report(honest: Played) -> Report:
    return audited(honest.records)


@pytest.fixture(scope="module")
def real() -> Played:
    """The honest match at the real k, for the tests of files and of proofs."""
    return play(1, REAL)


@pytest.fixture(scope="module")
def real_report(real: Played) -> Report:
    return audit_records(real.records)


@pytest.fixture(scope="module")
def another_real() -> Played:
    """Another honest match at the real k (another game: another seed)."""
    return play(2, REAL)


def extend(records: list[bytes], key: nacl.signing.SigningKey, author: int, kind: str,
           body: Any) -> Entry:  # fmt: skip
    """Sign ``author``'s next entry on top of these records."""
    log, _ = Log.from_records(records, min_k=FEW)
    return log.append(key, author, kind, body)


def flip(record: bytes) -> bytes:
    """One bit of the signature flipped (the last byte of a wire entry)."""
    return record[:-1] + bytes([record[-1] ^ 1])


# ------------------------------------------------------------------------ clean


def test_honest_match_is_clean_with_the_result(honest: Played, report: Report) -> None:
    m = honest.table.match
    assert m is not None and m.over and m.totals is not None
    assert report.verdict is Verdict.CLEAN and report.exit_code == 0
    assert report.cheat is None and report.owed == () and report.damage == ()
    assert (report.scores, report.winner, report.end) == (m.totals, m.winner, "target")
    assert report.names == ("Ann", "Bob") and report.preset == "classic"
    assert report.entries == len(honest.log)
    assert [h.hand for h in report.hands] == list(range(m.hand_no + 1))
    assert all(h.verdict is Verdict.CLEAN for h in report.hands)
    assert tuple(h.result for h in report.hands[1:]) == m.results
    text = report.text()
    assert "CLEAN" in text and f"{report.names[m.winner]} wins" in text
    # a judge sees the rules played, not the preset's: here the match went to 10
    assert "Ann (host) vs Bob (guest), preset classic with game_target=10;" in text
    data = json.loads(json.dumps(report.to_json()))
    assert data["verdict"] == "clean" and data["exit"] == 0 and data["winner"] == m.winner
    assert data["preset"] == "classic" and data["rules_changed"] == {"game_target": 10}
    assert len(data["hands"]) == len(report.hands) and data["hands"][1]["result"] is not None


def test_the_report_shows_whose_keys_signed_the_log(honest: Played, report: Report) -> None:
    """Names are what the players called themselves: the report shows each key's
    fingerprint (as `ginp2p keys` prints it) and who the auditor knows it to be."""
    keys = [bytes(honest.key(a).verify_key) for a in (HOST, GUEST)]
    prints = [fingerprint(k) for k in keys]
    assert report.keys == tuple(keys) and report.known == (None, None)
    lines = report.text().splitlines()
    assert lines[2:4] == [f"Keys: host Ann, key {prints[0]} (not a key you know)",
                          f"      guest Bob, key {prints[1]} (not a key you know)"]  # fmt: skip
    doc = report.to_json()["keys"]
    assert doc == [{"feed": feed, "name": name, "key": key_to_text(k), "fingerprint": fp,
                    "known": None}
                   for feed, name, k, fp in zip(("host", "guest"), ("Ann", "Bob"), keys, prints,
                                                strict=True)]  # fmt: skip
    known = {keys[GUEST]: "you", bytes(32): "paired with you as Zed"}
    r = audited(honest.records, known=known)
    assert r.known == (None, "you") and r == replace(report, known=(None, "you"))
    assert f"      guest Bob, key {prints[1]} (you)" in r.text().splitlines()
    assert [k["known"] for k in r.to_json()["keys"]] == [None, "you"]
    no_host = audited(honest.records[1:])  # no host hello: no host key
    assert no_host.keys[HOST] is None and no_host.to_json()["keys"][HOST]["fingerprint"] is None
    assert no_host.text().splitlines()[2] == "Keys: host: no hello in the log, so no key"


def test_every_proof_checked_gives_the_same_report(real: Played, real_report: Report) -> None:
    assert audited(real.records, lazy_proofs=False) == real_report


def test_order_repeats_and_wrappers_do_not_matter(honest: Played, report: Report) -> None:
    records = honest.records + honest.guest.saved  # both peers' files, every entry twice
    random.Random(7).shuffle(records)
    rewrapped = []
    for i, r in enumerate(records):
        packed, sig = msgpack.unpackb(r)
        if i % 3 == 0:
            r = msgpack.packb([packed, sig], use_bin_type=False)  # str-typed
        elif i % 3 == 1:
            r = b"\xdc\x00\x02" + msgpack.packb(packed) + msgpack.packb(sig)  # array16
        rewrapped.append(r)
    assert rewrapped != records
    assert audited(rewrapped) == report


def test_verdicts_combine_with_a_cheat_first() -> None:
    assert worst([Verdict.CLEAN, Verdict.INCOMPLETE]) is Verdict.INCOMPLETE
    assert worst([Verdict.INCOMPLETE, Verdict.DAMAGED]) is Verdict.DAMAGED
    assert worst([Verdict.DAMAGED, Verdict.CHEATED, Verdict.CLEAN]) is Verdict.CHEATED
    assert worst([]) is Verdict.CLEAN
    assert [v.exit_code for v in Verdict] == [0, 1, 2, 3]


# ------------------------------------------------------------------------ damage


def test_a_flipped_bit_is_damage_that_blames_nobody(honest: Played, report: Report) -> None:
    records = honest.records
    i = len(records) // 2
    bad = honest.log.linear().entries[i]  # records are in arrival order; find its record
    j = records.index(bad.wire)
    records[j] = flip(records[j])
    r = audited(records)
    assert r.verdict is Verdict.DAMAGED and r.exit_code == 3 and r.cheat is None
    assert any(f"record {j + 1}" in d and "bad signature" in d for d in r.damage)
    assert any("lacks" in d for d in r.damage)  # the entries after it cannot be placed
    assert r.owed == ()  # nobody is said to owe what the file lost
    hand = getattr(bad.body, "hand", 0)
    assert r.hands[-1].verdict is Verdict.DAMAGED and r.hands[-1].hand == hand
    assert all(h.verdict is Verdict.CLEAN for h in r.hands[:-1])  # the rest is audited
    assert r.winner is None


def test_a_flipped_copy_leaves_the_rest_audited(honest: Played, report: Report) -> None:
    records = honest.records + honest.guest.saved
    records[5] = flip(records[5])
    r = audited(records)
    assert r.verdict is Verdict.DAMAGED and r.cheat is None
    (line,) = r.damage
    e = read(honest.records[5])
    kind = KIND_WORDS[e.kind]
    assert line.startswith(f"record 6, {('host', 'guest')[e.author]} entry {e.seq} ({kind}")
    assert line.endswith(": bad signature")
    assert r.hands == report.hands and (r.scores, r.winner) == (report.scores, report.winner)


def test_garbage_records_are_damage(honest: Played, report: Report) -> None:
    r = audited([b"\x00garbage", *honest.records, b"\xc4\x01x"])
    assert r.verdict is Verdict.DAMAGED and r.cheat is None
    assert r.damage == ("record 1: its bytes are damaged and do not form a log entry",
                        f"record {len(honest.records) + 2}: its bytes are damaged and do not "
                        "form a log entry")  # fmt: skip
    assert r.hands == report.hands and r.scores == report.scores
    many = audited([*honest.records, *[b"\xc4\x01x"] * 4])
    assert many.damage == (
        f"records {len(honest.records) + 1}-{len(honest.records) + 4}: "
        "their bytes are damaged and do not form log entries",
    )


def test_a_torn_file_is_damage_and_is_not_repaired(real: Played, real_report: Report,
                                                   tmp_path: Any) -> None:  # fmt: skip
    path = tmp_path / "game.ginlog"
    with LogFile.open(path) as f:
        for r in real.records:
            f.append(r)
    assert audit_file(path) == real_report
    whole = path.read_bytes()
    path.write_bytes(whole + ev.pack(real.records[-1])[:40])  # a record cut mid-way
    torn = path.read_bytes()
    r = audit_file(path)
    assert path.read_bytes() == torn  # nothing cut: the audit never repairs
    assert r.verdict is Verdict.DAMAGED and r.cheat is None
    assert len(r.damage) == 1 and "torn" in r.damage[0]
    assert r.hands == real_report.hands and r.scores == real_report.scores
    assert audited(real.records, torn=True).verdict is Verdict.DAMAGED


def test_the_audit_reads_a_file_another_process_holds(real: Played, real_report: Report,
                                                      tmp_path: Any) -> None:  # fmt: skip
    path = tmp_path / "game.ginlog"
    with LogFile.open(path) as f:
        for r in real.records:
            f.append(r)
        assert audit_file(path) == real_report  # the writer holds the exclusive lock


def test_a_file_that_is_no_log_is_refused_and_a_damaged_one_judged(tmp_path: Any) -> None:
    path = tmp_path / "x.ginlog"
    path.write_bytes(b"hello, world")
    with pytest.raises(NotALog, match="is not a ginp2p game log"):
        audit_file(path)  # no game to judge, as replay and export say
    path.write_bytes(LogFile.MAGIC + ev.pack([1]) + b"\xc4\x03ab" + b"\xff" * 10)
    r = audit_file(path)
    assert r.verdict is Verdict.DAMAGED


def test_a_file_is_read_at_the_protocols_floor(honest: Played, tmp_path: Any) -> None:
    """Fewer proof rounds are a test's choice, never a file's: the match played here at
    FEW rounds, saved, reads as damage (its host hello asks for fewer rounds than the
    protocol allows, so nothing of the game verifies), with no result and nobody blamed."""
    r = audit_file(_save(tmp_path / "few.ginlog", honest.records))
    assert r.verdict is Verdict.DAMAGED and r.winner is None and r.cheat is None
    assert audit_records(honest.records) == r  # the audit at the floor, from the records
    assert audited(honest.records).verdict is Verdict.CLEAN


def test_a_missing_middle_entry_is_damage(honest: Played) -> None:
    order = honest.linear()
    gone = order[len(order) // 3]
    records = [r for r in honest.records if read(r).id != gone.id]
    r = audited(records)
    assert r.verdict is Verdict.DAMAGED and r.cheat is None
    who = r.names[gone.author]
    assert f"the file lacks {who}'s entry {gone.seq}, which later entries name" in r.damage
    assert r.owed == ()


@pytest.mark.parametrize("author", [HOST, GUEST])
def test_a_missing_hello_is_named_and_the_entries_after_it_not_called_missing(
        honest: Played, author: int) -> None:  # fmt: skip
    """Without a player's hello the file still holds their other entries, which cannot
    be verified: the damage names the hello, not "entries 1-72" as if all were gone."""
    hello = next(e for e in honest.linear() if e.kind == "hello" and e.author == author)
    records = [r for r in honest.records if read(r).id != hello.id]
    r = audited(records)
    assert r.verdict is Verdict.DAMAGED and r.cheat is None
    assert not any("entries 1-" in d for d in r.damage), r.damage
    assert any(f"wait for {r.names[author]}'s hello, which the file lacks" in d
               for d in r.damage), r.damage  # fmt: skip
    if author == HOST:  # the guest's entries, verified, name the host's first entry
        assert f"the file lacks {r.names[HOST]}'s hello (entry 1), which later entries " \
               "name" in r.damage  # fmt: skip


def _save(path: Any, records: list[bytes]) -> Any:
    with LogFile.open(path) as f:
        for r in records:
            f.append(r)
    return path


def test_two_copies_fill_each_others_gaps(real: Played, real_report: Report, tmp_path: Any) -> None:
    """Each player's copy lost a different entry: alone, each is damaged and decides
    nothing; audited together, the game is whole and clean, with its result."""
    order = real.linear()
    lost = [order[len(order) // 3], order[len(order) // 2]]
    mine, theirs = (
        _save(tmp_path / name, [r for r in real.records if read(r).id != gone.id])
        for name, gone in zip(("mine.ginlog", "theirs.ginlog"), lost, strict=True)
    )
    for alone in (mine, theirs):
        r = audit_file(alone)
        assert r.verdict is Verdict.DAMAGED and r.winner is None and r.copies == 1
    both = audit_file(mine, theirs)
    assert both.verdict is Verdict.CLEAN and both.damage == () and both.copies == 2
    assert (both.hands, both.scores, both.winner) == (
        real_report.hands,
        real_report.scores,
        real_report.winner,
    )
    assert f"; {real_report.entries} entries in 2 copies" in both.text().splitlines()[1]
    assert both.to_json()["copies"] == 2 and real_report.to_json()["copies"] == 1
    assert audit_file(mine, mine).copies == 2  # the same file twice is no error


def test_copies_name_their_own_damage(real: Played, tmp_path: Any) -> None:
    """What one copy spoils is said of that copy, by its name and its own record
    numbers; the lack of an entry neither copy holds is said of the copies."""
    order = real.linear()
    gone = order[len(order) // 2]
    kept = [r for r in real.records if read(r).id != gone.id]
    mine = _save(tmp_path / "mine.ginlog", kept)
    theirs = _save(tmp_path / "theirs.ginlog", [kept[0], b"\xc4\x01x", *kept[1:]])
    r = audit_file(mine, theirs)
    assert r.verdict is Verdict.DAMAGED
    assert f"record 2 of {theirs}: its bytes are damaged and do not form a log entry" in r.damage
    who = r.names[gone.author]
    assert f"the copies lack {who}'s entry {gone.seq}, which later entries name" in r.damage
    (tmp_path / "torn.ginlog").write_bytes(theirs.read_bytes()[:-20])
    r = audit_file(mine, tmp_path / "torn.ginlog")
    assert any(d.startswith(f"{tmp_path / 'torn.ginlog'}: the file is torn") for d in r.damage)


def test_what_no_copy_holds_is_owed(real: Played, tmp_path: Any) -> None:
    opens = [e for e in real.linear() if e.kind == "open"]
    cut = _prefix(real, lambda e: e.id == opens[1].id)
    r = audit_file(_save(tmp_path / "a.ginlog", cut), _save(tmp_path / "b.ginlog", cut[:-3]))
    assert r.verdict is Verdict.INCOMPLETE
    assert r.owed == (f"{r.names[opens[1].author]} has not opened their seeds for hand "
                      f"{opens[1].body.hand}",)  # fmt: skip
    assert "Owed, as no copy holds it:" in r.text().splitlines()


def test_an_equivocation_shows_when_the_copies_meet(real: Played, tmp_path: Any) -> None:
    """A player who kept a different entry in its own copy than it sent is caught by
    the audit of both copies: two signed entries at one seq, whichever copy each is in."""
    target = next(e for e in real.linear()[40:] if e.author == HOST)
    other = sign_entry(
        real.key(HOST), target.fields._replace(kind="chat", body=ev.make("chat", "hi"))
    )
    theirs = _save(tmp_path / "theirs.ginlog", real.records)
    mine = _save(tmp_path / "mine.ginlog",
                 [other.wire if r == target.wire else r for r in real.records])  # fmt: skip
    assert audit_file(theirs).verdict is Verdict.CLEAN
    r = audit_file(mine, theirs)
    assert r.verdict is Verdict.CHEATED and r.cheat is not None
    assert (r.cheat.author, r.cheat.seq, r.cheat.rule) == (HOST, target.seq, "equivocation")


def test_copies_of_different_games_are_refused(
    real: Played, another_real: Played, tmp_path: Any
) -> None:
    from ginp2p.files.records import NotOneGame

    mine = _save(tmp_path / "mine.ginlog", real.records)
    other = _save(tmp_path / "other.ginlog", another_real.records)
    with pytest.raises(NotOneGame, match=r"mine\.ginlog and .*other\.ginlog are not copies of "
                                         "one game"):  # fmt: skip
        audit_file(mine, other)


def test_a_program_catches_every_refusal_of_a_saved_game_with_one_except(
    real: Played, another_real: Played, tmp_path: Any
) -> None:
    """Copies of two games, a device where a log should be, a log with no entry: each
    is refused with an error that is a Ginp2pError (and the copies' still a ValueError,
    as it was)."""
    from ginp2p.errors import Ginp2pError
    from ginp2p.files.records import NotOneGame, load_replay

    mine = _save(tmp_path / "mine.ginlog", real.records)
    other = _save(tmp_path / "other.ginlog", another_real.records)
    with pytest.raises(Ginp2pError) as copies:
        audit_file(mine, other)
    assert isinstance(copies.value, NotOneGame) and isinstance(copies.value, ValueError)
    with pytest.raises(Ginp2pError, match="a pipe or a device"):
        audit_file(os.devnull)
    with pytest.raises(Ginp2pError, match="holds no entry that can be replayed"):
        load_replay(_save(tmp_path / "empty.ginlog", []))


def test_damage_in_the_middle_hides_nothing_after_it(real: Played, real_report: Report,
                                                     tmp_path: Any) -> None:  # fmt: skip
    """A spoilt byte where a record begins costs that record only: the reader skips to
    the next whole record, so the entries after it still count."""
    path = _save(tmp_path / "game.ginlog", real.records)
    data = bytearray(path.read_bytes())
    at = bytes(data).index(ev.pack(real.records[5]))
    data[at] = 0x00  # no record begins with it
    path.write_bytes(data)
    r = audit_file(path)
    assert r.verdict is Verdict.DAMAGED and r.entries == real_report.entries - 1
    assert r.damage[0].startswith(f"unreadable bytes at byte {at} (a byte that starts no "
                                  "record): ")  # fmt: skip
    assert f"reading went on at byte {at + len(ev.pack(real.records[5]))}" in r.damage[0]
    lost = read(real.records[5])
    assert f"the file lacks {r.names[lost.author]}'s entry {lost.seq}, which later entries " \
        "name" in r.damage  # fmt: skip
    theirs = _save(tmp_path / "theirs.ginlog", real.records)
    both = audit_file(path, theirs)  # the other copy holds it: every hand is judged
    assert both.hands == real_report.hands and both.winner == real_report.winner


def test_an_entry_naming_a_seq_far_ahead_is_judged_at_once(honest: Played) -> None:
    """A signed entry may name any seq in its ack (2**32 - 1 here): the audit reports the
    run of entries it names as missing, not each of them (it used to list them, and
    never finished)."""
    import threading

    last = max((e for e in honest.linear() if e.author == HOST), key=lambda e: e.seq)
    fields = last.fields._replace(seq=last.seq + 1, prev=last.id, ack_seq=2**32 - 1,
                                  ack_id=bytes(range(32)), kind="chat",
                                  body=ev.make("chat", "far ahead"))  # fmt: skip
    forged = sign_entry(honest.key(HOST), fields)
    done: list[Report] = []
    judge = threading.Thread(target=lambda: done.append(audited(
        [*honest.records, forged.wire])), daemon=True)  # fmt: skip
    judge.start()
    judge.join(60)  # a guard against a hang, not a measurement
    assert done, "the audit did not finish"
    who = done[0].names[GUEST]
    assert any(f"the file lacks {who}'s entries" in d and f"-{2**32 - 1}" in d
               for d in done[0].damage), done[0].damage  # fmt: skip


def test_entries_of_another_game_are_damage(honest: Played, report: Report) -> None:
    rng = random.Random(99)
    h2, g2 = make_pair(RULES, rng, k=FEW)
    link = FakeLink(h2, g2, rng)
    link.start()
    for _ in range(8):
        link.step()
    other = h2.saved
    assert len(other) >= 4
    # the other game's hellos come first: the game most entries belong to still wins
    r = audited(other + honest.records + other)
    assert r.verdict is Verdict.DAMAGED and r.cheat is None
    assert any("another game" in d for d in r.damage)
    assert r.hands == report.hands and (r.scores, r.winner) == (report.scores, report.winner)


# ------------------------------------------------------------------------ incomplete


def _prefix(honest: Played, stop: Any) -> list[bytes]:
    """The wire records of the linear order up to (not including) the first entry
    for which ``stop`` is true."""
    out = []
    for e in honest.linear():
        if stop(e):
            break
        out.append(e.wire)
    return out


def test_a_log_cut_before_an_opening_names_who_owes_it(honest: Played) -> None:
    opens = [e for e in honest.linear() if e.kind == "open"]
    second = opens[1]  # hand 1's second opening
    hand = second.body.hand
    r = audited(_prefix(honest, lambda e: e.id == second.id))
    assert r.verdict is Verdict.INCOMPLETE and r.exit_code == 2
    assert r.cheat is None and r.damage == ()
    who = r.names[second.author]
    assert r.owed == (f"{who} has not opened their seeds for hand {hand}",)
    assert r.hands[hand].verdict is Verdict.INCOMPLETE and r.hands[hand].owed == r.owed
    assert all(h.verdict is Verdict.CLEAN for h in r.hands[:hand])
    assert r.winner is None and r.end is None


def test_what_is_owed_is_hedged_once_from_one_copy(honest: Played) -> None:
    """A copy cut at a record boundary looks like a player who stopped: the text says
    so once, over the list; with damage, the owed entry may be in the lost part."""
    opens = [e for e in honest.linear() if e.kind == "open"]
    r = audited(_prefix(honest, lambda e: e.id == opens[1].id))
    lines = r.text().splitlines()
    head = "Owed, unless this copy ends early (audit the other player's copy too):"
    assert lines.count(head) == 1 and lines[lines.index(head) + 1].startswith("  - ")
    assert r.text(only=opens[1].body.hand).count(head) == 1
    damaged = audited(_prefix(honest, lambda e: e.id == opens[1].id), torn=True)
    assert (
        "Owed, as far as this damaged file shows (perhaps in the part that was lost):"
        in damaged.text().splitlines()
    )
    assert damaged.owed == r.owed  # the sentences (and the JSON) are unchanged


def test_a_log_cut_in_play_names_the_player_to_move(honest: Played) -> None:
    moves = [e for e in honest.linear() if e.kind in ("discard", "draw_stock")]
    cut = moves[3]
    r = audited(_prefix(honest, lambda e: e.id == cut.id))
    assert r.verdict is Verdict.INCOMPLETE
    assert r.owed == (f"{r.names[cut.author]} has not made their move: a move in hand 1",)


def test_a_log_cut_in_the_setup(honest: Played) -> None:
    r = audited(honest.records[:1])
    assert r.verdict is Verdict.INCOMPLETE and r.owed == ("the guest has not sent their hello",)
    assert [h.hand for h in r.hands] == [0] and r.scores is None
    assert audited([]).verdict is Verdict.INCOMPLETE


def test_a_standing_claim_forfeits_the_match(honest: Played) -> None:
    moves = [e for e in honest.linear() if e.kind == "discard"]
    cut = moves[2]
    records = _prefix(honest, lambda e: e.id == cut.id)
    log, _ = Log.from_records(records, min_k=FEW)
    table = Table()
    table.update(log.linear())
    (owed,) = table.owed()
    claimant = 1 - owed.author
    claim = log.append(honest.key(claimant), claimant, "claim", claim_body(log, claimant, owed))
    r = audited([*records, claim.wire])
    assert r.verdict is Verdict.INCOMPLETE and r.cheat is None
    (line,) = r.owed
    assert line.startswith(f"{r.names[claimant]} claimed that {r.names[owed.author]} owed")
    assert line.endswith(f"{r.names[owed.author]} forfeits the match")
    assert (r.winner, r.end) == (claimant, "claim")


# ------------------------------------------------------------------------ cheats


class CheckpointCheater(PeerProtocol):
    """Adds five points to its own score in its checkpoints."""

    def _make_checkpoint(self, h: Any, game: bytes) -> Any:
        kind, body, before = super()._make_checkpoint(h, game)
        scores = list(body.scores)
        scores[self.me] += 5
        body = ev.make("checkpoint", h.number, body.last_host, body.last_guest, scores)
        return kind, body, before


class PermCheater(PeerProtocol):
    """Shuffles with a permutation of its choice, not its committed perm_seed: every
    proof passes on receipt; only the recompute at the openings can see it."""

    def _fake(self, h: Any) -> sh.HandSecrets:
        return sh.HandSecrets(bytes(32), self._seeds[h.number].key_seed)

    def _make_shuffle(self, h: Any, game: bytes) -> Any:
        d_in = h.deck(0 if self.me == h.first else 1)
        msg = sh.shuffle_step(self._fake(h), h.ctx(game, self.me), d_in, self.table.k)
        body = ev.make("shuffle", h.number, msg.d_out, b"".join(msg.sum_proof), msg.deck_hash)
        return "shuffle", body, []

    def _make_answers(self, h: Any, game: bytes) -> Any:
        real = self._seeds[h.number]
        self._seeds[h.number] = self._fake(h)
        try:
            return super()._make_answers(h, game)
        finally:
            self._seeds[h.number] = real


class ProofCheater(PeerProtocol):
    """Shuffles honestly but commits to the wrong cut-and-choose decks (C), and opens
    its seeds even after it is caught: the recompute alone finds nothing wrong."""

    def _make_shuffle(self, h: Any, game: bytes) -> Any:
        kind, body, before = super()._make_shuffle(h, game)
        return kind, body._replace(deck_hash=bytes(64)), before

    def _after_cheat(self) -> Any:
        h = self.table.hand
        if h is None or h.commits[self.me] is None or h.opened[self.me] is not None:
            return None
        return self._make_open(h, self.table.game or b"")


@pytest.fixture(scope="module")
def checkpoint_cheat() -> Played:
    return play(3, guest_cls=CheckpointCheater)


def test_a_false_checkpoint_is_a_cheat(checkpoint_cheat: Played) -> None:
    played = checkpoint_cheat
    r = audited(played.records)
    assert r.verdict is Verdict.CHEATED and r.exit_code == 1
    c = r.cheat
    assert c is not None and c.author == GUEST and c.rule == "bad-checkpoint" and c.hand == 1
    entry = played.log.get(c.entry)
    assert entry is not None and entry.kind == "checkpoint" and entry.author == GUEST
    assert c.seq == entry.seq
    assert r.hands[1].verdict is Verdict.CHEATED and r.hands[1].cheat == c
    m = played.table.match
    assert m is not None and (r.winner, r.scores) == (m.winner, m.totals)
    assert "Bob cheated (hand 1, guest entry" in r.text()
    assert r.to_json()["cheat"]["rule"] == "bad-checkpoint"
    n, got = r.names, list(m.scores)
    got[GUEST] += 5
    assert c.detail == (f"the checkpoint gives the scores as {n[0]} {got[0]}, {n[1]} {got[1]}; "
                        f"the log gives {n[0]} {m.scores[0]}, {n[1]} {m.scores[1]}")  # fmt: skip
    assert audited(played.guest.saved).cheat == c  # the cheater's own file says so too
    assert audited(played.records, lazy_proofs=False) == r


def test_a_cheat_wins_over_damage(checkpoint_cheat: Played, honest: Played) -> None:
    records = [b"junk", *checkpoint_cheat.records, *honest.records[:5]]
    records[3] = flip(records[3])  # a bad copy; the intact one follows
    records.append(checkpoint_cheat.records[2])
    r = audited(records, torn=True)
    assert r.verdict is Verdict.CHEATED and r.exit_code == 1
    assert r.cheat == audited(checkpoint_cheat.records).cheat
    assert any("do not form a log entry" in d for d in r.damage)
    assert any("another game" in d for d in r.damage)
    assert any("torn" in d for d in r.damage)


@pytest.mark.parametrize("cheater", [HOST, GUEST])
def test_a_shuffle_that_is_not_from_the_seeds_is_a_cheat(cheater: int) -> None:
    kw = {"host_cls": PermCheater} if cheater == HOST else {"guest_cls": PermCheater}
    played = play(5, **kw)
    r = audited(played.records)
    assert r.verdict is Verdict.CHEATED
    c = r.cheat
    assert c is not None and c.author == cheater and c.rule == "not-from-seeds:shuffle"
    entry = played.log.get(c.entry)
    assert entry is not None and entry.kind == "shuffle" and entry.author == cheater
    assert (r.winner, r.end) == (1 - cheater, "cheat")
    honest_side = (played.host, played.guest)[1 - cheater]
    assert honest_side.proto.table.cheat == c  # the honest peer blamed the same entry
    assert audited(played.records, lazy_proofs=False) == r


def test_a_failed_proof_is_found_whatever_the_recompute_says() -> None:
    played = play(6, REAL, host_cls=ProofCheater)
    opens = {e.author for e in played.log.entries() if e.kind == "open"}
    assert opens == {HOST, GUEST}  # both opened: the fast path would see a clean recompute
    r = audited(played.records)
    c = r.cheat
    assert c is not None and (c.author, c.rule, c.hand) == (HOST, "bad-shuffle-proof", 1)
    assert audited(played.records, lazy_proofs=False) == r
    assert (r.winner, r.end) == (GUEST, "cheat")


def test_equivocation_is_a_cheat(honest: Played) -> None:
    order = honest.linear()
    target = next(e for e in order[40:] if e.author == HOST)
    other = sign_entry(
        honest.key(HOST), target.fields._replace(kind="chat", body=ev.make("chat", "hi"))
    )
    for records in ([*honest.records, other.wire], [other.wire, *honest.records]):
        r = audited(records)
        assert r.verdict is Verdict.CHEATED and r.cheat is not None
        assert (r.cheat.author, r.cheat.seq, r.cheat.rule) == (HOST, target.seq, "equivocation")
        assert r.cheat.entry in (target.id, other.id)


def test_equivocation_beyond_a_gap_is_still_a_cheat(honest: Played) -> None:
    order = honest.linear()
    gone = next(e for e in order[20:] if e.author == GUEST)
    target = next(e for e in order[60:] if e.author == GUEST)
    other = sign_entry(
        honest.key(GUEST), target.fields._replace(kind="chat", body=ev.make("chat", "hi"))
    )
    records = [r for r in honest.records if read(r).id != gone.id] + [other.wire]
    r = audited(records)
    assert r.verdict is Verdict.CHEATED and r.cheat is not None
    assert (r.cheat.author, r.cheat.seq, r.cheat.rule) == (GUEST, target.seq, "equivocation")
    assert any("lacks" in d for d in r.damage)


def test_a_broken_chain_is_the_authors(honest: Played) -> None:
    last = honest.log.linear().head(HOST)
    assert last is not None
    fields = honest.log.next_fields(HOST, "chat", ev.make("chat", "hi"))
    bad = sign_entry(honest.key(HOST), fields._replace(prev=bytes(range(32))))
    r = audited([*honest.records, bad.wire])
    assert r.verdict is Verdict.CHEATED and r.cheat is not None
    assert (r.cheat.author, r.cheat.rule, r.cheat.entry) == (HOST, "broken-chain", bad.id)


def test_an_ack_of_an_entry_not_in_the_file_blames_nobody(honest: Played) -> None:
    # the host discards; the guest acks that seq with an id the file does not hold:
    # either the guest acked nothing real, or the host equivocated and the file lost
    # the other entry. Nobody can tell which, so nobody is blamed.
    cut = [e for e in honest.linear() if e.kind == "discard" and e.author == HOST][1]
    records = _prefix(honest, lambda e: False)
    records = records[: [read(r).id for r in records].index(cut.id) + 1]
    log, _ = Log.from_records(records, min_k=FEW)
    fields = log.next_fields(GUEST, "chat", ev.make("chat", "hi"))
    assert fields.ack_seq == cut.seq
    bad = sign_entry(honest.key(GUEST), fields._replace(ack_id=bytes(range(32))))
    # nobody else saw it: the guest's own word, set aside; the log stops where it did
    alone = audited([*records, bad.wire])
    assert alone.verdict is Verdict.INCOMPLETE and alone.damage == () and alone.cheat is None
    assert [(x.author, x.seqs) for x in alone.set_aside] == [(GUEST, (bad.seq,))]
    assert alone == replace(audited(records), set_aside=alone.set_aside)
    # the host acks it: the host saw it, so it is damage (the host's entry waits for it)
    seen = sign_entry(honest.key(HOST), log.next_fields(HOST, "chat", ev.make("chat", "ok"))
                      ._replace(ack_seq=bad.seq, ack_id=bad.id))  # fmt: skip
    r = audited([*records, bad.wire, seen.wire])
    assert r.verdict is Verdict.DAMAGED and r.cheat is None and r.set_aside == ()
    assert any(f"acks Ann's entry {cut.seq}" in d and "not in the file" in d for d in r.damage)
    # the host's dispute of it cannot be settled from the file either: not a false dispute
    body = ev.make("dispute", bad.id, "bad-ack", "I never wrote that", [])
    dispute = extend([*records, bad.wire], honest.key(HOST), HOST, "dispute", body)
    r = audited([*records, bad.wire, dispute.wire])
    assert r.verdict is Verdict.DAMAGED and r.cheat is None and r.winner is None
    assert any("cannot settle the dispute" in d for d in r.damage)


def _unsupported_chat(honest: Played, loser: int) -> Entry:
    """The loser's one more chat, signed after the match, whose ack names the winner's
    last entry with a made-up id: the winner never saw it (its copy lacks it)."""
    fields = honest.log.next_fields(loser, "chat", ev.make("chat", "you cheated"))
    assert fields.ack_seq == max(e.seq for e in honest.log.entries() if e.author != loser)
    return sign_entry(honest.key(loser), fields._replace(ack_id=bytes(range(32))))


def test_an_entry_only_its_author_saw_cannot_spoil_a_clean_game(
        real: Played, real_report: Report, tmp_path: Any) -> None:  # fmt: skip
    """The loser adds to its copy one chat acking the winner's last entry as an id no copy
    holds. Nothing proves the winner equivocated (anyone can remove records from a copy),
    nor that the loser lied: the chat is the loser's unsupported statement, listed and set
    aside, and the game the winner's entries prove stays clean."""
    m = real.table.match
    assert m is not None and m.winner is not None
    loser = 1 - m.winner
    bad = _unsupported_chat(real, loser)
    theirs = _save(tmp_path / "winner.ginlog", real.records)
    mine = _save(tmp_path / "loser.ginlog", [*real.records, bad.wire])
    r = audit_file(mine, theirs)
    assert r.verdict is Verdict.CLEAN and r.damage == () and r.cheat is None
    assert (r.hands, r.scores, r.winner, r.entries) == (
        real_report.hands,
        real_report.scores,
        real_report.winner,
        real_report.entries,
    )
    (x,) = r.set_aside
    assert (x.author, x.seqs, x.ids) == (loser, (bad.seq,), (bad.id,))
    n = r.names
    assert x.text == (f"{n[loser]}'s entry {bad.seq} (a chat line) acks {n[m.winner]}'s entry "
                      f"{bad.ack_seq} as 00010203, which is not in the copies, and no entry of "
                      f"{n[m.winner]}'s acks it")  # fmt: skip
    lines = r.text().splitlines()
    assert lines[0] == "ginp2p audit: CLEAN (exit 0)" and f"  - {x.text}" in lines
    assert lines[lines.index(f"  - {x.text}") - 1].startswith("Set aside, blaming nobody")
    (doc,) = r.to_json()["set_aside"]
    assert doc == {"player": loser, "name": n[loser], "feed": ("host", "guest")[loser],
                   "seqs": [bad.seq], "entries": [bad.id.hex()], "text": x.text}  # fmt: skip
    assert audit_file(mine).verdict is Verdict.CLEAN  # the loser's copy alone says the same
    # more of the loser's entries after it are set aside with it
    more = sign_entry(real.key(loser), bad.fields._replace(
        seq=bad.seq + 1, prev=bad.id, body=ev.make("chat", "and again")))  # fmt: skip
    r = audited([*real.records, bad.wire, more.wire])
    assert r.verdict is Verdict.CLEAN and r.set_aside[0].seqs == (bad.seq, bad.seq + 1)
    assert r.set_aside[0].text.startswith(f"{n[loser]}'s entries {bad.seq}-{bad.seq + 1} "
                                          "(from a chat line on): the first acks")  # fmt: skip


def test_an_unsupported_entry_the_other_player_acks_stays_damage(
        real: Played, tmp_path: Any) -> None:  # fmt: skip
    """Once an entry of the winner acks the loser's chat, the winner saw it: the id it
    acks may be the winner's entry removed from both copies, so the copies are damaged,
    as before; and a fork among the loser's entries is proof whatever anybody saw."""
    m = real.table.match
    assert m is not None and m.winner is not None
    w, loser = m.winner, 1 - m.winner
    bad = _unsupported_chat(real, loser)
    last = max((e for e in real.log.entries() if e.author == w), key=lambda e: e.seq)
    seen = sign_entry(real.key(w), last.fields._replace(
        seq=last.seq + 1, prev=last.id, ack_seq=bad.seq, ack_id=bad.id,
        kind="chat", body=ev.make("chat", "what?")))  # fmt: skip
    theirs = _save(tmp_path / "winner.ginlog", [*real.records, bad.wire, seen.wire])
    mine = _save(tmp_path / "loser.ginlog", [*real.records, bad.wire])
    r = audit_file(mine, theirs)
    assert r.verdict is Verdict.DAMAGED and r.cheat is None and r.set_aside == ()
    assert any(f"{r.names[loser]}'s entry {bad.seq} acks" in d and "not in the copies" in d
               for d in r.damage), r.damage  # fmt: skip
    assert "Set aside" not in r.text()
    twins = [
        sign_entry(
            real.key(loser),
            bad.fields._replace(seq=bad.seq + 1, prev=bad.id, body=ev.make("chat", text)),
        )
        for text in ("a", "b")
    ]
    r = audited([*real.records, bad.wire, *(t.wire for t in twins)])
    assert r.verdict is Verdict.CHEATED and r.set_aside == ()
    assert r.cheat is not None and (r.cheat.author, r.cheat.rule) == (loser, "equivocation")
    assert r.cheat.seq == bad.seq + 1


def test_a_dispute_of_an_entry_that_checks_out_is_a_cheat(honest: Played) -> None:
    accused = next(e for e in honest.linear() if e.kind == "shuffle" and e.author == HOST)
    body = ev.make("dispute", accused.id, "bad-shuffle-proof", "it is not", [])
    dispute = extend(honest.records, honest.key(GUEST), GUEST, "dispute", body)
    r = audited([*honest.records, dispute.wire])
    assert r.verdict is Verdict.CHEATED and r.cheat is not None
    assert (r.cheat.author, r.cheat.rule, r.cheat.entry) == (GUEST, "false-dispute", dispute.id)


# ------------------------------------------------------------------------ one opener


def test_only_one_opening_checks_the_others_keys(honest: Played) -> None:
    opens = [e for e in honest.linear() if e.kind == "open"]
    second = opens[1]
    records = _prefix(honest, lambda e: e.id == second.id)
    r = audited(records)
    assert r.verdict is Verdict.INCOMPLETE and r.cheat is None  # the opener checks out
    log, _ = Log.from_records(records, min_k=FEW)
    table = Table()
    table.update(log.linear())
    h = table.hand
    assert h is not None and h.opened[1 - second.author] is not None and not h.checked
    assert _one_opener(table, h) is None
    # a key of the non-opener that unmasks to no card is the non-opener's
    y = second.author
    pos = min(h.keys[y])
    h.keys[y] = {**h.keys[y], pos: sh.scalar(bytes(32), "card", pos)}
    cheat = _one_opener(table, h)
    assert cheat is not None and (cheat.author, cheat.rule) == (y, "not-a-card")
    published = log.get(cheat.entry)
    assert published is not None and published.author == y
    assert f"position {pos} does not unmask to a card" in cheat.detail


def test_a_missing_hello_and_entries_after_it_name_entry_one_once(honest: Played) -> None:
    """The host's first three entries and a later one are gone: the damage reads "hello
    (entry 1) and entries 2-3, N", not "hello and entries 1-3, N"."""
    host = [e for e in honest.linear() if e.author == HOST]
    later = host[len(host) // 2]
    gone = {e.id for e in host[:3]} | {later.id}
    r = audited([r for r in honest.records if read(r).id not in gone])
    assert r.verdict is Verdict.DAMAGED and r.cheat is None
    assert f"the file lacks {r.names[HOST]}'s hello (entry 1) and entries 2-3, {later.seq}, " \
           "which later entries name" in r.damage, r.damage  # fmt: skip
