"""The asyncio drivers: the pre-game exchange, the session that runs a match between
the transport, the protocol and the log file, and the seats (players) it drives."""
