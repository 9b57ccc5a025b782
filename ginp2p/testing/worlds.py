"""The two peers of an explored game: the fixed worlds they live in and the cheater's core.

A world is a pair of fixed signing keys and one stream of randomness per side, so the
same strategy in the same world plays the same game, entry for entry, and the honest
parts of a shuffle repeat from game to game. The cheater's core (:class:`Brain`) is an
honest ``PeerProtocol`` that may fake its lock; the adversary
(:mod:`ginp2p.testing.adversary`) decides what of its output reaches the honest peer.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import nacl.signing

from ginp2p.game import bot
from ginp2p.game.engine import Action, HandState
from ginp2p.proto import shuffle as sh
from ginp2p.proto.entry import H
from ginp2p.proto.hand import HandFold
from ginp2p.proto.outputs import Output
from ginp2p.proto.protocol import PeerProtocol

#: A player: from the protocol and its view of the hand to a move.
Player = Callable[[PeerProtocol, HandState], Action]


def player_of(kind: str, seed: int) -> Player:
    """The honest player ``kind`` ("greedy" or "random", seeded) as a link player."""
    if kind == "random":
        rng = random.Random(seed)
        return lambda proto, view: bot.random_legal(view, proto.me, rng)
    return lambda proto, view: bot.greedy(view, proto.me)


def world_key(world: int, me: int) -> nacl.signing.SigningKey:
    """The fixed signing key of ``me`` in ``world``."""
    return nacl.signing.SigningKey(H("ginp2p/adversary/key", bytes([world % 256, me]))[:32])


def world_rng(world: int, me: int) -> Callable[[int], bytes]:
    """The randomness of ``me`` in ``world`` (its nonce and seeds), one stream per side, so
    the seeds do not depend on the order in which the sides draw them."""
    return random.Random(f"ginp2p/adversary/{world}/{me}").randbytes


class Brain(PeerProtocol):
    """The cheater's honest core. ``fake_lock``: its lock of hand 1 uses per-card keys that
    do not come from its committed key seed (the lock proof verifies all the same: it
    proves knowledge of some keys); the brain then keeps using those keys, so its own
    feed and table stay consistent. ``faked``: the hand whose lock was faked."""

    fake_lock = False
    faked: int | None = None

    def _make_lock(self, h: HandFold, game: bytes) -> tuple[str, Any, list[Output]]:
        if self.fake_lock and h.number == 1 and self.faked is None:
            real = self._seeds[h.number]
            fake = sh.HandSecrets(real.perm_seed, real.key_seed)
            other = H("ginp2p/adversary/fake-keys", real.key_seed)[:32]
            fake._keys.update({pos: sh.scalar(other, "card", pos) for pos in range(h.n)})
            self._seeds[h.number] = fake
            self.faked = h.number
        return super()._make_lock(h, game)
