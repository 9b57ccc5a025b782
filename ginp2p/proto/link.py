"""The link between two peers, sans-IO: what they say to each other besides entries.

Entries are the game (:class:`~ginp2p.proto.protocol.PeerProtocol` admits them); the
link is the talk around them, over a connection that drops, reconnects and loses
messages:

* ``have``: the contiguous seqs each side stores per feed. A peer asks (``reply``)
  when it (re)connects, when the other side owes a move and has been quiet, while a
  finished match waits for the other side to hold every entry, and every so often to
  measure the round trip; the answer says what the asker lacks, and the missing tail
  goes out one entry per message.
* The peer protocol version, carried by every ``have``: a peer that speaks another
  one ends a game not yet begun, and is ignored (said once) in a game it has already
  spoken ours in (a `have` of ours, or an entry that acks one of ours).
* ``bye``: the other side leaves. Its reason is its own words, never a command: only
  the state of this side's log says what leaving means. A bye before the other side
  wrote anything ends a game never begun; after that it ends nothing (it paused, it
  says it does not know our key, it left another game it had open with us), and the
  game waits for it, saved.

:class:`Link` takes frames and the time, and gives back frames to send and typed
events (:data:`LinkOutput`); no sockets, no tasks, no clock of its own. The session
(``ginp2p.app.session``) feeds it and carries out what it says, in order.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from ginp2p.proto.frames import NET_VERSION, ByeFrame, EntryFrame, Frame, HaveFrame, PairFrame
from ginp2p.proto.protocol import PeerProtocol

__all__ = [
    "FINISH_ASK_S",
    "OTHER_GAME_REASON",
    "PAUSE_REASON",
    "UNKNOWN_KEY_REASON",
    "Answered",
    "EntryArrived",
    "Leaving",
    "Link",
    "LinkOutput",
    "PairArrived",
    "PeerLeft",
    "Quiet",
    "SendFrame",
    "VersionIgnored",
    "VersionMismatch",
]

PAUSE_REASON = "left for now; the game can be resumed"
"""What a player who quits a live game says (a bye that ends nothing)."""
#: A bye from a peer that found the other side in another game (a new one, or an older
#: one resumed): it says nothing about the game the other side is in.
OTHER_GAME_REASON = "it was in another game with you"
#: The bye of a host that is pairing to a key it does not know (never paired, or forgotten
#: with ``ginp2p keys --forget``). Any peer may say it: in a game that holds the other
#: side's entries it ends nothing (:attr:`Leaving.FORGOT_US`).
UNKNOWN_KEY_REASON = (
    "this host does not know your key: pair with the host's code (--pair-code CODE)"
)
#: While a finished match waits for the other side to hold every entry, a ``have`` goes
#: out this often (seconds).
FINISH_ASK_S = 0.5


# ------------------------------------------------------------------------ what comes out


@dataclass(frozen=True, slots=True)
class SendFrame:
    """Send this frame to the other peer (a send that fails is a lost message: the
    next resync recovers it)."""

    frame: Frame


@dataclass(frozen=True, slots=True)
class EntryArrived:
    """An entry frame: for the protocol (``PeerProtocol.receive``)."""

    wire: bytes


@dataclass(frozen=True, slots=True)
class PairArrived:
    """A pairing message: for whoever pairs (nothing in the game)."""

    payload: bytes


@dataclass(frozen=True, slots=True)
class VersionMismatch:
    """The other side speaks another peer protocol version in a game it never spoke
    ours in: the game cannot go on. Our ``have`` (so it can say so too) and a ``bye``
    come out just before this event."""

    theirs: int
    ours: int


@dataclass(frozen=True, slots=True)
class VersionIgnored:
    """A ``have`` of another version in a game where the other side spoke ours: ignored
    (stopping would only leave it free to claim the match against us)."""

    theirs: int
    ours: int


@dataclass(frozen=True, slots=True)
class Answered:
    """The other side answered our question (a ``have`` asking for a reply): whatever we
    sent before it has reached it; ``latency`` is the round trip in seconds."""

    latency: float


@dataclass(frozen=True, slots=True)
class Quiet:
    """The other side owes a move and has said nothing for ``for_s`` seconds: a ``have``
    asks it what it lacks (and shows what we lack)."""

    for_s: float


class Leaving(enum.Enum):
    """What a ``bye`` means for this game."""

    #: It left another game it had open with us (a new one, or an older one resumed):
    #: this game is unchanged.
    ANOTHER_GAME = "another game"
    #: It closed the game before its hello: there is no game to wait for.
    NEVER_BEGAN = "never began"
    #: It says it does not know our key (a host that forgot us and pairs again, or a
    #: peer that only says so): its words; the game waits for it, saved, as after LEFT.
    FORGOT_US = "says it forgot us"
    #: It paused before its hello: the game waits for it to join again.
    PAUSED_BEFORE_HELLO = "paused before its hello"
    #: It left while our player is asked about the host's rules.
    AT_THE_RULES = "at the rules question"
    #: It left a game under way, saved on both sides.
    LEFT = "left"
    #: It left once the match was over here: nothing to say.
    AFTER_THE_END = "after the end"


@dataclass(frozen=True, slots=True)
class PeerLeft:
    """A ``bye``: ``reason`` in the other side's words (as a screen may show them)."""

    reason: str
    meaning: Leaving

    @property
    def ends_the_game(self) -> bool:
        """Whether this side's game cannot go on after it: only a game the other side
        never wrote in (whatever a bye says, a game with its entries waits for it)."""
        return self.meaning is Leaving.NEVER_BEGAN


LinkOutput = (
    SendFrame
    | EntryArrived
    | PairArrived
    | VersionMismatch
    | VersionIgnored
    | Answered
    | Quiet
    | PeerLeft
)


# ------------------------------------------------------------------------ the link


class Link:
    """One peer's side of the link, for one game (``proto``, which it reads: what is
    stored, what is owed, whether the match is over).

    ``version``: the peer protocol version this side speaks. ``resync_after``: how
    long the other side may be quiet while it owes a move before a ``have`` asks it
    again. ``ping_every``: if set, a ``have`` asks this often anyway, to keep
    :attr:`latency` fresh (a screen shows it). Times are the caller's clock, in seconds.
    """

    def __init__(
        self,
        proto: PeerProtocol,
        *,
        version: int = NET_VERSION,
        resync_after: float = 2.0,
        ping_every: float | None = None,
    ) -> None:
        self.proto = proto
        self.version = version
        self.resync_after = resync_after
        self.ping_every = ping_every
        #: The other side has spoken our version in this game (resumed: it has).
        self.version_ok = proto.log.game is not None
        #: A connection is up.
        self.up = False
        #: The peer of this connection plays another game with us (its entries were
        #: dropped as another game's): our bye then says only that.
        self.elsewhere = False
        #: What the other side said it stores, per feed (None until its first ``have``).
        self.peer_have: tuple[int, int] | None = None
        #: Seconds of the last round trip (None until an answer came back).
        self.latency: float | None = None
        self.last_heard = 0.0  # when a frame last came
        self.last_have = 0.0  # when our last ``have`` went out
        self.asked = 0.0  # when our last question (a ``have`` wanting a reply) went out
        self._question: float | None = None  # when our unanswered question went out

    # -- the connection ----------------------------------------------------------------
    def start(self, now: float) -> None:
        """The game starts: the other side is as good as heard from now."""
        self.last_heard = now

    def connected(self) -> bool:
        """A connection came up (or another one, to a peer perhaps in the right game
        now). True if the link was down."""
        self.elsewhere = False
        was_down, self.up = not self.up, True
        return was_down

    def disconnected(self) -> bool:
        """The connection went down. True if it was up."""
        was_up, self.up = self.up, False
        return was_up

    def another_game(self) -> None:
        """The protocol dropped an entry of another game from this peer."""
        self.elsewhere = True

    # -- what we send ------------------------------------------------------------------
    def ask(self, now: float) -> HaveFrame:
        """A ``have`` asking for the other side's: what it lacks goes out when it
        answers, and its answer measures the round trip."""
        self.last_have = self._question = self.asked = now
        return self._have(True)

    def tell(self, now: float) -> HaveFrame:
        """A ``have`` that wants no answer."""
        self.last_have = now
        return self._have(False)

    def _have(self, reply: bool) -> HaveFrame:
        h, g = self.proto.have()
        return HaveFrame(self.version, h, g, reply)

    def bye(self, reason: str) -> ByeFrame:
        """We leave, saying ``reason``; to a peer in another game only that (the end of
        our game says nothing about its game)."""
        return ByeFrame(OTHER_GAME_REASON if self.elsewhere else reason)

    # -- what comes ----------------------------------------------------------------------
    def receive(self, frame: Frame, now: float, *, finishing: bool = False) -> list[LinkOutput]:
        """A frame from the other peer at ``now``. ``finishing``: the match is over here
        and this side waits only to make sure both hold every entry."""
        self.last_heard = now
        if isinstance(frame, EntryFrame):
            return [EntryArrived(frame.wire)]
        if isinstance(frame, PairFrame):
            return [PairArrived(frame.payload)]
        if isinstance(frame, HaveFrame):
            return self._on_have(frame, now)
        return [PeerLeft(frame.reason, self._leaving(frame.reason, finishing))]

    def _on_have(self, frame: HaveFrame, now: float) -> list[LinkOutput]:
        if frame.version != self.version and (self.version_ok or self._answered_us()):
            return [VersionIgnored(frame.version, self.version)]
        out: list[LinkOutput] = []
        if frame.version != self.version:
            bye = ByeFrame(f"peer protocol version {self.version} here")
            return [SendFrame(self.tell(now)), SendFrame(bye),
                    VersionMismatch(frame.version, self.version)]  # fmt: skip
        self.version_ok = True
        if not frame.reply and self._question is not None:
            self.latency, self._question = now - self._question, None
            out.append(Answered(self.latency))
        self.peer_have = (frame.seq_host, frame.seq_guest)
        out += [SendFrame(EntryFrame(wire)) for wire in self.proto.missing(self.peer_have)]
        if frame.reply:
            out.append(SendFrame(self.tell(now)))
        return out

    def _answered_us(self) -> bool:
        """Whether the other side has written an entry that acks one of ours: it read
        our protocol, whatever version a `have` of its names afterwards (a peer that
        plays by entries alone and then names another version would only be stopping
        us to claim the match)."""
        p = self.proto
        n = p.have()[p.opponent]
        return any(e.ack_seq > 0 for e in p.log.at(p.opponent, n)) if n else False

    def _leaving(self, reason: str, finishing: bool) -> Leaving:
        """What a bye means, from this side's log; ``reason`` (the other side's words)
        only picks the words, and ends nothing the other side has written in."""
        p = self.proto
        before_hello = p.have()[p.opponent] == 0
        if reason == OTHER_GAME_REASON or self.elsewhere:
            return Leaving.ANOTHER_GAME
        # before the other side's hello there is no game to wait for, unless it only
        # paused (a player who quits may resume before ever saying hello)
        if before_hello and not p.finished and reason != PAUSE_REASON:
            return Leaving.NEVER_BEGAN
        if reason == UNKNOWN_KEY_REASON and not p.finished:
            return Leaving.FORGOT_US
        if before_hello:
            return Leaving.PAUSED_BEFORE_HELLO
        if finishing:
            return Leaving.AFTER_THE_END
        if p.log.hello(p.me) is None:  # our hello waits for the player's yes to the rules
            return Leaving.AT_THE_RULES
        return Leaving.LEFT

    # -- the clock ---------------------------------------------------------------------
    def tick(self, now: float, *, finishing: bool = False) -> list[LinkOutput]:
        """Time passes: ask again where an answer is overdue."""
        if not self.up:
            return []
        quiet = now - max(self.last_heard, self.last_have)
        if finishing:
            if now - self.last_have >= FINISH_ASK_S:
                return [SendFrame(self.ask(now))]
            return []
        if self.proto.table.owes(self.proto.opponent) is not None and quiet > self.resync_after:
            return [Quiet(quiet), SendFrame(self.ask(now))]
        if self.ping_every is not None and now - self.asked >= self.ping_every:
            return [SendFrame(self.ask(now))]
        return []
