"""Row builders for the comparison tests: whole runs as RowTables, from Rows or plain records."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from pytest_ghxbench.metrics.table import RowTable
from pytest_ghxbench.records.row import Row, RowRecord
from tests.metrics.factory import make_row


def table(*groups: Iterable[Row]) -> RowTable:
    return RowTable([row for group in groups for row in group])


def rows(
    count: int,
    mode: str = "ghx",
    scenario: str = "s-001",
    *,
    tokens: Sequence[int] | int = 1000,
    latency: Sequence[float] | float = 1000.0,
    failures: int = 0,
    **fields: object,
) -> list[Row]:
    """``count`` rows of one scenario in one mode; ``tokens``/``latency`` a value per row or one
    for all; the first ``failures`` rows are unsuccessful."""
    token_values = [tokens] * count if isinstance(tokens, int) else list(tokens)
    latency_values = [latency] * count if isinstance(latency, float | int) else list(latency)
    return [
        make_row(
            mode,
            scenario,
            iteration=index,
            tokens=token_values[index],
            latency=latency_values[index],
            success=index >= failures,
            **fields,  # type: ignore[arg-type]
        )
        for index in range(count)
    ]


def noisy(count: int, centre: float, spread: float, seed: int) -> list[int]:
    """``count`` lognormal integers with median about ``centre`` and log-sd ``spread``."""
    rng = np.random.default_rng(seed)
    return [int(value) for value in np.rint(centre * rng.lognormal(0.0, spread, count))]


def records(
    scenario: str,
    latencies: Iterable[float],
    mode: str = "ghx",
    successes: Iterable[bool] | None = None,
) -> list[RowRecord]:
    """Plain records (fast to build in bulk) with the given latencies, all else constant."""
    values = list(latencies)
    flags = [True] * len(values) if successes is None else list(successes)
    return [
        RowRecord(
            mode, scenario, "openai", "gpt-test", flag, flag, 0, None, None, 1000, 0, value, 1, 0.01
        )
        for value, flag in zip(values, flags, strict=True)
    ]
