"""The noise a simulated run is drawn from (:mod:`pytest_ghxbench.metrics.power`).

A :class:`NoiseModel` holds, per scenario and per role (baseline, candidate), what rows showed:
the median and the coefficient of variation of each efficiency metric over the stable rows, and
the rows' reliability flags. A simulated run draws, for every scenario and role, as many rows as
the design asks: each row's flags are one observed row's flags drawn at random, and each metric
is lognormal with the scenario's median and CV (tool calls rounded to whole numbers). The
candidate's medians are the baseline's times ``1 - effect``; with no effect the candidate is
drawn like the baseline (its medians, CVs and flags).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from pytest_ghxbench.metrics.stats import FloatArray, median
from pytest_ghxbench.metrics.table import GroupColumns, RowTable
from pytest_ghxbench.records.row import RUNNER_ERROR, RowRecord

__all__ = [
    "BASELINE",
    "CANDIDATE",
    "METRICS",
    "NoiseModel",
    "Truth",
    "published_noise_model",
    "simulated_records",
    "truth",
]

METRICS: tuple[str, ...] = ("tokens_active", "latency_ms", "tool_calls", "cost_usd")
BASELINE, CANDIDATE = 0, 1

# Flag bits of a row: what the gate's reliability checks and stable sample read.
_SUCCESS, _VALID, _RUNNER_ERROR, _STALL, _RETRIED = 1, 2, 4, 8, 16
IntArray = npt.NDArray[np.int64]
FlagPools = tuple[tuple[IntArray, ...], tuple[IntArray, ...]]
# Medians, lognormal spreads and flag pools of the runs to draw.
Truth = tuple[FloatArray, FloatArray, FlagPools]


@dataclass(frozen=True)
class NoiseModel:
    """What a simulated run is drawn from (see the module docstring).

    ``medians[r, s, m]`` and ``sigmas[r, s, m]`` (the lognormal's log-scale spread, from the CV:
    ``sqrt(log(1 + cv**2))``) per role ``r`` (0 baseline, 1 candidate), scenario ``s`` and
    metric ``m`` of :data:`METRICS`; ``flags[r][s]`` the observed rows' flag codes (empty where the
    role has no rows of the scenario, which then gets none); ``rows[r, s]`` the observed count.
    ``whole_tool_calls`` rounds simulated tool calls to whole numbers, as real ones are.
    """

    scenario_ids: tuple[str, ...]
    medians: FloatArray
    sigmas: FloatArray
    flags: FlagPools
    rows: IntArray
    whole_tool_calls: bool = True

    @classmethod
    def from_table(cls, table: RowTable, baseline: str, candidate: str) -> NoiseModel:
        """The noise of ``table``'s rows of the two modes."""
        groups = (table.scenarios(baseline), table.scenarios(candidate))
        ids = tuple(sorted(set(groups[0]) | set(groups[1])))
        shape = (2, len(ids), len(METRICS))
        medians, cvs = np.full(shape, np.nan), np.full(shape, np.nan)
        flags: tuple[list[IntArray], list[IntArray]] = ([], [])
        rows = np.zeros((2, len(ids)), dtype=np.int64)
        whole = True
        for role in (BASELINE, CANDIDATE):
            for index, scenario_id in enumerate(ids):
                group = groups[role].get(scenario_id)
                flags[role].append(_flag_codes(group))
                rows[role, index] = 0 if group is None else group.runs
                for metric_index, metric in enumerate(METRICS):
                    values = np.empty(0) if group is None else group.stable_values(metric)
                    if metric == "tool_calls":
                        whole = whole and bool(np.all(values == np.round(values)))
                    medians[role, index, metric_index] = _or_nan(median(values))
                    cvs[role, index, metric_index] = _cv(values)
        return cls(
            ids,
            medians,
            _sigmas(cvs),
            (tuple(flags[0]), tuple(flags[1])),
            rows,
            whole,
        )

    def observed_effects(self) -> dict[str, float]:
        """Per metric, the median across scenarios of the candidate's reduction in percent."""
        effects: dict[str, float] = {}
        for metric_index, metric in enumerate(METRICS):
            base, cand = self.medians[0, :, metric_index], self.medians[1, :, metric_index]
            usable = np.isfinite(base) & np.isfinite(cand) & (base > 0)
            value = median(100 * (base[usable] - cand[usable]) / base[usable])
            effects[metric] = 0.0 if value is None else value
        return effects

    def design_reps(self) -> int:
        """The repetitions per scenario and mode of the observed design (the median count)."""
        counts = self.rows[self.rows > 0]
        return int(np.median(counts)) if counts.size else 0


def _flag_codes(group: GroupColumns | None) -> IntArray:
    if group is None:
        return np.empty(0, dtype=np.int64)
    return np.asarray(
        group.success * _SUCCESS
        + group.output_valid * _VALID
        + group.runner_error * _RUNNER_ERROR
        + group.timeout_stall * _STALL
        + group.retried * _RETRIED,
        dtype=np.int64,
    )


def _or_nan(value: float | None) -> float:
    return math.nan if value is None else value


def _cv(values: FloatArray) -> float:
    if values.size < 2 or float(values.mean()) <= 0:
        return math.nan
    return float(values.std(ddof=1) / values.mean())


def _sigmas(cvs: FloatArray) -> FloatArray:
    """Lognormal spreads; a scenario without a CV of its own gets its role's (else the other
    role's) median CV for the metric, and no spread when neither has one."""
    filled = cvs.copy()
    for metric_index in range(cvs.shape[2]):
        pooled = [
            _or_nan(median(cvs[role, :, metric_index][np.isfinite(cvs[role, :, metric_index])]))
            for role in (0, 1)
        ]
        for role in (0, 1):
            fallback = pooled[role] if math.isfinite(pooled[role]) else pooled[1 - role]
            column = filled[role, :, metric_index]
            column[~np.isfinite(column)] = fallback if math.isfinite(fallback) else 0.0
    return np.asarray(np.sqrt(np.log1p(filled**2)), dtype=float)


def truth(model: NoiseModel, effects: Mapping[str, float] | None) -> Truth:
    """Medians, spreads and flag pools of the simulated runs: the candidate's medians are the
    baseline's scaled by ``1 - effect``, or, without effects, the candidate is the baseline."""
    medians, sigmas = model.medians.copy(), model.sigmas.copy()
    base_flags, cand_flags = model.flags
    known = np.isfinite(model.medians[BASELINE])
    if effects is None:
        medians[CANDIDATE] = np.where(known, model.medians[BASELINE], medians[CANDIDATE])
        sigmas[CANDIDATE] = np.where(known, model.sigmas[BASELINE], sigmas[CANDIDATE])
        cand_flags = tuple(
            base if base.size and cand.size else cand
            for base, cand in zip(base_flags, cand_flags, strict=True)
        )
    else:
        scale = np.array([1 - effects[metric] / 100 for metric in METRICS])
        medians[CANDIDATE] = np.where(
            known, model.medians[BASELINE] * scale[None, :], medians[CANDIDATE]
        )
    return np.nan_to_num(medians, nan=0.0), sigmas, (base_flags, cand_flags)


def simulated_records(
    model: NoiseModel,
    truth: Truth,
    modes: tuple[str, str],
    reps: int | None,
    rng: np.random.Generator,
) -> list[RowRecord]:
    medians, sigmas, flags = truth
    records: list[RowRecord] = []
    for role, mode in enumerate(modes):
        for index, scenario_id in enumerate(model.scenario_ids):
            pool = flags[role][index]
            count = int(model.rows[role, index]) if reps is None else reps
            if pool.size == 0 or count == 0:
                continue
            codes = pool[rng.integers(0, pool.size, count)]
            noise = np.exp(sigmas[role, index] * rng.standard_normal((count, len(METRICS))))
            values = medians[role, index] * noise
            if model.whole_tool_calls:
                values[:, 2] = np.round(values[:, 2])
            records.extend(
                RowRecord(
                    mode,
                    scenario_id,
                    "simulated",
                    "model",
                    bool(code & _SUCCESS),
                    bool(code & _VALID),
                    1 if code & _RETRIED else 0,
                    RUNNER_ERROR if code & _RUNNER_ERROR else None,
                    ("timeout" if code & _STALL else "error") if code & _RUNNER_ERROR else None,
                    tokens,
                    0,
                    latency,
                    tools,
                    cost,
                )
                for code, (tokens, latency, tools, cost) in zip(
                    codes.tolist(), values.tolist(), strict=True
                )
            )
    return records


# The published evaluation's spread of the per-run CV of active tokens across scenarios.
PUBLISHED_CV_RANGE = (0.10, 0.61)


def published_noise_model(scenarios: int = 20, reps: int = 4, seed: int = 0) -> NoiseModel:
    """A baseline with the published noise, every row stable: per scenario, each metric's CV
    spread evenly over :data:`PUBLISHED_CV_RANGE` (median about 0.35; the metrics' CVs are
    shuffled independently across scenarios), medians of realistic size (20k-80k active
    tokens, 20-120 s, 3-12 tool calls, $0.02-0.20). The candidate starts as a copy."""
    rng = np.random.default_rng(seed)
    spread = np.linspace(*PUBLISHED_CV_RANGE, scenarios)
    cvs = np.stack([rng.permutation(spread) for _ in METRICS], axis=1)
    medians = np.stack(
        [
            rng.uniform(20_000, 80_000, scenarios),
            rng.uniform(20_000, 120_000, scenarios),
            rng.integers(3, 13, scenarios).astype(float),
            rng.uniform(0.02, 0.20, scenarios),
        ],
        axis=1,
    )
    stable = np.array([_SUCCESS | _VALID], dtype=np.int64)
    pools = tuple(stable for _ in range(scenarios))
    return NoiseModel(
        tuple(f"s{index:03d}" for index in range(scenarios)),
        np.stack([medians, medians]),
        _sigmas(np.stack([cvs, cvs])),
        (pools, pools),
        np.full((2, scenarios), reps, dtype=np.int64),
    )
