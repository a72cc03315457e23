"""Whether rows are the rows a whole run recorded: the run's seal and its verification.

At the end of a session (and of a merge or a resume) ``summary.json`` records the seal of the
run's rows file: its SHA-256 and its number of rows (``run.integrity``). Rows are **verified**
when they are a run directory's ``rows.jsonl`` whose seal matches its summary's, and the run
recorded its plan. Anything else is **unverified**: a rows file outside its run directory (a
copied artifact, a hand-made file, the TypeScript harness's rows), a run without a summary (it
never finished) or without a plan or seal (written by an older version), a rows file changed
after its run, or the rows of several runs pooled in one report. An unverified source never
makes a gate pass, unless the user says so (``--allow-unverified``).

The seal detects changes; it is no signature. Someone who edits the rows and writes the new
digest into ``summary.json`` is not stopped by it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_ghxbench.records.models import RunSpec, RunSummary
from pytest_ghxbench.records.store import RunDir

__all__ = [
    "INTEGRITY",
    "RowsSeal",
    "Verification",
    "problem_of_run",
    "seal_summary",
    "verify_rows_files",
]

INTEGRITY = "integrity"
"""The key of the seal in a summary's ``run`` block."""
_CHUNK = 1 << 20


@dataclass(frozen=True)
class RowsSeal:
    digest: str
    """``sha256:<hex>`` of the rows file's bytes."""
    rows: int
    """Its lines (one row each)."""

    @classmethod
    def of_file(cls, path: Path) -> RowsSeal:
        """The seal of ``path`` (an empty seal for a file that does not exist: no rows)."""
        digest = hashlib.sha256()
        lines = 0
        last = b"\n"
        try:
            with path.open("rb") as handle:
                while chunk := handle.read(_CHUNK):
                    digest.update(chunk)
                    lines += chunk.count(b"\n")
                    last = chunk[-1:]
        except FileNotFoundError:
            pass
        if last != b"\n":
            lines += 1  # a last line without its newline is still a line
        return cls("sha256:" + digest.hexdigest(), lines)

    def block(self) -> dict[str, Any]:
        return {"rows_digest": self.digest, "rows_count": self.rows}


def seal_summary(summary: RunSummary, rows_path: Path, unverified: Sequence[str] = ()) -> None:
    """Record the seal of ``rows_path`` in ``summary.run["integrity"]``, with the problems
    of sources that could not be verified (a merge of unverified runs)."""
    block = RowsSeal.of_file(rows_path).block()
    if unverified:
        block["unverified"] = list(unverified)
    summary.run[INTEGRITY] = block


@dataclass
class Verification:
    runs: list[RunDir] = field(default_factory=list)
    """The run directories the files belong to (in order, each once)."""
    problems: list[str] = field(default_factory=list)
    """Why the rows are unverified; empty when they are verified."""

    @property
    def verified(self) -> bool:
        return not self.problems


def problem_of_run(
    run: RunDir, spec: RunSpec | None = None, summary: RunSummary | None = None
) -> str | None:
    """Why the rows of ``run`` are unverified, or None when they are its sealed rows
    (``spec`` and ``summary``: the run's, when already read)."""
    try:
        spec = spec or run.read_spec()
        summary = summary or run.read_summary()
    except ValueError as exc:
        return f"run {run.run_id}: {exc}"
    if spec is None or spec.plan_digest is None:
        return f"run {run.run_id}: run.json records no plan (written before plans were recorded)"
    if summary is None:
        return f"run {run.run_id} did not finish (no summary.json): its rows are not sealed"
    seal = summary.run.get(INTEGRITY)
    if not isinstance(seal, dict) or "rows_digest" not in seal:
        return (
            f"run {run.run_id}: summary.json records no seal of its rows "
            "(written before rows were sealed)"
        )
    found = RowsSeal.of_file(run.rows_path)
    if (found.digest, found.rows) != (seal.get("rows_digest"), seal.get("rows_count")):
        return (
            f"run {run.run_id}: rows.jsonl changed after the run ({found.rows} rows, "
            f"{found.digest[:19]}…; summary.json sealed {seal.get('rows_count')} rows, "
            f"{str(seal.get('rows_digest'))[:19]}…)"
        )
    earlier = seal.get("unverified")
    if earlier:
        return f"run {run.run_id} was merged from unverified runs: {'; '.join(earlier)}"
    return None


def verify_rows_files(files: Sequence[Path], *, pooling: bool = True) -> Verification:
    """Verify the rows files a report reads (see the module's docstring); ``pooling``: the
    rows of several runs are a problem too."""
    result = Verification()
    seen: set[Path] = set()
    for file in files:
        run = RunDir(file.parent)
        if file.name != run.rows_path.name or not run.spec_path.is_file():
            result.problems.append(
                f"{file}: rows without their run's plan and summary (not a run directory's "
                "rows.jsonl)"
            )
            continue
        key = run.path.resolve()
        if key in seen:
            continue
        seen.add(key)
        result.runs.append(run)
        problem = problem_of_run(run)
        if problem is not None:
            result.problems.append(problem)
    if pooling and len(result.runs) > 1:
        names = ", ".join(run.run_id for run in result.runs[:4])
        more = ", ..." if len(result.runs) > 4 else ""
        result.problems.append(
            f"the rows of {len(result.runs)} runs ({names}{more}) are pooled: shards of one "
            "plan are combined with ghxbench merge"
        )
    return result
