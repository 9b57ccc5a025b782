"""A cheating peer driven by a strategy against a real honest PeerProtocol
(ginp2p/testing/adversary.py): hypothesis draws the strategies, each is played with the cheater
as host and as guest, and every property must hold: the honest player is never
convicted nor made to lose by a claim or a forfeit, the tables and the audits agree, a
rule broken convicts the cheater and a deviation that breaks none changes nothing,
memory stays bounded, and a cheater that owes an entry and stays silent can always be
claimed against. The named attacks found so far (``adversary.KNOWN``) are regression
tests.

Exploration only: the peers and audits run at k=1 (told so as ``min_k``) and the curve
arithmetic is memoised (``ginp2p.testing.exploring.exploring_shuffle``).
``scripts/adversary.py`` runs the same exploration over many more games, with random
strategies. Failing examples are not shrunk (it costs
minutes); set GINP2P_ADVERSARY_SHRINK=1 to get a minimal strategy.
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from ginp2p.proto import events as ev
from ginp2p.proto.entry import GUEST, HOST, Entry
from ginp2p.proto.shuffle import K_MIN, group, steps
from ginp2p.testing.adversary import play
from ginp2p.testing.attacks import KNOWN
from ginp2p.testing.exploring import K_EXPLORE, exploring_shuffle
from ginp2p.testing.strategies import Strategy, draw_strategy, random_strategy

#: Strategies drawn (two games each, the cheater as host and as guest): about 30 s on
#: one core, the worlds' baselines and caches included. The same strategies every run
#: (derandomised): a regression net; ``scripts/adversary.py`` explores without bound.
EXAMPLES = 200
PHASES = (Phase.explicit, Phase.generate) + (
    (Phase.shrink,) if os.environ.get("GINP2P_ADVERSARY_SHRINK") else ()
)


class _Draw:
    """A :class:`~ginp2p.testing.strategies.Drawer` over hypothesis's ``draw``: the strategy's
    integers shrink towards the first (simplest) option of every choice."""

    def __init__(self, draw: Any) -> None:
        self.draw = draw

    def between(self, lo: int, hi: int) -> int:
        return int(self.draw(st.integers(lo, hi)))


@st.composite
def strategies(draw: Any) -> Strategy:
    return draw_strategy(_Draw(draw))


def _failures(strategy: Strategy) -> list[str]:
    game = play(strategy)
    return [f"{v}" for v in game.violations]


@settings(max_examples=EXAMPLES, derandomize=True, deadline=None, database=None,
          phases=PHASES, suppress_health_check=list(HealthCheck))  # fmt: skip
@given(strategy=strategies())
def test_no_strategy_harms_the_honest_player(strategy: Strategy) -> None:
    failed = []
    with exploring_shuffle():
        for cheater in (HOST, GUEST):
            s = dataclasses.replace(strategy, cheater=cheater)
            failed += [f"{s.describe()}\n    {f}" for f in _failures(s)]
    assert not failed, "\n".join(failed)


@pytest.mark.parametrize("name", list(KNOWN))
def test_a_known_attack_harms_nobody_honest(name: str) -> None:
    strategy = KNOWN[name]
    with exploring_shuffle():
        failed = _failures(strategy)
    assert not failed, strategy.describe() + "\n" + "\n".join(failed)


def test_a_game_replays_exactly() -> None:
    """The same strategy gives the same game, entry for entry (a seed reproduces)."""
    strategy = random_strategy(3)
    assert strategy == random_strategy(3)
    with exploring_shuffle():
        games = [play(strategy) for _ in range(2)]
    a, b = games
    assert a.honest.saved == b.honest.saved and a.cheater.saved == b.cheater.saved
    assert a.violations == b.violations


def test_exploring_shuffle_memoises_and_restores_and_never_lowers_the_floor() -> None:
    bound = ev.PARAMS.fields[0][1]
    assert isinstance(bound, ev.Int)

    def patched() -> tuple[Any, ...]:
        return (group.__dict__["nb"], Entry.__dict__["from_wire"], Entry.__dict__["verify"],
                group._hash_to_scalar, steps._hash_to_scalar)  # fmt: skip

    before = patched()
    with exploring_shuffle():
        assert all(a is not b for a, b in zip(patched(), before, strict=True))
        assert bound.lo == K_MIN  # the explorer's peers are told k=1; nobody else is
        game = play(Strategy(0, GUEST))
        assert game.violations == [] and game.honest.proto.table.k == K_EXPLORE == 1
    assert patched() == before
