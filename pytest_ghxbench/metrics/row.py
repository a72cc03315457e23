"""The metric row: one item's measured outcome (SPEC section 6)."""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

RUNNER_ERROR = "runner_error"
_TIMEOUT_STALL = re.compile(r"\b(timeout|timed out|stall|stalled)\b", re.IGNORECASE)


class TokenUsage(BaseModel):
    model_config = ConfigDict(extra="allow")

    input: int = 0
    output: int = 0
    reasoning: int = 0
    cache_read: int = 0
    cache_write: int = 0
    total: int = 0

    @property
    def active(self) -> int:
        return self.total - self.cache_read


class ModelInfo(BaseModel):
    model_config = ConfigDict(extra="allow", protected_namespaces=())

    provider_id: str = "unknown"
    model_id: str = "unknown"
    mode: str | None = None

    @property
    def signature(self) -> str:
        return f"{self.provider_id}/{self.model_id}"


class GitInfo(BaseModel):
    model_config = ConfigDict(extra="allow")

    repo: str | None = None
    commit: str | None = None


class RowError(BaseModel):
    model_config = ConfigDict(extra="allow")

    type: str
    message: str


class Row(BaseModel):
    """One item's outcome. Extra fields are kept (``item_id``, ``adapter``, ``checkpoints``...)."""

    model_config = ConfigDict(extra="allow", protected_namespaces=())

    timestamp: str
    run_id: str
    mode: str
    scenario_id: str
    scenario_set: str | None = None
    iteration: int = 0
    session_id: str | None = None
    success: bool
    output_valid: bool
    latency_ms_wall: float = 0.0
    sdk_latency_ms: float | None = None
    timing_breakdown: dict[str, Any] | None = None
    tokens: TokenUsage = Field(default_factory=TokenUsage)
    cost: float = 0.0
    tool_calls: int = 0
    api_calls: int = 0
    internal_retry_count: int = 0
    external_retry_count: int = 0
    model: ModelInfo = Field(default_factory=ModelInfo)
    git: GitInfo = Field(default_factory=GitInfo)
    error: RowError | None = None

    @property
    def is_runner_error(self) -> bool:
        return self.error is not None and self.error.type == RUNNER_ERROR

    @property
    def is_timeout_stall(self) -> bool:
        return self.is_runner_error and bool(
            _TIMEOUT_STALL.search(self.error.message if self.error else "")
        )

    @property
    def is_stable(self) -> bool:
        """Counts toward efficiency: succeeded, valid output, no runner error."""
        return self.success and self.output_valid and not self.is_runner_error

    def to_json_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json")
