"""The peer-to-peer protocol, sans-IO: the signed events and their codec, the log each
peer keeps, the commit-reveal shuffle, the admission of entries (`PeerProtocol`) and the
table every peer and the audit fold the log into. Bytes and events in, bytes and events
out; no sockets, clocks or files. Imports only `ginp2p.game`."""
