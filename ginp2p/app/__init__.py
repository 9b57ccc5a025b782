"""The asyncio drivers of one game, bottom to top:

* ``config``: what the drivers share, the command line's ``GameSetup`` and the
  ``SessionResult`` a game ends with; ``process``: the clock, the signals that stop a
  game as ``quit`` does, and the crash test hook; ``piped``: a piped standard input,
  read by one thread for the whole run.
* ``seat`` and ``players``: all a player may read of the game and do in it (``Seat``),
  and who makes a side's moves (``Player``; the computer's ``BotPlayer``). A person's
  consoles are :mod:`ginp2p.console`'s.
* ``pregame``: before the game, the host admitting a guest and the guest pairing with
  the host.
* ``core``, ``connection``, ``ending``, ``session``: the session (``Session``), one
  player's game over the network, built of parts: what they share, the connection (the
  endpoint's events and the link's outputs), the end of a match, and the actor loop
  that carries out the protocol's outputs in order.
* ``setup``: one game from its ``GameSetup`` to its exit code (``run_game``).
"""
