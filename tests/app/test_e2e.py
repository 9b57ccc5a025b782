"""Whole matches between two ginp2p processes over ZeroMQ with CURVE on 127.0.0.1, for
what only real processes, sockets and keys show: pairing and the rematch, a stranger
whose frames CURVE names, kill -9 and resume, a host's open files and ports, a greeting
cut off, a second ginp2p of the same player. Everything else a session does between two
peers is tested in one process, faster: tests/app/test_session.py.

Each peer is a real OS process with its own temporary GINP2P_HOME (see
tests/processes.py). Matches are one hand long (game_target=1).
"""

from __future__ import annotations

import json
import re
import signal
import socket
import sys
import time
from pathlib import Path

import pytest

from ginp2p.files.identity import load_or_create_identity
from ginp2p.proto.keytext import key_to_text
from tests.processes import (
    CODE,
    GUEST_FIRST_PLAY,
    SHORT,
    Peer,
    assert_same_and_clean,
    entries,
    guest,
    host,
)


def _pins(home: Path) -> list[str]:
    path = home / "peers.json"
    if not path.exists():
        return []
    return [p["key"] for p in json.loads(path.read_text())["peers"]]


@pytest.mark.e2e
def test_two_processes_play_a_whole_match_and_pin_each_other(tmp_path: Path) -> None:
    h = host(tmp_path / "h")
    g = guest(tmp_path / "g", h.join_string())
    assert g.wait() == 0, g.output
    assert h.wait() == 0, h.output
    assert "MATCH OVER" in h.output and "MATCH OVER" in g.output
    # strangers until the hellos: each says the other's name once it is known
    assert "connected to Guesto" in h.output and "connected to Hosta" in g.output
    assert "connected to the" not in h.output + g.output
    assert_same_and_clean(h.game_file(), g.game_file())
    assert not list((tmp_path / "g" / "running").glob("*")), "the guest's lock is removed"
    hkey = key_to_text(load_or_create_identity(tmp_path / "h").public_key)
    gkey = key_to_text(load_or_create_identity(tmp_path / "g").public_key)
    assert _pins(tmp_path / "h") == [gkey] and _pins(tmp_path / "g") == [hkey]
    # the rematch: no code on either side, the pins admit them
    h2 = host(tmp_path / "h", "--pair-code", "9-zebra-yak", name="host2")
    g2 = guest(tmp_path / "g", h2.join_string(), name="guest2", code=None)
    assert g2.wait() == 0, g2.output
    assert h2.wait() == 0, h2.output
    assert "paired" not in g2.output
    assert_same_and_clean(h2.game_file(), g2.game_file())
    # known by the names they were pinned under, before any hello says them
    assert "connected to Guesto" in h2.output and "connected to Hosta" in g2.output


@pytest.mark.e2e
def test_a_stranger_gets_nothing_through(tmp_path: Path) -> None:
    """A key that never paired: while the host pairs, its connection is admitted but
    every frame but `pair` is dropped and it is told to pair; it starts no game."""
    h = host(tmp_path / "h")
    join = h.join_string()
    stranger_home = tmp_path / "stranger"
    stranger_home.mkdir()
    from ginp2p.files import peers
    from ginp2p.net.discovery import parse_join

    peers.pin(parse_join(join)[2], "the host", home=stranger_home)  # it skips pairing
    s = guest(stranger_home, join, code=None, name="stranger")
    assert s.wait() == 1, s.output
    assert "does not know your key" in s.output
    h.wait_for("did not pair")
    assert _pins(tmp_path / "h") == []
    assert not list(stranger_home.glob("games/*.ginlog"))
    g = guest(tmp_path / "g", join)
    assert g.wait() == 0, g.output
    assert h.wait() == 0, h.output
    assert_same_and_clean(h.game_file(), g.game_file())


#: Runs the command after it with a soft limit of 64 open files (the hard limit kept).
_FEW_FILES = [sys.executable, "-c", "import os, resource, sys; "
              "resource.setrlimit(resource.RLIMIT_NOFILE, "
              "(64, resource.getrlimit(resource.RLIMIT_NOFILE)[1])); "
              "os.execv(sys.argv[1], sys.argv[1:])"]  # fmt: skip


@pytest.mark.e2e
def test_idle_connections_of_a_stranger_leave_room_for_the_friend(tmp_path: Path) -> None:
    """A host started under a low limit on open files raises it: 150 idle TCP
    connections (no greeting) took every file of a 64-file host, and the friend's
    connection then had no answer."""
    import resource

    from ginp2p.net.discovery import parse_join

    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    assert hard == resource.RLIM_INFINITY or hard >= 1024, f"hard limit {hard}: test needs 1024"
    h = host(tmp_path / "h", prefix=_FEW_FILES)
    join = h.join_string()
    _, port, _ = parse_join(join)
    idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(150)]
    try:
        time.sleep(0.5)  # let the host accept them all
        g = guest(tmp_path / "g", join)
        assert g.wait() == 0, g.output
        assert h.wait() == 0, h.output
    finally:
        for conn in idle:
            conn.close()
    assert_same_and_clean(h.game_file(), g.game_file())


@pytest.mark.e2e
def test_kill_9_and_resume(tmp_path: Path) -> None:
    """The guest SIGKILLs itself in hand 1, before its first entry after the shuffle;
    `ginp2p bot --resume FILE` finishes it. (Killed just after its seeds are on disk, in
    one process: tests/app/test_session.py.)"""
    h = host(tmp_path / "h")
    g = guest(tmp_path / "g", h.join_string(), env={"GINP2P_CRASH_AT": GUEST_FIRST_PLAY})
    assert g.wait() == -signal.SIGKILL, g.output
    path = g.game_file()
    before = entries(path)
    assert before, "the guest stored entries before it died"
    assert "MATCH OVER" not in h.output
    # paired in this game, and killed in it: the host is pinned under its name already
    names = [p["name"] for p in json.loads((tmp_path / "g" / "peers.json").read_text())["peers"]]
    assert names == ["Hosta"]
    h.wait_for(r"lost the connection: waiting for Guesto \(reconnecting…\)")
    r = Peer(tmp_path / "g", ["bot", "--resume", str(path), "--linger", "3"], name="resumed")
    assert r.wait() == 0, r.output
    assert f"resumed from {len(before)} stored entries" in r.output
    assert h.wait() == 0, h.output
    assert before <= entries(path)
    assert_same_and_clean(h.game_file(), path)


@pytest.mark.e2e
def test_a_host_whose_default_port_is_taken_listens_on_another(tmp_path: Path) -> None:
    """Another ginp2p host may have the default port, or the system may have lent it to
    an outgoing connection (it is in that range): a host that asked for no port listens
    on a free one, says so, and its join string works. It stopped ("port 52801 is in
    use"). A host that asked for that port still stops."""
    from ginp2p.net.discovery import DEFAULT_PORT

    args = ["bot", "--host", "--no-advertise", "--pair-code", CODE, "--linger", "1", *SHORT]
    with socket.socket() as busy:
        try:
            busy.bind(("0.0.0.0", DEFAULT_PORT))
            busy.listen()
        except OSError:
            pass  # somebody has it already: as good for this test
        h = Peer(tmp_path / "h", args)
        moved = h.wait_for(rf"port {DEFAULT_PORT} is in use \(another ginp2p host or program "
                           r"has it\): listening on port (\d+) instead")  # fmt: skip
        assert f":{moved.group(1)}/" in h.join_string()
        g = guest(tmp_path / "g", h.join_string(), "--linger", "1")
        assert g.wait() == 0 and h.wait() == 0, h.output + g.output
        asked = Peer(tmp_path / "h2", [*args, "--port", str(DEFAULT_PORT)], name="asked")
        assert asked.wait() == 1 and f"port {DEFAULT_PORT} on 0.0.0.0 is in use" in asked.output


def test_a_greeting_that_breaks_off_is_not_called_a_wrong_key(tmp_path: Path) -> None:
    """A connection that stops in the middle of the encrypted greeting (a reconnect
    that timed out while the host was frozen) is said as such on the host with -v, not
    as a wrong key or a foreign program, which reads like an attack. (Without -v it is
    not said: a player can do nothing about it.)"""
    h = host(tmp_path / "h", "-v")
    try:
        port = int(h.join_string().split("/")[0].rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port)) as s:
            s.sendall(b"\xff" + bytes(8) + b"\x7f\x03\x00CURVE" + bytes(15))  # ZMTP 3.0, cut
            time.sleep(0.3)
        h.wait_for("a connection broke off during the encrypted greeting")
        assert "wrong key" not in h.output, h.output
    finally:
        h.kill()


def test_a_second_ginp2p_of_the_guest_cannot_join_the_same_host(tmp_path: Path) -> None:
    """While Guesto plays Hosta, a second ginp2p of Guesto's (a `join` in another
    terminal, or a `resume` of an old game) is refused before it connects: the host
    tells a guest's connections apart by key alone, so it would take the game's
    connection over and its goodbye would end the game on the host's screen."""
    h = host(tmp_path / "h", "--set", "game_target=500")
    join = h.join_string()
    g = guest(tmp_path / "g", join, "-v")
    try:
        g.wait_for(r"drew")
        g2 = guest(tmp_path / "g", join, code=None, name="second")
        assert g2.wait() == 1, g2.output
        assert re.search(r"another ginp2p of yours is already in a game with Hosta \([\w-]+\) "
                         rf"\(process {g.proc.pid}, \S+\.ginlog\): finish or leave that one first",
                         g2.output), g2.output  # fmt: skip
        assert "connected" not in g2.output
        g3 = Peer(tmp_path / "g", ["bot", "--resume", str(g.game_file())], name="resumed")
        assert g3.wait() == 1, g3.output
        assert "another ginp2p of yours is already in a game with Hosta" in g3.output
        time.sleep(1)
        assert "left" not in h.output and g.proc.poll() is None, h.output
    finally:
        g.kill()
        h.kill()
