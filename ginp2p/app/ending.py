"""How a session ends a finished match: it waits until the other side holds every
entry (or its linger runs out), a claimant as long as a move may still beat its claim,
then leaves with the match's last line; and a match that turns out not to be over (an
entry sent before the claim that ended it) goes on.
"""

from __future__ import annotations

from pathlib import Path

from ginp2p.app.core import SessionCore
from ginp2p.present.words import match_end_words
from ginp2p.proto.claims import Verdict as ClaimVerdict

__all__ = ["MatchEnding", "undelivered_words"]


def undelivered_words(name: str, path: Path | None) -> str:
    """At a table left open after a claim that has not reached the other player: it is
    delivered if they come back while the table is up, or by a resume later."""
    return (
        f"your claim has not reached {name} yet: it is delivered if they come back "
        "while this table is open (a move of theirs that it has not reached beats "
        f"it); if you leave, `ginp2p resume {path or 'FILE'}` delivers it"
    )


class MatchEnding(SessionCore):
    """The end of the match of a session (see the module)."""

    _ended_by: tuple[int, str] | None = None  # the forfeit the match ended on
    _told_undelivered = False  # that our claim has not reached the other player yet
    _claim_unconfirmed = False  # our claim ended the match, not yet confirmed received

    async def _check_done(self) -> None:
        p = self.proto
        if not p.finished:
            if self.finishing is not None:  # an entry sent before the claim beat it
                ours = self._ended_by == (p.opponent, "claim")
                self.finishing = self._ended_by = None
                self._told_undelivered = self._claim_unconfirmed = False
                opp = self.opponent_name  # however long after the claim: it came unseen
                self.say(f"the match goes on: {opp} answered before your claim reached them"
                         if ours else f"the match goes on: you answered before {opp}'s claim "
                         "reached you")  # fmt: skip
            return
        now = self.now()
        if self.finishing is None:
            self.finishing = now
            self._ended_by = p.table.forfeited
            await self._ask()
        confirmed = self.peer_have == p.have()
        self._claim_unconfirmed = self._our_claim and not confirmed
        # Our claim stands only once the other side has it: a move of theirs that it
        # has not reached beats it. So a claimant waits as long as a player may owe,
        # and at a table, until the player leaves it. Even then the unsigned `have`
        # makes nothing final: the last line says what only a signed entry would prove.
        wait = max(self.linger, p.table.claim_timeout) if self._our_claim else self.linger
        if confirmed or now - self.finishing > wait:
            if not confirmed and self._our_claim and self.player.stays_at_the_end:
                if not self._told_undelivered:
                    self._told_undelivered = True
                    self.say(undelivered_words(self.opponent_name, self.game_path))
                return
            await self._bye("the match is over")
            self._end(0, "over", self._over_words(confirmed))

    @property
    def claim_undelivered(self) -> bool:
        """Our claim ended the match and the other side has not said it has it: the
        table says so from the start (a player who is there answers within a second) and
        stays up for them to come back (``stays_at_the_end``)."""
        return self._claim_unconfirmed and self.result is None

    @property
    def _claim_stands(self) -> bool:
        """The claim that ended the match is acked by the player it names (signed proof
        that it reached them before they answered)."""
        claims = self.proto.table.claims
        verdict = self.proto.log.linear().claims.get(claims[-1].id) if claims else None
        return verdict is not None and verdict.verdict is ClaimVerdict.STANDS

    @property
    def _our_claim(self) -> bool:
        """The match ended on our claim (the other player forfeits for not answering)."""
        return self.proto.table.forfeited == (self.proto.opponent, "claim")

    def _over_words(self, confirmed: bool) -> str:
        """The last line of a finished match, and what is left to deliver."""
        p = self.proto
        forfeit = p.table.forfeited
        m = p.table.match
        end = m.end if m is not None else forfeit[1] if forfeit is not None else None
        note = "" if confirmed else " (could not confirm the other player has every entry)"
        if confirmed and self._our_claim and not self._claim_stands:
            note = (f" (unless {self.opponent_name} answers with a move made before your "
                    "claim reached them: nothing they signed acknowledges it, and such a "
                    "move reopens the match)")  # fmt: skip
        if not confirmed and self._our_claim:
            note = (f" (your claim has not reached {self.opponent_name}: a move of theirs "
                    "that it has not reached beats it; `ginp2p resume "
                    f"{self.game_path or 'FILE'}` delivers it)")  # fmt: skip
        loser = (
            forfeit[0]
            if forfeit is not None
            else 1 - m.winner
            if m is not None and m.winner is not None
            else None
        )
        who = self.names[loser] if loser is not None else "the loser"
        # the winner too: a finished match resumed shows no MATCH OVER line again
        won = f": {self.names[1 - loser]} won" if loser is not None else ""
        return f"the match is over{won} ({match_end_words(end, who)}){note}"
