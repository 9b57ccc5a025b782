"""``ginp2p export``: a whole game log in readable form, as JSON or text.

Built on the replay model (:mod:`ginp2p.record.replay`) in its ``all`` view *without* any
secrets file: every card shown is one the log itself proves. A hand whose seeds both
players opened is shown from the deal; in a hand that never opened, only the cards
that became public (the upcard, discards, cards taken from the pile, hands laid down
at the showdown) are named and the rest stay hidden (``null`` in JSON, ``??`` in
text). One document (:func:`document`) feeds both formats, so they cannot disagree.

The JSON schema (``schema`` 1) is documented in ``docs/audit.md``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from ginp2p.game.cards import Card, card_order, parse_card
from ginp2p.game.engine import Declaration, HandResult
from ginp2p.game.match import MatchState
from ginp2p.game.rules import RuleSet
from ginp2p.present.summary import bonus_lines, settlement
from ginp2p.present.words import (
    count,
    for_screen,
    forfeited_lead_words,
    result_words,
    score_reasons,
    settings_words,
)
from ginp2p.proto.results import NAMES
from ginp2p.record.replay import Replay, Step

__all__ = ["SCHEMA", "document", "text_lines"]

#: Version of the JSON document; bumped when a key changes meaning or disappears.
SCHEMA = 1

_VIEW = "all"


def _code(card: Card | None) -> str | None:
    """``7H``; in a multi-deck the second copy ``7H'``, so the two stay apart."""
    return card.pretty(ascii=True) if card is not None else None


def _hand_cards(cards: Sequence[Card | None]) -> list[str | None]:
    """Known cards sorted as a player holds them, hidden ones (None) after them."""
    known = sorted((c for c in cards if c is not None), key=card_order)
    return [_code(c) for c in known] + [None] * (len(cards) - len(known))


def _declaration(d: Declaration | None) -> dict[str, Any] | None:
    if d is None:
        return None
    return {
        "melds": [[_code(c) for c in m.in_order] for m in d.melds],
        "layoffs": [{"card": _code(lay.card), "meld": lay.meld} for lay in d.layoffs],
        "deadwood_cards": [_code(c) for c in sorted(d.deadwood_cards, key=card_order)],
        "deadwood": d.deadwood,
    }


def _result(r: HandResult, names: Sequence[str], rules: RuleSet | None) -> dict[str, Any]:
    return {
        "end": str(r.end),
        "knocker": NAMES[r.knocker] if r.knocker is not None else None,
        "ended_by": NAMES[r.ended_by] if r.ended_by is not None else None,
        "winner": NAMES[r.winner] if r.winner is not None else None,
        "points": list(r.points),
        "gin": r.gin,
        "undercut": r.undercut,
        "at_the_wall": r.at_the_wall,
        "text": result_words(r, names),
        # the points' making, as the table's summary says it (the text says who scored)
        "reasons": score_reasons(r, rules, names.__getitem__, total=False) if rules else [],
        "declarations": {NAMES[p]: _declaration(r.declarations[p]) for p in (0, 1)},
    }


def _move(replay: Replay, step: Step, symbols: bool) -> dict[str, Any]:
    """One move (or resign, claim, dispute) with the cards it names, as far as known."""
    card: Card | None = None
    a = step.action
    if a is not None:
        if a.kind == "draw_stock":
            card = replay.drawn(step, _VIEW)
        elif a.kind in ("draw_discard", "take_upcard"):
            card = step.taken
        else:
            card = getattr(a, "card", None) or getattr(a, "discard", None)
    return {
        "entry": step.index + 1,
        "player": NAMES[step.author],
        "action": a.kind if a is not None else step.kind,
        "card": _code(card),
        "text": replay.describe(
            step, _VIEW, lambda c: "??" if c is None else c.pretty(ascii=not symbols)
        ),
    }


def document(replay: Replay, *, symbols: bool = False) -> dict[str, Any]:
    """The game as plain data: players, rules, every hand (deal, moves, showdown,
    scores), the audit's verdict and the match result it supports. Cards are codes
    (``7H``, ``TH``, ``JK``; a second copy ``7H'``); the ``text`` sentences use suit
    symbols if ``symbols``."""
    names = replay.names
    rep = replay.report
    hands: list[dict[str, Any]] = []
    for number in replay.hands:
        steps = [s for s in replay.steps if s.hand == number]
        dealt_at = replay.deals.get(number)
        deal = None
        dealer = None
        if dealt_at is not None:
            f = replay.frame(dealt_at, _VIEW)
            dealer = next((NAMES[s.player] for s in f.seats if s.dealer), None)
            deal = {
                **{NAMES[s.player]: _hand_cards(s.cards) for s in f.seats},
                "upcard": _code(f.pile[-1]) if f.pile else None,
            }
        result = next((h.result for h in rep.hands if h.hand == number), None)
        scores = None
        if steps and (m := steps[-1].match) is not None and result is not None:
            scores = {NAMES[p]: m.scores[p] for p in (0, 1)}  # the hands' points, no bonus
        hands.append(
            {
                "hand": number,
                "dealer": dealer,
                # a step's ``opened`` is the displayed hand's: the set-up of this hand
                # comes while the last one is still on the table
                "opened": any(
                    s.opened for s in steps if s.match is not None and s.match.hand_no == number
                ),
                "deal": deal,
                "moves": [_move(replay, s, symbols) for s in steps if s.is_move and s.mark is None],
                "rejected": [
                    {
                        "entry": s.index + 1,
                        "player": NAMES[s.author],
                        "kind": s.kind,
                        "why": s.mark.text,
                    }
                    for s in steps
                    if s.mark is not None
                ],
                "result": _result(result, names, replay.rules) if result is not None else None,
                "scores": scores,
            }
        )
    final = replay.steps[-1].match if replay.steps else None
    # the lead the match is settled by (hoyle: what the lower total pays), when the
    # audit's result is the table's (a cheat it alone found changes both)
    settled = final if final is not None and rep.winner == final.winner and \
        rep.scores == (final.totals or final.scores) else None  # fmt: skip
    return {
        "schema": SCHEMA,
        "players": {"host": names[0], "guest": names[1]},
        # the host's hello names its rules as it likes: as a screen may show them
        "preset": for_screen(replay.rules.name) if replay.rules is not None else None,
        "rules_changed": replay.rules.changes() if replay.rules is not None else {},
        "entries": rep.entries,  # the file's, as the audit counts them; notes say the rest
        "notes": list(replay.notes),
        "hands": hands,
        "audit": {"verdict": str(rep.verdict), "exit": rep.exit_code},
        "result": {
            "scores": {NAMES[p]: rep.scores[p] for p in (0, 1)} if rep.scores else None,
            "bonuses": [
                {"what": what, NAMES[0]: points[0], NAMES[1]: points[1]}
                for what, points in (bonus_lines(final) if final is not None else [])
            ],
            "winner": NAMES[rep.winner] if rep.winner is not None else None,
            "margin": settled.margin if settled is not None else None,
            "forfeited_lead": settled.forfeited_lead if settled is not None else 0,
            "pays": _pays(settled),
            "end": rep.end,
            "text": replay.status(replay.steps[-1]),
        },
    }


def _pays(m: MatchState | None) -> dict[str, Any] | None:
    """Who pays whom how much (:func:`~ginp2p.present.summary.settlement`); None: nobody."""
    settled = settlement(m) if m is not None else None
    if settled is None:
        return None
    payer, paid, points = settled
    return {"player": NAMES[payer], "to": NAMES[paid], "points": points}


def text_lines(doc: dict[str, Any], *, ascii: bool = False) -> Iterator[str]:
    """The document for people: a block per hand (made with ``symbols=not ascii``)."""

    def name(code: str | None) -> str:
        return "??" if code is None else code if ascii else parse_card(code).pretty()

    def cards(codes: Sequence[str | None]) -> str:
        return " ".join(name(c) for c in codes) or "-"

    who = doc["players"]
    preset = f", preset {doc['preset']}" if doc["preset"] else ""
    preset += f" with {settings_words(doc['rules_changed'])}" if doc["rules_changed"] else ""
    entries = count(doc["entries"], "entry")
    yield f"{who['host']} (host) vs {who['guest']} (guest){preset}; {entries}"
    yield from doc["notes"]
    for h in doc["hands"]:
        yield ""
        dealer = f", {who[h['dealer']]} deals" if h["dealer"] else ""
        hidden = "" if h["opened"] else " (never opened: unseen cards stay hidden)"
        yield f"Hand {h['hand']}{dealer}{hidden}"
        if h["deal"] is not None:
            for side in NAMES:
                yield f"  {who[side]} is dealt {cards(h['deal'][side])}"
            if h["deal"]["upcard"]:
                yield f"  upcard {name(h['deal']['upcard'])}"
        lines = [(m["entry"], m["text"]) for m in h["moves"]]
        lines += [(x["entry"], f"[{x['kind']} by {who[x['player']]}: {x['why']}]")
                  for x in h["rejected"]]  # fmt: skip
        for entry, text in sorted(lines):
            yield f"  {entry:>4}  {text}"
        r = h["result"]
        if r is not None:
            for side in NAMES:
                d = r["declarations"][side]
                if d is None:
                    continue
                # as the table writes a showdown: [3♠ 4♠ 5♠] [9♥ 9♦ 9♣], "no deadwood"
                melds = " ".join(f"[{cards(m)}]" for m in d["melds"]) or "no melds"
                lay = [name(x["card"]) for x in d["layoffs"]]
                laid = f"; lays off {' '.join(lay)}" if lay else ""
                dead = d["deadwood_cards"]
                left = f"deadwood {cards(dead)} = {d['deadwood']}" if dead else "no deadwood"
                yield f"  {who[side]} shows {melds}{laid}; {left}"
            yield f"  Result: {r['text']}"
            if r["reasons"]:
                yield f"  Points: {'; '.join(r['reasons'])}"
        if h["scores"] is not None:
            s = h["scores"]
            yield f"  Scores: {who['host']} {s['host']}, {who['guest']} {s['guest']}"
    result = doc["result"]
    yield from _sum_lines(doc)
    yield ""
    yield f"Audit: {doc['audit']['verdict']}; {result['text']}"


def _sum_lines(doc: dict[str, Any]) -> Iterator[str]:
    """Once the match is decided, from the hands' points to the totals, as ``replay
    --plain`` adds them up: with no bonus to add (a forfeit, a preset without them)
    too, and the lead only where there is one."""
    who, result = doc["players"], doc["result"]
    total = result["scores"]
    if result["end"] is None or total is None:
        return
    # the points of the last hand scored (none yet: a forfeit in the first hand)
    points = next((h["scores"] for h in reversed(doc["hands"]) if h["scores"] is not None),
                  {"host": 0, "guest": 0})  # fmt: skip
    yield ""
    yield f"Points from the hands: {who['host']} {points['host']}, {who['guest']} {points['guest']}"
    for b in result["bonuses"]:
        yield f"  {b['what']}: {who['host']} {b['host']}, {who['guest']} {b['guest']}"
    yield f"Total: {who['host']} {total['host']}, {who['guest']} {total['guest']}"
    if result.get("forfeited_lead", 0) > 0:  # the winner was behind: nobody pays
        loser = who["guest" if result["winner"] == "host" else "host"]
        yield forfeited_lead_words(loser, result["forfeited_lead"])
    elif (result["margin"] or 0) > 0:
        yield f"{who[result['winner']]} wins by {result['margin']}"
    elif (pays := result.get("pays")) is not None:  # the winner has the smaller total
        yield (f"the smaller total pays the difference: {who[pays['player']]} pays "
               f"{who[pays['to']]} {pays['points']}")  # fmt: skip
