"""``--ghx-compare``: the base run is found when the session starts (before this run becomes
``latest``), and compared with this run's rows when it ends."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from pytest_ghxbench.compare import Comparison, compare_runs, parse_fail_rule
from pytest_ghxbench.hooks.session import GhxSession
from pytest_ghxbench.metrics.table import RowTable
from pytest_ghxbench.records.jsonl import read_row_records
from pytest_ghxbench.records.row import Row
from pytest_ghxbench.records.store import LATEST, RunDir, RunNotFound, resolve_run

_BASE_KEY = "compare_base"


def find_base_run(session: GhxSession) -> list[str]:
    """Resolve ``--ghx-compare`` into the session; returns header lines to show.

    A run id that names no run is a usage error. ``latest`` with no earlier run is not: the
    first run of a project has nothing to compare with, and says so."""
    ref = session.settings.compare
    if ref is None:
        return []
    try:
        base = resolve_run(session.settings.results_dir, ref)
    except RunNotFound as exc:
        if ref == LATEST:
            session.extra[_BASE_KEY] = None
            return [f"ghxbench: --ghx-compare=latest: nothing to compare with yet ({exc})"]
        raise pytest.UsageError(f"ghxbench: --ghx-compare: {exc}") from None
    session.extra[_BASE_KEY] = base
    return [f"ghxbench: comparing with run {base.run_id} ({base.path})"]


def compare_with_base(
    session: GhxSession, rows: Sequence[Row], problems: list[str]
) -> Comparison | None:
    """This run's rows against the base run's, with the ``--ghx-compare-fail`` rules applied;
    ``None`` without a base. A base that cannot be read is a problem, not a comparison."""
    base: RunDir | None = session.extra.get(_BASE_KEY)
    if base is None or not rows:
        return None
    read = read_row_records([base.rows_path])
    if read.problems:
        problems.extend(f"compare: {problem}" for problem in read.problems)
    if not read.records:
        problems.append(f"compare: run {base.run_id} has no readable rows; nothing compared")
        return None
    return compare_runs(
        RowTable.from_records(read.records),
        RowTable(rows),
        base_run=base.run_id,
        run=session.run_id,
        rules=[parse_fail_rule(rule) for rule in session.settings.compare_fail],
    )
