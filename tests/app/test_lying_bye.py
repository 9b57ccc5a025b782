"""The other player's words never end a game: a real cheating peer (tests/cheating_peer.py)
says mid-hand, in a ``bye``, what a host pairing to an unknown key says, then plays on
and claims where it may. The honest ``ginp2p bot`` facing it, on 127.0.0.1, shows those
words as the other side's, stays, and its match ends as the fuzz's honest peer's must:
no exit 1, no loss by a claim it could not answer."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.app.test_fuzz_net import TIMEOUT, _judge
from tests.cheating_peer import LYING_BYE, draw_plan


@pytest.mark.e2e
def test_a_bye_saying_it_forgot_us_mid_hand_ends_nothing(tmp_path: Path) -> None:
    plan = draw_plan(1, TIMEOUT, LYING_BYE)
    # the cheating host does nothing else: one hand, no proxy, no crash, no noise
    plan.update(role="host", after=1, target=1, proxy=None, crash=None, backdate=False,
                relink_replay=False, p=dict.fromkeys(plan["p"], 0.0))  # fmt: skip
    failure = _judge(plan, tmp_path)
    (cheater,) = (tmp_path / "h").glob("host.*.out")
    (honest,) = (tmp_path / "g").glob("guest.*.out")
    assert f"cheat: {LYING_BYE}" in cheater.read_text(), "the bye went out mid-hand"
    assert failure is None, failure  # exit 0, not convicted, no loss by a claim
    said = honest.read_text()
    assert "Hosta's ginp2p says it does not know your key: if Hosta forgot you" in said, said
    assert "the match is over" in said, said
