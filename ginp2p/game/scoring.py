"""The end of a hand: its result and the points each player scores.

:func:`finish` closes a hand in any of its endings (a knock, a gin, the stock running
out, a pass at the wall, a resignation, ...) and scores it by the rule set's
``scoring``: the knocker's deadwood difference with undercuts (``difference``), the
lower deadwood scoring the difference (``lower_scores``) or each player's own
deadwood (``own_deadwood``).
"""

from __future__ import annotations

from dataclasses import replace

from ginp2p.game.actions import WallKnock
from ginp2p.game.hand import Declaration, HandEnd, HandResult, HandState, Phase, replace_state

__all__ = ["finish"]

#: Ends that score nothing: a redeal, a pass at the wall, a loop cap, or an end that
#: decides the match rather than the hand (a resignation, a rumino).
_UNSCORED = (
    HandEnd.STOCK_VOID,
    HandEnd.WALL_PASS,
    HandEnd.REPEATED_DISCARD,
    HandEnd.MAX_DISCARD_DRAWS,
    HandEnd.RESIGN,
    HandEnd.RUMINO,
)


def finish(state: HandState, end: HandEnd, resigner: int | None = None) -> HandState:
    """The hand over with ``end``, its result scored (``resigner``: who resigned)."""
    result = _score(state, end, resigner)
    if any(isinstance(a, WallKnock) for _, a in state.moves):
        result = replace(result, at_the_wall=True)
    return replace_state(state, phase=Phase.OVER, end=end, result=result, showing=())


def _score(state: HandState, end: HandEnd, resigner: int | None) -> HandResult:
    rules = state.rules
    decls = state.declarations
    k = state.knocker
    if end in _UNSCORED:
        by = (
            resigner
            if end is HandEnd.RESIGN
            else state.to_move
            if end is HandEnd.WALL_PASS
            else None
        )
        return HandResult(end, k, (0, 0), (0, 0), decls, ended_by=by)
    d0, d1 = decls
    assert d0 is not None and d1 is not None
    dw = (d0.deadwood, d1.deadwood)
    if end is HandEnd.STOCK_COUNT:
        return _lower_scores(end, None, dw, decls, 0)
    assert k is not None
    gin = end in (HandEnd.GIN, HandEnd.BIG_GIN)
    bonus = 0
    if end is HandEnd.GIN:
        bonus = rules.gin_bonus
    elif end is HandEnd.BIG_GIN:
        bonus = rules.big_gin_bonus or 0
    if rules.scoring == "own_deadwood":
        pts = [dw[0], dw[1]]
        pts[k] += bonus
        points = (pts[0], pts[1])
        return HandResult(end, k, points, (points[1] - points[0], points[0] - points[1]),
                          decls, gin=gin)  # fmt: skip
    if rules.scoring == "lower_scores":
        return _lower_scores(end, k, dw, decls, bonus, gin)
    d = 1 - k
    kd, dd = dw[k], dw[d]
    pts = [0, 0]
    undercut = False
    if gin and not (rules.gin_can_be_undercut and dd == 0):
        pts[k] = dd - kd + bonus
    elif dd < kd or (dd == kd and rules.undercut_on_tie):
        pts[d] = kd - dd + rules.undercut_bonus
        undercut = True
        end = HandEnd.UNDERCUT
    elif dd > kd:
        pts[k] = dd - kd
    return HandResult(end, k, (pts[0], pts[1]), (pts[0] - pts[1], pts[1] - pts[0]),
                      decls, gin=gin, undercut=undercut)  # fmt: skip


def _lower_scores(
    end: HandEnd,
    knocker: int | None,
    dw: tuple[int, int],
    decls: tuple[Declaration | None, Declaration | None],
    bonus: int,
    gin: bool = False,
) -> HandResult:
    pts = [0, 0]
    if dw[0] != dw[1]:
        low = 0 if dw[0] < dw[1] else 1
        pts[low] = abs(dw[0] - dw[1])
        if low == knocker:
            pts[low] += bonus
    return HandResult(end, knocker, (pts[0], pts[1]), (pts[0] - pts[1], pts[1] - pts[0]),
                      decls, gin=gin)  # fmt: skip
