"""Whole matches between two sessions in one process, run as the command line runs them
(pairing, files, resume) over the memory transport on a fake clock
(``ginp2p.testing.games``): a wrong code, strangers, kill -9 and resume, claims, a
frozen player, a game resumed against another one, a connection that keeps dropping.

Claim timeouts, lingers and reconnects cost no time here: only the computing does.
Matches are one hand long (game_target=1) unless a test needs a long one. What only real
processes over ZeroMQ show: tests/app/test_e2e.py."""

from __future__ import annotations

import asyncio
import re

import pytest

from ginp2p.app.players import BotPlayer
from ginp2p.app.seat import Seat
from ginp2p.files import peers
from ginp2p.files.records import audit_file as audit
from ginp2p.present.commands import Command, QuitCmd, RulesOffered
from ginp2p.proto.entry import GUEST, HOST, Entry
from ginp2p.testing.games import SHORT, Games, Scripted
from tests.processes import assert_same_and_clean, entries

LONG = SHORT.with_(game_target=500)  # no first hand ends the match before a freeze


def test_a_wrong_code_fails_clearly_and_pins_nothing(games: Games) -> None:
    async def main() -> None:
        h = await games.start(games.host())
        bad = await games.start(games.guest(h, "Bad", pair_code="8-tulip-anchor"))
        assert await games.finish(bad) == [1]
        assert "wrong pairing code" in bad.output
        await h.wait_for("a guest gave a wrong pairing code")
        await h.wait_for("2 pairing attempts left")
        assert peers.all(home=games.home("Bad")) == peers.all(home=games.home("Hosta")) == []
        assert not bad.path.exists(), "nothing saved on failure"
        # the host still waits, and the right code still works
        g = await games.start(games.guest(h))
        assert await games.finish(g, h) == [0, 0]
        assert_same_and_clean(h.path, g.path)

    games.run(main())


def test_a_stranger_is_told_to_pair_every_time_it_tries(games: Games) -> None:
    """The same unknown key joining again and again (a guest the host forgot, with
    `ginp2p keys --forget`, still skips pairing) is told to pair each time, and the host
    says so each time. It was told once per key: the second `join` waited in silence
    for a game that never began, and the host showed nothing."""

    async def main() -> None:
        h = await games.start(games.host())
        peers.pin(games.identity("Hosta").public_key, "Hosta", home=games.home("Stranger"))
        try:
            for n in (1, 2, 3):
                s = await games.start(games.guest(h, "Stranger", pair_code=None))
                assert await games.finish(s) == [1], s.output
                assert ("Hosta closed the game before it began: this host does not know your "
                        "key: pair with the host's code") in s.output, s.output  # fmt: skip
                await h.wait_for("(?s)" + ".*".join(["did not pair: it was told"] * n))
                assert not s.path.exists()
            assert peers.all(home=games.home("Hosta")) == []
        finally:
            await games.stop(h)

    games.run(main())


def test_kill_9_just_after_the_seeds_and_resume(games: Games) -> None:
    """The guest dies right after its seeds of hand 1 are on disk, before its commit
    left; resumed from its files, it finishes the match. (The same killed in play,
    between two processes: tests/app/test_e2e.py.)"""

    async def main() -> None:
        h = await games.start(games.host())
        g = await games.start(games.guest(h, crash_at=("seeds", 1)))
        await games.finish(g)
        assert g.crashed, g.output
        before = entries(g.path)
        assert before, "the guest stored entries before it died"
        assert "MATCH OVER" not in h.output
        # paired in this game, and killed in it: the host is pinned under its name already
        assert [p.name for p in peers.all(home=games.home("Guesto"))] == ["Hosta"]
        await h.wait_for(r"lost the connection: waiting for Guesto \(reconnecting…\)")
        r = await games.start(games.resume(g))
        assert await games.finish(r, h) == [0, 0], r.output
        assert f"resumed from {len(before)} stored entries" in r.output
        assert before <= entries(g.path)
        assert_same_and_clean(h.path, g.path)

    games.run(main())


def test_a_host_gone_before_the_first_deal_is_claimed_once(games: Games) -> None:
    """The host dies right after its hello, before it opens its nonce: the guest claims
    the match once and exits; its file holds that one claim and audits as a forfeit."""

    async def main() -> None:
        h = await games.start(games.host(claim_timeout=3, crash_at=("send", 2)))
        g = await games.start(games.guest(h, linger=1))
        assert await games.finish(h, g) == [None, 0] and h.crashed, g.output
        assert g.output.count("MATCH OVER") == 1
        assert "the match is over: Guesto won (Hosta stopped answering)" in g.output
        report = audit(g.path)
        assert (report.winner, report.end) == (GUEST, "claim")
        kinds = [Entry.from_wire(r).kind for r in entries(g.path)]
        assert kinds.count("claim") == 1

    games.run(main())


def test_two_crossed_claims_are_settled_and_the_match_goes_on(games: Games) -> None:
    """The host dies in hand 1 with its first entry after the shuffle unsent; the guest
    claims it and leaves. The host comes back, sends it, and claims the guest's answer.
    When the guest comes back too, that entry beats the guest's claim and the host's
    claim is void against the answer: the match goes on to its end on both sides."""

    async def main() -> None:
        h = await games.start(games.host(claim_timeout=3, crash_at=("send", 8)))
        g = await games.start(games.guest(h, linger=1))
        assert await games.finish(h, g) == [None, 0] and h.crashed, g.output
        assert "forfeits the match by a claim" in g.output, g.output
        h2 = await games.start(games.resume(h, linger=60))  # on a new port
        await h2.wait_for("Guesto stopped answering")
        g2 = await games.start(games.resume(g, port=h2.port, linger=3))
        assert await games.finish(g2, h2) == [0, 0], g2.output + h2.output
        assert "the match goes on" in h2.output + g2.output
        assert re.search(r"the match is over: (Hosta|Guesto) won \(reached the target\)",
                         h2.output)  # fmt: skip
        assert "(reached the target)" in g2.output
        assert_same_and_clean(h.path, g.path)

    games.run(main())


def _a_person_who_never_moves(seat: Seat) -> Command | None:
    return None


def test_a_claim_made_while_a_player_was_gone_stands_when_it_resumes(games: Games) -> None:
    """The guest is killed mid-hand and the host rightly claims after the timeout. The
    guest resumes: it was away since its files were last written, so the claim is read
    before it moves and stands on both sides. Before, the resumed guest counted its
    owing from 0 s, held the claim as too early, and its first move beat it."""

    async def main() -> None:
        h = await games.start(games.host(claim_timeout=3, rules=LONG))
        # a person, so that nothing of theirs is saved but unsent when the program dies:
        # an entry already written (a computer's move) would rightly beat the claim
        person = Scripted(moves=_a_person_who_never_moves)
        g = await games.start(games.guest(h, player="human", table=person,
                                          accept_rules=True))  # fmt: skip
        await g.wait_for("your cards")
        assert any(isinstance(e, RulesOffered) for e in person.events), "asked even with --yes"
        await asyncio.sleep(1)  # the computer host has made its move if it had one
        await games.stop(g)
        await h.wait_for("stopped answering and forfeits the match")
        g2 = await games.start(games.resume(g, player="bot", verbose=True, linger=2))
        assert await games.finish(g2, h) == [0, 0], g2.output + h.output
        assert "the match goes on" not in h.output + g2.output, h.output + g2.output
        assert "after only" not in g2.output, g2.output
        assert "forfeits the match by a claim" in g2.output, g2.output
        for side in (h, g):
            report = audit(side.path)
            assert (report.winner, report.end) == (HOST, "claim"), report.text()

    games.run(main())


def test_a_silent_peer_is_claimed_and_a_stranger_refused(games: Games) -> None:
    """The guest freezes mid-hand: after the shortened claim timeout the host claims and
    the match ends as a forfeit. Meanwhile a third key is refused."""

    async def main() -> None:
        h = await games.start(games.host(claim_timeout=3, verbose=True, rules=LONG))
        g = await games.start(games.guest(h, verbose=True))
        await g.wait_for("drew")
        games.freeze(g)
        try:
            third = await games.start(games.guest(h, "Third", connect_timeout=15))
            assert await games.finish(third) == [1], third.output
            assert "the host turned you away: it is not pairing now" in third.output
            assert not third.path.exists()
            await h.wait_for("refused a connection from a player not paired with this host")
            assert await games.finish(h) == [0], h.output
        finally:
            await games.stop(g)
        assert "stopped answering and forfeits the match by a claim" in h.output
        report = audit(h.path)
        assert report.end == "claim" and report.winner == 0, report.text()
        assert report.verdict.value == "incomplete", report.text()  # the audit's verdict
        assert "the claim stands" in report.text()

    games.run(main())


def test_a_paired_player_who_joins_a_busy_host_is_told_so_on_both_screens(
        games: Games) -> None:  # fmt: skip
    """The host is in a game with Guesto; Bob, paired with it before, tries to join and
    is refused (the host admits only its opponent now). Bob is told the host is most
    likely busy, not that it does not know him; the host names Bob as `ginp2p keys`
    does (not by his connection key), and says whom its game is with."""
    ids = {n: games.identity(n) for n in ("Hosta", "Guesto", "Bob")}
    for n in ("Guesto", "Bob"):
        peers.pin(ids["Hosta"].public_key, "Hosta", home=games.home(n))
        peers.pin(ids[n].public_key, n, home=games.home("Hosta"))

    async def main() -> None:
        h = await games.start(games.host(rules=LONG))
        g = await games.start(games.guest(h, verbose=True, pair_code=None))
        try:
            await g.wait_for("drew")
            games.freeze(g)  # the game stays in progress
            bob = await games.start(games.guest(h, "Bob", pair_code=None))
            assert await games.finish(bob) == [1], bob.output
            assert "the host turned you away: most likely it is in a game with someone " \
                   "else (try again when it is free)" in bob.output  # fmt: skip
            bob_is = rf"Bob \({ids['Bob'].fingerprint}, paired with you\)"
            await h.wait_for(f"{bob_is} tried to join; this game is with Guesto, so they were "
                             "turned away")  # fmt: skip
            assert "curve" not in h.output
        finally:
            await games.stop(g)
            await games.stop(h)

    games.run(main())


def test_a_claimant_waits_for_its_claim_to_reach_a_player_who_wakes(games: Games) -> None:
    """The guest freezes (a laptop lid) past the timeout and the host claims. The host
    waits as long as a player may owe (not just its linger): the guest wakes within
    that, and both sides end on the same result. Either the claim stands (the guest
    reads it before it may move), or a move the guest wrote just before it froze beats
    it and the match goes on. Before, the claimant left after its linger, the woken
    guest played on, and the two files named different winners."""

    async def main() -> None:
        h = await games.start(games.host(claim_timeout=6, linger=1))
        g = await games.start(games.guest(h, verbose=True, linger=1))
        await g.wait_for("drew")
        games.freeze(g)
        try:
            await h.wait_for("stopped answering and forfeits the match")
            await asyncio.sleep(2.5)  # past the host's linger, within the claim timeout
        finally:
            games.thaw(g)
        assert await games.finish(h, g) == [0, 0], h.output + g.output
        assert "has not reached" not in h.output and "could not confirm" not in h.output
        reports = [audit(side.path) for side in (h, g)]
        assert {(r.end, r.winner) for r in reports} == {(reports[0].end, reports[0].winner)}
        if reports[0].end == "claim":
            assert "forfeits the match by a claim" in g.output, g.output
        else:  # however long after the claim the move came: the guest had not seen it
            assert "the match goes on: Guesto answered before your claim reached them" in \
                h.output  # fmt: skip
        assert entries(h.path) == entries(g.path)

    games.run(main())


def test_a_game_resumed_against_a_new_one_is_told_on_both_sides(games: Games) -> None:
    """Both peers die; the host begins a new game while the guest resumes the old one.
    Each drops the other's entries (another game): both are told, once, instead of
    waiting for each other in silence. When the guest leaves, the host's game is not
    said to be over or left: only the other game was."""

    async def main() -> None:
        h = await games.start(games.host(rules=LONG))
        g = await games.start(games.guest(h, verbose=True))
        await g.wait_for("drew")  # both hellos are stored: the game exists
        await games.stop(h)
        await games.stop(g)
        h2 = await games.start(games.host())  # a new game (its guest is known: no code)
        g2 = await games.start(games.resume(g, port=h2.port))
        try:
            told = "Hosta's ginp2p is playing another game with you"
            await g2.wait_for(told)
            await h2.wait_for("Guesto's ginp2p is playing another game with you")
            assert g2.output.count(told) == 1
            g2.session.submit(QuitCmd(15))  # it leaves its game (SIGTERM), saying goodbye
            await h2.wait_for("Guesto's ginp2p left another game it had open with you; this "
                              "game is unchanged and waits for them")  # fmt: skip
            assert "Guesto left" not in h2.output and h2.code is None
        finally:
            await games.stop(g2)
            await games.stop(h2)

    games.run(main())


def test_a_connection_that_keeps_dropping_mid_hand(games: Games) -> None:
    """Every connection is cut each time 5 more frames went through, five times, while
    the match is played: the guest reconnects each time, both resync, and both files end
    equal and clean. (The shortest of a sample of matches took 45 frames: the five cuts
    come within the first hand's set-up and first moves, whatever the deal.)"""
    games.network.cut_every(5, times=5)

    async def main() -> None:
        h = await games.start(games.host())
        g = await games.start(games.guest(h))
        assert await games.finish(g, h) == [0, 0], g.output + h.output
        assert games.network.cuts == 5
        assert g.output.count("lost the connection") >= 3, g.output
        assert_same_and_clean(h.path, g.path)

    games.run(main())


def test_a_game_that_fails_after_a_hand_began_is_kept(
        games: Games, monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    """An error ends the game; only a game in which nothing was played is removed. Here
    a hand had begun, so the files stay, and the game can be resumed; the last line says
    the other player's clock runs on meanwhile."""
    real = BotPlayer.next_command

    def next_command(self: BotPlayer, seat: Seat) -> Command | None:
        if seat.me == GUEST and seat.hand() is not None:  # the guest's hand was dealt
            raise RuntimeError("a bug in the player")
        return real(self, seat)

    monkeypatch.setattr(BotPlayer, "next_command", next_command)

    async def main() -> None:
        h = await games.start(games.host(claim_timeout=3))
        g = await games.start(games.guest(h))
        assert await games.finish(g) == [1], g.output
        await games.stop(h)
        assert "the player failed: RuntimeError: a bug in the player" in g.output
        # the clock runs on while the player is away: the last line says so
        assert f"the game is saved; continue it with: ginp2p resume {g.path}; while you " \
               "are away, Hosta may claim the match once a move of yours has waited 3 s" \
               in g.output.splitlines(), g.output  # fmt: skip
        assert "is not kept" not in g.output
        assert entries(g.path), "its entries are kept"

    games.run(main())


def test_a_guest_whose_host_moved_is_told_how_to_follow(games: Games) -> None:
    """The host's program dies mid-game and comes back on another port (its own was
    taken, say): nothing listens where the guest reconnects. After its connect timeout
    of refusals the guest is told, once, that the host may run the game elsewhere and
    how to follow it; `resume --address` then finishes the match."""

    async def main() -> None:
        h = await games.start(games.host(crash_at=("send", 8)))
        g = await games.start(games.guest(h, linger=1, connect_timeout=4))
        await games.finish(h)
        assert h.crashed, h.output
        try:
            hint = await g.wait_for(
                r"nothing has listened at memory:\d+ for (\d+) s: if Hosta runs this game "
                r"again at another port or address \(their screen shows it\), leave \(the "
                r"game stays saved\) and run: ginp2p resume (\S+) --address HOST:PORT"
            )
            assert 4 <= int(hint.group(1)) < 20, "told after the guest's connect timeout"
            assert hint.group(2) == str(g.path)
            await asyncio.sleep(30)
            assert g.output.count("nothing has listened at") == 1, "said once"
        finally:
            await games.stop(g)
        h2 = await games.start(games.resume(h, linger=3))
        g2 = await games.start(games.resume(g, port=h2.port, linger=3))
        assert await games.finish(g2, h2) == [0, 0], g2.output + h2.output
        assert_same_and_clean(h.path, g.path)

    games.run(main())


def test_a_guest_resuming_against_a_host_that_forgot_it_is_told_to_pair_again(
        games: Games) -> None:  # fmt: skip
    """Only the host forgot the guest and hosts a new game; the guest, which still pins
    the host, resumes their old game against it. The host tells it that it does not know
    its key; the guest says so as the host's words, with how to pair again, and waits,
    saved: a bye is no command (any peer may say that line), so it ends no game."""
    from ginp2p.app.connection import forgotten_by_words

    async def main() -> None:
        h = await games.start(games.host())
        dead = await games.start(games.guest(h, crash_at=("seeds", 1)))
        await games.finish(dead)
        assert dead.crashed, dead.output
        await h.wait_for(r"lost the connection: waiting for Guesto")  # pinned its name
        await games.stop(h)
        peers.forget("Guesto", home=games.home("Hosta"))
        h2 = await games.start(games.host())
        try:
            g = await games.start(games.resume(dead, port=h2.port))
            await g.wait_for(re.escape(forgotten_by_words("Hosta")))
            await h2.wait_for("did not pair: it was told to use the pairing code")
            assert g.code is None and "error" not in g.output, g.output
            assert g.output.count("does not know your key") == 1, "said once"
            g.session.submit(QuitCmd())
            assert await games.finish(g) == [0], g.output
            assert g.path.exists()
        finally:
            await games.stop(h2)

    games.run(main())


def test_two_sessions_in_one_process_leave_no_task_behind(games: Games) -> None:
    """The kit itself: a whole game over it ends with nothing left running, and its
    clock moved only by what the game waited for."""

    async def main() -> set[asyncio.Task[object]]:
        h = await games.start(games.host())
        g = await games.start(games.guest(h))
        assert await games.finish(g, h) == [0, 0]
        return asyncio.all_tasks() - {asyncio.current_task()}  # type: ignore[operator]

    assert games.run(main()) == set()
