"""The interval profiles' checks, and the seed profiles' verdicts left exactly as they were."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_ghxbench.metrics.gate import evaluate_gate
from pytest_ghxbench.metrics.profiles import BUILTIN_PROFILES, build_profiles
from pytest_ghxbench.records.row import Row
from tests.metrics.factory import flatten, repeat
from tests.metrics.test_published_eval import _published_rows
from tests.paths import EVAL_DIR

# The seed profiles' verdicts on the published evaluation before the interval profiles existed.
SEED_VERDICTS: dict[tuple[str, str], tuple[str, list[float | None]]] = {
    ("verify_pr", "ghx"): (
        "1 of 10 checks failed: efficiency_cost_reduction",
        [10.0, 100.0, 0.0, 0.0, 0.0, 100.0, 19.05644109648681, 56.27176236290171,
         75.71428571428572, None],
    ),
    ("verify_pr", "mcp"): (
        "2 of 10 checks failed: efficiency_tokens_active_reduction, efficiency_cost_reduction",
        [10.0, 100.0, 0.0, 0.0, 0.0, 100.0, 7.004403313771681, 46.12021026165979,
         17.857142857142858, None],
    ),
    ("verify_release", "ghx"): (
        "2 of 10 checks failed: efficiency_coverage, efficiency_cost_reduction",
        [10.0, 100.0, 0.0, 0.0, 0.0, 50.0, 18.768042589884903, 62.02489068281197, 80.0, None],
    ),
    ("verify_release", "mcp"): (
        "3 of 10 checks failed: efficiency_coverage, efficiency_tokens_active_reduction, "
        "efficiency_cost_reduction",
        [10.0, 100.0, 0.0, 0.0, 0.0, 50.0, -6.234769242304953, 56.71288510171793, 50.0, None],
    ),
}  # fmt: skip


@pytest.mark.skipif(not EVAL_DIR.is_dir(), reason="published evaluation not present")
@pytest.mark.parametrize(("profile", "candidate"), list(SEED_VERDICTS))
def test_seed_profiles_verdicts_are_unchanged(profile: str, candidate: str) -> None:
    gate = evaluate_gate(
        _published_rows(),
        profile=BUILTIN_PROFILES[profile],
        baseline="agent_direct",
        candidate=candidate,
    )
    reason, values = SEED_VERDICTS[(profile, candidate)]
    assert gate["passed"] is False
    assert gate["reason"] == reason
    assert [check["value"] for check in gate["checks"]] == pytest.approx(values)
    assert all(set(check) == {"name", "passed", "value", "threshold", "operator"}
               for check in gate["checks"])  # fmt: skip


def _gate(rows: list[Row], profile: str = "verify_pr_stat") -> dict[str, Any]:
    return evaluate_gate(
        rows, profile=BUILTIN_PROFILES[profile], baseline="agent_direct", candidate="ghx"
    )


def _checks(gate: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {check["name"]: check for check in gate["checks"]}


def _scenario(name: str, base_tokens: int, cand_tokens: int, base_cost: float,
              cand_cost: float, reps: int = 5) -> list[Row]:  # fmt: skip
    rows = []
    for mode, tokens, cost in (("agent_direct", base_tokens, base_cost),
                               ("ghx", cand_tokens, cand_cost)):  # fmt: skip
        for rep in range(reps):
            wobble = 1 + 0.04 * (rep - reps // 2)
            rows += repeat(1, mode, name, tokens=round(tokens * wobble), cost=cost * wobble,
                           latency=1000 * wobble * tokens / base_tokens,
                           tool_calls=round(10 * tokens / base_tokens))  # fmt: skip
    return rows


def test_interval_profile_passes_a_clear_improvement_and_says_which_bound_it_compared() -> None:
    rows = flatten(_scenario(f"s{i}", 10_000, 6_000, 0.10, 0.06) for i in range(6))
    gate = _gate(rows)
    assert gate["profile"] == "verify_pr_stat"
    assert gate["passed"], gate["reason"]
    tokens = _checks(gate)["efficiency_tokens_active_reduction"]
    assert tokens["bound"] == "lower 95%"
    assert tokens["estimate"] == pytest.approx(40.0)
    assert 10 <= tokens["value"] <= tokens["estimate"]
    assert _checks(gate)["reliability_success_rate_non_inferior"]["bound"] == "upper 95%"


def test_one_scenario_more_expensive_beyond_the_noise_fails_the_cost_check() -> None:
    rows = flatten(_scenario(f"s{i}", 10_000, 6_000, 0.10, 0.06) for i in range(5))
    rows += _scenario("s5-costly", 10_000, 6_000, 0.10, 0.30)
    gate = _gate(rows)
    cost = _checks(gate)["efficiency_cost_reduction"]
    assert cost["value"] >= 10  # the suite-level bound alone would pass
    assert cost["passed"] is False
    assert cost["scenarios_more_expensive"] == ["s5-costly"]
    assert (
        "efficiency_cost_reduction: more expensive beyond the noise in s5-costly"
        in (gate["reason"])
    )
    # The seed's rule fails it on the smallest scenario reduction instead.
    assert _checks(_gate(rows, "verify_pr"))["efficiency_cost_reduction"]["value"] < 0


def test_reliability_is_judged_on_wilson_bounds_not_bare_rates() -> None:
    improvement = flatten(_scenario(f"s{i}", 10_000, 6_000, 0.10, 0.06) for i in range(6))
    # 1 runner error in 31 candidate rows (3.2%) cannot show a rate above 4% ...
    one_error = improvement + repeat(1, "ghx", "s0", runner_error="agent timed out")
    stall = _checks(_gate(one_error))["reliability_timeout_stall_rate"]
    assert stall["estimate"] == pytest.approx(100 / 31)
    assert stall["value"] < stall["estimate"] and stall["passed"]
    # ... 8 in 38 (21%) shows a runner failure rate above 7% beyond the noise.
    many = improvement + repeat(8, "ghx", "s1", runner_error="crashed")
    failure = _checks(_gate(many))["reliability_runner_failure_rate"]
    assert failure["bound"] == "lower 95%"
    assert 7 < failure["value"] < failure["estimate"]
    assert failure["passed"] is False


def test_a_profile_extending_an_interval_profile_is_an_interval_profile() -> None:
    profiles = build_profiles({"nightly": {"extends": "verify_release_stat"}})
    assert profiles["nightly"].method == "interval"
    assert profiles["verify_pr"].method == "point"
    assert BUILTIN_PROFILES["verify_pr_stat"].to_json_dict()["method"] == "interval"
