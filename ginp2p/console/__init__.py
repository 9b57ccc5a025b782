"""What a person plays at: the line prompt (``line``: ``--plain``, a pipe, a screen
reader) and, in ``tui``, the full-screen table and the replay viewer (prompt_toolkit).
They read the protocol's and the engine's plain data through the player's seat
(:mod:`ginp2p.app.seat`) and never decide a rule themselves."""
