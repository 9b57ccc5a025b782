"""What a key at the table means. :class:`Intents` holds the table's state between two
keys (the chosen card, the declaration being made, the question asked, the message)
and does what a key or a typed command asks: a move through the same parser as the
line prompt, a knock or a gin proposed before it is sent, a showdown laid meld by
meld, a claim or leaving asked first. Which key leads to which intent is the
bindings' (:mod:`.bindings`); drawing and running the table is :mod:`.table`'s.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from prompt_toolkit.application import Application

from ginp2p.app.config import SessionResult
from ginp2p.app.seat import Seat
from ginp2p.console.tui.look import Look
from ginp2p.console.tui.render import CHOICE_KEYS
from ginp2p.game.cards import Card
from ginp2p.game.engine import Action, Phase
from ginp2p.game.rules import RuleSet
from ginp2p.present.commands import (
    Act,
    ClaimCmd,
    Command,
    CommandError,
    QuitCmd,
    ResignCmd,
    parse_command,
)
from ginp2p.present.draft import Draft, draft_from
from ginp2p.present.seat_words import leave_question, no_claim_words
from ginp2p.present.summary import HandSummary, MatchSummary
from ginp2p.present.view import Situation, TableView, build_view
from ginp2p.present.vocabulary import lookup

__all__ = ["Intents", "situation"]


def situation(seat: Seat) -> Situation:
    """What the table is drawn from, read off a player's seat."""
    if seat.done:  # the game is done and its connection closed
        link = "game over"
    elif seat.link_up:
        link = "connected"
    else:
        link = "reconnecting…" if seat.reconnected else "connecting…"
    return Situation(
        me=seat.me,
        names=seat.own_names,
        match=seat.match,
        hand=seat.hand(),
        my_turn=seat.my_turn,
        owed=seat.owed,
        waited=seat.waited,
        claim_timeout=seat.claim_timeout,
        claimable=seat.may_claim,
        my_wait=seat.my_wait,
        link=link,
        latency=seat.latency,
        over=seat.over,
    )


class Intents:
    """The table's state between keys, and what each key or typed command does."""

    def __init__(self, look: Look | None = None) -> None:
        self.look = look or Look.from_env()
        self.seat: Seat | None = None
        self.app: Application[None] | None = None
        self.running = False
        self.message: tuple[str, str] = ("", "")
        self.selected: Card | None = None
        self.draft: Draft | None = None
        self._proposal: Draft | None = None  # what `e` started editing, for Esc
        self._asked: Action | None = None  # a worse declaration Enter asked about
        self.summary: HandSummary | None = None
        self.final: MatchSummary | None = None
        self.rules_offer: str | None = None
        self.show_help = False
        self.confirm: tuple[str, Callable[[], None]] | None = None
        self.leaving = False
        self.result: SessionResult | None = None  # the game's, once it is over
        self._drawn: Card | None = None
        self._passed_up: Any = None  # the discard (and hand) whose passed-up gin was said
        self._view_key: Any = None
        self._view: TableView | None = None

    def refresh(self) -> None:
        self._view_key = None
        if self.app is not None and self.running:
            self.app.invalidate()

    # -- the view -------------------------------------------------------------------
    def _names(self) -> tuple[str, str]:
        assert self.seat is not None
        return self.seat.own_names

    def view(self) -> TableView | None:
        """The table now (cached until the next change; the clock is re-read)."""
        if self.seat is None:
            return None
        s = situation(self.seat)
        key = (self.seat.placed, s.my_turn, s.claimable, s.link, s.over, s.owed)
        if self._view is None or key != self._view_key:
            self._view = build_view(s)
            self._view_key = key
            self._keep_selection(self._view)
        return replace(self._view, waited=s.waited, latency=s.latency)

    def _keep_selection(self, v: TableView) -> None:
        if self.selected in v.hand:
            return
        if self._drawn in v.hand:
            self.selected = self._drawn
        else:
            self.selected = v.hand[-1] if v.hand else None

    def cards_for(self, verb: str) -> list[Card]:
        """The cards that complete a command (its name, or a letter or start of it):
        knock/gin only offer discards that work."""
        v = self.view()
        named = lookup(verb)
        if v is None or named is None or named.arg != "CARD":
            return []
        if named.name == "knock":
            return [k.discard for k in v.knocks if not k.gin and k.discard is not None]
        if named.name == "gin":
            return [k.discard for k in v.knocks if k.gin and k.discard is not None]
        return list(v.hand)

    def _rules(self) -> RuleSet | None:
        assert self.seat is not None
        m = self.seat.match
        return m.rules if m is not None else None

    def rules_known(self) -> RuleSet | None:
        """The rules being played, once known (before the seat is given: None)."""
        return self._rules() if self.seat is not None else None

    # -- intents (what a key means) -----------------------------------------------------
    def open_help(self) -> None:
        """``?``, ``h`` or F1: the rules being played, the keys, the commands."""
        self.show_help = True

    def ask_claim(self) -> None:
        """A claim ends the match, so one key asks first, as a resignation does; why it
        cannot be made now is said on the message line, not added to the log."""
        assert self.seat is not None
        if (why := no_claim_words(self.seat)) is not None:
            self.message = ("class:warn", why)
            return

        def claim() -> None:  # the other player may have moved while we were asked
            assert self.seat is not None
            if (why := no_claim_words(self.seat)) is not None:
                self.message = ("class:warn", why)
            else:
                self._submit(ClaimCmd())

        self.confirm = (f"claim the match? {self.seat.opponent_name} forfeits it", claim)

    def _submit(self, cmd: Command) -> None:
        assert self.seat is not None
        self.seat.submit(cmd)

    def typed(self, text: str) -> bool:
        """Run one command as typed on the line prompt; False (and a message) if it is
        not a move now."""
        assert self.seat is not None
        try:
            cmd = parse_command(text, self.seat)
        except CommandError as exc:
            self.message = ("class:error", str(exc))
            return False
        except Exception as exc:  # never a crash on typed input
            self.message = ("class:error", f"cannot do that now ({type(exc).__name__}: {exc})")
            return False
        if cmd == "help":
            self.show_help = True
        elif cmd == "look":
            self.message = ("", "the table is on screen")
        elif isinstance(cmd, QuitCmd):
            self.ask_leave()
        elif isinstance(cmd, ResignCmd):
            self.confirm = ("resign? you lose the match", lambda: self._submit(cmd))
        elif isinstance(cmd, ClaimCmd):
            self.ask_claim()
        else:
            assert not isinstance(cmd, str)
            self._submit(cmd)
            if isinstance(cmd, Act):
                self.draft = None
        return True

    def move(self, step: int) -> None:
        v = self.view()
        if v is None or not v.hand:
            return
        if self.selected not in v.hand:
            self.selected = v.hand[0]
            return
        i = v.hand.index(self.selected)
        self.selected = v.hand[(i + step) % len(v.hand)]

    def discard(self) -> None:
        v = self.view()
        if v is not None and v.phase == "wall" and v.my_turn:  # what the wall allows instead
            self.message = ("class:error", f"no discard at {v.turn}")
            return
        if self.selected is None:
            self.message = ("class:error", "no card chosen (←/→)")
            return
        better = self._better_than_discard(v)
        if better and self._passed_up != (self.selected, v.hand if v else None):
            # a gin (or rumino) is never worth throwing away by a slip of Enter
            self._passed_up = (self.selected, v.hand if v else None)
            self.message = ("class:warn", f"{better}; Enter again discards "
                            f"{self.look.name(self.selected)} and plays on")  # fmt: skip
            return
        self.typed(f"discard {self.selected.label}")

    @staticmethod
    def _better_than_discard(v: TableView | None) -> str:
        """What a plain discard would pass up, in words ("" if nothing): rumino, which
        wins the match, or a gin."""
        if v is None or not v.my_turn:
            return ""
        if v.rumino is not None:
            return "you have rumino: g declares it and wins the match"
        if v.big_gin is not None:
            return "you have big gin: g goes big gin"
        if any(k.gin for k in v.knocks):
            return "you have gin: g goes gin"
        return ""

    def knock(self) -> None:
        """``k``: propose a knock discarding the chosen card, or, if it cannot knock, the
        knock the hint row names (the least deadwood); the proposal waits for Enter."""
        v = self.view()
        if v is None or not v.my_turn:
            self.typed("knock")  # explains whose move it is
            return
        if v.phase == "draw":  # rumino's knock instead of drawing, or why not
            knocks = [k for k in v.knocks if k.discard is None]
            if knocks:
                self._propose(knocks[0].action)
            else:
                self.typed("knock")
            return
        options = {k.discard: k for k in v.knocks if not k.gin}
        chosen = options.get(self.selected)
        if chosen is None and options:
            chosen = min(options.values(), key=lambda k: k.deadwood)
            self.selected = chosen.discard
        if chosen is None:
            gins = [k for k in v.knocks if k.gin]
            if gins:
                self.message = ("class:error", "better than a knock: g goes gin")
                return
            self.typed(f"knock {self.selected.label}" if self.selected else "knock")
            return
        self._propose(chosen.action)

    def gin(self) -> None:
        v = self.view()
        if v is None or not v.my_turn:
            self.typed("gin")
            return
        gins = {k.discard: k for k in v.knocks if k.gin}
        if v.rumino is not None:  # wins the match: nothing to lay out
            self.typed(f"rumino {v.rumino.discard.label}")
        elif gins:
            chosen = gins.get(self.selected) or next(iter(gins.values()))
            self._propose(chosen.action)
        elif v.big_gin is not None:
            self._propose(v.big_gin)
        elif v.phase in ("draw", "first_upcard"):
            self.message = ("class:error", "draw first: gin comes after the draw, when every "
                            "card but your discard is in a meld")  # fmt: skip
        else:
            self.message = ("class:error", "no gin: every card but the discard must be in a meld")

    def _propose(self, action: Action) -> None:
        assert self.seat is not None
        view = self.seat.hand()
        if view is None:
            return
        self.draft = draft_from(action, view)

    def _sync_draft(self) -> None:
        """Open the showdown proposal when it is your turn to show; drop a stale one."""
        assert self.seat is not None
        seat = self.seat
        view = seat.hand()
        if view is None or not seat.my_turn:
            self.draft = None
            return
        if view.phase is Phase.SHOW and (self.draft is None or self.draft.kind != "show"):
            legal = seat.legal_actions()
            if legal:
                self.draft = draft_from(legal[0], view)
        elif view.phase is not Phase.SHOW and self.draft is not None and self.draft.kind == "show":
            self.draft = None

    def edit_draft(self) -> None:
        """``e``: lay the melds (and layoffs) from nothing, each candidate with a key of
        its own for the whole edit."""
        rules = self._rules()
        if self.draft is None or rules is None:
            return
        self._proposal = self.draft
        self._asked = None
        self.draft = self.draft.edit(rules)

    def send_draft(self) -> None:
        """Enter on a proposal: send it, unless the engine would refuse it (then say
        why, and keep it open to mend). Melds laid by hand that leave more deadwood
        than the proposal are sent by a second Enter: a key slip costs no points."""
        rules = self._rules()
        if self.draft is None or rules is None:
            return
        why = self.draft.problem(rules)
        if why is not None:
            self.message = ("class:error", why)
            return
        action = self.draft.action()
        worse = self._worse_than_proposal(rules)
        if worse and self._asked != action:
            self._asked = action
            self.message = ("class:warn", worse)
            return
        self._submit(Act(action))
        self.draft = None

    def _worse_than_proposal(self, rules: RuleSet) -> str:
        """The question before sending melds laid by hand that leave more deadwood than
        the proposal they replace ("" if they leave no more)."""
        d, proposal = self.draft, self._proposal
        if d is None or proposal is None or not d.editing:
            return ""
        mine, best = d.deadwood(rules), proposal.deadwood(rules)
        if mine <= best:
            return ""  # one row at 80 columns: a second would hide the list's last
        return (f"this leaves deadwood {mine}, the proposal {best}: Enter again sends it, "
                "Esc goes back")  # fmt: skip

    def choose(self, index: int) -> None:
        """A candidate's key: lay it, or say why it cannot be laid now."""
        rules = self._rules()
        if self.draft is None or rules is None:
            return
        keyed = self.draft.keyed
        if index >= len(keyed):
            self.message = ("class:error", f"no choice has the key {CHOICE_KEYS[index]}")
            return
        ch = self.draft.now(keyed[index], rules)
        if ch is None:
            why = self.draft.why_not(keyed[index], rules)
            self.message = ("class:error", f"{CHOICE_KEYS[index]}) not now: {why}")
            return
        self.draft = self.draft.pick(ch, rules)
        self.message = ("", "")

    def rekey(self) -> None:
        """Tab: keys for the candidates past the last key, asked for, so never a surprise."""
        rules = self._rules()
        if self.draft is None or rules is None:
            return
        if not self.draft.unkeyed(rules, len(CHOICE_KEYS)):
            self.message = ("", "every candidate has a key")
            return
        self.draft = self.draft.rekey(rules)
        self.message = ("class:warn", "new keys: what can be laid now is numbered afresh")

    def undo_choice(self) -> None:
        if self.draft is not None:
            self.draft = self.draft.undo()

    def cancel_edit(self) -> None:
        """Back to the proposal the edit started from (Esc on it again leaves a knock)."""
        self.draft, self._proposal = self._proposal, None
        if self.draft is None:
            self._sync_draft()

    def ask_leave(self) -> None:
        """Ctrl-C: leave at once when the match is over, else ask first."""
        if self.final is not None or self.result is not None:
            self.leave_when_over()
            return
        text = (
            leave_question(self.seat, terse=True)
            if self.seat is not None
            else "leave the game? it is saved, and `ginp2p resume` continues it"
        )
        self.confirm = (text, self._leave_now)

    def _leave_now(self) -> None:
        self.leaving = True
        self._submit(QuitCmd())

    def leave_when_over(self) -> None:
        if self.result is not None:
            if self.app is not None:
                self.app.exit()
            return
        self.leaving = True
        self._submit(QuitCmd())
