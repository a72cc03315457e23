"""How often a gate profile passes, by simulation through the gate itself (``ghxbench power``).

A :class:`NoiseModel` holds, per scenario and per role (baseline, candidate), what the rows
showed: the median and the coefficient of variation of each efficiency metric over the stable
rows, and the rows' reliability flags. A simulated run draws, for every scenario and role, the
same number of rows as the design asks: each row's flags are one observed row's flags drawn at
random, and each metric is lognormal with the scenario's median and CV. The candidate's medians
are the baseline's times ``1 - effect``. The rows then go through
:func:`~pytest_ghxbench.metrics.gate.evaluate_gate_table`, the function the session and
``ghxbench report`` call, so the planner can only disagree with the gate by Monte-Carlo error.
Only the bootstrap is cheaper: :data:`PLANNING_RESAMPLES` resamples instead of 10,000 (which
moves each one-sided bound by a fraction of its own noise, not its place).

* ``pass_probability``: the share of simulated runs that pass with the given effect;
* ``false_pass_probability``: the same with no effect, the candidate drawn like the baseline
  (its medians, CVs and flags);
* ``reps_needed``: the fewest repetitions per scenario and mode at which the pass probability
  reaches the target (searched up to :data:`MAX_REPS`; ``None`` beyond it).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from pytest_ghxbench.metrics.gate import GroupColumns, RowTable, evaluate_gate_table
from pytest_ghxbench.metrics.profiles import Profile
from pytest_ghxbench.metrics.row import RUNNER_ERROR, RowRecord
from pytest_ghxbench.metrics.stats import FloatArray, median

__all__ = [
    "MAX_REPS",
    "METRICS",
    "PLANNING_RESAMPLES",
    "NoiseModel",
    "PowerEstimate",
    "estimate_power",
    "pass_probability",
]

METRICS: tuple[str, ...] = ("tokens_active", "latency_ms", "tool_calls", "cost_usd")
PLANNING_RESAMPLES = 400
MAX_REPS = 50
BASELINE, CANDIDATE = 0, 1

# Flag bits of a row: what the gate's reliability checks and stable sample read.
_SUCCESS, _VALID, _RUNNER_ERROR, _STALL, _RETRIED = 1, 2, 4, 8, 16
IntArray = npt.NDArray[np.int64]


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
    flags: tuple[tuple[IntArray, ...], tuple[IntArray, ...]]
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


@dataclass(frozen=True)
class PowerEstimate:
    """What ``ghxbench power`` reports; probabilities are shares of ``trials`` simulated runs."""

    profile: str
    effect_pct: float | dict[str, float]
    pass_probability: float
    false_pass_probability: float
    reps_needed: int | None
    target_power: float
    design_reps: int
    trials: int
    search_trials: int
    resamples: int

    @property
    def monte_carlo_se(self) -> float:
        """The largest binomial standard error of the two probabilities."""
        return max(
            math.sqrt(p * (1 - p) / self.trials)
            for p in (self.pass_probability, self.false_pass_probability, 0.5 / self.trials)
        )

    def to_json_dict(self) -> dict[str, Any]:
        """The ``--json`` object: exactly these five keys."""
        return {
            "profile": self.profile,
            "effect_pct": self.effect_pct,
            "pass_probability": self.pass_probability,
            "false_pass_probability": self.false_pass_probability,
            "reps_needed": self.reps_needed,
        }


def _truth(
    model: NoiseModel, effects: Mapping[str, float] | None
) -> tuple[FloatArray, FloatArray, tuple[tuple[IntArray, ...], tuple[IntArray, ...]]]:
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


def _simulated_records(
    model: NoiseModel,
    truth: tuple[FloatArray, FloatArray, tuple[tuple[IntArray, ...], tuple[IntArray, ...]]],
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


def pass_probability(
    model: NoiseModel,
    profile: Profile,
    *,
    baseline: str = "agent_direct",
    candidate: str = "ghx",
    effects: Mapping[str, float] | None,
    reps: int | None = None,
    trials: int = 200,
    seed: int = 0,
    resamples: int = PLANNING_RESAMPLES,
) -> float:
    """The share of ``trials`` simulated runs that ``profile``'s gate passes.

    ``effects`` maps each of :data:`METRICS` to the true reduction in percent (``None``: no
    effect, the candidate drawn like the baseline); ``reps`` rows per scenario and mode (``None``:
    as many as observed). Seeded: the same arguments give the same answer.
    """
    if trials < 1:
        raise ValueError(f"trials must be >= 1, got {trials}")
    rng = np.random.default_rng(seed)
    truth = _truth(model, effects)
    passes = 0
    for _ in range(trials):
        records = _simulated_records(model, truth, (baseline, candidate), reps, rng)
        gate = evaluate_gate_table(
            RowTable.from_records(records),
            profile=profile,
            baseline=baseline,
            candidate=candidate,
            seed=int(rng.integers(2**31)),
            resamples=resamples,
        )
        passes += bool(gate["passed"])
    return passes / trials


def reps_needed(
    model: NoiseModel,
    profile: Profile,
    *,
    effects: Mapping[str, float],
    target_power: float,
    max_reps: int = MAX_REPS,
    **simulation: Any,
) -> int | None:
    """The fewest reps per scenario and mode whose pass probability reaches ``target_power``:
    doubling from the profile's minimum, then bisecting (the same seed at every count, so the
    runs compared differ by the count, not the draws). ``None`` when ``max_reps`` does not."""
    known: dict[int, bool] = {}

    def enough(reps: int) -> bool:
        if reps not in known:
            power = pass_probability(model, profile, effects=effects, reps=reps, **simulation)
            known[reps] = power >= target_power
        return known[reps]

    low = profile.min_samples_per_scenario_per_mode - 1  # fewer rows: no scenario is eligible
    reps = min(max(low + 1, 1), max_reps)
    while not enough(reps):
        if reps >= max_reps:
            return None
        low, reps = reps, min(max_reps, reps * 2)
    high = reps
    while high - low > 1:
        middle = (low + high) // 2
        if enough(middle):
            high = middle
        else:
            low = middle
    return high


def estimate_power(
    table: RowTable,
    profile: Profile,
    *,
    baseline: str = "agent_direct",
    candidate: str = "ghx",
    effect_pct: float | None = None,
    target_power: float = 0.8,
    trials: int = 200,
    search_trials: int | None = None,
    resamples: int = PLANNING_RESAMPLES,
    max_reps: int = MAX_REPS,
    seed: int = 0,
) -> PowerEstimate:
    """Pass and false-pass probability of ``profile`` at the rows' noise, and the reps needed.

    ``effect_pct``: the true reduction of every efficiency metric, in percent; ``None`` takes the
    observed per-metric reductions (reported per metric). The reps search uses ``search_trials``
    (default ``trials``) simulated runs per count.
    """
    model = NoiseModel.from_table(table, baseline, candidate)
    effects = (
        model.observed_effects()
        if effect_pct is None
        else dict.fromkeys(METRICS, float(effect_pct))
    )
    simulation: dict[str, Any] = {
        "baseline": baseline,
        "candidate": candidate,
        "seed": seed,
        "resamples": resamples,
    }
    search = search_trials or trials
    return PowerEstimate(
        profile=profile.name,
        effect_pct=effects if effect_pct is None else float(effect_pct),
        pass_probability=pass_probability(
            model, profile, effects=effects, trials=trials, **simulation
        ),
        false_pass_probability=pass_probability(
            model, profile, effects=None, trials=trials, **simulation
        ),
        reps_needed=reps_needed(
            model,
            profile,
            effects=effects,
            target_power=target_power,
            max_reps=max_reps,
            trials=search,
            **simulation,
        ),
        target_power=target_power,
        design_reps=model.design_reps(),
        trials=trials,
        search_trials=search,
        resamples=resamples,
    )
