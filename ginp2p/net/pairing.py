"""Pairing two players the first time they meet: a short code, SPAKE2, confirm MACs.

Sans-IO: these classes take and return bytes; the transport carries each message in
a ``pair`` frame (docs/network.md) and pins the peer's key on success (``peers.pin``).

The host shows a code such as ``7-tulip-anchor`` (a number 2..99 and two words of a
fixed list of 256: 98·256·256 ≈ 6.4 million codes, 22.6 bits). The guest types it.
SPAKE2 over the code gives both sides the same key only if both used the same code,
and an attacker who does not know the code gets exactly one guess per attempt: the
messages reveal nothing to test other guesses offline. Each side then proves it
holds that key with an HMAC over *both* Ed25519 public keys (host's, then guest's),
so a wrong code fails, and so does a man in the middle who swaps in its own keys:
the two honest sides would MAC different key pairs.

Message flow (each a msgpack array; byte strings are msgpack bin)::

    1. guest → host   [1, guest_key(32), pake_B(33)]        1 = pairing version
    2. host  → guest  [host_key(32), pake_A(33), mac_host(32)]
    3. guest → host   [mac_guest(32)]

``pake_A``/``pake_B`` are the ``spake2`` package's messages (SPAKE2_A is the host,
SPAKE2_B the guest; idA ``b"ginp2p-host"``, idB ``b"ginp2p-guest"``; the password is
the code in canonical form). With ``K`` the SPAKE2 key::

    k_role   = HKDF-SHA256(K, salt=b"ginp2p/v1/pair", info=b"ginp2p/v1/pair/mac/" + role)
    mac_role = HMAC-SHA256(k_role, b"ginp2p/v1/pair/keys\\0" + host_key + guest_key)

with role ``host`` or ``guest``. The guest is done (and may pin) once message 2
checks out; the host once message 3 does. A guest whose check of message 2 fails
still sends message 3 (:attr:`PairingError.reply`), so the host fails clearly too
rather than waiting. Both sides also check, when told, that the peer's Ed25519 key
is the one its CURVE connection authenticated with, binding the pairing to the
connection.

Anything the peer sends is untrusted: a malformed message raises
:class:`PairingError`, never anything else, and costs the code no attempt (it tested
no guess). A code has :data:`DEFAULT_ATTEMPTS` attempts; once they are used, the
:class:`PairingGate` makes a new code, and the host goes on with it (docs/pairing.md).
"""

from __future__ import annotations

import hashlib
import hmac
import math
import os
import re
import time
from collections.abc import Callable
from enum import Enum

import msgpack
import nacl.bindings
import nacl.exceptions
import spake2

from ginp2p.errors import Ginp2pError

__all__ = [
    "DEFAULT_ATTEMPTS",
    "PAIRING_VERSION",
    "PAUSE_MAX_S",
    "PAUSE_S",
    "WORDS",
    "GuestPairing",
    "HostPairing",
    "PairingError",
    "PairingGate",
    "PairingRefused",
    "canonical_code",
    "codes_equal",
    "new_code",
]

PAIRING_VERSION = 1
DEFAULT_ATTEMPTS = 3
#: After a code's attempts are used up, its successor is taken only after a pause
#: (seconds), doubled for each code used up since the host began, up to PAUSE_MAX_S. A
#: new code every few guesses would otherwise let a stranger guess on without end, as
#: fast as the network carries requests; paced, it gets at most 3 guesses a minute
#: (each one chance in 6.4 million), while a person who mistyped waits a moment.
PAUSE_S = 2.0
PAUSE_MAX_S = 60.0
ID_HOST = b"ginp2p-host"
ID_GUEST = b"ginp2p-guest"
_HKDF_SALT = b"ginp2p/v1/pair"
_MAC_INFO = b"ginp2p/v1/pair/mac/"
_MAC_CONTEXT = b"ginp2p/v1/pair/keys\0"
_MAX_MESSAGE = 512  # the largest honest message is ~105 bytes

WRONG_CODE = (
    "wrong pairing code: the two sides did not agree (check the code and try again; "
    "if it was typed right, someone may be in the middle)"
)

# 256 short, concrete, distinct English words: no homophones, no word a prefix of
# another, no two-word concatenation equal to another (tests check all three).
_WORD_TEXT = """
    acorn almond alpaca anchor apple apron arrow atlas attic badger bagel bamboo banjo
    barn basket beach bean beaver beetle bench berry bike bird bison boat bone book boot
    bottle bread brick broom bucket button cabin cactus cake camel candle canoe carpet
    carrot castle cat cello chair cheese cherry chess cloud clover coat cobra comet compass
    cookie coral corn cotton crab crane crayon cricket crown cup daisy desk dice dingo
    dolphin donkey door dragon drum duck eagle easel egg elbow elk engine falcon feather
    fern ferry fig flag flute forest fork fox frog garden garlic gate gecko ginger giraffe
    glove goat goose grape guitar hammer hamster harp hat hazel helmet heron hippo honey
    horse house igloo iris island ivy jacket jaguar jam jar jelly jet jungle kayak kettle
    kite kiwi koala ladder lake lamp lantern lemon lettuce lily lion lizard llama lobster
    lotus magnet mango maple marble meadow melon mirror mitten moon mouse muffin mug napkin
    needle nest noodle nut ocean olive onion orange orchid otter owl oyster paddle panda
    panther parrot peach peanut pebble pencil pepper piano pickle pigeon pillow pine pizza
    planet pocket pony potato pretzel puffin pumpkin puzzle quail quilt rabbit radio raft
    raven rhino ribbon rice river robin rocket ruby saddle salmon sandal scarf seal shell
    ship shovel snail sock sofa sparrow spider spoon squid star stone sugar swan table taco
    tiger toast tomato torch tower tractor train tree truck tulip tunnel turtle umbrella
    unicorn valley vase violin volcano waffle wagon walnut walrus whale wheel willow window
    wizard wolf yak yarn zebra zipper
"""
WORDS: tuple[str, ...] = tuple(_WORD_TEXT.split())

_WORD_SET = frozenset(WORDS)
_CODE_RE = re.compile(r"([0-9]+)([a-z]+)")


# ---------------------------------------------------------------------- codes


def new_code(rng_bytes: Callable[[int], bytes] = os.urandom) -> str:
    """A fresh code ``N-word-word``, uniform over all 6.4 million (rejection sampling
    keeps the number unbiased)."""
    while True:
        b = rng_bytes(1)[0]
        if b < 196:  # 2 * 98: the largest multiple of 98 below 256
            break
    w = rng_bytes(2)
    return f"{b % 98 + 2}-{WORDS[w[0]]}-{WORDS[w[1]]}"


def canonical_code(text: str) -> str:
    """The code as both sides feed it to SPAKE2: lowercase, separators dropped, so
    ``7 Tulip anchor`` and ``7-tulip-anchor`` agree. ValueError, before anything is
    sent, if it cannot be a code (a typo costs no attempt)."""
    squashed = "".join(c for c in text.lower() if c.isalnum())
    m = _CODE_RE.fullmatch(squashed)
    if not m or not squashed.isascii():
        raise ValueError(f"{text!r} is not a pairing code: expected a number and two words")
    number, letters = m.groups()
    if not 2 <= int(number) <= 99 or number.startswith("0"):
        raise ValueError(f"the number in a pairing code is 2 to 99, not {number}")
    if not any(letters[:i] in _WORD_SET and letters[i:] in _WORD_SET for i in range(len(letters))):
        words = [w for w in re.split(r"[^a-z]+", text.lower()) if w]
        unknown = [w for w in words if w not in _WORD_SET]
        hint = f"unknown word {unknown[0]!r}" if unknown else "expected two words"
        raise ValueError(f"{text!r} is not a pairing code: {hint}")
    return squashed


def codes_equal(a: str, b: str) -> bool:
    """True if two typed codes are the same code (case and separators ignored)."""
    try:
        return hmac.compare_digest(canonical_code(a), canonical_code(b))
    except ValueError:
        return False


# --------------------------------------------------------------------- crypto


def _hkdf(key: bytes, info: bytes) -> bytes:
    """HKDF-SHA256 (RFC 5869) for one 32-byte output block."""
    prk = hmac.new(_HKDF_SALT, key, hashlib.sha256).digest()
    return hmac.new(prk, info + b"\x01", hashlib.sha256).digest()


def _mac(shared: bytes, role: bytes, host_key: bytes, guest_key: bytes) -> bytes:
    mac_key = _hkdf(shared, _MAC_INFO + role)
    return hmac.new(mac_key, _MAC_CONTEXT + host_key + guest_key, hashlib.sha256).digest()


def _curve(ed_key: bytes) -> bytes | None:
    """The X25519 (CURVE) form of an Ed25519 public key; None if it is not one."""
    try:
        return nacl.bindings.crypto_sign_ed25519_pk_to_curve25519(ed_key)
    except (nacl.exceptions.CryptoError, ValueError, TypeError):
        return None


# ---------------------------------------------------------------- the protocol


def _pack(obj: object) -> bytes:
    packed: bytes = msgpack.packb(obj)
    return packed


class PairingError(Ginp2pError):
    """Pairing failed; ``str(err)`` says why in words for the player.

    ``reply``, if not None, is a last message to send the peer before closing so it
    fails clearly too.
    """

    def __init__(self, message: str, reply: bytes | None = None) -> None:
        super().__init__(message)
        self.reply = reply


class PairingRefused(PairingError):
    """The host's gate refuses attempts with this code (see :attr:`PairingGate.refused`)."""


class _State(Enum):
    START = "start"
    WAIT = "wait"
    DONE = "done"
    FAILED = "failed"


def _decode(msg: object, shape: tuple[int, ...], what: str) -> list[bytes | int]:
    """Unpack a peer message: a msgpack array of bins with these lengths (0 = an int)."""
    if not isinstance(msg, bytes | bytearray | memoryview):
        raise PairingError(f"malformed {what}: not bytes")
    if len(msg) > _MAX_MESSAGE:
        raise PairingError(f"malformed {what}: {len(msg)} bytes is too long")
    try:
        items = msgpack.unpackb(bytes(msg), raw=False, use_list=True, strict_map_key=True)
    except Exception:  # msgpack raises many types on bad input; all mean "malformed"
        raise PairingError(f"malformed {what}: not msgpack") from None
    if not isinstance(items, list) or len(items) != len(shape):
        raise PairingError(f"malformed {what}: expected {len(shape)} fields")
    for item, size in zip(items, shape, strict=True):
        ok = type(item) is int if size == 0 else isinstance(item, bytes) and len(item) == size
        if not ok:
            raise PairingError(f"malformed {what}: a field has the wrong type or length")
    return items


class _Side:
    """What both roles share: state, the verdict, and refusing to be reused."""

    def __init__(self, code: str, own_key: bytes, curve_key: bytes | None) -> None:
        if len(own_key) != 32 or _curve(own_key) is None:
            raise ValueError("own_key must be a 32-byte Ed25519 public key")
        self._password = canonical_code(code).encode("ascii")
        self._own_key = own_key
        self._curve_key = curve_key
        self._state = _State.START
        self._peer_key: bytes | None = None
        self._error: str | None = None
        self._on_finish: Callable[[bool], None] = lambda ok: None  # the gate's hook

    @property
    def done(self) -> bool:
        """True once the peer proved it used the same code over these two keys."""
        return self._state is _State.DONE

    @property
    def failed(self) -> bool:
        return self._state is _State.FAILED

    @property
    def peer_key(self) -> bytes | None:
        """The peer's Ed25519 key, only once verified (``done``)."""
        return self._peer_key if self.done else None

    @property
    def error(self) -> str | None:
        """Why pairing failed, in words for the player; None unless ``failed``."""
        return self._error

    def _fail(self, message: str, reply: bytes | None = None) -> PairingError:
        self._state = _State.FAILED
        self._error = message
        self._on_finish(False)
        return PairingError(message, reply)

    def _check_curve(self, peer_key: bytes, who: str) -> None:
        curve = _curve(peer_key)
        if curve is None:
            raise self._fail(f"the {who}'s key is not an Ed25519 public key")
        if self._curve_key is not None and not hmac.compare_digest(curve, self._curve_key):
            raise self._fail(f"the {who}'s key is not the key its connection authenticated with")
        if peer_key == self._own_key:
            raise self._fail(f"the {who} uses the same key as this side (pairing with itself?)")

    def _finished(self) -> PairingError:
        return PairingError(f"pairing already {self._state.value}; start a new one")


class HostPairing(_Side):
    """The host's side of one pairing attempt (one guest connection).

    ``curve_key`` is the guest's CURVE (X25519) key that the connection authenticated
    with; when given, the guest's Ed25519 key must convert to it.
    """

    def __init__(
        self,
        code: str,
        host_key: bytes,
        *,
        curve_key: bytes | None = None,
        entropy: Callable[[int], bytes] = os.urandom,
    ) -> None:
        super().__init__(code, host_key, curve_key)
        self._entropy = entropy
        self._guest_key = b""
        self._expect_mac = b""
        # The gate's hooks: may this attempt start / succeed? (None = yes, else why not)
        self._charge: Callable[[], str | None] = lambda: None
        self._accept: Callable[[], str | None] = lambda: None
        #: This attempt tested a guess (the host answered a well-formed request), so it
        #: counts against the code; a malformed request never does.
        self.counted = False

    def receive(self, msg: bytes) -> bytes | None:
        """Take the guest's message; return the reply to send, or None when done.

        Raises PairingError when pairing fails (``error`` keeps the reason).
        """
        if self._state is _State.START:
            return self._first(msg)
        if self._state is _State.WAIT:
            (mac_guest,) = self._decode(msg, (32,), "pairing confirmation")
            assert isinstance(mac_guest, bytes)
            if not hmac.compare_digest(mac_guest, self._expect_mac):
                raise self._fail(WRONG_CODE)
            if (refused := self._accept()) is not None:
                raise self._fail(refused)
            self._state = _State.DONE
            self._peer_key = self._guest_key
            self._on_finish(True)
            return None
        raise self._finished()

    def _decode(self, msg: object, shape: tuple[int, ...], what: str) -> list[bytes | int]:
        try:
            return _decode(msg, shape, what)
        except PairingError as exc:
            raise self._fail(str(exc)) from None

    def _first(self, msg: bytes) -> bytes:
        version, guest_key, pake_b = self._decode(msg, (0, 32, 33), "pairing request")
        assert isinstance(guest_key, bytes) and isinstance(pake_b, bytes)
        if version != PAIRING_VERSION:
            raise self._fail(
                f"the guest speaks pairing version {version!r}; this is version "
                f"{PAIRING_VERSION} (update both programs)"
            )
        self._check_curve(guest_key, "guest")
        pake = spake2.SPAKE2_A(self._password, idA=ID_HOST, idB=ID_GUEST, entropy_f=self._entropy)
        pake_a = pake.start()
        try:
            shared = pake.finish(pake_b)
        except Exception:  # the spake2 package raises several types on bad points
            raise self._fail("malformed pairing request: its code exchange is not valid") from None
        # Charged only now: a request the spake2 package refuses tests no guess, and
        # counting it would let a stranger spend the code with random bytes.
        if (refused := self._charge()) is not None:
            self._state = _State.FAILED
            self._error = refused
            raise PairingRefused(refused)
        self.counted = True
        self._guest_key = guest_key
        self._expect_mac = _mac(shared, b"guest", self._own_key, guest_key)
        self._state = _State.WAIT
        mac_host = _mac(shared, b"host", self._own_key, guest_key)
        return _pack([self._own_key, pake_a, mac_host])


class GuestPairing(_Side):
    """The guest's side: :meth:`start`, then :meth:`receive` the host's answer.

    ``host_key`` is the host's Ed25519 key if the guest already expects one (join
    string, discovery); ``curve_key`` the CURVE server key it connected with. When
    given, the host's key must match them.
    """

    def __init__(
        self,
        code: str,
        guest_key: bytes,
        *,
        host_key: bytes | None = None,
        curve_key: bytes | None = None,
        entropy: Callable[[int], bytes] = os.urandom,
    ) -> None:
        super().__init__(code, guest_key, curve_key)
        self._expected_host = host_key
        self._pake = spake2.SPAKE2_B(self._password, idA=ID_HOST, idB=ID_GUEST, entropy_f=entropy)

    def start(self) -> bytes:
        """The first message, to the host."""
        if self._state is not _State.START:
            raise self._finished()
        self._state = _State.WAIT
        return _pack([PAIRING_VERSION, self._own_key, self._pake.start()])

    def receive(self, msg: bytes) -> bytes | None:
        """Take the host's answer; return the last message to send (pairing is done
        on this side). Raises PairingError on failure, with ``reply`` to send."""
        if self._state is not _State.WAIT:
            raise self._finished()
        try:
            host_key, pake_a, mac_host = _decode(msg, (32, 33, 32), "pairing answer")
        except PairingError as exc:
            raise self._fail(str(exc)) from None
        assert isinstance(host_key, bytes) and isinstance(pake_a, bytes)
        assert isinstance(mac_host, bytes)
        if self._expected_host is not None and host_key != self._expected_host:
            raise self._fail("the host's key is not the one this guest connected to")
        self._check_curve(host_key, "host")
        try:
            shared = self._pake.finish(pake_a)
        except Exception:  # the spake2 package raises several types on bad points
            raise self._fail("malformed pairing answer: its code exchange is not valid") from None
        reply = _pack([_mac(shared, b"guest", host_key, self._own_key)])
        if not hmac.compare_digest(mac_host, _mac(shared, b"host", host_key, self._own_key)):
            raise self._fail(WRONG_CODE, reply)
        self._state = _State.DONE
        self._peer_key = host_key
        return reply


# ------------------------------------------------------------------- the gate


class PairingGate:
    """The host's limit on attempts: one code at a time, at most ``limit`` guesses each.

    An attempt is charged once the host answers a well-formed request (that answer lets
    the guest test one guess), so a guest that walks away after seeing it still used one
    up; a malformed request (one the spake2 package refuses, a field of the wrong
    length, not msgpack) tested no guess and is never charged. A success spends the
    code: :meth:`begin` then refuses until :meth:`new_code`; :attr:`refused` says why.

    A wrong code never closes the gate. Once a code's attempts are used up (all failed,
    or a new guest comes while the last ones are still unanswered: an honest guest
    answers at once, so those walked away), the gate makes a new code by itself and
    the old one stops working: the host sees :attr:`code` change (:attr:`used_up`
    counts the codes replaced) and must show the new one. The new code is taken after
    a pause (:data:`PAUSE_S`, doubled for each code used up, at most
    :data:`PAUSE_MAX_S`; ``clock`` tells the time), so that new codes do not give a
    stranger guesses without end.
    """

    def __init__(
        self,
        host_key: bytes,
        *,
        limit: int = DEFAULT_ATTEMPTS,
        rng_bytes: Callable[[int], bytes] = os.urandom,
        code: str | None = None,
        clock: Callable[[], float] = time.monotonic,
        pause: float = PAUSE_S,
        max_pause: float = PAUSE_MAX_S,
    ) -> None:
        if limit < 1:
            raise ValueError("limit must be at least 1")
        self._host_key = host_key
        self._limit = limit
        self._rng = rng_bytes
        self._clock = clock
        self._pause, self._max_pause = pause, max_pause
        self._code = ""
        self._charged = 0
        self._failures = 0
        self._paired: bytes | None = None
        self._used_up = 0
        self._open_at = -math.inf  # when the code of the moment is taken
        self.new_code(code)

    @property
    def code(self) -> str:
        """The code to show, as ``N-word-word``."""
        return self._code

    @property
    def limit(self) -> int:
        """Attempts per code."""
        return self._limit

    @property
    def used_up(self) -> int:
        """Codes whose attempts were used up, each replaced by a new one, so far."""
        return self._used_up

    @property
    def paused_for(self) -> float:
        """Seconds until the code of the moment is taken (0: it is now)."""
        return max(0.0, self._open_at - self._clock())

    def new_code(self, code: str | None = None) -> str:
        """Make (or set) a fresh code and reset the count: pairing opens again, after
        the pause of a code used up, if one is running."""
        if code is not None:
            canonical_code(code)  # ValueError if it cannot be a code
        self._code = code if code is not None else new_code(self._rng)
        self._charged = self._failures = 0
        self._paired = None
        return self._code

    @property
    def failures(self) -> int:
        """Attempts with this code that have failed so far."""
        return self._failures

    @property
    def attempts_left(self) -> int:
        return 0 if self._paired is not None else max(0, self._limit - self._charged)

    @property
    def paired_key(self) -> bytes | None:
        """The guest key paired with this code, if it succeeded."""
        return self._paired

    @property
    def refused(self) -> str | None:
        """Why an attempt with the code of the moment would be refused now; None if it
        would be allowed. (:meth:`begin` first replaces a code used up.)"""
        if self._paired is not None:
            return "this pairing code was already used; make a new code to pair again"
        if (wait := self.paused_for) > 0:
            return (f"too many wrong pairing codes: this host has a new code, and takes it "
                    f"in {math.ceil(wait)} s")  # fmt: skip
        if self._charged >= self._limit:
            pending = self._charged - self._failures
            return (f"the {self._limit} attempts with this code are used ({pending} still "
                    "unanswered); the next guest makes a new code")  # fmt: skip
        return None

    def _use_up(self) -> None:
        """The code had its attempts: a new one, taken after a pause that doubles with
        each code used up."""
        self._used_up += 1
        pause = min(self._max_pause, self._pause * 2 ** (self._used_up - 1))
        self._open_at = self._clock() + pause
        self.new_code()

    def begin(self, curve_key: bytes | None = None) -> HostPairing:
        """A HostPairing for one new guest connection; PairingRefused if refused (the
        code was used by a pairing, or a new code waits out its pause)."""
        if self._paired is None and self._charged >= self._limit:
            self._use_up()  # its unanswered attempts walked away: they void with it
        if (why := self.refused) is not None:
            raise PairingRefused(why)
        pairing = HostPairing(self._code, self._host_key, curve_key=curve_key)
        code = self._code
        charged = False

        def charge() -> str | None:
            nonlocal charged
            if code != self._code:
                return "the pairing code changed; the guest must use the new code"
            if (why := self.refused) is not None:
                return why
            self._charged += 1
            charged = True
            return None

        def accept() -> str | None:
            if code != self._code:
                return "the pairing code changed while this guest was pairing; try again"
            if self._paired is not None:
                return "this pairing code was already used by another guest"
            return None

        def on_finish(ok: bool) -> None:
            if not charged or code != self._code:
                return  # never charged (malformed request), or an old code
            if ok:
                self._paired = pairing.peer_key
                return
            self._failures += 1
            if self._failures >= self._limit:
                self._use_up()

        pairing._charge, pairing._accept, pairing._on_finish = charge, accept, on_finish
        return pairing
