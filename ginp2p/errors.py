"""The errors ginp2p raises, under one base class.

As in h11, a protocol error says whose fault it is:

* :class:`LocalProtocolError`: this program asked for something the protocol forbids
  (encoding a move the schema cannot carry, applying an action out of turn through the
  API). A bug on our side; it is never caused by the other peer.
* :class:`RemoteProtocolError`: the other peer sent something the protocol refuses
  (bytes that do not decode, a malformed body). Never a crash: the admission path turns
  it into a refused entry and, where it proves a cheat, into evidence.

Each layer's own errors (``EngineError``, ``ShuffleError``, ``LogError``,
``FileError``, ``NetError``, ``PairingError``, ``ReplayError``, ...) derive from
:class:`Ginp2pError` too, so a program using ginp2p as a library can catch everything
ginp2p raises on purpose with one ``except``. This module imports nothing: every layer
may use it.
"""

from __future__ import annotations

__all__ = ["Ginp2pError", "LocalProtocolError", "RemoteProtocolError"]


class Ginp2pError(Exception):
    """Base class of every error ginp2p raises on purpose."""


class LocalProtocolError(Ginp2pError, ValueError):
    """We were asked to do something the protocol forbids: a bug on our side."""


class RemoteProtocolError(Ginp2pError):
    """The peer sent something the protocol does not allow. Never a crash."""
