"""One player's game over the network: a :class:`~ginp2p.proto.protocol.PeerProtocol` driven
by asyncio, with real files and an endpoint (:mod:`ginp2p.net.endpoint`).

The protocol decides everything; this module carries out its outputs *in order*
(``Save`` → ``LogFile.append`` with fsync before anything after it, ``SaveSeeds`` and
``SaveAnswer`` → the secrets file, ``Send`` → the endpoint), feeds it the peer's
entries and the clock, and asks a player — the bot or a person at a line prompt —
for moves. The link (:class:`~ginp2p.proto.link.Link`) says what to tell the other
peer besides entries: it resyncs on every (re)connect (``have``, then the missing tail
one entry per message). A peer killed at any moment restarts from its three files and
rejoins the game where it was (``ginp2p resume FILE``).

Files of one game, side by side in the games folder:

``NAME.ginlog``   every entry, sent or received (docs/log.md §7); its lock makes the
                  game one process's.
``NAME.secrets``  this player's seeds and answered challenges (docs/log.md §8).
``NAME.peer``     the sidecar (:class:`PeerFile`): JSON with what the files cannot
                  say — this player's role, the opponent's key, where to connect or
                  listen, and the host's rules and parameters.

The session is built of parts (:mod:`ginp2p.app.core`): the connection
(:mod:`ginp2p.app.connection`), the end of the match (:mod:`ginp2p.app.ending`) and,
here, the actor loop, the player's commands and the clock.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import signal

from ginp2p.app.config import SessionResult
from ginp2p.app.connection import ConnectionSide
from ginp2p.app.core import STALL_S, Poke, QueueItem, Tick, pin_title
from ginp2p.app.ending import MatchEnding
from ginp2p.app.players import BotPlayer
from ginp2p.app.pregame import no_answer_words
from ginp2p.app.process import catch_stop_signals, release_stop_signals
from ginp2p.app.seat import SessionSeat
from ginp2p.game import engine
from ginp2p.game.rules import RuleSet
from ginp2p.net.endpoint import (
    BadFrame,
    ConnectRefused,
    LinkDown,
    LinkUp,
    Received,
    Rejected,
)
from ginp2p.net.transport import MAX_BACKLOG
from ginp2p.present.commands import (
    SHORT_CLAIM_TIMEOUT,
    Act,
    ChatCmd,
    ClaimCmd,
    Command,
    QuitCmd,
    ResignCmd,
    RulesCmd,
    RulesOffered,
    StopCmd,
)
from ginp2p.present.seat_words import away_words, no_claim_words
from ginp2p.present.words import preset_words, setting_value
from ginp2p.proto.entry import GUEST
from ginp2p.proto.events import LocalProtocolError
from ginp2p.proto.frames import ByeFrame, EntryFrame
from ginp2p.proto.link import PAUSE_REASON, Quiet, SendFrame
from ginp2p.proto.log import ANOTHER_GAME, LogError
from ginp2p.proto.outputs import (
    Dropped,
    Output,
    Refused,
    Save,
    SaveAnswer,
    SaveSeeds,
    Send,
    Waiting,
)
from ginp2p.proto.text import for_screen

__all__ = [
    "Session",
    "insisted_words",
]


def insisted_words(host: RuleSet, wanted: RuleSet) -> str:
    """How the host's rules differ from those a guest insisted on (``--preset``,
    ``--set``): "the host plays game_target=100 (the guest asked for 50)"."""
    if host.name != wanted.name:
        return f"the host plays preset {host.name} (the guest asked for {wanted.name})"
    diff = [f"{k}={setting_value(v)} (the guest asked for {setting_value(getattr(wanted, k))})"
            for k, v in host.changes(wanted).items()]  # fmt: skip
    return "the host plays " + ", ".join(diff) if diff else "they differ"


class Session(ConnectionSide, MatchEnding):
    """Drives one PeerProtocol over one endpoint until the match is over.

    One task (the actor) takes items off a queue — network events, clock ticks, the
    player's commands — and handles each to completion, so the protocol's outputs are
    carried out strictly in order. Sends never block (a message that cannot go now is
    recovered by the next resync).

    Its parameters are :class:`~ginp2p.app.core.SessionCore`'s.
    """

    _started = 0.0  # when the run began
    _hello_seen = False  # the opponent's hello, passed on to ``on_hello``
    _own_sends = 0  # our entries sent, for the crash test hook
    _bot_errors = 0  # the computer's moves refused
    _submitted = _done = 0  # the player's commands, for `busy`
    _net_queued = 0  # network events in ``queue``
    _last_item: float | None = None  # when the last item was done

    @functools.cached_property
    def seat(self) -> SessionSeat:
        """What the player reads of the game and does in it (it never gets the session)."""
        return SessionSeat(self, person=not isinstance(self.player, BotPlayer))

    # -- the host's rules (guest) ------------------------------------------------------
    def accept_rules_cb(self, rules: RuleSet) -> bool | str:
        """PeerProtocol's ``accept_rules``: yes if accepted; why not, where they are not
        the rules the player insisted on; else the rules wait for the player
        (``rules_pending``) and the protocol holds the guest's hello back."""
        if self.expect_rules is not None and rules != self.expect_rules:
            self._rules_declined = True
            return insisted_words(rules, self.expect_rules)
        if rules == self._rules_answered:  # the player said yes to these, when asked
            return True
        offer = RulesOffered(rules, self.proto.table.claim_timeout)
        person = not isinstance(self.player, BotPlayer)
        if self.rules_ok and not (person and offer.claim_timeout < SHORT_CLAIM_TIMEOUT):
            if not self._rules_told:
                self._rules_told = True
                self.say(f"the host's rules: {offer.text()}")
            return True
        self.rules_pending = rules
        return False

    async def _decide_rules(self, accept: bool) -> None:
        p = self.proto
        if self.rules_pending is None:
            return
        rules, self.rules_pending = self.rules_pending, None
        if not accept:
            await self._send(ByeFrame("the guest declined the rules"))
            self._end(1, "declined", f"you declined the host's rules ({preset_words(rules)})")
            return
        self.rules_ok = True
        self._rules_answered = rules
        self._rules_told = True  # the question showed them
        p.refused = None
        await self._carry(p.start(self.now()))

    # -- for players and the UI ---------------------------------------------------------
    def submit(self, cmd: Command) -> None:
        """A command from the player (any task, same loop)."""
        self._submitted += 1
        self.queue.put_nowait(cmd)

    @property
    def busy(self) -> bool:
        """Whether a command the player submitted is not done yet."""
        return self._done < self._submitted

    def my_wait(self) -> float | None:
        """How long our player has owed a move, when the other side may claim for it."""
        p = self.proto
        if not self.claims or not p.my_turn or self.finishing is not None:
            return None
        return p.owing_for(self.now())

    @property
    def rules_due(self) -> bool:
        """A guest before the host's rules: neither asked about them nor begun (the
        rules may yet be accepted unasked, with ``--yes``)."""
        return self.proto.me == GUEST and not self.begun and not self._rules_asked

    @property
    def rules_shown(self) -> bool:
        """The player has seen the host's rules: told them, or asked about them."""
        return self._rules_told or self._rules_answered is not None

    def may_claim(self) -> bool:
        """The opponent owes an entry past the claim timeout (and the game exists)."""
        p = self.proto
        return (p.log.game is not None and self.finishing is None and not self.settling
                and p.claimable(self.now()) is not None)  # fmt: skip

    # -- running -------------------------------------------------------------------------
    async def run(self) -> SessionResult:
        """Play until the match is over (both logs equal, or the linger ran out), the
        player quits, or a fatal error (refused, version mismatch, host unreachable)."""
        self._started = self.now()
        self.link.start(self._started)
        if self.away_since is not None and not self.proto.finished:
            # Resumed: the player was away since the files were last written, as after a
            # freeze. What it owes is owed from then, and a claim made meanwhile is read
            # before the computer moves (``settling``): else its first move, not acking
            # the claim it had not yet heard, would beat a claim rightly made. (Not when
            # its files said the match was over: see PeerProtocol.away.)
            self.proto.away(self.now() - max(0.0, self.wall_clock() - self.away_since))
            self._woke = self.now()
        tasks = [asyncio.ensure_future(self._pump()), asyncio.ensure_future(self._ticker()),
                 asyncio.ensure_future(self.player.run(self.seat))]  # fmt: skip
        caught = catch_stop_signals(self.submit, sigint=not self.player.keys_ctrl_c)
        try:
            await self._carry(self.proto.start(self.now()))
            await self._after()
            while self.result is None:
                item = await self.queue.get()
                await self._notice_stall()
                await self._process(item)
                if self.result is None:
                    await self._after()
                self._last_item = self.now()
        finally:
            release_stop_signals(caught)
            for t in tasks:
                t.cancel()
            for t in tasks:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await t
        return self.result

    async def _pump(self) -> None:
        """Network events into the game's queue, at most MAX_BACKLOG at a time: a flood
        waits in the network (see net.MAX_BACKLOG), and a key pressed meanwhile comes
        after a bounded wait."""
        while True:
            while self._net_queued >= MAX_BACKLOG:
                await asyncio.sleep(0.005)
            self.queue.put_nowait(await self.endpoint.recv())
            self._net_queued += 1

    async def _ticker(self) -> None:
        while True:
            await asyncio.sleep(self.tick_s)
            self.queue.put_nowait(Tick())

    async def _notice_stall(self) -> None:
        """Items come at least every tick; a longer wait since the last one was done
        means this process was frozen. What the other side sent meanwhile may still
        wait unread: ask it for everything (a ``have``) and hold moves and claims until
        it answers (see ``settling``)."""
        now = self.now()
        if self._last_item is not None and now - self._last_item > self.tick_s + STALL_S:
            self._woke = now
            self.proto.away(self._last_item)
            if self.link_up:
                await self._ask()
        elif self._woke is not None and not self.settling:
            self._settled()

    async def _process(self, item: QueueItem) -> None:
        if isinstance(item, Tick):
            await self._on_tick()
        elif isinstance(item, Poke):
            pass
        elif isinstance(item, (Received, LinkUp, LinkDown, Rejected, BadFrame, ConnectRefused)):
            self._net_queued -= 1
            await self._on_net(item)
        else:
            try:
                await self._on_command(item)
            finally:
                self._done += 1

    async def _after(self) -> None:
        """After every item: note the opponent's hello, finish, let the player act."""
        p = self.proto
        if not self._hello_seen and (hello := p.log.hello(p.opponent)) is not None:
            self._hello_seen = True
            if self.on_hello is not None:
                self.on_hello(hello)  # (pins the name, beside the pin's own if it differs)
            self.pin_title = pin_title(hello.body.key, p.table.names[p.opponent], self.home)
        self._greet_by_name()
        if p.written_elsewhere:
            self.rules_pending = None  # nothing to decide: this game is not this run's
        if p.refused is not None and self.rules_pending is not None and not self._rules_declined:
            if not self._rules_asked:
                self._rules_asked = True
                self.player.event(
                    self.seat, RulesOffered(self.rules_pending, self.proto.table.claim_timeout)
                )
            return
        if p.refused is not None:
            await self._send(ByeFrame(f"refused: {p.refused}"[:200]))
            self._end(1, "error", f"stopped: {for_screen(p.refused)}")  # may name the host's rules
            return
        await self._check_done()
        if self.result is not None:
            return
        try:
            cmd = self.player.next_command(self.seat)
        except Exception as exc:  # a bug in a player must not lose the game
            self._end(1, "error", f"the player failed: {type(exc).__name__}: {exc}")
            return
        if cmd is not None:
            await self._on_command(cmd)
            self.queue.put_nowait(Poke())

    # -- outputs, in order ---------------------------------------------------------------
    async def _carry(self, outputs: list[Output]) -> None:
        for o in outputs:
            if isinstance(o, Save):
                self.logfile.append(o.entry)
            elif isinstance(o, SaveSeeds):
                self.secrets.put_seeds(o.hand, o.perm_seed, o.key_seed)
                if self._crash_at == ("seeds", o.hand):
                    self._crash()
            elif isinstance(o, SaveAnswer):
                self.secrets.record_answer(o.hand, o.step, o.challenge)
            elif isinstance(o, Send):
                self._own_sends += 1
                if self._crash_at == ("send", self._own_sends):
                    self._crash()
                await self._send(EntryFrame(o.entry.wire))
            elif isinstance(o, Waiting):
                self.waiting = o
                self.player.event(self.seat, o)
            elif isinstance(o, Dropped):
                self.stats.dropped_entries += 1
                if o.reason in ANOTHER_GAME:
                    self.link.another_game()
                    if not self._told_other:  # once a session
                        self._told_other = True
                        self.say(f"{self.opponent_name}'s ginp2p is playing another game "
                                 "with you (a new one, or an older one resumed): both sides "
                                 "must open the same game; `ginp2p games` lists yours")  # fmt: skip
            elif isinstance(o, Refused):
                if self.rules_pending is None:  # else not refused yet: the player is asked
                    self.say(f"refused: {for_screen(o.reason)}")  # may name the host's rules
            else:
                self.stats.seen.append(o)
                self.player.event(self.seat, o)

    # -- the clock -----------------------------------------------------------------------
    async def _on_tick(self) -> None:
        now = self.now()
        if self.parent_pid is not None and os.getppid() != self.parent_pid:
            self._end(0, "quit", "the program that started this player is gone; the game is "
                                 f"saved: ginp2p resume {self.game_path or 'FILE'}"
                                 f"{away_words(self.seat)}")  # fmt: skip
            return
        await self._carry(self.proto.tick(now))
        ep = self.endpoint
        late = self.connect_timeout is not None and now - self._started > self.connect_timeout
        if ep.role == "guest" and late and not ep.ever_connected:
            assert self.connect_timeout is not None
            self._end(1, "error", no_answer_words(ep, self.connect_timeout))
            return
        for out in self.link.tick(now, finishing=self.finishing is not None):
            if isinstance(out, Quiet):
                self.stats.resyncs += 1
            elif isinstance(out, SendFrame):
                await self._send(out.frame)

    # -- commands -----------------------------------------------------------------------
    async def _on_command(self, cmd: Command) -> None:
        p = self.proto
        try:
            if isinstance(cmd, Act):
                await self._carry(p.act(cmd.action, auto=False))  # sent before any set-up
                await asyncio.sleep(0)
                await self._carry(p.advance())
            elif isinstance(cmd, ClaimCmd):
                if (why := no_claim_words(self.seat)) is not None:
                    self.say(f"? {why}")
                    return
                await self._carry(p.claim(self.now()))
            elif isinstance(cmd, ResignCmd):
                await self._carry(p.resign(cmd.reason))
            elif isinstance(cmd, ChatCmd):
                await self._carry(p.chat(cmd.text))
            elif isinstance(cmd, RulesCmd):
                await self._decide_rules(cmd.accept)
            elif isinstance(cmd, QuitCmd) and p.finished:  # nothing is left to resume
                await self._bye("the match is over")
                self._end(128 + cmd.signum if cmd.signum else 0, "over",
                          self._over_words(self.peer_have == p.have()))  # fmt: skip
            elif isinstance(cmd, QuitCmd):
                await self._bye(PAUSE_REASON)  # the other side is told
                why = f"{signal.Signals(cmd.signum).name}: " if cmd.signum else ""
                self._end(128 + cmd.signum if cmd.signum else 0, "quit",
                          f"{why}left the game; resume it with: ginp2p resume "
                          f"{self.game_path or 'FILE'}{away_words(self.seat)}")  # fmt: skip
            elif isinstance(cmd, StopCmd):
                self._end(1, "error", cmd.why)
        except (engine.IllegalAction, engine.HiddenCard, LocalProtocolError, LogError) as exc:
            if isinstance(self.player, BotPlayer):
                self._bot_errors += 1
                if self._bot_errors > 3:
                    self._end(1, "error", f"the bot's move was refused: {exc}")
                    return
            self.say(f"? {exc}")
