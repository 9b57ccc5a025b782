#!/usr/bin/env python3
"""Replay OpenSpiel gin_rummy hands through the engine under the ``openspiel`` preset.

Each input line is one hand in the format of ``shared/oracle/README.md``. At
every step the recorded action must be among the engine's legal actions; where
the hand records OpenSpiel's full legal set (knock discards, melds, layoffs) the
engine's set must equal it; wherever OpenSpiel offered a knock the engine must
allow one, and no knock the engine allows may exceed the knock limit. At the
end the engine's result must match the recorded one field by field.

Prints one line per mismatch and a closing ``N passed, M failed``; exits 1 on
any failure, 2 on unreadable input.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ginp2p.game import engine, match
from ginp2p.game import melds as M
from ginp2p.game.cards import Card, parse_card
from ginp2p.game.engine import (
    DeckKnowledge,
    Discard,
    DrawDiscard,
    DrawStock,
    EngineError,
    Gin,
    Knock,
    PassUpcard,
    Show,
    TakeUpcard,
    WallKnock,
    WallPass,
)
from ginp2p.game.melds import Layoff, Meld
from ginp2p.game.rules import PRESETS

RULES = PRESETS["openspiel"]


class Mismatch(Exception):
    """The engine disagrees with the recorded hand."""


def _cards(names: list[str]) -> list[Card]:
    return [parse_card(n) for n in names]


def _meld_key(cards: Any) -> frozenset[Card]:
    return frozenset(cards.cards if isinstance(cards, Meld) else _cards(cards))


def _expect(ok: bool, what: str) -> None:
    if not ok:
        raise Mismatch(what)


def _fmt(cards: Any) -> str:
    return " ".join(sorted(str(c) for c in cards))


def _closes(actions: list[engine.Action]) -> list[Knock | Gin | WallKnock]:
    return [a for a in actions if isinstance(a, Knock | Gin | WallKnock)]


def _check_knocks_within_limit(state: engine.HandState, options: list[Any], wall: bool) -> None:
    cards = state.known_cards(state.to_move)
    if wall:
        assert state.upcard is not None
        cards.append(state.upcard)
    for opt in options:
        rest = list(cards)
        rest.remove(opt.discard)
        dw = M.min_deadwood(rest, RULES)
        _expect(dw <= (RULES.knock_limit or 0), f"engine allows a knock discarding {opt.discard} "
                f"with exact deadwood {dw}")  # fmt: skip


class Replay:
    """One hand's replay: a cursor over the recorded actions."""

    def __init__(self, game: dict[str, Any], check_legal: bool = True) -> None:
        self.game = game
        self.actions: list[dict[str, Any]] = game["actions"]
        self.i = 0
        self.check = check_legal
        deck = tuple(_cards(game["deck"]))
        m = match.deal(match.new_match(RULES), DeckKnowledge(deck))
        assert m.hand is not None
        self.state: engine.HandState = m.hand

    def _next(self) -> dict[str, Any]:
        if self.i >= len(self.actions):
            raise Mismatch("the recorded hand ends in the middle of a showdown")
        a = self.actions[self.i]
        self.i += 1
        return a

    def _apply(self, action: engine.Action, player: int) -> None:
        legal = engine.legal_actions(self.state)
        if not isinstance(action, Knock | Gin | WallKnock | Show):
            _expect(action in legal, f"step {self.i}: {action} is not among the engine's legal "
                    f"actions {sorted(a.kind for a in legal)}")  # fmt: skip
        try:
            self.state = engine.apply(self.state, action, player)
        except EngineError as e:
            raise Mismatch(f"step {self.i}: engine refused {action.kind}: {e}") from None

    def run(self) -> engine.HandState:
        while self.i < len(self.actions):
            a = self._next()
            t, p = a["t"], a["p"]
            _expect(self.state.to_move == p or t in ("layoff",),
                    f"step {self.i}: recorded player {p} but the engine has player "
                    f"{self.state.to_move} to move")  # fmt: skip
            if t == "take_first_upcard":
                _expect(
                    self.state.upcard == parse_card(a["card"]),
                    f"step {self.i}: upcard is {self.state.upcard}, recorded {a['card']}",
                )
                self._apply(TakeUpcard(), p)
            elif t == "pass_first_upcard":
                self._apply(PassUpcard(), p)
            elif t == "draw_stock":
                self._apply(DrawStock(), p)
                got = self.state.knowledge.card_at(self.state.hands[p][-1])
                _expect(
                    got == parse_card(a["card"]), f"step {self.i}: drew {got}, recorded {a['card']}"
                )
            elif t == "draw_discard":
                before = self.state.upcard
                self._apply(DrawDiscard(), p)
                if not self.state.over:
                    _expect(
                        before == parse_card(a["card"]),
                        f"step {self.i}: took {before}, recorded {a['card']}",
                    )
            elif t == "discard":
                self._check_knock_offer(a.get("knock_offered"), wall=False)
                self._apply(Discard(parse_card(a["card"])), p)
            elif t == "wall_pass":
                self._check_knock_offer(a.get("knock_offered"), wall=True)
                self._apply(WallPass(), p)
            elif t in ("knock", "wall_knock"):
                self._knock(p, wall=t == "wall_knock")
            elif t in ("layoff", "end_layoffs", "meld", "end_melds"):
                self.i -= 1
                self._show(p)
            else:
                raise Mismatch(f"step {self.i}: unknown action type {t!r}")
        _expect(self.state.over, "the recorded hand ends but the engine's hand goes on")
        return self.state

    def _check_knock_offer(self, offered: bool | None, wall: bool) -> None:
        if not self.check:
            return
        options = _closes(engine.legal_actions(self.state)) if self.state.phase in (
            engine.Phase.DISCARD, engine.Phase.WALL) else []  # fmt: skip
        if offered:
            _expect(bool(options), f"step {self.i}: OpenSpiel offered a knock; the engine does not")
        _check_knocks_within_limit(self.state, options, wall)

    def _knock(self, p: int, wall: bool) -> None:
        legal = engine.legal_actions(self.state)
        options = _closes(legal)
        _expect(bool(options), f"step {self.i}: recorded a knock the engine does not allow")
        if self.check:
            _check_knocks_within_limit(self.state, options, wall)
        cards = self.state.known_cards(p)
        if wall:
            assert self.state.upcard is not None
            cards.append(self.state.upcard)
        a = self._next()
        _expect(a["t"] == "knock_discard", f"step {self.i}: expected knock_discard, got {a['t']}")
        discard = parse_card(a["card"])
        if self.check and "legal" in a:
            mine = {o.discard for o in options}
            _expect(mine == set(_cards(a["legal"])), f"step {self.i}: knock discards: engine "
                    f"{_fmt(mine)}, OpenSpiel {_fmt(_cards(a['legal']))}")  # fmt: skip
        cards.remove(discard)
        laid: list[Meld] = []
        while True:
            a = self._next()
            if a["t"] == "end_melds":
                break
            _expect(a["t"] == "meld", f"step {self.i}: expected a meld, got {a['t']}")
            if self.check and "pass_offered" in a:
                melded = {c for m in laid for c in m.cards}
                remaining = [c for c in cards if c not in melded]
                may_end = M.deadwood(remaining, RULES) <= (RULES.knock_limit or 0)
                offered = a["pass_offered"]
                _expect(may_end == offered, f"step {self.i}: end of melds offered "
                        f"{offered} by OpenSpiel, {may_end} by the engine")  # fmt: skip
            laid.append(self._meld(a, cards, laid, knocker=True))
        action: engine.Action
        action = WallKnock(discard, tuple(laid)) if wall else Knock(discard, tuple(laid))
        self._apply(action, p)

    def _meld(self, a: dict[str, Any], cards: list[Card], laid: list[Meld], knocker: bool) -> Meld:
        """The recorded meld, after checking OpenSpiel's meld choices against the engine's
        (``cards``: the hand it is laid from, ``laid``: the melds laid before it)."""
        if self.check and "legal" in a:
            mine = {_meld_key(m) for m in engine.meld_choices(RULES, cards, laid, knocker)}
            theirs = {_meld_key(m) for m in a["legal"]}
            who = "knocker" if knocker else "defender"
            _expect(mine == theirs, f"step {self.i}: {who}'s meld choices differ: engine "
                    f"{len(mine)}, OpenSpiel {len(theirs)}")  # fmt: skip
        try:
            return M.meld_of(_cards(a["cards"]), RULES)
        except ValueError as e:
            raise Mismatch(f"step {self.i}: {e}") from None

    def _show(self, p: int) -> None:
        state = self.state
        _expect(
            state.phase is engine.Phase.SHOW and state.to_move == p,
            f"step {self.i + 1}: the engine expects no showdown from player {p}",
        )
        cards = state.known_cards(p)
        knocker = state.knocker
        assert knocker is not None
        kdecl = state.declarations[knocker]
        assert kdecl is not None
        # OpenSpiel records a layoff as a card alone; the engine's names the meld it
        # goes on. The targets are chosen once all the cards are known (below).
        laid_off: list[Card] = []
        hints: list[list[int]] = []
        laid: list[Meld] = []

        def may_lay_off(card: Card) -> bool:
            return (
                card in cards and card not in laid_off
                and _layoff_targets(kdecl.melds, [*laid_off, card]) is not None
            )  # fmt: skip

        while True:
            a = self._next()
            t = a["t"]
            if t == "end_melds":
                break
            if t == "end_layoffs":
                continue
            if t == "layoff":
                if self.check and "legal" in a:
                    mine = {c for c in cards if may_lay_off(c)}
                    _expect(mine == set(_cards(a["legal"])), f"step {self.i}: layoffs: engine "
                            f"{_fmt(mine)}, OpenSpiel {_fmt(_cards(a['legal']))}")  # fmt: skip
                card = parse_card(a["card"])
                _expect(may_lay_off(card), f"step {self.i}: the engine cannot lay off {card}")
                laid_off.append(card)
                hints.append(a.get("fits_melds", []))
                continue
            _expect(t == "meld", f"step {self.i}: unexpected {t} in the showdown")
            rest = [c for c in cards if c not in laid_off]
            laid.append(self._meld(a, rest, laid, knocker=False))
        layoffs = _layoff_targets(kdecl.melds, laid_off, hints)
        assert layoffs is not None  # every prefix was checked above
        self._apply(Show(tuple(laid), tuple(layoffs)), p)


def _layoff_targets(
    melds: tuple[Meld, ...], cards: list[Card], hints: list[list[int]] | None = None
) -> list[Layoff] | None:
    """Meld targets for these laid-off cards, in this order, that the engine accepts
    after every card; None if there are none.

    OpenSpiel counts a laid-off card as extending every meld it fits, so a card that
    fits both a set and a run may later let the run grow through it. The engine
    names one meld per layoff; the search finds the naming that lets every later
    card through. ``hints`` (OpenSpiel's ``fits_melds``) are tried first.
    """

    def extend(done: list[Layoff]) -> list[Layoff] | None:
        k = len(done)
        if k == len(cards):
            return done
        hint = hints[k] if hints else []
        for i in sorted(range(len(melds)), key=lambda i: i not in hint):
            tried = [*done, Layoff(cards[k], i)]
            if M.check_layoffs(melds, tried, RULES) is None:
                found = extend(tried)
                if found is not None:
                    return found
        return None

    return extend([])


def compare_result(state: engine.HandState, expected: dict[str, Any]) -> None:
    """Raise :class:`Mismatch` for the first field that differs."""
    r = state.result
    assert r is not None
    _expect(
        list(r.returns) == expected["returns"],
        f"returns: engine {list(r.returns)}, OpenSpiel {expected['returns']}",
    )
    _expect(
        r.end.value == expected["end"], f"end: engine {r.end.value}, OpenSpiel {expected['end']}"
    )
    _expect(
        r.knocker == expected["knocker"],
        f"knocker: engine {r.knocker}, OpenSpiel {expected['knocker']}",
    )
    _expect(
        r.gin == expected["gin"] and r.undercut == expected["undercut"],
        f"gin/undercut: engine {r.gin}/{r.undercut}, "
        f"OpenSpiel {expected['gin']}/{expected['undercut']}",
    )
    decls = r.declarations
    if expected["deadwood"] is None:
        _expect(r.knocker is None, "deadwood: OpenSpiel has none, the engine scored a showdown")
    else:
        got = [d.deadwood if d else None for d in decls]
        _expect(
            got == expected["deadwood"], f"deadwood: engine {got}, OpenSpiel {expected['deadwood']}"
        )
    for p, d in enumerate(decls):
        mine = {_meld_key(m) for m in d.melds} if d else set()
        theirs = {_meld_key(m) for m in expected["melds"][p]}
        _expect(mine == theirs, f"melds of player {p}: engine {len(mine)}, OpenSpiel {len(theirs)}")
    lays = [str(lay.card) for d in decls if d for lay in d.layoffs]
    _expect(lays == expected["layoffs"], f"layoffs: engine {lays}, OpenSpiel {expected['layoffs']}")
    _expect(
        state.stock_left == expected["stock_left"],
        f"stock_left: engine {state.stock_left}, OpenSpiel {expected['stock_left']}",
    )
    pile = [str(c) for c in state.pile_cards()]
    live = r.end.value in ("wall_pass", "repeated_upcard_discard", "max_draw_upcard")
    upcard = pile.pop() if live and pile else None
    _expect(
        upcard == expected["upcard"], f"upcard: engine {upcard}, OpenSpiel {expected['upcard']}"
    )
    _expect(
        pile == expected["discard_pile"],
        f"discard_pile: engine {' '.join(pile)}, OpenSpiel {' '.join(expected['discard_pile'])}",
    )
    _expect(
        state.discard_draws == expected["num_draw_discard"],
        f"num_draw_discard: engine {state.discard_draws}, OpenSpiel {expected['num_draw_discard']}",
    )


def replay_game(game: dict[str, Any], check_legal: bool = True) -> engine.HandState:
    """Replay one hand; raise :class:`Mismatch` on the first disagreement."""
    try:
        state = Replay(game, check_legal).run()
    except (KeyError, TypeError, ValueError) as e:
        raise Mismatch(f"malformed hand: {type(e).__name__}: {e}") from None
    compare_result(state, game["result"])
    return state


def read_games(paths: list[str]) -> Iterator[tuple[str, dict[str, Any]]]:
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                if line.strip():
                    yield f"{path}:{n}", json.loads(line)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+", help="JSONL files of OpenSpiel hands")
    args = ap.parse_args(argv)
    passed = failed = 0
    try:
        for where, game in read_games(args.files):
            try:
                replay_game(game)
                passed += 1
            except Mismatch as e:
                failed += 1
                print(f"{where} game {game.get('game', '?')}: {e}")
    except (OSError, json.JSONDecodeError) as e:
        print(f"cannot read input: {e}", file=sys.stderr)
        print(f"{passed} passed, {failed + 1} failed")
        return 2
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
