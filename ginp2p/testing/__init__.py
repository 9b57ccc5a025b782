"""Tools for tests of ginp2p and of programs built on it: a fake link between two
in-memory peers, the explorer that plays a modified client against honest ones, and
(for the asyncio layer) a memory transport and a fake clock."""
