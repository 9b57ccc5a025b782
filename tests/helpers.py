"""Shared test helpers: hands with chosen cards (engine tests), and real game logs made
by two PeerProtocol peers over the in-memory fake link (replay, export)."""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ginp2p.files.logfile import LogFile, SecretsFile, secrets_path
from ginp2p.game import engine
from ginp2p.game.cards import Card, deck, parse_cards
from ginp2p.game.engine import DeckKnowledge, HandState
from ginp2p.game.rules import RuleSet
from ginp2p.proto.results import HandDealt
from ginp2p.testing.fakelink import FakeLink, Side, make_pair


def stacked_deck(
    rules: RuleSet,
    non_dealer: str,
    dealer: str,
    upcard: str,
    stock: str = "",
) -> DeckKnowledge:
    """A deck whose deal gives exactly these cards; the rest of the stock follows
    in canonical order after ``stock``."""
    h = rules.hand_size
    nd, d, up, st = (parse_cards(x) for x in (non_dealer, dealer, upcard, stock))
    assert len(nd) == h and len(d) == h and len(up) == 1, "wrong hand sizes"
    chosen: list[Card] = [*nd, *d, *up, *st]
    assert len(set(chosen)) == len(chosen), "a card is dealt twice"
    rest = [c for c in deck(rules.deck_size) if c not in set(chosen)]
    return DeckKnowledge(tuple(chosen + rest))


def deal(rules: RuleSet, non_dealer: str, dealer: str, upcard: str, stock: str = "",
         dealer_seat: int = 1) -> HandState:  # fmt: skip
    """A fresh hand where seat ``1 - dealer_seat`` holds ``non_dealer``."""
    return engine.start_hand(rules, dealer_seat, stacked_deck(rules, non_dealer, dealer, upcard,
                                                              stock))  # fmt: skip


def play(state: HandState, *actions: engine.Action) -> HandState:
    for a in actions:
        state = engine.apply(state, a)
    return state


@dataclass
class Match:
    """Both sides of a match played over the fake link."""

    host: Side
    guest: Side

    def dealt(self, who: int) -> dict[int, tuple[Any, ...]]:
        """The cards each hand dealt to ``who``, as that peer's own table saw them."""
        side = (self.host, self.guest)[who]
        return {e.hand: e.cards for e in side.events if isinstance(e, HandDealt)}


def play_match(rules: RuleSet, seed: int, **kw: Any) -> Match:
    """A whole match between two computer players (``kw`` goes to ``make_pair``)."""
    rng = random.Random(seed)
    host, guest = make_pair(rules, rng, **kw)
    FakeLink(host, guest, rng).run()
    return Match(host, guest)


def write(path: Path, records: list[bytes], side: Side | None = None) -> Path:
    """A game file as a peer leaves it: the log, and that peer's secrets beside it."""
    with LogFile.open(path) as f:
        for r in records:
            f.append(r)
    if side is not None:
        with SecretsFile.open(secrets_path(path)) as s:
            for hand, (perm, key) in side.seeds.items():
                s.put_seeds(hand, perm, key)
    return path
