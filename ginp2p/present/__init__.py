"""Text for people, pure; imports only the rules and the protocol.

``words`` and ``summary``: sentences about moves, finished hands and matches, the same
on every screen; ``commands``: what a line typed at the prompt means
(``parse_command``), and the full-screen table's keys go through it too; ``charset``:
whether a console can print the suits; ``view`` and ``draft``: the table as plain data
one player sees, and a declaration being made; ``seat_words`` and ``lines``: a seat's
state and the sentences a player asks for (its status, what happened, what leaving
risks), and the line mode's pictures of the table."""
