"""ginp2p: Gin Rummy for two peers on one local network.

The core (cards, melds, rules, engine, bot) is pure and deterministic; everything
that touches sockets, terminals, clocks or files lives at the edge.
"""

__version__ = "0.1.0"
