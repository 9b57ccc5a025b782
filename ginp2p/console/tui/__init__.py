"""The full-screen console: the table a person plays at and the replay viewer.

* The table: ``table`` (``TablePlayer``, the application), ``intents`` (what a key
  means), ``bindings`` (which key is which), ``render`` and ``overlays`` (the rows it
  draws, pure functions).
* The replay viewer: ``replay`` (the application, ``ginp2p replay`` and its plain
  forms), ``viewer`` (where the viewer stands) and ``replay_screen`` (its screen, pure
  functions).
* Both: ``look`` (how cards look on a terminal) and ``keys`` (keys as a player knows
  them).

Everything here is edge code (a terminal); it reads the protocol's and the engine's
plain data and never decides a rule itself.
"""
