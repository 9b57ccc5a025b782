"""The rules of the game, pure and deterministic. Nothing here reads a clock, a file,
the network or randomness that is not passed in; nothing here imports any other part
of ginp2p but its errors (:mod:`ginp2p.errors`).

Bottom to top:

* ``cards``, ``rules``: the cards and decks; every variant's settings as data.
* ``melds``: what a meld is, deadwood, layoffs, and the questions asked about a hand,
  answered by two exact solvers: ``masks`` (one deck, 52-bit masks, fast) and
  ``search`` (any deck).
* ``actions``, ``hand``: what a player can do; one hand's state (and the engine's
  errors).
* ``scoring``, ``transitions``, ``options``: how a hand is scored, what each action
  does, what the player to move may do.
* ``engine``: one hand's front door (``start_hand``, ``legal_actions``, ``apply``);
  ``match``: hands until a player wins.
* ``observation``: what one player sees, as plain values; the computer player reads
  only that: ``turn`` (the order of its decisions), ``opponent`` and ``planner`` (one
  deck), ``general`` (the other variants), ``bot`` (its front door and the reference
  players); ``selfplay``: whole matches between computer players.
"""
