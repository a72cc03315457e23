"""What a run writes and reads back, below every computation and rendering of it.

* :mod:`~pytest_ghxbench.records.row`: the metric row of one item (``gb.Row``);
* :mod:`~pytest_ghxbench.records.models`: the run log's versioned records (``run.json``, an
  item record of ``rows.jsonl``, ``summary.json``);
* :mod:`~pytest_ghxbench.records.store`: run directories (``<results>/runs/<run_id>/``);
* :mod:`~pytest_ghxbench.records.row_writer`, :mod:`~pytest_ghxbench.records.jsonl`,
  :mod:`~pytest_ghxbench.records.importers`: rows written to JSONL, read back (ours and the
  TypeScript harness's), and its CSV export;
* :mod:`~pytest_ghxbench.records.reading`: a run directory's items, transcripts and
  completeness, read back.

These modules import only :mod:`pytest_ghxbench.api` and :mod:`pytest_ghxbench.bounded_json`
of the package (see "Layers" in docs/contributing.md).
"""
