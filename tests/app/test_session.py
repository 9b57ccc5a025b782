"""Whole matches between two ginp2p processes over ZeroMQ with CURVE on 127.0.0.1:
pairing, a stranger, kill -9 and resume, a claim, a connection that keeps dropping.

Each peer is a real OS process with its own temporary GINP2P_HOME (see
processes). Matches are short (game_target=30).
"""

from __future__ import annotations

import json
import re
import selectors
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from ginp2p.files.identity import key_to_text, load_or_create_identity
from ginp2p.proto.log import GUEST, HOST, Entry
from ginp2p.record.audit import audit
from tests.processes import (
    CODE,
    GUEST_FIRST_PLAY,
    HOST_FIRST_PLAY,
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


def test_a_wrong_code_fails_clearly_and_pins_nothing(tmp_path: Path) -> None:
    h = host(tmp_path / "h")
    join = h.join_string()
    bad = guest(tmp_path / "bad", join, code="8-tulip-anchor", name="bad")
    assert bad.wait() == 1
    assert "wrong pairing code" in bad.output
    h.wait_for("a guest failed to pair: wrong pairing code")
    h.wait_for("2 pairing attempts left")
    assert _pins(tmp_path / "bad") == [] and _pins(tmp_path / "h") == []
    assert not list((tmp_path / "bad").glob("games/*.ginlog")), "nothing saved on failure"
    # the host still waits, and the right code still works
    g = guest(tmp_path / "g", join)
    assert g.wait() == 0, g.output
    assert h.wait() == 0, h.output
    assert_same_and_clean(h.game_file(), g.game_file())


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


def test_a_stranger_is_told_to_pair_every_time_it_tries(tmp_path: Path) -> None:
    """The same unknown key joining again and again (a guest the host forgot, with
    `ginp2p keys --forget`, still skips pairing) is told to pair each time, and the host
    says so each time. It was told once per key: the second `join` waited in silence
    for a game that never began, and the host showed nothing."""
    from ginp2p.files import peers
    from ginp2p.net.discovery import parse_join

    h = host(tmp_path / "h")
    join = h.join_string()
    stranger_home = tmp_path / "stranger"
    stranger_home.mkdir()
    peers.pin(parse_join(join)[2], "Hosta", home=stranger_home)  # it skips pairing
    try:
        for n in (1, 2, 3):
            s = guest(stranger_home, join, code=None, name=f"stranger{n}")
            assert s.wait(timeout=30) == 1, s.output
            assert ("Hosta closed the game before it began: this host does not know your "
                    "key: pair with the host's code") in s.output, s.output  # fmt: skip
            h.wait_for("(?s)" + ".*".join(["did not pair: it was told"] * n), timeout=10)
        assert _pins(tmp_path / "h") == []
        assert not list(stranger_home.glob("games/*.ginlog"))
    finally:
        h.kill()


#: Runs the command after it with a soft limit of 64 open files (the hard limit kept).
_FEW_FILES = [sys.executable, "-c", "import os, resource, sys; "
              "resource.setrlimit(resource.RLIMIT_NOFILE, "
              "(64, resource.getrlimit(resource.RLIMIT_NOFILE)[1])); "
              "os.execv(sys.argv[1], sys.argv[1:])"]  # fmt: skip


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


@pytest.mark.parametrize("point", [GUEST_FIRST_PLAY, "seeds:1"])
def test_kill_9_and_resume(tmp_path: Path, point: str) -> None:
    """The guest SIGKILLs itself (in hand 1, before its first entry after the shuffle; or
    right after its seeds are on disk and before its commit left); `ginp2p bot --resume
    FILE` finishes it."""
    h = host(tmp_path / "h")
    g = guest(tmp_path / "g", h.join_string(), env={"GINP2P_CRASH_AT": point})
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


def test_a_host_gone_before_the_first_deal_is_claimed_once(tmp_path: Path) -> None:
    """The host dies right after its hello, before it opens its nonce: the guest claims
    the match once and exits; its file holds that one claim and audits as a forfeit."""
    h = host(tmp_path / "h", "--claim-timeout", "3", env={"GINP2P_CRASH_AT": "send:2"})
    g = guest(tmp_path / "g", h.join_string(), "--linger", "1")
    assert h.wait() == -signal.SIGKILL, h.output
    assert g.wait() == 0, g.output
    assert g.output.count("MATCH OVER") == 1
    assert "the match is over: Guesto won (Hosta stopped answering)" in g.output
    report = audit(g.game_file())
    assert (report.winner, report.end) == (GUEST, "claim")
    kinds = [Entry.from_wire(r).kind for r in entries(g.game_file())]
    assert kinds.count("claim") == 1


def test_two_crossed_claims_are_settled_and_the_match_goes_on(tmp_path: Path) -> None:
    """The host dies in hand 1 with its first entry after the shuffle unsent; the guest
    claims it and leaves. The host comes back, sends it, and claims the guest's answer.
    When the guest comes back too, that entry beats the guest's claim and the host's
    claim is void against the answer: the match goes on to its end on both sides."""
    h = host(tmp_path / "h", "--claim-timeout", "3", env={"GINP2P_CRASH_AT": HOST_FIRST_PLAY})
    g = guest(tmp_path / "g", h.join_string(), "--linger", "1")
    assert h.wait() == -signal.SIGKILL, h.output
    assert g.wait() == 0 and "forfeits the match by a claim" in g.output, g.output
    # on a new port: the old one, picked by the system, may be another program's by now
    h2 = Peer(tmp_path / "h", ["resume", str(h.game_file()), "--bot", "--port", "0",
                               "--linger", "60"], name="host again")  # fmt: skip
    port = h2.join_string().split("/")[0].rsplit(":", 1)[1]
    h2.wait_for(r"Bob stopped answering|Guesto stopped answering")
    g2 = Peer(tmp_path / "g", ["resume", str(g.game_file()), "--bot", "--address",
                               f"127.0.0.1:{port}", "--linger", "3"],
              name="guest again")  # fmt: skip
    assert g2.wait() == 0, g2.output
    assert h2.wait() == 0, h2.output
    assert "the match goes on" in h2.output + g2.output
    assert re.search(r"the match is over: (Hosta|Guesto) won \(reached the target\)", h2.output)
    assert "(reached the target)" in g2.output
    assert_same_and_clean(h.game_file(), g.game_file())


def test_a_claim_made_while_a_player_was_gone_stands_when_it_resumes(tmp_path: Path) -> None:
    """The guest is killed mid-hand and the host rightly claims after the timeout. The
    guest resumes: it was away since its files were last written, so the claim is read
    before it moves and stands on both sides. Before, the resumed guest counted its
    owing from 0 s, held the claim as too early, and its first move beat it."""
    h = host(tmp_path / "h", "--claim-timeout", "3", "--set", "game_target=500")
    # a person, so that nothing of theirs is saved but unsent when the program dies: an
    # entry already written (a computer's move) would rightly beat the claim on resume
    g = Peer(tmp_path / "g", ["join", h.join_string(), "--pair-code", CODE, "--yes",
                              "--plain", "--linger", "3"], name="person",
             stdin=subprocess.PIPE)  # fmt: skip
    g.wait_for("play by these rules")  # a 3 s timeout is asked even with --yes
    assert g.proc.stdin is not None
    g.proc.stdin.write(b"yes\n")
    g.proc.stdin.flush()
    g.wait_for("your cards")
    time.sleep(1)  # the computer host has made its move if it had one: the person owes
    g.kill()
    h.wait_for("stopped answering and forfeits the match")
    g2 = Peer(tmp_path / "g", ["bot", "--resume", str(g.game_file()), "-v", "--linger", "2"],
              name="guest again")  # fmt: skip
    assert g2.wait() == 0, g2.output
    assert h.wait() == 0, h.output
    assert "the match goes on" not in h.output + g2.output, h.output + g2.output
    assert "after only" not in g2.output, g2.output
    assert "forfeits the match by a claim" in g2.output, g2.output
    for side in (h, g):
        report = audit(side.game_file())
        assert (report.winner, report.end) == (HOST, "claim"), report.text()


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
    that timed out while the host was frozen) is said as such on the host, not as a
    wrong key or a foreign program, which reads like an attack."""
    h = host(tmp_path / "h")
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
        assert re.search(r"another ginp2p of yours is already in a game with Hosta \(process "
                         rf"{g.proc.pid}, \S+\.ginlog\): finish or leave that one first",
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


def test_a_silent_peer_is_claimed_and_a_stranger_refused(tmp_path: Path) -> None:
    """The guest freezes mid-hand (SIGSTOP): after the shortened claim timeout the host
    claims and the match ends as a forfeit. Meanwhile a third key is refused by ZAP."""
    # to 500: no first hand ends the match before the guest's first draw
    h = host(tmp_path / "h", "--claim-timeout", "3", "-v", "--set", "game_target=500")
    join = h.join_string()
    g = guest(tmp_path / "g", join, "-v")
    g.wait_for(r"drew")
    g.kill(signal.SIGSTOP)
    try:
        third = guest(tmp_path / "third", join, "--connect-timeout", "15", name="third")
        assert third.wait() == 1, third.output
        assert "the host turned you away: it is not pairing now" in third.output
        assert not list((tmp_path / "third").glob("games/*.ginlog"))
        h.wait_for("refused a connection from a player not paired with this host")
        assert h.wait() == 0, h.output
    finally:
        g.kill(signal.SIGKILL)
    assert "stopped answering and forfeits the match by a claim" in h.output
    report = audit(h.game_file())
    assert report.end == "claim" and report.winner == 0, report.text()
    assert report.verdict.value == "incomplete", report.text()  # the audit's verdict
    assert "the claim stands" in report.text()


def test_a_paired_player_who_joins_a_busy_host_is_told_so_on_both_screens(
        tmp_path: Path) -> None:  # fmt: skip
    """The host is in a game with Guesto; Bob, paired with it before, tries to join and
    is refused (the host admits only its opponent now). Bob is told the host is most
    likely busy, not that it does not know him; the host names Bob as `ginp2p keys`
    does (not by his connection key), and says whom its game is with."""
    from ginp2p.files import peers

    ids = {n: load_or_create_identity(tmp_path / n) for n in ("h", "g", "bob")}
    for n in ("g", "bob"):
        peers.pin(ids["h"].public_key, "Hosta", home=tmp_path / n)
    peers.pin(ids["g"].public_key, "Guesto", home=tmp_path / "h")
    peers.pin(ids["bob"].public_key, "Bob", home=tmp_path / "h")
    h = host(tmp_path / "h", "--set", "game_target=500")
    join = h.join_string()
    g = guest(tmp_path / "g", join, "-v", code=None)
    try:
        g.wait_for(r"drew")
        g.kill(signal.SIGSTOP)  # the game stays in progress
        bob = guest(tmp_path / "bob", join, code=None, name="bob")
        assert bob.wait() == 1, bob.output
        assert "the host turned you away: most likely it is in a game with someone else " \
               "(try again when it is free)" in bob.output  # fmt: skip
        h.wait_for(rf"Bob \({ids['bob'].fingerprint}, paired with you\) tried to join; this "
                   "game is with Guesto, so they were turned away")  # fmt: skip
        assert "curve" not in h.output
    finally:
        g.kill(signal.SIGKILL)
        h.kill()


def test_a_claimant_waits_for_its_claim_to_reach_a_player_who_wakes(tmp_path: Path) -> None:
    """The guest freezes (a laptop lid) past the timeout and the host claims. The host
    waits as long as a player may owe (not just its linger): the guest wakes within
    that, and both sides end on the same result. Either the claim stands (the guest
    reads it before it may move), or a move the guest wrote just before it froze beats
    it and the match goes on. Before, the claimant left after its linger, the woken
    guest played on, and the two files named different winners."""
    h = host(tmp_path / "h", "--claim-timeout", "6", "--linger", "1")
    g = guest(tmp_path / "g", h.join_string(), "-v", "--linger", "1")
    g.wait_for(r"drew")
    g.kill(signal.SIGSTOP)
    try:
        h.wait_for("stopped answering and forfeits the match")
        time.sleep(2.5)  # past the host's linger, within the claim timeout
    finally:
        g.kill(signal.SIGCONT)
    assert h.wait() == 0 and g.wait() == 0, h.output + g.output
    assert "has not reached" not in h.output and "could not confirm" not in h.output, (
        h.output + g.output
    )  # both sides' words: this failed once under heavy load
    reports = [audit(side.game_file()) for side in (h, g)]
    assert {(r.end, r.winner) for r in reports} == {(reports[0].end, reports[0].winner)}
    if reports[0].end == "claim":
        assert "forfeits the match by a claim" in g.output, g.output
    else:  # however long after the claim the move came: the guest had not seen it
        assert "the match goes on: Guesto answered before your claim reached them" in h.output
    assert entries(h.game_file()) == entries(g.game_file())


def test_a_game_resumed_against_a_new_one_is_told_on_both_sides(tmp_path: Path) -> None:
    """Both peers die; the host begins a new game while the guest resumes the old one.
    Each drops the other's entries (another game): both are told, once, instead of
    waiting for each other in silence. When the guest leaves, the host's game is not
    said to be over or left: only the other game was."""
    h = host(tmp_path / "h", "--set", "game_target=500")
    g = guest(tmp_path / "g", h.join_string(), "-v")
    g.wait_for(r"drew")  # both hellos are stored: the game exists
    h.kill()
    g.kill()
    old = g.game_file()
    h2 = host(tmp_path / "h", name="new host")
    port = h2.join_string().split("/")[0].rsplit(":", 1)[1]
    g2 = Peer(tmp_path / "g", ["bot", "--resume", str(old), "--join", f"127.0.0.1:{port}"],
              name="resumed guest")  # fmt: skip
    try:
        told = "Hosta's ginp2p is playing another game with you"
        g2.wait_for(told)
        h2.wait_for("Guesto's ginp2p is playing another game with you")
        assert g2.output.count(told) == 1
        g2.kill(signal.SIGTERM)  # it leaves its game, saying goodbye
        h2.wait_for("Guesto's ginp2p left another game it had open with you; this game is "
                    "unchanged and waits for them")  # fmt: skip
        assert "Guesto left" not in h2.output and h2.proc.poll() is None
    finally:
        g2.kill()
        h2.kill()


# ------------------------------------------------------------------------ a faulty network


class DroppingProxy:
    """A TCP proxy that cuts every connection each time ``every`` more bytes went
    through, ``drops`` times; then it forwards faithfully."""

    def __init__(self, target: tuple[str, int], every: int, drops: int) -> None:
        self.target = target
        self.every = every
        self.left = drops
        self.dropped = 0
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.sel = selectors.DefaultSelector()
        self.sel.register(self.listener, selectors.EVENT_READ, None)
        self.pairs: dict[socket.socket, socket.socket] = {}
        self.count = 0
        self.stop = False
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _close_all(self) -> None:
        for s in list(self.pairs):
            self.sel.unregister(s)
            s.close()
        self.pairs.clear()

    def _run(self) -> None:
        while not self.stop:
            for key, _ in self.sel.select(0.1):
                s = key.fileobj
                if s is self.listener:
                    client, _ = self.listener.accept()
                    try:
                        upstream = socket.create_connection(self.target)
                    except OSError:
                        client.close()
                        continue
                    self.pairs[client], self.pairs[upstream] = upstream, client
                    self.sel.register(client, selectors.EVENT_READ, None)
                    self.sel.register(upstream, selectors.EVENT_READ, None)
                    continue
                if s not in self.pairs:
                    continue
                try:
                    data = s.recv(65536)  # type: ignore[union-attr]
                except OSError:
                    data = b""
                if not data:
                    other = self.pairs.pop(s)  # type: ignore[arg-type]
                    self.pairs.pop(other, None)
                    for x in (s, other):
                        self.sel.unregister(x)
                        x.close()  # type: ignore[union-attr]
                    continue
                self.pairs[s].sendall(data)  # type: ignore[index]
                self.count += len(data)
                if self.left and self.count >= self.every:
                    self.count = 0
                    self.left -= 1
                    self.dropped += 1
                    self._close_all()

    def close(self) -> None:
        self.stop = True
        self.thread.join(5)
        self._close_all()
        self.listener.close()


def test_a_connection_that_keeps_dropping_mid_hand(tmp_path: Path) -> None:
    h = host(tmp_path / "h")
    join = h.join_string()
    hp = int(join.split("/")[0].rsplit(":", 1)[1])
    key = join.split("/")[1]
    proxy = DroppingProxy(("127.0.0.1", hp), every=5_000, drops=5)
    try:
        g = guest(tmp_path / "g", f"127.0.0.1:{proxy.port}/{key}")
        assert g.wait() == 0, g.output
        assert h.wait() == 0, h.output
    finally:
        proxy.close()
    assert proxy.dropped == 5
    assert g.output.count("lost the connection") >= 3, g.output
    assert_same_and_clean(h.game_file(), g.game_file())


_FAILING_PLAYER = """
import sys
from ginp2p import cli, players

real = players.BotPlayer.next_command

def next_command(self, s):
    if s.proto.table.hand is not None:  # a hand has begun
        raise RuntimeError("a bug in the player")
    return real(self, s)

players.BotPlayer.next_command = next_command
sys.exit(cli.main(sys.argv[sys.argv.index("-m") + 2:]))  # after Peer's "python -m ginp2p"
"""


def test_a_game_that_fails_after_a_hand_began_is_kept(tmp_path: Path) -> None:
    """An error ends the game; only a game in which nothing was played is removed. Here
    a hand had begun, so the files stay, and the game can be resumed."""
    h = host(tmp_path / "h", "--claim-timeout", "3")
    g = Peer(tmp_path / "g", ["bot", "--join", h.join_string(), "--name", "Guesto",
                              "--pair-code", CODE],
             prefix=[sys.executable, "-c", _FAILING_PLAYER], name="failing guest")  # fmt: skip
    assert g.wait() == 1, g.output
    assert "the player failed: RuntimeError: a bug in the player" in g.output
    assert "the game is saved; continue it with: ginp2p resume" in g.output
    assert "is not kept" not in g.output
    (saved,) = (tmp_path / "g").glob("games/*.ginlog")
    assert entries(saved), "its entries are kept"
    h.kill()
