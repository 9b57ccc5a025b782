"""The link between two peers, sans-IO: frames and the time in, frames to send and
what they mean out. Each peer's protocol is real (two of them over the fake link); the
clock is whatever number the test says."""

from __future__ import annotations

import random

import pytest

from ginp2p.game.rules import get_preset
from ginp2p.proto.entry import GUEST, HOST
from ginp2p.proto.frames import NET_VERSION, ByeFrame, EntryFrame, HaveFrame, PairFrame
from ginp2p.proto.link import (
    FINISH_ASK_S,
    OTHER_GAME_REASON,
    PAUSE_REASON,
    UNKNOWN_KEY_REASON,
    Answered,
    EntryArrived,
    Leaving,
    Link,
    PairArrived,
    PeerLeft,
    Quiet,
    SendFrame,
    VersionIgnored,
    VersionMismatch,
)
from ginp2p.proto.protocol import PeerProtocol
from ginp2p.testing.fakelink import FakeLink, make_pair, settle, step_until

OTHER_VERSION = NET_VERSION + 1


def _link(seed: int = 1) -> FakeLink:
    rng = random.Random(seed)
    host, guest = make_pair(get_preset("classic"), rng)
    return FakeLink(host, guest, rng)


def _fresh(me: int = GUEST) -> PeerProtocol:
    """A peer that has stored nothing yet."""
    return _link().sides[me].proto


def _both_hellos(me: int = GUEST) -> PeerProtocol:
    """A peer of a game both hellos began (the shuffle under way)."""
    link = _link()
    link.start()
    step_until(link, lambda: all(s.proto.log.game is not None for s in link.sides))
    return link.sides[me].proto


def _finished(me: int = GUEST) -> PeerProtocol:
    """A peer whose match is over (the host resigned), both sides holding everything."""
    link = _link()
    link.start()
    step_until(link, lambda: all(s.proto.log.game is not None for s in link.sides))
    link.handle(HOST, link.sides[HOST].proto.resign("enough"))
    settle(link)
    proto = link.sides[me].proto
    assert proto.finished
    return proto


def _sent(out: list[object]) -> list[object]:
    return [o.frame for o in out if isinstance(o, SendFrame)]


# ------------------------------------------------------------------------ frames in


def test_an_entry_and_a_pairing_message_are_passed_on_and_count_as_heard() -> None:
    link = Link(_fresh())
    assert link.receive(EntryFrame(b"wire"), 5.0) == [EntryArrived(b"wire")]
    assert link.last_heard == 5.0
    assert link.receive(PairFrame(b"spake"), 7.0) == [PairArrived(b"spake")]
    assert link.last_heard == 7.0


def test_a_have_of_another_version_ends_a_game_never_begun_after_saying_ours() -> None:
    proto = _fresh()
    link = Link(proto)
    out = link.receive(HaveFrame(OTHER_VERSION, 0, 0, True), 3.0)
    assert out == [
        SendFrame(HaveFrame(NET_VERSION, *proto.have(), False)),
        SendFrame(ByeFrame(f"peer protocol version {NET_VERSION} here")),
        VersionMismatch(OTHER_VERSION, NET_VERSION),
    ]
    assert link.peer_have is None


def test_a_have_of_another_version_is_ignored_where_the_other_side_spoke_ours() -> None:
    link = Link(_fresh())
    link.receive(HaveFrame(NET_VERSION, 0, 0, False), 1.0)  # ours, first
    for _ in range(2):  # (the session says it once)
        out = link.receive(HaveFrame(OTHER_VERSION, 9, 9, True), 2.0)
        assert out == [VersionIgnored(OTHER_VERSION, NET_VERSION)]
    assert link.peer_have == (0, 0), "nothing of the other version's have is taken"


def test_a_resumed_game_has_heard_our_version_already() -> None:
    """A game its files show begun: both sides spoke one version in it."""
    link = Link(_both_hellos())
    assert link.receive(HaveFrame(OTHER_VERSION, 0, 0, True), 1.0) == [
        VersionIgnored(OTHER_VERSION, NET_VERSION)
    ]


def test_a_have_asking_for_ours_gets_the_missing_tail_then_our_have() -> None:
    proto = _both_hellos(HOST)
    mine = proto.have()[HOST]
    link = Link(proto)
    out = link.receive(HaveFrame(NET_VERSION, 1, 0, True), 4.0)
    assert link.peer_have == (1, 0)
    assert _sent(out) == [
        *(EntryFrame(w) for w in proto.missing((1, 0))),
        HaveFrame(NET_VERSION, *proto.have(), False),
    ]
    assert len(_sent(out)) == (mine - 1) + proto.have()[GUEST] + 1
    assert link.last_have == 4.0
    assert not any(isinstance(o, Answered) for o in out), "we asked nothing"


def test_a_have_that_asks_nothing_is_not_answered() -> None:
    proto = _both_hellos(HOST)
    link = Link(proto)
    out = link.receive(HaveFrame(NET_VERSION, *proto.have(), False), 4.0)
    assert out == [] and link.peer_have == proto.have()


def test_the_answer_to_our_question_measures_the_round_trip_once() -> None:
    proto = _both_hellos()
    link = Link(proto)
    asked = link.ask(10.0)
    assert asked == HaveFrame(NET_VERSION, *proto.have(), True)
    assert link.asked == link.last_have == 10.0
    answer = HaveFrame(NET_VERSION, *proto.have(), False)
    assert link.receive(answer, 10.25) == [Answered(0.25)]
    assert link.latency == 0.25
    assert link.receive(answer, 11.0) == [], "one answer per question"
    assert link.latency == 0.25


def test_a_have_that_tells_wants_no_answer() -> None:
    proto = _fresh()
    link = Link(proto)
    assert link.tell(2.0) == HaveFrame(NET_VERSION, 0, 0, False)
    assert link.last_have == 2.0 and link.asked == 0.0


# ------------------------------------------------------------------------ a bye


def _bye(proto: PeerProtocol, reason: str, *, finishing: bool = False) -> PeerLeft:
    (left,) = Link(proto).receive(ByeFrame(reason), 1.0, finishing=finishing)
    assert isinstance(left, PeerLeft) and left.reason == reason
    return left


def test_a_bye_from_another_game_says_nothing_of_this_one() -> None:
    assert _bye(_both_hellos(), OTHER_GAME_REASON).meaning is Leaving.ANOTHER_GAME
    assert _bye(_fresh(), OTHER_GAME_REASON).meaning is Leaving.ANOTHER_GAME


def test_a_peer_found_in_another_game_is_in_another_game_whatever_its_bye_says() -> None:
    link = Link(_both_hellos())
    link.another_game()
    (left,) = link.receive(ByeFrame("the match is over"), 1.0)
    assert isinstance(left, PeerLeft) and left.meaning is Leaving.ANOTHER_GAME
    assert link.bye("the match is over") == ByeFrame(OTHER_GAME_REASON)
    link.connected()  # a new connection: perhaps the right game now
    assert link.bye("the match is over") == ByeFrame("the match is over")


def test_a_bye_before_the_other_sides_hello_ends_a_game_never_begun() -> None:
    left = _bye(_fresh(), "refused: no")
    assert left.meaning is Leaving.NEVER_BEGAN and left.ends_the_game


def test_a_pause_before_the_other_sides_hello_keeps_the_game_waiting() -> None:
    left = _bye(_fresh(), PAUSE_REASON)
    assert left.meaning is Leaving.PAUSED_BEFORE_HELLO and not left.ends_the_game


@pytest.mark.parametrize("me", [GUEST, HOST])
def test_no_bye_ends_a_game_the_other_side_has_written_in(me: int) -> None:
    """A bye's reason is the other side's words: any peer may say the host's "unknown
    key" line (or anything else) mid-game, and the game waits for it, saved. (It used to
    end the game, exit 1, so that the sender could claim against a player gone.)"""
    proto = _both_hellos(me)
    left = _bye(proto, UNKNOWN_KEY_REASON)
    assert left.meaning is Leaving.FORGOT_US and not left.ends_the_game
    others = ("refused: no", "the guest declined the rules", "", "the match is over",
              f"peer protocol version {OTHER_VERSION} here", UNKNOWN_KEY_REASON[:-1])  # fmt: skip
    for reason in others:
        assert not _bye(proto, reason).ends_the_game, reason


def test_a_bye_in_a_game_under_way_leaves_it_saved() -> None:
    left = _bye(_both_hellos(), PAUSE_REASON)
    assert left.meaning is Leaving.LEFT and not left.ends_the_game


def test_a_bye_while_the_guest_is_asked_about_the_rules() -> None:
    """The host's hello is stored, the guest's is held back for its player's yes."""
    link = _link()
    guest = link.sides[GUEST].proto
    guest.accept_rules = lambda rules: False  # the player has not answered yet
    link.start()
    step_until(link, lambda: guest.log.hello(HOST) is not None)
    assert guest.log.hello(GUEST) is None
    assert _bye(guest, PAUSE_REASON).meaning is Leaving.AT_THE_RULES


def test_a_bye_after_the_end_needs_no_words() -> None:
    assert _bye(_both_hellos(), "the match is over", finishing=True).meaning is (
        Leaving.AFTER_THE_END
    )
    proto = _finished()
    assert _bye(proto, "the match is over", finishing=True).meaning is Leaving.AFTER_THE_END
    # a finished match is no reason to stop for a forgotten key
    assert _bye(proto, UNKNOWN_KEY_REASON, finishing=True).meaning is Leaving.AFTER_THE_END


# ------------------------------------------------------------------------ the clock


def test_nothing_is_asked_while_the_link_is_down() -> None:
    link = Link(_fresh(HOST))
    link.start(0.0)
    assert link.tick(100.0) == [] and link.tick(100.0, finishing=True) == []


def test_a_quiet_peer_that_owes_is_asked_again_after_resync_after() -> None:
    proto = _fresh(HOST)
    proto.start(0.0)  # the host's hello: it waits for the guest's
    assert proto.table.owes(GUEST) is not None
    link = Link(proto, resync_after=2.0)
    link.start(0.0)
    assert link.connected()
    assert link.tick(2.0) == []
    out = link.tick(2.5)
    assert out == [Quiet(2.5), SendFrame(HaveFrame(NET_VERSION, 1, 0, True))]
    assert link.tick(4.0) == [], "quiet counts from our last have too"
    (quiet, _) = link.tick(4.6)
    assert isinstance(quiet, Quiet) and quiet.for_s == pytest.approx(2.1)
    link.receive(EntryFrame(b"x"), 6.0)
    assert link.tick(7.0) == [], "heard from"


def test_a_peer_that_owes_nothing_is_not_asked() -> None:
    link = Link(_fresh(HOST))
    link.start(0.0)
    link.connected()
    assert link.tick(50.0) == []


def test_a_finished_match_asks_every_half_second_until_both_hold_everything() -> None:
    link = Link(_finished())
    link.connected()
    out = link.tick(10.0, finishing=True)
    assert _sent(out) == [HaveFrame(NET_VERSION, *link.proto.have(), True)]
    assert link.tick(10.0 + FINISH_ASK_S / 2, finishing=True) == []
    assert len(link.tick(10.0 + FINISH_ASK_S, finishing=True)) == 1


def test_a_screen_that_shows_the_latency_has_it_measured_every_so_often() -> None:
    link = Link(_both_hellos(), ping_every=5.0, resync_after=60.0)  # (the host owes)
    link.connected()
    assert _sent(link.tick(5.0)) == [HaveFrame(NET_VERSION, *link.proto.have(), True)]
    assert link.tick(9.0) == []
    assert len(link.tick(10.0)) == 1


def test_connections_come_and_go() -> None:
    link = Link(_fresh())
    assert link.connected() and not link.connected(), "up once"
    assert link.up
    assert link.disconnected() and not link.disconnected(), "down once"
    assert not link.up


@pytest.mark.parametrize("victim", [HOST, GUEST])
def test_a_peer_that_plays_by_entries_alone_cannot_stop_the_game_by_naming_a_version(
        victim: int) -> None:  # fmt: skip
    """A link made before the game (as the session makes it) that never heard a `have`
    of our version: the other side plays by entries alone, then names another version.
    Its entries ack ours, so it speaks our protocol: the `have` is its words, ignored
    (the session stopped with "version mismatch", leaving a player who owed a move away
    while the sender claimed). Before it answered anything of ours, a `have` of another
    version still stops the game: two honest versions that cannot play together."""
    rng = random.Random(1)
    host, guest = make_pair(get_preset("classic"), rng)
    fake = FakeLink(host, guest, rng, players=(None, None))
    link = Link(fake.sides[victim].proto)
    fresh = Link(fake.sides[victim].proto)
    assert isinstance(fresh.receive(HaveFrame(OTHER_VERSION, 0, 0, True), 0.0)[-1],
                      VersionMismatch)  # fmt: skip
    fake.start()
    settle(fake)
    assert not link.version_ok and fake.sides[victim].proto.have()[1 - victim] > 0
    assert link.receive(HaveFrame(OTHER_VERSION, 0, 0, True), 1.0) == [
        VersionIgnored(OTHER_VERSION, NET_VERSION)
    ]
