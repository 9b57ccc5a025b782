"""What a person plays at: the line prompt and the full-screen table and replay viewer
(prompt_toolkit). They read the protocol's and the engine's plain data through the
session's seat and never decide a rule themselves."""
