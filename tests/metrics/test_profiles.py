"""Gate profiles: built-in values, config overrides, new profiles, model expectations, errors."""

from __future__ import annotations

import pytest

from pytest_ghxbench.metrics.profiles import (
    BUILTIN_PROFILES,
    CHECK_NAMES,
    Profile,
    ProfileError,
    apply_model_expectations,
    build_profiles,
)

PR_VALUES = (3, 95, 7, 4, 20, 70, 10, 10, 15, 10)
RELEASE_VALUES = (1, 96, 6, 3, 18, 75, 12, 12, 18, 15)


def _values(profile: Profile) -> tuple[float, ...]:
    return tuple(profile.thresholds[name] for name in CHECK_NAMES)


def test_check_names_follow_the_spec_table() -> None:
    assert CHECK_NAMES == (
        "reliability_success_rate_non_inferior",
        "reliability_output_validity",
        "reliability_runner_failure_rate",
        "reliability_timeout_stall_rate",
        "reliability_retry_rate",
        "efficiency_coverage",
        "efficiency_tokens_active_reduction",
        "efficiency_latency_reduction",
        "efficiency_tool_call_reduction",
        "efficiency_cost_reduction",
    )


def test_builtin_profiles_hold_the_spec_thresholds() -> None:
    assert set(BUILTIN_PROFILES) == {
        "verify_pr",
        "verify_release",
        "verify_pr_stat",
        "verify_release_stat",
    }
    assert BUILTIN_PROFILES["verify_pr"].method == BUILTIN_PROFILES["verify_release"].method
    assert BUILTIN_PROFILES["verify_pr"].method == "point"
    assert _values(BUILTIN_PROFILES["verify_pr"]) == PR_VALUES
    assert BUILTIN_PROFILES["verify_pr"].min_samples_per_scenario_per_mode == 3
    assert _values(BUILTIN_PROFILES["verify_release"]) == RELEASE_VALUES
    assert BUILTIN_PROFILES["verify_release"].min_samples_per_scenario_per_mode == 5


def test_profiles_are_immutable() -> None:
    with pytest.raises(TypeError):
        BUILTIN_PROFILES["verify_pr"].thresholds["efficiency_coverage"] = 1  # type: ignore[index]


def test_without_overrides_the_builtins_are_returned() -> None:
    assert build_profiles() == dict(BUILTIN_PROFILES)


def test_override_changes_only_the_named_keys() -> None:
    profiles = build_profiles(
        {"verify_pr": {"efficiency_coverage": 80, "min_samples_per_scenario_per_mode": 2}}
    )
    changed = profiles["verify_pr"]
    assert changed.thresholds["efficiency_coverage"] == 80
    assert changed.min_samples_per_scenario_per_mode == 2
    assert changed.thresholds["efficiency_cost_reduction"] == 10
    assert profiles["verify_release"] == BUILTIN_PROFILES["verify_release"]
    assert BUILTIN_PROFILES["verify_pr"].thresholds["efficiency_coverage"] == 70


def test_new_profile_starts_from_verify_pr() -> None:
    nightly = build_profiles({"nightly": {"efficiency_cost_reduction": 0}})["nightly"]
    assert nightly.name == "nightly"
    assert _values(nightly) == (*PR_VALUES[:-1], 0)
    assert nightly.min_samples_per_scenario_per_mode == 3


def test_new_profile_can_extend_another() -> None:
    strict = build_profiles({"strict": {"extends": "verify_release", "reliability_retry_rate": 5}})
    assert _values(strict["strict"]) == (*RELEASE_VALUES[:4], 5, *RELEASE_VALUES[5:])
    assert strict["strict"].min_samples_per_scenario_per_mode == 5


def test_extends_may_name_a_profile_defined_later_in_the_same_table() -> None:
    profiles = build_profiles(
        {
            "weekly": {"extends": "nightly", "efficiency_coverage": 90},
            "nightly": {"extends": "verify_release", "min_samples_per_scenario_per_mode": 2},
        }
    )
    weekly = profiles["weekly"]
    assert weekly.thresholds["efficiency_coverage"] == 90
    assert weekly.min_samples_per_scenario_per_mode == 2
    assert weekly.thresholds["efficiency_cost_reduction"] == 15


def test_extends_cycle_is_reported() -> None:
    with pytest.raises(ProfileError, match="cycle: a -> b -> a"):
        build_profiles({"a": {"extends": "b"}, "b": {"extends": "a"}})


def test_extends_of_an_unknown_profile_lists_the_valid_ones() -> None:
    with pytest.raises(ProfileError) as error:
        build_profiles({"nightly": {"extends": "verify_prr"}})
    message = str(error.value)
    assert "'nightly'" in message and "'verify_prr'" in message
    assert "verify_pr, verify_pr_stat, verify_release, verify_release_stat" in message


def test_unknown_key_names_profile_key_and_valid_keys() -> None:
    with pytest.raises(ProfileError) as error:
        build_profiles({"verify_pr": {"efficiency_covrage": 80}})
    message = str(error.value)
    assert "profile 'verify_pr'" in message
    assert "'efficiency_covrage'" in message
    assert "valid keys: extends, min_samples_per_scenario_per_mode, " in message
    assert ", ".join(CHECK_NAMES) in message


@pytest.mark.parametrize("bad", ["high", True, None, [1], float("nan")])
def test_non_numeric_threshold_is_rejected(bad: object) -> None:
    with pytest.raises(ProfileError) as error:
        build_profiles({"nightly": {"efficiency_coverage": bad}})
    message = str(error.value)
    assert "profile 'nightly'" in message and "'efficiency_coverage'" in message
    assert repr(bad) in message


@pytest.mark.parametrize("bad", [0, 2.5, -1])
def test_min_samples_must_be_a_whole_number_of_at_least_one(bad: float) -> None:
    with pytest.raises(ProfileError, match="'min_samples_per_scenario_per_mode' must be a whole"):
        build_profiles({"verify_pr": {"min_samples_per_scenario_per_mode": bad}})


def test_min_samples_given_as_a_whole_float_is_accepted() -> None:
    profile = build_profiles({"verify_pr": {"min_samples_per_scenario_per_mode": 4.0}})["verify_pr"]
    assert profile.min_samples_per_scenario_per_mode == 4


def test_override_that_is_not_a_table_is_rejected() -> None:
    with pytest.raises(ProfileError, match="profile 'verify_pr': expected a table"):
        build_profiles({"verify_pr": 5})  # type: ignore[dict-item]


def test_plugin_profiles_are_added_and_config_overrides_them() -> None:
    plugin_profile = BUILTIN_PROFILES["verify_pr"].with_values(
        {"efficiency_coverage": 50}, name="plugin_gate"
    )
    profiles = build_profiles(
        {"plugin_gate": {"efficiency_cost_reduction": 1}},
        extra=[plugin_profile, {"name": "mapped", "extends": "verify_release"}],
    )
    assert profiles["plugin_gate"].thresholds["efficiency_coverage"] == 50
    assert profiles["plugin_gate"].thresholds["efficiency_cost_reduction"] == 1
    assert _values(profiles["mapped"]) == RELEASE_VALUES


def test_contributed_mapping_needs_a_name() -> None:
    with pytest.raises(ProfileError, match="needs a 'name'"):
        build_profiles(extra=[{"efficiency_coverage": 1}])


def test_profile_with_missing_thresholds_is_rejected() -> None:
    with pytest.raises(ProfileError, match="profile 'partial': missing thresholds for"):
        Profile("partial", {"efficiency_coverage": 1}, 3)


EXPECTATIONS = {
    "anthropic/claude-small": {
        "verify_pr": {"efficiency_tokens_active_reduction": 5, "reliability_retry_rate": 30}
    },
    "openai/gpt-5": {"verify_release": {"efficiency_coverage": 60}},
}


def test_model_expectations_replace_thresholds_for_that_model() -> None:
    profile = apply_model_expectations(
        BUILTIN_PROFILES["verify_pr"], EXPECTATIONS, "anthropic/claude-small"
    )
    assert profile.name == "verify_pr"
    assert profile.thresholds["efficiency_tokens_active_reduction"] == 5
    assert profile.thresholds["reliability_retry_rate"] == 30
    assert profile.thresholds["efficiency_coverage"] == 70


def test_model_expectations_leave_other_models_and_profiles_alone() -> None:
    pr = BUILTIN_PROFILES["verify_pr"]
    assert apply_model_expectations(pr, EXPECTATIONS, "openai/gpt-5") == pr
    assert apply_model_expectations(pr, EXPECTATIONS, "other/model") == pr
    assert apply_model_expectations(pr, EXPECTATIONS, None) == pr
    assert apply_model_expectations(pr, None, "anthropic/claude-small") == pr


def test_model_expectations_are_validated_even_when_not_applied() -> None:
    bad = {"openai/gpt-5": {"verify_pr": {"efficiency_coverag": 60}}}
    with pytest.raises(ProfileError) as error:
        apply_model_expectations(BUILTIN_PROFILES["verify_pr"], bad, "other/model")
    message = str(error.value)
    assert "'openai/gpt-5'" in message and "'verify_pr'" in message
    assert "'efficiency_coverag'" in message and "valid keys:" in message
    assert "extends" not in message


def test_model_expectations_reject_non_numbers() -> None:
    bad = {"openai/gpt-5": {"verify_pr": {"efficiency_coverage": "60%"}}}
    with pytest.raises(ProfileError, match="'efficiency_coverage' must be a number, got '60%'"):
        apply_model_expectations(BUILTIN_PROFILES["verify_pr"], bad, "openai/gpt-5")
