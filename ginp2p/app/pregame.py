"""Before the game: the host admits a guest (one it knows, or one that pairs with the
code) and the guest pairs with the host, each with the words for what goes wrong; and
meanwhile a person at the line prompt is heard (``quit``, ``help``), so that nothing
they type waits to be played into the game. Nothing here writes a game's files.
"""

from __future__ import annotations

import asyncio
import math
import sys
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from ginp2p.app.config import GameSetup
from ginp2p.app.piped import PipedLines
from ginp2p.errors import Ginp2pError
from ginp2p.files import peers
from ginp2p.files.identity import Identity
from ginp2p.net.endpoint import (
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
from ginp2p.net.pairing import HostPairing, PairingGate
from ginp2p.net.transport import curve_key
from ginp2p.present.commands import HELP_WORDS, QUIT_WORDS, RULES_ANSWERS
from ginp2p.proto.frames import ByeFrame, PairFrame
from ginp2p.proto.keytext import fingerprint
from ginp2p.proto.link import UNKNOWN_KEY_REASON

__all__ = [
    "JoinError",
    "LeftWaiting",
    "NoAnswer",
    "admit_guest",
    "pair_with_host",
    "unless_left",
]


class JoinError(Ginp2pError):
    """The game could not start (unreachable, refused, wrong code); nothing was saved."""


class NoAnswer(JoinError):
    """The host never answered: not running, a wrong address, or a firewall."""


#: Refused connections told on the screen in one game; later ones are only counted.
REFUSALS_SHOWN = 5


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
                 say: Callable[[str], None], refused: Callable[[str], None]) -> None:  # fmt: skip
        self.endpoint, self.gate, self.say, self.refused = endpoint, gate, say, refused
        self.attempts: dict[bytes, HostPairing] = {}
        self.shown = gate.code if gate is not None else ""

    async def take(self, peer: bytes, payload: bytes) -> bytes | None:
        """One pairing message from ``peer``; the guest's Ed25519 key once it paired."""
        from ginp2p.net.pairing import PairingError, PairingRefused

        if self.gate is None:  # not pairing (the endpoint passes no pair frame then)
            return None
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
            self.refused(f"a guest could not pair ({exc}); that costs no attempt")
            await self.endpoint.send(ByeFrame(f"pairing failed: {exc}"[:200]), to=peer)
            return
        self.say(f"a guest failed to pair: {exc}")
        assert self.gate is not None  # (an attempt was made)
        over = self.gate.code != self.shown  # that was the code's last attempt
        bye = PAIRING_OVER_REASON if over else f"pairing failed: {exc}"[:200]
        await self.endpoint.send(ByeFrame(bye), to=peer)
        await asyncio.sleep(0.05)  # let the bye go before the connection is cut
        await self.endpoint.drop_connections()
        if not over:
            left = self.gate.attempts_left
            self.say(f"{left} pairing attempt{'' if left == 1 else 's'} left with this code")

    def _show_new_code(self) -> None:
        """Say the new code once the gate replaced one that had its attempts."""
        if self.gate is None or self.gate.code == self.shown:
            return
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
) -> bytes:
    """The host, before the game: wait for a pinned guest (its first ``have``) or a
    guest that pairs with the code (pinned then in ``home``'s players, see
    :mod:`ginp2p.files.peers`). Returns the guest's Ed25519 key. Every frame but
    ``pair`` from an unpinned key is dropped (answered with a ``bye`` saying to pair,
    once on each of its connections); after a wrong code every connection is dropped.
    No guest can stop it: a code that had its attempts is replaced, and the new code
    shown (see :class:`_Pairings`)."""
    # key -> the connection it was told on: once per connection, since its next frames
    # (resyncs) need no second bye, but a new `join` with that key does
    told: dict[bytes, int] = {}
    refusals = 0  # connections refused or unknown keys told

    def refused(text: str) -> None:
        nonlocal refusals
        refusals += 1
        if (line := refusal_line(refusals, text)) is not None:
            say(line)

    pairings = _Pairings(endpoint, gate, say, refused)
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
            refused(ev.reason)


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
                        raise JoinError(PAIRING_OVER_WORDS) from None
                raise JoinError(str(exc)) from None
            if last is not None:
                await endpoint.send(PairFrame(last))
            peers.pin(host_key, "", home=home)
            say(f"paired with the host, key fingerprint {fingerprint(host_key)}; "
                "next time no code is needed")  # fmt: skip
            if endpoint.connected:
                endpoint.events.put_nowait(LinkUp(endpoint.server_key))
            return


@dataclass(frozen=True, slots=True)
class _WaitWords:
    """What a person waits for before the game, and what leaving then means."""

    waiting: str  # "the game has not begun: waiting for a guest to join"
    stop: str  # what `quit` does now: "stop hosting"
    keeps: str  # and what that keeps: "nothing is kept"
    left: str  # said on leaving: "stopped hosting before a guest joined"
    kept: str  # and after it, what is kept
    rules_to_come: bool = False  # a new guest: the host's rules are asked once it answers
    about: str = ""  # more for help, a line of its own: where the join string is
    hint: str = ""  # after "the input ended": another way to do what was meant

    def help(self, terminal: bool) -> str:
        """``help`` while waiting: what is awaited and the two commands that work now
        (ASCII, within 80 columns, as the game's help)."""
        lines = [self.waiting, *([self.about] if self.about else []),
                 f"  quit                     {self.stop}; {self.keeps}",
                 "  help                     this list"]  # fmt: skip
        if terminal:
            lines.append(f"  Ctrl-D or Ctrl-C         {self.stop} too")
        if self.rules_to_come:
            lines.append("the host's rules are shown once it answers; answer yes or no then")
        lines.append("the game's commands work once it has begun (help then lists them)"
                     if terminal else "a script's other lines wait for the game")  # fmt: skip
        return "\n".join(lines)

    def said(self, ended: bool) -> list[str]:
        """The lines said on leaving; ``ended``: by the end of a pipe's input."""
        why = f": the input ended, which is `quit` from a pipe{self.hint}" if ended else ""
        return [f"{self.left}{why}", self.kept]


def _wait_words(setup: GameSetup, resume: bool) -> _WaitWords:
    """The words of the wait for the other player, for a host, ``play``'s person, a
    guest, or a guest resuming (its game is kept)."""
    unbegun = "the game has not begun: waiting for"
    nothing = "nothing was played, so nothing is kept"
    if setup.side.role == "guest":
        if resume and setup.ended is not None:  # nothing to play: only logs to compare
            return _WaitWords(f"{setup.ended}; waiting for the host only to compare logs",
                              "leave", "nothing is lost", "left before the host answered",
                              f"{setup.ended}: nothing was left to play")  # fmt: skip
        if resume:
            return _WaitWords("the saved game goes on once the host answers", "leave",
                              "the game stays saved", "left before the host answered",
                              f"the game is saved; continue it with: ginp2p resume "
                              f"{setup.path}")  # fmt: skip
        return _WaitWords(f"{unbegun} the host to answer", "stop joining", "nothing is kept",
                          "stopped joining before the game began", nothing,
                          rules_to_come=True)  # fmt: skip
    if setup.side.computer_game:
        return _WaitWords(f"{unbegun} the computer player to join", "leave", "nothing is kept",
                          "left before the game began", nothing)  # fmt: skip
    return _WaitWords(f"{unbegun} a guest to join", "stop hosting", "nothing is kept",
                      "stopped hosting before a guest joined", nothing,
                      about="(give them the join string and the pairing code above)",
                      hint="; a host that plays by itself is `ginp2p bot --host`")  # fmt: skip


class LeftWaiting(Exception):
    """The person left before the other player came: ``quit``, the end of input, or
    Ctrl-C at the prompt (``interrupted``). Nothing was played."""

    def __init__(self, words: _WaitWords, how: str) -> None:
        super().__init__(how)
        self.words = words
        self.ended = how == "ended"
        self.interrupted = how == "interrupted"


async def _pipe_while_waiting(piped: PipedLines, words: _WaitWords,
                              say: Callable[[str], None]) -> str:  # fmt: skip
    """A script's lines while the other player is awaited: `quit` and the end of the
    input leave, `help` answers; the first other line is the script's game, which it and
    every line after it wait for (a script's `quit` after its moves is not a quit now)."""
    while (line := await piped.peek()) is not None:
        verb = line.split()[0].lower() if line.split() else ""
        if verb and verb not in QUIT_WORDS + HELP_WORDS:
            await asyncio.Future()  # until the game begins (the wait is cancelled)
        piped.take()
        if verb in QUIT_WORDS:
            return "quit"
        if verb in HELP_WORDS:
            say(words.help(terminal=False))
    return "ended"


async def _prompt_while_waiting(words: _WaitWords, say: Callable[[str], None]) -> str:
    """The prompt while the other player is awaited: every line typed now is answered
    now (the terminal would otherwise keep it for the game's prompt, where a `quit`
    meant for the wait would ask to leave the game)."""
    from prompt_toolkit import PromptSession
    from prompt_toolkit.patch_stdout import patch_stdout

    ps: PromptSession[str] = PromptSession()
    with patch_stdout():
        while True:
            prompt = asyncio.ensure_future(ps.prompt_async("ginp2p> ", handle_sigint=False))
            try:
                line = await asyncio.shield(prompt)
            except asyncio.CancelledError:  # the other player came: the game's prompt
                ps.app.erase_when_done = True  # takes over, and this one goes (with half
                await _ended(prompt)  # a line typed at it), not left on the screen
                raise
            except EOFError:  # Ctrl-D
                return "quit"
            except KeyboardInterrupt:
                return "interrupted"
            verb = line.split()[0].lower() if line.split() else ""
            if not verb:
                continue
            if verb in QUIT_WORDS:
                return "quit"
            if verb in HELP_WORDS:
                say(words.help(terminal=True))
            elif words.rules_to_come and verb in RULES_ANSWERS:
                say("? the host's rules have not come yet: answer yes or no once they are "
                    "shown")  # fmt: skip
            else:
                say(f"? {words.waiting}; `quit` to {words.stop}, `help` says more")


_T = TypeVar("_T")


async def unless_left(setup: GameSetup, waiting: Coroutine[Any, Any, _T], resume: bool,
                      say: Callable[[str], None]) -> _T:  # fmt: skip
    """``waiting`` (admitting the guest, or pairing with the host), while a person at the
    line prompt is heard. Unread, what they type meanwhile would be played into the game
    once it began (a `quit` asking to leave a live game, the next line answering it),
    and the end of their input would go unnoticed until then. LeftWaiting if they
    leave."""
    stdin = sys.stdin
    if setup.player != "human" or setup.table is not None or stdin is None:
        return await waiting
    words = _wait_words(setup, resume)
    if stdin.isatty():
        watch = _prompt_while_waiting(words, say)
    else:
        if setup.piped is None:
            setup.piped = PipedLines(stdin)
        watch = _pipe_while_waiting(setup.piped, words, say)
    work, heard = asyncio.ensure_future(waiting), asyncio.ensure_future(watch)
    try:
        await asyncio.wait((work, heard), return_when=asyncio.FIRST_COMPLETED)
        if heard.done() and heard.exception() is None:  # the person left (even if the
            raise LeftWaiting(words, heard.result())  # other just came: they said so)
        return await work  # the other player came (or the prompt failed: wait without it)
    finally:
        await _ended(heard)
        await _ended(work, insist=True)


async def _ended(task: asyncio.Future[Any], insist: bool = False) -> None:
    """Cancel ``task`` and wait until it has ended. ``insist``: cancel it again every
    0.1 s until it has, for pairing, which waits in asyncio.wait_for: Python 3.11's
    drops a cancel that comes just as what it waits for is done (gh-86296), and the
    pairing would go on. Not for a prompt: a second cancel cuts short the giving back
    of the terminal (up to a second where the terminal does not answer where its cursor
    is), which then ends after the game's prompt has begun, and takes its keys away."""
    task.cancel()
    while not task.done():
        await asyncio.wait((task,), timeout=0.1)
        if insist:
            task.cancel()
    if not task.cancelled():
        task.exception()  # seen: an error of an abandoned wait is no unhandled error
