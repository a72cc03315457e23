"""One attempt of one item: prompt → adapter (under a deadline) → judge → row + transcript.

Faults inside the attempt (an adapter exception, a result of the wrong shape, a missed deadline,
a backend that fails to open) become runner-error rows; they never escape. The only exceptions
that escape are pytest's own outcomes (e.g. pytest-timeout's backstop) and KeyboardInterrupt;
the plugin turns those into rows in ``pytest_runtest_makereport``.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_ghxbench.api import BackendSession, RunRequest, RunResult
from pytest_ghxbench.attempt import retry
from pytest_ghxbench.attempt.backstop import STACKS_ATTR, is_backstop_timeout
from pytest_ghxbench.attempt.checkpoints import judge_workflow
from pytest_ghxbench.attempt.context import AttemptContext
from pytest_ghxbench.attempt.envelope import MAX_ANSWER_CHARS
from pytest_ghxbench.attempt.failures import ExcInfo, exception_text
from pytest_ghxbench.attempt.judge import Judgement, judge_atomic
from pytest_ghxbench.attempt.redact import secret_values_from_env
from pytest_ghxbench.attempt.rows import (
    ItemIdentity,
    finish_row,
    mark_mode_violation,
    outcome_data,
    result_problem,
    runner_error_data,
)
from pytest_ghxbench.attempt.transcripts import transcript_record
from pytest_ghxbench.backends.lazy import open_backend_session
from pytest_ghxbench.records.row import Row
from pytest_ghxbench.scenario.manifest import fixture_repo
from pytest_ghxbench.scenario.prompt import mode_instructions, render_prompt


@dataclass
class AttemptOutcome:
    row: Row
    row_json: str
    failures: list[str]
    answer_excerpt: str
    item_id: str = ""
    attempt: int = 1
    transcript_path: Path = Path()
    kind: str | None = None  # the retry policy's kind of the failure; None when it passed
    exc_info: ExcInfo | None = None  # the adapter's exception, from its run() down
    thread_stacks: list[tuple[str, str]] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return self.row.success and self.row.output_valid

    def release(self) -> None:
        """Drop the exception (and the adapter's frames it keeps alive) once it is reported."""
        self.exc_info = None


def _from_adapter_run(exc: BaseException) -> ExcInfo:
    """``exc`` with its traceback starting at the adapter's ``run`` (the first frame is
    :func:`run_attempt`'s own)."""
    tb = exc.__traceback__
    return type(exc), exc, tb.tb_next if tb is not None else None


def _prompt(
    session: AttemptContext, scenario: Any, bound_input: Mapping[str, Any], mode: str
) -> str:
    """The item's prompt; repetitions of a scenario in a mode share one rendering."""
    cache: dict[tuple[str, str], tuple[Mapping[str, Any], str]] = session.extra.setdefault(
        "prompts", {}
    )
    key = (scenario.id, mode)
    cached = cache.get(key)
    if cached is not None and cached[0] == bound_input:
        return cached[1]
    repo = fixture_repo(scenario, session.manifest)
    prompt = render_prompt(scenario, bound_input, mode, repo)
    cache[key] = (dict(bound_input), prompt)
    return prompt


def run_attempt(
    session: AttemptContext,
    identity: ItemIdentity,
    scenario: Any,
    bound_input: Mapping[str, Any],
    *,
    attempt: int,
) -> AttemptOutcome:
    settings = session.settings
    prompt = _prompt(session, scenario, bound_input, identity.mode)
    spec = settings.mode_table.get(identity.mode)
    overrides = settings.tables.get("mode_instructions")
    instructions = mode_instructions(identity.mode, overrides, spec)
    timeout_s = scenario.timeout_ms / 1000.0
    workdir = session.fresh_workdir()
    backend_session: BackendSession | None = None
    request = RunRequest(
        scenario=scenario,
        mode=identity.mode,
        prompt=prompt,
        instructions=instructions,
        timeout_s=timeout_s,
        iteration=identity.iteration,
        workdir=workdir,
        env={},
        backend=None,
        input=dict(bound_input),
        item_id=identity.item_id,
        model=settings.model,
        attempt=attempt,
        interface=spec,
    )
    result: RunResult | None = None
    judgement: Judgement | None = None
    error: str | None = None
    kind: str | None = None
    caught: ExcInfo | None = None
    stacks: list[tuple[str, str]] = []
    wall_ms = 0.0
    gaps: list[dict[str, Any]] = []
    try:
        if session.backend is not None:
            try:
                backend_session = open_backend_session(
                    session.backend, identity.item_id, workdir, identity.mode
                )
                request.backend = backend_session
                request.env = backend_session.env  # may be built lazily (sandbox)
            except Exception as exc:
                error = (
                    f"backend {session.backend.name!r} failed to open: {type(exc).__name__}: {exc}"
                )
                kind = retry.classify_message(error)
        if error is None:
            request.deadline = time.monotonic() + timeout_s
            started = time.perf_counter()
            raw: Any = None
            try:
                raw = session.adapter.run(request)
            except Exception as exc:
                caught = _from_adapter_run(exc)
                kind = retry.classify_exception(exc)
                error = f"adapter {session.adapter.name!r} raised {type(exc).__name__}: {exc}"
            except BaseException as exc:
                if not is_backstop_timeout(exc):
                    raise
                caught = _from_adapter_run(exc)
                stacks = list(getattr(exc, STACKS_ATTR, ()))
                kind = retry.TIMEOUT
                error = (
                    f"timeout: pytest-timeout stopped the adapter after "
                    f"{time.perf_counter() - started:.1f}s, past the {timeout_s:g}s deadline "
                    f"(timeout_ms={scenario.timeout_ms})"
                )
            wall_ms = (time.perf_counter() - started) * 1000.0
            gaps = sandbox_gaps(backend_session)  # the agent's, not the checkpoints' below
            if error is None:
                error = result_problem(raw, scenario.timeout_ms)
                kind = retry.ADAPTER_BUG if error is not None else None
                if error is None:
                    assert isinstance(raw, RunResult)
                    result = raw
                    if result.error:
                        error = f"adapter {session.adapter.name!r} reported: {result.error}"
                        kind = retry.classify_message(result.error)
                    elif wall_ms > timeout_s * 1000.0:
                        kind = retry.TIMEOUT
                        error = (
                            f"timeout: the agent ran {wall_ms / 1000:.1f}s, past the "
                            f"{timeout_s:g}s deadline (timeout_ms={scenario.timeout_ms})"
                        )
        if error is None and result is not None:
            judgement = _judge(scenario, identity.mode, result, bound_input, backend_session)
    finally:
        if backend_session is not None:
            try:
                backend_session.close()
            except Exception as exc:  # closing must not hide the outcome
                if error is None:
                    error = f"backend session failed to close: {type(exc).__name__}: {exc}"
                    kind = retry.classify_message(error)

    retries = attempt - 1
    if backend_session is not None and getattr(backend_session.env, "materialized", True):
        session.redactor.add(secret_values_from_env(backend_session.env))
    if error is not None or judgement is None or result is None:
        message = session.redactor.text(error or "no result")
        data = runner_error_data(
            identity, message, wall_ms=wall_ms, external_retry_count=retries, result=result
        )
        failures = [f"runner error: {message}"]
        kind = kind or retry.RUNNER_ERROR
    else:
        cost = float(result.cost_usd) if result.cost_usd is not None else 0.0
        data = outcome_data(
            identity,
            result=result,
            wall_ms=wall_ms,
            success=judgement.success,
            output_valid=judgement.output_valid,
            failures=judgement.failures,
            checkpoints=judgement.checkpoints,
            external_retry_count=retries,
            cost_usd=cost,
        )
        failures = list(judgement.failures)
        kind = None if judgement.success and judgement.output_valid else retry.WRONG_ANSWER
    violations = getattr(backend_session, "mode_violations", None) or []
    if violations:
        failures.insert(0, mark_mode_violation(data, violations))
        kind = retry.WRONG_ANSWER
    data["sandbox_gaps"] = gaps
    transcripts = session.transcripts
    data["transcript"] = {
        "file": transcripts.path.relative_to(session.run_dir.path).as_posix(),
        "attempt": attempt,
    }
    row, row_json = finish_row(data, session.redactor)
    record = transcript_record(
        request,
        result,
        judgement,
        error,
        kind=kind,
        traceback=exception_text(caught) if caught is not None else None,
        thread_stacks=stacks,
    )
    if not transcripts.write(record, row_json=row_json):
        del data["transcript"]  # the row must not point at a record that does not exist
        row, row_json = finish_row(data, session.redactor)
    final = result.final_text if result is not None else None
    excerpt = final[:MAX_ANSWER_CHARS] if isinstance(final, str) else ""
    return AttemptOutcome(
        row=row,
        row_json=row_json,
        failures=[session.redactor.text(f) for f in failures],
        answer_excerpt=session.redactor.text(excerpt[:2000]),
        item_id=identity.item_id,
        attempt=attempt,
        transcript_path=transcripts.path,
        kind=kind,
        exc_info=caught,
        thread_stacks=stacks,
    )


def sandbox_gaps(backend_session: BackendSession | None) -> list[dict[str, Any]]:
    """The item's sandbox gaps so far, from a backend session that has the notion (the
    sandbox's ``sandbox_gaps()``); none from one that has not (real GitHub)."""
    report = getattr(backend_session, "sandbox_gaps", None)
    return list(report()) if callable(report) else []


def _judge(
    scenario: Any,
    mode: str,
    result: RunResult,
    bound_input: Mapping[str, Any],
    backend_session: BackendSession | None,
) -> Judgement:
    if scenario.kind == "workflow":
        return judge_workflow(
            scenario,
            bound_input=bound_input,
            final_text=result.final_text,
            tool_call_count=len(result.tool_calls),
            run_task=backend_session.run_task if backend_session is not None else None,
        )
    return judge_atomic(
        scenario, mode=mode, final_text=result.final_text, tool_call_count=len(result.tool_calls)
    )
