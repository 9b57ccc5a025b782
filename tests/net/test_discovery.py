"""Key text, the join string, and mDNS discovery between two OS processes.

The mDNS test advertises on loopback (``interfaces=["127.0.0.1"]``), which works in
a container with only ``lo``; if multicast is impossible it fails, loudly, rather
than skipping.
"""

from __future__ import annotations

import asyncio
import itertools
import subprocess
import sys
import textwrap
import time

import nacl.signing
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ginp2p.net.discovery import (
    JOIN_SHAPE,
    PROTOCOL_VERSION,
    SERVICE_TYPE,
    Found,
    browse,
    format_join,
    lan_addresses,
    parse_join,
)
from ginp2p.proto.keytext import KEY_TEXT_LENGTH, key_from_text, key_to_text
from tests.processes import stop

#: a fixed key: parameters must be the same at every collection (pytest-xdist's workers
#: each collect the tests and compare)
KEY = bytes(nacl.signing.SigningKey(bytes(range(32))).verify_key)


# --------------------------------------------------------------------- key text


@given(st.binary(min_size=32, max_size=32))
def test_key_text_round_trip(seed: bytes) -> None:
    key = bytes(nacl.signing.SigningKey(seed).verify_key)
    text = key_to_text(key)
    assert len(text) == KEY_TEXT_LENGTH == 52
    assert text == text.lower() and "=" not in text
    assert key_from_text(text) == key == key_from_text(f"  {text.upper()}\n")


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("", "52 base32 letters"),
        ("a" * 51, "not 51 characters"),
        ("a" * 53, "not 53 characters"),
        ("1" * 52, "a-z and the digits 2-7"),
        ("a" * 51 + "b", "impossible"),  # non-zero padding bits
        ("a" * 52, "not a key \\(a typo\\?\\): copy it again"),  # no point of the curve
    ],
)
def test_bad_key_text(text: str, why: str) -> None:
    with pytest.raises(ValueError, match=why):
        key_from_text(text)


def test_a_typo_in_a_key_is_found_as_a_typo() -> None:
    """A changed letter mostly gives 32 bytes that are no key at all: said so, not as
    the crypto library's "unexpected library error"."""
    text = key_to_text(KEY)
    said = set()
    for i, letter in itertools.product(range(51), "abcdefgh"):
        typo = text[:i] + letter + text[i + 1 :]
        try:
            key_from_text(typo)
        except ValueError as exc:
            said.add(str(exc))
    assert said == {"this is not a key (a typo?): copy it again from the host's screen"}


def test_key_to_text_wants_32_bytes() -> None:
    with pytest.raises(ValueError, match="32 bytes"):
        key_to_text(b"short")


# ------------------------------------------------------------------ join string


@pytest.mark.parametrize(
    "host", ["192.168.1.20", "alice-laptop.local", "localhost", "::1", "fe80::1%eth0", "fd00::2"]
)
@pytest.mark.parametrize("key", [KEY, None])
def test_join_string_round_trip(host: str, key: bytes | None) -> None:
    text = format_join(host, 52801, key)
    assert text.startswith(f"[{host}]:" if ":" in host else f"{host}:")
    assert parse_join(text) == (host, 52801, key)
    assert parse_join(f"  ginp2p join {text} ") == (host, 52801, key)


def test_join_string_shape() -> None:
    assert format_join("10.0.0.5", 4000, KEY) == f"10.0.0.5:4000/{key_to_text(KEY)}"
    assert parse_join("10.0.0.5:4000") == ("10.0.0.5", 4000, None)
    assert parse_join(f"[::1]:9/{key_to_text(KEY).upper()}") == ("::1", 9, KEY)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("", "empty join string"),
        ("10.0.0.5", "missing ':PORT'"),
        (":4000", "missing host"),
        ("10.0.0.5:", "port must be a number"),
        ("10.0.0.5:http", "port must be a number"),
        ("10.0.0.5:0", "between 1 and 65535"),
        ("10.0.0.5:65536", "between 1 and 65535"),
        ("10.0.0.5:-1", "port must be a number"),
        ("10.0.0.5:４０", "port must be a number"),
        ("fe80::1:4000", r"in brackets, then the port: \[fe80::1\]:4000"),
        ("[fe80::1:4000", "missing ']'"),
        ("[fe80::1]4000", "expected ':PORT'"),
        ("[not-v6]:4000", "not an IPv6 address"),
        ("bad_host!:4000", "not a host name"),
        ("10.0.0.5:4000/", "nothing after '/'"),
        ("10.0.0.5:4000/abc", "the key after '/' is 3 characters, not 52"),
        (f"10.0.0.5:4000/{key_to_text(KEY)[:-1]}0", "bad key after '/'"),
    ],
)
def test_bad_join_strings_say_what_is_wrong(text: str, why: str) -> None:
    with pytest.raises(ValueError, match=why) as exc:
        parse_join(text)
    assert str(exc.value).endswith(f"; {JOIN_SHAPE}")


@pytest.mark.parametrize(
    ("text", "why"),
    [
        (f"http://192.168.1.5:5555/{key_to_text(KEY)}",
         "a join string has no 'http://' in front: it is no web address"),
        (f"tcp://192.168.1.5:5555/{key_to_text(KEY)}", "no 'tcp://' in front"),
        (f"192.168.1.5:5555/{key_to_text(KEY)}/", "more than one '/'"),
        (f"192.168.1.5:5555/{key_to_text(KEY)}x",
         "the key after '/' is 53 characters, not 52 (cut short, or run on, when copied?)"),
        (f"192.168.1.5:5555/{key_to_text(KEY)[:40]}", "the key after '/' is 40 characters"),
        (f"192.168.1.5:5555/{key_to_text(KEY)[:20]}\n{key_to_text(KEY)[20:]}",
         "has a space or a line break in it (cut in two when it was copied?)"),
        (f"192.168.1.5:5555 /{key_to_text(KEY)}", "has a space or a line break in it"),
        (key_to_text(KEY), f"{key_to_text(KEY)[:8]}... is a key alone, without the host's "
                           "address and port"),
        (f"192.168.1.5/{key_to_text(KEY)}", "missing ':PORT' after '192.168.1.5'"),
    ],
)  # fmt: skip
def test_a_malformed_join_string_says_what_one_looks_like(text: str, why: str) -> None:
    """A URL, a key cut short or run on, a line break from the copy, the key alone: each
    says what is wrong in words, then the shape the host prints (it used to be "a key is
    52 base32 letters, not 70 characters" for a URL)."""
    with pytest.raises(ValueError) as exc:
        parse_join(text)
    assert why in str(exc.value) and str(exc.value).endswith(
        "; expected HOST:PORT/KEY as the host prints it (e.g. 192.168.1.5:52801/ then its key, "
        "52 letters and digits), or HOST:PORT"
    )


def test_format_join_rejects_a_bad_port() -> None:
    with pytest.raises(ValueError, match="65535"):
        format_join("h", 70000, KEY)


@given(st.text(max_size=80))
def test_parse_join_raises_only_value_error(text: str) -> None:
    try:
        host, port, key = parse_join(text)
    except ValueError:
        return
    assert host and 1 <= port <= 65535 and (key is None or len(key) == 32)


def test_lan_addresses_leave_out_loopback() -> None:
    assert not {"127.0.0.1", "::1"} & set(lan_addresses())


# ------------------------------------------------------------------------ mDNS

ADVERTISER = textwrap.dedent(
    """
    import asyncio, sys
    from zeroconf.asyncio import AsyncServiceInfo, AsyncZeroconf
    from ginp2p.net.discovery import SERVICE_TYPE, Advertisement

    async def bogus():
        # A record whose key is not a key: browse must leave it out.
        zc = AsyncZeroconf(interfaces=["127.0.0.1"])
        info = AsyncServiceInfo(
            SERVICE_TYPE, f"Bogus {sys.argv[2]}.{SERVICE_TYPE}", port=1,
            properties={"name": "Bogus", "v": "1", "key": "not-a-key"},
            server=f"bogus-{sys.argv[2]}.local.", parsed_addresses=["127.0.0.1"])
        await zc.async_register_service(info)
        return zc

    async def main():
        key = bytes.fromhex(sys.argv[1])
        ad = Advertisement("Zoë's table", 40123, key,
                           addresses=["127.0.0.1"], interfaces=["127.0.0.1"])
        _, zc = await asyncio.gather(ad.start(), bogus())
        print("ready", flush=True)
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
        await asyncio.gather(ad.close(), zc.async_close())
        print("closed", flush=True)

    asyncio.run(main())
    """
)

NO_MULTICAST = (
    "mDNS discovery found nothing on loopback within {:.0f} s: multicast seems impossible "
    "on this machine (no route for 224.0.0.251 on lo, or a firewall). Discovery cannot "
    "work here; the join string still does. This test fails on purpose rather than skip."
)


async def _browse_until(key: bytes, deadline: float) -> list[Found]:
    found: list[Found] = []
    while time.monotonic() < deadline:
        found = await browse(1.5, interfaces=["127.0.0.1"])
        if any(f.key == key for f in found):
            break
    return found


@pytest.mark.e2e
@pytest.mark.usefixtures("ginp2p_home")
def test_a_host_in_another_process_is_found_with_its_full_key() -> None:
    key = bytes(nacl.signing.SigningKey.generate().verify_key)
    proc = subprocess.Popen(
        [sys.executable, "-c", ADVERTISER, key.hex(), key.hex()[:8]],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None and proc.stdin is not None
        ready = proc.stdout.readline().strip()
        assert ready == "ready", f"advertiser failed: {ready!r} {proc.stderr.read()}"
        limit = 12.0
        found = asyncio.run(_browse_until(key, time.monotonic() + limit))
        mine = [f for f in found if f.key == key]
        assert mine, NO_MULTICAST.format(limit)
        [host] = mine
        assert host.name == "Zoë's table"
        assert host.port == 40123 and host.version == PROTOCOL_VERSION
        assert "127.0.0.1" in host.addresses
        assert parse_join(host.join()) == ("127.0.0.1", 40123, key)
        assert all(f.name != "Bogus" for f in found)
        proc.stdin.close()
        assert proc.stdout.readline().strip() == "closed"
        assert proc.wait(timeout=10) == 0
    finally:
        stop(proc)
    # After its goodbye the host is no longer found.
    gone = asyncio.run(browse(1.0, interfaces=["127.0.0.1"]))
    assert all(f.key != key for f in gone)


def test_service_type_is_the_designed_one() -> None:
    assert SERVICE_TYPE == "_ginp2p._tcp.local."


def test_join_by_host_name_takes_the_game_of_that_address(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two hosts on one port (both on the default): a name goes to the game advertised
    at the address it resolves to, never to the first game found."""
    import argparse

    from ginp2p.cli import lan
    from ginp2p.cli.output import Problem

    alice, carol = (bytes(nacl.signing.SigningKey(bytes([n]) * 32).verify_key) for n in (1, 2))
    games = [Found("Alice", ("192.0.2.11",), 52801, alice, "1"),
             Found("Carol", ("127.0.0.1",), 52801, carol, "1")]  # fmt: skip
    monkeypatch.setattr(lan, "browse", lambda args: games)

    def find(address: str) -> tuple[str, int, bytes]:
        return lan.find_address(argparse.Namespace(address=address), bot=True)

    assert find("localhost:52801") == ("localhost", 52801, carol)
    assert find("192.0.2.11:52801") == ("192.0.2.11", 52801, alice)
    with pytest.raises(Problem, match=r"no game at nowhere\.invalid:52801"):
        find("nowhere.invalid:52801")  # two games, and the name is neither's
    games.pop(0)  # one game on the port: a name not advertised still finds it
    assert find("nowhere.invalid:52801") == ("nowhere.invalid", 52801, carol)


def test_choosing_a_game_asks_again_until_the_answer_is_one(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    """A typo in the game's number asks again (the LAN was searched already); Enter
    takes the only game; nothing typed with several games, or the end of input, is no
    choice."""
    from ginp2p.cli import lan
    from ginp2p.cli.output import Problem

    games = [Found(n, ("192.0.2.1",), 52801, KEY, "1") for n in ("Alice", "Carol")]
    answers: list[str] = []

    def typed(prompt: str) -> str:
        if not answers:
            raise EOFError
        return answers.pop(0)

    monkeypatch.setattr("builtins.input", typed)
    answers[:] = ["3", "abc", "2"]
    assert lan._pick(games) is games[1]
    assert capsys.readouterr().out.count("is not one of the games listed") == 2
    answers[:] = [""]
    assert lan._pick(games[:1]) is games[0]
    for said in ([""], []):
        answers[:] = said
        with pytest.raises(Problem, match="no game chosen"):
            lan._pick(games)


@pytest.mark.usefixtures("ginp2p_home")
def test_the_lan_list_tells_hosts_of_one_name_apart(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    """Anyone can announce any name: each game shows its key's fingerprint, the one you
    paired with says so, and a host of another version is marked; none found is no game
    to join (exit 1), not a mistake in the command (exit 2)."""
    from ginp2p import cli
    from ginp2p.cli import lan
    from ginp2p.files import peers
    from ginp2p.proto.keytext import fingerprint

    one, two = (bytes(nacl.signing.SigningKey(bytes([n]) * 32).verify_key) for n in (1, 2))
    peers.pin(one, "Alice")
    games = [Found("Alice", ("192.0.2.11",), 52801, one, PROTOCOL_VERSION),
             Found("Alice", ("192.0.2.12",), 52801, two, "99")]  # fmt: skip
    monkeypatch.setattr(lan, "browse", lambda args: games)
    monkeypatch.setattr("builtins.input", lambda prompt: "")  # Enter: several, no choice
    monkeypatch.setattr(sys, "stdin", type("Tty", (), {"isatty": staticmethod(lambda: True)}))
    assert cli.main(["join"]) == 1
    out, err = capsys.readouterr()
    first, second = out.split("  2. ")
    assert f"1. Alice  fingerprint {fingerprint(one)}  paired with you\n" in first
    assert f"Alice  fingerprint {fingerprint(two)}  (another ginp2p version" in second
    assert "paired with you" not in second  # the same name, another key: said so
    assert (f"not the Alice you paired with: this key's fingerprint is {fingerprint(two)}, "
            f"the Alice you paired with has {fingerprint(one)}") in second  # fmt: skip
    assert f"ginp2p join {games[1].join()}" in second
    assert "no game chosen" in err
    games.clear()
    assert cli.main(["join"]) == 1
    assert "no game found on the LAN" in capsys.readouterr().err
