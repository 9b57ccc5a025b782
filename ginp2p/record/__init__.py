"""Reading a finished or unfinished game from its records: the audit (who cheated,
where, with proof), the replay a player steps through, and the export. Pure over
records already read; opening the files is :mod:`ginp2p.files.records`'s job.

From the records up: :mod:`~ginp2p.record.fold` (the records decoded, verified and
folded), :mod:`~ginp2p.record.audit` (the verdicts and who is to blame),
:mod:`~ginp2p.record.damage` (what the file lacks, in words),
:mod:`~ginp2p.record.report` (the report, as text and JSON),
:mod:`~ginp2p.record.replay` (the model a viewer steps through),
:mod:`~ginp2p.record.steps` (building it from the records) and
:mod:`~ginp2p.record.export` (the whole game as one document)."""
