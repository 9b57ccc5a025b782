"""The disk: the log file and its crash recovery, this player's identity and pinned
peers, the files that belong to a game, and the list of saved games. Everything under
the `GINP2P_HOME` folder is read and written here."""
