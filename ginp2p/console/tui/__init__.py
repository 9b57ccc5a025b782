"""The full-screen console: the table a person plays at and the replay viewer.

Everything here is edge code (a terminal); it reads the protocol's and the engine's
plain data and never decides a rule itself.
"""
