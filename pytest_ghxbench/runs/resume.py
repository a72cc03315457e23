"""``--ghx-resume=RUN_DIR``: finish a run that stopped early, paying only for what is missing.

The resumed run's plan says which items it is to produce rows for (its shard's, or the whole
plan). Items with a row there are done, unless the row is a runner error (an agent that
crashed, timed out or could not start, a worker that died): those, and items without a row,
are run again. The new rows are appended to the run's ``rows.jsonl`` (a later row of an item
replaces its earlier one, as readers already do), the transcripts go to new files beside the
old ones, and at the end the run's summary, gate and report are computed again over all of its
rows, against its whole plan.

The controller decides what to run when the session starts and hands the list to xdist
workers, so a worker started later (after a crash) collects the same items as the first ones.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_ghxbench.records.models import RunSpec
from pytest_ghxbench.records.row import Row
from pytest_ghxbench.records.store import RunDir

__all__ = ["WORKER_KEY", "Resume", "ResumeError", "open_resume"]

WORKER_KEY = "ghxbench_resume"
"""workerinput key: ``{"todo": [...], "tag": "resume1"}``."""

_SAME = (("adapter", "--ghx-adapter"), ("backend", "--ghx-backend"), ("model", "--ghx-model"))


class ResumeError(ValueError):
    """The directory cannot be resumed (one line saying why)."""


@dataclass
class Resume:
    run: RunDir
    spec: RunSpec
    todo: list[str]
    """The share's items to run: without a row, or whose row is a runner error."""
    tag: str
    """Names this session's transcript files (``main.resume1.jsonl``)."""
    earlier: dict[str, Row] = field(default_factory=dict)
    """The run's last row of each item, as it was when the session started."""

    @property
    def share(self) -> list[str]:
        return self.spec.share() or []

    def worker_input(self) -> dict[str, Any]:
        return {"todo": list(self.todo), "tag": self.tag}


def _spec_of(path: Path) -> tuple[RunDir, RunSpec]:
    run = RunDir(path)
    if not path.is_dir() or not run.spec_path.is_file():
        raise ResumeError(f"{path} is not a run directory (it has no run.json)")
    try:
        spec = run.read_spec()
    except ValueError as exc:
        raise ResumeError(str(exc)) from None
    assert spec is not None
    if spec.plan is None or spec.plan_digest is None:
        raise ResumeError(
            f"run {spec.run_id} in {path} records no plan (it was written by an older "
            "pytest-ghxbench, or stopped before collecting): run it again instead"
        )
    return run, spec


def _earlier_rows(run: RunDir) -> dict[str, Row]:
    from pytest_ghxbench.records.jsonl import read_rows

    if not run.rows_path.is_file():
        return {}
    rows: dict[str, Row] = {}
    for row in read_rows([run.rows_path]).rows:  # a later row of an item replaces an earlier one
        item_id = (row.model_extra or {}).get("item_id")
        if isinstance(item_id, str):
            rows[item_id] = row
    return rows


def open_resume(
    path: Path,
    *,
    adapter: str,
    backend: str | None,
    model: str | None,
    shard: str | None,
    worker: dict[str, Any] | None = None,
) -> Resume:
    """The run at ``path`` and what this session is to run of it (``worker``: what the
    controller decided, in an xdist worker). :class:`ResumeError` when it is no run, records
    no plan, or was run with another adapter, backend, model or shard."""
    run, spec = _spec_of(path)
    given = {"adapter": adapter, "backend": backend, "model": model}
    for key, flag in _SAME:
        recorded = getattr(spec, key)
        if given[key] != recorded and not (key == "model" and given[key] is None):
            raise ResumeError(
                f"run {spec.run_id} was run with {flag}={recorded}, this session has "
                f"{given[key]}: resume it with the options it was run with"
            )
    recorded_shard = spec.shard
    if shard is not None:
        own = f"{recorded_shard['index']}/{recorded_shard['count']}" if recorded_shard else None
        if shard != own:
            raise ResumeError(
                f"run {spec.run_id} is {'shard ' + own if own else 'not a shard'}; "
                f"--ghx-shard={shard} does not match it (leave --ghx-shard out: a resumed run "
                "keeps its own share)"
            )
    if worker is not None:
        return Resume(run, spec, list(worker["todo"]), str(worker["tag"]))
    earlier = _earlier_rows(run)
    todo = [item for item in spec.share() or [] if _needs_a_row(earlier.get(item))]
    tag = f"resume{len(spec.model_extra.get('resumed') or []) + 1 if spec.model_extra else 1}"
    return Resume(run, spec, todo, tag, earlier)


def _needs_a_row(row: Row | None) -> bool:
    return row is None or row.is_runner_error


def missing_from_selection(todo: Sequence[str], selected: Sequence[str]) -> list[str]:
    """Items the resumed run needs that this session did not select (other ``-k`` or modes)."""
    chosen = set(selected)
    return [item for item in todo if item not in chosen]
