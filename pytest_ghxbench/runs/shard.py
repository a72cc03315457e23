"""``--ghx-shard=K/N``: the K-th of N deterministic shares of a run's plan (the spec itself is
:mod:`pytest_ghxbench.shard_spec`).

A share is made of whole scenarios: every mode and repetition of a scenario lands in the same
shard, so the per-scenario pairing of the gate holds within a shard and the merged run pairs
exactly as an unsharded one. Scenarios are placed longest first on the shard with the least
expected time so far (ties: the lower shard), which depends only on the plan and the weights:
every shard job, and every xdist worker inside one, computes the same split.

The weight of an item is its scenario's ``timeout_ms`` (what it may take), or, with
``--ghx-shard-durations=RUN_DIR``, what items like it took in that earlier run.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from pytest_ghxbench.attempt.rows import parse_item_name
from pytest_ghxbench.shard_spec import ShardSpecError

__all__ = ["durations_from_run", "split_plan", "weights_by_timeout"]


def _scenario_of(item_id: str) -> str:
    parsed = parse_item_name(item_id)
    return parsed[0] if parsed is not None else item_id


def split_plan(items: Sequence[str], count: int, weight: Callable[[str], float]) -> list[list[str]]:
    """The plan's items in ``count`` shares (each in plan order), whole scenarios each."""
    groups: dict[str, list[str]] = {}
    for item in items:
        groups.setdefault(_scenario_of(item), []).append(item)
    weighted = sorted(
        ((sum(weight(item) for item in members), scenario) for scenario, members in groups.items()),
        key=lambda pair: (-pair[0], pair[1]),
    )
    loads = [0.0] * count
    home: dict[str, int] = {}
    for total, scenario in weighted:
        lightest = min(range(count), key=lambda shard: (loads[shard], shard))
        loads[lightest] += total
        home[scenario] = lightest
    shares: list[list[str]] = [[] for _ in range(count)]
    for item in items:
        shares[home[_scenario_of(item)]].append(item)
    return shares


def durations_from_run(run_dir: Path) -> Callable[[str], float]:
    """Expected milliseconds of an item from an earlier run's rows: the mean time (startup and
    latency) of that scenario in that mode there, else of the scenario, else the median over
    the scenario x mode means. :class:`ShardSpecError` when ``run_dir`` holds no readable
    rows."""
    from pytest_ghxbench.records.jsonl import RowSourceError, read_rows

    rows_path = run_dir / "rows.jsonl"
    try:
        rows = read_rows([rows_path]).rows
    except RowSourceError:
        raise ShardSpecError(f"{run_dir} is not a run directory (no rows.jsonl)") from None
    if not rows:
        raise ShardSpecError(f"{rows_path} holds no readable rows")
    by_mode: dict[tuple[str, str], list[float]] = {}
    by_scenario: dict[str, list[float]] = {}
    for row in rows:
        took = float(row.latency_ms_wall) + float(row.startup_ms or 0.0)
        by_mode.setdefault((row.scenario_id, row.mode), []).append(took)
        by_scenario.setdefault(row.scenario_id, []).append(took)
    mode_means = {key: statistics.fmean(values) for key, values in by_mode.items()}
    scenario_means = {key: statistics.fmean(values) for key, values in by_scenario.items()}
    typical = statistics.median(mode_means.values())

    def duration(item_id: str) -> float:
        parsed = parse_item_name(item_id)
        if parsed is None:
            return typical
        scenario, mode, _ = parsed
        return mode_means.get((scenario, mode), scenario_means.get(scenario, typical))

    return duration


def weights_by_timeout(timeouts: Mapping[str, int]) -> Callable[[str], float]:
    """Weights from the scenarios' ``timeout_ms`` (scenario id → ms; unknown ids weigh 1)."""

    def weight(item_id: str) -> float:
        return float(timeouts.get(_scenario_of(item_id), 1))

    return weight
