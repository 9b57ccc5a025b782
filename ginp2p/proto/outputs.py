"""What :class:`~ginp2p.proto.protocol.PeerProtocol` asks of whoever drives it.

Its outputs are a list of instructions and events, to be carried out *in order* by the
driver (the network layer, the fake link of the tests, a bot runner):

* :class:`Save` — append this entry to the ``.ginlog`` file and fsync, before anything
  after it is done. Every entry, sent or received, comes out as a ``Save`` first.
* :class:`SaveSeeds` / :class:`SaveAnswer` — write to the secrets file and fsync. They
  always come before the entry that depends on them (the commit, the answers).
* :class:`Send` — send the entry to the other peer.
* :class:`Waiting`, :class:`Dropped`, :class:`Refolded`, :class:`Refused`,
  :class:`EarlyClaim` and the table's events (:class:`~ginp2p.proto.results.HandDealt`,
  :class:`~ginp2p.proto.results.Moved`, …) — for the player.
"""

from __future__ import annotations

from dataclasses import dataclass

from ginp2p.proto.entry import Entry
from ginp2p.proto.results import Event

__all__ = [
    "Dropped",
    "EarlyClaim",
    "Output",
    "Refolded",
    "Refused",
    "Save",
    "SaveAnswer",
    "SaveSeeds",
    "Send",
    "Waiting",
]


@dataclass(frozen=True, slots=True)
class Save:
    entry: Entry


@dataclass(frozen=True, slots=True)
class SaveSeeds:
    hand: int
    perm_seed: bytes
    key_seed: bytes


@dataclass(frozen=True, slots=True)
class SaveAnswer:
    hand: int
    step: int
    challenge: bytes


@dataclass(frozen=True, slots=True)
class Send:
    entry: Entry


@dataclass(frozen=True, slots=True)
class Waiting:
    """The other player owes ``what`` since ``since`` (the clock given to the protocol)."""

    on: int
    what: str
    since: float


@dataclass(frozen=True, slots=True)
class Dropped:
    """Bytes from the peer that were not a valid entry: a transport fault, ignored."""

    reason: str


@dataclass(frozen=True, slots=True)
class Refolded:
    """A late concurrent entry changed the order: the table was recomputed from ``index``."""

    index: int


@dataclass(frozen=True, slots=True)
class Refused:
    """Something the protocol will not do (rules declined, a second challenge)."""

    reason: str


@dataclass(frozen=True, slots=True)
class EarlyClaim:
    """The other player claimed the match when this player had owed an entry for only
    ``after`` seconds of the ``timeout`` (by this peer's clock).

    The claim is held back, as a slow network would hold it, until the timeout has
    passed here: a move made meanwhile does not ack it, so it beats it (docs/protocol.md §6).
    """

    after: float
    timeout: int


Output = (
    Save
    | SaveSeeds
    | SaveAnswer
    | Send
    | Waiting
    | Dropped
    | Refolded
    | Refused
    | EarlyClaim
    | Event
)
