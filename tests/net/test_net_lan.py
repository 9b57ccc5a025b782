"""Finding a host through zeroconf, in separate processes: on loopback, and across two
network namespaces joined by a veth pair (root only; skipped, with the reason, where
namespaces are refused).

Multicast on ``lo`` works in this sandbox (the route for 224.0.0.251 goes out of the
interface python-zeroconf binds); if it did not, these tests fail rather than skip.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from ginp2p.files.identity import load_or_create_identity
from ginp2p.proto.keytext import key_to_text
from tests.processes import CODE, SHORT, Peer, assert_same_and_clean

BROWSE = """
import asyncio, sys
from ginp2p.net.discovery import browse
from ginp2p.proto.keytext import key_to_text
found = asyncio.run(browse(2.0, interfaces=[sys.argv[1]]))
for f in found:
    print(f.name, f.port, key_to_text(f.key), f.join())
"""


def test_a_host_is_found_with_its_key_and_joined_through_what_was_found(tmp_path: Path) -> None:
    args = [
        "bot",
        "--host",
        "--bind",
        "127.0.0.1",
        "--port",
        "0",
        "--mdns-interface",
        "127.0.0.1",
        "--pair-code",
        CODE,
        "--name",
        "Zed Host",
        "--linger",
        "3",
        *SHORT,
    ]
    h = Peer(tmp_path / "h", args, name="host")
    port = h.join_string().split("/")[0].rsplit(":", 1)[1]
    key = key_to_text(load_or_create_identity(tmp_path / "h").public_key)
    h.wait_for("pairing code")
    seen = subprocess.run([sys.executable, "-c", BROWSE, "127.0.0.1"], capture_output=True,
                          text=True, timeout=60)  # fmt: skip
    assert seen.returncode == 0, seen.stderr
    assert f"Zed Host {port} {key} 127.0.0.1:{port}/{key}" in seen.stdout, seen.stdout
    g = Peer(tmp_path / "g", ["bot", "--discover", "Zed Host", "--mdns-interface", "127.0.0.1",
                              "--browse-time", "2", "--pair-code", CODE, "--linger", "3"],
             name="guest")  # fmt: skip
    assert g.wait() == 0, g.output
    assert h.wait() == 0, h.output
    assert "joining Zed Host" in g.output
    assert_same_and_clean(h.game_file(), g.game_file())


# ------------------------------------------------------------------------ two namespaces


def _ip(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["ip", *args], capture_output=True, text=True, timeout=20)


@pytest.fixture
def two_namespaces() -> tuple[str, str]:
    if shutil.which("ip") is None:
        pytest.skip("no `ip` command (iproute2): cannot make network namespaces")
    if os.geteuid() != 0:
        pytest.skip("network namespaces need root (CI runs as root)")
    tag = uuid.uuid4().hex[:6]
    a, b = f"ginA{tag}", f"ginB{tag}"
    made = _ip("netns", "add", a)
    if made.returncode != 0:
        pytest.skip(f"`ip netns add` refused here: {made.stderr.strip()}")
    try:
        _ip("netns", "add", b).check_returncode()
        va, vb = f"va{tag}", f"vb{tag}"
        steps = [
            ("link", "add", va, "type", "veth", "peer", "name", vb),
            ("link", "set", va, "netns", a),
            ("link", "set", vb, "netns", b),
            ("-n", a, "addr", "add", "10.77.0.1/24", "dev", va),
            ("-n", b, "addr", "add", "10.77.0.2/24", "dev", vb),
            ("-n", a, "link", "set", va, "up"),
            ("-n", b, "link", "set", vb, "up"),
            ("-n", a, "link", "set", "lo", "up"),
            ("-n", b, "link", "set", "lo", "up"),
        ]
        for step in steps:
            r = _ip(*step)
            if r.returncode != 0:
                raise AssertionError(f"ip {' '.join(step)}: {r.stderr}")
        yield a, b
    finally:
        _ip("netns", "del", a)
        _ip("netns", "del", b)


def test_a_match_across_two_network_namespaces(tmp_path: Path, two_namespaces: tuple[str, str]
                                               ) -> None:  # fmt: skip
    a, b = two_namespaces
    h = Peer(tmp_path / "h", ["bot", "--host", "--port", "0", "--mdns-interface", "10.77.0.1",
                              "--pair-code", CODE, "--name", "Across", "--linger", "3", *SHORT],
             name="host", prefix=["ip", "netns", "exec", a])  # fmt: skip
    h.wait_for("pairing code")
    g = Peer(tmp_path / "g", ["bot", "--discover", "Across", "--mdns-interface", "10.77.0.2",
                              "--browse-time", "3", "--pair-code", CODE, "--linger", "3"],
             name="guest", prefix=["ip", "netns", "exec", b])  # fmt: skip
    assert g.wait() == 0, g.output
    assert h.wait() == 0, h.output
    assert "10.77.0.1:" in g.output  # found across the veth, not on loopback
    assert_same_and_clean(h.game_file(), g.game_file())
