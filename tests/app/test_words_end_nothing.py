"""What the other side does at the door ends no game it has written in: in one process
over the memory network (tests/app/test_lying_bye.py has the real processes)."""

from __future__ import annotations

import asyncio
import re

from ginp2p.app.connection import turned_away_midgame_words
from ginp2p.testing.games import Games
from tests.processes import assert_same_and_clean


def test_a_host_that_turns_a_game_under_way_away_ends_nothing(games: Games) -> None:
    """Mid-hand the host's door refuses the guest's key (as a host in another game
    does, or a peer that wants its opponent gone while it claims): the guest says so
    once and keeps trying, and once the door lets it in again the match ends as usual.
    It used to stop the guest's game at once (exit 1), its next resume owing from its
    last write."""
    guest_key = games.identity("Guesto").curve_public_key

    async def main() -> None:
        h = await games.start(games.host())
        g = await games.start(games.guest(h))
        while (s := g.setup.session) is None or (hand := s.proto.table.hand) is None \
                or not all(hand.dealt):  # fmt: skip
            await asyncio.sleep(0)  # until a hand is under way
        assert not s.proto.finished
        door = h.session.endpoint
        door.unpin(guest_key)  # type: ignore[attr-defined]
        await door.drop_connections()
        await g.wait_for(re.escape(turned_away_midgame_words("Hosta")))
        assert g.code is None and "error" not in g.output, g.output
        door.pin(guest_key)
        assert await games.finish(g, h) == [0, 0], g.output + h.output
        assert g.output.count("turned your connection away") == 1, g.output
        assert_same_and_clean(h.path, g.path)

    games.run(main())


def test_a_host_hears_only_its_guest_once_it_is_known() -> None:
    """While the host pairs, every paired player is admitted: frames and link events of
    another one (Mallory) still queued when Bob became the guest reached Bob's game, and
    her bye before Bob's hello ended it as "your guest turned your game down". Only the
    guest's connection speaks for the game now."""
    import asyncio
    import random

    import nacl.signing

    from ginp2p.proto.entry import HOST
    from ginp2p.proto.protocol import PeerProtocol
    from tests.app.test_peer_text import _from, _session, _wire_bye

    bob, mallory = (bytes(nacl.signing.SigningKey.generate().verify_key) for _ in "bm")
    from ginp2p.game.rules import get_preset

    host = PeerProtocol(HOST, nacl.signing.SigningKey.generate(), random.randbytes,
                        name="Hosta", rules=get_preset("classic"), peer_key=bob)  # fmt: skip
    said: list[str] = []
    session = _session(host, said)
    asyncio.run(session._on_net(_wire_bye("no", mallory)))
    assert session.result is None, "Mallory's bye is not Bob's"
    assert _from(mallory) != _from(bob)
    asyncio.run(session._on_net(_wire_bye("no", bob)))
    assert session.result is not None and session.result.code == 1, "Bob's is"
