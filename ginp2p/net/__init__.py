"""The network: what an endpoint is to the game's drivers (``endpoint``: its events and
calls, ``HostSide`` and ``GuestSide``), the ZeroMQ endpoints with CURVE encryption
(``transport``), LAN discovery over zeroconf and the join string (``discovery``), and
pairing with a SPAKE2 code (``pairing``, sans-IO). No rules are decided here."""
