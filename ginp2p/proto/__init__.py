"""The peer-to-peer protocol, sans-IO: bytes and events in, bytes and events out; no
sockets, clocks or files. Imports only :mod:`ginp2p.game` and the errors.

Bottom to top:

* ``text``, ``keytext``: the filter every string from another peer passes through
  before a screen (``for_screen``) and the names of the entry kinds; public keys as
  text.
* ``events`` (a package): the entry kinds, their bodies and the canonical msgpack
  codec. ``shuffle`` (a package): the commit-reveal shuffle, step by step, and its
  recompute from opened seeds.
* ``entry``, ``claims``, ``linear``, ``log``: the signed entries, the race between a
  claim and the owed entry, the linear order, and the log of one game's verified
  entries (``Log``).
* ``hand``, ``results``, ``state``, ``judge``, ``cards``, ``table``: the table every peer,
  the audit and the replay fold the log into (``Table``): one hand's entries, the
  events and cheats a fold finds, the table's state, the judgement by opened seeds, the
  shuffle's entries and the cards they deal, and the fold itself.
* ``outputs``, ``moves``, ``protocol``: one player's side of a game (``PeerProtocol``),
  what it asks of whoever drives it, and the entries it makes unasked.
* ``frames``, ``link``: the messages two peers exchange, as bytes, and the link
  (``Link``): what they say to each other besides entries (``have``, ``bye``, resync).
"""
