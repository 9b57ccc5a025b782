"""The table in a real terminal over a fixed seat, for tmux tests of what a live game
reaches only by chance (a showdown of one's own; a hoyle match won with the smaller
total): ``python -m tests.console.fixed_table showdown|settlement``. The seat is the
in-process tests' :class:`~tests.console.test_tui_table.FakeSeat`; keys, screen and
terminal are real. The script ends when the player leaves (q)."""

from __future__ import annotations

import asyncio
import sys

from ginp2p.console.tui.look import Look
from ginp2p.console.tui.table import TablePlayer
from ginp2p.game.match import MatchState
from ginp2p.game.rules import get_preset
from ginp2p.proto.results import MatchOver
from tests.console.test_narrow_and_marks import sheet, won
from tests.console.test_tui_table import FakeSeat, drawn_hand, knocked_hand


def settled() -> MatchState:
    """Hoyle: Computer won two small hands, Ann the match with one; the box bonuses
    leave Ann, the winner, 2 behind, so Ann pays."""
    hoyle = get_preset("hoyle").with_(game_target=20, game_bonus=0)
    return sheet(hoyle, won(1, 3), won(1, 4), won(0, 25))


async def main(what: str) -> None:
    player = TablePlayer(Look(ascii=True, colour=False), bell=False)
    if what == "showdown":  # Ann knocked: Computer, the seat here, must show
        seat = FakeSeat(knocked_hand(), me=1, names=("Ann", "you"), own_names=("Ann", "Computer"))
    else:
        m = settled()
        over = type("Over", (FakeSeat,), {"match": property(lambda _: m)})
        seat = over(drawn_hand(), names=("you", "Computer"), own_names=("Ann", "Computer"))
        seat.over = seat.done = seat.finished = True
    seat.player = player
    if what == "settlement":
        loop = asyncio.get_running_loop()
        assert m.end is not None
        loop.call_later(0.2, player.event, seat, MatchOver(0, m.end, m.totals))
    await player.play(seat)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
