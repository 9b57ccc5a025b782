"""One player's game over the network: a :class:`~ginp2p.proto.protocol.PeerProtocol` driven
by asyncio, with real files and a real transport (:mod:`ginp2p.net.transport`).

The protocol decides everything; this module carries out its outputs *in order*
(``Save`` → ``LogFile.append`` with fsync before anything after it, ``SaveSeeds`` and
``SaveAnswer`` → the secrets file, ``Send`` → the endpoint), feeds it the peer's
entries and the clock, resyncs on every (re)connect (``have``, then the missing tail
one entry per message), and asks a player — the bot or a person at a line prompt —
for moves. A peer killed at any moment restarts from its three files and rejoins the
game where it was (``ginp2p resume FILE``).

Files of one game, side by side in the games folder:

``NAME.ginlog``   every entry, sent or received (docs/log.md §7); its lock makes the
                  game one process's.
``NAME.secrets``  this player's seeds and answered challenges (docs/log.md §8).
``NAME.peer``     the sidecar (:class:`PeerFile`): JSON with what the files cannot
                  say — this player's role, the opponent's key, where to connect or
                  listen, and the host's rules and parameters.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ginp2p import __version__
from ginp2p.app.players import BotPlayer, Player, cards_text, seat_names
from ginp2p.app.pregame import (
    REFUSALS_SHOWN,
    UNKNOWN_KEY_REASON,
    no_answer_words,
    refusal_line,
    turned_away_words,
)
from ginp2p.files import peers
from ginp2p.files.identity import fingerprint
from ginp2p.files.logfile import LogFile, SecretsFile
from ginp2p.game import engine
from ginp2p.game.match import MatchEnd
from ginp2p.game.rules import RuleSet
from ginp2p.net.transport import (
    MAX_BACKLOG,
    NET_VERSION,
    BadFrame,
    ByeFrame,
    ConnectRefused,
    EntryFrame,
    GuestEndpoint,
    HaveFrame,
    HostEndpoint,
    LinkDown,
    LinkUp,
    NetEvent,
    PairFrame,
    Received,
    Rejected,
    curve_key,
)
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
    describe_rules,
)
from ginp2p.present.words import (
    action_words,
    for_screen,
    match_end_words,
    preset_words,
    setting_value,
)
from ginp2p.proto.events import LocalProtocolError
from ginp2p.proto.log import ANOTHER_GAME, GUEST, Entry, LogError
from ginp2p.proto.log import Verdict as ClaimVerdict
from ginp2p.proto.protocol import (
    Dropped,
    EarlyClaim,
    Output,
    PeerProtocol,
    Refolded,
    Refused,
    Save,
    SaveAnswer,
    SaveSeeds,
    Send,
    Waiting,
)
from ginp2p.proto.table import Chatted, CheatDetected, HandDealt, HandScored, MatchOver, Moved

__all__ = [
    "Session",
    "SessionResult",
]

#: Test-only: make the process SIGKILL itself at a chosen point (``seeds:H`` right
#: after the seeds of hand H are on disk, before the commit that depends on them is
#: sent; ``send:N`` right before our N-th entry goes out, after it is saved).
CRASH_ENV = "GINP2P_CRASH_AT"
CRASH_CODE = 86


#: A gap this much longer than a tick between two things done means the process was
#: frozen (a laptop's lid, SIGSTOP): see ``Session.settling``.
STALL_S = 1.5
#: After such a gap, how long the player waits at most to hear the other side: a link
#: that died meanwhile takes the heartbeat's 3 s to notice, then a reconnection.
SETTLE_S = 10.0


def insisted_words(host: RuleSet, wanted: RuleSet) -> str:
    """How the host's rules differ from those a guest insisted on (``--preset``,
    ``--set``): "the host plays game_target=100 (the guest asked for 50)"."""
    if host.name != wanted.name:
        return f"the host plays preset {host.name} (the guest asked for {wanted.name})"
    diff = [f"{k}={setting_value(v)} (the guest asked for {setting_value(getattr(wanted, k))})"
            for k, v in host.changes(wanted).items()]  # fmt: skip
    return "the host plays " + ", ".join(diff) if diff else "they differ"


def awake_or_asleep() -> float:
    """The session's clock: seconds that run on while the machine sleeps (Linux's
    CLOCK_BOOTTIME; elsewhere the monotonic clock). A player whose laptop slept through
    a move it owed was away that long, and the claim timeout must count it."""
    boottime = getattr(time, "CLOCK_BOOTTIME", None)
    return time.clock_gettime(boottime) if boottime is not None else time.monotonic()


PAUSE_REASON = "left for now; the game can be resumed"
"""What a player who quits a live game says (a bye that ends nothing)."""
#: A bye from a peer that found the other side in another game (a new one, or an older
#: one resumed): it says nothing about the game the other side is in.
OTHER_GAME_REASON = "it was in another game with you"


def _paired_player(curve: bytes) -> str | None:
    """The paired player whose connection key is ``curve``, named and fingerprinted as
    ``ginp2p keys`` lists it; None for a stranger (or a peers.json that cannot be read).
    A connection shows only the X25519 form of the key: each pinned key is converted."""
    from ginp2p.present.words import for_screen

    try:
        pinned = peers.all()
    except (OSError, peers.PeersError):  # a damaged peers.json is `ginp2p keys`'s to report
        return None
    for p in pinned:
        with contextlib.suppress(ValueError, RuntimeError):  # a key of no curve point
            if curve_key(p.key) == curve:
                if p.name == p.fingerprint:  # paired, never named by a hello
                    return f"a player you paired with ({p.fingerprint})"
                return f"{for_screen(p.name)} ({p.fingerprint}, paired with you)"
    return None


def _pinned_name(key: bytes | None) -> str:
    """The name a paired player was pinned under ('' if none, or unreadable)."""
    from ginp2p.present.words import for_screen

    pin = peers.lookup_quietly(key)
    if pin is None or pin.name == fingerprint(pin.key):  # paired, never named by a hello
        return ""
    return for_screen(pin.name)


#: Refused this long in a row, a guest of a game under way is told the host may run it
#: elsewhere now (a host that resumes takes another port if its own is taken). A guest
#: given a connect timeout waits that long instead: it said how long is "no answer".
MOVED_HINT_S = 20.0


def moved_words(endpoint: GuestEndpoint, name: str, path: Path | None, for_s: float) -> str:
    """What a guest can do when nothing listens where its host was: the host may have
    resumed the game on another port or computer, which only the host's screen shows."""
    where = f"{endpoint.host}:{endpoint.port}"
    return (
        f"nothing has listened at {where} for {for_s:.0f} s: if {name} runs this game "
        "again at another port or address (their screen shows it), leave (the game "
        f"stays saved) and run: ginp2p resume {path or 'FILE'} --address HOST:PORT"
    )


def undelivered_words(name: str, path: Path | None) -> str:
    """At a table left open after a claim that has not reached the other player: it is
    delivered if they come back while the table is up, or by a resume later."""
    return (
        f"your claim has not reached {name} yet: it is delivered if they come back "
        "while this table is open (a move of theirs that it has not reached beats "
        f"it); if you leave, `ginp2p resume {path or 'FILE'}` delivers it"
    )


def forgotten_by_words(name: str) -> str:
    """Why a resumed guest stops when its host does not know its key any more: that
    host cannot go on with the game, nor pair with a guest that resumes."""
    return (
        f"{name}'s ginp2p does not know your key any more (it has forgotten you: "
        "`ginp2p keys --forget`), so this game cannot go on until you pair again: join "
        f"{name}'s new game with the code its screen shows (`ginp2p join --new "
        "--pair-code CODE`)"
    )


@dataclass
class SessionResult:
    code: int  # the process exit code: 0 over or left, 1 an error or no game
    status: str  # "over", "quit", "declined" (the host's rules, by the guest) or "error"
    message: str = ""


@dataclass(frozen=True, slots=True)
class _Tick:
    pass


@dataclass(frozen=True, slots=True)
class _Poke:
    pass


def _catch_stop_signals(submit: Callable[[Command], None], sigint: bool) -> list[int]:
    """Ctrl-C (if ``sigint``), ``kill`` and a closed terminal (SIGHUP) quit as the
    ``quit`` command does, so the other player hears the game is paused instead of
    waiting out the silence. Returns the signals caught."""
    loop, caught = asyncio.get_running_loop(), []
    stops = (signal.SIGINT if sigint else None, getattr(signal, "SIGTERM", None),
             getattr(signal, "SIGHUP", None))  # fmt: skip
    for sig in stops:
        if sig is None:
            continue
        try:
            loop.add_signal_handler(sig, submit, QuitCmd(int(sig)))
        except (NotImplementedError, RuntimeError, ValueError):  # Windows, not main thread
            continue
        caught.append(int(sig))
    return caught


def _die() -> None:
    """The test hook's kill -9 (os._exit where there is no SIGKILL)."""
    sigkill = getattr(signal, "SIGKILL", None)
    if sigkill is not None:
        os.kill(os.getpid(), sigkill)
    os._exit(CRASH_CODE)


def _crash_point() -> tuple[str, int] | None:
    spec = os.environ.get(CRASH_ENV, "")
    what, _, n = spec.partition(":")
    return (what, int(n)) if what and n.isdigit() else None


@dataclass
class _Stats:
    frames_in: int = 0
    bad_frames: int = 0
    dropped_entries: int = 0
    rejected: int = 0
    resyncs: int = 0
    reconnects: int = 0
    seen: list[Any] = field(default_factory=list)


class Session:
    """Drives one PeerProtocol over one endpoint until the match is over.

    One task (the actor) takes items off a queue — network events, clock ticks, the
    player's commands — and handles each to completion, so the protocol's outputs are
    carried out strictly in order. Sends never block (a message that cannot go now is
    recovered by the next resync).
    """

    def __init__(
        self,
        proto: PeerProtocol,
        endpoint: HostEndpoint | GuestEndpoint,
        player: Player,
        logfile: LogFile,
        secrets: SecretsFile,
        *,
        out: Callable[[str], None] | None = None,
        linger: float = 5.0,
        resync_after: float = 2.0,
        connect_timeout: float | None = None,
        net_version: int = NET_VERSION,
        game_path: Path | None = None,
        on_hello: Callable[[Entry], None] | None = None,
        on_pair: Callable[[PairFrame, bytes], None] | None = None,
        clock: Callable[[], float] | None = None,
        tick: float = 0.2,
        expect_rules: RuleSet | None = None,
        accept_rules: bool = True,
        parent_pid: int | None = None,
        claims: bool = True,
        away_since: float | None = None,
    ) -> None:
        self.proto = proto
        #: A resumed game: when (``time.time()``) its files were last written, the last
        #: sign of this player before the crash or the quit (see ``run``).
        self.away_since = away_since
        #: Whether a silent player is claimed against in this game: not in ``play``.
        self.claims = claims
        #: The other side has spoken our protocol version in this game (resumed: yes).
        self._version_ok = proto.log.game is not None
        #: The other player's name until its hello says it: the one pinned with its key.
        self.known_name = _pinned_name(proto.log.key(proto.opponent))
        self.endpoint = endpoint
        self.player = player
        self.logfile = logfile
        self.secrets = secrets
        self._out = out or (lambda text: print(text, flush=True))
        self.linger = linger
        self.resync_after = resync_after
        self.connect_timeout = connect_timeout
        self.net_version = net_version
        self.game_path = game_path
        self.on_hello = on_hello  # the opponent's hello, once it is stored
        self.on_pair = on_pair
        self.clock = clock or awake_or_asleep
        self.tick_s = tick
        self.queue: asyncio.Queue[Any] = asyncio.Queue()
        self.result: SessionResult | None = None
        self.link_up = False
        self.waiting: Waiting | None = None
        self.peer_have: tuple[int, int] | None = None
        self.finishing: float | None = None
        self._ended_by: tuple[int, str] | None = None  # the forfeit the match ended on
        self.stats = _Stats()
        self._started = 0.0
        self._last_heard = 0.0
        self._last_have = 0.0
        self._hello_seen = False
        self._crash = _crash_point()
        self._own_sends = 0
        self._handshake_failures = 0
        self._told_unpinned: set[bytes] = set()
        self._bot_errors = 0
        self._submitted = self._done = 0  # the player's commands, for `busy`
        self.expect_rules = expect_rules
        self.rules_ok = accept_rules
        self.rules_pending: RuleSet | None = None
        self._rules_asked = False
        self.parent_pid = parent_pid
        #: Seconds of the last `have` round trip (None until one came back): a UI shows it.
        self.latency: float | None = None
        #: If set, a `have` goes out this often (seconds) to keep ``latency`` fresh.
        self.ping_every: float | None = None
        self._have_out: float | None = None  # when our unanswered `have` question went out
        self._asked = 0.0  # when we last asked (a `have` that wants a reply)

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

    _rules_declined = False
    _rules_told = False
    _rules_answered: RuleSet | None = None

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
    @property
    def names(self) -> tuple[str, str]:
        n = self.proto.table.names
        me = self.proto.me
        out = [n[0] or "host", n[1] or "guest"]
        out[1 - me] = self.opponent_name
        if not isinstance(self.player, BotPlayer):
            out[me] = "you"
        return out[0], out[1]

    @property
    def opponent_name(self) -> str:
        """The other player's name: its hello's, or before it the one pinned, if any."""
        p = self.proto
        if p.log.hello(p.opponent) is None and self.known_name:
            return self.known_name
        return p.table.names[p.opponent]

    def now(self) -> float:
        return self.clock()

    def say(self, text: str) -> None:
        self._out(text)

    def submit(self, cmd: Command) -> None:
        """A command from the player (any task, same loop)."""
        self._submitted += 1
        self.queue.put_nowait(cmd)

    @property
    def busy(self) -> bool:
        """Whether a command the player submitted is not done yet."""
        return self._done < self._submitted

    def no_claim(self) -> str | None:
        """Why a claim cannot be made now, in words; None if it can."""
        if self.may_claim():
            return None
        p = self.proto
        owed = p.table.owes(p.opponent)
        return "nothing to claim: " + (
            f"{self.opponent_name} owes {owed.what}, not yet for {p.table.claim_timeout} s"
            if owed else "you are not waiting")  # fmt: skip

    def my_wait(self) -> float | None:
        """How long our player has owed a move, when the other side may claim for it."""
        p = self.proto
        if not self.claims or not p.my_turn or self.finishing is not None:
            return None
        return p.owing_for(self.now())

    @property
    def begun(self) -> bool:
        """Our hello is stored: from then on, leaving keeps the game for a resume."""
        return self.proto.log.hello(self.proto.me) is not None

    @property
    def rules_due(self) -> bool:
        """A guest before the host's rules: neither asked about them nor begun (the
        rules may yet be accepted unasked, with ``--yes``)."""
        return self.proto.me == GUEST and not self.begun and not self._rules_asked

    def away_words(self, terse: bool = False) -> str:
        """What leaving a live game risks: a quit is no pause for the claim clock."""
        if not self.claims or self.proto.log.game is None or self.proto.finished:
            return ""
        name, t = self.opponent_name, self.proto.table.claim_timeout
        if terse:
            return f"; {name} may claim if your move waits {t} s"
        return (
            f"; while you are away, {name} may claim the match once a move of yours has "
            f"waited {t} s"
        )

    def may_claim(self) -> bool:
        """The opponent owes an entry past the claim timeout (and the game exists)."""
        p = self.proto
        return (p.log.game is not None and self.finishing is None and not self.settling
                and p.claimable(self.now()) is not None)  # fmt: skip

    def status(self) -> str:
        """One line for a UI: whom we wait for, and whether the link is up."""
        who = self.opponent_name
        if self.finishing is not None:
            return "the match is over"
        if not self.link_up:
            return (
                f"waiting for {who} (reconnecting…)"
                if self.stats.reconnects
                else f"waiting for {who} to connect…"
            )
        if self.waiting is not None and self.proto.table.owes(self.proto.opponent) is not None:
            return f"waiting for {who}: {self.waiting.what}"
        return "your move" if self.proto.my_turn else "working…"

    def describe(self, what: Any, terse: bool) -> str | None:
        names = self.names
        p = self.proto
        if isinstance(what, HandScored):
            from ginp2p.present.view import hand_line

            me = None if isinstance(self.player, BotPlayer) else p.me
            s = what.scores
            m = p.table.match
            line = hand_line(what.hand, what.result, me, seat_names(self),
                             m.rules if m is not None else None)  # fmt: skip
            a, b = (0, 1) if me is None else (me, 1 - me)  # "you" first, as `look` has it
            return f"{line}  [{names[a]} {s[a]}, {names[b]} {s[b]}]"
        if isinstance(what, MatchOver):
            return self.match_line(what)
        if isinstance(what, CheatDetected):
            where = f"; the evidence is in {self.game_path}" if self.game_path else ""
            # a false dispute is told in the disputer's own words (its rule)
            return "CHEAT: " + for_screen(what.cheat.describe(self.proto.table.names)) + where
        if isinstance(what, Chatted):
            return f"{names[what.player]}: {what.text}"
        if isinstance(what, EarlyClaim):
            return (
                f"{self.opponent_name} claims the match as if you had stopped answering, "
                f"after only {what.after:.0f} s of the agreed {what.timeout} s; the claim "
                "waits for the time to run out, and your move before then beats it"
            )
        if isinstance(what, Waiting):
            return None if terse else f"waiting for {self.opponent_name}: {what.what}"
        if terse:
            return None
        if isinstance(what, HandDealt):
            from ginp2p.game.cards import card_order

            dealer = names[what.dealer]
            up = what.upcard.pretty() if what.upcard is not None else "?"
            deals = "deal" if what.dealer == p.me else "deals"
            cards = sorted((c for c in what.cards or () if c is not None), key=card_order)
            rules = p.table.rules  # (a guest was told them with the host's offer)
            told = self._rules_told or self._rules_answered is not None
            first = f"the rules: {describe_rules(rules)}\n" \
                if what.hand == 1 and rules and not told else ""  # fmt: skip
            return (
                f"{first}hand {what.hand}: {dealer} {deals}; your cards {cards_text(cards)}; "
                f"upcard {up}"
            )
        if isinstance(what, Moved):
            return action_words(what.action, names[what.player], what.card, past=True)
        if isinstance(what, Refolded):
            return None
        return None

    def match_line(self, what: MatchOver, totals: bool = True) -> str:
        """``MATCH OVER: Ann wins by 56 (reached the target); totals Ann 156, Bob 100``;
        without ``totals`` where the score sheet that follows ends in them."""
        names = self.names
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
        m = self.proto.table.match
        margin = m.margin if m is not None and m.over else None
        by = f" by {margin}" if margin is not None and margin > 0 else ""
        line = f"MATCH OVER: {names[what.winner]} {won}{by} ({why})"
        if totals and what.totals:
            line += f"; totals {names[0]} {what.totals[0]}, {names[1]} {what.totals[1]}"
        return line

    # -- running -------------------------------------------------------------------------
    async def run(self) -> SessionResult:
        """Play until the match is over (both logs equal, or the linger ran out), the
        player quits, or a fatal error (refused, version mismatch, host unreachable)."""
        self._started = self._last_heard = self.now()
        if self.away_since is not None and not self.proto.finished:
            # Resumed: the player was away since the files were last written, as after a
            # freeze. What it owes is owed from then, and a claim made meanwhile is read
            # before the computer moves (``settling``): else its first move, not acking
            # the claim it had not yet heard, would beat a claim rightly made. (Not when
            # its files said the match was over: see PeerProtocol.away.)
            self.proto.away(self.now() - max(0.0, time.time() - self.away_since))
            self._woke = self.now()
        tasks = [asyncio.ensure_future(self._pump()), asyncio.ensure_future(self._ticker()),
                 asyncio.ensure_future(self.player.run(self))]  # fmt: skip
        caught = _catch_stop_signals(self.submit, sigint=not self.player.keys_ctrl_c)
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
            for sig in caught:
                asyncio.get_running_loop().remove_signal_handler(sig)
            if int(getattr(signal, "SIGHUP", -1)) in caught:
                # a closed terminal hangs up more than once (its window, then its shell):
                # a later hangup must not kill us while the pause is sent and files close
                signal.signal(signal.SIGHUP, signal.SIG_IGN)
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
            self.queue.put_nowait(_Tick())

    _net_queued = 0  # network events in ``queue``
    _told_other = False  # that the other side plays another game
    _peer_elsewhere = False  # the peer of this connection plays another game
    _greet = False  # a link is up, and "connected to NAME" not yet said
    _last_item: float | None = None  # when the last item was done
    _woke: float | None = None  # when this process came back from being frozen
    _told_moved = False  # that the host may be running the game elsewhere
    _told_undelivered = False  # that our claim has not reached the other player yet
    _claim_unconfirmed = False  # our claim ended the match, not yet confirmed received

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
                await self._send_have(reply=True)
        elif self._woke is not None and not self.settling:
            self._settled()

    def _settled(self) -> None:
        """Back from a freeze and caught up (or given up waiting): moves and claims go on."""
        self._woke = None
        self.proto.away(None)

    @property
    def settling(self) -> bool:
        """Just back from being frozen, the other side not yet heard: a claim or a
        computer's move now could cross what is already on its way to us."""
        return self._woke is not None and self.now() - self._woke < SETTLE_S

    async def _process(self, item: Any) -> None:
        if isinstance(item, _Tick):
            await self._on_tick()
        elif isinstance(item, _Poke):
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
                self.on_hello(hello)
        self._greet_by_name()
        if p.written_elsewhere:
            self.rules_pending = None  # nothing to decide: this game is not this run's
        if p.refused is not None and self.rules_pending is not None and not self._rules_declined:
            if not self._rules_asked:
                self._rules_asked = True
                self.player.event(
                    self, RulesOffered(self.rules_pending, self.proto.table.claim_timeout)
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
            cmd = self.player.next_command(self)
        except Exception as exc:  # a bug in a player must not lose the game
            self._end(1, "error", f"the player failed: {type(exc).__name__}: {exc}")
            return
        if cmd is not None:
            await self._on_command(cmd)
            self.queue.put_nowait(_Poke())

    def _end(self, code: int, status: str, message: str) -> None:
        if self.result is None:
            self.result = SessionResult(code, status, message)

    # -- outputs, in order ---------------------------------------------------------------
    async def _carry(self, outputs: list[Output]) -> None:
        for o in outputs:
            if isinstance(o, Save):
                self.logfile.append(o.entry)
            elif isinstance(o, SaveSeeds):
                self.secrets.put_seeds(o.hand, o.perm_seed, o.key_seed)
                if self._crash == ("seeds", o.hand):
                    _die()
            elif isinstance(o, SaveAnswer):
                self.secrets.record_answer(o.hand, o.step, o.challenge)
            elif isinstance(o, Send):
                self._own_sends += 1
                if self._crash == ("send", self._own_sends):
                    _die()
                await self._send(EntryFrame(o.entry.wire))
            elif isinstance(o, Waiting):
                self.waiting = o
                self.player.event(self, o)
            elif isinstance(o, Dropped):
                self.stats.dropped_entries += 1
                if o.reason in ANOTHER_GAME:
                    self._peer_elsewhere = True
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
                self.player.event(self, o)

    async def pause(self) -> None:
        """Tell the other player we left for now, as ``quit`` does: for a console whose
        terminal closed under it, which can send no command any more."""
        await self._bye(PAUSE_REASON)

    async def _bye(self, reason: str) -> None:
        """Tell the other side we leave; if it plays another game, only that (the end
        of our game says nothing about its game)."""
        await self._send(ByeFrame(OTHER_GAME_REASON if self._peer_elsewhere else reason))

    async def _send(self, frame: Any) -> bool:
        try:
            return await self.endpoint.send(frame)
        except Exception as exc:  # a send that fails is a lost message: resync recovers
            self.say(f"(send failed: {exc})")
            return False

    async def _send_have(self, reply: bool) -> None:
        h, g = self.proto.have()
        self._last_have = self.now()
        if reply:
            self._have_out = self._asked = self._last_have
        await self._send(HaveFrame(self.net_version, h, g, reply))

    # -- the clock -----------------------------------------------------------------------
    async def _on_tick(self) -> None:
        now = self.now()
        if self.parent_pid is not None and os.getppid() != self.parent_pid:
            self._end(0, "quit", "the program that started this player is gone; the game is "
                                 f"saved: ginp2p resume {self.game_path or 'FILE'}")  # fmt: skip
            return
        await self._carry(self.proto.tick(now))
        ep = self.endpoint
        late = self.connect_timeout is not None and now - self._started > self.connect_timeout
        if isinstance(ep, GuestEndpoint) and late and not ep.ever_connected:
            assert self.connect_timeout is not None
            self._end(1, "error", no_answer_words(ep, self.connect_timeout))
            return
        if not self.link_up:
            return
        quiet = now - max(self._last_heard, self._last_have)
        if self.finishing is not None:
            if now - self._last_have >= 0.5:
                await self._send_have(reply=True)
        elif self.proto.table.owes(self.proto.opponent) is not None and quiet > self.resync_after:
            self.stats.resyncs += 1
            await self._send_have(reply=True)
        elif self.ping_every is not None and now - self._asked >= self.ping_every:
            await self._send_have(reply=True)

    # -- the network ---------------------------------------------------------------------
    async def _on_net(self, ev: NetEvent) -> None:
        if isinstance(ev, ConnectRefused):  # the host is gone: "reconnecting…" says it
            ep = self.endpoint
            hint_after = MOVED_HINT_S if self.connect_timeout is None else self.connect_timeout
            if isinstance(ep, GuestEndpoint) and ev.for_s >= hint_after and \
                    not self._told_moved and self.proto.log.game:  # fmt: skip
                self._told_moved = True  # once until the link is up again
                self.say(moved_words(ep, self.opponent_name, self.game_path, ev.for_s))
            return
        if isinstance(ev, Received):
            self.stats.frames_in += 1
            self._last_heard = self.now()
            await self._on_frame(ev.frame, ev.peer)
        elif isinstance(ev, LinkUp):
            self._peer_elsewhere = False  # a new connection: perhaps the right game now
            self._told_moved = False
            if not self.link_up:
                self.link_up = True
                self._greet = True
                self._greet_by_name()
            if isinstance(self.endpoint, GuestEndpoint) or self._woke is not None:
                await self._send_have(reply=True)  # its answer ends the settling
        elif isinstance(ev, LinkDown):
            if self.link_up:
                self.link_up = False
                self.stats.reconnects += 1
                if self.finishing is None:
                    self.say(f"lost the connection: waiting for {self.opponent_name} "
                             "(reconnecting…)")  # fmt: skip
        elif isinstance(ev, Rejected):
            self.stats.rejected += 1
            if isinstance(self.endpoint, HostEndpoint):
                n = self.stats.rejected  # peers.json is read only for a line that is shown
                if n <= REFUSALS_SHOWN and (line := refusal_line(n, self._turned_away(ev))):
                    self.say(line)
                return
            first = not self.endpoint.ever_connected
            self._handshake_failures += 1
            if ev.auth:
                pinned = peers.lookup_quietly(self.proto.log.key(self.proto.opponent))
                self._end(1, "error", turned_away_words(pinned is not None))
            elif first and self._handshake_failures >= 2:
                self._end(1, "error", f"cannot join: {ev.reason}")
        elif isinstance(ev, BadFrame):
            self.stats.bad_frames += 1
            if ev.peer is not None and ev.peer not in self._told_unpinned:
                self._told_unpinned.add(ev.peer)
                self.say(f"ignored a message from {self._sender(ev.peer)}: {ev.reason}")

    _told_version = False

    def _sender(self, curve: bytes) -> str:
        """Who sent a message, from its connection key: the other player, a player
        paired with this one, or a stranger (never the key, which matches nothing the
        player can see)."""
        with contextlib.suppress(ValueError, RuntimeError):  # no key yet, or no curve point
            if curve_key(self.proto.log.key(self.proto.opponent) or b"") == curve:
                return self.opponent_name or self._peer_label()
        return _paired_player(curve) or "an unknown player"

    def _turned_away(self, ev: Rejected) -> str:
        """The host's line for a refused connection: a player paired with this host is
        named as ``ginp2p keys`` lists it (turned away because this game is another's)."""
        friend = _paired_player(ev.peer) if ev.peer is not None else None
        if friend is None:
            return ev.reason
        return (
            f"{friend} tried to join; this game is with "
            f"{self.opponent_name or 'another player'}, so they were turned away"
        )

    def _peer_label(self) -> str:
        p = self.proto
        if p.log.hello(p.opponent) is not None or self.known_name:
            return self.opponent_name
        return "the host" if p.me == GUEST else "the guest"

    def _greet_by_name(self) -> None:
        """Say "connected to Ann" once the other player's name is known: at once on a
        rematch or a reconnection, else when its hello arrives (just after the link),
        so the line never says "the guest" one time and the name the next."""
        p = self.proto
        if self._greet and (p.log.hello(p.opponent) is not None or self.known_name):
            self._greet = False
            self.say(f"connected to {self.opponent_name}")

    async def _on_frame(self, frame: Any, peer: bytes) -> None:
        if isinstance(frame, EntryFrame):
            # the move first (stored, shown), then whatever it makes owed (a set-up)
            await self._carry(self.proto.receive(frame.wire, self.now(), auto=False))
            await asyncio.sleep(0)
            await self._carry(self.proto.advance())
        elif isinstance(frame, HaveFrame):
            if frame.version != self.net_version and self._version_ok:
                # the other side spoke our version in this game already: stopping now would
                # only leave it free to claim the match against us, so stay and say so once
                if not self._told_version:
                    self._told_version = True
                    self.say(f"ignored a message from {self.opponent_name} that names peer "
                             f"protocol version {frame.version}: this game speaks version "
                             f"{self.net_version}, and waits for it")  # fmt: skip
                return
            if frame.version == self.net_version:
                self._version_ok = True
            else:
                await self._send_have(reply=False)  # so the other side can say it too
                await self._send(ByeFrame(f"peer protocol version {self.net_version} here"))
                self._end(1, "error",
                          f"version mismatch: the other player's ginp2p speaks peer protocol "
                          f"version {frame.version}, this one (ginp2p {__version__}) speaks "
                          f"version {self.net_version}; both need the same version")  # fmt: skip
                return
            if not frame.reply and self._have_out is not None:
                self.latency, self._have_out = self.now() - self._have_out, None
                if self._woke is not None:  # what was sent before this answer has come
                    self._settled()
            self.peer_have = (frame.seq_host, frame.seq_guest)
            for wire in self.proto.missing(self.peer_have):
                await self._send(EntryFrame(wire))
            if frame.reply:
                await self._send_have(reply=False)
        elif isinstance(frame, ByeFrame):
            if frame.reason == OTHER_GAME_REASON or self._peer_elsewhere:
                self.say(f"{self._peer_label()}'s ginp2p left another game it had open with "
                         "you; this game is unchanged and waits for them")  # fmt: skip
            # before the other side's hello there is no game to wait for, unless it
            # only paused (a player who quits may resume before ever saying hello)
            elif (self.proto.have()[self.proto.opponent] == 0 and not self.proto.finished
                    and frame.reason != PAUSE_REASON):  # fmt: skip
                self._end(1, "error", f"{self._peer_label()} closed the game before it began: "
                                      f"{frame.reason or 'no reason given'}")  # fmt: skip
            elif frame.reason == UNKNOWN_KEY_REASON and not self.proto.finished:
                # the host forgot us: waiting on would never end
                self._end(1, "error", forgotten_by_words(self.opponent_name))
            elif self.proto.have()[self.proto.opponent] == 0:  # it paused before its hello
                self.say(f"{self.opponent_name} left before the game began; this game waits "
                         "for them to join again")  # fmt: skip
            elif self.finishing is None and not self.begun:  # at the rules question
                self.say(f"{self.opponent_name} left ({frame.reason or 'no reason given'}) "
                         "before you answered about the rules: yes keeps the game, saved, "
                         "for when they come back; no ends it")  # fmt: skip
            elif self.finishing is None:
                self.say(f"{self.opponent_name} left ({frame.reason or 'no reason given'}); "
                         "the game is saved on both sides")  # fmt: skip
        elif isinstance(frame, PairFrame) and self.on_pair is not None:
            self.on_pair(frame, peer)

    # -- commands -----------------------------------------------------------------------
    async def _on_command(self, cmd: Command) -> None:
        p = self.proto
        try:
            if isinstance(cmd, Act):
                await self._carry(p.act(cmd.action, auto=False))  # sent before any set-up
                await asyncio.sleep(0)
                await self._carry(p.advance())
            elif isinstance(cmd, ClaimCmd):
                if (why := self.no_claim()) is not None:
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
                          f"{self.game_path or 'FILE'}{self.away_words()}")  # fmt: skip
            elif isinstance(cmd, StopCmd):
                self._end(1, "error", cmd.why)
        except (engine.IllegalAction, engine.HiddenCard, LocalProtocolError, LogError) as exc:
            if isinstance(self.player, BotPlayer):
                self._bot_errors += 1
                if self._bot_errors > 3:
                    self._end(1, "error", f"the bot's move was refused: {exc}")
                    return
            self.say(f"? {exc}")

    # -- the end ----------------------------------------------------------------------------
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
            await self._send_have(reply=True)
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
