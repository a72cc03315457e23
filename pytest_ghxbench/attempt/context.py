"""What one attempt needs of the session it runs in.

The session (:class:`pytest_ghxbench.hooks.session.GhxSession`) provides it; the attempt
pipeline depends on this protocol, not on the pytest-facing session, so the layers point one way.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

from pytest_ghxbench.api import Adapter, Backend
from pytest_ghxbench.attempt.redact import Redactor
from pytest_ghxbench.attempt.transcripts import TranscriptWriter
from pytest_ghxbench.options import Settings
from pytest_ghxbench.records.store import RunDir


class AttemptContext(Protocol):
    """The session as an attempt sees it."""

    settings: Settings
    adapter: Adapter
    backend: Backend | None
    manifest: Mapping[str, Any] | None
    redactor: Redactor
    extra: dict[str, Any]
    """Per-process caches (the rendered prompts, the transcript writer, the scratch dir)."""

    @property
    def run_dir(self) -> RunDir: ...

    @property
    def transcripts(self) -> TranscriptWriter: ...

    def fresh_workdir(self) -> Path:
        """An empty scratch directory for one attempt."""
        ...
