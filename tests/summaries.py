"""Summaries as the renderers take them: a :class:`~pytest_ghxbench.RunSummary`."""

from __future__ import annotations

from typing import Any

from pytest_ghxbench.records.models import RunSummary

NO_ROWS = "no rows for baseline mode 'agent_direct' or candidate mode 'ghx'"


def bare_summary(**fields: Any) -> RunSummary:
    """The smallest valid summary, as ``build_summary`` makes it of no rows: no modes, no
    scenarios and a ``verify_pr`` gate of ghx against agent_direct that was not evaluated.
    ``fields`` replace its top-level fields (``gate`` is merged into the gate)."""
    gate = {
        "profile": "verify_pr",
        "baseline": "agent_direct",
        "candidate": "ghx",
        "evaluated": False,
        "passed": False,
        "reason": NO_ROWS,
        **fields.pop("gate", {}),
    }
    return RunSummary.model_validate(
        {"generated_at": "2026-03-04T12:00:00Z", "gate": gate, **fields}
    )
