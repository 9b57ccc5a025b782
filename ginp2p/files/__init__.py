"""The disk: the log file and its crash recovery, this player's identity and pinned
peers, the files that belong to a game, the list of saved games, and saved games read
for the audit, the replay and the export (:mod:`ginp2p.files.records`). Everything
under the `GINP2P_HOME` folder is read and written here."""
