"""One sandbox backend (and so one API server) per test module, and an item of the mode the
module names in ``ITEM_MODE`` (``agent_direct`` when it names none)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_ghxbench.sandbox.backend import SandboxBackend, SandboxSession


@pytest.fixture(scope="module")
def backend() -> Iterator[SandboxBackend]:
    built = SandboxBackend()
    yield built
    built.close()


@pytest.fixture
def item(
    backend: SandboxBackend, tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[SandboxSession]:
    mode = getattr(request.module, "ITEM_MODE", "agent_direct")
    session = backend.open_session(f"{request.node.name}[{mode}]", tmp_path, mode=mode)
    yield session
    session.close()
