"""Tools for tests of ginp2p and of programs built on it (docs/api.md shows them at
work). Nothing in the library imports them.

* Two peers in memory: ``fakelink`` (two ``PeerProtocol`` peers over a link that drops,
  repeats, reorders and delays messages, goes down, and restarts a peer from what it
  saved, all from one seed) and ``cheats`` (the recipes of the attacks of
  docs/threats.md, played over that link).
* Whole games in one process: ``games`` (``Games``: both sides run as the command line
  runs them, with pairing, files, crashes and resumes), over ``memory``
  (``MemoryNetwork``: endpoints joined in memory, with latency, loss, cuts and
  partitions) on ``clock`` (``FakeClock``: asyncio time that jumps ahead whenever
  everything waits).
* The explorer: ``adversary`` (a cheating peer driven by a strategy, against an honest
  one), ``strategies`` (what the cheater may do), ``worlds`` (fixed keys and seeds),
  ``properties`` (what the honest player must keep), ``attacks`` (the strategies that
  once broke one) and ``exploring`` (memoised arithmetic, for speed).
"""
