"""Hook specifications of pytest-ghxbench.

Implement them in a ``conftest.py`` or a plugin. The row and summary hooks are called only in the
process that owns the session (the xdist controller, or the single process), so implementers
never have to think about workers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from pytest_ghxbench.api import Adapter, Backend
    from pytest_ghxbench.records.models import RunSummary
    from pytest_ghxbench.records.row import Row


@pytest.hookspec
def pytest_ghxbench_adapters(config: pytest.Config) -> Sequence[Adapter]:  # type: ignore[empty-body]
    """Contribute agent adapters, selectable with ``--ghx-adapter=NAME``.

    An adapter is any object with ``name``, ``modes`` (the modes it can drive) and
    ``run(request) -> RunResult``. Every implementation's list is merged; a later name does
    not replace an earlier one, it is a usage error.

    .. code-block:: python

        def pytest_ghxbench_adapters(config):
            return [MyAdapter()]
    """


@pytest.hookspec
def pytest_ghxbench_backends(config: pytest.Config) -> Sequence[Backend]:  # type: ignore[empty-body]
    """Contribute backends (where GitHub state lives), selectable with ``--ghx-backend=NAME``."""


@pytest.hookspec
def pytest_ghxbench_profiles(config: pytest.Config) -> Mapping[str, Mapping[str, Any]]:  # type: ignore[empty-body]
    """Contribute gate profiles.

    Example: ``{"nightly": {"extends": "verify_pr", "efficiency_coverage": 50}}``.

    Keys are check names or ``min_samples_per_scenario_per_mode``; ``extends`` names the profile
    to start from (default ``verify_pr``). Config (``[tool.ghxbench.profiles]``) wins over hooks.
    """


@pytest.hookspec
def pytest_ghxbench_row(row: Row, item: pytest.Item | None) -> None:
    """Called once per item with its final row, as soon as it is recorded.

    ``item`` is the collected item in a single-process run and ``None`` under xdist (the
    controller has no items) or for rows synthesised from a crashed worker. Do not mutate the row.
    """


@pytest.hookspec
def pytest_ghxbench_summary(summary: RunSummary, config: pytest.Config) -> None:
    """Called with the session's summary before the verdict is printed.

    ``summary`` is the :class:`~pytest_ghxbench.RunSummary` that ``summary.json`` is written from
    and every report is rendered from: ``summary.gate`` (passed, checks...), ``summary.modes``
    and ``summary.scenarios`` (metric name to value), ``summary.run``. ``summary.to_json_dict()``
    gives the JSON document. The gate's checks are already evaluated; treat it as read-only.
    """
