"""The power planner: its pass probabilities are those of the gate itself on simulated runs."""

from __future__ import annotations

import argparse
import io
import json
import math
from pathlib import Path

import numpy as np
import pytest

from pytest_ghxbench.cli.power import add_power_arguments, run_power
from pytest_ghxbench.metrics.gate import evaluate_gate
from pytest_ghxbench.metrics.noise import METRICS, NoiseModel, published_noise_model
from pytest_ghxbench.metrics.power import estimate_power, pass_probability, power_note
from pytest_ghxbench.metrics.profiles import BUILTIN_PROFILES
from pytest_ghxbench.metrics.table import RowTable
from pytest_ghxbench.records.row import Row
from tests.metrics.factory import make_row

RESAMPLES = 200


def _brute_force_share(
    model: NoiseModel, profile_name: str, effect: float, trials: int, seed: int
) -> float:
    """Rows drawn by hand from the model's medians and spreads, judged by evaluate_gate."""
    rng = np.random.default_rng(seed)
    passes = 0
    for trial in range(trials):
        rows: list[Row] = []
        for role, (mode, scale) in enumerate((("agent_direct", 1.0), ("ghx", 1 - effect / 100))):
            for index, scenario in enumerate(model.scenario_ids):
                for rep in range(int(model.rows[role, index])):
                    noise = np.exp(model.sigmas[role, index] * rng.standard_normal(len(METRICS)))
                    tokens, latency, tools, cost = model.medians[0, index] * scale * noise
                    rows.append(
                        make_row(
                            mode,
                            scenario,
                            tokens=round(tokens),
                            latency=latency,
                            tool_calls=round(tools),
                            cost=cost,
                            iteration=rep,
                        )
                    )
        gate = evaluate_gate(
            rows,
            profile=BUILTIN_PROFILES[profile_name],
            baseline="agent_direct",
            candidate="ghx",
            seed=trial,
            resamples=RESAMPLES,
        )
        passes += gate["passed"]
    return passes / trials


@pytest.mark.parametrize(
    ("profile_name", "effect"), [("verify_pr", 35.0), ("verify_pr_stat", 30.0)]
)
def test_planner_agrees_with_brute_force_through_the_gate(profile_name: str, effect: float) -> None:
    model = published_noise_model(scenarios=8, reps=4, seed=5)
    trials = 120
    planned = pass_probability(
        model,
        BUILTIN_PROFILES[profile_name],
        effects=dict.fromkeys(METRICS, effect),
        trials=trials,
        seed=1,
        resamples=RESAMPLES,
    )
    brute = _brute_force_share(model, profile_name, effect, trials, seed=2)
    pooled = (planned + brute) / 2
    tolerance = 3.5 * math.sqrt(max(pooled * (1 - pooled), 0.05) * 2 / trials)
    # An intermediate pass share, so a planner that ignored the effect or the profile differs.
    assert 0.15 < brute < 0.85
    assert abs(planned - brute) <= tolerance, (planned, brute, tolerance)


def test_interval_profile_meets_its_error_rate_targets_at_the_published_noise() -> None:
    """20 scenarios x 4 reps: a true 30% reduction passes >= 80% of the time, none <= 5%; the
    seed's point profile is shown underpowered on the same runs."""
    model = published_noise_model(scenarios=20, reps=4)
    trials = 60

    def share(name: str, effect: float) -> float:
        return pass_probability(
            model,
            BUILTIN_PROFILES[name],
            effects=dict.fromkeys(METRICS, effect),
            trials=trials,
            resamples=RESAMPLES,
        )

    standard_error = math.sqrt(0.8 * 0.2 / trials)
    assert share("verify_pr_stat", 30.0) >= 0.8 + standard_error
    assert share("verify_pr_stat", 0.0) <= 0.05
    assert share("verify_pr", 30.0) < 0.5


def _rows(effect: float, scenarios: int = 6, reps: int = 4, seed: int = 3) -> list[Row]:
    rng = np.random.default_rng(seed)
    rows = []
    for index in range(scenarios):
        base = rng.uniform(10_000, 50_000)
        for mode, scale in (("agent_direct", 1.0), ("ghx", 1 - effect / 100)):
            for rep in range(reps):
                noise = rng.lognormal(0, 0.3, 4)
                rows.append(
                    make_row(
                        mode,
                        f"s{index}",
                        tokens=round(base * scale * noise[0]),
                        latency=40_000 * scale * noise[1],
                        tool_calls=round(8 * scale * noise[2]),
                        cost=0.05 * scale * noise[3],
                        iteration=rep,
                    )
                )
    return rows


def test_noise_model_reads_the_rows() -> None:
    model = NoiseModel.from_table(RowTable(_rows(40.0, reps=30)), "agent_direct", "ghx")
    assert model.design_reps() == 30
    effects = model.observed_effects()
    assert set(effects) == set(METRICS)
    assert all(25 < value < 55 for value in effects.values()), effects
    # CV 0.3 lognormal noise: sigma = sqrt(log(1 + cv^2)) ~ 0.29, read back per scenario.
    assert 0.2 < float(np.median(model.sigmas[:, :, 0])) < 0.4


def test_estimate_reports_power_false_pass_and_reps() -> None:
    table = RowTable(_rows(40.0))
    estimate = estimate_power(
        table, BUILTIN_PROFILES["verify_pr_stat"], effect_pct=40.0, trials=30, resamples=100
    )
    assert estimate.false_pass_probability == 0.0
    assert estimate.pass_probability > 0.5
    assert estimate.reps_needed is not None and 3 <= estimate.reps_needed <= 8
    # No effect can never reach 80% at any count.
    hopeless = estimate_power(
        table, BUILTIN_PROFILES["verify_pr_stat"], effect_pct=0.0, trials=10, resamples=50
    )
    assert hopeless.reps_needed is None


def test_power_note_names_the_share_and_the_reps() -> None:
    note = power_note(_rows(40.0), BUILTIN_PROFILES["verify_pr_stat"], effect_pct=40.0)
    assert note is not None
    assert note.line.startswith(
        "power: with this noise a true 40% reduction would pass verify_pr_stat "
    )
    assert note.reps_needed is not None
    assert f"{note.reps_needed} reps per scenario would give 80%" in note.line
    assert note.to_json_dict()["line"] == note.line
    assert power_note([make_row("ghx")], BUILTIN_PROFILES["verify_pr"]) is None


def _write_rows(path: Path, rows: list[Row]) -> Path:
    path.write_text(
        "".join(json.dumps(row.to_json_dict()) + "\n" for row in rows), encoding="utf-8"
    )
    return path


def _run(argv: list[str]) -> tuple[int, str, str]:
    parser = argparse.ArgumentParser()
    add_power_arguments(parser)
    out, err = io.StringIO(), io.StringIO()
    status = run_power(parser.parse_args(argv), out=out, err=err)
    return status, out.getvalue(), err.getvalue()


def test_cli_json_has_exactly_the_documented_keys(tmp_path: Path) -> None:
    rows = _write_rows(tmp_path / "rows.jsonl", _rows(40.0))
    status, out, _ = _run(
        [str(rows), "--profile", "verify_pr_stat", "--effect", "40", "--trials", "20", "--json"]
    )
    assert status == 0
    document = json.loads(out)
    assert list(document) == [
        "profile",
        "effect_pct",
        "pass_probability",
        "false_pass_probability",
        "reps_needed",
    ]
    assert document["profile"] == "verify_pr_stat"
    assert document["effect_pct"] == 40.0
    assert document["false_pass_probability"] == 0.0


def test_cli_text_states_the_monte_carlo_error_and_observed_effects(tmp_path: Path) -> None:
    rows = _write_rows(tmp_path / "rows.jsonl", _rows(40.0))
    status, out, _ = _run([str(rows), "--trials", "10"])
    assert status == 0
    assert "profile: verify_pr; true reduction: as observed (tokens_active " in out
    assert "pass probability:" in out and "false pass probability:" in out
    assert "10 simulated runs per probability (standard error at most" in out


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--effect", "120"], "--effect must be a finite percentage below 100"),
        (["--target-power", "1.5"], "--target-power must be between 0 and 1"),
        (["--profile", "nope"], "unknown gate profile 'nope'"),
        (["--candidate", "mcp"], "no rows of the candidate mode 'mcp'"),
    ],
)
def test_cli_usage_errors_exit_4(tmp_path: Path, extra: list[str], message: str) -> None:
    rows = _write_rows(tmp_path / "rows.jsonl", _rows(40.0))
    status, _, err = _run([str(rows), "--trials", "5", *extra])
    assert status == 4
    assert message in err
