"""The ``ginp2p`` command.

``play`` is you against the computer player (a second ginp2p process over loopback
ZeroMQ; without a terminal, two computer players and you watch). ``host`` / ``join``
play a match against a person on another computer (at the full-screen table, or the line
prompt with ``--plain``); ``bot`` puts the computer player on either side; ``resume``
continues a saved game after a crash or a quit; ``keys`` shows keys, safety numbers and
forgets a peer; ``games`` lists the saved games; ``replay`` steps through a saved game
(or prints it); ``audit`` judges a game log (who cheated, where, with proof: the exit
code is the verdict); ``export`` prints a game as JSON or text; ``selfplay`` plays a
whole match through the engine alone.

The modules, one per group of commands: :mod:`~ginp2p.cli.command` (the parser and
:func:`main`), :mod:`~ginp2p.cli.network` (play, host, join, bot, resume, with
:mod:`~ginp2p.cli.lan` finding a host and :mod:`~ginp2p.cli.computer` running the
computer player), :mod:`~ginp2p.cli.records` (games, replay, audit, export),
:mod:`~ginp2p.cli.local` (keys, rules, selfplay), :mod:`~ginp2p.cli.values` (what the
options take) and :mod:`~ginp2p.cli.output` (the errors and printing they share).

Heavy modules (zmq, nacl, prompt_toolkit, the engine) are imported inside the
command functions, so ``ginp2p --help`` stays fast.
"""

from ginp2p.cli.command import build_parser, main
from ginp2p.cli.output import Problem, UsageError
from ginp2p.cli.records import NO_VERDICT
from ginp2p.cli.values import NAME_CHARS

__all__ = ["NAME_CHARS", "NO_VERDICT", "Problem", "UsageError", "build_parser", "main"]
