"""A name never stands for a key: a pin keeps the name it was paired under, a different
name its key announces later is shown beside it ("calls itself"), never merged into it
or into another pin's name; a name that two pins share is never a guess between them;
and another key announcing a paired player's name is said not to be that player, with
both fingerprints. Every name that reaches a screen is defused first."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import nacl.signing
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ginp2p.files import peers
from ginp2p.proto.keytext import fingerprint

pytestmark = pytest.mark.usefixtures("ginp2p_home")


def _key(n: int) -> bytes:
    return bytes(nacl.signing.SigningKey(bytes([n]) * 32).verify_key)


MALLORY, ALICE, STRANGER = _key(1), _key(2), _key(3)


def _lan_args() -> argparse.Namespace:
    return argparse.Namespace(log_dir=None, address=None, browse_time=0.1,
                              mdns_interface=None, discover_name=None)  # fmt: skip


def test_a_pin_keeps_its_name_and_shows_a_new_one_beside_it(ginp2p_home: Path) -> None:
    peers.pin(ALICE, "")  # pairing pins the key alone; its first hello names it
    peers.pin(ALICE, "Alice")
    peers.pin(MALLORY, "")
    peers.pin(MALLORY, "Mallory")
    mallory = peers.pin(MALLORY, "Alice")  # hosts as "Alice" now
    assert (mallory.name, mallory.calls_itself) == ("Mallory", "Alice")
    assert mallory.title == "Mallory (calls itself Alice)"
    assert mallory.described == f"Mallory (calls itself Alice, {fingerprint(MALLORY)})"
    assert [(p.name, p.calls_itself) for p in peers.all()] == [("Alice", ""),
                                                               ("Mallory", "Alice")]  # fmt: skip
    assert peers.find("Alice", peers.all()).key == ALICE  # the name she was paired under
    assert peers.pin(MALLORY, "mallory").title == "Mallory"  # its own name again
    # a stranger's key paired since, announcing a name another pin has, is not named so
    peers.pin(STRANGER, "")
    stranger = peers.pin(STRANGER, "Alice")
    assert (stranger.named, stranger.calls_itself) == (False, "Alice")
    assert stranger.title == "unnamed (calls itself Alice)"
    assert peers.find("alice", peers.all()).key == ALICE


def test_a_pin_file_without_calls_itself_is_read_and_the_name_is_defused(
        ginp2p_home: Path) -> None:  # fmt: skip
    peers.pin(MALLORY, "Mallory")
    path = ginp2p_home / peers.PEERS_FILE
    doc = json.loads(path.read_text())
    assert "calls_itself" not in doc["peers"][0]  # written only when there is one
    doc["peers"][0]["name"] = "Mal\u202elory"  # an older version kept it raw
    path.write_text(json.dumps(doc))
    assert [(p.name, p.calls_itself) for p in peers.all()] == [("Mal\ufffdlory", "")]
    peers.pin(MALLORY, "Al\u2066ice")
    doc = json.loads(path.read_text())
    assert doc["peers"][0]["calls_itself"] == "Al\ufffdice"
    doc["peers"][0]["calls_itself"] = "Al\u200bice"  # raw in the file: defused on reading
    path.write_text(json.dumps(doc))
    assert peers.all()[0].calls_itself == "Al\ufffdice"


def test_forget_by_a_name_two_pins_share_refuses_and_lists_them(
        ginp2p_home: Path, capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    """`keys --forget NAME` takes the name a pin was paired under, never the one a key
    calls itself; two pins of one name (an older version renamed a pin to what its key
    announced) are never a guess: neither is forgotten, both are listed with their
    fingerprints, to forget one by."""
    from ginp2p import cli

    peers.pin(ALICE, "Alice")
    peers.pin(MALLORY, "Mallory")
    peers.pin(MALLORY, "Alice")
    assert cli.main(["keys", "--forget", "Alice"]) == 0
    assert capsys.readouterr().out.startswith(f"forgot Alice ({fingerprint(ALICE)})")
    assert [p.title for p in peers.all()] == ["Mallory (calls itself Alice)"]
    (ginp2p_home / peers.PEERS_FILE).unlink()
    for key in (ALICE, MALLORY):
        peers.pin(key, "Alice")
    path = ginp2p_home / peers.PEERS_FILE
    doc = json.loads(path.read_text())
    doc["peers"][1] = {k: v for k, v in doc["peers"][1].items() if k != "calls_itself"}
    doc["peers"][1]["name"] = "Alice"  # as the older version left it
    path.write_text(json.dumps(doc))
    assert cli.main(["keys", "--forget", "Alice"]) == 1
    err = capsys.readouterr().err
    assert "matches 2 paired players" in err and "by the start of its fingerprint" in err
    assert fingerprint(ALICE) in err and fingerprint(MALLORY) in err
    assert len(peers.all()) == 2, "nothing forgotten"
    assert cli.main(["keys", "--forget", fingerprint(MALLORY)[:9]]) == 0
    assert f"forgot Alice ({fingerprint(MALLORY)})" in capsys.readouterr().out
    assert [p.key for p in peers.all()] == [ALICE]


def test_keys_lists_the_name_paired_under_and_the_one_announced_since(
        capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    from ginp2p import cli

    peers.pin(ALICE, "Alice")
    peers.pin(MALLORY, "Mallory")
    peers.pin(MALLORY, "Alice")
    assert cli.main(["keys"]) == 0
    out = capsys.readouterr().out
    assert f"  Mallory (calls itself Alice) {fingerprint(MALLORY)}" in out
    assert out.count(f"{fingerprint(ALICE)}") == 1
    listed = [line for line in out.splitlines() if "  paired 2" in line]
    assert [line.split()[0] for line in listed] == ["Alice", "Mallory"]
    # one column of fingerprints, however long a name (a long one pushed its own out)
    columns = {line.index(p.fingerprint) for line, p in zip(listed, peers.all(), strict=True)}
    assert len(columns) == 1, listed


def test_the_lan_list_names_a_paired_host_as_paired_and_says_a_stranger_is_not_them(
        capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    from ginp2p.cli import lan
    from ginp2p.net.discovery import Found

    peers.pin(ALICE, "Alice")
    peers.pin(MALLORY, "Mallory")
    mallory = Found("Alice", ("192.0.2.1",), 52801, MALLORY, "1")
    line = lan._found_line(mallory, _lan_args())
    assert line.startswith(f"Mallory (calls itself Alice)  fingerprint {fingerprint(MALLORY)}"
                           "  paired with you")  # fmt: skip
    assert f"the Alice you paired with has {fingerprint(ALICE)}" in line
    stranger = Found("ALICE", ("192.0.2.2",), 52801, STRANGER, "1")
    first, warning = lan._found_line(stranger, _lan_args()).splitlines()[:2]
    assert first == f"ALICE  fingerprint {fingerprint(STRANGER)}"
    assert warning == (f"     not the Alice you paired with: this key's fingerprint is "
                       f"{fingerprint(STRANGER)}, the Alice you paired with has "
                       f"{fingerprint(ALICE)} (anyone can announce any name; a pairing "
                       "code pairs you with whoever this is)")  # fmt: skip
    alice = Found("Alice", ("192.0.2.3",), 52801, ALICE, "1")
    assert "not the" not in lan._found_line(alice, _lan_args())


@pytest.mark.parametrize("look_alike", [
    "\u0410lice",  # a Cyrillic A
    "Al\u200dice", "Al\u034fice", "Al\ufe0fice",  # a joiner, a grapheme joiner, a selector
    "Alice\u3164", "Alice\u2800",  # a Hangul filler, a blank braille cell
    "\uff21lice",  # a full-width A
    " ALICE ",
    "AIice", "A1ice", "Al\u0131ce", "\u0251lice",  # a capital I, a one, a dotless i, an alpha
])  # fmt: skip
def test_a_name_drawn_like_a_paired_one_is_told_apart_and_never_names_a_pin(
        look_alike: str) -> None:  # fmt: skip
    """Names were compared by case and outer blanks only: a stranger announcing "Аlice"
    (a Cyrillic А) got no warning, and a new key whose first hello said "Al\u200dice"
    had its pin named so, listed as a second Alice. A name drawn like a paired one is
    that name to a reader (peers.name_key)."""
    from ginp2p.cli import lan
    from ginp2p.net.discovery import Found

    peers.pin(ALICE, "Alice")
    stranger = Found(look_alike, ("192.0.2.2",), 52801, STRANGER, "1")
    assert "not the Alice you paired with" in lan._found_line(stranger, _lan_args())
    pinned = peers.pin(STRANGER, look_alike)  # paired by a code, named by its hello
    assert not pinned.named and pinned.title.startswith("unnamed (calls itself "), pinned
    assert peers.pin(ALICE, look_alike).title == "Alice", "its own name, drawn otherwise"
    assert not peers.same_name("Alice", "Alicia") and not peers.same_name("Al", "Alice")
    assert peers.same_name("Sam", "Sarn") and not peers.same_name("Sam", "Tom")


def test_joining_a_stranger_under_a_paired_name_warns_before_joining(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    from ginp2p.cli import lan
    from ginp2p.net.discovery import Found

    peers.pin(ALICE, "Alice")
    stranger = Found("Alice", ("192.0.2.2",), 52801, STRANGER, "1")
    monkeypatch.setattr(lan, "browse", lambda args: [stranger])
    assert lan.find_address(_lan_args(), bot=True) == ("192.0.2.2", 52801, STRANGER)
    out = capsys.readouterr().out
    warned = out.index("warning: Alice here is not the Alice you paired with")
    assert warned < out.index("joining Alice (its key is checked by the pairing code")


def test_the_opponent_from_the_pin_is_named_as_paired() -> None:
    from ginp2p.app.core import paired_player, pinned_name
    from ginp2p.net.transport import curve_key

    peers.pin(MALLORY, "Mallory")
    assert pinned_name(MALLORY) == "Mallory"
    peers.pin(MALLORY, "Alice")
    assert pinned_name(MALLORY) == "Mallory (calls itself Alice)"
    assert paired_player(curve_key(MALLORY)) == (
        f"Mallory (calls itself Alice) ({fingerprint(MALLORY)}, paired with you)"
    )


#: Characters that move or hide text on a terminal: bidi controls, invisibles, escapes.
_HIDING = st.sampled_from(["\u202e", "\u202d", "\u2066", "\u2067", "\u2068", "\u2069",
                           "\u200b", "\u200e", "\u200f", "\u061c", "\ufeff", "\x1b", "\x07",
                           "\u2028"])  # fmt: skip
_NAMES = st.lists(st.one_of(_HIDING, st.sampled_from("Alice Mo")), min_size=1,
                  max_size=12).map("".join).filter(lambda s: s.strip())  # fmt: skip


_FIXTURES = [HealthCheck.function_scoped_fixture]  # the home is emptied for each example


@settings(max_examples=15, deadline=None, suppress_health_check=_FIXTURES)
@given(first=_NAMES, later=_NAMES)
def test_no_hiding_character_of_a_name_reaches_a_screen(first: str, later: str,
        ginp2p_home: Path, capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    """Whatever the names a key was paired under and announced since, written by this
    version or raw by an older one: `ginp2p keys`, the LAN line and the opponent's
    description show none of the characters that move or hide text."""
    from ginp2p import cli
    from ginp2p.app.core import paired_player, pinned_name
    from ginp2p.cli import lan
    from ginp2p.net.discovery import Found
    from ginp2p.net.transport import curve_key

    (ginp2p_home / peers.PEERS_FILE).unlink(missing_ok=True)
    peers.pin(ALICE, first)
    peers.pin(MALLORY, first)
    peers.pin(MALLORY, later)
    path = ginp2p_home / peers.PEERS_FILE
    doc = json.loads(path.read_text())
    doc["peers"][1] |= {"name": first, "calls_itself": later}  # raw, as in an older file
    path.write_text(json.dumps(doc, ensure_ascii=False))
    capsys.readouterr()
    assert cli.main(["keys"]) == 0
    shown = [capsys.readouterr().out]
    for key, said in ((MALLORY, later), (STRANGER, first)):
        shown.append(lan._found_line(Found(said, ("192.0.2.1",), 1, key, "1"), _lan_args()))
    shown += [pinned_name(MALLORY), paired_player(curve_key(MALLORY)) or "none"]
    for text in shown:
        hidden = [c for c in text if c != "\n" and not c.isprintable()]
        assert not hidden, (text, hidden)


def test_games_name_an_opponent_as_paired_beside_the_name_it_played_under(
        tmp_path: Path) -> None:  # fmt: skip
    from ginp2p.cli.records import _as_paired, _games_table
    from ginp2p.files.games import GameInfo

    peers.pin(MALLORY, "Mallory")
    peers.pin(ALICE, "Alice")
    games = []
    peers.pin(STRANGER, "Alice")  # paired by a code, first named as another pin is
    for n, (key, said) in enumerate([(MALLORY, "Alice"), (ALICE, "Alice"), (STRANGER, "Alice"),
                                     (bytes(32), "Zed")]):  # (not paired)  # fmt: skip
        path = tmp_path / f"2025010{n}-120000-guest.ginlog"  # (its .peer keeps the key)
        games.append(GameInfo(path, f"2025-01-0{n} 12:00", "guest", said, "classic", "won",
                              peer_key=key))  # fmt: skip
    assert [g.opponent for g in _as_paired(games)] == ["Mallory", "Alice", "unnamed", "Zed"]
    table = "\n".join(_games_table(_as_paired(games), 80))
    assert "Mallory   classic" in table
    assert f"(Mallory ({fingerprint(MALLORY)}) called itself Alice in this game)" in table
    assert f"(unnamed ({fingerprint(STRANGER)}) called itself Alice in this game)" in table
