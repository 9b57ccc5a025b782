"""Text another peer wrote reaches a screen (or a file for people) only through
``words.for_screen``: a bye's reason, a hello's name, chat and resign words, a pinned
name, a host's name for its rules. The logs keep the words as signed."""

from __future__ import annotations

import asyncio
import random
import unicodedata
from pathlib import Path
from typing import Any

import msgpack
import nacl.signing
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ginp2p.files import peers
from ginp2p.game.rules import get_preset
from ginp2p.net.endpoint import LinkUp, Received
from ginp2p.present.words import for_screen
from ginp2p.proto.entry import GUEST, HOST
from ginp2p.proto.frames import decode_frame
from ginp2p.proto.protocol import PeerProtocol
from ginp2p.testing.fakelink import FakeLink, Side, dealt, settle, step_until

#: What a host may send a guest that joins it: clear the screen, retitle the window, ring.
EVIL_BYE = "\x1b[2J\x1b]0;pwned\x07 bye"
#: A name that would show reversed after its first letters ("Ann" then "live").
EVIL_NAME = "Ann\u202eevil"
#: The format characters a name or a chat line could hide or reorder text with.
BIDI_AND_INVISIBLE = ["\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067",
                      "\u2068", "\u2069", "\u200b", "\u200c", "\u200e", "\u200f", "\u061c",
                      "\ufeff"]  # fmt: skip


pytestmark = pytest.mark.usefixtures("ginp2p_home")


def _unsafe(c: str) -> bool:
    """ESC and the other C0 controls, DEL, the C1 controls, and the format characters
    (Cf) but the emoji joiner."""
    cat = unicodedata.category(c)
    return cat == "Cc" or (cat == "Cf" and c != "\u200d")


@given(st.text(st.characters(codec="utf-8")))
def test_for_screen_leaves_no_control_or_format_character(text: str) -> None:
    shown = for_screen(text)
    assert not any(map(_unsafe, shown))
    assert "\x1b" not in shown and "\x07" not in shown
    assert len(shown) == len(text), "one character each: columns and names line up"
    assert for_screen(shown) == shown
    if text.isprintable():
        assert shown == text


@pytest.mark.parametrize("c", [*BIDI_AND_INVISIBLE, "\x1b", "\x07", "\x9b", "\x85", "\u2028"])
def test_isprintable_rejects_the_bidi_and_invisible_characters(c: str) -> None:
    """``str.isprintable`` is false for every format character (Cf), so for_screen needs
    no list of its own: each named one shows as U+FFFD."""
    assert not c.isprintable()
    assert for_screen(f"a{c}b") == "a\ufffdb"


def test_the_emoji_joiner_is_kept() -> None:
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"
    assert unicodedata.category("\u200d") == "Cf" and for_screen(family) == family


# ----------------------------------------------------------------- a live session


class _Endpoint:
    """What a Session's frame handling sends through: nothing goes anywhere."""

    role = "guest"

    def __init__(self) -> None:
        self.sent: list[Any] = []

    async def send(self, frame: Any, to: bytes | None = None) -> bool:
        self.sent.append(frame)
        return True


class _Player:
    verbose = False
    stays_at_the_end = False
    keys_ctrl_c = False

    def next_command(self, session: Any) -> None:
        return None

    def event(self, session: Any, what: Any) -> None:
        pass


def _session(proto: PeerProtocol, said: list[str]) -> Any:
    from ginp2p.app.session import Session

    return Session(proto, _Endpoint(), _Player(), None, None, out=said.append)  # type: ignore[arg-type]


def _wire_bye(reason: str, sender: bytes | None = None) -> Received:
    """A bye exactly as a hostile peer puts it on the wire, decoded as the endpoint does:
    from the connection of ``sender`` (its signing key: the host's)."""
    return Received(decode_frame([msgpack.packb(["bye", reason])]), _from(sender))


def _from(sender: bytes | None) -> bytes:
    """The connection key of a peer with this signing key (an unknown one: any key)."""
    from ginp2p.net.transport import curve_key

    return curve_key(sender) if sender is not None else b"p" * 32


def test_a_hosts_bye_cannot_write_escapes_to_the_guests_screen() -> None:
    """A host the guest joins closes the game before it began, with a reason that would
    clear the guest's screen and retitle its window: it is shown defused."""
    host_key = bytes(nacl.signing.SigningKey.generate().verify_key)
    guest = PeerProtocol(GUEST, nacl.signing.SigningKey.generate(), random.randbytes,
                         name="Bob", peer_key=host_key)  # fmt: skip
    said: list[str] = []
    session = _session(guest, said)
    asyncio.run(session._on_net(_wire_bye(EVIL_BYE, host_key)))
    shown = session.result.message
    assert shown.endswith("closed the game before it began: \ufffd[2J\ufffd]0;pwned\ufffd bye")
    assert not any(map(_unsafe, shown + "".join(said)))


def test_a_bye_while_pairing_cannot_write_escapes_either() -> None:
    """The guest's pairing hears the host's bye too (a refused or failed pairing)."""
    from ginp2p.app.pregame import JoinError, pair_with_host

    class Endpoint(_Endpoint):
        async def recv(self) -> Any:
            return _wire_bye(EVIL_BYE)

    host_key = bytes(nacl.signing.SigningKey.generate().verify_key)
    me: Any = type("Me", (), {"public_key": bytes(32)})()
    with pytest.raises(JoinError) as err:
        asyncio.run(pair_with_host(Endpoint(), me, host_key, None, print, 5))  # type: ignore[arg-type]
    assert str(err.value) == "the host closed the connection: \ufffd[2J\ufffd]0;pwned\ufffd bye"


def _named_pair(host_name: str, seed: int = 3) -> tuple[Side, Side, FakeLink]:
    """Two peers over the fake link, the host named ``host_name``."""
    rng = random.Random(seed)
    keys = [nacl.signing.SigningKey(rng.randbytes(32)) for _ in range(2)]
    sides = []
    for me, name in ((HOST, host_name), (GUEST, "Bob")):

        def make(me: int = me, name: str = name, **resume: Any) -> PeerProtocol:
            return PeerProtocol(me, keys[me], rng.randbytes, name=name,
                                rules=get_preset("classic") if me == HOST else None, k=20,
                                peer_key=bytes(keys[1 - me].verify_key), **resume)  # fmt: skip

        sides.append(Side(make(), make))
    link = FakeLink(sides[0], sides[1], rng)
    return sides[0], sides[1], link


def _deal(link: FakeLink) -> None:
    """Both hellos in, the first hand dealt on both sides."""
    link.start()
    step_until(link, lambda: all(s.proto.table.hand is not None for s in link.sides)
               and dealt(link))  # fmt: skip


def test_a_hello_name_with_a_bidi_override_shows_as_fffd_on_the_table_and_the_lines() -> None:
    from ginp2p.app.setup import _pin_name
    from ginp2p.present.seat_words import event_words
    from ginp2p.proto.results import Chatted

    _, guest, link = _named_pair(EVIL_NAME)
    _deal(link)
    assert guest.proto.log.hello(HOST).body.name == EVIL_NAME  # the log keeps it as signed
    assert guest.proto.table.names[HOST] == "Ann\ufffdevil"
    said: list[str] = []
    session = _session(guest.proto, said)
    host_key = guest.proto.log.key(HOST)
    asyncio.run(session._on_net(LinkUp(_from(host_key))))
    assert said == ["connected to Ann\ufffdevil"]
    assert event_words(session.seat, Chatted(HOST, "hi"), terse=False) == "Ann\ufffdevil: hi"
    asyncio.run(session._on_net(_wire_bye(EVIL_BYE, host_key)))
    assert said[-1].startswith("Ann\ufffdevil left (\ufffd[2J\ufffd]0;pwned\ufffd bye)")
    assert not any(map(_unsafe, "".join(said)))
    # pinned under the name its hello gave, as every listing of the pins shows it
    hello = guest.proto.log.hello(HOST)
    peers.pin(hello.body.key, "")
    _pin_name(hello)
    assert [p.name for p in peers.all()] == ["Ann\ufffdevil"]


def test_pins_written_unfiltered_are_listed_filtered(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    """A peers.json an older version wrote with a raw name: `ginp2p keys` shows it
    defused."""
    import json

    from ginp2p.cli import main

    key = bytes(nacl.signing.SigningKey.generate().verify_key)
    peers.pin(key, "Olga")
    path = tmp_path / "home" / peers.PEERS_FILE
    doc = json.loads(path.read_text())
    doc["peers"][0]["name"] = EVIL_NAME
    path.write_text(json.dumps(doc))
    assert main(["keys"]) == 0
    out = capsys.readouterr().out
    assert "Ann\ufffdevil" in out and "\u202e" not in out


def test_chat_and_resign_words_are_defused_in_the_replay_and_the_export(tmp_path: Path) -> None:
    from ginp2p.files.records import load_replay
    from ginp2p.record.export import document, text_lines
    from tests.helpers import write

    host, guest, link = _named_pair(EVIL_NAME)
    _deal(link)
    link.handle(GUEST, guest.proto.chat("gg \u202eevil\u2066"))
    link.handle(GUEST, guest.proto.resign("\u200bsorry"))
    settle(link)
    r = load_replay(write(tmp_path / "game.ginlog", host.saved, host))
    said = [r.describe(s) for s in r.steps]
    assert "Bob says: gg \ufffdevil\ufffd" in said and "Bob resigns: \ufffdsorry" in said
    assert "Ann\ufffdevil (host) says hello: rules classic" in said
    text = "\n".join(text_lines(document(r)))
    assert "Bob resigns: \ufffdsorry" in text and "Ann\ufffdevil (host)" in text
    assert not any(map(_unsafe, "".join(said) + text.replace("\n", "")))


def test_a_hosts_name_for_its_rules_is_defused() -> None:
    """The host's hello names its rules as it likes (any text): every line that says
    the rules shows that name defused."""
    from ginp2p.present.commands import RulesOffered
    from ginp2p.present.words import preset_short, preset_words

    rules = get_preset("classic").with_(name="classic\u202e", game_target=50)
    lines = [preset_words(rules), preset_short(rules), RulesOffered(rules).text()]
    assert all(line.startswith("classic\ufffd") for line in lines)
