"""Who makes a side's moves: the :class:`Player` a session asks, the computer
(:class:`BotPlayer`) and a person at a line prompt (:class:`LinePlayer`), with what the
line prompt shows people (the table, a hand's showdown, the match's score sheet, the
question before leaving). The full-screen table (:mod:`ginp2p.console.tui.table`) is the third
player.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import signal
import sys
import textwrap
import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Protocol

from ginp2p.game.engine import Phase
from ginp2p.present.commands import (
    LOOK_WORDS,
    MOVE_VERBS,
    QUIT_WORDS,
    RULES_ANSWERS,
    Act,
    ClaimCmd,
    Command,
    CommandError,
    QuitCmd,
    ResignCmd,
    RulesCmd,
    RulesOffered,
    help_text,
    hint,
    parse_command,
)
from ginp2p.present.words import goal_words
from ginp2p.proto.protocol import Waiting
from ginp2p.proto.table import OWED_GUEST_HELLO, OWED_HOST_HELLO, HandScored, MatchOver, moves_since

if TYPE_CHECKING:
    from ginp2p.app.session import Session

__all__ = [
    "BotPlayer",
    "LinePlayer",
]


def cards_text(cards: Any) -> str:
    return " ".join(c.pretty() for c in cards if c is not None) or "-"


class Player(Protocol):
    """Who makes this side's moves. The session calls ``next_command`` after every
    change (a bot answers at once), ``event`` for what happened, and runs ``run`` as a
    task for the whole game (a person's input). ``keys_ctrl_c``: a prompt_toolkit
    screen reads Ctrl-C as a key of its own (it asks first), so the session does not
    catch the signal (the line prompt catches it itself, between two prompts).
    ``stays_at_the_end``: the player's screen stays up after the match until they leave
    (the table), so a claim of theirs still on its way can be delivered meanwhile."""

    verbose: bool
    stays_at_the_end: bool

    @property
    def keys_ctrl_c(self) -> bool: ...

    def next_command(self, session: Session) -> Command | None: ...

    def event(self, session: Session, what: Any) -> None: ...

    async def run(self, session: Session) -> None: ...


class BotPlayer:
    """The computer player: plays when it is its turn, claims once it may (in a game
    with claims: not in ``play``, where nobody else waits and a person may take all day)."""

    keys_ctrl_c = False
    stays_at_the_end = False

    def __init__(self, verbose: bool = False) -> None:
        self.verbose = verbose

    def next_command(self, session: Session) -> Command | None:
        from ginp2p.game import bot

        p = session.proto
        if session.finishing or session.settling:
            return None
        if p.my_turn:
            view = p.view()
            if view is not None:
                return Act(bot.choose(view, p.me))
        if session.claims and session.may_claim():
            return ClaimCmd()
        return None

    def event(self, session: Session, what: Any) -> None:
        text = session.describe(what, terse=not self.verbose)
        if text:
            session.say(text)

    async def run(self, session: Session) -> None:
        return None


class LinePlayer:
    """A person at a plain line prompt (prompt_toolkit when on a terminal)."""

    stays_at_the_end = False  # the prompt ends with the match

    def __init__(self, verbose: bool = True, stdin: Any = None) -> None:
        self.verbose = verbose
        self.stdin = stdin
        self._shown: Any = None
        self._claim_told = False
        self._late_told = False
        self._recapped = False  # a resumed game's moves since ours, said once
        self.asking = False  # Ctrl-C asked "leave the game?" and the answer is due

    @property
    def keys_ctrl_c(self) -> bool:
        return self._at_terminal()

    def _at_terminal(self) -> bool:
        stdin = self.stdin or sys.stdin
        return stdin is sys.stdin and stdin is not None and stdin.isatty()

    def next_command(self, session: Session) -> Command | None:
        p = session.proto
        m = p.table.match
        if not self._recapped:
            self._recapped = True
            if session.away_since is not None:  # a resumed game
                self.recap(session)
        # the table again after every move (not for a chat line)
        turn = (m.hand_no, len(m.hand.moves)) if p.my_turn and m and m.hand else None
        if turn is not None and turn != self._shown:
            self._shown = turn
            self.look(session)
        claimable = session.may_claim()
        if claimable and not self._claim_told:
            session.say(f"{session.opponent_name} has not answered for {p.table.claim_timeout} s: "
                        "type `claim` to win the match by forfeit")  # fmt: skip
        self._claim_told = claimable
        wait = session.my_wait()
        late = wait is not None and wait >= p.table.claim_timeout / 2
        if wait is not None and late and not self._late_told:
            left = p.table.claim_timeout - wait  # none after a resume that came late
            when = f"in {left:.0f} s" if left >= 1 else "now"
            session.say(f"you have had this move for {wait:.0f} s: {when} "
                        f"{session.opponent_name} may claim the match")  # fmt: skip
        self._late_told = late
        return None

    def event(self, session: Session, what: Any) -> None:
        if isinstance(what, RulesOffered):
            session.say(f"the host's rules: {what.text()}")
            session.say("play by these rules? type yes or no")
            return
        if isinstance(what, Waiting) and not what.what.startswith(DECISIONS):
            if not session.link_up:  # (`stock` typed while they are away: silence)
                session.say(f"waiting for {session.opponent_name}: {what.what} (they are "
                            "away: reconnecting…)")  # fmt: skip
            return  # the shuffle's steps: a screen reader would read nothing else
        if isinstance(what, MatchOver) and session.proto.table.match is not None:
            session.say(session.match_line(what, totals=False))  # the sheet ends in them
            session.say(match_text(session, session.proto.table.match))
            return
        text = session.describe(what, terse=False)
        if text:
            session.say(text)
        if isinstance(what, HandScored):
            session.say(showdown_text(session, what))

    def recap(self, session: Session) -> None:
        """A resumed game: the moves of this hand since our own last one, in words. They
        may have come just before we left, or while we were away; the table they left
        is in `look`, but not how it came about."""
        p = session.proto
        m = p.table.match
        if m is None or m.over:
            return
        since, ours = moves_since(p.table.events, p.me)
        said = [session.describe(e, terse=False) for e in since]
        if said:
            where = "since your last move" if ours else f"in hand {m.hand_no} so far"
            session.say(f"{where}: " + "; ".join(t for t in said if t))

    def look(self, session: Session) -> None:
        p = session.proto
        view = p.view()
        m = p.table.match
        if view is None or m is None:
            session.say(session.status())
            return
        from ginp2p.game.cards import card_order
        from ginp2p.present.view import (
            declared,
            draft_from,
            knock_options,
            meld_order,
            sort_hand,
            wall_line,
        )

        names = session.names
        me = p.me
        mine = [c for c in view.cards(me) if c is not None]
        pile = view.pile_cards()
        top = pile[-1].pretty() if pile and pile[-1] is not None else "-"
        session.say(
            f"hand {m.hand_no} · {names[me]} {m.scores[me]}, {names[1 - me]} {m.scores[1 - me]}"
            f" ({goal_words(m.rules)}) · stock {view.stock_left} · pile {top} "
            f"({len(pile)})"
        )  # fmt: skip
        if len(pile) > 1:  # what the table shows beside the top: what was let go before
            session.say("under it: " + cards_text(reversed(pile[:-1])))
        opp = p.opponent
        if (theirs := view.declarations[opp]) is not None:
            session.say(f"{names[opp]} laid down: {_shown_text(declared(theirs))}")
        groups, dead = sort_hand(mine, view.rules)
        session.say(f"your cards: {_grouped(groups, dead)}")
        if not p.my_turn:
            session.say(session.status())
            return
        legal = p.legal_actions()
        knocks, big = knock_options(view, legal)
        if view.phase is Phase.WALL and view.upcard is not None:  # as the table's turn line
            # the upcard is not in "your cards": the wall's knock takes it first
            session.say(wall_line(view.upcard.pretty(), knocks, keys=False))
        ways = [f"{'gin' if k.gin else 'knock'} {k.discard.pretty()} (deadwood {k.deadwood})"
                for k in knocks if k.discard is not None]  # fmt: skip
        ways += ["knock (no discard)"] * any(k.discard is None for k in knocks)
        ways += ["gin (big gin, all eleven cards)"] * (big is not None)
        if ways:
            session.say(f"you may end the hand: {', '.join(ways)}")
        for a in legal:
            if a.kind == "show":  # the proposal `show` sends
                d = draft_from(a, view)
                laid = f", lay off {cards_text(x.card for x in d.layoffs)}" if d.layoffs else ""
                melded = " ".join(f"[{cards_text(meld_order(m))}]" for m in d.melds) or "no melds"
                left = sorted(d.left(), key=card_order)
                session.say(f"`show` lays down {melded}{laid}, deadwood {cards_text(left)} = "
                            f"{d.deadwood(view.rules)}")  # fmt: skip
        session.say(f"your move: {hint(legal)}")

    async def run(self, session: Session) -> None:
        if self._at_terminal():
            await self._run_prompt(session)
        else:
            await self._run_lines(session, self.stdin or sys.stdin)

    async def _run_prompt(self, session: Session) -> None:
        from prompt_toolkit import PromptSession
        from prompt_toolkit.patch_stdout import patch_stdout

        ps: PromptSession[str] = PromptSession()
        with patch_stdout(), _sigint_calls(lambda: self._signalled(ps)):
            while True:
                try:
                    if self._sigint_due:  # a Ctrl-C came as the last prompt closed
                        raise KeyboardInterrupt
                    line = await ps.prompt_async("leave? y/n> " if self.asking else "ginp2p> ",
                                                 handle_sigint=False)  # fmt: skip
                except EOFError:  # Ctrl-D: leaving, asked first in a live game as Ctrl-C is
                    if self.interrupted(session):
                        return
                    continue
                except KeyboardInterrupt:
                    self._sigint_due = False
                    if self.interrupted(session):
                        return
                    continue
                if isinstance(self._line(session, line), QuitCmd):
                    return  # no prompt after leaving

    _sigint_due = False  # a Ctrl-C to ask about once the closing prompt's line is done

    def _signalled(self, ps: Any) -> None:
        """SIGINT for the whole game: a Ctrl-C typed while no prompt reads the keys (a
        line just entered, the next prompt not yet up) is a signal, and the default
        ended the process (exit 130) without telling the other player. It is the
        prompt's own Ctrl-C instead: it asks."""
        app = ps.app
        if app.future is not None and not app.future.done():
            app.exit(exception=KeyboardInterrupt(), style="class:aborting")
        else:  # the prompt is closing: its line first, then the question
            self._sigint_due = True

    def interrupted(self, session: Session) -> bool:
        """Ctrl-C at the prompt: ask first, as the table does, since one stray key must
        not end a live game; a second Ctrl-C at the question leaves (a way out that
        needs no reading). True if it left."""
        if self.asking:
            self.asking = False
            session.submit(QuitCmd())
            return True
        return self._ask_leave(session)

    def _ask_leave(self, session: Session) -> bool:
        """Ask "leave the game?" (Ctrl-C, and `quit` at a terminal, as the table's
        `:quit` does); once the match is over nothing is lost: leave at once. True if it
        left."""
        p = session.proto
        if session.result is not None or session.finishing is not None or p.finished:
            session.submit(QuitCmd())
            return True
        self.asking = True
        width = max(40, shutil.get_terminal_size().columns - 1)  # wrapped between words
        session.say(f"{textwrap.fill(leave_question(session), width)}\n"
                    "type y to leave, n to stay (Ctrl-C again leaves)")  # fmt: skip
        return False

    def _answer_leave(self, session: Session, line: str) -> Command | None:
        """The answer to Ctrl-C's question: y leaves, n stays, anything else asks again."""
        answer = line.strip().lower()
        if answer in ("y", "yes"):
            self.asking = False
            session.submit(QuitCmd())
            return QuitCmd()
        if answer in ("n", "no"):
            self.asking = False
            session.say("you stay in the game")
            return None
        session.say("? type y to leave the game, or n to stay")
        return None

    async def _run_lines(self, session: Session, stdin: Any) -> None:
        """Lines from a pipe: a daemon thread reads (it never blocks the exit)."""
        loop = asyncio.get_running_loop()
        lines: asyncio.Queue[str | None] = asyncio.Queue()

        def reader() -> None:
            for line in stdin:
                loop.call_soon_threadsafe(lines.put_nowait, line)
            loop.call_soon_threadsafe(lines.put_nowait, None)

        threading.Thread(target=reader, daemon=True, name="ginp2p-stdin").start()
        while (line := await lines.get()) is not None:
            words = line.split()
            if words:  # a script's lines wait for the table they were written for
                await _settled(session, words[0].lower())
            self._line(session, line)
        session.submit(QuitCmd())

    def _line(self, session: Session, line: str) -> Command | None:
        """Do what a typed line says; the command it submitted, if any."""
        if self.asking:
            return self._answer_leave(session, line)
        if not line.strip():
            return None
        answer = line.strip().lower()
        if session.rules_pending is not None:
            if answer in RULES_ANSWERS:
                session.submit(RulesCmd(answer.startswith("y")))
            else:
                session.say("? type yes to play by the host's rules, or no to leave")
            return None
        if answer in RULES_ANSWERS and session.rules_due:  # typed before they were shown
            session.say("? the host's rules have not come yet: answer yes or no once they "
                        "are shown")  # fmt: skip
            return None
        try:
            cmd = parse_command(line, session.proto)
        except CommandError as exc:
            session.say(f"? {exc}")
            return None
        except Exception as exc:  # never a crash on typed input
            session.say(f"? cannot do that now ({type(exc).__name__}: {exc})")
            return None
        if isinstance(cmd, ResignCmd):  # one mistyped line must not lose the match
            words = line.split()
            if len(words) < 2 or words[1].lower() != "yes":
                session.say(f"? resigning ends the match and {session.opponent_name} wins it; "
                            "type `resign yes` to resign")  # fmt: skip
                return None
            cmd = ResignCmd(" ".join(words[2:]))
        if isinstance(cmd, QuitCmd) and self._at_terminal():  # a pipe never waits for y
            return cmd if self._ask_leave(session) else None
        if cmd == "help":
            session.say(help_text(session.proto.table.rules, self._at_terminal()))
        elif cmd == "look":
            self.look(session)
        else:
            assert not isinstance(cmd, str)
            session.submit(cmd)
            return cmd
        return None


def leave_question(session: Session, terse: bool = False) -> str:
    """What Ctrl-C asks before leaving a live game, the same on the table (``terse``:
    one row of 80 columns) and at the line prompt: what is kept, and what the other
    player may do meanwhile."""
    if not session.begun:  # a guest at the rules question: its files are removed
        return "leave? nothing has been played yet, so nothing is kept"
    away = session.away_words(terse=terse)
    if terse and away:
        return f"leave? saved for `ginp2p resume`{away}"
    return f"leave the game? it is saved, and `ginp2p resume` continues it{away}"


DECISIONS = ("a move", "a show", OWED_HOST_HELLO, OWED_GUEST_HELLO)
"""What the other player owes that is theirs to decide (the rest the program does)."""


async def _settled(session: Session, verb: str) -> None:
    """Until the table is settled for a script's line that begins with ``verb``: every
    command sent is done and nothing automatic is pending (a stock card's key, a shuffle
    step); for a move, until it is this player's move; for a yes or no, until the host's
    rules are asked, if they are still to come (a script cannot wait to read them); for
    a look, until there are cards to look at. Or until the match is over. A script's
    line is then judged against the table it was written for. A quit waits only for the
    commands before it: what the other side owes may never come (it may be gone)."""
    p = session.proto
    move = verb in MOVE_VERBS

    def ready() -> bool:
        if session.result is not None or session.finishing is not None or p.finished:
            return True
        if verb in QUIT_WORDS:
            return not session.busy
        if verb in RULES_ANSWERS and session.rules_due:
            return False
        if verb in LOOK_WORDS and p.view() is None:  # before the deal: only a status
            return False
        if session.busy:
            return False
        if p.my_turn or move:
            return p.my_turn
        owed = p.table.owes(p.opponent)
        return owed is None or owed.what.startswith(DECISIONS)

    while not ready():
        await asyncio.sleep(0.02)


def _grouped(groups: Any, dead: int) -> str:
    """``[3♠ 4♠ 5♠] [9♥ 9♦ 9♣] deadwood A♠ 2♣ = 3``; ``... gin`` when no card is loose."""
    melded = " ".join(f"[{cards_text(g.cards)}]" for g in groups if g.meld)
    loose = [g for g in groups if not g.meld]
    tail = f"deadwood {cards_text(loose[0].cards)} = {dead}" if loose else "gin"
    return f"{melded} {tail}".strip()


def _shown_text(shown: Any) -> str:
    if shown is None:
        return "nothing shown"
    parts = [" ".join(f"[{cards_text(m)}]" for m in shown.melds) or "no melds"]
    if shown.layoffs:
        parts.append(f"laid off {cards_text(shown.layoffs)}")
    parts.append(f"deadwood {cards_text(shown.deadwood_cards)} = {shown.deadwood}"
                 if shown.deadwood_cards else "no deadwood")  # fmt: skip
    return ", ".join(parts)


def showdown_text(session: Session, what: HandScored) -> str:
    """Both hands as they were laid down and how the points were made up (what the
    table's hand summary shows)."""
    from ginp2p.present.view import hand_summary

    p = session.proto
    m = p.table.match
    assert m is not None
    summary = hand_summary(what.hand, what.result, what.scores, p.me, seat_names(session),
                           m.rules)  # fmt: skip
    names = session.names
    lines = [f"  {names[seat]}: {_shown_text(summary.seats[i].shown)}"
             for i, seat in enumerate((p.me, p.opponent))]  # fmt: skip
    lines += [f"  {reason}" for reason in summary.reasons]
    return "\n".join(lines)


def match_text(session: Session, m: Any) -> str:
    """The match's score sheet: each hand's points, the bonuses, the totals (the lead
    is in the MATCH OVER line above it)."""
    from ginp2p.present.view import match_summary

    s = match_summary(m, session.proto.me, seat_names(session))
    lines = [f"hand {n}: {what}: you {a}, {s.names[1]} {b}" for n, what, a, b in s.hands]
    return "\n".join("  " + line for line in [*lines, *s.sum_lines("you", lead=False)[1:]])


def seat_names(session: Session) -> tuple[str, str]:
    """Both players' own names (not "you"); ours is known before our hello is in the
    log, a pinned player's too."""
    p = session.proto
    n = list(p.table.names)
    n[p.me] = p.name or n[p.me]  # our hello says just this
    n[p.opponent] = session.opponent_name
    return n[0], n[1]


@contextlib.contextmanager
def _sigint_calls(callback: Callable[[], None]) -> Iterator[None]:
    """SIGINT calls ``callback`` on the running loop within the block, where a signal
    can be caught (not on Windows, nor off the main thread); then the handler before."""
    loop, before = asyncio.get_running_loop(), signal.getsignal(signal.SIGINT)
    try:
        loop.add_signal_handler(signal.SIGINT, callback)
    except (NotImplementedError, RuntimeError, ValueError):
        yield
        return
    try:
        yield
    finally:
        loop.remove_signal_handler(signal.SIGINT)
        if before is not None:
            signal.signal(signal.SIGINT, before)
