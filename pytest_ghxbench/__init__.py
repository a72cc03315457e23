"""pytest-ghxbench: benchmark LLM agents on GitHub tasks across tool interfaces, gate in CI.

The public API is what this module exports; everything else is private.
"""

from pytest_ghxbench.api import (
    Adapter,
    AdapterUnavailable,
    Backend,
    BackendSession,
    RunRequest,
    RunResult,
    Tokens,
    ToolCall,
)
from pytest_ghxbench.metrics.row import Row

__version__ = "0.1.0"

__all__ = [
    "Adapter",
    "AdapterUnavailable",
    "Backend",
    "BackendSession",
    "Row",
    "RunRequest",
    "RunResult",
    "Tokens",
    "ToolCall",
    "__version__",
]
