"""The rules of the game, pure and deterministic: cards, melds, the rule sets, one hand
(the engine), a match of hands, and the computer player. Nothing here reads a clock, a
file, the network or randomness that is not passed in; nothing here imports any other
part of ginp2p."""
