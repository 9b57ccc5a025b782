"""Before the game: the host admits a guest (one it knows, or one that pairs with the
code) and the guest pairs with the host, each with the words for what goes wrong.
Meanwhile a person is heard (:mod:`ginp2p.app.waiting`). Nothing here writes a game's
files.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable
from pathlib import Path

from ginp2p.errors import Ginp2pError
from ginp2p.files import peers
from ginp2p.files.identity import Identity
from ginp2p.net.endpoint import (
    BROKEN_HANDSHAKE,
    REFUSED_HANDSHAKE,
    BadFrame,
    ConnectRefused,
    Endpoint,
    GuestSide,
    HostSide,
    LinkUp,
    NetEvent,
    Received,
    Rejected,
)
from ginp2p.net.pairing import WRONG_CODE, HostPairing, PairingGate
from ginp2p.net.transport import curve_key
from ginp2p.proto.frames import ByeFrame, PairFrame
from ginp2p.proto.keytext import fingerprint
from ginp2p.proto.link import UNKNOWN_KEY_REASON

__all__ = [
    "JoinError",
    "NoAnswer",
    "WrongCode",
    "admit_guest",
    "pair_with_host",
    "refused_words",
]


class JoinError(Ginp2pError):
    """The game could not start (unreachable, refused, wrong code); nothing was saved."""


class NoAnswer(JoinError):
    """The host never answered: not running, a wrong address, or a firewall."""


class WrongCode(JoinError):
    """The pairing code was wrong (each wrong one costs an attempt on the host); ``over``:
    it was that code's last attempt, and the host shows a new code."""

    def __init__(self, words: str, over: bool) -> None:
        super().__init__(words)
        self.over = over


#: Refused connections told on the screen in one game; later ones are only counted.
REFUSALS_SHOWN = 5


def refused_words(reason: str, verbose: bool = False) -> str | None:
    """A connection the host's endpoint refused, as its player reads it; None where it
    says nothing a player can act on (a greeting that broke off: mostly a reconnect that
    timed out). ``verbose`` (``-v``): the network's own words, every time."""
    if verbose:
        return reason
    if reason == BROKEN_HANDSHAKE:
        return None
    if reason == REFUSED_HANDSHAKE:
        return ("turned away a connection that was no guest of this game (a wrong key in "
                "its join string, or another program)")  # fmt: skip
    return reason


def refusal_line(n: int, text: str) -> str | None:
    """The ``n``-th refusal's line, or None once REFUSALS_SHOWN were told: a stranger
    retrying must not flood the screen (nor push the pairing code off it)."""
    if n > REFUSALS_SHOWN:
        return None
    return text + ("; more are counted, not shown" if n == REFUSALS_SHOWN else "")


def turned_away_words(pinned: bool) -> str:
    """Why the host refused this guest's key. A host that knows us admits us unless it
    is in a game with someone else (it then admits only that player) or forgot us."""
    if pinned:
        return (
            "the host turned you away: most likely it is in a game with someone else "
            "(try again when it is free), or it has forgotten your key (then pair again "
            "with its code: --pair-code CODE)"
        )
    return (
        "the host turned you away: it is not pairing now, most likely because it is in "
        "a game with someone else (try again when it is free, with the code it shows "
        "then)"
    )


async def _next_event(endpoint: Endpoint, timeout: float | None) -> NetEvent:
    try:
        return await asyncio.wait_for(endpoint.recv(), timeout)
    except TimeoutError:
        raise TimeoutError from None


#: The host's bye to a guest whose wrong code was that code's last attempt: the guest
#: would otherwise try again with a code that works no more.
PAIRING_OVER_REASON = "that was the last attempt with this pairing code: the host shows a new one"
PAIRING_OVER_WORDS = (
    "wrong pairing code, and that code's last attempt: it works no more, so that nobody can "
    "go on guessing it; the host's screen shows a new code: join again with that one (if the "
    "code was typed right, someone may be in the middle)"
)
#: How long a guest whose code was wrong waits for the host's bye (seconds).
BYE_WAIT_S = 1.0


class _Pairings:
    """The host's pairing attempts, one per guest connection, and the code on its screen.
    Nothing a guest sends stops the host: a malformed request costs nothing, a wrong
    code one attempt, and a code that had its attempts is replaced by the gate, which
    is said here."""

    def __init__(self, endpoint: HostSide, gate: PairingGate | None,
                 say: Callable[[str], None], refused: Callable[[str], None],
                 verbose: bool = False) -> None:  # fmt: skip
        self.endpoint, self.gate, self.say, self.refused = endpoint, gate, say, refused
        self.verbose = verbose
        self.attempts: dict[bytes, HostPairing] = {}
        self.shown = gate.code if gate is not None else ""
        self._used_up = gate.used_up if gate is not None else 0  # codes replaced, told

    def _detail(self, exc: Exception) -> str:
        """The pairing's own words, for ``-v`` only: the guest's advice (check the code)
        is the guest's to read."""
        return f" ({exc})" if self.verbose else ""

    async def take(self, peer: bytes, payload: bytes) -> bytes | None:
        """One pairing message from ``peer``; the guest's Ed25519 key once it paired."""
        from ginp2p.net.pairing import PairingError, PairingRefused

        if self.gate is None:  # not pairing (the endpoint passes no pair frame then)
            return None
        if self.gate.used_up == self._used_up:  # a code the host renewed is shown already
            self.shown = self.gate.code
        hp = self.attempts.get(peer)
        try:
            if hp is None:
                hp = self.attempts[peer] = self.gate.begin(peer)
            reply = hp.receive(payload)
        except PairingRefused as exc:  # a new code in its pause, or the code was used
            self.attempts.pop(peer, None)
            self.refused(f"a guest was turned away: {exc}")
            await self.endpoint.send(ByeFrame(f"pairing refused: {exc}"[:200]), to=peer)
            self._show_new_code()
            return None
        except PairingError as exc:
            self.attempts.pop(peer, None)
            await self._failed(peer, hp is not None and hp.counted, exc)
            self._show_new_code()
            return None
        if reply is not None:
            await self.endpoint.send(PairFrame(reply), to=peer)
            return None
        return hp.peer_key

    async def _failed(self, peer: bytes, counted: bool, exc: Exception) -> None:
        """A failed attempt. One that tested no guess (malformed, another version) is
        counted with the strangers' lines and cuts nobody off; a wrong code drops every
        connection (a ROUTER cannot close one), its guest told first."""
        if not counted:
            self.refused(f"a guest could not pair{self._detail(exc)}; that costs no attempt")
            await self.endpoint.send(ByeFrame(f"pairing failed: {exc}"[:200]), to=peer)
            return
        wrong = str(exc) == WRONG_CODE and not self.verbose
        self.say("a guest gave a wrong pairing code" if wrong
                 else f"a guest failed to pair ({exc})")  # fmt: skip
        assert self.gate is not None  # (an attempt was made)
        over = self.gate.used_up != self._used_up  # that was the code's last attempt
        bye = PAIRING_OVER_REASON if over else f"pairing failed: {exc}"[:200]
        await self.endpoint.send(ByeFrame(bye), to=peer)
        await asyncio.sleep(0.05)  # let the bye go before the connection is cut
        await self.endpoint.drop_connections()
        if not over:
            left = self.gate.attempts_left
            self.say(f"{left} pairing attempt{'' if left == 1 else 's'} left with this code")

    def _show_new_code(self) -> None:
        """Say the new code once the gate replaced one that had its attempts."""
        if self.gate is None or self.gate.used_up == self._used_up:
            return
        self._used_up = self.gate.used_up
        self.say(f"the pairing code {self.shown} had its {self.gate.limit} attempts: it works "
                 "no more, so that nobody can go on guessing it")  # fmt: skip
        self.shown = self.gate.code
        wait = math.ceil(self.gate.paused_for)
        taken = f", taken in {wait} s" if wait else ""
        self.say(f"pairing code: {self.shown}  (a new one{taken}; a guest you paired with "
                 "before needs none)")  # fmt: skip


async def admit_guest(
    endpoint: HostSide,
    identity: Identity,
    gate: PairingGate | None,
    say: Callable[[str], None],
    known: dict[bytes, bytes],
    *,
    home: Path | None = None,
    verbose: bool = False,
) -> bytes:
    """The host, before the game: wait for a pinned guest (its first ``have``) or a
    guest that pairs with the code (pinned then in ``home``'s players, see
    :mod:`ginp2p.files.peers`). Returns the guest's Ed25519 key. Every frame but
    ``pair`` from an unpinned key is dropped (answered with a ``bye`` saying to pair,
    once on each of its connections); after a wrong code every connection is dropped.
    No guest can stop it: a code that had its attempts is replaced, and the new code
    shown (see :class:`_Pairings`). ``verbose``: the network's and the pairing's own
    words too (``-v``)."""
    # key -> the connection it was told on: once per connection, since its next frames
    # (resyncs) need no second bye, but a new `join` with that key does
    told: dict[bytes, int] = {}
    refusals = 0  # connections refused or unknown keys told

    def refused(text: str | None) -> None:
        nonlocal refusals
        if text is None:  # nothing the player can act on
            return
        refusals += 1
        if (line := refusal_line(refusals, text)) is not None:
            say(line)

    pairings = _Pairings(endpoint, gate, say, refused, verbose)
    while True:
        ev = await endpoint.recv()
        if isinstance(ev, Received) and isinstance(ev.frame, PairFrame):
            guest = await pairings.take(ev.peer, ev.frame.payload)
            if guest is not None:
                peers.pin(guest, "", home=home)
                endpoint.pin(ev.peer)
                known[ev.peer] = guest
                say(f"paired with a guest, key fingerprint {fingerprint(guest)}; "
                    "next time no code is needed")  # fmt: skip
            continue  # its first `have` makes it the guest
        if isinstance(ev, Received) and ev.peer in endpoint.pinned and ev.peer in known:
            endpoint.events.put_nowait(ev)  # the session answers this `have`
            if endpoint.connected:
                endpoint.events.put_nowait(LinkUp(ev.peer))
            return known[ev.peer]
        if isinstance(ev, BadFrame) and ev.peer is not None:
            if told.get(ev.peer) != ev.connection:
                told[ev.peer] = ev.connection
                refused("a guest this host does not know did not pair: it was told to use "
                        "the pairing code")  # fmt: skip
                await endpoint.send(ByeFrame(UNKNOWN_KEY_REASON), to=ev.peer)
        elif isinstance(ev, Rejected):
            refused(refused_words(ev.reason, verbose))


async def _host_bye(endpoint: GuestSide, wait: float) -> str | None:
    """The reason of the host's next bye, if one comes within ``wait`` seconds."""
    loop = asyncio.get_running_loop()
    end = loop.time() + wait
    while (left := end - loop.time()) > 0:
        try:
            ev = await _next_event(endpoint, left)
        except TimeoutError:
            return None
        if isinstance(ev, Received) and isinstance(ev.frame, ByeFrame):
            return ev.frame.reason
    return None


#: Connections refused this long (seconds) are told, once: the host may start a moment
#: after its guest (``play`` starts its computer just after the host listens).
REFUSED_TELL_S = 1.0


def nothing_listening_words(endpoint: GuestSide, left: float | None) -> str:
    """Said while the guest still waits: its connections are refused, not unanswered."""
    still = f"still trying for {left:.0f} s" if left is not None else "still trying"
    return (
        f"nothing is listening at {endpoint.host}:{endpoint.port} yet (is the host "
        f"running? is the port right?); {still}"
    )


def no_answer_words(endpoint: GuestSide, timeout: float) -> str:
    """Why the guest gives up: refused connections point to the port or a host not
    running; unanswered ones to the address or a firewall."""
    where = f"{endpoint.host}:{endpoint.port}"
    if endpoint.refusing:
        return (
            f"nothing was listening at {where} within {timeout:g} s (the connections "
            "were refused): is the host running, and is the port right?"
        )
    return (
        f"no answer from the host at {where} within {timeout:g} s: is it running, is "
        "the address right, and is the port open in its firewall?"
    )


async def pair_with_host(
    endpoint: GuestSide,
    identity: Identity,
    host_key: bytes,
    code: str | None,
    say: Callable[[str], None],
    timeout: float | None,
    *,
    home: Path | None = None,
) -> None:
    """The guest, before the game: wait for the encrypted link, then pair with ``code``
    (if given). On success the host's key is pinned. Raises JoinError, having pinned
    nothing, if the host is unreachable, refuses us, or the code is wrong."""
    from ginp2p.net.pairing import GuestPairing, PairingError

    loop = asyncio.get_running_loop()
    deadline = None if timeout is None else loop.time() + timeout
    gp = None
    if code is not None:
        gp = GuestPairing(code, identity.public_key, host_key=host_key,
                          curve_key=curve_key(host_key))  # fmt: skip
    failures = 0
    told_refused = started = False
    while True:
        left = None if deadline is None else max(0.0, deadline - loop.time())
        try:
            ev = await _next_event(endpoint, left)
        except TimeoutError:
            if not endpoint.ever_connected:
                assert timeout is not None
                raise NoAnswer(no_answer_words(endpoint, timeout)) from None
            raise JoinError("the host did not answer the pairing request in time") from None
        if isinstance(ev, ConnectRefused):
            if not told_refused and ev.for_s >= REFUSED_TELL_S:
                told_refused = True
                now_left = None if deadline is None else max(0.0, deadline - loop.time())
                say(nothing_listening_words(endpoint, now_left))
        elif isinstance(ev, LinkUp):
            if gp is None:
                endpoint.events.put_nowait(ev)  # a pinned host: straight to the game
                return
            if started:  # a new connection: the host forgot this attempt with the old one
                raise JoinError("the host cut the connection while pairing (it does so "
                                "when another guest's pairing fails): try again")  # fmt: skip
            started = True
            await endpoint.send(PairFrame(gp.start()))
        elif isinstance(ev, Rejected):
            failures += 1
            if ev.auth:
                pinned = peers.lookup_quietly(host_key, home=home) is not None
                raise JoinError(turned_away_words(pinned))
            if failures >= 2:
                raise JoinError(f"cannot join: {ev.reason}")
        elif isinstance(ev, Received) and isinstance(ev.frame, ByeFrame):
            raise JoinError(f"the host closed the connection: {ev.frame.reason}")
        elif isinstance(ev, Received) and isinstance(ev.frame, PairFrame) and gp is not None:
            try:
                last = gp.receive(ev.frame.payload)
            except PairingError as exc:
                if exc.reply is not None:  # the host fails too, and says if it stopped
                    await endpoint.send(PairFrame(exc.reply))
                    if await _host_bye(endpoint, BYE_WAIT_S) == PAIRING_OVER_REASON:
                        raise WrongCode(PAIRING_OVER_WORDS, over=True) from None
                    raise WrongCode(str(exc), over=False) from None
                raise JoinError(str(exc)) from None
            if last is not None:
                await endpoint.send(PairFrame(last))
            peers.pin(host_key, "", home=home)
            say(f"paired with the host, key fingerprint {fingerprint(host_key)}; "
                "next time no code is needed")  # fmt: skip
            if endpoint.connected:
                endpoint.events.put_nowait(LinkUp(endpoint.server_key))
            return
