"""Rebuild the audit's corpus: ``tests/corpus/*.ginlog`` and ``expected.json``.

Usage: python scripts/make_corpus.py [--out DIR] [--only NAME ...] [--list]

Every log is real: two of the project's own peers (``PeerProtocol``) play over the
in-memory fake link (``ginp2p.testing.fakelink``), one of them deviating in one way — the
threats of docs/threats.md that leave a trace in a file, injected with the recipes that
``tests/test_threats.py`` checks on receipt (they live in ``ginp2p.testing.fakelink``) — and the
honest player's file is written as a peer writes it (``LogFile``). Then come clean
matches of every preset, one clean log reordered, repeated and re-wrapped, stalls and
standing claims, and damaged files.

Each case states its verdict from the audit's table (docs/audit.md), not from what the
audit prints: the script audits every file it writes and exits 1, naming the case, if
the audit does not reach that verdict, so a wrong expectation is never written
silently. Deterministic (fixed seeds): the same code gives the same bytes.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ginp2p.files.logfile import LogFile
from ginp2p.files.records import audit_file
from ginp2p.game.engine import Phase
from ginp2p.game.rules import PRESETS, RuleSet
from ginp2p.proto import events as ev
from ginp2p.proto.entry import GUEST, HOST, Entry
from ginp2p.proto.hand import HandFold
from ginp2p.proto.protocol import PeerProtocol
from ginp2p.record.report import Report, Verdict
from ginp2p.testing.cheats import (
    another_permutation,
    bad_sum_proof,
    change_answers,
    change_keys,
    chat_flood,
    cheat_once,
    cheater,
    discard_not_held,
    duplicate_card,
    false_gin,
    flip_bit,
    knock_over_the_limit,
    phase_is,
    redeck,
    rewrap,
    substitute_card,
    swap_out,
    tag_deck,
    the_other_choice,
    tweak_scalar,
    two_moves,
    wrong_key,
    wrong_stock_key,
)
from ginp2p.testing.fakelink import (
    FakeLink,
    Player,
    bot_player,
    dealt,
    feed,
    linked,
    make_pair,
    role_of,
    settle,
    step_until,
    waiting_since,
)

ROOT = Path(__file__).resolve().parent.parent
FEEDS = ("host", "guest")
POOL = ThreadPoolExecutor(2)
#: A short match: with SEED it is one hand (the host shuffles first, the guest deals and
#: wins by a knock), so a cheat file stays small and quick to make.
RULES = PRESETS["classic"].with_(game_target=10)
SEED = 1
TIMEOUT = 30

#: What a case makes: the file's bytes, and the player who deviates (None: nobody).
Made = tuple[bytes, int | None]


@dataclass
class Case:
    """One corpus file: how to make it, and the verdict the audit must reach."""

    name: str
    why: str
    verdict: str
    make: Callable[[], Made]
    rule: str | None = None
    owed: str | None = None
    damage: str | None = None


# ---------------------------------------------------------------- making files


def as_file(records: Sequence[bytes]) -> bytes:
    """The bytes of a game file holding ``records``, written the way a peer writes it."""
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "game.ginlog"
        with LogFile.open(path) as f:
            for r in records:
                f.append(r)
        return path.read_bytes()


def record_spans(records: Sequence[bytes], data: bytes) -> list[tuple[int, int]]:
    """Where each record's bytes are in the file (records are stored verbatim)."""
    spans, at = [], 0
    for r in records:
        at = data.index(r, at)
        spans.append((at, at + len(r)))
        at += len(r)
    return spans


def play(cls: type[PeerProtocol] = PeerProtocol,
         players: tuple[Player | None, Player | None] = (bot_player, bot_player),
         rules: RuleSet = RULES, seed: int = SEED) -> FakeLink:  # fmt: skip
    """A whole match over the fake link, both peers of class ``cls``."""
    link = linked(rules, seed, cls, players, claim_timeout=TIMEOUT, executor=POOL)
    link.run()
    return link


def honest_records(link: FakeLink, role: str) -> tuple[list[bytes], int]:
    """The honest player's records of a match where the player in ``role`` (the first or
    second shuffler of hand 1) deviated, and who that was."""
    x = role_of(link, role)
    return list(link.sides[1 - x].saved), x


def honest_file(link: FakeLink, role: str) -> Made:
    records, x = honest_records(link, role)
    return as_file(records), x


_played: dict[str, FakeLink] = {}


def clean_match(preset: str) -> FakeLink:
    """A whole clean match of ``preset`` with a short target (cached: variants reuse it)."""
    if preset not in _played:
        _played[preset] = play(rules=PRESETS[preset].with_(game_target=10))
    return _played[preset]


def classic() -> list[bytes]:
    """The host's records of the clean classic match: the base of variants and damage."""
    return list(clean_match("classic").sides[HOST].saved)


# ---------------------------------------------------------------- clean


def _clean(preset: str) -> Case:
    return Case(
        f"clean-{preset}",
        f"a whole {preset} match (short target), nobody cheats",
        "clean",
        lambda: (as_file(clean_match(preset).sides[HOST].saved), None),
    )


def _reordered() -> Made:
    """The guest's file of the match (the other arrival order), shuffled."""
    records = list(clean_match("classic").sides[GUEST].saved)
    random.Random(5).shuffle(records)
    return as_file(records), None


def _repeated() -> Made:
    records = classic()
    return as_file(records + records[10:40] + records[:3]), None


def _rewrapped() -> Made:
    return as_file([rewrap(r) if i % 2 else r for i, r in enumerate(classic())]), None


def _bin32_records() -> Made:
    """Each record with a 4-byte bin32 length (a peer writes the shortest header)."""
    return as_file([]) + b"".join(b"\xc6" + len(r).to_bytes(4, "big") + r
                                  for r in classic()), None  # fmt: skip


# ---------------------------------------------------------------- cheated


def _cheat(cls: type[PeerProtocol], role: str = "first") -> Callable[[], Made]:
    return lambda: honest_file(play(cls), role)


def _illegal_play(when: Callable[..., bool], move: Callable[..., Any]) -> FakeLink:
    """A match where the first shuffler plays ``move`` once, at its first turn where
    ``when`` holds."""
    return play(cheater(""), players=(cheat_once(when, move),) * 2)


def _illegal(when: Callable[..., bool], move: Callable[..., Any]) -> Callable[[], Made]:
    return lambda: honest_file(_illegal_play(when, move), "first")


def _bad_opening(p: PeerProtocol, h: HandFold, body: Any) -> Any:
    """An opening with a perm_seed other than the one the commit binds."""
    return body._replace(perm_seed=bytes(32))


def _slipped_through() -> Made:
    # game target 1: the hand ends the match before the openings show the cheat
    link = play(cheater("shuffle answers", another_permutation),
                rules=RULES.with_(game_target=1))  # fmt: skip
    return honest_file(link, "first")


def _false_dispute() -> Made:
    """Once the cards are dealt, the guest disputes the host's (honest) lock."""
    link = linked(RULES, SEED, claim_timeout=TIMEOUT, executor=POOL)
    link.start()
    step_until(link, lambda: dealt(link) and not any(link.flight))
    lock = next(e for e in feed(link.sides[HOST], HOST) if e.kind == "lock")
    p = link.sides[GUEST].proto
    body = ev.make("dispute", lock.id, "bad-lock-proof", "it does not check out", [])
    link.handle(GUEST, p._append_and_fold("dispute", body))
    settle(link)
    return as_file(link.sides[HOST].saved), GUEST


def _cheat_and_damage() -> Made:
    """A proven cheat (false gin) in an intact chain, and a bit flipped in a later record."""
    records, x = honest_records(_illegal_play(phase_is(Phase.DISCARD), false_gin), "first")
    data = as_file(records)
    start, end = record_spans(records, data)[-1]
    return flip_bit(data, (start + end) // 2), x


# ---------------------------------------------------------------- incomplete


def _stalled(kinds: str, role: str, claim: bool) -> Callable[[], Made]:
    """The deviating peer withholds its next entry of ``kinds``; with ``claim`` the honest
    one claims the match after the timeout."""

    def make() -> Made:
        link = play(cheater(kinds, refuse=True, role=role))
        honest = 1 - role_of(link, role)
        if claim:
            side = link.sides[honest]
            link.now = waiting_since(side) + TIMEOUT
            link.handle(honest, side.proto.claim(link.now))
            settle(link)
        return honest_file(link, role)

    return make


def _cut_mid_hand() -> Made:
    records = classic()
    first_move = next(i for i, r in enumerate(records)
                      if Entry.from_wire(r).kind in ev.ACTION_KINDS)  # fmt: skip
    return as_file(records[: first_move + 7]), None


# ---------------------------------------------------------------- damaged


def _bit_flip() -> Made:
    records = classic()
    data = as_file(records)
    start, end = record_spans(records, data)[len(records) // 2]
    return flip_bit(data, (start + end) // 2), None


def _torn() -> Made:
    data = as_file(classic())
    return data[: len(data) - 37], None


def _dropped() -> Made:
    records = classic()
    del records[len(records) // 3]
    return as_file(records), None


def _spliced() -> Made:
    """Entries of another game between the same two players (same keys, other nonces)."""
    rng = random.Random(SEED)
    host, guest = make_pair(RULES, rng, claim_timeout=TIMEOUT, executor=POOL)
    rng.randbytes(1)
    other = FakeLink(host, guest, rng)
    other.run()
    mine = classic()
    return as_file(mine[:40] + other.sides[GUEST].saved[20:30] + mine[40:]), None


# ---------------------------------------------------------------- the cases

#: (name, why, role of the cheater, its class, the rule the audit must name)
CHEATS: list[tuple[str, str, str, type[PeerProtocol], str]] = [
    ("cheat-bad-sum-proof", "a shuffle whose sum proof does not hold", "first",
     cheater("shuffle", bad_sum_proof), "bad-sum-proof"),
    ("cheat-tag-attack", "a tagged deck with a re-made sum proof: its cut-and-choose "
     "answers fail", "first", cheater("shuffle", redeck(tag_deck)), "bad-shuffle-proof"),
    ("cheat-substituted-card", "a card of another deck in place of one of this deck, with "
     "a re-made sum proof", "first", cheater("shuffle", redeck(substitute_card)),
     "bad-sum-proof"),
    ("cheat-duplicate-card", "a shuffle that duplicates a card", "second",
     cheater("shuffle", redeck(duplicate_card, reprove=False), role="second"),
     "duplicate-point"),
    ("cheat-tweaked-answer", "a cut-and-choose answer with a changed scalar", "first",
     cheater("answers", change_answers(tweak_scalar)), "bad-shuffle-proof"),
    ("cheat-linked-lock", "a lock that swaps two positions (links them)", "second",
     cheater("lock", swap_out, role="second"), "bad-lock-proof"),
    ("cheat-wrong-deal-key", "a deal key for another position", "first",
     cheater("keys", change_keys("keys", wrong_key)), "bad-key"),
    ("cheat-wrong-stock-key", "a stock key for another position", "first",
     cheater("stock_key", wrong_stock_key), "bad-key"),
    ("cheat-bad-opening", "the match's winner opens seeds that do not match its commit: "
     "a cheat forfeits even a match already won", "second",
     cheater("open", _bad_opening, role="second"), "bad-opening"),
    ("cheat-equivocation", "two different entries signed at one seq (pass and take the "
     "upcard)", "first", cheater("pass_upcard take_upcard", twin=the_other_choice),
     "equivocation"),
]  # fmt: skip

#: (name, why, when the first shuffler plays the move, the move, the rule)
ILLEGAL: list[tuple[str, str, Callable[..., bool], Callable[..., Any], str]] = [
    ("cheat-false-gin", "gin declared with deadwood", phase_is(Phase.DISCARD), false_gin,
     "illegal-move:false_gin"),
    ("cheat-knock-over-limit", "a knock over the knock limit", phase_is(Phase.DISCARD),
     knock_over_the_limit, "illegal-move:knock_over_limit"),
    ("cheat-card-not-held", "a discard of a card not in the hand", phase_is(Phase.DISCARD),
     discard_not_held, "illegal-move:card_not_in_hand"),
    ("cheat-out-of-turn", "two moves in a row", phase_is(Phase.FIRST_UPCARD), two_moves,
     "out-of-turn"),
    ("cheat-chat-flood", "33 chats in a row with no answer between", phase_is(Phase.DISCARD),
     chat_flood, "chat-flood"),
]  # fmt: skip


def cases() -> list[Case]:
    out = [_clean(p) for p in PRESETS]
    out += [
        Case("clean-reordered", "the classic match's entries in another order", "clean",
             _reordered),
        Case("clean-repeated", "the classic match with some entries stored twice", "clean",
             _repeated),
        Case("clean-rewrapped", "every other entry in another msgpack wrapper (str types, "
             "array16): the id covers only the signed bytes", "clean", _rewrapped),
        Case("clean-bin32-records", "every record with a wider (bin32) length header",
             "clean", _bin32_records),
    ]  # fmt: skip
    out += [Case(name, why, "cheated", _cheat(cls, role), rule)
            for name, why, role, cls, rule in CHEATS]  # fmt: skip
    out += [Case(name, why, "cheated", _illegal(when, move), rule)
            for name, why, when, move, rule in ILLEGAL]  # fmt: skip
    out += [
        Case("cheat-slipped-through", "a shuffle with another permutation than the seeds "
             "give, answered consistently: only the recompute at the openings shows it",
             "cheated", _slipped_through, "not-from-seeds:shuffle"),
        Case("cheat-false-dispute", "the guest disputes the host's honest lock", "cheated",
             _false_dispute, "false-dispute"),
        Case("cheat-with-damage", "a false gin, and a later record bit-flipped: the cheat "
             "still stands", "cheated", _cheat_and_damage, "illegal-move:false_gin",
             damage="bad signature"),
        Case("incomplete-stalled-answers", "the first shuffler never answers the challenge; "
             "no claim yet", "incomplete", _stalled("answers", "first", claim=False),
             owed="has not sent answers"),
        Case("incomplete-claim-answers", "the same, and the other player claimed the match "
             "after the timeout", "incomplete", _stalled("answers", "first", claim=True),
             owed="the claim stands"),
        Case("incomplete-never-opened", "the loser never opens its seeds after the hand; "
             "no claim yet", "incomplete", _stalled("open", "first", claim=False),
             owed="has not opened their seeds"),
        Case("incomplete-refused-open", "the winner never opens its seeds; the loser "
             "claimed the match after the timeout", "incomplete",
             _stalled("open", "second", claim=True),
             owed="the opening of the seeds for hand 1"),
        Case("incomplete-cut-mid-hand", "the log stops a few moves into hand 1",
             "incomplete", _cut_mid_hand, owed="has not made their move"),
        Case("damaged-bit-flip", "one bit flipped inside a signed entry", "damaged",
             _bit_flip, damage="bad signature"),
        Case("damaged-torn", "the file ends inside a record", "damaged", _torn,
             damage="torn"),
        Case("damaged-dropped-entry", "one entry removed from the middle", "damaged",
             _dropped, damage="the file lacks"),
        Case("damaged-spliced", "entries of another game between the same two players "
             "pasted in (not equivocation: another game id)", "damaged", _spliced,
             damage="another game"),
    ]  # fmt: skip
    return out


# ---------------------------------------------------------------- checking


def check(case: Case, report: Report,
          deviant: int | None) -> tuple[dict[str, Any], list[str]]:  # fmt: skip
    """The expectation to write (from the case, never from the report), and where the
    report disagrees with it."""
    problems: list[str] = []
    if str(report.verdict) != case.verdict:
        problems.append(f"verdict {report.verdict}, expected {case.verdict}")
    cheated = case.verdict == "cheated"
    feed_ = FEEDS[deviant] if cheated and deviant is not None else None
    c = report.cheat
    if cheated:
        if c is None:
            problems.append("no cheat named")
        else:
            if FEEDS[c.author] != feed_:
                problems.append(f"the cheat is blamed on {FEEDS[c.author]}, not {feed_}")
            if c.rule != case.rule:
                problems.append(f"rule {c.rule}, expected {case.rule}")
            if c.hand != 1:
                problems.append(f"the cheat is placed in hand {c.hand}, not 1")
    elif c is not None:
        problems.append(f"a cheat is named: {c.rule} by {FEEDS[c.author]}")
    if case.owed and not any(case.owed in o for o in report.owed):
        problems.append(f"owed {list(report.owed)} lacks {case.owed!r}")
    if case.damage and not any(case.damage in d for d in report.damage):
        problems.append(f"damage {list(report.damage)} lacks {case.damage!r}")
    expected = {
        "verdict": case.verdict,
        "exit": Verdict(case.verdict).exit_code,
        "player": feed_,
        "rule": case.rule if cheated else None,
        "hand": 1 if cheated else None,  # every deviation is made in hand 1
        "owed": case.owed,
        "damage": case.damage,
        "why": case.why,
    }  # fmt: skip
    return expected, problems


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=ROOT / "tests" / "corpus",
                    help="folder to write (default tests/corpus)")  # fmt: skip
    ap.add_argument(
        "--only",
        action="append",
        metavar="NAME",
        help="make only this case (repeatable); expected.json is then merged",
    )
    ap.add_argument("--list", action="store_true", help="list the cases and exit")
    args = ap.parse_args(argv)
    all_cases = cases()
    if args.list:
        for c in all_cases:
            print(f"{c.name:30} {c.verdict:10} {c.why}")
        return 0
    unknown = set(args.only or ()) - {c.name for c in all_cases}
    if unknown:
        ap.error(f"no such case: {', '.join(sorted(unknown))} (see --list)")
    chosen = [c for c in all_cases if not args.only or c.name in args.only]
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    index = out / "expected.json"
    expected: dict[str, Any] = {}
    if args.only and index.exists():
        expected = json.loads(index.read_text())
    failed = []
    t0 = time.perf_counter()
    for i, case in enumerate(chosen, 1):
        t = time.perf_counter()
        path = out / f"{case.name}.ginlog"
        data, deviant = case.make()
        path.write_bytes(data)
        report = audit_file(path)
        expected[case.name], problems = check(case, report, deviant)
        status = "ok" if not problems else "WRONG: " + "; ".join(problems)
        who = f" {FEEDS[report.cheat.author]} {report.cheat.rule}" if report.cheat else ""
        print(f"[{i:2}/{len(chosen)}] {case.name:30} {report.verdict:10}{who:38} "
              f"{len(data) / 1024:6.1f} KB {time.perf_counter() - t:4.1f} s  {status}",
              flush=True)  # fmt: skip
        if problems:
            failed.append(case.name)
    if not args.only:
        for stale in out.glob("*.ginlog"):
            if stale.stem not in expected:
                stale.unlink()
    index.write_text(json.dumps(dict(sorted(expected.items())), indent=2) + "\n")
    size = sum(p.stat().st_size for p in out.glob("*.ginlog"))
    print(f"{len(chosen)} files in {time.perf_counter() - t0:.0f} s; corpus {size / 1024:.0f} KB "
          f"in {out}")  # fmt: skip
    if failed:
        print(f"the audit does not reach the expected verdict for: {', '.join(failed)}",
              file=sys.stderr)  # fmt: skip
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
