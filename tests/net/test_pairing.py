"""Pairing (SPAKE2 + confirm MACs), the attempt gate, pinned peers, safety numbers.

Every test uses temporary config dirs, never the user's real keys.
"""

from __future__ import annotations

import asyncio
import json
import stat
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgpack
import nacl.bindings
import nacl.signing
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ginp2p.files import peers
from ginp2p.files.identity import Identity, load_or_create_identity
from ginp2p.net.pairing import (
    PAUSE_MAX_S,
    PAUSE_S,
    WORDS,
    GuestPairing,
    HostPairing,
    PairingError,
    PairingGate,
    PairingRefused,
    canonical_code,
    codes_equal,
    new_code,
)
from ginp2p.proto.keytext import fingerprint, key_to_text
from tests.processes import GUARD, until

CODE = "7-tulip-anchor"


#: Anything that forgets ``home=`` still lands in a temporary folder.
pytestmark = pytest.mark.usefixtures("ginp2p_home")


@dataclass
class Player:
    home: Path
    me: Identity

    @property
    def key(self) -> bytes:
        return self.me.public_key


@pytest.fixture
def host(tmp_path: Path) -> Player:
    return Player(tmp_path / "host", load_or_create_identity(tmp_path / "host"))


@pytest.fixture
def guest(tmp_path: Path) -> Player:
    return Player(tmp_path / "guest", load_or_create_identity(tmp_path / "guest"))


def run(host: Player, guest: Player, host_code: str, guest_code: str) -> tuple[str | None, ...]:
    """What the session runner does: relay the three messages, pin on success."""
    hp = HostPairing(host_code, host.key, curve_key=guest.me.curve_public_key)
    gp = GuestPairing(guest_code, guest.key, host_key=host.key, curve_key=host.me.curve_public_key)
    errors: list[str | None] = [None, None]
    try:
        m2 = hp.receive(gp.start())
        assert m2 is not None
        try:
            m3 = gp.receive(m2)
        except PairingError as exc:
            errors[1] = str(exc)
            m3 = exc.reply
        assert m3 is not None
        assert hp.receive(m3) is None
    except PairingError as exc:
        errors[0] = str(exc)
    if hp.done:
        peers.pin(hp.peer_key, "Guest", home=host.home)
    if gp.done:
        peers.pin(gp.peer_key, "Host", home=guest.home)
    assert errors[0] == hp.error and errors[1] == gp.error
    return tuple(errors)


# ----------------------------------------------------------------- the protocol


def test_right_code_both_get_each_others_key_and_pin(host: Player, guest: Player) -> None:
    assert run(host, guest, CODE, " 7 Tulip  ANCHOR ") == (None, None)
    assert peers.is_pinned(guest.key, home=host.home)
    assert peers.is_pinned(host.key, home=guest.home)
    assert not peers.is_pinned(host.key, home=host.home)
    [g] = peers.all(home=host.home)
    assert (g.name, g.key, g.fingerprint) == ("Guest", guest.key, fingerprint(guest.key))
    mode = stat.S_IMODE((host.home / peers.PEERS_FILE).stat().st_mode)
    assert mode == 0o600


@pytest.mark.parametrize("typed", ["7-tulip-acorn", "8-tulip-anchor", "7-anchor-tulip"])
def test_wrong_code_fails_on_both_sides_and_pins_nothing(
    host: Player, guest: Player, typed: str
) -> None:
    host_error, guest_error = run(host, guest, CODE, typed)
    assert host_error is not None and host_error.startswith("wrong pairing code")
    assert guest_error is not None and guest_error.startswith("wrong pairing code")
    assert peers.all(home=host.home) == [] and peers.all(home=guest.home) == []


def keys() -> tuple[bytes, nacl.signing.SigningKey]:
    sk = nacl.signing.SigningKey.generate()
    return bytes(sk.verify_key), sk


def curve(key: bytes) -> bytes:
    return nacl.bindings.crypto_sign_ed25519_pk_to_curve25519(key)


def test_man_in_the_middle_swapping_keys_fails() -> None:
    """Mallory relays the PAKE untouched (she cannot do better without the code)
    but puts her own key where the host or the guest would see the other's."""
    host_key, guest_key, m_key = keys()[0], keys()[0], keys()[0]
    for swap_guest, swap_host in [(True, False), (False, True), (True, True)]:
        hp = HostPairing(CODE, host_key)
        gp = GuestPairing(CODE, guest_key)
        v, gk, pake_b = msgpack.unpackb(gp.start())
        m2 = hp.receive(msgpack.packb([v, m_key if swap_guest else gk, pake_b]))
        hk, pake_a, mac = msgpack.unpackb(m2)
        with pytest.raises(PairingError, match="wrong pairing code") as err:
            gp.receive(msgpack.packb([m_key if swap_host else hk, pake_a, mac]))
        with pytest.raises(PairingError, match="wrong pairing code"):
            hp.receive(err.value.reply)
        assert hp.peer_key is None and gp.peer_key is None


def test_man_in_the_middle_running_her_own_pake_needs_the_code() -> None:
    """Two separate pairings through Mallory, with a guessed code: both honest sides fail."""
    host_key, guest_key, m_key = keys()[0], keys()[0], keys()[0]
    hp, gp = HostPairing(CODE, host_key), GuestPairing(CODE, guest_key)
    to_host = GuestPairing("9-tulip-anchor", m_key)
    m_host = HostPairing("9-tulip-anchor", m_key)
    m2_for_guest = m_host.receive(gp.start())
    with pytest.raises(PairingError, match="wrong pairing code"):
        gp.receive(m2_for_guest)
    with pytest.raises(PairingError, match="wrong pairing code") as err:
        to_host.receive(hp.receive(to_host.start()))
    with pytest.raises(PairingError, match="wrong pairing code"):
        hp.receive(err.value.reply)


def test_keys_must_match_the_authenticated_connection(host: Player, guest: Player) -> None:
    """Mallory relays a guest's request over her own CURVE connection: refused."""
    _, m_sk = keys()
    m_curve = curve(bytes(m_sk.verify_key))
    hp = HostPairing(CODE, host.key, curve_key=m_curve)
    with pytest.raises(PairingError, match="connection authenticated"):
        hp.receive(GuestPairing(CODE, guest.key).start())
    assert hp.failed
    gp = GuestPairing(CODE, guest.key, curve_key=m_curve)
    m2 = HostPairing(CODE, host.key).receive(gp.start())
    with pytest.raises(PairingError, match="connection authenticated"):
        gp.receive(m2)
    gp = GuestPairing(CODE, guest.key, host_key=keys()[0])
    m2 = HostPairing(CODE, host.key).receive(gp.start())
    with pytest.raises(PairingError, match="not the one this guest connected to"):
        gp.receive(m2)


def test_other_version_and_self_pairing_are_clear(host: Player) -> None:
    _, gk, pake_b = msgpack.unpackb(GuestPairing(CODE, keys()[0]).start())
    with pytest.raises(PairingError, match="pairing version 2; this is version 1"):
        HostPairing(CODE, host.key).receive(msgpack.packb([2, gk, pake_b]))
    with pytest.raises(PairingError, match="same key"):
        HostPairing(CODE, host.key).receive(GuestPairing(CODE, host.key).start())


def test_a_finished_pairing_cannot_be_reused(host: Player, guest: Player) -> None:
    hp, gp = HostPairing(CODE, host.key), GuestPairing(CODE, guest.key)
    m1 = gp.start()
    assert hp.receive(gp.receive(hp.receive(m1))) is None
    with pytest.raises(PairingError, match="already done"):
        hp.receive(m1)
    with pytest.raises(PairingError, match="already done"):
        gp.start()


# ------------------------------------------------------------- malformed input

HOST_KEY = keys()[0]
GUEST_KEY = keys()[0]
_b33 = st.one_of(
    st.binary(min_size=33, max_size=33), st.binary(min_size=32, max_size=32).map(b"B".__add__)
)
_field = st.one_of(
    st.binary(max_size=40),
    st.binary(min_size=32, max_size=32),
    _b33,
    st.integers(-(2**63), 2**64 - 1),
    st.text(max_size=5),
    st.none(),
    st.booleans(),
    st.floats(allow_nan=False),
)
_structured = st.lists(_field, max_size=4).map(msgpack.packb)
_b32 = st.one_of(st.binary(min_size=32, max_size=32), st.just(GUEST_KEY), st.just(HOST_KEY))
_shaped = st.one_of(  # the right shapes, so the SPAKE2 and MAC paths see hostile values
    st.tuples(st.integers(0, 2), _b32, _b33),
    st.tuples(_b32, _b33, _b32),
    st.tuples(_b32),
).map(lambda t: msgpack.packb(list(t)))
_peer_bytes = st.one_of(st.binary(max_size=600), _structured, _shaped)


def _only_pairing_errors(side: HostPairing | GuestPairing, data: bytes) -> None:
    try:
        out = side.receive(data)
    except PairingError:
        assert side.failed and side.error
        assert side.peer_key is None
    else:  # random but well-formed PAKE points can get a reply; never a verified key
        assert out is None or isinstance(out, bytes)
        assert side.peer_key is None


_fast = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@_fast
@given(_peer_bytes)
def test_host_first_message_garbage_raises_only_pairing_error(data: bytes) -> None:
    _only_pairing_errors(HostPairing(CODE, HOST_KEY), data)


@_fast
@given(_peer_bytes)
def test_host_confirmation_garbage_raises_only_pairing_error(data: bytes) -> None:
    hp = HostPairing(CODE, HOST_KEY)
    hp.receive(GuestPairing(CODE, GUEST_KEY).start())
    _only_pairing_errors(hp, data)


@_fast
@given(_peer_bytes)
def test_guest_answer_garbage_raises_only_pairing_error(data: bytes) -> None:
    gp = GuestPairing(CODE, GUEST_KEY)
    gp.start()
    _only_pairing_errors(gp, data)


@pytest.mark.parametrize("junk", [None, "text", 17, [1, 2], bytearray(b"\x93")])
def test_non_bytes_from_the_peer_is_a_pairing_error(junk: object) -> None:
    with pytest.raises(PairingError, match="malformed"):
        HostPairing(CODE, HOST_KEY).receive(junk)  # type: ignore[arg-type]


def test_bad_pake_point_is_a_pairing_error() -> None:
    bad = msgpack.packb([1, GUEST_KEY, b"B" + b"\xff" * 32])
    with pytest.raises(PairingError, match="its code exchange is not valid"):
        HostPairing(CODE, HOST_KEY).receive(bad)
    reflected = msgpack.packb([1, GUEST_KEY, b"A" + bytes(32)])
    with pytest.raises(PairingError, match="its code exchange is not valid"):
        HostPairing(CODE, HOST_KEY).receive(reflected)


# --------------------------------------------------------------------- the gate


def _attempt(gate: PairingGate, code: str) -> str | None:
    """One guest trying ``code`` against the gate; the error text, or None on success."""
    try:
        hp = gate.begin()
        gp = GuestPairing(code, keys()[0])
        m2 = hp.receive(gp.start())
        try:
            m3 = gp.receive(m2)
        except PairingError as exc:
            m3 = exc.reply
        hp.receive(m3)
    except PairingError as exc:
        return str(exc)
    return None


class Clock:
    """The gate's clock, moved by the test: no test waits for a pause in real time."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_code_that_had_its_attempts_is_replaced_and_the_new_one_pairs() -> None:
    """Three wrong codes do not close the gate: it makes a new code at once, takes it
    after a short pause, and the old code no longer pairs."""
    clock = Clock()
    gate = PairingGate(HOST_KEY, code=CODE, clock=clock)
    for n in range(3):
        assert gate.attempts_left == 3 - n and gate.code == CODE
        assert _attempt(gate, "9-cat-owl").startswith("wrong pairing code")
    new = gate.code
    assert new != CODE and gate.used_up == 1 and gate.attempts_left == 3
    assert gate.failures == 0 and gate.paused_for == PAUSE_S
    with pytest.raises(PairingRefused, match="has a new code, and takes it in 2 s"):
        gate.begin()
    assert gate.attempts_left == 3, "a request in the pause costs nothing"
    clock.now += PAUSE_S
    assert gate.refused is None
    assert _attempt(gate, CODE).startswith("wrong pairing code"), "the old code is over"
    assert gate.code == new and gate.attempts_left == 2
    assert _attempt(gate, new) is None
    assert gate.paired_key is not None


def test_each_code_used_up_doubles_the_pause_up_to_a_minute() -> None:
    """A stranger who spends code after code gets a few guesses a minute at most."""
    clock = Clock()
    gate = PairingGate(HOST_KEY, clock=clock)
    pauses = []
    for _ in range(8):
        for _ in range(3):
            assert _attempt(gate, "9-cat-owl") is not None
        pauses.append(gate.paused_for)
        clock.now += gate.paused_for
    assert pauses == [2, 4, 8, 16, 32, PAUSE_MAX_S, PAUSE_MAX_S, PAUSE_MAX_S]


def test_guests_that_walk_away_do_not_jam_the_gate() -> None:
    """Three requests answered and never confirmed use the code up: the next guest
    makes a new code (the unanswered ones void with the old one) instead of finding
    the gate shut for good."""
    clock = Clock()
    gate = PairingGate(HOST_KEY, code=CODE, clock=clock)
    walked = [gate.begin() for _ in range(3)]
    answers = [hp.receive(GuestPairing("9-cat-owl", keys()[0]).start()) for hp in walked]
    assert all(answers) and gate.attempts_left == 0 and "3 still unanswered" in gate.refused
    with pytest.raises(PairingRefused, match="has a new code"):
        gate.begin()
    assert gate.code != CODE and gate.used_up == 1
    clock.now += PAUSE_S
    assert _attempt(gate, gate.code) is None


def test_gate_counts_walking_away_and_spends_the_code_on_success() -> None:
    gate = PairingGate(HOST_KEY, limit=2)
    # A guest that reads the host's answer (testing one guess) and leaves still costs one.
    gate.begin().receive(GuestPairing("9-cat-owl", GUEST_KEY).start())
    assert gate.attempts_left == 1 and gate.failures == 0
    # A malformed request costs nothing: it tested no guess.
    with pytest.raises(PairingError):
        gate.begin().receive(b"\x00")
    assert gate.attempts_left == 1
    assert _attempt(gate, gate.code) is None
    assert "already used" in gate.refused
    with pytest.raises(PairingRefused, match="already used"):
        gate.begin()


def test_gate_second_success_on_a_spent_code_fails() -> None:
    gate = PairingGate(HOST_KEY, code=CODE)
    first, second = gate.begin(), gate.begin()
    g1_key = keys()[0]
    g1, g2 = GuestPairing(CODE, g1_key), GuestPairing(CODE, keys()[0])
    a1, a2 = first.receive(g1.start()), second.receive(g2.start())
    assert first.receive(g1.receive(a1)) is None
    with pytest.raises(PairingError, match="already used"):
        second.receive(g2.receive(a2))
    assert gate.paired_key == first.peer_key == g1_key
    assert second.peer_key is None and second.failed


def test_gate_new_code_voids_attempts_in_flight() -> None:
    gate = PairingGate(HOST_KEY, code=CODE)
    hp, gp = gate.begin(), GuestPairing(CODE, GUEST_KEY)
    m2 = hp.receive(gp.start())
    gate.new_code()
    with pytest.raises(PairingError, match="code changed"):
        hp.receive(gp.receive(m2))
    assert gate.failures == 0 and gate.attempts_left == 3


#: Requests that test no guess: the spake2 package refuses the first three, the rest
#: fail before it. Each is what a stranger on the LAN can send with no code at all.
_MALFORMED = {
    "33 random bytes": lambda key: msgpack.packb([1, key, b"\x00" + bytes(range(32))]),
    "no point": lambda key: msgpack.packb([1, key, b"B" + b"\xff" * 32]),
    "reflected": lambda key: msgpack.packb([1, key, b"A" + bytes(32)]),
    "32 bytes": lambda key: msgpack.packb([1, key, b"B" + bytes(31)]),
    "no msgpack": lambda key: b"\xc1" * 40,
    "another version": lambda key: msgpack.packb([2, key, b"B" + bytes(32)]),
    "no key": lambda key: msgpack.packb([1, bytes(32), b"B" + bytes(32)]),
    "the host's key": lambda key: msgpack.packb([1, HOST_KEY, b"B" + bytes(32)]),
}


@pytest.mark.parametrize("what", _MALFORMED)
def test_malformed_requests_cost_no_attempt(what: str) -> None:
    """Ten of them, as many as a stranger likes: the code keeps its three attempts,
    and the guest with the code still pairs."""
    gate = PairingGate(HOST_KEY, code=CODE)
    for _ in range(10):
        hp = gate.begin()
        with pytest.raises(PairingError) as err:
            hp.receive(_MALFORMED[what](keys()[0]))
        assert not isinstance(err.value, PairingRefused) and not hp.counted
    assert (gate.attempts_left, gate.failures, gate.used_up, gate.code) == (3, 0, 0, CODE)
    assert _attempt(gate, CODE) is None


@_fast
@given(_peer_bytes)
def test_only_a_request_the_host_answers_costs_an_attempt(data: bytes) -> None:
    gate = PairingGate(HOST_KEY, code=CODE)
    hp = gate.begin()
    try:
        answered = hp.receive(data) is not None
    except PairingError:
        answered = False
    assert hp.counted == answered
    assert gate.attempts_left == 3 - answered and gate.failures == 0 and gate.code == CODE


# ------------------------------------------------------------------------ codes


def test_new_code_shape_and_determinism() -> None:
    stream = iter([200, 255, 0, 0, 255])  # 200 and 255 are rejected: no bias
    code = new_code(lambda n: bytes(next(stream) for _ in range(n)))
    assert code == f"2-{WORDS[0]}-{WORDS[255]}"
    seen = {new_code() for _ in range(200)}
    assert len(seen) > 190
    for c in seen:
        n, w1, w2 = c.split("-")
        assert 2 <= int(n) <= 99 and w1 in WORDS and w2 in WORDS
        assert canonical_code(c) == c.replace("-", "")


def test_word_list_is_easy_and_unambiguous() -> None:
    assert len(WORDS) == 256 and len(set(WORDS)) == 256
    assert all(w.isascii() and w.isalpha() and w.islower() and 3 <= len(w) <= 8 for w in WORDS)
    assert not [(a, b) for a in WORDS for b in WORDS if a != b and b.startswith(a)]
    assert len({a + b for a in WORDS for b in WORDS}) == 256 * 256


def test_codes_compare_case_and_separator_insensitively() -> None:
    assert codes_equal("7-tulip-anchor", "7 Tulip Anchor")
    assert codes_equal("7-tulip-anchor", "7tulipanchor")
    assert codes_equal("7_TULIP.anchor", " 7 - tulip - anchor ")
    assert not codes_equal("7-tulip-anchor", "7-anchor-tulip")
    assert not codes_equal("7-tulip-anchor", "nonsense")


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("", "not a pairing code"),
        ("tulip-anchor", "not a pairing code"),
        ("1-tulip-anchor", "2 to 99"),
        ("100-tulip-anchor", "2 to 99"),
        ("07-tulip-anchor", "2 to 99"),
        ("7-tulp-anchor", "unknown word 'tulp'"),
        ("7-tulip", "not a pairing code"),
        ("7-tulip-anchor-cat", "not a pairing code"),
        ("7-tülip-anchor", "not a pairing code"),
    ],
)
def test_typos_are_caught_before_anything_is_sent(text: str, why: str) -> None:
    with pytest.raises(ValueError, match=why):
        canonical_code(text)
    with pytest.raises(ValueError):
        GuestPairing(text, GUEST_KEY)


# ------------------------------------------------------------------------ peers


def test_peers_pin_rename_forget(tmp_path: Path) -> None:
    a, b, c = keys()[0], keys()[0], keys()[0]
    first = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)
    peers.pin(a, "Alice", home=tmp_path, when=first)
    peers.pin(b, "Bob", home=tmp_path)
    peers.pin(c, "bob", home=tmp_path)  # another pin's name: it only calls itself so
    again = peers.pin(a, "Alice B.", home=tmp_path)
    assert again.paired == first  # the first pairing date is kept
    assert (again.name, again.calls_itself) == ("Alice", "Alice B.")  # never renamed
    assert peers.pin(a, " ", home=tmp_path).title == "Alice (calls itself Alice B.)"
    assert [p.title for p in peers.all(home=tmp_path)] == [
        "Alice (calls itself Alice B.)", "Bob", "unnamed (calls itself bob)"]  # fmt: skip
    fp = fingerprint(c)
    assert peers.forget(fp[:9].upper(), home=tmp_path).key == c
    assert peers.forget("bob", home=tmp_path).key == b
    with pytest.raises(LookupError, match="no paired player is called 'Carol'"):
        peers.forget("Carol", home=tmp_path)
    assert peers.is_pinned(a, home=tmp_path) and not peers.is_pinned(b, home=tmp_path)
    doc = json.loads((tmp_path / "peers.json").read_text())
    assert doc["peers"][0]["key"] == key_to_text(a)


def test_peers_default_home_is_ginp2p_home(ginp2p_home: Path) -> None:
    peers.pin(HOST_KEY, "H")
    assert (ginp2p_home / "peers.json").exists()
    assert peers.is_pinned(HOST_KEY)


def test_damaged_peers_file_is_reported_not_replaced(tmp_path: Path) -> None:
    path = tmp_path / "peers.json"
    path.write_text("{not json")
    with pytest.raises(peers.PeersError, match="damaged"):
        peers.is_pinned(HOST_KEY, home=tmp_path)
    with pytest.raises(peers.PeersError):
        peers.pin(HOST_KEY, "x", home=tmp_path)
    assert path.read_text() == "{not json"


# --------------------------------------------------------------- safety number


def test_safety_number_is_symmetric_60_digits_and_key_specific() -> None:
    a, b, c = keys()[0], keys()[0], keys()[0]
    n = peers.safety_number(a, b)
    assert n == peers.safety_number(b, a)
    groups = n.split(" ")
    assert len(groups) == 12 and all(len(g) == 5 and g.isdigit() for g in groups)
    assert n != peers.safety_number(a, c) and n != peers.safety_number(c, b)
    # each key owns one 30-digit half, the same in every pair it is part of
    halves_ab = {n.replace(" ", "")[:30], n.replace(" ", "")[30:]}
    m = peers.safety_number(a, c).replace(" ", "")
    assert halves_ab & {m[:30], m[30:]}


def test_safety_number_is_stable() -> None:
    """A known answer, so the number never silently changes between versions."""
    n = peers.safety_number(bytes(range(32)), bytes(range(1, 33)))
    assert n == peers.safety_number(bytes(range(1, 33)), bytes(range(32)))
    assert n == KNOWN_SAFETY_NUMBER


KNOWN_SAFETY_NUMBER = "45488 98455 81653 57962 26055 60268 56934 35433 18293 99416 00393 63143"


def test_strangers_at_the_door_do_not_push_the_code_off_the_screen() -> None:
    """While the host waits to pair, a crowd of unknown keys and failed handshakes is
    told five times, then only counted; the pairing code stays on the screen, and a
    pinned guest still gets in."""
    import asyncio

    from ginp2p.app.pregame import REFUSALS_SHOWN, admit_guest
    from ginp2p.net.endpoint import REFUSED_HANDSHAKE, BadFrame, Received, Rejected
    from ginp2p.proto.frames import NET_VERSION, HaveFrame

    friend_curve, friend_key = b"f" * 32, b"F" * 32
    crowd: list[Any] = []
    for n in range(40):
        crowd.append(BadFrame(bytes([n]) * 32, "not paired"))
        crowd.append(Rejected(None, REFUSED_HANDSHAKE))

    class Door:
        def __init__(self) -> None:
            self.incoming = [*crowd, Received(HaveFrame(NET_VERSION, 0, 0, True), friend_curve)]
            self.pinned = {friend_curve}
            self.connected = True
            self.events: asyncio.Queue[Any] = asyncio.Queue()
            self.sent: list[Any] = []

        async def recv(self) -> Any:
            return self.incoming.pop(0)

        async def send(self, frame: Any, to: bytes | None = None) -> None:
            self.sent.append((frame, to))

    said: list[str] = []
    door = Door()
    got = asyncio.run(admit_guest(door, None, None, said.append,  # type: ignore[arg-type]
                                  {friend_curve: friend_key}))  # fmt: skip
    assert got == friend_key
    assert len(said) == REFUSALS_SHOWN
    assert said[-1].endswith("; more are counted, not shown")
    assert len(door.sent) == 40, "every unknown key was still told to pair"


class Door:
    """A HostEndpoint as ``admit_guest`` sees it, driven by the test: the frames of
    strangers and guests go in, what the host sends comes out."""

    def __init__(self) -> None:
        self.incoming: asyncio.Queue[Any] = asyncio.Queue()
        self.events: asyncio.Queue[Any] = asyncio.Queue()
        self.sent: list[tuple[Any, bytes | None]] = []
        self.pinned: set[bytes] = set()
        self.connected = True
        self.drops = 0
        self.waiting = False

    async def recv(self) -> Any:
        self.waiting = True
        ev = await self.incoming.get()
        self.waiting = False
        return ev

    async def send(self, frame: Any, to: bytes | None = None) -> bool:
        self.sent.append((frame, to))
        return True

    async def drop_connections(self) -> None:
        self.drops += 1

    def pin(self, peer: bytes) -> None:
        self.pinned.add(peer)

    async def take(self, peer: bytes, payload: bytes) -> Any:
        """Hand the host one pairing message; once it is done with it (waiting for the
        next), what it sent ``peer`` in answer, if anything."""
        from ginp2p.net.endpoint import Received
        from ginp2p.proto.frames import PairFrame

        before = len(self.sent)
        self.incoming.put_nowait(Received(PairFrame(payload), peer))
        await until(lambda: self.waiting and self.incoming.empty(), "answer")
        answers = [f for f, to in self.sent[before:] if to == peer]
        return answers[-1] if answers else None


def test_a_stranger_sending_random_bytes_cannot_stop_the_host(tmp_path: Path) -> None:
    """The review's attack: requests whose SPAKE2 message is 33 random bytes, again and
    again from new keys. Each is told it failed; none costs an attempt, cuts anyone
    off, or pushes the code off the screen; the host goes on, and the guest with the
    code pairs and is admitted."""
    from ginp2p.app.pregame import REFUSALS_SHOWN, admit_guest
    from ginp2p.net.endpoint import Received
    from ginp2p.proto.frames import NET_VERSION, ByeFrame, HaveFrame, PairFrame

    host = load_or_create_identity(tmp_path / "host")
    guest = load_or_create_identity(tmp_path / "guest")
    gate = PairingGate(host.public_key, code=CODE)
    said: list[str] = []

    async def main() -> bytes:
        door: Any = Door()  # (as admit_guest sees a HostEndpoint)
        admit = asyncio.ensure_future(admit_guest(door, host, gate, said.append, {}))
        try:
            for n in range(12):
                key = keys()[0]
                junk = msgpack.packb([1, key, b"\x00" + bytes([n]) * 32])
                bye = await door.take(curve(key), junk)
                assert isinstance(bye, ByeFrame) and "malformed pairing request" in bye.reason
            assert (gate.attempts_left, gate.code, door.drops) == (3, CODE, 0)
            gp = GuestPairing(CODE, guest.public_key, host_key=host.public_key)
            answer = await door.take(guest.curve_public_key, gp.start())
            assert isinstance(answer, PairFrame)
            assert await door.take(guest.curve_public_key, gp.receive(answer.payload)) is None
            door.incoming.put_nowait(Received(HaveFrame(NET_VERSION, 0, 0, True),
                                              guest.curve_public_key))  # fmt: skip
            return await asyncio.wait_for(admit, GUARD)
        finally:
            admit.cancel()

    assert asyncio.run(main()) == guest.public_key
    assert said[REFUSALS_SHOWN - 1].endswith("; more are counted, not shown")
    assert said[REFUSALS_SHOWN:] == [
        f"paired with a guest, key fingerprint {guest.fingerprint}; next time no code is "
        "needed"]  # fmt: skip


def test_a_guest_in_the_pause_is_turned_away_and_the_host_goes_on(tmp_path: Path) -> None:
    """After a code's last wrong try, a request before the new code is taken is told
    so (a bye), costs nothing, and leaves the host hosting; after the pause the new
    code pairs."""
    from ginp2p.app.pregame import PAIRING_OVER_REASON, admit_guest
    from ginp2p.proto.frames import ByeFrame, PairFrame

    host = load_or_create_identity(tmp_path / "host")
    clock = Clock()
    gate = PairingGate(host.public_key, code=CODE, clock=clock)
    said: list[str] = []

    async def main() -> None:
        door: Any = Door()
        admit = asyncio.ensure_future(admit_guest(door, host, gate, said.append, {}))
        try:
            for n in range(3):
                key = keys()[0]
                gp = GuestPairing("9-cat-owl", key, host_key=host.public_key)
                answer = await door.take(curve(key), gp.start())
                with pytest.raises(PairingError) as err:
                    gp.receive(answer.payload)
                bye = await door.take(curve(key), err.value.reply)
                assert isinstance(bye, ByeFrame)
                assert (bye.reason == PAIRING_OVER_REASON) == (n == 2)
            key = keys()[0]
            bye = await door.take(curve(key), GuestPairing(gate.code, key).start())
            assert isinstance(bye, ByeFrame) and bye.reason == (
                "pairing refused: too many wrong pairing codes: this host has a new code, "
                "and takes it in 2 s")  # fmt: skip
            assert not admit.done() and gate.attempts_left == 3
            clock.now += PAUSE_S
            gp = GuestPairing(gate.code, key, host_key=host.public_key)
            answer = await door.take(curve(key), gp.start())
            assert isinstance(answer, PairFrame)
            assert await door.take(curve(key), gp.receive(answer.payload)) is None
            assert gate.paired_key == key
        finally:
            admit.cancel()

    asyncio.run(main())
    assert f"pairing code: {gate.code}  (a new one, taken in 2 s; a guest you paired with " \
        "before needs none)" in said  # fmt: skip
    assert said[-1].startswith("paired with a guest")


def test_a_codes_last_wrong_try_brings_a_new_code_and_the_host_goes_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    """Three wrong codes over real endpoints: the first two guests are told the code
    was wrong; the third that it was that code's last attempt and the host shows a new
    one. The host says so, shows the new code and goes on hosting: a guest with the old
    code fails, a guest with the new one pairs and is admitted."""
    from ginp2p.app.pregame import PAIRING_OVER_WORDS, JoinError, admit_guest, pair_with_host
    from ginp2p.files.identity import load_or_create_identity
    from ginp2p.net.transport import GuestEndpoint, HostEndpoint
    from ginp2p.proto.frames import NET_VERSION, HaveFrame

    h, g = (load_or_create_identity(tmp_path / n) for n in "hg")
    said: list[str] = []
    told: list[str] = []
    clock = Clock()

    async def main() -> tuple[bytes, str]:
        host = HostEndpoint(h.curve_public_key, h.curve_secret_key, bind="127.0.0.1",
                            pairing=True)  # fmt: skip
        port = await host.start()
        gate = PairingGate(h.public_key, code=CODE, clock=clock)
        admit = asyncio.ensure_future(admit_guest(host, h, gate, said.append, {}))

        async def join(code: str) -> GuestEndpoint:
            guest = GuestEndpoint(g.curve_public_key, g.curve_secret_key,
                                  h.curve_public_key, "127.0.0.1", port)  # fmt: skip
            await guest.start()
            try:
                await pair_with_host(guest, g, h.public_key, code, lambda _: None, 5)
            except BaseException:
                await guest.close()
                raise
            return guest

        async def fail(code: str, done: Callable[[], bool]) -> None:
            with pytest.raises(JoinError) as err:
                await join(code)
            told.append(str(err.value))
            await until(done, "cut")  # the host cut the connections: the next guest is not cut

        try:
            for n in (1, 2):
                await fail("8-tulip-anchor", lambda n=n: sum("left with" in s for s in said) == n)
            await fail("8-tulip-anchor", lambda: gate.code != CODE and said[-1].startswith(
                "pairing code: "))  # fmt: skip
            new = gate.code
            clock.now += PAUSE_S
            await fail(CODE, lambda: sum("left with" in s for s in said) == 3)
            guest = await join(new)
            try:
                await guest.send(HaveFrame(NET_VERSION, 0, 0, True))  # it is the guest now
                return await asyncio.wait_for(admit, GUARD), new
            finally:
                await guest.close()
        finally:
            admit.cancel()
            await host.close()

    key, new = asyncio.run(main())
    assert key == g.public_key
    assert [t.startswith("wrong pairing code: the two sides did not agree") for t in told] == \
        [True, True, False, True]  # fmt: skip
    assert told[2] == PAIRING_OVER_WORDS
    assert "2 pairing attempts left with this code" in said
    assert (f"the pairing code {CODE} had its 3 attempts: it works no more, so that nobody "
            "can go on guessing it") in said  # fmt: skip
    assert f"pairing code: {new}  (a new one, taken in 2 s; a guest you paired with before " \
        "needs none)" in said  # fmt: skip
    assert any(s.startswith("paired with a guest") for s in said)


def test_a_connection_cut_while_pairing_is_a_clear_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    """The host drops every connection (another guest's pairing failed) just after this
    guest's request: the guest reconnects by itself, and is told to try again; it had
    sent its request a second time and crashed ('pairing already wait')."""
    import asyncio

    from ginp2p.app.pregame import JoinError, pair_with_host
    from ginp2p.files.identity import load_or_create_identity
    from ginp2p.net.endpoint import Received
    from ginp2p.net.transport import GuestEndpoint, HostEndpoint
    from ginp2p.proto.frames import PairFrame

    h, g = (load_or_create_identity(tmp_path / n) for n in "hg")

    async def main() -> str:
        host = HostEndpoint(h.curve_public_key, h.curve_secret_key, bind="127.0.0.1",
                            pairing=True)  # fmt: skip
        guest = GuestEndpoint(g.curve_public_key, g.curve_secret_key, h.curve_public_key,
                              "127.0.0.1", await host.start())  # fmt: skip
        try:
            await guest.start()
            pairing = asyncio.ensure_future(pair_with_host(guest, g, h.public_key, CODE,
                                                           lambda _: None, 5))  # fmt: skip
            while not isinstance(ev := await host.recv(), Received) or \
                    not isinstance(ev.frame, PairFrame):  # fmt: skip
                pass
            await host.drop_connections()
            with pytest.raises(JoinError) as err:
                await asyncio.wait_for(pairing, GUARD)
            return str(err.value)
        finally:
            for ep in (guest, host):
                await ep.close()

    assert asyncio.run(main()).startswith("the host cut the connection while pairing")


def test_a_damaged_peers_file_is_no_pin_for_a_screen_hint(tmp_path: Path) -> None:
    """Names and hints on the screen read the pins quietly: a damaged peers.json counts
    as no pin there (and is left untouched), while `ginp2p keys` still reports it."""
    key = bytes(nacl.signing.SigningKey(bytes([7]) * 32).verify_key)
    peers.pin(key, "Alice", home=tmp_path)
    assert peers.lookup_quietly(key, home=tmp_path).name == "Alice"  # type: ignore[union-attr]
    assert peers.lookup_quietly(None, home=tmp_path) is None
    (tmp_path / "peers.json").write_text("{not json")
    assert peers.lookup_quietly(key, home=tmp_path) is None
    with pytest.raises(peers.PeersError, match="is damaged"):
        peers.lookup(key, home=tmp_path)
    assert (tmp_path / "peers.json").read_text() == "{not json"
