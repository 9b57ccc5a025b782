"""The network: ZeroMQ transport with CURVE encryption, LAN discovery over zeroconf and
pairing with a SPAKE2 code. No rules are decided here."""
