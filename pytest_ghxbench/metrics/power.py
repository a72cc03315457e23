"""How often a gate profile passes, by simulation through the gate itself (``ghxbench power``).

Runs are drawn from a :class:`~pytest_ghxbench.metrics.noise.NoiseModel` of the rows' noise and
go through :func:`~pytest_ghxbench.metrics.gate.evaluate_gate_table`, the function the session
and ``ghxbench report`` call, so the planner can only disagree with the gate by Monte-Carlo
error. Only the bootstrap is cheaper: an interval profile's runs use :data:`PLANNING_RESAMPLES`
resamples instead of 10,000 (which moves each one-sided bound by a fraction of its own noise);
a point profile's verdict does not read its intervals at all.

* ``pass_probability``: the share of simulated runs that pass with the given effect;
* ``false_pass_probability``: the same with no effect, the candidate drawn like the baseline;
* ``reps_needed``: the fewest repetitions per scenario and mode at which the pass probability
  reaches the target (searched up to :data:`MAX_REPS`; ``None`` beyond it).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from pytest_ghxbench.metrics.gate import evaluate_gate_table
from pytest_ghxbench.metrics.noise import BASELINE, METRICS, NoiseModel, simulated_records, truth
from pytest_ghxbench.metrics.profiles import INTERVAL, Profile
from pytest_ghxbench.metrics.stats import wilson_interval
from pytest_ghxbench.metrics.table import RowTable
from pytest_ghxbench.option_specs import DEFAULT_POWER_EFFECT_PCT
from pytest_ghxbench.records.row import Row

__all__ = [
    "MAX_REPS",
    "METRICS",
    "PLANNING_RESAMPLES",
    "PowerEstimate",
    "PowerNote",
    "estimate_power",
    "pass_probability",
    "power_note",
    "reps_needed",
    "share_standard_error",
]

PLANNING_RESAMPLES = 400
MAX_REPS = 50


def share_standard_error(share: float, trials: int) -> float:
    """The binomial standard error of a share of ``trials`` simulated runs, floored at half a
    run's worth of variance so that a share of exactly 0 or 1 does not claim no error."""
    return math.sqrt(max(share * (1 - share), 0.5 / trials) / trials)


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
        """The larger standard error of the two probabilities."""
        return max(
            share_standard_error(p, self.trials)
            for p in (self.pass_probability, self.false_pass_probability)
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


def _trial_passes(
    model: NoiseModel,
    profile: Profile,
    *,
    baseline: str,
    candidate: str,
    effects: Mapping[str, float] | None,
    reps: int | None,
    seed: int,
    resamples: int,
) -> Iterator[bool]:
    """The gate's verdict on one simulated run after another (endless; seeded)."""
    rng = np.random.default_rng(seed)
    drawn = truth(model, effects)
    # A point profile's verdict never reads the bootstrap intervals: skip their resampling.
    gate_resamples = resamples if profile.method == INTERVAL else 1
    while True:
        records = simulated_records(model, drawn, (baseline, candidate), reps, rng)
        gate = evaluate_gate_table(
            RowTable.from_records(records),
            profile=profile,
            baseline=baseline,
            candidate=candidate,
            seed=int(rng.integers(2**31)),
            resamples=gate_resamples,
        )
        yield bool(gate["passed"])


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
    verdicts = _trial_passes(
        model,
        profile,
        baseline=baseline,
        candidate=candidate,
        effects=effects,
        reps=reps,
        seed=seed,
        resamples=resamples,
    )
    return sum(next(verdicts) for _ in range(trials)) / trials


def _reaches(verdicts: Iterator[bool], target: float, trials: int) -> bool:
    """Whether the pass share reaches ``target``, stopping early (after at least 10 runs) once
    the 95% Wilson interval of the share lies on one side of it."""

    passes = 0
    for done in range(1, trials + 1):
        passes += next(verdicts)
        if done >= 10 and done % 5 == 0:
            low, high = wilson_interval(passes, done, 1.96)
            if low > target or high < target:
                break
    return passes / done >= target


def reps_needed(
    model: NoiseModel,
    profile: Profile,
    *,
    effects: Mapping[str, float],
    target_power: float,
    max_reps: int = MAX_REPS,
    trials: int = 200,
    baseline: str = "agent_direct",
    candidate: str = "ghx",
    seed: int = 0,
    resamples: int = PLANNING_RESAMPLES,
) -> int | None:
    """The fewest reps per scenario and mode whose pass probability reaches ``target_power``:
    doubling from the profile's minimum, then bisecting, each count judged on up to ``trials``
    simulated runs (fewer when the answer is clear; the same seed at every count, so the runs
    compared differ by the count, not the draws). ``None`` when ``max_reps`` does not reach it."""
    known: dict[int, bool] = {}

    def enough(reps: int) -> bool:
        if reps not in known:
            verdicts = _trial_passes(
                model,
                profile,
                baseline=baseline,
                candidate=candidate,
                effects=effects,
                reps=reps,
                seed=seed,
                resamples=resamples,
            )
            known[reps] = _reaches(verdicts, target_power, trials)
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


POWER_LINE_TRIALS = 40


@dataclass(frozen=True)
class PowerNote:
    """The verdict's power note (``summary.run.power``): how often a true ``effect_pct``
    reduction would pass this profile at the rows' noise, and the reps that would give
    ``target_power`` (``None``: more than :data:`MAX_REPS`)."""

    profile: str
    effect_pct: float
    pass_probability: float
    standard_error: float
    trials: int
    design_reps: int
    reps_needed: int | None
    target_power: float

    @property
    def line(self) -> str:
        needed = (
            f"{self.reps_needed} reps per scenario would give {self.target_power:.0%}"
            if self.reps_needed is not None
            else f"more than {MAX_REPS} reps per scenario would be needed for "
            f"{self.target_power:.0%}"
        )
        return (
            f"power: with this noise a true {self.effect_pct:g}% reduction would pass "
            f"{self.profile} {self.pass_probability:.0%} of the time (±{self.standard_error:.0%}, "
            f"{self.trials} simulated runs at {self.design_reps} reps); {needed}"
        )

    def to_json_dict(self) -> dict[str, Any]:
        return {
            "profile": self.profile,
            "effect_pct": self.effect_pct,
            "pass_probability": self.pass_probability,
            "standard_error": self.standard_error,
            "trials": self.trials,
            "design_reps": self.design_reps,
            "reps_needed": self.reps_needed,
            "target_power": self.target_power,
            "line": self.line,
        }


def power_note(
    rows: Sequence[Row] | RowTable,
    profile: Profile,
    *,
    effect_pct: float = DEFAULT_POWER_EFFECT_PCT,
    baseline: str = "agent_direct",
    candidate: str = "ghx",
    target_power: float = 0.8,
    seed: int = 0,
) -> PowerNote | None:
    """The power note for the verdict (``None`` without baseline rows to take the noise from).

    Cheap enough for the end of every session (about a second for 200 rows): the pass share is
    estimated from :data:`POWER_LINE_TRIALS` simulated runs (its standard error is in the note)
    and each count of the reps search stops as soon as its answer is clear.
    """
    table = rows if isinstance(rows, RowTable) else RowTable(rows)
    model = NoiseModel.from_table(table, baseline, candidate)
    if not any(pool.size for pool in model.flags[BASELINE]):
        return None
    effects = dict.fromkeys(METRICS, float(effect_pct))
    common: dict[str, Any] = {"baseline": baseline, "candidate": candidate, "seed": seed}
    share = pass_probability(model, profile, effects=effects, trials=POWER_LINE_TRIALS, **common)
    reps = reps_needed(
        model,
        profile,
        effects=effects,
        target_power=target_power,
        trials=POWER_LINE_TRIALS,
        **common,
    )
    return PowerNote(
        profile=profile.name,
        effect_pct=float(effect_pct),
        pass_probability=share,
        standard_error=share_standard_error(share, POWER_LINE_TRIALS),
        trials=POWER_LINE_TRIALS,
        design_reps=model.design_reps(),
        reps_needed=reps,
        target_power=target_power,
    )
