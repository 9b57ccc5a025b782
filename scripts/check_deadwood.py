"""Check the meld solver against oracle-format JSONL files of minimal-deadwood cases.

Each line holds ``id``, ``n``, ``hand`` and ``min_deadwood``; 11-card lines also hold
``min_deadwood_after_discard``. Prints one line per mismatch and a closing
``N passed, M failed``; the exit status is non-zero on any failure or unreadable input.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

try:
    import ginp2p  # noqa: F401
except ImportError:  # run from a checkout without `pip install -e .`
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ginp2p.game.cards import parse_cards
from ginp2p.game.melds import best_discard, min_deadwood


def check_line(case: dict[str, Any]) -> list[tuple[str, int, int]]:
    """(field, expected, got) for every figure of this case the solver gets wrong."""
    hand = parse_cards(case["hand"])
    if len(hand) != case["n"]:
        raise ValueError(f"n is {case['n']} but the hand has {len(hand)} cards")
    wrong = []
    got = min_deadwood(hand)
    if got != case["min_deadwood"]:
        wrong.append(("min_deadwood", case["min_deadwood"], got))
    if case["n"] == 11:
        expected = case["min_deadwood_after_discard"]
        _, got = best_discard(hand)
        if got != expected:
            wrong.append(("min_deadwood_after_discard", expected, got))
    return wrong


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", type=Path, metavar="FILE", help="JSONL case files")
    args = parser.parse_args(argv)
    passed = failed = 0
    for path in args.files:
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as error:
            print(f"cannot read {path}: {error}", file=sys.stderr)
            return 2
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                case = json.loads(line)
                wrong = check_line(case)
            except (ValueError, KeyError, TypeError) as error:
                print(f"{path}:{number}: not a valid case: {error!r}", file=sys.stderr)
                return 2
            for field, expected, got in wrong:
                print(f"{case['id']} {field}: expected {expected}, got {got}")
            if wrong:
                failed += 1
            else:
                passed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
