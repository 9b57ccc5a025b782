"""What a player reads of its seat, and the sentences made of it.

:class:`SeatState` is the plain state of one side of a game as a player sees it: who
sits where and under which names, the match as it stands, whose turn it is and what is
owed, the link, the claim clock. The game's driver keeps it (``ginp2p.app.seat``); a
test writes one as a dataclass. The functions below turn it into the lines players
ask for: the status line, what a move or a hand's end was, the match's last line, why
no claim can be made, what leaving risks. They read nothing else, so a line says the
same whichever console shows it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from ginp2p.game.cards import Card, card_order
from ginp2p.game.match import MatchEnd, MatchState
from ginp2p.game.rules import RuleSet
from ginp2p.present.commands import describe_rules
from ginp2p.present.summary import hand_line
from ginp2p.present.words import action_words, match_end_words
from ginp2p.proto.outputs import EarlyClaim, Waiting
from ginp2p.proto.results import Chatted, CheatDetected, HandDealt, HandScored, MatchOver, Moved
from ginp2p.proto.state import OWED_GUEST_HELLO, OWED_HOST_HELLO, OWED_NONCE
from ginp2p.proto.text import for_screen

__all__ = [
    "SeatState",
    "away_words",
    "cards_text",
    "event_words",
    "leave_question",
    "match_line",
    "no_claim_words",
    "owed_words",
    "status_line",
]


class SeatState(Protocol):
    """One side of a game as its player sees it: plain values, read only."""

    @property
    def me(self) -> int:
        """This player's seat (0: the host, 1: the guest)."""
        ...

    @property
    def person(self) -> bool:
        """A person plays this seat (they read "you"), not the computer."""
        ...

    @property
    def names(self) -> tuple[str, str]:
        """Both seats' names as this player reads them: "you" for a person's own."""
        ...

    @property
    def own_names(self) -> tuple[str, str]:
        """Both players' own names (never "you")."""
        ...

    @property
    def signed_names(self) -> tuple[str, str]:
        """The names the players' hellos gave ("" before a hello)."""
        ...

    @property
    def opponent_name(self) -> str:
        """The other player's name: its hello's, or before it the one it was paired
        under."""
        ...

    @property
    def match(self) -> MatchState | None:
        """The match as it stands (None before the first deal)."""
        ...

    @property
    def rules(self) -> RuleSet | None:
        """The rules of the game (None until the host's hello is in)."""
        ...

    @property
    def claim_timeout(self) -> int:
        """Seconds a player may leave a move unanswered before it can be claimed."""
        ...

    @property
    def my_turn(self) -> bool:
        """A move of play is owed by this player."""
        ...

    @property
    def owed(self) -> str | None:
        """What the other player owes now, in words (None: nothing)."""
        ...

    @property
    def waiting_for(self) -> str | None:
        """What the protocol last said it waits for from the other player (None: it
        has not said)."""
        ...

    @property
    def waited(self) -> float:
        """Seconds the other player has owed what it owes (0 if nothing)."""
        ...

    @property
    def link_up(self) -> bool:
        """Connected to the other player now."""
        ...

    @property
    def reconnected(self) -> bool:
        """The link has been lost at least once (so it is being re-made, not made)."""
        ...

    @property
    def latency(self) -> float | None:
        """Seconds of the last round trip to the other side (None: none measured)."""
        ...

    @property
    def claims(self) -> bool:
        """Whether a silent player is claimed against in this game (not in ``play``)."""
        ...

    @property
    def may_claim(self) -> bool:
        """The other player has owed an entry past the claim timeout: a claim may be
        made now."""
        ...

    @property
    def my_wait(self) -> float | None:
        """How long this player has owed a move, where the other side may claim for it
        (None: it owes none, or nobody claims)."""
        ...

    @property
    def over(self) -> bool:
        """The match is over and the game is finishing (its last entries delivered)."""
        ...

    @property
    def done(self) -> bool:
        """The game has ended for this run (its connection is closing or closed)."""
        ...

    @property
    def finished(self) -> bool:
        """The log says the match is over."""
        ...

    @property
    def has_game(self) -> bool:
        """Both hellos are in: there is a game to claim in, and to come back to."""
        ...

    @property
    def begun(self) -> bool:
        """This player's hello is stored: from then on, leaving keeps the game."""
        ...

    @property
    def settling(self) -> bool:
        """Just back from being frozen, the other side not heard yet: no move or claim
        should cross what may be on its way."""
        ...

    @property
    def busy(self) -> bool:
        """A command this player gave is not done yet."""
        ...

    @property
    def rules_asked(self) -> bool:
        """A guest is being asked whether to play by the host's rules."""
        ...

    @property
    def rules_due(self) -> bool:
        """A guest before the host's rules: not asked about them yet, nor begun."""
        ...

    @property
    def rules_shown(self) -> bool:
        """This player has been shown the rules already (a guest, with the offer)."""
        ...

    @property
    def resumed(self) -> bool:
        """This run resumed a saved game."""
        ...

    @property
    def game_path(self) -> str | None:
        """The game's log file, as the player names it to ``ginp2p resume``."""
        ...

    @property
    def claim_undelivered(self) -> bool:
        """This player's claim ended the match and has not reached the other one."""
        ...


#: The set-up entries as the player who waits for them reads them (the protocol's own
#: words name both sides: "the guest's answer to the host's rules").
_OWED_WORDS = {
    OWED_HOST_HELLO: "the rules of the game",
    OWED_GUEST_HELLO: "their answer to your rules",
    OWED_NONCE: "their half of the coin toss for the first deal",
}


def owed_words(what: str) -> str:
    """What the other player owes, in words for the player who waits for it."""
    return _OWED_WORDS.get(what, what)


def cards_text(cards: Iterable[Card | None]) -> str:
    """Cards as the line mode writes them, ``7♥ 8♥ 9♥`` (``-``: none)."""
    return " ".join(c.pretty() for c in cards if c is not None) or "-"


def status_line(s: SeatState) -> str:
    """One line for a UI: whom we wait for, and whether the link is up."""
    who = s.opponent_name
    if s.over:
        return "the match is over"
    if not s.link_up:
        return f"waiting for {who} (reconnecting…)" if s.reconnected else \
            f"waiting for {who} to connect…"  # fmt: skip
    if s.waiting_for is not None and s.owed is not None:
        return f"waiting for {who}: {owed_words(s.waiting_for)}"
    return "your move" if s.my_turn else "working…"


def no_claim_words(s: SeatState) -> str | None:
    """Why a claim cannot be made now, in words; None if it can."""
    if s.may_claim:
        return None
    return "nothing to claim: " + (
        f"{s.opponent_name} owes {s.owed}, not yet for {s.claim_timeout} s"
        if s.owed is not None else "you are not waiting")  # fmt: skip


def away_words(s: SeatState, terse: bool = False) -> str:
    """What leaving a live game risks: a quit is no pause for the claim clock."""
    if not s.claims or not s.has_game or s.finished:
        return ""
    name, t = s.opponent_name, s.claim_timeout
    if terse:
        return f"; {name} may claim if your move waits {t} s"
    return f"; while you are away, {name} may claim the match once a move of yours has waited {t} s"


def leave_question(s: SeatState, terse: bool = False) -> str:
    """What Ctrl-C asks before leaving a live game, the same on the table (``terse``:
    one row of 80 columns) and at the line prompt: what is kept, and what the other
    player may do meanwhile."""
    if not s.begun:  # a guest at the rules question: its files are removed
        return "leave? nothing has been played yet, so nothing is kept"
    away = away_words(s, terse=terse)
    if terse and away:
        return f"leave? saved for `ginp2p resume`{away}"
    return f"leave the game? it is saved, and `ginp2p resume` continues it{away}"


def match_line(s: SeatState, what: MatchOver, totals: bool = True) -> str:
    """``MATCH OVER: Ann wins by 56 (reached the target); totals Ann 156, Bob 100``;
    without ``totals`` where the score sheet that follows ends in them."""
    names = s.names
    if what.winner is None:
        return f"the match is over ({match_end_words(what.end)})"
    loser = names[1 - what.winner]
    why = {
        MatchEnd.CLAIM: f"{loser} stopped answering and forfeit{'s' if loser != 'you' else ''}"
        " the match by a claim",
        MatchEnd.RESIGN: f"{loser} resigned",
        MatchEnd.CHEAT: f"{loser} cheated and forfeit{'s' if loser != 'you' else ''} the match",
    }.get(what.end) or match_end_words(what.end, loser)
    won = "win" if names[what.winner] == "you" else "wins"
    m = s.match
    margin = m.margin if m is not None and m.over else None
    by = f" by {margin}" if margin is not None and margin > 0 else ""
    line = f"MATCH OVER: {names[what.winner]} {won}{by} ({why})"
    if totals and what.totals:
        line += f"; totals {names[0]} {what.totals[0]}, {names[1]} {what.totals[1]}"
    return line


def event_words(s: SeatState, what: object, terse: bool) -> str | None:
    """What happened, in a line for this player (None: nothing to say). ``terse``: only
    what the computer's own output says (a hand's end, the match's, a cheat, a chat
    line, an early claim)."""
    names = s.names
    if isinstance(what, HandScored):
        me = s.me if s.person else None
        sc = what.scores
        m = s.match
        line = hand_line(what.hand, what.result, me, s.own_names,
                         m.rules if m is not None else None)  # fmt: skip
        a, b = (0, 1) if me is None else (me, 1 - me)  # "you" first, as `look` has it
        return f"{line}  [{names[a]} {sc[a]}, {names[b]} {sc[b]}]"
    if isinstance(what, MatchOver):
        return match_line(s, what)
    if isinstance(what, CheatDetected):
        where = f"; the evidence is in {s.game_path}" if s.game_path else ""
        # a false dispute is told in the disputer's own words (its rule)
        return "CHEAT: " + for_screen(what.cheat.describe(s.signed_names)) + where
    if isinstance(what, Chatted):
        return f"{names[what.player]}: {what.text}"
    if isinstance(what, EarlyClaim):
        return (
            f"{s.opponent_name} claims the match as if you had stopped answering, "
            f"after only {what.after:.0f} s of the agreed {what.timeout} s; the claim "
            "waits for the time to run out, and your move before then beats it"
        )
    if isinstance(what, Waiting):
        return None if terse else f"waiting for {s.opponent_name}: {owed_words(what.what)}"
    if terse:
        return None
    if isinstance(what, HandDealt):
        dealer = names[what.dealer]
        up = what.upcard.pretty() if what.upcard is not None else "?"
        deals = "deal" if what.dealer == s.me else "deals"
        cards = sorted((c for c in what.cards or () if c is not None), key=card_order)
        rules = s.rules  # (a guest was told them with the host's offer)
        first = f"the rules: {describe_rules(rules)}\n" \
            if what.hand == 1 and rules and not s.rules_shown else ""  # fmt: skip
        return (
            f"{first}hand {what.hand}: {dealer} {deals}; your cards {cards_text(cards)}; "
            f"upcard {up}"
        )
    if isinstance(what, Moved):
        return action_words(what.action, names[what.player], what.card, past=True)
    return None
