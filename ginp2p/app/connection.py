"""The session's side of the connection: what the endpoint and the link say, turned
into the game's inputs and the player's lines.

The endpoint reports connections made, lost and refused, and the frames that came
(:mod:`ginp2p.net.endpoint`); the link (:class:`~ginp2p.proto.link.Link`) says what
each frame means: an entry for the protocol, entries the other side lacks, a version
it does not speak, a goodbye. :class:`ConnectionSide` carries that out and words it.
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import assert_never

from ginp2p import __version__
from ginp2p.app.core import SessionCore, paired_player
from ginp2p.app.pregame import REFUSALS_SHOWN, refusal_line, refused_words, turned_away_words
from ginp2p.files import peers
from ginp2p.net.endpoint import (
    BadFrame,
    ConnectRefused,
    GuestSide,
    LinkDown,
    LinkUp,
    NetEvent,
    Received,
    Rejected,
)
from ginp2p.net.transport import curve_key
from ginp2p.present.words import preset_words
from ginp2p.proto.frames import Frame, PairFrame
from ginp2p.proto.link import (
    Answered,
    EntryArrived,
    Leaving,
    LinkOutput,
    PairArrived,
    PeerLeft,
    Quiet,
    SendFrame,
    VersionIgnored,
    VersionMismatch,
)

__all__ = [
    "DECLINED_REASON",
    "MOVED_HINT_S",
    "ConnectionSide",
    "forgotten_by_words",
    "moved_words",
    "turned_away_midgame_words",
    "turned_down_words",
    "version_words",
]

#: A guest's bye when its player says no to the host's rules.
DECLINED_REASON = "the guest declined the rules"

#: Refused this long in a row, a guest of a game under way is told the host may run it
#: elsewhere now (a host that resumes takes another port if its own is taken). A guest
#: given a connect timeout waits that long instead: it said how long is "no answer".
MOVED_HINT_S = 20.0


def moved_words(endpoint: GuestSide, name: str, path: Path | None, for_s: float) -> str:
    """What a guest can do when nothing listens where its host was: the host may have
    resumed the game on another port or computer, which only the host's screen shows."""
    where = f"{endpoint.host}:{endpoint.port}"
    return (
        f"nothing has listened at {where} for {for_s:.0f} s: if {name} runs this game "
        "again at another port or address (their screen shows it), leave (the game "
        f"stays saved) and run: ginp2p resume {path or 'FILE'} --address HOST:PORT"
    )


def forgotten_by_words(name: str) -> str:
    """The other side's bye saying it does not know our key, as their words: an honest
    host that forgot us says it while it pairs, but any peer may say it, so it ends
    nothing (the game stays saved and waits)."""
    return (
        f"{name}'s ginp2p says it does not know your key: if {name} forgot you "
        "(`ginp2p keys --forget`), pair again with the code their screen shows "
        "(`ginp2p join --new --pair-code CODE`); this game stays saved and waits for "
        f"{name} (`ginp2p resume` continues it later)"
    )


def turned_away_midgame_words(name: str) -> str:
    """A game under way whose host turns our connection away (its transport refused our
    key): only its doing, so the game waits, and the connection is tried again."""
    return (
        f"{name}'s ginp2p turned your connection away (it may be in another game, or "
        "have forgotten your key): this game stays saved and waits for them, trying "
        "again (`ginp2p resume` continues it later)"
    )


def turned_down_words(reason: str, rules: str | None) -> str:
    """A new guest's no to the host's game (its bye before its hello), as the host's
    player reads it: the guest's name is not known yet (its hello would have said it)."""
    offered = f" ({rules})" if rules else ""
    if reason == DECLINED_REASON:
        return f"your guest declined your rules{offered}"
    return f"your guest turned your game down: {reason.removeprefix('refused: ')}"


def version_words(theirs: int, ours: int) -> str:
    """Why a game stops on a version mismatch."""
    return (
        f"version mismatch: the other player's ginp2p speaks peer protocol version "
        f"{theirs}, this one (ginp2p {__version__}) speaks version {ours}; both need the "
        "same version"
    )


class ConnectionSide(SessionCore):
    """The network events and the link's outputs of a session (see the module)."""

    _told_version = False  # that a `have` of another version was ignored
    _told_moved = False  # that the host may be running the game elsewhere
    _told_other = False  # that the other side plays another game
    _told_forgot = False  # that the other side says it does not know our key
    _told_turned_away = False  # that the host turned a connection of a game away
    _greet = False  # a link is up, and "connected to NAME" not yet said
    _opponent_curve: tuple[bytes, bytes] | None = None  # its key, and its connection key
    _handshake_failures = 0  # guest: connections that did not get through
    verbose = False  # -v: the network's own words too (a greeting broken off, say)

    async def _on_net(self, ev: NetEvent) -> None:
        if isinstance(ev, ConnectRefused):  # the host is gone: "reconnecting…" says it
            ep = self.endpoint
            hint_after = MOVED_HINT_S if self.connect_timeout is None else self.connect_timeout
            if ep.role == "guest" and ev.for_s >= hint_after and not self._told_moved \
                    and self.proto.log.game:  # fmt: skip
                self._told_moved = True  # once until the link is up again
                self.say(moved_words(ep, self.opponent_name, self.game_path, ev.for_s))
            return
        if isinstance(ev, Received | LinkUp | LinkDown) and not self._from_opponent(ev.peer):
            return  # another paired player, admitted while the host paired: not this game's
        if isinstance(ev, Received):
            self.stats.frames_in += 1
            await self._on_frame(ev.frame, ev.peer)
        elif isinstance(ev, LinkUp):
            self._told_moved = False
            if self.link.connected():  # (a new connection: perhaps the right game now)
                self._greet = True
                self._greet_by_name()
            if self.endpoint.role == "guest" or self._woke is not None:
                await self._ask()  # its answer ends the settling
        elif isinstance(ev, LinkDown):
            if self.link.disconnected():
                self.stats.reconnects += 1
                if self.finishing is None:
                    self.say(f"lost the connection: waiting for {self.opponent_name} "
                             "(reconnecting…)")  # fmt: skip
        elif isinstance(ev, Rejected):
            self._on_rejected(ev)
        elif isinstance(ev, BadFrame):
            self.stats.bad_frames += 1
            if ev.peer is not None and ev.peer not in self._told_unpinned:
                self._told_unpinned.add(ev.peer)
                self.say(f"ignored a message from {self._sender(ev.peer)}: {ev.reason}")
        else:
            assert_never(ev)

    def _on_rejected(self, ev: Rejected) -> None:
        self.stats.rejected += 1
        ep = self.endpoint
        if ep.role == "host":
            n = self.stats.rejected  # peers.json is read only for a line that is shown
            said = self._turned_away(ev) if n <= REFUSALS_SHOWN else None
            if said is not None and (line := refusal_line(n, said)):
                self.say(line)
            return
        first = not ep.ever_connected
        self._handshake_failures += 1
        if ev.auth and self.proto.log.game is not None:  # its doing: the game waits
            if not self._told_turned_away:
                self._told_turned_away = True
                self.say(turned_away_midgame_words(self.opponent_name))
        elif ev.auth:
            pinned = peers.lookup_quietly(self.proto.log.key(self.proto.opponent), home=self.home)
            self._end(1, "error", turned_away_words(pinned is not None))
        elif first and self._handshake_failures >= 2:
            self._end(1, "error", f"cannot join: {ev.reason}")

    def _from_opponent(self, curve: bytes | None) -> bool:
        """Whether a connection key is the other player's (True while either is not
        known: a host before its guest's hello or pin, a link event without a key)."""
        key = self.proto.log.key(self.proto.opponent)
        if key is None or curve is None:
            return True
        if self._opponent_curve is None or self._opponent_curve[0] != key:
            try:
                self._opponent_curve = (key, curve_key(key))
            except (ValueError, RuntimeError):  # no curve point: it cannot connect at all
                return False
        return self._opponent_curve[1] == curve

    def _sender(self, curve: bytes) -> str:
        """Who sent a message, from its connection key: the other player, a player
        paired with this one, or a stranger (never the key, which matches nothing the
        player can see)."""
        with contextlib.suppress(ValueError, RuntimeError):  # no key yet, or no curve point
            if curve_key(self.proto.log.key(self.proto.opponent) or b"") == curve:
                return self.opponent_name or self._peer_label()
        return paired_player(curve, self.home) or "an unknown player"

    def _turned_away(self, ev: Rejected) -> str | None:
        """The host's line for a refused connection: a player paired with this host is
        named as ``ginp2p keys`` lists it (turned away because this game is another's);
        None for one a player can do nothing about (said with ``-v`` only)."""
        friend = paired_player(ev.peer, self.home) if ev.peer is not None else None
        if friend is None:
            return refused_words(ev.reason, self.verbose)
        return (
            f"{friend} tried to join; this game is with "
            f"{self.opponent_name or 'another player'}, so they were turned away"
        )

    def _greet_by_name(self) -> None:
        """Say "connected to Ann" once the other player's name is known: at once on a
        rematch or a reconnection, else when its hello arrives (just after the link),
        so the line never says "the guest" one time and the name the next."""
        p = self.proto
        if self._greet and (p.log.hello(p.opponent) is not None or self.known_name):
            self._greet = False
            self.say(f"connected to {self.opponent_name}")

    # -- the link ------------------------------------------------------------------------
    async def _on_frame(self, frame: Frame, peer: bytes) -> None:
        """A frame from ``peer``: the link says what it means, and it is carried out."""
        finishing = self.finishing is not None
        for out in self.link.receive(frame, self.now(), finishing=finishing):
            await self._on_link(out, peer)

    async def _on_link(self, out: LinkOutput, peer: bytes) -> None:
        """One output of the link, carried out."""
        match out:
            case SendFrame(frame):
                await self._send(frame)
            case EntryArrived(wire):
                # the move first (stored, shown), then whatever it makes owed (a set-up)
                await self._carry(self.proto.receive(wire, self.now(), auto=False))
                await asyncio.sleep(0)
                await self._carry(self.proto.advance())
            case PairArrived(payload):
                if self.on_pair is not None:
                    self.on_pair(PairFrame(payload), peer)
            case Answered():
                if self._woke is not None:  # what was sent before this answer has come
                    self._settled()
            case VersionIgnored(theirs, ours):
                # the other side spoke our version in this game already: stopping now
                # would only leave it free to claim the match against us
                if not self._told_version:
                    self._told_version = True
                    self.say(f"ignored a message from {self.opponent_name} that names peer "
                             f"protocol version {theirs}: this game speaks version {ours}, "
                             "and waits for it")  # fmt: skip
            case VersionMismatch(theirs, ours):
                self._end(1, "error", version_words(theirs, ours))
            case PeerLeft():
                self._on_left(out)
            case Quiet():
                self.stats.resyncs += 1
            case _:
                assert_never(out)

    def _on_left(self, bye: PeerLeft) -> None:
        """The other side's ``bye``, in words (or the end of this game)."""
        why = bye.reason or "no reason given"
        opp = self.opponent_name
        match bye.meaning:
            case Leaving.ANOTHER_GAME:
                self.say(f"{self._peer_label()}'s ginp2p left another game it had open with "
                         "you; this game is unchanged and waits for them")  # fmt: skip
            case Leaving.NEVER_BEGAN if self.endpoint.role == "host":  # a new guest's no
                rules = self.proto.table.rules
                offered = preset_words(rules) if rules is not None else None
                self._end(1, "declined", turned_down_words(why, offered))
            case Leaving.NEVER_BEGAN:
                self._end(1, "error", f"{self._peer_label()} closed the game before it began: "
                                      f"{why}")  # fmt: skip
            case Leaving.FORGOT_US:  # their words: the game waits, as after any bye
                if not self._told_forgot:  # a host that pairs says it on each connection
                    self._told_forgot = True
                    self.say(forgotten_by_words(opp))
            case Leaving.PAUSED_BEFORE_HELLO:
                self.say(f"{opp} left before the game began; this game waits for them to "
                         "join again")  # fmt: skip
            case Leaving.AT_THE_RULES:
                self.say(f"{opp} left ({why}) before you answered about the rules: yes keeps "
                         "the game, saved, for when they come back; no ends it")  # fmt: skip
            case Leaving.LEFT:
                self.say(f"{opp} left ({why}); the game is saved on both sides")
            case Leaving.AFTER_THE_END:
                pass
            case _:
                assert_never(bye.meaning)
