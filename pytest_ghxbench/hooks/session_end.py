"""Session end: rows → summary → gate → outputs and the exit status."""

from __future__ import annotations

import glob
import os
from dataclasses import dataclass
from pathlib import Path

import pytest

from pytest_ghxbench.compare import Comparison
from pytest_ghxbench.hooks.budget import Budget
from pytest_ghxbench.hooks.compare_runs import compare_with_base
from pytest_ghxbench.hooks.recorder import RowRecorder
from pytest_ghxbench.hooks.session import GhxSession
from pytest_ghxbench.metrics.summary import build_summary
from pytest_ghxbench.records.jsonl import read_rows
from pytest_ghxbench.records.models import GateResult, RunSummary
from pytest_ghxbench.records.row import Row
from pytest_ghxbench.records.store import RunDir, point_latest, runs_root, write_text_atomic
from pytest_ghxbench.render.markdown import render_markdown
from pytest_ghxbench.render.terminal import verdict_line
from pytest_ghxbench.runs.completeness import Completeness
from pytest_ghxbench.runs.integrity import seal_summary, verify_rows_files

_ORDINARY = (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED, pytest.ExitCode.NO_TESTS_COLLECTED)


@dataclass
class SessionEnd:
    """What the session's end produced: the summary, the exit status and why, the report."""

    completeness: Completeness
    summary: RunSummary
    exit_status: int
    why: str
    problems: list[str]
    """Things the session could not do that the verdict does not depend on (shown as notes)."""
    report: Path | None = None
    comparison: Comparison | None = None
    """The ``--ghx-compare`` result (``summary["comparison"]`` is its JSON)."""


def _baseline_rows(session: GhxSession, own: Path) -> tuple[list[Row], list[str]]:
    pattern = session.settings.baseline_rows
    if not pattern:
        return [], []
    paths = sorted(Path(p) for p in glob.glob(pattern, recursive=True))
    # the run's own rows are already in; transcripts are not rows
    paths = [p for p in paths if p.resolve() != own.resolve() and "transcripts" not in p.parts]
    if not paths:
        return [], [f"baseline rows: --ghx-baseline-rows {pattern!r} matched no files"]
    result = read_rows(paths)
    notes = [*map(str, result.problems), *result.warnings]
    return list(result.rows), [f"baseline rows: {note}" for note in notes]


def _unverified_baseline(session: GhxSession, own: Path) -> str:
    """Baseline rows that are not a whole, sealed run's never make the gate pass."""
    pattern = session.settings.baseline_rows
    if not pattern:
        return ""
    paths = sorted(Path(p) for p in glob.glob(pattern, recursive=True))
    paths = [p for p in paths if p.resolve() != own.resolve() and "transcripts" not in p.parts]
    verification = verify_rows_files(paths, pooling=False)
    if verification.verified:
        return ""
    return "unverified baseline rows: " + "; ".join(verification.problems)


def compute_exit_status(
    gate: GateResult,
    *,
    current: int,
    required: bool,
    strict: bool,
    failed_items: int,
    other_failures: int,
    blockers: str = "",
) -> tuple[int, str]:
    """The session's exit status and a short note on why (the verdict line adds the gate's own
    outcome and reason). ``blockers`` (an incomplete run, a harness error) make any ordinary
    outcome a failure: such a run is never a pass. pytest's own error status (2 for an
    interrupt, 3 for an internal error) is kept."""
    if current not in _ORDINARY:
        return current, _notes(
            blockers, f"pytest ended with exit status {current} before the gate could decide"
        )
    if gate.evaluated:
        if not gate.passed:
            return 1, blockers
        if strict and failed_items:
            return 1, _notes(blockers, f"--ghx-strict and {failed_items} item(s) failed")
        if other_failures:
            return 1, _notes(
                blockers,
                f"{other_failures} failure(s) outside the benchmark (tests, collection, hooks)",
            )
        tolerated = f"{failed_items} item failure(s) within tolerance" if failed_items else ""
        return (1 if blockers else 0), _notes(blockers, tolerated)
    if required:
        return 1, _notes(blockers, "gate required")
    if blockers:
        return 1, blockers
    return current, "advisory: pytest's own status applies"


def withhold_pass(gate: GateResult, blockers: str) -> bool:
    """A gate whose checks passed over the rows that exist does not pass a run with
    ``blockers``: it is marked failed with them as its reason (the checks stay as computed).
    True when it was."""
    if not blockers or not (gate.evaluated and gate.passed):
        return False
    gate.passed = False
    gate.reason = f"{blockers}; the checks over the rows that exist passed"
    return True


def _notes(*notes: str) -> str:
    return "; ".join(note for note in notes if note)


def finish_session(
    config: pytest.Config, session: GhxSession, recorder: RowRecorder, current_status: int
) -> SessionEnd:
    settings = session.settings
    earlier, problems = _baseline_rows(session, recorder.path)
    rows = earlier + recorder.all_rows()
    profile = session.profile
    run_info = {
        "run_id": session.run_id,
        "commit": session.git.get("commit"),
        "model": settings.model or getattr(session.adapter, "model", None),
        "adapter": session.adapter.name,
        "backend": session.backend.name if session.backend is not None else None,
        "profile": profile.name,
        "gate_required": settings.gate_required,
        "modes": list(session.modes),
        "reps": settings.reps,
        "scenario_set": settings.scenario_set,
        "run_dir": str(session.run_dir.path),
        "rows_file": str(recorder.path),
        "baseline_rows": settings.baseline_rows,
        "row_count": len(rows),
    }
    if session.resume is not None:
        run_info["resumed_items"] = len(session.resume.todo)
    summary = build_summary(
        rows,
        profile=profile,
        baseline=settings.baseline,
        candidate=settings.candidate,
        run_info=run_info,
    )
    _add_tool_surface(session, summary)
    _add_power_note(session, rows, summary, problems)
    budget = Budget.of(settings)
    if budget is not None:
        summary.run["budget"] = budget.block(recorder.spend, len(recorder.budget_skipped))
    completeness = recorder.completeness()
    summary.run["completeness"] = completeness.block()
    if recorder.harness:
        summary.run["harness_errors"] = recorder.harness.lines()
    seal_summary(summary, recorder.path)
    blockers = _notes(
        completeness.note(), recorder.harness.note(), _unverified_baseline(session, recorder.path)
    )
    withheld = withhold_pass(summary.gate, blockers)
    try:
        config.hook.pytest_ghxbench_summary(summary=summary, config=config)
    except Exception as exc:
        recorder.hook_errors.append(f"pytest_ghxbench_summary raised {type(exc).__name__}: {exc}")
    comparison = compare_with_base(session, list(recorder.rows.values()), problems)
    if comparison is not None:
        summary.comparison = comparison.model_dump(mode="json")
    gate = summary.gate
    if settings.shard is not None:
        # A shard holds some of the scenarios: its gate is information, and the merged run's
        # decides (ghxbench merge). The shard fails only for what went wrong in it.
        gate = gate.model_copy(update={"evaluated": True, "passed": True})
    elif withheld:
        gate = gate.model_copy(update={"passed": True})
    status, why = compute_exit_status(
        gate,
        current=current_status,
        required=settings.gate_required,
        strict=settings.strict,
        failed_items=recorder.failed_count(),
        other_failures=recorder.other_failures + len(recorder.hook_errors),
        blockers=blockers,
    )
    if withheld:  # the gate's reason says it; the rest of the notes stay
        why = why.removeprefix(blockers).removeprefix("; ")
    if settings.shard is not None:
        why = _notes(f"shard {settings.shard}: ghxbench merge gates the whole plan", why)
    if comparison is not None and comparison.failed:
        broken = f"{len(comparison.failed)} --ghx-compare-fail rule(s) broken"
        status, why = (
            (1, broken) if status == 0 else (status, f"{why}; {broken}" if why else broken)
        )
    summary.run["exit_status"] = status
    summary.run["verdict"] = verdict_line(summary, status, why)
    try:
        _write_outputs(session, summary)
    except OSError as exc:  # a full disk: the verdict stands, but it is not a pass
        failure = f"harness error: summary not written to {session.run_dir.path}: {exc}"
        problems.append(failure)
        status, why = (1 if status == 0 else status), _notes(why, failure)
        return SessionEnd(completeness, summary, status, why, problems, None, comparison)
    report = _write_report(session, problems)
    return SessionEnd(
        completeness=completeness,
        summary=summary,
        exit_status=status,
        why=why,
        problems=problems,
        report=report,
        comparison=comparison,
    )


def _write_report(session: GhxSession, problems: list[str]) -> Path | None:
    """The run's report.html; a report that cannot be made is said, and decides nothing."""
    from pytest_ghxbench.render.html.run_report import write_run_report

    try:
        return write_run_report(session.run_dir)
    except Exception as exc:
        problems.append(f"report.html not written: {type(exc).__name__}: {exc}")
        return None


def _add_power_note(
    session: GhxSession, rows: list[Row], summary: RunSummary, problems: list[str]
) -> None:
    """``run.power``: how often a true reduction of ``--ghx-power-effect`` would pass this
    gate at the run's noise, so an underpowered run is not read as a worse interface."""
    gate = summary.gate
    effect = session.settings.power_effect
    if not effect or not gate.evaluated:
        return
    from pytest_ghxbench.metrics.power import power_note

    try:
        note = power_note(
            rows,
            session.profile,
            effect_pct=effect,
            baseline=gate.baseline,
            candidate=gate.candidate,
        )
    except Exception as exc:  # a reporting extra must never break the verdict
        problems.append(f"power note not computed: {type(exc).__name__}: {exc}")
        return
    if note is not None:
        summary.run["power"] = note.to_json_dict()


def _add_tool_surface(session: GhxSession, summary: RunSummary) -> None:
    """An adapter that knows what each mode puts in front of the agent before any task (tool
    definitions and instructions) reports it through an optional ``tool_surface_tokens(mode,
    instructions)``; it often decides what a mode costs, so the summary shows it per mode."""
    surface = getattr(session.adapter, "tool_surface_tokens", None)
    if not callable(surface):
        return
    from pytest_ghxbench.scenario.prompt import mode_instructions

    overrides = session.settings.tables.get("mode_instructions")
    table = session.settings.mode_table
    for mode, metrics in summary.modes.items():
        if mode not in session.modes and mode not in session.adapter.modes:
            continue
        try:
            text = mode_instructions(mode, overrides, table.get(mode))
            metrics["tool_surface_tokens"] = int(surface(mode, text))
        except Exception:  # a reporting extra must never break the verdict
            metrics["tool_surface_tokens"] = None


def _write_outputs(session: GhxSession, summary: RunSummary) -> None:
    run = session.run_dir
    if session.resume is not None:
        note_resumed(run, len(session.resume.todo))
    clean = RunSummary.model_validate(session.redactor.obj(summary.to_json_dict()))
    run.write_summary(clean)
    markdown = session.redactor.text(render_markdown(clean))
    write_text_atomic(run.summary_md, markdown)
    if run.path.parent.resolve() == runs_root(session.settings.results_dir).resolve():
        point_latest(session.settings.results_dir, run)
    step_summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if step_summary:
        with open(step_summary, "a", encoding="utf-8") as handle:
            handle.write(markdown.rstrip("\n") + "\n\n")


def note_resumed(run: RunDir, items: int) -> None:
    """``run.json`` lists the sessions that resumed the run (``resumed``: when, how many items)."""
    spec = run.read_spec()
    if spec is None:
        return
    extra = spec.model_extra or {}
    resumed = [*(extra.get("resumed") or []), {"at": _now(), "items": items}]
    run.write_spec(spec.model_copy(update={"resumed": resumed}))


def _now() -> str:
    from datetime import datetime, timezone

    return datetime.now(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")
