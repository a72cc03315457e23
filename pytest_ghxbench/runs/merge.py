"""Merging the runs of one plan (the shards of a CI matrix) into one run directory.

The merged directory is a run like any other: ``run.json`` with the whole plan, ``rows.jsonl``
(every source's rows, byte for byte but for where their transcript now is), ``transcripts/``
(each source's files, prefixed with its run id), and ``summary.json``, ``summary.md`` and
``report.html`` computed once, over all rows, with the gate evaluated once. Completeness is
counted against the whole plan: a shard that is not there leaves its items without a row, and
the merged run is incomplete, which never passes.

What is refused, with one line and nothing written: a directory that is no run, a run that
records no plan, runs of different plans (or adapters, backends, models, gate choices), and the
same item in two runs. A run whose rows are unverified (it never finished, or its rows changed
after it) is left out with a warning, so its items are missing (``--allow-unverified`` takes it
in, and the merged run records it as unverified: it never passes).
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_ghxbench.records.models import RunSpec, RunSummary
from pytest_ghxbench.records.store import RunDir
from pytest_ghxbench.runs.completeness import Completeness, StopReasons
from pytest_ghxbench.runs.integrity import problem_of_run

__all__ = [
    "MergeError",
    "MergedPlan",
    "Source",
    "find_runs",
    "merged_plan",
    "read_sources",
    "write_merged_rows",
]

# Must agree across the merged runs: what was measured, and how it is judged.
_SAME = ("adapter", "backend", "model", "gate_profile", "baseline", "candidate")
_TRANSCRIPT_REF = re.compile(rb'("transcript"\s*:\s*\{\s*"file"\s*:\s*"transcripts/)')
_ITEM_ID = re.compile(rb'"item_id"\s*:\s*("(?:[^"\\]|\\.)*")')


class MergeError(ValueError):
    """Runs that cannot be merged (one line saying why)."""


@dataclass
class Source:
    run: RunDir
    spec: RunSpec
    summary: RunSummary | None
    problem: str | None = None
    """Why its rows are unverified; None when they are a whole, sealed run's."""

    @property
    def label(self) -> str:
        shard = self.spec.shard
        where = f"shard {shard['index']}/{shard['count']}" if shard else "the whole plan"
        return f"{self.spec.run_id} ({where})"


def find_runs(paths: Sequence[Path]) -> list[RunDir]:
    """The run directories named: each path is one (it has ``run.json``) or holds some (a
    download folder of artifacts); every run once."""
    found: dict[Path, RunDir] = {}
    for path in paths:
        if (path / "run.json").is_file():
            candidates = [path]
        elif path.is_dir():
            candidates = sorted(
                spec.parent for spec in path.rglob("run.json") if not spec.parent.is_symlink()
            )
        else:
            candidates = []
        if not candidates:
            raise MergeError(f"{path} is not a run directory and holds none (no run.json)")
        for candidate in candidates:
            found.setdefault(candidate.resolve(), RunDir(candidate))
    return list(found.values())


def _source(run: RunDir) -> Source:
    try:
        spec = run.read_spec()
        summary = run.read_summary()
    except ValueError as exc:
        raise MergeError(str(exc)) from None
    assert spec is not None
    if spec.plan is None or spec.plan_digest is None:
        raise MergeError(
            f"run {spec.run_id} in {run.path} records no plan (written before plans were "
            "recorded, or stopped before collecting): it cannot be merged"
        )
    return Source(run, spec, summary, problem_of_run(run, spec, summary))


def read_sources(paths: Sequence[Path]) -> list[Source]:
    """The runs to merge, checked to be parts of one plan; :class:`MergeError` otherwise."""
    sources: list[Source] = []
    for run in find_runs(paths):
        source = _source(run)
        if sources and source.spec.shard is not None:
            # the first run's plan stands for all (their digests must match); a shard's share
            # is its own items: 20 copies of a 100,000-item plan would be 250 MB
            source.spec.plan = None
        sources.append(source)
    first = sources[0]
    for other in sources[1:]:
        if other.spec.plan_digest != first.spec.plan_digest:
            raise MergeError(
                f"runs of different plans: {first.label} has plan {first.spec.plan_digest}, "
                f"{other.label} has {other.spec.plan_digest}; merge the shards of one run, "
                "started with the same selection"
            )
        for key in _SAME:
            if getattr(other.spec, key) != getattr(first.spec, key):
                raise MergeError(
                    f"runs {first.spec.run_id} and {other.spec.run_id} differ in {key} "
                    f"({getattr(first.spec, key)!r} and {getattr(other.spec, key)!r})"
                )
    owner: dict[str, Source] = {}
    for source in sources:
        for item in source.spec.share() or []:
            earlier = owner.setdefault(item, source)
            if earlier is not source:
                raise MergeError(
                    f"item {item.rsplit('::', 1)[-1]} is in {earlier.label} and in "
                    f"{source.label}: merge each shard once"
                )
    return sources


def write_merged_rows(sources: Sequence[Source], out: RunDir) -> list[str]:
    """Write the sources' rows into ``out``'s rows file, and their transcripts beside them;
    the ids of the items that have a row."""
    out.transcripts_dir.mkdir(parents=True, exist_ok=True)
    items: list[str] = []
    with out.rows_path.open("wb") as rows:
        for source in sources:
            prefix = rb"\g<1>" + f"{source.spec.run_id}.".encode().replace(b"\\", b"\\\\")
            try:
                data = source.run.rows_path.read_bytes()
            except FileNotFoundError:
                data = b""
            if data and not data.endswith(b"\n"):
                data += b"\n"
            rows.write(_TRANSCRIPT_REF.sub(prefix, data))
            items.extend(map(_text, _ITEM_ID.findall(data)))
            for transcript in source.run.transcript_files():
                target = out.transcripts_dir / f"{source.spec.run_id}.{transcript.name}"
                shutil.copyfile(transcript, target)
    return items


def _text(quoted: bytes) -> str:
    """A JSON string's value (most ids have no escapes to decode)."""
    if b"\\" in quoted:
        value: str = json.loads(quoted)
        return value
    return quoted[1:-1].decode("utf-8")


@dataclass
class MergedPlan:
    """The whole plan of the merged runs and what the merge found of it."""

    spec: RunSpec
    completeness: Completeness
    harness_errors: list[str] = field(default_factory=list)


def merged_plan(
    sources: Sequence[Source], taken: Sequence[Source], rows: Sequence[str], run_id: str
) -> MergedPlan:
    """The merged run's spec and its completeness against the whole plan (``taken``: the
    sources whose rows it holds)."""
    first = sources[0].spec
    skipped: set[str] = set()
    harness: list[str] = []
    for source in taken:
        block = source.summary.run if source.summary is not None else {}
        skipped.update((block.get("completeness") or {}).get("skipped_ids") or [])
        harness.extend(block.get("harness_errors") or [])
    shards = {s.spec.shard["index"] for s in taken if s.spec.shard}
    count = next((s.spec.shard["count"] for s in sources if s.spec.shard), None)
    absent = [f"{k}/{count}" for k in range(1, (count or 0) + 1) if k not in shards]
    why = StopReasons(stopped=f"shard(s) {', '.join(absent)} not merged" if absent else None)
    completeness = Completeness.of(
        expected=first.plan,
        expected_count=None,
        rows=rows,
        skipped=skipped,
        budget_skipped=(),
        why=why,
    )
    extra: dict[str, Any] = first.model_extra or {}
    spec = RunSpec(
        run_id=run_id,
        started_at=min(s.spec.started_at for s in sources),
        adapter=first.adapter,
        backend=first.backend,
        model=first.model,
        modes=first.modes,
        reps=first.reps,
        scenario_root=first.scenario_root,
        scenario_set=first.scenario_set,
        gate_profile=first.gate_profile,
        gate_required=first.gate_required,
        baseline=first.baseline,
        candidate=first.candidate,
        versions=first.versions,
        git=first.git,
        plan=first.plan,
        plan_digest=first.plan_digest,
        merged_from=[
            {
                "run_id": s.spec.run_id,
                "shard": f"{s.spec.shard['index']}/{s.spec.shard['count']}"
                if s.spec.shard
                else None,
                "unverified": s.problem,
            }
            for s in taken
        ],
        strict=extra.get("strict", False),
        profile=extra.get("profile"),
    )
    return MergedPlan(spec, completeness, harness)
