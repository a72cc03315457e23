"""pytest-ghxbench: benchmark LLM agents on GitHub tasks across tool interfaces, gate in CI.

The public API is what this module exports; everything else is private.
"""

from typing import TYPE_CHECKING, Any

from pytest_ghxbench.api import (
    Adapter,
    AdapterUnavailable,
    Backend,
    BackendSession,
    ModeSpec,
    RunRequest,
    RunResult,
    Tokens,
    ToolCall,
    Usage,
)

if TYPE_CHECKING:
    from pytest_ghxbench.records.models import RunSummary
    from pytest_ghxbench.records.row import Row

__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    # `Row` and `RunSummary` pull in pydantic; the plugin entry point imports this package in
    # every pytest run, so the models load only when someone asks for them.
    if name == "Row":
        from pytest_ghxbench.records.row import Row

        return Row
    if name == "RunSummary":
        from pytest_ghxbench.records.models import RunSummary

        return RunSummary
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "Adapter",
    "AdapterUnavailable",
    "Backend",
    "BackendSession",
    "ModeSpec",
    "Row",
    "RunRequest",
    "RunResult",
    "RunSummary",
    "Tokens",
    "ToolCall",
    "Usage",
    "__version__",
]
