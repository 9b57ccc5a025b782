"""Rebuild the audit's corpus: ``tests/corpus/*.ginlog`` and ``expected.json``.

Usage: python scripts/make_corpus.py [--out DIR] [--only NAME ...] [--list]

Every log is real: two of the project's own peers (``PeerProtocol``) play over the
in-memory fake link (``ginp2p.fakelink``), one of them deviating in one way — the
threats of DESIGN §8 that leave a trace in a file, injected with the very recipes of
``tests/test_threats.py``, which checks each on receipt — and the honest player's file is
written as a peer writes it (``LogFile``). Then come clean matches of every preset, the
same clean log reordered, repeated and re-wrapped, stalls and standing claims, and
damaged files.

Each case states its verdict from the audit's table (docs/audit.md), not from what the
audit prints: the script audits every file it writes and exits 1, naming the case, if
the audit does not reach that verdict, so a wrong expectation is never written
silently. Deterministic: the same code gives the same files.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# the threat recipes are the threat tests' own: one source for what each attack is
from ginp2p import audit  # noqa: E402
from ginp2p import events as ev  # noqa: E402
from ginp2p.fakelink import FakeLink, cheater, make_pair  # noqa: E402
from ginp2p.log import GUEST, HOST, Entry, LogFile  # noqa: E402
from ginp2p.rules import PRESETS, RuleSet  # noqa: E402
from tests import test_threats as T  # noqa: E402

FEEDS = ("host", "guest")


@dataclass
class Case:
    """One corpus file: how to make its records, and the verdict it must get."""

    name: str
    why: str
    verdict: str
    #: the file's bytes, and the player who deviates (HOST/GUEST, None: nobody)
    make: Callable[[], tuple[bytes, int | None]]
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


def honest_file(link: FakeLink, role: str) -> tuple[bytes, int]:
    """The honest player's file of a match where the player in ``role`` (the first or
    second shuffler of hand 1) deviated, and who that was."""
    x = T.role_of(link, role)
    return as_file(link.sides[1 - x].saved), x


def short(rules: RuleSet, target: int = 10) -> RuleSet:
    return rules.with_(game_target=target)


_played: dict[Any, FakeLink] = {}


def clean_match(preset: str, seed: int = 1) -> FakeLink:
    """A whole clean match of ``preset`` with a short target (cached: variants reuse it)."""
    key = (preset, seed)
    if key not in _played:
        rng = random.Random(seed)
        host, guest = make_pair(short(PRESETS[preset]), rng, claim_timeout=T.TIMEOUT,
                                executor=T.POOL)  # fmt: skip
        link = FakeLink(host, guest, rng)
        link.run()
        _played[key] = link
    return _played[key]




def flip(data: bytes, at: int) -> bytes:
    out = bytearray(data)
    out[at] ^= 0x01
    return bytes(out)


def record_spans(records: Sequence[bytes], data: bytes) -> list[tuple[int, int]]:
    """Where each record's bytes are in the file (records are stored verbatim)."""
    spans, at = [], 0
    for r in records:
        at = data.index(r, at)
        spans.append((at, at + len(r)))
        at += len(r)
    return spans


# ---------------------------------------------------------------- the cases


def _clean(preset: str) -> Case:
    return Case(f"clean-{preset}", f"a whole {preset} match (short target), nobody cheats",
                "clean", lambda: (as_file(clean_match(preset).sides[HOST].saved), None))


def _reordered() -> tuple[bytes, None]:
    records = list(clean_match("classic").sides[GUEST].saved)
    random.Random(5).shuffle(records)
    return as_file(records), None


def _repeated() -> tuple[bytes, None]:
    records = list(clean_match("classic").sides[HOST].saved)
    return as_file(records + records[10:40] + records[:3]), None


def _rewrapped() -> tuple[bytes, None]:
    records = clean_match("classic").sides[HOST].saved
    return as_file([T._rewrap(r) if i % 2 else r for i, r in enumerate(records)]), None


def _false_dispute() -> tuple[bytes, int]:
    link = T.pair()
    link.start()
    T.step_until(link, lambda: T._dealt(link) and not any(link.flight))
    x = GUEST
    lock = next(e for e in T.feed(link.sides[HOST], HOST) if e.kind == "lock")
    p = link.sides[x].proto
    body = ev.make("dispute", lock.id, "bad-lock-proof", "it does not check out", [])
    link.handle(x, p._append_and_fold("dispute", body))
    T.settle(link)
    return as_file(link.sides[HOST].saved), x


def _cheat(cls: type, role: str) -> Callable[[], tuple[bytes, int]]:
    return lambda: honest_file(T.play(cls), role)


def _illegal(when: Any, move: Any) -> Callable[[], tuple[bytes, int]]:
    return lambda: honest_file(T.play(cheater(""), players=(T.cheat_once(when, move),) * 2),
                               "first")  # fmt: skip


def _slipped_through() -> tuple[bytes, int]:
    link = T.play(cheater("shuffle answers", T._another_permutation),
                  rules=T.RULES.with_(game_target=1))  # fmt: skip
    return honest_file(link, "first")


def _stalled(kinds: str, role: str, claim: bool) -> Callable[[], tuple[bytes, int]]:
    """The deviating peer withholds its next entry of ``kinds``; with ``claim`` the honest
    one claims the match after the timeout."""

    def make() -> tuple[bytes, int]:
        link = T.play(cheater(kinds, refuse=True, role=role))
        honest = 1 - T.role_of(link, role)
        if claim:
            side = link.sides[honest]
            link.now = T.waiting_since(side) + T.TIMEOUT
            link.handle(honest, side.proto.claim(link.now))
            T.settle(link)
        return honest_file(link, role)

    return make


def _refused_open_winner() -> tuple[bytes, int]:
    base = clean_match("classic")
    winner = base.sides[HOST].proto.table.match.winner  # type: ignore[union-attr]
    role = "first" if base.sides[HOST].proto.table.hands[0].first == winner else "second"
    return _stalled("open", role, claim=True)()


def _cut_mid_hand() -> tuple[bytes, None]:
    records = clean_match("classic").sides[HOST].saved
    first_move = next(i for i, r in enumerate(records)
                      if Entry.from_wire(r).kind in ev.ACTION_KINDS)  # fmt: skip
    return as_file(records[: first_move + 7]), None


def _bit_flip() -> tuple[bytes, None]:
    records = clean_match("classic").sides[HOST].saved
    data = as_file(records)
    start, end = record_spans(records, data)[len(records) // 2]
    return flip(data, (start + end) // 2), None


def _torn() -> tuple[bytes, None]:
    data = as_file(clean_match("classic").sides[HOST].saved)
    return data[: len(data) - 37], None


def _dropped() -> tuple[bytes, None]:
    records = list(clean_match("classic").sides[HOST].saved)
    del records[len(records) // 3]
    return as_file(records), None


def _spliced() -> tuple[bytes, None]:
    mine = list(clean_match("classic").sides[HOST].saved)
    other = clean_match("classic", seed=2).sides[GUEST].saved
    return as_file(mine[:60] + list(other[20:30]) + mine[60:]), None


def _cheat_and_damage() -> tuple[bytes, int]:
    """A proven cheat (false gin) in an intact chain, and a bit flipped in a later record."""
    link = T.play(cheater(""), players=(T.cheat_once(T._phase(T.Phase.DISCARD),
                                                     T._false_gin),) * 2)  # fmt: skip
    x = T.role_of(link, "first")
    records = link.sides[1 - x].saved
    data = as_file(records)
    start, end = record_spans(records, data)[-1]
    return flip(data, (start + end) // 2), x


def _not_a_log() -> tuple[bytes, None]:
    return random.Random(9).randbytes(300), None


CHEAT_RULES = [
    ("cheat-bad-sum-proof", "a shuffle whose sum proof does not hold", "first",
     cheater("shuffle", T._bad_sum_proof), "bad-sum-proof"),
    ("cheat-tag-attack", "a tagged deck with a re-made sum proof: its cut-and-choose "
     "answers fail", "first", cheater("shuffle", T.redeck(T._tag)), "bad-shuffle-proof"),
    ("cheat-substituted-card", "a card of another deck in place of one of this deck, with "
     "a re-made sum proof", "first", cheater("shuffle", T.redeck(T._substitute)),
     "bad-sum-proof"),
    ("cheat-duplicate-card", "a shuffle that duplicates a card", "second",
     cheater("shuffle", T.redeck(T._duplicate, reprove=False), role="second"),
     "duplicate-point"),
    ("cheat-tweaked-answer", "a cut-and-choose answer with a changed scalar", "first",
     cheater("answers", T._answers(T._tweak_scalar)), "bad-shuffle-proof"),
    ("cheat-linked-lock", "a lock that swaps two positions (links them)", "second",
     cheater("lock", T._swap_out, role="second"), "bad-lock-proof"),
    ("cheat-wrong-deal-key", "a deal key for another position", "first",
     cheater("keys", T._keys("keys", T._wrong_key)), "bad-key"),
    ("cheat-wrong-stock-key", "a stock key for another position", "first",
     cheater("stock_key", T._stock_key_wrong), "bad-key"),
]  # fmt: skip

ILLEGAL = [
    ("cheat-false-gin", "gin declared with deadwood", T._phase(T.Phase.DISCARD), T._false_gin,
     "illegal-move:false_gin"),
    ("cheat-knock-over-limit", "a knock over the knock limit", T._phase(T.Phase.DISCARD),
     T._knock_over_the_limit, "illegal-move:knock_over_limit"),
    ("cheat-card-not-held", "a discard of a card not in the hand", T._phase(T.Phase.DISCARD),
     T._not_held, "illegal-move:card_not_in_hand"),
    ("cheat-out-of-turn", "two moves in a row", T._phase(T.Phase.FIRST_UPCARD), T._two_moves,
     "out-of-turn"),
]  # fmt: skip


def cases() -> list[Case]:
    out = [_clean(p) for p in PRESETS]
    out += [
        Case("clean-reordered", "the classic match's entries in another order", "clean",
             _reordered),
        Case("clean-repeated", "the classic match with some entries stored twice", "clean",
             _repeated),
        Case("clean-rewrapped", "every other entry in a different msgpack wrapper", "clean",
             _rewrapped),
    ]  # fmt: skip
    for name, why, role, cls, rule in CHEAT_RULES:
        out.append(Case(name, why, "cheated", _cheat(cls, role), rule))
    for name, why, when, move, rule in ILLEGAL:
        out.append(Case(name, why, "cheated", _illegal(when, move), rule))
    out += [
        Case("cheat-slipped-through", "a shuffle with another permutation than the seeds "
             "give, answered consistently: only the recompute at the openings shows it",
             "cheated", _slipped_through, "not-from-seeds:shuffle"),
        Case("cheat-equivocation", "two different entries signed at one seq", "cheated",
             _cheat(cheater("pass_upcard take_upcard", twin=T._the_other_choice), "first"),
             "equivocation"),
        Case("cheat-false-dispute", "the guest disputes the host's honest lock", "cheated",
             _false_dispute, "false-dispute"),
        Case("cheat-with-damage", "a false gin, and a later record bit-flipped: the cheat "
             "still stands", "cheated", _cheat_and_damage, "illegal-move:false_gin",
             damage="bad signature"),
        Case("incomplete-stalled-answers", "the first shuffler never answers the challenge; "
             "no claim yet", "incomplete", _stalled("answers", "first", claim=False),
             owed="never sent"),
        Case("incomplete-claim-answers", "the same, and the other player claimed the match "
             "after the timeout", "incomplete", _stalled("answers", "first", claim=True),
             owed="the claim stands"),
        Case("incomplete-refused-open", "the match's winner never opens its seeds; claimed",
             "incomplete", _refused_open_winner, owed="forfeits the match"),
        Case("incomplete-cut-mid-hand", "the log stops a few moves into hand 1",
             "incomplete", _cut_mid_hand, owed="never made their move"),
        Case("damaged-bit-flip", "one bit flipped inside a signed entry", "damaged",
             _bit_flip),
        Case("damaged-torn", "the file ends inside a record", "damaged", _torn,
             damage="torn"),
        Case("damaged-dropped-entry", "one entry removed from the middle", "damaged",
             _dropped, damage="the file lacks"),
        Case("damaged-spliced", "entries of another game pasted in", "damaged", _spliced,
             damage="another game"),
        Case("damaged-not-a-log", "bytes that are no game log", "damaged",
             _not_a_log),
    ]  # fmt: skip
    return out


# ---------------------------------------------------------------- checking


def check(case: Case, path: Path, deviant: int | None) -> tuple[dict[str, Any], list[str]]:
    """The expectation to write, and what the audit of ``path`` got wrong."""
    report = audit.audit(path)
    problems: list[str] = []
    if str(report.verdict) != case.verdict:
        problems.append(f"verdict {report.verdict}, expected {case.verdict}")
    c = report.cheat
    cheated = case.verdict == "cheated"
    feed = FEEDS[deviant] if cheated and deviant is not None else None
    if cheated:
        if c is None:
            problems.append("no cheat named")
        else:
            if FEEDS[c.author] != feed:
                problems.append(f"the cheat is blamed on {FEEDS[c.author]}, not {feed}")
            if case.rule is not None and c.rule != case.rule:
                problems.append(f"rule {c.rule}, expected {case.rule}")
            if c.hand != 1:
                problems.append(f"the cheat is placed in hand {c.hand}, not 1")
    if case.owed and not any(case.owed in o for o in report.owed):
        problems.append(f"owed {list(report.owed)} lacks {case.owed!r}")
    if case.damage and not any(case.damage in d for d in report.damage):
        problems.append(f"damage {list(report.damage)} lacks {case.damage!r}")
    expected = {
        "verdict": case.verdict,
        "exit": audit.Verdict(case.verdict).exit_code,
        "player": feed,
        "rule": case.rule,
        "hand": 1 if cheated else None,  # every deviation is made in hand 1
        "owed": case.owed,
        "damage": case.damage,
        "why": case.why,
    }  # fmt: skip
    return expected, problems


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=ROOT / "tests" / "corpus",
                    help="folder to write (default tests/corpus)")
    ap.add_argument("--only", action="append", metavar="NAME",
                    help="make only this case (repeatable); expected.json is then merged")
    ap.add_argument("--list", action="store_true", help="list the cases and exit")
    args = ap.parse_args(argv)
    all_cases = cases()
    if args.list:
        for c in all_cases:
            print(f"{c.name:32} {c.verdict:10} {c.why}")
        return 0
    chosen = [c for c in all_cases if not args.only or c.name in args.only]
    unknown = set(args.only or ()) - {c.name for c in all_cases}
    if unknown:
        ap.error(f"no such case: {', '.join(sorted(unknown))} (see --list)")
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    index = out / "expected.json"
    expected: dict[str, Any] = json.loads(index.read_text()) if args.only and index.exists() \
        else {}  # fmt: skip
    failed = []
    t0 = time.perf_counter()
    for i, case in enumerate(chosen, 1):
        t = time.perf_counter()
        path = out / f"{case.name}.ginlog"
        data, deviant = case.make()
        path.write_bytes(data)
        want, problems = check(case, path, deviant)
        expected[case.name] = want
        status = "ok" if not problems else "WRONG: " + "; ".join(problems)
        print(f"[{i:2}/{len(chosen)}] {case.name:32} {want['verdict']:10} "
              f"{path.stat().st_size / 1024:6.1f} KB {time.perf_counter() - t:5.1f} s  {status}",
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
          f"in {out}")
    if failed:
        print(f"the audit does not reach the expected verdict for: {', '.join(failed)}",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
