"""One game, from the command line's :class:`GameSetup` to its exit code: the
endpoint, the other player admitted or joined, the files opened (a saved game's
checked first), the protocol, the player and the :class:`~ginp2p.app.session.Session`;
and the files removed again when nothing was played.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ginp2p.app.code_prompt import ask_code, code_again
from ginp2p.app.config import GameSetup
from ginp2p.app.players import BotPlayer, Player
from ginp2p.app.pregame import (
    JoinError,
    NoAnswer,
    WrongCode,
    admit_guest,
    pair_with_host,
)
from ginp2p.app.process import die
from ginp2p.app.session import Session
from ginp2p.app.waiting import (
    LeftWaiting,
    awaited,
    forget_typed_ahead,
    host_about,
    unless_left,
    while_waiting,
)
from ginp2p.errors import Ginp2pError
from ginp2p.files import peers
from ginp2p.files.gamefiles import PeerFile, drop_reservation, peer_path
from ginp2p.files.identity import Identity, user_dir
from ginp2p.files.logfile import (
    FileError,
    FileLocked,
    LogFile,
    SecretsError,
    SecretsFile,
    hold_lock,
    let_go,
    read_records,
    secrets_path,
)
from ginp2p.files.private import NotAFile, private_folder, read_regular
from ginp2p.net.endpoint import GuestSide, HostSide, NetError
from ginp2p.net.transport import ZeroMQ, curve_key
from ginp2p.present.seat_words import away_words
from ginp2p.present.words import count, match_end_words
from ginp2p.proto.entry import Entry
from ginp2p.proto.keytext import fingerprint, key_to_text
from ginp2p.proto.log import Log
from ginp2p.proto.protocol import PeerProtocol
from ginp2p.proto.table import Table

__all__ = [
    "busy_as_guest",
    "open_game",
    "run_game",
]


def _lan_address(bind: str) -> str:
    """What to put in the join string: the bound address, or this machine's LAN one."""
    if bind not in ("0.0.0.0", "::", "*", ""):
        return bind
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.connect(("10.254.254.254", 1))  # no packet is sent: it only picks a route
        return str(s.getsockname()[0])
    return socket.gethostname()


def _pin_name(hello: Entry, home: Path | None = None) -> None:
    """A paired player's pin is named by its hello as soon as the hello is stored
    (pairing pins the key alone; a game cut short must not leave it nameless); a pin
    named before keeps its name, and a different one is kept beside it (peers.pin)."""
    key, name = hello.body.key, hello.body.name
    # the name is a convenience: a peers.json that cannot be read or written now is
    # `ginp2p keys`'s to report, and must not stop the game
    with contextlib.suppress(OSError, ValueError, peers.PeersError):
        if name and peers.is_pinned(key, home=home):
            peers.pin(key, name, home=home)


def _saved_log(path: Path, records: Sequence[bytes], me: int, identity: Identity) -> Log:
    """The saved game's log. RuntimeError if it was played with another key: its
    entries would be refused by the log and by the other player."""
    log, _ = Log.from_records(records)
    mine = log.key(me)
    if mine is not None and mine != identity.public_key:
        raise RuntimeError(
            f"{path} was played with the key {fingerprint(mine)}, not with yours "
            f"({identity.fingerprint}): resume it with the GINP2P_HOME it was played from"
        )
    return log


def _still_paired(path: Path, side: PeerFile, saved: Log, home: Path | None) -> None:
    """A saved game goes on only with a player still paired. `ginp2p keys --forget`
    unpins a player so that this program never plays that key again (a friend's lost
    computer, say); the key the game's own files keep must not quietly bring it back.
    RuntimeError says who it is and how to pair again. A peers.json that cannot be read
    stops the resume too (PeersError): it cannot say whom the player forgot."""
    key = side.peer_public_key or saved.key(1 - side.me)
    if key is None or peers.lookup(key, home=home) is not None:
        return
    raise RuntimeError(forgotten_words(path, side, saved, key))


def forgotten_words(path: Path, side: PeerFile, saved: Log, key: bytes) -> str:
    """Why a game with a forgotten player is not resumed, and the way back."""
    from ginp2p.present.words import for_screen

    hello = saved.hello(1 - side.me)
    name = for_screen(hello.body.name) if hello is not None and hello.body.name else ""
    who = f"{name} ({fingerprint(key)})" if name else f"the player {fingerprint(key)}"
    if side.computer_game:  # `play`: a new `play` pairs with the computer by itself
        how = "to play it, start `ginp2p play` once, which pairs with the computer again"
    else:
        how = ("to play them again, pair again first: one of you runs `ginp2p host`, the "
               "other `ginp2p join` with the pairing code it shows")  # fmt: skip
    return (f"{who} is no longer one of your paired players (forgotten: `ginp2p keys` "
            "lists them no more), so this game does not go on with the key its files "
            f"keep; {how}; then `ginp2p resume {path}` continues it")  # fmt: skip


def _over(log: Log, me: int) -> str | None:
    """How the saved match ended ("the match is over: Bob won (you resigned)") if it is
    over with nothing owed either way; None while it goes on. Only what is owed: the
    opened hands' proofs wait for the protocol's own fold."""
    table = Table(me, lazy_proofs={e.body.hand for e in log.entries() if e.kind == "open"})
    table.update(log.linear())
    if not table.finished:
        return None
    m = table.match
    if m is None or m.winner is None or m.end is None:
        return "the match is over"

    def who(seat: int) -> str:
        return "you" if seat == me else table.names[seat]

    return f"the match is over: {who(m.winner)} won ({match_end_words(m.end, who(1 - m.winner))})"


def _last_written(path: Path) -> float | None:
    """When a saved game's log or secrets were last written (``time.time()``): every
    entry sent or received is written at once, so this is the last time its player was
    known to be there."""
    times = []
    for f in (path, secrets_path(path)):
        with contextlib.suppress(OSError):
            times.append(f.stat().st_mtime)
    return max(times, default=None)


def _need_secrets(path: Path) -> None:
    """RuntimeError if a saved game's secrets are gone."""
    if not secrets_path(path).exists():
        raise RuntimeError(f"{secrets_path(path)} is missing: it holds your seeds, and the "
                           "game cannot go on without it (restore it from a backup)")  # fmt: skip


def open_game(path: Path, *, new: bool = False) -> tuple[LogFile, SecretsFile]:
    """Open (creating) a game's log and secrets, locked; a clear error if in use, if a
    ``new`` game's file already holds entries, or if a saved game's secrets are gone
    (they hold this player's seeds: an empty file would stop the game later, and less
    clearly)."""
    if not new:
        _need_secrets(path)
    try:
        logfile = LogFile.open(path)
    except FileLocked:
        raise RuntimeError(f"{path} is open in another ginp2p process") from None
    try:
        if new and logfile.records:
            raise RuntimeError(f"{path} already holds another game: not touched")
        secrets = SecretsFile.open(secrets_path(path))
    except BaseException:
        logfile.close()
        raise
    return logfile, secrets


async def _advertise(setup: GameSetup, port: int, identity: Identity,
                     say: Callable[[str], None]) -> Any:  # fmt: skip
    """Announce the game on the LAN; a failure is only a warning (the join string works)."""
    try:
        from ginp2p.net.discovery import Advertisement

        bind = setup.side.host
        iface = setup.mdns_interface
        addresses = [iface] if iface else ([bind] if bind not in ("0.0.0.0", "", "*") else None)
        kwargs: dict[str, Any] = {"addresses": addresses}
        if iface:
            kwargs["interfaces"] = [iface]
        ad = Advertisement(setup.side.name, port, identity.public_key, **kwargs)
        await ad.start()
        return ad
    except Exception as exc:
        say(f"(not announced on the LAN: {exc}; the join string works)")
        return None


async def run_game(setup: GameSetup, identity: Identity, *, resume: bool = False) -> int:
    """Set up the endpoint, admit or pair, the files and the protocol; play; return the
    exit code. Before the guest is admitted nothing is written, so an error (port in
    use, host unreachable, wrong code, version mismatch) leaves nothing behind."""
    setup._task = asyncio.current_task()
    lock: tuple[int, Path] | None = None
    try:
        if setup.side.role == "guest" and setup.side.peer_public_key is not None:
            try:
                lock = _one_guest_per_host(setup.side.peer_public_key, setup.side.port,
                                           setup.path, setup.home)  # fmt: skip
            except RuntimeError as exc:
                _fail(setup)(str(exc))
                return 1
        return await _run_game(setup, identity, resume)
    finally:
        if lock is not None:
            let_go(*lock)
        if not resume:
            drop_reservation(setup.path)


def _say(setup: GameSetup) -> Callable[[str], None]:
    """Where the game's lines go: the console's, or standard output."""
    return setup.out or (lambda text: print(text, flush=True))


def _fail(setup: GameSetup) -> Callable[[str], None]:
    """Where an error's line goes: standard error (see ``GameSetup.err``)."""
    return setup.err or (lambda text: print(f"ginp2p: error: {text}", file=sys.stderr,
                                            flush=True))  # fmt: skip


def _guest_lock(host_key: bytes, port: int, home: Path | None) -> Path:
    folder = user_dir("data", home) / "running"
    private_folder(folder, tighten=True)  # (an older version made it 0755)
    return folder / f"guest-of-{key_to_text(host_key)[:20]}-{port}.lock"


def _busy_words(lock: Path, host_key: bytes, home: Path | None) -> str:
    where = ""
    with contextlib.suppress(OSError, ValueError, NotAFile):
        pid, game = read_regular(lock).decode().split(" ", 1)
        where = f" (process {pid}, {game})"
    pinned = peers.lookup_quietly(host_key, home=home)
    who = pinned.described if pinned is not None else "this host"
    return (f"another ginp2p of yours is already in a game with {who}{where}: finish or "
            "leave that one first (a host plays one game with you at a time)")  # fmt: skip


def busy_as_guest(host_key: bytes, port: int, home: Path | None = None) -> str | None:
    """Why this player cannot be the guest of that host's game at that port now (another
    ginp2p of theirs is), or None."""
    lock = _guest_lock(host_key, port, home)
    try:
        let_go(hold_lock(lock), lock)
    except FileLocked:
        return _busy_words(lock, host_key, home)
    return None


def _one_guest_per_host(host_key: bytes, port: int, path: Path,
                        home: Path | None) -> tuple[int, Path]:  # fmt: skip
    """Lock "this player is a guest of that host, at that port" for this process (the
    descriptor and the file, to `let_go` when done). A host tells a guest's connections
    apart by its key alone, so a second ginp2p of the same player joining or resuming
    with the host's game there would take the first one's connection over, and its
    goodbye would end the other's game. RuntimeError says which game holds it."""
    lock = _guest_lock(host_key, port, home)
    try:
        return hold_lock(lock, f"{os.getpid()} {path}"), lock
    except FileLocked:
        raise RuntimeError(_busy_words(lock, host_key, home)) from None


def _person(setup: GameSetup) -> Player:
    """A person's line prompt (there is no table): the console's, as the command line
    gives it (``GameSetup.person``)."""
    if setup.person is None:
        raise Ginp2pError("a person plays this game, but no line prompt was given")
    return setup.person(setup.piped)


#: The computer player's name in ``play``, as the host's screen calls it before its hello.
COMPUTER = "Computer"


def _close(*files: LogFile | SecretsFile | None) -> None:
    for f in files:
        if f is not None:
            f.close()


async def _run_game(setup: GameSetup, identity: Identity, resume: bool) -> int:
    """Open (a saved game), make the endpoint, connect (admit or pair), then play."""
    side, path = setup.side, setup.path
    say, fail = _say(setup), _fail(setup)
    if side.peer_public_key is None and side.role == "guest":
        fail("the guest needs the host's key (a join string HOST:PORT/KEY)")
        return 1
    logfile: LogFile | None = None
    secrets: SecretsFile | None = None
    saved: Log | None = None
    away: float | None = None
    try:  # a resumed game is locked before its port is taken again
        if resume:
            away = _last_written(path)  # before opening: a torn tail cut writes the file
            # judged read-only first: opening cuts a torn tail, and a resume refused
            # must leave the file as it was, for the audit to see the damage
            _need_secrets(path)
            saved_log = _saved_log(path, read_records(path)[0], side.me, identity)
            _still_paired(path, side, saved_log, setup.home)
            logfile, secrets = open_game(path)
            saved = _saved_log(path, logfile.records, side.me, identity)
            setup.ended = _over(saved, side.me)
            if setup.ended is not None:  # said at once: the wait may be long, or cut short
                other = "host" if side.role == "guest" else "guest"
                say(f"{setup.ended}; the {other} is looked for only to make sure both files "
                    "hold every entry")  # fmt: skip
        endpoint, known = _endpoint(setup, identity)
    except (OSError, RuntimeError, ValueError, FileError, SecretsError, peers.PeersError) as exc:
        fail(str(exc))
        _close(logfile, secrets)
        return 1
    while True:  # a host whose new guest said no to its rules waits for another
        try:
            peer_key = await _connect(setup, identity, endpoint, known, resume, say)
            if logfile is None:
                logfile, secrets = open_game(path, new=True)
        except LeftWaiting as left:  # `quit` (or the end of input) before the other player came
            _close(logfile, secrets)
            await endpoint.close()
            if left.interrupted:  # Ctrl-C at the prompt: as a Ctrl-C anywhere before the game
                raise KeyboardInterrupt from None
            for line in left.words.said(left.ended):
                say(line)
            return 0
        except (NetError, JoinError, RuntimeError, OSError, asyncio.CancelledError) as exc:
            if isinstance(exc, asyncio.CancelledError):
                if not setup.stopped:
                    raise
                exc = JoinError(setup.stopped)
            over = setup.ended is not None  # a finished match resumed, the other side gone
            if over:  # only the other side could lack an entry, and it cannot be reached
                gone = ("the host could not be reached" if side.role == "guest"
                        else "could not wait for the guest")  # fmt: skip
                say(f"the match is over and nothing is owed ({gone} to compare logs: {exc})")
            else:
                fail(str(exc))
                if resume and isinstance(exc, NoAnswer):  # the host's side may not be running
                    say("a saved game goes on when both sides run it: the host resumes its own "
                        f"file of this game too; then run again: ginp2p resume {path}")  # fmt: skip
            _close(logfile, secrets)
            await endpoint.close()
            return 0 if over else 1
        assert logfile is not None and secrets is not None
        code = await _play(setup, identity, endpoint, logfile, secrets, peer_key, resume, away,
                           say)  # fmt: skip
        if code is not None:
            return code
        logfile = secrets = None
        setup.session, side.peer_key = None, None
        if setup.new_table is not None:  # the last one is done with
            setup.table = setup.new_table()
        try:
            endpoint, known = _endpoint(setup, identity)
        except (OSError, RuntimeError, ValueError, peers.PeersError) as exc:
            fail(str(exc))
            return 1


def _endpoint(setup: GameSetup, identity: Identity
              ) -> tuple[HostSide | GuestSide, dict[bytes, bytes]]:  # fmt: skip
    """The host's endpoint admits the guest of a saved game, or every paired player
    while it pairs; the guest's connects to the host's key. Also the players it admits:
    connection (CURVE) key -> Ed25519 key."""
    side, endpoints = setup.side, setup.endpoints or ZeroMQ()
    peer_key = side.peer_public_key
    if side.role == "host":
        if peer_key is not None:
            known = {curve_key(peer_key): peer_key}
        else:
            known = {curve_key(p.key): p.key for p in peers.all(home=setup.home)}
        return endpoints.host(
            identity, bind=side.host, port=side.port, pinned=set(known),
            pairing=peer_key is None, any_port_if_taken=setup.any_port_if_taken,
        ), known  # fmt: skip
    assert peer_key is not None  # checked by the caller: a guest knows the host's key
    return endpoints.guest(identity, curve_key(peer_key), side.host, side.port), {}


async def _connect(setup: GameSetup, identity: Identity, endpoint: HostSide | GuestSide,
                   known: dict[bytes, bytes], resume: bool,
                   say: Callable[[str], None]) -> bytes:  # fmt: skip
    """Listen (announced on the LAN while pairing) and admit a guest, or join and pair:
    the other player's key once it is in. Nothing is written before."""
    from ginp2p.net.discovery import format_join
    from ginp2p.net.pairing import PairingGate

    side = setup.side
    peer_key = side.peer_public_key
    heard = while_waiting(setup, say)
    if endpoint.role == "guest":
        assert peer_key is not None
        # the code is asked before connecting: a connection left half-made while the
        # player looks for the code would alarm the host (a failed handshake)
        code = setup.pair_code
        asks = sys.stdin is not None and sys.stdin.isatty() and setup.player == "human"
        if not resume and code is None and not peers.is_pinned(peer_key, home=setup.home):
            if asks:
                code = await ask_code()
            if not code:
                raise JoinError("first game with this host: give its pairing code "
                                "(--pair-code CODE, shown on the host's screen)")  # fmt: skip
        if code is not None:
            from ginp2p.net.pairing import canonical_code

            try:
                canonical_code(code)
            except ValueError as exc:
                raise JoinError(str(exc)) from None
        say(f"joining {side.host}:{side.port}")
        await endpoint.start()
        while True:  # a wrong code is asked again at a terminal (the host counts each)
            pairing = pair_with_host(endpoint, identity, peer_key, code, heard,
                                     setup.connect_timeout, home=setup.home)  # fmt: skip
            try:
                await unless_left(setup, pairing, resume, say, awaited(setup, resume))
                return peer_key
            except WrongCode as wrong:
                if not asks or (code := await code_again(wrong.over)) is None:
                    raise
    port = await endpoint.start()
    if endpoint.port_taken is not None:
        say(f"port {endpoint.port_taken} is in use (another ginp2p host or program has it): "
            f"listening on port {port} instead")  # fmt: skip
    side.port = port
    join = format_join(_lan_address(side.host), port, identity.public_key)
    # the join string on a line of its own: within 80 columns, not wrapped inside the key
    say(f"hosting on port {port}; join string (the guest runs `ginp2p join` with it):\n"
        f"  {join}")  # fmt: skip
    if peer_key is not None:  # a saved game: only its guest is admitted
        if setup.on_listening is not None:
            setup.on_listening(port, join, "")
        return peer_key
    gate = setup.gate
    if gate is None:
        gate = setup.gate = PairingGate(identity.public_key, code=setup.pair_code)
    elif gate.paired_key is not None:  # its code paired the guest who declined: a new one
        gate.new_code(setup.pair_code)
    # (else the same code, and the wrong attempts it counted still count: a paired guest
    # who declines cannot win a stranger a fresh set of guesses)
    say(f"pairing code: {gate.code}  (a guest you paired with before needs none)")
    ad = await _advertise(setup, port, identity, say) if setup.advertise else None
    try:
        if setup.on_listening is not None:
            setup.on_listening(port, join, gate.code)

        def new_code() -> None:
            heard(f"pairing code: {gate.new_code()}  (a new one: the one before works no more)")

        computer = bool(side.computer_game)  # its code and join string are its own
        shown = awaited(setup, resume, join="" if computer else join,
                        about=host_about(side, ad is not None),
                        code=None if computer else lambda: gate.code,
                        new_code=None if computer else new_code)  # fmt: skip
        admitting = admit_guest(endpoint, identity, gate, heard, known, home=setup.home,
                                verbose=setup.verbose)  # fmt: skip
        peer_key = await unless_left(setup, admitting, resume, heard, shown)
    finally:
        if ad is not None:
            await ad.close()
    side.peer_key = key_to_text(peer_key)
    endpoint.paired_with(curve_key(peer_key))
    return peer_key


async def _play(setup: GameSetup, identity: Identity, endpoint: HostSide | GuestSide,
                logfile: LogFile, secrets: SecretsFile, peer_key: bytes, resume: bool,
                away: float | None, say: Callable[[str], None]) -> int | None:  # fmt: skip
    """The game itself, once the other player is in: the protocol, the session and the
    player; the files are kept unless nothing was played. ``away``: a resumed game's
    last write (see ``Session.away_since``). The exit code; None where a host's new
    guest said no to its rules: the host waits for another."""
    from concurrent.futures import ThreadPoolExecutor

    side, path = setup.side, setup.path
    fail = _fail(setup)
    sidecar = peer_path(path)
    empty = False
    executor: ThreadPoolExecutor | None = None
    try:
        executor = ThreadPoolExecutor(2)
        side.save(sidecar)
        say(f"game file: {path}")
        proto = PeerProtocol(
            side.me, identity.signing_key, os.urandom, name=side.name,
            rules=side.ruleset() if side.role == "host" else None, k=side.k,
            claim_timeout=side.claim_timeout, peer_key=peer_key,
            executor=executor, records=logfile.records, seeds=secrets.all_seeds(),
            answered=secrets.all_answered(),
        )  # fmt: skip
        if resume:
            say(f"resumed from {count(len(logfile.records), 'stored entry')}")

        # a table with the computer playing is a watched match's (play --watch)
        table = setup.table
        bot = BotPlayer(setup.verbose, side.level) if setup.player == "bot" else None
        player: Player = table or bot or _person(setup)
        session = Session(
            proto, endpoint, player, logfile, secrets,
            out=table.heard(say) if table is not None else say, linger=setup.linger,
            connect_timeout=setup.connect_timeout if side.role == "guest" else None,
            game_path=path, expect_rules=setup.expect_rules,
            accept_rules=setup.accept_rules or setup.player == "bot",
            parent_pid=setup.parent_pid, claims=setup.claims, home=setup.home,
            on_hello=lambda hello: _pin_name(hello, setup.home),
            away_since=away, clock=setup.clock, wall_clock=setup.wall_clock,
            crash_at=setup.crash_at, crash=setup.crash or die,
        )  # fmt: skip
        proto.accept_rules = session.accept_rules_cb if side.role == "guest" else None
        session.verbose = setup.verbose
        if side.computer_game and setup.player == "human" and not session.known_name:
            session.known_name = COMPUTER  # as it calls itself, before its hello says so
        setup.session = session
        if table is not None:
            session.ping_every = 5.0
            forget_typed_ahead()
        result = await (table.play(session) if table is not None else session.run())
        # Nothing was played if an error came before both hellos were stored, or this
        # player left before its own hello went out, or the game turned out to be one
        # begun by another run (its file holds the game). Otherwise the other side may
        # wait for a resume, and the entries may be evidence: the files stay.
        mine, theirs = (proto.log.hello(x) is not None for x in (proto.me, proto.opponent))
        nothing = not mine if result.status == "quit" else not (mine and theirs)
        nothing = nothing or proto.written_elsewhere
        if result.status in ("error", "quit", "declined") and not resume and nothing:
            if result.status == "error":
                fail(result.message)
            else:
                say("left before the game began" if result.status == "quit" else result.message)
            empty = True
            if result.status == "declined" and side.role == "host":  # wait for another
                say(f"nothing was played, so {path.name} is not kept; waiting for another guest")
                if setup.waiting is not None:
                    setup.waiting.note(f"{result.message}: waiting for another guest")
                return None
            say(f"nothing was played, so {path.name} is not kept")
        elif result.status == "error":
            fail(result.message)
            # the clock runs on while the player is away: say so while a hand is under way
            say(f"the game is saved; continue it with: ginp2p resume {path}"
                f"{away_words(session.seat)}")  # fmt: skip
        else:
            say(result.message)
        return result.code
    finally:
        await endpoint.close()
        logfile.close()
        secrets.close()
        if executor is not None:
            executor.shutdown(wait=False, cancel_futures=True)
        if empty:
            for leftover in (path, secrets_path(path), sidecar):
                with contextlib.suppress(OSError):
                    leftover.unlink()
