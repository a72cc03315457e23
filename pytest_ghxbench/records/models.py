"""The run log's records: one versioned pydantic model per record, both the disk format and the API.

A run directory (see :mod:`pytest_ghxbench.records.store`) holds:

* ``run.json``: the :class:`RunSpec`, written once when the session starts;
* ``rows.jsonl``: one :class:`ItemRecord` per item, appended as items finish. An item record is
  a :class:`~pytest_ghxbench.records.row.Row` (the TypeScript harness reads it, and its rows
  read as ours) plus what only this harness knows: the item id, its failures and checkpoints,
  and where its transcript is;
* ``summary.json``: the :class:`RunSummary`.

Every record carries ``schema_version``. A reader accepts every version up to
:data:`SCHEMA_VERSION` (rows written before the field existed are version 0 and read as rows)
and refuses a newer one with a message saying to upgrade.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from pytest_ghxbench.records.row import GitInfo, Row

__all__ = [
    "SCHEMA_VERSION",
    "GateCheck",
    "GateResult",
    "ItemRecord",
    "RunCompleteness",
    "RunSpec",
    "RunSummary",
    "TranscriptRef",
]

SCHEMA_VERSION = 1


def _known_version(value: int) -> int:
    if value > SCHEMA_VERSION:
        raise ValueError(
            f"schema_version {value} is newer than this pytest-ghxbench reads "
            f"({SCHEMA_VERSION}); upgrade pytest-ghxbench"
        )
    return value


class RunSpec(BaseModel):
    """What was run: written once, before the first item, as ``run.json``."""

    model_config = ConfigDict(extra="allow", protected_namespaces=())

    schema_version: int = SCHEMA_VERSION
    run_id: str
    started_at: str
    adapter: str
    backend: str | None = None
    model: str | None = None
    modes: list[str] = Field(default_factory=list)
    reps: int = 1
    scenario_root: str | None = None
    scenario_set: str | None = None
    gate_profile: str | None = None
    gate_required: bool = False
    baseline: str | None = None
    candidate: str | None = None
    versions: dict[str, str | None] = Field(default_factory=dict)
    """pytest-ghxbench, pytest and the real clients the modes run (gh, github-mcp-server)."""
    git: GitInfo = Field(default_factory=GitInfo)
    options: dict[str, Any] = Field(default_factory=dict)
    """The command line, as given (secrets redacted)."""
    plan: list[str] | None = None
    """The benchmark items selected (after ``-k``, ``-m``, ``--deselect``, ``--lf`` and sets),
    before sharding; ``None`` in a run written before plans were recorded, or until the
    session has collected its items."""
    plan_digest: str | None = None
    """``sha256:`` of the plan (:func:`pytest_ghxbench.runs.plan.plan_digest`)."""
    shard: dict[str, Any] | None = None
    """``{index, count, balanced_by, items}`` of a ``--ghx-shard`` run; ``None`` otherwise."""
    isolation: dict[str, str] | None = None
    """``{kind, detail, requested}``: whether the run's agents ran jailed (``jail``, with
    bubblewrap's version) or not (``none``, with the reason); ``None`` in an earlier run."""
    interfaces: dict[str, dict[str, Any]] | None = None
    """Mode -> ``{kind, client, version}`` (and ``tools``, the count, for an MCP server): the
    client each mode ran, as it said (a CLI's ``--version``, a server's ``serverInfo``);
    ``None`` where the backend does not say (an earlier run, a third-party backend)."""

    _check_version = field_validator("schema_version")(_known_version)

    def share(self) -> list[str] | None:
        """The items this run is to produce rows for: its shard's, else the whole plan."""
        if self.shard is not None and isinstance(self.shard.get("items"), list):
            return [str(item) for item in self.shard["items"]]
        return self.plan


class TranscriptRef(BaseModel):
    """Where an item's transcript is: a JSONL file relative to the run directory, and the
    attempt whose record it is (the file holds one record per attempt)."""

    file: str
    attempt: int = 1


class ItemRecord(Row):
    """One item's row as this harness writes it: a :class:`Row` and what only it knows."""

    schema_version: int = SCHEMA_VERSION
    item_id: str | None = None
    adapter: str | None = None
    backend: str | None = None
    scenario_type: str | None = None
    failures: list[str] = Field(default_factory=list)
    checkpoints: list[dict[str, Any]] = Field(default_factory=list)
    transcript: TranscriptRef | None = None

    _check_version = field_validator("schema_version")(_known_version)

    @classmethod
    def of_row(cls, row: Row) -> ItemRecord:
        """``row`` as an item record (a row read from an older file or another harness gets
        schema version 0 and the defaults)."""
        if isinstance(row, ItemRecord):
            return row
        data = row.model_dump()
        data.setdefault("schema_version", 0)
        return cls.model_validate(data)


class GateCheck(BaseModel):
    model_config = ConfigDict(extra="allow")

    name: str
    passed: bool
    value: float | None = None
    threshold: float | None = None
    operator: str


class GateResult(BaseModel):
    model_config = ConfigDict(extra="allow")

    profile: str
    baseline: str
    candidate: str
    evaluated: bool
    passed: bool = False
    reason: str = ""
    reliability: dict[str, Any] = Field(default_factory=dict)
    efficiency: dict[str, Any] = Field(default_factory=dict)
    checks: list[GateCheck] = Field(default_factory=list)


class RunCompleteness(BaseModel):
    """``run.completeness`` of a summary: did every selected item produce a row?

    ``missing_items`` are items with neither a row nor a skip of their own (the run stopped
    early, crashed workers were not replaced, the budget ran out); ``reason`` says why. A run
    with ``complete`` false never passes its gate."""

    model_config = ConfigDict(extra="allow")

    expected_items: int
    ran_items: int
    skipped_items: int = 0
    missing_items: int = 0
    reason: str = ""
    complete: bool


class RunSummary(BaseModel):
    """``summary.json``: per-mode and per-scenario metrics, the gate and the run it describes.

    Built once at the end of a session (or by ``ghxbench report`` and ``ghxbench merge``) and
    handed as this object to the ``pytest_ghxbench_summary`` hook and to every renderer. The
    metric tables stay mappings of metric name to value (SPEC section 8 names them; a report
    adds its own), so the model types what every reader relies on and keeps the rest.
    """

    model_config = ConfigDict(extra="allow")

    schema_version: int = SCHEMA_VERSION
    generated_at: str
    run: dict[str, Any] = Field(default_factory=dict)
    modes: dict[str, dict[str, Any]] = Field(default_factory=dict)
    scenarios: dict[str, dict[str, dict[str, Any]]] = Field(default_factory=dict)
    delta: dict[str, Any] = Field(default_factory=dict)
    gate: GateResult
    comparison: dict[str, Any] | None = None
    """The ``--ghx-compare`` result, when the session compared itself with a base run."""

    _check_version = field_validator("schema_version")(_known_version)

    @field_validator("run")
    @classmethod
    def _check_completeness(cls, run: dict[str, Any]) -> dict[str, Any]:
        block = run.get("completeness")
        if block is not None:
            run["completeness"] = RunCompleteness.model_validate(block).model_dump()
        return run

    @property
    def completeness(self) -> RunCompleteness | None:
        """The run's completeness; None for a summary that does not record it (one written
        before it was recorded, or ``ghxbench report``'s of rows files)."""
        block = self.run.get("completeness")
        return None if block is None else RunCompleteness.model_validate(block)

    def to_json_dict(self) -> dict[str, Any]:
        """The JSON document, exactly as ``summary.json`` holds it."""
        data = self.model_dump(mode="json", exclude_none=False)
        if data.get("comparison") is None:
            del data["comparison"]
        return data
