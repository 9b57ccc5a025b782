"""A name never stands for a key, with real processes on 127.0.0.1: a player paired
once as Mallory who hosts as another paired player's name is listed on the LAN and in
`ginp2p keys` by the name it was paired under, the new one beside it, with its
fingerprint; and a stranger announcing a paired player's name is said not to be that
player, with both fingerprints, before the pairing code is asked."""

from __future__ import annotations

import re
import subprocess
import sys
import uuid
from pathlib import Path

import nacl.signing
import pytest

from ginp2p.files import peers
from ginp2p.files.identity import load_or_create_identity
from ginp2p.proto.keytext import fingerprint
from tests.processes import CODE, SHORT, Peer, ginp2p_env, in_terminal

pytestmark = pytest.mark.e2e


def _advertised_host(home: Path, name: str, *extra: str) -> Peer:
    """A computer player hosting on 127.0.0.1, announced on the LAN as ``name``."""
    return Peer(home, ["bot", "--host", "--bind", "127.0.0.1", "--port", "0",
                       "--mdns-interface", "127.0.0.1", "--name", name, "--linger", "3",
                       *extra], name="host")  # fmt: skip


def test_a_paired_player_hosting_under_another_pins_name_keeps_its_own(tmp_path: Path) -> None:
    alice = f"Alice-{uuid.uuid4().hex[:6]}"  # no other test's host is called so
    mallory_home, me_home = tmp_path / "mallory", tmp_path / "me"
    mallory = load_or_create_identity(mallory_home).public_key
    me = load_or_create_identity(me_home).public_key
    real_alice = bytes(nacl.signing.SigningKey(bytes([9]) * 32).verify_key)
    # paired before: Mallory under that name, and the real Alice
    peers.pin(mallory, "Mallory", home=me_home)
    peers.pin(real_alice, alice, home=me_home)
    peers.pin(me, "Me", home=mallory_home)
    h = _advertised_host(mallory_home, alice, "--pair-code", CODE, *SHORT)
    h.wait_for("pairing code")
    g = Peer(me_home, ["bot", "--discover", alice, "--mdns-interface", "127.0.0.1",
                       "--browse-time", "2", "--linger", "3"], name="guest")  # fmt: skip
    assert g.wait() == 0, g.output
    assert h.wait() == 0, h.output
    listed = (f"1. Mallory (calls itself {alice})  fingerprint {fingerprint(mallory)}  "
              "paired with you")  # fmt: skip
    assert listed in g.output, g.output
    assert (f"not the {alice} you paired with: this key's fingerprint is {fingerprint(mallory)}, "
            f"the {alice} you paired with has {fingerprint(real_alice)}") in g.output  # fmt: skip
    assert f"joining Mallory (calls itself {alice})" in g.output
    # and at the table: the pin's name, the hello's beside it
    assert re.search(rf"MATCH OVER: .*totals Mallory \(calls itself {re.escape(alice)}, "
                     rf"{fingerprint(mallory)}\) \d+",
                     g.output), g.output  # fmt: skip
    keys = subprocess.run([sys.executable, "-m", "ginp2p", "keys"], capture_output=True,
                          text=True, timeout=60, env=ginp2p_env(me_home))  # fmt: skip
    assert keys.returncode == 0, keys.stderr
    assert f"  Mallory (calls itself {alice}) {fingerprint(mallory)}" in keys.stdout, keys.stdout
    assert re.search(rf"\n  {re.escape(alice)} +{fingerprint(real_alice)}", keys.stdout)


def test_a_stranger_under_a_paired_name_is_told_apart_before_the_code_is_asked(
        tmp_path: Path) -> None:  # fmt: skip
    import pexpect

    alice = f"Alice-{uuid.uuid4().hex[:6]}"
    me_home = tmp_path / "me"
    real_alice = bytes(nacl.signing.SigningKey(bytes([9]) * 32).verify_key)
    peers.pin(real_alice, alice, home=me_home)
    h = _advertised_host(tmp_path / "stranger", alice, "--pair-code", CODE)
    stranger = load_or_create_identity(tmp_path / "stranger").public_key
    h.wait_for("pairing code")
    child = in_terminal(me_home, "join", "--plain", "--mdns-interface", "127.0.0.1",
                        "--browse-time", "2", "--name", "Me")  # fmt: skip
    try:
        child.expect(r"join which\? 1-\d+")
        # other tests' hosts may be announced too: ours is the one of that name
        ours = re.search(rf"(\d+)\. {re.escape(alice)}  fingerprint", child.before)
        assert ours is not None, child.before
        child.sendline(ours.group(1))
        child.expect(rf"warning: {re.escape(alice)} here is not the {re.escape(alice)} you "
                     "paired with")  # fmt: skip
        child.expect("first game with this host: its pairing code\\?")
        warned = child.before
        child.sendline("")  # no code: no join
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
        h.kill()
    told = " ".join(warned.split())
    assert (f"this key's fingerprint is {fingerprint(stranger)}, the {alice} you paired with "
            f"has {fingerprint(real_alice)}") in told, told  # fmt: skip
    assert child.exitstatus == 1
    assert peers.lookup(stranger, home=me_home) is None
