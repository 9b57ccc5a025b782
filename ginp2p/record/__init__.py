"""Reading a finished or unfinished game from its records: the audit (who cheated,
where, with proof), the replay a player steps through, and the export. Pure over records
already read; opening the files is `ginp2p.files`'s job."""
