"""`ginp2p play` killed mid-hand and `ginp2p resume FILE`: the computer player comes
back too, and the match ends as if nothing happened. Real processes."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.processes import (
    HOST_FIRST_PLAY,
    SHORT,
    Peer,
    RunGinp2p,
    assert_same_and_clean,
    entries,
)

#: Where a guest is killed when a test only needs a game left unfinished: right after its
#: seeds of hand 1 are on disk, before its commit leaves, so always before the first deal.
#: A kill in play ("send:10") came after the end of the match, or never, in about one game
#: in 150 (a knock at the first turn can reach the 30-point target): the game resumed then
#: had nothing left to play, so no MATCH OVER was said, and a host's bye did not stop it.
BEFORE_THE_DEAL = "seeds:1"


def _killed_play(home: Path, run_ginp2p: RunGinp2p) -> tuple[Path, Path]:
    """A `ginp2p play` watched, killed at its first move: the game file of the side this
    process plays (kept apart from the user's games, with the watched matches) and the
    computer player's."""
    dead = run_ginp2p(home, "play", *SHORT, "--linger", "3", crash=HOST_FIRST_PLAY)
    assert dead.returncode == -signal.SIGKILL, dead.stdout + dead.stderr
    assert "MATCH OVER" not in dead.stdout
    (ours,) = sorted((home / "games" / "watched").glob("*.ginlog"))
    (theirs,) = sorted((home / "games" / "watched" / "computer").glob("*.ginlog"))
    return ours, theirs


@pytest.mark.e2e
def test_a_killed_play_game_resumes_with_its_computer_player(
    tmp_path: Path, run_ginp2p: RunGinp2p
) -> None:
    ours, theirs = _killed_play(tmp_path, run_ginp2p)
    before = entries(ours)
    assert before, "the game stored entries before it died"

    # on another port (`--port 0`: any free one): the computer must follow the host there
    again = run_ginp2p(tmp_path, "resume", str(ours), "--linger", "3", "--port", "0")
    assert again.returncode == 0, again.stdout + again.stderr
    assert f"resumed from {len(before)} stored entries" in again.stdout
    assert "MATCH OVER" in again.stdout
    assert before <= entries(ours)
    assert_same_and_clean(ours, theirs)

    # the finished guest side: the host is gone, and that is no error
    computer_home = tmp_path / "computer"
    done = run_ginp2p(computer_home, "resume", "--bot", str(theirs), "--connect-timeout", "2")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "the match is over and nothing is owed" in done.stdout
    assert "the host could not be reached" in done.stdout
    # the finished host side, its port taken: over too, and it does not blame a host
    with socket.socket() as busy:
        busy.bind(("0.0.0.0", 0))
        busy.listen()
        taken = str(busy.getsockname()[1])
        held = run_ginp2p(tmp_path, "resume", str(ours), "--port", taken)
    assert held.returncode == 0, held.stdout + held.stderr
    assert "nothing is owed (could not wait for the guest" in held.stdout
    # another player's key cannot carry on this game: one line, the file untouched, even
    # torn (opening would cut the tail, and the audit would no longer see the damage)
    os.truncate(ours, ours.stat().st_size - 7)
    after = ours.read_bytes()
    other = run_ginp2p(tmp_path / "someone-else", "resume", str(ours))
    assert other.returncode == 1 and "Traceback" not in other.stderr
    assert other.stderr.startswith("ginp2p resume: error: ") and "was played with the " \
        "key" in other.stderr and "cut" not in other.stderr  # fmt: skip
    assert ours.read_bytes() == after


def _children(parent: int) -> list[int]:
    """The computer players a `play` process started (they name their parent)."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            cmd = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"--parent-pid" in cmd and cmd[cmd.index(b"--parent-pid") + 1] == str(parent).encode():
            found.append(int(proc.name))
    return found


@pytest.mark.e2e
def test_a_computer_player_that_dies_is_started_again(tmp_path: Path) -> None:
    """The person plays in line mode (commands from a pipe) and waits; the computer is
    killed. It comes back from its saved game, and the match ends cleanly on both sides."""
    peer = Peer(tmp_path, ["play", "--plain", "--name", "Pat", *SHORT, "--linger", "3"],
                name="person", stdin=subprocess.PIPE)  # fmt: skip
    assert peer.proc.stdin is not None
    try:
        peer.wait_for(r"your cards")  # the first hand is dealt: the computer has a game file
        (computer,) = _children(peer.proc.pid)
        # the pairing code reached it outside its command line, which `ps` shows to all
        argv = Path(f"/proc/{computer}/cmdline").read_bytes()
        assert b"--pair-code" not in argv and b"--join" in argv
        os.kill(computer, signal.SIGKILL)
        peer.wait_for(r"the computer player was killed \(SIGKILL\); starting it again"
                      r"[\s\S]*connected to Computer")  # fmt: skip
        assert _children(peer.proc.pid) not in ([], [computer])
        peer.proc.stdin.write(b"resign yes\n")
        peer.proc.stdin.flush()
        assert peer.wait() == 0, peer.output
    finally:
        peer.kill()
    assert "MATCH OVER: Computer wins (you resigned)" in peer.output, peer.output
    (ours,) = sorted((tmp_path / "games").glob("*.ginlog"))
    (theirs,) = sorted((tmp_path / "games" / "computer").glob("*.ginlog"))
    assert_same_and_clean(ours, theirs)
    # the games are the player's alone: no other local user lists them or reads a chat
    kept = [tmp_path / "games", *(tmp_path / "games").rglob("*")]
    modes = {p.relative_to(tmp_path).as_posix(): p.stat().st_mode & 0o777 for p in kept}
    assert modes == {name: 0o700 if (tmp_path / name).is_dir() else 0o600 for name in modes}
    assert {".out", ".peer", ".secrets"} <= {p.suffix for p in kept}, modes


@pytest.mark.e2e
def test_a_computer_player_that_keeps_failing_stops_the_game_with_a_way_back(
        tmp_path: Path, run_ginp2p: RunGinp2p) -> None:  # fmt: skip
    """Its third failure ends `play` (exit 1) instead of a wait for ever; the game is
    saved if it began, and nothing is left if it never did."""
    (tmp_path / "computer").write_text("")  # its home is a file: it fails at once
    never = run_ginp2p(tmp_path, "play", *SHORT)
    assert never.returncode == 1, never.stdout + never.stderr
    assert "the computer player failed (1); starting it again" in never.stdout
    assert "ginp2p play: error: the computer player failed (1) again, the third time; " \
        "what it said is in" in never.stderr  # fmt: skip
    assert list((tmp_path / "games").rglob("*.ginlog")) == [], "nothing was played"

    (tmp_path / "computer").unlink()
    peer = Peer(tmp_path, ["play", "--plain", "--name", "Pat", *SHORT, "--linger", "1"],
                name="person", stdin=subprocess.PIPE)  # fmt: skip
    try:
        peer.wait_for(r"your cards")
        for n in range(3):
            (computer,) = _children(peer.proc.pid)
            os.kill(computer, signal.SIGKILL)
            if n < 2:
                peer.wait_for(r"(?:starting it again[\s\S]*?connected to Computer[\s\S]*?)"
                              f"{{{n + 1}}}")  # fmt: skip
        assert peer.wait() == 1, peer.output
    finally:
        peer.kill()
    assert "the computer player was killed (SIGKILL) again, the third time" in peer.output
    (ours,) = sorted((tmp_path / "games").glob("*.ginlog"))
    assert f"the game is saved; continue it with: ginp2p resume {ours}" in peer.output


@pytest.mark.e2e
def test_join_typed_again_after_a_crash_is_turned_to_resume(tmp_path: Path) -> None:
    """The guest's program dies mid-game and the player types the same `join` again.
    It is told to resume; with `--new` it still takes nothing of the old game into a
    new file (it used to write entries of its own over the old ones: the host then saw
    a cheat). `resume` then finishes the match, and both logs are equal and clean."""
    from tests.processes import GUEST_FIRST_PLAY, guest, host

    h = host(tmp_path / "h")
    join = h.join_string()
    dead = guest(tmp_path / "g", join, env={"GINP2P_CRASH_AT": GUEST_FIRST_PLAY}, name="dead")
    assert dead.wait() == -signal.SIGKILL, dead.output
    old = dead.game_file()
    again = guest(tmp_path / "g", join, name="again", code=None)  # paired: the key is pinned
    assert again.wait() == 1, again.output
    assert re.search(r"you have an unfinished game with this host, game 1 of `ginp2p games` "
                     r"\(Hosta, began [^)]*\): continue it with `ginp2p resume 1`",
                     again.output), again.output  # fmt: skip
    new = guest(tmp_path / "g", join, "--new", name="new", code=None)
    assert new.wait() == 1, new.output
    assert "this game was begun by another ginp2p with your key" in new.output
    assert sorted((tmp_path / "g" / "games").glob("*.ginlog")) == [old], "no new file kept"
    assert "cheat" not in h.output.lower()
    back = Peer(tmp_path / "g", ["resume", str(old), "--linger", "3"], name="back")
    assert back.wait() == 0, back.output
    assert h.wait() == 0, h.output
    assert_same_and_clean(h.game_file(), old)


@pytest.mark.e2e
def test_the_viewer_does_not_show_the_computers_hand_of_a_game_to_resume(
        tmp_path: Path, run_ginp2p: RunGinp2p) -> None:  # fmt: skip
    """The computer's secrets lie on the person's disk: the viewer uses them for the
    hands that are over, never for the hand the person may still resume."""
    from ginp2p.files.records import load_replay
    from ginp2p.proto.entry import GUEST, HOST

    for attempt in range(3):  # the deal is random: about one in 40 ends before the crash
        home = tmp_path / f"try{attempt}"
        dead = run_ginp2p(home, "play", *SHORT, "--linger", "3", crash="send:10")  # in hand 1
        assert dead.returncode == -signal.SIGKILL, dead.stdout + dead.stderr
        (ours,) = sorted((home / "games" / "watched").glob("*.ginlog"))
        r = load_replay(ours)
        last = r.frame(len(r) - 1, "all")
        if last.result is None:
            break  # the computer did not knock at its first turn: hand 1 is in play
    assert last.result is None, "the hand is still in play"
    assert r.secrets[HOST] is not None and r.secrets[GUEST] is not None  # both found
    assert sum(c is not None for c in last.seats[HOST].cards) >= 10  # the person's own
    # of the computer's, only what an onlooker knows too (cards it took from the pile;
    # "at most one" failed twice under load: the crash point may fall a move later)
    public = r.frame(len(r) - 1, "public").seats[GUEST].cards
    assert last.seats[GUEST].cards == public
    assert sum(c is not None for c in public) <= 2
    assert last.next_stock is None


def test_a_guest_file_left_at_the_rules_question_is_no_game_to_resume(
    tmp_path: Path, run_ginp2p: RunGinp2p, free_port: Callable[[], int]
) -> None:
    """A guest killed at the rules question leaves the host's hello alone in its file: it
    never said yes, so no game began. `games` does not list it; `resume` of that file
    says to join again; `join` to that host removes it (not one of another host, nor one
    open in another process) and goes ahead instead of being turned to `resume` (an older
    game the guest did say yes to is still offered, and kept)."""
    from ginp2p.files import peers
    from ginp2p.files.gamefiles import PeerFile, peer_path
    from ginp2p.files.logfile import LogFile, read_records
    from ginp2p.net.discovery import format_join
    from ginp2p.proto.entry import Entry
    from ginp2p.proto.keytext import fingerprint, key_to_text
    from tests.helpers import write

    records, _ = read_records(Path(__file__).parents[1] / "corpus" / "clean-classic.ginlog")
    host_key = Entry.from_wire(records[0]).body.key  # records: the host's hello, the guest's
    peers.pin(host_key, "Hosta", home=tmp_path)  # paired: the code came before the rules
    port = free_port()  # nothing listens there
    join = format_join("127.0.0.1", port, host_key)
    (tmp_path / "games").mkdir()

    def guest_file(name: str, hellos: int) -> Path:
        path = write(tmp_path / "games" / name, records[:hellos])
        PeerFile("guest", "Gus", peer_key=key_to_text(host_key), host="127.0.0.1",
                 port=port).save(peer_path(path))  # fmt: skip
        return path

    left = guest_file("20250102-120000-guest.ginlog", 1)
    before = left.read_bytes()
    again = run_ginp2p(tmp_path, "resume", str(left))
    assert again.returncode == 1, again.stdout + again.stderr
    assert f"{left} never began: you had not said yes to the host's rules, so there is " \
           f"nothing to resume; to play this host, join it again: ginp2p join {join}" \
           in again.stderr  # fmt: skip
    assert left.read_bytes() == before
    listed = run_ginp2p(tmp_path, "games").stdout
    assert listed == f"no games in {tmp_path / 'games'}\n", listed

    other = guest_file("20250103-120000-guest.ginlog", 1)  # of another host
    other_key = key_to_text(Entry.from_wire(records[1]).body.key)  # the guest's: another
    PeerFile("guest", "Gus", peer_key=other_key).save(peer_path(other))
    with LogFile.open(left):  # still at the question in another process: kept
        joined = run_ginp2p(tmp_path, "join", join, "--connect-timeout", "1")
    assert "never began" not in joined.stdout and left.read_bytes() == before
    joined = run_ginp2p(tmp_path, "join", join, "--connect-timeout", "1")
    assert f"{left} never began (you had not said yes to this host's rules), so it is " \
           "removed" in joined.stdout  # fmt: skip
    assert "unfinished" not in joined.stdout + joined.stderr
    assert f"joining 127.0.0.1:{port}" in joined.stdout  # on to the host (not running)
    assert sorted(p.name for p in (tmp_path / "games").iterdir()) == [
        other.name,
        peer_path(other).name,
    ], "its .peer went with it, the other host's stays"

    said_yes = guest_file("20250101-120000-guest.ginlog", 2)  # older, and begun
    listed = run_ginp2p(tmp_path, "games").stdout
    assert str(said_yes) in listed and str(other) not in listed, listed
    # (the pin's name, and the one its hello gives beside it)
    flat = " ".join(listed.split())  # (the opponent's column may break over two lines)
    assert "  Hosta  " in listed, listed  # the pin's name, the game's under it
    assert f"(Hosta ({fingerprint(host_key)}) called itself Ann in this game)" in flat, listed
    assert "unfinished, not dealt yet" in flat, listed  # as join says
    joined = run_ginp2p(tmp_path, "join", join, "--connect-timeout", "1")
    assert joined.returncode == 1, joined.stdout + joined.stderr
    assert re.search(r"you have an unfinished game with this host, game 1 of `ginp2p games` "
                     r"\(Ann, began [^)]*\): continue it with `ginp2p resume 1`",
                     joined.stderr), joined.stderr  # fmt: skip
    assert "never began" not in joined.stdout and said_yes.exists()


@pytest.mark.e2e
def test_a_game_with_a_forgotten_player_waits_until_they_pair_again(
    tmp_path: Path, run_ginp2p: RunGinp2p
) -> None:
    """`ginp2p keys --forget` unpins a player: neither side resumes a game with them
    on the key its files keep (it used to reconnect as if still paired). Each is told
    whom it forgot and how to pair again, before anything listens or connects; a `join`
    pairs again instead of pointing back at `resume`, and then both resume the game."""
    from tests.processes import guest, host

    h = host(tmp_path / "h")
    dead = guest(tmp_path / "g", h.join_string(), env={"GINP2P_CRASH_AT": BEFORE_THE_DEAL},
                 name="dead")  # fmt: skip
    assert dead.wait() == -signal.SIGKILL, dead.output
    h.wait_for(r"lost the connection: waiting for Guesto")  # it has pinned the guest's name
    h.kill()
    ours, theirs = dead.game_file(), h.game_file()
    before = ours.read_bytes(), theirs.read_bytes()
    for home, who, game, never in (
        (tmp_path / "g", "Hosta", ours, "joining"),
        (tmp_path / "h", "Guesto", theirs, "hosting on"),
    ):
        forgot = run_ginp2p(home, "keys", "--forget", who)
        assert forgot.returncode == 0 and f"forgot {who}" in forgot.stdout, forgot.stderr
        refused = run_ginp2p(home, "resume", str(game))
        assert refused.returncode == 1, refused.stdout + refused.stderr
        assert refused.stderr.startswith(f"ginp2p resume: error: {who} (")
        assert "is no longer one of your paired players (forgotten" in refused.stderr
        assert "pair again first: one of you runs `ginp2p host`, the other `ginp2p join` " \
               f"with the pairing code it shows; then `ginp2p resume {game}` continues " \
               "it" in refused.stderr  # fmt: skip
        assert never not in refused.stdout and "resumed from" not in refused.stdout
    assert (ours.read_bytes(), theirs.read_bytes()) == before, "both games untouched"

    # pairing again: a new game with the code (the old one is not offered instead)
    h2 = host(tmp_path / "h", name="host again")
    g2 = guest(tmp_path / "g", h2.join_string(), name="guest again")
    assert g2.wait() == 0, g2.output
    assert h2.wait() == 0, h2.output
    assert "unfinished game" not in g2.output and "paired with the host" in g2.output
    # on a new port: the old one, picked by the system, may be another program's by now
    h3 = Peer(tmp_path / "h", ["resume", str(theirs), "--bot", "--port", "0", "--linger", "3"],
              name="host resumes")  # fmt: skip
    port = h3.join_string().split("/")[0].rsplit(":", 1)[1]
    g3 = Peer(tmp_path / "g", ["resume", str(ours), "--bot", "--address", f"127.0.0.1:{port}",
                               "--linger", "3"], name="guest resumes")  # fmt: skip
    assert g3.wait() == 0, g3.output
    assert h3.wait() == 0, h3.output
    assert "MATCH OVER" in g3.output and "MATCH OVER" in h3.output, (
        f"guest:\n{g3.output}\nhost:\n{h3.output}"
    )  # both sides, to tell why (flaked once)
    assert_same_and_clean(ours, theirs)


@pytest.mark.e2e
def test_a_play_game_with_the_computer_forgotten_says_play_pairs_again(
    tmp_path: Path, run_ginp2p: RunGinp2p
) -> None:
    ours, theirs = _killed_play(tmp_path, run_ginp2p)
    # the side a watched match is played from has a key of its own (GINP2P_HOME/watcher)
    forgot = run_ginp2p(tmp_path / "watcher", "keys", "--forget", "Computer")
    assert forgot.returncode == 0, forgot.stderr
    refused = run_ginp2p(tmp_path, "resume", str(ours))
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "ginp2p resume: error: Computer (" in refused.stderr and "is no longer one " \
        "of your paired players" in refused.stderr  # fmt: skip
    assert f"start `ginp2p play` once, which pairs with the computer again; then `ginp2p " \
           f"resume {ours}` continues it" in refused.stderr  # fmt: skip
    assert "resumed from" not in refused.stdout

    again = run_ginp2p(tmp_path, "play", *SHORT, "--linger", "3")  # pairs with it again
    assert again.returncode == 0, again.stdout + again.stderr
    back = run_ginp2p(tmp_path, "resume", str(ours), "--linger", "3")
    assert back.returncode == 0, back.stdout + back.stderr
    assert "MATCH OVER" in back.stdout
    assert_same_and_clean(ours, theirs)
