"""A short fuzz over the two-process ZeroMQ path: a cheating peer process against an
honest ``ginp2p bot``, on 127.0.0.1.

The cheater (tests/cheating_peer.py, whose docstring lists what it does) is ``ginp2p
bot`` with its protocol and session bent by a random plan: its own entries withheld,
duplicated, re-wrapped, reordered and replayed, garbage, ``have 0 0``, early claims,
back-dated moves, stalls, dropped connections, kill -9 and resume, sometimes through a
TCP proxy that cuts the connection; and at most one deviation that may end the match
(a claim sent before the move that makes it owed, or just after it and delivered
first, a burst of decoy claims, a stall past the timeout, a protocol cheat of the
threat tests, a lock with keys off its seeds and a false dispute). So the session's
ordering, resync and reconnects are explored with a real transport, not only the fake
link's.

Whatever the plan, the honest peer must: never crash (exit 0, no traceback); never be
convicted, by its own table (what its player is told) or by the audit of its saved
file, alone or with the cheater's; never lose the match by a claim or a forfeit (it
answers within a second, far inside the claim timeout); and keep a file that is not
damaged and decides the match.

The plans come from ``GINP2P_FUZZ_SEED`` (default below); a failure prints each
failing plan (its seed and everything drawn from it) with both peers' output.
``GINP2P_FUZZ_ONLY=SEED`` runs only the plan of that seed, to replay it (the timing of
two processes never repeats exactly).
"""

from __future__ import annotations

import json
import os
import random
import re
import signal
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from ginp2p.files.records import audit_file
from ginp2p.proto.entry import GUEST, HOST
from ginp2p.record.report import Verdict
from tests.cheating_peer import ENDERS, draw_plan
from tests.processes import GUARD, DroppingProxy, Peer, guest, host

FUZZ_SEED = int(os.environ.get("GINP2P_FUZZ_SEED", "20261215"))
#: One plan with each ender (a deviation that may end the match), and plans with none.
PLAN_ENDERS = [None, *ENDERS, None]
#: The claim timeout of every game: the honest bot answers within a second, and a
#: stall past it (the "long-stall" ender) costs this much of the test's time.
TIMEOUT = 5
PLANS = list(zip(PLAN_ENDERS, random.Random(FUZZ_SEED).sample(range(2**32), len(PLAN_ENDERS)),
                 strict=True))  # fmt: skip
CHEATER = [sys.executable, str(Path(__file__).parents[1] / "cheating_peer.py")]
NAMES = ("Hosta", "Guesto")  # as processes names them


def _start(plan: dict[str, Any], tmp: Path) -> tuple[Peer, Peer, DroppingProxy | None]:
    """Host and guest, one of them the cheater; the guest through the plan's proxy."""
    args = ["--claim-timeout", str(plan["timeout"]), "--set", f"game_target={plan['target']}"]
    cheat_env = {"GINP2P_CHEAT": json.dumps(plan)}
    guest_env = dict(cheat_env)
    if plan["crash"]:
        guest_env["GINP2P_CRASH_AT"] = plan["crash"]
    by_host = plan["role"] == "host"
    h = host(tmp / "h", *args, env=cheat_env if by_host else None,
             prefix=CHEATER if by_host else ())  # fmt: skip
    join = h.join_string()
    proxy = None
    if plan["proxy"]:
        address, key = join.split("/")
        port = int(address.rsplit(":", 1)[1])
        proxy = DroppingProxy(("127.0.0.1", port), plan["proxy"]["every"], plan["proxy"]["drops"])
        join = f"127.0.0.1:{proxy.port}/{key}"
    g = guest(tmp / "g", join, env=None if by_host else guest_env,
              prefix=() if by_host else CHEATER)  # fmt: skip
    return h, g, proxy


def _honest_ends(honest: Peer, cheater: Peer, plan: dict[str, Any], tmp: Path) -> Peer:
    """Wait for the honest peer to end; a cheater killed by its plan is resumed once.
    Returns the cheater's last process."""
    deadline = time.monotonic() + GUARD
    while honest.proc.poll() is None:
        if cheater.proc.poll() == -signal.SIGKILL and plan["crash"] and plan["run"] == 0:
            plan = {**plan, "run": 1}
            path = cheater.game_file()
            cheater = Peer(tmp / "g", ["bot", "--resume", str(path), "--linger", "3"],
                           name="cheater again", prefix=CHEATER,
                           env={"GINP2P_CHEAT": json.dumps(plan)})  # fmt: skip
        assert time.monotonic() < deadline, f"the honest peer never ended:\n{honest.output}"
        time.sleep(0.05)
    return cheater


def _judge(plan: dict[str, Any], tmp: Path) -> str | None:
    """Play one plan; what went wrong for the honest peer, or None."""
    h, g, proxy = _start(plan, tmp)
    honest, cheater = (g, h) if plan["role"] == "host" else (h, g)
    me = GUEST if plan["role"] == "host" else HOST
    began = time.monotonic()
    try:
        cheater = _honest_ends(honest, cheater, plan, tmp)
        code = honest.wait()
        if cheater.proc.poll() is None:  # it may linger, or wait on: it has lost its peer
            cheater.kill(signal.SIGTERM)
    finally:
        for side in (h, g, cheater):
            side.kill()
        if proxy is not None:
            proxy.close()
    said = (f"plan {json.dumps(plan)} ({time.monotonic() - began:.1f} s)\n--- honest:\n"
            f"{honest.output}\n--- cheater:\n{cheater.output}")  # fmt: skip
    if code != 0 or "Traceback" in honest.output:
        return f"the honest peer failed (exit {code}): {said}"
    # what the honest player was told: its own table's verdict
    mine_name, theirs_name = NAMES[me], NAMES[1 - me]
    if f"CHEAT: {mine_name} cheated" in honest.output:
        return f"the honest peer's own table convicts it: {said}"
    ends = re.findall(r"the match is over: (\S+) won \(([^)]*)\)", honest.output)
    if ends and ends[-1][0] == theirs_name and ends[-1][1] != "reached the target":
        return f"the honest peer's own table says it lost ({ends[-1][1]}): {said}"
    mine = honest.game_file()
    theirs = list((tmp / ("h" if me == GUEST else "g")).glob("games/*.ginlog"))
    alone, pooled = audit_file(mine), audit_file(mine, *theirs)
    for report, which in ((alone, "its file"), (pooled, "both files")):
        wrong = []
        if report.cheat is not None and report.cheat.author == me:
            wrong.append("the honest peer is convicted")
        if report.winner == 1 - me and report.end in ("claim", "cheat", "resign"):
            wrong.append(f"the honest peer loses by {report.end}")
        if which == "its file" and report.verdict is Verdict.DAMAGED:
            wrong.append("the honest peer's file is damaged")
        if which == "its file" and report.winner is None:
            wrong.append("the honest peer's file decides no match")
        if wrong:
            return f"{'; '.join(wrong)} (audit of {which}): {said}\n--- audit:\n{report.text()}"
    return None


def _judged(plan: dict[str, Any], tmp: Path) -> str | None:
    try:
        return _judge(plan, tmp)
    except AssertionError as exc:  # a guard ran out: the other plans still report
        return f"{exc}\nplan {json.dumps(plan)}"


@pytest.mark.e2e
def test_a_cheating_peer_never_beats_an_honest_one_over_zeromq(tmp_path: Path) -> None:
    """The plans run three at a time: a game is mostly two processes waiting on each
    other, the network and the clock."""
    only = os.environ.get("GINP2P_FUZZ_ONLY")
    plans = [draw_plan(seed, TIMEOUT, ender) for ender, seed in PLANS
             if only is None or int(only) == seed]  # fmt: skip
    assert plans, f"no plan of seed {only} with GINP2P_FUZZ_SEED={FUZZ_SEED}"
    with ThreadPoolExecutor(3) as pool:
        found = list(pool.map(lambda i: _judged(plans[i], tmp_path / str(i)), range(len(plans))))
    failures = [f for f in found if f is not None]
    assert not failures, f"{len(failures)} of {len(plans)} plans (GINP2P_FUZZ_SEED={FUZZ_SEED}) " \
                         "beat the honest peer:\n\n" + "\n\n".join(failures)  # fmt: skip
